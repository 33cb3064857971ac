"""``tensorlab.compiler``: the queries and decorators of ``torch.compiler`` that model code calls.

tensorlab has no graph compiler (``tl.compile`` runs eagerly), so nothing is ever being compiled:
``is_compiling()`` is False, and ``disable`` — which keeps a function out of a compiled graph — has
nothing to keep it out of and returns the function to run as it is. Hugging Face's modeling code
branches on ``torch.compiler.is_compiling()`` and decorates helpers with ``@torch.compiler.disable``.
"""

from __future__ import annotations

__all__ = ["disable", "is_compiling", "is_dynamo_compiling"]


def is_compiling() -> bool:
    return False


def is_dynamo_compiling() -> bool:
    return False


def disable(fn=None, recursive=True, *, reason=None):
    # (recursive and reason only steer the compiler PyTorch has; kept so the call forms are PyTorch's)
    if fn is None:
        return lambda f: disable(f, recursive, reason=reason)
    assert callable(fn), "fn must be callable"
    return fn
