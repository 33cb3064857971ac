"""PyTorch's top-level functions that are not ops of their own: the ATen-signature forms of
``nn.functional`` (``tl.dropout(x, p, train)``, ``tl.kl_div(..., reduction=2)``, ...),
``matrix_power``, the deprecated ``range``, ``frombuffer`` and the global switches."""

from __future__ import annotations

import array
import warnings

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F
from tests.helpers import to_numpy

_RNG = np.random.default_rng(0)
_X = _RNG.standard_normal((4, 3, 5))
_P, _Q = _RNG.random((4, 5)), _RNG.random((4, 5))


def _eq(a, b):
    np.testing.assert_allclose(to_numpy(a), to_numpy(b), rtol=1e-12, atol=1e-12)


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")  # (nn.functional.kl_div's, the reference)
def test_aten_signature_forms_map_onto_functional(device):
    x, p, q = (tl.tensor(v, device=device) for v in (_X, _P, _Q))
    w5, c3 = tl.tensor(_X[0, 0], device=device), tl.tensor(_X[0, :, 0], device=device)
    rm, rv = tl.zeros(3, dtype=tl.float64, device=device), tl.ones(3, dtype=tl.float64, device=device)
    y = tl.tensor([1.0, -1.0, 1.0, -1.0], dtype=tl.float64, device=device)
    _eq(tl.layer_norm(x, (5,), w5, w5, 1e-3, False), F.layer_norm(x, (5,), w5, w5, 1e-3))
    _eq(tl.group_norm(x, 3, c3, c3, 1e-5, True), F.group_norm(x, 3, c3, c3, 1e-5))
    # batch_norm/instance_norm: weight and bias come before the running statistics
    _eq(tl.batch_norm(x, c3, c3 * 2, rm, rv, False, 0.1, 1e-5, True), F.batch_norm(x, rm, rv, c3, c3 * 2))
    _eq(tl.instance_norm(x, c3, c3, None, None, True, 0.1, 1e-5, True), F.instance_norm(x, weight=c3, bias=c3))
    _eq(tl.rms_norm(x, (3, 5), None, 1e-4), F.rms_norm(x, (3, 5), eps=1e-4))
    for code, name in ((0, "none"), (1, "mean"), (2, "sum")):  # ATen's Reduction enum
        _eq(tl.kl_div(p.log(), q, code), F.kl_div(p.log(), q, reduction=name))
        _eq(tl.kl_div(p.log(), q.log(), code, log_target=True),
            F.kl_div(p.log(), q.log(), reduction=name, log_target=True))
        _eq(tl.binary_cross_entropy_with_logits(p, q, None, q[0], code),
            F.binary_cross_entropy_with_logits(p, q, reduction=name, pos_weight=q[0]))
        _eq(tl.cosine_embedding_loss(p, q, y, 0.1, code), F.cosine_embedding_loss(p, q, y, 0.1, reduction=name))
        _eq(tl.hinge_embedding_loss(p, q.sign(), 0.5, code), F.hinge_embedding_loss(p, q.sign(), 0.5, reduction=name))
        _eq(tl.margin_ranking_loss(p[:, 0], q[:, 0], y, 0.2, code),
            F.margin_ranking_loss(p[:, 0], q[:, 0], y, 0.2, reduction=name))
        _eq(tl.poisson_nll_loss(p, q, True, True, 1e-8, code), F.poisson_nll_loss(p, q, True, True, reduction=name))
        _eq(tl.triplet_margin_loss(p, q, q.flip(0), 1.0, 2, 1e-6, True, code),
            F.triplet_margin_loss(p, q, q.flip(0), swap=True, reduction=name))
    idx = tl.tensor([[0, 2], [1, 1]], device=device)
    _eq(tl.embedding(w5.reshape(5, 1), idx), F.embedding(idx, w5.reshape(5, 1)))  # table first; -1: no padding
    _eq(tl.constant_pad_nd(p, [1, 2, 0, 1], 3.5), F.pad(p, [1, 2, 0, 1], value=3.5))
    _eq(tl.pdist(p, 1.5), F.pdist(p, 1.5))
    _eq(tl.adaptive_avg_pool1d(x, 2), F.adaptive_avg_pool1d(x, 2))
    values, indices = tl.adaptive_max_pool1d(x, 2)  # (ATen's op: the indices always)
    _eq(values, F.adaptive_max_pool1d(x, 2))
    _eq(indices, F.adaptive_max_pool1d(x, 2, return_indices=True)[1])
    assert tl.dropout(x, 0.3, False) is x and tl.feature_alpha_dropout(x, 0.3, False) is x


