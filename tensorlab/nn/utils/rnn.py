"""Variable-length sequences (``torch.nn.utils.rnn``): ``pad_sequence``/``unpad_sequence`` and the
packing API, ``PackedSequence``, ``pack_padded_sequence``/``pad_packed_sequence``,
``pack_sequence``/``unpack_sequence`` and ``invert_permutation``.

``pad_sequence`` is PyTorch's algorithm: a ``full`` output of the padding value, in the first
sequence's dtype and on its device, and one ``copy_`` of each sequence into its slot. ``copy_``
casts and broadcasts as PyTorch's does and records the slices for autograd, so the padded batch
is differentiable with respect to every sequence.

Packing keeps PyTorch's layout: ``data`` holds the valid steps time-major (all the sequences' step 0,
then step 1 of those still running, ...) with the batch sorted by decreasing length, and
``batch_sizes[t]`` (an int64 cpu tensor) says how many sequences reach step ``t``. The layout is
computed on the host from the lengths (cpu data by PyTorch's definition); the data themselves only
go through ``index_select``/``reshape``/``cat``/``transpose``, registered ops, so packing and
unpacking run on the input's device and are differentiable (the gradient of a padded position
that packing drops is zero, as PyTorch's).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import NamedTuple

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


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


# ----------------------------------------------------------------------------------------------
# packing
# ----------------------------------------------------------------------------------------------
def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of ``0 .. n - 1`` (``out[permutation[i]] = i``), on its device;
    None stays None."""
    if permutation is None:
        return None
    from ..._factories import arange, empty_like

    return empty_like(permutation).scatter_(0, permutation, arange(permutation.numel(), device=permutation.device))


