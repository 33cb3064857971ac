"""Unary elementwise ops and activations: declarations, backward rules, public functions and methods.

All run on ``tensorlab_kernels.elementwise.unary`` (one generic strided kernel, the op a
compile-time constant). Dtype rules (PyTorch's):

- floating math (``exp``, ``sin``, ``sigmoid``, ...) of integer or bool inputs gives the default
  float dtype;
- ``neg``, ``abs``, ``sign``, ``square``, rounding, ``relu``/``hardtanh`` keep the dtype (rounding an
  integer is a copy); ``neg``/``abs`` of bool are errors, as in PyTorch;
- the nn activations (``gelu``, ``silu``, ``elu``, ...) and ``frac`` need a floating input;
- predicates (``isnan``, ``logical_not``, ...) give bool; ``bitwise_not`` needs integers or bool.

The activations are plain functions with ``torch.nn.functional``'s signatures (``inplace=``), so
``tensorlab.nn.functional`` can re-export them unchanged.
"""

from __future__ import annotations

import builtins
import math

import numpy as np

from tensorlab_kernels.elementwise import unary as ku

from .. import _dtype as D
from .._dispatch import dispatch
from .._registry import Plan, defop
from .._tensor import Tensor, need_tensor, tensor_method
from .._views import int_arg
from . import elementwise_common as E
from .elementwise_binary import THRESHOLD_BACKWARD, where
from .zero_curvature import gradient_depending_on

_FLOAT = "float"  # integer/bool input -> default float
_SAME = "same"  # dtype kept
_SAME_NO_BOOL = "same_no_bool"  # dtype kept, bool is an error
_FLOAT_ONLY = "float_only"  # floating input only
_BOOL = "bool"  # bool result
_BITS = "bits"  # integer or bool input only
_SQUARE = "square"  # dtype kept; bool -> int64 (PyTorch's square is pow(x, 2))

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2.0
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
_SQRT1_2 = math.sqrt(0.5)
_GELU_BETA = math.sqrt(2.0 / math.pi)
_GELU_KAPPA = 0.044715
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _result(name: str, kind: str, dtype: D.dtype) -> tuple[D.dtype, str]:
    """(result dtype, compute type) of the unary op ``name`` on an input of ``dtype``."""
    if kind == _FLOAT:
        out = E.float_result(dtype)
        return out, E.ct(out)
    if kind == _BOOL:
        return D.bool, E.ct(dtype)
    if kind == _SQUARE and dtype is D.bool:
        return D.int64, "int64"
    if kind == _FLOAT_ONLY and not dtype.is_floating_point:
        raise E.not_implemented_for(name, dtype)
    if kind == _SAME_NO_BOOL and dtype is D.bool:
        if name == "neg":
            raise NotImplementedError(_NEG_BOOL)
        if name == "hardtanh":  # PyTorch's own check (TORCH_CHECK_NOT_IMPLEMENTED; relu6 is hardtanh too)
            raise NotImplementedError("hardtanh(): Bool inputs not supported for hardtanh")
        if name == "relu":
            raise NotImplementedError("relu(): Boolean inputs not supported for relu")
        raise E.not_implemented_for(name, dtype)
    if kind == _BITS and dtype.is_floating_point:
        raise E.not_implemented_for(name, dtype)
    return dtype, E.ct(dtype)


def _unary_meta(name: str, kind: str, kernel_args):
    """meta: ``kernel_args(x, **params) -> (kernel op, kernel params)`` picks the kernel's op."""

    def meta(x, **params) -> Plan:
        out, compute = _result(name, kind, x.dtype)
        kop, kparams = kernel_args(x, **params)
        return Plan(args=[x], outputs=[E.output_spec(x._shape, out, (x,))],
                    params={"op": kop, "ct": compute, "params": kparams})

    def float_meta(x, **params) -> Plan:
        out, compute = _result(name, kind, x.dtype)
        kop, kparams = kernel_args(x, **params)
        params = {"op": kop, "ct": compute, "params": kparams}
        if out is not x.dtype and (out is D.float16 or out is D.bfloat16):
            # an integer input of a float16/bfloat16 default dtype: PyTorch converts it to that first
            params["rnd"] = out.name
        return Plan(args=[x], outputs=[E.output_spec(x._shape, out, (x,))], params=params)

    return float_meta if kind == _FLOAT else meta


def _plain(name):
    def kernel_args(x):
        return name, ()

    return kernel_args


def _save_input(ctx, inputs, outputs, params):
    ctx.save_for_backward(inputs[0])


def _save_output(ctx, inputs, outputs, params):
    ctx.save_for_backward(outputs[0])


def _save_input_unless_inplace(ctx, inputs, outputs, params):
    """PyTorch's rule for elu, selu, leaky_relu and hardtanh: (input, None) out of place, so the
    result may be modified in place afterwards; (None, output) in place, where the old input is gone
    (hardtanh_ under autograd runs out of place on a clone of self, see _run_, so saves the clone)."""
    x, y = inputs[0], outputs[0]
    if x._storage is y._storage:
        ctx.save_for_backward(None, y)
    else:
        ctx.save_for_backward(x, None)


_REGISTRY: dict[str, tuple] = {}  # public name -> (OpDef, needs the old input in backward)


def _declare(name, kind, backward=None, save=_save_input, kernel_args=None, needs_input=True, doc=""):
    op = defop(name, twin=ku.unary_twin, kernel=ku.unary, meta=_unary_meta(name, kind, kernel_args or _plain(name)),
               backward=backward, save=save if backward is not None else None, tags=E.TAGS, doc=doc)
    _REGISTRY[name] = (op, needs_input and backward is not None)
    return op


def _zeros_backward(ctx, g):
    from .._factories import zeros_like

    return (zeros_like(g),)


def _grad_on() -> bool:
    from ..autograd.grad_mode import is_grad_enabled

    return is_grad_enabled()


def _number(op: str, name: str, value):
    """A float parameter (nan_to_num's nan/posinf/neginf, logit's eps, the activations' slopes) as
    PyTorch's argument parser reads it: a number or a 0-d tensor (None stays None, for the optional
    ones); anything else is its TypeError, not float()'s ValueError."""
    return None if value is None else E.number_param(op, value, name, "float")


_NEG_BOOL = ("neg(): Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a "
             "mask, use the `~` or `logical_not()` operator instead.")

# PyTorch's unary ops that keep their input's dtype (built with TensorIterator's check_all_same_dtype)
# take an out= of exactly that dtype: neg(float32_t, out=float64_t) raises rather than casts, before
# the kernel is looked for (abs(bool_t, out=float_t) says so, not that abs has no bool kernel). Each
# with PyTorch's message (nan_to_num has its own check).
_SAME_DTYPE_OUT = {
    **{name: name + "(): Found dtype {out} but expected {input}"
       for name in ("neg", "abs", "sign", "floor", "ceil", "trunc", "round", "frac", "bitwise_not", "gelu",
                    "softplus")},
    "nan_to_num": "nan_to_num: dtype of out: {out} should be same as input: {input}",
}


def _run(name: str, input, out=None, **params):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if out is not None:
        E.check_out(name, out)
        if name == "neg" and input.dtype is D.bool:  # (neg's own check comes first in PyTorch, then out='s)
            raise NotImplementedError(_NEG_BOOL)
        if out.dtype is not input.dtype and name in _SAME_DTYPE_OUT:
            raise RuntimeError(_SAME_DTYPE_OUT[name].format(out=D.torch_name(out.dtype),
                                                            input=D.torch_name(input.dtype)))
    return dispatch(_REGISTRY[name][0], input, out=out, **params)


def _run_(name: str, self, **params):
    """In place. When the backward needs the old input, compute out of place from a clone and copy
    the result in (PyTorch saves a clone of ``self`` for such ops)."""
    if self.__class__ is not Tensor and not isinstance(self, Tensor):  # (tl.sin_(2): PyTorch's TypeError)
        need_tensor(name + "_", self)
    op, needs_input = _REGISTRY[name]
    if needs_input and self._requires_grad and _grad_on():
        return E.inplace_composite(name, lambda src: dispatch(op, src, **params), self)
    return dispatch(op, self, inplace=True, **params)


# ----------------------------------------------------------------------------------------------
# backward rules (x: the saved input, y: the saved output, g: the output's gradient)
# ----------------------------------------------------------------------------------------------


def _x(ctx):
    return ctx.saved_tensors[0]


def _opmath(t, g):
    """``t`` and ``g`` in float32 when they are float16/bfloat16: PyTorch's backward kernels of the
    smooth activations compute in float32 and round once, where a chain of half-precision ops
    rounds at every step (2-3x the error). Pair with :func:`_rounded`."""
    if g.dtype is D.float16 or g.dtype is D.bfloat16:
        return t.float(), g.float()
    return t, g


def _rounded(grad, g):
    """A gradient computed by :func:`_opmath` back in ``g``'s dtype."""
    return grad if grad.dtype is g.dtype else grad.to(g.dtype)


def _neg_backward(ctx, g):
    return (-g,)


def _abs_backward(ctx, g):
    return (g * sign(_x(ctx)),)


def _exp_backward(ctx, g):
    return (g * ctx.saved_tensors[0],)


def _exp2_backward(ctx, g):
    return (g * ctx.saved_tensors[0] * _LN2,)


def _expm1_backward(ctx, g):
    return (g * (ctx.saved_tensors[0] + 1),)


def _log_backward(ctx, g):
    return (g / _x(ctx),)


def _log2_backward(ctx, g):
    return (g / (_x(ctx) * _LN2),)


def _log10_backward(ctx, g):
    return (g / (_x(ctx) * _LN10),)


def _log1p_backward(ctx, g):
    return (g / (_x(ctx) + 1),)


def _sqrt_backward(ctx, g):
    return (g / (ctx.saved_tensors[0] * 2),)


def _rsqrt_backward(ctx, g):
    y = ctx.saved_tensors[0]
    return (g * (y * y * y) * -0.5,)


def _square_backward(ctx, g):
    return (g * _x(ctx) * 2,)


def _reciprocal_backward(ctx, g):
    y = ctx.saved_tensors[0]
    return (-g * (y * y),)


def _sin_backward(ctx, g):
    return (g * cos(_x(ctx)),)


def _cos_backward(ctx, g):
    return (-g * sin(_x(ctx)),)


def _tan_backward(ctx, g):
    y = ctx.saved_tensors[0]
    return (g * (y * y + 1),)


def _asin_backward(ctx, g):
    x = _x(ctx)
    return (g * rsqrt(1 - x * x),)


def _acos_backward(ctx, g):
    x = _x(ctx)
    return (-g * rsqrt(1 - x * x),)


def _atan_backward(ctx, g):
    x = _x(ctx)
    return (g / (x * x + 1),)


def _sinh_backward(ctx, g):
    return (g * cosh(_x(ctx)),)


def _cosh_backward(ctx, g):
    return (g * sinh(_x(ctx)),)


def _tanh_backward(ctx, g):
    y, gw = _opmath(ctx.saved_tensors[0], g)
    return (_rounded(gw * (1 - y * y), g),)


def _sigmoid_backward(ctx, g):
    y, gw = _opmath(ctx.saved_tensors[0], g)
    return (_rounded(gw * y * (1 - y), g),)


def _logit_backward(ctx, g):
    x = _x(ctx)
    # PyTorch: g * inf at exactly 0 and 1 (not g / -0.0 for a -0.0 input, so the zero is made +0.0).
    # No inf constant enters the graph: where's unselected branch would get 0 * inf = nan in a
    # double backward
    d = x * (1 - x)
    grad = g / where(d == 0, d.abs(), d)
    eps = ctx.params.get("eps")
    if eps is not None and eps >= 0:
        lo, hi = _logit_bounds(x.dtype, eps)
        grad = where((x < lo) | (x > hi), 0.0, grad)
    else:  # PyTorch: NaN outside [0, 1], where the formula would give a finite slope of a NaN result
        grad = where((x < 0) | (x > 1), float("nan"), grad)
    return (grad,)


def _erf_backward(ctx, g):
    x = _x(ctx)
    return (g * exp(-(x * x)) * _TWO_OVER_SQRT_PI,)


def _erfc_backward(ctx, g):
    x = _x(ctx)
    return (-g * exp(-(x * x)) * _TWO_OVER_SQRT_PI,)


def _asinh_backward(ctx, g):
    x = _x(ctx)
    return (g * rsqrt(x * x + 1),)


def _acosh_backward(ctx, g):
    x = _x(ctx)
    return (g * rsqrt(x * x - 1),)


def _atanh_backward(ctx, g):
    x = _x(ctx)
    return (g / (1 - x * x),)


def _erfinv_backward(ctx, g):
    # From the input, recomputing erfinv, as PyTorch (which saves self): the result may then be
    # modified in place
    y = dispatch(ERFINV, _x(ctx))
    return (g * exp(y * y) * _SQRT_PI_OVER_2,)


def _frac_backward(ctx, g):
    return (g,)


def _relu_backward(ctx, g):
    y = ctx.saved_tensors[0]
    # PyTorch's threshold_backward: 0 where result <= 0, so a NaN result passes the gradient (one launch)
    return (dispatch(THRESHOLD_BACKWARD, g, y),)


def _hardtanh_backward(ctx, g):
    x, y = ctx.saved_tensors
    v = x if x is not None else y  # the input, or in place the result: the same test on either
    lo, hi = ctx.params.get("min_val", -1.0), ctx.params.get("max_val", 1.0)
    # PyTorch's hardtanh_backward: 0 where v <= min_val or v >= max_val, so a NaN passes the gradient
    return (gradient_depending_on(where((v <= lo) | (v >= hi), 0.0, g), v),)


def _leaky_relu_backward(ctx, g):
    x, y = ctx.saved_tensors
    slope = ctx.params.get("negative_slope", 0.01)
    if x is None and slope >= 0:  # in place: the output has the input's sign
        return (gradient_depending_on(where(y > 0, g, g * slope), y),)
    if x is None:
        raise RuntimeError("leaky_relu_: In-place leakyReLu backward calculation is triggered with a negative slope "
                           "which is not supported. This is caused by calling in-place forward function with a "
                           "negative slope, please call out-of-place version instead.")
    return (gradient_depending_on(where(x > 0, g, g * slope), x),)


def _elu_backward(ctx, g):
    x, y = ctx.saved_tensors
    alpha = ctx.params.get("alpha", 1.0)
    # PyTorch's elu_backward tests `<= 0` (a NaN takes the positive branch's gradient)
    if x is not None:
        return (g * where(x <= 0, _exp_nonpositive(x) * alpha, 1.0),)
    if alpha >= 0:  # in place, for x <= 0: d/dx alpha * (e^x - 1) = y + alpha
        return (where(y <= 0, g * (_negative_part(y) + alpha), g),)
    raise RuntimeError("elu_: In-place elu backward calculation is triggered with a negative alpha, which is not "
                       "supported; call the out-of-place version instead.")


def _exp_nonpositive(x: Tensor) -> Tensor:
    """``exp(x)`` where ``x <= 0``, 1 elsewhere: the branch where() drops then stays finite (exp(710)
    is inf), so the gradient's own derivatives are not 0 * inf = NaN there. (The backward rules
    also multiply g by the selected partial, not each branch by g, for the same reason.) At x = 0
    the value is exp(0) as a constant: the second derivative there is 0, as PyTorch's."""
    return exp(where(x < 0, x, 0.0))


def _negative_part(y: Tensor) -> Tensor:
    """``y`` where ``y < 0``, 0 elsewhere: an in-place elu/selu's result read as its gradient's
    ``y + alpha``. At y = 0 (x = 0) the value is alpha as a constant, so the second derivative
    there is 0 as in the out-of-place rule (:func:`_exp_nonpositive`) and PyTorch, not alpha."""
    return where(y < 0, y, 0.0)


def _selu_backward(ctx, g):
    x, y = ctx.saved_tensors
    if x is not None:  # PyTorch's selu is elu(x, alpha, scale), which saves its input
        return (g * where(x <= 0, _exp_nonpositive(x) * (_SELU_SCALE * _SELU_ALPHA), _SELU_SCALE),)
    return (where(y <= 0, g * (_negative_part(y) + _SELU_SCALE * _SELU_ALPHA), g * _SELU_SCALE),)


def _gelu_backward(ctx, g):
    x = _x(ctx)
    if ctx.params.get("approximate", "none") == "tanh":
        # in float16, x * x overflows from |x| = 256 and the slope became 0 * inf = NaN (PyTorch: 1 or
        # 0); compute a float16/bfloat16 input's slope in float32, as PyTorch's kernel does
        low = x.dtype is D.float16 or x.dtype is D.bfloat16
        if low:
            x = x.float()
        x_sq = x * x
        inner = (x + x_sq * x * _GELU_KAPPA) * _GELU_BETA
        t = tanh(inner)
        left_derivative = (t + 1) * 0.5
        right_derivative = x * 0.5 * (1 - t * t) * _GELU_BETA * (x_sq * (3 * _GELU_KAPPA) + 1)
        grad = g * (left_derivative + right_derivative)
        return (grad.to(g.dtype) if low else grad,)
    x, gw = _opmath(x, g)
    cdf = (erf(x * _SQRT1_2) + 1) * 0.5
    pdf = exp(x * x * -0.5) * _INV_SQRT_2PI
    return (_rounded(gw * (cdf + x * pdf), g),)


def _silu_backward(ctx, g):
    x, gw = _opmath(_x(ctx), g)
    s = sigmoid(x)
    return (_rounded(gw * s * (x * (1 - s) + 1), g),)


def _mish_backward(ctx, g):
    x, gw = _opmath(_x(ctx), g)
    t = tanh(softplus(x))
    return (_rounded(gw * (t + x * sigmoid(x) * (1 - t * t)), g),)


def _softplus_backward(ctx, g):
    x = _x(ctx)
    beta, threshold = ctx.params.get("beta", 1.0), ctx.params.get("threshold", 20.0)
    z = x * beta
    # (at z == threshold the slope is sigmoid(threshold) as a constant: PyTorch's second derivative 0)
    return (g * where(z > threshold, 1.0, sigmoid(where(z >= threshold, threshold, z))),)  # (NaN: NaN)


def _hardsigmoid_backward(ctx, g):
    x = _x(ctx)
    return (where((x > -3.0) & (x < 3.0), g / 6.0, 0.0),)


def _hardswish_backward(ctx, g):
    x = _x(ctx)
    # PyTorch 2.13: 0 for x <= -3, the slope for -3 < x < 3, g from 3 on
    return (g * where(x <= -3.0, 0.0, where(x < 3.0, x / 3.0 + 0.5, 1.0)),)


