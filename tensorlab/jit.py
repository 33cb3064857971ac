"""``tensorlab.jit``: the TorchScript queries model code branches on (``if not torch.jit.is_tracing():``)
and the TorchScript decorators and base class it is written with (``@torch.jit.script`` on helper functions,
``@torch.jit.ignore`` / ``unused`` / ``export`` / ``script_method`` on methods, RWKV's
``class RWKV_RNN(torch.jit.ScriptModule)``).

tensorlab has no tracer or script compiler, so code always runs eagerly: both queries answer False,
and each decorator returns what it decorates, to run as it is (a scripted function computes what
the Python function computes, so only speed differs from PyTorch); ``ScriptModule`` is a plain ``Module``.
"""

from __future__ import annotations

from .nn.modules.module import Module

__all__ = ["ScriptModule", "annotate", "export", "ignore", "is_scripting", "is_tracing", "script", "script_method",
           "unused"]


def is_tracing() -> bool:
    return False


def is_scripting() -> bool:
    return False


def annotate(the_type, the_value):
    # torchvision's detection code types empty containers for the compiler
    # (``torch.jit.annotate(List[Tensor], [])``); eagerly the value is the answer, as in PyTorch
    return the_value


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


class ScriptModule(Module):
    """A ``Module`` (PyTorch's compiles its ``script_method``s; here they run as written)."""


def script_method(fn):
    return fn


def unused(fn):
    return fn


def export(fn):
    return fn
