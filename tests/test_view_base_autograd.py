"""Autograd of views and their bases, against PyTorch 2.15's results (hard-coded):

- a view made before its base came to require grad (an in-place write of a tensor that does)
  requires grad too, and gradients flow through it (autograd.graph.promote_view);
- in-place writes through a view of a strided base (transposed, sliced with steps) are
  differentiable (the CopySlices gradient by storage position), as select_scatter & co on such
  inputs."""

from __future__ import annotations

import pytest

import tensorlab as tl

F64 = tl.float64


def test_a_view_made_before_its_base_required_grad_follows_it(device):
    v = tl.tensor([1.0, 2.0, 3.0], requires_grad=True, device=device)
    w = tl.tensor(5.0, requires_grad=True, device=device)
    buf = tl.zeros(4, 3, device=device)
    rows, sibling = buf[1:], buf[1]
    assert not rows.requires_grad
    rows[0] = v
    assert rows.requires_grad and sibling.requires_grad and buf.requires_grad
    ((sibling * w).sum() + w).backward()
    assert v.grad.tolist() == [5, 5, 5] and w.grad.item() == 7

    v.grad = None
    buf = tl.zeros(4, 3, device=device)
    first = buf[0]
    buf.add_(v)  # an in-place op on the base itself
    (first * 2).sum().backward()
    assert v.grad.tolist() == [2, 2, 2]

    v.grad = None
    buf = tl.zeros(4, 3, device=device)
    buf[1:][0] = v  # through an intermediate view
    buf.sum().backward()
    assert v.grad.tolist() == [1, 1, 1]


def test_views_that_must_not_follow_their_base(device):
    w = tl.ones(3, requires_grad=True, device=device)
    buf = tl.zeros(4, 3, device=device)
    detached = buf[1].detach()
    with tl.no_grad():
        made_without_grad = buf[2]
    buf[0] = w
    assert not detached.requires_grad and not made_without_grad.requires_grad
    y = tl.ones(3, requires_grad=True, device=device)
    with tl.no_grad():
        view = y[:2]
    with pytest.raises(RuntimeError, match="created in no_grad mode"):
        view.mul_(2)


def _grid(device):
    return tl.arange(6.0, dtype=F64, device=device).reshape(3, 2)


def test_in_place_writes_through_views_of_strided_bases(device):
    w = tl.arange(6.0, dtype=F64, device=device).reshape(2, 3).requires_grad_()
    y = w.t().clone()  # keeps the transposed layout
    y[0] = 10.0
    (y * _grid(device)).sum().backward()
    assert w.grad.tolist() == [[0, 2, 4], [0, 3, 5]]

    w.grad = None
    v = tl.tensor([1.0, 2.0], dtype=F64, requires_grad=True, device=device)
    y = w.t() * 1
    y[1] = v * 3
    (y * _grid(device)).sum().backward()
    assert w.grad.tolist() == [[0, 0, 4], [1, 0, 5]] and v.grad.tolist() == [6, 9]

    w.grad = None
    y = w[:, ::2].clone()
    y.diagonal().mul_(2)
    (y ** 2).sum().backward()
    assert w.grad.tolist() == [[0, 0, 4], [6, 0, 40]]


def test_second_order_through_a_strided_base_write(device):
    w = tl.arange(6.0, dtype=F64, device=device).reshape(2, 3).requires_grad_()
    y = w.t() * 1
    y[1:][0, 1] = 7.0
    (g,) = tl.autograd.grad((y * y).sum(), w, create_graph=True)
    assert g.tolist() == [[0, 2, 4], [6, 0, 10]]
    (gg,) = tl.autograd.grad(g.sum(), w)
    assert gg.tolist() == [[2, 2, 2], [2, 0, 2]]


@pytest.mark.parametrize("scatter, values, grad", [
    (lambda x, d: tl.select_scatter(x, tl.zeros(2, dtype=F64, device=d), 0, 0),
     [[0, 0], [1, 4], [2, 5]], [[0, 2, 4], [0, 3, 5]]),
    (lambda x, d: tl.slice_scatter(x, tl.zeros(1, 2, dtype=F64, device=d), 0, 0, 1),
     [[0, 0], [1, 4], [2, 5]], [[0, 2, 4], [0, 3, 5]]),
    (lambda x, d: tl.diagonal_scatter(x, tl.zeros(2, dtype=F64, device=d)),
     [[0, 3], [1, 0], [2, 5]], [[0, 2, 4], [1, 0, 5]]),
], ids=["select_scatter", "slice_scatter", "diagonal_scatter"])
def test_scatter_ops_on_a_transposed_input_are_differentiable(scatter, values, grad, device):
    w = tl.arange(6.0, dtype=F64, device=device).reshape(2, 3).requires_grad_()
    out = scatter(w.t(), device)
    (out * _grid(device)).sum().backward()
    assert out.tolist() == values and w.grad.tolist() == grad


