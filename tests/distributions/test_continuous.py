"""Normal, Uniform, Exponential, Laplace, LogNormal: closed-form values, moments of samples,
reparametrised gradients, shapes, cuda."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.distributions import Exponential, Gumbel, Laplace, LogNormal, Normal, StudentT, Uniform

from ..conftest import DEVICES
from .helpers import assert_close, assert_moments, f64, npy

LOC = np.array([0.5, -1.0, 2.0])
SCALE = np.array([1.5, 0.3, 2.0])
X = np.array([[0.1, -1.2, 3.0], [2.0, 0.0, -1.0]])
U = np.array([0.1, 0.5, 0.97])
ERF = np.vectorize(math.erf)


def test_normal_values():
    d = Normal(f64(LOC), f64(SCALE))
    z = (X - LOC) / SCALE
    assert_close(d.log_prob(f64(X)), -0.5 * z**2 - np.log(SCALE) - 0.5 * math.log(2 * math.pi))
    assert_close(d.cdf(f64(X)), 0.5 * (1 + ERF(z / math.sqrt(2))))
    assert_close(d.cdf(d.icdf(f64(U))), U)
    assert_close(d.icdf(f64([0.5, 0.5, 0.5])), LOC)
    assert_close(d.entropy(), 0.5 + 0.5 * math.log(2 * math.pi) + np.log(SCALE))
    assert_close(d.mean, LOC)
    assert_close(d.mode, LOC)
    assert_close(d.stddev, SCALE)
    assert_close(d.variance, SCALE**2)
    assert_close(d.perplexity(), np.exp(0.5 + 0.5 * math.log(2 * math.pi) + np.log(SCALE)))


def test_uniform_values():
    low, high = np.array([0.0, -2.0]), np.array([1.0, 3.0])
    d = Uniform(low=f64(low), high=f64(high))
    x = np.array([0.5, 2.9])
    assert_close(d.log_prob(f64(x)), -np.log(high - low))
    assert_close(d.cdf(f64(x)), (x - low) / (high - low))
    assert_close(d.icdf(f64([0.25, 0.5])), low + np.array([0.25, 0.5]) * (high - low))
    assert_close(d.entropy(), np.log(high - low))
    assert_close(d.mean, (low + high) / 2)
    assert_close(d.variance, (high - low) ** 2 / 12)
    assert_close(d.stddev, (high - low) / math.sqrt(12))
    assert np.isnan(npy(d.mode)).all()
    # outside [low, high): probability 0 (validation off)
    free = Uniform(f64(low), f64(high), validate_args=False)
    assert_close(free.log_prob(f64([1.0, -3.0])), [-np.inf, -np.inf])
    assert_close(free.cdf(f64([2.0, -3.0])), [1.0, 0.0])


def test_exponential_values():
    rate = np.array([0.5, 2.0])
    d = Exponential(f64(rate))
    x = np.array([[0.0, 1.5], [3.0, 0.2]])
    assert_close(d.log_prob(f64(x)), np.log(rate) - rate * x)
    assert_close(d.cdf(f64(x)), 1 - np.exp(-rate * x))
    assert_close(d.icdf(f64([0.3, 0.9])), -np.log1p(-np.array([0.3, 0.9])) / rate)
    assert_close(d.entropy(), 1 - np.log(rate))
    assert_close(d.mean, 1 / rate)
    assert_close(d.stddev, 1 / rate)
    assert_close(d.variance, rate**-2.0)
    assert_close(d.mode, [0.0, 0.0])


def test_laplace_values():
    d = Laplace(f64(LOC), f64(SCALE))
    assert_close(d.log_prob(f64(X)), -np.log(2 * SCALE) - np.abs(X - LOC) / SCALE)
    cdf = np.where(X < LOC, 0.5 * np.exp((X - LOC) / SCALE), 1 - 0.5 * np.exp(-(X - LOC) / SCALE))
    assert_close(d.cdf(f64(X)), cdf)
    assert_close(d.cdf(d.icdf(f64(U))), U)
    assert_close(d.entropy(), 1 + np.log(2 * SCALE))
    assert_close(d.variance, 2 * SCALE**2)
    assert_close(d.stddev, math.sqrt(2) * SCALE)


def test_lognormal_values():
    d = LogNormal(f64(LOC), f64(SCALE))
    y = np.exp(X)
    z = (X - LOC) / SCALE
    assert_close(d.log_prob(f64(y)), -0.5 * z**2 - np.log(SCALE) - 0.5 * math.log(2 * math.pi) - X)
    assert_close(d.cdf(f64(y)), 0.5 * (1 + ERF(z / math.sqrt(2))))
    assert_close(d.cdf(d.icdf(f64(U))), U)
    assert_close(d.mean, np.exp(LOC + SCALE**2 / 2))
    assert_close(d.mode, np.exp(LOC - SCALE**2))
    assert_close(d.variance, np.expm1(SCALE**2) * np.exp(2 * LOC + SCALE**2))
    assert_close(d.entropy(), 0.5 + 0.5 * math.log(2 * math.pi) + np.log(SCALE) + LOC)


def test_gumbel_values_samples_and_kl():
    # torch.distributions.Gumbel, as MoE gating adds Gumbel noise (fairseq/DeepSpeed gumbel_rsample); values from torch
    d = Gumbel(f64(LOC), f64(SCALE))
    assert d.batch_shape == (3,) and d.event_shape == () and d.has_rsample
    assert_close(d.log_prob(f64(X)), [[-1.44440361350645, -0.07709457006207288, -1.7996778402725786],
                                      [-1.7733445492796067, -2.1650345223546497, -3.67483625089801]])
    assert_close(d.cdf(f64(X)), [[0.2710084786487892, 0.14259682432584153, 0.5452392118926052],
                                 [0.6922006275553465, 0.9649548239030261, 0.011314286380459615]])
    assert_close(d.icdf(f64(U)), [-0.7510486678719341, -0.8900461238255009, 8.982733900167556])
    assert_close(d.mean, [1.3658234973522994, -0.8268353005295401, 3.1544313298030655])
    assert_close(d.mode, LOC)
    assert_close(d.stddev, [1.9238247452427961, 0.38476494904855923, 2.565099660323728])
    assert_close(d.variance, [3.7011016504085092, 0.14804406601634038, 6.579736267392906])
    assert_close(d.entropy(), [1.9826807730096971, 0.37324286057559664, 2.270362845461478])
    kl = tl.distributions.kl_divergence(Gumbel(f64([0.5, 0.0]), f64([2.0, 1.0])),
                                        Gumbel(f64([-0.3, 0.0]), f64([0.7, 1.0])))
    assert_close(kl, [1.768834190704962, 0.0], rtol=1e-12, atol=1e-14)
    # float32: cdf/icdf go through Uniform(tiny, 1 - eps) as torch's TransformedDistribution does
    f = Gumbel(0.0, 1.0)
    assert f.batch_shape == () and f.loc.dtype == tl.float32 and tuple(f.rsample((2,)).shape) == (2,)
    # (torch's float32 cdf also passes through (v - 0.5) + 0.5, which costs it a few bits near 0: rtol 1e-5)
    np.testing.assert_allclose(npy(f.cdf(tl.tensor([-2.0, 0.0, 3.0]))),
                               [0.00061798095703125, 0.3678794801235199, 0.9514321088790894], rtol=1e-5)
    np.testing.assert_allclose(npy(f.icdf(tl.tensor([0.01, 0.5, 0.99]))),
                               [-1.5271798372268677, 0.3665127456188202, 4.600138187408447], rtol=1e-6)
    e = d.expand((4, 3))
    assert isinstance(e, Gumbel) and e.batch_shape == (4, 3) and tuple(e.sample((2,)).shape) == (2, 4, 3)
    tl.manual_seed(7)
    s = Gumbel(f64([1.0, -2.0]), f64([0.5, 2.0])).rsample((20000,))
    assert np.isfinite(npy(s)).all()
    assert_moments(s, [1.0 + 0.5 * 0.5772156649015329, -2.0 + 2.0 * 0.5772156649015329],
                   [np.pi ** 2 / 6 * 0.25, np.pi ** 2 / 6 * 4.0])
    with pytest.raises(ValueError, match="scale"):
        Gumbel(tl.tensor(0.0), tl.tensor(-1.0), validate_args=True)
    assert tl.autograd.gradcheck(lambda a, b: Gumbel(a, b).log_prob(f64([0.5, 1.0])),
                                 (f64([0.3, -0.2], requires_grad=True), f64([1.2, 0.7], requires_grad=True)))


def test_gumbel_icdf_bounds_in_the_distributions_dtype():
    # the uniform's bounds (tiny, 1 - eps) are the distribution's dtype, as torch's full_like(loc, ...): a float32
    # value on a float64 Gumbel was mapped at float32, where tiny is 0 in float16 / 1 - eps rounds to 1 (+-inf)
    d = Gumbel(f64([0.0]), f64([2.0]))
    assert_close(d.icdf(tl.tensor([0.0, 0.5, 1.0])), [-13.12600770036397, 0.733025841163328, 72.0873067782343])
    f = Gumbel(0.0, 1.0)  # 0-d float32 parameters win over a 0-d float16/bfloat16 value
    np.testing.assert_allclose(npy(f.icdf(tl.tensor(0.0, dtype=tl.float16))), -4.46976900100708, rtol=1e-6)
    np.testing.assert_allclose(npy(f.icdf(tl.tensor(1.0, dtype=tl.bfloat16))), 15.942384719848633, rtol=1e-6)


@pytest.mark.parametrize("make, mean, var", [
    (lambda: Normal(f64([1.0, -2.0]), f64([0.5, 3.0])), [1.0, -2.0], [0.25, 9.0]),
    (lambda: Uniform(f64([0.0, -1.0]), f64([1.0, 5.0])), [0.5, 2.0], [1 / 12, 3.0]),
    (lambda: Exponential(f64([0.5, 4.0])), [2.0, 0.25], [4.0, 1 / 16]),
    (lambda: Laplace(f64([1.0, 0.0]), f64([0.5, 2.0])), [1.0, 0.0], [0.5, 8.0]),
    (lambda: LogNormal(f64([0.0, 0.5]), f64([0.25, 0.5])), None, None),
])
def test_sample_moments(make, mean, var):
    tl.manual_seed(1234)
    d = make()
    mean = npy(d.mean) if mean is None else mean
    var = npy(d.variance) if var is None else var
    for draw in (d.sample, d.rsample):
        s = draw((20000,))
        assert tuple(s.shape) == (20000, 2) and s.dtype == tl.float64
        assert_moments(s, mean, var)


def test_rsample_gradients():
    # x = loc + scale * eps: dE[x]/dloc = 1, dE[x]/dscale = E[eps] ~ 0; for the sum of x^2 the analytic
    # pathwise gradient is 2x * dx/dparam
    tl.manual_seed(0)
    loc = f64([0.5, -1.0], requires_grad=True)
    scale = f64([2.0, 0.5], requires_grad=True)
    x = Normal(loc, scale).rsample((1000,))
    x.mean(0).sum().backward()
    assert_close(loc.grad, [1.0, 1.0])
    eps = (npy(x) - npy(loc)) / npy(scale)
    assert_close(scale.grad, eps.mean(0))
    # Exponential: x = E / rate, so dx/drate = -x / rate
    rate = f64([0.5, 3.0], requires_grad=True)
    x = Exponential(rate).rsample((50,))
    x.sum().backward()
    assert_close(rate.grad, -(npy(x) / npy(rate)).sum(0))
    # Uniform: x = low + u (high - low): d/dlow = 1 - u, d/dhigh = u
    low, high = f64([0.0], requires_grad=True), f64([2.0], requires_grad=True)
    x = Uniform(low, high).rsample((20,))
    x.sum().backward()
    u = npy(x) / 2
    assert_close(low.grad, (1 - u).sum(0))
    assert_close(high.grad, u.sum(0))


@pytest.mark.parametrize("cls, params, value", [
    (Normal, ([0.3, -0.2], [1.2, 0.7]), [0.5, 1.0]),
    (Laplace, ([0.3, -0.2], [1.2, 0.7]), [0.5, 1.0]),
    (LogNormal, ([0.3, -0.2], [1.2, 0.7]), [0.5, 1.0]),
    (Uniform, ([0.0, -1.0], [1.0, 2.0]), [0.5, 1.0]),
    (Exponential, ([0.5, 2.0],), [0.5, 1.0]),
])
def test_gradcheck_log_prob_entropy(cls, params, value):
    ps = tuple(f64(p, requires_grad=True) for p in params)
    v = f64(value)
    assert tl.autograd.gradcheck(lambda *a: cls(*a).log_prob(v), ps)
    assert tl.autograd.gradcheck(lambda *a: cls(*a).entropy(), ps)


def test_shapes_and_expand():
    d = Normal(f64([[0.0], [1.0]]), f64([1.0, 2.0, 3.0]))  # broadcast to (2, 3)
    assert d.batch_shape == (2, 3) and d.event_shape == ()
    assert tuple(d.sample().shape) == (2, 3)
    assert tuple(d.sample((4, 5)).shape) == (4, 5, 2, 3)
    assert tuple(d.rsample([7]).shape) == (7, 2, 3)
    e = d.expand((4, 2, 3))
    assert e.batch_shape == (4, 2, 3) and isinstance(e, Normal)
    assert_close(e.log_prob(f64(0.5)), np.broadcast_to(npy(d.log_prob(f64(0.5))), (4, 2, 3)))
    # numbers: batch shape (), default dtype
    s = Normal(0.0, 1.0)
    assert s.batch_shape == () and s.loc.dtype == tl.float32
    assert tuple(s.sample((3,)).shape) == (3,)
    mixed = Normal(f64([0.0, 1.0]), 1)
    assert mixed.scale.dtype == tl.float64 and mixed.batch_shape == (2,)
    assert Uniform(0, 1).has_rsample and Exponential(1.0).has_rsample and Laplace(0, 1).has_rsample
    with pytest.warns(FutureWarning):
        assert tuple(s.sample_n(2).shape) == (2,)


def test_keyword_forms():
    a = Normal(loc=f64([0.0]), scale=f64([2.0]), validate_args=True)
    b = Normal(f64([0.0]), f64([2.0]), True)
    assert_close(a.log_prob(value=f64([1.0])), npy(b.log_prob(f64([1.0]))))
    assert tuple(a.sample(sample_shape=(3,)).shape) == (3, 1)
    assert_close(Exponential(rate=f64([2.0])).mean, [0.5])
    assert_close(Laplace(loc=f64([1.0]), scale=f64([1.0])).mean, [1.0])
    assert_close(Uniform(low=0.0, high=4.0).mean, 2.0)


@pytest.mark.parametrize("device", DEVICES)
def test_devices(device):
    tl.manual_seed(3)
    loc = tl.tensor([0.5, -1.0], device=device)
    scale = tl.tensor([1.5, 0.5], device=device)
    d = Normal(loc, scale)
    s = d.rsample((3,))
    assert s.device.type == device and tuple(s.shape) == (3, 2)
    x = np.array([0.25, 1.0])
    z = (x - npy(loc)) / npy(scale)
    ref = -0.5 * z**2 - np.log(npy(scale)) - 0.5 * math.log(2 * math.pi)
    np.testing.assert_allclose(npy(d.log_prob(tl.tensor(x, dtype=tl.float32, device=device))), ref, rtol=1e-5)
    e = Exponential(tl.tensor([2.0], device=device))
    assert e.sample((4,)).device.type == device
    np.testing.assert_allclose(npy(e.cdf(tl.tensor([1.0], device=device))), 1 - np.exp(-2.0), rtol=1e-6)


def test_mixture_same_family_values_shapes_and_errors():
    # Gaussian mixtures as mixture density networks build them; values from torch.distributions
    from tensorlab.distributions import Categorical, Gamma, Independent, MixtureSameFamily
    pi = f64([[0.2, 0.8], [0.5, 0.5]])
    mu = f64([[[0., 1.], [2., -1.]], [[1., 1.], [-1., 0.5]]])
    sg = f64([[[1., 0.5], [2., 1.]], [[0.3, 1.], [1., 1.5]]])
    m = MixtureSameFamily(Categorical(probs=pi), Independent(Normal(mu, sg), 1))
    assert m.batch_shape == (2,) and m.event_shape == (2,) and not m.has_rsample
    assert_close(m.log_prob(f64([[0.5, 0.0], [1.0, -2.0]])), [-3.303619340062033, -5.352342428913324])
    assert_close(m.mean, [[1.6, -0.6], [0.0, 0.75]])
    assert_close(m.variance, [[4.04, 1.49], [1.545, 1.6875]])
    assert m.sample((7,)).shape == (7, 2, 2) and m.expand((3, 2)).sample().shape == (3, 2, 2)
    m2 = MixtureSameFamily(Categorical(logits=f64([0.0, 1.0])), Normal(f64([-1.0, 2.0]), f64([0.5, 1.5])))
    assert_close(m2.log_prob(f64([0.0, 3.0])), [-2.216638653464939, -1.8598875510532644])
    assert_close(m2.cdf(f64([0.0, 3.0])), [0.32950371319539895, 0.8154131643862633])
    assert_close(m2.mean, 1.1931757358900146) and assert_close(m2.variance, 3.481624556433347)
    s = MixtureSameFamily(Categorical(probs=f64([0.2, 0.8])), Normal(f64([-5., 5.]), f64([1., 1.]))).sample((4000,))
    assert abs(npy(s > 0).mean() - 0.8) < 0.05
    # a Categorical of a smaller batch broadcasts: every mixture of the batch chooses on its own
    m3 = MixtureSameFamily(Categorical(probs=f64([0.2, 0.8])), Normal(f64([[-50., 50.]] * 3), f64([[1., 1.]] * 3)))
    s3 = npy(m3.sample((2000,))) > 0
    assert s3.shape == (2000, 3) and abs(s3.mean() - 0.8) < 0.05 and (s3.any(1) & ~s3.all(1)).any()
    with pytest.raises(ValueError, match=r"`mixture_distribution component` \(3\) does not equal"):
        MixtureSameFamily(Categorical(probs=tl.ones(3)), Normal(tl.zeros(4), tl.ones(4)))
    with pytest.raises(ValueError, match="needs to be an  instance of tensorlab.distributions.Categorical"):
        MixtureSameFamily(Normal(0., 1.), Normal(tl.zeros(4), tl.ones(4)))
    with pytest.raises(ValueError, match="is not compatible with"):
        MixtureSameFamily(Categorical(probs=tl.ones(2, 3)), Normal(tl.zeros(5, 3), tl.ones(5, 3)))
    with pytest.raises(ValueError, match="to be within the support"):
        MixtureSameFamily(Categorical(probs=tl.ones(2)), Gamma(tl.ones(2), tl.ones(2)), validate_args=True).log_prob(
            tl.tensor([-1.0]))


def test_student_t_values_gradients_and_samples():
    df = f64([0.7, 1.5, 3.0, 10.0], requires_grad=True)
    loc = f64([0.0, 1.0, -2.0, 0.5], requires_grad=True)
    scale = f64([1.0, 0.5, 2.0, 3.0], requires_grad=True)
    d = StudentT(df, loc, scale)
    lp = d.log_prob(f64([0.3, -1.0, 4.0, 0.5]))
    # values from torch.distributions.StudentT
    assert_close(lp, [-1.3248233004784620, -3.4544228202985754, -4.4666247524232361, -2.0425096408190617])
    assert_close(d.entropy(), [3.0204438120891606, 1.4565122872847038, 2.4666247524232370, 2.6198747816437913])
    lp.sum().backward()
    assert_close(df.grad, [0.4214744632706270, -0.3705927846341202, -0.1666666666666665, 0.0024877400749754])
    assert_close(loc.grad, [0.6455696202531647, -1.1428571428571430, 0.5, 0.0])
    assert_close(scale.grad, [-0.8063291139240506, 2.5714285714285721, 1.0, -0.3333333333333333])
    # mean undefined for df <= 1, variance infinite for 1 < df <= 2 and undefined for df <= 1
    assert_close(d.mean, [np.nan, 1.0, -2.0, 0.5])
    assert_close(d.variance, [np.nan, np.inf, 12.0, 11.25])
    assert_close(d.mode, [0.0, 1.0, -2.0, 0.5])
    assert StudentT(2.0).batch_shape == () and StudentT(2.0).sample().dtype == tl.float32
    assert d.expand((2, 4)).sample().shape == (2, 4)
    with pytest.raises(ValueError, match="df"):
        StudentT(-1.0)
    with pytest.raises(ValueError, match="scale"):
        StudentT(1.0, 0.0, -1.0)
    tl.manual_seed(0)
    samples = StudentT(f64([5.0, 30.0]), f64([1.0, -1.0]), f64([2.0, 0.5])).sample((40000,))
    assert_moments(samples, [1.0, -1.0], [4.0 * 5 / 3, 0.25 * 30 / 28])


def test_student_t_variance_gradient_is_zero_where_variance_is_not_finite():
    # at df == 2 the finite formula scale^2 df / (df - 2) divides by zero; its branch is not taken, but
    # its infinite derivative times the zero the where passes back gave nan gradients. torch: 0 there.
    df = f64([2.0, 3.0, 1.5, 0.5], requires_grad=True)
    scale = f64([2.0, 2.0, 2.0, 2.0], requires_grad=True)
    StudentT(df, 0.0, scale).variance.sum().backward()
    assert_close(df.grad, [0.0, -8.0, 0.0, 0.0])
    assert_close(scale.grad, [0.0, 12.0, 0.0, 0.0])


def test_student_t_rsample_differentiates_loc_and_scale_not_df():
    loc, scale = f64([1.0, -1.0], requires_grad=True), f64([2.0, 0.5], requires_grad=True)
    tl.manual_seed(0)
    x = StudentT(f64([4.0, 9.0]), loc, scale).rsample((5,))
    x.sum().backward()
    assert_close(loc.grad, [5.0, 5.0])
    assert_close(scale.grad, ((npy(x) - [1.0, -1.0]) / [2.0, 0.5]).sum(0))
    with pytest.raises(NotImplementedError, match="StudentT.rsample: df requires grad"):
        StudentT(f64([4.0], requires_grad=True), 0.0, 1.0).rsample()


@pytest.mark.parametrize("device", DEVICES)
def test_student_t_devices(device):
    tl.manual_seed(0)
    d = StudentT(tl.tensor([3.0, 10.0], device=device), tl.tensor([0.0, 1.0], device=device), 2.0)
    s = d.sample((4,))
    assert s.device.type == device and tuple(s.shape) == (4, 2)
    np.testing.assert_allclose(npy(d.log_prob(tl.tensor([0.3, -1.0], device=device))), [-1.70898008, -2.16125059],
                               rtol=1e-5)
