"""OpInfo entries for the elementwise family: unary math and activations, binary ops, ternary ops.

References are independent numpy formulas evaluated in float64 (``math.erf`` for erf/gelu, a
Newton-refined erfinv), rounded to the op's result dtype before the comparison: a value that
overflows float16 must be inf there too. The result dtype travels to the reference as the
private keyword ``_rdt`` that the op wrappers drop.

Samples cover 0-d, empty, size-1, odd sizes that leave a masked tail, 2-d and 3-d shapes,
broadcasting in both directions, Python scalars (weak promotion), 0-d tensors with dimensioned
ones, and extremal values (±inf, nan, ±0, float16's ±65504). Domain-restricted ops (log, sqrt,
asin, logit, erfinv, ...) sample inside their domain plus one extremal sample.
"""

from __future__ import annotations

import math

import numpy as np

import tensorlab as tl
from tests.helpers import random_array

from .core import OpInfo, SampleInput, all_dtypes, float_dtypes, non_bool_dtypes

F16, BF16, F32, F64 = tl.float16, tl.bfloat16, tl.float32, tl.float64
INTS = (tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64)
SIGNED_INTS = (tl.int8, tl.int16, tl.int32, tl.int64)
FLOATS = float_dtypes()
ALL = all_dtypes()
CUDA_FLOAT = (F32, F16, BF16)  # the interpreter is slow: cpu covers every dtype
CUDA_ALL = (F32, F16, BF16, tl.int32, tl.bool)

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def _erfinv_ref(y):
    """erfinv by bisection on math.erf (slow but obviously right; arrays are small)."""
    y = np.asarray(y, dtype=np.float64)
    out = np.empty_like(y)
    for i, v in np.ndenumerate(y):
        if np.isnan(v) or abs(v) > 1:
            out[i] = np.nan
        elif abs(v) == 1:
            out[i] = math.copysign(math.inf, v)
        else:
            lo, hi = -6.0, 6.0
            for _ in range(200):
                mid = 0.5 * (lo + hi)
                if math.erf(mid) < v:
                    lo = mid
                else:
                    hi = mid
            out[i] = 0.5 * (lo + hi)
    return out


# ----------------------------------------------------------------------------------------------
# helpers: result dtypes, op/reference wrappers
# ----------------------------------------------------------------------------------------------


def _float_result(dtype):
    return dtype if dtype.is_floating_point else tl.get_default_dtype()


_RESULT = {"float": _float_result, "same": lambda d: d, "bool": lambda d: tl.bool}


def _wrap_op(fn):
    def op(*args, _rdt=None, **kwargs):
        return fn(*args, **kwargs)

    return op


def _wrap_ref(fn, pass_rdt=False):
    """Reference in float64, then rounded to the result dtype (so float16 overflows to inf, as it must)."""

    def ref(*args, _rdt=None, **kwargs):
        if _rdt is not None and getattr(tl, _rdt).is_floating_point:  # integer inputs of a float op: exact float64
            args = [a.astype(np.float64) if isinstance(a, np.ndarray) else a for a in args]
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*args, _rdt=_rdt, **kwargs) if pass_rdt else fn(*args, **kwargs))
            if _rdt is not None:
                target = getattr(tl, _rdt)
                if target.is_floating_point:
                    out = out.astype(np.float64).astype(target.np).astype(np.float64)
                elif target is tl.bool:
                    out = out.astype(bool)
                else:
                    out = out.astype(target.np)
        return out

    return ref


def _extremal(dtype):
    vals = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30, 2.5, -1.5]
    if dtype is F16:
        vals += [65504.0, -65504.0, 6e-8]
    return np.array(vals, dtype=np.float64).astype(dtype.np)


# ----------------------------------------------------------------------------------------------
# unary
# ----------------------------------------------------------------------------------------------

_UNARY_SHAPES = [(), (0,), (1,), (7,), (3, 5), (2, 3, 4)]


def _unary_samples(result, domain=(-3.0, 3.0), int_domain=(-9, 9), kwargs=None, extremal=True, extra=()):
    kwargs = kwargs or {}

    def samples(dtype, rng):
        rdt = _RESULT[result](dtype).name
        lo, hi = domain if dtype.is_floating_point else int_domain
        shapes = _UNARY_SHAPES + ([(1025,)] if dtype is not F64 else [])
        out = [SampleInput((random_array(s, dtype, rng, low=lo, high=hi),), dict(kwargs, _rdt=rdt), name=str(s))
               for s in shapes]
        if extremal and dtype.is_floating_point:
            out.append(SampleInput((_extremal(dtype),), dict(kwargs, _rdt=rdt), name="extremal"))
        for values in extra:
            if dtype.is_floating_point:  # special values: checked for values, not by finite differences
                out.append(SampleInput((np.array(values, dtype=np.float64).astype(dtype.np),), dict(kwargs, _rdt=rdt),
                                       name="special", grad_args=()))
        return out

    return samples


def unary_info(name, fn, ref, *, result="float", dtypes=ALL, cuda_dtypes=CUDA_FLOAT, domain=(-3.0, 3.0),
               int_domain=(-9, 9), kwargs=None, grad=True, extremal=True, extra=(), tol=None, pass_rdt=False):
    return OpInfo(name, _wrap_op(fn), _wrap_ref(ref, pass_rdt),
                  _unary_samples(result, domain, int_domain, kwargs, extremal, extra), dtypes,
                  cuda_dtypes=cuda_dtypes, grad=grad, tol=tol or {},
                  out_dtype=_RESULT[result])


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _logit_eps_ref(x, eps, _rdt=None):
    """PyTorch clamps to eps and 1 - eps rounded to the result dtype (float32 arithmetic for float16
    and bfloat16)."""
    rdt = getattr(tl, _rdt) if _rdt else tl.float64
    lo, hi = eps, 1 - eps
    if rdt is not tl.float64:
        lo = np.float32(eps).astype(rdt.np)
        hi = (np.float32(1) - np.float32(lo)).astype(rdt.np)
    z = np.clip(x, float(lo), float(hi))
    return np.log(z / (1 - z))


