"""Public functions that pickle by reference, as PyTorch's do (``functools.partial(tl.clamp, min=0)``
sent to a spawned DataLoader worker, a transform list saved with ``pickle``).

Pickle stores a function as (``__module__``, ``__qualname__``) and checks on the way out that the
pair leads back to the same object. Many of tensorlab's public functions are made by factories
(``_make_simple("tanh")``: a local function) or are wrappers installed over an op of the same name
(the first-argument check, the NumPy keyword names), so the pair leads elsewhere. This module
points each such function at the public name it is reached by.
"""

from __future__ import annotations

import sys
import types


def _resolves(fn) -> bool:
    obj = sys.modules.get(fn.__module__)
    for part in fn.__qualname__.split("."):
        obj = getattr(obj, part, None)
    return obj is fn


def publish(module_name: str, names) -> None:
    """Make every function ``<module_name>.<name>`` pickle as that name, unless it already pickles (as
    itself from another module: the first namespace to publish a function names it)."""
    namespace = sys.modules[module_name]
    for name in names:
        fn = getattr(namespace, name, None)
        if isinstance(fn, types.FunctionType) and not _resolves(fn):
            fn.__module__, fn.__qualname__ = namespace.__name__, name
