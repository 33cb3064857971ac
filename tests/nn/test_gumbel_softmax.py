"""``F.gumbel_softmax``: the sample against numpy on the same Exp(1) draws (tensorlab's generator),
rows summing to 1, the straight-through one-hot of ``hard=True``, gradients through the soft
sample, reproducibility under ``tl.manual_seed`` and PyTorch's deprecation warning for ``eps``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F
from tests.helpers import assert_close, to_numpy

RNG = np.random.default_rng(23)


def _np_softmax(z, dim):
    e = np.exp(z - z.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


@pytest.mark.parametrize("shape,dim,tau", [((4, 5), -1, 1.0), ((3, 4, 2), 1, 0.5), ((6,), 0, 2.0)])
def test_gumbel_softmax_matches_numpy_on_the_same_draws(shape, dim, tau, device):
    logits = RNG.standard_normal(shape)
    x = tl.tensor(logits, device=device)
    tl.manual_seed(5)
    draws = to_numpy(tl.empty_like(x).exponential_())  # the Exp(1) draws gumbel_softmax takes
    tl.manual_seed(5)
    y = F.gumbel_softmax(x, tau=tau, dim=dim)
    assert y.shape == shape and y.dtype is tl.float64
    expected = _np_softmax((logits - np.log(draws)) / tau, dim)
    assert_close(y, expected)
    np.testing.assert_allclose(to_numpy(y).sum(axis=dim), 1.0, rtol=1e-12)


def test_gumbel_softmax_hard_is_one_hot(device):
    x = tl.tensor(RNG.standard_normal((5, 4)), device=device)
    tl.manual_seed(1)
    soft = F.gumbel_softmax(x, 0.5, False, dim=0)
    tl.manual_seed(1)
    hard = F.gumbel_softmax(x, 0.5, True, dim=0)  # positional (logits, tau, hard) and dim by keyword
    h = to_numpy(hard)
    assert set(np.unique(h)) <= {0.0, 1.0}
    np.testing.assert_array_equal(h.sum(axis=0), np.ones(4))
    np.testing.assert_array_equal(h.argmax(axis=0), to_numpy(soft).argmax(axis=0))  # the soft sample's argmax


def test_gumbel_softmax_reproducible(device):
    x = tl.randn(3, 6, device=device)
    tl.manual_seed(42)
    a = to_numpy(F.gumbel_softmax(x))
    b = to_numpy(F.gumbel_softmax(x))
    tl.manual_seed(42)
    c = to_numpy(F.gumbel_softmax(x))
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, b)  # a fresh draw


def _seeded(hard, tau=0.7):
    def fn(x):
        tl.manual_seed(9)  # the same noise at every evaluation
        return F.gumbel_softmax(x, tau=tau, hard=hard)
    return fn


def test_gumbel_softmax_gradcheck():
    x = tl.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    assert tl.autograd.gradcheck(_seeded(False), (x,))


def test_gumbel_softmax_straight_through_gradient(device):
    """hard=True: the forward is the one-hot, the gradient the soft sample's."""
    grads = []
    w = tl.tensor(RNG.standard_normal((3, 4)), device=device)
    x0 = RNG.standard_normal((3, 4))
    for hard in (False, True):
        x = tl.tensor(x0, device=device, requires_grad=True)
        (_seeded(hard)(x) * w).sum().backward()
        grads.append(to_numpy(x.grad))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-12)
    assert np.abs(grads[0]).max() > 0


def test_gumbel_softmax_eps_warning_and_errors():
    x = tl.randn(2, 3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        F.gumbel_softmax(x)
        F.gumbel_softmax(x, eps=1e-3)
    assert [str(w.message) for w in caught] == ["`eps` parameter is deprecated and has no effect."]
    with pytest.raises(TypeError, match="argument 'logits' \\(position 1\\) must be Tensor, not list"):
        F.gumbel_softmax([1.0, 2.0])
    with pytest.raises(IndexError):
        F.gumbel_softmax(x, dim=2)
