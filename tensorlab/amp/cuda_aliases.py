"""``tensorlab.cuda.amp``: PyTorch's older spellings of :mod:`tensorlab.amp` for cuda (deprecated in
PyTorch, which warns; so does this)."""

from __future__ import annotations

import functools
import warnings

from .. import _dtype as D
from . import autocast_mode
from .grad_scaler import GradScaler as _GradScaler


class autocast(autocast_mode.autocast):
    def __init__(self, enabled: bool = True, dtype=D.float16, cache_enabled: bool = True):
        warnings.warn("`tensorlab.cuda.amp.autocast(args...)` is deprecated. Please use "
                      "`tensorlab.amp.autocast('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(_GradScaler):
    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
        warnings.warn("`tensorlab.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`tensorlab.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


custom_fwd = functools.partial(autocast_mode.custom_fwd, device_type="cuda")
custom_bwd = functools.partial(autocast_mode.custom_bwd, device_type="cuda")

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]
