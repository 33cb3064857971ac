"""Cross-entropy with class indices, fused: log-softmax, the pick of the target, class weights,
``ignore_index`` and label smoothing in one pass over the logits; the backward in one more.

Rows x columns as in the reduction kernels: the class dim is the column, every other dim of the
logits a row (``(N, C)``, ``(C,)`` and ``(N, C, d1, ...)`` alike, read through their strides;
the class dim need not be the last one). For a row with logits ``x``, target ``t`` and class
weights ``w`` (all ones without ``weight``), ``eps = label_smoothing``, ``C`` classes:

    m     = max_c x_c,  s = sum_c exp(x_c - m)          (online: running max, rescaled sum)
    lse   = log(sum_c exp(x_c)) = m + log(s)
    loss  = (1 - eps) * w_t * (lse - x_t) + eps / C * sum_c w_c * (lse - x_c)
    wrow  = w_t                                        (0 for an ignored row; the 'mean' divisor)

which is PyTorch's definition (``cross_entropy_loss_label_smoothing``: the smoothing term is
weighted per class and, for 'mean', divided by the same ``sum(w_t)`` as the NLL term). An
ignored row (``t == ignore_index``) has loss 0 and weight 0.

Forward. One program takes ``BLOCK_M`` rows. When a row fits in one tile (``ONE_TILE``) it is
loaded once; longer rows loop over column tiles keeping the running max ``m``, the sum
``s = sum exp(x - m)`` (rescaled when ``m`` grows) and, for label smoothing,
``d = sum_c w_c * (x_c - m)`` (shifted the same way, so it never cancels catastrophically) and
``W = sum_c w_c``; then ``sum_c w_c * (lse - x_c) = W * log(s) - d``. ``x_t`` is one gathered
load per row, and ``lse - x_t`` is formed as ``(m - x_t) + log(s)``: ``m + log(s)`` alone would
round ``log(s)`` away next to a huge ``|m|`` (logits near 1e9 that all round to one value must
give log(C), not 0). Each row writes its loss, ``w_t`` and its statistics ``(m, log(s))`` (fp32;
fp64 for fp64 logits; a pair, not their sum, for the same reason); each
program writes one ``status`` flag, set when one of its targets is neither ``ignore_index`` nor
in [0, C) (such a row is computed as ignored; the caller reads the flags and raises).

Backward, from the incoming per-row gradient ``g`` (a broadcast scalar for 'mean'/'sum') and
the saved ``m`` and ``log(s)`` (the softmax is recomputed, not stored:
``p_c = exp((x_c - m) - log(s))``):

    dx_c = g * ((1 - eps) * w_t * (p_c - [c == t]) + eps / C * (W * p_c - w_c))

and 0 for ignored rows. Reductions over rows ('mean', 'sum') happen outside, with the
deterministic reduction kernels, on the per-row losses.

Layout of this file: kernels, launchers, numpy twins.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from ..fill import float64_bits
from ..launch import INTERPRET, cdiv, launch, loop_needs_int64, needs_int64
from ..reduction.common import (
    cast_to,
    column_tile,
    dim_offsets,
    first_column,
    float_acc,
    host_cast,
    host_float,
    max_shift,
    next_pow2,
    row_layout,
    tl_dtype,
)

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _cross_entropy_forward_kernel(
    loss_ptr, wrow_ptr, stats_ptr,  # outputs per row (contiguous): loss, w_t (0 if ignored), the pair (m, log(s))
    status_ptr,  # output, one per program: 1 when one of its targets is out of range (the caller raises)
    x_ptr, t_ptr, w_ptr,  # logits (rows x classes, strided), target class per row, class weights (HAS_W)
    n_rows, n_cols,
    ignore_index,  # int64
    smooth_bits: tl.int64,  # label_smoothing as the bits of an fp64
    ks1, ks2, ks3, ks4, ks5,  # row sizes (dim 5 innermost; dim 0's size is never needed)
    xs0, xs1, xs2, xs3, xs4, xs5,  # logits strides of the row dims
    ts0, ts1, ts2, ts3, ts4, ts5,  # target strides of the row dims
    x_col_stride, w_stride,  # strides of the class dim in the logits and in the weights
    HAS_W: tl.constexpr, SMOOTH: tl.constexpr, ACC: tl.constexpr, KEPT_NDIM: tl.constexpr,
    ONE_TILE: tl.constexpr, INT64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        rows = pid.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    else:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    x_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, xs0, xs1, xs2, xs3, xs4, xs5, KEPT_NDIM)
    t_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, ts0, ts1, ts2, ts3, ts4, ts5, KEPT_NDIM)

    # The target: ignored rows read class 0 and are zeroed at the end. An out-of-range target
    # is treated the same way and flagged in ``status``: the caller raises IndexError on it
    # (one flag per program, read back once, instead of separate min/max reductions).
    t = tl.load(t_ptr + t_row, mask=row_mask, other=0).to(tl.int64)
    valid = row_mask & (t != ignore_index) & (t >= 0) & (t < n_cols)
    bad = row_mask & (t != ignore_index) & ((t < 0) | (t >= n_cols))
    tl.store(status_ptr + pid, tl.max(bad.to(tl.int32), axis=0))
    t_safe = tl.where(valid, t, 0)
    x_t = tl.load(x_ptr + x_row + t_safe * x_col_stride, mask=valid, other=0).to(ACC)
    if HAS_W:
        w_t = tl.load(w_ptr + t_safe * w_stride, mask=valid, other=0).to(ACC)
    else:
        w_t = tl.where(valid, 1.0, 0.0).to(ACC)

    if ONE_TILE:
        cols = column_tile(0, BLOCK_N, INT64)
        col_mask = cols < n_cols
        mask = row_mask[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + x_row[:, None] + cols[None, :] * x_col_stride, mask=mask, other=0).to(ACC)
        x = tl.where(col_mask[None, :], x, float("-inf"))  # rows past the end read zeros: no log(0)
        shift = max_shift(tl.max(x, axis=1))
        log_s = tl.log(tl.sum(tl.exp(x - shift[:, None]), axis=1))
        if SMOOTH:
            if HAS_W:
                w = tl.load(w_ptr + cols * w_stride, mask=col_mask, other=0).to(ACC)
            else:
                w = tl.where(col_mask, 1.0, 0.0).to(ACC)
            # W * log(s) - sum_c w_c * (x_c - m); masked columns add w * 0 = 0 (no inf * 0)
            d = tl.sum(w[None, :] * tl.where(mask, x - shift[:, None], 0.0), axis=1)
            smooth = tl.sum(w, axis=0) * log_s - d
    else:
        m = tl.full([BLOCK_M], float("-inf"), ACC)
        s = tl.zeros([BLOCK_M], ACC)
        d = tl.zeros([BLOCK_M], ACC)  # sum_c w_c * (x_c - shift(m))
        w_sum = tl.zeros([BLOCK_M], ACC)  # sum_c w_c over the columns seen so far
        for start in range(first_column(INT64), n_cols, BLOCK_N):
            cols = column_tile(start, BLOCK_N, INT64)
            col_mask = cols < n_cols
            mask = row_mask[:, None] & col_mask[None, :]
            x = tl.load(x_ptr + x_row[:, None] + cols[None, :] * x_col_stride, mask=mask, other=0).to(ACC)
            x = tl.where(col_mask[None, :], x, float("-inf"))  # rows past the end read zeros: no log(0)
            m_new = tl.maximum(m, tl.max(x, axis=1))
            old_shift = max_shift(m)
            new_shift = max_shift(m_new)
            # the old sum rescaled by exp(m - m_new): 0 while no maximum was seen (exp(old_shift -
            # new_shift) there is exp(0 - m_new), inf under a first tile of -1e9: 0 * inf = NaN)
            s = s * tl.exp(m - new_shift) + tl.sum(tl.exp(x - new_shift[:, None]), axis=1)
            if SMOOTH:
                if HAS_W:
                    w = tl.load(w_ptr + cols * w_stride, mask=col_mask, other=0).to(ACC)
                else:
                    w = tl.where(col_mask, 1.0, 0.0).to(ACC)
                # re-shift what was accumulated so far, then add this tile (masked columns add 0)
                d = d - w_sum * (new_shift - old_shift)
                d += tl.sum(w[None, :] * (tl.where(mask, x, new_shift[:, None]) - new_shift[:, None]), axis=1)
                w_sum += tl.sum(w, axis=0)
            m = m_new
        shift = max_shift(m)
        log_s = tl.log(s)
        if SMOOTH:
            smooth = w_sum * log_s - d

    eps = tl.cast(smooth_bits, tl.int64).to(tl.float64, bitcast=True).to(ACC)
    loss = w_t * ((shift - x_t) + log_s)
    if SMOOTH:
        loss = (1.0 - eps) * loss + (eps / n_cols) * smooth
    loss = tl.where(valid, loss, 0.0)
    tl.store(loss_ptr + rows, loss, mask=row_mask)
    tl.store(wrow_ptr + rows, w_t, mask=row_mask)
    tl.store(stats_ptr + 2 * rows, shift, mask=row_mask)
    tl.store(stats_ptr + 2 * rows + 1, log_s, mask=row_mask)


@triton.jit
def _cross_entropy_backward_kernel(
    dx_ptr,  # output: gradient of the logits (rows x classes, strided)
    g_ptr, x_ptr, t_ptr, w_ptr,  # incoming per-row gradient, logits, target, weights
    stats_ptr,  # the forward's (m, log(s)) per row
    n_rows, n_cols,
    ignore_index,
    smooth_bits: tl.int64,
    ks1, ks2, ks3, ks4, ks5,  # row sizes
    xs0, xs1, xs2, xs3, xs4, xs5,  # logits strides of the row dims
    ts0, ts1, ts2, ts3, ts4, ts5,  # target strides of the row dims
    gs0, gs1, gs2, gs3, gs4, gs5,  # incoming gradient strides of the row dims (0 when broadcast)
    os0, os1, os2, os3, os4, os5,  # dx strides of the row dims
    x_col_stride, out_col_stride, w_stride,
    HAS_W: tl.constexpr, SMOOTH: tl.constexpr, ACC: tl.constexpr, KEPT_NDIM: tl.constexpr,
    INT64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        rows = pid.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
    else:
        rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    x_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, xs0, xs1, xs2, xs3, xs4, xs5, KEPT_NDIM)
    t_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, ts0, ts1, ts2, ts3, ts4, ts5, KEPT_NDIM)
    g_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, gs0, gs1, gs2, gs3, gs4, gs5, KEPT_NDIM)
    o_row = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, os0, os1, os2, os3, os4, os5, KEPT_NDIM)
    out_ty = dx_ptr.dtype.element_ty

    t = tl.load(t_ptr + t_row, mask=row_mask, other=0).to(tl.int64)
    valid = row_mask & (t != ignore_index) & (t >= 0) & (t < n_cols)
    t_safe = tl.where(valid, t, 0)
    g = tl.load(g_ptr + g_row, mask=valid, other=0).to(ACC)
    shift = tl.load(stats_ptr + 2 * rows, mask=valid, other=0).to(ACC)
    log_s = tl.load(stats_ptr + 2 * rows + 1, mask=valid, other=0).to(ACC)
    if HAS_W:
        w_t = tl.load(w_ptr + t_safe * w_stride, mask=valid, other=0).to(ACC)
    else:
        w_t = tl.where(valid, 1.0, 0.0).to(ACC)
    eps = tl.cast(smooth_bits, tl.int64).to(tl.float64, bitcast=True).to(ACC)
    if SMOOTH:
        # W = sum of all class weights (C without weights): one pass over the weight vector
        if HAS_W:
            w_acc = tl.zeros([BLOCK_N], ACC)
            for start in range(first_column(INT64), n_cols, BLOCK_N):
                cols = column_tile(start, BLOCK_N, INT64)
                w_acc += tl.load(w_ptr + cols * w_stride, mask=cols < n_cols, other=0).to(ACC)
            w_all = tl.zeros([BLOCK_M], ACC) + tl.sum(w_acc, axis=0)
        else:
            w_all = tl.zeros([BLOCK_M], ACC) + n_cols
        coef_t = g * (1.0 - eps) * w_t  # multiplies (p_c - [c == t])
        coef_s = g * (eps / n_cols)  # multiplies (W * p_c - w_c)
    else:
        coef_t = g * w_t

    for start in range(first_column(INT64), n_cols, BLOCK_N):
        cols = column_tile(start, BLOCK_N, INT64)
        col_mask = cols < n_cols
        mask = row_mask[:, None] & col_mask[None, :]
        x = tl.load(x_ptr + x_row[:, None] + cols[None, :] * x_col_stride, mask=mask, other=0).to(ACC)
        p = tl.exp((x - shift[:, None]) - log_s[:, None])
        onehot = tl.where(cols[None, :] == t_safe[:, None], 1.0, 0.0).to(ACC)
        dx = coef_t[:, None] * (p - onehot)
        if SMOOTH:
            if HAS_W:
                w = tl.load(w_ptr + cols * w_stride, mask=col_mask, other=0).to(ACC)
            else:
                w = tl.where(col_mask, 1.0, 0.0).to(ACC)
            dx += coef_s[:, None] * (w_all[:, None] * p - w[None, :])
        # ignored rows get exact zeros (even when their logits are inf/NaN)
        dx = tl.where(valid[:, None], dx, 0.0)
        tl.store(dx_ptr + o_row[:, None] + cols[None, :] * out_col_stride, cast_to(dx, out_ty), mask=mask)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------

# Elements of one row tile kept in registers: a row up to this many classes is loaded once.
MAX_ONE_TILE = 65536 if INTERPRET else 8192
LOOP_BLOCK_N = 65536 if INTERPRET else 2048  # column tile of the looped (long-row) path
TILE_BUDGET = 65536 if INTERPRET else 4096  # elements per program for short rows


def pick_config(n_rows: int, n_cols: int) -> dict:
    """Short rows: several rows per program (for (N, C, H, W) logits, whose rows are contiguous,
    a wide BLOCK_M also makes each load coalesced); long rows: one row, a looped column tile."""
    block_n = next_pow2(max(n_cols, 1))
    if block_n <= MAX_ONE_TILE:
        one_tile = True
        block_m = max(1, min(next_pow2(max(n_rows, 1)), TILE_BUDGET // block_n))
    else:
        one_tile, block_m, block_n = False, 1, LOOP_BLOCK_N
    tile = block_m * block_n
    num_warps = 4 if tile <= 2048 else 8 if tile <= 8192 else 16
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "ONE_TILE": one_tile, "num_warps": num_warps}


def _rows_view(arr, class_dim: int | None):
    """Shape/strides with the class dim in place; a target-like array (no class dim) gets a
    stride-0 stand-in there so every operand shares the logits' dim numbering."""
    if class_dim is None:
        return arr.shape, arr.strides
    shape = list(arr.shape)
    strides = list(arr.strides)
    shape.insert(class_dim, 1)
    strides.insert(class_dim, 0)
    return tuple(shape), tuple(strides)


