"""OpInfo entries for the sorting family: sort, argsort, msort, topk, kthvalue, median (dim and
all-elements), searchsorted, bucketize, unique, unique_consecutive.

References are independent of the twins (which use integer sort keys and ``np.argsort``): the
sorting ops use Python's ``sorted`` (stable, also with ``reverse=True``) over ``(isnan, value)``
pairs, which is PyTorch's order (NaN largest, -0.0 == +0.0, ties in input order); searchsorted runs
PyTorch's binary search in Python numbers (``_pytorch_bound``); unique uses
``np.unique(equal_nan=False)`` (every NaN distinct, as in PyTorch); unique_consecutive an explicit
loop. Samples with repeated values carry ``grad_args=()``: a sort is not differentiable where
values tie (finite differences see half of the gradient at each tied position), so gradcheck uses
samples with distinct values.
"""

from __future__ import annotations

import numpy as np

import tensorlab as tl
from tests.helpers import random_array

from .core import OpInfo, SampleInput, all_dtypes, non_bool_dtypes

# The cuda kernels run in the interpreter on CI: one dtype per key path (32-bit float, the two
# 16-bit floats, 64-bit integer keys, bool). tests/ops/test_sorting.py covers the rest of the
# key mappings (uint8, int8, int16, int32, float64) on cuda.
CUDA_SORT = (tl.float32, tl.float16, tl.bfloat16, tl.int64, tl.bool)
CUDA_FEW = (tl.float32, tl.int64)
_NO_BOOL_SORT = tuple(d for d in CUDA_SORT if d is not tl.bool)  # topk: PyTorch refuses bool


# ----------------------------------------------------------------------------------------------
# references
# ----------------------------------------------------------------------------------------------


def _key(v):
    nan = v != v
    return (nan, 0.0 if nan else v)


