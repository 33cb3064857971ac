"""Masked ops: ``masked_fill`` (elementwise) and the ops whose output size depends on the data:
``masked_select``, ``nonzero``, ``masked_scatter``.

The data-dependent ones are two passes over the mask, in logical (row-major) order:

1. **count** (``_mask_count_kernel``): each program counts the true elements of its block;
   the counts are scanned (``segments.exclusive_scan``) into each block's first output
   position, and the total comes back to the host (one small copy: it sizes the output);
2. **compaction**: each program recomputes its block's flags, and an element's position is
   its block's start plus the number of true flags before it in the block (``tl.cumsum``).
   ``masked_select`` copies the value there, ``nonzero`` writes the coordinates, and
   ``masked_scatter`` reads the source's element at that position.

Both passes use the same ``BLOCK``, so the per-block counts line up. Integer counts only: the
result does not depend on scheduling. Inputs are read through their (broadcast) strides; a
view with more than six dims that no stride pattern merges is first copied to a dense array.

Layout of this file: Triton kernels, launchers, numpy twins.
"""

from __future__ import annotations

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..copy import strided_copy
from ..launch import INTERPRET, MAX_DIMS, cdiv, collapse_dims, launch, needs_int64, pad_dims
from ..strided import offsets, strided_layout
from .scatter import fill_value, value_args
from .segments import exclusive_scan

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _nonzero(x):
    """``x != 0`` by value: a half-precision float is converted first, since Triton's interpreter
    compares a bf16's raw bits (-0.0 would count as non-zero); the conversion is free on a GPU."""
    if x.dtype.is_bf16() or x.dtype.is_fp16():
        x = x.to(tl.float32)
    return x != 0


