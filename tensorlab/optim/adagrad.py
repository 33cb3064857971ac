"""``Adagrad``: per-coordinate learning rates from the sum of squared gradients."""

from __future__ import annotations

from tensorlab_kernels.optim import adagrad as K

from ..autograd import no_grad
from ._functional import fused_update, grads_of, zeros_state
from .optimizer import (
    Optimizer,
    add_host_scalar_,
    check_lr,
    check_nonnegative,
    check_unsupported,
    host_scalar,
    lr_value,
    read_host_scalar,
)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """PyTorch's ``torch.optim.Adagrad`` (same arguments, defaults, state and numbers), at step t::

        g = -grad if maximize else grad;  g += weight_decay * p
        s += g^2;  p -= lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + eps)

    State per parameter: ``step``, ``sum`` (starts at ``initial_accumulator_value``). On cuda one
    fused launch per group. Sparse gradients do not exist in tensorlab.
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        check_lr(lr)
        check_nonnegative(lr_decay, "lr_decay value")
        check_nonnegative(weight_decay, "weight_decay value")
        check_nonnegative(initial_accumulator_value, "initial_accumulator_value value")
        check_nonnegative(eps, "epsilon value")
        check_unsupported("Adagrad", differentiable=differentiable, fused=fused, foreach=foreach)
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)

    def _check_group(self, group):
        check_lr(group["lr"])
        check_nonnegative(group["lr_decay"], "lr_decay value")
        check_nonnegative(group["weight_decay"], "weight_decay value")
        check_nonnegative(group["initial_accumulator_value"], "initial_accumulator_value value")
        check_nonnegative(group["eps"], "epsilon value")

    def step(self, closure=None):
        """One Adagrad step over every group; returns ``closure()``'s loss when a closure is given."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads = grads_of(group["params"], "Adagrad")
                sums, steps = [], []
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = host_scalar(0.0)
                        # PyTorch reads the optimizer-wide default here, not the group's value.
                        state["sum"] = zeros_state(p, float(self.defaults["initial_accumulator_value"]))
                    sums.append(state["sum"])
                    add_host_scalar_(state["step"], 1.0)
                    steps.append(read_host_scalar(state["step"]))
                fused_update("Adagrad", K.adagrad, K.adagrad_twin, [params, grads, sums], written=(0, 2), keys=steps,
                             scalars_for=lambda step: {"step": step}, lr=lr_value(group["lr"]),
                             lr_decay=group["lr_decay"], eps=group["eps"], weight_decay=group["weight_decay"],
                             maximize=group["maximize"])
        return loss
