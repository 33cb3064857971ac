"""Cross-entropy benchmark: the fused Triton softmax-cross-entropy (forward, forward + backward) against torch.

Cases: (tokens, classes) = (8192, 32000) and (4096, 128256) (language-model vocabularies: the
looped long-row path) and (65536, 1000) (short rows, several per program), fp32 and bf16, with
``ignore_index`` rows and label smoothing 0.1 (``--quick``: small shapes for a smoke test).

Reported per case: median time, effective GB/s (the bytes a fused implementation must move: the
logits read once forward; read again and the gradient written backward) and the fraction of the
measured device-to-device copy bandwidth; on cuda the same for ``torch.nn.functional.cross_entropy``,
measured in its own process (``bench/torch_losses.py``; tensorlab never imports torch), and the
L2 flush each sample started with (``harness.l2_flush``: by default a reading one for the
forward, which writes a few values per row, a zeroing one for forward + backward, which writes the
gradient). Each case is checked against float64 numpy before it is timed.

    python bench/losses.py                      # cuda when a real GPU is present
    python bench/losses.py --device cpu --quick # smoke test: the numpy twin
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the repository root: tensorlab

import harness  # noqa: E402  (bench/harness.py, beside this script)
import numpy as np  # noqa: E402
from harness import MB  # noqa: E402

SMOOTHING = 0.1


def cases(quick: bool, dtypes: list[str]) -> list[dict]:
    shapes = [(256, 1000), (64, 8192)] if quick else [(8192, 32000), (4096, 128256), (65536, 1000)]
    # the forward reads the logits and writes a few values per row: harness.l2_flush's "read_only"
    return [{"N": n, "C": c, "mode": mode, "dtype": dt, "read_only": mode == "fwd"} for dt in dtypes
            for n, c in shapes for mode in ("fwd", "fwd+bwd")]


def make_inputs(tl, case: dict, dev: str) -> tuple:
    """Logits and targets (every 17th row ignored), made by ``tl``: tensorlab here, torch in
    bench/torch_losses.py."""
    n, c = case["N"], case["C"]
    x = tl.randn(n, c, dtype=getattr(tl, case["dtype"]), device=dev)
    t = tl.randint(0, c, (n,), device=dev)
    t[::17] = -100  # some ignored rows
    return x, t


def make_fn(F, case: dict, x, t, smoothing: float):
    """The timed call: the loss (``fwd``), or the loss and its backward; ``F`` is tensorlab's or torch's."""
    if case["mode"] == "fwd":
        return lambda: F.cross_entropy(x, t, label_smoothing=smoothing)
    xr = x.detach().requires_grad_(True)

    def fwd_bwd():
        xr.grad = None
        F.cross_entropy(xr, t, label_smoothing=smoothing).backward()
    return fwd_bwd


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
    run = harness.Run(__doc__, dtypes="float32,bfloat16")

    import tensorlab as tl
    import tensorlab.nn.functional as F

    todo = cases(run.args.quick, run.dtypes)
    run.measure_copy_bandwidth()
    run.torch_reference("torch_losses.py", {"cases": todo, "repeats": run.repeats, "label_smoothing": SMOOTHING})

    rows = []
    for i, case in enumerate(todo):
        tl.manual_seed(i)
        x, t = make_inputs(tl, case, run.dev)
        if case["mode"] == "fwd":
            spot_check(F, x, t, case["dtype"])
        seconds = harness.time_fn(make_fn(F, case, x, t, SMOOTHING), run.dev, run.repeats, read_only=case["read_only"])
        passes = 1 if case["mode"] == "fwd" else 3
        nbytes = passes * x.numel() * x.element_size()
        row = {"mode": case["mode"], "shape": f"{case['N']}x{case['C']}", "dtype": case["dtype"],
               "MB": x.numel() * x.element_size() / MB, "ms": seconds * 1e3,
               **run.bandwidth(nbytes, seconds, i, torch_copy_fraction=False)}
        if run.dev.startswith("cuda"):
            row["l2_flush"] = harness.flush_for(case["read_only"])
        rows.append(row)
        run.progress(f"{case['mode']:8s} {row['shape']:>12s} {case['dtype']}", row)

    run.finish("losses", rows, run.meta(label_smoothing=SMOOTHING))


if __name__ == "__main__":
    main()
