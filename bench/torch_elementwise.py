"""The torch comparator for bench/elementwise.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"name", "shape", "dtype"}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device", "torch", "host_overhead_us", "results": [{"seconds"}, ...]}``
(one result per case, in order; seconds = median of CUDA-event timings after warm-up;
host_overhead_us = mean host time of ``a + b`` on 16 elements, unsynchronised). The inputs and
the timed calls are bench/elementwise.py's, made with torch.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import torch
import torch.nn.functional as F  # noqa: N812
import torch_common
from elementwise import make_fn, make_inputs  # numpy only at import: no tensorlab

# What elementwise.make_fn calls on its framework module: torch has no top-level gelu.
OPS = SimpleNamespace(exp=torch.exp, gelu=F.gelu, where=torch.where, addcmul=torch.addcmul)


def host_overhead(device: str, iters: int = 2000, rounds: int = 7) -> dict:
    """As harness.host_overhead (best of ``rounds`` means), so the two figures compare."""
    small = torch.ones(16, device=device)
    for _ in range(10):
        small + small
    torch_common.synchronize(device)
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(iters):
            small + small
        best = min(best, (time.perf_counter() - t0) / iters)
    return {"host_overhead_us": best * 1e6}


def build(case: dict, i: int, payload: dict, device: str):
    return make_fn(OPS, case["name"], make_inputs(torch, case, device, i))


if __name__ == "__main__":
    torch_common.run_cases(build, extra=host_overhead)
