"""Reductions benchmark: memory-bound reductions, softmax and scans against the copy bandwidth and torch.

Cases (64 MB of input each by default, ``--mb`` for other sizes; fp32 and bf16):

- ``sum-all``        the full reduction of a flat tensor (one row, split into segments + a second pass)
- ``sum-last``       ``x.sum(-1)`` of (rows, 1024): layer-norm-shaped, one row per program
- ``var_mean-last``  ``var_mean(x, -1)`` of (rows, 1024): layer norm's statistics in one pass
- ``sum-dim0``       ``x.sum(0)`` of (4096, cols): reducing the outer dim (coalesced along the kept dim)
- ``softmax-last``   ``softmax(x, -1)`` of (rows, 4096): one read and one write, the row in registers
- ``softmax-long``   ``softmax(x, -1)`` of (rows, 32768): the longest row kept in registers (32 warps)
- ``cumsum-last``    ``cumsum(x, -1)`` of (rows, 4096)

Reported per case: median time, effective GB/s (bytes read + bytes written, counted once) and the
fraction of the measured device-to-device copy bandwidth (read + write) on the same device; on cuda,
the same numbers for torch measured in its own process (``bench/torch_reductions.py``; tensorlab
never imports torch), and the L2 flush each sample started with (``harness.l2_flush``: by default a
reading one for the reductions proper, whose output is small, and a zeroing one for softmax and
cumsum, which write as much as they read). Targets on H100/H200: softmax and full reductions >= 85% of copy bandwidth.

    python bench/reductions.py                      # cuda when a real GPU is present
    python bench/reductions.py --mb 64,256,1024     # the targets hold "at >= 64 MB": several sizes
    python bench/reductions.py --device cpu --quick # smoke test: the numpy twins
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tensorlab

import harness  # noqa: E402  (bench/harness.py, beside this script)
import numpy as np  # noqa: E402
from harness import MB  # noqa: E402


def cases(quick: bool, dtypes: list[str], sizes_mb: tuple = (64,)) -> list[dict]:
    """(name, shape, dtype) with each of ``sizes_mb`` MB of input (quick: ~1 MB)."""
    out = []
    for mb in ((1,) if quick else sizes_mb):
        out += _cases_of_size(mb * MB, quick, dtypes)
    return out


def _cases_of_size(target: int, quick: bool, dtypes: list[str]) -> list[dict]:
    out = []
    for dt in dtypes:
        isz = 2 if dt in ("bfloat16", "float16") else 8 if dt == "float64" else 4
        n = target // isz

        def rows(cols, n=n):
            return max(1, n // cols)

        out += [
            {"name": "sum-all", "op": "sum_all", "shape": [n], "dtype": dt},
            {"name": "sum-last", "op": "sum_last", "shape": [rows(1024), 1024], "dtype": dt},
            {"name": "var_mean-last", "op": "var_mean_last", "shape": [rows(1024), 1024], "dtype": dt},
            {"name": "sum-dim0", "op": "sum_dim0", "shape": [4096 if not quick else 256, rows(4096 if not quick
                                                                                            else 256)],
             "dtype": dt},
            {"name": "softmax-last", "op": "softmax_last", "shape": [rows(4096), 4096], "dtype": dt},
            {"name": "softmax-long", "op": "softmax_last", "shape": [rows(32768), 32768], "dtype": dt},
            {"name": "cumsum-last", "op": "cumsum_last", "shape": [rows(4096), 4096], "dtype": dt},
        ]
    for case in out:  # a reduction proper (output at most 1/8 of the input): harness.l2_flush's "read_only"
        case["read_only"] = out_elements(case) * 8 <= math.prod(case["shape"])
    return out


def out_elements(case: dict) -> int:
    shape = case["shape"]
    return {
        "sum_all": 1,
        "sum_last": math.prod(shape[:-1]),
        "var_mean_last": 2 * math.prod(shape[:-1]),
        "sum_dim0": math.prod(shape[1:]),
        "softmax_last": math.prod(shape),
        "cumsum_last": math.prod(shape),
    }[case["op"]]


def make_input(tl, case: dict, dev: str):
    """The case's input, made by ``tl``: tensorlab here, torch in bench/torch_reductions.py."""
    return tl.randn(*case["shape"], dtype=getattr(tl, case["dtype"]), device=dev)


def make_fn(tl, case: dict, x):
    """The timed call (the same names in tensorlab and torch)."""
    op = case["op"]
    if op == "sum_all":
        return lambda: tl.sum(x)
    if op == "sum_last":
        return lambda: tl.sum(x, -1)
    if op == "var_mean_last":
        return lambda: tl.var_mean(x, -1)
    if op == "sum_dim0":
        return lambda: tl.sum(x, 0)
    if op == "softmax_last":
        return lambda: tl.softmax(x, -1)
    if op == "cumsum_last":
        return lambda: tl.cumsum(x, -1)
    raise ValueError(op)


def spot_check(tl, case: dict, x) -> None:
    """A cheap correctness check of the timed call against numpy (float64) before timing it."""
    host = x.float().cpu().numpy().astype(np.float64)
    op = case["op"]
    got = make_fn(tl, case, x)()
    if op == "var_mean_last":
        got = got[0]
        ref = host.var(-1, ddof=1)
    else:
        ref = {"sum_all": lambda: host.sum(), "sum_last": lambda: host.sum(-1), "sum_dim0": lambda: host.sum(0),
               "softmax_last": lambda: _softmax(host), "cumsum_last": lambda: host.cumsum(-1)}[op]()
    got = got.float().cpu().numpy().astype(np.float64)
    scale = max(float(np.abs(ref).max()), 1e-30)
    tol = 2e-2 if case["dtype"] in ("bfloat16", "float16") else 1e-3
    err = float(np.abs(got - ref).max()) / scale
    if not err <= tol:
        raise SystemExit(f"wrong result for {case['name']} {case['shape']} {case['dtype']}: relative error {err:.3g}")


def _softmax(a):
    e = np.exp(a - a.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def main() -> None:
    run = harness.Run(__doc__, dtypes="float32,bfloat16", options=lambda p: p.add_argument(
        "--mb", default="64", help="comma-separated input sizes in MB per case (default 64)"))

    import tensorlab as tl

    todo = cases(run.args.quick, run.dtypes, tuple(int(m) for m in run.args.mb.split(",") if m.strip()))
    run.measure_copy_bandwidth()
    run.torch_reference("torch_reductions.py", {"cases": todo, "repeats": run.repeats})

    rows = []
    for i, case in enumerate(todo):
        tl.manual_seed(i)
        x = make_input(tl, case, run.dev)
        spot_check(tl, case, x)
        seconds = harness.time_fn(make_fn(tl, case, x), run.dev, run.repeats, read_only=case["read_only"])
        nbytes = (x.numel() + out_elements(case)) * x.element_size()
        row = {"case": case["name"], "shape": "x".join(map(str, case["shape"])), "dtype": case["dtype"],
               "MB": x.numel() * x.element_size() / MB, "ms": seconds * 1e3, **run.bandwidth(nbytes, seconds, i)}
        if run.dev.startswith("cuda"):
            row["l2_flush"] = harness.flush_for(case["read_only"])
        rows.append(row)
        run.progress(f"{case['name']:14s} {row['shape']:>12s} {case['dtype']}", row)

    run.finish("reductions", rows, run.meta())


if __name__ == "__main__":
    main()
