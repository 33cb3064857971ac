"""Matrix multiplication: one tiled Triton GEMM for every matmul-family op, with a fused epilogue.

``out = alpha * (a @ b) + beta * bias`` with numpy's ``matmul`` shape rules: ``a`` is
(*batch_a, M, K) or (K,), ``b`` is (*batch_b, K, N) or (K,), the batch dims broadcast, a 1-D
operand gets a size-1 dim that the result drops. ``bias`` (optional) is already read at the
output's shape (broadcast dims have stride 0). mm, bmm, mv, dot, matmul, addmm, addmv, baddbmm
and linear are all this one launcher.

How it works (the Triton matmul tutorial, plus strides and batches):

- Each program computes one BLOCK_M x BLOCK_N tile of C. It walks K in BLOCK_K steps, loading a
  BLOCK_M x BLOCK_K tile of A and a BLOCK_K x BLOCK_N tile of B through their strides and
  accumulating ``tl.dot`` into an fp32 (fp64 for fp64) accumulator. Transposed or sliced
  operands are just other strides — nothing is copied; Triton specialises a stride equal to 1
  so the contiguous dim still gets vector loads.
- Programs are ordered in groups of GROUP_M tile-rows ("grouped ordering"), so tiles that run
  at the same time share rows of A and columns of B in L2.
- Rows of A (columns of B) past M (N) wrap around (``% M``) instead of being masked: the loads
  stay unmasked and in bounds, and the store drops those rows. Only the K tail is masked (with
  zeros, which add nothing to the dot product).
- Persistent variant (a configuration with ``PROGRAMS_PER_SM``; the Triton persistent-matmul
  tutorial): a few programs per SM, each looping over every P-th tile, the tile loop and the K
  loop flattened into one software pipeline (``tl.range(..., flatten=True)``). Both kernels are
  the same three jit helpers: which tile, its product, its epilogue.
- Batches: up to two batch dims per launch, each with its own stride per operand (stride 0 for
  a broadcast operand), so ``(B1, B2, M, K) @ (K, N)`` or a broadcast batch runs without a copy.
  The host folds batch dims into M when that is a plain stride (a 3-D activation times a 2-D
  weight becomes one tall GEMM, as in PyTorch) and merges contiguous batch dims.
- Epilogue, in registers before the one store: ``alpha *``, ``+ beta * bias`` (``linear``'s bias
  or ``addmm``'s input), then the cast to the output dtype. ``beta == 0`` never reads the bias
  (PyTorch: NaN there is ignored).

Precision. fp16/bf16 multiply on tensor cores and accumulate in fp32. fp32 follows
``precision``: ``"ieee"`` (PyTorch's default "highest": no TF32) or ``"tf32"``
(``set_float32_matmul_precision("high")``), passed as ``tl.dot(input_precision=...)`` (Triton
3.x, both 3.6 and >= 3.8). fp64 does not use ``tl.dot``: tensor-core paths do not cover fp64
on every GPU/Triton version, so it multiplies with a broadcast product summed over K (exact
fp64 FMA arithmetic). Integer matmul is not supported by the kernel (PyTorch has no cuda
integer matmul either); the cpu twin handles it.

Layout of this file: kernel, launcher, numpy twin.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..fill import float64_bits
from ..launch import INTERPRET, cdiv, collapse_dims, launch, loop_needs_int64, needs_int64, split_leading
from .configs import pick_config

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _tile_coordinates(tile_id, M, N, B2, INT64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                      GROUP_M: tl.constexpr):
    """(batch index 1, batch index 2, tile-row, tile-column) of tile number ``tile_id``."""
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    tiles = num_pid_m * num_pid_n
    bid = tile_id // tiles
    tile = tile_id % tiles
    # Grouped ordering: GROUP_M tile-rows are visited column by column, so the programs in
    # flight share A rows and B columns in L2 (the tutorial's "L2 cache optimizations").
    num_pid_in_group = GROUP_M * num_pid_n
    group_id = tile // num_pid_in_group
    first_pid_m = group_id * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    pid_m = first_pid_m + ((tile % num_pid_in_group) % group_size_m)
    pid_n = (tile % num_pid_in_group) // group_size_m
    b1 = bid // B2
    b2 = bid % B2
    if INT64:  # (the tile indices widen before they multiply: M or N near 2**31 - 1 would wrap)
        b1 = tl.cast(b1, tl.int64)
        b2 = tl.cast(b2, tl.int64)
        pid_m = tl.cast(pid_m, tl.int64)
        pid_n = tl.cast(pid_n, tl.int64)
    return b1, b2, pid_m, pid_n


@triton.jit
def _tile_product(a_ptr, b_ptr, b1, b2, pid_m, pid_n, M, N, K,
                  stride_ab1, stride_ab2, stride_am, stride_ak, stride_bb1, stride_bb2, stride_bk, stride_bn,
                  PRECISION: tl.constexpr, FMA: tl.constexpr, UPCAST: tl.constexpr, EVEN_K: tl.constexpr,
                  INT64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """The BLOCK_M x BLOCK_N tile (pid_m, pid_n) of batch (b1, b2) of A @ B, in the accumulator's dtype."""
    # Rows/columns past the edge wrap around: loads stay unmasked and in bounds.
    offs_am = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_bn = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    if INT64:
        offs_k = offs_k.to(tl.int64)
    a_ptrs = a_ptr + b1 * stride_ab1 + b2 * stride_ab2 + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
    b_ptrs = b_ptr + b1 * stride_bb1 + b2 * stride_bb2 + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
    if FMA:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float64)
    else:
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            # zeros past K: they add nothing to the dot product
            k_left = K - k * BLOCK_K
            a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        if FMA:
            # fp64: every product and sum in fp64 on the FMA units, no tensor cores needed
            acc += tl.sum(a[:, :, None] * b[None, :, :], axis=1)
        else:
            if UPCAST:
                a = a.to(tl.float32)
                b = b.to(tl.float32)
            acc = tl.dot(a, b, acc, input_precision=PRECISION, out_dtype=tl.float32)
        # Advance by BLOCK_K along K; with INT64 the step is computed in 64 bits too.
        if INT64:
            a_ptrs += tl.cast(stride_ak, tl.int64) * BLOCK_K
            b_ptrs += tl.cast(stride_bk, tl.int64) * BLOCK_K
        else:
            a_ptrs += BLOCK_K * stride_ak
            b_ptrs += BLOCK_K * stride_bk
    return acc


