"""Counter-based random numbers (Philox 4x32-10): kernels and their numpy twins.

A generator is just (seed, offset). Random value ``i`` of a call is a pure function of
(seed, offset + i // k, lane), so kernels keep no state, any block order gives the same bits,
and the numpy twin below reproduces the GPU's bits exactly (Triton's ``tl.randint4x`` is
Philox 4x32 with 10 rounds: counter (lo, hi, 0, 0), key (seed lo, seed hi)). The float maps
applied to the bits use the same formulas on both sides, so values agree to the last bit
for uniforms and to rounding of sin/cos/log for normals.

Schemes (values per counter ``k``):
  uniform  fp32/fp16/bf16: 4, one 32-bit lane each, ``(r >> (32 - m)) * 2**-m`` with m the
           format's significand bits, so values are exact and never round up to 1.0
  uniform  fp64: 2, two lanes each (53 bits)
  normal   (Box-Muller): 2 per counter; fp64 uses 53-bit uniforms
  randint  2, two lanes each (a 64-bit draw, reduced modulo the range)
  bernoulli 4, like the fp32 uniform
"""

from __future__ import annotations

import math

import numpy as np

from ._triton import tl, triton
from .launch import INTERPRET, cdiv, launch

PHILOX_KEY_A, PHILOX_KEY_B = 0x9E3779B9, 0xBB67AE85
PHILOX_ROUND_A, PHILOX_ROUND_B = 0xD2511F53, 0xCD9E8D57

VALUES_PER_COUNTER = {"uniform": 4, "uniform64": 2, "normal": 2, "randint": 2, "bernoulli": 4}


def mantissa_bits(dtype) -> int:
    dtype = np.dtype(dtype)
    if dtype == np.float16:
        return 11
    if dtype.name == "bfloat16":
        return 8
    return 24


def counters_needed(kind: str, n: int) -> int:
    return cdiv(n, VALUES_PER_COUNTER[kind])


# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit(do_not_specialize=["seed", "offset", "low_bits", "high_bits", "top", "top_bits"])
def _uniform_kernel(out_ptr, n, seed, offset, low, high, low_bits, high_bits, top, top_bits, MANT: tl.constexpr,
                    F64: tl.constexpr, BLOCK: tl.constexpr):
    # ``top``: the largest value of the output dtype below ``high``. low + u * span may round up to
    # ``high`` itself (in float32 arithmetic, or when rounded to float16/bfloat16: uniform_(100, 101)
    # in float16 gave 101 for 1 value in 32), which [low, high) excludes: such a value is ``top``.
    c = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    r0, r1, r2, r3 = tl.randint4x(seed, c + offset)
    if F64:
        scale = 1.0 / 9007199254740992.0  # 2**-53
        u0 = ((r0 >> 5).to(tl.float64) * 67108864.0 + (r1 >> 6).to(tl.float64)) * scale
        u1 = ((r2 >> 5).to(tl.float64) * 67108864.0 + (r3 >> 6).to(tl.float64)) * scale
        # (the bounds as float64 bit patterns: a Python float argument reaches a kernel as float32)
        lo = low_bits.to(tl.int64).to(tl.float64, bitcast=True)
        span = high_bits.to(tl.int64).to(tl.float64, bitcast=True) - lo
        top64 = top_bits.to(tl.int64).to(tl.float64, bitcast=True)
        base = c * 2
        v = lo + u0 * span
        tl.store(out_ptr + base, tl.where(v > top64, top64, v), mask=base < n)
        v = lo + u1 * span
        tl.store(out_ptr + base + 1, tl.where(v > top64, top64, v), mask=base + 1 < n)
    else:
        scale = 1.0 / (1 << MANT)
        base = c * 4
        ty = out_ptr.dtype.element_ty
        u = (r0 >> (32 - MANT)).to(tl.float32) * scale
        v = (low + u * (high - low)).to(ty).to(tl.float32)  # (on the output's grid)
        tl.store(out_ptr + base, tl.where(v > top, top, v).to(ty), mask=base < n)
        u = (r1 >> (32 - MANT)).to(tl.float32) * scale
        v = (low + u * (high - low)).to(ty).to(tl.float32)  # (on the output's grid)
        tl.store(out_ptr + base + 1, tl.where(v > top, top, v).to(ty), mask=base + 1 < n)
        u = (r2 >> (32 - MANT)).to(tl.float32) * scale
        v = (low + u * (high - low)).to(ty).to(tl.float32)  # (on the output's grid)
        tl.store(out_ptr + base + 2, tl.where(v > top, top, v).to(ty), mask=base + 2 < n)
        u = (r3 >> (32 - MANT)).to(tl.float32) * scale
        v = (low + u * (high - low)).to(ty).to(tl.float32)  # (on the output's grid)
        tl.store(out_ptr + base + 3, tl.where(v > top, top, v).to(ty), mask=base + 3 < n)


