"""The torch comparator for bench/losses.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"N", "C", "mode", "dtype"}, ...], "repeats": n, "label_smoothing": s}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``.
The inputs and the timed call are bench/losses.py's, made with torch.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import torch_common
from losses import make_fn, make_inputs  # numpy only at import: no tensorlab


def build(case: dict, i: int, payload: dict, device: str):
    return make_fn(F, case, *make_inputs(torch, case, device), float(payload.get("label_smoothing", 0.0)))


if __name__ == "__main__":
    torch_common.run_cases(build)
