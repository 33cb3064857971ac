"""Where Triton's interpreter computes differently from the GPU, made to compute as the GPU does.

Installed by ``launch`` when kernels run in the interpreter (``TRITON_INTERPRET=1``: CI, and
machines without a GPU), so interpreted cuda gives the GPU's results, not merely close ones.

- **float32 -> bfloat16 rounds to nearest even.** The interpreter truncates (it drops the low 16
  bits: ``0.1`` becomes ``0.099609375``), while the GPU converts with ``cvt.rn.bf16.f32``, round
  to nearest even (``0.10009765625``), as PyTorch and the numpy twins (ml_dtypes) do. Every bf16
  result of an interpreted kernel was one step low about half the time.
- **bfloat16 -> float32/float64 keeps subnormals.** The interpreter's conversion rebuilds the
  value from its exponent and mantissa fields and gets subnormal bf16 wrong (``1e-39`` became
  ``4.4e-39``, ``9.2e-41`` became 0), where the GPU's conversion is exact: the bf16 bits are the
  high half of the float32's.

(libdevice calls in the interpreter are handled in ``elementwise/libdevice.py``.)
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

_BF16 = np.dtype(ml_dtypes.bfloat16)


def install() -> None:
    """Patch Triton's interpreter builder (once per process)."""
    import triton.language as tl
    from triton.runtime import interpreter as interp

    builder = interp.InterpreterBuilder
    if getattr(builder, "_tensorlab_fixes", False):
        return
    truncating_cast = builder.cast_impl

    def cast_impl(self, src, dst_type):
        if dst_type.scalar == tl.bfloat16 and src.dtype.scalar == tl.float32:
            # the interpreter holds bf16 as its uint16 bits
            return interp.TensorHandle(src.data.astype(_BF16).view(np.uint16), dst_type.scalar)
        if src.dtype.scalar == tl.bfloat16 and dst_type.scalar in (tl.float32, tl.float64):
            wide = (src.data.astype(np.uint32) << 16).view(np.float32)
            return interp.TensorHandle(wide.astype(np.float64) if dst_type.scalar == tl.float64 else wide,
                                       dst_type.scalar)
        return truncating_cast(self, src, dst_type)

    builder.cast_impl = cast_impl  # every fp cast (fp_trunc, fp_to_fp without a mode...) goes through it
    builder._tensorlab_fixes = True
