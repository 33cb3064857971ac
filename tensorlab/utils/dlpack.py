"""``tensorlab.utils.dlpack``: PyTorch's ``torch.utils.dlpack``.

``from_dlpack(obj)`` shares memory with any object that speaks DLPack (or a capsule);
``to_dlpack(tensor)`` is the legacy interface: a capsule viewing the tensor's memory, good for one
``from_dlpack`` (the idiomatic exchange passes the tensor itself, which has ``__dlpack__``); like
PyTorch's it exports a tensor that requires grad too (``__dlpack__`` refuses one).
"""

from __future__ import annotations

from .._dlpack import DLDeviceType, from_dlpack
from .._dlpack import to_dlpack as _capsule_of


def to_dlpack(tensor):
    """A DLPack capsule (``dltensor``) viewing ``tensor``'s memory."""
    return _capsule_of(tensor)


__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
