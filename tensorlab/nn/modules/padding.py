"""nn modules: padding layers, thin modules over ``F.pad`` (PyTorch's ``torch.nn.modules.padding``).

``Constant``/``Zero``, ``Reflection``, ``Replication`` and ``Circular`` pads of the last 1, 2 or 3
dims. The constructors take PyTorch's ``padding``: an int (the same on every side) or a tuple
used as given (``(left, right[, top, bottom[, front, back]])``, like ``F.pad``: a tuple of another
length pads that many dims, as PyTorch's). As in PyTorch, only the circular layers check the
input's rank themselves; the others leave it to ``F.pad``, which allows any rank for constant
padding and raises PyTorch's ``NotImplementedError`` for the other modes on unsupported ranks.
"""

from __future__ import annotations

from collections.abc import Iterable

from .. import functional as F
from .module import Module


def _ntuple(padding, n: int) -> tuple:
    """PyTorch's ``_ntuple``: an iterable as a tuple (whatever its length), anything else repeated ``n`` times."""
    if isinstance(padding, Iterable):
        return tuple(padding)
    return (padding,) * n


class _ConstantPadNd(Module):
    _n = 1

    def __init__(self, padding, value: float):
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._n)
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with ``value``: ``padding`` is an int or ``(left, right)``."""

    _n = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims with ``value``: ``padding`` is an int or ``(left, right, top, bottom)``."""

    _n = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims with ``value``: ``padding`` is an int or ``(left, right, top, bottom, front, back)``."""

    _n = 3


class _ZeroPad:
    """``value`` 0.0 (mixed in before a ConstantPadNd: ZeroPad1d is a ConstantPad1d, as in PyTorch)."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:  # (PyTorch's ZeroPad repr names neither the keyword nor the value)
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    """Pad the last dim with zeros."""


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    """Pad the last 2 dims with zeros."""


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    """Pad the last 3 dims with zeros."""


class _ModePadNd(Module):
    """A pad whose mode takes no value: ``reflect``, ``replicate`` or ``circular``."""

    _n = 1
    _mode = ""

    def __init__(self, padding):
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._n)

    def forward(self, input):
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_ModePadNd):
    """Pad the last dim with the reflection of the input about its edge (the edge not repeated);
    each padding must be less than the dim's size. Input (C, W) or (N, C, W)."""

    _n, _mode = 1, "reflect"


class ReflectionPad2d(_ModePadNd):
    """Reflection padding of the last 2 dims. Input (C, H, W) or (N, C, H, W)."""

    _n, _mode = 2, "reflect"


class ReflectionPad3d(_ModePadNd):
    """Reflection padding of the last 3 dims. Input (C, D, H, W) or (N, C, D, H, W)."""

    _n, _mode = 3, "reflect"


class ReplicationPad1d(_ModePadNd):
    """Pad the last dim by repeating its edge values. Input (C, W) or (N, C, W)."""

    _n, _mode = 1, "replicate"


class ReplicationPad2d(_ModePadNd):
    """Replication padding of the last 2 dims. Input (C, H, W) or (N, C, H, W)."""

    _n, _mode = 2, "replicate"


class ReplicationPad3d(_ModePadNd):
    """Replication padding of the last 3 dims. Input (C, D, H, W) or (N, C, D, H, W)."""

    _n, _mode = 3, "replicate"


class _CircularPadNd(_ModePadNd):
    _mode = "circular"

    def forward(self, input):
        # PyTorch's circular layers check the rank before F.pad does (a ValueError, not F.pad's
        # NotImplementedError)
        ndim = input.dim()
        if ndim not in (self._n + 1, self._n + 2):
            raise ValueError(f"expected {self._n + 1}D or {self._n + 2}D input (got {ndim}D input)")
        return F.pad(input, self.padding, "circular")


class CircularPad1d(_CircularPadNd):
    """Pad the last dim by wrapping around: the end pads the start and the start the end (at most
    once around). Input (C, W) or (N, C, W)."""

    _n = 1


class CircularPad2d(_CircularPadNd):
    """Circular padding of the last 2 dims. Input (C, H, W) or (N, C, H, W)."""

    _n = 2


class CircularPad3d(_CircularPadNd):
    """Circular padding of the last 3 dims. Input (C, D, H, W) or (N, C, D, H, W)."""

    _n = 3


__all__ = ["CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d"]
