"""``Adadelta``: an adaptive learning-rate method."""

from __future__ import annotations

from tensorlab_kernels.optim import adadelta as K

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
)

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """PyTorch's ``torch.optim.Adadelta`` (same arguments, defaults, state and numbers)::

        g = -grad if maximize else grad;  g += weight_decay * p
        sq = rho * sq + (1 - rho) g^2;  delta = sqrt(acc + eps) / sqrt(sq + eps) * g
        acc = rho * acc + (1 - rho) delta^2;  p -= lr * delta

    State per parameter: ``step``, ``square_avg``, ``acc_delta``. On cuda one fused launch per group.
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_nonnegative(eps, "epsilon value")
        check_nonnegative(weight_decay, "weight_decay value")
        check_unsupported("Adadelta", capturable=capturable, differentiable=differentiable)
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _check_group(self, group):
        check_lr(group["lr"])
        if not 0.0 <= group["rho"] <= 1.0:
            raise ValueError(f"Invalid rho value: {group['rho']}")
        check_nonnegative(group["eps"], "epsilon value")
        check_nonnegative(group["weight_decay"], "weight_decay value")

    def step(self, closure=None):
        """One Adadelta step over every group; returns ``closure()``'s loss when a closure is given."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads = grads_of(group["params"], "Adadelta")
                square_avgs, acc_deltas = [], []
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = host_scalar(0.0)
                        state["square_avg"] = zeros_state(p)
                        state["acc_delta"] = zeros_state(p)
                    square_avgs.append(state["square_avg"])
                    acc_deltas.append(state["acc_delta"])
                    add_host_scalar_(state["step"], 1.0)
                fused_update("Adadelta", K.adadelta, K.adadelta_twin, [params, grads, square_avgs, acc_deltas],
                             written=(0, 2, 3), lr=lr_value(group["lr"]), rho=group["rho"], eps=group["eps"],
                             weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss
