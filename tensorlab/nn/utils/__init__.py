"""``tensorlab.nn.utils``: gradient clipping and parameter/vector conversion (issue 5)."""

from __future__ import annotations