def _nan_to_num_backward(ctx, g):
    return (where(isfinite(_x(ctx)), g, 0.0),)


# -- special functions (PyTorch's derivatives.yaml formulas; recomputed from the saved input, so the
# result may be modified in place afterwards) ----------------------------------------------------


def _lgamma_backward(ctx, g):
    return (g * digamma(_x(ctx)),)


def _digamma_backward(ctx, g):
    return (g * polygamma(1, _x(ctx)),)


def _polygamma_backward(ctx, g):
    return (g * polygamma(ctx.params["n"] + 1, _x(ctx)),)


def _i0_backward(ctx, g):
    return (g * dispatch(I1, _x(ctx)),)


def _i0e_backward(ctx, g):
    x = _x(ctx)
    return (g * (dispatch(I1E, x) - sign(x) * dispatch(I0E, x)),)


def _tiny_safe(x):
    """(|x| > eps, x with eps where it is not): PyTorch's i1/i1e backward evaluate 1/x away from 0
    and use the limit 0.5 at it (NaN counts as away from 0: its gradient is NaN)."""
    eps = float(D.float_info(x.dtype).eps)
    big = ~(x.abs() <= eps)
    return big, where(big, x, eps)


def _i1_backward(ctx, g):
    x = _x(ctx)
    big, safe = _tiny_safe(x)
    return (g * where(big, dispatch(I0, safe) - dispatch(I1, x) / safe, 0.5),)


def _i1e_backward(ctx, g):
    x = _x(ctx)
    big, safe = _tiny_safe(x)
    return (g * where(big, dispatch(I0E, safe) - dispatch(I1E, x) * (sign(safe) + 1 / safe), 0.5),)


def _erfcx_backward(ctx, g):
    x = _x(ctx)
    return (g * (x * dispatch(ERFCX, x) * 2 - _TWO_OVER_SQRT_PI),)


def _ndtr_backward(ctx, g):
    x = _x(ctx)
    return (g * exp(x * x * -0.5) * _INV_SQRT_2PI,)


def _ndtri_backward(ctx, g):
    y = dispatch(NDTRI, _x(ctx))
    return (g * exp(y * y * 0.5) * _SQRT_2PI,)


def _log_ndtr_backward(ctx, g):
    # pdf / cdf as exp(-(log_ndtr(x) + x**2 / 2)) / sqrt(2 pi): finite far into the lower tail,
    # where both pdf and cdf underflow
    x = _x(ctx)
    y = dispatch(LOG_NDTR, x)
    return (g * exp(-(y + x * x * 0.5)) * _INV_SQRT_2PI,)


def _entr_backward(ctx, g):
    return (g * -(log(_x(ctx)) + 1),)


def _log_sigmoid_backward(ctx, g):
    x, gw = _opmath(_x(ctx), g)
    return (_rounded(gw * sigmoid(-x), g),)


# ----------------------------------------------------------------------------------------------
# declarations
# ----------------------------------------------------------------------------------------------

NEG = _declare("neg", _SAME_NO_BOOL, _neg_backward, E.save_nothing, needs_input=False, doc="-input")
ABS = _declare("abs", _SAME_NO_BOOL, _abs_backward, doc="|input|")
SIGN = _declare("sign", _SAME, _zeros_backward, E.save_nothing, needs_input=False, doc="-1, 0 or 1 (0 for nan)")
EXP = _declare("exp", _FLOAT, _exp_backward, _save_output, needs_input=False, doc="e ** input")
EXP2 = _declare("exp2", _FLOAT, _exp2_backward, _save_output, needs_input=False, doc="2 ** input")
EXPM1 = _declare("expm1", _FLOAT, _expm1_backward, _save_output, needs_input=False, doc="e ** input - 1")
LOG = _declare("log", _FLOAT, _log_backward, doc="natural logarithm")
LOG2 = _declare("log2", _FLOAT, _log2_backward, doc="base-2 logarithm")
LOG10 = _declare("log10", _FLOAT, _log10_backward, doc="base-10 logarithm")
LOG1P = _declare("log1p", _FLOAT, _log1p_backward, doc="log(1 + input), accurate near 0")
SQRT = _declare("sqrt", _FLOAT, _sqrt_backward, _save_output, needs_input=False, doc="square root")
RSQRT = _declare("rsqrt", _FLOAT, _rsqrt_backward, _save_output, needs_input=False, doc="1 / sqrt(input)")
SQUARE = _declare("square", _SQUARE, _square_backward, doc="input * input")
RECIPROCAL = _declare("reciprocal", _FLOAT, _reciprocal_backward, _save_output, needs_input=False, doc="1 / input")
SIN = _declare("sin", _FLOAT, _sin_backward)
COS = _declare("cos", _FLOAT, _cos_backward)
TAN = _declare("tan", _FLOAT, _tan_backward, _save_output, needs_input=False)
ASIN = _declare("asin", _FLOAT, _asin_backward)
ACOS = _declare("acos", _FLOAT, _acos_backward)
ATAN = _declare("atan", _FLOAT, _atan_backward)
SINH = _declare("sinh", _FLOAT, _sinh_backward)
COSH = _declare("cosh", _FLOAT, _cosh_backward)
TANH = _declare("tanh", _FLOAT, _tanh_backward, _save_output, needs_input=False)
SIGMOID = _declare("sigmoid", _FLOAT, _sigmoid_backward, _save_output, needs_input=False, doc="1 / (1 + e ** -input)")


def _logit_bounds(dtype, eps) -> tuple[float, float]:
    """PyTorch's clamp bounds ``lo = eps`` and ``hi = 1 - lo``, each rounded to ``dtype`` (the
    subtraction in float32 for float16/bfloat16): a float16 ``1 - 1e-6`` is 1, so logit(1, 1e-6)
    is inf there, and a bfloat16 ``1 - 0.01`` is 0.98828125, not 0.99."""
    eps = float(eps)
    if dtype is D.float64:
        return eps, 1.0 - eps
    lo = np.float32(eps)
    if dtype is D.float16 or dtype is D.bfloat16:
        lo = np.float32(lo.astype(dtype.np))
        return float(lo), float(np.float32(np.float32(1) - lo).astype(dtype.np))
    return float(lo), float(np.float32(1) - lo)


