"""MNIST / FashionMNIST IDX reading, the bundled MNIST subset, and clear errors for bad files."""

from __future__ import annotations

import gzip
import hashlib
import os
import struct
from pathlib import Path

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.datasets import MNIST, FashionMNIST, MNISTSubset, read_idx
from tensorlab.datasets import transforms as T
from tensorlab.datasets.mnist import DEBIAN_FASHION_MNIST, SUBSET_DIR
from tensorlab.utils.data import DataLoader


def idx_bytes(arr: np.ndarray, code: int = 0x08) -> bytes:
    dt = {0x08: ">u1", 0x09: ">i1", 0x0B: ">i2", 0x0C: ">i4", 0x0D: ">f4", 0x0E: ">f8"}[code]
    return (struct.pack(">HBB", 0, code, arr.ndim) + struct.pack(f">{arr.ndim}i", *arr.shape)
            + np.ascontiguousarray(arr).astype(dt).tobytes())


def write_mnist(folder: Path, n: int, prefix: str = "train", gz: bool = False, seed: int = 0):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)
    labels = rng.integers(0, 10, n, dtype=np.uint8)
    folder.mkdir(parents=True, exist_ok=True)
    for kind, arr in (("images-idx3", images), ("labels-idx1", labels)):
        data = idx_bytes(arr)
        path = folder / f"{prefix}-{kind}-ubyte"
        if gz:
            path = path.with_name(path.name + ".gz")
            data = gzip.compress(data)
        path.write_bytes(data)
    return images, labels


# ----------------------------------------------------------------------------------------------
# read_idx
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("code, dtype", [(0x08, np.uint8), (0x09, np.int8), (0x0B, np.int16), (0x0C, np.int32),
                                         (0x0D, np.float32), (0x0E, np.float64)])
@pytest.mark.parametrize("gz", [False, True])
def test_read_idx_types(tmp_path, code, dtype, gz):
    arr = (np.arange(24).reshape(2, 3, 4) - 5).astype(dtype)
    if dtype == np.uint8:
        arr = np.arange(24, dtype=np.uint8).reshape(2, 3, 4)
    data = idx_bytes(arr, code)
    path = tmp_path / ("x.idx.gz" if gz else "x.idx")
    path.write_bytes(gzip.compress(data) if gz else data)
    out = read_idx(path)
    assert out.dtype == np.dtype(dtype) and out.dtype.isnative and out.flags.writeable
    np.testing.assert_array_equal(out, arr)


def test_read_idx_errors(tmp_path):
    bad_magic = tmp_path / "magic"
    bad_magic.write_bytes(b"\x00\x01\x08\x01" + b"\x00" * 8)
    with pytest.raises(ValueError, match=rf"{bad_magic}: bad magic number 0x00010801"):
        read_idx(bad_magic)
    bad_code = tmp_path / "code"
    bad_code.write_bytes(b"\x00\x00\x07\x01\x00\x00\x00\x01\x00")
    with pytest.raises(ValueError, match="bad magic number 0x00000701"):
        read_idx(bad_code)
    short = tmp_path / "short"
    short.write_bytes(idx_bytes(np.zeros((3, 4), np.uint8))[:-5])
    with pytest.raises(ValueError, match=r"size mismatch: the header says shape \(3, 4\) of uint8 \(24 bytes with the "
                                         r"header\) but the file holds 19 bytes"):
        read_idx(short)
    tiny = tmp_path / "tiny"
    tiny.write_bytes(b"\x00")
    with pytest.raises(ValueError, match="too short"):
        read_idx(tiny)
    notgz = tmp_path / "fake.gz"
    notgz.write_bytes(b"not gzip at all")
    with pytest.raises(ValueError, match=rf"{notgz}: not a readable gzip IDX file"):
        read_idx(notgz)
    with pytest.raises(FileNotFoundError):
        read_idx(tmp_path / "missing")


# ----------------------------------------------------------------------------------------------
# MNIST from a root folder
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["flat", "torchvision", "class_dir"])
@pytest.mark.parametrize("gz", [False, True])
def test_mnist_reads_files(tmp_path, layout, gz):
    folder = {"flat": tmp_path, "torchvision": tmp_path / "MNIST" / "raw", "class_dir": tmp_path / "MNIST"}[layout]
    images, labels = write_mnist(folder, 7, "t10k", gz=gz)
    ds = MNIST(tmp_path, train=False)
    assert len(ds) == 7
    img, target = ds[3]
    assert isinstance(img, np.ndarray) and img.dtype == np.uint8 and img.shape == (28, 28)
    np.testing.assert_array_equal(img, images[3])
    assert target == int(labels[3]) and isinstance(target, int)
    img[0, 0] = 255 - img[0, 0]  # samples are copies: the dataset is unchanged
    np.testing.assert_array_equal(ds[3][0], images[3])
    assert ds.data.dtype is tl.uint8 and ds.data.shape == (7, 28, 28)
    assert ds.targets.dtype is tl.int64 and ds.targets.tolist() == labels.tolist()


