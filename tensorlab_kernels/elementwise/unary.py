"""Unary elementwise ops: one generic strided kernel, the op chosen at compile time.

``_unary_kernel`` reads its input through the input's strides (broadcast dims have stride 0; a
fully broadcast input is loaded once), computes in the op's compute type (see ``common``: fp16
and bf16 in fp32) and writes the output through its strides. ``OP`` is a ``tl.constexpr``: each
op compiles its own specialisation with only its branch of ``_unary_op``, so the generic kernel
costs nothing at run time. Up to three op parameters (``negative_slope``, ``beta`` and
``threshold``, ...) travel as scalar arguments in the compute type (float64 bits for floats).

Layout of this file: op codes, the Triton kernel, the launcher, the numpy twin.
"""

from __future__ import annotations

import math

import numpy as np

from .._triton import tl, triton
from . import _bessel as BES
from . import _gamma as GAM
from . import common as C
from ._erfinv import erfinv_np
from ._normal import erfcx_np, log_ndtr_np, ndtr_np, ndtri_np
from .libdevice import fdiv, math_np
from .libdevice import libdevice as ld

# ----------------------------------------------------------------------------------------------
# Op codes (index in OPS). Kernel code compares the constexpr OP with these names.
# ----------------------------------------------------------------------------------------------

OPS = [
    "neg", "abs", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "square",
    "reciprocal", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "sigmoid", "logit",
    "logit_eps", "relu", "hardtanh", "leaky_relu", "elu", "selu", "gelu", "gelu_tanh", "silu", "mish", "softplus",
    "hardsigmoid", "hardswish", "erf", "erfinv", "floor", "ceil", "round", "round_decimals", "trunc", "frac",
    "logical_not", "bitwise_not", "isnan", "isinf", "isposinf", "isneginf", "isfinite", "signbit", "nan_to_num",
    "asinh", "acosh", "atanh", "erfc",
    "lgamma", "digamma", "trigamma", "polygamma", "i0", "i0e", "i1", "i1e", "erfcx", "ndtr", "ndtri", "log_ndtr",
    "entr", "angle", "log_sigmoid",
]
CODES = {name: i for i, name in enumerate(OPS)}

