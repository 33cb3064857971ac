"""tensorlab.utils."""

from __future__ import annotations

from . import checkpoint, data, deterministic, dlpack  # noqa: F401
