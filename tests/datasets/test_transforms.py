"""Transforms: ToTensor, Normalize, RandomCrop, RandomHorizontalFlip, Compose, Lambda — values against
numpy references, kinds (numpy in -> numpy out, tensor in -> tensor out), reproducibility."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.datasets import transforms as T
from tensorlab.utils.data import DataLoader, Dataset


def test_to_tensor_uint8_hw_and_hwc():
    img = np.arange(12, dtype=np.uint8).reshape(3, 4) * 20
    t = T.ToTensor()(img)
    assert isinstance(t, tl.Tensor) and t.dtype is tl.float32 and t.shape == (1, 3, 4)
    np.testing.assert_array_equal(t.numpy()[0], img.astype(np.float32) / np.float32(255))
    hwc = np.random.default_rng(0).integers(0, 256, (5, 6, 3), dtype=np.uint8)
    t = T.ToTensor()(hwc)
    assert t.shape == (3, 5, 6) and t.is_contiguous()
    np.testing.assert_array_equal(t.numpy(), hwc.transpose(2, 0, 1).astype(np.float32) / np.float32(255))


def test_to_tensor_float_not_scaled_and_tensor_input():
    f = np.full((2, 2), 3.5, np.float64)
    np.testing.assert_array_equal(T.ToTensor()(f).numpy(), np.full((1, 2, 2), 3.5, np.float64))
    t = tl.ones(1, 2, 2)
    assert T.ToTensor()(t) is t
    assert T.ToTensor()(tl.ones(2, 2, dtype=tl.float64)).shape == (1, 2, 2)
    with pytest.raises(ValueError, match="2 or 3 dimensional"):
        T.ToTensor()(np.zeros(4, np.uint8))
    with pytest.raises(TypeError, match="numpy array or a tensor"):
        T.ToTensor()([1, 2])


def test_to_tensor_keeps_non_uint8_dtypes_and_scales_uint8_in_the_default_dtype():
    # torchvision 0.29: only uint8 is converted (to the default dtype, / 255); the rest keep dtype and values
    for np_dt, tl_dt, v in [(np.int8, tl.int8, -3), (np.int16, tl.int16, 300), (np.int32, tl.int32, 70000),
                            (np.int64, tl.int64, 2**40), (np.float16, tl.float16, 2.5), (np.float32, tl.float32, 2.5),
                            (np.float64, tl.float64, 2.5), (np.bool_, tl.bool, True)]:
        t = T.ToTensor()(np.full((2, 3, 2), v, np_dt))
        assert t.dtype is tl_dt and t.shape == (2, 2, 3) and t.is_contiguous(), np_dt
        assert t[0, 0, 0].item() == v
    with pytest.raises(TypeError, match="ToTensor: numpy dtype uint16 has no tensorlab counterpart"):
        T.ToTensor()(np.zeros((2, 2), np.uint16))
    img = np.array([[1, 128, 255]], np.uint8)
    try:
        tl.set_default_dtype(tl.float64)
        t = T.ToTensor()(img)
        assert t.dtype is tl.float64
        assert t.numpy().tolist() == [[[0.00392156862745098, 0.5019607843137255, 1.0]]]
        tl.set_default_dtype(tl.float16)
        t = T.ToTensor()(img)
        assert t.dtype is tl.float16
        assert t.numpy().astype(np.float64).tolist() == [[[0.0039215087890625, 0.501953125, 1.0]]]
    finally:
        tl.set_default_dtype(tl.float32)


def test_normalize_values_and_kinds():
    rng = np.random.default_rng(1)
    x = rng.random((3, 4, 5)).astype(np.float32)
    mean, std = (0.1, 0.2, 0.3), (0.5, 0.25, 2.0)
    ref = (x - np.array(mean, np.float32)[:, None, None]) / np.array(std, np.float32)[:, None, None]
    n = T.Normalize(mean, std)
    out_np = n(x)
    assert isinstance(out_np, np.ndarray)
    np.testing.assert_allclose(out_np, ref, rtol=1e-6)
    out_t = n(tl.from_numpy(x.copy()))
    assert isinstance(out_t, tl.Tensor)
    np.testing.assert_allclose(out_t.numpy(), ref, rtol=1e-6)
    # a batch [N, C, H, W], scalar mean/std, in place
    xb = rng.random((2, 3, 4, 5)).astype(np.float32)
    np.testing.assert_allclose(T.Normalize(0.5, 0.5)(xb), (xb - 0.5) / 0.5, rtol=1e-6)
    y = x.copy()
    assert T.Normalize(mean, std, inplace=True)(y) is y
    np.testing.assert_allclose(y, ref, rtol=1e-6)


def test_normalize_errors():
    with pytest.raises(ValueError, match="std evaluated to zero"):
        T.Normalize((0.5,), (0.0,))
    with pytest.raises(TypeError, match="should be a float image, got uint8"):
        T.Normalize(0.5, 0.5)(np.zeros((1, 2, 2), np.uint8))
    with pytest.raises(ValueError, match="mean has 2 values but the image has 3 channels"):
        T.Normalize((0.1, 0.2), (1.0, 1.0))(np.zeros((3, 2, 2), np.float32))
    with pytest.raises(ValueError, match=r"expected an image of shape \[..., C, H, W\]"):
        T.Normalize(0.5, 0.5)(np.zeros((2, 2), np.float32))


def _crop_reference(img, size, pad, fill, mode, gen_seed):
    """np.pad then crop at the offsets the transform's generator yields."""
    left, top, right, bottom = pad
    widths = [(0, 0)] * (img.ndim - 2) + [(top, bottom), (left, right)]
    padded = np.pad(img, widths, mode=mode, **({"constant_values": fill} if mode == "constant" else {}))
    rng = T._rng(tl.Generator().manual_seed(gen_seed))
    i = int(rng.integers(0, padded.shape[-2] - size[0] + 1))
    j = int(rng.integers(0, padded.shape[-1] - size[1] + 1))
    return padded[..., i:i + size[0], j:j + size[1]]


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect", "symmetric"])
def test_random_crop_matches_pad_then_crop(mode):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 255, (2, 7, 9)).astype(np.uint8)
    for seed in range(40):
        pad = tuple(int(v) for v in rng.integers(0, 4, 4))
        size = (int(rng.integers(1, 8)), int(rng.integers(1, 10)))
        crop = T.RandomCrop(size, padding=pad, fill=5, padding_mode=mode, generator=tl.Generator().manual_seed(seed))
        out = crop(img)
        assert isinstance(out, np.ndarray) and out.shape == (2, *size)
        np.testing.assert_array_equal(out, _crop_reference(img, size, pad, 5, mode, seed))


