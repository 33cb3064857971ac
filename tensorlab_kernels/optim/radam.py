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
from .multi_tensor import bits, host_compute_dtype, launch_table, ld, lerp, lerp_twin, operand, rnd, scalar, st

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _radam_block(
    row,  # this program's row of the chunk table
    start, n,  # first element of this block, elements in the chunk
    lr_bits: tl.int64,
    weight1_bits: tl.int64,  # 1 - beta1
    beta2_bits: tl.int64, one_minus_beta2_bits: tl.int64, eps_bits: tl.int64, weight_decay_bits: tl.int64,
    decay_bits: tl.int64,  # 1 - lr * weight_decay
    bc1_bits: tl.int64,  # 1 - beta1^t
    bc2_sqrt_bits: tl.int64,  # sqrt(1 - beta2^t)
    rect_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, DECOUPLED: tl.constexpr, RECTIFY: tl.constexpr,
    EVEN: tl.constexpr,  # a full block: no mask (lets the compiler vectorise)
):
    p_ptr = operand(row, 0, DTYPE, ALIGNED)
    g_ptr = operand(row, 1, DTYPE, ALIGNED)
    m_ptr = operand(row, 2, DTYPE, ALIGNED)
    v_ptr = operand(row, 3, DTYPE, ALIGNED)
    lr = scalar(lr_bits, COMPUTE)
    weight1 = scalar(weight1_bits, COMPUTE)
    beta2 = scalar(beta2_bits, COMPUTE)
    one_minus_beta2 = scalar(one_minus_beta2_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    wd = scalar(weight_decay_bits, COMPUTE)
    decay = scalar(decay_bits, COMPUTE)
    bc1 = scalar(bc1_bits, COMPUTE)
    bc2_sqrt = scalar(bc2_sqrt_bits, COMPUTE)
    rect = scalar(rect_bits, COMPUTE)
    offs = start + tl.arange(0, BLOCK)
    p = ld(p_ptr, offs, n, EVEN).to(COMPUTE)
    g = ld(g_ptr, offs, n, EVEN).to(COMPUTE)
    m = ld(m_ptr, offs, n, EVEN).to(COMPUTE)
    v = ld(v_ptr, offs, n, EVEN).to(COMPUTE)
    if MAXIMIZE:
        g = -g
    if WEIGHT_DECAY:
        if DECOUPLED:
            p = p * decay
        else:
            g = g + wd * p
    m = lerp(m, g, weight1)
    v = v * beta2 + one_minus_beta2 * (g * g)
    st(m_ptr, offs, rnd(m, DTYPE), n, EVEN)
    st(v_ptr, offs, rnd(v, DTYPE), n, EVEN)
    update = (m / bc1) * lr
    if RECTIFY:
        update = update * (bc2_sqrt / (tl.sqrt(v) + eps)) * rect
    st(p_ptr, offs, rnd(p - update, DTYPE), n, EVEN)


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
    # Full blocks without a mask (vectorised loads/stores), then the chunk's masked tail.
    row = table_ptr + tl.program_id(0) * ROW
    n = tl.load(row + ROW - 1).to(tl.int32)
    full = n - n % BLOCK
    for start in range(0, full, BLOCK):
        _radam_block(
            row, start, n, lr_bits, weight1_bits, beta2_bits, one_minus_beta2_bits, eps_bits, weight_decay_bits,
            decay_bits, bc1_bits, bc2_sqrt_bits, rect_bits, ROW, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE, WEIGHT_DECAY,
            DECOUPLED, RECTIFY, EVEN=True)
    if full < n:
        _radam_block(
            row, full, n, lr_bits, weight1_bits, beta2_bits, one_minus_beta2_bits, eps_bits, weight_decay_bits,
            decay_bits, bc1_bits, bc2_sqrt_bits, rect_bits, ROW, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE, WEIGHT_DECAY,
            DECOUPLED, RECTIFY, EVEN=False)


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
        ct = host_compute_dtype(param.dtype)
        c, dt = ct.type, param.dtype
        p, g = param.astype(ct), grads[i].astype(ct)
        m, v = exp_avgs[i].astype(ct), exp_avg_sqs[i].astype(ct)
        if maximize:
            g = -g
        if weight_decay != 0:
            if decoupled:
                p = p * c(s["decay"])
            else:
                g = g + c(weight_decay) * p
        m = lerp_twin(m, g, c(1 - beta1))
        v = v * c(beta2) + c(1 - beta2) * (g * g)
        exp_avgs[i][...] = m.astype(dt)
        exp_avg_sqs[i][...] = v.astype(dt)
        update = (m / c(s["bc1"])) * c(lr)
        if s["rectify"]:
            update = update * (c(s["bc2_sqrt"]) / (np.sqrt(v) + c(eps))) * c(s["rect"])
        param[...] = (p - update).astype(dt)
    return 1 if params else 0


__all__ = ["radam", "radam_scalars", "radam_twin"]
