"""LayerNorm and RMSNorm, forward and backward, fused: one pass over each row.

Both normalise each row of the input over its trailing ``normalized_shape`` dims (the
*columns*; every leading dim is a *row*, as in the reduction kernels' rows x columns view):

    LayerNorm:  y = (x - mean) * rstd * w + b,   rstd = 1 / sqrt(var + eps)   (biased var)
    RMSNorm:    y = x * rstd * w,                rstd = 1 / sqrt(mean(x^2) + eps)

RMSNorm is LayerNorm without the centring and the bias, so one kernel does both (``RMS``, a
compile-time flag) and the two launchers below share it.

Forward. A program takes ``BLOCK_M`` rows; when a row fits in registers (``ONE_TILE``) it is
loaded once, the statistics come from the registers (two-pass mean/variance on the loaded
tile, so no catastrophic cancellation of ``E[x^2] - E[x]^2``) and ``y`` is written: one read,
one write. Longer rows loop over column chunks (three reads for LayerNorm: mean, variance,
normalise). Statistics are fp32 (fp64 for fp64 inputs); ``mean`` and ``rstd`` are saved per
row for the backward (PyTorch saves the same pair).

Backward, from ``dy`` and the saved ``mean``/``rstd`` (``xhat = (x - mean) * rstd``,
``g = dy * w``, ``N`` columns):

    LayerNorm:  dx = rstd * (g - mean(g) - xhat * mean(g * xhat))
    RMSNorm:    dx = rstd * (g - xhat * mean(g * xhat))
    dw = sum over rows of dy * xhat,   db = sum over rows of dy

``dx`` is per row. ``dw``/``db`` are sums over all rows: each program walks its share of the
row blocks and keeps its partial sums in registers (or, for long rows, in its own row of a
scratch buffer), writes one partial row per program, and a second small kernel sums the
partials column by column. Every sum has a fixed order, so results are deterministic — no
float atomics.

Inputs are read through their strides (rows and columns each collapsed to at most six dims,
``reduction.common.row_layout``); outputs (``y``, ``dx``, the statistics, ``dw``/``db``) are
contiguous, as the dispatcher allocates them. ``eps`` travels as fp64 bits (exact in the
interpreter and on the GPU alike).

Layout of this file: kernels, launchers, numpy twins.
"""

