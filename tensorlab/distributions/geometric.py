"""``Geometric(probs=None, logits=None)``: the number of failures before the first success of
Bernoulli(probs) trials, ``P(k) = (1 - p)^k p`` for k = 0, 1, ..."""

from __future__ import annotations

import tensorlab as tl
from tensorlab.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from ._binary_probability import BinaryProbability
from .utils import broadcast_all

__all__ = ["Geometric"]


class Geometric(BinaryProbability):
    """The geometric distribution, parametrised by ``probs`` (in (0, 1]) or ``logits`` (not both)."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self._init_probability(probs, logits, validate_args)
        # unit_interval admits p = 0, where no success ever comes: PyTorch refuses it too (given probs only)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            p = self.probs
            raise ValueError(f"Expected parameter probs ({type(p).__name__} of shape {tuple(p.shape)}) of distribution "
                             f"{self!r} to be positive but found invalid values:\n{p.detach()[~(p > 0)]}")

    def expand(self, batch_shape, _instance=None):
        return self._expand_probability(Geometric, batch_shape, _instance)

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return tl.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        tiny = tl.finfo(self.probs.dtype).tiny
        with tl.no_grad():
            # inversion: floor(log u / log(1 - p)), u in [tiny, 1)
            u = tl.empty(shape, dtype=self.probs.dtype, device=self.probs.device).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # p == 1 at k == 0: 0 * log(0) is 0 (probability 1), not NaN
        probs = tl.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
