"""``tensorlab.jit``: the TorchScript queries model code branches on (``if not torch.jit.is_tracing():``).

tensorlab has no tracer or script compiler, so code always runs eagerly: both answer False.
"""

from __future__ import annotations

__all__ = ["is_scripting", "is_tracing"]


def is_tracing() -> bool:
    return False


def is_scripting() -> bool:
    return False
