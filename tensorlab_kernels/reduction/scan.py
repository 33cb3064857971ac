"""Scans along one dim: ``cumsum``, ``cumprod``, ``logcumsumexp``, ``cummax`` and ``cummin`` (values
and indices).

Rows x columns as in the rest of the package (strided, no copies; the scan dim is the column).
A program owns ``BLOCK_M`` rows and walks their columns left to right in ``BLOCK_N`` tiles:
``tl.cumsum``/``tl.cumprod`` (or ``tl.associative_scan`` for cummax/cummin) scans the tile, the
carry (the combination of everything to the left) is applied to it, and the scan's value at the
tile's last column becomes the next carry. Sums of fp16/bf16 accumulate in
fp32 (fp64 for fp64), integers and bools in int64 (PyTorch's cumsum of integers is int64).

logcumsumexp scans with ``log(exp(a) + exp(b))`` written as the larger plus ``log1p(exp(smaller -
larger))``: never overflows, and the identity is -inf.

cummax/cummin follow PyTorch: a value equal to the running extreme takes over the index (the
*last* occurrence wins), and NaN propagates (from the first NaN on the value is NaN and the
index is that of the latest NaN). The combine is a maximum under the total order
(NaN-ness, value, index), so it is associative and commutative.

Two variants the backward rules need: ``exclusive`` (element ``i`` combines elements ``< i``;
the first is the identity; cumsum and cumprod) and ``reverse`` (scan from the end: a
negative-stride view of the input and the output, no copy; cumsum, cumprod and logcumsumexp).

Layout of this file: kernel, launcher, numpy twin.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from ..elementwise.libdevice import libdevice as ld
from ..launch import INTERPRET, cdiv, launch, loop_needs_int64, needs_int64
from . import common
from .common import (
    cast_to,
    column_tile,
    dim_offsets,
    first_column,
    float_acc,
    host_cast,
    is_float,
    last_column,
    next_pow2,
    row_layout,
    tl_dtype,
)

SCAN_OPS = {"cumsum": 0, "cumprod": 1, "cummax": 2, "cummin": 3, "logcumsumexp": 4}

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _later_wins(a, ia, b, ib, IS_MAX: tl.constexpr):
    """True where (b, ib) ranks above (a, ia): NaN first, then the value, then the larger index."""
    a_nan = a != a
    b_nan = b != b
    if IS_MAX:
        beats = b > a
    else:
        beats = b < a
    same = (b == a) | (a_nan & b_nan)
    return (b_nan & ~a_nan) | (~a_nan & beats) | (same & (ib > ia))


@triton.jit
def _cummax_combine(a, ia, b, ib):
    w = _later_wins(a, ia, b, ib, True)
    return tl.where(w, b, a), tl.where(w, ib, ia)


@triton.jit
def _cummin_combine(a, ia, b, ib):
    w = _later_wins(a, ia, b, ib, False)
    return tl.where(w, b, a), tl.where(w, ib, ia)


@triton.jit
def _logaddexp(a, b):
    """``log(exp(a) + exp(b))`` without overflow (PyTorch's _log_add_exp_helper): the larger plus
    ``log1p(exp(smaller - larger))``. Equal operands differ by 0, so two equal infinities give that
    infinity (not inf - inf = nan); a NaN operand gives NaN (the GPU's max would drop it)."""
    mx = tl.maximum(a, b)
    mn = tl.minimum(a, b)
    d = tl.where(mn == mx, 0.0, mn - mx)
    r = mx + ld.log1p(tl.exp(d))
    return tl.where((a != a) | (b != b), a + b, r)


@triton.jit
def _scan_kernel(
    out_ptr, idx_ptr, in_ptr,  # values out, indices out (cummax/cummin only), input
    n_rows, n_cols,
    ks1, ks2, ks3, ks4, ks5,  # row sizes, dim 5 innermost
    is0, is1, is2, is3, is4, is5,  # input strides of the row dims
    os0, os1, os2, os3, os4, os5,  # output strides of the row dims
    xs0, xs1, xs2, xs3, xs4, xs5,  # indices-output strides of the row dims
    in_col_stride, out_col_stride, idx_col_stride,  # strides of the scan dim (negative: reversed)
    OP: tl.constexpr, IDENT: tl.constexpr, EXCLUSIVE: tl.constexpr,
    CONVERT: tl.constexpr, COMPUTE: tl.constexpr, ACC: tl.constexpr,
    KEPT_NDIM: tl.constexpr, INT64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
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

    carry = tl.full([BLOCK_M], IDENT, ACC)
    carry_i = tl.full([BLOCK_M], -1, tl.int64)
    for start in range(first_column(INT64), n_cols, BLOCK_N):
        cols = column_tile(start, BLOCK_N, INT64)
        store_mask = row_mask[:, None] & (cols < n_cols)[None, :]
        if EXCLUSIVE:
            src = cols - 1  # element i combines elements < i: read one to the left
        else:
            src = cols
        load_mask = row_mask[:, None] & ((src >= 0) & (src < n_cols))[None, :]
        x = tl.load(in_ptr + in_row[:, None] + src[None, :] * in_col_stride, mask=load_mask, other=0)
        if CONVERT:
            x = cast_to(x, COMPUTE)
        x = tl.where(load_mask, x.to(ACC), IDENT)
        out_off = out_row[:, None] + cols[None, :] * out_col_stride
        # the next carry is the scan's value at this tile's last column
        last = tl.minimum(start + BLOCK_N, n_cols) - 1
        if OP == 0:
            y = tl.cumsum(x, axis=1) + carry[:, None]
            carry = last_column(y, cols, last)
        elif OP == 1:
            y = tl.cumprod(x, axis=1) * carry[:, None]
            carry = last_column(y, cols, last)
        elif OP == 4:
            y = _logaddexp(carry[:, None], tl.associative_scan(x, 1, _logaddexp))
            carry = last_column(y, cols, last)
        else:
            xi = tl.where(load_mask, src.to(tl.int64)[None, :], -1)
            if OP == 2:
                sv, si = tl.associative_scan((x, xi), 1, _cummax_combine)
                y, yi = _cummax_combine(carry[:, None], carry_i[:, None], sv, si)
            else:
                sv, si = tl.associative_scan((x, xi), 1, _cummin_combine)
                y, yi = _cummin_combine(carry[:, None], carry_i[:, None], sv, si)
            carry = last_column(y, cols, last)
            carry_i = last_column(yi, cols, last)
            idx_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, xs0, xs1, xs2, xs3, xs4, xs5, KEPT_NDIM)
            tl.store(idx_ptr + idx_row[:, None] + cols[None, :] * idx_col_stride, yi, mask=store_mask)
        tl.store(out_ptr + out_off, cast_to(y, out_ty), mask=store_mask)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def _acc(op: str, dtype: np.dtype) -> np.dtype:
    if is_float(dtype):
        return float_acc(dtype)
    return np.dtype(np.int64)


def _identity(op: str, acc: np.dtype):
    if op == "cumsum":
        return 0
    if op == "cumprod":
        return 1
    if op == "logcumsumexp":
        return float("-inf")
    floating = acc.kind == "f"
    if op == "cummax":
        return float("-inf") if floating else int(np.iinfo(acc).min)
    return float("inf") if floating else int(np.iinfo(acc).max)


def pick_config(n_rows: int, n_cols: int) -> dict:
    # the scan's tile: a whole (short) row, several rows per program; long rows loop with a carry
    budget = common.TILE_BUDGET or (16384 if INTERPRET else 2048)
    block_n = min(next_pow2(max(n_cols, 1)), budget)
    block_m = min(next_pow2(max(n_rows, 1)), max(1, budget // block_n))
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "num_warps": 4 if block_m * block_n <= 1024 else 8}


def _reversed(a, dim):
    """``a`` viewed back to front along ``dim`` (a negative stride; no copy)."""
    if a is None or a.ndim == 0 or a.shape[dim] == 0:
        return a
    strides = list(a.strides)
    offset = a.offset + (a.shape[dim] - 1) * strides[dim]
    strides[dim] = -strides[dim]
    return a.view(a.shape, tuple(strides), offset)


def scan(out, indices, inp, *, op: str, dim: int, compute=None, exclusive: bool = False,
         reverse: bool = False) -> None:
    """``out`` (and ``indices`` for cummax/cummin, else None) = the scan ``op`` of ``inp`` along ``dim``."""
    if op not in SCAN_OPS:
        raise ValueError(f"scan: unknown op {op!r}; expected one of {sorted(SCAN_OPS)}")
    if (exclusive and op not in ("cumsum", "cumprod")) or (reverse and op not in ("cumsum", "cumprod", "logcumsumexp")):
        raise ValueError(f"scan: exclusive/reverse {op} is not supported")
    if out.numel == 0:
        return
    if reverse:
        out, indices, inp = _reversed(out, dim), _reversed(indices, dim), _reversed(inp, dim)
    compute = None if compute is None or np.dtype(compute) == inp.dtype else np.dtype(compute)
    acc = _acc(op, compute if compute is not None else inp.dtype)
    idx = indices if indices is not None else out
    if inp.ndim == 0:
        shape, dim, strides = (1,), 0, [(1,), (1,), (1,)]
    else:
        shape, strides = inp.shape, [inp.strides, out.strides, idx.strides]
    lay = row_layout(shape, (dim,), strides, strides)
    if lay is None:  # more than six non-mergeable dims besides dim: through contiguous arrays
        from ..copy import strided_copy

        c_out, c_idx = common.contiguous_stand_in(out, False), common.contiguous_stand_in(indices, False)
        scan(c_out, c_idx, common.contiguous_stand_in(inp, True), op=op, dim=dim, compute=compute,
             exclusive=exclusive)
        strided_copy(out, c_out)
        if indices is not None:
            strided_copy(indices, c_idx)
        return
    cfg = pick_config(lay.n_rows, lay.n_cols)
    launch(
        _scan_kernel, (cdiv(lay.n_rows, cfg["BLOCK_M"]),),
        out, idx, inp, lay.n_rows, lay.n_cols, *lay.kept_sizes[1:], *lay.kept_strides[0], *lay.kept_strides[1],
        *lay.kept_strides[2], strides[0][dim], strides[1][dim], strides[2][dim],
        OP=SCAN_OPS[op], IDENT=_identity(op, acc), EXCLUSIVE=exclusive, CONVERT=compute is not None,
        COMPUTE=tl_dtype(compute if compute is not None else acc), ACC=tl_dtype(acc), KEPT_NDIM=lay.kept_ndim,
        INT64=needs_int64(out, inp, indices) or loop_needs_int64(lay.n_cols, cfg["BLOCK_N"]), **cfg,
    )


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def _cum_extreme(x: np.ndarray, is_max: bool):
    """PyTorch's cummax/cummin along the last axis (a loop over the scan dim, vectorised over rows)."""
    vals = np.empty_like(x)
    idx = np.empty(x.shape, np.int64)
    if x.shape[-1] == 0:
        return vals, idx
    cur, cur_i = x[..., 0].copy(), np.zeros(x.shape[:-1], np.int64)
    for i in range(x.shape[-1]):
        v = x[..., i]
        with np.errstate(invalid="ignore"):
            better = (v >= cur) if is_max else (v <= cur)
        take = np.isnan(v) | (~np.isnan(cur) & better) if x.dtype.kind == "f" else better
        cur = np.where(take, v, cur)
        cur_i = np.where(take, i, cur_i)
        vals[..., i], idx[..., i] = cur, cur_i
    return vals, idx


def scan_twin(out, indices, inp, *, op: str, dim: int, compute=None, exclusive: bool = False,
              reverse: bool = False) -> None:
    x = host_cast(inp, compute) if compute is not None else inp
    acc = _acc(op, x.dtype)
    if acc == np.float32 and x.dtype == np.float32 and op != "cummax" and op != "cummin":
        # PyTorch's cpu scans accumulate float32 in double (at::acc_type<float, false>): a sequential
        # float32 sum of 100000 x 0.1 ends at 9998.557, torch's cpu cumsum at 10000.0 (the kernel
        # scans in float32 as a tree, as torch's cuda does: its error grows as log n, not n)
        acc = np.dtype(np.float64)
    x = x.astype(acc)
    if x.ndim == 0:
        x, d = x.reshape(1), 0
    else:
        d = dim
    x = np.moveaxis(x, d, -1)
    if reverse:
        x = x[..., ::-1]
    with np.errstate(all="ignore"):
        if op in ("cumsum", "cumprod"):
            y = np.cumsum(x, axis=-1) if op == "cumsum" else np.cumprod(x, axis=-1)
            if exclusive:
                first = np.full(x.shape[:-1] + (1,), 0 if op == "cumsum" else 1, x.dtype)
                y = np.concatenate([first, y[..., :-1]], axis=-1)
            i = None
        elif op == "logcumsumexp":
            y, i = np.logaddexp.accumulate(x, axis=-1), None
        else:
            y, i = _cum_extreme(x, op == "cummax")
        if (op == "cumsum" or op == "logcumsumexp") and y.dtype.kind == "f":
            # the kernel (and PyTorch) start from the identity, +0 or -inf, and +0 + -0 is +0;
            # numpy starts from the first element, so a prefix of -0.0 stayed -0.0
            y = y + 0.0
    if reverse:
        y = y[..., ::-1]
    y = np.moveaxis(y, -1, d).reshape(out.shape)
    out[...] = host_cast(y, out.dtype)
    if indices is not None:
        indices[...] = np.moveaxis(i, -1, d).reshape(indices.shape)
