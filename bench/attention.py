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


def make_inputs(tl, case: dict, dev: str) -> tuple:
    """q, k, v, made by ``tl``: tensorlab here, torch in bench/torch_attention.py."""
    shape = (case["B"], case["H"], case["L"], case["E"])
    return tuple(tl.randn(*shape, dtype=getattr(tl, case["dtype"]), device=dev) for _ in range(3))


def make_fn(tl, F, case: dict, q, k, v):
    """The timed call: attention (``fwd``), or attention and its backward from a random output
    gradient; ``F`` is tensorlab's or torch's ``nn.functional``."""
    causal = bool(case["causal"])
    if case["mode"] == "fwd":
        return lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    qr, kr, vr = (a.detach().requires_grad_(True) for a in (q, k, v))
    g = tl.randn(*q.shape, dtype=q.dtype, device=q.device)
    return lambda: F.scaled_dot_product_attention(qr, kr, vr, is_causal=causal).backward(g)


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
    run = harness.Run(__doc__, dtypes="float16,bfloat16")

    import tensorlab as tl
    import tensorlab.nn.functional as F

    todo = cases(run.args.quick, run.dtypes)
    peak = run.peak_tflops_16()
    run.torch_reference("torch_attention.py", {"cases": todo, "repeats": run.repeats})

    rows = []
    checked = set()
    for i, case in enumerate(todo):
        tl.manual_seed(i)
        q, k, v = make_inputs(tl, case, run.dev)
        key = (tuple(q.shape), case["causal"], case["dtype"])
        if key not in checked:
            spot_check(tl, F, q, k, v, case["causal"], case["dtype"])
            checked.add(key)
        seconds = harness.time_fn(make_fn(tl, F, case, q, k, v), run.dev, run.repeats)
        tflops = flops(case) / seconds / 1e12
        row = {"mode": case["mode"], "shape": "x".join(map(str, q.shape)), "causal": case["causal"],
               "dtype": case["dtype"], "ms": seconds * 1e3, "tflops": tflops}
        if peak:
            row["peak_fraction"] = tflops / peak
        ref_s = run.torch_seconds(i)
        if ref_s is not None:
            row["torch_tflops"] = flops(case) / ref_s / 1e12
            row["ratio_to_torch"] = ref_s / seconds
        rows.append(row)
        print(f"{case['mode']:8s} {row['shape']:>16s} causal={case['causal']!s:5s} {case['dtype']}: "
              f"{tflops:.3f} TFLOP/s", file=sys.stderr)

    run.finish("attention", rows, run.meta())


if __name__ == "__main__":
    main()
