"""repeat / tile / repeat_interleave: outputs made of copies of the input's elements.

repeat and integer repeat_interleave are one strided copy. ``x.repeat(r0, r1)`` on a (s0, s1)
tensor is, element for element, the 4-D array (r0, s0, r1, s1) whose source strides are
(0, st0, 0, st1): the repeat dims have stride 0, and the contiguous output viewed with shape
(r0, s0, r1, s1) is still a plain strided view. ``repeat_interleave(x, r, dim)`` is the same
with the stride-0 dim placed *after* ``dim`` instead of before it. So the strided copy kernel
writes each output element once, reading the input through stride 0 (from cache): the memory
traffic of the output alone, one launch.

Tensor repeats have a data-dependent layout: input slice ``i`` along ``dim`` appears
``repeats[i]`` times, at output positions ``[cum[i] - repeats[i], cum[i])`` with ``cum`` the
inclusive prefix sum. Three small launches, no host round trip once the output size is known:

1. ``_cumsum_kernel``: one program scans ``repeats`` block by block (``tl.cumsum`` plus a
   carried total), into int64 scratch;
2. ``_segment_index_kernel``: for every output position ``j``, a binary search over ``cum``
   finds the slice it copies (the first ``i`` with ``cum[i] > j``, so zero repeats are skipped);
   the same kernel is ``repeat_interleave(repeats)`` itself;
3. ``_gather_dim_kernel``: the output, read through the input's strides with the coordinate
   along ``dim`` replaced by ``index[j]``.

The backward of the tensor form sums each run of the gradient back onto its input slice:
``_segment_sum_kernel`` loops over the run (bounded by the block's largest repeat), accumulating
in fp32 (fp64 for fp64) — deterministic, no atomics.

Layout of this file: kernels, launchers, numpy twins.
"""

from __future__ import annotations

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..copy import strided_copy, strided_copy_twin
from ..launch import INTERPRET, cdiv, launch, needs_int64
from ..strided import offsets, strided_layout

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _cumsum_kernel(
    cum_ptr, rep_ptr,  # int64 inclusive prefix sums (output); repeats (int32 or int64)
    n,  # number of repeats
    rep_stride,  # stride of repeats (elements)
    BLOCK: tl.constexpr,
):
    # One program: the scan is sequential over blocks, and repeats are short (one per slice).
    carry = tl.zeros([BLOCK], tl.int64)  # the total so far, kept as a vector (a loop-carried tensor)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK).to(tl.int64)
        m = offs < n
        r = tl.load(rep_ptr + offs * rep_stride, mask=m, other=0).to(tl.int64)
        tl.store(cum_ptr + offs, tl.cumsum(r, 0) + carry, mask=m)
        carry += tl.sum(r, 0)


