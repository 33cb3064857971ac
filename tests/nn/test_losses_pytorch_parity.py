"""Loss functions against PyTorch 2.15's behaviour where a differential scan found them apart:
curvature of smooth_l1/huber at ``input == target``, binary_cross_entropy_with_logits' result and
gradient dtypes, kl_div's legacy reduction with 'batchmean', integer margin_ranking_loss and
smooth_l1_loss(beta=0), cross_entropy's label-smoothing check and its 0-class NaN, the target's
NaN gradients of kl_div / poisson_nll_loss(full=True), binary_cross_entropy's target range, and
PyTorch's error types. Expected values were taken from torch 2.15 (cpu) and hard-coded."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F

INF, NAN = math.inf, math.nan


def T(a, device="cpu", dtype=None, grad=False):
    t = tl.tensor(a, device=device, dtype=dtype)
    return t.requires_grad_() if grad else t


def arr(t) -> np.ndarray:
    return np.asarray(t.detach().cpu().tolist(), dtype=np.float64)


def close(got, expected, rtol=1e-6, atol=1e-7):
    np.testing.assert_allclose(arr(got), np.asarray(expected, dtype=np.float64), rtol=rtol, atol=atol, equal_nan=True)


# ----------------------------------------------------------------------------------------------
# 1. smooth_l1_loss / huber_loss: first and second derivatives (torch's)
# ----------------------------------------------------------------------------------------------

DIFFS = [0.0, 0.3, -0.3, 0.5, 1.0, -1.5, 2.0, INF, -INF, NAN]
# torch.autograd.grad of the 'sum' loss (create_graph=True), then of the gradient's sum
SMOOTH_CASES = [
    ("smooth_l1_loss", {"beta": 1.0}, [0.0, 0.3, -0.3, 0.5, 1.0, -1.0, 1.0, 1.0, -1.0, NAN],
     [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ("smooth_l1_loss", {"beta": 0.5}, [0.0, 0.6, -0.6, 1.0, 1.0, -1.0, 1.0, 1.0, -1.0, NAN],
     [2.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ("huber_loss", {"delta": 1.0}, [0.0, 0.3, -0.3, 0.5, 1.0, -1.0, 1.0, 1.0, -1.0, NAN],
     [1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
    ("huber_loss", {"delta": 2.0}, [0.0, 0.3, -0.3, 0.5, 1.0, -1.5, 2.0, 2.0, -2.0, NAN],
     [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0]),
]


@pytest.mark.parametrize("name,kw,grad,hess", SMOOTH_CASES)
def test_smooth_l1_huber_derivatives(device, name, kw, grad, hess):
    """The second derivative is 1/beta (huber: 1) in the quadratic branch, at ``input == target``
    too (it was 0 there: the square was of ``|d|``, whose derivative at 0 is 0); the gradient is
    unchanged: ``d / beta`` (``d``), +-1 (+-delta) at ``|d| >= beta``, infinities included, NaN at NaN.
    (At a NaN difference PyTorch's second derivative is 0, tensorlab's 1/beta: not compared.)"""
    x = T(DIFFS, device, tl.float64, grad=True)
    y = T([0.0] * len(DIFFS), device, tl.float64)
    loss = getattr(F, name)(x, y, reduction="sum", **kw)
    (g,) = tl.autograd.grad(loss, x, create_graph=True)
    close(g, grad, rtol=1e-12, atol=0)
    (h,) = tl.autograd.grad(g.sum(), x)
    close(h[:9], hess, rtol=1e-12, atol=0)


def test_smooth_l1_curvature_at_equal_input_and_target_both_arguments(device):
    """d2/dx2, d2/dxdy at x == y: 1/beta and -1/beta (torch: [2.0], [-2.0] for beta 0.5)."""
    x = T([1.25], device, tl.float64, grad=True)
    y = T([1.25], device, tl.float64, grad=True)
    (gx,) = tl.autograd.grad(F.smooth_l1_loss(x, y, beta=0.5, reduction="sum"), x, create_graph=True)
    hx, hy = tl.autograd.grad(gx.sum(), (x, y))
    close(hx, [2.0])
    close(hy, [-2.0])


def test_smooth_l1_beta_zero_takes_integers(device):
    """beta=0 is PyTorch's shortcut to l1_loss, before smooth_l1's float check: an int64 loss."""
    a, b = T([1, 2], device), T([0, 5], device)
    out = F.smooth_l1_loss(a, b, beta=0.0, reduction="none")
    assert out.dtype is tl.int64 and out.tolist() == [1, 3]
    assert F.smooth_l1_loss(a, b, beta=0.0, reduction="sum").item() == 4
    with pytest.raises(NotImplementedError):  # mean of an integer tensor, as torch
        F.smooth_l1_loss(a, b, beta=0.0)
    with pytest.raises(NotImplementedError, match="smooth_l1"):
        F.smooth_l1_loss(a, b, beta=1.0)


def test_huber_integer_input_with_floating_target_raises(device):
    """huber_loss writes into the input's dtype: torch's "result type Float can't be cast to the
    desired output type Long"."""
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        F.huber_loss(T([1, 2], device), T([0.0, 0.0], device))
    with pytest.raises(RuntimeError, match="result type Double can't be cast to the desired output type Long"):
        F.huber_loss(T([1, 2], device), T([0.0, 0.0], device, tl.float64))
    close(F.huber_loss(T([1.0, 2.0], device), T([0, 0], device)), 1.0)  # an integer target is fine


