"""Writes through an index, deterministically: scatter, scatter_add, scatter_reduce, index_add,
index_copy, index_fill and index_put (``x[idx] = v``, ``x[idx] += v`` with accumulate).

Why not atomics: a float ``atomic_add`` makes the sum's rounding depend on the order in which
programs arrive, so two runs of ``scatter_add`` with duplicate indices differ in the last bits,
and "last writer wins" for plain ``scatter`` depends on scheduling. Here every write is planned:

1. **keys** (``_scatter_keys_kernel``): for every source element (or source *row*, see below)
   the destination's element offset in the output (the key) and the source's element offset
   (the payload), in source order;
2. **sort** the pairs by key with the stable radix sort of ``segments.py``: equal keys (the
   duplicates) become one run, still in source order;
3. **reduce** (``_segment_reduce_kernel``): the first element of each run finds the run's bounds
   by binary search and folds the run *sequentially, in source order*, into the destination
   (``include_self``: starting from the destination's value), then writes it once. ``set``
   (scatter, index_copy, index_put) takes the run's last element: the last source wins, as a
   sequential loop would do it.

So the result is exactly the sequential loop's (``np.add.at`` order, what the numpy twins do)
with one rounding per step in the accumulator type, on every run and every GPU. A run longer
than ``RUN_CHUNK`` sources (one destination receiving very many: a padding token in an embedding
backward, a skewed ``bincount``) would make one lane loop over all of them, so such runs are
folded in chunks instead: every ``RUN_CHUNK``-th element of the run folds the next ``RUN_CHUNK``
sources in order (the first chunk starting from the destination's value), and
``_long_runs_kernel`` then folds the chunk partials in order. Still a fixed order that depends on
the data only, so still deterministic; the serial work per lane is bounded by ``RUN_CHUNK`` plus
``run length / RUN_CHUNK``.

Accumulators: fp32 for fp16/bf16/fp32, fp64 for fp64, int64 for integers and bool (cast back
once; integer wrap-around is the same as the dtype's own).

Rows: ``index_add``/``index_copy``/``index_put`` move whole rows (every source element with the
same index shares its destination row). When the trailing dims are one stride in both source
and destination, only one key per row is sorted and ``_segment_reduce_rows_kernel`` folds
``BLOCK_W`` columns of a row at once (the embedding-backward shape).

Fills (``index_fill``, ``scatter(value=)``, ``x[idx] = scalar``) write the same value to every
indexed position, so duplicates cannot disagree: ``_indexed_fill_kernel`` writes directly.

Layout of this file: Triton kernels, launchers, numpy twins.
"""

from __future__ import annotations

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..copy import strided_copy
from ..fill import float64_bits, int_value, stored_float_bits
from ..launch import GRID_YZ_MAX, INTERPRET, cdiv, collapse_dims, launch
from ..strided import offsets, strided_layout
from .gather import flat_index, per_dim
from .layout import AdvancedLayout, apply_basic, contiguous_strides
from .segments import stable_sort_by_key, stable_sort_by_key_twin

