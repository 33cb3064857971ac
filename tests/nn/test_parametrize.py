"""tensorlab.nn.utils.parametrize (register_parametrization and friends), parametrizations.weight_norm /
spectral_norm, and the hook-based nn.utils.weight_norm / spectral_norm: values against numpy (g * v / ||v||,
the largest singular value from numpy.linalg.svd, the power iteration step by step), gradients by finite
differences, PyTorch's state dict keys, removal, cached(), copies, devices and the error cases."""

from __future__ import annotations

import copy
import pickle
import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab import nn
from tensorlab.nn.utils import parametrizations as PZ
from tensorlab.nn.utils import parametrize as P

CUDA = tl.cuda.is_available()
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not CUDA, reason="no cuda"))]


def _np(t):
    return np.asarray(t.detach().cpu().numpy()).astype(np.float64)


def _linear(w: np.ndarray, device="cpu", dtype=tl.float32) -> nn.Linear:
    """A Linear whose weight is ``w`` (any shape: the parametrizations only look at the tensor)."""
    m = nn.Linear(w.shape[1], w.shape[0]) if w.ndim == 2 else nn.Linear(2, 2)
    del m._parameters["weight"]
    m.weight = nn.Parameter(tl.tensor(w, dtype=dtype, device=device))
    m.bias = nn.Parameter(tl.zeros(w.shape[0], dtype=dtype, device=device))
    return m


def _ref_norm_except_dim(v: np.ndarray, dim) -> np.ndarray:
    if dim is None or dim == -1:
        return np.sqrt((v ** 2).sum())
    dim = dim % v.ndim
    axes = tuple(d for d in range(v.ndim) if d != dim)
    return np.sqrt((v ** 2).sum(axis=axes, keepdims=True))


class _Sym(nn.Module):
    """Symmetric matrices from their upper triangle."""

    def forward(self, X):
        return X.triu() + X.triu(1).transpose(-1, -2)

    def right_inverse(self, A):
        return A.triu()


class _Scale(nn.Module):
    def forward(self, X):
        return 2 * X

    def right_inverse(self, Y):
        return Y / 2


class _RankOne(nn.Module):
    def forward(self, x, y):
        return x.unsqueeze(-1) @ y.unsqueeze(-2)

    def right_inverse(self, Z):
        return Z[:, 0], Z[0, :]


class _PlusOne(nn.Module):  # no right_inverse: the identity at registration
    def forward(self, X):
        return X + 1


# ----------------------------------------------------------------------------------------------
# register_parametrization
# ----------------------------------------------------------------------------------------------
def test_register_swaps_class_and_keeps_the_original_tensor():
    w = np.arange(9.0).reshape(3, 3) / 7
    m = _linear(w)
    weight = m.weight
    out = P.register_parametrization(m, "weight", _Sym())
    assert out is m
    assert type(m).__name__ == "ParametrizedLinear" and isinstance(m, nn.Linear)
    assert P.type_before_parametrizations(m) is nn.Linear
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight") and not P.is_parametrized(m, "bias")
    assert not P.is_parametrized(nn.Linear(2, 2))
    # right_inverse applied at registration, into the same tensor object (optimizers keep it)
    assert m.parametrizations.weight.original is weight
    np.testing.assert_allclose(_np(weight), np.triu(w), rtol=1e-6)
    sym = np.triu(w) + np.triu(w, 1).T
    np.testing.assert_allclose(_np(m.weight), sym, rtol=1e-6)
    assert m.weight.grad_fn is not None
    assert [n for n, _ in m.named_parameters()] == ["bias", "parametrizations.weight.original"]
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original"]
    assert repr(m) == ("ParametrizedLinear(\n  in_features=3, out_features=3, bias=True\n"
                       "  (parametrizations): ModuleDict(\n"
                       "    (weight): ParametrizationList(\n      (0): _Sym()\n    )\n  )\n)")
    # another module's class is not touched
    assert type(nn.Linear(2, 2)) is nn.Linear and not hasattr(nn.Linear, "parametrizations")


def test_stacked_parametrizations_and_assignment():
    w = np.arange(9.0).reshape(3, 3) / 7
    m = _linear(w)
    P.register_parametrization(m, "weight", _Sym())
    P.register_parametrization(m, "weight", _Scale())
    assert len(m.parametrizations.weight) == 2
    np.testing.assert_allclose(_np(m.weight), 2 * (np.triu(w) + np.triu(w, 1).T), rtol=1e-6)
    # assignment goes through the right_inverses in reverse order, into the same original
    original = m.parametrizations.weight.original
    target = np.array([[1.0, 2, 3], [2, 4, 5], [3, 5, 6]])
    m.weight = tl.tensor(target, dtype=tl.float32)
    assert m.parametrizations.weight.original is original
    np.testing.assert_allclose(_np(original), np.triu(target) / 2)
    np.testing.assert_allclose(_np(m.weight), target)


