"""nn.functional attention: ``scaled_dot_product_attention`` and ``multi_head_attention_forward``.

``scaled_dot_product_attention`` is a registered op on the fused FlashAttention-style Triton
kernel of ``tensorlab_kernels.nn.attention`` (online softmax over key blocks, fp32
accumulation, causal blocks skipped, masks read through their strides, each row's maximum and
the log of its shifted exp sum saved for the backward). Its backward is another registered op
on the fused backward kernels (dq per query block; dk, dv per key block; no atomics). When the
backward itself is recorded (``create_graph=True``) the gradients are composed from registered
ops (matmul, softmax) so double backward works.

PyTorch's semantics: ``query`` (..., L, E), ``key`` (..., S, E), ``value`` (..., S, Ev), batch dims
broadcast (without copies: stride 0); a boolean ``attn_mask`` keeps where True, a floating one is
added to the scores; ``is_causal`` is the upper-left aligned ``tril`` mask (combined with
``attn_mask`` inside the kernel, but the public function refuses both together, as PyTorch does);
``scale`` defaults to ``1/sqrt(E)``; ``enable_gqa`` lets ``query`` have a multiple of ``key``'s heads (dim -3), done by
reading ``key``/``value`` with a stride-0 group dim. Rows whose keys are all masked give zeros
(PyTorch's safe softmax). The output is laid out as ``query`` where PyTorch's fused cpu kernel would run (a
``(B, L, H, E)`` tensor viewed as ``(B, H, L, E)`` gives such a view back), else contiguous: ``_output_like_query``.

The composed "math" path (matmul, softmax, ``dropout``, matmul — PyTorch's reference) runs when
the fused kernel cannot: ``dropout_p > 0`` (dropout applies to the attention weights, with the
dropout op's Philox stream), a floating ``attn_mask`` that requires grad (the kernel does not
produce a mask gradient), and head dims of 0 or above 256.
"""

from __future__ import annotations

import math

from tensorlab_kernels.nn import attention as kattn

from ... import _dtype as D
from ... import backends
from ..._broadcast import broadcast_geometry, broadcast_shapes
from ..._dispatch import dispatch
from ..._layout import preserve_strides
from ..._registry import Plan, defop
from ..._tensor import Tensor
from ...amp.autocast_mode import autocast_op
from ...autograd.grad_mode import is_grad_enabled

# ----------------------------------------------------------------------------------------------
# the fused op
# ----------------------------------------------------------------------------------------------


def _acc(x: Tensor) -> D.dtype:
    return D.float64 if x.dtype is D.float64 else D.float32


def _batch_shape(q, k, v, mask) -> tuple:
    shapes = [q._shape[:-2], k._shape[:-2], v._shape[:-2]]
    if mask is not None:
        shapes.append(mask._shape[:-2])
    return tuple(broadcast_shapes(*shapes))


def _geometries(batch, q, k, v, mask):
    L, E = q._shape[-2:]
    S, Ev = k._shape[-2], v._shape[-1]
    op = "scaled_dot_product_attention"
    args = [broadcast_geometry(q, batch + (L, E), op), broadcast_geometry(k, batch + (S, E), op),
            broadcast_geometry(v, batch + (S, Ev), op)]
    args.append(broadcast_geometry(mask, batch + (L, S), op) if mask is not None else None)
    return args


def _sdpa_meta(q, k, v, mask, *, scale: float, is_causal: bool, precision: str, like_query: bool = False) -> Plan:
    batch = _batch_shape(q, k, v, mask)
    L, Ev = q._shape[-2], v._shape[-1]
    # like_query: allocated in the query's layout (see _output_like_query), which the kernel writes through its strides
    shape = batch + (L, Ev)
    out = (shape, q.dtype, preserve_strides(q)) if like_query and shape == q._shape else (shape, q.dtype)
    return Plan(args=_geometries(batch, q, k, v, mask),
                outputs=[out, (batch + (L,), _acc(q)), (batch + (L,), _acc(q))],
                params={"scale": scale, "is_causal": is_causal, "precision": precision}, single=False)


