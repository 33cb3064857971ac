"""DeviceArray: the strided view of device memory that kernel launchers receive.

Launchers never see a ``tensorlab.Tensor`` (the kernel layer does not import tensorlab); the
dispatcher hands them DeviceArrays, and numpy arrays to the twins. A DeviceArray is what
Triton needs from a pointer argument: ``data_ptr()`` and a ``dtype`` (a numpy dtype, whose
name Triton reads). For Triton's interpreter it also answers the torch-style calls the
interpreter makes on every pointer argument (``untyped_storage``, ``storage_offset``, ``size``,
``stride``, ``new_empty``, ``set_``, ``copy_``; DESIGN §3).

Shapes and strides are in elements, like ``torch.Tensor.stride()``.
"""

from __future__ import annotations

import functools
import math

import numpy as np


class DeviceArray:
    __slots__ = ("storage", "offset", "shape", "strides", "dtype", "_contiguous", "launch_key", "_ptr")

    def __init__(self, storage, offset: int, shape: tuple, strides: tuple, dtype):
        self.storage = storage  # an Allocation (or None for an empty placeholder)
        self.offset = offset
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.dtype = dtype = np.dtype(dtype)
        self._contiguous = None  # is_contiguous(), once asked (only set_ changes the geometry)
        self.launch_key = None  # what a launch specialises on, once asked (direct_launch)
        # the first element's address: every launch of this array passes it, and an allocation never moves
        self._ptr = 0 if storage is None else storage.ptr + offset * dtype.itemsize

    @classmethod
    def at_start(cls, storage, shape: tuple, strides: tuple, dtype: np.dtype, contiguous: bool) -> DeviceArray:
        """A new array at the start of ``storage`` (an op's new output) whose geometry is already a
        shape tuple, a strides tuple and a numpy dtype: the constructor without its conversions,
        for the dispatcher's per-op path."""
        a = object.__new__(cls)
        a.storage, a.offset, a.shape, a.strides, a.dtype = storage, 0, shape, strides, dtype
        a._contiguous = True if contiguous else None
        a.launch_key = None
        a._ptr = storage.ptr
        return a

    # -- what Triton needs ------------------------------------------------------------------
    def data_ptr(self) -> int:
        return self._ptr

    # -- conveniences for launchers ---------------------------------------------------------
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def device(self) -> int:
        return 0 if self.storage is None else self.storage.device

    def is_contiguous(self) -> bool:
        c = self._contiguous
        if c is None:
            c = self._contiguous = contiguous_layout(self.shape, self.strides)
        return c

    def max_offset(self) -> int:
        """Largest element offset (relative to ``offset``) that the view touches; -1 if empty."""
        if any(s == 0 for s in self.shape):
            return -1
        return sum((s - 1) * st for s, st in zip(self.shape, self.strides) if st > 0)

    def view(self, shape: tuple, strides: tuple, offset: int | None = None) -> DeviceArray:
        return DeviceArray(self.storage, self.offset if offset is None else offset, shape, strides, self.dtype)

    def shifted(self, offset: int) -> DeviceArray:
        """This view moved ``offset`` elements on (itself for 0: a launch piece at the start)."""
        return DeviceArray(self.storage, self.offset + offset, self.shape, self.strides, self.dtype) if offset else self

    def host_view(self) -> np.ndarray:
        """Interpreted device only: a numpy view of this array's (host) memory, for tests."""
        host = getattr(self.storage, "host", None)
        if host is None:
            raise RuntimeError("host_view() needs interpreted device memory")
        isz = self.dtype.itemsize
        return np.ndarray(self.shape, self.dtype, buffer=host, offset=self.offset * isz,
                          strides=[s * isz for s in self.strides])

    def __repr__(self):
        return (f"DeviceArray(ptr={self.data_ptr():#x}, shape={self.shape}, strides={self.strides}, "
                f"dtype={self.dtype}, offset={self.offset})")

    # -- Triton interpreter protocol ------------------------------------------------------
    def untyped_storage(self):
        storage = self.storage
        return None if storage is None else InterpretedStorage(storage.ptr)

    def storage_offset(self) -> int:
        return self.offset

    def size(self) -> tuple:
        return self.shape

    def stride(self) -> tuple:
        return self.strides

    def new_empty(self, *args, **kwargs) -> DeviceArray:
        return DeviceArray(None, 0, (0,), (1,), self.dtype)

    def set_(self, storage, offset, size, stride) -> DeviceArray:
        self.storage, self.offset, self.shape, self.strides = storage, offset, tuple(size), tuple(stride)
        self._contiguous = self.launch_key = None
        self._ptr = 0 if storage is None else storage.ptr + offset * self.dtype.itemsize
        return self

    def copy_(self, other) -> DeviceArray:
        return self  # interpreted device memory is the host memory the interpreter works on


class InterpretedStorage:
    """What ``untyped_storage()`` gives Triton's interpreter: an allocation's address and the storage
    calls the interpreter makes (``data_ptr()``, ``cpu()``, ``copy_``). Interpreted device memory
    already lives on the host, so ``cpu()`` is the storage itself and ``copy_`` between the same
    memory is nothing.

    Not the Allocation itself: the interpreter keeps the storages of a launch in recursive closures
    (a reference cycle), which would keep every launched allocation live until gc ran."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: int):
        self.ptr = ptr

    def data_ptr(self) -> int:
        return self.ptr

    def cpu(self) -> InterpretedStorage:
        return self

    def copy_(self, other) -> InterpretedStorage:
        if other.data_ptr() != self.ptr:
            raise RuntimeError("interpreted device storage is host memory; a copy between storages is unexpected")
        return self


def contiguous_layout(shape, strides) -> bool:
    """Whether ``strides`` lay ``shape`` out row-major without gaps (size-1 dims may have any
    stride; an empty layout counts as contiguous, as in PyTorch)."""
    if strides == contiguous_strides(shape) or 0 in shape:  # the usual answer, without the loop
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def contiguous_strides(shape) -> tuple:
    """Row-major element strides of ``shape`` (size-0/1 dims count as 1); cached per shape, as every
    new tensor asks and a program uses few distinct shapes."""
    return _contiguous_strides(shape if shape.__class__ is tuple else tuple(shape))


@functools.lru_cache(maxsize=4096)
def _contiguous_strides(shape: tuple) -> tuple:
    out, acc = [], 1
    for s in reversed(shape):
        out.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(out))
