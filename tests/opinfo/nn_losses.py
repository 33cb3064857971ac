"""OpInfo entries for the fused ops of the losses and attention (issue 5): ``cross_entropy`` with class
indices (the ``cross_entropy_loss`` op and, through the gradient tests, its fused backward) and
``scaled_dot_product_attention`` (the fused attention op and its fused backward).

References are numpy, written here from the definitions (PyTorch's): cross-entropy as
``-w_t log_softmax(x)_t`` mixed with the weighted uniform term for label smoothing, 'mean' divided
by ``sum(w_t)`` over non-ignored rows; attention as ``softmax(q k^T * scale + mask) v`` with rows
whose keys are all masked giving zeros.

Samples cover: (C) with a 0-d target, (N, C), (N, C, d1, d2) (class dim strided), ignore_index,
class weights, label smoothing, an empty batch, NaN/inf logits; attention 2-D and 4-D, causal
with L < S and L > S, bool and float masks that broadcast, a fully masked row, grouped-query
heads, an explicit scale, head dims that are not powers of two and Ev != E. The generic tests
also run everything non-contiguous (NaN in the gaps) and on cuda.
"""

from __future__ import annotations

import numpy as np

import tensorlab as tl
import tensorlab.nn.functional as F
from tests.helpers import random_array

from .core import OpInfo, SampleInput, float_dtypes

F32, F16, BF16, F64 = tl.float32, tl.float16, tl.bfloat16, tl.float64

# ----------------------------------------------------------------------------------------------
# cross_entropy (class indices)
# ----------------------------------------------------------------------------------------------