@triton.jit
def _tile_store(acc, c_ptr, bias_ptr, b1, b2, pid_m, pid_n, M, N,
                stride_cb1, stride_cb2, stride_cm, stride_cn, stride_db1, stride_db2, stride_dm, stride_dn,
                alpha_bits, beta_bits, HAS_BIAS: tl.constexpr, SCALE_ACC: tl.constexpr, SCALE_BIAS: tl.constexpr,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """The epilogue, in registers before the one masked store: alpha, bias, the cast to C's dtype."""
    if SCALE_ACC:
        alpha = tl.cast(alpha_bits, tl.int64).to(tl.float64, bitcast=True).to(acc.dtype)
        acc = acc * alpha
    offs_cm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)  # (int64 with INT64: pid_m and pid_n are)
    offs_cn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
    if HAS_BIAS:
        d_ptrs = (bias_ptr + b1 * stride_db1 + b2 * stride_db2
                  + offs_cm[:, None] * stride_dm + offs_cn[None, :] * stride_dn)
        d = tl.load(d_ptrs, mask=c_mask, other=0.0).to(acc.dtype)
        if SCALE_BIAS:
            beta = tl.cast(beta_bits, tl.int64).to(tl.float64, bitcast=True).to(acc.dtype)
            d = d * beta
        acc += d
    c_ptrs = c_ptr + b1 * stride_cb1 + b2 * stride_cb2 + offs_cm[:, None] * stride_cm + offs_cn[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=c_mask)


