"""Losses (issue 5): functional and module forms against independent numpy computations written here
from PyTorch's definitions, every reduction and option; gradients by finite differences (float64,
cpu) and cuda (real or interpreted) against cpu; the fused cross-entropy kernel against its numpy
twin (weights, ignore_index, label smoothing, fp16/bf16 logits, the long-row loop path); errors.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn as nn
import tensorlab.nn.functional as F
from tensorlab_kernels.nn import cross_entropy as kce
from tests.helpers import to_numpy
from tests.opinfo.nn_losses import ce_reference

CUDA = tl.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="no cuda device (real or interpreted)")
REDUCTIONS = ("none", "mean", "sum")


def T(a, device="cpu", grad=False, dtype=None):
    t = tl.tensor(np.asarray(a), device=device, dtype=dtype)
    return t.requires_grad_(True) if grad else t


def reduce_np(loss, reduction):
    return loss if reduction == "none" else loss.mean() if reduction == "mean" else loss.sum()


def close(got, expected, rtol=1e-10, atol=1e-12):
    np.testing.assert_allclose(to_numpy(got).astype(np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=rtol, atol=atol, equal_nan=True)


def gradcheck(fn, *arrays, grad_idx=None):
    grad_idx = range(len(arrays)) if grad_idx is None else grad_idx
    args = [T(a, grad=i in grad_idx and np.asarray(a).dtype.kind == "f") for i, a in enumerate(arrays)]
    assert tl.autograd.gradcheck(fn, args, eps=1e-6, atol=1e-6, rtol=1e-4)


def cuda_vs_cpu(fn, *arrays, grad_idx=(0,), rtol=1e-5, atol=1e-6):
    """Forward values and gradients (of a fixed non-uniform weighting of the output) agree."""
    results = {}
    for dev in ("cpu", "cuda"):
        args = [T(np.asarray(a).astype(np.float32) if np.asarray(a).dtype.kind == "f" else a, dev,
                  grad=i in grad_idx) for i, a in enumerate(arrays)]
        out = fn(*args)
        w = T(np.cos(np.arange(out.numel())).reshape(tuple(out.shape)).astype(np.float32), dev)
        out.backward(w)
        results[dev] = [to_numpy(out)] + [to_numpy(args[i].grad) for i in grad_idx]
        assert out.device.type == dev
    for c, g in zip(results["cpu"], results["cuda"]):
        np.testing.assert_allclose(g, c, rtol=rtol, atol=atol)


RNG = np.random.default_rng(20261122)
X = RNG.standard_normal((4, 6))
Y = RNG.standard_normal((4, 6))
W = RNG.random((4, 6)) + 0.1
P = RNG.random((4, 6)) * 0.9 + 0.05
B01 = (RNG.random((4, 6)) < 0.5).astype(np.float64)


# ----------------------------------------------------------------------------------------------
# regression losses
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_mse_l1_values(reduction):
    d = X - Y
    close(F.mse_loss(T(X), T(Y), reduction=reduction), reduce_np(d * d, reduction))
    close(F.l1_loss(T(X), T(Y), reduction=reduction), reduce_np(np.abs(d), reduction))
    close(nn.MSELoss(reduction=reduction)(T(X), T(Y)), reduce_np(d * d, reduction))
    close(nn.L1Loss(reduction=reduction)(T(X), T(Y)), reduce_np(np.abs(d), reduction))
    # weighted forms: 'mean' is sum(w * l) / sum(w)
    for fn, el in ((F.mse_loss, d * d), (F.l1_loss, np.abs(d))):
        expected = (W * el).sum() / W.sum() if reduction == "mean" else reduce_np(W * el, reduction)
        close(fn(T(X), T(Y), reduction=reduction, weight=T(W)), expected)


def test_mse_broadcast_warns_and_broadcasts():
    with pytest.warns(UserWarning, match="different to the input size"):
        out = F.mse_loss(T(X), T(Y[0]))
    close(out, ((X - Y[0]) ** 2).mean())


@pytest.mark.parametrize("beta", [0.0, 0.5, 1.0, 2.5])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_smooth_l1(beta, reduction):
    a = np.abs(X - Y)
    el = a if beta == 0 else np.where(a < beta, 0.5 * a * a / beta, a - 0.5 * beta)
    close(F.smooth_l1_loss(T(X), T(Y), reduction=reduction, beta=beta), reduce_np(el, reduction))
    close(nn.SmoothL1Loss(reduction=reduction, beta=beta)(T(X), T(Y)), reduce_np(el, reduction))


@pytest.mark.parametrize("delta", [0.3, 1.0, 2.0])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_huber(delta, reduction):
    a = np.abs(X - Y)
    el = np.where(a < delta, 0.5 * a * a, delta * (a - 0.5 * delta))
    close(F.huber_loss(T(X), T(Y), reduction=reduction, delta=delta), reduce_np(el, reduction))
    close(nn.HuberLoss(reduction=reduction, delta=delta)(T(X), T(Y)), reduce_np(el, reduction))
    # weighted huber: 'mean' is the plain mean of w * l (PyTorch's rule, unlike mse/l1)
    close(F.huber_loss(T(X), T(Y), reduction=reduction, delta=delta, weight=T(W)), reduce_np(W * el, reduction))


def test_huber_equals_smooth_l1_times_delta():
    delta = 1.7
    h = F.huber_loss(T(X), T(Y), delta=delta, reduction="none")
    s = F.smooth_l1_loss(T(X), T(Y), beta=delta, reduction="none")
    close(h, to_numpy(s) * delta)


def test_regression_gradients():
    gradcheck(lambda a, b: F.mse_loss(a, b), X, Y)
    gradcheck(lambda a, b: F.l1_loss(a, b, reduction="sum"), X, Y)
    gradcheck(lambda a, b: F.smooth_l1_loss(a, b, beta=0.6), X, Y)
    gradcheck(lambda a, b: F.huber_loss(a, b, delta=0.8, reduction="none"), X, Y)
    gradcheck(lambda a, b, w: F.mse_loss(a, b, weight=w), X, Y, W, grad_idx=(0, 1))


# ----------------------------------------------------------------------------------------------
# cross_entropy / nll_loss
# ----------------------------------------------------------------------------------------------


def _ce_cases():
    x2 = RNG.standard_normal((6, 5))
    t2 = np.array([0, 4, -100, 2, 2, 1])
    x4 = RNG.standard_normal((2, 5, 3, 2))
    t4 = RNG.integers(0, 5, (2, 3, 2))
    t4[1, 2, 0] = -100
    return [(x2, t2), (x4, t4), (RNG.standard_normal(5), np.array(3))]


CE_CASES = _ce_cases()
CW = RNG.random(5) + 0.2


@pytest.mark.parametrize("case", range(3), ids=["NC", "NCd1d2", "C"])
@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.25])
def test_cross_entropy_indices(case, reduction, weighted, smoothing):
    x, t = CE_CASES[case]
    w = CW if weighted else None
    got = F.cross_entropy(T(x), T(t), weight=T(w) if weighted else None, reduction=reduction,
                          label_smoothing=smoothing)
    close(got, ce_reference(x, t, w, -100, reduction, smoothing))
    module = nn.CrossEntropyLoss(weight=T(w) if weighted else None, reduction=reduction, label_smoothing=smoothing)
    close(module(T(x), T(t)), ce_reference(x, t, w, -100, reduction, smoothing))


def test_cross_entropy_by_hand():
    """A value worked out by hand: logits (0, ln 3) -> p = (1/4, 3/4)."""
    x = np.array([[0.0, math.log(3.0)]])
    close(F.cross_entropy(T(x), T([1])), -math.log(0.75))
    close(F.cross_entropy(T(x), T([0])), -math.log(0.25))
    # label smoothing 0.5 over 2 classes: target (0.25, 0.75) for class 1
    close(F.cross_entropy(T(x), T([1]), label_smoothing=0.5), -(0.25 * math.log(0.25) + 0.75 * math.log(0.75)))


def test_cross_entropy_ignore_index_custom_and_all_ignored():
    x, t = CE_CASES[0]
    t = t.copy()
    t[t == -100] = 3
    close(F.cross_entropy(T(x), T(t), ignore_index=3), ce_reference(x, t, None, 3))
    # every row ignored: 'mean' is 0/0 = nan (PyTorch), 'sum' is 0
    tt = np.full(6, -100)
    assert math.isnan(F.cross_entropy(T(x), T(tt)).item())
    assert F.cross_entropy(T(x), T(tt), reduction="sum").item() == 0.0


def test_cross_entropy_uint8_target():
    x, t = CE_CASES[0]
    t = np.where(t < 0, 0, t).astype(np.uint8)
    close(F.cross_entropy(T(x), T(t)), ce_reference(x, t.astype(np.int64)))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_probabilities(reduction, weighted):
    x = RNG.standard_normal((2, 4, 3))
    p = RNG.random((2, 4, 3))
    p /= p.sum(1, keepdims=True)
    w = RNG.random(4) + 0.5
    for smoothing in (0.0, 0.2):
        logp = x - np.log(np.exp(x).sum(1, keepdims=True))
        tgt = p * (1 - smoothing) + smoothing / 4
        ww = w.reshape(1, 4, 1) if weighted else 1.0
        el = -(logp * tgt * ww).sum(1)
        got = F.cross_entropy(T(x), T(p), weight=T(w) if weighted else None, reduction=reduction,
                              label_smoothing=smoothing)
        close(got, reduce_np(el, reduction))  # 'mean' divides by N * d1 (not by the weights)
    gradcheck(lambda a, b: F.cross_entropy(a, b, label_smoothing=0.1), x, p)


def test_cross_entropy_gradients_fused():
    for (x, t), smoothing in zip(CE_CASES, (0.0, 0.3, 0.2)):
        for weighted in (False, True):
            w = T(CW) if weighted else None
            tt = T(t)
            for reduction in REDUCTIONS:
                gradcheck(lambda a, w=w, t=tt, r=reduction, s=smoothing:
                          F.cross_entropy(a, t, weight=w, reduction=r, label_smoothing=s), x)


def test_cross_entropy_double_backward():
    x, t = CE_CASES[0]
    args = [T(x, grad=True)]
    assert tl.autograd.gradgradcheck(lambda a: F.cross_entropy(a, T(t), weight=T(CW), label_smoothing=0.2), args)
    assert tl.autograd.gradgradcheck(lambda a: F.cross_entropy(a, T(t), reduction="none"), args)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss(reduction, weighted):
    for x, t in CE_CASES:
        w = CW if weighted else None
        logp = x - np.log(np.exp(x).sum(0 if x.ndim == 1 else 1, keepdims=True))
        expected = ce_reference(x, t, w, -100, reduction)  # nll(log_softmax(x)) is cross_entropy(x)
        close(F.nll_loss(T(logp), T(t), weight=T(w) if weighted else None, reduction=reduction), expected)
        close(nn.NLLLoss(weight=T(w) if weighted else None, reduction=reduction)(T(logp), T(t)), expected)
    x, t = CE_CASES[1]
    gradcheck(lambda a: F.nll_loss(a, T(t), weight=T(CW) if weighted else None, reduction=reduction), x)


@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_mean_all_ignored_gradient(device, weighted):
    """Every target ignored: 'mean' is 0/0 = NaN, but the gradient is 0 (PyTorch), not NaN at the
    class each ignored row stands in with; a valid row of weight 0 still gets 0 * inf = NaN."""
    x = np.log(np.full((3, 4), 0.25))
    w = T(np.array([0.5, 1.0, 2.0, 0.0]), device) if weighted else None
    a = T(x, device, grad=True)
    loss = F.nll_loss(a, T(np.array([-100, -100, -100]), device), weight=w)
    assert math.isnan(loss.item())
    loss.backward()
    np.testing.assert_array_equal(to_numpy(a.grad), np.zeros((3, 4)))
    if weighted:  # the only valid row's class has weight 0: sum(w_t) = 0 and PyTorch's gradient is NaN there
        a = T(x, device, grad=True)
        F.nll_loss(a, T(np.array([-100, 3, -100]), device), weight=w).backward()
        g = to_numpy(a.grad)
        assert math.isnan(g[1, 3]) and np.count_nonzero(np.isnan(g)) == 1 and not g[~np.isnan(g)].any()


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_class_losses_1d_input_with_size_1_target(device, reduction):
    """A 1-D input (one sample of C classes) takes a target of shape (1) as well as a 0-D one (PyTorch):
    the same 0-D loss and gradient; a longer 1-D target or a 2-D one raises as PyTorch."""
    x = np.array([0.5, -1.0, 2.0, 0.25, 1.5])
    logp = x - np.log(np.exp(x).sum())
    for fn, inp, expected in ((F.cross_entropy, x, -logp[2]), (F.nll_loss, logp, -logp[2])):
        grads = []
        for t in (np.array(2), np.array([2])):
            a = T(inp, device, grad=True)
            loss = fn(a, T(t, device), reduction=reduction)
            assert tuple(loss.shape) == ()
            close(loss, expected)
            loss.backward()
            grads.append(to_numpy(a.grad))
        np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)
        assert fn(T(inp, device), T(np.array([-100]), device), reduction="sum").item() == 0.0
        with pytest.raises(ValueError, match="1D target must have size 1, but got target size: 2"):
            fn(T(inp, device), T(np.array([2, 1]), device))
        with pytest.raises(RuntimeError, match="multi-target not supported"):
            fn(T(inp, device), T(np.array([[2]]), device))


# ----------------------------------------------------------------------------------------------
# the fused cross-entropy kernel on cuda
# ----------------------------------------------------------------------------------------------


@needs_cuda
@pytest.mark.parametrize("dtype", [tl.float32, tl.float16, tl.bfloat16])
def test_cross_entropy_kernel_matches_twin(dtype):
    """Forward outputs (per-row loss, w_t, (row max, log-sum)) and the backward kernel against the numpy twins."""
    x = (RNG.standard_normal((9, 7)) * 4).astype(np.float32)
    t = RNG.integers(0, 7, 9)
    t[[2, 5]] = -100
    w = (RNG.random(7) + 0.3).astype(np.float32)
    tol = {tl.float32: (1e-5, 1e-6), tl.float16: (2e-3, 2e-3), tl.bfloat16: (2e-2, 2e-2)}[dtype]
    for weighted in (False, True):
        for smoothing in (0.0, 0.15):
            outs = {}
            for dev in ("cpu", "cuda"):
                xt = T(x, dev, dtype=dtype, grad=True)
                wt = T(w, dev, dtype=dtype) if weighted else None
                rows, w_t, stats, status = tl._dispatch.dispatch(
                    F.loss.CROSS_ENTROPY, xt, T(t, dev), wt, class_dim=1, ignore_index=-100,
                    label_smoothing=smoothing)
                assert rows.dtype is tl.float32 and not to_numpy(status).any()
                g = T(np.linspace(-1, 1, 9).astype(np.float32), dev)
                rows.backward(g)
                outs[dev] = (to_numpy(rows), to_numpy(w_t), to_numpy(stats), to_numpy(xt.grad.float()))
                assert xt.grad.dtype is dtype
            for c, g in zip(outs["cpu"], outs["cuda"]):
                np.testing.assert_allclose(g, c, rtol=tol[0], atol=tol[1])
            # and both against the float64 definition
            xr = x.astype(dtype.np).astype(np.float64)
            np.testing.assert_allclose(outs["cuda"][0], ce_reference(xr, t, w.astype(dtype.np) if weighted else None,
                                                                     -100, "none", smoothing), rtol=1e-4, atol=1e-5)


@needs_cuda
def test_cross_entropy_kernel_long_rows_loop(monkeypatch):
    """Rows longer than one tile take the looped path (online logsumexp, re-shifted smoothing sums)."""
    monkeypatch.setattr(kce, "MAX_ONE_TILE", 8)
    monkeypatch.setattr(kce, "LOOP_BLOCK_N", 8)
    x = RNG.standard_normal((3, 37)) * 3
    x[1, 30] = 25.0  # the running maximum grows late in the row
    x[2, :] -= 40.0
    t = np.array([30, 5, -100])
    w = RNG.random(37) + 0.1
    for weighted in (False, True):
        for smoothing in (0.0, 0.3):
            kw = dict(weight=T(w, "cuda", dtype=tl.float32) if weighted else None, label_smoothing=smoothing,
                      reduction="none")
            xt = T(x, "cuda", grad=True, dtype=tl.float32)
            out = F.cross_entropy(xt, T(t, "cuda"), **kw)
            close(out, ce_reference(x, t, w if weighted else None, -100, "none", smoothing), rtol=1e-5, atol=1e-5)
            out.backward(T(np.array([1.0, -2.0, 0.5], np.float32), "cuda"))
            xc = T(x, grad=True)
            kwc = dict(kw, weight=T(w) if weighted else None)
            F.cross_entropy(xc, T(t), **kwc).backward(T(np.array([1.0, -2.0, 0.5])))
            np.testing.assert_allclose(to_numpy(xt.grad), to_numpy(xc.grad), rtol=1e-5, atol=1e-6)



@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if CUDA else []))
@pytest.mark.parametrize("looped", [False, True])
def test_cross_entropy_huge_logits(device, looped, monkeypatch):
    """Logits near 1e9 or 3e38 (float32): a row whose logits are equal has loss log(C) and softmax 1/C,
    as PyTorch's (x - m) - log(s). (Forming lse = m + log(s) first rounds log(s) away there: the loss
    came out 0 and every p_c 1.) Both the one-tile and the looped kernel paths, and label smoothing;
    rows far below exp's range too."""
    if looped:
        monkeypatch.setattr(kce, "MAX_ONE_TILE", 2)
        monkeypatch.setattr(kce, "LOOP_BLOCK_N", 2)
    fmin = float(np.finfo(np.float32).min)
    x = np.array([[1e9, 1e9, 1e9, 1e9, 1e9], [1e9, 1e9 + 64, 1e9 - 64, 1e9, 1e9 + 128],
                  [3e38, 3e38, 3e38, 1.0, 3e38], [0.5, -1.0, 2.0, 0.0, 1.0],
                  # a first column tile far below exp's range: the looped path's rescale of the empty
                  # sum was exp(0 - m), inf, and 0 * inf a NaN loss
                  [-1e9, -1e9, 0.5, 1.0, -0.3], [fmin, fmin, fmin, fmin, fmin]], np.float32)
    t = np.array([0, 3, 3, 2, 2, 1])
    g = np.array([1.0, -0.5, 2.0, 1.5, 0.7, -1.2], np.float32)
    for smoothing in (0.0, 0.1):
        xt = T(x, device, grad=True)
        out = F.cross_entropy(xt, T(t, device), reduction="none", label_smoothing=smoothing)
        out.backward(T(g, device))
        xd = x.astype(np.float64)  # (in float64 these magnitudes keep every difference: the exact answer)
        close(out, ce_reference(xd, t, None, -100, "none", smoothing), rtol=1e-6, atol=1e-6)
        xc = T(xd, grad=True)
        F.cross_entropy(xc, T(t), reduction="none", label_smoothing=smoothing).backward(T(g.astype(np.float64)))
        close(xt.grad, to_numpy(xc.grad), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(out)[0], math.log(5) * 0.9 + 0.1 * math.log(5), rtol=1e-6)

