"""nn.functional: activation (issue 5)."""

from __future__ import annotations

__all__: list[str] = []
