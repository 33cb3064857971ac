"""``Adam`` (and the shared machinery of ``AdamW``): adaptive moments with bias correction."""

from __future__ import annotations

from tensorlab_kernels.optim import adam as K

from .._tensor import Tensor
from ._functional import FusedOptimizer, fused_update
from .optimizer import check_betas, check_lr, lr_value, nonnegative

__all__ = ["Adam"]


_TENSOR_FOREACH = "{} as a Tensor is not supported for capturable=False and foreach=True"


def _check_betas_kind(betas, foreach) -> None:
    """PyTorch's Adam/AdamW constructor (not a later group) also wants both betas of one kind:
    floats, or 1-element tensors; an int beta is refused too, as PyTorch's. Tensor betas are refused
    with foreach=True (PyTorch's foreach path takes them only when capturable)."""
    if not (all(isinstance(b, float) for b in betas[:2]) or all(isinstance(b, Tensor) for b in betas[:2])):
        raise ValueError("betas must be either both floats or both Tensors")
    for i, b in enumerate(betas[:2]):
        if isinstance(b, Tensor) and foreach:
            raise ValueError(_TENSOR_FOREACH.format(f"betas[{i}]"))
        if isinstance(b, Tensor) and b.numel() != 1:
            raise ValueError(f"Tensor betas[{i}] must be 1-element")


class Adam(FusedOptimizer):
    """PyTorch's ``torch.optim.Adam`` (same arguments, defaults, state and numbers), at step t::

        g = -grad if maximize else grad
        p *= 1 - lr * weight_decay  (decoupled_weight_decay)  |  g += weight_decay * p  (otherwise)
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g^2;  v_max = max(v_max, v) (amsgrad)
        p -= lr / (1 - beta1^t) * m / (sqrt(v or v_max) / sqrt(1 - beta2^t) + eps)

    State per parameter: ``step`` (float32 cpu tensor), ``exp_avg``, ``exp_avg_sq`` and, with
    amsgrad, ``max_exp_avg_sq``. On cuda one fused launch per group.
    """

    _name = "Adam"
    _checks = {"lr": check_lr, "eps": nonnegative("epsilon value"), "betas": check_betas,
               "weight_decay": nonnegative("weight_decay value")}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if isinstance(lr, Tensor) and foreach and not capturable:  # PyTorch's first check, before lr's value
            raise ValueError(_TENSOR_FOREACH.format("lr"))
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                                  "capturable": capturable, "differentiable": differentiable, "fused": fused,
                                  "decoupled_weight_decay": decoupled_weight_decay})
        _check_betas_kind(betas, foreach)  # after the checks above, in PyTorch's order

    def _update_group(self, group, params, grads):
        if params and group["foreach"] and isinstance(group["lr"], Tensor):  # a later group's (or loaded) Tensor lr
            raise RuntimeError(_TENSOR_FOREACH.format("lr"))
        amsgrad = group["amsgrad"]
        states, steps = self._advance_states(params, ("exp_avg", "exp_avg_sq"),
                                             optional=("max_exp_avg_sq",) if amsgrad else ())
        exp_avgs, exp_avg_sqs = [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states]
        max_sqs = [s["max_exp_avg_sq"] for s in states] if amsgrad else None
        beta1, beta2 = group["betas"]
        fused_update(self._name, K.adam, K.adam_twin, [params, grads, exp_avgs, exp_avg_sqs, max_sqs],
                     written=(0, 2, 3, 4), keys=steps, scalars_for=lambda step: {"step": step},
                     lr=lr_value(group["lr"]), beta1=float(beta1), beta2=float(beta2), eps=group["eps"],
                     weight_decay=group["weight_decay"], amsgrad=amsgrad, maximize=group["maximize"],
                     decoupled=group["decoupled_weight_decay"])