# ----------------------------------------------------------------------------------------------
# 2. binary_cross_entropy_with_logits: PyTorch's in-place dtypes and shapes
# ----------------------------------------------------------------------------------------------

X2, Y2 = [0.5, -1.25], [1.0, 0.0]


def _bcewl_reference(x, y, w=None, pw=None):
    x, y = np.asarray(x, np.float64), np.asarray(y, np.float64)
    log_sig = -np.logaddexp(0.0, -x)
    lw = 1.0 if pw is None else (np.asarray(pw, np.float64) - 1) * y + 1
    loss = (1 - y) * x - lw * log_sig
    return loss * (1.0 if w is None else np.asarray(w, np.float64))


@pytest.mark.parametrize("x_dt,y_dt,w_dt,pw_dt", [
    ("float64", "float32", None, None), ("float32", "float16", None, None), ("float32", "bfloat16", None, None),
    ("float16", "bfloat16", None, None), ("bfloat16", "float64", None, None), ("float32", "float32", None, None),
    ("float32", "float16", "float64", None), ("float32", "float16", None, "float64"),
    ("float32", "float16", "int64", "int64"), ("float64", "float32", "float16", "float16"),
])
def test_bce_with_logits_result_has_the_target_dtype(device, x_dt, y_dt, w_dt, pw_dt):
    """torch computes ``(1 - target).mul_(input).sub_(...)``: the loss has the TARGET's dtype (weights
    are applied in place, so they do not promote); the gradients have their operand's dtype."""
    xd, yd = getattr(tl, x_dt), getattr(tl, y_dt)
    x, y = T(X2, device, xd, grad=True), T(Y2, device, yd, grad=True)
    w = T([2.0, 3.0], device, getattr(tl, w_dt)) if w_dt else None  # (integers: an int64 weight holds them)
    pw = T([3.0, 3.0], device, getattr(tl, pw_dt)) if pw_dt else None
    for reduction in ("none", "mean", "sum"):
        loss = F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw, reduction=reduction)
        assert loss.dtype is yd, (reduction, loss.dtype)
    loss = F.binary_cross_entropy_with_logits(x, y, weight=w, pos_weight=pw, reduction="none")
    low = {tl.float16: 2e-3, tl.bfloat16: 2e-2}
    tol = max(low.get(xd, 1e-6), low.get(yd, 1e-6))
    close(loss, _bcewl_reference(X2, Y2, [2.0, 3.0] if w_dt else None, [3.0, 3.0] if pw_dt else None),
          rtol=tol, atol=tol)
    gx, gy = tl.autograd.grad(loss.sum(), (x, y))
    assert gx.dtype is xd and gy.dtype is yd