def test_mnist_data_and_targets_are_assignable(tmp_path):
    images, labels = write_mnist(tmp_path, 7)
    ds = MNIST(tmp_path)
    assert ds.data is ds.data
    ds.data, ds.targets = ds.data[2:5], ds.targets[2:5]  # the torchvision idiom for a subset
    assert len(ds) == 3 and ds.data.shape == (3, 28, 28) and ds.targets.tolist() == labels[2:5].tolist()
    img, target = ds[1]
    np.testing.assert_array_equal(img, images[3])
    assert target == int(labels[3])
    assert [t for _, t in ds] == labels[2:5].tolist()
    with pytest.raises(TypeError, match="MNIST: targets should be a tensor or a numpy array, got int"):
        ds.targets = 3
    assert ds.targets.tolist() == labels[2:5].tolist()


def test_mnist_transforms(tmp_path):
    images, labels = write_mnist(tmp_path, 5)
    ds = MNIST(str(tmp_path), transform=T.ToTensor(), target_transform=lambda y: y + 100)
    x, y = ds[2]
    assert isinstance(x, tl.Tensor) and x.shape == (1, 28, 28) and x.dtype is tl.float32
    np.testing.assert_allclose(x.numpy()[0], images[2].astype(np.float32) / 255, rtol=0, atol=0)
    assert y == int(labels[2]) + 100


def test_mnist_missing_files_error_names_paths(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"MNIST: dataset files not found. Expected train-images-idx3-ubyte"
                                                r"\[.gz\] and train-labels-idx1-ubyte\[.gz\]") as info:
        MNIST(tmp_path)
    assert str(tmp_path / "MNIST" / "raw") in str(info.value) and str(tmp_path) in str(info.value)
    with pytest.raises(FileNotFoundError, match="download=True is not supported"):
        MNIST(tmp_path, download=True)
    write_mnist(tmp_path, 3, "train")
    with pytest.raises(FileNotFoundError, match="t10k-images-idx3-ubyte"):
        MNIST(tmp_path, train=False)  # only the training files are there
    with pytest.raises(ValueError, match="root is required"):
        MNIST(None)


def test_mnist_malformed_files(tmp_path):
    write_mnist(tmp_path, 4)
    labels = tmp_path / "train-labels-idx1-ubyte"
    labels.write_bytes(idx_bytes(np.zeros(3, np.uint8)))
    with pytest.raises(ValueError, match=r"holds 4 images but .*train-labels-idx1-ubyte holds 3 labels"):
        MNIST(tmp_path)
    labels.write_bytes(idx_bytes(np.zeros((4, 2), np.uint8)))
    with pytest.raises(ValueError, match=r"expected a 1-d array of labels, got shape \(4, 2\)"):
        MNIST(tmp_path)
    images = tmp_path / "train-images-idx3-ubyte"
    images.write_bytes(idx_bytes(np.zeros((4, 28, 28), np.int32), 0x0C))
    with pytest.raises(ValueError, match=r"expected uint8 images of shape \(N, rows, cols\), got int32"):
        MNIST(tmp_path)
    images.write_bytes(b"\x00\x00\x08\x03" + b"\x00\x00\x00\x04" * 2)
    with pytest.raises(ValueError, match=r"train-images-idx3-ubyte: truncated header|size mismatch"):
        MNIST(tmp_path)


# ----------------------------------------------------------------------------------------------
# the bundled subset
# ----------------------------------------------------------------------------------------------


SUBSET_SHA256 = {
    "train-images-idx3-ubyte.gz": "0dfe3d2109433fd6982a92f2c9002c850f569fca0d78c8ee54a9a6e929fa98aa",
    "train-labels-idx1-ubyte.gz": "f00a1d76fbde0e1e8cd9645b2057f755ee5a82ffaf61b49ba7432df3d5616e9f",
    "t10k-images-idx3-ubyte.gz": "cddcbcf013893dac2ca5ae24aaadd24633c332f30dadfaf7a91284767f3f5d92",
    "t10k-labels-idx1-ubyte.gz": "4be2bdca844401fb73e73e8be1b32300cb4554c0dbd42f4943c88fea46497d5a",
}


