"""``RAdam``: rectified Adam."""

from __future__ import annotations

from tensorlab_kernels.optim import radam as K

from ._functional import FusedOptimizer, fused_update
from .optimizer import check_betas, check_lr, lr_value, nonnegative

__all__ = ["RAdam"]


class RAdam(FusedOptimizer):
    """PyTorch's ``torch.optim.RAdam`` (same arguments, defaults, state and numbers), at step t::

        g = -grad if maximize else grad
        p *= 1 - lr * weight_decay  (decoupled_weight_decay)  |  g += weight_decay * p  (otherwise)
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) g^2
        rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
        rho_t > 5:  p -= lr m / (1 - beta1^t) * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t
        otherwise:  p -= lr m / (1 - beta1^t)

    State per parameter: ``step``, ``exp_avg``, ``exp_avg_sq``. On cuda one fused launch per group.
    """

    _name = "RAdam"
    _checks = {"lr": check_lr, "eps": nonnegative("epsilon value"), "betas": check_betas,
               "weight_decay": nonnegative("weight_decay value")}

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": maximize, "foreach": foreach, "capturable": capturable,
                                  "decoupled_weight_decay": decoupled_weight_decay, "differentiable": differentiable})

    def _update_group(self, group, params, grads):
        states, steps = self._advance_states(params, ("exp_avg", "exp_avg_sq"))
        beta1, beta2 = group["betas"]
        fused_update(self._name, K.radam, K.radam_twin,
                     [params, grads, [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states]],
                     written=(0, 2, 3), keys=steps, scalars_for=lambda step: {"step": step}, lr=lr_value(group["lr"]),
                     beta1=float(beta1), beta2=float(beta2), eps=group["eps"], weight_decay=group["weight_decay"],
                     maximize=group["maximize"], decoupled=group["decoupled_weight_decay"])
