"""cpu/cuda disagreements a device-parity fuzz found, now agreeing (with values known by hand)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl


def test_neg_in_place_on_a_view_whose_step_equals_the_itemsize(device):
    # numpy 2.4's negative with an aliased strided output read the wrong elements on cpu
    x = tl.tensor(np.arange(9, dtype=np.float32).reshape(3, 3), device=device)
    x.diagonal().neg_()
    assert x.diagonal().tolist() == [-0.0, -4.0, -8.0]
    y = tl.tensor(np.arange(16, dtype=np.float64).reshape(2, 8), device=device)
    tl.neg(y[:, 0], out=y[:, 0])
    assert y[:, 0].tolist() == [-0.0, -8.0]


def test_scans_and_softmax_of_views_with_eight_unmergeable_dims(device):
    """cuda raised NotImplementedError beyond six non-mergeable dims; now through contiguous copies."""
    a = np.random.default_rng(0).standard_normal((2,) * 8)
    order = (7, 0, 6, 1, 5, 2, 4, 3)
    x = tl.tensor(a, device=device).permute(*order)
    ref = a.transpose(order)
    np.testing.assert_allclose(tl.cumsum(x, 1).cpu().numpy(), np.cumsum(ref, 1), rtol=1e-12)
    np.testing.assert_allclose(tl.cummax(x, 3)[0].cpu().numpy(), np.maximum.accumulate(ref, 3), rtol=1e-12)
    e = np.exp(ref - ref.max(1, keepdims=True))
    np.testing.assert_allclose(tl.softmax(x, 1).cpu().numpy(), e / e.sum(1, keepdims=True), rtol=1e-12)
    xg = tl.tensor(a, device=device, requires_grad=True)
    g = np.arange(256.0).reshape((2,) * 8)
    tl.cumsum(xg, 2).backward(tl.tensor(g, device=device).permute(1, 3, 5, 7, 6, 4, 2, 0))
    gp = g.transpose(1, 3, 5, 7, 6, 4, 2, 0)
    np.testing.assert_allclose(xg.grad.cpu().numpy(), np.flip(np.cumsum(np.flip(gp, 2), 2), 2), rtol=1e-12)


def test_a_device_value_that_may_not_fit_is_checked_as_pytorch(device):
    """masked_fill/index_fill with a 0-d value tensor: PyTorch reads it and checks it fits; cuda wrapped
    it silently (300 into uint8 gave 44). A value of a dtype that always fits is not read back."""
    x = tl.tensor(np.arange(4), device=device).to(tl.uint8)
    m = tl.tensor(np.array([True, False, True, False]), device=device)
    for value in (tl.tensor(np.array(-2.7, np.float32), device=device), tl.tensor(300, device=device)):
        with pytest.raises(RuntimeError, match="without overflow"):
            x.masked_fill(m, value)
    assert x.masked_fill(m, tl.tensor(7, device=device)).tolist() == [7, 1, 7, 3]
    h = tl.zeros(2, dtype=tl.float16, device=device)
    with pytest.raises(RuntimeError, match="without overflow"):
        h.index_fill(0, tl.tensor([1], device=device), tl.tensor(70000, device=device))
    two = tl.tensor(2.0, dtype=tl.float16, device=device)
    assert h.index_fill(0, tl.tensor([1], device=device), two).tolist() == [0.0, 2.0]


def test_softmax_of_a_long_strided_float32_row_on_the_twin():
    """The twin summed a transposed row element after element (4e-5 relative error in the gradient)."""
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((33000, 3)) * 4).astype(np.float32)
    g = rng.standard_normal((3, 33000)).astype(np.float32)
    x = tl.tensor(a).t().requires_grad_()
    tl.nn.functional.log_softmax(x, dim=-1).backward(tl.tensor(g))
    a64 = a.T.astype(np.float64)
    m = a64.max(-1, keepdims=True)
    p = np.exp(a64 - m - np.log(np.exp(a64 - m).sum(-1, keepdims=True)))
    ref = g - p * g.astype(np.float64).sum(-1, keepdims=True)
    np.testing.assert_allclose(x.grad.numpy(), ref, rtol=1e-5, atol=1e-4)


def test_large_python_ints_round_to_float32_once(device):
    # cuda turned the number into a double, then the kernel rounded that to float32: two roundings
    # (2**62 + 2**38 + 1 became 2**62); PyTorch and the cpu twins round the int64 to float32 once
    v = 2**62 + 2**38 + 1
    once = 2.0**62 + 2.0**39
    z = tl.zeros(2, device=device)
    assert tl.full((1,), v, dtype=tl.float32, device=device).item() == once
    assert (z + v).tolist() == [once, once] and (z.clone().fill_(v)).tolist() == [once, once]
    assert z.masked_fill(tl.tensor([True, False], device=device), v).tolist() == [once, 0.0]
    assert not (tl.full((1,), 2.0**62, device=device) == v).item()
    assert (tl.full((1,), once, device=device) == v).item()
    assert tl.full((1,), v, dtype=tl.float64, device=device).item() == float(v)  # float64: one rounding already


def test_python_ints_between_2_63_and_2_64_wrap_on_both_devices(device):
    # PyTorch reads them as uint64 (their int64 bits); cuda's kernel argument did, the cpu twin raised
    # numpy's OverflowError
    t = tl.tensor([5, -3], device=device)
    assert (t + 2**63).tolist() == [-(2**63) + 5, 2**63 - 3]
    assert (t * (2**64 - 1)).tolist() == [-5, 3] and (t == 2**63).tolist() == [False, False]
    assert (tl.tensor([5, -3], dtype=tl.int32, device=device) + 2**63).tolist() == [5, -3]
