"""The interpreted backend: the ``cuda`` device emulated in host memory for Triton's interpreter.

With ``TRITON_INTERPRET=1`` Triton runs kernels in Python over host pointers. Device memory
here is therefore host memory (numpy byte arrays, 256-byte aligned like cudaMalloc), copies
are ``memmove``, and streams/events are synchronous stand-ins that keep the same API, so
everything above the runtime runs unchanged on a machine with no GPU.

``memory_limit`` (bytes, settable by tests or ``TENSORLAB_INTERPRET_MEMORY``) lets the
out-of-memory path be exercised without a GPU.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import time

import numpy as np

from .errors import DeviceOutOfMemory

ALIGN = 256


def aligned_host_array(nbytes: int) -> np.ndarray:
    raw = np.empty(nbytes + ALIGN, dtype=np.uint8)
    start = (-raw.ctypes.data) % ALIGN
    return raw[start : start + nbytes]


class InterpretedBackend:
    interpreted = True
    name = "interpreted"

    def __init__(self):
        limit = os.environ.get("TENSORLAB_INTERPRET_MEMORY")
        self.memory_limit: int | None = int(limit) if limit else None
        self.in_use = 0
        self._live: dict[int, np.ndarray] = {}
        self._stream_ids = itertools.count(1)
        self._event_ids = itertools.count(1)
        self._event_times: dict[int, float] = {}

    # -- devices ----------------------------------------------------------------------------
    def device_count(self) -> int:
        return 1

    def device_name(self, index: int) -> str:
        return "Triton interpreter (host memory)"

    def capability(self, index: int) -> tuple[int, int]:
        return (9, 0)  # what the kernels are written for; the interpreter itself has no limits

    def multiprocessor_count(self, index: int) -> int:
        return os.cpu_count() or 1

    def total_memory(self, index: int) -> int:
        if self.memory_limit is not None:
            return self.memory_limit
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")

    def mem_get_info(self, index: int) -> tuple[int, int]:
        total = self.total_memory(index)
        return max(total - self.in_use, 0), total

    def activate(self, index: int) -> None:
        if index != 0:
            raise RuntimeError(f"interpreted cuda has one device (cuda:0), not cuda:{index}")

    # -- memory -----------------------------------------------------------------------------
    def raw_alloc(self, nbytes: int, device: int):
        self.activate(device)
        if self.memory_limit is not None and self.in_use + nbytes > self.memory_limit:
            raise DeviceOutOfMemory(f"interpreted device limit {self.memory_limit} bytes reached")
        host = aligned_host_array(nbytes)
        self.in_use += nbytes
        self._live[host.ctypes.data] = host
        return host.ctypes.data, host

    def raw_free(self, ptr: int, device: int, host) -> None:
        arr = self._live.pop(ptr, None)
        if arr is not None:
            self.in_use -= arr.nbytes

    def host_alloc(self, nbytes: int):
        host = aligned_host_array(nbytes)
        return host.ctypes.data, host

    def host_free(self, ptr: int) -> None:
        pass  # the numpy array is freed with its last reference

    def copy_htod(self, dst: int, src: int, nbytes: int, stream: int, device: int, non_blocking: bool) -> None:
        if nbytes:
            ctypes.memmove(dst, src, nbytes)

    copy_dtoh = copy_htod

    def copy_dtod(self, dst: int, src: int, nbytes: int, stream: int, device: int) -> None:
        if nbytes:
            ctypes.memmove(dst, src, nbytes)

    def memset(self, ptr: int, value: int, nbytes: int, stream: int, device: int) -> None:
        if nbytes:
            ctypes.memset(ptr, value, nbytes)

    # -- streams and events: work is synchronous, so these only keep the bookkeeping ---------
    def stream_create(self, device: int) -> int:
        self.activate(device)
        return next(self._stream_ids)

    def stream_destroy(self, handle: int, device: int) -> None:
        pass

    def stream_synchronize(self, handle: int, device: int) -> None:
        pass

    def stream_query(self, handle: int, device: int) -> bool:
        return True

    def stream_wait_event(self, stream: int, event: int, device: int) -> None:
        pass

    def event_create(self, device: int, enable_timing: bool) -> int:
        return next(self._event_ids)

    def event_destroy(self, event: int, device: int = 0) -> None:
        self._event_times.pop(event, None)

    def event_record(self, event: int, stream: int, device: int) -> None:
        self._event_times[event] = time.perf_counter()

    def event_synchronize(self, event: int, device: int) -> None:
        pass

    def event_query(self, event: int, device: int) -> bool:
        return True

    def event_elapsed_ms(self, start: int, end: int, device: int) -> float:
        if start not in self._event_times or end not in self._event_times:
            raise RuntimeError("elapsed_time: both events must have been recorded")
        return (self._event_times[end] - self._event_times[start]) * 1000.0

    def event_record_new(self, stream: int, device: int):
        return None

    def event_done(self, ev, wait: bool) -> bool:
        return True

    def event_release(self, ev) -> None:
        pass

    def synchronize(self, device: int) -> None:
        pass
