"""Scans and a stable sort by key: the deterministic building blocks of the indexing family.

Two primitives, both on integers only (so every result is exact and independent of how the
work is split between programs):

- :func:`exclusive_scan` turns per-block counts into per-block start offsets (the compaction
  pass of ``masked_select``/``nonzero``/``masked_scatter``, and the bucket offsets of the sort);
- :func:`stable_sort_by_key` orders (key, payload) pairs by key, keeping the original order
  of equal keys: an LSD radix sort, 4 bits per pass. Each pass is three launches: per-block
  digit histograms, an exclusive scan of those histograms laid out digit-major (so the scan
  gives every (digit, block) its global start), and a scatter in which each element's rank
  among the equal digits of its block comes from a cumulative sum of a one-hot matrix. No
  atomics anywhere, so the permutation is the same on every run and on every GPU.

The scatter family sorts its destination offsets with it and then reduces each run of equal
keys in source order (``scatter.py``): that is what makes ``scatter_add``/``index_add``/
``index_put(accumulate=True)`` deterministic without float atomics.

Layout of this file: Triton kernels, launchers, numpy twins.
"""

from __future__ import annotations

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..launch import INTERPRET, cdiv, launch

RADIX_BITS = 4
RADIX = 1 << RADIX_BITS

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _exclusive_scan_kernel(
    x_ptr, total_ptr,  # int64 in/out (scanned in place), int64 scalar out
    n,
    BLOCK: tl.constexpr,
):
    # One program walks the array in blocks and carries the running total. The arrays scanned
    # here are small (one entry per block of a bigger problem), so one program is enough.
    carry = tl.program_id(0).to(tl.int64) * 0
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK).to(tl.int64)
        mask = offs < n
        v = tl.load(x_ptr + offs, mask=mask, other=0).to(tl.int64)
        inclusive = tl.cumsum(v, axis=0)
        tl.store(x_ptr + offs, inclusive - v + carry, mask=mask)
        carry += tl.sum(v, axis=0)
    tl.store(total_ptr, carry)


@triton.jit
def _radix_histogram_kernel(
    keys_ptr, hist_ptr,  # int64 keys; int64 histogram [RADIX, nblocks] (digit-major)
    n, nblocks, shift,
    RADIX: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    k = tl.load(keys_ptr + offs, mask=mask, other=0)
    digit = (k >> shift) & (RADIX - 1)
    onehot = (digit[:, None] == tl.arange(0, RADIX)[None, :]) & mask[:, None]
    counts = tl.sum(onehot.to(tl.int64), axis=0)
    tl.store(hist_ptr + tl.arange(0, RADIX).to(tl.int64) * nblocks + pid, counts)


@triton.jit
def _radix_scatter_kernel(
    keys_ptr, vals_ptr, keys_out_ptr, vals_out_ptr, hist_ptr,  # hist: scanned starts
    n, nblocks, shift,
    RADIX: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    k = tl.load(keys_ptr + offs, mask=mask, other=0)
    v = tl.load(vals_ptr + offs, mask=mask, other=0)
    digit = (k >> shift) & (RADIX - 1)
    onehot = ((digit[:, None] == tl.arange(0, RADIX)[None, :]) & mask[:, None]).to(tl.int32)
    # How many elements of this block before me have my digit: the stable rank in my bucket.
    before = tl.cumsum(onehot, axis=0) - onehot
    rank = tl.sum(before * onehot, axis=1)
    start = tl.load(hist_ptr + digit * nblocks + pid, mask=mask, other=0)
    dst = start + rank
    tl.store(keys_out_ptr + dst, k, mask=mask)
    tl.store(vals_out_ptr + dst, v, mask=mask)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------

SCAN_CONFIGS = [{"BLOCK": b} for b in (1024, 4096)]
SORT_CONFIGS = [{"BLOCK": b, "num_warps": w} for b, w in ((256, 4), (512, 4), (1024, 8))]


def exclusive_scan(x) -> int:
    """Scan the contiguous int64 DeviceArray ``x`` in place (exclusive); returns the total (a host sync)."""
    total = rt.empty((1,), np.int64, x.device)
    exclusive_scan_device(x, total)
    host = np.zeros(1, np.int64)
    rt.copy_device_to_host(host, total.storage, total.offset * 8)
    return int(host[0])


def exclusive_scan_device(x, total) -> None:
    """As :func:`exclusive_scan`, leaving the total on the device (``total``: one int64)."""
    block = 8192 if INTERPRET else 1024
    launch(_exclusive_scan_kernel, (1,), x, total, x.numel, BLOCK=block)


def stable_sort_by_key(keys, vals, max_key: int):
    """Sort contiguous int64 DeviceArrays ``keys`` (values in ``[0, max_key]``) and ``vals`` by key,
    stably. Returns the sorted (keys, vals), possibly the inputs themselves (which may be clobbered)."""
    n = keys.numel
    bits = int(max_key).bit_length()
    if n <= 1 or bits == 0:
        return keys, vals
    block = 1024 if INTERPRET else 512
    nblocks = cdiv(n, block)
    dev = keys.device
    hist = rt.empty((RADIX * nblocks,), np.int64, dev)
    total = rt.empty((1,), np.int64, dev)
    k_alt = rt.empty((n,), np.int64, dev)
    v_alt = rt.empty((n,), np.int64, dev)
    src_k, src_v, dst_k, dst_v = keys, vals, k_alt, v_alt
    for shift in range(0, bits, RADIX_BITS):
        launch(_radix_histogram_kernel, (nblocks,), src_k, hist, n, nblocks, shift, RADIX=RADIX, BLOCK=block,
               num_warps=4)
        exclusive_scan_device(hist, total)
        launch(_radix_scatter_kernel, (nblocks,), src_k, src_v, dst_k, dst_v, hist, n, nblocks, shift,
               RADIX=RADIX, BLOCK=block, num_warps=4)
        src_k, src_v, dst_k, dst_v = dst_k, dst_v, src_k, src_v
    return src_k, src_v


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def exclusive_scan_twin(x: np.ndarray) -> int:
    total = int(x.sum())
    x[...] = np.cumsum(x) - x
    return total


def stable_sort_by_key_twin(keys: np.ndarray, vals: np.ndarray, max_key: int):
    order = np.argsort(keys, kind="stable")
    return keys[order], vals[order]
