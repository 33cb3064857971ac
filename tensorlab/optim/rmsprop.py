"""``RMSprop``: root-mean-square propagation (centered, momentum)."""

from __future__ import annotations

from tensorlab_kernels.optim import rmsprop as K

from ._functional import FusedOptimizer, fused_update
from .optimizer import check_lr, lr_value, nonnegative

__all__ = ["RMSprop"]


class RMSprop(FusedOptimizer):
    """PyTorch's ``torch.optim.RMSprop`` (same arguments, defaults, state and numbers)::

        g = -grad if maximize else grad;  g += weight_decay * p
        sq = alpha * sq + (1 - alpha) g^2
        avg = sqrt(sq - ga^2) + eps with ga = lerp(ga, g, 1 - alpha)  (centered)  |  sqrt(sq) + eps
        momentum > 0:  buf = momentum * buf + g / avg;  p -= lr * buf   |   p -= lr * g / avg

    State per parameter: ``step``, ``square_avg``, ``momentum_buffer`` (momentum > 0), ``grad_avg``
    (centered). On cuda one fused launch per group.
    """

    _name = "RMSprop"
    _SETSTATE_DEFAULTS = {**FusedOptimizer._SETSTATE_DEFAULTS, "momentum": 0}  # (PyTorch's RMSprop.__setstate__)
    _checks = {"lr": check_lr, "eps": nonnegative("epsilon value"), "momentum": nonnegative("momentum value"),
               "weight_decay": nonnegative("weight_decay value"), "alpha": nonnegative("alpha value")}

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        super().__init__(params, {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                                  "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable})

    def _update_group(self, group, params, grads):
        momentum, centered = group["momentum"], group["centered"]
        optional = (("momentum_buffer",) if momentum > 0 else ()) + (("grad_avg",) if centered else ())
        states, _ = self._advance_states(params, ("square_avg",), optional=optional, read_steps=False)
        grad_avgs = [s["grad_avg"] for s in states] if centered else None
        bufs = [s["momentum_buffer"] for s in states] if momentum > 0 else None
        fused_update(self._name, K.rmsprop, K.rmsprop_twin,
                     [params, grads, [s["square_avg"] for s in states], grad_avgs, bufs], written=(0, 2, 3, 4),
                     lr=lr_value(group["lr"]), alpha=group["alpha"], eps=group["eps"],
                     weight_decay=group["weight_decay"], momentum=momentum, centered=centered,
                     maximize=group["maximize"])