NEG: tl.constexpr = tl.constexpr(0)
ABS: tl.constexpr = tl.constexpr(1)
SIGN: tl.constexpr = tl.constexpr(2)
EXP: tl.constexpr = tl.constexpr(3)
EXP2: tl.constexpr = tl.constexpr(4)
EXPM1: tl.constexpr = tl.constexpr(5)
LOG: tl.constexpr = tl.constexpr(6)
LOG2: tl.constexpr = tl.constexpr(7)
LOG10: tl.constexpr = tl.constexpr(8)
LOG1P: tl.constexpr = tl.constexpr(9)
SQRT: tl.constexpr = tl.constexpr(10)
RSQRT: tl.constexpr = tl.constexpr(11)
SQUARE: tl.constexpr = tl.constexpr(12)
RECIPROCAL: tl.constexpr = tl.constexpr(13)
SIN: tl.constexpr = tl.constexpr(14)
COS: tl.constexpr = tl.constexpr(15)
TAN: tl.constexpr = tl.constexpr(16)
ASIN: tl.constexpr = tl.constexpr(17)
ACOS: tl.constexpr = tl.constexpr(18)
ATAN: tl.constexpr = tl.constexpr(19)
SINH: tl.constexpr = tl.constexpr(20)
COSH: tl.constexpr = tl.constexpr(21)
TANH: tl.constexpr = tl.constexpr(22)
SIGMOID: tl.constexpr = tl.constexpr(23)
LOGIT: tl.constexpr = tl.constexpr(24)
LOGIT_EPS: tl.constexpr = tl.constexpr(25)
RELU: tl.constexpr = tl.constexpr(26)
HARDTANH: tl.constexpr = tl.constexpr(27)
LEAKY_RELU: tl.constexpr = tl.constexpr(28)
ELU: tl.constexpr = tl.constexpr(29)
SELU: tl.constexpr = tl.constexpr(30)
GELU: tl.constexpr = tl.constexpr(31)
GELU_TANH: tl.constexpr = tl.constexpr(32)
SILU: tl.constexpr = tl.constexpr(33)
MISH: tl.constexpr = tl.constexpr(34)
SOFTPLUS: tl.constexpr = tl.constexpr(35)
HARDSIGMOID: tl.constexpr = tl.constexpr(36)
HARDSWISH: tl.constexpr = tl.constexpr(37)
ERF: tl.constexpr = tl.constexpr(38)
ERFINV: tl.constexpr = tl.constexpr(39)
FLOOR: tl.constexpr = tl.constexpr(40)
CEIL: tl.constexpr = tl.constexpr(41)
ROUND: tl.constexpr = tl.constexpr(42)
ROUND_DECIMALS: tl.constexpr = tl.constexpr(43)
TRUNC: tl.constexpr = tl.constexpr(44)
FRAC: tl.constexpr = tl.constexpr(45)
LOGICAL_NOT: tl.constexpr = tl.constexpr(46)
BITWISE_NOT: tl.constexpr = tl.constexpr(47)
ISNAN: tl.constexpr = tl.constexpr(48)
ISINF: tl.constexpr = tl.constexpr(49)
ISPOSINF: tl.constexpr = tl.constexpr(50)
ISNEGINF: tl.constexpr = tl.constexpr(51)
ISFINITE: tl.constexpr = tl.constexpr(52)
SIGNBIT: tl.constexpr = tl.constexpr(53)
NAN_TO_NUM: tl.constexpr = tl.constexpr(54)
ASINH: tl.constexpr = tl.constexpr(55)
ACOSH: tl.constexpr = tl.constexpr(56)
ATANH: tl.constexpr = tl.constexpr(57)
ERFC: tl.constexpr = tl.constexpr(58)
LGAMMA: tl.constexpr = tl.constexpr(59)
DIGAMMA: tl.constexpr = tl.constexpr(60)
TRIGAMMA: tl.constexpr = tl.constexpr(61)
POLYGAMMA: tl.constexpr = tl.constexpr(62)
I0: tl.constexpr = tl.constexpr(63)
I0E: tl.constexpr = tl.constexpr(64)
I1: tl.constexpr = tl.constexpr(65)
I1E: tl.constexpr = tl.constexpr(66)
ERFCX: tl.constexpr = tl.constexpr(67)
NDTR: tl.constexpr = tl.constexpr(68)
NDTRI: tl.constexpr = tl.constexpr(69)
LOG_NDTR: tl.constexpr = tl.constexpr(70)
ENTR: tl.constexpr = tl.constexpr(71)
ANGLE: tl.constexpr = tl.constexpr(72)
LOG_SIGMOID: tl.constexpr = tl.constexpr(73)
assert len(OPS) == 74 and CODES["erfc"] == 58 and CODES["angle"] == 72 and CODES["log_sigmoid"] == 73

