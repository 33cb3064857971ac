"""nn.functional activations, with ``torch.nn.functional``'s signatures.

Most are the registered elementwise ops of ``tensorlab.ops.elementwise_unary`` (their public
functions already take ``inplace=`` and map it to the in-place op), re-exported here; ``relu`` and
``selu`` add ``inplace=`` to ``torch.relu``/``torch.selu``, which take none. The rest
are thin compositions of registered ops: ``celu``, ``prelu``, ``rrelu``, ``softmin``, ``logsigmoid``,
``softsign``, ``tanhshrink``, ``threshold``, ``hardshrink``, ``softshrink``, ``glu``;
``softmax``/``log_softmax`` take PyTorch's ``_stacklevel`` and ``dtype`` arguments;
``gumbel_softmax`` samples its Gumbel noise from tensorlab's generator as PyTorch does
(``-log(Exp(1))``), so ``manual_seed`` makes it reproducible.
"""

from __future__ import annotations

import numbers
import warnings

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor, need_tensor, tensor_method
from ...amp.autocast_mode import autocast_op
from ...autograd.function import Function
from ...ops import elementwise_common as E
from ...ops.elementwise_unary import (
    elu,
    elu_,
    gelu,
    hardsigmoid,
    hardswish,
    hardtanh,
    hardtanh_,
    leaky_relu,
    leaky_relu_,
    log_sigmoid,
    mish,
    relu6,
    relu_,
    selu_,
    silu,
    softplus,
)
from ...ops.elementwise_unary import relu as _relu
from ...ops.elementwise_unary import selu as _selu
from ...ops.reductions import implicit_softmax_dim as _implicit_dim
from ...ops.reductions import log_softmax as _log_softmax
from ...ops.reductions import softmax as _softmax
from ...ops.zero_curvature import piecewise_linear_input


def _write_back(op: str, input: Tensor, result: Tensor) -> Tensor:
    """``inplace=True`` for a composed activation: copy the result into ``input`` (as PyTorch's
    in-place kernels do, autograd then sees a copy_ into the input)."""
    return input.copy_(result)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """``max(input, 0)``; ``inplace=True`` is ``relu_`` (``torch.relu`` itself takes no ``inplace``)."""
    return relu_(input) if inplace else _relu(input)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """``torch.selu`` with nn.functional's ``inplace``."""
    return selu_(input) if inplace else _selu(input)


def sigmoid(input: Tensor) -> Tensor:
    need_tensor("sigmoid", input)
    return input.sigmoid()


def tanh(input: Tensor) -> Tensor:
    need_tensor("tanh", input)
    return input.tanh()


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``exp(x) / sum(exp(x))`` along ``dim`` (``dtype``: convert the input first)."""
    need_tensor("softmax", input)
    return _softmax(input, _implicit_dim(input, dim, "softmax", _stacklevel), dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    need_tensor("log_softmax", input)
    return _log_softmax(input, _implicit_dim(input, dim, "log_softmax", _stacklevel), dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """``softmax(-x)`` along ``dim``."""
    need_tensor("softmin", input)
    return _softmax(-input, _implicit_dim(input, dim, "softmin", _stacklevel), dtype)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))`` = ``alpha * elu(x / alpha)``."""
    need_tensor("celu", input)
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: celu(): alpha must not be 0")
    if not input.dtype.is_floating_point:  # (PyTorch's celu runs its elu kernel)
        raise E.not_implemented_for("elu", input.dtype)
    if alpha == 1.0:
        # celu is elu here; elu's own in-place op saves its result for backward, whereas elu(input)
        # followed by a copy_ into input would overwrite the input elu saved (backward then fails)
        return elu(input, inplace=inplace)
    # PyTorch's elu kernel with input_scale 1 / alpha: x where x > 0 (untouched: alpha * elu(x / alpha)
    # overflowed x / alpha and rounded x twice), alpha * expm1(x / alpha) elsewhere, in float32 for
    # float16/bfloat16 (rounded once); the branch follows the sign of x, whatever alpha's sign
    from ... import where
    from ...ops.elementwise_unary import expm1

    x = input if input.dtype is D.float32 or input.dtype is D.float64 else input.float()
    # (a nan takes the positive branch: its gradient is 1, as PyTorch's; so does a zero, where both
    # branches give the same signed zero, so that its second derivative is 0 as PyTorch's, not 1 / alpha)
    neg = x < 0
    result = where(neg, expm1(where(neg, x, 0.0) * (1.0 / alpha)) * alpha, x)
    result = result if result.dtype is input.dtype else result.to(input.dtype)
    return _write_back("celu", input, result) if inplace else result


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