def test_subset_files_match_source_md():
    source = (SUBSET_DIR.parent / "SOURCE.md").read_text()
    for name, digest in SUBSET_SHA256.items():
        data = (SUBSET_DIR / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == digest, name
        assert digest in source and name in source


def test_subset_split_and_balance():
    train, test = MNISTSubset(train=True), MNISTSubset(train=False)
    assert len(train) == 4000 and len(test) == 1000
    assert np.bincount(train.labels, minlength=10).tolist() == [400] * 10
    assert np.bincount(test.labels, minlength=10).tolist() == [100] * 10
    assert train.labels[:20].tolist() == list(range(10)) * 2  # round-robin interleave
    # held-out digits are not training digits
    train_keys = {hashlib.md5(im.tobytes()).digest() for im in train.images}
    assert not any(hashlib.md5(im.tobytes()).digest() in train_keys for im in test.images)


def test_subset_is_real_digits():
    ds = MNISTSubset(train=False)
    imgs = ds.images.astype(np.float64) / 255
    # MNIST statistics: mean ~0.13, most pixels zero, a bright centre and an empty border
    assert 0.10 < imgs.mean() < 0.16
    assert (ds.images == 0).mean() > 0.75
    assert imgs[:, :2, :].mean() < 0.01 and imgs[:, 10:18, 10:18].mean() > 0.3
    # a nearest-class-mean classifier trained on the training split beats chance by far
    train = MNISTSubset(train=True)
    x = train.images.reshape(len(train), -1).astype(np.float64) / 255
    means = np.stack([x[train.labels == c].mean(0) for c in range(10)])
    xt = imgs.reshape(len(ds), -1)
    pred = np.argmin(((xt[:, None, :] - means[None]) ** 2).sum(-1), axis=1)
    acc = (pred == ds.labels).mean()
    assert acc > 0.75, acc


def test_subset_with_dataloader_workers():
    ds = MNISTSubset(train=False, transform=T.Compose([T.ToTensor(), T.Normalize((0.1307,), (0.3081,))]))
    batches = list(DataLoader(ds, batch_size=250, num_workers=2))
    assert len(batches) == 4
    x, y = batches[1]
    assert x.shape == (250, 1, 28, 28) and x.dtype is tl.float32 and y.dtype is tl.int64
    ref = (ds.images[250:500].astype(np.float32) / 255 - np.float32(0.1307)) / np.float32(0.3081)
    np.testing.assert_allclose(x.numpy()[:, 0], ref, rtol=1e-6, atol=1e-6)
    assert y.tolist() == ds.labels[250:500].tolist()


def test_subset_in_package_data():
    # the wheel ships everything under the package folder (pyproject's package-data has *.gz / *.md)
    assert sorted(p.name for p in SUBSET_DIR.iterdir() if p.suffix == ".gz") == sorted(SUBSET_SHA256)
    assert (SUBSET_DIR.parent / "SOURCE.md").is_file()


# ----------------------------------------------------------------------------------------------
# Fashion-MNIST (Debian's dataset-fashion-mnist)
# ----------------------------------------------------------------------------------------------


def test_fashion_mnist_from_root(tmp_path):
    images, labels = write_mnist(tmp_path / "FashionMNIST" / "raw", 6, gz=True)
    ds = FashionMNIST(tmp_path)
    assert len(ds) == 6 and ds.classes[0] == "T-shirt/top"
    np.testing.assert_array_equal(ds[5][0], images[5])


@pytest.mark.skipif(not os.path.isfile(os.path.join(DEBIAN_FASHION_MNIST, "t10k-images-idx3-ubyte.gz")),
                    reason=f"Debian's dataset-fashion-mnist is not installed (no files in {DEBIAN_FASHION_MNIST}; "
                           "apt-get install dataset-fashion-mnist)")
def test_fashion_mnist_debian_files():
    test = FashionMNIST(train=False)
    assert len(test) == 10000 and test.images.shape == (10000, 28, 28)
    assert np.bincount(test.labels, minlength=10).tolist() == [1000] * 10
    assert test.labels[:5].tolist() == [9, 2, 1, 1, 6]  # the first Fashion-MNIST test labels
    assert str(test.images_path).startswith(DEBIAN_FASHION_MNIST)
    train = FashionMNIST(None, train=True)
    assert len(train) == 60000 and np.bincount(train.labels).tolist() == [6000] * 10
