"""Sorting along one dim: ``sort``, ``argsort``, ``topk``, ``kthvalue``, ``median`` (one kernel family).

How it works. Every op here is "sort each row stably, then write a window of sorted positions":
``sort``/``argsort`` write all of them, ``topk`` the first ``k`` (descending for the largest),
``kthvalue`` position ``k - 1``, ``median`` position ``(n - 1) // 2`` (or the first NaN). The sorted
dim is moved last with a view on the host (no copy); the other dims are the batch of rows, read
and written through their strides (``strided.offsets``).

Keys. An element is turned into an integer *sort key* whose signed order is the order PyTorch
sorts in: integers are their own key (widened to int32/int64); a float's bit pattern ``b`` maps
to ``mag = b & 0x7f..f`` for ``b >= 0`` and ``-mag`` for ``b < 0``, which orders floats
numerically, makes -0.0 and +0.0 equal (PyTorch compares them equal), and every NaN becomes the
largest key (PyTorch sorts NaN as larger than +inf). Descending order is the bitwise NOT of the
key (``~k = -k - 1`` reverses the order exactly), so NaN comes first, as in PyTorch. The kernels
read inputs through an integer view of the same bytes (fp16/bf16 -> int16, fp32 -> int32,
fp64 -> int64, bool -> uint8), so no float arithmetic is involved and the interpreter's float
quirks do not apply; values are written back bit for bit (a gather at the sorted indices), so
-0.0 keeps its sign and NaN payloads survive.

Stability. The network sorts (key, original index) pairs lexicographically. All pairs are
distinct, so the result is unique: ties keep their original order (stable), for ascending and
descending alike. ``stable=False`` therefore gives the stable order too, and topk/kthvalue/median
pick, among equal values, the lowest index (in sorted order) — deterministic.

Rows that fit one block (``n <= MAX_BLOCK``): one program sorts ``ROWS`` rows of ``BLOCK`` (a
power of two >= n) keys in registers with a bitonic network. ``tl.sort`` (Triton 3.6 and 3.9; 3.9
adds ``tl.topk``) sorts a single tensor and carries no payload, so this file has its own network.
32-bit keys travel packed with their index in one int64 (``key << 32 | index``: its signed order
is the (key, index) order); 64-bit keys travel as (key, index) pairs compared lexicographically.
A compare-and-swap needs each element's partner at distance ``2**j``: the tile is reshaped to
``[outer, 2, 2**j]`` and the two halves are read with a sum over the size-2 axis (the other term
masked to zero). Triton's own sort gets the partner with an xor-reduction instead, which is as good
on a GPU but ~100x slower in the interpreter (a Python-level reduce with a custom combine).

Longer rows: (1) each chunk of ``BLOCK`` is sorted by the same network into scratch (key and
index arrays, rows padded to a multiple of ``BLOCK`` with keys that sort last); (2) merge passes
double the sorted run length: an element's place in the merged run is its rank in its own run
plus the number of elements of the partner run that are smaller (a vectorised binary search per
element; no ties exist among (key, index) pairs, so no merge-path bookkeeping is needed);
(3) the window of sorted positions is written out. O(n log^2 n) work, deterministic, no atomics.
Rows of 2**31 or more elements raise NotImplementedError (indices are int32 inside the kernels).

Layout of this file: Triton kernels (key mapping and the bitonic network first), launchers,
numpy twins.
"""

from __future__ import annotations

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..launch import INTERPRET, cdiv, launch, needs_int64, next_power_of_2
from ..strided import offsets, strided_layout

# ----------------------------------------------------------------------------------------------
# Kernels: the sort key and the bitonic network over (key, index) pairs
# ----------------------------------------------------------------------------------------------


