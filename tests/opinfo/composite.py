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
# sums and differences of rounded half-precision products (cross, addr, trapezoid) cancel: errors of
# the products' size
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


# ==================================================================================================
# composite_numeric.py
# ==================================================================================================


def _isin_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3, 4), a(5)), name="tensors"),
        SampleInput((a(3, 4), a(2, 2)), {"invert": True}, "invert"),
        SampleInput((a(7), 2), name="number_test"),
        SampleInput((a(), a(4)), name="0d"),
        SampleInput((a(3), a(0)), name="empty_test"),
    ]


def _isin_ref(x, test, invert=False):
    return np.isin(x, test, invert=invert)


def _histc_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(50), 7), name="data_range"),
        SampleInput((a(4, 5), 4, -1.0, 2.0), name="given_range"),
        SampleInput((np.array([0.0, 0.5, 1.0, 1.0, 2.0, 3.0]).astype(dtype.np), 3, 0.0, 1.0), name="edges"),
        SampleInput((a(0), 3), name="empty"),
    ]


def _histc_ref(x, bins, lo=0.0, hi=0.0):
    x = x.astype(np.float64).reshape(-1)
    if lo == hi and x.size:
        lo, hi = x.min(), x.max()
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = np.histogram(x, bins=bins, range=(lo, hi))  # numpy: the last bin includes its right edge
    return counts.astype(np.float64)


def _cdist_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    same = a(4, 3)
    return [SampleInput((a(4, 3), a(5, 3), p), name=f"p{p}") for p in (0.0, 1.0, 2.0, 3.5, float("inf"))] + [
        SampleInput((a(2, 3, 4), a(1, 6, 4), 2.0), name="batched"),
        SampleInput((a(30, 3), a(5, 3), 2.0), name="matmul_path"),
        SampleInput((same, same[:2], 2.0), name="zero_distances", grad_args=()),
    ]


def _cdist_ref(x1, x2, p):
    diff = np.abs(x1[..., :, None, :] - x2[..., None, :, :])
    if p == 0:
        return (diff != 0).sum(-1).astype(x1.dtype)
    if p == float("inf"):
        return diff.max(-1)
    return (diff**p).sum(-1) ** (1.0 / p)


def _addr_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    out = [SampleInput((a(3, 4), a(3), a(4)), name="plain"), SampleInput((a(4), a(3), a(4)), name="broadcast")]
    if dtype is not tl.bool:
        out.append(SampleInput((a(3, 4), a(3), a(4)), {"beta": 0, "alpha": 2}, "beta0"))
    if dtype.is_floating_point:
        out.append(SampleInput((a(3, 4), a(3), a(4)), {"beta": 0.5, "alpha": -1.5}, "scaled"))
    return out


def _addr_ref(m, v1, v2, beta=1, alpha=1):
    if m.dtype == bool:
        return (m & bool(beta)) | (np.outer(v1, v2) & bool(alpha))
    outer = np.outer(v1, v2) * alpha
    return outer if beta == 0 else outer + beta * m


def _heaviside_samples(dtype, rng):
    x = _arr((3, 4), dtype, rng)
    x[0, :2] = 0
    return [SampleInput((x, _arr((4,), dtype, rng)), name="broadcast", grad_args=()),
            SampleInput((_arr((), dtype, rng), _arr((), dtype, rng)), name="0d", grad_args=())]


def _trapezoid_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    xdt = dtype if dtype.is_floating_point else tl.float64  # sample points in y's dtype: one result dtype
    return [
        SampleInput((a(3, 5),), name="unit"),
        SampleInput((a(5, 3),), {"dim": 0, "dx": 0.5}, "dx"),
        SampleInput((a(3, 5), np.sort(_arr((5,), xdt, rng))), name="x_1d"),
        SampleInput((a(3, 5), np.sort(_arr((3, 5), xdt, rng), -1)), name="x_nd"),
        SampleInput((a(1, 4),), {"dim": 0}, "single_sample"),
    ]


def _trapezoid(y, x=None, dx=None, dim=-1):
    return tl.trapezoid(y, x, dx=dx, dim=dim)


def _trapezoid_ref(y, x=None, dx=None, dim=-1):
    y = y.astype(np.float64) if y.dtype.kind in "iu" else y
    if x is not None:
        return np.trapezoid(y, x, axis=dim)
    return np.trapezoid(y, dx=1.0 if dx is None else dx, axis=dim)


