"""Fill any strided view with one value (``full``, ``ones``, ``fill_``, ``zero_``).

Floating values travel as the bit pattern of an fp64 (an int64 argument), so neither the GPU
(which types a Python float argument fp32) nor the interpreter rounds them before the store
converts to the output's dtype; integer and bool values as an integer argument. Contiguous
zero fills skip the kernel: a ``memset``.
"""

from __future__ import annotations

import numpy as np

from . import runtime as rt
from ._triton import tl, triton
from .launch import INTERPRET, cdiv, launch, needs_int64
from .strided import offsets, strided_layout

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _fill_body(dst_ptr, value, n, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5,
               NDIM: tl.constexpr, CONTIGUOUS: tl.constexpr, INT64: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if INT64:
        idx = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    else:
        idx = pid * BLOCK + tl.arange(0, BLOCK)
    mask = idx < n
    ty = dst_ptr.dtype.element_ty
    if ty.is_fp16() or ty.is_bf16():
        value = tl.cast(value, tl.float32)  # double -> float -> half, as PyTorch converts scalars
    v = tl.cast(value, ty)  # a scalar; the store broadcasts it
    if CONTIGUOUS:
        tl.store(dst_ptr + idx, v, mask=mask)
    else:
        off = offsets(idx, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5, NDIM)
        tl.store(dst_ptr + off, v, mask=mask)


@triton.jit
def _fill_float_kernel(dst_ptr, value_bits: tl.int64, n, size1, size2, size3, size4, size5,
                       st0, st1, st2, st3, st4, st5,
                       NDIM: tl.constexpr, CONTIGUOUS: tl.constexpr, INT64: tl.constexpr, BLOCK: tl.constexpr):
    # The fp64 value arrives as its bit pattern: exact on the GPU and in the interpreter alike.
    value = tl.cast(value_bits, tl.int64).to(tl.float64, bitcast=True)
    _fill_body(dst_ptr, value, n, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5,
               NDIM, CONTIGUOUS, INT64, BLOCK)


@triton.jit
def _fill_int_kernel(dst_ptr, value: tl.int64, n, size1, size2, size3, size4, size5,
                     st0, st1, st2, st3, st4, st5,
                     NDIM: tl.constexpr, CONTIGUOUS: tl.constexpr, INT64: tl.constexpr, BLOCK: tl.constexpr):
    _fill_body(dst_ptr, value, n, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5,
               NDIM, CONTIGUOUS, INT64, BLOCK)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------

CONFIGS = [{"BLOCK": b, "num_warps": w} for b, w in ((1024, 4), (2048, 8), (4096, 8))]


def fill(out, value) -> None:
    """Set every element of the DeviceArray ``out`` to ``value`` (converted to its dtype)."""
    if out.numel == 0:
        return
    if value == 0 and out.is_contiguous() and not (isinstance(value, float) and np.signbit(value)):
        rt.memset(out.storage, out.offset * out.itemsize, 0, out.numel * out.itemsize)
        return
    floating = out.dtype.kind == "f" or out.dtype.name == "bfloat16"
    kernel = _fill_float_kernel if floating else _fill_int_kernel
    value = stored_float_bits(value, out.dtype) if floating else int_value(value, out.dtype)
    config = {"BLOCK": 8192 if INTERPRET else 1024, "num_warps": 4}
    int64 = needs_int64(out)
    for p in strided_layout(out.shape, out.strides, memory_order=True):
        launch(kernel, (cdiv(p.numel, config["BLOCK"]),), out.view(out.shape, out.strides, out.offset + p.offsets[0]),
               value, p.numel, *p.sizes[1:], *p.strides[0], NDIM=p.ndim, CONTIGUOUS=p.contiguous(0), INT64=int64,
               **config)


def int_value(value, dtype: np.dtype) -> int:
    """A number as the int64 argument of a kernel that fills an integer or bool ``dtype``: truncated,
    or for bool its truthiness, as a cast to bool (0.5, inf and NaN are True)."""
    return int(value != 0) if dtype.kind == "b" else int(value)


def float64_bits(value: float) -> int:
    """The IEEE-754 bits of ``value`` as a signed int64 (decoded in-kernel with a bitcast)."""
    return int(np.array(float(value), dtype=np.float64).view(np.int64))


def stored_float_bits(value, dtype: np.dtype) -> int:
    """:func:`float64_bits` of a number a kernel converts to the floating ``dtype`` (or computes with
    in it). An integer float32 cannot hold exactly is rounded to float32 here, once, as PyTorch
    converts an int64 number: through a double it would round twice (2**62 + 2**38 + 1 would become
    2**62 instead of 2**62 + 2**39). float16/bfloat16 take that float32, as PyTorch's conversions do."""
    if dtype.itemsize <= 4 and isinstance(value, int | np.integer) and not -(1 << 24) <= value <= 1 << 24:
        value = float32_of_int(value)
    return float64_bits(value)


def float32_of_int(value) -> float:
    """An integer rounded to float32 once (int64 values; beyond, through a double)."""
    if -(1 << 63) <= value < 1 << 63:
        return float(np.array(int(value), dtype=np.int64).astype(np.float32))
    return float(np.float32(float(value)))


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def fill_twin(out: np.ndarray, value) -> None:
    with np.errstate(invalid="ignore", over="ignore"):
        v = np.asarray(value)
        if out.dtype.itemsize == 2 and (out.dtype.kind == "f" or out.dtype.name == "bfloat16"):
            v = v.astype(np.float32)
        out[...] = v.astype(out.dtype)