def test_sequence_right_inverse_gives_original0_original1_and_removal():
    w = np.outer([1.0, 2, 3], [1.0, -1, 0.5])
    m = _linear(w)
    P.register_parametrization(m, "weight", _RankOne())
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    o0, o1 = m.parametrizations.weight.original0, m.parametrizations.weight.original1
    assert isinstance(o0, nn.Parameter) and isinstance(o1, nn.Parameter)
    np.testing.assert_allclose(_np(m.weight), np.outer(w[:, 0], w[0, :]), rtol=1e-6)
    with pytest.raises(ValueError, match="Cannot leave unparametrized"):
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
    P.remove_parametrizations(m, "weight")
    assert type(m) is nn.Linear and isinstance(m.weight, nn.Parameter) and m.weight.grad_fn is None
    np.testing.assert_allclose(_np(m.weight), np.outer(w[:, 0], w[0, :]), rtol=1e-6)
    assert list(m.state_dict()) == ["bias", "weight"]


def test_remove_parametrizations_leave_parametrized():
    w = np.arange(9.0).reshape(3, 3) / 7
    for leave, expected in ((True, np.triu(w) + np.triu(w, 1).T), (False, np.triu(w))):
        m = _linear(w)
        weight = m.weight
        P.register_parametrization(m, "weight", _Sym())
        P.register_parametrization(m, "bias", _PlusOne())
        P.remove_parametrizations(m, "weight", leave_parametrized=leave)
        assert m.weight is weight  # the same Parameter object back
        np.testing.assert_allclose(_np(m.weight), expected, rtol=1e-6)
        assert type(m).__name__ == "ParametrizedLinear"  # bias is still parametrized
        P.remove_parametrizations(m, "bias", leave_parametrized=leave)
        assert type(m) is nn.Linear and "parametrizations" not in m._modules
        np.testing.assert_allclose(_np(m.bias), np.full(3, 1.0 if leave else 0.0))
        assert list(m.state_dict()) == ["weight", "bias"]  # re-registered in removal order


def test_parametrized_buffer():
    m = nn.BatchNorm1d(3)
    P.register_parametrization(m, "running_var", _PlusOne())
    assert "parametrizations.running_var.original" in m.state_dict()
    assert [n for n, _ in m.named_buffers()][-1] == "parametrizations.running_var.original"
    np.testing.assert_allclose(_np(m.running_var), [2.0, 2, 2])
    P.remove_parametrizations(m, "running_var")
    assert "running_var" in m._buffers and list(m.state_dict())[-1] == "running_var"
    np.testing.assert_allclose(_np(m.running_var), [2.0, 2, 2])


def test_unsafe_allows_shape_change_and_is_sticky():
    class Flat(nn.Module):
        def forward(self, X):
            return X.flatten()

    m = nn.Linear(3, 2)
    P.register_parametrization(m, "weight", Flat(), unsafe=True)
    assert tuple(m.weight.shape) == (6,) and m.parametrizations.weight.unsafe
    P.register_parametrization(m, "weight", _Scale())
    assert m.parametrizations.weight.unsafe


def test_register_errors():
    class Twice(nn.Module):
        def forward(self, X):
            return tl.cat([X, X])

    class ToDouble(nn.Module):
        def forward(self, X):
            return X.double()

    class NotTensor(nn.Module):
        def forward(self, X):
            return 1.0

    class BadInverse(nn.Module):
        def forward(self, X):
            return X

        def right_inverse(self, X):
            return 3

    with pytest.raises(ValueError, match="a buffer, or a parametrized element with name 'foo'"):
        P.register_parametrization(nn.Linear(2, 2), "foo", _PlusOne())
    for module, match in ((Twice(), "may not change the shape"), (ToDouble(), "may not change the dtype"),
                          (NotTensor(), "must return a tensor"), (BadInverse(), "must return a Tensor or a Sequence")):
        m = nn.Linear(2, 2)
        weight = m.weight
        with pytest.raises(ValueError, match=match):
            P.register_parametrization(m, "weight", module)
        assert type(m) is nn.Linear and m.weight is weight  # nothing changed
    # the checks on a stacked parametrization
    m = P.register_parametrization(nn.Linear(2, 2), "weight", _PlusOne())
    with pytest.raises(ValueError, match=r"module.weight.shape"):
        P.register_parametrization(m, "weight", Twice())
    assert len(m.parametrizations.weight) == 1
    # assignment needs every right_inverse; a Parameter cannot replace the property
    with pytest.raises(RuntimeError, match="parametrization _PlusOne does not implement right_inverse"):
        m.weight = tl.zeros(2, 2)
    with pytest.raises(KeyError, match="attribute 'weight' already exists"):
        m.weight = nn.Parameter(tl.zeros(2, 2))
    with pytest.raises(ValueError, match="does not have a parametrization on bias"):
        P.remove_parametrizations(m, "bias")
    with pytest.raises(ValueError, match="ParametrizationList requires one or more modules"):
        P.ParametrizationList([], tl.zeros(2))


