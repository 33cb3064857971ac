"""``LazyModuleMixin``: modules whose parameter shapes come from the first input (PyTorch's lazy modules).

A lazy module starts with :class:`~tensorlab.nn.parameter.UninitializedParameter` /
``UninitializedBuffer`` placeholders. A forward pre-hook calls ``initialize_parameters(*input)`` on
the first call, which materializes them in place (the same objects, so an optimizer built before
the first forward updates them), then removes itself and turns the module into its
``cls_to_become`` (``LazyLinear`` becomes ``Linear``). Until then ``state_dict`` holds the
placeholders themselves, and ``load_state_dict`` with real tensors materializes them with the
tensors' shapes first. (PyTorch 2.15 warns nothing on construction; neither do we.)
"""

from __future__ import annotations

import itertools
from collections import OrderedDict

from ...autograd.grad_mode import no_grad
from ..parameter import is_lazy


class LazyModuleMixin:
    """Mix in before a Module class; the subclass implements ``initialize_parameters(*args, **kwargs)``
    (materialize every placeholder from the input, then reset the parameters) and sets
    ``cls_to_become``."""

    cls_to_become: type | None = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._load_hook = self._register_load_state_dict_pre_hook(self._lazy_load_hook)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        # a placeholder is saved as itself (detach() is one of the ops it refuses)
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if is_lazy(param) or keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if is_lazy(buf) or keep_vars else buf.detach()

    def _lazy_load_hook(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                        error_msgs) -> None:
        """Load pre-hook: a placeholder whose entry is a real tensor takes that tensor's shape, so the
        load then copies into it as into any parameter."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param) and not is_lazy(state_dict[key]):
                with no_grad():
                    param.materialize(state_dict[key].shape)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        # A placeholder loaded from a placeholder (a state dict saved before the first forward) has
        # nothing to copy (PyTorch copies an empty tensor into an empty one), but Module's shape check
        # cannot read their shapes: those pairs sit the load out, matched.
        lazy_pairs = {name for name, t in itertools.chain(self._parameters.items(), self._buffers.items())
                      if is_lazy(t) and is_lazy(state_dict.get(prefix + name))}
        if not lazy_pairs:
            super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                          error_msgs)
            return
        saved = [(store, list(store.items())) for store in (self._parameters, self._buffers)]
        for store, _ in saved:
            for name in lazy_pairs.intersection(store):
                del store[name]
        try:
            skip = {prefix + name for name in lazy_pairs}
            rest = OrderedDict((k, v) for k, v in state_dict.items() if k not in skip)
            super()._load_from_state_dict(rest, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                          error_msgs)
        finally:
            for store, items in saved:  # (back in their order, so state_dict's keys keep theirs)
                store.clear()
                store.update(items)

    def initialize_parameters(self, *args, **kwargs) -> None:
        """Materialize the placeholders from the first input (the subclass's job)."""
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        """Whether any of this module's own parameters or buffers is still a placeholder."""
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None) -> None:
        """The forward pre-hook: initialize from the first input, then become ``cls_to_become``."""
        kwargs = kwargs if kwargs else {}
        module.initialize_parameters(*args, **kwargs)
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        module._load_hook.remove()
        delattr(module, "_initialize_hook")
        delattr(module, "_load_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become


__all__ = ["LazyModuleMixin"]
