"""OpInfo entries for the reductions family: reductions, max/min/arg*, var/std, norm, logsumexp, softmax, scans.

References are written here with numpy, independently of the twins (tensorlab_kernels/reduction),
and follow PyTorch's semantics: NaN propagates through max/min (and argmax points at the first
NaN), ties go to the first index (the last one for cummax/cummin), integer sums are int64.

Samples cover: dim None / int / negative / list (and keepdim), 0-d, empty (rows and reduced
dims), size-1 dims, odd lengths that leave a masked tail (1000, 1025), extremal values (±inf,
NaN, large fp16). The generic test also runs every sample non-contiguous (NaN in the gaps).
Large samples set ``grad_args=()`` so gradcheck (one backward per output element) stays quick.
"""

from __future__ import annotations

import math

import numpy as np

import tensorlab as tl
from tests.helpers import random_array

from .core import OpInfo, SampleInput, all_dtypes, float_dtypes, non_bool_dtypes

INT64 = tl.int64

# ----------------------------------------------------------------------------------------------
# numpy helpers
# ----------------------------------------------------------------------------------------------


def _axis(x, dim):
    """PyTorch's dim argument as numpy's axis (None: everything; a 0-d input has nothing to name)."""
    if dim is None or x.ndim == 0:
        return None
    if isinstance(dim, list | tuple):
        return tuple(d % x.ndim for d in dim) if dim else None
    return dim % x.ndim


def _floaty(x):
    return x.dtype.kind == "f"


def _int_acc(x):
    return x if _floaty(x) else x.astype(np.int64)


def _keep(r, x, axis, keepdim):
    r = np.asarray(r)
    if keepdim:
        return r.reshape([1 if (axis is None or i in np.atleast_1d(axis)) else s for i, s in enumerate(x.shape)])
    return r


# ----------------------------------------------------------------------------------------------
# sample generators
# ----------------------------------------------------------------------------------------------


def _extremal(dtype):
    values = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, 2.5, -7.0]
    if dtype is tl.float16:
        values += [65504.0, -65504.0, 6e-8]
    return np.array(values, dtype=np.float64).astype(dtype.np)


def _reduce_samples(*, empty_reduction=True, low=None, high=None, full=True, lists=True, big=True):
    """Samples for ``op(x, dim=..., keepdim=...)``."""

    def samples(dtype, rng):
        def a(shape):
            return random_array(shape, dtype, rng, low=low, high=high)

        out = [
            SampleInput((a((5,)),), {}, name="1d"),
            SampleInput((a(()),), {}, name="0d"),
            SampleInput((a(()),), {"dim": 0}, name="0d-dim0"),
            SampleInput((a((3, 7)),), {"dim": 1}, name="dim1"),
            SampleInput((a((3, 7)),), {"dim": -2, "keepdim": True}, name="dim-2-keep"),
            SampleInput((a((4, 1, 3)),), {"dim": 1}, name="size1-dim"),
            SampleInput((a((0, 3)),), {"dim": 1}, name="no-rows"),
        ]
        if lists:
            out += [
                SampleInput((a((2, 3, 5)),), {"dim": (0, 2)}, name="dims02"),
                SampleInput((a((2, 3, 5)),), {"dim": [-1, 1], "keepdim": True}, name="dims-1,1-keep"),
            ]
        if full:
            out.append(SampleInput((a((2, 3, 5)),), {"keepdim": True} if lists else {}, name="all"))
        if big:
            out += [
                SampleInput((a((1025,)),), {"dim": 0}, name="1025", grad_args=()),
                SampleInput((a((3, 1000)),), {"dim": 1}, name="3x1000", grad_args=()),
                SampleInput((a((1000, 3)),), {"dim": 0}, name="1000x3-dim0", grad_args=()),
            ]
        if empty_reduction:
            out += [SampleInput((a((0, 3)),), {"dim": 0}, name="empty-dim"),
                    SampleInput((a((0,)),), {}, name="empty")]
        if dtype.is_floating_point:
            out.append(SampleInput((_extremal(dtype),), {"dim": 0}, name="extremal"))
        return out

    return samples


# ----------------------------------------------------------------------------------------------
# references
# ----------------------------------------------------------------------------------------------


def _sum_ref(x, dim=None, keepdim=False):
    ax = _axis(x, dim)
    return np.sum(_int_acc(x), axis=ax, keepdims=keepdim)