def _sdpa_save(ctx, inputs, outputs, params):
    q, k, v, mask = inputs
    out, row_max, log_sum = outputs
    ctx.save_for_backward(q, k, v, mask, out, row_max, log_sum)
    ctx.mark_non_differentiable(row_max, log_sum)
    ctx.set_materialize_grads(False)


def _reduce_to(g: Tensor, shape) -> Tensor:
    return g if tuple(g.shape) == tuple(shape) else g.sum_to_size(*shape)


def _sdpa_backward(ctx, g_out, *_unused):
    q, k, v, mask, out, row_max, log_sum = ctx.saved_tensors
    needs = ctx.needs_input_grad
    if g_out is None or not any(needs[:3]):
        return None, None, None, None
    p = ctx.params
    if is_grad_enabled():  # create_graph=True: a differentiable composition
        dq, dk, dv = _composite_backward(g_out, q, k, v, mask, p["scale"], p["is_causal"])
    else:
        dq, dk, dv = dispatch(SDPA_BACKWARD, g_out, q, k, v, mask, out, row_max, log_sum, scale=p["scale"],
                              is_causal=p["is_causal"], precision=p["precision"])
    return (_reduce_to(dq, q.shape) if needs[0] else None, _reduce_to(dk, k.shape) if needs[1] else None,
            _reduce_to(dv, v.shape) if needs[2] else None, None)


def _sdpa_backward_meta(g, q, k, v, mask, out, row_max, log_sum, *, scale: float, is_causal: bool,
                        precision: str) -> Plan:
    batch = tuple(out._shape[:-2])
    L, E = q._shape[-2:]
    S, Ev = k._shape[-2], v._shape[-1]
    op = "scaled_dot_product_attention_backward"
    args = [broadcast_geometry(g, batch + (L, Ev), op), *_geometries(batch, q, k, v, mask), out, row_max, log_sum]
    return Plan(args=args,
                outputs=[(batch + (L, E), q.dtype), (batch + (S, E), k.dtype), (batch + (S, Ev), v.dtype)],
                params={"scale": scale, "is_causal": is_causal, "precision": precision}, single=False)


def _masked_scores(q, k, mask, scale: float, is_causal: bool):
    """``q k^T * scale`` with the masks applied (-inf where dropped), and the rows with nothing kept."""
    from ..._factories import ones
    from ...ops.elementwise_binary import where

    s = q.matmul(k.transpose(-2, -1)) * scale
    L, S = q.shape[-2], k.shape[-2]
    if is_causal:
        keep = ones((L, S), dtype=D.bool, device=q.device).tril()
        s = where(keep, s, -math.inf)
    if mask is not None:
        s = where(mask, s, -math.inf) if mask.dtype is D.bool else s + mask
    dead = s.amax(-1, keepdim=True) == -math.inf if s.numel() else None
    return s, dead


def _safe_softmax(s, dead):
    """softmax over the last dim; rows with every score -inf give zeros (and zero gradients, no NaN)."""
    from ...ops.elementwise_binary import where

    if dead is None or s.shape[-1] == 0:
        return s.softmax(-1)
    return where(dead, 0.0, where(dead, 0.0, s).softmax(-1))


def _composite_backward(g, q, k, v, mask, scale: float, is_causal: bool):
    """The gradients from registered ops (differentiable): p = softmax(scores), ds = p (dp - rowsum(dp p))."""
    s, dead = _masked_scores(q, k, mask, scale, is_causal)
    p = _safe_softmax(s, dead)
    dv = p.transpose(-2, -1).matmul(g)
    dp = g.matmul(v.transpose(-2, -1))
    ds = p * (dp - (dp * p).sum(-1, keepdim=True))
    dq = ds.matmul(k) * scale
    dk = ds.transpose(-2, -1).matmul(q) * scale
    return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype)


SDPA = defop(
    "scaled_dot_product_attention", twin=kattn.attention_forward_twin, kernel=kattn.attention_forward,
    meta=_sdpa_meta, backward=_sdpa_backward, save=_sdpa_save, tags={"nn", "attention"},
    doc="Fused attention softmax(q k^T * scale + mask) v (online softmax, fp32 accumulation, causal blocks skipped); "
        "also returns the per-row maximum and log of the shifted exp sum it saves for the backward.")
