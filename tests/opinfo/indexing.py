"""OpInfo entries for the indexing family (index_select, gather, take, take_along_dim, advanced
getitem/setitem, scatter*, index_*, index_put, masked_*, nonzero, argwhere, one_hot, bincount).

References are independent of the twins: explicit Python loops over ``np.ndindex`` for the
gather/scatter family (with the sequential, source-order semantics the kernels promise),
``np.add.at`` for accumulation, NumPy's own fancy and boolean indexing for getitem/setitem,
``np.argwhere``/``np.bincount``. Samples that go through gradcheck use unique destinations for
the ops whose gradient PyTorch defines only then (scatter, index_copy, index_put without
accumulate); duplicates are covered in tests/ops/test_indexing.py.
"""

from __future__ import annotations

import numpy as np

import tensorlab as tl
from tests.helpers import random_array

from .core import OpInfo, SampleInput, all_dtypes

NUMERIC = (tl.float16, tl.bfloat16, tl.float32, tl.float64, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64)
CUDA_FEW = (tl.float32, tl.float16, tl.int64)
CUDA_MIN = (tl.float32, tl.int32)


def _idx(rng, high, shape, low=0):
    return np.asarray(rng.integers(low, high, size=shape), dtype=np.int64)


def _perm_rows(rng, n, shape_other, take):
    """Index of shape (take, *shape_other) whose columns are distinct values in [0, n)."""
    cols = int(np.prod(shape_other))
    out = np.stack([rng.permutation(n)[:take] for _ in range(cols)], axis=1)
    return out.reshape((take,) + tuple(shape_other)).astype(np.int64)


# ----------------------------------------------------------------------------------------------
# index_select, gather, take, take_along_dim
# ----------------------------------------------------------------------------------------------


def _index_select_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((r((5,)), np.array([0, 4, 4, 1])), {"dim": 0}, name="1d-dup"),
        SampleInput((r((3, 4)), np.array([3, 0, 3])), {"dim": 1}),
        SampleInput((r((3, 4)), np.array([2])), {"dim": -2}, name="neg-dim"),
        SampleInput((r((2, 3, 5)), np.zeros(0, np.int64)), {"dim": 1}, name="empty-index"),
        SampleInput((r(()), np.array([0])), {"dim": 0}, name="0d"),
        SampleInput((r((4, 0)), np.array([1, 2])), {"dim": 0}, name="empty-input"),
        SampleInput((r((33, 3)), _idx(rng, 33, (17,))), {"dim": 0}, name="odd"),
        SampleInput((r((5, 2)), np.array(3)), {"dim": 0}, name="0d-index"),
        SampleInput((r((3, 4)), np.array([1, 0], dtype=np.int32)), {"dim": 1}, name="int32-index"),
    ]


def _ref_index_select(x, index, dim):
    if x.ndim == 0:
        return x.copy()
    d = dim % x.ndim
    out_shape = list(x.shape)
    out_shape[d] = index.size
    out = np.empty(out_shape, x.dtype)
    for k, i in enumerate(index.reshape(-1)):
        sl = [slice(None)] * x.ndim
        sl[d] = k
        src = [slice(None)] * x.ndim
        src[d] = int(i)
        out[tuple(sl)] = x[tuple(src)]
    return out


def _gather_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((r((4, 5)), _idx(rng, 4, (3, 5))), {"dim": 0}),
        SampleInput((r((4, 5)), _idx(rng, 5, (4, 2))), {"dim": -1}, name="neg-dim"),
        SampleInput((r((2, 3, 4)), _idx(rng, 3, (2, 2, 3))), {"dim": 1}, name="3d-smaller"),
        SampleInput((r((4, 5)), np.zeros((0, 5), np.int64)), {"dim": 0}, name="empty"),
        SampleInput((r(()), np.array(0)), {"dim": 0}, name="0d"),
        SampleInput((r((5,)), np.array(3)), {"dim": 0}, name="0d-index"),
        SampleInput((r((5,)), _idx(rng, 5, (7,))), {"dim": 0}, name="longer-index"),
        SampleInput((r((1, 37)), _idx(rng, 37, (1, 37))), {"dim": 1}, name="odd"),
    ]


