"""Benchmark harness: timing, throughput units, the device's reference peaks, and result files.

Every benchmark script in ``bench/`` uses this module:

- :func:`time_fn` times a callable: CUDA events on a real GPU (after warm-up, median of
  repeats taken in blocks spread over ~0.75 s, each after an L2 flush that also hides the host's
  launch time: :func:`l2_flush`), ``perf_counter`` on cpu. Interpreted cuda is not a performance
  target: scripts refuse it unless ``--allow-interpreted`` is given (for smoke tests only).
  :func:`timing_floor` times a tiny op the same way: what a sample costs when the kernel costs
  nothing (a result file's ``timing_floor_us``).
- :func:`copy_bandwidth` measures the device-to-device copy bandwidth that memory-bound kernels
  are compared with (DESIGN §4: report the fraction of the device's peak).
- :func:`run_torch_reference` runs a comparator that needs torch in its own process and
  returns its JSON; tensorlab never imports torch.
- :func:`write_results` writes ``bench/results/<name>-<device>.json`` and ``.csv`` with the
  device name, so figures always say where they were measured.
- :class:`Run` holds what one run of a script shares between its cases: the parsed options, the
  device and repeat count, the copy bandwidth and the torch comparator's timings; it builds the
  throughput columns every memory-bound script reports and prints and writes the results.
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
MB = 1 << 20

# Dense fp16/bf16 tensor-core peaks (TFLOP/s, no sparsity) by device name, for the fraction of peak.
PEAK_TFLOPS_16 = {"H100": 989.0, "H200": 989.0, "A100": 312.0, "L40S": 362.0, "RTX 4090": 165.0}


def common_args(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--device", default=None, help="cpu or cuda (default: cuda when a real GPU is present)")
    p.add_argument("--repeats", type=int, default=20, help="timed repetitions (median is reported)")
    p.add_argument("--quick", action="store_true", help="small sizes, few repeats (smoke test)")
    p.add_argument("--no-torch", action="store_true", help="skip the PyTorch comparator")
    p.add_argument("--allow-interpreted", action="store_true", help="allow interpreted cuda (smoke tests only)")
    p.add_argument("--out", default=None, help="results directory (default bench/results)")
    p.add_argument("--l2-flush", choices=L2_FLUSH_MODES, default=None,
                   help=f"how each GPU sample flushes L2 (default: ${L2_FLUSH_ENV} or steady; see harness.l2_flush)")
    return p


def pick_device(args) -> str:
    """The device the script measures; also applies ``--l2-flush`` (to this process and, through the
    environment, to the torch comparators it starts)."""
    import tensorlab as tl

    if getattr(args, "l2_flush", None):
        os.environ[L2_FLUSH_ENV] = args.l2_flush
    l2_flush_mode()  # refuse a bad value before anything is measured

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


def peak_tflops_16(name: str) -> float | None:
    """The dense fp16/bf16 peak of the device called ``name``; None when it is not in the table."""
    return next((peak for key, peak in PEAK_TFLOPS_16.items() if key in name), None)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


SAMPLE_BLOCK, SAMPLE_PAUSE_S = 5, 0.25  # GPU samples: blocks of 5, 0.25 s apart (bench/torch_common.py reads these)

# How a GPU sample starts (:func:`l2_flush`): "steady" (the default: by what the timed op leaves),
# "read" or "zero" for every op. An environment variable, so that the torch comparators, each in
# its own process, flush as the script does.
L2_FLUSH_ENV = "TENSORLAB_BENCH_L2_FLUSH"
L2_FLUSH_MODES = ("steady", "read", "zero")
L2_FLUSH_BYTES = 256 * MB  # five times the H100's 50 MB L2 (H200: 60 MB)


def l2_flush_mode() -> str:
    """``$TENSORLAB_BENCH_L2_FLUSH`` (default "steady"); SystemExit naming the choices for another value."""
    mode = os.environ.get(L2_FLUSH_ENV, "") or "steady"
    if mode not in L2_FLUSH_MODES:
        raise SystemExit(f"{L2_FLUSH_ENV}={mode!r}: choose one of {', '.join(L2_FLUSH_MODES)}")
    return mode


def flush_for(read_only: bool) -> str:
    """The flush a sample of an op starts with, "read" or "zero" (see :func:`l2_flush`)."""
    mode = l2_flush_mode()
    if mode == "steady":
        return "read" if read_only else "zero"
    return mode


def l2_flush(dev: str, read_only: bool = False, nbytes: int = L2_FLUSH_BYTES):
    """The callable run before each GPU sample of an op (``read_only``: one whose output is small next
    to its input, a reduction). It evicts the op's inputs from L2, and it keeps the GPU busy
    (~0.1 ms) while the host records the start event and launches the op, so the events time the
    kernels, not the host's launch overhead (that is bench/launch.py's figure; without a flush an
    op's ~20 us of host time landed inside every sample on an H100). Of an ``nbytes`` buffer:

    - "zero": ``zero_()``, triton.testing.do_bench's method. L2 then holds ~50 MB of dirty lines,
      which the op pays to write back as it evicts them.
    - "read": a reduction (``amax``) of the buffer, zeroed once. The previous sample's dirty lines
      are written back during the flush, and L2 then holds clean lines only.

    "steady" (the default) starts each sample from the L2 state the op itself leaves behind, so
    that the op pays for its own traffic and not for the harness's: an op that writes about as
    much as it reads leaves L2 dirty, and it starts after "zero" (what it pays to evict is about
    what it leaves unpaid); a read-only op leaves L2 clean, and it starts after "read". Timing a
    read-only op after "zero" charges it for 50 MB it never wrote: on the lent H100 of 2026-11-23
    full sums took ~15 us more than their reads at 64 MB, 256 MB and 1 GB alike (0.61, 0.84 and
    0.98 of the copy bandwidth; torch 0.60, 0.88, 1.0), 50 MB at HBM speed, while elementwise ops
    and softmax at 64 MB reached 0.86-1.0. Timing a writing op after "read" would not charge it
    for the ~50 MB of its output that stays in L2."""
    import tensorlab as tl

    buffer = tl.zeros(nbytes // 4, dtype=tl.int32, device=dev)
    return buffer.zero_ if flush_for(read_only) == "zero" else buffer.amax


def time_fn(fn, dev: str, repeats: int = 20, warmup: int = 3, read_only: bool = False) -> float:
    """Median seconds per call of ``fn`` (``read_only``: an op whose output is small next to its
    input, which picks the L2 flush on a GPU: :func:`l2_flush`)."""
    import tensorlab as tl

    for _ in range(warmup):
        fn()
    if dev.startswith("cuda") and not tl.cuda.is_interpreted():
        # Each sample starts with an L2 flush (l2_flush: evicts the inputs, hides the host's launch).
        # The samples are taken in blocks of SAMPLE_BLOCK with pauses between blocks, so they span
        # about 0.75 s: on the lent H100 of 2026-11-23 some stretches (shorter than the ~1.5 s
        # between rounds of tools/sweep_configs.py) ran kernels 2-5x slower, and 20 back-to-back
        # samples (a few ms) could all fall in one; a stretch shorter than a pause now spoils at most
        # one block of the median's samples.
        flush = l2_flush(dev, read_only)
        times = []
        for i in range(repeats):
            if i and i % SAMPLE_BLOCK == 0:
                time.sleep(SAMPLE_PAUSE_S)
            start, end = tl.cuda.Event(enable_timing=True), tl.cuda.Event(enable_timing=True)
            flush()
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


TIMING_FLOOR_WARN_US = 10.0


def timing_floor(dev: str, repeats: int = 20) -> float:
    """Seconds :func:`time_fn` gives ``a + b`` on 16 float32 elements: a kernel of ~2 us plus the
    events, after the reading flush (the zeroing one is a driver memset). Several times that means
    the flush did not keep the GPU busy while the host launched (the GPU idled inside the samples),
    and small cases then include host time: a warning on stderr above TIMING_FLOOR_WARN_US.
    Scripts write it in their results (``timing_floor_us``)."""
    import tensorlab as tl

    a, b = tl.ones(16, device=dev), tl.ones(16, device=dev)
    seconds = time_fn(lambda: a + b, dev, repeats, read_only=True)
    if dev.startswith("cuda") and not tl.cuda.is_interpreted() and seconds * 1e6 > TIMING_FLOOR_WARN_US:
        print(f"warning: a 16-element add times at {seconds * 1e6:.1f} us after the {flush_for(True)!r} L2 flush: "
              "the GPU idled inside the samples, small cases include host time", file=sys.stderr)
    return seconds


def host_overhead(fn, iters: int = 200, rounds: int = 7) -> float:
    """Host seconds per call with no synchronisation (eager launch overhead): the best of ``rounds``
    means over ``iters`` calls, as a busy machine only ever adds time."""
    for _ in range(10):
        fn()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        best = min(best, (time.perf_counter() - t0) / iters)
    return best


def bytecodes_per_call(fn, calls: int = 3) -> float:
    """Python bytecodes executed per call of ``fn`` (after one warm-up call), in every Python frame
    it enters: a host-cost measure that, unlike time, does not move with the machine's load.
    C work (numpy, the driver) is not counted."""
    import sys

    count = 0

    def trace(frame, event, arg):
        nonlocal count
        if event == "call":
            frame.f_trace_opcodes, frame.f_trace_lines = True, False
        elif event == "opcode":
            count += 1
        return trace

    fn()
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        for _ in range(calls):
            fn()
    finally:
        sys.settrace(previous)
    return count / calls


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
    except OSError as e:  # e.g. a --torch-python that does not exist
        return {"error": f"{type(e).__name__}: {e}"}
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


class Run:
    """One run of a benchmark script, from its options to its result files::

        run = harness.Run(__doc__, dtypes="float32,bfloat16")   # parses the options, picks the device
        run.measure_copy_bandwidth()
        run.torch_reference("torch_x.py", {"cases": cases, "repeats": run.repeats})
        row = {"case": ..., "ms": seconds * 1e3, **run.bandwidth(nbytes, seconds, i)}
        run.finish("x", rows, run.meta())

    ``doc`` is the script's docstring (its first line describes the options); ``dtypes`` adds
    ``--dtypes`` with that default; ``options(parser)`` adds the script's own options.
    """

    def __init__(self, doc: str, *, dtypes: str | None = None, dtypes_help: str | None = None, options=None):
        parser = common_args(doc.splitlines()[0])
        if dtypes is not None:
            parser.add_argument("--dtypes", default=dtypes,
                                help=dtypes_help or f"comma-separated dtypes (default {dtypes})")
        if options is not None:
            options(parser)
        self.args = parser.parse_args()
        self.dev = pick_device(self.args)
        self.repeats = 3 if self.args.quick else self.args.repeats
        self.dtypes = [d.strip() for d in self.args.dtypes.split(",") if d.strip()] if dtypes is not None else []
        self.copy_bw: float | None = None
        self.reference: dict | None = None

    def measure_copy_bandwidth(self, note: str = "") -> float:
        """Measure (and report on stderr) the copy bandwidth the memory-bound rows are compared with."""
        self.copy_bw = copy_bandwidth(self.dev, nbytes=(8 * MB if self.args.quick else 256 * MB),
                                      repeats=self.repeats)
        print(f"copy bandwidth (read + write): {self.copy_bw / 1e9:.1f} GB/s{note}", file=sys.stderr)
        return self.copy_bw

    def peak_tflops_16(self) -> float | None:
        """The device's dense fp16/bf16 peak (cuda only)."""
        return peak_tflops_16(device_name(self.dev)) if self.dev.startswith("cuda") else None

    def torch_reference(self, script: str, payload: dict) -> dict | None:
        """The torch comparator's answer on cuda (unless ``--no-torch``); None, with the reason on
        stderr, when torch is not installed or the comparator failed."""
        if not self.dev.startswith("cuda") or self.args.no_torch:
            return None
        reference = run_torch_reference(script, payload)
        if reference is None:
            print("torch is not installed: no comparator", file=sys.stderr)
        elif "error" in reference:
            print(f"torch comparator failed: {reference['error']}", file=sys.stderr)
            reference = None
        self.reference = reference
        return reference

    def torch_seconds(self, i: int) -> float | None:
        """torch's time for case ``i``; None without a comparator."""
        return None if self.reference is None else self.reference["results"][i]["seconds"]

    def bandwidth(self, nbytes: float, seconds: float, i: int | None = None, torch_copy_fraction: bool = True) -> dict:
        """``GB/s`` and ``copy_fraction`` of ``nbytes`` moved in ``seconds``; given the case index ``i``
        and a comparator, the same for torch (``torch_GB/s``, ``torch_copy_fraction``) and ``ratio_to_torch``."""
        cols = {"GB/s": nbytes / seconds / 1e9, "copy_fraction": nbytes / seconds / self.copy_bw}
        ref_s = self.torch_seconds(i) if i is not None else None
        if ref_s is not None:
            cols["torch_GB/s"] = nbytes / ref_s / 1e9
            if torch_copy_fraction:
                cols["torch_copy_fraction"] = nbytes / ref_s / self.copy_bw
            cols["ratio_to_torch"] = ref_s / seconds
        return cols

    @staticmethod
    def progress(label: str, row: dict) -> None:
        """One line on stderr per case of a memory-bound script."""
        print(f"{label}: {row['GB/s']:.1f} GB/s ({row['copy_fraction']:.0%} of copy)", file=sys.stderr)

    def meta(self, **extra) -> dict:
        """The result file's metadata: quick, repeats, on a GPU the L2 flush and :func:`timing_floor`,
        the copy bandwidth (when measured), ``extra`` and the comparator's torch version (when it ran)."""
        meta = {"quick": self.args.quick, "repeats": self.repeats}
        if self.dev.startswith("cuda"):
            meta["l2_flush"] = l2_flush_mode()
            meta["timing_floor_us"] = timing_floor(self.dev, self.repeats) * 1e6
        if self.copy_bw is not None:
            meta["copy_bandwidth_GBps"] = self.copy_bw / 1e9
        meta.update(extra)
        if self.reference is not None:
            meta["torch"] = self.reference.get("torch")
        return meta

    def save(self, name: str, rows: list[dict], meta: dict) -> Path:
        """Write the result files (``--out`` or bench/results) and say where."""
        path = write_results(name, self.dev, rows, meta=meta, out=self.args.out)
        print(f"results: {path}")
        return path

    def finish(self, name: str, rows: list[dict], meta: dict) -> Path:
        """Print the table, then :meth:`save`."""
        print_table(rows)
        return self.save(name, rows, meta)


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
