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
