"""Bernoulli, Categorical, OneHotCategorical, Poisson, Binomial, Geometric: closed-form values,
sample frequencies, enumerate_support, logits <-> probs, shapes, cuda."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.distributions import Bernoulli, Binomial, Categorical, Geometric, OneHotCategorical, Poisson
from tensorlab.distributions.negative_binomial import NegativeBinomial
from tensorlab.distributions.one_hot_categorical import OneHotCategoricalStraightThrough

from ..conftest import DEVICES
from .helpers import assert_close, assert_moments, f64, lgamma, npy

P = np.array([0.2, 0.5, 0.9])


def test_bernoulli_values():
    for d in (Bernoulli(f64(P)), Bernoulli(logits=f64(np.log(P / (1 - P))))):
        x = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
        assert_close(d.log_prob(f64(x)), x * np.log(P) + (1 - x) * np.log1p(-P))
        assert_close(d.entropy(), -(P * np.log(P) + (1 - P) * np.log1p(-P)))
        assert_close(d.mean, P)
        assert_close(d.variance, P * (1 - P))
        assert_close(d.probs, P)
        assert_close(d.logits, np.log(P / (1 - P)))
    mode = npy(Bernoulli(f64(P)).mode)
    assert mode[0] == 0 and np.isnan(mode[1]) and mode[2] == 1
    d = Bernoulli(f64(P))
    assert_close(d.enumerate_support(), np.array([[0.0] * 3, [1.0] * 3]))
    assert tuple(d.enumerate_support(expand=False).shape) == (2, 1)


def test_categorical_values():
    w = np.array([[1.0, 2.0, 1.0, 4.0], [3.0, 1.0, 1.0, 1.0]])
    p = w / w.sum(-1, keepdims=True)
    for d in (Categorical(f64(w)), Categorical(logits=f64(np.log(w)))):
        assert d.batch_shape == (2,) and d.event_shape == ()
        assert_close(d.probs, p)
        assert_close(d.logits, np.log(p))
        v = np.array([[3, 0], [1, 2]])
        assert_close(d.log_prob(tl.tensor(v)), np.log(np.take_along_axis(p, v.T, -1).T))
        assert_close(d.entropy(), -(p * np.log(p)).sum(-1))
        assert npy(d.mode).tolist() == [3, 0]
        assert np.isnan(npy(d.mean)).all() and tuple(d.variance.shape) == (2,)
    assert npy(d.enumerate_support()).tolist() == [[0, 0], [1, 1], [2, 2], [3, 3]]
    assert tuple(d.enumerate_support(False).shape) == (4, 1)
    # a zero probability: entropy stays finite
    assert_close(Categorical(f64([0.0, 1.0])).entropy(), 0.0)


def test_one_hot_categorical_values():
    w = np.array([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]])
    d = OneHotCategorical(f64(w))
    assert d.batch_shape == (2,) and d.event_shape == (3,)
    v = np.eye(3)[[1, 0]]
    assert_close(d.log_prob(f64(v)), np.log([0.6, 0.5]))
    assert_close(d.entropy(), -(w * np.log(w)).sum(-1))
    assert_close(d.mean, w)
    assert_close(d.variance, w * (1 - w))
    assert_close(d.mode, np.eye(3)[[1, 0]])
    assert tuple(d.enumerate_support().shape) == (3, 2, 3)
    assert_close(d.enumerate_support(False)[:, 0], np.eye(3))
    s = d.sample((5,))
    assert tuple(s.shape) == (5, 2, 3) and np.all(npy(s).sum(-1) == 1)


def test_straight_through_gradient():
    tl.manual_seed(0)
    probs = f64([0.2, 0.3, 0.5], requires_grad=True)
    d = OneHotCategoricalStraightThrough(probs)
    s = d.rsample((4,))
    assert np.all(npy(s).sum(-1) == 1) and d.has_rsample
    (s * f64([1.0, 2.0, 3.0])).sum().backward()
    # probs are normalised by their sum: d/dp_j of sum_i c_i p_i / S with S = 1
    c = np.array([1.0, 2.0, 3.0]) * 4
    assert_close(probs.grad, c - (c * [0.2, 0.3, 0.5]).sum())


def test_poisson_values():
    rate = np.array([0.5, 3.0, 40.0])
    d = Poisson(f64(rate))
    k = np.array([[0.0, 2.0, 35.0], [3.0, 0.0, 41.0]])
    assert_close(d.log_prob(f64(k)), k * np.log(rate) - rate - lgamma(k + 1))
    assert_close(d.mean, rate)
    assert_close(d.variance, rate)
    assert_close(d.mode, np.floor(rate))
    with pytest.raises(NotImplementedError):
        d.entropy()  # PyTorch has none either
    assert_close(Poisson(f64([0.0])).log_prob(f64([0.0])), [0.0])


def test_poisson_sample_refuses_what_torch_poisson_refuses():
    # torch.poisson: nan or negative rates (allowed by validate_args=False) raise, integer rates have no kernel
    state = tl.get_rng_state()
    with pytest.raises(RuntimeError, match=r"invalid Poisson rate, expected rate to be non-negative \(found \[nan\]\)"):
        Poisson(tl.tensor([1.0, float("nan")]), validate_args=False).sample()
    with pytest.raises(RuntimeError, match="invalid Poisson rate"):
        Poisson(tl.tensor(-1.0), validate_args=False).sample()
    with pytest.raises(NotImplementedError, match="\"poisson_cpu\" not implemented for 'Long'"):
        Poisson(tl.tensor([2, 3])).sample()
    assert tl.get_rng_state().tolist() == state.tolist()  # refused before any draw
    assert Poisson(tl.tensor([0.0, 2.0], dtype=tl.float64)).sample().dtype is tl.float64


def test_binomial_values():
    n, p = np.array([5.0, 5.0, 5.0]), P
    for d in (Binomial(f64(n), f64(p)), Binomial(f64(n), logits=f64(np.log(p / (1 - p))))):
        k = np.array([[0.0, 2.0, 5.0], [3.0, 1.0, 4.0]])
        ref = lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1) + k * np.log(p) + (n - k) * np.log1p(-p)
        assert_close(d.log_prob(f64(k)), ref)
        assert_close(d.mean, n * p)
        assert_close(d.variance, n * p * (1 - p))
        assert_close(d.mode, np.minimum(np.floor((n + 1) * p), n))
        ks = np.arange(6.0)[:, None]
        pmf = np.exp(lgamma(n + 1) - lgamma(ks + 1) - lgamma(n - ks + 1) + ks * np.log(p) + (n - ks) * np.log1p(-p))
        assert_close(d.entropy(), -(pmf * np.log(pmf)).sum(0))
    assert tuple(d.enumerate_support().shape) == (6, 3)
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
        Binomial(f64([2.0, 3.0]), f64([0.5, 0.5])).entropy()
    assert Binomial(probs=f64([0.3])).total_count.item() == 1  # keyword form, default total_count


@pytest.mark.parametrize("device", DEVICES)
def test_binomial_sample_edge_cases_follow_torch(device):
    # torch.binomial: floor(total_count) trials of min(p, 1 - p), total_count - k for p > 1/2; a draw does not
    # depend on the other batch entries (2.5 gave 3 successes beside a count of 10, 2 alone)
    tl.manual_seed(0)

    def draw(counts, probs, n=()):
        d = Binomial(tl.tensor(counts, device=device), tl.tensor(probs, device=device), validate_args=False)
        return d.sample(n).tolist()

    assert draw([2.5, 10.0], [1.0, 1.0]) == [2.5, 10.0]
    assert draw([2.5], [1.0]) == [2.5]
    assert draw([2.5, 2.5, -1.0, -1.0, 0.0, 3.0, 3.0], [0.0, 1.5, 0.7, 1.0, float("nan"), -0.5, 1.0]) == [
        0.0, 2.5, 0.0, 0.0, 0.0, 0.0, 3.0]
    nan = draw([3.0, 3.0], [float("nan"), 0.5])
    assert math.isnan(nan[0]) and nan[1] in (0.0, 1.0, 2.0, 3.0)
    assert set(draw(2.5, 0.3, (200,))) == {0.0, 1.0, 2.0}
    assert set(draw(2.5, 0.7, (200,))) == {0.5, 1.5, 2.5}


def test_geometric_values():
    d = Geometric(f64(P))
    k = np.array([[0.0, 3.0, 1.0], [5.0, 0.0, 2.0]])
    assert_close(d.log_prob(f64(k)), k * np.log1p(-P) + np.log(P))
    assert_close(d.mean, 1 / P - 1)
    assert_close(d.variance, (1 - P) / P**2)
    assert_close(d.entropy(), -((1 - P) * np.log1p(-P) + P * np.log(P)) / P)
    assert_close(Geometric(logits=f64(np.log(P / (1 - P)))).mean, 1 / P - 1)
    assert_close(Geometric(f64([1.0])).log_prob(f64([0.0])), [0.0])  # certain success at k = 0


def test_tiny_probabilities_from_logits():
    # below logit -20 (probs < 2e-9) float64 keeps its precision: logsigmoid was x itself there, so
    # Geometric's entropy and KL were off by exactly 1 (torch 2.15's values)
    from tensorlab.distributions import kl_divergence

    assert_close(Geometric(logits=f64(-25.0)).entropy(), 25.999788807795408, rtol=1e-13, atol=0)
    assert_close(kl_divergence(Geometric(logits=f64(-25.0)), Geometric(logits=f64(-24.0))), 0.7184930206500795,
                 rtol=1e-12, atol=0)
    assert_close(Bernoulli(logits=f64(-25.0)).log_prob(f64(0.0)), -1.3887557770431158e-11, rtol=1e-12, atol=0)


@pytest.mark.parametrize("make, mean, var", [
    (lambda: Bernoulli(f64([0.1, 0.6])), [0.1, 0.6], [0.09, 0.24]),
    (lambda: Poisson(f64([0.7, 4.0, 25.0, 300.0])), [0.7, 4.0, 25.0, 300.0], [0.7, 4.0, 25.0, 300.0]),
    (lambda: Binomial(f64([3.0, 12.0]), f64([0.3, 0.8])), [0.9, 9.6], [0.63, 1.92]),
    (lambda: Geometric(f64([0.25, 0.8])), [3.0, 0.25], [12.0, 0.3125]),
])
def test_sample_moments(make, mean, var):
    tl.manual_seed(2024)
    d = make()
    s = d.sample((20000,))
    assert tuple(s.shape) == (20000,) + tuple(d.batch_shape)
    v = npy(s)
    assert np.all(v >= 0) and np.all(v == np.floor(v))
    assert_moments(s, mean, var)


def test_categorical_sample_frequencies():
    tl.manual_seed(7)
    p = np.array([0.1, 0.2, 0.3, 0.4])
    s = Categorical(f64(p)).sample((20000,))
    assert s.dtype == tl.int64 and tuple(s.shape) == (20000,)
    freq = np.bincount(npy(s), minlength=4) / 20000
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / 20000))
    s2 = Categorical(f64([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0]])).sample((3, 100))
    assert tuple(s2.shape) == (3, 100, 2)
    assert set(npy(s2[..., 0]).ravel()) <= {0, 1} and np.all(npy(s2[..., 1]) == 2)


def test_gradcheck():
    p = f64([0.3, 0.6], requires_grad=True)
    x = f64([1.0, 0.0])
    assert tl.autograd.gradcheck(lambda a: Bernoulli(a).log_prob(x), (p,))
    assert tl.autograd.gradcheck(lambda a: Bernoulli(logits=a).entropy(), (p,))
    assert tl.autograd.gradcheck(lambda a: Geometric(a).log_prob(f64([2.0, 1.0])), (p,))
    assert tl.autograd.gradcheck(lambda a: Binomial(f64([4.0, 4.0]), a).log_prob(f64([1.0, 3.0])), (p,))
    assert tl.autograd.gradcheck(lambda a: Poisson(a).log_prob(f64([1.0, 3.0])), (p,))
    logits = f64([[0.1, -0.4, 1.0]], requires_grad=True)
    assert tl.autograd.gradcheck(lambda a: Categorical(logits=a).entropy(), (logits,))
    assert tl.autograd.gradcheck(lambda a: Categorical(logits=a).log_prob(tl.tensor([2])), (logits,))


def test_expand():
    d = Categorical(f64([0.2, 0.8])).expand((3,))
    assert d.batch_shape == (3,) and tuple(d.probs.shape) == (3, 2)
    assert tuple(d.sample((4,)).shape) == (4, 3)
    b = Bernoulli(logits=f64([0.0])).expand((2, 1))
    assert b.batch_shape == (2, 1) and "probs" not in b.__dict__
    assert tuple(Binomial(f64([2.0]), f64([0.5])).expand((5,)).sample().shape) == (5,)
    o = OneHotCategorical(f64([0.2, 0.8])).expand((3,))
    assert o.batch_shape == (3,) and o.event_shape == (2,)


@pytest.mark.parametrize("device", DEVICES)
def test_devices(device):
    tl.manual_seed(5)
    b = Bernoulli(logits=tl.tensor([-1.0, 2.0], device=device))
    v = b.sample((3,))
    assert v.device.type == device and tuple(v.shape) == (3, 2)
    ref = -np.log1p(np.exp(-np.array([-1.0, 2.0])))
    np.testing.assert_allclose(npy(b.log_prob(tl.ones(2, device=device))), ref, rtol=1e-5)
    c = Categorical(logits=tl.tensor([[0.0, 1.0, 2.0]], device=device))
    s = c.sample((4,))
    assert s.device.type == device and tuple(s.shape) == (4, 1)
    lp = np.array([0.0, 1.0, 2.0]) - math.log(np.exp([0.0, 1.0, 2.0]).sum())
    np.testing.assert_allclose(npy(c.log_prob(tl.tensor([[2]], device=device))), [[lp[2]]], rtol=1e-5)
    np.testing.assert_allclose(npy(c.entropy()), [-(np.exp(lp) * lp).sum()], rtol=1e-5)
    p = Poisson(tl.tensor([2.0, 30.0], device=device)).sample((2,))
    assert p.device.type == device and np.all(npy(p) >= 0)


def test_negative_binomial_values_gradients_and_samples():
    total_count = f64([0.5, 2.0, 5.0, 0.0], requires_grad=True)
    logits = f64([-1.0, 0.3, 2.0, 0.5], requires_grad=True)
    d = NegativeBinomial(total_count, logits=logits)
    lp = d.log_prob(f64([0.0, 3.0, 10.0, 0.0]))
    # values from torch.distributions.NegativeBinomial; total_count = value = 0 has probability 1
    assert_close(lp, [-0.1566308437591114, -1.9854818612227447, -4.9951653863293686, 0.0])
    assert_close(d.mean, [0.1839397205857212, 2.6997176151520064, 36.9452804946532538, 0.0])
    assert_close(d.variance, [2.5160736220402752e-01, 6.3439552159330246e+00, 3.0993603066037451e+02, 0.0])
    assert_close(d.mode, [0.0, 1.0, 29.0, 0.0])
    lp.sum().backward()
    assert_close(total_count.grad, [-0.3132616875182229, 0.2289780888648061, -0.9586990178139794, np.nan])
    assert_close(logits.grad, [-0.1344707106849976, 0.1277874159417052, -3.2119561696682366, 0.0])
    p = NegativeBinomial(f64([3.0, 1.0]), probs=f64([0.25, 0.9]))
    assert_close(p.logits, [-1.0986122886681098, 2.1972245773362196])
    assert_close(p.mean, [1.0, 9.0])
    assert_close(p.mode, [0.0, 0.0])
    assert p.expand((4, 2)).sample().shape == (4, 2) and p.param_shape == (2,)
    with pytest.raises(ValueError, match="Either `probs` or `logits`"):
        NegativeBinomial(2.0)
    with pytest.raises(ValueError, match="probs"):
        NegativeBinomial(2.0, probs=1.0)
    with pytest.raises(ValueError, match="total_count"):
        NegativeBinomial(-1.0, logits=0.0)
    with pytest.raises(ValueError, match="support"):
        NegativeBinomial(2.0, probs=0.3).log_prob(tl.tensor(1.5))
    tl.manual_seed(0)
    q = NegativeBinomial(f64([3.0, 10.0]), logits=f64([0.5, -1.0]))
    samples = q.sample((40000,))
    assert np.array_equal(npy(samples), np.round(npy(samples)))
    assert_moments(samples, npy(q.mean), npy(q.variance))


@pytest.mark.parametrize("device", DEVICES)
def test_negative_binomial_devices(device):
    tl.manual_seed(0)
    d = NegativeBinomial(tl.tensor([2.0, 5.0], device=device), logits=tl.tensor([0.1, -0.3], device=device))
    s = d.sample((4,))
    assert s.device.type == device and tuple(s.shape) == (4, 2)
    assert np.array_equal(npy(s), np.round(npy(s))) and (npy(s) >= 0).all()
    np.testing.assert_allclose(npy(d.log_prob(tl.tensor([3.0, 0.0], device=device))), [-2.03568888, -2.77177596],
                               rtol=1e-5)
