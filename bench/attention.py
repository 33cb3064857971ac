"""Attention benchmark: the fused FlashAttention-style Triton kernel (forward, forward + backward) against torch.

Cases: batch 4 x 16 heads (8 x 16 for the shorter sequence), sequence 1024 and 4096, head dims 64
and 128, causal and not, fp16 and bf16 (``--quick``: tiny shapes for a smoke test).

Reported per case: median time, TFLOP/s and the fraction of the device's dense fp16/bf16 peak.
FLOPs count the two products of the forward (``4 * B * H * L * S * E``; half of it when causal) and
3.5 times that for forward + backward (the backward's five products are 2.5 forwards, as
FlashAttention counts them). On cuda the same for ``torch.nn.functional.scaled_dot_product_attention`` (its flash
backend), measured in its own process (``bench/torch_attention.py``; tensorlab never imports
torch). Every case is checked against a float64 numpy reference on a slice before it is timed.

    python bench/attention.py                      # cuda when a real GPU is present
    python bench/attention.py --device cpu --quick # smoke test: the numpy twin
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tensorlab

import harness  # noqa: E402  (bench/harness.py, beside this script)
import numpy as np  # noqa: E402

PEAK_TFLOPS_16 = {"H100": 989.0, "H200": 989.0, "A100": 312.0, "L40S": 362.0, "RTX 4090": 165.0}


def cases(quick: bool, dtypes: list[str]) -> list[dict]:
    if quick:
        shapes = [(1, 2, 64, 64), (1, 2, 128, 32)]
    else:
        shapes = [(8, 16, 1024, 64), (8, 16, 1024, 128), (4, 16, 4096, 64), (4, 16, 4096, 128)]
    out = []
    for dt in dtypes:
        for b, h, n, e in shapes:
            for causal in (False, True):
                for mode in ("fwd", "fwd+bwd"):
                    out.append({"B": b, "H": h, "L": n, "E": e, "causal": causal, "mode": mode, "dtype": dt})
    return out


def flops(case: dict) -> float:
    f = 4.0 * case["B"] * case["H"] * case["L"] * case["L"] * case["E"]
    if case["causal"]:
        f /= 2
    return f * (3.5 if case["mode"] == "fwd+bwd" else 1.0)


def peak_for(name: str) -> float | None:
    return next((p for k, p in PEAK_TFLOPS_16.items() if k in name), None)


def spot_check(tl, F, q, k, v, causal: bool, dtype_name: str) -> None:
    """The first batch entry and head against float64 numpy before timing."""
    qs, ks, vs = (a[:1, :1].float().cpu().numpy().astype(np.float64) for a in (q, k, v))
    L = qs.shape[-2]
    s = qs @ np.swapaxes(ks, -1, -2) / np.sqrt(qs.shape[-1])
    if causal:
        s = np.where(np.tril(np.ones((L, L), bool)), s, -np.inf)
    p = np.exp(s - s.max(-1, keepdims=True))
    ref = (p / p.sum(-1, keepdims=True)) @ vs
    got = F.scaled_dot_product_attention(q[:1, :1], k[:1, :1], v[:1, :1], is_causal=causal)
    err = float(np.abs(got.float().cpu().numpy() - ref).max())
    tol = 3e-2 if dtype_name == "bfloat16" else 5e-3
    if err > tol:
        raise SystemExit(f"wrong attention result ({dtype_name}, causal={causal}): max error {err:.3g}")


def main() -> None:
    p = harness.common_args(__doc__.splitlines()[0])
    p.add_argument("--dtypes", default="float16,bfloat16", help="comma-separated dtypes (default float16,bfloat16)")
    args = p.parse_args()
    dev = harness.pick_device(args)

    import tensorlab as tl
    import tensorlab.nn.functional as F

    repeats = 3 if args.quick else args.repeats
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    todo = cases(args.quick, dtypes)
    dname = harness.device_name(dev)
    peak = peak_for(dname) if dev.startswith("cuda") else None

    reference = None
    if dev.startswith("cuda") and not args.no_torch:
        reference = harness.run_torch_reference("torch_attention.py", {"cases": todo, "repeats": repeats})
        if reference is None:
            print("torch is not installed: no comparator", file=sys.stderr)
        elif "error" in reference:
            print(f"torch comparator failed: {reference['error']}", file=sys.stderr)
            reference = None

    rows = []
    checked = set()
    for i, case in enumerate(todo):
        dtype = getattr(tl, case["dtype"])
        tl.manual_seed(i)
        shape = (case["B"], case["H"], case["L"], case["E"])
        q, k, v = (tl.randn(*shape, dtype=dtype, device=dev) for _ in range(3))
        key = (shape, case["causal"], case["dtype"])
        if key not in checked:
            spot_check(tl, F, q, k, v, case["causal"], case["dtype"])
            checked.add(key)
        if case["mode"] == "fwd":
            def fn(q=q, k=k, v=v, c=case["causal"]):
                return F.scaled_dot_product_attention(q, k, v, is_causal=c)
        else:
            qr, kr, vr = (a.detach().requires_grad_(True) for a in (q, k, v))
            g = tl.randn(*shape, dtype=dtype, device=dev)

            def fn(q=qr, k=kr, v=vr, g=g, c=case["causal"]):
                F.scaled_dot_product_attention(q, k, v, is_causal=c).backward(g)
        seconds = harness.time_fn(fn, dev, repeats)
        tflops = flops(case) / seconds / 1e12
        row = {"mode": case["mode"], "shape": "x".join(map(str, shape)), "causal": case["causal"],
               "dtype": case["dtype"], "ms": seconds * 1e3, "tflops": tflops}
        if peak:
            row["peak_fraction"] = tflops / peak
        if reference is not None:
            ref_s = reference["results"][i]["seconds"]
            row["torch_tflops"] = flops(case) / ref_s / 1e12
            row["ratio_to_torch"] = ref_s / seconds
        rows.append(row)
        print(f"{case['mode']:8s} {row['shape']:>16s} causal={case['causal']!s:5s} {case['dtype']}: "
              f"{tflops:.3f} TFLOP/s", file=sys.stderr)

    harness.print_table(rows)
    meta = {"quick": args.quick, "repeats": repeats}
    if reference is not None:
        meta["torch"] = reference.get("torch")
    path = harness.write_results("attention", dev, rows, meta=meta, out=args.out)
    print(f"results: {path}")


if __name__ == "__main__":
    main()
