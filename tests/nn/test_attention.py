"""Attention (issue 5): ``scaled_dot_product_attention`` (the fused kernel and the composed paths) and
``nn.MultiheadAttention``, against numpy computations written here from PyTorch's definitions.

SDPA: forward and gradients against a numpy ``softmax(q k^T * scale + mask) v`` and its analytic
backward, finite differences (float64, cpu), cuda (real or interpreted) against cpu; causal masks
(upper-left aligned, L < S and L > S), boolean and float masks that broadcast, fully masked rows,
grouped-query heads, head dims 16..128 and non powers of two, half precision, dropout, errors.
MultiheadAttention: a numpy reimplementation of PyTorch's algorithm with the same weights, every
option; parameter names, ``state_dict`` keys and initialisation as PyTorch's.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn as nn
import tensorlab.nn.functional as F
from tests.helpers import to_numpy
from tests.opinfo.nn_losses import sdpa_reference

CUDA = tl.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="no cuda device (real or interpreted)")
DEVICES = ["cpu"] + (["cuda"] if CUDA else [])
RNG = np.random.default_rng(11222026)


def T(a, device="cpu", dtype=None, grad=False):
    t = tl.tensor(np.asarray(a), device=device, dtype=dtype)
    return t.requires_grad_(True) if grad else t


def rand(*shape):
    return RNG.standard_normal(shape)


def sdpa_grads_reference(q, k, v, g, mask=None, is_causal=False, scale=None):
    """d(sum(out * g)) / d(q, k, v) of the numpy reference, by the analytic softmax backward."""
    q, k, v, g = (np.asarray(a, dtype=np.float64) for a in (q, k, v, g))
    L, S = q.shape[-2], k.shape[-2]
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = q @ np.swapaxes(k, -1, -2) * scale
    keep = np.ones(s.shape, bool)
    if is_causal:
        keep &= np.tril(np.ones((L, S), bool))
    if mask is not None:
        if mask.dtype == np.bool_:
            keep &= mask
        else:
            s = s + mask
    s = np.where(keep, s, -np.inf)
    with np.errstate(all="ignore"):
        m = s.max(-1, keepdims=True, initial=-np.inf)
        e = np.exp(s - np.where(np.isfinite(m), m, 0))
        p = np.nan_to_num(e / e.sum(-1, keepdims=True))
    dv = np.swapaxes(p, -1, -2) @ g
    dp = g @ np.swapaxes(v, -1, -2)
    ds = p * (dp - (dp * p).sum(-1, keepdims=True))
    return ds @ k * scale, np.swapaxes(ds, -1, -2) @ q * scale, dv, ds


def run_sdpa(device, dtype, q, k, v, mask=None, grad_out=None, **kwargs):
    """Output and (with ``grad_out``) the input gradients, as numpy float64."""
    args = [T(a, device, dtype, grad=grad_out is not None) for a in (q, k, v)]
    m = None
    if mask is not None:
        m = T(mask, device, tl.bool if mask.dtype == np.bool_ else dtype)
    out = F.scaled_dot_product_attention(*args, attn_mask=m, **kwargs)
    assert out.dtype is dtype and out.device.type == device
    res = [to_numpy(out.float() if dtype.itemsize == 2 else out).astype(np.float64)]
    if grad_out is not None:
        out.backward(T(grad_out, device, dtype))
        res += [to_numpy(a.grad.float() if dtype.itemsize == 2 else a.grad).astype(np.float64) for a in args]
    return res


CASES = {
    # name: (q shape, k shape, v shape, kwargs, mask)
    "plain": ((2, 3, 5, 16), (2, 3, 7, 16), (2, 3, 7, 16), {}, None),
    "causal-L<S": ((1, 2, 5, 16), (1, 2, 9, 16), (1, 2, 9, 8), {"is_causal": True}, None),
    "causal-L>S": ((2, 11, 32), (2, 4, 32), (2, 4, 32), {"is_causal": True}, None),
    "bool-mask": ((2, 2, 6, 16), (2, 2, 5, 16), (2, 2, 5, 16), {}, RNG.random((6, 5)) < 0.6),
    "float-mask-bcast": ((2, 2, 6, 16), (2, 2, 5, 16), (2, 2, 5, 24), {"scale": 0.2}, RNG.standard_normal((2, 1, 5))),
    # is_causal with an attn_mask is an error (PyTorch's); the causal mask spelled out instead
    "tril&mask": ((1, 1, 7, 16), (1, 1, 7, 16), (1, 1, 7, 16), {}, np.tril(RNG.random((7, 7)) < 0.7)),
    "2d-E40": ((6, 40), (9, 40), (9, 24), {}, None),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(CASES))
def test_sdpa_forward_and_backward_match_reference(device, case):
    qs, ks, vs, kwargs, mask = CASES[case]
    q, k, v = rand(*qs), rand(*ks), rand(*vs)
    if mask is not None and mask.dtype == np.bool_:
        mask = mask.copy()
        mask[:, 0] = True  # no fully masked row here (those have their own test)
    expected = sdpa_reference(q, k, v, mask, **kwargs)
    g = rand(*expected.shape)
    dq, dk, dv, _ = sdpa_grads_reference(q, k, v, g, mask, kwargs.get("is_causal", False), kwargs.get("scale"))
    for dtype, tol in ((tl.float32, 2e-5), (tl.float64, 1e-12)):
        if device == "cuda" and dtype is tl.float64 and case not in ("plain", "causal-L>S"):
            continue  # the fp64 kernel path once is enough in the interpreter
        out, gq, gk, gv = run_sdpa(device, dtype, q, k, v, mask, grad_out=g, **kwargs)
        np.testing.assert_allclose(out, expected, rtol=tol, atol=tol)
        np.testing.assert_allclose(gq, dq, rtol=tol * 10, atol=tol * 10)
        np.testing.assert_allclose(gk, dk, rtol=tol * 10, atol=tol * 10)
        np.testing.assert_allclose(gv, dv, rtol=tol * 10, atol=tol * 10)


def test_sdpa_gradcheck_and_double_backward():
    q, k, v = rand(1, 2, 4, 8), rand(1, 2, 6, 8), rand(1, 2, 6, 4)
    mask = RNG.standard_normal((4, 6))
    for kwargs in ({}, {"is_causal": True}, {"attn_mask": T(mask)}, {"attn_mask": T(mask > -0.5)}):
        args = [T(a, grad=True) for a in (q, k, v)]
        assert tl.autograd.gradcheck(lambda a, b, c, kw=kwargs: F.scaled_dot_product_attention(a, b, c, **kw), args,
                                     eps=1e-6, atol=1e-6, rtol=1e-4)
    args = [T(a[:, :1, :3], grad=True) for a in (q, k, v)]
    assert tl.autograd.gradgradcheck(lambda a, b, c: F.scaled_dot_product_attention(a, b, c, is_causal=True), args)


def test_sdpa_uses_the_fused_op():
    q = T(rand(2, 5, 16), grad=True)
    out = F.scaled_dot_product_attention(q, q, q)
    assert out.grad_fn.name() == "ScaledDotProductAttentionBackward0"
    assert "scaled_dot_product_attention" in [op.name for op in tl.registered_ops("attention")]


@pytest.mark.parametrize("device", DEVICES)
def test_sdpa_fully_masked_rows_are_zero(device):
    """PyTorch's safe softmax: a query with every key masked gets zeros and zero gradients (no NaN)."""
    q, k, v = rand(1, 4, 16), rand(1, 6, 16), rand(1, 6, 16)
    bmask = RNG.random((4, 6)) < 0.7
    bmask[:, 0] = True
    bmask[2] = False
    fmask = np.where(bmask, 0.0, -np.inf)
    g = rand(1, 4, 16)
    for mask in (bmask, fmask):
        out, gq, gk, gv = run_sdpa(device, tl.float32, q, k, v, mask, grad_out=g)
        assert np.all(out[0, 2] == 0) and np.all(gq[0, 2] == 0)
        assert np.isfinite(gk).all() and np.isfinite(gv).all()
        np.testing.assert_allclose(out, sdpa_reference(q, k, v, bmask), rtol=2e-5, atol=2e-5)
        dq, dk, dv, _ = sdpa_grads_reference(q, k, v, g, bmask)
        np.testing.assert_allclose(gk, dk, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
def test_sdpa_causal_is_upper_left_tril(device):
    """is_causal equals an explicit tril(ones(L, S)) boolean mask, for L > S and L < S."""
    for L, S in ((7, 3), (3, 7)):
        q, k, v = rand(L, 16), rand(S, 16), rand(S, 16)
        a = run_sdpa(device, tl.float32, q, k, v, is_causal=True)[0]
        b = run_sdpa(device, tl.float32, q, k, v, np.tril(np.ones((L, S), bool)))[0]
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)
        # the first query sees only the first key: its output is v[0]
        np.testing.assert_allclose(a[0], v[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_sdpa_mask_never_enlarges_the_output(device):
    # PyTorch adds the mask in place into the weights (batch of query and key, L, S; all-3-D inputs as 4-D with a
    # leading 1): a mask may have extra leading 1s, never more. The output was (1, 2, 3, 4) here, (2, 2, 3, 4) below.
    q, k, v = rand(2, 3, 4), rand(2, 5, 4), rand(2, 5, 4)
    keep = RNG.random((2, 3, 5)) < 0.7
    keep[..., 0] = True
    out = run_sdpa(device, tl.float32, q, k, v, keep[None])[0]
    assert out.shape == (2, 3, 4)
    np.testing.assert_allclose(out, sdpa_reference(q, k, v, keep), rtol=2e-5, atol=2e-5)
    assert run_sdpa(device, tl.float32, q, k, v, np.ones((1, 1, 3, 5), bool))[0].shape == (2, 3, 4)
    for m in (np.ones((2, 1, 3, 5), bool), np.ones((1, 1, 1, 3, 5), bool)):
        with pytest.raises(RuntimeError, match=r"does not broadcast to the attention weights' shape \[1, 2, 3, 5\]"):
            run_sdpa(device, tl.float32, q, k, v, m)
    with pytest.raises(RuntimeError, match=r"attn_mask of shape \[1, 3, 5\] does not broadcast"):
        run_sdpa(device, tl.float32, rand(3, 4), rand(5, 4), rand(5, 4), np.ones((1, 3, 5), bool))
    with pytest.raises(RuntimeError, match=r"attn_mask of shape \[1, 1, 2, 3, 5\] does not broadcast"):
        run_sdpa(device, tl.float32, rand(1, 2, 3, 4), rand(1, 2, 5, 4), rand(1, 2, 5, 4),
                 np.ones((1, 1, 2, 3, 5), bool))
    # grouped-query heads: the weights have the query's heads
    q, k, v = rand(4, 3, 4), rand(2, 5, 4), rand(2, 5, 4)
    keep = RNG.random((4, 3, 5)) < 0.7
    keep[..., 0] = True
    out = run_sdpa(device, tl.float32, q, k, v, keep[None], enable_gqa=True)[0]
    assert out.shape == (4, 3, 4)
    np.testing.assert_allclose(out, sdpa_reference(q, np.repeat(k, 2, 0), np.repeat(v, 2, 0), keep), rtol=2e-5,
                               atol=2e-5)
    with pytest.raises(RuntimeError, match=r"attn_mask of shape \[2, 4, 3, 5\] does not broadcast"):
        run_sdpa(device, tl.float32, q, k, v, np.ones((2, 4, 3, 5), bool), enable_gqa=True)


@pytest.mark.parametrize("device", DEVICES)
def test_sdpa_gqa_and_batch_broadcast(device):
    q, k, v = rand(2, 6, 5, 16), rand(2, 2, 7, 16), rand(2, 2, 7, 16)
    g = rand(2, 6, 5, 16)
    out, gq, gk, gv = run_sdpa(device, tl.float32, q, k, v, grad_out=g, enable_gqa=True)
    kr, vr = np.repeat(k, 3, axis=1), np.repeat(v, 3, axis=1)
    np.testing.assert_allclose(out, sdpa_reference(q, kr, vr), rtol=2e-5, atol=2e-5)
    dq, dk, dv, _ = sdpa_grads_reference(q, kr, vr, g)
    np.testing.assert_allclose(gk, dk.reshape(2, 2, 3, 7, 16).sum(2), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gv, dv.reshape(2, 2, 3, 7, 16).sum(2), rtol=1e-4, atol=1e-4)
    # a query shared by a batch of keys (stride-0 broadcast): q's gradient sums over the batch
    q1 = rand(1, 2, 5, 16)
    out, gq, _, _ = run_sdpa(device, tl.float32, q1, k, v, grad_out=g[:, :2])
    np.testing.assert_allclose(out, sdpa_reference(np.broadcast_to(q1, (2, 2, 5, 16)), k, v), rtol=2e-5, atol=2e-5)
    dq, _, _, _ = sdpa_grads_reference(np.broadcast_to(q1, (2, 2, 5, 16)), k, v, g[:, :2])
    np.testing.assert_allclose(gq, dq.sum(0, keepdims=True), rtol=1e-4, atol=1e-4)


@needs_cuda
@pytest.mark.parametrize("head_dim", [16, 32, 64, 128])
def test_sdpa_cuda_head_dims_half(head_dim):
    q, k, v = rand(1, 2, 9, head_dim), rand(1, 2, 13, head_dim), rand(1, 2, 13, head_dim)
    g = rand(1, 2, 9, head_dim)
    dq, dk, dv, _ = sdpa_grads_reference(q, k, v, g, is_causal=True)
    for dtype, tol in ((tl.float16, 4e-3), (tl.bfloat16, 3e-2)):
        qh, kh, vh, gh = (a.astype(dtype.np).astype(np.float64) for a in (q, k, v, g))
        out, gq, gk, gv = run_sdpa("cuda", dtype, qh, kh, vh, grad_out=gh, is_causal=True)
        np.testing.assert_allclose(out, sdpa_reference(qh, kh, vh, is_causal=True), rtol=tol, atol=tol)
        for got, ref in ((gq, dq), (gk, dk), (gv, dv)):
            np.testing.assert_allclose(got, ref, rtol=5 * tol, atol=5 * tol)


@needs_cuda
def test_sdpa_cuda_noncontiguous_inputs():
    """(N, L, H, E) tensors transposed to (N, H, L, E): read through their strides, no copies."""
    q, k, v = rand(2, 5, 2, 16), rand(2, 7, 2, 16), rand(2, 7, 2, 16)
    res = {}
    for dev in ("cpu", "cuda"):
        args = [T(a, dev, tl.float32, grad=True) for a in (q, k, v)]
        views = [a.transpose(1, 2) for a in args]
        assert not views[0].is_contiguous()
        out = F.scaled_dot_product_attention(*views, is_causal=True)
        out.backward(T(np.ones(out.shape, np.float32), dev))
        res[dev] = [to_numpy(out)] + [to_numpy(a.grad) for a in args]
    for c, g in zip(res["cpu"], res["cuda"]):
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-5)


def _laid_out(shape, order, device, grad=True):
    """A float32 tensor of ``shape`` whose memory holds its dims in ``order`` (outermost first), random values."""
    inv = [order.index(d) for d in range(len(shape))]
    t = T(rand(*[shape[d] for d in order]), device, tl.float32).permute(*inv)
    return t.detach().requires_grad_(True) if grad else t


# name: (q, k, v as (shape, memory order), kwargs, the output's strides in PyTorch 2.15 on cpu)
_BLHE, _BHLE = (0, 2, 1, 3), (0, 1, 2, 3)
LAYOUT_CASES = {
    # PyTorch's fused cpu kernel: the output laid out as the query (empty_like(query))
    "q-transposed": (((2, 2, 4, 3), _BLHE), ((2, 2, 4, 3), _BLHE), ((2, 2, 4, 3), _BLHE), {}, (24, 3, 6, 1)),
    "q-contiguous": (((2, 2, 4, 3), _BHLE), ((2, 2, 5, 3), _BLHE), ((2, 2, 5, 3), _BLHE), {}, (24, 12, 3, 1)),
    "q-heads-outermost": (((2, 3, 4, 6), (1, 0, 2, 3)), ((2, 3, 5, 6), _BHLE), ((2, 3, 5, 6), _BHLE), {},
                          (24, 48, 6, 1)),
    "q-transposed-causal": (((2, 2, 4, 3), _BLHE), ((2, 2, 5, 3), _BHLE), ((2, 2, 5, 3), _BHLE),
                            {"is_causal": True}, (24, 3, 6, 1)),
    "q-transposed-bool-mask": (((2, 2, 4, 3), _BLHE), ((2, 2, 5, 3), _BHLE), ((2, 2, 5, 3), _BHLE),
                               {"attn_mask": "bool"}, (24, 3, 6, 1)),
    "q-transposed-float-mask": (((2, 2, 4, 3), _BLHE), ((2, 2, 5, 3), _BHLE), ((2, 2, 5, 3), _BHLE),
                                {"attn_mask": "float"}, (24, 3, 6, 1)),
    "3d-q-transposed": (((2, 4, 3), (1, 0, 2)), ((2, 5, 3), (0, 1, 2)), ((2, 5, 3), (0, 1, 2)), {}, (3, 6, 1)),
    "gqa-q-transposed": (((2, 4, 4, 3), _BLHE), ((2, 2, 5, 3), _BLHE), ((2, 2, 5, 3), _BLHE), {"enable_gqa": True},
                         (48, 3, 12, 1)),
    "size-1-head-dim": (((2, 2, 4, 1), _BLHE), ((2, 2, 5, 1), _BHLE), ((2, 2, 5, 1), _BHLE), {}, (8, 1, 2, 1)),
    # PyTorch's math path: a contiguous output
    "value-head-dim-differs": (((2, 2, 4, 3), _BLHE), ((2, 2, 5, 3), _BLHE), ((2, 2, 5, 7), _BLHE), {},
                               (56, 28, 7, 1)),
    "q-last-dim-strided": (((2, 3, 4, 6), (0, 1, 3, 2)), ((2, 3, 5, 6), _BHLE), ((2, 3, 5, 6), _BHLE), {},
                           (72, 24, 6, 1)),
    "key-batch-broadcast": (((2, 2, 4, 3), _BLHE), ((1, 2, 5, 3), _BHLE), ((1, 2, 5, 3), _BHLE), {},
                            (24, 12, 3, 1)),
    "float-mask-requires-grad": (((2, 2, 4, 3), _BLHE), ((2, 2, 5, 3), _BHLE), ((2, 2, 5, 3), _BHLE),
                                 {"attn_mask": "float-grad"}, (24, 12, 3, 1)),
    "5d-q-permuted": (((2, 2, 3, 4, 3), (0, 3, 2, 1, 4)), ((2, 2, 3, 5, 3), (0, 1, 2, 3, 4)),
                      ((2, 2, 3, 5, 3), (0, 1, 2, 3, 4)), {}, (72, 36, 12, 3, 1)),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(LAYOUT_CASES))
def test_sdpa_output_layout_follows_pytorch(device, case):
    """PyTorch's output takes the query's layout where its fused kernel runs (so model code may call
    ``out.transpose(1, 2).view(B, L, E)`` on (B, L, H, E) inputs transposed to (B, H, L, E)), and is
    contiguous on its math path; values and gradients (laid out as their leaves) are unchanged."""
    (qs, qo), (ks, ko), (vs, vo), kwargs, strides = LAYOUT_CASES[case]
    q, k, v = (_laid_out(s, o, device) for s, o in ((qs, qo), (ks, ko), (vs, vo)))
    kwargs, mask = dict(kwargs), None
    if kwargs.get("attn_mask") == "bool":
        mask = RNG.random((qs[-2], ks[-2])) < 0.7
        mask[:, 0] = True
        kwargs["attn_mask"] = T(mask, device)
    elif kwargs.get("attn_mask") in ("float", "float-grad"):
        mask = rand(qs[-2], ks[-2])
        kwargs["attn_mask"] = T(mask, device, tl.float32, grad=kwargs["attn_mask"] == "float-grad")
    out = F.scaled_dot_product_attention(q, k, v, **kwargs)
    assert out.stride() == strides
    qn, kn, vn = (to_numpy(a).astype(np.float64) for a in (q, k, v))
    gqa = kwargs.get("enable_gqa", False)
    expected = sdpa_reference(qn, kn, vn, mask, is_causal=kwargs.get("is_causal", False), enable_gqa=gqa)
    np.testing.assert_allclose(to_numpy(out), expected, rtol=2e-5, atol=2e-5)
    g = rand(*expected.shape)
    out.backward(T(g, device, tl.float32))
    if gqa:
        kn, vn = np.repeat(kn, qs[1] // ks[1], axis=1), np.repeat(vn, qs[1] // ks[1], axis=1)
    dq, dk, dv, _ = sdpa_grads_reference(qn, kn, vn, g, mask, kwargs.get("is_causal", False))
    if gqa:
        dk, dv = (d.reshape(ks[0], ks[1], -1, *ks[2:]).sum(2) for d in (dk, dv))
    if ks[0] < qs[0]:  # a key batch broadcast over the query's
        dk, dv = dk.sum(0, keepdims=True), dv.sum(0, keepdims=True)
    for leaf, ref in ((q, dq), (k, dk), (v, dv)):
        assert leaf.grad.stride() == leaf.stride()  # (PyTorch's AccumulateGrad layout)
        np.testing.assert_allclose(to_numpy(leaf.grad), ref, rtol=1e-4, atol=1e-4)


def test_sdpa_transposed_output_views_back_without_a_copy():
    """The model pattern of a (B, L, E) sequence split into heads: ``y.transpose(1, 2).view(B, L, E)``."""
    for dev in DEVICES:
        x = tl.ones(2, 4, 6, device=dev).view(2, 4, 2, 3).transpose(1, 2)
        y = F.scaled_dot_product_attention(x, x, x)
        assert y.stride() == (24, 3, 6, 1)
        assert np.all(to_numpy(y.transpose(1, 2).view(2, 4, 6)) == 1)
        # a head dim above the fused kernel's (the math path) gives the same layout, as PyTorch's
        x = T(rand(1, 3, 2, 300), dev, tl.float32).transpose(1, 2)
        y = F.scaled_dot_product_attention(x, x, x)
        assert y.stride() == (1800, 300, 600, 1)
        np.testing.assert_allclose(to_numpy(y), sdpa_reference(*[to_numpy(x)] * 3), rtol=1e-5, atol=1e-5)
        # dropout (math path): contiguous, as PyTorch's
        x = tl.ones(2, 4, 6, device=dev).view(2, 4, 2, 3).transpose(1, 2)
        assert F.scaled_dot_product_attention(x, x, x, dropout_p=0.5).stride() == (24, 12, 3, 1)


@pytest.mark.parametrize("device", DEVICES)
def test_sdpa_float_mask_gradient(device):
    """A float mask that requires grad gets d(loss)/d(mask) = ds, summed over its broadcast dims."""
    q, k, v = rand(2, 4, 16), rand(2, 6, 16), rand(2, 6, 16)
    mask = rand(4, 6)
    g = rand(2, 4, 16)
    m = T(mask, device, tl.float32, grad=True)
    args = [T(a, device, tl.float32, grad=True) for a in (q, k, v)]
    out = F.scaled_dot_product_attention(*args, attn_mask=m)
    out.backward(T(g, device, tl.float32))
    dq, dk, dv, ds = sdpa_grads_reference(q, k, v, g, mask)
    np.testing.assert_allclose(to_numpy(m.grad), ds.sum(0), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(to_numpy(args[0].grad), dq, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype, big", [(tl.float32, -1e9), (tl.float32, float(np.finfo(np.float32).min)),
                                        (tl.float64, -1e20)])
def test_sdpa_backward_with_a_huge_padding_mask(device, dtype, big):
    """A padding mask of -1e9 or finfo.min: the masked-out row's scores all round to that value, so its
    softmax is uniform, and every row of probabilities sums to 1 in the backward too. (Saving only the
    logsumexp ``m + log(l)`` loses ``log(l)`` next to such an ``m``, and the backward's probabilities then
    summed to S: ``v.grad`` summed to S times the dead row's gradient.)"""
    L, S = 4, 6
    q, k, v, g = rand(2, L, 16), rand(2, S, 16), rand(2, S, 8), rand(2, L, 8)
    mask = np.zeros((L, S))
    mask[1, 3:] = big  # a partly masked row
    mask[2] = big  # a row of padding: every key masked by a finite value
    out, gq, gk, gv = run_sdpa(device, dtype, q, k, v, mask, grad_out=g)
    np.testing.assert_allclose(gv.sum(-2), g.sum(-2), rtol=1e-4, atol=1e-4)  # rows of p sum to 1
    # the reference sees the scores as the kernel does: rounded to the dtype, mask added in the dtype
    np_dt = np.float32 if dtype is tl.float32 else np.float64
    s = q @ np.swapaxes(k, -1, -2) / 4.0
    rounded = (s.astype(np_dt) + mask.astype(np_dt)).astype(np.float64)
    dq, dk, dv, _ = sdpa_grads_reference(q, k, v, g, rounded - s)
    np.testing.assert_allclose(out, sdpa_reference(q, k, v, rounded - s), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gv, dv, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gk, dk, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(gq, dq, rtol=1e-4, atol=1e-4)


def test_sdpa_dropout():
    q, k, v = (T(rand(2, 6, 16)) for _ in range(3))
    assert np.all(to_numpy(F.scaled_dot_product_attention(q, k, v, dropout_p=1.0)) == 0)
    # dropout acts on the attention weights: the same draw as F.dropout on softmax(q k^T / sqrt(E))
    tl.manual_seed(5)
    got = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4)
    tl.manual_seed(5)
    weights = (q.matmul(k.transpose(-2, -1)) / 4.0).softmax(-1)
    expected = F.dropout(weights, 0.4).matmul(v)
    np.testing.assert_allclose(to_numpy(got), to_numpy(expected), rtol=1e-10, atol=1e-12)
    tl.manual_seed(6)
    assert not np.allclose(to_numpy(F.scaled_dot_product_attention(q, k, v, dropout_p=0.4)), to_numpy(got))


def test_sdpa_empty_sequences():
    for dev in DEVICES:
        out = F.scaled_dot_product_attention(T(rand(0, 16), dev), T(rand(3, 16), dev), T(rand(3, 8), dev))
        assert tuple(out.shape) == (0, 8)
        q = T(rand(4, 16), dev, grad=True)
        out = F.scaled_dot_product_attention(q, T(rand(0, 16), dev), T(rand(0, 8), dev))
        assert tuple(out.shape) == (4, 8) and np.all(to_numpy(out) == 0)
        out.backward(T(np.ones((4, 8)), dev))
        assert np.all(to_numpy(q.grad) == 0)


def test_sdpa_errors():
    q, k, v = T(rand(2, 3, 16)), T(rand(2, 5, 16)), T(rand(2, 5, 8))
    with pytest.raises(RuntimeError, match="at least 2 dimensional"):
        F.scaled_dot_product_attention(T(rand(16)), T(rand(16)), T(rand(16)))
    with pytest.raises(RuntimeError, match="same dtype"):
        F.scaled_dot_product_attention(q, k.float(), v)
    with pytest.raises(RuntimeError, match="E=16 must match key's"):
        F.scaled_dot_product_attention(q, T(rand(2, 5, 8)), v)
    with pytest.raises(RuntimeError, match="same sequence length"):
        F.scaled_dot_product_attention(q, k, T(rand(2, 4, 8)))
    with pytest.raises(RuntimeError, match="attn_mask dtype to be bool or float"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=T(np.zeros((3, 5), np.int64)))
    with pytest.raises(RuntimeError, match=r"attn_mask of shape \[4, 5\] does not broadcast"):
        F.scaled_dot_product_attention(q, k, v, attn_mask=T(np.zeros((4, 5), bool)))
    with pytest.raises(RuntimeError, match="must match the size"):
        F.scaled_dot_product_attention(T(rand(3, 2, 3, 16)), T(rand(2, 2, 5, 16)), T(rand(2, 2, 5, 16)))
    with pytest.raises(RuntimeError, match="must divide the number of heads"):
        F.scaled_dot_product_attention(T(rand(1, 4, 3, 16)), T(rand(1, 3, 5, 16)), T(rand(1, 3, 5, 16)),
                                       enable_gqa=True)
    with pytest.raises(RuntimeError, match="dropout probability"):  # (PyTorch's type: its kernel's check)
        F.scaled_dot_product_attention(q, k, v, dropout_p=1.5)
    with pytest.raises(TypeError, match="argument 'key' must be Tensor"):
        F.scaled_dot_product_attention(q, None, v)
    # PyTorch refuses a mask together with is_causal (every backend); it was combined silently
    for mask in (T(np.ones((3, 5), bool)), T(np.zeros((3, 5)))):
        with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set when is_causal=True"):
            F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=True)


@pytest.mark.parametrize("device", DEVICES)
def test_sdpa_zero_head_dim_averages_values(device):
    """E == 0: every score is an empty sum (0), so each query averages the values, as PyTorch
    (values from torch 2.13: the mean of v over S); the default scale 1/sqrt(0) = inf gave NaN."""
    v = rand(2, 5, 3)
    for kwargs in ({}, {"is_causal": True}, {"scale": 0.5}):
        out = F.scaled_dot_product_attention(T(rand(2, 4, 0), device), T(rand(2, 5, 0), device), T(v, device),
                                             **kwargs)
        expected = np.broadcast_to(v.mean(1, keepdims=True), (2, 4, 3))
        if kwargs.get("is_causal"):
            expected = np.stack([np.cumsum(v, 1)[:, i] / (i + 1) for i in range(4)], 1)
        np.testing.assert_allclose(to_numpy(out), expected, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------------------------
# MultiheadAttention
# ----------------------------------------------------------------------------------------------


def mha_reference(query, key, value, w, num_heads, key_padding_mask=None, attn_mask=None, need_weights=True,
                  average=True, batch_first=False, add_zero_attn=False):
    """PyTorch's MultiheadAttention forward in numpy; ``w`` holds the module's parameters by name."""
    unbatched = query.ndim == 2
    if unbatched:
        query, key, value = query[:, None], key[:, None], value[:, None]
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask[None]
    elif batch_first:
        query, key, value = (np.swapaxes(a, 0, 1) for a in (query, key, value))
    L, N, E = query.shape
    hd = E // num_heads
    if "in_proj_weight" in w:
        wq, wk, wv = np.split(w["in_proj_weight"], 3)
    else:
        wq, wk, wv = w["q_proj_weight"], w["k_proj_weight"], w["v_proj_weight"]
    bq, bk, bv = np.split(w["in_proj_bias"], 3) if "in_proj_bias" in w else (0, 0, 0)
    q, k, v = query @ wq.T + bq, key @ wk.T + bk, value @ wv.T + bv

    def as_float(mask):
        if mask is None or mask.dtype != np.bool_:
            return mask
        return np.where(mask, -np.inf, 0.0)

    am, kpm = as_float(attn_mask), as_float(key_padding_mask)
    if "bias_k" in w:
        k = np.concatenate([k, np.tile(w["bias_k"], (1, N, 1))])
        v = np.concatenate([v, np.tile(w["bias_v"], (1, N, 1))])
        am = None if am is None else np.pad(am, [(0, 0)] * (am.ndim - 1) + [(0, 1)])
        kpm = None if kpm is None else np.pad(kpm, [(0, 0), (0, 1)])
    q = q.reshape(L, N * num_heads, hd).transpose(1, 0, 2)
    k = k.reshape(k.shape[0], N * num_heads, hd).transpose(1, 0, 2)
    v = v.reshape(v.shape[0], N * num_heads, hd).transpose(1, 0, 2)
    if add_zero_attn:
        k = np.concatenate([k, np.zeros((N * num_heads, 1, hd))], 1)
        v = np.concatenate([v, np.zeros((N * num_heads, 1, hd))], 1)
        am = None if am is None else np.pad(am, [(0, 0)] * (am.ndim - 1) + [(0, 1)])
        kpm = None if kpm is None else np.pad(kpm, [(0, 0), (0, 1)])
    S = k.shape[1]
    bias = np.zeros((N * num_heads, L, S))
    if am is not None:
        bias = bias + am
    if kpm is not None:
        bias = bias + np.repeat(kpm, num_heads, axis=0)[:, None, :]
    s = q @ k.transpose(0, 2, 1) / math.sqrt(hd) + bias
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    o = (p @ v).transpose(1, 0, 2).reshape(L, N, E) @ w["out_proj.weight"].T
    if "out_proj.bias" in w:
        o = o + w["out_proj.bias"]
    weights = p.reshape(N, num_heads, L, S)
    if average:
        weights = weights.mean(1)
    if unbatched:
        return o[:, 0], weights[0]
    if batch_first:
        o = o.swapaxes(0, 1)
    return o, (weights if need_weights else None)


def _params(module):
    return {name: to_numpy(t).astype(np.float64) for name, t in module.state_dict().items()}


def _randomize(module):
    """Random values in every parameter (PyTorch zero-initialises the biases)."""
    with tl.no_grad():
        for p in module.parameters():
            p.copy_(T(RNG.standard_normal(tuple(p.shape)) * 0.4, p.device.type, p.dtype))
    return module


MHA_CASES = {
    "weights-avg": (dict(), dict()),
    "weights-per-head-batch-first": (dict(batch_first=True), dict(average_attn_weights=False)),
    "fused-kpm-attn-mask": (dict(), dict(need_weights=False, key_padding_mask="kpm", attn_mask="float2d")),
    "bool-3d-mask": (dict(batch_first=True), dict(attn_mask="bool3d")),
    "bias-kv-zero-attn": (dict(add_bias_kv=True, add_zero_attn=True), dict(key_padding_mask="kpm",
                                                                           attn_mask="float2d")),
    "kdim-vdim-no-bias": (dict(kdim=6, vdim=10, bias=False), dict(need_weights=False)),
}


@pytest.mark.filterwarnings("ignore:Support for mismatched key_padding_mask")  # bool kpm with a float mask
@pytest.mark.parametrize("case", list(MHA_CASES))
def test_mha_matches_reference(case):
    E, H, L, S, N = 16, 4, 5, 7, 3
    ctor, fwd = MHA_CASES[case]
    m = _randomize(nn.MultiheadAttention(E, H, dtype=tl.float64, **ctor))
    kd, vd = ctor.get("kdim", E), ctor.get("vdim", E)
    bf = ctor.get("batch_first", False)
    q = rand(N, L, E) if bf else rand(L, N, E)
    k = rand(N, S, kd) if bf else rand(S, N, kd)
    v = rand(N, S, vd) if bf else rand(S, N, vd)
    kpm = RNG.random((N, S)) < 0.3
    kpm[:, 0] = False  # every query keeps at least one key
    masks = {"kpm": kpm, "float2d": rand(L, S), "bool3d": RNG.random((N * H, L, S)) < 0.3}
    fwd = {name: masks[val] if isinstance(val, str) else val for name, val in fwd.items()}
    if "bool3d" in MHA_CASES[case][1].values():
        fwd["attn_mask"][:, :, 0] = False
    out, weights = m(T(q), T(k), T(v), **{n: (T(a) if isinstance(a, np.ndarray) else a) for n, a in fwd.items()})
    ref_out, ref_w = mha_reference(q, k, v, _params(m), H, fwd.get("key_padding_mask"), fwd.get("attn_mask"),
                                   fwd.get("need_weights", True), fwd.get("average_attn_weights", True), bf,
                                   ctor.get("add_zero_attn", False))
    np.testing.assert_allclose(to_numpy(out), ref_out, rtol=1e-10, atol=1e-12)
    if ref_w is None:
        assert weights is None
    else:
        np.testing.assert_allclose(to_numpy(weights), ref_w, rtol=1e-10, atol=1e-12)


def test_mha_unbatched_and_causal_hint():
    E, H, L = 8, 2, 6
    m = _randomize(nn.MultiheadAttention(E, H, dtype=tl.float64))
    x = rand(L, E)
    out, w = m(T(x), T(x), T(x))
    ref_out, ref_w = mha_reference(x, x, x, _params(m), H)
    np.testing.assert_allclose(to_numpy(out), ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(to_numpy(w), ref_w, rtol=1e-10, atol=1e-12)
    # is_causal with its mask and need_weights=False: the fused kernel's causal path
    causal = np.triu(np.full((L, L), -np.inf), 1)
    xb = rand(L, 2, E)
    out, w = m(T(xb), T(xb), T(xb), attn_mask=T(causal), is_causal=True, need_weights=False)
    assert w is None
    np.testing.assert_allclose(to_numpy(out), mha_reference(xb, xb, xb, _params(m), H, attn_mask=causal)[0],
                               rtol=1e-10, atol=1e-12)


def test_mha_parameters_and_initialisation():
    m = nn.MultiheadAttention(32, 4)
    assert sorted(m.state_dict().keys()) == ["in_proj_bias", "in_proj_weight", "out_proj.bias", "out_proj.weight"]
    assert tuple(m.in_proj_weight.shape) == (96, 32) and tuple(m.in_proj_bias.shape) == (96,)
    assert m.q_proj_weight is None and m.bias_k is None and m.head_dim == 8
    # PyTorch: xavier_uniform_ on in_proj_weight (fan_in 32, fan_out 96), zeros on both biases
    bound = math.sqrt(6.0 / (32 + 96))
    w = to_numpy(m.in_proj_weight)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.1 * bound
    assert np.all(to_numpy(m.in_proj_bias) == 0) and np.all(to_numpy(m.out_proj.bias) == 0)
    assert np.abs(to_numpy(m.out_proj.weight)).max() <= 1 / math.sqrt(32)  # Linear's init
    m2 = nn.MultiheadAttention(16, 2, bias=False, add_bias_kv=True, kdim=6, vdim=10)
    assert sorted(m2.state_dict().keys()) == ["bias_k", "bias_v", "k_proj_weight", "out_proj.weight",
                                              "q_proj_weight", "v_proj_weight"]
    assert tuple(m2.k_proj_weight.shape) == (16, 6) and tuple(m2.v_proj_weight.shape) == (16, 10)
    assert m2.in_proj_weight is None and m2.in_proj_bias is None and m2.out_proj.bias is None
    assert len(list(m2.parameters())) == 6


def test_mha_dropout_train_vs_eval():
    m = _randomize(nn.MultiheadAttention(8, 2, dropout=0.5, dtype=tl.float64))
    x = T(rand(4, 2, 8))
    m.eval()
    a, _ = m(x, x, x, need_weights=False)
    np.testing.assert_allclose(to_numpy(a), mha_reference(*(to_numpy(x),) * 3, _params(m), 2)[0], rtol=1e-10)
    m.train()
    b, _ = m(x, x, x, need_weights=False)
    assert not np.allclose(to_numpy(a), to_numpy(b))


def test_mha_gradients():
    m = _randomize(nn.MultiheadAttention(8, 2, dtype=tl.float64))
    x, y = rand(3, 2, 8), rand(4, 2, 8)

    def fn(q, kv):
        return m(q, kv, kv, need_weights=False)[0]

    assert tl.autograd.gradcheck(fn, [T(x, grad=True), T(y, grad=True)], eps=1e-6, atol=1e-6, rtol=1e-4)


@needs_cuda
def test_mha_cuda_vs_cpu():
    m_cpu = _randomize(nn.MultiheadAttention(16, 2, batch_first=True))
    m_cuda = nn.MultiheadAttention(16, 2, batch_first=True).cuda()
    m_cuda.load_state_dict(m_cpu.state_dict())
    x = rand(2, 5, 16).astype(np.float32)
    kpm = np.zeros((2, 5), bool)
    kpm[1, 3:] = True
    res = {}
    for dev, m in (("cpu", m_cpu), ("cuda", m_cuda)):
        xt = T(x, dev, grad=True)
        for need_weights in (False, True):
            out, _ = m(xt, xt, xt, key_padding_mask=T(kpm, dev), need_weights=need_weights)
            out.backward(T(np.ones(out.shape, np.float32), dev))
        res[dev] = [to_numpy(out), to_numpy(xt.grad), to_numpy(m.in_proj_weight.grad)]
    for c, g in zip(res["cpu"], res["cuda"]):
        np.testing.assert_allclose(g, c, rtol=1e-4, atol=1e-5)


def test_mha_repr_matches_pytorch():
    """out_proj is PyTorch's NonDynamicallyQuantizableLinear (a Linear), which its repr names."""
    m = nn.MultiheadAttention(4, 2)
    assert isinstance(m.out_proj, nn.Linear)
    assert repr(m) == ("MultiheadAttention(\n  (out_proj): NonDynamicallyQuantizableLinear(in_features=4, "
                       "out_features=4, bias=True)\n)")


def test_mha_errors():
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(10, 3)
    with pytest.raises(ValueError, match="must be greater than 0"):
        nn.MultiheadAttention(0, 2)
    m = nn.MultiheadAttention(8, 2)
    x = T(rand(3, 2, 8).astype(np.float32))
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(RuntimeError, match=r"The shape of the 2D attn_mask is \(2, 3\), but should be \(3, 3\)"):
        m(x, x, x, attn_mask=T(np.zeros((2, 3), np.float32)))
    with pytest.raises(AssertionError, match="expected `key` and `value` to be 3-D"):
        m(x, T(rand(3, 8).astype(np.float32)), x)
    with pytest.raises(AssertionError, match="was expecting embedding dimension of 8, but got 6"):
        m(T(rand(3, 2, 6).astype(np.float32)), x, x)  # AssertionError, as PyTorch's
    with pytest.raises(AssertionError, match="only bool and floating types of key_padding_mask"):
        m(x, x, x, key_padding_mask=T(np.zeros((2, 3), np.int64)))


def test_a_float32_mask_goes_with_any_query_dtype():
    """attn_mask may be bool, float32 or the query's dtype (PyTorch's rule): a float32 mask with a
    float64 or float16 query is converted to it; other dtypes are refused."""
    mask32 = tl.tensor([[0.0, -math.inf], [0.0, 0.0]])
    for dt in (tl.float64, tl.float16):
        q = tl.tensor([[[1.0, 0.5], [0.25, -1.0]]], dtype=dt)
        got = F.scaled_dot_product_attention(q, q, q, attn_mask=mask32)
        want = F.scaled_dot_product_attention(q, q, q, attn_mask=mask32.to(dt))
        assert got.dtype is dt and got.tolist() == want.tolist()
        assert got[0, 0].tolist() == q[0, 0].tolist()  # the first query sees only the first key
    with pytest.raises(RuntimeError, match="Expected attn_mask dtype"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=mask32.double())


# ---------------------------------------------------------------------------
# TransformerEncoderLayer / TransformerEncoder (values from PyTorch 2.x, float64)


def _transformer_encoder(**cfg):
    m = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, batch_first=True, **cfg), 2,
                              norm=nn.LayerNorm(4)).double()
    with tl.no_grad():
        for i, (_, p) in enumerate(m.named_parameters()):
            p.copy_((tl.sin(tl.arange(p.numel(), dtype=tl.float64) * 0.37 + i) * 0.5).reshape(p.shape))
    return m


def test_transformer_encoder_state_dict_and_errors():
    m = _transformer_encoder()
    assert list(m.state_dict())[:12] == [
        "layers.0.self_attn.in_proj_weight", "layers.0.self_attn.in_proj_bias", "layers.0.self_attn.out_proj.weight",
        "layers.0.self_attn.out_proj.bias", "layers.0.linear1.weight", "layers.0.linear1.bias",
        "layers.0.linear2.weight", "layers.0.linear2.bias", "layers.0.norm1.weight", "layers.0.norm1.bias",
        "layers.0.norm2.weight", "layers.0.norm2.bias"]
    assert m.layers[0] is not m.layers[1] and m.layers[0].activation is tl.nn.functional.relu
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(4, 2, activation="tanh")


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("cfg", [{}, {"norm_first": True, "activation": "gelu"}])
def test_transformer_encoder_matches_pytorch(device, cfg):
    m = _transformer_encoder(**cfg).to(device)
    x = tl.cos(tl.arange(24, dtype=tl.float64) * 0.7).reshape(2, 3, 4).to(device)
    kpm = tl.tensor([[False, False, True], [False, False, False]], device=device)
    causal = tl.triu(tl.full((3, 3), float("-inf"), dtype=tl.float64), 1).to(device)
    if not cfg:
        want_kpm = [[[-0.3481279106, 0.0024512979, 0.6128358245, 0.4058908576],
                     [-0.0146490027, 0.3610629607, 0.4472970805, 0.3955498172]],
                    [[-0.4731930964, 0.1153047095, 0.5975772993, 0.4062235891],
                     [-0.3027227163, -0.0691001388, 0.6162223849, 0.4069044316]]]
        want_causal = [[-0.4322126613, -0.0605930237, 0.6128407579, 0.4100768816],
                       [-0.3081894275, -0.070192366, 0.6163783553, 0.4070683827],
                       [-0.3620610252, 0.0363209845, 0.6094201955, 0.4053289312]]
    else:
        want_kpm = [[[-0.2147881533, -0.1584140544, 0.1741511038, 0.4339013543],
                     [0.6791020151, 0.0640039625, 0.1959064439, 0.4028427167]],
                    [[0.4736349578, 0.1750151596, -0.0172699687, 0.4170141857],
                     [0.6058191102, -0.0998747875, 0.0658005743, 0.4178066644]]]
        want_causal = [[0.5392650253, 0.1573176392, 0.0016718834, 0.4148232447],
                       [0.5660306468, -0.1405524597, 0.0700116522, 0.4198943561],
                       [-0.3255803694, -0.0166272605, 0.1406254294, 0.4340087596]]
    np.testing.assert_allclose(to_numpy(m(x, src_key_padding_mask=kpm)[:, :2]), want_kpm, atol=1e-9)
    np.testing.assert_allclose(to_numpy(m(x, mask=causal)[1]), want_causal, atol=1e-9)
    # unbatched (S, E) input through one layer equals the batched result of its row
    layer = m.layers[0]
    np.testing.assert_allclose(to_numpy(layer(x[1])), to_numpy(layer(x)[1]), atol=1e-12)


def test_sdpa_kernel_and_backend_switches():
    # `torch.nn.attention.sdpa_kernel(SDPBackend.MATH)` and `torch.backends.cuda.sdp_kernel(...)` were
    # ModuleNotFoundError/AttributeError; MATH alone now runs the unfused path, no backend at all raises
    from tensorlab.nn.attention import SDPBackend, sdpa_kernel

    b = tl.backends.cuda
    q = T(rand(2, 5, 16), grad=True)
    with sdpa_kernel(SDPBackend.MATH):
        assert (b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled(), b.cudnn_sdp_enabled()) \
            == (False, False, True, False)
        out = F.scaled_dot_product_attention(q, q, q, is_causal=True)
    assert out.grad_fn.name() != "ScaledDotProductAttentionBackward0" and b.flash_sdp_enabled()
    np.testing.assert_allclose(to_numpy(out), to_numpy(F.scaled_dot_product_attention(q, q, q, is_causal=True)),
                               rtol=1e-12, atol=1e-12)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
        assert F.scaled_dot_product_attention(q, q, q).grad_fn.name() == "ScaledDotProductAttentionBackward0"
    with pytest.warns(FutureWarning, match="sdp_kernel"), b.sdp_kernel(enable_flash=False, enable_math=False):
        assert (b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled()) == (False, True, False)
    with pytest.raises(RuntimeError, match="No viable backend for scaled_dot_product_attention"), sdpa_kernel([]):
        F.scaled_dot_product_attention(q, q, q)
    with pytest.raises(AssertionError, match="Backend must be an instance of SDPBackend .* got str"):
        with sdpa_kernel("math"):
            pass
    assert b.math_sdp_enabled() and int(SDPBackend.EFFICIENT_ATTENTION) == 2
    assert str(SDPBackend.MATH) == "SDPBackend.MATH"
    b.enable_flash_sdp(False)
    assert not b.flash_sdp_enabled()
    b.enable_flash_sdp(True)


def test_sdp_switches_take_a_bool_only():
    # PyTorch refuses anything but a bool (RuntimeError "... expects a bool, but got int"); bool(x) was
    # stored, so enable_math_sdp(None) silently turned the math backend off
    b = tl.backends.cuda
    for switch, value in ((b.enable_flash_sdp, 1), (b.enable_math_sdp, None), (b.enable_mem_efficient_sdp, "yes"),
                          (b.enable_cudnn_sdp, 1.0)):
        kind = type(value).__name__
        with pytest.raises(RuntimeError, match=f"{switch.__name__} expects a bool, but got {kind}"):
            switch(value)
    assert (b.flash_sdp_enabled(), b.mem_efficient_sdp_enabled(), b.math_sdp_enabled(), b.cudnn_sdp_enabled()) \
        == (True, True, True, True)


# ---------------------------------------------------------------------------
# TransformerDecoderLayer / TransformerDecoder / Transformer (values from PyTorch 2.15, float64)


def _transformer_decoder(**cfg):
    m = nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, 6, dropout=0.0, batch_first=True, **cfg), 2,
                              norm=nn.LayerNorm(4)).double()
    with tl.no_grad():
        for i, (_, p) in enumerate(m.named_parameters()):
            p.copy_((tl.sin(tl.arange(p.numel(), dtype=tl.float64) * 0.37 + i) * 0.5).reshape(p.shape))
    return m


