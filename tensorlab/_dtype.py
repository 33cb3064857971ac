"""dtypes and PyTorch's type-promotion rules.

``tensorlab.float32`` etc. are :class:`dtype` objects, each tied to the numpy dtype that
stores it (bfloat16 comes from ``ml_dtypes``). Promotion follows PyTorch exactly:

- categories bool < integer < floating; within a category the usual lattice
  (uint8 + int8 -> int16, float16 + bfloat16 -> float32);
- in :func:`result_type`, Python scalars are *weak* and 0-d tensors are weaker than
  dimensioned ones: they only matter when they raise the category (``int32 tensor + 2.5`` is
  float32, ``float16 tensor + 2.5`` stays float16, ``uint8 tensor + 1000`` stays uint8).
"""

from __future__ import annotations

import builtins
import numbers

import ml_dtypes
import numpy as np


class dtype:
    __slots__ = ("name", "np", "itemsize", "is_floating_point", "is_signed", "_rank", "_category")

    def __init__(self, name: str, np_dtype, category: int, rank: int):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self._category = category  # 0 bool, 1 integer, 2 floating
        self._rank = rank
        self.is_floating_point = category == 2
        self.is_signed = name not in ("bool", "uint8")

    @property
    def is_complex(self) -> bool:
        return False

    def to_real(self) -> dtype:
        return self

    def __repr__(self) -> str:
        return f"tensorlab.{self.name}"

    def __reduce__(self):
        return (_dtype_by_name, (self.name,))


def _dtype_by_name(name: str) -> dtype:
    return _BY_NAME[name]


bool = dtype("bool", np.bool_, 0, 0)  # noqa: A001 - PyTorch's name
uint8 = dtype("uint8", np.uint8, 1, 1)
int8 = dtype("int8", np.int8, 1, 2)
int16 = dtype("int16", np.int16, 1, 3)
int32 = dtype("int32", np.int32, 1, 4)
int64 = dtype("int64", np.int64, 1, 5)
float16 = dtype("float16", np.float16, 2, 6)
bfloat16 = dtype("bfloat16", ml_dtypes.bfloat16, 2, 7)
float32 = dtype("float32", np.float32, 2, 8)
float64 = dtype("float64", np.float64, 2, 9)

half, float, double = float16, float32, float64  # noqa: A001
short, int, long = int16, int32, int64  # noqa: A001

ALL = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64)
FLOATING = (float16, bfloat16, float32, float64)
INTEGRAL = (uint8, int8, int16, int32, int64)
_BY_NAME = {d.name: d for d in ALL}
_BY_NP = {d.np: d for d in ALL}

_default_dtype = float32


def get_default_dtype() -> dtype:
    return _default_dtype


def set_default_dtype(d: dtype) -> None:
    global _default_dtype
    if not isinstance(d, dtype) or not d.is_floating_point:
        raise TypeError(f"set_default_dtype: only floating-point dtypes are supported as default, got {d!r}")
    _default_dtype = d


def from_numpy_dtype(np_dtype, op: str = "tensor") -> dtype:
    nd = np.dtype(np_dtype)
    d = _BY_NP.get(nd)
    if d is None:
        raise TypeError(
            f"{op}: can't convert numpy array of type {nd}; supported: "
            "float64, float32, float16, bfloat16, int64, int32, int16, int8, uint8, bool"
        )
    return d


# PyTorch's argument parser takes these Python types where a dtype goes: float means float64, int int64
_PYTHON_TYPES = {builtins.float: float64, builtins.int: int64, builtins.bool: bool}


def as_dtype(value, op: str = "dtype") -> dtype:
    """Accept a tensorlab dtype, a numpy dtype, a Python type or a name."""
    if isinstance(value, dtype):
        return value
    if isinstance(value, type) and value in _PYTHON_TYPES:
        return _PYTHON_TYPES[value]
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    try:
        return from_numpy_dtype(value, op)
    except TypeError:
        raise TypeError(f"{op}: {value!r} is not a tensorlab dtype") from None


def dtype_argument(value, op: str, name: str, position: builtins.int) -> dtype:
    """A dtype parameter as PyTorch's parser reads it (``promote_types``, ``can_cast``, ``finfo``, ``iinfo``):
    a dtype, or the Python type ``float`` / ``int`` / ``bool``; anything else (a name, a numpy type, a
    tensor, None) is a TypeError. ``complex`` (complex128 in PyTorch) is refused: tensorlab has no complex dtypes."""
    if isinstance(value, dtype):
        return value
    if isinstance(value, type):
        if value in _PYTHON_TYPES:
            return _PYTHON_TYPES[value]
        if value is builtins.complex:
            raise TypeError(f"{op}(): {value!r} is not a tensorlab dtype (complex dtypes are not supported)")
    raise TypeError(f"{op}(): argument '{name}' (position {position}) must be tensorlab.dtype, "
                    f"not {type(value).__name__}")


