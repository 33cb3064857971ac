"""The compositions of registered ops (tensorlab/ops/composite.py): PyTorch's values for the cases
the OpInfo table does not reach (expected values from torch 2.13), its errors, and results on cuda.

Values against numpy references, non-contiguous inputs and gradients are in tests/opinfo/composite.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy


def _t(values, device, dtype=None):
    return tl.tensor(values, dtype=dtype, device=device)


def test_isclose_integers_do_not_wrap_around(device):
    # values from torch 2.13: integers compare in the default float dtype, so int32 -2**31 vs 0 is
    # far apart (an int32 difference would wrap to -2**31 and pass) and uint8 92 vs 98 is close
    a = _t([-2**31, 2**31 - 1, 5], device, tl.int32)
    b = _t([0, -1, 6], device, tl.int32)
    assert to_numpy(tl.isclose(a, b)).tolist() == [False, False, False]
    assert to_numpy(tl.isclose(a, b, rtol=0.1, atol=0.5)).tolist() == [False, False, True]
    u, v = _t([92, 0], device, tl.uint8), _t([98, 255], device, tl.uint8)
    assert to_numpy(tl.isclose(u, v, rtol=0.1, atol=0.5)).tolist() == [True, False]


def test_isclose_specials_and_errors(device):
    x = _t([1.0, 2.0, float("nan"), float("inf"), -float("inf")], device)
    y = _t([1.0 + 1e-6, 2.1, float("nan"), float("inf"), float("inf")], device)
    assert to_numpy(x.isclose(y)).tolist() == [True, False, False, True, False]
    assert to_numpy(tl.isclose(x, y, equal_nan=True)).tolist() == [True, False, True, True, False]
    assert tl.allclose(x[:2], x[:2]) is True and tl.allclose(x, x) is False and x.allclose(x, equal_nan=True)
    with pytest.raises(RuntimeError, match="Long did not match Float"):
        tl.isclose(_t([1], device), _t([1.0], device))
    with pytest.raises(RuntimeError, match="rtol must be greater than or equal to zero, but got -1"):
        tl.isclose(x, y, rtol=-1)
    with pytest.raises(RuntimeError, match="atol must be greater than or equal to zero"):
        tl.isclose(x, y, atol=-1)
    with pytest.raises(TypeError, match="argument 'other' \\(position 2\\) must be Tensor, not float"):
        tl.isclose(x, 1.0)


def test_nan_reductions(device):
    x = _t([[1.0, float("nan")], [2.0, 3.0]], device)
    assert to_numpy(tl.nansum(x, 1, keepdim=True)).tolist() == [[1.0], [5.0]]
    assert to_numpy(x.nanmean(0)).tolist() == [1.5, 3.0]
    assert np.isnan(to_numpy(tl.nanmean(_t([float("nan")], device)))).all()
    assert tl.nansum(_t([True, True], device)).item() == 2 and tl.nansum(_t([True], device)).dtype is tl.int64
    with pytest.raises(RuntimeError, match="nanmean\\(\\): expected input to have floating point or complex dtype "
                                           "but got Long"):
        tl.nanmean(_t([1, 2], device), dtype=tl.float32)  # PyTorch refuses it even with a float dtype=


def test_nanmean_refuses_a_non_floating_dtype(device):
    # nanmean(float_x, dtype=tl.int32) ignored the dtype (2.0 from [1.5, nan, 3.7]); torch 2.13
    # raises as mean does (found by a differential fuzzer against torch)
    x = _t([1.5, float("nan"), 3.7], device)
    for dtype, name in ((tl.int32, "Int"), (tl.bool, "Bool"), (tl.int64, "Long")):
        with pytest.raises(RuntimeError, match=rf"^nanmean\(\): could not infer output dtype. Optional dtype must be "
                                               rf"either a floating point or complex dtype. Got: {name}$"):
            tl.nanmean(x, 0, dtype=dtype)
    assert tl.nanmean(x, dtype=tl.float64).dtype is tl.float64
    assert tl.nanmean(x, dtype=tl.float64).item() == pytest.approx(2.6)
    assert x.nanmean(dtype=tl.float16).dtype is tl.float16


def test_nansum_gradient_is_zero_at_nan(device):
    x = _t([1.0, float("nan"), 3.0], device).requires_grad_()
    tl.nansum(x * 2).backward()
    assert to_numpy(x.grad).tolist() == [2.0, 0.0, 2.0]


def test_aminmax(device):
    r = tl.aminmax(_t([[1.0, 5.0], [3.0, 2.0]], device), dim=0)
    assert type(r).__name__ == "aminmax" and to_numpy(r.min).tolist() == [1.0, 2.0]
    assert to_numpy(r.max).tolist() == [3.0, 5.0]
    m, mx = _t([True, False], device).aminmax()
    assert m.item() is False and mx.item() is True
    with pytest.raises(RuntimeError, match="cannot compute aminmax over an empty dimension"):
        tl.aminmax(_t([], device))
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        tl.aminmax(tl.zeros(0, 3, device=device), dim=0)


def test_diff_values_and_errors(device):
    assert to_numpy(tl.diff(_t([1, 4, 9, 16], device), n=2)).tolist() == [2, 2]
    assert to_numpy(tl.diff(_t([True, False, False], device))).tolist() == [True, False]
    r = tl.diff(_t([1, 2, 3], device), prepend=_t([0], device), append=_t([10.0], device))
    assert r.dtype is tl.float32 and to_numpy(r).tolist() == [1.0, 1.0, 1.0, 7.0]
    assert tl.diff(_t([1, 2, 3], device), n=5).shape == (0,)
    with pytest.raises(RuntimeError, match="order must be non-negative but got -1"):
        tl.diff(_t([1, 2], device), n=-1)
    with pytest.raises(RuntimeError, match="at least one-dimensional"):
        tl.diff(_t(1.0, device))
    with pytest.raises(TypeError, match="argument 'prepend' must be Tensor, not int"):
        tl.diff(_t([1, 2], device), prepend=0)
    with pytest.raises(RuntimeError, match="prepend or append to be the same dimension as input"):
        tl.diff(tl.ones(2, 3, device=device), prepend=tl.ones(3, device=device))
    with pytest.raises(RuntimeError, match="input.size\\(0\\) = 2, but got tensor.size\\(0\\) = 3"):
        tl.diff(tl.ones(2, 3, device=device), prepend=tl.ones(3, 3, device=device))


def test_products(device):
    k = tl.kron(_t([[1, 2], [3, 4]], device), _t([1, 10], device))
    assert to_numpy(k).tolist() == [[1, 10, 2, 20], [3, 30, 4, 40]]
    assert tl.inner(tl.ones(2, 3, device=device), tl.ones(4, 3, device=device)).shape == (2, 4)
    assert tl.inner(_t(2.0, device), tl.ones(4, 3, device=device)).shape == (4, 3)
    with pytest.raises(RuntimeError, match="the last dimension must match on both input tensors but got shapes "
                                           "\\[2, 3\\] and \\[4, 2\\]"):
        tl.inner(tl.ones(2, 3, device=device), tl.ones(4, 2, device=device))
    with pytest.raises(RuntimeError, match="both inputs should have same dtype"):
        tl.inner(tl.ones(3, device=device), tl.ones(3, dtype=tl.int64, device=device))


def test_cross(device):
    x, y = _t([[1.0, 0.0, 0.0]], device), _t([[0.0, 1.0, 0.0]], device)
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        r = tl.cross(x, y)  # the first dim of size 3: dim 1
    assert to_numpy(r).tolist() == [[0.0, 0.0, 1.0]]
    assert to_numpy(x.cross(y, dim=-1)).tolist() == [[0.0, 0.0, 1.0]]
    assert tl.cross(tl.ones(4, 3, device=device), tl.ones(1, 3, device=device), dim=1).shape == (4, 3)
    with pytest.raises(NotImplementedError, match="\"cross\" not implemented for 'Bool'"):
        tl.cross(_t([True] * 3, device), _t([True] * 3, device), dim=0)
    with pytest.raises(RuntimeError, match="expected scalar type Long but found Float"):
        tl.cross(_t([1, 0, 0], device), _t([0.0, 1.0, 0.0], device), dim=0)
    with pytest.raises(RuntimeError, match="no dimension of size 3 in input"), pytest.warns(UserWarning):
        tl.cross(tl.ones(2, 2, device=device), tl.ones(2, 2, device=device))
    with pytest.raises(RuntimeError, match="dimension -1 must have length 3. Got 3 and 4"):
        tl.cross(tl.ones(2, 3, device=device), tl.ones(2, 4, device=device), dim=-1)


def test_rot90(device):
    x = tl.arange(6, device=device).view(2, 3)
    assert to_numpy(tl.rot90(x)).tolist() == [[2, 5], [1, 4], [0, 3]]
    assert to_numpy(x.rot90(-1, [0, 1])).tolist() == [[3, 0], [4, 1], [5, 2]]
    r = tl.rot90(x, 4)
    assert to_numpy(r).tolist() == to_numpy(x).tolist() and r.data_ptr() != x.data_ptr()  # a copy, as PyTorch
    with pytest.raises(RuntimeError, match="expected total dims >= 2, but got total dims = 1"):
        tl.rot90(tl.arange(6, device=device))
    with pytest.raises(RuntimeError, match="expected rotation dims to be different, but got dim0 = 1 and dim1 = 1"):
        tl.rot90(x, 1, [1, 1])
    with pytest.raises(RuntimeError, match="expected total rotation dims == 2, but got dims = 3"):
        tl.rot90(x, 1, [0, 1, 1])


def test_triangle_indices(device):
    r = tl.tril_indices(3, 4, 1, device=device)
    assert r.dtype is tl.int64 and r.device.type == device
    assert to_numpy(r).tolist() == [[0, 0, 1, 1, 1, 2, 2, 2, 2], [0, 1, 0, 1, 2, 0, 1, 2, 3]]
    assert to_numpy(tl.triu_indices(3, 4, -1, device=device)).tolist() == [
        [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2], [0, 1, 2, 3, 0, 1, 2, 3, 1, 2, 3]]
    assert tl.tril_indices(0, 3, device=device).shape == (2, 0)
    assert tl.triu_indices(3, 3, dtype=tl.int32, device=device).dtype is tl.int32
    with pytest.raises(RuntimeError, match="row must be non-negative, got-1"):
        tl.tril_indices(-1, 3)
    with pytest.raises(NotImplementedError, match="\"tril_indices\" not implemented for 'Float'"):
        tl.tril_indices(3, 3, dtype=tl.float32)


def test_put(device):
    x = tl.arange(6.0, device=device).view(2, 3).t()  # not contiguous: positions count in x's own row-major order
    x.put_(_t([0, 5, -1], device), _t([10.0, 20.0, 30.0], device))
    assert to_numpy(x).tolist() == [[10.0, 3.0], [1.0, 4.0], [2.0, 30.0]]
    acc = tl.zeros(3, device=device).put_(_t([0, 0, 2], device), _t([1.0, 2.0, 3.0], device), accumulate=True)
    assert to_numpy(acc).tolist() == [3.0, 0.0, 3.0]
    assert to_numpy(tl.put(tl.zeros(3, device=device), _t([[0], [1]], device), _t([[1.0], [2.0]], device))).tolist() \
        == [1.0, 2.0, 0.0]
    z = tl.zeros(3, device=device)
    with pytest.raises(IndexError, match="out of range: tried to access index 3 on a tensor of 3 elements"):
        z.put_(_t([3], device), _t([1.0], device))
    with pytest.raises(IndexError, match="Expected source and index to have the same number of elements, but got "
                                         "source.numel\\(\\) = 1, index.numel\\(\\) = 2"):
        z.put_(_t([0, 1], device), _t([1.0], device))
    with pytest.raises(RuntimeError, match="self and source expected to have the same dtype, but got self.dtype = "
                                           "Float and source.dtype = Long"):
        z.put_(_t([0], device), _t([1], device))
    with pytest.raises(RuntimeError, match="Expected a long tensor for index, but got Float"):
        z.put_(_t([0.0], device), _t([1.0], device))
    assert to_numpy(z).tolist() == [0.0, 0.0, 0.0]  # nothing written by the refused calls


def test_put_with_an_empty_index(device):
    # PyTorch 2.13: nothing is written, but the call is still an in-place op on a leaf (refused) and
    # the empty source gets an (empty) gradient; tensorlab returned early (source.grad None)
    leaf = tl.zeros(3, device=device, requires_grad=True)
    empty = tl.tensor([], dtype=tl.int64, device=device)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.put_(empty, tl.zeros(0, device=device))
    for n in (3, 0):
        x = tl.zeros(n, device=device, requires_grad=True)
        source = tl.zeros(0, device=device, requires_grad=True)
        y = tl.put(x, empty, source)
        assert y.requires_grad
        y.sum().backward()
        assert to_numpy(x.grad).tolist() == [1.0] * n
        assert source.grad is not None and source.grad.shape == (0,)
    z = tl.arange(6.0, device=device).view(2, 3).t()
    assert z.put_(empty, tl.zeros(0, device=device)) is z
    assert to_numpy(z).tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]


def test_fill_diagonal_(device):
    x = tl.zeros(7, 3, device=device)
    assert x.fill_diagonal_(5, wrap=True) is x
    expected = np.zeros((7, 3))
    np.fill_diagonal(expected, 5, wrap=True)  # rows 0-2 and 4-6 (numpy's and PyTorch's rule)
    assert to_numpy(x).tolist() == expected.tolist()
    cube = tl.zeros(2, 2, 2, device=device).fill_diagonal_(5)
    assert to_numpy(cube).tolist() == [[[5.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 5.0]]]
    with pytest.raises(RuntimeError, match="all dimensions of input must be of equal length"):
        tl.zeros(2, 3, 2, device=device).fill_diagonal_(5)
    with pytest.raises(RuntimeError, match="dimensions must larger than 1"):
        tl.zeros(2, device=device).fill_diagonal_(5)


def test_conversions(device):
    d = tl.deg2rad(_t([180], device))
    assert d.dtype is tl.float32 and abs(d.item() - np.pi) < 1e-6
    assert tl.deg2rad(_t([180.0], device, tl.float16)).item() == 3.140625  # torch 2.13's float16 value
    assert abs(tl.rad2deg(_t([3], device)).item() - 171.8873) < 1e-3
    p = tl.float_power(_t([2], device), 2)
    assert p.dtype is tl.float64 and p.item() == 4.0
    assert tl.float_power(_t([2.0], device), _t([0.5], device)).dtype is tl.float64
    assert tl.float_power(2, _t([3], device)).item() == 8.0
    with pytest.raises(RuntimeError, match="the base given to float_power_ has dtype Float but the operation's "
                                           "result requires dtype Double"):
        _t([2.0], device).float_power_(2)
    assert _t([2.0], device, tl.float64).float_power_(2).item() == 4.0
    assert to_numpy(tl.sgn(_t([-2, 0, 3], device))).tolist() == [-1, 0, 1]
    assert tl.numel(tl.ones(2, 3)) == 6
    assert to_numpy(tl.arange(6, device=device).view(2, 3).t().ravel()).tolist() == [0, 3, 1, 4, 2, 5]
    x = tl.arange(6, device=device)
    r = x[::2].ravel()  # contiguous, hence a copy of a strided input (PyTorch's contiguous().view(-1))
    assert r.is_contiguous() and r.stride() == (1,)
    r.fill_(-1)
    assert to_numpy(x).tolist() == [0, 1, 2, 3, 4, 5]
    v = x.view(2, 3).ravel()  # a view of a contiguous one
    v[0] = 7
    assert x[0].item() == 7


# -- composite_numeric.py ---------------------------------------------------------------------------


def test_isin(device):
    x = _t([[1, 2, 3], [4, 5, 6]], device)
    assert to_numpy(tl.isin(x, _t([2, 5, 9], device))).tolist() == [[False, True, False], [False, True, False]]
    assert to_numpy(tl.isin(x, 2, invert=True)).tolist() == [[True, False, True], [True, True, True]]
    assert tl.isin(2, x).item() is True and tl.isin(2, x).shape == ()
    assert to_numpy(tl.isin(_t([float("nan"), 1.0], device), _t([float("nan"), 1.0], device))).tolist() == [
        False, True]  # NaN is in nothing
    nan = float("nan")  # NaNs in the table (sorted last) do not hide the values before them
    assert to_numpy(tl.isin(_t([3.0, 1.0, nan, 5.0, -1.0], device), _t([nan, 5.0, nan, 1.0], device))).tolist() == [
        False, True, False, True, False]
    assert to_numpy(tl.isin(_t([nan, 0.0], device), _t([nan], device))).tolist() == [False, False]
    assert to_numpy(tl.isin(_t([255], device, tl.uint8), _t([-1], device))).tolist() == [False]  # promoted, no wrap
    for a, b in ((_t([True], device), _t([True], device)), (True, _t([1], device)), (_t([1], device), False)):
        # PyTorch has no bool kernel (NotImplementedError), for a bool number too
        with pytest.raises(NotImplementedError, match="Unsupported input type encountered for isin\\(\\): Bool"):
            tl.isin(a, b)


def test_histc(device):
    x = _t([1.0, 2.0, 1.0, 4.0, 5.0, -1.0, 6.0, float("nan")], device)
    assert to_numpy(tl.histc(x, bins=4, min=0, max=5)).tolist() == [2.0, 1.0, 0.0, 2.0]  # torch 2.13
    assert to_numpy(tl.histc(_t([1.0, 2.0, 1.0, 4.0], device), bins=3)).tolist() == [2.0, 1.0, 1.0]
    assert to_numpy(tl.histc(_t([2.0, 2.0], device), bins=3)).tolist() == [0.0, 2.0, 0.0]  # range [1, 3]
    assert to_numpy(tl.histc(_t([], device), bins=3)).tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(NotImplementedError, match="\"histogram_cpu\" not implemented for 'Long'"):
        tl.histc(_t([1, 2], device), bins=3)
    with pytest.raises(RuntimeError, match="range of \\[1, inf\\] is not finite"):
        tl.histc(_t([1.0, float("inf")], device), bins=3)
    with pytest.raises(RuntimeError, match="bins must be > 0, but got 0"):
        tl.histc(_t([1.0], device), bins=0)
    with pytest.raises(RuntimeError, match="max must be larger than min"):
        tl.histc(_t([1.0], device), bins=3, min=2, max=1)


def test_histogram(device):
    # values from torch 2.15: a value on an edge counts in the bin above it, the right edge in the
    # last bin, NaN and values outside the range nowhere
    x = _t([0.0, 0.1, 0.3, 0.3, 0.6, 1.0, 1.8, 3.0, float("nan")], device)
    hist, edges = tl.histogram(x, bins=5, range=(0.0, 3.0))
    assert to_numpy(hist).tolist() == [4.0, 2.0, 0.0, 1.0, 1.0] and hist.dtype == tl.float32
    np.testing.assert_allclose(to_numpy(edges), [0.0, 0.6, 1.2, 1.8, 2.4, 3.0], rtol=1e-7)
    r = tl.histogram(x[:-1], 5, density=True)  # the data's range; by the total, then by each width
    assert r._fields == ("hist", "bin_edges")
    np.testing.assert_allclose(to_numpy(r.hist), [0.8333333, 0.4166667, 0.0, 0.2083333, 0.2083333], rtol=1e-6)
    r = tl.histogram(x[:-1], bins=4, weight=tl.arange(8.0, device=device), density=True)
    np.testing.assert_allclose(to_numpy(r.hist), [0.4761905, 0.2380952, 0.2857143, 0.3333333], rtol=1e-6)
    assert to_numpy(tl.histogram(x, _t([0.0, 0.5, 2.0, 3.0], device)).hist).tolist() == [4.0, 3.0, 1.0]
    given = _t([0.0, 0.5, 2.0, 3.0], device)
    tl.histogram(x, given).bin_edges.add_(10)  # the result's edges are a copy, as PyTorch's
    assert to_numpy(given).tolist() == [0.0, 0.5, 2.0, 3.0]
    assert to_numpy(tl.histogram(x, _t([0.0, 0.5, 2.0, 3.0], device), density=True).hist).tolist() == [
        1.0, 0.25, 0.125]
    hist, edges = _t([2.0, 2.0], device, tl.float64).histogram(2)  # a zero-width range widens by 0.5
    assert to_numpy(hist).tolist() == [0.0, 2.0] and to_numpy(edges).tolist() == [1.5, 2.0, 2.5]
    assert hist.dtype == tl.float64
    hist, edges = tl.histogram(_t([], device), bins=2)
    assert to_numpy(hist).tolist() == [0.0, 0.0] and to_numpy(edges).tolist() == [0.0, 0.5, 1.0]
    assert to_numpy(tl.histogram(_t([0.1, 0.2, 0.30000001, 0.7], device), bins=7, range=(0.0, 0.7)).hist).tolist() == [
        0.0, 1.0, 1.0, 1.0, 0.0, 0.0, 1.0]
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Long'"):
        tl.histogram(_t([1, 2], device), bins=2)
    with pytest.raises(RuntimeError, match="bins must be > 0, but got 0 for dimension 0"):
        tl.histogram(x, bins=0)
    with pytest.raises(RuntimeError, match="min should not exceed max, but got min 3 max 1"):
        tl.histogram(x, bins=2, range=(3.0, 1.0))
    with pytest.raises(RuntimeError, match="dimension 0's range \\[nan, nan\\] is not finite"):
        tl.histogram(x, bins=2)
    with pytest.raises(RuntimeError, match="bins for dimension 0 with dtype double"):
        tl.histogram(x, _t([0.0, 1.0], device, tl.float64))
    with pytest.raises(RuntimeError, match="input with shape \\[2, 1\\] and weight with shape \\[3\\]"):
        tl.histogram(_t([0.0, 1.0], device), bins=2, weight=_t([1.0, 1.0, 1.0], device))
    # a weight of another shape with as many elements is flattened as the input (a shape error before)
    r = tl.histogram(_t([1.0, 2.0, 3.0, 4.0], device), bins=2, weight=_t([[1.0, 2.0], [3.0, 4.0]], device))
    assert r.hist.tolist() == [3.0, 7.0]
    with pytest.raises(RuntimeError, match="input with shape \\[4, 1\\] and weight with shape \\[5\\]"):
        tl.histogram(_t([[1.0, 2.0], [3.0, 4.0]], device), bins=2, weight=tl.ones(5, 1, device=device))


def test_histogramdd(device):
    # values from torch 2.15: each coordinate binned as histogram bins it (the right edge in the last
    # bin); a point with a NaN or outside any coordinate's range is not counted
    x = _t([[0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [0.5, 0.25], [2.0, 3.0], [float("nan"), 1.0], [5.0, 1.0]], device)
    r = tl.histogramdd(x, bins=[2, 3], range=[0.0, 2.0, 0.0, 3.0])
    assert type(r) is tl.return_types.histogramdd and r.hist.dtype == tl.float32
    assert to_numpy(r.hist).tolist() == [[1.0, 1.0, 0.0], [0.0, 2.0, 1.0]]
    assert [to_numpy(e).tolist() for e in r.bin_edges] == [[0.0, 1.0, 2.0], [0.0, 1.0, 2.0, 3.0]]
    # default range: each coordinate's own [min, max]; density: by the total, then by the bin volumes
    r = tl.histogramdd(x[:5], bins=2, weight=_t([1.0, 2.0, 3.0, 4.0, 5.0], device), density=True)
    np.testing.assert_allclose(to_numpy(r.hist), [[0.24242425, 0.0], [0.24242425, 0.24242425]], rtol=1e-6)
    assert [to_numpy(e).tolist() for e in r.bin_edges] == [[0.0, 1.0, 2.0], [0.25, 1.625, 3.0]]
    # edge tensors per coordinate; leading dims are points
    edges = [_t([0.0, 1.0, 2.0], device, tl.float64), _t([0.0, 1.0, 4.0], device, tl.float64)]
    r = tl.histogramdd(x[:5].double().reshape(5, 1, 2), bins=edges)
    assert to_numpy(r.hist).tolist() == [[1.0, 1.0], [0.0, 3.0]] and r.hist.dtype == tl.float64
    with pytest.raises(RuntimeError, match="input tensor should have at least 2 dimensions"):
        tl.histogramdd(x[:, 0], bins=2)
    with pytest.raises(RuntimeError, match="The size of bins must be equal to the innermost dimension"):
        tl.histogramdd(x, bins=[2])
    with pytest.raises(RuntimeError, match="for a 2-dimensional histogram range should have 4 elements, but got 2"):
        tl.histogramdd(x, bins=2, range=[0.0, 1.0])
    with pytest.raises(RuntimeError, match="min should not exceed max, but got min 1 max 0 for dimension 1"):
        tl.histogramdd(x, bins=2, range=[0.0, 1.0, 1.0, 0.0])
    with pytest.raises(RuntimeError, match="dimension 0's range \\[nan, nan\\] is not finite"):
        tl.histogramdd(x, bins=[2, 0], weight=tl.ones(4, device=device))  # (the range is checked first)
    with pytest.raises(RuntimeError, match="bins must be > 0, but got 0 for dimension 1"):
        tl.histogramdd(x[:5], bins=[2, 0])
    with pytest.raises(RuntimeError, match="input with shape \\[5, 2\\] and weight with shape \\[4\\]"):
        tl.histogramdd(x[:5], bins=2, weight=tl.ones(4, device=device))
    with pytest.raises(NotImplementedError, match="\"histogramdd\" not implemented for 'Long'"):
        tl.histogramdd(x.long(), bins=2)


@pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")
def test_histogram_refuses_bins_and_weight_on_another_device():
    # the error names histogram and the argument (it named the searchsorted/bincount it runs on)
    x = tl.tensor([1.0, 2.0, 3.0, 4.0])
    for inp, bins, weight, name in ((x.cuda(), tl.tensor([0.0, 2.0, 5.0]), None, "bins"),
                                    (x, tl.tensor([0.0, 2.0, 5.0]).cuda(), None, "bins"),
                                    (x.cuda(), 3, tl.ones(4), "weight"),
                                    (x, 3, tl.ones(4).cuda(), "weight")):
        with pytest.raises(RuntimeError, match=f"histogram\\(\\): Expected all tensors to be on the same device, "
                                               f"but found at least two devices, .*argument '{name}'"):
            tl.histogram(inp, bins, weight=weight)


def test_cdist_values_gradients_and_errors(device):
    a, b = _t([[0.0, 0.0], [1.0, 1.0]], device), _t([[1.0, 0.0], [0.0, 0.0], [3.0, 4.0]], device)
    np.testing.assert_allclose(to_numpy(tl.cdist(a, b)), [[1.0, 0.0, 5.0], [1.0, 2**0.5, 13**0.5]], rtol=1e-6)
    assert to_numpy(tl.cdist(a, b[[0, 2]], p=1)).tolist() == [[1.0, 7.0], [1.0, 5.0]]
    assert to_numpy(tl.cdist(a, b[[0, 2]], p=0)).tolist() == [[1.0, 2.0], [1.0, 2.0]]
    # p = inf skips NaN coordinates (PyTorch's running max from 0); p = 0 propagates NaN
    n = _t([[float("nan"), 2.0]], device)
    assert to_numpy(tl.cdist(n, _t([[0.0, 0.0]], device), p=float("inf"))).tolist() == [[2.0]]
    assert np.isnan(to_numpy(tl.cdist(n, _t([[0.0, 0.0]], device), p=0))).all()
    # the gradient at a zero distance is 0, on the direct path and the matmul path (torch 2.13's values)
    x = _t([[0.0, 0.0], [1.0, 1.0]], device).requires_grad_()
    y = _t([[0.0, 0.0], [3.0, 4.0]], device).requires_grad_()
    tl.cdist(x, y).sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), [[-0.6, -0.8], [0.152406, -0.124944]], rtol=1e-4)
    x.grad = None
    tl.cdist(x, y, compute_mode="use_mm_for_euclid_dist").sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), [[-0.6, -0.8], [0.152406, -0.124944]], rtol=1e-4)
    # equal rows on the matmul path are exactly 0 apart (it gave 1e-15, from a clamp at 1e-30)
    r = _t([[1.0, 2.0], [3.0, 4.0]], device)
    assert to_numpy(tl.cdist(r, r, compute_mode="use_mm_for_euclid_dist")).diagonal().tolist() == [0.0, 0.0]
    # p = inf: each coordinate at a tied maximum gets the whole gradient, as PyTorch (amax split it)
    x = _t([[0.0, 0.0]], device).requires_grad_()
    tl.cdist(x, _t([[1.0, 1.0], [1.0, 3.0]], device), p=float("inf")).sum().backward()
    assert to_numpy(x.grad).tolist() == [[-1.0, -2.0]]
    with pytest.raises(RuntimeError, match="cdist only supports floating-point dtypes, X1 got: Long"):
        tl.cdist(tl.ones(3, 4, dtype=tl.int64, device=device), tl.ones(5, 4, dtype=tl.int64, device=device))
    with pytest.raises(RuntimeError, match="cdist only supports at least 2D tensors, X1 got: 1D"):
        tl.cdist(tl.ones(3, device=device), tl.ones(3, device=device))
    with pytest.raises(RuntimeError, match="X1 and X2 must have the same number of columns. X1: 4 X2: 5"):
        tl.cdist(tl.ones(3, 4, device=device), tl.ones(3, 5, device=device))
    with pytest.raises(RuntimeError, match="cdist only supports non-negative p values"):
        tl.cdist(tl.ones(3, 4, device=device), tl.ones(3, 4, device=device), p=-1)
    assert tl.dist(_t([1.0, 2.0], device), _t([4.0, 6.0], device)).item() == 5.0


def test_addr_heaviside_sinc(device):
    r = tl.addr(tl.zeros(2, 3, device=device), _t([1.0, 2.0], device), _t([1.0, 2.0, 3.0], device), beta=2, alpha=3)
    assert to_numpy(r).tolist() == [[3.0, 6.0, 9.0], [6.0, 12.0, 18.0]]
    nan = tl.full((2, 2), float("nan"), device=device)
    assert to_numpy(tl.addr(nan, tl.ones(2, device=device), tl.ones(2, device=device), beta=0)).tolist() == [
        [1.0, 1.0], [1.0, 1.0]]  # beta = 0 ignores input, NaN included
    nan.requires_grad_()  # ... but keeps it in the graph with a zero gradient, as PyTorch (it was dropped)
    r = tl.addr(nan, tl.ones(2, device=device), tl.ones(2, device=device), beta=0)
    assert r.requires_grad and to_numpy(r).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    r.sum().backward()
    assert to_numpy(nan.grad).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert to_numpy(tl.addr(tl.zeros(2, 2, dtype=tl.bool, device=device), _t([True, False], device),
                            _t([True, True], device))).tolist() == [[True, True], [False, False]]
    with pytest.raises(RuntimeError, match="addr: Expected 1-D argument vec1, but got 2-D"):
        tl.addr(tl.zeros(2, 3, device=device), tl.ones(2, 1, device=device), tl.ones(3, device=device))
    for bad in (1.0, [[1.0]], None):  # (an AttributeError before)
        with pytest.raises(TypeError, match="addr\\(\\): argument 'input' \\(position 1\\) must be Tensor"):
            tl.addr(bad, tl.ones(2, device=device), tl.ones(3, device=device))
    with pytest.raises(RuntimeError, match="argument alpha must not be a floating point number"):
        tl.addr(tl.zeros(2, 2, dtype=tl.int64, device=device), _t([1, 1], device), _t([1, 1], device), alpha=0.5)
    h = tl.heaviside(_t([-1.0, 0.0, 2.0, float("nan")], device), _t([0.5], device))
    assert to_numpy(h).tolist() == [0.0, 0.5, 1.0, 0.0]
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes"):
        tl.heaviside(_t([-1, 0, 2], device), _t([0.5], device))
    x = _t([0.0, 1.0], device).requires_grad_()
    assert not tl.heaviside(x, _t([0.5], device)).requires_grad  # not differentiable, as PyTorch's
    s = tl.sinc(_t([0.0, 0.5, -2.5], device))
    np.testing.assert_allclose(to_numpy(s), [1.0, 0.63662, 0.127324], rtol=1e-5)
    assert tl.sinc(_t([0, 1], device)).dtype is tl.float32
    # float16: computed in float32 and rounded once, bit for bit torch 2.13's values
    h = tl.sinc(_t([1.7, -2.3, 0.9, 3.3, 7.77], device, tl.float16))
    assert to_numpy(h).tolist() == [-0.1513671875, 0.11212158203125, 0.10943603515625, -0.07818603515625,
                                    -0.0271453857421875]
    z = _t([0.0, 0.5], device).requires_grad_()
    tl.sinc(z).sum().backward()
    assert to_numpy(z.grad)[0] == 0.0 and np.isfinite(to_numpy(z.grad)).all()


def test_addr_0d_input_takes_part_in_the_dtype(device):
    # PyTorch expands input to the outer product before the dtypes meet: a 0-d input counts as a
    # dimensioned operand (torch 2.13: float64 [[3.1], [6.1]], int64 2**40 + [[3], [6]], float32)
    r = tl.addr(tl.tensor(0.1, dtype=tl.float64, device=device), _t([1.0, 2.0], device), _t([3.0], device))
    assert r.dtype is tl.float64 and to_numpy(r).tolist() == [[0.1 + 3.0], [0.1 + 6.0]]
    big = tl.tensor(2 ** 40, dtype=tl.int64, device=device)
    r = tl.addr(big, tl.tensor([1, 2], dtype=tl.int32, device=device), tl.tensor([3], dtype=tl.int32, device=device))
    assert r.dtype is tl.int64 and to_numpy(r).tolist() == [[2 ** 40 + 3], [2 ** 40 + 6]]
    half = tl.ones(2, dtype=tl.float16, device=device)
    assert tl.addr(tl.zeros((), device=device), half, half).dtype is tl.float32
    assert tl.addr(tl.zeros(2, dtype=tl.float16, device=device), half, half).dtype is tl.float16


def test_trapezoid_family(device):
    y = _t([1.0, 2.0, 4.0], device)
    assert tl.trapezoid(y).item() == 4.5 and tl.trapz(y, _t([0.0, 1.0, 3.0], device)).item() == 7.5
    assert to_numpy(tl.trapezoid(y.reshape(1, 3), dx=2, dim=1)).tolist() == [9.0]
    assert tl.trapezoid(_t([1, 2, 4], device)).dtype is tl.float32
    e = tl.trapezoid(_t([], device, tl.int64))
    assert e.dtype is tl.int64 and e.item() == 0  # PyTorch: zeros of y's dtype
    assert to_numpy(tl.cumulative_trapezoid(y)).tolist() == [1.5, 4.5]
    assert to_numpy(tl.cumulative_trapezoid(y, _t([0.0, 1.0, 3.0], device))).tolist() == [1.5, 7.5]
    with pytest.raises(RuntimeError, match="received a bool input for `y`, but bool is not supported"):
        tl.trapezoid(_t([True, False], device))


def test_cov_corrcoef(device):
    x = _t([[0.0, 1.0, 2.0], [2.0, 1.0, 5.0]], device)
    np.testing.assert_allclose(to_numpy(tl.cov(x, correction=0)), [[0.666667, 1.0], [1.0, 2.888889]], rtol=1e-5)
    w = tl.cov(x, fweights=_t([1, 2, 1], device), aweights=_t([0.5, 1.0, 2.0], device))
    np.testing.assert_allclose(to_numpy(w), [[0.642857, 1.5], [1.5, 5.285714]], rtol=1e-5)
    assert tl.cov(_t([1.0, 2.0, 4.0], device)).item() == pytest.approx(2.333333, rel=1e-6)
    np.testing.assert_allclose(to_numpy(tl.corrcoef(x)), [[1.0, 0.720577], [0.720577, 1.0]], rtol=1e-5)
    c = to_numpy(tl.corrcoef(_t([[1.0, 1.0, 1.0], [2.0, 1.0, 5.0]], device)))
    assert np.isnan(c[0]).all() and c[1, 1] == 1.0  # a constant variable: NaN, as PyTorch
    with pytest.raises(RuntimeError, match="cov\\(\\): bool dtype is not supported for input"):
        tl.cov(_t([True, False], device))


def test_cov_of_one_weighted_observation_is_centred_to_exact_zeros(device):
    # torch 2.15: one observation under one kind of weights is its own average (centred to 0, not
    # to the weighted average's rounding specks), and aweights alone with correction=1 divide by an
    # exact 0 (with the dof warning): NaN everywhere where tensorlab had an inf
    x = _t([[1.5], [2.0]], device, tl.float64)
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        c = to_numpy(tl.cov(x, aweights=_t([0.7], device, tl.float64)))
    assert np.isnan(c).all()
    assert x.tolist() == [[1.5], [2.0]]  # (PyTorch zeroes its input in place here; tensorlab does not)
    x = _t([[0.1], [1.7], [-0.4]], device)
    with pytest.warns(UserWarning, match="degrees of freedom"):
        assert np.isnan(to_numpy(tl.cov(x, aweights=_t([0.1], device)))).all()
    with pytest.warns(UserWarning, match="degrees of freedom"):
        assert np.isnan(to_numpy(tl.cov(x, aweights=_t([0.1], device), correction=2))).all()
    for kwargs in (dict(aweights=_t([0.1], device), correction=0), dict(fweights=_t([3], device)),
                   dict(fweights=_t([3], device), correction=0), dict(fweights=_t([3], device), correction=2)):
        c = to_numpy(tl.cov(x, **kwargs))  # torch 2.15: exact zeros (tensorlab had 1e-33-ish specks)
        assert c.shape == (3, 3) and (c == 0).all(), kwargs
    assert tl.cov(_t([1.7], device, tl.float64), aweights=_t([0.1], device, tl.float64), correction=0).item() == 0.0
    # a NaN observation centres to 0 too (torch 2.15: zeros); with both kinds of weights it does not
    nan = _t([[float("nan")], [1.0]], device)
    assert (to_numpy(tl.cov(nan, aweights=_t([1.0], device), correction=0)) == 0).all()
    c = to_numpy(tl.cov(nan, aweights=_t([1.0], device), fweights=_t([2], device), correction=0))
    assert np.isnan(c[0]).all() and np.isnan(c[1, 0]) and c[1, 1] == 0.0
    # the graph is kept, with zero gradients (torch 2.15 raises for a leaf: it zeroes it in place)
    xr = _t([[1.7], [0.3]], device).requires_grad_()
    wr = _t([0.1], device).requires_grad_()
    tl.cov(xr, aweights=wr, correction=0).sum().backward()
    assert to_numpy(xr.grad).tolist() == [[0.0], [0.0]] and to_numpy(wr.grad).tolist() == [0.0]


def test_cov_warns_of_a_weighted_norm_at_or_below_zero(device):
    # torch 2.15 warns whenever the norm is <= 0, weighted too (tensorlab warned only unweighted):
    # these give inf everywhere, with the warning
    x = _t([[0.1, 0.3], [1.7, 2.0]], device)
    for kwargs in (dict(aweights=_t([0.1, 0.2], device)), dict(fweights=_t([1, 1], device))):
        with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
            assert np.isposinf(to_numpy(tl.cov(x, correction=3, **kwargs))).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a positive weighted norm: no warning
        tl.cov(x, aweights=_t([0.1, 0.2], device))


def test_cov_multiplies_in_pytorchs_order(device):
    # torch 2.15 computes centred @ (centred * w).T, so its result need not be symmetric to the last
    # bit; these are its float32 values on cpu
    x = tl.tensor([[3, 4], [5, 6]], device=device)
    c = to_numpy(tl.cov(x, aweights=_t([0.7, 0.2], device, tl.float32), correction=0))
    want = np.array([[0.17283952236175537, 0.17283950746059418]] * 2, dtype=np.float32)
    np.testing.assert_allclose(c, want, rtol=0 if device == "cpu" else 1e-6)


def test_cov_refuses_weights_it_cannot_normalise(device):
    # negative or zero-sum weights returned inf/NaN; the other checks raised ValueError (torch 2.15's
    # messages and order: dimensions, dtype, numel, sign, sum)
    x = _t([[1.0, 2.0, 4.0], [0.0, 1.0, 3.0]], device)
    cases = [
        (dict(fweights=_t([1, -1, 1], device)), "fweights cannot be negative"),
        (dict(aweights=_t([1.0, -0.5, 1.0], device)), "aweights cannot be negative"),
        (dict(aweights=_t([1.0, float("nan"), 1.0], device)), "aweights cannot be negative"),
        (dict(fweights=_t([0, 0, 0], device)), "weights sum to zero, can't be normalized"),
        (dict(aweights=_t([0.0, 0.0, 0.0], device)), "weights sum to zero"),
        (dict(aweights=_t([1, 1], device)), "expected aweights to have floating point dtype but got aweights"),
        (dict(fweights=_t([1.0, 1.0], device)), "expected fweights to have integral dtype"),
        (dict(fweights=_t([1, 1], device)), "same numel as there are observations in the input but got 2 != 3"),
        (dict(fweights=_t([[1, 1, 1]], device)), "expected fweights to have one or fewer dimensions"),
    ]
    for kwargs, message in cases:
        with pytest.raises(RuntimeError, match=message):
            tl.cov(x, **kwargs)
    with pytest.raises(RuntimeError, match="two or fewer dimensions but got an input with 3"):
        tl.cov(tl.zeros(1, 1, 1, device=device))
    with pytest.raises(RuntimeError, match="weights sum to zero"):
        tl.cov(tl.zeros(2, 0, device=device), fweights=tl.zeros(0, dtype=tl.int64, device=device))
    # zero weights that do not sum to zero are fine
    np.testing.assert_allclose(to_numpy(tl.cov(x, fweights=_t([1, 0, 1], device), correction=0)),
                               [[2.25, 2.25], [2.25, 2.25]], rtol=1e-6)


# -- composite_shape.py -----------------------------------------------------------------------------


def test_shape_compositions(device):
    bd = tl.block_diag(_t(1, device), _t([2, 3], device), _t([[4.0], [5.0]], device))
    assert bd.dtype is tl.float32 and to_numpy(bd).tolist() == [
        [1, 0, 0, 0], [0, 2, 3, 0], [0, 0, 0, 4], [0, 0, 0, 5]]
    assert tl.block_diag().shape == (1, 0)
    # values from torch 2.13: the dtype is result_type's, where a 0-d block ranks like a scalar
    assert tl.block_diag(tl.ones(3, 2, dtype=tl.float16, device=device),
                         tl.tensor(1.0, dtype=tl.bfloat16, device=device)).dtype is tl.float16
    assert tl.block_diag(tl.tensor(1, dtype=tl.int8, device=device),
                         tl.ones(3, dtype=tl.uint8, device=device)).dtype is tl.uint8
    assert tl.block_diag(tl.ones(1, 1, dtype=tl.int8, device=device),
                         tl.ones(1, 1, dtype=tl.uint8, device=device)).dtype is tl.int16
    with pytest.raises(RuntimeError, match="Input tensors must have 2 or fewer dimensions. Input 0 has 3"):
        tl.block_diag(tl.ones(1, 1, 1, device=device))
    cp = tl.cartesian_prod(_t([1, 2], device), _t([3, 4, 5], device))
    assert to_numpy(cp).tolist() == [[1, 3], [1, 4], [1, 5], [2, 3], [2, 4], [2, 5]]
    with pytest.raises(RuntimeError, match="Expect a 1D vector, but got shape \\[2, 2\\]"):
        tl.cartesian_prod(tl.ones(2, 2, device=device))
    assert to_numpy(tl.vander(_t([1, 2, 3], device))).tolist() == [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    assert tl.vander(_t([True, False], device)).dtype is tl.int64
    with pytest.raises(RuntimeError, match="N must be non-negative"):
        tl.vander(_t([1, 2], device), N=-1)
    assert to_numpy(tl.diagflat(_t([[1, 2]], device), 1)).tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    assert [p.shape for p in tl.hsplit(tl.ones(4, device=device), [1, 3])] == [(1,), (2,), (1,)]
    with pytest.raises(RuntimeError, match="hsplit attempted to split along dimension 1, but the size of the "
                                           "dimension 3 is not divisible by the split_size 2!"):
        tl.hsplit(tl.ones(2, 3, device=device), 2)
    with pytest.raises(RuntimeError, match="vsplit requires a tensor with at least 2 dimension"):
        tl.vsplit(tl.ones(4, device=device), 2)
    rows, cols = tl.unravel_index(_t([4, 1, 5, -1, 6], device), (2, 3))
    assert to_numpy(rows).tolist() == [1, 0, 1, 1, 0] and to_numpy(cols).tolist() == [1, 1, 2, 2, 0]  # wraps
    with pytest.raises(TypeError, match="expected 'indices' to be integer dtype"):
        tl.unravel_index(_t([1.0], device), (2, 3))
    with pytest.raises(ValueError, match="'shape' cannot have negative values, but got \\(2, -3\\)"):
        tl.unravel_index(_t([1], device), (2, -3))
    s = tl.slice_scatter(tl.zeros(3, 4, device=device), tl.ones(3, 2, device=device), dim=1, start=0, step=2)
    assert to_numpy(s).tolist() == [[1, 0, 1, 0]] * 3
    with pytest.raises(RuntimeError, match="expected src to have a size equal to the slice of self. src size = "
                                           "\\[3, 3\\], slice size = \\[2, 3\\]"):
        tl.slice_scatter(tl.zeros(4, 3, device=device), tl.ones(3, 3, device=device), 0, 1, 3)
    d = tl.diagonal_scatter(tl.zeros(3, 3, device=device), tl.ones(2, device=device), 1)
    assert to_numpy(d).tolist() == [[0, 1, 0], [0, 0, 1], [0, 0, 0]]
    src = tl.ones(3, device=device).requires_grad_()
    tl.select_scatter(tl.zeros(2, 3, device=device), src * 2, 0, -1).sum().backward()
    assert to_numpy(src.grad).tolist() == [2.0, 2.0, 2.0]  # differentiable through the written view


def test_frexp_matches_pytorch_on_every_float_dtype(device):
    # values from torch 2.15: subnormals (scaled into range first), zeros, infinities and NaN (exponent 0)
    m, e = tl.frexp(_t([8.0, -0.3, 0.0, float("inf"), 1e-40, 1e-45, 3.4e38, float("nan")], device))
    assert m.dtype is tl.float32 and e.dtype is tl.int32
    assert to_numpy(m).tolist()[:7] == [0.5, -0.6000000238418579, 0.0, float("inf"), 0.5444488525390625, 0.5,
                                        0.999170184135437] and np.isnan(to_numpy(m)[7])
    assert to_numpy(e).tolist() == [4, -1, 0, 0, -132, -148, 128, 0]
    m, e = _t([6e-8, 1e-5, 65504.0, -3.0], device, tl.float16).frexp()
    assert m.dtype is tl.float16 and to_numpy(m.float()).tolist() == [0.5, 0.65625, 0.99951171875, -0.75]
    assert to_numpy(e).tolist() == [-23, -16, 16, 2]
    m, e = tl.frexp(_t([1e-40, 3.0], device, tl.bfloat16))
    assert to_numpy(m.float()).tolist() == [0.5, 0.75] and to_numpy(e).tolist() == [-132, 2]
    m, e = tl.frexp(_t([5e-324, 1e-310, 1.7e308], device, tl.float64))
    assert to_numpy(m).tolist() == [0.5, 0.5752618031559393, 0.9456563898655606]
    assert to_numpy(e).tolist() == [-1073, -1029, 1024]
    # the mantissa's gradient is grad / 2**exponent; the exponent has none
    x = _t([3.0, 0.1, -7.0], device).requires_grad_()
    m, e = tl.frexp(x)
    (m * _t([1.0, 2.0, 3.0], device)).sum().backward()
    assert to_numpy(x.grad).tolist() == [0.25, 16.0, 0.375] and not e.requires_grad
    outs = (tl.empty(1, device=device), tl.empty(1, dtype=tl.int32, device=device))
    got = tl.frexp(_t([3.0], device), out=outs)
    assert got.mantissa is outs[0] and to_numpy(outs[0]).tolist() == [0.75] and to_numpy(outs[1]).tolist() == [2]
    with pytest.raises(RuntimeError, match="only supports floating-point dtypes"):
        tl.frexp(_t([1, 2], device))
    with pytest.raises(RuntimeError, match="expects exponent to have int dtype but got long int"):
        tl.frexp(_t([1.0], device), out=(tl.empty(1, device=device), tl.empty(1, dtype=tl.int64, device=device)))


def test_nextafter_matches_pytorch(device):
    # values from torch 2.15: a zero steps to the smallest subnormal of other's sign, equal values give other
    x = _t([0.0, 1.0, -1.0, float("inf"), 0.0, 1.0], device)
    y = _t([-1.0, 2.0, 2.0, 0.0, -0.0, float("nan")], device)
    got = to_numpy(tl.nextafter(x, y)).tolist()
    assert got[:5] == [-1.401298464324817e-45, 1.0000001192092896, -0.9999999403953552, 3.4028234663852886e+38, -0.0]
    assert np.isnan(got[5]) and np.signbit(got[4])
    h = tl.nextafter(_t([1.0, 0.0], device, tl.float16), _t([2.0, 1.0], device, tl.float16))
    assert h.dtype is tl.float16 and to_numpy(h.float()).tolist() == [1.0009765625, 5.960464477539063e-08]
    b = _t([1.0, 0.0], device, tl.bfloat16).nextafter(_t([0.0, -1.0], device, tl.bfloat16))
    assert to_numpy(b.float()).tolist() == [0.99609375, -9.183549615799121e-41]
    d = tl.nextafter(_t([1.0, 0.0], device, tl.float64), _t([2.0, 1.0], device, tl.float64))
    assert to_numpy(d).tolist() == [1.0000000000000002, 5e-324]
    assert tl.nextafter(tl.ones(2, 1, device=device), tl.zeros(3, device=device)).shape == (2, 3)
    a, c = _t([1.0, 2.0], device).requires_grad_(), _t([0.0, 3.0], device).requires_grad_()
    tl.nextafter(a, c).sum().backward()  # PyTorch's gradient: grad for input, zeros for other
    assert to_numpy(a.grad).tolist() == [1.0, 1.0] and to_numpy(c.grad).tolist() == [0.0, 0.0]
    with pytest.raises(NotImplementedError, match="\"nextafter\" not implemented for 'Long'"):
        tl.nextafter(_t([1], device), _t([2], device))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        tl.ones(2, dtype=tl.int64, device=device).nextafter_(_t([2.0, 0.0], device))


def test_ldexp_renorm_index_reduce_and_small_helpers(device):
    assert to_numpy(tl.ldexp(_t([1.0, 3.0], device), _t([2, -1], device))).tolist() == [4.0, 1.5]
    assert tl.ldexp(_t([1, 3], device), _t([2, 1], device)).dtype is tl.float32
    assert tl.ldexp(_t([1.0], device, tl.float16), _t([2], device)).dtype is tl.float16
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        _t([1, 3], device).ldexp_(_t([2, 1], device))
    with pytest.raises(NotImplementedError, match="\"ldexp\" not implemented for 'Bool'"):  # (it gave 2 ** True)
        tl.ldexp(_t([1.0, 2.0], device), _t([True, False], device))
    # ... but an integer or bool input takes a bool exponent (torch 2.15: float32 [6, -5] and [2, 0])
    assert to_numpy(tl.ldexp(_t([3, -5], device), _t([True, False], device))).tolist() == [6.0, -5.0]
    assert to_numpy(tl.ldexp(_t([True, False], device), _t([True, True], device))).tolist() == [2.0, 0.0]
    # 2 ** other of a float16/bfloat16 exponent is rounded to its dtype first (torch's pow, then mul)
    e16 = _t([2.07, 1.3], device, tl.float16)
    np.testing.assert_allclose(to_numpy(tl.ldexp(_t([3.0, -5.0], device), e16)), [12.59765625, -12.314453125])
    got = tl.ldexp(_t([3.0, -5.0], device, tl.float16), e16)
    assert got.dtype is tl.float16 and to_numpy(got.float()).tolist() == [12.59375, -12.3125]
    got = tl.ldexp(_t([3.0, 5.0], device, tl.bfloat16), _t([2.07, 1.3], device, tl.bfloat16))
    assert to_numpy(got.float()).tolist() == [12.5625, 12.25]
    # ... and so is a float32 one's for a float64 input; an integer input takes the product with
    # 2 ** other even for an integer exponent (C's ldexp is for floating inputs): torch 2.15's values
    got = tl.ldexp(_t([1.0, 1.0], device, tl.float64), _t([0.5, 200.0], device, tl.float32))
    assert to_numpy(got).tolist() == [1.4142135381698608, float("inf")]
    got = to_numpy(tl.ldexp(_t([1, 0], device, tl.int64), _t([2**32 + 3, 200], device, tl.int64)))
    assert got[0] == float("inf") and np.isnan(got[1])
    r = tl.renorm(_t([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0, 3.0, 3.0]], device), 1, 0, 5)
    np.testing.assert_allclose(to_numpy(r), [[1.0] * 3, [5 / 6 * 2] * 3, [5 / 9 * 3] * 3], rtol=1e-6)  # torch 2.13
    with pytest.raises(RuntimeError, match="renorm\\(\\): non-positive-norm not supported"):
        tl.renorm(tl.ones(2, 2, device=device), -1, 0, 5)
    with pytest.raises(RuntimeError, match="expected maxnorm to be >= 0 but got -5"):
        tl.renorm(tl.ones(2, 2, device=device), 1, 0, -5)
    src = _t([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]], device)
    idx = _t([0, 2, 0], device)
    assert to_numpy(tl.ones(3, 2, device=device).index_reduce(0, idx, src, "prod")).tolist() == [
        [12.0, 21.0], [1.0, 1.0], [4.0, 5.0]]
    assert to_numpy(tl.ones(3, 2, device=device).index_reduce(0, idx, src, "mean", include_self=False)).tolist() == [
        [4.0, 5.0], [1.0, 1.0], [4.0, 5.0]]
    with pytest.raises(RuntimeError, match="Expected reduce to be one of prod, mean, amax or amin but got sum"):
        tl.ones(3, 2, device=device).index_reduce(0, idx, src, "sum")
    # PyTorch 2.13 has no bool kernel for any reduce, with include_self or without, nor an in-place one
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            with pytest.raises(NotImplementedError, match="index_reduce\\(\\): .* not implemented for 'Bool'"):
                tl.ones(3, 2, dtype=tl.bool, device=device).index_reduce(0, idx, src > 3, reduce,
                                                                         include_self=include_self)
    with pytest.raises(NotImplementedError, match="index_reduce_\\(\\): .* not implemented for 'Bool'"):
        tl.ones(3, 2, dtype=tl.bool, device=device).index_reduce_(0, idx, src > 3, "amax")
    nc = tl.arange(6, device=device).view(2, 3).narrow_copy(1, 1, 2)
    assert nc.is_contiguous() and to_numpy(nc).tolist() == [[1, 2], [4, 5]]
    assert to_numpy(tl.combinations(_t([1, 2, 3], device), 2)).tolist() == [[1, 2], [1, 3], [2, 3]]
    assert tl.combinations(_t([1, 2, 3], device), 2, with_replacement=True).shape == (6, 2)
    assert tl.combinations(_t([1, 2, 3], device), 4).shape == (0, 4)
    assert tl.empty_strided((2, 3), (1, 2), device=device).stride() == (1, 2)
    assert tl.is_tensor(tl.ones(1)) and not tl.is_tensor([1])
    assert tl.is_nonzero(_t([0.5], device)) is True
    with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one value is ambiguous"):
        tl.is_nonzero(_t([1, 2], device))
    assert not tl.detach(tl.ones(2, requires_grad=True)).requires_grad


def test_assert_is_a_callable_assert():
    # torchvision's anchor generator and box coder call `torch._assert(cond, msg)`: it was missing (AttributeError);
    # torch 2.15: AssertionError with the message for False / tensor(False), bool()'s error for several values
    tl._assert(True, "never")
    tl._assert(tl.tensor(True), "never")
    with pytest.raises(AssertionError, match="^grid sizes differ$"):
        tl._assert(False, "grid sizes differ")
    with pytest.raises(AssertionError, match="^zero$"):
        tl._assert(tl.tensor(0.0), "zero")
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        tl._assert(tl.tensor([1, 0]), "m")


def test_nansum_nanmean_aminmax_out(device):
    # torch 2.13 takes out= for nansum, nanmean and aminmax (tensorlab raised TypeError; found by a
    # differential fuzzer against torch); values, dtype rules and errors checked against torch
    nan = float("nan")
    x = _t([[1.0, nan, 3.0, 3.0], [4.0, 5.0, 0.0, 4.0]], device)
    o = tl.empty(2, device=device)
    assert tl.nansum(x, 1, out=o) is o and o.tolist() == [7.0, 13.0]
    o = tl.empty(5, dtype=tl.float64, device=device)  # resized (with PyTorch's warning), summed in float64
    with pytest.warns(UserWarning, match="was resized"):
        tl.nansum(x, 0, True, out=o)
    assert o.shape == (1, 4) and o.tolist() == [[5.0, 5.0, 3.0, 7.0]]
    o = tl.empty((), device=device)
    assert tl.nansum(x, out=o) is o and o.item() == 20.0
    assert tl.nansum(_t([1, 2], device), 0, out=tl.empty((), dtype=tl.int32, device=device)).item() == 3
    with pytest.raises(RuntimeError, match="nansum: provided dtype must match dtype of result. Got Float and Double."):
        tl.nansum(x, 1, dtype=tl.float64, out=tl.empty(2, device=device))
    with pytest.raises(NotImplementedError, match="\"nansum\" not implemented for 'Long'"):
        tl.nansum(x, 1, out=tl.empty(2, dtype=tl.int64, device=device))
    o = tl.empty(2, device=device)
    assert tl.nanmean(x, 1, out=o) is o
    np.testing.assert_allclose(o.tolist(), [7 / 3, 3.25], rtol=1e-6)
    o = tl.empty((), device=device)
    assert tl.nanmean(x, out=o) is o and o.item() == pytest.approx(20 / 7)
    assert tl.nanmean(x, 1, out=tl.empty(2, dtype=tl.float16, device=device)).tolist() == [2.333984375, 3.25]
    with pytest.raises(NotImplementedError, match="\"nansum\" not implemented for 'Long'"):
        tl.nanmean(x, 1, out=tl.empty(2, dtype=tl.int64, device=device))
    lo, hi = tl.empty(2, device=device), tl.empty(2, device=device)
    r = tl.aminmax(x, dim=1, out=(lo, hi))
    assert r.min is lo and r.max is hi and str(lo.tolist()) == "[nan, 0.0]" and str(hi.tolist()) == "[nan, 5.0]"
    r = tl.aminmax(x[1], out=(tl.empty((), device=device), tl.empty((), device=device)))
    assert (r.min.item(), r.max.item()) == (0.0, 5.0)
    with pytest.raises(RuntimeError, match=r"aminmax\(\): Expected out tensor to have dtype float32, but got float64"):
        tl.aminmax(x, dim=1, out=(tl.empty(2, dtype=tl.float64, device=device), hi))
    with pytest.raises(TypeError, match=r"aminmax\(\): argument 'out' must be a tuple of 2 Tensors"):
        tl.aminmax(x, dim=1, out=lo)
    with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic"):
        tl.nansum(x.clone().requires_grad_(), 1, out=tl.empty(2, device=device))


def test_inplace_variants_of_composites(device):
    # sinc_, deg2rad_, rad2deg_, sgn_, heaviside_, addr_, ldexp_: torch 2.13's values, in place
    # (the same object back, its version bumped), and its dtype and shape checks before any write
    x = _t([0.0, 0.5, -2.5, 3.0], device)
    v0 = x._version
    assert x.sinc_() is x and x._version > v0
    np.testing.assert_allclose(to_numpy(x), np.sinc([0.0, 0.5, -2.5, 3.0]).astype(np.float32), atol=1e-7)
    h = _t([1.7, -2.3], device, tl.float16).sinc_()  # in float32, rounded once, as the out-of-place op
    assert h.dtype is tl.float16
    assert to_numpy(h).tolist() == to_numpy(tl.sinc(_t([1.7, -2.3], device, tl.float16))).tolist()
    d = _t([180.0, -90.0], device)
    assert d.deg2rad_() is d
    np.testing.assert_allclose(to_numpy(d), [np.pi, -np.pi / 2], rtol=1e-6)
    np.testing.assert_allclose(to_numpy(d.rad2deg_()), [180.0, -90.0], rtol=1e-6)
    assert to_numpy(_t([-3, 0, 2], device).sgn_()).tolist() == [-1, 0, 1]
    assert to_numpy(_t([-1, 0, 2], device).heaviside_(_t([5], device))).tolist() == [0, 5, 1]
    m = tl.ones(3, 3, device=device)
    assert m.addr_(tl.arange(3.0, device=device), tl.arange(3.0, device=device), beta=2) is m
    assert to_numpy(m).tolist() == [[2, 2, 2], [2, 3, 4], [2, 4, 6]]
    b = tl.zeros(2, 2, dtype=tl.bool, device=device).addr_(_t([True, False], device), _t([True, True], device))
    assert to_numpy(b).tolist() == [[True, True], [False, False]]
    for fn in (lambda t: t.sinc_(), lambda t: t.deg2rad_(), lambda t: t.rad2deg_()):
        i = _t([1, 2], device)
        with pytest.raises(RuntimeError, match="_: result type float32 can't be cast to the desired output type int64"):
            fn(i)
        assert to_numpy(i).tolist() == [1, 2]  # untouched
    with pytest.raises(RuntimeError, match="addr_: result type float32 can't be cast to the desired output type int64"):
        tl.ones(2, 2, dtype=tl.int64, device=device).addr_(tl.ones(2, device=device), tl.ones(2, device=device))
    with pytest.raises(RuntimeError, match="ldexp_: result type float32 can't be cast"):
        _t([1, 3], device).ldexp_(_t([2, 1], device))
    with pytest.raises(RuntimeError, match=r"heaviside_: output with shape \[2\] doesn't match the broadcast shape "
                                           r"\[3, 2\]"):
        tl.ones(2, device=device).heaviside_(tl.ones(3, 2, device=device))
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes"):
        _t([1.0], device).heaviside_(_t([1], device))
    with pytest.raises(RuntimeError, match=r"size mismatch, input: \[1, 3\], v1: \[3\], v2: \[3\]"):
        tl.ones(1, 3, device=device).addr_(tl.ones(3, device=device), tl.ones(3, device=device))


def test_inplace_composites_and_autograd(device):
    leaf = tl.ones(2, device=device, requires_grad=True)
    for name in ("sinc_", "deg2rad_", "rad2deg_", "ldexp_", "heaviside_"):
        args = (tl.ones(2, device=device),) if name in ("ldexp_", "heaviside_") else ()
        with pytest.raises(RuntimeError, match=f"{name}: a leaf Variable that requires grad is being used in an "
                                               "in-place operation"):
            getattr(leaf, name)(*args)
    with pytest.raises(RuntimeError, match="sin_: a leaf Variable"):  # (the error named copy_)
        leaf.sin_()
    # on a non-leaf: the gradient through the in-place op, d/da sinc(2a) = 2 sinc'(2a)
    a = _t([0.3, 1.0, 0.0], device, tl.float64).requires_grad_()
    y = a * 2
    y.sinc_()
    y.sum().backward()
    xs = 2 * np.array([0.3, 1.0, 0.0])
    px = np.pi * xs
    with np.errstate(invalid="ignore", divide="ignore"):
        slope = np.where(xs == 0, 0.0, (np.cos(px) * px - np.sin(px)) / (np.pi * xs ** 2))
    np.testing.assert_allclose(to_numpy(a.grad), 2 * slope, rtol=1e-12, atol=1e-12)
    # addr_ on a non-leaf: d/dself = beta, d/dvec1 = alpha * vec2 summed over columns
    base = tl.ones(2, 3, device=device, dtype=tl.float64, requires_grad=True)
    v1 = _t([1.0, 2.0], device, tl.float64).requires_grad_()
    v2 = _t([1.0, 2.0, 3.0], device, tl.float64)
    z = base * 1
    z.addr_(v1, v2, beta=3, alpha=2)
    z.sum().backward()
    assert to_numpy(base.grad).tolist() == [[3.0] * 3] * 2
    assert to_numpy(v1.grad).tolist() == [12.0, 12.0]
    # ldexp_ with a gradient wanted for self: the old self is read from a clone
    c = _t([1.0, 3.0], device).requires_grad_()
    w = c * 1
    w.ldexp_(_t([2, -1], device))
    w.sum().backward()
    assert to_numpy(c.grad).tolist() == [4.0, 0.5]


def test_out_variants_of_composites(device):
    x = _t([0.0, 0.5, -2.5], device)
    out = tl.empty(3, dtype=tl.float64, device=device)
    assert tl.sinc(x, out=out) is out and out.dtype is tl.float64  # computed in float32, then converted
    assert to_numpy(out).tolist() == to_numpy(tl.sinc(x)).astype(np.float64).tolist()
    with pytest.raises(RuntimeError, match="sinc: result type float32 can't be cast to the desired output type int64"):
        tl.sinc(x, out=tl.empty(3, dtype=tl.int64, device=device))
    big = tl.empty(5, device=device)
    with pytest.warns(UserWarning, match="resized"):
        tl.deg2rad(_t([180.0, 90.0], device), out=big)
    np.testing.assert_allclose(to_numpy(big), [np.pi, np.pi / 2], rtol=1e-6)
    assert big.shape == (2,)
    o = tl.empty(0, device=device)
    np.testing.assert_allclose(to_numpy(tl.rad2deg(_t([np.pi], device), out=o)), [180.0], rtol=1e-6)
    assert to_numpy(tl.sgn(_t([-2.0, 0.0, 3.0], device), out=tl.empty(3, device=device))).tolist() == [-1, 0, 1]
    hv = tl.empty(3, device=device)
    tl.heaviside(_t([-1.0, 0.0, 2.0], device), _t([0.5], device), out=hv)
    assert to_numpy(hv).tolist() == [0.0, 0.5, 1.0]
    with pytest.raises(RuntimeError, match="heaviside is not yet implemented for tensors with different dtypes"):
        tl.heaviside(_t([-1.0], device), _t([0.5], device), out=tl.empty(1, dtype=tl.float64, device=device))
    ao = tl.empty(2, 2, dtype=tl.float64, device=device)
    tl.addr(tl.ones(2, 2, device=device), _t([1.0, 2.0], device), _t([3.0, 4.0], device), out=ao)
    assert to_numpy(ao).tolist() == [[4.0, 5.0], [7.0, 9.0]]
    lo = tl.empty(1, dtype=tl.float64, device=device)
    assert tl.ldexp(_t([1.5], device), _t([3], device), out=lo).item() == 12.0
    fo = tl.empty(1, dtype=tl.float64, device=device)
    assert tl.float_power(_t([2], device), 3, out=fo).item() == 8.0
    with pytest.raises(RuntimeError, match="the output given to float_power has dtype Float but the operation's "
                                           "result requires dtype Double"):
        tl.float_power(_t([2.0], device), 2, out=tl.empty(1, device=device))
    g = _t([1.0], device).requires_grad_()
    with pytest.raises(RuntimeError, match="sinc\\(\\): functions with out=... arguments don't support automatic "
                                           "differentiation"):
        tl.sinc(g, out=tl.empty(1, device=device))
    with tl.no_grad():  # allowed without grad mode, as PyTorch
        tl.sinc(g, out=tl.empty(1, device=device))
    with pytest.raises(TypeError, match="argument 'out' must be a Tensor"):
        tl.sinc(x, out=[1.0])


def test_function_forms_of_in_place_ops_and_predicates(device):
    # the names PyTorch has as functions too (torch.clamp_(t, ...), torch.is_floating_point(t), ...)
    x = _t([-2.0, 0.5, 3.0], device)
    assert tl.clamp_(x, -1, 1) is x and to_numpy(x).tolist() == [-1.0, 0.5, 1.0]
    assert to_numpy(tl.clip_(_t([5.0], device), max=2)).tolist() == [2.0]
    assert to_numpy(tl.clamp_min_(_t([-5.0, 5.0], device), 0)).tolist() == [0.0, 5.0]
    assert to_numpy(tl.clamp_max_(_t([-5.0, 5.0], device), 0)).tolist() == [-5.0, 0.0]
    assert to_numpy(tl.xlogy_(_t([0.0, 2.0], device), _t([0.0, 1.0], device))).tolist() == [0.0, 0.0]
    assert to_numpy(tl.negative_(_t([1.0], device))).tolist() == [-1.0]
    assert to_numpy(tl.absolute_(_t([-1.0], device))).tolist() == [1.0]
    np.testing.assert_allclose(to_numpy(tl.arcsin_(_t([1.0], device))), [np.pi / 2], rtol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.arctanh_(_t([0.5], device))), [np.arctanh(0.5)], rtol=1e-6)
    assert to_numpy(tl.fix_(_t([-1.5, 1.5], device))).tolist() == [-1.0, 1.0]
    assert to_numpy(tl.round_(_t([0.5, 1.5], device))).tolist() == [0.0, 2.0]
    assert to_numpy(tl.nan_to_num_(_t([float("nan")], device))).tolist() == [0.0]
    np.testing.assert_allclose(to_numpy(tl.logit_(_t([0.75], device))), [np.log(3.0)], rtol=1e-6)
    assert to_numpy(tl.ldexp_(_t([1.0], device), _t([3], device))).tolist() == [8.0]
    assert to_numpy(tl.fill_(tl.empty(2, device=device), 7)).tolist() == [7.0, 7.0]
    assert to_numpy(tl.zero_(tl.ones(2, device=device))).tolist() == [0.0, 0.0]
    acc = tl.ones(2, device=device)
    assert tl.addmv_(acc, tl.ones(2, 2, device=device), _t([1.0, 2.0], device)) is acc
    assert to_numpy(acc).tolist() == [4.0, 4.0]
    y = tl.ones(1, device=device, requires_grad=True) * 2
    assert tl.detach_(y) is y and y.grad_fn is None and not y.requires_grad
    assert tl.is_floating_point(x) and not tl.is_floating_point(_t([1], device))
    assert tl.is_signed(_t([1], device)) and not tl.is_signed(_t([1], device, tl.uint8))
    assert not tl.is_complex(x)
    assert tl.get_device(x) == (-1 if device == "cpu" else 0)
    with pytest.raises(TypeError, match="is_floating_point\\(\\): argument 'input' \\(position 1\\) must be Tensor, "
                                        "not float"):
        tl.is_floating_point(1.0)
    assert to_numpy(_t([0.5, 1.5, 2.5], device).histc(bins=2, min=0, max=3)).tolist() == [1.0, 2.0]


def test_renorm_passes_the_gradient_of_slices_it_leaves_alone(device):
    """A slice within maxnorm is unchanged and gets the upstream gradient as it is, also a slice with
    a NaN (its norm's NaN gradient does not leak in as 0 * NaN), as PyTorch."""
    nan = float("nan")
    x = tl.tensor([[nan, 1.0], [0.5, 0.2], [0.0, 0.0]], device=device, requires_grad=True)
    y = tl.renorm(x, 2, 0, 1.0)
    y.sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0]] * 3
    x = tl.tensor([[3.0, 4.0]], dtype=tl.float64, device=device, requires_grad=True)
    tl.renorm(x, 2, 0, 1.0).sum().backward()  # d/dx (x / |x|) summed: (|x|^2 - x * sum(x)) / |x|^3
    np.testing.assert_allclose(to_numpy(x.grad), [[(25 - 21) / 125, (25 - 28) / 125]], rtol=1e-6)