@needs_cuda
def test_cross_entropy_cuda_nchw_strided_and_reductions():
    base = RNG.standard_normal((2, 3, 5, 6))  # (N, d1, d2, C)
    t = RNG.integers(0, 6, (2, 3, 5))
    view = T(base, "cuda", dtype=tl.float32).permute(0, 3, 1, 2)  # (N, C, d1, d2): the class dim is strided
    assert not view.is_contiguous()
    got = F.cross_entropy(view, T(t, "cuda"), reduction="none", label_smoothing=0.1)
    x = np.ascontiguousarray(base.transpose(0, 3, 1, 2))
    close(got, ce_reference(x, t, None, -100, "none", 0.1), rtol=1e-5, atol=1e-6)
    w6 = (RNG.random(6) + 0.2).astype(np.float32)
    for reduction in REDUCTIONS:
        cuda_vs_cpu(lambda a, r=reduction: F.cross_entropy(a, T(t, a.device.type), weight=T(w6, a.device.type),
                                                           reduction=r), x)


@needs_cuda
def test_nll_loss_cuda_vs_cpu():
    x, t = CE_CASES[1]
    cuda_vs_cpu(lambda a: F.nll_loss(a.log_softmax(1), T(t, a.device.type)), x)


# ----------------------------------------------------------------------------------------------
# binary cross-entropy
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce(reduction):
    el = -(B01 * np.log(P) + (1 - B01) * np.log(1 - P))
    close(F.binary_cross_entropy(T(P), T(B01), reduction=reduction), reduce_np(el, reduction))
    wr = RNG.random(6) + 0.1  # broadcasts over the rows
    close(nn.BCELoss(weight=T(wr), reduction=reduction)(T(P), T(B01)), reduce_np(el * wr, reduction))


