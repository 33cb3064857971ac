"""``DataLoader``: PyTorch's ``torch.utils.data.DataLoader`` — batching, shuffling, worker processes.

Process model (``num_workers > 0``)
----------------------------------
* Workers are processes started with the ``fork`` method on Linux (fast, and datasets or
  collate functions need not be picklable) and ``spawn`` elsewhere; pass
  ``multiprocessing_context='spawn'`` (or a context object) to choose. Forking a process that
  holds a CUDA context is safe here because workers never touch CUDA: they produce numpy
  arrays and cpu tensors, and a worker freezes the objects it inherited (``gc.freeze``) so none of
  the parent's device memory is finalised in the child.
* Tasks go to the workers round robin, at most ``prefetch_factor`` outstanding per worker.
  Batches come back through shared memory (see ``_worker`` and ``_shm``; a worker reuses a
  segment once the main process has dropped every tensor over it) and are delivered in
  sampler order whatever ``num_workers`` is: out-of-order arrivals wait in a reorder buffer.
  So the sequence of batches is a function of the generator (``generator=`` or tensorlab's
  default cpu generator), not of the number of workers or of their timing.
* Each worker seeds Python's ``random``, numpy's global generator and tensorlab's default
  generators from ``base_seed + worker_id``; ``base_seed`` is drawn from the loader's generator
  (PyTorch's rule), so ``tensorlab.manual_seed(s)`` reproduces random augmentations in workers.
* ``pin_memory=True``: a thread in the main process maps each batch and copies its tensors
  into page-locked memory (``Tensor.pin_memory``) while the training loop runs; the loop then
  moves them with ``.to('cuda', non_blocking=True)``.

Faults
------
* An exception in a worker (in the dataset, the collate function or ``worker_init_fn``) is
  raised in the main process with its type and the worker's traceback in the message.
* A worker that dies (a signal, ``os._exit``) raises ``RuntimeError`` naming its pid and the
  signal as soon as the main process waits for data (the wait wakes on the worker's exit).
* ``timeout > 0``: ``RuntimeError`` when no batch arrives within ``timeout`` seconds.
* Breaking out of the loop, deleting the iterator, garbage collection, interpreter exit, or an
  error (for non-persistent workers) shut the workers down and unlink every shared-memory
  segment the iterator's workers created. Workers exit by themselves when the main process dies.
  With ``persistent_workers=True`` the workers live as long as the DataLoader (or its iterator).
"""

from __future__ import annotations

import collections
import itertools
import math
import multiprocessing as mp
import multiprocessing.connection
import os
import queue
import secrets
import signal
import sys
import threading
import time
import warnings
import weakref
from typing import Generic

from . import _shm
from ._worker import (
    POLL_INTERVAL,
    ExceptionWrapper,
    Release,
    ResumeIteration,
    _read_exact,
    make_fetcher,
    recv_message,
    unpack,
    worker_loop,
)
from .collate import default_collate, default_convert
from .dataset import IterableDataset, T_co
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler, draw_seed

__all__ = ["DataLoader"]

_SHUTDOWN_GRACE = 1.0  # seconds a worker gets to finish its batch and exit before SIGTERM


