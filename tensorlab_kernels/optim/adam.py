"""Fused Adam / AdamW: one launch updates a whole parameter group.

PyTorch's algorithm (``torch.optim.Adam``, ``_single_tensor_adam``; AdamW is Adam with
``decoupled_weight_decay=True``), per element, at step ``t`` (counted from 1)::

    g = -grad if maximize else grad
    p = p * (1 - lr * weight_decay)                 (weight_decay != 0, decoupled: AdamW)
    g = g + weight_decay * p                        (weight_decay != 0, coupled: Adam)
    m = lerp(m, g, 1 - beta1)
    v = beta2 * v + (1 - beta2) * g * g
    v_max = maximum(v_max, v)                       (amsgrad; the denominator then uses v_max)
    denom = sqrt(v) / sqrt(1 - beta2^t) + eps
    p = p - (lr / (1 - beta1^t)) * m / denom

The step-dependent factors are computed on the host in double precision exactly as PyTorch's
Python code does (:func:`adam_scalars`) and passed as kernel arguments (fp64 bits): a new step or
a scheduled learning rate never recompiles. Operands: param, grad, exp_avg, exp_avg_sq and, with
amsgrad, max_exp_avg_sq.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from .multi_tensor import bits, host_compute_dtype, launch_table, ld, lerp, lerp_twin, maximum, operand, rnd, scalar, st

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _adam_block(
    row,  # this program's row of the chunk table
    start, n,  # first element of this block, elements in the chunk
    lr_bits: tl.int64,
    weight1_bits: tl.int64,  # 1 - beta1: the lerp weight of the first moment
    beta2_bits: tl.int64, one_minus_beta2_bits: tl.int64, eps_bits: tl.int64, weight_decay_bits: tl.int64,
    decay_bits: tl.int64,  # 1 - lr * weight_decay (decoupled weight decay)
    step_size_bits: tl.int64,  # lr / (1 - beta1^t)
    bc2_sqrt_bits: tl.int64,  # sqrt(1 - beta2^t)
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, DECOUPLED: tl.constexpr, AMSGRAD: tl.constexpr,
    EVEN: tl.constexpr,  # a full block: no mask (lets the compiler vectorise)
):
    p_ptr = operand(row, 0, DTYPE, ALIGNED)
    g_ptr = operand(row, 1, DTYPE, ALIGNED)
    m_ptr = operand(row, 2, DTYPE, ALIGNED)
    v_ptr = operand(row, 3, DTYPE, ALIGNED)
    weight1 = scalar(weight1_bits, COMPUTE)
    beta2 = scalar(beta2_bits, COMPUTE)
    one_minus_beta2 = scalar(one_minus_beta2_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    wd = scalar(weight_decay_bits, COMPUTE)
    decay = scalar(decay_bits, COMPUTE)
    step_size = scalar(step_size_bits, COMPUTE)
    bc2_sqrt = scalar(bc2_sqrt_bits, COMPUTE)
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
    if AMSGRAD:
        vmax_ptr = operand(row, 4, DTYPE, ALIGNED)
        v = maximum(ld(vmax_ptr, offs, n, EVEN).to(COMPUTE), rnd(v, DTYPE).to(COMPUTE))
        st(vmax_ptr, offs, rnd(v, DTYPE), n, EVEN)
    denom = tl.sqrt(v) / bc2_sqrt + eps
    p = p - step_size * (m / denom)
    st(p_ptr, offs, rnd(p, DTYPE), n, EVEN)


@triton.jit(do_not_specialize=["lr_bits", "weight1_bits", "beta2_bits", "one_minus_beta2_bits", "eps_bits",
                               "weight_decay_bits", "decay_bits", "step_size_bits", "bc2_sqrt_bits"])
def _adam_kernel(
    table_ptr,  # int64 [chunks, ROW]: param, grad, exp_avg, exp_avg_sq, (max_exp_avg_sq); element count
    lr_bits: tl.int64,
    weight1_bits: tl.int64,  # 1 - beta1: the lerp weight of the first moment
    beta2_bits: tl.int64, one_minus_beta2_bits: tl.int64, eps_bits: tl.int64, weight_decay_bits: tl.int64,
    decay_bits: tl.int64,  # 1 - lr * weight_decay (decoupled weight decay)
    step_size_bits: tl.int64,  # lr / (1 - beta1^t)
    bc2_sqrt_bits: tl.int64,  # sqrt(1 - beta2^t)
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, DECOUPLED: tl.constexpr, AMSGRAD: tl.constexpr,
):
    # Full blocks without a mask (vectorised loads/stores), then the chunk's masked tail.
    row = table_ptr + tl.program_id(0) * ROW
    n = tl.load(row + ROW - 1).to(tl.int32)
    full = n - n % BLOCK
    for start in range(0, full, BLOCK):
        _adam_block(
            row, start, n, lr_bits, weight1_bits, beta2_bits, one_minus_beta2_bits, eps_bits, weight_decay_bits,
            decay_bits, step_size_bits, bc2_sqrt_bits, ROW, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE, WEIGHT_DECAY,
            DECOUPLED, AMSGRAD, EVEN=True)
    if full < n:
        _adam_block(
            row, full, n, lr_bits, weight1_bits, beta2_bits, one_minus_beta2_bits, eps_bits, weight_decay_bits,
            decay_bits, step_size_bits, bc2_sqrt_bits, ROW, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE, WEIGHT_DECAY,
            DECOUPLED, AMSGRAD, EVEN=False)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def adam_scalars(*, lr: float, beta1: float, beta2: float, weight_decay: float, step: float) -> dict:
    """The per-step factors, in Python doubles, as PyTorch's non-capturable path computes them."""
    bias_correction1 = 1 - beta1**step
    bias_correction2 = 1 - beta2**step
    return {"step_size": lr / bias_correction1, "bc2_sqrt": bias_correction2**0.5, "decay": 1 - lr * weight_decay}


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, *, lr: float, beta1: float, beta2: float,
         eps: float, weight_decay: float, step: float, amsgrad: bool, maximize: bool, decoupled: bool,
         config: dict | None = None) -> int:
    """One Adam/AdamW step for lists of contiguous DeviceArrays of one dtype that share ``step``
    (the step number after this update). Returns the number of launches (0 or 1)."""
    s = adam_scalars(lr=lr, beta1=beta1, beta2=beta2, weight_decay=weight_decay, step=step)
    lists = [params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs if amsgrad else None]
    args = (bits(lr), bits(1 - beta1), bits(beta2), bits(1 - beta2), bits(eps), bits(weight_decay),
            bits(s["decay"]), bits(s["step_size"]), bits(s["bc2_sqrt"]))
    return launch_table(_adam_kernel, "Adam", lists, args, config, MAXIMIZE=bool(maximize),
                        WEIGHT_DECAY=weight_decay != 0, DECOUPLED=bool(decoupled), AMSGRAD=bool(amsgrad))


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def adam_twin(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, *, lr: float, beta1: float, beta2: float,
              eps: float, weight_decay: float, step: float, amsgrad: bool, maximize: bool, decoupled: bool,
              config: dict | None = None) -> int:
    s = adam_scalars(lr=lr, beta1=beta1, beta2=beta2, weight_decay=weight_decay, step=step)
    for i, param in enumerate(params):
        ct = host_compute_dtype(param.dtype)
        c = ct.type
        dt = param.dtype
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
        if amsgrad:
            v = np.maximum(max_exp_avg_sqs[i].astype(ct), v.astype(dt).astype(ct))  # NaN propagates
            max_exp_avg_sqs[i][...] = v.astype(dt)
        denom = np.sqrt(v) / c(s["bc2_sqrt"]) + c(eps)
        param[...] = (p - c(s["step_size"]) * (m / denom)).astype(dt)
    return 1 if params else 0


__all__ = ["adam", "adam_scalars", "adam_twin"]
