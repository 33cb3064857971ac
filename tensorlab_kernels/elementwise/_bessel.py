"""Modified Bessel functions of the first kind, orders 0 and 1, for the unary kernel: ``i0``,
``i0e`` (exp(-|x|) i0(x)), ``i1`` and ``i1e``, as Triton device functions and numpy twins.

PyTorch computes all four with Cephes' Chebyshev expansions (``chbevl`` over [0, 8] in x/2 - 2
and over [8, inf) in 32/x - 2), on the cpu and on the GPU; so do these, rather than libdevice's
``cyl_bessel_i0``/``i1``, to keep PyTorch's values where they differ from the exact function:
``i0``/``i1`` are ``exp(|x|) * series``, so they overflow to inf as soon as exp does (x > 88.7
in float32, where i0 itself is finite up to 91.9) and are nan at ±inf (inf / inf); ``i0e`` and
``i1e`` never form exp(|x|) and stay finite for every finite x (0 at ±inf).
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from .libdevice import fdiv
from .libdevice import libdevice as ld

# Cephes' coefficients: exp(-x) i0(x) on [0, 8] (A) and exp(-x) sqrt(x) i0(x) on [8, inf) (B);
# likewise exp(-x) i1(x) / x (A) and exp(-x) sqrt(x) i1(x) (B)
_I0E_A = (
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16, 1.715391285555133e-15,
    -1.1685332877993451e-14, 7.676185498604936e-14, -4.856446783111929e-13, 2.95505266312964e-12,
    -1.726826291441556e-11, 9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
    -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07, 1.1173875391201037e-06,
    -4.4167383584587505e-06, 1.6448448070728896e-05, -5.754195010082104e-05, 0.00018850288509584165,
    -0.0005763755745385824, 0.0016394756169413357, -0.004324309995050576, 0.010546460394594998,
    -0.02373741480589947, 0.04930528423967071, -0.09490109704804764, 0.17162090152220877, -0.3046826723431984,
    0.6767952744094761,
)
_I0E_B = (
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17, 3.461222867697461e-17,
    -2.8276239805165836e-16, -3.425485619677219e-16, 1.7725601330565263e-15, 3.8116806693526224e-15,
    -9.554846698828307e-15, -4.150569347287222e-14, 1.54008621752141e-14, 3.8527783827421426e-13,
    7.180124451383666e-13, -1.7941785315068062e-12, -1.3215811840447713e-11, -3.1499165279632416e-11,
    1.1889147107846439e-11, 4.94060238822497e-10, 3.3962320257083865e-09, 2.266668990498178e-08,
    2.0489185894690638e-07, 2.8913705208347567e-06, 6.889758346916825e-05, 0.0033691164782556943,
    0.8044904110141088,
)
_I1E_A = (
    2.7779141127610464e-18, -2.111421214358166e-17, 1.5536319577362005e-16, -1.1055969477353862e-15,
    7.600684294735408e-15, -5.042185504727912e-14, 3.223793365945575e-13, -1.9839743977649436e-12,
    1.1736186298890901e-11, -6.663489723502027e-11, 3.625590281552117e-10, -1.8872497517228294e-09,
    9.381537386495773e-09, -4.445059128796328e-08, 2.0032947535521353e-07, -8.568720264695455e-07,
    3.4702513081376785e-06, -1.3273163656039436e-05, 4.781565107550054e-05, -0.00016176081582589674,
    0.0005122859561685758, -0.0015135724506312532, 0.004156422944312888, -0.010564084894626197,
    0.024726449030626516, -0.05294598120809499, 0.1026436586898471, -0.17641651835783406, 0.25258718644363365,
)
_I1E_B = (
    7.517296310842105e-18, 4.414348323071708e-18, -4.6503053684893586e-17, -3.209525921993424e-17,
    2.96262899764595e-16, 3.3082023109209285e-16, -1.8803547755107825e-15, -3.8144030724370075e-15,
    1.0420276984128802e-14, 4.272440016711951e-14, -2.1015418427726643e-14, -4.0835511110921974e-13,
    -7.198551776245908e-13, 2.0356285441470896e-12, 1.4125807436613782e-11, 3.2526035830154884e-11,
    -1.8974958123505413e-11, -5.589743462196584e-10, -3.835380385964237e-09, -2.6314688468895196e-08,
    -2.512236237870209e-07, -3.882564808877691e-06, -0.00011058893876262371, -0.009761097491361469,
    0.7785762350182801,
)

# ----------------------------------------------------------------------------------------------
# Triton device functions (x in the compute type)
# ----------------------------------------------------------------------------------------------


@triton.jit
def _cheb_step(y, b0, b1, c):
    """One step of Clenshaw's recurrence: (b0, b1, b2) <- (y b0 - b1 + c, b0, b1)."""
    return y * b0 - b1 + c, b0, b1