@triton.jit
def _gemm_kernel(
    # pointers
    c_ptr, a_ptr, b_ptr, bias_ptr,
    # sizes: B1 x B2 independent (M x K) @ (K x N) products
    M, N, K, B2,
    # strides, in elements: batch dim 1, batch dim 2, then the matrix dims
    stride_cb1, stride_cb2, stride_cm, stride_cn,
    stride_ab1, stride_ab2, stride_am, stride_ak,
    stride_bb1, stride_bb2, stride_bk, stride_bn,
    stride_db1, stride_db2, stride_dm, stride_dn,
    # epilogue scalars: the bits of fp64 values (exact on the GPU and in the interpreter)
    alpha_bits: tl.int64, beta_bits: tl.int64,
    # meta-parameters
    HAS_BIAS: tl.constexpr,  # add beta * bias
    SCALE_ACC: tl.constexpr,  # alpha != 1
    SCALE_BIAS: tl.constexpr,  # beta != 1
    PRECISION: tl.constexpr,  # tl.dot input_precision for fp32: "ieee" or "tf32"
    FMA: tl.constexpr,  # fp64: broadcast multiply + sum instead of tl.dot
    UPCAST: tl.constexpr,  # interpreter: 16-bit tiles to fp32 before tl.dot (no bf16 math there)
    EVEN_K: tl.constexpr,  # K % BLOCK_K == 0: no K masks
    INT64: tl.constexpr,  # element offsets can pass 2**31 - 1
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    """One program per tile: program i computes tile i (of every batch's tiles, in order)."""
    b1, b2, pid_m, pid_n = _tile_coordinates(tl.program_id(0), M, N, B2, INT64, BLOCK_M, BLOCK_N, GROUP_M)
    acc = _tile_product(a_ptr, b_ptr, b1, b2, pid_m, pid_n, M, N, K,
                        stride_ab1, stride_ab2, stride_am, stride_ak, stride_bb1, stride_bb2, stride_bk, stride_bn,
                        PRECISION, FMA, UPCAST, EVEN_K, INT64, BLOCK_M, BLOCK_N, BLOCK_K)
    _tile_store(acc, c_ptr, bias_ptr, b1, b2, pid_m, pid_n, M, N,
                stride_cb1, stride_cb2, stride_cm, stride_cn, stride_db1, stride_db2, stride_dm, stride_dn,
                alpha_bits, beta_bits, HAS_BIAS, SCALE_ACC, SCALE_BIAS, BLOCK_M, BLOCK_N)


@triton.jit
def _gemm_persistent_kernel(
    c_ptr, a_ptr, b_ptr, bias_ptr,
    M, N, K, B2,
    stride_cb1, stride_cb2, stride_cm, stride_cn,
    stride_ab1, stride_ab2, stride_am, stride_ak,
    stride_bb1, stride_bb2, stride_bk, stride_bn,
    stride_db1, stride_db2, stride_dm, stride_dn,
    alpha_bits: tl.int64, beta_bits: tl.int64,
    total_tiles,  # tiles per batch x batches
    HAS_BIAS: tl.constexpr, SCALE_ACC: tl.constexpr, SCALE_BIAS: tl.constexpr, PRECISION: tl.constexpr,
    FMA: tl.constexpr, UPCAST: tl.constexpr, EVEN_K: tl.constexpr, INT64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
):
    """_gemm_kernel's tiles, with fewer programs than tiles (the Triton persistent-matmul tutorial):
    program p computes tiles p, p + P, p + 2P, ... (P programs, a few per SM). ``flatten`` makes
    the tile loop and the K loop one software-pipelined loop, so the next tile's first loads are in
    flight while this tile's last products and its store run: on a short K loop (K = 768 is 12
    steps of 64) that prologue and epilogue are a large part of a tile's time."""
    for tile_id in tl.range(tl.program_id(0), total_tiles, tl.num_programs(0), flatten=True):
        b1, b2, pid_m, pid_n = _tile_coordinates(tile_id, M, N, B2, INT64, BLOCK_M, BLOCK_N, GROUP_M)
        acc = _tile_product(a_ptr, b_ptr, b1, b2, pid_m, pid_n, M, N, K,
                            stride_ab1, stride_ab2, stride_am, stride_ak, stride_bb1, stride_bb2, stride_bk,
                            stride_bn, PRECISION, FMA, UPCAST, EVEN_K, INT64, BLOCK_M, BLOCK_N, BLOCK_K)
        _tile_store(acc, c_ptr, bias_ptr, b1, b2, pid_m, pid_n, M, N,
                    stride_cb1, stride_cb2, stride_cm, stride_cn, stride_db1, stride_db2, stride_dm, stride_dn,
                    alpha_bits, beta_bits, HAS_BIAS, SCALE_ACC, SCALE_BIAS, BLOCK_M, BLOCK_N)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------

_FLOAT_KINDS = {np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)}
_num_sms: dict[int, int] = {}


def _is_supported(dtype) -> bool:
    return np.dtype(dtype) in _FLOAT_KINDS or np.dtype(dtype).name == "bfloat16"


