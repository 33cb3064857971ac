"""``tensorlab.accelerator``: PyTorch's device-agnostic accelerator API (``torch.accelerator``), which
current PyTorch tutorials start with (``torch.accelerator.current_accelerator().type if
torch.accelerator.is_available() else "cpu"``). tensorlab's one accelerator is cuda."""

from __future__ import annotations

from . import cuda as _cuda
from ._device import device as _device


def is_available() -> bool:
    return _cuda.is_available()


def current_accelerator(check_available: bool = False):
    """The accelerator tensorlab is built for, ``device('cuda')`` (None with ``check_available`` when
    cuda is not available)."""
    if check_available and not is_available():
        return None
    return _device("cuda")


def device_count() -> int:
    return _cuda.device_count() if is_available() else 0


def current_device_index() -> int:
    return _cuda.current_device()


def set_device_index(device) -> None:
    _cuda.set_device(device)


current_device_idx = current_device_index
set_device_idx = set_device_index


def synchronize(device=None) -> None:
    _cuda.synchronize(device)


def current_stream(device=None):
    return _cuda.current_stream(device)


def set_stream(stream) -> None:
    _cuda.set_stream(stream)


def empty_cache() -> None:
    _cuda.empty_cache()


def memory_allocated(device=None) -> int:
    return _cuda.memory_allocated(device)


def max_memory_allocated(device=None) -> int:
    return _cuda.max_memory_allocated(device)


def memory_reserved(device=None) -> int:
    return _cuda.memory_reserved(device)


def max_memory_reserved(device=None) -> int:
    return _cuda.max_memory_reserved(device)


def reset_peak_memory_stats(device=None) -> None:
    _cuda.reset_peak_memory_stats(device)


__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "current_stream", "device_count",
           "empty_cache", "is_available", "max_memory_allocated", "max_memory_reserved", "memory_allocated",
           "memory_reserved", "reset_peak_memory_stats", "set_device_idx", "set_device_index", "set_stream",
           "synchronize"]
