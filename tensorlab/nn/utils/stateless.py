"""``functional_call``: run a module with other tensors in place of its parameters and buffers, as
``torch.func.functional_call`` (meta-learning, parameter ensembles, per-sample losses by hand).

The given tensors stand in the module's parameter/buffer slots while the call runs (gradients
flow to them, not to the module's own parameters) and the module is restored afterwards, also
when the call raises. Names are those of ``named_parameters()``/``named_buffers()``; with
``tie_weights`` a tensor given for one name of a tied (shared) parameter stands for all of them.
"""

from __future__ import annotations

import contextlib
import warnings

from ..._tensor import Tensor

__all__ = ["functional_call"]


def _owner(module, name: str):
    *path, leaf = name.split(".")
    for part in path:
        module = getattr(module, part)
    return module, leaf


def _tied_names(module) -> list[list[str]]:
    groups: dict[int, list[str]] = {}
    for name, t in [*module.named_parameters(remove_duplicate=False), *module.named_buffers(remove_duplicate=False)]:
        groups.setdefault(id(t), []).append(name)
    return [names for names in groups.values() if len(names) > 1]


@contextlib.contextmanager
def _reparametrized(module, values: dict, tie_weights: bool, strict: bool):
    values = dict(values)
    if tie_weights:
        for names in _tied_names(module):
            given = {n: values[n] for n in names if n in values}
            if given and len({id(v) for v in given.values()}) > 1:
                raise ValueError(f"functional_call got multiple values for keys {sorted(given)}, which are tied. "
                                 "Consider using tie_weights=False")
            if given:
                for n in names:
                    values.setdefault(n, next(iter(given.values())))
    if strict:
        known = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        known |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        unexpected, missing = sorted(set(values) - known), sorted(known - set(values))
        if unexpected or missing:
            lines = [f"Error(s) in reparametrizing for {type(module).__name__}:"]
            if unexpected:
                lines.append("\tUnexpected key(s): " + ", ".join(f"'{k}'" for k in unexpected) + ".")
            if missing:
                lines.append("\tMissing key(s): " + ", ".join(f"'{k}'" for k in missing) + ".")
            raise RuntimeError("\n".join(lines))
    saved = []  # (owner, store or None, leaf, previous value or a marker)
    missing_attr = object()
    try:
        for name, value in values.items():
            owner, leaf = _owner(module, name)
            store = next((s for s in (owner._parameters, owner._buffers) if leaf in s), None)
            if store is not None:
                saved.append((owner, store, leaf, store[leaf]))
                store[leaf] = value  # (the slot itself: a plain tensor may stand in for a Parameter)
            else:  # not a parameter or buffer: a plain attribute for the call, as PyTorch's
                saved.append((owner, None, leaf, owner.__dict__.get(leaf, missing_attr)))
                object.__setattr__(owner, leaf, value)
        yield
    finally:
        for owner, store, leaf, old in reversed(saved):
            if store is not None:
                store[leaf] = old
            elif old is missing_attr:
                owner.__dict__.pop(leaf, None)
            else:
                object.__setattr__(owner, leaf, old)


def functional_call_impl(module, parameter_and_buffer_dicts, args=None, kwargs=None, *, tie_weights: bool = True,
                         strict: bool = False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a dict of names
    to tensors, or a sequence of such dicts with distinct keys) in place of its parameters and
    buffers; ``args`` may be a single tensor."""
    if isinstance(parameter_and_buffer_dicts, dict):
        values = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, list | tuple):
        values, seen_twice = {}, []
        for d in parameter_and_buffer_dicts:
            seen_twice += [k for k in d if k in values]
            values.update(d)
        if seen_twice:
            raise ValueError(f"{sorted(set(seen_twice))} appeared in multiple dictionaries; behavior of functional "
                             "call is ambiguous")
    else:
        raise ValueError(f"Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    for k, v in values.items():
        if not isinstance(v, Tensor):
            raise TypeError(f"functional_call: the value for '{k}' must be a Tensor, got {type(v).__name__}")
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrized(module, values, tie_weights, strict):
        return module(*args, **(kwargs or {}))


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """Deprecated in PyTorch (it warns) for ``tensorlab.func.functional_call``."""
    warnings.warn("tensorlab.nn.utils.stateless.functional_call is deprecated; use tensorlab.func.functional_call "
                  "instead", FutureWarning, stacklevel=2)
    return functional_call_impl(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)
