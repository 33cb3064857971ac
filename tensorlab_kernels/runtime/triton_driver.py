"""Triton's active driver without torch (DESIGN §3).

Triton ≤ 3.7 builds its CUDA driver from torch (current device, current stream, capability);
≥ 3.8 has a torch-free path that always launches on the legacy default stream. Both are wrong
for us, so we install a subclass of Triton's ``CudaDriver`` whose ``__init__`` skips the
torch-bound parent and whose four device/stream queries answer from tensorlab's runtime:
kernels then launch on tensorlab's current stream and device, on Triton 3.6 through 3.9+.
The same module gives Triton an allocator for kernels that need global scratch memory.
"""

from __future__ import annotations

_installed = False


def install(backend) -> None:
    """Make tensorlab's driver Triton's active driver (idempotent)."""
    global _installed
    if _installed:
        return
    import triton
    from triton.backends.nvidia.driver import CudaDriver, CudaLauncher, CudaUtils

    from . import streams

    class TensorlabCudaDriver(CudaDriver):
        def __init__(self):  # deliberately not calling CudaDriver.__init__: it may import torch
            self.utils = CudaUtils()
            self.launcher_cls = CudaLauncher

        @staticmethod
        def is_active():
            return True

        # every launch asks these two: the runtime's functions themselves, not methods around them
        get_current_device = staticmethod(streams.current_device)
        get_current_stream = staticmethod(streams.current_stream_handle)

        def set_current_device(self, device):
            streams.set_device(device)

        def get_device_capability(self, device=None):
            return backend.capability(streams.current_device() if device is None else device)

        def allocate_default_profile_scratch(self, size, alignment, stream):
            return scratch_allocator(size, alignment, stream)

    triton.runtime.driver.set_active(TensorlabCudaDriver())
    triton.set_allocator(scratch_allocator)
    _installed = True


def scratch_allocator(size: int, alignment: int, stream):
    """Global scratch for a launch, from the caching allocator on the launch's stream.

    The caching allocator hands out 512-byte-aligned blocks (cuMemAlloc gives 256), which
    covers every alignment Triton asks for (at most 128 bytes today).
    """
    from . import streams

    if alignment > 256:
        raise RuntimeError(f"Triton asked for scratch aligned to {alignment} bytes; tensorlab provides 256")
    device = streams.current_device()
    from . import allocator_for

    return allocator_for(device).allocate(size, stream=stream or 0)