@triton.jit(do_not_specialize=["value_bits"])
def _masked_fill_kernel(
    out_ptr, self_ptr, mask_ptr, value_ptr,
    n, value_bits,
    size1, size2, size3, size4, size5,
    xs0, xs1, xs2, xs3, xs4, xs5,  # self strides (0 where it broadcasts)
    ms0, ms1, ms2, ms3, ms4, ms5,  # mask strides
    os0, os1, os2, os3, os4, os5,  # output strides
    NDIM: tl.constexpr, VALUE_MODE: tl.constexpr, OUT_CONTIGUOUS: tl.constexpr, INT64: tl.constexpr,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    valid = lin < n
    x = tl.load(self_ptr + offsets(lin, size1, size2, size3, size4, size5, xs0, xs1, xs2, xs3, xs4, xs5, NDIM),
                mask=valid)
    m = _nonzero(tl.load(mask_ptr + offsets(lin, size1, size2, size3, size4, size5, ms0, ms1, ms2, ms3, ms4, ms5,
                                            NDIM), mask=valid, other=0))
    v = fill_value(value_ptr, value_bits, out_ptr, VALUE_MODE)
    y = tl.where(m, v, x)
    if OUT_CONTIGUOUS:
        tl.store(out_ptr + lin, y, mask=valid)
    else:
        tl.store(out_ptr + offsets(lin, size1, size2, size3, size4, size5, os0, os1, os2, os3, os4, os5, NDIM), y,
                 mask=valid)


@triton.jit
def _block_flags(mask_ptr, pid, n, size1, size2, size3, size4, size5, ms0, ms1, ms2, ms3, ms4, ms5,
                 NDIM: tl.constexpr, BLOCK: tl.constexpr):
    lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    valid = lin < n
    m = _nonzero(tl.load(mask_ptr + offsets(lin, size1, size2, size3, size4, size5, ms0, ms1, ms2, ms3, ms4, ms5,
                                            NDIM), mask=valid, other=0))
    return lin, valid, m & valid


@triton.jit
def _mask_count_kernel(
    mask_ptr, counts_ptr,  # mask (any dtype: nonzero counts non-zeros); int64 count per block
    n,
    size1, size2, size3, size4, size5,
    ms0, ms1, ms2, ms3, ms4, ms5,
    NDIM: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    lin, valid, m = _block_flags(mask_ptr, pid, n, size1, size2, size3, size4, size5, ms0, ms1, ms2, ms3, ms4, ms5,
                                 NDIM, BLOCK)
    tl.store(counts_ptr + pid, tl.sum(m.to(tl.int64), axis=0))


@triton.jit
def _positions(starts_ptr, pid, m):
    """Output position of every true flag of the block: block start + true flags before it."""
    flags = m.to(tl.int64)
    return tl.load(starts_ptr + pid) + tl.cumsum(flags, axis=0) - flags


@triton.jit
def _masked_select_kernel(
    out_ptr, src_ptr, mask_ptr, starts_ptr,  # out: 1-d; starts: scanned block counts
    n,
    size1, size2, size3, size4, size5,
    ss0, ss1, ss2, ss3, ss4, ss5,  # source strides (broadcast)
    ms0, ms1, ms2, ms3, ms4, ms5,  # mask strides (broadcast)
    NDIM: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    lin, valid, m = _block_flags(mask_ptr, pid, n, size1, size2, size3, size4, size5, ms0, ms1, ms2, ms3, ms4, ms5,
                                 NDIM, BLOCK)
    pos = _positions(starts_ptr, pid, m)
    x = tl.load(src_ptr + offsets(lin, size1, size2, size3, size4, size5, ss0, ss1, ss2, ss3, ss4, ss5, NDIM), mask=m)
    tl.store(out_ptr + pos, x, mask=m)


@triton.jit
def _nonzero_kernel(
    out_ptr, x_ptr, starts_ptr, shape_ptr,  # out: int64 [count, RANK]; shape: int64 [RANK]
    n,
    size1, size2, size3, size4, size5,
    xs0, xs1, xs2, xs3, xs4, xs5,  # input strides (collapsed)
    NDIM: tl.constexpr, RANK: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    lin, valid, m = _block_flags(x_ptr, pid, n, size1, size2, size3, size4, size5, xs0, xs1, xs2, xs3, xs4, xs5,
                                 NDIM, BLOCK)
    pos = _positions(starts_ptr, pid, m)
    # coordinates in the input's own (uncollapsed) shape, innermost first
    rem = lin
    for jj in tl.static_range(RANK):
        j = RANK - 1 - jj
        size = tl.load(shape_ptr + j)
        tl.store(out_ptr + pos * RANK + j, rem % size, mask=m)
        rem = rem // size


@triton.jit
def _masked_scatter_kernel(
    out_ptr, self_ptr, mask_ptr, src_ptr, starts_ptr,
    n,
    size1, size2, size3, size4, size5,
    xs0, xs1, xs2, xs3, xs4, xs5,  # self strides (broadcast)
    ms0, ms1, ms2, ms3, ms4, ms5,  # mask strides (broadcast)
    os0, os1, os2, os3, os4, os5,  # output strides
    fsize1, fsize2, fsize3, fsize4, fsize5,  # the source, read in its row-major order
    fs0, fs1, fs2, fs3, fs4, fs5,
    NDIM: tl.constexpr, FNDIM: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    lin, valid, m = _block_flags(mask_ptr, pid, n, size1, size2, size3, size4, size5, ms0, ms1, ms2, ms3, ms4, ms5,
                                 NDIM, BLOCK)
    pos = _positions(starts_ptr, pid, m)
    s = tl.load(src_ptr + offsets(pos, fsize1, fsize2, fsize3, fsize4, fsize5, fs0, fs1, fs2, fs3, fs4, fs5, FNDIM),
                mask=m)
    x = tl.load(self_ptr + offsets(lin, size1, size2, size3, size4, size5, xs0, xs1, xs2, xs3, xs4, xs5, NDIM),
                mask=valid)
    tl.store(out_ptr + offsets(lin, size1, size2, size3, size4, size5, os0, os1, os2, os3, os4, os5, NDIM),
             tl.where(m, s, x), mask=valid)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------

COMPACT_BLOCK = 8192 if INTERPRET else 1024


def masked_fill(out, self_, mask, value) -> None:
    """``out = where(mask, value, self_)``; ``self_`` and ``mask`` already broadcast to ``out``'s shape;
    ``value`` a Python number or a one-element DeviceArray."""
    if out.numel == 0:
        return
    mode, bits, vptr = value_args(value, out)
    int64 = needs_int64(out, self_, mask)
    block = 8192 if INTERPRET else 1024
    for p in strided_layout(out.shape, out.strides, self_.strides, mask.strides):
        launch(_masked_fill_kernel, (cdiv(p.numel, block),),
               out.view(out.shape, out.strides, out.offset + p.offsets[0]),
               self_.view(self_.shape, self_.strides, self_.offset + p.offsets[1]),
               mask.view(mask.shape, mask.strides, mask.offset + p.offsets[2]), vptr, p.numel, bits,
               *p.sizes[1:], *p.strides[1], *p.strides[2], *p.strides[0], NDIM=p.ndim, VALUE_MODE=mode,
               OUT_CONTIGUOUS=p.contiguous(0), INT64=int64, BLOCK=block, num_warps=4)


def _dense_if_needed(arrays):
    """The (shape, stride lists) of one logical walk over ``arrays`` (one shape), at most six dims
    after merging; arrays that would need more are replaced by dense copies first."""
    shape = tuple(arrays[0].shape)
    cshape, cstrides = collapse_dims(shape, *[tuple(a.strides) for a in arrays])
    if len(cshape) <= MAX_DIMS:
        return arrays, cshape, cstrides
    dense = []
    for a in arrays:
        d = rt.empty(a.shape, a.dtype, a.device)
        strided_copy(d, a)
        dense.append(d)
    cshape, cstrides = collapse_dims(shape, *[tuple(a.strides) for a in dense])
    return dense, cshape, cstrides


def _count_and_scan(mask, sizes, mstrides, ndim):
    """Per-block start positions (device) and the total number of true elements (host)."""
    nblocks = cdiv(mask.numel, COMPACT_BLOCK)
    starts = rt.empty((nblocks,), np.int64, mask.device)
    launch(_mask_count_kernel, (nblocks,), mask, starts, mask.numel, *sizes[1:], *mstrides, NDIM=ndim,
           BLOCK=COMPACT_BLOCK, num_warps=8)
    total = exclusive_scan(starts)
    return starts, total, nblocks


def masked_select(src, mask):
    """The elements of ``src`` where ``mask`` is true (both already broadcast to one shape), in
    row-major order; returns a new 1-d DeviceArray."""
    if mask.numel == 0:
        return rt.empty((0,), src.dtype, src.device)
    (src, mask), cshape, (ss, ms) = _dense_if_needed([src, mask])
    sizes, (ss, ms) = pad_dims(cshape, [ss, ms])
    starts, total, nblocks = _count_and_scan(mask, sizes, ms, len(cshape))
    out = rt.empty((total,), src.dtype, src.device)
    if total:
        launch(_masked_select_kernel, (nblocks,), out, src, mask, starts, mask.numel, *sizes[1:], *ss, *ms,
               NDIM=len(cshape), BLOCK=COMPACT_BLOCK, num_warps=8)
    return out


def nonzero(x):
    """Coordinates of the non-zero elements of ``x``, row-major: a new int64 DeviceArray [count, ndim]."""
    rank = x.ndim
    if x.numel == 0:
        return rt.empty((0, rank), np.int64, x.device)
    (x,), cshape, (xs,) = _dense_if_needed([x])
    sizes, (xs,) = pad_dims(cshape, [xs])
    starts, total, nblocks = _count_and_scan(x, sizes, xs, len(cshape))
    out = rt.empty((total, rank), np.int64, x.device)
    if total and rank:
        shape = rt.empty((rank,), np.int64, x.device)
        rt.copy_host_to_device(shape.storage, shape.offset * 8, np.asarray(x.shape, dtype=np.int64))
        launch(_nonzero_kernel, (nblocks,), out, x, starts, shape, x.numel, *sizes[1:], *xs, NDIM=len(cshape),
               RANK=rank, BLOCK=COMPACT_BLOCK, num_warps=8)
    return out


def mask_count(mask) -> int:
    """Number of true elements of ``mask`` (a host sync)."""
    if mask.numel == 0:
        return 0
    (mask,), cshape, (ms,) = _dense_if_needed([mask])
    sizes, (ms,) = pad_dims(cshape, [ms])
    return _count_and_scan(mask, sizes, ms, len(cshape))[1]


def masked_scatter(out, self_, mask, source) -> None:
    """``out = self_`` with the positions where ``mask`` is true taking ``source``'s elements in
    row-major order (``self_``/``mask`` broadcast to ``out``; enough source elements checked by the caller)."""
    if out.numel == 0:
        return
    if source.storage is not None and source.storage is out.storage:
        tmp = rt.empty(source.shape, source.dtype, source.device)
        strided_copy(tmp, source)
        source = tmp
    (out_, self_, mask), cshape, (os_, xs, ms) = _dense_if_needed([out, self_, mask])
    sizes, (os_, xs, ms) = pad_dims(cshape, [os_, xs, ms])
    if source.numel == 0:  # then no position is true (checked by the caller): nothing is read
        source = source.view((1,), (0,))
    fshape, fstrides = collapse_dims(tuple(source.shape) or (1,), tuple(source.strides) or (1,))
    if len(fshape) > MAX_DIMS:
        dense = rt.empty(source.shape, source.dtype, source.device)
        strided_copy(dense, source)
        source = dense
        fshape, fstrides = collapse_dims(tuple(source.shape), tuple(source.strides))
    fsizes, (fs,) = pad_dims(fshape, fstrides)
    starts, total, nblocks = _count_and_scan(mask, sizes, ms, len(cshape))
    launch(_masked_scatter_kernel, (nblocks,), out_, self_, mask, source, starts, mask.numel, *sizes[1:], *xs, *ms,
           *os_, *fsizes[1:], *fs, NDIM=len(cshape), FNDIM=len(fshape), BLOCK=COMPACT_BLOCK, num_warps=8)
    if out_ is not out:
        strided_copy(out, out_)


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def masked_fill_twin(out, self_, mask, value) -> None:
    v = np.asarray(value).reshape(())
    with np.errstate(all="ignore"):
        if out.dtype.itemsize == 2 and out.dtype.kind in "fV" and v.dtype.itemsize != 2:
            v = v.astype(np.float32)
        out[...] = np.where(mask, v.astype(out.dtype), self_)


def masked_select_twin(src, mask):
    return np.ascontiguousarray(src[mask.astype(bool)])


def nonzero_twin(x):
    r = np.argwhere(x)
    return np.ascontiguousarray(r.astype(np.int64).reshape(r.shape[0], x.ndim))


def mask_count_twin(mask) -> int:
    return int(np.count_nonzero(mask))


def masked_scatter_twin(out, self_, mask, source) -> None:
    res = np.array(np.broadcast_to(self_, out.shape))
    m = np.broadcast_to(mask, out.shape).astype(bool)
    res[m] = source.reshape(-1)[: int(m.sum())]
    out[...] = res
