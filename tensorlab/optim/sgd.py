"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from tensorlab_kernels.optim import sgd as K

from ..autograd import no_grad
from ._functional import empty_state, fused_update, grads_of
from .optimizer import Optimizer, check_lr, check_unsupported, lr_value

__all__ = ["SGD"]


class SGD(Optimizer):
    """PyTorch's ``torch.optim.SGD`` (same arguments, defaults, state and numbers)::

        g = -grad if maximize else grad;  g += weight_decay * p
        buf = g (first step) or momentum * buf + (1 - dampening) * g
        g = g + momentum * buf if nesterov else buf;  p -= lr * g

    State per parameter (momentum != 0): ``momentum_buffer``. On cuda one fused launch per group.
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        check_lr(lr)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach, "differentiable": differentiable,
                    "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        check_unsupported("SGD", differentiable=differentiable, fused=fused, foreach=foreach)
        super().__init__(params, defaults)

    def _check_group(self, group):
        check_lr(group["lr"])
        if group["momentum"] < 0.0:
            raise ValueError(f"Invalid momentum value: {group['momentum']}")
        if group["weight_decay"] < 0.0:
            raise ValueError(f"Invalid weight_decay value: {group['weight_decay']}")
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")

    def step(self, closure=None):
        """One SGD step over every group; returns ``closure()``'s loss when a closure is given."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads = grads_of(group["params"], "SGD")
                momentum = group["momentum"]
                bufs, first = None, None
                if momentum != 0:
                    bufs, first = [], []
                    for p in params:
                        state = self.state[p]
                        buf = state.get("momentum_buffer")
                        first.append(buf is None)
                        if buf is None:  # this step creates it: buf = g (PyTorch clones the gradient)
                            buf = state["momentum_buffer"] = empty_state(p)
                        bufs.append(buf)
                fused_update("SGD", K.sgd, K.sgd_twin, [params, grads, bufs], written=(0, 2), keys=first,
                             scalars_for=lambda key: {"first": bool(key)}, lr=lr_value(group["lr"]),
                             weight_decay=group["weight_decay"], momentum=momentum, dampening=group["dampening"],
                             nesterov=group["nesterov"], maximize=group["maximize"])
        return loss
