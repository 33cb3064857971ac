"""Datasets and leak checks shared by the DataLoader tests (importable, so ``spawn`` workers find them)."""

from __future__ import annotations

import os
import time

import numpy as np

from tensorlab.utils.data import Dataset, IterableDataset, get_worker_info


class ArrayDataset(Dataset):
    """Sample i: (float32 array of ``shape`` filled with i, i). Large enough to travel through shm."""

    def __init__(self, n: int = 40, shape=(16, 32)):
        self.n, self.shape = n, shape

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return np.full(self.shape, i, dtype=np.float32), i


class RandomDataset(Dataset):
    """Sample i: draws from numpy's global generator, Python's random and tensorlab's default one."""

    def __init__(self, n: int = 12):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        import random

        import tensorlab as tl

        info = get_worker_info()
        return {
            "i": i,
            "np": float(np.random.random()),  # noqa: NPY002 - the worker seeds the legacy global generator
            "py": random.random(),
            "tl": float(tl.rand(1).item()),
            "worker": -1 if info is None else info.id,
            "seed": -1 if info is None else info.seed,
        }


class RangeIterable(IterableDataset):
    """0..n-1, split between workers by get_worker_info() (the user's job, as in PyTorch)."""

    def __init__(self, n: int):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))

    def __len__(self):
        return self.n


class SlowDataset(Dataset):
    def __init__(self, n: int = 8, delay: float = 0.05):
        self.n, self.delay = n, delay

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.delay)
        return i


# ----------------------------------------------------------------------------------------------
# leak checks
# ----------------------------------------------------------------------------------------------


def shm_entries(pid: int | None = None) -> list[str]:
    """Shared-memory segments created by DataLoaders of process ``pid`` (default: this one)."""
    prefix = f"tl{os.getpid() if pid is None else pid}_"
    try:
        return sorted(n for n in os.listdir("/dev/shm") if n.startswith(prefix))
    except FileNotFoundError:
        return []


def _stat(pid: int):
    try:
        with open(f"/proc/{pid}/stat") as f:
            data = f.read()
    except (FileNotFoundError, ProcessLookupError):
        return None
    # "pid (comm) state ppid ...": comm may contain spaces; split after the last ')'
    rest = data[data.rindex(")") + 2:].split()
    return rest[0], int(rest[1])


def child_pids(pid: int | None = None) -> list[int]:
    """Live (not zombie) children of ``pid`` (default: this process), read from /proc."""
    me = os.getpid() if pid is None else pid
    out = []
    # multiprocessing's resource tracker (started by 'spawn' contexts) lives for the whole session.
    from multiprocessing import resource_tracker

    tracker = getattr(resource_tracker._resource_tracker, "_pid", None)
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = _stat(int(name))
            if st is not None and st[1] == me and st[0] != "Z" and int(name) != tracker:
                out.append(int(name))
    return out


def is_running(pid: int) -> bool:
    st = _stat(pid)
    return st is not None and st[0] != "Z"


def wait_until(cond, timeout: float = 5.0, interval: float = 0.02) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(interval)
    return cond()


def assert_no_leaks(timeout: float = 5.0) -> None:
    """No live child process and no DataLoader shm segment of this process (after ``timeout``)."""
    ok = wait_until(lambda: not child_pids() and not shm_entries(), timeout)
    assert ok, f"leaked: child processes {child_pids()}, shm segments {shm_entries()}"