def test_random_crop_tensor_kind_pad_if_needed_and_errors():
    t = tl.arange(12, dtype=tl.float32).reshape(1, 3, 4)
    out = T.RandomCrop(3, generator=tl.Generator().manual_seed(0))(t)
    assert isinstance(out, tl.Tensor) and out.shape == (1, 3, 3)
    full = T.RandomCrop((3, 4))(t)
    np.testing.assert_array_equal(full.numpy(), t.numpy())
    big = T.RandomCrop(6, pad_if_needed=True, fill=-1.0)(t)
    assert big.shape == (1, 6, 6) and (big.numpy() == -1).sum() == 36 - 12
    with pytest.raises(ValueError, match=r"required crop size \(5, 5\) is larger than the input image size \(3, 4\)"):
        T.RandomCrop(5)(t)
    with pytest.raises(ValueError, match="padding must be an int or a 2- or 4-element sequence"):
        T.RandomCrop(2, padding=(1, 2, 3))
    with pytest.raises(ValueError, match="padding_mode should be one of"):
        T.RandomCrop(2, padding_mode="wrap")
    # 2-element padding is (left/right, top/bottom)
    two = T.RandomCrop((3 + 4, 4 + 2), padding=(1, 2))(t)
    assert two.shape == (1, 7, 6)
    np.testing.assert_array_equal(two.numpy()[0, 2:5, 1:5], t.numpy()[0])


def test_random_horizontal_flip():
    img = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    assert T.RandomHorizontalFlip(p=0.0)(img) is img
    flipped = T.RandomHorizontalFlip(p=1.0)(tl.from_numpy(img))
    assert isinstance(flipped, tl.Tensor)
    np.testing.assert_array_equal(flipped.numpy(), img[..., ::-1])
    g = tl.Generator().manual_seed(0)
    f = T.RandomHorizontalFlip(p=0.5, generator=g)
    flips = [not np.array_equal(f(img), img) for _ in range(400)]
    assert 150 < sum(flips) < 250
    with pytest.raises(ValueError, match=r"p must be in \[0, 1\]"):
        T.RandomHorizontalFlip(1.5)


def test_random_transforms_follow_manual_seed():
    img = np.random.default_rng(0).integers(0, 255, (1, 10, 10)).astype(np.uint8)
    aug = T.Compose([T.RandomCrop(6, padding=2), T.RandomHorizontalFlip()])

    def run():
        tl.manual_seed(42)
        return [aug(img) for _ in range(10)]

    a, b = run(), run()
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert not all(np.array_equal(a[0], x) for x in a[1:])


def test_compose_and_lambda():
    c = T.Compose([T.ToTensor(), T.Lambda(lambda t: t * 2)])
    out = c(np.full((2, 2), 255, np.uint8))
    np.testing.assert_array_equal(out.numpy(), np.full((1, 2, 2), 2.0, np.float32))
    assert "ToTensor" in repr(c)
    with pytest.raises(TypeError, match="should be callable"):
        T.Lambda(3)


