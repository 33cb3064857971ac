"""DLPack export (``Tensor.__dlpack__``/``__dlpack_device__``), import (``from_dlpack``) and
``__cuda_array_interface__``: zero-copy exchange with numpy, CuPy, JAX, PyTorch...

The capsule holds a ``DLManagedTensor`` built with ctypes; its ``manager_ctx`` keys an entry in
:data:`_exports` that keeps the tensor's storage (and the shape/strides arrays) alive until the
consumer calls the deleter — or, for a capsule never consumed, until the capsule dies.
"""

from __future__ import annotations

import ctypes
import itertools
import threading

import numpy as np

from . import _dtype as D
from ._device import CPU, device
from ._storage import Storage
from ._tensor import Tensor

kDLCPU, kDLCUDA, kDLCUDAHost = 1, 2, 3
_CODES = {"i": 0, "u": 1, "f": 2, "bf": 4, "b": 6}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensor))
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]

class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    pass


_DELETER_V = ctypes.CFUNCTYPE(None, ctypes.POINTER(DLManagedTensorVersioned))
DLManagedTensorVersioned._fields_ = [("version", DLPackVersion), ("manager_ctx", ctypes.c_void_p),
                                     ("deleter", _DELETER_V), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]

_CAPSULE_NAME = b"dltensor"
_CAPSULE_NAME_V = b"dltensor_versioned"
_USED_NAME = b"used_dltensor"
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", ctypes.pythonapi))
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi))
_capsule_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))
_capsule_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", ctypes.pythonapi))
_capsule_get_pointer_obj = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi))

_exports: dict[int, tuple] = {}
_ids = itertools.count(1)
_lock = threading.Lock()


@_DELETER
def _deleter(managed_ptr):
    key = managed_ptr.contents.manager_ctx
    with _lock:
        _exports.pop(key, None)


_CAPSULE_DESTRUCTOR_T = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@_CAPSULE_DESTRUCTOR_T
def _capsule_destructor(capsule_ptr):
    # Only an unconsumed capsule still carries the name "dltensor"; then we release it ourselves.
    if _capsule_is_valid(capsule_ptr, _CAPSULE_NAME):
        ptr = _capsule_get_pointer(capsule_ptr, _CAPSULE_NAME)
        managed = ctypes.cast(ptr, ctypes.POINTER(DLManagedTensor))
        _deleter(managed)


_DESTRUCTOR_ADDR = ctypes.cast(_capsule_destructor, ctypes.c_void_p).value


@_DELETER_V
def _deleter_v(managed_ptr):
    key = managed_ptr.contents.manager_ctx
    with _lock:
        _exports.pop(key, None)


@_CAPSULE_DESTRUCTOR_T
def _capsule_destructor_v(capsule_ptr):
    if _capsule_is_valid(capsule_ptr, _CAPSULE_NAME_V):
        ptr = _capsule_get_pointer(capsule_ptr, _CAPSULE_NAME_V)
        _deleter_v(ctypes.cast(ptr, ctypes.POINTER(DLManagedTensorVersioned)))


_DESTRUCTOR_ADDR_V = ctypes.cast(_capsule_destructor_v, ctypes.c_void_p).value


def _dl_dtype(dtype: D.dtype) -> DLDataType:
    if dtype is D.bfloat16:
        return DLDataType(_CODES["bf"], 16, 1)
    if dtype is D.bool:
        return DLDataType(_CODES["b"], 8, 1)
    return DLDataType(_CODES[dtype.np.kind], dtype.itemsize * 8, 1)


def _dtype_from_dl(dt: DLDataType) -> D.dtype:
    if dt.lanes != 1:
        raise BufferError(f"from_dlpack: vector dtypes (lanes={dt.lanes}) are not supported")
    table = {(0, 8): D.int8, (0, 16): D.int16, (0, 32): D.int32, (0, 64): D.int64, (1, 8): D.uint8,
             (2, 16): D.float16, (2, 32): D.float32, (2, 64): D.float64, (4, 16): D.bfloat16, (6, 8): D.bool,
             (1, 1): D.bool}
    try:
        return table[(dt.code, dt.bits)]
    except KeyError:
        raise BufferError(f"from_dlpack: unsupported DLPack dtype code={dt.code} bits={dt.bits}") from None


