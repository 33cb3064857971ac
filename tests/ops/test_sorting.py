"""Specific behaviour of the sorting family: stability, NaN/-0.0 ordering, every dtype's key
mapping, long rows (chunk sort + merge passes), topk/kthvalue/median semantics and errors,
searchsorted/bucketize options and errors, unique/unique_consecutive, out=, autograd.

References are independent of the implementation: Python's ``sorted`` (stable) over
``(isnan, value)`` pairs, ``np.searchsorted``, ``np.unique``, ``itertools.groupby``.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import tensorlab as tl
from tensorlab_kernels.sorting import sort as ksort
from tensorlab_kernels.sorting import unique as kunique
from tests.helpers import ALL_DTYPES, make_tensor, to_numpy


def _ref_perm(row, descending=False):
    vals = list(row)
    return sorted(range(len(vals)), key=lambda i: (vals[i] != vals[i], 0.0 if vals[i] != vals[i] else vals[i]),
                  reverse=descending)


def _ref_perm_nd(x: np.ndarray, dim: int, descending=False) -> np.ndarray:
    xm = np.moveaxis(x, dim, -1)
    out = np.zeros(xm.shape, np.int64)
    for pos in np.ndindex(*xm.shape[:-1]):
        out[pos] = _ref_perm(xm[pos].tolist(), descending)
    return np.moveaxis(out, -1, dim)


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a).view(np.uint8)


# ----------------------------------------------------------------------------------------------
# sort / argsort
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("descending", [False, True])
def test_sort_is_stable_with_many_ties(device, descending):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 3, size=(4, 37)).astype(np.float32)
    expected = _ref_perm_nd(x, 1, descending)
    for stable in (True, False):  # stable=False gives the stable order too (documented)
        values, indices = tl.sort(tl.tensor(x, device=device), dim=1, descending=descending, stable=stable)
        np.testing.assert_array_equal(to_numpy(indices), expected)
        np.testing.assert_array_equal(to_numpy(values), np.take_along_axis(x, expected, 1))
    np.testing.assert_array_equal(to_numpy(tl.argsort(tl.tensor(x, device=device), 1, descending, stable=True)),
                                  expected)


def test_nan_and_signed_zero_order(device):
    x = np.array([np.nan, 1.0, -0.0, -np.inf, 0.0, np.nan, np.inf, -0.0, -1.0], np.float32)
    values, indices = tl.sort(tl.tensor(x, device=device))
    # NaN is the largest (last, in input order); -0.0 and +0.0 are equal (input order kept).
    np.testing.assert_array_equal(to_numpy(indices), [3, 8, 2, 4, 7, 1, 6, 0, 5])
    v = to_numpy(values)
    np.testing.assert_array_equal(np.signbit(v[2:5]), [True, False, True])  # values keep their sign bits
    assert np.isnan(v[-2:]).all()
    values, indices = tl.sort(tl.tensor(x, device=device), descending=True)
    np.testing.assert_array_equal(to_numpy(indices), [0, 5, 6, 1, 2, 4, 7, 8, 3])  # NaN first


def test_nan_payload_and_sign_survive(device):
    bits = np.array([0x7FC00001, 0xFFC00000, 0x3F800000], np.uint32)  # NaN with payload, -NaN, 1.0
    x = bits.view(np.float32)
    values, indices = tl.sort(tl.tensor(x, device=device))
    np.testing.assert_array_equal(to_numpy(indices), [2, 0, 1])
    np.testing.assert_array_equal(to_numpy(values).view(np.uint32), bits[[2, 0, 1]])


def _extreme_values(dtype):
    if dtype is tl.bool:
        return np.array([True, False, True, False, False, True])
    if dtype.is_floating_point:
        finfo = np.finfo(np.float32 if dtype is tl.bfloat16 else dtype.np)
        tiny = float(finfo.smallest_subnormal) if dtype is not tl.bfloat16 else 1e-40
        big = 3.0e38 if dtype is tl.bfloat16 else float(finfo.max)
        vals = [np.nan, big, -big, tiny, -tiny, 0.0, -0.0, np.inf, -np.inf, 1.5, -1.5, 1.5, np.nan, 2.0]
        return np.array(vals, np.float64).astype(np.float32 if dtype is tl.bfloat16 else np.float64).astype(dtype.np)
    info = np.iinfo(dtype.np)
    return np.array([info.max, info.min, 0, 1, -1 if info.min < 0 else 2, info.max, info.min + 1, info.max - 1, 5, 0],
                    dtype=dtype.np)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=lambda d: d.name)
def test_sort_key_mapping_every_dtype(device, dtype):
    """Extremes of every dtype (int min/max, uint8 255, subnormals, ±inf, NaN, -0.0) in both directions."""
    x = _extreme_values(dtype)
    ref_vals = x.astype(np.float64).tolist() if dtype is tl.bfloat16 else x.tolist()
    t = tl.tensor(x, dtype=dtype, device=device)
    for descending in (False, True):
        expected = _ref_perm(ref_vals, descending)
        values, indices = tl.sort(t, descending=descending)
        np.testing.assert_array_equal(to_numpy(indices), expected)
        np.testing.assert_array_equal(_bits(to_numpy(values)), _bits(x[expected]))


def _check_strided_sorts(device):
    rng = np.random.default_rng(1)
    base = rng.standard_normal((5, 6, 7)).astype(np.float32)
    t = tl.tensor(base, device=device).permute(2, 0, 1)[:, 1:4, ::2]  # strided every way
    x = np.transpose(base, (2, 0, 1))[:, 1:4, ::2]
    for dim in (0, 1, 2, -1):
        for descending in (False, True):
            values, indices = tl.sort(t, dim, descending)
            expected = _ref_perm_nd(x, dim, descending)
            np.testing.assert_array_equal(to_numpy(indices), expected)
            np.testing.assert_array_equal(to_numpy(values), np.take_along_axis(x, expected, dim))


def test_sort_strided_batch_and_dims(device):
    _check_strided_sorts(device)


@pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")
def test_sort_small_tiles_many_programs(monkeypatch):
    monkeypatch.setattr(ksort, "TILE", 16)  # several programs per launch, the last one partly masked
    _check_strided_sorts("cuda")


def test_sort_writes_noncontiguous_out(device):
    x = tl.tensor([[3.0, 1.0, 2.0], [0.0, -1.0, 5.0]], device=device)
    values = tl.zeros((3, 2), device=device).t()  # non-contiguous destination
    indices = tl.zeros((2, 3), dtype=tl.int64, device=device)
    res = tl.sort(x, 1, out=(values, indices))
    assert res.values is values and res.indices is indices
    np.testing.assert_array_equal(to_numpy(values), [[1, 2, 3], [-1, 0, 5]])
    np.testing.assert_array_equal(to_numpy(indices), [[1, 2, 0], [1, 0, 2]])


def test_sort_result_is_named_tuple_and_methods(device):
    x = tl.tensor([2, 0, 1], device=device)
    res = x.sort()
    values, indices = res
    assert res.values is values and res.indices is indices
    assert indices.dtype is tl.int64
    np.testing.assert_array_equal(to_numpy(x.argsort(descending=True)), [0, 2, 1])
    np.testing.assert_array_equal(to_numpy(tl.tensor([[3, 1], [2, 4]], device=device).msort()), [[2, 1], [3, 4]])
    out = tl.empty((2, 2), dtype=tl.int64, device=device)
    assert tl.msort(tl.tensor([[3, 1], [2, 4]], device=device), out=out) is out
    np.testing.assert_array_equal(to_numpy(out), [[2, 1], [3, 4]])


def test_sort_errors(device):
    x = tl.tensor([1.0, 2.0], device=device)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.sort(x, dim=1)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.argsort(tl.tensor(1.0, device=device), dim=1)
    with pytest.raises(TypeError, match="dim"):
        tl.sort(x, dim=0.5)


# ----------------------------------------------------------------------------------------------
# long rows: chunk sort + merge passes (forced with a small MAX_BLOCK)
# ----------------------------------------------------------------------------------------------


@pytest.fixture
def small_blocks(monkeypatch):
    """Small blocks: the long-row path, several programs per merge pass, masked tails."""
    monkeypatch.setattr(ksort, "MAX_BLOCK", 32)
    monkeypatch.setattr(ksort, "MERGE_BLOCK", 128)
    monkeypatch.setattr(kunique, "BLOCK", 8)  # 25 blocks: the block-sum scan recurses twice


@pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")
@pytest.mark.parametrize("dtype", [tl.float32, tl.float64], ids=lambda d: d.name)
def test_long_rows_merge_path(small_blocks, dtype):
    rng = np.random.default_rng(2)
    x = rng.integers(-30, 30, size=(3, 70)).astype(np.float64)  # many ties: stability matters
    x[1, ::7] = np.nan
    x[2, 3] = -0.0
    x = x.astype(dtype.np)
    t = tl.tensor(x, device="cuda")
    for descending in (False, True):
        values, indices = tl.sort(t, descending=descending)
        expected = _ref_perm_nd(x, 1, descending)
        np.testing.assert_array_equal(to_numpy(indices), expected)
        np.testing.assert_array_equal(_bits(to_numpy(values)), _bits(np.take_along_axis(x, expected, 1)))
    top = tl.topk(t, 40, largest=False)
    np.testing.assert_array_equal(to_numpy(top.indices), _ref_perm_nd(x, 1)[:, :40])
    kth = tl.kthvalue(t, 50, keepdim=True)  # rows padded to 96: 3 chunks (one without a partner run)
    np.testing.assert_array_equal(to_numpy(kth.indices), _ref_perm_nd(x, 1)[:, 49:50])
    med = tl.median(t, 1)
    cpu = tl.median(tl.tensor(x), 1)
    np.testing.assert_array_equal(to_numpy(med.indices), to_numpy(cpu.indices))
    np.testing.assert_array_equal(_bits(to_numpy(med.values)), _bits(to_numpy(cpu.values)))
    # along dim 0 of the transpose: strided rows
    values, indices = tl.sort(t.t(), dim=0, descending=True)
    np.testing.assert_array_equal(to_numpy(indices), _ref_perm_nd(x.T, 0, True))


@pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")
def test_long_rows_unique(small_blocks):
    rng = np.random.default_rng(3)
    x = rng.integers(0, 50, size=200).astype(np.int32)
    values, inverse, counts = tl.unique(tl.tensor(x, device="cuda"), return_inverse=True, return_counts=True)
    v2, c2 = tl.unique_consecutive(tl.tensor(np.sort(x), device="cuda"), return_counts=True)
    np.testing.assert_array_equal(to_numpy(v2), to_numpy(values))
    np.testing.assert_array_equal(to_numpy(c2), to_numpy(counts))
    ev, ei, ec = np.unique(x, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(to_numpy(values), ev)
    np.testing.assert_array_equal(to_numpy(inverse), ei.reshape(x.shape))
    np.testing.assert_array_equal(to_numpy(counts), ec)


# ----------------------------------------------------------------------------------------------
# topk / kthvalue / median
# ----------------------------------------------------------------------------------------------


def test_topk_largest_smallest_and_ties(device):
    x = tl.tensor([1, 3, 3, 2, 3, 0], device=device)
    v, i = tl.topk(x, 2)
    np.testing.assert_array_equal(to_numpy(v), [3, 3])
    np.testing.assert_array_equal(to_numpy(i), [1, 2])  # ties: lowest index first (deterministic)
    v, i = tl.topk(x, 3, largest=False)
    np.testing.assert_array_equal(to_numpy(v), [0, 1, 2])
    np.testing.assert_array_equal(to_numpy(i), [5, 0, 3])
    v, i = x.topk(4, sorted=False)  # returned sorted anyway
    np.testing.assert_array_equal(to_numpy(v), [3, 3, 3, 2])
    f = tl.tensor([1.0, float("nan"), 5.0], device=device)
    np.testing.assert_array_equal(to_numpy(tl.topk(f, 1).indices), [1])  # NaN is the largest
    np.testing.assert_array_equal(to_numpy(tl.topk(f, 1, largest=False).indices), [0])


def test_topk_of_a_0d_tensor_with_k_0(device):
    # PyTorch 2.13 returns the 0-d input's element for k = 0 as for k = 1 (it crashed here)
    x = tl.tensor(1.5, device=device).requires_grad_()
    v, i = tl.topk(x, 0)
    assert v.shape == () and v.item() == 1.5 and i.item() == 0
    v.backward()
    assert x.grad.item() == 1.0


def test_topk_out_and_dim(device):
    x = tl.tensor([[4.0, 9.0], [7.0, 1.0], [5.0, 8.0]], device=device)
    values = tl.empty((2, 2), device=device)
    indices = tl.empty((2, 2), dtype=tl.int64, device=device)
    res = tl.topk(x, 2, dim=0, out=(values, indices))
    assert res.values is values
    np.testing.assert_array_equal(to_numpy(values), [[7, 9], [5, 8]])
    np.testing.assert_array_equal(to_numpy(indices), [[1, 0], [2, 2]])


_VALUES_AND_INDICES = {
    "sort": (lambda x, out: tl.sort(x, 1, out=out), (2, 4)),
    "topk": (lambda x, out: tl.topk(x, 2, 1, out=out), (2, 2)),
    "kthvalue": (lambda x, out: tl.kthvalue(x, 2, 1, out=out), (2,)),
    "median": (lambda x, out: tl.median(x, 1, out=out), (2,)),
    "max": (lambda x, out: tl.max(x, 1, out=out), (2,)),
    "cummin": (lambda x, out: tl.cummin(x, 1, out=out), (2, 4)),
}


@pytest.mark.parametrize("name", sorted(_VALUES_AND_INDICES))
def test_out_of_another_dtype_is_refused(device, name):
    # torch 2.13 wants a values out= of exactly the input's dtype and an int64 indices out=; the sort
    # kernels also move raw bits, so a converted write would need a temporary. Nothing is written.
    f, shape = _VALUES_AND_INDICES[name]
    x = tl.tensor([[1.5, -2.5, 3.5, 0.25], [4.0, 5.0, -6.0, 7.0]], device=device)
    expected = [to_numpy(r) for r in f(x, None)]
    for dtype, index_dtype in ((tl.float64, tl.int64), (tl.float32, tl.int32), (tl.float16, tl.int64)):
        out = (tl.full(shape, 99.0, dtype=dtype, device=device), tl.full(shape, 99, dtype=index_dtype, device=device))
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
            f(x, out)
        assert (out[0] == 99).all().item() and (out[1] == 99).all().item()  # nothing written
    out = (tl.full(shape, 99.0, device=device), tl.full(shape, 99, dtype=tl.int64, device=device))
    f(x, out)  # the exact dtypes
    np.testing.assert_array_equal(to_numpy(out[0]), expected[0])
    np.testing.assert_array_equal(to_numpy(out[1]), expected[1])
    if name == "sort":  # msort's out= (values only) as well
        values = tl.full((4, 2), 99.0, dtype=tl.float64, device=device)
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
            tl.msort(x.t(), out=values)
        assert (values == 99).all().item()


def test_k_out_of_range(device):
    x = tl.tensor([[1.0, 2.0, 3.0]], device=device)
    for k in (4, -1):
        with pytest.raises(RuntimeError, match="selected index k out of range"):
            tl.topk(x, k)
    for k in (0, 4):
        with pytest.raises(RuntimeError, match="selected number k out of range"):
            tl.kthvalue(x, k)
    with pytest.raises(RuntimeError, match="selected number k out of range"):
        tl.kthvalue(x, 2, dim=0)
    with pytest.raises(TypeError, match="'k' must be int"):
        tl.topk(x, 1.5)


def test_topk_of_bool_raises(device):
    x = tl.tensor([True, False, True], device=device)
    with pytest.raises(RuntimeError, match="topk does not support bool dtypes"):
        tl.topk(x, 2)
    with pytest.raises(RuntimeError, match="selected index k out of range"):  # k is checked first, as PyTorch
        x.topk(5)
    assert tl.sort(x).values.tolist() == [False, True, True]  # sort takes bool


def test_kthvalue_and_searchsorted_of_bool_raise(device):
    # PyTorch 2.13 has no bool kernel for either (NotImplementedError "kthvalue_cpu" / "searchsorted_out_cpu"
    # not implemented for 'Bool'); tensorlab returned values
    x = tl.tensor([True, False, True], device=device)
    with pytest.raises(NotImplementedError, match="kthvalue\\(\\): .* not implemented for 'Bool'"):
        tl.kthvalue(x, 1)
    with pytest.raises(RuntimeError, match="selected number k out of range"):  # k is checked first, as PyTorch
        x.kthvalue(4)
    seq = tl.tensor([False, True], device=device)
    for call in (lambda: tl.searchsorted(seq, x), lambda: tl.searchsorted(seq, True), lambda: tl.bucketize(x, seq),
                 lambda: tl.searchsorted(seq, x, sorter=tl.tensor([0, 1], device=device))):
        with pytest.raises(NotImplementedError, match="searchsorted\\(\\): .* not implemented for 'Bool'"):
            call()
    # a bool side promoted with an integer or float one is searched (as PyTorch)
    assert tl.searchsorted(seq, tl.tensor([1, 0], device=device)).tolist() == [1, 0]
    assert tl.searchsorted(seq, 1).item() == 1
    assert tl.bucketize(x, tl.tensor([0.5], device=device)).tolist() == [1, 0, 1]
    assert tl.searchsorted(tl.tensor([0, 1], device=device), x, right=True).tolist() == [2, 1, 2]


def test_kthvalue_values_and_keepdim(device):
    x = tl.tensor([[5.0, 1.0, 4.0, 1.0], [2.0, 8.0, 6.0, 0.0]], device=device)
    v, i = tl.kthvalue(x, 2)
    np.testing.assert_array_equal(to_numpy(v), [1.0, 2.0])
    np.testing.assert_array_equal(to_numpy(i), [3, 0])  # second of the tied 1.0s in stable order
    v, i = x.kthvalue(1, 0, keepdim=True)
    assert v.shape == (1, 4) and i.shape == (1, 4)
    np.testing.assert_array_equal(to_numpy(v), [[2, 1, 4, 0]])
    s = tl.kthvalue(tl.tensor(3.0, device=device), 1)
    assert s.values.shape == () and s.indices.item() == 0


def test_median_lower_and_nan(device):
    x = tl.tensor([[4.0, 1.0, 3.0, 2.0], [1.0, float("nan"), 0.0, float("nan")]], device=device)
    v, i = tl.median(x, 1)
    assert to_numpy(v)[0] == 2.0 and to_numpy(i)[0] == 3  # lower median of an even count
    assert np.isnan(to_numpy(v)[1]) and to_numpy(i)[1] == 1  # NaN row: the first NaN
    v, i = x.median(0, keepdim=True)
    assert v.shape == (1, 4)
    np.testing.assert_array_equal(to_numpy(i), [[1, 1, 1, 1]])  # column 1 holds a NaN
    assert np.isnan(tl.median(x).item())
    assert tl.median(tl.tensor([3, 1, 2, 5], device=device)).item() == 2
    assert np.isnan(tl.median(tl.tensor([], device=device)).item())
    with pytest.raises(RuntimeError, match="empty"):
        tl.median(tl.tensor([], dtype=tl.int64, device=device))
    with pytest.raises(IndexError, match="non-zero size"):
        tl.median(tl.zeros((2, 0), device=device), 1)


# ----------------------------------------------------------------------------------------------
# autograd
# ----------------------------------------------------------------------------------------------


def test_sort_gradient_goes_to_source_positions(device):
    x = tl.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], device=device, requires_grad=True)
    values, indices = tl.sort(x, 1, descending=True)
    assert values.requires_grad and not indices.requires_grad
    w = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device=device)
    (values * w).sum().backward()
    np.testing.assert_array_equal(to_numpy(x.grad), [[1, 3, 2], [6, 4, 5]])


def test_value_selecting_gradients(device):
    x = tl.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]], device=device, requires_grad=True)
    tl.topk(x, 2, largest=False).values.sum().backward()
    np.testing.assert_array_equal(to_numpy(x.grad), [[0, 1, 1], [1, 0, 1]])
    x.grad = None
    tl.kthvalue(x, 2, 0).values.sum().backward()  # keepdim=False: gradient unsqueezed back
    np.testing.assert_array_equal(to_numpy(x.grad), [[1, 0, 0], [0, 1, 1]])
    x.grad = None
    tl.median(x, 1, keepdim=True).values.sum().backward()
    np.testing.assert_array_equal(to_numpy(x.grad), [[0, 0, 1], [0, 0, 1]])


def test_median_all_gradient_is_shared_by_ties(device):
    x = tl.tensor([[2.0, 1.0, 2.0], [5.0, 2.0, 9.0]], device=device, requires_grad=True)
    m = tl.median(x)
    assert m.item() == 2.0
    m.backward()
    np.testing.assert_allclose(to_numpy(x.grad), [[1 / 3, 0, 1 / 3], [0, 1 / 3, 0]], rtol=1e-6)


def test_full_max_min_median_gradient_of_inf_reaches_the_selected_elements_only(device):
    # PyTorch's cpu evenly_distribute_backward is a masked fill: an inf or NaN upstream gradient
    # does not turn the others into 0 * inf = NaN (amax keeps mask * share, NaN there, as PyTorch)
    for reduce, selected in ((tl.max, [0, 1, 0, 1]), (tl.min, [1, 0, 0, 0]), (tl.median, [0, 0, 1, 0])):
        for g, expected in ((math.inf, math.inf), (math.nan, math.nan), (2.0, None)):
            x = tl.tensor([1.0, 5.0, 3.0, 5.0], dtype=tl.float64, device=device, requires_grad=True)
            reduce(x).backward(tl.tensor(g, dtype=tl.float64, device=device))
            share = expected if expected is not None else g / sum(selected)
            np.testing.assert_array_equal(to_numpy(x.grad), [share if s else 0.0 for s in selected])
    x = tl.tensor([1.0, 5.0], dtype=tl.float64, device=device, requires_grad=True)
    x.amax().backward(tl.tensor(math.inf, dtype=tl.float64, device=device))
    assert np.isnan(to_numpy(x.grad)[0])


def test_sort_double_backward(device):
    x = tl.tensor([3.0, 1.0, 2.0], device=device, requires_grad=True)
    w = tl.tensor([1.0, 10.0, 100.0], device=device, requires_grad=True)
    values = tl.sort(x).values
    (gx,) = tl.autograd.grad((values * w).sum(), [x], create_graph=True)
    np.testing.assert_array_equal(to_numpy(gx), [100, 1, 10])
    (gw,) = tl.autograd.grad((gx * tl.tensor([1.0, 2.0, 3.0], device=device)).sum(), [w])
    np.testing.assert_array_equal(to_numpy(gw), [2, 3, 1])  # d/dw of w scattered to x's positions


def test_no_grad_through_argsort_and_searchsorted(device):
    # (unique's values do require grad, as PyTorch's, and refuse backward: test_binning_and_ranks.py)
    x = tl.tensor([3.0, 1.0, 1.0], device=device, requires_grad=True)
    assert not tl.argsort(x).requires_grad
    assert not tl.searchsorted(tl.tensor([0.0, 2.0], device=device), x).requires_grad


# ----------------------------------------------------------------------------------------------
# searchsorted / bucketize
# ----------------------------------------------------------------------------------------------


def test_searchsorted_options(device):
    rng = np.random.default_rng(4)
    seq = np.sort(rng.integers(0, 6, size=(2, 9)), axis=1).astype(np.float32)
    vals = rng.integers(-1, 7, size=(2, 5)).astype(np.float32)
    s, v = tl.tensor(seq, device=device), tl.tensor(vals, device=device)
    for kwargs, side in (({}, "left"), ({"right": True}, "right"), ({"side": "right"}, "right"),
                         ({"side": "left"}, "left"), ({"right": False, "side": "right"}, "right")):
        out = tl.searchsorted(s, v, **kwargs)
        assert out.dtype is tl.int64
        expected = np.stack([np.searchsorted(seq[r], vals[r], side=side) for r in range(2)])
        np.testing.assert_array_equal(to_numpy(out), expected)
    out = tl.searchsorted(s[0], v, out_int32=True)
    assert out.dtype is tl.int32
    np.testing.assert_array_equal(to_numpy(out), np.searchsorted(seq[0], vals))
    # sorter: an unsorted sequence and the permutation that sorts it
    unsorted = rng.permutation(seq[1])
    sorter = np.argsort(unsorted, kind="stable")
    got = tl.searchsorted(tl.tensor(unsorted, device=device), v, right=True,
                          sorter=tl.tensor(sorter, device=device))
    np.testing.assert_array_equal(to_numpy(got), np.searchsorted(unsorted, vals, side="right", sorter=sorter))


def test_searchsorted_scalars_and_promotion(device):
    s = tl.tensor([1, 3, 5, 7], device=device)
    r = tl.searchsorted(s, 4)
    assert r.shape == () and r.item() == 2
    assert tl.searchsorted(s, 2.5).item() == 1  # compared as floats (PyTorch's promotion)
    assert tl.searchsorted(s, 5, right=True).item() == 3
    f = tl.tensor([0.5, 1.5], dtype=tl.float16, device=device)
    assert to_numpy(tl.searchsorted(f, tl.tensor([1.0, 2.0], dtype=tl.float64, device=device))).tolist() == [1, 2]
    out = tl.empty((2,), dtype=tl.int32, device=device)
    assert tl.searchsorted(s, tl.tensor([0, 8], device=device), out_int32=True, out=out) is out
    np.testing.assert_array_equal(to_numpy(out), [0, 4])


def test_searchsorted_compares_with_nan_as_pytorch(device):
    # torch 2.15: a comparison with NaN is false and sends the search right, so a NaN value and a
    # value above the numbers land after the trailing NaNs (numpy says 2 for both); even -0.0 does,
    # as the search's first middle element is a NaN
    s = tl.tensor([0.0, 1.0, float("nan"), float("nan")], device=device)
    v = tl.tensor([float("nan"), 2.0, -0.0], device=device)
    np.testing.assert_array_equal(to_numpy(tl.searchsorted(s, v)), [4, 4, 4])
    np.testing.assert_array_equal(to_numpy(tl.searchsorted(s, v, right=True)), [4, 4, 4])
    np.testing.assert_array_equal(to_numpy(tl.searchsorted(s[:2], v)), [2, 2, 0])  # (no NaN to pass)
    s = tl.tensor([1.0, float("nan"), 2.0, float("nan"), 3.0], device=device)  # (values from torch 2.15)
    v = tl.tensor([0.0, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, float("nan")], device=device)
    np.testing.assert_array_equal(to_numpy(tl.searchsorted(s, v)), [2, 2, 2, 2, 4, 4, 5, 5])
    np.testing.assert_array_equal(to_numpy(tl.bucketize(v, s, right=True)), [2, 2, 2, 4, 4, 5, 5, 5])


def test_searchsorted_errors(device):
    s = tl.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    v = tl.tensor([[1.0], [2.0]], device=device)
    with pytest.raises(RuntimeError, match="side can only be 'left' or 'right'"):
        tl.searchsorted(s, v, side="middle")
    with pytest.raises(RuntimeError, match="side and right can't be set to opposites"):
        tl.searchsorted(s, v, side="left", right=True)
    with pytest.raises(RuntimeError, match="first N-1 dimensions"):
        tl.searchsorted(s, tl.tensor([[1.0], [2.0], [3.0]], device=device))
    with pytest.raises(RuntimeError, match="scalar only when boundaries tensor dimension is 1"):
        tl.searchsorted(s, 1.0)
    with pytest.raises(RuntimeError, match="boundaries tensor should be 1 dimension"):
        tl.searchsorted(tl.tensor(1.0, device=device), v)
    with pytest.raises(RuntimeError, match="sorter must be a tensor of long dtype"):
        tl.searchsorted(s, v, sorter=tl.zeros((2, 2), dtype=tl.int32, device=device))
    with pytest.raises(RuntimeError, match="boundary and sorter must have the same size"):
        tl.searchsorted(s, v, sorter=tl.zeros((2, 3), dtype=tl.int64, device=device))
    with pytest.raises(RuntimeError, match="sorter index out of range"):
        tl.searchsorted(s, v, sorter=tl.tensor([[0, 2], [1, 0]], device=device))
    with pytest.raises(RuntimeError, match="output tensor's dtype is wrong"):
        tl.searchsorted(s, v, out=tl.empty((2, 1), device=device))


def test_bucketize(device):
    b = tl.tensor([1, 3, 5, 7, 9], device=device)
    x = tl.tensor([[3, 6, 9], [3, 6, 9]], device=device)
    np.testing.assert_array_equal(to_numpy(tl.bucketize(x, b)), [[1, 3, 4], [1, 3, 4]])
    np.testing.assert_array_equal(to_numpy(tl.bucketize(x, b, right=True)), [[2, 3, 5], [2, 3, 5]])
    assert tl.bucketize(4, b).item() == 2
    with pytest.raises(RuntimeError, match="boundaries tensor must be 1 dimension"):
        tl.bucketize(x, x)


# ----------------------------------------------------------------------------------------------
# unique / unique_consecutive
# ----------------------------------------------------------------------------------------------


def test_unique_matches_numpy(device):
    rng = np.random.default_rng(5)
    x = rng.integers(-4, 5, size=(3, 11)).astype(np.int16)
    t = tl.tensor(x, device=device)
    ev, ei, ec = np.unique(x, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(to_numpy(tl.unique(t)), ev)
    v, i = tl.unique(t, return_inverse=True)
    np.testing.assert_array_equal(to_numpy(v), ev)
    np.testing.assert_array_equal(to_numpy(i), ei.reshape(x.shape))
    v, c = t.unique(return_counts=True)
    np.testing.assert_array_equal(to_numpy(c), ec)
    v, i, c = tl.unique(t, sorted=False, return_inverse=True, return_counts=True)  # sorted anyway
    np.testing.assert_array_equal(to_numpy(v), ev)
    assert i.dtype is tl.int64 and c.dtype is tl.int64 and i.shape == (3, 11)
    # non-contiguous input
    v, i, c = tl.unique(make_tensor(x, device, noncontiguous=True), return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(to_numpy(i), ei.reshape(x.shape))


def test_unique_nans_are_distinct_and_zeros_equal(device):
    x = tl.tensor([float("nan"), 1.0, -0.0, float("nan"), 0.0, 1.0], device=device)
    v, i, c = tl.unique(x, return_inverse=True, return_counts=True)
    got = to_numpy(v)
    assert got[:2].tolist() == [0.0, 1.0] and np.isnan(got[2:]).all() and got.size == 4
    np.testing.assert_array_equal(to_numpy(c), [2, 2, 1, 1])
    np.testing.assert_array_equal(to_numpy(i), [2, 1, 0, 3, 0, 1])


def test_unique_consecutive_matches_groupby(device):
    x = np.array([1, 1, 2, 2, 2, 3, 1, 1, 5, 5], np.int64)
    v, i, c = tl.unique_consecutive(tl.tensor(x, device=device), return_inverse=True, return_counts=True)
    groups = [(k, len(list(g))) for k, g in itertools.groupby(x.tolist())]
    np.testing.assert_array_equal(to_numpy(v), [k for k, _ in groups])
    np.testing.assert_array_equal(to_numpy(c), [n for _, n in groups])
    np.testing.assert_array_equal(to_numpy(i), np.repeat(np.arange(len(groups)), [n for _, n in groups]))
    np.testing.assert_array_equal(to_numpy(tl.tensor(x, device=device).unique_consecutive()), [1, 2, 3, 1, 5])


def test_unique_empty(device):
    v, i, c = tl.unique(tl.zeros((2, 0), device=device), return_inverse=True, return_counts=True)
    assert v.shape == (0,) and i.shape == (2, 0) and c.shape == (0,)
    v, c = tl.unique(tl.zeros((0, 3), device=device), dim=0, return_counts=True)
    assert v.shape == (0, 3) and c.shape == (0,)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_unique_dim_matches_numpy(device, dim):
    rng = np.random.default_rng(6)
    x = rng.integers(0, 2, size=(5, 3, 2)).astype(np.float32)
    v, i, c = tl.unique(tl.tensor(x, device=device), dim=dim, return_inverse=True, return_counts=True)
    ev, ei, ec = np.unique(x, axis=dim, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(to_numpy(v), ev)
    np.testing.assert_array_equal(to_numpy(i), ei.reshape(-1))
    np.testing.assert_array_equal(to_numpy(c), ec)


def test_unique_dim_nan_slices_distinct_and_consecutive(device):
    nan = float("nan")
    x = tl.tensor([[nan, 1.0], [nan, 1.0], [-0.0, 1.0], [0.0, 1.0]], device=device)
    v, c = tl.unique(x, dim=0, return_counts=True)
    np.testing.assert_array_equal(to_numpy(c), [2, 1, 1])  # -0.0 == 0.0; NaN rows never equal
    assert np.isnan(to_numpy(v)[1:, 0]).all()
    y = tl.tensor([[1, 2], [1, 2], [3, 4], [1, 2]], device=device)
    v, i, c = tl.unique_consecutive(y, dim=0, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(to_numpy(v), [[1, 2], [3, 4], [1, 2]])
    np.testing.assert_array_equal(to_numpy(i), [0, 0, 1, 2])
    np.testing.assert_array_equal(to_numpy(c), [2, 1, 1])
    with pytest.raises(IndexError):
        tl.unique(y, dim=2)


def test_selection_and_search_edge_cases_as_pytorch(device):
    # values from torch 2.13
    with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
        tl.kthvalue(tl.zeros(3, 0, device=device), 1, dim=1)
    assert tl.kthvalue(tl.zeros(3, 0, device=device), 1, dim=0).values.shape == (0,)
    # N-D sequences with empty rows, or no rows
    assert tl.searchsorted(tl.zeros(0, 4, device=device), tl.zeros(0, 3, device=device)).shape == (0, 3)
    got = tl.searchsorted(tl.zeros(2, 0, device=device), tl.zeros(2, 3, device=device))
    np.testing.assert_array_equal(to_numpy(got), np.zeros((2, 3), np.int64))


def test_unique_dim_of_empty_tensors_as_pytorch(device):
    x = tl.zeros(5, 0, device=device, dtype=tl.int8)
    values, inverse, counts = tl.unique(x, dim=1, return_inverse=True, return_counts=True)
    assert values.shape == (5, 0) and inverse.shape == (0,) and counts.shape == (0,)
    with pytest.raises(RuntimeError, match="aren't selected"):
        tl.unique(x, dim=0)
    with pytest.raises(RuntimeError, match="more than one"):
        tl.unique_consecutive(tl.zeros(0, 0, 2, device=device), dim=0)


def test_bool_is_not_a_dim_and_argsort_stable_must_be_a_bool(device):
    # sort(True) would have sorted ascending along dim 1 (a user meaning descending); PyTorch refuses
    x = tl.arange(6.0, device=device).reshape(2, 3)
    for call in (lambda: x.sort(True), lambda: x.argsort(True), lambda: x.topk(1, True),
                 lambda: x.kthvalue(1, True), lambda: tl.sort(x, dim=True), lambda: x.topk(1, dim=False)):
        with pytest.raises(TypeError, match="argument 'dim' must be int, not bool"):
            call()
    with pytest.raises(TypeError, match="argument 'stable' must be bool, not NoneType"):
        x.argsort(stable=None)
    assert to_numpy(x.sort(stable=None).values).tolist() == to_numpy(x).tolist()  # sort takes None


def test_flags_are_bools_as_pytorch_reads_them():
    # torch 2.15's parser: descending/largest/sorted/keepdim/return_* are bools (None was taken as
    # False: sort(descending=None) sorted ascending); kthvalue of a 0-d bool is itself; histc's
    # bounds are numbers (a string was float()'s ValueError)
    x = tl.tensor([3.0, 1.0, 2.0])
    for call in (lambda: tl.sort(x, 0, None), lambda: tl.sort(x, 0, 1), lambda: tl.topk(x, 1, largest=None),
                 lambda: tl.topk(x, 1, sorted=None), lambda: tl.unique(x, sorted=None),
                 lambda: tl.unique(x, return_inverse=None), lambda: tl.kthvalue(x, 1, 0, None),
                 lambda: tl.unique_consecutive(x, return_counts=None), lambda: tl.argsort(x, stable=None)):
        with pytest.raises(TypeError, match="must be bool"):
            call()
    assert tl.sort(x, stable=None).values.tolist() == [1.0, 2.0, 3.0]
    values, indices = tl.kthvalue(tl.tensor(True), 1)
    assert values.item() is True and indices.item() == 0
    with pytest.raises(TypeError, match="argument 'min' must be Number, not str"):
        tl.histc(x, 3, "a")
    assert tl.histc(x, 3, tl.tensor(0.0), 4).tolist() == [1.0, 1.0, 1.0]
