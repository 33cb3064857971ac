"""``tensorlab.cpu``: PyTorch's ``torch.cpu`` device module (``is_available``, ``device_count``,
``synchronize`` and the deprecated ``cpu.amp.autocast`` spelling)."""

from __future__ import annotations

import types
import warnings

from . import _dtype as D


def is_available() -> bool:
    return True


def is_initialized() -> bool:
    return True


def device_count() -> int:
    return 1


def current_device() -> str:
    return "cpu"


def set_device(device) -> None:
    """cpu has one device: nothing to set."""


def synchronize(device=None) -> None:
    """cpu work is done when its call returns: nothing to wait for."""


def _autocast(enabled: bool = True, dtype=D.bfloat16, cache_enabled: bool = True):
    from .amp import autocast

    warnings.warn("`tensorlab.cpu.amp.autocast(args...)` is deprecated. Please use `tensorlab.amp.autocast('cpu', "
                  "args...)` instead.", FutureWarning, stacklevel=2)
    return autocast("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


amp = types.SimpleNamespace(autocast=_autocast)

__all__ = ["amp", "current_device", "device_count", "is_available", "is_initialized", "set_device", "synchronize"]