def _mean_ref(x, dim=None, keepdim=False):
    ax = _axis(x, dim)
    n = x.size if ax is None else math.prod(x.shape[d] for d in np.atleast_1d(ax))
    return np.sum(x, axis=ax, keepdims=keepdim) / n


def _prod_ref(x, dim=None, keepdim=False):
    return np.prod(_int_acc(x), axis=_axis(x, dim), keepdims=keepdim)


def _amax_ref(x, dim=None, keepdim=False):
    return np.max(x, axis=_axis(x, dim), keepdims=keepdim)


def _amin_ref(x, dim=None, keepdim=False):
    return np.min(x, axis=_axis(x, dim), keepdims=keepdim)


def _all_ref(x, dim=None, keepdim=False):
    r = np.all(x != 0, axis=_axis(x, dim), keepdims=keepdim)
    return r.astype(np.uint8) if x.dtype == np.uint8 else r


def _any_ref(x, dim=None, keepdim=False):
    r = np.any(x != 0, axis=_axis(x, dim), keepdims=keepdim)
    return r.astype(np.uint8) if x.dtype == np.uint8 else r


def _count_nonzero_ref(x, dim=None):
    return np.asarray(np.count_nonzero(x, axis=_axis(x, dim)), dtype=np.int64)


def _logsumexp_ref(x, dim=None, keepdim=False):
    x = x.astype(np.float64)
    ax = _axis(x, dim)
    if x.size == 0 or (ax is not None and any(x.shape[d] == 0 for d in np.atleast_1d(ax))):
        return np.full(np.sum(x, axis=ax, keepdims=keepdim).shape, -np.inf)
    m = np.max(x, axis=ax, keepdims=True)
    m = np.where(np.isinf(m), 0.0, m)
    r = np.log(np.sum(np.exp(x - m), axis=ax, keepdims=True)) + m
    return r if keepdim else np.squeeze(r, axis=ax) if ax is not None else r.reshape(())


def _minmax_dim_ref(is_max):
    def ref(x, dim, keepdim=False):
        if x.ndim == 0:
            return x.copy(), np.array(0, np.int64)
        d = dim % x.ndim
        idx = np.argmax(x, axis=d) if is_max else np.argmin(x, axis=d)
        vals = np.take_along_axis(x, np.expand_dims(idx, d), axis=d).squeeze(d)
        if keepdim:
            vals, idx = np.expand_dims(vals, d), np.expand_dims(idx, d)
        return vals, idx.astype(np.int64)

    return ref


def _arg_ref(is_max):
    def ref(x, dim=None, keepdim=False):
        f = np.argmax if is_max else np.argmin
        if dim is None or x.ndim == 0:
            r = np.asarray(f(x.reshape(-1)), np.int64)
            return r.reshape((1,) * x.ndim) if keepdim else r
        return np.asarray(f(x, axis=dim % x.ndim, keepdims=keepdim), np.int64)

    return ref


def _var_ref(std=False, with_mean=False):
    def ref(x, dim=None, keepdim=False, correction=1):
        x = x.astype(np.float64)
        ax = _axis(x, dim)
        n = x.size if ax is None else math.prod(x.shape[d] for d in np.atleast_1d(ax))
        m = np.sum(x, axis=ax, keepdims=True) / n
        v = np.sum((x - m) ** 2, axis=ax, keepdims=keepdim) / max(0, n - correction)
        if std:
            v = np.sqrt(v)
        if not with_mean:
            return v
        return v, (m if keepdim else (np.squeeze(m, axis=ax) if ax is not None else m.reshape(())))

    return ref


def _norm_ref(x, p="fro", dim=None, keepdim=False):
    x = np.abs(x.astype(np.float64))
    ax = _axis(x, dim)
    p = 2.0 if p == "fro" else float(p)
    if p == 0:
        return np.sum(x != 0, axis=ax, keepdims=keepdim).astype(np.float64)
    if p == math.inf:
        return np.max(x, axis=ax, keepdims=keepdim)
    if p == -math.inf:
        return np.min(x, axis=ax, keepdims=keepdim)
    return np.sum(x ** p, axis=ax, keepdims=keepdim) ** (1.0 / p)