_DECODER_LAYER_KEYS = [
    "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
    "multihead_attn.in_proj_weight", "multihead_attn.in_proj_bias", "multihead_attn.out_proj.weight",
    "multihead_attn.out_proj.bias", "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias",
    "norm1.weight", "norm1.bias", "norm2.weight", "norm2.bias", "norm3.weight", "norm3.bias"]
_ENCODER_LAYER_KEYS = [
    "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight", "self_attn.out_proj.bias",
    "linear1.weight", "linear1.bias", "linear2.weight", "linear2.bias", "norm1.weight", "norm1.bias",
    "norm2.weight", "norm2.bias"]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("cfg", [{}, {"norm_first": True, "activation": "gelu"}])
def test_transformer_decoder_matches_pytorch(device, cfg):
    """batch_first (N, T, E) tgt and (N, S, E) memory, a causal tgt_mask and a memory_key_padding_mask;
    one layer on unbatched (T, E)/(S, E) input."""
    m = _transformer_decoder(**cfg).to(device)
    x = tl.cos(tl.arange(24, dtype=tl.float64) * 0.7).reshape(2, 3, 4).to(device)
    mem = tl.sin(tl.arange(32, dtype=tl.float64) * 0.45).reshape(2, 4, 4).to(device)
    mkpm = tl.tensor([[False, False, False, True], [False, True, False, False]], device=device)
    causal = nn.Transformer.generate_square_subsequent_mask(3, device=device, dtype=tl.float64)
    if not cfg:
        want = [[[-0.8209877516, -0.0007888587, 0.6296171061, -0.0260745485],
                 [-0.931018591, 0.033556231, 0.5974977259, 0.0377124993],
                 [-0.8406384023, 0.0035326847, 0.6261456535, -0.0151827125]],
                [[-0.9447297013, 0.1075762364, 0.5595847024, 0.0287663593],
                 [-0.9330742819, 0.1020689124, 0.5654175093, 0.0214296451],
                 [-0.8474928326, 0.0719446105, 0.5944087279, -0.0289525028]]]
        want_layer = [[-0.6354253389, -0.5710300057, -0.5872578426, 0.4702736839],
                      [-0.6259373511, -0.5728747156, -0.6226137096, 0.4813501741],
                      [-0.5268278397, -0.7137467985, -0.7434220938, 0.5066483119]]
    else:
        want = [[[-0.3417566133, -0.652918619, -0.214487394, 0.6515074428],
                 [0.0990208844, -0.5623026368, -0.4508780298, 0.5131494317],
                 [-0.2046759677, -0.6564071749, -0.2858920269, 0.625168176]],
                [[-0.3919022834, -0.6762381803, -0.1565160734, 0.6536012451],
                 [-0.1015751571, -0.673679191, -0.3125459961, 0.5953816628],
                 [-0.5424593858, -0.6376535311, -0.0787009671, 0.6630558446]]]
        want_layer = [[-0.462552328, -0.325816212, -0.9794022561, -1.5130566439],
                      [0.1366246575, 1.4110107668, 1.0440678459, -0.3524937795],
                      [0.2010176374, 0.0867960255, -1.0064944974, -1.9545610825]]
    np.testing.assert_allclose(to_numpy(m(x, mem, tgt_mask=causal, memory_key_padding_mask=mkpm)), want, atol=1e-9)
    layer = m.layers[0]
    np.testing.assert_allclose(to_numpy(layer(x[1], mem[1])), want_layer, atol=1e-9)
    np.testing.assert_allclose(to_numpy(layer(x, mem)[1]), want_layer, atol=1e-9)