def test_as_strided_scatter_of_a_transposed_input_writes_its_storage_positions(device):
    """PyTorch: out = input.clone() keeps the transposed strides; as_strided(size, stride) names
    positions in out's storage (torch 2.15's values)."""
    x = tl.arange(12.0, dtype=F64, device=device).reshape(4, 3).t().requires_grad_()
    y = tl.as_strided_scatter(x, tl.tensor([100.0, 200.0], dtype=F64, device=device), (2,), (3,))
    assert y.stride() == (1, 3)
    assert y.tolist() == [[100, 200, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11]]
    (y * tl.arange(12.0, dtype=F64, device=device).reshape(3, 4)).sum().backward()
    assert x.grad.tolist() == [[0, 0, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]


def test_as_strided_of_an_offset_view_reaching_before_it(device):
    """as_strided takes an absolute storage offset: from x[1:] it may name elements before the
    view's start, whose gradient is dropped (torch 2.15's values)."""
    x = tl.arange(20.0, dtype=F64, device=device).reshape(4, 5).requires_grad_()
    y = x[1:].as_strided((3,), (2,), 1)
    assert y.tolist() == [1, 3, 5]
    (y * tl.tensor([1.0, 2.0, 3.0], dtype=F64, device=device)).sum().backward()
    expected = [[0.0] * 5 for _ in range(4)]
    expected[1][0] = 3.0
    assert x.grad.tolist() == expected


def _behind_three_zeros(y):
    """``cat([zeros(3), y])``: its backward hands ``y`` a gradient that starts three elements into
    its storage (a contiguous view with a storage offset), as cat, stack and chained views do."""
    return tl.cat([tl.zeros(3, dtype=y.dtype, device=y.device), y.reshape(-1)])


@pytest.mark.parametrize("write", ["setitem", "slice_scatter", "select_scatter", "put", "mul_ on a view"])
def test_region_writes_read_an_upstream_gradient_that_starts_inside_its_storage(write, device):
    # The gradient of the written region is the upstream gradient at the region's positions
    # counted from the gradient's first element, not from the start of its storage.
    x = tl.ones(4, dtype=F64, requires_grad=True, device=device)
    s = tl.full((2,), 2.0, dtype=F64, requires_grad=True, device=device)
    y = x * 1.0
    if write == "setitem":
        y[1:3] = s
    elif write == "slice_scatter":
        y = tl.slice_scatter(y, s, 0, 1, 3)
    elif write == "select_scatter":
        y = tl.select_scatter(y.reshape(2, 2), s, 0, 1)
    elif write == "put":
        y = y.put(tl.tensor([1, 2], device=device), s)
    else:
        y[1:3].mul_(s)
    _behind_three_zeros(y).backward(tl.arange(7.0, dtype=F64, device=device))
    # (PyTorch 2.15's gradients)
    if write == "mul_ on a view":
        assert x.grad.tolist() == [3, 8, 10, 6] and s.grad.tolist() == [4, 5]
    elif write == "select_scatter":
        assert x.grad.tolist() == [3, 4, 0, 0] and s.grad.tolist() == [5, 6]
    else:
        assert x.grad.tolist() == [3, 0, 0, 6] and s.grad.tolist() == [4, 5]


def test_as_strided_scatter_reads_an_upstream_gradient_that_starts_inside_its_storage(device):
    x = tl.zeros(3, 4, dtype=F64, requires_grad=True, device=device)
    s = tl.zeros(2, 2, dtype=F64, requires_grad=True, device=device)
    y = tl.as_strided_scatter(x, s, (2, 2), (1, 4), 1)  # s lands at flat positions 1, 5, 2, 6
    _behind_three_zeros(y).backward(tl.arange(15.0, dtype=F64, device=device))
    # the upstream gradient of y's flat position p is 3 + p. (PyTorch 2.15 reads it from the
    # storage's start, [[1, 5], [2, 6]], and also sends x the written region's gradient.)
    assert s.grad.tolist() == [[4, 8], [5, 9]]
    want_x = [[3 + p if p not in (1, 2, 5, 6) else 0 for p in range(r * 4, r * 4 + 4)] for r in range(3)]
    assert x.grad.tolist() == want_x

    s.grad = x.grad = None  # no storage_offset: the region starts at the input's first element
    _behind_three_zeros(tl.as_strided_scatter(x, s, (2, 2), (1, 4))).backward(tl.arange(15.0, dtype=F64, device=device))
    assert s.grad.tolist() == [[3, 7], [4, 8]]
    written = (0, 1, 4, 5)
    assert x.grad.tolist() == [[3 + p if p not in written else 0 for p in range(r * 4, r * 4 + 4)] for r in range(3)]


def test_second_order_through_a_chained_view(device):
    x = (tl.arange(12.0, dtype=F64, device=device).reshape(3, 4) / 10).requires_grad_()
    (g,) = tl.autograd.grad(x[2, 1:3] ** 3, x, tl.ones(2, dtype=F64, device=device), create_graph=True)
    (gg,) = tl.autograd.grad(g, x, tl.arange(12.0, dtype=F64, device=device).reshape(3, 4))
    # d/dx of 3 x^2 weighted by v is 6 x v on the viewed elements
    assert gg[2].tolist() == pytest.approx([0, 6 * 0.9 * 9, 6 * 1.0 * 10, 0])
    assert gg[:2].abs().sum().item() == 0