SDPA_BACKWARD = defop(
    "scaled_dot_product_attention_backward", twin=kattn.attention_backward_twin, kernel=kattn.attention_backward,
    meta=_sdpa_backward_meta, tags={"nn", "attention"},
    doc="Fused attention backward (FlashAttention-2 recomputation from the saved row statistics): dq, dk, dv at the "
        "broadcast batch shape. Not differentiable itself: the attention backward composes registered ops when "
        "create_graph=True.")


# ----------------------------------------------------------------------------------------------
# scaled_dot_product_attention
# ----------------------------------------------------------------------------------------------


def _math_attention(q, k, v, mask, dropout_p: float, is_causal: bool, scale: float):
    """PyTorch's reference: softmax(q k^T * scale + bias) (safe: fully masked rows are 0), dropout, @ v."""
    s, dead = _masked_scores(q, k, mask, scale, is_causal)
    p = _safe_softmax(s, dead)
    if dropout_p > 0:
        from .layers import dropout

        p = dropout(p, dropout_p)
    return p.matmul(v)


def _check_sdpa(query, key, value, attn_mask, dropout_p) -> None:
    op = "scaled_dot_product_attention"
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"{op}: Expected query, key, and value to all be at least 2 dimensional, but got query.dim: "
                           f"{query.ndim} key.dim: {key.ndim} and value.dim: {value.ndim} instead.")
    if not (query.dtype is key.dtype is value.dtype):
        raise RuntimeError(f"{op}: Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{query.dtype.name} key.dtype: {key.dtype.name} and value.dtype: {value.dtype.name} "
                           "instead.")
    if not query.dtype.is_floating_point:
        raise RuntimeError(f"{op}: expected floating point query, key and value, got {query.dtype.name}")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"{op}: query's embedding size E={query.shape[-1]} must match key's ({key.shape[-1]}): "
                           f"query {list(query.shape)}, key {list(key.shape)}")
    if key.shape[-2] != value.shape[-2]:
        raise RuntimeError(f"{op}: key and value must have the same sequence length S: key {list(key.shape)}, value "
                           f"{list(value.shape)}")
    if attn_mask is not None:
        if not isinstance(attn_mask, Tensor):
            raise TypeError(f"{op}(): argument 'attn_mask' must be Tensor or None, not {type(attn_mask).__name__}")
        if attn_mask.dtype is not D.bool and attn_mask.dtype is not D.float32 and attn_mask.dtype is not query.dtype:
            raise RuntimeError(f"{op}: Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                               f"attn_mask.dtype: {attn_mask.dtype.name} and  query.dtype: {query.dtype.name} "
                               "instead.")
        L, S = query.shape[-2], key.shape[-2]
        try:
            fits = tuple(broadcast_shapes(tuple(attn_mask.shape[-2:]), (L, S))) == (L, S)
        except RuntimeError:
            fits = False
        if not fits:
            raise RuntimeError(f"{op}: attn_mask of shape {list(attn_mask.shape)} does not broadcast to the attention "
                               f"weights' shape [..., {L}, {S}] (query {list(query.shape)}, key {list(key.shape)})")
    if dropout_p > 1.0 or dropout_p != dropout_p:  # (a negative one is no dropout, as PyTorch's)
        raise RuntimeError(f"{op}: dropout probability has to be between 0 and 1, but got {dropout_p}")


