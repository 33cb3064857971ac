"""out= of the kernel-family ops that PyTorch 2.13 takes it for (argsort, diff, kron, take, gather,
index_select, take_along_dim, isin, cross, renorm, histc, the scatter and index_* ops, masked_select,
nonzero, narrow_copy, slice_scatter, quantile/nanquantile, multinomial): the value of the out-of-place
call written into ``out`` (resized as PyTorch does), PyTorch's dtype rule (exactly the input's dtype
for most, castable for diff/kron, int64 / bool where the result is), and no autograd through out=.
Expected values and errors checked against torch 2.13.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy

X = [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]


def _x(device, dtype=None):
    return tl.tensor(X, dtype=dtype, device=device)


def _cases(device):
    """(name, call taking out=, out dtype, expected value)."""
    x = _x(device)
    i = tl.tensor([[0, 1], [2, 0], [1, 1]], device=device)
    rows = tl.tensor([0, 2], device=device)
    return [
        ("argsort", lambda o: tl.argsort(-x, dim=0, stable=True, out=o), tl.int64, [[2] * 4, [1] * 4, [0] * 4]),
        ("diff", lambda o: tl.diff(x, out=o), tl.float32, [[1.0] * 3] * 3),
        ("kron", lambda o: tl.kron(x[:1, :2], x[:2, :1], out=o), tl.float32, [[1.0, 2.0], [5.0, 10.0]]),
        ("take", lambda o: tl.take(x, tl.tensor([[0, 5], [11, -1]], device=device), out=o), tl.float32,
         [[1.0, 6.0], [12.0, 12.0]]),
        ("gather", lambda o: tl.gather(x, 1, i, out=o), tl.float32, [[1.0, 2.0], [7.0, 5.0], [10.0, 10.0]]),
        ("index_select", lambda o: tl.index_select(x, 1, rows, out=o), tl.float32, [[1.0, 3.0], [5.0, 7.0],
                                                                                    [9.0, 11.0]]),
        ("take_along_dim", lambda o: tl.take_along_dim(x, i, 1, out=o), tl.float32,
         [[1.0, 2.0], [7.0, 5.0], [10.0, 10.0]]),
        ("take_along_dim_flat", lambda o: tl.take_along_dim(x, tl.tensor([11, 0, 5], device=device), out=o),
         tl.float32, [12.0, 1.0, 6.0]),
        ("isin", lambda o: tl.isin(x[0], tl.tensor([2.0, 4.0], device=device), out=o), tl.bool,
         [False, True, False, True]),
        ("cross", lambda o: tl.cross(x[:, :3], x[:, 1:], dim=1, out=o), tl.float32, [[-1.0, 2.0, -1.0]] * 3),
        ("renorm", lambda o: tl.renorm(x[:2, :2], 2, 0, 5.0, out=o), tl.float32,
         (np.array(X)[:2, :2] * np.array([[1.0], [5.0 / np.hypot(5.0, 6.0)]])).tolist()),
        ("histc", lambda o: tl.histc(x, bins=4, out=o), tl.float32, [3.0, 3.0, 3.0, 3.0]),
        ("scatter", lambda o: tl.scatter(x, 1, i, -1.0, out=o), tl.float32,
         [[-1.0, -1.0, 3.0, 4.0], [-1.0, 6.0, -1.0, 8.0], [9.0, -1.0, 11.0, 12.0]]),
        ("scatter_src", lambda o: tl.scatter(x, 1, i, -x, out=o), tl.float32,
         [[-1.0, -2.0, 3.0, 4.0], [-6.0, 6.0, -5.0, 8.0], [9.0, -10.0, 11.0, 12.0]]),
        ("scatter_add", lambda o: tl.scatter_add(x, 1, i, x, out=o), tl.float32,
         [[2.0, 4.0, 3.0, 4.0], [11.0, 6.0, 12.0, 8.0], [9.0, 29.0, 11.0, 12.0]]),
        ("scatter_reduce", lambda o: tl.scatter_reduce(x, 1, i, x, "prod", include_self=False, out=o), tl.float32,
         [[1.0, 2.0, 3.0, 4.0], [6.0, 6.0, 5.0, 8.0], [9.0, 90.0, 11.0, 12.0]]),
        ("index_add", lambda o: tl.index_add(x, 0, rows, x[:2], alpha=2, out=o), tl.float32,
         [[3.0, 6.0, 9.0, 12.0], [5.0, 6.0, 7.0, 8.0], [19.0, 22.0, 25.0, 28.0]]),
        ("index_copy", lambda o: tl.index_copy(x, 0, rows, -x[:2], out=o), tl.float32,
         [[-1.0, -2.0, -3.0, -4.0], [5.0, 6.0, 7.0, 8.0], [-5.0, -6.0, -7.0, -8.0]]),
        ("index_reduce", lambda o: tl.index_reduce(x, 0, tl.tensor([0, 0], device=device), x[1:], "amax", out=o),
         tl.float32, [[9.0, 10.0, 11.0, 12.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]]),
        ("masked_select", lambda o: tl.masked_select(x, x > 9, out=o), tl.float32, [10.0, 11.0, 12.0]),
        ("nonzero", lambda o: tl.nonzero(x > 10, out=o), tl.int64, [[2, 2], [2, 3]]),
        ("narrow_copy", lambda o: tl.narrow_copy(x, 1, 1, 2, out=o), tl.float32, [[2.0, 3.0], [6.0, 7.0],
                                                                                  [10.0, 11.0]]),
        ("slice_scatter", lambda o: tl.slice_scatter(x, tl.zeros(3, 2, device=device), 1, 0, 4, 2, out=o),
         tl.float32, [[0.0, 2.0, 0.0, 4.0], [0.0, 6.0, 0.0, 8.0], [0.0, 10.0, 0.0, 12.0]]),
        ("quantile", lambda o: tl.quantile(x, tl.tensor([0.25, 0.5], device=device), dim=1, out=o), tl.float32,
         [[1.75, 5.75, 9.75], [2.5, 6.5, 10.5]]),
        ("nanquantile", lambda o: tl.nanquantile(x, 0.5, out=o), tl.float32, 6.5),
    ]


def test_out_gets_the_result_resized(device):
    for name, call, dtype, expected in _cases(device):
        o = tl.empty(0, dtype=dtype, device=device)
        assert call(o) is o, name
        assert o.dtype is dtype, name
        np.testing.assert_allclose(to_numpy(o), expected, rtol=1e-6, err_msg=name)
        # an out= with elements of another shape is resized, with PyTorch's warning
        big = tl.empty(13, dtype=dtype, device=device)
        with pytest.warns(UserWarning, match="resized"):
            call(big)
        np.testing.assert_allclose(to_numpy(big), expected, rtol=1e-6, err_msg=name)


def test_out_of_the_right_shape_keeps_its_strides(device):
    x = _x(device)
    o = tl.zeros(4, 3, device=device).t()  # (3, 4), column-major
    tl.index_copy(x, 0, tl.tensor([1], device=device), tl.zeros(1, 4, device=device), out=o)
    assert o.stride() == (1, 3)
    assert to_numpy(o).tolist() == [X[0], [0.0] * 4, X[2]]


def test_out_that_is_the_input(device):
    x = _x(device)
    i = tl.tensor([[0, 1], [2, 0], [1, 1]], device=device)
    assert tl.scatter(x, 1, i, -1.0, out=x) is x
    assert to_numpy(x).tolist() == [[-1.0, -1.0, 3.0, 4.0], [-1.0, 6.0, -1.0, 8.0], [9.0, -1.0, 11.0, 12.0]]
    x = _x(device)
    tl.index_add(x, 0, tl.tensor([0, 2], device=device), x[:2].clone(), out=x)
    assert to_numpy(x).tolist() == [[2.0, 4.0, 6.0, 8.0], X[1], [14.0, 16.0, 18.0, 20.0]]


def test_out_dtype_rules(device):
    x = _x(device)
    # most: exactly the input's dtype, checked before anything is written
    for name, call, dtype, _ in _cases(device):
        wrong = tl.float64 if dtype is not tl.float64 else tl.float32
        o = tl.full((2,), 7.0, dtype=wrong, device=device)
        if name in ("diff", "kron"):  # the last op writes out=: castable, then converted (as PyTorch)
            with pytest.warns(UserWarning, match="resized"):
                call(o)
            assert o.dtype is tl.float64
            continue
        with pytest.raises(RuntimeError):
            call(o)
        assert to_numpy(o).tolist() == [7.0, 7.0], name
    with pytest.raises(RuntimeError, match="diff: result type float32 can't be cast to the desired output type int64"):
        tl.diff(x, out=tl.empty(0, dtype=tl.int64, device=device))
    # PyTorch's own messages where it has one
    with pytest.raises(RuntimeError, match="take\\(\\): self and out expected to have the same dtype, but got "
                                           "self.dtype = Float and out.dtype = Double"):
        tl.take(x, tl.tensor([0], device=device), out=tl.empty(0, dtype=tl.float64, device=device))
    with pytest.raises(RuntimeError, match="index_select\\(\\): self and result must have the same scalar type"):
        tl.index_select(x, 0, tl.tensor([0], device=device), out=tl.empty(0, dtype=tl.float64, device=device))
    with pytest.raises(RuntimeError, match="gather\\(\\): Expected out tensor to have dtype float32, but got float64"):
        tl.gather(x, 0, tl.tensor([[0]], device=device), out=tl.empty(0, dtype=tl.float64, device=device))
    with pytest.raises(RuntimeError, match="masked_select\\(\\): self and result must have the same scalar type"):
        tl.masked_select(x, x > 1, out=tl.empty(0, dtype=tl.float64, device=device))
    with pytest.raises(RuntimeError, match="quantile\\(\\) out tensor must be same dtype as the input tensor"):
        tl.nanquantile(x, 0.5, out=tl.empty(0, dtype=tl.float64, device=device))
    with pytest.raises(RuntimeError, match="input tensor and hist tensor should have the same dtype, but got input "
                                           "float and hist double"):
        tl.histc(x, out=tl.empty(0, dtype=tl.float64, device=device))
    with pytest.raises(RuntimeError, match="nonzero: Expected out tensor to have scalar type Long but got scalar "
                                           "typeInt"):
        tl.nonzero(x, out=tl.empty(0, dtype=tl.int32, device=device))
    with pytest.raises(RuntimeError, match="nonzero does not support the out kwarg when as_tuple is True"):
        tl.nonzero(x, as_tuple=True, out=tl.empty(0, dtype=tl.int64, device=device))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype int64"):
        tl.argsort(x, stable=True, out=tl.empty(0, dtype=tl.int32, device=device))
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float32, but got float64"):
        tl.linalg.cross(x[:, :3], x[:, 1:], out=tl.empty(0, dtype=tl.float64, device=device))
    with pytest.raises(TypeError, match="argument 'out' must be a Tensor"):
        tl.scatter_add(x, 1, tl.tensor([[0]] * 3, device=device), x, out=[1.0])


def test_out_refuses_autograd(device):
    x = _x(device).requires_grad_()
    i = tl.tensor([[0], [1], [2]], device=device)
    calls = [lambda o: tl.scatter_add(x, 1, i, x, out=o), lambda o: tl.take(x, i, out=o),
             lambda o: tl.renorm(x, 2, 0, 1.0, out=o), lambda o: tl.diff(x, out=o),
             lambda o: tl.quantile(x, 0.5, out=o), lambda o: tl.masked_select(x, x > 3, out=o)]
    for call in calls:
        with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic "
                                               "differentiation"):
            call(tl.empty(0, device=device))
        with tl.no_grad():
            call(tl.empty(0, device=device))
    # histc and isin have no gradient: an input that requires grad is fine, as in PyTorch
    o = tl.empty(0, device=device)
    assert to_numpy(tl.histc(x, bins=2, out=o)).tolist() == [6.0, 6.0]
    assert not o.requires_grad


def test_multinomial_out_is_resized_and_int64(device):
    # it was written with copy_, which raised for an empty out (PyTorch resizes it)
    probs = tl.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], device=device)
    o = tl.empty(0, dtype=tl.int64, device=device)
    assert tl.multinomial(probs, 1, out=o) is o
    assert to_numpy(o).tolist() == [[1], [2]]
    for dtype, name in ((tl.int32, "Int"), (tl.float32, "Float")):
        with pytest.raises(RuntimeError, match=f"multinomial expects Long tensor out, got: {name}"):
            tl.multinomial(probs, 1, out=tl.empty(0, dtype=dtype, device=device))


def test_outs_of_a_pair_must_not_overlap(device):
    # aminmax(out=(a, a)) gave the max as the min; max/sort/topk kept whichever result was written
    # last (PyTorch's aminmax raises this ValueError; the others leave garbage)
    x = tl.tensor([[3.0, 1.0], [2.0, 0.0]], device=device)
    a = tl.empty(4, device=device)
    i = tl.zeros(4, dtype=tl.int64, device=device)
    calls = [
        ("aminmax", lambda: tl.aminmax(x, dim=0, out=(a[:2], a[:2]))),
        ("aminmax", lambda: tl.aminmax(x, dim=0, out=(a[:2], a[1:3]))),
        ("max", lambda: tl.max(x.long(), 0, out=(i[:2], i[:2]))),
        ("sort", lambda: tl.sort(x.long(), 0, out=(i.view(2, 2), i.view(2, 2)))),
        ("topk", lambda: tl.topk(x.long(), 1, out=(i[:2].view(2, 1), i[:2].view(2, 1)))),
    ]
    for name, call in calls:
        with pytest.raises(ValueError, match=rf"{name}\(\): the out= tensors must not overlap"):
            call()
    # apart in one storage (side by side, or interleaved) is fine
    assert tl.aminmax(x, dim=0, out=(a[:2], a[2:])).min.tolist() == [2.0, 0.0]
    tl.aminmax(x, dim=0, out=(a[::2], a[1::2]))
    assert a.tolist() == [2.0, 3.0, 0.0, 1.0]