def test_aten_dropouts_drop():
    x = tl.ones(64, 32, 1)
    assert 0.3 < float((tl.dropout(x, 0.5, True) == 0).float().mean()) < 0.7
    kept = tl.feature_dropout(x, 0.5, True)[:, :, 0]  # whole channels: each (sample, channel) all or nothing
    assert set(np.unique(to_numpy(kept)).tolist()) <= {0.0, 2.0}
    t = tl.ones(1000)
    assert tl.dropout_(t, 0.5, True) is t and 300 < int((t == 0).sum()) < 700


def test_aten_signature_errors():
    p = tl.tensor(_P)
    with pytest.raises(TypeError, match=r"kl_div\(\): argument 'reduction' must be int"):
        tl.kl_div(p, p, "mean")
    with pytest.raises(RuntimeError, match="3 is not a valid value for reduction"):
        tl.kl_div(p, p, 3)
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
        tl.feature_dropout(tl.ones(3), 0.5, True)
    with pytest.raises(TypeError):
        tl.dropout(p, 0.5)  # every argument of the ATen form is required
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # ATen's 'mean' is plain, without nn.functional's warning about it
        tl.kl_div(p, p)


def test_matrix_power(device):
    a = _RNG.standard_normal((3, 4, 4))
    x = tl.tensor(a, device=device)
    for n in range(7):
        np.testing.assert_allclose(to_numpy(tl.matrix_power(x, n)), np.linalg.matrix_power(a, n), rtol=1e-10)
    np.testing.assert_allclose(to_numpy(x.matrix_power(3)), np.linalg.matrix_power(a, 3), rtol=1e-10)
    assert tl.linalg.matrix_power is tl.matrix_power
    if device == "cpu":  # (integer matmul is cpu-only, as PyTorch's "addmm_cuda" for Long)
        assert tl.matrix_power(tl.ones(2, 2, dtype=tl.int64), 3).tolist() == [[4, 4], [4, 4]]
    assert tl.matrix_power(tl.ones(0, 2, 2, device=device), 2).shape == (0, 2, 2)
    g = tl.tensor(a[0], requires_grad=True)
    tl.matrix_power(g, 3).sum().backward()  # d sum(A^3) = (J A^2)^T + (A J A)^T + (A^2 J)^T, J all ones
    ones, a0 = np.ones((4, 4)), a[0]
    want = (ones @ (a0 @ a0).T) + (a0.T @ ones @ a0.T) + ((a0 @ a0).T @ ones)
    np.testing.assert_allclose(to_numpy(g.grad), want, rtol=1e-10)


def test_matrix_power_errors():
    with pytest.raises(RuntimeError, match="must have at least 2 dimensions"):
        tl.matrix_power(tl.ones(3), 2)
    with pytest.raises(RuntimeError, match="batches of square matrices, but they are 2 by 3 matrices"):
        tl.matrix_power(tl.ones(2, 3), 0)
    with pytest.raises(TypeError, match="argument 'n' .* must be int, not float"):
        tl.matrix_power(tl.ones(2, 2), 2.0)
    with pytest.raises(NotImplementedError, match="negative power .* needs a matrix inverse"):
        tl.matrix_power(tl.ones(2, 2), -1)


def test_deprecated_range_includes_its_end():
    with pytest.warns(UserWarning, match="tensorlab.range is deprecated"):
        r = tl.range(1, 4)
    assert r.dtype is tl.float32 and r.tolist() == [1.0, 2.0, 3.0, 4.0]
    with pytest.warns(UserWarning):
        assert np.allclose(tl.range(0, 1, 0.3).tolist(), [0.0, 0.3, 0.6, 0.9])
        assert tl.range(4, 1, -1, dtype=tl.int64).tolist() == [4, 3, 2, 1]
        assert tl.range(-3, 2 ** 40, 2 ** 38, dtype=tl.int64).tolist()[-1] == -3 + 4 * 2 ** 38
        with pytest.raises(RuntimeError, match="step must be nonzero"):
            tl.range(1, 4, 0)
        with pytest.raises(RuntimeError, match="upper bound and lower bound inconsistent with step sign"):
            tl.range(4, 1)