def _ref_perm(x: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Stable sort permutation along ``dim`` in PyTorch's order, with Python's ``sorted``."""
    if x.ndim == 0:
        return np.zeros((), np.int64)
    xm = np.moveaxis(x, dim, -1)
    rows = xm.reshape(int(np.prod(xm.shape[:-1])), xm.shape[-1])
    perm = np.zeros(rows.shape, np.int64)
    for r, row in enumerate(rows):
        vals = row.tolist()
        perm[r] = sorted(range(len(vals)), key=lambda i: _key(vals[i]), reverse=descending)
    return np.moveaxis(perm.reshape(xm.shape), -1, dim)


def _take(x, perm, dim):
    return x.copy() if x.ndim == 0 else np.take_along_axis(x, perm, dim)


def _ref_sort(x, dim=-1, descending=False, stable=False):
    perm = _ref_perm(x, dim, descending)
    return _take(x, perm, dim), perm


def _ref_argsort(x, dim=-1, descending=False, stable=False):
    return _ref_perm(x, dim, descending)


def _ref_msort(x):
    return _ref_sort(x, 0)[0]


def _ref_topk(x, k, dim=-1, largest=True, sorted=True):
    perm = _ref_perm(x, dim, largest)
    if x.ndim:
        perm = np.take(perm, np.arange(k), axis=dim)
    return _take(x, perm, dim), perm


def _ref_kthvalue(x, k, dim=-1, keepdim=False):
    perm = _ref_perm(x, dim, False)
    if x.ndim == 0:
        return x.copy(), perm
    perm = np.take(perm, [k - 1], axis=dim)
    vals = np.take_along_axis(x, perm, dim)
    if not keepdim:
        vals, perm = vals.squeeze(dim), perm.squeeze(dim)
    return vals, perm


def _median_pos(row: list) -> int:
    """Position in the ascending stable order: the first NaN if any, else the lower median."""
    nans = sum(1 for v in row if v != v)
    return len(row) - nans if nans else (len(row) - 1) // 2


def _ref_median(x, dim=-1, keepdim=False):
    perm = _ref_perm(x, dim, False)
    if x.ndim == 0:
        return x.copy(), perm
    xm, pm = np.moveaxis(x, dim, -1), np.moveaxis(perm, dim, -1)
    idx = np.zeros(xm.shape[:-1] + (1,), np.int64)
    for pos in np.ndindex(*xm.shape[:-1]):
        idx[pos] = pm[pos][_median_pos(xm[pos].tolist())]
    vals = np.take_along_axis(xm, idx, -1)
    vals, idx = np.moveaxis(vals, -1, dim), np.moveaxis(idx, -1, dim)
    if not keepdim:
        vals, idx = vals.squeeze(dim), idx.squeeze(dim)
    return vals, idx


def _ref_median_all(x):
    if x.size == 0:
        return np.array(np.nan)
    flat = x.reshape(-1)
    order = _ref_perm(flat, 0, False)
    return np.asarray(flat[order[_median_pos(flat.tolist())]])


def _pytorch_bound(row, value, right: bool) -> int:
    """PyTorch's binary search, one value in one row, in Python numbers: it goes right where
    ``not (middle > value)`` (right) or ``not (middle >= value)`` (left), and a comparison with NaN
    is false (numpy's searchsorted orders NaN last instead)."""
    lo, hi = 0, len(row)
    value = value.item()
    while lo < hi:
        mid = lo + (hi - lo) // 2
        middle = row[mid].item()
        if not (middle > value if right else middle >= value):
            lo = mid + 1
        else:
            hi = mid
    return lo


def _ref_searchsorted(seq, values, sorter=None, out_int32=False, right=False, side=None):
    right = (side or ("right" if right else "left")) == "right"
    if sorter is not None:
        seq = np.take_along_axis(seq, sorter, -1)
    out = np.zeros(values.shape, np.int32 if out_int32 else np.int64)
    for pos in np.ndindex(*values.shape):
        out[pos] = _pytorch_bound(seq if seq.ndim == 1 else seq[pos[:-1]], values[pos], right)
    return out


def _ref_bucketize(x, boundaries, out_int32=False, right=False):
    return _ref_searchsorted(boundaries, x, out_int32=out_int32, right=right)


def _ref_unique(x, sorted=True, return_inverse=True, return_counts=True):
    values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True, equal_nan=False)
    return values, inverse.reshape(x.shape).astype(np.int64), counts.astype(np.int64)


def _ref_unique_consecutive(x, return_inverse=True, return_counts=True):
    flat = x.reshape(-1).tolist()
    values, counts, inverse = [], [], []
    for v in flat:
        if not values or not (v == values[-1]):  # NaN never equals the previous value
            values.append(v)
            counts.append(0)
        counts[-1] += 1
        inverse.append(len(values) - 1)
    return (np.array(values, x.dtype).reshape(-1), np.array(inverse, np.int64).reshape(x.shape),
            np.array(counts, np.int64).reshape(-1))


# ----------------------------------------------------------------------------------------------
# samples
# ----------------------------------------------------------------------------------------------


def _dups(shape, dtype, rng):
    """Few distinct values, many repeats (integers as ``dtype``)."""
    if dtype is tl.bool:
        return random_array(shape, dtype, rng)
    return np.asarray(rng.integers(-3, 4, size=shape)).astype(np.float64).astype(dtype.np)


def _extremal(dtype):
    vals = [np.nan, -np.inf, 1.0, -0.0, np.inf, 0.0, np.nan, -1.0, 1.0, -0.0]
    return np.array(vals, np.float64).astype(dtype.np)


def _sort_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    out = [
        SampleInput((r(()),), name="0d"),
        SampleInput((r(()),), {"dim": 0, "descending": True}, name="0d-desc"),
        SampleInput((r((0,)),), name="empty"),
        SampleInput((r((2, 0, 3)),), {"dim": 1}, name="empty-dim"),
        SampleInput((r((1,)),), name="size1"),
        SampleInput((r((7,)),), name="odd"),
        SampleInput((r((3, 7)),), {"dim": 0}, name="dim0"),
        SampleInput((r((3, 7)),), {"descending": True}, name="desc"),
        SampleInput((r((2, 3, 5)),), {"dim": 1, "descending": True}, name="3d-dim1-desc"),
        SampleInput((r((4, 1, 3)),), {"dim": -2}, name="neg-dim-size1"),
        SampleInput((r((2, 33)),), name="masked-tail"),
        SampleInput((_dups((3, 9), dtype, rng),), {"stable": True}, name="dups", grad_args=()),
        SampleInput((_dups((3, 9), dtype, rng),), {"descending": True, "stable": True}, name="dups-desc",
                    grad_args=()),
    ]
    if dtype.is_floating_point:
        out.append(SampleInput((_extremal(dtype),), name="extremal"))
        out.append(SampleInput((_extremal(dtype),), {"descending": True}, name="extremal-desc"))
    return out


def _argsort_samples(dtype, rng):
    return [s for s in _sort_samples(dtype, rng) if s.name not in ("0d-desc", "size1", "neg-dim-size1")]


def _msort_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    return [SampleInput((r(()),), name="0d"), SampleInput((r((0, 3)),), name="empty"),
            SampleInput((r((5, 3)),)), SampleInput((_dups((6, 2), dtype, rng),), name="dups", grad_args=())]


def _topk_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    out = [
        SampleInput((r(()), 1), name="0d"),
        SampleInput((r((0,)), 0), name="empty"),
        SampleInput((r((7,)), 3)),
        SampleInput((r((7,)), 0), name="k0"),
        SampleInput((r((7,)), 7), {"largest": False}, name="k=n-smallest"),
        SampleInput((r((3, 7)), 2), {"dim": 0}, name="dim0"),
        SampleInput((r((2, 3, 5)), 4), {"dim": -1, "largest": False}, name="smallest"),
        SampleInput((r((2, 3, 5)), 1), {"dim": 1, "sorted": False}, name="unsorted-k1"),
        SampleInput((_dups((4, 9), dtype, rng), 5), name="dups", grad_args=()),
        SampleInput((_dups((4, 9), dtype, rng), 5), {"largest": False}, name="dups-smallest", grad_args=()),
    ]
    if dtype.is_floating_point:
        out.append(SampleInput((_extremal(dtype), 4), name="extremal"))
        out.append(SampleInput((_extremal(dtype), 4), {"largest": False}, name="extremal-smallest"))
    return out


def _kthvalue_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    out = [
        SampleInput((r(()), 1), name="0d"),
        SampleInput((r(()), 1), {"keepdim": True}, name="0d-keepdim"),
        SampleInput((r((1,)), 1), name="size1"),
        SampleInput((r((7,)), 4)),
        SampleInput((r((3, 7)), 3), {"dim": 0, "keepdim": True}, name="dim0-keepdim"),
        SampleInput((r((2, 3, 5)), 5), {"dim": -1}, name="k=n"),
        SampleInput((r((2, 0, 5)), 2), {"dim": -1}, name="empty-batch"),
        SampleInput((_dups((4, 9), dtype, rng), 4), name="dups", grad_args=()),
    ]
    if dtype.is_floating_point:
        out.append(SampleInput((_extremal(dtype), 3), name="extremal"))
        out.append(SampleInput((_extremal(dtype), 10), name="extremal-last"))
    return out


def _median_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    out = [
        SampleInput((r(()),), {"dim": 0}, name="0d"),
        SampleInput((r((1,)),), {"dim": 0}, name="size1"),
        SampleInput((r((7,)),), {"dim": 0}, name="odd"),
        SampleInput((r((3, 8)),), {"dim": 1}, name="even"),
        SampleInput((r((3, 8)),), {"dim": 0, "keepdim": True}, name="dim0-keepdim"),
        SampleInput((r((2, 3, 5)),), {"dim": -2}, name="neg-dim"),
        SampleInput((r((0, 4)),), {"dim": 1}, name="empty-batch"),
        SampleInput((_dups((4, 9), dtype, rng),), {"dim": 1}, name="dups", grad_args=()),
    ]
    if dtype.is_floating_point:
        nan_rows = np.array([[1.0, np.nan, 0.0, np.nan], [2.0, -1.0, 3.0, 0.5], [np.inf, -np.inf, 0.0, -0.0]])
        out.append(SampleInput((nan_rows.astype(dtype.np),), {"dim": 1}, name="nan-rows"))
    return out


def _median_all_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    out = [SampleInput((r(()),), name="0d"), SampleInput((r((7,)),), name="odd"),
           SampleInput((r((3, 4)),), name="even"), SampleInput((_dups((3, 5), dtype, rng),), name="dups",
                                                               grad_args=())]
    if dtype.is_floating_point:
        out.append(SampleInput((r((0, 3)),), name="empty"))
        out.append(SampleInput((_extremal(dtype),), name="extremal"))
    return out


def _sorted_array(shape, dtype, rng, dups=False):
    a = _dups(shape, dtype, rng) if dups else random_array(shape, dtype, rng)
    if a.ndim == 0:
        return a
    return np.sort(a.astype(np.float64) if dtype is not tl.bool else a, axis=-1).astype(dtype.np)


def _searchsorted_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    srt = lambda s, dups=False: _sorted_array(s, dtype, rng, dups)  # noqa: E731
    seq = srt((9,), dups=True)
    unsorted = r((6,))
    out = [
        SampleInput((seq, r((5,)))),
        SampleInput((seq, r((5,))), {"right": True}, name="right"),
        SampleInput((seq, seq.copy()), {"side": "right"}, name="values=seq-right"),
        SampleInput((seq, seq.copy()), {"side": "left"}, name="values=seq-left"),
        SampleInput((seq, r(())), name="0d-values"),
        SampleInput((seq, r((2, 0))), name="empty-values"),
        SampleInput((srt((0,)), r((3,))), name="empty-seq"),
        SampleInput((srt((1,)), r((4,))), {"out_int32": True}, name="size1-int32"),
        SampleInput((srt((2, 3, 7), dups=True), r((2, 3, 4))), {"right": True}, name="nd"),
        SampleInput((srt((3, 5)), r((3, 2))), {"out_int32": True}, name="nd-int32"),
        SampleInput((unsorted, r((4, 3)), np.argsort(unsorted.astype(np.float64), kind="stable")),
                    name="sorter"),
        SampleInput((seq, r((33,))), name="masked-tail"),
    ]
    if dtype.is_floating_point:
        ext = np.array([-np.inf, -1.0, -0.0, 0.0, 2.0, np.inf, np.nan], np.float64).astype(dtype.np)
        out.append(SampleInput((ext, _extremal(dtype)), name="extremal"))
        out.append(SampleInput((ext, _extremal(dtype)), {"right": True}, name="extremal-right"))
        inner = np.array([-1.0, np.nan, 0.0, 1.0, np.nan, 2.0], np.float64).astype(dtype.np)  # (PyTorch's path)
        out.append(SampleInput((inner, _extremal(dtype)), name="nan-inside"))
    return out


def _searchsorted_op(seq, values, sorter=None, **kwargs):
    return tl.searchsorted(seq, values, sorter=sorter, **kwargs)


def _bucketize_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    b = _sorted_array((6,), dtype, rng)
    return [SampleInput((r((3, 4)), b)), SampleInput((r((5,)), b), {"right": True, "out_int32": True}, name="right"),
            SampleInput((r(()), b), name="0d"), SampleInput((r((0,)), b), name="empty")]


def _unique_samples(dtype, rng):
    r = lambda s: random_array(s, dtype, rng)  # noqa: E731
    out = [
        SampleInput((r(()),), name="0d"),
        SampleInput((r((0,)),), name="empty"),
        SampleInput((r((1,)),), name="size1"),
        SampleInput((_dups((3, 7), dtype, rng),), name="2d-dups"),
        SampleInput((r((2, 3, 5)),), name="3d"),
        SampleInput((_dups((41,), dtype, rng),), name="masked-tail"),
    ]
    if dtype.is_floating_point:
        out.append(SampleInput((_extremal(dtype),), name="extremal"))
    return out


def _unique_op(x):
    return tl.unique(x, return_inverse=True, return_counts=True)


def _unique_consecutive_op(x):
    return tl.unique_consecutive(x, return_inverse=True, return_counts=True)


def _unique_consecutive_samples(dtype, rng):
    out = _unique_samples(dtype, rng)
    runs = np.repeat(_dups((6,), dtype, rng), [1, 3, 2, 1, 4, 2])
    out.append(SampleInput((runs,), name="runs"))
    return out


OPS = [
    OpInfo("sort", tl.sort, _ref_sort, _sort_samples, all_dtypes(), cuda_dtypes=CUDA_SORT),
    OpInfo("argsort", tl.argsort, _ref_argsort, _argsort_samples, all_dtypes(), cuda_dtypes=CUDA_FEW, grad=False),
    OpInfo("msort", tl.msort, _ref_msort, _msort_samples, all_dtypes(), cuda_dtypes=(tl.float32,)),
    OpInfo("topk", tl.topk, _ref_topk, _topk_samples, non_bool_dtypes(), cuda_dtypes=_NO_BOOL_SORT),
    OpInfo("kthvalue", tl.kthvalue, _ref_kthvalue, _kthvalue_samples, non_bool_dtypes(), cuda_dtypes=CUDA_FEW),
    OpInfo("median", tl.median, _ref_median, _median_samples, non_bool_dtypes(), cuda_dtypes=CUDA_FEW),
    OpInfo("median_all", tl.median, _ref_median_all, _median_all_samples, non_bool_dtypes(),
           cuda_dtypes=CUDA_FEW),
    OpInfo("searchsorted", _searchsorted_op, _ref_searchsorted, _searchsorted_samples, non_bool_dtypes(),
           cuda_dtypes=(tl.float32, tl.float16, tl.int64), grad=False),
    OpInfo("bucketize", tl.bucketize, _ref_bucketize, _bucketize_samples, non_bool_dtypes(), cuda_dtypes=(tl.float32,),
           grad=False),
    OpInfo("unique", _unique_op, _ref_unique, _unique_samples, all_dtypes(), cuda_dtypes=(tl.float32, tl.bool),
           grad=False),
    OpInfo("unique_consecutive", _unique_consecutive_op, _ref_unique_consecutive, _unique_consecutive_samples,
           all_dtypes(), cuda_dtypes=(tl.float16, tl.int64), grad=False),
]