def test_class_weight_dtype_must_be_the_input_dtype():
    # PyTorch's class-index kernels take one dtype (a float64 weight was used with float32 logits)
    target = tl.tensor([0, 1])
    for call, message in (
        (lambda: nn.NLLLoss(weight=tl.ones(3, dtype=tl.float16))(tl.zeros(2, 3), target), "Float but found Half"),
        (lambda: nn.CrossEntropyLoss(weight=tl.ones(3, dtype=tl.float64))(tl.zeros(2, 3), target),
         "Float but found Double"),
        (lambda: F.cross_entropy(tl.zeros(2, 3, dtype=tl.float64), target, weight=tl.ones(3)),
         "Double but found Float"),
    ):
        with pytest.raises(RuntimeError, match=f"expected scalar type {message}"):
            call()
    # class probabilities: composed of ops, so the weight promotes, as PyTorch
    probs = tl.softmax(tl.ones(2, 3), 1)
    r = F.cross_entropy(tl.zeros(2, 3), probs, weight=tl.ones(3, dtype=tl.float64))
    assert r.dtype is tl.float64 and r.item() == pytest.approx(math.log(3), rel=1e-6)


def test_bce_zero_dim_weight(device):
    # a 0-d target with a weight: expand(*()) raised TypeError
    x, y, w = (tl.tensor(v, dtype=tl.float64, device=device) for v in (0.3, 1.0, 0.5))
    assert F.binary_cross_entropy(x, y, weight=w).item() == pytest.approx(-0.5 * math.log(0.3), rel=1e-12)
    assert nn.BCELoss(weight=w, reduction="sum")(x, y).item() == pytest.approx(-0.5 * math.log(0.3), rel=1e-12)