def _gqa_views(query, key, value, attn_mask):
    """Grouped-query attention as a broadcast: query heads (..., Hk*G, L, E) -> (..., Hk, G, L, E),
    key/value (..., Hk, 1, S, E); the mask's head dim split or broadcast the same way."""
    op = "scaled_dot_product_attention"
    if query.ndim < 3 or key.ndim < 3 or value.ndim < 3:
        raise RuntimeError(f"{op}: enable_gqa needs a head dim (dim -3) in query, key and value, got query "
                           f"{list(query.shape)}, key {list(key.shape)}, value {list(value.shape)}")
    hq, hk, hv = query.shape[-3], key.shape[-3], value.shape[-3]
    if hk == 0 or hv == 0 or hq % hk != 0 or hq % hv != 0:
        raise RuntimeError(f"{op}: Number of heads in key and value must divide the number of heads in query "
                           f"(query heads {hq}, key heads {hk}, value heads {hv})")
    if hk != hv:  # key and value repeated to the query's heads each by its own factor (PyTorch's), in memory
        key, value = key.repeat_interleave(hq // hk, dim=-3), value.repeat_interleave(hq // hv, dim=-3)
        hk = hq
    group = hq // hk
    q5 = query.unflatten(-3, (hk, group))
    k5, v5 = key.unsqueeze(-3), value.unsqueeze(-3)
    m5 = attn_mask
    if attn_mask is not None and attn_mask.ndim >= 3:
        m5 = attn_mask.unflatten(-3, (hk, group)) if attn_mask.shape[-3] == hq and hq != 1 else attn_mask.unsqueeze(-3)
    return q5, k5, v5, m5


def _fit_mask(query, key, value, attn_mask, enable_gqa: bool):
    """``attn_mask`` as it adds into the attention weights (batch of query and key, L, S): PyTorch adds it in place, so
    it broadcasts to that shape and never enlarges the output: leading dims beyond the output's (all 1 then) are
    dropped."""
    op = "scaled_dot_product_attention"
    kb = tuple(key.shape[:-2])
    if enable_gqa and query.ndim >= 3 and key.ndim >= 3 and key.shape[-3] != 0 and query.shape[-3] % key.shape[-3] == 0:
        kb = kb[:-1] + (query.shape[-3],)  # key's heads repeated to the query's
    try:
        weights = tuple(broadcast_shapes(tuple(query.shape[:-2]), kb)) + (query.shape[-2], key.shape[-2])
    except RuntimeError:
        return attn_mask  # query and key do not broadcast: the op's own error follows
    if query.ndim == key.ndim == value.ndim == 3:
        weights = (1,) + weights  # PyTorch computes all-3-D inputs as 4-D ones with a leading batch of 1
    try:
        both = tuple(broadcast_shapes(tuple(attn_mask.shape), weights))
    except RuntimeError:
        both = None
    if both != weights:
        raise RuntimeError(f"{op}: attn_mask of shape {list(attn_mask.shape)} does not broadcast to the attention "
                           f"weights' shape {list(weights)} (query {list(query.shape)}, key {list(key.shape)})")
    extra = attn_mask.ndim - min(len(weights), max(query.ndim, key.ndim, value.ndim))
    return attn_mask.reshape(tuple(attn_mask.shape[extra:])) if extra > 0 else attn_mask


@autocast_op("scaled_dot_product_attention")
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """``softmax(query @ key^T * scale + mask) @ value`` (see the module doc for masks, causal, GQA)."""
    _check_sdpa(query, key, value, attn_mask, dropout_p)
    like_query = _output_like_query(query, key, value, attn_mask, dropout_p, enable_gqa)
    return _attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa, like_query)


def _output_like_query(query, key, value, attn_mask, dropout_p: float, enable_gqa: bool) -> bool:
    """Whether the output is laid out as ``query`` (``empty_like(query)``: its strides when dense, else dense in its
    dim order) rather than contiguous. PyTorch's cpu output has the query's layout where its fused (flash) kernel
    runs, and is a contiguous matmul result on its math path; so, as PyTorch 2.15 on cpu: flash backend enabled,
    no dropout, 3-d or 4-d query, key and value with the same batch dims (or GQA heads: a multiple of key's, key's
    equal to value's), nothing empty, ``Ev == E``, stride 1 along the last dim of all three, no floating mask that
    requires grad (even under no_grad). ``B, H, L, E`` views of a ``B, L, H, E`` tensor give ``B, H, L, E`` views
    of a ``B, L, H, E`` output, so ``out.transpose(1, 2).view(B, L, H * E)`` works without ``contiguous()``."""
    if not backends._sdp_enabled["flash"] or dropout_p > 0 or not 3 <= query.ndim == key.ndim == value.ndim <= 4:
        return False
    qs, ks, vs = query.shape, key.shape, value.shape
    if qs[-1] != vs[-1] or 0 in qs or 0 in ks or 0 in vs or 1 != query.stride(-1) or 1 != key.stride(-1) \
            or 1 != value.stride(-1):
        return False
    if ks[:-2] != vs[:-2] or qs[:-3] != ks[:-3]:
        return False
    if qs[-3] != ks[-3] and not (enable_gqa and qs[-3] % ks[-3] == 0):
        return False
    return attn_mask is None or not (attn_mask.dtype.is_floating_point and attn_mask.requires_grad)


