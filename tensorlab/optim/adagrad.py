"""``Adagrad``: per-coordinate learning rates from the sum of squared gradients."""

from __future__ import annotations

from tensorlab_kernels.optim import adagrad as K

from ._functional import FusedOptimizer, fused_update, zeros_state
from .optimizer import check_lr, host_scalar, lr_value, nonnegative

__all__ = ["Adagrad"]


class Adagrad(FusedOptimizer):
    """PyTorch's ``torch.optim.Adagrad`` (same arguments, defaults, state and numbers), at step t::

        g = -grad if maximize else grad;  g += weight_decay * p
        s += g^2;  p -= lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + eps)

    State per parameter (made by the constructor, as PyTorch's): ``step``, ``sum`` (starts at
    ``initial_accumulator_value``). On cuda one
    fused launch per group. Sparse gradients do not exist in tensorlab.
    """

    _name = "Adagrad"
    _checks = {"lr": check_lr, "lr_decay": nonnegative("lr_decay value"),
               "weight_decay": nonnegative("weight_decay value"),
               "initial_accumulator_value": nonnegative("initial_accumulator_value value"),
               "eps": nonnegative("epsilon value")}

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable, "fused": fused})
        # PyTorch creates every parameter's state here (a checkpoint then holds parameters that never
        # had a gradient); a group added later gets it on its first step
        for group in self.param_groups:
            for p in group["params"]:
                state = self.state[p]
                state["step"] = host_scalar(0.0)
                state["sum"] = zeros_state(p, float(initial_accumulator_value))

    def _update_group(self, group, params, grads):
        # PyTorch fills a new sum with the optimizer-wide default, not the group's value.
        states, steps = self._advance_states(params, ("sum",), fill=float(self.defaults["initial_accumulator_value"]))
        fused_update(self._name, K.adagrad, K.adagrad_twin, [params, grads, [s["sum"] for s in states]],
                     written=(0, 2), keys=steps, scalars_for=lambda step: {"step": step}, lr=lr_value(group["lr"]),
                     lr_decay=group["lr_decay"], eps=group["eps"], weight_decay=group["weight_decay"],
                     maximize=group["maximize"])
