"""``tensorlab.jit``: the TorchScript queries model code branches on (``if not torch.jit.is_tracing():``)
and the TorchScript decorators it is written with (``@torch.jit.script`` on helper functions,
``@torch.jit.ignore`` / ``unused`` / ``export`` on methods).

tensorlab has no tracer or script compiler, so code always runs eagerly: both queries answer False,
and each decorator returns what it decorates, to run as it is (a scripted function computes what
the Python function computes, so only speed differs from PyTorch).
"""

from __future__ import annotations

__all__ = ["export", "ignore", "is_scripting", "is_tracing", "script", "unused"]


def is_tracing() -> bool:
    return False


def is_scripting() -> bool:
    return False


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    # (optimize and example_inputs only steer the compiler PyTorch has; kept so the call forms are PyTorch's)
    if not callable(obj):
        raise TypeError(f"tensorlab.jit.script: expected a function, method, class or Module to script, "
                        f"got {obj!r} ({type(obj).__name__})")
    return obj


def ignore(drop=False, **kwargs):
    # used bare (@ignore) or called (@ignore(drop=True)); PyTorch refuses any other argument
    if callable(drop):
        return drop
    if not isinstance(drop, bool):
        raise RuntimeError(f"Argument to @torch.jit.ignore must be a bool or a function but got {drop}")
    return lambda fn: fn


def unused(fn):
    return fn


def export(fn):
    return fn
