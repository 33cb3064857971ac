"""The torch comparator for bench/reductions.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"name", "op", "shape", "dtype"}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``
(one result per case, in order; seconds = median of CUDA-event timings after warm-up).
"""

from __future__ import annotations

import json
import statistics
import sys

import torch


def make_fn(op: str, x):
    return {
        "sum_all": lambda: torch.sum(x),
        "sum_last": lambda: torch.sum(x, -1),
        "var_mean_last": lambda: torch.var_mean(x, -1),
        "sum_dim0": lambda: torch.sum(x, 0),
        "softmax_last": lambda: torch.softmax(x, -1),
        "cumsum_last": lambda: torch.cumsum(x, -1),
    }[op]


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
        g = torch.Generator(device="cuda").manual_seed(i)
        x = torch.randn(*case["shape"], device="cuda", dtype=getattr(torch, case["dtype"]), generator=g)
        results.append({"name": case["name"], "seconds": time_fn(make_fn(case["op"], x), repeats)})
        del x
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "results": results}))


if __name__ == "__main__":
    main()
