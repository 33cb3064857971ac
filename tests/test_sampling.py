"""multinomial and the distribution fills (tensorlab/_sampling.py): the distributions (sample
statistics of seeded draws, so deterministic), PyTorch's arguments and errors, and the same
samples on every device for one seed."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy


def _draw(fn, device, seed=0):
    tl.manual_seed(seed)
    return to_numpy(fn(device))


def test_multinomial_with_replacement_follows_the_weights(device):
    p = tl.tensor([1.0, 0.0, 6.0, 3.0], device=device)  # not normalised
    s = _draw(lambda d: tl.multinomial(p, 20000, replacement=True), device)
    assert s.dtype == np.int64 and s.shape == (20000,)
    freq = np.bincount(s, minlength=4) / s.size
    np.testing.assert_allclose(freq, [0.1, 0.0, 0.6, 0.3], atol=0.015)  # ~4 standard errors


def test_multinomial_without_replacement(device):
    p = tl.tensor([[0.1, 0.0, 0.6, 0.3]], device=device).expand(3000, 4).contiguous()
    s = _draw(lambda d: p.multinomial(3), device)
    assert s.shape == (3000, 3)
    assert all(len(set(row)) == 3 for row in s) and not (s == 1).any()  # distinct, never a zero weight
    np.testing.assert_allclose(np.bincount(s[:, 0], minlength=4) / 3000, [0.1, 0.0, 0.6, 0.3], atol=0.03)
    assert tl.multinomial(tl.ones(0, 3, device=device), 2).shape == (0, 2)


@pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")
def test_multinomial_same_samples_on_every_device():
    p = tl.tensor([0.2, 0.5, 0.3])
    cpu = _draw(lambda d: tl.multinomial(p.to(d), 50, True), "cpu", seed=7)
    np.testing.assert_array_equal(_draw(lambda d: tl.multinomial(p.to(d), 50, True), "cuda", seed=7), cpu)


def test_multinomial_errors(device):
    p = tl.tensor([0.1, 0.0, 0.9], device=device)
    with pytest.raises(RuntimeError, match="cannot sample n_sample > prob_dist.size\\(-1\\) samples without "
                                           "replacement"):
        tl.multinomial(p, 4)
    with pytest.raises(RuntimeError, match="multinomial only supports floating-point dtypes for input, got: Long"):
        tl.multinomial(tl.tensor([1, 2], device=device), 1)
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        tl.multinomial(tl.tensor([-1.0, 2.0], device=device), 1)
    with pytest.raises(RuntimeError, match="probability tensor contains either `inf`, `nan` or element < 0"):
        tl.multinomial(tl.tensor([float("nan"), 2.0], device=device), 1)
    with pytest.raises(RuntimeError, match="invalid multinomial distribution \\(sum of probabilities <= 0\\)"):
        tl.multinomial(tl.tensor([0.0, 0.0], device=device), 1)
    with pytest.raises(RuntimeError, match="cannot sample n_sample <= 0 samples"):
        tl.multinomial(p, 0)
    with pytest.raises(RuntimeError, match="prob_dist must be 1 or 2 dim"):
        tl.multinomial(tl.ones(2, 2, 2, device=device), 1)


@pytest.mark.parametrize("name,fill,mean", [
    ("exponential", lambda t: t.exponential_(2.0), 0.5),
    ("geometric", lambda t: t.geometric_(0.25), 4.0),
    ("log_normal", lambda t: t.log_normal_(0.0, 0.5), math.exp(0.125)),
])
def test_distribution_means(device, name, fill, mean):
    v = _draw(lambda d: fill(tl.empty(100000, device=d)), device)
    assert abs(v.mean() - mean) < 0.02 * mean
    if name == "geometric":
        assert v.min() >= 1 and (v == np.round(v)).all()
    else:
        assert v.min() > 0


def test_cauchy_median_and_spread(device):
    v = _draw(lambda d: tl.empty(100000, device=d).cauchy_(1.0, 2.0), device)
    q1, med, q3 = np.percentile(v, [25, 50, 75])
    assert abs(med - 1.0) < 0.05 and abs((q3 - q1) / 2 - 2.0) < 0.1  # median 1, half the IQR is sigma


def test_fill_errors(device):
    x = tl.empty(3, device=device)
    with pytest.raises(RuntimeError, match="exponential_ expects lambda > 0.0, but found lambda=0"):
        x.exponential_(0)
    with pytest.raises(RuntimeError, match="Exponential distribution is a continuous probability distribution. dtype "
                                           "must be a floating point but you specified Long"):
        tl.empty(3, dtype=tl.int64, device=device).exponential_()
    with pytest.raises(RuntimeError, match="geometric_ expects p to be in \\(0, 1\\), but got p=1.5"):
        x.geometric_(1.5)
    with pytest.raises(RuntimeError, match="log_normal_ expects std > 0.0, but found std=0"):
        x.log_normal_(1, 0)
    with pytest.raises(RuntimeError, match="cauchy_ expects sigma > 0.0, but found sigma=0"):
        x.cauchy_(0, 0)
    assert tl.empty(3, dtype=tl.int64, device=device).geometric_(0.5).dtype is tl.int64  # PyTorch allows integers


def test_bernoulli_method(device):
    r = _draw(lambda d: tl.tensor([0.0, 1.0, 0.5], device=d).bernoulli(), device)
    assert r[0] == 0.0 and r[1] == 1.0
    m = _draw(lambda d: tl.empty(20000, device=d).fill_(0.3).bernoulli(), device)
    assert abs(m.mean() - 0.3) < 0.015


def test_bernoulli_of_integer_probabilities_and_bool_geometric_raise(device):
    # torch 2.15: probabilities must be floating (an int or bool p tensor has no kernel) and geometric_
    # fills integers but not bool; tensorlab sampled them. An empty tensor runs no kernel.
    for dtype, name in [(tl.int64, "Long"), (tl.int32, "Int"), (tl.uint8, "Byte"), (tl.bool, "Bool")]:
        p = tl.ones(3, dtype=dtype, device=device)
        with pytest.raises(NotImplementedError, match=f"\"bernoulli_tensor_cpu_p_\" not implemented for '{name}'"):
            tl.bernoulli(p)
        with pytest.raises(NotImplementedError, match=f"\"bernoulli_tensor_cpu_p_\" not implemented for '{name}'"):
            tl.zeros(3, device=device).bernoulli_(p)
        assert tl.bernoulli(p[:0]).dtype is dtype
        assert tl.bernoulli(p, p=1.0).tolist() == [1, 1, 1]  # (a number p: the tensor only gives the dtype)
    assert tl.zeros(3, dtype=tl.bool, device=device).bernoulli_(tl.ones(3, device=device)).tolist() == [True] * 3
    with pytest.raises(NotImplementedError, match="\"geometric_cpu\" not implemented for 'Bool'"):
        tl.zeros(3, dtype=tl.bool, device=device).geometric_(0.5)
    assert tl.zeros(0, dtype=tl.bool, device=device).geometric_(0.5).shape == (0,)


def test_bernoulli_requires_grad_with_its_probabilities_and_gives_them_zero_gradient(device):
    # torch 2.15: bernoulli's samples require grad when input does (tensor p or number p, and bernoulli_ of a
    # p that requires grad); the gradient is zero. tensorlab's samples never required grad.
    x = tl.full((3,), 0.5, device=device, requires_grad=True)
    for y in (tl.bernoulli(x), tl.bernoulli(x, p=0.3), tl.zeros(3, device=device).bernoulli_(x), x.bernoulli()):
        assert y.requires_grad
        x.grad = None
        y.sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]
    with tl.no_grad():
        assert not tl.bernoulli(x).requires_grad and not tl.bernoulli(x, p=0.3).requires_grad
    assert tl.bernoulli(tl.tensor([0.0, 1.0], device=device, requires_grad=True)).tolist() == [0.0, 1.0]
