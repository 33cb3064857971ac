"""Fused RMSprop: one launch updates a whole parameter group (centered, momentum, weight decay).

PyTorch's algorithm (``torch.optim.RMSprop``, ``_single_tensor_rmsprop``), per element::

    g = -grad if maximize else grad
    g = g + weight_decay * p                        (weight_decay != 0)
    sq = alpha * sq + (1 - alpha) * g * g
    centered:  ga = lerp(ga, g, 1 - alpha);  avg = sqrt(sq - ga * ga) + eps
    otherwise: avg = sqrt(sq) + eps
    momentum > 0:  buf = momentum * buf + g / avg;  p = p - lr * buf
    otherwise:     p = p - lr * g / avg

Operands: param, grad, square_avg, then grad_avg (centered) and the momentum buffer (momentum > 0)
when present; ``CENTERED``/``MOMENTUM`` are constexprs and give the operand positions.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from .multi_tensor import bits, host_compute_dtype, launch_table, ld, lerp, lerp_twin, operand, rnd, scalar, st

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _rmsprop_block(
    row,  # this program's row of the chunk table
    start, n,  # first element of this block, elements in the chunk
    lr_bits: tl.int64, alpha_bits: tl.int64, one_minus_alpha_bits: tl.int64, eps_bits: tl.int64,
    weight_decay_bits: tl.int64, momentum_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, CENTERED: tl.constexpr, MOMENTUM: tl.constexpr,
    EVEN: tl.constexpr,  # a full block: no mask (lets the compiler vectorise)
):
    p_ptr = operand(row, 0, DTYPE, ALIGNED)
    g_ptr = operand(row, 1, DTYPE, ALIGNED)
    sq_ptr = operand(row, 2, DTYPE, ALIGNED)
    lr = scalar(lr_bits, COMPUTE)
    alpha = scalar(alpha_bits, COMPUTE)
    one_minus_alpha = scalar(one_minus_alpha_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    wd = scalar(weight_decay_bits, COMPUTE)
    momentum = scalar(momentum_bits, COMPUTE)
    offs = start + tl.arange(0, BLOCK)
    p = ld(p_ptr, offs, n, EVEN).to(COMPUTE)
    g = ld(g_ptr, offs, n, EVEN).to(COMPUTE)
    sq = ld(sq_ptr, offs, n, EVEN).to(COMPUTE)
    if MAXIMIZE:
        g = -g
    if WEIGHT_DECAY:
        g = g + wd * p
    sq = sq * alpha + one_minus_alpha * (g * g)
    st(sq_ptr, offs, rnd(sq, DTYPE), n, EVEN)
    if CENTERED:
        ga_ptr = operand(row, 3, DTYPE, ALIGNED)
        ga = lerp(ld(ga_ptr, offs, n, EVEN).to(COMPUTE), g, one_minus_alpha)
        st(ga_ptr, offs, rnd(ga, DTYPE), n, EVEN)
        avg = tl.sqrt(sq - ga * ga) + eps
    else:
        avg = tl.sqrt(sq) + eps
    if MOMENTUM:
        b_ptr = operand(row, 4 if CENTERED else 3, DTYPE, ALIGNED)
        buf = ld(b_ptr, offs, n, EVEN).to(COMPUTE) * momentum + g / avg
        st(b_ptr, offs, rnd(buf, DTYPE), n, EVEN)
        p = p - lr * buf
    else:
        p = p - lr * (g / avg)
    st(p_ptr, offs, rnd(p, DTYPE), n, EVEN)


@triton.jit(do_not_specialize=["lr_bits", "alpha_bits", "one_minus_alpha_bits", "eps_bits", "weight_decay_bits",
                               "momentum_bits"])
def _rmsprop_kernel(
    table_ptr,  # int64 [chunks, ROW]: param, grad, square_avg, (grad_avg), (momentum buffer); element count
    lr_bits: tl.int64, alpha_bits: tl.int64, one_minus_alpha_bits: tl.int64, eps_bits: tl.int64,
    weight_decay_bits: tl.int64, momentum_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, CENTERED: tl.constexpr, MOMENTUM: tl.constexpr,
):
    # Full blocks without a mask (vectorised loads/stores), then the chunk's masked tail.
    row = table_ptr + tl.program_id(0) * ROW
    n = tl.load(row + ROW - 1).to(tl.int32)
    full = n - n % BLOCK
    for start in range(0, full, BLOCK):
        _rmsprop_block(
            row, start, n, lr_bits, alpha_bits, one_minus_alpha_bits, eps_bits, weight_decay_bits, momentum_bits, ROW,
            DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE, WEIGHT_DECAY, CENTERED, MOMENTUM, EVEN=True)
    if full < n:
        _rmsprop_block(
            row, full, n, lr_bits, alpha_bits, one_minus_alpha_bits, eps_bits, weight_decay_bits, momentum_bits, ROW,
            DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE, WEIGHT_DECAY, CENTERED, MOMENTUM, EVEN=False)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffers, *, lr: float, alpha: float, eps: float,
            weight_decay: float, momentum: float, centered: bool, maximize: bool, config: dict | None = None) -> int:
    """One RMSprop step (contiguous DeviceArrays of one dtype). ``grad_avgs`` is None unless
    ``centered``; ``momentum_buffers`` is None unless ``momentum > 0``."""
    lists = [params, grads, square_avgs, grad_avgs if centered else None, momentum_buffers if momentum > 0 else None]
    args = (bits(lr), bits(alpha), bits(1 - alpha), bits(eps), bits(weight_decay), bits(momentum))
    return launch_table(_rmsprop_kernel, "RMSprop", lists, args, config, MAXIMIZE=bool(maximize),
                        WEIGHT_DECAY=weight_decay != 0, CENTERED=bool(centered), MOMENTUM=momentum > 0)


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def rmsprop_twin(params, grads, square_avgs, grad_avgs, momentum_buffers, *, lr: float, alpha: float, eps: float,
                 weight_decay: float, momentum: float, centered: bool, maximize: bool,
                 config: dict | None = None) -> int:
    for i, param in enumerate(params):
        ct = host_compute_dtype(param.dtype)
        c, dt = ct.type, param.dtype
        p, g, sq = param.astype(ct), grads[i].astype(ct), square_avgs[i].astype(ct)
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g + c(weight_decay) * p
        sq = sq * c(alpha) + c(1 - alpha) * (g * g)
        square_avgs[i][...] = sq.astype(dt)
        if centered:
            ga = lerp_twin(grad_avgs[i].astype(ct), g, c(1 - alpha))
            grad_avgs[i][...] = ga.astype(dt)
            with np.errstate(invalid="ignore"):
                avg = np.sqrt(sq - ga * ga) + c(eps)
        else:
            avg = np.sqrt(sq) + c(eps)
        if momentum > 0:
            buf = momentum_buffers[i].astype(ct) * c(momentum) + g / avg
            momentum_buffers[i][...] = buf.astype(dt)
            p = p - c(lr) * buf
        else:
            p = p - c(lr) * (g / avg)
        param[...] = p.astype(dt)
    return 1 if params else 0


__all__ = ["rmsprop", "rmsprop_twin"]