@triton.jit(do_not_specialize=["seed", "offset", "mean_bits", "std_bits"])
def _normal_kernel(out_ptr, n, seed, offset, mean, std, mean_bits, std_bits, F64: tl.constexpr,
                   BLOCK: tl.constexpr):
    c = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    r0, r1, r2, r3 = tl.randint4x(seed, c + offset)
    two_pi = 6.283185307179586
    if F64:
        scale = 1.0 / 9007199254740992.0
        u1 = ((r0 >> 5).to(tl.float64) * 67108864.0 + (r1 >> 6).to(tl.float64) + 1.0) * scale  # (0, 1]
        u2 = ((r2 >> 5).to(tl.float64) * 67108864.0 + (r3 >> 6).to(tl.float64)) * scale
        rad = tl.sqrt(-2.0 * tl.log(u1))
        # (2 pi to float64 precision, from its bits: a float literal in a kernel is float32)
        two_pi64 = tl.full([1], 4618760256179416344, tl.int64).to(tl.float64, bitcast=True)
        z0 = rad * tl.cos(two_pi64 * u2)
        z1 = rad * tl.sin(two_pi64 * u2)
    else:
        scale = 1.0 / 16777216.0
        u1 = ((r0 >> 8).to(tl.float32) + 1.0) * scale  # (0, 1]: log is finite
        u2 = (r1 >> 8).to(tl.float32) * scale
        rad = tl.sqrt(-2.0 * tl.log(u1))
        z0 = rad * tl.cos(two_pi * u2)
        z1 = rad * tl.sin(two_pi * u2)
    ty = out_ptr.dtype.element_ty
    base = c * 2
    if F64:  # (mean and std as float64 bit patterns, as the uniform kernel's bounds)
        m = mean_bits.to(tl.int64).to(tl.float64, bitcast=True)
        sd = std_bits.to(tl.int64).to(tl.float64, bitcast=True)
        tl.store(out_ptr + base, m + sd * z0, mask=base < n)
        tl.store(out_ptr + base + 1, m + sd * z1, mask=base + 1 < n)
    else:
        tl.store(out_ptr + base, (mean + std * z0).to(ty), mask=base < n)
        tl.store(out_ptr + base + 1, (mean + std * z1).to(ty), mask=base + 1 < n)


@triton.jit(do_not_specialize=["seed", "offset", "low", "span"])
def _randint_kernel(out_ptr, n, seed, offset, low, span, FULL: tl.constexpr, BLOCK: tl.constexpr):
    # FULL: the span is 2**64 (every int64: random_(-2**63, None)), which no uint64 holds; every
    # 64-bit draw is then a value as it is
    c = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    r0, r1, r2, r3 = tl.randint4x(seed, c + offset)
    a = (r0.to(tl.uint64) << 32) | r1.to(tl.uint64)
    b = (r2.to(tl.uint64) << 32) | r3.to(tl.uint64)
    if not FULL:
        span64 = span.to(tl.uint64)
        a = a % span64
        b = b % span64
    ty = out_ptr.dtype.element_ty
    va = low + a.to(tl.int64)
    vb = low + b.to(tl.int64)
    if (ty == tl.float16) or (ty == tl.bfloat16):  # int64 to a half type by way of float32 (the
        va = va.to(tl.float32)  # interpreter bit-casts a direct int64 -> bfloat16 conversion)
        vb = vb.to(tl.float32)
    base = c * 2
    tl.store(out_ptr + base, va.to(ty), mask=base < n)
    tl.store(out_ptr + base + 1, vb.to(ty), mask=base + 1 < n)


@triton.jit(do_not_specialize=["seed", "offset"])
def _bernoulli_kernel(out_ptr, p_ptr, n, seed, offset, BLOCK: tl.constexpr):
    c = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    r0, r1, r2, r3 = tl.randint4x(seed, c + offset)
    scale = 1.0 / 16777216.0
    ty = out_ptr.dtype.element_ty
    base = c * 4
    p = tl.load(p_ptr + base, mask=base < n, other=0.0).to(tl.float32)
    tl.store(out_ptr + base, ((r0 >> 8).to(tl.float32) * scale < p).to(ty), mask=base < n)
    p = tl.load(p_ptr + base + 1, mask=base + 1 < n, other=0.0).to(tl.float32)
    tl.store(out_ptr + base + 1, ((r1 >> 8).to(tl.float32) * scale < p).to(ty), mask=base + 1 < n)
    p = tl.load(p_ptr + base + 2, mask=base + 2 < n, other=0.0).to(tl.float32)
    tl.store(out_ptr + base + 2, ((r2 >> 8).to(tl.float32) * scale < p).to(ty), mask=base + 2 < n)
    p = tl.load(p_ptr + base + 3, mask=base + 3 < n, other=0.0).to(tl.float32)
    tl.store(out_ptr + base + 3, ((r3 >> 8).to(tl.float32) * scale < p).to(ty), mask=base + 3 < n)


# ----------------------------------------------------------------------------------------------
# Launchers (outputs are contiguous DeviceArrays; ``offset`` is the generator's counter offset)
# ----------------------------------------------------------------------------------------------


def _grid(counters: int) -> tuple[int, dict]:
    block = 4096 if INTERPRET else 256
    return (cdiv(counters, block),), {"BLOCK": block}


def _check_seed(seed: int, offset: int) -> None:
    if not (0 <= seed < 2**64 and 0 <= offset < 2**63):
        raise ValueError(f"philox: seed {seed} must be in [0, 2**64) and offset {offset} in [0, 2**63)")


def seed_argument(seed: int) -> int:
    """A uint64 seed as the int64 with its bits (a kernel argument is int64; ``tl.randint4x`` takes the
    bits back as uint64, so the key is the same as the twin's)."""
    return seed - (1 << 64) if seed >= 1 << 63 else seed


def uniform(out, seed: int, offset: int, low: float = 0.0, high: float = 1.0) -> None:
    _check_seed(seed, offset)
    n = out.numel
    f64 = out.dtype == np.float64
    grid, meta = _grid(counters_needed("uniform64" if f64 else "uniform", n))
    top = largest_below(high, low, out.dtype)
    launch(_uniform_kernel, grid, out, n, seed_argument(seed), offset, float(low), float(high), _f64_bits(low),
           _f64_bits(high), top, _f64_bits(top), MANT=mantissa_bits(out.dtype), F64=f64, **meta)


def normal(out, seed: int, offset: int, mean: float = 0.0, std: float = 1.0) -> None:
    _check_seed(seed, offset)
    n = out.numel
    grid, meta = _grid(counters_needed("normal", n))
    launch(_normal_kernel, grid, out, n, seed_argument(seed), offset, float(mean), float(std), _f64_bits(mean),
           _f64_bits(std), F64=out.dtype == np.float64, **meta)


