"""The device runtime: caching allocator, OOM handling, streams/events, pinned memory, the
interpreter protocol, debug logging, and a torch-free process.

Tests marked ``gpu`` exercise the real allocator, streams, events and pinned copies; they are
skipped when cuda is interpreted.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorlab as tl
from tensorlab_kernels import runtime as rt
from tensorlab_kernels.runtime.allocator import CachingAllocator, size_class
from tensorlab_kernels.runtime.backend_interpret import InterpretedBackend

needs_cuda = pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_size_classes():
    assert size_class(1) == 512 and size_class(512) == 512 and size_class(513) == 1024
    assert size_class((1 << 20) - 1) == 1 << 20
    mib = 1 << 20
    assert size_class(mib + 1) == mib + mib // 4
    assert size_class(3 * mib) == 3 * mib
    assert size_class(5 * mib) == 5 * mib and size_class(5 * mib + 1) == 6 * mib
    for n in [1, 1000, 123456, 7 * mib + 5, 1 << 30]:
        assert n <= size_class(n) <= max(512, n * 1.25 + 512)


def _allocator(limit=None):
    backend = InterpretedBackend()
    backend.memory_limit = limit
    return backend, CachingAllocator(backend, 0)


def test_allocator_reuses_freed_blocks_per_stream():
    backend, alloc = _allocator()
    a = alloc.allocate(1000, stream=0)
    ptr = a.ptr
    assert alloc.allocated == 1024 and alloc.reserved == 1024
    del a
    assert alloc.allocated == 0 and alloc.reserved == 1024  # cached, not freed
    b = alloc.allocate(900, stream=0)
    assert b.ptr == ptr and alloc.reserved == 1024  # same size class on the same stream: reused
    c = alloc.allocate(900, stream=7)
    assert c.ptr != ptr  # another stream does not take it
    del b
    d = alloc.allocate(900, stream=7)
    assert d.ptr != ptr  # freed on stream 0, so still not for stream 7
    assert alloc.peak_allocated == 2048
    del c, d
    alloc.empty_cache()
    assert alloc.reserved == 0 and backend.in_use == 0
    alloc.reset_peak_stats()
    assert alloc.peak_allocated == 0


def test_allocator_oom_frees_cache_then_raises_and_keeps_tensors():
    backend, alloc = _allocator(limit=8192)
    keep = alloc.allocate(4096)
    keep.host[:] = 7
    cached = alloc.allocate(3000)
    del cached  # 3072 cached
    big = alloc.allocate(4096)  # needs the cache released: retried after empty_cache
    assert alloc.num_alloc_retries == 1
    with pytest.raises(tl.OutOfMemoryError, match=r"tried to allocate 1\.00 KiB \(1024 bytes\); 8\.00 KiB") as exc:
        alloc.allocate(1024)
    assert isinstance(exc.value, RuntimeError)
    assert (keep.host == 7).all()  # existing memory is untouched
    assert alloc.allocated == 8192 and alloc.num_ooms == 1
    del big


@needs_cuda
def test_tensor_allocation_stats():
    tl.cuda.empty_cache()
    base = tl.cuda.memory_allocated()
    x = tl.empty(1024, 1024, device="cuda")  # 4 MiB
    assert tl.cuda.memory_allocated() - base == 4 << 20
    assert tl.cuda.max_memory_allocated() >= tl.cuda.memory_allocated()
    reserved = tl.cuda.memory_reserved()
    del x
    assert tl.cuda.memory_allocated() == base
    assert tl.cuda.memory_reserved() == reserved  # cached
    tl.cuda.empty_cache()
    assert tl.cuda.memory_reserved() < reserved
    tl.cuda.reset_peak_memory_stats()
    assert tl.cuda.max_memory_allocated() == tl.cuda.memory_allocated()
    stats = tl.cuda.memory_stats()
    assert stats["allocated_bytes.all.current"] == tl.cuda.memory_allocated()


def test_memory_summary_reset_max_memory_allocated_ipc_collect():
    # OOM-debugging and cleanup code calls these; they were AttributeError
    x = tl.empty(1024, device="cuda")
    summary = tl.cuda.memory_summary()
    assert "allocated_bytes.all.current" in summary and f"{tl.cuda.memory_allocated():,}" in summary
    del x
    with pytest.warns(FutureWarning, match="reset_max_memory_allocated now calls .*reset_peak_memory_stats"):
        tl.cuda.reset_max_memory_allocated()
    assert tl.cuda.max_memory_allocated() == tl.cuda.memory_allocated()
    assert tl.cuda.ipc_collect() is None


@pytest.mark.skipif(not tl.cuda.is_interpreted(), reason="simulates a memory limit on the interpreted device")
def test_tensor_oom_on_interpreted_device():
    backend = rt.get_backend()
    keep = tl.full((1000,), 3.0, device="cuda")
    old = backend.memory_limit
    backend.memory_limit = backend.in_use + 4096
    try:
        with pytest.raises(tl.OutOfMemoryError, match="tried to allocate"):
            tl.empty(1 << 20, device="cuda")
        with pytest.raises(tl.cuda.OutOfMemoryError):
            tl.ones(1 << 20, device="cuda")
    finally:
        backend.memory_limit = old
    assert keep.tolist() == [3.0] * 1000


@needs_cuda
def test_streams_and_events_api():
    s = tl.cuda.Stream()
    assert s.device == tl.device("cuda:0")
    assert tl.cuda.current_stream() == tl.cuda.default_stream()
    with tl.cuda.stream(s):
        assert tl.cuda.current_stream() == s
        x = tl.ones(100, device="cuda")
        ev = tl.cuda.Event()
        ev.record()
    assert tl.cuda.current_stream() == tl.cuda.default_stream()
    tl.cuda.current_stream().wait_event(ev)
    ev.synchronize()
    assert ev.query() and s.query()
    start, end = tl.cuda.Event(enable_timing=True), tl.cuda.Event(enable_timing=True)
    start.record()
    x.fill_(2)
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) >= 0.0
    with pytest.raises(RuntimeError, match="enable_timing"):
        tl.cuda.Event().elapsed_time(tl.cuda.Event())
    tl.cuda.synchronize()
    assert x.tolist()[:2] == [2.0, 2.0]


@needs_cuda
def test_device_queries():
    assert tl.cuda.device_count() >= 1 and tl.cuda.current_device() == 0
    assert isinstance(tl.cuda.get_device_name(), str)
    major, minor = tl.cuda.get_device_capability()
    assert major >= 7
    props = tl.cuda.get_device_properties(0)
    assert props.total_memory > 0
    free, total = tl.cuda.mem_get_info()
    assert 0 <= free <= total
    with tl.cuda.device(0):
        assert tl.cuda.current_device() == 0


@needs_cuda
def test_pinned_memory_and_async_copies():
    a = tl.arange(1000, dtype=tl.float32)
    p = a.pin_memory()
    assert p.is_pinned() and not a.is_pinned() and p.pin_memory() is p
    c = p.to("cuda", non_blocking=True)
    tl.cuda.synchronize()
    np.testing.assert_array_equal(c.cpu().numpy(), a.numpy())
    with pytest.raises(RuntimeError, match="only cpu tensors can be pinned"):
        c.pin_memory()
    assert tl.empty(3, pin_memory=True).is_pinned()


@needs_cuda
def test_interpreter_protocol_on_device_arrays():
    t = tl.arange(10, dtype=tl.float32, device="cuda")[2:8:2]
    arr = t._device_array()
    assert arr.data_ptr() == t.data_ptr()
    assert arr.size() == (3,) and arr.stride() == (2,) and arr.storage_offset() == 2
    assert str(arr.dtype) == "float32"
    assert arr.untyped_storage().data_ptr() == t._storage.data.ptr


@needs_cuda
def test_launched_memory_is_freed_without_gc():
    # (in the interpreter: it keeps a launch's storages in recursive closures, a reference cycle;
    # handed the allocations themselves, every launched output stayed allocated until gc ran)
    import gc

    x = tl.ones(64, 96, device="cuda")
    enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        base = tl.cuda.memory_allocated()
        for _ in range(3):
            y = (x + 1).exp()
            del y
        assert tl.cuda.memory_allocated() == base
    finally:
        if enabled:
            gc.enable()


@needs_cuda
def test_interpreted_kernels_warn_no_more_than_the_gpu():
    # the interpreter computes with numpy, which warns where a GPU quietly gives inf/nan: x / 0,
    # log(0), an overflowing cast (launch.launch silences numpy's floating-point warnings there)
    import warnings

    x = tl.tensor([1.0, 0.0, -1.0], device="cuda")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert (x / 0).tolist()[0] == float("inf") and tl.log(x).tolist()[1] == float("-inf")
        assert tl.tensor([1e30], device="cuda").to(tl.float16).tolist() == [float("inf")]
        assert np.isnan((x * float("inf")).tolist()[1])


@needs_cuda
def test_interpreted_bfloat16_rounds_as_the_gpu():
    # Triton's interpreter truncates float32 -> bfloat16; the GPU (cvt.rn.bf16.f32), PyTorch and the
    # cpu twins round to nearest even (tensorlab_kernels/interpreter_fixes.py)
    import ml_dtypes

    rng = np.random.default_rng(0)
    ties = [1 + 2**-8, 1 + 3 * 2**-8, -(1 + 2**-8)]  # halfway: to the even neighbour (1.0, 1 + 2**-6)
    x = np.concatenate([rng.standard_normal(200), ties, [0.1, 3.4e38, np.inf, np.nan]]).astype(np.float32)
    want = x.astype(ml_dtypes.bfloat16).astype(np.float32)
    got = tl.tensor(x, device="cuda").to(tl.bfloat16).cpu().numpy().astype(np.float32)
    np.testing.assert_array_equal(got, want)
    assert got[200:203].tolist() == [1.0, 1 + 2**-6, -1.0]
    # a kernel's own float32 -> bf16 store: exp computed in float32, stored as bf16, as on cpu
    h = tl.tensor(x[:200], device="cuda").to(tl.bfloat16)
    np.testing.assert_array_equal(tl.exp(h).cpu().numpy().astype(np.float32),
                                  tl.exp(h.cpu()).numpy().astype(np.float32))



@needs_cuda
def test_bfloat16_subnormals_widen_exactly():
    # bf16 -> float32/float64 is exact (the bf16 bits are the float32's high half); Triton's
    # interpreter rebuilt subnormals wrongly (1e-39 -> 4.4e-39, 9.2e-41 -> 0): fixed in
    # tensorlab_kernels/interpreter_fixes.py, so kernels that upcast bf16 agree with the GPU and cpu
    import ml_dtypes

    x = np.array([1e-39, 9.2e-41, -3e-40, 2**-133, 1.0, -0.0, 3e38, np.inf, np.nan], np.float32)
    b = x.astype(ml_dtypes.bfloat16)
    want = b.astype(np.float32)
    t = tl.tensor(b, device="cuda")
    np.testing.assert_array_equal(t.float().cpu().numpy(), want)
    np.testing.assert_array_equal(t.double().cpu().numpy(), want.astype(np.float64))
    assert tl.ceil(t).cpu().float().tolist()[:4] == [1.0, 1.0, -0.0, 1.0]
    np.testing.assert_array_equal(tl.log(t[:2]).cpu().numpy(), tl.log(t[:2].cpu()).numpy())

def test_debug_logging_names_op_and_launch():
    code = textwrap.dedent(
        """
        import os, sys
        os.environ.setdefault("TRITON_INTERPRET", "1")
        import tensorlab as tl
        x = tl.arange(6, dtype=tl.float32).view(2, 3)
        y = x.t().contiguous()
        if tl.cuda.is_available():
            z = x.to("cuda").t().contiguous()
        """
    )
    env = dict(os.environ, TENSORLAB_DEBUG="1", PYTHONPATH=REPO)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "clone device=cpu impl=tensorlab_kernels.copy.strided_copy_twin inputs=(int64[3, 2])" not in out.stderr
    assert "clone device=cpu impl=tensorlab_kernels.copy.strided_copy_twin inputs=(float32[3, 2])" in out.stderr
    assert "transpose view [2, 3] -> [3, 2]" in out.stderr
    if "TRITON_INTERPRET" in os.environ or tl.cuda.is_available():
        assert "launch _strided_copy_kernel grid=" in out.stderr and "'BLOCK'" in out.stderr


def test_no_torch_imported_after_running_ops():
    code = textwrap.dedent(
        """
        import os, sys
        import tensorlab as tl
        x = tl.randn(4, 5)
        y = x.t().contiguous().to(tl.float16).to(tl.float64)
        z = tl.arange(10).reshape(2, 5)[:, ::2].clone()
        if tl.cuda.is_available():
            c = x.cuda().t().contiguous().cpu()
            tl.randn(3, device="cuda").cpu()
        assert "torch" not in sys.modules, "torch was imported"
        print("ok", tl.cuda.is_available(), tl.cuda.is_interpreted())
        """
    )
    env = dict(os.environ, PYTHONPATH=REPO)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("ok")


def test_cuda_unavailable_reason_without_interpreter():
    code = "import tensorlab as tl; print(tl.cuda.is_available(), tl.cuda.unavailable_reason())"
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    env["PYTHONPATH"] = REPO
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    available, _, reason = out.stdout.strip().partition(" ")
    if available == "False":
        assert reason and reason != "None"
        # cpu still works without any cuda
        ok = subprocess.run([sys.executable, "-c", "import tensorlab as tl; print(tl.ones(2).tolist())"],
                            capture_output=True, text=True, env=env, timeout=120)
        assert ok.stdout.strip() == "[1.0, 1.0]"
        err = subprocess.run([sys.executable, "-c", "import tensorlab as tl; tl.ones(2, device='cuda')"],
                             capture_output=True, text=True, env=env, timeout=120)
        assert "cuda is not available" in err.stderr


def test_current_stream_handle_follows_the_current_stream_per_thread():
    """The handle every launch and allocation asks for is the current stream's, also after a
    stream was set in this thread, and another thread keeps its own (the default, handle 0)."""
    import threading

    from tensorlab_kernels.runtime import streams

    assert streams.current_stream_handle(0) == streams.current_stream(0).handle == 0
    s = tl.cuda.Stream()
    assert s.cuda_stream != 0
    seen = {}
    with tl.cuda.stream(s):
        for device in (0, tl.device("cuda:0"), None):
            assert streams.current_stream_handle(device) == s.cuda_stream
        thread = threading.Thread(target=lambda: seen.update(other=streams.current_stream_handle(0)))
        thread.start()
        thread.join()
    assert seen == {"other": 0}
    assert streams.current_stream_handle(0) == streams.current_stream(0).handle == 0


# -- real GPU -------------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_triton_driver_is_torch_free_and_on_our_stream():
    import triton

    drv = triton.runtime.driver.active
    assert type(drv).__name__ == "TensorlabCudaDriver"
    s = tl.cuda.Stream()
    with tl.cuda.stream(s):
        assert drv.get_current_stream(0) == s.cuda_stream
    assert drv.get_current_stream(0) == 0
    assert tuple(drv.get_device_capability(0)) == tl.cuda.get_device_capability()
    assert "torch" not in sys.modules


@pytest.mark.gpu
def test_gpu_copy_kernel_and_transfers_large():
    n = (1 << 24) + 3
    a = tl.arange(n, dtype=tl.float32)
    c = a.cuda()
    h = c.to(tl.float16)
    back = h[::3].float().cpu()
    np.testing.assert_array_equal(back.numpy(), np.arange(n, dtype=np.float32)[::3].astype(np.float16))
    t = tl.arange(4096 * 4096, dtype=tl.int32, device="cuda").view(4096, 4096)
    np.testing.assert_array_equal(t.t().contiguous()[:3, :3].cpu().numpy(),
                                  np.arange(4096 * 4096).reshape(4096, 4096).T[:3, :3])


@pytest.mark.gpu
def test_gpu_streams_order_work_and_events_time_it():
    s = tl.cuda.Stream()
    x = tl.zeros(1 << 22, device="cuda")
    start, end = tl.cuda.Event(enable_timing=True), tl.cuda.Event(enable_timing=True)
    with tl.cuda.stream(s):
        start.record()
        for _ in range(10):
            x.fill_(1.0)
        end.record()
    tl.cuda.current_stream().wait_stream(s)
    assert float(x.cpu().numpy().sum()) == float(1 << 22)
    end.synchronize()
    assert start.elapsed_time(end) > 0


@pytest.mark.gpu
def test_gpu_out_of_memory_is_clean():
    free, total = tl.cuda.mem_get_info()
    keep = tl.ones(1000, device="cuda")
    with pytest.raises(tl.OutOfMemoryError, match="tried to allocate"):
        tl.empty(total // 2 + free, dtype=tl.uint8, device="cuda")
    assert keep.cpu().numpy().sum() == 1000
    y = tl.ones(10, device="cuda")  # the device still works
    assert y.cpu().numpy().sum() == 10


@pytest.mark.gpu
def test_gpu_pinned_async_copy_overlaps_and_is_correct():
    a = tl.randn(1 << 20).pin_memory()
    s = tl.cuda.Stream()
    with tl.cuda.stream(s):
        c = a.to("cuda", non_blocking=True)
        b = c.cpu()
    np.testing.assert_array_equal(b.numpy(), a.numpy())


def test_needs_int64_bounds_offsets_by_the_allocation():
    from tensorlab_kernels.launch import INT32_MAX, needs_int64
    from tensorlab_kernels.runtime.array import DeviceArray

    class Memory:  # an allocation of ``nbytes`` (nothing is read)
        def __init__(self, nbytes, ptr=0x1000):
            self.nbytes, self.ptr, self.device = nbytes, ptr, 0

    small, big = Memory(4096), Memory(4 * (INT32_MAX + 1) + 4096)
    assert not needs_int64(DeviceArray(small, 0, (32, 32), (32, 1), "float32"))
    assert not needs_int64(DeviceArray(big, 0, (32, 32), (32, 1), "float32"), None)  # near the start
    assert needs_int64(DeviceArray(big, INT32_MAX - 100, (32, 32), (32, 1), "float32"))  # offsets pass 2**31
    assert needs_int64(DeviceArray(big, 0, (2, INT32_MAX // 2 + 1), (INT32_MAX // 2 + 1, 1), "float32"))
    # a broadcast view can hold more elements than its memory: the element count still counts
    assert needs_int64(DeviceArray(small, 0, (INT32_MAX + 1,), (0,), "float32"))
    assert needs_int64(DeviceArray(small, 0, (1, 4), (INT32_MAX + 1, 1), "float32"))  # a huge stride (size-1 dim)
    # memory whose size is unknown: the exact per-dim check
    unknown = type("StandIn", (), {"ptr": 0x1000, "device": 0})()
    assert not needs_int64(DeviceArray(unknown, 5, (4, 4), (4, 1), "float32"))
    assert needs_int64(DeviceArray(unknown, INT32_MAX, (4, 4), (4, 1), "float32"))


def test_triton_launch_refuses_torch_while_triton_runs(monkeypatch):
    # Triton 3.6's argument specialiser imports torch on its first bind where torch is installed
    # (seen on an H100); triton_launch makes that import fail, so Triton takes torch as absent
    import sys

    from tensorlab_kernels.torch_free import triton_launch

    monkeypatch.delitem(sys.modules, "torch", raising=False)
    seen = []

    class FakeKernel:
        def __getitem__(self, grid):
            def run(*args, **meta):
                try:
                    import torch  # noqa: F401
                except ImportError as exc:
                    seen.append(type(exc).__name__)
                return grid, args, meta

            return run

    assert triton_launch(FakeKernel(), (2,), (1, 2), {"BLOCK": 4}) == ((2,), (1, 2), {"BLOCK": 4})
    assert seen == ["ModuleNotFoundError"] and "torch" not in sys.modules
    assert not any(type(f).__name__ == "_RefuseTorch" for f in sys.meta_path)  # removed afterwards
