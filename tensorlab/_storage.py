"""Storage: the memory behind tensors, and the views that kernels and twins receive.

A :class:`Storage` is a flat block on one device: a 1-D numpy array on ``cpu``, an
:class:`~tensorlab_kernels.runtime.Allocation` from the caching allocator on ``cuda``. Tensors
are (storage, shape, strides, offset, dtype); views share the storage, and with it the version
counter that autograd uses to notice in-place changes of saved tensors.

A storage is a block of bytes: a tensor's dtype need not be the dtype of the cpu array it was
allocated as (``x.view(torch.int32)`` of a float32 tensor reads the same bytes as int32), so a
storage is measured in bytes (``nbytes``), never in elements of ``data``, and a tensor's offset
(in elements of the tensor's dtype) becomes a byte offset only with the tensor's own itemsize.
Read cpu memory through :func:`numpy_view` (or :func:`storage_bytes`), which reinterpret the
bytes when the dtypes differ, never by indexing ``data`` with a tensor's offset.
"""

from __future__ import annotations

import math

import numpy as np

from tensorlab_kernels import runtime as rt
from tensorlab_kernels.runtime.array import contiguous_strides as contiguous_strides  # tensorlab imports it from here

from ._device import CPU, device


class Storage:
    __slots__ = ("device", "data", "nbytes", "version", "owner", "resizable", "__weakref__")

    def __init__(self, dev: device, data, nbytes: int, owner=None):
        self.device = dev
        self.data = data  # cpu: 1-D numpy array (of any dtype: see the module docstring); cuda: runtime Allocation
        self.nbytes = nbytes
        self.version = 0
        self.owner = owner  # keeps foreign memory alive (pinned buffers, DLPack producers)
        # False once NumPy shares the memory (from_numpy, Tensor.numpy()): resize_ may not grow it then,
        # as PyTorch's (a grown tensor would silently stop sharing with the array)
        self.resizable = True

    def alias(self) -> Storage:
        """The same memory with a version counter of its own (``Tensor.data``): writes through it are
        seen by every tensor of this storage but do not bump their version, as PyTorch's ``.data``."""
        alias = Storage(self.device, self.data, self.nbytes, owner=self.owner)
        alias.resizable = self.resizable
        return alias

    def __reduce__(self):  # (pickled with the tensors over it: _tensor_copying)
        from ._tensor_copying import reduce_storage

        return reduce_storage(self)

    def data_ptr(self) -> int:
        if self.device.type == "cpu":
            return self.data.ctypes.data if self.data.size else 0
        return self.data.ptr


def new_storage(numel: int, np_dtype: np.dtype, dev: device) -> Storage:
    """Uninitialised storage for ``numel`` elements."""
    nbytes = numel * np_dtype.itemsize
    if nbytes >= 1 << 63:  # (PyTorch's int64 size check; numpy would raise its own ValueError)
        raise RuntimeError(f"Storage size calculation overflowed: {numel} elements of {np_dtype.itemsize} bytes")
    if dev.type == "cpu":
        return Storage(CPU, np.empty(numel, np_dtype), nbytes)
    return Storage(dev, rt.allocate(nbytes, dev.index), nbytes)


def cpu_storage_from_array(arr: np.ndarray) -> tuple[Storage, tuple, int]:
    """Share a numpy array's memory: (storage, element strides, element offset).

    The storage is a 1-D view starting at the array's lowest address; strides must be
    non-negative multiples of the itemsize (callers copy otherwise).
    """
    isz = arr.itemsize
    strides = tuple(s // isz for s in arr.strides)
    if arr.size == 0:
        return Storage(CPU, np.empty(0, arr.dtype), 0), strides, 0
    extent = 1 + sum((n - 1) * s for n, s in zip(arr.shape, strides))
    flat = np.lib.stride_tricks.as_strided(arr, shape=(extent,), strides=(isz,), writeable=arr.flags.writeable)
    return Storage(CPU, flat, extent * isz, owner=None), strides, 0


def storage_bytes(storage: Storage) -> np.ndarray:
    """A cpu storage's memory as a 1-D uint8 array (shares memory), whatever dtype ``data`` has."""
    buf = storage.data
    return buf if buf.dtype == np.uint8 else buf.view(np.uint8)


def numpy_view(storage: Storage, shape, strides, offset: int, np_dtype) -> np.ndarray:
    """A numpy array over cpu storage with the given geometry (shares memory): ``offset`` and
    ``strides`` in elements of ``np_dtype``, which may differ from the dtype of the storage's array
    (a ``view(dtype)`` tensor: its bytes are reinterpreted)."""
    isz = np_dtype.itemsize
    buf = storage.data
    if buf.dtype != np_dtype:
        buf = storage_bytes(storage)
    try:
        if math.prod(shape) == 0:
            return np.empty(shape, np_dtype)
        return np.ndarray(shape, np_dtype, buffer=buf, offset=offset * isz, strides=tuple(s * isz for s in strides))
    except ValueError:
        if len(shape) > 64:  # numpy's limit (and PyTorch's, for most of its kernels)
            raise RuntimeError(f"only tensors with up to 64 dims are supported by the cpu device (its numpy twins); "
                               f"this one has {len(shape)}") from None
        raise


def device_array(storage: Storage, shape, strides, offset: int, np_dtype) -> rt.DeviceArray:
    return rt.DeviceArray(storage.data, offset, shape, strides, np_dtype)