def _logit_args(x, eps=None):
    if eps is None:
        return "logit", ()
    return "logit_eps", _logit_bounds(_result("logit", _FLOAT, x.dtype)[0], eps)


LOGIT = _declare("logit", _FLOAT, _logit_backward, kernel_args=_logit_args, doc="log(p / (1 - p)), clamped by eps")
ERF = _declare("erf", _FLOAT, _erf_backward)
ERFINV = _declare("erfinv", _FLOAT, _erfinv_backward)
ERFC = _declare("erfc", _FLOAT, _erfc_backward, doc="1 - erf(input), accurate where erf is near 1")
ASINH = _declare("asinh", _FLOAT, _asinh_backward)
ACOSH = _declare("acosh", _FLOAT, _acosh_backward)
ATANH = _declare("atanh", _FLOAT, _atanh_backward)
FLOOR = _declare("floor", _SAME_NO_BOOL, _zeros_backward, E.save_nothing, needs_input=False)
CEIL = _declare("ceil", _SAME_NO_BOOL, _zeros_backward, E.save_nothing, needs_input=False)
TRUNC = _declare("trunc", _SAME_NO_BOOL, _zeros_backward, E.save_nothing, needs_input=False)


def _round_args(x, decimals=0):
    if decimals == 0:
        return "round", ()
    if not x.dtype.is_floating_point:
        raise E.not_implemented_for("round", x.dtype)  # PyTorch has no integer round with decimals
    n = builtins.abs(int(decimals))
    # 10 ** n past float64 (n >= 309) is inf, as in PyTorch's float: x * inf / inf and x / inf * inf are nan
    scale = 10.0 ** n if n <= 308 else math.inf
    return "round_decimals", (scale, 1 if decimals < 0 else 0)


ROUND = _declare("round", _SAME_NO_BOOL, _zeros_backward, E.save_nothing, kernel_args=_round_args, needs_input=False,
                 doc="round half to even (with decimals: scaled by 10**decimals)")
FRAC = _declare("frac", _FLOAT_ONLY, _frac_backward, E.save_nothing, needs_input=False, doc="input - trunc(input)")
RELU = _declare("relu", _SAME_NO_BOOL, _relu_backward, _save_output, needs_input=False, doc="max(input, 0)")


def _hardtanh_args(x, min_val=-1.0, max_val=1.0):
    if not x.dtype.is_floating_point:
        # PyTorch (2.15) truncates the limits to integers (hardtanh(int) clamps to [-1, 1], -2.5
        # becomes -2), then takes them as clamp's integer bounds: saturated to the dtype's range
        # (uint8 with limits -1, 3 clamps to [0, 3]), an error when min is above it or max below
        min_val, max_val = E.fit_clamp_bounds(x.dtype, int(min_val), int(max_val))
    return "hardtanh", (min_val, max_val)


# needs_input: PyTorch's hardtanh_ (so relu6(inplace=True)) saves a clone of the old self, not its
# result, so the result may be modified in place afterwards (elu_ and leaky_relu_ save the result)
HARDTANH = _declare("hardtanh", _SAME_NO_BOOL, _hardtanh_backward, _save_input_unless_inplace,
                    kernel_args=_hardtanh_args, doc="clamp(input, min_val, max_val)")
LEAKY_RELU = _declare("leaky_relu", _FLOAT_ONLY, _leaky_relu_backward, _save_input_unless_inplace,
                      kernel_args=lambda x, negative_slope=0.01: ("leaky_relu", (negative_slope,)),
                      needs_input=False, doc="input if input > 0 else negative_slope * input")
ELU = _declare("elu", _FLOAT_ONLY, _elu_backward, _save_input_unless_inplace,
               kernel_args=lambda x, alpha=1.0: ("elu", (alpha,)), needs_input=False,
               doc="input if input > 0 else alpha * (e ** input - 1)")
SELU = _declare("selu", _FLOAT_ONLY, _selu_backward, _save_input_unless_inplace, needs_input=False,
                doc="scale * elu(input, alpha) with the self-normalising constants")
GELU = _declare("gelu", _FLOAT_ONLY, _gelu_backward,
                kernel_args=lambda x, approximate="none": ("gelu" if approximate == "none" else "gelu_tanh", ()),
                doc="input * Phi(input) (approximate='tanh': the tanh approximation)")
SILU = _declare("silu", _FLOAT_ONLY, _silu_backward, doc="input * sigmoid(input)")
MISH = _declare("mish", _FLOAT_ONLY, _mish_backward, doc="input * tanh(softplus(input))")
SOFTPLUS = _declare("softplus", _FLOAT_ONLY, _softplus_backward,
                    kernel_args=lambda x, beta=1.0, threshold=20.0: ("softplus", (beta, threshold)),
                    doc="log(1 + e ** (beta * input)) / beta (linear above threshold)")
HARDSIGMOID = _declare("hardsigmoid", _FLOAT_ONLY, _hardsigmoid_backward, doc="relu6(input + 3) / 6")
HARDSWISH = _declare("hardswish", _FLOAT_ONLY, _hardswish_backward, doc="input * relu6(input + 3) / 6")
LOGICAL_NOT = _declare("logical_not", _BOOL, doc="input == 0")
BITWISE_NOT = _declare("bitwise_not", _BITS, doc="~input (integers; logical not for bool)")
ISNAN = _declare("isnan", _BOOL)
ISINF = _declare("isinf", _BOOL)
ISPOSINF = _declare("isposinf", _BOOL)
ISNEGINF = _declare("isneginf", _BOOL)
ISFINITE = _declare("isfinite", _BOOL)
SIGNBIT = _declare("signbit", _BOOL)


def _nan_to_num_args(x, nan=0.0, posinf=None, neginf=None):
    if not x.dtype.is_floating_point:
        return "nan_to_num", (0, 0, 0)
    info = D.float_info(x.dtype)
    posinf = float(info.max) if posinf is None else float(posinf)
    neginf = float(info.min) if neginf is None else float(neginf)
    return "nan_to_num", (0.0 if nan is None else float(nan), posinf, neginf)


NAN_TO_NUM = _declare("nan_to_num", _SAME, _nan_to_num_backward, kernel_args=_nan_to_num_args,
                      doc="nan, +inf and -inf replaced by finite values")