def test_bce_target_dtype_must_match_the_input(device):
    """binary_cross_entropy takes a target of the input's dtype only, as PyTorch ("Found dtype Long
    but expected Float"); an integer, bool or other floating target was promoted (bool: a confusing
    sub() error), so a mistaken label tensor went through."""
    x = T([0.2, 0.7, 0.5], device, dtype=tl.float32)
    for bad, name in ((tl.int64, "Long"), (tl.float64, "Double"), (tl.float16, "Half"), (tl.bool, "Bool")):
        with pytest.raises(RuntimeError, match=f"Found dtype {name} but expected Float"):
            F.binary_cross_entropy(x, T([1, 0, 1], device, dtype=bad))
        with pytest.raises(RuntimeError, match=f"Found dtype {name} but expected Float"):
            nn.BCELoss()(x, T([1, 0, 1], device, dtype=bad))
    # the same dtype works, the weight may differ (PyTorch: the result keeps the input's dtype)
    y = T([1.0, 0.0, 1.0], device, dtype=tl.float32)
    close(F.binary_cross_entropy(x, y), np.mean([-math.log(0.2), -math.log(0.3), -math.log(0.5)]), rtol=1e-6)
    h = T([0.2, 0.7], device, dtype=tl.float16)
    assert F.binary_cross_entropy(h, T([1.0, 0.0], device, dtype=tl.float16)).dtype is tl.float16


def test_bce_log_clamped_at_minus_100():
    x = np.array([0.0, 1.0, 1e-50, 0.5])
    y = np.array([1.0, 0.0, 1.0, 0.0])
    close(F.binary_cross_entropy(T(x), T(y), reduction="none"), [100.0, 100.0, 100.0, math.log(2.0)])


