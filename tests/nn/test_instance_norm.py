"""``F.instance_norm`` and ``nn.InstanceNorm1d/2d/3d``: values and running statistics against numpy,
gradients (gradcheck in float64), train/eval with and without tracked statistics, unbatched
inputs, ``repr``/state dict names (PyTorch's) and PyTorch's errors and warning."""

from __future__ import annotations

import warnings
from collections import OrderedDict

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn as nn
import tensorlab.nn.functional as F
from tests.helpers import assert_close, to_numpy

RNG = np.random.default_rng(17)


def _ref(x, weight=None, bias=None, eps=1e-5, mean=None, var=None):
    """Numpy instance norm of (N, C, *): per-sample statistics, or the given per-channel ones."""
    axes = tuple(range(2, x.ndim))
    cshape = (1, -1) + (1,) * (x.ndim - 2)
    if mean is None:
        mean, var = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    else:
        mean, var = mean.reshape(cshape), var.reshape(cshape)
    y = (x - mean) / np.sqrt(var + eps)
    if weight is not None:
        y = y * weight.reshape(cshape)
    if bias is not None:
        y = y + bias.reshape(cshape)
    return y


def _ref_running(x, rm, rv, momentum):
    axes = tuple(range(2, x.ndim))
    mean = x.mean(axis=axes).mean(axis=0)
    var = x.var(axis=axes, ddof=1).mean(axis=0)  # unbiased per sample, averaged over the batch
    return (1 - momentum) * rm + momentum * mean, (1 - momentum) * rv + momentum * var


def _t(a, device="cpu", requires_grad=False):
    return tl.tensor(a, device=device, requires_grad=requires_grad)


@pytest.mark.parametrize("shape", [(2, 3, 5), (3, 2, 4, 3), (1, 2, 3, 2, 2)])
def test_instance_norm_values(shape, device):
    x = RNG.standard_normal(shape)
    c = shape[1]
    w, b = RNG.standard_normal(c), RNG.standard_normal(c)
    assert_close(F.instance_norm(_t(x, device)), _ref(x))
    assert_close(F.instance_norm(_t(x, device), weight=_t(w, device), bias=_t(b, device), eps=1e-3),
                 _ref(x, w, b, 1e-3))
    # positional form: (input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps)
    assert_close(F.instance_norm(_t(x, device), None, None, _t(w, device), None, True, 0.1, 0.2), _ref(x, w, eps=0.2))


def test_instance_norm_running_stats(device):
    x = RNG.standard_normal((3, 2, 5))
    rm0, rv0 = RNG.standard_normal(2), RNG.random(2) + 0.5
    rm, rv = _t(rm0, device), _t(rv0, device)
    y = F.instance_norm(_t(x, device), rm, rv, momentum=0.3)
    assert_close(y, _ref(x))  # training: the sample statistics normalise
    erm, erv = _ref_running(x, rm0, rv0, 0.3)
    assert_close(rm, erm)
    assert_close(rv, erv)
    # use_input_stats=False: the running statistics normalise and stay as they are
    y = F.instance_norm(_t(x, device), rm, rv, use_input_stats=False, eps=1e-3)
    assert_close(y, _ref(x, eps=1e-3, mean=erm, var=erv))
    assert_close(rm, erm)
    assert_close(rv, erv)


def test_instance_norm_float32(device):
    x = RNG.standard_normal((2, 3, 7)).astype(np.float32)
    y = F.instance_norm(tl.tensor(x, device=device))
    assert y.dtype is tl.float32
    np.testing.assert_allclose(to_numpy(y), _ref(x.astype(np.float64)), rtol=1e-5, atol=1e-5)


def test_instance_norm_empty():
    assert F.instance_norm(tl.zeros(0, 3, 4)).shape == (0, 3, 4)
    rm, rv = tl.zeros(3), tl.ones(3)
    F.instance_norm(tl.zeros(0, 3, 4), rm, rv)
    np.testing.assert_array_equal(to_numpy(rm), [0, 0, 0])  # (PyTorch's become NaN: the mean of no samples)
    np.testing.assert_array_equal(to_numpy(rv), [1, 1, 1])


