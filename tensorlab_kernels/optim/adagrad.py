"""Fused Adagrad: one launch updates a whole parameter group.

PyTorch's algorithm (``torch.optim.Adagrad``, ``_single_tensor_adagrad``, dense gradients), per
element, step ``t``::

    g = -grad if maximize else grad
    g = g + weight_decay * p                        (weight_decay != 0)
    s = s + g * g
    p = p - clr * g / (sqrt(s) + eps)               clr = lr / (1 + (t - 1) * lr_decay)

Operands: param, grad, sum. ``clr`` is computed on the host in double precision, as PyTorch does.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from .multi_tensor import bits, host_compute_dtype, launch_table, ld, operand, rnd, scalar, st

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _adagrad_block(
    row,  # this program's row of the chunk table
    start, n,  # first element of this block, elements in the chunk
    clr_bits: tl.int64,  # lr / (1 + (t - 1) * lr_decay)
    eps_bits: tl.int64, weight_decay_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr,
    EVEN: tl.constexpr,  # a full block: no mask (lets the compiler vectorise)
):
    p_ptr = operand(row, 0, DTYPE, ALIGNED)
    g_ptr = operand(row, 1, DTYPE, ALIGNED)
    s_ptr = operand(row, 2, DTYPE, ALIGNED)
    clr = scalar(clr_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    wd = scalar(weight_decay_bits, COMPUTE)
    offs = start + tl.arange(0, BLOCK)
    p = ld(p_ptr, offs, n, EVEN).to(COMPUTE)
    g = ld(g_ptr, offs, n, EVEN).to(COMPUTE)
    s = ld(s_ptr, offs, n, EVEN).to(COMPUTE)
    if MAXIMIZE:
        g = -g
    if WEIGHT_DECAY:
        g = g + wd * p
    s = s + g * g
    st(s_ptr, offs, rnd(s, DTYPE), n, EVEN)
    std = tl.sqrt(s) + eps
    st(p_ptr, offs, rnd(p - clr * (g / std), DTYPE), n, EVEN)


@triton.jit(do_not_specialize=["clr_bits", "eps_bits", "weight_decay_bits"])
def _adagrad_kernel(
    table_ptr,  # int64 [chunks, 4]: param, grad, sum chunk addresses; element count
    clr_bits: tl.int64,  # lr / (1 + (t - 1) * lr_decay)
    eps_bits: tl.int64, weight_decay_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr,
):
    # Full blocks without a mask (vectorised loads/stores), then the chunk's masked tail.
    row = table_ptr + tl.program_id(0) * ROW
    n = tl.load(row + ROW - 1).to(tl.int32)
    full = n - n % BLOCK
    for start in range(0, full, BLOCK):
        _adagrad_block(
            row, start, n, clr_bits, eps_bits, weight_decay_bits, ROW, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE,
            WEIGHT_DECAY, EVEN=True)
    if full < n:
        _adagrad_block(
            row, full, n, clr_bits, eps_bits, weight_decay_bits, ROW, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE,
            WEIGHT_DECAY, EVEN=False)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def adagrad_clr(lr: float, lr_decay: float, step: float) -> float:
    return lr / (1 + (step - 1) * lr_decay)


def adagrad(params, grads, state_sums, *, lr: float, lr_decay: float, eps: float, weight_decay: float, step: float,
            maximize: bool, config: dict | None = None) -> int:
    """One Adagrad step for tensors (contiguous DeviceArrays of one dtype) that share ``step``."""
    args = (bits(adagrad_clr(lr, lr_decay, step)), bits(eps), bits(weight_decay))
    return launch_table(_adagrad_kernel, "Adagrad", [params, grads, state_sums], args, config,
                        MAXIMIZE=bool(maximize), WEIGHT_DECAY=weight_decay != 0)


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def adagrad_twin(params, grads, state_sums, *, lr: float, lr_decay: float, eps: float, weight_decay: float,
                 step: float, maximize: bool, config: dict | None = None) -> int:
    clr = adagrad_clr(lr, lr_decay, step)
    for i, param in enumerate(params):
        ct = host_compute_dtype(param.dtype)
        c, dt = ct.type, param.dtype
        p, g, s = param.astype(ct), grads[i].astype(ct), state_sums[i].astype(ct)
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g + c(weight_decay) * p
        s = s + g * g
        state_sums[i][...] = s.astype(dt)
        param[...] = (p - c(clr) * (g / (np.sqrt(s) + c(eps)))).astype(dt)
    return 1 if params else 0


__all__ = ["adagrad", "adagrad_twin"]
