"""``functional_call``: run a module with other tensors in place of its parameters and buffers, as
``torch.nn.utils.stateless`` (deprecated there for ``torch.func.functional_call``, which uses it).

The given tensors are swapped into the module's slots for the call (gradients flow to them, not to
the module's own parameters) and swapped back afterwards, also when the call raises, as PyTorch's
``_reparametrize_module``: a name that is a parameter/buffer slot takes the value as is (a plain
tensor may stand in for a Parameter; ``None`` hides the slot from ``parameters()``/``buffers()``),
any other name is *assigned* for the call (so a ``Parameter``/``Buffer`` under a new name is
registered while the call runs, and an existing attribute must be a tensor or ``None``). What the
call leaves in the slots (a module doing ``self.foo = self.foo + 1``) is written back into the
caller's dict under the keys it gave. With ``tie_weights`` a tensor given for one name of a tied
(shared) parameter/buffer stands for all its names.
"""

from __future__ import annotations

import contextlib
import warnings

from ..._tensor import Tensor
from ..modules.module import Module

__all__ = ["functional_call"]

_MISSING = object()  # PyTorch's ``_named_member_accessor._MISSING``: "no such attribute"


def _get_submodule(module, name: str, memo: dict):
    """``NamedMemberAccessor.get_submodule``: the submodule at dotted ``name`` (``""``: ``module``)."""
    if not name:
        return module
    if name in memo:
        return memo[name]
    prefix, dot, attr = name.rpartition(".")
    parent = _get_submodule(module, prefix, memo) if dot else module
    try:
        submodule = getattr(parent, attr)
    except AttributeError as ex:
        raise AttributeError(f"{parent._get_name()} has no attribute `{attr}`") from ex
    if not isinstance(submodule, Module):
        raise TypeError(f"submodule `{name}`: {submodule} is not an instance of tensorlab.nn.Module")
    memo[name] = submodule
    return submodule


def _swap_tensor(module, name: str, tensor):
    """PyTorch's ``_named_member_accessor.swap_tensor`` (with ``allow_missing``): puts ``tensor``
    (``_MISSING``: removes it) under ``name`` of ``module`` and returns what was there."""
    if not isinstance(module, Module):
        raise TypeError(f"{module} is not an instance of tensorlab.nn.Module")
    if tensor is not _MISSING and tensor is not None and not isinstance(tensor, Tensor):
        raise TypeError(f"{tensor} is not an instance of tensorlab.Tensor")
    if "." in name:
        raise KeyError('tensor name can\'t contain "."')
    if name == "":
        raise KeyError('tensor name can\'t be empty string ""')
    for store in (module._parameters, module._buffers):
        if name in store:
            orig = store[name]
            if tensor is not _MISSING:
                store[name] = tensor  # the slot itself: a plain tensor may stand in for a Parameter
            else:
                del store[name]
            return orig
    orig = getattr(module, name) if hasattr(module, name) else _MISSING
    if orig is not _MISSING and orig is not None and not isinstance(orig, Tensor):
        raise TypeError(f"attribute `{name}`: {orig} is not an instance of tensorlab.Tensor")
    if tensor is not _MISSING:
        setattr(module, name, tensor)  # (registers a Parameter/Buffer, as Module.__setattr__ does)
    elif hasattr(module, name):
        delattr(module, name)
    return orig


def _swap_tensors_dict(module, named_tensors: dict, memo: dict) -> dict:
    """``NamedMemberAccessor.swap_tensors_dict(..., allow_missing=True)``: swaps all, or (when one
    fails) swaps back those already swapped and raises; returns the previous values by name."""
    orig_named_tensors = {}
    try:
        for name, tensor in named_tensors.items():
            prefix, _, attr = name.rpartition(".")
            orig_named_tensors[name] = _swap_tensor(_get_submodule(module, prefix, memo), attr, tensor)
    except Exception:
        for name, orig in orig_named_tensors.items():
            prefix, _, attr = name.rpartition(".")
            _swap_tensor(_get_submodule(module, prefix, memo), attr, orig)
        raise
    return orig_named_tensors


def _untie_named_tensors_map(module, parameters_and_buffers: dict) -> dict:
    """A copy of ``parameters_and_buffers`` in which a value given for one name of tied (shared)
    tensors of ``module`` is given for all their names; ValueError for different values given for
    names of one tied tensor (as PyTorch, it compares the values of all the tied names then)."""
    all_named_tensors = {}
    all_named_tensors.update(module.named_parameters(remove_duplicate=False))
    all_named_tensors.update(module.named_buffers(remove_duplicate=False))
    by_tensor: dict[int, set[str]] = {}
    for name, tensor in all_named_tensors.items():
        by_tensor.setdefault(id(tensor), set()).add(name)
    tied_names_map = {n: names for names in by_tensor.values() if len(names) > 1 for n in names}
    given_tied = {name for name in parameters_and_buffers.keys() if name in tied_names_map}
    for given_name in given_tied:
        tied_names = tied_names_map[given_name]
        if (len(tied_names & given_tied) > 1
                and len({id(parameters_and_buffers[n]) for n in tied_names}) != 1):
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied_names)}, which are tied. "
                             "Consider using tie_weights=False")
    untied = parameters_and_buffers.copy()
    for given_name in given_tied:
        for tied_name in tied_names_map[given_name]:
            untied[tied_name] = parameters_and_buffers[given_name]
    return untied


@contextlib.contextmanager
def _reparametrize_module(module, parameters_and_buffers: dict, tie_weights: bool = False, strict: bool = False):
    """The module with ``parameters_and_buffers`` swapped in while the block runs; afterwards the
    values the module then holds under the given keys are written back into
    ``parameters_and_buffers`` (the caller's dict itself)."""
    untied = _untie_named_tensors_map(module, parameters_and_buffers) if tie_weights else parameters_and_buffers
    if strict:
        valid = {n for n, _ in module.named_parameters(remove_duplicate=False)}
        valid |= {n for n, _ in module.named_buffers(remove_duplicate=False)}
        keys = set(untied)
        missing, unexpected = sorted(valid - keys), sorted(keys - valid)
        error_msgs = []
        if unexpected:
            error_msgs.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
        if missing:
            error_msgs.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
        if error_msgs:
            raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(module._get_name(),
                                                                                  "\n\t".join(error_msgs)))
    memo: dict = {}
    orig: dict = {}
    try:
        orig = _swap_tensors_dict(module, untied, memo)
        yield
    finally:
        new = _swap_tensors_dict(module, orig, memo)
        # the module may have reassigned its slots during the call: reflect that in the caller's dict
        parameters_and_buffers.update({k: new[k] for k in parameters_and_buffers if k in new})


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors of the dict ``parameters_and_buffers`` in place
    of its parameters and buffers. Deprecated (it warns, as PyTorch's) for
    ``tensorlab.func.functional_call``."""
    warnings.warn("`tensorlab.nn.utils.stateless.functional_call` is deprecated and will be removed in a future "
                  "version. Please use `tensorlab.func.functional_call` instead which is a drop-in replacement.",
                  FutureWarning, stacklevel=2)
    return _functional_call(module, parameters_and_buffers, args, kwargs, tie_weights=tie_weights, strict=strict)


def _functional_call(module, parameters_and_buffers, args=None, kwargs=None, *, tie_weights=True, strict=False):
    if kwargs is None:
        kwargs = {}
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _reparametrize_module(module, parameters_and_buffers, tie_weights=tie_weights, strict=strict):
        return module(*args, **kwargs)
