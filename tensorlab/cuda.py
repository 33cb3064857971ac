"""``tensorlab.cuda``: devices, streams, events and memory statistics, as in ``torch.cuda``.

With a GPU this is the real device (libcuda through ctypes, Triton kernels compiled for it).
With ``TRITON_INTERPRET=1`` and no GPU it is emulated: memory is host memory, kernels run in
Triton's interpreter, streams and events are synchronous — :func:`is_interpreted` tells which.
"""

from __future__ import annotations

import contextlib
import warnings

from tensorlab_kernels import runtime as _rt
from tensorlab_kernels.runtime import streams as _streams
from tensorlab_kernels.runtime.errors import OutOfMemoryError

from ._device import device as _device

_streams.device_factory = lambda index: _device("cuda", index)

Stream = _rt.Stream
Event = _rt.Event
OutOfMemoryError = OutOfMemoryError


def is_available() -> bool:
    """True when the ``cuda`` device works: a real GPU, or the interpreter (``TRITON_INTERPRET=1``)."""
    return _rt.is_available()


def is_interpreted() -> bool:
    """True when ``cuda`` runs in Triton's interpreter over host memory (no GPU)."""
    return _rt.is_interpreted()


def is_initialized() -> bool:
    """Whether the cuda backend has been set up in this process (on first use of cuda)."""
    return _rt.is_initialized()


def unavailable_reason() -> str | None:
    """Why ``cuda`` is unavailable (None when it is available)."""
    return _rt.unavailable_reason()


def _index(dev) -> int:
    """The cuda device index ``dev`` names (None or a negative index: the current device, as PyTorch);
    an index past the devices there are is an error (it answered for device 0, or made a generator
    or a stream of a device that does not exist)."""
    if dev is None:
        return _rt.current_device()
    if isinstance(dev, int) and not isinstance(dev, bool):
        index = dev
    else:
        d = _device(dev) if not isinstance(dev, _device) else dev
        if d.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {d}")
        index = d.index
    if index is None or index < 0:
        return _rt.current_device()
    count = device_count()
    if index >= count:
        raise RuntimeError(f"Invalid device index {index}: there {'is' if count == 1 else 'are'} {count} cuda "
                           f"device{'' if count == 1 else 's'}")
    return index


def _backend():
    return _rt.require_backend()


def device_count() -> int:
    b = _rt.get_backend()
    return 0 if b is None else b.device_count()


def current_device() -> int:
    _backend()
    return _rt.current_device()


def set_device(device) -> None:
    _rt.set_device(_index(device))


@contextlib.contextmanager
def device(device):  # (PyTorch's keyword; inside, the parameter shadows this function)
    """Make ``device`` the current cuda device inside the block."""
    prev = _rt.current_device()
    idx = _index(device)
    if idx != prev:
        _rt.set_device(idx)
    try:
        yield
    finally:
        if idx != prev:
            _rt.set_device(prev)


def get_device_name(device=None) -> str:
    return _backend().device_name(_index(device))


def get_device_capability(device=None) -> tuple[int, int]:
    return _backend().capability(_index(device))


class _DeviceProperties:
    def __init__(self, index: int):
        b = _backend()
        self.name = b.device_name(index)
        self.major, self.minor = b.capability(index)
        self.total_memory = b.total_memory(index)
        self.multi_processor_count = b.multiprocessor_count(index)

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor}, "
                f"total_memory={self.total_memory // (1 << 20)}MB, multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None) -> _DeviceProperties:
    return _DeviceProperties(_index(device))


def mem_get_info(device=None) -> tuple[int, int]:
    """(free, total) bytes on the device."""
    return _backend().mem_get_info(_index(device))


def synchronize(device=None) -> None:
    """Wait for all work on the device."""
    _rt.synchronize(_index(device))


def current_stream(device=None) -> Stream:
    _backend()
    return _rt.current_stream(_index(device))


def default_stream(device=None) -> Stream:
    _backend()
    return _rt.default_stream(_index(device))


def set_stream(stream: Stream) -> None:  # (PyTorch's keyword)
    if stream is None:  # (PyTorch's: no-op)
        return
    _rt.set_stream(stream)


def stream(stream: Stream | None):  # (PyTorch's keyword; inside, the parameter shadows this function)
    """Context manager: make ``stream`` the current stream of its device (``None`` does nothing)."""
    return _rt.stream(stream)


# -- memory ---------------------------------------------------------------------------------------


def _allocator(dev):
    return _rt.allocator_for(_index(dev))


