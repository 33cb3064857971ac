"""The elementwise op family (issue 3): declarations, public functions, Tensor methods and operators.

The declarations live in three helper modules, all on the generic kernels of
``tensorlab_kernels.elementwise`` (unary, binary, ternary: one strided kernel per arity, the op a
compile-time constant):

- ``elementwise_unary``: math functions, rounding, predicates and the nn activations;
- ``elementwise_binary``: arithmetic, comparisons, logical/bitwise ops, ``where``, ``clamp``,
  ``lerp``, ``addcmul``, ``addcdiv``;
- ``elementwise_operators``: Python's operators on Tensor (``+ - * / // % ** & | ^ << >> ~``,
  reflected and in-place forms, comparisons).
"""

from __future__ import annotations

from . import elementwise_binary, elementwise_operators, elementwise_unary  # noqa: F401
from .elementwise_binary import *  # noqa: F401,F403
from .elementwise_unary import *  # noqa: F401,F403

__all__: list[str] = [*elementwise_unary.__all__, *elementwise_binary.__all__]