def dlpack_device(t: Tensor) -> tuple[int, int]:
    if t.is_cpu:
        return (kDLCPU, 0)
    return (kDLCUDA, t.device.index)


def to_dlpack(t: Tensor, stream=None, versioned: bool = False):
    """A ``dltensor`` capsule viewing ``t``'s memory (``dltensor_versioned``, DLPack 1.0, when asked:
    it can say the memory is writable, which legacy consumers such as numpy 2 otherwise assume not)."""
    if t.requires_grad:
        raise RuntimeError("Can't export tensors that require gradient, use tensor.detach()")
    if t.is_cuda and stream is not None and stream != -1:
        from tensorlab_kernels import runtime as rt

        # The consumer will use its stream; make our pending work on t visible to it.
        rt.current_stream(t.device.index).synchronize()
    ndim = t.ndim
    shape = (ctypes.c_int64 * max(ndim, 1))(*t._shape)
    strides = (ctypes.c_int64 * max(ndim, 1))(*t._stride)
    managed = DLManagedTensorVersioned() if versioned else DLManagedTensor()
    if versioned:
        managed.version = DLPackVersion(1, 0)
        managed.flags = 0  # writable, not a copy
    managed.dl_tensor.data = t._storage.data_ptr() if t._storage.nbytes else None
    managed.dl_tensor.device = DLDevice(*dlpack_device(t))
    managed.dl_tensor.ndim = ndim
    managed.dl_tensor.dtype = _dl_dtype(t.dtype)
    managed.dl_tensor.shape = ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64))
    managed.dl_tensor.strides = ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64))
    managed.dl_tensor.byte_offset = t._offset * t.dtype.itemsize
    key = next(_ids)
    managed.manager_ctx = key
    managed.deleter = _deleter_v if versioned else _deleter
    with _lock:
        _exports[key] = (managed, shape, strides, t._storage)
    if versioned:
        return _capsule_new(ctypes.addressof(managed), _CAPSULE_NAME_V, _DESTRUCTOR_ADDR_V)
    return _capsule_new(ctypes.addressof(managed), _CAPSULE_NAME, _DESTRUCTOR_ADDR)


class _ForeignMemory:
    """Device memory owned by another library, kept alive until our tensors are gone."""

    def __init__(self, ptr: int, nbytes: int, dev_index: int, managed_ptr):
        self.ptr, self.nbytes, self.device, self._managed = ptr, nbytes, dev_index, managed_ptr
        self.host = None

    def data_ptr(self) -> int:
        return self.ptr

    def cpu(self):
        return self

    def copy_(self, other):
        return self

    def record_stream(self, stream) -> None:
        pass

    def __del__(self):
        m = self._managed
        if m:
            self._managed = None
            try:
                if m.contents.deleter:
                    m.contents.deleter(m)
            except Exception:
                pass


def from_dlpack(ext, *, device=None, copy: bool | None = None) -> Tensor:
    """A tensor sharing memory with ``ext`` (any object with ``__dlpack__``, or a capsule).
    ``device``: the tensor's device (a copy when it is not ``ext``'s; ``copy=False`` then raises);
    ``copy=True``: always a copy."""
    t = _from_dlpack(ext)
    if device is not None:
        from ._device import as_device

        dev = as_device(device)
        if dev != t.device:
            if copy is False:
                raise BufferError(f"from_dlpack: copy=False, but the data is on {t.device} and device={dev} asks "
                                  "for a copy")
            return t.to(dev)
    return t.clone() if copy else t


