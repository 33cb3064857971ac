"""``tensorlab.nn.utils.rnn``: ``pad_sequence`` (both sides, both layouts, trailing dims, dtype and
padding-value conversions, gradients) and ``unpad_sequence``, against numpy-built references."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.nn.utils.rnn import pad_sequence, unpad_sequence
from tests.helpers import assert_close, to_numpy

RNG = np.random.default_rng(11)


def _reference(arrays, batch_first, value, side):
    """Pad with numpy: (T, B, *) or (B, T, *)."""
    t = max(a.shape[0] for a in arrays)
    out = np.full((len(arrays), t, *arrays[0].shape[1:]), value, dtype=arrays[0].dtype)
    for i, a in enumerate(arrays):
        start = t - a.shape[0] if side == "left" else 0
        out[i, start:start + a.shape[0]] = a
    return out if batch_first else np.swapaxes(out, 0, 1)


@pytest.mark.parametrize("trailing", [(), (3,), (2, 2)])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence_values(device, trailing, batch_first, side):
    arrays = [RNG.standard_normal((n, *trailing)) for n in (3, 1, 4, 0)]
    seqs = [tl.tensor(a, device=device) for a in arrays]
    out = pad_sequence(seqs, batch_first=batch_first, padding_value=-1.5, padding_side=side)
    assert out.device == seqs[0].device
    assert_close(out, _reference(arrays, batch_first, -1.5, side))


def test_pad_sequence_positional_and_defaults():
    arrays = [np.arange(2.0), np.arange(3.0) + 10]
    seqs = [tl.tensor(a) for a in arrays]
    assert_close(pad_sequence(seqs), _reference(arrays, False, 0.0, "right"))
    assert_close(pad_sequence(seqs, True, 7.0, "left"), _reference(arrays, True, 7.0, "left"))
    np.testing.assert_array_equal(to_numpy(pad_sequence(seqs, True, 7.0, "left")), [[7, 0, 1], [10, 11, 12]])
    # the nn.utils path and a tuple or a tensor of sequences (iterated over its first dim)
    assert_close(tl.nn.utils.rnn.pad_sequence(tuple(seqs)), _reference(arrays, False, 0.0, "right"))
    assert_close(pad_sequence(tl.arange(6.0).reshape(2, 3)), np.arange(6.0).reshape(2, 3).T)


def test_pad_sequence_dtype_is_the_first_sequences():
    out = pad_sequence([tl.tensor([1, 2]), tl.tensor([1.7, -2.2, 3.9])], padding_value=1.5)
    assert out.dtype is tl.int64
    np.testing.assert_array_equal(to_numpy(out), [[1, 1], [2, -2], [1, 3]])  # 1.5 and the floats truncated
    out = pad_sequence([tl.tensor([True]), tl.tensor([False, True])], padding_value=0.5)
    assert out.dtype is tl.bool
    np.testing.assert_array_equal(to_numpy(out), [[True, False], [True, True]])
    out = pad_sequence([tl.tensor([1.0]), tl.tensor([2.0, 3.0])], padding_value=tl.tensor(4.0))
    np.testing.assert_array_equal(to_numpy(out), [[1, 2], [4, 3]])
    assert pad_sequence([tl.tensor([1.0], dtype=tl.float16)], padding_value=True).dtype is tl.float16


def test_pad_sequence_broadcasts_into_slots_like_copy():
    # PyTorch copies each sequence into its slot with copy_: a size-1 trailing dim broadcasts
    out = pad_sequence([tl.ones(2, 3), tl.full((3, 1), 2.0)])
    expected = np.zeros((3, 2, 3))
    expected[:2, 0] = 1
    expected[:, 1] = 2
    assert_close(out, expected)


def test_pad_sequence_empty_shapes():
    assert pad_sequence([tl.ones(2, 0), tl.ones(3, 0)], batch_first=True).shape == (2, 3, 0)
    assert pad_sequence([tl.ones(0, 3)]).shape == (0, 1, 3)


def test_pad_sequence_gradients(device):
    arrays = [RNG.standard_normal((n, 2)) for n in (2, 3)]
    seqs = [tl.tensor(a, device=device, requires_grad=True) for a in arrays]
    out = pad_sequence(seqs, batch_first=True, padding_value=5.0, padding_side="left")
    w = RNG.standard_normal(out.shape)
    (out * tl.tensor(w, device=device)).sum().backward()
    assert_close(seqs[0].grad, w[0, 1:])
    assert_close(seqs[1].grad, w[1])


def test_pad_sequence_gradcheck():
    seqs = [tl.tensor(RNG.standard_normal((n, 2)), requires_grad=True) for n in (3, 1, 2)]
    for side in ("right", "left"):
        for batch_first in (False, True):
            assert tl.autograd.gradcheck(lambda *s, b=batch_first, p=side: pad_sequence(list(s), b, 0.5, p), seqs)
    # a float32 sequence cast into a float64 batch: its gradient comes back in float32
    a = tl.tensor([1.0, 2.0], dtype=tl.float32, requires_grad=True)
    pad_sequence([tl.zeros(3, dtype=tl.float64), a]).sum().backward()
    assert a.grad.dtype is tl.float32
    np.testing.assert_array_equal(to_numpy(a.grad), [1, 1])


@pytest.mark.parametrize("args,kwargs,exc,fragment", [
    (([],), {}, RuntimeError, "received an empty list of sequences"),
    ((5,), {}, RuntimeError, "Expected iterable for input sequences"),
    (([[1.0]],), {}, TypeError, "expected Tensor as element 0 in argument 0, but got list"),
    (([tl.ones(2, 3), tl.ones(3, 4)],), {}, RuntimeError, "sequence 1 of shape [3, 4] does not fit its slot"),
    (([tl.ones(2, 3), tl.ones(3, 3, 3)],), {}, RuntimeError, "sequence 1 of shape [3, 3, 3]"),
    (([tl.ones(2)],), {"padding_side": "middle"}, RuntimeError, "one of left or right, but got middle"),
    (([tl.ones(2)],), {"batch_first": 1}, TypeError, "'batch_first' (position 2) must be bool, not int"),
    (([tl.ones(2)],), {"padding_value": None}, TypeError, "'padding_value' (position 3) must be float, not NoneType"),
    (([tl.ones(2)],), {"padding_value": 1j}, TypeError, "must be float, not complex"),
    (([tl.ones(2)],), {"padding_side": None}, TypeError, "'padding_side' (position 4) must be str"),
    (([tl.tensor(1.0)],), {}, RuntimeError, "sequence 0 is 0-d"),
    (([tl.ones(2), tl.tensor(1.0)],), {}, IndexError, "sequence 1 is 0-d"),
    (([tl.ones(2, dtype=tl.int64)],), {"padding_value": float("inf")}, RuntimeError, "without overflow"),
    (([tl.ones(2, dtype=tl.uint8)],), {"padding_value": -1}, RuntimeError, "without overflow"),
])
def test_pad_sequence_errors(args, kwargs, exc, fragment):
    with pytest.raises(exc) as info:
        pad_sequence(*args, **kwargs)
    assert fragment in str(info.value)


@pytest.mark.parametrize("batch_first", [False, True])
def test_unpad_sequence_roundtrip(device, batch_first):
    arrays = [RNG.standard_normal((n, 2)) for n in (3, 1, 4)]
    padded = pad_sequence([tl.tensor(a, device=device) for a in arrays], batch_first=batch_first)
    before = padded.shape
    for lengths in (tl.tensor([3, 1, 4]), [3, 1, 4]):
        out = unpad_sequence(padded, lengths, batch_first)
        assert len(out) == 3
        for got, a in zip(out, arrays):
            assert_close(got, a)
    assert padded.shape == before  # (PyTorch transposes its argument in place; tensorlab does not)


def test_unpad_sequence_lengths_clamped_and_copied():
    padded = tl.arange(6.0).reshape(2, 3)  # (B=2, T=3) with batch_first
    out = unpad_sequence(padded, tl.tensor([1.5, 7.0]), batch_first=True)
    np.testing.assert_array_equal(to_numpy(out[0]), [0, 1])  # positions 0, 1 < 1.5
    np.testing.assert_array_equal(to_numpy(out[1]), [3, 4, 5])
    assert unpad_sequence(padded, [-1, 0], batch_first=True)[0].shape == (0,)
    out[1][0] = 100.0  # a copy, as PyTorch's boolean-mask indexing returns
    assert padded[1, 0].item() == 3.0


def test_unpad_sequence_gradient():
    padded = tl.tensor(RNG.standard_normal((3, 2)), requires_grad=True)  # (T=3, B=2)
    a, b = unpad_sequence(padded, [2, 3])
    (a.sum() * 2 + b.sum()).backward()
    np.testing.assert_array_equal(to_numpy(padded.grad), [[2, 1], [2, 1], [0, 1]])


def test_unpad_sequence_errors():
    with pytest.raises(ValueError, match="got 2 padded sequences but 3 lengths"):
        unpad_sequence(tl.ones(3, 2), tl.tensor([1, 2, 3]))
    with pytest.raises(IndexError, match="at least 2 dims"):
        unpad_sequence(tl.ones(3), [1])
    with pytest.raises(TypeError, match="must be Tensor"):
        unpad_sequence([[1.0]], [1])
