"""Strided copy with dtype conversion: any strided view into any other, one kernel.

This is the first kernel on the whole path; it powers ``contiguous``, ``clone``, ``.to(dtype)``,
``copy_`` into views, and device transfers of non-contiguous tensors.

How it works. Both arrays have the same logical shape (the source may be broadcast: stride 0).
The launcher first collapses dims that are contiguous in both arrays, so the common cases —
contiguous to contiguous, a transposed matrix, a slice of rows — become 1-D or 2-D loops. The
kernel gives each program ``BLOCK`` consecutive logical elements, turns each linear index into
a multi-index (innermost dim first, one division per dim), and reads and writes through the
two stride lists. Conversion happens in registers: ``.to(dst dtype)``; to ``bool`` it is
``x != 0`` as in PyTorch. Offsets are int64 when an index can pass 2**31 - 1.

Layout of this file (as in every kernel file): Triton kernel, launcher, numpy twin.
"""

from __future__ import annotations

import numpy as np

from ._triton import tl, triton
from .convert import cast_to, host_steps
from .launch import INTERPRET, cdiv, launch, needs_int64
from .strided import offsets, strided_layout

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _strided_copy_kernel(
    dst_ptr, src_ptr,  # pointers (already advanced to this launch's first element)
    n,  # number of logical elements
    size1, size2, size3, size4, size5,  # sizes, right-aligned: dim 5 is innermost
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
    src_off = offsets(idx, size1, size2, size3, size4, size5, ss0, ss1, ss2, ss3, ss4, ss5, NDIM)
    x = tl.load(src_ptr + src_off, mask=mask)
    y = cast_to(x, dst_ptr.dtype.element_ty)  # PyTorch's conversion (to bool: x != 0)
    if DST_CONTIGUOUS:
        tl.store(dst_ptr + idx, y, mask=mask)
    else:
        dst_off = offsets(idx, size1, size2, size3, size4, size5, ds0, ds1, ds2, ds3, ds4, ds5, NDIM)
        tl.store(dst_ptr + dst_off, y, mask=mask)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------

# The declared launch-configuration space (the autotuner searches it; the heuristic picks one).
CONFIGS = [{"BLOCK": b, "num_warps": w} for b, w in ((512, 4), (1024, 4), (2048, 8), (4096, 8))]


def pick_config(n: int) -> dict:
    if INTERPRET:  # one program per Python iteration: fewer, bigger blocks run faster
        return {"BLOCK": 8192 if n > 4096 else 1024, "num_warps": 4}
    return {"BLOCK": 1024, "num_warps": 4} if n < (1 << 22) else {"BLOCK": 2048, "num_warps": 8}


def strided_copy(dst, src) -> None:
    """Copy ``src`` into ``dst`` (DeviceArrays of one shape; ``src`` may broadcast), converting dtype."""
    if tuple(dst.shape) != tuple(src.shape):
        raise ValueError(f"strided_copy: shapes differ: dst {dst.shape} vs src {src.shape}")
    if dst.numel == 0:
        return
    int64 = needs_int64(dst, src)
    for p in strided_layout(dst.shape, dst.strides, src.strides, memory_order=True):
        config = pick_config(p.numel)
        launch(
            _strided_copy_kernel, (cdiv(p.numel, config["BLOCK"]),),
            dst.view(dst.shape, dst.strides, dst.offset + p.offsets[0]),
            src.view(src.shape, src.strides, src.offset + p.offsets[1]),
            p.numel, *p.sizes[1:], *p.strides[1], *p.strides[0],
            NDIM=p.ndim, DST_CONTIGUOUS=p.contiguous(0), INT64=int64, **config,
        )


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def strided_copy_twin(dst: np.ndarray, src: np.ndarray) -> None:
    """The reference: numpy's unsafe cast (float to bool is ``x != 0``; float to int truncates)."""
    if tuple(dst.shape) != tuple(src.shape):
        raise ValueError(f"strided_copy: shapes differ: dst {dst.shape} vs src {src.shape}")
    with np.errstate(invalid="ignore", over="ignore"):
        src = host_steps(src, dst.dtype)  # double/int -> float -> half, float -> int64 -> uint8: as the kernel
        np.copyto(dst, src, casting="unsafe")


# ----------------------------------------------------------------------------------------------
# as_strided_scatter: ``input`` with the strided region (size, stride, storage_offset) replaced
# by ``src``. Two strided copies; the backward of every non-trivial view op is built on it.
# ----------------------------------------------------------------------------------------------


def as_strided_scatter(out, inp, src, size, stride, storage_offset: int) -> None:
    """``out`` (contiguous, shape of ``inp``) = ``inp`` with ``out.as_strided(size, stride, storage_offset) = src``."""
    strided_copy(out, inp)
    strided_copy(out.view(tuple(size), tuple(stride), out.offset + storage_offset), src)


def as_strided_scatter_twin(out, inp, src, size, stride, storage_offset: int) -> None:
    strided_copy_twin(out, inp)
    flat = out.reshape(-1)
    isz = out.itemsize
    region = np.lib.stride_tricks.as_strided(flat[storage_offset:], shape=tuple(size),
                                             strides=tuple(s * isz for s in stride))
    strided_copy_twin(region, src)
