"""OpInfo entries for the compositions of registered ops (tensorlab/ops/composite.py).

References are numpy's own functions (np.isclose, np.nansum, np.diff, np.kron, np.inner, np.cross,
np.rot90, np.deg2rad, np.float_power, np.put, np.fill_diagonal, ...), which share PyTorch's
definitions of these ops. These functions launch only other ops' kernels, so one float dtype is
enough on cuda.
"""

from __future__ import annotations

import warnings

import numpy as np

import tensorlab as tl
from tests.helpers import random_array

from .core import OpInfo, SampleInput, all_dtypes, float_dtypes, non_bool_dtypes

CUDA_MIN = (tl.float32,)
FEW = (tl.float32, tl.float64, tl.int64, tl.bool)
# a difference of two rounded half-precision products (cross) cancels: errors of the products' size
HALF_DIFFERENCES = {tl.float16: (1e-2, 2e-2), tl.bfloat16: (5e-2, 1.5e-1)}


def _arr(shape, dtype, rng):
    return random_array(shape, dtype, rng)


def _with_specials(x: np.ndarray, rng) -> np.ndarray:
    """A float array with NaN, ±inf and a few equal values sprinkled in."""
    if x.dtype.kind != "f" or x.size == 0:
        return x
    x = x.copy()
    flat = x.reshape(-1)
    idx = rng.choice(x.size, size=max(1, x.size // 3), replace=False)
    flat[idx] = rng.choice(np.array([np.nan, np.inf, -np.inf], dtype=x.dtype), size=idx.size)
    return x


# -- isclose -------------------------------------------------------------------------------------


def _isclose_samples(dtype, rng):
    a = _arr((4, 5), dtype, rng)
    b = a.copy()
    if dtype.is_floating_point:  # near, far and special values
        b = (a + (rng.random(a.shape) * 2e-5 - 1e-5).astype(a.dtype) * (rng.random(a.shape) < 0.5)).astype(a.dtype)
        a, b = _with_specials(a, rng), _with_specials(b, rng)
    elif dtype is not tl.bool:
        b = (a + (rng.random(a.shape) < 0.5)).astype(a.dtype)
    else:
        b = rng.random(a.shape) < 0.5
    return [
        SampleInput((a, b), name="default"),
        SampleInput((a, b), {"equal_nan": True}, "equal_nan"),
        SampleInput((a, b), {"rtol": 0.1, "atol": 0.5}, "loose"),
        SampleInput((a, b), {"rtol": 0.0, "atol": 0.0}, "exact"),
        SampleInput((a[:1], b), name="broadcast"),
        SampleInput((_arr((), dtype, rng), _arr((), dtype, rng)), name="0d"),
        SampleInput((_arr((0, 3), dtype, rng), _arr((0, 3), dtype, rng)), name="empty"),
    ]


def _isclose_ref(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


# -- reductions -----------------------------------------------------------------------------------


def _nan_samples(dtype, rng):
    a = lambda *s: _with_specials(_arr(s, dtype, rng), rng) if dtype.is_floating_point else _arr(s, dtype, rng)  # noqa: E731
    finite = _arr((3, 4), dtype, rng)
    return [
        SampleInput((finite,), name="finite"),
        SampleInput((finite, 1), {"keepdim": True}, "finite_dim1"),
        SampleInput((a(3, 4),), name="all", grad_args=()),
        SampleInput((a(3, 4), 0), name="dim0", grad_args=()),
        SampleInput((a(2, 3, 4), (0, 2)), {"keepdim": True}, "dims", grad_args=()),
        SampleInput((a(),), name="0d", grad_args=()),
        SampleInput((a(0, 3), 1), name="empty", grad_args=()),
    ]


def _nansum_ref(x, dim=None, keepdim=False):
    axis = tuple(dim) if isinstance(dim, tuple | list) else dim
    if x.dtype == bool or x.dtype.kind in "iu":
        return np.sum(x.astype(np.int64), axis=axis, keepdims=keepdim)
    return np.nansum(x, axis=axis, keepdims=keepdim)


def _nanmean_ref(x, dim=None, keepdim=False):
    axis = tuple(dim) if isinstance(dim, tuple | list) else dim
    with warnings.catch_warnings():  # numpy warns where every value is NaN (the result is NaN, as PyTorch's)
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(x, axis=axis, keepdims=keepdim)


def _aminmax_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3, 4),), name="all"),
        SampleInput((a(3, 4),), {"dim": 0}, "dim0"),
        SampleInput((a(2, 3, 5),), {"dim": -1, "keepdim": True}, "keepdim"),
        SampleInput((a(5),), {"keepdim": True}, "all_keepdim"),
        SampleInput((a(),), name="0d"),
        SampleInput((a(0, 3),), {"dim": 1}, "empty_rows"),
    ]


