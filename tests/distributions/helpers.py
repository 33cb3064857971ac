"""Shared helpers for the distribution tests: float64 tensors from numpy and moment checks."""

from __future__ import annotations

import math

import numpy as np

import tensorlab as tl


def f64(values, device="cpu", requires_grad=False):
    return tl.tensor(np.asarray(values, dtype=np.float64), dtype=tl.float64, device=device,
                     requires_grad=requires_grad)


def npy(t):
    if isinstance(t, tl.Tensor):
        return np.asarray(t.detach().cpu().numpy())
    return np.asarray(t)


def assert_close(actual, expected, rtol=1e-10, atol=1e-10):
    np.testing.assert_allclose(npy(actual), np.asarray(expected, dtype=np.float64), rtol=rtol, atol=atol)


def assert_moments(samples, mean, var, n_sigma=5.0):
    """Sample mean within ``n_sigma`` standard errors of ``mean``, sample variance within 15%."""
    s = npy(samples).astype(np.float64)
    mean, var = np.asarray(mean, dtype=np.float64), np.asarray(var, dtype=np.float64)
    n = s.shape[0]
    assert np.all(np.abs(s.mean(0) - mean) < n_sigma * np.sqrt(var / n) + 1e-12), (s.mean(0), mean)
    np.testing.assert_allclose(s.var(0), var, rtol=0.15)


def lgamma(x):
    return np.vectorize(math.lgamma)(np.asarray(x, dtype=np.float64))


def digamma(x):
    # numpy has no digamma: recurrence up to x >= 12, then the asymptotic series
    x = np.asarray(x, dtype=np.float64).copy()
    result = np.zeros_like(x)
    while np.any(x < 12):
        small = x < 12
        result[small] -= 1 / x[small]
        x[small] += 1
    inv2 = 1 / (x * x)
    return result + np.log(x) - 0.5 / x - inv2 * (1 / 12 - inv2 * (1 / 120 - inv2 * (1 / 252 - inv2 / 240)))
