"""The shape_ops op family (see issue 3). Declarations, public functions and Tensor methods."""

from __future__ import annotations

__all__: list[str] = []
