"""``unique`` and ``unique_consecutive`` of a flattened tensor: values, inverse indices, counts.

How it works (all on the device; one host read of the number of groups to size the outputs,
as in PyTorch):

1. ``unique`` sorts the elements (``sort.sort_select``: values and the permutation);
   ``unique_consecutive`` works on the elements as they are.
2. A flag marks the first element of each group: position 0, or a key different from the
   previous one (the integer sort keys of ``sort.sort_key``: -0.0 and +0.0 are one value). NaN
   is never equal to anything, so every NaN is its own group, as in PyTorch.
3. An inclusive prefix sum of the flags numbers the groups (block scans with ``tl.cumsum``, the
   block totals scanned recursively, then added back: deterministic integer arithmetic).
4. A scatter writes each group's first element (its value and start position) and each
   element's group number to the inverse at the element's original position; counts are the
   differences of consecutive group starts.
"""

from __future__ import annotations

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..launch import INTERPRET, cdiv, launch
from .sort import bits_view, key_params, sort_key, sort_keys_twin, sort_select

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _group_flags_kernel(
    gid_ptr, bsum_ptr, s_ptr,  # outputs: per-block inclusive scan of the flags, block totals; input (raw bits)
    n, s_step,  # elements, stride of the input
    FLOAT_BITS: tl.constexpr, INF_BITS: tl.constexpr, MAG_MASK: tl.constexpr, KEY_MAX: tl.constexpr,
    KEY64: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    i = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    k = sort_key(tl.load(s_ptr + i * s_step, mask=mask, other=0), FLOAT_BITS, INF_BITS, MAG_MASK, KEY_MAX, KEY64)
    prev = sort_key(tl.load(s_ptr + (i - 1) * s_step, mask=mask & (i > 0), other=0),
                    FLOAT_BITS, INF_BITS, MAG_MASK, KEY_MAX, KEY64)
    first = (i == 0) | (k != prev)
    if FLOAT_BITS > 0:
        first = first | (k == KEY_MAX)  # NaN != NaN: each NaN starts a group
    flag = (mask & first).to(tl.int64)
    tl.store(gid_ptr + i, tl.cumsum(flag, 0), mask=mask)
    tl.store(bsum_ptr + pid, tl.sum(flag, 0))


@triton.jit
def _block_scan_kernel(data_ptr, bsum_ptr, n, BLOCK: tl.constexpr):
    # In-place inclusive scan of each block; the block's total goes to bsum.
    pid = tl.program_id(0)
    i = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    x = tl.load(data_ptr + i, mask=mask, other=0)
    tl.store(data_ptr + i, tl.cumsum(x, 0), mask=mask)
    tl.store(bsum_ptr + pid, tl.sum(x, 0))


@triton.jit
def _add_block_offsets_kernel(data_ptr, scanned_bsum_ptr, n, BLOCK: tl.constexpr):
    # Block b > 0 adds the inclusive total of blocks 0..b-1.
    pid = tl.program_id(0)
    if pid > 0:
        i = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        mask = i < n
        carry = tl.load(scanned_bsum_ptr + pid - 1)
        tl.store(data_ptr + i, tl.load(data_ptr + i, mask=mask) + carry, mask=mask)


@triton.jit
def _group_scatter_kernel(
    uval_ptr, inv_ptr, starts_ptr,  # outputs: unique values (raw bits), inverse (int64), group starts (int64)
    s_ptr, perm_ptr, gid_ptr,  # input elements (raw bits), their original positions (int64), group counters
    n, s_step,
    HAS_PERM: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    i = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = i < n
    g = tl.load(gid_ptr + i, mask=mask, other=1) - 1
    g_prev = tl.load(gid_ptr + i - 1, mask=mask & (i > 0), other=0) - 1
    first = mask & ((i == 0) | (g != g_prev))
    tl.store(uval_ptr + g, tl.load(s_ptr + i * s_step, mask=first), mask=first)
    tl.store(starts_ptr + g, i, mask=first)
    if HAS_PERM:
        dst = tl.load(perm_ptr + i, mask=mask, other=0)
    else:
        dst = i
    tl.store(inv_ptr + dst, g, mask=mask)


@triton.jit
def _counts_kernel(counts_ptr, starts_ptr, u, n, BLOCK: tl.constexpr):
    j = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = j < u
    start = tl.load(starts_ptr + j, mask=mask, other=0)
    end = tl.load(starts_ptr + j + 1, mask=mask & (j + 1 < u), other=n)
    tl.store(counts_ptr + j, end - start, mask=mask)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------

BLOCK = 8192 if INTERPRET else 1024
CONFIGS = [{"BLOCK": b, "num_warps": w} for b, w in ((512, 4), (1024, 4), (2048, 8))]


def inclusive_scan_(a) -> None:
    """In-place inclusive prefix sum of a contiguous 1-D int64 DeviceArray."""
    n = a.numel
    n_blocks = cdiv(n, BLOCK)
    bsum = rt.empty((n_blocks,), np.int64, a.device)
    launch(_block_scan_kernel, (n_blocks,), a, bsum, n, BLOCK=BLOCK, num_warps=4)
    if n_blocks > 1:
        inclusive_scan_(bsum)
        launch(_add_block_offsets_kernel, (n_blocks,), a, bsum, n, BLOCK=BLOCK, num_warps=4)


def _read_int64(a, index: int) -> int:
    host = np.empty(1, np.int64)
    rt.copy_device_to_host(host, a.storage, (a.offset + index) * 8)
    return int(host[0])


def unique(x, consecutive: bool = False):
    """Groups of equal elements of the 1-D DeviceArray ``x`` (any stride): returns DeviceArrays
    ``(values, inverse, counts)``; sorted groups, or runs in order with ``consecutive``."""
    n = x.numel
    dev = x.device
    if n == 0:
        return (rt.empty((0,), x.dtype, dev), rt.empty((0,), np.int64, dev), rt.empty((0,), np.int64, dev))
    if consecutive:
        s, perm = x, None
    else:
        s = rt.empty((n,), x.dtype, dev)
        perm = rt.empty((n,), np.int64, dev)
        sort_select(s, perm, x, 0, False)
    sb = bits_view(s)
    n_blocks = cdiv(n, BLOCK)
    gid = rt.empty((n,), np.int64, dev)
    bsum = rt.empty((n_blocks,), np.int64, dev)
    launch(_group_flags_kernel, (n_blocks,), gid, bsum, sb, n, sb.strides[0], BLOCK=BLOCK, num_warps=4,
           **key_params(x.dtype))
    if n_blocks > 1:
        inclusive_scan_(bsum)
        launch(_add_block_offsets_kernel, (n_blocks,), gid, bsum, n, BLOCK=BLOCK, num_warps=4)
    u = _read_int64(gid, n - 1)  # the number of groups (a host sync, as in PyTorch)
    values = rt.empty((u,), x.dtype, dev)
    inverse = rt.empty((n,), np.int64, dev)
    starts = rt.empty((u,), np.int64, dev)
    counts = rt.empty((u,), np.int64, dev)
    launch(_group_scatter_kernel, (n_blocks,), bits_view(values), inverse, starts, sb,
           perm if perm is not None else gid, gid, n, sb.strides[0], HAS_PERM=perm is not None, BLOCK=BLOCK,
           num_warps=4)
    launch(_counts_kernel, (cdiv(u, BLOCK),), counts, starts, u, n, BLOCK=BLOCK, num_warps=4)
    return values, inverse, counts


def unique_consecutive(x):
    return unique(x, consecutive=True)


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def unique_twin(x: np.ndarray, consecutive: bool = False):
    x = x.reshape(-1)
    n = x.size
    if n == 0:
        return x.copy(), np.zeros(0, np.int64), np.zeros(0, np.int64)
    key = sort_keys_twin(x)
    perm = np.arange(n) if consecutive else np.argsort(key, kind="stable")
    s, ks = x[perm], key[perm]
    first = np.ones(n, bool)
    first[1:] = ks[1:] != ks[:-1]
    if x.dtype.kind == "f" or x.dtype.name == "bfloat16":
        first |= np.isnan(s.astype(np.float64))
    gid = np.cumsum(first) - 1
    inverse = np.empty(n, np.int64)
    inverse[perm] = gid
    starts = np.flatnonzero(first)
    counts = np.diff(np.append(starts, n)).astype(np.int64)
    return s[first].copy(), inverse, counts


def unique_consecutive_twin(x: np.ndarray):
    return unique_twin(x, consecutive=True)
