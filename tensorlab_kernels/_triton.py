"""Import Triton once, or stand-ins that let kernel modules import where Triton cannot install.

Kernel modules write ``from tensorlab_kernels._triton import triton, tl``. Where Triton is
missing (macOS, Windows), the numpy twins beside the kernels still import and the cpu device
works; launching a kernel raises a clear error. ``TRITON_INTERPRET`` must be in the environment
before this module is imported, since Triton decides interpretation when it decorates.
"""

from __future__ import annotations

try:
    import triton
    import triton.language as tl

    TRITON_AVAILABLE = True
except ImportError:  # pragma: no cover - exercised only where Triton cannot be installed
    TRITON_AVAILABLE = False

    class _Unlaunchable:
        def __init__(self, fn):
            self.fn = fn
            self.__name__ = getattr(fn, "__name__", "kernel")

        def __getitem__(self, grid):
            raise RuntimeError(f"cannot launch Triton kernel {self.__name__}: Triton is not installed")

        def __call__(self, *args, **kwargs):
            raise RuntimeError(f"cannot call Triton function {self.__name__}: Triton is not installed")

    class _MissingTriton:
        @staticmethod
        def jit(fn=None, **kwargs):
            if fn is None:
                return _Unlaunchable
            return _Unlaunchable(fn)

        @staticmethod
        def cdiv(a, b):
            return -(-a // b)

        @staticmethod
        def next_power_of_2(n):
            return 1 << max(int(n) - 1, 0).bit_length()

        class Config:
            def __init__(self, *args, **kwargs):
                self.args, self.kwargs = args, kwargs

    class _Anything:
        """Any attribute of ``tl`` used at import time (``tl.constexpr``, ``tl.float32``)."""

        def __getattr__(self, name):
            return _Anything()

        def __call__(self, *args, **kwargs):
            return _Anything()

        def __class_getitem__(cls, item):
            return cls

    triton = _MissingTriton()
    tl = _Anything()

__all__ = ["TRITON_AVAILABLE", "triton", "tl"]