def _polygamma_args(x, n):
    """The kernel's op for ``polygamma(n, x)``: PyTorch's digamma (n = 0), trigamma (n = 1), or
    (-1)**(n+1) n! zeta(n + 1, x) with n + 1, the factor and (-1)**(n+1) as parameters (the factor
    is inf past the compute type's range, as PyTorch's exp(lgamma(n + 1)))."""
    if n == 0:
        return "digamma", ()
    if n == 1:
        return "trigamma", ()
    sign = 1.0 if n % 2 else -1.0
    factor = float(math.factorial(n)) if n <= 170 else math.inf
    return "polygamma", (float(n + 1), sign * factor, sign)


LGAMMA = _declare("lgamma", _FLOAT, _lgamma_backward, doc="log |Gamma(input)|")
DIGAMMA = _declare("digamma", _FLOAT, _digamma_backward, doc="Gamma'(input) / Gamma(input)")
POLYGAMMA = _declare("polygamma", _FLOAT, _polygamma_backward, kernel_args=_polygamma_args,
                     doc="the n-th derivative of digamma")
I0 = _declare("i0", _FLOAT, _i0_backward, doc="modified Bessel function of the first kind, order 0")
I0E = _declare("i0e", _FLOAT, _i0e_backward, doc="exp(-|input|) * i0(input)")
I1 = _declare("i1", _FLOAT, _i1_backward, doc="modified Bessel function of the first kind, order 1")
I1E = _declare("i1e", _FLOAT, _i1e_backward, doc="exp(-|input|) * i1(input)")
ERFCX = _declare("erfcx", _FLOAT, _erfcx_backward, doc="exp(input**2) * erfc(input)")
NDTR = _declare("ndtr", _FLOAT, _ndtr_backward, doc="the standard normal cdf")
NDTRI = _declare("ndtri", _FLOAT, _ndtri_backward, doc="the inverse of the standard normal cdf")
LOG_NDTR = _declare("log_ndtr", _FLOAT, _log_ndtr_backward, doc="log of the standard normal cdf")
ENTR = _declare("entr", _FLOAT, _entr_backward, doc="-input * log(input), 0 at 0, -inf below")
# (pi travels as a parameter: a float literal in a kernel is float32, which float64 results would show)
LOG_SIGMOID = _declare("log_sigmoid", _FLOAT_ONLY, _log_sigmoid_backward,
                       doc="log(sigmoid(input)) = min(input, 0) - log1p(e ** -|input|)")
ANGLE = _declare("angle", _FLOAT, _zeros_backward, E.save_nothing, kernel_args=lambda x: ("angle", (math.pi,)),
                 needs_input=False, doc="the argument of a real number: pi below 0, else 0 (nan stays nan)")

# ----------------------------------------------------------------------------------------------
# public functions and methods
# ----------------------------------------------------------------------------------------------

_SIMPLE = ["neg", "abs", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square",
           "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "erf",
           "erfc", "erfinv", "asinh", "acosh", "atanh", "floor", "ceil", "trunc", "frac", "logical_not", "bitwise_not"]
_PREDICATES = ["isnan", "isinf", "isposinf", "isneginf", "isfinite", "signbit"]
_PREDICATES_WITH_OUT = ("isposinf", "isneginf", "signbit")  # PyTorch's isnan, isinf, isfinite take no out=


def _make_simple(name: str):
    def fn(input, *, out=None):
        return _run(name, input, out=out)

    def fn_(input):
        return _run_(name, input)

    op = _REGISTRY[name][0]
    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"``{name}`` elementwise{': ' + op.doc if op.doc else ''}."
    fn_.__doc__ = f"``{name}`` in place."
    tensor_method(fn, name=name)
    tensor_method(fn_, name=name + "_")
    return fn, fn_


neg, neg_ = _make_simple("neg")
abs, abs_ = _make_simple("abs")
sign, sign_ = _make_simple("sign")
exp, exp_ = _make_simple("exp")
exp2, exp2_ = _make_simple("exp2")
expm1, expm1_ = _make_simple("expm1")
log, log_ = _make_simple("log")
log2, log2_ = _make_simple("log2")
log10, log10_ = _make_simple("log10")
log1p, log1p_ = _make_simple("log1p")
sqrt, sqrt_ = _make_simple("sqrt")
rsqrt, rsqrt_ = _make_simple("rsqrt")
square, square_ = _make_simple("square")
reciprocal, reciprocal_ = _make_simple("reciprocal")
sin, sin_ = _make_simple("sin")
cos, cos_ = _make_simple("cos")
tan, tan_ = _make_simple("tan")
asin, asin_ = _make_simple("asin")
acos, acos_ = _make_simple("acos")
atan, atan_ = _make_simple("atan")
sinh, sinh_ = _make_simple("sinh")
cosh, cosh_ = _make_simple("cosh")
tanh, tanh_ = _make_simple("tanh")
sigmoid, sigmoid_ = _make_simple("sigmoid")
erf, erf_ = _make_simple("erf")
erfc, erfc_ = _make_simple("erfc")
erfinv, erfinv_ = _make_simple("erfinv")
asinh, asinh_ = _make_simple("asinh")
acosh, acosh_ = _make_simple("acosh")
atanh, atanh_ = _make_simple("atanh")
floor, floor_ = _make_simple("floor")
ceil, ceil_ = _make_simple("ceil")
trunc, trunc_ = _make_simple("trunc")
frac, frac_ = _make_simple("frac")
logical_not, logical_not_ = _make_simple("logical_not")
bitwise_not, bitwise_not_ = _make_simple("bitwise_not")
lgamma, lgamma_ = _make_simple("lgamma")
digamma, digamma_ = _make_simple("digamma")
i0, i0_ = _make_simple("i0")


def angle(input, *, out=None):
    """The argument of each (real) element: pi below 0, else 0; nan stays nan. Integers give the
    default float dtype. (tensorlab has no complex dtypes.)"""
    return _run("angle", input, out=out)


tensor_method(angle)


def _make_special(name: str):
    """``torch.special.<name>``: a function with ``out=``, no Tensor method (PyTorch has none)."""

    def fn(input, *, out=None):
        return _run(name, input, out=out)

    fn.__name__ = name
    fn.__doc__ = f"``{name}`` elementwise: {_REGISTRY[name][0].doc}."
    return fn