def test_sinc_gradient_near_zero_is_accurate(device):
    """d/dx sinc(x) = -pi^2 x / 3 + O(x^3) near 0: the quotient rule's difference of huge terms gave
    201 at x = 1e-10 in float32 and NaN at subnormals; the Taylor branch is accurate, the value too."""
    import math

    for dtype in (tl.float32, tl.float64):
        xs = [1e-10, 1e-5, 0.01, 0.031, 0.04, 0.5, 1e-40 if dtype is tl.float32 else 5e-324, 0.0]
        x = tl.tensor(xs, dtype=dtype, device=device, requires_grad=True)
        y = tl.sinc(x)
        y.sum().backward()
        x64 = np.array(xs, dtype=np.float64)
        p = np.pi * x64
        with np.errstate(all="ignore"):
            want = np.where(np.abs(p) < 1e-3, -np.pi ** 2 * x64 / 3, np.pi * (p * np.cos(p) - np.sin(p)) / (p * p))
        np.testing.assert_allclose(to_numpy(x.grad), want, rtol=1e-5, atol=1e-12)
        np.testing.assert_allclose(to_numpy(y), np.sinc(x64), rtol=1e-6 if dtype is tl.float32 else 1e-14)
        assert to_numpy(x.grad)[-1] == 0.0 and math.isfinite(to_numpy(x.grad)[-2])