def canonical_operands(out_shape, a_shape, a_strides, b_shape, b_strides):
    """numpy-matmul shapes -> (batch, M, N, K, per-operand batch strides + matrix strides).

    Returns ``(batch, M, N, K, a, b, c_insert)`` where ``a`` = (batch strides, stride_m,
    stride_k), ``b`` = (batch strides, stride_k, stride_n) (0 on broadcast batch dims), and
    ``c_insert`` = (squeeze_m, squeeze_n): which of the output's matrix dims a 1-D operand
    removed. Raises ValueError when the shapes do not multiply.
    """
    squeeze_m, squeeze_n = len(a_shape) == 1, len(b_shape) == 1
    if len(a_shape) == 0 or len(b_shape) == 0:
        raise ValueError("matmul kernel: operands must be at least 1-D")
    if squeeze_m:
        a_shape, a_strides = (1,) + tuple(a_shape), (0,) + tuple(a_strides)
    if squeeze_n:
        b_shape, b_strides = tuple(b_shape) + (1,), tuple(b_strides) + (0,)
    M, K = a_shape[-2:]
    K2, N = b_shape[-2:]
    if K != K2:
        raise ValueError(f"matmul kernel: shapes {a_shape} and {b_shape} cannot be multiplied")
    ba, bb = tuple(a_shape[:-2]), tuple(b_shape[:-2])
    nd = max(len(ba), len(bb))
    ba, sa = (1,) * (nd - len(ba)) + ba, (0,) * (nd - len(ba)) + tuple(a_strides[:-2])
    bb, sb = (1,) * (nd - len(bb)) + bb, (0,) * (nd - len(bb)) + tuple(b_strides[:-2])
    batch = []
    for x, y in zip(ba, bb):
        if x != y and x != 1 and y != 1:
            raise ValueError(f"matmul kernel: batch dims {ba} and {bb} do not broadcast")
        batch.append(max(x, y) if x and y else 0)
    sa = tuple(0 if n == 1 else s for n, s in zip(ba, sa))
    sb = tuple(0 if n == 1 else s for n, s in zip(bb, sb))
    expect = tuple(batch) + (() if squeeze_m else (M,)) + (() if squeeze_n else (N,))
    if tuple(out_shape) != expect:
        raise ValueError(f"matmul kernel: output shape {tuple(out_shape)} != expected {expect}")
    return (tuple(batch), M, N, K, (sa, a_strides[-2], a_strides[-1]), (sb, b_strides[-2], b_strides[-1]),
            (squeeze_m, squeeze_n))


def _out_strides(strides, squeeze_m: bool, squeeze_n: bool):
    """(batch strides, stride_m, stride_n) of an output-shaped array, 0 for a dropped dim."""
    strides = tuple(strides)
    if squeeze_m and squeeze_n:
        return strides, 0, 0
    if squeeze_m:
        return strides[:-1], 0, strides[-1]
    if squeeze_n:
        return strides[:-1], strides[-1], 0
    return strides[:-2], strides[-2], strides[-1]


def fold_batch(batch, M, ops):
    """Fold trailing batch dims into M where every operand allows it, then merge batch dims.

    ``ops`` holds, per operand (a, b, c, bias), ``[batch strides, stride_m]`` (b's stride_m is 0:
    b does not move along M). A batch dim of size n folds into M when b does not move along it
    and the others step over it as over M more rows (stride == stride_m * M). Returns
    ``(batch, M, [(batch strides, stride_m) per operand])`` with the remaining batch dims merged.
    """
    batch = list(batch)
    ops = [[list(bs), sm] for bs, sm in ops]
    while batch:
        n = batch[-1]
        if n == 1:
            batch.pop()
            for op in ops:
                op[0].pop()
            continue
        if ops[1][0][-1] != 0:
            break
        if M == 1:
            new_sm = [op[0][-1] for op in ops]
        elif all(op[0][-1] == op[1] * M for i, op in enumerate(ops) if i != 1):
            new_sm = [op[1] for op in ops]
        else:
            break
        batch.pop()
        for op, sm in zip(ops, new_sm):
            op[0].pop()
            op[1] = sm
        ops[1][1] = 0
        M *= n
    if batch:
        shape, strides = collapse_dims(tuple(batch), *[tuple(op[0]) for op in ops])
    else:
        shape, strides = (1,), [(0,)] * len(ops)
    return shape, M, [(tuple(s), op[1]) for s, op in zip(strides, ops)]


