"""DataLoader faults: worker exceptions, killed workers, timeouts, and cleanup (no live worker
process and no shared-memory segment left) after break / del / gc / errors / main-process death."""

from __future__ import annotations

import gc
import json
import os
import pickle
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.utils.data import DataLoader, Dataset

from .data_helpers import ArrayDataset, SlowDataset, assert_no_leaks, child_pids, is_running, shm_entries, wait_until

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="checks /proc and /dev/shm (Linux)")


@pytest.fixture(autouse=True)
def no_leaks():
    yield
    gc.collect()
    assert_no_leaks()


class Failing(Dataset):
    def __init__(self, bad: int, exc=ValueError):
        self.bad, self.exc = bad, exc

    def __len__(self):
        return 20

    def __getitem__(self, i):
        if i == self.bad:
            raise self.exc(f"sample {i} is broken")
        return np.full((32, 32), i, np.float32)


class MyError(Exception):
    pass


class NeedsTwoArgs(Exception):
    def __init__(self, a, b):
        super().__init__(a, b)


# ----------------------------------------------------------------------------------------------
# exceptions in workers
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("exc", [ValueError, KeyError, IndexError, MyError])
def test_worker_exception_type_and_traceback(exc):
    with pytest.raises(exc) as info:
        for _ in DataLoader(Failing(9, exc), batch_size=4, num_workers=2):
            pass
    msg = str(info.value)
    assert "Caught " + exc.__name__ + " in DataLoader worker process 0" in msg  # batch 2 (indices 8..11) -> worker 0
    assert "Traceback (most recent call last)" in msg
    assert "sample 9 is broken" in msg
    assert "__getitem__" in msg  # the worker's frames are in the text


def test_worker_exception_through_pin_memory_thread():
    if not tl.cuda.is_available():
        pytest.skip("pin_memory needs the cuda device (real or interpreted)")
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process 0") as info:
        for _ in DataLoader(Failing(9, KeyError), batch_size=4, num_workers=2, pin_memory=True):
            pass
    assert "sample 9 is broken" in str(info.value)


def test_worker_exception_whose_type_cannot_be_rebuilt_becomes_runtime_error():
    class Local(Exception):  # not importable: cannot cross the process boundary by reference
        pass

    def bad_collate(batch):
        raise NeedsTwoArgs("x", "y")

    with pytest.raises(RuntimeError, match="Caught NeedsTwoArgs in DataLoader worker process"):
        list(DataLoader(ArrayDataset(4), batch_size=2, num_workers=1, collate_fn=bad_collate))

    def local_collate(batch):
        raise Local("only here")

    with pytest.raises(RuntimeError, match="could not be pickled") as info:
        list(DataLoader(ArrayDataset(4), batch_size=2, num_workers=1, collate_fn=local_collate))
    assert "only here" in str(info.value)


def test_worker_init_fn_exception():
    def init(worker_id):
        if worker_id == 1:
            raise MyError(f"init of worker {worker_id} failed")

    with pytest.raises(MyError, match="init of worker 1 failed") as info:
        list(DataLoader(ArrayDataset(8), batch_size=2, num_workers=2, worker_init_fn=init))
    assert "in DataLoader worker process 1" in str(info.value)
    assert "worker_init_fn" in str(info.value) or "in init" in str(info.value)


def test_unpicklable_batch_is_reported():
    # The pickling error's own type (AttributeError or PicklingError, by Python version) comes back.
    with pytest.raises((AttributeError, pickle.PicklingError, TypeError),
                       match="while sending the batch to the main process") as info:
        list(DataLoader(ArrayDataset(4), batch_size=2, num_workers=1, collate_fn=lambda b: (lambda: 0)))
    assert "pickle" in str(info.value).lower()


def test_cuda_tensor_in_worker_is_an_error():
    if not tl.cuda.is_available():
        pytest.skip("needs the cuda device (real or interpreted) to build a cuda tensor")

    def collate(batch):
        import tensorlab

        return tensorlab.empty(2048, device="cuda")

    # The worker never gets to create it when forked from a process holding a real context, but
    # either way the batch must not reach the main process as a cuda tensor.
    with pytest.raises(RuntimeError, match="Workers must not use CUDA|DataLoader worker"):
        list(DataLoader(ArrayDataset(2), batch_size=2, num_workers=1, collate_fn=collate))