def _layout(x, class_dim: int, row_operands, col_operands):
    """Row layout over the logits' shape; ``row_operands``: (array, has_class_dim) read per row."""
    shape = x.shape
    kept = []
    for arr, has_class in row_operands:
        _, st = _rows_view(arr, None if has_class else class_dim)
        kept.append(st)
    red = [arr.strides for arr in col_operands]
    lay = row_layout(shape, (class_dim,), kept, red)
    if lay is None:
        raise NotImplementedError("cross_entropy: logits with more than six non-mergeable row dims")
    return lay


def _as_2d(x, t):
    """A (C,) logits vector with a 0-d target is one row of C columns."""
    if x.ndim == 1:
        return x.view((1, x.shape[0]), (0, x.strides[0])), t.view((1,), (0,))
    return x, t


def status_size(n_rows: int, n_cols: int) -> int:
    """Length of the forward's ``status`` output: one flag per program."""
    return cdiv(n_rows, pick_config(n_rows, n_cols)["BLOCK_M"]) if n_rows else 0


def cross_entropy_forward(loss, wrow, stats, status, x, target, weight, *, class_dim: int, ignore_index: int,
                          label_smoothing: float) -> None:
    """Per-row ``loss``, ``wrow`` (= w_t, 0 if ignored) and ``stats`` (the target's shape + (2,): m, 0 for
    a row with no finite maximum, and log(s)) of logits ``x`` (the class dim is
    ``class_dim``) against class indices ``target``; ``weight`` (C) or None. ``status`` (int32, one per
    program, see :func:`status_size`) flags out-of-range targets."""
    if loss.numel == 0:
        return
    x2, t2 = _as_2d(x, target)
    cd = 1 if x.ndim == 1 else class_dim
    n_cols = x2.shape[cd]
    if n_cols == 0:
        raise ValueError("cross_entropy: the class dim has size 0")
    lay = _layout(x2, cd, [(x2, True), (t2, False)], [x2])
    cfg = pick_config(lay.n_rows, n_cols)
    acc = float_acc(x.dtype)
    w_arr = weight if weight is not None else x2
    launch(
        _cross_entropy_forward_kernel, (cdiv(lay.n_rows, cfg["BLOCK_M"]),),
        loss, wrow, stats, status, x2, t2, w_arr, lay.n_rows, n_cols, int(ignore_index),
        float64_bits(label_smoothing), *lay.kept_sizes[1:], *lay.kept_strides[0], *lay.kept_strides[1],
        x2.strides[cd], weight.strides[0] if weight is not None else 0,
        HAS_W=weight is not None, SMOOTH=label_smoothing != 0, ACC=tl_dtype(acc), KEPT_NDIM=lay.kept_ndim,
        # (stats holds two values a row: with one class it outgrows the logits)
        INT64=needs_int64(x2, t2, loss, wrow, stats) or loop_needs_int64(n_cols, cfg["BLOCK_N"]), **cfg,
    )