def _ref_gather(x, index, dim):
    if x.ndim == 0:
        return x.copy()
    if index.ndim == 0:
        return x[int(index)].copy()
    d = dim % x.ndim
    out = np.empty(index.shape, x.dtype)
    for pos in np.ndindex(*index.shape):
        src = list(pos)
        src[d] = int(index[pos])
        out[pos] = x[tuple(src)]
    return out


def _take_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((r((3, 4)), _idx(rng, 12, (2, 3), low=-12)), name="2d-neg"),
        SampleInput((r(()), np.array([0, -1, 0])), name="0d-input"),
        SampleInput((r((5,)), np.array(-2)), name="0d-index"),
        SampleInput((r((2, 3)), np.zeros((0,), np.int64)), name="empty"),
        SampleInput((r((3, 3, 3)), _idx(rng, 27, (31,))), name="odd"),
    ]


def _ref_take(x, index):
    flat = x.reshape(-1)
    out = np.empty(index.shape, x.dtype)
    for pos in np.ndindex(*index.shape):
        i = int(index[pos])
        out[pos] = flat[i + flat.size if i < 0 else i]
    return out


def _take_along_dim_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((r((3, 4)), _idx(rng, 4, (3, 2))), {"dim": 1}),
        SampleInput((r((3, 4)), _idx(rng, 3, (1, 4))), {"dim": 0}, name="broadcast-index"),
        SampleInput((r((3, 1)), _idx(rng, 3, (2, 5))), {"dim": 0}, name="broadcast-input"),
        SampleInput((r((3, 4)), _idx(rng, 12, (5,))), {"dim": None}, name="flat"),
    ]


def _ref_take_along_dim(x, idx, dim):
    if dim is None:
        return x.reshape(-1)[idx.reshape(-1)]
    return np.take_along_axis(x, idx, axis=dim)


# ----------------------------------------------------------------------------------------------
# advanced getitem / setitem / index_put
# ----------------------------------------------------------------------------------------------
# ``spec`` is the index with placeholders: ("T", k) is the k-th array argument after x (and v).

S = slice(None)


def _build(spec, arrays):
    return tuple(arrays[it[1]] if isinstance(it, tuple) and it and it[0] == "T" else it for it in spec)


def _getitem(x, *arrays, spec):
    return x[_build(spec, arrays)]


def _ref_getitem(x, *arrays, spec):
    return np.asarray(x[_build(spec, arrays)]).copy()


def _getitem_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    t0, t1 = ("T", 0), ("T", 1)
    x = r((4, 5, 6))
    return [
        SampleInput((r((5,)), np.array([0, 4, -1, 2])), {"spec": (t0,)}, name="1d"),
        SampleInput((x, _idx(rng, 5, (2, 3), low=-5)), {"spec": (S, t0)}, name="slice-2d-index"),
        SampleInput((x, _idx(rng, 4, (3,)), _idx(rng, 5, (3,))), {"spec": (t0, t1)}, name="adjacent"),
        SampleInput((x, _idx(rng, 4, (2, 1)), _idx(rng, 6, (3,))), {"spec": (t0, S, t1)}, name="separated"),
        SampleInput((x, _idx(rng, 6, (2,))), {"spec": (None, Ellipsis, t0)}, name="none-ellipsis"),
        SampleInput((x, np.asarray(rng.random((4, 5)) < 0.5)), {"spec": (t0,)}, name="mask-leading"),
        SampleInput((x, np.asarray(rng.random((4, 5, 6)) < 0.3)), {"spec": (t0,)}, name="mask-full"),
        SampleInput((x, np.asarray(rng.random((5,)) < 0.5), _idx(rng, 4, (1,))), {"spec": (t1, t0)},
                    name="int-and-mask"),
        SampleInput((x, np.zeros((0,), np.int64)), {"spec": (S, S, t0)}, name="empty-index"),
        SampleInput((r((3, 7)), np.array([2, 0, 2, 1, 2])), {"spec": (t0, slice(1, 6, 2))}, name="dup-strided"),
    ]


def _setitem(x, v, *arrays, spec):
    y = x.clone()
    y[_build(spec, arrays)] = v
    return y


def _ref_setitem(x, v, *arrays, spec):
    y = x.copy()
    y[_build(spec, arrays)] = v
    return y


