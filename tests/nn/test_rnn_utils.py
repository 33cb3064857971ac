"""``tensorlab.nn.utils.rnn``: ``pad_sequence`` (both sides, both layouts, trailing dims, dtype and
padding-value conversions, gradients) and ``unpad_sequence``, against numpy-built references; the
packing API (``PackedSequence``, ``pack_padded_sequence``, ``pad_packed_sequence``, ``pack_sequence``,
``unpack_sequence``, ``invert_permutation``) against values PyTorch 2.15 computed (``PACK_EXPECTED``,
literals: no torch here)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.nn.utils.rnn import (
    PackedSequence,
    invert_permutation,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)
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


# -- packing -------------------------------------------------------------------------------------------
# name: (padded input shape, lengths, batch_first, enforce_sorted). The input is arange(numel) and
# the loss sum(data * (arange % 7 - 3)) + sum(padded * (arange % 5 - 2)), padded with -1 to one step
# past the longest length, so every expected number is an integer.
PACK_CASES = {
    "time_major_sorted": ((4, 3, 2), [4, 2, 2], False, True),
    "batch_first_unsorted": ((4, 4, 1), [2, 4, 1, 3], True, False),
    "time_major_unsorted_ties_no_trailing": ((3, 4), [2, 3, 2, 1], False, False),
    "batch_first_sorted_2_trailing": ((2, 3, 2, 2), [3, 1], True, True),
    "time_major_shorter_than_padding": ((5, 2, 1), [3, 2], False, False),
}


def run_pack_case(case, device, lengths_as_tensor=False):
    shape, lengths, batch_first, enforce_sorted = PACK_CASES[case]
    x = tl.arange(float(np.prod(shape)), dtype=tl.float64, device=device).reshape(shape).requires_grad_()
    packed = pack_padded_sequence(x, tl.tensor(lengths, dtype=tl.int32) if lengths_as_tensor else lengths,
                                  batch_first, enforce_sorted)
    total = max(lengths) + 1
    padded, out_lengths = pad_packed_sequence(packed, batch_first, -1.0, total)
    wd = tl.arange(packed.data.numel(), device=device).reshape(packed.data.shape) % 7 - 3
    wp = tl.arange(padded.numel(), device=device).reshape(padded.shape) % 5 - 2
    ((packed.data * wd).sum() + (padded * wp).sum()).backward()
    return packed, padded, out_lengths, x.grad


@pytest.mark.parametrize("case", sorted(PACK_CASES))
def test_pack_and_pad_match_pytorch(device, case):
    packed, padded, lengths, grad = run_pack_case(case, device)
    expected = PACK_EXPECTED[case]
    assert isinstance(packed, PackedSequence) and packed._fields == ("data", "batch_sizes", "sorted_indices",
                                                                       "unsorted_indices")
    assert packed.data.device.type == device and packed.data.dtype is tl.float64
    assert packed.batch_sizes.device.type == "cpu" and packed.batch_sizes.dtype is tl.int64
    assert packed.batch_sizes.tolist() == expected["batch_sizes"]
    for name in ("sorted_indices", "unsorted_indices"):
        got = getattr(packed, name)
        if expected[name] is None:
            assert got is None
        else:
            assert got.device.type == device and got.dtype is tl.int64 and got.tolist() == expected[name]
    for name, value in (("data", packed.data), ("padded", padded), ("grad", grad)):
        assert tuple(value.shape) == expected[name][0], name
        np.testing.assert_array_equal(to_numpy(value.detach()).ravel(), expected[name][1], err_msg=name)
    assert lengths.device.type == "cpu" and lengths.dtype is tl.int64 and lengths.tolist() == expected["lengths"]


def test_pack_lengths_as_a_tensor_and_truncated_floats():
    packed, padded, lengths, grad = run_pack_case("batch_first_unsorted", "cpu", lengths_as_tensor=True)
    assert packed.batch_sizes.tolist() == PACK_EXPECTED["batch_first_unsorted"]["batch_sizes"]
    x = tl.arange(6.0).reshape(3, 2)
    for lengths in ([3, 1.5], tl.tensor([3.9, 1.2])):  # PyTorch's int64 conversion truncates
        assert pack_padded_sequence(x, lengths).batch_sizes.tolist() == [2, 1, 1]


@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_pad_round_trip(device, batch_first):
    rng = np.random.default_rng(3)
    lengths = [3, 5, 1, 5, 2]
    arr = rng.standard_normal((5, 6, 2) if batch_first else (6, 5, 2))
    x = tl.tensor(arr, device=device)
    for enforce_sorted, lens in ((False, lengths), (True, sorted(lengths, reverse=True))):
        padded, out_lengths = pad_packed_sequence(pack_padded_sequence(x, lens, batch_first, enforce_sorted),
                                                  batch_first, total_length=6)
        assert out_lengths.tolist() == lens
        mask = (np.arange(6)[None, :] < np.asarray(lens)[:, None]).astype(np.float64)  # (B, T)
        mask = mask[:, :, None] if batch_first else mask.T[:, :, None]
        np.testing.assert_array_equal(to_numpy(padded), arr * mask)


def test_pack_pad_gradcheck():
    x = tl.tensor(RNG.standard_normal((4, 4, 2)), requires_grad=True)  # (T, B) or (B, T): both 4
    for batch_first in (False, True):
        def f(t, b=batch_first):
            return pad_packed_sequence(pack_padded_sequence(t, [1, 3, 2, 3], b, False), b, 0.5)[0]
        assert tl.autograd.gradcheck(f, (x,))


def test_pack_sequence_and_unpack_sequence(device):
    seqs = [tl.tensor(RNG.standard_normal((n, 2)), device=device) for n in (2, 4, 1)]
    packed = pack_sequence(seqs, enforce_sorted=False)
    assert packed.batch_sizes.tolist() == [3, 2, 1, 1] and packed.sorted_indices.tolist() == [1, 0, 2]
    assert packed.unsorted_indices.tolist() == [1, 0, 2]
    np.testing.assert_array_equal(to_numpy(packed.data[:3]), np.stack([to_numpy(s[0]) for s in (seqs[1], seqs[0],
                                                                                              seqs[2])]))
    out = unpack_sequence(packed)
    assert len(out) == 3
    for got, seq in zip(out, seqs):
        assert got.device.type == device
        np.testing.assert_array_equal(to_numpy(got), to_numpy(seq))
    with pytest.raises(RuntimeError, match="must be sorted in decreasing order"):
        pack_sequence(seqs)
    assert pack_sequence([seqs[1], seqs[0]]).sorted_indices is None


def test_packed_sequence_constructor_and_conversions(device):
    data = tl.arange(6.0, device=device).reshape(3, 2)
    p = PackedSequence(data, tl.tensor([2, 1]), tl.tensor([1, 0], device=device))
    assert p.unsorted_indices.tolist() == [1, 0]  # the inverse of sorted_indices, by default
    assert p.is_cuda == (device == "cuda") and not p.is_pinned()
    legacy = PackedSequence((data, tl.tensor([3])))  # PyTorch's (data, batch_sizes) pair form
    assert legacy.batch_sizes.tolist() == [3] and legacy.sorted_indices is None and legacy.unsorted_indices is None
    d, b, s, u = p
    assert d is data and b is p.batch_sizes and s is p.sorted_indices and u is p.unsorted_indices
    assert repr(p).startswith("PackedSequence(data=tensor(")
    assert p.to(tl.float32) is p and p.to(device) is p and p.float() is p
    q = p.double()
    assert q.data.dtype is tl.float64 and q.sorted_indices.dtype is tl.int64 and q.batch_sizes is p.batch_sizes
    assert p.long().data.dtype is tl.int64 and p.half().data.dtype is tl.float16 and p.int().data.dtype is tl.int32
    assert p.short().data.dtype is tl.int16 and p.char().data.dtype is tl.int8 and p.byte().data.dtype is tl.uint8
    c = p.cpu()
    assert c.data.device.type == "cpu" and c.sorted_indices.device.type == "cpu"
    assert c.unsorted_indices.device.type == "cpu" and c.batch_sizes.device.type == "cpu"
    if tl.cuda.is_available():
        g = c.cuda()
        assert g.is_cuda and g.sorted_indices.is_cuda and g.unsorted_indices.is_cuda and not g.batch_sizes.is_cuda
        assert g.to("cuda", tl.float64).data.dtype is tl.float64


def test_invert_permutation(device):
    assert invert_permutation(None) is None
    got = invert_permutation(tl.tensor([2, 0, 3, 1], device=device))
    assert got.device.type == device and got.tolist() == [1, 3, 0, 2]


def z(*shape):
    return tl.zeros(*shape)


@pytest.mark.parametrize("call, error, message", [
    (lambda: pack_padded_sequence(z(3, 2), [1, 2]), RuntimeError,
     "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
     "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement if you do "
     "not need ONNX exportability. (lengths=[1, 2])"),
    (lambda: pack_padded_sequence(z(3, 3), [3, 0, 1]), RuntimeError,
     "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True"),
    (lambda: pack_padded_sequence(z(3, 2), [2, 0]), RuntimeError,
     "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0 "
     "(lengths=[2, 0])"),
    (lambda: pack_padded_sequence(z(3, 3), [3, -1, 0]), RuntimeError,  # (PyTorch checks the last one first)
     "Length of all samples has to be greater than 0"),
    (lambda: pack_padded_sequence(z(3, 2), [0, 2], enforce_sorted=False), RuntimeError,
     "Length of all samples has to be greater than 0"),
    (lambda: pack_padded_sequence(z(3, 3), [3, 2]), RuntimeError,
     "Expected `len(lengths)` to be equal to batch_size, but got 2 (batch_size=3)"),
    (lambda: pack_padded_sequence(z(2, 3, 1), [3, 2, 1], batch_first=True), RuntimeError,
     "Expected `len(lengths)` to be equal to batch_size, but got 3 (batch_size=2)"),
    (lambda: pack_padded_sequence(z(0, 2), [1, 1]), RuntimeError, "Cannot pack empty tensors."),
    (lambda: pack_padded_sequence(z(3, 2), tl.tensor([[3, 2]])), RuntimeError,
     "'lengths' argument should be a 1D CPU int64 tensor, but got 2D cpu Long tensor"),
    (lambda: pack_padded_sequence(z(3, 2), [4, 2]), RuntimeError,
     "pack_padded_sequence: lengths must be at most the padded length 3, got 4 (lengths=[4, 2])"),
    (lambda: pad_packed_sequence(pack_padded_sequence(z(3, 2), [3, 2]), total_length=2), ValueError,
     "Expected total_length to be at least the length of the longest sequence in input, but got total_length=2 and "
     "max sequence length being 3"),
    (lambda: pad_packed_sequence(z(3, 2)), TypeError,
     "pad_packed_sequence(): argument 'sequence' must be PackedSequence, not Tensor"),
])
def test_packing_errors_are_pytorchs(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


@pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")
@pytest.mark.parametrize("enforce_sorted", [True, False])
def test_pack_lengths_on_cuda_are_refused(enforce_sorted):
    x = tl.zeros(3, 2, device="cuda")
    with pytest.raises(RuntimeError, match=re.escape("'lengths' argument should be a 1D CPU int64 tensor, but got "
                                                     "1D cuda:0 Long tensor")):
        pack_padded_sequence(x, tl.tensor([3, 2], device="cuda"), enforce_sorted=enforce_sorted)
    with pytest.raises(ValueError, match=re.escape("batch_sizes should always be on CPU. Instances of PackedSequence "
                                                   "should never be created manually.")):
        PackedSequence(x, tl.tensor([2, 1], device="cuda"))



PACK_EXPECTED = {
    'batch_first_sorted_2_trailing': {
        'batch_sizes': [2, 1, 1], 'lengths': [3, 1],
        'sorted_indices': None,
        'unsorted_indices': None,
        'data': ((4, 2, 2), [0, 1, 2, 3, 12, 13, 14, 15, 4, 5, 6, 7, 8, 9, 10, 11]),
        'padded': ((2, 4, 2, 2), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, -1, -1, -1, -1, 12, 13, 14, 15, -1, -1, -1,
            -1, -1, -1, -1, -1, -1, -1, -1, -1]),
        'grad': ((2, 3, 2, 2), [-5, -3, -1, 1, 0, -3, -1, 1, 3, 5, -5, -3, 0, 2, 4, -1, 0, 0, 0, 0, 0, 0, 0, 0]),
    },
    'batch_first_unsorted': {
        'batch_sizes': [4, 3, 2, 1], 'lengths': [2, 4, 1, 3],
        'sorted_indices': [1, 3, 0, 2],
        'unsorted_indices': [2, 0, 3, 1],
        'data': ((10, 1), [4, 12, 0, 8, 5, 13, 1, 6, 14, 7]),
        'padded': ((4, 5, 1), [0, 1, -1, -1, -1, 4, 5, 6, 7, -1, 8, -1, -1, -1, -1, 12, 13, 14, -1, -1]),
        'grad': ((4, 4, 1), [-3, 2, 0, 0, -5, 0, -3, 0, -2, 0, 0, 0, -4, 1, -2, 0]),
    },
    'time_major_shorter_than_padding': {
        'batch_sizes': [2, 2, 1], 'lengths': [3, 2],
        'sorted_indices': [0, 1],
        'unsorted_indices': [0, 1],
        'data': ((5, 1), [0, 1, 2, 3, 4]),
        'padded': ((4, 2, 1), [0, 1, 2, 3, 4, -1, -1, -1]),
        'grad': ((5, 2, 1), [-5, -3, -1, 1, 3, 0, 0, 0, 0, 0]),
    },
    'time_major_sorted': {
        'batch_sizes': [3, 3, 1, 1], 'lengths': [4, 2, 2],
        'sorted_indices': None,
        'unsorted_indices': None,
        'data': ((8, 2), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 18, 19]),
        'padded': ((5, 3, 2), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -1, -1, -1, -1, 18, 19, -1, -1, -1, -1,
            -1, -1, -1, -1, -1, -1]),
        'grad': ((4, 3, 2), [-5, -3, -1, 1, 3, 0, 2, -3, -1, 1, -2, 0, 2, 4, 0, 0, 0, 0, -2, 0, 0, 0, 0, 0]),
    },
    'time_major_unsorted_ties_no_trailing': {
        'batch_sizes': [4, 3, 1], 'lengths': [2, 3, 2, 1],
        'sorted_indices': [1, 0, 2, 3],
        'unsorted_indices': [1, 0, 2, 3],
        'data': ((8,), [1, 0, 2, 3, 5, 4, 6, 9]),
        'padded': ((4, 4), [0, 1, 2, 3, 4, 5, 6, -1, -1, 9, -1, -1, -1, -1, -1, -1]),
        'grad': ((3, 4), [-4, -4, -1, 1, 4, -1, 2, 0, 0, -1, 0, 0]),
    },
}
