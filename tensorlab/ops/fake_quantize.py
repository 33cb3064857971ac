"""Fake quantisation, as quantization-aware training calls it: ``fake_quantize_per_tensor_affine``
and ``fake_quantize_per_channel_affine`` (no OpDef: registered elementwise ops inside a Function).

The value is ``(clamp(round(x * inv_scale) + zero_point, quant_min, quant_max) - zero_point) * scale``
with PyTorch's arithmetic, checked bit for bit against torch 2.15:

- the scale is rounded to float32 and ``inv_scale = 1 / scale`` is taken in float32;
- per tensor: ``x * inv_scale`` in the input's precision (float32 for float16/bfloat16), and the
  product with the scale in float32, rounded to the input's dtype;
- per channel: all in the input's precision (float32 for float16/bfloat16);
- rounding is half to even; per tensor a NaN lands on ``quant_min`` (PyTorch clamps with fmax/fmin), per
  channel every value int64 cannot hold does (NaN, +-inf: PyTorch converts to int64 first).

The gradient is the straight-through estimator: ``grad`` where ``round(x * inv_scale) + zero_point``
lies in ``[quant_min, quant_max]``, 0 elsewhere; scale and zero point get none (PyTorch refuses a
scale that requires grad).
"""

from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, need_tensor, norm_dim
from .._views import int_arg
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from . import elementwise_binary as B

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine"]

_FLOATS = (D.float32, D.float64, D.float16, D.bfloat16)


def _check_range(quant_min: int, quant_max: int) -> None:
    if quant_min > quant_max:
        raise RuntimeError(f"`quant_min` should be less than or equal to `quant_max` (got quant_min={quant_min}, "
                           f"quant_max={quant_max}).")


def _no_grad_qparam(op: str, scale) -> None:
    if isinstance(scale, Tensor) and scale.requires_grad and is_grad_enabled():
        raise RuntimeError(f"The function '{op}' is not differentiable with respect to argument 'scale'. This input "
                           "cannot have requires_grad True.")


def _quantize(x: Tensor, inv_scale, zero_point, quant_min: int, quant_max: int, as_int64: bool = False) -> Tensor:
    """``clamp(round(x * inv_scale) + zero_point)`` and whether it was in range before the clamp.
    ``as_int64``: PyTorch's per-channel kernel converts the rounded value to int64 first, and a value
    int64 cannot hold (NaN, +-inf, beyond 2**63) becomes INT64_MIN there: it lands on ``quant_min``."""
    q = (x * inv_scale).round() + zero_point
    if as_int64:
        q = B.where((q >= -2.0 ** 63) & (q < 2.0 ** 63), q, -float("inf"))
    in_range = (q >= quant_min) & (q <= quant_max)  # (False for NaN)
    q = B.where(q.isnan(), float(quant_min), q).clamp(quant_min, quant_max)
    return q, in_range


class _FakeQuantize(Function):
    """The forward value computed by ``compute(x)`` -> (value, in_range mask); backward ``g * mask``."""

    @staticmethod
    def forward(ctx, x, compute):
        out, in_range = compute(x)
        ctx.save_for_backward(in_range)
        return out

    @staticmethod
    def backward(ctx, g):
        (in_range,) = ctx.saved_tensors
        return g * in_range.to(g.dtype), None


def fake_quantize_per_tensor_affine(input: Tensor, scale, zero_point, quant_min: int, quant_max: int) -> Tensor:
    """Quantise ``input`` to the integers ``[quant_min, quant_max]`` with one ``scale`` and ``zero_point``
    (numbers, or one-element tensors) and back to its dtype; the gradient passes where the value
    was in range."""
    op = "fake_quantize_per_tensor_affine"
    need_tensor(op, input)
    if input.dtype not in _FLOATS:
        raise NotImplementedError(f"{op}: \"fake_quantize_tensor_cachemask_kernel_type_handling\" not implemented "
                                  f"for '{D.torch_name(input.dtype)}'")
    # PyTorch's parser takes only ints here: a float or bool zero point or bound is a TypeError, not truncated
    quant_min, quant_max = int_arg(op, "quant_min", quant_min), int_arg(op, "quant_max", quant_max)
    if not isinstance(zero_point, Tensor):
        zero_point = int_arg(op, "zero_point", zero_point)
    for name, v in (("scale", scale), ("zero_point", zero_point)):
        if isinstance(v, Tensor) and v.numel() != 1:
            raise RuntimeError(f"{op}: a Tensor with {v.numel()} elements cannot be converted to Scalar ({name})")
    _no_grad_qparam(op, scale)
    scale = float(scale.item()) if isinstance(scale, Tensor) else float(scale)
    zero_point = int(zero_point.item()) if isinstance(zero_point, Tensor) else int(zero_point)
    _check_range(quant_min, quant_max)
    if not quant_min <= zero_point <= quant_max:
        raise RuntimeError(f"`zero_point` must be between `quant_min` and `quant_max` (got zero_point={zero_point}, "
                           f"quant_min={quant_min}, quant_max={quant_max}).")
    scale32 = np.float32(scale)
    with np.errstate(divide="ignore", over="ignore"):
        inv_scale = float(np.float32(1.0) / scale32)  # (exact as a Python float)
    dtype = input.dtype

    def compute(x):
        xc = x if dtype == D.float64 else x.to(D.float32)
        q, in_range = _quantize(xc, inv_scale, zero_point, quant_min, quant_max)
        return ((q - zero_point).to(D.float32) * float(scale32)).to(dtype), in_range

    if input.requires_grad and is_grad_enabled():
        return _FakeQuantize.apply(input, compute)
    return compute(input)[0]


