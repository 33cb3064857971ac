"""tensorlab.linalg and tensorlab.special: PyTorch's names over ops tensorlab has. Values are
numpy's (or torch 2.13's, noted), on each device; errors are torch 2.13's."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy

A = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.5]])


def _t(values, device, dtype=None):
    return tl.tensor(values, dtype=dtype, device=device)


def test_vector_and_matrix_norms(device):
    a = _t(A, device)
    for ord in (2, 1, 0, 3.5, -1, math.inf, -math.inf):
        np.testing.assert_allclose(to_numpy(tl.linalg.vector_norm(a, ord)), np.linalg.norm(A.ravel(), ord), rtol=1e-6)
        np.testing.assert_allclose(to_numpy(tl.linalg.vector_norm(a, ord, dim=1, keepdim=True)),
                                   np.linalg.norm(A, ord, axis=1, keepdims=True), rtol=1e-6)
    assert tl.linalg.vector_norm(a, dtype=tl.float64).dtype is tl.float64
    for ord in ("fro", 1, -1, math.inf, -math.inf):
        np.testing.assert_allclose(to_numpy(tl.linalg.matrix_norm(a, ord)), np.linalg.norm(A, ord), rtol=1e-6)
        np.testing.assert_allclose(to_numpy(tl.linalg.matrix_norm(a, ord, dim=(1, 0), keepdim=True)),
                                   np.linalg.norm(A.T, ord, keepdims=True), rtol=1e-6)
    batch = np.stack([A, -2 * A])
    np.testing.assert_allclose(to_numpy(tl.linalg.matrix_norm(_t(batch, device), 1)),
                               [np.linalg.norm(m, 1) for m in batch], rtol=1e-6)
    # linalg.norm: a vector norm without ord or with one dim, a matrix norm for 2-d with ord
    np.testing.assert_allclose(to_numpy(tl.linalg.norm(a)), np.linalg.norm(A), rtol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.linalg.norm(a, 1)), 9.5, rtol=1e-6)  # max column sum
    np.testing.assert_allclose(to_numpy(tl.linalg.norm(a, 1, dim=1)), [6.0, 15.5], rtol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.linalg.norm(_t([3.0, -4.0], device), math.inf)), 4.0)
    # empty matrices, torch 2.13's values: 0 for the positive orders; amin over nothing raises
    assert to_numpy(tl.linalg.matrix_norm(tl.empty(0, 3, device=device), math.inf)).tolist() == 0.0
    assert to_numpy(tl.linalg.matrix_norm(tl.empty(0, 3, device=device), -1)).tolist() == 0.0
    with pytest.raises(IndexError, match="amin\\(\\): Expected reduction dim 0 to have non-zero size"):
        tl.linalg.matrix_norm(tl.empty(0, 3, device=device), -math.inf)


def test_norm_orders_and_var_corrections_as_pytorch_scalars(device):
    # torch 2.15's Scalar arguments take numpy numbers, 0-d tensors and bools (True is 1): these
    # were TypeErrors
    x = _t(np.arange(12.0).reshape(3, 4) - 5, device)
    xs = np.arange(12.0).reshape(3, 4) - 5
    assert math.isclose(tl.linalg.vector_norm(x, tl.tensor(3.0)).item(), (np.abs(xs) ** 3).sum() ** (1 / 3),
                        rel_tol=1e-6)
    assert math.isclose(tl.linalg.vector_norm(x, np.int64(1)).item(), 36.0)
    assert math.isclose(tl.norm(x, p=tl.tensor(2.0)).item(), math.sqrt((xs**2).sum()), rel_tol=1e-6)
    assert tl.norm(x, p=True).item() == 36.0
    assert math.isclose(tl.std(x, correction=np.int64(0)).item(), xs.std(), rel_tol=1e-6)
    assert np.allclose(to_numpy(tl.var(x, 1, correction=tl.tensor(1))), xs.var(1, ddof=1))
    assert math.isclose(tl.var(x, correction=True).item(), xs.var(ddof=1), rel_tol=1e-6)
    for call in (lambda: tl.norm(x, p=tl.ones(2)), lambda: tl.linalg.vector_norm(x, 1j),
                 lambda: tl.var(x, correction="a")):
        with pytest.raises(TypeError):
            call()


def test_norm_errors(device):
    a = _t(A, device)
    with pytest.raises(RuntimeError, match="linalg.vector_norm: Expected a floating point or complex tensor as "
                                           "input. Got Long"):
        tl.linalg.vector_norm(_t([1, 2], device))
    with pytest.raises(TypeError, match="argument 'ord' \\(position 2\\) must be Number, not str"):
        tl.linalg.vector_norm(a, "fro")
    with pytest.raises(RuntimeError, match="dtype should be floating point or complex, but got Long"):
        tl.linalg.vector_norm(a, dtype=tl.int64)
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: Order 3 not supported."):
        tl.linalg.matrix_norm(a, 3)
    with pytest.raises(RuntimeError, match="The input tensor A must have at least 2 dimensions."):
        tl.linalg.matrix_norm(_t([1.0], device))
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: dims must be different. Got \\(0, 0\\)"):
        tl.linalg.matrix_norm(a, dim=(0, 0))
    with pytest.raises(RuntimeError, match="linalg.matrix_norm: dim must be a 2-tuple. Got 1"):
        tl.linalg.norm(a, "fro", dim=1)
    with pytest.raises(NotImplementedError, match="singular values"):
        tl.linalg.matrix_norm(a, "nuc")
    with pytest.raises(RuntimeError, match="If dim is not specified but ord is, the input must be 1D or 2D. Got 3D."):
        tl.linalg.norm(tl.ones(2, 2, 2, device=device), 2)
    with pytest.raises(RuntimeError, match="If dim is specified, it must be of length 1 or 2. Got \\[0, 1, 2\\]"):
        tl.linalg.norm(tl.ones(2, 2, 2, device=device), dim=(0, 1, 2))


def test_vecdot_cross_diagonal_matmul(device):
    x = _t(A, device, tl.float32)
    np.testing.assert_allclose(to_numpy(tl.linalg.vecdot(x, _t([1.0, 2.0, 3.0], device))), A @ [1.0, 2.0, 3.0])
    np.testing.assert_allclose(to_numpy(tl.linalg.vecdot(x, x, dim=0)), (A * A).sum(0))
    with pytest.raises(RuntimeError, match="linalg.vecdot: Expected x and y to have the same dtype, but found x of "
                                           "type Float and y of type Double instead"):
        tl.linalg.vecdot(x, x.double())
    b = np.array([[0.5, 1.0, -1.0], [2.0, 0.0, 1.0]], dtype=np.float32)
    np.testing.assert_allclose(to_numpy(tl.linalg.cross(x, _t(b, device))), np.cross(A, b), rtol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.linalg.cross(x.t(), _t(b, device).t(), dim=0)),
                               np.cross(A, b).T, rtol=1e-6)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        tl.linalg.cross(x, _t(b, device, tl.float64))
    with pytest.raises(RuntimeError, match="linalg.cross: inputs must have the same number of dimensions."):
        tl.linalg.cross(x, _t(b[0], device))
    c = np.arange(24.0).reshape(2, 3, 4)
    assert to_numpy(tl.linalg.diagonal(_t(c, device), offset=1)).tolist() == np.diagonal(c, 1, -2, -1).tolist()
    np.testing.assert_allclose(to_numpy(tl.linalg.matmul(x, x.t())), A @ A.T, rtol=1e-6)


def test_multi_dot_of_three_equal_cost_matrices_multiplies_the_first_two_first(device):
    # PyTorch's rule for three matrices: (AB)C unless A(BC) is strictly cheaper; in float16 the order
    # shows (60000 * 2 overflows): torch.linalg.multi_dot gives [[inf]], A(BC) gave [[60000.]]
    a, b, c = (tl.tensor([[v]], dtype=tl.float16, device=device) for v in (60000.0, 2.0, 0.5))
    assert to_numpy(tl.linalg.multi_dot([a, b, c])).tolist() == [[float("inf")]]
    assert to_numpy(tl.linalg.multi_dot([a[0], b, c[:, 0]])).tolist() == float("inf")
    with pytest.warns(UserWarning, match="chain_matmul is deprecated"):
        assert to_numpy(tl.chain_matmul(a, b, c)).tolist() == [[float("inf")]]
    # four or more: the dynamic program, whose ties keep the first split (PyTorch: [[60000.]])
    assert to_numpy(tl.linalg.multi_dot([a, b, c, tl.ones(1, 1, dtype=tl.float16, device=device)])).tolist() == [
        [60000.0]]


def test_multi_dot(device):
    rng = np.random.default_rng(0)
    v, m1, m2, m3, w = (rng.standard_normal(s) for s in ((5,), (5, 1), (1, 6), (6, 2), (2,)))
    t = [_t(a, device, tl.float64) for a in (v, m1, m2, m3, w)]
    np.testing.assert_allclose(to_numpy(tl.linalg.multi_dot(t)), np.linalg.multi_dot([v, m1, m2, m3, w]), rtol=1e-12)
    assert tl.linalg.multi_dot(t).shape == ()
    np.testing.assert_allclose(to_numpy(tl.linalg.multi_dot(t[1:4])), m1 @ m2 @ m3, rtol=1e-12)
    assert tl.linalg.multi_dot(t[:4]).shape == (2,) and tl.linalg.multi_dot(t[1:]).shape == (5,)
    np.testing.assert_allclose(to_numpy(tl.linalg.multi_dot([t[0], t[0]])), v @ v, rtol=1e-12)
    z = tl.linalg.multi_dot([tl.ones(2, 3, device=device), tl.ones(3, 0, device=device), tl.ones(0, 2, device=device)])
    assert to_numpy(z).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    out = tl.empty(0, dtype=tl.float64, device=device)
    assert tl.linalg.multi_dot(t[1:4], out=out) is out and out.shape == (5, 2)
    # gradients through the chain (the order is the cheapest, the gradient the product's)
    a, b = (_t(x, device, tl.float64).requires_grad_() for x in (m1, m2))
    tl.linalg.multi_dot([a, b, t[3]]).sum().backward()
    np.testing.assert_allclose(to_numpy(a.grad), np.ones((5, 2)) @ (m2 @ m3).T, rtol=1e-12)
    np.testing.assert_allclose(to_numpy(b.grad), m1.T @ np.ones((5, 2)) @ m3.T, rtol=1e-12)
    for tensors, message in (
        ([t[0]], "multi_dot\\(\\): expected at least 2 tensors but got 1"),
        ([tl.ones(2, 3, 3, device=device), t[1]], "the first tensor must be 1D or 2D but got 3D"),
        ([t[1], tl.ones(1, 6, 1, device=device)], "the last tensor must be 1D or 2D but got 3D"),
        ([t[1], t[0], t[3]], "tensor 1 must be 2D but got 1D"),
        ([t[1], t[3]], "tensors 0 and 1 with shapes \\[5, 1\\] and \\[6, 2\\] cannot be multiplied"),
        ([t[1], t[2].float()], "all tensors must have be the same dtype but tensor 0 is double and tensor 1 float"),
    ):
        with pytest.raises(RuntimeError, match=message):
            tl.linalg.multi_dot(tensors)
    with pytest.raises(RuntimeError, match="expected out tensor to have dtype double but got float"):
        tl.linalg.multi_dot(t[1:3], out=tl.empty(5, 6, device=device))


def test_linalg_vander(device):
    # increasing powers along a new last dim, batched; integers exact in int64 (torch 2.15's values)
    x = _t([[1.5, -2.0], [3.0, 0.5]], device, tl.float64)
    want = np.stack([np.vander(r, 3, increasing=True) for r in [[1.5, -2.0], [3.0, 0.5]]])
    np.testing.assert_array_equal(to_numpy(tl.linalg.vander(x, N=3)), want)
    u = tl.linalg.vander(tl.tensor([200, 2], dtype=tl.uint8, device=device), N=3)
    assert u.dtype is tl.int64 and to_numpy(u).tolist() == [[1, 200, 40000], [1, 2, 4]]
    assert to_numpy(tl.linalg.vander(_t(2.0, device), N=3)).tolist() == [[1.0, 2.0, 4.0]]  # a 0-d x is one point
    assert tl.linalg.vander(_t([1.0, 2.0, 3.0], device)).shape == (3, 3)
    w = _t([-1.0, 2.0], device, tl.float64).requires_grad_()
    tl.linalg.vander(w, N=4).sum().backward()  # d/dx (x + x**2 + x**3) = 1 + 2x + 3x**2
    assert to_numpy(w.grad).tolist() == [2.0, 17.0]
    with pytest.raises(RuntimeError, match="^N must be greater than 1.$"):
        tl.linalg.vander(_t([1.0, 2.0], device), N=1)
    for dt, name in ((tl.bool, "Bool"), (tl.float16, "Half"), (tl.bfloat16, "BFloat16")):
        with pytest.raises(NotImplementedError, match=f"integer tensors, but got {name}$"):
            tl.linalg.vander(tl.ones(2, dtype=dt, device=device))


def test_special_aliases(device):
    x = np.array([-1.5, 0.0, 0.25, 2.0], dtype=np.float32)
    t = _t(x, device)
    np.testing.assert_allclose(to_numpy(tl.special.expit(t)), 1 / (1 + np.exp(-x)), rtol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.special.exp2(t)), np.exp2(x), rtol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.special.expm1(t)), np.expm1(x), rtol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.special.log1p(t.abs())), np.log1p(np.abs(x)), rtol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.special.erf(t)), [math.erf(v) for v in x], rtol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.special.erfc(t)), [math.erfc(v) for v in x], rtol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.special.erfinv(tl.special.erf(t))), x, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.special.logit(_t([0.25, 0.5], device))), [math.log(1 / 3), 0.0],
                               atol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.special.sinc(t)), np.sinc(x), rtol=1e-6)
    assert to_numpy(tl.special.round(_t([0.5, 1.5, 2.5], device))).tolist() == [0.0, 2.0, 2.0]
    np.testing.assert_allclose(to_numpy(tl.special.logsumexp(t, 0)), np.log(np.exp(x).sum()), rtol=1e-6)
    np.testing.assert_allclose(to_numpy(tl.special.softmax(t, 0)), np.exp(x) / np.exp(x).sum(), rtol=1e-6)
    assert tl.special.log_softmax(t, 0, dtype=tl.float64).dtype is tl.float64
    np.testing.assert_allclose(to_numpy(tl.special.xlogy(t, 2.0)), x * np.log(2.0), rtol=1e-6)
