"""Variance and standard deviation (with the mean): ``var``, ``std``, ``var_mean``, ``std_mean``.

One pass over the input, numerically stable. Rows x columns as in ``reduce.py`` (strided
reads, no copies). Each program walks its rows' columns in tiles; a tile's statistics are
two-pass ones computed in registers (its mean, then the squared deviations from that mean,
with the "corrected two-pass" term of Chan, Golub & LeVeque that removes the first mean's
rounding error), and they are merged into the running (count, mean, M2) of the row with Chan et
al.'s parallel formula::

    delta = mean_b - mean_a;  n = n_a + n_b
    mean  = mean_a + delta * n_b / n
    M2    = M2_a + M2_b + delta**2 * n_a * n_b / n

so a large common offset never cancels catastrophically (the failure of sum(x**2) - n*mean**2),
and a row that fits one tile is the textbook two-pass result. All of it runs on ``x - K``, K the
row's first element, so the running mean stays small and exact even when the data sit on a large
offset (fp32 keeps 24 bits for the deviations, not for the offset). The means are kept of the
halved deviations ``(x - K) / 2`` and each tile's mean sums ``x_i / n``, so no intermediate of the
mean overflows (data spanning more than the dtype's range: ``[3e38, -3e38]`` has mean 0), while
M2 is accumulated at full scale and an overflow makes it inf, never inf - inf (its variance is
inf, not nan). Accumulation is fp32 for fp16/bf16/fp32 and fp64 for fp64; the numpy twin does
the same arithmetic on one tile holding the whole row. ``var = M2 / max(0, N - correction)``.

Few long rows (a full reduction) are split into segments: the first launch writes the
(mean, M2) of each segment, in float64; the second launch merges them with the same formula in
float64, each segment's count following from its position (every segment but the last is full).

Layout of this file: kernel, launcher, numpy twin.
"""

from __future__ import annotations

import math

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..fill import float64_bits
from ..launch import cdiv, launch, loop_needs_int64, needs_int64
from . import common
from .common import (
    RowLayout,
    cast_to,
    dim_offsets,
    float_acc,
    host_cast,
    out_strides,
    row_layout,
    split_config,
    sqrt_rn,
    tile_config,
    tl_dtype,
)

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _unhalve_mean(mean_h, K):
    """The mean from the mean ``mean_h`` of the halved deviations ``(x - K) / 2``: ``2 mean_h + K``
    (exact when the deviations are), or ``2 (mean_h + K / 2)`` where ``2 mean_h`` overflows (K and
    the mean far apart, both large: the mean itself is representable)."""
    twice = mean_h + mean_h
    return tl.where(tl.abs(twice) < float("inf"), twice + K, (mean_h + K * 0.5) * 2.0)


