"""tensorlab.utils.data: datasets, samplers and the multiprocessing DataLoader (issue 6)."""

from __future__ import annotations
