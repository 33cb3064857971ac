"""``Bernoulli(probs=None, logits=None)``: 1 with probability ``probs``, 0 otherwise."""

from __future__ import annotations

import math

import tensorlab as tl
from tensorlab.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from ._binary_probability import BinaryProbability
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(BinaryProbability, ExponentialFamily):
    """The Bernoulli distribution, parametrised by ``probs`` or by ``logits`` (log-odds), not both."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self._init_probability(probs, logits, validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_probability(Bernoulli, batch_shape, _instance)

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        return tl.where(self.probs == 0.5, math.nan, mode)  # a tie has no mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with tl.no_grad():
            return tl.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True):
        values = tl.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (tl.logit(self.probs),)

    def _log_normalizer(self, x):
        return tl.log1p(tl.exp(x))