def cross_entropy_backward(dx, grad, x, target, weight, stats, *, class_dim: int, ignore_index: int,
                           label_smoothing: float) -> None:
    """``dx`` (the logits' shape) from the per-row incoming ``grad`` and the forward's ``stats``."""
    if dx.numel == 0:
        return
    x2, t2 = _as_2d(x, target)
    if x.ndim == 1:
        dx2 = dx.view((1, dx.shape[0]), (0, dx.strides[0]))
        g2 = grad.view((1,), (0,))
    else:
        dx2, g2 = dx, grad
    cd = 1 if x.ndim == 1 else class_dim
    n_cols = x2.shape[cd]
    lay = _layout(x2, cd, [(x2, True), (t2, False), (g2, False), (dx2, True)], [x2, dx2])
    cfg = pick_config(lay.n_rows, n_cols)
    cfg.pop("ONE_TILE")  # one tile: BLOCK_N covers the row and the column loop runs once
    acc = float_acc(x.dtype)
    w_arr = weight if weight is not None else x2
    launch(
        _cross_entropy_backward_kernel, (cdiv(lay.n_rows, cfg["BLOCK_M"]),),
        dx2, g2, x2, t2, w_arr, stats, lay.n_rows, n_cols, int(ignore_index), float64_bits(label_smoothing),
        *lay.kept_sizes[1:], *lay.kept_strides[0], *lay.kept_strides[1], *lay.kept_strides[2],
        *lay.kept_strides[3], x2.strides[cd], dx2.strides[cd], weight.strides[0] if weight is not None else 0,
        HAS_W=weight is not None, SMOOTH=label_smoothing != 0, ACC=tl_dtype(acc), KEPT_NDIM=lay.kept_ndim,
        INT64=needs_int64(x2, t2, dx2, g2, stats) or loop_needs_int64(n_cols, cfg["BLOCK_N"]), **cfg,
    )


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def _twin_rows(x, target, class_dim):
    """(rows, C) logits and (rows,) targets in the compute dtype, rows in the target's order."""
    acc = float_acc(x.dtype)
    xf = np.asarray(x, dtype=host_float(x.dtype)).astype(acc)
    if xf.ndim == 1:
        return xf[None, :], np.asarray(target).reshape(1).astype(np.int64), acc
    xr = np.moveaxis(xf, class_dim, -1).reshape(-1, xf.shape[class_dim])
    return xr, np.asarray(target).reshape(-1).astype(np.int64), acc


