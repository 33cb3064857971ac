"""flip and roll: every output element comes from one input element at a permuted position.

flip. Reversing dim ``d`` is reading the input through a view whose stride on ``d`` is negated
and whose start is the last element along ``d``. tensorlab's views never have negative strides,
but a DeviceArray handed to a kernel may: the strided copy kernel computes ``index * stride``
in signed integers and adds it to the pointer, so it reads the reversed view at the same memory
traffic as a plain copy, with no kernel of its own. (``collapse_dims`` merges negated dims that
are still contiguous with each other, so flipping every dim of a contiguous tensor is a single
1-D reversed loop.)

roll. Output element ``i`` along a rolled dim of size ``n`` comes from ``(i - shift) mod n``; a
modulo per dim does not fit the copy kernel's offset arithmetic, so roll has its own kernel: it
splits each linear index into a multi-index (innermost dim first), wraps the rolled
coordinates, and reads the input through its strides. The host merges a rolled dim with the
unrolled dims inside it when their strides allow (rolling rows of a contiguous matrix by ``s``
is rolling its flat index by ``s * cols``), so the common cases are 1-D loops. ``dims=None``
rolls the flattened tensor: the source's *linear* index is wrapped, then split through the
source's strides, so a non-contiguous input needs no copy.

Layout of this file: kernels, launchers, numpy twins.
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..copy import strided_copy, strided_copy_twin
from ..launch import INTERPRET, MAX_DIMS, cdiv, launch, needs_int64
from ..strided import offsets, strided_layout

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _wrap(i, shift, size):
    """(i - shift) mod size for 0 <= i < size and 0 <= shift < size: one compare, no division."""
    j = i - shift
    return tl.where(j < 0, j + size, j)


@triton.jit
def _roll_kernel(
    dst_ptr, src_ptr,  # pointers (advanced to this launch's first element)
    n,  # number of elements
    size0, size1, size2, size3, size4, size5,  # sizes, right-aligned: dim 5 is innermost
    sh0, sh1, sh2, sh3, sh4, sh5,  # shifts per dim, already reduced to [0, size)
    ss0, ss1, ss2, ss3, ss4, ss5,  # source strides (elements)
    ds0, ds1, ds2, ds3, ds4, ds5,  # destination strides (elements)
    NDIM: tl.constexpr,  # how many of the six dims are real
    DST_CONTIGUOUS: tl.constexpr,  # destination offset is the linear index itself
    INT64: tl.constexpr,  # offsets need 64 bits
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        idx = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    else:
        idx = pid * BLOCK + tl.arange(0, BLOCK)
    mask = idx < n
    # Destination coordinates are the multi-index of idx; the source's are the same, wrapped
    # backwards by the shift on every rolled dim (shift 0 leaves a coordinate unchanged).
    rem = idx
    i = rem % size5
    rem = rem // size5
    src_off = _wrap(i, sh5, size5) * ss5
    dst_off = i * ds5
    if NDIM >= 2:
        i = rem % size4
        rem = rem // size4
        src_off += _wrap(i, sh4, size4) * ss4
        dst_off += i * ds4
    if NDIM >= 3:
        i = rem % size3
        rem = rem // size3
        src_off += _wrap(i, sh3, size3) * ss3
        dst_off += i * ds3
    if NDIM >= 4:
        i = rem % size2
        rem = rem // size2
        src_off += _wrap(i, sh2, size2) * ss2
        dst_off += i * ds2
    if NDIM >= 5:
        i = rem % size1
        rem = rem // size1
        src_off += _wrap(i, sh1, size1) * ss1
        dst_off += i * ds1
    if NDIM >= 6:
        src_off += _wrap(rem, sh0, size0) * ss0
        dst_off += rem * ds0
    x = tl.load(src_ptr + src_off, mask=mask)
    if DST_CONTIGUOUS:
        tl.store(dst_ptr + idx, x, mask=mask)
    else:
        tl.store(dst_ptr + dst_off, x, mask=mask)


@triton.jit
def _roll_flat_kernel(
    dst_ptr, src_ptr,  # pointers
    n, shift,  # number of elements; shift of the flattened index, in [0, n)
    size1, size2, size3, size4, size5,  # sizes, right-aligned (shared by both operands)
    ss0, ss1, ss2, ss3, ss4, ss5,  # source strides
    ds0, ds1, ds2, ds3, ds4, ds5,  # destination strides
    NDIM: tl.constexpr,
    DST_CONTIGUOUS: tl.constexpr,
    INT64: tl.constexpr,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        idx = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    else:
        idx = pid * BLOCK + tl.arange(0, BLOCK)
    mask = idx < n
    # Wrap the flat index first, then find where that element lives in the source.
    j = _wrap(idx, shift, n)
    src_off = offsets(j, size1, size2, size3, size4, size5, ss0, ss1, ss2, ss3, ss4, ss5, NDIM)
    x = tl.load(src_ptr + src_off, mask=mask)
    if DST_CONTIGUOUS:
        tl.store(dst_ptr + idx, x, mask=mask)
    else:
        dst_off = offsets(idx, size1, size2, size3, size4, size5, ds0, ds1, ds2, ds3, ds4, ds5, NDIM)
        tl.store(dst_ptr + dst_off, x, mask=mask)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------

CONFIGS = [{"BLOCK": b, "num_warps": w} for b, w in ((512, 4), (1024, 4), (2048, 8))]


def pick_config(n: int) -> dict:
    if INTERPRET:  # one program at a time in the interpreter: few, big blocks
        return {"BLOCK": 8192 if n > 4096 else 1024, "num_warps": 4}
    return {"BLOCK": 1024, "num_warps": 4} if n < (1 << 22) else {"BLOCK": 2048, "num_warps": 8}


def _flipped(x, dims):
    """``x`` read with ``dims`` reversed: negated strides, start at the last element of each."""
    strides, offset = list(x.strides), x.offset
    for d in dims:
        if x.shape[d] > 1:
            offset += (x.shape[d] - 1) * strides[d]
            strides[d] = -strides[d]
    return x.view(x.shape, tuple(strides), offset)


def flip(out, x, dims) -> None:
    """``out`` = ``x`` reversed along each dim in ``dims`` (distinct, non-negative)."""
    if len(set(dims)) != len(dims) or any(not 0 <= d < max(len(x.shape), 1) for d in dims):
        raise ValueError(f"flip: dims must be distinct dims of a {len(x.shape)}-d array, got {dims}")
    strided_copy(out, _flipped(x, [d for d in dims if d < len(x.shape)]))


def _roll_dims(shape, shifts, src_strides, dst_strides):
    """Per-dim (size, shift, src stride, dst stride), size-1 dims dropped, mergeable dims merged."""
    merged = []
    for n, sh, ss, ds in zip(shape, shifts, src_strides, dst_strides):
        if n == 1:
            continue
        sh %= n
        if merged and sh == 0:
            pn, psh, pss, pds = merged[-1]
            if pss == ss * n and pds == ds * n:  # the outer dim continues into this one in both arrays
                merged[-1] = (pn * n, psh * n, ss, ds)
                continue
        merged.append((n, sh, ss, ds))
    return merged or [(1, 0, 0, 0)]


def roll(out, x, shifts, dims) -> None:
    """``out`` = ``x`` rolled by ``shifts[k]`` along ``dims[k]``; ``dims=None``: the flattened
    tensor rolled by the single ``shifts[0]`` and reshaped back."""
    if tuple(out.shape) != tuple(x.shape):
        raise ValueError(f"roll: shapes differ: out {out.shape} vs x {x.shape}")
    if x.numel == 0:
        return
    int64 = needs_int64(out, x)
    if dims is None:
        _roll_flat(out, x, shifts[0], int64)
        return
    per_dim = [0] * len(x.shape)
    for s, d in zip(shifts, dims):
        per_dim[d] += s  # rolling one dim twice adds the shifts
    layout = _roll_dims(x.shape, per_dim, x.strides, out.strides)
    extra = max(len(layout) - MAX_DIMS, 0)
    lead, rest = layout[:extra], layout[extra:]
    pad = [(1, 0, 0, 0)] * (MAX_DIMS - len(rest)) + rest
    sizes, shs, sss, dss = (tuple(c) for c in zip(*pad))
    expected, dst_contiguous = 1, True
    for n, _, _, ds in reversed(rest):
        if n != 1 and ds != expected:
            dst_contiguous = False
        expected *= n
    numel = int(np.prod([r[0] for r in rest]))
    config = pick_config(numel)
    # More than six dims that cannot merge: one launch per index of the extra leading dims,
    # each starting at that index's (wrapped) source and destination offsets.
    for index in itertools.product(*(range(n) for n, _, _, _ in lead)):
        src_start = sum(((i - sh) % n) * ss for i, (n, sh, ss, _) in zip(index, lead))
        dst_start = sum(i * ds for i, (_, _, _, ds) in zip(index, lead))
        launch(
            _roll_kernel, (cdiv(numel, config["BLOCK"]),),
            out.view(out.shape, out.strides, out.offset + dst_start),
            x.view(x.shape, x.strides, x.offset + src_start),
            numel, *sizes, *shs, *sss, *dss,
            NDIM=len(rest), DST_CONTIGUOUS=dst_contiguous, INT64=int64, **config,
        )


def _roll_flat(out, x, shift: int, int64: bool) -> None:
    pieces = strided_layout(x.shape, out.strides, x.strides)
    if len(pieces) > 1:
        # More than six dims no stride pattern merges: the flat index cannot be split in one
        # launch. Gather into contiguous scratch first (rare; PyTorch always copies here).
        tmp = rt.empty(x.shape, x.dtype, x.device)
        strided_copy(tmp, x)
        x = tmp.view((x.numel,), (1,), 0)
        if not out.is_contiguous():
            raise NotImplementedError("roll(dims=None): a non-contiguous output with more than six unmergeable dims")
        out = out.view((x.numel,), (1,), out.offset)
        pieces = strided_layout(x.shape, out.strides, x.strides)
    p = pieces[0]
    config = pick_config(p.numel)
    launch(
        _roll_flat_kernel, (cdiv(p.numel, config["BLOCK"]),),
        out, x, p.numel, shift % p.numel, *p.sizes[1:], *p.strides[1], *p.strides[0],
        NDIM=p.ndim, DST_CONTIGUOUS=p.contiguous(0), INT64=int64, **config,
    )


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def flip_twin(out: np.ndarray, x: np.ndarray, dims) -> None:
    dims = tuple(d for d in dims if d < x.ndim)  # a 0-d tensor's dim 0 reverses nothing
    strided_copy_twin(out, np.flip(x, dims) if dims else x)


def roll_twin(out: np.ndarray, x: np.ndarray, shifts, dims) -> None:
    if x.size == 0:
        return
    if dims is None:
        strided_copy_twin(out, np.roll(x, shifts[0]))
    else:
        strided_copy_twin(out, np.roll(x, tuple(shifts), tuple(dims)))