def test_bce_with_logits_torch_values_float16_target(device):
    """Exact float16 values of torch 2.15: f32 logits [0.5, -1.25], f16 target [1, 0]."""
    x = T(X2, device, tl.float32, grad=True)
    y = T(Y2, device, tl.float16, grad=True)
    loss = F.binary_cross_entropy_with_logits(x, y, reduction="none")
    assert loss.dtype is tl.float16 and loss.tolist() == [0.47412109375, 0.251953125]
    gx, gy = tl.autograd.grad(loss.sum(), (x, y))
    assert gy.dtype is tl.float16 and gy.tolist() == [-0.5, 1.25]
    close(gx, [-0.377540647983551, 0.22270013391971588])
    # with a float16 pos_weight, torch's input gradient is computed in float16 (pos_weight * target's dtype)
    pw = T([3.0, 3.0], device, tl.float16)
    loss = F.binary_cross_entropy_with_logits(x, y, pos_weight=pw, reduction="none")
    assert loss.tolist() == [1.421875, 0.251953125]
    gx, gy = tl.autograd.grad(loss.sum(), (x, y))
    assert gx.dtype is tl.float32 and gx.tolist() == [-1.1328125, 0.22265625]
    assert gy.tolist() == [0.4482421875, 4.25390625]


def test_bce_with_logits_float64_input_float32_target_mean(device):
    """torch: float32 0.5370592474937439; input grad (float64) [-0.3775406687981454, 0.05567503470632721],
    target grad (float32) [-0.5, 0.3125] (weight [2, 0.5] float64, 'mean')."""
    x = T(X2, device, tl.float64, grad=True)
    y = T(Y2, device, tl.float32, grad=True)
    loss = F.binary_cross_entropy_with_logits(x, y, weight=T([2.0, 0.5], device, tl.float64))
    assert loss.dtype is tl.float32
    close(loss, 0.5370592474937439)
    gx, gy = tl.autograd.grad(loss, (x, y))
    assert gx.dtype is tl.float64 and gy.dtype is tl.float32
    close(gx, [-0.3775406687981454, 0.05567503470632721], rtol=1e-7)
    close(gy, [-0.5, 0.3125])


def test_bce_with_logits_errors(device):
    x = T(X2, device)
    for dt, name in ((tl.int64, "Long"), (tl.int32, "Int")):
        with pytest.raises(RuntimeError, match=f"result type Float can't be cast to the desired output type {name}"):
            F.binary_cross_entropy_with_logits(x, T([1, 0], device, dt))
    with pytest.raises(RuntimeError, match="result type Double can't be cast to the desired output type Long"):
        F.binary_cross_entropy_with_logits(T(X2, device, tl.float64), T([1, 0], device),
                                           pos_weight=T([2.0, 2.0], device))
    with pytest.raises(NotImplementedError, match="Subtraction, the `-` operator, with two bool tensors"):
        F.binary_cross_entropy_with_logits(x, T([True, False], device))
    with pytest.raises(NotImplementedError, match="log_sigmoid.*not implemented for 'Long'"):
        F.binary_cross_entropy_with_logits(T([1, 2], device), T(Y2, device))
    # weight / pos_weight may not broadcast the result beyond the input's shape (torch's in-place ops)
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[2, 2\]"):
        F.binary_cross_entropy_with_logits(x, T(Y2, device), weight=T([[1.0, 1.0], [1.0, 1.0]], device))
    with pytest.raises(RuntimeError, match=r"output with shape \[3\] doesn't match the broadcast shape \[2, 3\]"):
        F.binary_cross_entropy_with_logits(T([0.0] * 3, device), T([1.0] * 3, device),
                                           pos_weight=T(np.ones((2, 3)), device, tl.float32), reduction="none")
    with pytest.raises(RuntimeError, match="must match"):
        F.binary_cross_entropy_with_logits(x, T(Y2, device), pos_weight=T([1.0, 1.0, 1.0], device))
    # broadcasting into the input's shape is fine
    out = F.binary_cross_entropy_with_logits(T(np.zeros((2, 3)), device, tl.float32),
                                             T(np.ones((2, 3)), device, tl.float32),
                                             weight=T([1.0], device), pos_weight=T([1.0, 2.0, 3.0], device),
                                             reduction="none")
    close(out, np.log(2.0) * np.array([[1.0, 2.0, 3.0]] * 2))


