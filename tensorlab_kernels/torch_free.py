"""Launch through Triton's own path without letting it import torch.

Triton 3.6's C++ argument specialiser tries ``import torch`` once, the first time it binds a
kernel's arguments, to recognise torch tensors (``init_globals`` in ``specialize.cc``; Triton 3.9
no longer does). Where torch is installed, as on our GPU machines, that import succeeds and pulls
all of torch (seconds, and gigabytes of CUDA libraries) into a process that never uses it, and
tensorlab promises a torch-free process. Seen on an H100 with Triton 3.6.0: one ``ones(4) + 1``
left torch in ``sys.modules``.

:func:`triton_launch` runs ``kernel[grid](*args, **meta)`` with ``import torch`` refused while it
runs, unless the process already holds torch (then there is nothing to keep out, and a user's
torch tensors keep working in their own Triton kernels). Triton treats the refusal as "torch is
not installed" and does not ask again. Only Triton's path goes through here: compiles and the
first launch of each specialisation; direct launches never reach Triton's binder.
"""

from __future__ import annotations

import sys


class _RefuseTorch:
    """A meta-path finder that makes ``import torch`` (and its submodules) fail."""

    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError("tensorlab keeps torch out of Triton's launch path", name=name)
        return None


_REFUSE_TORCH = _RefuseTorch()


def triton_launch(kernel, grid: tuple, args: tuple, meta: dict):
    """``kernel[grid](*args, **meta)`` with ``import torch`` refused while Triton binds and compiles."""
    if "torch" in sys.modules:
        return kernel[grid](*args, **meta)
    sys.meta_path.insert(0, _REFUSE_TORCH)
    try:
        return kernel[grid](*args, **meta)
    finally:
        sys.meta_path.remove(_REFUSE_TORCH)