def _setitem_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    t0, t1 = ("T", 0), ("T", 1)
    mask = np.asarray(rng.random((4, 5)) < 0.5)
    return [
        SampleInput((r((5,)), r((3,)), np.array([4, 0, 2])), {"spec": (t0,)}, name="1d"),
        SampleInput((r((4, 5)), r((5,)), np.array([3, 1])), {"spec": (t0,)}, name="rows-broadcast"),
        SampleInput((r((4, 5, 3)), r((2, 3)), np.array([0, 3]), np.array([4, 1])), {"spec": (t0, t1)},
                    name="adjacent"),
        SampleInput((r((4, 5, 3)), r((2, 1)), np.array([0, 3]), np.array([2, 1])), {"spec": (t0, S, t1)},
                    name="separated"),
        SampleInput((r((4, 5)), r((int(mask.sum()),)), mask), {"spec": (t0,)}, name="mask"),
        SampleInput((r((4, 5)), r(()), mask), {"spec": (t0,)}, name="mask-scalar"),
        SampleInput((r((4, 5)), r((2, 1)), np.array([[1], [3]])), {"spec": (slice(1, 3), t0)},
                    name="slice-then-index"),
        SampleInput((r((4, 5)), r(()), np.array([1, -1])), {"spec": (S, t0)}, name="scalar-value"),
    ]


def _index_put_acc(x, v, *arrays, n_idx):
    return tl.index_put(x, tuple(arrays[:n_idx]), v, accumulate=True)


def _ref_index_put_acc(x, v, *arrays, n_idx):
    y = x.copy()
    index = []
    for a in arrays[:n_idx]:
        index.extend(np.nonzero(a) if a.dtype == bool else (a,))
    np.add.at(y, tuple(index), v)
    return y


def _index_put_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((r((5,)), r((6,)), _idx(rng, 5, (6,), low=-5)), {"n_idx": 1}, name="dup"),
        SampleInput((r((4, 3)), r((3,)), np.array([0, 0, 3, 0])), {"n_idx": 1}, name="rows-dup"),
        SampleInput((r((4, 3)), r((5,)), _idx(rng, 4, (5,)), _idx(rng, 3, (5,))), {"n_idx": 2}, name="pairs"),
        SampleInput((r((4, 3)), r(()), np.asarray(rng.random((4, 3)) < 0.5)), {"n_idx": 1}, name="mask"),
        SampleInput((r((3, 2)), r((0, 2)), np.zeros((0,), np.int64)), {"n_idx": 1}, name="empty"),
    ]


# ----------------------------------------------------------------------------------------------
# scatter family
# ----------------------------------------------------------------------------------------------


def _scatter_groups(x, index, src, dim):
    """{destination position: [source values in row-major source order]}."""
    groups: dict = {}
    d = dim % max(x.ndim, 1)
    for pos in np.ndindex(*index.shape):
        dst = list(pos)
        if x.ndim:
            dst[d] = int(index[pos])
        groups.setdefault(tuple(dst), []).append(src[pos] if src is not None else None)
    return groups


def _ref_scatter(x, index, src, dim):
    out = x.copy()
    for dst, vals in _scatter_groups(x, index, src, dim).items():
        out[dst] = vals[-1]
    return out


def _ref_scatter_value(x, index, dim, value):
    out = x.copy()
    for dst in _scatter_groups(x, index, None, dim):
        out[dst] = value
    return out


def _fold(vals, reduce, dtype):
    if dtype.kind == "f":
        vals = [float(v) for v in vals]
        if reduce == "sum":
            return sum(vals)
        if reduce == "prod":
            return float(np.prod(vals))
        if reduce == "mean":
            return sum(vals) / len(vals)
        return max(vals) if reduce == "amax" else min(vals)
    vals = np.array(vals, dtype=np.int64)
    if reduce == "sum":
        return vals.sum()
    if reduce == "prod":
        return np.prod(vals)
    if reduce == "mean":
        return np.floor_divide(vals.sum(), len(vals))
    return vals.max() if reduce == "amax" else vals.min()


def _ref_scatter_reduce(x, index, src, dim, reduce, include_self=True):
    out = x.copy()
    for dst, vals in _scatter_groups(x, index, src, dim).items():
        vals = ([x[dst]] if include_self else []) + vals
        out[dst] = np.asarray(_fold(vals, reduce, x.dtype)).astype(x.dtype)
    return out


