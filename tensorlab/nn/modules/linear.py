"""nn modules: linear (issue 5)."""

from __future__ import annotations

__all__: list[str] = []