class _PackedSequenceFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedSequenceFields):
    """A batch of variable-length sequences, packed (PyTorch's ``nn.utils.rnn.PackedSequence``): a
    named tuple ``(data, batch_sizes, sorted_indices, unsorted_indices)``.

    ``data`` (sum of lengths, *) holds the valid steps time-major, the batch sorted by decreasing
    length; ``batch_sizes[t]`` (int64, cpu) is how many sequences reach step ``t``;
    ``sorted_indices[i]`` is the original index of the ``i``-th sorted sequence and
    ``unsorted_indices`` its inverse (both None when the batch came sorted). Build one with
    :func:`pack_padded_sequence` or :func:`pack_sequence`. ``PackedSequence((data, batch_sizes))``,
    a pair as the first argument, is PyTorch's legacy form; ``unsorted_indices`` defaults to the
    inverse of ``sorted_indices``.
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not isinstance(data, (list, tuple)) or len(data) != 2:
                raise TypeError(f"PackedSequence(): without batch_sizes, data must be the pair (data, batch_sizes), "
                                f"got {type(data).__name__}")
            data, batch_sizes = data
        elif batch_sizes.device.type != "cpu":
            # (the per-step loop reads batch_sizes on the host at every step)
            raise ValueError(
                "batch_sizes should always be on CPU. Instances of PackedSequence should never be created manually. "
                "They should be instantiated by functions like pack_sequence and pack_padded_sequences in "
                "nn.utils.rnn. https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def _with(self, convert) -> PackedSequence:
        """The same sequence with ``convert`` applied to ``data`` and to the index tensors."""
        return type(self)(convert(self.data), self.batch_sizes, _bind(self.sorted_indices, convert),
                          _bind(self.unsorted_indices, convert))

    def pin_memory(self) -> PackedSequence:
        return self._with(lambda t: t.pin_memory())

    def to(self, *args, **kwargs) -> PackedSequence:
        """``data.to(*args, **kwargs)``; the indices follow ``data`` to its device but keep their dtype
        (int64). ``self`` when nothing changes; ``batch_sizes`` always stays on the cpu."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        # only the device (and copy/non_blocking) applies to the indices: a dtype would break them
        kwargs = {k: v for k, v in kwargs.items() if k not in ("device", "dtype")}
        sorted_indices = _bind(self.sorted_indices, lambda t: t.to(data.device, **kwargs))
        unsorted_indices = _bind(self.unsorted_indices, lambda t: t.to(data.device, **kwargs))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs) -> PackedSequence:
        from ..._factories import tensor

        # a device in args/kwargs is honoured; otherwise the default cuda device
        probe = tensor([], dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        return self.to(*args, **kwargs) if probe.is_cuda else self.to(*args, device="cuda", **kwargs)

    def cpu(self, *args, **kwargs) -> PackedSequence:
        from ..._factories import tensor

        probe = tensor([], dtype=self.data.dtype, device=self.data.device).to(*args, **kwargs)
        return self.to(*args, **kwargs) if probe.device.type == "cpu" else self.to(*args, device="cpu", **kwargs)

    def double(self) -> PackedSequence:
        return self.to(dtype=D.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=D.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=D.float16)

    def long(self) -> PackedSequence:
        return self.to(dtype=D.int64)

    def int(self) -> PackedSequence:
        return self.to(dtype=D.int32)

    def short(self) -> PackedSequence:
        return self.to(dtype=D.int16)

    def char(self) -> PackedSequence:
        return self.to(dtype=D.int8)

    def byte(self) -> PackedSequence:
        return self.to(dtype=D.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def _bind(optional, fn):
    return None if optional is None else fn(optional)


def _lengths_list(op: str, lengths) -> list[int]:
    """``lengths`` as Python ints: a sequence of numbers or a 1-D cpu tensor, truncated to int64 as
    PyTorch's ``as_tensor(lengths, dtype=int64)`` / ``lengths.to(int64)``."""
    if isinstance(lengths, Tensor):
        if lengths.device.type != "cpu" or lengths.dim() != 1:
            raise RuntimeError(f"{op}: 'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lengths.dim()}D {lengths.device} Long tensor")
        return [int(v) for v in lengths.numpy().astype(np.int64)]
    values = np.asarray([v.item() if isinstance(v, Tensor) else v for v in lengths])
    if values.ndim != 1:
        raise RuntimeError(f"{op}: 'lengths' argument should be a 1D CPU int64 tensor, but got {values.ndim}D cpu "
                           f"Long tensor")
    return [int(v) for v in values.astype(np.int64)]


def _batch_sizes_of(lengths: list[int]) -> list[int]:
    """Sorted decreasing lengths -> how many sequences reach each step."""
    return [sum(1 for n in lengths if n > t) for t in range(lengths[0])]


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences of
    ``lengths`` (a list or a 1-D cpu tensor, B entries, each in 1..T). With ``enforce_sorted`` the
    lengths must be decreasing; otherwise the batch is sorted here (stably) and ``sorted_indices``
    records the order. Differentiable w.r.t. ``input`` (zero gradient on the padding)."""
    from ..._factories import tensor

    if not isinstance(input, Tensor):
        raise TypeError(f"pack_padded_sequence(): argument 'input' must be Tensor, not {type(input).__name__}")
    op = "pack_padded_sequence"
    lengths = _lengths_list(op, lengths)
    if input.dim() < 2:
        raise RuntimeError(f"{op}: expected input with at least 2 dims (time and batch), got shape "
                           f"{list(input.shape)}")
    if input.numel() == 0:
        raise RuntimeError(f"{op}: Cannot pack empty tensors. (input shape {list(input.shape)})")
    t_max, batch = (input.size(1), input.size(0)) if batch_first else (input.size(0), input.size(1))
    if len(lengths) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={batch})")
    if enforce_sorted:
        order = list(range(batch))
    else:
        # stable, so equal lengths keep their order (PyTorch leaves the order of ties unspecified)
        order = [int(i) for i in np.argsort(-np.asarray(lengths, dtype=np.int64), kind="stable")]
    sorted_lengths = [lengths[i] for i in order]
    # (PyTorch's order of checks: the last length, then the order)
    if sorted_lengths[-1] <= 0:
        raise RuntimeError(f"Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           f"is <= 0 (lengths={lengths})")
    if any(sorted_lengths[i + 1] > sorted_lengths[i] for i in range(batch - 1)):
        raise RuntimeError(
            "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
            "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
            f"if you do not need ONNX exportability. (lengths={lengths})")
    if sorted_lengths[0] > t_max:
        # (PyTorch reads past the padded steps here; refused rather than packing a short data)
        raise RuntimeError(f"{op}: lengths must be at most the padded length {t_max}, got {sorted_lengths[0]} "
                           f"(lengths={lengths})")

    # the row of the flattened input that holds step t of the i-th sorted sequence
    batch_sizes = _batch_sizes_of(sorted_lengths)
    rows = [(order[i] * t_max + t) if batch_first else (t * batch + order[i])
            for t, n in enumerate(batch_sizes) for i in range(n)]
    flat = input.reshape(-1, *input.shape[2:])
    data = flat.index_select(0, tensor(rows, dtype=D.int64, device=input.device))
    sorted_indices = None if enforce_sorted else tensor(order, dtype=D.int64, device=input.device)
    return PackedSequence(data, tensor(batch_sizes, dtype=D.int64), sorted_indices, None)


def _check_packed(op: str, sequence) -> list[int]:
    if not isinstance(sequence, PackedSequence):
        raise TypeError(f"{op}(): argument 'sequence' must be PackedSequence, not {type(sequence).__name__}")
    batch_sizes = [int(v) for v in sequence.batch_sizes.tolist()]
    if sum(batch_sizes) != sequence.data.size(0):
        raise RuntimeError(f"{op}: data has {sequence.data.size(0)} rows but batch_sizes {batch_sizes} sum to "
                           f"{sum(batch_sizes)}")
    return batch_sizes


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The inverse of :func:`pack_padded_sequence`: ``(padded, lengths)``, ``padded`` (T, B, *) (``(B, T,
    *)`` with ``batch_first``) in the original batch order, ``T = total_length`` or the longest length,
    ``padding_value`` elsewhere; ``lengths`` an int64 cpu tensor. Differentiable w.r.t. ``data``."""
    from ..._factories import full, tensor
    from ...ops.shape_ops import cat

    op = "pad_packed_sequence"
    batch_sizes = _check_packed(op, sequence)
    max_seq_length = len(batch_sizes)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    data = sequence.data
    batch = batch_sizes[0]
    # every padded position reads one row of [data; padding row]: its own step, or the padding
    source = cat([data, full((1, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device)])
    rows = np.full((max_seq_length, batch), data.size(0), dtype=np.int64)
    offset = 0
    for t, n in enumerate(batch_sizes):
        rows[t, :n] = np.arange(offset, offset + n)
        offset += n
    padded = source.index_select(0, tensor(rows.reshape(-1), device=data.device))
    padded = padded.reshape(max_seq_length, batch, *data.shape[1:])
    lengths = [sum(1 for n in batch_sizes if n > b) for b in range(batch)]
    if sequence.unsorted_indices is not None:
        # back to the caller's batch order
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = [lengths[i] for i in sequence.unsorted_indices.tolist()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, tensor(lengths, dtype=D.int64)


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)`` (decreasing ``L_i`` unless ``enforce_sorted`` is False):
    ``pack_padded_sequence(pad_sequence(sequences), lengths)``."""
    lengths = [seq.size(0) for seq in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The inverse of :func:`pack_sequence`: the list of sequences, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
