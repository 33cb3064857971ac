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
def dim_order(self: Tensor, *, ambiguity_check=False) -> tuple:
    """The dims from outermost to innermost in memory (largest stride first; ties keep dim order).

    ``ambiguity_check`` as PyTorch's: True raises when more than one order fits (equal strides or
    size-1 dims); a list of memory formats raises in that case unless exactly one of them fits."""
    from ._layout import memory_format

    if not isinstance(ambiguity_check, bool):
        if not isinstance(ambiguity_check, list):
            raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
        for fmt in ambiguity_check:
            if not isinstance(fmt, memory_format):
                raise TypeError("The ambiguity_check argument must be a bool or a list of memory formats.")
    if ambiguity_check is not False:
        strides = self.stride()
        several = any(a == b for a, b in zip(strides, strides[1:])) or 1 in self.shape
        formats = ambiguity_check if isinstance(ambiguity_check, list) else []
        if several and sum(self.is_contiguous(memory_format=f) for f in formats) != 1:
            raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one of the given "
                               "memory formats.")
    return tuple(sorted(range(self.ndim), key=lambda d: -self.stride(d)))


def typename(obj) -> str:
    """PyTorch's ``torch.typename``: a tensor's type name (``tensorlab.FloatTensor``); a class's or a
    function's own qualified name (``tensorlab.nn.parameter.Parameter``); else its class's."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        name = obj.__name__
    else:
        module, name = type(obj).__module__ or "", type(obj).__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"
