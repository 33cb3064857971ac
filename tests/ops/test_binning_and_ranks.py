"""histc's bin of a value on an edge and quantile's rank of a float32 q, as PyTorch 2.15 computes
them (values hard-coded from torch; found by a differential scan)."""

from __future__ import annotations

import pytest

import tensorlab as tl


def test_histc_puts_a_value_on_an_edge_in_the_bin_above(device):
    x = tl.tensor([0.0, 0.6, 1.2, 1.8, 2.4, 3.0], device=device)
    assert tl.histc(x, bins=5, min=0, max=3).tolist() == [1, 1, 1, 1, 2]
    assert tl.histc(tl.tensor([0.3], dtype=tl.float64, device=device), bins=3, min=0.1, max=0.7).tolist() == [0, 1, 0]
    # the edges are rounded to the input's dtype first: -0.7 .. 4.1 in 8 float32 bins, every edge
    edges = tl.tensor([-0.7 + 0.6 * i for i in range(9)], device=device)
    assert tl.histc(edges, bins=8, min=-0.7, max=4.1).tolist() == [1, 1, 1, 1, 1, 1, 1, 2]


@pytest.mark.parametrize("dtype", [tl.float32, tl.bfloat16, tl.float64])
def test_histc_of_a_range_wider_than_the_dtype_counts_every_value(dtype, device):
    # max - min overflows the dtype (inf): (x - min) * bins / inf was NaN, whose int64 bin made the
    # bincount underneath raise "bincount only supports 1-d non-negative integral inputs" (PyTorch
    # 2.15 counts nothing there: [0, 0, 0, 0]); the counts of the mathematical bins
    big = 1.7e308 if dtype is tl.float64 else 3e38
    x = tl.tensor([-big, -1.0, 0.0, 0.5, big], dtype=dtype, device=device)
    assert tl.histc(x, bins=4).tolist() == [1, 0, 3, 1]
    assert tl.histc(x, bins=4, min=-big, max=big).tolist() == [1, 0, 3, 1]


@pytest.mark.parametrize("q, interpolation, expected", [
    (0.2, "higher", 2.0), (0.2, "lower", 1.0), (0.1, "nearest", 1.0), (0.3, "higher", 2.0)])
def test_float32_quantile_ranks_are_taken_in_float64(q, interpolation, expected, device):
    # float32(0.2) * 5 = 1.0000000149 in float64 (PyTorch's rank); rounded to float32 it was 1.0
    assert tl.quantile(tl.arange(6.0, device=device), q, interpolation=interpolation).item() == expected


def test_quantile_of_a_zero_d_input_takes_dim_0_or_minus_1_only():
    assert tl.quantile(tl.tensor(2.5), 0.5, dim=-1).item() == 2.5
    with pytest.raises(IndexError):
        tl.quantile(tl.tensor(2.5), 0.5, dim=1)


def test_unique_of_a_tensor_that_requires_grad_refuses_backward_as_pytorch(device):
    """unique's values follow the input, but PyTorch implements no derivative: its values require
    grad and a backward through them raises (the gradient silently left this path out before)."""
    x = tl.tensor([3.0, 1.0, 3.0, 2.0], requires_grad=True, device=device)
    values, inverse, counts = tl.unique(x, return_inverse=True, return_counts=True)
    assert values.requires_grad and not inverse.requires_grad and not counts.requires_grad
    with pytest.raises(NotImplementedError, match="derivative for 'unique' is not implemented"):
        (values * 2).sum().backward()
    rows = tl.unique(tl.tensor([[1.0, 2.0], [1.0, 2.0]], requires_grad=True, device=device), dim=0)
    with pytest.raises(NotImplementedError, match="derivative for 'unique' is not implemented"):
        rows.sum().backward()
    assert not tl.unique(x.detach()).requires_grad and tl.unique_consecutive(x).requires_grad
