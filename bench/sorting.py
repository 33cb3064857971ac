"""Sorting benchmark: sort/topk/searchsorted/unique against the copy bandwidth and torch.

Cases (fp32 unless named; ~64 MB of keys, ``--quick``: ~1 MB):

- ``sort-1024``      ``sort(x, -1)`` of (rows, 1024): each row sorted in registers by one program
- ``sort-128-bf16``  ``sort(x, -1)`` of (rows, 128) bf16: many short rows per program
- ``sort-long``      ``sort(x, -1)`` of (16, n): chunk sort + merge passes (rows longer than a block)
- ``topk-8``         ``topk(x, 8)`` of (rows, 1024)
- ``searchsorted``   ``searchsorted(seq, v)`` of 4M values in a sorted 64K sequence
- ``unique``         ``unique(x, return_inverse=True, return_counts=True)`` of int32 in [0, 65536)

Reported per case: median time, keys per second, effective GB/s (input read + outputs written, once)
and the fraction of the measured device-to-device copy bandwidth; on cuda the same for torch,
measured in its own process (``bench/torch_sorting.py``; tensorlab never imports torch). A sort reads
and writes more than once, so the copy fraction is a ceiling, not a target.

    python bench/sorting.py                      # cuda when a real GPU is present
    python bench/sorting.py --device cpu --quick # smoke test: the numpy twins
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tensorlab

import harness  # noqa: E402  (bench/harness.py, beside this script)
import numpy as np  # noqa: E402
from harness import MB  # noqa: E402


def cases(quick: bool) -> list[dict]:
    n = (1 * MB if quick else 64 * MB) // 4
    return [
        {"name": "sort-1024", "op": "sort", "shape": [n // 1024, 1024], "dtype": "float32"},
        {"name": "sort-128-bf16", "op": "sort", "shape": [n // 64, 128], "dtype": "bfloat16"},
        {"name": "sort-long", "op": "sort", "shape": [16, n // 16], "dtype": "float32"},
        {"name": "topk-8", "op": "topk8", "shape": [n // 1024, 1024], "dtype": "float32"},
        {"name": "searchsorted", "op": "searchsorted", "shape": [n // 4], "seq": 65536, "dtype": "float32"},
        {"name": "unique", "op": "unique", "shape": [n // 4], "dtype": "int32"},
    ]


def inputs(tl, case: dict, dev: str):
    """The case's tensors, made by ``tl``: tensorlab here, torch in bench/torch_sorting.py."""
    dtype = getattr(tl, case["dtype"])
    if case["op"] == "unique":
        return (tl.randint(0, 65536, tuple(case["shape"]), dtype=dtype, device=dev),)
    x = tl.randn(*case["shape"], dtype=dtype, device=dev)
    if case["op"] == "searchsorted":
        return tl.sort(tl.randn(case["seq"], dtype=dtype, device=dev)).values, x
    return (x,)


def make_fn(tl, case: dict, args):
    """The timed call (the same names in tensorlab and torch)."""
    op = case["op"]
    if op == "sort":
        return lambda: tl.sort(args[0], -1)
    if op == "topk8":
        return lambda: tl.topk(args[0], 8)
    if op == "searchsorted":
        return lambda: tl.searchsorted(args[0], args[1])
    if op == "unique":
        return lambda: tl.unique(args[0], return_inverse=True, return_counts=True)
    raise ValueError(op)


def bytes_moved(case: dict, args, result) -> int:
    outs = result if isinstance(result, tuple) else (result,)
    return sum(a.numel() * a.element_size() for a in args) + sum(o.numel() * o.element_size() for o in outs)


def spot_check(tl, case: dict, args, result) -> None:
    """The timed call's result against numpy before timing it (keys only: ties may order differently)."""
    host = [np.asarray(a.float().cpu().numpy() if a.dtype.is_floating_point else a.cpu().numpy()) for a in args]
    op = case["op"]
    if op == "sort":
        ok = np.array_equal(result.values.float().cpu().numpy(), np.sort(host[0], -1))
    elif op == "topk8":
        ok = np.array_equal(result.values.float().cpu().numpy(), -np.sort(-host[0], -1)[..., :8])
    elif op == "searchsorted":
        ok = np.array_equal(result.cpu().numpy(), np.searchsorted(host[0], host[1]))
    else:
        ok = np.array_equal(result[0].cpu().numpy(), np.unique(host[0]))
    if not ok:
        raise SystemExit(f"wrong result for {case['name']} {case['shape']}")


def main() -> None:
    run = harness.Run(__doc__)

    import tensorlab as tl

    todo = cases(run.args.quick)
    run.measure_copy_bandwidth()
    run.torch_reference("torch_sorting.py", {"cases": todo, "repeats": run.repeats})

    rows = []
    for i, case in enumerate(todo):
        tl.manual_seed(i)
        xs = inputs(tl, case, run.dev)
        fn = make_fn(tl, case, xs)
        result = fn()
        spot_check(tl, case, xs, result)
        seconds = harness.time_fn(fn, run.dev, run.repeats)
        keys = xs[-1].numel()
        row = {"case": case["name"], "shape": "x".join(map(str, case["shape"])), "dtype": case["dtype"],
               "ms": seconds * 1e3, "Gkeys/s": keys / seconds / 1e9,
               **run.bandwidth(bytes_moved(case, xs, result), seconds)}
        ref_s = run.torch_seconds(i)
        if ref_s is not None:
            row["torch_Gkeys/s"] = keys / ref_s / 1e9
            row["ratio_to_torch"] = ref_s / seconds
        rows.append(row)
        print(f"{case['name']:14s} {row['shape']:>12s} {case['dtype']}: {row['Gkeys/s']:.2f} Gkeys/s "
              f"({row['copy_fraction']:.0%} of copy)", file=sys.stderr)

    run.finish("sorting", rows, run.meta())


if __name__ == "__main__":
    main()