def test_bce_gradient_formula():
    """PyTorch's gradient: w (x - y) / max(x (1 - x), float32(1e-12)), also at x = 0 and 1 (finite)."""
    x = np.array([0.2, 0.0, 1.0, 0.7])
    y = np.array([1.0, 0.0, 0.0, 0.3])
    xt = T(x, grad=True)
    F.binary_cross_entropy(xt, T(y), reduction="sum").backward()
    close(xt.grad, (x - y) / np.maximum(x * (1 - x), float(np.float32(1e-12))))
    gradcheck(lambda a, b: F.binary_cross_entropy(a, b), P, P[::-1].copy())


def test_bce_gradient_floor_is_float32_1e_12():
    # a saturated float64 probability: torch 2.15 divides by 1e-12 rounded to float32, so its gradients
    # are -300000001198.74084 and 700000002797.0619 (tensorlab's exact 1e-12 gave -3e11 and 7e11)
    xt = tl.tensor([4.248354255291589e-18, 1.0], dtype=tl.float64, requires_grad=True)
    F.binary_cross_entropy(xt, tl.tensor([0.3, 0.3], dtype=tl.float64), reduction="sum").backward()
    assert xt.grad.tolist() == [-300000001198.74084, 700000002797.0619]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_bce_with_logits(reduction):
    x = X * 4
    sp = np.logaddexp(0, -x)  # softplus(-x) = -log(sigmoid(x))
    el = (1 - P) * x + sp
    close(F.binary_cross_entropy_with_logits(T(x), T(P), reduction=reduction), reduce_np(el, reduction))
    pw = RNG.random(6) * 3
    w = RNG.random(6) + 0.1
    lw = 1 + (pw - 1) * P
    el_w = w * ((1 - P) * x + lw * sp)
    got = nn.BCEWithLogitsLoss(weight=T(w), pos_weight=T(pw), reduction=reduction)(T(x), T(P))
    close(got, reduce_np(el_w, reduction))


def test_bce_with_logits_is_stable():
    x = np.array([-1000.0, 1000.0, 0.0, 50.0])
    y = np.array([1.0, 0.0, 0.5, 1.0])
    close(F.binary_cross_entropy_with_logits(T(x), T(y), reduction="none"),
          [1000.0, 1000.0, math.log(2.0), math.log1p(math.exp(-50.0))])
    xt = T(x, grad=True)
    F.binary_cross_entropy_with_logits(xt, T(y), reduction="sum").backward()
    sigmoid = np.exp(-np.logaddexp(0, -x))
    close(xt.grad, sigmoid - y)  # sigmoid(x) - y, exactly 0.5 - y at x = 0
    gradcheck(lambda a, b, pw: F.binary_cross_entropy_with_logits(a, b, pos_weight=pw.detach()), X, P,
              RNG.random(6) + 0.5, grad_idx=(0, 1))


@needs_cuda
def test_bce_cuda_vs_cpu():
    cuda_vs_cpu(lambda a, b: F.binary_cross_entropy(a, b), P, B01, grad_idx=(0, 1))
    cuda_vs_cpu(lambda a, b: F.binary_cross_entropy_with_logits(a, b, pos_weight=T(np.arange(6.0, dtype=np.float32),
                                                                                    a.device.type)), X, P)


# ----------------------------------------------------------------------------------------------
# kl_div, poisson_nll_loss, gaussian_nll_loss
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", (*REDUCTIONS, "batchmean"))
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    inp = np.log(P)
    q = P[::-1].copy()
    q[0, 0] = 0.0  # xlogy: 0 * log 0 = 0
    tgt = np.log(P[:, ::-1]) if log_target else q
    el = np.exp(tgt) * (tgt - inp) if log_target else np.where(q > 0, q * np.log(np.where(q > 0, q, 1)), 0) - q * inp
    expected = el.sum() / 4 if reduction == "batchmean" else reduce_np(el, reduction)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 'mean' warns (as PyTorch)
        close(F.kl_div(T(inp), T(tgt), reduction=reduction, log_target=log_target), expected)
        close(nn.KLDivLoss(reduction=reduction, log_target=log_target)(T(inp), T(tgt)), expected)
    gradcheck(lambda a, b: F.kl_div(a, b, reduction="batchmean", log_target=log_target), inp, np.log(P[:, ::-1])
              if log_target else P[:, ::-1].copy())


def test_kl_div_mean_warns():
    with pytest.warns(UserWarning, match="batchmean"):
        F.kl_div(T(np.log(P)), T(P))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("log_input", [True, False])
@pytest.mark.parametrize("full", [False, True])
def test_poisson_nll(reduction, log_input, full):
    inp = X if log_input else P * 3
    tgt = np.floor(P * 6)  # 0 .. 5: the Stirling term applies where target > 1
    el = np.exp(inp) - tgt * inp if log_input else inp - tgt * np.log(inp + 1e-8)
    if full:
        ts = np.where(tgt > 1, tgt, 1)
        el = el + np.where(tgt > 1, ts * np.log(ts) - ts + 0.5 * np.log(2 * np.pi * ts), 0)
    close(F.poisson_nll_loss(T(inp), T(tgt), log_input=log_input, full=full, reduction=reduction),
          reduce_np(el, reduction))
    close(nn.PoissonNLLLoss(log_input=log_input, full=full, reduction=reduction)(T(inp), T(tgt)),
          reduce_np(el, reduction))
    gradcheck(lambda a: F.poisson_nll_loss(a, T(tgt), log_input=log_input, full=full, reduction=reduction), inp)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll(reduction, full):
    var = P.copy()
    var[0, 0] = 1e-9  # clamped to eps
    for v in (var, var[:, 0], var[:, :1], 0.7):  # heteroscedastic, one dim short, size-1 last dim, a number
        vv = np.asarray(v) if not isinstance(v, float) else np.full_like(X, v)
        if vv.ndim == 1:
            vv = vv[:, None]
        vc = np.maximum(vv, 1e-6)
        el = 0.5 * (np.log(vc) + (X - Y) ** 2 / vc) + (0.5 * math.log(2 * math.pi) if full else 0)
        vt = v if isinstance(v, float) else T(v)
        close(F.gaussian_nll_loss(T(X), T(Y), vt, full=full, reduction=reduction), reduce_np(el, reduction))
        close(nn.GaussianNLLLoss(full=full, reduction=reduction)(T(X), T(Y), vt), reduce_np(el, reduction))