# -- promotion -----------------------------------------------------------------------------

_INT_ORDER = {uint8: 0, int8: 1, int16: 2, int32: 3, int64: 4}


_TORCH_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short", "int32": "Int", "int64": "Long",
                "float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double"}


def torch_name(d: dtype) -> str:
    """The dtype as PyTorch's messages spell it (``Long``, ``Float``, ...)."""
    return _TORCH_NAMES[d.name]


def from_torch_name(name: str, op: str) -> dtype:
    """The dtype PyTorch's type names spell ``name`` (``Float`` in ``FloatTensor``)."""
    for d, n in _TORCH_NAMES.items():
        if n == name:
            return _BY_NAME[d]
    raise ValueError(f"{op}: invalid type: 'tensorlab.{name}Tensor'")


_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int8": "signed char", "uint8": "unsigned char", "int16": "short int", "int32": "int",
              "int64": "long int", "bool": "bool"}


def cpp_name(d: dtype) -> str:
    """The dtype as the PyTorch messages that print a C++ type spell it (``float``, ``long int``)."""
    return _CPP_NAMES[d.name]


def float_info(d: dtype):
    """numpy's finfo of a floating dtype (ml_dtypes' for bfloat16): max, eps, tiny, ..."""
    return ml_dtypes.finfo(d.np) if d is bfloat16 else np.finfo(d.np)


_DEFAULT = object()  # finfo()'s "no argument": finfo(None) is a TypeError, as in PyTorch


class finfo:
    """Machine limits of a floating dtype, as ``torch.finfo``: ``bits``, ``eps``, ``max``, ``min``,
    ``tiny`` (= ``smallest_normal``), ``resolution`` (Python floats) and ``dtype`` (its name).
    ``finfo()`` describes the default dtype; ``finfo(float)`` float64 (PyTorch's Python-type reading)."""

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type: dtype = _DEFAULT):
        d = get_default_dtype() if type is _DEFAULT else dtype_argument(type, "finfo", "type", 1)
        if not d.is_floating_point:
            raise TypeError(f"finfo() requires a floating point input type, got {d!r}. Use iinfo for integer types")
        info = float_info(d)
        self.bits, self.dtype = d.itemsize * 8, d.name
        self.eps, self.max, self.min = builtins.float(info.eps), builtins.float(info.max), builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.tiny)
        self.resolution = 10.0 ** -builtins.int(info.precision)  # numpy keeps float16 0.0010004

    def __eq__(self, other) -> bool:  # (one per dtype, as PyTorch's)
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype, as ``torch.iinfo``: ``bits``, ``min``, ``max`` (Python ints) and
    ``dtype`` (its name). bool is not an integer type here either. ``iinfo(int)`` is int64."""

    __slots__ = ("bits", "min", "max", "dtype")

    def __init__(self, type: dtype):
        type = dtype_argument(type, "iinfo", "type", 1)
        if type.is_floating_point or type.name == "bool":
            raise TypeError(f"{type!r} is not supported by iinfo")
        info = np.iinfo(type.np)
        self.bits, self.min, self.max, self.dtype = info.bits, builtins.int(info.min), builtins.int(info.max), type.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype both ``type1`` and ``type2`` convert to without losing their category. Either
    may be the Python type ``float`` / ``int`` / ``bool`` (float64 / int64 / bool), as in PyTorch."""
    a, b = type1, type2
    if a.__class__ is not dtype or b.__class__ is not dtype:
        a, b = dtype_argument(a, "promote_types", "type1", 1), dtype_argument(b, "promote_types", "type2", 2)
    if a is b:
        return a
    if a._category != b._category:
        return a if a._category > b._category else b
    if a._category == 2:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a._rank > b._rank else b
    if a._category == 1:
        if uint8 in (a, b):
            other = b if a is uint8 else a
            return {int8: int16}.get(other, other)
        return a if _INT_ORDER[a] > _INT_ORDER[b] else b
    return bool


