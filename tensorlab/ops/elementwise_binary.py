"""Binary and ternary elementwise ops: declarations, backward rules, public functions and methods.

Every binary op runs on ``tensorlab_kernels.elementwise.binary`` (one generic strided kernel, the op
a compile-time constant) and every ternary op on ``...ternary``. Either operand of a binary op may
be a Python scalar; reflected forms (``2 - t``, ``2 ** t``) dispatch with the tensor first and
``reverse=True``, so the kernel still computes ``scalar - t``.

Dtypes (PyTorch's): the common dtype is :func:`tensorlab.result_type` of the operands (scalars
weak); true division, ``atan2``, ``hypot`` and ``copysign`` of integers give the default float
dtype; comparisons and logical ops give bool; bitwise ops and shifts need integers (or bool).
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from tensorlab_kernels.elementwise import binary as kb
from tensorlab_kernels.elementwise import ternary as kt

from .. import _dtype as D
from .._dispatch import dispatch
from .._registry import Plan, defop
from .._storage import contiguous_strides
from .._tensor import Tensor, need_tensor, tensor_method
from ..autograd.graph import TensorMeta
from . import elementwise_common as E
from .deprecated_overloads import scalars_first

# ----------------------------------------------------------------------------------------------
# dtype rules
# ----------------------------------------------------------------------------------------------

_ARITH = "arith"  # result: the common dtype
_FLOAT = "float"  # result: floating (integers -> default float dtype)
_BOOL = "bool"  # result: bool (comparisons, logical ops)
_BITWISE = "bitwise"  # integers or bool only
_SHIFT = "shift"  # integers only

_NO_BOOL = {"remainder", "fmod", "div_trunc", "div_floor", "pow"}
_NO_BOOL_SCALAR = {"clamp_min", "clamp_max"}  # PyTorch: no bool kernel for a number bound (a tensor bound works)
_FLOAT_KERNELS_ONLY = {"hypot", "logaddexp", "logaddexp2"}  # integer operands raise instead of promoting
_HALF = frozenset({D.float16, D.bfloat16})


def _common_dtype(op: str, a, b) -> D.dtype:
    # fast paths for the common cases (same dtypes; a float tensor with a number; an int tensor with an int)
    ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
    if ta and tb:
        if a.dtype is b.dtype:
            return a.dtype
    elif ta or tb:
        t, s = (a, b) if ta else (b, a)
        if (type(s) is float and t.dtype.is_floating_point) or (type(s) is int and t.dtype is not D.bool):
            return t.dtype
    try:
        return D.result_type(a, b)
    except TypeError:
        raise TypeError(f"{op}(): unsupported operand types {type(a).__name__} and {type(b).__name__}") from None


def _binary_types(op: str, kind: str, kop: str, a, b) -> tuple[D.dtype, str]:
    """(result dtype, compute type) for ``kop`` on operands ``a`` and ``b``."""
    common = _common_dtype(op, a, b)
    if kind == _ARITH:
        if common is D.bool:
            if kop == "pow" and isinstance(a, Tensor) and isinstance(b, bool):
                # PyTorch's pow(bool tensor, bool number) stays bool (x ** True is x, x ** False is True);
                # computed as uint8, since the kernels have no bool arithmetic
                return D.bool, "uint8"
            if kop in _NO_BOOL or (kop in _NO_BOOL_SCALAR and not isinstance(b, Tensor)):
                raise E.not_implemented_for(op, common)
        return common, E.ct(common)
    if kind == _FLOAT:
        if (common is D.bool and kop in _NO_BOOL) or (kop in _FLOAT_KERNELS_ONLY and not common.is_floating_point):
            raise E.not_implemented_for(op, common)  # no integer promotion: PyTorch has only floating kernels
        out = E.float_result(common)
        return out, E.ct(out)
    if kind == _BOOL:
        return D.bool, E.ct(common)
    if common.is_floating_point or (kind == _SHIFT and common is D.bool):
        raise E.not_implemented_for(op, common)
    return common, E.ct(common)


def _check_alpha(op: str, result: D.dtype, alpha, name: str = "alpha", opmath: bool = False):
    """PyTorch's alpha_check (a bool alpha only for bool results, no float alpha for integer
    results), then its conversion to the type the kernel reads it in (:func:`E.fit_scalars`:
    ``result``, or its opmath type with ``opmath``); returns the number as the kernel takes it."""
    if isinstance(alpha, bool | np.bool_) and result is not D.bool:
        raise RuntimeError(f"{op}(): Boolean {name} only supported for Boolean results.")
    if not result.is_floating_point and isinstance(alpha, float | np.floating | complex | np.complexfloating):
        raise RuntimeError(f"{op}(): For integral input tensors, argument {name} must not be a floating point number.")
    return E.fit_scalars(op, result, opmath, **{name: alpha})[name]


def _check_sub_bool(op: str, a, b) -> None:
    da, db = E.scalar_dtype(a), E.scalar_dtype(b)
    if da is D.bool and db is D.bool:
        raise NotImplementedError(f"{op}(): Subtraction, the `-` operator, with two bool tensors is not supported. "
                                  "Use the `^` or `logical_xor()` operator instead.")
    if da is D.bool or db is D.bool:
        raise NotImplementedError(f"{op}(): Subtraction, the `-` operator, with a bool tensor is not supported. "
                                  "If you are trying to invert a mask, use the `~` or `logical_not()` operator "
                                  "instead.")


# PyTorch's cpu mul and div kernels read a number (or 0-d tensor) second operand of a float16/
# bfloat16 op in float32, unrounded (``half_t * 0.1`` computes with 0.1f); the other ops round it
_OPMATH_SECOND = frozenset({"mul", "div", "div_trunc", "div_floor"})


def _round_0d_operands(op: str, kop: str, x: Tensor, y: Tensor) -> tuple:
    """Two tensors of different dtypes, one 0-d (math order): when the common dtype is float16/
    bfloat16 and the 0-d one did not decide it (``half_t + tensor(0.1)`` is float16), it is rounded
    to that dtype first, like a number (checked bit for bit against torch 2.13)."""
    common = _common_dtype(op, x, y)
    if common is D.float16 or common is D.bfloat16:
        if not x._shape and x.dtype is not common:
            x = E.round_0d_to(x, common)
        if not y._shape and y.dtype is not common and kop not in _OPMATH_SECOND:
            y = E.round_0d_to(y, common)
    return x, y


_MEMO_MAX = 1024  # remembered signatures per op (alpha values can vary without end)


def _binary_meta(name: str, kind: str, scalars_fit: bool = False):
    """meta for the binary op ``name``: params ``reverse`` (scalar first), ``alpha``, ``rounding_mode``.
    ``scalars_fit``: a number operand must fit the result dtype (clamp_min/clamp_max, as PyTorch).

    The usual calls are remembered (every eager op pays for meta on the host): two tensors of one
    shape, or a tensor and an int/float number where nothing depends on the number's value (no
    float16/bfloat16 rounding of it, no range check, not pow). Their plan is the operands as
    they are, the one shape, and a result dtype and kernel parameters that follow from the
    dtypes, the number's type, the parameters and the default dtype, which make up the key."""
    memo: dict = {}
    value_free_scalars = not scalars_fit and name != "pow"

    def meta(a, b, *, reverse: bool = False, alpha=1, rounding_mode=None) -> Plan:
        key = None
        if a.__class__ is Tensor:
            other = b.__class__
            # (remembered for contiguous operands: their output is contiguous, E.output_spec)
            if other is Tensor:
                if (a._shape == b._shape and (a._shape or a.dtype is b.dtype)  # (no 0-d operand to round)
                        and a._stride == b._stride == contiguous_strides(a._shape)):
                    key = (a.dtype, b.dtype, reverse, alpha, alpha.__class__, rounding_mode, D._default_dtype)
            elif ((other is float or other is int) and value_free_scalars and a.dtype not in _HALF
                  and a._stride == contiguous_strides(a._shape)):
                key = (a.dtype, other, reverse, alpha, alpha.__class__, rounding_mode, D._default_dtype)
            if key is not None:
                hit = memo.get(key)
                if hit is not None:
                    return Plan([b, a] if reverse else [a, b], [(a._shape, hit[0])], hit[1])
        plan = _meta(a, b, reverse, alpha, rounding_mode)
        if key is not None and (plan.args[0] is (b if reverse else a) and plan.args[1] is (a if reverse else b)):
            # (remembered only when no number was rounded: the key does not hold the number's value)
            if len(memo) >= _MEMO_MAX:
                memo.clear()
            memo[key] = (plan.outputs[0][1], plan.params)
        return plan

    def _meta(a, b, reverse, alpha, rounding_mode) -> Plan:
        x, y = (b, a) if reverse else (a, b)
        kop = name
        if name == "div" and rounding_mode is not None:
            kop = {"trunc": "div_trunc", "floor": "div_floor"}[rounding_mode]
        op_kind = kind if kop == name else _ARITH
        out_dtype, compute = _binary_types(name, op_kind, kop, x, y)
        rnd = None  # the tensor operands are rounded to this float16/bfloat16 dtype first (kernels' RND)
        if name in ("add", "sub"):
            if name == "sub":  # (PyTorch's sub checks its operands before alpha)
                _check_sub_bool(name, x, y)
            if isinstance(alpha, complex | np.complexfloating):  # (add/sub only: addr and addmm take 2+0j)
                raise RuntimeError(f"{name}(): For non-complex input tensors, argument alpha must not be a complex "
                                   "number.")
            _check_alpha(name, out_dtype, alpha)  # (1e50 for float32, 300 for int8: an error, not inf or a wrap)
            if alpha != 1 and (out_dtype is D.float16 or out_dtype is D.bfloat16):
                alpha = E.round_scalar_to(alpha, out_dtype)  # PyTorch's kernel converts alpha to the dtype too
        if kop == "pow" and out_dtype in D.INTEGRAL and E.is_scalar(y) and not isinstance(y, bool) and y < 0:
            raise RuntimeError("pow(): Integers to negative integer powers are not allowed.")
        if (kop == "pow" and isinstance(x, Tensor) and E.is_scalar(y) and not isinstance(y, bool)
                and (out_dtype in D.INTEGRAL or out_dtype in _HALF)):
            # PyTorch's pow(Tensor, Scalar) converts the exponent to an integer or half result's dtype
            # (checked: int8 ** 200 and half ** 1e5 raise); float32/float64 read it as a double
            E.check_scalars_fit("pow", out_dtype, y)
        if not isinstance(x, Tensor) or not isinstance(y, Tensor):  # a number operand
            if scalars_fit:
                E.check_scalars_fit(name, out_dtype, x, y)
            t = x if isinstance(x, Tensor) else y
            # PyTorch converts the number to the common dtype (``half_t + 70000`` is inf), except the
            # second operand of mul and div, which its kernels read unrounded in float32 (Python's
            # ``2 * t`` is mul(t, 2)), and the number ``/`` divides (``2 / t`` is PyTorch's
            # ``reciprocal(t) * 2``); a reflected ``70000.0 // half_t`` rounds it (nan).
            half = _half_common(name, op_kind, out_dtype, x, y)
            if half is not None:
                if t is y and kop != "div":
                    x = E.round_scalar_to(x, half)
                elif t is x and kop not in _OPMATH_SECOND:
                    y = E.round_scalar_to(y, half)
                if t.dtype is not half:  # an integer tensor, of a float16 default dtype's result
                    rnd = half.name
        elif x.dtype is not y.dtype:
            if not x._shape or not y._shape:  # a 0-d tensor of another dtype
                x, y = _round_0d_operands(name, kop, x, y)
            half = _half_common(name, op_kind, out_dtype, x, y)
            # a tensor with dims of another dtype (an integer tensor: ``half_t + int_t``) is rounded
            # to the float16/bfloat16 common dtype by the kernel (0-d ones were rounded above; a 0-d
            # second operand of mul/div that was not is never beside such a tensor: it would have
            # decided the common dtype)
            if half is not None and ((x._shape and x.dtype is not half) or (y._shape and y.dtype is not half)):
                rnd = half.name
        # the usual case without broadcasting machinery: one tensor shape (or a scalar operand)
        xs = x._shape if isinstance(x, Tensor) else None
        ys = y._shape if isinstance(y, Tensor) else xs
        if xs is None or xs == ys:
            shape, args = ys, [x, y]
        else:
            shape = E.broadcast_shape(name, x, y)
            args = E.impl_args(name, shape, (x, y))
        params = {"op": kop, "ct": compute, "alpha": alpha}
        if rnd is not None:
            params["rnd"] = rnd
        # (pow's number operand is a parameter of PyTorch's pow.Tensor_Scalar/Scalar, not an operand
        # its layout rule sees; other ops wrap a number as a 0-d operand)
        operands = (x, y) if kop != "pow" else tuple(t for t in (x, y) if isinstance(t, Tensor))
        if kop == "pow" and not isinstance(x, Tensor):
            # a number base: PyTorch's pow.Scalar allocates its result contiguous (``2 ** x.t()``
            # is not transposed), whatever the exponent's layout
            return Plan(args=args, outputs=[(shape, out_dtype)], params=params)
        return Plan(args=args, outputs=[E.output_spec(shape, out_dtype, operands)], params=params)

    return meta


