"""The torch comparator for bench/attention.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"B", "H", "L", "E", "causal", "mode", "dtype"}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``
(one per case, in order; median of CUDA-event timings after warm-up). torch picks its fastest
backend (flash attention for fp16/bf16 on these shapes). The inputs and the timed call are
bench/attention.py's, made with torch.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
import torch_common
from attention import make_fn, make_inputs  # numpy only at import: no tensorlab


def build(case: dict, i: int, payload: dict, device: str):
    return make_fn(torch, F, case, *make_inputs(torch, case, device))


if __name__ == "__main__":
    torch_common.run_cases(build)
