"""The elementwise kernel family: unary, binary and ternary ops, one generic strided kernel per arity.

Each module holds its Triton kernel, launcher and numpy twin (``unary.unary`` / ``unary.unary_twin``,
...); ``common`` holds what they share and ``libdevice`` CUDA's math library (emulated with numpy
under Triton's interpreter).
"""

from . import binary, ternary, unary

__all__ = ["binary", "ternary", "unary"]