def _softmax_ref(log):
    def ref(x, dim, dtype=None):
        x = x.astype(np.float64)
        ax = _axis(x, dim)
        m = np.max(x, axis=ax, keepdims=True)
        e = np.exp(x - m)
        s = np.sum(e, axis=ax, keepdims=True)
        return x - m - np.log(s) if log else e / s

    return ref


def _cum_ref(kind):
    def ref(x, dim, dtype=None):
        if x.ndim == 0:
            return x.astype(np.int64) if not _floaty(x) else x.copy()
        x = _int_acc(x) if dtype is None else x.astype(dtype.np if not dtype.is_floating_point else np.float64)
        return np.cumsum(x, axis=dim) if kind == "sum" else np.cumprod(x, axis=dim)

    return ref


def _logcumsumexp_ref(x, dim):
    return np.logaddexp.accumulate(x.astype(np.float64), axis=dim) if x.ndim else x.astype(np.float64)


def _cumext_ref(is_max):
    """PyTorch's rule: take the new element when it is NaN, or when the running value is not NaN
    and the element is >= (cummax) / <= (cummin) it: the last index among ties wins."""

    def ref(x, dim):
        if x.ndim == 0:
            return x.copy(), np.array(0, np.int64)
        xm = np.moveaxis(x, dim, -1)
        vals, idx = np.empty_like(xm), np.zeros(xm.shape, np.int64)
        for pos in np.ndindex(*xm.shape[:-1]):
            cur, ci = None, 0
            for i, v in enumerate(xm[pos]):
                if cur is None:
                    cur, ci = v, i
                else:
                    nan_v = _floaty(xm) and np.isnan(v)
                    nan_c = _floaty(xm) and np.isnan(cur)
                    if nan_v or (not nan_c and (v >= cur if is_max else v <= cur)):
                        cur, ci = v, i
                vals[pos + (i,)], idx[pos + (i,)] = cur, ci
        return np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)

    return ref


# ----------------------------------------------------------------------------------------------
# op-specific samples
# ----------------------------------------------------------------------------------------------


def _norm_samples(dtype, rng):
    def a(shape):
        return random_array(shape, dtype, rng)

    out = [
        SampleInput((a((3, 7)),), {}, name="fro-all"),
        SampleInput((a((3, 7)),), {"p": 1, "dim": 1}, name="p1"),
        SampleInput((a((3, 7)),), {"p": 2, "dim": 0, "keepdim": True}, name="p2-keep"),
        SampleInput((a((3, 7)),), {"p": math.inf, "dim": 1}, name="inf"),
        SampleInput((a((3, 7)),), {"p": -math.inf, "dim": -1}, name="-inf"),
        SampleInput((a((2, 3, 5)),), {"p": 3.0, "dim": (0, 2)}, name="p3"),
        SampleInput((a((2, 3, 5)),), {"p": 0.5, "dim": 2}, name="p0.5"),
        SampleInput((a((2, 3, 5)),), {"p": 0, "dim": 1}, name="p0"),
        SampleInput((a((2, 3, 5)),), {"p": "fro", "dim": (1, 2)}, name="fro-dims"),
        SampleInput((a(()),), {"p": 2}, name="0d"),
        SampleInput((a((0, 3)),), {"p": 2, "dim": 0}, name="empty-dim"),
        SampleInput((a((1025,)),), {"p": 2}, name="1025", grad_args=()),
        SampleInput((_extremal(dtype),), {"p": 2}, name="extremal"),
        SampleInput((_extremal(dtype),), {"p": math.inf}, name="extremal-inf"),
    ]
    return out


def _dim_samples(*, softmax=False, big=True):
    """Samples for one-dim ops (softmax, scans, max/min with dim)."""

    def samples(dtype, rng):
        def a(shape):
            return random_array(shape, dtype, rng, low=-2 if softmax else None, high=2 if softmax else None)

        out = [
            SampleInput((a((5,)),), {"dim": 0}, name="1d"),
            SampleInput((a(()),), {"dim": 0}, name="0d"),
            SampleInput((a((3, 7)),), {"dim": 1}, name="dim1"),
            SampleInput((a((3, 7)),), {"dim": -2}, name="dim-2"),
            SampleInput((a((2, 3, 5)),), {"dim": 1}, name="middle"),
            SampleInput((a((4, 1, 3)),), {"dim": 1}, name="size1-dim"),
            SampleInput((a((0, 3)),), {"dim": 1}, name="no-rows"),
        ]
        if big:
            out += [SampleInput((a((2, 1025)),), {"dim": 1}, name="2x1025", grad_args=()),
                    SampleInput((a((1000, 3)),), {"dim": 0}, name="1000x3-dim0", grad_args=())]
        if dtype.is_floating_point:
            out.append(SampleInput((_extremal(dtype),), {"dim": 0}, name="extremal"))
        return out

    return samples


