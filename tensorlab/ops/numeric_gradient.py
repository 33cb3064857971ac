"""``gradient``: the derivative of sampled values by finite differences, as ``numpy.gradient``
and PyTorch's ``torch.gradient``.

Interior points use central differences (second-order accurate, also for uneven coordinates);
the two edges use one-sided differences of first or second order (``edge_order``). Everything is
slices and elementwise ops, so it runs on both devices and is differentiable. The formulas and the
order of their operations are PyTorch's (``ReduceOps.cpp``), so results agree to rounding.
"""

from __future__ import annotations

import numbers

from .. import _dtype as D
from .._tensor import Tensor, need_tensor
from . import shape_ops as S

__all__ = ["gradient"]


def _along(t: Tensor, dim: int, start=None, stop=None) -> Tensor:
    return t[(slice(None),) * dim + (slice(start, stop),)]


def _dim_list(dim) -> list | None:
    if dim is None:
        return None
    dims = [dim] if isinstance(dim, int) else list(dim)
    for d in dims:
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(f"gradient(): argument 'dim' must be int or tuple of ints, not {type(d).__name__}")
    return dims


def _uniform(input: Tensor, d: int, h, edge_order: int) -> Tensor:
    """Samples ``h`` apart along ``d``."""
    center = (_along(input, d, 2) - _along(input, d, 0, -2)) / h
    if edge_order == 1:
        first = (_along(input, d, 1, 2) - _along(input, d, 0, 1)) / h
        last = (_along(input, d, -1) - _along(input, d, -2, -1)) / h
    else:
        first = (_along(input, d, 0, 1) * -1.5 + _along(input, d, 1, 2) * 2 - _along(input, d, 2, 3) * 0.5) / h
        last = (_along(input, d, -3, -2) * 0.5 + _along(input, d, -2, -1) * -2 + _along(input, d, -1) * 1.5) / h
    return S.cat([first, center / 2, last], d)


def _at_coordinates(input: Tensor, d: int, x: Tensor, edge_order: int) -> Tensor:
    """Samples at the 1-d coordinates ``x`` along ``d`` (spacings ``dx``, uneven allowed)."""
    shape = [1] * input.ndim
    shape[d] = -1
    dx = x.diff(1, 0)
    dx1, dx2 = dx[:-1], dx[1:]
    a = (-dx2 / (dx1 * (dx1 + dx2))).reshape(shape)
    b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
    c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
    center = a * _along(input, d, 0, -2) + b * _along(input, d, 1, -1) + c * _along(input, d, 2)
    if edge_order == 1:
        first = (_along(input, d, 1, 2) - _along(input, d, 0, 1)) / dx[0]
        last = (_along(input, d, -1) - _along(input, d, -2, -1)) / dx[-1]
    else:
        a = -(2.0 * dx[0] + dx[1]) / (dx[0] * (dx[0] + dx[1]))
        b = (dx[0] + dx[1]) / (dx[0] * dx[1])
        c = (-dx[0]) / (dx[1] * (dx[0] + dx[1]))
        first = a * _along(input, d, 0, 1) + b * _along(input, d, 1, 2) + c * _along(input, d, 2, 3)
        a = dx[-1] / (dx[-2] * (dx[-1] + dx[-2]))
        b = -(dx[-1] + dx[-2]) / (dx[-1] * dx[-2])
        c = (2 * dx[-1] + dx[-2]) / (dx[-1] * (dx[-1] + dx[-2]))
        last = a * _along(input, d, -3, -2) + b * _along(input, d, -2, -1) + c * _along(input, d, -1)
    return S.cat([first, center, last], d)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """The partial derivatives of ``input`` along ``dim`` (every dim by default), one tensor per dim.

    ``spacing``: one number for every dim, a number per dim, or a 1-d tensor of coordinates per dim.
    """
    need_tensor("gradient", input)
    if input.dtype is D.uint8:
        raise NotImplementedError("torch.gradient does not support uint8 input.")
    # PyTorch's order of checks: spacing's length, edge_order, then the dims and their sizes
    dims = _dim_list(dim)
    n_dims = input.ndim if dims is None else len(dims)
    scalar_spacing = isinstance(spacing, (numbers.Number, Tensor)) and not (
        isinstance(spacing, Tensor) and spacing.ndim > 0)
    steps = [spacing] * n_dims if scalar_spacing else list(spacing)
    for h in steps:
        if not scalar_spacing and isinstance(h, Tensor) and h.ndim == 0:
            raise RuntimeError("torch.gradient expected each element of spacing to have one dimension, but got an "
                               "element with 0 dimensions!")
    if len(steps) != n_dims:
        if dim is None:
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
                               f"equal to 'self.dim() = {input.ndim}', since dim argument was not given, but got a "
                               f"list of length {len(steps)}")
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim "
                           f"arguments to have the same length, but got a spacing argument of length {len(steps)} "
                           f"and a dim argument of length {len(dims)}.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    dims = list(range(input.ndim)) if dims is None else list(S._norm_dims(dims, input.ndim, "gradient"))
    for d in dims:
        if input._shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    results = []
    for d, h in zip(dims, steps, strict=True):
        if isinstance(h, Tensor) and h.ndim > 0:
            if h.ndim != 1 or h._shape[0] != input._shape[d]:
                raise RuntimeError(f"torch.gradient expected each tensor of coordinates to be 1-D with "
                                   f"{input._shape[d]} elements (the size of dim {d}), but got shape {list(h.shape)}")
            if h.device != input.device:
                raise RuntimeError("torch.gradient expected each tensor to be on the same device, but got devices "
                                   f"{input.device} and {h.device}!")
            results.append(_at_coordinates(input, d, h, edge_order))
        else:
            results.append(_uniform(input, d, h.item() if isinstance(h, Tensor) else h, edge_order))
    return tuple(results)
