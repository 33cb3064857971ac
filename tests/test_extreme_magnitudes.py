"""Values of extreme magnitude (near the ends of a dtype's range) where a differential scan against
torch 2.15 found tensorlab's results or gradients overflowing, underflowing or cancelling. Every
expected number is torch 2.15's (CPU), for both devices."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F

INF, NAN = math.inf, math.nan


def _np(t) -> np.ndarray:
    return np.array(t.float().tolist() if t.dtype in (tl.float16, tl.bfloat16) else t.tolist(), dtype=np.float64)


def _close(t, expected, rtol=1e-5, atol=0.0):
    np.testing.assert_allclose(_np(t), np.array(expected, dtype=np.float64), rtol=rtol, atol=atol, equal_nan=True)


def _equal(t, expected):
    np.testing.assert_array_equal(_np(t), np.array(expected, dtype=np.float64))


# ----------------------------------------------------------------------------------------------
# batch_norm / instance_norm: PyTorch's fused backward, on x - mean
# ----------------------------------------------------------------------------------------------


def test_batch_norm_training_backward_at_large_magnitude_and_offset(device):
    x = tl.tensor([[1.0, -2.0], [3.0, 0.5], [-1.0, 4.0]], device=device) * 1e15
    g = tl.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 1.0]], device=device)
    xt = x.clone().requires_grad_()
    w = tl.tensor([2.0, -0.5], device=device, requires_grad=True)
    b = tl.tensor([0.3, 1.0], device=device, requires_grad=True)
    F.batch_norm(xt, None, None, w, b, training=True).backward(g)
    # torch 2.15's (differentiating x * scale + shift through rsqrt gave 9.2e-16, -6.1e-16 in column 0)
    _close(xt.grad, [[-6.123724218546267e-16, -2.0225358746820597e-16], [3.061860521086357e-16, 3.4672046969235544e-16],
                     [3.0618636974599094e-16, -1.4446684251948007e-16]])
    _close(w.grad, [3.0618624687194824, -0.8804710507392883])
    _close(b.grad, [4.5, 2.0])
    # instance_norm goes the same way
    xi = x.t().reshape(1, 2, 3).contiguous().requires_grad_()
    F.instance_norm(xi).backward(g.t().reshape(1, 2, 3))
    _close(xi.grad, [[[-3.0618621092731333e-16, 1.5309302605431786e-16, 1.5309318487299547e-16],
                      [4.0450717493641195e-16, -6.934409923242701e-16, 2.8893373797851934e-16]]])
    # a large offset: torch 2.15's gradient (the composition lost it to cancellation, 5e-2 off)
    x2 = tl.tensor([[1e6 + 1, 3.0], [1e6 + 2, -1.0], [1e6 + 4, 0.0], [1e6 + 7, 2.0]], device=device, requires_grad=True)
    F.batch_norm(x2, None, None, training=True).backward(
        tl.tensor([[1.0, 0.5], [-2.0, 1.0], [0.5, 2.0], [3.0, -1.0]], device=device))
    _close(x2.grad, [[0.7481737732887268, 0.4269046187400818], [-0.7949365377426147, -0.2687910497188568],
                     [-0.17145653069019318, 0.6166439056396484], [0.21821925044059753, -0.7747575044631958]], rtol=1e-4)
    # the fused backward is itself differentiable: double backward, and the running statistics as before
    rs = np.random.RandomState(0)
    x = tl.tensor(rs.standard_normal((4, 3, 2)), device=device, requires_grad=True)
    w = tl.tensor(rs.standard_normal(3), device=device, requires_grad=True)
    b = tl.tensor(rs.standard_normal(3), device=device, requires_grad=True)
    if device == "cpu":  # (the same composite ops on both devices; interpreted, these checks take half a minute)
        assert tl.autograd.gradgradcheck(lambda a, c, d: F.batch_norm(a, None, None, c, d, training=True), (x, w, b))
        assert tl.autograd.gradgradcheck(lambda a, c, d: F.instance_norm(a, weight=c, bias=d, eps=0.0), (x, w, b))
    rm, rv = tl.zeros(3, device=device, dtype=tl.float64), tl.ones(3, device=device, dtype=tl.float64)
    F.batch_norm(x, rm, rv, training=True, momentum=0.5)
    xn = np.array(x.tolist())
    np.testing.assert_allclose(np.array(rm.tolist()), 0.5 * xn.mean((0, 2)), rtol=1e-12)
    np.testing.assert_allclose(np.array(rv.tolist()), 0.5 + 0.5 * xn.transpose(1, 0, 2).reshape(3, -1).var(1, ddof=1),
                               rtol=1e-12)


# ----------------------------------------------------------------------------------------------
# renorm, ldexp, pow
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_renorm_takes_the_norm_in_float32_for_half_dtypes(device, dtype):
    dt = getattr(tl, dtype)
    x = tl.tensor([[65504.0, -65504, 60000, 1], [1e4, 2e4, 3e4, 4e4]], device=device).to(dt).requires_grad_()
    y = tl.renorm(x, 2, 0, 1.0)
    y.float().sum().backward()
    # torch 2.15's (a float16 norm overflowed: the first row became zeros, the gradient NaN)
    if dt is tl.float16:
        _equal(y, [[0.59326171875, -0.59326171875, 0.54345703125, 9.059906005859375e-06],
                   [0.182373046875, 0.36474609375, 0.54736328125, 0.7294921875]])
        grad = [[6.139278411865234e-06, 1.1980533599853516e-05, 6.377696990966797e-06, 9.059906005859375e-06],
                [1.2159347534179688e-05, 6.079673767089844e-06, 0.0, -6.079673767089844e-06]]
    else:
        _equal(y, [[0.59375, -0.59375, 0.54296875, 9.059906005859375e-06],
                   [0.181640625, 0.36328125, 0.546875, 0.7265625]])
        grad = [[6.139278411865234e-06, 1.1980533599853516e-05, 6.377696990966797e-06, 9.059906005859375e-06],
                [1.2218952178955078e-05, 6.109476089477539e-06, 1.0871303857129533e-12, -6.109476089477539e-06]]
    _close(x.grad, grad, rtol=1e-2, atol=1e-7)  # ([1, 2] is a cancellation: 0 up to the rounding)
    xi = x.detach().clone()
    xi.renorm_(2, 0, 1.0)
    _equal(xi, _np(y))


def test_ldexp_of_an_integral_exponent_is_exact(device):
    x = tl.tensor([1e-38, 3e38, 0.0, INF, 1.0, 1.5, 1e-45, 5.0], device=device, requires_grad=True)
    e = tl.tensor([200, -200, 200, -200, -149, -150, 149, -1000], device=device)
    y = tl.ldexp(x, e)
    y.backward(tl.tensor([1.0, 1e30, 1.0, 1.0, 2.0, 1.0, 1e-30, 1.0], device=device))
    # torch 2.15's: C's ldexp (2**200 in float32 was inf: inf, 0, NaN, NaN), and its gradient grad * 2.0**e
    _equal(y, [1.6069379398813587e22, 1.8669045867796043e-22, 0.0, INF, 1.401298464324817e-45, 1.401298464324817e-45,
               1.0, 0.0])
    _equal(x.grad, [INF, 0.0, INF, 0.0, 2.802596928649634e-45, 0.0, INF, 0.0])
    for dt, expected in ((tl.float16, [0.0, 0.0, 5.960464477539063e-08, 49152.0, 6.103515625e-05]),
                         (tl.bfloat16, [1.608556083227473e22, 2.9802322387695312e-08, 4.470348358154297e-08, 49152.0,
                                        6.103515625e-05])):
        r = tl.ldexp(tl.tensor([1e-38, 1.0, 1.5, 3.0, 65504.0], device=device).to(dt),
                     tl.tensor([200, -25, -25, 14, -30], device=device))
        assert r.dtype is dt
        _equal(r, expected)
    r = tl.ldexp(tl.tensor([1e-300, 1e300, 5e-324, 0.0, INF, 1.5], dtype=tl.float64, device=device),
                 tl.tensor([2000, -2000, 1074, 5000, -5000, -1075], device=device))
    _equal(r, [1.1481306952742546e302, 8.709809816217217e-303, 1.0, 0.0, INF, 5e-324])


def test_pow_of_a_number_base_gradient_does_not_overflow_early(device):
    x = tl.tensor([127.9, 3.0], device=device, requires_grad=True)
    y = tl.pow(2.0, x)
    y.backward(tl.tensor([1.2, 1.0], device=device))
    # torch 2.15's grad * (out * log(2)): (grad * out) overflowed to inf
    _close(y, [3.17495018884007e38, 8.0])
    _close(x.grad, [2.64084944026519e38, 5.545177459716797])
    x = tl.tensor([127.9], device=device, requires_grad=True)
    (2.0 ** x).backward(tl.tensor([1.2], device=device))
    _close(x.grad, [2.64084944026519e38])


# ----------------------------------------------------------------------------------------------
# glu, embedding_bag, huber_loss
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_glu_of_half_dtypes_computes_in_float32(device, dtype):
    dt = getattr(tl, dtype)
    x = tl.tensor([[65504.0, -20.0], [INF, -20.0], [1000.0, 3.0], [1e-3, 5.0]], device=device).to(dt).requires_grad_()
    y = F.glu(x, -1)
    y.backward(tl.tensor([[1.0], [1.0], [60000.0], [3.0]], device=device).to(dt))
    # torch 2.15's (a sigmoid rounded to float16 made 65504 * sigmoid(-20) 0 and inf * it NaN)
    if dt is tl.float16:
        _equal(y, [[0.00013506412506103516], [INF], [952.5], [0.0009937286376953125]])
        _equal(x.grad, [[0.0, 0.0], [0.0, NAN], [57152.0, INF], [2.98046875, 2.0384788513183594e-05]])
    else:
        _equal(y, [[0.0001354217529296875], [INF], [952.0], [0.0009918212890625]])
        _equal(x.grad, [[2.066371962428093e-09, 0.0001354217529296875], [2.066371962428093e-09, INF],
                        [57088.0, 2670592.0], [2.96875, 2.3245811462402344e-05]])


def test_embedding_bag_max_keeps_a_first_nan_and_skips_a_later_one(device):
    w = tl.tensor([[INF, 1.0], [NAN, 2.0], [3.0, NAN]], device=device, requires_grad=True)
    y = F.embedding_bag(tl.tensor([0, 1, 2, 1, 0], device=device), w, tl.tensor([0, 3], device=device), mode="max")
    y.backward(tl.tensor([[1.0, 2.0], [3.0, 4.0]], device=device))
    # torch 2.15's running maximum (first value, then any later value that is >)
    _equal(y, [[INF, 2.0], [NAN, 2.0]])
    _equal(w.grad, [[1.0, 0.0], [3.0, 6.0], [0.0, 0.0]])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_huber_loss_of_half_dtypes_with_a_huge_delta(device, dtype):
    dt = getattr(tl, dtype)
    a = tl.tensor([65504.0, 100.0, 3.0, -300.0], device=device).to(dt).requires_grad_()
    b = tl.tensor([-65504.0, 0.0, 1.0, 0.0], device=device).to(dt)
    for delta, expected, grad in (
            (1e5, {tl.float16: [INF, 5000.0, 2.0, 44992.0], tl.bfloat16: [8086618112.0, 4992.0, 2.0, 45056.0]},
             {tl.float16: [INF, 100.0, 2.0, -300.0], tl.bfloat16: [99840.0, 100.0, 2.0, -300.0]}),
            (1e20, {tl.float16: [INF, 5000.0, 2.0, 44992.0], tl.bfloat16: [8589934592.0, 4992.0, 2.0, 45056.0]},
             {tl.float16: [INF, 100.0, 2.0, -300.0], tl.bfloat16: [131072.0, 100.0, 2.0, -300.0]})):
        a.grad = None
        loss = F.huber_loss(a, b, reduction="none", delta=delta)
        loss.backward(tl.ones(4, device=device, dtype=dt))
        # torch 2.15's (computed in float32; 0.5 * delta in float16 is inf, and inf - inf NaN)
        _equal(loss, expected[dt])
        _equal(a.grad, grad[dt])
    # an ordinary delta: float16 in float32; bfloat16 in bfloat16 steps with delta rounded to bfloat16
    # (torch 2.15's 30.125 where the unrounded 0.3 gave 30)
    a = tl.tensor([100.0, -300.0, 3.1, 0.2], device=device).to(dt).requires_grad_()
    loss = F.huber_loss(a, tl.zeros(4, device=device, dtype=dt), reduction="none", delta=0.3)
    loss.backward(tl.ones(4, device=device, dtype=dt))
    if dt is tl.float16:
        _equal(loss, [29.953125, 89.9375, 0.884765625, 0.019989013671875])
        _equal(a.grad, [0.300048828125, -0.300048828125, 0.300048828125, 0.199951171875])
    else:
        _equal(loss, [30.125, 90.0, 0.8828125, 0.02001953125])
        _equal(a.grad, [0.30078125, -0.30078125, 0.30078125, 0.2001953125])
