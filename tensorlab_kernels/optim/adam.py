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
from .multi_tensor import (
    bits,
    chunk_row,
    launch_table,
    lerp,
    lerp_twin,
    load,
    maximum,
    operand,
    param_grad,
    param_grad_twin,
    rnd,
    scalar,
    store,
)

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def adam_moments(row, offs, n, g, weight1_bits, beta2_bits, one_minus_beta2_bits, DTYPE: tl.constexpr,
                 COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, MASKED: tl.constexpr):
    """Adam's moments (operands 2 and 3) updated and stored, also for NAdam and RAdam:
    ``m = lerp(m, g, 1 - beta1)``, ``v = beta2 * v + (1 - beta2) * g * g``; returns them unrounded."""
    m_ptr = operand(row, 2, DTYPE, ALIGNED)
    v_ptr = operand(row, 3, DTYPE, ALIGNED)
    beta2 = scalar(beta2_bits, COMPUTE)
    one_minus_beta2 = scalar(one_minus_beta2_bits, COMPUTE)
    m = lerp(load(m_ptr, offs, n, COMPUTE, MASKED), g, scalar(weight1_bits, COMPUTE))
    # ((1 - beta2) * g) * g, PyTorch's addcmul order: g * g first overflows fp32 from |g| ~ 2e19
    v = load(v_ptr, offs, n, COMPUTE, MASKED) * beta2 + (one_minus_beta2 * g) * g
    store(m_ptr, offs, m, n, DTYPE, MASKED)
    store(v_ptr, offs, v, n, DTYPE, MASKED)
    return m, v


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
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    eps = scalar(eps_bits, COMPUTE)
    step_size = scalar(step_size_bits, COMPUTE)
    bc2_sqrt = scalar(bc2_sqrt_bits, COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs, p_ptr, p, g = param_grad(row, start, n, weight_decay_bits, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE,
                                           WEIGHT_DECAY, MASKED, decay_bits, DECOUPLED)
            m, v = adam_moments(row, offs, n, g, weight1_bits, beta2_bits, one_minus_beta2_bits, DTYPE, COMPUTE,
                                ALIGNED, MASKED)
            if AMSGRAD:
                vmax_ptr = operand(row, 4, DTYPE, ALIGNED)
                v = maximum(load(vmax_ptr, offs, n, COMPUTE, MASKED), rnd(v, DTYPE).to(COMPUTE))
                store(vmax_ptr, offs, v, n, DTYPE, MASKED)
            denom = tl.sqrt(v) / bc2_sqrt + eps
            store(p_ptr, offs, p - step_size * (m / denom), n, DTYPE, MASKED)


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


def adam_moments_twin(exp_avg: np.ndarray, exp_avg_sq: np.ndarray, g: np.ndarray, beta1: float, beta2: float):
    """:func:`adam_moments` on numpy arrays (``g`` in the compute dtype)."""
    c = g.dtype.type
    m = lerp_twin(exp_avg.astype(g.dtype, copy=False), g, c(1 - beta1))
    v = exp_avg_sq.astype(g.dtype, copy=False) * c(beta2) + (c(1 - beta2) * g) * g  # (the kernel's order)
    exp_avg[...] = m.astype(exp_avg.dtype, copy=False)
    exp_avg_sq[...] = v.astype(exp_avg_sq.dtype, copy=False)
    return m, v


def adam_twin(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, *, lr: float, beta1: float, beta2: float,
              eps: float, weight_decay: float, step: float, amsgrad: bool, maximize: bool, decoupled: bool,
              config: dict | None = None) -> int:
    s = adam_scalars(lr=lr, beta1=beta1, beta2=beta2, weight_decay=weight_decay, step=step)
    for i, param in enumerate(params):
        ct, p, g = param_grad_twin(param, grads[i], weight_decay=weight_decay, maximize=maximize,
                                   decay=s["decay"] if decoupled else None)
        c, dt = ct.type, param.dtype
        m, v = adam_moments_twin(exp_avgs[i], exp_avg_sqs[i], g, beta1, beta2)
        if amsgrad:
            v_rounded = v.astype(dt, copy=False).astype(ct, copy=False)  # as stored in the state dtype
            v = np.maximum(max_exp_avg_sqs[i].astype(ct, copy=False), v_rounded)  # NaN propagates
            max_exp_avg_sqs[i][...] = v.astype(dt, copy=False)
        denom = np.sqrt(v) / c(s["bc2_sqrt"]) + c(eps)
        param[...] = (p - c(s["step_size"]) * (m / denom)).astype(dt, copy=False)
    return 1 if params else 0


__all__ = ["adam", "adam_moments", "adam_moments_twin", "adam_scalars", "adam_twin"]
