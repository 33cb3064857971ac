"""tensorlab.autograd.functional (vjp, jvp, jacobian, hessian, vhp, hvp): values against analytic
derivatives and central finite differences, the Tensor / tuple structure of arguments and results,
zeros vs strict errors for parts independent of the inputs, v checks, create_graph."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy

F = tl.autograd.functional
RNG = np.random.default_rng(0)
X = RNG.standard_normal(3)
A = RNG.standard_normal((3, 4))
W = RNG.standard_normal((4, 2))


def _t(values, device="cpu", requires_grad=False):
    return tl.tensor(np.asarray(values, dtype=np.float64), dtype=tl.float64, device=device,
                     requires_grad=requires_grad)


def _fd_jacobian(func, arrays, out_index=None, eps=1e-6):
    """Central differences of ``func`` (on float64 cpu tensors) with respect to each of ``arrays``:
    one array per input, shaped output.shape + input.shape."""
    def f(arrs):
        out = func(*(_t(a) for a in arrs))
        out = out[out_index] if out_index is not None else out
        return to_numpy(out)

    base = f(arrays)
    jacs = []
    for j, a in enumerate(arrays):
        jac = np.zeros(base.shape + a.shape)
        for idx in np.ndindex(a.shape):
            plus, minus = [x.copy() for x in arrays], [x.copy() for x in arrays]
            plus[j][idx] += eps
            minus[j][idx] -= eps
            jac[(..., *idx)] = (f(plus) - f(minus)) / (2 * eps)
        jacs.append(jac)
    return jacs


def _exp_sin(x):
    return x.exp() * x.sin()


def _matmul_tanh(x, w):
    return (x @ w).tanh()


def _poly(x):
    return (x ** 3 - 2 * x).sum()


def test_jacobian_analytic_and_finite_differences(device):
    x = _t(X, device)
    jac = F.jacobian(_exp_sin, x)
    assert isinstance(jac, tl.Tensor) and jac.shape == (3, 3) and jac.device == x.device
    np.testing.assert_allclose(to_numpy(jac), np.diag(np.exp(X) * (np.sin(X) + np.cos(X))), rtol=1e-12)
    ja, jw = F.jacobian(_matmul_tanh, (_t(A, device), _t(W, device)))
    assert ja.shape == (3, 2, 3, 4) and jw.shape == (3, 2, 4, 2)
    fa, fw = _fd_jacobian(_matmul_tanh, [A, W])
    np.testing.assert_allclose(to_numpy(ja), fa, atol=1e-8)
    np.testing.assert_allclose(to_numpy(jw), fw, atol=1e-8)
    assert not ja.requires_grad and not jw.requires_grad


def test_hessian_analytic_and_finite_differences(device):
    h = F.hessian(_poly, _t(X, device))
    np.testing.assert_allclose(to_numpy(h), np.diag(6 * X), rtol=1e-12)

    def f(x, y):
        return (2 * x ** 2 + 3 * y ** 2 + x * y.sum()).sum()

    (hxx, hxy), (hyx, hyy) = F.hessian(f, (_t(X, device), _t(X + 1, device)))
    np.testing.assert_allclose(to_numpy(hxx), 4 * np.eye(3))
    np.testing.assert_allclose(to_numpy(hxy), np.ones((3, 3)))
    np.testing.assert_allclose(to_numpy(hyx), np.ones((3, 3)))
    np.testing.assert_allclose(to_numpy(hyy), 6 * np.eye(3))


def test_hessian_matches_finite_differences_of_gradient():
    def f(x):
        return (x.exp() * x.sin()).sum()

    h = F.hessian(f, _t(A))
    assert h.shape == (3, 4, 3, 4)

    def gradient(x):
        return F.vjp(f, x)[1]

    (fd,) = _fd_jacobian(gradient, [A])
    np.testing.assert_allclose(to_numpy(h), fd, atol=1e-7)


def test_products_agree_with_the_jacobian_and_hessian(device="cpu"):
    def f(x, y):
        return (x.sin() * y, (x * y ** 2).sum())

    x, y = _t(X, device), _t(X[::-1] + 1, device)
    v_out = (_t([1.0, -2.0, 0.5], device), _t(1.5, device))
    v_in = (_t([0.3, 1.0, -1.0], device), _t([2.0, 0.0, 1.0], device))
    jac = [[to_numpy(j) for j in row] for row in F.jacobian(f, (x, y))]
    vo, vi = [to_numpy(v) for v in v_out], [to_numpy(v) for v in v_in]

    out, (gx, gy) = F.vjp(f, (x, y), v_out)
    assert isinstance(out, tuple) and len(out) == 2
    np.testing.assert_allclose(to_numpy(out[0]), np.sin(X) * (X[::-1] + 1))
    for j, g in enumerate((gx, gy)):
        expect = vo[0] @ jac[0][j] + vo[1] * jac[1][j]
        np.testing.assert_allclose(to_numpy(g), expect, rtol=1e-12)

    _, (jv0, jv1) = F.jvp(f, (x, y), v_in)
    np.testing.assert_allclose(to_numpy(jv0), jac[0][0] @ vi[0] + jac[0][1] @ vi[1], rtol=1e-12)
    np.testing.assert_allclose(to_numpy(jv1), jac[1][0] @ vi[0] + jac[1][1] @ vi[1], rtol=1e-12)

    def g(x, y):
        return (x.sin() * y ** 2).sum() + (x ** 2 * y).sum()

    hess = [[to_numpy(h) for h in row] for row in F.hessian(g, (x, y))]
    value, hv = F.hvp(g, (x, y), v_in)
    np.testing.assert_allclose(to_numpy(value), to_numpy(g(x, y)))
    _, vh = F.vhp(g, (x, y), v_in)
    for i in range(2):
        np.testing.assert_allclose(to_numpy(hv[i]), hess[i][0] @ vi[0] + hess[i][1] @ vi[1], rtol=1e-12)
        np.testing.assert_allclose(to_numpy(vh[i]), vi[0] @ hess[0][i] + vi[1] @ hess[1][i], rtol=1e-12)


def test_result_structure_follows_inputs_and_outputs():
    x, y = _t(X), _t(X + 1)
    # single input, tuple output (even of one element) -> a tuple
    jac = F.jacobian(lambda a: (a * 2,), x)
    assert isinstance(jac, tuple) and len(jac) == 1 and jac[0].shape == (3, 3)
    out, g = F.vjp(lambda a: (a * 2,), x, (_t(np.ones(3)),))
    assert isinstance(out, tuple) and isinstance(g, tl.Tensor)
    # tuple input, single output -> a tuple over inputs
    jx, jy = F.jacobian(lambda a, b: a * b, (x, y))
    np.testing.assert_allclose(to_numpy(jx), np.diag(X + 1))
    np.testing.assert_allclose(to_numpy(jy), np.diag(X))
    # a one-element tuple of inputs stays a tuple
    (h,) = F.hessian(_poly, (x,))
    assert isinstance(h, tuple) and h[0].shape == (3, 3)
    # a list is not a tuple: the inputs must be a Tensor or a tuple of Tensors
    with pytest.raises(TypeError, match="The inputs given to vjp must be either a Tensor or a tuple of Tensors but "
                                        "the given inputs has type <class 'list'>"):
        F.vjp(lambda a, b: a * b, [x, y])


def test_zero_dim_and_empty_inputs():
    s = _t(0.7)
    out, g = F.vjp(lambda a: a ** 2, s)
    assert out.shape == () and g.shape == ()
    np.testing.assert_allclose(to_numpy(g), 1.4)
    np.testing.assert_allclose(to_numpy(F.jvp(lambda a: a.sin(), s)[1]), np.cos(0.7))  # v defaults to 1
    np.testing.assert_allclose(to_numpy(F.hessian(lambda a: a.exp() * a, s)), np.exp(0.7) * 2.7)
    np.testing.assert_allclose(to_numpy(F.hvp(lambda a: a ** 3, s)[1]), 6 * 0.7)
    jac = F.jacobian(lambda a: a * _t([1.0, 2.0]), s)
    assert jac.shape == (2,)
    np.testing.assert_allclose(to_numpy(jac), [1.0, 2.0])

    e = _t(np.zeros(0))
    je, jx = F.jacobian(lambda a, b: a.sum() + b * 2, (e, _t(X)))
    assert je.shape == (3, 0) and jx.shape == (3, 3)
    np.testing.assert_allclose(to_numpy(jx), 2 * np.eye(3))
    (hee, hex_), (hxe, hxx) = F.hessian(lambda a, b: (a ** 2).sum() + (b ** 3).sum(), (e, _t(X)))
    assert hee.shape == (0, 0) and hex_.shape == (0, 3) and hxe.shape == (3, 0)
    np.testing.assert_allclose(to_numpy(hxx), np.diag(6 * X))
    _, (ve, vx) = F.vhp(lambda a, b: (a ** 2).sum() + (b ** 3).sum(), (e, _t(X)), (e, _t(np.ones(3))))
    assert ve.shape == (0,)
    np.testing.assert_allclose(to_numpy(vx), 6 * X)
    # an output with no elements: an empty Jacobian (PyTorch's stack of no rows raises here)
    assert F.jacobian(lambda a: a[:0] * 2, _t(X)).shape == (0, 3)


def test_independent_parts_are_zeros_or_strict_errors():
    x, y = _t(X), _t(X + 1)

    def only_x(a, b):
        return a * 2

    _, (gx, gy) = F.vjp(only_x, (x, y), _t(np.ones(3)))
    np.testing.assert_allclose(to_numpy(gx), 2 * np.ones(3))
    np.testing.assert_allclose(to_numpy(gy), np.zeros(3))
    jx, jy = F.jacobian(only_x, (x, y))
    np.testing.assert_allclose(to_numpy(jy), np.zeros((3, 3)))
    np.testing.assert_allclose(to_numpy(F.hessian(lambda a: (3 * a).sum(), x)), np.zeros((3, 3)))  # linear
    _, out = F.jvp(lambda a: (a * 2, _t([1.0])), x, _t(np.ones(3)))
    np.testing.assert_allclose(to_numpy(out[1]), [0.0])  # an output that does not depend on the input

    with pytest.raises(RuntimeError, match="The output of the user-provided function is independent of input 1"):
        F.vjp(only_x, (x, y), _t(np.ones(3)), strict=True)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function is independent of input 1"):
        F.jacobian(only_x, (x, y), strict=True)
    with pytest.raises(RuntimeError, match="Output 0 of the user-provided function does not require gradients"):
        F.jacobian(lambda a: _t([1.0, 2.0]), x, strict=True)
    with pytest.raises(RuntimeError, match="The output of the user-provided function is independent of input 1"):
        F.jvp(only_x, (x, y), (_t(np.ones(3)), _t(np.ones(3))), strict=True)
    with pytest.raises(RuntimeError, match="the jacobian of the user-provided function with respect to input 0 is "
                                           "independent of the input"):
        F.hessian(lambda a: (3 * a).sum(), x, strict=True)
    with pytest.raises(RuntimeError, match="the jacobian of the user-provided function with respect to input 0"):
        F.hvp(lambda a: (3 * a).sum(), x, _t(np.ones(3)), strict=True)
    with pytest.raises(RuntimeError, match="The jacobian of the user-provided function is independent of input 0. "
                                           "This is not allowed in strict mode when create_graph=True"):
        F.jacobian(lambda a: 3 * a, _t(X, requires_grad=True), create_graph=True, strict=True)


def test_argument_errors():
    x = _t(X)
    with pytest.raises(RuntimeError, match="The vector v can only be None if the user-provided function returns a "
                                           "single Tensor with a single element"):
        F.vjp(_exp_sin, x)
    with pytest.raises(RuntimeError, match="The vector v can only be None if the input to the user-provided "
                                           "function is a single Tensor with a single element"):
        F.jvp(_exp_sin, x)
    with pytest.raises(RuntimeError, match="v has invalid size: should be "):
        F.vjp(_exp_sin, x, _t([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="Entry 1 in v has invalid size"):
        F.vhp(lambda a, b: (a * b).sum(), (x, x), (_t(np.ones(3)), _t([1.0])))
    with pytest.raises(RuntimeError, match="v is a tuple of invalid length: should be 2 but got 1"):
        F.jvp(lambda a, b: a * b, (x, x), (_t(np.ones(3)),))
    with pytest.raises(RuntimeError, match="The given v should contain a single Tensor"):
        F.hvp(_poly, x, (_t(np.ones(3)), _t(np.ones(3))))
    with pytest.raises(TypeError, match="The inputs given to jacobian must be either a Tensor or a tuple of Tensors "
                                        "but the value at index 1 has type <class 'int'>"):
        F.jacobian(_exp_sin, (x, 2))
    with pytest.raises(TypeError, match="The v given to vjp must be either a Tensor or a tuple of Tensors"):
        F.vjp(_exp_sin, x, [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="The outputs of the user-provided function given to vjp must be"):
        F.vjp(lambda a: 3.0, x)
    with pytest.raises(RuntimeError, match="The function given to hessian should return a single Tensor"):
        F.hessian(lambda a: ((a ** 3).sum(),), x)
    with pytest.raises(RuntimeError, match="The Tensor returned by the function given to hvp should contain a "
                                           "single element"):
        F.hvp(lambda a: a ** 3, x, _t(np.ones(3)))
    with pytest.raises(AssertionError, match='Expected strategy to be either "forward-mode" or "reverse-mode"'):
        F.jacobian(_exp_sin, x, strategy="sideways")
    with pytest.raises(NotImplementedError, match="forward-mode AD, which tensorlab does not have"):
        F.jacobian(_exp_sin, x, strategy="forward-mode")
    with pytest.raises(NotImplementedError, match="forward-mode AD, which tensorlab does not have"):
        F.hessian(_poly, x, outer_jacobian_strategy="forward-mode")
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not supported together"):
        F.jacobian(_exp_sin, x, vectorize=True, strict=True)


def test_vectorize_gives_the_same_values():
    x, y = _t(X), _t(X + 1)

    def f(a, b):
        return (a * b, a.sin().sum())

    for loop, vec in zip(F.jacobian(f, (x, y)), F.jacobian(f, (x, y), vectorize=True)):
        for p, q in zip(loop, vec):
            np.testing.assert_array_equal(to_numpy(p), to_numpy(q))
    np.testing.assert_array_equal(to_numpy(F.hessian(_poly, x, vectorize=True)), np.diag(6 * X))


def test_create_graph_allows_a_further_backward(device):
    x = _t(X, device, requires_grad=True)
    h = F.hessian(_poly, x, create_graph=True)
    assert h.requires_grad
    (g,) = tl.autograd.grad(h.sum(), x)  # d/dx sum(diag(6x)) = 6
    np.testing.assert_allclose(to_numpy(g), 6 * np.ones(3))

    v = _t([1.0, 2.0, 3.0], device)
    out, jv = F.jvp(_exp_sin, x, v, create_graph=True)
    assert out.requires_grad and jv.requires_grad
    (g,) = tl.autograd.grad(jv.sum(), x)  # jv = f'(x) v, so d/dx = f''(x) v
    fpp = 2 * np.exp(X) * np.cos(X)
    np.testing.assert_allclose(to_numpy(g), fpp * to_numpy(v), rtol=1e-12)
    _, hv = F.hvp(_poly, x, v, create_graph=True)
    (g,) = tl.autograd.grad(hv.sum(), x)  # hv = 6 x v
    np.testing.assert_allclose(to_numpy(g), 6 * to_numpy(v))

    # without create_graph nothing returned carries history, even for inputs that require grad
    out, vj = F.vjp(_exp_sin, x, v)
    assert not out.requires_grad and not vj.requires_grad and out.grad_fn is None
    # and under no_grad the final backward builds no graph either
    with tl.no_grad():
        _, jv = F.jvp(_exp_sin, x, v)
    assert not jv.requires_grad


def test_function_sees_fresh_inputs():
    """A tensor the function captures from outside is a constant, even when it is the very tensor
    passed as ``inputs`` (PyTorch's rule): d/da sum(a * x) = x."""
    x = _t(X, requires_grad=True)
    _, g = F.vjp(lambda a: (a * x).sum(), x)
    np.testing.assert_allclose(to_numpy(g), X)
    assert x.grad is None