def _sm_count(device: int) -> int:
    n = _num_sms.get(device)
    if n is None:
        backend = rt.get_backend()
        n = _num_sms[device] = backend.multiprocessor_count(device) if backend is not None else 132
    return n


def matmul(out, a, b, bias=None, *, alpha=1, beta=1, precision: str = "highest", config: dict | None = None,
           product: bool = True):
    """``out = alpha * (a @ b) + beta * bias`` on DeviceArrays (numpy matmul shape rules).

    ``bias`` is None or an array of ``out``'s shape (broadcast dims with stride 0); with
    ``beta == 0`` it is not read. ``precision``: ``set_float32_matmul_precision``'s value
    ("highest" = IEEE fp32, "high"/"medium" = TF32) — it matters for fp32 only. ``config``
    overrides the heuristic's launch configuration (tests, autotuner). ``product=False``: the
    product term is zero and ``a`` and ``b`` are not read (BLAS's ``alpha == 0``, which PyTorch's
    addmm and addmv follow: an inf or NaN there is ignored); run as a product over an empty K.
    """
    if not product:
        a = a.view(a.shape[:-1] + (0,), a.strides)
        b = b.view((0,) if b.ndim == 1 else b.shape[:-2] + (0, b.shape[-1]), b.strides)
    dtype = out.dtype
    if a.dtype != dtype or b.dtype != dtype or (bias is not None and bias.dtype != dtype):
        raise ValueError(f"matmul kernel: dtypes differ: out {dtype}, a {a.dtype}, b {b.dtype}"
                         + (f", bias {bias.dtype}" if bias is not None else ""))
    if not _is_supported(dtype):
        raise NotImplementedError(f"matmul kernel: dtype {dtype} is not supported on cuda (floating dtypes only)")
    if precision not in ("highest", "high", "medium"):
        raise ValueError(f"matmul kernel: precision must be 'highest', 'high' or 'medium', got {precision!r}")
    has_bias = bias is not None and beta != 0
    geometry = (out.shape, out.strides, a.shape, a.strides, b.shape, b.strides,
                (bias.shape, bias.strides) if has_bias else None, dtype,
                None if alpha == 1 else float64_bits(alpha), None if not has_bias or beta == 1 else float64_bits(beta),
                precision,
                needs_int64(out, a, b, bias if has_bias else None), _sm_count(out.device))
    # The launch plan depends on the geometry only: worked out once per geometry (a model
    # multiplies the same few shapes over and over), unless a config is forced.
    kernel, pieces, K, meta = _launch_plan(*geometry) if config is None else _plan(*geometry, config)
    # An empty K never dereferences a or b: point them at the output (an empty array may have
    # no storage at all); no bias: the output stands in for its (never read) pointer.
    a_arr, b_arr = (a, b) if K > 0 else (out, out)
    d_arr = bias if has_bias else out
    for grid, (oc, oa, ob, od), ints in pieces:
        launch(kernel, grid, out.shifted(oc), a_arr.shifted(oa), b_arr.shifted(ob), d_arr.shifted(od), *ints, **meta)