def _half_common(name: str, kind: str, out_dtype: D.dtype, x, y) -> D.dtype | None:
    """The dtype PyTorch converts the operands to before computing (the common dtype; for true
    division of integers the float result) when it is float16/bfloat16, else None."""
    common = _common_dtype(name, x, y) if kind == _BOOL else out_dtype
    return common if common is D.float16 or common is D.bfloat16 else None


# ----------------------------------------------------------------------------------------------
# backward rules (written in the math order x op y; ``reverse`` swaps back)
# ----------------------------------------------------------------------------------------------


def _operands(ctx):
    """(x, y, needs_x, needs_y): tensors (saved) or scalars, in the math order."""
    saved = ctx.saved_tensors
    vals = [saved[i] if isinstance(ctx.inputs[i], TensorMeta) else ctx.inputs[i] for i in range(2)]
    needs = list(ctx.needs_input_grad[:2])
    if ctx.params.get("reverse"):
        vals.reverse()
        needs.reverse()
    return vals[0], vals[1], needs[0], needs[1]


def _finish(ctx, gx, gy):
    """Gradients in positional order, reduced to each input's shape and dtype."""
    if ctx.params.get("reverse"):
        gx, gy = gy, gx
    out = []
    for g, meta, need in zip((gx, gy), ctx.inputs[:2], ctx.needs_input_grad[:2]):
        out.append(E.reduce_grad(g, meta) if need and isinstance(meta, TensorMeta) else None)
    return tuple(out)


def _needs(ctx):
    needs = list(ctx.needs_input_grad[:2])
    return tuple(reversed(needs)) if ctx.params.get("reverse") else tuple(needs)


def _add_backward(ctx, g):
    nx, ny = _needs(ctx)
    alpha = ctx.params.get("alpha", 1)
    return _finish(ctx, g if nx else None, (g if alpha == 1 else g * alpha) if ny else None)


def _sub_backward(ctx, g):
    nx, ny = _needs(ctx)
    alpha = ctx.params.get("alpha", 1)
    return _finish(ctx, g if nx else None, (-g if alpha == 1 else g * (-alpha)) if ny else None)


def _mul_backward(ctx, g):
    x, y, nx, ny = _operands(ctx)
    return _finish(ctx, g * y if nx else None, g * x if ny else None)


def _zeros(g):
    from .._factories import zeros_like

    return zeros_like(g)


def _div_backward(ctx, g):
    x, y, nx, ny = _operands(ctx)
    if ctx.params.get("rounding_mode") is not None:  # piecewise constant: zero gradient, as PyTorch
        return _finish(ctx, _zeros(g) if nx else None, _zeros(g) if ny else None)
    gx = g / y if nx else None
    # (x / y) / y as PyTorch, not x / (y * y): y * y overflows float16 from |y| = 256 (and float32 from
    # 1.8e19) and underflows for small y, which made the gradient 0 or inf where it is finite
    gy = -g * (x / y / y) if ny else None
    return _finish(ctx, gx, gy)


