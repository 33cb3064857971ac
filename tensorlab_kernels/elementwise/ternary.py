"""Ternary elementwise ops (``where``, ``clamp``, ``lerp``, ``addcmul``, ``addcdiv``): one generic kernel.

Same design as ``binary``: three operands, each a strided (possibly broadcast) tensor, a fully
broadcast tensor or a Python scalar; one scalar parameter (``value`` of addcmul/addcdiv); the op a
``tl.constexpr``; compute in the op's compute type (fp32 for fp16/bf16).

Layout of this file: op codes, the Triton kernel, the launcher, the numpy twin.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from . import common as C
from .unary import fdiv

OPS = ["where", "clamp", "lerp", "addcmul", "addcdiv"]
CODES = {name: i for i, name in enumerate(OPS)}

WHERE: tl.constexpr = tl.constexpr(0)
CLAMP: tl.constexpr = tl.constexpr(1)
LERP: tl.constexpr = tl.constexpr(2)
ADDCMUL: tl.constexpr = tl.constexpr(3)
ADDCDIV: tl.constexpr = tl.constexpr(4)

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _ternary_op(a, b, c, value, OP: tl.constexpr):
    if OP == WHERE:  # a is the condition
        y = tl.where(a != 0, b, c)
    elif OP == CLAMP:  # clamp(a, min=b, max=c) = min(max(a, b), c); nan in any operand propagates
        y = tl.where(a < b, b, a)
        y = tl.where(y > c, c, y)
        y = tl.where(b != b, b, y)
        y = tl.where(c != c, c, y)
    elif OP == LERP:  # PyTorch's two-sided formula (exact at both ends)
        diff = b - a
        y = tl.where(tl.abs(c) < 0.5, a + c * diff, b - diff * (1.0 - c))
    elif OP == ADDCMUL:
        y = a + value * b * c
    else:  # ADDCDIV in PyTorch's order: (value * b) / c (value * (b / c) rounds and overflows elsewhere)
        y = a + fdiv(value * b, c)
    return y


@triton.jit
def _ternary_kernel(
    out_ptr, a_ptr, b_ptr, c_ptr,  # pointers (unused for scalar operands)
    a_bits, b_bits, c_bits, value_bits,  # scalar operands and the op's value: int64 (float64 bits for floats)
    n,  # number of elements
    size1, size2, size3, size4, size5,  # sizes, right-aligned (dim 5 innermost)
    os0, os1, os2, os3, os4, os5,  # output strides
    as0, as1, as2, as3, as4, as5,  # a strides (0 on broadcast dims)
    bs0, bs1, bs2, bs3, bs4, bs5,  # b strides
    cs0, cs1, cs2, cs3, cs4, cs5,  # c strides
    OP: tl.constexpr, CT: tl.constexpr,
    RND: tl.constexpr,  # round the tensor operands to float16/bfloat16 first (common.RND_CODES)
    NDIM: tl.constexpr,
    OUT_MODE: tl.constexpr, A_MODE: tl.constexpr, B_MODE: tl.constexpr, C_MODE: tl.constexpr,
    INT64: tl.constexpr, BLOCK: tl.constexpr,
):
    idx, mask = C.block_indices(n, INT64, BLOCK)
    a = C.load_operand(a_ptr, a_bits, idx, mask, size1, size2, size3, size4, size5, as0, as1, as2, as3, as4, as5,
                       NDIM, A_MODE, CT)
    b = C.load_operand(b_ptr, b_bits, idx, mask, size1, size2, size3, size4, size5, bs0, bs1, bs2, bs3, bs4, bs5,
                       NDIM, B_MODE, CT)
    c = C.load_operand(c_ptr, c_bits, idx, mask, size1, size2, size3, size4, size5, cs0, cs1, cs2, cs3, cs4, cs5,
                       NDIM, C_MODE, CT)
    a = C.round_operand(a, A_MODE, RND)
    b = C.round_operand(b, B_MODE, RND)
    c = C.round_operand(c, C_MODE, RND)
    value = C.scalar_value(value_bits, CT)
    y = _ternary_op(a, b, c, value, OP)
    C.store_result(out_ptr, y, idx, mask, size1, size2, size3, size4, size5, os0, os1, os2, os3, os4, os5,
                   NDIM, OUT_MODE)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------

CONFIGS = C.CONFIGS


def ternary(out, a, b, c, *, op: str, ct: str, value=1, rnd=None) -> None:
    """``out = op(a, b, c)``: DeviceArrays of ``out``'s shape (may broadcast) or Python scalars.

    For ``where`` the condition ``a`` is converted to the compute type and tested ``!= 0``.
    ``rnd``: "float16"/"bfloat16" to round the array operands to that dtype first (``common``)."""
    if op not in CODES:
        raise NotImplementedError(f"ternary elementwise op {op!r} has no kernel")
    for x in (a, b, c):
        if C.is_array(x) and x.shape != out.shape:
            raise ValueError(f"ternary {op}: shapes differ: out {out.shape} vs input {x.shape}")
    if out.numel == 0:
        return
    C.launch_elementwise(_ternary_kernel, out, (a, b, c), (C.scalar_bits(value, ct),), ("A_MODE", "B_MODE", "C_MODE"),
                         ct, True, (("OP", CODES[op]), ("CT", C.CT_CODES[ct]), ("RND", C.RND_CODES[rnd])))


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def ternary_twin(out: np.ndarray, a, b, c, *, op: str, ct: str, value=1, rnd=None) -> None:
    bc, cc = C.np_operand(b, ct), C.np_operand(c, ct)
    if rnd is not None:
        bc, cc = C.np_round_operand(b, bc, rnd), C.np_round_operand(c, cc, rnd)
    if op == "where":  # the condition is only tested, never converted
        C.np_store(out, np.where(a if a.dtype == np.bool_ else a != 0, bc, cc))
        return
    ac = C.np_round_operand(a, C.np_operand(a, ct), rnd)
    v = C.np_operand(value, ct)
    one = C.np_ct(ct).type(1)
    with np.errstate(all="ignore"):
        if op == "clamp":
            y = np.where(ac < bc, bc, ac)
            y = np.where(y > cc, cc, y)
            y = np.where(bc != bc, bc, y)
            y = np.where(cc != cc, cc, y)
        elif op == "lerp":
            diff = bc - ac
            y = np.where(np.abs(cc) < 0.5, ac + cc * diff, bc - diff * (one - cc))
        elif op == "addcmul":
            y = ac + v * bc * cc
        elif op == "addcdiv":
            y = ac + (v * bc) / cc  # (the kernel's order: PyTorch's)
        else:
            raise NotImplementedError(f"ternary elementwise op {op!r} has no numpy twin")
    C.np_store(out, y)