special_i0e = _make_special("i0e")
special_i1 = _make_special("i1")
special_i1e = _make_special("i1e")
special_erfcx = _make_special("erfcx")
special_ndtr = _make_special("ndtr")
special_ndtri = _make_special("ndtri")
special_log_ndtr = _make_special("log_ndtr")
special_entr = _make_special("entr")


def _polygamma_order(op: str, n) -> int:
    if isinstance(n, bool) or not isinstance(n, int | np.integer):
        raise TypeError(f"{op}(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return int(n)


def polygamma(n, input, *, out=None):
    """The ``n``-th derivative of digamma at ``input`` (``n`` = 0: digamma; PyTorch's algorithms:
    its trigamma for n = 1, (-1)**(n+1) n! zeta(n + 1, x) above)."""
    return _run("polygamma", input, out=out, n=_polygamma_order("polygamma", n))


def _polygamma_method(self, n):
    return _run("polygamma", self, n=_polygamma_order("polygamma", n))


def polygamma_(self, n):
    """``polygamma(n, self)`` in place."""
    return _run_("polygamma", self, n=_polygamma_order("polygamma_", n))


tensor_method(_polygamma_method, name="polygamma")
tensor_method(polygamma_, name="polygamma_")


def _mvlgamma_order(op: str, input, p) -> int:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if isinstance(p, bool) or not isinstance(p, int | np.integer):
        raise TypeError(f"{op}(): argument 'p' (position 2) must be int, not {type(p).__name__}")
    if input.dtype is D.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    return int(p)


def _mvlgamma(input, p: int):
    """PyTorch's composite: sum_j lgamma(x - j/2), j = p-1 .. 0, + p (p - 1) / 4 log(pi). (PyTorch
    2.15 no longer checks x > (p - 1) / 2: below it a term is a pole (inf) or lgamma of a negative.)"""
    from .._factories import arange

    dtype = input.dtype if input.dtype.is_floating_point else D.get_default_dtype()
    # -(p-1)/2, ..., -1/2, 0 in PyTorch's order (its arange(-p/2 + 1/2, 1/2, 1/2)), exact
    offsets = (arange(p, dtype=dtype, device=input.device) - (p - 1)) * 0.5
    terms = lgamma(input.unsqueeze(-1) + offsets)
    return terms.sum(-1) + p * (p - 1) * math.log(math.pi) * 0.25


def mvlgamma(input, p, *, out=None):
    """The multivariate log-gamma function of dimension ``p``."""
    p = _mvlgamma_order("mvlgamma", input, p)
    return E.composite_out("mvlgamma", _mvlgamma(input, p), out)


def _mvlgamma_method(self, p):
    return mvlgamma(self, p)


def mvlgamma_(self, p):
    """``mvlgamma(self, p)`` in place."""
    p = _mvlgamma_order("mvlgamma_", self, p)
    return E.inplace_composite("mvlgamma", lambda src: _mvlgamma(src, p), self)


tensor_method(_mvlgamma_method, name="mvlgamma")
tensor_method(mvlgamma_, name="mvlgamma_")


def _make_predicate(name: str):
    if name in _PREDICATES_WITH_OUT:
        def fn(input, *, out=None):
            if isinstance(out, Tensor) and out.dtype is not D.bool:  # PyTorch's check (a bool result casts to any)
                raise RuntimeError(f"{name} does not support non-boolean outputs.")
            return _run(name, input, out=out)
    else:
        def fn(input):
            return _run(name, input)

    fn.__name__ = name
    fn.__doc__ = f"``{name}`` elementwise, as a bool tensor."
    tensor_method(fn, name=name)
    return fn


isnan = _make_predicate("isnan")
isinf = _make_predicate("isinf")
isposinf = _make_predicate("isposinf")
isneginf = _make_predicate("isneginf")
isfinite = _make_predicate("isfinite")
signbit = _make_predicate("signbit")

# aliases (PyTorch's names)
negative, negative_, absolute, absolute_ = neg, neg_, abs, abs_
arcsin, arcsin_, arccos, arccos_, arctan, arctan_ = asin, asin_, acos, acos_, atan, atan_
arcsinh, arcsinh_, arccosh, arccosh_, arctanh, arctanh_ = asinh, asinh_, acosh, acosh_, atanh, atanh_
fix, fix_ = trunc, trunc_
for _alias, _fn in (("negative", neg), ("negative_", neg_), ("absolute", abs), ("absolute_", abs_),
                    ("arcsin", asin), ("arcsin_", asin_), ("arccos", acos), ("arccos_", acos_),
                    ("arctan", atan), ("arctan_", atan_), ("fix", trunc), ("fix_", trunc_),
                    ("arcsinh", asinh), ("arcsinh_", asinh_), ("arccosh", acosh), ("arccosh_", acosh_),
                    ("arctanh", atanh), ("arctanh_", atanh_)):
    tensor_method(_fn, name=_alias)


@tensor_method
def positive(input):
    """``input`` itself (PyTorch's ``positive``; ``+t``)."""
    need_tensor("positive", input)
    if input.dtype is D.bool:
        raise NotImplementedError("positive(): The `+` operator, on a bool tensor is not supported.")
    return input


@tensor_method
def logit(input, eps=None, *, out=None):
    """``log(input / (1 - input))``; with ``eps``, input is first clamped to [eps, 1 - eps]."""
    return _run("logit", input, out=out, eps=_number("logit", "eps", eps))


@tensor_method
def logit_(input, eps=None):
    return _run_("logit", input, eps=_number("logit_", "eps", eps))


@tensor_method
def round(input, *, decimals=0, out=None):  # noqa: A001
    """Round half to even; ``decimals`` rounds to that many decimal places (negative: tens, ...)."""
    return _run("round", input, out=out, decimals=int_arg("round", "decimals", decimals))


@tensor_method
def round_(input, *, decimals=0):
    return _run_("round", input, decimals=int_arg("round_", "decimals", decimals))


@tensor_method
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """nan -> ``nan``, +inf -> ``posinf`` (default: the dtype's max), -inf -> ``neginf`` (its lowest)."""
    return _run("nan_to_num", input, out=out, nan=_number("nan_to_num", "nan", nan),
                posinf=_number("nan_to_num", "posinf", posinf), neginf=_number("nan_to_num", "neginf", neginf))


@tensor_method
def nan_to_num_(input, nan=0.0, posinf=None, neginf=None):
    return _run_("nan_to_num", input, nan=_number("nan_to_num_", "nan", nan),
                 posinf=_number("nan_to_num_", "posinf", posinf), neginf=_number("nan_to_num_", "neginf", neginf))


# -- activations (torch.nn.functional signatures) ------------------------------------------------


def _activation(name: str, input, inplace: bool, **params):
    return _run_(name, input, **params) if inplace else _run(name, input, **params)


@tensor_method
def relu(input):
    """``max(input, 0)`` (nan stays nan). ``torch.relu`` and ``Tensor.relu`` take no ``inplace``
    (``nn.functional.relu`` does)."""
    return _run("relu", input)


@tensor_method
def relu_(input):
    return _run_("relu", input)


@tensor_method
def relu6(input, inplace: bool = False):
    """``min(max(input, 0), 6)``."""
    need_tensor("relu6", input)
    return _activation("hardtanh", input, inplace, min_val=0, max_val=6) if not input.dtype.is_floating_point \
        else _activation("hardtanh", input, inplace, min_val=0.0, max_val=6.0)


@tensor_method
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace: bool = False):
    """``clamp(input, min_val, max_val)``."""
    if min_val > max_val:
        raise ValueError("hardtanh(): min_val cannot be greater than max_val")
    nan_bound = min_val != min_val or max_val != max_val
    if isinstance(input, Tensor) and input.dtype.is_floating_point:
        E.check_scalars_fit("hardtanh", input.dtype, min_val, max_val)  # (PyTorch's overflow check)
    elif nan_bound and isinstance(input, Tensor) and input.dtype is not D.bool:  # (bool: the op refuses it)
        # an integer input holds no NaN: refused as PyTorch does, rather than clamp promoting it to float
        raise RuntimeError(f"hardtanh(): value cannot be converted to type {D.cpp_name(input.dtype)} without "
                           f"overflow: nan")
    if nan_bound and (not isinstance(input, Tensor) or input.dtype.is_floating_point):  # all NaN, as PyTorch's clamp
        from .elementwise_binary import clamp, clamp_

        return (clamp_ if inplace else clamp)(input, min_val, max_val)
    return _activation("hardtanh", input, inplace, min_val=min_val, max_val=max_val)