def _cumulative_trapezoid(y, x=None, dx=None, dim=-1):
    return tl.cumulative_trapezoid(y, x, dx=dx, dim=dim)


def _cumulative_trapezoid_ref(y, x=None, dx=None, dim=-1):
    y = np.moveaxis(y.astype(np.float64) if y.dtype.kind in "iu" else y, dim, -1)
    if x is None:
        widths = 1.0 if dx is None else dx
    else:
        x = np.moveaxis(x, dim, -1) if x.ndim > 1 else x
        widths = np.diff(x, axis=-1)
    return np.moveaxis(np.cumsum(widths * (y[..., 1:] + y[..., :-1]) / 2, axis=-1), -1, dim)


def _cov_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3, 6),), name="plain"),
        SampleInput((a(7),), name="one_variable"),
        SampleInput((a(2, 5),), {"correction": 0}, "no_correction"),
        SampleInput((a(3, 4),), {"fweights": np.array([1, 2, 0, 3]), "aweights": np.array([0.5, 1.0, 2.0, 0.25])},
                    "weights"),
    ]


def _cov(x, correction=1, fweights=None, aweights=None):
    as_t = lambda w: None if w is None else tl.tensor(w, device=x.device)  # noqa: E731
    return tl.cov(x, correction=correction, fweights=as_t(fweights), aweights=as_t(aweights))


def _cov_ref(x, correction=1, fweights=None, aweights=None):
    x = x.astype(np.float64) if x.dtype.kind in "iu" else x
    return np.cov(x, ddof=correction, fweights=fweights, aweights=aweights)


OPS += [
    OpInfo("isin", tl.isin, _isin_ref, _isin_samples, non_bool_dtypes(), cuda_dtypes=CUDA_MIN, grad=False,
           out_dtype=lambda dtype: tl.bool),
    OpInfo("histc", tl.histc, _histc_ref, _histc_samples, float_dtypes(), cuda_dtypes=CUDA_MIN, grad=False),
    OpInfo("cdist", tl.cdist, _cdist_ref, _cdist_samples, (tl.float32, tl.float64), cuda_dtypes=CUDA_MIN),
    OpInfo("dist", tl.dist, lambda a, b, p=2: np.linalg.norm((a - b).reshape(-1), p),
           lambda d, r: [SampleInput((_arr((3, 4), d, r), _arr((4,), d, r)), name="l2"),
                         SampleInput((_arr((5,), d, r), _arr((5,), d, r), 1), name="l1")],
           (tl.float32, tl.float64), cuda_dtypes=CUDA_MIN),
    OpInfo("addr", lambda m, v1, v2, **k: tl.addr(m, v1, v2, **k), _addr_ref, _addr_samples, all_dtypes(),
           cuda_dtypes=CUDA_MIN, tol=HALF_DIFFERENCES),
    OpInfo("heaviside", tl.heaviside, np.heaviside, _heaviside_samples, non_bool_dtypes(), cuda_dtypes=CUDA_MIN,
           grad=False),
    OpInfo("sinc", tl.sinc, lambda x: np.sinc(x.astype(np.float64)), _unary_samples, non_bool_dtypes(),
           cuda_dtypes=CUDA_MIN),
    OpInfo("trapezoid", _trapezoid, _trapezoid_ref, _trapezoid_samples, non_bool_dtypes(), cuda_dtypes=CUDA_MIN,
           tol=HALF_DIFFERENCES),
    OpInfo("cumulative_trapezoid", _cumulative_trapezoid, _cumulative_trapezoid_ref, _trapezoid_samples,
           non_bool_dtypes(), cuda_dtypes=CUDA_MIN, tol=HALF_DIFFERENCES),
    OpInfo("cov", _cov, _cov_ref, _cov_samples, non_bool_dtypes(), cuda_dtypes=CUDA_MIN),
    OpInfo("corrcoef", tl.corrcoef, np.corrcoef, lambda d, r: _cov_samples(d, r)[:2], (tl.float32, tl.float64),
           cuda_dtypes=CUDA_MIN),
]


# ==================================================================================================
# composite_shape.py
# ==================================================================================================