def test_cached():
    m = P.register_parametrization(_linear(np.eye(3)), "weight", _Sym())
    assert m.weight is not m.weight
    with P.cached():
        w = m.weight
        assert m.weight is w
        with P.cached():
            assert m.weight is w
        assert m.weight is w  # the inner exit keeps the cache
        other = copy.deepcopy(m)
        assert other.weight is not w  # keyed by module
    assert m.weight is not w and P._cache == {}


def test_deepcopy_is_independent_and_pickling_refused():
    m = P.register_parametrization(_linear(np.arange(4.0).reshape(2, 2)), "weight", _Sym())
    c = copy.deepcopy(m)
    assert type(c).__name__ == "ParametrizedLinear" and isinstance(c, nn.Linear)
    assert c.parametrizations.weight.original is not m.parametrizations.weight.original
    np.testing.assert_allclose(_np(c.weight), _np(m.weight))
    P.remove_parametrizations(c, "weight")
    assert type(c) is nn.Linear
    np.testing.assert_allclose(_np(m.weight), [[0.0, 1], [1, 3]])  # the original still parametrized
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules is only supported through "
                                           "state_dict"):
        pickle.dumps(m)


def test_state_dict_round_trip_and_optimizer():
    src = PZ.weight_norm(_linear(np.arange(6.0).reshape(2, 3) - 2))
    dst = PZ.weight_norm(_linear(np.ones((2, 3))))
    assert dst.load_state_dict(src.state_dict()).missing_keys == []
    np.testing.assert_allclose(_np(dst.weight), _np(src.weight), rtol=1e-6)
    # the optimizer updates the originals; the weight follows
    opt = tl.optim.SGD(dst.parameters(), lr=0.5)
    before = _np(dst.weight)
    (dst.weight * tl.tensor(np.arange(6.0).reshape(2, 3), dtype=tl.float32)).sum().backward()
    assert dst.parametrizations.weight.original0.grad is not None
    opt.step()
    assert not np.allclose(_np(dst.weight), before)


def test_to_and_cuda_keep_the_originals():
    m = PZ.weight_norm(_linear(np.arange(6.0).reshape(2, 3) + 1))
    o0 = m.parametrizations.weight.original0
    m.to(tl.float64)
    assert m.parametrizations.weight.original0 is o0 and m.weight.dtype == tl.float64
    if CUDA:
        m.cuda()
        assert m.parametrizations.weight.original0 is o0 and m.weight.device.type == "cuda"
        v = np.arange(6.0).reshape(2, 3) + 1
        np.testing.assert_allclose(_np(m.weight), v, rtol=1e-6)


def test_transfer_parametrizations_and_params():
    src = P.register_parametrization(_linear(np.arange(9.0).reshape(3, 3)), "weight", _Sym())
    dst = _linear(np.zeros((3, 3)))
    assert P.transfer_parametrizations_and_params(src, dst) is dst
    assert dst.parametrizations.weight.original is src.parametrizations.weight.original
    np.testing.assert_allclose(_np(dst.weight), _np(src.weight))
    plain = nn.Linear(2, 2)
    assert P.transfer_parametrizations_and_params(nn.Linear(2, 2), plain) is plain and type(plain) is nn.Linear


# ----------------------------------------------------------------------------------------------
# parametrizations.weight_norm
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape,dim", [((4, 3), 0), ((4, 3), 1), ((4, 3), None), ((2, 3, 2), 1), ((2, 3, 2), -2),
                                       ((2, 3, 2), 2), ((5,), 0)])
