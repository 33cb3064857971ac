"""Gradients where clamp, clamp_min/clamp_max, maximum/minimum and fmax/fmin have no derivative: at
a bound, at a tie, at a NaN. The values are PyTorch 2.15's (torch 2.15.0, cpu), which gives the
minimum-norm subgradient at a number bound (0, as relu and hardtanh; before 2.15 clamp gave 1) and
splits a tie between two tensors evenly (as maximum always did)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl

NAN = float("nan")
X = [0.0, 1.0, 0.5, -1.0, 2.0]
LO, HI = [0.0] * 5, [1.0] * 5

# (what, function of the differentiable tensors, their values, the gradient of each for sum().backward())
CASES = [
    ("clamp numbers", lambda x: x.clamp(0, 1), [X], [[0, 0, 1, 0, 0]]),
    ("clamp min number", lambda x: x.clamp(min=0), [X], [[0, 1, 1, 0, 1]]),
    ("clamp max number", lambda x: x.clamp(max=1.0), [X], [[1, 0, 1, 1, 0]]),
    ("clamp_min number", lambda x: x.clamp_min(0), [X], [[0, 1, 1, 0, 1]]),
    ("clamp_max number", lambda x: tl.clamp_max(x, 1), [X], [[1, 0, 1, 1, 0]]),
    ("clip numbers", lambda x: tl.clip(x, 0.0, 1.0), [X], [[0, 0, 1, 0, 0]]),
    ("clamp number min == max", lambda x: x.clamp(0.5, 0.5), [[0.0, 0.5, 1.0]], [[0, 0, 0]]),
    ("clamp number min > max", lambda x: x.clamp(1.0, 0.0), [[0.0, 0.5, 1.0]], [[0, 0, 0]]),
    ("clamp NaN number bound", lambda x: x.clamp(NAN, 1.0), [[0.5, 2.0]], [[0, 0]]),
    ("clamp_min tensor", lambda x, a: x.clamp_min(a), [X, LO], [[0.5, 1, 1, 0, 1], [0.5, 0, 0, 1, 0]]),
    ("clamp_max tensor", lambda x, b: x.clamp_max(b), [X, HI], [[1, 0.5, 1, 1, 0], [0, 0.5, 0, 0, 1]]),
    ("clamp min tensor", lambda x, a: x.clamp(min=a), [X, LO], [[0.5, 1, 1, 0, 1], [0.5, 0, 0, 1, 0]]),
    ("clamp_min tensor NaN", lambda x, a: x.clamp_min(a), [[NAN, 1.0, NAN, 2.0], [0.0, NAN, NAN, 2.0]],
     [[1, 1, 1, 0.5], [1, 1, 1, 0.5]]),
    ("clamp tensors", lambda x, a, b: x.clamp(a, b), [X, LO, HI],
     [[0.5, 0.5, 1, 0, 0], [0.5, 0, 0, 1, 0], [0, 0.5, 0, 0, 1]]),
    ("clamp tensors min == max", lambda x, a, b: x.clamp(a, b), [[0.0, 0.5, 1.0, -1.0, 2.0], [0.5] * 5, [0.5] * 5],
     [[0, 1, 0, 0, 0], [1, 0, 0, 1, 0], [0, 0, 1, 0, 1]]),
    ("clamp tensors min > max", lambda x, a, b: x.clamp(a, b), [[0.0, 1.0, 0.5, 2.0], [1.0] * 4, [0.0] * 4],
     [[0, 0, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1]]),
    ("clamp tensors NaN x", lambda x, a, b: x.clamp(a, b), [[NAN, NAN], [0.0, 1.0], [1.0, 0.0]],
     [[1, 1], [0, 0], [0, 1]]),
    ("clamp tensors NaN bounds", lambda x, a, b: x.clamp(a, b),
     [[0.5, 0.5, 2.0, -1.0, 0.5], [NAN, 0.0, NAN, NAN, NAN], [1.0, NAN, 1.0, 1.0, NAN]],
     [[1, 1, 0, 1, 1], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]]),
    ("maximum", lambda x, a: tl.maximum(x, a), [X, LO], [[0.5, 1, 1, 0, 1], [0.5, 0, 0, 1, 0]]),
    ("fmax", lambda x, a: tl.fmax(x, a), [[NAN, 1.0, NAN, 2.0, 0.0], [0.0, NAN, NAN, 2.0, 1.0]],
     [[0, 1, 1, 0.5, 0], [1, 0, 0, 0.5, 1]]),
    ("fmin", lambda x, a: tl.fmin(x, a), [[NAN, 1.0, NAN, 2.0, 0.0], [0.0, NAN, NAN, 2.0, 1.0]],
     [[0, 1, 1, 0.5, 1], [1, 0, 0, 0.5, 0]]),
    ("hardtanh", lambda x: tl.nn.functional.hardtanh(x, 0.0, 1.0), [X], [[0, 0, 1, 0, 0]]),
]


@pytest.mark.parametrize("device", ["cpu", "cuda"])
@pytest.mark.parametrize("what,fn,values,grads", CASES, ids=[c[0] for c in CASES])
def test_gradients_at_bounds_ties_and_nans_are_pytorchs(what, fn, values, grads, device):
    tensors = [tl.tensor(v, dtype=tl.float32, device=device, requires_grad=True) for v in values]
    fn(*tensors).sum().backward()
    for t, expected in zip(tensors, grads):
        np.testing.assert_array_equal(t.grad.cpu().numpy(), np.array(expected, dtype=np.float32), err_msg=what)


def test_a_tensor_bound_broadcast_gets_its_summed_share():
    """A broadcast tensor bound gets the sum of its shares (ties included) over the broadcast dims."""
    x = tl.tensor([[0.0, 1.0], [2.0, 0.0]], requires_grad=True)
    bound = tl.tensor([0.0], requires_grad=True)
    x.clamp_min(bound).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0.5, 1.0], [1.0, 0.5]])
    np.testing.assert_array_equal(bound.grad.numpy(), [1.0])


def _grad_of_grad(f, points, device):
    """(gradient, its derivative in the upstream gradient u, its derivative in x) at ``points``."""
    x = tl.tensor(points, dtype=tl.float64, device=device, requires_grad=True)
    u = tl.ones(len(points), dtype=tl.float64, device=device, requires_grad=True)
    (gx,) = tl.autograd.grad(f(x), x, u, create_graph=True)
    du = tl.autograd.grad(gx.sum(), u, retain_graph=True)[0]
    dx = tl.autograd.grad(gx.sum(), x, retain_graph=True, allow_unused=True)[0]
    return gx.tolist(), du.tolist(), None if dx is None else dx.tolist()


def test_second_derivatives_ignore_the_branch_a_gradient_drops(device):
    """A backward rule that picks a branch with where() must not let the dropped branch's inf or NaN
    reach the gradient's own derivatives as 0 * inf = NaN (PyTorch's values): the derivative in the
    upstream gradient is the selected partial, the one in x the selected branch's."""
    import tensorlab.nn.functional as F

    inf = float("inf")
    gx, du, dx = _grad_of_grad(F.elu, [710.0, 800.0, inf, 0.0, -1.0], device)
    assert du == gx == [1.0, 1.0, 1.0, 1.0, pytest.approx(np.exp(-1.0))]
    assert dx == [0.0, 0.0, 0.0, 0.0, pytest.approx(np.exp(-1.0))]  # 0 at x = 0, as PyTorch
    gx, du, dx = _grad_of_grad(F.selu, [800.0, -inf], device)
    assert du == gx == [pytest.approx(1.0507009873554805), 0.0] and dx == [0.0, 0.0]
    gx, du, dx = _grad_of_grad(F.hardswish, [inf, -inf, 1.0], device)
    assert du == gx == [1.0, 0.0, pytest.approx(5 / 6)] and dx == [0.0, 0.0, pytest.approx(1 / 3)]
    gx, du, dx = _grad_of_grad(lambda x: F.softplus(x, 2, 3), [1.5, 5.0], device)
    assert dx == [0.0, 0.0]  # at x * beta == threshold the slope is a constant, as PyTorch
    gx, _, _ = _grad_of_grad(lambda x: F.softplus(x, 2, 3), [float("nan")], device)
    assert np.isnan(gx[0])  # (a NaN's slope is NaN, not the threshold's)
    gx, du, dx = _grad_of_grad(lambda x: tl.copysign(x, 1.0), [0.0, -2.0], device)
    assert gx == du == [0.0, -1.0]
    gx, du, dx = _grad_of_grad(lambda x: 0 ** x, [1.0, 2.0], device)
    assert gx == du == [0.0, 0.0]
    a = tl.tensor([0.0, 0.0], dtype=tl.float64, device=device, requires_grad=True)
    b = tl.tensor([1.0, 2.0], dtype=tl.float64, device=device, requires_grad=True)
    u = tl.ones(2, dtype=tl.float64, device=device, requires_grad=True)
    ga, gb = tl.autograd.grad(a ** b, (a, b), u, create_graph=True)
    assert ga.tolist() == [1.0, 0.0] and gb.tolist() == [0.0, 0.0]
    assert tl.autograd.grad(ga.sum(), u, retain_graph=True)[0].tolist() == [1.0, 0.0]
    assert tl.autograd.grad(gb.sum(), u)[0].tolist() == [0.0, 0.0]


def test_in_place_elu_and_selu_second_derivative_at_zero(device):
    """elu_/selu_ read their gradient from the result (y + alpha where y <= 0): at x = +-0 the
    gradient is alpha, its derivative in x 0 as the out-of-place ops' (PyTorch 2.15's values)."""
    import tensorlab.nn.functional as F

    points = [-0.0, 0.0, -1.0, 1.0]
    gx, du, dx = _grad_of_grad(lambda x: F.elu(x * 1, alpha=0.5, inplace=True), points, device)
    assert gx == du == [0.5, 0.5, pytest.approx(0.18393972058572117), 1.0]
    assert dx == [0.0, 0.0, pytest.approx(0.18393972058572117), 0.0]
    gx, du, dx = _grad_of_grad(lambda x: F.selu(x * 1, inplace=True), points, device)
    assert gx == pytest.approx([1.7580993408473766, 1.7580993408473766, 0.6467686030348141, 1.0507009873554805])
    assert dx == [0.0, 0.0, pytest.approx(0.6467686030348141), 0.0]
