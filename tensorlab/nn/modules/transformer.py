"""nn modules: ``TransformerEncoderLayer`` and ``TransformerEncoder`` (PyTorch's names, parameters,
``state_dict`` keys, defaults and forward).

The forward is PyTorch's reference ("slow") path: ``norm_first`` pre-norm or the default post-norm,
self-attention through ``MultiheadAttention(need_weights=False)`` and a two-layer feed-forward block.
PyTorch's inference fast path and nested tensors give the same values, so there is none here;
``enable_nested_tensor`` is accepted and stored, and only means that padded positions of
``src_key_padding_mask`` may hold any value (here they hold what the slow path computes).
``TransformerDecoderLayer``/``Transformer`` are not provided.
"""

from __future__ import annotations

import copy

from ..._factories import full
from ...ops.shape_ops import triu
from .. import functional as F
from .activation import GELU, ReLU
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm


def _get_activation_fn(activation: str):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"activation should be relu/gelu, not {activation}")


def _generate_square_subsequent_mask(sz: int, device=None, dtype=None):
    """(sz, sz) float mask: -inf above the diagonal, 0 elsewhere (PyTorch's causal mask)."""
    return triu(full((sz, sz), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _detect_is_causal_mask(mask, is_causal=None, size=None) -> bool:
    """``is_causal`` when given; otherwise whether ``mask`` equals the causal mask (PyTorch's rule)."""
    make_causal = is_causal is True
    if is_causal is None and mask is not None:
        sz = size if size is not None else mask.size(-2)
        causal = _generate_square_subsequent_mask(sz, device=mask.device, dtype=mask.dtype)
        make_causal = tuple(mask.shape) == tuple(causal.shape) and bool((mask == causal).all())
    return make_causal


class TransformerEncoderLayer(Module):
    """Self-attention then feed-forward, each with a residual connection and LayerNorm
    (PyTorch's ``nn.TransformerEncoderLayer``)."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation="relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **factory)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        if isinstance(activation, str):
            activation = _get_activation_fn(activation)
        if activation is F.relu or isinstance(activation, ReLU):
            self.activation_relu_or_gelu = 1
        elif activation is F.gelu or isinstance(activation, GELU):
            self.activation_relu_or_gelu = 2
        else:
            self.activation_relu_or_gelu = 0
        self.activation = activation

    def __setstate__(self, state):
        super().__setstate__(state)
        if not hasattr(self, "activation"):
            self.activation = F.relu

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal: bool = False):
        """``src`` (S, N, E), (N, S, E) with ``batch_first``, or unbatched (S, E)."""
        src_key_padding_mask = F.attention._canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", F.attention._none_or_dtype(src_mask), "src_mask",
            src.dtype)
        src_mask = F.attention._canonical_mask(src_mask, "src_mask", None, "", src.dtype, check_other=False)
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal=is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal=is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal: bool = False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False,
                           is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer`` applied in turn, then ``norm`` if given
    (PyTorch's ``nn.TransformerEncoder``)."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers: int, norm=None, enable_nested_tensor: bool = True,
                 mask_check: bool = True) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        # no nested tensors here (see the module docstring), so the fast path is never used
        self.use_nested_tensor = False
        self.mask_check = mask_check

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """``src`` as ``TransformerEncoderLayer``'s; ``is_causal=None`` detects a causal ``mask``."""
        src_key_padding_mask = F.attention._canonical_mask(
            src_key_padding_mask, "src_key_padding_mask", F.attention._none_or_dtype(mask), "mask", src.dtype)
        mask = F.attention._canonical_mask(mask, "mask", None, "", src.dtype, check_other=False)
        first = self.layers[0] if len(self.layers) else None
        batch_first = first is not None and first.self_attn.batch_first
        seq_len = None if src.ndim < 2 else src.shape[1 if batch_first and src.ndim == 3 else 0]
        is_causal = _detect_is_causal_mask(mask, is_causal, seq_len)
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


__all__ = ["TransformerEncoder", "TransformerEncoderLayer"]
