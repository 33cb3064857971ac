"""tl.accelerator, tl.cpu, tl.random, tl.backends.mps and the thread-count functions: the module
names PyTorch scripts reach for first."""

import warnings

import tensorlab as tl


def test_accelerator_is_cuda():
    assert tl.accelerator.is_available() == tl.cuda.is_available()
    assert tl.accelerator.current_accelerator().type == "cuda"
    assert tl.accelerator.device_count() == tl.cuda.device_count()
    assert tl.accelerator.current_device_index() == tl.cuda.current_device()
    device = tl.accelerator.current_accelerator().type if tl.accelerator.is_available() else "cpu"
    assert tl.ones(1, device=device).device.type == device


def test_backends_mps_and_cpu_module():
    assert tl.backends.mps.is_available() is False and tl.backends.mps.is_built() is False
    assert tl.cpu.is_available() and tl.cpu.device_count() == 1 and tl.cpu.current_device() == "cpu"
    tl.cpu.synchronize()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with tl.cpu.amp.autocast():
            assert (tl.ones(2, 3) @ tl.ones(3, 2)).dtype is tl.bfloat16
    assert any(issubclass(x.category, FutureWarning) for x in w)


def test_fork_rng_restores_generators():
    tl.manual_seed(0)
    tl.cuda.manual_seed(0)
    with tl.random.fork_rng():
        a, ca = tl.rand(3), tl.rand(3, device="cuda")
    b, cb = tl.rand(3), tl.rand(3, device="cuda")
    assert tl.equal(a, b) and tl.equal(ca, cb)
    tl.manual_seed(0)
    draws = [tl.rand(3), tl.rand(3)]
    tl.manual_seed(0)
    with tl.random.fork_rng(enabled=False):
        tl.rand(3)
    assert tl.equal(tl.rand(3), draws[1])  # enabled=False: nothing restored, the stream moved on
    tl.random.manual_seed(5)
    assert tl.random.initial_seed() == 5 and tl.random.get_rng_state().dtype is tl.uint8


def test_thread_counts_are_recorded():
    from threadpoolctl import threadpool_info

    before = tl.get_num_threads()
    try:
        tl.set_num_threads(1)
        assert tl.get_num_threads() == 1
        assert all(pool["num_threads"] == 1 for pool in threadpool_info() if pool["user_api"] == "blas")
        tl.set_num_interop_threads(3)
        assert tl.get_num_interop_threads() == 3
    finally:
        tl.set_num_threads(before)
    import pytest

    with pytest.raises(RuntimeError, match="positive"):
        tl.set_num_threads(0)


def test_version_default_tensor_type_assert_allclose_cuda_initialized():
    import pytest

    assert tl.version.__version__ == tl.__version__ and isinstance(tl.version.triton, str)
    assert tl.version.cuda is None or tl.version.cuda.count(".") == 1
    assert isinstance(tl.cuda.is_initialized(), bool)
    tl.ones(1, device="cuda")
    assert tl.cuda.is_initialized() is True  # (set up on first use)
    try:
        with pytest.warns(UserWarning, match="deprecated"):
            tl.set_default_tensor_type(tl.DoubleTensor)
        assert tl.ones(1).dtype is tl.float64 and tl.get_default_dtype() is tl.float64
        with pytest.warns(UserWarning):
            tl.set_default_tensor_type("tensorlab.FloatTensor")
        assert tl.ones(1).dtype is tl.float32
        with pytest.warns(UserWarning), pytest.raises(TypeError, match="floating-point"):
            tl.set_default_tensor_type(tl.LongTensor)
    finally:
        tl.set_default_dtype(tl.float32)
        tl.set_default_device(None)
    with pytest.warns(FutureWarning):
        tl.testing.assert_allclose(tl.ones(2), [1.0, 1.0])
    with pytest.warns(FutureWarning), pytest.raises(AssertionError, match="not close"):
        tl.testing.assert_allclose(tl.ones(1), [2.0])