def _softplus(x, beta=1.0, threshold=20.0):
    return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)


def _gelu(x):
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


def _gelu_tanh(x):
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


def _nan_to_num_ref(x, nan=0.0, posinf=None, neginf=None, _rdt=None):
    if x.dtype.kind != "f":
        return x
    dt = getattr(tl, _rdt)
    info = np.finfo(np.float32) if dt is BF16 else np.finfo(dt.np)
    big = 3.3895313892515355e38 if dt is BF16 else float(info.max)  # bfloat16's largest finite value
    return np.nan_to_num(x, nan=nan, posinf=big if posinf is None else posinf,
                         neginf=-big if neginf is None else neginf)


def _round_half_even(x, decimals=0):
    if decimals == 0:
        return np.rint(x)
    if decimals > 0:
        return np.rint(x * 10.0**decimals) / 10.0**decimals
    return np.rint(x / 10.0**-decimals) * 10.0**-decimals


_SELU_A, _SELU_S = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
_NO_BOOL = non_bool_dtypes()
_INT_CUDA = (F32, F16, BF16, tl.int32)

OPS = [
    unary_info("neg", tl.neg, np.negative, result="same", dtypes=_NO_BOOL, cuda_dtypes=_INT_CUDA),
    unary_info("abs", tl.abs, np.abs, result="same", dtypes=_NO_BOOL, cuda_dtypes=_INT_CUDA),
    unary_info("sign", tl.sign, lambda x: np.where(np.isnan(x), 0.0, np.sign(x)) if x.dtype.kind == "f"
               else (x if x.dtype == bool else np.sign(x).astype(x.dtype)), result="same", cuda_dtypes=CUDA_ALL),
    unary_info("exp", tl.exp, np.exp, cuda_dtypes=CUDA_ALL),
    unary_info("exp2", tl.exp2, np.exp2),
    unary_info("expm1", tl.expm1, np.expm1, extra=([1e-8, -1e-7, 3e-5],)),
    unary_info("log", tl.log, np.log, domain=(0.1, 3.0), int_domain=(1, 9), cuda_dtypes=CUDA_ALL),
    unary_info("log2", tl.log2, np.log2, domain=(0.1, 3.0), int_domain=(1, 9)),
    unary_info("log10", tl.log10, np.log10, domain=(0.1, 3.0), int_domain=(1, 9)),
    unary_info("log1p", tl.log1p, np.log1p, domain=(-0.9, 3.0), int_domain=(0, 9), extra=([1e-8, -1e-7, 3e-5],)),
    unary_info("sqrt", tl.sqrt, np.sqrt, domain=(0.1, 4.0), int_domain=(0, 9), cuda_dtypes=CUDA_ALL),
    unary_info("rsqrt", tl.rsqrt, lambda x: 1.0 / np.sqrt(x), domain=(0.1, 4.0), int_domain=(1, 9)),
    unary_info("square", tl.square, np.square, result="same", dtypes=_NO_BOOL, cuda_dtypes=_INT_CUDA),
    unary_info("reciprocal", tl.reciprocal, lambda x: 1.0 / x.astype(np.float64), domain=(0.2, 3.0),
               int_domain=(1, 9)),
    unary_info("sin", tl.sin, np.sin),
    unary_info("cos", tl.cos, np.cos),
    unary_info("tan", tl.tan, np.tan, domain=(-1.4, 1.4)),
    unary_info("asin", tl.asin, np.arcsin, domain=(-0.95, 0.95), int_domain=(-1, 1)),
    unary_info("acos", tl.acos, np.arccos, domain=(-0.95, 0.95), int_domain=(-1, 1)),
    unary_info("atan", tl.atan, np.arctan),
    unary_info("sinh", tl.sinh, np.sinh),
    unary_info("cosh", tl.cosh, np.cosh),
    unary_info("tanh", tl.tanh, np.tanh, cuda_dtypes=CUDA_ALL),
    unary_info("sigmoid", tl.sigmoid, _sigmoid, cuda_dtypes=CUDA_ALL),
    unary_info("logit", tl.logit, lambda x: np.log(x / (1 - x)), domain=(0.05, 0.95), int_domain=(0, 1)),
    unary_info("logit_eps", tl.logit, _logit_eps_ref, domain=(0.05, 0.95), int_domain=(0, 1), kwargs={"eps": 0.2},
               pass_rdt=True),
    unary_info("erf", tl.erf, _erf),
    unary_info("erfc", tl.erfc, _erfc, extra=([4.0, 9.0, -5.0, 26.0, 1e-7],)),  # erfc(9) ~ 4e-37: no cancellation
    unary_info("asinh", tl.asinh, np.arcsinh, extra=([1e-7, -6e4, 6e4],)),
    unary_info("acosh", tl.acosh, np.arccosh, domain=(1.1, 4.0), int_domain=(1, 9), extra=([1.0, 0.5, 6e4],)),
    unary_info("atanh", tl.atanh, np.arctanh, domain=(-0.9, 0.9), int_domain=(-1, 1), extra=([1.0, -1.0, 1e-7],)),
    unary_info("erfinv", tl.erfinv, _erfinv_ref, domain=(-0.95, 0.95), int_domain=(-1, 1),
               extra=([0.999, -0.9999, 1.0, -1.0, 1e-6],)),
    unary_info("floor", tl.floor, np.floor, result="same", dtypes=_NO_BOOL, cuda_dtypes=_INT_CUDA),
    unary_info("ceil", tl.ceil, np.ceil, result="same", dtypes=_NO_BOOL, cuda_dtypes=_INT_CUDA),
    unary_info("trunc", tl.trunc, np.trunc, result="same", dtypes=_NO_BOOL, cuda_dtypes=_INT_CUDA),
    unary_info("round", tl.round, _round_half_even, result="same", dtypes=_NO_BOOL, cuda_dtypes=_INT_CUDA,
               extra=([0.5, 1.5, 2.5, -0.5, -2.5, 3.49],)),
    unary_info("round_decimals", tl.round, _round_half_even, result="same", dtypes=FLOATS, kwargs={"decimals": 2}),
    unary_info("round_neg_decimals", tl.round, _round_half_even, result="same", dtypes=FLOATS, domain=(-300, 300),
               kwargs={"decimals": -1}),
    unary_info("frac", tl.frac, lambda x: x - np.trunc(x), result="same", dtypes=FLOATS),
    unary_info("angle", tl.angle, lambda x: np.where(np.isnan(x), x, np.where(x < 0, np.pi, 0.0)),
               extra=([-0.0, 0.0, -1e-30, 1e-30],)),
    unary_info("relu", tl.relu, lambda x: np.where(x < 0, 0, x).astype(x.dtype), result="same", dtypes=_NO_BOOL,
               cuda_dtypes=_INT_CUDA),
    unary_info("relu6", tl.relu6, lambda x: np.minimum(np.maximum(x, 0), 6).astype(x.dtype), result="same",
               dtypes=_NO_BOOL, domain=(-3.0, 9.0), int_domain=(-9, 9)),
    unary_info("hardtanh", tl.hardtanh, lambda x, min_val, max_val: np.minimum(np.maximum(x, min_val), max_val),
               result="same", dtypes=FLOATS, kwargs={"min_val": -0.5, "max_val": 2.0}),
    unary_info("leaky_relu", tl.leaky_relu, lambda x, negative_slope: np.where(x > 0, x, x * negative_slope),
               result="same", dtypes=FLOATS, kwargs={"negative_slope": 0.1}),
    unary_info("elu", tl.elu, lambda x, alpha: np.where(x > 0, x, alpha * np.expm1(x)), result="same",
               dtypes=FLOATS, kwargs={"alpha": 1.5}),
    unary_info("selu", tl.selu, lambda x: _SELU_S * np.where(x > 0, x, _SELU_A * np.expm1(x)), result="same",
               dtypes=FLOATS),
    unary_info("gelu", tl.gelu, _gelu, result="same", dtypes=FLOATS),
    unary_info("gelu_tanh", tl.gelu, lambda x, approximate: _gelu_tanh(x), result="same", dtypes=FLOATS,
               kwargs={"approximate": "tanh"}),
    unary_info("silu", tl.silu, lambda x: x * _sigmoid(x), result="same", dtypes=FLOATS),
    unary_info("mish", tl.mish, lambda x: x * np.tanh(np.log1p(np.exp(x))), result="same", dtypes=FLOATS),
    unary_info("softplus", tl.softplus, _softplus, result="same", dtypes=FLOATS, domain=(-5.0, 5.0),
               kwargs={"beta": 2.0, "threshold": 4.0}),
    unary_info("log_sigmoid", tl.nn.functional.logsigmoid, lambda x: np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x))),
               result="same", dtypes=FLOATS),
    unary_info("hardsigmoid", tl.hardsigmoid, lambda x: np.clip(x + 3, 0, 6) / 6, result="same", dtypes=FLOATS,
               domain=(-5.0, 5.0)),
    unary_info("hardswish", tl.hardswish, lambda x: x * np.clip(x + 3, 0, 6) / 6, result="same", dtypes=FLOATS,
               domain=(-5.0, 5.0)),
    unary_info("logical_not", tl.logical_not, np.logical_not, result="bool", cuda_dtypes=CUDA_ALL, grad=False),
    unary_info("bitwise_not", tl.bitwise_not, lambda x: np.logical_not(x) if x.dtype == bool else np.invert(x),
               result="same", dtypes=(*INTS, tl.bool), cuda_dtypes=(tl.int32, tl.uint8, tl.bool), grad=False),
    unary_info("isnan", tl.isnan, np.isnan, result="bool", cuda_dtypes=CUDA_ALL, grad=False),
    unary_info("isinf", tl.isinf, np.isinf, result="bool", cuda_dtypes=CUDA_ALL, grad=False),
    unary_info("isposinf", tl.isposinf, lambda x: np.isposinf(x.astype(np.float64)), result="bool", grad=False),
    unary_info("isneginf", tl.isneginf, lambda x: np.isneginf(x.astype(np.float64)), result="bool", grad=False),
    unary_info("isfinite", tl.isfinite, np.isfinite, result="bool", cuda_dtypes=CUDA_ALL, grad=False),
    unary_info("signbit", tl.signbit, lambda x: np.signbit(x.astype(np.float64)), result="bool", grad=False),
    unary_info("nan_to_num", tl.nan_to_num, _nan_to_num_ref, result="same", cuda_dtypes=_INT_CUDA, pass_rdt=True),
    unary_info("nan_to_num_values", tl.nan_to_num, _nan_to_num_ref, result="same", dtypes=FLOATS,
               kwargs={"nan": 1.5, "posinf": 100.0, "neginf": -7.0}, pass_rdt=True),
]


