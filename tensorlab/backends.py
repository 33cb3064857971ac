"""``tensorlab.backends``: the switches PyTorch scripts set at their top, as ``torch.backends``.

- ``backends.cuda.matmul.allow_tf32`` is another spelling of
  :func:`tensorlab.set_float32_matmul_precision`: True is ``"high"`` (TF32 tensor cores for
  float32 matmuls), False ``"highest"``; reading it tells the current precision.
- ``backends.cudnn``: tensorlab has no cuDNN (its matmuls, reductions and attention are its own
  Triton kernels), so ``cudnn.is_available()`` is False and its flags (``benchmark``,
  ``deterministic``, ``enabled``, ``allow_tf32``) are kept as set and change nothing; tensorlab's
  default kernels are deterministic already (no float atomics).
"""

from __future__ import annotations

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


class _Cuda:
    matmul = _MatmulFlags()

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
