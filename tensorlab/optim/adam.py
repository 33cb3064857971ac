"""``Adam`` (and the shared machinery of ``AdamW``): adaptive moments with bias correction."""

from __future__ import annotations

from tensorlab_kernels.optim import adam as K

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

__all__ = ["Adam"]


def _betas(betas) -> tuple:
    return tuple(float(b) for b in betas)


class Adam(Optimizer):
    """PyTorch's ``torch.optim.Adam`` (same arguments, defaults, state and numbers), at step t::

        g = -grad if maximize else grad
        p *= 1 - lr * weight_decay  (decoupled_weight_decay)  |  g += weight_decay * p  (otherwise)
        m = lerp(m, g, 1 - beta1);  v = beta2 * v + (1 - beta2) * g^2;  v_max = max(v_max, v) (amsgrad)
        p -= lr / (1 - beta1^t) * m / (sqrt(v or v_max) / sqrt(1 - beta2^t) + eps)

    State per parameter: ``step`` (float32 cpu tensor), ``exp_avg``, ``exp_avg_sq`` and, with
    amsgrad, ``max_exp_avg_sq``. On cuda one fused launch per group.
    """

    _name = "Adam"

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        check_lr(lr)
        check_nonnegative(eps, "epsilon value")
        check_betas(betas)
        check_nonnegative(weight_decay, "weight_decay value")
        check_unsupported(self._name, capturable=capturable, differentiable=differentiable, fused=fused,
                          foreach=foreach)
        defaults = {"lr": lr, "betas": _betas(betas), "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused, "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)

    def _check_group(self, group):
        check_lr(group["lr"])
        check_nonnegative(group["eps"], "epsilon value")
        check_betas(group["betas"])
        check_nonnegative(group["weight_decay"], "weight_decay value")

    def step(self, closure=None):
        """One Adam step over every group; returns ``closure()``'s loss when a closure is given."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads = grads_of(group["params"], self._name)
                amsgrad = group["amsgrad"]
                exp_avgs, exp_avg_sqs, max_sqs, steps = [], [], [] if amsgrad else None, []
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = host_scalar(0.0)
                        state["exp_avg"] = zeros_state(p)
                        state["exp_avg_sq"] = zeros_state(p)
                        if amsgrad:
                            state["max_exp_avg_sq"] = zeros_state(p)
                    exp_avgs.append(state["exp_avg"])
                    exp_avg_sqs.append(state["exp_avg_sq"])
                    if amsgrad:
                        if "max_exp_avg_sq" not in state:  # amsgrad switched on later
                            state["max_exp_avg_sq"] = zeros_state(p)
                        max_sqs.append(state["max_exp_avg_sq"])
                    add_host_scalar_(state["step"], 1.0)
                    steps.append(read_host_scalar(state["step"]))
                beta1, beta2 = group["betas"]
                fused_update(self._name, K.adam, K.adam_twin, [params, grads, exp_avgs, exp_avg_sqs, max_sqs],
                             written=(0, 2, 3, 4), keys=steps, scalars_for=lambda step: {"step": step},
                             lr=lr_value(group["lr"]), beta1=float(beta1), beta2=float(beta2), eps=group["eps"],
                             weight_decay=group["weight_decay"], amsgrad=amsgrad, maximize=group["maximize"],
                             decoupled=group["decoupled_weight_decay"])
        return loss
