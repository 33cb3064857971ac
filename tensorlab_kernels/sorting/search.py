"""``searchsorted`` (and ``bucketize``, which is searchsorted with the arguments swapped).

How it works. Each program takes ``BLOCK`` consecutive values (any strides), finds the row of
the sorted sequence each one searches (a 1-D sequence: row 0 for all; an N-D sequence: the
value's leading index), and runs a vectorised binary search: ``ceil(log2(n + 1))`` steps, each a
gather of the middle element (through ``sorter`` when given). Comparisons are on the same
integer sort keys as ``sort`` (``sort.sort_key``: -0.0 == +0.0), with PyTorch's rule for NaN:
its search goes right where ``!(middle >= value)`` (``right=False``) or ``!(middle > value)``
(``right=True``), and every comparison with a NaN is false, so a NaN middle element or a NaN
value always sends the search right. A NaN value therefore lands at the end of its row, and a
value searched in ``[1, 2, nan]`` lands after the NaN (3), as in PyTorch (numpy, which orders NaN
last, says 2). The binary search's path is PyTorch's too (middle ``(lo + hi) // 2``), so a NaN
inside a sequence sends each value where PyTorch's does. Both inputs arrive in one dtype (the op
promotes them first, as PyTorch does). Reads through ``sorter`` stay inside the row whatever it
holds; the op checks its range before launching.

``right=False`` gives the lower bound (first position whose element is >= the value),
``right=True`` the upper bound (first position whose element is > the value).
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from ..launch import INTERPRET, cdiv, launch, needs_int64
from ..strided import offsets, strided_layout
from .sort import bits_view, key_params, sort_key, sort_keys_twin

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _searchsorted_kernel(
    out_ptr, seq_ptr, val_ptr, sorter_ptr,  # int32/int64 output, sequence and values (raw bits), int64 sorter
    n_vals, m, n, steps,  # values, values per sequence row, sequence length, binary-search steps
    vsize1, vsize2, vsize3, vsize4, vsize5,  # values (and output) sizes, right-aligned
    vs0, vs1, vs2, vs3, vs4, vs5,  # values strides
    os0, os1, os2, os3, os4, os5,  # output strides
    ssize1, ssize2, ssize3, ssize4, ssize5,  # sequence row (leading dims) sizes
    ss0, ss1, ss2, ss3, ss4, ss5,  # sequence row strides
    rs0, rs1, rs2, rs3, rs4, rs5,  # sorter row strides
    seq_step, sorter_step,  # strides along the searched dim
    VNDIM: tl.constexpr, SNDIM: tl.constexpr,
    FLOAT_BITS: tl.constexpr, INF_BITS: tl.constexpr, MAG_MASK: tl.constexpr, KEY_MAX: tl.constexpr,
    KEY64: tl.constexpr,
    RIGHT: tl.constexpr, HAS_SORTER: tl.constexpr, INT64: tl.constexpr, BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n_vals
    v_off = offsets(lin, vsize1, vsize2, vsize3, vsize4, vsize5, vs0, vs1, vs2, vs3, vs4, vs5, VNDIM)
    key = sort_key(tl.load(val_ptr + v_off, mask=mask, other=0), FLOAT_BITS, INF_BITS, MAG_MASK, KEY_MAX, KEY64)
    row = lin // m
    s_row = offsets(row, ssize1, ssize2, ssize3, ssize4, ssize5, ss0, ss1, ss2, ss3, ss4, ss5, SNDIM)
    if HAS_SORTER:
        r_row = offsets(row, ssize1, ssize2, ssize3, ssize4, ssize5, rs0, rs1, rs2, rs3, rs4, rs5, SNDIM)
    lo = tl.zeros([BLOCK], dtype=tl.int64)
    hi = lo + n
    for _ in range(steps):
        active = mask & (lo < hi)
        mid = (lo + hi) // 2
        if HAS_SORTER:
            pos = tl.load(sorter_ptr + r_row + mid * sorter_step, mask=active, other=0)
            active = active & (pos >= 0) & (pos < n)  # never read outside the row, whatever the sorter holds
        else:
            pos = mid
        k = sort_key(tl.load(seq_ptr + s_row + pos * seq_step, mask=active, other=0),
                     FLOAT_BITS, INF_BITS, MAG_MASK, KEY_MAX, KEY64)
        if RIGHT:
            go_right = k <= key
        else:
            go_right = k < key
        if FLOAT_BITS > 0:  # a comparison with NaN is false, and PyTorch goes right on a false one
            go_right = go_right | (k == KEY_MAX) | (key == KEY_MAX)
        lo = tl.where(active & go_right, mid + 1, lo)
        hi = tl.where(active & ~go_right, mid, hi)
    o_off = offsets(lin, vsize1, vsize2, vsize3, vsize4, vsize5, os0, os1, os2, os3, os4, os5, VNDIM)
    tl.store(out_ptr + o_off, lo.to(out_ptr.dtype.element_ty), mask=mask)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------

CONFIGS = [{"BLOCK": b, "num_warps": w} for b, w in ((256, 4), (512, 4), (1024, 8))]


def pick_config(n_vals: int) -> dict:
    if INTERPRET:
        return {"BLOCK": 4096 if n_vals > 1024 else 1024, "num_warps": 4}
    return {"BLOCK": 512, "num_warps": 4}


def searchsorted(out, sorted_sequence, values, sorter=None, right: bool = False) -> None:
    """``out`` (values' shape) = insertion positions of ``values`` in each row of ``sorted_sequence``
    (1-D, or N-D whose leading dims equal the values' leading dims). Same dtype for both inputs."""
    if out.numel == 0:
        return
    seq, vals = bits_view(sorted_sequence), bits_view(values)
    if vals.ndim == 0:
        vals, out = vals.view((1,), (1,)), out.view((1,), (1,))
    n = seq.shape[-1]
    m = vals.shape[-1] if seq.ndim > 1 else vals.numel
    vpieces = strided_layout(vals.shape, vals.strides, out.strides)
    seq_rows = seq.shape[:-1] or (1,)
    sorter_strides = sorter.strides[:-1] if sorter is not None and sorter.ndim > 1 else (0,) * len(seq_rows)
    spieces = strided_layout(seq_rows, seq.strides[:-1] or (0,), sorter_strides)
    if len(vpieces) > 1 or len(spieces) > 1:
        raise NotImplementedError("searchsorted: tensors with more than 6 non-mergeable dims are not supported on cuda")
    vp, sp = vpieces[0], spieces[0]
    int64 = needs_int64(out, seq, vals, sorter)
    config = pick_config(out.numel)
    launch(_searchsorted_kernel, (cdiv(out.numel, config["BLOCK"]),), out, seq, vals,
           sorter if sorter is not None else out, out.numel, m, n, n.bit_length(),
           *vp.sizes[1:], *vp.strides[0], *vp.strides[1], *sp.sizes[1:], *sp.strides[0], *sp.strides[1],
           seq.strides[-1], sorter.strides[-1] if sorter is not None else 0,
           VNDIM=vp.ndim, SNDIM=sp.ndim, RIGHT=bool(right), HAS_SORTER=sorter is not None, INT64=int64,
           **key_params(sorted_sequence.dtype), **config)


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def searchsorted_twin(out: np.ndarray, sorted_sequence: np.ndarray, values: np.ndarray, sorter=None,
                      right: bool = False) -> None:
    floating = sorted_sequence.dtype.kind == "f" or sorted_sequence.dtype.name == "bfloat16"
    seq_keys = sort_keys_twin(sorted_sequence)
    if sorter is not None:
        seq_keys = np.take_along_axis(seq_keys, sorter, -1)
    val_keys = sort_keys_twin(values)
    n = seq_keys.shape[-1]
    if seq_keys.ndim <= 1:
        out[...] = _binary_search_twin(seq_keys.reshape(1, n), val_keys.reshape(1, -1), right, floating
                                       ).reshape(out.shape)
        return
    rows = int(np.prod(seq_keys.shape[:-1]))  # (explicit: reshape(-1, 0) fails for empty rows)
    res = _binary_search_twin(seq_keys.reshape(rows, n), val_keys.reshape(rows, val_keys.shape[-1]), right, floating)
    out[...] = res.reshape(out.shape)


def _binary_search_twin(seq_keys: np.ndarray, val_keys: np.ndarray, right: bool, floating: bool) -> np.ndarray:
    """The kernel's binary search (PyTorch's), all rows at once: ``val_keys[r]`` in ``seq_keys[r]``."""
    n = seq_keys.shape[-1]
    lo = np.zeros(val_keys.shape, np.int64)
    hi = np.full(val_keys.shape, n, np.int64)
    nan = np.int64(2**63 - 1)  # (sort_keys_twin's NaN)
    for _ in range(n.bit_length()):
        active = lo < hi
        mid = (lo + hi) // 2
        k = np.take_along_axis(seq_keys, np.minimum(mid, n - 1), -1)
        go_right = k <= val_keys if right else k < val_keys
        if floating:
            go_right |= (k == nan) | (val_keys == nan)
        lo = np.where(active & go_right, mid + 1, lo)
        hi = np.where(active & ~go_right, mid, hi)
    return lo