# ----------------------------------------------------------------------------------------------
# 3. kl_div: legacy size_average/reduce with reduction='batchmean'
# ----------------------------------------------------------------------------------------------

KL_IN = [[-1.0, -2.0], [-1.0, -1.0]]
KL_T = [[0.5, 0.5], [0.2, 0.8]]


@pytest.mark.parametrize("legacy,expected", [
    ({"reduce": True}, 0.16330629587173462),
    ({"size_average": True}, 0.16330629587173462),
    ({"size_average": False}, 0.6532251834869385),
    ({"reduce": False}, [[0.0767132043838501, 0.3267132043838501], [-0.06094378978013992, 0.31074258685112]]),
])
def test_kl_div_legacy_reduction_with_batchmean(device, legacy, expected):
    """torch: the legacy args pick the reduction, and 'batchmean' still divides by input.size(0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = F.kl_div(T(KL_IN, device), T(KL_T, device), reduction="batchmean", **legacy)
        close(out, expected)
        # without 'batchmean' the legacy reduction alone
        mean = F.kl_div(T(KL_IN, device), T(KL_T, device), reduction="mean", **legacy)
        close(mean, np.asarray(expected) * 2)
    close(F.kl_div(T(KL_IN, device), T(KL_T, device), reduction="batchmean"), 0.6532251834869385)


def test_kl_div_integer_operands_raise(device):
    with pytest.raises(RuntimeError, match="kl_div: Integral inputs not supported."):
        F.kl_div(T([-1.0, -2.0], device), T([1, 0], device), reduction="sum")
    with pytest.raises(RuntimeError, match="kl_div: Integral inputs not supported."):
        F.kl_div(T([1, 2], device), T([0.5, 0.5], device), reduction="sum")


# ----------------------------------------------------------------------------------------------
# 4. margin_ranking_loss: integer operands
# ----------------------------------------------------------------------------------------------


def test_margin_ranking_loss_integer_inputs_give_float32(device):
    """torch's margin is a double: all-integer operands give a float32 loss, and 'mean' works."""
    a, b, t = T([0, 1, 2], device), T([1, 1, 1], device), T([1, -1, 1], device)
    out = F.margin_ranking_loss(a, b, t, reduction="none")
    assert out.dtype is tl.float32 and out.tolist() == [1.0, 0.0, 0.0]
    close(F.margin_ranking_loss(a, b, t), 0.3333333432674408)
    assert F.margin_ranking_loss(a, b, t, margin=1).tolist() == 1.0
    assert F.margin_ranking_loss(T([0.0, 1.0], device, tl.float16), T([1, 1], device), T([1, -1], device),
                                 margin=0.5).dtype is tl.float16


# ----------------------------------------------------------------------------------------------
# 6./7. cross_entropy's label_smoothing
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ls", [-0.1, -1.0, -5.0, NAN, -INF, 0.0])
def test_cross_entropy_non_positive_label_smoothing_is_no_smoothing(device, ls):
    """torch 2.15 checks only ``label_smoothing <= 1`` (so NaN passes) and smooths only where it is > 0."""
    x = T([[1.0, 2.0, 3.0]], device)
    close(F.cross_entropy(x, T([2], device), label_smoothing=ls), 0.40760594606399536)
    close(F.cross_entropy(x, T([[0.2, 0.3, 0.5]], device), label_smoothing=ls), 1.1076059341430664)


def test_cross_entropy_label_smoothing_upper_bound(device):
    x = T([[1.0, 2.0, 3.0]], device)
    close(F.cross_entropy(x, T([2], device), label_smoothing=1.0), 1.4076060056686401)
    for ls in (1.0001, 1.5, INF):
        with pytest.raises(RuntimeError, match="label_smoothing must be between 0.0 and 1.0"):
            F.cross_entropy(x, T([2], device), label_smoothing=ls)


