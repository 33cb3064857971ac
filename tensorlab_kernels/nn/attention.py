"""Scaled dot-product attention, fused (FlashAttention-2 style, after Triton's fused-attention
tutorial): ``out = softmax(q k^T * scale + mask) v`` without ever storing the L x S scores.

Shapes: ``q`` (*B, L, E), ``k`` (*B, S, E), ``v`` (*B, S, Ev), optional ``mask`` (*B, L, S) (bool:
keep where True; floating: added to the scores), ``out`` (*B, L, Ev), ``row_max`` and ``log_sum`` (*B, L). The batch
dims are the same for every operand — broadcast operands arrive with stride 0 there, so
nothing is copied (grouped-query attention is such a broadcast: the caller splits the query
heads into (kv_heads, group) and gives k and v a stride-0 group dim). Every operand is read
through its strides. ``is_causal`` keeps key ``j`` for query ``i`` when ``j <= i`` (PyTorch's
upper-left aligned ``tril``); it combines with ``mask`` when both are given.

Forward. One program owns ``BLOCK_M`` query rows of one batch entry and walks the keys in
``BLOCK_N`` blocks (with ``is_causal`` it stops after the block holding the diagonal: the blocks
past it are skipped, not masked). Per block: ``s = q k^T * scale`` (+ mask), then the online
softmax — the running row maximum ``m``, the running sum ``l`` of ``exp(s - m)`` and the fp32
accumulator ``acc`` of ``exp(s - m) v`` are rescaled by ``exp(m_old - m_new)`` whenever the maximum
grows. At the end ``out = acc / l``, and ``m`` and ``log(l)`` are saved for the backward as
``row_max`` and ``log_sum``. They are saved apart, not as the logsumexp ``m + log(l)``: next to a
huge ``|m|`` (a -1e9 or finfo.min padding mask, logits near 1e10) that sum rounds ``log(l)`` away,
and ``exp(s - lse)`` would then no longer sum to 1. A row with every key masked (``l == 0``) gets
zeros and ``row_max = -inf``, ``log_sum = 0``: PyTorch's math path also returns zeros there (its
"safe softmax"), not NaN.

Backward (FlashAttention-2's recomputation; no atomics, so deterministic): a small kernel forms
``delta = rowsum(dout * out)``; then one kernel per key block accumulates ``dv = sum p^T dout`` and
``dk = scale * sum ds^T q`` over the query blocks (``p = exp((s - row_max) - log_sum)`` recomputed
from the saved statistics, ``ds = p * (dout v^T - delta)``), and one kernel per query block accumulates
``dq = scale * sum ds k`` over the key blocks. Gradients come out at the broadcast batch shape;
the caller sums broadcast dims away.

Precision: the products run on tensor cores (``tl.dot``) with fp32 accumulation; fp16/bf16
``p`` and ``ds`` are rounded to the input dtype before their products, as in FlashAttention.
fp32 follows ``input_precision`` ("ieee" unless ``set_float32_matmul_precision`` allows tf32).
fp64 multiplies with broadcast products summed in fp64 (no tensor-core fp64 path is assumed;
``FMA``), with fp64 softmax statistics. In Triton's interpreter 16-bit tiles are upcast to fp32
before ``tl.dot`` (it has no bf16 arithmetic), after the same rounding.

Head dims: any ``E``/``Ev`` up to 256 (tiles are the next power of two, at least 16; the
padding is masked with zeros, which add nothing to the products). Dropout is not done here.

Layout of this file: kernels, launchers, numpy twins.
"""

from __future__ import annotations

import math

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..fill import fill, float64_bits
from ..launch import INTERPRET, cdiv, collapse_dims, grid_yz_pieces, launch, needs_int64, split_leading
from ..reduction.common import cast_to, float_acc, host_cast, host_float, next_pow2

MAX_HEAD_DIM = 256

# ----------------------------------------------------------------------------------------------
# Kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def _dot(a, b, PRECISION: tl.constexpr, FMA: tl.constexpr):
    """``a @ b`` accumulated in fp32 (tensor cores), or in fp64 with ``FMA``."""
    if FMA:
        return tl.sum(a[:, :, None] * b[None, :, :], axis=1)
    else:
        return tl.dot(a, b, input_precision=PRECISION, out_dtype=tl.float32)


@triton.jit
def _operand(x, ty: tl.constexpr, UPCAST: tl.constexpr):
    """A probability tile for a product with a ``ty`` tile: rounded to ``ty`` (as on the GPU) and,
    in the interpreter, carried in fp32."""
    x = x.to(ty)
    if UPCAST:
        x = x.to(tl.float32)
    return x


