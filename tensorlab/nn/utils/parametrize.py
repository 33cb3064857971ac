"""``tensorlab.nn.utils.parametrize``: express a parameter or buffer as a function of other tensors
(PyTorch's design).

``register_parametrization(module, "weight", P)`` moves ``module.weight`` to
``module.parametrizations.weight.original`` (or ``original0``, ``original1``, ... when
``P.right_inverse`` returns several tensors) and swaps the module's class for a generated subclass
(``ParametrizedLinear``) whose ``weight`` property evaluates ``P(original)`` on every access.
Subclassing keeps ``isinstance(m, nn.Linear)``, and the originals stay ordinary parameters, so
optimizers, ``to()``/``cuda()`` and ``state_dict`` (PyTorch's keys:
``parametrizations.weight.original``) need nothing special.
"""

from __future__ import annotations

import collections.abc
import copy
import copyreg
from collections.abc import Sequence
from contextlib import contextmanager

from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = [
    "cached", "ParametrizationList", "register_parametrization", "is_parametrized", "remove_parametrizations",
    "type_before_parametrizations", "transfer_parametrizations_and_params",
]

# cached(): nesting depth, and the parametrized tensors computed while it is > 0, keyed by
# (id(module), tensor_name)
_cache_enabled = 0
_cache: dict[tuple[int, str], Tensor] = {}


@contextmanager
def cached():
    """Within the block, each parametrized tensor is computed once (on first access) and reused;
    the values are dropped when the outermost ``cached()`` exits. Useful when a forward reads a
    parametrized weight several times (an RNN's recurrent kernel, shared weights)."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module: Module, name: str, X: Tensor) -> None:
    if isinstance(X, Parameter):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest: Tensor, src: Tensor) -> None:
    """PyTorch's ``dest.set_(src)``: ``dest`` takes ``src``'s memory but keeps its identity, so an
    optimizer holding ``dest`` goes on updating the module's tensor."""
    dest.data = src


class ParametrizationList(ModuleList):
    """``module.parametrizations[tensor_name]``: the parametrizations of one tensor, applied in
    registration order, and its original tensor(s) (``original``, or ``original0``, ``original1``,
    ... when the first parametrization's ``right_inverse`` returns a sequence). Made by
    ``register_parametrization``; not meant to be built by hand.

    ``unsafe``: the parametrizations may change the tensor's dtype and shape (not checked)."""

    original: Tensor
    unsafe: bool

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False) -> None:
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype

        # new = right_inverse(original) through the stack, last registered first; a parametrization
        # without right_inverse (or whose right_inverse raises NotImplementedError) is the identity
        with no_grad():
            new = original
            for module in reversed(self._chain()):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass
        if not isinstance(new, Tensor | Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")

        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)
        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the device.\n"
                                 f"original.device: {original.device}\n"
                                 f"right_inverse(original).device: {new.device}")
            # the original tensor object itself holds the new value, so an optimizer built before the
            # registration still updates it
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(originali).__name__}.")
                # new tensors: the user adds them to the optimizer (as PyTorch documents)
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)

        if not self.unsafe:
            # forward(right_inverse(original)) must look like original: a tensor of its dtype and shape
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {Z.dtype}")
            if Z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless "
                                 f"`unsafe` flag is enabled.\nunparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {Z.shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Store ``value`` (what ``module.<tensor_name> = value`` assigns) as the original(s): the
        parametrizations' ``right_inverse`` in reverse registration order, written into the
        existing original tensors (their identity is kept)."""
        with no_grad():
            for module in reversed(self._chain()):
                if not hasattr(module, "right_inverse"):
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                value = module.right_inverse(value)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} while "
                                     f"`original` has dtype {self.original.dtype}")
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError(f"'right_inverse' must return a sequence of tensors. Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError(f"'right_inverse' must return a sequence of tensors of length {self.ntensors}. "
                                     f"Got a sequence of length {len(value)}.")
                for i, tensor in enumerate(value):
                    if not isinstance(tensor, Tensor):
                        raise ValueError("'right_inverse' must return a sequence of tensors. "
                                         f"Got element {i} of type {type(tensor).__name__}.")
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} while "
                                         f"`original{i}` has dtype {original_i.dtype}")
                for i, tensor in enumerate(value):
                    _maybe_set(getattr(self, f"original{i}"), tensor)

    def _chain(self) -> list:
        """The parametrizations, in registration order: the children named 0, 1, ... (a nested
        parametrization of an original adds a child ``parametrizations`` that is not one)."""
        chain, i = [], 0
        while str(i) in self._modules:
            chain.append(self._modules[str(i)])
            i += 1
        return chain

    def forward(self) -> Tensor:
        modules = self._chain()
        if self.is_tensor:
            x = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _getstate(self):
    raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                       "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                       "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _default_deepcopy(self, memo):
    """A standard deepcopy (pickling is refused by ``__getstate__``). The copy gets a generated
    class of its own (PyTorch shares the original's, so removing a parametrization from the copy
    deleted the original's property too)."""
    obj = memo.get(id(self))
    if obj is not None:
        return obj
    cls = type(self)
    namespace = {k: v for k, v in cls.__dict__.items() if k not in ("__dict__", "__weakref__")}
    replica_cls = type(cls.__name__, cls.__bases__, namespace)
    replica = object.__new__(replica_cls)
    memo[id(self)] = replica
    replica.__dict__ = copy.deepcopy(self.__dict__, memo)
    for slot in copyreg._slotnames(cls):
        if hasattr(self, slot):
            setattr(replica, slot, copy.deepcopy(getattr(self, slot), memo))
    return replica


def _inject_new_class(module: Module) -> None:
    """Swap ``module``'s class for a new subclass ``Parametrized<Class>`` (one per module), to
    carry the properties of its parametrized tensors."""
    cls = module.__class__
    dct = {"__getstate__": _getstate}
    # deepcopy would otherwise go through __reduce_ex__, hence __getstate__
    if not hasattr(cls, "__deepcopy__"):
        dct["__deepcopy__"] = _default_deepcopy
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), dct)


