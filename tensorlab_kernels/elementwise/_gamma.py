"""The gamma family for the unary kernel: ``digamma``, ``trigamma`` and the Hurwitz ``zeta`` behind
``polygamma`` (Triton device functions and their numpy twins), and ``lgamma`` in numpy.

Each follows PyTorch's own algorithm (``aten/src/ATen/native/Math.h`` and ``cuda/Math.cuh``), so
the values at poles, infinities and negative arguments are PyTorch's:

- ``digamma``: ±0 -> ∓inf, negative integers -> nan, reflection ``digamma(1 - x) - pi / tan(pi r)``
  (r the fractional part of x, the tangent in float64) for x < 0, the recurrence up to x >= 10,
  then the asymptotic series (Cephes' ``psi``);
- ``trigamma`` (``polygamma(1, x)``): reflection below 0.5, six recurrence steps, a short
  asymptotic series (about 1e-10 relative: PyTorch's values, not more accurate ones);
- ``zeta(s, q)`` (``polygamma(n >= 2, x) = (-1)**(n+1) n! zeta(n + 1, x)``): Cephes' Euler-Maclaurin
  summation. PyTorch sums the terms of a negative q one by one up to q + k > 9 (its CUDA kernel
  never ends for a float32 q below -2**24 + 0.5; -1e15 + 0.5 in float64 takes days): here a
  negative non-integer q with r = q - floor(q) in (0, 1) uses
  ``zeta(s, q) = zeta(s, r) + (-1)**s (zeta(s, 1 - r) - zeta(s, 1 - q))`` (the terms (q + k)**-s
  for q + k < 0 are (-1)**s (j - r)**-s, j = 1 .. -floor(q)), three sums of at most ten terms;
  1 - r is formed as (floor(q) + 1) - q, exact, so a q just below an integer keeps its digits.
  The first two sums are added first: for an odd s and r = 1/2 (x = -10.5) they cancel exactly,
  leaving the small third; subtracting the third from the second first lost it (10% in float32).

``lgamma`` on the GPU is libdevice's (``__nv_lgamma``); its numpy twin (also the interpreter's
libdevice emulation) is a vectorised port of fdlibm's ``e_lgamma_r.c`` (glibc's, hence PyTorch's
cpu values): polynomial fits around the minimum and the roots 1 and 2, so it stays accurate to an
ulp or two where ``lgamma`` is near 0, Stirling's series from 8 on, and the reflection formula for
negative x.
"""

from __future__ import annotations

import math

import numpy as np

from .._triton import tl, triton
from ._polynomial import polevl
from .libdevice import fdiv
from .libdevice import libdevice as ld

INF: tl.constexpr = tl.constexpr(float("inf"))
PSI_10: tl.constexpr = tl.constexpr(2.25175258906672110764)  # digamma(10)
MACHEP: tl.constexpr = tl.constexpr(1.11022302462515654042e-16)  # Cephes' zeta tolerance (any dtype, as PyTorch)
# (constants multiply with the tensor first: in Triton's interpreter ``constexpr * tensor`` stays a
# constexpr wrapping a tensor, which libdevice calls refuse)

# Cephes' psi asymptotic series, highest power first
_PSI_A = (8.33333333333333333333e-2, -2.10927960927960927961e-2, 7.57575757575757575758e-3,
          -4.16666666666666666667e-3, 3.96825396825396825397e-3, -8.33333333333333333333e-3,
          8.33333333333333333333e-2)
# Cephes' zeta: (2k)! / B_2k
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)

# ----------------------------------------------------------------------------------------------
# Triton device functions (x in the compute type, float32 or float64)
# ----------------------------------------------------------------------------------------------


