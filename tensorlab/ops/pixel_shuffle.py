"""Channel rearrangements of image tensors: ``pixel_shuffle``, ``pixel_unshuffle`` and
``channel_shuffle`` (the sub-pixel upsampling of ESPCN and ShuffleNet's group mixing).

Each is a view that splits the channel (and spatial) dims, a permutation, and one contiguous copy
(the copy kernel reads the permuted view through its strides), so gradients flow back through the
registered view and copy ops. As in PyTorch, the result is always a new contiguous tensor, even
for a factor of 1.
"""

from __future__ import annotations

import operator

from .._layout import contiguous_format
from .._tensor import Tensor, need_tensor

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]


def _factor(op: str, name: str, value) -> int:
    try:
        value = operator.index(value)
    except TypeError:
        raise TypeError(f"{op}(): argument '{name}' (position 2) must be int, not {type(value).__name__}") from None
    if value <= 0:
        raise RuntimeError(f"{op} expects a positive {name}, but got {value}")
    return value


def _check_dims(op: str, input: Tensor) -> None:
    if input.ndim < 3:
        raise RuntimeError(f"{op} expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")


def _rearranged(view: Tensor, order: tuple[int, ...], shape: tuple[int, ...]) -> Tensor:
    """``view`` permuted by ``order`` into new contiguous memory, seen as ``shape``."""
    return view.permute(order).clone(memory_format=contiguous_format).view(shape)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """(*, C·r², H, W) -> (*, C, H·r, W·r): each group of r² channels becomes an r×r block of pixels."""
    need_tensor("pixel_shuffle", input)
    _check_dims("pixel_shuffle", input)
    r = _factor("pixel_shuffle", "upscale_factor", upscale_factor)
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={c} is not divisible by {r * r}")
    n = len(batch)
    split = input.view(*batch, c // (r * r), r, r, h, w)
    order = (*range(n), n, n + 3, n + 1, n + 4, n + 2)  # (*, C, H, r, W, r)
    return _rearranged(split, order, (*batch, c // (r * r), h * r, w * r))


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H·r, W·r) -> (*, C·r², H, W): the inverse of :func:`pixel_shuffle`."""
    need_tensor("pixel_unshuffle", input)
    _check_dims("pixel_unshuffle", input)
    r = _factor("pixel_unshuffle", "downscale_factor", downscale_factor)
    *batch, c, h, w = input.shape
    for name, size, dim in (("height", h, -2), ("width", w, -1)):
        if size % r:
            raise RuntimeError(f"pixel_unshuffle expects {name} to be divisible by downscale_factor, but "
                               f"input.size({dim})={size} is not divisible by {r}")
    n = len(batch)
    split = input.view(*batch, c, h // r, r, w // r, r)
    order = (*range(n), n, n + 2, n + 4, n + 1, n + 3)  # (*, C, r, r, H, W)
    return _rearranged(split, order, (*batch, c * r * r, h // r, w // r))


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """(N, C, *) -> (N, C, *) with the channels of ``groups`` groups interleaved: channel
    ``g·(C/groups) + k`` moves to ``k·groups + g``."""
    need_tensor("channel_shuffle", input)
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with sizes {list(input.shape)}")
    groups = operator.index(groups)
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    n, c, *spatial = input.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    split = input.view(n, groups, c // groups, *spatial)
    return _rearranged(split, (0, 2, 1, *range(3, split.ndim)), tuple(input.shape))


native_channel_shuffle = channel_shuffle
