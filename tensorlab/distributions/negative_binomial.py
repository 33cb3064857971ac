"""``NegativeBinomial(total_count, probs=None, logits=None)``: the number of successes, each with
probability ``probs``, before ``total_count`` failures (a count likelihood with variance above its
mean, e.g. DeepAR's head for demand data). ``total_count`` may be any nonnegative real.

Everything is written in ``logits`` (log-odds of a success), where it stays finite for any
probability: the odds ``p / (1 - p)`` are ``exp(logits)``, ``log p`` and ``log(1 - p)`` are
``logsigmoid(+-logits)``. Sampling is the gamma-Poisson mixture: a Poisson rate drawn from
``Gamma(total_count, rate = 1 / odds)`` (host-looped Marsaglia-Tsang), then a Poisson count at it."""

from __future__ import annotations

import tensorlab as tl
import tensorlab.nn.functional as F

from . import constraints
from ._binary_probability import BinaryProbability
from .gamma import Gamma
from .poisson import _poisson

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbability):
    """The negative binomial distribution, parametrised by ``probs`` or ``logits`` (not both)."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0), "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self._init_probability(probs, logits, validate_args, total_count)

    def expand(self, batch_shape, _instance=None):
        return self._expand_probability(NegativeBinomial, batch_shape, _instance)

    def _odds(self):
        return self.logits.exp()

    @property
    def mean(self):
        return self.total_count * self._odds()

    @property
    def mode(self):
        # the largest k whose probability is at least its predecessor's: floor((r - 1) * odds), or 0
        return ((self.total_count - 1) * self._odds()).floor().clamp(min=0.0)

    @property
    def variance(self):
        # r * odds / (1 - p): the mean divided by the failure probability sigmoid(-logits)
        return self.mean / F.sigmoid(-self.logits)

    def sample(self, sample_shape=()):
        with tl.no_grad():
            rates = Gamma(self.total_count, self._odds().reciprocal(), validate_args=False).sample(sample_shape)
            return _poisson(rates.contiguous())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        r = self.total_count
        # log C(k + r - 1, k) = lgamma(k + r) - lgamma(k + 1) - lgamma(r); at k = r = 0 it is log 1 = 0 (the
        # lgammas would give inf - inf)
        log_choose = tl.lgamma(r + value) - tl.lgamma(value + 1.0) - tl.lgamma(r)
        log_choose = log_choose.masked_fill(r + value == 0.0, 0.0)
        return log_choose + r * F.logsigmoid(-self.logits) + value * F.logsigmoid(self.logits)
