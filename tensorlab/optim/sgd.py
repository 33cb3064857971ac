"""``SGD``: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from tensorlab_kernels.optim import sgd as K

from .._tensor import Tensor
from ._functional import FusedOptimizer, empty_state, fused_update
from .optimizer import lr_value

__all__ = ["SGD"]


class SGD(FusedOptimizer):
    """PyTorch's ``torch.optim.SGD`` (same arguments, defaults, state and numbers)::

        g = -grad if maximize else grad;  g += weight_decay * p
        buf = g (first step) or momentum * buf + (1 - dampening) * g
        g = g + momentum * buf if nesterov else buf;  p -= lr * g

    State per parameter (momentum != 0): ``momentum_buffer``. On cuda one fused launch per group.
    """

    _name = "SGD"

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                                  "foreach": foreach, "differentiable": differentiable, "fused": fused})

    def _check_group(self, group):
        # PyTorch's SGD checks with `< 0` (a NaN lr or momentum passes), unlike the other optimizers.
        lr = group["lr"]
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if float(lr) < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if group["momentum"] < 0.0:
            raise ValueError(f"Invalid momentum value: {group['momentum']}")
        if group["weight_decay"] < 0.0:
            raise ValueError(f"Invalid weight_decay value: {group['weight_decay']}")
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")

    def _update_group(self, group, params, grads):
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
        fused_update(self._name, K.sgd, K.sgd_twin, [params, grads, bufs], written=(0, 2), keys=first,
                     scalars_for=lambda key: {"first": bool(key)}, lr=lr_value(group["lr"]),
                     weight_decay=group["weight_decay"], momentum=momentum, dampening=group["dampening"],
                     nesterov=group["nesterov"], maximize=group["maximize"])