def _expanded_unary(fn):
    """The op on an expanded (stride-0) view: the kernel reads broadcast inputs without copies."""

    def op(x):
        return fn(x.unsqueeze(0).expand(3, *x.shape))

    return op


def _expanded_ref(fn):
    def ref(x):
        return np.broadcast_to(fn(x), (3, *x.shape))

    return ref


OPS += [
    OpInfo("exp_of_expanded", _expanded_unary(tl.exp), _expanded_ref(np.exp),
           lambda dtype, rng: [SampleInput((random_array(s, dtype, rng),), name=str(s)) for s in [(), (1,), (4, 5)]],
           (F32, F64, F16), cuda_dtypes=(F32,)),
    OpInfo("sigmoid_of_transposed", lambda x: tl.sigmoid(x.transpose(0, 1)), lambda x: _sigmoid(x.T),
           lambda dtype, rng: [SampleInput((random_array(s, dtype, rng),), name=str(s)) for s in [(3, 5), (1, 4)]],
           (F32, F64), cuda_dtypes=(F32,)),
]

# ----------------------------------------------------------------------------------------------
# binary
# ----------------------------------------------------------------------------------------------


def _common(a, b):
    def proto(x):
        if isinstance(x, np.ndarray):
            return tl.empty(x.shape, dtype=tl._dtype.from_numpy_dtype(x.dtype))
        return x

    return tl.result_type(proto(a), proto(b))


