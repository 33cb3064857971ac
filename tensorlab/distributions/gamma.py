"""``Gamma(concentration, rate)``: density ``rate^a x^(a-1) exp(-rate x) / Gamma(a)`` on ``x > 0``.

Sampling: tensorlab has no gamma sampler op, so ``_standard_gamma`` composes one from ``randn``
and ``rand`` with Marsaglia and Tsang's method (2000), a rejection loop run on the host until every
element has accepted (each round accepts > 95% of what is left), with the ``U^(1/a)`` boost for
``a < 1``. It is not differentiable in ``a`` (PyTorch differentiates its sampler implicitly), so
``rsample`` raises NotImplementedError and ``has_rsample`` is False here. ``cdf`` needs the
regularised incomplete gamma function, which tensorlab lacks (NotImplementedError)."""

from __future__ import annotations

import numbers

import tensorlab as tl

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Gamma"]


def _standard_gamma(concentration, generator=None):
    """Gamma(concentration, 1) draws of ``concentration``'s shape (no graph)."""
    with tl.no_grad():
        alpha = concentration.detach()
        small = alpha < 1
        a = tl.where(small, alpha + 1, alpha)  # Gamma(a) = Gamma(a + 1) * U^(1/a)
        d = a - 1.0 / 3.0
        c = (9 * d).rsqrt()
        # as PyTorch's sampler: a NaN or zero concentration, or one whose d is not positive (alpha <= -2/3, allowed
        # by validate_args=False), gives NaN or 0 there, which its final max(tiny, x) turns into tiny; an infinite
        # one gives d * v = inf (c = 0, so v = 1); in (-2/3, 0) it is boosted as a < 1 is. None of these loop.
        tiny = tl.finfo(a.dtype).tiny
        bad = ~(d > 0) | (alpha == 0)
        infinite = alpha == float("inf")
        out = tl.where(infinite, float("inf"), tl.zeros_like(a))
        done = bad | infinite
        while True:
            x = tl.randn(tuple(a.shape), dtype=a.dtype, device=a.device, generator=generator)
            u = tl.rand(tuple(a.shape), dtype=a.dtype, device=a.device, generator=generator)
            v = (1 + c * x) ** 3
            log_v = v.clamp(min=tiny).log()
            accept = (v > 0) & (u.clamp(min=tiny).log() < 0.5 * x * x + d - d * v + d * log_v)
            out = tl.where(accept & ~done, d * v, out)
            done = done | accept
            if bool(done.all()):
                break
        u = tl.rand(tuple(a.shape), dtype=a.dtype, device=a.device, generator=generator).clamp(min=tiny)
        # in log space: u^(1/alpha) underflows for tiny alpha long before the product does
        boosted = tl.exp(out.log() + u.log() / alpha)
        return tl.where(bad, tiny, tl.where(small, boosted, out).clamp(min=tiny))


class Gamma(ExponentialFamily):
    """The gamma distribution with shape ``concentration`` and inverse scale ``rate``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = False  # see the module docstring
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        super().__init__(() if scalar else self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Gamma, batch_shape, _instance, "concentration", "rate")

    def sample(self, sample_shape=(), generator=None):
        shape = tuple(self._extended_shape(sample_shape))
        with tl.no_grad():
            value = _standard_gamma(self.concentration.expand(shape), generator) / self.rate.expand(shape)
            return value.clamp(min=tl.finfo(value.dtype).tiny)

    def rsample(self, sample_shape=(), generator=None):
        raise NotImplementedError("Gamma.rsample: tensorlab has no reparametrised (differentiable) gamma sampler; "
                                  "use sample()")

    def log_prob(self, value):
        value = tl.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (tl.xlogy(self.concentration, self.rate) + tl.xlogy(self.concentration - 1, value)
                - self.rate * value - tl.lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - tl.log(self.rate) + tl.lgamma(self.concentration)
                + (1.0 - self.concentration) * tl.digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return tl.lgamma(x + 1) + (x + 1) * tl.log(-y.reciprocal())

    def cdf(self, value):
        raise NotImplementedError("Gamma.cdf: needs the regularized incomplete gamma function (special.gammainc), "
                                  "which tensorlab does not have yet")
