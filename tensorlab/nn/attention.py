"""``tensorlab.nn.attention``: choose the backends of ``scaled_dot_product_attention``, as ``torch.nn.attention``.

``sdpa_kernel(SDPBackend.MATH)`` turns tensorlab's fused attention kernel off for the block (the
unfused math path runs); any fused backend (flash, efficient, cuDNN) allows the fused kernel; an
empty list makes attention raise, as PyTorch. The switches are ``tensorlab.backends.cuda``'s.
"""

from __future__ import annotations

import contextlib
import enum

from .. import backends as _backends

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.IntEnum):
    """PyTorch's backend names and numbers for scaled dot product attention."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    __str__ = enum.Enum.__str__  # "SDPBackend.MATH", as PyTorch's (IntEnum would print "0")


# backends.cuda switch for each backend (OVERRIDEABLE, for extension kernels, has none here)
_SWITCH = {SDPBackend.CUDNN_ATTENTION: "cudnn", SDPBackend.FLASH_ATTENTION: "flash",
           SDPBackend.EFFICIENT_ATTENTION: "mem_efficient", SDPBackend.MATH: "math"}


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    """Enable exactly ``backends`` (one ``SDPBackend`` or a list) inside the block; restore the previous
    switches after it. ``set_priority`` orders PyTorch's choice among several backends; tensorlab has one
    fused kernel, so there is no order to set."""
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
                             f"got {type(backends).__name__}")
    chosen = [backends] if isinstance(backends, SDPBackend) else backends
    previous = dict(_backends._sdp_enabled)
    try:
        _backends._sdp_enabled.update({name: b in chosen for b, name in _SWITCH.items()})
        yield {}
    finally:
        _backends._sdp_enabled.update(previous)
