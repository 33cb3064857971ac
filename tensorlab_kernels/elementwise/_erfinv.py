"""``erfinv`` in numpy (numpy has none, and tensorlab does not depend on scipy).

Giles' single-precision approximation ("Approximating the erfinv function", GPU Computing Gems,
2011) as the starting point, then Newton steps on ``erf`` (``erfc`` for |y| > 0.5, where
``1 - |y|`` is exact) to full double precision. Used by the cpu twin and, in Triton's
interpreter, to evaluate libdevice's ``erfinv``.
"""

from __future__ import annotations

import math

import numpy as np

from ._polynomial import polevl

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_STEPS = 4  # Newton steps after Giles' start (converged to the last bit for every float64 input)

_CENTRAL = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
            -0.00417768164, 0.246640727, 1.50140941)
_TAIL = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
         0.00943887047, 1.00167406, 2.83297682)


def erfinv_np(y: np.ndarray) -> np.ndarray:
    """erfinv elementwise; the result has ``y``'s dtype (computed in float64)."""
    y = np.asarray(y)
    out_dtype = y.dtype if y.dtype.kind == "f" else np.dtype(np.float64)
    y64 = y.astype(np.float64)
    with np.errstate(all="ignore"):
        a = np.abs(y64)
        inside = a < 1
        ai = np.where(inside, a, 0.0)
        w = -np.log((1.0 - ai) * (1.0 + ai))
        central = polevl(_CENTRAL, w - 2.5)
        tail = polevl(_TAIL, np.sqrt(w) - 3.0)
        x = np.where(w < 5.0, central, tail) * ai
        big = ai > 0.5
        log_one_minus = np.log(np.where(big, 1.0 - ai, 1.0))  # 1 - ai is exact for ai in [0.5, 1]
        for _ in range(_STEPS):
            deriv = _TWO_OVER_SQRT_PI * np.exp(-x * x)
            # |y| > 0.5: Newton on log(erfc(x)) = log(1 - |y|), which is close to -x**2 and converges
            # in a few steps from a poor start; on erfc itself a step moves x by at most about
            # 1 / (2x), too little for the far tail (1 - |y| < 1e-11), where the single-precision
            # start is off by up to 0.4.
            erfc_x = _erfc(x)
            safe_deriv = np.where(deriv > 0, deriv, 1.0)
            tail_step = np.where(erfc_x > 0, (log_one_minus - np.log(erfc_x)) * erfc_x / safe_deriv, 0.0)
            central_step = np.where(deriv > 0, (_erf(x) - ai) / safe_deriv, 0.0)
            x = x - np.where(big, tail_step, central_step)
        x = np.where(inside, x, np.where(a == 1, np.inf, np.nan))
        x = np.copysign(x, y64)
    return x.astype(out_dtype)
