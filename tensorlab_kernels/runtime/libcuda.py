"""The CUDA driver API through ctypes: only the calls tensorlab uses.

Every call goes through :func:`check`, which turns a non-zero ``CUresult`` into a
:class:`CudaError` carrying the CUDA error name (``CUDA_ERROR_OUT_OF_MEMORY``...), so a
failure reads the same as in the CUDA documentation. Nothing here imports Triton or torch.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading

CUDA_SUCCESS = 0
CUDA_ERROR_OUT_OF_MEMORY = 2
CUDA_ERROR_NOT_READY = 600

CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_STREAM_NON_BLOCKING = 1
CU_EVENT_DEFAULT = 0
CU_EVENT_DISABLE_TIMING = 2
CU_MEMHOSTALLOC_PORTABLE = 1


class CudaError(RuntimeError):
    """A CUDA driver call failed. ``name`` is the CUDA error name, ``code`` the CUresult."""

    def __init__(self, call: str, code: int, name: str, message: str):
        self.call, self.code, self.name = call, code, name
        super().__init__(f"{call} failed: {name} ({code}): {message}")


_lib: ctypes.CDLL | None = None
_load_error: str | None = None
_lock = threading.Lock()


def _load() -> ctypes.CDLL | None:
    global _lib, _load_error
    if _lib is not None or _load_error is not None:
        return _lib
    with _lock:
        if _lib is not None or _load_error is not None:
            return _lib
        for name in ("libcuda.so.1", "libcuda.so", ctypes.util.find_library("cuda")):
            if not name:
                continue
            try:
                _lib = ctypes.CDLL(name)
                break
            except OSError as exc:
                _load_error = f"could not load {name}: {exc}"
        if _lib is not None:
            _load_error = None
            _declare(_lib)
        elif _load_error is None:
            _load_error = "libcuda not found"
    return _lib


def load_error() -> str | None:
    """Why libcuda is unavailable, or None when it loaded."""
    _load()
    return _load_error


def lib() -> ctypes.CDLL:
    dll = _load()
    if dll is None:
        raise RuntimeError(f"CUDA driver unavailable: {_load_error}")
    return dll


_P = ctypes.c_void_p
_U64 = ctypes.c_uint64
_SZ = ctypes.c_size_t
_INT = ctypes.c_int
_UINT = ctypes.c_uint

# name -> argument types; every function returns CUresult (int).
_SIGNATURES: dict[str, list] = {
    "cuInit": [_UINT],
    "cuDriverGetVersion": [ctypes.POINTER(_INT)],
    "cuGetErrorName": [_INT, ctypes.POINTER(ctypes.c_char_p)],
    "cuGetErrorString": [_INT, ctypes.POINTER(ctypes.c_char_p)],
    "cuDeviceGetCount": [ctypes.POINTER(_INT)],
    "cuDeviceGet": [ctypes.POINTER(_INT), _INT],
    "cuDeviceGetName": [ctypes.c_char_p, _INT, _INT],
    "cuDeviceGetAttribute": [ctypes.POINTER(_INT), _INT, _INT],
    "cuDeviceTotalMem_v2": [ctypes.POINTER(_SZ), _INT],
    "cuDevicePrimaryCtxRetain": [ctypes.POINTER(_P), _INT],
    "cuCtxSetCurrent": [_P],
    "cuCtxGetCurrent": [ctypes.POINTER(_P)],
    "cuCtxGetDevice": [ctypes.POINTER(_INT)],
    "cuCtxSynchronize": [],
    "cuMemGetInfo_v2": [ctypes.POINTER(_SZ), ctypes.POINTER(_SZ)],
    "cuMemAlloc_v2": [ctypes.POINTER(_U64), _SZ],
    "cuMemFree_v2": [_U64],
    "cuMemHostAlloc": [ctypes.POINTER(_P), _SZ, _UINT],
    "cuMemFreeHost": [_P],
    "cuMemcpyHtoD_v2": [_U64, _P, _SZ],
    "cuMemcpyDtoH_v2": [_P, _U64, _SZ],
    "cuMemcpyDtoD_v2": [_U64, _U64, _SZ],
    "cuMemcpyHtoDAsync_v2": [_U64, _P, _SZ, _P],
    "cuMemcpyDtoHAsync_v2": [_P, _U64, _SZ, _P],
    "cuMemcpyDtoDAsync_v2": [_U64, _U64, _SZ, _P],
    "cuMemsetD8_v2": [_U64, ctypes.c_ubyte, _SZ],
    "cuMemsetD8Async": [_U64, ctypes.c_ubyte, _SZ, _P],
    "cuStreamCreate": [ctypes.POINTER(_P), _UINT],
    "cuStreamDestroy_v2": [_P],
    "cuStreamSynchronize": [_P],
    "cuStreamQuery": [_P],
    "cuStreamWaitEvent": [_P, _P, _UINT],
    "cuEventCreate": [ctypes.POINTER(_P), _UINT],
    "cuEventDestroy_v2": [_P],
    "cuEventRecord": [_P, _P],
    "cuEventSynchronize": [_P],
    "cuEventQuery": [_P],
    "cuEventElapsedTime": [ctypes.POINTER(ctypes.c_float), _P, _P],
}


def _declare(dll: ctypes.CDLL) -> None:
    for name, argtypes in _SIGNATURES.items():
        fn = getattr(dll, name, None)
        if fn is None:
            continue
        fn.argtypes = argtypes
        fn.restype = _INT


def error_name(code: int) -> tuple[str, str]:
    dll = lib()
    name, text = ctypes.c_char_p(), ctypes.c_char_p()
    if dll.cuGetErrorName(code, ctypes.byref(name)) != CUDA_SUCCESS or not name.value:
        return f"CUDA_ERROR_{code}", "unknown error"
    dll.cuGetErrorString(code, ctypes.byref(text))
    return name.value.decode(), (text.value or b"").decode()


def check(call: str, code: int) -> None:
    if code != CUDA_SUCCESS:
        name, text = error_name(code)
        raise CudaError(call, code, name, text)


def call(name: str, *args) -> int:
    """Call ``name`` and raise :class:`CudaError` when it fails; returns the raw CUresult."""
    code = getattr(lib(), name)(*args)
    check(name, code)
    return code


def query(name: str, *args) -> bool:
    """For cuStreamQuery/cuEventQuery: True when done, False when CUDA_ERROR_NOT_READY."""
    code = getattr(lib(), name)(*args)
    if code == CUDA_ERROR_NOT_READY:
        return False
    check(name, code)
    return True


# --- small typed helpers ------------------------------------------------------------------


def init() -> None:
    call("cuInit", 0)


def driver_version() -> int:
    """The CUDA version the driver supports, as CUDA encodes it (12040 for 12.4); needs no cuInit."""
    v = _INT()
    call("cuDriverGetVersion", ctypes.byref(v))
    return v.value


def device_count() -> int:
    n = _INT()
    call("cuDeviceGetCount", ctypes.byref(n))
    return n.value


def device_handle(index: int) -> int:
    dev = _INT()
    call("cuDeviceGet", ctypes.byref(dev), index)
    return dev.value


def device_name(dev: int) -> str:
    buf = ctypes.create_string_buffer(256)
    call("cuDeviceGetName", buf, 256, dev)
    return buf.value.decode()


def device_attribute(dev: int, attribute: int) -> int:
    value = _INT()
    call("cuDeviceGetAttribute", ctypes.byref(value), attribute, dev)
    return value.value


def device_total_memory(dev: int) -> int:
    size = _SZ()
    call("cuDeviceTotalMem_v2", ctypes.byref(size), dev)
    return size.value


def primary_context(dev: int) -> int:
    ctx = _P()
    call("cuDevicePrimaryCtxRetain", ctypes.byref(ctx), dev)
    return ctx.value or 0


def set_current_context(ctx: int) -> None:
    call("cuCtxSetCurrent", _P(ctx))


def mem_get_info() -> tuple[int, int]:
    free, total = _SZ(), _SZ()
    call("cuMemGetInfo_v2", ctypes.byref(free), ctypes.byref(total))
    return free.value, total.value


def mem_alloc(nbytes: int) -> int:
    ptr = _U64()
    call("cuMemAlloc_v2", ctypes.byref(ptr), nbytes)
    return ptr.value


def mem_free(ptr: int) -> None:
    call("cuMemFree_v2", ptr)


def host_alloc(nbytes: int) -> int:
    ptr = _P()
    call("cuMemHostAlloc", ctypes.byref(ptr), nbytes, CU_MEMHOSTALLOC_PORTABLE)
    return ptr.value or 0


def host_free(ptr: int) -> None:
    call("cuMemFreeHost", _P(ptr))


def stream_create(flags: int = CU_STREAM_NON_BLOCKING) -> int:
    s = _P()
    call("cuStreamCreate", ctypes.byref(s), flags)
    return s.value or 0


def event_create(flags: int) -> int:
    e = _P()
    call("cuEventCreate", ctypes.byref(e), flags)
    return e.value or 0


def event_elapsed_ms(start: int, end: int) -> float:
    ms = ctypes.c_float()
    call("cuEventElapsedTime", ctypes.byref(ms), _P(start), _P(end))
    return float(ms.value)
