"""tensorlab.datasets: MNIST and FashionMNIST from IDX files, a bundled MNIST subset, transforms.

Everything works offline: ``MNISTSubset`` ships 5,000 real MNIST digits inside the package
(see ``SOURCE.md`` here), ``FashionMNIST(None)`` reads Debian's ``dataset-fashion-mnist`` files
when that package is installed, and ``MNIST(root)`` / ``FashionMNIST(root)`` read the standard
IDX files (raw or ``.gz``) you put in ``root``.
"""

from __future__ import annotations

from . import transforms
from .mnist import MNIST, FashionMNIST, MNISTSubset, read_idx

__all__ = ["MNIST", "FashionMNIST", "MNISTSubset", "read_idx", "transforms"]
