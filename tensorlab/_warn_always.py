"""``set_warn_always``/``is_warn_always_enabled``: PyTorch's switch that repeats its warn-once warnings.

tensorlab's warnings go through Python's ``warnings`` module, whose filters already decide whether
a warning repeats (``warnings.simplefilter("always")``), so nothing reads the flag. It is kept so
that scripts written for PyTorch run unchanged and can ask what they set.
"""

from __future__ import annotations

_state = {"enabled": False}


def set_warn_always(b: bool) -> None:
    if not isinstance(b, bool):
        raise RuntimeError(f"setWarnOnlyOnce expects a bool, but got {type(b).__name__}")
    _state["enabled"] = b


def is_warn_always_enabled() -> bool:
    return _state["enabled"]
