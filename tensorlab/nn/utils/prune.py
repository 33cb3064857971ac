"""``tensorlab.nn.utils.prune``: PyTorch's pruning utilities, with PyTorch's names and behaviour.

Pruning ``module.<name>`` moves the parameter to ``<name>_orig``, registers the 0/1 buffer
``<name>_mask`` (so ``state_dict`` holds ``weight_orig`` and ``weight_mask``, not ``weight``) and
sets ``<name>`` as a plain attribute ``mask * orig``; the pruning method itself is registered as a
forward pre-hook that recomputes ``<name>`` before every forward, so gradients reach ``<name>_orig``
through the mask. Pruning the same tensor again combines the methods in a ``PruningContainer``
(the new method acts on the entries the old masks kept); ``remove`` makes the pruning permanent
(``<name>`` becomes a parameter again, holding ``mask * orig``).
"""

from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

__all__ = [
    "BasePruningMethod", "PruningContainer", "Identity", "RandomUnstructured", "L1Unstructured", "RandomStructured",
    "LnStructured", "CustomFromMask", "identity", "random_unstructured", "l1_unstructured", "random_structured",
    "ln_structured", "global_unstructured", "custom_from_mask", "remove", "is_pruned",
]


class BasePruningMethod(ABC):
    """Abstract base of the pruning methods: a subclass defines ``compute_mask`` and
    ``PRUNING_TYPE`` (``"unstructured"``, ``"structured"`` with a ``dim``, or ``"global"``)."""

    _tensor_name: str

    def __call__(self, module, inputs):
        # the forward pre-hook: recompute the pruned tensor from the current orig and mask
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The mask for ``t``, combined with ``default_mask`` (the mask of earlier prunings)."""

    def apply_mask(self, module):
        """``<name>_mask * <name>_orig`` (the mask cast to orig's dtype)."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` in place with a ``cls(*args, **kwargs)``; returns the method
        (a ``PruningContainer`` when ``name`` was pruned before)."""
        from ..._factories import ones_like

        def _get_composite_method(cls, module, name, *args, **kwargs):
            old_method = None
            found = 0
            hooks_to_remove = []
            for k, hook in module._forward_pre_hooks.items():
                if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
                    old_method = hook
                    hooks_to_remove.append(k)
                    found += 1
            if found > 1:
                raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module "
                                     f"{module}. Use a PruningContainer.")
            for k in hooks_to_remove:
                del module._forward_pre_hooks[k]
            method = cls(*args, **kwargs)
            method._tensor_name = name
            if old_method is not None:
                if isinstance(old_method, PruningContainer):
                    old_method.add_pruning_method(method)
                    method = old_method
                elif isinstance(old_method, BasePruningMethod):
                    container = PruningContainer(old_method)
                    container.add_pruning_method(method)
                    method = container
            return method

        method = _get_composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None:
            if importance_scores.shape != orig.shape:
                raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}, "
                                     f"got {importance_scores.shape} vs {orig.shape}")
        else:
            importance_scores = orig
        if not isinstance(method, PruningContainer):
            # first pruning of this tensor: the parameter becomes <name>_orig
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = ones_like(orig)
        else:
            from ..._layout import contiguous_format
            default_mask = getattr(module, name + "_mask").detach().clone(memory_format=contiguous_format)
        try:
            mask = method.compute_mask(importance_scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            # put the parameter back, so a failed pruning leaves the module as it was (as PyTorch)
            if not isinstance(method, PruningContainer):
                orig = getattr(module, name + "_orig")
                module.register_parameter(name, orig)
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """``t`` times the mask computed from ``importance_scores`` (default ``t``)."""
        from ..._factories import ones_like

        if importance_scores is not None:
            if importance_scores.shape != t.shape:
                raise AssertionError(f"importance_scores should have the same shape as tensor t, got "
                                     f"{importance_scores.shape} vs {t.shape}")
        else:
            importance_scores = t
        default_mask = default_mask if default_mask is not None else ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Make the pruning permanent: ``<name>`` is again a parameter (the ``<name>_orig`` object,
        now holding ``mask * orig``); ``<name>_orig`` and ``<name>_mask`` are gone."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


class PruningContainer(BasePruningMethod):
    """The sequence of pruning methods applied to one tensor; its mask is the last method's mask
    computed on the entries (or channels) the earlier ones kept."""

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple[BasePruningMethod, ...] = ()
        if not isinstance(args, Iterable):
            self._tensor_name = args._tensor_name
            self.add_pruning_method(args)
        elif len(args) == 1:
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in args:
                self.add_pruning_method(method)

    def add_pruning_method(self, method) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        elif method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' to "
                             f"PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        def _combine_masks(method, t, mask):
            new_mask = mask.to(dtype=t.dtype)
            if method.PRUNING_TYPE == "unstructured":
                # only the entries still unpruned are candidates
                slc = mask == 1
            elif method.PRUNING_TYPE == "structured":
                if not hasattr(method, "dim"):
                    raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute '
                                         "`dim` defined.")
                n_dims = t.dim()
                dim = method.dim
                if dim < 0:
                    dim = n_dims + dim
                if dim < 0:
                    raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
                # only the channels with at least one unpruned entry are candidates
                keep_channel = mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
                slc = [slice(None)] * n_dims
                slc[dim] = keep_channel
            elif method.PRUNING_TYPE == "global":
                slc = [slice(None)] * len(t.shape)
            else:
                raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")
            if isinstance(slc, list):
                slc = tuple(slc)
            partial_mask = method.compute_mask(t[slc], default_mask=mask[slc])
            new_mask[slc] = partial_mask.to(dtype=new_mask.dtype)
            return new_mask

        return _combine_masks(self._pruning_methods[-1], t, default_mask)


class Identity(BasePruningMethod):
    """Prunes nothing (the mask is all ones): a tensor that is 'pruned' for uniformity."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes ``amount`` (a fraction in [0, 1] or a count) entries chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        from ..._layout import contiguous_format
        from ..._random import rand_like
        from ...ops.sorting import topk

        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone(memory_format=contiguous_format)
        if nparams_toprune != 0:
            prob = rand_like(t)
            mask.view(-1)[topk(prob.view(-1), k=nparams_toprune).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the ``amount`` (a fraction in [0, 1] or a count) entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount

    def compute_mask(self, t, default_mask):
        from ..._layout import contiguous_format
        from ...ops.sorting import topk

        tensor_size = t.nelement()
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        mask = default_mask.clone(memory_format=contiguous_format)
        if nparams_toprune != 0:
            mask.view(-1)[topk(t.abs().view(-1), k=nparams_toprune, largest=False).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes ``amount`` whole channels along ``dim``, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.dim = dim

    def compute_mask(self, t, default_mask):
        from ..._factories import zeros_like
        from ..._random import rand
        from ...ops.sorting import kthvalue

        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        _validate_pruning_amount(nparams_toprune, tensor_size)
        if nparams_toprune == 0:
            return default_mask
        # the channels whose random draw is above the k-th smallest are kept
        prob = rand(tensor_size, device=t.device)
        channel_mask = prob > kthvalue(prob, k=nparams_toprune).values
        mask = zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = channel_mask
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the ``amount`` channels along ``dim`` of smallest ``n``-norm (``n`` as ``ord`` of
    ``linalg.vector_norm``, or ``'fro'``/``'nuc'``)."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1) -> None:
        _validate_pruning_amount_init(amount)
        self.amount = amount
        self.n = n
        self.dim = dim

    def compute_mask(self, t, default_mask):
        from ..._factories import zeros_like
        from ...ops.sorting import topk

        _validate_structured_pruning(t)
        _validate_pruning_dim(t, self.dim)
        tensor_size = t.shape[self.dim]
        nparams_toprune = _compute_nparams_toprune(self.amount, tensor_size)
        nparams_tokeep = tensor_size - nparams_toprune
        _validate_pruning_amount(nparams_toprune, tensor_size)
        norm = _compute_norm(t, self.n, self.dim)
        kept = topk(norm, k=nparams_tokeep, largest=True)
        if nparams_toprune == 0:
            return default_mask
        mask = zeros_like(t)
        slc = [slice(None)] * len(t.shape)
        slc[self.dim] = kept.indices
        mask[tuple(slc)] = 1
        mask *= default_mask.to(dtype=mask.dtype)
        return mask

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    PRUNING_TYPE = "global"

    def __init__(self, mask) -> None:
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def identity(module, name):
    """Apply the Identity pruning (a mask of ones) to ``module.<name>``; returns ``module``."""
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    """Prune ``amount`` random entries of ``module.<name>``; returns ``module``."""
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    """Prune the ``amount`` entries of ``module.<name>`` of smallest ``|importance_scores|``
    (default: the tensor itself); returns ``module``."""
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    """Prune ``amount`` random channels along ``dim`` of ``module.<name>``; returns ``module``."""
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    """Prune the ``amount`` channels along ``dim`` of ``module.<name>`` of smallest ``n``-norm;
    returns ``module``."""
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs) -> None:
    """Prune the ``(module, name)`` pairs of ``parameters`` together: ``pruning_method(**kwargs)``
    (an unstructured method) computes one mask over all their entries, applied to each as a
    ``custom_from_mask``."""
    from ..._factories import ones_like
    from .convert_parameters import parameters_to_vector

    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    relevant_importance_scores = parameters_to_vector(
        [importance_scores.get((module, name), getattr(module, name)) for module, name in parameters])
    default_mask = parameters_to_vector(
        [getattr(module, name + "_mask", ones_like(getattr(module, name))) for module, name in parameters])
    container = PruningContainer()
    container._tensor_name = "temp"
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    container.add_pruning_method(method)
    final_mask = container.compute_mask(relevant_importance_scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        num_param = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + num_param].view_as(param))
        pointer += num_param


def custom_from_mask(module, name, mask):
    """Prune ``module.<name>`` with the given 0/1 ``mask``; returns ``module``."""
    CustomFromMask.apply(module, name, mask)
    return module


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent (see ``BasePruningMethod.remove``) and drop
    its forward pre-hook; returns ``module``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module) -> bool:
    """Whether ``module`` or any submodule has a pruning forward pre-hook."""
    for _, submodule in module.named_modules():
        for hook in submodule._forward_pre_hooks.values():
            if isinstance(hook, BasePruningMethod):
                return True
    return False


