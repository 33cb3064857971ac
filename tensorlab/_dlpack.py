"""DLPack export (``Tensor.__dlpack__``/``__dlpack_device__``), import (``from_dlpack``) and
``__cuda_array_interface__``: zero-copy exchange with numpy, CuPy, JAX, PyTorch...

An exported capsule holds a ``DLManagedTensor`` (``DLManagedTensorVersioned``, DLPack 1.0, when asked)
in one ``PyMem_Malloc`` block with its shape and strides. Its ``manager_ctx`` is an :class:`_Export`
that keeps the tensor's storage alive (an entry of :data:`_exports`) until the consumer calls the
deleter, or, for a capsule never consumed, until the capsule dies. The capsule destructor and the
deleter are numpy's C functions (borrowed from a capsule numpy exports, same layout): a consumer that
rejects a capsule drops it with its exception in flight, and no Python callback (ctypes) can run then
without losing that exception; numpy's C deleter only frees the block and drops ``manager_ctx``, whose
``__del__`` runs under Python's finalizer, which keeps the exception.

Imports read the ``DLTensor`` here (both capsule kinds, every dtype, bfloat16 included) and share the
producer's memory, calling its deleter when the last tensor (or numpy view) over it is gone.
"""

from __future__ import annotations

import ctypes
import enum
import itertools

import numpy as np

from . import _dtype as D
from ._device import CPU, device
from ._storage import Storage
from ._tensor import Tensor


class DLDeviceType(enum.IntEnum):
    """DLPack's device types (``torch.utils.dlpack.DLDeviceType``)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


kDLCPU, kDLCUDA, kDLCUDAHost = DLDeviceType.kDLCPU, DLDeviceType.kDLCUDA, DLDeviceType.kDLCUDAHost
_CODES = {"i": 0, "u": 1, "f": 2, "bf": 4, "b": 6}
_READ_ONLY, _IS_COPIED = 1, 2  # DLManagedTensorVersioned.flags


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
_USED_NAME_V = b"used_dltensor_versioned"
_api = ctypes.pythonapi
_capsule_new = ctypes.PYFUNCTYPE(ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p)(
    ("PyCapsule_New", _api))
_capsule_is_valid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_IsValid", _api))
_capsule_get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", _api))
_capsule_get_destructor = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object)(("PyCapsule_GetDestructor", _api))
_capsule_set_name = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(("PyCapsule_SetName", _api))
_mem_malloc = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t)(("PyMem_Malloc", _api))
_incref = ctypes.PYFUNCTYPE(None, ctypes.py_object)(("Py_IncRef", _api))

_exports: dict[int, Storage] = {}  # live exports (capsules and their consumers): key -> storage kept alive
_ids = itertools.count(1)


class _Export:
    """An export's ``manager_ctx``: the deleter drops the one reference to it, and its ``__del__`` (run
    by Python's finalizer, which keeps an exception in flight) ends its entry in :data:`_exports`."""

    __slots__ = ("key",)

    def __init__(self, storage: Storage):
        self.key = next(_ids)
        _exports[self.key] = storage

    def __del__(self):
        try:
            _exports.pop(self.key, None)
        except Exception:  # interpreter shutdown: the module may already be gone
            pass


def _numpy_release(versioned: bool):
    """numpy's (capsule destructor address, deleter) for a capsule kind, or None where this numpy does
    not export it (before 2.1: no DLPack 1.0) or lays it out otherwise than we rely on (manager_ctx:
    the object the deleter drops, in a block it frees with PyMem_Free)."""
    arr = np.empty(1)
    name = _CAPSULE_NAME_V if versioned else _CAPSULE_NAME
    try:
        cap = arr.__dlpack__(max_version=(1, 0)) if versioned else arr.__dlpack__()
    except TypeError:
        return None
    if not _capsule_is_valid(cap, name):
        return None
    struct = DLManagedTensorVersioned if versioned else DLManagedTensor
    managed = struct.from_address(_capsule_get_pointer(cap, name))
    if managed.manager_ctx != id(arr) or not managed.deleter:
        return None
    return _capsule_get_destructor(cap), (_DELETER_V if versioned else _DELETER)(
        ctypes.cast(managed.deleter, ctypes.c_void_p).value)


_RELEASE = {False: _numpy_release(False), True: _numpy_release(True)}


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


