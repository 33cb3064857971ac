"""What the torch comparators (``bench/torch_*.py``) share. Torch side only: it never imports tensorlab.

Each comparator runs in its own process (tensorlab never imports torch): the tensorlab script
passes one JSON argument ``{"cases": [...], "repeats": n, ...}`` (optionally ``"device"``,
default ``"cuda"``) and reads the last stdout line, ``{"device", "torch", ..., "results":
[{"seconds"}, ...]}``: one result per case, in order.

- :func:`time_fn`: median seconds per call, CUDA events after warm-up on cuda (``perf_counter``
  elsewhere, e.g. to smoke-test a comparator on a machine without a GPU);
- :func:`run_cases`: a comparator's ``main``: seeds torch with each case's index (as the tensorlab
  scripts seed tensorlab), times what the comparator builds for the case and prints the line.

Where a case's inputs and the timed call are written once for both frameworks, the comparator
imports them from its tensorlab script (those functions take the framework module as an
argument; the scripts import tensorlab only inside ``main``).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Callable

import torch
from harness import L2_FLUSH_BYTES, SAMPLE_BLOCK, SAMPLE_PAUSE_S, flush_for  # (stdlib only: no tensorlab)


def read_payload() -> tuple[dict, str, int]:
    """The JSON payload (``sys.argv[1]``), its device (default cuda) and repeat count (default 20)."""
    payload = json.loads(sys.argv[1])
    return payload, payload.get("device", "cuda"), int(payload.get("repeats", 20))


def synchronize(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def time_fn(fn: Callable, repeats: int, device: str = "cuda", warmup: int = 3, read_only: bool = False) -> float:
    """Median seconds per call of ``fn`` after ``warmup`` calls (``read_only`` as in harness.time_fn)."""
    for _ in range(warmup):
        fn()
    synchronize(device)
    times = []
    # the same method as bench/harness.py: before each sample the L2 flush that harness.l2_flush
    # describes (the mode comes from the environment the tensorlab script passes on), which also
    # keeps the GPU busy while the host launches, so the events time the kernels only; the samples
    # are taken in blocks with pauses between them, as harness.time_fn takes them
    flush = None
    if device.startswith("cuda"):
        buffer = torch.zeros(L2_FLUSH_BYTES // 4, dtype=torch.int32, device=device)
        flush = buffer.zero_ if flush_for(read_only) == "zero" else buffer.amax
    for i in range(repeats):
        if device.startswith("cuda"):
            if i and i % SAMPLE_BLOCK == 0:
                time.sleep(SAMPLE_PAUSE_S)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            flush()
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / 1000.0)
        else:
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def device_name(device: str) -> str:
    return torch.cuda.get_device_name(device) if device.startswith("cuda") else "cpu"


def run_cases(build: Callable[[dict, int, dict, str], Callable], extra: Callable[[str], dict] | None = None) -> None:
    """A comparator's ``main``. For case ``i`` of the payload: ``torch.manual_seed(i)``, then
    ``build(case, i, payload, device)`` returns the callable to time (``read_only`` when the case
    says so). Prints the result line, with the keys ``extra(device)`` returns after the cases (e.g.
    a host overhead)."""
    payload, device, repeats = read_payload()
    results = []
    for i, case in enumerate(payload["cases"]):
        torch.manual_seed(i)
        fn = build(case, i, payload, device)
        results.append({"seconds": time_fn(fn, repeats, device, read_only=case.get("read_only", False))})
        del fn  # frees this case's tensors before the next case allocates its own
    print(json.dumps({"device": device_name(device), "torch": torch.__version__,
                      **(extra(device) if extra is not None else {}), "results": results}))