def ce_reference(x, t, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
    """PyTorch's cross-entropy with class indices, in float64 numpy."""
    x = np.asarray(x, dtype=np.float64)
    cd = 0 if x.ndim == 1 else 1
    xr = np.moveaxis(x, cd, -1).reshape(-1, x.shape[cd])
    tr = np.asarray(t).reshape(-1).astype(np.int64)
    n_classes = xr.shape[1]
    w = np.ones(n_classes) if weight is None else np.asarray(weight, dtype=np.float64)
    with np.errstate(all="ignore"):
        m = np.max(xr, axis=1, keepdims=True, initial=-np.inf)
        m = np.where(m == -np.inf, 0, m)  # an all -inf row: no shift (PyTorch gives NaN there)
        logp = xr - m - np.log(np.exp(xr - m).sum(axis=1, keepdims=True))
    valid = tr != ignore_index
    ts = np.where(valid, tr, 0)
    rows = np.arange(len(tr))
    w_t = np.where(valid, w[ts], 0.0)
    with np.errstate(all="ignore"):
        nll = np.where(valid, -w_t * logp[rows, ts], 0.0)
        loss = nll
        if label_smoothing > 0:
            smooth = np.where(valid, -(logp * w).sum(axis=1), 0.0)
            loss = (1 - label_smoothing) * nll + label_smoothing / n_classes * smooth
    if reduction == "none":
        return loss.reshape(np.asarray(t).shape)
    if reduction == "sum":
        return loss.sum()
    with np.errstate(all="ignore"):
        return loss.sum() / w_t.sum()


def _ce_samples(dtype, rng):
    def logits(shape):
        return random_array(shape, dtype, rng)

    w5 = random_array((5,), dtype, rng, 0.1, 2.0)
    t2 = rng.integers(0, 5, size=(7,))
    t2[[1, 4]] = -100
    t4 = rng.integers(0, 5, size=(2, 3, 4))
    t4[0, 1, 2] = 3
    t4[1, 0, 0] = 7  # a custom ignore_index
    extremal = np.array([[1.0, np.inf, 0.0], [np.nan, 1.0, 2.0], [-np.inf, 0.0, 1.0], [-np.inf, -np.inf, -np.inf],
                         [30.0, -30.0, 0.0]]).astype(dtype.np)
    samples = [
        SampleInput((logits((7, 5)), t2, None), {}, name="NC-ignore"),
        SampleInput((logits((7, 5)), t2, w5), {"reduction": "sum"}, name="NC-weight-sum"),
        SampleInput((logits((7, 5)), t2, None), {"label_smoothing": 0.2}, name="NC-smooth"),
        SampleInput((logits((7, 5)), t2, w5), {"label_smoothing": 0.3, "reduction": "none"},
                    name="NC-weight-smooth-none"),
        SampleInput((logits((2, 5, 3, 4)), t4, w5), {"ignore_index": 7, "label_smoothing": 0.1}, name="NCHW"),
        SampleInput((logits((5,)), np.array(2), None), {"reduction": "none"}, name="C"),
        SampleInput((logits((1, 1)), np.array([0]), None), {"label_smoothing": 0.5}, name="one-class"),
        SampleInput((logits((0, 5)), np.zeros((0,), np.int64), None), {"reduction": "sum"}, name="empty"),
        SampleInput((logits((3, 33)), rng.integers(0, 33, size=(3,)), None), {"reduction": "none"},
                    name="masked-tail"),
    ]
    if dtype is not F64:
        samples.append(SampleInput((extremal, np.array([0, 1, 2, 0, 1]), None), {"reduction": "none"},
                                   name="extremal"))
    for s in samples:
        s.grad_args = (0,)  # class weights are not differentiable (PyTorch refuses them)
    return samples


def _ce_op(x, t, weight, **kwargs):
    return F.cross_entropy(x, t, weight, **kwargs)


# ----------------------------------------------------------------------------------------------
# scaled_dot_product_attention
# ----------------------------------------------------------------------------------------------


def sdpa_reference(q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    """softmax(q k^T * scale + mask) v in float64 numpy; rows with every key masked give zeros."""
    q, k, v = (np.asarray(a, dtype=np.float64) for a in (q, k, v))
    if enable_gqa and q.shape[-3] != k.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k, v = np.repeat(k, rep, axis=-3), np.repeat(v, rep, axis=-3)
    L, S = q.shape[-2], k.shape[-2]
    scale = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * scale
    keep = np.ones(s.shape, dtype=bool)
    if is_causal:
        keep = keep & np.tril(np.ones((L, S), dtype=bool))
    if attn_mask is not None:
        if attn_mask.dtype == np.bool_:
            keep = keep & attn_mask
        else:
            s = s + np.asarray(attn_mask, dtype=np.float64)
    keep = np.broadcast_to(keep, np.broadcast_shapes(keep.shape, s.shape))
    s = np.where(keep, s, -np.inf)
    with np.errstate(all="ignore"):
        m = s.max(axis=-1, keepdims=True, initial=-np.inf)
        e = np.exp(s - np.where(np.isfinite(m), m, 0))
        tot = e.sum(axis=-1, keepdims=True)
        p = np.where(tot == 0, 0.0, e / np.where(tot == 0, 1.0, tot))
    return np.matmul(p, v)


def _sdpa_samples(dtype, rng):
    def a(*shape):
        return random_array(shape, dtype, rng, -1.5, 1.5)

    mask_b = rng.random((3, 5)) < 0.6
    mask_b[:, 0] = True
    dead = rng.random((5, 7)) < 0.6
    dead[3] = False  # a query whose keys are all masked
    mask_f = random_array((2, 1, 6), dtype, rng)  # (H, 1, S): broadcast over the batch and the queries
    mask_f[1, 0, 2] = -np.inf
    # small enough for gradcheck (float64 finite differences over every element)
    samples = [
        SampleInput((a(5, 16), a(7, 16), a(7, 16), None), {}, name="2d"),
        SampleInput((a(1, 2, 5, 16), a(1, 2, 7, 16), a(1, 2, 7, 8), None), {"is_causal": True},
                    name="causal-L<S-Ev"),
        SampleInput((a(1, 9, 24), a(1, 6, 24), a(1, 6, 24), None), {"is_causal": True, "scale": 0.3},
                    name="causal-L>S-E24"),
        SampleInput((a(1, 1, 5, 16), a(1, 1, 7, 16), a(1, 1, 7, 16), dead), {}, name="bool-mask-dead-row"),
        SampleInput((a(1, 2, 4, 16), a(1, 2, 6, 16), a(1, 2, 6, 16), mask_f), {}, name="float-mask"),
        SampleInput((a(1, 4, 3, 16), a(1, 2, 5, 16), a(1, 2, 5, 16), mask_b), {"enable_gqa": True}, name="gqa"),
    ]
    for s in samples:
        s.grad_args = (0, 1, 2)  # the mask is an input, not a parameter
    return samples


def _sdpa_op(q, k, v, attn_mask, **kwargs):
    return F.scaled_dot_product_attention(q, k, v, attn_mask, **kwargs)


OPS = [
    OpInfo("nn.functional.cross_entropy", _ce_op, ce_reference, _ce_samples, float_dtypes(),
           cuda_dtypes=(F32, F16, BF16),
           tol={F32: (1e-5, 1e-6), F16: (2e-3, 1e-3), BF16: (1.6e-2, 1e-2)}),
    OpInfo("nn.functional.scaled_dot_product_attention", _sdpa_op, sdpa_reference, _sdpa_samples, float_dtypes(),
           cuda_dtypes=(F32, F16, BF16), noncontiguous=True,
           tol={F32: (1e-5, 1e-5), F16: (2e-3, 3e-3), BF16: (2e-2, 3e-2), F64: (1e-7, 1e-9)}),
]
