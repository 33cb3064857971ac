"""The torch.matmul comparator for bench/matmul.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [[M, N, K, dtype_name], ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``
(one result per case, in order; seconds = median of CUDA-event timings after warm-up).
"""

from __future__ import annotations

import torch
import torch_common


def build(case: list, i: int, payload: dict, device: str):
    M, N, K, dt = case
    dtype = getattr(torch, dt)
    a = torch.randn(M, K, device=device, dtype=dtype)
    b = torch.randn(K, N, device=device, dtype=dtype)
    out = torch.empty(M, N, device=device, dtype=dtype)
    return lambda: torch.matmul(a, b, out=out)


if __name__ == "__main__":
    torch_common.run_cases(build)