def _minmax_dim_samples(dtype, rng):
    """max/min/argmax/argmin with a dim: plus keepdim and ties (the first index wins, NaN counts as extreme)."""
    out = _dim_samples()(dtype, rng)
    out.append(SampleInput((random_array((3, 7), dtype, rng),), {"dim": 0, "keepdim": True}, name="keepdim"))
    if dtype.is_floating_point:
        tie = np.array([[1.0, 3.0, 3.0, -2.0], [np.nan, 1.0, np.nan, 5.0]], dtype=dtype.np)
        out.append(SampleInput((tie,), {"dim": 1}, name="ties-nan", grad_args=()))
    return out


def _arg_samples(dtype, rng):
    """argmax/argmin: also dim=None (the index into the flattened input), with keepdim."""
    out = _minmax_dim_samples(dtype, rng)
    out += [SampleInput((random_array((2, 3, 5), dtype, rng),), {}, name="flat"),
            SampleInput((random_array((2, 3, 5), dtype, rng),), {"keepdim": True}, name="flat-keep"),
            SampleInput((random_array((1025,), dtype, rng),), {}, name="flat-1025")]
    return out


def _without(samples_fn, key):
    """The same samples with ``key`` dropped from their kwargs (ops without that argument)."""

    def samples(dtype, rng):
        out = []
        for s in samples_fn(dtype, rng):
            kwargs = {k: v for k, v in s.kwargs.items() if k != key}
            out.append(SampleInput(s.args, kwargs, name=s.name, grad_args=s.grad_args))
        return out

    return samples


def _full_samples(dtype, rng):
    """max()/min() without a dim: the full reduction of non-empty inputs."""
    out = [SampleInput(s.args, {}, name=s.name, grad_args=s.grad_args)
           for s in _reduce_samples(empty_reduction=False, lists=False)(dtype, rng) if s.args[0].size]
    return out


def _var_samples(with_correction=True):
    def samples(dtype, rng):
        base = _reduce_samples(empty_reduction=False)(dtype, rng)
        base.append(SampleInput((random_array((4, 6), dtype, rng, low=1000.0, high=1001.0),), {"dim": 1},
                                name="offset"))
        if with_correction:
            base += [SampleInput((random_array((3, 7), dtype, rng),), {"dim": 1, "correction": 0}, name="corr0"),
                     SampleInput((random_array((3, 7), dtype, rng),), {"dim": 0, "correction": 2}, name="corr2")]
        out = []
        for s in base:
            if s.name in ("0d", "0d-dim0"):
                continue  # N - 1 = 0: nan, checked in test_reductions
            if s.name == "size1-dim":  # N = 1: var is nan and so is its gradient (as PyTorch's)
                s = SampleInput(s.args, s.kwargs, name=s.name, grad_args=())
            out.append(s)
        return out

    return samples


def _softmax_samples(dtype, rng):
    out = _dim_samples(softmax=True)(dtype, rng)
    if dtype is tl.float16:
        out.append(SampleInput((random_array((3, 7), dtype, rng),), {"dim": 1, "dtype": tl.float32}, name="dtype"))
    return out


def _sum_to_size_samples(dtype, rng):
    def a(shape):
        return random_array(shape, dtype, rng)

    return [
        SampleInput((a((3, 4)), (1, 4)), name="keep-row"),
        SampleInput((a((3, 4)), (4,)), name="lead"),
        SampleInput((a((2, 3, 4)), (3, 1)), name="lead+one"),
        SampleInput((a((3, 4)), (3, 4)), name="same"),
        SampleInput((a((2, 1025)), (1, 1)), name="all", grad_args=()),
    ]


def _sum_to_size(x, size):
    return x.sum_to_size(size)


