"""Softmax and log-softmax over one dim, and their backward.

Rows x columns as everywhere in this package: the softmax dim is the column, every other dim
a row (strided reads and writes, no copies; the dim need not be the last one).

Forward. When a row fits in registers (``ONE_TILE``: the whole row is one tile, up to
``MAX_ONE_TILE`` = 32768 elements on a GPU, held by 32 warps as Liger-Kernel and Triton's
fused-softmax tutorial do; 16384 for fp64), one program loads its rows once, takes the row maximum ``m``,
``e = exp(x - m)``, ``s = sum(e)`` and writes ``e / s`` (or ``x - m - log(s)``): one read and one
write of the data, which is what makes softmax memory-bound at copy speed. Longer rows use the
online-softmax recurrence (Milakov & Gimelshein): a first pass keeps a running maximum and
rescales the running sum when the maximum grows, a second pass writes the result: two reads,
one write. fp16/bf16 compute in fp32, fp64 in fp64.

Special values, as PyTorch: a row of all ``-inf`` has no finite maximum; shifting by 0 instead
gives ``0 / 0 = nan`` (softmax) and ``-inf - -inf = nan`` (log-softmax), PyTorch's results. A
``+inf`` or NaN makes the row NaN.

Backward (``_softmax_backward_data`` in PyTorch's terms), from the forward's output ``y`` and the
incoming gradient ``g``: softmax ``y * (g - sum(g * y))``, log-softmax ``g - exp(y) * sum(g)``;
the same one-tile / two-pass structure, with a one-tile limit of ``MAX_ONE_TILE_BACKWARD`` =
16384 elements on a GPU, as it holds two tiles (``g`` and ``y``) in registers.

Layout of this file: kernels, launchers, numpy twins.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from ..copy import strided_copy
from ..launch import INTERPRET, cdiv, launch, loop_needs_int64, needs_int64
from .common import (
    cast_to,
    column_tile,
    contiguous_stand_in,
    dim_offsets,
    first_column,
    float_acc,
    host_cast,
    max_shift,
    next_pow2,
    row_layout,
    tl_dtype,
)

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _softmax_kernel(
    out_ptr, in_ptr,
    n_rows, n_cols,
    ks1, ks2, ks3, ks4, ks5,  # row (kept) sizes, dim 5 innermost
    is0, is1, is2, is3, is4, is5,  # input strides of the row dims
    os0, os1, os2, os3, os4, os5,  # output strides of the row dims
    in_col_stride, out_col_stride,  # strides of the softmax dim
    LOG: tl.constexpr, CONVERT: tl.constexpr, COMPUTE: tl.constexpr, ACC: tl.constexpr,
    KEPT_NDIM: tl.constexpr, ONE_TILE: tl.constexpr, INT64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        rows = pid.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    else:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    in_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, is0, is1, is2, is3, is4, is5, KEPT_NDIM)
    out_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, os0, os1, os2, os3, os4, os5, KEPT_NDIM)
    out_ty = out_ptr.dtype.element_ty

    if ONE_TILE:
        cols = column_tile(0, BLOCK_N, INT64)
        mask = row_mask[:, None] & (cols < n_cols)[None, :]
        x = tl.load(in_ptr + in_row[:, None] + cols[None, :] * in_col_stride, mask=mask, other=0)
        if CONVERT:
            x = cast_to(x, COMPUTE)
        x = tl.where(mask, x.to(ACC), float("-inf"))
        shift = max_shift(tl.max(x, axis=1))
        e = tl.exp(x - shift[:, None])
        s = tl.sum(e, axis=1)
        if LOG:
            y = (x - shift[:, None]) - tl.log(s)[:, None]  # x - shift first: exact, no cancellation
        else:
            y = e / s[:, None]
        tl.store(out_ptr + out_row[:, None] + cols[None, :] * out_col_stride, cast_to(y, out_ty), mask=mask)
    else:
        # pass 1: running maximum m and s = sum(exp(x - shift(m))), rescaled when m grows
        m = tl.full([BLOCK_M], float("-inf"), ACC)
        s = tl.zeros([BLOCK_M], ACC)
        for start in range(first_column(INT64), n_cols, BLOCK_N):
            cols = column_tile(start, BLOCK_N, INT64)
            mask = row_mask[:, None] & (cols < n_cols)[None, :]
            x = tl.load(in_ptr + in_row[:, None] + cols[None, :] * in_col_stride, mask=mask, other=0)
            if CONVERT:
                x = cast_to(x, COMPUTE)
            x = tl.where(mask, x.to(ACC), float("-inf"))
            m_new = tl.maximum(m, tl.max(x, axis=1))
            # rescale s to the new shift; nothing seen yet (m = -inf, s = 0) must stay 0, not 0 * inf
            scale = tl.where(m == float("-inf"), 0.0, tl.exp(max_shift(m) - max_shift(m_new)))
            s = s * scale + tl.sum(tl.exp(x - max_shift(m_new)[:, None]), axis=1)
            m = m_new
        shift = max_shift(m)
        log_s = tl.log(s)
        # pass 2: normalise and write
        for start in range(first_column(INT64), n_cols, BLOCK_N):
            cols = column_tile(start, BLOCK_N, INT64)
            mask = row_mask[:, None] & (cols < n_cols)[None, :]
            x = tl.load(in_ptr + in_row[:, None] + cols[None, :] * in_col_stride, mask=mask, other=0)
            if CONVERT:
                x = cast_to(x, COMPUTE)
            x = x.to(ACC)
            if LOG:
                y = (x - shift[:, None]) - log_s[:, None]
            else:
                y = tl.exp(x - shift[:, None]) / s[:, None]
            tl.store(out_ptr + out_row[:, None] + cols[None, :] * out_col_stride, cast_to(y, out_ty), mask=mask)


@triton.jit
def _softmax_backward_kernel(
    gin_ptr, g_ptr, y_ptr,  # output: input gradient; incoming gradient; the forward's output
    n_rows, n_cols,
    ks1, ks2, ks3, ks4, ks5,  # row sizes
    gs0, gs1, gs2, gs3, gs4, gs5,  # strides of g's row dims
    ys0, ys1, ys2, ys3, ys4, ys5,  # strides of y's row dims
    os0, os1, os2, os3, os4, os5,  # strides of the output's row dims
    g_col_stride, y_col_stride, out_col_stride,
    LOG: tl.constexpr, ACC: tl.constexpr, KEPT_NDIM: tl.constexpr, ONE_TILE: tl.constexpr, INT64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        rows = pid.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    else:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    g_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, gs0, gs1, gs2, gs3, gs4, gs5, KEPT_NDIM)
    y_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, ys0, ys1, ys2, ys3, ys4, ys5, KEPT_NDIM)
    out_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, os0, os1, os2, os3, os4, os5, KEPT_NDIM)
    out_ty = gin_ptr.dtype.element_ty

    if ONE_TILE:
        cols = column_tile(0, BLOCK_N, INT64)
        mask = row_mask[:, None] & (cols < n_cols)[None, :]
        g = tl.load(g_ptr + g_row[:, None] + cols[None, :] * g_col_stride, mask=mask, other=0).to(ACC)
        y = tl.load(y_ptr + y_row[:, None] + cols[None, :] * y_col_stride, mask=mask, other=0).to(ACC)
        if LOG:
            gin = g - tl.exp(y) * tl.sum(g, axis=1)[:, None]
        else:
            gin = y * (g - tl.sum(g * y, axis=1)[:, None])
        tl.store(gin_ptr + out_row[:, None] + cols[None, :] * out_col_stride, cast_to(gin, out_ty), mask=mask)
    else:
        acc = tl.zeros([BLOCK_M, BLOCK_N], ACC)
        for start in range(first_column(INT64), n_cols, BLOCK_N):
            cols = column_tile(start, BLOCK_N, INT64)
            mask = row_mask[:, None] & (cols < n_cols)[None, :]
            g = tl.load(g_ptr + g_row[:, None] + cols[None, :] * g_col_stride, mask=mask, other=0).to(ACC)
            if LOG:
                acc += g
            else:
                y = tl.load(y_ptr + y_row[:, None] + cols[None, :] * y_col_stride, mask=mask, other=0).to(ACC)
                acc += g * y
        s = tl.sum(acc, axis=1)[:, None]
        for start in range(first_column(INT64), n_cols, BLOCK_N):
            cols = column_tile(start, BLOCK_N, INT64)
            mask = row_mask[:, None] & (cols < n_cols)[None, :]
            g = tl.load(g_ptr + g_row[:, None] + cols[None, :] * g_col_stride, mask=mask, other=0).to(ACC)
            y = tl.load(y_ptr + y_row[:, None] + cols[None, :] * y_col_stride, mask=mask, other=0).to(ACC)
            if LOG:
                gin = g - tl.exp(y) * s
            else:
                gin = y * (g - s)
            tl.store(gin_ptr + out_row[:, None] + cols[None, :] * out_col_stride, cast_to(gin, out_ty), mask=mask)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------

# Elements of a row tile kept in registers: the forward holds one tile (x, then e), the backward
# two (g and y), so it keeps half the forward's limit on a GPU. The interpreter takes big tiles.
MAX_ONE_TILE = 65536 if INTERPRET else 32768
MAX_ONE_TILE_BACKWARD = 65536 if INTERPRET else 16384


def pick_config(n_rows: int, n_cols: int, row_stride: int, col_stride: int, max_one_tile: int | None = None) -> dict:
    """One tile per row when it fits in ``max_one_tile`` elements (default ``MAX_ONE_TILE``, the
    forward's; several short rows per program); else a looped tile."""
    if max_one_tile is None:
        max_one_tile = MAX_ONE_TILE
    rows_contiguous = row_stride == 1 and col_stride != 1 and n_rows > 1
    min_m = min(next_pow2(n_rows), 16) if rows_contiguous else 1  # >= 16 rows wide for coalesced loads
    block_n = next_pow2(max(n_cols, 1))
    one_tile = block_n * min_m <= max_one_tile
    if one_tile:
        target = max_one_tile if INTERPRET else 4096  # elements per program for short rows
        block_m = max(min_m, min(next_pow2(n_rows), max(1, target // block_n)))
    elif rows_contiguous:
        block_m, block_n = min(next_pow2(n_rows), 64), 64
    else:
        block_m, block_n = 1, (max_one_tile if INTERPRET else 4096)
    tile = block_m * block_n
    num_warps = 4 if tile <= 2048 else 8 if tile <= 8192 else 16 if tile <= 16384 else 32
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "ONE_TILE": one_tile, "num_warps": num_warps}


def _layout(shape, dim, *strides):
    if len(shape) == 0:  # a 0-d tensor: one row of one column
        return row_layout((1,), (0,), [(0,)] * len(strides), [(1,)] * len(strides)), [1] * len(strides)
    lay = row_layout(shape, (dim,), [tuple(s) for s in strides], [tuple(s) for s in strides])
    return lay, [s[dim] for s in strides]


def softmax(out, inp, *, dim: int, log: bool = False, compute=None) -> None:
    """``out`` = softmax (``log``: log-softmax) of ``inp`` over ``dim``; ``compute``: convert the
    input to this floating dtype first (PyTorch's ``dtype=``)."""
    if out.numel == 0:
        return
    compute = None if compute is None or np.dtype(compute) == inp.dtype else np.dtype(compute)
    acc = float_acc(compute if compute is not None else inp.dtype)
    lay, col_strides = _layout(inp.shape, dim, inp.strides, out.strides)
    if lay is None:  # more than six non-mergeable dims besides dim: through contiguous arrays
        c_out = contiguous_stand_in(out, False)
        softmax(c_out, contiguous_stand_in(inp, True), dim=dim, log=log, compute=compute)
        strided_copy(out, c_out)
        return
    # an fp64 tile takes the registers of two fp32 ones: it keeps the two-tile limit (at 32768 it spills)
    limit = MAX_ONE_TILE if acc.itemsize <= 4 else MAX_ONE_TILE_BACKWARD
    cfg = pick_config(lay.n_rows, lay.n_cols, lay.kept_strides[0][-1], col_strides[0], limit)
    launch(
        _softmax_kernel, (cdiv(lay.n_rows, cfg["BLOCK_M"]),),
        out, inp, lay.n_rows, lay.n_cols, *lay.kept_sizes[1:], *lay.kept_strides[0], *lay.kept_strides[1],
        *col_strides,
        LOG=log, CONVERT=compute is not None, COMPUTE=tl_dtype(compute if compute is not None else acc),
        ACC=tl_dtype(acc), KEPT_NDIM=lay.kept_ndim,
        INT64=needs_int64(out, inp) or loop_needs_int64(lay.n_cols, cfg["BLOCK_N"]), **cfg,
    )


def softmax_backward(grad_input, grad, output, *, dim: int, log: bool = False) -> None:
    """``grad_input`` from the incoming ``grad`` and the forward's ``output`` (all one shape)."""
    if grad_input.numel == 0:
        return
    acc = float_acc(grad_input.dtype)
    lay, col_strides = _layout(grad.shape, dim, grad.strides, output.strides, grad_input.strides)
    if lay is None:  # more than six non-mergeable dims besides dim: through contiguous arrays
        c_grad_input = contiguous_stand_in(grad_input, False)
        softmax_backward(c_grad_input, contiguous_stand_in(grad, True), contiguous_stand_in(output, True), dim=dim,
                         log=log)
        strided_copy(grad_input, c_grad_input)
        return
    cfg = pick_config(lay.n_rows, lay.n_cols, lay.kept_strides[0][-1], col_strides[0], MAX_ONE_TILE_BACKWARD)
    launch(
        _softmax_backward_kernel, (cdiv(lay.n_rows, cfg["BLOCK_M"]),),
        grad_input, grad, output, lay.n_rows, lay.n_cols, *lay.kept_sizes[1:], *lay.kept_strides[0],
        *lay.kept_strides[1], *lay.kept_strides[2], *col_strides,
        LOG=log, ACC=tl_dtype(acc), KEPT_NDIM=lay.kept_ndim,
        INT64=needs_int64(grad_input, grad, output) or loop_needs_int64(lay.n_cols, cfg["BLOCK_N"]), **cfg,
    )


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def softmax_twin(out, inp, *, dim: int, log: bool = False, compute=None) -> None:
    x = host_cast(inp, compute) if compute is not None else inp
    acc = float_acc(x.dtype)
    x = x.astype(acc)
    with np.errstate(all="ignore"):
        if x.ndim == 0:
            m = x
            shift = np.where(m == -np.inf, acc.type(0), m)
            e = np.exp(x - shift)
            s = e
        else:
            m = x.max(axis=dim, keepdims=True) if x.shape[dim] else np.zeros_like(x.sum(axis=dim, keepdims=True))
            shift = np.where(m == -np.inf, acc.type(0), m)
            e = np.exp(x - shift)
            s = e.sum(axis=dim, keepdims=True, dtype=np.float64).astype(acc)  # (float64: see the backward's)
        y = (x - shift) - np.log(s) if log else e / s
    out[...] = host_cast(np.asarray(y), out.dtype)


def softmax_backward_twin(grad_input, grad, output, *, dim: int, log: bool = False) -> None:
    acc = float_acc(grad_input.dtype)
    g, y = grad.astype(acc), output.astype(acc)
    axis = dim if g.ndim else None
    with np.errstate(all="ignore"):
        # (the row sums in float64: numpy adds along a strided axis one element after another, which
        # lost digits of a long float32 row: a 33000-element transposed row's gradient was off by 4e-5
        # relative, the kernel's tree sum by 3e-7)
        if log:
            gin = g - np.exp(y) * g.sum(axis=axis, keepdims=True, dtype=np.float64).astype(acc)
        else:
            gin = y * (g - (g * y).sum(axis=axis, keepdims=True, dtype=np.float64).astype(acc))
    grad_input[...] = host_cast(np.asarray(gin), grad_input.dtype)