def _attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa: bool, like_query: bool):
    """The attention after the argument checks; ``like_query``: the output is allocated in ``query``'s layout."""
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    if attn_mask is not None and attn_mask.dtype is D.float32 and query.dtype is not D.float32:
        attn_mask = attn_mask.to(query.dtype)  # a float (float32) mask goes with any query dtype, as PyTorch
    if attn_mask is not None:
        attn_mask = _fit_mask(query, key, value, attn_mask, enable_gqa)
    E = query.shape[-1]
    # with E == 0 every score is an empty sum, 0 whatever the scale (PyTorch scales q and k before
    # the matmul, so its 1/sqrt(0) = inf never multiplies anything); 0 * inf here would give NaN
    scale = 1.0 if E == 0 else float(scale) if scale is not None else 1.0 / math.sqrt(E)
    if enable_gqa and key.ndim >= 3 and query.ndim >= 3 and query.shape[-3] != key.shape[-3]:
        q5, k5, v5, m5 = _gqa_views(query, key, value, attn_mask)
        _check_sdpa(q5, k5, v5, m5, dropout_p)
        out = _attention(q5, k5, v5, m5, dropout_p, is_causal, scale, False, like_query)
        return out.flatten(-4, -3)
    elif enable_gqa and (key.ndim < 3 or query.ndim < 3):
        _gqa_views(query, key, value, attn_mask)  # raises the error
    Ev = value.shape[-1]
    enabled = backends._sdp_enabled
    fused_allowed = enabled["flash"] or enabled["mem_efficient"] or enabled["cudnn"]
    if not fused_allowed and not enabled["math"]:
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    use_math = (not fused_allowed or dropout_p > 0 or E == 0 or Ev == 0
                or E > kattn.MAX_HEAD_DIM or Ev > kattn.MAX_HEAD_DIM
                or (attn_mask is not None and attn_mask.dtype.is_floating_point and attn_mask.requires_grad
                    and is_grad_enabled()))
    if use_math:
        out = _math_attention(query, key, value, attn_mask, float(dropout_p), bool(is_causal), scale)
        strides = preserve_strides(query) if like_query else None  # (a head dim above the kernel's)
        if strides is not None and out.stride() != strides:
            from ..._factories import empty_like

            out = empty_like(query).copy_(out)
        return out
    from ...ops.matmul import get_float32_matmul_precision

    out, _, _ = dispatch(SDPA, query, key, value, attn_mask, scale=scale, is_causal=bool(is_causal),
                         precision=get_float32_matmul_precision(), like_query=like_query)
    return out


# ----------------------------------------------------------------------------------------------
# multi_head_attention_forward (PyTorch's algorithm, step for step)
# ----------------------------------------------------------------------------------------------


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D but "
                                 f"found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                 f"found {attn_mask.ndim}-D tensor instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D but found "
                                 f"{key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D but "
                                 f"found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D but "
                                     f"found {attn_mask.ndim}-D tensor instead")
            if attn_mask.ndim == 3:
                expected = (num_heads, query.shape[0], key.shape[0])
                if tuple(attn_mask.shape) != expected:
                    raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                         f"{tuple(attn_mask.shape)}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query tensor")


def _canonical_mask(mask, mask_name: str, other_type, other_name: str, target_type, check_other: bool = True):
    """A bool mask becomes a float mask of ``target_type`` (-inf where True), as PyTorch's."""
    if mask is None:
        return None
    if mask.dtype is not D.bool and not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype is not other_type:
        import warnings

        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type for both "
                      "instead.", stacklevel=3)
    if not mask.dtype.is_floating_point:
        from ..._factories import zeros_like

        mask = zeros_like(mask, dtype=target_type).masked_fill(mask, -math.inf)
    return mask


def _none_or_dtype(x):
    return None if x is None else x.dtype


