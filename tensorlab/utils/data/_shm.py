"""POSIX shared-memory segments that carry DataLoader batches from workers to the main process.

Life of a segment (a buffer for one large array of a batch):

1. a worker *creates* it (``shm_open`` + ``ftruncate`` + ``posix_fallocate`` + ``mmap``) — or
   takes one from its pool of *released* segments — and collates straight into it
   (``np.stack(..., out=)``), so the batch is written once;
2. the worker sends only the segment's *name* and the array's geometry through a pipe;
3. the main process *attaches* (``shm_open`` + ``mmap``) and wraps the memory as numpy
   arrays/tensors; the mapping lives exactly as long as they do (it is their buffer's base);
4. when the last of them is gone the mapping is closed and the main process tells the worker
   the segment is *released*, so the worker reuses it for a later batch.

Reuse matters: writing a freshly allocated tmpfs page costs several microseconds (allocation,
zeroing, accounting), about 4x the cost of writing anonymous memory, so a loader that allocates
a new segment per batch spends most of its time in page faults. A worker keeps a few released
segments (best fit, at most 2x the size asked for) and unlinks the rest.

Names start with a per-iterator prefix (``tl<pid>_<token>_<worker>_``). The iterator's shutdown
unlinks every name with its prefix once its workers are gone (mappings that tensors still hold
stay valid: unlinking only removes the name), and a worker whose parent died unlinks its own.
So nothing is left in ``/dev/shm`` after an iterator, whatever happened to it.

``posix_fallocate`` reserves the pages up front, so a full ``/dev/shm`` (Docker's default is
64 MiB) is a clear ``RuntimeError`` in the worker instead of a ``SIGBUS`` on first touch.

We do not use :class:`multiprocessing.shared_memory.SharedMemory`: it registers every segment
with the resource tracker, which then warns about (and unlinks) segments that another process
unlinked, and it cannot be closed while numpy views exist.
"""

from __future__ import annotations

import errno
import mmap
import os
import sys

import numpy as np

try:  # CPython's POSIX shm binding (Linux, macOS); the DataLoader falls back to pickling without it
    import _posixshmem
except ImportError:  # pragma: no cover - Windows
    _posixshmem = None

AVAILABLE = _posixshmem is not None
SHM_DIR = "/dev/shm" if sys.platform.startswith("linux") else None  # where names are listable

# Arrays smaller than this ride inside the pickled message: mapping a page costs more than
# copying less than a page. Everything at or above it travels through shared memory.
MIN_BYTES = 4096


class Segment:
    """A mapped shared-memory block; ``array`` is a uint8 numpy view over all of it.

    Every array built on ``array`` keeps ``mm`` (the mapping) alive through its base chain, so a
    ``weakref.finalize`` on ``mm`` runs when the last view is gone."""

    __slots__ = ("name", "nbytes", "mm", "array", "address")

    def __init__(self, name: str, nbytes: int, mm: mmap.mmap):
        self.name = name
        self.nbytes = nbytes
        self.mm = mm
        self.array = np.frombuffer(mm, dtype=np.uint8)
        self.address = self.array.ctypes.data


def create(name: str, nbytes: int) -> Segment:
    """Create and map a new segment of ``nbytes`` (> 0) bytes; RuntimeError if /dev/shm is full."""
    fd = _posixshmem.shm_open("/" + name, os.O_CREAT | os.O_EXCL | os.O_RDWR, mode=0o600)
    try:
        os.ftruncate(fd, nbytes)
        if hasattr(os, "posix_fallocate"):
            try:
                os.posix_fallocate(fd, 0, nbytes)
            except OSError as e:
                if e.errno == errno.ENOSPC:
                    raise RuntimeError(
                        f"DataLoader worker: could not allocate {nbytes} bytes of shared memory for a batch "
                        f"({_free_space()}). Give the machine/container more shared memory (e.g. docker "
                        "--shm-size), use smaller batches, or num_workers=0."
                    ) from None
                # any other errno: this filesystem cannot preallocate; pages are then reserved on touch
        mm = mmap.mmap(fd, nbytes)
    except BaseException:
        os.close(fd)
        unlink(name)
        raise
    os.close(fd)
    return Segment(name, nbytes, mm)


def attach(name: str, nbytes: int) -> Segment:
    """Map an existing segment (its name stays: the worker reuses the segment once released)."""
    fd = _posixshmem.shm_open("/" + name, os.O_RDWR, mode=0o600)
    try:
        mm = mmap.mmap(fd, nbytes)
    finally:
        os.close(fd)
    return Segment(name, nbytes, mm)


def unlink(name: str) -> None:
    try:
        _posixshmem.shm_unlink("/" + name)
    except (FileNotFoundError, OSError):
        pass


def names_with_prefix(prefix: str) -> list[str]:
    """Segment names in /dev/shm that start with ``prefix`` (Linux only; empty elsewhere)."""
    if SHM_DIR is None:
        return []
    try:
        return [n for n in os.listdir(SHM_DIR) if n.startswith(prefix)]
    except OSError:
        return []


def unlink_prefix(prefix: str) -> int:
    """Unlink every segment whose name starts with ``prefix``; returns how many."""
    names = names_with_prefix(prefix)
    for n in names:
        unlink(n)
    return len(names)


def _free_space() -> str:
    if SHM_DIR is None:
        return "free space unknown"
    try:
        st = os.statvfs(SHM_DIR)
        return f"{SHM_DIR} has {st.f_bavail * st.f_frsize} bytes free of {st.f_blocks * st.f_frsize}"
    except OSError:
        return "free space unknown"
