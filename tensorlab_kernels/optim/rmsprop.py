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
from .multi_tensor import (
    bits,
    chunk_row,
    launch_table,
    lerp,
    lerp_twin,
    load,
    operand,
    param_grad,
    param_grad_twin,
    scalar,
    store,
)

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit(do_not_specialize=["lr_bits", "alpha_bits", "one_minus_alpha_bits", "eps_bits", "weight_decay_bits",
                               "momentum_bits"])
def _rmsprop_kernel(
    table_ptr,  # int64 [chunks, ROW]: param, grad, square_avg, (grad_avg), (momentum buffer); element count
    lr_bits: tl.int64, alpha_bits: tl.int64, one_minus_alpha_bits: tl.int64, eps_bits: tl.int64,
    weight_decay_bits: tl.int64, momentum_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, CENTERED: tl.constexpr, MOMENTUM: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    lr = scalar(lr_bits, COMPUTE)
    alpha = scalar(alpha_bits, COMPUTE)
    one_minus_alpha = scalar(one_minus_alpha_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    momentum = scalar(momentum_bits, COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs, p_ptr, p, g = param_grad(row, start, n, weight_decay_bits, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE,
                                           WEIGHT_DECAY, MASKED)
            sq_ptr = operand(row, 2, DTYPE, ALIGNED)
            # ((1 - alpha) * g) * g, PyTorch's addcmul order (g * g first overflows sooner)
            sq = load(sq_ptr, offs, n, COMPUTE, MASKED) * alpha + (one_minus_alpha * g) * g
            store(sq_ptr, offs, sq, n, DTYPE, MASKED)
            if CENTERED:
                ga_ptr = operand(row, 3, DTYPE, ALIGNED)
                ga = lerp(load(ga_ptr, offs, n, COMPUTE, MASKED), g, one_minus_alpha)
                store(ga_ptr, offs, ga, n, DTYPE, MASKED)
                avg = tl.sqrt(sq - ga * ga) + eps
            else:
                avg = tl.sqrt(sq) + eps
            if MOMENTUM:
                b_ptr = operand(row, 4 if CENTERED else 3, DTYPE, ALIGNED)
                buf = load(b_ptr, offs, n, COMPUTE, MASKED) * momentum + g / avg
                store(b_ptr, offs, buf, n, DTYPE, MASKED)
                p = p - lr * buf
            else:
                p = p - lr * (g / avg)
            store(p_ptr, offs, p, n, DTYPE, MASKED)

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
        ct, p, g = param_grad_twin(param, grads[i], weight_decay=weight_decay, maximize=maximize)
        c, dt = ct.type, param.dtype
        sq = square_avgs[i].astype(ct, copy=False) * c(alpha) + (c(1 - alpha) * g) * g  # (the kernel's order)
        square_avgs[i][...] = sq.astype(dt, copy=False)
        if centered:
            ga = lerp_twin(grad_avgs[i].astype(ct, copy=False), g, c(1 - alpha))
            grad_avgs[i][...] = ga.astype(dt, copy=False)
            with np.errstate(invalid="ignore"):
                avg = np.sqrt(sq - ga * ga) + c(eps)
        else:
            avg = np.sqrt(sq) + c(eps)
        if momentum > 0:
            buf = momentum_buffers[i].astype(ct, copy=False) * c(momentum) + g / avg
            momentum_buffers[i][...] = buf.astype(dt, copy=False)
            p = p - c(lr) * buf
        else:
            p = p - c(lr) * (g / avg)
        param[...] = p.astype(dt, copy=False)
    return 1 if params else 0


__all__ = ["rmsprop", "rmsprop_twin"]