@triton.jit
def digamma(x):
    """PyTorch's calc_digamma."""
    neg = x < 0
    whole = ld.trunc(x)
    # reflection term from the fractional part, in float64 as PyTorch (pi * x loses digits for |x| > 1)
    r = (x - whole).to(tl.float64)
    refl = (-3.14159265358979323846 / ld.tan(r * 3.14159265358979323846)).to(x.dtype)
    result = tl.where(neg, refl, 0.0)
    z = tl.where(neg, 1.0 - x, x)
    for _ in range(10):  # from z > 0 (or 1 after reflection) ten steps reach 10
        step = z < 10.0
        result = tl.where(step, result - fdiv(1.0, z), result)
        z = tl.where(step, z + 1.0, z)
    zz = fdiv(1.0, z * z)
    poly = 8.33333333333333333333e-2
    poly = poly * zz - 2.10927960927960927961e-2
    poly = poly * zz + 7.57575757575757575758e-3
    poly = poly * zz - 4.16666666666666666667e-3
    poly = poly * zz + 3.96825396825396825397e-3
    poly = poly * zz - 8.33333333333333333333e-3
    poly = poly * zz + 8.33333333333333333333e-2
    y = tl.where(z < 1.0e17, zz * poly, 0.0)
    out = ld.log(z) - fdiv(0.5, z) - y + result
    out = tl.where(z == 10.0, result + PSI_10, out)
    out = tl.where(neg & (x == whole), float("nan"), out)  # negative integers (and -inf)
    return tl.where(x == 0, tl.where(ld.signbit(x) != 0, INF, -INF), out)  # digamma(±0) = ∓inf


@triton.jit
def trigamma(x):
    """PyTorch's calc_trigamma (polygamma(1, x))."""
    small = x < 0.5
    s = ld.sin(x * 3.14159265358979323846)
    result = tl.where(small, -fdiv(9.86960440108935861883, s * s), 0.0)  # pi**2 / sin(pi x)**2
    z = tl.where(small, 1.0 - x, x)
    for _ in range(6):
        result += fdiv(1.0, z * z)
        z += 1.0
    ixx = fdiv(1.0, z * z)
    result += fdiv(1.0 + fdiv(1.0, 2.0 * z) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42))), z)
    return tl.where(small, -result, result)


@triton.jit
def _em_term(total, live, fac, b, w, s, k, A):
    """One term of zeta's Euler-Maclaurin tail (Cephes); ``live`` lanes stop once a term is below MACHEP."""
    fac = fac * (s + k)
    b = fdiv(b, w)
    t = fdiv(fac * b, A)
    new = total + t
    total = tl.where(live, new, total)
    live = live & ~(tl.abs(fdiv(t, new)) < MACHEP)
    k = k + 1.0
    fac = fac * (s + k)
    b = fdiv(b, w)
    return total, live, fac, b, k + 1.0


@triton.jit
def _zeta_positive(s, q):
    """Cephes' zeta(s, q) summation for q > 0 (s > 1): at most ten terms before the tail."""
    total = ld.pow(q, -s)
    a = q
    b = tl.zeros_like(q)
    done = b != 0  # all False
    for i in range(10):  # PyTorch: while (i < 9 || a <= 9); for q > 0 that is at most ten steps
        active = ~done & ((i < 9) | (a <= 9.0))
        a = tl.where(active, a + 1.0, a)
        b = tl.where(active, ld.pow(a, -s), b)
        total = tl.where(active, total + b, total)
        done = done | (active & (b > total * -1.11022302462515654042e-16) & (b < total * MACHEP))
    w = a
    total = tl.where(done, total, total + fdiv(b * w, s - 1.0))
    total = tl.where(done, total, total - 0.5 * b)
    live = ~done
    fac = s * 0.0 + 1.0
    k = s * 0.0
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, 12.0)
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, -720.0)
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, 30240.0)
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, -1209600.0)
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, 47900160.0)
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, -1.8924375803183791606e9)
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, 7.47242496e10)
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, -2.950130727918164224e12)
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, 1.1646782814350067249e14)
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, -4.5979787224074726105e15)
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, 1.8152105401943546773e17)
    total, live, fac, b, k = _em_term(total, live, fac, b, w, s, k, -7.1661652561756670113e18)
    return total