def test_cov_of_one_variable_is_0d_and_diff_of_order_0_is_the_input(device):
    """cov/corrcoef of a 1 x N input are 0-d (one variable), as of a 1-D one; diff with n=0 returns
    the input without prepend/append (PyTorch's rules)."""
    x = tl.tensor([[1.0, 2.0, 4.0]], device=device)
    assert tl.cov(x).shape == () and tl.cov(x).item() == pytest.approx(7 / 3)
    assert tl.corrcoef(x).shape == () and tl.corrcoef(x).item() == 1.0
    assert tl.cov(tl.tensor([[1.0, 2.0, 4.0], [0.0, 1.0, 1.0]], device=device)).shape == (2, 2)
    y = tl.tensor([1.0, 2.0, 4.0], device=device)
    assert tl.diff(y, n=0, prepend=tl.tensor([0.0], device=device)).tolist() == [1.0, 2.0, 4.0]
    assert tl.diff(y, append=tl.tensor([7.0], device=device)).tolist() == [1.0, 2.0, 3.0]


def test_isclose_refuses_a_nan_tolerance(device):
    x = _t([1.0], device)
    for kw in ({"rtol": float("nan")}, {"atol": float("nan")}):
        with pytest.raises(RuntimeError, match=f"{next(iter(kw))} must be greater than or equal to zero, but got nan"):
            tl.isclose(x, x + 1, **kw)
    assert to_numpy(tl.isclose(x, x + 1, rtol=float("inf"))).tolist() == [True]


