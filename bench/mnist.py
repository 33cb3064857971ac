"""MNIST MLP training throughput: tensorlab vs PyTorch, same model, data and batch size.

    python bench/mnist.py [--device cpu|cuda] [--epochs 3] [--torch-python /path/to/python-with-torch]

Both frameworks train the tutorial's MLP (784-256-128-10, ReLU, dropout 0.1) with Adam on the
bundled 4,000 MNIST digits, batches of 64 taken from tensors already in memory (so the data
pipeline is not what is measured). Reported: seconds per epoch (median of the epochs after the
first, which includes compilation/warm-up) and samples/s. PyTorch runs in its own process
(bench/torch_mnist.py); tensorlab never imports torch.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402
import numpy as np  # noqa: E402

import tensorlab as tl  # noqa: E402
from tensorlab import nn  # noqa: E402
from tensorlab.datasets import MNISTSubset  # noqa: E402

BATCH = 64


def load_data():
    ds = MNISTSubset(train=True)
    x = ((ds.images.astype(np.float32) / 255.0) - 0.1307) / 0.3081
    return x.reshape(len(ds), 784), ds.labels.astype(np.int64)


def run_tensorlab(device: str, epochs: int, seed: int = 0) -> dict:
    tl.manual_seed(seed)
    x_np, y_np = load_data()
    x, y = tl.tensor(x_np, device=device), tl.tensor(y_np, device=device)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Dropout(0.1), nn.Linear(256, 128), nn.ReLU(),
                          nn.Linear(128, 10)).to(device)
    opt = tl.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    n = len(y_np)
    times, last_loss = [], None
    for _ in range(epochs):
        perm = tl.randperm(n, device=device)
        start = time.perf_counter()
        for i in range(0, n - BATCH + 1, BATCH):
            idx = perm[i:i + BATCH]
            loss = loss_fn(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        last_loss = loss.item()  # synchronises the device
        times.append(time.perf_counter() - start)
    samples = (n // BATCH) * BATCH
    steady = statistics.median(times[1:]) if len(times) > 1 else times[0]
    return {"framework": "tensorlab", "epoch_s": steady, "first_epoch_s": times[0], "samples_per_s": samples / steady,
            "final_loss": last_loss}


def options(p) -> None:
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--torch-python", default=sys.executable,
                   help="a Python interpreter that has torch (tensorlab's own interpreter by default)")


def main():
    run = harness.Run(__doc__, options=options)
    args, device = run.args, run.dev
    epochs = 2 if args.quick else args.epochs
    rows = [run_tensorlab(device, epochs)]
    if not args.no_torch:
        ref = harness.run_torch_reference("torch_mnist.py", {"device": device, "epochs": epochs, "batch": BATCH},
                                          python=args.torch_python)
        if ref is None:
            print("PyTorch comparator skipped: torch is not installed for", args.torch_python)
        elif "error" in ref:
            print("PyTorch comparator failed:", ref["error"][-500:])
        else:
            rows.append(ref)
    for r in rows:
        r["device"] = device
    if len(rows) == 2:
        rows[0]["speed_vs_torch"] = rows[0]["samples_per_s"] / rows[1]["samples_per_s"]
    harness.print_table(rows)
    path = harness.write_results("mnist", device, rows, {"epochs": epochs, "batch": BATCH, "model": "784-256-128-10"},
                                 out=args.out)
    print("wrote", path)


if __name__ == "__main__":
    main()