def test_gaussian_nll_gradient_flows_through_the_clamp():
    """The clamp happens under no_grad on a clone: d/dvar is computed at the clamped value."""
    var = np.array([1e-9, 0.5, 2.0])
    x, y = np.array([0.1, 0.2, 0.3]), np.array([0.0, 1.0, -1.0])
    vt = T(var, grad=True)
    F.gaussian_nll_loss(T(x), T(y), vt, reduction="sum").backward()
    vc = np.maximum(var, 1e-6)
    close(vt.grad, 0.5 * (1 / vc - (x - y) ** 2 / vc**2), rtol=1e-9)
    gradcheck(lambda a, b, v: F.gaussian_nll_loss(a, b, v), X, Y, P)


@needs_cuda
def test_kl_poisson_gaussian_cuda_vs_cpu():
    cuda_vs_cpu(lambda a, b: F.kl_div(a, b, reduction="batchmean"), np.log(P), P[::-1].copy(), grad_idx=(0, 1))
    cuda_vs_cpu(lambda a: F.poisson_nll_loss(a, T(np.floor(P * 6).astype(np.float32), a.device.type), full=True), X)
    cuda_vs_cpu(lambda a, v: F.gaussian_nll_loss(a, T(Y.astype(np.float32), a.device.type), v, full=True), X, P,
                grad_idx=(0, 1))


# ----------------------------------------------------------------------------------------------
# embedding and ranking losses
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_cosine_embedding(reduction):
    y = np.array([1.0, -1.0, 1.0, -1.0])
    for margin in (0.0, 0.3, -0.5):
        cos = (X * Y).sum(1) / np.sqrt(((X * X).sum(1) + 1e-12) * ((Y * Y).sum(1) + 1e-12))
        el = np.where(y == 1, 1 - cos, np.maximum(cos - margin, 0))
        close(F.cosine_embedding_loss(T(X), T(Y), T(y), margin=margin, reduction=reduction), reduce_np(el, reduction))
        close(nn.CosineEmbeddingLoss(margin=margin, reduction=reduction)(T(X), T(Y), T(y)), reduce_np(el, reduction))
    # 1-D inputs with a 0-d target
    c0 = (X[0] * Y[0]).sum() / np.sqrt(((X[0] ** 2).sum() + 1e-12) * ((Y[0] ** 2).sum() + 1e-12))
    close(F.cosine_embedding_loss(T(X[0]), T(Y[0]), T(-1.0), margin=-0.2, reduction=reduction), max(c0 + 0.2, 0))
    gradcheck(lambda a, b: F.cosine_embedding_loss(a, b, T(y), margin=-0.3), X, Y)


def test_cosine_embedding_epsilon_is_float32_1e_12():
    # vectors of squared norm near 1e-12: torch 2.15's values (an exact 1e-12 gave 0.9906951578960153 and
    # 0.008943824729940989, PyTorch adds 1e-12 rounded to float32)
    a = tl.tensor([[1e-7, 2e-7], [1.0, 2.0]], dtype=tl.float64)
    b = tl.tensor([[3e-7, -1e-7], [0.0, 1e-8]], dtype=tl.float64)
    got = F.cosine_embedding_loss(a, b, tl.tensor([1, -1]), reduction="none")
    np.testing.assert_allclose(got.tolist(), [0.9906951578614103, 0.008943824747808082], rtol=1e-14)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_margin_ranking(reduction):
    y = np.array([1.0, -1.0, -1.0, 1.0, 1.0, -1.0])
    for margin in (0.0, 0.5):
        el = np.maximum(0, -y * (X[0] - Y[0]) + margin)
        close(F.margin_ranking_loss(T(X[0]), T(Y[0]), T(y), margin=margin, reduction=reduction),
              reduce_np(el, reduction))
        close(nn.MarginRankingLoss(margin=margin, reduction=reduction)(T(X[0]), T(Y[0]), T(y)),
              reduce_np(el, reduction))
    gradcheck(lambda a, b: F.margin_ranking_loss(a, b, T(y), margin=0.25), X[0] + 0.01, Y[0])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("p", [1.0, 2.0, 3.0])
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin(reduction, p, swap):
    neg = X[::-1].copy()

    def dist(a, b):
        return (np.abs(a - b + 1e-6) ** p).sum(-1) ** (1 / p)

    d_neg = dist(X, neg)
    if swap:
        d_neg = np.minimum(d_neg, dist(Y, neg))
    el = np.maximum(1.5 + dist(X, Y) - d_neg, 0)
    close(F.triplet_margin_loss(T(X), T(Y), T(neg), margin=1.5, p=p, swap=swap, reduction=reduction),
          reduce_np(el, reduction))
    close(nn.TripletMarginLoss(margin=1.5, p=p, swap=swap, reduction=reduction)(T(X), T(Y), T(neg)),
          reduce_np(el, reduction))
    if reduction == "mean":
        gradcheck(lambda a, b, c: F.triplet_margin_loss(a, b, c, margin=1.5, p=p, swap=swap), X, Y, neg)


@needs_cuda
def test_embedding_losses_cuda_vs_cpu():
    y = np.array([1.0, -1.0, 1.0, -1.0], np.float32)
    cuda_vs_cpu(lambda a, b: F.cosine_embedding_loss(a, b, T(y, a.device.type), margin=-0.2), X, Y, grad_idx=(0, 1))
    cuda_vs_cpu(lambda a, b, c: F.triplet_margin_loss(a, b, c, swap=True), X, Y, X[::-1].copy(), grad_idx=(0, 1, 2))
    cuda_vs_cpu(lambda a, b: F.margin_ranking_loss(a, b, T(y, a.device.type), margin=0.1), X[:, 0].copy(),
                Y[:, 0].copy(), grad_idx=(0, 1))
    cuda_vs_cpu(lambda a, b: F.smooth_l1_loss(a, b, beta=0.5) + F.huber_loss(a, b) + F.mse_loss(a, b)
                + F.l1_loss(a, b), X, Y, grad_idx=(0, 1))


# ----------------------------------------------------------------------------------------------
# modules, reductions, dtypes
# ----------------------------------------------------------------------------------------------


