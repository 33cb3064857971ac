"""``use_deterministic_algorithms``: PyTorch's switch for reproducible runs.

Every tensorlab kernel is deterministic already: reductions, scans, scatters and index_add
combine values in a fixed order (no float atomics; the one atomic, in the single-launch full
reduction, is an integer ticket that picks which program finishes), so the same inputs give the
same bits on every run. The switch is kept so that scripts written for PyTorch run unchanged and
can ask what they set. With it on, one thing changes, as in PyTorch: new uninitialized memory
(``empty`` & co., the growth of ``resize_``) is filled with NaN, the largest integer or True, unless
``tensorlab.utils.deterministic.fill_uninitialized_memory`` is set to False.
"""

from __future__ import annotations

import numpy as np

from . import _dtype as D

_state = {"enabled": False, "warn_only": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    _state["enabled"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _state["enabled"]


def filling_uninitialized_memory() -> bool:
    """Whether new uninitialized memory is to be filled (tensorlab.utils.deterministic)."""
    if not _state["enabled"]:
        return False
    from .utils import deterministic

    return bool(deterministic.fill_uninitialized_memory)


def uninitialized_fill_value(dtype: D.dtype):
    """PyTorch's value for uninitialized memory: NaN, the largest integer, or True."""
    if dtype.is_floating_point:
        return float("nan")
    if dtype is D.bool:
        return True
    return int(np.iinfo(dtype.np).max)


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]


_DEBUG_MODES = {"default": 0, "warn": 1, "error": 2}


def set_deterministic_debug_mode(debug_mode) -> None:
    """PyTorch's other spelling of the switch: 0/"default" off, 1/"warn" on with warnings only,
    2/"error" on."""
    if not isinstance(debug_mode, (int, str)):
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, `error`, but got "
                               f"{debug_mode}")
        debug_mode = _DEBUG_MODES[debug_mode]
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    if not _state["enabled"]:
        return 0
    return 1 if _state["warn_only"] else 2