def fake_quantize_per_channel_affine(input: Tensor, scale: Tensor, zero_point: Tensor, axis: int, quant_min: int,
                                     quant_max: int) -> Tensor:
    """Quantise ``input`` per slice along ``axis`` with the 1-D float32 ``scale`` and int32
    ``zero_point`` (one per slice) and back to its dtype; the gradient passes where the value was
    in range."""
    op = "fake_quantize_per_channel_affine"
    need_tensor(op, input)
    need_tensor(op, scale, "scale", 2)
    need_tensor(op, zero_point, "zero_point", 3)
    axis, quant_min, quant_max = (int_arg(op, "axis", axis), int_arg(op, "quant_min", quant_min),
                                  int_arg(op, "quant_max", quant_max))
    if input.dtype not in _FLOATS:
        raise NotImplementedError(f"{op}: \"fake_quantize_channel_cachemask_cpu_type_handling\" not implemented for "
                                  f"'{D.torch_name(input.dtype)}'")
    if scale.dtype not in (D.float32, D.bfloat16):
        raise RuntimeError(f"{op}: Scale must be Float or BFloat16, found {D.torch_name(scale.dtype)}")
    if zero_point.dtype != D.int32:
        if zero_point.dtype in (D.float32, D.float16):  # PyTorch rounds differently then; not done here
            raise NotImplementedError(f"{op}: a floating-point zero_point ({D.torch_name(zero_point.dtype)}) is not "
                                      "supported; pass an int32 zero_point")
        raise RuntimeError(f"{op}: Zero-point must be Int32, Float or Half, found {D.torch_name(zero_point.dtype)}")
    _no_grad_qparam(op, scale)
    if input.ndim == 0:
        raise IndexError(f"{op}: Dimension specified as {axis} but tensor has no dimensions")
    # (checked in range first, as PyTorch wraps it: a negative axis in range is refused below, one out of range here)
    norm_dim(axis, input.ndim, op)
    if scale.ndim != 1:
        raise RuntimeError(f"{op}: scale should be a 1-D tensor (got {scale.ndim}-D)")
    if zero_point.ndim != 1:
        raise RuntimeError(f"{op}: zero point should be a 1-D tensor (got {zero_point.ndim}-D)")
    if scale.numel() != zero_point.numel():
        raise RuntimeError(f"{op}: scale and zero-point need to have the same dimensions (got {scale.numel()} and "
                           f"{zero_point.numel()})")
    if axis < 0:
        raise RuntimeError(f"{op}: `axis` must be between 0 and number of dimensions of input (got {axis})")
    if scale.numel() != input.shape[axis]:
        raise RuntimeError(f"{op}: dimensions of scale and zero-point are not consistent with input tensor "
                           f"({scale.numel()} values for size {input.shape[axis]} along axis {axis})")
    _check_range(quant_min, quant_max)
    if zero_point.numel() and not bool(((zero_point >= quant_min) & (zero_point <= quant_max)).all()):
        raise RuntimeError(f"{op}: `zero_point` must be between `quant_min` and `quant_max` (quant_min={quant_min}, "
                           f"quant_max={quant_max}).")
    dtype = input.dtype
    compute_dtype = D.float64 if dtype == D.float64 else D.float32
    along = [1] * input.ndim
    along[axis] = -1
    scale32 = scale.detach().to(D.float32)
    inv_scale = (1.0 / scale32).to(compute_dtype).reshape(along)  # 1/scale in float32, as PyTorch's
    scale_c = scale32.to(compute_dtype).reshape(along)
    zp = zero_point.to(compute_dtype).reshape(along)

    def compute(x):
        q, in_range = _quantize(x.to(compute_dtype), inv_scale, zp, quant_min, quant_max, as_int64=True)
        return ((q - zp) * scale_c).to(dtype), in_range

    if input.requires_grad and is_grad_enabled():
        return _FakeQuantize.apply(input, compute)
    return compute(input)[0]