def test_cross_entropy_mean_with_label_smoothing_and_zero_total_weight_is_nan(device):
    """torch 2.15 averages the nll and smoothing terms apart, each by sum(w_t): with every target's
    weight 0 the nll term is 0/0, so the mean is NaN (it was inf: the smoothing term over 0)."""
    x = T([[1.0, 2.0, 3.0, 0.5], [0.1, -1.0, 2.0, 1.0]], device, tl.float32, grad=True)
    w = T([0.0, 1.0, 1.0, 1.0], device)
    for ls in (0.1, 1.0):
        loss = F.cross_entropy(x, T([0, 0], device), weight=w, label_smoothing=ls)
        assert math.isnan(loss.item())
        loss.backward()
        assert np.isnan(arr(x.grad)).all()
        x.grad = None
    # a non-zero total weight: torch 2.15's value
    close(F.cross_entropy(x, T([0, 2], device), weight=w, label_smoothing=0.1), 0.6601382493972778)


def test_cross_entropy_zero_classes_with_label_smoothing_is_nan(device):
    """torch adds ``smooth * (label_smoothing / 0)`` = ``0 * inf``: NaN for every reduction."""
    x = T(np.zeros((2, 0)), device, tl.float32, grad=True)
    t = T([-100, -100], device)
    out = F.cross_entropy(x, t, label_smoothing=0.1, reduction="none")
    assert tuple(out.shape) == (2,) and np.isnan(arr(out)).all()
    assert math.isnan(F.cross_entropy(x, t, label_smoothing=0.1, reduction="sum").item())
    assert math.isnan(F.cross_entropy(x, t, label_smoothing=0.1, reduction="mean").item())
    assert math.isnan(F.cross_entropy(T(np.zeros(0), device, tl.float32), T(-100, device), label_smoothing=0.1,
                                      reduction="none").item())
    loss = F.cross_entropy(x, t, label_smoothing=0.1, reduction="sum")
    loss.backward()
    assert tuple(x.grad.shape) == (2, 0)
    # no smoothing (0, or a negative value): zeros, as before
    assert F.cross_entropy(x, t, label_smoothing=-0.1, reduction="none").tolist() == [0.0, 0.0]
    assert F.cross_entropy(x, t, reduction="sum").item() == 0.0
    # class probabilities with 0 classes: torch's -0 per row (nothing to smooth)
    assert F.cross_entropy(x, T(np.zeros((2, 0)), device, tl.float32), label_smoothing=0.1,
                           reduction="none").tolist() == [0.0, 0.0]


# ----------------------------------------------------------------------------------------------
# 8. NaN target gradients of kl_div and poisson_nll_loss(full=True)
# ----------------------------------------------------------------------------------------------


def test_kl_div_target_gradient_matches_torch(device):
    """The target's gradient is xlogy's: NaN at target 0 (0/0), negative, inf and NaN targets."""
    t = T([0.0, -1.0, INF, NAN, 0.5, 2.0], device, grad=True)
    x = T([-1.0] * 6, device, grad=True)
    loss = F.kl_div(x, t, reduction="none")
    close(loss, [0.0, NAN, INF, NAN, 0.1534264087677002, 3.386294364929199])
    loss.sum().backward()
    close(t.grad, [NAN, NAN, NAN, NAN, 1.3068528175354004, 2.6931471824645996])
    close(x.grad, [-0.0, 1.0, -INF, NAN, -0.5, -2.0])


