"""quantile/nanquantile, nanmedian and mode (tensorlab/ops/order_statistics.py): torch 2.13's values,
gradients and errors. Values against numpy references are in tests/opinfo/composite.py."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy


def _t(values, device, dtype=None):
    return tl.tensor(values, dtype=dtype, device=device)


def test_quantile_values_and_gradient(device):
    x = _t([[1.0, 7.0, 3.0, 5.0], [4.0, 2.0, 8.0, 6.0]], device).requires_grad_()
    y = tl.quantile(x, _t([0.25, 0.9], device), dim=1)  # the q dim first, as PyTorch
    np.testing.assert_allclose(to_numpy(y), [[2.5, 3.5], [6.4, 7.4]], rtol=1e-6)
    y.sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), [[0.25, 0.7, 0.75, 0.3], [0.75, 0.25, 0.7, 0.3]], rtol=1e-5)
    r = _t([4.0, 2.0, 8.0, 6.0], device)
    got = [tl.quantile(r, 0.4, interpolation=m).item() for m in ("linear", "lower", "higher", "midpoint", "nearest")]
    np.testing.assert_allclose(got, [4.4, 4.0, 6.0, 5.0, 4.0], rtol=1e-6)
    near = tl.quantile(_t([1.0, 2.0, 3.0, 4.0], device), _t([1 / 6, 0.5, 0.5 + 1 / 6], device), interpolation="nearest")
    # ranks from float32 q taken in float64, as PyTorch: float32(1/6) * 3 = 0.500000015 rounds to 1
    assert to_numpy(near).tolist() == [2.0, 3.0, 3.0]
    halves = [tl.quantile(_t(v, device), 0.5, interpolation="nearest").item()
              for v in ([1.0, 2.0], [1.0, 2.0, 3.0, 4.0])]
    assert halves == [1.0, 3.0]  # ranks 0.5 and 1.5 exactly: half to even
    assert tl.quantile(_t([[1.0, 2.0]], device), _t([0.2, 0.5], device), keepdim=True).shape == (2, 1, 1)


def test_quantile_nan_handling(device):
    x = _t([[1.0, 7.0, 3.0, float("nan")], [4.0, 2.0, 8.0, 6.0]], device)
    q = to_numpy(tl.quantile(x, 0.5, dim=1))
    assert np.isnan(q[0]) and q[1] == 5.0  # a row with a NaN gives NaN
    assert to_numpy(tl.nanquantile(x, 0.5, dim=1)).tolist() == [3.0, 5.0]
    assert np.isnan(tl.nanquantile(_t([float("nan")], device), 0.5).item())


def test_quantile_errors(device):
    x = _t([1.0, 2.0], device)
    with pytest.raises(RuntimeError, match="q must be in the range \\[0, 1\\] but got 1.5"):
        tl.quantile(x, 1.5)
    with pytest.raises(RuntimeError, match="input tensor must be either float or double dtype"):
        tl.quantile(_t([1, 2], device), 0.5)
    with pytest.raises(RuntimeError, match="q tensor must be same dtype as the input tensor"):
        tl.quantile(x, _t([0.5], device, tl.float64))
    with pytest.raises(RuntimeError, match="q must be a scalar or 1D tensor"):
        tl.quantile(x, _t([[0.5]], device))
    with pytest.raises(RuntimeError, match="input tensor must be non-empty"):
        tl.quantile(_t([], device), 0.5)
    with pytest.raises(RuntimeError, match="interpolation must be one of linear, lower, higher, midpoint or nearest, "
                                           "but got foo"):
        tl.quantile(x, 0.5, interpolation="foo")


def test_nanmedian(device):
    x = _t([[1.0, 7.0, 3.0, float("nan")], [4.0, 2.0, 8.0, 6.0]], device)
    r = tl.nanmedian(x, 1)
    assert type(r).__name__ == "nanmedian"
    assert to_numpy(r.values).tolist() == [3.0, 4.0] and to_numpy(r.indices).tolist() == [2, 0]
    assert tl.nanmedian(x).item() == 4.0
    v, i = tl.nanmedian(_t([float("nan"), float("nan")], device), 0)
    assert np.isnan(v.item()) and i.item() == 0
    w = _t([3.0, float("nan"), 1.0, 2.0], device).requires_grad_()
    tl.nanmedian(w).backward()
    assert to_numpy(w.grad).tolist() == [0.0, 0.0, 0.0, 1.0]  # torch 2.13


def test_nanmedian_all_gradient_is_shared_by_ties(device):
    # nanmedian() without a dim shares the gradient among the elements equal to the median (PyTorch's
    # evenly_distribute_backward, as median()): tensorlab gave it all to the picked element
    # (nanmedian([1, 2, 2, nan, 3]).backward() gave [0, 1, 0, 0, 0], torch [0, .5, .5, 0, 0])
    nan = float("nan")
    for values, want in (([1.0, 2.0, 2.0, nan, 3.0], [0.0, 0.5, 0.5, 0.0, 0.0]),
                         ([[1.0, 2.0, 2.0], [3.0, 2.0, 3.0]], [[0.0, 1 / 3, 1 / 3], [0.0, 1 / 3, 0.0]]),
                         ([nan, 4.0, nan], [0.0, 1.0, 0.0]), ([nan, nan], [0.5, 0.5])):
        x = _t(values, device, tl.float64).requires_grad_()
        tl.nanmedian(x).backward()
        np.testing.assert_allclose(to_numpy(x.grad), want, rtol=1e-12)
    e = tl.zeros((0, 3), device=device, requires_grad=True)  # an empty input: NaN, still differentiable
    y = tl.nanmedian(e)
    assert np.isnan(y.item()) and y.requires_grad
    y.backward()
    assert e.grad.shape == (0, 3)


def test_mode(device):
    x = _t([[1, 2, 2, 3, 3], [5, 5, 1, 1, 0]], device)
    r = tl.mode(x, 1)
    assert type(r).__name__ == "mode"
    # the smallest of the most frequent values, at its last occurrence (torch 2.13)
    assert to_numpy(r.values).tolist() == [2, 1] and to_numpy(r.indices).tolist() == [2, 3]
    v, i = tl.mode(_t([True, False, True], device))
    assert v.item() is True and i.item() == 2
    v, i = tl.mode(_t(3, device))
    assert v.item() == 3 and i.item() == 0
    with pytest.raises(IndexError, match="mode\\(\\): Expected reduction dim 0 to have non-zero size"):
        tl.mode(_t([], device))
    z = _t([[1.0, 2.0, 2.0, 3.0], [5.0, 5.0, 1.0, 0.0]], device).requires_grad_()
    tl.mode(z, 1).values.sum().backward()
    assert to_numpy(z.grad).tolist() == [[0.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 0.0]]


def test_mode_and_nanmedian_with_nan(device):
    # NaN != NaN: each NaN counts once and sorts last (PyTorch's CPU result with NaNs depends on
    # their positions, its sort's '<' being no order with NaN: it gives NaN and 2 for the first two)
    nan = float("nan")
    for values, want in [([nan, nan, 1.0], (1.0, 2)), ([1.0, nan, 1.0, nan, 1.0, 2.0, 2.0], (1.0, 4)),
                         ([nan, 3.0, 3.0, nan], (3.0, 2)), ([2.0, nan, 3.0], (2.0, 0))]:
        v, i = tl.mode(_t(values, device))
        assert (v.item(), i.item()) == want
    v, i = tl.mode(_t([[nan, nan, nan], [nan, 1.0, nan]], device), 1)
    assert np.isnan(to_numpy(v)[0]) and to_numpy(v)[1] == 1.0 and to_numpy(i).tolist() == [0, 1]
    v, i = tl.nanmedian(_t([[nan] * 5, [nan, 2.0, nan, 1.0, 3.0]], device), 1)  # PyTorch's index: 2, 1
    assert np.isnan(to_numpy(v)[0]) and to_numpy(v)[1] == 2.0 and to_numpy(i).tolist() == [0, 1]


@pytest.mark.parametrize("op", [tl.mode, tl.nanmedian])
def test_mode_nanmedian_of_a_0d_tensor_check_dim(device, op):
    # a 0-d tensor has dims -1 and 0 only: mode/nanmedian accepted any dim (mode(tensor(3.), 5)
    # returned (3., 0)), where torch 2.13 raises IndexError as median/kthvalue do (found by a
    # differential fuzzer against torch)
    s = _t(3.0, device)
    name = op.__name__
    for dim in (5, 1, -2):
        with pytest.raises(IndexError, match=rf"{name}\(\): Dimension out of range \(expected to be in range of "
                                             rf"\[-1, 0\], but got {dim}\)"):
            op(s, dim)
    with pytest.raises(TypeError, match=rf"{name}\(\): dim must be an int, got float"):
        op(s, 1.5)
    for dim in (0, -1):
        for keepdim in (False, True):
            v, i = op(s, dim, keepdim)
            assert v.shape == () and i.shape == () and (v.item(), i.item()) == (3.0, 0)


def test_nanmedian_of_an_empty_integer_or_bool_tensor_raises(device):
    # it leaked full()'s "value cannot be converted to type int8 without overflow: nan" for an
    # integer input, and gave True (cpu) or a ValueError (cuda) for bool; median raises, and torch
    # returns a NaN cast to the dtype (garbage) (found by a differential fuzzer against torch)
    for dtype in (tl.int8, tl.uint8, tl.int64, tl.bool):
        for shape in ((3, 0), (0,)):
            for op in ("median", "nanmedian"):
                with pytest.raises(RuntimeError, match=rf"^{op}\(\): cannot compute the median of an empty "
                                                       rf"{dtype.name} tensor$"):
                    getattr(tl, op)(tl.zeros(shape, dtype=dtype, device=device))
    for dtype in (tl.float32, tl.float16):
        assert np.isnan(tl.nanmedian(tl.zeros((3, 0), dtype=dtype, device=device)).item())


def test_median_nanmedian_of_bool_raise(device):
    # PyTorch has no bool median kernel: median/nanmedian of a non-empty bool tensor raise
    # NotImplementedError ("median_cpu" not implemented for 'Bool'); tensorlab returned a value
    # (median(tensor([True, False])) was False). The dim checks come first; mode of bool works.
    b = _t([[True, False, True], [False, False, True]], device)
    for op in ("median", "nanmedian"):
        fn = getattr(tl, op)
        for args in ((b,), (b, 1), (b, 0, True), (_t(True, device),), (_t(True, device), 0)):
            with pytest.raises(NotImplementedError, match=rf"\"{op}\" not implemented for 'Bool'"):
                fn(*args)
        with pytest.raises(NotImplementedError):
            getattr(b, op)(1)
        with pytest.raises(IndexError):
            getattr(tl, op)(b, 5)
        with pytest.raises(IndexError, match="Expected reduction dim 1 to have non-zero size"):
            getattr(tl, op)(tl.zeros((2, 0), dtype=tl.bool, device=device), 1)
    v, i = tl.mode(b, 1)
    assert to_numpy(v).tolist() == [True, False] and to_numpy(i).tolist() == [2, 1]


@pytest.mark.parametrize("op", ["mode", "nanmedian"])
def test_mode_nanmedian_out(device, op):
    # torch 2.13 takes out=(values, indices) (tensorlab raised TypeError; found by a differential
    # fuzzer against torch): values of the input's dtype, int64 indices, resized as needed
    x = _t([[1.0, 2.0, 3.0, 3.0], [4.0, 5.0, float("nan") if op == "nanmedian" else 0.0, 4.0]], device)
    want = {"mode": ([3.0, 4.0], [3, 3]), "nanmedian": ([2.0, 4.0], [1, 3])}[op]  # torch 2.13's
    fn = getattr(tl, op)
    v, i = tl.empty(2, device=device), tl.empty(2, dtype=tl.int64, device=device)
    r = fn(x, 1, out=(v, i))
    assert type(r).__name__ == op and r.values is v and r.indices is i
    assert (v.tolist(), i.tolist()) == want
    v, i = tl.empty(0, device=device), tl.empty(0, dtype=tl.int64, device=device)
    fn(x, -1, True, out=[v, i])
    assert v.shape == i.shape == (2, 1) and (v.reshape(-1).tolist(), i.reshape(-1).tolist()) == want
    with pytest.raises(RuntimeError, match=rf"{op}\(\): Expected out tensor to have dtype float32, but got float64"):
        fn(x, 1, out=(tl.empty(2, dtype=tl.float64, device=device), i))
    with pytest.raises(RuntimeError, match=rf"{op}\(\): Expected out tensor to have dtype int64, but got int32"):
        fn(x, 1, out=(v, tl.empty(2, dtype=tl.int32, device=device)))
    with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic"):
        fn(x.clone().requires_grad_(), 1, out=(v, i))
    if op == "nanmedian":
        with pytest.raises(TypeError, match=r"nanmedian\(\): out= is only supported together with dim"):
            fn(x, out=(v, i))


@pytest.mark.parametrize("op", ["median", "nanmedian"])
def test_median_nanmedian_keepdim_needs_dim(device, op):
    # median(input) has no keepdim in PyTorch (a TypeError there); keepdim=True was ignored here
    x = _t([[1.0, 3.0], [2.0, 4.0]], device)
    for fn in (getattr(tl, op), lambda t, **kw: getattr(t, op)(**kw)):
        with pytest.raises(TypeError, match=rf"{op}\(\): keepdim=True needs dim"):
            fn(x, keepdim=True)
        assert fn(x, keepdim=False).item() == 2.0
    assert getattr(tl, op)(x, 1, keepdim=True).values.shape == (2, 1)
