"""tensorlab.nn.functional (issue 5, layers and functional): values and gradients against
independent numpy formulas, on cpu (twins) and cuda (Triton kernels, interpreted without a GPU).

Covered: the fused layer_norm / rms_norm kernels (strided inputs, multi-dim normalized shapes,
half precision, the looped long-row path and the two-stage weight-gradient sum), double backward
through them; group_norm and batch_norm (running statistics); the Philox dropout (statistics,
mask regenerated in the backward, cpu/cuda bit equality, in place, views with many dims),
alpha/feature dropout; activations; linear/bilinear; embedding and embedding_bag; normalize,
cosine_similarity, pairwise_distance; pad in its four modes; and the errors users can cause.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn as nn
import tensorlab.nn.functional as F
from tensorlab_kernels.nn import layer_norm as kln
from tests.helpers import assert_close, to_numpy

CUDA = tl.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="no cuda device (real or interpreted)")
RNG = np.random.default_rng(20261122)


def _t(values, device="cpu", dtype=None, requires_grad=False):
    values = np.asarray(values)
    if dtype is None:
        dtype = tl.float64 if values.dtype.kind == "f" else tl.int64
    t = tl.tensor(values, dtype=dtype, device=device)
    return t.requires_grad_(True) if requires_grad else t


def _strided(values, device, dtype=tl.float32):
    """A non-contiguous view holding ``values`` (NaN in the gaps, so a stride bug shows)."""
    big = np.full(values.shape[:-1] + (values.shape[-1] * 2,), np.nan)
    big[..., ::2] = values
    return tl.tensor(big, dtype=dtype, device=device)[..., ::2]


# ----------------------------------------------------------------------------------------------
# layer_norm / rms_norm: numpy references (float64)
# ----------------------------------------------------------------------------------------------


def _norm_ref(x, w, b, k, eps, rms, g):
    """(y, dx, dw, db) for LayerNorm / RMSNorm over the last ``k`` dims, from the textbook formulas."""
    ax = tuple(range(x.ndim - k, x.ndim))
    lead = tuple(range(x.ndim - k))
    mu = 0.0 if rms else x.mean(ax, keepdims=True)
    var = (x * x).mean(ax, keepdims=True) if rms else ((x - mu) ** 2).mean(ax, keepdims=True)
    rstd = 1.0 / np.sqrt(var + eps)
    xhat = (x - mu) * rstd
    y = xhat * (w if w is not None else 1.0) + (b if b is not None else 0.0)
    gw = g * w if w is not None else g
    dx = gw - xhat * (gw * xhat).mean(ax, keepdims=True)
    if not rms:
        dx = dx - gw.mean(ax, keepdims=True)
    dx = dx * rstd
    return y, dx, (g * xhat).sum(lead), g.sum(lead)


NORM_CASES = [
    ((3, 5), 1, False, True),
    ((4, 3, 6), 2, False, True),
    ((2, 7, 33), 1, False, False),
    ((6, 17), 1, True, True),
    ((2, 3, 4), 2, True, False),
    ((1, 1), 1, False, True),
]


@pytest.mark.parametrize("shape,k,rms,affine", NORM_CASES)
def test_norms_match_numpy(device, shape, k, rms, affine):
    x = RNG.standard_normal(shape) * 3 + 1
    nshape = shape[len(shape) - k:]
    w = RNG.standard_normal(nshape) if affine else None
    b = RNG.standard_normal(nshape) if affine and not rms else None
    g = RNG.standard_normal(shape)
    xt = _t(x, device, tl.float32, requires_grad=True)
    wt = _t(w, device, tl.float32, requires_grad=True) if affine else None
    bt = _t(b, device, tl.float32, requires_grad=True) if b is not None else None
    eps = 1e-5
    y = F.rms_norm(xt, nshape, wt, eps=eps) if rms else F.layer_norm(xt, nshape, wt, bt, eps=eps)
    y.backward(_t(g, device, tl.float32))
    ry, rdx, rdw, rdb = _norm_ref(x, w, b, k, eps, rms, g)
    assert y.dtype is tl.float32 and y.device.type == device
    assert_close(y, ry, rtol=1e-5, atol=1e-5)
    assert_close(xt.grad, rdx, rtol=1e-4, atol=1e-5)
    if affine:
        assert_close(wt.grad, rdw, rtol=1e-4, atol=1e-5)
    if bt is not None:
        assert_close(bt.grad, rdb, rtol=1e-4, atol=1e-5)


def test_norms_read_strided_inputs(device):
    x = RNG.standard_normal((4, 3, 6))
    w, b = RNG.standard_normal(6), RNG.standard_normal(6)
    xs = _strided(x, device).requires_grad_(True)
    assert not xs.is_contiguous()
    y = F.layer_norm(xs, (6,), _t(w, device, tl.float32), _t(b, device, tl.float32))
    y.sum().backward()
    ry, rdx, _, _ = _norm_ref(x, w, b, 1, 1e-5, False, np.ones_like(x))
    assert_close(y, ry, rtol=1e-5, atol=1e-5)
    assert_close(xs.grad, rdx, rtol=1e-4, atol=1e-5)
    # a transposed input: rows and columns both strided; the incoming gradient is an expanded view
    xt = _t(x.transpose(0, 2, 1).copy(), device, tl.float32).transpose(1, 2).requires_grad_(True)
    y = F.rms_norm(xt, (6,))
    y.backward(tl.ones(6, device=device).expand(4, 3, 6))
    ry, rdx, _, _ = _norm_ref(x, None, None, 1, np.finfo(np.float32).eps, True, np.ones_like(x))
    assert_close(y, ry, rtol=1e-5, atol=1e-5)
    assert_close(xt.grad, rdx, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16, tl.float64])
def test_norms_dtypes(device, dtype):
    x = RNG.standard_normal((5, 40)).astype(dtype.np).astype(np.float64)
    w = RNG.standard_normal(40).astype(dtype.np).astype(np.float64)
    b = RNG.standard_normal(40).astype(dtype.np).astype(np.float64)
    xt = _t(x, device, dtype, requires_grad=True)
    wt, bt = _t(w, device, dtype, requires_grad=True), _t(b, device, dtype, requires_grad=True)
    y = F.layer_norm(xt, 40, wt, bt)
    y.backward(tl.ones_like(y))
    assert y.dtype is dtype and xt.grad.dtype is dtype and wt.grad.dtype is dtype
    ry, rdx, rdw, rdb = _norm_ref(x, w, b, 1, 1e-5, False, np.ones_like(x))
    tol = {tl.float16: 2e-3, tl.bfloat16: 2e-2, tl.float64: 1e-10}[dtype]
    # statistics are fp32 (fp64 for fp64): only the final rounding to the dtype is lost
    assert_close(y, ry, rtol=tol, atol=tol * 4)
    assert_close(xt.grad, rdx, rtol=tol, atol=tol * 4)
    assert_close(wt.grad, rdw, rtol=tol, atol=tol * 4)
    assert_close(bt.grad, rdb, rtol=tol, atol=tol * 4)


def test_norms_fp32_statistics_avoid_cancellation(device):
    # A large offset: in fp32, E[x^2] - E[x]^2 has an error of ~0.06 (the ulp of 1e6) against a
    # variance of 1e-4, so the output would be off by a factor of ~25 or NaN. The two-pass variance
    # only inherits the fp32 mean's rounding (~1e-4, 1% of the std).
    x = 1000.0 + RNG.standard_normal((3, 64)) * 0.01
    y = F.layer_norm(_t(x, device, tl.float32), (64,), eps=0.0)
    xr = x.astype(np.float32).astype(np.float64)
    ref = (xr - xr.mean(1, keepdims=True)) / xr.std(1, keepdims=True)
    assert_close(y, ref, rtol=3e-2, atol=3e-2)


@needs_cuda
@pytest.mark.parametrize("rms", [False, True])
def test_norm_kernel_long_rows_and_partial_sums(monkeypatch, rms):
    """The looped (long-row) paths and several backward programs, on the kernels, against the twins."""
    x = RNG.standard_normal((9, 37))
    w, b = RNG.standard_normal(37), RNG.standard_normal(37)
    g = RNG.standard_normal((9, 37))
    results = {}
    for device in ("cpu", "cuda"):
        for one_tile in ((True, False) if device == "cuda" else (True,)):
            monkeypatch.setattr(kln, "MAX_ONE_TILE", kln.MAX_ONE_TILE if one_tile else 8)
            monkeypatch.setattr(kln, "FORCE_PROGRAMS", 3)
            xt = _t(x, device, tl.float32, requires_grad=True)
            wt = _t(w, device, tl.float32, requires_grad=True)
            bt = None if rms else _t(b, device, tl.float32, requires_grad=True)
            y = F.rms_norm(xt, 37, wt, 1e-5) if rms else F.layer_norm(xt, 37, wt, bt)
            y.backward(_t(g, device, tl.float32))
            outs = (y, xt.grad, wt.grad) + ((bt.grad,) if bt is not None else ())
            results[(device, one_tile)] = [to_numpy(t) for t in outs]
    ref = _norm_ref(x, w, None if rms else b, 1, 1e-5, rms, g)
    for key, got in results.items():
        for a, r in zip(got, ref):
            np.testing.assert_allclose(a, r, rtol=1e-4, atol=1e-5, err_msg=str(key))


def test_norm_parameter_grads_without_input_grad(device):
    """A first layer: the input needs no gradient, so the backward computes only dweight/dbias."""
    x = RNG.standard_normal((6, 9))
    w, b = RNG.standard_normal(9), RNG.standard_normal(9)
    g = RNG.standard_normal((6, 9))
    for rms in (False, True):
        wt = _t(w, device, tl.float32, requires_grad=True)
        bt = None if rms else _t(b, device, tl.float32)  # bias without grad either
        xt = _t(x, device, tl.float32)
        y = F.rms_norm(xt, 9, wt, 1e-5) if rms else F.layer_norm(xt, 9, wt, bt)
        y.backward(_t(g, device, tl.float32))
        _, _, rdw, _ = _norm_ref(x, w, None if rms else b, 1, 1e-5, rms, g)
        assert xt.grad is None
        assert_close(wt.grad, rdw, rtol=1e-4, atol=1e-5)


def test_norm_weight_grad_is_deterministic(device):
    x = _t(RNG.standard_normal((64, 8)), device, tl.float32)
    w = _t(np.ones(8), device, tl.float32, requires_grad=True)
    grads = []
    for _ in range(2):
        w.grad = None
        F.layer_norm(x, 8, w).pow(2).sum().backward()
        grads.append(to_numpy(w.grad))
    assert np.array_equal(grads[0], grads[1])


def test_norms_gradcheck_and_double_backward():
    x = _t(RNG.standard_normal((3, 4)), requires_grad=True)
    w = _t(RNG.standard_normal(4), requires_grad=True)
    b = _t(RNG.standard_normal(4), requires_grad=True)
    assert tl.autograd.gradcheck(lambda a, c, d: F.layer_norm(a, 4, c, d), (x, w, b))
    assert tl.autograd.gradgradcheck(lambda a, c, d: F.layer_norm(a, 4, c, d), (x, w, b))
    assert tl.autograd.gradcheck(lambda a, c: F.rms_norm(a, 4, c), (x, w))
    assert tl.autograd.gradgradcheck(lambda a, c: F.rms_norm(a, 4, c), (x, w))
    assert tl.autograd.gradgradcheck(lambda a: F.layer_norm(a, (3, 4)), (x,))


def test_norm_graph_keeps_no_statistics_gradient():
    x = _t(RNG.standard_normal((2, 3)), requires_grad=True)
    y = F.layer_norm(x, 3)
    assert y.grad_fn.name() == "LayerNormBackward0"
    y.sum().backward()  # LayerNorm output sums to ~0 per row; d/dx of sum(y) is 0
    np.testing.assert_allclose(to_numpy(x.grad), 0.0, atol=1e-12)


def test_norm_empty_inputs(device):
    x = tl.zeros((0, 4), device=device, requires_grad=True)
    w = tl.ones(4, device=device, requires_grad=True)
    b = tl.zeros(4, device=device, requires_grad=True)
    y = F.layer_norm(x, 4, w, b)
    assert y.shape == (0, 4)
    y.sum().backward()
    assert_close(w.grad, np.zeros(4, np.float32))
    assert_close(b.grad, np.zeros(4, np.float32))


def test_norm_errors():
    x = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\], "
                                           r"but got input of size\[2, 3\]"):
        F.layer_norm(x, (4,))
    with pytest.raises(RuntimeError, match=r"Expected weight to be of same shape as normalized_shape, but got "
                                           r"weight of shape \[4\] and normalized_shape = \[3\]"):
        F.layer_norm(x, 3, tl.ones(4))
    with pytest.raises(RuntimeError, match="at least 1-dimensional"):
        F.layer_norm(x, ())
    with pytest.raises(RuntimeError, match=r"expected input with shape \[\*4\]"):
        F.rms_norm(x, 4)
    with pytest.raises(NotImplementedError, match="layer_norm"):
        F.layer_norm(tl.zeros(2, 3, dtype=tl.int64), 3)


def test_rms_norm_default_eps_is_the_compute_type_epsilon():
    x = np.full((1, 4), 1e-4)
    y32 = to_numpy(F.rms_norm(_t(x, dtype=tl.float32), 4))
    y64 = to_numpy(F.rms_norm(_t(x), 4))
    np.testing.assert_allclose(y32, 1e-4 / np.sqrt(1e-8 + np.finfo(np.float32).eps), rtol=1e-5)
    np.testing.assert_allclose(y64, 1e-4 / np.sqrt(1e-8 + np.finfo(np.float64).eps), rtol=1e-12)
    yb = to_numpy(F.rms_norm(_t(x, dtype=tl.bfloat16), 4)).astype(np.float64)  # eps of fp32, not of bf16
    np.testing.assert_allclose(yb, 1e-4 / np.sqrt(1e-8 + np.finfo(np.float32).eps), rtol=2e-2)


# ----------------------------------------------------------------------------------------------
# group_norm, batch_norm
# ----------------------------------------------------------------------------------------------


def test_group_norm_matches_numpy(device):
    x = RNG.standard_normal((2, 6, 5))
    w, b = RNG.standard_normal(6), RNG.standard_normal(6)
    xt = _t(x, device, requires_grad=True)
    y = F.group_norm(xt, 3, _t(w, device), _t(b, device), eps=1e-5)
    xg = x.reshape(2, 3, -1)
    ref = ((xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    ref = ref * w[None, :, None] + b[None, :, None]
    assert_close(y, ref, rtol=1e-10, atol=1e-10)
    if device == "cpu":
        wt, bt = _t(w, requires_grad=True), _t(b, requires_grad=True)
        assert tl.autograd.gradcheck(lambda a, c, d: F.group_norm(a, 2, c, d), (xt, wt, bt))


@pytest.mark.parametrize("shape", [(0, 4, 3), (0, 4)], ids=["batch0", "batch0-no-spatial"])
def test_group_norm_empty(device, shape):
    """An empty batch normalises to an empty tensor of the input's shape, as PyTorch; it raised in
    the reshape to (N, groups, -1), whose -1 is ambiguous. (Empty spatial dims raise: see errors.)"""
    w, b = RNG.standard_normal(4), RNG.standard_normal(4)
    xt = _t(np.zeros(shape), device, requires_grad=True)
    wt, bt = _t(w, device, requires_grad=True), _t(b, device, requires_grad=True)
    y = F.group_norm(xt, 2, wt, bt)
    assert tuple(y.shape) == shape and y.dtype == xt.dtype
    y.sum().backward()
    assert tuple(xt.grad.shape) == shape
    if shape[0] == 0:  # nothing to normalise: the affine's gradients are 0
        np.testing.assert_array_equal(to_numpy(wt.grad), np.zeros(4))
        np.testing.assert_array_equal(to_numpy(bt.grad), np.zeros(4))
    assert tuple(tl.nn.GroupNorm(2, 4).to(device)(_t(np.zeros(shape), device).float()).shape) == shape


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_group_norm_half_input_float32_affine_keeps_input_dtype(device, dtype):
    """A float16/bfloat16 input with float32 weight and bias (a module kept in float32 under mixed
    precision) gives a result in the input's dtype, as PyTorch and layer_norm: it came back float32."""
    x = RNG.standard_normal((2, 4, 3))
    w, b = RNG.standard_normal(4), RNG.standard_normal(4)
    xt = _t(x, device, dtype=dtype, requires_grad=True)
    wt = _t(w, device, dtype=tl.float32, requires_grad=True)
    bt = _t(b, device, dtype=tl.float32, requires_grad=True)
    y = F.group_norm(xt, 2, wt, bt)
    assert y.dtype == dtype
    xr = to_numpy(xt.float()).astype(np.float64).reshape(2, 2, -1)
    ref = ((xr - xr.mean(-1, keepdims=True)) / np.sqrt(xr.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    assert_close(y.float(), ref * w[None, :, None] + b[None, :, None], rtol=2e-2, atol=2e-2)
    y.float().sum().backward()
    assert xt.grad.dtype == dtype and wt.grad.dtype == tl.float32 and bt.grad.dtype == tl.float32
    assert_close(bt.grad, np.full(4, 6.0), rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_group_norm_half_rounds_once(device, dtype):
    """float16/bfloat16 with an affine: normalised and scaled in float32, then rounded once, as
    PyTorch (the normalised values were rounded, then each affine step: 2-3 times the error)."""
    x, w, b = RNG.standard_normal((2, 4, 8)) * 3, RNG.standard_normal(4) * 10, RNG.standard_normal(4) * 10
    xt, wt, bt = (_t(a, device, dtype=tl.float32).to(dtype) for a in (x, w, b))
    y = to_numpy(F.group_norm(xt, 2, wt, bt).float()).astype(np.float64)
    xr, wr, br = (to_numpy(a.double()) for a in (xt, wt, bt))
    g = xr.reshape(2, 2, -1)
    ref = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    ref = ref * wr[None, :, None] + br[None, :, None]
    # one rounding: within half a unit in the last place of each value (float32 noise aside)
    half_ulp = np.abs(ref) * tl.finfo(dtype).eps / 2
    assert (np.abs(y - ref) <= half_ulp * 1.01 + 1e-6).all()


def test_group_norm_errors():
    # torch 2.15 refuses no channels and empty spatial dims (they returned empty tensors)
    for shape, message in (((1, 0, 2), "number of channels to be greater than 0"), ((1, 2, 0), "HxW to be greater"),
                           ((0, 4, 0), "HxW to be greater")):
        with pytest.raises(RuntimeError, match=message):
            F.group_norm(tl.zeros(shape), 2 if shape[1] else 1)
    with pytest.raises(RuntimeError, match=r"divisible by num_groups, but got input of shape \[2, 5, 3\] and "
                                           r"num_groups=2"):
        F.group_norm(tl.zeros(2, 5, 3), 2)
    with pytest.raises(RuntimeError, match="Expected at least 2 dimensions"):
        F.group_norm(tl.zeros(5), 1)
    with pytest.raises(RuntimeError, match=r"weight of shape \[3\] and input of shape \[2, 4, 3\]"):
        F.group_norm(tl.zeros(2, 4, 3), 2, tl.ones(3))


def _bn_ref(x, mean, var, w, b, eps):
    shape = [1, x.shape[1]] + [1] * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(shape) + b.reshape(shape)


@pytest.mark.parametrize("shape", [(8, 3), (4, 3, 5)])
def test_batch_norm_training_updates_running_stats(device, shape):
    x = RNG.standard_normal(shape) * 2 + 0.5
    w, b = RNG.standard_normal(3), RNG.standard_normal(3)
    rm0, rv0 = RNG.standard_normal(3), RNG.random(3) + 0.5
    rm, rv = _t(rm0, device), _t(rv0, device)
    xt = _t(x, device, requires_grad=True)
    y = F.batch_norm(xt, rm, rv, _t(w, device), _t(b, device), training=True, momentum=0.3, eps=1e-5)
    axes = (0,) + tuple(range(2, x.ndim))
    n = x.size // 3
    mean, var = x.mean(axes), x.var(axes)  # the batch's biased variance normalises
    assert_close(y, _bn_ref(x, mean, var, w, b, 1e-5), rtol=1e-10, atol=1e-10)
    assert_close(rm, 0.7 * rm0 + 0.3 * mean, rtol=1e-12, atol=1e-12)
    assert_close(rv, 0.7 * rv0 + 0.3 * var * n / (n - 1), rtol=1e-12, atol=1e-12)  # unbiased for running_var
    y.sum().backward()  # gradients flow through the batch statistics: sum of a normalised batch is constant
    np.testing.assert_allclose(to_numpy(xt.grad), 0.0, atol=1e-10)


def test_batch_norm_eval_and_gradcheck(device):
    x = RNG.standard_normal((5, 3))
    rm, rv = RNG.standard_normal(3), RNG.random(3) + 0.5
    y = F.batch_norm(_t(x, device), _t(rm, device), _t(rv, device), training=False, eps=1e-3)
    assert_close(y, _bn_ref(x, rm, rv, np.ones(3), np.zeros(3), 1e-3), rtol=1e-10, atol=1e-10)
    if device == "cpu":
        xt = _t(x, requires_grad=True)
        wt, bt = _t(RNG.standard_normal(3), requires_grad=True), _t(RNG.standard_normal(3), requires_grad=True)
        assert tl.autograd.gradcheck(lambda a, c, d: F.batch_norm(a, None, None, c, d, training=True), (xt, wt, bt))
        assert tl.autograd.gradcheck(lambda a, c, d: F.batch_norm(a, _t(rm), _t(rv), c, d), (xt, wt, bt))


def test_batch_norm_errors():
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training, got input size "
                                         r"\[1, 3\]"):
        F.batch_norm(tl.zeros(1, 3), None, None, training=True)
    with pytest.raises(RuntimeError, match="running_mean should contain 3 elements not 4"):
        F.batch_norm(tl.zeros(4, 3), tl.zeros(4), tl.ones(4), training=True)
    with pytest.raises(RuntimeError, match="running_mean must be defined in evaluation mode"):
        F.batch_norm(tl.zeros(4, 3), None, None)
    rm = tl.zeros(3)
    with pytest.raises(RuntimeError, match="weight should contain 3 elements not 4"):
        F.batch_norm(tl.zeros(4, 3), rm, tl.ones(3), tl.ones(4), training=True)
    assert to_numpy(rm).tolist() == [0.0, 0.0, 0.0]  # nothing was modified
    # torch 2.15: one running statistic alone, or integer ones, are refused (the mean alone was
    # updated; integer statistics were truncated)
    for stats in ((rm, None), (None, tl.ones(3))):
        with pytest.raises(ValueError, match="running_mean and running_var must either both be None or neither"):
            F.batch_norm(tl.randn(4, 3), *stats, training=True)
    ri, vi = tl.zeros(3, dtype=tl.int64), tl.ones(3, dtype=tl.int64)
    with pytest.raises(RuntimeError, match="expected running_mean to have a floating point dtype, got Long"):
        F.batch_norm(tl.randn(4, 3) * 10, ri, vi, training=True, momentum=0.5)
    assert ri.tolist() == [0, 0, 0] and vi.tolist() == [1, 1, 1]
    x = tl.tensor([[1.0, 2.0], [1.0, 2.5]])
    for eps in (-1.0, 0.0):  # (training returned NaN for the constant channel, or everywhere)
        with pytest.raises(ValueError, match=f"batch_norm eps must be positive during training, but got {eps}"):
            nn.BatchNorm1d(2, eps=eps)(x)
    with pytest.raises(ValueError, match="batch_norm eps must be non-negative, but got -1.0"):
        F.batch_norm(x, tl.zeros(2), tl.ones(2), eps=-1.0)
    assert F.batch_norm(x, tl.zeros(2), tl.ones(2), eps=0.0).tolist() == x.tolist()  # eval: zero is allowed


# ----------------------------------------------------------------------------------------------
# dropout
# ----------------------------------------------------------------------------------------------


def test_dropout_statistics_and_backward_mask(device):
    tl.manual_seed(3)
    x = tl.ones(200, 50, device=device, requires_grad=True)
    y = F.dropout(x, 0.3)
    y.backward(tl.full((200, 50), 2.0, device=device))
    yn, gn = to_numpy(y), to_numpy(x.grad)
    keep = yn != 0
    assert abs(keep.mean() - 0.7) < 0.02  # 10000 Bernoulli(0.7): 4.5 standard deviations
    np.testing.assert_allclose(np.unique(yn[keep]), [np.float32(1 / 0.7)], rtol=1e-7)
    assert np.array_equal(gn != 0, keep)  # the backward regenerated the same mask
    np.testing.assert_allclose(gn[keep], 2 / 0.7, rtol=1e-6)
    assert y.grad_fn.name() == "DropoutBackward0"


def test_dropout_keeps_no_mask():
    x = tl.ones(100, requires_grad=True)
    y = F.dropout(x, 0.5)
    assert y.grad_fn.ctx._saved in ([], ())  # only (seed, offset, threshold, scale) are kept
    assert set(y.grad_fn.ctx.params) == {"seed", "offset", "threshold", "scale"}


@needs_cuda
def test_dropout_cpu_and_cuda_drop_the_same_elements():
    outs = []
    for device in ("cpu", "cuda"):
        tl.manual_seed(11)
        x = _t(RNG.standard_normal((37, 29)) if not outs else outs[0][1], device, tl.float32)
        outs.append((to_numpy(F.dropout(x, 0.45)), to_numpy(x)))
    assert np.array_equal(outs[0][0], outs[1][0])


def test_dropout_generator_reproduces_and_advances(device):
    tl.manual_seed(5)
    x = tl.ones(1000, device=device)
    a, b = to_numpy(F.dropout(x, 0.5)), to_numpy(F.dropout(x, 0.5))
    tl.manual_seed(5)
    assert np.array_equal(a, to_numpy(F.dropout(x, 0.5)))
    assert not np.array_equal(a, b)


def test_dropout_strided_inplace_and_many_dims(device):
    base = _t(RNG.standard_normal((6, 10)), device, tl.float32)
    v = base[:, ::2]
    tl.manual_seed(9)
    a = F.dropout(v, 0.5)
    tl.manual_seed(9)
    b = F.dropout(v.contiguous(), 0.5)
    assert np.array_equal(to_numpy(a), to_numpy(b))
    c = v.clone()
    tl.manual_seed(9)
    out = F.dropout(c, 0.5, inplace=True)
    assert out is c and np.array_equal(to_numpy(c), to_numpy(b))
    # eight dims that no stride pattern merges: the kernel runs in pieces, indices stay logical
    z = _t(RNG.standard_normal((2,) * 8), device, tl.float32).permute(7, 6, 5, 4, 3, 2, 1, 0)
    tl.manual_seed(2)
    p = F.dropout(z, 0.5)
    tl.manual_seed(2)
    q = F.dropout(z.contiguous(), 0.5)
    assert np.array_equal(to_numpy(p), to_numpy(q))


def test_dropout_inplace_on_an_intermediate_is_differentiable(device):
    x = tl.ones(6, 5, device=device, requires_grad=True)
    h = x * 2
    out = F.dropout(h, 0.5, inplace=True)
    assert out is h
    out.sum().backward()
    kept = to_numpy(h) != 0
    np.testing.assert_allclose(to_numpy(x.grad), np.where(kept, 4.0, 0.0))


def test_dropout_identity_cases_and_nan(device):
    x = _t([float("nan"), float("inf"), -1.0, 2.0], device, tl.float32)
    assert F.dropout(x, 0.0) is x and F.dropout(x, 0.7, training=False) is x
    y = to_numpy(F.dropout(x, 1.0))
    assert np.isnan(y[0]) and np.isnan(y[1]) and y[2] == 0 and np.signbit(y[2]) and y[3] == 0  # x * 0


def test_dropout_gradcheck():
    x = _t(RNG.standard_normal((4, 5)), requires_grad=True)

    def f(a):
        tl.manual_seed(1)
        return F.dropout(a, 0.4)

    assert tl.autograd.gradcheck(f, (x,))
    assert tl.autograd.gradgradcheck(f, (x,))


def test_dropout_errors():
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        F.dropout(tl.zeros(3), 1.5)
    with pytest.raises(RuntimeError, match="can't be cast"):
        F.dropout(tl.zeros(3, dtype=tl.int64), 0.5)
    leaf = tl.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        F.dropout(leaf, 0.5, inplace=True)


def test_alpha_dropout_keeps_mean_and_variance(device):
    tl.manual_seed(0)
    x = _t(RNG.standard_normal(20000), device, tl.float32)
    y = to_numpy(F.alpha_dropout(x, 0.2, training=True))
    assert abs(y.mean()) < 0.05 and abs(y.std() - 1) < 0.05
    alpha = 1.7580993408473766
    a = 1 / math.sqrt((alpha**2 * 0.2 + 1) * 0.8)
    dropped = np.isclose(y, alpha * a * (0.2 - 1), rtol=1e-6)
    assert abs(dropped.mean() - 0.2) < 0.02
    xn = to_numpy(x)
    np.testing.assert_allclose(y[~dropped], xn[~dropped] * a + alpha * a * 0.2, rtol=1e-5, atol=1e-6)  # x*a + b
    assert F.alpha_dropout(x, 0.2) is x  # training defaults to False
    assert F.alpha_dropout(x, 0.0, training=True) is x


def test_feature_dropout_drops_whole_channels(device):
    tl.manual_seed(4)
    x = tl.ones(8, 16, 3, 5, device=device)
    y = to_numpy(F.dropout2d(x, 0.5))
    per_channel = y.reshape(8, 16, -1)
    assert np.all((per_channel == 0).all(-1) | (per_channel == 2.0).all(-1))
    assert 0.3 < (per_channel[..., 0] == 0).mean() < 0.7
    assert to_numpy(F.dropout1d(tl.ones(4, 6, device=device), 0.5)).shape == (4, 6)  # unbatched (C, L)
    with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
        F.dropout1d(tl.ones(2, 3, 4, 5), 0.5)
    z = to_numpy(F.feature_alpha_dropout(tl.ones(4, 8, 6, device=device), 0.5, training=True)).reshape(32, 6)
    assert np.all(np.isclose(z, z[:, :1]))  # per channel one value


# ----------------------------------------------------------------------------------------------
# activations
# ----------------------------------------------------------------------------------------------

_SELU_A, _SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


def _erf(x):
    return np.vectorize(math.erf)(x)


ACTIVATIONS = {
    "relu": (F.relu, lambda x: np.maximum(x, 0)),
    "relu6": (F.relu6, lambda x: np.clip(x, 0, 6)),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), lambda x: np.where(x > 0, x, 0.2 * x)),
    "elu": (lambda x: F.elu(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    "selu": (F.selu, lambda x: _SELU_S * np.where(x > 0, x, _SELU_A * np.expm1(x))),
    "celu": (lambda x: F.celu(x, 0.7), lambda x: np.maximum(x, 0) + np.minimum(0, 0.7 * np.expm1(x / 0.7))),
    "gelu": (F.gelu, lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2)))),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"),
                  lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))),
    "silu": (F.silu, lambda x: x / (1 + np.exp(-x))),
    "mish": (F.mish, lambda x: x * np.tanh(_softplus(x))),
    "sigmoid": (F.sigmoid, lambda x: 1 / (1 + np.exp(-x))),
    "tanh": (F.tanh, np.tanh),
    "softplus": (lambda x: F.softplus(x, 2.0, 5.0), lambda x: _softplus(x, 2.0, 5.0)),
    "hardtanh": (lambda x: F.hardtanh(x, -2.0, 1.5), lambda x: np.clip(x, -2.0, 1.5)),
    "hardsigmoid": (F.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "hardswish": (F.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "logsigmoid": (F.logsigmoid, lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))),
    "softsign": (F.softsign, lambda x: x / (1 + np.abs(x))),
    "tanhshrink": (F.tanhshrink, lambda x: x - np.tanh(x)),
    "threshold": (lambda x: F.threshold(x, 0.5, -3.0), lambda x: np.where(x > 0.5, x, -3.0)),
    "hardshrink": (lambda x: F.hardshrink(x, 0.7), lambda x: np.where(np.abs(x) > 0.7, x, 0)),
    "softshrink": (lambda x: F.softshrink(x, 0.7),
                   lambda x: np.where(x > 0.7, x - 0.7, np.where(x < -0.7, x + 0.7, 0))),
    "softmax": (lambda x: F.softmax(x, dim=1), lambda x: np.exp(x) / np.exp(x).sum(1, keepdims=True)),
    "log_softmax": (lambda x: F.log_softmax(x, -1), lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True))),
    "softmin": (lambda x: F.softmin(x, 0), lambda x: np.exp(-x) / np.exp(-x).sum(0, keepdims=True)),
    "glu": (lambda x: F.glu(x, 1), lambda x: x[:, :2] / (1 + np.exp(-x[:, 2:]))),
    "prelu": (lambda x: F.prelu(x, _t([0.1, -0.2, 0.3, 0.5], x.device)),
              lambda x: np.where(x > 0, x, np.array([0.1, -0.2, 0.3, 0.5])[None, :, None] * x)),
}


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_gelu_tanh_gradient_of_large_half_inputs(device, dtype):
    """gelu(approximate='tanh')'s slope for a float16 input of |x| >= 256 is 1 (x > 0) or 0, as
    PyTorch: x * x overflowed float16 there and the slope was 0 * inf = NaN."""
    x = np.array([300.0, -300.0, 1000.0, -1000.0, 6e4, -6e4, 1.5, -2.0, 0.0])
    xt = _t(x, device, dtype=dtype, requires_grad=True)
    F.gelu(xt, approximate="tanh").backward(_t(np.ones(len(x)), device, dtype=dtype))
    assert xt.grad.dtype == dtype
    xr = to_numpy(xt.float()).astype(np.float64)
    c = math.sqrt(2 / math.pi)
    t = np.tanh(c * (xr + 0.044715 * xr**3))
    slope = 0.5 * (1 + t) + 0.5 * xr * (1 - t * t) * c * (1 + 3 * 0.044715 * xr**2)
    assert_close(xt.grad.float(), slope, rtol=1e-2, atol=1e-3)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_values(device, name):
    fn, ref = ACTIVATIONS[name]
    x = np.linspace(-5, 5, 60).reshape(3, 4, 5)
    assert_close(fn(_t(x, device)), ref(x), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["celu", "prelu", "softmin", "glu", "logsigmoid", "softsign", "threshold",
                                  "softshrink", "hardshrink", "tanhshrink"])