def test_frombuffer_shares_the_buffer():
    b = bytearray(np.array([1, 2, 3], dtype=np.int32).tobytes())
    t = tl.frombuffer(b, dtype=tl.int32)
    assert t.tolist() == [1, 2, 3]
    t[0] = 9
    assert np.frombuffer(b, dtype=np.int32)[0] == 9
    assert tl.frombuffer(b, dtype=tl.int32, count=2, offset=4).tolist() == [2, 3]
    assert tl.frombuffer(b, dtype=tl.int16, offset=4).tolist() == [2, 0, 3, 0]
    f = tl.frombuffer(array.array("f", [1.0, 2.0]), dtype=tl.float32, requires_grad=True)
    assert f.requires_grad and f.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="must be a multiple of element size \\(8\\)"):
        tl.frombuffer(b, dtype=tl.int64)
    with pytest.raises(ValueError, match="requested buffer length \\(4 \\* 4 bytes\\)"):
        tl.frombuffer(b, dtype=tl.int32, count=4)
    with pytest.raises(ValueError, match="offset \\(12 bytes\\) must be non-negative"):
        tl.frombuffer(b, dtype=tl.int32, offset=12)
    with pytest.raises(ValueError, match="both buffer length \\(0\\) and count \\(-1\\) must not be 0"):
        tl.frombuffer(bytearray(), dtype=tl.int32)
    with pytest.raises(ValueError, match="does not implement Python buffer protocol"):
        tl.frombuffer([1, 2], dtype=tl.int32)
    # a non-contiguous buffer is PyTorch's RuntimeError (numpy's own ValueError named no op), checked first
    for strided in [np.arange(16, dtype=np.uint8)[::2], memoryview(bytearray(8))[::2],
                    np.arange(8, dtype=np.uint8).reshape(2, 4).T]:
        with pytest.raises(RuntimeError, match="frombuffer: could not retrieve a contiguous buffer"):
            tl.frombuffer(strided, dtype=tl.int8, count=0)


def test_global_switches_and_size_checks():
    try:
        tl.set_deterministic_debug_mode("warn")
        assert tl.get_deterministic_debug_mode() == 1 and tl.is_deterministic_algorithms_warn_only_enabled()
        tl.set_deterministic_debug_mode(2)
        assert tl.are_deterministic_algorithms_enabled() and not tl.is_deterministic_algorithms_warn_only_enabled()
        with pytest.raises(RuntimeError, match="expected one of `default`, `warn`, `error`, but got x"):
            tl.set_deterministic_debug_mode("x")
        with pytest.raises(RuntimeError, match="expected 0, 1, or 2, but got 3"):
            tl.set_deterministic_debug_mode(3)
    finally:
        tl.set_deterministic_debug_mode(0)
    assert tl.get_deterministic_debug_mode() == 0 and not tl.are_deterministic_algorithms_enabled()
    try:
        tl.set_warn_always(True)
        assert tl.is_warn_always_enabled()
    finally:
        tl.set_warn_always(False)
    with pytest.raises(RuntimeError, match="expects a bool"):
        tl.set_warn_always(1)
    assert tl.is_same_size(tl.ones(2, 3), tl.ones(2, 3)) and not tl.is_same_size(tl.ones(2, 3), tl.ones(3, 2))
    assert tl.is_inference(tl.ones(1)) is False


def test_every_public_function_pickles_by_reference():
    # as torch's (functools.partial(torch.clamp, min=0) sent to a spawned DataLoader worker): 206 of them
    # were local functions of a factory or wrappers shadowing the op they wrap
    import functools
    import pickle
    import types

    for namespace in (tl, tl.linalg, tl.special, tl.nn.functional, tl.nn.init):
        for name in dir(namespace):
            fn = getattr(namespace, name)
            if isinstance(fn, types.FunctionType) and (not name.startswith("_") or name.startswith("_foreach_")):
                assert pickle.loads(pickle.dumps(fn)) is fn, f"{namespace.__name__}.{name}"
    clamp = pickle.loads(pickle.dumps(functools.partial(tl.clamp, min=0)))
    assert clamp(tl.tensor([-1.0, 2.0])).tolist() == [0.0, 2.0]


def test_deterministic_mode_fills_uninitialized_memory(device):
    # torch 2.15 with use_deterministic_algorithms(True): NaN, the largest integer or True, also for the
    # elements a resize_ adds; tensorlab.utils.deterministic.fill_uninitialized_memory = False turns it off
    try:
        tl.use_deterministic_algorithms(True)
        for dt, want in ((tl.float16, "nan"), (tl.float32, "nan"), (tl.int8, 127), (tl.uint8, 255),
                         (tl.int64, 2**63 - 1), (tl.bool, True)):
            for t in (tl.empty(3, dtype=dt, device=device), tl.empty_like(tl.zeros(2, dtype=dt, device=device)),
                      tl.zeros(1, dtype=dt, device=device).new_empty(2),
                      tl.empty_strided((2, 2), (1, 2), dtype=dt, device=device),
                      tl.empty_permuted((2, 3), (1, 0), dtype=dt, device=device)):
                got = to_numpy(t).ravel().tolist()
                assert all(np.isnan(got)) if want == "nan" else got == [want] * len(got), (dt, got)
        r = tl.ones(2, device=device).resize_(5)
        assert to_numpy(r)[:2].tolist() == [1.0, 1.0] and np.isnan(to_numpy(r)[2:]).all()
        from tensorlab._determinism import filling_uninitialized_memory

        assert filling_uninitialized_memory()
        tl.utils.deterministic.fill_uninitialized_memory = False
        assert not filling_uninitialized_memory()
    finally:
        tl.utils.deterministic.fill_uninitialized_memory = True
        tl.use_deterministic_algorithms(False)
