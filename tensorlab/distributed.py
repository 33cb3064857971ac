"""``tensorlab.distributed``: the single-process guards that training scripts call.

tensorlab has no process-group backend (no NCCL/Gloo), so, as a PyTorch build without the
distributed package, ``is_available()`` is False; ``is_initialized()`` is False too, so the
common guards ``dist.is_available() and dist.is_initialized()`` and
``dist.get_rank() if dist.is_initialized() else 0`` take their single-process branch.
``tensorlab.utils.data.distributed.DistributedSampler`` works with explicit ``num_replicas``/``rank``.
"""

from __future__ import annotations

__all__ = ["is_available", "is_initialized"]


def is_available() -> bool:
    return False


def is_initialized() -> bool:
    return False
