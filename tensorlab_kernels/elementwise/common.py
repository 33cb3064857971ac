"""What the unary, binary and ternary elementwise kernels share, on the device and on the host.

Compute types. A kernel computes in one type, ``CT`` (a ``tl.constexpr`` code), chosen on the host
from the op's common dtype as PyTorch's ``opmath``: float16/bfloat16 compute in float32 (there is
no bf16 arithmetic in the interpreter, and PyTorch does the same), float32/float64 in themselves,
integers in themselves, and bool in int8 (Triton's int1 arithmetic wraps, PyTorch's bool
arithmetic saturates: ``True + True`` is ``True``). Stores convert to the output's dtype (to bool
that is ``!= 0``).

Operands. Each operand of a kernel arrives in one of four modes (a ``tl.constexpr``):
``STRIDED`` (read through its strides, which may be 0 for broadcast dims), ``CONTIGUOUS`` (the
element offset is the linear index), ``SPLAT`` (every stride 0: one element, loaded once) and
``SCALAR`` (a Python number passed as a kernel argument, never a tensor). Scalars travel as one
int64 argument: the IEEE bits of the float64 value when the compute type is floating (exact on a
GPU, where Triton would type a float argument fp32, and in the interpreter alike), the integer
itself otherwise.

Operand rounding. PyTorch converts every operand to the op's common dtype before computing; when
that is float16/bfloat16 and a tensor operand has another dtype (an integer tensor: ``half_t +
int_t``, ``bf16_t == int_t``), its values are first rounded to it (int32 70000 is inf in float16),
then computed in float32. ``RND`` (a ``tl.constexpr``: ``RND_CODES``) asks for that rounding of the
tensor operands; Python scalars are rounded on the host.
"""

from __future__ import annotations

import functools
import math
import struct

import ml_dtypes
import numpy as np

from .._triton import tl, triton
from ..convert import cast_to, host_steps
from ..direct_launch import array_key, int_class
from ..fill import float32_of_int
from ..launch import INT32_MAX, INTERPRET, cdiv, launch, launch_keyed, needs_int64, next_power_of_2
from ..runtime import DeviceArray
from ..strided import offsets, strided_layout

# operand modes
STRIDED: tl.constexpr = tl.constexpr(0)
CONTIGUOUS: tl.constexpr = tl.constexpr(1)
SPLAT: tl.constexpr = tl.constexpr(2)
SCALAR: tl.constexpr = tl.constexpr(3)

# compute types: code, name of the host (numpy) type
CT_CODES = {"float32": 0, "float64": 1, "int8": 2, "uint8": 3, "int16": 4, "int32": 5, "int64": 6, "bool": 7}
_OPMATH = {"float16": "float32", "bfloat16": "float32"}
# operand rounding (see the module docstring): the dtype the tensor operands are rounded to, by name
RND_CODES = {None: 0, "float16": 1, "bfloat16": 2}


def opmath(dtype_name: str) -> str:
    """The compute type of a dtype (by name): float16/bfloat16 compute in float32."""
    return _OPMATH.get(dtype_name, dtype_name)


def is_floating_ct(ct: str) -> bool:
    return ct in ("float32", "float64")


# ----------------------------------------------------------------------------------------------
# Device helpers
# ----------------------------------------------------------------------------------------------


@triton.jit
def block_indices(n, INT64: tl.constexpr, BLOCK: tl.constexpr):
    """This program's linear indices (int64 when offsets can pass 2**31 - 1) and their mask."""
    pid = tl.program_id(0)
    if INT64:
        idx = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    else:
        idx = pid * BLOCK + tl.arange(0, BLOCK)
    return idx, idx < n


@triton.jit
def to_ct(x, CT: tl.constexpr):
    """Convert loaded values to the compute type."""
    if CT == 0:
        y = x.to(tl.float32)
    elif CT == 1:
        y = x.to(tl.float64)
    elif CT == 2:
        y = x.to(tl.int8)
    elif CT == 3:
        y = cast_to(x, tl.uint8)  # (a float through int64: negative values wrap, as in PyTorch)
    elif CT == 4:
        y = x.to(tl.int16)
    elif CT == 5:
        y = x.to(tl.int32)
    elif CT == 6:
        y = x.to(tl.int64)
    else:
        y = (x != 0).to(tl.int8)  # bool computes as 0/1 in int8
    return y


