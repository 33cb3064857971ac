"""Broadcasting: the shape rule, and reading a tensor at a broadcast shape without copying."""

from __future__ import annotations

import functools
import operator

from ._registry import Geometry


def broadcast_shapes(*shapes) -> tuple:
    """NumPy/PyTorch broadcasting of shapes; RuntimeError naming the sizes when they clash.

    Results are remembered per tuple of shapes (every broadcasting op asks; a program uses few)."""
    try:
        return _broadcast(shapes)
    except TypeError:  # a shape given as a list (unhashable): not remembered
        return _broadcast.__wrapped__(shapes)


def public_broadcast_shapes(*shapes):
    """``tensorlab.broadcast_shapes``: as :func:`broadcast_shapes`, an int standing for a 1-d shape
    and the result a ``Size``, as PyTorch's."""
    from ._tensor import Size

    def one(s) -> tuple:
        if isinstance(s, (tuple, list)):
            return tuple(s)
        if hasattr(s, "__index__"):  # an int (a NumPy integer too) stands for a 1-d shape
            return (operator.index(s),)
        raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")

    shapes = tuple(one(s) for s in shapes)
    if any(d < 0 for s in shapes for d in s):
        raise ValueError(f"broadcast_shapes: Attempting to broadcast a dimension with negative length! {shapes}")
    return Size(broadcast_shapes(*shapes))


@functools.lru_cache(maxsize=4096)
def _broadcast(shapes) -> tuple:
    ndim = max((len(s) for s in shapes), default=0)
    out = [1] * ndim
    for shape in shapes:
        shape = tuple(shape)
        for i, n in enumerate(shape):
            j = ndim - len(shape) + i
            if n < 0:
                raise RuntimeError(f"broadcast_shapes: Trying to create tensor with negative dimension {n}")
            if out[j] == 1:
                out[j] = n
            elif n != 1 and n != out[j]:
                raise RuntimeError(
                    f"The size of tensor a ({out[j]}) must match the size of tensor b ({n}) at non-singleton "
                    f"dimension {j}"
                )
    return tuple(out)


def broadcast_geometry(t, shape: tuple, op: str = "broadcast") -> Geometry:
    """``t`` read as ``shape`` (stride 0 on broadcast dims), as a Geometry for the dispatcher."""
    nd, sd = len(shape), t.ndim
    if sd > nd:
        raise RuntimeError(f"{op}: tensor of shape {list(t._shape)} cannot be broadcast to {list(shape)}")
    strides = [0] * (nd - sd)
    for i, (n, s) in enumerate(zip(t._shape, t._stride)):
        target = shape[nd - sd + i]
        if n == target:
            strides.append(s)
        elif n == 1:
            strides.append(0)
        else:
            raise RuntimeError(
                f"{op}: The size of tensor a ({target}) must match the size of tensor b ({n}) at non-singleton "
                f"dimension {nd - sd + i}"
            )
    return Geometry(t, shape, strides)
