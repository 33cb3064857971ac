"""pixel_shuffle, pixel_unshuffle and channel_shuffle (functional, top level and modules) against
element-by-element definitions, with gradients and PyTorch's errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F
from tests.helpers import to_numpy


def _pixel_shuffle_ref(x: np.ndarray, r: int) -> np.ndarray:
    """out[..., c, h·r + i, w·r + j] = x[..., c·r² + i·r + j, h, w], one element at a time."""
    *batch, c, h, w = x.shape
    out = np.empty((*batch, c // (r * r), h * r, w * r), x.dtype)
    for b in itertools.product(*map(range, batch)):
        for cc, hh, ww, i, j in itertools.product(range(c // (r * r)), range(h), range(w), range(r), range(r)):
            out[b + (cc, hh * r + i, ww * r + j)] = x[b + (cc * r * r + i * r + j, hh, ww)]
    return out


def _channel_shuffle_ref(x: np.ndarray, groups: int) -> np.ndarray:
    """Channel g·(C/groups) + k moves to k·groups + g."""
    out = np.empty_like(x)
    per = x.shape[1] // groups
    for g, k in itertools.product(range(groups), range(per)):
        out[:, k * groups + g] = x[:, g * per + k]
    return out


@pytest.mark.parametrize("shape, r", [((2, 8, 3, 5), 2), ((2, 1, 9, 2, 3), 3), ((4, 1, 1), 1), ((0, 4, 2, 2), 2)])
def test_pixel_shuffle_and_unshuffle_against_the_definition(shape, r, device):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    want = _pixel_shuffle_ref(x, r)
    t = tl.tensor(x, device=device)
    y = F.pixel_shuffle(t, r)
    np.testing.assert_array_equal(to_numpy(y), want)
    assert y.is_contiguous() and (y.data_ptr() != t.data_ptr() or not x.size)  # always new memory, as PyTorch
    np.testing.assert_array_equal(to_numpy(F.pixel_unshuffle(tl.tensor(want, device=device), r)), x)
    np.testing.assert_array_equal(to_numpy(tl.pixel_shuffle(t, r)), want)


def test_pixel_shuffle_reads_strided_input_and_integers(device):
    x = np.arange(2 * 4 * 3 * 2).reshape(2, 4, 2, 3).transpose(0, 1, 3, 2)  # non-contiguous
    t = tl.tensor(np.ascontiguousarray(x).transpose(0, 1, 3, 2), device=device).transpose(2, 3)
    np.testing.assert_array_equal(to_numpy(t), x)
    y = tl.nn.PixelShuffle(2)(t)
    assert y.dtype is tl.int64
    np.testing.assert_array_equal(to_numpy(y), _pixel_shuffle_ref(x, 2))


def test_gradients_are_the_inverse_rearrangement(device):
    rng = np.random.default_rng(1)
    x = tl.tensor(rng.standard_normal((2, 8, 2, 3)), device=device, requires_grad=True)
    g = rng.standard_normal((2, 2, 4, 6))
    F.pixel_shuffle(x, 2).backward(tl.tensor(g, device=device))
    np.testing.assert_array_equal(to_numpy(x.grad), to_numpy(F.pixel_unshuffle(tl.tensor(g), 2)))
    z = tl.tensor(rng.standard_normal((2, 6, 3)), device=device, requires_grad=True)
    gz = rng.standard_normal((2, 6, 3))
    F.channel_shuffle(z, 3).backward(tl.tensor(gz, device=device))
    np.testing.assert_array_equal(to_numpy(z.grad), _channel_shuffle_ref(gz, 2))  # (the inverse shuffle)
    assert tl.autograd.gradcheck(lambda a: F.pixel_unshuffle(a, 2), (tl.tensor(rng.standard_normal((1, 2, 4, 2)),
                                                                              requires_grad=True),))


@pytest.mark.parametrize("shape, groups", [((2, 6, 3), 3), ((2, 6, 2, 2, 2), 2), ((1, 4, 3), 1), ((1, 8, 1), 4)])
def test_channel_shuffle_against_the_definition(shape, groups, device):
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    t = tl.tensor(x, device=device)
    want = _channel_shuffle_ref(x, groups)
    for fn in (F.channel_shuffle, tl.channel_shuffle, tl.native_channel_shuffle, F.native_channel_shuffle):
        y = fn(t, groups)
        np.testing.assert_array_equal(to_numpy(y), want)
        assert y.is_contiguous() and y.data_ptr() != t.data_ptr()
    np.testing.assert_array_equal(to_numpy(tl.nn.ChannelShuffle(groups)(t)), want)
    if shape == (1, 8, 1):  # torch 2.15: [0, 2, 4, 6, 1, 3, 5, 7]
        assert to_numpy(tl.channel_shuffle(tl.arange(8.0).view(1, 8, 1), 4)).ravel().tolist() == \
            [0.0, 2.0, 4.0, 6.0, 1.0, 3.0, 5.0, 7.0]


def test_errors_and_reprs():
    # torch 2.15's messages
    cases = [
        (lambda: F.pixel_shuffle(tl.ones(2, 2), 2), RuntimeError, "at least 3 dimensions, but got input with 2"),
        (lambda: F.pixel_shuffle(tl.ones(1, 3, 2, 2), 2), RuntimeError, r"input.size\(-3\)=3 is not divisible by 4"),
        (lambda: F.pixel_shuffle(tl.ones(1, 4, 2, 2), 0), RuntimeError, "positive upscale_factor, but got 0"),
        (lambda: F.pixel_shuffle(tl.ones(1, 4, 2, 2), 1.5), TypeError, "'upscale_factor' .* must be int, not float"),
        (lambda: F.pixel_unshuffle(tl.ones(1, 1, 3, 4), 2), RuntimeError, r"height .* input.size\(-2\)=3 is not"),
        (lambda: F.pixel_unshuffle(tl.ones(1, 1, 4, 3), 2), RuntimeError, r"width .* input.size\(-1\)=3 is not"),
        (lambda: F.pixel_unshuffle(tl.ones(1, 1, 4, 4), -1), RuntimeError, "positive downscale_factor, but got -1"),
        (lambda: F.channel_shuffle(tl.ones(1, 4), 2), RuntimeError, r"> 2 dims, but got input with sizes \[1, 4\]"),
        (lambda: F.channel_shuffle(tl.ones(1, 3, 4), 2), RuntimeError, "Got 3 channels and 2 groups"),
        (lambda: F.channel_shuffle(tl.ones(1, 4, 4), 0), RuntimeError, "must be positive. Value of groups:0"),
        (lambda: F.pixel_shuffle([1.0], 2), TypeError, "Tensor"),
    ]
    for fn, exc, msg in cases:
        with pytest.raises(exc, match=msg):
            fn()
    assert repr(tl.nn.PixelShuffle(2)) == "PixelShuffle(upscale_factor=2)"
    assert repr(tl.nn.PixelUnshuffle(3)) == "PixelUnshuffle(downscale_factor=3)"
    assert repr(tl.nn.ChannelShuffle(2)) == "ChannelShuffle(groups=2)"