def test_trapezoid_x_of_other_ranks_and_deprecated_range_as_pytorch(device):
    # torch 2.15: an x of fewer dims gets leading 1s (a 0-d x raised IndexError), one of more dims is
    # sliced along the same dim index (its widths were taken along the last dim: [0, 0] where torch
    # raises); tl.range with an integer dtype truncates its bounds first ([-1, 0, 0, 1] before)
    y = tl.ones(2, 3, device=device)
    assert to_numpy(tl.trapezoid(y, tl.tensor(1.0, device=device), dim=0)).tolist() == [0.0, 0.0, 0.0]
    assert tl.cumulative_trapezoid(y, tl.tensor(1.0, device=device), dim=0).shape == (0, 3)
    with pytest.raises(RuntimeError):
        tl.trapezoid(tl.tensor([1.0, 2.0, 3.0], device=device), tl.ones(2, 3, device=device))
    x = tl.arange(3.0, device=device).reshape(1, 3)
    assert to_numpy(tl.trapezoid(tl.arange(6.0, device=device).reshape(2, 3), x)).tolist() == [2.0, 8.0]
    with pytest.warns(UserWarning, match="deprecated"):
        assert tl.range(-1.5, 2, dtype=tl.int64).tolist() == [-1, 0, 1, 2]
    with pytest.warns(UserWarning, match="deprecated"):
        assert tl.range(0.5, 2, dtype=tl.int64).tolist() == [0, 1, 2]


