"""PyTorch side of bench/mnist.py (run in its own process; needs torch). Prints one JSON line."""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

REPO = Path(__file__).resolve().parent.parent
SUBSET = REPO / "tensorlab" / "datasets" / "mnist_subset"


def read_idx(path: Path) -> np.ndarray:
    import gzip

    raw = gzip.open(path, "rb").read()
    ndim = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)


def main():
    cfg = json.loads(sys.argv[1])
    device, epochs, batch = cfg["device"], cfg["epochs"], cfg["batch"]
    images = next(SUBSET.glob("train-images*"))
    labels = next(SUBSET.glob("train-labels*"))
    x = ((read_idx(images).astype(np.float32) / 255.0) - 0.1307) / 0.3081
    y = read_idx(labels).astype(np.int64)
    torch.manual_seed(0)
    xt = torch.tensor(x.reshape(len(y), 784), device=device)
    yt = torch.tensor(y, device=device)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Dropout(0.1),
                                torch.nn.Linear(256, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10)).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    n = len(y)
    times = []
    for _ in range(epochs):
        perm = torch.randperm(n, device=device)
        start = time.perf_counter()
        for i in range(0, n - batch + 1, batch):
            idx = perm[i:i + batch]
            loss = loss_fn(model(xt[idx]), yt[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        last = loss.item()
        times.append(time.perf_counter() - start)
    samples = (n // batch) * batch
    steady = statistics.median(times[1:]) if len(times) > 1 else times[0]
    print(json.dumps({"framework": f"torch {torch.__version__}", "epoch_s": steady, "first_epoch_s": times[0],
                      "samples_per_s": samples / steady, "final_loss": last,
                      "torch_threads": torch.get_num_threads()}))


if __name__ == "__main__":
    main()
