"""PyTorch's ``*_copy`` ops and ``fill`` (tensorlab/ops/view_copies.py): each equals its view's
values in a new contiguous tensor that is not a view, gradients flow as through the view, and
``out=`` takes exactly the input's dtype."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy

_A = np.arange(24.0).reshape(2, 3, 4)

# (op, args, the numpy view it copies)
_CASES = [
    ("alias_copy", (), lambda a: a),
    ("detach_copy", (), lambda a: a),
    ("as_strided_copy", ((2, 2), (1, 2), 1), lambda a: np.lib.stride_tricks.as_strided(
        a.reshape(-1)[1:], (2, 2), (8, 16))),
    ("diagonal_copy", (1, 1, 2), lambda a: np.diagonal(a, 1, 1, 2)),
    ("expand_copy", ((5, 2, 3, 4),), lambda a: np.broadcast_to(a, (5, 2, 3, 4))),
    ("permute_copy", ((2, 0, 1),), lambda a: a.transpose(2, 0, 1)),
    ("select_copy", (1, -1), lambda a: a[:, -1]),
    ("slice_copy", (2, 1, None, 2), lambda a: a[:, :, 1::2]),
    ("squeeze_copy", (), lambda a: a),
    ("transpose_copy", (0, 2), lambda a: a.swapaxes(0, 2)),
    ("unfold_copy", (2, 2, 1), lambda a: np.lib.stride_tricks.sliding_window_view(a, 2, axis=2)),
    ("unsqueeze_copy", (1,), lambda a: a[:, None]),
    ("view_copy", ((4, 6),), lambda a: a.reshape(4, 6)),
]


@pytest.mark.parametrize("name, args, view", _CASES, ids=[c[0] + str(i) for i, c in enumerate(_CASES)])
def test_copy_ops_are_contiguous_copies_of_the_view(name, args, view, device):
    x = tl.tensor(_A, device=device, requires_grad=True)
    y = getattr(tl, name)(x, *args)
    np.testing.assert_array_equal(to_numpy(y), view(_A))
    assert y.is_contiguous() and y._base is None and y.data_ptr() != x.data_ptr()
    if name == "detach_copy":
        assert not y.requires_grad
        return
    g = np.random.default_rng(0).standard_normal(y.shape)
    y.backward(tl.tensor(g, device=device))
    expected = np.zeros_like(_A)  # the view's gradient: g added where each view element reads
    np.add.at(expected.reshape(-1), view(np.arange(_A.size).reshape(_A.shape)).reshape(-1), g.reshape(-1))
    np.testing.assert_allclose(to_numpy(x.grad), expected, rtol=1e-12)


def test_list_copies_and_out(device):
    x = tl.tensor(_A, device=device)
    parts = tl.split_copy(x, 2, 2)
    assert len(parts) == 2 and all(p.is_contiguous() and p._base is None for p in parts)
    np.testing.assert_array_equal(to_numpy(parts[1]), _A[:, :, 2:])
    np.testing.assert_array_equal(to_numpy(tl.split_with_sizes_copy(x, [1, 2], 1)[1]), _A[:, 1:])
    np.testing.assert_array_equal(to_numpy(tl.unbind_copy(x, 1)[2]), _A[:, 2])
    outs = [tl.empty(0, dtype=tl.float64, device=device), tl.empty(0, dtype=tl.float64, device=device)]
    assert tl.split_copy(x, 1, 0, out=outs) is None
    np.testing.assert_array_equal(to_numpy(outs[1]), _A[1:])
    o = tl.empty(0, dtype=tl.float64, device=device)
    assert tl.t_copy(x[0], out=o) is o and o.shape == (4, 3)


def test_copy_op_errors():
    x = tl.tensor(_A, dtype=tl.float32)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float32, but got float64"):
        tl.t_copy(x[0], out=tl.empty(0, dtype=tl.float64))
    outs = [tl.empty(0), tl.empty(3, dtype=tl.int64)]
    with pytest.raises(RuntimeError, match="dtype float32, but got int64"):
        tl.split_copy(x, 1, 0, out=outs)
    assert outs[0].shape == (0,)  # checked before anything was written
    with pytest.raises(RuntimeError, match="expected out to be a list of 2 tensors, but got 1"):
        tl.split_copy(x, 1, 0, out=[tl.empty(0)])
    with pytest.raises(TypeError, match=r"t_copy\(\): argument 'input' \(position 1\) must be Tensor"):
        tl.t_copy([1.0])


def test_fill_is_fill_out_of_place(device):
    x = tl.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True)
    v = tl.tensor(5.0, device=device, requires_grad=True)
    y = tl.fill(x, v)
    assert to_numpy(y).tolist() == [[5.0, 5.0], [5.0, 5.0]] and to_numpy(x).tolist() == [[1.0, 2.0], [3.0, 4.0]]
    y.sum().backward()
    assert v.grad.item() == 4.0 and to_numpy(x.grad).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert tl.fill(tl.tensor([1, 2], device=device), 7.9).tolist() == [7, 7]
    with pytest.raises(RuntimeError, match="fill_ only supports 0-dimension value tensor"):
        tl.fill(x, tl.tensor([1.0]))