def empty_cache() -> None:
    """Return every cached, unused block to the driver (live tensors are untouched)."""
    for i in range(device_count()):
        _rt.allocator_for(i).empty_cache()


def memory_allocated(device=None) -> int:
    """Bytes held by live tensors on the device (rounded to the allocator's size classes)."""
    return _allocator(device).allocated


def max_memory_allocated(device=None) -> int:
    return _allocator(device).peak_allocated


def memory_reserved(device=None) -> int:
    """Bytes the allocator holds from the driver: live plus cached."""
    return _allocator(device).reserved


def max_memory_reserved(device=None) -> int:
    return _allocator(device).peak_reserved


def reset_peak_memory_stats(device=None) -> None:
    _allocator(device).reset_peak_stats()


def memory_stats(device=None) -> dict:
    return _allocator(device).stats()


def reset_max_memory_allocated(device=None) -> None:
    warnings.warn("tensorlab.cuda.reset_max_memory_allocated now calls tensorlab.cuda.reset_peak_memory_stats, "
                  "which resets /all/ peak memory stats.", FutureWarning, stacklevel=2)
    reset_peak_memory_stats(device)


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """A printable table of ``memory_stats`` (tensorlab's allocator keeps fewer counters than PyTorch's,
    so the table is shorter; ``abbreviated`` changes nothing)."""
    index = _index(device)
    stats = memory_stats(index)
    width = max(len(k) for k in stats)
    lines = [f"tensorlab cuda memory summary, device {index} ({get_device_name(index)})"]
    lines += [f"  {k:<{width}}  {v:>16,}" for k, v in stats.items()]
    return "\n".join(lines) + "\n"


def ipc_collect() -> None:
    """Nothing to collect: tensorlab never shares cuda memory between processes (DataLoader workers
    hand numpy batches to the main process, which copies them to the device)."""


def manual_seed(seed: int) -> None:
    from ._random import _generator_for

    _generator_for(_device("cuda", _rt.current_device()), None, "manual_seed").manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    from ._random import _generator_for

    for i in range(device_count()):
        _generator_for(_device("cuda", i), None, "manual_seed_all").manual_seed(seed)


def _current_generator(op: str, dev=None):
    from ._random import _generator_for

    return _generator_for(_device("cuda", _index(dev)), None, op)


def seed() -> None:
    """Seed the current cuda device's generator with a random number."""
    _current_generator("seed").seed()


def seed_all() -> None:
    """Seed every cuda device's generator with one random number."""
    s = _current_generator("seed_all").seed()
    for i in range(device_count()):
        _current_generator("seed_all", i).manual_seed(s)


def initial_seed() -> int:
    """The current cuda device's generator's seed."""
    return _current_generator("initial_seed").initial_seed()


def get_rng_state(device="cuda"):
    """The generator state of a cuda device (a uint8 cpu tensor, as PyTorch's)."""
    return _current_generator("get_rng_state", device).get_state()


def set_rng_state(new_state, device="cuda") -> None:
    _current_generator("set_rng_state", device).set_state(new_state)


def get_rng_state_all() -> list:
    return [get_rng_state(i) for i in range(device_count())]


def set_rng_state_all(new_states) -> None:
    for i, state in enumerate(new_states):
        set_rng_state(state, i)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """Whether cuda can compute in bfloat16: compute capability 8.0 (Ampere) or newer; the
    interpreter computes bfloat16 on the host."""
    if not is_available():
        return False
    return is_interpreted() or get_device_capability() >= (8, 0)


def __getattr__(name: str):
    if name == "amp":  # tensorlab.cuda.amp (imported on first use: it needs the whole package)
        from .amp import cuda_aliases

        return cuda_aliases
    raise AttributeError(f"module 'tensorlab.cuda' has no attribute {name!r}")


__all__ = [
    "Event", "OutOfMemoryError", "Stream", "current_device", "current_stream", "default_stream", "device",
    "device_count", "empty_cache", "get_device_capability", "get_device_name", "get_device_properties",
    "get_rng_state", "get_rng_state_all", "initial_seed", "ipc_collect", "is_available", "is_bf16_supported",
    "is_initialized", "is_interpreted",
    "manual_seed", "manual_seed_all", "max_memory_allocated",
    "max_memory_reserved", "mem_get_info", "memory_allocated", "memory_reserved", "memory_stats",
    "memory_summary", "reset_max_memory_allocated", "reset_peak_memory_stats", "seed", "seed_all", "set_device",
    "set_rng_state", "set_rng_state_all", "set_stream",
    "stream", "synchronize", "unavailable_reason",
]
