"""The generic row reduction: sum, mean, prod, amax, amin, all, any, count_nonzero, norm, logsumexp.

One kernel, specialised at compile time by three choices:

``PRE``      what each element becomes before combining: itself, ``|x|``, ``x*x``, ``|x|**p``
             or ``x != 0``;
``COMBINE``  how elements combine: sum, product, max, min (both NaN-propagating, as PyTorch's),
             or log-sum-exp;
``POST``     what the row's result becomes: itself, ``/ count`` (mean), ``sqrt``, ``** (1/p)``.

The input is read as rows x columns through its strides (``common.row_layout``; no copies).
Each program owns ``BLOCK_M`` rows and walks their columns in ``BLOCK_N``-wide tiles, keeping
one accumulator per tile lane (``[BLOCK_M, BLOCK_N]``) and folding the lanes once at the end:
sequential adds per lane, a tree across lanes, the same order every run (deterministic).
Floating inputs accumulate in fp32 (fp16/bf16/fp32) or fp64; integers and bools in int64.

Log-sum-exp keeps a running row maximum ``m`` and ``s = sum(exp(x - m))``, rescaling ``s``
when ``m`` grows (the online-softmax recurrence), so ``exp`` never overflows; an infinite
maximum is replaced by 0 as the shift (PyTorch's rule: all ``-inf`` gives ``-inf``, a ``+inf``
gives ``+inf``).

Too few rows to fill the device (a full reduction is one row): each row is split into
segments, a first launch writes one partial per (row, segment) in the accumulation dtype and
a second launch of the same kernel combines the partials and applies ``POST``. No atomics.

A full reduction can instead finish in one launch (``FULL_ONE_PASS``, a point of the declared
configuration space that ``tools/sweep_configs.py`` measures; off until a GPU run shows it
faster): each program writes its segment's partial and takes a ticket from an integer counter
(an integer atomic, so no float atomics and the same result); the program holding the last
ticket combines the partials in segment order, as the second launch would, and resets the
counter. It saves the second launch and the gap between the two.

Layout of this file: kernel, launcher, numpy twin.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..fill import float64_bits
from ..launch import INTERPRET, cdiv, launch, loop_needs_int64, needs_int64
from . import common
from .common import (
    RowLayout,
    cast_to,
    dim_offsets,
    float_acc,
    host_cast,
    is_float,
    max_nan,
    max_rows,
    min_nan,
    min_rows,
    out_dims_strides,
    prod_rows,
    row_layout,
    split_config,
    sqrt_rn,
    tile_config,
    tl_dtype,
)

PRE_NONE, PRE_ABS, PRE_SQUARE, PRE_ABS_POW, PRE_NONZERO = range(5)
COMBINE_SUM, COMBINE_PROD, COMBINE_MAX, COMBINE_MIN, COMBINE_LSE = range(5)
POST_NONE, POST_DIV_COUNT, POST_SQRT, POST_ROOT = range(4)

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _pre(x, p, PRE: tl.constexpr, ACC: tl.constexpr):
    if PRE == 4:  # x != 0 (all, any, count_nonzero, the 0-"norm")
        if x.dtype.is_bf16() or x.dtype.is_fp16():
            # compare values, not bits: Triton's interpreter compares a bf16's raw bits (-0.0 != 0)
            # and types the result bf16 (whose conversion to ACC then fails); free on a GPU
            x = x.to(tl.float32)
        y = (x != 0).to(ACC)
    else:
        y = x.to(ACC)
        if PRE == 1:
            y = tl.abs(y)
        elif PRE == 2:
            y = y * y
        elif PRE == 3:  # |x| ** p; |x| = 0 gives exp2(-inf) = 0 for p > 0 and inf for p < 0, as pow does
            y = tl.exp2(p * tl.log2(tl.abs(y)))
    return y


@triton.jit
def _finite_or_zero(m):
    # the shift used by log-sum-exp: an infinite (or empty-row) maximum shifts by 0
    return tl.where(tl.abs(m) == float("inf"), 0.0, m)


@triton.jit
def _reduce_row_block(
    in_ptr, pid_m, seg, n_rows, n_cols, seg_len, p,
    ks1, ks2, ks3, ks4, ks5, is0, is1, is2, is3, is4, is5,
    rs1, rs2, rs3, rs4, rs5, rt0, rt1, rt2, rt3, rt4, rt5,
    PRE: tl.constexpr, COMBINE: tl.constexpr, IDENT: tl.constexpr, CONVERT: tl.constexpr, COMPUTE: tl.constexpr,
    ACC: tl.constexpr, KEPT_NDIM: tl.constexpr, RED_NDIM: tl.constexpr, INT64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    """(rows, row mask, the rows' results before POST) of program ``pid_m``'s rows over the
    columns of segment ``seg``."""
    if INT64:
        rows = pid_m.to(tl.int64) * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
        seg = seg.to(tl.int64)
    else:
        rows = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < n_rows
    row_off = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, is0, is1, is2, is3, is4, is5, KEPT_NDIM)
    col_lo = seg * seg_len
    col_hi = tl.minimum(col_lo + seg_len, n_cols)

    if COMBINE == 4:
        # log-sum-exp: per row, running maximum m and s = sum(exp(x - shift(m)))
        m = tl.full([BLOCK_M], float("-inf"), ACC)
        s = tl.zeros([BLOCK_M], ACC)
        for start in range(col_lo, col_hi, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            col_off = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, rt0, rt1, rt2, rt3, rt4, rt5, RED_NDIM)
            mask = row_mask[:, None] & (cols < col_hi)[None, :]
            x = tl.load(in_ptr + row_off[:, None] + col_off[None, :], mask=mask, other=0)
            if CONVERT:
                x = cast_to(x, COMPUTE)
            x = tl.where(mask, x.to(ACC), float("-inf"))
            # a NaN the GPU's max may skip still reaches s through exp(NaN - shift)
            m_new = tl.maximum(m, tl.max(x, axis=1))
            shift = _finite_or_zero(m_new)
            # rescale s to the new shift; nothing seen yet (m = -inf, s = 0) must stay 0, not 0 * inf
            scale = tl.where(m == float("-inf"), 0.0, tl.exp(_finite_or_zero(m) - shift))
            s = s * scale + tl.sum(tl.exp(x - shift[:, None]), axis=1)
            m = m_new
        r = _finite_or_zero(m) + tl.log(s)
    else:
        acc = tl.full([BLOCK_M, BLOCK_N], IDENT, ACC)
        for start in range(col_lo, col_hi, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            col_off = dim_offsets(cols, rs1, rs2, rs3, rs4, rs5, rt0, rt1, rt2, rt3, rt4, rt5, RED_NDIM)
            mask = row_mask[:, None] & (cols < col_hi)[None, :]
            x = tl.load(in_ptr + row_off[:, None] + col_off[None, :], mask=mask, other=0)
            if CONVERT:
                x = cast_to(x, COMPUTE)
            x = tl.where(mask, _pre(x, p, PRE, ACC), IDENT)
            if COMBINE == 0:
                acc = acc + x
            elif COMBINE == 1:
                acc = acc * x
            elif COMBINE == 2:
                acc = max_nan(acc, x)
            else:
                acc = min_nan(acc, x)
        # fold the lanes with built-in reductions (tree-shaped on the GPU, vectorised in the interpreter)
        if COMBINE == 0:
            r = tl.sum(acc, axis=1)
        elif COMBINE == 1:
            r = prod_rows(acc, BLOCK_M, BLOCK_N)
        elif COMBINE == 2:
            r = max_rows(acc)
        else:
            r = min_rows(acc)

    return rows, row_mask, r


@triton.jit
def _post(r, count, p, POST: tl.constexpr):
    if POST == 1:
        r = r / count  # mean; an empty row gives 0 / 0 = nan, as PyTorch
    elif POST == 2:
        r = sqrt_rn(r)
    elif POST == 3:
        r = tl.exp2(tl.log2(r) / p)
    return r


@triton.jit
def _reduce_kernel(
    out_ptr, in_ptr,  # output (or partials), input
    n_rows, n_cols, seg_len, count, p_bits: tl.int64,  # rows, columns, columns per segment, mean's count, p
    ks1, ks2, ks3, ks4, ks5,  # kept (row) sizes, right-aligned: 5 is innermost
    is0, is1, is2, is3, is4, is5,  # input strides of the kept dims
    os0, os1, os2, os3, os4, os5,  # output strides of the kept dims
    rs1, rs2, rs3, rs4, rs5,  # reduced (column) sizes
    rt0, rt1, rt2, rt3, rt4, rt5,  # input strides of the reduced dims
    out_row_stride,  # output offset of row r is r * out_row_stride when OUT_LINEAR
    PRE: tl.constexpr, COMBINE: tl.constexpr, POST: tl.constexpr, IDENT: tl.constexpr,
    CONVERT: tl.constexpr, COMPUTE: tl.constexpr,  # cast the input to COMPUTE first (the dtype= argument)
    ACC: tl.constexpr,  # accumulation dtype
    KEPT_NDIM: tl.constexpr, RED_NDIM: tl.constexpr, OUT_LINEAR: tl.constexpr, INT64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    seg = tl.program_id(1)  # which segment of the row (0 unless the rows are split)
    # p travels as the bits of an fp64 (exact on the GPU and in the interpreter alike)
    p = tl.cast(p_bits, tl.int64).to(tl.float64, bitcast=True).to(ACC)
    rows, row_mask, r = _reduce_row_block(
        in_ptr, tl.program_id(0), seg, n_rows, n_cols, seg_len, p, ks1, ks2, ks3, ks4, ks5, is0, is1, is2, is3, is4,
        is5, rs1, rs2, rs3, rs4, rs5, rt0, rt1, rt2, rt3, rt4, rt5, PRE, COMBINE, IDENT, CONVERT, COMPUTE, ACC,
        KEPT_NDIM, RED_NDIM, INT64, BLOCK_M, BLOCK_N)
    if INT64:
        seg = seg.to(tl.int64)
    r = _post(r, count, p, POST)
    if OUT_LINEAR:
        out_off = rows * out_row_stride
    else:
        out_off = dim_offsets(rows, ks1, ks2, ks3, ks4, ks5, os0, os1, os2, os3, os4, os5, KEPT_NDIM)
    tl.store(out_ptr + out_off + seg, cast_to(r, out_ptr.dtype.element_ty), mask=row_mask)


@triton.jit
def _full_reduce_kernel(
    partial_ptr, out_ptr, counter_ptr, in_ptr,  # a partial per segment, the 1-element output, the ticket counter, input
    n_cols, seg_len, n_segments, count, p_bits: tl.int64,  # columns, columns per segment, segments, count, p
    rs1, rs2, rs3, rs4, rs5,  # reduced sizes
    rt0, rt1, rt2, rt3, rt4, rt5,  # input strides of the reduced dims
    PRE: tl.constexpr, COMBINE: tl.constexpr, POST: tl.constexpr, IDENT: tl.constexpr,
    CONVERT: tl.constexpr, COMPUTE: tl.constexpr, ACC: tl.constexpr,
    RED_NDIM: tl.constexpr, INT64: tl.constexpr, BLOCK_N: tl.constexpr,
    SEG_BLOCK: tl.constexpr,  # a power of two >= n_segments
):
    """A full reduction in one launch: each program reduces one segment into ``partial_ptr``; the
    program that takes the last ticket of ``counter_ptr`` combines the partials (in segment
    order, deterministic) into ``out_ptr`` and resets the counter for the next launch."""
    seg = tl.program_id(1)  # the grid is (1, n_segments), as the first of the two passes'
    p = tl.cast(p_bits, tl.int64).to(tl.float64, bitcast=True).to(ACC)
    rows, row_mask, r = _reduce_row_block(
        in_ptr, tl.program_id(0), seg, 1, n_cols, seg_len, p, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, rs1, rs2, rs3, rs4, rs5,
        rt0, rt1, rt2, rt3, rt4, rt5, PRE, COMBINE, IDENT, CONVERT, COMPUTE, ACC, 1, RED_NDIM, INT64, 1, BLOCK_N)
    tl.store(partial_ptr + seg + rows, r, mask=row_mask)
    # every thread's store is issued before the ticket; the ticket's release (cumulative over the
    # barrier) publishes them, and the last program's acquire makes all partials visible to it
    tl.debug_barrier()
    ticket = tl.atomic_add(counter_ptr, 1, sem="acq_rel", scope="gpu")
    if ticket == n_segments - 1:
        offs = tl.arange(0, SEG_BLOCK)
        mask = offs < n_segments
        # .cg: read from L2, never from a line this SM's L1 may hold from an earlier launch
        v = tl.load(partial_ptr + offs, mask=mask, other=0, cache_modifier=".cg")[None, :]
        if COMBINE == 4:
            v = tl.where(mask[None, :], v, float("-inf"))
            m = tl.max(v, axis=1)
            shift = _finite_or_zero(m)
            total = shift + tl.log(tl.sum(tl.exp(v - shift[:, None]), axis=1))
        else:
            v = tl.where(mask[None, :], v, IDENT)
            if COMBINE == 0:
                total = tl.sum(v, axis=1)
            elif COMBINE == 1:
                total = prod_rows(v, 1, SEG_BLOCK)
            elif COMBINE == 2:
                total = max_rows(v)
            else:
                total = min_rows(v)
        total = _post(total, count, p, POST)
        tl.store(out_ptr + tl.arange(0, 1), cast_to(total, out_ptr.dtype.element_ty))
        tl.atomic_xchg(counter_ptr, 0)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------

OPS = ("sum", "mean", "prod", "amax", "amin", "all", "any", "count_nonzero", "norm", "logsumexp")

# op -> (PRE, COMBINE, POST); norm depends on p (see _spec)
_FIXED = {
    "sum": (PRE_NONE, COMBINE_SUM, POST_NONE),
    "mean": (PRE_NONE, COMBINE_SUM, POST_DIV_COUNT),
    "prod": (PRE_NONE, COMBINE_PROD, POST_NONE),
    "amax": (PRE_NONE, COMBINE_MAX, POST_NONE),
    "amin": (PRE_NONE, COMBINE_MIN, POST_NONE),
    "all": (PRE_NONZERO, COMBINE_MIN, POST_NONE),
    "any": (PRE_NONZERO, COMBINE_MAX, POST_NONE),
    "count_nonzero": (PRE_NONZERO, COMBINE_SUM, POST_NONE),
    "logsumexp": (PRE_NONE, COMBINE_LSE, POST_NONE),
}


def _spec(op: str, p: float, compute: np.dtype, n_cols: int = 2):
    """(PRE, COMBINE, POST, accumulation dtype) of ``op`` on elements of dtype ``compute``, over
    rows of ``n_cols`` elements."""
    if op == "norm":
        if p == 0:
            pre, comb, post = PRE_NONZERO, COMBINE_SUM, POST_NONE
        elif n_cols == 1:
            # The norm of one element is |x|, as PyTorch returns it: (x ** p) ** (1/p) overflows
            # (a float32 |x| > 1.8e19 for p = 2 gave inf) or underflows (|x| < 1e-23 gave 0).
            pre, comb, post = PRE_ABS, COMBINE_SUM, POST_NONE
        elif p == 1:
            pre, comb, post = PRE_ABS, COMBINE_SUM, POST_NONE
        elif p == 2:
            pre, comb, post = PRE_SQUARE, COMBINE_SUM, POST_SQRT
        elif p == math.inf:
            pre, comb, post = PRE_ABS, COMBINE_MAX, POST_NONE
        elif p == -math.inf:
            pre, comb, post = PRE_ABS, COMBINE_MIN, POST_NONE
        else:
            pre, comb, post = PRE_ABS_POW, COMBINE_SUM, POST_ROOT
        return pre, comb, post, float_acc(compute)
    if op not in _FIXED:
        raise ValueError(f"reduce: unknown op {op!r}; expected one of {OPS}")
    pre, comb, post = _FIXED[op]
    if op in ("all", "any"):
        acc = np.dtype(np.int32)
    elif op == "count_nonzero":
        acc = np.dtype(np.int64)
    elif is_float(compute):
        acc = float_acc(compute)
    elif op in ("mean", "logsumexp"):
        raise ValueError(f"reduce: {op} needs a floating input (got {compute})")
    else:
        acc = np.dtype(np.int64)
    return pre, comb, post, acc


def _identity(pre: int, combine: int, acc: np.dtype):
    if pre == PRE_NONZERO and combine in (COMBINE_MAX, COMBINE_MIN):
        return 0 if combine == COMBINE_MAX else 1  # any / all of 0-1 values: False / True when empty
    if combine == COMBINE_SUM:
        return 0
    if combine == COMBINE_PROD:
        return 1
    floating = acc.kind == "f"
    if combine == COMBINE_MAX:
        return float("-inf") if floating else int(np.iinfo(acc).min)
    if combine == COMBINE_MIN:
        return float("inf") if floating else int(np.iinfo(acc).max)
    return 0  # log-sum-exp masks with -inf itself


def _launch_args(lay: RowLayout, *, pre, combine, post, acc, compute, count, p, segments, seg_len, cfg, pre_ident,
                 int64: bool):
    """(grid, int arguments after the two pointers, constexprs) of one launch over ``lay``."""
    linear = lay.linear_stride(1)
    k, r = lay.kept_sizes, lay.red_sizes
    ints = (lay.n_rows, lay.n_cols, seg_len, count, float64_bits(p), *k[1:], *lay.kept_strides[0],
            *lay.kept_strides[1], *r[1:], *lay.red_strides[0], linear or 0)
    meta = dict(
        PRE=pre, COMBINE=combine, POST=post, IDENT=_identity(pre_ident, combine, acc),
        CONVERT=compute is not None, COMPUTE=tl_dtype(compute if compute is not None else acc),
        ACC=tl_dtype(acc), KEPT_NDIM=lay.kept_ndim, RED_NDIM=lay.red_ndim, OUT_LINEAR=linear is not None,
        INT64=int64 or loop_needs_int64(segments * seg_len, cfg["BLOCK_N"]), **cfg,  # (the last segment's end)
    )
    return (cdiv(lay.n_rows, cfg["BLOCK_M"]), segments), ints, meta


# Finish full reductions in one launch (see the module docstring); tests and the sweep set it.
FULL_ONE_PASS = False

# the ticket counters of one-pass full reductions, per (device, stream): zeroed once, and left at
# zero by every launch (its last program resets it); never freed
_ticket_counters: dict = {}


def _ticket_counter(device: int):
    key = (device, rt.current_stream_handle(device))
    counter = _ticket_counters.get(key)
    if counter is None:
        counter = rt.empty((1,), np.int32, device)
        rt.memset(counter.storage, 0, 0, 4)
        _ticket_counters[key] = counter
    return counter


def reduce(out, inp, *, op: str, dims, compute=None, p: float = 2.0, segments: int | None = None) -> None:
    """``out`` = ``op`` of ``inp`` over ``dims`` (DeviceArrays).

    ``out`` has the kept dims (with or without size-1 reduced dims: keepdim is ``out.ndim ==
    inp.ndim``); ``compute``: convert elements to this numpy dtype first (PyTorch's ``dtype=``),
    None to keep the input's; ``p`` for ``norm``; ``segments`` forces a split of each row into
    that many segments (tests), None lets the heuristic decide.
    """
    if out.numel == 0:
        return
    dims = tuple(dims)
    compute = None if compute is None or np.dtype(compute) == inp.dtype else np.dtype(compute)
    force = segments if segments is not None else common.FORCE_SEGMENTS
    # The launches depend on the geometry only: worked out once per geometry and op.
    plan = _reduce_plan(out.shape, out.strides, inp.shape, inp.strides, inp.dtype, op, dims, compute, p, force,
                        common.TILE_BUDGET, out.device, needs_int64(out, inp), FULL_ONE_PASS)
    if plan is None:
        # more than six non-mergeable dims in a group: one explicit copy to (rows, cols), then reduce
        dims = tuple(sorted(set(dims)))
        src, _ = common.permuted_copy(inp, dims)
        tmp = rt.empty((src.shape[0],), out.dtype, out.device)
        reduce(tmp, src, op=op, dims=(1,), compute=compute, p=p, segments=segments)
        from ..copy import strided_copy

        strided_copy(out, tmp.view(out.shape, rt.contiguous_strides(out.shape)))
        return
    partial_spec, steps, one_pass = plan
    if one_pass is not None:  # one launch: partials, a ticket counter, the output
        grid, ints, meta = one_pass
        launch(_full_reduce_kernel, grid, rt.empty(*partial_spec, out.device), out, _ticket_counter(out.device), inp,
               *ints, **meta)
        return
    # two passes: partials[row, segment] in the accumulation dtype, then one launch combines them
    partial = rt.empty(*partial_spec, out.device) if partial_spec else None
    for to_partial, from_partial, grid, ints, meta in steps:
        launch(_reduce_kernel, grid, partial if to_partial else out, partial if from_partial else inp, *ints,
                      **meta)


@functools.lru_cache(maxsize=1024)  # plans are never changed by callers
def _reduce_plan(out_shape, out_strides, in_shape, in_strides, in_dtype, op, dims, compute, p, force, tile_budget,
                 device, int64, one_pass):
    """``(partial's (shape, dtype) or None, launches, one pass)``: each launch ``(writes the
    partials?, reads the partials?, grid, ints, constexprs)`` of ``_reduce_kernel``; for a full
    reduction in one pass no launches and ``one pass`` the ``(grid, ints, constexprs)`` of
    ``_full_reduce_kernel`` (else None); None when a group needs more than six dims."""
    dims = tuple(sorted(set(dims)))
    n_cols = math.prod(in_shape[d] for d in dims)
    pre, combine, post, acc = _spec(op, p, compute if compute is not None else in_dtype, n_cols)
    keepdim = len(out_shape) == len(in_shape)
    lay = row_layout(in_shape, dims, [in_strides, out_dims_strides(out_strides, len(in_shape), dims, keepdim)],
                     [in_strides], sort_reduced=True)
    if lay is None:
        return None
    # A full reduction (one row, split into segments): 8192-element tiles, 16 warps, 8 programs
    # per SM, segments of one tile or more. On an H100 (tools/sweep_configs.py: the median of three
    # interleaved rounds) it read 1 GB at 2977 GB/s in float32 and 2938 in bfloat16, where the
    # earlier 16384-element tiles of 16 warps, 4 per SM and 4 tiles or more, read 2736 and 2730
    # (256 MB: 2609/2594 against 2575/2416; 64 MB: 1807/1799 against 1791/1606).
    full = lay.n_rows == 1 and not INTERPRET  # launch's INTERPRET: TENSORLAB_GPU_CONFIGS picks GPU configs
    cfg = tile_config(lay.n_rows, lay.n_cols, lay.kept_strides[0][-1], lay.red_strides[0][-1], in_dtype.itemsize,
                      max_tile=8192 if full else None)
    if full and cfg["BLOCK_N"] == 8192:
        cfg["num_warps"] = 16
    nseg, seg_len = split_config(lay.n_rows, lay.n_cols, cfg["BLOCK_M"], cfg["BLOCK_N"], device, force,
                                 per_sm=8 if full else 4, min_tiles=1 if full else 4)
    common_args = dict(combine=combine, acc=acc, count=n_cols, p=p, pre_ident=pre, int64=int64)
    if nseg == 1:
        return None, ((False, False, *_launch_args(lay, pre=pre, post=post, compute=compute, segments=1,
                                                    seg_len=max(n_cols, 1), cfg=cfg, **common_args)),), None
    if one_pass and lay.n_rows == 1:
        # the first pass's constexprs, less those of the kept dims and the output's layout (one row)
        _, _, meta = _launch_args(lay, pre=pre, post=post, compute=compute, segments=nseg, seg_len=seg_len, cfg=cfg,
                                  **common_args)
        meta = {k: v for k, v in meta.items() if k not in ("KEPT_NDIM", "OUT_LINEAR", "BLOCK_M")}
        ints = (lay.n_cols, seg_len, nseg, n_cols, float64_bits(p), *lay.red_sizes[1:], *lay.red_strides[0])
        return ((nseg,), acc), (), ((1, nseg), ints, {**meta, "SEG_BLOCK": common.next_pow2(nseg)})
    pstrides = tuple(st * nseg for st in rt.contiguous_strides(lay.kept_shape))
    stage1 = RowLayout(lay.kept_shape, [lay.kept_real[0], pstrides], lay.red_shape, [lay.red_real[0]])
    stage2 = RowLayout(lay.kept_shape, [pstrides, lay.kept_real[1]], (nseg,), [(1,)])
    cfg2 = tile_config(stage2.n_rows, nseg, nseg, 1, acc.itemsize)
    return ((lay.n_rows, nseg), acc), (
        (True, False, *_launch_args(stage1, pre=pre, post=POST_NONE, compute=compute, segments=nseg, seg_len=seg_len,
                                    cfg=cfg, **common_args)),
        (False, True, *_launch_args(stage2, pre=PRE_NONE, post=post, compute=None, segments=1, seg_len=nseg,
                                    cfg=cfg2, **common_args)),
    ), None


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def reduce_twin(out, inp, *, op: str, dims, compute=None, p: float = 2.0, segments: int | None = None) -> None:
    """The reference: numpy with the same accumulation dtypes (fp32 for fp16/bf16, int64 for integers)."""
    dims = tuple(sorted(set(dims)))
    x = host_cast(inp, compute) if compute is not None else inp
    _, _, _, acc = _spec(op, p, x.dtype)
    n = math.prod(inp.shape[d] for d in dims)
    kw = {"axis": dims, "keepdims": True}
    with np.errstate(all="ignore"):
        if op in ("all", "any", "count_nonzero"):
            nz = x != 0
            r = nz.all(**kw) if op == "all" else nz.any(**kw) if op == "any" else nz.sum(dtype=np.int64, **kw)
        else:
            a = x.astype(acc)
            if op in ("sum", "mean"):
                r = a.sum(**kw)
                if op == "mean":
                    r = r / acc.type(n)
            elif op == "prod":
                r = a.prod(**kw)
            elif op == "amax":
                r = a.max(**kw)
            elif op == "amin":
                r = a.min(**kw)
            elif op == "logsumexp":
                if n == 0:
                    r = np.full(np.sum(a, **kw).shape, -np.inf, acc)
                else:
                    m = a.max(**kw)
                    shift = np.where(np.isinf(m), acc.type(0), m)
                    r = shift + np.log(np.exp(a - shift).sum(**kw))
            else:  # norm
                if p == 0:
                    r = (a != 0).sum(dtype=acc, **kw)
                elif n == 1:  # one element: |x| (see _spec)
                    r = np.abs(a).sum(**kw)
                elif p == math.inf:
                    r = np.abs(a).max(**kw)
                elif p == -math.inf:
                    r = np.abs(a).min(**kw)
                elif p == 1:
                    r = np.abs(a).sum(**kw)
                elif p == 2:
                    r = np.sqrt((a * a).sum(**kw))
                else:
                    r = (np.abs(a) ** acc.type(p)).sum(**kw) ** acc.type(1.0 / p)
    out[...] = host_cast(np.asarray(r), out.dtype).reshape(out.shape)
