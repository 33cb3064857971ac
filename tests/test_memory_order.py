"""Elementwise kernels, copies and fills visit elements in the output's memory order
(``strided_layout(..., memory_order=True)``): a permuted output is written in order, and operands
laid out as it make one flat pass."""

from __future__ import annotations

from tensorlab_kernels.elementwise.common import _strided_plan
from tensorlab_kernels.strided import strided_layout


def test_kernel_plan_of_a_permuted_elementwise_op_is_one_flat_pass():
    # (4, 2, 3) output and operand laid out alike: one contiguous run of 24, not a strided walk
    (piece,) = _strided_plan((4, 2, 3), (1, 12, 4), ((1, 12, 4),), ("X_MODE",), False)
    ints, layout = piece[2], piece[3]
    assert ints[0] == 24 and layout["NDIM"] == 1 and layout["OUT_MODE"] == 1 and layout["X_MODE"] == 1
    # in memory order the transposed output is written in order; the other operand is strided
    (piece,) = _strided_plan((4, 3), (1, 4), ((1, 4), (3, 1)), ("A_MODE", "B_MODE"), False)
    assert piece[3]["OUT_MODE"] == 1 and piece[3]["A_MODE"] == 1 and piece[3]["B_MODE"] == 0


def test_strided_layout_memory_order():
    (p,) = strided_layout((4, 3), (1, 4), (1, 4), memory_order=True)
    assert p.ndim == 1 and p.numel == 12
    (p,) = strided_layout((4, 3), (1, 4), (1, 4))  # index order: two dims, neither contiguous
    assert p.ndim == 2 and not p.contiguous(0)
