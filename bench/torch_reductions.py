"""The torch comparator for bench/reductions.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"name", "op", "shape", "dtype"}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``
(one result per case, in order; seconds = median of CUDA-event timings after warm-up). The input
and the timed call are bench/reductions.py's, made with torch.
"""

from __future__ import annotations

import torch
import torch_common
from reductions import make_fn, make_input  # numpy only at import: no tensorlab


def build(case: dict, i: int, payload: dict, device: str):
    return make_fn(torch, case, make_input(torch, case, device))


if __name__ == "__main__":
    torch_common.run_cases(build)
