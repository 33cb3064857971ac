"""The real CUDA backend: device memory, copies, streams and events from libcuda.

All work happens in each device's primary context, the one Triton's launcher also uses, so a
pointer allocated here is valid in every kernel launch. The primary context is made current
per thread on first use (CUDA's current context is thread-local).
"""

from __future__ import annotations

import ctypes
import threading

import numpy as np

from . import libcuda as cu
from .errors import DeviceOutOfMemory


class CudaBackend:
    interpreted = False
    name = "cuda"

    def __init__(self):
        cu.init()
        self._count = cu.device_count()
        if self._count == 0:
            raise RuntimeError("no CUDA device found")
        self._devices = [cu.device_handle(i) for i in range(self._count)]
        self._contexts: dict[int, int] = {}
        self._ctx_lock = threading.Lock()
        self._tls = threading.local()

    # -- devices ----------------------------------------------------------------------------
    def device_count(self) -> int:
        return self._count

    def device_name(self, index: int) -> str:
        return cu.device_name(self._devices[index])

    def capability(self, index: int) -> tuple[int, int]:
        dev = self._devices[index]
        return (
            cu.device_attribute(dev, cu.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
            cu.device_attribute(dev, cu.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
        )

    def multiprocessor_count(self, index: int) -> int:
        return cu.device_attribute(self._devices[index], cu.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)

    def total_memory(self, index: int) -> int:
        return cu.device_total_memory(self._devices[index])

    def mem_get_info(self, index: int) -> tuple[int, int]:
        self.activate(index)
        return cu.mem_get_info()

    def activate(self, index: int) -> None:
        """Make ``index``'s primary context current on this thread (cheap when it already is)."""
        if getattr(self._tls, "device", None) == index:
            return
        with self._ctx_lock:
            ctx = self._contexts.get(index)
            if ctx is None:
                ctx = cu.primary_context(self._devices[index])
                self._contexts[index] = ctx
        cu.set_current_context(ctx)
        self._tls.device = index

    # -- memory -----------------------------------------------------------------------------
    def raw_alloc(self, nbytes: int, device: int):
        self.activate(device)
        try:
            return cu.mem_alloc(nbytes), None
        except cu.CudaError as exc:
            if exc.code == cu.CUDA_ERROR_OUT_OF_MEMORY:
                raise DeviceOutOfMemory(str(exc)) from None
            raise

    def raw_free(self, ptr: int, device: int, host) -> None:
        self.activate(device)
        cu.mem_free(ptr)

    def host_alloc(self, nbytes: int):
        """Page-locked host memory: (pointer, numpy uint8 view over it)."""
        self.activate(0)
        ptr = cu.host_alloc(max(nbytes, 1))
        array = np.ctypeslib.as_array((ctypes.c_uint8 * max(nbytes, 1)).from_address(ptr))[:nbytes]
        return ptr, array

    def host_free(self, ptr: int) -> None:
        cu.host_free(ptr)

    # Copies are queued on the caller's stream so they are ordered after the kernels already
    # queued there; a blocking copy then waits for that stream only.
    def copy_htod(self, dst: int, src: int, nbytes: int, stream: int, device: int, non_blocking: bool) -> None:
        self.activate(device)
        cu.call("cuMemcpyHtoDAsync_v2", dst, src, nbytes, ctypes.c_void_p(stream))
        if not non_blocking:
            cu.call("cuStreamSynchronize", ctypes.c_void_p(stream))

    def copy_dtoh(self, dst: int, src: int, nbytes: int, stream: int, device: int, non_blocking: bool) -> None:
        self.activate(device)
        cu.call("cuMemcpyDtoHAsync_v2", dst, src, nbytes, ctypes.c_void_p(stream))
        if not non_blocking:
            cu.call("cuStreamSynchronize", ctypes.c_void_p(stream))

    def copy_dtod(self, dst: int, src: int, nbytes: int, stream: int, device: int) -> None:
        self.activate(device)
        cu.call("cuMemcpyDtoDAsync_v2", dst, src, nbytes, ctypes.c_void_p(stream))

    def memset(self, ptr: int, value: int, nbytes: int, stream: int, device: int) -> None:
        self.activate(device)
        cu.call("cuMemsetD8Async", ptr, value, nbytes, ctypes.c_void_p(stream))

    # -- streams and events ---------------------------------------------------------------
    def stream_create(self, device: int) -> int:
        self.activate(device)
        return cu.stream_create()

    def stream_destroy(self, handle: int, device: int) -> None:
        self.activate(device)
        cu.call("cuStreamDestroy_v2", ctypes.c_void_p(handle))

    def stream_synchronize(self, handle: int, device: int) -> None:
        self.activate(device)
        cu.call("cuStreamSynchronize", ctypes.c_void_p(handle))

    def stream_query(self, handle: int, device: int) -> bool:
        self.activate(device)
        return cu.query("cuStreamQuery", ctypes.c_void_p(handle))

    def stream_wait_event(self, stream: int, event: int, device: int) -> None:
        self.activate(device)
        cu.call("cuStreamWaitEvent", ctypes.c_void_p(stream), ctypes.c_void_p(event), 0)

    def event_create(self, device: int, enable_timing: bool) -> int:
        self.activate(device)
        return cu.event_create(cu.CU_EVENT_DEFAULT if enable_timing else cu.CU_EVENT_DISABLE_TIMING)

    def event_destroy(self, event: int, device: int = 0) -> None:
        self.activate(device)
        cu.call("cuEventDestroy_v2", ctypes.c_void_p(event))

    def event_record(self, event: int, stream: int, device: int) -> None:
        self.activate(device)
        cu.call("cuEventRecord", ctypes.c_void_p(event), ctypes.c_void_p(stream))

    def event_synchronize(self, event: int, device: int) -> None:
        self.activate(device)
        cu.call("cuEventSynchronize", ctypes.c_void_p(event))

    def event_query(self, event: int, device: int) -> bool:
        self.activate(device)
        return cu.query("cuEventQuery", ctypes.c_void_p(event))

    def event_elapsed_ms(self, start: int, end: int, device: int) -> float:
        self.activate(device)
        return cu.event_elapsed_ms(start, end)

    # The allocator's cross-stream bookkeeping uses these two.
    def event_record_new(self, stream: int, device: int) -> tuple[int, int]:
        ev = self.event_create(device, enable_timing=False)
        self.event_record(ev, stream, device)
        return ev, device

    def event_done(self, ev: tuple[int, int], wait: bool) -> bool:
        handle, device = ev
        if wait:
            self.event_synchronize(handle, device)
            return True
        return self.event_query(handle, device)

    def event_release(self, ev: tuple[int, int]) -> None:
        self.event_destroy(ev[0], ev[1])

    def synchronize(self, device: int) -> None:
        self.activate(device)
        cu.call("cuCtxSynchronize")
