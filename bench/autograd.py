"""Autograd costs: host overhead per recorded op, and the peak memory of a deep MLP's backward.

    python bench/autograd.py [--device cpu|cuda] [--allow-interpreted]

1. Host overhead: microseconds per call of a small op (4 elements, so the arithmetic is
   negligible) without grad, with the tape recording, and per node during backward.
2. Peak memory (cuda only: it reads the caching allocator's statistics, which are exact on
   interpreted cuda too, so this part is meaningful without a GPU): a 24-layer MLP's forward
   keeps its activations for backward; backward frees each layer's saved tensors as soon as it
   has passed that layer, so the peak during backward stays near the peak after forward instead
   of adding up. Reported in MiB with the size of what the forward saved.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness  # noqa: E402

import tensorlab as tl  # noqa: E402
from tensorlab import nn  # noqa: E402


def host_overhead(device: str, iters: int) -> list[dict]:
    a = tl.ones(4, device=device)
    b = tl.ones(4, device=device)
    rows = []
    rows.append({"what": "mul, no grad", "us_per_op": harness.host_overhead(lambda: a * b, iters) * 1e6})
    a.requires_grad_(True)
    rows.append({"what": "mul, recording the tape", "us_per_op": harness.host_overhead(lambda: a * b, iters) * 1e6})

    def chain():
        y = a
        for _ in range(20):
            y = y * b
        return y.sum()

    out = [None]

    def forward():
        out[0] = chain()

    def backward():
        out[0].backward()

    forward()
    t_backward = 0.0
    for _ in range(max(iters // 20, 5)):
        forward()
        t0 = time.perf_counter()
        backward()
        t_backward += time.perf_counter() - t0
    nodes = 21  # 20 mul + sum
    rows.append({"what": "backward, per node", "us_per_op": t_backward / max(iters // 20, 5) / nodes * 1e6})
    return rows


def peak_memory(device: str, depth: int = 24, width: int = 512, batch: int = 256) -> list[dict]:
    tl.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.ReLU()]
    model = nn.Sequential(*layers).to(device)
    x = tl.randn(batch, width, device=device)
    for p in model.parameters():
        p.grad = None
    tl.cuda.synchronize()
    tl.cuda.reset_peak_memory_stats()
    base = tl.cuda.memory_allocated()
    loss = model(x).sum()
    after_forward = tl.cuda.memory_allocated()
    peak_forward = tl.cuda.max_memory_allocated()
    tl.cuda.reset_peak_memory_stats()
    loss.backward()
    peak_backward = tl.cuda.max_memory_allocated()
    after_backward = tl.cuda.memory_allocated()
    grads = sum(p.numel() * p.element_size() for p in model.parameters())
    mib = 1 / (1 << 20)
    return [{
        "model": f"MLP {depth}x{width}, batch {batch}",
        "saved_by_forward_mib": (after_forward - base) * mib,
        "peak_forward_mib": (peak_forward - base) * mib,
        "peak_backward_mib": (peak_backward - base) * mib,
        "after_backward_mib": (after_backward - base) * mib,
        "gradients_mib": grads * mib,
        # what backward holds beyond the gradients it creates, relative to what forward saved: 1 or
        # more if the saved tensors all lived to the end of backward, well below 1 when each layer's
        # are released as backward passes it (then the peak is the gradients plus one layer's work)
        "backward_extra_over_saved": (peak_backward - base - grads) / max(after_forward - base, 1),
    }]


def main():
    run = harness.Run(__doc__)
    args, device = run.args, run.dev
    iters = 200 if args.quick else 2000
    rows, meta = [], {}
    if device.startswith("cuda") and tl.cuda.is_interpreted():
        # the interpreter's launch cost (milliseconds) would swamp the dispatcher's: not recorded
        print("interpreted cuda: host overhead not measured (only the allocator's exact peak memory)",
              file=sys.stderr)
    else:
        rows = host_overhead(device, iters)
        harness.print_table(rows)
        meta["iters"] = iters
    if device.startswith("cuda"):
        mem = peak_memory(device, depth=8 if args.quick else 24)
        harness.print_table(mem)
        rows += mem
    path = harness.write_results("autograd", device, rows, meta, out=args.out)
    print("wrote", path)


if __name__ == "__main__":
    main()