INF: tl.constexpr = tl.constexpr(float("inf"))
SQRT1_2: tl.constexpr = tl.constexpr(0.70710678118654752440)
SQRT_2_OVER_PI: tl.constexpr = tl.constexpr(0.79788456080286535588)
GELU_KAPPA: tl.constexpr = tl.constexpr(0.044715)
SELU_ALPHA: tl.constexpr = tl.constexpr(1.6732632423543772848170429916717)
SELU_SCALE: tl.constexpr = tl.constexpr(1.0507009873554804934193349852946)

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _unary_op(x, p0, p1, p2, OP: tl.constexpr, IS_FLOAT: tl.constexpr, IS_BOOL: tl.constexpr):
    """``OP`` applied to ``x`` (already in the compute type); p0..p2 are the op's parameters."""
    if OP == NEG:
        y = -x
    elif OP == ABS:
        y = tl.abs(x)
    elif OP == SIGN:
        y = (x > 0).to(x.dtype) - (x < 0).to(x.dtype)  # sign(nan) = 0, as PyTorch
    elif OP == EXP:
        y = ld.exp(x)
    elif OP == EXP2:
        y = ld.exp2(x)
    elif OP == EXPM1:
        y = ld.expm1(x)
    elif OP == LOG:
        y = ld.log(x)
    elif OP == LOG2:
        y = ld.log2(x)
    elif OP == LOG10:
        y = ld.log10(x)
    elif OP == LOG1P:
        y = ld.log1p(x)
    elif OP == SQRT:
        y = ld.sqrt(x)
    elif OP == RSQRT:
        y = ld.rsqrt(x)
    elif OP == SQUARE:
        y = x * x
    elif OP == RECIPROCAL:
        y = fdiv(1.0, x)
    elif OP == SIN:
        y = ld.sin(x)
    elif OP == COS:
        y = ld.cos(x)
    elif OP == TAN:
        y = ld.tan(x)
    elif OP == ASIN:
        y = ld.asin(x)
    elif OP == ACOS:
        y = ld.acos(x)
    elif OP == ATAN:
        y = ld.atan(x)
    elif OP == SINH:
        y = ld.sinh(x)
    elif OP == COSH:
        y = ld.cosh(x)
    elif OP == TANH:
        y = ld.tanh(x)
    elif OP == SIGMOID:
        y = fdiv(1.0, 1.0 + ld.exp(-x))
    elif OP == LOGIT:
        y = ld.log(fdiv(x, 1.0 - x))
    elif OP == LOGIT_EPS:  # p0 = eps, p1 = 1 - eps (clamp first; nan stays nan)
        # x < lo ? lo : (x > hi ? hi : x), as PyTorch: for eps > 0.5 (lo > hi) x below lo is lo
        z = tl.where(x < p0, p0, tl.where(x > p1, p1, x))
        y = ld.log(fdiv(z, 1.0 - z))
    elif OP == RELU:
        y = tl.where(x < 0, 0, x)  # nan stays nan
    elif OP == HARDTANH:  # clamp(x, p0, p1) as PyTorch's min(max(x, lo), hi); nan stays nan
        z = tl.where(x < p0, p0, x)
        y = tl.where(z > p1, p1, z)
    elif OP == LEAKY_RELU:
        y = tl.where(x > 0, x, x * p0)
    elif OP == ELU:
        y = tl.where(x > 0, x, p0 * ld.expm1(x))
    elif OP == SELU:
        y = SELU_SCALE * tl.where(x > 0, x, SELU_ALPHA * ld.expm1(x))
    elif OP == GELU:
        y = 0.5 * x * (1.0 + ld.erf(x * SQRT1_2))
    elif OP == GELU_TANH:
        inner = SQRT_2_OVER_PI * (x + GELU_KAPPA * x * x * x)
        y = 0.5 * x * (1.0 + ld.tanh(inner))
    elif OP == SILU:
        y = fdiv(x, 1.0 + ld.exp(-x))
    elif OP == MISH:
        y = x * ld.tanh(ld.log1p(ld.exp(x)))
    elif OP == SOFTPLUS:  # p0 = beta, p1 = threshold
        z = x * p0
        y = tl.where(z > p1, x, fdiv(ld.log1p(ld.exp(z)), p0))
    elif OP == HARDSIGMOID:
        z = x + 3.0
        z = tl.where(z < 0, 0.0, z)
        z = tl.where(z > 6, 6.0, z)
        y = fdiv(z, 6.0)
    elif OP == HARDSWISH:
        z = x + 3.0
        z = tl.where(z < 0, 0.0, z)
        z = tl.where(z > 6, 6.0, z)
        y = fdiv(x * z, 6.0)
    elif OP == ASINH:
        y = ld.asinh(x)
    elif OP == ACOSH:
        y = ld.acosh(x)
    elif OP == ATANH:
        y = ld.atanh(x)
    elif OP == ERF:
        y = ld.erf(x)
    elif OP == ERFC:  # 1 - erf(x) without the cancellation for large x
        y = ld.erfc(x)
    elif OP == ERFINV:
        y = ld.erfinv(x)
    elif OP == LGAMMA:
        y = ld.lgamma(x)
    elif OP == DIGAMMA:
        y = GAM.digamma(x)
    elif OP == TRIGAMMA:
        y = GAM.trigamma(x)
    elif OP == POLYGAMMA:  # p0 = n + 1, p1 = (-1)**(n+1) n!, p2 = (-1)**(n+1): PyTorch's n! zeta(n + 1, x)
        y = p1 * GAM.zeta(p0, x, p2)
    elif OP == I0:
        y = BES.i0(x)
    elif OP == I0E:
        y = BES.i0e(x)
    elif OP == I1:
        y = BES.i1(x)
    elif OP == I1E:
        y = BES.i1e(x)
    elif OP == ERFCX:
        y = ld.erfcx(x)
    elif OP == NDTR:  # the normal cdf through erfc: no cancellation in the lower tail
        y = 0.5 * ld.erfc(-x * SQRT1_2)
    elif OP == NDTRI:
        y = ld.normcdfinv(x)
    elif OP == LOG_NDTR:  # PyTorch's: through erfcx below -1 (finite far into the tail), log1p above
        t = x * SQRT1_2
        y = tl.where(x < -1.0, ld.log(ld.erfcx(-t) * 0.5) - t * t, ld.log1p(-ld.erfc(t) * 0.5))
    elif OP == ENTR:  # -x log x; 0 at 0, -inf below, nan stays nan
        y = tl.where(x > 0, -x * ld.log(x), tl.where(x == 0, 0.0, -INF))
        y = tl.where(x != x, x, y)
    elif OP == ANGLE:  # a real number's argument: pi (p0) below 0, 0 from -0.0 up, nan stays nan
        y = tl.where(x < 0, p0, 0.0)
        y = tl.where(x != x, x, y)
    elif OP == LOG_SIGMOID:  # min(x, 0) - log1p(e^-|x|): exact in both tails (nan stays nan)
        y = tl.where(x < 0, x, 0.0) - ld.log1p(ld.exp(-tl.abs(x)))
    elif OP == FLOOR:
        if IS_FLOAT:
            y = ld.floor(x)
        else:
            y = x
    elif OP == CEIL:
        if IS_FLOAT:
            y = ld.ceil(x)
        else:
            y = x
    elif OP == ROUND:  # half to even
        if IS_FLOAT:
            y = ld.nearbyint(x)
        else:
            y = x
    elif OP == ROUND_DECIMALS:  # p0 = 10**|decimals|, p1 = 1 when decimals < 0 (PyTorch's formula)
        if p1 != 0:
            y = ld.nearbyint(fdiv(x, p0)) * p0
        else:
            y = fdiv(ld.nearbyint(x * p0), p0)
    elif OP == TRUNC:
        if IS_FLOAT:
            y = ld.trunc(x)
        else:
            y = x
    elif OP == FRAC:
        y = x - ld.trunc(x)
    elif OP == LOGICAL_NOT:
        y = x == 0
    elif OP == BITWISE_NOT:
        if IS_BOOL:
            y = x ^ 1
        else:
            y = ~x
    elif OP == ISNAN:
        y = x != x
    elif OP == ISINF:
        if IS_FLOAT:
            y = tl.abs(x) == INF
        else:
            y = x != x
    elif OP == ISPOSINF:
        if IS_FLOAT:
            y = x == INF
        else:
            y = x != x
    elif OP == ISNEGINF:
        if IS_FLOAT:
            y = x == -INF
        else:
            y = x != x
    elif OP == ISFINITE:
        if IS_FLOAT:
            y = tl.abs(x) < INF
        else:
            y = x == x
    elif OP == SIGNBIT:
        if IS_FLOAT:
            y = ld.signbit(x) != 0
        else:
            y = x < 0
    else:  # NAN_TO_NUM: p0 = nan, p1 = posinf, p2 = neginf replacements
        if IS_FLOAT:  # each replacement decided on x itself (nan=inf must not then become posinf)
            y = tl.where(x != x, p0, tl.where(x == INF, p1, tl.where(x == -INF, p2, x)))
        else:
            y = x
    return y


