"""``NAdam``: Adam with Nesterov momentum (momentum decay schedule)."""

from __future__ import annotations

from tensorlab_kernels.optim import nadam as K

from ._functional import FusedOptimizer, fused_update
from .optimizer import check_betas, check_lr, lr_value, mul_host_scalar_, nonnegative, read_host_scalar

__all__ = ["NAdam"]


class NAdam(FusedOptimizer):
    """PyTorch's ``torch.optim.NAdam`` (same arguments, defaults, state and numbers), at step t::

        mu_t = beta1 (1 - 0.5 * 0.96^(t psi));  mu_product *= mu_t      (psi = momentum_decay)
        g = -grad if maximize else grad
        p *= 1 - lr * weight_decay  (decoupled_weight_decay)  |  g += weight_decay * p  (otherwise)
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) g^2;  denom = sqrt(v / (1 - beta2^t)) + eps
        p -= lr (1 - mu_t) / (1 - mu_product) * g / denom
        p -= lr mu_{t+1} / (1 - mu_product mu_{t+1}) * m / denom

    State per parameter: ``step``, ``mu_product`` (float32 cpu tensors), ``exp_avg``, ``exp_avg_sq``.
    """

    _name = "NAdam"
    _checks = {"lr": check_lr, "eps": nonnegative("epsilon value"), "betas": check_betas,
               "weight_decay": nonnegative("weight_decay value"), "momentum_decay": nonnegative("momentum_decay value")}

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                                  "maximize": maximize, "foreach": foreach, "capturable": capturable,
                                  "differentiable": differentiable})

    def _update_group(self, group, params, grads):
        beta1, beta2 = (float(b) for b in group["betas"])
        states, steps = self._advance_states(params, ("exp_avg", "exp_avg_sq"), host=(("mu_product", 1.0),))
        keys = []
        for state, step in zip(states, steps):
            mu, mu_next = K.nadam_mu(beta1, group["momentum_decay"], step)
            mul_host_scalar_(state["mu_product"], mu)  # float32, as PyTorch's `mu_product *= mu`
            keys.append((step, mu, mu_next, read_host_scalar(state["mu_product"])))
        fused_update(self._name, K.nadam, K.nadam_twin,
                     [params, grads, [s["exp_avg"] for s in states], [s["exp_avg_sq"] for s in states]],
                     written=(0, 2, 3), keys=keys,
                     scalars_for=lambda k: {"step": k[0], "mu": k[1], "mu_next": k[2], "mu_product": k[3]},
                     lr=lr_value(group["lr"]), beta1=beta1, beta2=beta2, eps=group["eps"],
                     weight_decay=group["weight_decay"], maximize=group["maximize"],
                     decoupled=group["decoupled_weight_decay"])
