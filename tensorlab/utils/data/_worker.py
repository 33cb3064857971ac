"""DataLoader worker processes: the worker loop, its seeding, and how batches cross to the main process.

One worker is one process running :func:`worker_loop`. It receives ``(task index, sample
indices)`` on its own ``multiprocessing.Queue``, fetches and collates the batch, and sends a
*message* back on its own pipe:

* arrays and cpu tensors of at least ``_shm.MIN_BYTES`` bytes travel through shared memory: the
  collate step already allocated them in a segment (``collate._allocator``), or they are copied
  into a new one; the message carries only ``_ShmRef`` (segment name + geometry). Smaller ones
  and everything else (numbers, strings, user objects) are pickled into the message;
* a message is ``pickle``-d once and written as ``<8-byte length><bytes>`` on a non-blocking pipe
  with ``select``, so a worker never blocks forever on a main process that has gone away.

The main process reads a message with :func:`recv_message`, and :func:`unpack` maps the
segments and wraps them as numpy arrays or tensors; when the last of those is gone the segment
is sent back to its worker (a :class:`Release` on the worker's queue) for reuse (see ``_shm``).

Workers never touch CUDA: they produce numpy arrays and cpu tensors; a cuda tensor in a batch is
an error that names the worker. Each worker seeds Python's ``random`` and tensorlab
(``tensorlab.manual_seed``) with ``base_seed + worker_id`` and numpy's global generator with a
``SeedSequence(base_seed, spawn_key=(worker_id,))`` state (as PyTorch, so workers differ and a
base seed reproduces them). A worker exits when it is told to (``None`` on its queue), when the
main process dies (its parent pid changes; checked every ``POLL_INTERVAL`` seconds while idle and
before every send), or when its pipe breaks.
"""

from __future__ import annotations

import copy
import gc
import os
import pickle
import queue
import random
import select
import signal
import struct
import sys
import traceback
import weakref

import numpy as np

from . import _shm, collate

POLL_INTERVAL = 0.2  # seconds between checks that the main process is still alive

_HEADER = struct.Struct("<Q")


# ----------------------------------------------------------------------------------------------
# worker info
# ----------------------------------------------------------------------------------------------


