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
    scalar,
    store,
)

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit(do_not_specialize=["weight1_bits", "beta2_bits", "eps_bits", "weight_decay_bits", "clr_bits"])
def _adamax_kernel(
    table_ptr,  # int64 [chunks, 5]: param, grad, exp_avg, exp_inf chunk addresses; element count
    weight1_bits: tl.int64,  # 1 - beta1
    beta2_bits: tl.int64, eps_bits: tl.int64, weight_decay_bits: tl.int64,
    clr_bits: tl.int64,  # lr / (1 - beta1^t)
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    weight1 = scalar(weight1_bits, COMPUTE)
    beta2 = scalar(beta2_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    clr = scalar(clr_bits, COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs, p_ptr, p, g = param_grad(row, start, n, weight_decay_bits, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE,
                                           WEIGHT_DECAY, MASKED)
            m_ptr = operand(row, 2, DTYPE, ALIGNED)
            u_ptr = operand(row, 3, DTYPE, ALIGNED)
            m = lerp(load(m_ptr, offs, n, COMPUTE, MASKED), g, weight1)
            u = maximum(load(u_ptr, offs, n, COMPUTE, MASKED) * beta2, tl.abs(g) + eps)
            store(m_ptr, offs, m, n, DTYPE, MASKED)
            store(u_ptr, offs, u, n, DTYPE, MASKED)
            store(p_ptr, offs, p - clr * (m / u), n, DTYPE, MASKED)

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
        ct, p, g = param_grad_twin(param, grads[i], weight_decay=weight_decay, maximize=maximize)
        c, dt = ct.type, param.dtype
        m = lerp_twin(exp_avgs[i].astype(ct, copy=False), g, c(1 - beta1))
        u = np.maximum(exp_infs[i].astype(ct, copy=False) * c(beta2), np.abs(g) + c(eps))
        exp_avgs[i][...] = m.astype(dt, copy=False)
        exp_infs[i][...] = u.astype(dt, copy=False)
        param[...] = (p - c(adamax_clr(lr, beta1, step)) * (m / u)).astype(dt, copy=False)
    return 1 if params else 0


__all__ = ["adamax", "adamax_twin"]
