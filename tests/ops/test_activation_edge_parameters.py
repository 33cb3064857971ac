"""Activation parameters at their edges and addcdiv's order of operations, with PyTorch 2.15's
results hard-coded (found by a differential scan)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F

NAN, INF = math.nan, math.inf


def test_celu_keeps_positive_inputs_and_does_not_overflow(device):
    x = tl.tensor([40000.0, 65504.0, 100.0, -1.0], dtype=tl.float16, device=device)
    assert F.celu(x, alpha=0.5).tolist()[:3] == [40000.0, 65504.0, 100.0]  # (x / alpha overflowed to inf)
    assert F.celu(tl.tensor([100.0], dtype=tl.float16, device=device), alpha=0.001).item() == 100.0
    assert F.celu(tl.tensor([3e38], device=device), alpha=0.5).item() == np.float32(3e38)
    x = tl.tensor([3.201171875, 6.51953125], dtype=tl.float16, device=device)
    assert F.celu(x, alpha=3.0).tolist() == [3.201171875, 6.51953125]
    neg = F.celu(tl.tensor([-2.0], dtype=tl.float64, device=device), alpha=3.0).item()
    assert neg == pytest.approx(3.0 * math.expm1(-2.0 / 3.0), rel=1e-15)


def test_addcdiv_multiplies_by_value_before_dividing(device):
    z = tl.zeros(1, dtype=tl.float64, device=device)
    big = tl.addcdiv(z, tl.tensor([1e308], dtype=tl.float64, device=device),
                     tl.tensor([4.0], dtype=tl.float64, device=device), value=4)
    assert big.item() == INF  # 4 * 1e308 overflows first, as PyTorch's
    tiny = tl.addcdiv(tl.zeros(1, device=device), tl.tensor([1e-45], device=device), tl.tensor([2.0], device=device),
                      value=2)
    assert tiny.item() == np.float32(1e-45)  # (1e-45 / 2 underflowed to 0 before)
    x = tl.addcdiv(tl.tensor([-1.1861660480499268], device=device), tl.tensor([-1.5747339725494385], device=device),
                   tl.tensor([-0.36045390367507935], device=device), value=0.37)
    assert x.item() == np.float32(0.43027246)


def test_shrink_and_hardtanh_parameters(device):
    x = tl.tensor([-3.0, -0.5, 0.2, 0.5, 5.0, NAN], device=device)
    np.testing.assert_array_equal(F.hardshrink(x, NAN).cpu().numpy(), x.cpu().numpy())  # NaN lambd: x, as PyTorch
    np.testing.assert_array_equal(F.hardshrink(x, 0.5).cpu().numpy(), [-3, 0, 0, 0, 5, NAN])
    for lambd in (INF, NAN, -1.0):
        with pytest.raises(RuntimeError, match=r"lambda must be in range \[0, 3.40282e\+38\] for input dtype Float"):
            F.softshrink(x, lambd)
    assert np.isnan(F.hardtanh(x, NAN, 1.0).cpu().numpy()).all()
    with pytest.raises(RuntimeError, match="without overflow"):
        F.hardtanh(x.half(), 1e10, 1e20)
    g = tl.tensor([-3.0, -0.5, 0.2, 0.5, 5.0], requires_grad=True, device=device)
    F.hardshrink(g, 0.5).sum().backward()
    assert g.grad.tolist() == [1, 0, 0, 0, 1]
