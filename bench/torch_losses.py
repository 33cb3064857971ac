"""The torch comparator for bench/losses.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"N", "C", "mode", "dtype"}, ...], "repeats": n, "label_smoothing": s}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``.
"""

from __future__ import annotations

import json
import statistics
import sys

import torch
import torch.nn.functional as F


def time_fn(fn, repeats: int) -> float:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1000.0)
    return statistics.median(times)


def main() -> None:
    payload = json.loads(sys.argv[1])
    repeats = int(payload.get("repeats", 20))
    smoothing = float(payload.get("label_smoothing", 0.0))
    results = []
    for i, case in enumerate(payload["cases"]):
        gen = torch.Generator(device="cuda").manual_seed(i)
        dt = getattr(torch, case["dtype"])
        n, c = case["N"], case["C"]
        x = torch.randn(n, c, device="cuda", dtype=dt, generator=gen)
        t = torch.randint(0, c, (n,), device="cuda", generator=gen)
        t[::17] = -100
        if case["mode"] == "fwd":
            def fn(x=x, t=t):
                return F.cross_entropy(x, t, label_smoothing=smoothing)
        else:
            x.requires_grad_(True)

            def fn(x=x, t=t):
                x.grad = None
                F.cross_entropy(x, t, label_smoothing=smoothing).backward()
        results.append({"seconds": time_fn(fn, repeats)})
        del x
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "results": results}))


if __name__ == "__main__":
    main()
