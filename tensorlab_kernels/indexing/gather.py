"""Reads through an index: ``gather``, ``index_select``, ``take`` and advanced ``x[idx]``.

All four are one kernel. The output is walked in logical order; for each output element the
source offset is the sum of two parts: the strides of the source over the dims that are not
indexed (0 on the indexed dims), and the index value times the stride of the indexed dim.
The index tensor is read through its own strides over the same loop (stride 0 on the dims it
does not vary over), so a broadcast index or a column of ``nonzero``'s output costs no copy.

- ``gather(dim)``:        loop = index shape; the index varies everywhere.
- ``index_select(dim)``:  loop = output shape; the index varies along ``dim`` only.
- ``take``:               loop = index shape; the index is a position in the row-major
                          flattening of the source, decomposed in the kernel (``FLAT``).
- ``x[i0, i1, ...]``:     the canonical layout (``layout.AdvancedLayout``); with several index
                          tensors their offsets are first summed into one int64 offset tensor
                          (``_linear_offset_kernel``), which is then the index with stride 1.

Indices are validated on the host before launching (``tensorlab.ops.indexing``), so the kernel
trusts them; negatives are wrapped in the kernel where the op allows them (``WRAP``). Offsets
are int64 when ``launch.needs_int64`` says so; index values are always widened to int64.

Layout of this file: Triton kernels, launchers, numpy twins.
"""

from __future__ import annotations

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..launch import INTERPRET, MAX_DIMS, cdiv, collapse_dims, launch, needs_int64, pad_dims
from ..strided import offsets, strided_layout
from .layout import AdvancedLayout, broadcast_strides, contiguous_strides

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _gather_kernel(
    out_ptr, src_ptr, idx_ptr,
    n,  # elements in the loop (= output elements of this launch)
    size1, size2, size3, size4, size5,  # loop sizes, right-aligned (dim 5 innermost)
    ss0, ss1, ss2, ss3, ss4, ss5,  # source strides over the loop (0 on the indexed dims)
    is0, is1, is2, is3, is4, is5,  # index strides over the loop
    os0, os1, os2, os3, os4, os5,  # output strides over the loop
    dim_size, dim_stride,  # the indexed dim: its size (to wrap negatives) and source stride
    fsize1, fsize2, fsize3, fsize4, fsize5,  # FLAT: the source's own sizes ...
    fs0, fs1, fs2, fs3, fs4, fs5,  # ... and strides (take: the index is a flat position)
    NDIM: tl.constexpr, FNDIM: tl.constexpr,
    WRAP: tl.constexpr, FLAT: tl.constexpr, OUT_CONTIGUOUS: tl.constexpr, INT64: tl.constexpr,
    BLOCK: tl.constexpr,
):
    pid = tl.program_id(0)
    if INT64:
        lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    else:
        lin = pid * BLOCK + tl.arange(0, BLOCK)
    mask = lin < n
    i = tl.load(idx_ptr + offsets(lin, size1, size2, size3, size4, size5, is0, is1, is2, is3, is4, is5, NDIM),
                mask=mask, other=0).to(tl.int64)
    if WRAP:
        i = tl.where(i < 0, i + dim_size, i)
    if FLAT:
        delta = offsets(i, fsize1, fsize2, fsize3, fsize4, fsize5, fs0, fs1, fs2, fs3, fs4, fs5, FNDIM)
    else:
        delta = i * dim_stride
    src_off = offsets(lin, size1, size2, size3, size4, size5, ss0, ss1, ss2, ss3, ss4, ss5, NDIM) + delta
    x = tl.load(src_ptr + src_off, mask=mask)
    if OUT_CONTIGUOUS:
        tl.store(out_ptr + lin, x, mask=mask)
    else:
        out_off = offsets(lin, size1, size2, size3, size4, size5, os0, os1, os2, os3, os4, os5, NDIM)
        tl.store(out_ptr + out_off, x, mask=mask)