@autocast_op("prelu")
@tensor_method
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` has 1 element or one per channel (dim 1)."""
    from ... import where

    need_tensor("prelu", input)
    if not isinstance(weight, Tensor):
        raise TypeError(f"prelu(): argument 'weight' (position 2) must be Tensor, not {type(weight).__name__}")
    if weight.dtype is not input.dtype:  # (PyTorch's; a module left in float64 computed in the input's dtype)
        raise RuntimeError(f"prelu: Type promoting not supported. Got {D.torch_name(input.dtype)} and "
                           f"{D.torch_name(weight.dtype)}")
    n = weight.numel()
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    if n == 1:
        w = weight.reshape(())
    else:
        if input.ndim == 0:
            raise RuntimeError("prelu: Not allow zero-dim input tensor.")
        # PyTorch's channel dim is dim 1; a 1-D input has one channel (its weight must have 1 element)
        cdim = 1 if input.ndim >= 2 else 0
        channels = input._shape[1] if input.ndim >= 2 else 1
        if n != channels:
            raise RuntimeError(f"prelu: Mismatch of parameter numbers and input channel size. Found parameter "
                               f"numbers = {n} and channel size = {channels}.")
        shape = [1] * input.ndim
        shape[cdim] = n
        w = weight.reshape(shape)
    if not input.dtype.is_floating_point:  # PyTorch's prelu kernels are floating only (after the shape checks)
        raise E.not_implemented_for("prelu", input.dtype)
    x = piecewise_linear_input(input)
    return where(x > 0, x, w * x)


def logsigmoid(input: Tensor, *, out=None) -> Tensor:
    """``log(sigmoid(x)) = min(x, 0) - log1p(e ** -|x|)``, its own kernel: exact in both tails
    (``-softplus(-x)`` returned ``x`` itself below -20, softplus's threshold, so float64 lost
    ``-e ** x`` there)."""
    need_tensor("logsigmoid", input)
    _float_only("logsigmoid", input)
    out = E.exact_out("log_sigmoid_forward", out, input, input)  # (of input's dtype exactly, as PyTorch)
    result = log_sigmoid(input)
    return result if out is None else E.write_out(result, out)


def softsign(input: Tensor) -> Tensor:
    """``x / (1 + |x|)``."""
    need_tensor("softsign", input)
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """``x - tanh(x)``."""
    need_tensor("tanhshrink", input)
    return input - input.tanh()


def _number(op: str, name: str, x):
    """A Python number (a 0-d tensor's value, as PyTorch's Scalar arguments take one)."""
    if isinstance(x, Tensor) and x.ndim == 0:
        x = x.item()
    return E.as_operand(op, x, name)


def _largest_at_most(t: float, dtype: D.dtype) -> float:
    """The largest ``dtype`` (float16/bfloat16) value <= float32(t), nan for nan: for a value ``x``
    of that dtype, ``x <= t`` in float32 (PyTorch's threshold test) is ``x <= it`` in the dtype."""
    t32 = np.float32(t)
    with np.errstate(over="ignore"):
        h = np.array(t32).astype(dtype.np)  # the nearest (inf beyond the dtype's range)
    if not np.float32(h) > t32:
        return float(h)
    bits = int(h.view(np.uint16))  # the next value toward -inf: one step in the magnitude bits
    return float(np.array(bits - 1 if bits < 0x8000 else bits + 1, dtype=np.uint16).view(dtype.np))


def _threshold(input: Tensor, threshold: float, value: float, inplace: bool) -> Tensor:
    """PyTorch's threshold kernel: ``x <= threshold ? value : x`` in the input's dtype, ``value``
    converted to it (with PyTorch's overflow check) and ``threshold`` to its compute type: the
    dtype for integers (truncated: threshold(int16, -0.5, -1.0) tests x <= 0), float32 unrounded
    for float16/bfloat16."""
    from ... import where

    need_tensor("threshold", input)
    threshold, value = _number("threshold", "threshold", threshold), _number("threshold", "value", value)
    dtype = input.dtype
    if dtype is D.bool:
        raise E.not_implemented_for("threshold", dtype)
    if dtype.is_floating_point:
        E.check_scalars_fit("threshold", dtype, value)
        if dtype is not D.float64:
            E.check_scalars_fit("threshold", D.float32, threshold)
        if dtype is D.float16 or dtype is D.bfloat16:
            threshold = _largest_at_most(threshold, dtype)
    else:
        E.check_scalars_fit("threshold", dtype, threshold, value)
        threshold, value = int(threshold), int(value)
    # PyTorch's test is `x <= threshold`: a NaN stays NaN and passes its gradient
    x = input if inplace else piecewise_linear_input(input)
    result = where(x <= threshold, value, x)
    return _write_back("threshold", input, result) if inplace else result


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value``."""
    return _threshold(input, threshold, value, inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _threshold(input, threshold, value, True)


def _float_only(op: str, input: Tensor) -> None:
    """PyTorch's kernels of the shrinks and logsigmoid are floating only (``hardshrink`` of an int
    tensor raises)."""
    if not input.dtype.is_floating_point:
        raise E.not_implemented_for(op, input.dtype)


@tensor_method
def hardshrink(input: Tensor, lambd: float = 0.5, *, out=None) -> Tensor:
    """``x`` where ``|x| > lambd``, else 0."""
    from ... import where

    need_tensor("hardshrink", input)
    _float_only("hardshrink", input)
    # PyTorch's rule, 0 where -lambd <= x <= lambd: a NaN x (its gradient there is 0 or 1 depending on
    # PyTorch's vectorised or scalar path; 1 here) or a NaN lambd keeps x
    out = E.exact_out("hardshrink", out, input, input)
    x = piecewise_linear_input(input)
    result = where((x >= -lambd) & (x <= lambd), 0.0, x)
    return result if out is None else E.write_out(result, out)


def softshrink(input: Tensor, lambd: float = 0.5, *, out=None) -> Tensor:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    from ... import where

    need_tensor("softshrink", input)
    _float_only("softshrink", input)
    top = float(D.float_info(input.dtype).max)
    if not 0 <= lambd <= top:  # (a NaN fails too)
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {D.torch_name(input.dtype)}, but "
                           f"found {lambd:g}")
    out = E.exact_out("softshrink", out, input, input)
    # PyTorch's x * 0 in the middle: a NaN stays NaN (gradient 0, as for hardshrink)
    x = piecewise_linear_input(input)
    result = where(x > lambd, x - lambd, where(x < -lambd, x + lambd, input.detach() * 0))
    return result if out is None else E.write_out(result, out)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU (Xu et al.): ``x`` where positive, ``a * x`` elsewhere, with ``a`` drawn
    from U(lower, upper) for each element in training (the gradient there is ``a``, 1 above 0), and
    ``leaky_relu`` with the slope ``(lower + upper) / 2`` otherwise, as PyTorch."""
    from ... import where

    need_tensor("rrelu", input)
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if not training:
        return leaky_relu(input, (lower + upper) / 2, inplace)
    if not input.dtype.is_floating_point:  # (PyTorch's message: its kernel is leaky_relu's)
        raise NotImplementedError(f'"leaky_relu_cpu" not implemented for \'{D.torch_name(input.dtype)}\'')
    noise = where(input.detach() <= 0, input.detach().new_empty(input.shape).uniform_(lower, upper), 1.0)
    if inplace:
        return _write_back("rrelu", input, input * noise)
    return piecewise_linear_input(input) * noise


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, inplace=True)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """``a * sigmoid(b)`` with ``a, b`` the two halves of ``input`` along ``dim``."""
    need_tensor("glu", input)
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if not isinstance(dim, numbers.Integral):
        raise TypeError(f"glu(): dim must be an int, got {type(dim).__name__}")
    d = dim % input.ndim if -input.ndim <= dim < input.ndim else None
    if d is None:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-input.ndim}, {input.ndim - 1}], "
                         f"but got {dim})")
    size = input._shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    _float_only("glu", input)  # (PyTorch's glu kernels are floating only: an integer input raised nothing here)
    a, b = input.narrow(d, 0, size // 2), input.narrow(d, size // 2, size // 2)
    if input.dtype in (D.float16, D.bfloat16):
        return _GluReduced.apply(a, b)
    return a * b.sigmoid()


class _GluReduced(Function):
    """glu of float16/bfloat16 halves as PyTorch's (CPU) kernels: the forward ``a * sigmoid(b)`` in float32,
    rounded once (a float16 sigmoid(-20) is 0: 65504 * it was 0, inf * it NaN, not 1.35e-4 and inf);
    the backward from ``sig = sigmoid(b)`` rounded to the dtype, ``da = sig * g`` and
    ``db = (1 - sig) * sig * a * g`` each in float32, rounded once."""

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return (a.float() * b.float().sigmoid()).to(a.dtype)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        sig = b.float().sigmoid().to(b.dtype).float()
        g = g.float()
        da = (sig * g).to(a.dtype) if ctx.needs_input_grad[0] else None
        db = ((1 - sig) * sig * a.float() * g).to(b.dtype) if ctx.needs_input_grad[1] else None
        return da, db


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax (concrete) distribution: ``softmax((logits + g) / tau)`` along
    ``dim`` with ``g`` i.i.d. Gumbel(0, 1). ``hard=True``: the one-hot of the sample's argmax in the
    forward pass, the soft sample's gradient in the backward (straight-through:
    ``y_hard - y_soft.detach() + y_soft``). ``eps`` is unused (deprecated, as in PyTorch)."""
    from ... import empty_like, zeros_like

    if not isinstance(logits, Tensor):
        raise TypeError(f"gumbel_softmax(): argument 'logits' (position 1) must be Tensor, not "
                        f"{type(logits).__name__}")
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -empty_like(logits).exponential_().log()  # ~Gumbel(0, 1)
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft  # the reparameterisation trick
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


__all__ = [
    "celu", "celu_", "elu", "elu_", "gelu", "glu", "gumbel_softmax", "hardshrink", "hardsigmoid", "hardswish",
    "hardtanh", "hardtanh_",
    "leaky_relu", "leaky_relu_", "log_softmax", "logsigmoid", "mish", "prelu", "relu", "relu6", "relu_", "rrelu",
    "rrelu_", "selu",
    "selu_", "sigmoid", "silu", "softmax", "softmin", "softplus", "softshrink", "softsign", "tanh", "tanhshrink",
    "threshold", "threshold_",
]
