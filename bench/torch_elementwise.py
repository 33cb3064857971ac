"""The torch comparator for bench/elementwise.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"name", "shape", "dtype"}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device", "torch", "host_overhead_us", "results": [{"seconds"}, ...]}``
(one result per case, in order; seconds = median of CUDA-event timings after warm-up;
host_overhead_us = mean host time of ``a + b`` on 16 elements, unsynchronised).
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F  # noqa: N812


def make_fn(name: str, x: dict):
    a, b = x["a"], x["b"]
    return {
        "add": lambda: a + b,
        "mul-scalar": lambda: a * 2.5,
        "add-broadcast": lambda: a + x.get("row"),
        "add-transposed": lambda: x.get("bt").t() + a,
        "exp": lambda: torch.exp(a),
        "gelu": lambda: F.gelu(a),
        "where": lambda: torch.where(x.get("cond"), a, b),
        "addcmul": lambda: torch.addcmul(a, b, x.get("c"), value=0.5),
    }[name]


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


def host_overhead(iters: int = 2000) -> float:
    small = torch.ones(16, device="cuda")
    for _ in range(10):
        small + small
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        small + small
    return (time.perf_counter() - t0) / iters


def main() -> None:
    payload = json.loads(sys.argv[1])
    repeats = int(payload.get("repeats", 20))
    results = []
    for i, case in enumerate(payload["cases"]):
        g = torch.Generator(device="cuda").manual_seed(i)
        dtype = getattr(torch, case["dtype"])
        rows, cols = case["shape"]

        def randn(*shape, dtype=dtype, g=g):
            return torch.randn(*shape, device="cuda", dtype=dtype, generator=g)

        x = {"a": randn(rows, cols), "b": randn(rows, cols)}
        if case["name"] == "add-broadcast":
            x["row"] = randn(cols)
        if case["name"] == "add-transposed":
            x["bt"] = randn(cols, rows)
        if case["name"] == "where":
            x["cond"] = x["b"] > 0
        if case["name"] == "addcmul":
            x["c"] = randn(rows, cols)
        results.append({"name": case["name"], "seconds": time_fn(make_fn(case["name"], x), repeats)})
        del x
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                      "host_overhead_us": host_overhead() * 1e6, "results": results}))


if __name__ == "__main__":
    main()
