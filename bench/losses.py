"""Cross-entropy benchmark: the fused Triton softmax-cross-entropy (forward, forward + backward) against torch.

Cases: (tokens, classes) = (8192, 32000) and (4096, 128256) (language-model vocabularies: the
looped long-row path) and (65536, 1000) (short rows, several per program), fp32 and bf16, with
``ignore_index`` rows and label smoothing 0.1 (``--quick``: small shapes for a smoke test).

Reported per case: median time, effective GB/s (the bytes a fused implementation must move: the
logits read once forward; read again and the gradient written backward) and the fraction of the
measured device-to-device copy bandwidth; on cuda the same for ``torch.nn.functional.cross_entropy``,
measured in its own process (``bench/torch_losses.py``; tensorlab never imports torch). Each case
is checked against float64 numpy before it is timed.

    python bench/losses.py                      # cuda when a real GPU is present
    python bench/losses.py --device cpu --quick # smoke test: the numpy twin
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tensorlab

import harness  # noqa: E402  (bench/harness.py, beside this script)
import numpy as np  # noqa: E402

MB = 1 << 20
SMOOTHING = 0.1


def cases(quick: bool, dtypes: list[str]) -> list[dict]:
    shapes = [(256, 1000), (64, 8192)] if quick else [(8192, 32000), (4096, 128256), (65536, 1000)]
    return [{"N": n, "C": c, "mode": mode, "dtype": dt} for dt in dtypes for n, c in shapes
            for mode in ("fwd", "fwd+bwd")]


def spot_check(F, x, t, dtype_name: str) -> None:
    xs = x[:64].float().cpu().numpy().astype(np.float64)
    ts = t[:64].cpu().numpy()
    m = xs.max(1, keepdims=True)
    logp = xs - m - np.log(np.exp(xs - m).sum(1, keepdims=True))
    valid = ts != -100
    tsafe = np.where(valid, ts, 0)
    nll = -logp[np.arange(len(ts)), tsafe]
    smooth = -logp.sum(1)
    ref = (((1 - SMOOTHING) * nll + SMOOTHING / xs.shape[1] * smooth) * valid).sum() / valid.sum()
    got = F.cross_entropy(x[:64], t[:64], label_smoothing=SMOOTHING).float().item()
    if abs(got - ref) > (2e-2 if dtype_name == "bfloat16" else 1e-4) * max(1.0, abs(ref)):
        raise SystemExit(f"wrong cross_entropy result ({dtype_name}): {got} vs {ref}")


def main() -> None:
    p = harness.common_args(__doc__.splitlines()[0])
    p.add_argument("--dtypes", default="float32,bfloat16", help="comma-separated dtypes (default float32,bfloat16)")
    args = p.parse_args()
    dev = harness.pick_device(args)

    import tensorlab as tl
    import tensorlab.nn.functional as F

    repeats = 3 if args.quick else args.repeats
    dtypes = [d.strip() for d in args.dtypes.split(",") if d.strip()]
    todo = cases(args.quick, dtypes)
    copy_bw = harness.copy_bandwidth(dev, nbytes=(8 * MB if args.quick else 256 * MB), repeats=repeats)
    print(f"copy bandwidth (read + write): {copy_bw / 1e9:.1f} GB/s", file=sys.stderr)

    reference = None
    if dev.startswith("cuda") and not args.no_torch:
        reference = harness.run_torch_reference("torch_losses.py", {"cases": todo, "repeats": repeats,
                                                                    "label_smoothing": SMOOTHING})
        if reference is None:
            print("torch is not installed: no comparator", file=sys.stderr)
        elif "error" in reference:
            print(f"torch comparator failed: {reference['error']}", file=sys.stderr)
            reference = None

    rows = []
    for i, case in enumerate(todo):
        dtype = getattr(tl, case["dtype"])
        tl.manual_seed(i)
        n, c = case["N"], case["C"]
        x = tl.randn(n, c, dtype=dtype, device=dev)
        t = tl.randint(0, c, (n,), device=dev)
        t[::17] = -100  # some ignored rows
        if case["mode"] == "fwd":
            spot_check(F, x, t, case["dtype"])

            def fn(x=x, t=t):
                return F.cross_entropy(x, t, label_smoothing=SMOOTHING)
            passes = 1
        else:
            xr = x.detach().requires_grad_(True)

            def fn(x=xr, t=t):
                x.grad = None
                F.cross_entropy(x, t, label_smoothing=SMOOTHING).backward()
            passes = 3
        seconds = harness.time_fn(fn, dev, repeats)
        nbytes = passes * x.numel() * x.element_size()
        row = {"mode": case["mode"], "shape": f"{n}x{c}", "dtype": case["dtype"], "MB": x.numel() * x.element_size()
               / MB, "ms": seconds * 1e3, "GB/s": nbytes / seconds / 1e9, "copy_fraction": nbytes / seconds / copy_bw}
        if reference is not None:
            ref_s = reference["results"][i]["seconds"]
            row["torch_GB/s"] = nbytes / ref_s / 1e9
            row["ratio_to_torch"] = ref_s / seconds
        rows.append(row)
        print(f"{case['mode']:8s} {row['shape']:>12s} {case['dtype']}: {row['GB/s']:.1f} GB/s "
              f"({row['copy_fraction']:.0%} of copy)", file=sys.stderr)

    harness.print_table(rows)
    meta = {"quick": args.quick, "repeats": repeats, "copy_bandwidth_GBps": copy_bw / 1e9,
            "label_smoothing": SMOOTHING}
    if reference is not None:
        meta["torch"] = reference.get("torch")
    path = harness.write_results("losses", dev, rows, meta=meta, out=args.out)
    print(f"results: {path}")


if __name__ == "__main__":
    main()