from __future__ import annotations

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..fill import fill, float64_bits
from ..launch import INTERPRET, cdiv, launch, loop_needs_int64, needs_int64
from ..reduction.common import (
    cast_to,
    column_tile,
    dim_offsets,
    first_column,
    float_acc,
    host_cast,
    next_pow2,
    row_layout,
    sm_count,
    sqrt_rn,
)
from ..reduction.common import tl_dtype as _tl_dtype

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _norm_forward_kernel(
    y_ptr, mean_ptr, rstd_ptr,  # outputs: y (contiguous, rows x cols), per-row mean (LayerNorm) and rstd
    x_ptr, w_ptr, b_ptr,  # input; weight and bias over the columns (unused without HAS_W / HAS_B)
    n_rows, n_cols,
    eps_bits: tl.int64,  # eps as the bits of an fp64
    ks1, ks2, ks3, ks4, ks5,  # row sizes (dim 5 innermost; dim 0's size is never needed)
    xk0, xk1, xk2, xk3, xk4, xk5,  # x strides of the row dims
    rs1, rs2, rs3, rs4, rs5,  # column sizes
    xr0, xr1, xr2, xr3, xr4, xr5,  # x strides of the column dims
    wr0, wr1, wr2, wr3, wr4, wr5,  # weight strides of the column dims
    br0, br1, br2, br3, br4, br5,  # bias strides of the column dims
    RMS: tl.constexpr, HAS_W: tl.constexpr, HAS_B: tl.constexpr, ACC: tl.constexpr,
    KEPT_NDIM: tl.constexpr, RED_NDIM: tl.constexpr, ONE_TILE: tl.constexpr, INT64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        rows = pid.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    else:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    x_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, xk0, xk1, xk2, xk3, xk4, xk5, KEPT_NDIM)
    y_row = rows * n_cols  # y is contiguous
    eps = tl.cast(eps_bits, tl.int64).to(tl.float64, bitcast=True).to(ACC)
    y_ty = y_ptr.dtype.element_ty

    if ONE_TILE:
        cols = column_tile(0, BLOCK_N, INT64)
        col_mask = cols < n_cols
        mask = row_mask[:, None] & col_mask[None, :]
        x_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, xr0, xr1, xr2, xr3, xr4, xr5, RED_NDIM)
        x = tl.load(x_ptr + x_row[:, None] + x_col[None, :], mask=mask, other=0).to(ACC)
        if RMS:
            rstd = 1.0 / sqrt_rn(tl.sum(x * x, axis=1) / n_cols + eps)
            xhat = x * rstd[:, None]
        else:
            mean = tl.sum(x, axis=1) / n_cols
            xc = tl.where(mask, x - mean[:, None], 0.0)  # masked columns must not enter the variance
            rstd = 1.0 / sqrt_rn(tl.sum(xc * xc, axis=1) / n_cols + eps)
            xhat = xc * rstd[:, None]
            tl.store(mean_ptr + rows, mean, mask=row_mask)
        tl.store(rstd_ptr + rows, rstd, mask=row_mask)
        y = xhat
        if HAS_W:
            w_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, wr0, wr1, wr2, wr3, wr4, wr5, RED_NDIM)
            y = y * tl.load(w_ptr + w_col, mask=col_mask, other=0).to(ACC)[None, :]
        if HAS_B:
            b_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, br0, br1, br2, br3, br4, br5, RED_NDIM)
            y = y + tl.load(b_ptr + b_col, mask=col_mask, other=0).to(ACC)[None, :]
        tl.store(y_ptr + y_row[:, None] + cols[None, :], cast_to(y, y_ty), mask=mask)
    else:
        # Rows too long for registers: one pass per statistic, then a pass that writes.
        acc = tl.zeros([BLOCK_M, BLOCK_N], ACC)
        for start in range(first_column(INT64), n_cols, BLOCK_N):
            cols = column_tile(start, BLOCK_N, INT64)
            mask = row_mask[:, None] & (cols < n_cols)[None, :]
            x_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, xr0, xr1, xr2, xr3, xr4, xr5, RED_NDIM)
            x = tl.load(x_ptr + x_row[:, None] + x_col[None, :], mask=mask, other=0).to(ACC)
            if RMS:
                acc += x * x
            else:
                acc += x
        if RMS:
            mean = tl.zeros([BLOCK_M], ACC)
            rstd = 1.0 / sqrt_rn(tl.sum(acc, axis=1) / n_cols + eps)
        else:
            mean = tl.sum(acc, axis=1) / n_cols
            acc = tl.zeros([BLOCK_M, BLOCK_N], ACC)
            for start in range(first_column(INT64), n_cols, BLOCK_N):
                cols = column_tile(start, BLOCK_N, INT64)
                mask = row_mask[:, None] & (cols < n_cols)[None, :]
                x_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, xr0, xr1, xr2, xr3, xr4, xr5, RED_NDIM)
                x = tl.load(x_ptr + x_row[:, None] + x_col[None, :], mask=mask, other=0).to(ACC)
                xc = tl.where(mask, x - mean[:, None], 0.0)
                acc += xc * xc
            rstd = 1.0 / sqrt_rn(tl.sum(acc, axis=1) / n_cols + eps)
            tl.store(mean_ptr + rows, mean, mask=row_mask)
        tl.store(rstd_ptr + rows, rstd, mask=row_mask)
        for start in range(first_column(INT64), n_cols, BLOCK_N):
            cols = column_tile(start, BLOCK_N, INT64)
            col_mask = cols < n_cols
            mask = row_mask[:, None] & col_mask[None, :]
            x_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, xr0, xr1, xr2, xr3, xr4, xr5, RED_NDIM)
            x = tl.load(x_ptr + x_row[:, None] + x_col[None, :], mask=mask, other=0).to(ACC)
            y = (x - mean[:, None]) * rstd[:, None]
            if HAS_W:
                w_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, wr0, wr1, wr2, wr3, wr4, wr5, RED_NDIM)
                y = y * tl.load(w_ptr + w_col, mask=col_mask, other=0).to(ACC)[None, :]
            if HAS_B:
                b_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, br0, br1, br2, br3, br4, br5, RED_NDIM)
                y = y + tl.load(b_ptr + b_col, mask=col_mask, other=0).to(ACC)[None, :]
            tl.store(y_ptr + y_row[:, None] + cols[None, :], cast_to(y, y_ty), mask=mask)


