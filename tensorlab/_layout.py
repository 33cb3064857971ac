"""The memory layout (strides) of a new tensor made from others, by PyTorch's rules.

PyTorch keeps the layout of its inputs: ``x.t() + 1``, ``x.t().exp()`` and ``x.t().clone()`` are
transposed like ``x.t()``; a permuted or channels-last tensor stays so through elementwise ops.
Users see it in ``stride()``, ``is_contiguous()`` and in which ``view`` calls work, and on a GPU an
elementwise op whose operands share one permuted layout is a flat, coalesced pass over memory.

Two rules, both PyTorch's:

- :func:`elementwise_strides`: the output of an elementwise op (TensorIterator's
  ``compute_fast_setup_type``, ``reorder_dimensions`` and ``allocate_or_resize_outputs``). When
  every operand is a tensor of the output's shape and they are all contiguous, or all
  channels-last, or all dense with the same strides, the output takes that layout. Otherwise the
  output's dims are ordered as the operands order them: dims are sorted from the fastest-moving
  up, comparing the operands' strides in turn (the first operand that tells two dims apart
  decides; broadcast dims tell nothing), and the output is dense in that order.
- :func:`preserve_strides`: ``clone``, ``empty_like`` and the other ``*_like`` factories with the
  default ``memory_format=preserve_format``: a dense tensor's strides as they are, else dense
  strides in the tensor's own dim order (``infer_dense_strides``).

``None`` stands for contiguous strides throughout: the usual answer, cheap to check and to pass on.
"""

from __future__ import annotations

from tensorlab_kernels.runtime.array import contiguous_layout

from ._storage import contiguous_strides


def non_overlapping_and_dense(shape: tuple, strides: tuple) -> bool:
    """Whether the elements fill a block of memory without gaps or repeats in some dim order
    (PyTorch's ``is_non_overlapping_and_dense``; an empty tensor is, whatever its strides)."""
    if 0 in shape:
        return True
    if len(shape) == 1:
        return shape[0] < 2 or strides[0] == 1
    # dims by stride, fastest first; dims of size 0 or 1 take no memory and go last
    order = sorted(range(len(shape)), key=lambda d: (shape[d] < 2, strides[d] if shape[d] >= 2 else 0))
    expected = 1
    for d in order:
        if shape[d] < 2:
            return True
        if strides[d] != expected:
            return False
        expected *= shape[d]
    return True


def _channels_last_order(ndim: int) -> tuple:
    """The dims of a channels-last layout from the fastest: C, the spatial dims from the last, N."""
    return (1, *range(ndim - 1, 1, -1), 0)


def channels_last_strides(shape: tuple) -> tuple:
    """The strides of a 4-d (N, C, H, W) or 5-d (N, C, D, H, W) shape laid out channels-last
    (channels_last, channels_last_3d). No size counts as 1 here: PyTorch's zero strides after an
    empty dim."""
    out = [0] * len(shape)
    step = 1
    for d in _channels_last_order(len(shape)):
        out[d] = step
        step *= shape[d]
    return tuple(out)


def _is_channels_last(shape: tuple, strides: tuple, ndim: int = 4) -> bool:
    """PyTorch's channels-last contiguity of a 4-d tensor (``ndim`` 5: channels_last_3d): dense
    in ``_channels_last_order``; size-1 dims may have any stride. Empty tensors get no shortcut:
    PyTorch checks their strides as any other's (an empty NCHW-contiguous tensor is not channels-last,
    and contiguous(memory_format=channels_last) restrides it)."""
    if len(shape) != ndim:
        return False
    expected = 1
    for d in _channels_last_order(ndim):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True


def elementwise_strides(shape: tuple, operands) -> tuple | None:
    """The strides of the output of an elementwise op over ``shape`` (the broadcast shape) whose
    operands are ``operands`` in the op's order (Tensors; anything else is a number, which counts
    as a 0-d operand, None no operand); None for contiguous. See the module docstring."""
    operands = [x for x in operands if x is not None]
    tensors = [t for t in operands if hasattr(t, "_stride")]
    if not tensors or not shape:
        return None
    if len(tensors) == len(operands) and all(t._shape == shape for t in tensors):
        # PyTorch's fast set-up: every operand has the output's shape
        if all(contiguous_layout(shape, t._stride) for t in tensors):
            return None
        if all(_is_channels_last(shape, t._stride) for t in tensors):
            return channels_last_strides(shape)
        first = tensors[0]._stride
        if all(t._stride == first for t in tensors) and non_overlapping_and_dense(shape, first):
            return first
    return _ordered_dense_strides(shape, [_broadcast_strides(t, shape) for t in tensors])


def _broadcast_strides(t, shape: tuple) -> tuple:
    """``t``'s strides read over ``shape``: 0 on the dims it is broadcast along (TensorIterator's
    ``compute_strides``)."""
    lead = len(shape) - len(t._shape)
    return (0,) * lead + tuple(0 if size == 1 and shape[lead + i] != 1 else st
                               for i, (size, st) in enumerate(zip(t._shape, t._stride)))