@tensor_method
def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return hardtanh(input, min_val, max_val, inplace=True)


@tensor_method
def leaky_relu(input, negative_slope=0.01, inplace: bool = False):
    """``input`` where positive, ``negative_slope * input`` elsewhere."""
    slope = float(_number("leaky_relu", "negative_slope", negative_slope))
    return _activation("leaky_relu", input, inplace, negative_slope=slope)


@tensor_method
def leaky_relu_(input, negative_slope=0.01):
    return leaky_relu(input, negative_slope, inplace=True)


@tensor_method
def elu(input, alpha=1.0, inplace: bool = False):
    """``input`` where positive, ``alpha * (exp(input) - 1)`` elsewhere."""
    return _activation("elu", input, inplace, alpha=float(_number("elu", "alpha", alpha)))


@tensor_method
def elu_(input, alpha=1.0):
    return elu(input, alpha, inplace=True)


@tensor_method
def selu(input):
    """``scale * elu(input, alpha)`` with alpha = 1.6732632..., scale = 1.0507009.... ``torch.selu``
    takes no ``inplace`` (``nn.functional.selu`` does)."""
    return _run("selu", input)


@tensor_method
def selu_(input):
    return _run_("selu", input)


@tensor_method
def gelu(input, *, approximate: str = "none", out=None):
    """``input * Phi(input)`` (Phi: the normal cdf); ``approximate='tanh'`` uses the tanh formula."""
    if not isinstance(approximate, str):  # (PyTorch's argument parser: a TypeError)
        raise TypeError(f"gelu(): argument 'approximate' must be str, not {type(approximate).__name__}")
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"gelu(): approximate argument must be either none or tanh, got {approximate!r}")
    return _run("gelu", input, out=out, approximate=approximate)


@tensor_method
def silu(input, inplace: bool = False):
    """``input * sigmoid(input)`` (swish)."""
    return _activation("silu", input, inplace)


@tensor_method
def mish(input, inplace: bool = False):
    """``input * tanh(softplus(input))``."""
    return _activation("mish", input, inplace)


@tensor_method
def softplus(input, beta=1.0, threshold=20.0, *, out=None):
    """``log(1 + exp(beta * input)) / beta``; linear where ``beta * input > threshold``."""
    return _run("softplus", input, out=out, beta=float(_number("softplus", "beta", beta)),
                threshold=float(_number("softplus", "threshold", threshold)))


def log_sigmoid(input, *, out=None):
    """``log(sigmoid(input))``, exact in both tails (``nn.functional.logsigmoid``'s op; PyTorch has
    it as ``torch._C._nn.log_sigmoid``, not as a top-level function)."""
    return _run("log_sigmoid", input, out=out)


@tensor_method
def hardsigmoid(input, inplace: bool = False):
    """``relu6(input + 3) / 6``."""
    return _activation("hardsigmoid", input, inplace)


@tensor_method
def hardswish(input, inplace: bool = False):
    """``input * relu6(input + 3) / 6``."""
    return _activation("hardswish", input, inplace)


__all__ = [
    *_SIMPLE, *[n + "_" for n in _SIMPLE if n not in ("logical_not", "bitwise_not")], *_PREDICATES,
    "negative", "absolute", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "fix", "positive",
    "logit", "round", "nan_to_num",
    # the in-place forms PyTorch also has as functions (torch.arcsin_(t), torch.round_(t))
    "negative_", "absolute_", "arcsin_", "arccos_", "arctan_", "arcsinh_", "arccosh_", "arctanh_", "fix_", "logit_",
    "round_", "nan_to_num_",
    "relu", "relu_", "relu6", "hardtanh", "hardtanh_", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "selu_",
    "gelu", "silu", "mish", "softplus", "hardsigmoid", "hardswish",
    "lgamma", "lgamma_", "digamma", "digamma_", "polygamma", "mvlgamma", "i0", "i0_", "angle",
]
