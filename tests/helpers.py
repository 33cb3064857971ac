"""Shared test helpers: making tensors (contiguous or strided with NaN-filled gaps) and comparing."""

from __future__ import annotations

import numpy as np

import tensorlab as tl

# PyTorch's assert_close defaults: (rtol, atol) per dtype.
TOLERANCES = {
    tl.float64: (1e-7, 1e-7),
    tl.float32: (1.3e-6, 1e-5),
    tl.float16: (1e-3, 1e-5),
    tl.bfloat16: (1.6e-2, 1e-5),
}

FLOATING = (tl.float16, tl.bfloat16, tl.float32, tl.float64)
INTEGRAL = (tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64)
ALL_DTYPES = (*FLOATING, *INTEGRAL, tl.bool)


def tolerance(dtype, rtol=None, atol=None) -> tuple[float, float]:
    r, a = TOLERANCES.get(dtype, (0.0, 0.0))
    return (r if rtol is None else rtol), (a if atol is None else atol)


def random_array(shape, dtype, rng: np.random.Generator, low=None, high=None) -> np.ndarray:
    """Values valid for ``dtype`` (small integers, floats in [low, high))."""
    shape = tuple(shape)
    if dtype is tl.bool:
        return np.asarray(rng.random(shape) < 0.5)
    if dtype.is_floating_point:
        lo = -3.0 if low is None else low
        hi = 3.0 if high is None else high
        return np.asarray((rng.random(shape) * (hi - lo) + lo).astype(np.float64).astype(dtype.np))
    info = np.iinfo(dtype.np)
    lo = max(info.min, -9 if low is None else int(low))
    hi = min(info.max, 9 if high is None else int(high))
    return np.asarray(rng.integers(lo, hi + 1, size=shape).astype(dtype.np))


def make_tensor(values: np.ndarray, device, dtype=None, noncontiguous: bool = False, requires_grad=False):
    """A tensor holding ``values``; with ``noncontiguous`` it is a strided view whose gaps hold
    NaN (floats) or a sentinel (ints), so a kernel that ignores strides shows it."""
    dtype = tl._dtype.from_numpy_dtype(values.dtype) if dtype is None else dtype
    values = np.asarray(values).astype(dtype.np)
    if not noncontiguous or values.ndim == 0 or values.size == 0:
        t = tl.tensor(values, dtype=dtype, device=device)
    else:
        shape = values.shape
        big_shape = shape[:-1] + (shape[-1] * 2,)
        fill = np.nan if dtype.is_floating_point else (True if dtype is tl.bool else 7)
        big = np.full(big_shape, fill, dtype=np.float64 if dtype.is_floating_point else dtype.np).astype(dtype.np)
        big[..., ::2] = values
        t = tl.tensor(big, dtype=dtype, device=device)[..., ::2]
        assert t.numel() <= 1 or not t.is_contiguous()
    if requires_grad:
        t.requires_grad_(True)
    return t


def to_numpy(t) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


def assert_close(actual, expected, rtol=None, atol=None, equal_nan=True, check_dtype=True):
    """``actual`` (a Tensor) equals ``expected`` (Tensor or numpy) within the dtype's tolerance."""
    if isinstance(expected, tl.Tensor):
        exp_dtype = expected.dtype
        expected = to_numpy(expected)
    else:
        expected = np.asarray(expected)
        exp_dtype = None
    assert isinstance(actual, tl.Tensor), f"expected a Tensor, got {type(actual).__name__}"
    if check_dtype and exp_dtype is not None:
        assert actual.dtype is exp_dtype, f"dtype {actual.dtype} != {exp_dtype}"
    got = to_numpy(actual)
    assert got.shape == expected.shape, f"shape {got.shape} != {expected.shape}"
    r, a = tolerance(actual.dtype, rtol, atol)
    if actual.dtype.is_floating_point:
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=r, atol=a,
                                   equal_nan=equal_nan)
    else:
        np.testing.assert_array_equal(got, expected.astype(got.dtype))
