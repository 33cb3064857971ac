"""cpu/cuda disagreements a device-parity fuzz found, now agreeing (with values known by hand)."""

from __future__ import annotations

import numpy as np

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