def _rounded_div(x, y, mode):
    """``div(x, y, rounding_mode=mode)`` where ``x`` may be a Python scalar."""
    if isinstance(x, Tensor):
        return div(x, y, rounding_mode=mode)
    return _binary(DIV, "div", y, x, reverse=True, rounding_mode=mode)


def _remainder_backward(ctx, g):
    x, y, nx, ny = _operands(ctx)
    return _finish(ctx, g if nx else None, -g * _rounded_div(x, y, "floor") if ny else None)


def _fmod_backward(ctx, g):
    x, y, nx, ny = _operands(ctx)
    return _finish(ctx, g if nx else None, -g * _rounded_div(x, y, "trunc") if ny else None)


def _pow_save(ctx, inputs, outputs, params):
    """What PyTorch's pow saves: only self for a number exponent (pow.Tensor_Scalar), so
    ``(x ** 2).add_(1)`` leaves the backward intact; else the tensor operands and the result
    (pow.Tensor_Tensor; pow.Scalar, a number base, is reversed here)."""
    if not isinstance(inputs[1], Tensor) and not params.get("reverse"):
        ctx.save_for_backward(inputs[0], None, None)
    else:
        E.save_inputs_and_output(ctx, inputs, outputs, params)


def _pow_backward(ctx, g):
    saved = ctx.saved_tensors
    out = saved[2]
    x, y, nx, ny = _operands(ctx)
    gx = gy = None
    # g multiplies the selected partial (PyTorch's order), so the gradient's own derivative in g is
    # that partial: 0 where it is 0, not 0 * NaN from the branch where() drops
    if nx:  # y * x**(y - 1), and 0 where y == 0 (PyTorch's pow_backward_self)
        if isinstance(y, Tensor):
            gx = g * where(y == 0, 0.0, y * pow(x, y - 1))
        else:
            gx = _zeros(g) if y == 0 else g * y * pow(x, y - 1)
    if ny:  # out * log(x), and 0 where x == 0 and y >= 0 (pow_backward_exponent); y is a tensor here
        if isinstance(x, Tensor):
            from .elementwise_unary import log

            gy = g * where((x == 0) & (y >= 0), 0.0, out * log(x))
        else:
            logx = math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)
            # g * (out * log(x)), PyTorch's order: (g * out) * log(x) overflows where the gradient does not
            gy = g * (out * logx) if x != 0 else g * where(y >= 0, 0.0, out * logx)
    return _finish(ctx, gx, gy)


def _maxmin_backward(greater: bool):
    def backward(ctx, g):
        x, y, nx, ny = _operands(ctx)
        # PyTorch: where(x == y, g / 2, g) with the loser's side zeroed, so at a NaN (no winner,
        # no tie) both operands get the whole gradient
        win_x, win_y = ((x > y), (x < y)) if greater else ((x < y), (x > y))
        tie = x == y
        shared = where(tie, g / 2, g)
        gx = where(win_y, 0.0, shared) if nx else None
        gy = where(win_x, 0.0, shared) if ny else None
        return _finish(ctx, gx, gy)

    return backward


def _fmaxmin_backward(greater: bool):
    def backward(ctx, g):
        x, y, nx, ny = _operands(ctx)
        # PyTorch (2.15): the chosen operand gets the gradient (x where y is NaN), ties split it evenly
        chosen_x = ((x > y) if greater else (x < y)) | isnan(y)
        tie = x == y
        half = g / 2
        gx = where(tie, half, where(chosen_x, g, 0.0)) if nx else None
        gy = where(tie, half, where(chosen_x, 0.0, g)) if ny else None
        return _finish(ctx, gx, gy)

    return backward


def _clamp_bound_backward(greater: bool):
    """clamp_min (``greater``: the result is max(x, bound)) and clamp_max, as PyTorch 2.15: a number
    bound gives the minimum-norm subgradient, 0 at the bound (as relu and hardtanh); a tensor bound
    takes maximum/minimum's rule (ties split evenly, a NaN gives both operands the gradient)."""
    tensor_bound = _maxmin_backward(greater)

    def backward(ctx, g):
        x, y, nx, ny = _operands(ctx)
        if isinstance(y, Tensor):
            return tensor_bound(ctx, g)
        return _finish(ctx, where((x > y) if greater else (x < y), g, 0.0) if nx else None, None)

    return backward


_clamp_min_backward = _clamp_bound_backward(True)
_clamp_max_backward = _clamp_bound_backward(False)


def _atan2_backward(ctx, g):
    x, y, nx, ny = _operands(ctx)
    denom = x * x + y * y
    # PyTorch: 0 (not 0/0) at the origin
    recip = where(denom == 0, 0.0, 1 / denom)
    return _finish(ctx, g * y * recip if nx else None, -g * x * recip if ny else None)


def _hypot_backward(ctx, g):
    saved = ctx.saved_tensors
    out = saved[2]
    x, y, nx, ny = _operands(ctx)
    return _finish(ctx, g * x / out if nx else None, g * y / out if ny else None)


def _copysign_save(ctx, inputs, outputs, params):
    """input and the result, as PyTorch: the other operand's gradient is zero, so it may change."""
    ctx.save_for_backward(inputs[0], None, outputs[0])


def _copysign_backward(ctx, g):
    saved = ctx.saved_tensors
    out = saved[2]
    x, y, nx, ny = _operands(ctx)
    gx = g * where(x == 0, 0.0, out / x) if nx else None  # (g outside: see _pow_backward)
    gy = _zeros(g) if ny else None
    return _finish(ctx, gx, gy)


def _logaddexp_backward(base2: bool):
    def backward(ctx, g):
        from .elementwise_unary import exp, exp2

        x, y, nx, ny = _operands(ctx)
        power = exp2 if base2 else exp
        return _finish(ctx, g / (power(y - x) + 1) if nx else None, g / (power(x - y) + 1) if ny else None)

    return backward


def _xlogy_backward(ctx, g):
    x, y, nx, ny = _operands(ctx)
    gx = None
    if nx:  # PyTorch's: log(y), but 0 where x == 0 and y <= 0 (where log(y) is -inf or nan)
        gx = xlogy(g, y)
        gx = where((x == 0) & (y <= 0), 0.0, gx) if isinstance(y, Tensor) else where(x == 0, 0.0, gx) if y <= 0 else gx
    return _finish(ctx, gx, g * x / y if ny else None)


def _xlog1py_backward(ctx, g):
    x, y, nx, ny = _operands(ctx)
    gx = None
    if nx:  # PyTorch's: log1p(y), but 0 where x == 0 and y <= -1 (where log1p(y) is -inf or nan)
        gx = xlog1py(g, y)
        gx = (where((x == 0) & (y <= -1), 0.0, gx) if isinstance(y, Tensor)
              else where(x == 0, 0.0, gx) if y <= -1 else gx)
    return _finish(ctx, gx, g * x / (y + 1) if ny else None)


# ----------------------------------------------------------------------------------------------
# declarations
# ----------------------------------------------------------------------------------------------


def _declare(name, kind, backward=None, save=E.save_inputs, doc="", scalars_fit: bool = False):
    return defop(name, twin=kb.binary_twin, kernel=kb.binary, meta=_binary_meta(name, kind, scalars_fit),
                 backward=backward, save=save if backward is not None else None, tags=E.TAGS, doc=doc)


ADD = _declare("add", _ARITH, _add_backward, E.save_nothing, "input + alpha * other")
SUB = _declare("sub", _ARITH, _sub_backward, E.save_nothing, "input - alpha * other")
MUL = _declare("mul", _ARITH, _mul_backward, E.save_for({0: [1], 1: [0]}), doc="input * other")
DIV = _declare("div", _FLOAT, _div_backward, E.save_for({0: [1], 1: [0, 1]}),
               doc="input / other; rounding_mode None, 'trunc' or 'floor'")
