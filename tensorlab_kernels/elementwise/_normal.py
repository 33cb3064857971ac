"""The normal distribution's functions in numpy: ``erfcx`` (exp(x**2) erfc(x)), ``ndtri`` (the
inverse of the standard normal cdf), ``ndtr`` and ``log_ndtr``.

The cpu twins of the unary kernel's ops of these names; ``erfcx`` and ``ndtri`` also stand in for
libdevice's ``__nv_erfcx`` and ``__nv_normcdfinv`` in Triton's interpreter. All compute in
float64 and return the input's dtype.

- ``erfcx``: below 5, ``exp(x**2) * erfc(x)`` with x**2 split into an exact head and a small
  tail (``exp(x*x)`` alone is off by x**2 ulps: 6e-14 at x = 25) and Python's ``math.erfc``;
  from 5 on, the continued fraction erfcx(x) = 1 / (sqrt(pi) (x + (1/2) / (x + 1 / (x + (3/2) /
  (x + ...))))), no cancellation and no overflow (erfcx(1e300) = 5.6e-301).
- ``ndtri``: Cephes' rational approximations (what PyTorch computes, on the cpu and the GPU):
  accurate in the far tail (ndtri(1e-300) = -37.04) where sqrt(2) erfinv(2p - 1) has lost
  every digit to 2p - 1 = -1.
- ``log_ndtr``: PyTorch's formula, ``log(erfcx(-x / sqrt 2) / 2) - x**2 / 2`` below -1 (finite
  down to -1e154 and beyond) and ``log1p(-erfc(x / sqrt 2) / 2)`` above.
"""

from __future__ import annotations

import math

import numpy as np

from ._polynomial import polevl

_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_INV_SQRT_PI = 1.0 / math.sqrt(math.pi)
_SQRT1_2 = math.sqrt(0.5)
_SPLIT = 134217729.0  # 2**27 + 1 (Dekker's split of a double into two 26-bit halves)
_CF_TERMS = 60  # continued-fraction depth: below 1e-16 relative from x = 5 on (checked)


def _exp_square(x):
    """exp(x * x) without the rounding error of x * x (exact head, small tail)."""
    c = _SPLIT * x
    hi = c - (c - x)
    lo = x - hi
    return np.exp(hi * hi) * np.exp((2.0 * hi + lo) * lo)


def erfcx_np(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    out_dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        out = np.empty_like(x64)
        near = ~(x64 >= 5.0)  # (nan too: erfc(nan) is nan)
        xn = x64[near]
        out[near] = np.where(xn < -26.7, np.inf, _exp_square(xn) * _erfc(xn))  # (2 exp(x**2) overflows there)
        xf = x64[~near]
        f = xf.copy()
        for k in range(_CF_TERMS, 0, -1):
            f = xf + (0.5 * k) / f
        out[~near] = np.where(np.isinf(xf), 0.0, _INV_SQRT_PI / f)
    return out.astype(out_dtype)


# Cephes ndtri: central region |p - 0.5| <= 3/8, then z = sqrt(-2 log p) in [2, 8) and [8, 64)
_P0 = (-5.99633501014107895267e1, 9.80010754185999661536e1, -5.66762857469070293439e1,
       1.39312609387279679503e1, -1.23916583867381258016e0)
_Q0 = (1.0, 1.95448858338141759834e0, 4.67627912898881538453e0, 8.63602421390890590575e1,
       -2.25462687854119370527e2, 2.00260212380060660359e2, -8.20372256168333339912e1, 1.59056225126211695515e1,
       -1.18331621121330003142e0)
_P1 = (4.05544892305962419923e0, 3.15251094599893866154e1, 5.71628192246421288162e1, 4.40805073893200834700e1,
       1.46849561928858024014e1, 2.18663306850790267539e0, -1.40256079171354495875e-1,
       -3.50424626827848203418e-2, -8.57456785154685413611e-4)
_Q1 = (1.0, 1.57799883256466749731e1, 4.53907635128879210584e1, 4.13172038254672030440e1,
       1.50425385692907503408e1, 2.50464946208309415979e0, -1.42182922854787788574e-1,
       -3.80806407691578277194e-2, -9.33259480895457427372e-4)
_P2 = (3.23774891776946035970e0, 6.91522889068984211695e0, 3.93881025292474443415e0, 1.33303460815807542389e0,
       2.01485389549179081538e-1, 1.23716634817820021358e-2, 3.01581553508235416007e-4,
       2.65806974686737550832e-6, 6.23974539184983293730e-9)
_Q2 = (1.0, 6.02427039364742014255e0, 3.67983563856160859403e0, 1.37702099489081330271e0,
       2.16236993594496635890e-1, 1.34204006088543189037e-2, 3.28014464682127739104e-4,
       2.89247864745380683936e-6, 6.79019408009981274425e-9)
_EXP_M2 = 0.13533528323661269189  # exp(-2)
_S2PI = 2.50662827463100050242  # sqrt(2 pi)


def ndtri_np(p: np.ndarray) -> np.ndarray:
    p = np.asarray(p)
    out_dtype = p.dtype if p.dtype.kind == "f" else np.dtype(np.float64)
    p64 = p.astype(np.float64)
    with np.errstate(all="ignore"):
        upper = p64 > 1.0 - _EXP_M2
        y = np.where(upper, 1.0 - p64, p64)
        central = y > _EXP_M2
        yc = y - 0.5
        y2 = yc * yc
        xc = (yc + yc * (y2 * polevl(_P0, y2) / polevl(_Q0, y2))) * _S2PI
        x = np.sqrt(-2.0 * np.log(y))
        x0 = x - np.log(x) / x
        z = 1.0 / x
        x1 = np.where(x < 8.0, z * polevl(_P1, z) / polevl(_Q1, z), z * polevl(_P2, z) / polevl(_Q2, z))
        tail = np.where(upper, x0 - x1, x1 - x0)
        out = np.where(central, xc, tail)
        out = np.where(p64 == 0, -np.inf, np.where(p64 == 1, np.inf, out))
        out = np.where((p64 < 0) | (p64 > 1) | np.isnan(p64), np.nan, out)
    return out.astype(out_dtype)


def ndtr_np(x: np.ndarray) -> np.ndarray:
    x64 = np.asarray(x).astype(np.float64)
    return (0.5 * _erfc(-x64 * _SQRT1_2)).astype(x.dtype)


def log_ndtr_np(x: np.ndarray) -> np.ndarray:
    x64 = np.asarray(x).astype(np.float64)
    with np.errstate(all="ignore"):
        t = x64 * _SQRT1_2
        low = x64 < -1.0
        out = np.empty_like(x64)
        out[low] = np.log(erfcx_np(-t[low]) / 2.0) - t[low] * t[low]
        out[~low] = np.log1p(-_erfc(t[~low]) / 2.0)
    return out.astype(x.dtype)


__all__ = ["erfcx_np", "ndtri_np", "ndtr_np", "log_ndtr_np"]
