"""Fused Adadelta: one launch updates a whole parameter group.

PyTorch's algorithm (``torch.optim.Adadelta``, ``_single_tensor_adadelta``), per element::

    g = -grad if maximize else grad
    g = g + weight_decay * p                        (weight_decay != 0)
    sq = rho * sq + (1 - rho) * g * g
    delta = sqrt(acc + eps) / sqrt(sq + eps) * g
    acc = rho * acc + (1 - rho) * delta * delta
    p = p - lr * delta

Operands: param, grad, square_avg, acc_delta.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from .multi_tensor import bits, host_compute_dtype, launch_table, ld, operand, rnd, scalar, st

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _adadelta_block(
    row,  # this program's row of the chunk table
    start, n,  # first element of this block, elements in the chunk
    lr_bits: tl.int64, rho_bits: tl.int64, one_minus_rho_bits: tl.int64, eps_bits: tl.int64,
    weight_decay_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr,
    EVEN: tl.constexpr,  # a full block: no mask (lets the compiler vectorise)
):
    p_ptr = operand(row, 0, DTYPE, ALIGNED)
    g_ptr = operand(row, 1, DTYPE, ALIGNED)
    sq_ptr = operand(row, 2, DTYPE, ALIGNED)
    acc_ptr = operand(row, 3, DTYPE, ALIGNED)
    lr = scalar(lr_bits, COMPUTE)
    rho = scalar(rho_bits, COMPUTE)
    one_minus_rho = scalar(one_minus_rho_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    wd = scalar(weight_decay_bits, COMPUTE)
    offs = start + tl.arange(0, BLOCK)
    p = ld(p_ptr, offs, n, EVEN).to(COMPUTE)
    g = ld(g_ptr, offs, n, EVEN).to(COMPUTE)
    sq = ld(sq_ptr, offs, n, EVEN).to(COMPUTE)
    acc = ld(acc_ptr, offs, n, EVEN).to(COMPUTE)
    if MAXIMIZE:
        g = -g
    if WEIGHT_DECAY:
        g = g + wd * p
    sq = sq * rho + one_minus_rho * (g * g)
    delta = tl.sqrt(acc + eps) / tl.sqrt(sq + eps) * g
    acc = acc * rho + one_minus_rho * (delta * delta)
    st(sq_ptr, offs, rnd(sq, DTYPE), n, EVEN)
    st(acc_ptr, offs, rnd(acc, DTYPE), n, EVEN)
    st(p_ptr, offs, rnd(p - lr * delta, DTYPE), n, EVEN)


@triton.jit(do_not_specialize=["lr_bits", "rho_bits", "one_minus_rho_bits", "eps_bits", "weight_decay_bits"])
def _adadelta_kernel(
    table_ptr,  # int64 [chunks, 5]: param, grad, square_avg, acc_delta chunk addresses; element count
    lr_bits: tl.int64, rho_bits: tl.int64, one_minus_rho_bits: tl.int64, eps_bits: tl.int64,
    weight_decay_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr,
):
    # Full blocks without a mask (vectorised loads/stores), then the chunk's masked tail.
    row = table_ptr + tl.program_id(0) * ROW
    n = tl.load(row + ROW - 1).to(tl.int32)
    full = n - n % BLOCK
    for start in range(0, full, BLOCK):
        _adadelta_block(
            row, start, n, lr_bits, rho_bits, one_minus_rho_bits, eps_bits, weight_decay_bits, ROW, DTYPE, COMPUTE,
            ALIGNED, BLOCK, MAXIMIZE, WEIGHT_DECAY, EVEN=True)
    if full < n:
        _adadelta_block(
            row, full, n, lr_bits, rho_bits, one_minus_rho_bits, eps_bits, weight_decay_bits, ROW, DTYPE, COMPUTE,
            ALIGNED, BLOCK, MAXIMIZE, WEIGHT_DECAY, EVEN=False)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def adadelta(params, grads, square_avgs, acc_deltas, *, lr: float, rho: float, eps: float, weight_decay: float,
             maximize: bool, config: dict | None = None) -> int:
    """One Adadelta step for lists of contiguous DeviceArrays of one dtype."""
    args = (bits(lr), bits(rho), bits(1 - rho), bits(eps), bits(weight_decay))
    return launch_table(_adadelta_kernel, "Adadelta", [params, grads, square_avgs, acc_deltas], args, config,
                        MAXIMIZE=bool(maximize), WEIGHT_DECAY=weight_decay != 0)


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def adadelta_twin(params, grads, square_avgs, acc_deltas, *, lr: float, rho: float, eps: float, weight_decay: float,
                  maximize: bool, config: dict | None = None) -> int:
    for i, param in enumerate(params):
        ct = host_compute_dtype(param.dtype)
        c, dt = ct.type, param.dtype
        p, g = param.astype(ct), grads[i].astype(ct)
        sq, acc = square_avgs[i].astype(ct), acc_deltas[i].astype(ct)
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g + c(weight_decay) * p
        sq = sq * c(rho) + c(1 - rho) * (g * g)
        delta = np.sqrt(acc + c(eps)) / np.sqrt(sq + c(eps)) * g
        acc = acc * c(rho) + c(1 - rho) * (delta * delta)
        square_avgs[i][...] = sq.astype(dt)
        acc_deltas[i][...] = acc.astype(dt)
        param[...] = (p - c(lr) * delta).astype(dt)
    return 1 if params else 0


__all__ = ["adadelta", "adadelta_twin"]
