"""Second derivatives of piecewise-linear ops (ops/zero_curvature.py): the gradient of relu,
leaky_relu, hardtanh, threshold, the shrinks, prelu, rrelu, nll_loss and reflect/replicate pads
is recorded as depending on the input with derivative 0, so differentiating it again with respect
to the input gives zeros (PyTorch 2.15's answer) instead of "appears to not have been used in the
graph", while the first derivatives and the second derivatives with respect to other tensors
keep their values."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F

X = np.array([[-2.0, -0.3, 0.0, 0.2, 0.7], [1.5, -1.2, 0.45, -0.6, 3.0]])
U = np.array([[0.3, -1.0, 2.0, 0.5, 1.5], [-0.7, 0.9, 1.1, -2.0, 0.4]])
TARGET = [3, 1]

# (name, f(x), d f(x) . U / dx as a function of the numpy input)
CASES = [
    ("relu", F.relu, lambda x: U * (x > 0)),
    ("relu_ of a copy", lambda x: F.relu(x * 1, inplace=True), lambda x: U * (x > 0)),
    ("leaky_relu", F.leaky_relu, lambda x: U * np.where(x > 0, 1, 0.01)),
    ("leaky_relu_ of a copy", lambda x: F.leaky_relu(x * 1, 0.2, inplace=True), lambda x: U * np.where(x > 0, 1, 0.2)),
    ("hardtanh", F.hardtanh, lambda x: U * ((x > -1) & (x < 1))),
    ("hardtanh_ of a copy", lambda x: F.hardtanh(x * 1, inplace=True), lambda x: U * ((x > -1) & (x < 1))),
    ("relu6", lambda x: F.relu6(x * 3), lambda x: 3 * U * ((3 * x > 0) & (3 * x < 6))),
    ("threshold", lambda x: F.threshold(x, 0.1, -4.0), lambda x: U * (x > 0.1)),
    ("hardshrink", F.hardshrink, lambda x: U * (np.abs(x) > 0.5)),
    ("softshrink", F.softshrink, lambda x: U * (np.abs(x) > 0.5)),
    ("prelu", lambda x: F.prelu(x, tl.tensor([0.25], dtype=tl.float64, device=x.device)),
     lambda x: U * np.where(x > 0, 1, 0.25)),
    ("rrelu eval", lambda x: F.rrelu(x), lambda x: U * np.where(x > 0, 1, (1 / 8 + 1 / 3) / 2)),
    ("nll_loss", lambda x: F.nll_loss(x, tl.tensor(TARGET, device=x.device), reduction="none")[:, None].expand(2, 5),
     lambda x: -np.eye(5)[TARGET] * U.sum(1, keepdims=True)),
    ("reflect pad", lambda x: F.pad(x[None], (1, 1), mode="reflect")[..., 1:-1], lambda x: U),
    ("replicate pad", lambda x: F.pad(x[None], (1, 1), mode="replicate")[..., 1:-1], lambda x: U),
]


@pytest.mark.parametrize("name, fn, first", CASES, ids=[c[0] for c in CASES])
def test_second_derivative_through_a_piecewise_linear_op_is_zero(name, fn, first, device):
    x = tl.tensor(X, requires_grad=True, device=device)
    u = tl.tensor(U, device=device)
    (g,) = tl.autograd.grad((fn(x) * u).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().cpu().numpy(), first(X), atol=1e-12)
    assert g.requires_grad  # recorded as depending on x
    (gg,) = tl.autograd.grad((g * u).sum(), x)
    assert gg.shape == x.shape and gg.dtype == x.dtype
    np.testing.assert_array_equal(gg.cpu().numpy(), np.zeros_like(X))


def test_first_order_backward_records_nothing_more():
    """Without create_graph the gradients are plain tensors: the extra edge costs nothing there."""
    x = tl.tensor(X, requires_grad=True)
    (g,) = tl.autograd.grad(F.leaky_relu(x).sum(), x)
    assert not g.requires_grad and g.grad_fn is None
    (g,) = tl.autograd.grad(F.hardshrink(x).sum(), x)
    assert not g.requires_grad and g.grad_fn is None
    assert F.hardshrink(x.detach()).grad_fn is None


def test_relu_network_input_hessian_is_zero_and_weight_gradients_of_the_penalty_are_right(device):
    """A physics-informed style second derivative d2u/dx2 through a leaky-ReLU MLP (0, as PyTorch),
    and the gradient penalty's gradient for the weights, against its closed form."""
    rng = np.random.default_rng(0)
    w1, w2 = rng.normal(size=(1, 6)), rng.normal(size=(6, 1))
    x0 = rng.normal(size=(4, 1))

    def net_input_grad(x, a, b):
        (g,) = tl.autograd.grad((F.leaky_relu(x @ a, 0.1) @ b).sum(), x, create_graph=True)
        return g

    x = tl.tensor(x0, requires_grad=True, device=device)
    a = tl.tensor(w1, requires_grad=True, device=device)
    b = tl.tensor(w2, requires_grad=True, device=device)
    g = net_input_grad(x, a, b)
    (d2,) = tl.autograd.grad(g.sum(), x, retain_graph=True)
    np.testing.assert_array_equal(d2.cpu().numpy(), np.zeros_like(x0))
    penalty = (g * g).sum()
    ga, gb = tl.autograd.grad(penalty, (a, b))
    slope = np.where(x0 @ w1 > 0, 1.0, 0.1)
    expected_g = (slope * w2.T) @ w1.T  # d(sum f)/dx per row, shape (4, 1)
    np.testing.assert_allclose(g.detach().cpu().numpy(), expected_g, rtol=1e-12)
    np.testing.assert_allclose(ga.cpu().numpy(), (2 * expected_g * (slope * w2.T)).sum(0, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(gb.cpu().numpy(), (2 * expected_g * (slope * w1)).sum(0)[:, None], rtol=1e-12)


def test_a_later_in_place_write_to_the_input_is_caught_as_pytorch():
    """The recorded edge keeps the input (PyTorch's hardshrink/pad/prelu backward saves it too): an
    in-place write to it before backward raises instead of giving a gradient from other values."""
    x = tl.tensor(X, requires_grad=True)
    h = x * 1
    y = F.hardshrink(h)
    h.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