# The dividend's gradient is g: the operands are saved for the divisor's alone (so a number divisor
# saves nothing, as PyTorch's remainder.Scalar / fmod.Scalar).
REMAINDER = _declare("remainder", _ARITH, _remainder_backward, E.save_for({0: [1], 1: [1]}),
                     doc="Python's %: the sign of the divisor")
FMOD = _declare("fmod", _ARITH, _fmod_backward, E.save_for({0: [1], 1: [1]}), doc="C's fmod: the sign of the dividend")
POW = _declare("pow", _ARITH, _pow_backward, _pow_save, "input ** exponent")
MAXIMUM = _declare("maximum", _ARITH, _maxmin_backward(True), doc="elementwise max; nan propagates")
MINIMUM = _declare("minimum", _ARITH, _maxmin_backward(False), doc="elementwise min; nan propagates")
FMAX = _declare("fmax", _ARITH, _fmaxmin_backward(True), doc="elementwise max; nan ignored")
FMIN = _declare("fmin", _ARITH, _fmaxmin_backward(False), doc="elementwise min; nan ignored")
ATAN2 = _declare("atan2", _FLOAT, _atan2_backward, doc="atan(input / other) in the right quadrant")
HYPOT = _declare("hypot", _FLOAT, _hypot_backward, E.save_inputs_and_output, doc="sqrt(input**2 + other**2)")
COPYSIGN = _declare("copysign", _FLOAT, _copysign_backward, _copysign_save, doc="|input| with the sign of other")
LOGADDEXP = _declare("logaddexp", _FLOAT, _logaddexp_backward(False), doc="log(exp(input) + exp(other))")
LOGADDEXP2 = _declare("logaddexp2", _FLOAT, _logaddexp_backward(True), doc="log2(2**input + 2**other)")
XLOGY = _declare("xlogy", _FLOAT, _xlogy_backward, doc="input * log(other), 0 where input is 0")
XLOG1PY = _declare("xlog1py", _FLOAT, _xlog1py_backward, doc="input * log1p(other), 0 where input is 0")


def _threshold_backward_backward(ctx, h):
    """The gradient of relu's gradient: the same mask applied to h; 0 for relu's output (PyTorch's
    zeros_like, so relu's input is reached: see ops/zero_curvature.py)."""
    from .._factories import zeros

    y = ctx.inputs[1]
    return ((dispatch(THRESHOLD_BACKWARD, h, ctx.saved_tensors[1]) if ctx.needs_input_grad[0] else None),
            zeros(y.shape, dtype=y.dtype, device=y.device) if ctx.needs_input_grad[1] else None)


THRESHOLD_BACKWARD = _declare("threshold_backward", _FLOAT, _threshold_backward_backward,
                              doc="relu's input gradient from its gradient and output: 0 where output <= 0 "
                                  "(PyTorch's threshold_backward at 0; a nan output passes the gradient)")
CLAMP_MIN = _declare("clamp_min", _ARITH, _clamp_min_backward, doc="max(input, min); nan propagates", scalars_fit=True)
CLAMP_MAX = _declare("clamp_max", _ARITH, _clamp_max_backward, doc="min(input, max); nan propagates", scalars_fit=True)
EQ = _declare("eq", _BOOL, doc="input == other")
NE = _declare("ne", _BOOL, doc="input != other")
LT = _declare("lt", _BOOL, doc="input < other")
LE = _declare("le", _BOOL, doc="input <= other")
GT = _declare("gt", _BOOL, doc="input > other")
GE = _declare("ge", _BOOL, doc="input >= other")
LOGICAL_AND = _declare("logical_and", _BOOL, doc="(input != 0) and (other != 0)")
LOGICAL_OR = _declare("logical_or", _BOOL, doc="(input != 0) or (other != 0)")
LOGICAL_XOR = _declare("logical_xor", _BOOL, doc="(input != 0) xor (other != 0)")
BITWISE_AND = _declare("bitwise_and", _BITWISE, doc="input & other (integers, bool)")
BITWISE_OR = _declare("bitwise_or", _BITWISE, doc="input | other (integers, bool)")
BITWISE_XOR = _declare("bitwise_xor", _BITWISE, doc="input ^ other (integers, bool)")
LEFT_SHIFT = _declare("left_shift", _SHIFT, doc="input << other (integers)")
RIGHT_SHIFT = _declare("right_shift", _SHIFT, doc="input >> other (integers; arithmetic for signed)")
GCD = _declare("gcd", _SHIFT, doc="the greatest common divisor of |input| and |other| (integers)")
LCM = _declare("lcm", _SHIFT, doc="the least common multiple of |input| and |other| (integers)")

# ----------------------------------------------------------------------------------------------
# in-place and out= plumbing
# ----------------------------------------------------------------------------------------------


def _grad_on() -> bool:
    from ..autograd.grad_mode import is_grad_enabled

    return is_grad_enabled()


# ops whose first operand may be a number, as PyTorch's (it wraps the number as a tensor): the name
# of that argument in their errors
_NUMBER_FIRST = {"add": "input", "sub": "input", "mul": "input", "div": "input", "true_divide": "input",
                 "floor_divide": "input", "remainder": "input", "pow": "self", "xlogy": "self", "xlog1py": "self",
                 "bitwise_and": "self", "bitwise_or": "self", "bitwise_xor": "self", "bitwise_left_shift": "self",
                 "bitwise_right_shift": "self"}


# the ops whose function PyTorch also takes with two numbers (add(2, 3.5) is tensor(5.5), as 0-d tensors)
_TWO_NUMBERS = frozenset({"add", "sub", "mul", "div", "true_divide", "floor_divide"})


def _binary(op, name: str, input, other, out=None, reverse: bool = False, **params):
    if not isinstance(input, Tensor):
        if isinstance(other, Tensor) and not reverse and name in _NUMBER_FIRST:
            return _number_first(op, name, input, other, out, **params)
        if name in _TWO_NUMBERS and isinstance(input, int | float) and isinstance(other, int | float):
            from .._factories import tensor

            return _binary(op, name, tensor(input), other, out=out, reverse=reverse, **params)
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(other, Tensor):
        other = E.as_operand(name, other)
    if out is not None:
        E.check_out(name, out)
    return dispatch(op, input, other, out=out, reverse=reverse, **params)


def _number_first(op, name: str, number, tensor: Tensor, out, **params):
    """``op(number, tensor)`` (PyTorch wraps the number as a tensor): the reflected op, the number
    first in the math order. PyTorch converts the number to a float16/bfloat16 common dtype: the
    reflected kernel's number is rounded already, except for true division (whose reflected form is
    the ``/`` operator's, PyTorch's ``reciprocal(t) * number``), rounded here."""
    number = E.as_operand(name, number, _NUMBER_FIRST[name])
    if op is DIV and (tensor.dtype is D.float16 or tensor.dtype is D.bfloat16):
        number = E.round_scalar_to(number, tensor.dtype)
    return _binary(op, name, tensor, number, out=out, reverse=True, **params)


def _binary_(op, name: str, self: Tensor, other, needs_self: str | None = "other", **params):
    """In place: ``self = op(self, other)``. When the backward needs the old ``self`` (for the
    gradient of ``other`` with ``needs_self="other"``, of either with ``"any"``), compute out of place
    from a clone of ``self`` and copy the result in, as PyTorch saves a clone of ``self``."""
    other = E.as_operand(name + "_", other)
    other_grad = isinstance(other, Tensor) and other._requires_grad
    if needs_self and _grad_on() and (other_grad or (needs_self == "any" and self._requires_grad)):
        return E.inplace_composite(name, lambda src, o: dispatch(op, src, o, **params), self, other)
    return dispatch(op, self, other, inplace=True, **params)


# ----------------------------------------------------------------------------------------------
# public functions and methods
# ----------------------------------------------------------------------------------------------