def _block_diag_ref(*blocks):
    blocks = [b.reshape(1, -1) if b.ndim < 2 else b for b in blocks]
    dtype = np.result_type(*blocks)
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)), dtype=dtype)
    r = c = 0
    for b in blocks:
        out[r:r + b.shape[0], c:c + b.shape[1]] = b
        r, c = r + b.shape[0], c + b.shape[1]
    return out


def _cartesian_ref(*xs):
    return np.stack([g.reshape(-1) for g in np.meshgrid(*xs, indexing="ij")], 1) if len(xs) > 1 else xs[0]


def _vander_ref(x, N=None, increasing=False):
    x = x if x.dtype.kind == "f" else x.astype(np.int64)
    return np.vander(x, N, increasing=increasing)


def _scatter_samples(kind):
    def samples(dtype, rng):
        a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
        if kind == "slice":
            return [SampleInput((a(4, 3), a(2, 3), 0, 1, 3), name="rows"),
                    SampleInput((a(3, 5), a(3, 3), 1, 0, None, 2), name="step")]
        if kind == "select":
            return [SampleInput((a(2, 3), a(3), 0, -1), name="row"),
                    SampleInput((a(2, 3, 4), a(2, 4), 1, 1), name="mid")]
        return [SampleInput((a(3, 3), a(2), 1), name="offset"), SampleInput((a(2, 3, 4), a(4, 2), 0, 0, 1), name="3d")]

    return samples


def _slice_scatter_ref(x, src, dim=0, start=None, end=None, step=1):
    out = x.copy()
    out[(slice(None),) * dim + (slice(start, end, step),)] = src
    return out


def _select_scatter_ref(x, src, dim, index):
    out = x.copy()
    out[(slice(None),) * dim + (index,)] = src
    return out