def _scalar_dtype(value) -> dtype:
    if isinstance(value, builtins.bool | np.bool_):
        return bool
    if isinstance(value, builtins.int | np.integer):
        return int64
    if isinstance(value, builtins.float | np.floating):
        return _default_dtype
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def _combine_categories(higher: dtype | None, lower: dtype | None) -> dtype | None:
    # PyTorch's c10 combine_categories: the higher-priority group wins unless the lower group
    # brings a higher category (bool -> int -> float).
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type(*operands) -> dtype:
    """PyTorch's ``result_type`` over tensors and Python scalars (scalars are weak)."""
    dim_result = zero_result = wrapped_result = None
    uint64_scalar = False
    for x in operands:
        d = getattr(x, "dtype", None)
        if isinstance(d, dtype) and hasattr(x, "ndim"):
            if x.ndim > 0:
                dim_result = d if dim_result is None else promote_types(dim_result, d)
            else:
                zero_result = d if zero_result is None else promote_types(zero_result, d)
        elif x is None:
            continue
        else:
            d = _scalar_dtype(x)
            wrapped_result = d if wrapped_result is None else promote_types(wrapped_result, d)
            uint64_scalar = uint64_scalar or (x.__class__ is builtins.int and x > 9223372036854775807)
    out = _combine_categories(dim_result, _combine_categories(zero_result, wrapped_result))
    if out is None:
        raise TypeError("result_type: needs at least one tensor or scalar")
    if uint64_scalar and out._category == 1 and zero_result in (None, bool) and dim_result in (None, bool):
        # A Python int in [2**63, 2**64) is a uint64 number to PyTorch. Beside an integer tensor the tensor's
        # dtype wins (the number wraps, as PyTorch's); with only bool tensors the uint64 would decide the
        # result, a promotion PyTorch refuses, and tensorlab has no uint64: refused rather than wrapped to int64.
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                           f"{torch_name(zero_result or dim_result or int64)} and UInt64")
    return out


# PyTorch's four result_type overloads: (parameter name, takes a Tensor (else a Number)) pairs
_RESULT_TYPE_FORMS = ((("tensor", True), ("other", True)), (("scalar", False), ("tensor", True)),
                      (("tensor", True), ("other", False)), (("scalar1", False), ("scalar2", False)))
_RESULT_TYPE_EXPECTED = "".join("\n * (" + ", ".join(("Tensor " if t else "Number ") + n for n, t in form) + ")"
                                for form in _RESULT_TYPE_FORMS)


def _result_type_operand(value, is_tensor: builtins.bool, Tensor):
    """``value`` as a ``result_type`` parameter of that kind reads it, or ``_DEFAULT`` when it does not fit.
    A Number parameter takes a Python or numpy scalar, or a 0-d tensor that needs no grad as the wrapped
    number of its category (PyTorch's Scalar: ``result_type(scalar=tensor(1., dtype=float64), tensor=i32)``
    is float32)."""
    if isinstance(value, Tensor):
        if is_tensor:
            return value
        if value.ndim or value.requires_grad:
            return _DEFAULT
        return (False, 0, 0.0)[value.dtype._category]
    if is_tensor or not isinstance(value, numbers.Number | np.bool_):
        return _DEFAULT
    return value


def public_result_type(*args, **kwargs) -> dtype:
    """``tensorlab.result_type``: PyTorch's overloads ``(tensor, other)`` (a Tensor and a Tensor or Number),
    ``(scalar, tensor)`` and ``(scalar1, scalar2)``, positional or by those keywords; other calls (one or
    three operands, None, a list or an array) are a TypeError, as in PyTorch."""
    from ._tensor import Tensor

    for form in _RESULT_TYPE_FORMS:
        names = [name for name, _ in form]
        if len(args) > 2 or set(kwargs) != set(names[len(args):]):
            continue
        values = list(args) + [kwargs[name] for name in names[len(args):]]
        operands = [_result_type_operand(v, is_tensor, Tensor) for v, (_, is_tensor) in zip(values, form)]
        if all(x is not _DEFAULT for x in operands):
            return result_type(*operands)
    got = [type(v).__name__ for v in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    raise TypeError(f"result_type() received an invalid combination of arguments - got ({', '.join(got)}), "
                    f"but expected one of:{_RESULT_TYPE_EXPECTED}")


public_result_type.__name__ = public_result_type.__qualname__ = "result_type"  # (pickles as tensorlab.result_type)


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """PyTorch's same-kind rule: no cast to a lower category (float -> int, int -> bool). Either may be
    the Python type ``float`` / ``int`` / ``bool``, as in PyTorch."""
    if from_.__class__ is not dtype or to.__class__ is not dtype:
        from_, to = dtype_argument(from_, "can_cast", "from_", 1), dtype_argument(to, "can_cast", "to", 2)
    return from_._category <= to._category
