"""``tensorlab.version``: as ``torch.version`` (``__version__``; ``cuda``: the CUDA version of the
driver when a GPU is there, else None; ``triton``: the Triton tensorlab compiles its kernels with)."""

from __future__ import annotations

__version__ = "0.1.0"
git_version = None
hip = None
debug = False


def _cuda_version() -> str | None:
    try:
        from tensorlab_kernels.runtime import libcuda

        if libcuda.load_error() is not None:
            return None
        v = libcuda.driver_version()
    except Exception:  # no driver, or no way to ask it
        return None
    return f"{v // 1000}.{(v % 1000) // 10}"


def _triton_version() -> str | None:
    try:
        import triton
    except ImportError:
        return None
    return triton.__version__


cuda = _cuda_version()
triton = _triton_version()