def _from_dlpack(ext) -> Tensor:
    if isinstance(ext, Tensor):
        return ext
    if hasattr(ext, "__dlpack_device__"):
        dev_type, dev_id = ext.__dlpack_device__()
        if dev_type in (kDLCPU, kDLCUDAHost):
            from ._factories import from_numpy

            return from_numpy(np.from_dlpack(ext))
        if dev_type != kDLCUDA:
            raise BufferError(f"from_dlpack: unsupported device type {dev_type}")
        from tensorlab_kernels import runtime as rt

        handle = rt.current_stream(dev_id).handle
        capsule = ext.__dlpack__(stream=1 if handle == 0 else handle)
    else:
        capsule = ext
    ptr = _capsule_get_pointer_obj(capsule, _CAPSULE_NAME)
    if not ptr:
        raise BufferError("from_dlpack: expected an unconsumed 'dltensor' capsule")
    managed = ctypes.cast(ptr, ctypes.POINTER(DLManagedTensor))
    dl = managed.contents.dl_tensor
    dtype = _dtype_from_dl(dl.dtype)
    ndim = dl.ndim
    shape = tuple(dl.shape[i] for i in range(ndim))
    if dl.strides:
        strides = tuple(dl.strides[i] for i in range(ndim))
    else:
        from ._storage import contiguous_strides

        strides = contiguous_strides(shape)
    if dl.byte_offset % dtype.itemsize:
        raise BufferError("from_dlpack: byte_offset is not a multiple of the element size")
    if any(s < 0 for s in strides):
        raise BufferError("from_dlpack: negative strides are not supported")
    _capsule_set_name(capsule, _USED_NAME)
    offset = dl.byte_offset // dtype.itemsize
    numel_extent = (offset + 1 + sum((n - 1) * s for n, s in zip(shape, strides))) if all(shape) else 0
    nbytes = numel_extent * dtype.itemsize
    if dl.device.device_type == kDLCUDA:
        mem = _ForeignMemory(dl.data or 0, nbytes, dl.device.device_id, managed)
        storage = Storage(device("cuda", dl.device.device_id), mem, nbytes, owner=mem)
        return Tensor._make(storage, shape, strides, offset, dtype)
    # cpu capsule passed directly
    buf = (ctypes.c_uint8 * max(nbytes, 1)).from_address(dl.data) if nbytes else None
    data = np.frombuffer(buf, dtype=dtype.np) if buf is not None else np.empty(0, dtype.np)
    mem = _ForeignMemory(dl.data or 0, nbytes, 0, managed)
    storage = Storage(CPU, data, nbytes, owner=mem)
    return Tensor._make(storage, shape, strides, offset, dtype)


def cuda_array_interface(t: Tensor) -> dict:
    if not t.is_cuda:
        raise AttributeError(
            f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {t.type()} If CUDA data is required use "
            "tensor.cuda() to copy tensor to device memory."
        )
    if t.requires_grad:
        raise RuntimeError("Can't get __cuda_array_interface__ on Variable that requires grad. Use var.detach()")
    typestr = {"bfloat16": "<V2"}.get(t.dtype.name, t.dtype.np.str)
    isz = t.dtype.itemsize
    return {
        "shape": tuple(t._shape),
        "typestr": typestr,
        "data": (t.data_ptr() if t.numel() else 0, False),
        "version": 3,
        "strides": None if t.is_contiguous() else tuple(s * isz for s in t._stride),
        "stream": None,
    }


def _tensor_dlpack(self: Tensor, *, stream=None, max_version=None, dl_device=None, copy=None):
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    if copy:
        return to_dlpack(self.clone(), stream, versioned)
    if dl_device is not None and tuple(dl_device) != dlpack_device(self):
        raise BufferError(f"__dlpack__: cannot export a {self.device} tensor to device {tuple(dl_device)}")
    return to_dlpack(self, stream, versioned)


Tensor.__dlpack__ = _tensor_dlpack
Tensor.__dlpack_device__ = dlpack_device
Tensor.__cuda_array_interface__ = property(cuda_array_interface)
