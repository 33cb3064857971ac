"""Fused Rprop: one launch updates a whole parameter group.

PyTorch's algorithm (``torch.optim.Rprop``, ``_single_tensor_rprop``), per element::

    g = -grad if maximize else grad
    s = sign(g * prev)                              (the product in the parameter's dtype)
    f = etaplus (s > 0) | etaminus (s < 0) | 1 (s == 0, a NaN product included: sign(NaN) is 0)
    step_size = clamp(step_size * f, step_size_min, step_size_max)
    g = 0 where f == etaminus                        (the sign flipped: no move, and no flip next step)
    p = p - sign(g) * step_size
    prev = g

PyTorch writes the factors into a tensor of the parameter's dtype, so ``etaplus``/``etaminus`` (and
the clamp bounds) are the parameter dtype's roundings of them (1.2 is 1.2002 in fp16), and an fp16
product ``g * prev`` that underflows to 0 counts as "no sign": the kernel rounds both the same way.
``sign`` is 0 for 0 and NaN (``torch.sign``). Operands: param, grad, prev, step_size.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from .multi_tensor import (
    as_stored,
    as_stored_twin,
    bits,
    chunk_row,
    launch_table,
    load,
    operand,
    param_grad,
    param_grad_twin,
    rnd,
    store,
)

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _sign(x):
    """``torch.sign``: -1, 0 or 1, and 0 for NaN."""
    return tl.where(x > 0, 1.0, tl.where(x < 0, -1.0, 0.0)).to(x.dtype)


@triton.jit(do_not_specialize=["etaminus_bits", "etaplus_bits", "min_bits", "max_bits"])
def _rprop_kernel(
    table_ptr,  # int64 [chunks, 5]: param, grad, prev, step_size chunk addresses; element count
    etaminus_bits: tl.int64, etaplus_bits: tl.int64,
    min_bits: tl.int64, max_bits: tl.int64,  # step_size_min, step_size_max
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    etaminus = as_stored(etaminus_bits, DTYPE, COMPUTE)
    etaplus = as_stored(etaplus_bits, DTYPE, COMPUTE)
    lo = as_stored(min_bits, DTYPE, COMPUTE)
    hi = as_stored(max_bits, DTYPE, COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs, p_ptr, p, g = param_grad(row, start, n, 0, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE, False, MASKED)
            prev_ptr = operand(row, 2, DTYPE, ALIGNED)
            ss_ptr = operand(row, 3, DTYPE, ALIGNED)
            prod = rnd(g * load(prev_ptr, offs, n, COMPUTE, MASKED), DTYPE).to(COMPUTE)
            # PyTorch's factors of sign(prod): > 0, < 0, else 1 (a zero, or a NaN product: torch.sign(NaN)
            # is 0, so a NaN or infinite gradient leaves the step size, and the parameter, as they were)
            f = tl.where(prod > 0, etaplus, tl.where(prod < 0, etaminus, 1.0))
            ss = rnd(load(ss_ptr, offs, n, COMPUTE, MASKED) * f, DTYPE).to(COMPUTE)
            ss = tl.where(ss < lo, lo, ss)  # clamp_min then clamp_max; NaN passes through
            ss = tl.where(ss > hi, hi, ss)
            store(ss_ptr, offs, ss, n, DTYPE, MASKED)
            g = tl.where(f == etaminus, 0.0, g)
            store(p_ptr, offs, p - _sign(g) * ss, n, DTYPE, MASKED)
            store(prev_ptr, offs, g, n, DTYPE, MASKED)

# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def rprop(params, grads, prevs, step_sizes, *, etaminus: float, etaplus: float, step_size_min: float,
          step_size_max: float, maximize: bool, config: dict | None = None) -> int:
    """One Rprop step (contiguous DeviceArrays of one dtype)."""
    args = (bits(etaminus), bits(etaplus), bits(step_size_min), bits(step_size_max))
    return launch_table(_rprop_kernel, "Rprop", [params, grads, prevs, step_sizes], args, config,
                        MAXIMIZE=bool(maximize))


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def rprop_twin(params, grads, prevs, step_sizes, *, etaminus: float, etaplus: float, step_size_min: float,
               step_size_max: float, maximize: bool, config: dict | None = None) -> int:
    for i, param in enumerate(params):
        ct, p, g = param_grad_twin(param, grads[i], weight_decay=0, maximize=maximize)
        dt = param.dtype
        em, ep = as_stored_twin(etaminus, ct, dt), as_stored_twin(etaplus, ct, dt)
        lo, hi = as_stored_twin(step_size_min, ct, dt), as_stored_twin(step_size_max, ct, dt)
        with np.errstate(invalid="ignore", over="ignore", under="ignore"):
            prod = (g * prevs[i].astype(ct, copy=False)).astype(dt, copy=False).astype(ct, copy=False)
            f = np.where(prod > 0, ep, np.where(prod < 0, em, ct.type(1.0)))  # (NaN: 1, as the kernel)
            ss = (step_sizes[i].astype(ct, copy=False) * f).astype(dt, copy=False).astype(ct, copy=False)
            ss = np.where(ss < lo, lo, ss)
            ss = np.where(ss > hi, hi, ss)
            step_sizes[i][...] = ss.astype(dt, copy=False)
            g = np.where(f == em, ct.type(0.0), g)
            p = p - np.sign(np.nan_to_num(g, nan=0.0)) * ss
        param[...] = p.astype(dt, copy=False)
        prevs[i][...] = g.astype(dt, copy=False)
    return 1 if params else 0


__all__ = ["as_stored", "as_stored_twin", "rprop", "rprop_twin"]
