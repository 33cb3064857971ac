"""``tensorlab.nn.init``: parameter initialisation, as ``torch.nn.init`` (issue 5)."""

from __future__ import annotations
