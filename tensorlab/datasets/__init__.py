"""tensorlab.datasets: MNIST and FashionMNIST from IDX files, a bundled MNIST subset, transforms (issue 6)."""

from __future__ import annotations
