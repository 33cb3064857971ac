"""``Adamax``: Adam with the infinity norm."""

from __future__ import annotations

from tensorlab_kernels.optim import adamax as K

from ._functional import FusedOptimizer, fused_update
from .optimizer import check_betas, check_lr, lr_value, nonnegative

__all__ = ["Adamax"]


class Adamax(FusedOptimizer):
    """PyTorch's ``torch.optim.Adamax`` (same arguments, defaults, state and numbers), at step t::

        g = -grad if maximize else grad;  g += weight_decay * p
        m = lerp(m, g, 1 - beta1);  u = max(beta2 * u, |g| + eps)
        p -= lr / (1 - beta1^t) * m / u

    State per parameter: ``step``, ``exp_avg``, ``exp_inf``. On cuda one fused launch per group.
    """

    _name = "Adamax"
    _checks = {"lr": check_lr, "eps": nonnegative("epsilon value"), "betas": check_betas,
               "weight_decay": nonnegative("weight_decay value")}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _update_group(self, group, params, grads):
        states, steps = self._advance_states(params, ("exp_avg", "exp_inf"))
        beta1, beta2 = group["betas"]
        fused_update(self._name, K.adamax, K.adamax_twin,
                     [params, grads, [s["exp_avg"] for s in states], [s["exp_inf"] for s in states]],
                     written=(0, 2, 3), keys=steps, scalars_for=lambda step: {"step": step}, lr=lr_value(group["lr"]),
                     beta1=float(beta1), beta2=float(beta2), eps=group["eps"], weight_decay=group["weight_decay"],
                     maximize=group["maximize"])
