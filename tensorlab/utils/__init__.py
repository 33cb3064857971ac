"""tensorlab.utils."""

from __future__ import annotations

from . import checkpoint, data, dlpack  # noqa: F401