@triton.jit
def _scores(q, kT, scale, offs_m, offs_n, L, S, mask_base, sm_m, sm_n,
            HAS_MASK: tl.constexpr, MASK_BOOL: tl.constexpr, CAUSAL: tl.constexpr,
            PRECISION: tl.constexpr, FMA: tl.constexpr, ACC: tl.constexpr):
    """``q k^T * scale`` (+ a float mask) for one (BLOCK_M, BLOCK_N) tile, and which entries are kept."""
    s = _dot(q, kT, PRECISION, FMA).to(ACC) * scale
    keep = (offs_m < L)[:, None] & (offs_n < S)[None, :]
    if CAUSAL:
        keep = keep & (offs_n[None, :] <= offs_m[:, None])
    if HAS_MASK:
        mv = tl.load(mask_base + offs_m[:, None] * sm_m + offs_n[None, :] * sm_n,
                     mask=(offs_m < L)[:, None] & (offs_n < S)[None, :], other=0)
        if MASK_BOOL:
            keep = keep & (mv != 0)
        else:
            s = s + mv.to(ACC)
    return s, keep


@triton.jit
def _probabilities(s, keep, row_max, log_sum):
    """The forward's softmax tile recomputed: ``exp((s - m) - log(l))``, 0 where dropped. Rows with every
    key masked (``m = -inf``) are all dropped; shifting them by 0 keeps ``-inf - -inf`` out."""
    dead = row_max == float("-inf")
    keep = keep & (dead == 0)[:, None]
    shift = tl.where(dead, 0.0, row_max)
    return tl.where(keep, tl.exp((s - shift[:, None]) - log_sum[:, None]), 0.0)


