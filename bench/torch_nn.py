"""The torch comparator for bench/nn.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"name", "op", "shape", "dtype"}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``.
"""

from __future__ import annotations

import json
import statistics
import sys

import torch
import torch.nn.functional as F


def make_fn(op: str, x, w, b, g):
    cols = x.shape[-1]
    if op == "layer_norm":
        return lambda: F.layer_norm(x, (cols,), w, b)
    if op == "rms_norm":
        return lambda: F.rms_norm(x, (cols,), w)
    if op == "dropout":
        return lambda: F.dropout(x, 0.1)
    xr = x.detach().requires_grad_(True)
    if op == "layer_norm_bwd":
        wr, br = w.detach().requires_grad_(True), b.detach().requires_grad_(True)
        return lambda: F.layer_norm(xr, (cols,), wr, br).backward(g)
    if op == "dropout_bwd":
        return lambda: F.dropout(xr, 0.1).backward(g)
    raise ValueError(op)


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
    results = []
    for i, case in enumerate(payload["cases"]):
        gen = torch.Generator(device="cuda").manual_seed(i)
        dt = getattr(torch, case["dtype"])
        shape = case["shape"]
        x = torch.randn(*shape, device="cuda", dtype=dt, generator=gen)
        w = torch.randn(shape[-1], device="cuda", dtype=dt, generator=gen)
        b = torch.randn(shape[-1], device="cuda", dtype=dt, generator=gen)
        g = torch.randn(*shape, device="cuda", dtype=dt, generator=gen)
        results.append({"name": case["name"], "seconds": time_fn(make_fn(case["op"], x, w, b, g), repeats)})
        del x, g
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "results": results}))


if __name__ == "__main__":
    main()