@pytest.mark.parametrize("log_input,loss_exp,t_grad,x_grad", [
    (True, [1.2214027643203735, 1.4214028120040894, NAN, NAN, 1.1214027404785156, 1.0214027166366577,
            1.473209261894226],
     [NAN, NAN, NAN, NAN, -0.20000000298023224, -0.20000000298023224, 0.7431471943855286],
     [1.2214027643203735, 2.221402645111084, -INF, NAN, 0.7214027643203735, 0.22140276432037354,
      -0.7785972356796265]),
    (False, [0.20000000298023224, -1.4094377756118774, NAN, NAN, 1.0047188997268677, 1.809437870979309,
             4.070682048797607],
     [NAN, NAN, NAN, NAN, 1.6094378232955933, 1.6094378232955933, 2.5525851249694824],
     [1.0, 5.999999523162842, -INF, NAN, -1.499999761581421, -3.999999523162842, -8.999999046325684]),
])
def test_poisson_nll_full_target_gradient_matches_torch(device, log_input, loss_exp, t_grad, x_grad):
    """torch masks the Stirling term with masked_fill(target <= 1, 0): the target's gradient is
    0 * log(t) there, NaN for t <= 0 (and at NaN/inf targets), the values and input gradients unchanged."""
    t = T([0.0, -1.0, INF, NAN, 0.5, 1.0, 2.0], device, grad=True)
    x = T([0.2] * 7, device, grad=True)
    loss = F.poisson_nll_loss(x, t, log_input=log_input, full=True, reduction="none")
    close(loss, loss_exp)
    loss.sum().backward()
    close(t.grad, t_grad)
    close(x.grad, x_grad, rtol=1e-6)


# ----------------------------------------------------------------------------------------------
# 9. binary_cross_entropy's target range
# ----------------------------------------------------------------------------------------------


def test_bce_target_must_be_in_0_1(device):
    """torch checks each element's input, then its target: the first failing element names which."""
    x = T([0.5, 0.2], device)
    for bad in ([2.0, 0.5], [0.5, -1.0], [0.5, NAN], [0.5, 1.0001], [-0.5, 0.5]):
        with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
            F.binary_cross_entropy(x, T(bad, device), reduction="none")
    with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
        F.binary_cross_entropy(T([0.5, 2.0], device), T([2.0, 0.5], device))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(T([2.0, 0.5], device), T([0.5, 2.0], device))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(T([0.5, NAN], device), T([0.5, 0.5], device))
    # the bounds themselves (and -0.0) are fine, whatever the weight
    close(F.binary_cross_entropy(T([0.5, 0.5], device), T([0.0, 1.0], device)), math.log(2.0))
    close(F.binary_cross_entropy(T([0.5, 0.5], device), T([0.5, -0.0], device), weight=T([0.0, 0.0], device)), 0.0)
    assert math.isnan(F.binary_cross_entropy(T(np.zeros(0), device, tl.float32),
                                             T(np.zeros(0), device, tl.float32)).item())


# ----------------------------------------------------------------------------------------------
# PyTorch's error types for cross_entropy / nll_loss
# ----------------------------------------------------------------------------------------------


def test_class_index_loss_error_types(device):
    x = T(np.zeros((4, 5)), device, tl.float32)
    for fn in (F.cross_entropy, F.nll_loss):
        with pytest.raises(ValueError, match=r"Expected input batch_size \(4\) to match target batch_size \(0\)"):
            fn(x, T(3, device))
        with pytest.raises(ValueError, match=r"Expected input batch_size \(4\) to match target batch_size \(3\)"):
            fn(x, T([0, 1, 2], device))
        with pytest.raises(RuntimeError, match="multi-target not supported"):
            fn(x, T(np.zeros((4, 1), np.int64), device))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(4\) to match target batch_size \(0\)"):
        F.cross_entropy(T(np.zeros((4, 5, 2)), device, tl.float32), T(3, device))
    # a floating target of another shape than the input's is taken as class indices (torch's routing)
    with pytest.raises(ValueError, match=r"Expected input batch_size \(4\) to match target batch_size \(1\)"):
        F.cross_entropy(x, T(np.zeros((1, 5)), device, tl.float32))
    with pytest.raises(RuntimeError, match="multi-target not supported"):
        F.cross_entropy(x, T(np.zeros((4, 6)), device, tl.float32))
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte"):
        F.cross_entropy(T(np.zeros(5), device, tl.float32), T(np.zeros(4), device, tl.float32))
    with pytest.raises(ValueError, match=r"Expected 1 or more dimensions \(got 0\)"):
        F.nll_loss(T(1.0, device), T(0, device))
    with pytest.raises(NotImplementedError, match="nll_loss_out_frame\" not implemented for 'Long'"):
        F.nll_loss(T([[1, 2, 3]], device), T([2], device))
    with pytest.raises(NotImplementedError, match="log_softmax_lastdim_kernel_impl\" not implemented for 'Long'"):
        F.cross_entropy(T(np.zeros((4, 5), np.int64), device), T([0, 1, 2, 3], device))
    with pytest.raises(NotImplementedError, match="log_softmax_kernel_impl\" not implemented for 'Bool'"):
        F.cross_entropy(T(np.zeros((4, 5, 2), bool), device), T(np.zeros((4, 2), np.int64), device))


