"""``tensorlab.func``: the part of ``torch.func`` tensorlab has: :func:`functional_call`.
(``vmap``, ``grad``, ``jacrev``... are function transforms tensorlab does not have.)"""

from __future__ import annotations

from .nn.utils.stateless import functional_call_impl as functional_call

__all__ = ["functional_call"]
