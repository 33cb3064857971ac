"""``Adafactor``: Adam-like steps with factored second moments (row and column means) for matrices."""

from __future__ import annotations

from .. import _dtype as D
from .. import linalg
from .._factories import zeros
from .._tensor import Tensor
from ._functional import FusedOptimizer, zeros_state
from .optimizer import add_host_scalar_, host_scalar, lr_value, read_host_scalar

__all__ = ["Adafactor"]


def _check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= float(lr):
        raise ValueError(f"Learning rate should be >= 0 but is: {lr}")


def _check_beta2_decay(beta2_decay) -> None:
    if not 0.0 >= beta2_decay:
        raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")


def _check_eps(eps) -> None:
    if eps[0] is not None and not 0.0 <= eps[0]:
        raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
    if not 0.0 <= eps[1]:
        raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")


def _check_d(d) -> None:
    if not 1.0 <= d:
        raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")


def _check_weight_decay(weight_decay) -> None:
    if not 0.0 <= weight_decay:
        raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")


class Adafactor(FusedOptimizer):
    """PyTorch's ``torch.optim.Adafactor`` (same arguments, defaults, state and numbers), at step t::

        g = -grad if maximize else grad;  beta2_t = 1 - t^beta2_decay;  rho_t = min(lr, 1 / sqrt(t))
        alpha = max(eps2, RMS(p)) * rho_t;  p *= 1 - lr * weight_decay
        >= 2-D:  row_var = lerp(row_var, mean(g^2, -1), 1 - beta2_t);  col_var likewise over dim -2
                 v = row_var @ col_var / max(mean(row_var, -2), eps1)
        else:    variance = lerp(variance, g^2, 1 - beta2_t);  v = variance
        u = g / sqrt(max(v, eps1^2));  p -= alpha / max(1, RMS(u) / d) * u

    ``eps1`` defaults to the machine epsilon of the group's first parameter with a gradient (PyTorch
    sets it inside its loop, so it holds for the group's later parameters too). State per parameter:
    ``step`` (float32 cpu tensor) and ``row_var`` (shape ``[..., m, 1]``) and ``col_var``
    (``[..., 1, n]``) for >= 2-D parameters, ``variance`` otherwise.

    Not a fused kernel: the row/column means and the two RMS norms (read on the host, as PyTorch's
    ``.item()`` calls do) are reductions per parameter, which one elementwise multi-tensor launch
    cannot express. Each parameter is updated with tensorlab ops (reductions and elementwise kernels
    on cuda, their twins on cpu), as PyTorch's default single-tensor implementation does.
    """

    _name = "Adafactor"
    _checks = {"lr": _check_lr, "beta2_decay": _check_beta2_decay, "eps": _check_eps, "d": _check_d,
               "weight_decay": _check_weight_decay}

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0, weight_decay=0.0, *, foreach=None,
                 maximize=False):
        super().__init__(params, {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                                  "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize})

    def _update_group(self, group, params, grads):
        for p, grad in zip(params, grads):  # every state first (PyTorch's _init_group), then the updates
            state = self.state[p]
            if len(state) == 0:
                state["step"] = host_scalar(0.0)
                if grad.dim() > 1:
                    shape = list(grad.shape)
                    state["row_var"] = zeros([*shape[:-1], 1], dtype=grad.dtype, device=grad.device)
                    state["col_var"] = zeros([*shape[:-2], 1, shape[-1]], dtype=grad.dtype, device=grad.device)
                else:
                    state["variance"] = zeros_state(grad)
        lr = lr_value(group["lr"])
        eps1, eps2 = group["eps"]
        for p, grad in zip(params, grads):
            if group["maximize"]:
                grad = -grad
            state = self.state[p]
            if eps1 is None:
                eps1 = float(D.finfo(p.dtype).eps)
            add_host_scalar_(state["step"], 1.0)
            step = read_host_scalar(state["step"])
            one_minus_beta2_t = step ** group["beta2_decay"]
            rho_t = min(lr, 1 / (step**0.5))
            alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho_t
            if group["weight_decay"] != 0:
                p.mul_(1 - lr * group["weight_decay"])
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                # (g * g).mean(dim) without a gradient-sized intermediate, as PyTorch computes it
                row_var.lerp_(linalg.vector_norm(grad, dim=-1, keepdim=True).square_().div_(grad.size(-1)),
                              one_minus_beta2_t)
                col_var.lerp_(linalg.vector_norm(grad, dim=-2, keepdim=True).square_().div_(grad.size(-2)),
                              one_minus_beta2_t)
                var_estimate = row_var @ col_var
                var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                variance = state["variance"]
                variance.lerp_(grad * grad, one_minus_beta2_t)
                var_estimate = variance.clone()
            update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()  # eps1 squared: the square root follows
            update.mul_(grad)
            denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * group["d"]))
            p.add_(update, alpha=-alpha / denom)
