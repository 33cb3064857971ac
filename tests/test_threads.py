"""tensorlab from several Python threads: the state PyTorch keeps per thread is per thread here
(autocast, the default device, saved-tensor hooks, the engine's call stack, load_state_dict's
pending writes), and gradients accumulated by threads at once all arrive.

The interleavings that matter are forced with events where they can be (a hook that waits for the
other thread), so those tests fail every time without the fix; the accumulation races are run
many times with a tiny switch interval."""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import tensorlab as tl


def _run_threads(targets, timeout: float = 120.0) -> None:
    """Start a thread per callable, join them, and re-raise the first exception any raised."""
    errors = []

    def wrap(fn):
        def run():
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 (handed to the main thread)
                errors.append(e)

        return run

    threads = [threading.Thread(target=wrap(fn)) for fn in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
        assert not t.is_alive(), "a thread hung"
    if errors:
        raise errors[0]


@pytest.fixture
def fast_switching():
    """Switch threads every microsecond, so a read-modify-write race shows up within a few runs."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


def test_concurrent_backward_into_a_shared_leaf_adds_every_gradient(fast_switching):
    # the first accumulation into a .grad that is None read it, then set it: two threads could both
    # see None and one gradient was lost (about 1 run in 20 with 8 threads)
    n_threads, calls = 8, 3
    for _ in range(40):
        w = tl.ones(3, requires_grad=True)
        barrier = threading.Barrier(n_threads)

        def work(w=w, barrier=barrier):
            barrier.wait()
            for _ in range(calls):
                (w * 1).sum().backward()

        _run_threads([work] * n_threads)
        np.testing.assert_array_equal(w.grad.numpy(), [n_threads * calls] * 3)


def test_concurrent_backward_into_a_retained_non_leaf_adds_every_gradient(fast_switching):
    n_threads, calls = 8, 3
    for _ in range(20):
        w = tl.ones(2, requires_grad=True)
        h = w * 2
        h.retain_grad()
        y = (h * 3).sum()
        barrier = threading.Barrier(n_threads)

        def work(y=y, barrier=barrier):
            barrier.wait()
            for _ in range(calls):
                y.backward(retain_graph=True)

        _run_threads([work] * n_threads)
        np.testing.assert_array_equal(h.grad.numpy(), [3.0 * n_threads * calls] * 2)
        np.testing.assert_array_equal(w.grad.numpy(), [6.0 * n_threads * calls] * 2)


def test_autocast_is_per_thread():
    seen = []
    a = tl.ones(2, 2)
    with tl.autocast("cpu"):
        _run_threads([lambda: seen.append((tl.is_autocast_enabled("cpu"), (a @ a).dtype))])
        assert (a @ a).dtype == tl.bfloat16
    assert seen == [(False, tl.float32)]


def test_autocast_regions_overlapping_in_two_threads_leave_it_off():
    # A enters, B enters, A exits, B exits: with one global state A's exit restored "off" under B's
    # region and B's exit restored A's "on" for good
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}
    x = tl.ones(2, 2)

    def thread_a():
        with tl.autocast("cpu"):
            a_in.set()
            b_in.wait(30)
        a_out.set()
        seen["a after"] = (x @ x).dtype

    def thread_b():
        a_in.wait(30)
        with tl.autocast("cpu"):
            b_in.set()
            a_out.wait(30)
            seen["b inside"] = (x @ x).dtype
        seen["b after"] = (x @ x).dtype

    _run_threads([thread_a, thread_b])
    assert seen == {"a after": tl.float32, "b inside": tl.bfloat16, "b after": tl.float32}
    assert not tl.is_autocast_enabled("cpu") and (x @ x).dtype == tl.float32


def test_backward_in_one_thread_leaves_another_threads_autocast_alone():
    # the backward pass suspends autocast; that suspension must not reach a thread inside a region
    inside, backward_done = threading.Event(), threading.Event()
    seen = []
    x = tl.ones(2, 2)

    def autocasting():
        with tl.autocast("cpu"):
            inside.set()
            backward_done.wait(30)
            seen.append((x @ x).dtype)

    def training():
        inside.wait(30)
        w = tl.ones(2, 2, requires_grad=True)
        (w @ w).sum().backward()
        seen.append((w @ w).dtype)
        backward_done.set()

    _run_threads([autocasting, training])
    assert sorted(map(str, seen)) == ["tensorlab.bfloat16", "tensorlab.float32"]


def test_default_device_is_per_thread():
    seen = []
    tl.set_default_device("cuda")
    try:
        _run_threads([lambda: seen.append(tl.zeros(1).device.type)])
        assert tl.zeros(1).device.type == "cuda"
    finally:
        tl.set_default_device(None)

    def worker():
        tl.set_default_device("cuda")
        seen.append(tl.zeros(1).device.type)

    _run_threads([worker])
    assert seen == ["cpu", "cuda"] and tl.zeros(1).device.type == "cpu"  # the worker's default stayed there
    with tl.device("cuda"):
        _run_threads([lambda: seen.append(tl.zeros(1).device.type)])
    assert seen[-1] == "cpu"


def test_saved_tensors_hooks_are_per_thread():
    packed, hooks_open, done = [], threading.Event(), threading.Event()

    def hooking():
        with tl.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
            hooks_open.set()
            done.wait(30)

    def other():
        hooks_open.wait(30)
        x = tl.ones(3, requires_grad=True)
        (x * x).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [2.0] * 3)
        done.set()

    _run_threads([hooking, other])
    assert packed == []  # the other thread's tensors were not packed by this thread's hooks

    disabled, done = threading.Event(), threading.Event()

    def disabling():
        with tl.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            disabled.set()
            done.wait(30)

    def opening():
        disabled.wait(30)
        try:
            with tl.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
        finally:
            done.set()

    _run_threads([disabling, opening])


def test_reentrant_checkpoint_while_another_thread_runs_autograd_grad():
    # the engine's list of user-level calls is per thread: another thread's autograd.grad does not
    # make this thread's reentrant checkpoint refuse to recompute
    from tensorlab.utils.checkpoint import checkpoint

    in_grad, done = threading.Event(), threading.Event()

    def grad_caller():
        w = tl.ones(2, requires_grad=True)
        y = (w * 2).sum()
        y.grad_fn.register_hook(lambda gi, go: (in_grad.set(), done.wait(30)) and None)
        (g,) = tl.autograd.grad(y, [w])
        np.testing.assert_array_equal(g.numpy(), [2.0, 2.0])

    def checkpointing():
        in_grad.wait(30)
        try:
            x = tl.ones(2, requires_grad=True)
            checkpoint(lambda t: (t * 3).exp(), x, use_reentrant=True).sum().backward()
            np.testing.assert_allclose(x.grad.numpy(), [3 * np.exp(3.0)] * 2, rtol=1e-6)
        finally:
            done.set()

    _run_threads([grad_caller, checkpointing])


def test_load_state_dict_in_two_threads_at_once_loads_both():
    # load_state_dict collects its writes before making them; with one global stack of pending
    # writes, A's writes went to B's list (and were popped with it), so A was never loaded
    a, b = tl.nn.Linear(2, 2), tl.nn.Linear(2, 2)
    want_a = {k: tl.full_like(v, 1.0) for k, v in a.state_dict().items()}
    want_b = {k: tl.full_like(v, 2.0) for k, v in b.state_dict().items()}
    b_started, a_done = threading.Event(), threading.Event()
    a.register_load_state_dict_pre_hook(lambda *args: b_started.wait(30) and None)
    b.register_load_state_dict_pre_hook(lambda *args: (b_started.set(), a_done.wait(30)) and None)

    def load_a():
        try:
            a.load_state_dict(want_a)
        finally:
            a_done.set()

    _run_threads([load_a, lambda: b.load_state_dict(want_b)])
    for model, value in ((a, 1.0), (b, 2.0)):
        for v in model.state_dict().values():
            np.testing.assert_array_equal(v.numpy(), np.full(v.shape, value, np.float32))


def test_cuda_ops_from_several_threads_at_once(fast_switching):
    # (in the interpreter: its launches patch triton.language while they run, so they take turns)
    barrier = threading.Barrier(4)
    results = {}

    def work(i):
        def run():
            barrier.wait()
            for j in range(3):
                x = tl.arange(6.0, device="cuda") * (i + 1)
                results[i, j] = x.exp().sum().item()

        return run

    _run_threads([work(i) for i in range(4)])
    for (i, _), value in results.items():
        assert value == pytest.approx(np.exp(np.arange(6.0) * (i + 1)).sum(), rel=1e-5)
    assert len(results) == 12
