"""Elementwise benchmark: memory-bound unary/binary/ternary kernels against the copy bandwidth and torch.

Cases (>= 64 MB of output each; float32 and bfloat16 by default):

- ``add``            ``a + b``, contiguous (two reads, one write)
- ``mul-scalar``     ``a * 2.5`` (the scalar is a kernel argument, not a tensor)
- ``add-broadcast``  ``a + row`` with ``row`` of shape (cols,) read through stride 0
- ``add-transposed`` ``a.t() + b``: one operand read through its strides (no hidden copy)
- ``exp``, ``gelu``  unary math (libdevice, fp32 compute for bf16)
- ``where``          ``where(cond, a, b)`` (a bool and two values read, one written)
- ``addcmul``        ``x + 0.5 * a * b`` (three reads, one write)

Reported per case: median time, effective GB/s (bytes read + written, each operand counted once;
a broadcast row is negligible) and the fraction of the measured device-to-device copy bandwidth
(read + write) on the same device; on cuda, the same for torch measured in its own process
(``bench/torch_elementwise.py``; tensorlab never imports torch). On cpu the comparator is plain
numpy (the twins are numpy plus tensorlab's dispatch). Also reported: the eager host overhead of
one small op (``a + b`` on 16 elements; the target on a GPU is <= 15 us).

    python bench/elementwise.py                      # cuda when a real GPU is present
    python bench/elementwise.py --device cpu --quick # smoke test: the numpy twins
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tensorlab

import harness  # noqa: E402  (bench/harness.py, beside this script)
import numpy as np  # noqa: E402
from harness import MB  # noqa: E402

COLS = 1024


def cases(quick: bool, dtypes: list[str]) -> list[dict]:
    """Cases whose output is >= 64 MB (quick: ~1 MB)."""
    target = (1 * MB) if quick else (64 * MB)
    out = []
    for dt in dtypes:
        isz = 2 if dt in ("bfloat16", "float16") else 8 if dt == "float64" else 4
        rows = max(1, target // isz // COLS)
        shape = [rows, COLS]
        for name in ("add", "mul-scalar", "add-broadcast", "add-transposed", "exp", "gelu", "where", "addcmul"):
            out.append({"name": name, "shape": shape, "dtype": dt})
    return out


def bytes_moved(case: dict, itemsize: int) -> int:
    n = case["shape"][0] * case["shape"][1]
    tensors = {"add": 3, "mul-scalar": 2, "add-broadcast": 2, "add-transposed": 3, "exp": 2, "gelu": 2,
               "addcmul": 4}.get(case["name"])
    if tensors is not None:
        return tensors * n * itemsize
    return 3 * n * itemsize + n  # where: two values, a bool and the output


def make_inputs(tl, case: dict, dev: str, seed: int) -> dict:
    """The case's tensors, made by ``tl``: tensorlab here, torch in bench/torch_elementwise.py."""
    dtype = getattr(tl, case["dtype"])
    rows, cols = case["shape"]
    tl.manual_seed(seed)
    x = {"a": tl.randn(rows, cols, dtype=dtype, device=dev), "b": tl.randn(rows, cols, dtype=dtype, device=dev)}
    name = case["name"]
    if name == "add-broadcast":
        x["row"] = tl.randn(cols, dtype=dtype, device=dev)
    if name == "add-transposed":
        x["bt"] = tl.randn(cols, rows, dtype=dtype, device=dev)  # read as .t()
    if name == "where":
        x["cond"] = x["b"] > 0
    if name == "addcmul":
        x["c"] = tl.randn(rows, cols, dtype=dtype, device=dev)
    return x


def make_fn(tl, name: str, x: dict):
    """The timed call; ``tl`` provides exp, gelu, where and addcmul (tensorlab, or torch's in the comparator)."""
    a, b = x["a"], x["b"]
    return {
        "add": lambda: a + b,
        "mul-scalar": lambda: a * 2.5,
        "add-broadcast": lambda: a + x.get("row"),
        "add-transposed": lambda: x.get("bt").t() + a,
        "exp": lambda: tl.exp(a),
        "gelu": lambda: tl.gelu(a),
        "where": lambda: tl.where(x.get("cond"), a, b),
        "addcmul": lambda: tl.addcmul(a, b, x.get("c"), value=0.5),
    }[name]


