"""What the reduction kernels share: the rows x columns view of a reduction, dtype maps, jit helpers.

The rows x columns view. Every reduction, softmax and scan in this package is computed as
"for each row, combine the elements of its columns". The *kept* dims of the input (the ones
the output keeps) enumerate the rows; the *reduced* dims enumerate the columns. Nothing is
moved or copied to get there: :func:`row_layout` splits the input's dims into the two groups,
collapses each group independently (adjacent dims that are contiguous with each other in
every operand merge into one), and pads each group to six (size, stride) pairs. In the kernel
a block of row indices becomes row offsets and a block of column indices becomes column
offsets, both through strides (:func:`dim_offsets`), and the tile's addresses are their outer
sum. A contiguous last-dim reduction is one kept dim and one reduced dim with stride 1 (no
index divisions at all); a reduction over a transposed or sliced input reads the same way.

Reduced dims whose order does not matter (sum, max, ... but not argmax, whose index is the
logical flat index) are sorted by stride first, so for example a full reduction of a
transposed matrix collapses to one stride-1 dim.
"""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..convert import cast_to as cast_to  # (the kernels of this package import it from here)
from ..convert import host_steps
from ..launch import INTERPRET, MAX_DIMS, collapse_dims, pad_dims
from ..strided import offsets

BF16 = np.dtype(ml_dtypes.bfloat16)

# ----------------------------------------------------------------------------------------------
# jit helpers
# ----------------------------------------------------------------------------------------------


@triton.jit
def dim_offsets(idx, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5, NDIM: tl.constexpr):
    """Element offsets of linear indices ``idx`` over up to six right-aligned dims.

    One dim needs no division, and keeps Triton's contiguity analysis intact (stride 1 is
    specialised, so a stride-1 block of offsets is seen as contiguous and loads vectorise).
    """
    if NDIM == 1:
        return idx * st5
    else:
        return offsets(idx, size1, size2, size3, size4, size5, st0, st1, st2, st3, st4, st5, NDIM)


@triton.jit
def first_column(INT64: tl.constexpr):
    """0 as the lower bound of a loop over a row's tiles: int64 under INT64, which makes the loop
    counter int64 (Triton types it by its bounds), so its last step past a row end near 2**31
    cannot wrap (launchers set INT64 then: ``launch.loop_needs_int64``)."""
    if INT64:
        return tl.full((), 0, tl.int64)
    else:
        return tl.full((), 0, tl.int32)


@triton.jit
def column_tile(start, BLOCK_N: tl.constexpr, INT64: tl.constexpr):
    """The columns ``start + [0, BLOCK_N)`` of a row tile, int64 under INT64: Triton types an integer
    argument below 2**31 (a stride) as int32, so ``cols * stride`` must get an int64 ``cols`` or it
    wraps in int32 before any widening."""
    cols = tl.arange(0, BLOCK_N)
    if INT64:
        return tl.cast(start, tl.int64) + cols.to(tl.int64)
    else:
        return start + cols


@triton.jit
def sqrt_rn(x):
    """Correctly rounded square root: ``tl.sqrt_rn`` is fp32-only; fp64 ``tl.sqrt`` is IEEE-rounded already."""
    if x.dtype.is_fp64():
        return tl.sqrt(x)
    else:
        return tl.sqrt_rn(x)


@triton.jit
def max_nan(a, b):
    """max that propagates NaN (PyTorch's max/amax do); works for integers too."""
    return tl.where((a > b) | (a != a), a, b)


@triton.jit
def min_nan(a, b):
    return tl.where((a < b) | (a != a), a, b)


@triton.jit
def max_rows(x):
    """Row maxima of a 2-D tile (axis 1), NaN-propagating. ``tl.max`` alone skips NaN on the GPU
    (and the interpreter uses ``np.nanmax``), so NaN is tracked beside it; both are built-in
    reductions (a custom ``tl.reduce`` combine runs element by element in the interpreter)."""
    r = tl.max(x, axis=1)
    if x.dtype.is_floating():
        r = tl.where(tl.max((x != x).to(tl.int32), axis=1) > 0, float("nan"), r)
    return r


@triton.jit
def min_rows(x):
    r = tl.min(x, axis=1)
    if x.dtype.is_floating():
        r = tl.where(tl.max((x != x).to(tl.int32), axis=1) > 0, float("nan"), r)
    return r


