"""``use_deterministic_algorithms``: PyTorch's switch for reproducible runs.

Every tensorlab kernel is deterministic already: reductions, scans, scatters and index_add
combine values in a fixed order (no float atomics; the one atomic, in the single-launch full
reduction, is an integer ticket that picks which program finishes), so the same inputs give the
same bits on every run. The switch is kept so that scripts written for PyTorch run unchanged and
can ask what they set; with it on, nothing needs to change.
"""

from __future__ import annotations

_state = {"enabled": False, "warn_only": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' must be bool, not {type(mode).__name__}")
    _state["enabled"], _state["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _state["enabled"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _state["warn_only"]
