"""nn modules: ``TransformerEncoderLayer``, ``TransformerEncoder``, ``TransformerDecoderLayer``,
``TransformerDecoder`` and ``Transformer`` (PyTorch's names, parameters, ``state_dict`` keys, defaults
and forward).

The forward is PyTorch's reference ("slow") path: ``norm_first`` pre-norm or the default post-norm,
self-attention (and, in the decoder, cross-attention on ``memory``) through
``MultiheadAttention(need_weights=False)`` and a two-layer feed-forward block.
PyTorch's inference fast path and nested tensors give the same values, so there is none here;
``enable_nested_tensor`` is accepted and stored, and only means that padded positions of
``src_key_padding_mask`` may hold any value (here they hold what the slow path computes).
``Transformer`` is PyTorch's encoder-decoder: ``xavier_uniform_`` on every parameter of more than one
dimension (custom encoder/decoder included), ``generate_square_subsequent_mask`` for causal masks.
"""

from __future__ import annotations

import copy

from ..._factories import full
from ...ops.shape_ops import triu
from .. import functional as F
from ..init import xavier_uniform_
from .attention import MultiheadAttention
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

# the feed-forward block's activations PyTorch accepts by name (any callable is taken as it is)
_ACTIVATIONS = {"relu": F.relu, "gelu": F.gelu}


def _activation(activation):
    if not isinstance(activation, str):
        return activation
    if activation not in _ACTIVATIONS:
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return _ACTIVATIONS[activation]


def _causal_mask(size: int, device=None, dtype=None):
    """The additive causal mask (size, size): 0 where a position may attend (itself and earlier
    ones, on and below the diagonal), -inf where it may not (later ones, above it)."""
    return triu(full((size, size), float("-inf"), dtype=dtype, device=device), diagonal=1)


def _sequence_length(x, batch_first: bool) -> int:
    """S of an unbatched (S, E), a (S, N, E) or a ``batch_first`` (N, S, E) input."""
    return x.shape[1] if batch_first and x.ndim == 3 else x.shape[0]


def _clones(layer, n: int):
    """``n`` independent deep copies of ``layer`` (each stack owns its layers' parameters)."""
    return ModuleList([copy.deepcopy(layer) for _ in range(n)])


def _is_causal_hint(mask, is_causal, size) -> bool:
    """The ``is_causal`` flag handed to the layers: as given when it is, else (None) whether ``mask``
    is exactly the causal mask of ``size`` (default: its own size). The comparison reads a result
    back to the host once per forward; PyTorch's stacks pay the same."""
    if is_causal is not None or mask is None:
        return is_causal is True
    expected = _causal_mask(mask.size(-2) if size is None else size, device=mask.device, dtype=mask.dtype)
    return tuple(mask.shape) == tuple(expected.shape) and bool((mask == expected).all())


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
        self.activation = _activation(activation)

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
        self.layers = _clones(encoder_layer, num_layers)
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
        is_causal = _is_causal_hint(mask, is_causal, _sequence_length(src, batch_first) if src.ndim >= 2 else None)
        output = src
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=is_causal, src_key_padding_mask=src_key_padding_mask)
        if self.norm is not None:
            output = self.norm(output)
        return output


class TransformerDecoderLayer(Module):
    """Self-attention, cross-attention on ``memory``, then feed-forward, each with a residual connection
    and LayerNorm (PyTorch's ``nn.TransformerDecoderLayer``)."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation=F.relu, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **factory)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 bias=bias, **factory)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal: bool = False, memory_is_causal: bool = False):
        """``tgt`` (T, N, E), ``memory`` (S, N, E); (N, T, E)/(N, S, E) with ``batch_first``; unbatched
        (T, E)/(S, E). Masks go to ``MultiheadAttention`` as given (bool True or float -inf masks out)."""
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal: bool = False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, is_causal=is_causal,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal: bool = False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                is_causal=is_causal, need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer`` applied in turn, then ``norm`` if given
    (PyTorch's ``nn.TransformerDecoder``)."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers: int, norm=None) -> None:
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal: bool = False):
        """As ``TransformerDecoderLayer``'s; ``tgt_is_causal=None`` detects a causal ``tgt_mask``."""
        first = self.layers[0] if len(self.layers) else None
        batch_first = first is not None and first.self_attn.batch_first
        tgt_is_causal = _is_causal_hint(tgt_mask, tgt_is_causal, _sequence_length(tgt, batch_first))
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


class Transformer(Module):
    """Encoder-decoder transformer of "Attention Is All You Need" (PyTorch's ``nn.Transformer``):
    ``encoder`` (``num_encoder_layers`` layers and a final LayerNorm) turns ``src`` into ``memory``,
    ``decoder`` (``num_decoder_layers`` layers and a final LayerNorm) attends to it from ``tgt``."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation=F.relu, custom_encoder=None,
                 custom_decoder=None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, bias: bool = True, device=None, dtype=None) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            encoder_layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **factory)
            encoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.encoder = TransformerEncoder(encoder_layer, num_encoder_layers, encoder_norm)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            decoder_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                                    layer_norm_eps, batch_first, norm_first, bias, **factory)
            decoder_norm = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory)
            self.decoder = TransformerDecoder(decoder_layer, num_decoder_layers, decoder_norm)
        self._reset_parameters()
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal: bool = False):
        """``src`` (S, N, E), ``tgt`` (T, N, E) ((N, S, E)/(N, T, E) with ``batch_first``, or unbatched
        (S, E)/(T, E)) -> (T, N, E) (as ``tgt``). ``*_is_causal=None`` detects a causal mask."""
        is_batched = src.ndim == 3
        batch_dim = 0 if self.batch_first else 1
        if is_batched and src.size(batch_dim) != tgt.size(batch_dim):
            raise RuntimeError(f"the batch number of src and tgt must be equal (Transformer.forward: src "
                               f"{tuple(src.shape)}, tgt {tuple(tgt.shape)}, batch_first={self.batch_first})")
        if src.size(-1) != self.d_model or tgt.size(-1) != self.d_model:
            raise RuntimeError(f"the feature number of src and tgt must be equal to d_model (Transformer.forward: "
                               f"src {tuple(src.shape)}, tgt {tuple(tgt.shape)}, d_model={self.d_model})")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device=None, dtype=None):
        """(sz, sz) float mask for causal attention: -inf above the diagonal (future positions), 0 elsewhere."""
        return _causal_mask(sz, device=device, dtype=dtype)

    def _reset_parameters(self) -> None:
        # PyTorch's initialisation: every weight matrix (custom encoder/decoder too) xavier-uniform,
        # biases and LayerNorm parameters keep their own defaults
        for p in self.parameters():
            if p.dim() > 1:
                xavier_uniform_(p)


__all__ = ["Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerEncoderLayer"]
