"""DataLoader throughput: batches/s of tensorlab's DataLoader vs PyTorch's, with 0, 2 and 4 workers.

The dataset yields image-sized numpy samples with typical per-sample preprocessing: a uint8
``3 x 224 x 224`` image (from a small bank) converted to float32 and normalised — 588 KiB per
sample, so a batch of 32 is 18.4 MiB that workers must hand to the main process (tensorlab
through shared-memory segments, PyTorch through its shared-memory tensors). Each configuration
runs a warm-up epoch (workers start, persistent afterwards), then ``--repeats`` timed epochs;
the median epoch gives batches/s, samples/s and the batch bytes delivered per second. With a
real GPU (``--device cuda``) both loaders pin memory and the loop copies every batch to the
device.

PyTorch runs in its own process (``bench/torch_dataloader.py``) — with ``--torch-python`` set to
an interpreter that has torch (tensorlab never imports torch), else with this interpreter.

    python bench/dataloader.py [--quick] [--workers 0,2,4] [--torch-python /tmp/torchvenv/bin/python]
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402

import tensorlab as tl  # noqa: E402
from tensorlab.utils.data import DataLoader, Dataset  # noqa: E402

BANK = 16  # distinct source images: keeps memory small while every sample is still computed


class ImageDataset(Dataset):
    """``float32 (C, H, W)`` samples: ``(uint8 image / 255 - 0.5) / 0.25`` plus the label."""

    def __init__(self, n: int, shape: tuple[int, int, int]):
        self.n = n
        self.bank = np.random.default_rng(0).integers(0, 256, (BANK, *shape), dtype=np.uint8)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        img = self.bank[i % BANK].astype(np.float32)
        img *= np.float32(1 / 255)
        img -= np.float32(0.5)
        img *= np.float32(4.0)
        return img, i % 10


def run_tensorlab(n: int, shape, batch_size: int, workers: list[int], repeats: int, dev: str) -> list[dict]:
    ds = ImageDataset(n, shape)
    rows = []
    for nw in workers:
        kwargs = {"num_workers": nw, "pin_memory": dev.startswith("cuda")}
        if nw > 0:
            kwargs["persistent_workers"] = True
        dl = DataLoader(ds, batch_size=batch_size, shuffle=True, generator=tl.Generator().manual_seed(0), **kwargs)

        t_first = time.perf_counter()
        it = iter(dl)
        next(it)
        first_batch = time.perf_counter() - t_first
        for _ in it:
            pass
        times = []
        for _ in range(repeats):
            seconds, count = _epoch(dl, dev)
            times.append(seconds)
        rows.append(_row("tensorlab", nw, count, batch_size, shape, statistics.median(times), first_batch))
        del dl, it
    return rows


def _epoch(dl, dev: str) -> tuple[float, int]:
    t0 = time.perf_counter()
    count = 0
    for x, _ in dl:
        if dev.startswith("cuda"):
            x = x.to(dev, non_blocking=True)
        count += 1
    if dev.startswith("cuda"):
        tl.cuda.synchronize()
    return time.perf_counter() - t0, count


def _row(impl: str, nw: int, batches: int, batch_size: int, shape, seconds: float, first_batch: float) -> dict:
    sample_bytes = int(np.prod(shape)) * 4
    samples = batches * batch_size
    return {"impl": impl, "num_workers": nw, "batch_size": batch_size, "batches_per_epoch": batches,
            "epoch_s": seconds, "batches_per_s": batches / seconds, "samples_per_s": samples / seconds,
            "GB_per_s": samples * sample_bytes / seconds / 1e9, "first_batch_s": first_batch}


def options(p) -> None:
    p.add_argument("--workers", default="0,2,4", help="comma-separated num_workers values")
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--samples", type=int, default=1024, help="samples per epoch")
    p.add_argument("--shape", default="3,224,224", help="sample shape C,H,W")
    p.add_argument("--torch-python", default=None,
                   help="a Python interpreter with torch installed, for the PyTorch comparator (default: this one)")


def main() -> None:
    run = harness.Run(__doc__, options=options)
    args, dev = run.args, run.dev
    shape = tuple(int(s) for s in args.shape.split(","))
    workers = [int(w) for w in args.workers.split(",")]
    repeats = 2 if args.quick else max(1, min(args.repeats, 5))
    n = 256 if args.quick else args.samples
    print(f"DataLoader benchmark on {harness.device_name(dev)}: {n} samples of {shape} float32 "
          f"({np.prod(shape) * 4 / 2**10:.0f} KiB), batch {args.batch_size}, workers {workers}, {repeats} timed epochs")

    rows = run_tensorlab(n, shape, args.batch_size, workers, repeats, dev)
    torch_note = None
    if not args.no_torch:
        payload = {"n": n, "shape": list(shape), "batch_size": args.batch_size, "workers": workers,
                   "repeats": repeats, "device": dev, "bank": BANK}
        ref = harness.run_torch_reference("torch_dataloader.py", payload, timeout=1800, python=args.torch_python)
        interp = args.torch_python or sys.executable
        if ref is None:
            torch_note = (f"PyTorch comparator skipped: torch is not installed for {interp}. Pass --torch-python with "
                          "an interpreter that has torch (e.g. a separate venv) to compare.")
        elif "error" in ref:
            torch_note = f"PyTorch comparator failed ({interp}): {ref['error']}"
        else:
            rows += ref["rows"]
            torch_note = f"PyTorch {ref['torch']} ({interp}), torch.get_num_threads() = {ref.get('torch_num_threads')}"
    for nw in workers:
        tl_row = next(r for r in rows if r["impl"] == "tensorlab" and r["num_workers"] == nw)
        t_row = next((r for r in rows if r["impl"] == "torch" and r["num_workers"] == nw), None)
        tl_row["vs_torch"] = tl_row["batches_per_s"] / t_row["batches_per_s"] if t_row else None
    harness.print_table(rows)
    if torch_note:
        print(torch_note)
    meta = {"samples": n, "shape": list(shape), "dtype": "float32", "batch_size": args.batch_size,
            "repeats": repeats, "cpu_count": os.cpu_count(), "torch": torch_note,
            "note": "median epoch time after a warm-up epoch; workers persistent; shuffle=True"}
    path = harness.write_results("dataloader", dev, rows, meta, args.out)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