def _aminmax(x, dim=None, keepdim=False):
    return tuple(tl.aminmax(x, dim=dim, keepdim=keepdim))


def _aminmax_ref(x, dim=None, keepdim=False):
    if dim is None and keepdim:
        dim = tuple(range(x.ndim))
    return np.amin(x, axis=dim, keepdims=keepdim), np.amax(x, axis=dim, keepdims=keepdim)


# -- differences and products ---------------------------------------------------------------------


def _diff_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(7),), name="1d"),
        SampleInput((a(3, 6), 2, 1), name="second_order"),
        SampleInput((a(4, 3), 1, 0), name="dim0"),
        SampleInput((a(2, 3, 4), 3, -1), name="third_order"),
        SampleInput((a(5), 0), name="n0"),
        SampleInput((a(3), 5), name="n_past_size"),
        SampleInput((a(3, 4), 1, -1, a(3, 1), a(3, 2)), name="prepend_append"),
        SampleInput((a(0, 4), 1, 0), name="empty"),
    ]


def _diff(x, n=1, dim=-1, prepend=None, append=None):
    return tl.diff(x, n, dim, prepend, append)


def _diff_ref(x, n=1, dim=-1, prepend=None, append=None):
    kw = {k: v for k, v in (("prepend", prepend), ("append", append)) if v is not None}
    if x.shape[dim] + sum(v.shape[dim] for v in kw.values()) == 0:
        return np.diff(x, n, axis=dim, **kw)
    return np.diff(x, min(n, x.shape[dim] + sum(v.shape[dim] for v in kw.values())), axis=dim, **kw)


def _kron_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(2, 3), a(3, 2)), name="2d"),
        SampleInput((a(3), a(2, 2)), name="ranks_differ"),
        SampleInput((a(), a(3)), name="0d"),
        SampleInput((a(2, 1, 3), a(2, 2, 1)), name="3d"),
        SampleInput((a(0, 2), a(2, 3)), name="empty"),
    ]


def _inner_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(4), a(4)), name="vectors"),
        SampleInput((a(2, 3), a(4, 3)), name="matrices"),
        SampleInput((a(2, 2, 3), a(3)), name="3d_1d"),
        SampleInput((a(), a(2, 3)), name="0d"),
        SampleInput((a(0, 3), a(2, 3)), name="empty"),
    ]


def _cross_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3), a(3), 0), name="vectors"),
        SampleInput((a(4, 3), a(4, 3), 1), name="rows"),
        SampleInput((a(3, 5), a(3, 5), 0), name="columns"),
        SampleInput((a(2, 4, 3), a(1, 4, 3), -1), name="broadcast"),
    ]


def _cross_ref(a, b, dim):
    a, b = np.broadcast_arrays(a, b)
    return np.cross(a, b, axis=dim)


# -- geometry and writes ----------------------------------------------------------------------------


def _rot90_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [SampleInput((a(2, 3), k, (0, 1)), name=f"k{k}") for k in (-1, 0, 1, 2, 3, 6)] + [
        SampleInput((a(2, 3, 4), 1, (2, 0)), name="3d"),
        SampleInput((a(0, 3), 1, (0, 1)), name="empty"),
    ]


def _put_samples(dtype, rng):
    x = _arr((3, 4), dtype, rng)
    return [
        SampleInput((x, np.array([0, 5, -1, 7]), _arr((4,), dtype, rng)), name="distinct"),
        SampleInput((x, np.array([[1, 1], [2, -12]]), _arr((2, 2), dtype, rng), True), name="accumulate"),
        SampleInput((_arr((), dtype, rng), np.array([0]), _arr((1,), dtype, rng)), name="0d"),
        SampleInput((x, np.zeros((0,), np.int64), _arr((0,), dtype, rng)), name="no_index"),
    ]


def _put(x, index, source, accumulate=False):
    return tl.put(x, index, source, accumulate)


def _put_noncontiguous(x, index, source, accumulate=False):
    """put_ into a copy of ``x`` laid out column-major (its flat positions are still row-major)."""
    y = tl.empty(tuple(reversed(x.shape)), dtype=x.dtype, device=x.device).t() if x.ndim == 2 else x.clone()
    return y.copy_(x).put_(index, source, accumulate)


