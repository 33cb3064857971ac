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
from .multi_tensor import bits, chunk_row, launch_table, load, operand, param_grad, param_grad_twin, scalar, store

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit(do_not_specialize=["clr_bits", "eps_bits", "weight_decay_bits"])
def _adagrad_kernel(
    table_ptr,  # int64 [chunks, 4]: param, grad, sum chunk addresses; element count
    clr_bits: tl.int64,  # lr / (1 + (t - 1) * lr_decay)
    eps_bits: tl.int64, weight_decay_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    clr = scalar(clr_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs, p_ptr, p, g = param_grad(row, start, n, weight_decay_bits, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE,
                                           WEIGHT_DECAY, MASKED)
            s_ptr = operand(row, 2, DTYPE, ALIGNED)
            s = load(s_ptr, offs, n, COMPUTE, MASKED) + g * g
            store(s_ptr, offs, s, n, DTYPE, MASKED)
            std = tl.sqrt(s) + eps
            store(p_ptr, offs, p - clr * (g / std), n, DTYPE, MASKED)

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
        ct, p, g = param_grad_twin(param, grads[i], weight_decay=weight_decay, maximize=maximize)
        c, dt = ct.type, param.dtype
        s = state_sums[i].astype(ct, copy=False) + g * g
        state_sums[i][...] = s.astype(dt, copy=False)
        param[...] = (p - c(clr) * (g / (np.sqrt(s) + c(eps)))).astype(dt, copy=False)
    return 1 if params else 0


__all__ = ["adagrad", "adagrad_twin"]
