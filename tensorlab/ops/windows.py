"""Window functions for spectral work: ``hann_window``, ``hamming_window``, ``blackman_window``,
``bartlett_window``, ``kaiser_window``.

Each is an ``arange`` followed by PyTorch's formula as elementwise ops, run by the kernels on the
window's device. float16/bfloat16 windows are computed in float32 and rounded once: PyTorch
rounds after every step there, which puts its bfloat16 windows several units in the last place
off (0.30 for 0.29 in an 11-point Hann window); ours are within half a unit of the exact window.
A periodic window of length L is the first L points of the symmetric window of length L + 1: the
formulas take ``W - 1`` as their denominator, with W the symmetric length, and evaluate only the L
points kept.
"""

from __future__ import annotations

import math

from .. import _dtype as D
from .._factories import arange, empty, ones
from .._tensor import Tensor

__all__ = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]


def _window_checks(op: str, window_length, dtype) -> D.dtype:
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        raise TypeError(f"{op}(): argument 'window_length' (position 1) must be int, "
                        f"not {type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{op} requires non-negative window_length, got window_length={window_length}")
    dt = D.get_default_dtype() if dtype is None else D.as_dtype(dtype, op)
    if not dt.is_floating_point:
        raise RuntimeError(f"{op} expects floating point dtypes, got: {D.torch_name(dt)}")
    return dt


def _window(op: str, window_length: int, periodic: bool, dtype, device, requires_grad: bool, formula) -> Tensor:
    """Checks, the lengths 0 and 1 (empty and [1]), then ``formula(n, W)`` on the points
    ``n = 0 .. window_length - 1`` of the symmetric window of length ``W``."""
    dt = _window_checks(op, window_length, dtype)
    if window_length <= 1:
        make = empty if window_length == 0 else ones
        return make(window_length, dtype=dt, device=device, requires_grad=requires_grad)
    symmetric_length = window_length + 1 if periodic else window_length
    compute = D.float32 if dt in (D.float16, D.bfloat16) else dt
    window = formula(arange(window_length, dtype=compute, device=device), symmetric_length).to(dt)
    return window.requires_grad_(requires_grad)


def _cosine_formula(alpha: float, beta: float):
    """``alpha - beta * cos(2 pi n / (W - 1))``: the Hamming window, and with alpha = beta = 0.5 the Hann one."""
    def formula(n, w):
        return n.mul_(math.pi * 2.0 / (w - 1)).cos_().mul_(-beta).add_(alpha)

    return formula


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """``alpha - beta * cos(2 pi n / (W - 1))``."""
    return _window("hamming_window", window_length, periodic, dtype, device, requires_grad,
                   _cosine_formula(alpha, beta))


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                requires_grad: bool = False) -> Tensor:
    """``0.5 - 0.5 * cos(2 pi n / (W - 1))`` (a Hamming window with alpha = beta = 0.5, as PyTorch)."""
    return _window("hann_window", window_length, periodic, dtype, device, requires_grad, _cosine_formula(0.5, 0.5))


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """``0.42 - 0.5 * cos(2 pi n / (W - 1)) + 0.08 * cos(4 pi n / (W - 1))``."""
    def formula(n, w):
        x = n.mul_(math.pi / (w - 1))
        return x.mul(4).cos_().mul_(0.08) - x.mul(2).cos_().mul_(0.5) + 0.42

    return _window("blackman_window", window_length, periodic, dtype, device, requires_grad, formula)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """The triangle ``2 n / (W - 1)`` rising to 1 at the middle, then ``2 - 2 n / (W - 1)``."""
    def formula(n, w):
        first_half = ((w - 1) >> 1) + 1  # PyTorch's split point: the points from here on descend
        x = n.mul_(2.0 / (w - 1))
        if first_half < window_length:
            x[first_half:].mul_(-1).add_(2)
        return x

    return _window("bartlett_window", window_length, periodic, dtype, device, requires_grad, formula)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, layout=None,
                  device=None, requires_grad: bool = False) -> Tensor:
    """``I0(beta * sqrt(|1 - ((n - a) / a)^2|)) / I0(beta)`` with ``a = (W - 1) / 2``."""
    def formula(n, w):
        from .elementwise import i0

        a = (w - 1) / 2.0
        x = n.sub_(a).div_(a).pow_(2.0).neg_().add_(1).abs_().sqrt_().mul_(float(beta))
        return i0(x) / i0(x.new_full((), float(beta)))

    return _window("kaiser_window", window_length, periodic, dtype, device, requires_grad, formula)
