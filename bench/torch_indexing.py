"""The torch comparator for bench/indexing.py, run in its own process (tensorlab never imports torch).

Input: one JSON argument ``{"cases": [{"name", "op", "shape", "k", "dtype"}, ...], "repeats": n}``.
Output: the last stdout line is ``{"device": ..., "torch": ..., "results": [{"seconds": ...}, ...]}``
(one result per case, in order; seconds = median of CUDA-event timings after warm-up). The inputs
are made by bench/indexing.py's ``make_inputs`` (numpy only), so both sides time the same data.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from indexing import make_inputs  # noqa: E402  (numpy only: no tensorlab import)


def make_fn(op: str, t: dict):
    return {
        "gather": lambda: t["x"].gather(-1, t["index"]),
        "index_select": lambda: t["x"].index_select(0, t["index"]),
        "take": lambda: t["x"].take(t["index"]),
        "masked_select": lambda: t["x"].masked_select(t["mask"]),
        "scatter_add": lambda: t["x"].scatter_add(0, t["index"], t["src"]),
        "index_add": lambda: t["x"].index_add(0, t["index"], t["src"]),
    }[op]


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
        dtype = getattr(torch, case["dtype"])
        t = {k: torch.from_numpy(v).to("cuda", dtype=dtype if v.dtype.kind == "f" else None)
             for k, v in make_inputs(case, i).items()}
        results.append({"name": case["name"], "seconds": time_fn(make_fn(case["op"], t), repeats)})
        del t
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "results": results}))


if __name__ == "__main__":
    main()