def _validate_pruning_amount_init(amount) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and (float(amount) > 1.0 or float(amount) < 0.0)):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _validate_pruning_amount(amount, tensor_size) -> None:
    if isinstance(amount, numbers.Integral) and amount > tensor_size:
        raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={tensor_size}")


def _validate_structured_pruning(t) -> None:
    shape = t.shape
    if len(shape) <= 1:
        raise ValueError("Structured pruning can only be applied to multidimensional tensors. Found tensor of shape "
                         f"{shape} with {len(shape)} dims")


def _compute_nparams_toprune(amount, tensor_size):
    # an int is a count, a float a fraction (rounded half to even, as Python's round)
    if isinstance(amount, numbers.Integral):
        return amount
    return round(amount * tensor_size)


def _validate_pruning_dim(t, dim) -> None:
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _compute_norm(t, n, dim):
    """The ``n``-norm of each slice of ``t`` along ``dim`` (over all the other dims)."""
    from ... import linalg

    dims = list(range(t.dim()))
    if dim < 0:
        dim = dims[dim]
    dims.remove(dim)
    is_matrix_dim = len(dims) == 2
    if n == "nuc" or (n == "fro" and is_matrix_dim):
        return linalg.matrix_norm(t, ord=n, dim=dims if is_matrix_dim else (-2, -1))
    return linalg.vector_norm(t, ord=2 if n == "fro" else n, dim=dims)
