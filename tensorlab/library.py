"""Extending tensorlab with your own ops (what tutorials/03_kernels.py walks through).

An op is one :class:`OpDef`: a numpy twin (cpu), a Triton launcher (cuda) with the same
arguments, a ``meta`` rule returning a :class:`Plan` (output shapes/dtypes and what the
implementation receives), and a backward rule written with tensorlab ops. :func:`dispatch` runs
it: device checks, output allocation, ``out=``/in-place handling, and the autograd tape.
"""

from __future__ import annotations

from tensorlab_kernels.launch import cdiv, launch
from tensorlab_kernels.runtime import DeviceArray

from ._broadcast import broadcast_geometry, broadcast_shapes
from ._dispatch import dispatch
from ._registry import Geometry, OpDef, Plan, defop, get_op, register, registered_ops
from ._tensor import tensor_method

__all__ = ["DeviceArray", "Geometry", "OpDef", "Plan", "broadcast_geometry", "broadcast_shapes", "cdiv", "defop",
           "dispatch", "get_op", "launch", "register", "registered_ops", "tensor_method"]