@triton.jit
def scalar_value(bits, CT: tl.constexpr):
    """Decode a scalar argument (see the module docstring) into the compute type."""
    b = tl.cast(bits, tl.int64)
    if CT <= 1:
        y = to_ct(b.to(tl.float64, bitcast=True), CT)
    else:
        y = to_ct(b, CT)
    return y


@triton.jit
def load_operand(ptr, bits, idx, mask, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5,
                 NDIM: tl.constexpr, MODE: tl.constexpr, CT: tl.constexpr):
    """One operand's values for this block, in the compute type.

    SPLAT and SCALAR values are broadcast to the block (free on the GPU: a uniform register):
    the interpreter mistypes comparisons between two 0-d values (it gives them the operand's
    dtype instead of bool), which ``scalar op scalar`` launches would otherwise hit."""
    if MODE == SCALAR:
        x = tl.broadcast_to(scalar_value(bits, CT), idx.shape)
    elif MODE == SPLAT:
        x = tl.broadcast_to(to_ct(tl.load(ptr), CT), idx.shape)
    elif MODE == CONTIGUOUS:
        # other=1: masked-off lanes must not divide by zero in the interpreter
        x = to_ct(tl.load(ptr + idx, mask=mask, other=1), CT)
    else:
        off = offsets(idx, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5, NDIM)
        x = to_ct(tl.load(ptr + off, mask=mask, other=1), CT)
    return x


@triton.jit
def round_operand(x, MODE: tl.constexpr, RND: tl.constexpr):
    """A tensor operand (already float32, the compute type) rounded to float16 (RND 1) or bfloat16
    (RND 2) and back, as PyTorch converts it to the common dtype first (integer -> float32 -> half,
    as c10 builds a Half/BFloat16 from a float). Scalars (MODE SCALAR) were rounded on the host."""
    if MODE != SCALAR:
        if RND == 1:
            x = x.to(tl.float16).to(tl.float32)
        elif RND == 2:
            x = x.to(tl.bfloat16).to(tl.float32)
    return x


@triton.jit
def store_result(ptr, y, idx, mask, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5,
                 NDIM: tl.constexpr, MODE: tl.constexpr):
    """Convert ``y`` to the output's dtype and store it (MODE: CONTIGUOUS or STRIDED)."""
    y = cast_to(y, ptr.dtype.element_ty)  # PyTorch's conversion (to bool: != 0)
    if MODE == CONTIGUOUS:
        tl.store(ptr + idx, y, mask=mask)
    else:
        off = offsets(idx, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5, NDIM)
        tl.store(ptr + off, y, mask=mask)


# ----------------------------------------------------------------------------------------------
# Host helpers (launchers and twins)
# ----------------------------------------------------------------------------------------------


def scalar_bits(value, ct: str) -> int:
    """A Python scalar as the int64 kernel argument for compute type ``ct``."""
    if isinstance(value, np.generic):
        value = value.item()
    if ct == "float32" or ct == "float64":
        if ct == "float32" and value.__class__ is int and not -(1 << 24) <= value <= 1 << 24:
            value = float32_of_int(value)  # rounded once, as PyTorch (fill.stored_float_bits)
        return _F64_TO_I64.unpack(_F64.pack(float(value)))[0]  # the IEEE bits (as fill.float64_bits)
    return int(value)


_F64, _F64_TO_I64 = struct.Struct("<d"), struct.Struct("<q")


def is_array(x) -> bool:
    return isinstance(x, DeviceArray)


_FAST_STRIDES = {k: (0, 0, 0, 0, 0, 1) * k for k in range(2, 5)}  # k arrays (output + operands), 1-D contiguous