def _scatter_samples(dtype, rng, unique=True):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    idx = (lambda n, shape: _perm_rows(rng, n, shape[1:], shape[0])) if unique else \
        (lambda n, shape: _idx(rng, n, shape))
    return [
        SampleInput((r((4, 3)), idx(4, (3, 3)), r((3, 3))), {"dim": 0}),
        SampleInput((r((3, 5)), np.swapaxes(idx(5, (4, 3)), 0, 1).copy(), r((3, 6))), {"dim": 1},
                    name="dim1-bigger-src"),
        SampleInput((r((2, 4, 3)), np.moveaxis(idx(4, (2, 2, 3)), 0, 1).copy(), r((2, 2, 3))), {"dim": -2},
                    name="3d-neg-dim"),
        SampleInput((r((4, 3)), np.zeros((0, 3), np.int64), r((0, 3))), {"dim": 0}, name="empty"),
        SampleInput((r(()), np.array(0), r(())), {"dim": 0}, name="0d"),
        SampleInput((r((9,)), idx(9, (7,)), r((7,))), {"dim": 0}, name="odd"),
    ]


def _scatter_dup_samples(dtype, rng):
    return _scatter_samples(dtype, rng, unique=False)


def _scatter_value_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    v = 1.5 if dtype.is_floating_point else (True if dtype is tl.bool else 3)
    return [
        SampleInput((r((4, 3)), _idx(rng, 4, (5, 2))), {"dim": 0, "value": v}, name="dup"),
        SampleInput((r((3, 4)), _idx(rng, 4, (2, 3))), {"dim": -1, "value": v}),
        SampleInput((r((3,)), np.zeros((0,), np.int64)), {"dim": 0, "value": v}, name="empty"),
    ]


def _scatter_reduce_samples(reduce):
    def samples(dtype, rng):
        out = []
        base = _scatter_samples(dtype, rng, unique=False)
        for s in (base if reduce == "sum" else [base[0], base[1], base[4]]):
            for include_self in (True, False):
                out.append(SampleInput(s.args, {**s.kwargs, "reduce": reduce, "include_self": include_self},
                                       name=f"{s.name}-self{int(include_self)}"))
        if reduce == "prod" and dtype.is_floating_point:
            x, src = random_array((3, 2), dtype, rng), random_array((4, 2), dtype, rng)
            src[1, 0] = 0
            out.append(SampleInput((x, np.array([[0, 1], [0, 1], [2, 2], [1, 0]]), src),
                                   {"dim": 0, "reduce": reduce, "include_self": True}, name="one-zero"))
        return out

    return samples


# ----------------------------------------------------------------------------------------------
# index_add, index_copy, index_fill
# ----------------------------------------------------------------------------------------------


def _index_rows_samples(unique):
    def samples(dtype, rng):
        r = lambda s: random_array(s, dtype, rng)  # noqa: E731
        pick = (lambda n, k: rng.permutation(n)[:k].astype(np.int64)) if unique else \
            (lambda n, k: _idx(rng, n, (k,)))
        return [
            SampleInput((r((5, 3)), pick(5, 4), r((4, 3))), {"dim": 0}, name="rows"),
            SampleInput((r((3, 6)), pick(6, 3), r((3, 3))), {"dim": 1}, name="cols"),
            SampleInput((r((2, 4, 3)), pick(4, 2), r((2, 2, 3))), {"dim": -2}, name="3d"),
            SampleInput((r((4, 2)), np.zeros((0,), np.int64), r((0, 2))), {"dim": 0}, name="empty"),
            SampleInput((r((7, 33)), pick(7, 5), r((5, 33))), {"dim": 0}, name="odd-rows"),
        ]

    return samples


def _index_add(x, index, source, dim, alpha=1):
    return tl.index_add(x, dim, index, source, alpha=alpha)


def _ref_index_add(x, index, source, dim, alpha=1):
    out = x.copy()
    d = dim % x.ndim
    for k, i in enumerate(index):
        dst = [slice(None)] * x.ndim
        dst[d] = int(i)
        src = [slice(None)] * x.ndim
        src[d] = k
        if x.dtype.kind == "f":
            out[tuple(dst)] = out[tuple(dst)] + alpha * source[tuple(src)]
        else:
            out[tuple(dst)] = (out[tuple(dst)].astype(np.int64) + alpha * source[tuple(src)].astype(np.int64)).astype(
                x.dtype)
    return out


