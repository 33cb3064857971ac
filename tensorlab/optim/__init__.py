"""tensorlab.optim: optimizers and learning-rate schedulers (issue 5)."""

from __future__ import annotations
