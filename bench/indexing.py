"""Indexing benchmark: gather, index_select, take, masked_select and the deterministic scatters
(scatter_add, index_add) against the copy bandwidth and torch.

Cases (>= 64 MB of data each, fp32 and bf16):

- ``gather-last``        ``x.gather(-1, idx)``, x (rows, 1024), idx (rows, 256) random: the attention /
                         top-k style read
- ``index_select-rows``  ``w.index_select(0, tokens)``: the embedding lookup (whole 1024-wide rows)
- ``take``               ``x.take(idx)`` with random flat positions (no locality at all)
- ``masked_select``      ``x[mask]`` with half the mask set: count pass + compaction pass
- ``scatter_add-dim0``   ``zeros.scatter_add(0, idx, src)``, idx (rows, 1024) random in [0, rows):
                         every element keyed and sorted, then runs folded in source order
- ``index_add-rows``     ``zeros(vocab, 1024).index_add(0, tokens, src)``: the embedding backward
                         (one key per 1024-wide row)

Bytes counted once each: every element read (data, indices, masks, the destination for the
accumulating ops) and written. Reported: median time, GB/s and the fraction of the measured
device-to-device copy bandwidth (read + write); on cuda the same for torch, measured in its own
process (``bench/torch_indexing.py``; tensorlab never imports torch). Note that the scatters are
deterministic (sort + ordered fold): torch's default ``scatter_add``/``index_add`` use float
atomics, so the comparison prices determinism.

    python bench/indexing.py                      # cuda when a real GPU is present
    python bench/indexing.py --device cpu --quick # smoke test: the numpy twins
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tensorlab

import harness  # noqa: E402  (bench/harness.py, beside this script)
import numpy as np  # noqa: E402
from harness import MB  # noqa: E402

WIDTH = 1024


def cases(quick: bool, dtypes: list[str]) -> list[dict]:
    """Case descriptions with ~64 MB of data (quick: ~1 MB)."""
    target = (1 * MB) if quick else (64 * MB)
    out = []
    for dt in dtypes:
        isz = 2 if dt in ("bfloat16", "float16") else 8 if dt == "float64" else 4
        n = target // isz
        rows = max(1, n // WIDTH)
        out += [
            {"name": "gather-last", "op": "gather", "shape": [rows, WIDTH], "k": 256, "dtype": dt},
            {"name": "index_select-rows", "op": "index_select", "shape": [rows, WIDTH], "k": rows, "dtype": dt},
            {"name": "take", "op": "take", "shape": [n], "k": n // 4, "dtype": dt},
            {"name": "masked_select", "op": "masked_select", "shape": [n], "k": 0, "dtype": dt},
            {"name": "scatter_add-dim0", "op": "scatter_add", "shape": [rows, WIDTH], "k": rows, "dtype": dt},
            {"name": "index_add-rows", "op": "index_add", "shape": [max(1, rows // 8), WIDTH], "k": rows,
             "dtype": dt},
        ]
    return out


def make_inputs(case: dict, seed: int) -> dict:
    """numpy inputs for a case (the same for tensorlab and the torch comparator)."""
    rng = np.random.default_rng(seed)
    shape, k, op = case["shape"], case["k"], case["op"]
    x = rng.standard_normal(shape).astype(np.float32)
    if op == "gather":
        return {"x": x, "index": rng.integers(0, shape[1], (shape[0], k))}
    if op in ("index_select", "index_add"):
        inputs = {"x": x, "index": rng.integers(0, shape[0], k)}
        if op == "index_add":
            inputs["src"] = rng.standard_normal((k, shape[1])).astype(np.float32)
            inputs["x"] = np.zeros(shape, np.float32)
        return inputs
    if op == "take":
        return {"x": x, "index": rng.integers(0, x.size, k)}
    if op == "masked_select":
        return {"x": x, "mask": rng.random(shape) < 0.5}
    if op == "scatter_add":
        return {"x": np.zeros(shape, np.float32), "index": rng.integers(0, shape[0], shape),
                "src": rng.standard_normal(shape).astype(np.float32)}
    raise ValueError(op)


def nbytes(case: dict, inputs: dict, isz: int) -> int:
    op = case["op"]
    if op == "gather":
        n = inputs["index"].size
        return n * (8 + 2 * isz)
    if op == "index_select":
        n = inputs["index"].size * case["shape"][1]
        return inputs["index"].size * 8 + 2 * n * isz
    if op == "take":
        return inputs["index"].size * (8 + 2 * isz)
    if op == "masked_select":
        m = inputs["mask"]
        return m.size * (1 + isz) + int(m.sum()) * isz
    if op == "scatter_add":
        n = inputs["src"].size
        return n * (8 + isz) + 2 * inputs["x"].size * isz
    if op == "index_add":
        return inputs["index"].size * 8 + inputs["src"].size * isz + 2 * inputs["x"].size * isz
    raise ValueError(op)


def make_fn(case: dict, t: dict):
    """The timed call: tensor methods, the same in tensorlab and torch (bench/torch_indexing.py)."""
    op = case["op"]
    if op == "gather":
        return lambda: t["x"].gather(-1, t["index"])
    if op == "index_select":
        return lambda: t["x"].index_select(0, t["index"])
    if op == "take":
        return lambda: t["x"].take(t["index"])
    if op == "masked_select":
        return lambda: t["x"].masked_select(t["mask"])
    if op == "scatter_add":
        return lambda: t["x"].scatter_add(0, t["index"], t["src"])
    if op == "index_add":
        return lambda: t["x"].index_add(0, t["index"], t["src"])
    raise ValueError(op)


def reference(case: dict, a: dict) -> np.ndarray:
    """numpy (float64) result of a case, for the spot check."""
    x = a["x"].astype(np.float64)
    op = case["op"]
    if op == "gather":
        return np.take_along_axis(x, a["index"], -1)
    if op == "index_select":
        return x[a["index"]]
    if op == "take":
        return x.reshape(-1)[a["index"]]
    if op == "masked_select":
        return x[a["mask"]]
    out = x.copy()
    if op == "scatter_add":
        np.add.at(out, (a["index"], np.arange(x.shape[1])[None, :]), a["src"])
    else:
        np.add.at(out, a["index"], a["src"])
    return out


def main() -> None:
    run = harness.Run(__doc__, dtypes="float32,bfloat16")

    import tensorlab as tl

    todo = cases(run.args.quick, run.dtypes)
    run.measure_copy_bandwidth()
    run.torch_reference("torch_indexing.py", {"cases": todo, "repeats": run.repeats})

    rows = []
    for i, case in enumerate(todo):
        dtype = getattr(tl, case["dtype"])
        host = make_inputs(case, i)
        t = {k: tl.tensor(v, device=run.dev).to(dtype) if v.dtype == np.float32 else tl.tensor(v, device=run.dev)
             for k, v in host.items()}
        fn = make_fn(case, t)
        got = fn().float().cpu().numpy().astype(np.float64)
        ref = reference(case, {k: (t[k].float().cpu().numpy() if v.dtype == np.float32 else v)
                               for k, v in host.items()})
        tol = 2e-2 if case["dtype"] in ("bfloat16", "float16") else 1e-4
        err = float(np.abs(got - ref).max()) / max(float(np.abs(ref).max()), 1e-30) if ref.size else 0.0
        if got.shape != ref.shape or not err <= tol:
            raise SystemExit(f"wrong result for {case['name']} {case['dtype']}: shape {got.shape} vs {ref.shape}, "
                             f"relative error {err:.3g}")
        seconds = harness.time_fn(fn, run.dev, run.repeats)
        nb = nbytes(case, host, dtype.itemsize)
        row = {"case": case["name"], "shape": "x".join(map(str, case["shape"])), "dtype": case["dtype"],
               "MB": nb / MB, "ms": seconds * 1e3, **run.bandwidth(nb, seconds, i)}
        rows.append(row)
        run.progress(f"{case['name']:18s} {case['dtype']}", row)

    run.finish("indexing", rows, run.meta())


if __name__ == "__main__":
    main()
