"""The device runtime: which backend runs ``cuda``, its allocators, copies and pinned memory.

Backend selection (once, on first use):

- ``TRITON_INTERPRET=1`` in the environment when ``tensorlab_kernels`` is imported: the
  interpreted backend (host memory, Triton's interpreter), GPU or not — Triton decides
  interpretation when kernels are decorated, so the runtime must agree with it.
- otherwise libcuda loads, ``cuInit`` succeeds, a device exists and Triton imports: the real
  CUDA backend, with tensorlab's torch-free driver installed as Triton's active driver.
- otherwise ``cuda`` is unavailable and :func:`unavailable_reason` says why.
"""

from __future__ import annotations

import math
import os
import threading

import numpy as np

from .allocator import Allocation, CachingAllocator, size_class
from .array import DeviceArray, contiguous_strides
from .errors import OutOfMemoryError
from .streams import (
    Event,
    Stream,
    current_device,
    current_stream,
    current_stream_handle,
    default_stream,
    set_device,
    set_stream,
    stream,
)

INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")

__all__ = [
    "Allocation", "CachingAllocator", "DeviceArray", "Event", "OutOfMemoryError", "PinnedBuffer", "Stream",
    "allocator_for", "copy_device_to_device", "copy_device_to_host", "copy_host_to_device", "current_device",
    "current_stream", "current_stream_handle", "default_stream", "empty", "get_backend", "is_available",
    "is_initialized", "is_interpreted", "memset", "set_device", "set_stream", "size_class", "stream",
    "synchronize", "unavailable_reason"
]

_backend = None
_reason: str | None = None
_selected = False
_lock = threading.Lock()
_allocators: dict[int, CachingAllocator] = {}


def _select():
    global _backend, _reason, _selected
    with _lock:
        if _selected:
            return _backend
        try:
            from .._triton import TRITON_AVAILABLE
        except ImportError:  # pragma: no cover
            TRITON_AVAILABLE = False
        if INTERPRET:
            if not TRITON_AVAILABLE:
                _reason = "TRITON_INTERPRET=1 but Triton is not installed"
            else:
                from .backend_interpret import InterpretedBackend

                _backend = InterpretedBackend()
        else:
            from . import libcuda

            if libcuda.load_error() is not None:
                _reason = f"no NVIDIA driver ({libcuda.load_error()})"
            elif not TRITON_AVAILABLE:
                _reason = "Triton is not installed (pip install triton)"
            else:
                try:
                    from .backend_cuda import CudaBackend

                    backend = CudaBackend()
                    from .triton_driver import install

                    install(backend)
                    backend.activate(0)
                    _backend = backend
                except Exception as exc:  # no device, driver too old, ...
                    _reason = f"CUDA initialisation failed: {exc}"
        _selected = True
        return _backend


def is_initialized() -> bool:
    """Whether a backend has been set up in this process (cuda is set up on first use)."""
    return _selected and _backend is not None


def get_backend():
    """The active backend, or None when ``cuda`` is unavailable."""
    return _backend if _selected else _select()


def unavailable_reason() -> str | None:
    get_backend()
    return _reason


def is_available() -> bool:
    return get_backend() is not None


def is_interpreted() -> bool:
    b = get_backend()
    return b is not None and b.interpreted


def require_backend():
    b = get_backend()
    if b is None:
        raise RuntimeError(f"cuda is not available: {_reason}")
    return b


def allocator_for(device: int) -> CachingAllocator:
    a = _allocators.get(device)
    if a is None:
        backend = require_backend()
        if not 0 <= device < backend.device_count():
            raise RuntimeError(f"invalid device cuda:{device} (there are {backend.device_count()} devices)")
        with _lock:
            a = _allocators.setdefault(device, CachingAllocator(backend, device))
    return a


