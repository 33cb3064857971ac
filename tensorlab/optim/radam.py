"""``RAdam``: rectified Adam."""

from __future__ import annotations

from tensorlab_kernels.optim import radam as K

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
    read_host_scalar,
)

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """PyTorch's ``torch.optim.RAdam`` (same arguments, defaults, state and numbers), at step t::

        g = -grad if maximize else grad
        p *= 1 - lr * weight_decay  (decoupled_weight_decay)  |  g += weight_decay * p  (otherwise)
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) g^2
        rho_inf = 2 / (1 - beta2) - 1;  rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)
        rho_t > 5:  p -= lr m / (1 - beta1^t) * sqrt(1 - beta2^t) / (sqrt(v) + eps) * r_t
        otherwise:  p -= lr m / (1 - beta1^t)

    State per parameter: ``step``, ``exp_avg``, ``exp_avg_sq``. On cuda one fused launch per group.
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, decoupled_weight_decay=False,
                 *, foreach=None, maximize=False, capturable=False, differentiable=False):
        check_lr(lr)
        check_nonnegative(eps, "epsilon value")
        check_betas(betas)
        check_nonnegative(weight_decay, "weight_decay value")
        check_unsupported("RAdam", capturable=capturable, differentiable=differentiable)
        defaults = {"lr": lr, "betas": tuple(float(b) for b in betas), "eps": eps, "weight_decay": weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "decoupled_weight_decay": decoupled_weight_decay, "differentiable": differentiable}
        super().__init__(params, defaults)

    def _check_group(self, group):
        check_lr(group["lr"])
        check_nonnegative(group["eps"], "epsilon value")
        check_betas(group["betas"])
        check_nonnegative(group["weight_decay"], "weight_decay value")

    def step(self, closure=None):
        """One RAdam step over every group; returns ``closure()``'s loss when a closure is given."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads = grads_of(group["params"], "RAdam")
                exp_avgs, exp_avg_sqs, steps = [], [], []
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = host_scalar(0.0)
                        state["exp_avg"] = zeros_state(p)
                        state["exp_avg_sq"] = zeros_state(p)
                    exp_avgs.append(state["exp_avg"])
                    exp_avg_sqs.append(state["exp_avg_sq"])
                    add_host_scalar_(state["step"], 1.0)
                    steps.append(read_host_scalar(state["step"]))
                beta1, beta2 = group["betas"]
                fused_update("RAdam", K.radam, K.radam_twin, [params, grads, exp_avgs, exp_avg_sqs], written=(0, 2, 3),
                             keys=steps, scalars_for=lambda step: {"step": step}, lr=lr_value(group["lr"]),
                             beta1=float(beta1), beta2=float(beta2), eps=group["eps"],
                             weight_decay=group["weight_decay"], maximize=group["maximize"],
                             decoupled=group["decoupled_weight_decay"])
        return loss
