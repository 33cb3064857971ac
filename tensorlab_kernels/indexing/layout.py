"""Host-side geometry of advanced indexing, shared by the launchers, the twins and ``tensorlab``.

PyTorch's rule (NumPy's, for tensors and full slices): the index tensors broadcast to one
shape ``B``. When the indexed dims are adjacent, ``B`` replaces them in place; when a full
slice separates them, ``B`` goes first and the other dims follow in order. Both cases become
one *canonical form* by permuting the source's dims (a free change of strides): the indexed
dims are moved to one run starting at ``a0`` (``a0`` = their first position when adjacent, 0
otherwise), so the result is always ``P + B + Q`` with ``P = pshape[:a0]`` and
``Q = pshape[a0 + k:]``.
"""

from __future__ import annotations

import math
import operator

from ..runtime.array import contiguous_strides as contiguous_strides  # the indexing kernels import it from here


class AdvancedLayout:
    """The canonical form of ``src[indices]`` (``indices``: per dim, an index shape or None)."""

    __slots__ = ("adv", "bshape", "order", "a0", "pshape", "pstrides", "result_shape")

    def __init__(self, shape, strides, index_shapes):
        shape, strides = tuple(shape), tuple(strides)
        self.adv = [d for d, s in enumerate(index_shapes) if s is not None]
        if not self.adv:
            raise ValueError("advanced indexing needs at least one index tensor")
        self.bshape = broadcast_index_shapes([index_shapes[d] for d in self.adv])
        adjacent = self.adv == list(range(self.adv[0], self.adv[-1] + 1))
        if adjacent:
            self.a0 = self.adv[0]
            self.order = list(range(len(shape)))
        else:
            self.a0 = 0
            self.order = self.adv + [d for d in range(len(shape)) if d not in self.adv]
        self.pshape = tuple(shape[d] for d in self.order)
        self.pstrides = tuple(strides[d] for d in self.order)
        k = len(self.adv)
        self.result_shape = self.pshape[:self.a0] + self.bshape + self.pshape[self.a0 + k:]

    @property
    def k(self) -> int:
        return len(self.adv)

    def loop_strides(self):
        """Source strides over the result's dims: P and Q strides, 0 on the B dims."""
        k = len(self.adv)
        return self.pstrides[:self.a0] + (0,) * len(self.bshape) + self.pstrides[self.a0 + k:]

    def index_loop_strides(self, bstrides):
        """An index tensor's strides (already broadcast to B) over the result's dims."""
        k = len(self.adv)
        return (0,) * self.a0 + tuple(bstrides) + (0,) * (len(self.pshape) - self.a0 - k)


def broadcast_index_shapes(shapes) -> tuple:
    ndim = max(len(s) for s in shapes)
    out = [1] * ndim
    for s in shapes:
        for i, n in enumerate(s):
            j = ndim - len(s) + i
            if out[j] == 1:
                out[j] = n
            elif n != 1 and n != out[j]:
                listed = ", ".join(str(list(x)) for x in shapes)
                raise IndexError(f"shape mismatch: indexing tensors could not be broadcast together with shapes "
                                 f"{listed}")
    return tuple(out)


def broadcast_strides(shape, strides, target) -> tuple:
    """Strides that read an array of ``shape``/``strides`` at the broadcast shape ``target``."""
    pad = len(target) - len(shape)
    out = [0] * pad
    for n, st, t in zip(shape, strides, target[pad:]):
        out.append(st if n == t else 0)
    return tuple(out)


def basic_view_geometry(shape, strides, offset, items):
    """Apply ints, slices (step >= 1) and None, one per dim in order (missing trailing dims are
    kept), to a geometry; returns (shape, strides, offset)."""
    shape, strides = list(shape), list(strides)
    out_shape, out_strides = [], []
    d = 0
    for it in items:
        if it is None:
            out_shape.append(1)
            out_strides.append(0)  # a size-1 dim: its stride is never used
        elif isinstance(it, slice):
            start, stop, step = it.indices(shape[d])
            n = max(0, -(-(stop - start) // step))
            if n:
                offset += start * strides[d]
            out_shape.append(n)
            out_strides.append(strides[d] * step)
            d += 1
        else:
            i = operator.index(it)
            if i < 0:
                i += shape[d]
            offset += i * strides[d]
            d += 1
    out_shape += shape[d:]
    out_strides += strides[d:]
    return tuple(out_shape), tuple(out_strides), offset


def apply_basic(arr, items):
    """``arr`` (numpy array or DeviceArray) viewed through the basic index ``items``."""
    if not items:
        return arr
    if hasattr(arr, "__array_interface__"):
        return arr[tuple(items)]
    shape, strides, offset = basic_view_geometry(arr.shape, arr.strides, arr.offset, items)
    return arr.view(shape, strides, offset)


def numel(shape) -> int:
    return math.prod(shape)
