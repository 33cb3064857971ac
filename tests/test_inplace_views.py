"""In-place view ops (squeeze_, unsqueeze_, transpose_, swapaxes_, swapdims_, t_, as_strided_):
the tensor itself takes the view's shape, strides and storage offset, shares its storage and
bumps its version, as PyTorch 2.13 (values, strides and errors checked against it). Under
autograd they raise rather than record: PyTorch's error for a leaf that requires grad,
NotImplementedError for a tensor in a graph; a leaf under no_grad works and its gradient keeps
the new shape.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy


def _m(*shape, device="cpu"):
    return tl.arange(float(np.prod(shape)), device=device).reshape(shape)


def test_geometry_and_values(device):
    ref = np.arange(24.0).reshape(2, 3, 4)
    cases = [
        (lambda x: x.transpose_(0, 2), ref.transpose(2, 1, 0), (1, 4, 12)),
        (lambda x: x.swapaxes_(0, 1), ref.swapaxes(0, 1), (4, 12, 1)),
        (lambda x: x.swapdims_(-1, 1), ref.swapaxes(-1, 1), (12, 1, 4)),
        (lambda x: x.unsqueeze_(-1), ref[..., None], (12, 4, 1, 1)),
        (lambda x: x.as_strided_((2, 2), (1, 2), 1), np.array([[1.0, 3.0], [2.0, 4.0]]), (1, 2)),
    ]
    for op, want, strides in cases:
        x = _m(2, 3, 4, device=device)
        storage, v = x._storage, x._version
        assert op(x) is x
        assert x.shape == want.shape and x.stride() == strides
        assert x._storage is storage and x._version == v + 1
        np.testing.assert_array_equal(to_numpy(x), want)
    x = _m(2, 1, 3, device=device)
    assert x.squeeze_().shape == (2, 3) and x.stride() == (3, 1)
    x = _m(1, 1, 3, device=device)
    assert x.squeeze_((0, 1)).shape == (3,)
    x = _m(2, 3, device=device)
    x.t_()
    assert x.shape == (3, 2) and x.stride() == (1, 3)
    np.testing.assert_array_equal(to_numpy(x), np.arange(6.0).reshape(2, 3).T)
    assert tl.as_strided_(_m(6, device=device)[2:], (2,), (1,)).storage_offset() == 2  # the offset is kept


def test_ops_after_an_in_place_view_see_the_new_geometry(device):
    x = _m(2, 3, device=device)
    x.t_()
    x.add_(tl.tensor([100.0, 200.0], device=device))  # broadcast over the new (3, 2) shape
    assert to_numpy(x).tolist() == [[100.0, 203.0], [101.0, 204.0], [102.0, 205.0]]
    assert to_numpy(x.contiguous()).tolist() == to_numpy(x).tolist()
    base = _m(2, 1, device=device)
    view = base[:]
    view.squeeze_()
    assert base.shape == (2, 1) and view.shape == (2,)
    view.mul_(10)  # still the same memory
    assert to_numpy(base).tolist() == [[0.0], [10.0]]


def test_errors():
    x = _m(2, 3)
    with pytest.raises(RuntimeError, match="t_\\(\\) expects a tensor with <= 2 dimensions, but self is 3D"):
        _m(2, 3, 4).t_()
    with pytest.raises(IndexError, match="Dimension out of range \\(expected to be in range of \\[-3, 2\\], "
                                         "but got 5\\)"):
        x.unsqueeze_(5)
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.transpose_(0, 5)
    with pytest.raises(RuntimeError, match="setStorage"):
        x.as_strided_((4, 4), (1, 1))
    assert x.shape == (2, 3) and x._version == 0  # untouched


def test_autograd(device):
    leaf = tl.ones(2, 1, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="squeeze_: a leaf Variable that requires grad is being used in an in-place "
                                           "operation"):
        leaf.squeeze_()
    y = leaf * 2
    with pytest.raises(NotImplementedError, match="t_\\(\\): in-place view ops on a tensor that is part of an "
                                                  "autograd graph are not supported"):
        y.t_()
    with tl.no_grad(), pytest.raises(NotImplementedError):
        y.unsqueeze_(0)  # its grad_fn describes the old shape
    assert y.shape == (2, 1) and leaf.shape == (2, 1)
    with tl.no_grad():  # a leaf under no_grad: allowed, as PyTorch; the gradient has the new shape
        leaf.squeeze_()
    (leaf * tl.tensor([3.0, 4.0], device=device)).sum().backward()
    assert leaf.shape == (2,) and to_numpy(leaf.grad).tolist() == [3.0, 4.0]


def test_data_has_a_version_counter_of_its_own():
    """w.data shares w's memory but not its version counter (PyTorch's .data): an in-place change
    through it is seen by w yet does not invalidate a graph that saved w, and does not bump
    w._version; detach() shares the counter, so the same change through it does invalidate it; the
    overlap checks still see one memory."""
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    y = (w * w).sum()
    w.data.mul_(0.5)
    assert w.tolist() == [0.5, 1.0] and w._version == 0
    y.backward()  # (with the changed values, as PyTorch's .data warns about)
    assert w.grad.tolist() == [1.0, 2.0]
    w2 = tl.tensor([1.0, 2.0], requires_grad=True)
    y2 = (w2 * w2).sum()
    w2.detach().mul_(0.5)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y2.backward()
    x = tl.arange(4.0).reshape(2, 2)
    with pytest.raises(RuntimeError, match="single memory location"):
        x.data.copy_(x.t())


def test_a_view_made_under_no_grad_cannot_be_written_with_grad_on():
    """PyTorch forbids writing in place, with grad mode on, into a view made under no_grad of a
    tensor that requires grad (the write would change the base behind autograd's back: the gradient
    came out as if it never happened); inside no_grad the write is fine."""
    w = tl.ones(3, 2, requires_grad=True)
    y = w * 2
    for base in (w, y):
        with tl.no_grad():
            v = base[0]
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
            v.mul_(3)
    with tl.no_grad():
        v = y[0]
        v.mul_(3)
    assert y.tolist()[0] == [6.0, 6.0]
    u = y[1]
    u.mul_(2)  # a view made with grad on is tracked
    (y * y).sum().backward()
    assert w.grad.tolist() == [[24.0, 24.0], [32.0, 32.0], [8.0, 8.0]]  # (the no_grad write is not tracked)
