"""The torch comparator for bench/attention.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"B", "H", "L", "E", "causal", "mode", "dtype"}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``
(one per case, in order; median of CUDA-event timings after warm-up). torch picks its fastest
backend (flash attention for fp16/bf16 on these shapes).
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
    results = []
    for i, case in enumerate(payload["cases"]):
        gen = torch.Generator(device="cuda").manual_seed(i)
        dt = getattr(torch, case["dtype"])
        shape = (case["B"], case["H"], case["L"], case["E"])
        q, k, v = (torch.randn(*shape, device="cuda", dtype=dt, generator=gen) for _ in range(3))
        causal = bool(case["causal"])
        if case["mode"] == "fwd":
            def fn(q=q, k=k, v=v, causal=causal):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        else:
            q, k, v = (a.requires_grad_(True) for a in (q, k, v))
            g = torch.randn(*shape, device="cuda", dtype=dt, generator=gen)

            def fn(q=q, k=k, v=v, g=g, causal=causal):
                F.scaled_dot_product_attention(q, k, v, is_causal=causal).backward(g)
        results.append({"seconds": time_fn(fn, repeats)})
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "results": results}))


if __name__ == "__main__":
    main()