REDUCE_CODES = {"set": 0, "sum": 1, "prod": 2, "mean": 3, "amax": 4, "amin": 5}

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _scatter_keys_kernel(
    keys_ptr, pay_ptr, idx_ptr,  # int64 keys/payloads (contiguous, source order); index tensor
    n, key_base, pay_base,  # elements in this launch; offsets added to every key / payload
    size1, size2, size3, size4, size5,  # the source loop, right-aligned
    ks0, ks1, ks2, ks3, ks4, ks5,  # destination strides over the loop (0 on the indexed dims)
    is0, is1, is2, is3, is4, is5,  # index strides over the loop
    ps0, ps1, ps2, ps3, ps4, ps5,  # source (payload) strides over the loop
    dim_size, key_mult,  # the indexed dim: size (wraps negatives) and destination stride
    NDIM: tl.constexpr, WRAP: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = lin < n
    i = tl.load(idx_ptr + offsets(lin, size1, size2, size3, size4, size5, is0, is1, is2, is3, is4, is5, NDIM),
                mask=mask, other=0).to(tl.int64)
    if WRAP:
        i = tl.where(i < 0, i + dim_size, i)
    key = key_base + offsets(lin, size1, size2, size3, size4, size5, ks0, ks1, ks2, ks3, ks4, ks5, NDIM) + i * key_mult
    pay = pay_base + offsets(lin, size1, size2, size3, size4, size5, ps0, ps1, ps2, ps3, ps4, ps5, NDIM)
    tl.store(keys_ptr + lin, key, mask=mask)
    tl.store(pay_ptr + lin, pay, mask=mask)


@triton.jit
def _run_bounds(keys_ptr, j, n, nsteps):
    """For sorted keys: the key at position ``j`` and its run of equal keys ``[start, end)``."""
    valid = j < n
    key = tl.load(keys_ptr + j, mask=valid, other=0)
    lo = j * 0
    hi = j
    for _ in range(nsteps):  # start: the first position whose key is not below mine
        active = valid & (lo < hi)
        mid = (lo + hi) // 2
        v = tl.load(keys_ptr + mid, mask=active, other=0)
        lo = tl.where(active & (v < key), mid + 1, lo)
        hi = tl.where(active & (v >= key), mid, hi)
    start = lo
    lo = j
    hi = j * 0 + n
    for _ in range(nsteps):  # end: the first position whose key is above mine
        active = valid & (lo < hi)
        mid = (lo + hi) // 2
        v = tl.load(keys_ptr + mid, mask=active, other=0)
        lo = tl.where(active & (v <= key), mid + 1, lo)
        hi = tl.where(active & (v > key), mid, hi)
    return key, valid, start, lo


@triton.jit
def _to_acc(x, ACC_KIND: tl.constexpr):
    if ACC_KIND == 0:
        y = x.to(tl.float32)
    elif ACC_KIND == 1:
        y = x.to(tl.float64)
    else:
        y = x.to(tl.int64)
    return y


@triton.jit
def _combine(acc, v, REDUCE: tl.constexpr):
    if REDUCE == 2:
        r = acc * v
    elif REDUCE == 4:  # amax; a NaN wins and stays (PyTorch propagates NaN)
        r = tl.where((v > acc) | (v != v), v, acc)
    elif REDUCE == 5:  # amin
        r = tl.where((v < acc) | (v != v), v, acc)
    else:  # sum, mean
        r = acc + v
    return r


@triton.jit
def _mean(acc, count, ACC_KIND: tl.constexpr, TY: tl.constexpr):
    if ACC_KIND == 2:  # integers: the sum wraps in the output dtype, then floor division (PyTorch's)
        acc = acc.to(TY).to(tl.int64)
        q = acc // count
        r = tl.where((acc % count != 0) & (acc < 0), q - 1, q)
    else:
        r = acc / count.to(acc.dtype)
    return r


@triton.jit
def _alpha(alpha_bits, ACC_KIND: tl.constexpr):
    if ACC_KIND == 2:
        a = alpha_bits.to(tl.int64)
    else:
        a = _to_acc(alpha_bits.to(tl.int64).to(tl.float64, bitcast=True), ACC_KIND)
    return a


@triton.jit(do_not_specialize=["alpha_bits"])
def _segment_reduce_kernel(
    out_ptr, src_ptr, keys_ptr, pay_ptr, part_ptr,  # keys: destination offsets, sorted; pay: source
    n, nsteps, nslots, alpha_bits,  # offsets; part: [2, nslots] partials of long runs (accumulator type)
    REDUCE: tl.constexpr, INCLUDE_SELF: tl.constexpr, ACC_KIND: tl.constexpr, HAS_ALPHA: tl.constexpr,
    CHUNK: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    j = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    key, valid, start, end = _run_bounds(keys_ptr, j, n, nsteps)
    ty = out_ptr.dtype.element_ty
    if REDUCE == 0:  # set: the run's last source wins
        head = valid & (j == start)
        p = tl.load(pay_ptr + end - 1, mask=head, other=0)
        tl.store(out_ptr + key, tl.load(src_ptr + p, mask=head), mask=head)
    else:
        # Every CHUNK-th position of a run (counted from its start) folds the next CHUNK sources in
        # order; a run no longer than CHUNK is therefore folded exactly sequentially by its head.
        rel = j - start
        sub = valid & (rel % CHUNK == 0)
        head = sub & (rel == 0)
        count = tl.where(sub, tl.minimum(end - j, CHUNK), 0)
        alpha = _alpha(alpha_bits, ACC_KIND)
        if INCLUDE_SELF:
            acc = _to_acc(tl.load(out_ptr + key, mask=head, other=0), ACC_KIND)
            holds = head  # lanes whose accumulator already holds a value (self)
        else:
            acc = _to_acc(tl.zeros([BLOCK], dtype=tl.int32), ACC_KIND)
            holds = head & (j < 0)
        for t in range(0, tl.max(count, axis=0)):
            live = t < count
            p = tl.load(pay_ptr + j + t, mask=live, other=0)
            v = _to_acc(tl.load(src_ptr + p, mask=live, other=0), ACC_KIND)
            if HAS_ALPHA:
                v = v * alpha
            acc = tl.where(live, tl.where((t == 0) & ~holds, v, _combine(acc, v, REDUCE)), acc)
        long_run = (end - start) > CHUNK
        res = acc
        if REDUCE == 3:
            res = _mean(acc, tl.maximum(end - start + INCLUDE_SELF, 1), ACC_KIND, ty)
        tl.store(out_ptr + key, res.to(ty), mask=head & ~long_run)  # integers wrap; to bool is != 0
        # long runs: heads and later chunks leave partials for _long_runs_kernel
        slot = tl.where(head, 0, nslots) + j // CHUNK
        tl.store(part_ptr + slot, acc, mask=sub & long_run)


@triton.jit
def _long_runs_kernel(
    out_ptr, keys_ptr, part_ptr,
    n, nsteps, nslots,
    REDUCE: tl.constexpr, INCLUDE_SELF: tl.constexpr, ACC_KIND: tl.constexpr, CHUNK: tl.constexpr,
    BLOCK: tl.constexpr,
):
    # The head of each run longer than CHUNK folds the chunk partials in order (deterministic).
    pid = tl.program_id(0)
    j = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    key, valid, start, end = _run_bounds(keys_ptr, j, n, nsteps)
    length = end - start
    head = valid & (j == start) & (length > CHUNK)
    nchunks = tl.where(head, (length + CHUNK - 1) // CHUNK, 0)
    acc = tl.load(part_ptr + j // CHUNK, mask=head, other=0)
    for k in range(1, tl.max(nchunks, axis=0)):
        live = k < nchunks
        v = tl.load(part_ptr + nslots + (j + k * CHUNK) // CHUNK, mask=live, other=0)
        acc = tl.where(live, _combine(acc, v, REDUCE), acc)
    if REDUCE == 3:
        acc = _mean(acc, tl.maximum(length + INCLUDE_SELF, 1), ACC_KIND, out_ptr.dtype.element_ty)
    tl.store(out_ptr + key, acc.to(out_ptr.dtype.element_ty), mask=head)


@triton.jit(do_not_specialize=["alpha_bits"])
def _segment_reduce_rows_kernel(
    out_ptr, src_ptr, keys_ptr, pay_ptr, part_ptr,  # keys/pay: offsets of row starts; part: [2 nslots, w]
    n, nsteps, nslots, alpha_bits,
    w, out_w_stride, src_w_stride,  # row length and the column strides
    w0,  # the first column of this launch's column blocks (a very long row takes several launches)
    REDUCE: tl.constexpr, INCLUDE_SELF: tl.constexpr, ACC_KIND: tl.constexpr, HAS_ALPHA: tl.constexpr,
    CHUNK: tl.constexpr, BLOCK_K: tl.constexpr, BLOCK_W: tl.constexpr,
):
    # As _segment_reduce_kernel, with BLOCK_W columns of every row folded at once.
    pid = tl.program_id(0)
    pid_w = tl.program_id(1)
    j = pid.to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64)
    key, valid, start, end = _run_bounds(keys_ptr, j, n, nsteps)
    cols = w0 + pid_w.to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    cmask = cols < w
    dst = key[:, None] + cols[None, :] * out_w_stride
    ty = out_ptr.dtype.element_ty
    if REDUCE == 0:
        head = valid & (j == start)
        m2 = head[:, None] & cmask[None, :]
        p = tl.load(pay_ptr + end - 1, mask=head, other=0)
        v = tl.load(src_ptr + p[:, None] + cols[None, :] * src_w_stride, mask=m2)
        tl.store(out_ptr + dst, v, mask=m2)
    else:
        rel = j - start
        sub = valid & (rel % CHUNK == 0)
        head = sub & (rel == 0)
        count = tl.where(sub, tl.minimum(end - j, CHUNK), 0)
        alpha = _alpha(alpha_bits, ACC_KIND)
        if INCLUDE_SELF:
            acc = _to_acc(tl.load(out_ptr + dst, mask=head[:, None] & cmask[None, :], other=0), ACC_KIND)
            holds = head
        else:
            acc = _to_acc(tl.zeros([BLOCK_K, BLOCK_W], dtype=tl.int32), ACC_KIND)
            holds = head & (j < 0)
        for t in range(0, tl.max(count, axis=0)):
            live = t < count
            p = tl.load(pay_ptr + j + t, mask=live, other=0)
            lm = live[:, None] & cmask[None, :]
            v = _to_acc(tl.load(src_ptr + p[:, None] + cols[None, :] * src_w_stride, mask=lm, other=0), ACC_KIND)
            if HAS_ALPHA:
                v = v * alpha
            first = ((t == 0) & ~holds)[:, None]
            acc = tl.where(lm, tl.where(first, v, _combine(acc, v, REDUCE)), acc)
        long_run = (end - start) > CHUNK
        res = acc
        if REDUCE == 3:
            res = _mean(acc, tl.maximum(end - start + INCLUDE_SELF, 1)[:, None], ACC_KIND, ty)
        tl.store(out_ptr + dst, res.to(ty), mask=(head & ~long_run)[:, None] & cmask[None, :])
        slot = tl.where(head, 0, nslots) + j // CHUNK
        tl.store(part_ptr + slot[:, None] * w + cols[None, :], acc, mask=(sub & long_run)[:, None] & cmask[None, :])


@triton.jit
def _long_runs_rows_kernel(
    out_ptr, keys_ptr, part_ptr,
    n, nsteps, nslots, w, out_w_stride, w0,
    REDUCE: tl.constexpr, INCLUDE_SELF: tl.constexpr, ACC_KIND: tl.constexpr, CHUNK: tl.constexpr,
    BLOCK_K: tl.constexpr, BLOCK_W: tl.constexpr,
):
    pid = tl.program_id(0)
    pid_w = tl.program_id(1)
    j = pid.to(tl.int64) * BLOCK_K + tl.arange(0, BLOCK_K).to(tl.int64)
    key, valid, start, end = _run_bounds(keys_ptr, j, n, nsteps)
    cols = w0 + pid_w.to(tl.int64) * BLOCK_W + tl.arange(0, BLOCK_W).to(tl.int64)
    cmask = cols < w
    length = end - start
    head = valid & (j == start) & (length > CHUNK)
    nchunks = tl.where(head, (length + CHUNK - 1) // CHUNK, 0)
    m2 = head[:, None] & cmask[None, :]
    acc = tl.load(part_ptr + (j // CHUNK)[:, None] * w + cols[None, :], mask=m2, other=0)
    for k in range(1, tl.max(nchunks, axis=0)):
        live = (k < nchunks)[:, None] & cmask[None, :]
        slot = nslots + (j + k * CHUNK) // CHUNK
        v = tl.load(part_ptr + slot[:, None] * w + cols[None, :], mask=live, other=0)
        acc = tl.where(live, _combine(acc, v, REDUCE), acc)
    if REDUCE == 3:
        acc = _mean(acc, tl.maximum(length + INCLUDE_SELF, 1)[:, None], ACC_KIND, out_ptr.dtype.element_ty)
    tl.store(out_ptr + key[:, None] + cols[None, :] * out_w_stride, acc.to(out_ptr.dtype.element_ty), mask=m2)


@triton.jit
def fill_value(value_ptr, value_bits, out_ptr, VALUE_MODE: tl.constexpr):
    """A fill value converted to ``out_ptr``'s element type: read from ``value_ptr`` (mode 2, a 0-d
    tensor on the device), or decoded from ``value_bits`` (mode 0: fp64 bits, exact everywhere; mode 1: an int64)."""
    if VALUE_MODE == 2:
        value = tl.load(value_ptr)
    elif VALUE_MODE == 0:
        value = value_bits.to(tl.int64).to(tl.float64, bitcast=True)
    else:
        value = value_bits.to(tl.int64)
    ty = out_ptr.dtype.element_ty
    if (ty.is_fp16() or ty.is_bf16()) and not (value.dtype.is_fp16() or value.dtype.is_bf16()):
        value = value.to(tl.float32)  # double -> float -> half, as PyTorch converts
    return value.to(ty)


def value_args(value, out):
    """(VALUE_MODE, bits, pointer) for :func:`fill_value`: a one-element DeviceArray is read on the
    device; a Python number travels as fp64 bits (floating outputs) or an int64."""
    if hasattr(value, "data_ptr"):
        return 2, 0, value
    if out.dtype.kind == "f" or out.dtype.name == "bfloat16":
        return 0, stored_float_bits(value, out.dtype), out
    return 1, int_value(value, out.dtype), out


@triton.jit(do_not_specialize=["value_bits"])
def _indexed_fill_kernel(
    out_ptr, idx_ptr, value_ptr,  # destination; index tensor; value (VALUE_MODE 2 reads it here)
    n, value_bits,  # elements in this launch; the value as fp64 bits (mode 0) or an int (mode 1)
    size1, size2, size3, size4, size5,
    ks0, ks1, ks2, ks3, ks4, ks5,  # destination strides over the loop (0 on the indexed dim)
    is0, is1, is2, is3, is4, is5,  # index strides over the loop
    dim_size, key_mult,
    NDIM: tl.constexpr, WRAP: tl.constexpr, VALUE_MODE: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = lin < n
    i = tl.load(idx_ptr + offsets(lin, size1, size2, size3, size4, size5, is0, is1, is2, is3, is4, is5, NDIM),
                mask=mask, other=0).to(tl.int64)
    if WRAP:
        i = tl.where(i < 0, i + dim_size, i)
    dst = offsets(lin, size1, size2, size3, size4, size5, ks0, ks1, ks2, ks3, ks4, ks5, NDIM) + i * key_mult
    v = fill_value(value_ptr, value_bits, out_ptr, VALUE_MODE)
    tl.store(out_ptr + dst, v, mask=mask)  # a scalar: the store broadcasts it


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------


def _acc_kind(dtype) -> int:
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return 1
    if dtype.kind == "f" or dtype.name == "bfloat16":
        return 0
    return 2


def _same_view(a, b) -> bool:
    return (a.storage is b.storage and a.offset == b.offset and tuple(a.shape) == tuple(b.shape)
            and tuple(a.strides) == tuple(b.strides))


def _start_from(out, self_) -> None:
    """``out`` starts as ``self_`` (nothing to do for in-place calls, where they are one view)."""
    if not _same_view(out, self_):
        strided_copy(out, self_)


def _unaliased(src, out):
    """``src``, or a contiguous copy of it when it shares memory with the output being written."""
    if src.storage is not None and src.storage is out.storage:
        tmp = rt.empty(src.shape, src.dtype, src.device)
        strided_copy(tmp, src)
        return tmp
    return src


def _as_1d(a):
    return a.view((1,), (1,)) if a.ndim == 0 else a


def scatter_keys(loop_shape, key_strides, idx, idx_strides, pay_strides, dim_size: int, key_mult: int,
                 wrap: bool, device: int):
    """(keys, payloads): destination and source offsets of every source element, in source order."""
    n = int(np.prod(loop_shape)) if loop_shape else 1
    keys = rt.empty((n,), np.int64, device)
    pays = rt.empty((n,), np.int64, device)
    block = 8192 if INTERPRET else 1024
    for p in strided_layout(tuple(loop_shape), contiguous_strides(loop_shape), tuple(key_strides),
                            tuple(idx_strides), tuple(pay_strides)):
        launch(_scatter_keys_kernel, (cdiv(p.numel, block),),
               keys.view(keys.shape, keys.strides, keys.offset + p.offsets[0]),
               pays.view(pays.shape, pays.strides, pays.offset + p.offsets[0]),
               idx.view(idx.shape, idx.strides, idx.offset + p.offsets[2]),
               p.numel, p.offsets[1], p.offsets[3], *p.sizes[1:], *p.strides[1], *p.strides[2], *p.strides[3],
               dim_size, key_mult, NDIM=p.ndim, WRAP=wrap, BLOCK=block, num_warps=4)
    return keys, pays


# Runs longer than this are folded in chunks of this many sources, then the chunks in order.
RUN_CHUNK = 64 if INTERPRET else 1024


def reduce_runs(out, src, keys, pays, max_key: int, reduce: str, include_self: bool = True, alpha=1,
                w: int = 1, out_w_stride: int = 0, src_w_stride: int = 0) -> None:
    """Sort (key, payload) pairs by key and fold every run into ``out`` (see the module doc)."""
    n = keys.numel
    if n == 0:
        return
    keys, pays = stable_sort_by_key(keys, pays, max_key)
    code = REDUCE_CODES[reduce]
    acc = _acc_kind(out.dtype)
    has_alpha = code != 0 and alpha != 1
    alpha_bits = (int(alpha) if acc == 2 else float64_bits(alpha)) if has_alpha else 0
    common = dict(REDUCE=code, INCLUDE_SELF=bool(include_self), ACC_KIND=acc)
    nsteps = n.bit_length()
    chunk = RUN_CHUNK
    long_runs = code != 0 and n > chunk
    nslots = cdiv(n, chunk) + 1
    part = rt.empty((2 * nslots, w) if long_runs else (1,), _acc_dtype(out.dtype), out.device)
    if w == 1:
        block = 1024 if INTERPRET else 256
        launch(_segment_reduce_kernel, (cdiv(n, block),), out, src, keys, pays, part, n, nsteps, nslots, alpha_bits,
               HAS_ALPHA=has_alpha, CHUNK=chunk, BLOCK=block, num_warps=4, **common)
        if long_runs:
            launch(_long_runs_kernel, (cdiv(n, block),), out, keys, part, n, nsteps, nslots, CHUNK=chunk,
                   BLOCK=block, num_warps=4, **common)
    else:
        block_w = min(triton_next_pow2(w), 1024 if INTERPRET else 128)
        block_k = max(1, (4096 if INTERPRET else 2048) // block_w)
        n_wblocks = cdiv(w, block_w)
        for first in range(0, n_wblocks, GRID_YZ_MAX):  # (column blocks are grid dim 2: CUDA's limit)
            grid = (cdiv(n, block_k), min(GRID_YZ_MAX, n_wblocks - first))
            w0 = first * block_w
            launch(_segment_reduce_rows_kernel, grid, out, src, keys, pays, part, n, nsteps, nslots, alpha_bits, w,
                   out_w_stride, src_w_stride, w0, HAS_ALPHA=has_alpha, CHUNK=chunk, BLOCK_K=block_k,
                   BLOCK_W=block_w, num_warps=4, **common)
            if long_runs:
                launch(_long_runs_rows_kernel, grid, out, keys, part, n, nsteps, nslots, w, out_w_stride, w0,
                       CHUNK=chunk, BLOCK_K=block_k, BLOCK_W=block_w, num_warps=4, **common)


def triton_next_pow2(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def indexed_fill(out, idx, value, loop_shape, key_strides, idx_strides, dim_size: int, key_mult: int,
                 wrap: bool) -> None:
    """``out[key_strides . l + wrap(idx[l]) * key_mult] = value`` over ``loop_shape``; ``value`` is a
    Python number or a one-element DeviceArray (read on the device)."""
    if any(s == 0 for s in loop_shape):
        return
    mode, bits, vptr = value_args(value, out)
    block = 8192 if INTERPRET else 1024
    for p in strided_layout(tuple(loop_shape), tuple(key_strides), tuple(idx_strides)):
        launch(_indexed_fill_kernel, (cdiv(p.numel, block),),
               out.view(out.shape, out.strides, out.offset + p.offsets[0]),
               idx.view(idx.shape, idx.strides, idx.offset + p.offsets[1]), vptr, p.numel, bits, *p.sizes[1:],
               *p.strides[0], *p.strides[1], dim_size, key_mult, NDIM=p.ndim, WRAP=wrap, VALUE_MODE=mode,
               BLOCK=block, num_warps=4)


def _rows(shape, dim: int, out_strides, src_strides):
    """Split ``shape`` after ``dim``: when the trailing dims are one stride in both arrays they
    become the row (returns loop dims, w, out_w_stride, src_w_stride); else every element is a row."""
    tail = tuple(shape[dim + 1:])
    if tail and all(s > 0 for s in tail):
        cshape, (co, cs) = collapse_dims(tail, tuple(out_strides[dim + 1:]), tuple(src_strides[dim + 1:]))
        if len(cshape) == 1 and cshape[0] > 1:
            return dim + 1, cshape[0], co[0], cs[0]
    return len(shape), 1, 0, 0


# -- scatter family (index has the source's rank; every element has its own index) ---------------


def scatter_reduce(out, self_, index, src, dim: int, reduce: str, include_self: bool = True) -> None:
    """``out = self_`` then fold ``src[i]`` into ``out[..index[i]..]`` (``reduce``: set, sum, prod,
    mean, amax, amin); indices in range."""
    _start_from(out, self_)
    if index.numel == 0 or out.numel == 0:
        return
    src = _unaliased(src, out)
    out1, index1, src1 = _as_1d(out), _as_1d(index), _as_1d(src)
    key_strides = list(out1.strides)
    key_mult, key_strides[dim] = key_strides[dim], 0
    keys, pays = scatter_keys(index1.shape, key_strides, index1, index1.strides, src1.strides[:index1.ndim],
                              out1.shape[dim], key_mult, False, out.device)
    reduce_runs(out1, src1, keys, pays, out1.max_offset(), reduce, include_self)


def scatter(out, self_, index, src, dim: int) -> None:
    scatter_reduce(out, self_, index, src, dim, "set")


def scatter_add(out, self_, index, src, dim: int) -> None:
    scatter_reduce(out, self_, index, src, dim, "sum")


def scatter_value(out, self_, index, dim: int, value) -> None:
    """``out = self_`` then ``out[..index[i]..] = value`` (duplicates write the same value)."""
    _start_from(out, self_)
    if index.numel == 0 or out.numel == 0:
        return
    out1, index1 = _as_1d(out), _as_1d(index)
    key_strides = list(out1.strides)
    key_mult, key_strides[dim] = key_strides[dim], 0
    indexed_fill(out1, index1, value, index1.shape, key_strides, index1.strides, out1.shape[dim], key_mult, False)


# -- index_* family (a 1-d index picks slices along dim) -------------------------------------------


def index_reduce_rows(out, self_, index, source, dim: int, reduce: str, alpha=1) -> None:
    """``out = self_`` then fold ``source``'s slice ``i`` along ``dim`` into ``out``'s slice ``index[i]``."""
    _start_from(out, self_)
    if index.numel == 0 or out.numel == 0 or source.numel == 0:
        return
    source = _unaliased(source, out)
    out1, source1, index1 = _as_1d(out), _as_1d(source), _as_1d(index)
    nloop, w, ow, sw = _rows(source1.shape, dim, out1.strides, source1.strides)
    loop = source1.shape[:nloop]
    key_strides = list(out1.strides[:nloop])
    key_mult, key_strides[dim] = key_strides[dim], 0
    idx_strides = [0] * nloop
    idx_strides[dim] = index1.strides[0]
    keys, pays = scatter_keys(loop, key_strides, index1, idx_strides, source1.strides[:nloop], out1.shape[dim],
                              key_mult, False, out.device)
    reduce_runs(out1, source1, keys, pays, out1.max_offset(), reduce, True, alpha, w, ow, sw)


def index_add(out, self_, index, source, dim: int, alpha=1) -> None:
    index_reduce_rows(out, self_, index, source, dim, "sum", alpha)


def index_copy(out, self_, index, source, dim: int) -> None:
    index_reduce_rows(out, self_, index, source, dim, "set")


def index_fill(out, self_, index, value, dim: int) -> None:
    """``out = self_`` then every slice ``index[i]`` (negatives wrap) along ``dim`` set to ``value``."""
    _start_from(out, self_)
    if index.numel == 0 or out.numel == 0:
        return
    out1, index1 = _as_1d(out), _as_1d(index)
    loop = list(out1.shape)
    loop[dim] = index1.numel
    key_strides = list(out1.strides)
    key_mult, key_strides[dim] = key_strides[dim], 0
    idx_strides = [0] * out1.ndim
    idx_strides[dim] = index1.strides[0]
    indexed_fill(out1, index1, value, loop, key_strides, idx_strides, out1.shape[dim], key_mult, True)


# -- advanced index assignment ----------------------------------------------------------------------


def index_put(out, self_, indices, values, dims, accumulate: bool = False, basic=()) -> None:
    """``out = self_`` then ``out[basic][...] = values`` with the index arrays ``indices`` on the dims
    ``dims`` of ``out[basic]`` (or ``+=`` with ``accumulate``, duplicates summed in order). ``values``
    is already broadcast to the indexing result's shape."""
    _start_from(out, self_)
    y = apply_basic(out, basic)
    indices = per_dim(indices, dims, y.ndim)
    lay = AdvancedLayout(y.shape, y.strides, [None if i is None else i.shape for i in indices])
    if values.numel == 0 or y.numel == 0:
        return
    idx, bstrides, dim_size, key_mult, wrap = flat_index(lay, indices, y)
    loop = lay.result_shape
    key_strides = lay.loop_strides()
    idx_strides = lay.index_loop_strides(bstrides)
    if not accumulate and all(s == 0 for s in values.strides):
        # One value for every position (x[idx] = scalar): duplicates agree, write directly.
        indexed_fill(y, idx, values, loop, key_strides, idx_strides, dim_size, key_mult, wrap)
        return
    values = _unaliased(values, out)
    # rows: the trailing dims after the broadcast index dims, when one stride in both arrays
    first_q = lay.a0 + len(lay.bshape) - 1
    nloop, w, ow, sw = _rows(loop, first_q, key_strides, values.strides) if first_q >= 0 else (len(loop), 1, 0, 0)
    keys, pays = scatter_keys(loop[:nloop], key_strides[:nloop], idx, idx_strides[:nloop], values.strides[:nloop],
                              dim_size, key_mult, wrap, out.device)
    reduce_runs(y, values, keys, pays, y.max_offset(), "sum" if accumulate else "set", True, 1, w, ow, sw)


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------
# Each twin computes the destination position of every source element in a C-ordered copy of
# ``self`` (``positions``: an arange of the destination's shape, indexed like the destination),
# then folds sequentially in source order, in the kernels' accumulator types.


def _acc_dtype(dtype):
    return {0: np.float32, 1: np.float64, 2: np.int64}[_acc_kind(dtype)]


def _positions(shape):
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def fold_twin(res: np.ndarray, dest: np.ndarray, vals: np.ndarray, reduce: str, include_self: bool = True,
              alpha=1) -> None:
    """Fold ``vals`` into the C-contiguous ``res`` at flat positions ``dest`` (same order), sequentially."""
    flat = res.reshape(-1)
    dest = dest.reshape(-1).astype(np.int64)
    vals = vals.reshape(-1)
    if dest.size == 0:
        return
    if reduce == "set":
        order_dest, order = stable_sort_by_key_twin(dest, np.arange(dest.size), 0)
        last = np.r_[order_dest[1:] != order_dest[:-1], True]
        flat[order_dest[last]] = vals[order[last]]
        return
    accdt = _acc_dtype(res.dtype)
    with np.errstate(all="ignore"):
        acc = flat.astype(np.float32 if res.dtype.name == "bfloat16" else res.dtype).astype(accdt)
        v = vals.astype(np.float32 if vals.dtype.name == "bfloat16" else vals.dtype).astype(accdt)
        if alpha != 1:
            v = v * np.asarray(alpha).astype(accdt)
        hit = np.zeros(acc.size, bool)
        hit[dest] = True
        touched = np.flatnonzero(hit)
        if not include_self:
            first = np.full(acc.shape, -1, np.int64)
            rev = np.arange(dest.size)[::-1]
            first[dest[rev]] = rev  # the first source of each destination
            acc[touched] = v[first[touched]]
            mask = np.ones(dest.size, bool)
            mask[first[touched]] = False
            dest_f, v_f = dest[mask], v[mask]
        else:
            dest_f, v_f = dest, v
        if reduce in ("sum", "mean"):
            np.add.at(acc, dest_f, v_f)
        elif reduce == "prod":
            np.multiply.at(acc, dest_f, v_f)
        elif reduce == "amax":
            np.maximum.at(acc, dest_f, v_f)
        elif reduce == "amin":
            np.minimum.at(acc, dest_f, v_f)
        else:
            raise ValueError(f"unknown reduce {reduce!r}")
        if reduce == "mean":
            count = np.bincount(dest, minlength=acc.size)[touched] + int(include_self)
            if accdt is np.int64:  # the sum wraps in the output dtype first, as PyTorch's
                acc[touched] = np.floor_divide(acc[touched].astype(res.dtype).astype(np.int64), count)
            else:
                acc[touched] = acc[touched] / count
        out = acc[touched]
        if res.dtype.itemsize == 2 and accdt is not np.int64:
            out = out.astype(np.float32)
        flat[touched] = out.astype(res.dtype)


def scatter_reduce_twin(out, self_, index, src, dim: int, reduce: str, include_self: bool = True) -> None:
    res = np.array(self_, order="C")
    if index.size and res.size:
        pos = _positions(res.shape)
        if res.ndim == 0 or index.ndim == 0:  # 0-d counts as 1-d (PyTorch): one source per index element
            idx = index.reshape(-1).astype(np.int64)
            dest, vals = pos.reshape(-1)[idx], src.reshape(-1)[:idx.size]
        else:
            region = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
            dest = np.take_along_axis(pos[region], index.astype(np.int64), axis=dim)
            vals = src[tuple(slice(0, n) for n in index.shape)]
        fold_twin(res, dest, vals, reduce, include_self)
    out[...] = res


def scatter_twin(out, self_, index, src, dim: int) -> None:
    scatter_reduce_twin(out, self_, index, src, dim, "set")


def scatter_add_twin(out, self_, index, src, dim: int) -> None:
    scatter_reduce_twin(out, self_, index, src, dim, "sum")


def scatter_value_twin(out, self_, index, dim: int, value) -> None:
    res = np.array(self_, order="C")
    if index.size and res.size:
        pos = _positions(res.shape)
        if res.ndim == 0 or index.ndim == 0:
            dest = pos.reshape(-1)[index.reshape(-1).astype(np.int64)]
        else:
            region = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
            dest = np.take_along_axis(pos[region], index.astype(np.int64), axis=dim)
        _fill_at(res, dest, value)
    out[...] = res


def _fill_at(res, dest, value) -> None:
    v = np.asarray(value)
    with np.errstate(all="ignore"):
        if res.dtype.itemsize == 2 and res.dtype.kind in "fV" and v.dtype.itemsize != 2:
            v = v.astype(np.float32)
        res.reshape(-1)[dest.reshape(-1)] = v.astype(res.dtype)


def index_reduce_rows_twin(out, self_, index, source, dim: int, reduce: str, alpha=1) -> None:
    res = np.array(self_, order="C")
    if index.size and res.size and source.size:
        pos = _positions(res.shape)
        idx = index.reshape(-1).astype(np.int64)
        dest = pos.reshape(1)[idx] if res.ndim == 0 else np.take(pos, idx, axis=dim)
        fold_twin(res, dest, source.reshape(dest.shape), reduce, True, alpha)
    out[...] = res


def index_add_twin(out, self_, index, source, dim: int, alpha=1) -> None:
    index_reduce_rows_twin(out, self_, index, source, dim, "sum", alpha)


def index_copy_twin(out, self_, index, source, dim: int) -> None:
    index_reduce_rows_twin(out, self_, index, source, dim, "set")


def index_fill_twin(out, self_, index, value, dim: int) -> None:
    res = np.array(self_, order="C")
    if index.size and res.size:
        pos = _positions(res.shape)
        idx = index.reshape(-1).astype(np.int64)
        dest = pos.reshape(1)[idx] if res.ndim == 0 else np.take(pos, idx, axis=dim)
        _fill_at(res, dest, value.reshape(()) if isinstance(value, np.ndarray) else value)
    out[...] = res


def index_put_twin(out, self_, indices, values, dims, accumulate: bool = False, basic=()) -> None:
    res = np.array(self_, order="C")
    pos = _positions(res.shape)
    if basic:
        pos = pos[tuple(basic)]
    indices = per_dim(indices, dims, pos.ndim)
    if pos.size:  # (an empty input or region writes nothing, whatever the indices hold: as the kernel and PyTorch)
        dest = pos[tuple(slice(None) if i is None else i.astype(np.int64) for i in indices)]
        if dest.size:
            fold_twin(res, dest, np.broadcast_to(values, dest.shape), "sum" if accumulate else "set")
    out[...] = res
