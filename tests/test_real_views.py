"""PyTorch's complex-number API on real tensors (tensorlab has no complex dtypes): Tensor.real and
tl.real are the tensor itself (and ``t.real = v`` writes v), imag raises PyTorch's error, conj,
conj_physical(_), resolve_conj and resolve_neg return the tensor, is_conj and is_neg are False.
Checked against torch 2.13.
"""

from __future__ import annotations

import pytest

import tensorlab as tl
from tests.helpers import to_numpy


def test_real_tensor_forms(device):
    x = tl.tensor([1.0, -2.0], device=device)
    for f in (lambda t: t.real, tl.real, tl.conj, tl.resolve_conj, tl.resolve_neg, tl.conj_physical,
              lambda t: t.conj(), lambda t: t.resolve_conj(), lambda t: t.resolve_neg(), lambda t: t.conj_physical_()):
        assert f(x) is x
    assert not x.is_conj() and not tl.is_conj(x) and not x.is_neg() and not tl.is_neg(x)
    i = tl.tensor([3], device=device)
    assert i.real is i and i.conj() is i
    x.real = tl.tensor([5.0, 6.0], device=device)
    assert to_numpy(x).tolist() == [5.0, 6.0]
    for f in (lambda: x.imag, lambda: tl.imag(x)):
        with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex dtypes."):
            f()
    with pytest.raises(TypeError, match="conj\\(\\): argument 'input' \\(position 1\\) must be Tensor, not list"):
        tl.conj([1.0])
    y = tl.tensor([1.0, 2.0], device=device, requires_grad=True)
    (y.real * 3).conj().sum().backward()
    assert to_numpy(y.grad).tolist() == [3.0, 3.0]
    # conj_physical takes out= (a copy, of exactly the input's dtype), as PyTorch; it raised TypeError
    o = tl.empty(0, device=device)
    assert tl.conj_physical(x, out=o) is o and to_numpy(o).tolist() == [5.0, 6.0]
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float32, but got float64"):
        tl.conj_physical(x, out=tl.empty(2, dtype=tl.float64, device=device))


@pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")
def test_region_view_backward_allocates_one_gradient_buffer():
    # the gradient of a slice / select / diagonal is written into zeros in place; an out-of-place
    # scatter made a second full-size buffer (it stays out of place, recorded, for double backward)
    import gc

    import numpy as np

    a = tl.randn(96, 64, device="cuda", requires_grad=True)
    views = ((lambda t: t[::2], np.s_[::2]), (lambda t: t[3], np.s_[3]), (lambda t: t[:, 1:5], np.s_[:, 1:5]))
    for view, region in views:
        a.grad = None
        y = (view(a) * 3).sum()
        gc.collect()
        tl.cuda.reset_peak_memory_stats()
        before = tl.cuda.memory_allocated()
        y.backward()
        # the zeros and the product's gradient (at most half of a); not a second buffer of a's size
        assert tl.cuda.max_memory_allocated() - before < 2 * a.numel() * 4
        want = np.zeros((96, 64), np.float32)
        want[region] = 3
        np.testing.assert_array_equal(a.grad.cpu().numpy(), want)
    x = tl.arange(6.0, dtype=tl.float64, requires_grad=True)
    (g,) = tl.autograd.grad((x[1:4] ** 2).sum(), [x], create_graph=True)
    g.sum().backward()  # the double backward goes through the recorded scatter
    np.testing.assert_array_equal(x.grad.numpy(), [0, 2, 2, 2, 0, 0])