def test_rot90_and_diff_leave_their_arguments_alone(device):
    # rot90's `k %= 4` changed a 0-d tensor k in place (5 became 1); diff(n=0) returned the input
    # itself, so writing to the result changed the input (torch 2.15: a copy)
    k = tl.tensor(5)
    assert tl.arange(6.0, device=device).reshape(2, 3).rot90(k).shape == (3, 2) and k.item() == 5
    x = tl.tensor([1.0, 2.0], device=device)
    y = x.diff(n=0)
    y.add_(10)
    assert to_numpy(x).tolist() == [1.0, 2.0] and to_numpy(y).tolist() == [11.0, 12.0]


def test_trapezoid_checks_the_length_of_a_1d_x(device):
    # a 1-d x of another length than y along dim broadcast into a wrong result (torch raises)
    y = _t([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], device)
    for call in (lambda: tl.trapezoid(y, x=_t([0.0, 1.0, 3.0], device), dim=0),
                 lambda: tl.trapezoid(y[0], x=_t([0.0, 1.0], device)),
                 lambda: tl.trapezoid(y[0], x=_t([2.0], device)),
                 lambda: tl.cumulative_trapezoid(y[0], x=_t([0.0, 1.0], device))):
        with pytest.raises(RuntimeError, match="There must be one `x` value for each sample point"):
            call()
    assert to_numpy(tl.trapezoid(y, x=_t([0.0, 1.0], device), dim=0)).tolist() == [2.5, 3.5, 4.5]
    assert to_numpy(tl.trapezoid(y[:1], x=_t([[0.0, 1.0]], device))).tolist() == [4.0]  # a 2-d x broadcasts
    for call in (lambda: tl.trapezoid(_t(2.0, device)), lambda: tl.cumulative_trapezoid(_t(2.0, device))):
        with pytest.raises(IndexError, match="but tensor has no dimensions"):
            call()