def _plan(out_shape, out_strides, a_shape, a_strides, b_shape, b_strides, bias_geometry, dtype, alpha_bits,
          beta_bits, precision: str, int64: bool, num_sms: int, config: dict | None = None):
    """The launches of one matmul: ``(kernel, pieces, K, meta)``, each piece ``(grid, element offsets
    of out, a, b and bias, the kernel's int arguments)``; no pieces for an empty output. The kernel
    is ``_gemm_kernel`` (one program per tile), or ``_gemm_persistent_kernel`` for a configuration
    with ``PROGRAMS_PER_SM`` (that many programs per SM, each looping over tiles).

    ``alpha_bits``/``beta_bits``: the fp64 bits of alpha and beta, None for 1 (bits, not values,
    so that -0.0 and 0.0 are different plans)."""
    batch, M, N, K, (sa, am, ak), (sb, bk, bn), (sq_m, sq_n) = canonical_operands(
        out_shape, a_shape, a_strides, b_shape, b_strides)
    sc, cm, cn = _out_strides(out_strides, sq_m, sq_n)
    has_bias = bias_geometry is not None
    if has_bias:
        if tuple(bias_geometry[0]) != tuple(out_shape):
            raise ValueError(f"matmul kernel: bias shape {bias_geometry[0]} != output shape {out_shape}")
        sd, dm, dn = _out_strides(bias_geometry[1], sq_m, sq_n)
    else:
        sd, dm, dn = (0,) * len(batch), 0, 0
    if math.prod(out_shape) == 0:
        return _gemm_kernel, (), K, {}
    batch, M, folded = fold_batch(batch, M, [(sa, am), (sb, 0), (sc, cm), (sd, dm)])
    (sa, am), (sb, _), (sc, cm), (sd, dm) = folded
    if config is None:
        config = pick_config(M, N, K, dtype, batch=math.prod(batch), num_sms=num_sms)
    config = dict(config)
    per_sm = config.pop("PROGRAMS_PER_SM", None)
    if per_sm is not None and (per_sm.__class__ is not int or per_sm < 1):
        raise ValueError(f"matmul kernel: PROGRAMS_PER_SM must be a positive int, got {per_sm!r}")
    meta = dict(
        HAS_BIAS=has_bias, SCALE_ACC=alpha_bits is not None, SCALE_BIAS=has_bias and beta_bits is not None,
        PRECISION="ieee" if precision == "highest" else "tf32", FMA=dtype == np.float64,
        UPCAST=INTERPRET and dtype.itemsize == 2, EVEN_K=K % config["BLOCK_K"] == 0,
        # (a last row or column tile's indices reach M - 1 + BLOCK_M and N - 1 + BLOCK_N)
        INT64=int64 or loop_needs_int64(M, config["BLOCK_M"]) or loop_needs_int64(N, config["BLOCK_N"]), **config,
    )
    tiles = cdiv(M, config["BLOCK_M"]) * cdiv(N, config["BLOCK_N"])
    pieces = []
    # At most two batch dims per launch; more (rare: > 2 batch dims no stride pattern merges)
    # launch once per index of the leading ones.
    for pshape, pstrides, poff in split_leading(tuple(batch), [tuple(s) for s in (sc, sa, sb, sd)], ndim=2):
        pshape = (1,) * (2 - len(pshape)) + tuple(pshape)
        c_b, a_b, b_b, d_b = [(0,) * (2 - len(s)) + tuple(s) for s in pstrides]
        offsets = (poff[0], poff[1] if K > 0 else poff[0], poff[2] if K > 0 else poff[0],
                   poff[3] if has_bias else poff[0])
        ints = (M, N, K, pshape[1], c_b[0], c_b[1], cm, cn, a_b[0], a_b[1], am, ak, b_b[0], b_b[1], bk, bn,
                d_b[0], d_b[1], dm, dn, alpha_bits or 0, beta_bits or 0)
        total = tiles * pshape[0] * pshape[1]
        if per_sm:
            pieces.append(((min(total, per_sm * num_sms),), offsets, ints + (total,)))
        else:
            pieces.append(((total,), offsets, ints))
    return _gemm_persistent_kernel if per_sm else _gemm_kernel, tuple(pieces), K, meta


_launch_plan = functools.lru_cache(maxsize=1024)(_plan)  # results are never changed by callers


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def matmul_twin(out, a, b, bias=None, *, alpha=1, beta=1, precision: str = "highest", config=None, product=True):
    """The reference: numpy's matmul, with the kernel's arithmetic.

    fp16/bf16 are multiplied and accumulated in fp32 and rounded once (as the kernel and
    PyTorch do); fp32 and fp64 in their own precision (the cpu ignores ``precision``: it never
    uses TF32); integers in their own dtype with wrap-around, as PyTorch's cpu matmul. bool is
    not supported (PyTorch has no bool matmul).
    """
    dtype = out.dtype
    if dtype == np.bool_:
        raise NotImplementedError("matmul twin: bool matmul is not supported")
    work = np.float32 if dtype.itemsize == 2 and dtype.kind in "fV" else dtype
    with np.errstate(all="ignore"):
        if product:
            r = np.asarray(np.matmul(a.astype(work, copy=False), b.astype(work, copy=False)), dtype=work)
        else:  # the product term is zero, a and b unread (see matmul)
            r = np.zeros(out.shape, work)
        if alpha != 1:
            r = r * np.asarray(alpha).astype(work)
        if bias is not None and beta != 0:
            d = bias.astype(work, copy=False)
            if beta != 1:
                d = d * np.asarray(beta).astype(work)
            r = r + d
        np.copyto(out, r.astype(dtype, copy=False), casting="unsafe")


__all__ = ["matmul", "matmul_twin", "canonical_operands", "fold_batch"]