class WorkerInfo:
    """What :func:`get_worker_info` returns inside a worker: ``id``, ``num_workers``, ``seed``, ``dataset``
    (this worker's copy of the dataset). Read-only."""

    __initialized = False

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            setattr(self, k, v)
        self.__keys = tuple(kwargs.keys())
        self.__initialized = True

    def __setattr__(self, key, val):
        if self.__initialized:
            raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")
        return super().__setattr__(key, val)

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__keys if k != "dataset")
        return f"{type(self).__name__}({items}, dataset={type(self.dataset).__name__})"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker: its :class:`WorkerInfo` (``id``, ``num_workers``, ``seed``,
    ``dataset``); in the main process: None. Use it to shard an ``IterableDataset`` across workers."""
    return _worker_info


# ----------------------------------------------------------------------------------------------
# exceptions that cross the process boundary
# ----------------------------------------------------------------------------------------------


class ExceptionWrapper:
    """An exception caught in a worker, re-raised in the main process with its type and the
    worker's traceback text (PyTorch's ``ExceptionWrapper``)."""

    def __init__(self, exc_info=None, where: str = "in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            # KeyError repr()s its message; keep the traceback readable.
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            # Exception types whose constructor takes other arguments.
            raise RuntimeError(msg) from None
        raise exception

    def make_picklable(self) -> ExceptionWrapper:
        try:
            pickle.loads(pickle.dumps(self.exc_type))
        except Exception:
            self.exc_msg = f"(exception type {self.exc_type.__qualname__} could not be pickled)\n{self.exc_msg}"
            self.exc_type = RuntimeError
        return self


class _KeyErrorMessage(str):
    def __repr__(self):
        return self


class ResumeIteration:
    """Sent to persistent workers at the start of a new epoch."""


# ----------------------------------------------------------------------------------------------
# fetchers (shared by the main process when num_workers == 0)
# ----------------------------------------------------------------------------------------------


class MapFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool):
        self.dataset, self.auto_collation, self.collate_fn, self.drop_last = dataset, auto_collation, collate_fn, \
            drop_last

    def fetch(self, index):
        if self.auto_collation:
            getitems = getattr(self.dataset, "__getitems__", None)
            data = getitems(index) if callable(getitems) else [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class IterableFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool):
        self.dataset, self.auto_collation, self.collate_fn, self.drop_last = dataset, auto_collation, collate_fn, \
            drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if self.auto_collation:
            data = []
            for _ in index:
                try:
                    data.append(next(self.dataset_iter))
                except StopIteration:
                    self.ended = True
                    break
            if not data or (self.drop_last and len(data) < len(index)):
                raise StopIteration
        else:
            data = next(self.dataset_iter)
        return self.collate_fn(data)


def make_fetcher(iterable: bool, dataset, auto_collation, collate_fn, drop_last):
    cls = IterableFetcher if iterable else MapFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)


# ----------------------------------------------------------------------------------------------
# shared-memory packing
# ----------------------------------------------------------------------------------------------


class _ShmRef:
    """An array (or tensor) that lives in a shared-memory segment: what a message carries instead of it."""

    __slots__ = ("name", "nbytes", "offset", "shape", "strides", "dtype", "tensor", "requires_grad")

    def __init__(self, name, nbytes, offset, shape, strides, dtype, tensor, requires_grad):
        self.name, self.nbytes, self.offset = name, nbytes, offset
        self.shape, self.strides, self.dtype = shape, strides, dtype
        self.tensor, self.requires_grad = tensor, requires_grad

    def __reduce__(self):
        return (_ShmRef, (self.name, self.nbytes, self.offset, self.shape, self.strides, self.dtype, self.tensor,
                          self.requires_grad))


def _byte_extent(arr: np.ndarray) -> tuple[int, int]:
    lo = hi = arr.ctypes.data
    for n, s in zip(arr.shape, arr.strides):
        if s < 0:
            lo += (n - 1) * s
        else:
            hi += (n - 1) * s
    return lo, hi + arr.itemsize


class Release:
    """Main -> worker: these segments are no longer mapped by the main process; reuse them."""

    __slots__ = ("names",)

    def __init__(self, names):
        self.names = names

    def __reduce__(self):
        return (Release, (self.names,))


class Packer:
    """Worker side: allocates batch buffers in shared memory (reusing released segments) and
    turns a message into one that refers to segments by name."""

    def __init__(self, prefix: str, min_bytes: int, max_free: int = 4):
        self.prefix = prefix
        self.min_bytes = min_bytes
        self.max_free = max_free
        self.counter = 0
        self.pending: dict[str, _shm.Segment] = {}  # allocated for the message being built
        self.sent: dict[str, _shm.Segment] = {}  # in the main process's hands
        self.free: list[_shm.Segment] = []  # released by the main process, ready for reuse

    def _segment(self, nbytes: int) -> _shm.Segment:
        # Best fit among released segments, wasting at most half of one; else a new segment.
        best = None
        for seg in self.free:
            if nbytes <= seg.nbytes <= 2 * nbytes and (best is None or seg.nbytes < best.nbytes):
                best = seg
        if best is not None:
            self.free.remove(best)
        else:
            best = _shm.create(f"{self.prefix}{self.counter}", nbytes)
            self.counter += 1
        self.pending[best.name] = best
        return best

    def allocate(self, shape: tuple, dtype: np.dtype) -> np.ndarray:
        """``collate._allocator``: a batch buffer, in shared memory when it is large enough."""
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if nbytes < self.min_bytes or not _shm.AVAILABLE:
            return np.empty(shape, dtype)
        return np.ndarray(shape, dtype, buffer=self._segment(nbytes).array)

    def pack(self, obj, used: set):
        from ..._tensor import Tensor

        if isinstance(obj, Tensor):
            if not obj.is_cpu:
                wid = _worker_info.id if _worker_info is not None else "?"
                raise RuntimeError(
                    f"DataLoader worker {wid}: the batch holds a tensor on '{obj.device}'. Workers must not use "
                    "CUDA: return numpy arrays or cpu tensors from the dataset and move batches to the device in "
                    "the main process (batch.to(device, non_blocking=True), with pin_memory=True)."
                )
            if obj.nbytes < self.min_bytes or not _shm.AVAILABLE:
                return obj
            return self._ref(obj.detach()._np_view(), used, tensor=obj.dtype.name, requires_grad=obj.requires_grad)
        if isinstance(obj, np.ndarray):
            if obj.nbytes < self.min_bytes or obj.dtype.hasobject or not _shm.AVAILABLE:
                return obj
            return self._ref(obj, used, tensor=None, requires_grad=False)
        t = type(obj)
        if t is list:
            return [self.pack(x, used) for x in obj]
        if t is tuple:
            return tuple(self.pack(x, used) for x in obj)
        if isinstance(obj, tuple) and hasattr(obj, "_fields"):
            return t(*(self.pack(x, used) for x in obj))
        if isinstance(obj, dict):
            out = copy.copy(obj)
            for k, v in obj.items():
                out[k] = self.pack(v, used)
            return out
        return obj

    def _ref(self, arr: np.ndarray, used: set, tensor, requires_grad) -> _ShmRef:
        lo, hi = _byte_extent(arr)
        seg = next((s for s in self.pending.values() if s.address <= lo and hi <= s.address + s.nbytes), None)
        if seg is None:  # not collated into shared memory (a user collate_fn, default_convert): copy it there
            seg = self._segment(arr.nbytes)
            dst = np.ndarray(arr.shape, arr.dtype, buffer=seg.array)
            np.copyto(dst, arr)
            arr = dst
        used.add(seg.name)
        return _ShmRef(seg.name, seg.nbytes, arr.ctypes.data - seg.address, arr.shape, arr.strides, arr.dtype,
                       tensor, requires_grad)

    def finish(self, used: set) -> list[str]:
        """The message is built: its segments go to ``sent``, the others back to ``free``."""
        for name, seg in self.pending.items():
            if name in used:
                self.sent[name] = seg
            else:
                self.free.append(seg)
        self.pending = {}
        self._trim()
        return list(used)

    def release(self, names) -> None:
        for name in names:
            seg = self.sent.pop(name, None)
            if seg is not None:
                self.free.append(seg)
        self._trim()

    def forget(self, names) -> None:
        """The message with these segments was not delivered: nobody will release them."""
        for name in names:
            self.sent.pop(name, None)
            _shm.unlink(name)

    def _trim(self) -> None:
        while len(self.free) > self.max_free:
            _shm.unlink(self.free.pop(0).name)

    def unlink_all(self) -> None:
        for seg in (*self.pending.values(), *self.sent.values(), *self.free):
            _shm.unlink(seg.name)


def unpack(obj, attached: dict | None = None, release=None):
    """Main side: map the segments a message refers to and rebuild its arrays/tensors.

    ``release(name)`` is called when the last array/tensor over a segment is gone (its mapping
    closed), so the worker can reuse the segment.
    """
    if attached is None:
        attached = {}
    if isinstance(obj, _ShmRef):
        seg = attached.get(obj.name)
        if seg is None:
            seg = attached[obj.name] = _shm.attach(obj.name, obj.nbytes)
            if release is not None:
                weakref.finalize(seg.mm, release, obj.name)
        arr = np.ndarray(obj.shape, obj.dtype, buffer=seg.array, offset=obj.offset, strides=obj.strides)
        if obj.tensor is None:
            return arr
        from ..._factories import wrap_numpy

        t = wrap_numpy(arr)
        t._storage.owner = seg  # the mapping lives as long as the tensor's storage (and any view of it)
        if obj.requires_grad:
            t.requires_grad_(True)
        return t
    t = type(obj)
    if t is list:
        return [unpack(x, attached, release) for x in obj]
    if t is tuple:
        return tuple(unpack(x, attached, release) for x in obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return t(*(unpack(x, attached, release) for x in obj))
    if isinstance(obj, dict):
        out = copy.copy(obj)
        for k, v in obj.items():
            out[k] = unpack(v, attached, release)
        return out
    return obj


# ----------------------------------------------------------------------------------------------
# the pipe protocol
# ----------------------------------------------------------------------------------------------


class ParentGone(Exception):
    """The main process died (or closed its end) while a worker was sending."""


def send_message(fd: int, data: bytes, parent_alive) -> None:
    """Write ``<len><data>`` on a non-blocking pipe; while the pipe is full, check the parent."""
    for chunk in (_HEADER.pack(len(data)), data):
        view = memoryview(chunk)
        while view.nbytes:
            try:
                n = os.write(fd, view)
                view = view[n:]
            except BlockingIOError:
                select.select([], [fd], [], POLL_INTERVAL)
                if not parent_alive():
                    raise ParentGone from None
            except (BrokenPipeError, OSError) as e:
                raise ParentGone from e


def _read_exact(fd: int, n: int) -> bytes:
    parts, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 24))
        if not chunk:
            raise EOFError("DataLoader worker pipe closed in the middle of a message")
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts)


def recv_message(fd: int):
    """Main side: read one message (blocking; call when the fd is readable). EOFError at end of pipe."""
    header = os.read(fd, _HEADER.size)
    if not header:
        raise EOFError("DataLoader worker pipe closed")
    if len(header) < _HEADER.size:
        header += _read_exact(fd, _HEADER.size - len(header))
    (n,) = _HEADER.unpack(header)
    return pickle.loads(_read_exact(fd, n))


# ----------------------------------------------------------------------------------------------
# the worker loop
# ----------------------------------------------------------------------------------------------


def _seed_worker(base_seed: int, worker_id: int) -> int:
    import tensorlab

    seed = base_seed + worker_id
    random.seed(seed)
    tensorlab.manual_seed(seed)
    np.random.seed(np.random.SeedSequence(base_seed, spawn_key=(worker_id,)).generate_state(4))  # noqa: NPY002
    return seed


def worker_loop(iterable: bool, dataset, index_queue, result_conn, close_fds, auto_collation: bool, collate_fn,
                drop_last: bool, base_seed: int, init_fn, worker_id: int, num_workers: int, shm_prefix: str,
                parent_pid: int, shm_min_bytes: int) -> None:
    global _worker_info
    # Ctrl-C reaches the whole process group: the main process handles it and shuts us down.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Objects inherited through fork (possibly owning CUDA memory or pinned buffers of the parent)
    # must never be finalised here: keep the cyclic collector away from them.
    gc.freeze()
    for fd in close_fds:  # the parent's read ends of pipes, inherited through fork
        try:
            os.close(fd)
        except OSError:
            pass
    fd = result_conn.fileno()
    os.set_blocking(fd, False)

    def parent_alive() -> bool:
        return os.getppid() == parent_pid

    prefix = f"{shm_prefix}{worker_id}_"
    packer = Packer(prefix, shm_min_bytes)
    where = f"in DataLoader worker process {worker_id}"
    init_exception = None
    fetcher = None
    try:
        seed = _seed_worker(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        collate._allocator = packer.allocate
        if init_fn is not None:
            init_fn(worker_id)
        fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
    except Exception:
        init_exception = ExceptionWrapper(where=where).make_picklable()

    def send(msg) -> None:
        used: set = set()
        try:
            packed = (msg[0], msg[1], packer.pack(msg[2], used))
            data = pickle.dumps(packed, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:
            used = set()
            err = ExceptionWrapper(where=f"{where} (while sending the batch to the main process)").make_picklable()
            data = pickle.dumps(("error", msg[1], err), protocol=pickle.HIGHEST_PROTOCOL)
        names = packer.finish(used)
        try:
            send_message(fd, data, parent_alive)
        except ParentGone:
            packer.forget(names)
            raise

    iteration_end = False
    try:
        while True:
            try:
                r = index_queue.get(timeout=POLL_INTERVAL)
            except queue.Empty:
                if not parent_alive():
                    break
                continue
            if r is None:
                break
            if isinstance(r, Release):
                packer.release(r.names)
                continue
            if isinstance(r, ResumeIteration):
                iteration_end = False
                if iterable and init_exception is None:
                    try:
                        fetcher = make_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
                    except Exception:
                        init_exception = ExceptionWrapper(where=where).make_picklable()
                send(("resumed", None, worker_id))
                continue
            idx, index = r
            if init_exception is not None:
                msg = ("error", idx, init_exception)
            elif iteration_end:
                continue  # an exhausted iterable worker ignores the tasks already sent to it
            else:
                try:
                    msg = ("data", idx, fetcher.fetch(index))
                except StopIteration:
                    if not iterable:
                        msg = ("error", idx, ExceptionWrapper(where=where).make_picklable())
                    else:
                        msg = ("stop", idx, worker_id)
                        iteration_end = True
                except Exception:
                    msg = ("error", idx, ExceptionWrapper(where=where).make_picklable())
            if not parent_alive():
                break
            send(msg)
            del msg
    except (ParentGone, KeyboardInterrupt):
        pass
    finally:
        collate._allocator = None
        # Exiting means the iterator is shutting down (or the main process died): no segment of
        # ours will be mapped again. Mappings the main process still holds stay valid.
        packer.unlink_all()
        if not parent_alive():
            # Nobody will attach what we sent: remove every segment this worker created.
            _shm.unlink_prefix(prefix)