def _index_add_samples(dtype, rng):
    out = _index_rows_samples(False)(dtype, rng)
    alpha = 2 if not dtype.is_floating_point else -0.5
    out.append(SampleInput(out[0].args, {"dim": 0, "alpha": alpha}, name="alpha"))
    return out


def _index_copy(x, index, source, dim):
    return tl.index_copy(x, dim, index, source)


def _ref_index_copy(x, index, source, dim):
    out = x.copy()
    d = dim % x.ndim
    for k, i in enumerate(index):
        dst = [slice(None)] * x.ndim
        dst[d] = int(i)
        src = [slice(None)] * x.ndim
        src[d] = k
        out[tuple(dst)] = source[tuple(src)]
    return out


def _index_fill(x, index, dim, value):
    return tl.index_fill(x, dim, index, value)


def _index_fill_t(x, index, value, dim):
    return tl.index_fill(x, dim, index, value)


def _ref_index_fill(x, index, dim, value):
    out = x.copy()
    d = dim % x.ndim
    for i in index.reshape(-1):
        dst = [slice(None)] * x.ndim
        dst[d] = int(i)
        out[tuple(dst)] = value
    return out


def _index_fill_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    v = -2.5 if dtype.is_floating_point else (True if dtype is tl.bool else 4)
    return [
        SampleInput((r((4, 3)), np.array([0, -1, 0])), {"dim": 0, "value": v}, name="dup-neg"),
        SampleInput((r((3, 5)), np.array(2)), {"dim": 1, "value": v}, name="0d-index"),
        SampleInput((r((3, 5)), np.zeros((0,), np.int64)), {"dim": -1, "value": v}, name="empty"),
    ]


def _index_fill_tensor_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    return [SampleInput((r((4, 3)), np.array([0, 2, 0]), r(())), {"dim": 0}, name="tensor-value")]


def _ref_index_fill_t(x, index, value, dim):
    return _ref_index_fill(x, index, dim, value)


# ----------------------------------------------------------------------------------------------
# masked ops, nonzero, one_hot, bincount
# ----------------------------------------------------------------------------------------------


def _mask(rng, shape, p=0.5):
    return np.asarray(rng.random(shape) < p)


def _masked_fill_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    v = 7.25 if dtype.is_floating_point else (False if dtype is tl.bool else 5)
    return [
        SampleInput((r((3, 4)), _mask(rng, (3, 4))), {"value": v}),
        SampleInput((r((3, 4)), _mask(rng, (4,))), {"value": v}, name="mask-broadcast"),
        SampleInput((r((4,)), _mask(rng, (3, 4))), {"value": v}, name="input-broadcast"),
        SampleInput((r(()), np.array(True)), {"value": v}, name="0d"),
        SampleInput((r((0, 3)), _mask(rng, (0, 3))), {"value": v}, name="empty"),
        SampleInput((r((1025,)), _mask(rng, (1025,))), {"value": v}, name="odd"),
    ]


def _masked_fill_t(x, mask, value):
    return tl.masked_fill(x, mask, value)


def _masked_fill_tensor_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    return [SampleInput((r((3, 4)), _mask(rng, (3, 4)), r(())), name="tensor-value"),
            SampleInput((r((2, 3)), _mask(rng, (3,)), r(())), name="tensor-value-broadcast")]


def _ref_masked_fill(x, mask, value):
    x, mask = np.broadcast_arrays(x, mask)
    return np.where(mask, np.asarray(value).astype(x.dtype), x)


def _masked_select_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((r((3, 4)), _mask(rng, (3, 4)))),
        SampleInput((r((3, 4)), _mask(rng, (4,))), name="mask-broadcast"),
        SampleInput((r((4,)), _mask(rng, (2, 4))), name="input-broadcast"),
        SampleInput((r(()), np.array(True)), name="0d"),
        SampleInput((r((5,)), np.zeros(5, bool)), name="none"),
        SampleInput((r((0, 2)), _mask(rng, (0, 2))), name="empty"),
        SampleInput((r((3, 343)), _mask(rng, (3, 343), 0.3)), name="odd"),
    ]


def _ref_masked_select(x, mask):
    x, mask = np.broadcast_arrays(x, mask)
    return x[mask]