@triton.jit
def _norm_backward_kernel(
    dx_ptr, dw_part_ptr, db_part_ptr,  # outputs: dx (contiguous); per-program partial dw/db rows (n_progs x cols)
    dy_ptr, x_ptr, w_ptr, mean_ptr, rstd_ptr,  # incoming gradient, input, weight, saved statistics
    n_rows, n_cols, n_row_blocks, n_progs,
    ks1, ks2, ks3, ks4, ks5,  # row sizes
    gk0, gk1, gk2, gk3, gk4, gk5,  # dy strides of the row dims
    xk0, xk1, xk2, xk3, xk4, xk5,  # x strides of the row dims
    rs1, rs2, rs3, rs4, rs5,  # column sizes
    gr0, gr1, gr2, gr3, gr4, gr5,  # dy strides of the column dims
    xr0, xr1, xr2, xr3, xr4, xr5,  # x strides of the column dims
    wr0, wr1, wr2, wr3, wr4, wr5,  # weight strides of the column dims
    RMS: tl.constexpr, HAS_W: tl.constexpr, DX: tl.constexpr, DW: tl.constexpr, DB: tl.constexpr,
    ACC: tl.constexpr, KEPT_NDIM: tl.constexpr, RED_NDIM: tl.constexpr, ONE_TILE: tl.constexpr,
    INT64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    dx_ty = dx_ptr.dtype.element_ty
    part_row = pid.to(tl.int64) * n_cols  # this program's row of the partial-sum buffers

    if ONE_TILE:
        cols = column_tile(0, BLOCK_N, INT64)
        col_mask = cols < n_cols
        g_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, gr0, gr1, gr2, gr3, gr4, gr5, RED_NDIM)
        x_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, xr0, xr1, xr2, xr3, xr4, xr5, RED_NDIM)
        if HAS_W:
            w_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, wr0, wr1, wr2, wr3, wr4, wr5, RED_NDIM)
            w = tl.load(w_ptr + w_col, mask=col_mask, other=0).to(ACC)
        dw_acc = tl.zeros([BLOCK_M, BLOCK_N], ACC)
        db_acc = tl.zeros([BLOCK_M, BLOCK_N], ACC)
        # Row blocks pid, pid + n_progs, ...: the partial sums stay in registers throughout.
        for rb in range(pid, n_row_blocks, n_progs):
            if INT64:
                rows = tl.cast(rb, tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
            else:
                rows = rb * BLOCK_M + tl.arange(0, BLOCK_M)
            row_mask = rows < n_rows
            mask = row_mask[:, None] & col_mask[None, :]
            g_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, gk0, gk1, gk2, gk3, gk4, gk5, KEPT_NDIM)
            x_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, xk0, xk1, xk2, xk3, xk4, xk5, KEPT_NDIM)
            dy = tl.load(dy_ptr + g_row[:, None] + g_col[None, :], mask=mask, other=0).to(ACC)
            x = tl.load(x_ptr + x_row[:, None] + x_col[None, :], mask=mask, other=0).to(ACC)
            rstd = tl.load(rstd_ptr + rows, mask=row_mask, other=0)
            if RMS:
                xhat = x * rstd[:, None]
            else:
                mean = tl.load(mean_ptr + rows, mask=row_mask, other=0)
                xhat = tl.where(mask, (x - mean[:, None]) * rstd[:, None], 0.0)
            if DX:
                if HAS_W:
                    g = dy * w[None, :]
                else:
                    g = dy
                c1 = tl.sum(g * xhat, axis=1) / n_cols
                if RMS:
                    dx = (g - xhat * c1[:, None]) * rstd[:, None]
                else:
                    c2 = tl.sum(g, axis=1) / n_cols
                    dx = (g - xhat * c1[:, None] - c2[:, None]) * rstd[:, None]
                tl.store(dx_ptr + rows[:, None] * n_cols + cols[None, :], cast_to(dx, dx_ty), mask=mask)
            if DW:
                dw_acc += dy * xhat
            if DB:
                db_acc += dy
        if DW:
            tl.store(dw_part_ptr + part_row + cols, tl.sum(dw_acc, axis=0), mask=col_mask)
        if DB:
            tl.store(db_part_ptr + part_row + cols, tl.sum(db_acc, axis=0), mask=col_mask)
    else:
        # Long rows: pass 1 accumulates the two row sums, pass 2 writes dx and adds this row
        # block's dw/db into the program's own (zero-initialised) partial row.
        for rb in range(pid, n_row_blocks, n_progs):
            if INT64:
                rows = tl.cast(rb, tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
            else:
                rows = rb * BLOCK_M + tl.arange(0, BLOCK_M)
            row_mask = rows < n_rows
            g_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, gk0, gk1, gk2, gk3, gk4, gk5, KEPT_NDIM)
            x_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, xk0, xk1, xk2, xk3, xk4, xk5, KEPT_NDIM)
            rstd = tl.load(rstd_ptr + rows, mask=row_mask, other=0)
            if RMS:
                mean = tl.zeros([BLOCK_M], ACC)
            else:
                mean = tl.load(mean_ptr + rows, mask=row_mask, other=0)
            c1 = tl.zeros([BLOCK_M], ACC)
            c2 = tl.zeros([BLOCK_M], ACC)
            if DX:
                acc1 = tl.zeros([BLOCK_M, BLOCK_N], ACC)
                acc2 = tl.zeros([BLOCK_M, BLOCK_N], ACC)
                for start in range(first_column(INT64), n_cols, BLOCK_N):
                    cols = column_tile(start, BLOCK_N, INT64)
                    col_mask = cols < n_cols
                    mask = row_mask[:, None] & col_mask[None, :]
                    g_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, gr0, gr1, gr2, gr3, gr4, gr5, RED_NDIM)
                    x_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, xr0, xr1, xr2, xr3, xr4, xr5, RED_NDIM)
                    dy = tl.load(dy_ptr + g_row[:, None] + g_col[None, :], mask=mask, other=0).to(ACC)
                    x = tl.load(x_ptr + x_row[:, None] + x_col[None, :], mask=mask, other=0).to(ACC)
                    xhat = tl.where(mask, (x - mean[:, None]) * rstd[:, None], 0.0)
                    if HAS_W:
                        w_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, wr0, wr1, wr2, wr3, wr4, wr5, RED_NDIM)
                        g = dy * tl.load(w_ptr + w_col, mask=col_mask, other=0).to(ACC)[None, :]
                    else:
                        g = dy
                    acc1 += g * xhat
                    acc2 += g
                c1 = tl.sum(acc1, axis=1) / n_cols
                c2 = tl.sum(acc2, axis=1) / n_cols
            for start in range(first_column(INT64), n_cols, BLOCK_N):
                cols = column_tile(start, BLOCK_N, INT64)
                col_mask = cols < n_cols
                mask = row_mask[:, None] & col_mask[None, :]
                g_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, gr0, gr1, gr2, gr3, gr4, gr5, RED_NDIM)
                x_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, xr0, xr1, xr2, xr3, xr4, xr5, RED_NDIM)
                dy = tl.load(dy_ptr + g_row[:, None] + g_col[None, :], mask=mask, other=0).to(ACC)
                x = tl.load(x_ptr + x_row[:, None] + x_col[None, :], mask=mask, other=0).to(ACC)
                xhat = tl.where(mask, (x - mean[:, None]) * rstd[:, None], 0.0)
                if DX:
                    if HAS_W:
                        w_col = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, wr0, wr1, wr2, wr3, wr4, wr5, RED_NDIM)
                        g = dy * tl.load(w_ptr + w_col, mask=col_mask, other=0).to(ACC)[None, :]
                    else:
                        g = dy
                    if RMS:
                        dx = (g - xhat * c1[:, None]) * rstd[:, None]
                    else:
                        dx = (g - xhat * c1[:, None] - c2[:, None]) * rstd[:, None]
                    tl.store(dx_ptr + rows[:, None] * n_cols + cols[None, :], cast_to(dx, dx_ty), mask=mask)
                if DW:
                    part = tl.load(dw_part_ptr + part_row + cols, mask=col_mask, other=0)
                    tl.store(dw_part_ptr + part_row + cols, part + tl.sum(dy * xhat, axis=0), mask=col_mask)
                if DB:
                    part = tl.load(db_part_ptr + part_row + cols, mask=col_mask, other=0)
                    tl.store(db_part_ptr + part_row + cols, part + tl.sum(dy, axis=0), mask=col_mask)


