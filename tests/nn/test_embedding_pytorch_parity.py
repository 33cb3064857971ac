"""embedding / embedding_bag behaviour found by translating PyTorch's test/nn/test_embedding.py.

Every expected value here is torch 2.15's (cpu), taken from running the same call there.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F


def _table(device, dtype=tl.float32):
    return tl.arange(12.0, device=device).view(6, 2).to(dtype).requires_grad_()


# ----------------------------------------------------------------------------------------------
# include_last_offset: where the last bag ends (PyTorch issue 89677)
# ----------------------------------------------------------------------------------------------

# (dtype, mode, padding_idx, per_sample_weights?, input, offsets, torch 2.15's output, weight grad,
#  per_sample_weights grad) with the upstream gradient arange(1, 1 + out.numel()). The last bag runs
# to the end of the input, as torch's own test asserts; torch's cpu fbgemm path (float32 sum/mean
# without padding_idx) still ends its sum at the last offset, which tensorlab does not copy: those
# rows below are torch's float64 (slow path) values.
_LAST_OFFSET_CASES = [
    ("float32", "sum", 5, False, [0, 1, 2, 3], [0, 3, 3], [[6.0, 9.0], [6.0, 7.0]],
     [[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [0.0, 0.0], [0.0, 0.0]], None),
    ("float32", "max", None, False, [0, 1, 2, 3], [0, 3, 3], [[4.0, 5.0], [6.0, 7.0]],
     [[0.0, 0.0], [0.0, 0.0], [1.0, 2.0], [3.0, 4.0], [0.0, 0.0], [0.0, 0.0]], None),
    ("float32", "max", 5, False, [0, 1, 2, 3, 4], [0, 2, 3], [[2.0, 3.0], [8.0, 9.0]],
     [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0], [0.0, 0.0], [3.0, 4.0], [0.0, 0.0]], None),
    ("float32", "mean", 5, False, [0, 1, 5, 3], [0, 1, 2], [[0.0, 1.0], [4.0, 5.0]],
     [[1.0, 2.0], [1.5, 2.0], [0.0, 0.0], [1.5, 2.0], [0.0, 0.0], [0.0, 0.0]], None),
    ("float32", "sum", 5, True, [0, 1, 2, 3], [0, 3, 3], [[16.0, 22.0], [24.0, 28.0]],
     [[1.0, 2.0], [2.0, 4.0], [3.0, 6.0], [12.0, 16.0], [0.0, 0.0], [0.0, 0.0]], [2.0, 8.0, 14.0, 46.0]),
    ("float64", "sum", None, False, [0, 1, 2, 3], [0, 3, 3], [[6.0, 9.0], [6.0, 7.0]],
     [[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [0.0, 0.0], [0.0, 0.0]], None),
    ("float64", "sum", None, True, [0, 1, 2, 3, 4], [0, 2, 3], [[4.0, 7.0], [76.0, 88.0]],
     [[1.0, 2.0], [2.0, 4.0], [9.0, 12.0], [12.0, 16.0], [15.0, 20.0], [0.0, 0.0]], [2.0, 8.0, 32.0, 46.0, 60.0]),
    ("float64", "mean", None, False, [0, 1, 5, 3], [0, 1, 2], [[0.0, 1.0], [6.0, 7.0]],
     [[1.0, 2.0], [1.0, 4 / 3], [0.0, 0.0], [1.0, 4 / 3], [0.0, 0.0], [1.0, 4 / 3]], None),
    ("float32", "sum", None, False, [0, 1, 2, 3], [0, 3, 3], [[6.0, 9.0], [6.0, 7.0]],
     [[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [3.0, 4.0], [0.0, 0.0], [0.0, 0.0]], None),
    ("float32", "mean", None, False, [0, 1, 5, 3], [0, 1, 2], [[0.0, 1.0], [6.0, 7.0]],
     [[1.0, 2.0], [1.0, 4 / 3], [0.0, 0.0], [1.0, 4 / 3], [0.0, 0.0], [1.0, 4 / 3]], None),
]


@pytest.mark.parametrize("case", _LAST_OFFSET_CASES, ids=lambda c: f"{c[0]}-{c[1]}-pad{c[2]}-psw{c[3]}-{c[5]}")
def test_embedding_bag_include_last_offset_matches_torch(device, case):
    dtype, mode, padding_idx, with_psw, idx, offsets, expected, grad_w, grad_psw = case
    dt = getattr(tl, dtype)
    w = _table(device, dt)
    psw = tl.tensor([1.0, 2.0, 3.0, 4.0, 5.0][:len(idx)], device=device).to(dt).requires_grad_() if with_psw \
        else None
    out = F.embedding_bag(tl.tensor(idx, device=device), w, tl.tensor(offsets, device=device), mode=mode,
                          include_last_offset=True, padding_idx=padding_idx, per_sample_weights=psw)
    np.testing.assert_allclose(out.detach().cpu().numpy(), expected, rtol=1e-6)
    out.backward(tl.arange(1.0, 1 + out.numel(), device=device).view(out.shape).to(dt))
    if grad_w is not None:
        got = w.grad.cpu().numpy()
        for row, want in zip(got, grad_w):
            if want is not None:
                np.testing.assert_allclose(row, want, rtol=1e-6)
    if grad_psw is not None:
        np.testing.assert_allclose(psw.grad.cpu().numpy(), grad_psw, rtol=1e-6)


def test_embedding_bag_include_last_offset_of_torchs_own_test(device):
    """torch 2.15's test_embeddingbag_include_last_offset: offsets [0, 3, 3] and [0, 3, 4] give the same
    bags (the last one runs to the end of the input), here in every mode and for a strided weight."""
    bag = tl.nn.EmbeddingBag(100, 3, include_last_offset=True, padding_idx=61).to(device)
    inp = tl.tensor([0, 1, 2, 3], device=device)
    w = bag.weight.detach()
    want = tl.stack([w[0:3].mean(0), w[3]])
    for offsets in ([0, 3, 3], [0, 3, 4]):
        np.testing.assert_allclose(bag(inp, tl.tensor(offsets, device=device)).detach().cpu().numpy(),
                                   want.cpu().numpy(), rtol=1e-6)
    strided = tl.arange(12.0, device=device).view(6, 2).t().contiguous().t()
    for mode, rows in (("sum", [[6.0, 9.0], [6.0, 7.0]]), ("mean", [[2.0, 3.0], [6.0, 7.0]]),
                       ("max", [[4.0, 5.0], [6.0, 7.0]])):
        out = F.embedding_bag(inp, strided, tl.tensor([0, 3, 3], device=device), mode=mode, include_last_offset=True)
        assert out.tolist() == rows


# ----------------------------------------------------------------------------------------------
# max_norm renormalises every index of the input
# ----------------------------------------------------------------------------------------------


def test_embedding_bag_max_norm_renormalises_padding_and_trailing_rows(device):
    # torch 2.15: row 2 (the padding_idx) is renormalised too
    w = tl.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]], device=device)
    F.embedding_bag(tl.tensor([[1, 2]], device=device), w, max_norm=1.0, padding_idx=2)
    np.testing.assert_allclose(w.cpu().numpy(), [[0.0, 0.0], [0.6, 0.8], [0.6, 0.8]], rtol=1e-6)
    # torch 2.15: row 2, after the last offset, is renormalised too
    w = tl.tensor([[0.0, 0.0], [3.0, 4.0], [6.0, 8.0]], device=device)
    F.embedding_bag(tl.tensor([1, 2], device=device), w, tl.tensor([0, 1], device=device), max_norm=1.0,
                    include_last_offset=True)
    np.testing.assert_allclose(w.cpu().numpy(), [[0.0, 0.0], [0.6, 0.8], [0.6, 0.8]], rtol=1e-6)


# ----------------------------------------------------------------------------------------------
# second derivative of embedding(scale_grad_by_freq=True)
# ----------------------------------------------------------------------------------------------


def test_embedding_double_backward_ignores_the_frequency_scaling(device):
    w = tl.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tl.float64, device=device, requires_grad=True)
    y = F.embedding(tl.tensor([1, 1, 0], device=device), w, scale_grad_by_freq=True)
    (g,) = tl.autograd.grad((y**2).sum(), w, create_graph=True)
    assert g.tolist() == [[2.0, 4.0], [6.0, 8.0]]  # torch 2.15 (first order: scaled)
    assert tl.autograd.grad(g.sum(), w)[0].tolist() == [[2.0, 2.0], [2.0, 2.0]]  # torch 2.15


def test_embedding_double_backward_with_padding_idx(device):
    w = tl.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=tl.float64, device=device, requires_grad=True)
    y = F.embedding(tl.tensor([1, 1, 0, 2], device=device), w, scale_grad_by_freq=True, padding_idx=0)
    (g,) = tl.autograd.grad((y**3).sum(), w, create_graph=True)
    assert g.tolist() == [[0.0, 0.0], [27.0, 48.0], [75.0, 108.0]]  # torch 2.15
    assert tl.autograd.grad((g * g).sum(), w)[0].tolist() == [[0.0, 0.0], [972.0, 2304.0], [4500.0, 7776.0]]


# ----------------------------------------------------------------------------------------------
# error types and messages
# ----------------------------------------------------------------------------------------------


def test_embedding_bag_index_out_of_range_is_a_runtime_error(device):
    # torch 2.15's RuntimeError (its cpu fbgemm path words it differently, and does not look past the
    # last offset; tensorlab checks every index, as torch's other path)
    w32, w64 = _table(device), _table(device, tl.float64)
    message = "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be"
    for call in (lambda: F.embedding_bag(tl.tensor([[0, 7]], device=device), w32, mode="max"),
                 lambda: F.embedding_bag(tl.tensor([[0, 7]], device=device), w32, padding_idx=1),
                 lambda: F.embedding_bag(tl.tensor([[0, 7]], device=device), w64),
                 lambda: F.embedding_bag(tl.tensor([0, 7], device=device), w32, tl.tensor([0], device=device)),
                 lambda: F.embedding_bag(tl.tensor([0, 1, 7], device=device), w64, tl.tensor([0, 2], device=device),
                                         include_last_offset=True)):
        with pytest.raises(RuntimeError, match=re.escape(f"{message} 7")):
            call()
    with pytest.raises(RuntimeError, match=re.escape(f"{message} -1")):
        F.embedding_bag(tl.tensor([[0, -1]], device=device), w32)
    # F.embedding keeps its IndexError (torch 2.15's too)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(tl.tensor([0, 7], device=device), w32)


def test_embedding_bag_padding_idx_out_of_range_is_a_runtime_error(device):
    w = _table(device)
    for p in (6, -7):
        with pytest.raises(RuntimeError, match=f"padding_idx must be within the number of embeddings, -6 through 5, "
                                               f"but got {p}"):
            F.embedding_bag(tl.tensor([[0, 1]], device=device), w, padding_idx=p)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):  # F.embedding: torch's too
        F.embedding(tl.tensor([0, 1], device=device), w, padding_idx=6)


def test_embedding_bag_argument_errors_of_torch(device):
    w = _table(device)
    idx = tl.tensor([[0, 1]], device=device)
    with pytest.raises(RuntimeError, match="Expected tensor for argument #1 'weight' to have the same type as tensor "
                                           "for argument #1 'per_sample_weights'; but type .*FloatTensor does not "
                                           "equal .*DoubleTensor"):
        F.embedding_bag(idx, w, mode="sum", per_sample_weights=tl.tensor([[1.0, 2.0]], dtype=tl.float64,
                                                                         device=device))
    with pytest.raises(ValueError, match=re.escape("then it must have the same shape as the input")):
        F.embedding_bag(idx, w, mode="sum", per_sample_weights=tl.tensor([1.0, 2.0], device=device))
    with pytest.raises(ValueError, match="max mode does not support scaling the gradient by the frequency"):
        F.embedding_bag(idx, w, mode="max", scale_grad_by_freq=True)
    with pytest.raises(ValueError, match="max mode does not support sparse weights"):
        F.embedding_bag(idx, w, mode="max", sparse=True)
    with pytest.raises(RuntimeError, match="include_last_offset: number of offset should be at least 1"):
        F.embedding_bag(tl.tensor([0, 1], device=device), w, tl.tensor([], dtype=tl.int64, device=device),
                        include_last_offset=True)
    with pytest.raises(ValueError, match="weight has to be a 2D Tensor, but got Tensor of dimension 3"):
        F.embedding_bag(tl.tensor([0, 1], device=device), w.detach().view(6, 2, 1), tl.tensor([0], device=device))
    with pytest.raises(IndexError, match=re.escape("select(): index 9 out of range for tensor of size [6, 2] at "
                                                   "dimension 0")):
        F.embedding_bag(tl.tensor([0, 9], device=device), w.detach().clone(), tl.tensor([0], device=device),
                        max_norm=1.0)
