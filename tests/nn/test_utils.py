"""tensorlab.nn.utils: clip_grad_norm_ / clip_grad_value_ against numpy, on cpu (twins) and cuda (the
multi-tensor kernels), and parameters_to_vector / vector_to_parameters."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.nn.utils import (
    clip_grad_norm_,
    clip_grad_value_,
    get_total_norm,
    parameters_to_vector,
    skip_init,
    vector_to_parameters,
)
from tensorlab_kernels.optim import multi_tensor

CUDA = tl.cuda.is_available()
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not CUDA, reason="no cuda"))]
SHAPES = [(3, 4), (7,), (2, 5, 3), ()]


def _params(device, dtype=tl.float32, seed=0, scale=1.0):
    rng = np.random.default_rng(seed)
    grads = [(rng.standard_normal(s) * scale).astype(np.float32) for s in SHAPES]
    params = []
    for s, g in zip(SHAPES, grads):
        p = tl.nn.Parameter(tl.zeros(s, dtype=dtype, device=device))
        p.grad = tl.tensor(g, dtype=dtype, device=device)
        params.append(p)
    return params, [np.asarray(g, dtype=dtype.np if dtype is not tl.bfloat16 else np.float32).astype(np.float64)
                    for g in grads]


def _ref_norm(grads, p):
    flat = np.concatenate([g.reshape(-1) for g in grads])
    if p == math.inf:
        return np.abs(flat).max()
    if p == -math.inf:
        return np.abs(flat).min()
    if p == 0:
        return float(sum(np.linalg.norm(g.reshape(-1), 1) != 0 for g in grads))  # PyTorch: norm of the norms
    return (np.abs(flat) ** p).sum() ** (1 / p)


def _host(t):
    return np.asarray(t.detach().cpu().numpy()).astype(np.float64)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.5, math.inf, -math.inf, 0.0], ids=str)
def test_clip_grad_norm_values(device, norm_type):
    params, grads = _params(device)
    total_ref = _ref_norm(grads, norm_type)
    max_norm = 0.5 * total_ref if norm_type != 0.0 else 0.5
    total = clip_grad_norm_(params, max_norm, norm_type=norm_type)
    assert isinstance(total, tl.Tensor) and total.shape == () and total.dtype is tl.float32
    assert total.device == params[0].device
    np.testing.assert_allclose(total.item(), total_ref, rtol=2e-6)
    coef = min(max_norm / (total_ref + 1e-6), 1.0)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(_host(p.grad), g * coef, rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("device", DEVICES)
def test_clip_grad_norm_below_max_leaves_gradients_and_skips_none(device):
    params, grads = _params(device)
    params.append(tl.nn.Parameter(tl.zeros(3, device=device)))  # no gradient
    total = clip_grad_norm_(iter(params), max_norm=1e6)
    np.testing.assert_allclose(total.item(), _ref_norm(grads, 2.0), rtol=2e-6)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(_host(p.grad), g, rtol=1e-6)  # multiplied by (a coefficient of) 1
    assert params[-1].grad is None
    assert clip_grad_norm_(params[-1], 1.0).item() == 0.0  # no gradients at all: zero norm


@pytest.mark.parametrize("device", DEVICES)
def test_clip_grad_norm_mixed_dtypes_and_precision(device):
    p16, g16 = _params(device, tl.float16, seed=1)
    p64, g64 = _params(device, tl.float64, seed=2)
    total = get_total_norm([p.grad for p in p16 + p64])
    assert total.dtype is tl.float64  # promoted, as torch.stack of the per-tensor norms
    # each float16 gradient's norm is rounded to float16 first, as PyTorch's (its per-tensor norms)
    norms16 = [float(np.float16(_ref_norm([g], 2.0))) for g in g16]
    np.testing.assert_allclose(total.item(), _ref_norm([np.array(norms16)] + g64, 2.0), rtol=1e-6)
    assert abs(total.item() - _ref_norm(g16 + g64, 2.0)) > 1e-6  # (not one float64 norm of everything)
    pbf, gbf = _params(device, tl.bfloat16, seed=3)
    total = clip_grad_norm_(pbf, 0.1)
    assert total.dtype is tl.bfloat16
    np.testing.assert_allclose(total.float().item(), _ref_norm(gbf, 2.0), rtol=8e-3)


@pytest.mark.parametrize("device", DEVICES)
def test_clip_grad_norm_nonfinite(device):
    params, _ = _params(device)
    params[1].grad = tl.tensor([1.0, float("inf"), 0, 0, 0, 0, 0], device=device)
    with pytest.raises(RuntimeError, match="is non-finite, so it cannot be clipped"):
        clip_grad_norm_(params, 1.0, error_if_nonfinite=True)
    total = clip_grad_norm_(params, 1.0)
    assert math.isinf(total.item())
    params[2].grad = tl.full((2, 5, 3), float("nan"), device=device)
    total = clip_grad_norm_(params, 1.0, norm_type=math.inf)
    assert math.isnan(total.item())
    assert np.isnan(_host(params[0].grad)).all()  # scaled by a NaN coefficient, as in PyTorch


@pytest.mark.skipif(not CUDA, reason="no cuda")
def test_clip_grad_norm_cuda_launches_and_chunks(monkeypatch):
    """Norm: one partials launch per dtype + one finishing program; scaling: one launch per dtype;
    tensors split over several chunks give the same answer."""
    params, grads = _params("cuda", seed=4)
    launches = []
    real = multi_tensor.launch
    monkeypatch.setattr(multi_tensor, "launch",
                        lambda kernel, grid, *a, **k: (launches.append(kernel), real(kernel, grid, *a, **k))[1])
    with multi_tensor.override_config({"CHUNK": 8, "BLOCK": 4}):
        total = clip_grad_norm_(params, 1.0, norm_type=2.0)
    assert len(launches) == 3
    ref = _ref_norm(grads, 2.0)
    np.testing.assert_allclose(total.item(), ref, rtol=2e-6)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(_host(p.grad), g * min(1.0 / (ref + 1e-6), 1), rtol=2e-6, atol=1e-7)


@pytest.mark.parametrize("device", DEVICES)
def test_clip_grad_norm_noncontiguous_gradient(device):
    p = tl.nn.Parameter(tl.zeros((3, 4), device=device))
    g = np.arange(12, dtype=np.float32).reshape(4, 3)
    p.grad = tl.tensor(g, device=device).t()
    q = tl.nn.Parameter(tl.zeros(2, device=device))
    q.grad = tl.tensor([3.0, 4.0], device=device)
    total = clip_grad_norm_([p, q], 1.0)
    ref = math.sqrt((g**2).sum() + 25)
    np.testing.assert_allclose(total.item(), ref, rtol=1e-6)
    np.testing.assert_allclose(_host(p.grad), g.T / (ref + 1e-6), rtol=1e-6)
    np.testing.assert_allclose(_host(q.grad), [3 / (ref + 1e-6), 4 / (ref + 1e-6)], rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_clip_grads_are_independent_after_backward(device):
    """Leaves that received one shared gradient tensor from backward are clipped once each."""
    a = tl.nn.Parameter(tl.ones(3, device=device))
    b = tl.nn.Parameter(tl.ones(3, device=device))
    w = tl.tensor([1.0, 2.0, 2.0], device=device)
    ((a + b) * w).sum().backward()
    clip_grad_norm_([a, b], max_norm=1.0)
    expected = np.array([1.0, 2.0, 2.0]) / (math.sqrt(18) + 1e-6)
    np.testing.assert_allclose(_host(a.grad), expected, rtol=1e-6)
    np.testing.assert_allclose(_host(b.grad), expected, rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_clip_grad_value(device):
    params, grads = _params(device, seed=5)
    params[0].grad[0, 0] = float("nan")
    grads[0][0, 0] = np.nan
    clip_grad_value_(params, 0.5)
    for p, g in zip(params, grads):
        np.testing.assert_allclose(_host(p.grad), np.clip(g, -0.5, 0.5), rtol=1e-6)
    t = tl.nn.Parameter(tl.zeros(4, device=device))
    t.grad = tl.tensor(np.arange(8, dtype=np.float32), device=device)[::2]  # non-contiguous
    clip_grad_value_(t, 3)
    np.testing.assert_allclose(_host(t.grad), [0, 2, 3, 3])


@pytest.mark.parametrize("device", DEVICES)
def test_parameters_to_vector_and_back(device):
    params = [tl.nn.Parameter(tl.tensor(np.arange(6.0).reshape(2, 3), device=device)),
              tl.nn.Parameter(tl.tensor([10.0, 11.0], device=device))]
    vec = parameters_to_vector(params)
    np.testing.assert_array_equal(_host(vec), [0, 1, 2, 3, 4, 5, 10, 11])
    vec.sum().backward()  # differentiable, like torch.cat
    np.testing.assert_array_equal(_host(params[0].grad), np.ones((2, 3)))
    vector_to_parameters(tl.arange(8, dtype=tl.float64, device=device) * 2, params)
    np.testing.assert_array_equal(_host(params[0]), np.arange(6).reshape(2, 3) * 2)
    np.testing.assert_array_equal(_host(params[1]), [12, 14])
    assert params[0].shape == (2, 3) and isinstance(params[0], tl.nn.Parameter)
    with pytest.raises(TypeError, match="expected tensorlab.Tensor"):
        vector_to_parameters([1.0], params)


def test_parameters_on_different_devices_are_refused():
    if not CUDA:
        pytest.skip("needs a second device type")
    with pytest.raises(TypeError, match="Found two parameters on different devices"):
        parameters_to_vector([tl.nn.Parameter(tl.zeros(2)), tl.nn.Parameter(tl.zeros(2, device="cuda"))])


def test_parameters_to_vector_of_no_parameters_is_a_value_error():
    # torch 2.15: ValueError "torch.cat(): expected a non-empty list of Tensors" (its cat's), for a
    # list and for an empty iterator alike
    for params in ([], iter([])):
        with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
            parameters_to_vector(params)


def test_skip_init_builds_the_module_with_pytorch_checks():
    m = skip_init(tl.nn.Linear, 3, 4, bias=False, dtype=tl.float64)
    assert type(m) is tl.nn.Linear and m.weight.shape == (4, 3) and m.weight.dtype == tl.float64
    assert m.bias is None and m.weight.requires_grad and m.weight.device.type == "cpu"

    class NoDevice(tl.nn.Module):
        pass

    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        skip_init(NoDevice)
    with pytest.raises(RuntimeError, match="Expected a Module; got <class 'int'>"):
        skip_init(int)


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_get_total_norm_of_mixed_dtypes_rounds_each_dtype_group(device):
    # PyTorch takes one norm per (device, dtype) group in that dtype, then the norm of the norms in the
    # promoted dtype: the float32 group's norm is rounded to float32 first (was computed in float64)
    grads = [tl.full((3,), 0.1, device=device), tl.full((2, 2), 0.1, dtype=tl.float64, device=device)]
    total = tl.nn.utils.get_total_norm(grads)
    assert total.dtype == tl.float64 and total.item() == 0.2645751290713209  # torch 2.15's value


def test_get_total_norm_beyond_float16_range_is_inf_without_a_numpy_warning():
    # the cpu twin's float16 result cast warned "overflow encountered in cast" (PyTorch returns inf silently)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        total = tl.nn.utils.get_total_norm([tl.full((4,), 60000.0, dtype=tl.float16)])
    assert total.dtype == tl.float16 and total.item() == math.inf
