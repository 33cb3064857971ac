"""Matmul benchmark: tensorlab's Triton GEMM against torch.matmul (cuda) or numpy (cpu).

Shapes: the square 4096^3 product and the transformer shapes M = 8192 tokens, N and K in
{768, 3072, 4096} (the projections and MLP of a 768- to 4096-wide model), in bf16 and fp16.
Reported per shape: median time, TFLOP/s (2*M*N*K / s), the fraction of the device's dense peak
where known, and the ratio to the comparator — ``torch.matmul`` measured in its own process
(``bench/torch_matmul.py``; tensorlab never imports torch) on cuda, numpy's matmul on cpu.

Targets on H100/H200: >= 90% of torch at 4096^3, >= 75% across the transformer shapes.

    python bench/matmul.py                      # cuda when a real GPU is present
    python bench/matmul.py --device cpu --quick # smoke test: the twin against numpy
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tensorlab

import harness  # noqa: E402  (bench/harness.py, beside this script)
import numpy as np  # noqa: E402

TRANSFORMER_NK = (768, 3072, 4096)


def shapes(quick: bool) -> list[tuple[str, int, int, int]]:
    if quick:
        return [("square", 256, 256, 256)] + [("transformer", 512, n, k) for n in (64, 192) for k in (64, 192)]
    return [("square", 4096, 4096, 4096)] + [("transformer", 8192, n, k) for n in TRANSFORMER_NK
                                             for k in TRANSFORMER_NK]


def numpy_reference(M, N, K, dtype_name, dev, repeats):
    """cpu comparator: numpy's matmul in fp32 (numpy has no fast fp16/bf16 matmul; the twin
    accumulates fp16/bf16 in fp32 too)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K), dtype=np.float32)
    b = rng.standard_normal((K, N), dtype=np.float32)
    return harness.time_fn(lambda: np.matmul(a, b), dev, repeats)


def main() -> None:
    run = harness.Run(__doc__, dtypes="bfloat16,float16")
    dev, repeats = run.dev, run.repeats

    import tensorlab as tl

    cases = [(kind, M, N, K, dt) for dt in run.dtypes for kind, M, N, K in shapes(run.args.quick)]
    peak = run.peak_tflops_16()
    run.torch_reference("torch_matmul.py", {"cases": [[M, N, K, dt] for _, M, N, K, dt in cases], "repeats": repeats})

    rows = []
    for i, (kind, M, N, K, dt) in enumerate(cases):
        dtype = getattr(tl, dt)
        tl.manual_seed(i)
        a = tl.randn(M, K, dtype=dtype, device=dev)
        b = tl.randn(K, N, dtype=dtype, device=dev)
        out = tl.empty((M, N), dtype=dtype, device=dev)
        if i == 0:  # spot check the product before timing it
            ref = a[:8].float().cpu().numpy().astype(np.float64) @ b.float().cpu().numpy().astype(np.float64)
            got = tl.mm(a[:8], b).float().cpu().numpy()
            err = float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-30))
            if err > 2e-2:
                raise SystemExit(f"wrong result for {M}x{N}x{K} {dt}: relative error {err:.3g}")
        seconds = harness.time_fn(lambda a=a, b=b, out=out: tl.mm(a, b, out=out), dev, repeats)
        flops = 2.0 * M * N * K
        row = {"shape": kind, "M": M, "N": N, "K": K, "dtype": dt, "ms": seconds * 1e3,
               "tflops": flops / seconds / 1e12}
        if peak:
            row["peak_fraction"] = row["tflops"] / peak
        if dev.startswith("cuda"):
            ref_s = run.torch_seconds(i)
            if ref_s is not None:
                row["torch_tflops"] = flops / ref_s / 1e12
                row["ratio_to_torch"] = ref_s / seconds
        else:
            ref_s = numpy_reference(M, N, K, dt, dev, repeats)
            row["numpy_fp32_tflops"] = flops / ref_s / 1e12
            row["ratio_to_numpy"] = ref_s / seconds
        rows.append(row)
        print(f"{kind:11s} {M}x{N}x{K} {dt}: {row['tflops']:.3f} TFLOP/s", file=sys.stderr)

    harness.print_table(rows)
    ratio_key = "ratio_to_torch" if dev.startswith("cuda") else "ratio_to_numpy"
    summary = {}
    for kind in ("square", "transformer"):
        ratios = [r[ratio_key] for r in rows if r["shape"] == kind and ratio_key in r]
        if ratios:
            summary[f"{kind}_{ratio_key}_geomean"] = float(statistics.geometric_mean(ratios))
    for k, v in summary.items():
        print(f"{k}: {v:.3f}")
    run.save("matmul", rows, {"quick": run.args.quick, "repeats": repeats, **summary})


if __name__ == "__main__":
    main()