@triton.jit
def _i0e_a(y):
    """Chebyshev series ``I0E_A`` at y (Cephes' chbevl, unrolled)."""
    b0 = y * 0.0 + -4.4153416464793395e-18
    b1 = y * 0.0
    b2 = b1
    b0, b1, b2 = _cheb_step(y, b0, b1, 3.3307945188222384e-17)
    b0, b1, b2 = _cheb_step(y, b0, b1, -2.431279846547955e-16)
    b0, b1, b2 = _cheb_step(y, b0, b1, 1.715391285555133e-15)
    b0, b1, b2 = _cheb_step(y, b0, b1, -1.1685332877993451e-14)
    b0, b1, b2 = _cheb_step(y, b0, b1, 7.676185498604936e-14)
    b0, b1, b2 = _cheb_step(y, b0, b1, -4.856446783111929e-13)
    b0, b1, b2 = _cheb_step(y, b0, b1, 2.95505266312964e-12)
    b0, b1, b2 = _cheb_step(y, b0, b1, -1.726826291441556e-11)
    b0, b1, b2 = _cheb_step(y, b0, b1, 9.675809035373237e-11)
    b0, b1, b2 = _cheb_step(y, b0, b1, -5.189795601635263e-10)
    b0, b1, b2 = _cheb_step(y, b0, b1, 2.6598237246823866e-09)
    b0, b1, b2 = _cheb_step(y, b0, b1, -1.300025009986248e-08)
    b0, b1, b2 = _cheb_step(y, b0, b1, 6.046995022541919e-08)
    b0, b1, b2 = _cheb_step(y, b0, b1, -2.670793853940612e-07)
    b0, b1, b2 = _cheb_step(y, b0, b1, 1.1173875391201037e-06)
    b0, b1, b2 = _cheb_step(y, b0, b1, -4.4167383584587505e-06)
    b0, b1, b2 = _cheb_step(y, b0, b1, 1.6448448070728896e-05)
    b0, b1, b2 = _cheb_step(y, b0, b1, -5.754195010082104e-05)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.00018850288509584165)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.0005763755745385824)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.0016394756169413357)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.004324309995050576)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.010546460394594998)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.02373741480589947)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.04930528423967071)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.09490109704804764)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.17162090152220877)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.3046826723431984)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.6767952744094761)
    return 0.5 * (b0 - b2)


@triton.jit
def _i0e_b(y):
    """Chebyshev series ``I0E_B`` at y (Cephes' chbevl, unrolled)."""
    b0 = y * 0.0 + -7.233180487874754e-18
    b1 = y * 0.0
    b2 = b1
    b0, b1, b2 = _cheb_step(y, b0, b1, -4.830504485944182e-18)
    b0, b1, b2 = _cheb_step(y, b0, b1, 4.46562142029676e-17)
    b0, b1, b2 = _cheb_step(y, b0, b1, 3.461222867697461e-17)
    b0, b1, b2 = _cheb_step(y, b0, b1, -2.8276239805165836e-16)
    b0, b1, b2 = _cheb_step(y, b0, b1, -3.425485619677219e-16)
    b0, b1, b2 = _cheb_step(y, b0, b1, 1.7725601330565263e-15)
    b0, b1, b2 = _cheb_step(y, b0, b1, 3.8116806693526224e-15)
    b0, b1, b2 = _cheb_step(y, b0, b1, -9.554846698828307e-15)
    b0, b1, b2 = _cheb_step(y, b0, b1, -4.150569347287222e-14)
    b0, b1, b2 = _cheb_step(y, b0, b1, 1.54008621752141e-14)
    b0, b1, b2 = _cheb_step(y, b0, b1, 3.8527783827421426e-13)
    b0, b1, b2 = _cheb_step(y, b0, b1, 7.180124451383666e-13)
    b0, b1, b2 = _cheb_step(y, b0, b1, -1.7941785315068062e-12)
    b0, b1, b2 = _cheb_step(y, b0, b1, -1.3215811840447713e-11)
    b0, b1, b2 = _cheb_step(y, b0, b1, -3.1499165279632416e-11)
    b0, b1, b2 = _cheb_step(y, b0, b1, 1.1889147107846439e-11)
    b0, b1, b2 = _cheb_step(y, b0, b1, 4.94060238822497e-10)
    b0, b1, b2 = _cheb_step(y, b0, b1, 3.3962320257083865e-09)
    b0, b1, b2 = _cheb_step(y, b0, b1, 2.266668990498178e-08)
    b0, b1, b2 = _cheb_step(y, b0, b1, 2.0489185894690638e-07)
    b0, b1, b2 = _cheb_step(y, b0, b1, 2.8913705208347567e-06)
    b0, b1, b2 = _cheb_step(y, b0, b1, 6.889758346916825e-05)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.0033691164782556943)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.8044904110141088)
    return 0.5 * (b0 - b2)


