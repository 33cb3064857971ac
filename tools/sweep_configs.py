"""Measure launch configurations of the full reduction, the GEMM, long-row softmax and var_mean on a GPU, the way the
heuristics in ``tensorlab_kernels`` were chosen (until the autotuner arrives).

    python tools/sweep_configs.py [sum] [matmul] [softmax] [var] [--rounds 3] [--out FILE.jsonl]
    python tools/sweep_configs.py --quick --allow-interpreted    # smoke test (tests/test_bench_scripts.py)

Every candidate is timed once per round with ``bench/harness.time_fn`` (CUDA events, an L2 flush
before each sample (``--l2-flush``, recorded in the device line), the median of 20), the rounds
interleaved, and the median over the rounds is reported with its spread ((max - min) / median):
on a shared machine a sample can be several times slower than its neighbours, and interleaving
keeps such a stretch from favouring one candidate. Each result is one JSON line on stdout (and
appended to ``--out``).

- ``sum``: ``tl.sum`` of a flat float32/bfloat16 tensor of 64, 256 and 1024 MB with the reduce
  launcher's tile (elements), warps and programs per SM replaced, in two launches or in one
  (``FULL_ONE_PASS``), against the launcher's choice;
- ``matmul``: the GEMM kernel on the narrow transformer shapes (M = 8192, N = 768) with explicit
  configurations, against the heuristic's, and the persistent GEMM (``PROGRAMS_PER_SM``: a few
  programs per SM, each looping over tiles) with some of them;
- ``softmax``: ``tl.softmax(x, -1)`` over rows of 32768 float32/bfloat16 elements (64 and 256 MB)
  with the softmax launcher's choice (the whole row in registers, 32 warps, one program per SM)
  against a 16-warp whole-row tile and the looped two-pass kernel (several programs per SM, the
  second read mostly from L2);
- ``var``: ``tl.var_mean(x, -1)`` over rows of 1024 float32/bfloat16 elements (64 and 256 MB, the
  bench's ``var_mean-last`` case, where tensorlab ran at 0.3-0.8 of torch on the H100 of
  2026-11-23) with the var launcher's tile (rows x columns) and warps replaced: its tile takes three
  reductions in a row (the two-pass mean, its correction, the second moment), so it may want other
  tiles than the sum's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import harness  # noqa: E402

import tensorlab as tl  # noqa: E402
from tensorlab import _replay  # noqa: E402
from tensorlab_kernels.matmul import gemm  # noqa: E402
from tensorlab_kernels.reduction import reduce as kreduce  # noqa: E402
from tensorlab_kernels.reduction import softmax as ksoftmax  # noqa: E402
from tensorlab_kernels.reduction import var as kvar  # noqa: E402

MB = 1 << 20
# (tile elements, warps, programs per SM[, one pass]): one pass finishes in the same launch
# (reduce.FULL_ONE_PASS: the last program to finish combines the partials)
SUM_CANDIDATES = [None, (8192, 16, 8), (4096, 16, 16), (4096, 8, 16), (8192, 8, 8), (16384, 16, 8),
                  (8192, 16, 8, True), (4096, 16, 16, True), (8192, 16, 4, True), (16384, 16, 4, True)]
# 128x128 tiles, 8 warps: 120 registers and 96 KB of shared memory with 3 stages of 64-wide K steps
# (two programs fit on an SM), 126 and 128 KB with 4 (one does; then 5 or 6 stages, or 128-wide steps,
# cost no occupancy): tools/compile_check.py with Triton 3.6 for sm_90
MATMUL_CANDIDATES = [None] + [
    {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": k, "GROUP_M": g, "num_warps": w, "num_stages": s}
    for g, w, s, k in ((8, 8, 3, 64), (1, 8, 3, 64), (1, 8, 4, 64), (4, 8, 4, 64), (1, 4, 3, 64), (8, 4, 3, 64),
                       (1, 8, 5, 64), (1, 8, 6, 64), (1, 8, 3, 128))] + [
    # other tile shapes of the declared space (tensorlab_kernels/matmul/configs.py), never measured on
    # these shapes: wide tiles (192 of them, 1.45 waves on 132 SMs) and half-width ones (768, more
    # programs per SM to hide the short K loop)
    {"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": 64, "GROUP_M": g, "num_warps": w, "num_stages": s}
    for m, n, g, w, s in ((128, 256, 8, 8, 3), (256, 128, 8, 8, 3), (256, 128, 1, 8, 3), (128, 64, 8, 4, 4),
                          (128, 64, 1, 4, 3), (64, 128, 8, 4, 4))] + [
    # persistent (gemm._gemm_persistent_kernel): PROGRAMS_PER_SM programs per SM loop over the tiles, the tile
    # and K loops flattened into one pipeline, so a tile's store overlaps the next one's first loads. Flattening
    # costs shared memory (compile_check, Triton 3.6, sm_90): 128 KB for 128x128 tiles with 8 warps and 3
    # stages (one program per SM), 104 KB with 4 warps, 80 KB for 128x64 (two fit), 176 KB for 128x256
    {"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": 64, "GROUP_M": g, "num_warps": w, "num_stages": s, "PROGRAMS_PER_SM": p}
    for m, n, g, w, s, p in ((128, 128, 8, 8, 3, 1), (128, 128, 1, 8, 3, 1), (128, 128, 8, 4, 3, 2),
                             (128, 128, 1, 4, 3, 2), (128, 256, 8, 8, 3, 1), (128, 64, 8, 4, 3, 2))]

# rows of 32768: ("one", warps) keeps the whole row in registers; ("loop", BLOCK_N, warps) is the
# two-pass kernel walking the row in tiles
SOFTMAX_CANDIDATES = [None, ("one", 16), ("loop", 2048, 4), ("loop", 4096, 8), ("loop", 8192, 16)]

# rows of 1024: (BLOCK_M rows, BLOCK_N columns, warps); the launcher's choice is 4 x 1024 (float32) or
# 8 x 1024 (bfloat16) with 8 warps
VAR_CANDIDATES = [None, (1, 1024, 4), (1, 1024, 8), (2, 1024, 4), (2, 1024, 8), (4, 1024, 4), (4, 1024, 16),
                  (8, 1024, 8), (16, 1024, 16), (1, 512, 4), (2, 512, 4)]


def emit(out: str | None, **row) -> None:
    line = json.dumps(row)
    print(line, flush=True)
    if out:
        with open(out, "a") as f:
            f.write(line + "\n")


def interleaved(fns: list, rounds: int) -> list[tuple[float, float]]:
    """(median seconds, spread) of each of ``fns``, timed once per round, the rounds interleaved."""
    samples = [[] for _ in fns]
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            samples[i].append(fn())
    return [(statistics.median(s), (max(s) - min(s)) / statistics.median(s)) for s in samples]


def _forced_full_reduction(tile: int, warps: int, per_sm: int):
    """Stand-ins for the reduce launcher's tile_config/split_config that force a full reduction's
    (one row's) tile, warps and segments (programs per SM, one tile or more each)."""
    tile_config, split_config = kreduce.tile_config, kreduce.split_config

    def forced_tile(n_rows, *args, max_tile=None, **kw):
        cfg = tile_config(n_rows, *args, max_tile=tile if n_rows == 1 else max_tile, **kw)
        if n_rows == 1:
            cfg["num_warps"] = warps
        return cfg

    def forced_split(n_rows, n_cols, block_m, block_n, device, force=None, **kw):
        if n_rows == 1 and force is None and n_cols > 8 * block_n:
            return split_config(n_rows, n_cols, block_m, block_n, device, None, per_sm=per_sm, min_tiles=1)
        return split_config(n_rows, n_cols, block_m, block_n, device, force, **kw)

    return forced_tile, forced_split


def time_sum(x, candidate, dev: str, repeats: int) -> float:
    saved = kreduce.tile_config, kreduce.split_config, kreduce.FULL_ONE_PASS
    if candidate is not None:
        kreduce.tile_config, kreduce.split_config = _forced_full_reduction(*candidate[:3])
        kreduce.FULL_ONE_PASS = len(candidate) > 3 and candidate[3]
    kreduce._reduce_plan.cache_clear()
    try:
        return harness.time_fn(lambda: tl.sum(x), dev, repeats, read_only=True)
    finally:
        kreduce.tile_config, kreduce.split_config, kreduce.FULL_ONE_PASS = saved
        kreduce._reduce_plan.cache_clear()


def sweep_sum(dev: str, rounds: int, out: str | None, quick: bool) -> None:
    repeats = 2 if quick else 20
    for dt in ("float32", "bfloat16"):
        dtype = getattr(tl, dt)
        for mb in ((1 / 16,) if quick else (64, 256, 1024)):
            x = tl.randn(int(mb * MB) // dtype.itemsize, dtype=dtype, device=dev)
            fns = [lambda c=c, x=x: time_sum(x, c, dev, repeats) for c in SUM_CANDIDATES]
            for c, (s, spread) in zip(SUM_CANDIDATES, interleaved(fns, rounds)):
                emit(out, section="sum", dtype=dt, MB=mb, config=c or "default", ms=s * 1e3,
                     GBps=mb * MB / s / 1e9, spread=spread)


def sweep_matmul(dev: str, rounds: int, out: str | None, quick: bool) -> None:
    repeats = 2 if quick else 20
    for dt in ("bfloat16", "float16"):
        dtype = getattr(tl, dt)
        for M, N, K in (((256, 128, 64),) if quick else ((8192, 768, 768), (8192, 768, 3072), (8192, 768, 4096))):
            a, b = tl.randn(M, K, dtype=dtype, device=dev), tl.randn(K, N, dtype=dtype, device=dev)
            arrays = [t._device_array() for t in (tl.empty(M, N, dtype=dtype, device=dev), a, b)]
            fns = [lambda c=c, arrays=arrays: harness.time_fn(lambda: gemm.matmul(*arrays, config=c), dev, repeats)
                   for c in MATMUL_CANDIDATES]
            for c, (s, spread) in zip(MATMUL_CANDIDATES, interleaved(fns, rounds)):
                emit(out, section="matmul", dtype=dt, M=M, N=N, K=K, config=c or "heuristic", ms=s * 1e3,
                     tflops=2 * M * N * K / s / 1e12, spread=spread)


def _forced_softmax(candidate):
    """A stand-in for the softmax launcher's pick_config forcing ``candidate`` on rows of 32768."""
    pick_config = ksoftmax.pick_config

    def forced(n_rows, n_cols, *args, **kw):
        if n_cols != 32768:
            return pick_config(n_rows, n_cols, *args, **kw)
        if candidate[0] == "one":
            return {"BLOCK_M": 1, "BLOCK_N": 32768, "ONE_TILE": True, "num_warps": candidate[1]}
        return {"BLOCK_M": 1, "BLOCK_N": candidate[1], "ONE_TILE": False, "num_warps": candidate[2]}

    return forced


def time_softmax(x, candidate, dev: str, repeats: int) -> float:
    """softmax is replayed on a GPU (tensorlab._replay: the launch recorded on a key's first call is
    repeated, its configuration included), so the recorded launches are forgotten around each
    candidate: else every candidate would time the first one's kernel."""
    saved = ksoftmax.pick_config
    if candidate is not None:
        ksoftmax.pick_config = _forced_softmax(candidate)
    _replay.plans.clear()
    try:
        return harness.time_fn(lambda: tl.softmax(x, -1), dev, repeats)
    finally:
        ksoftmax.pick_config = saved
        _replay.plans.clear()


def sweep_rows(section: str, candidates: list, time_candidate, row_len: int, sizes_mb: tuple, traffic: int,
               dev: str, rounds: int, out: str | None, quick: bool) -> None:
    """Time ``time_candidate(x, candidate, dev, repeats)`` for each of ``candidates`` on float32 and
    bfloat16 tensors of rows of ``row_len`` elements, ``sizes_mb`` in all (2 repeats with ``quick``);
    GB/s counts ``traffic`` passes over the input."""
    repeats = 2 if quick else 20
    for dt in ("float32", "bfloat16"):
        dtype = getattr(tl, dt)
        for mb in sizes_mb:
            x = tl.randn(int(mb * MB) // dtype.itemsize // row_len, row_len, dtype=dtype, device=dev)
            fns = [lambda c=c, x=x: time_candidate(x, c, dev, repeats) for c in candidates]
            for c, (s, spread) in zip(candidates, interleaved(fns, rounds)):
                emit(out, section=section, dtype=dt, MB=mb, config=c or "default", ms=s * 1e3,
                     GBps=traffic * mb * MB / s / 1e9, spread=spread)


def sweep_softmax(dev: str, rounds: int, out: str | None, quick: bool) -> None:
    # GB/s of one read and one write, as bench/reductions.py counts softmax
    sweep_rows("softmax", SOFTMAX_CANDIDATES, time_softmax, 32768, (1 / 8,) if quick else (64, 256), 2, dev,
               rounds, out, quick)


def _forced_var(candidate):
    """A stand-in for the var launcher's tile_config forcing ``candidate`` on rows of 1024."""
    tile_config = kvar.tile_config

    def forced(n_rows, n_cols, *args, **kw):
        if n_cols != 1024:
            return tile_config(n_rows, n_cols, *args, **kw)
        block_m, block_n, warps = candidate
        return {"BLOCK_M": block_m, "BLOCK_N": block_n, "num_warps": warps}

    return forced


def time_var(x, candidate, dev: str, repeats: int) -> float:
    saved = kvar.tile_config
    if candidate is not None:
        kvar.tile_config = _forced_var(candidate)
    _replay.plans.clear()  # (a replayed launch would repeat the previous candidate's configuration)
    try:
        return harness.time_fn(lambda: tl.var_mean(x, -1), dev, repeats, read_only=True)
    finally:
        kvar.tile_config = saved
        _replay.plans.clear()


def sweep_var(dev: str, rounds: int, out: str | None, quick: bool) -> None:
    # GB/s of the read, as bench/reductions.py counts var_mean
    sweep_rows("var", VAR_CANDIDATES, time_var, 1024, (1 / 64,) if quick else (64, 256), 1, dev, rounds, out,
               quick)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("what", nargs="*", help="sum, matmul, softmax and/or var (default: all)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--out", default=None)
    p.add_argument("--quick", action="store_true", help="tiny sizes, 2 repeats (smoke test)")
    p.add_argument("--allow-interpreted", action="store_true", help="allow interpreted cuda (smoke tests only)")
    p.add_argument("--l2-flush", choices=harness.L2_FLUSH_MODES, default=None,
                   help="how each sample flushes L2 (default: steady; see bench/harness.py's l2_flush)")
    args = p.parse_args(argv)
    if args.l2_flush:
        os.environ[harness.L2_FLUSH_ENV] = args.l2_flush
    sweeps = {"sum": sweep_sum, "matmul": sweep_matmul, "softmax": sweep_softmax, "var": sweep_var}
    unknown = sorted(set(args.what) - set(sweeps))
    if unknown:
        p.error(f"unknown sweep(s) {unknown}; choose from {sorted(sweeps)}")
    dev = "cuda"
    if tl.cuda.is_interpreted() and not args.allow_interpreted:
        p.error("needs a real GPU: interpreted cuda times Python, not kernels (--allow-interpreted for smoke tests)")
    emit(args.out, section="device", device=harness.device_name(dev), l2_flush=harness.l2_flush_mode())
    for what in args.what or list(sweeps):
        sweeps[what](dev, args.rounds, args.out, args.quick)
    return 0


if __name__ == "__main__":
    sys.exit(main())