@triton.jit
def _unary_kernel(
    out_ptr, x_ptr,  # pointers (advanced to this launch's first element)
    p0, p1, p2,  # op parameters: int64 (float64 bits when the compute type is floating)
    n,  # number of elements
    size1, size2, size3, size4, size5,  # sizes, right-aligned (dim 5 innermost; size0 is never needed)
    os0, os1, os2, os3, os4, os5,  # output strides (elements)
    xs0, xs1, xs2, xs3, xs4, xs5,  # input strides (elements; 0 on broadcast dims)
    OP: tl.constexpr,  # which op (an index into OPS)
    CT: tl.constexpr,  # compute type code (common.CT_CODES)
    RND: tl.constexpr,  # round the input to float16/bfloat16 first (common.RND_CODES)
    NDIM: tl.constexpr,  # how many of the six dims are real
    OUT_MODE: tl.constexpr, X_MODE: tl.constexpr,  # operand modes (common: STRIDED, CONTIGUOUS, SPLAT)
    INT64: tl.constexpr,  # offsets need 64 bits
    BLOCK: tl.constexpr,
):
    idx, mask = C.block_indices(n, INT64, BLOCK)
    x = C.load_operand(x_ptr, 0, idx, mask, size1, size2, size3, size4, size5, xs0, xs1, xs2, xs3, xs4, xs5,
                       NDIM, X_MODE, CT)
    x = C.round_operand(x, X_MODE, RND)
    a0 = C.scalar_value(p0, CT)
    a1 = C.scalar_value(p1, CT)
    a2 = C.scalar_value(p2, CT)
    y = _unary_op(x, a0, a1, a2, OP, CT <= 1, CT == 7)
    C.store_result(out_ptr, y, idx, mask, size1, size2, size3, size4, size5, os0, os1, os2, os3, os4, os5,
                   NDIM, OUT_MODE)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------

