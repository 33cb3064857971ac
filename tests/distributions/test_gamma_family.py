"""Gamma, Beta, Dirichlet: closed-form values, sampling (Marsaglia-Tsang, not reparametrised) and
the documented NotImplementedErrors."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.distributions import Beta, Dirichlet, Gamma

from ..conftest import DEVICES
from .helpers import assert_close, assert_moments, digamma, f64, lgamma, npy

A = np.array([0.4, 1.0, 3.5])
B = np.array([2.0, 0.5, 1.5])


def test_digamma_reference():
    assert_close(digamma([1.0, 0.5]), [-0.5772156649015329, -1.9635100260214235], rtol=1e-12)


def test_gamma_values():
    d = Gamma(f64(A), f64(B))
    x = np.array([[0.2, 1.0, 3.0], [1.5, 0.1, 0.7]])
    assert_close(d.log_prob(f64(x)), A * np.log(B) + (A - 1) * np.log(x) - B * x - lgamma(A))
    assert_close(d.entropy(), A - np.log(B) + lgamma(A) + (1 - A) * digamma(A))
    assert_close(d.mean, A / B)
    assert_close(d.variance, A / B**2)
    assert_close(d.mode, np.maximum((A - 1) / B, 0))
    # the ExponentialFamily entropy (autograd through the log-normalizer) agrees with the closed form
    assert_close(tl.distributions.ExponentialFamily.entropy(d), npy(d.entropy()))


def test_beta_values():
    d = Beta(f64(A), f64(B))
    x = np.array([0.1, 0.5, 0.8])
    ref = (A - 1) * np.log(x) + (B - 1) * np.log1p(-x) - lgamma(A) - lgamma(B) + lgamma(A + B)
    assert_close(d.log_prob(f64(x)), ref)
    ent = lgamma(A) + lgamma(B) - lgamma(A + B) - (A - 1) * digamma(A) - (B - 1) * digamma(B) \
        + (A + B - 2) * digamma(A + B)
    assert_close(d.entropy(), ent)
    assert_close(d.mean, A / (A + B))
    assert_close(d.variance, A * B / ((A + B) ** 2 * (A + B + 1)))
    assert_close(d.concentration1, A)
    assert_close(d.concentration0, B)
    assert Beta(2.0, 3.0).batch_shape == ()
    assert_close(Beta(f64([2.0]), f64([4.0])).mode, [0.25])


def test_dirichlet_values():
    c = np.array([[0.5, 1.0, 2.0], [3.0, 3.0, 1.5]])
    d = Dirichlet(f64(c))
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    x = np.array([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])
    ref = ((c - 1) * np.log(x)).sum(-1) + lgamma(c.sum(-1)) - lgamma(c).sum(-1)
    assert_close(d.log_prob(f64(x)), ref)
    a0 = c.sum(-1)
    ent = lgamma(c).sum(-1) - lgamma(a0) - (3 - a0) * digamma(a0) - ((c - 1) * digamma(c)).sum(-1)
    assert_close(d.entropy(), ent)
    assert_close(d.mean, c / a0[:, None])
    assert_close(d.variance, c * (a0[:, None] - c) / (a0[:, None] ** 2 * (a0[:, None] + 1)))
    assert_close(Dirichlet(f64([[0.5, 0.3, 0.2], [2.0, 3.0, 5.0]])).mode, [[1.0, 0.0, 0.0], [1 / 7, 2 / 7, 4 / 7]])


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_gamma_sample_moments(dtype):
    tl.manual_seed(11)
    a, b = np.array([0.05, 0.5, 1.0, 4.0, 30.0]), np.array([1.0, 2.0, 0.5, 1.0, 3.0])
    d = Gamma(tl.tensor(a, dtype=dtype), tl.tensor(b, dtype=dtype))
    s = d.sample((20000,))
    assert s.dtype == dtype and tuple(s.shape) == (20000, 5) and bool((s > 0).all())
    assert_moments(s, a / b, a / b**2)


def test_beta_dirichlet_sample_moments():
    tl.manual_seed(12)
    d = Beta(f64([0.5, 2.0, 5.0]), f64([0.5, 3.0, 1.0]))
    s = d.sample((20000,))
    assert bool(((s >= 0) & (s <= 1)).all())
    assert_moments(s, npy(d.mean), npy(d.variance))
    dd = Dirichlet(f64([0.3, 1.0, 4.0]))
    s = dd.sample((20000,))
    assert_close(s.sum(-1), np.ones(20000), rtol=1e-12)
    assert_moments(s, npy(dd.mean), npy(dd.variance))


def test_no_rsample_no_cdf():
    d = Gamma(f64([1.0]), f64([1.0]))
    assert not d.has_rsample and not Beta(1.0, 1.0).has_rsample and not Dirichlet(f64([1.0, 1.0])).has_rsample
    with pytest.raises(NotImplementedError, match="Gamma.rsample"):
        d.rsample()
    with pytest.raises(NotImplementedError, match="Dirichlet.rsample"):
        Beta(1.0, 2.0).rsample()
    with pytest.raises(NotImplementedError, match="gammainc"):
        d.cdf(f64([1.0]))


def test_gradcheck():
    a = f64([0.7, 2.5], requires_grad=True)
    b = f64([1.3, 0.4], requires_grad=True)
    x = f64([0.3, 0.6])
    assert tl.autograd.gradcheck(lambda p, q: Gamma(p, q).log_prob(x), (a, b))
    assert tl.autograd.gradcheck(lambda p, q: Gamma(p, q).entropy(), (a, b))
    assert tl.autograd.gradcheck(lambda p, q: Beta(p, q).log_prob(x), (a, b))
    assert tl.autograd.gradcheck(lambda p, q: Beta(p, q).entropy(), (a, b))
    c = f64([[0.7, 2.5, 1.0]], requires_grad=True)
    assert tl.autograd.gradcheck(lambda p: Dirichlet(p).log_prob(f64([0.2, 0.3, 0.5])), (c,))


def test_expand_shapes():
    g = Gamma(f64([1.0, 2.0]), 1.0).expand((3, 2))
    assert g.batch_shape == (3, 2) and tuple(g.sample((4,)).shape) == (4, 3, 2)
    be = Beta(f64([1.0, 2.0]), f64([1.0, 1.0])).expand((3, 2))
    assert be.batch_shape == (3, 2) and tuple(be.sample().shape) == (3, 2)
    di = Dirichlet(f64([1.0, 2.0])).expand((4,))
    assert di.batch_shape == (4,) and di.event_shape == (2,) and tuple(di.sample((5,)).shape) == (5, 4, 2)


@pytest.mark.parametrize("device", DEVICES)
def test_devices(device):
    tl.manual_seed(2)
    d = Gamma(tl.tensor([0.5, 3.0], device=device), tl.tensor([1.0, 2.0], device=device))
    s = d.sample((3,))
    assert s.device.type == device and bool((s > 0).all())
    ref = 0.5 * np.log(1.0) - 0.5 * np.log(2.0) - 2.0 - lgamma([0.5])[0]
    np.testing.assert_allclose(npy(d.log_prob(tl.tensor([2.0, 2.0], device=device)))[0], ref, rtol=1e-5)


def test_gamma_sampler_terminates_on_invalid_concentrations():
    # torch's values: nan, 0 and alpha <= -2/3 give tiny (its max(tiny, nan or 0)), inf gives inf (was nan)
    tiny = tl.finfo(tl.float32).tiny
    conc = [float("nan"), float("inf"), -1.0, 0.0, -float("inf"), 2.0]
    s = Gamma(tl.tensor(conc), tl.tensor(1.0), validate_args=False).sample().tolist()
    assert s[:5] == [tiny, float("inf"), tiny, tiny, tiny] and s[5] > tiny
    assert Gamma(tl.tensor(float("inf"), dtype=tl.float64), 2.0).sample().item() == float("inf")
    assert Gamma(tl.tensor(-0.5), tl.tensor(1.0), validate_args=False).sample((20,)).gt(0).all().item()


def test_dirichlet_sample_clamps_as_torch():
    # torch: min(nextafter(1, 0), max(tiny, x)): nan (inf / inf) gives tiny, the top is 1 - eps / 2 (was 1 - eps)
    tiny = tl.finfo(tl.float32).tiny
    assert Dirichlet(tl.tensor([0.0, 1.0]), validate_args=False).sample().tolist() == [tiny, 0.9999999403953552]
    assert Dirichlet(tl.tensor([float("inf"), 1.0]), validate_args=False).sample().tolist() == [tiny, tiny]
    assert Beta(tl.tensor(float("inf")), tl.tensor(float("inf")), validate_args=False).sample().item() == tiny
    top = Dirichlet(tl.tensor([0.0, 1.0], dtype=tl.float64), validate_args=False).sample()[1].item()
    assert top == 1 - 2.0 ** -53