def launch_elementwise(kernel, out, operands, extra_bits, mode_names, ct: str, operand_bits: bool,
                       constexprs: tuple):
    """Launch an elementwise kernel over ``out``'s shape, once per layout piece.

    Kernel arguments, in the order every elementwise kernel declares them: the output and one
    pointer per operand (the output stands in for a scalar operand: never read), the operands'
    scalar bits (when ``operand_bits``), ``extra_bits`` (op parameters), the element count, five
    sizes, six output strides, six strides per operand; then the constexprs (``(name, value)``
    pairs), the operand modes under ``mode_names`` and the launch configuration.

    The common case (everything contiguous and of one shape, or a Python scalar) skips the
    general layout machinery: host time per launch is what eager mode pays for every op.
    """
    shape = out.shape
    flat = _flat_launch(shape)
    n = flat[0]
    if n + out.offset <= INT32_MAX and (out._contiguous or out.is_contiguous()):
        # One pass over the operands builds the launch of the common case, or finds it is not one.
        # The launch specialises on the constants of the flat launch (one dim, contiguous strides)
        # and on what the key holds: the constexprs, the output's dtype and alignment, each
        # operand's or its scalar bits' value class, the parameters' bits themselves (finer than
        # their value classes, and cheaper: an op's parameters rarely change from call to call),
        # and the element count's value class with the launch configuration.
        ptrs, bits, key = [out], [], [constexprs, out.launch_key or array_key(out)]
        for x in operands:
            if x.__class__ is DeviceArray:
                if x.shape != shape or x.offset + n > INT32_MAX or not (x._contiguous or x.is_contiguous()):
                    break
                ptrs.append(x)
                bits.append(0)
                key.append(x.launch_key or array_key(x))
            else:
                ptrs.append(out)  # a scalar operand's pointer is never read
                b = scalar_bits(x, ct)
                bits.append(b)
                key.append(int_class(b))
        else:
            key += extra_bits
            key.append(flat[2])
            rest = (*(bits if operand_bits else ()), *extra_bits, n, 1, 1, 1, 1, 1, *_FAST_STRIDES[len(ptrs)])

            def meta(config=flat[3]) -> dict:  # the keywords, built on a miss only
                modes = {name: CONTIGUOUS.value if x.__class__ is DeviceArray else SCALAR.value
                         for name, x in zip(mode_names, operands)}
                return dict(NDIM=1, OUT_MODE=CONTIGUOUS.value, INT64=False, **modes, **dict(constexprs), **config)

            launch_keyed(kernel, flat[1], ptrs, rest, tuple(key), meta)
            return
    bits = [0 if x.__class__ is DeviceArray else scalar_bits(x, ct) for x in operands] if operand_bits else []
    # The launches depend on the geometry only: worked out once per geometry (see _strided_plan).
    pieces = _strided_plan(out.shape, out.strides, tuple(x.strides if x.__class__ is DeviceArray else None
                                                          for x in operands),
                           mode_names, needs_int64(out, *[x for x in operands if x.__class__ is DeviceArray]))
    for grid, offs, ints, layout in pieces:
        # each piece starts offs elements in; the first (usually the only) piece at 0
        dst = out.shifted(offs[0])
        ptrs = [x.shifted(offs[i + 1]) if x.__class__ is DeviceArray else dst for i, x in enumerate(operands)]
        launch(kernel, grid, dst, *ptrs, *bits, *extra_bits, *ints, **layout, **dict(constexprs))