@triton.jit
def _linear_offset_kernel(
    off_ptr, idx_ptr,  # int64 offsets (contiguous over B), one index tensor read at B
    n,
    size1, size2, size3, size4, size5,
    is0, is1, is2, is3, is4, is5,  # index strides over B (0 where it broadcasts)
    dim_size, mult,  # wrap negatives by dim_size; contribution is index * mult
    NDIM: tl.constexpr, ACCUMULATE: tl.constexpr, BLOCK: tl.constexpr,
):
    # off[b] (+)= wrap(idx[b]) * mult: with one launch per index tensor, the sum of the
    # indexed dims' offsets, so the gather then needs a single index.
    pid = tl.program_id(0)
    lin = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    mask = lin < n
    i = tl.load(idx_ptr + offsets(lin, size1, size2, size3, size4, size5, is0, is1, is2, is3, is4, is5, NDIM),
                mask=mask, other=0).to(tl.int64)
    i = tl.where(i < 0, i + dim_size, i)
    v = i * mult
    if ACCUMULATE:
        v += tl.load(off_ptr + lin, mask=mask, other=0)
    tl.store(off_ptr + lin, v, mask=mask)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------

CONFIGS = [{"BLOCK": b, "num_warps": w} for b, w in ((512, 4), (1024, 4), (2048, 8))]


def pick_config(n: int) -> dict:
    if INTERPRET:
        return {"BLOCK": 8192 if n > 4096 else 1024, "num_warps": 4}
    return {"BLOCK": 1024, "num_warps": 4}


def gather_strided(out, src, idx, loop_shape, src_strides, idx_strides, dim_size: int, dim_stride: int,
                   wrap: bool, flat=None) -> None:
    """The general read: ``out[l] = src[src_strides . l + f(idx[idx_strides . l])]`` over ``loop_shape``,
    with ``f(i) = wrap(i) * dim_stride``, or with ``flat = (sizes, strides)`` the flat position ``i``
    of a source of that geometry."""
    loop_shape = tuple(loop_shape)
    if any(s == 0 for s in loop_shape):
        return
    if tuple(out.shape) != loop_shape:
        raise ValueError(f"gather_strided: output shape {out.shape} != loop shape {loop_shape}")
    fsizes, fstrides, fndim = (1,) * MAX_DIMS, ((0,) * MAX_DIMS,), 1
    if flat is not None:
        cshape, cstrides = collapse_dims(tuple(flat[0]), tuple(flat[1]))
        fsizes, fstrides = pad_dims(cshape, cstrides)
        fndim = len(cshape)
    int64 = needs_int64(out, src, idx)
    for p in strided_layout(loop_shape, out.strides, tuple(src_strides), tuple(idx_strides)):
        config = pick_config(p.numel)
        launch(
            _gather_kernel, (cdiv(p.numel, config["BLOCK"]),),
            out.view(out.shape, out.strides, out.offset + p.offsets[0]),
            src.view(src.shape, src.strides, src.offset + p.offsets[1]),
            idx.view(idx.shape, idx.strides, idx.offset + p.offsets[2]),
            p.numel, *p.sizes[1:], *p.strides[1], *p.strides[2], *p.strides[0], dim_size, dim_stride,
            *fsizes[1:], *fstrides[0], NDIM=p.ndim, FNDIM=fndim, WRAP=wrap, FLAT=flat is not None,
            OUT_CONTIGUOUS=p.contiguous(0), INT64=int64, **config,
        )


def gather(out, src, index, dim: int) -> None:
    """``out[i][j][k] = src[index[i][j][k]][j][k]`` (for ``dim == 0``); indices in range (an empty
    index, of any rank, launches nothing: gather_strided returns on an empty loop)."""
    if src.ndim == 0:
        gather_strided(out, src, index, index.shape, (0,) * index.ndim, index.strides, 1, 0, False)
        return
    src_strides = list(src.strides)
    dim_stride, src_strides[dim] = src_strides[dim], 0
    gather_strided(out, src, index, index.shape, src_strides, index.strides, src.shape[dim], dim_stride, False)


def index_select(out, src, index, dim: int) -> None:
    """``out`` = ``src`` with ``dim`` replaced by ``src``'s slices at ``index`` (0-d or 1-d)."""
    if src.ndim == 0:
        gather_strided(out, src, index, out.shape, (), (), 1, 0, False)
        return
    src_strides = list(src.strides)
    dim_stride, src_strides[dim] = src_strides[dim], 0
    idx_strides = [0] * src.ndim
    idx_strides[dim] = index.strides[0] if index.ndim else 0
    gather_strided(out, src, index, out.shape, src_strides, idx_strides, src.shape[dim], dim_stride, False)


