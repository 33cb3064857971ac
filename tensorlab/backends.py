"""``tensorlab.backends``: the switches PyTorch scripts set at their top, as ``torch.backends``.

- ``backends.cuda.matmul.allow_tf32`` is another spelling of
  :func:`tensorlab.set_float32_matmul_precision`: True is ``"high"`` (TF32 tensor cores for
  float32 matmuls), False ``"highest"``; reading it tells the current precision.
- ``backends.cudnn``: tensorlab has no cuDNN (its matmuls, reductions and attention are its own
  Triton kernels), so ``cudnn.is_available()`` is False and its flags (``benchmark``,
  ``deterministic``, ``enabled``, ``allow_tf32``) are kept as set and change nothing; tensorlab's
  default kernels are deterministic already (no float atomics).
- ``backends.cuda``'s scaled-dot-product-attention switches (``enable_flash_sdp``, ``math_sdp_enabled``,
  ..., the deprecated ``sdp_kernel`` context; ``tensorlab.nn.attention.sdpa_kernel`` sets them):
  tensorlab's one fused attention kernel stands for PyTorch's fused backends (flash, memory-efficient,
  cuDNN); with all of those off, attention runs the math (unfused) path; with every backend off it
  raises, as PyTorch does. They apply on every device.
"""

from __future__ import annotations

import contextlib
import warnings

from .ops.matmul import get_float32_matmul_precision, set_float32_matmul_precision


class _MatmulFlags:
    """``backends.cuda.matmul``."""

    @property
    def allow_tf32(self) -> bool:
        return get_float32_matmul_precision() != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        set_float32_matmul_precision("high" if value else "highest")

    # fp16/bf16 matmuls always accumulate in fp32 here: no reduced-precision reductions to allow
    allow_fp16_reduced_precision_reduction = False
    allow_bf16_reduced_precision_reduction = False


# PyTorch's scaled-dot-product-attention backend switches, all on by default
_sdp_enabled = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def _sdp_switch(name: str):
    def enabled() -> bool:
        return _sdp_enabled[name]

    def enable(enabled: bool) -> None:
        if not isinstance(enabled, bool):  # (PyTorch's refuses 0/1, None, numpy bools: bool(x) would hide a slip)
            raise RuntimeError(f"enable_{name}_sdp expects a bool, but got {type(enabled).__name__}")
        _sdp_enabled[name] = enabled

    enabled.__name__, enable.__name__ = f"{name}_sdp_enabled", f"enable_{name}_sdp"
    return staticmethod(enabled), staticmethod(enable)


class _Cuda:
    matmul = _MatmulFlags()
    flash_sdp_enabled, enable_flash_sdp = _sdp_switch("flash")
    mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _sdp_switch("mem_efficient")
    math_sdp_enabled, enable_math_sdp = _sdp_switch("math")
    cudnn_sdp_enabled, enable_cudnn_sdp = _sdp_switch("cudnn")

    @staticmethod
    @contextlib.contextmanager
    def sdp_kernel(enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True,
                   enable_cudnn: bool = True):
        """Deprecated spelling of ``tensorlab.nn.attention.sdpa_kernel`` (flags instead of a list)."""
        warnings.warn("`tensorlab.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager "
                      "will be removed. Please see `tensorlab.nn.attention.sdpa_kernel()` for the new context "
                      "manager, with updated signature.", FutureWarning, stacklevel=3)
        from .nn.attention import SDPBackend, sdpa_kernel

        chosen = [b for b, on in ((SDPBackend.FLASH_ATTENTION, enable_flash),
                                  (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                                  (SDPBackend.MATH, enable_math), (SDPBackend.CUDNN_ATTENTION, enable_cudnn)) if on]
        with sdpa_kernel(chosen) as context:
            yield context

    @staticmethod
    def is_built() -> bool:
        """tensorlab always carries its cuda backend (libcuda through ctypes, Triton)."""
        return True


class _Cudnn:
    """Flags PyTorch scripts set for cuDNN; tensorlab has no cuDNN, so they change nothing."""

    benchmark = False
    deterministic = False
    enabled = True
    allow_tf32 = True

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def version():
        return None


class _Mps:
    """Apple's Metal backend: not tensorlab's (scripts ask before choosing a device)."""

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def is_built() -> bool:
        return False


cuda = _Cuda()
cudnn = _Cudnn()
mps = _Mps()

__all__ = ["cuda", "cudnn", "mps"]
