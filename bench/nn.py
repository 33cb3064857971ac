"""nn benchmark: the fused LayerNorm / RMSNorm and Philox dropout kernels against the copy bandwidth and torch.

Cases (>= 64 MB of activations each, fp32 and bf16):

- ``layer_norm``      ``F.layer_norm(x, (4096,), w, b)`` of (rows, 4096): one read, one write per row
- ``layer_norm-bwd``  forward + backward (dx, dweight, dbias through the two-stage partial sums)
- ``rms_norm``        ``F.rms_norm(x, (4096,), w)``
- ``layer_norm-long`` rows of 65536 (the looped path: three reads, one write)
- ``dropout``         ``F.dropout(x, 0.1)``: the mask comes from Philox in the kernel, nothing is stored
- ``dropout-bwd``     forward + backward (the backward regenerates the mask from (seed, offset))

Reported per case: median time, effective GB/s (the bytes a fused implementation must move: the
activations read and written, counted once) and the fraction of the measured device-to-device copy
bandwidth; on cuda the same for torch, measured in its own process (``bench/torch_nn.py``). Targets
on H100/H200: forward kernels >= 80% of copy bandwidth.

    python bench/nn.py                      # cuda when a real GPU is present
    python bench/nn.py --device cpu --quick # smoke test: the numpy twins
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tensorlab

import harness  # noqa: E402  (bench/harness.py, beside this script)
import numpy as np  # noqa: E402
from harness import MB  # noqa: E402


def cases(quick: bool, dtypes: list[str]) -> list[dict]:
    target = (1 * MB) if quick else (64 * MB)
    out = []
    for dt in dtypes:
        isz = 2 if dt in ("bfloat16", "float16") else 4
        n = target // isz
        cols, long_cols = (256, 4096) if quick else (4096, 65536)
        out += [
            {"name": "layer_norm", "op": "layer_norm", "shape": [max(1, n // cols), cols], "dtype": dt, "passes": 2},
            {"name": "layer_norm-bwd", "op": "layer_norm_bwd", "shape": [max(1, n // cols), cols], "dtype": dt,
             "passes": 5},
            {"name": "rms_norm", "op": "rms_norm", "shape": [max(1, n // cols), cols], "dtype": dt, "passes": 2},
            {"name": "layer_norm-long", "op": "layer_norm", "shape": [max(1, n // long_cols), long_cols],
             "dtype": dt, "passes": 2},
            {"name": "dropout", "op": "dropout", "shape": [n], "dtype": dt, "passes": 2},
            {"name": "dropout-bwd", "op": "dropout_bwd", "shape": [n], "dtype": dt, "passes": 4},
        ]
    return out


def make_inputs(tl, case: dict, dev: str) -> tuple:
    """The activations, weight, bias and output gradient, made by ``tl``: tensorlab here, torch in
    bench/torch_nn.py."""
    dtype, shape = getattr(tl, case["dtype"]), case["shape"]
    x = tl.randn(*shape, dtype=dtype, device=dev)
    w = tl.randn(shape[-1], dtype=dtype, device=dev)
    b = tl.randn(shape[-1], dtype=dtype, device=dev)
    g = tl.randn(*shape, dtype=dtype, device=dev)
    return x, w, b, g


def make_fn(tl, F, case: dict, x, w, b, g):
    """The timed call; ``F`` is tensorlab's or torch's ``nn.functional``."""
    op = case["op"]
    cols = x.shape[-1]
    if op == "layer_norm":
        return lambda: F.layer_norm(x, (cols,), w, b)
    if op == "rms_norm":
        return lambda: F.rms_norm(x, (cols,), w)
    if op == "dropout":
        return lambda: F.dropout(x, 0.1)
    xr = x.detach().requires_grad_(True)
    if op == "layer_norm_bwd":
        wr, br = w.detach().requires_grad_(True), b.detach().requires_grad_(True)
        return lambda: F.layer_norm(xr, (cols,), wr, br).backward(g)
    if op == "dropout_bwd":
        return lambda: F.dropout(xr, 0.1).backward(g)
    raise ValueError(op)


def spot_check(tl, F, case: dict, x, w, b) -> None:
    """The timed forward against numpy (float64) before timing it."""
    host = x.float().cpu().numpy().astype(np.float64)
    op = case["op"]
    if op.startswith("dropout"):
        y = F.dropout(x, 0.1).float().cpu().numpy().astype(np.float64)
        kept = y != 0
        ok = np.allclose(y[kept], host[kept] / 0.9, rtol=2e-2) and 0.85 < kept.mean() < 0.95
    else:
        cols = x.shape[-1]
        wn, bn = w.float().cpu().numpy().astype(np.float64), b.float().cpu().numpy().astype(np.float64)
        if op == "rms_norm":
            ref = host / np.sqrt((host * host).mean(-1, keepdims=True) + np.finfo(np.float32).eps) * wn
            y = F.rms_norm(x, (cols,), w)
        else:
            mu = host.mean(-1, keepdims=True)
            ref = (host - mu) / np.sqrt(((host - mu) ** 2).mean(-1, keepdims=True) + 1e-5) * wn + bn
            y = F.layer_norm(x, (cols,), w, b)
        tol = 3e-2 if case["dtype"] in ("bfloat16", "float16") else 1e-4
        ok = float(np.abs(y.float().cpu().numpy().astype(np.float64) - ref).max()) <= tol * max(1.0, np.abs(ref).max())
    if not ok:
        raise SystemExit(f"wrong result for {case['name']} {case['shape']} {case['dtype']}")


def main() -> None:
    run = harness.Run(__doc__, dtypes="float32,bfloat16")

    import tensorlab as tl
    import tensorlab.nn.functional as F

    todo = cases(run.args.quick, run.dtypes)
    run.measure_copy_bandwidth()
    run.torch_reference("torch_nn.py", {"cases": todo, "repeats": run.repeats})

    rows = []
    for i, case in enumerate(todo):
        tl.manual_seed(i)
        x, w, b, g = make_inputs(tl, case, run.dev)
        spot_check(tl, F, case, x, w, b)
        seconds = harness.time_fn(make_fn(tl, F, case, x, w, b, g), run.dev, run.repeats)
        nbytes = case["passes"] * x.numel() * x.element_size()
        row = {"case": case["name"], "shape": "x".join(map(str, case["shape"])), "dtype": case["dtype"],
               "MB": x.numel() * x.element_size() / MB, "ms": seconds * 1e3, **run.bandwidth(nbytes, seconds, i)}
        rows.append(row)
        run.progress(f"{case['name']:16s} {row['shape']:>12s} {case['dtype']}", row)

    run.finish("nn", rows, run.meta())


if __name__ == "__main__":
    main()
