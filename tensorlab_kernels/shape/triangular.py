"""tril / triu (a masked copy) and diag_embed (a zero fill, then a copy onto a diagonal).

tril/triu. Output element (..., i, j) is the input's where ``j - i <= k`` (tril) or
``j - i >= k`` (triu), else 0. The kernel is the strided copy with a mask: row and column come
from the logical linear index (``j = idx % cols``, ``i = idx // cols % rows``), which collapsing
dims for the address arithmetic does not change; elements outside the triangle are never read
(the load is masked, ``other=0``). In place (``tril_``) the destination is the source with the
same geometry, which is safe element by element.

diag_embed. The output's diagonal (offset, dim1, dim2) is a strided view of it — the same
geometry ``diagonal`` computes — so the op is: zero the output (a memset when contiguous), then
one strided copy of the input onto that view.

Layout of this file: kernel, launchers, numpy twins.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from ..copy import strided_copy, strided_copy_twin
from ..fill import fill, fill_twin
from ..launch import INTERPRET, cdiv, launch, needs_int64
from ..strided import offsets, strided_layout

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _triangle_kernel(
    dst_ptr, src_ptr,  # pointers (advanced to this launch's first element)
    n,  # number of elements in this launch
    rows, cols,  # the last two (matrix) dims
    diagonal,  # k: which diagonal bounds the triangle (0 main, > 0 above, < 0 below)
    size1, size2, size3, size4, size5,  # sizes, right-aligned
    ss0, ss1, ss2, ss3, ss4, ss5,  # source strides
    ds0, ds1, ds2, ds3, ds4, ds5,  # destination strides
    NDIM: tl.constexpr,
    UPPER: tl.constexpr,  # triu (keep j - i >= k) rather than tril (keep j - i <= k)
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
    col = idx % cols
    row = (idx // cols) % rows
    if UPPER:
        keep = col - row >= diagonal
    else:
        keep = col - row <= diagonal
    src_off = offsets(idx, size1, size2, size3, size4, size5, ss0, ss1, ss2, ss3, ss4, ss5, NDIM)
    x = tl.load(src_ptr + src_off, mask=mask & keep, other=0)
    # out= may have another dtype: convert as the copy kernel does (through fp32 to half types).
    ty = dst_ptr.dtype.element_ty
    if (ty.is_fp16() or ty.is_bf16()) and not (x.dtype.is_fp16() or x.dtype.is_bf16()):
        x = x.to(tl.float32)
    y = x.to(ty)
    if DST_CONTIGUOUS:
        tl.store(dst_ptr + idx, y, mask=mask)
    else:
        dst_off = offsets(idx, size1, size2, size3, size4, size5, ds0, ds1, ds2, ds3, ds4, ds5, NDIM)
        tl.store(dst_ptr + dst_off, y, mask=mask)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------

CONFIGS = [{"BLOCK": b, "num_warps": w} for b, w in ((512, 4), (1024, 4), (2048, 8))]


def pick_config(n: int) -> dict:
    if INTERPRET:
        return {"BLOCK": 8192 if n > 4096 else 1024, "num_warps": 4}
    return {"BLOCK": 1024, "num_warps": 4} if n < (1 << 22) else {"BLOCK": 2048, "num_warps": 8}


def _check_triangle(out, x) -> None:
    if tuple(out.shape) != tuple(x.shape) or len(x.shape) < 2:
        raise ValueError(f"tril/triu: needs one shape of >= 2 dims, got out {tuple(out.shape)} and x {tuple(x.shape)}")


def triangle(out, x, diagonal: int, upper: bool) -> None:
    """``out`` = ``tril(x, diagonal)`` (or ``triu`` when ``upper``) over the last two dims."""
    _check_triangle(out, x)
    if x.numel == 0:
        return
    rows, cols = x.shape[-2], x.shape[-1]
    # |diagonal| beyond the matrix changes nothing; clamping keeps the argument an int32.
    diagonal = max(-rows, min(cols, diagonal))
    int64 = needs_int64(out, x)
    # Pieces come from splitting leading (batch) dims only, so each starts on a matrix boundary
    # and its linear index still gives row and column.
    for p in strided_layout(x.shape, out.strides, x.strides):
        config = pick_config(p.numel)
        launch(
            _triangle_kernel, (cdiv(p.numel, config["BLOCK"]),),
            out.view(out.shape, out.strides, out.offset + p.offsets[0]),
            x.view(x.shape, x.strides, x.offset + p.offsets[1]),
            p.numel, rows, cols, diagonal, *p.sizes[1:], *p.strides[1], *p.strides[0],
            NDIM=p.ndim, UPPER=upper, DST_CONTIGUOUS=p.contiguous(0), INT64=int64, **config,
        )


def diag_geometry(shape, strides, offset: int, diag_offset: int, dim1: int, dim2: int):
    """(shape, strides, offset) of the diagonal ``diag_offset`` of dims (dim1, dim2): the other
    dims in order, then the diagonal (as ``Tensor.diagonal``)."""
    if diag_offset >= 0:
        length = max(0, min(shape[dim1], shape[dim2] - diag_offset))
        start = diag_offset * strides[dim2] if length else 0
    else:
        length = max(0, min(shape[dim1] + diag_offset, shape[dim2]))
        start = -diag_offset * strides[dim1] if length else 0
    keep = [i for i in range(len(shape)) if i not in (dim1, dim2)]
    return (tuple(shape[i] for i in keep) + (length,),
            tuple(strides[i] for i in keep) + (strides[dim1] + strides[dim2],), offset + start)


def _embed_view(out, x, diag_offset: int, dim1: int, dim2: int):
    shape, strides, offset = diag_geometry(out.shape, out.strides, out.offset, diag_offset, dim1, dim2)
    if tuple(shape) != tuple(x.shape):
        raise ValueError(f"diag_embed: the diagonal of an output {tuple(out.shape)} has shape {shape}, "
                         f"the input {tuple(x.shape)}")
    return shape, strides, offset


def diag_embed(out, x, offset: int, dim1: int, dim2: int) -> None:
    """``out`` = zeros with ``out.diagonal(offset, dim1, dim2)`` = ``x`` (x's last dim is the diagonal)."""
    shape, strides, start = _embed_view(out, x, offset, dim1, dim2)
    fill(out, 0)
    strided_copy(out.view(shape, strides, start), x)


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def triangle_twin(out: np.ndarray, x: np.ndarray, diagonal: int, upper: bool) -> None:
    _check_triangle(out, x)
    rows, cols = x.shape[-2], x.shape[-1]
    j = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = j >= diagonal if upper else j <= diagonal
    strided_copy_twin(out, np.where(keep, x, np.zeros((), x.dtype)))


def diag_embed_twin(out: np.ndarray, x: np.ndarray, offset: int, dim1: int, dim2: int) -> None:
    fill_twin(out, 0)
    length = x.shape[-1]
    if x.size == 0:
        return
    # The two dims moved last (a writable view); fancy indexing picks the diagonal.
    o = np.moveaxis(out, (dim1, dim2), (-2, -1))
    if o.shape[:-2] + (min(o.shape[-2] - max(-offset, 0), o.shape[-1] - max(offset, 0)),) != x.shape:
        raise ValueError(f"diag_embed: the diagonal of an output {out.shape} does not have the input's shape {x.shape}")
    i = np.arange(length)
    o[..., i + max(-offset, 0), i + max(offset, 0)] = _cast(x, out.dtype)


def _cast(x: np.ndarray, dtype) -> np.ndarray:
    tmp = np.empty(x.shape, dtype)
    strided_copy_twin(tmp, x)
    return tmp