@tensor_method
@scalars_first("alpha")
def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` (either may broadcast; either may be a number)."""
    if alpha.__class__ is not int:
        alpha = E.number_param("add", alpha, "alpha")
    return _binary(ADD, "add", input, other, out=out, alpha=alpha)


@tensor_method
@scalars_first("alpha")
def add_(self, other, *, alpha=1):
    if alpha.__class__ is not int:
        alpha = E.number_param("add_", alpha, "alpha")
    return _binary_(ADD, "add", self, other, needs_self=None, alpha=alpha)


@tensor_method
@scalars_first("alpha")
def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other`` (either may be a number)."""
    if alpha.__class__ is not int:
        alpha = E.number_param("sub", alpha, "alpha")
    return _binary(SUB, "sub", input, other, out=out, alpha=alpha)


@tensor_method
@scalars_first("alpha")
def sub_(self, other, *, alpha=1):
    if alpha.__class__ is not int:
        alpha = E.number_param("sub_", alpha, "alpha")
    return _binary_(SUB, "sub", self, other, needs_self=None, alpha=alpha)


subtract, subtract_ = sub, sub_
tensor_method(subtract, name="subtract")
tensor_method(subtract_, name="subtract_")


@tensor_method
def rsub(input, other, alpha=1):
    """``other - alpha * input`` (PyTorch's ``rsub``; what ``2 - t`` computes; ``alpha`` positional too, as
    PyTorch's overload for a number ``other``)."""
    need_tensor("rsub", input)  # (rsub(2, t) would compute t - 2)
    if alpha.__class__ is not int:
        alpha = E.number_param("rsub", alpha, "alpha")
    if alpha != 1:  # (sub checks it too, under its own name)
        _check_alpha("rsub", _common_dtype("rsub", input, E.as_operand("rsub", other)), alpha)
    if isinstance(other, Tensor):
        return _binary(SUB, "rsub", other, input, alpha=alpha)
    # one kernel computes other - alpha * input in the result dtype, as PyTorch's sub(other, input,
    # alpha) (alpha * input is not computed, nor wrapped, in the input's dtype first)
    return _binary(SUB, "rsub", input, other, reverse=True, alpha=alpha)


@tensor_method
def mul(input, other, *, out=None):
    """``input * other`` (either may be a number)."""
    return _binary(MUL, "mul", input, other, out=out)


@tensor_method
def mul_(self, other):
    return _binary_(MUL, "mul", self, other)


multiply, multiply_ = mul, mul_
tensor_method(multiply, name="multiply")
tensor_method(multiply_, name="multiply_")


def _rounding(op: str, rounding_mode):
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError(f"{op}(): expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    return rounding_mode


@tensor_method
def div(input, other, *, rounding_mode=None, out=None):
    """``input / other``: true division (integers give floats), or rounded: 'trunc' / 'floor'; either
    may be a number."""
    return _binary(DIV, "div", input, other, out=out, rounding_mode=_rounding("div", rounding_mode))


@tensor_method
def div_(self, other, *, rounding_mode=None):
    return _binary_(DIV, "div", self, other, rounding_mode=_rounding("div_", rounding_mode))


divide, divide_ = div, div_
tensor_method(divide, name="divide")
tensor_method(divide_, name="divide_")


@tensor_method
def true_divide(input, other, *, out=None):
    return _binary(DIV, "true_divide", input, other, out=out, rounding_mode=None)


@tensor_method
def true_divide_(self, other):
    return _binary_(DIV, "true_divide", self, other, rounding_mode=None)


@tensor_method
def floor_divide(input, other, *, out=None):
    """Division rounded toward negative infinity (Python's ``//``)."""
    return _binary(DIV, "floor_divide", input, other, out=out, rounding_mode="floor")


@tensor_method
def floor_divide_(self, other):
    return _binary_(DIV, "floor_divide", self, other, rounding_mode="floor")


@tensor_method
def remainder(input, other, *, out=None):
    """Python's ``%``: the result has the sign of ``other``. ``input`` may be a number."""
    return _binary(REMAINDER, "remainder", input, other, out=out)


@tensor_method
def remainder_(self, other):
    return _binary_(REMAINDER, "remainder", self, other)


@tensor_method
def fmod(input, other, *, out=None):
    """C's ``fmod``: the result has the sign of ``input``."""
    return _binary(FMOD, "fmod", input, other, out=out)


@tensor_method
def fmod_(self, other):
    return _binary_(FMOD, "fmod", self, other)


@tensor_method
def pow(input, exponent, *, out=None):  # noqa: A001
    """``input ** exponent``; either may be a number (``pow(2, t)``)."""
    return _binary(POW, "pow", input, exponent, out=out)


@tensor_method
def pow_(self, exponent):
    return _binary_(POW, "pow", self, exponent, needs_self="any")


def _tensor_pair(name: str, input, other, position: int = 2):
    """``(input, other)`` of an op whose ``other`` must be a Tensor (no Scalar overload in PyTorch);
    ``position`` 1 for a method's in-place form (``atan2_(self, other)``: self is not counted)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position {position}) must be Tensor, not {type(other).__name__}")
    return input, other


@tensor_method
def maximum(input, other, *, out=None):
    """Elementwise maximum; nan propagates."""
    return _binary(MAXIMUM, "maximum", *_tensor_pair("maximum", input, other), out=out)


@tensor_method
def minimum(input, other, *, out=None):
    """Elementwise minimum; nan propagates."""
    return _binary(MINIMUM, "minimum", *_tensor_pair("minimum", input, other), out=out)


@tensor_method
def fmax(input, other, *, out=None):
    """Elementwise maximum ignoring nan (nan only where both are nan)."""
    return _binary(FMAX, "fmax", *_tensor_pair("fmax", input, other), out=out)


@tensor_method
def fmin(input, other, *, out=None):
    """Elementwise minimum ignoring nan."""
    return _binary(FMIN, "fmin", *_tensor_pair("fmin", input, other), out=out)


@tensor_method
def atan2(input, other, *, out=None):
    """``atan(input / other)`` in the quadrant of (other, input)."""
    return _binary(ATAN2, "atan2", *_tensor_pair("atan2", input, other), out=out)


@tensor_method
def atan2_(self, other):
    return _binary_(ATAN2, "atan2", *_tensor_pair("atan2_", self, other, 1), needs_self="any")


arctan2, arctan2_ = atan2, atan2_
tensor_method(arctan2, name="arctan2")
tensor_method(arctan2_, name="arctan2_")


@tensor_method
def hypot(input, other, *, out=None):
    return _binary(HYPOT, "hypot", *_tensor_pair("hypot", input, other), out=out)


@tensor_method
def hypot_(self, other):
    return _binary_(HYPOT, "hypot", *_tensor_pair("hypot_", self, other, 1), needs_self="any")


@tensor_method
def gcd(input, other, *, out=None):
    """The greatest common divisor, elementwise (integers; gcd(0, 0) = 0)."""
    return _binary(GCD, "gcd", *_tensor_pair("gcd", input, other), out=out)


@tensor_method
def gcd_(self, other):
    return _binary_(GCD, "gcd", *_tensor_pair("gcd_", self, other, 1), needs_self=None)


@tensor_method
def lcm(input, other, *, out=None):
    """The least common multiple, elementwise (integers; 0 if either is 0)."""
    return _binary(LCM, "lcm", *_tensor_pair("lcm", input, other), out=out)


@tensor_method
def lcm_(self, other):
    return _binary_(LCM, "lcm", *_tensor_pair("lcm_", self, other, 1), needs_self=None)


@tensor_method
def copysign(input, other, *, out=None):
    """``|input|`` with the sign of ``other`` (a tensor or a number)."""
    return _binary(COPYSIGN, "copysign", input, other, out=out)


@tensor_method
def copysign_(self, other):
    return _binary_(COPYSIGN, "copysign", self, other, needs_self="any")


@tensor_method
def logaddexp(input, other, *, out=None):
    """``log(exp(input) + exp(other))`` without overflow (floating tensors only)."""
    return _binary(LOGADDEXP, "logaddexp", *_tensor_pair("logaddexp", input, other), out=out)


@tensor_method
def logaddexp2(input, other, *, out=None):
    """``log2(2**input + 2**other)`` without overflow (floating tensors only)."""
    return _binary(LOGADDEXP2, "logaddexp2", *_tensor_pair("logaddexp2", input, other), out=out)


@tensor_method
def xlogy(input, other, *, out=None):
    """``input * log(other)``, 0 where ``input`` is 0 (unless ``other`` is nan); either may be a number."""
    return _binary(XLOGY, "xlogy", input, other, out=out)


@tensor_method
def xlogy_(self, other):
    return _binary_(XLOGY, "xlogy", self, other, needs_self="any")  # self's gradient reads self (0 where it is 0)


def xlog1py(input, other, *, out=None):
    """``input * log1p(other)``, 0 where ``input`` is 0 (unless ``other`` is nan); either may be a
    number (``torch.special.xlog1py``: no Tensor method)."""
    return _binary(XLOG1PY, "xlog1py", input, other, out=out)


def _comparison(op, name, tensor_other: bool = False):
    """``name`` and ``name_``; ``tensor_other``: ``other`` must be a Tensor (PyTorch's logical ops take no number)."""

    def fn(input, other, *, out=None):
        if tensor_other:
            _tensor_pair(name, input, other)
        return _binary(op, name, input, other, out=out)

    def fn_(self, other):
        if tensor_other:
            _tensor_pair(name + "_", self, other, 1)
        return _binary_(op, name, self, other, needs_self=None)

    fn.__name__, fn_.__name__ = name, name + "_"
    fn.__doc__ = f"``{op.doc}`` elementwise, as a bool tensor."
    tensor_method(fn, name=name)
    tensor_method(fn_, name=name + "_")
    return fn, fn_


eq, eq_ = _comparison(EQ, "eq")
ne, ne_ = _comparison(NE, "ne")
lt, lt_ = _comparison(LT, "lt")
le, le_ = _comparison(LE, "le")
gt, gt_ = _comparison(GT, "gt")
ge, ge_ = _comparison(GE, "ge")
not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge
not_equal_, less_, less_equal_, greater_, greater_equal_ = ne_, lt_, le_, gt_, ge_
for _alias, _fn in (("not_equal", ne), ("less", lt), ("less_equal", le), ("greater", gt), ("greater_equal", ge),
                    ("not_equal_", ne_), ("less_", lt_), ("less_equal_", le_), ("greater_", gt_),
                    ("greater_equal_", ge_)):
    tensor_method(_fn, name=_alias)
logical_and, logical_and_ = _comparison(LOGICAL_AND, "logical_and", tensor_other=True)
logical_or, logical_or_ = _comparison(LOGICAL_OR, "logical_or", tensor_other=True)
logical_xor, logical_xor_ = _comparison(LOGICAL_XOR, "logical_xor", tensor_other=True)
bitwise_and, bitwise_and_ = _comparison(BITWISE_AND, "bitwise_and")
bitwise_or, bitwise_or_ = _comparison(BITWISE_OR, "bitwise_or")
bitwise_xor, bitwise_xor_ = _comparison(BITWISE_XOR, "bitwise_xor")
bitwise_left_shift, bitwise_left_shift_ = _comparison(LEFT_SHIFT, "bitwise_left_shift")
bitwise_right_shift, bitwise_right_shift_ = _comparison(RIGHT_SHIFT, "bitwise_right_shift")
for _f in (logical_and, logical_or, logical_xor, bitwise_and, bitwise_or, bitwise_xor):
    _f.__doc__ = f"``{_f.__name__}`` elementwise."


@tensor_method
def equal(input, other) -> bool:
    """True when both tensors have the same shape and elements (PyTorch's ``equal``)."""
    need_tensor("equal", input, "input", 1)
    need_tensor("equal", other, "other", 2)
    if input._shape != other._shape:
        return False
    return bool(eq(input, other).all())


# ----------------------------------------------------------------------------------------------
# ternary ops: where, clamp, lerp, addcmul, addcdiv
# ----------------------------------------------------------------------------------------------


def _where_meta(cond, a, b) -> Plan:
    if cond.dtype is D.uint8:  # PyTorch 2.13 still takes it (nonzero is True), with this warning
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                      "future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=4)
    elif cond.dtype is not D.bool:
        raise RuntimeError(f"where(): expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{D.torch_name(cond.dtype)}")
    out_dtype = D.result_type(a, b)
    # a number must fit the result dtype (PyTorch's overflow check), except a float16/bfloat16 one,
    # which PyTorch's where rounds unchecked (where(c, half_t, 70000.0) is inf there)
    if out_dtype not in _HALF:
        E.check_scalars_fit("where", out_dtype, a, b)
    shape = E.broadcast_shape("where", cond, a, b)
    return Plan(args=E.impl_args("where", shape, (cond, a, b)), outputs=[E.output_spec(shape, out_dtype, (cond, a, b))],
                params={"op": "where", "ct": E.ct(out_dtype)})


def _where_backward(ctx, g):
    (cond,) = ctx.saved_tensors
    if cond.dtype is not D.bool:  # (a uint8 condition: warned about once, in the forward)
        cond = cond != 0
    ga = E.reduce_grad(where(cond, g, 0.0), ctx.inputs[1]) if ctx.needs_input_grad[1] else None
    gb = E.reduce_grad(where(cond, 0.0, g), ctx.inputs[2]) if ctx.needs_input_grad[2] else None
    return None, ga, gb


WHERE = defop("where", twin=kt.ternary_twin, kernel=kt.ternary, meta=_where_meta, backward=_where_backward,
              save=lambda ctx, inputs, outputs, params: ctx.save_for_backward(inputs[0]), tags=E.TAGS,
              doc="condition ? input : other")


def where(condition, input=None, other=None, *, out=None):
    """``input`` where ``condition`` is True, else ``other`` (either may be a number)."""
    need_tensor("where", condition, "condition")
    if input is None and other is None:
        import tensorlab

        if not hasattr(tensorlab, "nonzero"):
            raise NotImplementedError("where(condition) is nonzero(condition, as_tuple=True); nonzero is not available")
        return tensorlab.nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor):
        raise TypeError(f"where(): argument 'condition' (position 1) must be Tensor, not {type(condition).__name__}")
    if input is None or other is None:
        raise TypeError("where(): expected both input and other (or neither)")
    if out is not None:
        # PyTorch's where.self_out: tensor values only (its number overloads take no out=), and an
        # out= of exactly the result dtype (no cast)
        E.check_out("where", out)
        for name, position, x in (("input", 2, input), ("other", 3, other)):
            if not isinstance(x, Tensor):
                raise TypeError(f"where(): argument '{name}' (position {position}) must be Tensor, not "
                                f"{type(x).__name__}")
        result = D.result_type(input, other)
        if out.dtype is not result:
            raise RuntimeError(f"where(): Expected out type to be {D.torch_name(result)} but got "
                               f"{D.torch_name(out.dtype)}")
    return dispatch(WHERE, condition, E.as_operand("where", input, "input"), E.as_operand("where", other), out=out)


def _tensor_where(self, condition, other):
    """``self.where(condition, y)`` is ``where(condition, self, y)``."""
    return where(condition, self, other)


tensor_method(_tensor_where, name="where")


def _clamp_meta(x, lo, hi) -> Plan:
    out_dtype = D.result_type(x, lo, hi)
    if out_dtype is D.bool:  # PyTorch has no bool clamp kernel (clamp(bool, 0, 1) is int64 and works)
        raise E.not_implemented_for("clamp", out_dtype)
    E.check_scalars_fit("clamp", out_dtype, lo, hi)
    shape = E.broadcast_shape("clamp", x, lo, hi)
    # (number bounds are parameters of PyTorch's clamp.Scalar, not operands its layout rule sees)
    operands = (x, lo, hi) if isinstance(lo, Tensor) or isinstance(hi, Tensor) else (x,)
    return Plan(args=E.impl_args("clamp", shape, (x, lo, hi)), outputs=[E.output_spec(shape, out_dtype, operands)],
                params={"op": "clamp", "ct": E.ct(out_dtype)})


def _clamp_backward(ctx, g):
    """PyTorch 2.15's subgradients. Number bounds: the gradient strictly inside (0 at a bound, as
    hardtanh). Tensor bounds: x strictly inside gets it; x at a bound of a proper interval
    (lo < hi) shares it evenly with that bound; x == lo == hi and NaNs (no comparison holds) give it to
    x; below lo it goes to lo, above hi to hi (both when lo <= hi), and to hi wherever lo > hi (the
    result is hi there)."""
    x, lo, hi = (s if isinstance(m, TensorMeta) else m for s, m in zip(ctx.saved_tensors, ctx.inputs))
    n = ctx.needs_input_grad
    if not isinstance(lo, Tensor):  # (number bounds: both are, PyTorch's clamp.Scalar)
        return (E.reduce_grad(where((x > lo) & (x < hi), g, 0.0), ctx.inputs[0]) if n[0] else None), None, None
    proper = lo < hi
    tie_lo, tie_hi = (x == lo) & proper, (x == hi) & proper
    half = g / 2
    gx = glo = ghi = None
    if n[0]:
        gx = E.reduce_grad(where((x < lo) | (x > hi), 0.0, where(tie_lo | tie_hi, half, g)), ctx.inputs[0])
    if n[1]:
        glo = E.reduce_grad(where((x < lo) & (lo <= hi), g, where(tie_lo, half, 0.0)), ctx.inputs[1])
    if n[2]:
        ghi = E.reduce_grad(where(((x > hi) & (lo <= hi)) | (lo > hi), g, where(tie_hi, half, 0.0)), ctx.inputs[2])
    return gx, glo, ghi


CLAMP = defop("clamp", twin=kt.ternary_twin, kernel=kt.ternary, meta=_clamp_meta, backward=_clamp_backward,
              save=E.save_inputs, tags=E.TAGS, doc="min(max(input, min), max); nan propagates")


def _clamp_args(op: str, min, max):
    if min is None and max is None:
        raise RuntimeError(f"{op}(): At least one of 'min' or 'max' must not be None")
    if min is not None and max is not None and isinstance(min, Tensor) is not isinstance(max, Tensor):
        # PyTorch's overloads: two tensor bounds or two number bounds, not one of each; its argument
        # parser takes a 0-d tensor that needs no gradient as a number
        min, max = _as_number_bound(min), _as_number_bound(max)  # noqa: A001
    if min is not None and max is not None and isinstance(min, Tensor) is not isinstance(max, Tensor):
        raise TypeError(f"{op}() received an invalid combination of arguments - got (min={type(min).__name__}, "
                        f"max={type(max).__name__}), but expected one of: (Tensor min, Tensor max), "
                        "(Number min, Number max)")
    lo = None if min is None else E.as_operand(op, min, "min")
    hi = None if max is None else E.as_operand(op, max, "max")
    return lo, hi


def _as_number_bound(bound):
    if isinstance(bound, Tensor) and bound.ndim == 0 and not bound.requires_grad:
        return bound.item()
    return bound


def _clamp_bounds(op: str, input, lo, hi) -> tuple:
    """Number bounds of an integer clamp saturated to its dtype's range (``E.fit_clamp_bounds``)."""
    if not isinstance(input, Tensor) or isinstance(lo, Tensor) or isinstance(hi, Tensor):
        return lo, hi
    return E.fit_clamp_bounds(D.result_type(*(x for x in (input, lo, hi) if x is not None)), lo, hi)


def _check_number_bounds_out(out, input, lo, hi) -> None:
    """PyTorch's clamp.Scalar_out (number bounds) writes an ``out=`` of exactly the result dtype
    (its tensor-bound overload casts)."""
    if out is None or isinstance(lo, Tensor) or isinstance(hi, Tensor) or not isinstance(input, Tensor):
        return
    expected = D.result_type(*(x for x in (input, lo, hi) if x is not None))
    if out.dtype is not expected:
        raise RuntimeError(f"Found dtype {D.torch_name(out.dtype)} but expected {D.torch_name(expected)}")


@tensor_method
def clamp(input, min=None, max=None, *, out=None):  # noqa: A002
    """Clamp to [min, max] (tensors or numbers; either may be None, not both)."""
    lo, hi = _clamp_bounds("clamp", input, *_clamp_args("clamp", min, max))
    E.check_out("clamp", out)
    _check_number_bounds_out(out, input, lo, hi)
    if hi is None:
        return dispatch(CLAMP_MIN, input, lo, out=out)
    if lo is None:
        return dispatch(CLAMP_MAX, input, hi, out=out)
    return dispatch(CLAMP, input, lo, hi, out=out)


@tensor_method
def clamp_(input, min=None, max=None):  # noqa: A002
    lo, hi = _clamp_bounds("clamp_", input, *_clamp_args("clamp_", min, max))
    if hi is None:
        return _binary_(CLAMP_MIN, "clamp_min", input, lo, needs_self="any")
    if lo is None:
        return _binary_(CLAMP_MAX, "clamp_max", input, hi, needs_self="any")
    if _grad_on() and any(isinstance(t, Tensor) and t._requires_grad for t in (input, lo, hi)):
        return input.copy_(dispatch(CLAMP, input.clone(), lo, hi))
    return dispatch(CLAMP, input, lo, hi, inplace=True)


clip, clip_ = clamp, clamp_
tensor_method(clip, name="clip")
tensor_method(clip_, name="clip_")


@tensor_method
def clamp_min(input, min, *, out=None):  # noqa: A002
    _check_number_bounds_out(out, input, min, None)
    return _binary(CLAMP_MIN, "clamp_min", input, _clamp_bounds("clamp_min", input, _bound("clamp_min", min), None)[0],
                   out=out)


@tensor_method
def clamp_min_(input, min):  # noqa: A002
    min = _clamp_bounds("clamp_min_", input, _bound("clamp_min_", min), None)[0]  # noqa: A001
    return _binary_(CLAMP_MIN, "clamp_min", input, min, needs_self="any")


@tensor_method
def clamp_max(input, max, *, out=None):  # noqa: A002
    _check_number_bounds_out(out, input, None, max)
    return _binary(CLAMP_MAX, "clamp_max", input, _clamp_bounds("clamp_max", input, None, _bound("clamp_max", max))[1],
                   out=out)


@tensor_method
def clamp_max_(input, max):  # noqa: A002
    max = _clamp_bounds("clamp_max_", input, None, _bound("clamp_max_", max))[1]  # noqa: A001
    return _binary_(CLAMP_MAX, "clamp_max", input, max, needs_self="any")


def _bound(op: str, x):
    """A clamp_min/clamp_max bound: a Tensor, or a number as a plain Python scalar."""
    return x if isinstance(x, Tensor) else E.as_operand(op, x, "min" if op.startswith("clamp_min") else "max")


def _lerp_meta(start, end, weight) -> Plan:
    # PyTorch 2.13: end has input's dtype; so has a weight tensor, except a 0-d one, which joins the
    # dtype promotion (float16 p.lerp_(q, <0-d float32>) is float16, int64 with a 0-d float weight float32)
    zero_d_weight = isinstance(weight, Tensor) and not weight._shape
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.dtype is not start.dtype and not (t is weight and zero_d_weight):
            raise RuntimeError(f"lerp(): expected dtype {start.dtype.name} for `{name}` but got dtype {t.dtype.name}")
    dtype = D.result_type(start, end, weight) if zero_d_weight else start.dtype
    if not dtype.is_floating_point:
        raise E.not_implemented_for("lerp", dtype)
    params = {"op": "lerp", "ct": E.ct(dtype)}
    if not isinstance(weight, Tensor):  # a number weight is read in the opmath type (float32 for float16)
        weight = E.fit_scalars("lerp", dtype, True, weight=weight)["weight"]
    elif (dtype is D.float16 or dtype is D.bfloat16) and weight.dtype is not dtype:
        params["rnd"] = dtype.name  # (PyTorch converts the 0-d weight to the common dtype first)
    shape = E.broadcast_shape("lerp", start, end, weight)
    return Plan(args=E.impl_args("lerp", shape, (start, end, weight)),
                outputs=[E.output_spec(shape, dtype, (start, end, weight) if isinstance(weight, Tensor)
                                       else (start, end))],  # (a number weight: lerp.Scalar's parameter)
                params=params)


def _lerp_backward(ctx, g):
    start, end, w = (s if isinstance(m, TensorMeta) else m for s, m in zip(ctx.saved_tensors, ctx.inputs))
    n = ctx.needs_input_grad
    gs = E.reduce_grad(g * (1 - w) if isinstance(w, Tensor) else g * (1.0 - w), ctx.inputs[0]) if n[0] else None
    ge_ = E.reduce_grad(g * w, ctx.inputs[1]) if n[1] else None
    gw = E.reduce_grad(g * (end - start), ctx.inputs[2]) if n[2] else None
    return gs, ge_, gw


LERP = defop("lerp", twin=kt.ternary_twin, kernel=kt.ternary, meta=_lerp_meta, backward=_lerp_backward,
             save=E.save_for({0: [2], 1: [2], 2: [0, 1]}), tags=E.TAGS, doc="start + weight * (end - start)")
# (what PyTorch saves: nothing for a number weight; for a tensor weight, start and end for the
# weight's gradient and the weight for the others')


@tensor_method
def lerp(input, end, weight, *, out=None):
    """``input + weight * (end - input)`` (``weight`` a number or a tensor)."""
    _lerp_end("lerp", end, weight)
    if out is not None:
        E.check_out("lerp", out)
        if isinstance(weight, Tensor) and weight._shape and isinstance(input, Tensor) and out.dtype is not input.dtype:
            # lerp.Tensor's operands all have one dtype (_lerp_meta), and so must its out= (torch 2.13
            # relaxes that only for a 0-d weight, which joins the promotion and casts into out=)
            raise RuntimeError(f"lerp(): Found dtype {D.torch_name(out.dtype)} but expected "
                               f"{D.torch_name(input.dtype)}")
    w = weight if isinstance(weight, Tensor) else E.number_param("lerp", weight, "weight")
    return dispatch(LERP, input, end, w, out=out)


def _lerp_end(op: str, end, weight) -> None:
    """PyTorch's lerp overloads take ``end`` as a Tensor (the weight a Tensor or a number)."""
    if not isinstance(end, Tensor):
        raise TypeError(f"{op}() received an invalid combination of arguments - got (end={type(end).__name__}, "
                        f"weight={type(weight).__name__}), but expected one of: (Tensor end, Tensor weight), "
                        "(Tensor end, Number weight)")


@tensor_method
def lerp_(self, end, weight):
    _lerp_end("lerp_", end, weight)
    w = weight if isinstance(weight, Tensor) else E.number_param("lerp_", weight, "weight")
    if _grad_on() and isinstance(w, Tensor) and w._requires_grad:  # the weight's gradient needs the old self
        return self.copy_(dispatch(LERP, self.clone(), end, w))
    return dispatch(LERP, self, end, w, inplace=True)


def _addc_meta(name: str):
    def meta(x, t1, t2, *, value=1) -> Plan:
        out_dtype = D.result_type(x, t1, t2)
        if name == "addcmul" and out_dtype is D.bool:  # PyTorch has no bool addcmul kernel
            raise E.not_implemented_for(name, out_dtype)
        if name == "addcdiv" and not D.promote_types(t1.dtype, t2.dtype).is_floating_point:
            raise RuntimeError(
                "addcdiv(): Integer division with addcdiv is no longer supported, and in a future release addcdiv "
                "will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs "
                "and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just "
                "the latter implementation: (input + value * tensor1 / tensor2), for all dtypes."
            )
        # (no alpha_check in PyTorch's addcmul: addcmul(int64, value=2.5) truncates it, value=True is 1;
        # read as float32 for float16)
        value = E.fit_scalars(name, out_dtype, True, value=value)["value"]
        shape = E.broadcast_shape(name, x, t1, t2)
        params = {"op": name, "ct": E.ct(out_dtype), "value": value}
        if (out_dtype is D.float16 or out_dtype is D.bfloat16) and not (
                x.dtype is out_dtype and t1.dtype is out_dtype and t2.dtype is out_dtype):
            params["rnd"] = out_dtype.name  # PyTorch converts each operand to the common dtype first
        return Plan(args=E.impl_args(name, shape, (x, t1, t2)), outputs=[E.output_spec(shape, out_dtype, (x, t1, t2))],
                    params=params)

    return meta


def _addcmul_backward(ctx, g):
    _, t1, t2 = ctx.saved_tensors
    v = ctx.params.get("value", 1)
    n = ctx.needs_input_grad
    gx = E.reduce_grad(g, ctx.inputs[0]) if n[0] else None
    g1 = E.reduce_grad(g * t2 * v, ctx.inputs[1]) if n[1] else None
    g2 = E.reduce_grad(g * t1 * v, ctx.inputs[2]) if n[2] else None
    return gx, g1, g2


def _addcdiv_backward(ctx, g):
    _, t1, t2 = ctx.saved_tensors
    v = ctx.params.get("value", 1)
    n = ctx.needs_input_grad
    gx = E.reduce_grad(g, ctx.inputs[0]) if n[0] else None
    g1 = E.reduce_grad(g * v / t2, ctx.inputs[1]) if n[1] else None
    g2 = E.reduce_grad(-g * v * t1 / (t2 * t2), ctx.inputs[2]) if n[2] else None
    return gx, g1, g2


# input's gradient is g: only tensor1 and tensor2 are saved, for each other's gradient (PyTorch's
# rule), so input may be modified in place, and addcmul_ / addcdiv_ write in place under autograd.
ADDCMUL = defop("addcmul", twin=kt.ternary_twin, kernel=kt.ternary, meta=_addc_meta("addcmul"),
                backward=_addcmul_backward, save=E.save_for({1: [2], 2: [1]}), tags=E.TAGS,
                doc="input + value * t1 * t2")
ADDCDIV = defop("addcdiv", twin=kt.ternary_twin, kernel=kt.ternary, meta=_addc_meta("addcdiv"),
                backward=_addcdiv_backward, save=E.save_for({1: [2], 2: [1, 2]}), tags=E.TAGS,
                doc="input + value * t1 / t2")


def _addc(op, name, input, tensor1, tensor2, value, out=None, inplace=False):
    for i, t in enumerate((input, tensor1, tensor2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}(): argument {i + 1} must be Tensor, not {type(t).__name__}")
    value = E.number_param(name, value, "value")
    E.check_out(name, out)
    if inplace:
        return dispatch(op, input, tensor1, tensor2, value=value, inplace=True)
    return dispatch(op, input, tensor1, tensor2, value=value, out=out)


@tensor_method
@scalars_first("value")
def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    return _addc(ADDCMUL, "addcmul", input, tensor1, tensor2, value, out)


@tensor_method
@scalars_first("value")
def addcmul_(self, tensor1, tensor2, *, value=1):
    return _addc(ADDCMUL, "addcmul", self, tensor1, tensor2, value, inplace=True)


@tensor_method
@scalars_first("value")
def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    return _addc(ADDCDIV, "addcdiv", input, tensor1, tensor2, value, out)


@tensor_method
@scalars_first("value")
def addcdiv_(self, tensor1, tensor2, *, value=1):
    return _addc(ADDCDIV, "addcdiv", self, tensor1, tensor2, value, inplace=True)


def isnan(input):  # the unary module defines the real one; imported lazily to avoid a cycle
    from .elementwise_unary import isnan as _isnan

    return _isnan(input)


__all__ = [
    "add", "sub", "subtract", "rsub", "mul", "multiply", "div", "divide", "true_divide", "floor_divide", "remainder",
    "fmod", "pow", "maximum", "minimum", "fmax", "fmin", "atan2", "arctan2", "hypot", "copysign", "logaddexp",
    "logaddexp2", "xlogy", "eq", "ne", "lt", "le", "gt", "ge", "not_equal", "less", "less_equal", "greater",
    "greater_equal", "equal", "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_left_shift", "bitwise_right_shift", "where", "clamp", "clip", "clamp_min", "clamp_max", "lerp", "addcmul",
    "addcdiv", "gcd", "lcm",
    # the in-place forms PyTorch also has as functions (torch.clamp_(t, ...))
    "clamp_", "clip_", "clamp_min_", "clamp_max_", "xlogy_", "gcd_", "lcm_",
]