def test_transformer_decoder_state_dict_and_errors():
    m = _transformer_decoder()
    assert list(m.state_dict()) == ([f"layers.{i}.{k}" for i in range(2) for k in _DECODER_LAYER_KEYS]
                                    + ["norm.weight", "norm.bias"])
    assert m.layers[0] is not m.layers[1] and m.layers[0].activation is F.relu
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerDecoderLayer(4, 2, activation="tanh")
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m.layers[0](tl.zeros(3, 4, dtype=tl.float64), tl.zeros(2, 4, dtype=tl.float64), tgt_is_causal=True)


def _transformer(device="cpu", **kw):
    """Transformer(d_model=8, nhead=2, 1 + 1 layers, dim_feedforward=16) with every parameter, in
    named_parameters order, filled from numpy's default_rng(0).uniform(-0.5, 0.5) (as torch's was)."""
    m = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, **kw).double()
    rng = np.random.default_rng(0)
    with tl.no_grad():
        for _, p in m.named_parameters():
            p.copy_(tl.tensor(rng.uniform(-0.5, 0.5, tuple(p.shape))))
    return m.to(device)


@pytest.mark.parametrize("device", DEVICES)
def test_transformer_matches_pytorch(device):
    """(S, N, E) src and (T, N, E) tgt: causal tgt_mask, src/memory key padding masks; values and gradients."""
    m = _transformer(device)
    src = tl.cos(tl.arange(48, dtype=tl.float64) * 0.3).reshape(3, 2, 8).to(device).requires_grad_()
    tgt = tl.sin(tl.arange(32, dtype=tl.float64) * 0.5).reshape(2, 2, 8).to(device).requires_grad_()
    kpm = tl.tensor([[False, False, True], [False, False, False]], device=device)
    out = m(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(2, device=device, dtype=tl.float64),
            src_key_padding_mask=kpm, memory_key_padding_mask=kpm)
    want = [[[0.2214469006, -0.4185690164, -0.096373437, -0.2201696915, -0.0416261362, -0.5777003358, 0.762342048,
              0.135870005],
             [0.2117540169, -0.4009119466, -0.2536734522, -0.1975288714, -0.0630974196, -0.4915391312, 0.7989817509,
              0.1606739254]],
            [[0.2170759101, -0.4149950536, -0.0454408712, -0.3265806777, -0.0408697934, -0.6478709855, 0.7676163406,
              0.1191839252],
             [0.2187080477, -0.4100501223, -0.2019921909, -0.1567791954, -0.0564866109, -0.4976368707, 0.7713074715,
              0.1567942685]]]
    assert out.shape == (2, 2, 8)
    np.testing.assert_allclose(to_numpy(out), want, atol=1e-9)
    (out * tl.cos(tl.arange(32, dtype=tl.float64)).reshape(2, 2, 8).to(device)).sum().backward()
    want_src_grad = [[-0.0025794107, 0.0020044138, -0.0029324685, 0.0031498684, 0.0037880271, -0.0006976014,
                      -0.0026104696, 0.0017005448],
                     [-0.0020232648, -0.0053723558, -0.0053033794, 0.0056191556, 0.002214983, 0.0034541156,
                      -0.0039976538, 0.0046653785],
                     [0.0] * 8]  # padded in both src and memory: no gradient
    want_tgt_grad = [[-0.0012487414, -0.0206853332, 0.0041121876, -0.0104258572, -0.0341826659, 0.0678862416,
                      -0.0080698396, -0.0393533462],
                     [-0.0091010688, 0.0348957912, 0.0130121404, 0.0163179711, 0.0369478822, -0.066571187,
                      0.004857347, 0.0212996822]]
    want_w_grad = [0.0007678768, 0.0001697712, -7.39806e-05, 0.0004692514, 0.0003413589, -0.0006813516,
                   0.0002678942, 5.66646e-05]
    np.testing.assert_allclose(to_numpy(src.grad[:, 0]), want_src_grad, atol=1e-9)
    np.testing.assert_allclose(to_numpy(tgt.grad[:, 1]), want_tgt_grad, atol=1e-9)
    np.testing.assert_allclose(to_numpy(m.decoder.layers[0].multihead_attn.in_proj_weight.grad[0]), want_w_grad,
                               atol=1e-9)


