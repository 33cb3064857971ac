"""Exceptions the runtime raises to users."""

from __future__ import annotations


class OutOfMemoryError(RuntimeError):
    """A device allocation failed even after the allocator released its cache.

    Exported as ``tensorlab.OutOfMemoryError`` (and ``tensorlab.cuda.OutOfMemoryError``).
    Existing tensors stay valid: the failed request changed nothing.
    """


class DeviceOutOfMemory(Exception):
    """Raised by a backend's raw allocation; the caching allocator turns it into OutOfMemoryError."""


def format_bytes(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(n) >= scale:
            return f"{n / scale:.2f} {unit}"
    return f"{n} bytes"