def test_nansum_with_an_integer_dtype_and_out(device):
    # dtype= casts the input first, so an integer out= of that dtype is fine (torch 2.15: 3)
    x = _t([1.5, float("nan"), 2.7], device)
    got = tl.nansum(x, dtype=tl.int32, out=tl.empty((), dtype=tl.int32, device=device))
    assert got.dtype is tl.int32 and got.item() == 3
    with pytest.raises(NotImplementedError):  # without dtype= there is no kernel summing floats in int32
        tl.nansum(x, out=tl.empty((), dtype=tl.int32, device=device))


def test_empty_permuted_lays_out_memory_in_the_given_order(device):
    # torch 2.15's strides and messages
    e = tl.empty_permuted((2, 3, 4), (0, 2, 1), device=device)
    assert e.shape == (2, 3, 4) and e.stride() == (12, 1, 3) and e.device.type == device
    f = tl.empty_permuted((2, 3, 4), [2, 0, 1], dtype=tl.int8, device=device, requires_grad=False)
    assert f.stride() == (3, 1, 6) and f.dtype is tl.int8
    assert tl.empty_permuted((2, 3), (1, 0), requires_grad=True).requires_grad
    assert tl.empty_permuted((), ()).shape == () and tl.empty_permuted((2, 0), (1, 0)).stride() == (1, 2)
    f.fill_(7)  # (the storage holds exactly the elements)
    assert to_numpy(f).sum() == 7 * 24
    for layout, message in (((0, 0), "^Duplicate dim not allowed$"),
                            ((0,), r"len\(size\) = 2 is not equal to len\(physical_layout\) = 1"),
                            ((0, 2), r"between 0 and 1, but got 2 at index 1\)\.  NB: negative dims not"),
                            ((0, -1), "but got -1 at index 1")):
        with pytest.raises(RuntimeError, match=message):
            tl.empty_permuted((2, 3), layout)
