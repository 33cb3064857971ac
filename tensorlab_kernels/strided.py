"""Reading and writing any strided view from a Triton kernel, shared by the generic kernels.

Host side, :func:`strided_layout` collapses the dims that are contiguous in every operand
(so contiguous data becomes 1-D and the kernel divides nothing), splits off leading dims when
more than six remain, and pads to six (size, stride) pairs. Device side, :func:`offsets`
turns a block of linear indices into element offsets for one operand; a kernel calls it once
per operand with that operand's strides (the shared divisions are computed once by the
compiler, they are the same values).
"""

from __future__ import annotations

import math

from ._triton import tl, triton
from .launch import MAX_DIMS, collapse_dims, pad_dims, split_leading
from .runtime.array import contiguous_layout


@triton.jit
def offsets(idx, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5, NDIM: tl.constexpr):
    """Element offsets of linear indices ``idx`` in a view of six right-aligned dims.

    Dim 5 is innermost; ``size0`` is never needed (the remaining quotient is the index there).
    """
    rem = idx
    i = rem % size5
    rem = rem // size5
    off = i * st5
    if NDIM >= 2:
        i = rem % size4
        rem = rem // size4
        off += i * st4
    if NDIM >= 3:
        i = rem % size3
        rem = rem // size3
        off += i * st3
    if NDIM >= 4:
        i = rem % size2
        rem = rem // size2
        off += i * st2
    if NDIM >= 5:
        i = rem % size1
        rem = rem // size1
        off += i * st1
    if NDIM >= 6:
        off += rem * st0
    return off


class Piece:
    """One launch's worth of a strided problem: ``sizes`` (6), per-operand ``strides`` (6 each)
    and per-operand extra element offsets, plus ``ndim`` real dims and ``numel``."""

    __slots__ = ("sizes", "strides", "offsets", "ndim", "numel")

    def __init__(self, sizes, strides, offsets, ndim):
        self.sizes, self.strides, self.offsets, self.ndim = sizes, strides, offsets, ndim
        self.numel = math.prod(sizes)

    def contiguous(self, operand: int) -> bool:
        """True when operand ``operand``'s offset equals the linear index."""
        real = self.sizes[MAX_DIMS - self.ndim:]
        strides = self.strides[operand][MAX_DIMS - self.ndim:]
        return contiguous_layout(real, strides)


def strided_layout(shape, *strides, memory_order: bool = False) -> list[Piece]:
    """Split a strided problem over ``shape`` with one stride list per operand into launches.

    ``memory_order``: visit the elements in the first operand's memory order rather than in
    row-major index order, for problems where every element is independent (elementwise ops,
    copies, fills): a transposed or permuted output is then written in order, and operands laid
    out as it collapse to one contiguous run (``x.t().exp()`` is a flat pass)."""
    if memory_order:
        shape, strides = _in_memory_order(tuple(shape), strides)
    cshape, cstrides = collapse_dims(tuple(shape), *[tuple(s) for s in strides])
    pieces = []
    for pshape, pstrides, poffsets in split_leading(cshape, cstrides):
        sizes, padded = pad_dims(pshape, pstrides)
        pieces.append(Piece(sizes, padded, poffsets, len(pshape)))
    return pieces


def _in_memory_order(shape: tuple, strides: tuple) -> tuple:
    """``shape`` and every stride list with the dims permuted so that the first list's strides
    (by size) decrease; ties keep their order. Unchanged when they already do (the usual case)."""
    first = strides[0]
    order = sorted(range(len(shape)), key=lambda d: -abs(first[d]))
    if order == list(range(len(shape))):
        return shape, strides
    return tuple(shape[d] for d in order), [tuple(st[d] for d in order) for st in strides]
