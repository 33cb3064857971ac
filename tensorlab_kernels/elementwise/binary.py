"""Binary elementwise ops: one generic strided kernel, the op chosen at compile time.

``_binary_kernel`` computes ``out = op(a, b)`` where each of ``a`` and ``b`` is a strided tensor
(broadcast dims have stride 0, nothing is materialised), a fully broadcast tensor (loaded once)
or a Python scalar passed as a kernel argument (``common`` explains the modes and the compute
type). Arithmetic follows PyTorch: fp16/bf16 compute in fp32; integer ops stay in their integer
type with PyTorch's semantics (``//`` and ``%`` floor like Python, ``pow`` by squaring, shifts by
more than the width give 0 or the sign); ``add``/``sub`` take ``alpha``; division is IEEE
(libdevice's ``div_rn``: Triton's fp32 ``/`` is an approximation).

Layout of this file: op codes, the Triton kernel, the launcher, the numpy twin.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from ..runtime.array import DeviceArray
from . import common as C
from .libdevice import libdevice as ld
from .unary import INF, fdiv

OPS = [
    "add", "sub", "mul", "div", "div_trunc", "div_floor", "remainder", "fmod", "pow", "maximum", "minimum",
    "fmax", "fmin", "atan2", "hypot", "copysign", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
    "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
    "clamp_min", "clamp_max", "logaddexp", "logaddexp2", "xlogy", "threshold_backward", "xlog1py", "gcd", "lcm",
]
CODES = {name: i for i, name in enumerate(OPS)}

ADD: tl.constexpr = tl.constexpr(0)
SUB: tl.constexpr = tl.constexpr(1)
MUL: tl.constexpr = tl.constexpr(2)
DIV: tl.constexpr = tl.constexpr(3)
DIV_TRUNC: tl.constexpr = tl.constexpr(4)
DIV_FLOOR: tl.constexpr = tl.constexpr(5)
REMAINDER: tl.constexpr = tl.constexpr(6)
FMOD: tl.constexpr = tl.constexpr(7)
POW: tl.constexpr = tl.constexpr(8)
MAXIMUM: tl.constexpr = tl.constexpr(9)
MINIMUM: tl.constexpr = tl.constexpr(10)
FMAX: tl.constexpr = tl.constexpr(11)
FMIN: tl.constexpr = tl.constexpr(12)
ATAN2: tl.constexpr = tl.constexpr(13)
HYPOT: tl.constexpr = tl.constexpr(14)
COPYSIGN: tl.constexpr = tl.constexpr(15)
EQ: tl.constexpr = tl.constexpr(16)
NE: tl.constexpr = tl.constexpr(17)
LT: tl.constexpr = tl.constexpr(18)
LE: tl.constexpr = tl.constexpr(19)
GT: tl.constexpr = tl.constexpr(20)
GE: tl.constexpr = tl.constexpr(21)
LOGICAL_AND: tl.constexpr = tl.constexpr(22)
LOGICAL_OR: tl.constexpr = tl.constexpr(23)
LOGICAL_XOR: tl.constexpr = tl.constexpr(24)
BITWISE_AND: tl.constexpr = tl.constexpr(25)
BITWISE_OR: tl.constexpr = tl.constexpr(26)
BITWISE_XOR: tl.constexpr = tl.constexpr(27)
LEFT_SHIFT: tl.constexpr = tl.constexpr(28)
RIGHT_SHIFT: tl.constexpr = tl.constexpr(29)
CLAMP_MIN: tl.constexpr = tl.constexpr(30)
CLAMP_MAX: tl.constexpr = tl.constexpr(31)
LOGADDEXP: tl.constexpr = tl.constexpr(32)
LOGADDEXP2: tl.constexpr = tl.constexpr(33)
XLOGY: tl.constexpr = tl.constexpr(34)
THRESHOLD_BACKWARD: tl.constexpr = tl.constexpr(35)
XLOG1PY: tl.constexpr = tl.constexpr(36)
GCD: tl.constexpr = tl.constexpr(37)
LCM: tl.constexpr = tl.constexpr(38)
assert len(OPS) == 39 and CODES["threshold_backward"] == 35 and CODES["xlog1py"] == 36 and CODES["lcm"] == 38

INV_LN2: tl.constexpr = tl.constexpr(1.4426950408889634)

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _floor_div_float(a, b):
    """Python's (and PyTorch's) floor division of floats: exact where floor(a / b) is not."""
    mod = ld.fmod(a, b)
    div = fdiv(a - mod, b)
    div = tl.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1.0, div)
    floordiv = ld.floor(div)
    floordiv = tl.where(div - floordiv > 0.5, floordiv + 1.0, floordiv)
    floordiv = tl.where(div == 0, ld.copysign(div * 0.0, fdiv(a, b)), floordiv)
    return tl.where(b == 0, fdiv(a, b), floordiv)


@triton.jit
def _int_pow(a, b, NBITS: tl.constexpr):
    """a ** b for integers by squaring (wrapping like C); negative exponents as PyTorch: 1, -1 or 0."""
    result = a * 0 + 1
    base = a
    e = b
    for _ in range(NBITS):
        result = tl.where((e & 1) != 0, result * base, result)
        base = base * base
        e = e >> 1
    if a.dtype.is_int_unsigned():  # no negative exponents (nor a -1 to compare with: Triton refuses it)
        y = result
    else:
        zero = a * 0
        neg = tl.where(a == 1, zero + 1, tl.where(a == -1, tl.where((b & 1) != 0, zero - 1, zero + 1), zero))
        y = tl.where(b < 0, neg, result)
    return y


@triton.jit
def _int_gcd(a, b):
    """PyTorch's calc_gcd lane by lane: Euclid on |a| and |b| with C's remainder (so |min int|, which
    wraps, gives torch's values too), looping until every lane of the block is done."""
    x = tl.abs(a)
    y = tl.abs(b)
    while tl.max((x != 0).to(tl.int32), axis=0) != 0:
        live = x != 0
        r = y % tl.where(live, x, x * 0 + 1)  # (a finished lane divides by 1, never by 0)
        y = tl.where(live, x, y)
        x = tl.where(live, r, x)
    return y


@triton.jit
def _binary_op(a, b, alpha, OP: tl.constexpr, IS_FLOAT: tl.constexpr, NBITS: tl.constexpr, B_SCALAR: tl.constexpr):
    """``OP`` on ``a`` and ``b`` (in the compute type); ``alpha`` scales ``b`` for add/sub;
    ``B_SCALAR``: ``b`` is a Python number (pow's shortcuts)."""
    if OP == ADD:
        y = a + alpha * b
    elif OP == SUB:
        y = a - alpha * b
    elif OP == MUL:
        y = a * b
    elif OP == DIV:
        y = fdiv(a, b)
    elif OP == DIV_TRUNC:
        if IS_FLOAT:
            y = ld.trunc(fdiv(a, b))
        else:
            y = a // b  # Triton's integer division truncates, like C
    elif OP == DIV_FLOOR:
        if IS_FLOAT:
            y = _floor_div_float(a, b)
        else:
            q = a // b
            r = a % b
            y = tl.where((r != 0) & ((r < 0) != (b < 0)), q - 1, q)
    elif OP == REMAINDER:  # the sign of the divisor, as Python's %
        if IS_FLOAT:
            r = ld.fmod(a, b)
        else:
            r = a % b  # Triton's integer % takes the sign of the dividend, like C
        y = tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
    elif OP == FMOD:
        if IS_FLOAT:
            y = ld.fmod(a, b)
        else:
            y = a % b
    elif OP == POW:
        if IS_FLOAT:
            # x**2 as x*x and x**1 as x, exactly, as PyTorch's pow special-cases them (libdevice's
            # pow can be an ulp off there: a gradient 2x computed as 2 * x**1 was, on an H100)
            y = tl.where(b == 2.0, a * a, tl.where(b == 1.0, a, ld.pow(a, b)))
            if B_SCALAR:  # PyTorch's pow_tensor_scalar: a number exponent 0.5, -0.5 or -1 is sqrt, rsqrt or
                # reciprocal (sqrt(-inf) is nan and sqrt(-0.) is -0., where pow gives inf and 0.)
                y = tl.where(b == -1.0, fdiv(1.0, a), y)
                y = tl.where(b == 0.5, ld.sqrt(a), tl.where(b == -0.5, ld.rsqrt(a), y))
        else:
            y = _int_pow(a, b, NBITS)
    elif OP == MAXIMUM:  # nan propagates
        y = tl.where((a > b) | (a != a), a, b)
    elif OP == MINIMUM:
        y = tl.where((a < b) | (a != a), a, b)
    elif OP == FMAX:  # nan ignored; a tie (+0 and -0) gives a, as PyTorch
        y = tl.where((a >= b) | (b != b), a, b)
    elif OP == FMIN:
        y = tl.where((a <= b) | (b != b), a, b)
    elif OP == ATAN2:
        y = ld.atan2(a, b)
    elif OP == HYPOT:
        y = ld.hypot(a, b)
    elif OP == COPYSIGN:
        y = ld.copysign(a, b)
    elif OP == EQ:
        y = a == b
    elif OP == NE:
        y = a != b
    elif OP == LT:
        y = a < b
    elif OP == LE:
        y = a <= b
    elif OP == GT:
        y = a > b
    elif OP == GE:
        y = a >= b
    elif OP == LOGICAL_AND:
        y = (a != 0) & (b != 0)
    elif OP == LOGICAL_OR:
        y = (a != 0) | (b != 0)
    elif OP == LOGICAL_XOR:
        y = (a != 0) ^ (b != 0)
    elif OP == BITWISE_AND:
        y = a & b
    elif OP == BITWISE_OR:
        y = a | b
    elif OP == BITWISE_XOR:
        y = a ^ b
    elif OP == LEFT_SHIFT:  # PyTorch: a shift by a negative amount or >= the width gives 0
        out_of_range = (b < 0) | (b >= NBITS)
        y = tl.where(out_of_range, a * 0, a << tl.where(out_of_range, b * 0, b))
    elif OP == RIGHT_SHIFT:  # ... and here a >> (width - 1): the sign, 0 for an unsigned type
        if a.dtype.is_int_unsigned():
            out_of_range = b >= NBITS
            y = tl.where(out_of_range, a * 0, a >> tl.where(out_of_range, b * 0, b))
        else:
            y = a >> tl.where((b < 0) | (b >= NBITS), b * 0 + (NBITS - 1), b)
    elif OP == LOGADDEXP:  # log(e**a + e**b) = max + log1p(e**-|a - b|) (PyTorch's form); nan propagates
        big = tl.where((a > b) | (a != a), a, b)
        y = big + ld.log1p(ld.exp(-tl.abs(a - b)))
        y = tl.where((a == b) & (tl.abs(a) == INF), a, y)  # equal infinities: inf - inf would give nan
    elif OP == LOGADDEXP2:  # the same in base 2
        big = tl.where((a > b) | (a != a), a, b)
        y = big + ld.log1p(ld.exp2(-tl.abs(a - b))) * INV_LN2
        y = tl.where((a == b) & (tl.abs(a) == INF), a, y)
    elif OP == XLOGY:  # a * log(b), and 0 where a == 0 (even for b = 0 or inf) unless b is nan
        y = tl.where(a == 0, 0.0, a * ld.log(b))
        y = tl.where(b != b, b, y)
    elif OP == XLOG1PY:  # a * log1p(b), and 0 where a == 0 (even for b = -1 or inf) unless b is nan
        y = tl.where(a == 0, 0.0, a * ld.log1p(b))
        y = tl.where(b != b, b, y)
    elif OP == THRESHOLD_BACKWARD:  # relu's gradient a from its output b: 0 where b <= 0 (a nan b passes a)
        y = tl.where(b <= 0, 0.0, a)
    elif OP == GCD:
        y = _int_gcd(a, b)
    elif OP == LCM:  # |a / gcd * b| (wrapping like C), 0 when both are 0
        if NBITS < 32:  # C computes 8- and 16-bit operands in int, then truncates: abs before the wrap
            a = a.to(tl.int32)
            b = b.to(tl.int32)
        g = _int_gcd(a, b)
        y = tl.where(g == 0, g, tl.abs(a // tl.where(g == 0, g + 1, g) * b))
    elif OP == CLAMP_MIN:  # nan in either propagates, as PyTorch's clamp
        y = tl.where(a < b, b, a)
        y = tl.where(b != b, b, y)
    else:  # CLAMP_MAX
        y = tl.where(a > b, b, a)
        y = tl.where(b != b, b, y)
    return y


@triton.jit
def _binary_kernel(
    out_ptr, a_ptr, b_ptr,  # pointers (advanced to this launch's first element; unused for scalar operands)
    a_bits, b_bits, alpha_bits,  # scalar operands and alpha: int64 (float64 bits when computing in floats)
    n,  # number of elements
    size1, size2, size3, size4, size5,  # sizes, right-aligned (dim 5 innermost)
    os0, os1, os2, os3, os4, os5,  # output strides (elements)
    as0, as1, as2, as3, as4, as5,  # a strides (0 on broadcast dims)
    bs0, bs1, bs2, bs3, bs4, bs5,  # b strides
    OP: tl.constexpr,  # which op (an index into OPS)
    CT: tl.constexpr,  # compute type code (common.CT_CODES)
    NBITS: tl.constexpr,  # bit width of an integer compute type (pow, shifts)
    RND: tl.constexpr,  # round the tensor operands to float16/bfloat16 first (common.RND_CODES)
    NDIM: tl.constexpr,  # how many of the six dims are real
    OUT_MODE: tl.constexpr, A_MODE: tl.constexpr, B_MODE: tl.constexpr,  # operand modes (common)
    INT64: tl.constexpr,  # offsets need 64 bits
    BLOCK: tl.constexpr,
):
    idx, mask = C.block_indices(n, INT64, BLOCK)
    a = C.load_operand(a_ptr, a_bits, idx, mask, size1, size2, size3, size4, size5, as0, as1, as2, as3, as4, as5,
                       NDIM, A_MODE, CT)
    b = C.load_operand(b_ptr, b_bits, idx, mask, size1, size2, size3, size4, size5, bs0, bs1, bs2, bs3, bs4, bs5,
                       NDIM, B_MODE, CT)
    a = C.round_operand(a, A_MODE, RND)
    b = C.round_operand(b, B_MODE, RND)
    alpha = C.scalar_value(alpha_bits, CT)
    y = _binary_op(a, b, alpha, OP, CT <= 1, NBITS, B_MODE == C.SCALAR)
    C.store_result(out_ptr, y, idx, mask, size1, size2, size3, size4, size5, os0, os1, os2, os3, os4, os5,
                   NDIM, OUT_MODE)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------

CONFIGS = C.CONFIGS
_NBITS = {"int8": 8, "uint8": 8, "bool": 8, "int16": 16, "int32": 32, "int64": 64, "float32": 32, "float64": 64}


def binary(out, a, b, *, op: str, ct: str, alpha=1, rnd=None) -> None:
    """``out = op(a, b)``: DeviceArrays of ``out``'s shape (may broadcast) or Python scalars.
    ``rnd``: "float16"/"bfloat16" to round the array operands to that dtype first (``common``)."""
    known = _CONSTEXPRS.get((op, ct, rnd))
    if known is None:
        if op not in CODES:
            raise NotImplementedError(f"binary elementwise op {op!r} has no kernel")
        # with the bits of alpha = 1, which almost every call passes
        known = _CONSTEXPRS[op, ct, rnd] = ((("OP", CODES[op]), ("CT", C.CT_CODES[ct]), ("NBITS", _NBITS[ct]),
                                             ("RND", C.RND_CODES[rnd])), (C.scalar_bits(1, ct),))
    constexprs, one_bits = known
    shape = out.shape
    if (a.__class__ is DeviceArray and a.shape != shape) or (b.__class__ is DeviceArray and b.shape != shape):
        x = a if a.__class__ is DeviceArray and a.shape != shape else b
        raise ValueError(f"binary {op}: shapes differ: out {shape} vs input {x.shape}")
    if 0 in shape:
        return
    alpha_bits = one_bits if alpha.__class__ is int and alpha == 1 else (C.scalar_bits(alpha, ct),)
    C.launch_elementwise(_binary_kernel, out, (a, b), alpha_bits, ("A_MODE", "B_MODE"), ct, True, constexprs)


_CONSTEXPRS: dict = {}  # (op, compute type, rnd) -> (the kernel's constexprs, alpha = 1's bits)


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def _np_trunc_div_int(a, b):
    q = np.floor_divide(a, b)
    r = a - q * b
    return np.where((r != 0) & ((a < 0) != (b < 0)), q + 1, q)


def _np_int_pow(a, b):
    a, b = np.broadcast_arrays(a, b)
    result = np.ones_like(a)
    base = a.copy()
    e = b.copy()
    for _ in range(a.dtype.itemsize * 8):
        result = np.where((e & 1) != 0, result * base, result)
        base = base * base
        e = e >> 1
    one, zero = np.ones_like(a), np.zeros_like(a)
    neg = np.where(a == 1, one, np.where(a == -1, np.where((b & 1) != 0, -one, one), zero))
    return np.where(b < 0, neg, result)


def _np_binary(op: str, a, b, alpha, is_float: bool, nbits: int):
    if op == "add":
        return a + alpha * b
    if op == "sub":
        return a - alpha * b
    if op == "mul":
        return a * b
    if op == "div":
        return a / b
    if op == "div_trunc":
        return np.trunc(a / b) if is_float else _np_trunc_div_int(a, b)
    if op == "div_floor":
        return np.floor_divide(a, b)  # numpy uses Python's algorithm, for floats and ints
    if op == "remainder":
        r = np.fmod(a, b)
        return np.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
    if op == "fmod":
        return np.fmod(a, b)
    if op == "pow":
        if not is_float:
            return _np_int_pow(a, b)
        # numpy computes x ** 0.5 as sqrt when the exponent reaches its loop with stride 0 (one
        # number, or a broadcast tensor): C's pow (the kernel's, PyTorch's) is +inf at -inf, +0 at -0
        return np.where((b == 0.5) & ((a == 0) | (a == -np.inf)), np.abs(a), np.power(a, b))
    if op == "maximum":
        return np.where((a > b) | (a != a), a, b)
    if op == "minimum":
        return np.where((a < b) | (a != a), a, b)
    if op == "fmax":  # (the kernel's rule: numpy's fmax breaks a +0/-0 tie its own way)
        return np.where((a >= b) | (b != b), a, b)
    if op == "fmin":
        return np.where((a <= b) | (b != b), a, b)
    if op in ("atan2", "hypot", "copysign"):
        return getattr(np, {"atan2": "arctan2"}.get(op, op))(a, b)
    comparisons = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
                   "ge": np.greater_equal, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
                   "bitwise_xor": np.bitwise_xor}
    if op in comparisons:
        return comparisons[op](a, b)
    if op.startswith("logical_"):
        return getattr(np, op)(a != 0, b != 0)
    if op == "left_shift":
        bad = (b < 0) | (b >= nbits)
        return np.where(bad, np.zeros_like(a), np.left_shift(a, np.where(bad, 0, b).astype(a.dtype)))
    if op == "right_shift":
        bad = (b < 0) | (b >= nbits)
        if a.dtype.kind == "u":
            return np.where(bad, np.zeros_like(a), np.right_shift(a, np.where(bad, 0, b).astype(a.dtype)))
        return np.right_shift(a, np.where(bad, nbits - 1, b).astype(a.dtype))
    if op in ("logaddexp", "logaddexp2"):
        big = np.where((a > b) | (a != a), a, b)
        if op == "logaddexp":
            y = big + np.log1p(np.exp(-np.abs(a - b)))
        else:
            y = big + np.log1p(np.exp2(-np.abs(a - b))) * a.dtype.type(1.4426950408889634)
        return np.where((a == b) & np.isinf(a), a, y)
    if op == "xlogy":
        y = np.where(a == 0, 0, a * np.log(b))
        return np.where(b != b, b, y)
    if op == "xlog1py":
        y = np.where(a == 0, 0, a * np.log1p(b))
        return np.where(b != b, b, y)
    if op == "threshold_backward":
        return np.where(b <= 0, np.zeros_like(a), a)
    if op in ("gcd", "lcm"):
        return _np_gcd_lcm(op, a, b)
    if op == "clamp_min":
        return np.where(b != b, b, np.where(a < b, b, a))
    if op == "clamp_max":
        return np.where(b != b, b, np.where(a > b, b, a))
    raise NotImplementedError(f"binary elementwise op {op!r} has no numpy twin")


_DIRECT = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "eq": np.equal,
           "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater, "ge": np.greater_equal}


_INT_DIVISIONS = frozenset({"div_trunc", "div_floor", "remainder", "fmod"})


def _np_gcd_lcm(op: str, a, b):
    """The kernel's Euclid (C's remainder is numpy's fmod for integers), so wrapped |min int| agrees."""
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    if op == "lcm" and a.dtype.itemsize < 4:  # (computed in int, as C and the kernel)
        a, b = a.astype(np.int32), b.astype(np.int32)
    x, y = np.abs(a), np.abs(b)
    while np.any(x != 0):
        live = x != 0
        r = np.fmod(y, np.where(live, x, 1).astype(x.dtype))
        y, x = np.where(live, x, y), np.where(live, r, x)
    if op == "gcd":
        return y
    return np.where(y == 0, y, np.abs(a // np.where(y == 0, 1, y).astype(y.dtype) * b))


def binary_twin(out: np.ndarray, a, b, *, op: str, ct: str, alpha=1, rnd=None) -> None:
    """The reference: the same op in numpy, in the same compute type, written with the same conversion."""
    ac, bc = C.np_operand(a, ct), C.np_operand(b, ct)
    if rnd is not None:
        ac, bc = C.np_round_operand(a, ac, rnd), C.np_round_operand(b, bc, rnd)
    fn = _DIRECT.get(op)
    if fn is not None and (alpha == 1 or op not in ("add", "sub")) and ct != "bool":
        res_dtype = np.dtype(bool) if op in ("eq", "ne", "lt", "le", "gt", "ge") else C.np_ct(ct)
        if out.dtype == res_dtype:  # the common case: numpy writes the output directly, no temporary
            with np.errstate(all="ignore"):
                fn(ac, bc, out=out)
            return
    if op in _INT_DIVISIONS and not C.is_floating_ct(ct) and out.size and np.any(bc == 0):
        # PyTorch's cpu check (its cuda kernels, like this module's, do not read the divisors back);
        # an empty output divides nothing (``empty_int // 0`` is empty)
        raise RuntimeError(f"{op}: ZeroDivisionError (integer division by zero)")
    al = C.np_operand(alpha, ct)
    with np.errstate(all="ignore"):
        if op == "pow" and C.is_floating_ct(ct) and not isinstance(b, np.ndarray) and float(b) in (0.5, -0.5, -1.0):
            # a number exponent: PyTorch's pow_tensor_scalar shortcuts, as the kernel's
            one = ac.dtype.type(1)
            y = np.sqrt(ac) if b == 0.5 else one / np.sqrt(ac) if b == -0.5 else one / ac
        else:
            y = _np_binary(op, ac, bc, al, C.is_floating_ct(ct), _NBITS[ct])
    C.np_store(out, y)
