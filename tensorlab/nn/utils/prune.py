"""``tensorlab.nn.utils.prune``: PyTorch's pruning utilities, with PyTorch's names, keys and behaviour.

How a pruned tensor is represented
----------------------------------
Pruning ``module.<name>`` leaves the values alone and multiplies them by a 0/1 mask instead:

* the parameter moves to ``<name>_orig`` (still the same ``Parameter`` object, so an optimizer that
  holds it keeps training it);
* the mask is the buffer ``<name>_mask``, so ``state_dict`` holds ``weight_orig`` and ``weight_mask``
  and no ``weight``, as in PyTorch;
* ``<name>`` becomes a plain attribute holding ``mask * orig``. The pruning method is registered as a
  forward pre-hook that recomputes it before every forward, so the gradient reaches ``<name>_orig``
  through the mask and an optimizer step on ``<name>_orig`` shows up in the next forward.

``remove`` makes it permanent: ``<name>_orig`` (the same object) gets the values ``mask * orig``
and is registered as ``<name>`` again; mask, hook and ``<name>_orig`` go away.

Methods and masks
-----------------
A method (a ``BasePruningMethod`` subclass) turns *importance scores* (by default the tensor itself)
and a ``default_mask`` (what earlier prunings kept) into a new mask through ``compute_mask``. The
amount is an ``int`` (that many entries or channels) or a ``float`` in [0, 1] (that fraction,
rounded half to even like Python's ``round``). Among equal scores the lower index is pruned first
(``topk`` here is stable); PyTorch leaves that order unspecified.

``compute_mask`` of a single method looks at all of ``t``; what earlier prunings removed only
survives through the multiplication by ``default_mask``. Pruning the same tensor a second time goes
through ``PruningContainer``, which hands the new method only the part that is still alive and
writes its answer back, according to the method's ``PRUNING_TYPE``:

* ``"unstructured"``: the entries whose mask is 1, raveled (``amount`` counts those);
* ``"structured"``: the channels along ``method.dim`` with any nonzero mask entry;
* ``"global"``: the whole tensor (``CustomFromMask``: the given mask applies everywhere).

The scores of a re-pruning default to the attribute ``<name>`` as the module holds it (``mask *
orig`` from the last forward or pruning), so a structured method measures the channels as the module
uses them.

``global_unstructured`` concatenates the scores (and masks) of several tensors, lets an unstructured
method choose across all of them through the same container logic, and installs each tensor's share
of the answer with ``CustomFromMask``.

Errors
------
Errors are raised with PyTorch's types and messages, and before the module changes: the method is
built (which checks ``amount``), every target checked (a Parameter of its module, or already
pruned) and the mask computed before anything is moved or registered, so a failed pruning leaves the
module as it was (PyTorch re-registers the parameter after a failed first pruning, which moves it
last in ``state_dict``; ``global_unstructured`` prunes the targets before a bad one). Where PyTorch
leaves a module half-changed (a failed re-pruning drops the existing hook), mutates an argument
(``PruningContainer.compute_mask`` writes into ``default_mask``) or fails on documented input
(``PruningContainer(m1, m2)``, a generator in ``global_unstructured``), this module does not.
``ln_structured(n='nuc')`` raises ``NotImplementedError``: tensorlab has no SVD.
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

import tensorlab as tl

__all__ = [
    "BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured", "RandomStructured",
    "LnStructured", "CustomFromMask", "identity", "random_unstructured", "l1_unstructured", "random_structured",
    "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned",
]


# ----------------------------------------------------------------------------------------------------------------------
# Amounts and channels
# ----------------------------------------------------------------------------------------------------------------------

def _checked_amount(amount):
    """``amount`` as given, after checking it is a count (int >= 0) or a fraction (float in [0, 1])."""
    if not isinstance(amount, numbers.Real):  # numpy scalars are Real too; a 0-d tensor is not
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    is_count = isinstance(amount, numbers.Integral)
    if (is_count and amount < 0) or (not is_count and not 0 <= amount <= 1):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")
    return amount


def _how_many_to_prune(amount, available: int) -> int:
    """The number of entries (or channels) out of ``available`` that ``amount`` asks to prune."""
    if isinstance(amount, numbers.Integral):
        if amount > available:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={available}")
        return int(amount)
    return round(amount * available)  # half to even, as PyTorch


def _channel_dim(t, dim) -> int:
    """``dim`` as a non-negative index into ``t``, for a method that prunes whole channels along it."""
    if t.dim() <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {t.dim()} dims")
    if not -t.dim() <= dim < t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")
    return dim % t.dim()


def _dims_except(t, dim: int) -> list[int]:
    return [d for d in range(t.dim()) if d != dim]


def _channel_norms(t, n, dim: int):
    """The L``n`` norm of each channel of ``t`` along ``dim`` (``n`` as ``torch.norm``'s ``p``)."""
    if n == "nuc":
        raise NotImplementedError("ln_structured: n='nuc' needs singular values (an SVD), which tensorlab does not "
                                  "implement; use n='fro', an int or a float")
    order = 2 if n == "fro" else n
    return tl.linalg.vector_norm(t, ord=order, dim=_dims_except(t, dim))


def _with_channels_pruned(t, default_mask, dim: int, pruned_channels):
    """``default_mask`` (in ``t``'s dtype) with the given channels of ``t`` along ``dim`` set to 0."""
    along_dim = tl.ones(t.shape[dim], dtype=t.dtype, device=t.device)
    along_dim[pruned_channels] = 0
    shape = [1] * t.dim()
    shape[dim] = t.shape[dim]
    return along_dim.view(shape) * default_mask.to(t.dtype)


def _with_entries_pruned(default_mask, flat_indices):
    """A copy of ``default_mask`` with the given entries (indices into the raveled tensor) set to 0."""
    flat = default_mask.flatten().clone()
    flat[flat_indices] = 0
    return flat.view(default_mask.shape)


# ----------------------------------------------------------------------------------------------------------------------
# Combining a new method with what earlier prunings kept
# ----------------------------------------------------------------------------------------------------------------------

def _mask_on_unpruned_part(method, t, default_mask):
    """The mask after ``method`` prunes the part of ``t`` that ``default_mask`` still keeps (``t``'s dtype).

    This is ``PruningContainer.compute_mask`` for its newest method; ``apply`` and ``global_unstructured``
    call it before they change anything, so a method that fails leaves the module as it was.
    """
    kind = getattr(method, "PRUNING_TYPE", None)
    if kind == "global":
        return method.compute_mask(t, default_mask=default_mask).to(t.dtype)
    # start from what is already pruned (it stays pruned), in a copy: the caller's default_mask is not written to
    combined = default_mask.to(t.dtype).clone()
    if kind == "unstructured":
        alive = default_mask == 1
        combined[alive] = method.compute_mask(t[alive], default_mask=default_mask[alive]).to(t.dtype)
    elif kind == "structured":
        dim = _channel_dim(t, method.dim)
        alive_channels = (default_mask != 0).sum(dim=_dims_except(t, dim)).nonzero().flatten()
        partial = method.compute_mask(t.index_select(dim, alive_channels),
                                      default_mask=default_mask.index_select(dim, alive_channels))
        combined.index_copy_(dim, alive_channels, partial.to(t.dtype))
    else:
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
    return combined


def _pruning_hook(module, name):
    """``(key, method)`` of the forward pre-hook that prunes ``module.<name>``, or ``None``."""
    found = [(key, hook) for key, hook in module._forward_pre_hooks.items()
             if isinstance(hook, BasePruningMethod) and getattr(hook, "_tensor_name", None) == name]
    if len(found) > 1:
        raise RuntimeError(f"prune: {len(found)} pruning hooks act on '{name}' of {module}; "
                           "several methods on one tensor belong in one PruningContainer")
    return found[0] if found else None


def _check_prunable(module, name) -> None:
    """Only a Parameter of ``module`` (or one already pruned, held as ``<name>_orig``) can be pruned:
    it is re-registered as ``<name>_orig``. Checked before anything changes."""
    if name in module._parameters and module._parameters[name] is not None:
        return
    if name + "_orig" in module._parameters:
        return
    kind = ("a buffer" if name in getattr(module, "_buffers", {}) else
            "not an attribute" if not hasattr(module, name) else f"a {type(getattr(module, name)).__name__}")
    raise TypeError(f"prune: '{name}' of {type(module).__name__} is {kind}, not a Parameter (only parameters "
                    "can be pruned)")


# ----------------------------------------------------------------------------------------------------------------------
# Methods
# ----------------------------------------------------------------------------------------------------------------------

class BasePruningMethod(ABC):
    """Abstract base class for creation of new pruning techniques.

    A subclass sets ``PRUNING_TYPE`` ("unstructured", "structured" or "global") and implements
    ``compute_mask``; ``apply`` installs it on a module. After ``apply`` the instance knows the tensor it
    prunes (``_tensor_name``, PyTorch's attribute name) and is the module's forward pre-hook.
    """

    def __call__(self, module, inputs):
        """Forward pre-hook: set ``module.<name>`` to ``<name>_mask * <name>_orig`` (``inputs`` unused)."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask for ``t`` (importance scores), on top of ``default_mask`` (same shape as ``t``)."""

    def apply_mask(self, module):
        """``<name>_orig`` times ``<name>_mask`` (in the parameter's dtype): the pruned tensor."""
        orig = getattr(module, self._tensor_name + "_orig")
        mask = getattr(module, self._tensor_name + "_mask")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)``; returns that method (now the forward pre-hook).

        ``importance_scores`` (shape of the parameter) rank the entries instead of the values themselves.
        """
        method = cls(*args, **kwargs)
        method._tensor_name = name
        _check_prunable(module, name)
        earlier = _pruning_hook(module, name)
        current = getattr(module, name)
        scores = current if importance_scores is None else importance_scores
        if scores.shape != current.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}, "
                                 f"got {scores.shape} vs {current.shape}")
        with tl.no_grad():
            if earlier is None:
                mask = method.compute_mask(scores.detach(), default_mask=tl.ones_like(current))
            else:
                mask = _mask_on_unpruned_part(method, scores.detach(), getattr(module, name + "_mask").detach())
        # the mask is known: from here on nothing fails for a well-formed module
        if earlier is None:
            module.register_parameter(name + "_orig", module._parameters[name])
            del module._parameters[name]
            module.register_buffer(name + "_mask", mask)
            hook = method
        else:
            key, hook = earlier
            if not isinstance(hook, PruningContainer):
                hook = PruningContainer(hook)
            hook.add_pruning_method(method)
            setattr(module, name + "_mask", mask)
            del module._forward_pre_hooks[key]  # re-registered below: the container runs after the other hooks
        setattr(module, name, method.apply_mask(module))
        module.register_forward_pre_hook(hook)
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask ``compute_mask`` gives for it (ranked by ``importance_scores`` when given)."""
        scores = t if importance_scores is None else importance_scores
        if scores.shape != t.shape:
            raise AssertionError(f"importance_scores should have the same shape as tensor t, got {scores.shape} "
                                 f"vs {t.shape}")
        if default_mask is None:
            default_mask = tl.ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Make the pruning permanent: ``<name>`` is a parameter again holding ``mask * orig``; the hook stays."""
        name = self._tensor_name
        pruned = self.apply_mask(module)
        delattr(module, name)
        orig = module._parameters.pop(name + "_orig")
        del module._buffers[name + "_mask"]
        orig.data = pruned.data  # the same Parameter object, so optimizers and references keep working
        setattr(module, name, orig)


class PruningContainer(BasePruningMethod):
    """Container holding a sequence of pruning methods for iterative pruning of one tensor.

    ``PruningContainer(method)``, ``PruningContainer(m1, m2, ...)`` or ``PruningContainer([m1, m2])``; all act on
    the same tensor. ``compute_mask`` applies the newest method to what the earlier ones kept.
    """

    def __init__(self, *args) -> None:
        self._pruning_methods = ()
        methods = args
        if len(args) == 1 and isinstance(args[0], Iterable) and not isinstance(args[0], BasePruningMethod):
            methods = tuple(args[0])
        for method in methods:
            self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        """Append ``method`` (acting on the same tensor as the container's methods)."""
        if method is None:
            return
        if not isinstance(method, BasePruningMethod):
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if not hasattr(self, "_tensor_name"):
            self._tensor_name = method._tensor_name  # the first method names the tensor
        elif method._tensor_name != self._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' "
                             f"to PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods = (*self._pruning_methods, method)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        """``default_mask`` combined with the newest method's mask, computed on the entries or channels it keeps.

        The newest method's ``PRUNING_TYPE`` decides what it sees: "unstructured", the raveled entries whose
        mask is 1; "structured", the channels along its ``dim`` that are not entirely pruned; "global", all of
        ``t``. The result has ``t``'s dtype; ``default_mask`` is not modified.
        """
        return _mask_on_unpruned_part(self._pruning_methods[-1], t, default_mask)


class Identity(BasePruningMethod):
    """Prunes nothing: installs the reparametrization with a mask of ones."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prune ``amount`` (int: that many; float: that fraction) of the entries, chosen uniformly at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        self.amount = _checked_amount(amount)

    def compute_mask(self, t, default_mask):
        count = _how_many_to_prune(self.amount, t.numel())
        chosen = tl.randperm(t.numel(), device=t.device)[:count]
        return _with_entries_pruned(default_mask, chosen)

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prune ``amount`` (int: that many; float: that fraction) of the entries with the smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        self.amount = _checked_amount(amount)

    def compute_mask(self, t, default_mask):
        count = _how_many_to_prune(self.amount, t.numel())
        if count == 0:
            return default_mask.clone()
        smallest = tl.topk(t.abs().flatten(), count, largest=False).indices
        return _with_entries_pruned(default_mask, smallest)

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prune ``amount`` (int: that many; float: that fraction) of the channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1) -> None:
        self.amount = _checked_amount(amount)
        self.dim = dim

    def compute_mask(self, t, default_mask):
        dim = _channel_dim(t, self.dim)
        count = _how_many_to_prune(self.amount, t.shape[dim])
        if count == 0:
            return default_mask
        chosen = tl.randperm(t.shape[dim], device=t.device)[:count]
        return _with_channels_pruned(t, default_mask, dim, chosen)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prune ``amount`` (int: that many; float: that fraction) of the channels along ``dim`` with the smallest
    L``n`` norm (``n``: int, float, inf, -inf or 'fro'; 'nuc' is not implemented)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1) -> None:
        self.amount = _checked_amount(amount)
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        dim = _channel_dim(t, self.dim)
        count = _how_many_to_prune(self.amount, t.shape[dim])
        if count == 0:
            return default_mask
        weakest = tl.topk(_channel_norms(t, self.n, dim), count, largest=False).indices
        return _with_channels_pruned(t, default_mask, dim, weakest)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prune with a given mask (same shape as the tensor; its zeros prune)."""

    PRUNING_TYPE = "global"

    def __init__(self, mask) -> None:
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype, device=default_mask.device)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


# ----------------------------------------------------------------------------------------------------------------------
# Functions: prune a module in place and return it
# ----------------------------------------------------------------------------------------------------------------------

def identity(module, name):
    """Reparametrize ``module.<name>`` with a mask of ones (prunes nothing); returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random entries of ``module.<name>``; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` entries of ``module.<name>`` with the smallest absolute value (or importance score);
    returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random channels of ``module.<name>`` along ``dim``; returns ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` channels of ``module.<name>`` along ``dim`` with the smallest L``n`` norm (of the
    importance scores when given); returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    """Prune the tensors ``(module, name)`` in ``parameters`` together: ``pruning_method(**kwargs)`` (an
    unstructured method, e.g. ``L1Unstructured`` with ``amount=``) chooses across all their entries.

    ``importance_scores`` maps ``(module, name)`` to scores shaped like that tensor. Each tensor receives its
    part of the mask as a ``CustomFromMask`` pruning.
    """
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    targets = list(parameters)  # walked twice: once to choose, once to install
    if importance_scores is None:
        importance_scores = {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    method = pruning_method(**kwargs)
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    if not targets:
        raise ValueError("global_unstructured(): parameters is empty; expected (module, name) pairs")

    for module, name in targets:  # every target before any is pruned: nothing half-done on an error
        _check_prunable(module, name)
    tensors = [getattr(module, name) for module, name in targets]
    with tl.no_grad():
        scores = tl.cat([importance_scores.get((module, name), tensor).detach().flatten()
                         for (module, name), tensor in zip(targets, tensors)])
        masks = tl.cat([_current_mask(module, name, tensor).flatten()
                        for (module, name), tensor in zip(targets, tensors)])
        mask = _mask_on_unpruned_part(method, scores, masks)
    start = 0
    for (module, name), tensor in zip(targets, tensors):
        custom_from_mask(module, name, mask=mask[start:start + tensor.numel()].view(tensor.shape))
        start += tensor.numel()


def _current_mask(module, name, tensor):
    """``module.<name>_mask`` when ``<name>`` is pruned, else ones (nothing pruned yet)."""
    mask = getattr(module, name + "_mask", None)
    return tl.ones_like(tensor) if mask is None else mask.detach()


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` where ``mask`` is 0; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent and drop its hook, ``<name>_orig`` and ``<name>_mask``;
    returns ``module``. The pruned entries stay zero."""
    found = _pruning_hook(module, name)
    if found is None:
        raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")
    key, hook = found
    hook.remove(module)
    del module._forward_pre_hooks[key]
    return module


def is_pruned(module) -> bool:
    """Whether ``module`` or any submodule has a pruning forward pre-hook."""
    return any(isinstance(hook, BasePruningMethod)
               for submodule in module.modules() for hook in submodule._forward_pre_hooks.values())
