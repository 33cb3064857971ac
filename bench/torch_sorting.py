"""The torch comparator for bench/sorting.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"name", "op", "shape", "dtype", ...}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``
(one result per case, in order; seconds = median of CUDA-event timings after warm-up). The inputs
and the timed call are bench/sorting.py's, made with torch.
"""

from __future__ import annotations

import torch
import torch_common
from sorting import inputs, make_fn  # numpy only at import: no tensorlab


def build(case: dict, i: int, payload: dict, device: str):
    return make_fn(torch, case, inputs(torch, case, device))


if __name__ == "__main__":
    torch_common.run_cases(build)