def test_weight_buffers_and_state_dict():
    ce = nn.CrossEntropyLoss(weight=T(CW))
    assert list(ce.state_dict().keys()) == ["weight"]
    assert list(nn.CrossEntropyLoss().state_dict().keys()) == []
    bce = nn.BCEWithLogitsLoss(weight=T(np.ones(3)), pos_weight=T(np.ones(3)))
    assert sorted(bce.state_dict().keys()) == ["pos_weight", "weight"]
    assert [n for n, _ in ce.named_buffers()] == ["weight"]
    assert not list(ce.parameters())
    m = nn.NLLLoss(ignore_index=3, reduction="sum")
    assert (m.ignore_index, m.reduction, m.weight) == (3, "sum", None)
    assert repr(nn.MSELoss()) == "MSELoss()"


@needs_cuda
def test_module_to_cuda_moves_weights():
    ce = nn.CrossEntropyLoss(weight=T(CW.astype(np.float32)), label_smoothing=0.1).cuda()
    assert ce.weight.device.type == "cuda"
    x, t = CE_CASES[0]
    got = ce(T(x.astype(np.float32), "cuda"), T(t, "cuda"))
    close(got, ce_reference(x, t, CW, -100, "mean", 0.1), rtol=1e-5, atol=1e-6)


def test_legacy_size_average_reduce():
    with pytest.warns(UserWarning, match="reduction='sum'"):
        got = F.mse_loss(T(X), T(Y), size_average=False)
    close(got, ((X - Y) ** 2).sum())
    with pytest.warns(UserWarning, match="reduction='none'"):
        m = nn.L1Loss(reduce=False)
    assert m.reduction == "none"


def test_half_precision_losses_keep_dtype():
    x, t = CE_CASES[0]
    for dt in (tl.float16, tl.bfloat16):
        out = F.cross_entropy(T(x, dtype=dt), T(t))
        assert out.dtype is dt
        np.testing.assert_allclose(out.float().item(), ce_reference(x.astype(dt.np).astype(np.float64), t),
                                   rtol=1e-2)
        assert F.mse_loss(T(X, dtype=dt), T(Y, dtype=dt)).dtype is dt


# ----------------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["cpu"] + (["cuda"] if CUDA else []))
def test_cross_entropy_target_out_of_range(device):
    x = T(np.zeros((40, 5)), device, dtype=tl.float32)
    t = np.zeros(40, np.int64)
    t[3] = -100
    for bad in (5, -3, 99):
        t[33] = bad
        with pytest.raises(IndexError, match=rf"Target {bad} is out of bounds.*5 classes"):
            F.cross_entropy(x, T(t, device))
        with pytest.raises(IndexError, match=rf"Target {bad} is out of bounds"):
            F.nll_loss(x, T(t, device))


def test_cross_entropy_shape_and_type_errors():
    x = T(np.zeros((3, 5)))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target batch_size \(2\)"):
        F.cross_entropy(x, T([1, 2]))
    with pytest.raises(RuntimeError, match=r"Expected target size \[2, 4\], got \[2, 3\]"):
        F.cross_entropy(T(np.zeros((2, 5, 4))), T(np.zeros((2, 3), np.int64)))
    with pytest.raises(RuntimeError, match="Long or Byte, but got int32"):
        F.cross_entropy(x, T(np.array([1, 2, 3], np.int32)))
    with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
        F.cross_entropy(x, T([1, 2, 3]), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match=r"for all 5 classes.*shape: \[4\]"):
        F.cross_entropy(x, T([1, 2, 3]), weight=T(np.ones(4)))
    with pytest.raises(RuntimeError, match=r"input \[3, 5\], target \[3, 4\]"):
        F.cross_entropy(x, T(np.zeros((3, 4))))
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point target"):
        F.cross_entropy(x, T(np.zeros((3, 5))), ignore_index=1)
    with pytest.raises(RuntimeError, match="floating point input"):
        F.cross_entropy(T(np.zeros((3, 5), np.int64)), T([1, 2, 3]))
    with pytest.raises(ValueError, match="mean_ish is not a valid value for reduction"):
        F.cross_entropy(x, T([1, 2, 3]), reduction="mean_ish")
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'weight'"):
        F.cross_entropy(x, T([1, 2, 3]), weight=T(np.ones(5), grad=True))
    with pytest.raises(TypeError, match="argument 'target' must be Tensor"):
        F.cross_entropy(x, [1, 2, 3])


def test_cross_entropy_probabilities_weight_gets_a_gradient():
    """With class probabilities PyTorch composes the loss, so a weight that requires grad is allowed
    and differentiated (it was refused as for class indices). Values from torch 2.13."""
    x = T([[0.5, -1.0, 2.0, 0.1], [1.5, 0.3, -0.2, 0.0]], grad=True)
    p = T([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1]])
    w = T([1.0, 2.0, 0.5, 1.5], grad=True)
    loss = F.cross_entropy(x, p, w, label_smoothing=0.1)
    loss.backward()
    close(loss, 2.084497415075985)
    close(w.grad, [0.2816413692110623, 0.4433692776534081, 0.18047754486806253, 0.550585812082717])
    close(x.grad, [[0.0405370738411475, -0.18312497201334133, 0.36562168232179654, -0.22303378414960268],
                   [-0.0009051428412520339, -0.016631519383492697, 0.030913499443259572, -0.013376837218515038]])


def test_zero_classes():
    """An input with 0 classes: a class index is out of bounds (IndexError, not a numpy reshape
    error); all targets ignored give PyTorch's zeros / 0 / NaN (values from torch 2.13)."""
    with pytest.raises(IndexError, match="Target 0 is out of bounds"):
        F.cross_entropy(T(np.zeros((3, 0))), T(np.zeros(3, np.int64)))
    with pytest.raises(IndexError, match="Target 0 is out of bounds"):
        F.nll_loss(T(np.zeros((3, 0))), T(np.zeros(3, np.int64)))
    for fn in (F.cross_entropy, F.nll_loss):
        for reduction, expected in (("none", [0.0, 0.0, 0.0]), ("sum", 0.0), ("mean", math.nan)):
            x = T(np.zeros((3, 0)), grad=True)
            loss = fn(x, T(np.full(3, -100)), reduction=reduction)
            close(loss, expected)
            loss.sum().backward()
            assert tuple(x.grad.shape) == (3, 0)