def _masked_scatter_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    m = _mask(rng, (3, 4))
    return [
        SampleInput((r((3, 4)), m, r((int(m.sum()),))), name="exact"),
        SampleInput((r((3, 4)), _mask(rng, (4,)), r((4, 4))), name="mask-broadcast-2d-source"),
        SampleInput((r((2, 5)), _mask(rng, (2, 5)), r((11,))), name="longer-source"),
        SampleInput((r(()), np.array(True), r((2,))), name="0d"),
    ]


def _ref_masked_scatter(x, mask, source):
    x, mask = np.broadcast_arrays(x, mask)
    out = x.copy()
    out[mask] = source.reshape(-1)[: int(mask.sum())]
    return out


def _nonzero_samples(dtype, rng):
    out = []
    for shape in [(), (0,), (7,), (3, 4), (2, 3, 4), (1030,)]:
        a = random_array(shape, dtype, rng)
        if dtype is not tl.bool:
            a = np.where(np.asarray(rng.random(shape) < 0.4), a, np.zeros((), dtype.np)).astype(dtype.np)
        out.append(SampleInput((np.asarray(a),), name=str(shape)))
    out.append(SampleInput((np.zeros((), dtype.np),), name="0d-zero"))
    return out


def _ref_nonzero(x):
    r = np.argwhere(x)
    return r.reshape(r.shape[0], x.ndim)


def _ref_nonzero_tuple(x):
    return tuple(np.argwhere(np.atleast_1d(x)).T)


def _one_hot_samples(dtype, rng):
    return [
        SampleInput((_idx(rng, 4, (3, 2)),), {"num_classes": -1}),
        SampleInput((_idx(rng, 4, (5,)),), {"num_classes": 6}),
        SampleInput((np.array(2),), {"num_classes": 3}, name="0d"),
        SampleInput((np.zeros((0, 2), np.int64),), {"num_classes": 3}, name="empty"),
    ]


def _ref_one_hot(x, num_classes):
    c = int(x.max()) + 1 if num_classes == -1 else num_classes
    return (x[..., None] == np.arange(c)).astype(np.int64)


def _bincount_samples(dtype, rng):
    vals = lambda n: np.asarray(rng.integers(0, 9, size=n)).astype(dtype.np)  # noqa: E731
    return [
        SampleInput((vals(20),), {}),
        SampleInput((vals(6),), {"minlength": 12}, name="minlength"),
        SampleInput((np.zeros(0, dtype.np),), {"minlength": 3}, name="empty"),
        SampleInput((vals(7), rng.random(7).astype(np.float32)), name="float32-weights"),
        SampleInput((vals(7), rng.random(7)), name="float64-weights"),
    ]


def _bincount(x, weights=None, minlength=0):
    return tl.bincount(x, weights, minlength)


def _ref_bincount(x, weights=None, minlength=0):
    out = np.bincount(x.astype(np.int64), weights, minlength)
    if weights is None:
        return out.astype(np.int64)
    return out.astype(np.float32 if weights.dtype == np.float32 else np.float64)


# ----------------------------------------------------------------------------------------------
# the table
# ----------------------------------------------------------------------------------------------

_INT64 = lambda dtype: tl.int64  # noqa: E731