def dlpack_device(t: Tensor) -> tuple[DLDeviceType, int]:
    if t.is_cpu:
        return (kDLCPU, 0)
    return (kDLCUDA, t.device.index)


def to_dlpack(t: Tensor, stream=None, versioned: bool = False, *, read_only: bool = False, copied: bool = False):
    """A ``dltensor`` capsule viewing ``t``'s memory (``dltensor_versioned``, DLPack 1.0, when asked:
    it can say the memory is writable, which legacy consumers such as numpy 2 otherwise assume not).
    As PyTorch's ``to_dlpack``, a tensor that requires grad is exported too (``__dlpack__`` refuses)."""
    if not isinstance(t, Tensor):
        raise TypeError(f"to_dlpack(): argument 'tensor' must be Tensor, not {type(t).__name__}")
    if t.is_cuda and stream is not None and stream != -1:
        from tensorlab_kernels import runtime as rt

        # The consumer will use its stream; make our pending work on t visible to it.
        rt.current_stream(t.device.index).synchronize()
    if versioned and _RELEASE[True] is None:
        versioned = False  # numpy < 2.1 cannot release a versioned one; the spec lets a producer fall back
    if _RELEASE[versioned] is None:
        raise RuntimeError("DLPack export needs numpy >= 1.22 (its capsule deleter)")
    destructor, deleter = _RELEASE[versioned]
    struct = DLManagedTensorVersioned if versioned else DLManagedTensor
    ndim = t.ndim
    head = -(-ctypes.sizeof(struct) // 8) * 8
    size = head + 16 * ndim
    ptr = _mem_malloc(size)
    if not ptr:
        raise MemoryError("to_dlpack: PyMem_Malloc failed")
    ctypes.memset(ptr, 0, size)  # (byte_offset, flags... start at 0)
    managed = struct.from_address(ptr)
    dl = managed.dl_tensor
    if ndim:
        dims = (ctypes.c_int64 * (2 * ndim)).from_address(ptr + head)
        dims[:ndim], dims[ndim:] = t._shape, t._stride
        dl.shape = ctypes.cast(ptr + head, ctypes.POINTER(ctypes.c_int64))
        dl.strides = ctypes.cast(ptr + head + 8 * ndim, ctypes.POINTER(ctypes.c_int64))
    if versioned:
        managed.version = DLPackVersion(1, 0)
        managed.flags = (_READ_ONLY if read_only else 0) | (_IS_COPIED if copied else 0)
    dl.data = t._storage.data_ptr() if t._storage.nbytes else None
    dl.device = DLDevice(*dlpack_device(t))
    dl.ndim = ndim
    dl.dtype = _dl_dtype(t.dtype)
    dl.byte_offset = t._offset * t.dtype.itemsize
    ctx = _Export(t._storage)
    _incref(ctx)  # the deleter's reference
    managed.manager_ctx = id(ctx)
    managed.deleter = deleter
    return _capsule_new(ptr, _CAPSULE_NAME_V if versioned else _CAPSULE_NAME, destructor)


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


class _ForeignHostMemory(_ForeignMemory):
    """Host memory of another library: the base of the numpy arrays over it, so that a numpy view
    (``Tensor.numpy()``) keeps it alive too."""

    @property
    def __array_interface__(self) -> dict:
        return {"shape": (self.nbytes,), "typestr": "|u1", "data": (self.ptr, False), "version": 3}


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
    # A tensorlab tensor too goes through its __dlpack__, as in PyTorch: a new alias (storage offset 0)
    # that does not require grad, and BufferError for a tensor that does.
    if not hasattr(ext, "__dlpack__"):
        return _tensor_from_capsule(ext)
    dev_type, dev_id = ext.__dlpack_device__()
    kwargs = {}
    if dev_type == kDLCUDA:
        from tensorlab_kernels import runtime as rt

        handle = rt.current_stream(dev_id).handle
        kwargs["stream"] = 1 if handle == 0 else handle
    try:
        capsule = ext.__dlpack__(max_version=(1, 0), **kwargs)
    except TypeError:  # a producer older than DLPack 1.0 (PyTorch retries the same way)
        capsule = ext.__dlpack__(**kwargs)
    return _tensor_from_capsule(capsule)


def _tensor_from_capsule(capsule) -> Tensor:
    """Consume a ``dltensor`` or ``dltensor_versioned`` capsule (renamed ``used_...``): everything is
    checked first, so a rejected capsule stays unconsumed and its destructor frees it."""
    if _capsule_is_valid(capsule, _CAPSULE_NAME_V):
        managed = ctypes.cast(_capsule_get_pointer(capsule, _CAPSULE_NAME_V),
                              ctypes.POINTER(DLManagedTensorVersioned))
        version = managed.contents.version
        if version.major > 1:
            raise BufferError(f"from_dlpack: DLPack {version.major}.{version.minor} capsule; this reads 1.x")
        used = _USED_NAME_V  # (flags: READ_ONLY is not enforced, as PyTorch: the memory is shared writable)
    elif _capsule_is_valid(capsule, _CAPSULE_NAME):
        managed = ctypes.cast(_capsule_get_pointer(capsule, _CAPSULE_NAME), ctypes.POINTER(DLManagedTensor))
        used = _USED_NAME
    else:
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor capsules can be consumed "
                           "only once, so you might have already constructed a tensor from it once.")
    dl = managed.contents.dl_tensor
    dtype = _dtype_from_dl(dl.dtype)
    dev_type = dl.device.device_type
    if dev_type not in (kDLCPU, kDLCUDAHost, kDLCUDA):
        raise BufferError(f"from_dlpack: unsupported device type {dev_type}")
    ndim = dl.ndim
    shape = tuple(dl.shape[i] for i in range(ndim))
    if dl.strides:
        strides = tuple(dl.strides[i] for i in range(ndim))
    else:
        from ._storage import contiguous_strides

        strides = contiguous_strides(shape)
    if any(s < 0 for s in strides):  # (PyTorch's words: its size check fails on them)
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and strides={list(strides)}")
    _capsule_set_name(capsule, used)
    # The storage starts at the view (data + byte_offset), as PyTorch's: storage_offset() is 0.
    ptr = (dl.data or 0) + dl.byte_offset
    extent = (1 + sum((n - 1) * s for n, s in zip(shape, strides))) if all(shape) else 0
    nbytes = extent * dtype.itemsize
    if dev_type == kDLCUDA:
        mem = _ForeignMemory(ptr, nbytes, dl.device.device_id, managed)
        storage = Storage(device("cuda", dl.device.device_id), mem, nbytes, owner=mem)
        return Tensor._make(storage, shape, strides, 0, dtype)
    # Read here, not by np.from_dlpack: numpy has no bfloat16, nor writable legacy capsules.
    mem = _ForeignHostMemory(ptr, nbytes, 0, managed)
    data = np.asarray(mem).view(dtype.np) if nbytes else np.empty(0, dtype.np)
    storage = Storage(CPU, data, nbytes, owner=mem)
    return Tensor._make(storage, shape, strides, 0, dtype)


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


