"""Reductions that return an index: ``max``/``min`` over a dim (values and indices), ``argmax``, ``argmin``.

Same rows x columns reading as ``reduce.py`` (strided, no copies), but the reduced dims keep
their logical order, because the index is the position in the (flattened) reduced dims.

PyTorch's choice among equal candidates: the first index wins; NaN beats every number (``max``
and ``min`` propagate NaN), and among NaNs the first wins. Each tile lane keeps its best
(value, index); since a lane sees increasing indices, a strict comparison keeps the first. At
the end the lanes are folded with built-in reductions: the extreme value, then the smallest index
holding it (or the smallest NaN index), so the result does not depend on the tree's shape.

Long rows with few of them are split into segments (like ``reduce.py``): the first launch
writes (value, index) partials, a second launch of the same kernel reads them back
(``HAS_IN_IDX``) and picks the winner. Layout of this file: kernel, launcher, numpy twin.
"""

from __future__ import annotations

import math

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..launch import cdiv, launch, loop_needs_int64, needs_int64
from . import common
from .common import (
    RowLayout,
    cast_to,
    dim_offsets,
    float_acc,
    host_float,
    is_float,
    out_strides,
    row_layout,
    split_config,
    tile_config,
    tl_dtype,
)

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _b_wins(a, ia, b, ib, IS_MAX: tl.constexpr):
    """True where candidate (b, ib) ranks above (a, ia)."""
    if IS_MAX:
        beats = b > a
    else:
        beats = b < a
    b_nan = b != b
    a_nan = a != a
    same = (b == a) | (b_nan & a_nan)
    ranks = beats | (b_nan & ~a_nan) | (same & (ib < ia))
    return (ia == 9223372036854775807) | ((ib != 9223372036854775807) & ranks)


@triton.jit
def _fold_lanes(best, best_i, IS_MAX: tl.constexpr, WORST: tl.constexpr):
    """The winning (value, index) of each row from its lanes, with built-in reductions only (a
    custom ``tl.reduce`` combine runs element by element in the interpreter): a NaN lane wins with
    its smallest index; otherwise the extreme value, with the smallest index holding it."""
    valid = best_i != 9223372036854775807
    is_nan = valid & (best != best)
    plain = tl.where(valid & ~is_nan, best, WORST)
    if IS_MAX:
        v = tl.max(plain, axis=1)
    else:
        v = tl.min(plain, axis=1)
    i = tl.min(tl.where(valid & ~is_nan & (plain == v[:, None]), best_i, 9223372036854775807), axis=1)
    if best.dtype.is_floating():
        has_nan = tl.max(is_nan.to(tl.int32), axis=1) > 0
        v = tl.where(has_nan, float("nan"), v)
        i = tl.where(has_nan, tl.min(tl.where(is_nan, best_i, 9223372036854775807), axis=1), i)
    return v, i