def _sum_to_size_ref(x, size):
    lead = x.ndim - len(size)
    r = np.sum(x, axis=tuple(range(lead))) if lead else x
    axes = tuple(i for i, s in enumerate(size) if s == 1 and r.shape[i] != 1)
    return np.sum(r, axis=axes, keepdims=True) if axes else r


def _cuda(*dtypes):
    return tuple(dtypes)


F32, F16, BF16, F64 = tl.float32, tl.float16, tl.bfloat16, tl.float64
NON_BOOL = non_bool_dtypes()


def _sum_dtype(dtype):
    return dtype if dtype.is_floating_point else INT64


def _bool_out(dtype):
    return tl.uint8 if dtype is tl.uint8 else tl.bool


OPS = [
    OpInfo("sum", lambda x, **kw: tl.sum(x, **kw), _sum_ref, _reduce_samples(), all_dtypes(),
           cuda_dtypes=_cuda(F32, F16, tl.int32, tl.bool), out_dtype=_sum_dtype),
    OpInfo("Tensor.sum-dtype", lambda x, **kw: x.sum(**kw, dtype=tl.float64),
           lambda x, **kw: _sum_ref(x.astype(np.float64), **kw), _reduce_samples(big=False), (F16, tl.int8),
           cuda_dtypes=_cuda(F16), out_dtype=lambda d: F64, grad=False),
    OpInfo("mean", lambda x, **kw: tl.mean(x, **kw), _mean_ref, _reduce_samples(), float_dtypes(),
           cuda_dtypes=_cuda(F32, BF16), out_dtype=lambda d: d),
    OpInfo("prod", lambda x, **kw: tl.prod(x, **kw), _prod_ref, _reduce_samples(low=0.9, high=1.1, lists=False),
           all_dtypes(), cuda_dtypes=_cuda(F32, tl.int64), out_dtype=_sum_dtype,
           tol={F32: (1e-5, 1e-5), F16: (2e-3, 1e-5)}),  # products of ~1000 roundings: ~sqrt(n) * eps
    OpInfo("amax", lambda x, **kw: tl.amax(x, **kw), _amax_ref, _reduce_samples(empty_reduction=False),
           all_dtypes(), cuda_dtypes=_cuda(F32, F16, tl.int8, tl.bool), out_dtype=lambda d: d),
    OpInfo("amin", lambda x, **kw: tl.amin(x, **kw), _amin_ref, _reduce_samples(empty_reduction=False),
           all_dtypes(), cuda_dtypes=_cuda(BF16, tl.uint8), out_dtype=lambda d: d),
    OpInfo("max-full", lambda x: tl.max(x), lambda x: np.max(x), _full_samples, (F32, F64, tl.int32),
           cuda_dtypes=_cuda(F32), out_dtype=lambda d: d),
    OpInfo("min-full", lambda x: x.min(), lambda x: np.min(x), _full_samples, (F32, F64, tl.bool),
           cuda_dtypes=_cuda(tl.bool), out_dtype=lambda d: d),
    OpInfo("max-dim", lambda x, **kw: tuple(tl.max(x, **kw)), _minmax_dim_ref(True), _minmax_dim_samples,
           all_dtypes(), cuda_dtypes=_cuda(F32, F16, tl.int64)),
    OpInfo("min-dim", lambda x, **kw: tuple(x.min(**kw)), _minmax_dim_ref(False), _minmax_dim_samples,
           all_dtypes(), cuda_dtypes=_cuda(BF16, tl.int16, tl.bool)),
    # argmax/argmin: no bool (PyTorch refuses it; tests/ops/test_reductions.py checks the error)
    OpInfo("argmax", lambda x, **kw: tl.argmax(x, **kw), _arg_ref(True), _arg_samples, NON_BOOL,
           cuda_dtypes=_cuda(F32, tl.uint8), grad=False, out_dtype=lambda d: INT64),
    OpInfo("argmin", lambda x, **kw: x.argmin(**kw), _arg_ref(False), _arg_samples, NON_BOOL,
           cuda_dtypes=_cuda(F16, tl.int32), grad=False, out_dtype=lambda d: INT64),
    OpInfo("var", lambda x, **kw: tl.var(x, **kw), _var_ref(), _var_samples(), float_dtypes(),
           cuda_dtypes=_cuda(F32, F16), out_dtype=lambda d: d),
    OpInfo("std", lambda x, **kw: x.std(**kw), _var_ref(std=True), _var_samples(), float_dtypes(),
           cuda_dtypes=_cuda(F32, BF16), out_dtype=lambda d: d),
    OpInfo("var_mean", lambda x, **kw: tl.var_mean(x, **kw), _var_ref(with_mean=True), _var_samples(),
           (F32, F64, BF16), cuda_dtypes=_cuda(F32)),
    OpInfo("std_mean", lambda x, **kw: tl.std_mean(x, **kw), _var_ref(std=True, with_mean=True),
           _var_samples(with_correction=False), (F32, F64), cuda_dtypes=_cuda(F64)),
    OpInfo("norm", lambda x, **kw: tl.norm(x, **kw), _norm_ref, _norm_samples, float_dtypes(),
           cuda_dtypes=_cuda(F32, F16), out_dtype=lambda d: d,
           tol={F32: (1e-5, 1e-5), F16: (2e-3, 1e-5), BF16: (2e-2, 1e-5)}),
    OpInfo("logsumexp", lambda x, dim=None, **kw: tl.logsumexp(x, tuple(range(x.ndim)) if dim is None else dim, **kw),
           _logsumexp_ref, _reduce_samples(lists=True),
           (*float_dtypes(), tl.int32, tl.bool), cuda_dtypes=_cuda(F32, BF16, tl.int32),
           out_dtype=lambda d: d if d.is_floating_point else tl.float32),
    OpInfo("softmax", lambda x, **kw: tl.softmax(x, **kw), _softmax_ref(False), _softmax_samples, float_dtypes(),
           cuda_dtypes=_cuda(F32, F16)),
    OpInfo("log_softmax", lambda x, **kw: x.log_softmax(**kw), _softmax_ref(True), _softmax_samples,
           float_dtypes(), cuda_dtypes=_cuda(F32, BF16)),
    OpInfo("cumsum", lambda x, **kw: tl.cumsum(x, **kw), _cum_ref("sum"), _dim_samples(), all_dtypes(),
           cuda_dtypes=_cuda(F32, F16, tl.int32, tl.bool), out_dtype=_sum_dtype,
           tol={F32: (1e-5, 1e-4)}),  # fp32 running sums of ~1000 values: rounding ~ sqrt(n) * eps * |partial sum|
    OpInfo("cumprod", lambda x, **kw: x.cumprod(**kw), _cum_ref("prod"), _dim_samples(big=False), all_dtypes(),
           cuda_dtypes=_cuda(F32, tl.int64), out_dtype=_sum_dtype),
    OpInfo("logcumsumexp", lambda x, **kw: tl.logcumsumexp(x, **kw), _logcumsumexp_ref, _dim_samples(),
           float_dtypes(), cuda_dtypes=_cuda(F32, BF16)),
    OpInfo("cummax", lambda x, **kw: tuple(tl.cummax(x, **kw)), _cumext_ref(True), _dim_samples(big=False),
           all_dtypes(), cuda_dtypes=_cuda(F32, tl.int8)),
    OpInfo("cummin", lambda x, **kw: tuple(x.cummin(**kw)), _cumext_ref(False), _dim_samples(big=False),
           (F32, F64, F16, tl.int32, tl.bool), cuda_dtypes=_cuda(F16, tl.bool)),
    OpInfo("all", lambda x, **kw: tl.all(x, **kw), _all_ref, _reduce_samples(), all_dtypes(),
           cuda_dtypes=_cuda(F32, tl.uint8, tl.bool), grad=False, out_dtype=_bool_out),
    OpInfo("any", lambda x, **kw: x.any(**kw), _any_ref, _reduce_samples(), all_dtypes(),
           cuda_dtypes=_cuda(BF16, tl.bool), grad=False, out_dtype=_bool_out),
    OpInfo("count_nonzero", lambda x, **kw: tl.count_nonzero(x, **kw), _count_nonzero_ref,
           _without(_reduce_samples(), "keepdim"), all_dtypes(), cuda_dtypes=_cuda(F32, tl.int16), grad=False,
           out_dtype=lambda d: INT64),
    OpInfo("sum_to_size", _sum_to_size, _sum_to_size_ref, _sum_to_size_samples, (F32, F64, F16),
           cuda_dtypes=_cuda(F32)),
]
