"""MNIST and Fashion-MNIST from the standard IDX files, and the MNIST subset bundled with tensorlab.

The signature follows torchvision's: ``MNIST(root, train=True, transform=None,
target_transform=None, download=False)``. A sample is ``(image, target)``: ``image`` a fresh
``uint8`` numpy array of shape ``(28, 28)`` (torchvision gives a PIL image; use
``transforms.ToTensor()`` for a float tensor), ``target`` a Python int; ``transform`` and
``target_transform`` are applied to them. ``data`` (``uint8`` tensor ``(N, 28, 28)``) and
``targets`` (``int64`` tensor ``(N,)``) share memory with the arrays read from the files; as in
torchvision they can be assigned (``ds.data, ds.targets = ds.data[:100], ds.targets[:100]`` for a
subset) and ``len`` and indexing follow.

Files are looked up, raw or gzipped (``.gz``), in ``root/<ClassName>/raw``, ``root/<ClassName>``
and ``root`` (torchvision's layout and a plain folder); ``FashionMNIST`` also looks in
``/usr/share/datasets/fashion-mnist`` (Debian's ``dataset-fashion-mnist`` package) and accepts
``root=None`` for it. Nothing is downloaded: tensorlab works offline.

``MNISTSubset(train=True)`` is 5,000 real MNIST digits shipped inside the package (see
``SOURCE.md``): 4,000 training and 1,000 held-out test digits, 400/100 per class.
"""

from __future__ import annotations

import gzip
import os
from pathlib import Path

import numpy as np

from ..utils.data import Dataset

__all__ = ["MNIST", "FashionMNIST", "MNISTSubset", "read_idx"]

# IDX type codes -> big-endian numpy dtypes
_IDX_TYPES = {0x08: np.dtype(np.uint8), 0x09: np.dtype(np.int8), 0x0B: np.dtype(">i2"), 0x0C: np.dtype(">i4"),
              0x0D: np.dtype(">f4"), 0x0E: np.dtype(">f8")}

DEBIAN_FASHION_MNIST = "/usr/share/datasets/fashion-mnist"
SUBSET_DIR = Path(__file__).resolve().parent / "mnist_subset"