@triton.jit
def zeta(s, q, sign_s):
    """Hurwitz zeta(s, q) for an integer s >= 2 (``sign_s`` = (-1)**s): inf at q = 0, -1, -2, ...
    (and -inf); a negative non-integer q through the identity in the module docstring."""
    fl = ld.floor(q)
    neg = q < 0
    r = q - fl  # in (0, 1) for a negative non-integer q (exact)
    z = _zeta_positive(s, tl.where(neg, r, q))
    if tl.min(q, axis=0) < 0:  # only blocks holding a negative q pay for the two extra sums
        z2 = _zeta_positive(s, tl.where(neg, (fl + 1.0) - q, 1.0))
        z3 = _zeta_positive(s, tl.where(neg, 1.0 - q, 1.0))
        z = tl.where(neg, (z + sign_s * z2) - sign_s * z3, z)  # (order: see the module docstring)
    return tl.where((q <= 0) & (q == fl), INF, z)


# ----------------------------------------------------------------------------------------------
# numpy twins (same algorithms; digamma/trigamma/zeta in the array's own dtype, as the kernel)
# ----------------------------------------------------------------------------------------------


def digamma_np(x: np.ndarray) -> np.ndarray:
    c = x.dtype.type
    with np.errstate(all="ignore"):
        neg = x < 0
        whole = np.trunc(x)
        r = (x - whole).astype(np.float64)
        refl = (-math.pi / np.tan(math.pi * r)).astype(x.dtype)
        result = np.where(neg, refl, c(0))
        z = np.where(neg, c(1) - x, x)
        for _ in range(10):
            step = z < 10
            result = np.where(step, result - c(1) / z, result)
            z = np.where(step, z + c(1), z)
        zz = c(1) / (z * z)
        poly = c(_PSI_A[0])
        for a in _PSI_A[1:]:
            poly = poly * zz + c(a)
        y = np.where(z < 1.0e17, zz * poly, c(0))
        out = np.log(z) - c(0.5) / z - y + result
        out = np.where(z == 10, result + c(2.25175258906672110764), out)
        out = np.where(neg & (x == whole), c(np.nan), out)
        out = np.where(x == 0, np.where(np.signbit(x), c(np.inf), c(-np.inf)), out)
    return out.astype(x.dtype)


def trigamma_np(x: np.ndarray) -> np.ndarray:
    c = x.dtype.type
    pi = c(math.pi)
    with np.errstate(all="ignore"):
        small = x < 0.5
        s = np.sin(pi * x)
        result = np.where(small, -(pi * pi) / (s * s), c(0))
        z = np.where(small, c(1) - x, x)
        for _ in range(6):
            result = result + c(1) / (z * z)
            z = z + c(1)
        ixx = c(1) / (z * z)
        result = result + (c(1) + c(1) / (c(2) * z) + ixx * (c(1 / 6) - ixx * (c(1 / 30) - ixx * c(1 / 42)))) / z
    return np.where(small, -result, result).astype(x.dtype)


def _zeta_positive_np(s, q):
    c = q.dtype.type
    eps = c(1.11022302462515654042e-16)
    total = np.power(q, -s)
    a = q.copy()
    b = np.zeros_like(q)
    done = np.zeros(q.shape, bool)
    for i in range(10):
        active = ~done & ((i < 9) | (a <= 9))
        a = np.where(active, a + c(1), a)
        b = np.where(active, np.power(a, -s), b)
        total = np.where(active, total + b, total)
        done |= active & (-eps * total < b) & (b < eps * total)
    w = a
    total = np.where(done, total, total + b * w / (s - c(1)))
    total = np.where(done, total, total - c(0.5) * b)
    live = ~done
    fac, k = c(1), c(0)
    for coef in _ZETA_A:
        fac = fac * (s + k)
        b = b / w
        t = fac * b / c(coef)
        new = total + t
        total = np.where(live, new, total)
        live &= ~(np.abs(t / new) < eps)
        k = k + c(1)
        fac = fac * (s + k)
        b = b / w
        k = k + c(1)
    return total