def randint(out, seed: int, offset: int, low: int, high: int) -> None:
    _check_seed(seed, offset)
    n = out.numel
    grid, meta = _grid(counters_needed("randint", n))
    full = high - low == 1 << 64
    launch(_randint_kernel, grid, out, n, seed_argument(seed), offset, int(low), 0 if full else int(high - low),
           FULL=full, **meta)


def bernoulli(out, p, seed: int, offset: int) -> None:
    _check_seed(seed, offset)
    n = out.numel
    grid, meta = _grid(counters_needed("bernoulli", n))
    launch(_bernoulli_kernel, grid, out, p, n, seed_argument(seed), offset, **meta)


# ----------------------------------------------------------------------------------------------
# Numpy twins (same arguments, numpy output arrays; bit-identical Philox)
# ----------------------------------------------------------------------------------------------


def philox4x32(seed: int, counters: np.ndarray, rounds: int = 10) -> tuple[np.ndarray, ...]:
    """Philox 4x32 on counters (lo, hi, 0, 0) with key (seed lo, seed hi), like ``tl.randint4x``."""
    # Every lane is held in uint64 (values < 2**32): a 32x32-bit product then fits without casts,
    # and the words are cut back to uint32 once at the end.
    mask = np.uint64(0xFFFFFFFF)
    counters = counters.astype(np.uint64, copy=False)
    c0 = counters & mask
    c1 = counters >> np.uint64(32)
    c2 = np.zeros_like(c0)
    c3 = np.zeros_like(c0)
    k0, k1 = seed & 0xFFFFFFFF, (seed >> 32) & 0xFFFFFFFF
    a, b, shift = np.uint64(PHILOX_ROUND_A), np.uint64(PHILOX_ROUND_B), np.uint64(32)
    for _ in range(rounds):
        prod_b = c2 * b
        prod_a = c0 * a
        c0 = (prod_b >> shift) ^ c1 ^ np.uint64(k0)
        c2 = (prod_a >> shift) ^ c3 ^ np.uint64(k1)
        c1 = prod_b & mask
        c3 = prod_a & mask
        k0 = (k0 + PHILOX_KEY_A) & 0xFFFFFFFF
        k1 = (k1 + PHILOX_KEY_B) & 0xFFFFFFFF
    return tuple(c.astype(np.uint32) for c in (c0, c1, c2, c3))


def _lanes(seed: int, offset: int, kind: str, n: int) -> list[np.ndarray]:
    counters = np.arange(counters_needed(kind, n), dtype=np.uint64) + np.uint64(offset)
    return list(philox4x32(seed, counters))


def uniform_twin(out: np.ndarray, seed: int, offset: int, low: float = 0.0, high: float = 1.0) -> None:
    _check_seed(seed, offset)
    n = out.size
    if out.dtype == np.float64:
        r = _lanes(seed, offset, "uniform64", n)
        scale = 2.0**-53
        u0 = ((r[0] >> 5).astype(np.float64) * 67108864.0 + (r[1] >> 6).astype(np.float64)) * scale
        u1 = ((r[2] >> 5).astype(np.float64) * 67108864.0 + (r[3] >> 6).astype(np.float64)) * scale
        u = np.stack([u0, u1], axis=1).reshape(-1)[:n]
        lo = np.float64(low)
        top = np.float64(largest_below(high, low, out.dtype))
        with np.errstate(over="ignore", invalid="ignore"):
            v = lo + u * (np.float64(high) - lo)
        out.reshape(-1)[...] = np.where(v > top, top, v)
        return
    mant = mantissa_bits(out.dtype)
    r = np.stack(_lanes(seed, offset, "uniform", n), axis=1).reshape(-1)[:n]
    u = (r >> np.uint32(32 - mant)).astype(np.float32) * np.float32(2.0**-mant)
    lo, span = _f32_scalars(low, high)
    v = (lo + u * span).astype(out.dtype)
    top = np.float32(largest_below(high, low, out.dtype))
    out.reshape(-1)[...] = np.where(v.astype(np.float32) > top, top.astype(out.dtype), v)