def _twin_common(x, target, weight, class_dim, ignore_index):
    xr, t, acc = _twin_rows(x, target, class_dim)
    n_cols = xr.shape[1]
    valid = (t != ignore_index) & (t >= 0) & (t < n_cols)
    t_safe = np.where(valid, t, 0)
    w = np.ones(n_cols, acc) if weight is None else np.asarray(weight, dtype=host_float(weight.dtype)).astype(acc)
    with np.errstate(all="ignore"):
        m = xr.max(axis=1, initial=-np.inf)
        shift = np.where(m == -np.inf, acc.type(0), m)
        log_s = np.log(np.exp(xr - shift[:, None]).sum(axis=1))
    return xr, t_safe, valid, w, shift, log_s, acc


def cross_entropy_forward_twin(loss, wrow, stats, status, x, target, weight, *, class_dim: int, ignore_index: int,
                               label_smoothing: float) -> None:
    if loss.size == 0:
        return
    xr, t_safe, valid, w, shift, log_s, acc = _twin_common(x, target, weight, class_dim, ignore_index)
    t = np.asarray(target).reshape(-1).astype(np.int64)
    bad = (t != ignore_index) & ((t < 0) | (t >= xr.shape[1]))
    block_m = -(-len(t) // len(status))  # the kernel's rows per program
    status[...] = np.zeros(len(status), np.int32)
    status[np.nonzero(bad)[0] // block_m] = 1
    rows = np.arange(xr.shape[0])
    w_t = np.where(valid, w[t_safe], 0).astype(acc)
    with np.errstate(all="ignore"):
        lr = w_t * ((shift - xr[rows, t_safe]) + log_s)
        if label_smoothing != 0:
            smooth = w.sum() * log_s - (w[None, :] * (xr - shift[:, None])).sum(axis=1)
            eps = acc.type(label_smoothing)
            lr = (1 - eps) * lr + eps / xr.shape[1] * smooth
    loss[...] = np.where(valid, lr, 0).astype(acc).reshape(loss.shape)
    wrow[...] = w_t.reshape(wrow.shape)
    stats[...] = np.stack([shift, log_s], axis=-1).astype(acc).reshape(stats.shape)


def cross_entropy_backward_twin(dx, grad, x, target, weight, stats, *, class_dim: int, ignore_index: int,
                                label_smoothing: float) -> None:
    if dx.size == 0:
        return
    xr, t_safe, valid, w, _, _, acc = _twin_common(x, target, weight, class_dim, ignore_index)
    n_rows, n_cols = xr.shape
    g = np.asarray(grad, dtype=acc).reshape(-1)
    shift, log_s = np.asarray(stats, dtype=acc).reshape(-1, 2).T
    w_t = np.where(valid, w[t_safe], 0).astype(acc)
    eps = acc.type(label_smoothing)
    with np.errstate(all="ignore"):
        p = np.exp((xr - shift[:, None]) - log_s[:, None])
        onehot = np.zeros_like(xr)
        onehot[np.arange(n_rows), t_safe] = 1
        d = (g * (1 - eps) * w_t)[:, None] * (p - onehot)
        if label_smoothing != 0:
            d += (g * eps / n_cols)[:, None] * (w.sum() * p - w[None, :])
    d = np.where(valid[:, None], d, 0)
    if x.ndim == 1:
        out = d.reshape(n_cols)
    else:
        moved = list(x.shape)
        c = moved.pop(class_dim)
        out = np.moveaxis(d.reshape(*moved, c), -1, class_dim)
    dx[...] = host_cast(out, dx.dtype)
