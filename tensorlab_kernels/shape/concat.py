"""cat and stack: each input is copied into its slab of the output by the strided copy kernel.

There is no kernel of its own here. The output's slab for input ``i`` is a strided view of the
output (same strides, storage offset advanced by the sizes of the inputs before it along
``dim``); ``strided_copy`` writes the input there through both stride lists, casting to the
output dtype in registers, which is how cat's type promotion costs nothing extra. One launch
per non-empty input, each reading and writing its elements once: the memory traffic of the
fastest possible cat. ``stack`` reuses it: the dispatcher hands the inputs as views with a
size-1 dim inserted at ``dim`` (no copy), so stacking is a cat along that dim.

Layout of this file: launcher, numpy twin (no kernel: ``copy._strided_copy_kernel`` does the work).
"""

from __future__ import annotations

import numpy as np

from ..copy import strided_copy, strided_copy_twin

# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def cat(out, inputs, dim: int) -> None:
    """``out`` = the ``inputs`` (DeviceArrays) laid end to end along ``dim``.

    Every input has ``out``'s shape except along ``dim``; the sizes there add up to ``out``'s.
    Inputs with no elements are skipped (they own no slab; this also covers PyTorch's legacy
    1-D ``(0,)`` inputs, which the op's meta has already removed).
    """
    _check(out, inputs, dim)
    start = 0
    for x in inputs:
        if x.numel == 0:
            continue
        slab = out.view(x.shape, out.strides, out.offset + start * out.strides[dim])
        strided_copy(slab, x)
        start += x.shape[dim]


def _check(out, inputs, dim: int) -> None:
    total = 0
    for i, x in enumerate(inputs):
        if x.numel == 0:
            continue
        if len(x.shape) != len(out.shape) or any(
                a != b for k, (a, b) in enumerate(zip(x.shape, out.shape)) if k != dim):
            raise ValueError(f"cat: input {i} has shape {tuple(x.shape)}, incompatible with output "
                             f"{tuple(out.shape)} along dim {dim}")
        total += x.shape[dim]
    if out.numel and total != out.shape[dim]:
        raise ValueError(f"cat: inputs add up to {total} along dim {dim}, output has {out.shape[dim]}")


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def cat_twin(out: np.ndarray, inputs, dim: int) -> None:
    _check(_Shape(out), [_Shape(x) for x in inputs], dim)
    start = 0
    for x in inputs:
        if x.size == 0:
            continue
        n = x.shape[dim]
        strided_copy_twin(out[(slice(None),) * dim + (slice(start, start + n),)], x)
        start += n


class _Shape:
    """The two attributes ``_check`` reads, for a numpy array."""

    __slots__ = ("shape", "numel")

    def __init__(self, a: np.ndarray):
        self.shape, self.numel = a.shape, a.size
