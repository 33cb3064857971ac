"""``StudentT(df, loc=0.0, scale=1.0)``: Student's t with ``df`` degrees of freedom, shifted by ``loc``
and stretched by ``scale`` (heavy-tailed likelihoods, e.g. DeepAR's StudentT head).

Sampling draws ``loc + scale * X / sqrt(Z / df)`` with ``X ~ Normal(0, 1)`` and ``Z ~ Chi2(df)`` (from
Gamma's host-looped Marsaglia-Tsang sampler). That gives a path derivative in ``loc`` and ``scale``
but not in ``df`` (PyTorch differentiates its gamma sampler; tensorlab has no such gradient), so
``rsample`` raises when ``df`` requires grad rather than silently returning a zero ``df``
gradient. PyTorch's StudentT has no ``cdf``/``icdf``; neither has this one."""

from __future__ import annotations

import math
import numbers

import tensorlab as tl

from . import constraints
from .distribution import Distribution
from .gamma import _standard_gamma
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        # undefined (nan) for df <= 1
        return tl.where(self.df > 1, self.loc, float("nan"))

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        # the finite formula at a stand-in df of 3 where df <= 2: at df == 2 it divides by zero, and its
        # infinite derivative would turn the zero gradient of the untaken branch into nan
        df = tl.where(self.df > 2, self.df, 3.0)
        finite = self.scale.pow(2) * df / (df - 2)
        # infinite for 1 < df <= 2, undefined for df <= 1
        return tl.where(self.df > 2, finite, tl.where(self.df > 1, float("inf"), float("nan")))

    def __init__(self, df, loc=0.0, scale=1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        scalar = all(isinstance(v, numbers.Number) for v in (df, loc, scale))
        super().__init__(() if scalar else self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(StudentT, batch_shape, _instance, "df", "loc", "scale")

    def _standard_draw(self, shape):
        """``X / sqrt(Z / df)`` at ``shape``, with no graph."""
        with tl.no_grad():
            df = self.df.detach().expand(shape).contiguous()
            x = _standard_normal(shape, dtype=df.dtype, device=df.device)
            chi2 = 2 * _standard_gamma(0.5 * df)  # Chi2(df) = Gamma(df / 2, rate 1 / 2)
            return x * (chi2 / df).rsqrt()

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with tl.no_grad():
            return self.loc.expand(shape) + self.scale.expand(shape) * self._standard_draw(shape)

    def rsample(self, sample_shape=()):
        if self.df.requires_grad and tl.is_grad_enabled():
            raise NotImplementedError("StudentT.rsample: df requires grad, but tensorlab has no reparametrised "
                                      "(differentiable) gamma sampler, so the sample cannot be differentiated "
                                      "in df; detach df or use sample()")
        shape = tuple(self._extended_shape(sample_shape))
        return self.loc + self.scale * self._standard_draw(shape)

    def _log_normalizer(self):
        """log of the density's normalising constant ``scale * sqrt(df) * B(df / 2, 1 / 2)``, which
        log_prob divides out and the entropy starts from (``B(a, 1/2) = Gamma(a) sqrt(pi) / Gamma(a + 1/2)``)."""
        half_df = 0.5 * self.df
        log_beta = tl.lgamma(half_df) - tl.lgamma(half_df + 0.5) + 0.5 * math.log(math.pi)
        return self.scale.log() + 0.5 * self.df.log() + log_beta

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        # the kernel (1 + z^2 / df) ** -((df + 1) / 2), in logs
        return tl.log1p(z.pow(2) / self.df) * (-0.5 * (self.df + 1.0)) - self._log_normalizer()

    def entropy(self):
        # -E[log p] = log normaliser + (df + 1) / 2 * E[log1p(z^2 / df)], that expectation being
        # digamma((df + 1) / 2) - digamma(df / 2)
        half_df = 0.5 * self.df
        return self._log_normalizer() + (half_df + 0.5) * (tl.digamma(half_df + 0.5) - tl.digamma(half_df))