OPS = [
    OpInfo("index_select", lambda x, index, dim: tl.index_select(x, dim, index), _ref_index_select,
           _index_select_samples, all_dtypes(), cuda_dtypes=CUDA_FEW, ref_float64=False),
    OpInfo("gather", lambda x, index, dim: tl.gather(x, dim, index), _ref_gather, _gather_samples, all_dtypes(),
           cuda_dtypes=CUDA_FEW, ref_float64=False),
    OpInfo("take", tl.take, _ref_take, _take_samples, all_dtypes(), cuda_dtypes=CUDA_MIN, ref_float64=False),
    OpInfo("take_along_dim", lambda x, i, dim: tl.take_along_dim(x, i, dim), _ref_take_along_dim,
           _take_along_dim_samples, all_dtypes(), cuda_dtypes=CUDA_MIN, ref_float64=False),
    OpInfo("getitem_advanced", _getitem, _ref_getitem, _getitem_samples, all_dtypes(), cuda_dtypes=CUDA_FEW,
           ref_float64=False),
    OpInfo("setitem_advanced", _setitem, _ref_setitem, _setitem_samples, all_dtypes(), cuda_dtypes=CUDA_FEW,
           ref_float64=False),
    OpInfo("index_put_accumulate", _index_put_acc, _ref_index_put_acc, _index_put_samples, NUMERIC,
           cuda_dtypes=CUDA_FEW),
    OpInfo("scatter", lambda x, index, src, dim: tl.scatter(x, dim, index, src), _ref_scatter, _scatter_samples,
           all_dtypes(), cuda_dtypes=CUDA_FEW, ref_float64=False),
    OpInfo("scatter_duplicates", lambda x, index, src, dim: tl.scatter(x, dim, index, src), _ref_scatter,
           _scatter_dup_samples, all_dtypes(), cuda_dtypes=CUDA_MIN, grad=False, ref_float64=False),
    OpInfo("scatter_value", lambda x, index, dim, value: tl.scatter(x, dim, index, value=value),
           _ref_scatter_value, _scatter_value_samples, all_dtypes(), cuda_dtypes=CUDA_MIN, ref_float64=False),
    OpInfo("scatter_add", lambda x, index, src, dim: tl.scatter_add(x, dim, index, src),
           lambda x, index, src, dim: _ref_scatter_reduce(x, index, src, dim, "sum"), _scatter_dup_samples, NUMERIC,
           cuda_dtypes=CUDA_FEW),
    *[OpInfo(f"scatter_reduce_{reduce}",
             lambda x, index, src, dim, reduce, include_self: tl.scatter_reduce(x, dim, index, src, reduce,
                                                                                 include_self=include_self),
             _ref_scatter_reduce, _scatter_reduce_samples(reduce), NUMERIC, cuda_dtypes=CUDA_MIN,
             tol={tl.float16: (2e-3, 1e-3), tl.bfloat16: (2e-2, 1e-2)})
      for reduce in ("sum", "prod", "mean", "amax", "amin")],
    OpInfo("index_add", _index_add, _ref_index_add, _index_add_samples, NUMERIC, cuda_dtypes=CUDA_FEW),
    OpInfo("index_copy", _index_copy, _ref_index_copy, _index_rows_samples(True), all_dtypes(),
           cuda_dtypes=CUDA_MIN, ref_float64=False),
    OpInfo("index_fill", _index_fill, _ref_index_fill, _index_fill_samples, all_dtypes(), cuda_dtypes=CUDA_MIN,
           ref_float64=False),
    OpInfo("index_fill_tensor_value", _index_fill_t, _ref_index_fill_t, _index_fill_tensor_samples, all_dtypes(),
           cuda_dtypes=CUDA_MIN, ref_float64=False),
    OpInfo("masked_fill", lambda x, mask, value: tl.masked_fill(x, mask, value), _ref_masked_fill,
           _masked_fill_samples, all_dtypes(), cuda_dtypes=CUDA_FEW, ref_float64=False),
    OpInfo("masked_fill_tensor_value", _masked_fill_t, _ref_masked_fill, _masked_fill_tensor_samples, all_dtypes(),
           cuda_dtypes=CUDA_MIN, ref_float64=False),
    OpInfo("masked_select", tl.masked_select, _ref_masked_select, _masked_select_samples, all_dtypes(),
           cuda_dtypes=CUDA_FEW, ref_float64=False),
    OpInfo("masked_scatter", tl.masked_scatter, _ref_masked_scatter, _masked_scatter_samples, all_dtypes(),
           cuda_dtypes=CUDA_MIN, ref_float64=False),
    OpInfo("nonzero", tl.nonzero, _ref_nonzero, _nonzero_samples, all_dtypes(),
           cuda_dtypes=(tl.bool, tl.float32, tl.int8), grad=False, out_dtype=_INT64),
    OpInfo("nonzero_as_tuple", lambda x: tl.nonzero(x, as_tuple=True), _ref_nonzero_tuple, _nonzero_samples,
           (tl.bool, tl.float32, tl.int32), cuda_dtypes=(tl.bool,), grad=False, out_dtype=_INT64),
    OpInfo("argwhere", tl.argwhere, _ref_nonzero, _nonzero_samples,
           (tl.bool, tl.float64, tl.int16), cuda_dtypes=(tl.float64,), grad=False, out_dtype=_INT64),
    OpInfo("one_hot", tl.one_hot, _ref_one_hot, _one_hot_samples, (tl.int64,), grad=False, out_dtype=_INT64),
    OpInfo("bincount", _bincount, _ref_bincount, _bincount_samples, (tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64),
           cuda_dtypes=(tl.int64,), grad=False),
]
