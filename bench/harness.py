"""Benchmark harness: timing, throughput units, the device's reference peaks, and result files.

Every benchmark script in ``bench/`` uses this module:

- :func:`time_fn` times a callable: CUDA events on a real GPU (after warm-up, median of
  repeats), ``perf_counter`` on cpu. Interpreted cuda is not a performance target: scripts refuse
  it unless ``--allow-interpreted`` is given (for smoke tests only).
- :func:`copy_bandwidth` measures the device-to-device copy bandwidth that memory-bound kernels
  are compared with (DESIGN §4: report the fraction of the device's peak).
- :func:`run_torch_reference` runs a comparator that needs torch in its own process and
  returns its JSON; tensorlab never imports torch.
- :func:`write_results` writes ``bench/results/<name>-<device>.json`` and ``.csv`` with the
  device name, so figures always say where they were measured.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"


def common_args(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when a real GPU is present)")
    p.add_argument("--repeats", type=int, default=20, help="timed repetitions (median is reported)")
    p.add_argument("--quick", action="store_true", help="small sizes, few repeats (smoke test)")
    p.add_argument("--no-torch", action="store_true", help="skip the PyTorch comparator")
    p.add_argument("--allow-interpreted", action="store_true", help="allow interpreted cuda (smoke tests only)")
    p.add_argument("--out", default=None, help="results directory (default bench/results)")
    return p


def pick_device(args) -> str:
    import tensorlab as tl

    dev = args.device or ("cuda" if tl.cuda.is_available() and not tl.cuda.is_interpreted() else "cpu")
    if dev.startswith("cuda") and tl.cuda.is_interpreted() and not args.allow_interpreted:
        raise SystemExit("cuda is the Triton interpreter here: timings would mean nothing (use --allow-interpreted "
                         "for a smoke test)")
    return dev


def device_name(dev: str) -> str:
    import tensorlab as tl

    if dev.startswith("cuda"):
        name = tl.cuda.get_device_name()
        return name + (" (interpreted)" if tl.cuda.is_interpreted() else "")
    return f"cpu: {platform.processor() or platform.machine()} x{os.cpu_count()}"


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def time_fn(fn, dev: str, repeats: int = 20, warmup: int = 3) -> float:
    """Median seconds per call of ``fn``."""
    import tensorlab as tl

    for _ in range(warmup):
        fn()
    if dev.startswith("cuda") and not tl.cuda.is_interpreted():
        times = []
        for _ in range(repeats):
            start, end = tl.cuda.Event(enable_timing=True), tl.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1000.0)
        return statistics.median(times)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        if dev.startswith("cuda"):
            tl.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def host_overhead(fn, iters: int = 200) -> float:
    """Mean host seconds per call with no synchronisation (eager launch overhead)."""
    for _ in range(10):
        fn()
    t0 = time.perf_counter()
    for _ in range(iters):
        fn()
    return (time.perf_counter() - t0) / iters


def copy_bandwidth(dev: str, nbytes: int = 256 << 20, repeats: int = 20) -> float:
    """Device-to-device copy bandwidth in bytes/s (counting read + write), via the copy kernel."""
    import tensorlab as tl

    n = nbytes // 4
    src = tl.empty(n, dtype=tl.float32, device=dev)
    dst = tl.empty(n, dtype=tl.float32, device=dev)
    seconds = time_fn(lambda: dst.copy_(src), dev, repeats)
    return 2 * nbytes / seconds


def run_torch_reference(script: str, payload: dict, timeout: int = 900, python: str | None = None) -> dict | None:
    """Run ``bench/<script>`` (which may import torch) in a separate process with ``python`` (default:
    this interpreter); None if torch is absent there."""
    path = Path(__file__).resolve().parent / script
    try:
        proc = subprocess.run([python or sys.executable, str(path), json.dumps(payload)], capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout"}
    if proc.returncode != 0:
        if "No module named 'torch'" in proc.stderr:
            return None
        return {"error": proc.stderr[-2000:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def write_results(name: str, dev: str, rows: list[dict], meta: dict | None = None, out: str | None = None) -> Path:
    """Write rows (list of flat dicts) as JSON (with device and metadata) and CSV; returns the JSON path."""
    import tensorlab as tl

    directory = Path(out) if out else RESULTS
    directory.mkdir(parents=True, exist_ok=True)
    dname = device_name(dev)
    base = directory / f"{name}-{slug(dname)}"
    doc = {
        "benchmark": name,
        "device": dname,
        "tensorlab": tl.__version__,
        "python": platform.python_version(),
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
        "meta": meta or {},
        "rows": rows,
    }
    try:
        import triton

        doc["triton"] = triton.__version__
    except ImportError:
        pass
    base.with_suffix(".json").write_text(json.dumps(doc, indent=2) + "\n")
    if rows:
        keys = list(dict.fromkeys(k for r in rows for k in r))
        with base.with_suffix(".csv").open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(rows)
    return base.with_suffix(".json")


def print_table(rows: list[dict]) -> None:
    if not rows:
        return
    keys = list(dict.fromkeys(k for r in rows for k in r))
    widths = {k: max(len(k), *(len(_fmt(r.get(k))) for r in rows)) for k in keys}
    print("  ".join(k.ljust(widths[k]) for k in keys))
    for r in rows:
        print("  ".join(_fmt(r.get(k)).ljust(widths[k]) for k in keys))


def _fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return "" if v is None else str(v)
