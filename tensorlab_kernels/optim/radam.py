"""Fused RAdam: one launch updates a whole parameter group.

PyTorch's algorithm (``torch.optim.RAdam``, ``_single_tensor_radam``), per element, step ``t``::

    g = -grad if maximize else grad
    p = p * (1 - lr * weight_decay)                 (weight_decay != 0, decoupled_weight_decay)
    g = g + weight_decay * p                        (weight_decay != 0, otherwise)
    m = lerp(m, g, 1 - beta1)
    v = beta2 * v + (1 - beta2) * g * g
    update = (m / (1 - beta1^t)) * lr
    if rho_t > 5:  update = update * (sqrt(1 - beta2^t) / (sqrt(v) + eps)) * rect
    p = p - update

with ``rho_inf = 2 / (1 - beta2) - 1``, ``rho_t = rho_inf - 2 t beta2^t / (1 - beta2^t)`` and
``rect = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))``, all computed
on the host in double precision (:func:`radam_scalars`). Whether the step is rectified is a
constexpr (it changes once, around step 6).
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from .adam import adam_moments, adam_moments_twin
from .multi_tensor import bits, chunk_row, launch_table, param_grad, param_grad_twin, scalar, store

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit(do_not_specialize=["lr_bits", "weight1_bits", "beta2_bits", "one_minus_beta2_bits", "eps_bits",
                               "weight_decay_bits", "decay_bits", "bc1_bits", "bc2_sqrt_bits", "rect_bits"])
def _radam_kernel(
    table_ptr,  # int64 [chunks, 5]: param, grad, exp_avg, exp_avg_sq chunk addresses; element count
    lr_bits: tl.int64,
    weight1_bits: tl.int64,  # 1 - beta1
    beta2_bits: tl.int64, one_minus_beta2_bits: tl.int64, eps_bits: tl.int64, weight_decay_bits: tl.int64,
    decay_bits: tl.int64,  # 1 - lr * weight_decay
    bc1_bits: tl.int64,  # 1 - beta1^t
    bc2_sqrt_bits: tl.int64,  # sqrt(1 - beta2^t)
    rect_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, DECOUPLED: tl.constexpr, RECTIFY: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    lr = scalar(lr_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    bc1 = scalar(bc1_bits, COMPUTE)
    bc2_sqrt = scalar(bc2_sqrt_bits, COMPUTE)
    rect = scalar(rect_bits, COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs, p_ptr, p, g = param_grad(row, start, n, weight_decay_bits, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE,
                                           WEIGHT_DECAY, MASKED, decay_bits, DECOUPLED)
            m, v = adam_moments(row, offs, n, g, weight1_bits, beta2_bits, one_minus_beta2_bits, DTYPE, COMPUTE,
                                ALIGNED, MASKED)
            update = (m / bc1) * lr
            if RECTIFY:
                update = update * (bc2_sqrt / (tl.sqrt(v) + eps)) * rect
            store(p_ptr, offs, p - update, n, DTYPE, MASKED)

# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def radam_scalars(*, lr: float, beta1: float, beta2: float, weight_decay: float, step: float) -> dict:
    """The per-step factors in Python doubles, as PyTorch's non-capturable path computes them."""
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
    rectify = rho_t > 5.0
    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5 if rectify else 1.0
    return {"bc1": bias_correction1, "bc2_sqrt": bias_correction2**0.5, "rect": rect, "rectify": rectify,
            "decay": 1 - lr * weight_decay}


def radam(params, grads, exp_avgs, exp_avg_sqs, *, lr: float, beta1: float, beta2: float, eps: float,
          weight_decay: float, step: float, maximize: bool, decoupled: bool, config: dict | None = None) -> int:
    """One RAdam step for tensors (contiguous DeviceArrays of one dtype) that share ``step``."""
    s = radam_scalars(lr=lr, beta1=beta1, beta2=beta2, weight_decay=weight_decay, step=step)
    args = (bits(lr), bits(1 - beta1), bits(beta2), bits(1 - beta2), bits(eps), bits(weight_decay),
            bits(s["decay"]), bits(s["bc1"]), bits(s["bc2_sqrt"]), bits(s["rect"]))
    return launch_table(_radam_kernel, "RAdam", [params, grads, exp_avgs, exp_avg_sqs], args, config,
                        MAXIMIZE=bool(maximize), WEIGHT_DECAY=weight_decay != 0, DECOUPLED=bool(decoupled),
                        RECTIFY=bool(s["rectify"]))


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def radam_twin(params, grads, exp_avgs, exp_avg_sqs, *, lr: float, beta1: float, beta2: float, eps: float,
               weight_decay: float, step: float, maximize: bool, decoupled: bool, config: dict | None = None) -> int:
    s = radam_scalars(lr=lr, beta1=beta1, beta2=beta2, weight_decay=weight_decay, step=step)
    for i, param in enumerate(params):
        ct, p, g = param_grad_twin(param, grads[i], weight_decay=weight_decay, maximize=maximize,
                                   decay=s["decay"] if decoupled else None)
        c, dt = ct.type, param.dtype
        m, v = adam_moments_twin(exp_avgs[i], exp_avg_sqs[i], g, beta1, beta2)
        update = (m / c(s["bc1"])) * c(lr)
        if s["rectify"]:
            update = update * (c(s["bc2_sqrt"]) / (np.sqrt(v) + c(eps))) * c(s["rect"])
        param[...] = (p - update).astype(dt, copy=False)
    return 1 if params else 0


__all__ = ["radam", "radam_scalars", "radam_twin"]