@triton.jit
def _var_kernel(
    var_ptr, mean_ptr,  # outputs: var (or std, or a split's partial M2), mean (or partial means)
    in_ptr, in_m2_ptr,  # input (or partial means), partial M2 (read when PARTIALS)
    n_rows, n_cols, seg_len, part_len, n_total, divisor_bits: tl.int64,
    ks1, ks2, ks3, ks4, ks5,  # kept (row) sizes, dim 5 innermost
    is0, is1, is2, is3, is4, is5,  # input strides of the kept dims
    vs0, vs1, vs2, vs3, vs4, vs5,  # var-output strides of the kept dims
    ms0, ms1, ms2, ms3, ms4, ms5,  # mean-output strides of the kept dims
    rs1, rs2, rs3, rs4, rs5,  # reduced (column) sizes
    rt0, rt1, rt2, rt3, rt4, rt5,  # input strides of the reduced dims
    PARTIALS: tl.constexpr,  # columns are (mean, M2) partials of part_len elements each (last: the rest)
    FINAL: tl.constexpr,  # write var/std and mean (else raw M2 and mean partials)
    STD: tl.constexpr, HAS_MEAN: tl.constexpr, ACC: tl.constexpr,
    KEPT_NDIM: tl.constexpr, RED_NDIM: tl.constexpr, INT64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    pid_m = tl.program_id(0)
    seg = tl.program_id(1)
    if INT64:
        rows = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
        seg = seg.to(tl.int64)
    else:
        rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    row_off = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, is0, is1, is2, is3, is4, is5, KEPT_NDIM)
    col_lo = seg * seg_len
    col_hi = tl.minimum(col_lo + seg_len, n_cols)

    # Work on x - K with K the row's first element (of this segment): deviations from a nearby
    # value are exact (Sterbenz) and small, so a mean far from zero costs no precision. A
    # non-finite K would turn finite elements into inf/nan: use 0 then (the result is nan anyway).
    k_off = dim_offsets(col_lo, rs1, rs2, rs3, rs4, rs5, rt0, rt1, rt2, rt3, rt4, rt5, RED_NDIM)
    k_mask = row_mask & (tl.zeros_like(rows) + col_lo < col_hi)  # (a tensor even when the sizes are constants)
    K = tl.load(in_ptr + row_off + k_off, mask=k_mask, other=0).to(ACC)
    K = tl.where(tl.abs(K) < float("inf"), K, 0.0)
    n = tl.zeros([1], tl.int64)  # elements merged so far (the same for every row)
    mean = tl.zeros([BLOCK_M], ACC)  # the running mean of (x - K) / 2
    m2 = tl.zeros([BLOCK_M], ACC)
    for start in range(col_lo, col_hi, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        col_ok = cols < col_hi
        col_off = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, rt0, rt1, rt2, rt3, rt4, rt5, RED_NDIM)
        mask = row_mask[:, None] & col_ok[None, :]
        ptr_off = row_off[:, None] + col_off[None, :]
        x = tl.load(in_ptr + ptr_off, mask=mask, other=0).to(ACC)
        # the halved deviations (x - K) / 2: they never overflow (x - K does when the data span more
        # than the dtype's range), so neither does a mean of them; halving is exact but for
        # deviations below twice the smallest normal number (2**-125 in fp32): their last bit
        xs = x - K[:, None]
        xs = tl.where(tl.abs(xs) < float("inf"), xs * 0.5, x * 0.5 - K[:, None] * 0.5)
        if PARTIALS:
            # each column is a segment of part_len elements, the last one holds the remainder
            cnt_i = tl.where(col_ok, tl.minimum(part_len, n_total - cols.to(tl.int64) * part_len), 0)
            m2_b = tl.sum(tl.load(in_m2_ptr + ptr_off, mask=mask, other=0).to(ACC), axis=1)
        else:
            cnt_i = col_ok.to(tl.int64)
            m2_b = tl.zeros([BLOCK_M], ACC)
        w = cnt_i.to(ACC)[None, :]
        n_b = tl.sum(cnt_i, axis=0)
        nf = n_b.to(ACC)
        ws = w / nf  # each element's share of the tile's mean: no partial sum of w * xs can overflow
        # the tile's statistics, two-pass in registers with the corrected second pass: the first
        # mean is off by its rounding error c (large when the data sit on a large offset), and
        # sum(w d^2) - n c^2 is the exact second moment about the corrected mean mean0 + c
        mean0 = tl.sum(ws * xs, axis=1)
        d = tl.where(mask, xs - mean0[:, None], 0.0)
        c = tl.sum(ws * d, axis=1)
        # an infinite mean0 (an inf in the tile) makes d, hence c, nan: the mean is mean0 itself
        # then (m2_b stays nan, so the variance is nan, as PyTorch's)
        mean_b = tl.where(tl.abs(mean0) < float("inf"), mean0 + c, mean0)
        # the second moment at full scale (2d, 2c): an overflow gives inf, never inf - inf
        dd = d + d
        s2 = tl.sum(w * dd * dd, axis=1)
        cc = c + c
        m2_b += tl.where(s2 < float("inf"), s2 - cc * cc * nf, s2)
        # Chan's merge of (n, mean, m2) with (n_b, mean_b, m2_b), on the halved deviations
        n_new = n + n_b
        frac = n_b.to(ACC) / n_new.to(ACC)
        delta = mean_b - mean
        # an infinite mean on either side makes delta inf or nan and mean + delta * frac nan
        # (-inf + inf); the weighted average gives what the sum would (+-inf, nan for both signs)
        mean = tl.where(tl.abs(delta) < float("inf"), mean + delta * frac, mean * (1.0 - frac) + mean_b * frac)
        # (2 delta)^2 n_a n_b / n, multiplied in an order that overflows to inf, never to inf * 0
        m2 = m2 + m2_b + ((delta * (n.to(ACC) * frac)) * delta) * 4.0
        n = n_new

    if FINAL:
        divisor = tl.cast(divisor_bits, tl.int64).to(tl.float64, bitcast=True).to(ACC)
        v = m2 / divisor  # max(0, N - correction) = 0 gives inf or nan, as PyTorch
        v = tl.where(n > 0, v, float("nan"))  # (an empty row is nan whatever the correction: -1 gave 0)
        if STD:
            v = sqrt_rn(v)
        mean = tl.where(n > 0, _unhalve_mean(mean, K), float("nan"))  # an empty row's mean is nan
    else:  # a segment's partials: the mean in the partials' float64, where adding K back loses nothing
        v = m2
        mean = _unhalve_mean(mean.to(mean_ptr.dtype.element_ty), K.to(mean_ptr.dtype.element_ty))
    var_off = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, vs0, vs1, vs2, vs3, vs4, vs5, KEPT_NDIM)
    tl.store(var_ptr + var_off + seg, cast_to(v, var_ptr.dtype.element_ty), mask=row_mask)
    if HAS_MEAN:
        mean_off = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, ms0, ms1, ms2, ms3, ms4, ms5, KEPT_NDIM)
        tl.store(mean_ptr + mean_off + seg, cast_to(mean, mean_ptr.dtype.element_ty), mask=row_mask)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def _launch(var, mean, inp, in_m2, lay: RowLayout, *, final, std, acc, segments, seg_len, part_len, n_total,
            divisor, cfg):
    k, r = lay.kept_sizes, lay.red_sizes
    launch(
        _var_kernel, (cdiv(lay.n_rows, cfg["BLOCK_M"]), segments),
        var, mean if mean is not None else var, inp, in_m2 if in_m2 is not None else inp,
        lay.n_rows, lay.n_cols, seg_len, part_len, n_total, float64_bits(divisor),
        *k[1:], *lay.kept_strides[0], *lay.kept_strides[1], *lay.kept_strides[2], *r[1:], *lay.red_strides[0],
        PARTIALS=in_m2 is not None, FINAL=final, STD=std, HAS_MEAN=mean is not None, ACC=tl_dtype(acc),
        KEPT_NDIM=lay.kept_ndim, RED_NDIM=lay.red_ndim,
        INT64=needs_int64(inp, var, mean) or loop_needs_int64(segments * seg_len, cfg["BLOCK_N"]), **cfg,
    )


