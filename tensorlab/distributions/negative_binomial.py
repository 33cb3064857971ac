"""``NegativeBinomial(total_count, probs=None, logits=None)``: the number of successes, each with
probability ``probs``, before ``total_count`` failures (a count likelihood with variance above its
mean, e.g. DeepAR's head for demand data). ``total_count`` may be any nonnegative real.

Sampling is the gamma-Poisson mixture: a rate from ``Gamma(total_count, exp(-logits))`` (host-looped
Marsaglia-Tsang), then a Poisson count at that rate (Poisson's host-looped samplers)."""

from __future__ import annotations

import tensorlab as tl
import tensorlab.nn.functional as F

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .poisson import _poisson
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """The negative binomial distribution, parametrised by ``probs`` or ``logits`` (not both)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = tl.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        for name in ("probs", "logits"):  # whichever of them exist (given, or computed already)
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * tl.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / tl.sigmoid(-self.logits)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()

    def sample(self, sample_shape=()):
        with tl.no_grad():
            # the Poisson rate of each draw is Gamma(total_count, rate = (1 - p) / p) distributed
            gamma = Gamma(self.total_count, tl.exp(-self.logits), validate_args=False)
            return _poisson(gamma.sample(sample_shape).contiguous())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        # log p^k (1 - p)^r with log p = logsigmoid(logits), log(1 - p) = logsigmoid(-logits), stable for any logits
        log_unnormalized = self.total_count * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
        # log of the binomial coefficient C(k + r - 1, k) = Gamma(k + r) / (k! Gamma(r)); the k = r = 0 term is
        # log 1 = 0 (the lgammas would give inf - inf there)
        log_normalization = -tl.lgamma(self.total_count + value) + tl.lgamma(1.0 + value) + tl.lgamma(self.total_count)
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized - log_normalization
