"""Adaptive 1-d pooling: ``adaptive_avg_pool1d`` and ``adaptive_max_pool1d`` over the last dimension of
a (C, L) or (N, C, L) input (the global pooling of point-cloud and sequence models, e.g. DGCNN's
``adaptive_max_pool1d(x, 1)``).

Written with tensorlab ops, so they run on every device and autograd differentiates them. Output
bin i covers [floor(i·L/O), ceil((i+1)·L/O)) as in PyTorch, so neighbouring bins overlap when O does
not divide L; the max takes the first maximum of a bin, but the last NaN of a bin holding NaNs (PyTorch's
kernel replaces its running max at every NaN), for the index and the gradient alike.
"""

from __future__ import annotations

import operator

from ... import _dtype as D
from ..._factories import arange
from ..._tensor import Tensor, need_tensor
from ...ops.elementwise_binary import where
from ...ops.shape_ops import stack

__all__ = ["adaptive_avg_pool1d", "adaptive_max_pool1d"]


def _bins(op: str, input: Tensor, output_size) -> list[tuple[int, int]]:
    """Check the arguments (before any work) and return the [start, end) of every output bin."""
    need_tensor(op, input)
    size = output_size
    if isinstance(size, (tuple, list)):
        if len(size) != 1:
            raise RuntimeError(f"{op}() argument 'output_size' should contain one int (got {len(size)})")
        size = size[0]
    given = size
    try:  # numpy integers and integer tensors count as ints, as PyTorch's argument parser takes them
        size = None if isinstance(size, bool) else operator.index(size)
    except TypeError:
        size = None
    if size is None:
        raise TypeError(f"{op}(): argument 'output_size' (position 2) must be tuple of ints, "
                        f"not {type(given).__name__}")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for "
                           f"argument #1 'self' (while checking arguments for {op})")
    if size < 0:
        raise RuntimeError(f"{op}(): elements of output_size must be greater than or equal to 0 but received {size}")
    # PyTorch refuses an empty L (both) and, for a batch, an empty C (the max only); an empty batch is fine.
    # Except the average into one bin: PyTorch takes it as a mean over L, whose empty L is NaN (no error)
    if op == "adaptive_max_pool1d" and input.dim() == 3:
        checked = (1, 2)
    else:
        checked = () if op == "adaptive_avg_pool1d" and size == 1 else (input.dim() - 1,)
    for d in checked:
        if input.shape[d] == 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch dimensions, but input "
                               f"has sizes {list(input.shape)} with dimension {d} being empty")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{op}" not implemented for \'{D.torch_name(input.dtype)}\'')
    length = input.shape[-1]
    return [((i * length) // size, -(-((i + 1) * length) // size)) for i in range(size)]


def _windows(input: Tensor, bins: list[tuple[int, int]]) -> Tensor | None:
    """When O divides L the bins tile the input: one (..., O, L/O) view, reduced in a single op."""
    length, size = input.shape[-1], len(bins)
    if size == 0 or length % size:
        return None
    return input.reshape(*input.shape[:-1], size, length // size)


def _window_max(window: Tensor) -> tuple[Tensor, Tensor]:
    """Max over the last dim of ``window`` and where it is, as PyTorch's kernel picks it: the first
    maximum, or the last NaN. The value is gathered at that index, so the gradient goes there too."""
    _, index = window.max(-1)
    nan = window.isnan()
    positions = arange(window.shape[-1], device=window.device)
    last_nan = (nan.to(D.int64) * positions).amax(-1)
    index = where(nan.any(-1), last_nan, index)
    return window.gather(-1, index.unsqueeze(-1)).squeeze(-1), index


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    bins = _bins("adaptive_avg_pool1d", input, output_size)
    if not bins:
        return input.new_empty((*input.shape[:-1], 0))
    tiled = _windows(input, bins)
    if tiled is not None:
        return tiled.mean(-1)
    return stack([input[..., s:e].mean(-1) for s, e in bins], -1)


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    bins = _bins("adaptive_max_pool1d", input, output_size)
    if not bins:
        values = input.new_empty((*input.shape[:-1], 0))
        indices = input.new_empty((*input.shape[:-1], 0), dtype=D.int64)
    elif (tiled := _windows(input, bins)) is not None:
        values, at = _window_max(tiled)
        step = input.shape[-1] // len(bins)
        # the window's argmax plus the window's start, as positions along L
        indices = at + arange(0, len(bins) * step, step, device=input.device)
    else:
        parts = [_window_max(input[..., s:e]) for s, e in bins]
        values = stack([v for v, _ in parts], -1)
        indices = stack([i + s for (_, i), (s, _) in zip(parts, bins)], -1)
    return (values, indices) if return_indices else values
