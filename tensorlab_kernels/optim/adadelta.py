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
from .multi_tensor import bits, chunk_row, launch_table, load, operand, param_grad, param_grad_twin, scalar, store

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit(do_not_specialize=["lr_bits", "rho_bits", "one_minus_rho_bits", "eps_bits", "weight_decay_bits"])
def _adadelta_kernel(
    table_ptr,  # int64 [chunks, 5]: param, grad, square_avg, acc_delta chunk addresses; element count
    lr_bits: tl.int64, rho_bits: tl.int64, one_minus_rho_bits: tl.int64, eps_bits: tl.int64,
    weight_decay_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    lr = scalar(lr_bits, COMPUTE)
    rho = scalar(rho_bits, COMPUTE)
    one_minus_rho = scalar(one_minus_rho_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs, p_ptr, p, g = param_grad(row, start, n, weight_decay_bits, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE,
                                           WEIGHT_DECAY, MASKED)
            sq_ptr = operand(row, 2, DTYPE, ALIGNED)
            acc_ptr = operand(row, 3, DTYPE, ALIGNED)
            # ((1 - rho) * g) * g, PyTorch's addcmul order (g * g first overflows sooner)
            sq = load(sq_ptr, offs, n, COMPUTE, MASKED) * rho + (one_minus_rho * g) * g
            acc = load(acc_ptr, offs, n, COMPUTE, MASKED)
            delta = tl.sqrt(acc + eps) / tl.sqrt(sq + eps) * g
            acc = acc * rho + one_minus_rho * (delta * delta)
            store(sq_ptr, offs, sq, n, DTYPE, MASKED)
            store(acc_ptr, offs, acc, n, DTYPE, MASKED)
            store(p_ptr, offs, p - lr * delta, n, DTYPE, MASKED)

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
        ct, p, g = param_grad_twin(param, grads[i], weight_decay=weight_decay, maximize=maximize)
        c, dt = ct.type, param.dtype
        sq, acc = square_avgs[i].astype(ct, copy=False), acc_deltas[i].astype(ct, copy=False)
        sq = sq * c(rho) + (c(1 - rho) * g) * g  # (the kernel's order)
        delta = np.sqrt(acc + c(eps)) / np.sqrt(sq + c(eps)) * g
        acc = acc * c(rho) + c(1 - rho) * (delta * delta)
        square_avgs[i][...] = sq.astype(dt, copy=False)
        acc_deltas[i][...] = acc.astype(dt, copy=False)
        param[...] = (p - c(lr) * delta).astype(dt, copy=False)
    return 1 if params else 0


__all__ = ["adadelta", "adadelta_twin"]
