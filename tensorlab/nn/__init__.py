"""tensorlab.nn: modules, layers, losses and ``functional`` (issue 5)."""

from __future__ import annotations
