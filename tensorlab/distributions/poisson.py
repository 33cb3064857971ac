"""``Poisson(rate)``: ``P(k) = rate^k exp(-rate) / k!`` on the nonnegative integers.

Sampling composes tensorlab ops (tensorlab has no Poisson sampler op): for ``rate < 10``
Knuth's multiplication of uniforms (one round per count, so at most a few dozen), for
``rate >= 10`` Hörmann's transformed rejection (PTRS, 1993; the method numpy uses), both as
rejection loops run on the host until every element is done."""

from __future__ import annotations

import numbers

import tensorlab as tl
from tensorlab._dtype import torch_name as _torch_name

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]

_PTRS_MIN_RATE = 10.0


def _knuth(lam):
    """Poisson draws for small rates: count uniforms multiplied before the product drops below e^-lam."""
    limit = tl.exp(-lam)
    p = tl.ones_like(lam)
    count = tl.zeros_like(lam)
    active = lam > 0
    while bool(active.any()):
        p = p * tl.rand(tuple(lam.shape), dtype=lam.dtype, device=lam.device)
        active = active & (p > limit)
        count = count + active.to(lam.dtype)
    return count


def _ptrs(lam):
    """Poisson draws for rates >= 10 (Hörmann's PTRS)."""
    slam, loglam = lam.sqrt(), lam.log()
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    log_invalpha = tl.log(1.1239 + 1.1328 / (b - 3.4))
    vr = 0.9277 - 3.6224 / (b - 2)
    out = tl.zeros_like(lam)
    done = tl.zeros_like(lam, dtype=tl.bool)
    while True:
        u = tl.rand(tuple(lam.shape), dtype=lam.dtype, device=lam.device) - 0.5
        v = tl.rand(tuple(lam.shape), dtype=lam.dtype, device=lam.device)
        us = 0.5 - u.abs()
        k = tl.floor((2 * a / us + b) * u + lam + 0.43)
        quick = (us >= 0.07) & (v <= vr)
        rejected = (k < 0) | ((us < 0.013) & (v > us))
        log_ratio = v.log() + log_invalpha - tl.log(a / (us * us) + b)
        slow = ~rejected & (log_ratio <= -lam + k * loglam - tl.lgamma(k.clamp(min=0) + 1))
        accept = quick | slow
        out = tl.where(accept & ~done, k, out)
        done = done | accept
        if bool(done.all()):
            return out


def _poisson(rate):
    # torch.poisson's refusals, before any draw: no kernel for integer rates, and a nan or negative rate
    # (possible with validate_args=False) is an error rather than a count
    if not rate.dtype.is_floating_point:
        raise NotImplementedError(f"\"poisson_{rate.device.type}\" not implemented for '{_torch_name(rate.dtype)}'")
    if not bool((rate >= 0).all()):
        bad = rate[~(rate >= 0)]
        raise RuntimeError(f"invalid Poisson rate, expected rate to be non-negative (found {bad.tolist()})")
    with tl.no_grad():
        big = rate >= _PTRS_MIN_RATE
        small_draws = _knuth(tl.where(big, 0.0, rate))
        if not bool(big.any()):
            return small_draws
        return tl.where(big, _ptrs(tl.where(big, rate, _PTRS_MIN_RATE)), small_draws)


class Poisson(ExponentialFamily):
    """The Poisson distribution with mean ``rate``."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def __init__(self, rate, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(() if isinstance(rate, numbers.Number) else self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Poisson, batch_shape, _instance, "rate")

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with tl.no_grad():
            return _poisson(self.rate.detach().expand(shape).contiguous())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self):
        return (tl.log(self.rate),)

    def _log_normalizer(self, x):
        return tl.exp(x)