def test_transformer_batch_first_and_unbatched_agree_with_seq_first():
    m, mb = _transformer(), _transformer(batch_first=True)
    src = tl.cos(tl.arange(48, dtype=tl.float64) * 0.3).reshape(3, 2, 8)
    tgt = tl.sin(tl.arange(32, dtype=tl.float64) * 0.5).reshape(2, 2, 8)
    want = to_numpy(m(src, tgt))
    got = mb(src.transpose(0, 1), tgt.transpose(0, 1))
    assert got.shape == (2, 2, 8)
    np.testing.assert_allclose(to_numpy(got.transpose(0, 1)), want, atol=1e-12)
    np.testing.assert_allclose(to_numpy(m(src[:, 1], tgt[:, 1])), want[:, 1], atol=1e-12)


def test_transformer_state_dict_init_and_attributes():
    m = nn.Transformer(8, 2, 2, 1, 16)
    assert list(m.state_dict()) == (
        [f"encoder.layers.{i}.{k}" for i in range(2) for k in _ENCODER_LAYER_KEYS]
        + ["encoder.norm.weight", "encoder.norm.bias"]
        + [f"decoder.layers.0.{k}" for k in _DECODER_LAYER_KEYS] + ["decoder.norm.weight", "decoder.norm.bias"])
    assert (m.d_model, m.nhead, m.batch_first) == (8, 2, False)
    assert m.encoder.num_layers == 2 and m.decoder.num_layers == 1 and m.decoder.layers[0].activation is F.relu
    # _reset_parameters: xavier_uniform_ on every matrix, drawn per layer (the deep copies no longer agree);
    # vectors keep their defaults
    w0, w1 = m.encoder.layers[0].linear1.weight, m.encoder.layers[1].linear1.weight
    assert not tl.equal(w0, w1) and w0.abs().max().item() <= math.sqrt(6 / (8 + 16))
    assert m.decoder.layers[0].norm3.weight.tolist() == [1.0] * 8
    assert m.decoder.layers[0].multihead_attn.in_proj_bias.tolist() == [0.0] * 24
    # custom encoder/decoder are used as given and re-initialised with the rest
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(4, 2, 8), 1)
    with tl.no_grad():
        enc.layers[0].linear1.weight.fill_(5.0)
    m = nn.Transformer(4, 2, custom_encoder=enc, num_decoder_layers=1, dim_feedforward=8)
    assert m.encoder is enc and "encoder.norm.weight" not in m.state_dict()
    assert enc.layers[0].linear1.weight.abs().max().item() <= math.sqrt(6 / (4 + 8))


def test_generate_square_subsequent_mask():
    mask = nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.dtype is tl.float32 and mask.tolist() == [[0.0, -math.inf, -math.inf], [0.0, 0.0, -math.inf],
                                                          [0.0, 0.0, 0.0]]
    assert nn.Transformer.generate_square_subsequent_mask(2, dtype=tl.float64).dtype is tl.float64
    assert nn.Transformer.generate_square_subsequent_mask(3, dtype=tl.bool).tolist() == [
        [False, True, True], [False, False, True], [False, False, False]]
    assert nn.Transformer.generate_square_subsequent_mask(1).tolist() == [[0.0]]


def test_transformer_shape_errors():
    m = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        m(tl.zeros(3, 2, 8), tl.zeros(4, 3, 8))
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        nn.Transformer(8, 2, 1, 1, 16, batch_first=True)(tl.zeros(2, 3, 8), tl.zeros(3, 4, 8))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        m(tl.zeros(3, 2, 8), tl.zeros(4, 2, 6))
    with pytest.raises(RuntimeError, match="the feature number of src and tgt must be equal to d_model"):
        m(tl.zeros(3, 6), tl.zeros(4, 6))