def _in_projection_packed(q, k, v, w, b=None):
    from .layers import linear

    E = q.shape[-1]
    if k is v:
        if q is k:
            proj = linear(q, w, b)
            proj = proj.unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        kv_proj = linear(k, w_kv, b_kv)
        kv_proj = kv_proj.unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv_proj[0], kv_proj[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q=None, b_k=None, b_v=None):
    from .layers import linear

    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for name, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {name} weights shape of {shape}, but got {tuple(w.shape)}")
    for name, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {name} bias shape of {(Eq,)}, but got {tuple(b.shape)}")
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def multi_head_attention_forward(query, key, value, embed_dim_to_check: int, num_heads: int, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn: bool, dropout_p: float,
                                 out_proj_weight, out_proj_bias, training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None, use_separate_proj_weight: bool = False,
                                 q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True, is_causal: bool = False):
    """PyTorch's ``multi_head_attention_forward`` (sequence-first (L, N, E) or unbatched (L, E) inputs).

    ``need_weights=True`` computes the weights with registered ops (baddbmm, softmax, bmm) and
    returns them (averaged over heads with ``average_attn_weights``); otherwise the attention
    runs on the fused ``scaled_dot_product_attention`` kernel."""
    from ..._factories import zeros
    from ...ops.matmul import baddbmm, bmm
    from ...ops.shape_ops import cat
    from .layers import dropout, linear, pad

    is_batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)

    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask), "attn_mask",
                                       query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
                           "`generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None  # the hint alone drives the kernel's causal mask
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False

    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if tuple(key.shape[:2]) != tuple(value.shape[:2]):
            raise AssertionError(f"key's sequence and batch dims {tuple(key.shape[:2])} do not match value's "
                                 f"{tuple(value.shape[:2])}")
    elif tuple(key.shape) != tuple(value.shape):
        raise AssertionError(f"key shape {tuple(key.shape)} does not match value shape {tuple(value.shape)}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for name, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {name}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {tuple(attn_mask.shape)}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")

    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    if static_k is None:
        k = k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_k.shape[0] != bsz * num_heads:
            raise AssertionError(f"expecting static_k.size(0) of {bsz * num_heads}, but got {static_k.shape[0]}")
        if static_k.shape[2] != head_dim:
            raise AssertionError(f"expecting static_k.size(2) of {head_dim}, but got {static_k.shape[2]}")
        k = static_k
    if static_v is None:
        v = v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    else:
        if static_v.shape[0] != bsz * num_heads:
            raise AssertionError(f"expecting static_v.size(0) of {bsz * num_heads}, but got {static_v.shape[0]}")
        if static_v.shape[2] != head_dim:
            raise AssertionError(f"expecting static_v.size(2) of {head_dim}, but got {static_v.shape[2]}")
        v = static_v

    if add_zero_attn:
        zero_attn_shape = (bsz * num_heads, 1, head_dim)
        k = cat([k, zeros(zero_attn_shape, dtype=k.dtype, device=k.device)], dim=1)
        v = cat([v, zeros(zero_attn_shape, dtype=v.dtype, device=v.device)], dim=1)
        if attn_mask is not None:
            attn_mask = pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))

    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.reshape(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            attn_output_weights = baddbmm(attn_mask, q_scaled, k.transpose(-2, -1))
        else:
            attn_output_weights = bmm(q_scaled, k.transpose(-2, -1))
        attn_output_weights = attn_output_weights.softmax(-1)
        if dropout_p > 0.0:
            attn_output_weights = dropout(attn_output_weights, p=dropout_p)
        attn_output = bmm(attn_output_weights, v)
        attn_output = attn_output.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
        attn_output = attn_output.reshape(tgt_len, bsz, attn_output.shape[1])
        attn_output_weights = attn_output_weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            attn_output_weights = attn_output_weights.mean(dim=1)
        if not is_batched:
            attn_output = attn_output.squeeze(1)
            attn_output_weights = attn_output_weights.squeeze(0)
        return attn_output, attn_output_weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    attn_output = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    attn_output = attn_output.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    attn_output = linear(attn_output, out_proj_weight, out_proj_bias)
    attn_output = attn_output.reshape(tgt_len, bsz, attn_output.shape[1])
    if not is_batched:
        attn_output = attn_output.squeeze(1)
    return attn_output, None


__all__ = ["multi_head_attention_forward", "scaled_dot_product_attention"]
