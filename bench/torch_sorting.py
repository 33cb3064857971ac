"""The torch comparator for bench/sorting.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"name", "op", "shape", "dtype", ...}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``
(one result per case, in order; seconds = median of CUDA-event timings after warm-up).
"""

from __future__ import annotations

import json
import statistics
import sys

import torch


def inputs(case: dict, g):
    dtype = getattr(torch, case["dtype"])
    if case["op"] == "unique":
        return (torch.randint(0, 65536, tuple(case["shape"]), dtype=dtype, device="cuda", generator=g),)
    x = torch.randn(*case["shape"], device="cuda", dtype=dtype, generator=g)
    if case["op"] == "searchsorted":
        return torch.sort(torch.randn(case["seq"], device="cuda", dtype=dtype, generator=g)).values, x
    return (x,)


def make_fn(op: str, args):
    return {
        "sort": lambda: torch.sort(args[0], -1),
        "topk8": lambda: torch.topk(args[0], 8),
        "searchsorted": lambda: torch.searchsorted(args[0], args[-1]),
        "unique": lambda: torch.unique(args[0], return_inverse=True, return_counts=True),
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
        args = inputs(case, g)
        results.append({"name": case["name"], "seconds": time_fn(make_fn(case["op"], args), repeats)})
        del args
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "results": results}))


if __name__ == "__main__":
    main()