@triton.jit
def _segment_index_kernel(
    index_ptr, cum_ptr,  # output indices; int64 inclusive prefix sums of the repeats
    total, n,  # output length; number of segments (n >= 1)
    steps,  # binary-search steps: n.bit_length()
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    j = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = j < total
    # Upper bound: the number of prefix sums <= j, i.e. the segment that covers position j.
    lo = tl.zeros([BLOCK], tl.int64)
    hi = tl.zeros([BLOCK], tl.int64) + n
    for _ in range(steps):
        active = lo < hi
        mid = (lo + hi) // 2
        c = tl.load(cum_ptr + mid, mask=mask & active, other=0)
        right = c <= j
        lo = tl.where(active & right, mid + 1, lo)
        hi = tl.where(active & (c > j), mid, hi)
    # j beyond the real total (an output_size larger than sum(repeats)) would find segment n;
    # clamp so no read goes out of bounds (PyTorch leaves that case undefined).
    seg = tl.minimum(lo, n - 1)
    tl.store(index_ptr + j, seg.to(index_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _gather_dim_kernel(
    dst_ptr, src_ptr, index_ptr,  # output; input; int64 source slice per output position along dim
    n,  # output elements
    inner, length,  # output elements inside one step of dim; output size along dim
    dim_stride,  # the input's stride along dim
    size1, size2, size3, size4, size5,  # output sizes, right-aligned
    ss0, ss1, ss2, ss3, ss4, ss5,  # input strides with the dim's stride zeroed
    ds0, ds1, ds2, ds3, ds4, ds5,  # output strides
    NDIM: tl.constexpr,
    DST_CONTIGUOUS: tl.constexpr,
    INT64: tl.constexpr,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        idx = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    else:
        idx = pid * BLOCK + tl.arange(0, BLOCK)
    mask = idx < n
    # The coordinate along dim comes from the logical index (collapsing dims for the offsets
    # does not change it); the input's own stride on dim was zeroed so it adds only index[j].
    j = (idx // inner) % length
    row = tl.load(index_ptr + j, mask=mask, other=0)
    src_off = offsets(idx, size1, size2, size3, size4, size5, ss0, ss1, ss2, ss3, ss4, ss5, NDIM) + row * dim_stride
    x = tl.load(src_ptr + src_off, mask=mask)
    if DST_CONTIGUOUS:
        tl.store(dst_ptr + idx, x, mask=mask)
    else:
        dst_off = offsets(idx, size1, size2, size3, size4, size5, ds0, ds1, ds2, ds3, ds4, ds5, NDIM)
        tl.store(dst_ptr + dst_off, x, mask=mask)


@triton.jit
def _segment_sum_kernel(
    dst_ptr, g_ptr, rep_ptr, cum_ptr,  # output (input's shape); gradient; repeats; int64 prefix sums
    n,  # output elements
    inner, nseg,  # output elements inside one step of dim; number of segments (output size on dim)
    g_dim_stride, rep_stride,  # the gradient's stride along dim; stride of repeats
    size1, size2, size3, size4, size5,  # output sizes, right-aligned
    gs0, gs1, gs2, gs3, gs4, gs5,  # gradient strides with the dim's stride zeroed
    ds0, ds1, ds2, ds3, ds4, ds5,  # output strides
    NDIM: tl.constexpr,
    DST_CONTIGUOUS: tl.constexpr,
    ACC_F64: tl.constexpr,  # accumulate in fp64 (fp64 gradients) rather than fp32
    INT64: tl.constexpr,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        idx = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    else:
        idx = pid * BLOCK + tl.arange(0, BLOCK)
    mask = idx < n
    seg = (idx // inner) % nseg
    r = tl.load(rep_ptr + seg * rep_stride, mask=mask, other=0).to(tl.int64)
    start = tl.load(cum_ptr + seg, mask=mask, other=0) - r
    base = offsets(idx, size1, size2, size3, size4, size5, gs0, gs1, gs2, gs3, gs4, gs5, NDIM)
    if ACC_F64:
        acc = tl.zeros([BLOCK], tl.float64)
    else:
        acc = tl.zeros([BLOCK], tl.float32)
    # Each lane sums its own run; the loop runs to the longest run in the block, in order, so
    # the result does not depend on scheduling.
    longest = tl.max(r, 0)  # (int64: one repeat count can pass 2**31 - 1)
    for t in range(0, longest):
        m = mask & (t < r)
        v = tl.load(g_ptr + base + (start + t) * g_dim_stride, mask=m, other=0)
        acc += v.to(acc.dtype)
    y = acc.to(dst_ptr.dtype.element_ty)
    if DST_CONTIGUOUS:
        tl.store(dst_ptr + idx, y, mask=mask)
    else:
        dst_off = offsets(idx, size1, size2, size3, size4, size5, ds0, ds1, ds2, ds3, ds4, ds5, NDIM)
        tl.store(dst_ptr + dst_off, y, mask=mask)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------

CONFIGS = [{"BLOCK": b, "num_warps": w} for b, w in ((256, 4), (1024, 4), (2048, 8))]


def pick_config(n: int) -> dict:
    if INTERPRET:
        return {"BLOCK": 8192 if n > 4096 else 1024, "num_warps": 4}
    return {"BLOCK": 1024, "num_warps": 4} if n < (1 << 22) else {"BLOCK": 2048, "num_warps": 8}


def _repeat_views(out, x, repeats):
    """(dst view, src view) of the interleaved (r0, s0, r1, s1, ...) problem."""
    k = len(repeats)
    if k < len(x.shape):
        raise ValueError(f"repeat: {k} repeats for a {len(x.shape)}-d array")
    pad = k - len(x.shape)
    xs, xst = (1,) * pad + tuple(x.shape), (0,) * pad + tuple(x.strides)
    shape, src, dst = [], [], []
    for r, s, st, o, ost in zip(repeats, xs, xst, out.shape, out.strides):
        if o != r * s:
            raise ValueError(f"repeat: output shape {tuple(out.shape)} is not {list(repeats)} x {xs}")
        shape += [r, s]
        src += [0, st]
        dst += [s * ost, ost]
    return tuple(shape), tuple(dst), tuple(src)


def repeat(out, x, repeats) -> None:
    """``out`` = ``x`` (left-padded with size-1 dims) tiled ``repeats[k]`` times along dim k."""
    shape, dst, src = _repeat_views(out, x, repeats)
    strided_copy(out.view(shape, dst, out.offset), x.view(shape, src, x.offset))


def _interleave_views(out, x, repeats: int, dim: int):
    d = dim
    if out.shape[d] != x.shape[d] * repeats:
        raise ValueError(f"repeat_interleave: output size {out.shape[d]} on dim {d} is not "
                         f"{x.shape[d]} x {repeats}")
    shape = tuple(x.shape[:d + 1]) + (repeats,) + tuple(x.shape[d + 1:])
    src = tuple(x.strides[:d + 1]) + (0,) + tuple(x.strides[d + 1:])
    dst = tuple(out.strides[:d]) + (out.strides[d] * repeats, out.strides[d]) + tuple(out.strides[d + 1:])
    return shape, dst, src


def repeat_interleave(out, x, repeats: int, dim: int) -> None:
    """``out`` = every slice of ``x`` along ``dim`` repeated ``repeats`` times in place."""
    shape, dst, src = _interleave_views(out, x, repeats, dim)
    strided_copy(out.view(shape, dst, out.offset), x.view(shape, src, x.offset))


def _cumsum(repeats):
    """int64 inclusive prefix sums of a 1-D DeviceArray of repeats (device scratch)."""
    n = repeats.shape[0]
    cum = rt.empty((n,), np.int64, repeats.device)
    block = 1024 if INTERPRET else 256
    launch(_cumsum_kernel, (1,), cum, repeats, n, repeats.strides[0], BLOCK=block, num_warps=4)
    return cum


def _segment_index(index, cum, n: int) -> None:
    total = index.shape[0]
    block = 1024
    launch(_segment_index_kernel, (cdiv(total, block),), index, cum, total, n, max(n.bit_length(), 1),
           BLOCK=block, num_warps=4)


def repeat_index(out, repeats) -> None:
    """``out[j]`` = the ``i`` with ``cum[i] - repeats[i] <= j < cum[i]`` (``repeat_interleave(repeats)``)."""
    if out.numel == 0:
        return
    if repeats.shape[0] == 0:
        raise ValueError("repeat_index: no repeats for a non-empty output")
    if not out.is_contiguous():
        raise NotImplementedError("repeat_index: the output must be contiguous")
    _segment_index(out, _cumsum(repeats), repeats.shape[0])


def _dim_layout(out, src, dim: int):
    """Strided pieces over ``out``'s shape: out strides, and ``src``'s strides with ``dim`` zeroed."""
    src_strides = tuple(0 if k == dim else st for k, st in enumerate(src.strides))
    pieces = strided_layout(out.shape, out.strides, src_strides)
    if len(pieces) > 1:
        raise NotImplementedError("repeat_interleave: more than six dims that no stride pattern merges")
    return pieces[0]


def repeat_interleave_tensor(out, x, repeats, dim: int) -> None:
    """``out`` = slice ``i`` of ``x`` along ``dim`` repeated ``repeats[i]`` times (repeats: 1-D ints)."""
    if out.numel == 0:
        return
    length = out.shape[dim]
    index = rt.empty((length,), np.int64, out.device)
    repeat_index(index, repeats)
    inner = int(np.prod(out.shape[dim + 1:]))
    p = _dim_layout(out, x, dim)
    config = pick_config(p.numel)
    launch(
        _gather_dim_kernel, (cdiv(p.numel, config["BLOCK"]),),
        out, x, index, p.numel, inner, length, x.strides[dim], *p.sizes[1:], *p.strides[1], *p.strides[0],
        NDIM=p.ndim, DST_CONTIGUOUS=p.contiguous(0), INT64=needs_int64(out, x), **config,
    )


def segment_sum(out, g, repeats, dim: int) -> None:
    """``out`` slice ``i`` along ``dim`` = the sum of the run of ``repeats[i]`` slices of ``g`` it became."""
    if out.numel == 0:
        return
    nseg = out.shape[dim]
    cum = _cumsum(repeats)
    inner = int(np.prod(out.shape[dim + 1:]))
    p = _dim_layout(out, g, dim)
    config = pick_config(p.numel)
    launch(
        _segment_sum_kernel, (cdiv(p.numel, config["BLOCK"]),),
        out, g, repeats, cum, p.numel, inner, nseg, g.strides[dim], repeats.strides[0],
        *p.sizes[1:], *p.strides[1], *p.strides[0],
        NDIM=p.ndim, DST_CONTIGUOUS=p.contiguous(0), ACC_F64=out.dtype == np.float64,
        INT64=needs_int64(out, g), **config,
    )


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def _np_view(a: np.ndarray, shape, strides) -> np.ndarray:
    isz = a.itemsize
    return np.lib.stride_tricks.as_strided(a, shape=shape, strides=tuple(s * isz for s in strides),
                                           writeable=a.flags.writeable)


def _np_strides(a: np.ndarray) -> tuple:
    return tuple(s // a.itemsize for s in a.strides)


class _Geom:
    """Shape and element strides of a numpy array, as the view helpers read them from DeviceArrays."""

    __slots__ = ("shape", "strides")

    def __init__(self, a: np.ndarray):
        self.shape, self.strides = a.shape, _np_strides(a)


def repeat_twin(out: np.ndarray, x: np.ndarray, repeats) -> None:
    if out.size == 0:
        return
    shape, dst, src = _repeat_views(_Geom(out), _Geom(x), repeats)
    strided_copy_twin(_np_view(out, shape, dst), _np_view(x, shape, src))


def repeat_interleave_twin(out: np.ndarray, x: np.ndarray, repeats: int, dim: int) -> None:
    if out.size == 0:
        return
    shape, dst, src = _interleave_views(_Geom(out), _Geom(x), repeats, dim)
    strided_copy_twin(_np_view(out, shape, dst), _np_view(x, shape, src))


def _index_twin(repeats: np.ndarray, length: int) -> np.ndarray:
    r = repeats.astype(np.int64)
    if r.sum() != length:
        raise ValueError(f"repeat_interleave: sum(repeats) = {int(r.sum())}, but the output size is {length}")
    return np.repeat(np.arange(r.shape[0]), r)


def repeat_index_twin(out: np.ndarray, repeats: np.ndarray) -> None:
    out[...] = _index_twin(repeats, out.shape[0])


def repeat_interleave_tensor_twin(out: np.ndarray, x: np.ndarray, repeats: np.ndarray, dim: int) -> None:
    index = _index_twin(repeats, out.shape[dim])
    strided_copy_twin(out, np.take(x, index, axis=dim))


def segment_sum_twin(out: np.ndarray, g: np.ndarray, repeats: np.ndarray, dim: int) -> None:
    index = _index_twin(repeats, g.shape[dim])
    acc_dtype = np.float64 if out.dtype == np.float64 else np.float32
    acc = np.zeros(out.shape, acc_dtype)
    np.add.at(np.moveaxis(acc, dim, 0), index, np.moveaxis(g.astype(acc_dtype), dim, 0))
    strided_copy_twin(out, acc)
