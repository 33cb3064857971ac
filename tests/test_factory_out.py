"""out= of the factories (empty, zeros, ones, full, eye, arange, linspace, logspace, rand, randn,
randint, randperm, normal, bernoulli), as PyTorch 2.13: out is resized to the size (kept, with
its strides, when it already has it; in its own storage when that is big enough) and filled,
in out's dtype; a dtype= or device= that disagrees with out raises, and so does an out that
requires grad. Several of them took out= and ignored it (a new tensor came back, out unchanged).
Expected values and errors checked against torch 2.13.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy


def _e(*size, dtype=tl.float32, device="cpu"):
    return tl.empty(*size, dtype=dtype, device=device)


def test_constant_factories_fill_out(device):
    o = _e(0, device=device)
    assert tl.zeros(2, 3, out=o) is o
    assert o.shape == (2, 3) and to_numpy(o).tolist() == [[0.0] * 3] * 2
    o = _e(0, dtype=tl.int32, device=device)
    assert tl.ones(2, 3, out=o) is o and o.dtype is tl.int32 and to_numpy(o).tolist() == [[1] * 3] * 2
    o = _e(0, dtype=tl.int64, device=device)
    assert to_numpy(tl.full((2,), 7.5, out=o)).tolist() == [7, 7]  # converted to out's dtype
    o = _e(0, dtype=tl.float64, device=device)
    assert to_numpy(tl.eye(2, 3, out=o)).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] and o.dtype is tl.float64
    o = _e(0, device=device)
    assert tl.empty(4, out=o) is o and o.shape == (4,)


def test_out_of_the_right_shape_is_written_in_place(device):
    o = tl.full((3, 2), 5.0, device=device).t()  # (2, 3), strides (1, 2)
    tl.zeros(2, 3, out=o)
    assert o.stride() == (1, 2) and to_numpy(o).tolist() == [[0.0] * 3] * 2
    e = tl.full((2, 2), 5.0, device=device).t()
    tl.eye(2, out=e)
    assert e.stride() == (1, 2) and to_numpy(e).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    r = _e(10, device=device)[::2]
    tl.arange(5, out=r)
    assert r.stride() == (2,) and to_numpy(r).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    v = o._version
    tl.ones(2, 3, out=o)
    assert o._version > v


def test_resize_keeps_the_storage_when_it_fits(device):
    # as PyTorch's resize_: a view of a bigger tensor is resized in its storage, so the base sees it
    b = tl.zeros(4, 3, device=device)
    tl.ones(3, 3, out=b[:2])
    assert to_numpy(b).tolist() == [[1.0] * 3] * 3 + [[0.0] * 3]
    x = tl.zeros(2, 3, device=device)
    tl.zeros(2, out=x[0])
    assert x[0].shape == (3,)
    y = tl.ones(2, 3, device=device)
    with pytest.warns(UserWarning, match="resized"):  # (the elementwise ops' out= resize too)
        tl.add(tl.ones(2, device=device), 1, out=y[1][:1])
    assert to_numpy(y).tolist() == [[1.0] * 3, [2.0, 2.0, 1.0]]


def test_ranges_into_out(device):
    o = _e(0, device=device)
    assert tl.arange(5, out=o) is o and to_numpy(o).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    o = _e(2, 3, device=device)  # the same number of elements: arange keeps out's shape
    tl.arange(6, out=o)
    assert o.shape == (2, 3) and to_numpy(o).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
    o = _e(7, device=device)
    with pytest.warns(UserWarning, match="The number of elements in the out tensor of shape \\[7\\] is 7 which does "
                                         "not match the computed number of elements 5"):
        tl.arange(5, out=o)
    assert o.shape == (5,)
    o = _e(0, dtype=tl.int64, device=device)
    assert to_numpy(tl.linspace(0, 10, 5, out=o)).tolist() == [0, 2, 5, 7, 10]
    o = _e(2, 3, device=device)  # linspace resizes whatever the shape
    np.testing.assert_allclose(to_numpy(tl.linspace(0, 1, 5, out=o)), [0.0, 0.25, 0.5, 0.75, 1.0])
    o = _e(0, dtype=tl.int64, device=device)
    assert to_numpy(tl.logspace(0, 2, 3, out=o)).tolist() == [1, 10, 100]
    o = _e(0, dtype=tl.float64, device=device)
    assert to_numpy(tl.logspace(0, 2, 3, base=2, out=o)).tolist() == [1.0, 2.0, 4.0]
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8 without overflow"):
        tl.linspace(0, 300, 3, out=_e(2, dtype=tl.int8, device=device))
    for f in (lambda o: tl.arange(2, out=o), lambda o: tl.linspace(0, 1, 2, out=o),
              lambda o: tl.logspace(0, 1, 2, out=o)):
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            f(_e(0, dtype=tl.bool, device=device))


def test_random_factories_into_out(device):
    tl.manual_seed(3)
    expected = to_numpy(tl.rand(4, dtype=tl.float64, device=device))
    tl.manual_seed(3)
    o = _e(0, dtype=tl.float64, device=device)
    assert tl.rand(4, out=o) is o and o.dtype is tl.float64
    np.testing.assert_array_equal(to_numpy(o), expected)
    tl.manual_seed(4)
    expected = to_numpy(tl.randn(2, 2, device=device))
    tl.manual_seed(4)
    o = _e(3, device=device)
    tl.randn(2, 2, out=o)
    np.testing.assert_array_equal(to_numpy(o), expected)
    o = _e(0, device=device)
    vals = to_numpy(tl.randint(3, 10, (50,), out=o))
    assert o.dtype is tl.float32 and vals.min() >= 3 and vals.max() < 10 and (vals == np.round(vals)).all()
    o = _e(0, dtype=tl.int32, device=device)
    assert sorted(to_numpy(tl.randperm(6, out=o)).tolist()) == list(range(6)) and o.dtype is tl.int32
    o = _e(0, dtype=tl.float64, device=device)
    assert tl.normal(2.0, 0.0, (3,), out=o) is o and to_numpy(o).tolist() == [2.0] * 3
    o = _e(0, device=device)
    assert to_numpy(tl.normal(tl.full((2, 1), 1.0, device=device), tl.zeros(3, device=device), out=o)).tolist() \
        == [[1.0] * 3] * 2
    for dtype, want in ((tl.float32, [0.0, 1.0, 1.0]), (tl.bool, [False, True, True]), (tl.int64, [0, 1, 1])):
        o = _e(0, dtype=dtype, device=device)
        assert tl.bernoulli(tl.tensor([0.0, 1.0, 1.0], device=device), out=o) is o
        assert to_numpy(o).tolist() == want
    for f, name in ((lambda o: tl.rand(2, out=o), "rand"), (lambda o: tl.randn(2, out=o), "randn"),
                    (lambda o: tl.normal(0.0, 1.0, (2,), out=o), "normal")):
        o = tl.full((1,), 9, dtype=tl.int64, device=device)
        with pytest.raises(RuntimeError, match=f"{name}: expected a floating point dtype, got tensorlab.int64"):
            f(o)
        assert o.shape == (1,) and o.item() == 9  # untouched
    o = tl.full((1,), 9, dtype=tl.int8, device=device)
    with pytest.raises(RuntimeError, match="to - 1 is out of bounds for"):
        tl.randint(300, (3,), out=o)
    assert o.shape == (1,)


def test_randperm_checks_the_dtype_holds_n():
    # randperm(300, dtype=int8) wrapped (-128 ...) and float16 repeated values past 2049, where
    # PyTorch raises
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8 without overflow"):
        tl.randperm(300, dtype=tl.int8)
    assert sorted(to_numpy(tl.randperm(256, dtype=tl.uint8)).tolist()) == list(range(256))
    with pytest.raises(RuntimeError, match="n cannot be greater than 2049 for Half type."):
        tl.randperm(2050, dtype=tl.float16)
    with pytest.raises(RuntimeError, match="n cannot be greater than 257 for BFloat16 type."):
        tl.randperm(258, dtype=tl.bfloat16)
    assert sorted(to_numpy(tl.randperm(2049, dtype=tl.float16)).tolist()) == list(range(2049))
    with pytest.raises(NotImplementedError, match="\"randperm\" not implemented for 'Bool'"):
        tl.randperm(3, dtype=tl.bool)
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8 without overflow"):
        tl.randperm(300, out=_e(0, dtype=tl.int8))


def test_factory_out_errors(device):
    o = tl.full((2,), 4.0, device=device)
    with pytest.raises(RuntimeError, match="dtype Double does not match dtype of out parameter \\(Float\\)"):
        tl.zeros(2, 3, dtype=tl.float64, out=o)
    with pytest.raises(RuntimeError, match="dtype Int does not match dtype of out parameter \\(Long\\)"):
        tl.randperm(5, dtype=tl.int32, out=_e(0, dtype=tl.int64, device=device))
    other = "cpu" if device == "cuda" else "cuda"
    if tl.cuda.is_available():
        with pytest.raises(RuntimeError, match=f"device type {other} does not match device type of out parameter "
                                               f"\\({device}\\)"):
            tl.ones(2, device=other, out=o)
    with pytest.raises(TypeError, match="zeros\\(\\): argument 'out' must be Tensor, not int"):
        tl.zeros(2, out=3)
    with pytest.raises(RuntimeError, match="'memory_format' argument is incompatible with 'out' tensor argument"):
        tl.empty(2, out=o, memory_format=object())
    g = tl.ones(2, device=device, requires_grad=True)
    for f in (lambda: tl.zeros(2, out=g), lambda: tl.arange(2.0, out=g), lambda: tl.rand(2, out=g),
              lambda: tl.eye(1, out=g)):
        with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic "
                                               "differentiation"):
            f()
    assert to_numpy(g).tolist() == [1.0, 1.0] and to_numpy(o).tolist() == [4.0, 4.0]  # untouched
    with tl.no_grad():
        tl.zeros(2, out=g)
    assert to_numpy(g).tolist() == [0.0, 0.0]
    # requires_grad=True makes out require grad, as PyTorch
    r = tl.zeros(2, out=_e(0, device=device), requires_grad=True)
    assert r.requires_grad and r.is_leaf
    with pytest.raises(RuntimeError, match="bernoulli\\(\\): functions with out=... arguments"):
        tl.bernoulli(tl.full((2,), 0.5, device=device, requires_grad=True), out=_e(0, device=device))


def test_linspace_logspace_out_of_the_right_size_keeps_its_shape():
    """An out= with as many elements as steps keeps its shape and takes the values in its logical
    order, also through a transposed view (PyTorch resizes only an out= of another size)."""
    b = tl.zeros(2, 2)
    r = tl.linspace(0, 3, 4, out=b.t())
    assert r.shape == (2, 2) and b.tolist() == [[0.0, 2.0], [1.0, 3.0]]
    c = tl.zeros(2, 2)
    tl.logspace(0, 3, 4, out=c)
    assert c.shape == (2, 2) and c.tolist() == [[1.0, 10.0], [100.0, 1000.0]]
