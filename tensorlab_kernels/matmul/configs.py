"""The launch-configuration space of the GEMM kernel, and the shape heuristic that picks one.

The space is data (``CONFIGS``): the autotuner searches it, :func:`pick_config` picks from it
without measuring. Each entry is a dict of the kernel's tile constexprs (``BLOCK_M``, ``BLOCK_N``,
``BLOCK_K``, ``GROUP_M``) and the launch options ``num_warps``/``num_stages``. A configuration given
to the launcher (``gemm.matmul(config=...)``) may also hold ``PROGRAMS_PER_SM``: the persistent
kernel, that many programs per SM each looping over tiles. None of the declared entries does yet:
it has not been measured on a GPU (``tools/sweep_configs.py matmul`` times it).

Three families, because the inner product is different hardware in each:

- ``"mma16"``: fp16/bf16 on tensor cores. The Triton matmul tutorial's Hopper winners: 128x256
  or 128x128 tiles, 64-wide K steps, 3-4 pipeline stages, 8 warps, GROUP_M=8 (an L2-friendly
  launch order). Smaller tiles for skinny problems, where big tiles leave SMs idle.
- ``"fp32"``: fp32 inputs, on tensor cores as TF32 when the precision is ``"high"``, else on the
  FMA units (``input_precision="ieee"``); 4-byte elements halve the K step that fits in shared
  memory.
- ``"fp64"``: no tensor-core path; a broadcast multiply-and-sum over small tiles (the 3-D
  product BLOCK_M x BLOCK_K x BLOCK_N lives in registers, so tiles stay small).

The heuristic estimates the time of each candidate as (waves of tiles over the SMs) x (work per
tile / relative tile efficiency) and takes the fastest: big tiles win when there are enough of
them to fill the machine, smaller tiles win on skinny shapes (M = 8192, N = 768 gives 192 tiles
of 128x256 — 1.45 waves on 132 SMs — but 384 tiles of 128x128, 2.9 waves).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ..launch import INTERPRET


def _c(bm, bn, bk, group, warps, stages, eff):
    return {"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": group, "num_warps": warps,
            "num_stages": stages, "_efficiency": eff}


# ``_efficiency``: relative throughput of one SM on a tile of that size (bigger tiles reuse each
# loaded element more often); only the heuristic reads it, the autotuner measures instead.
_SPACE = {
    "mma16": [
        _c(128, 256, 64, 8, 8, 3, 1.00),
        _c(256, 128, 64, 8, 8, 3, 1.00),
        _c(128, 128, 64, 8, 8, 4, 0.88),
        _c(128, 128, 64, 8, 8, 3, 0.88),  # narrow N, short K (see _pick_config)
        _c(128, 128, 64, 1, 8, 4, 0.88),  # narrow N, long K: row-major launch order
        _c(128, 128, 64, 8, 4, 4, 0.85),
        _c(128, 64, 64, 8, 4, 4, 0.70),
        _c(64, 128, 64, 8, 4, 4, 0.70),
        _c(64, 64, 64, 8, 4, 4, 0.50),
        _c(128, 32, 64, 8, 4, 4, 0.45),
        _c(32, 128, 64, 8, 4, 4, 0.45),
        _c(64, 32, 64, 8, 4, 5, 0.35),
        _c(32, 64, 64, 8, 4, 5, 0.35),
        _c(16, 64, 128, 8, 4, 4, 0.25),
        _c(64, 16, 128, 8, 4, 4, 0.25),
        _c(16, 16, 128, 8, 2, 4, 0.10),
    ],
    "fp32": [
        _c(128, 128, 32, 8, 8, 3, 1.00),
        _c(128, 64, 32, 8, 4, 4, 0.75),
        _c(64, 128, 32, 8, 4, 4, 0.75),
        _c(64, 64, 32, 8, 4, 4, 0.55),
        _c(64, 32, 32, 8, 4, 4, 0.35),
        _c(32, 64, 32, 8, 4, 4, 0.35),
        _c(16, 64, 64, 8, 4, 3, 0.25),
        _c(64, 16, 64, 8, 4, 3, 0.25),
        _c(16, 16, 64, 8, 2, 3, 0.10),
    ],
    "fp64": [
        _c(64, 64, 4, 8, 8, 2, 1.00),
        _c(32, 32, 8, 8, 4, 2, 0.70),
        _c(32, 16, 8, 8, 4, 2, 0.45),
        _c(16, 32, 8, 8, 4, 2, 0.45),
        _c(16, 16, 16, 8, 4, 2, 0.25),
    ],
}

#: Every declared configuration, with the family it belongs to (what the autotuner iterates).
CONFIGS = [{"family": fam, **{k: v for k, v in c.items() if not k.startswith("_")}}
           for fam, space in _SPACE.items() for c in space]


def family(dtype) -> str:
    """Which configuration family a dtype uses (``mma16``, ``fp32`` or ``fp64``)."""
    dt = np.dtype(dtype)
    if dt.itemsize == 2:
        return "mma16"
    if dt == np.float32:
        return "fp32"
    if dt == np.float64:
        return "fp64"
    raise NotImplementedError(f"matmul kernel: no configurations for dtype {dt}")


def configs_for(dtype) -> list[dict]:
    """The declared configurations that apply to ``dtype`` (launch-ready dicts)."""
    fam = family(dtype)
    return [{k: v for k, v in c.items() if k != "family"} for c in CONFIGS if c["family"] == fam]


def _pow2_clamp(n: int, lo: int, hi: int) -> int:
    return max(lo, min(hi, 1 << max(int(n) - 1, 0).bit_length()))


def pick_config(M: int, N: int, K: int, dtype, batch: int = 1, num_sms: int = 132) -> dict:
    """One launch configuration for a ``batch`` of (M x K) @ (K x N) products in ``dtype``."""
    return dict(_pick_config(M, N, K, np.dtype(dtype), batch, num_sms))  # a copy: callers may change theirs


@functools.lru_cache(maxsize=4096)  # every matmul launch asks; a model has few distinct shapes
def _pick_config(M: int, N: int, K: int, dtype: np.dtype, batch: int, num_sms: int) -> dict:
    fam = family(dtype)
    if INTERPRET:
        # The interpreter runs one program instance at a time in Python, so the cost is per
        # program and per op, nearly independent of the tile size: cover the problem with as few,
        # as large tiles as numpy handles well. Tiles stay >= 16 (tl.dot's minimum).
        hi_mn, hi_k = (64, 32) if fam == "fp64" else (128, 128)
        return {"BLOCK_M": _pow2_clamp(M, 16, hi_mn), "BLOCK_N": _pow2_clamp(N, 16, hi_mn),
                "BLOCK_K": _pow2_clamp(K, 16, hi_k), "GROUP_M": 8, "num_warps": 4, "num_stages": 1}
    best, best_cost = None, math.inf
    for c in _SPACE[fam]:
        tiles = math.ceil(M / c["BLOCK_M"]) * math.ceil(N / c["BLOCK_N"]) * max(batch, 1)
        waves = math.ceil(tiles / num_sms)
        # time ~ waves x work per tile / efficiency; a K step wider than K wastes the loads
        k_waste = max(1.0, c["BLOCK_K"] / max(K, 1))
        cost = waves * c["BLOCK_M"] * c["BLOCK_N"] * k_waste / c["_efficiency"]
        if cost < best_cost:
            best, best_cost = c, cost
    cfg = {k: v for k, v in best.items() if not k.startswith("_")}
    if fam == "mma16" and cfg["BLOCK_M"] == cfg["BLOCK_N"] == 128 and cfg["num_stages"] > 3 and N <= 1024:
        # Narrow outputs on 128x128 tiles (N <= 1024: at most 8 tile-columns), measured on an H100
        # (the median of three interleaved rounds, bf16/fp16, M = 8192): with a short K loop (K <= 1024)
        # three stages fill the pipeline sooner than four (391/388 TFLOP/s against 366/363 at K = 768);
        # with a long one, launching the tiles row by row (GROUP_M = 1: all of B stays in L2 and each
        # row of A is read by neighbouring programs) beat groups of 8 rows (538/517 against 508/494
        # at K = 3072, 555/526 against 519/506 at K = 4096).
        if K <= 1024:
            cfg["num_stages"] = 3
        elif K >= 2048:
            cfg["GROUP_M"] = 1
    return cfg


__all__ = ["CONFIGS", "configs_for", "family", "pick_config"]