@triton.jit
def _attn_fwd_kernel(
    out_ptr, max_ptr, logsum_ptr,  # outputs: (B1, B2, L, Ev) attention output; (B1, B2, L) m and log(l) of each row
    q_ptr, k_ptr, v_ptr, mask_ptr,  # inputs (mask only with HAS_MASK)
    L, S, E, EV, B2,  # sizes: B1 x B2 batch entries of (L x E) queries and (S x E) keys, (S x Ev) values
    so_b1, so_b2, so_m, so_e,  # strides of out
    sl_b1, sl_b2, sl_m,  # strides of the row statistics (both have the same)
    sq_b1, sq_b2, sq_m, sq_e,  # strides of q
    sk_b1, sk_b2, sk_n, sk_e,  # strides of k
    sv_b1, sv_b2, sv_n, sv_e,  # strides of v
    sm_b1, sm_b2, sm_m, sm_n,  # strides of mask
    scale_bits: tl.int64,  # the scale as the bits of an fp64
    HAS_MASK: tl.constexpr, MASK_BOOL: tl.constexpr, CAUSAL: tl.constexpr, PRECISION: tl.constexpr,
    FMA: tl.constexpr, UPCAST: tl.constexpr, ACC: tl.constexpr, INT64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_EV: tl.constexpr,
):
    pid_m = tl.program_id(0)
    bid = tl.program_id(1)
    b1 = bid // B2
    b2 = bid % B2
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n0 = tl.arange(0, BLOCK_N)
    offs_e = tl.arange(0, BLOCK_E)
    offs_ev = tl.arange(0, BLOCK_EV)
    if INT64:
        b1 = b1.to(tl.int64)
        b2 = b2.to(tl.int64)
        offs_m = offs_m.to(tl.int64)
    q_base = q_ptr + b1 * sq_b1 + b2 * sq_b2
    k_base = k_ptr + b1 * sk_b1 + b2 * sk_b2
    v_base = v_ptr + b1 * sv_b1 + b2 * sv_b2
    mask_base = mask_ptr + b1 * sm_b1 + b2 * sm_b2
    scale = tl.cast(scale_bits, tl.int64).to(tl.float64, bitcast=True).to(ACC)

    m_ok = offs_m < L
    q = tl.load(q_base + offs_m[:, None] * sq_m + offs_e[None, :] * sq_e,
                mask=m_ok[:, None] & (offs_e < E)[None, :], other=0)
    if UPCAST:
        q = q.to(tl.float32)
    v_ty = v_ptr.dtype.element_ty

    m_i = tl.full([BLOCK_M], float("-inf"), ACC)
    l_i = tl.zeros([BLOCK_M], ACC)
    acc = tl.zeros([BLOCK_M, BLOCK_EV], ACC)
    if CAUSAL:
        hi = tl.minimum(S, (pid_m + 1) * BLOCK_M)  # key blocks past the diagonal are all masked: skip them
    else:
        hi = S
    for start_n in range(0, hi, BLOCK_N):
        offs_n = start_n + offs_n0
        if INT64:
            offs_n = offs_n.to(tl.int64)
        n_ok = offs_n < S
        kT = tl.load(k_base + offs_n[None, :] * sk_n + offs_e[:, None] * sk_e,
                     mask=(offs_e < E)[:, None] & n_ok[None, :], other=0)
        if UPCAST:
            kT = kT.to(tl.float32)
        s, keep = _scores(q, kT, scale, offs_m, offs_n, L, S, mask_base, sm_m, sm_n,
                          HAS_MASK, MASK_BOOL, CAUSAL, PRECISION, FMA, ACC)
        s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        # rows with nothing kept so far have no finite maximum: shift by 0 (exp(-inf) = 0 then)
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.exp(m_i - shift)
        p = tl.exp(s - shift[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_base + offs_n[:, None] * sv_n + offs_ev[None, :] * sv_e,
                    mask=n_ok[:, None] & (offs_ev < EV)[None, :], other=0)
        if UPCAST:
            v = v.to(tl.float32)
        acc = acc * alpha[:, None] + _dot(_operand(p, v_ty, UPCAST), v, PRECISION, FMA).to(ACC)
        m_i = m_new

    empty = l_i == 0  # every key masked: zeros (PyTorch's safe softmax), row_max = -inf, log_sum = 0
    out = acc / tl.where(empty, 1.0, l_i)[:, None]
    row_max = tl.where(empty, float("-inf"), m_i)
    log_sum = tl.log(tl.where(empty, 1.0, l_i))
    out_base = out_ptr + b1 * so_b1 + b2 * so_b2
    tl.store(out_base + offs_m[:, None] * so_m + offs_ev[None, :] * so_e, cast_to(out, out_ptr.dtype.element_ty),
             mask=m_ok[:, None] & (offs_ev < EV)[None, :])
    stat_offs = b1 * sl_b1 + b2 * sl_b2 + offs_m * sl_m
    tl.store(max_ptr + stat_offs, row_max, mask=m_ok)
    tl.store(logsum_ptr + stat_offs, log_sum, mask=m_ok)


@triton.jit
def _attn_bwd_delta_kernel(
    delta_ptr,  # output: (B1, B2, L) contiguous rowsum(dout * out)
    out_ptr, dout_ptr,
    L, EV, B2,
    so_b1, so_b2, so_m, so_e,
    sd_b1, sd_b2, sd_m, sd_e,
    ACC: tl.constexpr, INT64: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_EV: tl.constexpr,
):
    pid_m = tl.program_id(0)
    bid = tl.program_id(1)
    b1 = bid // B2
    b2 = bid % B2
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_ev = tl.arange(0, BLOCK_EV)
    if INT64:
        b1 = b1.to(tl.int64)
        b2 = b2.to(tl.int64)
        offs_m = offs_m.to(tl.int64)
    mask = (offs_m < L)[:, None] & (offs_ev < EV)[None, :]
    o = tl.load(out_ptr + b1 * so_b1 + b2 * so_b2 + offs_m[:, None] * so_m + offs_ev[None, :] * so_e,
                mask=mask, other=0).to(ACC)
    do = tl.load(dout_ptr + b1 * sd_b1 + b2 * sd_b2 + offs_m[:, None] * sd_m + offs_ev[None, :] * sd_e,
                 mask=mask, other=0).to(ACC)
    tl.store(delta_ptr + bid.to(tl.int64) * L + offs_m, tl.sum(o * do, axis=1), mask=offs_m < L)


@triton.jit
def _attn_bwd_dkdv_kernel(
    dk_ptr, dv_ptr,  # outputs: (B1, B2, S, E) and (B1, B2, S, Ev)
    q_ptr, k_ptr, v_ptr, mask_ptr, dout_ptr, max_ptr, logsum_ptr, delta_ptr,
    L, S, E, EV, B2,
    sdk_b1, sdk_b2, sdk_n, sdk_e,
    sdv_b1, sdv_b2, sdv_n, sdv_e,
    sq_b1, sq_b2, sq_m, sq_e,
    sk_b1, sk_b2, sk_n, sk_e,
    sv_b1, sv_b2, sv_n, sv_e,
    sm_b1, sm_b2, sm_m, sm_n,
    sdo_b1, sdo_b2, sdo_m, sdo_e,
    sl_b1, sl_b2, sl_m,
    scale_bits: tl.int64,
    HAS_MASK: tl.constexpr, MASK_BOOL: tl.constexpr, CAUSAL: tl.constexpr, PRECISION: tl.constexpr,
    FMA: tl.constexpr, UPCAST: tl.constexpr, ACC: tl.constexpr, INT64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_EV: tl.constexpr,
):
    pid_n = tl.program_id(0)
    bid = tl.program_id(1)
    b1 = bid // B2
    b2 = bid % B2
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_m0 = tl.arange(0, BLOCK_M)
    offs_e = tl.arange(0, BLOCK_E)
    offs_ev = tl.arange(0, BLOCK_EV)
    if INT64:
        b1 = b1.to(tl.int64)
        b2 = b2.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
    q_base = q_ptr + b1 * sq_b1 + b2 * sq_b2
    do_base = dout_ptr + b1 * sdo_b1 + b2 * sdo_b2
    mask_base = mask_ptr + b1 * sm_b1 + b2 * sm_b2
    stat_base = b1 * sl_b1 + b2 * sl_b2
    delta_base = delta_ptr + bid.to(tl.int64) * L
    scale = tl.cast(scale_bits, tl.int64).to(tl.float64, bitcast=True).to(ACC)
    q_ty = q_ptr.dtype.element_ty
    do_ty = dout_ptr.dtype.element_ty

    n_ok = offs_n < S
    k = tl.load(k_ptr + b1 * sk_b1 + b2 * sk_b2 + offs_n[:, None] * sk_n + offs_e[None, :] * sk_e,
                mask=n_ok[:, None] & (offs_e < E)[None, :], other=0)
    v = tl.load(v_ptr + b1 * sv_b1 + b2 * sv_b2 + offs_n[:, None] * sv_n + offs_ev[None, :] * sv_e,
                mask=n_ok[:, None] & (offs_ev < EV)[None, :], other=0)
    if UPCAST:
        k = k.to(tl.float32)
        v = v.to(tl.float32)
    dk = tl.zeros([BLOCK_N, BLOCK_E], ACC)
    dv = tl.zeros([BLOCK_N, BLOCK_EV], ACC)
    if CAUSAL:
        lo = (pid_n * BLOCK_N) // BLOCK_M * BLOCK_M  # query rows above the diagonal never see these keys
    else:
        lo = 0
    for start_m in range(lo, L, BLOCK_M):
        offs_m = start_m + offs_m0
        if INT64:
            offs_m = offs_m.to(tl.int64)
        m_ok = offs_m < L
        q = tl.load(q_base + offs_m[:, None] * sq_m + offs_e[None, :] * sq_e,
                    mask=m_ok[:, None] & (offs_e < E)[None, :], other=0)
        do = tl.load(do_base + offs_m[:, None] * sdo_m + offs_ev[None, :] * sdo_e,
                     mask=m_ok[:, None] & (offs_ev < EV)[None, :], other=0)
        if UPCAST:
            q = q.to(tl.float32)
            do = do.to(tl.float32)
        row_max = tl.load(max_ptr + stat_base + offs_m * sl_m, mask=m_ok, other=float("-inf"))
        log_sum = tl.load(logsum_ptr + stat_base + offs_m * sl_m, mask=m_ok, other=0)
        delta = tl.load(delta_base + offs_m, mask=m_ok, other=0)
        # the score tile of these queries against this key block, as in the forward
        s, keep = _scores(q, tl.trans(k), scale, offs_m, offs_n, L, S, mask_base, sm_m, sm_n,
                          HAS_MASK, MASK_BOOL, CAUSAL, PRECISION, FMA, ACC)
        p = _probabilities(s, keep, row_max, log_sum)
        dv += _dot(tl.trans(_operand(p, do_ty, UPCAST)), do, PRECISION, FMA).to(ACC)
        dp = _dot(do, tl.trans(v), PRECISION, FMA).to(ACC)
        ds = p * (dp - delta[:, None])
        dk += _dot(tl.trans(_operand(ds, q_ty, UPCAST)), q, PRECISION, FMA).to(ACC)
    dk = dk * scale
    tl.store(dk_ptr + b1 * sdk_b1 + b2 * sdk_b2 + offs_n[:, None] * sdk_n + offs_e[None, :] * sdk_e,
             cast_to(dk, dk_ptr.dtype.element_ty), mask=n_ok[:, None] & (offs_e < E)[None, :])
    tl.store(dv_ptr + b1 * sdv_b1 + b2 * sdv_b2 + offs_n[:, None] * sdv_n + offs_ev[None, :] * sdv_e,
             cast_to(dv, dv_ptr.dtype.element_ty), mask=n_ok[:, None] & (offs_ev < EV)[None, :])


@triton.jit
def _attn_bwd_dq_kernel(
    dq_ptr,  # output: (B1, B2, L, E)
    q_ptr, k_ptr, v_ptr, mask_ptr, dout_ptr, max_ptr, logsum_ptr, delta_ptr,
    L, S, E, EV, B2,
    sdq_b1, sdq_b2, sdq_m, sdq_e,
    sq_b1, sq_b2, sq_m, sq_e,
    sk_b1, sk_b2, sk_n, sk_e,
    sv_b1, sv_b2, sv_n, sv_e,
    sm_b1, sm_b2, sm_m, sm_n,
    sdo_b1, sdo_b2, sdo_m, sdo_e,
    sl_b1, sl_b2, sl_m,
    scale_bits: tl.int64,
    HAS_MASK: tl.constexpr, MASK_BOOL: tl.constexpr, CAUSAL: tl.constexpr, PRECISION: tl.constexpr,
    FMA: tl.constexpr, UPCAST: tl.constexpr, ACC: tl.constexpr, INT64: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_EV: tl.constexpr,
):
    pid_m = tl.program_id(0)
    bid = tl.program_id(1)
    b1 = bid // B2
    b2 = bid % B2
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n0 = tl.arange(0, BLOCK_N)
    offs_e = tl.arange(0, BLOCK_E)
    offs_ev = tl.arange(0, BLOCK_EV)
    if INT64:
        b1 = b1.to(tl.int64)
        b2 = b2.to(tl.int64)
        offs_m = offs_m.to(tl.int64)
    k_base = k_ptr + b1 * sk_b1 + b2 * sk_b2
    v_base = v_ptr + b1 * sv_b1 + b2 * sv_b2
    mask_base = mask_ptr + b1 * sm_b1 + b2 * sm_b2
    scale = tl.cast(scale_bits, tl.int64).to(tl.float64, bitcast=True).to(ACC)
    k_ty = k_ptr.dtype.element_ty

    m_ok = offs_m < L
    q = tl.load(q_ptr + b1 * sq_b1 + b2 * sq_b2 + offs_m[:, None] * sq_m + offs_e[None, :] * sq_e,
                mask=m_ok[:, None] & (offs_e < E)[None, :], other=0)
    do = tl.load(dout_ptr + b1 * sdo_b1 + b2 * sdo_b2 + offs_m[:, None] * sdo_m + offs_ev[None, :] * sdo_e,
                 mask=m_ok[:, None] & (offs_ev < EV)[None, :], other=0)
    if UPCAST:
        q = q.to(tl.float32)
        do = do.to(tl.float32)
    stat_offs = b1 * sl_b1 + b2 * sl_b2 + offs_m * sl_m
    row_max = tl.load(max_ptr + stat_offs, mask=m_ok, other=float("-inf"))
    log_sum = tl.load(logsum_ptr + stat_offs, mask=m_ok, other=0)
    delta = tl.load(delta_ptr + bid.to(tl.int64) * L + offs_m, mask=m_ok, other=0)
    dq = tl.zeros([BLOCK_M, BLOCK_E], ACC)
    if CAUSAL:
        hi = tl.minimum(S, (pid_m + 1) * BLOCK_M)
    else:
        hi = S
    for start_n in range(0, hi, BLOCK_N):
        offs_n = start_n + offs_n0
        if INT64:
            offs_n = offs_n.to(tl.int64)
        n_ok = offs_n < S
        kT = tl.load(k_base + offs_n[None, :] * sk_n + offs_e[:, None] * sk_e,
                     mask=(offs_e < E)[:, None] & n_ok[None, :], other=0)
        vT = tl.load(v_base + offs_n[None, :] * sv_n + offs_ev[:, None] * sv_e,
                     mask=(offs_ev < EV)[:, None] & n_ok[None, :], other=0)
        if UPCAST:
            kT = kT.to(tl.float32)
            vT = vT.to(tl.float32)
        s, keep = _scores(q, kT, scale, offs_m, offs_n, L, S, mask_base, sm_m, sm_n,
                          HAS_MASK, MASK_BOOL, CAUSAL, PRECISION, FMA, ACC)
        p = _probabilities(s, keep, row_max, log_sum)
        dp = _dot(do, vT, PRECISION, FMA).to(ACC)
        ds = p * (dp - delta[:, None])
        dq += _dot(_operand(ds, k_ty, UPCAST), tl.trans(kT), PRECISION, FMA).to(ACC)
    dq = dq * scale
    tl.store(dq_ptr + b1 * sdq_b1 + b2 * sdq_b2 + offs_m[:, None] * sdq_m + offs_e[None, :] * sdq_e,
             cast_to(dq, dq_ptr.dtype.element_ty), mask=m_ok[:, None] & (offs_e < E)[None, :])


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------


def _tl_acc(dtype):
    return tl.float64 if np.dtype(dtype) == np.float64 else tl.float32


def _head_block(n: int) -> int:
    return max(16, next_pow2(max(n, 1)))


def pick_config(L: int, S: int, E: int, Ev: int, dtype, backward: bool = False, has_mask: bool = False) -> dict:
    """Query/key block sizes and warps. The interpreter runs one program at a time: big blocks.
    On a GPU (no autotuning yet): FlashAttention-like tiles for 16-bit inputs, halved for fp32
    (twice the registers per element), small for fp64 (broadcast products in registers).

    Where registers ran out (sm_90, ``tools/compile_check.py``): a forward with a mask tile beside
    the score tile takes 64-row query blocks (16-bit 128x64 spilled 1.8 KB per thread, 64x64 at
    most 0.2 KB), and fp32 heads wider than 32 take eight warps (64x32 with four: 320 bytes)."""
    head = max(_head_block(E), _head_block(Ev))
    if INTERPRET:
        bm = min(64, max(16, next_pow2(L)))
        bn = min(64, max(16, next_pow2(S)))
        return {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": 4}
    itemsize = np.dtype(dtype).itemsize
    if itemsize == 8:
        return {"BLOCK_M": 16, "BLOCK_N": 16, "num_warps": 4, "num_stages": 1}
    if head > 128:  # 256-wide tiles: keep the shared-memory footprint well under 100 KB
        bm, bn = (64, 32) if itemsize == 2 and not backward else (32, 16 if itemsize == 4 else 32)
        return {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": 8, "num_stages": 1 if itemsize == 4 else 2}
    if backward:
        bm, bn = (64, 64) if head <= 64 else (32, 64)
        if itemsize == 4:
            bm, bn = 32, 32
        return {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": 4 if head <= 64 else 8, "num_stages": 2}
    if itemsize == 4:
        bm, bn = (64, 32) if head <= 64 else (32, 32)
        return {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": 4 if head <= 32 else 8, "num_stages": 2}
    bm, bn = (128, 64) if head <= 64 else (128, 32)
    if has_mask:
        bm = 64
    return {"BLOCK_M": bm, "BLOCK_N": bn, "num_warps": 4 if head <= 64 else 8, "num_stages": 3}


def _check(q, k, v, mask, out) -> tuple:
    E, Ev = q.shape[-1], v.shape[-1]
    if E == 0 or Ev == 0 or E > MAX_HEAD_DIM or Ev > MAX_HEAD_DIM:
        raise NotImplementedError(f"attention kernel: head dims must be in [1, {MAX_HEAD_DIM}], got E={E}, Ev={Ev}")
    if not (q.dtype == k.dtype == v.dtype) or q.dtype.name not in ("float16", "bfloat16", "float32", "float64"):
        raise NotImplementedError(f"attention kernel: q, k, v must share one floating dtype, got {q.dtype}, "
                                  f"{k.dtype}, {v.dtype}")
    batch = tuple(out.shape[:-2])
    for name, a in (("q", q), ("k", k), ("v", v)) + ((("mask", mask),) if mask is not None else ()):
        if tuple(a.shape[:-2]) != batch:
            raise ValueError(f"attention kernel: {name} batch dims {a.shape[:-2]} != output batch dims {batch}")
    return batch, E, Ev


def _pieces(batch, *arrays):
    """(B1, B2) launches over the batch dims (collapsed; more than two left: one launch per index
    of the leading ones; more than ``GRID_YZ_MAX`` entries: in pieces), with each array's batch
    strides and element offset."""
    strides = [tuple(a.strides[:len(batch)]) if a is not None else (0,) * len(batch) for a in arrays]
    cshape, cstrides = collapse_dims(tuple(batch), *strides)
    for pshape, pstrides, poffs in split_leading(cshape, cstrides, ndim=2):
        pshape = (1,) * (2 - len(pshape)) + tuple(pshape)
        pstrides = [(0,) * (2 - len(s)) + tuple(s) for s in pstrides]
        for piece, offs in grid_yz_pieces(*pshape, pstrides):  # (the batch is grid dim 2)
            views = [a.view(a.shape, a.strides, a.offset + off + o) if a is not None else None
                     for a, off, o in zip(arrays, poffs, offs)]
            yield piece, pstrides, views


def _meta(q, mask, is_causal, precision):
    return dict(
        HAS_MASK=mask is not None, MASK_BOOL=mask is not None and mask.dtype == np.bool_, CAUSAL=bool(is_causal),
        PRECISION="ieee" if precision == "highest" else "tf32", FMA=q.dtype == np.float64,
        UPCAST=INTERPRET and q.dtype.itemsize == 2, ACC=_tl_acc(q.dtype),
    )


def _check_stats(row_max, log_sum) -> None:
    if row_max.strides != log_sum.strides:  # the kernels take one set of strides for both
        raise ValueError(f"attention kernel: row_max strides {row_max.strides} != log_sum strides {log_sum.strides}")


def attention_forward(out, row_max, log_sum, q, k, v, mask, *, scale: float, is_causal: bool,
                      precision: str = "highest") -> None:
    """``out`` = softmax(q k^T * scale [+ mask], causal) v, and each score row's maximum and log of its
    shifted exp sum (see the module doc)."""
    batch, E, Ev = _check(q, k, v, mask, out)
    _check_stats(row_max, log_sum)
    L, S = q.shape[-2], k.shape[-2]
    if out.numel == 0 and row_max.numel == 0:
        return
    if S == 0:  # no keys: every row is fully masked (zeros), and k/v hold no memory to read
        fill(out, 0)
        fill(row_max, float("-inf"))
        fill(log_sum, 0)
        return
    cfg = pick_config(L, S, E, Ev, q.dtype, has_mask=mask is not None)
    meta = _meta(q, mask, is_causal, precision)
    int64 = needs_int64(out, q, k, v, mask)
    for (b1, b2), st, (o, rm, ls, qq, kk, vv, mm) in _pieces(batch, out, row_max, log_sum, q, k, v, mask):
        so, sl, _, sq, sk, sv, sm = st
        mm_arr = mm if mm is not None else qq
        msk = (*sm, mask.strides[-2], mask.strides[-1]) if mask is not None else (0, 0, 0, 0)
        launch(
            _attn_fwd_kernel, (cdiv(L, cfg["BLOCK_M"]), b1 * b2),
            o, rm, ls, qq, kk, vv, mm_arr, L, S, E, Ev, b2,
            *so, out.strides[-2], out.strides[-1], *sl, row_max.strides[-1],
            *sq, q.strides[-2], q.strides[-1], *sk, k.strides[-2], k.strides[-1],
            *sv, v.strides[-2], v.strides[-1], *msk, float64_bits(scale),
            INT64=int64, BLOCK_E=_head_block(E), BLOCK_EV=_head_block(Ev), **meta, **cfg,
        )


def attention_backward(dq, dk, dv, dout, q, k, v, mask, out, row_max, log_sum, *, scale: float, is_causal: bool,
                       precision: str = "highest") -> None:
    """``dq``, ``dk``, ``dv`` (at the broadcast batch shape) from ``dout`` and the forward's ``out``,
    ``row_max`` and ``log_sum``."""
    batch, E, Ev = _check(q, k, v, mask, out)
    _check_stats(row_max, log_sum)
    L, S = q.shape[-2], k.shape[-2]
    if S == 0 or L == 0:  # no scores: dq is zero, dk and dv are empty (or zero when L == 0)
        for g in (dq, dk, dv):
            fill(g, 0)
        return
    acc = float_acc(q.dtype)
    meta = _meta(q, mask, is_causal, precision)
    int64 = needs_int64(dq, dk, dv, dout, q, k, v, mask, out)
    cfg = pick_config(L, S, E, Ev, q.dtype, backward=True)
    n_batch = math.prod(batch)
    delta = rt.empty((max(n_batch, 1) * L,), acc, out.device)
    be, bev = _head_block(E), _head_block(Ev)
    msk_last = (mask.strides[-2], mask.strides[-1]) if mask is not None else (0, 0)
    done = 0  # batch entries handled by earlier pieces: each piece's delta rows start after them
    for (b1, b2), st, views in _pieces(batch, dq, dk, dv, dout, q, k, v, mask, out, row_max, log_sum):
        sdq, sdk, sdv, sdo, sq, sk, sv, sm, so, sl, _ = st
        vdq, vdk, vdv, vdo, vq, vk, vv, vm, vo, vrm, vls = views
        vm = vm if vm is not None else vq
        dl = delta.view((b1 * b2 * L,), (1,), delta.offset + done * L)
        done += b1 * b2
        launch(_attn_bwd_delta_kernel, (cdiv(L, cfg["BLOCK_M"]), b1 * b2),
               dl, vo, vdo, L, Ev, b2, *so, out.strides[-2], out.strides[-1],
               *sdo, dout.strides[-2], dout.strides[-1],
               ACC=meta["ACC"], INT64=int64, BLOCK_M=cfg["BLOCK_M"], BLOCK_EV=bev, num_warps=4)
        common = (L, S, E, Ev, b2)
        tail = (*sq, q.strides[-2], q.strides[-1], *sk, k.strides[-2], k.strides[-1],
                *sv, v.strides[-2], v.strides[-1], *sm, *msk_last,
                *sdo, dout.strides[-2], dout.strides[-1], *sl, row_max.strides[-1], float64_bits(scale))
        launch(_attn_bwd_dkdv_kernel, (cdiv(S, cfg["BLOCK_N"]), b1 * b2),
               vdk, vdv, vq, vk, vv, vm, vdo, vrm, vls, dl, *common,
               *sdk, dk.strides[-2], dk.strides[-1], *sdv, dv.strides[-2], dv.strides[-1], *tail,
               INT64=int64, BLOCK_E=be, BLOCK_EV=bev, **meta, **cfg)
        launch(_attn_bwd_dq_kernel, (cdiv(L, cfg["BLOCK_M"]), b1 * b2),
               vdq, vq, vk, vv, vm, vdo, vrm, vls, dl, *common,
               *sdq, dq.strides[-2], dq.strides[-1], *tail,
               INT64=int64, BLOCK_E=be, BLOCK_EV=bev, **meta, **cfg)


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def _mT(a):
    """The last two dims swapped, made contiguous: numpy's batched matmul is far slower on a transposed view."""
    return np.ascontiguousarray(np.swapaxes(a, -1, -2))


def _twin_scores(q, k, mask, scale, is_causal, acc):
    qf = np.asarray(q, dtype=host_float(q.dtype)).astype(acc)
    kf = np.asarray(k, dtype=host_float(k.dtype)).astype(acc)
    L, S = qf.shape[-2], kf.shape[-2]
    with np.errstate(all="ignore"):
        s = np.matmul(qf, _mT(kf)) * acc.type(scale)
    keep = np.ones(s.shape, dtype=bool)
    if is_causal:
        keep &= np.tril(np.ones((L, S), dtype=bool))
    if mask is not None:
        if mask.dtype == np.bool_:
            keep &= mask
        else:
            s = s + np.asarray(mask, dtype=host_float(mask.dtype)).astype(acc)
    return qf, kf, s, keep


def attention_forward_twin(out, row_max, log_sum, q, k, v, mask, *, scale: float, is_causal: bool,
                           precision: str = "highest") -> None:
    acc = float_acc(q.dtype)
    _, _, s, keep = _twin_scores(q, k, mask, scale, is_causal, acc)
    vf = np.asarray(v, dtype=host_float(v.dtype)).astype(acc)
    with np.errstate(all="ignore"):
        s = np.where(keep, s, -np.inf)
        m = s.max(axis=-1, keepdims=True, initial=-np.inf)
        shift = np.where(m == -np.inf, acc.type(0), m)
        e = np.exp(s - shift)
        lsum = e.sum(axis=-1, keepdims=True)
        p = e / np.where(lsum == 0, acc.type(1), lsum)
        o = np.matmul(p, vf)
        empty = (lsum == 0)[..., 0]
        rm = np.where(empty, -np.inf, shift[..., 0])
        ls = np.log(np.where(empty, acc.type(1), lsum[..., 0]))
    out[...] = host_cast(o, out.dtype)
    row_max[...] = rm.astype(acc)
    log_sum[...] = ls.astype(acc)


def attention_backward_twin(dq, dk, dv, dout, q, k, v, mask, out, row_max, log_sum, *, scale: float,
                            is_causal: bool, precision: str = "highest") -> None:
    acc = float_acc(q.dtype)
    qf, kf, s, keep = _twin_scores(q, k, mask, scale, is_causal, acc)
    vf = np.asarray(v, dtype=host_float(v.dtype)).astype(acc)
    do = np.asarray(dout, dtype=host_float(dout.dtype)).astype(acc)
    of = np.asarray(out, dtype=host_float(out.dtype)).astype(acc)
    rm = np.asarray(row_max, dtype=acc)[..., None]
    ls = np.asarray(log_sum, dtype=acc)[..., None]
    with np.errstate(all="ignore"):
        dead = rm == -np.inf
        p = np.where(keep & ~dead, np.exp((s - np.where(dead, acc.type(0), rm)) - ls), acc.type(0))
        dvv = np.matmul(_mT(p), do)
        dp = np.matmul(do, _mT(vf))
        delta = (do * of).sum(axis=-1, keepdims=True)
        ds = p * (dp - delta)
        dqq = np.matmul(ds, kf) * acc.type(scale)
        dkk = np.matmul(_mT(ds), qf) * acc.type(scale)
    dq[...] = host_cast(dqq, dq.dtype)
    dk[...] = host_cast(dkk, dk.dtype)
    dv[...] = host_cast(dvv, dv.dtype)