def numpy_fn(name: str, x: dict):
    """The same computation in plain numpy (the cpu comparator), on the tensors' host arrays."""
    h = {k: v.numpy() for k, v in x.items()}
    a, b = h["a"], h["b"]
    if a.dtype.itemsize == 2:  # numpy has no fast bf16 math; float32 in, float32 out is its best case
        a, b = a.astype(np.float32), b.astype(np.float32)
        h = {k: (v.astype(np.float32) if v.dtype.itemsize == 2 else v) for k, v in h.items()}
    erf = np.vectorize(__import__("math").erf, otypes=[np.float32])
    return {
        "add": lambda: np.add(a, b),
        "mul-scalar": lambda: np.multiply(a, np.float32(2.5)),
        "add-broadcast": lambda: np.add(a, h.get("row")),
        "add-transposed": lambda: np.add(h.get("bt").T, a),
        "exp": lambda: np.exp(a),
        "gelu": lambda: 0.5 * a * (1 + erf(a * np.float32(0.7071067811865476))),
        "where": lambda: np.where(h.get("cond"), a, b),
        "addcmul": lambda: a + np.float32(0.5) * b * h.get("c"),
    }[name]


def spot_check(tl, case: dict, x: dict) -> None:
    """The timed call against float64 numpy before timing it."""
    h = {k: v.float().cpu().numpy().astype(np.float64) if v.dtype.is_floating_point else v.cpu().numpy()
         for k, v in x.items()}
    a, b = h["a"], h["b"]
    import math

    erf = np.vectorize(math.erf)
    ref = {
        "add": lambda: a + b, "mul-scalar": lambda: a * 2.5, "add-broadcast": lambda: a + h["row"],
        "add-transposed": lambda: h["bt"].T + a, "exp": lambda: np.exp(a),
        "gelu": lambda: 0.5 * a * (1 + erf(a / math.sqrt(2.0))), "where": lambda: np.where(h["cond"], a, b),
        "addcmul": lambda: a + 0.5 * b * h["c"],
    }[case["name"]]
    sl = (slice(0, 64), slice(None))  # a slice keeps the float64 check cheap
    ref_v = np.asarray(ref())[sl]
    got = make_fn(tl, case["name"], x)().float().cpu().numpy().astype(np.float64)[sl]
    tol = 2e-2 if case["dtype"] in ("bfloat16", "float16") else 1e-5
    err = float(np.max(np.abs(got - ref_v) / (np.abs(ref_v) + 1.0)))  # relative, absolute near 0
    if not err <= tol:
        raise SystemExit(f"wrong result for {case['name']} {case['dtype']}: relative error {err:.3g}")


def main() -> None:
    run = harness.Run(__doc__, dtypes="float32,bfloat16")
    dev, repeats = run.dev, run.repeats

    import tensorlab as tl

    todo = cases(run.args.quick, run.dtypes)
    run.measure_copy_bandwidth()

    small = tl.ones(16, device=dev)
    overhead = harness.host_overhead(lambda: small + small, iters=50 if run.args.quick else 2000)
    print(f"host overhead of one small op (a + b, 16 elements): {overhead * 1e6:.1f} us", file=sys.stderr)

    run.torch_reference("torch_elementwise.py", {"cases": todo, "repeats": repeats})

    rows = []
    for i, case in enumerate(todo):
        x = make_inputs(tl, case, dev, i)
        spot_check(tl, case, x)
        seconds = harness.time_fn(make_fn(tl, case["name"], x), dev, repeats)
        nbytes = bytes_moved(case, x["a"].element_size())
        row = {"case": case["name"], "shape": "x".join(map(str, case["shape"])), "dtype": case["dtype"],
               "MB_out": x["a"].nbytes / MB, "ms": seconds * 1e3, **run.bandwidth(nbytes, seconds, i)}
        if dev == "cpu":  # no torch comparator on cpu: numpy's time for the same computation
            np_s = harness.time_fn(numpy_fn(case["name"], x), dev, repeats)
            row["numpy_GB/s"] = nbytes / np_s / 1e9
            row["ratio_to_numpy"] = np_s / seconds
        rows.append(row)
        run.progress(f"{case['name']:15s} {row['shape']:>12s} {case['dtype']}", row)

    meta = run.meta(host_overhead_us=overhead * 1e6)
    if run.reference is not None:
        meta["torch_host_overhead_us"] = run.reference.get("host_overhead_us")
    run.finish("elementwise", rows, meta)


if __name__ == "__main__":
    main()