def _inject_property(module: Module, tensor_name: str) -> None:
    """Add to the module's (generated) class a property ``tensor_name`` that evaluates the
    parametrization (cached inside ``cached()``) and whose setter calls its ``right_inverse``."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self) -> Tensor:
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)  # (PyTorch keys by the registering module: wrong for a deepcopy)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = _cache[key] = parametrization()
        return tensor

    def set_original(self, value: Tensor) -> None:
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` the output of ``parametrization`` applied to the original
    tensor (stored as ``module.parametrizations.<tensor_name>.original``); a second registration
    on the same name stacks (applied after the earlier ones).

    ``parametrization.right_inverse`` (optional) maps a value to the original(s): it is applied to
    the current tensor at registration and on assignment ``module.<tensor_name> = value``; when it
    returns a sequence the originals are ``original0``, ``original1``, ... Unless ``unsafe``, the
    parametrization must keep the tensor's dtype and shape (checked here)."""
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            # the new parametrization, and its right_inverse, must map the tensor's space to itself
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
            if X.dtype != Y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, unless the "
                                 f"`unsafe` flag is enabled.\nmodule.{tensor_name}.dtype: {Y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {X.dtype}")
            if X.shape != Y.shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, unless the "
                                 f"`unsafe` flag is enabled.\nmodule.{tensor_name}.shape: {Y.shape}\n"
                                 f"parametrization(module.{tensor_name}).shape: {X.shape}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(Z, Tensor):
                        raise ValueError(f"parametrization.right_inverse must return a tensor. Got: {type(Z).__name__}")
                    if Z.dtype != Y.dtype:
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the same "
                                         f"dtype as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.dtype: {Y.dtype}\nreturned dtype: {Z.dtype}")
                    if Z.shape != Y.shape:
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the same "
                                         f"shape as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
                                         f"module.{tensor_name}.shape: {Y.shape}\nreturned shape: {Z.shape}")
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe  # once unsafe, always unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        # built first: its checks raise before the module is touched
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with "
                         f"name '{tensor_name}'")
    return module


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module.<tensor_name>`` is parametrized (any tensor of ``module`` when None)."""
    parametrizations = getattr(module, "parametrizations", None)
    if not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Undo every parametrization of ``module.<tensor_name>``: the tensor becomes a plain parameter
    (or buffer) again, holding its current parametrized value (``leave_parametrized=True``) or the
    original (only possible when there is one original). With a single original, the original
    tensor object is kept (optimizers still hold it). The module gets its class back when nothing
    else is parametrized."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized "
                             "in terms of a sequence of tensors.")
        # outside no_grad: whether an original requires grad decides Parameter or buffer (the user
        # adds the new parameter to the optimizer)
        t = getattr(module, tensor_name)
        original = Parameter(t.detach()) if t.requires_grad else t

    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)
    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module: Module) -> type:
    """The module's class before parametrizations swapped it (its class when not parametrized)."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Register ``from_module``'s parametrizations of ``tensor_name`` (all of them when None) on
    ``to_module`` too, sharing the parametrization modules and the original tensors (a missing
    tensor is first created on ``to_module`` from ``from_module``'s parametrized value). Does
    nothing when ``from_module`` is not parametrized."""
    if is_parametrized(from_module):
        names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
        for name in names:
            if not hasattr(to_module, name):
                setattr(to_module, name, Parameter(getattr(from_module, name).detach()))
            for param_func in from_module.parametrizations[name]:
                register_parametrization(to_module, name, param_func)
            src, dst = from_module.parametrizations[name], to_module.parametrizations[name]
            if hasattr(src, "original"):
                dst.original = src.original
            else:
                num = 0
                while hasattr(src, f"original{num}"):
                    setattr(dst, f"original{num}", getattr(src, f"original{num}"))
                    num += 1
    return to_module
