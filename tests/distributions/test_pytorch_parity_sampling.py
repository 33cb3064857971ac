"""Distributions where translating torch 2.15's test_distributions.py found differences (expected
values are torch's)."""

from __future__ import annotations

import pytest

import tensorlab as tl

D = tl.distributions


def test_log_normal_validates_by_default():
    d = D.LogNormal(0.0, 1.0)
    assert d._validate_args is True  # (it was left False by the base-class call)
    with pytest.raises(ValueError):
        d.log_prob(tl.tensor([-1.0, 0.5]))  # outside the support
    with pytest.raises(ValueError):
        d.log_prob(1)  # not a tensor
    assert D.LogNormal(0.0, 1.0, validate_args=False).log_prob(tl.tensor([-1.0])).isnan().item()


def test_beta_with_small_concentrations_does_not_pile_up_at_one_half():
    # torch's test_beta_underflow: float32 gamma draws all underflowed to `tiny`, so their ratio was 0.5
    # for a sixth of the samples; the draws are now made in float64, as PyTorch's _sample_dirichlet
    tl.manual_seed(0)
    s = D.Beta(tl.tensor(1e-2), tl.tensor(1e-2)).sample([20000])
    assert s.dtype is tl.float32
    assert float((s == 0.5).float().mean()) < 0.01
    assert abs(float((s < 0.1).float().mean()) - 0.5) < 0.05 and abs(float((s > 0.9).float().mean()) - 0.5) < 0.05
    x = D.Dirichlet(tl.tensor([0.01, 0.01, 0.01])).sample([5000])
    assert x.dtype is tl.float32 and float((x.max(-1).values < 0.9).float().mean()) < 0.08  # torch: 0.040


def test_gamma_sample_takes_a_generator():
    draws = [D.Gamma(tl.tensor(2.0), tl.tensor(1.0)).sample((5,), generator=tl.Generator().manual_seed(42))
             for _ in range(2)]
    assert draws[0].shape == (5,) and draws[0].tolist() == draws[1].tolist()


def test_log_normal_cdf_validates_the_log_of_the_value():
    # torch checks log(value) against the Normal's support (Real()): 0 (log -inf) is allowed, negatives (log nan)
    # are not; icdf is never validated
    d = D.LogNormal(0.0, 1.0)
    assert d.cdf(tl.tensor([0.0, 1.0, float("inf")])).tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(ValueError, match=r"support \(Real\(\)\) of the distribution Normal"):
        d.cdf(tl.tensor([-1.0, 2.0]))
    with pytest.raises(ValueError, match="Real"):
        d.cdf(tl.tensor(float("nan")))
    assert d.icdf(tl.tensor([0.0, 0.5])).tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="GreaterThan"):
        d.log_prob(tl.tensor(0.0))  # log_prob checks the value itself
    assert D.LogNormal(0.0, 1.0, validate_args=False).cdf(tl.tensor(-1.0)).isnan().item()
