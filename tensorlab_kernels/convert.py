"""PyTorch's dtype conversion inside a kernel, shared by every kernel that converts a value.

``x.to(ty)`` as PyTorch converts (c10's ``static_cast_with_inter_type`` and its half casts), where
a direct Triton cast differs:

- to float16/bfloat16 from fp64 or an integer, through fp32 (the interpreter also gets the direct
  fp64/int -> bf16 cast wrong);
- to uint8 from a float, through int64, so a negative value wraps: -3.7 gives 253, where the GPU's
  direct conversion saturates to 0 (numpy, hence the interpreter and the twins, wraps as well).
"""

from __future__ import annotations

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