def _diagonal_scatter_ref(x, src, offset=0, dim1=0, dim2=1):
    out = x.copy()
    idx = np.arange(src.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    view = np.moveaxis(out, (dim1, dim2), (-2, -1))
    view[..., rows, cols] = src
    return out


OPS += [
    OpInfo("block_diag", tl.block_diag, _block_diag_ref,
           lambda d, r: [SampleInput((_arr((), d, r), _arr((2,), d, r), _arr((2, 1), d, r)), name="mixed"),
                         SampleInput((_arr((0, 2), d, r), _arr((1, 1), d, r)), name="empty_rows")],
           FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("cartesian_prod", tl.cartesian_prod, _cartesian_ref,
           lambda d, r: [SampleInput((_arr((2,), d, r), _arr((3,), d, r)), name="two"),
                         SampleInput((_arr((2,), d, r), _arr((1,), d, r), _arr((2,), d, r)), name="three"),
                         SampleInput((_arr((4,), d, r),), name="one")],
           FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("diagflat", tl.diagflat, lambda x, offset=0: np.diagflat(x, offset),
           lambda d, r: [SampleInput((_arr((2, 2), d, r), 1), name="matrix"), SampleInput((_arr((3,), d, r),))],
           FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("vander", tl.vander, _vander_ref,
           lambda d, r: [SampleInput((_arr((4,), d, r),), name="square"),
                         SampleInput((_arr((3,), d, r), 5, True), name="increasing")],
           FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("hsplit", tl.hsplit, np.hsplit,
           lambda d, r: [SampleInput((_arr((2, 4), d, r), 2)), SampleInput((_arr((6,), d, r), [1, 4]), name="1d")],
           FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("vsplit", tl.vsplit, np.vsplit, lambda d, r: [SampleInput((_arr((4, 2), d, r), [1, 3]))], FEW,
           cuda_dtypes=CUDA_MIN),
    OpInfo("dsplit", tl.dsplit, np.dsplit, lambda d, r: [SampleInput((_arr((1, 2, 4), d, r), 2))], FEW,
           cuda_dtypes=CUDA_MIN),
    OpInfo("unravel_index", tl.unravel_index, np.unravel_index,
           lambda d, r: [SampleInput((np.array([4, 1, 5]).astype(d.np), (2, 3))),
                         SampleInput((np.array([[0, 7]]).astype(d.np), (2, 2, 2)), name="2d")],
           (tl.int32, tl.int64), cuda_dtypes=(tl.int64,), grad=False, noncontiguous=False),
    OpInfo("slice_scatter", tl.slice_scatter, _slice_scatter_ref, _scatter_samples("slice"), FEW,
           cuda_dtypes=CUDA_MIN),
    OpInfo("select_scatter", tl.select_scatter, _select_scatter_ref, _scatter_samples("select"), FEW,
           cuda_dtypes=CUDA_MIN),
    OpInfo("diagonal_scatter", tl.diagonal_scatter, _diagonal_scatter_ref, _scatter_samples("diagonal"), FEW,
           cuda_dtypes=CUDA_MIN),
]


# ==================================================================================================
# order_statistics.py
# ==================================================================================================


def _quantile_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    with_nan = a(3, 5)
    with_nan[rng.random(with_nan.shape) < 0.3] = np.nan  # NaN only: numpy and PyTorch interpolate infinities apart
    qs = np.array([0.1, 0.55, 0.95]).astype(dtype.np)  # no integer ranks: the gradient in q has no kink there
    out = [SampleInput((a(7), 0.3), {"interpolation": m}, m) for m in ("linear", "lower", "higher", "midpoint",
                                                                     "nearest")]
    return out + [
        SampleInput((a(3, 5), qs, 1), name="q_tensor_dim"),
        SampleInput((a(3, 5), 0.5, 0, True), name="keepdim"),
        SampleInput((a(2, 3, 4), qs), {"keepdim": True}, "all_keepdim"),
        SampleInput((with_nan, qs, 1), name="nan_rows", grad_args=()),
        SampleInput((a(), 0.5), name="0d"),
    ]


def _quantile_ref(nan_aware):
    def ref(x, q, dim=None, keepdim=False, interpolation="linear"):
        fn = np.nanquantile if nan_aware else np.quantile
        with warnings.catch_warnings():  # numpy warns for all-NaN rows (the result is NaN, as PyTorch's)
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(x, q, axis=dim, keepdims=keepdim, method=interpolation)

    return ref


def _lower_nanmedian_ref(x, dim, keepdim=False):
    moved = np.moveaxis(x, dim, -1)
    values = np.empty(moved.shape[:-1], dtype=x.dtype)
    for i in np.ndindex(values.shape):
        row = np.sort(moved[i][~np.isnan(moved[i])])
        values[i] = row[(len(row) - 1) // 2] if len(row) else np.nan
    return np.expand_dims(values, dim) if keepdim else values


def _mode_ref(x, dim=-1, keepdim=False):
    moved = np.moveaxis(x, dim, -1)
    values = np.empty(moved.shape[:-1], dtype=x.dtype)
    indices = np.empty(moved.shape[:-1], dtype=np.int64)
    for i in np.ndindex(values.shape):
        row = list(moved[i])
        best = min(set(row), key=lambda v: (-row.count(v), v))  # most frequent, then smallest
        values[i], indices[i] = best, len(row) - 1 - row[::-1].index(best)  # its last occurrence
    if keepdim:
        return np.expand_dims(values, dim), np.expand_dims(indices, dim)
    return values, indices


def _mode_samples(dtype, rng):
    ints = lambda *s: rng.integers(0, 3, s).astype(dtype.np)  # noqa: E731  (few values: real ties)
    # no gradcheck: a step of eps breaks the ties that decide the mode
    return [SampleInput((ints(9),), name="1d", grad_args=()), SampleInput((ints(3, 8), 0), name="dim0", grad_args=()),
            SampleInput((ints(2, 3, 5), 1, True), name="keepdim", grad_args=())]


OPS += [
    OpInfo("quantile", tl.quantile, _quantile_ref(False), _quantile_samples, (tl.float32, tl.float64),
           cuda_dtypes=CUDA_MIN),
    OpInfo("nanquantile", tl.nanquantile, _quantile_ref(True), _quantile_samples, (tl.float32, tl.float64),
           cuda_dtypes=CUDA_MIN),
    OpInfo("nanmedian", lambda x, dim, keepdim=False: tl.nanmedian(x, dim, keepdim).values, _lower_nanmedian_ref,
           lambda d, r: [SampleInput((_with_specials(_arr((3, 6), d, r), r), 1), name="nan", grad_args=()),
                         SampleInput((_arr((4, 5), d, r), 0, True), name="keepdim")],
           float_dtypes(), cuda_dtypes=CUDA_MIN),
    OpInfo("mode", lambda x, dim=-1, keepdim=False: tuple(tl.mode(x, dim, keepdim)), _mode_ref, _mode_samples,
           non_bool_dtypes(), cuda_dtypes=(tl.float32, tl.int64)),
]
