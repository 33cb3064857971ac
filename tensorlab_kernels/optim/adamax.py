"""Fused Adamax: one launch updates a whole parameter group.

PyTorch's algorithm (``torch.optim.Adamax``, ``_single_tensor_adamax``), per element, step ``t``::

    g = -grad if maximize else grad
    g = g + weight_decay * p                        (weight_decay != 0)
    m = lerp(m, g, 1 - beta1)
    u = maximum(beta2 * u, |g| + eps)               (NaN propagates, as torch.maximum)
    p = p - (lr / (1 - beta1^t)) * m / u

Operands: param, grad, exp_avg, exp_inf. ``lr / (1 - beta1^t)`` is computed on the host in double
precision (as PyTorch does) and passed as fp64 bits.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from .multi_tensor import bits, host_compute_dtype, launch_table, ld, lerp, lerp_twin, maximum, operand, rnd, scalar, st

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _adamax_block(
    row,  # this program's row of the chunk table
    start, n,  # first element of this block, elements in the chunk
    weight1_bits: tl.int64,  # 1 - beta1
    beta2_bits: tl.int64, eps_bits: tl.int64, weight_decay_bits: tl.int64,
    clr_bits: tl.int64,  # lr / (1 - beta1^t)
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr,
    EVEN: tl.constexpr,  # a full block: no mask (lets the compiler vectorise)
):
    p_ptr = operand(row, 0, DTYPE, ALIGNED)
    g_ptr = operand(row, 1, DTYPE, ALIGNED)
    m_ptr = operand(row, 2, DTYPE, ALIGNED)
    u_ptr = operand(row, 3, DTYPE, ALIGNED)
    weight1 = scalar(weight1_bits, COMPUTE)
    beta2 = scalar(beta2_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    wd = scalar(weight_decay_bits, COMPUTE)
    clr = scalar(clr_bits, COMPUTE)
    offs = start + tl.arange(0, BLOCK)
    p = ld(p_ptr, offs, n, EVEN).to(COMPUTE)
    g = ld(g_ptr, offs, n, EVEN).to(COMPUTE)
    m = ld(m_ptr, offs, n, EVEN).to(COMPUTE)
    u = ld(u_ptr, offs, n, EVEN).to(COMPUTE)
    if MAXIMIZE:
        g = -g
    if WEIGHT_DECAY:
        g = g + wd * p
    m = lerp(m, g, weight1)
    u = maximum(u * beta2, tl.abs(g) + eps)
    st(m_ptr, offs, rnd(m, DTYPE), n, EVEN)
    st(u_ptr, offs, rnd(u, DTYPE), n, EVEN)
    st(p_ptr, offs, rnd(p - clr * (m / u), DTYPE), n, EVEN)


@triton.jit(do_not_specialize=["weight1_bits", "beta2_bits", "eps_bits", "weight_decay_bits", "clr_bits"])
def _adamax_kernel(
    table_ptr,  # int64 [chunks, 5]: param, grad, exp_avg, exp_inf chunk addresses; element count
    weight1_bits: tl.int64,  # 1 - beta1
    beta2_bits: tl.int64, eps_bits: tl.int64, weight_decay_bits: tl.int64,
    clr_bits: tl.int64,  # lr / (1 - beta1^t)
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr,
):
    # Full blocks without a mask (vectorised loads/stores), then the chunk's masked tail.
    row = table_ptr + tl.program_id(0) * ROW
    n = tl.load(row + ROW - 1).to(tl.int32)
    full = n - n % BLOCK
    for start in range(0, full, BLOCK):
        _adamax_block(
            row, start, n, weight1_bits, beta2_bits, eps_bits, weight_decay_bits, clr_bits, ROW, DTYPE, COMPUTE,
            ALIGNED, BLOCK, MAXIMIZE, WEIGHT_DECAY, EVEN=True)
    if full < n:
        _adamax_block(
            row, full, n, weight1_bits, beta2_bits, eps_bits, weight_decay_bits, clr_bits, ROW, DTYPE, COMPUTE, ALIGNED,
            BLOCK, MAXIMIZE, WEIGHT_DECAY, EVEN=False)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def adamax_clr(lr: float, beta1: float, step: float) -> float:
    return lr / (1 - beta1**step)


def adamax(params, grads, exp_avgs, exp_infs, *, lr: float, beta1: float, beta2: float, eps: float,
           weight_decay: float, step: float, maximize: bool, config: dict | None = None) -> int:
    """One Adamax step for tensors (contiguous DeviceArrays of one dtype) that share ``step``."""
    args = (bits(1 - beta1), bits(beta2), bits(eps), bits(weight_decay), bits(adamax_clr(lr, beta1, step)))
    return launch_table(_adamax_kernel, "Adamax", [params, grads, exp_avgs, exp_infs], args, config,
                        MAXIMIZE=bool(maximize), WEIGHT_DECAY=weight_decay != 0)


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def adamax_twin(params, grads, exp_avgs, exp_infs, *, lr: float, beta1: float, beta2: float, eps: float,
                weight_decay: float, step: float, maximize: bool, config: dict | None = None) -> int:
    for i, param in enumerate(params):
        ct = host_compute_dtype(param.dtype)
        c, dt = ct.type, param.dtype
        p, g = param.astype(ct), grads[i].astype(ct)
        m, u = exp_avgs[i].astype(ct), exp_infs[i].astype(ct)
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g + c(weight_decay) * p
        m = lerp_twin(m, g, c(1 - beta1))
        u = np.maximum(u * c(beta2), np.abs(g) + c(eps))
        exp_avgs[i][...] = m.astype(dt)
        exp_infs[i][...] = u.astype(dt)
        param[...] = (p - c(adamax_clr(lr, beta1, step)) * (m / u)).astype(dt)
    return 1 if params else 0


__all__ = ["adamax", "adamax_twin"]