@triton.jit
def sort_key(bits, FLOAT_BITS: tl.constexpr, INF_BITS: tl.constexpr, MAG_MASK: tl.constexpr,
             KEY_MAX: tl.constexpr, KEY64: tl.constexpr):
    """The integer key of raw element ``bits`` (see the module docstring); NaN -> ``KEY_MAX``."""
    if KEY64:
        k = bits.to(tl.int64)
    else:
        k = bits.to(tl.int32)  # sign-extends int8/int16 (and fp16/bf16 bits), zero-extends uint8
    if FLOAT_BITS > 0:
        mag = k & MAG_MASK
        k = tl.where(k < 0, -mag, mag)  # -0.0 -> 0, like +0.0
        k = tl.where(mag > INF_BITS, KEY_MAX, k)  # any NaN, of either sign
    return k


@triton.jit
def bitonic_sort(k, v, LOG_BLOCK: tl.constexpr, PAIRS: tl.constexpr):
    """Sort each row of the [ROWS, 2**LOG_BLOCK] tile ``k`` ascending; with ``PAIRS`` by (k, v)
    lexicographically, carrying ``v`` along (else ``v`` is returned untouched).

    One function, no nested jit calls: in the interpreter every nested call re-patches Triton's
    builtins, which cost more than the sort itself.
    """
    n_outer: tl.constexpr = k.numel >> LOG_BLOCK
    right = tl.arange(0, 2)[None, :, None]  # position within a compared pair
    for stage in tl.static_range(1, LOG_BLOCK + 1):
        # Merge bitonic runs of 2**stage: alternate directions until the last stage (ascending).
        if stage < LOG_BLOCK:
            flip = tl.reshape(tl.broadcast_to(right, [n_outer * 2 ** (LOG_BLOCK - 1 - stage), 2, 2**stage]),
                              k.shape)
        else:
            flip = tl.zeros(k.shape, dtype=tl.int32)
        for j in tl.static_range(stage):
            # Pairs at distance 2**(stage - j - 1): view the tile as [outer, 2, inner] and read each
            # half with a sum over the size-2 axis (exact: the other term is zero).
            ky = tl.reshape(k, [n_outer * 2 ** (LOG_BLOCK - stage + j), 2, 2 ** (stage - j - 1)])
            k_left = tl.sum(tl.where(right == 0, ky, 0), 1, keep_dims=True)
            k_right = tl.sum(tl.where(right == 1, ky, 0), 1, keep_dims=True)
            kp = tl.reshape(tl.where(right == 1, k_left, k_right), k.shape)  # the partner's key
            is_right = tl.reshape(tl.broadcast_to(right, [n_outer * 2 ** (LOG_BLOCK - stage + j), 2,
                                                          2 ** (stage - j - 1)]), k.shape)
            if PAIRS:
                vy = tl.reshape(v, [n_outer * 2 ** (LOG_BLOCK - stage + j), 2, 2 ** (stage - j - 1)])
                v_left = tl.sum(tl.where(right == 0, vy, 0), 1, keep_dims=True)
                v_right = tl.sum(tl.where(right == 1, vy, 0), 1, keep_dims=True)
                vp = tl.reshape(tl.where(right == 1, v_left, v_right), k.shape)
                greater = (k > kp) | ((k == kp) & (v > vp))  # pairs are distinct: no ties
            else:
                greater = k > kp
            # The left element keeps the smaller (the larger when ``flip``), the right one the other.
            swap = greater != (flip ^ is_right).to(tl.int1)
            k = tl.where(swap, kp, k)
            if PAIRS:
                v = tl.where(swap, vp, v)
    return k, v


@triton.jit
def sort_with_index(key, idx, LOG_BLOCK: tl.constexpr, KEY64: tl.constexpr):
    """Stable sort of each row of ``key`` (int32/int64 sort keys) carrying ``idx`` (int32 positions,
    distinct within a row). 32-bit keys are packed with the index into one int64, ``key << 32 | idx``,
    whose signed order is the (key, index) order: one array through the network instead of two."""
    if KEY64:
        key, idx = bitonic_sort(key, idx, LOG_BLOCK, True)
    else:
        packed = (key.to(tl.int64) << 32) | idx.to(tl.int64)
        packed, idx = bitonic_sort(packed, idx, LOG_BLOCK, False)
        idx = (packed & 0xFFFFFFFF).to(tl.int32)
        key = (packed >> 32).to(tl.int32)
    return key, idx