def read_idx(path) -> np.ndarray:
    """Read an IDX file (raw, or gzip when the name ends in ``.gz``) into a native-endian numpy array.

    ``ValueError`` naming the file when the magic number or the size does not match the format.
    """
    path = Path(path)
    try:
        raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    except (OSError, EOFError, gzip.BadGzipFile) as e:
        if isinstance(e, FileNotFoundError):
            raise
        raise ValueError(f"read_idx: {path}: not a readable {'gzip ' if path.suffix == '.gz' else ''}IDX file "
                         f"({type(e).__name__}: {e})") from None
    if len(raw) < 4:
        raise ValueError(f"read_idx: {path}: file too short ({len(raw)} bytes) for an IDX header")
    zero, code, ndim = int.from_bytes(raw[:2], "big"), raw[2], raw[3]
    if zero != 0 or code not in _IDX_TYPES:
        raise ValueError(f"read_idx: {path}: bad magic number 0x{raw[:4].hex()} (expected 0x0000 followed by a type "
                         f"code in {[hex(c) for c in _IDX_TYPES]} and the number of dimensions)")
    header = 4 + 4 * ndim
    if len(raw) < header:
        raise ValueError(f"read_idx: {path}: truncated header (expected {ndim} dimension sizes)")
    shape = tuple(int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    dtype = _IDX_TYPES[code]
    expected = header + int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    if len(raw) != expected:
        raise ValueError(f"read_idx: {path}: size mismatch: the header says shape {shape} of {dtype.name} "
                         f"({expected} bytes with the header) but the file holds {len(raw)} bytes")
    arr = np.frombuffer(raw, dtype=dtype, offset=header).reshape(shape)
    return arr.astype(dtype.newbyteorder("="), copy=True)  # native order, writable


def _numpy_of(value, what: str) -> np.ndarray:
    """The numpy array behind an assigned ``data``/``targets`` (shared for a cpu tensor or an array)."""
    from .._tensor import Tensor

    if isinstance(value, Tensor):
        return value.detach().cpu().numpy()
    if isinstance(value, (np.ndarray, list, tuple)):
        return np.asarray(value)
    raise TypeError(f"MNIST: {what} should be a tensor or a numpy array, got {type(value).__name__}")


class MNIST(Dataset):
    """The MNIST handwritten digits (60,000 train / 10,000 test images, 28x28 uint8) from IDX files."""

    resources = {
        True: ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
        False: ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
    }
    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
               "8 - eight", "9 - nine"]
    system_dirs: tuple[str, ...] = ()

    def __init__(self, root, train: bool = True, transform=None, target_transform=None, download: bool = False):
        self.root = None if root is None else os.fspath(os.path.expanduser(root))
        self.train = bool(train)
        self.transform = transform
        self.target_transform = target_transform
        images_path, labels_path = self._find_files(download)
        images, labels = read_idx(images_path), read_idx(labels_path)
        name = type(self).__name__
        if images.ndim != 3 or images.dtype != np.uint8:
            raise ValueError(f"{name}: {images_path}: expected uint8 images of shape (N, rows, cols), got "
                             f"{images.dtype} of shape {images.shape}")
        if labels.ndim != 1:
            raise ValueError(f"{name}: {labels_path}: expected a 1-d array of labels, got shape {labels.shape}")
        if len(labels) != len(images):
            raise ValueError(f"{name}: {images_path} holds {len(images)} images but {labels_path} holds "
                             f"{len(labels)} labels")
        self.images_path, self.labels_path = images_path, labels_path
        from .._factories import from_numpy

        self.data = from_numpy(images)
        self.targets = from_numpy(labels.astype(np.int64))

    # -- locating the files ---------------------------------------------------------------
    def _search_dirs(self) -> list[Path]:
        dirs = []
        if self.root is not None:
            base = Path(self.root)
            dirs += [base / type(self).__name__ / "raw", base / type(self).__name__, base]
        dirs += [Path(d) for d in self.system_dirs]
        return dirs

    def _find_files(self, download: bool) -> tuple[Path, Path]:
        name = type(self).__name__
        if self.root is None and not self.system_dirs:
            raise ValueError(f"{name}: root is required (the folder that holds the IDX files)")
        wanted = self.resources[self.train]
        dirs = self._search_dirs()
        for d in dirs:
            found = []
            for stem in wanted:
                for candidate in (d / stem, d / f"{stem}.gz"):
                    if candidate.is_file():
                        found.append(candidate)
                        break
            if len(found) == len(wanted):
                return found[0], found[1]
        msg = (f"{name}: dataset files not found. Expected {wanted[0]}[.gz] and {wanted[1]}[.gz] in one of: "
               + ", ".join(str(d) for d in dirs) + ".")
        if download:
            msg += " download=True is not supported: tensorlab works offline; copy the files there."
        raise FileNotFoundError(msg)

    # -- data -----------------------------------------------------------------------------
    # data and targets are assignable, as in torchvision (ds.data = ds.data[:100] makes a subset);
    # the numpy views that __getitem__ reads are refreshed on assignment.
    @property
    def data(self):
        return self._data

    @data.setter
    def data(self, value):
        self._images = _numpy_of(value, "data")
        self._data = value

    @property
    def targets(self):
        return self._targets

    @targets.setter
    def targets(self, value):
        self._labels = _numpy_of(value, "targets")
        self._targets = value

    @property
    def images(self) -> np.ndarray:
        """All images as a uint8 numpy array (N, 28, 28) (shared, not copied)."""
        return self._images

    @property
    def labels(self) -> np.ndarray:
        """All labels as an int64 numpy array (N,) (shared, not copied)."""
        return self._labels

    @property
    def class_to_idx(self) -> dict:
        return {c: i for i, c in enumerate(self.classes)}

    def __len__(self) -> int:
        return len(self._images)

    def __getitem__(self, index):
        img = self._images[index].copy()
        target = int(self._labels[index])
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __repr__(self) -> str:
        split = "Train" if self.train else "Test"
        lines = [f"Dataset {type(self).__name__}", f"    Number of datapoints: {len(self)}",
                 f"    Split: {split}", f"    Files: {self.images_path}, {self.labels_path}"]
        if self.transform is not None:
            lines.append(f"    Transform: {self.transform!r}")
        if self.target_transform is not None:
            lines.append(f"    Target transform: {self.target_transform!r}")
        return "\n".join(lines)


class FashionMNIST(MNIST):
    """Fashion-MNIST (Zalando; same format as MNIST). ``root=None`` uses Debian's
    ``dataset-fashion-mnist`` files in ``/usr/share/datasets/fashion-mnist``, which are also
    searched after ``root``."""

    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]
    system_dirs = (DEBIAN_FASHION_MNIST,)

    def __init__(self, root=None, train: bool = True, transform=None, target_transform=None, download: bool = False):
        super().__init__(root, train, transform, target_transform, download)


class MNISTSubset(MNIST):
    """5,000 real MNIST digits bundled with tensorlab (no download): ``train=True`` gives 4,000
    digits, ``train=False`` the 1,000 held-out ones (400 and 100 per class; stratified, fixed).
    Source, licence and conversion: ``tensorlab/datasets/SOURCE.md``."""

    def __init__(self, train: bool = True, transform=None, target_transform=None):
        super().__init__(SUBSET_DIR, train, transform, target_transform)

    def _search_dirs(self) -> list[Path]:
        return [Path(self.root)]