def _binary_samples(result, a_domain=None, b_domain=None, scalars=(2, 2.5), extremal=True, nonzero_b=False,
                    kwargs=None, int_b_domain=None):
    kwargs = kwargs or {}

    def samples(dtype, rng):
        def arr(shape, which):
            dom = (a_domain if which == "a" else b_domain) or (None, None)
            if not dtype.is_floating_point:
                dom = int_b_domain if (which == "b" and int_b_domain) else (None, None)
            x = random_array(shape, dtype, rng, low=dom[0], high=dom[1])
            if which == "b" and nonzero_b and dtype is not tl.bool:
                if dtype.is_floating_point:
                    x = np.where(np.abs(x.astype(np.float64)) < 0.25, 1.0, x).astype(dtype.np)
                else:
                    x = np.where(x == 0, 1, x).astype(dtype.np)
            return x

        pairs = [((), ()), ((0,), (0,)), ((1,), (1,)), ((7,), (7,)), ((3, 5), (5,)), ((1, 5), (3, 1)),
                 ((4, 1, 3), (5, 1))]
        if dtype is not F64:
            pairs.append(((1025,), (1025,)))
        out = []
        for sa, sb in pairs:
            a, b = arr(sa, "a"), arr(sb, "b")
            out.append(SampleInput((a, b), dict(kwargs, _rdt=_RESULT_BINARY[result](_common(a, b)).name),
                                   name=f"{sa}x{sb}"))
        # a 0-d tensor with a dimensioned one (the 0-d tensor does not raise the dtype)
        a, b = arr((3, 4), "a"), arr((), "b")
        out.append(SampleInput((a, b), dict(kwargs, _rdt=_RESULT_BINARY[result](_common(a, b)).name), name="0-d b"))
        for s in scalars:
            if (dtype is tl.bool and not isinstance(s, bool)) or (dtype is tl.uint8 and s < 0):
                continue  # numpy refuses -3 as a uint8 (PyTorch wraps it)
            a = arr((2, 3), "a")
            out.append(SampleInput((a, s), dict(kwargs, _rdt=_RESULT_BINARY[result](_common(a, s)).name),
                                   name=f"scalar {s!r}"))
        if extremal and dtype.is_floating_point:
            ext = _extremal(dtype)
            a = np.repeat(ext, len(ext))
            b = np.tile(ext, len(ext))
            if nonzero_b:
                b = np.where(b == 0, 1.0, b).astype(dtype.np)
            out.append(SampleInput((a, b), dict(kwargs, _rdt=_RESULT_BINARY[result](dtype).name), name="extremal"))
        return out

    return samples


def _gcd_lcm_ref(fn):
    """numpy's gcd/lcm on exact int64 values, wrapped back to the operands' type (PyTorch's lcm
    takes |a / g * b| before narrowing, which is what this gives for 8- and 16-bit operands)."""

    def ref(a, b):
        return fn(np.asarray(a).astype(np.int64), np.asarray(b).astype(np.int64)).astype(np.result_type(a, b))

    return ref


_RESULT_BINARY = {"same": lambda d: d, "float": _float_result, "bool": lambda d: tl.bool}


def binary_info(name, fn, ref, *, result="same", dtypes=ALL, cuda_dtypes=CUDA_ALL, grad=True, **sample_kw):
    return OpInfo(name, _wrap_op(fn), _wrap_ref(ref), _binary_samples(result, **sample_kw), dtypes,
                  cuda_dtypes=cuda_dtypes, grad=grad)


