"""``copy.copy``, ``copy.deepcopy`` and ``pickle`` of tensors, with PyTorch's storage-level meaning.

A tensor is (storage, shape, strides, offset, dtype), and each protocol keeps all of it:

- ``copy.copy(t)``: a new leaf tensor over the same storage (writes through either are seen by
  both), with ``requires_grad`` and the Python attributes set on ``t``; no ``.grad`` (PyTorch's).
- ``copy.deepcopy``: each storage is copied once per deepcopy call (the ``memo``), so tensors that
  shared memory before (a tensor and its views, tied buffers) share the copy, with the same
  strides and offset; ``.grad`` (not a Parameter's, as PyTorch) and the attributes are
  deep-copied. Only leaves (PyTorch's rule).
- ``pickle``: a storage is pickled once per ``dumps`` (pickle's own memo of the :class:`Storage`
  object), as its contents read back from the device; loading makes the storage on the same
  device and the tensors over it with their geometry. A 0-d tensor stays 0-d. One departure: a tensor
  using less than half of a large storage (``BY_VALUE_BYTES``) is pickled by value, contiguous
  and without its storage (PyTorch would send the whole storage: a DataLoader worker sending one
  row of a dataset-sized tensor would pickle the dataset for every row).
"""

from __future__ import annotations

import copy as _copy

import numpy as np

from tensorlab_kernels import runtime as rt

from . import _dtype as D
from ._device import CPU, device
from ._storage import Storage, contiguous_strides, new_storage

# Pickle a view by value when its storage is at least this large and the view uses less than half of it.
BY_VALUE_BYTES = 1 << 16
_PRIVATE_ATTRS = ("_post_accumulate_grad_hooks",)  # hooks are not data: not copied or pickled


def _attributes(t) -> dict:
    d = t.__dict__
    return {k: v for k, v in d.items() if k not in _PRIVATE_ATTRS} if d else {}


def storage_on_host(storage: Storage) -> np.ndarray:
    """A storage's contents on the host: its own typed array on cpu, its bytes read back on cuda."""
    if storage.device.type == "cpu":
        return storage.data
    host = np.empty(storage.nbytes, np.uint8)
    rt.copy_device_to_host(host, storage.data, 0)
    return host


def reduce_storage(storage: Storage):
    """``Storage.__reduce__``: its contents on the host and its device. Pickle's memo sends a
    storage shared by several tensors once."""
    return _rebuild_storage, (storage_on_host(storage), str(storage.device))


def _rebuild_storage(arr: np.ndarray, dev: str) -> Storage:
    dev = device(dev)
    arr = np.ascontiguousarray(arr).reshape(-1)
    if not arr.flags.writeable:  # (protocol 5's out-of-band buffers may be read-only bytes: a tensor is writable)
        arr = arr.copy()
    if dev.type == "cpu":
        return Storage(CPU, arr, arr.nbytes)
    storage = new_storage(arr.nbytes, np.dtype(np.uint8), dev)
    rt.copy_host_to_device(storage.data, 0, arr.view(np.uint8))
    return storage


def _copy_storage(storage: Storage) -> Storage:
    """A new storage on the same device with the same contents."""
    if storage.device.type == "cpu":
        return Storage(CPU, storage.data.copy(), storage.nbytes)
    new = new_storage(storage.nbytes, np.dtype(np.uint8), storage.device)
    rt.copy_device_to_device(new.data, 0, storage.data, 0, storage.nbytes)
    return new


def reduce_tensor(t):
    """``Tensor.__reduce_ex__``: rebuilt by :func:`_rebuild_tensor` (see the module docstring)."""
    storage = t._storage
    shape, strides, offset = t._shape, t._stride, t._offset
    if storage.nbytes >= BY_VALUE_BYTES and 2 * t.numel() * t.dtype.itemsize < storage.nbytes:
        values = np.array(t._host_array(), order="C")  # (np.array keeps a 0-d array 0-d)
        if values.dtype != t.dtype.np:  # (never: the host array has the tensor's dtype)
            raise AssertionError(f"pickle: host array of {values.dtype} for a {t.dtype} tensor")
        storage = (values.reshape(-1), str(storage.device))  # a storage of its own, by value
        strides, offset = contiguous_strides(shape), 0
    cls = type(t)  # (a Parameter or Buffer comes back as one)
    return _rebuild_tensor, (storage, offset, shape, strides, t.dtype.name, t._requires_grad, _attributes(t) or None,
                             None if cls is _tensor_class() else cls)


def _tensor_class():
    from ._tensor import Tensor

    return Tensor


def _rebuild_tensor(storage, offset, shape, strides, dtype_name, requires_grad, attributes=None, cls=None):
    if not isinstance(storage, Storage):
        storage = _rebuild_storage(*storage)
    t = (cls or _tensor_class())._make(storage, tuple(shape), tuple(strides), offset, D._dtype_by_name(dtype_name))
    t._requires_grad = requires_grad
    if attributes:
        t.__dict__.update(attributes)
    return t


# ----------------------------------------------------------------------------------------------
# copy and deepcopy
# ----------------------------------------------------------------------------------------------


def shallow_copy(t):
    """``copy.copy(t)``: a leaf over the same storage (see the module docstring)."""
    c = t._make(t._storage, t._shape, t._stride, t._offset, t.dtype)
    c._requires_grad = t._requires_grad
    c.__dict__.update(_attributes(t))
    return c


def deep_copy(t, memo: dict, with_grad: bool = True):
    """``copy.deepcopy(t, memo)`` (of the same class; a Parameter's comes without ``.grad``, as PyTorch's)."""
    if not t.is_leaf:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                           "protocol at the moment")
    if id(t) in memo:
        return memo[id(t)]
    storage = memo.get(id(t._storage))
    if storage is None:
        storage = memo[id(t._storage)] = _copy_storage(t._storage)
        _copy._keep_alive(t._storage, memo)  # its id must stay its own while the memo lives
    new = t._make(storage, t._shape, t._stride, t._offset, t.dtype)
    new._requires_grad = t._requires_grad
    memo[id(t)] = new
    if with_grad and t._grad is not None:
        new._grad = deep_copy(t._grad, memo)
    attributes = _attributes(t)
    if attributes:
        new.__dict__.update(_copy.deepcopy(attributes, memo))
    return new


__all__: list = []
