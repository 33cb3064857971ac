"""``Tensor.resize_`` / ``resize_as_``: PyTorch's in-place change of a tensor's shape.

The tensor becomes contiguous at the new shape from its storage offset (a shape it already has
changes nothing). When its storage is too small, PyTorch grows that storage, keeping its bytes;
here the tensor moves to a new storage holding the old bytes followed by uninitialised ones: the
other tensors of the old storage keep it (tensorlab's views cache their arrays), which differs from
PyTorch only where a view of the old storage is used after the growth.
"""

from __future__ import annotations

import math

from ._determinism import filling_uninitialized_memory, uninitialized_fill_value
from ._dispatch import _resize_
from ._layout import format_strides
from ._tensor import Tensor, tensor_method
from ._views import shape_args


@tensor_method
def resize_(self: Tensor, *sizes, memory_format=None) -> Tensor:
    shape = shape_args(sizes, "resize_")
    if any(s < 0 for s in shape):
        raise RuntimeError(f"resize_: Trying to create tensor with negative dimension {min(shape)}: {list(shape)}")
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if shape == self._shape and memory_format is None:
        return self
    needed = (self._offset + math.prod(shape)) * self.dtype.itemsize
    if needed > self._storage.nbytes and not self._storage.resizable:
        raise RuntimeError("resize_: Trying to resize storage that is not resizable (its memory is shared with a "
                           f"NumPy array: {self._storage.nbytes} bytes, {needed} needed)")
    old_elements = self._storage.nbytes // self.dtype.itemsize
    _resize_(self, shape, format_strides("resize_", shape, memory_format), keep_contents=True)
    grown = self._storage.nbytes // self.dtype.itemsize - old_elements
    if grown > 0 and filling_uninitialized_memory():  # (PyTorch fills the storage's new elements)
        from ._factories import _raw_fill

        _raw_fill(self.as_strided((grown,), (1,), old_elements), uninitialized_fill_value(self.dtype))
    return self


@tensor_method
def resize_as_(self: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    if not isinstance(the_template, Tensor):
        raise TypeError(f"resize_as_(): argument 'the_template' must be Tensor, not {type(the_template).__name__}")
    return resize_(self, the_template.shape, memory_format=memory_format)