class _DatasetKind:
    Map = 0
    Iterable = 1


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: ``None`` forever (the dataset decides when to stop)."""

    def __iter__(self):
        while True:
            yield None


def _default_context():
    if sys.platform.startswith("linux") and "fork" in mp.get_all_start_methods():
        return mp.get_context("fork")
    return mp.get_context("spawn")


def _cpu_count() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class DataLoader(Generic[T_co]):
    """Combines a dataset and a sampler and iterates over batches, optionally in worker processes.

    Arguments and their checks follow PyTorch's ``DataLoader``; ``prefetch_factor`` defaults to
    None, meaning 2 batches per worker with ``num_workers > 0`` (it must stay None without
    workers). See the module docstring for the process model and fault handling.
    """

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True):
        # (pin_memory_device: PyTorch's deprecated choice of the device pinned memory serves: here always
        # cuda. in_order=False lets PyTorch hand out a batch a slow worker holds back; batches in order
        # are one of the orders it allows, and the one tensorlab's loader keeps.)
        if pin_memory_device not in ("", "cuda") and not str(pin_memory_device).startswith("cuda:"):
            raise ValueError(f"pin_memory_device: tensorlab pins memory for cuda only, got {pin_memory_device!r}")
        self.pin_memory_device, self.in_order = pin_memory_device, bool(in_order)
        if not isinstance(num_workers, int) or isinstance(num_workers, bool) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             f"multiprocessing (got num_workers={num_workers!r}).")
        if timeout < 0:
            raise ValueError(f"timeout option should be non-negative (got timeout={timeout})")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing. Let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and (not isinstance(prefetch_factor, int) or prefetch_factor < 0):
            raise ValueError(f"prefetch_factor option should be non-negative (got {prefetch_factor!r})")
        if num_workers > 0 and prefetch_factor == 0:
            raise ValueError("prefetch_factor=0 would never send a task to a worker; use a positive value")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = bool(pin_memory)
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = _DatasetKind.Iterable
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = _DatasetKind.Map

        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")

        if sampler is None:
            if self._dataset_kind == _DatasetKind.Iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterator = None
        self._IterableDataset_len_called = None  # len(dataset) once len(loader) was asked (the warning below)
        self._check_context()
        self._check_worker_count()
        self.__initialized = True

    _DataLoader__initialized = False

    def __setattr__(self, attr, val):
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {type(self).__name__} is initialized")
        super().__setattr__(attr, val)

    def _check_context(self) -> None:
        ctx = self.multiprocessing_context
        if ctx is None:
            return
        if self.num_workers == 0:
            raise ValueError("multiprocessing_context can only be used with multi-process loading (num_workers > 0), "
                             "but got num_workers=0")
        if isinstance(ctx, str):
            valid = mp.get_all_start_methods()
            if ctx not in valid:
                raise ValueError(f"multiprocessing_context option should specify a valid start method in {valid!r}, "
                                 f"but got multiprocessing_context={ctx!r}")
            self.multiprocessing_context = mp.get_context(ctx)
        elif not isinstance(ctx, mp.context.BaseContext):
            raise TypeError(f"multiprocessing_context option should be a valid context object or a string specifying "
                            f"the start method, but got multiprocessing_context={ctx!r}")

    def _check_worker_count(self) -> None:
        cpus = _cpu_count()
        if self.num_workers > cpus:
            warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. The suggested "
                          f"max number of workers on this system is {cpus}; too many workers may make data loading "
                          "slow or even freeze. Lower num_workers if that happens.")

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        return _MultiProcessingDataLoaderIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            length = self._IterableDataset_len_called = len(self.dataset)  # TypeError without __len__
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


# ----------------------------------------------------------------------------------------------
# iterators
# ----------------------------------------------------------------------------------------------


def _pin(data):
    """Copy every cpu tensor in ``data`` to page-locked memory (structure kept)."""
    from ..._tensor import Tensor

    if isinstance(data, Tensor):
        return data.pin_memory() if data.is_cpu else data
    t = type(data)
    if t is list:
        return [_pin(x) for x in data]
    if t is tuple:
        return tuple(_pin(x) for x in data)
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return t(*(_pin(x) for x in data))
    if isinstance(data, dict):
        out = data.copy() if hasattr(data, "copy") else dict(data)
        for k, v in data.items():
            out[k] = _pin(v)
        return out
    if hasattr(data, "pin_memory") and callable(data.pin_memory):
        return data.pin_memory()
    return data


def _want_pin(loader) -> bool:
    if not loader.pin_memory:
        return False
    from ... import cuda

    if not cuda.is_available():
        warnings.warn("'pin_memory' argument is set as true but no cuda device is available, so pinned memory "
                      "won't be used.")
        return False
    return True


class _BaseDataLoaderIter:
    def __init__(self, loader: DataLoader):
        self._dataset = loader.dataset
        self._dataset_kind = loader._dataset_kind
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._prefetch_factor = loader.prefetch_factor
        self._pin_memory = _want_pin(loader)
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._generator = loader.generator
        self._persistent_workers = loader.persistent_workers
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = draw_seed(loader.generator)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter: bool = False) -> None:
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def _next_data(self):
        raise NotImplementedError

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        if (self._dataset_kind == _DatasetKind.Iterable and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            # PyTorch's warning (it compares the batches yielded with the number of samples).
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {self._IterableDataset_len_called}"
                   f"(when accessing len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                        "IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader):
        if loader.timeout != 0:  # (PyTorch's single-process iterator asserts the same)
            raise ValueError(f"DataLoader: timeout={loader.timeout} bounds the wait for a worker's batch, so it needs "
                             "num_workers > 0; with num_workers=0 it must be 0")
        super().__init__(loader)
        self._fetcher = make_fetcher(self._dataset_kind == _DatasetKind.Iterable, self._dataset, self._auto_collation,
                                     self._collate_fn, self._drop_last)

    def _next_data(self):
        index = self._next_index()  # StopIteration ends the epoch
        data = self._fetcher.fetch(index)  # so does an exhausted IterableDataset
        return _pin(data) if self._pin_memory else data


def _death_message(pid: int, exitcode: int) -> str:
    if exitcode < 0:
        sig = -exitcode
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = f"signal {sig}"
        msg = f"DataLoader worker (pid {pid}) is killed by signal: {signal.strsignal(sig) or name} ({name})."
        if sig == signal.SIGBUS:
            msg += " This can be caused by too little shared memory (/dev/shm): give it more or use num_workers=0."
        elif sig == signal.SIGKILL:
            msg += " If nobody killed it on purpose, the kernel's out-of-memory killer may have."
        return msg
    return f"DataLoader worker (pid {pid}) exited unexpectedly with exit code {exitcode}."


class _WorkerPool:
    """The worker processes of one iterator and everything needed to stop them.

    It holds no reference to the iterator, so ``weakref.finalize(iterator, pool.shutdown)`` runs
    when the iterator is collected (or at interpreter exit).
    """

    def __init__(self, ctx, iterable: bool, dataset, auto_collation, collate_fn, drop_last, base_seed, init_fn,
                 num_workers: int, pin: bool):
        self.prefix = f"tl{os.getpid()}_{secrets.token_hex(4)}_"
        self.workers, self.index_queues, self.readers, self.fds = [], [], [], []
        self.closed = False
        self.pin_thread = None
        self.pin_stop = threading.Event()
        self.pin_queue: queue.Queue = queue.Queue()
        # (worker id, segment name) of segments whose last view died; flushed to the workers by
        # the iterator. Appended from weakref finalizers, so a deque (no lock that a finalizer
        # running inside a Queue.put on the same thread could deadlock on).
        self.releases: collections.deque = collections.deque()
        forking = ctx.get_start_method() == "fork"
        try:
            for wid in range(num_workers):
                iq = ctx.Queue()
                iq.cancel_join_thread()  # never block interpreter exit on a dead worker's queue
                reader, writer = ctx.Pipe(duplex=False)
                self.readers.append(reader)
                self.fds.append(reader.fileno())
                close_fds = list(self.fds) if forking else []
                w = ctx.Process(
                    target=worker_loop,
                    args=(iterable, dataset, iq, writer, close_fds, auto_collation, collate_fn, drop_last, base_seed,
                          init_fn, wid, num_workers, self.prefix, os.getpid(), _shm.MIN_BYTES),
                    daemon=True,
                )
                self.index_queues.append(iq)
                w.start()
                writer.close()  # the worker holds the only write end: EOF when it dies
                self.workers.append(w)
            if pin:
                self.pin_thread = threading.Thread(
                    target=_pin_memory_loop, args=(self.fds, self.pin_queue, self.pin_stop, self.releases),
                    name="tensorlab-pin-memory", daemon=True)
                self.pin_thread.start()
        except BaseException:
            self.shutdown()
            raise

    # -- status ---------------------------------------------------------------------------
    def check_workers(self) -> None:
        """RuntimeError (after shutting everything down) if a worker has exited."""
        if self.closed:
            raise RuntimeError("DataLoader workers have been shut down")
        dead = [(w.pid, w.exitcode) for w in self.workers if w.exitcode is not None]
        if dead:
            self.shutdown()
            raise RuntimeError(" ".join(_death_message(pid, code) for pid, code in dead))
        if self.pin_thread is not None and not self.pin_thread.is_alive():
            self.shutdown()
            raise RuntimeError("DataLoader: the pin-memory thread exited unexpectedly")

    def get(self, timeout: float):
        """One message ``(kind, idx, payload)`` with payload unpacked, or None after ``timeout`` seconds."""
        if self.pin_thread is not None:
            try:
                return self.pin_queue.get(timeout=min(timeout, POLL_INTERVAL))
            except queue.Empty:
                self.check_workers()
                return None
        waitables = self.fds + [w.sentinel for w in self.workers]
        ready = mp.connection.wait(waitables, timeout)
        for obj in ready:
            if obj in self.fds:
                wid = self.fds.index(obj)
                try:
                    kind, idx, payload = recv_message(obj)
                except EOFError:
                    continue  # the worker died: its sentinel says how, below
                except Exception as e:
                    self.shutdown()
                    raise RuntimeError(f"DataLoader: could not read a batch from worker {wid}: "
                                       f"{type(e).__name__}: {e}") from e
                return kind, idx, unpack(payload, release=_releaser(self.releases, wid))
        if ready:
            self.check_workers()
        return None

    def flush_releases(self) -> None:
        """Send the segments released since the last call back to their workers."""
        if not self.releases or self.closed:
            return
        by_worker: dict[int, list] = {}
        while True:
            try:
                wid, name = self.releases.popleft()
            except IndexError:
                break
            by_worker.setdefault(wid, []).append(name)
        for wid, names in by_worker.items():
            self.index_queues[wid].put(Release(names))

    # -- shutdown -------------------------------------------------------------------------
    def shutdown(self) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if self.pin_thread is not None:
                self.pin_stop.set()
                self.pin_thread.join(timeout=5)
            for q, w in zip(self.index_queues, self.workers):
                try:
                    if w.exitcode is None:
                        q.put(None)
                except Exception:
                    pass
            deadline = time.monotonic() + _SHUTDOWN_GRACE
            live = [w for w in self.workers if w.exitcode is None]
            open_fds = list(self.fds)
            while live and time.monotonic() < deadline:
                # Drain the pipes so a worker blocked on sending a batch can see its None and exit.
                ready = mp.connection.wait(open_fds + [w.sentinel for w in live], 0.05)
                for fd in ready:
                    if fd in open_fds:
                        try:
                            _discard_message(fd)
                        except Exception:
                            open_fds.remove(fd)
                live = [w for w in live if w.exitcode is None]
            for w in live:
                w.terminate()
            for w in live:
                w.join(1.0)
                if w.exitcode is None:
                    w.kill()
                    w.join(1.0)
            for w in self.workers:
                if w.exitcode is not None:
                    w.join(0)
            for q in self.index_queues:
                q.cancel_join_thread()
                q.close()
            for r in self.readers:
                r.close()
        finally:
            # Whatever the workers created and nobody mapped (or a killed worker left behind).
            _shm.unlink_prefix(self.prefix)


def _discard_message(fd: int) -> None:
    """Read one message and drop it unread (its segments are unlinked by the prefix sweep)."""
    header = os.read(fd, 8)
    if not header:
        raise EOFError
    if len(header) < 8:
        header += _read_exact(fd, 8 - len(header))
    _read_exact(fd, int.from_bytes(header, "little"))


def _releaser(releases: collections.deque, wid: int):
    def release(name: str) -> None:
        releases.append((wid, name))

    return release


def _pin_memory_loop(fds: list, out: queue.Queue, stop: threading.Event, releases: collections.deque) -> None:
    """Thread: read worker messages, map their segments, copy their tensors to pinned memory."""
    live = list(fds)
    while not stop.is_set() and live:
        ready = mp.connection.wait(live, POLL_INTERVAL)
        for fd in ready:
            if stop.is_set():
                return
            try:
                kind, idx, payload = recv_message(fd)
            except EOFError:
                live.remove(fd)  # that worker died; the main thread notices and reports it
                continue
            except Exception:
                out.put(("error", None, ExceptionWrapper(where="in the DataLoader pin-memory thread")))
                continue
            try:
                payload = unpack(payload, release=_releaser(releases, fds.index(fd)))
                if kind == "data":
                    payload = _pin(payload)
            except Exception:
                kind, payload = "error", ExceptionWrapper(where="in the DataLoader pin-memory thread")
            out.put((kind, idx, payload))
            del payload


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    def __init__(self, loader: DataLoader):
        super().__init__(loader)
        self._worker_init_fn = loader.worker_init_fn
        self._ctx = loader.multiprocessing_context or _default_context()
        self._pool: _WorkerPool | None = None
        self._finalizer = None
        self._start_pool()
        self._reset(loader, first_iter=True)

    def _start_pool(self) -> None:
        self._pool = _WorkerPool(self._ctx, self._dataset_kind == _DatasetKind.Iterable, self._dataset,
                                 self._auto_collation, self._collate_fn, self._drop_last, self._base_seed,
                                 self._worker_init_fn, self._num_workers, self._pin_memory)
        self._finalizer = weakref.finalize(self, self._pool.shutdown)

    def _reset(self, loader, first_iter: bool = False) -> None:
        super()._reset(loader, first_iter)
        self._send_idx = 0  # next task index to send
        self._rcvd_idx = 0  # next task index to yield
        self._task_info: dict = {}  # task index -> (worker_id,) while pending, (worker_id, message) when arrived
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._worker_queue_idx_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            if self._pool.closed:  # a fatal error ended the previous epoch: start afresh
                self._base_seed = draw_seed(loader.generator)
                self._start_pool()
            else:
                for q in self._pool.index_queues:
                    q.put(ResumeIteration())
                waiting = self._num_workers
                while waiting > 0:
                    kind, _, _ = self._get_message()  # stale batches of the previous epoch are dropped
                    if kind == "resumed":
                        waiting -= 1
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self) -> None:
        self._pool.flush_releases()
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            wid = next(self._worker_queue_idx_cycle)
            if self._workers_status[wid]:
                break
        else:
            return  # every worker has finished its IterableDataset
        self._pool.index_queues[wid].put((self._send_idx, index))
        self._task_info[self._send_idx] = (wid,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _get_message(self):
        """The next message from any worker; RuntimeError on timeout or when a worker died."""
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            wait = 5.0 if deadline is None else max(0.0, min(5.0, deadline - time.monotonic()))
            msg = self._pool.get(wait)
            if msg is not None:
                return msg
            if deadline is not None and time.monotonic() >= deadline:
                self._fail()
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")

    def _fail(self) -> None:
        """A fatal condition: stop the workers (they are restarted on the next epoch if persistent)."""
        if self._finalizer is not None:
            self._finalizer()

    def _next_data(self):
        if self._pool.closed:
            raise StopIteration if self._rcvd_idx >= self._send_idx else RuntimeError(
                "DataLoader: this iterator's workers were shut down after an error; start a new iteration")
        while True:
            while self._rcvd_idx < self._send_idx:
                info = self._task_info.get(self._rcvd_idx)
                if info is not None:
                    wid = info[0]
                    if len(info) == 2 or self._workers_status[wid]:
                        break
                    del self._task_info[self._rcvd_idx]  # its worker ended its IterableDataset
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._fail()
                raise StopIteration

            if len(self._task_info[self._rcvd_idx]) == 2:
                msg = self._task_info.pop(self._rcvd_idx)[1]
                self._rcvd_idx += 1
                return self._process(msg)

            try:
                msg = self._get_message()
            except BaseException:
                self._fail()
                raise
            kind, idx, payload = msg
            if kind == "resumed":
                continue
            if idx is None:  # an error not tied to a task (the pin-memory thread)
                self._fail()
                payload.reraise()
            self._tasks_outstanding -= 1
            if kind == "stop":
                self._workers_status[payload] = False
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                if idx in self._task_info:
                    self._task_info[idx] += (msg,)
                continue
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process(msg)

    def _process(self, msg):
        kind, _, payload = msg
        self._try_put_index()
        if kind == "error":
            # An exception the dataset or collate_fn raised in a worker: the worker lives on and the
            # iteration may go on with the next batch, as PyTorch's (a loop that skips bad batches).
            self._worker_exception = True
            payload.reraise()
        return payload

    def __next__(self):
        self._worker_exception = False
        try:
            return super().__next__()
        except StopIteration:
            raise
        except BaseException:
            # Anything else that went wrong (the sampler, Ctrl-C): a non-persistent iterator is
            # finished, so its workers go now rather than when it is collected.
            if not self._persistent_workers and not self._worker_exception:
                self._fail()
            raise

    def _shutdown_workers(self) -> None:
        self._fail()

    def __del__(self):
        # weakref.finalize also covers this; calling it here keeps shutdown prompt and ordered.
        fin = getattr(self, "_finalizer", None)
        if fin is not None:
            fin()
