"""``tensorlab.nn.utils``: gradient clipping, parameter/vector conversion (issue 5) and ``rnn``'s
variable-length sequence helpers (``pad_sequence``, ``unpad_sequence``)."""

from __future__ import annotations

from . import rnn, stateless
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = [
    "clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
    "parameters_to_vector", "rnn", "stateless", "vector_to_parameters",
]