@triton.jit
def _sum_partials_kernel(
    out_ptr, part_ptr,  # out (contiguous, n_cols) = sum over the n_parts rows of part (n_parts x n_cols)
    n_parts, n_cols,
    BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr,
):
    # The second stage of dw/db: a fixed-order column sum of the per-program partials.
    cols = tl.program_id(0) * BLOCK_N + tl.arange(0, BLOCK_N)
    col_mask = cols < n_cols
    acc = tl.zeros([BLOCK_P, BLOCK_N], part_ptr.dtype.element_ty)
    for start in range(0, n_parts, BLOCK_P):
        parts = start + tl.arange(0, BLOCK_P)
        mask = (parts < n_parts)[:, None] & col_mask[None, :]
        acc += tl.load(part_ptr + parts.to(tl.int64)[:, None] * n_cols + cols[None, :], mask=mask, other=0)
    tl.store(out_ptr + cols, cast_to(tl.sum(acc, axis=0), out_ptr.dtype.element_ty), mask=col_mask)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------

# Elements of a row tile kept in registers. The interpreter runs one program at a time, so it
# prefers big tiles; on a GPU 8192 fp32 values over 16 warps is 16 registers per thread per
# live tile (the backward keeps five: x, dy, w, and the dw/db partial sums).
MAX_ONE_TILE = 65536 if INTERPRET else 8192
# test hook: force the backward to use this many programs (so the partial-sum stage is exercised)
FORCE_PROGRAMS: int | None = None