CONFIGS = C.CONFIGS


def unary(out, x, *, op: str, ct: str, params=(), rnd=None) -> None:
    """``out = op(x)`` for DeviceArrays of one shape (``x`` may broadcast); compute type ``ct``;
    ``rnd``: "float16"/"bfloat16" to round ``x`` to that dtype first (an integer input of a float16
    default dtype: ``common``)."""
    if tuple(out.shape) != tuple(x.shape):
        raise ValueError(f"unary {op}: shapes differ: out {out.shape} vs input {x.shape}")
    constexprs = _CONSTEXPRS.get((op, ct, rnd))
    if constexprs is None:
        code = CODES.get(op)
        if code is None:
            raise NotImplementedError(f"unary elementwise op {op!r} has no kernel")
        constexprs = _CONSTEXPRS[op, ct, rnd] = (("OP", code), ("CT", C.CT_CODES[ct]), ("RND", C.RND_CODES[rnd]))
    if 0 in out.shape:
        return
    bits = (*[C.scalar_bits(p, ct) for p in params], *(0,) * (3 - len(params))) if params else (0, 0, 0)
    C.launch_elementwise(_unary_kernel, out, (x,), bits, ("X_MODE",), ct, False, constexprs)


_CONSTEXPRS: dict = {}  # (op, compute type, rnd) -> the kernel's constexprs


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------

_SQRT1_2 = 0.70710678118654752440
_SQRT_2_OVER_PI = 0.79788456080286535588
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _np_erf(x):
    return math_np(math.erf, x)


def _np_erfc(x):
    return math_np(math.erfc, x)


def _clamp(x, lo, hi):
    z = np.where(x < lo, lo, x)
    return np.where(z > hi, hi, z)


def _hardsigmoid_core(x, c):
    z = x + c(3)
    return np.where(z < 0, c(0), np.where(z > 6, c(6), z))


