"""The torch comparator for bench/nn.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"name", "op", "shape", "dtype"}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``.
The inputs and the timed call are bench/nn.py's, made with torch.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import torch_common
from nn import make_fn, make_inputs  # bench/nn.py (numpy only at import: no tensorlab)


def build(case: dict, i: int, payload: dict, device: str):
    return make_fn(torch, F, case, *make_inputs(torch, case, device))


if __name__ == "__main__":
    torch_common.run_cases(build)
