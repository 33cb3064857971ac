"""PyTorch's dtype conversion inside a kernel, shared by every kernel that converts a value.

``x.to(ty)`` as PyTorch converts (c10's ``static_cast_with_inter_type`` and its half casts), where
a direct Triton cast differs:

- to float16/bfloat16 from fp64 or an integer, through fp32 (the interpreter also gets the direct
  fp64/int -> bf16 cast wrong);
- to uint8 from a float, through int64, so a negative value wraps: -3.7 gives 253, where the GPU's
  direct conversion saturates to 0. numpy's own float -> uint8 ``astype`` goes through int32 on x86
  (3000000007.0 gives 0, PyTorch 7) and saturates on Arm, so the numpy twins take the same int64
  step (:func:`host_steps`).
"""

from __future__ import annotations

import numpy as np

from ._triton import tl, triton


@triton.jit
def cast_to(x, ty: tl.constexpr):
    """``x`` converted to ``ty`` as PyTorch converts (see the module docstring); to bool: ``x != 0``."""
    if ty.is_fp16() or ty.is_bf16():
        if not (x.dtype.is_fp16() or x.dtype.is_bf16() or x.dtype.is_fp32()):
            x = x.to(tl.float32)
    if ty == tl.uint8 and x.dtype.is_floating():
        x = x.to(tl.int64)
    return x.to(ty)


def host_steps(x: np.ndarray, dtype) -> np.ndarray:
    """``x`` after the intermediate conversions :func:`cast_to` makes on its way to ``dtype``, for the
    numpy twins (which then cast with ``astype`` or an unsafe ``copyto``): fp64/int/bool... to a half
    type through fp32, and a float to uint8 through int64 (invalid values ignored: NaN and values
    beyond int64 become what C's conversion gives, as in PyTorch on x86)."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 2 and dtype.kind in "fV":
        if x.dtype.itemsize != 2 and x.dtype != np.bool_:
            return x.astype(np.float32)
    elif dtype == np.uint8 and (x.dtype.kind == "f" or (x.dtype.kind == "V" and x.dtype.itemsize == 2)):
        with np.errstate(invalid="ignore", over="ignore"):
            return x.astype(np.int64)
    return x
