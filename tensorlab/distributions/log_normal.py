"""``LogNormal(loc, scale)``: ``exp(X)`` with ``X ~ Normal(loc, scale)``.

PyTorch derives it from ``TransformedDistribution(Normal, ExpTransform)``; tensorlab has no
transforms yet, so it is written directly on its ``base_dist`` (a ``Normal``) with the same results:
``log_prob(y) = Normal.log_prob(log y) - log y``, ``cdf(y) = Normal.cdf(log y)``."""

from __future__ import annotations

import math

import tensorlab as tl

from . import constraints
from .distribution import Distribution
from .normal import Normal

__all__ = ["LogNormal"]


class LogNormal(Distribution):
    """The log-normal distribution, reparametrised as ``exp(loc + scale * eps)``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=False)  # the Normal validated loc/scale
        # values are checked as the Normal's setting says (the default one too: it was left False)
        self._validate_args = self.base_dist._validate_args

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(LogNormal, batch_shape, _instance, "base_dist")

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def sample(self, sample_shape=()):
        with tl.no_grad():
            return self.base_dist.sample(sample_shape).exp()

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # the Normal's density at x = log y times |dx/dy| = 1/y
        x = value.log()
        return -((x - self.loc) ** 2) / (2 * self.scale ** 2) - self.scale.log() - math.log(math.sqrt(2 * math.pi)) - x

    def cdf(self, value):
        x = value.log()
        if self._validate_args:
            # as PyTorch's TransformedDistribution: log(value) is checked against the Normal's support, so
            # value 0 (log -inf) is allowed and gives 0; negative or nan values give nan and are refused
            self.base_dist._validate_sample(x)
        return 0.5 * (1 + tl.erf((x - self.loc) * self.scale.reciprocal() / 2 ** 0.5))

    def icdf(self, value):
        return self.base_dist.icdf(value).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc
