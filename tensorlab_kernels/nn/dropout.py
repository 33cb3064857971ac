"""Dropout with a counter-based mask: ``out = x * keep / (1 - p)``, the mask never stored.

The keep/drop decision of element ``e`` (its logical row-major index in the whole tensor) is a
pure function of (seed, offset, e): lane ``e % 4`` of the Philox 4x32-10 block at counter
``offset + e // 4`` — the scheme of ``tensorlab_kernels.random`` (its ``bernoulli`` kind), so
the numpy twin reproduces the GPU's bits exactly and cpu and cuda drop the same elements for
the same (seed, offset). An element is dropped when its top 24 random bits are below
``threshold = round(p * 2**24)``: an integer comparison, exact on every backend (``p = 1``
drops everything, ``p = 0`` nothing).

Because the mask can be regenerated, the backward is this same kernel applied to the incoming
gradient with the same (seed, offset, threshold, scale): ``dx = dy * keep / (1 - p)``. Nothing
is kept between forward and backward but four integers.

As PyTorch, a dropped element is ``x * 0`` (so NaN and inf stay NaN), and the product is taken
in fp32 (fp64 for fp64 tensors). The input is read and the output written through their
strides (in place is the same geometry for both).

Layout of this file: kernels, launcher, numpy twin.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from ..fill import float64_bits
from ..launch import INTERPRET, cdiv, launch
from ..random import philox4x32, seed_argument
from ..reduction.common import cast_to, float_acc, host_cast
from ..reduction.common import tl_dtype as _tl_dtype
from ..strided import offsets, strided_layout

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _apply_lane(out_ptr, x_ptr, r, local, n, threshold, scale,
                size1, size2, size3, size4, size5, xs0, xs1, xs2, xs3, xs4, xs5, os0, os1, os2, os3, os4, os5,
                NDIM: tl.constexpr, X_CONTIGUOUS: tl.constexpr, OUT_CONTIGUOUS: tl.constexpr, ACC: tl.constexpr):
    # ``local``: element indices within this launch's piece (negative or >= n: another piece's)
    mask = (local >= 0) & (local < n)
    keep = (r >> 8).to(tl.int32) >= threshold
    m = tl.where(keep, scale, 0.0)
    if X_CONTIGUOUS:
        x_off = local
    else:
        x_off = offsets(local, size1, size2, size3, size4, size5, xs0, xs1, xs2, xs3, xs4, xs5, NDIM)
    x = tl.load(x_ptr + x_off, mask=mask, other=0).to(ACC)
    y = x * m  # x * 0 for a dropped element: NaN stays NaN, as PyTorch's multiply by the mask
    if OUT_CONTIGUOUS:
        o_off = local
    else:
        o_off = offsets(local, size1, size2, size3, size4, size5, os0, os1, os2, os3, os4, os5, NDIM)
    tl.store(out_ptr + o_off, cast_to(y, out_ptr.dtype.element_ty), mask=mask)


@triton.jit(do_not_specialize=["seed", "offset", "start", "first_counter", "threshold"])
def _dropout_kernel(
    out_ptr, x_ptr,
    n,  # elements in this launch's piece
    start, first_counter,  # the piece's first logical element index, and start // 4
    seed, offset,  # Philox key; counter of element 0 of the whole tensor
    threshold,  # dropped when the top 24 random bits are < threshold
    scale_bits: tl.int64,  # 1 / (1 - p) as the bits of an fp64 (0 for p = 1)
    size1, size2, size3, size4, size5,  # piece sizes (dim 5 innermost)
    xs0, xs1, xs2, xs3, xs4, xs5,  # input strides
    os0, os1, os2, os3, os4, os5,  # output strides
    NDIM: tl.constexpr, X_CONTIGUOUS: tl.constexpr, OUT_CONTIGUOUS: tl.constexpr, ACC: tl.constexpr,
    BLOCK: tl.constexpr,
):
    # One Philox call per counter gives the random bits of four consecutive elements.
    c = first_counter + tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK).to(tl.int64)
    r0, r1, r2, r3 = tl.randint4x(seed, c + offset)
    scale = tl.cast(scale_bits, tl.int64).to(tl.float64, bitcast=True).to(ACC)
    base = c * 4 - start
    _apply_lane(out_ptr, x_ptr, r0, base, n, threshold, scale, size1, size2, size3, size4, size5,
                xs0, xs1, xs2, xs3, xs4, xs5, os0, os1, os2, os3, os4, os5, NDIM, X_CONTIGUOUS, OUT_CONTIGUOUS, ACC)
    _apply_lane(out_ptr, x_ptr, r1, base + 1, n, threshold, scale, size1, size2, size3, size4, size5,
                xs0, xs1, xs2, xs3, xs4, xs5, os0, os1, os2, os3, os4, os5, NDIM, X_CONTIGUOUS, OUT_CONTIGUOUS, ACC)
    _apply_lane(out_ptr, x_ptr, r2, base + 2, n, threshold, scale, size1, size2, size3, size4, size5,
                xs0, xs1, xs2, xs3, xs4, xs5, os0, os1, os2, os3, os4, os5, NDIM, X_CONTIGUOUS, OUT_CONTIGUOUS, ACC)
    _apply_lane(out_ptr, x_ptr, r3, base + 3, n, threshold, scale, size1, size2, size3, size4, size5,
                xs0, xs1, xs2, xs3, xs4, xs5, os0, os1, os2, os3, os4, os5, NDIM, X_CONTIGUOUS, OUT_CONTIGUOUS, ACC)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------

CONFIGS = [{"BLOCK": b, "num_warps": w} for b, w in ((256, 4), (512, 4), (1024, 8))]


def threshold_for(p: float) -> int:
    """The integer drop threshold of probability ``p`` (dropped: 24-bit value < threshold)."""
    return int(round(float(p) * (1 << 24)))


def scale_for(p: float) -> float:
    return 0.0 if p >= 1.0 else 1.0 / (1.0 - float(p))


def _check(seed: int, offset: int, threshold: int) -> None:
    if not (0 <= seed < 2**64 and 0 <= offset < 2**63):
        raise ValueError(f"dropout: seed {seed} must be in [0, 2**64) and offset {offset} in [0, 2**63)")
    if not 0 <= threshold <= 1 << 24:
        raise ValueError(f"dropout: threshold {threshold} must be in [0, 2**24]")


def dropout(out, x, *, seed: int, offset: int, threshold: int, scale: float) -> None:
    """``out = x * keep * scale`` with ``keep`` drawn from (seed, offset) as described above."""
    _check(seed, offset, threshold)
    if out.numel == 0:
        return
    block = 4096 if INTERPRET else 256  # counters per program (x4 elements)
    acc = _tl_dtype(float_acc(x.dtype))
    # Indices are int64 throughout (the Philox counter is 64-bit anyway). A view with more than six
    # non-mergeable dims comes in pieces: consecutive runs of ``p.numel`` logical indices each.
    for k, p in enumerate(strided_layout(out.shape, x.strides, out.strides)):
        start = k * p.numel
        first = start // 4
        counters = cdiv(start + p.numel, 4) - first
        launch(
            _dropout_kernel, (cdiv(counters, block),),
            out.view(out.shape, out.strides, out.offset + p.offsets[1]),
            x.view(x.shape, x.strides, x.offset + p.offsets[0]),
            p.numel, start, first, seed_argument(seed), offset, threshold, float64_bits(scale),
            *p.sizes[1:], *p.strides[0], *p.strides[1],
            NDIM=p.ndim, X_CONTIGUOUS=p.contiguous(0), OUT_CONTIGUOUS=p.contiguous(1),
            ACC=acc, BLOCK=block, num_warps=4,
        )


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def keep_mask(n: int, seed: int, offset: int, threshold: int) -> np.ndarray:
    """The keep decisions of elements 0..n-1 (bool), bit-identical to the kernel's."""
    counters = np.arange(cdiv(n, 4), dtype=np.uint64) + np.uint64(offset)
    r = np.stack(philox4x32(seed, counters), axis=1).reshape(-1)[:n]
    return (r >> np.uint32(8)).astype(np.int64) >= threshold


def dropout_twin(out, x, *, seed: int, offset: int, threshold: int, scale: float) -> None:
    _check(seed, offset, threshold)
    acc = float_acc(x.dtype)
    keep = keep_mask(out.size, seed, offset, threshold).reshape(out.shape)
    m = np.where(keep, acc.type(scale), acc.type(0))
    with np.errstate(invalid="ignore", over="ignore"):
        out[...] = host_cast(np.asarray(x, dtype=acc) * m, out.dtype)
