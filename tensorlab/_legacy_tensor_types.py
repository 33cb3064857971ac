"""PyTorch's legacy typed-tensor constructors, still common in older code: ``tl.FloatTensor(2, 3)``
(uninitialised), ``tl.LongTensor([1, 2])`` (from data), ``tl.cuda.FloatTensor(...)``, ``x.new(...)``
(x's dtype and device), ``isinstance(x, tl.FloatTensor)`` (a float32 cpu tensor) and
``x.type(tl.DoubleTensor)``. They make ordinary ``Tensor`` objects, as PyTorch's do."""

from __future__ import annotations

import numbers

import numpy as np

from . import _dtype as D
from ._device import as_device
from ._tensor import Size, Tensor, tensor_method


def _legacy_new(op: str, dtype: D.dtype, dev, args, device=None) -> Tensor:
    """PyTorch's ``new()`` rules: no argument, sizes (ints or a Size), a sequence or array of data,
    or a tensor of the same type (shared, not copied)."""
    from ._factories import empty, tensor

    if device is not None and as_device(device).type != dev.type:
        raise RuntimeError(f"{op}: legacy constructor expects device type: {dev.type} but device type: "
                           f"{as_device(device).type} was passed")
    if not args:
        return empty(0, dtype=dtype, device=dev)
    if len(args) == 1:
        a = args[0]
        if isinstance(a, Tensor):
            if a.dtype is not dtype or a.device.type != dev.type:
                raise TypeError(f"{op}: expected a {D.torch_name(dtype)} tensor on {dev.type}, got a "
                                f"{D.torch_name(a.dtype)} tensor on {a.device}")
            return a.detach()
        if isinstance(a, Size):
            return empty(tuple(a), dtype=dtype, device=dev)
        if isinstance(a, list | tuple | np.ndarray):
            return tensor(a, dtype=dtype, device=dev)
    if all(isinstance(a, numbers.Integral) and not isinstance(a, bool) for a in args):
        return empty(tuple(int(a) for a in args), dtype=dtype, device=dev)
    raise TypeError(f"{op}(): data must be a sequence (got {type(args[0]).__name__})")


class _TensorTypeMeta(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == cls.device_type

    def __repr__(cls) -> str:
        return f"<class '{cls.__qualname__}'>"


def _make(name: str, device_type: str) -> type:
    dtype = D.from_torch_name(name[:-len("Tensor")], name)

    def __new__(cls, *args, device=None):
        return _legacy_new(cls.__qualname__, cls.dtype, as_device(cls.device_type), args, device)

    prefix = "tensorlab.cuda." if device_type == "cuda" else "tensorlab."
    return _TensorTypeMeta(name, (), {"__new__": __new__, "dtype": dtype, "device_type": device_type,
                                      "__qualname__": prefix + name, "__module__": prefix.rstrip(".")})


NAMES = ["BoolTensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor", "LongTensor", "HalfTensor",
         "BFloat16Tensor", "FloatTensor", "DoubleTensor"]
CPU_TYPES = {n: _make(n, "cpu") for n in NAMES}
CUDA_TYPES = {n: _make(n, "cuda") for n in NAMES}


@tensor_method
def new(self: Tensor, *args, size=None, device=None) -> Tensor:
    """Legacy ``x.new(...)``: a tensor of x's dtype and device from sizes, data or nothing;
    ``size=`` (a sequence of ints) is the sizes' keyword form."""
    if size is not None:
        if args or isinstance(size, int) or not all(isinstance(n, int) for n in size):
            raise TypeError(f"new(): size= takes a sequence of ints and no other argument (got {size!r})")
        args = (Size(size),)
    return _legacy_new("new", self.dtype, self.device, args, device)


def set_default_tensor_type(t) -> None:
    """PyTorch's deprecated ``set_default_tensor_type(tl.DoubleTensor)`` (or its name): the default
    dtype, and the default device for a ``cuda.`` type; use set_default_dtype / set_default_device."""
    import warnings

    from ._device import set_default_device

    warnings.warn("tensorlab.set_default_tensor_type() is deprecated, as PyTorch's: use "
                  "tensorlab.set_default_dtype() and tensorlab.set_default_device() instead", UserWarning,
                  stacklevel=2)
    name = t if isinstance(t, str) else getattr(t, "__qualname__", None)
    if not isinstance(name, str) or not name.endswith("Tensor"):
        raise TypeError(f"set_default_tensor_type: invalid type {t!r}")
    dt = D.from_torch_name(name.rsplit(".", 1)[-1][:-len("Tensor")], "set_default_tensor_type")
    if not dt.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    D.set_default_dtype(dt)
    set_default_device("cuda" if name.startswith(("tensorlab.cuda.", "torch.cuda.")) else None)
