"""PyTorch's NumPy keyword names: ``axis`` for ``dim`` and ``keepdims`` for ``keepdim``.

PyTorch's argument parser accepts them in every native function and Tensor method with a ``dim``
or ``keepdim`` parameter, so ``x.sum(axis=1, keepdims=True)``, ``torch.cat(ts, axis=0)`` and
``x.max(axis=1)`` are PyTorch code that people write. tensorlab's functions name the PyTorch
parameters only; :func:`install` gives the public ones (the ``tensorlab``, ``tensorlab.linalg``
and ``tensorlab.special`` namespaces, and Tensor's methods) a thin wrapper that renames the two
keywords before the call. Internal callers call the functions themselves and pay nothing.

As in PyTorch, an alias is only a spelling: ``dim=`` and ``axis=`` together name the parameter
twice (TypeError), and ``keepdims=`` where there is no ``keepdim`` parameter is an unexpected
keyword (TypeError from the function). Python operators (``__add__``, ...) are not wrapped: they
have no ``dim``. (PyTorch also accepts ``x``/``a``/``x1`` for ``input`` and ``x2`` for
``other``; those are left out, as they would put a wrapper on every elementwise op.)
"""

from __future__ import annotations

import functools
import inspect
import types

from ._tensor import Tensor, need_tensor

ALIASES = (("dim", "axis"), ("keepdim", "keepdims"))  # (PyTorch's name, the NumPy name)


def accept_numpy_names(fn, name: str | None = None, check_input: bool = False):
    """``fn``, or a wrapper of it that renames ``axis``/``keepdims`` keywords to the parameters
    ``dim``/``keepdim`` it has (``name``: the name errors use; default ``fn.__name__``).

    ``check_input``: the wrapper also refuses a first argument ``input`` that is not a Tensor
    (``tl.sum(2)``: PyTorch's TypeError, where the function would fail on ``int.ndim``). Only for
    the namespace's functions: a method's ``self`` is a Tensor, and the check rides on a wrapper
    that is there anyway."""
    if getattr(fn, "__numpy_names__", False) or not isinstance(fn, types.FunctionType):
        return fn
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    table = {alias: canonical for canonical, alias in ALIASES if canonical in params and alias not in params}
    if not table:
        return fn
    shown = name or fn.__name__
    first = next(iter(params.values()), None)
    if check_input and first is not None and first.name == "input" and first.kind is first.POSITIONAL_OR_KEYWORD:

        @functools.wraps(fn)
        def call(*args, **kwargs):
            if args:
                x = args[0]
                if x.__class__ is not Tensor and not isinstance(x, Tensor):
                    need_tensor(shown, x)
            if "axis" in kwargs or "keepdims" in kwargs:
                kwargs = _renamed(shown, kwargs, table)
            return fn(*args, **kwargs)

    else:

        @functools.wraps(fn)
        def call(*args, **kwargs):
            if "axis" in kwargs or "keepdims" in kwargs:
                kwargs = _renamed(shown, kwargs, table)
            return fn(*args, **kwargs)

    call.__numpy_names__ = True
    return call


def _renamed(name: str, kwargs: dict, table: dict) -> dict:
    out = {}
    for key, value in kwargs.items():
        key = table.get(key, key)
        if key in out:
            raise TypeError(f"{name}() got multiple values for argument '{key}' (axis/keepdims are dim/keepdim)")
        out[key] = value
    return out


def install(namespace: dict, names) -> None:
    """Wrap each function ``namespace[name]`` for ``name`` in ``names`` that has a dim/keepdim."""
    for name in names:
        fn = namespace.get(name)
        if isinstance(fn, types.FunctionType):
            namespace[name] = accept_numpy_names(fn, name, check_input=True)


def install_methods(cls) -> None:
    """Wrap each public method of ``cls`` that has a dim/keepdim (not the dunders: operators)."""
    for name, fn in list(vars(cls).items()):
        if not name.startswith("_") and isinstance(fn, types.FunctionType):
            wrapped = accept_numpy_names(fn, name)
            if wrapped is not fn:
                setattr(cls, name, wrapped)
