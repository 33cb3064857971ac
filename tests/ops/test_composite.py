"""The compositions of registered ops (tensorlab/ops/composite.py): PyTorch's values for the cases
the OpInfo table does not reach (expected values from torch 2.13), its errors, and results on cuda.

Values against numpy references, non-contiguous inputs and gradients are in tests/opinfo/composite.py.
"""

from __future__ import annotations

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
