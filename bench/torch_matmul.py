"""The torch.matmul comparator for bench/matmul.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [[M, N, K, dtype_name], ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``
(one result per case, in order; seconds = median of CUDA-event timings after warm-up).
"""

from __future__ import annotations

import json
import statistics
import sys

import torch


def time_matmul(a, b, out, repeats: int) -> float:
    for _ in range(3):
        torch.matmul(a, b, out=out)
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        torch.matmul(a, b, out=out)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1000.0)
    return statistics.median(times)


def main() -> None:
    payload = json.loads(sys.argv[1])
    repeats = int(payload.get("repeats", 20))
    results = []
    for i, (M, N, K, dt) in enumerate(payload["cases"]):
        dtype = getattr(torch, dt)
        g = torch.Generator(device="cuda").manual_seed(i)
        a = torch.randn(M, K, device="cuda", dtype=dtype, generator=g)
        b = torch.randn(K, N, device="cuda", dtype=dtype, generator=g)
        out = torch.empty(M, N, device="cuda", dtype=dtype)
        results.append({"M": M, "N": N, "K": K, "dtype": dt, "seconds": time_matmul(a, b, out, repeats)})
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "results": results}))


if __name__ == "__main__":
    main()
