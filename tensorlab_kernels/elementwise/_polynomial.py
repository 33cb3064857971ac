"""Polynomial evaluation for the numpy twins of the special functions (one Horner loop for all)."""

from __future__ import annotations

import numpy as np


def polevl(coeffs, x: np.ndarray) -> np.ndarray:
    """``sum(coeffs[i] * x**(n - i))``: Cephes' polevl, coefficients from the highest power down,
    evaluated by Horner's rule in ``x``'s dtype."""
    p = np.full_like(x, coeffs[0])
    for c in coeffs[1:]:
        p = p * x + c
    return p
