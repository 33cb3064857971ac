"""nn modules: sparse (issue 5)."""

from __future__ import annotations

__all__: list[str] = []