@triton.jit
def _argreduce_kernel(
    val_ptr, idx_ptr,  # outputs (values are not written unless HAS_VALUES)
    in_ptr, in_idx_ptr,  # input values; input indices (partials of a split; read when HAS_IN_IDX)
    n_rows, n_cols, seg_len,
    ks1, ks2, ks3, ks4, ks5,  # kept (row) sizes, dim 5 innermost
    is0, is1, is2, is3, is4, is5,  # input strides of the kept dims (also those of in_idx)
    vs0, vs1, vs2, vs3, vs4, vs5,  # values-output strides of the kept dims
    xs0, xs1, xs2, xs3, xs4, xs5,  # indices-output strides of the kept dims
    rs1, rs2, rs3, rs4, rs5,  # reduced (column) sizes
    rt0, rt1, rt2, rt3, rt4, rt5,  # input strides of the reduced dims
    IS_MAX: tl.constexpr, WORST: tl.constexpr, HAS_VALUES: tl.constexpr, HAS_IN_IDX: tl.constexpr, ACC: tl.constexpr,
    KEPT_NDIM: tl.constexpr, RED_NDIM: tl.constexpr, INT64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    seg = tl.program_id(1).to(tl.int64)
    if INT64:
        rows = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    else:
        rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    row_off = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, is0, is1, is2, is3, is4, is5, KEPT_NDIM)
    col_lo = seg * seg_len
    col_hi = tl.minimum(col_lo + seg_len, n_cols)

    best = tl.zeros([BLOCK_M, BLOCK_N], ACC)
    best_i = tl.full([BLOCK_M, BLOCK_N], 9223372036854775807, tl.int64)
    for start in range(col_lo, col_hi, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N).to(tl.int64)
        col_off = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, rt0, rt1, rt2, rt3, rt4, rt5, RED_NDIM)
        mask = row_mask[:, None] & (cols < col_hi)[None, :]
        ptr_off = row_off[:, None] + col_off[None, :]
        x = tl.load(in_ptr + ptr_off, mask=mask, other=0).to(ACC)
        if HAS_IN_IDX:
            xi = tl.load(in_idx_ptr + ptr_off, mask=mask, other=0)
        else:
            xi = tl.broadcast_to(cols[None, :], [BLOCK_M, BLOCK_N])
        take = mask & _b_wins(best, best_i, x, xi, IS_MAX)
        best = tl.where(take, x, best)
        best_i = tl.where(take, xi, best_i)
    v, i = _fold_lanes(best, best_i, IS_MAX, WORST)

    # the partials of a split are (rows, segments) arrays: the segment is the innermost index
    idx_off = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, xs0, xs1, xs2, xs3, xs4, xs5, KEPT_NDIM)
    tl.store(idx_ptr + idx_off + seg, i, mask=row_mask)
    if HAS_VALUES:
        val_off = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, vs0, vs1, vs2, vs3, vs4, vs5, KEPT_NDIM)
        tl.store(val_ptr + val_off + seg, cast_to(v, val_ptr.dtype.element_ty), mask=row_mask)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def _acc(dtype: np.dtype) -> np.dtype:
    # exact for every dtype: fp16/bf16 widen to fp32 (no 16-bit compares in the interpreter),
    # integers and bools to int64
    return float_acc(dtype) if is_float(dtype) else np.dtype(np.int64)


def _worst(acc: np.dtype, is_max: bool):
    """A value no candidate loses to (-inf for max, the integer minimum, ...)."""
    if acc.kind == "f":
        return float("-inf") if is_max else float("inf")
    return int(np.iinfo(acc).min) if is_max else int(np.iinfo(acc).max)


def _launch(values, indices, inp, in_idx, lay: RowLayout, *, is_max, acc, segments, seg_len, cfg):
    k, r = lay.kept_sizes, lay.red_sizes
    launch(
        _argreduce_kernel, (cdiv(lay.n_rows, cfg["BLOCK_M"]), segments),
        values if values is not None else indices, indices, inp, in_idx if in_idx is not None else inp,
        lay.n_rows, lay.n_cols, seg_len,
        *k[1:], *lay.kept_strides[0], *lay.kept_strides[1], *lay.kept_strides[2], *r[1:], *lay.red_strides[0],
        IS_MAX=is_max, WORST=_worst(acc, is_max), HAS_VALUES=values is not None, HAS_IN_IDX=in_idx is not None,
        ACC=tl_dtype(acc), KEPT_NDIM=lay.kept_ndim, RED_NDIM=lay.red_ndim,
        INT64=needs_int64(inp, indices, values) or loop_needs_int64(segments * seg_len, cfg["BLOCK_N"]), **cfg,
    )