def _put_ref(x, index, source, accumulate=False):
    out = x.copy().reshape(-1)
    if accumulate:
        np.add.at(out, index.reshape(-1) % max(out.size, 1), source.reshape(-1).astype(out.dtype))
    else:
        np.put(out, index.reshape(-1), source.reshape(-1))
    return out.reshape(x.shape)


def _fill_diagonal_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3, 4), 1, False), name="wide"),
        SampleInput((a(7, 3), 1, True), name="tall_wrap"),
        SampleInput((a(7, 3), 0, False), name="tall"),
        SampleInput((a(3, 3, 3), 1, False), name="cube"),
    ]


def _fill_diagonal(x, value, wrap):
    return x.clone().fill_diagonal_(value, wrap)


def _fill_diagonal_ref(x, value, wrap):
    out = x.copy()
    np.fill_diagonal(out, value, wrap=wrap)
    return out


def _unary_samples(dtype, rng):
    return [SampleInput((_arr(s, dtype, rng),), name=str(s)) for s in [(), (7,), (3, 4), (0, 2)]]


def _float_power_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    base = np.abs(a(3, 4)) + 1
    return [
        SampleInput((base, 2), name="number_exponent"),
        SampleInput((base, np.abs(a(4))), name="tensor_exponent"),
        SampleInput((base, 0.5), name="sqrt"),
    ]


def _to_float(x):
    return x.astype(np.float32) if x.dtype.kind in "biu" else x


OPS = [
    OpInfo("isclose", tl.isclose, _isclose_ref, _isclose_samples, all_dtypes(), cuda_dtypes=CUDA_MIN, grad=False,
           out_dtype=lambda dtype: tl.bool),
    OpInfo("allclose", lambda a, b, **k: tl.tensor(tl.allclose(a, b, **k), device=a.device),
           lambda *a, **k: np.asarray(np.allclose(*a, **k)), _isclose_samples, FEW, cuda_dtypes=CUDA_MIN, grad=False),
    OpInfo("nansum", tl.nansum, _nansum_ref, _nan_samples, all_dtypes(), cuda_dtypes=CUDA_MIN),
    OpInfo("nanmean", tl.nanmean, _nanmean_ref, _nan_samples, float_dtypes(), cuda_dtypes=CUDA_MIN),
    OpInfo("aminmax", _aminmax, _aminmax_ref, _aminmax_samples, all_dtypes(), cuda_dtypes=CUDA_MIN),
    OpInfo("diff", _diff, _diff_ref, _diff_samples, all_dtypes(), cuda_dtypes=CUDA_MIN),
    OpInfo("kron", tl.kron, np.kron, _kron_samples, non_bool_dtypes(), cuda_dtypes=CUDA_MIN),
    OpInfo("inner", tl.inner, np.inner, _inner_samples, (tl.float32, tl.float64, tl.int64), cuda_dtypes=CUDA_MIN),
    OpInfo("cross", lambda a, b, dim: tl.cross(a, b, dim), _cross_ref, _cross_samples, non_bool_dtypes(),
           cuda_dtypes=CUDA_MIN, tol=HALF_DIFFERENCES),
    OpInfo("rot90", tl.rot90, lambda x, k, dims: np.rot90(x, k, dims), _rot90_samples, FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("ravel", tl.ravel, np.ravel, _unary_samples, FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("put", _put, _put_ref, _put_samples, non_bool_dtypes(), cuda_dtypes=CUDA_MIN),
    OpInfo("put_noncontiguous", _put_noncontiguous, _put_ref, _put_samples, FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("fill_diagonal_", _fill_diagonal, _fill_diagonal_ref, _fill_diagonal_samples, FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("deg2rad", tl.deg2rad, lambda x: np.deg2rad(_to_float(x)), _unary_samples, all_dtypes(),
           cuda_dtypes=CUDA_MIN, out_dtype=lambda dtype: dtype if dtype.is_floating_point else tl.float32),
    OpInfo("rad2deg", tl.rad2deg, lambda x: np.rad2deg(_to_float(x)), _unary_samples, all_dtypes(),
           cuda_dtypes=CUDA_MIN, out_dtype=lambda dtype: dtype if dtype.is_floating_point else tl.float32),
    OpInfo("float_power", tl.float_power, lambda x, e: np.float_power(x.astype(np.float64), e),
           _float_power_samples, non_bool_dtypes(), cuda_dtypes=CUDA_MIN, out_dtype=lambda dtype: tl.float64),
    OpInfo("sgn", tl.sgn, np.sign, _unary_samples, non_bool_dtypes(), cuda_dtypes=CUDA_MIN),
]
