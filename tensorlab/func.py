"""``tensorlab.func``: the part of ``torch.func`` tensorlab has: :func:`functional_call`.
(``vmap``, ``grad``, ``jacrev``... are function transforms tensorlab does not have.)"""

from __future__ import annotations

from collections.abc import Sequence

from .nn.utils import stateless

__all__ = ["functional_call"]


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                    strict: bool = False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a dict of
    names to tensors, or a list/tuple of such dicts with distinct keys) in place of its parameters
    and buffers; ``args`` may be a single argument. A name that is no parameter/buffer is set as an
    attribute for the call; ``None`` hides a parameter/buffer. What the module assigns to the given
    names during the call is written back into the given dict (a single dict: that one; several:
    their merged copy, as PyTorch). ``tie_weights``: a value given for one name of a tied
    parameter/buffer stands for all its names. ``strict``: the names must be exactly the module's."""
    if isinstance(parameter_and_buffer_dicts, dict):
        parameters_and_buffers = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts: dict[str, int] = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated_keys = [k for k, n in counts.items() if n > 1]
        if repeated_keys:
            raise ValueError(f"{repeated_keys} appeared in multiple dictionaries; behavior of functional call is "
                             "ambiguous")
        parameters_and_buffers = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    return stateless._functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights,
                                      strict=strict)