# ops that are one numpy ufunc of the operand: the twin writes them straight into the output
_UFUNCS = {"neg": np.negative, "abs": np.abs, "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log,
           "log2": np.log2, "log10": np.log10, "log1p": np.log1p, "sqrt": np.sqrt, "sin": np.sin, "cos": np.cos,
           "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
           "cosh": np.cosh, "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh}
def _np_entr(x):
    c = x.dtype.type
    y = np.where(x > 0, -x * np.log(np.where(x > 0, x, c(1))), np.where(x == 0, c(0), c(-np.inf)))
    return np.where(x != x, x, y)


_SIMPLE = {**_UFUNCS, "erf": _np_erf, "erfc": _np_erfc, "erfinv": erfinv_np, "lgamma": GAM.lgamma_np,
           "digamma": GAM.digamma_np, "trigamma": GAM.trigamma_np, "i0": BES.i0_np, "i0e": BES.i0e_np,
           "i1": BES.i1_np, "i1e": BES.i1e_np, "erfcx": erfcx_np, "ndtr": ndtr_np, "ndtri": ndtri_np,
           "log_ndtr": log_ndtr_np, "entr": _np_entr}


def _np_unary(op: str, x, p, is_float: bool, is_bool: bool):
    c = x.dtype.type  # constants in the compute type, as the kernel's weak Python constants
    if op == "sign":
        return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)
    fn = _SIMPLE.get(op)
    if fn is not None:
        return fn(x)
    if op == "polygamma":
        return p[1] * GAM.zeta_np(p[0], x, p[2])
    if op == "angle":
        return np.where(x != x, x, np.where(x < 0, c(p[0]), c(0)))
    if op == "log_sigmoid":
        return np.minimum(x, c(0)) - np.log1p(np.exp(-np.abs(x)))
    if op == "rsqrt":
        return c(1) / np.sqrt(x)
    if op == "square":
        return x * x
    if op == "reciprocal":
        return c(1) / x
    if op == "sigmoid":
        return c(1) / (c(1) + np.exp(-x))
    if op == "logit":
        return np.log(x / (c(1) - x))
    if op == "logit_eps":
        z = np.where(x < p[0], p[0], np.where(x > p[1], p[1], x)).astype(x.dtype)  # (the kernel's order)
        return np.log(z / (c(1) - z))
    if op == "relu":
        return np.where(x < 0, c(0), x)
    if op == "hardtanh":
        return _clamp(x, p[0], p[1])
    if op == "leaky_relu":
        return np.where(x > 0, x, x * p[0])
    if op == "elu":
        return np.where(x > 0, x, p[0] * np.expm1(x))
    if op == "selu":
        return c(_SELU_SCALE) * np.where(x > 0, x, c(_SELU_ALPHA) * np.expm1(x))
    if op == "gelu":
        return c(0.5) * x * (c(1) + _np_erf(x * c(_SQRT1_2)))
    if op == "gelu_tanh":
        inner = c(_SQRT_2_OVER_PI) * (x + c(0.044715) * x * x * x)
        return c(0.5) * x * (c(1) + np.tanh(inner))
    if op == "silu":
        return x / (c(1) + np.exp(-x))
    if op == "mish":
        return x * np.tanh(np.log1p(np.exp(x)))
    if op == "softplus":
        z = x * p[0]
        return np.where(z > p[1], x, np.log1p(np.exp(z)) / p[0])
    if op == "hardsigmoid":
        return _hardsigmoid_core(x, c) / c(6)
    if op == "hardswish":
        return x * _hardsigmoid_core(x, c) / c(6)
    if op in ("floor", "ceil", "round", "trunc"):
        return getattr(np, {"round": "rint"}.get(op, op))(x) if is_float else x
    if op == "round_decimals":
        return np.rint(x / p[0]) * p[0] if p[1] != 0 else np.rint(x * p[0]) / p[0]
    if op == "frac":
        return x - np.trunc(x)
    if op == "logical_not":
        return x == 0
    if op == "bitwise_not":
        return x ^ 1 if is_bool else ~x
    if op == "isnan":
        return x != x
    if op == "isinf":
        return np.isinf(x) if is_float else np.zeros(x.shape, bool)
    if op == "isposinf":
        return np.isposinf(x) if is_float else np.zeros(x.shape, bool)
    if op == "isneginf":
        return np.isneginf(x) if is_float else np.zeros(x.shape, bool)
    if op == "isfinite":
        return np.isfinite(x) if is_float else np.ones(x.shape, bool)
    if op == "signbit":
        return np.signbit(x)
    if op == "nan_to_num":
        if not is_float:
            return x
        return np.where(np.isnan(x), p[0], np.where(x == np.inf, p[1], np.where(x == -np.inf, p[2], x)))
    raise NotImplementedError(f"unary elementwise op {op!r} has no numpy twin")


def unary_twin(out: np.ndarray, x: np.ndarray, *, op: str, ct: str, params=(), rnd=None) -> None:
    """The reference: the same op in numpy, in the same compute type, written with the same conversion."""
    if tuple(out.shape) != tuple(x.shape):
        raise ValueError(f"unary {op}: shapes differ: out {out.shape} vs input {x.shape}")
    xc = C.np_operand(x, ct)
    if rnd is not None:
        xc = C.np_round_operand(x, xc, rnd)
    dt = C.np_ct(ct)
    fn = _UFUNCS.get(op)
    if fn is not None and out.dtype == dt and ct != "bool":  # the common case: no temporary
        if fn is np.negative and np.shares_memory(xc, out):
            # numpy 2.4's negative with an output aliasing a strided input whose element step equals
            # the itemsize in bytes (a float32 diagonal of a 3x3) reads the wrong elements: a
            # temporary (checked: no other ufunc of this table does it)
            xc = xc.copy()
        with np.errstate(all="ignore"):
            fn(xc, out=out)
        return
    with np.errstate(all="ignore"):  # (a parameter beyond the compute type overflows to inf, as in the kernel)
        p = [np.asarray(v).astype(dt)[()] if C.is_floating_ct(ct) else dt.type(int(v)) for v in params]
        y = _np_unary(op, xc, p, C.is_floating_ct(ct), ct == "bool")
    C.np_store(out, y)