def zeta_np(s, q: np.ndarray, sign_s) -> np.ndarray:
    """The kernel's :func:`zeta` (``s``, ``sign_s``: scalars of q's dtype)."""
    c = q.dtype.type
    with np.errstate(all="ignore"):
        fl = np.floor(q)
        neg = q < 0
        r = q - fl
        z = _zeta_positive_np(s, np.where(neg, r, q))
        if neg.any():
            z2 = _zeta_positive_np(s, np.where(neg, (fl + c(1)) - q, c(1)))
            z3 = _zeta_positive_np(s, np.where(neg, c(1) - q, c(1)))
            z = np.where(neg, (z + sign_s * z2) - sign_s * z3, z)
        return np.where((q <= 0) & (q == fl), c(np.inf), z).astype(q.dtype)


# -- lgamma: fdlibm's e_lgamma_r.c, vectorised -------------------------------------------------

_TC = 1.46163214496836224576e+00
_TF = -1.21486290535849611461e-01
_TT = -3.63867699703950536541e-18
_LA = (7.72156649015328655494e-02, 3.22467033424113591611e-01, 6.73523010531292681824e-02,
       2.05808084325167332806e-02, 7.38555086081402883957e-03, 2.89051383673415629091e-03,
       1.19270763183362067845e-03, 5.10069792153511336608e-04, 2.20862790713908385557e-04,
       1.08011567247583939954e-04, 2.52144565451257326939e-05, 4.48640949618915160150e-05)
_LT = (4.83836122723810047042e-01, -1.47587722994593911752e-01, 6.46249402391333854778e-02,
       -3.27885410759859649565e-02, 1.79706750811820387126e-02, -1.03142241298341437450e-02,
       6.10053870246291332635e-03, -3.68452016781138256760e-03, 2.25964780900612472250e-03,
       -1.40346469989232843813e-03, 8.81081882437654011382e-04, -5.38595305356740546715e-04,
       3.15632070903625950361e-04, -3.12754168375120860518e-04, 3.35529192635519073543e-04)
_LU = (-7.72156649015328655494e-02, 6.32827064025093366517e-01, 1.45492250137234768737e+00,
       9.77717527963372745603e-01, 2.28963728064692451092e-01, 1.33810918536787660377e-02)
_LV = (1.0, 2.45597793713041134822e+00, 2.12848976379893395361e+00, 7.69285150456672783825e-01,
       1.04222645593369134254e-01, 3.21709242282423911810e-03)
_LS = (-7.72156649015328655494e-02, 2.14982415960608852501e-01, 3.25778796408930981787e-01,
       1.46350472652464452805e-01, 2.66422703033638609560e-02, 1.84028451407337715652e-03,
       3.19475326584100867617e-05)
_LR = (1.0, 1.39200533467621045958e+00, 7.21935547567138069525e-01, 1.71933865632803078993e-01,
       1.86459191715652901344e-02, 7.77942496381893596434e-04, 7.32668430744625636189e-06)
_LW = (4.18938533204672725052e-01, 8.33333333333329678849e-02, -2.77777777728775536470e-03,
       7.93650558643019558500e-04, -5.95187557450339963135e-04, 8.36339918996282139126e-04,
       -1.63092934096575273989e-03)


def _poly(coeffs, y):
    """sum(coeffs[i] * y**i) (fdlibm's tables list the lowest power first)."""
    return polevl(coeffs[::-1], y)


