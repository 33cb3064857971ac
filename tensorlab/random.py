"""``tensorlab.random``: the generator functions under PyTorch's ``torch.random`` name, and
``fork_rng`` (a block whose random draws leave the generators as they were)."""

from __future__ import annotations

import contextlib

from ._random import Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed, set_rng_state


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng", _devices_kw: str = "devices",
             device_type: str = "cuda"):
    """Save the cpu generator's state (and the cuda generators' of ``devices``, default: every cuda
    device when cuda is available) and restore them after the block."""
    if not enabled:
        yield
        return
    from . import cuda

    if devices is None:
        devices = list(range(cuda.device_count())) if cuda.is_available() else []
    devices = list(devices)
    cpu_state = get_rng_state()
    cuda_states = [cuda.get_rng_state(d) for d in devices]
    try:
        yield
    finally:
        set_rng_state(cpu_state)
        for d, state in zip(devices, cuda_states, strict=True):
            cuda.set_rng_state(state, d)


__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed",
           "set_rng_state"]