@triton.jit
def _multiply(a, b):
    return a * b


# The interpreter runs a custom ``tl.reduce`` combine element by element (very slow), so there the
# product folds by pairwise halving instead. On a GPU the halving's reshape/split chain is what is
# slow: for BLOCK_N = 2048 ptxas spilled 20 KB per thread and took 30 s to compile (sm_90, Triton
# 3.6, tools/compile_check.py), while ``tl.reduce`` compiles to the usual warp-shuffle tree.
PROD_BY_HALVING: tl.constexpr = tl.constexpr(rt.INTERPRET)


@triton.jit
def prod_rows(x, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Row products of a ``[BLOCK_M, BLOCK_N]`` tile (Triton has no built-in product reduction)."""
    if PROD_BY_HALVING:
        for k in tl.static_range(16):
            if (BLOCK_N >> k) > 1:
                a, b = tl.split(tl.reshape(x, [BLOCK_M, BLOCK_N >> (k + 1), 2]))
                x = a * b
        return tl.reshape(x, [BLOCK_M])
    else:
        return tl.reduce(x, 1, _multiply)


@triton.jit
def max_shift(m):
    """The shift of a shifted exp-sum (softmax, cross-entropy) for row maxima ``m``: ``m``, or 0 for
    a row with no finite maximum yet (all -inf, or empty)."""
    return tl.where(m == float("-inf"), 0.0, m)


@triton.jit
def last_column(x, cols, last):
    """The column ``last`` of a 2-D tile (``cols`` its column indices), as a row vector."""
    return tl.sum(tl.where(cols[None, :] == last, x, 0), axis=1)


# ----------------------------------------------------------------------------------------------
# dtypes
# ----------------------------------------------------------------------------------------------

_TL_BY_NAME = {
    "bool": tl.int1, "uint8": tl.uint8, "int8": tl.int8, "int16": tl.int16, "int32": tl.int32,
    "int64": tl.int64, "float16": tl.float16, "bfloat16": tl.bfloat16, "float32": tl.float32,
    "float64": tl.float64,
}


def tl_dtype(np_dtype):
    """Triton's dtype for a numpy dtype (ml_dtypes' bfloat16 included)."""
    t = _TL_BY_DTYPE.get(np_dtype)
    if t is None:  # numpy's dtype.name is Python code: asked once per dtype
        t = _TL_BY_DTYPE[np_dtype] = _TL_BY_NAME[np.dtype(np_dtype).name]
    return t


_TL_BY_DTYPE: dict = {}


def is_float(np_dtype) -> bool:
    d = np.dtype(np_dtype)
    return d.kind == "f" or d == BF16


def float_acc(np_dtype) -> np.dtype:
    """Accumulation dtype of a floating dtype: fp32 for fp16/bf16/fp32, fp64 for fp64."""
    return np.dtype(np.float64) if np.dtype(np_dtype) == np.float64 else np.dtype(np.float32)


def host_float(np_dtype) -> np.dtype:
    """What the numpy twins compute in for ``np_dtype`` (bf16 has no numpy arithmetic of its own)."""
    d = np.dtype(np_dtype)
    return np.dtype(np.float32) if d.itemsize <= 2 and is_float(d) else d


def host_cast(x: np.ndarray, dtype) -> np.ndarray:
    """numpy ``astype`` with the kernels' conversion rules (``cast_to``: double/int -> fp32 -> half,
    float -> int64 -> uint8; to bool ``x != 0``)."""
    dtype = np.dtype(dtype)
    if x.dtype == dtype:
        return x
    with np.errstate(invalid="ignore", over="ignore"):
        if dtype == np.bool_:
            return x != 0
        return host_steps(x, dtype).astype(dtype)


# ----------------------------------------------------------------------------------------------
# the rows x columns layout
# ----------------------------------------------------------------------------------------------


class RowLayout:
    """A strided problem as rows (kept dims) x columns (reduced dims), each collapsed and padded to six.

    ``kept_sizes``/``red_sizes``: six sizes each (right-aligned, padded with 1);
    ``kept_strides[i]``/``red_strides[i]``: six strides of operand ``i`` in each group;
    ``kept_ndim``/``red_ndim``: how many of the six are real; ``n_rows``/``n_cols``: products.
    """

    __slots__ = ("kept_sizes", "kept_strides", "kept_ndim", "red_sizes", "red_strides", "red_ndim", "n_rows",
                 "n_cols", "kept_shape", "kept_real", "red_shape", "red_real")

    def __init__(self, kept_shape, kept_strides, red_shape, red_strides):
        # the collapsed (unpadded) groups, for building related layouts (partials of a split)
        self.kept_shape, self.kept_real = tuple(kept_shape), [tuple(s) for s in kept_strides]
        self.red_shape, self.red_real = tuple(red_shape), [tuple(s) for s in red_strides]
        self.kept_ndim, self.red_ndim = len(kept_shape), len(red_shape)
        self.kept_sizes, self.kept_strides = pad_dims(kept_shape, kept_strides)
        self.red_sizes, self.red_strides = pad_dims(red_shape, red_strides)
        self.n_rows, self.n_cols = math.prod(kept_shape), math.prod(red_shape)

    def linear_stride(self, operand: int):
        """``c`` when operand ``operand``'s row offset is ``row * c`` (its kept dims are contiguous
        with row stride ``c``), else None."""
        real = self.kept_sizes[MAX_DIMS - self.kept_ndim:]
        strides = self.kept_strides[operand][MAX_DIMS - self.kept_ndim:]
        c, expected = None, 1
        for n, st in zip(reversed(real), reversed(strides)):
            if n == 1:
                continue
            if c is None:
                c = st
                expected = st
            if st != expected:
                return None
            expected *= n
        return 1 if c is None else c


def row_layout(shape, dims, kept_strides: list, red_strides: list, sort_reduced: bool = True) -> RowLayout | None:
    """Rows x columns of a problem over ``shape`` reducing ``dims``.

    ``kept_strides``: one stride list (over all of ``shape``'s dims) per operand that is read or
    written per row; ``red_strides``: one per operand that is indexed by columns too. Returns
    None when a group needs more than six dims after collapsing (the caller then copies).
    """
    dims = set(dims)
    kept = [d for d in range(len(shape)) if d not in dims]
    red = [d for d in range(len(shape)) if d in dims]
    if sort_reduced and red_strides:
        # order does not matter for the result: largest stride first lets more dims merge
        red.sort(key=lambda d: -abs(red_strides[0][d]))
    kshape, kstr = collapse_dims(tuple(shape[d] for d in kept), *[tuple(s[d] for d in kept) for s in kept_strides])
    rshape, rstr = collapse_dims(tuple(shape[d] for d in red), *[tuple(s[d] for d in red) for s in red_strides])
    if len(kshape) > MAX_DIMS or len(rshape) > MAX_DIMS:
        return None
    if kshape == (1,):
        # One row (a full reduction, a 1-D softmax): its stride is never used, so 0 rather than
        # collapse_dims' 1. Triton specialises an int argument of 0 as a multiple of 16, so the row
        # offset is known aligned and the column loads vectorise; with 1 they stay scalar (the
        # offset is then the program id, of unknown alignment).
        kstr = [(0,)] * len(kstr)
    return RowLayout(kshape, kstr, rshape, rstr)


def permuted_copy(inp, dims):
    """A contiguous copy of ``inp`` with the kept dims first and ``dims`` last, as a (rows, cols) array.

    Only for layouts that need more than six dims in one group after collapsing (a view with
    seven or more non-mergeable dims): one explicit copy, so the kernels stay six-dim.
    """
    from ..copy import strided_copy

    kept = [d for d in range(inp.ndim) if d not in dims]
    order = kept + [d for d in range(inp.ndim) if d in dims]
    shape = tuple(inp.shape[d] for d in order)
    tmp = rt.empty(shape, inp.dtype, inp.device)
    strided_copy(tmp, inp.view(shape, tuple(inp.strides[d] for d in order)))
    rows = math.prod(inp.shape[d] for d in kept)
    cols = math.prod(inp.shape[d] for d in dims)
    return tmp.view((rows, cols), (cols, 1)), kept


def contiguous_stand_in(a, copy: bool):
    """A contiguous array of ``a``'s shape and dtype (holding ``a``'s values when ``copy``) for a
    kernel that cannot address ``a``'s layout (a view with seven or more non-mergeable dims, as
    :func:`permuted_copy`); None for None. The caller copies results back with ``strided_copy``."""
    if a is None:
        return None
    from ..copy import strided_copy

    c = rt.empty(a.shape, a.dtype, a.device)
    if copy:
        strided_copy(c, a)
    return c


def out_strides(out, inp, dims) -> list:
    """``out``'s strides over the input's dims (0 for the reduced dims), keepdim or not: how a
    reduction's output is addressed as a kept operand of :func:`row_layout`."""
    return out_dims_strides(out.strides, inp.ndim, dims, out.ndim == inp.ndim)


def out_dims_strides(strides: tuple, ndim: int, dims, keepdim: bool) -> tuple:
    """:func:`out_strides` from the geometry alone: an output's ``strides`` over an input's
    ``ndim`` dims, reducing ``dims``."""
    result, j = [], 0
    for d in range(ndim):
        if d in dims:
            result.append(0)
            j += keepdim
        else:
            result.append(strides[j])
            j += 1
    return tuple(result)


# ----------------------------------------------------------------------------------------------
# launch configuration helpers
# ----------------------------------------------------------------------------------------------

_num_sms: dict[int, int] = {}


def sm_count(device: int) -> int:
    n = _num_sms.get(device)
    if n is None:
        backend = rt.get_backend()
        n = _num_sms[device] = backend.multiprocessor_count(device) if backend is not None else 132
    return n


def next_pow2(n: int) -> int:
    return 1 << max(int(n) - 1, 0).bit_length()


def tile_config(n_rows: int, n_cols: int, row_stride: int, col_stride: int, itemsize: int,
                max_tile: int | None = None) -> dict:
    """BLOCK_M (rows) x BLOCK_N (columns) and num_warps for a row-reduction tile.

    - columns contiguous (the usual last-dim reduction): wide BLOCK_N so loads vectorise, and
      several rows per program when rows are short;
    - rows contiguous, columns strided (reducing an outer dim): wide BLOCK_M along the
      contiguous kept dim, a short BLOCK_N, so each load instruction is coalesced across rows.
    """
    # elements per tile: ~16 KB of input per load on a GPU; the interpreter prefers big tiles
    # (the tests' TILE_BUDGET wins over a caller's max_tile)
    budget = TILE_BUDGET or max_tile or (16384 if INTERPRET else max(2048, 16384 // max(itemsize, 1)))
    if row_stride == 1 and col_stride != 1 and n_rows > 1:
        block_m = min(next_pow2(n_rows), budget if INTERPRET else 256)
        block_n = min(next_pow2(max(n_cols, 1)), max(1, budget // block_m))
    else:
        block_n = min(next_pow2(max(n_cols, 1)), budget)
        block_m = min(next_pow2(max(n_rows, 1)), max(1, budget // block_n))
    tile = block_m * block_n
    num_warps = 4 if tile <= 2048 else 8 if tile <= 8192 else 16
    return {"BLOCK_M": block_m, "BLOCK_N": block_n, "num_warps": num_warps}


def split_config(n_rows: int, n_cols: int, block_m: int, block_n: int, device: int, force: int | None = None,
                 per_sm: int = 4, min_tiles: int = 4):
    """(segments per row, columns per segment): split long rows when there are too few rows to
    fill the device (``per_sm`` programs per SM, each segment at least ``min_tiles`` tiles long);
    partial results go through a second pass (deterministic, no atomics)."""
    if force is not None:
        segments = max(1, min(force, n_cols))
    else:
        row_blocks = -(-n_rows // block_m)
        target = 2 if INTERPRET else per_sm * sm_count(device)
        if row_blocks >= target or n_cols < (64 if INTERPRET else 8) * block_n:
            return 1, n_cols
        segments = min(-(-target // row_blocks), -(-n_cols // (min_tiles * block_n)))
        if segments <= 1:
            return 1, n_cols
    seg_len = -(-n_cols // segments)
    seg_len = -(-seg_len // block_n) * block_n  # whole tiles per segment
    return -(-n_cols // seg_len), seg_len


# test hooks: force every reduction launcher to split rows into this many segments, and cap the
# elements of a tile (so the interpreter walks rows in several tiles, as the GPU does); None: heuristic
FORCE_SEGMENTS: int | None = None
TILE_BUDGET: int | None = None