# ----------------------------------------------------------------------------------------------
# Kernels: rows that fit one block
# ----------------------------------------------------------------------------------------------


@triton.jit
def _sort_rows_kernel(
    val_ptr, idx_ptr, x_ptr,  # outputs (values as raw bits, int64 indices), input (raw bits)
    n_rows, n, start, count,  # rows, row length, first sorted position written, positions written
    size1, size2, size3, size4, size5,  # batch (row) sizes, right-aligned
    xs0, xs1, xs2, xs3, xs4, xs5,  # batch strides of the input
    vs0, vs1, vs2, vs3, vs4, vs5,  # batch strides of the values output
    is0, is1, is2, is3, is4, is5,  # batch strides of the indices output
    x_step, v_step, i_step,  # strides along the sorted dim
    NDIM: tl.constexpr, FLOAT_BITS: tl.constexpr, INF_BITS: tl.constexpr, MAG_MASK: tl.constexpr,
    KEY_MAX: tl.constexpr, KEY64: tl.constexpr,
    DESCENDING: tl.constexpr,  # sort by ~key
    MEDIAN: tl.constexpr,  # write the one position (n-1)//2, or the first NaN if the row has one
    VALUES: tl.constexpr,  # write values (argsort does not)
    INT64: tl.constexpr, ROWS: tl.constexpr, BLOCK: tl.constexpr, LOG_BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        rows = pid.to(tl.int64) * ROWS + tl.arange(0, ROWS).to(tl.int64)
    else:
        rows = pid * ROWS + tl.arange(0, ROWS)
    row_ok = rows < n_rows
    x_row = offsets(rows, size1, size2, size3, size4, size5, xs0, xs1, xs2, xs3, xs4, xs5, NDIM)
    cols = tl.arange(0, BLOCK)
    valid = row_ok[:, None] & (cols < n)[None, :]
    if INT64:
        x_off = x_row[:, None] + cols.to(tl.int64)[None, :] * x_step
    else:
        x_off = x_row[:, None] + cols[None, :] * x_step
    bits = tl.load(x_ptr + x_off, mask=valid, other=0)
    key = sort_key(bits, FLOAT_BITS, INF_BITS, MAG_MASK, KEY_MAX, KEY64)
    if MEDIAN:
        if FLOAT_BITS > 0:
            nans = tl.sum((valid & (key == KEY_MAX)).to(tl.int32), 1)
        else:
            nans = tl.zeros([ROWS], dtype=tl.int32)
    if DESCENDING:
        key = ~key
    key = tl.where(valid, key, KEY_MAX)  # padding sorts last (its index, >= n, breaks ties)
    idx = tl.broadcast_to(cols[None, :], [ROWS, BLOCK])
    key, idx = sort_with_index(key, idx, LOG_BLOCK, KEY64)

    if MEDIAN:
        # PyTorch's median returns NaN (the first one) when the row has any.
        sel = tl.where(nans > 0, n - nans, (n - 1) // 2)
        write = row_ok[:, None] & (cols[None, :] == sel[:, None])
        dst = cols * 0
    else:
        write = row_ok[:, None] & (cols >= start)[None, :] & (cols < start + count)[None, :]
        dst = cols - start
    if INT64:
        dst = dst.to(tl.int64)
        src = idx.to(tl.int64)
    else:
        src = idx
    i_row = offsets(rows, size1, size2, size3, size4, size5, is0, is1, is2, is3, is4, is5, NDIM)
    tl.store(idx_ptr + i_row[:, None] + dst[None, :] * i_step, idx.to(tl.int64), mask=write)
    if VALUES:
        # Gather the values bit for bit (the row is in cache): -0.0 and NaN payloads survive.
        vals = tl.load(x_ptr + x_row[:, None] + src * x_step, mask=write, other=0)
        v_row = offsets(rows, size1, size2, size3, size4, size5, vs0, vs1, vs2, vs3, vs4, vs5, NDIM)
        tl.store(val_ptr + v_row[:, None] + dst[None, :] * v_step, vals, mask=write)


# ----------------------------------------------------------------------------------------------
# Kernels: long rows (chunk sort, merge passes, write-out)
# ----------------------------------------------------------------------------------------------


@triton.jit
def _sort_chunks_kernel(
    keys_ptr, perm_ptr, x_ptr,  # scratch outputs [rows, n_pad] (keys, int32 indices), input (raw bits)
    n, n_pad, n_chunks,  # row length, padded row length (a multiple of BLOCK), chunks (all rows)
    size1, size2, size3, size4, size5,  # batch sizes
    xs0, xs1, xs2, xs3, xs4, xs5,  # batch strides of the input
    x_step,  # stride along the sorted dim
    NDIM: tl.constexpr, FLOAT_BITS: tl.constexpr, INF_BITS: tl.constexpr, MAG_MASK: tl.constexpr,
    KEY_MAX: tl.constexpr, KEY64: tl.constexpr, DESCENDING: tl.constexpr,
    CHUNKS: tl.constexpr, BLOCK: tl.constexpr, LOG_BLOCK: tl.constexpr,
):
    # A tile of CHUNKS chunks of BLOCK elements (chunk c: row c // chunks-per-row), each sorted.
    c = tl.program_id(0).to(tl.int64) * CHUNKS + tl.arange(0, CHUNKS)
    per_row = n_pad // BLOCK
    row = c // per_row
    cols = (c % per_row)[:, None] * BLOCK + tl.arange(0, BLOCK)[None, :]  # position in the row
    chunk_ok = (c < n_chunks)[:, None]
    valid = chunk_ok & (cols < n)
    x_row = offsets(row, size1, size2, size3, size4, size5, xs0, xs1, xs2, xs3, xs4, xs5, NDIM)
    bits = tl.load(x_ptr + x_row[:, None] + cols * x_step, mask=valid, other=0)
    key = sort_key(bits, FLOAT_BITS, INF_BITS, MAG_MASK, KEY_MAX, KEY64)
    if DESCENDING:
        key = ~key
    key = tl.where(valid, key, KEY_MAX)  # the row's padding sorts last (its index is >= n)
    key, idx = sort_with_index(key, cols.to(tl.int32), LOG_BLOCK, KEY64)
    dst = row[:, None] * n_pad + cols
    tl.store(keys_ptr + dst, key, mask=chunk_ok)
    tl.store(perm_ptr + dst, idx, mask=chunk_ok)


@triton.jit
def _merge_pass_kernel(
    dst_keys_ptr, dst_perm_ptr, src_keys_ptr, src_perm_ptr,  # scratch [rows, n_pad], ping-pong
    total, n_pad, run, steps,  # rows * n_pad, padded row length, sorted run length, binary-search steps
    BLOCK: tl.constexpr,
):
    e = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # element of the [rows, n_pad] scratch
    mask = e < total
    base = (e // n_pad) * n_pad
    p = e % n_pad  # position in the row
    k = tl.load(src_keys_ptr + e, mask=mask, other=0)
    v = tl.load(src_perm_ptr + e, mask=mask, other=0)
    r = p // run
    own = r * run
    pair = (r // 2) * (2 * run)
    other = tl.where(r % 2 == 0, own + run, own - run)
    other_len = tl.minimum(tl.maximum(tl.minimum(other + run, n_pad) - other, 0), run)
    # Its place in the merged run: rank in its own run + elements of the partner run smaller than
    # (k, v), by a binary search per element. All pairs are distinct, so the places are too.
    lo = tl.zeros([BLOCK], dtype=tl.int64)
    hi = tl.where(mask, other_len, 0)
    for _ in range(steps):
        active = lo < hi
        mid = (lo + hi) // 2
        km = tl.load(src_keys_ptr + base + other + mid, mask=active, other=0)
        vm = tl.load(src_perm_ptr + base + other + mid, mask=active, other=0)
        less = (km < k) | ((km == k) & (vm < v))
        lo = tl.where(active & less, mid + 1, lo)
        hi = tl.where(active & ~less, mid, hi)
    dst = base + pair + (p - own) + lo
    tl.store(dst_keys_ptr + dst, k, mask=mask)
    tl.store(dst_perm_ptr + dst, v, mask=mask)


@triton.jit
def _write_window_kernel(
    val_ptr, idx_ptr, x_ptr, perm_ptr,  # outputs, input (raw bits), sorted scratch indices [rows, n_pad]
    total, n_pad, start, count,  # rows * count, padded row length, window [start, start + count)
    size1, size2, size3, size4, size5,  # batch sizes
    xs0, xs1, xs2, xs3, xs4, xs5,
    vs0, vs1, vs2, vs3, vs4, vs5,
    is0, is1, is2, is3, is4, is5,
    x_step, v_step, i_step,
    NDIM: tl.constexpr, VALUES: tl.constexpr, BLOCK: tl.constexpr,
):
    e = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)  # element of the [rows, count] output
    mask = e < total
    row = e // count
    q = e % count  # output position along the dim
    src = tl.load(perm_ptr + row * n_pad + start + q, mask=mask, other=0).to(tl.int64)
    i_row = offsets(row, size1, size2, size3, size4, size5, is0, is1, is2, is3, is4, is5, NDIM)
    tl.store(idx_ptr + i_row + q * i_step, src, mask=mask)
    if VALUES:
        x_row = offsets(row, size1, size2, size3, size4, size5, xs0, xs1, xs2, xs3, xs4, xs5, NDIM)
        v_row = offsets(row, size1, size2, size3, size4, size5, vs0, vs1, vs2, vs3, vs4, vs5, NDIM)
        vals = tl.load(x_ptr + x_row + src * x_step, mask=mask, other=0)
        tl.store(val_ptr + v_row + q * v_step, vals, mask=mask)


@triton.jit
def _write_median_kernel(
    val_ptr, idx_ptr, x_ptr, keys_ptr, perm_ptr,  # outputs, input (raw bits), sorted scratch [rows, n_pad]
    n_rows, n, n_pad, steps,  # rows, row length, padded row length, binary-search steps over n
    size1, size2, size3, size4, size5,
    xs0, xs1, xs2, xs3, xs4, xs5,
    vs0, vs1, vs2, vs3, vs4, vs5,
    is0, is1, is2, is3, is4, is5,
    x_step,
    NDIM: tl.constexpr, FLOAT_BITS: tl.constexpr, KEY_MAX: tl.constexpr, BLOCK: tl.constexpr,
):
    rows = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    row_ok = rows < n_rows
    base = rows * n_pad
    sel = tl.zeros([BLOCK], dtype=tl.int64) + (n - 1) // 2
    if FLOAT_BITS > 0:
        # NaNs (key KEY_MAX) sorted last: the first one is at lower_bound(KEY_MAX) when it is < n.
        lo = tl.zeros([BLOCK], dtype=tl.int64)
        hi = lo + n
        for _ in range(steps):
            active = row_ok & (lo < hi)
            mid = (lo + hi) // 2
            km = tl.load(keys_ptr + base + mid, mask=active, other=KEY_MAX)
            less = km < KEY_MAX
            lo = tl.where(active & less, mid + 1, lo)
            hi = tl.where(active & ~less, mid, hi)
        sel = tl.where(lo < n, lo, sel)
    src = tl.load(perm_ptr + base + sel, mask=row_ok, other=0).to(tl.int64)
    i_row = offsets(rows, size1, size2, size3, size4, size5, is0, is1, is2, is3, is4, is5, NDIM)
    x_row = offsets(rows, size1, size2, size3, size4, size5, xs0, xs1, xs2, xs3, xs4, xs5, NDIM)
    v_row = offsets(rows, size1, size2, size3, size4, size5, vs0, vs1, vs2, vs3, vs4, vs5, NDIM)
    tl.store(idx_ptr + i_row, src, mask=row_ok)
    vals = tl.load(x_ptr + x_row + src * x_step, mask=row_ok, other=0)
    tl.store(val_ptr + v_row, vals, mask=row_ok)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------

# Longest row sorted in registers by one program; longer rows take the chunk + merge path. On a
# GPU 1024: a 4096-wide network takes tens of seconds to compile per specialisation. (Module-level
# so tests can lower it to exercise the long-row path with small inputs.)
MAX_BLOCK = 4096 if INTERPRET else 1024
# Elements per program: tiles of ROWS x BLOCK with ROWS * BLOCK <= TILE.
TILE = 16384 if INTERPRET else 1024
MERGE_BLOCK = 4096 if INTERPRET else 1024
ROW_LIMIT = 2**31 - 1  # indices are int32 inside the kernels

# The declared launch-configuration space (BLOCK is the row length rounded up to a power of two).
CONFIGS = [{"TILE": t, "num_warps": w} for t, w in ((512, 4), (1024, 4), (2048, 8), (4096, 16))]

_FLOAT_INFO = {  # float dtype -> (bit width, bits of +inf)
    "float16": (16, 0x7C00), "bfloat16": (16, 0x7F80), "float32": (32, 0x7F800000),
    "float64": (64, 0x7FF0000000000000),
}
_BITS_DTYPE = {1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64}


def key_params(dtype) -> dict:
    """The constexprs of :func:`sort_key` for elements of numpy ``dtype``."""
    dtype = np.dtype(dtype)
    float_bits, inf_bits = _FLOAT_INFO.get(dtype.name, (0, 0))
    key64 = dtype.itemsize == 8
    return {"FLOAT_BITS": float_bits, "INF_BITS": inf_bits,
            "MAG_MASK": (1 << (float_bits - 1)) - 1 if float_bits else 0,
            "KEY_MAX": 2**63 - 1 if key64 else 2**31 - 1, "KEY64": key64}


def bits_view(a):
    """The same bytes as an integer DeviceArray (bool -> uint8, floats -> intN); None stays None."""
    if a is None:
        return None
    dtype = a.dtype
    if dtype.kind in "iu" and dtype != np.bool_:
        return a
    return rt.DeviceArray(a.storage, a.offset, a.shape, a.strides, _BITS_DTYPE[dtype.itemsize])


def _dim_last(a, dim: int):
    """View of DeviceArray ``a`` with ``dim`` moved last (0-d arrays become 1-element 1-d)."""
    if a is None:
        return None
    if a.ndim == 0:
        return a.view((1,), (1,))
    shape, strides = list(a.shape), list(a.strides)
    shape.append(shape.pop(dim))
    strides.append(strides.pop(dim))
    return a.view(tuple(shape), tuple(strides))


def pick_config(n_rows: int, n: int) -> dict:
    block = max(2, next_power_of_2(n))
    rows = max(1, min(next_power_of_2(max(n_rows, 1)), TILE // block))
    return {"ROWS": rows, "BLOCK": block, "LOG_BLOCK": block.bit_length() - 1, "num_warps": _warps(rows * block)}


def _warps(tile: int) -> int:
    return 4 if tile <= 1024 else 8 if tile <= 2048 else 16


def sort_select(values, indices, x, dim: int, descending: bool, start: int = 0, count: int | None = None,
                median: bool = False) -> None:
    """Sort ``x`` along ``dim`` (stable; see the module docstring) and write sorted positions
    ``[start, start + count)`` to ``values``/``indices`` (their ``dim`` has size ``count``), or with
    ``median`` the median position (``count`` = 1). ``values`` may be None (argsort)."""
    x, values, indices = _dim_last(x, dim), _dim_last(values, dim), _dim_last(indices, dim)
    n = x.shape[-1]
    count = indices.shape[-1] if count is None else count
    batch = x.shape[:-1]
    n_rows = int(np.prod(batch)) if batch else 1
    if n_rows == 0 or count == 0 or n == 0:
        return
    if n > ROW_LIMIT:
        raise NotImplementedError(f"sort: rows of {n} elements are not supported on cuda (at most {ROW_LIMIT})")
    vb = bits_view(values) if values is not None else bits_view(indices)  # a placeholder pointer for argsort
    xb = bits_view(x)
    kp = key_params(x.dtype)
    int64 = needs_int64(x, values, indices)
    pieces = strided_layout(batch if batch else (1,), x.strides[:-1] or (0,), vb.strides[:-1] or (0,),
                            indices.strides[:-1] or (0,))
    for p in pieces:
        xv = xb.view(xb.shape, xb.strides, xb.offset + p.offsets[0])
        vv = vb.view(vb.shape, vb.strides, vb.offset + p.offsets[1])
        iv = indices.view(indices.shape, indices.strides, indices.offset + p.offsets[2])
        geometry = (*p.sizes[1:], *p.strides[0], *p.strides[1], *p.strides[2])
        steps = (x.strides[-1], vb.strides[-1], indices.strides[-1])
        if n <= MAX_BLOCK:
            config = pick_config(p.numel, n)
            launch(_sort_rows_kernel, (cdiv(p.numel, config["ROWS"]),), vv, iv, xv, p.numel, n, start, count,
                   *geometry, *steps, NDIM=p.ndim, DESCENDING=bool(descending) and not median, MEDIAN=median,
                   VALUES=values is not None, INT64=int64, **kp, **config)
        else:
            _sort_long_rows(vv, iv, xv, p, geometry, steps, n, start, count, bool(descending) and not median,
                            median, values is not None, kp)


def _sort_long_rows(vv, iv, xv, p, geometry, steps, n, start, count, descending, median, has_values, kp):
    block = MAX_BLOCK
    n_pad = cdiv(n, block) * block
    n_rows = p.numel
    key_dtype = np.int64 if kp["KEY64"] else np.int32
    keys = [rt.empty((n_rows, n_pad), key_dtype, xv.device) for _ in range(2)]
    perm = [rt.empty((n_rows, n_pad), np.int32, xv.device) for _ in range(2)]
    n_chunks = n_rows * (n_pad // block)
    chunks = max(1, min(next_power_of_2(n_chunks), TILE // block))
    launch(_sort_chunks_kernel, (cdiv(n_chunks, chunks),), keys[0], perm[0], xv, n, n_pad, n_chunks,
           *p.sizes[1:], *p.strides[0], steps[0], NDIM=p.ndim, DESCENDING=descending, CHUNKS=chunks, BLOCK=block,
           LOG_BLOCK=block.bit_length() - 1, num_warps=_warps(chunks * block), **kp)
    cur, run, total = 0, block, n_rows * n_pad
    while run < n_pad:
        launch(_merge_pass_kernel, (cdiv(total, MERGE_BLOCK),), keys[1 - cur], perm[1 - cur], keys[cur], perm[cur],
               total, n_pad, run, run.bit_length(), BLOCK=MERGE_BLOCK, num_warps=4)
        cur, run = 1 - cur, run * 2
    if median:
        rblock = 1024 if INTERPRET else 128
        launch(_write_median_kernel, (cdiv(n_rows, rblock),), vv, iv, xv, keys[cur], perm[cur], n_rows, n, n_pad,
               n.bit_length(), *geometry, steps[0], NDIM=p.ndim, FLOAT_BITS=kp["FLOAT_BITS"],
               KEY_MAX=kp["KEY_MAX"], BLOCK=rblock, num_warps=4)
        return
    total = n_rows * count
    launch(_write_window_kernel, (cdiv(total, MERGE_BLOCK),), vv, iv, xv, perm[cur], total, n_pad, start, count,
           *geometry, *steps, NDIM=p.ndim, VALUES=has_values, BLOCK=MERGE_BLOCK, num_warps=4)


def sort(values, indices, x, dim: int, descending: bool = False) -> None:
    sort_select(values, indices, x, dim, descending)


def argsort(indices, x, dim: int, descending: bool = False) -> None:
    sort_select(None, indices, x, dim, descending)


def topk(values, indices, x, k: int, dim: int, largest: bool = True) -> None:
    sort_select(values, indices, x, dim, largest, 0, k)


def _keep(a, dim: int, keepdim: bool):
    """``a`` with the reduced ``dim`` present (size 1): a view when ``keepdim`` is False."""
    if keepdim:
        return a
    shape, strides = list(a.shape), list(a.strides)
    shape.insert(dim, 1)
    strides.insert(dim, 0)
    return a.view(tuple(shape), tuple(strides))


def kthvalue(values, indices, x, k: int, dim: int, keepdim: bool = False) -> None:
    if x.ndim == 0:
        sort_select(values, indices, x, 0, False, k - 1, 1)
        return
    sort_select(_keep(values, dim, keepdim), _keep(indices, dim, keepdim), x, dim, False, k - 1, 1)


def median(values, indices, x, dim: int, keepdim: bool = False) -> None:
    if x.ndim == 0:
        sort_select(values, indices, x, 0, False, 0, 1, median=True)
        return
    sort_select(_keep(values, dim, keepdim), _keep(indices, dim, keepdim), x, dim, False, 0, 1, median=True)


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def sort_keys_twin(x: np.ndarray) -> np.ndarray:
    """The kernels' sort keys as int64 (the same order: NaN largest, -0.0 == +0.0)."""
    if x.dtype.kind == "f" or x.dtype.name == "bfloat16":
        f = x.astype(np.float64)
        bits = f.view(np.int64)
        mag = bits & np.int64(0x7FFFFFFFFFFFFFFF)
        key = np.where(bits < 0, -mag, mag)
        return np.where(np.isnan(f), np.int64(2**63 - 1), key)
    return x.astype(np.int64)


def sort_select_twin(values, indices, x: np.ndarray, dim: int, descending: bool, start: int = 0,
                     count: int | None = None, median: bool = False) -> None:
    if x.ndim == 0:
        x, values = x.reshape(1), None if values is None else values.reshape(1)
        indices, dim = indices.reshape(1), 0
    xl = np.moveaxis(x, dim, -1)
    key = sort_keys_twin(xl)
    if descending:
        key = ~key
    perm = np.argsort(key, axis=-1, kind="stable")
    n = xl.shape[-1]
    if median:
        nans = (np.isnan(xl.astype(np.float64)) if x.dtype.kind == "f" or x.dtype.name == "bfloat16"
                else np.zeros(xl.shape, bool)).sum(-1)
        sel = np.where(nans > 0, n - nans, (n - 1) // 2)[..., None]
        picked = np.take_along_axis(perm, sel, -1) if n else perm[..., :0]
    else:
        count = np.moveaxis(indices, dim, -1).shape[-1] if count is None else count
        picked = perm[..., start:start + count]
    np.moveaxis(indices, dim, -1)[...] = picked
    if values is not None:
        np.moveaxis(values, dim, -1)[...] = np.take_along_axis(xl, picked, -1)


def sort_twin(values, indices, x, dim: int, descending: bool = False) -> None:
    sort_select_twin(values, indices, x, dim, descending)


def argsort_twin(indices, x, dim: int, descending: bool = False) -> None:
    sort_select_twin(None, indices, x, dim, descending)


def topk_twin(values, indices, x, k: int, dim: int, largest: bool = True) -> None:
    sort_select_twin(values, indices, x, dim, largest, 0, k)


def _keep_twin(a: np.ndarray, dim: int, keepdim: bool) -> np.ndarray:
    return a if keepdim else np.expand_dims(a, dim)


def kthvalue_twin(values, indices, x, k: int, dim: int, keepdim: bool = False) -> None:
    if x.ndim == 0:
        sort_select_twin(values, indices, x, 0, False, k - 1, 1)
        return
    sort_select_twin(_keep_twin(values, dim, keepdim), _keep_twin(indices, dim, keepdim), x, dim, False, k - 1, 1)


def median_twin(values, indices, x, dim: int, keepdim: bool = False) -> None:
    if x.ndim == 0:
        sort_select_twin(values, indices, x, 0, False, median=True)
        return
    sort_select_twin(_keep_twin(values, dim, keepdim), _keep_twin(indices, dim, keepdim), x, dim, False,
                     median=True)
