"""``Adamax``: Adam with the infinity norm."""

from __future__ import annotations

from tensorlab_kernels.optim import adamax as K

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

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """PyTorch's ``torch.optim.Adamax`` (same arguments, defaults, state and numbers), at step t::

        g = -grad if maximize else grad;  g += weight_decay * p
        m = lerp(m, g, 1 - beta1);  u = max(beta2 * u, |g| + eps)
        p -= lr / (1 - beta1^t) * m / u

    State per parameter: ``step``, ``exp_avg``, ``exp_inf``. On cuda one fused launch per group.
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, foreach=None, *,
                 maximize=False, differentiable=False, capturable=False):
        check_lr(lr)
        check_nonnegative(eps, "epsilon value")
        check_betas(betas)
        check_nonnegative(weight_decay, "weight_decay value")
        check_unsupported("Adamax", capturable=capturable, differentiable=differentiable)
        defaults = {"lr": lr, "betas": tuple(float(b) for b in betas), "eps": eps, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def _check_group(self, group):
        check_lr(group["lr"])
        check_nonnegative(group["eps"], "epsilon value")
        check_betas(group["betas"])
        check_nonnegative(group["weight_decay"], "weight_decay value")

    def step(self, closure=None):
        """One Adamax step over every group; returns ``closure()``'s loss when a closure is given."""
        loss = self._run_closure(closure)
        with no_grad():
            for group in self.param_groups:
                params, grads = grads_of(group["params"], "Adamax")
                exp_avgs, exp_infs, steps = [], [], []
                for p in params:
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = host_scalar(0.0)
                        state["exp_avg"] = zeros_state(p)
                        state["exp_inf"] = zeros_state(p)
                    exp_avgs.append(state["exp_avg"])
                    exp_infs.append(state["exp_inf"])
                    add_host_scalar_(state["step"], 1.0)
                    steps.append(read_host_scalar(state["step"]))
                beta1, beta2 = group["betas"]
                fused_update("Adamax", K.adamax, K.adamax_twin, [params, grads, exp_avgs, exp_infs], written=(0, 2, 3),
                             keys=steps, scalars_for=lambda step: {"step": step}, lr=lr_value(group["lr"]),
                             beta1=float(beta1), beta2=float(beta2), eps=group["eps"],
                             weight_decay=group["weight_decay"], maximize=group["maximize"])
        return loss
