"""``tensorlab.amp``: automatic mixed precision, as ``torch.amp``: :class:`autocast` (run each op
in the precision its kind calls for) and :class:`GradScaler` (loss scaling for float16)."""

from __future__ import annotations

from .autocast_mode import (
    autocast,
    custom_bwd,
    custom_fwd,
    get_autocast_dtype,
    is_autocast_available,
    is_autocast_enabled,
)
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "get_autocast_dtype", "is_autocast_available",
           "is_autocast_enabled"]
