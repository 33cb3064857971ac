"""``NAdam``: Adam with Nesterov momentum (momentum decay schedule)."""

from __future__ import annotations

from tensorlab_kernels.optim import nadam as K

from ..autograd import no_grad
from ._functional import fused_update, grads_of, zeros_state
from .optimizer import (
    Optimizer,
    add_host_scalar_,
    check_betas,
    check_lr,
    check_nonnegative,
    check_unsupported,
    host_scalar,
    lr_value,
    mul_host_scalar_,
    read_host_scalar,
)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """PyTorch's ``torch.optim.NAdam`` (same arguments, defaults, state and numbers), at step t::

        mu_t = beta1 (1 - 0.5 * 0.96^(t psi));  mu_product *= mu_t      (psi = momentum_decay)
        g = -grad if maximize else grad
        p *= 1 - lr * weight_decay  (decoupled_weight_decay)  |  g += weight_decay * p  (otherwise)
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) g^2;  denom = sqrt(v / (1 - beta2^t)) + eps
        p -= lr (1 - mu_t) / (1 - mu_product) * g / denom
        p -= lr mu_{t+1} / (1 - mu_product mu_{t+1}) * m / denom

    State per parameter: ``step``, ``mu_product`` (float32 cpu tensors), ``exp_avg``, ``exp_avg_sq``.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, momentum_decay=4e-3,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        check_lr(lr)
        check_nonnegative(eps, "epsilon value")
        check_betas(betas)
        check_nonnegative(weight_decay, "weight_decay value")
        check_nonnegative(momentum_decay, "momentum_decay value")
        check_unsupported("NAdam", capturable=capturable, differentiable=differentiable)
        defaults = {"lr": lr, "betas": tuple(float(b) for b in betas), "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def _check_group(self, group):
        check_lr(group["lr"])
        check_nonnegative(group["eps"], "epsilon value")
        check_betas(group["betas"])
        check_nonnegative(group["weight_decay"], "weight_decay value")
        check_nonnegative(group["momentum_decay"], "momentum_decay value")

    def step(self, closure=None):
        """One NAdam step over every group; returns ``closure()``'s loss when a closure is given."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads = grads_of(group["params"], "NAdam")
                beta1, beta2 = (float(b) for b in group["betas"])
                exp_avgs, exp_avg_sqs, keys = [], [], []
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = host_scalar(0.0)
                        state["mu_product"] = host_scalar(1.0)
                        state["exp_avg"] = zeros_state(p)
                        state["exp_avg_sq"] = zeros_state(p)
                    exp_avgs.append(state["exp_avg"])
                    exp_avg_sqs.append(state["exp_avg_sq"])
                    add_host_scalar_(state["step"], 1.0)
                    step = read_host_scalar(state["step"])
                    mu, mu_next = K.nadam_mu(beta1, group["momentum_decay"], step)
                    mul_host_scalar_(state["mu_product"], mu)  # float32, as PyTorch's `mu_product *= mu`
                    keys.append((step, mu, mu_next, read_host_scalar(state["mu_product"])))
                fused_update("NAdam", K.nadam, K.nadam_twin, [params, grads, exp_avgs, exp_avg_sqs],
                             written=(0, 2, 3), keys=keys,
                             scalars_for=lambda k: {"step": k[0], "mu": k[1], "mu_next": k[2], "mu_product": k[3]},
                             lr=lr_value(group["lr"]), beta1=beta1, beta2=beta2, eps=group["eps"],
                             weight_decay=group["weight_decay"], maximize=group["maximize"],
                             decoupled=group["decoupled_weight_decay"])
        return loss