def largest_below(high: float, low: float, np_dtype) -> float:
    """The largest value of ``np_dtype`` below ``high`` (``high`` itself when ``high <= low``: the
    interval is a point then), so a draw of [low, high) never rounds up to ``high``."""
    dt = np.dtype(np_dtype)
    a = np.array(high, dtype=dt)  # (nearest, maybe above high)
    if not high > low or np.isnan(a):
        return float(a)
    bits = {2: np.uint16, 4: np.uint32, 8: np.uint64}[dt.itemsize]
    sign = bits(1) << bits(8 * dt.itemsize - 1)
    while float(a) >= high:
        b = a.view(bits)
        if float(a) > 0:
            b = b - bits(1)
        elif float(a) == 0:  # (below +0 and -0: the smallest negative subnormal)
            b = sign | bits(1)
        else:
            b = b + bits(1)
        a = np.array(b, dtype=bits).view(dt)
    return float(a)


def _f64_bits(x: float) -> int:
    """``x`` as the signed int64 of its float64 bits: how a float64 scalar reaches a kernel exactly."""
    return int(np.array(float(x), dtype=np.float64).view(np.int64))


def _f32_scalars(low: float, high: float) -> tuple[np.float32, np.float32]:
    lo, hi = np.float32(low), np.float32(high)
    return lo, np.float32(hi - lo)


def normal_twin(out: np.ndarray, seed: int, offset: int, mean: float = 0.0, std: float = 1.0) -> None:
    _check_seed(seed, offset)
    n = out.size
    r = _lanes(seed, offset, "normal", n)
    if out.dtype == np.float64:
        scale = 2.0**-53
        u1 = ((r[0] >> 5).astype(np.float64) * 67108864.0 + (r[1] >> 6).astype(np.float64) + 1.0) * scale
        u2 = ((r[2] >> 5).astype(np.float64) * 67108864.0 + (r[3] >> 6).astype(np.float64)) * scale
        ft = np.float64
    else:
        ft = np.float32
        scale = ft(2.0**-24)
        u1 = ((r[0] >> 8).astype(ft) + ft(1.0)) * scale
        u2 = (r[1] >> 8).astype(ft) * scale
    rad = np.sqrt(ft(-2.0) * np.log(u1))
    theta = ft(2 * math.pi) * u2
    z = np.stack([rad * np.cos(theta), rad * np.sin(theta)], axis=1).reshape(-1)[:n]
    if out.dtype == np.float64:
        out.reshape(-1)[...] = np.float64(mean) + np.float64(std) * z
    else:
        out.reshape(-1)[...] = (ft(np.float32(mean)) + ft(np.float32(std)) * z).astype(out.dtype)


def randint_twin(out: np.ndarray, seed: int, offset: int, low: int, high: int) -> None:
    _check_seed(seed, offset)
    n = out.size
    r = [x.astype(np.uint64) for x in _lanes(seed, offset, "randint", n)]
    a = (r[0] << np.uint64(32)) | r[1]
    b = (r[2] << np.uint64(32)) | r[3]
    if high - low != 1 << 64:  # (a span of 2**64, every int64, takes every 64-bit draw as it is)
        span = np.uint64(high - low)
        a, b = a % span, b % span
    v = np.stack([a, b], axis=1).reshape(-1)[:n].astype(np.int64) + np.int64(low)
    out.reshape(-1)[...] = v.astype(out.dtype)


def bernoulli_twin(out: np.ndarray, p: np.ndarray, seed: int, offset: int) -> None:
    _check_seed(seed, offset)
    n = out.size
    r = np.stack(_lanes(seed, offset, "bernoulli", n), axis=1).reshape(-1)[:n]
    u = (r >> np.uint32(8)).astype(np.float32) * np.float32(2.0**-24)
    out.reshape(-1)[...] = (u < p.reshape(-1).astype(np.float32)).astype(out.dtype)