def test_weight_norm_values(device, shape, dim):
    rng = np.random.default_rng(1)
    w = rng.standard_normal(shape)
    m = PZ.weight_norm(_linear(w, device), dim=dim)
    g = m.parametrizations.weight.original0
    v = m.parametrizations.weight.original1
    ref_g = _ref_norm_except_dim(w, -1 if dim is None else dim)
    assert tuple(g.shape) == ref_g.shape
    np.testing.assert_allclose(_np(g), ref_g, rtol=1e-5)
    np.testing.assert_allclose(_np(m.weight), w, rtol=1e-5, atol=1e-6)
    new_g = rng.standard_normal(ref_g.shape)
    with tl.no_grad():
        g.copy_(tl.tensor(new_g, dtype=tl.float32, device=device))
    np.testing.assert_allclose(_np(m.weight), new_g * _np(v) / _ref_norm_except_dim(_np(v), -1 if dim is None else dim),
                               rtol=1e-5, atol=1e-6)


def test_weight_norm_keys_repr_and_positional_forms():
    m = PZ.weight_norm(nn.Linear(3, 4), "weight", 1)
    assert m.parametrizations.weight[0].dim == 1
    assert tuple(m.parametrizations.weight.original0.shape) == (1, 3)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0", "parametrizations.weight.original1"]
    assert "(0): _WeightNorm()" in repr(m)
    m = PZ.weight_norm(nn.Linear(3, 4), name="bias", dim=None)
    assert m.parametrizations.bias[0].dim == -1 and m.parametrizations.bias.original0.ndim == 0


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_gradcheck(dim):
    rng = np.random.default_rng(2)
    m = PZ.weight_norm(_linear(rng.standard_normal((3, 4)), dtype=tl.float64), dim=dim)
    pl = m.parametrizations.weight
    assert tl.autograd.gradcheck(lambda g, v: m.weight, (pl.original0, pl.original1))


def test_weight_norm_loads_the_hook_based_state_dict():
    w = np.arange(6.0).reshape(2, 3) - 2.5
    with pytest.warns(FutureWarning):
        old = nn.utils.weight_norm(_linear(w))
    with tl.no_grad():
        old.weight_g.mul_(3)
    new = PZ.weight_norm(_linear(np.ones((2, 3))))
    assert list(old.state_dict()) == ["bias", "weight_g", "weight_v"]
    new.load_state_dict(old.state_dict())
    np.testing.assert_allclose(_np(new.weight), 3 * w, rtol=1e-6)