def test_bce_target_gradient_is_unclamped():
    """d/dy of binary_cross_entropy is -logit(x) without the forward's clamp: +-inf at x = 0, 1
    (values from torch 2.13: [inf, -inf, -0.0])."""
    y = T([1.0, 0.0, 0.25], grad=True)
    F.binary_cross_entropy(T([0.0, 1.0, 0.5]), y, reduction="sum").backward()
    close(y.grad, [math.inf, -math.inf, 0.0])


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_loss_gradients_at_infinite_and_nan_inputs(device):
    """Values from torch 2.13: smooth_l1/huber give +-1 (times beta/delta for huber) at an infinite
    difference and NaN at a NaN; binary_cross_entropy_with_logits gives sigmoid(x) - y at infinite
    logits (the derivative of the unselected square / of the stable forward formula gave NaN)."""
    inf, nan = math.inf, math.nan
    b = T([1.0, 1.0, 1.0, 0.0, 1.0], device)
    a = T([-inf, inf, nan, 0.25, 3.0], device, grad=True)
    F.smooth_l1_loss(a, b, reduction="sum", beta=0.5).backward()
    close(a.grad, [-1.0, 1.0, nan, 0.5, 1.0])
    a.grad = None
    F.huber_loss(a, b, reduction="sum", delta=0.5).backward()
    close(a.grad, [-0.5, 0.5, nan, 0.25, 0.5])
    x = T([-inf, inf, 0.0, 2.0], device, grad=True)
    y = T([0.25, 0.5, 1.0, 0.0], device, grad=True)
    F.binary_cross_entropy_with_logits(x, y, reduction="sum").backward()
    close(x.grad, [-0.25, 0.5, -0.5, 0.8807970779778823])
    close(y.grad, [inf, -inf, 0.0, -2.0])
    x.grad = y.grad = None
    F.binary_cross_entropy_with_logits(x, y, reduction="sum", pos_weight=T([2.0], device)).backward()
    close(x.grad, [-0.5, 0.5, -1.0, 0.8807970779778823])
    close(y.grad, [inf, -inf, 0.6931471805599453, -1.8730719889570278])


def test_integer_regression_losses_raise_not_implemented():
    """PyTorch has no integer mse/smooth_l1/huber kernels (NotImplementedError, messages from torch
    2.13); l1_loss works on integers, and an integer input with a floating target promotes."""
    a, b = T([0, 1, 2]), T([2, 1, 0])
    for fn, kernel in ((F.mse_loss, "mse"), (F.smooth_l1_loss, "smooth_l1"), (F.huber_loss, "huber")):
        for reduction in REDUCTIONS:
            with pytest.raises(NotImplementedError, match=f"\"{kernel}_cpu\" not implemented for 'Long'"):
                fn(a, b, reduction=reduction)
    close(F.mse_loss(a, b.float()), 8 / 3, rtol=1e-6)
    close(F.l1_loss(a, b, reduction="none"), [2, 0, 2])


def test_other_loss_errors():
    with pytest.raises(ValueError, match=r"Using a target size .* is deprecated"):
        F.binary_cross_entropy(T(P), T(P[:, :3]))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(T(X), T(P))
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'pos_weight'"):
        F.binary_cross_entropy_with_logits(T(X), T(P), pos_weight=T(np.ones(6), grad=True))
    with pytest.raises(ValueError, match=r"Target size .* must be the same as input size"):
        F.binary_cross_entropy_with_logits(T(X), T(P[0]))
    with pytest.raises(RuntimeError, match="does not support negative values for beta"):
        F.smooth_l1_loss(T(X), T(Y), beta=-1.0)
    with pytest.raises(RuntimeError, match="non-positive values for delta"):
        F.huber_loss(T(X), T(Y), delta=0.0)
    with pytest.raises(ValueError, match="Weights and input must have the same size"):
        F.mse_loss(T(X), T(Y), weight=T(W[0]))
    with pytest.raises(RuntimeError, match="cannot be broadcast together"), pytest.warns(UserWarning):
        F.l1_loss(T(X), T(Y[:, :4]))
    with pytest.raises(ValueError, match="var has negative entry"):
        F.gaussian_nll_loss(T(X), T(Y), T(-P))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        F.gaussian_nll_loss(T(X), T(Y), T(P[:2]))
    with pytest.raises(RuntimeError, match="1D target tensor expects 2D input tensors"):
        F.cosine_embedding_loss(T(X[0]), T(Y[0]), T([1.0]))
    with pytest.raises(RuntimeError, match="All input tensors should have same dimension"):
        F.margin_ranking_loss(T(X), T(Y), T(np.ones(6)))
    with pytest.raises(ValueError, match="margin must be greater than 0"):
        F.triplet_margin_loss(T(X), T(Y), T(X), margin=0.0)
    with pytest.raises(ValueError, match="TripletMarginLoss: expected margin to be greater than 0"):
        nn.TripletMarginLoss(margin=-1.0)
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        F.triplet_margin_loss(T(X), T(Y), T(X[0]))
    with pytest.raises(TypeError, match="delta must be a float or int"):
        nn.HuberLoss(delta="1")
    with pytest.raises(ValueError, match="is not a valid value for reduction"):
        F.kl_div(T(X), T(Y), reduction="avg")


def test_losses_keep_the_input_dtype_with_weights_of_another(device):
    """binary_cross_entropy(_with_logits) with a weight/pos_weight of another floating dtype, and
    huber_loss with a target of another one, give the input's dtype (PyTorch's kernels compute in it;
    mse_loss and the like promote instead)."""
    p = tl.tensor([0.2, 0.7], device=device)
    w = tl.tensor([0.3, 0.9], dtype=tl.float64, device=device)
    for loss in (F.binary_cross_entropy(p, p, weight=w), F.binary_cross_entropy_with_logits(p, p, weight=w),
                 F.binary_cross_entropy_with_logits(p, p, pos_weight=w), F.huber_loss(p, w)):
        assert loss.dtype is tl.float32
    assert F.binary_cross_entropy(p, p, weight=w).item() == pytest.approx(0.349949, rel=1e-5)
    assert F.huber_loss(w, p).dtype is tl.float64 and F.mse_loss(p, w).dtype is tl.float64
