"""fake_quantize_per_tensor_affine / fake_quantize_per_channel_affine (tensorlab/ops/fake_quantize.py):
PyTorch's values bit for bit, its straight-through gradient and its errors (expected values from torch 2.15)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy

NAN, INF = float("nan"), float("inf")


def test_per_tensor_values_and_gradient(device):
    # 0.35 -> 0.4: x * (1 / float32(0.1)) rounds to 3.5 in float32, and half goes to even (4);
    # NaN lands on quant_min; out of range values clamp and get no gradient
    x = tl.tensor([-1.3, 0.25, 0.35, 2.0, 100.0, NAN, INF], device=device, requires_grad=True)
    y = tl.fake_quantize_per_tensor_affine(x, 0.1, 3, -128, 127)
    y.backward(tl.arange(7.0, device=device))
    want = np.array([-1.3000000715255737, 0.20000000298023224, 0.4000000059604645, 2.0, 12.40000057220459,
                     -13.100000381469727, 12.40000057220459], dtype=np.float32)
    assert y.dtype == tl.float32 and np.array_equal(to_numpy(y), want)
    assert to_numpy(x.grad).tolist() == [0.0, 1.0, 2.0, 3.0, 0.0, 0.0, 0.0]


def test_per_tensor_float64_and_half(device):
    # float64 input: the product with the scale is still taken in float32
    x = tl.tensor([-1.3, 0.25, 0.35, 2.0, 100.0], dtype=tl.float64, device=device)
    y = tl.fake_quantize_per_tensor_affine(x, tl.tensor(0.1), tl.tensor(3, dtype=tl.int32), -128, 127)
    assert y.dtype == tl.float64
    assert to_numpy(y).tolist() == [-1.3000000715255737, 0.20000000298023224, 0.4000000059604645, 2.0,
                                    12.40000057220459]
    h = tl.fake_quantize_per_tensor_affine(tl.tensor([0.35, 1.0], dtype=tl.float16, device=device), 0.1, 0, -8, 7)
    assert h.dtype == tl.float16 and to_numpy(h).tolist() == [0.39990234375, 0.7001953125]


def test_per_channel_values_and_gradient(device):
    # per channel, a value int64 cannot hold (inf) lands on quant_min: PyTorch converts to int64 first
    w = tl.tensor([[0.3, -5.0], [20.0, 0.05], [1.0, INF]], device=device, requires_grad=True)
    y = tl.fake_quantize_per_channel_affine(w, tl.tensor([0.1, 0.5], device=device),
                                            tl.tensor([0, 1], dtype=tl.int32, device=device), 1, -8, 7)
    y.sum().backward()
    want = np.array([[0.30000001192092896, -4.5], [0.699999988079071, 0.0], [0.699999988079071, -4.5]], np.float32)
    assert np.array_equal(to_numpy(y), want)
    assert to_numpy(w.grad).tolist() == [[1.0, 0.0], [0.0, 1.0], [0.0, 0.0]]


def test_errors():
    x = tl.tensor([0.3, -5.0, 20.0])
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        tl.fake_quantize_per_tensor_affine(tl.tensor([1, 2]), 0.1, 0, -128, 127)
    with pytest.raises(RuntimeError, match="`zero_point` must be between `quant_min` and `quant_max`"):
        tl.fake_quantize_per_tensor_affine(x, 0.1, 5, 6, 10)
    with pytest.raises(RuntimeError, match="`quant_min` should be less than or equal to `quant_max`"):
        tl.fake_quantize_per_tensor_affine(x, 0.1, 0, 5, 1)
    with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted to Scalar"):
        tl.fake_quantize_per_tensor_affine(x, tl.tensor([0.1, 0.2]), 0, -128, 127)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'scale'"):
        tl.fake_quantize_per_tensor_affine(x, tl.tensor(0.1, requires_grad=True), 0, -128, 127)
    w = tl.tensor([[0.3, -5.0], [20.0, 0.05], [1.0, 2.0]])
    s, z = tl.tensor([0.1, 0.5]), tl.tensor([0, 1], dtype=tl.int32)
    with pytest.raises(RuntimeError, match="`axis` must be between 0 and number of dimensions of input"):
        tl.fake_quantize_per_channel_affine(w, s, z, -1, -8, 7)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.fake_quantize_per_channel_affine(w, s, z, 2, -8, 7)
    # below -ndim the axis is out of range before it is negative: PyTorch's IndexError (it was the RuntimeError)
    with pytest.raises(IndexError, match=r"in range of \[-2, 1\], but got -3"):
        tl.fake_quantize_per_channel_affine(w, s, z, -3, -8, 7)
    with pytest.raises(RuntimeError, match="not consistent with input tensor"):
        tl.fake_quantize_per_channel_affine(w, s, z, 0, -8, 7)
    with pytest.raises(RuntimeError, match="Scale must be Float or BFloat16, found Double"):
        tl.fake_quantize_per_channel_affine(w, s.double(), z, 1, -8, 7)
    with pytest.raises(RuntimeError, match="Zero-point must be Int32, Float or Half, found Long"):
        tl.fake_quantize_per_channel_affine(w, s, z.long(), 1, -8, 7)
    with pytest.raises(RuntimeError, match="`zero_point` must be between"):
        tl.fake_quantize_per_channel_affine(w, s, tl.tensor([0, 9], dtype=tl.int32), 1, -8, 7)
    with pytest.raises(RuntimeError, match="scale and zero-point need to have the same dimensions"):
        tl.fake_quantize_per_channel_affine(w, s, z[:1], 1, -8, 7)
    with pytest.raises(IndexError, match="Dimension specified as 0 but tensor has no dimensions"):
        tl.fake_quantize_per_channel_affine(tl.tensor(2.0), tl.tensor([0.1]), tl.tensor([0], dtype=tl.int32), 0, -8, 7)


def test_fake_quantize_integer_arguments_are_ints():
    # a float or bool zero point or bound was truncated (0.5 used as 0); PyTorch's parser raises TypeError
    x = tl.tensor([0.35, -0.2])
    for args in [(0.5, -128, 127), (True, -128, 127), (0, -128.0, 127), (0, -128, 127.0)]:
        with pytest.raises(TypeError, match="must be int"):
            tl.fake_quantize_per_tensor_affine(x, 0.1, *args)
    w, s, z = tl.ones(2, 3), tl.ones(3), tl.zeros(3, dtype=tl.int32)
    for args in [(1.0, 0, 10), (1, 0.0, 10), (1, 0, True)]:
        with pytest.raises(TypeError, match="must be int"):
            tl.fake_quantize_per_channel_affine(w, s, z, *args)
    assert tl.fake_quantize_per_tensor_affine(x, 0.1, 1, -128, 127).tolist() == pytest.approx([0.4, -0.2])