def _trunc_div_ref(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "f" or b.dtype.kind == "f":
        return np.trunc(np.asarray(a, dtype=np.float64) / b)
    q = np.abs(a.astype(np.int64)) // np.abs(b.astype(np.int64))
    return np.where((a < 0) != (b < 0), -q, q)


def _shift_ref(kind):
    def ref(a, b):
        return np.left_shift(a, b) if kind == "left" else np.right_shift(a, b)

    return ref


_NUMERIC = tuple(d for d in ALL if d is not tl.bool)
_INT_AND_BOOL = (*INTS, tl.bool)

OPS += [
    binary_info("add", tl.add, np.add, scalars=(2, 2.5, True)),
    binary_info("add_alpha", lambda a, b, alpha: tl.add(a, b, alpha=alpha), lambda a, b, alpha: a + alpha * b,
                dtypes=_NUMERIC, cuda_dtypes=(F32, F16, tl.int32), kwargs={"alpha": 3}),
    binary_info("sub", tl.sub, np.subtract, dtypes=_NUMERIC, cuda_dtypes=(F32, F16, BF16, tl.int32)),
    binary_info("sub_alpha", lambda a, b: tl.sub(a, b, alpha=0.5), lambda a, b: a - 0.5 * b, dtypes=FLOATS,
                cuda_dtypes=(F32,), scalars=(2.5,)),
    binary_info("mul", tl.mul, np.multiply, scalars=(3, 2.5, False)),
    binary_info("div", tl.div, lambda a, b: np.asarray(a, dtype=np.float64) / b, result="float", nonzero_b=True),
    binary_info("div_trunc", lambda a, b: tl.div(a, b, rounding_mode="trunc"), _trunc_div_ref, dtypes=_NUMERIC,
                cuda_dtypes=(F32, F16, tl.int32), nonzero_b=True, scalars=(3, -2.5), grad=False),
    binary_info("div_floor", lambda a, b: tl.div(a, b, rounding_mode="floor"), np.floor_divide, dtypes=_NUMERIC,
                cuda_dtypes=(F32, F16, tl.int32), nonzero_b=True, scalars=(3, -2.5), grad=False),
    binary_info("floor_divide", tl.floor_divide, np.floor_divide, dtypes=_NUMERIC,
                cuda_dtypes=(F32, tl.int64), nonzero_b=True, scalars=(-3,), grad=False),
    binary_info("remainder", tl.remainder, np.remainder, dtypes=_NUMERIC, cuda_dtypes=(F32, F16, tl.int32),
                nonzero_b=True, scalars=(3, -2.5)),
    binary_info("fmod", tl.fmod, np.fmod, dtypes=_NUMERIC, cuda_dtypes=(F32, F16, tl.int32), nonzero_b=True,
                scalars=(3, -2.5)),
    binary_info("pow", tl.pow, lambda a, b: np.power(np.asarray(a, dtype=np.float64), b)
                if (a.dtype.kind == "f" or np.asarray(b).dtype.kind == "f") else np.power(a, b),
                dtypes=_NUMERIC, cuda_dtypes=(F32, F16, BF16, tl.int32), a_domain=(0.5, 2.0), b_domain=(-2.0, 2.0),
                int_b_domain=(0, 4), scalars=(2, 0.5, -1.5)),
    binary_info("maximum", tl.maximum, np.maximum, scalars=()),
    binary_info("minimum", tl.minimum, np.minimum, scalars=()),
    binary_info("fmax", tl.fmax, np.fmax, scalars=(), cuda_dtypes=(F32, F16, tl.int32)),
    binary_info("fmin", tl.fmin, np.fmin, scalars=(), cuda_dtypes=(F32, F16, tl.int32)),
    binary_info("atan2", tl.atan2, np.arctan2, result="float", scalars=(), cuda_dtypes=(F32, F16, tl.int32)),
    binary_info("hypot", tl.hypot, np.hypot, result="float", dtypes=FLOATS, scalars=(), cuda_dtypes=(F32, F16)),
    binary_info("logaddexp", tl.logaddexp, np.logaddexp, result="float", dtypes=FLOATS, scalars=(),
                cuda_dtypes=(F32, BF16)),
    binary_info("logaddexp2", tl.logaddexp2, np.logaddexp2, result="float", dtypes=FLOATS, scalars=(),
                cuda_dtypes=(F32, F16)),
    binary_info("xlogy", tl.xlogy, lambda a, b: np.where(np.isnan(b), b, np.where(a == 0, 0.0, a * np.log(b))),
                result="float", b_domain=(0.1, 3.0), int_b_domain=(0, 9), scalars=(2.5,), cuda_dtypes=(F32, BF16)),
    binary_info("copysign", tl.copysign, lambda a, b: np.copysign(np.asarray(a, dtype=np.float64), b),
                result="float", cuda_dtypes=(F32, F16, tl.int32), scalars=(-2.0,)),
    binary_info("clamp_min", tl.clamp_min, np.maximum, dtypes=_NUMERIC, cuda_dtypes=(F32, F16, tl.int32),
                scalars=(1, 0.5)),
    binary_info("clamp_max", tl.clamp_max, np.minimum, dtypes=_NUMERIC, cuda_dtypes=(F32, tl.int32),
                scalars=(1, 0.5)),
]
for _name, _np_fn in (("eq", np.equal), ("ne", np.not_equal), ("lt", np.less), ("le", np.less_equal),
                      ("gt", np.greater), ("ge", np.greater_equal)):
    OPS.append(binary_info(_name, getattr(tl, _name), _np_fn, result="bool", grad=False,
                           cuda_dtypes=CUDA_ALL if _name in ("eq", "lt") else (F32, tl.int32), scalars=(2, 2.5)))
for _name in ("logical_and", "logical_or", "logical_xor"):  # (no number operand: PyTorch refuses one)
    OPS.append(binary_info(_name, getattr(tl, _name), getattr(np, _name), result="bool", grad=False,
                           cuda_dtypes=(F32, tl.int32, tl.bool), scalars=()))
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
    OPS.append(binary_info(_name, getattr(tl, _name), getattr(np, _name), dtypes=_INT_AND_BOOL, grad=False,
                           cuda_dtypes=(tl.int32, tl.uint8, tl.bool), scalars=(5, True)))
OPS += [
    binary_info("bitwise_left_shift", tl.bitwise_left_shift, _shift_ref("left"), dtypes=INTS, grad=False,
                cuda_dtypes=(tl.int32, tl.int8), int_b_domain=(0, 7), scalars=(3,)),
    binary_info("bitwise_right_shift", tl.bitwise_right_shift, _shift_ref("right"), dtypes=INTS, grad=False,
                cuda_dtypes=(tl.int32, tl.uint8), int_b_domain=(0, 7), scalars=(2,)),
    binary_info("gcd", tl.gcd, _gcd_lcm_ref(np.gcd), dtypes=INTS, grad=False, cuda_dtypes=(tl.int32, tl.uint8),
                scalars=()),
    binary_info("lcm", tl.lcm, _gcd_lcm_ref(np.lcm), dtypes=INTS, grad=False, cuda_dtypes=(tl.int64, tl.int8),
                scalars=()),
]


# reflected operators: a Python scalar on the left
def _reflected_samples(int_low):
    def samples(dtype, rng):
        low = 0.5 if dtype.is_floating_point else int_low
        out = []
        for s in [(), (0,), (7,), (3, 5)]:
            x = random_array(s, dtype, rng, low=low)
            if not dtype.is_floating_point:
                x = np.where(x == 0, 1, x).astype(dtype.np)
            out.append(SampleInput((x,), {"_rdt": None}, name=str(s)))
        return out

    return samples


def _reflected(name, op, ref, dtypes=_NUMERIC, grad=True, cuda_dtypes=(F32, tl.int32), int_low=None):
    return OpInfo(name, _wrap_op(op), _wrap_ref(ref), _reflected_samples(int_low), dtypes, cuda_dtypes=cuda_dtypes,
                  grad=grad)


OPS += [
    _reflected("rsub", lambda x: 2 - x, lambda x: 2 - x),
    _reflected("rsub_float", lambda x: 2.5 - x, lambda x: 2.5 - x, dtypes=FLOATS, cuda_dtypes=(F32,)),
    _reflected("rtruediv", lambda x: 3 / x, lambda x: 3 / np.asarray(x, dtype=np.float64)),
    _reflected("rfloordiv", lambda x: 7 // x, lambda x: np.floor_divide(7, x), grad=False),
    _reflected("rmod", lambda x: 7 % x, lambda x: np.remainder(7, x)),
    _reflected("rpow", lambda x: 2 ** x, lambda x: np.power(2.0, x) if x.dtype.kind == "f" else np.power(2, x),
               int_low=0),
    _reflected("rpow_float", lambda x: 1.5 ** x, lambda x: np.power(1.5, x), dtypes=FLOATS, cuda_dtypes=(F32,)),
    _reflected("radd", lambda x: 2 + x, lambda x: 2 + x, grad=False),
    _reflected("rmul", lambda x: 3 * x, lambda x: 3 * x, grad=False),
    _reflected("rand", lambda x: 6 & x, lambda x: np.bitwise_and(6, x), dtypes=INTS, grad=False,
               cuda_dtypes=(tl.int32,)),
    _reflected("rlshift", lambda x: 1 << x, lambda x: np.left_shift(1, x).astype(x.dtype), dtypes=(tl.int32, tl.int64),
               grad=False, cuda_dtypes=(tl.int32,), int_low=0),
    _reflected("neg_operator", lambda x: -x, np.negative, grad=True),
    _reflected("abs_operator", lambda x: abs(x), np.abs, grad=True),
]

# ----------------------------------------------------------------------------------------------
# ternary
# ----------------------------------------------------------------------------------------------


def _where_samples(dtype, rng):
    def arr(s):
        return random_array(s, dtype, rng)

    def cond(s):
        return np.asarray(rng.random(s) < 0.5)

    out = [
        SampleInput((cond(()), arr(()), arr(())), name="0-d"),
        SampleInput((cond((0,)), arr((0,)), arr((0,))), name="empty"),
        SampleInput((cond((7,)), arr((7,)), arr((7,))), name="(7,)"),
        SampleInput((cond((3, 1)), arr((1, 5)), arr((5,))), name="broadcast"),
        SampleInput((cond((2, 3)), arr((2, 3)), True if dtype is tl.bool else 2), name="scalar other"),
        SampleInput((cond((4, 1)), 1 if dtype is not tl.bool else False, arr((3,))), name="scalar input"),
    ]
    if dtype.is_floating_point:
        ext = _extremal(dtype)
        out.append(SampleInput((cond(ext.shape), ext, ext[::-1].copy()), name="extremal"))
    return out


def _clamp_samples(dtype, rng):
    def arr(s, lo=None, hi=None):
        return random_array(s, dtype, rng, low=lo, high=hi)

    neg = -1 if dtype is not tl.uint8 else 1
    out = [
        SampleInput((arr(()), arr((), -2, 0), arr((), 0, 2)), name="0-d"),
        SampleInput((arr((0,)), arr((0,)), arr((0,))), name="empty"),
        SampleInput((arr((7,)), arr((7,), -2, 0), arr((7,), 0, 2)), name="tensors"),
        SampleInput((arr((3, 5)), arr((5,), -2, 0), arr((3, 1), 0, 2)), name="broadcast"),
        SampleInput((arr((2, 3)), neg, 2), name="scalars"),
        SampleInput((arr((2, 3)), None, 1), name="max only"),
        SampleInput((arr((2, 3)), neg, None), name="min only"),
        SampleInput((arr((4,)), 3, neg), name="min > max"),
    ]
    if dtype.is_floating_point:
        ext = _extremal(dtype)
        out.append(SampleInput((ext, -1.0, 2.0), name="extremal"))
        out.append(SampleInput((arr((5,)), np.array(np.nan, dtype=dtype.np), np.array(2.0, dtype=dtype.np)),
                               name="nan min"))  # (two tensor bounds: PyTorch takes no tensor and number mix)
    return out


def _clamp_ref(x, lo, hi):
    out = np.asarray(x, dtype=np.float64) if x.dtype.kind == "f" else x
    if lo is not None:
        out = np.maximum(out, lo)
    if hi is not None:
        out = np.minimum(out, hi)
    return out


def _lerp_samples(dtype, rng):
    def arr(s, lo=None, hi=None):
        return random_array(s, dtype, rng, low=lo, high=hi)

    return [
        SampleInput((arr(()), arr(()), 0.3), name="0-d"),
        SampleInput((arr((0,)), arr((0,)), 0.5), name="empty"),
        SampleInput((arr((7,)), arr((7,)), 0.75), name="scalar weight"),
        SampleInput((arr((3, 5)), arr((5,)), arr((3, 1), -0.5, 1.5)), name="tensor weight"),
        SampleInput((arr((1, 4)), arr((3, 1)), arr((4,), 0, 1)), name="broadcast"),
    ]


def _addc_samples(dtype, rng):
    def arr(s, lo=None, hi=None):
        x = random_array(s, dtype, rng, low=lo, high=hi)
        return x

    def nonzero(s):
        x = random_array(s, dtype, rng, low=0.5, high=3.0)
        return x

    v = 2 if not dtype.is_floating_point else 0.5
    return [
        SampleInput((arr(()), arr(()), nonzero(())), {"value": v}, name="0-d"),
        SampleInput((arr((0,)), arr((0,)), nonzero((0,))), name="empty"),
        SampleInput((arr((7,)), arr((7,)), nonzero((7,))), {"value": v}, name="(7,)"),
        SampleInput((arr((3, 5)), arr((5,)), nonzero((3, 1))), name="broadcast"),
        SampleInput((arr((1,)), arr((2, 3)), nonzero((2, 1))), {"value": 3}, name="broadcast input"),
    ]


OPS += [
    OpInfo("where", tl.where, np.where, _where_samples, ALL, cuda_dtypes=(F32, F16, tl.int32, tl.bool),
           ref_float64=False),
    OpInfo("clamp", tl.clamp, _clamp_ref, _clamp_samples, _NUMERIC, cuda_dtypes=(F32, F16, tl.int32)),
    OpInfo("clip", tl.clip, _clamp_ref, _clamp_samples, (F32, F64, tl.int64), cuda_dtypes=(F32,), grad=False),
    OpInfo("lerp", tl.lerp, lambda s, e, w: s + w * (e - s), _lerp_samples, FLOATS, cuda_dtypes=(F32, F16, BF16)),
    OpInfo("addcmul", tl.addcmul, lambda x, a, b, value=1: x + value * a * b, _addc_samples, _NUMERIC,
           cuda_dtypes=(F32, F16, tl.int32)),
    OpInfo("addcdiv", tl.addcdiv, lambda x, a, b, value=1: x + value * a / b, _addc_samples, FLOATS,
           cuda_dtypes=(F32, F16, BF16)),
]

# ----------------------------------------------------------------------------------------------
# special functions (gamma family, Bessel i0/i1, normal distribution, entropy)
#
# References: math.lgamma; digamma/polygamma from a recurrence to x >= 20 and a longer asymptotic
# series than the op's (Bernoulli numbers); i0/i1 from their power series; ndtri by bisection on
# math.erfc; erfcx from math.erfc. PyTorch's values at the edges are encoded explicitly (i0(±inf)
# and i1(±inf) are nan: exp(x) / sqrt(x) = inf / inf; polygamma(n >= 2, +inf) is nan: 0 * inf in
# Cephes' zeta tail).
# ----------------------------------------------------------------------------------------------

_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798)


def _scalar_ref(fn):
    def ref(x, *args):
        x = np.asarray(x, dtype=np.float64)
        out = np.empty_like(x)
        for i, v in np.ndenumerate(x):
            out[i] = fn(float(v), *args)
        return out

    return ref


def _lgamma1(v):
    if math.isnan(v):
        return v
    if math.isinf(v) or (v <= 0 and v == math.floor(v)):
        return math.inf
    return math.lgamma(v)


def _psi1(v):
    if math.isnan(v) or v == -math.inf or (v < 0 and v == math.floor(v)):
        return math.nan
    if v == 0:
        return math.copysign(math.inf, -v)
    if v == math.inf:
        return math.inf
    if v < 0:
        return _psi1(1 - v) - math.pi / math.tan(math.pi * (v - math.trunc(v)))
    acc = 0.0
    while v < 20:
        acc -= 1 / v
        v += 1
    s = math.log(v) - 0.5 / v
    for k, b in enumerate(_BERNOULLI, start=1):
        s -= b / (2 * k * v ** (2 * k))
    return acc + s


def _hurwitz1(s, q):
    """zeta(s, q) for integer s >= 2 and q not a non-positive integer: direct terms to q >= 20, then
    Euler-Maclaurin with the Bernoulli numbers."""
    acc = 0.0
    while q < 20:
        acc += q ** -s
        q += 1
    tail = q ** (1 - s) / (s - 1) + 0.5 * q ** -s
    rising = s  # s (s + 1) ... (s + 2k - 2)
    for k, b in enumerate(_BERNOULLI, start=1):
        tail += b / math.factorial(2 * k) * rising * q ** (-s - 2 * k + 1)
        rising *= (s + 2 * k - 1) * (s + 2 * k)
    return acc + tail


def _polygamma1(v, n):
    if n == 0:
        return _psi1(v)
    if math.isnan(v):
        return v
    sign = 1.0 if n % 2 else -1.0
    if v == -math.inf and n == 1:  # PyTorch's trigamma: sin(-inf) is nan
        return math.nan
    if v == -math.inf or (v <= 0 and v == math.floor(v)):  # poles (and -inf)
        return math.inf if n == 1 else sign * math.inf
    if v == math.inf:
        return 0.0 if n == 1 else math.nan
    return sign * math.factorial(n) * _hurwitz1(n + 1, v)


def _i_series(v, order):
    """i0 / i1 from the power series sum (x/2)**(2k + order) / (k! (k + order)!)."""
    if math.isnan(v) or math.isinf(v):
        return math.nan
    if abs(v) > 700:
        return math.copysign(math.inf, v) if order else math.inf
    h = v / 2
    term = 1.0 if order == 0 else h
    total = term
    k = 0
    while abs(term) > 1e-17 * abs(total):
        k += 1
        term *= h * h / (k * (k + order))
        total += term
    return total


def _i_scaled(v, order):
    if math.isnan(v):
        return v
    if math.isinf(v):
        return math.copysign(0.0, v) if order else 0.0
    if abs(v) > 700:  # the asymptotic series sum_k (-1)**k a_k / |x|**k / sqrt(2 pi |x|)
        a, total, mu = 1.0, 1.0, 4 * order * order
        for k in range(1, 8):
            a *= -(mu - (2 * k - 1) ** 2) / (k * 8 * abs(v))
            total += a
        return math.copysign(1.0, v if order else 1.0) * total / math.sqrt(2 * math.pi * abs(v))
    return _i_series(v, order) * math.exp(-abs(v))


def _erfcx1(v):
    if v > 25:
        return 1 / (math.sqrt(math.pi) * v) * (1 - 0.5 / v**2 + 0.75 / v**4)
    if v < -26.5:
        return math.inf
    return math.exp(v * v) * math.erfc(v)


def _ndtr1(v):
    return 0.5 * math.erfc(-v / math.sqrt(2))


def _ndtri1(p):
    if math.isnan(p) or p < 0 or p > 1:
        return math.nan
    if p in (0.0, 1.0):
        return math.copysign(math.inf, p - 0.5)
    lo, hi = -40.0, 40.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _ndtr1(mid) < p:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _log_ndtr1(v):
    if v < -30:  # log of erfc's asymptotic expansion
        return -v * v / 2 - math.log(-v) - 0.5 * math.log(2 * math.pi) + math.log1p(-1 / v**2 + 3 / v**4)
    return math.log(_ndtr1(v))


def _entr_ref(x):
    with np.errstate(all="ignore"):
        y = np.where(x > 0, -x * np.log(np.where(x > 0, x, 1.0)), np.where(x == 0, 0.0, -np.inf))
    return np.where(np.isnan(x), x, y)


_POS_INTS = (0, 9)  # integer samples of the special functions (no negative poles to compare)
_SPECIAL_TOL = {F32: (1e-5, 1e-5)}  # (float32 kernels sum recurrences: a few ulps more than one op)

OPS += [
    unary_info("lgamma", tl.lgamma, _scalar_ref(_lgamma1), domain=(0.2, 6.0), int_domain=(-3, 9),
               extra=([-2.5, -0.5, -3.7, 1e-6, 6e4, 1.0, 2.0, -1.0],), tol=_SPECIAL_TOL),
    unary_info("digamma", tl.digamma, _scalar_ref(_psi1), domain=(0.2, 6.0), int_domain=(1, 9),
               extra=([-2.5, -0.3, -7.25, 1e-4, 6e4, 25.0, 10.0],), tol=_SPECIAL_TOL),
    unary_info("polygamma_1", lambda x: tl.polygamma(1, x), lambda x: _scalar_ref(_polygamma1)(x, 1), domain=(0.2, 6.0),
               int_domain=_POS_INTS, extra=([-2.5, -0.3, 1e-3, 30.0],), tol=_SPECIAL_TOL),
    unary_info("polygamma_3", lambda x: tl.polygamma(3, x), lambda x: _scalar_ref(_polygamma1)(x, 3), domain=(0.3, 6.0),
               int_domain=_POS_INTS, extra=([-2.5, -0.3, -3.75, 30.0],), tol=_SPECIAL_TOL),
    unary_info("i0", tl.i0, _scalar_ref(lambda v: _i_series(v, 0)), domain=(-5.0, 5.0), extra=([9.0, -12.0, 50.0],)),
    unary_info("special_i0e", tl.special.i0e, _scalar_ref(lambda v: _i_scaled(v, 0)), domain=(-5.0, 5.0),
               extra=([9.0, -12.0, 50.0, 1e3],), tol=_SPECIAL_TOL),
    unary_info("special_i1", tl.special.i1, _scalar_ref(lambda v: _i_series(v, 1)), domain=(-5.0, 5.0),
               extra=([9.0, -12.0, 50.0],), tol=_SPECIAL_TOL),
    unary_info("special_i1e", tl.special.i1e, _scalar_ref(lambda v: _i_scaled(v, 1)), domain=(-5.0, 5.0),
               extra=([9.0, -12.0, 50.0, -1e3],), tol=_SPECIAL_TOL),
    unary_info("special_erfcx", tl.special.erfcx, _scalar_ref(_erfcx1), domain=(-3.0, 8.0),
               extra=([30.0, 6e4, -10.0, -30.0],), tol=_SPECIAL_TOL),
    unary_info("special_ndtr", tl.special.ndtr, _scalar_ref(_ndtr1), domain=(-5.0, 5.0), extra=([-10.0, -30.0, 8.0],)),
    unary_info("special_ndtri", tl.special.ndtri, _scalar_ref(_ndtri1), domain=(0.02, 0.98), int_domain=(0, 1),
               extra=([1e-10, 1e-30, 0.999, 0.5, 1.5, -0.5],), tol=_SPECIAL_TOL),
    unary_info("special_log_ndtr", tl.special.log_ndtr, _scalar_ref(_log_ndtr1), domain=(-6.0, 4.0),
               extra=([-20.0, -40.0, -6e4, 10.0],), tol=_SPECIAL_TOL),
    unary_info("special_entr", tl.special.entr, _entr_ref, domain=(0.1, 4.0), int_domain=(-2, 9)),
    binary_info("special_xlog1py", tl.special.xlog1py,
                lambda a, b: np.where(np.isnan(b), b, np.where(a == 0, 0.0, a * np.log1p(b))), result="float",
                b_domain=(-0.9, 3.0), int_b_domain=(0, 9), scalars=(2.5,), cuda_dtypes=(F32, BF16)),
]


def _mvlgamma_samples(dtype, rng):
    rdt = _float_result(dtype).name
    lo = 2.0 if dtype.is_floating_point else 2
    out = [SampleInput((random_array(s, dtype, rng, low=lo, high=6.0 if dtype.is_floating_point else 9), p),
                       {"_rdt": rdt}, name=f"{s} p={p}") for s, p in (((), 1), ((0,), 2), ((7,), 3), ((3, 5), 4))]
    return out


def _mvlgamma_ref(x, p):
    x = np.asarray(x, dtype=np.float64)
    lg = _scalar_ref(_lgamma1)
    return sum(lg(x - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)


OPS += [
    OpInfo("mvlgamma", _wrap_op(tl.mvlgamma), _wrap_ref(_mvlgamma_ref), _mvlgamma_samples,
           tuple(d for d in ALL if d is not tl.bool), cuda_dtypes=(F32,), tol={F32: (1e-5, 1e-5), F16: (2e-3, 1e-2),
                                                                              BF16: (2e-2, 1e-1)}),
]
