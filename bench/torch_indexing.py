"""The torch comparator for bench/indexing.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"name", "op", "shape", "k", "dtype"}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``
(one result per case, in order; seconds = median of CUDA-event timings after warm-up). The inputs
are made by bench/indexing.py's ``make_inputs`` (numpy only), so both sides time the same data,
and the timed call is its ``make_fn``.
"""

from __future__ import annotations

import torch
import torch_common
from indexing import make_fn, make_inputs  # numpy only at import: no tensorlab


def build(case: dict, i: int, payload: dict, device: str):
    dtype = getattr(torch, case["dtype"])
    t = {k: torch.from_numpy(v).to(device, dtype=dtype if v.dtype.kind == "f" else None)
         for k, v in make_inputs(case, i).items()}
    return make_fn(case, t)


if __name__ == "__main__":
    torch_common.run_cases(build)