def pick_config(n_rows: int, n_cols: int) -> dict:
    """BLOCK_M rows x BLOCK_N columns per tile; ONE_TILE when a whole row fits."""
    block_n = next_pow2(max(n_cols, 1))
    one_tile = block_n <= MAX_ONE_TILE
    if one_tile:
        target = MAX_ONE_TILE if INTERPRET else 4096  # elements per tile when rows are short
        block_m = min(next_pow2(max(n_rows, 1)), max(1, target // block_n))
    else:
        block_m, block_n = 1, (MAX_ONE_TILE if INTERPRET else 4096)
    tile = block_m * block_n
    num_warps = 4 if tile <= 2048 else 8 if tile <= 8192 else 16
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "ONE_TILE": one_tile, "num_warps": num_warps}


def _full_strides(arr, ndim: int) -> tuple:
    """Strides of a column operand (weight/bias) over all ``ndim`` dims: 0 on the row dims."""
    if arr is None:
        return (0,) * ndim
    return (0,) * (ndim - arr.ndim) + tuple(arr.strides)


def _layout(x, norm_ndim: int, kept_ops, red_ops, op: str):
    ndim = x.ndim
    dims = tuple(range(ndim - norm_ndim, ndim))
    lay = row_layout(x.shape, dims, [tuple(a.strides) for a in kept_ops],
                     [_full_strides(a, ndim) for a in red_ops], sort_reduced=False)
    if lay is None:
        raise NotImplementedError(f"{op}: an input view with more than six non-mergeable row or column dims")
    return lay


def _check_contiguous(op: str, *arrays) -> None:
    for a in arrays:
        if a is not None and not a.is_contiguous():
            raise ValueError(f"{op}: outputs must be contiguous (the dispatcher allocates them so)")


def _forward(y, mean, rstd, x, weight, bias, norm_ndim: int, eps: float, rms: bool, op: str) -> None:
    _check_contiguous(op, y, mean, rstd)
    lay = _layout(x, norm_ndim, [x], [x, weight, bias], op)
    if lay.n_rows == 0 or lay.n_cols == 0:
        if lay.n_rows:  # statistics of empty rows: PyTorch's mean 0, rstd NaN
            if mean is not None:
                fill(mean, 0.0)
            fill(rstd, float("nan"))
        return
    cfg = pick_config(lay.n_rows, lay.n_cols)
    acc = float_acc(x.dtype)
    launch(
        _norm_forward_kernel, (cdiv(lay.n_rows, cfg["BLOCK_M"]),),
        y, mean if mean is not None else rstd, rstd, x, weight if weight is not None else x,
        bias if bias is not None else x, lay.n_rows, lay.n_cols, float64_bits(eps),
        *lay.kept_sizes[1:], *lay.kept_strides[0], *lay.red_sizes[1:], *lay.red_strides[0], *lay.red_strides[1],
        *lay.red_strides[2],
        RMS=rms, HAS_W=weight is not None, HAS_B=bias is not None, ACC=_tl_dtype(acc), KEPT_NDIM=lay.kept_ndim,
        RED_NDIM=lay.red_ndim, INT64=needs_int64(y, x, weight, bias) or loop_needs_int64(lay.n_cols, cfg["BLOCK_N"]),
        **cfg,
    )


def _backward(dx, dw, db, dy, x, weight, mean, rstd, norm_ndim: int, rms: bool, op: str) -> None:
    _check_contiguous(op, dx, dw, db, mean, rstd)
    lay = _layout(x, norm_ndim, [dy, x], [dy, x, weight], op)
    if lay.n_cols == 0:
        return
    if lay.n_rows == 0:  # nothing to sum: dw and db are zeros
        for out in (dw, db):
            if out is not None:
                fill(out, 0.0)
        return
    cfg = pick_config(lay.n_rows, lay.n_cols)
    n_row_blocks = cdiv(lay.n_rows, cfg["BLOCK_M"])
    if FORCE_PROGRAMS is not None:
        n_progs = max(1, min(FORCE_PROGRAMS, n_row_blocks))
    else:
        n_progs = min(n_row_blocks, 2 if INTERPRET else 2 * sm_count(x.device))
    acc = np.dtype(float_acc(x.dtype))
    parts = []
    for out in (dw, db):
        if out is None:
            parts.append(None)
            continue
        part = rt.empty((n_progs, lay.n_cols), acc, x.device)
        if not cfg["ONE_TILE"]:  # long rows accumulate into their partial row in memory
            rt.memset(part.storage, 0, 0, part.numel * part.itemsize)
        parts.append(part)
    placeholder = rstd
    launch(
        _norm_backward_kernel, (n_progs,),
        dx if dx is not None else placeholder, parts[0] if dw is not None else placeholder,
        parts[1] if db is not None else placeholder, dy, x, weight if weight is not None else x,
        mean if mean is not None else rstd, rstd, lay.n_rows, lay.n_cols, n_row_blocks, n_progs,
        *lay.kept_sizes[1:], *lay.kept_strides[0], *lay.kept_strides[1], *lay.red_sizes[1:], *lay.red_strides[0],
        *lay.red_strides[1], *lay.red_strides[2],
        RMS=rms, HAS_W=weight is not None, DX=dx is not None, DW=dw is not None, DB=db is not None,
        ACC=_tl_dtype(acc), KEPT_NDIM=lay.kept_ndim, RED_NDIM=lay.red_ndim,
        INT64=needs_int64(dx, dy, x, weight) or loop_needs_int64(lay.n_cols, cfg["BLOCK_N"]), **cfg,
    )
    for out, part in zip((dw, db), parts):
        if out is not None:
            block_n = 1024 if INTERPRET else 128
            block_p = next_pow2(n_progs) if INTERPRET else min(next_pow2(n_progs), 32)
            launch(_sum_partials_kernel, (cdiv(lay.n_cols, block_n),), out, part, n_progs, lay.n_cols,
                   BLOCK_P=block_p, BLOCK_N=block_n, num_warps=4)


def layer_norm(y, mean, rstd, x, weight, bias, *, norm_ndim: int, eps: float) -> None:
    """``y`` = LayerNorm of ``x`` over its last ``norm_ndim`` dims; per-row ``mean`` and ``rstd``
    (fp32, fp64 for fp64 inputs) are written for the backward. ``weight``/``bias`` may be None."""
    _forward(y, mean, rstd, x, weight, bias, norm_ndim, eps, False, "layer_norm")


def layer_norm_backward(*arrays, norm_ndim: int, which: tuple) -> None:
    """``arrays`` = the requested outputs among (dx, dw, db) — ``which`` says which, in that order —
    then ``dy, x, weight, mean, rstd`` (``weight`` may be None)."""
    n_out = sum(which)
    outs = iter(arrays[:n_out])
    dx, dw, db = (next(outs) if w else None for w in which)
    dy, x, weight, mean, rstd = arrays[n_out:]
    _backward(dx, dw, db, dy, x, weight, mean, rstd, norm_ndim, False, "layer_norm_backward")


def rms_norm(y, rstd, x, weight, *, norm_ndim: int, eps: float) -> None:
    """``y`` = RMSNorm of ``x`` over its last ``norm_ndim`` dims; per-row ``rstd`` for the backward."""
    _forward(y, None, rstd, x, weight, None, norm_ndim, eps, True, "rms_norm")


def rms_norm_backward(*arrays, norm_ndim: int, which: tuple) -> None:
    """``arrays`` = the requested outputs among (dx, dw) then ``dy, x, weight, rstd``."""
    n_out = sum(which)
    outs = iter(arrays[:n_out])
    dx, dw = (next(outs) if w else None for w in which)
    dy, x, weight, rstd = arrays[n_out:]
    _backward(dx, dw, None, dy, x, weight, None, rstd, norm_ndim, True, "rms_norm_backward")


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def _rows(a: np.ndarray, norm_ndim: int, acc) -> np.ndarray:
    n_cols = int(np.prod(a.shape[a.ndim - norm_ndim:], dtype=np.int64))
    n_rows = int(np.prod(a.shape[:a.ndim - norm_ndim], dtype=np.int64))  # (-1 cannot be inferred for 0 columns)
    return np.asarray(a, dtype=acc).reshape(n_rows, n_cols)


def _twin_forward(y, mean, rstd, x, weight, bias, norm_ndim, eps, rms):
    acc = float_acc(x.dtype)
    xr = _rows(x.astype(acc) if x.dtype != acc else x, norm_ndim, acc)
    with np.errstate(all="ignore"):
        eps = acc.type(np.float64(eps))
        if xr.shape[1] == 0:
            mu = np.zeros(xr.shape[0], acc)
            r = np.full(xr.shape[0], np.nan, acc)
        elif rms:
            mu = np.zeros(xr.shape[0], acc)
            r = acc.type(1) / np.sqrt((xr * xr).mean(axis=1) + eps)
        else:
            mu = xr.mean(axis=1)
            xc = xr - mu[:, None]
            r = acc.type(1) / np.sqrt((xc * xc).mean(axis=1) + eps)
        out = (xr - mu[:, None]) * r[:, None]
        if weight is not None:
            out = out * weight.astype(acc).reshape(1, -1)
        if bias is not None:
            out = out + bias.astype(acc).reshape(1, -1)
    y[...] = host_cast(out.reshape(y.shape), y.dtype)
    if mean is not None:
        mean[...] = mu
    rstd[...] = r


def _twin_backward(dx, dw, db, dy, x, weight, mean, rstd, norm_ndim, rms):
    acc = float_acc(x.dtype)
    xr, g = _rows(x, norm_ndim, acc), _rows(dy, norm_ndim, acc)
    n = xr.shape[1]
    mu = np.zeros(xr.shape[0], acc) if rms else mean.astype(acc)
    with np.errstate(all="ignore"):
        xhat = (xr - mu[:, None]) * rstd.astype(acc)[:, None]
        if dx is not None:
            gw = g * weight.astype(acc).reshape(1, -1) if weight is not None else g
            c1 = (gw * xhat).sum(axis=1, keepdims=True) / acc.type(max(n, 1))
            d = gw - xhat * c1
            if not rms:
                d = d - gw.sum(axis=1, keepdims=True) / acc.type(max(n, 1))
            dx[...] = host_cast((d * rstd.astype(acc)[:, None]).reshape(dx.shape), dx.dtype)
        if dw is not None:
            dw[...] = host_cast((g * xhat).sum(axis=0).reshape(dw.shape), dw.dtype)
        if db is not None:
            db[...] = host_cast(g.sum(axis=0).reshape(db.shape), db.dtype)


def layer_norm_twin(y, mean, rstd, x, weight, bias, *, norm_ndim: int, eps: float) -> None:
    _twin_forward(y, mean, rstd, x, weight, bias, norm_ndim, eps, False)


def layer_norm_backward_twin(*arrays, norm_ndim: int, which: tuple) -> None:
    n_out = sum(which)
    outs = iter(arrays[:n_out])
    dx, dw, db = (next(outs) if w else None for w in which)
    dy, x, weight, mean, rstd = arrays[n_out:]
    _twin_backward(dx, dw, db, dy, x, weight, mean, rstd, norm_ndim, False)


def rms_norm_twin(y, rstd, x, weight, *, norm_ndim: int, eps: float) -> None:
    _twin_forward(y, None, rstd, x, weight, None, norm_ndim, eps, True)


def rms_norm_backward_twin(*arrays, norm_ndim: int, which: tuple) -> None:
    n_out = sum(which)
    outs = iter(arrays[:n_out])
    dx, dw = (next(outs) if w else None for w in which)
    dy, x, weight, rstd = arrays[n_out:]
    _twin_backward(dx, dw, None, dy, x, weight, None, rstd, norm_ndim, True)
