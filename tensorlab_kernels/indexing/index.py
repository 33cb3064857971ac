"""Index values themselves: their min/max (for host-side range checks) and ``one_hot``.

``index_minmax`` is how every indexing op validates its indices before launching anything:
a two-stage reduction (per-block min/max, then one program over the partials) and a single
16-byte device-to-host copy, instead of bringing the index tensor to the host. The kernels
of the family then trust their indices (an out-of-range index would read or write out of
bounds on a GPU, which must never happen silently).

Layout of this file: Triton kernels, launchers, numpy twins.
"""

from __future__ import annotations

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..launch import INTERPRET, cdiv, launch
from ..strided import offsets, strided_layout

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _minmax_partial_kernel(
    x_ptr, part_ptr,  # integer tensor (strided); int64 partials [nblocks, 2]
    n, part_base,
    size1, size2, size3, size4, size5,
    st0, st1, st2, st3, st4, st5,
    NDIM: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    # Lanes past the end read element 0 (always valid, n > 0): a duplicate changes no min/max,
    # and it avoids sentinel constants that would depend on the dtype.
    lin = tl.where(lin < n, lin, 0)
    v = tl.load(x_ptr + offsets(lin, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5, NDIM))
    v = v.to(tl.int64)
    slot = (part_base + pid).to(tl.int64) * 2
    tl.store(part_ptr + slot, tl.min(v, axis=0))
    tl.store(part_ptr + slot + 1, tl.max(v, axis=0))


@triton.jit
def _minmax_final_kernel(part_ptr, out_ptr, nparts, BLOCK: tl.constexpr):
    lo = tl.load(part_ptr)
    hi = tl.load(part_ptr + 1)
    for start in range(0, nparts, BLOCK):
        offs = start + tl.arange(0, BLOCK).to(tl.int64)
        offs = tl.where(offs < nparts, offs, 0)
        lo = tl.minimum(lo, tl.min(tl.load(part_ptr + offs * 2), axis=0))
        hi = tl.maximum(hi, tl.max(tl.load(part_ptr + offs * 2 + 1), axis=0))
    tl.store(out_ptr, lo)
    tl.store(out_ptr + 1, hi)


@triton.jit
def _one_hot_kernel(
    out_ptr, x_ptr,  # int64 output [..., num_classes]; integer input
    n, num_classes,  # n = input elements of this launch x num_classes
    size1, size2, size3, size4, size5,
    xs0, xs1, xs2, xs3, xs4, xs5,  # input strides
    os0, os1, os2, os3, os4, os5,  # output strides over the input's dims (class dim stride is 1)
    NDIM: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = lin < n
    i = lin // num_classes
    c = lin % num_classes
    v = tl.load(x_ptr + offsets(i, size1, size2, size3, size4, size5, xs0, xs1, xs2, xs3, xs4, xs5, NDIM),
                mask=mask, other=0).to(tl.int64)
    dst = offsets(i, size1, size2, size3, size4, size5, os0, os1, os2, os3, os4, os5, NDIM) + c
    tl.store(out_ptr + dst, (v == c).to(tl.int64), mask=mask)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------


def index_minmax(x) -> tuple[int, int] | None:
    """(min, max) of the integer DeviceArray ``x`` as Python ints (one host sync); None if empty."""
    if x.numel == 0:
        return None
    block = 8192 if INTERPRET else 2048
    pieces = strided_layout(x.shape, x.strides)
    nparts = sum(cdiv(p.numel, block) for p in pieces)
    part = rt.empty((nparts, 2), np.int64, x.device)
    base = 0
    for p in pieces:
        nb = cdiv(p.numel, block)
        launch(_minmax_partial_kernel, (nb,), x.view(x.shape, x.strides, x.offset + p.offsets[0]), part, p.numel,
               base, *p.sizes[1:], *p.strides[0], NDIM=p.ndim, BLOCK=block, num_warps=8)
        base += nb
    result = rt.empty((2,), np.int64, x.device)
    launch(_minmax_final_kernel, (1,), part, result, nparts, BLOCK=1024, num_warps=4)
    host = np.zeros(2, np.int64)
    rt.copy_device_to_host(host, result.storage, result.offset * 8)
    return int(host[0]), int(host[1])


def one_hot(out, x, num_classes: int) -> None:
    """``out[..., c] = (x[...] == c)`` (int64); ``x`` holds values in ``[0, num_classes)``."""
    if out.numel == 0:
        return
    ostrides = tuple(s for s in out.strides[:-1]) if x.ndim else ()
    shape = x.shape if x.ndim else (1,)
    xstrides = x.strides if x.ndim else (0,)
    ostrides = ostrides if x.ndim else (0,)
    for p in strided_layout(shape, ostrides, xstrides):
        n = p.numel * num_classes
        block = 8192 if INTERPRET else 1024
        launch(_one_hot_kernel, (cdiv(n, block),), out.view(out.shape, out.strides, out.offset + p.offsets[0]),
               x.view(x.shape, x.strides, x.offset + p.offsets[1]), n, num_classes, *p.sizes[1:], *p.strides[1],
               *p.strides[0], NDIM=p.ndim, BLOCK=block, num_warps=4)


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def index_minmax_twin(x: np.ndarray) -> tuple[int, int] | None:
    if x.size == 0:
        return None
    return int(x.min()), int(x.max())


def one_hot_twin(out, x, num_classes: int) -> None:
    out[...] = (x[..., None].astype(np.int64) == np.arange(num_classes)).astype(np.int64)

