"""Tensor methods that work on the host side of a tensor rather than through ops:
``untyped_storage()`` (the bytes under it), ``apply_``/``map_`` (Python callables over a cpu
tensor's elements), ``to_dense``, ``dim_order``, and ``tl.typename``."""

from __future__ import annotations

import numpy as np

from ._tensor import Tensor, tensor_method


class UntypedStorage:
    """``x.untyped_storage()``: the bytes under a tensor, as PyTorch's ``UntypedStorage`` (read-only
    description: ``data_ptr()``, ``nbytes()``, ``size()``, ``device``), enough for the usual checks of
    whether two tensors share memory (``a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()``)."""

    __slots__ = ("_storage",)

    def __init__(self, storage):
        self._storage = storage

    @property
    def device(self):
        return self._storage.device

    def data_ptr(self) -> int:
        return self._storage.data_ptr()

    def nbytes(self) -> int:
        return self._storage.nbytes

    size = nbytes

    def element_size(self) -> int:
        return 1

    def __len__(self) -> int:
        return self._storage.nbytes

    def __repr__(self) -> str:
        return f"tensorlab.UntypedStorage(nbytes={self._storage.nbytes}, device={self._storage.device})"


@tensor_method
def untyped_storage(self: Tensor) -> UntypedStorage:
    return UntypedStorage(self._storage)


# ----------------------------------------------------------------------------------------------
# host-side Python methods of cpu tensors, and small introspection helpers
# ----------------------------------------------------------------------------------------------


def _host_elementwise(op: str, self: Tensor, fn, other: Tensor | None = None) -> Tensor:
    if not self.is_cpu:
        raise TypeError(f"{op} is only implemented on CPU tensors")
    if self.requires_grad:
        raise RuntimeError(f"Can't call {op}() on Variable that requires grad. Use var.detach().{op}() instead.")
    arr = self._np_view()  # (a view: the writes land in the tensor, whatever its strides)
    cast = arr.dtype.type
    if other is None:
        for v in np.nditer(arr, op_flags=["readwrite"]):
            v[...] = cast(fn(v.item()))
    else:
        try:
            b = np.broadcast_to(other.detach()._host_array(), arr.shape)
        except ValueError:
            raise RuntimeError(f"{op}: the tensor of shape {list(other.shape)} cannot be broadcast to self's shape "
                               f"{list(self.shape)}") from None
        for v, w in np.nditer([arr, b], op_flags=[["readwrite"], ["readonly"]]):
            v[...] = cast(fn(v.item(), w.item()))
    self._bump_version()
    return self


@tensor_method
def apply_(self: Tensor, callable) -> Tensor:
    """``callable`` applied to each element in place (cpu tensors only; a Python loop: slow)."""
    return _host_elementwise("apply_", self, callable)


@tensor_method
def map_(self: Tensor, tensor: Tensor, callable) -> Tensor:
    """``callable(self_element, other_element)`` into each element (``tensor`` broadcasts; cpu only)."""
    return _host_elementwise("map_", self, callable, tensor)


@tensor_method
def to_dense(self: Tensor, dtype=None, *, masked_grad=None) -> Tensor:
    """A strided tensor is dense already: itself (or converted to ``dtype``)."""
    return self if dtype is None else self.to(dtype)


@tensor_method
def dim_order(self: Tensor) -> tuple:
    """The dims from outermost to innermost in memory (largest stride first; ties keep dim order)."""
    return tuple(sorted(range(self.ndim), key=lambda d: -self.stride(d)))


def typename(obj) -> str:
    """PyTorch's ``torch.typename``: a tensor's type name (``tensorlab.FloatTensor``), else the class's."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "")
    name = type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"
