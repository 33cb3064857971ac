"""Python's operators on Tensor, mapped to the elementwise ops as PyTorch maps them.

``a + b`` is ``add``, ``2 - t`` is ``rsub`` (the kernel computes ``2 - t`` directly), ``t += x``
is ``add_`` (in place: the version counter moves and ``t`` keeps its identity), ``-t`` is
``neg``, ``abs(t)`` is ``abs``, ``~t`` is ``bitwise_not``, comparisons return bool tensors, ``&
| ^ << >>`` are the bitwise ops. An operand that is neither a Tensor nor a number gives
``NotImplemented`` (so Python raises its usual TypeError, and ``t == None`` is False).

A numpy array (0-d too) is PyTorch 2.15's case: the arithmetic and bitwise operators give
``NotImplemented``, so ``t + array`` falls to the array's reflected operator and numpy computes it
with numpy's promotion (uint8 + an int64 array is int64, float32 / an int64 array is float64;
``t += array`` rebinds ``t`` to that new tensor), the result wrapped back into a cpu tensor by
``Tensor.__array_wrap__``; ``Tensor.__array__`` refuses a cuda tensor and one that requires grad, as
PyTorch's. With the array on the left numpy defers (``Tensor.__array_priority__``) and Python
raises TypeError, as for PyTorch. Comparisons still take an array as a cpu tensor operand, and so
do the functions (``tl.add(t, array)``, where PyTorch raises). ``@`` is the matmul family's.
``__hash__`` stays identity-based although ``__eq__`` is elementwise.
"""

from __future__ import annotations

import numbers

import numpy as np

from .._dispatch import dispatch
from .._tensor import Tensor
from . import elementwise_binary as B
from . import elementwise_common as E
from . import elementwise_unary as U

_OK = (Tensor, numbers.Number, np.bool_)  # what an arithmetic operator takes as its other operand (as_operand)
_COMPARABLE = (*_OK, np.ndarray)  # and a comparison (an array: a cpu tensor operand)
_INT_MIN, _INT_MAX = E._INT64_MIN, E._UINT64_MAX  # the ints an operand may be (as_operand)


def _forward(fn, op_def=None, accepts=_OK):
    """``self op other`` as ``fn(self, other)``. With the op's declaration ``op_def`` (ops whose
    function only checks its operands and dispatches them with default parameters), the usual
    operand, a tensor, a float or an int that fits 64 bits (``as_operand``'s check), goes to the
    dispatcher directly: an operator is the host cost of every eager expression. ``accepts``: the
    other operands ``fn`` takes (the rest give NotImplemented)."""

    fn = getattr(fn, "without_deprecated_overloads", fn)  # (an operator has two operands: no scalars-first form)

    def op(self, other):
        if op_def is not None:
            cls = other.__class__
            if cls is Tensor or cls is float or (cls is int and _INT_MIN <= other <= _INT_MAX):
                return dispatch(op_def, self, other)
        if not isinstance(other, accepts):
            return NotImplemented
        return fn(self, other)

    return op


def _commuted(fn, op_def=None):
    """``other op self`` for a commutative op: ``fn(self, other)`` (``2 + t`` is ``add(t, 2)``)."""
    return _forward(fn, op_def)


def _rsub(self, other):
    return B.rsub(self, other) if isinstance(other, _OK) else NotImplemented


def _rtruediv(self, other):
    # PyTorch: other * reciprocal(self); here one kernel computes other / self
    if isinstance(other, np.ndarray):  # (PyTorch's formula, numpy's product: an int64 array / int t is float64)
        return U.reciprocal(self) * other
    return B._binary(B.DIV, "div", self, other, reverse=True) if isinstance(other, _OK) else NotImplemented


def _rfloordiv(self, other):
    if not isinstance(other, _OK):
        return NotImplemented
    return B._binary(B.DIV, "floor_divide", self, other, reverse=True, rounding_mode="floor")


def _rmod(self, other):
    return B._binary(B.REMAINDER, "remainder", self, other, reverse=True) if isinstance(other, _OK) else NotImplemented


def _rpow(self, other):
    return B._binary(B.POW, "pow", self, other, reverse=True) if isinstance(other, _OK) else NotImplemented


def _rshift_reflected(op, name):
    def fn(self, other):
        return B._binary(op, name, self, other, reverse=True) if isinstance(other, _OK) else NotImplemented

    return fn


def _invert(self):
    if self.dtype.is_floating_point:  # PyTorch's TypeError for the operator (bitwise_not raises RuntimeError)
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return U.bitwise_not(self)


def _eq(self, other):
    return B.eq(self, other) if isinstance(other, _COMPARABLE) else NotImplemented


def _ne(self, other):
    return B.ne(self, other) if isinstance(other, _COMPARABLE) else NotImplemented


_OPERATORS = {
    "__add__": _forward(B.add, B.ADD), "__radd__": _commuted(B.add, B.ADD), "__iadd__": _forward(B.add_),
    "__sub__": _forward(B.sub, B.SUB), "__rsub__": _rsub, "__isub__": _forward(B.sub_),
    "__mul__": _forward(B.mul, B.MUL), "__rmul__": _commuted(B.mul, B.MUL), "__imul__": _forward(B.mul_),
    "__truediv__": _forward(B.div, B.DIV), "__rtruediv__": _rtruediv, "__itruediv__": _forward(B.div_),
    "__floordiv__": _forward(B.floor_divide), "__rfloordiv__": _rfloordiv, "__ifloordiv__": _forward(B.floor_divide_),
    "__mod__": _forward(B.remainder), "__rmod__": _rmod, "__imod__": _forward(B.remainder_),
    "__pow__": _forward(B.pow), "__rpow__": _rpow, "__ipow__": _forward(B.pow_),
    "__and__": _forward(B.bitwise_and), "__rand__": _commuted(B.bitwise_and), "__iand__": _forward(B.bitwise_and_),
    "__or__": _forward(B.bitwise_or), "__ror__": _commuted(B.bitwise_or), "__ior__": _forward(B.bitwise_or_),
    "__xor__": _forward(B.bitwise_xor), "__rxor__": _commuted(B.bitwise_xor), "__ixor__": _forward(B.bitwise_xor_),
    "__lshift__": _forward(B.bitwise_left_shift), "__rlshift__": _rshift_reflected(B.LEFT_SHIFT, "bitwise_left_shift"),
    "__ilshift__": _forward(B.bitwise_left_shift_),
    "__rshift__": _forward(B.bitwise_right_shift),
    "__rrshift__": _rshift_reflected(B.RIGHT_SHIFT, "bitwise_right_shift"),
    "__irshift__": _forward(B.bitwise_right_shift_),
    "__eq__": _eq, "__ne__": _ne, "__lt__": _forward(B.lt, B.LT, _COMPARABLE),
    "__le__": _forward(B.le, B.LE, _COMPARABLE), "__gt__": _forward(B.gt, B.GT, _COMPARABLE),
    "__ge__": _forward(B.ge, B.GE, _COMPARABLE),
    "__neg__": lambda self: U.neg(self), "__pos__": lambda self: U.positive(self),
    "__abs__": lambda self: U.abs(self), "__invert__": lambda self: _invert(self),
}

for _name, _fn in _OPERATORS.items():
    setattr(Tensor, _name, _fn)
# numpy scalars on the left (np.float64(2) * t) defer to Tensor's reflected operators
Tensor.__array_priority__ = 1000