def test_instance_norm_gradcheck():
    x = _t(RNG.standard_normal((2, 3, 4)), requires_grad=True)
    w = _t(RNG.standard_normal(3), requires_grad=True)
    b = _t(RNG.standard_normal(3), requires_grad=True)
    assert tl.autograd.gradcheck(lambda x, w, b: F.instance_norm(x, weight=w, bias=b), (x, w, b))
    rm, rv = _t(RNG.standard_normal(3)), _t(RNG.random(3) + 0.5)
    assert tl.autograd.gradcheck(lambda x, w, b: F.instance_norm(x, rm, rv, w, b, use_input_stats=False), (x, w, b))


def test_instance_norm_gradient_cuda_matches_cpu(device):
    x0 = RNG.standard_normal((2, 2, 3))
    g = RNG.standard_normal((2, 2, 3))
    grads = []
    for dev in ("cpu", device):
        x = _t(x0, dev, requires_grad=True)
        w = _t(np.array([1.5, -0.5]), dev, requires_grad=True)
        (F.instance_norm(x, weight=w) * _t(g, dev)).sum().backward()
        grads.append((to_numpy(x.grad), to_numpy(w.grad)))
    for a, b in zip(*grads):
        np.testing.assert_allclose(b, a, rtol=1e-7, atol=1e-9)
    # the weight gradient: sum over samples and positions of g * xhat
    np.testing.assert_allclose(grads[0][1], (g * _ref(x0)).sum(axis=(0, 2)), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("args,kwargs,exc,fragment", [
    (((2, 3),), {}, ValueError, "Expected more than 1 spatial element when training, got input size [2, 3]"),
    (((2, 3, 1),), {}, ValueError, "Expected more than 1 spatial element"),
    (((2, 3, 4),), {"use_input_stats": False}, RuntimeError, "Expected running_mean and running_var to be defined"),
    (((2, 3, 4), 4, 4), {}, RuntimeError, "running_mean should contain 6 elements not 8"),
    (((2, 3, 4),), {"weight": 4}, RuntimeError, "weight should contain 6 elements not 8"),
    (((2, 3, 4),), {"bias": 4}, RuntimeError, "bias should contain 6 elements not 8"),
    (((2, 3, 4),), {"momentum": None}, TypeError, "argument 'momentum' (position 7) must be float, not NoneType"),
    (((3,), 3, 3), {"use_input_stats": False}, IndexError, "expected an input of shape (N, C, *)"),
])
def test_instance_norm_errors(args, kwargs, exc, fragment):
    def make(s):
        return tl.zeros(s) if isinstance(s, int) else tl.randn(*s)

    kwargs = {k: make(v) if k in ("weight", "bias") else v for k, v in kwargs.items()}
    with pytest.raises(exc) as info:
        F.instance_norm(*[make(s) for s in args], **kwargs)
    assert fragment in str(info.value)
    with pytest.raises(TypeError, match="must be Tensor"):
        F.instance_norm([[1.0, 2.0]])


# ----------------------------------------------------------------------------------------------
# modules
# ----------------------------------------------------------------------------------------------

REPRS = [
    (lambda: nn.InstanceNorm1d(3), "InstanceNorm1d(3, eps=1e-05, momentum=0.1, affine=False, bias=False, "
                                   "track_running_stats=False)"),
    (lambda: nn.InstanceNorm2d(4, affine=True, track_running_stats=True, momentum=None),
     "InstanceNorm2d(4, eps=1e-05, momentum=None, affine=True, bias=True, track_running_stats=True)"),
    (lambda: nn.InstanceNorm3d(4, 1e-3, 0.2, True, bias=False),
     "InstanceNorm3d(4, eps=0.001, momentum=0.2, affine=True, bias=False, track_running_stats=False)"),
]


@pytest.mark.parametrize("make,expected", REPRS, ids=[r[1].split("(")[0] + str(i) for i, r in enumerate(REPRS)])
def test_instance_norm_repr(make, expected):
    assert repr(make()) == expected


def test_instance_norm_parameters_and_buffers():
    m = nn.InstanceNorm2d(4, affine=True, track_running_stats=True)
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    np.testing.assert_array_equal(to_numpy(m.weight), np.ones(4))
    np.testing.assert_array_equal(to_numpy(m.bias), np.zeros(4))
    np.testing.assert_array_equal(to_numpy(m.running_var), np.ones(4))
    m = nn.InstanceNorm1d(3)
    assert m.weight is None and m.bias is None and m.running_mean is None
    assert list(m.state_dict()) == []


@pytest.mark.parametrize("d", [1, 2, 3])
def test_instance_norm_module_train_eval(d, device):
    m = getattr(nn, f"InstanceNorm{d}d")(3, affine=True, track_running_stats=True, momentum=0.2,
                                         dtype=tl.float64).to(device)
    w, b = RNG.standard_normal(3), RNG.standard_normal(3)
    with tl.no_grad():
        m.weight.copy_(_t(w, device))
        m.bias.copy_(_t(b, device))
    x = RNG.standard_normal((2, 3) + (3,) * d)
    assert_close(m(_t(x, device)), _ref(x, w, b))
    erm, erv = _ref_running(x, np.zeros(3), np.ones(3), 0.2)
    assert_close(m.running_mean, erm)
    assert_close(m.running_var, erv)
    assert m.num_batches_tracked.item() == 0  # (registered, never counted, as PyTorch's)
    m.eval()
    x2 = RNG.standard_normal((2, 3) + (3,) * d)
    assert_close(m(_t(x2, device)), _ref(x2, w, b, mean=erm, var=erv))
    # unbatched (C, *): the same as a batch of one
    assert_close(m(_t(x2[0], device)), _ref(x2[:1], w, b, mean=erm, var=erv)[0])


def test_instance_norm_module_defaults_use_input_stats_in_eval():
    m = nn.InstanceNorm1d(2).double().eval()
    x = RNG.standard_normal((2, 2, 4))
    assert_close(m(_t(x)), _ref(x))
    assert_close(m(_t(x[1])), _ref(x[1:])[0])  # unbatched (C, L)
    m = nn.InstanceNorm1d(2, track_running_stats=True, momentum=None).double()
    m(_t(x))  # momentum None: a factor 0, the statistics stay
    np.testing.assert_array_equal(to_numpy(m.running_mean), [0, 0])


def test_instance_norm_module_gradcheck():
    m = nn.InstanceNorm2d(2, affine=True).double()
    x = _t(RNG.standard_normal((2, 2, 2, 3)), requires_grad=True)
    assert tl.autograd.gradcheck(lambda x, w, b: m(x), (x, m.weight, m.bias))


def test_instance_norm_module_errors_and_warning():
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        nn.InstanceNorm1d(3)(tl.ones(1, 3, 2, 2))
    with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 2D input\)"):
        nn.InstanceNorm2d(3)(tl.ones(3, 2))
    with pytest.raises(ValueError, match=r"expected 4D or 5D input \(got 3D input\)"):
        nn.InstanceNorm3d(3)(tl.ones(3, 2, 2))
    with pytest.raises(ValueError, match=r"expected input's size at dim=1 to match num_features \(3\), but got: 4\."):
        nn.InstanceNorm1d(3, affine=True)(tl.ones(2, 4, 5))
    with pytest.raises(ValueError, match="Expected more than 1 spatial element when training, got input size "
                                         r"\[1, 3, 1\]"):
        nn.InstanceNorm1d(3)(tl.ones(3, 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y = nn.InstanceNorm1d(3)(tl.randn(4, 5))  # unbatched, 4 channels: normalised anyway
    assert y.shape == (4, 5)
    assert [str(w.message) for w in caught] == [
        "input's size at dim=0 does not match num_features. You can silence this warning by not passing in "
        "num_features, which is not used because affine=False"]


def test_instance_norm_load_state_dict():
    sd = {"running_mean": tl.zeros(3), "running_var": tl.ones(3)}
    # a state dict without metadata (PyTorch < 0.4.0 tracked statistics by default): PyTorch's error
    with pytest.raises(RuntimeError, match='Unexpected running stats buffer\\(s\\) "running_mean" and "running_var" '
                                           "for InstanceNorm1d with track_running_stats=False"):
        nn.InstanceNorm1d(3).load_state_dict(sd)
    versioned = OrderedDict(sd)
    versioned._metadata = {"": {"version": 2}}
    with pytest.raises(RuntimeError, match='Unexpected key\\(s\\) in state_dict: "running_mean", "running_var"'):
        nn.InstanceNorm1d(3).load_state_dict(versioned)
    m = nn.InstanceNorm1d(3, track_running_stats=True)
    m.load_state_dict({"running_mean": tl.full((3,), 2.0), "running_var": tl.ones(3)})  # no count: version < 2
    np.testing.assert_array_equal(to_numpy(m.running_mean), [2, 2, 2])
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
        m.load_state_dict(versioned)