@functools.lru_cache(maxsize=4096)  # an eager program repeats its shapes; results are never changed
def _flat_launch(shape: tuple) -> tuple:
    """``(element count, grid, key part, config)`` of the flat launch over ``shape``; the key part
    is the count's value class (as ``int_class``, for counts from 1 to 2**31 - 1) with the
    configuration."""
    n = math.prod(shape)
    config = pick_config(n)
    return (n, (-(-n // config["BLOCK"]), 1, 1),
            (1 if n == 1 else 32 if n & 15 else 132, config["BLOCK"], config["num_warps"]), config)


@functools.lru_cache(maxsize=4096)  # plans are never changed by callers
def _strided_plan(shape: tuple, out_strides: tuple, operand_strides: tuple, mode_names: tuple, int64: bool) -> tuple:
    """The launches of an elementwise kernel over ``shape``: ``(grid, element offsets of the output
    and each operand, the element count, five sizes and all strides, the layout constexprs)`` per
    piece. ``operand_strides``: each operand's strides, None for a scalar operand."""
    zeros = (0,) * len(shape)
    pieces = []
    for p in strided_layout(shape, out_strides, *[zeros if s is None else s for s in operand_strides],
                            memory_order=True):
        config = pick_config(p.numel)
        modes = {name: SCALAR.value if s is None else operand_mode(p, i + 1)
                 for i, (name, s) in enumerate(zip(mode_names, operand_strides))}
        layout = dict(NDIM=p.ndim, OUT_MODE=CONTIGUOUS.value if p.contiguous(0) else STRIDED.value, INT64=int64,
                      **modes, **config)
        ints = (p.numel, *p.sizes[1:], *[st for s in p.strides for st in s])
        pieces.append(((cdiv(p.numel, config["BLOCK"]),), tuple(p.offsets), ints, layout))
    return tuple(pieces)


def operand_mode(piece, index: int) -> int:
    """The mode of a DeviceArray operand (operand ``index`` of ``piece``) in one launch piece."""
    strides = piece.strides[index]
    if all(s == 0 for s in strides):
        return SPLAT.value
    return CONTIGUOUS.value if piece.contiguous(index) else STRIDED.value


def pick_config(n: int) -> dict:
    """Launch configuration: large blocks in the interpreter (one program at a time runs faster)."""
    if INTERPRET:
        return {"BLOCK": min(max(next_power_of_2(n), 16), 16384), "num_warps": 4}
    return _LARGE if n >= (1 << 22) else _SMALL


_LARGE, _SMALL = {"BLOCK": 2048, "num_warps": 8}, {"BLOCK": 1024, "num_warps": 4}  # read-only


CONFIGS = [{"BLOCK": b, "num_warps": w} for b, w in ((512, 4), (1024, 4), (2048, 8), (4096, 8))]


_NP_CT: dict = {}
_BF16 = np.dtype(ml_dtypes.bfloat16)


def np_ct(ct: str) -> np.dtype:
    dt = _NP_CT.get(ct)
    if dt is None:
        dt = _NP_CT[ct] = np.dtype(np.int8 if ct == "bool" else ct)
    return dt


def np_operand(x, ct: str):
    """A twin operand (numpy array or Python scalar) in the compute type."""
    dt = np_ct(ct)
    if isinstance(x, np.ndarray):
        if ct == "bool":
            return (x != 0).astype(np.int8)
        if x.dtype == _BF16 and dt == np.float32:
            # exact and ~10x faster than ml_dtypes' cast: bf16 is the top half of an fp32
            return (x.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        return x.astype(dt, copy=False)  # a broadcast (stride-0) view stays a view
    if ct == "bool":
        return np.asarray(bool(x), dtype=np.int8)
    if is_floating_ct(ct):
        with np.errstate(over="ignore"):  # (a number beyond the type's range is inf, as the kernel's cast)
            return np.asarray(x).astype(dt)
    v = int(x)
    if v >= 1 << 63:  # (2**63 <= v < 2**64, read as a uint64: its int64 bits, as the kernel's argument and PyTorch)
        v -= 1 << 64
    return np.asarray(v, dtype=np.int64).astype(dt)


def np_round_operand(x, xc, rnd):
    """The twin's :func:`round_operand`: ``xc`` (operand ``x`` in the compute type, float32) rounded
    to ``rnd`` ("float16"/"bfloat16") and back when ``x`` is an array (a tensor); else ``xc``."""
    if rnd is None or not isinstance(x, np.ndarray):
        return xc
    with np.errstate(over="ignore"):
        return xc.astype(np.float16 if rnd == "float16" else _BF16).astype(np.float32)


def np_store(out: np.ndarray, y) -> None:
    """Write a twin's result into ``out`` with the kernels' conversion rules."""
    y = np.asarray(y)
    if out.dtype.itemsize == 2 and y.dtype != np.float32 and (out.dtype.kind == "f" or out.dtype == _BF16):
        y = y.astype(np.float32)
    elif out.dtype == np.uint8:
        y = host_steps(y, out.dtype)  # a float through int64: wraps on every host, as cast_to
    if y.shape != out.shape:
        y = np.broadcast_to(y, out.shape)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow to inf / nan to int: as the kernels
        np.copyto(out, y, casting="unsafe")
