"""Argument and value validation (constraints, validate_args, set_default_validate_args), shapes
of Independent, and distributions.utils."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.distributions import (
    Bernoulli,
    Beta,
    Binomial,
    Categorical,
    Dirichlet,
    Distribution,
    Exponential,
    Gamma,
    Geometric,
    Independent,
    Normal,
    OneHotCategorical,
    Poisson,
    Uniform,
    constraints,
)
from tensorlab.distributions.utils import broadcast_all, clamp_probs, logits_to_probs, probs_to_logits

from .helpers import assert_close, f64, npy


@pytest.mark.parametrize("make, fragment", [
    (lambda: Normal(f64([0.0]), f64([-1.0])), "Expected parameter scale"),
    (lambda: Normal(f64([float("nan")]), f64([1.0])), "Expected parameter loc"),
    (lambda: Uniform(f64([1.0]), f64([0.0])), "Expected parameter low"),
    (lambda: Bernoulli(f64([1.5])), "GreaterThanEq|Interval"),
    (lambda: Bernoulli(f64([0.5]), f64([0.0])), "not both"),
    (lambda: Bernoulli(), "Either `probs` or `logits`"),
    (lambda: Categorical(f64(0.5)), "at least one-dimensional"),
    (lambda: Categorical(f64([-0.5, 1.5])), "Simplex"),
    (lambda: Exponential(f64([0.0])), "GreaterThan"),
    (lambda: Gamma(f64([-1.0]), f64([1.0])), "concentration"),
    (lambda: Dirichlet(f64(1.0)), "at least one-dimensional"),
    (lambda: Poisson(f64([-1.0])), "rate"),
    (lambda: Binomial(f64([2.5]), f64([0.5])), "total_count"),
    (lambda: Geometric(f64([0.0])), "to be positive"),
    (lambda: Independent(Normal(f64([0.0]), f64([1.0])), 2), "reinterpreted_batch_ndims"),
    (lambda: broadcast_all("a", f64([1.0])), "instances of Number"),
    # torch accepts only int, float and bool (np.float64 is a float) as numbers
    (lambda: Normal(np.float32(0.0), 1.0), r"instances of Number .*numpy\.float32"),
    (lambda: Poisson(np.int64(2)), "numpy.int64"),
    (lambda: Beta(Fraction(1, 2), 1.0), "fractions.Fraction"),
    (lambda: Bernoulli(logits=1 + 0j), "complex"),
])
def test_constructor_errors(make, fragment):
    with pytest.raises(ValueError, match=fragment):
        make()


@pytest.mark.parametrize("make, value, fragment", [
    (lambda: Exponential(f64([1.0])), f64([-1.0]), "within the support"),
    (lambda: Bernoulli(f64([0.3])), f64([0.5]), "within the support"),
    (lambda: Uniform(f64([0.0]), f64([1.0])), f64([1.5]), "within the support"),
    (lambda: Categorical(f64([0.5, 0.5])), f64([2.0]), "within the support"),
    (lambda: Normal(f64([0.0, 0.0]), f64([1.0, 1.0])), f64([0.0, 0.0, 0.0]), "not broadcastable"),
    (lambda: Normal(f64([0.0]), f64([1.0])), 0.5, "must be a Tensor"),
    (lambda: OneHotCategorical(f64([0.5, 0.5])), f64([1.0, 0.0, 0.0]), "must match event_shape"),
    (lambda: OneHotCategorical(f64([0.5, 0.5])), f64([1.0, 1.0]), "within the support"),
])
def test_value_errors(make, value, fragment):
    with pytest.raises(ValueError, match=fragment):
        make().log_prob(value)


def test_numpy_float64_and_bool_are_numbers():
    assert Normal(np.float64(0.5), 1.0).loc.item() == 0.5 and Normal(np.float64(0.5), 1.0).batch_shape == ()
    assert Beta(np.float64(2.0), 1).mean.item() == 0.6666666865348816
    assert Bernoulli(True).probs.item() == 1.0


def test_validate_args_switches():
    Normal(f64([0.0]), f64([-1.0]), validate_args=False)  # no check
    d = Exponential(f64([1.0]), validate_args=False)
    assert np.isfinite(npy(d.log_prob(f64([-1.0])))).all()  # value not checked either
    try:
        Distribution.set_default_validate_args(False)
        Normal(f64([0.0]), f64([-1.0]))
        with pytest.raises(ValueError):
            Normal(f64([0.0]), f64([-1.0]), validate_args=True)
    finally:
        Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        Normal(f64([0.0]), f64([-1.0]))
    with pytest.raises(ValueError):
        Distribution.set_default_validate_args(2)
    # expand keeps the setting without re-checking
    assert Normal(f64([0.0]), f64([1.0]), validate_args=False).expand((3,))._validate_args is False


def test_constraints():
    x = f64([-1.0, 0.0, 0.5, 1.0, 2.0, float("nan")])
    assert npy(constraints.real.check(x)).tolist() == [True] * 5 + [False]
    assert npy(constraints.positive.check(x)).tolist() == [False, False, True, True, True, False]
    assert npy(constraints.nonnegative.check(x)).tolist() == [False, True, True, True, True, False]
    assert npy(constraints.unit_interval.check(x)).tolist() == [False, True, True, True, False, False]
    assert npy(constraints.half_open_interval(0.0, 1.0).check(x)).tolist() == [False, True, True, False, False, False]
    assert npy(constraints.boolean.check(x)).tolist() == [False, True, False, True, False, False]
    assert npy(constraints.nonnegative_integer.check(x)).tolist() == [False, True, False, True, True, False]
    assert npy(constraints.integer_interval(0, 1).check(x)).tolist() == [False, True, False, True, False, False]
    assert npy(constraints.greater_than(f64([0.0] * 6)).check(x)).tolist() == [False, False, True, True, True, False]
    assert npy(constraints.less_than(1.0).check(x)).tolist() == [True, True, True, False, False, False]
    assert npy(constraints.simplex.check(f64([[0.2, 0.8], [0.5, 0.6]]))).tolist() == [True, False]
    assert npy(constraints.one_hot.check(f64([[0.0, 1.0], [1.0, 1.0]]))).tolist() == [True, False]
    ind = constraints.independent(constraints.positive, 1)
    assert ind.event_dim == 1 and npy(ind.check(f64([[1.0, 2.0], [1.0, -1.0]]))).tolist() == [True, False]
    assert repr(ind) == "IndependentConstraint(GreaterThan(lower_bound=0.0), 1)"
    assert repr(constraints.real) == "Real()" and repr(constraints.interval(0, 1)) == \
        "Interval(lower_bound=0, upper_bound=1)"
    assert constraints.is_dependent(constraints.dependent) and not constraints.is_dependent(constraints.real)
    assert constraints.is_dependent(Uniform.support) and repr(Uniform(0.0, 2.0).support).startswith("Interval")
    assert constraints.dependent(is_discrete=True, event_dim=1).event_dim == 1
    with pytest.raises(NotImplementedError):
        _ = constraints.dependent.event_dim
    with pytest.raises(ValueError, match="dependent"):
        constraints.dependent.check(x)
    assert constraints.nonnegative_integer.is_discrete and not constraints.real.is_discrete
    assert npy(constraints.lower_cholesky.check(f64([[1.0, 0.0], [2.0, 3.0]]))).tolist() is True
    assert npy(constraints.symmetric.check(f64([[1.0, 2.0], [2.0, 3.0]]))).tolist() is True
    cat = constraints.cat([constraints.positive, constraints.real], dim=0, lengths=[1, 2])
    assert npy(cat.check(f64([1.0, -1.0, -2.0]))).tolist() == [True, True, True]
    stk = constraints.stack([constraints.positive, constraints.real], dim=-1)
    assert npy(stk.check(f64([[-1.0, -1.0]]))).tolist() == [[False, True]]


def test_independent_shapes():
    base = Normal(f64(np.zeros((4, 3, 2))), f64(np.ones((4, 3, 2))))
    d = Independent(base, 2)
    assert d.batch_shape == (4,) and d.event_shape == (3, 2) and d.has_rsample
    assert tuple(d.sample((5,)).shape) == (5, 4, 3, 2)
    lp = d.log_prob(f64(np.zeros((4, 3, 2))))
    assert_close(lp, np.full(4, 6 * -0.5 * np.log(2 * np.pi)))
    assert_close(d.entropy(), npy(base.entropy()).reshape(4, -1).sum(-1))
    e = d.expand((7, 4))
    assert e.batch_shape == (7, 4) and e.base_dist.batch_shape == (7, 4, 3, 2)
    assert isinstance(d.support, constraints._IndependentConstraint) and d.support.event_dim == 2
    assert Independent(Bernoulli(f64([0.5])), 0).has_enumerate_support
    assert not Independent(Bernoulli(f64([0.5])), 1).has_enumerate_support
    with pytest.raises(NotImplementedError, match="cartesian product"):
        Independent(Bernoulli(f64([0.5])), 1).enumerate_support()
    with pytest.raises(ValueError, match="within the support"):
        Independent(Exponential(f64([[1.0, 1.0]])), 1, validate_args=True).base_dist.log_prob(f64([[1.0, -1.0]]))


def test_utils():
    p = f64([0.0, 0.3, 1.0])
    eps = np.finfo(np.float64).eps
    assert_close(clamp_probs(p), [eps, 0.3, 1 - eps])
    assert tl.finfo(clamp_probs(tl.tensor([0.0])).dtype).eps == np.finfo(np.float32).eps
    assert_close(probs_to_logits(f64([0.25]), is_binary=True), [np.log(0.25 / 0.75)])
    assert_close(logits_to_probs(f64([0.0]), is_binary=True), [0.5])
    assert_close(logits_to_probs(f64([[0.0, np.log(3.0)]])), [[0.25, 0.75]])
    assert_close(probs_to_logits(f64([0.25, 0.75])), np.log([0.25, 0.75]))
    a, b = broadcast_all(f64([1.0, 2.0]), 3)
    assert b.dtype == tl.float64 and npy(b).tolist() == [3.0, 3.0]
    (c,) = broadcast_all(1.5)
    assert c.dtype == tl.get_default_dtype() and c.shape == ()
    with pytest.raises(RuntimeError):
        broadcast_all(f64([1.0, 2.0]), f64([1.0, 2.0, 3.0]))
    # lazy logits: computed once from probs, then cached on the instance
    d = Bernoulli(f64([0.25]))
    assert "logits" not in d.__dict__
    _ = d.logits
    assert "logits" in d.__dict__