def test_ignore_index_must_be_an_int(device):
    x, t = T([[1.0, 2.0, 3.0]], device), T([2], device)
    with pytest.raises(TypeError, match="argument 'ignore_index' \\(position 5\\) must be int, not float"):
        F.cross_entropy(x, t, ignore_index=1.0)
    with pytest.raises(TypeError, match="must be int, not bool"):
        F.cross_entropy(x, t, ignore_index=True)
    with pytest.raises(TypeError, match="nll_loss_nd\\(\\): argument 'ignore_index' .* must be int, not float"):
        F.nll_loss(x, t, ignore_index=1.0)
    close(F.cross_entropy(x, t, ignore_index=np.int64(1)), 0.40760594606399536)
    # class probabilities: torch refuses only a non-negative ignore_index
    p = T([[0.0, 0.0, 1.0]], device)
    close(F.cross_entropy(x, p, ignore_index=-1), 0.40760594606399536)
    with pytest.raises(RuntimeError, match="ignore_index is not supported for floating point target"):
        F.cross_entropy(x, p, ignore_index=0)


# ----------------------------------------------------------------------------------------------
# bool operands, the deprecated 'elementwise_mean', NaN terms of the margin losses (torch 2.15)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fn", [F.mse_loss, F.smooth_l1_loss, F.huber_loss])
def test_bool_operand_is_read_as_0_1(fn, device):
    # torch promotes a bool operand of these (native) losses: |0.5-1|, |2-0|, |-1-1|
    expected = [0.25, 4.0, 4.0] if fn is F.mse_loss else [0.125, 1.5, 1.5]
    for dt in (tl.float32, tl.float16):
        x, b = T([0.5, 2.0, -1.0], device, dt, grad=True), T([True, False, True], device)
        loss = fn(x, b, reduction="none")
        assert loss.dtype is dt
        close(loss, expected)
        loss.sum().backward()
        assert x.grad is not None and x.grad.dtype is dt
    if fn is F.huber_loss:  # the result is the input's dtype: a bool input cannot hold it
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Bool"):
            fn(T([True, False], device), T([0.5, 1.0], device))
        with pytest.raises(RuntimeError, match="result type Long can't be cast to the desired output type Bool"):
            fn(T([True, False], device), T([1, 0], device))
    else:
        close(fn(T([True, False, True], device), T([0.5, 2.0, -1.0], device), reduction="none"), expected)


def test_elementwise_mean_is_taken_where_torch_takes_it(device):
    x, y = T([[0.3, 0.6], [0.1, 0.5]], device), T([[0.2, 0.5], [0.4, 0.9]], device)
    with pytest.warns(UserWarning, match="reduction='elementwise_mean' is deprecated"):
        got = F.kl_div(x, y, reduction="elementwise_mean")
    close(got, arr(F.kl_div(x, y, reduction="sum") / 4))  # 'mean' (without its own warning about 'batchmean')
    # poisson_nll_loss checks the string itself in PyTorch
    with pytest.raises(ValueError, match="elementwise_mean is not a valid value for reduction"):
        F.poisson_nll_loss(x, y, reduction="elementwise_mean")
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        F.kl_div(x, y, reduction="foo")