@triton.jit
def _i1e_a(y):
    """Chebyshev series ``I1E_A`` at y (Cephes' chbevl, unrolled)."""
    b0 = y * 0.0 + 2.7779141127610464e-18
    b1 = y * 0.0
    b2 = b1
    b0, b1, b2 = _cheb_step(y, b0, b1, -2.111421214358166e-17)
    b0, b1, b2 = _cheb_step(y, b0, b1, 1.5536319577362005e-16)
    b0, b1, b2 = _cheb_step(y, b0, b1, -1.1055969477353862e-15)
    b0, b1, b2 = _cheb_step(y, b0, b1, 7.600684294735408e-15)
    b0, b1, b2 = _cheb_step(y, b0, b1, -5.042185504727912e-14)
    b0, b1, b2 = _cheb_step(y, b0, b1, 3.223793365945575e-13)
    b0, b1, b2 = _cheb_step(y, b0, b1, -1.9839743977649436e-12)
    b0, b1, b2 = _cheb_step(y, b0, b1, 1.1736186298890901e-11)
    b0, b1, b2 = _cheb_step(y, b0, b1, -6.663489723502027e-11)
    b0, b1, b2 = _cheb_step(y, b0, b1, 3.625590281552117e-10)
    b0, b1, b2 = _cheb_step(y, b0, b1, -1.8872497517228294e-09)
    b0, b1, b2 = _cheb_step(y, b0, b1, 9.381537386495773e-09)
    b0, b1, b2 = _cheb_step(y, b0, b1, -4.445059128796328e-08)
    b0, b1, b2 = _cheb_step(y, b0, b1, 2.0032947535521353e-07)
    b0, b1, b2 = _cheb_step(y, b0, b1, -8.568720264695455e-07)
    b0, b1, b2 = _cheb_step(y, b0, b1, 3.4702513081376785e-06)
    b0, b1, b2 = _cheb_step(y, b0, b1, -1.3273163656039436e-05)
    b0, b1, b2 = _cheb_step(y, b0, b1, 4.781565107550054e-05)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.00016176081582589674)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.0005122859561685758)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.0015135724506312532)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.004156422944312888)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.010564084894626197)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.024726449030626516)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.05294598120809499)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.1026436586898471)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.17641651835783406)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.25258718644363365)
    return 0.5 * (b0 - b2)


@triton.jit
def _i1e_b(y):
    """Chebyshev series ``I1E_B`` at y (Cephes' chbevl, unrolled)."""
    b0 = y * 0.0 + 7.517296310842105e-18
    b1 = y * 0.0
    b2 = b1
    b0, b1, b2 = _cheb_step(y, b0, b1, 4.414348323071708e-18)
    b0, b1, b2 = _cheb_step(y, b0, b1, -4.6503053684893586e-17)
    b0, b1, b2 = _cheb_step(y, b0, b1, -3.209525921993424e-17)
    b0, b1, b2 = _cheb_step(y, b0, b1, 2.96262899764595e-16)
    b0, b1, b2 = _cheb_step(y, b0, b1, 3.3082023109209285e-16)
    b0, b1, b2 = _cheb_step(y, b0, b1, -1.8803547755107825e-15)
    b0, b1, b2 = _cheb_step(y, b0, b1, -3.8144030724370075e-15)
    b0, b1, b2 = _cheb_step(y, b0, b1, 1.0420276984128802e-14)
    b0, b1, b2 = _cheb_step(y, b0, b1, 4.272440016711951e-14)
    b0, b1, b2 = _cheb_step(y, b0, b1, -2.1015418427726643e-14)
    b0, b1, b2 = _cheb_step(y, b0, b1, -4.0835511110921974e-13)
    b0, b1, b2 = _cheb_step(y, b0, b1, -7.198551776245908e-13)
    b0, b1, b2 = _cheb_step(y, b0, b1, 2.0356285441470896e-12)
    b0, b1, b2 = _cheb_step(y, b0, b1, 1.4125807436613782e-11)
    b0, b1, b2 = _cheb_step(y, b0, b1, 3.2526035830154884e-11)
    b0, b1, b2 = _cheb_step(y, b0, b1, -1.8974958123505413e-11)
    b0, b1, b2 = _cheb_step(y, b0, b1, -5.589743462196584e-10)
    b0, b1, b2 = _cheb_step(y, b0, b1, -3.835380385964237e-09)
    b0, b1, b2 = _cheb_step(y, b0, b1, -2.6314688468895196e-08)
    b0, b1, b2 = _cheb_step(y, b0, b1, -2.512236237870209e-07)
    b0, b1, b2 = _cheb_step(y, b0, b1, -3.882564808877691e-06)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.00011058893876262371)
    b0, b1, b2 = _cheb_step(y, b0, b1, -0.009761097491361469)
    b0, b1, b2 = _cheb_step(y, b0, b1, 0.7785762350182801)
    return 0.5 * (b0 - b2)


