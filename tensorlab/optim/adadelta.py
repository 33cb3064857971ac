"""``Adadelta``: an adaptive learning-rate method."""

from __future__ import annotations

from tensorlab_kernels.optim import adadelta as K

from ._functional import FusedOptimizer, fused_update
from .optimizer import check_lr, lr_value, nonnegative

__all__ = ["Adadelta"]


def _check_rho(rho) -> None:
    if not 0.0 <= rho <= 1.0:
        raise ValueError(f"Invalid rho value: {rho}")


class Adadelta(FusedOptimizer):
    """PyTorch's ``torch.optim.Adadelta`` (same arguments, defaults, state and numbers)::

        g = -grad if maximize else grad;  g += weight_decay * p
        sq = rho * sq + (1 - rho) g^2;  delta = sqrt(acc + eps) / sqrt(sq + eps) * g
        acc = rho * acc + (1 - rho) delta^2;  p -= lr * delta

    State per parameter: ``step``, ``square_avg``, ``acc_delta``. On cuda one fused launch per group.
    """

    _name = "Adadelta"
    _checks = {"lr": check_lr, "rho": _check_rho, "eps": nonnegative("epsilon value"),
               "weight_decay": nonnegative("weight_decay value")}

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                                  "capturable": capturable, "foreach": foreach, "differentiable": differentiable})

    def _update_group(self, group, params, grads):
        states, _ = self._advance_states(params, ("square_avg", "acc_delta"), read_steps=False)
        fused_update(self._name, K.adadelta, K.adadelta_twin,
                     [params, grads, [s["square_avg"] for s in states], [s["acc_delta"] for s in states]],
                     written=(0, 2, 3), lr=lr_value(group["lr"]), rho=group["rho"], eps=group["eps"],
                     weight_decay=group["weight_decay"], maximize=group["maximize"])