def test_margin_losses_skip_nan_terms(device):
    # PyTorch's kernels add a term when margin - x_y + x_i > 0: a NaN term is skipped
    x = T([[1.0, NAN, 0.0], [NAN, 0.5, 0.2], [0.3, 0.1, 0.9]], device, grad=True)
    loss = F.multi_margin_loss(x, T([0, 0, 2], device), reduction="none")
    close(loss, [0.0, 0.0, 0.2])
    loss.sum().backward()
    close(x.grad, [[0, 0, 0], [0, 0, 0], [1 / 3, 1 / 3, -2 / 3]])
    x2 = x.detach().requires_grad_()
    loss = F.multi_margin_loss(x2, T([0, 0, 2], device), p=2, reduction="none")
    close(loss, [0.0, 0.0, 0.06666667759418488])
    loss = F.multilabel_margin_loss(x2, T([[0, -1, 1], [1, 0, -1], [2, -1, 0]], device), reduction="none")
    close(loss, [0.0, 0.23333333432674408, 0.2])
    loss.sum().backward()
    close(x2.grad, [[0, 0, 0], [0, -1 / 3, 1 / 3], [1 / 3, 1 / 3, -2 / 3]])


# ----------------------------------------------------------------------------------------------
# nll_loss: an ignored row is 0 whatever its log-probs hold (-inf, NaN), with a zero gradient
# ----------------------------------------------------------------------------------------------

# (reduction, weighted): torch 2.15's loss and the gradient of its sum
NLL_IGNORED_2D = [
    ("none", False, [0.5, 0.0, 0.0, 2.0], [[-1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, -1.0]]),
    ("sum", False, 2.5, [[-1.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, -1.0]]),
    ("mean", False, 1.25, [[-0.5, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, -0.5]]),
    ("none", True, [1.0, 0.0, 0.0, 6.0], [[-2.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, -3.0]]),
    ("sum", True, 7.0, [[-2.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, -3.0]]),
    ("mean", True, 1.4, [[-0.4, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, -0.6]]),
]


@pytest.mark.parametrize("reduction,weighted,loss_exp,grad_exp", NLL_IGNORED_2D)
def test_nll_loss_ignored_rows_with_infinite_or_nan_log_probs(device, reduction, weighted, loss_exp, grad_exp):
    """'none' and 'sum' were NaN: the ignored row's stand-in pick (class 0) times its weight 0 is
    -inf * 0; torch 2.15 writes 0 for the row, and its gradient there is 0."""
    x = T([[-0.5, -1.0], [-INF, -INF], [NAN, -1.0], [-0.25, -2.0]], device, grad=True)
    t = T([0, -100, -100, 1], device)
    w = T([2.0, 3.0], device) if weighted else None
    loss = F.nll_loss(x, t, weight=w, reduction=reduction)
    loss.sum().backward()
    close(loss, loss_exp)
    close(x.grad, grad_exp)
    assert not np.signbit(arr(loss)).any()  # (torch's +0 for the ignored rows)


@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_ignored_positions_of_a_spatial_target(device, weighted):
    # (N, C, d1): the ignored positions 1 and 2 hold -inf and NaN at class 0; torch 2.15's values
    x = T([[[-0.5, -INF, NAN], [-1.0, -2.0, -INF], [-0.25, NAN, -3.0]]], device, grad=True)
    t = T([[2, -100, -100]], device)
    w = T([1.0, 2.0, 0.5], device) if weighted else None
    scale = 0.5 if weighted else 1.0
    close(F.nll_loss(x, t, weight=w, reduction="none"), [[0.25 * scale, 0.0, 0.0]])
    loss = F.nll_loss(x, t, weight=w, reduction="sum")
    loss.backward()
    close(loss, 0.25 * scale)
    close(x.grad, [[[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [-scale, 0.0, 0.0]]])
    close(F.nll_loss(x, t, weight=w), 0.25)
    # ignore_index other than -100, unbatched (C,) input
    close(F.nll_loss(T([-INF, -0.5], device), T(1, device), ignore_index=1, reduction="sum"), 0.0)
