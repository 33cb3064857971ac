"""Run every benchmark script in ``bench/`` one after another and summarise where each one ended.

    python bench/run_all.py [--device cuda] [--quick] [--no-torch] [--out DIR] [--only a,b] [--timeout S]
                            [--torch-python PY] [--l2-flush steady|read|zero]

One command for a GPU session (each script writes ``<name>-<device>.json/.csv`` under
``bench/results/`` or ``--out``, with the device name); also the smoke test of the scripts
(``tests/test_bench_scripts.py`` runs it with ``--device cpu --quick``). Each script runs in its
own process with a time limit, so one that fails or hangs does not stop the others; the exit
status is 1 when any failed.

``--torch-python`` is the interpreter the mnist and dataloader comparators run under (a cpu
comparison needs a torch somewhere); the other comparators run on cuda only, with this interpreter.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SCRIPTS = ["elementwise", "reductions", "matmul", "indexing", "sorting", "nn", "losses", "attention", "optim",
           "autograd", "launch", "dataloader", "mnist"]
TAKES_TORCH_PYTHON = {"mnist", "dataloader"}
QUICK_EXTRA = {"dataloader": ["--shape", "3,32,32", "--workers", "0,2"], "mnist": ["--epochs", "1"]}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default=None, help="cpu or cuda (default: each script's default)")
    p.add_argument("--quick", action="store_true", help="small sizes, few repeats (smoke test)")
    p.add_argument("--no-torch", action="store_true", help="skip the PyTorch comparators")
    p.add_argument("--allow-interpreted", action="store_true", help="allow interpreted cuda (smoke tests only)")
    p.add_argument("--out", default=None, help="results directory (default bench/results)")
    p.add_argument("--only", default=None, help="comma-separated script names (default: all)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per script")
    p.add_argument("--torch-python", default=None, help="a Python with torch for mnist and dataloader")
    p.add_argument("--l2-flush", choices=("steady", "read", "zero"), default=None,
                   help="how each GPU sample flushes L2 (default: steady; see bench/harness.py's l2_flush)")
    args = p.parse_args(argv)

    names = SCRIPTS if args.only is None else [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = sorted(set(names) - set(SCRIPTS))
    if unknown:
        p.error(f"unknown benchmark(s) {unknown}; choose from {SCRIPTS}")
    failed = []
    for name in names:
        cmd = [sys.executable, str(BENCH / f"{name}.py")]
        cmd += ["--device", args.device] if args.device else []
        cmd += ["--out", args.out] if args.out else []
        cmd += ["--l2-flush", args.l2_flush] if args.l2_flush else []
        cmd += [flag for flag, on in (("--quick", args.quick), ("--allow-interpreted", args.allow_interpreted))
                if on]
        if args.no_torch:
            cmd += ["--no-torch"]
        elif args.torch_python and name in TAKES_TORCH_PYTHON:
            cmd += ["--torch-python", args.torch_python]
        if args.quick:
            cmd += QUICK_EXTRA.get(name, [])
        t0 = time.perf_counter()
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout)
            status = "ok" if proc.returncode == 0 else f"exit {proc.returncode}"
            text = proc.stdout if proc.returncode == 0 else proc.stderr
            tail = text.strip().splitlines()[-1:] if proc.returncode == 0 else text.strip().splitlines()[-8:]
        except subprocess.TimeoutExpired:
            status, tail = f"timeout after {args.timeout:.0f} s", []
        seconds = time.perf_counter() - t0
        print(f"{name:12s} {status:10s} {seconds:7.1f} s  {' | '.join(tail)}", flush=True)
        if status != "ok":
            failed.append(name)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