def test_iteration_goes_on_after_a_worker_exception():
    # As PyTorch: the exception reaches the caller, the worker lives on, and the next call returns
    # the next batch (a loop that skips bad batches); the workers stop when the iteration ends.
    it = iter(DataLoader(Failing(3), batch_size=2, num_workers=2))
    pids = [w.pid for w in it._pool.workers]
    batches = []
    while True:
        try:
            batches.append(int(next(it)[0, 0, 0]))
        except ValueError as e:
            assert "sample 3 is broken" in str(e)
            batches.append(None)
        except StopIteration:
            break
    assert batches == [0, None, 4, 6, 8, 10, 12, 14, 16, 18]
    assert not any(is_running(p) for p in pids)  # (the end of the iteration stopped them)
    assert shm_entries() == []
    it = iter(DataLoader(Failing(0), batch_size=2, num_workers=2))
    pids = [w.pid for w in it._pool.workers]
    with pytest.raises(ValueError):
        next(it)
    del it  # an abandoned iteration stops its workers when it is collected
    gc.collect()
    assert wait_until(lambda: not any(is_running(p) for p in pids))


def test_persistent_workers_survive_a_sample_error():
    class FailAt1(Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 1:
                raise MyError("sample 1")
            return i

    dl = DataLoader(FailAt1(), batch_size=2, num_workers=1, persistent_workers=True)
    with pytest.raises(MyError):
        list(dl)
    pids = [w.pid for w in dl._iterator._pool.workers]
    assert all(is_running(p) for p in pids)
    # the same workers serve the next epoch (and report the same error)
    with pytest.raises(MyError):
        list(dl)
    assert [w.pid for w in dl._iterator._pool.workers] == pids
    del dl
    gc.collect()


# ----------------------------------------------------------------------------------------------
# dead workers and timeouts
# ----------------------------------------------------------------------------------------------


class SelfKill(Dataset):
    def __init__(self, at: int, sig=signal.SIGKILL):
        self.at, self.sig = at, sig

    def __len__(self):
        return 40

    def __getitem__(self, i):
        if i == self.at:
            import faulthandler

            faulthandler.disable()  # pytest's handler would print this worker's stack on SIGSEGV
            os.kill(os.getpid(), self.sig)
            time.sleep(10)
        return np.zeros((16, 16), np.float32)


@pytest.mark.parametrize("sig, name", [(signal.SIGKILL, "SIGKILL"), (signal.SIGSEGV, "SIGSEGV"),
                                       (signal.SIGTERM, "SIGTERM")])
def test_worker_killed_by_signal(sig, name):
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=rf"DataLoader worker \(pid \d+\) is killed by signal: .*{name}"):
        for _ in DataLoader(SelfKill(13, sig), batch_size=4, num_workers=2):
            pass
    assert time.monotonic() - t0 < 5.0


@pytest.mark.parametrize("pin", [False, True])
def test_worker_killed_from_outside_while_main_waits(pin):
    if pin and not tl.cuda.is_available():
        pytest.skip("pin_memory needs the cuda device (real or interpreted)")
    it = iter(DataLoader(SlowDataset(40, delay=0.2), batch_size=2, num_workers=2, pin_memory=pin))
    assert (it._pool.pin_thread is not None) == pin
    victim = it._pool.workers[0].pid
    t0 = time.monotonic()
    os.kill(victim, signal.SIGKILL)
    with pytest.raises(RuntimeError, match=rf"pid {victim}\) is killed by signal: .*SIGKILL"):
        for _ in it:
            pass
    assert time.monotonic() - t0 < 5.0
    del it


def test_worker_exit_is_reported():
    class Exit(Dataset):
        def __len__(self):
            return 8

        def __getitem__(self, i):
            os._exit(3)

    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid \d+\) exited unexpectedly with exit code 3"):
        list(DataLoader(Exit(), batch_size=2, num_workers=1))


@pytest.mark.parametrize("pin", [False, True])
def test_timeout(pin):
    if pin and not tl.cuda.is_available():
        pytest.skip("pin_memory needs the cuda device (real or interpreted)")
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.2 seconds"):
        list(DataLoader(SlowDataset(8, delay=1.0), batch_size=1, num_workers=1, timeout=0.2, pin_memory=pin))
    assert time.monotonic() - t0 < 4.0


