"""nn modules: ``MultiheadAttention`` (PyTorch's parameters, names, initialisation and forward).

Parameters and ``state_dict`` keys match PyTorch's: ``in_proj_weight`` (3E, E) and
``in_proj_bias`` (3E), or ``q_proj_weight``/``k_proj_weight``/``v_proj_weight`` when ``kdim``/``vdim``
differ from ``embed_dim``; ``out_proj.weight``/``out_proj.bias``; ``bias_k``/``bias_v`` (1, 1, E)
with ``add_bias_kv``. Initialisation as PyTorch: ``xavier_uniform_`` on the input projections,
zeros on ``in_proj_bias`` and ``out_proj.bias``, ``xavier_normal_`` on ``bias_k``/``bias_v``
(``out_proj.weight`` keeps ``Linear``'s initialisation).

``forward`` is ``functional.multi_head_attention_forward`` (PyTorch's slow path; there is no
separate "fast path"): with ``need_weights=False`` the attention runs on the fused
``scaled_dot_product_attention`` kernel, with ``need_weights=True`` it is composed from
registered ops and the (head-averaged) weights are returned.
"""

from __future__ import annotations

from ..._factories import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .linear import NonDynamicallyQuantizableLinear
from .module import Module


class MultiheadAttention(Module):
    """Multi-head attention ``softmax(Q K^T / sqrt(d)) V`` over ``num_heads`` heads of size
    ``embed_dim // num_heads``, with input and output projections (PyTorch's ``nn.MultiheadAttention``)."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device=None, dtype=None) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        factory = {"device": device, "dtype": dtype}
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != self.embed_dim:
            raise AssertionError(f"embed_dim must be divisible by num_heads (embed_dim={embed_dim}, "
                                 f"num_heads={num_heads})")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), **factory))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), **factory))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), **factory))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **factory)
        if add_bias_kv:
            self.bias_k = Parameter(empty((1, 1, embed_dim), **factory))
            self.bias_v = Parameter(empty((1, 1, embed_dim), **factory))
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights: bool = True, attn_mask=None,
                average_attn_weights: bool = True, is_causal: bool = False):
        """``(attn_output, attn_weights or None)``; inputs (L, N, E) or, with ``batch_first``, (N, L, E),
        or unbatched (L, E)."""
        for name, t in (("query", query), ("key", key), ("value", value)):
            if not hasattr(t, "ndim"):
                raise TypeError(f"MultiheadAttention.forward(): argument '{name}' must be Tensor, not "
                                f"{type(t).__name__}")
        is_batched = query.ndim == 3
        key_padding_mask = F.attention._canonical_mask(key_padding_mask, "key_padding_mask",
                                                       F.attention._none_or_dtype(attn_mask), "attn_mask",
                                                       query.dtype)
        attn_mask = F.attention._canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
        if query.ndim in (2, 3) and query.shape[-1] != self.embed_dim:
            # PyTorch's multi_head_attention_forward asserts this (AssertionError)
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {query.shape[-1]} "
                                 f"(MultiheadAttention query of shape {list(query.shape)})")
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = (x.transpose(1, 0) for x in (query, key))
                    value = key
            else:
                query, key, value = (x.transpose(1, 0) for x in (query, key, value))
        kwargs = dict(training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
                      attn_mask=attn_mask, average_attn_weights=average_attn_weights, is_causal=is_causal)
        if not self._qkv_same_embed_dim:
            kwargs.update(use_separate_proj_weight=True, q_proj_weight=self.q_proj_weight,
                          k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight)
        attn_output, attn_weights = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias, **kwargs)
        if self.batch_first and is_batched:
            return attn_output.transpose(1, 0), attn_weights
        return attn_output, attn_weights


__all__ = ["MultiheadAttention"]