def take(out, src, index) -> None:
    """``out = src.flatten()[index]`` (negative positions wrap), reading ``src`` through its strides."""
    cshape, cstrides = collapse_dims(tuple(src.shape), tuple(src.strides))
    zeros = (0,) * index.ndim
    if len(cshape) == 1:
        gather_strided(out, src, index, index.shape, zeros, index.strides, src.numel, cstrides[0][0], True)
        return
    if len(cshape) > MAX_DIMS:  # rare: more non-mergeable dims than the kernel decomposes
        from ..copy import strided_copy

        dense = rt.empty(src.shape, src.dtype, src.device)
        strided_copy(dense, src)
        take(out, dense, index)
        return
    gather_strided(out, src, index, index.shape, zeros, index.strides, src.numel, 0, True,
                   flat=(src.shape, src.strides))


def linear_offsets(off, indices, sizes, mults) -> None:
    """``off`` (contiguous int64, shape B) = sum over j of ``wrap(indices[j]) * mults[j]`` (indices broadcast to B)."""
    if off.numel == 0:
        return
    for j, (idx, size, mult) in enumerate(zip(indices, sizes, mults)):
        istrides = broadcast_strides(idx.shape, idx.strides, off.shape)
        for p in strided_layout(off.shape, off.strides, istrides):
            block = 8192 if INTERPRET else 1024
            launch(_linear_offset_kernel, (cdiv(p.numel, block),),
                   off.view(off.shape, off.strides, off.offset + p.offsets[0]),
                   idx.view(idx.shape, idx.strides, idx.offset + p.offsets[1]),
                   p.numel, *p.sizes[1:], *p.strides[1], size, mult, NDIM=p.ndim, ACCUMULATE=j > 0, BLOCK=block,
                   num_warps=4)


def flat_index(lay: AdvancedLayout, indices, arr):
    """The advanced index arrays of ``arr`` (``indices``: one entry per dim, see :func:`per_dim`) as one
    index over the broadcast index shape: ``(idx, its strides over lay.bshape, dim_size, dim_stride,
    wrap)``. One index array is used as it is (negative entries wrap against ``dim_size``, offsets are
    ``idx * dim_stride``); several become their summed element offsets (:func:`linear_offsets`)."""
    idxs = [indices[d] for d in lay.adv]
    if len(idxs) == 1:
        idx = idxs[0]
        d = lay.adv[0]
        return idx, broadcast_strides(idx.shape, idx.strides, lay.bshape), arr.shape[d], arr.strides[d], True
    idx = rt.empty(lay.bshape, np.int64, arr.device)
    linear_offsets(idx, idxs, [arr.shape[d] for d in lay.adv], [arr.strides[d] for d in lay.adv])
    return idx, contiguous_strides(lay.bshape), 1, 1, False


def per_dim(indices, dims, ndim: int) -> list:
    """The index arrays placed at their dims: a list with one entry (array or None) per dim."""
    out = [None] * ndim
    for d, i in zip(dims, indices):
        out[d] = i
    return out


def index(out, src, indices, dims) -> None:
    """Advanced indexing ``out = src[...]`` with the integer index arrays ``indices`` on the dims
    ``dims`` (full slices elsewhere), with PyTorch's placement of the broadcast index dims."""
    indices = per_dim(indices, dims, src.ndim)
    lay = AdvancedLayout(src.shape, src.strides, [None if i is None else i.shape for i in indices])
    if out.numel == 0:
        return
    idx, bstrides, dim_size, dim_stride, wrap = flat_index(lay, indices, src)
    gather_strided(out, src, idx, lay.result_shape, lay.loop_strides(), lay.index_loop_strides(bstrides),
                   dim_size, dim_stride, wrap)


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def gather_twin(out, src, index, dim: int) -> None:
    if out.size == 0:  # (an empty index of any rank: PyTorch checks nothing then)
        return
    if src.ndim == 0:
        out[...] = src
        return
    if index.ndim == 0:  # a 0-d index counts as 1-d (PyTorch)
        out[...] = src.reshape(-1)[int(index)]
        return
    region = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
    out[...] = np.take_along_axis(src[region], index.astype(np.int64), axis=dim)


def index_select_twin(out, src, index, dim: int) -> None:
    if src.ndim == 0:
        out[...] = src
        return
    out[...] = np.take(src, index.reshape(-1).astype(np.int64), axis=dim)


def take_twin(out, src, index) -> None:
    out[...] = src.reshape(-1)[index.astype(np.int64)]


def index_twin(out, src, indices, dims) -> None:
    # NumPy's rule for arrays and full slices is PyTorch's (ints are applied before, as views).
    indices = per_dim(indices, dims, src.ndim)
    out[...] = src[tuple(slice(None) if i is None else i.astype(np.int64) for i in indices)]
