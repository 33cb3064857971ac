"""``Gumbel(loc, scale)``: density ``exp(-(z + exp(-z))) / scale`` with ``z = (x - loc) / scale``.

PyTorch builds it as a ``TransformedDistribution`` of ``Uniform(tiny, 1 - eps)`` (the float type's
smallest normal and machine epsilon) through ``x = loc - scale * log(-log(u))``; tensorlab has no
transforms, so it is written directly on that uniform with the same results: samples never hit
``u = 0`` or ``u = 1`` (so never +-inf), ``cdf`` rescales ``exp(-exp(-z))`` to that interval and
``icdf`` maps its argument into it. One difference: PyTorch's ``cdf`` with validation on refuses a
value whose ``exp(-exp(-z))`` falls outside ``[tiny, 1 - eps]`` (a far tail); here it is 0 or 1."""

from __future__ import annotations

import math
import numbers

import tensorlab as tl

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, euler_constant

__all__ = ["Gumbel"]


class Gumbel(Distribution):
    """The Gumbel (type-I extreme value) distribution, reparametrised as ``loc - scale * log(-log(u))``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        scalar = isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number)
        super().__init__(() if scalar else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Gumbel, batch_shape, _instance, "loc", "scale")

    @property
    def mean(self):
        return self.loc + self.scale * euler_constant

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def _uniform_bounds(self):
        # the open interval PyTorch's base uniform lives on: log(u) and log(-log(u)) stay finite. As tensors
        # like loc (PyTorch's full_like), so a value of another dtype is mapped at the promoted dtype, not its own
        info = tl.finfo(self.loc.dtype)
        return tl.full_like(self.loc, info.tiny), tl.full_like(self.loc, 1 - info.eps)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        low, high = self._uniform_bounds()
        u = low + tl.rand(tuple(shape), dtype=self.loc.dtype, device=self.loc.device) * (high - low)
        return self.loc - self.scale * tl.log(-tl.log(u))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (self.loc - value) / self.scale
        return (z - z.exp()) - self.scale.log()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        low, high = self._uniform_bounds()
        u = tl.exp(-tl.exp((value - self.loc) / -self.scale))
        return ((u - low) / (high - low)).clamp(min=0, max=1)

    def icdf(self, value):
        low, high = self._uniform_bounds()
        u = value * (high - low) + low
        return self.loc - self.scale * tl.log(-tl.log(u))

    def entropy(self):
        return self.scale.log() + (1 + euler_constant)