def test_weight_norm_bad_dim():
    m = nn.Linear(2, 2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        PZ.weight_norm(m, dim=3)
    assert type(m) is nn.Linear


# ----------------------------------------------------------------------------------------------
# parametrizations.spectral_norm
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("shape,dim", [((5, 3), None), ((3, 5), 1), ((2, 3, 2), 2), ((2, 3, 2), -2)])
def test_spectral_norm_sigma_matches_svd(device, shape, dim):
    tl.manual_seed(0)
    rng = np.random.default_rng(3)
    w = rng.standard_normal(shape)
    m = PZ.spectral_norm(_linear(w, device), n_power_iterations=40, dim=dim)
    sn = m.parametrizations.weight[0]
    assert sn.dim == (0 if dim is None else dim % len(shape))
    weight = _np(m.weight)  # training mode: 40 more iterations
    mat = np.moveaxis(w, sn.dim, 0).reshape(w.shape[sn.dim], -1)
    sigma = np.linalg.svd(mat, compute_uv=False)[0]
    np.testing.assert_allclose(weight, w / sigma, rtol=1e-4)
    np.testing.assert_allclose(np.linalg.svd(np.moveaxis(weight, sn.dim, 0).reshape(mat.shape), compute_uv=False)[0],
                               1.0, rtol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_spectral_norm_power_iteration_step(device):
    rng = np.random.default_rng(4)
    w = rng.standard_normal((3, 4))
    m = PZ.spectral_norm(_linear(w, device))
    sn = m.parametrizations.weight[0]
    u0, v0 = rng.standard_normal(3), rng.standard_normal(4)
    u_buf, v_buf = sn._u, sn._v
    with tl.no_grad():
        sn._u.copy_(tl.tensor(u0, dtype=tl.float32, device=device))
        sn._v.copy_(tl.tensor(v0, dtype=tl.float32, device=device))
    weight = _np(m.weight)
    u1 = w @ v0
    u1 /= np.linalg.norm(u1)
    v1 = w.T @ u1
    v1 /= np.linalg.norm(v1)
    assert sn._u is u_buf and sn._v is v_buf  # updated in place
    np.testing.assert_allclose(_np(sn._u), u1, rtol=1e-5)
    np.testing.assert_allclose(_np(sn._v), v1, rtol=1e-5)
    np.testing.assert_allclose(weight, w / (u1 @ w @ v1), rtol=1e-5)
    # eval mode: no iteration
    m.eval()
    assert not sn.training
    np.testing.assert_allclose(_np(m.weight), w / (u1 @ w @ v1), rtol=1e-5)
    np.testing.assert_allclose(_np(sn._u), u1, rtol=1e-5)


def test_spectral_norm_1d_keys_and_errors():
    m = PZ.spectral_norm(nn.Linear(3, 4), name="bias")
    b = _np(m.parametrizations.bias.original)
    np.testing.assert_allclose(_np(m.bias), b / np.linalg.norm(b), rtol=1e-6)
    assert list(m.state_dict()) == ["weight", "parametrizations.bias.original"]  # no u, v for a vector
    m = PZ.spectral_norm(nn.Linear(3, 4), "weight", 2, 1e-10, 1)
    sn = m.parametrizations.weight[0]
    assert (sn.n_power_iterations, sn.eps, sn.dim) == (2, 1e-10, 1)
    assert list(m.state_dict()) == ["bias", "parametrizations.weight.original", "parametrizations.weight.0._u",
                                    "parametrizations.weight.0._v"]
    assert tuple(sn._u.shape) == (3,) and tuple(sn._v.shape) == (4,)
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\] but got 2"):
        PZ.spectral_norm(nn.Linear(2, 2), dim=2)
    with pytest.raises(ValueError, match="n_power_iterations=0"):
        PZ.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(ValueError, match="has no parameter or buffer with name 'foo'"):
        PZ.spectral_norm(nn.Linear(2, 2), "foo")
    with pytest.raises(NotImplementedError, match="orthogonal"):
        PZ.orthogonal(nn.Linear(2, 2))


def test_spectral_norm_gradcheck():
    tl.manual_seed(0)
    rng = np.random.default_rng(5)
    m = PZ.spectral_norm(_linear(rng.standard_normal((3, 4)), dtype=tl.float64)).eval()
    assert tl.autograd.gradcheck(lambda w: m.weight, (m.parametrizations.weight.original,))


# ----------------------------------------------------------------------------------------------
# hook-based nn.utils.weight_norm / spectral_norm
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dim", [0, 1, None])
def test_legacy_weight_norm(device, dim):
    rng = np.random.default_rng(6)
    w = rng.standard_normal((4, 3))
    with pytest.warns(FutureWarning, match="`tensorlab.nn.utils.weight_norm` is deprecated"):
        m = nn.utils.weight_norm(_linear(w, device), dim=dim)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_g", "weight_v"]
    assert list(m.state_dict()) == ["bias", "weight_g", "weight_v"]
    ref_g = _ref_norm_except_dim(w, -1 if dim is None else dim)
    np.testing.assert_allclose(_np(m.weight_g), ref_g, rtol=1e-5)
    new_g = rng.standard_normal(ref_g.shape)
    with tl.no_grad():
        m.weight_g.copy_(tl.tensor(new_g, dtype=tl.float32, device=device))
    x = rng.standard_normal((2, 3))
    y = m(tl.tensor(x, dtype=tl.float32, device=device))  # the pre-hook recomputes weight
    expected_w = new_g * w / _ref_norm_except_dim(w, -1 if dim is None else dim)
    np.testing.assert_allclose(_np(m.weight), expected_w, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(_np(y), x @ expected_w.T, rtol=1e-5, atol=1e-5)
    y.sum().backward()
    assert m.weight_g.grad is not None and m.weight_v.grad is not None
    nn.utils.remove_weight_norm(m)
    assert isinstance(m.weight, nn.Parameter) and list(m.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(_np(m.weight), expected_w, rtol=1e-5, atol=1e-6)
    assert len(m._forward_pre_hooks) == 0


def test_legacy_weight_norm_gradcheck_and_errors():
    rng = np.random.default_rng(7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        m = nn.utils.weight_norm(_linear(rng.standard_normal((3, 2)), dtype=tl.float64), "weight", 1)
        fn = next(iter(m._forward_pre_hooks.values()))
        assert tl.autograd.gradcheck(lambda g, v: fn.compute_weight(m), (m.weight_g, m.weight_v))
        with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"):
            nn.utils.weight_norm(m)
        bad = nn.Linear(2, 2)
        with pytest.raises(IndexError, match="Dimension out of range"):
            nn.utils.weight_norm(bad, dim=3)
        assert "weight" in bad._parameters  # nothing changed
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        nn.utils.remove_weight_norm(nn.Linear(2, 2))


@pytest.mark.parametrize("device", DEVICES)
def test_legacy_spectral_norm(device):
    rng = np.random.default_rng(8)
    w = rng.standard_normal((3, 4))
    m = nn.utils.spectral_norm(_linear(w, device), n_power_iterations=1)
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    sd = m.state_dict()
    assert list(sd) == ["bias", "weight_orig", "weight_u", "weight_v"]
    assert sd._metadata[""]["spectral_norm"] == {"weight.version": 1}
    u0, v0 = rng.standard_normal(3), rng.standard_normal(4)
    u0 /= np.linalg.norm(u0)
    with tl.no_grad():
        m.weight_u.copy_(tl.tensor(u0, dtype=tl.float32, device=device))
        m.weight_v.copy_(tl.tensor(v0, dtype=tl.float32, device=device))
    x = rng.standard_normal((2, 4))
    y = m(tl.tensor(x, dtype=tl.float32, device=device))
    # the hook-based version updates v first, then u
    v1 = w.T @ u0
    v1 /= np.linalg.norm(v1)
    u1 = w @ v1
    u1 /= np.linalg.norm(u1)
    expected_w = w / (u1 @ w @ v1)
    np.testing.assert_allclose(_np(m.weight_u), u1, rtol=1e-5)
    np.testing.assert_allclose(_np(m.weight), expected_w, rtol=1e-5)
    np.testing.assert_allclose(_np(y), x @ expected_w.T, rtol=1e-5, atol=1e-5)
    y.sum().backward()
    assert m.weight_orig.grad is not None
    m.eval()
    m(tl.tensor(x, dtype=tl.float32, device=device))
    np.testing.assert_allclose(_np(m.weight_u), u1, rtol=1e-5)  # no iteration in eval mode
    m.load_state_dict(m.state_dict())
    nn.utils.remove_spectral_norm(m)
    assert list(m.state_dict()) == ["bias", "weight"] and isinstance(m.weight, nn.Parameter)
    np.testing.assert_allclose(_np(m.weight), expected_w, rtol=1e-5)
    assert not m._forward_pre_hooks and not m._state_dict_hooks and not m._load_state_dict_pre_hooks
    assert str(m.load_state_dict(m.state_dict())) == "<All keys matched successfully>"


def test_legacy_spectral_norm_gradcheck_and_errors():
    tl.manual_seed(0)
    m = nn.utils.spectral_norm(nn.Linear(4, 3).double(), "weight", 2, 1e-12, 1)
    fn = next(iter(m._forward_pre_hooks.values()))
    assert (fn.n_power_iterations, fn.dim) == (2, 1) and tuple(m.weight_u.shape) == (4,)
    assert tl.autograd.gradcheck(lambda w: fn.compute_weight(m, do_power_iteration=False), (m.weight_orig,))
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the same parameter weight"):
        nn.utils.spectral_norm(m)
    with pytest.raises(ValueError, match="n_power_iterations=0"):
        nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
    with pytest.raises(KeyError):
        nn.utils.spectral_norm(nn.Linear(2, 2), "foo")
    with pytest.raises(ValueError, match="spectral_norm of 'weight' not found in"):
        nn.utils.remove_spectral_norm(nn.Linear(2, 2))
    # a state dict from before version 1 (weight saved, no weight_v) needs a pseudo-inverse
    old = {"weight_orig": tl.ones(3, 4), "weight": tl.ones(3, 4), "weight_u": tl.ones(3), "bias": tl.zeros(3)}
    with pytest.raises(NotImplementedError, match="pseudo-inverse"):
        nn.utils.spectral_norm(nn.Linear(4, 3)).load_state_dict(old)


def test_a_parametrization_of_a_parametrization_original():
    class Skew(tl.nn.Module):
        def forward(self, x):
            a = x.triu(1)
            return a - a.T

    m = tl.nn.Linear(4, 4)
    P = tl.nn.utils.parametrize
    P.register_parametrization(m, "weight", Skew())
    P.register_parametrization(m.parametrizations.weight, "original", Skew())
    w = m.weight  # (the inner one's child 'parametrizations' is not a step of the outer chain)
    assert w.shape == (4, 4) and float((w + w.T).abs().max()) < 1e-6
