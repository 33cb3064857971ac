"""``RMSprop``: root-mean-square propagation (centered, momentum)."""

from __future__ import annotations

from tensorlab_kernels.optim import rmsprop as K

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

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """PyTorch's ``torch.optim.RMSprop`` (same arguments, defaults, state and numbers)::

        g = -grad if maximize else grad;  g += weight_decay * p
        sq = alpha * sq + (1 - alpha) g^2
        avg = sqrt(sq - ga^2) + eps with ga = lerp(ga, g, 1 - alpha)  (centered)  |  sqrt(sq) + eps
        momentum > 0:  buf = momentum * buf + g / avg;  p -= lr * buf   |   p -= lr * g / avg

    State per parameter: ``step``, ``square_avg``, ``momentum_buffer`` (momentum > 0), ``grad_avg``
    (centered). On cuda one fused launch per group.
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        check_lr(lr)
        check_nonnegative(eps, "epsilon value")
        check_nonnegative(momentum, "momentum value")
        check_nonnegative(weight_decay, "weight_decay value")
        check_nonnegative(alpha, "alpha value")
        check_unsupported("RMSprop", capturable=capturable, differentiable=differentiable)
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _check_group(self, group):
        check_lr(group["lr"])
        check_nonnegative(group["eps"], "epsilon value")
        check_nonnegative(group["momentum"], "momentum value")
        check_nonnegative(group["weight_decay"], "weight_decay value")
        check_nonnegative(group["alpha"], "alpha value")

    def step(self, closure=None):
        """One RMSprop step over every group; returns ``closure()``'s loss when a closure is given."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads = grads_of(group["params"], "RMSprop")
                momentum, centered = group["momentum"], group["centered"]
                square_avgs = []
                grad_avgs = [] if centered else None
                bufs = [] if momentum > 0 else None
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = host_scalar(0.0)
                        state["square_avg"] = zeros_state(p)
                        if momentum > 0:
                            state["momentum_buffer"] = zeros_state(p)
                        if centered:
                            state["grad_avg"] = zeros_state(p)
                    square_avgs.append(state["square_avg"])
                    if momentum > 0:
                        if "momentum_buffer" not in state:  # momentum switched on later
                            state["momentum_buffer"] = zeros_state(p)
                        bufs.append(state["momentum_buffer"])
                    if centered:
                        if "grad_avg" not in state:
                            state["grad_avg"] = zeros_state(p)
                        grad_avgs.append(state["grad_avg"])
                    add_host_scalar_(state["step"], 1.0)
                fused_update("RMSprop", K.rmsprop, K.rmsprop_twin, [params, grads, square_avgs, grad_avgs, bufs],
                             written=(0, 2, 3, 4), lr=lr_value(group["lr"]), alpha=group["alpha"], eps=group["eps"],
                             weight_decay=group["weight_decay"], momentum=momentum, centered=centered,
                             maximize=group["maximize"])
        return loss