def test_timeout_needs_workers():
    # PyTorch's single-process iterator asserts timeout == 0; a timeout that could never apply is an error
    with pytest.raises(ValueError, match="timeout=1 .* needs num_workers > 0"):
        iter(DataLoader(SlowDataset(2, delay=0.0), timeout=1))


def test_timeout_not_hit_when_batches_arrive():
    assert [b.tolist() for b in DataLoader(SlowDataset(4, delay=0.01), batch_size=2, num_workers=2, timeout=5)] == \
        [[0, 1], [2, 3]]


# ----------------------------------------------------------------------------------------------
# cleanup: break, del, gc, exhaustion
# ----------------------------------------------------------------------------------------------


def _big(n=64):
    return ArrayDataset(n, (64, 64))  # 16 KiB samples: every batch is a shm segment


def test_break_leaves_nothing():
    dl = DataLoader(_big(), batch_size=4, num_workers=2, prefetch_factor=4)
    for i, _ in enumerate(dl):
        if i == 1:
            break
    # the iterator was the for loop's temporary: gone now, and its workers and segments with it
    assert wait_until(lambda: not child_pids() and not shm_entries(), 3.0), (child_pids(), shm_entries())


def test_del_iterator_leaves_nothing():
    it = iter(DataLoader(_big(), batch_size=4, num_workers=2, prefetch_factor=4))
    next(it)
    time.sleep(0.2)  # let the workers fill the pipes with prefetched batches (segments not yet mapped)
    assert child_pids()
    del it
    assert wait_until(lambda: not child_pids() and not shm_entries(), 3.0), (child_pids(), shm_entries())


def test_gc_of_iterator_in_a_cycle_leaves_nothing():
    it = iter(DataLoader(_big(), batch_size=4, num_workers=2))
    next(it)
    holder = {"it": it}
    holder["self"] = holder  # a reference cycle: only the cyclic collector frees it
    it.cycle = holder
    del it, holder
    gc.collect()
    assert wait_until(lambda: not child_pids() and not shm_entries(), 3.0), (child_pids(), shm_entries())


def test_exhausted_iterator_stops_workers():
    it = iter(DataLoader(_big(16), batch_size=4, num_workers=2))
    pids = [w.pid for w in it._pool.workers]
    assert len(list(it)) == 4
    assert not any(is_running(p) for p in pids)


def test_slow_worker_is_terminated_on_break():
    # A worker busy in a long __getitem__ cannot read its stop message: shutdown must still end it.
    dl = DataLoader(SlowDataset(10, delay=3.0), batch_size=1, num_workers=2, timeout=10)
    it = iter(dl)
    pids = [w.pid for w in it._pool.workers]
    t0 = time.monotonic()
    del it
    assert time.monotonic() - t0 < 5.0
    assert not any(is_running(p) for p in pids)


# ----------------------------------------------------------------------------------------------
# the main process dies
# ----------------------------------------------------------------------------------------------

_ORPHAN_SCRIPT = textwrap.dedent("""
    import json, os, signal, sys, time
    import numpy as np
    from tensorlab.utils.data import DataLoader, Dataset

    class DS(Dataset):
        def __len__(self):
            return 1000

        def __getitem__(self, i):
            return np.zeros((64, 64), np.float32)

    it = iter(DataLoader(DS(), batch_size=4, num_workers=2, prefetch_factor=4))
    next(it)
    time.sleep(0.3)  # prefetched batches now sit in segments the main process will never map
    print(json.dumps({"pid": os.getpid(), "workers": [w.pid for w in it._pool.workers]}), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")


def test_workers_exit_when_main_process_dies():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.getcwd(), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", _ORPHAN_SCRIPT], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    info = json.loads(proc.stdout.strip().splitlines()[-1])
    workers = info["workers"]
    assert len(workers) == 2
    assert wait_until(lambda: not any(is_running(p) for p in workers), 5.0), "orphaned workers did not exit"
    # and they removed the segments they had sent to the dead main process
    assert wait_until(lambda: not shm_entries(info["pid"]), 3.0), shm_entries(info["pid"])