def _export_target(t: Tensor, dl_device):
    """The tensor ``__dlpack__`` exports for ``dl_device`` (None: ``t``'s own device), before copy=."""
    if dl_device is None:
        return None
    dev_type, dev_id = (int(v) for v in dl_device)
    if dev_type == kDLCPU and t.is_cpu or dev_type == kDLCUDA and t.is_cuda and dev_id == t.device.index:
        return None  # already there (PyTorch ignores the index of a cpu device)
    if dev_type == kDLCPU:
        return device("cpu")
    if dev_type == kDLCUDA:
        return device("cuda", dev_id)
    raise BufferError(f"Unsupported device_type: {dev_type}")


def _tensor_dlpack(self: Tensor, *, stream=None, max_version=None, dl_device=None, copy=None, read_only=False):
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    if self.is_cpu and stream is not None and stream != -1:
        raise AssertionError("stream should be None on cpu.")
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    if read_only and not versioned:
        raise BufferError("read_only export requires the versioned DLPack protocol; pass max_version=(1, 0) or "
                          "higher")
    target = _export_target(self, dl_device)
    if target is not None:
        if copy is False:
            raise BufferError(f"__dlpack__: copy=False, but exporting a {self.device} tensor to device "
                              f"{tuple(dl_device)} needs a copy")
        return to_dlpack(self.to(target), stream, versioned, read_only=read_only, copied=True)
    if copy:
        return to_dlpack(self.clone(), stream, versioned, read_only=read_only, copied=True)
    return to_dlpack(self, stream, versioned, read_only=read_only)


Tensor.__dlpack__ = _tensor_dlpack
Tensor.__dlpack_device__ = dlpack_device
Tensor.__cuda_array_interface__ = property(cuda_array_interface)