def _ordered_dense_strides(shape: tuple, strides: list) -> tuple | None:
    """Dense strides for ``shape`` in the dim order the operands' ``strides`` give
    (``reorder_dimensions``, then ``compatible_stride``: a dim of size 0 zeroes the strides of the
    dims above it, as in PyTorch); None when that order is the row-major one."""
    perm = _dim_order(shape, strides)
    if perm == list(range(len(shape) - 1, -1, -1)):
        return None
    out = [0] * len(shape)
    step = 1
    for d in perm:
        out[d] = step
        step *= shape[d]
    return tuple(out)


def _dim_order(shape: tuple, strides: list) -> list:
    """The dims from the fastest-moving up, as the operands' ``strides`` (after broadcasting) order
    them: row-major order reversed, then PyTorch's insertion sort, which compares two dims by the
    first operand whose strides tell them apart (a broadcast, stride-0 dim tells nothing; equal
    strides put the smaller dim first) and leaves dims no operand tells apart in place."""

    def should_swap(d0: int, d1: int) -> int:  # 1: d0 moves slower than d1, -1: faster, 0: untold
        for st in strides:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(range(len(shape) - 1, -1, -1))
    for i in range(1, len(shape)):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def preserve_strides(t) -> tuple | None:
    """The strides of a new tensor laid out as ``t`` (``memory_format=preserve_format``: clone,
    ``empty_like``): ``t``'s own when dense, else dense in ``t``'s dim order
    (``infer_dense_strides``: the dim order of one operand, sizes 0 and 1 counting as 1); None for
    contiguous."""
    shape, strides = t._shape, t._stride
    if strides == contiguous_strides(shape):
        return None
    if non_overlapping_and_dense(shape, strides):  # (a contiguous tensor's odd size-1 strides too)
        return strides
    out = [0] * len(shape)
    step = 1
    for d in _dim_order(shape, [strides]):
        out[d] = step
        step *= max(shape[d], 1)
    out = tuple(out)
    return None if out == contiguous_strides(shape) else out


# ----------------------------------------------------------------------------------------------
# memory formats: PyTorch's ``torch.memory_format`` values
# ----------------------------------------------------------------------------------------------


class _NamedConstant:
    """A module-level constant of tensorlab's that prints and pickles as its name."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"tensorlab.{self.name}"

    def __reduce__(self):  # pickled as the module-level value it is
        return self.name


class memory_format(_NamedConstant):  # noqa: N801 (PyTorch's name)
    """A layout to ask of a new tensor: ``tensorlab.contiguous_format``, ``preserve_format`` (the
    input's), ``channels_last`` (4-d, C fastest) or ``channels_last_3d`` (5-d)."""

    __slots__ = ()


class layout(_NamedConstant):  # noqa: N801 (PyTorch's name)
    """How a tensor's elements are stored: tensorlab has ``tensorlab.strided`` (dense) only."""

    __slots__ = ()


strided = layout("strided")
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def format_strides(op: str, shape: tuple, fmt, like=None) -> tuple | None:
    """The strides ``fmt`` asks for a new tensor of ``shape`` (None: contiguous); ``like``: the
    tensor ``preserve_format`` follows (None: contiguous, as for ``empty``)."""
    if fmt is None or fmt is preserve_format:
        return None if like is None else preserve_strides(like)
    if fmt is contiguous_format:
        return None
    if fmt is channels_last:
        if len(shape) != 4:
            raise RuntimeError(f"{op}: required rank 4 tensor to use channels_last format, got shape {list(shape)}")
        return channels_last_strides(shape)
    if fmt is channels_last_3d:
        if len(shape) != 5:
            raise RuntimeError(f"{op}: required rank 5 tensor to use channels_last_3d format, got shape {list(shape)}")
        return channels_last_strides(shape)
    raise TypeError(f"{op}(): argument 'memory_format' must be tensorlab.memory_format, not {type(fmt).__name__}")


def is_in_format(shape: tuple, strides: tuple, fmt) -> bool:
    """``Tensor.is_contiguous(memory_format=fmt)``."""
    if fmt is contiguous_format:
        return contiguous_layout(shape, strides)
    if fmt is channels_last:
        return _is_channels_last(shape, strides)
    if fmt is channels_last_3d:
        return _is_channels_last(shape, strides, 5)
    if fmt is preserve_format:  # (PyTorch answers as for contiguous_format)
        return contiguous_layout(shape, strides)
    raise TypeError(f"is_contiguous(): argument 'memory_format' must be tensorlab.memory_format, "
                    f"not {type(fmt).__name__}")


def suggest_memory_format(shape: tuple, strides: tuple) -> memory_format:
    """The format a tensor's strides look like (PyTorch's ``suggest_memory_format``):
    channels_last (3d) when a 4-d (5-d) tensor's strides order its dims as that format does
    (``is_channels_last_strides_2d``: a heuristic that also names sliced tensors), else
    contiguous_format. ``Tensor.to`` keeps a tensor that already looks like the asked format."""
    if len(shape) not in (4, 5) or strides[1] == 0:
        return contiguous_format
    low = 0
    for d in _channels_last_order(len(shape)):
        if shape[d] == 0 or strides[d] < low:
            return contiguous_format
        if d == 0 and low == strides[1]:  # N111-like: ambiguous, PyTorch falls back to contiguous
            return contiguous_format
        low = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return channels_last if len(shape) == 4 else channels_last_3d
