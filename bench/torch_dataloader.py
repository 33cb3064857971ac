"""PyTorch side of ``bench/dataloader.py``: the same dataset and loop with ``torch.utils.data.DataLoader``.

Runs in its own process (tensorlab never imports torch): ``python bench/torch_dataloader.py
'<json payload>'`` prints one JSON line ``{"torch": version, "rows": [...]}``. It imports nothing
from tensorlab, so any interpreter with torch and numpy can run it.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class ImageDataset(Dataset):
    """Same as bench/dataloader.py: ``(uint8 image / 255 - 0.5) / 0.25`` as float32, plus the label."""

    def __init__(self, n: int, shape, bank: int):
        self.n = n
        self.bank_size = bank
        self.bank = np.random.default_rng(0).integers(0, 256, (bank, *shape), dtype=np.uint8)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        img = self.bank[i % self.bank_size].astype(np.float32)
        img *= np.float32(1 / 255)
        img -= np.float32(0.5)
        img *= np.float32(4.0)
        return img, i % 10


def main() -> None:
    cfg = json.loads(sys.argv[1])
    shape = tuple(cfg["shape"])
    dev = cfg["device"]
    ds = ImageDataset(cfg["n"], shape, cfg["bank"])
    rows = []
    for nw in cfg["workers"]:
        kwargs = {"num_workers": nw, "pin_memory": dev.startswith("cuda")}
        if nw > 0:
            kwargs["persistent_workers"] = True
        dl = DataLoader(ds, batch_size=cfg["batch_size"], shuffle=True, generator=torch.Generator().manual_seed(0),
                        **kwargs)
        t_first = time.perf_counter()
        it = iter(dl)
        next(it)
        first_batch = time.perf_counter() - t_first
        for _ in it:
            pass
        times = []
        count = 0
        for _ in range(cfg["repeats"]):
            t0 = time.perf_counter()
            count = 0
            for x, _ in dl:
                if dev.startswith("cuda"):
                    x = x.to(dev, non_blocking=True)
                count += 1
            if dev.startswith("cuda"):
                torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        seconds = statistics.median(times)
        samples = count * cfg["batch_size"]
        rows.append({"impl": "torch", "num_workers": nw, "batch_size": cfg["batch_size"], "batches_per_epoch": count,
                     "epoch_s": seconds, "batches_per_s": count / seconds, "samples_per_s": samples / seconds,
                     "GB_per_s": samples * int(np.prod(shape)) * 4 / seconds / 1e9, "first_batch_s": first_batch})
        del dl, it
    print(json.dumps({"torch": torch.__version__, "torch_num_threads": torch.get_num_threads(), "rows": rows}))


if __name__ == "__main__":
    main()