def _argreduce(values, indices, inp, dims, is_max: bool, segments=None) -> None:
    if indices.numel == 0:
        return
    if math.prod(inp.shape[d] for d in dims) == 0:
        raise ValueError("argreduce: cannot reduce an empty dim (max/argmax have no identity)")
    dims = tuple(sorted(set(dims)))
    acc = _acc(inp.dtype)
    vstrides = out_strides(values, inp, dims) if values is not None else [0] * inp.ndim
    lay = row_layout(inp.shape, dims, [inp.strides, vstrides, out_strides(indices, inp, dims)], [inp.strides],
                     sort_reduced=False)
    if lay is None:
        # more than six non-mergeable dims in a group: one explicit copy to (rows, cols) first
        src, _ = common.permuted_copy(inp, dims)
        from ..copy import strided_copy

        tmp_i = rt.empty((src.shape[0],), np.int64, indices.device)
        tmp_v = rt.empty((src.shape[0],), values.dtype, indices.device) if values is not None else None
        _argreduce(tmp_v, tmp_i, src, (1,), is_max, segments)
        strided_copy(indices, tmp_i.view(indices.shape, rt.contiguous_strides(indices.shape)))
        if values is not None:
            strided_copy(values, tmp_v.view(values.shape, rt.contiguous_strides(values.shape)))
        return
    cfg = tile_config(lay.n_rows, lay.n_cols, lay.kept_strides[0][-1], lay.red_strides[0][-1], inp.itemsize)
    force = segments if segments is not None else common.FORCE_SEGMENTS
    nseg, seg_len = split_config(lay.n_rows, lay.n_cols, cfg["BLOCK_M"], cfg["BLOCK_N"], indices.device, force)
    if nseg == 1:
        _launch(values, indices, inp, None, lay, is_max=is_max, acc=acc, segments=1, seg_len=lay.n_cols, cfg=cfg)
        return
    # two passes: (value, index) partials per (row, segment), then one launch picks the winners
    pv = rt.empty((lay.n_rows, nseg), acc, indices.device)
    pi = rt.empty((lay.n_rows, nseg), np.int64, indices.device)
    pstrides = tuple(s * nseg for s in rt.contiguous_strides(lay.kept_shape))
    stage1 = RowLayout(lay.kept_shape, [lay.kept_real[0], pstrides, pstrides], lay.red_shape, [lay.red_real[0]])
    _launch(pv, pi, inp, None, stage1, is_max=is_max, acc=acc, segments=nseg, seg_len=seg_len, cfg=cfg)
    stage2 = RowLayout(lay.kept_shape, [pstrides, lay.kept_real[1], lay.kept_real[2]], (nseg,), [(1,)])
    cfg2 = tile_config(stage2.n_rows, nseg, nseg, 1, 8)
    _launch(values, indices, pv, pi, stage2, is_max=is_max, acc=acc, segments=1, seg_len=nseg, cfg=cfg2)


def max_min_dim(values, indices, inp, *, dim: int, is_max: bool, segments: int | None = None) -> None:
    """``values, indices`` = max (``is_max``) or min of ``inp`` over ``dim`` (DeviceArrays)."""
    _argreduce(values, indices, inp, (dim,) if inp.ndim else (), is_max, segments)


def arg_max_min(indices, inp, *, dims, is_max: bool, segments: int | None = None) -> None:
    """``indices`` = argmax/argmin of ``inp`` over ``dims`` (one dim, or all dims = the flat index)."""
    _argreduce(None, indices, inp, dims, is_max, segments)


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def _twin(values, indices, inp, dims, is_max):
    dims = tuple(sorted(set(dims)))
    if math.prod(inp.shape[d] for d in dims) == 0:
        raise ValueError("argreduce: cannot reduce an empty dim (max/argmax have no identity)")
    x = inp.astype(host_float(inp.dtype)) if is_float(inp.dtype) else inp
    kept = [d for d in range(inp.ndim) if d not in dims]
    n = math.prod(inp.shape[d] for d in dims)
    moved = np.transpose(x, kept + list(dims)).reshape([inp.shape[d] for d in kept] + [n])
    # np.argmax/argmin: the first occurrence wins and NaN counts as the extreme, as in PyTorch
    idx = np.argmax(moved, axis=-1) if is_max else np.argmin(moved, axis=-1)
    indices[...] = idx.reshape(indices.shape)
    if values is not None:
        v = np.take_along_axis(moved, idx[..., None], axis=-1)[..., 0]
        values[...] = v.astype(values.dtype).reshape(values.shape)


def max_min_dim_twin(values, indices, inp, *, dim: int, is_max: bool, segments: int | None = None) -> None:
    _twin(values, indices, inp, (dim,) if inp.ndim else (), is_max)


def arg_max_min_twin(indices, inp, *, dims, is_max: bool, segments: int | None = None) -> None:
    _twin(None, indices, inp, dims, is_max)