def allocate(nbytes: int, device: int | None = None) -> Allocation:
    """Raw device memory on ``device``'s current stream."""
    if device is None:
        device = current_device()
    allocator = _allocators.get(device)  # (every op's output asks: allocator_for's lookup, written out)
    if allocator is None:
        allocator = allocator_for(device)
    return allocator.allocate(nbytes, current_stream_handle(device))


_kept_allocators: dict[int, CachingAllocator] = {}


def _kept_allocation(nbytes: int, device: int) -> Allocation:
    allocator = _kept_allocators.get(device)
    if allocator is None:
        allocator_for(device)  # (checks the device)
        with _lock:
            allocator = _kept_allocators.setdefault(device, CachingAllocator(require_backend(), device))
    return allocator.allocate(nbytes, current_stream_handle(device))


def empty(shape, dtype, device: int | None = None, *, kept: bool = False) -> DeviceArray:
    """A new contiguous DeviceArray (for launchers that need outputs or scratch).

    ``kept``: from a pool of its own, for small buffers a launcher keeps across calls (the
    multi-tensor launch tables). Taken from the tensors' pool, each kept buffer would hold a block
    that a tensor of the next training step would have been handed again, so that step's tensors
    got other addresses, and the tables keyed by those addresses were rebuilt every step. Not in
    ``memory_allocated`` (as PyTorch's launch metadata, which travels in kernel arguments)."""
    shape = tuple(int(s) for s in shape)
    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if kept:
        storage = _kept_allocation(nbytes, current_device() if device is None else device)
    else:
        storage = allocate(nbytes, device)
    return DeviceArray(storage, 0, shape, contiguous_strides(shape), dtype)


def copy_host_to_device(dst: Allocation, dst_offset: int, src: np.ndarray, non_blocking: bool = False) -> None:
    """Copy a C-contiguous host array into ``dst`` at byte offset ``dst_offset``."""
    if not src.flags.c_contiguous:
        raise ValueError("copy_host_to_device needs a C-contiguous host array")
    if src.nbytes:
        require_backend().copy_htod(dst.ptr + dst_offset, src.ctypes.data, src.nbytes,
                                    current_stream(dst.device).handle, dst.device, non_blocking)


def copy_device_to_host(dst: np.ndarray, src: Allocation, src_offset: int, non_blocking: bool = False) -> None:
    """Copy ``dst.nbytes`` bytes from ``src`` at byte offset ``src_offset`` into a contiguous host array."""
    if not dst.flags.c_contiguous:
        raise ValueError("copy_device_to_host needs a C-contiguous host array")
    if dst.nbytes:
        require_backend().copy_dtoh(dst.ctypes.data, src.ptr + src_offset, dst.nbytes,
                                    current_stream(src.device).handle, src.device, non_blocking)


def copy_device_to_device(dst: Allocation, dst_offset: int, src: Allocation, src_offset: int, nbytes: int) -> None:
    if nbytes:
        require_backend().copy_dtod(dst.ptr + dst_offset, src.ptr + src_offset, nbytes,
                                    current_stream(dst.device).handle, dst.device)


def memset(dst: Allocation, offset: int, value: int, nbytes: int) -> None:
    if nbytes:
        require_backend().memset(dst.ptr + offset, value, nbytes, current_stream(dst.device).handle, dst.device)


def synchronize(device: int | None = None) -> None:
    require_backend().synchronize(current_device() if device is None else device)


class PinnedBuffer:
    """Page-locked host memory (``cuMemHostAlloc``); freed when the last reference goes.

    ``array`` is a numpy uint8 view over it. On the interpreted backend it is ordinary memory.
    """

    def __init__(self, nbytes: int):
        backend = require_backend()
        self._backend = backend
        self.ptr, self.array = backend.host_alloc(nbytes)
        self.nbytes = nbytes

    def __del__(self):
        ptr, self.ptr = getattr(self, "ptr", 0), 0
        if ptr:
            try:
                self._backend.host_free(ptr)
            except Exception:
                pass