def test_composed_activation_gradients(name):
    fn, _ = ACTIVATIONS[name]
    x = _t(RNG.standard_normal((2, 4, 3)) * 2, requires_grad=True)
    assert tl.autograd.gradcheck(fn, (x,))


def test_prelu_weight_gradient_and_errors():
    x = _t(RNG.standard_normal((3, 2, 4)), requires_grad=True)
    for w in (_t([0.25], requires_grad=True), _t([0.1, 0.7], requires_grad=True)):
        assert tl.autograd.gradcheck(F.prelu, (x, w))
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        F.prelu(x, tl.ones(3, dtype=tl.float64))
    # a 1-D input has one channel (PyTorch's channel dim is dim 1): 3 weights do not fit 3 elements
    with pytest.raises(RuntimeError, match="parameter numbers = 3 and channel size = 1"):
        F.prelu(_t([1.0, -1.0, 2.0]), tl.ones(3, dtype=tl.float64))
    # weights of another dtype are refused, as PyTorch (a float64 PReLU computed in float32)
    with pytest.raises(RuntimeError, match="prelu: Type promoting not supported. Got Float and Double"):
        tl.nn.PReLU().double()(tl.ones(2, 3))
    with pytest.raises(RuntimeError, match="Got Double and Float"):
        F.prelu(x, tl.ones(1))
    # integer and bool inputs: PyTorch has no kernel for them (after its shape checks); they were computed
    with pytest.raises(NotImplementedError, match="\"prelu\" not implemented for 'Long'"):
        F.prelu(tl.tensor([-2, 3]), tl.tensor([1]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        F.prelu(tl.tensor([True, False]), tl.tensor([True]))
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        F.prelu(tl.ones(0, 3, dtype=tl.int32), tl.ones(3, dtype=tl.int32))
    with pytest.raises(RuntimeError, match="parameter numbers = 2 and channel size = 3"):
        F.prelu(tl.ones(2, 3, dtype=tl.int32), tl.ones(2, dtype=tl.int32))


def test_cosine_similarity_dtypes():
    # two integer tensors are refused, as PyTorch; float with int promotes (it raised in norm)
    with pytest.raises(RuntimeError, match="expected common dtype to be floating point, yet common dtype is Long"):
        F.cosine_similarity(tl.tensor([[1, 2]]), tl.tensor([[1, 3]]))
    r = F.cosine_similarity(tl.tensor([[1.0, 2.0]]), tl.tensor([[1, 3]]))
    assert r.dtype is tl.float32 and r.tolist() == pytest.approx([7 / math.sqrt(50)], rel=1e-6)


def test_inplace_celu_backward(device):
    """celu(inplace=True) is differentiable (alpha 1 too: it overwrote the input elu saved)."""
    x = np.linspace(-3, 3, 12)
    for alpha in (1.0, 0.5):
        leaf = _t(x, device, requires_grad=True)
        t = leaf * 1.0
        out = F.celu(t, alpha, inplace=True)
        assert out is t
        out.backward(_t(np.ones(12), device))
        assert_close(leaf.grad, np.where(x > 0, 1.0, np.exp(x / alpha)), rtol=1e-12, atol=1e-12)


def test_celu_second_derivative_at_zero(device):
    # torch 2.15: 0 at +-0 for any alpha, as elu's (alpha != 1 gave 1 / alpha: zero took the exponential branch)
    for alpha in (0.5, -1.0, 2.0):
        x = _t([0.0, -0.0, -1.0, 1.0], device, requires_grad=True)
        y = F.celu(x, alpha=alpha)
        assert [math.copysign(1, v) for v in y.tolist()] == [1.0, -1.0, -1.0, 1.0]
        (g,) = tl.autograd.grad(y.sum(), x, create_graph=True)
        (g2,) = tl.autograd.grad(g.sum(), x)
        assert_close(g2, [0.0, 0.0, math.exp(-1 / alpha) / alpha, 0.0], rtol=1e-12, atol=0)


def test_celu_with_a_negative_alpha_follows_the_sign_of_x(device):
    """torch 2.13: celu(x, alpha) = max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) for any alpha,
    so with alpha < 0 the exponential branch is x <= 0 (alpha * elu(x / alpha) would take it for
    x > 0); its gradient is exp(x / alpha) there, 1 elsewhere (a nan's too)."""
    nan = math.nan
    x = _t([6.0, 1.0, -1.0, 0.0, -3.0, nan], device, dtype=tl.float32, requires_grad=True)
    for alpha in (-1.0, -0.5):
        x.grad = None
        y = F.celu(x, alpha=alpha)
        xs = np.array([6.0, 1.0, -1.0, 0.0, -3.0, nan], np.float32)
        with np.errstate(invalid="ignore"):
            expected = np.where(xs <= 0, np.expm1(xs * np.float32(1 / alpha)) * np.float32(alpha), xs)
            grad = np.where(xs <= 0, np.exp(xs * np.float32(1 / alpha)), 1.0)
        assert y.dtype is tl.float32
        assert_close(y, expected, rtol=1e-6, atol=0, equal_nan=True)
        y.sum().backward()
        assert_close(x.grad, grad.astype(np.float32), rtol=1e-6, atol=0)
    assert_close(F.celu(_t([6.0, 1.0, -1.0], device, dtype=tl.float32), -1.0), [6.0, 1.0, -1.7182817459106445])
    h = F.celu(_t([6.0, -1.0, -20.0], device, dtype=tl.float16), -0.5)  # in float32, rounded once
    assert h.dtype is tl.float16 and h.tolist() == [6.0, -3.1953125, float("-inf")]
    leaf = _t([6.0, 1.0, -1.0], device, dtype=tl.float32, requires_grad=True)
    t = leaf * 1.0
    assert F.celu(t, -1.0, inplace=True) is t
    assert_close(t, [6.0, 1.0, -1.7182817459106445])
    t.sum().backward()
    assert_close(leaf.grad, [1.0, 1.0, math.e])
    with pytest.raises(NotImplementedError, match="\"elu\" not implemented for 'Long'"):
        F.celu(_t([1, -2], device), 2.0)


def test_inplace_activations_write_their_input(device):
    x = np.linspace(-3, 3, 12)
    for fn, ref in ((F.relu, np.maximum(x, 0)), (F.elu, np.where(x > 0, x, np.expm1(x))),
                    (F.celu, np.where(x > 0, x, np.expm1(x))), (F.hardtanh, np.clip(x, -1, 1)),
                    (lambda t, inplace: F.threshold(t, 0.0, 9.0, inplace), np.where(x > 0, x, 9.0))):
        t = _t(x, device)
        out = fn(t, inplace=True)
        assert out is t
        assert_close(t, ref, rtol=1e-12, atol=1e-12)


def test_softmax_legacy_dim_warns():
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        y = F.softmax(tl.zeros(2, 3))
    assert_close(y, np.full((2, 3), 1 / 3, np.float32))
    # the warning names the caller's line, for the modules too (they pass _stacklevel=5, as PyTorch's)
    for call in (lambda x: F.softmax(x), lambda x: tl.nn.Softmax()(x), lambda x: tl.nn.LogSoftmax()(x),
                 lambda x: tl.nn.Softmin()(x)):
        with pytest.warns(UserWarning, match="Implicit dimension choice") as record:
            call(tl.zeros(2, 3))
        assert record[0].filename == __file__


# ----------------------------------------------------------------------------------------------
# linear, bilinear
# ----------------------------------------------------------------------------------------------


def test_linear_and_bilinear_match_numpy(device):
    x = RNG.standard_normal((2, 3, 4))
    w, b = RNG.standard_normal((5, 4)), RNG.standard_normal(5)
    assert_close(F.linear(_t(x, device), _t(w, device), _t(b, device)), x @ w.T + b, rtol=1e-10, atol=1e-10)
    x2 = RNG.standard_normal((2, 3, 6))
    wb = RNG.standard_normal((5, 4, 6))
    ref = np.einsum("...i,oij,...j->...o", x, wb, x2) + b
    assert_close(F.bilinear(_t(x, device), _t(x2, device), _t(wb, device), _t(b, device)), ref, rtol=1e-10,
                 atol=1e-10)


def test_linear_out_is_written_resized_and_refuses_autograd(device):
    # torch 2.15's F.linear takes out=: written (its strides kept), resized from another shape with
    # a warning, the result is out itself; out of another dtype, or an input that requires grad
    # (grad mode on), raise RuntimeError
    x, w, b = RNG.standard_normal((2, 3)), RNG.standard_normal((4, 3)), RNG.standard_normal(4)
    xt, wt, bt = (_t(v, device) for v in (x, w, b))
    out = tl.empty(0, dtype=tl.float64, device=device)
    assert F.linear(xt, wt, bt, out=out) is out
    assert_close(out, x @ w.T + b, rtol=1e-10, atol=1e-10)
    out = tl.empty(4, 2, dtype=tl.float64, device=device).t()  # a transposed out keeps its strides
    assert F.linear(xt, wt, bt, out=out) is out and out.stride() == (1, 2)
    assert_close(out, x @ w.T + b, rtol=1e-10, atol=1e-10)
    out = tl.empty(3, 3, dtype=tl.float64, device=device)
    with pytest.warns(UserWarning, match="resized"):
        F.linear(xt, wt, out=out)
    assert out.shape == (2, 4)
    assert_close(out, x @ w.T, rtol=1e-10, atol=1e-10)
    out = tl.empty(0, dtype=tl.float64, device=device)
    assert F.linear(_t(RNG.standard_normal((5, 2, 3)), device), wt, bt, out=out).shape == (5, 2, 4)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
        F.linear(xt, wt, bt, out=tl.empty(2, 4, dtype=tl.float32, device=device))
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        F.linear(xt, _t(w, device, requires_grad=True), bt, out=tl.empty(2, 4, dtype=tl.float64, device=device))
    with tl.no_grad():
        y = F.linear(xt, _t(w, device, requires_grad=True), bt, out=tl.empty(2, 4, dtype=tl.float64, device=device))
    assert not y.requires_grad


def test_bilinear_keeps_an_integer_dtype():
    # the contraction's sum widened int8/int32 to int64 (torch 2.15 on cpu: int8 wraps to -124)
    a = tl.tensor([[1, 2]], dtype=tl.int8)
    y = F.bilinear(a, a, tl.full((1, 2, 2), 100, dtype=tl.int8))
    assert y.dtype is tl.int8 and y.tolist() == [[-124]]
    a = a.int()
    y = F.bilinear(a, a, tl.full((1, 2, 2), 100, dtype=tl.int32), tl.tensor([1], dtype=tl.int32))
    assert y.dtype is tl.int32 and y.tolist() == [[901]]


def test_bilinear_gradcheck_and_errors():
    args = [_t(RNG.standard_normal(s), requires_grad=True) for s in ((3, 2), (3, 4), (2, 2, 4), (2,))]
    assert tl.autograd.gradcheck(F.bilinear, args)
    with pytest.raises(RuntimeError, match="input2 size does not match weight size: got 4 but expected 3"):
        F.bilinear(tl.zeros(2, 3), tl.zeros(2, 4), tl.zeros(5, 3, 3))
    with pytest.raises(RuntimeError, match="input batch dimensions do not match at dim 0: got 2 and 3"):
        F.bilinear(tl.zeros(2, 3), tl.zeros(3, 4), tl.zeros(5, 3, 4))
    # PyTorch refuses mixed dtypes before any other check (a float64 input2 promoted the result to float64)
    with pytest.raises(RuntimeError, match="same dtype, got input1: float32, input2: float64, weight: float32$"):
        F.bilinear(tl.ones(5, 2), tl.ones(5, 3, dtype=tl.float64), tl.ones(4, 2, 3))
    with pytest.raises(RuntimeError, match="same dtype, got input1: float32, input2: float32, weight: float32, bias: "
                                           "int64"):
        F.bilinear(tl.ones(5, 2), tl.ones(5, 3), tl.ones(4, 2, 3), tl.ones(4, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="same dtype"):
        F.bilinear(tl.ones(5, 2, dtype=tl.float64), tl.ones(5, 3), tl.ones(4, 3))


# ----------------------------------------------------------------------------------------------
# embedding, embedding_bag
# ----------------------------------------------------------------------------------------------


def _embedding_grad(idx, g, num, padding_idx=None, by_freq=False):
    out = np.zeros((num, g.shape[-1]))
    flat, g2 = idx.reshape(-1), g.reshape(-1, g.shape[-1])
    counts = np.bincount(flat, minlength=num)
    for i, row in zip(flat, g2):
        if i == padding_idx:
            continue
        out[i] += row / (counts[i] if by_freq else 1)
    return out


@pytest.mark.parametrize("padding_idx,by_freq", [(None, False), (2, False), (-1, True)])
def test_embedding_values_and_gradients(device, padding_idx, by_freq):
    w = RNG.standard_normal((7, 3))
    idx = np.array([[1, 2, 6], [0, 2, 2]])
    wt = _t(w, device, requires_grad=True)
    y = F.embedding(_t(idx, device), wt, padding_idx=padding_idx, scale_grad_by_freq=by_freq)
    assert_close(y, w[idx], rtol=0, atol=0)  # the padding row is still read (it is zero only by initialisation)
    g = RNG.standard_normal((2, 3, 3))
    y.backward(_t(g, device))
    pad = None if padding_idx is None else padding_idx % 7
    assert_close(wt.grad, _embedding_grad(idx, g, 7, pad, by_freq), rtol=1e-12, atol=1e-12)


def test_embedding_strided_int32_indices(device):
    w = RNG.standard_normal((5, 4))
    idx = np.array([[4, 0, 3, 1], [2, 2, 0, 4]])
    it = _t(idx, device, tl.int32).t()  # a transposed int32 index tensor: read through its strides
    assert_close(F.embedding(it, _t(w, device)), w[idx.T], rtol=0, atol=0)


def test_embedding_max_norm_renormalises_used_rows_in_place(device):
    w = RNG.standard_normal((6, 4)) * 3
    wt = _t(w.copy(), device, requires_grad=True)
    idx = np.array([0, 2, 2, 5])
    y = F.embedding(_t(idx, device), wt, max_norm=1.5)
    expected = w.copy()
    for i in np.unique(idx):
        n = np.linalg.norm(w[i])
        if n > 1.5:
            expected[i] = w[i] * (1.5 / (n + 1e-7))
    assert_close(wt, expected, rtol=1e-12, atol=1e-12)  # rows 1, 3, 4 untouched
    assert_close(y, expected[idx], rtol=1e-12, atol=1e-12)
    assert wt.is_leaf and wt.grad_fn is None


def test_embedding_errors():
    w = tl.zeros(3, 2)
    # the indices' tensor type is named as PyTorch names it (torch.FloatTensor), not its dtype
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types: Long, Int; "
                                           "but got tensorlab.FloatTensor instead \\(while checking arguments for "
                                           "embedding\\)"):
        F.embedding(tl.zeros(2), w)
    with pytest.raises(RuntimeError, match="but got tensorlab.ByteTensor instead"):
        F.embedding(tl.zeros(2, dtype=tl.uint8), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(tl.tensor([3]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(tl.tensor([-1]), w)
    with pytest.raises(RuntimeError, match="'weight' must be 2-D"):
        F.embedding(tl.tensor([1]), tl.zeros(3))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(tl.tensor([1]), w, padding_idx=3)
    with pytest.raises(NotImplementedError, match="sparse"):
        F.embedding(tl.tensor([1]), w, sparse=True)


def _bag_ref(idx, offsets, w, mode, n_bags, padding_idx=None, psw=None):
    ends = list(offsets[1:]) + [len(idx)]
    out = np.zeros((n_bags, w.shape[1]))
    for k in range(n_bags):
        rows = [(w[idx[j]] * (psw[j] if psw is not None else 1)) for j in range(offsets[k], ends[k])
                if idx[j] != padding_idx]
        if rows:
            out[k] = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode](rows, axis=0)
    return out


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_modes(device, mode):
    w = RNG.standard_normal((7, 3))
    idx = np.array([1, 2, 0, 6, 6, 3, 1])
    offsets = np.array([0, 2, 2, 5])  # bag 1 is empty: zeros
    wt = _t(w, device, requires_grad=True)
    y = F.embedding_bag(_t(idx, device), wt, _t(offsets, device), mode=mode)
    assert_close(y, _bag_ref(idx, offsets, w, mode, 4), rtol=1e-12, atol=1e-12)
    y2 = F.embedding_bag(_t(idx, device), _t(w, device), _t(offsets, device), mode=mode, padding_idx=6)
    assert_close(y2, _bag_ref(idx, offsets, w, mode, 4, padding_idx=6), rtol=1e-12, atol=1e-12)
    idx2 = np.array([[1, 2, 4], [0, 0, 5]])
    y3 = F.embedding_bag(_t(idx2, device), _t(w, device), mode=mode)
    assert_close(y3, _bag_ref(idx2.reshape(-1), [0, 3], w, mode, 2), rtol=1e-12, atol=1e-12)
    if device == "cpu":
        assert tl.autograd.gradcheck(lambda a: F.embedding_bag(_t(idx), a, _t(offsets), mode=mode), (wt,))


def test_embedding_bag_max_gradient_goes_to_the_first_maximum(device):
    # values from torch 2.13: a tie within a bag sends the gradient to the first row holding the
    # maximum (in bag order), not shared between the tied rows
    w = _t([[1.0, 5.0], [3.0, 5.0], [3.0, 0.0], [2.0, 0.0]], device, requires_grad=True)
    y = F.embedding_bag(_t([0, 1, 2, 3, 2, 2], device), w, _t([0, 3, 4], device), mode="max")
    y.backward(_t([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device))
    assert y.tolist() == [[3.0, 5.0], [2.0, 0.0], [3.0, 0.0]]
    assert w.grad.tolist() == [[0.0, 2.0], [1.0, 0.0], [5.0, 6.0], [3.0, 4.0]]


def test_threshold_and_shrink_keep_nan(device):
    # values from torch 2.13: PyTorch tests x <= threshold (and -lambd <= x <= lambd), so NaN stays NaN
    nan = math.nan
    x = _t([nan, 0.5, 1.0, 2.0], device, requires_grad=True)
    y = F.threshold(x, 1.0, -2.0)
    np.testing.assert_array_equal(to_numpy(y), [nan, -2.0, -2.0, 2.0])
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 0.0, 1.0]
    x = _t([nan, 0.5, -0.2, 2.0], device)
    np.testing.assert_array_equal(to_numpy(F.hardshrink(x)), [nan, 0.0, 0.0, 2.0])
    np.testing.assert_array_equal(to_numpy(F.softshrink(x)), [nan, 0.0, 0.0, 1.5])


def test_shrinks_and_logsigmoid_need_a_floating_input(device):
    # torch 2.13 has float kernels only for hardshrink/softshrink/logsigmoid ('"hardshrink_cpu" not
    # implemented for 'Long''): tensorlab computed the shrinks in the integer dtype, and raised
    # softplus's error for an integer logsigmoid, neg's RuntimeError for a bool one
    for dtype in (tl.uint8, tl.int8, tl.int64, tl.bool):
        x = _t([0, 1, 3], device).to(dtype)
        for fn in (F.hardshrink, F.softshrink, F.logsigmoid):
            with pytest.raises(NotImplementedError, match=f"{fn.__name__}\\(\\).* not implemented for"):
                fn(x)
    assert F.hardshrink(_t([0.25, 2.0], device, tl.float16)).tolist() == [0.0, 2.0]


@pytest.mark.parametrize("name", ["silu", "mish", "gelu", "logsigmoid"])
def test_half_precision_activation_gradients_round_once(device, name):
    # the slope is computed in float32 and rounded once, as PyTorch's backward kernels: a chain of
    # float16 ops was 30x off (silu: 1.4e-2 relative, torch 2.15 and now 4.7e-4)
    fn = getattr(F, name)
    x = np.random.default_rng(0).standard_normal(500) * 3
    g = np.random.default_rng(1).standard_normal(500)
    for dtype, bound in ((tl.float16, 1e-3), (tl.bfloat16, 8e-3)):
        xh = _t(x, device, dtype=dtype, requires_grad=True)
        gh = _t(g, device, dtype=dtype)
        fn(xh).backward(gh)
        x64 = xh.detach().double().requires_grad_()
        fn(x64).backward(gh.double())
        want = to_numpy(x64.grad)
        err = np.abs(to_numpy(xh.grad.double()) - want) / (np.abs(want) + 1e-2)
        assert xh.grad.dtype is dtype and err.max() < bound


def test_logsigmoid_far_tails(device):
    # log(sigmoid(x)) = x - e ** x below -20 in float64 (it was -softplus(-x), whose threshold
    # returned x itself there: Bernoulli/Geometric entropies off by 1 below logit -20); torch 2.15's values
    x = _t([-1000.0, -25.0, -20.0, 25.0, 1000.0], device, requires_grad=True)
    y = F.logsigmoid(x)
    y.sum().backward()
    assert_close(y, [-1000.0, -25.000000000013888, -20.000000002061153, -1.3887943864867583e-11, 0.0], rtol=1e-14)
    assert_close(x.grad, [1.0, 0.9999999999861121, 0.9999999979388464, 1.3887943864771146e-11, 0.0], rtol=1e-13)
    assert F.logsigmoid(_t([-25.0], device)).item() != -25.0


def test_threshold_keeps_the_input_dtype_as_pytorch(device):
    """torch 2.13's threshold kernel: ``x <= threshold ? value : x`` in the input's dtype, value
    converted to it and threshold to its compute type (checked for overflow both): truncated for
    integers, float32 unrounded for float16/bfloat16; no bool kernel."""
    def T(v, dtype=None):
        return tl.tensor(v, dtype=dtype, device=device)

    cases = [
        (F.threshold(T([-7, 0, 3], tl.int16), -0.5, -1.0), tl.int16, [-1, -1, 3]),  # tests x <= 0
        (F.threshold(T([5, 1, 0], tl.uint8), 1.0, 2.5), tl.uint8, [5, 2, 2]),
        (F.threshold(T([5, 1, 0], tl.uint8), 1, -1), tl.uint8, [5, 255, 255]),  # an int -1 wraps, as in C++
        (F.threshold(T([5, 1, 0]), 1.9, 2 ** 40), tl.int64, [5, 2 ** 40, 2 ** 40]),
        (F.threshold(T([-7, 0, 3], tl.int16), True, 1), tl.int16, [1, 1, 3]),
        (F.threshold(T([-7, 0, 3], tl.int32), T(0.5), 1), tl.int32, [1, 1, 3]),  # a 0-d tensor's value
        # bf16(0.1) = 0.10009765625 > 0.1 in float32: kept (rounding 0.1 to bf16 would replace it)
        (F.threshold(T([0.1, 0.2], tl.bfloat16), 0.1, 0.1), tl.bfloat16, [0.10009765625, 0.2001953125]),
        (F.threshold(T([0.1, -0.1], tl.float16), -0.1, 7.0), tl.float16, [0.0999755859375, -0.0999755859375]),
        (F.threshold(T([0.1, 2.0], tl.float16), 1e6, 0.1), tl.float16, [0.0999755859375] * 2),
    ]
    for r, dtype, expected in cases:
        assert r.dtype is dtype and r.tolist() == expected
    x = T([-7, 0, 3], tl.int16)
    assert F.threshold(x, -0.5, -1.0, inplace=True) is x and x.tolist() == [-1, -1, 3]
    for call, what in ((lambda: F.threshold(T([5, 1], tl.uint8), -1.0, 2), "uint8"),  # a float below 0
                       (lambda: F.threshold(T([5, 1], tl.uint8), 300, 1), "uint8"),
                       (lambda: F.threshold(T([5, 1], tl.int8), 1.9, 1000), "int8"),
                       (lambda: F.threshold(T([5, 1], tl.int32), math.inf, 1), "int32"),
                       (lambda: F.threshold(T([0.1], tl.float16), 0.0, 70000.0), "float16")):
        with pytest.raises(RuntimeError, match=f"threshold: value cannot be converted to type {what} without overflow"):
            call()
    with pytest.raises(NotImplementedError, match="\"threshold\" not implemented for 'Bool'"):
        F.threshold(T([True, False]), 0.5, 0)


def test_embedding_bag_weights_and_last_offset(device):
    w = RNG.standard_normal((7, 3))
    idx = np.array([1, 2, 0, 6, 6, 3, 1])
    psw = RNG.standard_normal(7)
    y = F.embedding_bag(_t(idx, device), _t(w, device), _t(np.array([0, 3]), device), mode="sum",
                        per_sample_weights=_t(psw, device), padding_idx=1)
    assert_close(y, _bag_ref(idx, [0, 3], w, "sum", 2, padding_idx=1, psw=psw), rtol=1e-12, atol=1e-12)
    y = F.embedding_bag(_t(idx, device), _t(w, device), _t(np.array([0, 2, 7]), device), mode="mean",
                        include_last_offset=True)
    assert_close(y, _bag_ref(idx, [0, 2], w, "mean", 2), rtol=1e-12, atol=1e-12)


def test_embedding_bag_errors():
    w = tl.zeros(3, 2)
    with pytest.raises(ValueError, match="offsets has to be a 1D Tensor but got None"):
        F.embedding_bag(tl.tensor([1, 2]), w)
    with pytest.raises(ValueError, match="if input is 2D, then offsets has to be None"):
        F.embedding_bag(tl.tensor([[1, 2]]), w, tl.tensor([0]))
    with pytest.raises(RuntimeError, match="offsets\\[0\\] has to be 0"):
        F.embedding_bag(tl.tensor([1, 2]), w, tl.tensor([1]))
    with pytest.raises(RuntimeError, match="offsets\\[-1\\] can not be greater than input's length 2"):
        F.embedding_bag(tl.tensor([1, 2]), w, tl.tensor([0, 3]))
    with pytest.raises(ValueError, match="mode has to be one of sum, mean or max"):
        F.embedding_bag(tl.tensor([1, 2]), w, tl.tensor([0]), mode="min")
    with pytest.raises(NotImplementedError, match="per_sample_weights is only supported for mode='sum'"):
        F.embedding_bag(tl.tensor([1, 2]), w, tl.tensor([0]), per_sample_weights=tl.ones(2))
    with pytest.raises(ValueError, match="input has to be 1D or 2D Tensor, but got Tensor of dimension 3"):
        F.embedding_bag(tl.tensor([[[1]]]), w)


def test_embedding_int_arguments():
    # padding_idx is an int (1.5 was truncated to 1), offsets integers (float ones were truncated), as PyTorch
    w, i = tl.ones(3, 2), tl.tensor([0, 1])
    for v in (1.5, -1.5, 2.0):
        with pytest.raises(TypeError, match="embedding\\(\\): argument 'padding_idx' \\(position 3\\) must be int, not "
                                            "float"):
            F.embedding(i, w, padding_idx=v)
        with pytest.raises(TypeError, match="argument 'padding_idx' \\(position 9\\) must be int, not float"):
            F.embedding_bag(i, w, tl.tensor([0]), padding_idx=v)
    with pytest.raises(TypeError, match="must be int, not bool"):
        F.embedding(i, w, padding_idx=True)
    with pytest.raises(TypeError, match="must be int, not Tensor"):
        F.embedding(i, w, padding_idx=tl.tensor(1.0))
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):  # (its assert first)
        F.embedding(i, w, padding_idx=5.5)
    for v in (np.int64(1), tl.tensor(1)):
        assert F.embedding(i, w, padding_idx=v).shape == (2, 2)
        assert F.embedding_bag(i, w, tl.tensor([0]), padding_idx=v).shape == (1, 2)
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'indices' to have one of the following "
                                           "scalar types: Long, Int; but got tensorlab.FloatTensor instead "
                                           "\\(while checking arguments for embedding_bag\\)$"):
        F.embedding_bag(i, w, tl.tensor([0.0]))
    with pytest.raises(RuntimeError, match="padding_idx must be within the number of embeddings"):  # (checked before)
        F.embedding_bag(i, w, tl.tensor([0.0]), padding_idx=7)
    for off in (tl.tensor([0], dtype=tl.int32), tl.tensor([0], dtype=tl.int16), tl.tensor([0], dtype=tl.uint8)):
        assert F.embedding_bag(i, w, off).tolist() == [[1.0, 1.0]]


# ----------------------------------------------------------------------------------------------
# normalize, cosine_similarity, pairwise_distance, one_hot
# ----------------------------------------------------------------------------------------------


def test_normalize_and_distances(device):
    x = RNG.standard_normal((3, 4, 5))
    y = RNG.standard_normal((4, 5))
    n3 = np.sum(np.abs(x) ** 3, axis=1, keepdims=True) ** (1 / 3)
    assert_close(F.normalize(_t(x, device), p=3, dim=1), x / n3, rtol=1e-10, atol=1e-12)
    assert_close(F.normalize(_t(np.zeros((2, 3)), device)), np.zeros((2, 3)), rtol=0, atol=0)  # eps clamps
    cos = (x * y).sum(-1) / (np.linalg.norm(x, axis=-1) * np.linalg.norm(y, axis=-1))
    assert_close(F.cosine_similarity(_t(x, device), _t(y, device), dim=-1), cos, rtol=1e-10, atol=1e-12)
    d = np.linalg.norm(x - y + 1e-6, axis=-1)
    assert_close(F.pairwise_distance(_t(x, device), _t(y, device)), d, rtol=1e-10, atol=1e-12)
    d1 = np.abs(x - y + 1e-6).sum(-1, keepdims=True)
    assert_close(F.pairwise_distance(_t(x, device), _t(y, device), p=1.0, keepdim=True), d1, rtol=1e-10,
                 atol=1e-12)


def test_pairwise_distance_of_0d_inputs_honours_p(device):
    # PyTorch's norm of the scalar x1 - x2 + eps; p=0 counts it (was |x1 - x2 + eps| for every p)
    x, y = _t(3.0, device), _t(1.0, device)
    for p, eps, want in ((0, 1e-6, 1.0), (0, 0.0, 1.0), (1, 0.0, 2.0), (2, 1.0, 3.0), (float("inf"), 0.0, 2.0),
                         (float("-inf"), 0.0, 2.0), (0.5, 0.0, 2.0)):
        d = F.pairwise_distance(x, y, p=p, eps=eps)
        assert d.shape == () and d.item() == want, (p, eps)
    assert F.pairwise_distance(y, y, p=0, eps=0.0).item() == 0.0
    assert F.pairwise_distance(y, y, p=0, keepdim=True).item() == 1.0  # (eps = 1e-6 is nonzero)


def test_distance_gradients():
    a = _t(RNG.standard_normal((3, 4)), requires_grad=True)
    b = _t(RNG.standard_normal((3, 4)), requires_grad=True)
    assert tl.autograd.gradcheck(lambda u: F.normalize(u, dim=1), (a,))
    assert tl.autograd.gradcheck(lambda u, v: F.cosine_similarity(u, v), (a, b))
    assert tl.autograd.gradcheck(lambda u, v: F.pairwise_distance(u, v), (a, b))
    z = _t(np.zeros((2, 3)), requires_grad=True)
    F.normalize(z).sum().backward()  # no NaN at the origin
    assert np.isfinite(to_numpy(z.grad)).all()


def test_cosine_similarity_eps_clamp_keeps_the_norm_gradient(device):
    """PyTorch clamps the norms at eps under no_grad: a norm below eps still passes its gradient
    (row 0 here; values from torch 2.13)."""
    a = _t([[0.3, -0.4, 0.1], [2.0, 1.0, -1.0]], device, requires_grad=True)
    b = _t([[1.0, 0.5, -0.2], [0.1, 0.2, 0.3]], device, requires_grad=True)
    y = F.cosine_similarity(a, b, eps=1.0)
    y.backward(_t([1.0, -2.0], device))
    assert_close(y, [0.0704360725060499, 0.04082482904638633], rtol=1e-12, atol=1e-14)
    assert_close(a.grad, [[0.8390099553830256, 0.4954800544196096, -0.1899038315793242],
                          [-0.05443310539518171, -0.14969103983674978, -0.25855725062711327]], rtol=1e-12, atol=1e-14)
    assert_close(b.grad, [[0.20953366530385004, -0.3794811658271681, 0.09896541195132982],
                          [-1.611171372831853, -0.7728530028805276, 0.8819619479985239]], rtol=1e-12, atol=1e-14)


def test_one_hot_is_the_indexing_op(device):
    y = F.one_hot(_t([0, 3, 1], device), 4)
    assert y.dtype is tl.int64
    assert_close(y, np.eye(4, dtype=np.int64)[[0, 3, 1]])


# ----------------------------------------------------------------------------------------------
# pad
# ----------------------------------------------------------------------------------------------

_NP_MODE = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_matches_numpy(device, mode):
    x = RNG.standard_normal((2, 3, 4, 5))
    y = F.pad(_t(x, device), (2, 1, 1, 3), mode=mode)  # last dim (2, 1), then (1, 3)
    ref = np.pad(x, ((0, 0), (0, 0), (1, 3), (2, 1)), mode=_NP_MODE[mode])
    assert_close(y, ref, rtol=0, atol=0)
    y = F.pad(_t(x[0], device), (3, 0), mode=mode)
    assert_close(y, np.pad(x[0], ((0, 0), (0, 0), (3, 0)), mode=_NP_MODE[mode]), rtol=0, atol=0)


def test_pad_negative_and_constant_value(device):
    x = np.arange(5.0).reshape(1, 5)
    assert to_numpy(F.pad(_t(x, device), (-1, 2), mode="reflect")).tolist() == [[1, 2, 3, 4, 3, 2]]
    assert to_numpy(F.pad(_t(x, device), (-1, 2), mode="circular")).tolist() == [[1, 2, 3, 4, 1, 2]]
    assert to_numpy(F.pad(_t(x, device), (2, -2), mode="replicate")).tolist() == [[0, 0, 0, 1, 2]]
    assert to_numpy(F.pad(_t(x, device), (2, -2), value=7)).tolist() == [[7, 7, 0, 1, 2]]
    x3 = RNG.standard_normal((2, 3, 4))
    ref = np.pad(x3[1:, :, :2], ((0, 0), (0, 1), (1, 0)), constant_values=3.5)
    assert_close(F.pad(_t(x3, device), (1, -2, 0, 1, -1, 0), value=3.5), ref, rtol=0, atol=0)


def test_pad_gradients():
    x = _t(RNG.standard_normal((1, 2, 4)), requires_grad=True)
    for mode in ("constant", "reflect", "replicate", "circular"):
        assert tl.autograd.gradcheck(lambda a, mode=mode: F.pad(a, (2, 3), mode=mode), (x,))


def test_pad_errors():
    x = tl.zeros(2, 3)
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(x, (1,))
    with pytest.raises(RuntimeError, match="Padding length should be less than or equal to two times"):
        F.pad(x, (1,) * 6)
    with pytest.raises(NotImplementedError, match="Unrecognised padding mode foo"):
        F.pad(x, (1, 1), mode="foo")
    with pytest.raises(RuntimeError, match='Padding mode "reflect" doesn\'t take in value argument'):
        F.pad(x, (1, 1), mode="reflect", value=2.0)
    with pytest.raises(RuntimeError, match=r"Padding size should be less than the corresponding input dimension, "
                                           r"but got: padding \(3, 3\) at dimension 1 of input \[2, 3\]"):
        F.pad(x, (3, 3), mode="reflect")
    with pytest.raises(NotImplementedError, match="Padding size 2 is not supported for 1D input tensor"):
        F.pad(tl.zeros(3), (1, 1), mode="reflect")
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        F.pad(tl.zeros(1, 2, 3), (4, 4), mode="circular")
    # a value the dtype cannot hold raises, as PyTorch (uint8 -1 wrapped to 255)
    for dtype, value in ((tl.uint8, -1), (tl.uint8, 256), (tl.float16, 1e6), (tl.int32, float("nan"))):
        with pytest.raises(RuntimeError, match="cannot be converted to type"):
            F.pad(tl.ones(2, dtype=dtype), (1, 1), value=value)
    assert F.pad(tl.ones(2, dtype=tl.int8), (1, 0), value=1.5).tolist() == [1, 1, 1]  # (truncated, as PyTorch)


def test_pad_takes_ints_only(device):
    # PyTorch's parser: a tuple or list of ints (a float was truncated, a tensor iterated)
    x = tl.ones(2, 3, device=device)
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type float at pos 0"):
        F.pad(x, (1.5, 2))
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type bool at pos 0"):
        F.pad(x, (True, 1))
    with pytest.raises(TypeError, match="must be tuple of ints, but found element of type Tensor at pos 1"):
        F.pad(x, (1, tl.tensor(2.0)))
    for bad, name in ((tl.tensor([1, 2]), "Tensor"), (1, "int"), (range(2), "range")):
        with pytest.raises(TypeError, match=f"must be tuple of ints, not {name}"):
            F.pad(x, bad)
    for ok in ([1, 2], (np.int64(1), 2), (tl.tensor(1), 2), (tl.tensor([1]), 2), tl.Size([1, 2])):
        assert F.pad(x, ok).shape == (2, 6)


def test_pad_sizes_reflect_replicate_circular(device):
    x = tl.arange(1.0, 6.0, device=device).reshape(1, 1, 5)
    # reflect/replicate need an output of at least 1 (an empty one was returned)
    for mode in ("reflect", "replicate"):
        with pytest.raises(RuntimeError, match=r"input \(W: 5\) is too small. Calculated output W: 0"):
            F.pad(x, (-3, -2), mode)
        with pytest.raises(RuntimeError, match=r"Calculated output H: 2 W: 0 must be >= 1 in every dimension "
                                               r"\(input H: 2, W: 3\)"):
            F.pad(tl.ones(1, 2, 3, device=device), (-3, 0, 0, 0), mode)
        assert F.pad(x, (-3, -1), mode).tolist() == [[[4.0]]]
    # circular: at most the input size (PyTorch's check), then at most what is left after cropping; beyond that
    # PyTorch raises an overlap error or returns uninitialised memory, (-5, 1) raised an IndexError here
    with pytest.raises(RuntimeError, match="^Padding value causes wrapping around more than once.$"):
        F.pad(x, (-1, 6), "circular")
    for pad, left in (((-5, 1), 0), ((-2, 4), 3), ((3, -3), 2), ((1, -6), 0)):
        with pytest.raises(RuntimeError, match=f"wraps around more than once: {left} element\\(s\\) are left"):
            F.pad(x, pad, "circular")
    with pytest.raises(RuntimeError, match="Negative padding value is resulting in an empty dimension"):
        F.pad(x, (-4, -2), "circular")
    assert F.pad(x, (-3, -2), "circular").shape == (1, 1, 0)
    assert F.pad(x, (-2, 3), "circular").tolist() == [[[3.0, 4.0, 5.0, 3.0, 4.0, 5.0]]]
    assert F.pad(x, (2, -1), "circular").tolist() == [[[3.0, 4.0, 1.0, 2.0, 3.0, 4.0]]]


def test_functional_namespace_has_the_issue_list():
    names = ["linear", "bilinear", "dropout", "alpha_dropout", "embedding", "embedding_bag", "normalize", "pad",
             "one_hot", "cosine_similarity", "pairwise_distance", "layer_norm", "rms_norm", "group_norm",
             "batch_norm", "relu", "relu6", "leaky_relu", "prelu", "elu", "selu", "celu", "gelu", "silu", "mish",
             "sigmoid", "tanh", "softplus", "hardtanh", "hardswish", "hardsigmoid", "softmax", "log_softmax",
             "softmin"]
    missing = [n for n in names if not callable(getattr(F, n, None))]
    assert not missing
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert F.gelu is tl.gelu and F.relu_ is tl.relu_  # the activations are the registered elementwise ops


def test_norms_over_empty_normalized_dims(device):
    # the cpu twins raised numpy's "cannot reshape array of size 0 into shape (0)"; cuda and PyTorch return
    x = tl.zeros((2, 0), device=device, requires_grad=True)
    assert F.layer_norm(x, [0]).shape == (2, 0) and F.rms_norm(x, [0]).shape == (2, 0)
    F.layer_norm(x, [0]).sum().backward()
    assert x.grad.shape == (2, 0)
    with pytest.raises(RuntimeError, match="number of channels to be greater than 0"):  # (torch 2.15 refuses it)
        F.group_norm(tl.zeros((2, 0, 3), device=device), 1)


def test_cosine_similarity_and_pairwise_distance_are_top_level_functions_too():
    """torch.cosine_similarity and torch.pairwise_distance: the nn.functional ops at the top level."""
    a, b = tl.tensor([[1.0, 2.0, 2.0], [0.0, 3.0, 4.0]]), tl.tensor([[2.0, 4.0, 4.0], [0.0, -3.0, -4.0]])
    np.testing.assert_allclose(tl.cosine_similarity(a, b).numpy(), [1.0, -1.0], rtol=1e-6)
    np.testing.assert_allclose(tl.pairwise_distance(a, b).numpy(), [3.0, 10.0], rtol=1e-5)  # (eps = 1e-6 added)
    np.testing.assert_allclose(tl.cosine_similarity(a, b, axis=1).numpy(), F.cosine_similarity(a, b, 1).numpy())


@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_rrelu_eval_is_leaky_relu_with_the_mean_slope_and_training_draws_a_slope_per_element(device):
    """F.rrelu / nn.RReLU as torch 2.15: in eval, leaky_relu with slope (lower + upper) / 2 (torch:
    [-0.4583, 0, 3], gradient [0.2292, 0.2292, 1]); in training, each element <= 0 gets its own slope
    from U(lower, upper), which is also its gradient (1 above 0)."""
    x = tl.tensor([-2.0, 0.0, 3.0], device=device, requires_grad=True)
    y = F.rrelu(x)
    y.sum().backward()
    assert_close(y, np.array([-2 * 11 / 48, 0.0, 3.0], np.float32))
    assert_close(x.grad, np.array([11 / 48, 11 / 48, 1.0], np.float32))

    tl.manual_seed(0)
    x = tl.linspace(-4.0, 1.0, 4096, device=device).requires_grad_()
    y = F.rrelu(x, 0.1, 0.3, training=True)
    y.sum().backward()
    neg, g = to_numpy(x.detach()) < 0, to_numpy(x.grad)
    slopes = to_numpy(y.detach())[neg] / to_numpy(x.detach())[neg]
    assert ((slopes >= 0.1) & (slopes <= 0.3)).all() and 0.19 < slopes.mean() < 0.21 and slopes.std() > 0.05
    np.testing.assert_allclose(g[neg], slopes, rtol=1e-5)
    assert (g[~neg & (to_numpy(x.detach()) > 0)] == 1.0).all()

    module = tl.nn.RReLU(0.1, 0.3)
    assert repr(module) == "RReLU(lower=0.1, upper=0.3)"
    z = tl.tensor([-1.0, 2.0], device=device)
    assert_close(module.eval()(z), np.array([-0.2, 2.0], np.float32))
    tl.manual_seed(1)
    first = module.train()(z).tolist()
    tl.manual_seed(1)
    assert module(z).tolist() == first and -0.3 <= first[0] <= -0.1
    assert F.rrelu_(z, 0.1, 0.3) is z and z.tolist()[1] == 2.0
    with pytest.raises(RuntimeError, match="Lower bound should be less than or equal to the upper bound"):
        F.rrelu(z, 0.5, 0.1)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        F.rrelu(tl.tensor([1, -2], device=device), training=True)


@pytest.mark.parametrize("name, kwargs", [("logsigmoid", {}), ("softplus", {"beta": 2.0}), ("softshrink", {}),
                                          ("hardshrink", {"lambd": 0.3}), ("gelu", {"approximate": "tanh"})])
def test_activations_with_out(name, kwargs, device):
    # torch 2.15's test_logsigmoid_out & co.: these nn.functional forms take out= (resized, of exactly the
    # input's dtype), and out= refuses inputs that require grad
    fn = getattr(F, name)
    x = tl.tensor(np.random.default_rng(0).standard_normal((2, 3)), dtype=tl.float32, device=device).t()
    out = tl.empty(0, device=device)
    assert fn(x, out=out, **kwargs) is out and out.shape == (3, 2)
    np.testing.assert_array_equal(to_numpy(out), to_numpy(fn(x, **kwargs)))
    with pytest.raises(RuntimeError):
        fn(x, out=tl.empty(0, dtype=tl.float64, device=device), **kwargs)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        fn(x.detach().requires_grad_(), out=tl.empty(0, device=device), **kwargs)


def test_adaptive_pool1d_values_indices_and_gradients(device):
    # DGCNN's global pooling (F.adaptive_max_pool1d(x, 1)); L=5 into 3 overlapping bins [0,2) [1,4) [3,5);
    # ties go to the first maximum; values checked against torch 2.15
    x = tl.tensor([[[1., 4., 4., 2., 0.], [3., -1., 5., 5., 2.]]], device=device, requires_grad=True)
    avg = F.adaptive_avg_pool1d(x, 3)
    assert_close(avg, np.array([[[2.5, 10 / 3, 1.0], [1.0, 3.0, 3.5]]], np.float32))
    values, indices = F.adaptive_max_pool1d(x, 3, return_indices=True)
    assert values.tolist() == [[[4., 4., 2.], [3., 5., 5.]]] and indices.tolist() == [[[1, 1, 3], [0, 2, 3]]]
    assert indices.dtype == tl.int64
    (values * tl.tensor([1., 2., 3.], device=device)).sum().backward()
    assert x.grad.tolist() == [[[0., 3., 0., 3., 0.], [1., 0., 2., 3., 0.]]]
    x.grad = None
    avg.sum().backward()
    assert_close(x.grad, np.array([[0.5, 5 / 6, 1 / 3, 5 / 6, 0.5]] * 2, np.float32)[None])
    assert F.adaptive_max_pool1d(x, 1).tolist() == [[[4.], [5.]]]  # (C, L) and a one-element tuple too
    assert_close(nn.AdaptiveAvgPool1d((1,))(x[0]), np.array([[2.2], [2.8]], np.float32))
    assert nn.AdaptiveMaxPool1d(2, return_indices=True)(x)[1].tolist() == [[[1, 2], [2, 2]]]
    assert repr(nn.AdaptiveMaxPool1d(2, return_indices=True)) == "AdaptiveMaxPool1d(output_size=2)"
    assert F.adaptive_avg_pool1d(x, 0).shape == (1, 2, 0)


def test_adaptive_max_pool1d_nan_takes_the_last_nan_of_a_bin(device):
    # PyTorch's kernel replaces its running max at every NaN: a bin's index (and its gradient) is its last NaN,
    # not its first; values from torch 2.15
    nan = float("nan")
    x = tl.tensor([[[nan, 1., nan, 3., 2., nan, 0.]]], device=device, requires_grad=True)
    assert F.adaptive_max_pool1d(x, 1, return_indices=True)[1].tolist() == [[[5]]]
    values, indices = F.adaptive_max_pool1d(x, 3, return_indices=True)  # bins [0,3) [2,5) [4,7)
    assert indices.tolist() == [[[2, 2, 5]]] and np.isnan(to_numpy(values)).all()
    values.backward(tl.tensor([[[1., 10., 100.]]], device=device))
    assert x.grad.tolist() == [[[0., 0., 11., 0., 0., 100., 0.]]]
    y = tl.tensor([[[nan, 1., nan, 3., 2., nan]]], device=device, requires_grad=True)  # O divides L: tiled bins
    values, indices = F.adaptive_max_pool1d(y, 2, return_indices=True)
    assert indices.tolist() == [[[2, 5]]]
    values.backward(tl.tensor([[[1., 10.]]], device=device))
    assert y.grad.tolist() == [[[0., 0., 1., 0., 0., 10.]]]


def test_adaptive_pool1d_errors():
    with pytest.raises(RuntimeError, match="Expected 2 to 3 dimensions, but got 1-dimensional tensor"):
        F.adaptive_avg_pool1d(tl.ones(5), 2)
    with pytest.raises(RuntimeError, match="should contain one int"):
        F.adaptive_max_pool1d(tl.ones(2, 3), (2, 2))
    with pytest.raises(RuntimeError, match="greater than or equal to 0 but received -1"):
        F.adaptive_avg_pool1d(tl.ones(2, 3), -1)
    with pytest.raises(TypeError, match="must be tuple of ints, not NoneType"):
        F.adaptive_max_pool1d(tl.ones(2, 3), None)
    with pytest.raises(RuntimeError, match=r"non-zero size .* sizes \[2, 0, 3\] with dimension 1 being empty"):
        F.adaptive_max_pool1d(tl.ones(2, 0, 3), 2)
    with pytest.raises(NotImplementedError, match="\"adaptive_avg_pool1d\" not implemented for 'Long'"):
        F.adaptive_avg_pool1d(tl.ones(2, 3, dtype=tl.int64), 2)
    # numpy and tensor integers are output sizes, as PyTorch's parser takes them (they raised TypeError); a list
    # input is PyTorch's TypeError, not an AttributeError
    x = tl.arange(8.0).reshape(1, 2, 4)
    assert F.adaptive_avg_pool1d(x, np.int64(2)).tolist() == [[[0.5, 2.5], [4.5, 6.5]]]
    assert F.adaptive_max_pool1d(x, (np.int32(2),)).tolist() == [[[1.0, 3.0], [5.0, 7.0]]]
    assert F.adaptive_max_pool1d(x, tl.tensor(2)).tolist() == [[[1.0, 3.0], [5.0, 7.0]]]
    with pytest.raises(TypeError, match="must be tuple of ints, not float64"):
        F.adaptive_avg_pool1d(x, np.float64(2.0))
    with pytest.raises(TypeError, match="must be tuple of ints, not Tensor"):
        F.adaptive_avg_pool1d(x, tl.tensor(2.0))
    with pytest.raises(TypeError, match=r"argument 'input' \(position 1\) must be Tensor, not list"):
        F.adaptive_avg_pool1d([[1.0, 2.0]], 1)


def test_adaptive_avg_pool1d_into_one_bin_of_an_empty_length_is_nan(device):
    # PyTorch averages into one bin as a mean over L: an empty L gives NaN (tensorlab raised "non-zero size");
    # into two bins it raises, as PyTorch's adaptive_avg_pool2d does. Values from torch 2.15
    x = tl.ones(2, 0, device=device, requires_grad=True)
    out = F.adaptive_avg_pool1d(x, 1)
    assert out.shape == (2, 1) and np.isnan(to_numpy(out.detach())).all()
    assert F.adaptive_avg_pool1d(tl.ones(1, 2, 0, device=device), (1,)).shape == (1, 2, 1)
    with pytest.raises(RuntimeError, match="non-zero size"):
        F.adaptive_avg_pool1d(tl.ones(2, 0, device=device), 2)
    with pytest.raises(RuntimeError, match="non-zero size"):
        F.adaptive_max_pool1d(tl.ones(2, 0, device=device), 1)
