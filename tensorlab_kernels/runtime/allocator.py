"""A caching device allocator, one per device, over a backend's raw alloc/free.

Why cache: ``cuMemAlloc``/``cuMemFree`` synchronise the device and cost tens of µs, while an
eager framework allocates for every op. Freed blocks go into a pool keyed by (stream, size
class) and the next request of that class on that stream takes one back without a driver
call. Reuse on the same stream is safe without events: work queued on one stream runs in
order, so a kernel that reads the new owner's data runs after every kernel that used the old
owner's. A block that was also used on other streams (``Allocation.record_stream``) waits for
events on those streams before it is reused.

Size classes: requests below 1 MiB round up to 512 bytes; larger ones round up to a quarter of
their power of two (1, 1.25, 1.5, 1.75, 2, 2.5 ... MiB), so a class wastes at most 25%.
"""

from __future__ import annotations

import threading
from collections import defaultdict

from .errors import DeviceOutOfMemory, OutOfMemoryError, format_bytes

SMALL_LIMIT = 1 << 20
SMALL_ROUND = 512


def size_class(nbytes: int) -> int:
    """The byte size of the block that serves a request of ``nbytes``."""
    if nbytes <= 0:
        return SMALL_ROUND
    if nbytes < SMALL_LIMIT:
        return -(-nbytes // SMALL_ROUND) * SMALL_ROUND
    top = 1 << (nbytes - 1).bit_length()  # next power of two >= nbytes
    step = top // 8  # a quarter of the power of two below: classes 1, 1.25, 1.5, 1.75, 2 x 2^k
    return -(-nbytes // step) * step


class Block:
    """One raw device allocation owned by the allocator."""

    __slots__ = ("ptr", "size", "stream", "host", "streams_used", "pending_events")

    def __init__(self, ptr: int, size: int, stream: int, host):
        self.ptr, self.size, self.stream, self.host = ptr, size, stream, host
        self.streams_used: set[int] = set()
        self.pending_events: list = []


class Allocation:
    """A live block handed to a user (a tensor's storage). Returned to the cache when collected."""

    __slots__ = ("block", "nbytes", "device", "ptr", "_allocator", "__weakref__")

    def __init__(self, allocator: CachingAllocator | None, block: Block, nbytes: int, device: int):
        self._allocator, self.block, self.nbytes, self.device = allocator, block, nbytes, device
        self.ptr = block.ptr  # a block never moves; read on every launch, so a plain attribute

    @property
    def host(self):
        """Interpreted backend only: the numpy uint8 array behind this allocation."""
        return self.block.host

    def record_stream(self, stream) -> None:
        """Mark that ``stream`` uses this memory, so it is not reused before that work ends."""
        handle = getattr(stream, "handle", stream)
        if handle != self.block.stream:
            self.block.streams_used.add(handle)

    def __del__(self):
        alloc = self._allocator
        if alloc is not None:
            self._allocator = None
            try:
                alloc.release(self.block)
            except Exception:  # interpreter shutdown: modules may already be gone
                pass


class CachingAllocator:
    """Caches freed blocks of one device for reuse, per stream and size class."""

    def __init__(self, backend, device: int):
        self.backend, self.device = backend, device
        self._lock = threading.RLock()
        self._free: dict[tuple[int, int], list[Block]] = defaultdict(list)
        self._waiting: list[Block] = []  # freed blocks still in use by other streams
        self.allocated = 0  # bytes in live blocks (size classes)
        self.reserved = 0  # bytes held from the driver, live or cached
        self.peak_allocated = 0
        self.peak_reserved = 0
        self.num_alloc_retries = 0
        self.num_ooms = 0

    # -- public -----------------------------------------------------------------------------
    def allocate(self, nbytes: int, stream: int = 0) -> Allocation:
        if nbytes < 0:
            raise ValueError(f"allocate: negative size {nbytes}")
        size = -(-nbytes // SMALL_ROUND) * SMALL_ROUND if 0 < nbytes < SMALL_LIMIT else size_class(nbytes)
        # (acquire/try/finally rather than ``with``: the same guarantee for half the interpreter's
        # work, on a path every eager op takes twice, here and in release)
        lock = self._lock
        lock.acquire()
        try:
            # the usual case first (every eager op allocates): a cached block, nothing waiting
            blocks = None if self._waiting else self._free.get((stream, size))
            block = blocks.pop() if blocks else self._take_cached(size, stream)
            if block is None:
                block = self._new_block(size, nbytes, stream)
            allocated = self.allocated = self.allocated + size
            if allocated > self.peak_allocated:
                self.peak_allocated = allocated
        finally:
            lock.release()
        return Allocation(self, block, nbytes, self.device)

    def release(self, block: Block) -> None:
        lock = self._lock
        lock.acquire()
        try:
            self.allocated -= block.size
            if block.streams_used:
                for s in block.streams_used:
                    block.pending_events.append(self.backend.event_record_new(s, self.device))
                block.streams_used = set()
                self._waiting.append(block)
            else:
                self._free[(block.stream, block.size)].append(block)
        finally:
            lock.release()

    def empty_cache(self) -> None:
        """Give every cached (unused) block back to the driver."""
        with self._lock:
            self._drain_waiting(block_on_events=True)
            for blocks in self._free.values():
                for b in blocks:
                    self.backend.raw_free(b.ptr, self.device, b.host)
                    self.reserved -= b.size
            self._free.clear()

    def reset_peak_stats(self) -> None:
        with self._lock:
            self.peak_allocated = self.allocated
            self.peak_reserved = self.reserved

    def stats(self) -> dict:
        with self._lock:
            cached = sum(b.size for blocks in self._free.values() for b in blocks)
            return {
                "allocated_bytes.all.current": self.allocated,
                "allocated_bytes.all.peak": self.peak_allocated,
                "reserved_bytes.all.current": self.reserved,
                "reserved_bytes.all.peak": self.peak_reserved,
                "cached_bytes": cached,
                "num_alloc_retries": self.num_alloc_retries,
                "num_ooms": self.num_ooms,
            }

    # -- internals --------------------------------------------------------------------------
    def _take_cached(self, size: int, stream: int) -> Block | None:
        if self._waiting:
            self._drain_waiting(block_on_events=False)
        blocks = self._free.get((stream, size))
        if blocks:
            return blocks.pop()
        return None

    def _drain_waiting(self, block_on_events: bool) -> None:
        still = []
        for b in self._waiting:
            done = all(self.backend.event_done(e, wait=block_on_events) for e in b.pending_events)
            if done:
                for e in b.pending_events:
                    self.backend.event_release(e)
                b.pending_events = []
                self._free[(b.stream, b.size)].append(b)
            else:
                still.append(b)
        self._waiting = still

    def _new_block(self, size: int, requested: int, stream: int) -> Block:
        try:
            ptr, host = self.backend.raw_alloc(size, self.device)
        except DeviceOutOfMemory:
            # Free every cached block and try once more before giving up.
            self.num_alloc_retries += 1
            self.empty_cache()
            try:
                ptr, host = self.backend.raw_alloc(size, self.device)
            except DeviceOutOfMemory:
                self.num_ooms += 1
                raise OutOfMemoryError(
                    f"device out of memory on cuda:{self.device}: tried to allocate {format_bytes(requested)} "
                    f"({requested} bytes); {format_bytes(self.allocated)} ({self.allocated} bytes) already "
                    f"allocated by tensorlab, {format_bytes(self.reserved)} reserved"
                ) from None
        self.reserved += size
        self.peak_reserved = max(self.peak_reserved, self.reserved)
        return Block(ptr, size, stream, host)