def test_transforms_in_workers_reproducible():
    class Imgs(Dataset):
        def __init__(self):
            self.t = T.Compose([T.ToTensor(), T.RandomCrop(8, padding=2), T.RandomHorizontalFlip()])

        def __len__(self):
            return 8

        def __getitem__(self, i):
            return self.t(np.full((8, 8), i * 10, np.uint8) + np.arange(8, dtype=np.uint8))

    def run():
        g = tl.Generator().manual_seed(6)
        return np.concatenate([b.numpy() for b in DataLoader(Imgs(), batch_size=4, num_workers=2, generator=g)])

    a, b = run(), run()
    np.testing.assert_array_equal(a, b)
    assert a.shape == (8, 1, 8, 8)


def test_tensor_inputs_keep_autograd():
    # torchvision transforms tensors with tensor ops, so gradients reach the input (values from torchvision 0.29)
    x = tl.arange(12, dtype=tl.float32).reshape(1, 3, 4).requires_grad_()
    y = T.Normalize((1.0,), (4.0,))(x)
    assert y.requires_grad
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((1, 3, 4), 0.25, np.float32))
    expected = {"constant": [[15, 16, 17, 18], [22, 23, 24, 25], [29, 30, 31, 32]],
                "edge": [[45, 27, 30, 108], [43, 23, 24, 78], [128, 67, 69, 219]],
                "reflect": [[15, 50, 36, 18], [66, 213, 150, 75], [30, 100, 72, 36]],
                "symmetric": [[44, 25, 60, 60], [44, 25, 60, 60], [128, 67, 144, 144]]}
    for mode, grad in expected.items():
        x.grad = None
        y = T.RandomCrop((6, 7), padding=(1, 2, 2, 1), padding_mode=mode)(x)  # the crop is the whole padded image
        (y * tl.arange(42, dtype=tl.float32).reshape(1, 6, 7)).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.array([grad], np.float32), err_msg=mode)
    x.grad = None
    y = T.RandomHorizontalFlip(1.0)(x)
    (y * tl.arange(12, dtype=tl.float32).reshape(1, 3, 4)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[[3, 2, 1, 0], [7, 6, 5, 4], [11, 10, 9, 8]]])
    # a tensor crop and a numpy crop with the same generator state agree
    img = np.random.default_rng(3).random((2, 5, 6)).astype(np.float32)
    for mode in ("constant", "edge", "reflect", "symmetric"):
        a = T.RandomCrop(4, padding=2, fill=0.5, padding_mode=mode, generator=tl.Generator().manual_seed(1))(img)
        b = T.RandomCrop(4, padding=2, fill=0.5, padding_mode=mode,
                         generator=tl.Generator().manual_seed(1))(tl.from_numpy(img))
        np.testing.assert_array_equal(b.numpy(), a, err_msg=mode)


def test_normalize_inplace_tensor_goes_through_autograd():
    x = tl.arange(12, dtype=tl.float32).reshape(1, 3, 4).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf"):
        T.Normalize((1.0,), (4.0,), inplace=True)(x)
    y = x * 2
    assert T.Normalize((1.0,), (4.0,), inplace=True)(y) is y
    np.testing.assert_array_equal(y.detach().numpy(), (np.arange(12, dtype=np.float32).reshape(1, 3, 4) * 2 - 1) / 4)
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((1, 3, 4), 0.5, np.float32))
    e = x.exp()  # exp saves its output for backward: changing it in place must fail the backward
    T.Normalize((1.0,), (4.0,), inplace=True)(e)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        e.sum().backward()
    with pytest.raises(RuntimeError):  # expanded: several elements share one memory location
        T.Normalize((1.0,), (4.0,), inplace=True)(tl.zeros(1, 1, 4).expand(1, 3, 4))


def test_random_crop_fill_none_tuple_fill_and_double_padding():
    img = np.arange(1, 13, dtype=np.float32).reshape(1, 3, 4)
    for x in (img, tl.from_numpy(img)):
        out = T.RandomCrop((5, 6), padding=1, fill=None)(x)  # torchvision: None pads with 0
        expected = np.zeros((1, 5, 6), np.float32)
        expected[0, 1:4, 1:5] = img[0]
        np.testing.assert_array_equal(np.asarray(out), expected)
    with pytest.raises(TypeError, match=r"RandomCrop: fill should be a number \(or None for 0\), got \(5, 6, 7\)"):
        T.RandomCrop(2, padding=1, fill=(5, 6, 7))
    # padding, then the pad_if_needed amount on the padded image (torchvision's order), which in reflect and
    # symmetric modes differs from padding once by the sum
    for mode in ("reflect", "symmetric"):
        twice = np.pad(np.pad(img, [(0, 0), (1, 1), (1, 1)], mode=mode), [(0, 0), (4, 4), (4, 4)], mode=mode)
        for seed in range(5):
            rng = T._rng(tl.Generator().manual_seed(seed))
            i, j = int(rng.integers(0, 13 - 9 + 1)), int(rng.integers(0, 14 - 10 + 1))
            for x in (img, tl.from_numpy(img)):
                crop = T.RandomCrop((9, 10), padding=1, pad_if_needed=True, padding_mode=mode,
                                    generator=tl.Generator().manual_seed(seed))
                np.testing.assert_array_equal(np.asarray(crop(x)), twice[:, i:i + 9, j:j + 10], err_msg=mode)
