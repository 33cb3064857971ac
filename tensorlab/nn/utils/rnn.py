"""Variable-length sequences: ``pad_sequence`` and ``unpad_sequence`` (``torch.nn.utils.rnn``).

``pad_sequence`` is PyTorch's algorithm: a ``full`` output of the padding value, in the first
sequence's dtype and on its device, and one ``copy_`` of each sequence into its slot. ``copy_``
casts and broadcasts as PyTorch's does and records the slices for autograd, so the padded batch
is differentiable with respect to every sequence. ``PackedSequence`` and the packing functions
need the recurrent layers and are not here.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable

import numpy as np

from ..._tensor import Tensor

__all__ = ["pad_sequence", "unpad_sequence"]


def _padding_value(value) -> float:
    """PyTorch's ``float`` argument (a double in its kernel: 2**53 + 1 pads an int64 tensor with
    2**53): Python/numpy reals, bool included, and 0-d real tensors."""
    if isinstance(value, Tensor) and value.ndim == 0 and not value.dtype.is_complex:
        return float(value.item())
    if isinstance(value, (numbers.Real, np.bool_)):
        return float(value)
    raise TypeError(f"pad_sequence(): argument 'padding_value' (position 3) must be float, not "
                    f"{type(value).__name__}")


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack sequences of shapes ``(L_i, *)`` into ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``),
    ``T = max L_i``, filling the rest with ``padding_value`` after (``padding_side='right'``) or before
    (``'left'``) each sequence. The trailing dims, dtype and device are the first sequence's; the
    others are cast (and broadcast, as ``copy_`` does) into their slots."""
    from ..._factories import full

    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = tuple(sequences)  # (a Tensor iterates over its first dim, as PyTorch's tuple() of it)
    if not isinstance(batch_first, (bool, np.bool_)):
        raise TypeError(f"pad_sequence(): argument 'batch_first' (position 2) must be bool, not "
                        f"{type(batch_first).__name__}")
    padding_value = _padding_value(padding_value)
    if not isinstance(padding_side, str):
        raise TypeError(f"pad_sequence(): argument 'padding_side' (position 4) must be str, not "
                        f"{type(padding_side).__name__}")
    for i, seq in enumerate(sequences):
        if not isinstance(seq, Tensor):
            raise TypeError(f"pad_sequence(): expected Tensor as element {i} in argument 0, but got "
                            f"{type(seq).__name__}")
    if not sequences:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"pad_sequence: Expected padding_side to be one of left or right, but got {padding_side}.")
    for i, seq in enumerate(sequences):
        if seq.ndim == 0:
            # (the first sequence's trailing dims are its sizes after dim 0; every length is a size(0))
            raise (RuntimeError if i == 0 else IndexError)(
                f"pad_sequence: sequence {i} is 0-d; each sequence needs a length dim (dim 0)")

    first = sequences[0]
    trailing = tuple(first.shape[1:])
    max_len = max(seq.shape[0] for seq in sequences)
    n = len(sequences)
    out_shape = (n, max_len, *trailing) if batch_first else (max_len, n, *trailing)
    out = full(out_shape, padding_value, dtype=first.dtype, device=first.device)
    for i, seq in enumerate(sequences):
        length = seq.shape[0]
        start = max_len - length if padding_side == "left" else 0
        slot = out.select(0, i).narrow(0, start, length) if batch_first else out.narrow(0, start, length).select(1, i)
        try:
            slot.copy_(seq)
        except RuntimeError as e:
            raise RuntimeError(f"pad_sequence: sequence {i} of shape {list(seq.shape)} does not fit its slot of "
                               f"shape {list(slot.shape)} (the sequences share the trailing dims "
                               f"{list(trailing)} of sequence 0): {e}") from None
    return out


def _kept(length, max_length: int) -> int:
    """How many of ``0 .. max_length - 1`` are ``< length`` (PyTorch's mask ``arange < length``)."""
    v = length.item() if isinstance(length, Tensor) else length
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        v = float(v)
    if isinstance(v, numbers.Integral):
        return min(max(int(v), 0), max_length)
    v = float(v)
    if math.isnan(v) or v <= 0:
        return 0
    return max_length if v >= max_length else min(math.ceil(v), max_length)


def unpad_sequence(padded_sequences: Tensor, lengths, batch_first: bool = False) -> list:
    """The inverse of :func:`pad_sequence` with right padding: ``[seq_b[:lengths[b]] for each b]``, each a
    copy (PyTorch's boolean-mask indexing copies too). ``lengths``: a tensor or a sequence of numbers.

    Unlike PyTorch's, this leaves ``padded_sequences`` as it was: PyTorch transposes the caller's
    tensor in place (``transpose_(0, 1)``) when ``batch_first`` is False."""
    if not isinstance(padded_sequences, Tensor):
        raise TypeError(f"unpad_sequence(): argument 'padded_sequences' must be Tensor, not "
                        f"{type(padded_sequences).__name__}")
    if padded_sequences.ndim < 2:
        raise IndexError(f"unpad_sequence: expected padded sequences with at least 2 dims (time and batch), got "
                         f"shape {list(padded_sequences.shape)}")
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    if len(lengths) != x.shape[0]:
        raise ValueError(f"unpad_sequence: got {x.shape[0]} padded sequences but {len(lengths)} lengths "
                         f"(zip() arguments must have equal lengths)")
    max_length = x.shape[1]
    return [seq.narrow(0, 0, _kept(length, max_length)).clone() for seq, length in zip(x, lengths, strict=True)]
