"""``tensorlab.nn.utils``: gradient clipping, parameter/vector conversion (issue 5), ``rnn``'s
variable-length sequence helpers (``pad_sequence``, ``unpad_sequence``, ``PackedSequence`` and
``pack_padded_sequence``/``pad_packed_sequence``/``pack_sequence``/``unpack_sequence``), ``stateless``,
``parametrize``/``parametrizations``, ``prune``, ``skip_init`` and the hook-based
``weight_norm``/``spectral_norm``."""

from __future__ import annotations

from . import parametrizations, parametrize, prune, rnn, stateless
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .init import skip_init
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
    "parameters_to_vector", "parametrizations", "parametrize", "prune", "remove_spectral_norm", "remove_weight_norm",
    "rnn", "skip_init", "spectral_norm", "stateless", "vector_to_parameters", "weight_norm",
]