def var_mean(var, mean, inp, *, dims, correction: float = 1.0, std: bool = False,
             segments: int | None = None) -> None:
    """``var`` (or the standard deviation with ``std``) and ``mean`` (None: not wanted) of the
    floating DeviceArray ``inp`` over ``dims``; divisor ``max(0, N - correction)``."""
    if var.numel == 0:
        return
    dims = tuple(sorted(set(dims)))
    acc = float_acc(inp.dtype)
    n = math.prod(inp.shape[d] for d in dims)
    divisor = float(max(0.0, n - correction))
    mstrides = out_strides(mean, inp, dims) if mean is not None else [0] * inp.ndim
    lay = row_layout(inp.shape, dims, [inp.strides, out_strides(var, inp, dims), mstrides], [inp.strides])
    if lay is None:
        # more than six non-mergeable dims in a group: one explicit copy to (rows, cols) first
        src, _ = common.permuted_copy(inp, dims)
        from ..copy import strided_copy

        tv = rt.empty((src.shape[0],), var.dtype, var.device)
        tm = rt.empty((src.shape[0],), mean.dtype, var.device) if mean is not None else None
        var_mean(tv, tm, src, dims=(1,), correction=correction, std=std, segments=segments)
        strided_copy(var, tv.view(var.shape, rt.contiguous_strides(var.shape)))
        if mean is not None:
            strided_copy(mean, tm.view(mean.shape, rt.contiguous_strides(mean.shape)))
        return
    cfg = tile_config(lay.n_rows, lay.n_cols, lay.kept_strides[0][-1], lay.red_strides[0][-1], inp.itemsize)
    force = segments if segments is not None else common.FORCE_SEGMENTS
    nseg, seg_len = split_config(lay.n_rows, lay.n_cols, cfg["BLOCK_M"], cfg["BLOCK_N"], var.device, force)
    common_args = dict(std=std, acc=acc, n_total=n, divisor=divisor)
    if nseg == 1:
        _launch(var, mean, inp, None, lay, final=True, segments=1, seg_len=max(n, 1), part_len=1, cfg=cfg,
                **common_args)
        return
    # The partials and their merge are float64 (rows x segments: a few values): a segment's mean,
    # stored back on its offset, would lose its small deviations in float32 (data of spread 1e-3
    # on -1000 lost 0.3% of their variance)
    part_acc = np.dtype(np.float64)
    pm2 = rt.empty((lay.n_rows, nseg), part_acc, var.device)
    pmean = rt.empty((lay.n_rows, nseg), part_acc, var.device)
    pstrides = tuple(s * nseg for s in rt.contiguous_strides(lay.kept_shape))
    stage1 = RowLayout(lay.kept_shape, [lay.kept_real[0], pstrides, pstrides], lay.red_shape, [lay.red_real[0]])
    _launch(pm2, pmean, inp, None, stage1, final=False, segments=nseg, seg_len=seg_len, part_len=1, cfg=cfg,
            **common_args)
    stage2 = RowLayout(lay.kept_shape, [pstrides, lay.kept_real[1], lay.kept_real[2]], (nseg,), [(1,)])
    cfg2 = tile_config(stage2.n_rows, nseg, nseg, 1, part_acc.itemsize)
    _launch(var, mean, pmean, pm2, stage2, final=True, segments=1, seg_len=nseg, part_len=seg_len, cfg=cfg2,
            **dict(common_args, acc=part_acc))


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def var_mean_twin(var, mean, inp, *, dims, correction: float = 1.0, std: bool = False,
                  segments: int | None = None) -> None:
    """The kernel's arithmetic on one tile that holds the whole row, in the accumulation dtype:
    halved deviations from the row's first element K, their mean with the corrected two-pass term,
    the second moment at full scale (so both devices agree where intermediates overflow)."""
    dims = tuple(sorted(set(dims)))
    acc = float_acc(inp.dtype)
    x = inp.astype(acc)
    n = math.prod(inp.shape[d] for d in dims)
    half, two = acc.type(0.5), acc.type(2.0)
    with np.errstate(all="ignore"):
        if n:  # K: the row's first element (0 when it is not finite, and for an empty row)
            k = x[tuple(slice(0, 1) if i in dims else slice(None) for i in range(x.ndim))]
            k = np.where(np.abs(k) < np.inf, k, acc.type(0))
        else:
            k = np.zeros([1 if i in dims else s for i, s in enumerate(x.shape)], acc)
        xs = x - k
        xs = np.where(np.abs(xs) < np.inf, xs * half, x * half - k * half)
        share = acc.type(1) / acc.type(n) if n else acc.type(0)
        mean0 = (xs * share).sum(axis=dims, keepdims=True)
        d = xs - mean0
        c = (d * share).sum(axis=dims, keepdims=True)
        m = np.where(np.abs(mean0) < np.inf, mean0 + c, mean0)
        dd = d + d
        s2 = (dd * dd).sum(axis=dims, keepdims=True)
        m2 = np.where(s2 < np.inf, s2 - (c + c) * (c + c) * acc.type(n), s2)
        v = m2 / acc.type(max(0.0, n - correction))
        if not n:  # (an empty row is nan whatever the correction: -1 gave 0)
            v = np.full_like(v, np.nan)
        if std:
            v = np.sqrt(v)
        twice = m + m
        m = np.where(np.abs(twice) < np.inf, twice + k, (m + k * half) * two) if n else np.full_like(m, np.nan)
    var[...] = host_cast(np.asarray(v, acc), var.dtype).reshape(var.shape)
    if mean is not None:
        mean[...] = host_cast(np.asarray(m, acc), mean.dtype).reshape(mean.shape)


def var_only(var, inp, *, dims, correction: float = 1.0, std: bool = False, segments: int | None = None) -> None:
    """``var`` (or ``std``) alone: :func:`var_mean` without the mean output."""
    var_mean(var, None, inp, dims=dims, correction=correction, std=std, segments=segments)


def var_only_twin(var, inp, *, dims, correction: float = 1.0, std: bool = False, segments: int | None = None) -> None:
    var_mean_twin(var, None, inp, dims=dims, correction=correction, std=std, segments=segments)