@triton.jit
def i0e(x):
    ax = tl.abs(x)
    small = _i0e_a(ax * 0.5 - 2.0)
    large = fdiv(_i0e_b(fdiv(32.0, ax) - 2.0), ld.sqrt(ax))
    return tl.where(ax <= 8.0, small, large)


@triton.jit
def i0(x):
    ax = tl.abs(x)
    small = ld.exp(ax) * _i0e_a(ax * 0.5 - 2.0)
    large = fdiv(ld.exp(ax) * _i0e_b(fdiv(32.0, ax) - 2.0), ld.sqrt(ax))  # (inf / inf = nan at ±inf)
    return tl.where(ax <= 8.0, small, large)


@triton.jit
def i1e(x):
    ax = tl.abs(x)
    small = _i1e_a(ax * 0.5 - 2.0) * ax
    large = fdiv(_i1e_b(fdiv(32.0, ax) - 2.0), ld.sqrt(ax))
    y = tl.where(ax <= 8.0, small, large)
    return tl.where(x < 0, -y, y)


@triton.jit
def i1(x):
    ax = tl.abs(x)
    small = ld.exp(ax) * ax * _i1e_a(ax * 0.5 - 2.0)
    large = fdiv(ld.exp(ax) * _i1e_b(fdiv(32.0, ax) - 2.0), ld.sqrt(ax))
    y = tl.where(ax <= 8.0, small, large)
    return tl.where(x < 0, -y, y)


# ----------------------------------------------------------------------------------------------
# numpy twins (in the array's dtype, as the kernel)
# ----------------------------------------------------------------------------------------------


def _chbevl(y, coeffs):
    c = y.dtype.type
    b0 = np.full_like(y, c(coeffs[0]))
    b1 = np.zeros_like(y)
    b2 = b1
    for v in coeffs[1:]:
        b0, b1, b2 = y * b0 - b1 + c(v), b0, b1
    return c(0.5) * (b0 - b2)


def _bessel_np(x, coeffs_a, coeffs_b, order: int, scaled: bool):
    c = x.dtype.type
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        e = np.ones_like(ax) if scaled else np.exp(ax)
        small = e * _chbevl(ax * c(0.5) - c(2), coeffs_a)
        if order == 1:
            small = (e * ax * _chbevl(ax * c(0.5) - c(2), coeffs_a)) if not scaled else small * ax
        large = e * _chbevl(c(32) / ax - c(2), coeffs_b) / np.sqrt(ax)
        y = np.where(ax <= 8, small, large)
        if order == 1:
            y = np.where(x < 0, -y, y)
    return y.astype(x.dtype)


def i0_np(x):
    return _bessel_np(x, _I0E_A, _I0E_B, 0, False)


def i0e_np(x):
    return _bessel_np(x, _I0E_A, _I0E_B, 0, True)


def i1_np(x):
    return _bessel_np(x, _I1E_A, _I1E_B, 1, False)


def i1e_np(x):
    return _bessel_np(x, _I1E_A, _I1E_B, 1, True)


__all__ = ["i0", "i0e", "i1", "i1e", "i0_np", "i0e_np", "i1_np", "i1e_np"]