def _lgamma_below2(x, r):
    """fdlibm's three fits on [0.9, 2) (r = 0) and (2**-70, 0.9] (r = -log x)."""
    low = x <= 0.9
    case0 = np.where(low, x >= 0.7316, x >= 1.7316)
    case1 = ~case0 & np.where(low, x >= 0.23164, x >= 1.23164)
    case2 = ~case0 & ~case1
    out = np.empty_like(x)
    y = np.where(low, 1.0 - x, 2.0 - x)[case0]  # around the root 1 (or 2)
    z = y * y
    p1 = _poly(_LA[0::2], z)
    p2 = z * _poly(_LA[1::2], z)
    out[case0] = y * p1 + p2 - 0.5 * y
    y = np.where(low, x - (_TC - 1.0), x - _TC)[case1]  # around the minimum tc
    z = y * y
    w = z * y
    p1 = _poly(_LT[0::3], w)
    p2 = _poly(_LT[1::3], w)
    p3 = _poly(_LT[2::3], w)
    out[case1] = _TF + (z * p1 - (_TT - w * (p2 + y * p3)))
    y = np.where(low, x, x - 1.0)[case2]
    out[case2] = -0.5 * y + y * _poly(_LU, y) / _poly(_LV, y)
    return r + out


def _lgamma_positive(x):
    """lgamma of finite x > 0 (float64)."""
    out = np.empty_like(x)
    tiny = x < 2.0**-70
    below2 = ~tiny & (x < 2.0)
    mid = (x >= 2.0) & (x < 8.0)
    big = (x >= 8.0) & (x < 2.0**58)
    huge = x >= 2.0**58
    out[tiny] = -np.log(x[tiny])
    xb = x[below2]
    out[below2] = _lgamma_below2(xb, np.where(xb <= 0.9, -np.log(xb), 0.0))
    xm = x[mid]
    i = np.floor(xm)
    y = xm - i
    r = 0.5 * y + y * _poly(_LS, y) / _poly(_LR, y)
    z = np.ones_like(y)
    for j in range(2, 7):  # lgamma(y + i) = lgamma(y + 2) + log((y + 2)...(y + i - 1))
        z = np.where(i - 1 >= j, z * (y + j), z)
    out[mid] = r + np.log(z)
    xg = x[big]
    t = np.log(xg)
    zz = 1.0 / xg
    w = _LW[0] + zz * _poly(_LW[1:], zz * zz)
    out[big] = (xg - 0.5) * (t - 1.0) + w
    xh = x[huge]
    out[huge] = xh * (np.log(xh) - 1.0)
    return np.where((x == 1.0) | (x == 2.0), 0.0, out)


def _abs_sin_pi(z):
    """|sin(pi z)| for z >= 0, from z mod 2 reduced to a quarter period (fdlibm's sin_pi)."""
    y = np.fmod(z, 2.0)  # exact
    n = np.floor(y * 4.0)
    s = np.select([n == 0, n <= 2, n <= 4, n <= 6],
                  [np.sin(math.pi * y), np.cos(math.pi * (0.5 - y)), np.sin(math.pi * (1.0 - y)),
                   -np.cos(math.pi * (y - 1.5))], np.sin(math.pi * (y - 2.0)))
    return np.abs(s)


def lgamma_np(x: np.ndarray) -> np.ndarray:
    """log|Gamma(x)| elementwise, in x's dtype (computed in float64): inf at 0, the negative integers
    and ±inf; nan for nan."""
    x = np.asarray(x)
    out_dtype = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    x64 = x.astype(np.float64)
    with np.errstate(all="ignore"):
        out = np.full(x64.shape, np.inf)
        out[np.isnan(x64)] = np.nan
        ax = np.abs(x64)
        fin = np.isfinite(x64) & (x64 != 0)
        pos = fin & (x64 > 0)
        out[pos] = _lgamma_positive(x64[pos])
        negs = fin & (x64 < 0) & (np.floor(x64) != x64)  # (negative integers stay inf)
        if negs.any():
            z = ax[negs]
            tiny = z < 2.0**-70
            lg = _lgamma_positive(z)
            refl = np.log(math.pi / np.abs(_abs_sin_pi(z) * z)) - lg
            out[negs] = np.where(tiny, -np.log(z), refl)
    return out.astype(out_dtype)


__all__ = ["digamma", "trigamma", "zeta", "digamma_np", "trigamma_np", "zeta_np", "lgamma_np"]
