"""``nn.Module``: parameters, buffers and submodules in a tree, shaped like ``torch.nn.Module``.

State dict keys, ``repr`` and the registration rules follow PyTorch, so a PyTorch model ports by
changing the import and its state dict keys line up.
"""

from __future__ import annotations

import itertools
import threading
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator, Mapping

from ..._device import as_device
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...autograd.graph import RemovableHandle, _HookDict, add_hook
from ..parameter import Buffer, Parameter
from ._backward_hooks import BackwardHook, WrappedHook, warn_non_full_backward_hook

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"

# hooks run for every module (PyTorch's register_module_forward_pre_hook / register_module_forward_hook):
# before the module's own hooks; the ids come from the same counter as the modules' hook ids, so one
# id names one hook in the with_kwargs / always_call sets
_global_forward_pre_hooks = _HookDict()
_global_forward_hooks = _HookDict()
_global_forward_hooks_with_kwargs: set[int] = set()
_global_forward_hooks_always_called: set[int] = set()


def register_module_forward_pre_hook(hook) -> RemovableHandle:
    """``hook(module, args)`` before every module's forward (before its own pre-hooks); may return
    new args. Global state: for debugging/profiling, as PyTorch."""
    return add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook, *, with_kwargs: bool = False, always_call: bool = False) -> RemovableHandle:
    """``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with ``with_kwargs``)
    after every module's forward (before its own forward hooks); may return a new output.
    ``always_call``: also run when forward raises. Global state, as PyTorch."""
    handle = add_hook(_global_forward_hooks, hook)
    if with_kwargs:
        _global_forward_hooks_with_kwargs.add(handle.id)
    if always_call:
        _global_forward_hooks_always_called.add(handle.id)
    return handle


class _LoadPlans(threading.local):
    """The pending writes of this thread's load_state_dict calls under way (innermost last):
    _load_from_state_dict records into them, so nothing is written until the whole state dict has
    been checked. Per thread: models loaded in several threads at once each get their own writes."""

    def __init__(self):
        self.plans: list[list] = []


_LOAD_PLANS = _LoadPlans()


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """load_state_dict's result; PyTorch's repr (``<All keys matched successfully>`` when clean)."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class Module:
    """Base class of every layer and model. Subclasses set attributes in ``__init__`` (after
    ``super().__init__()``) and implement ``forward``."""

    training: bool
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if not self.call_super_init and (args or kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        _init_hook_dicts(self)
        if self.call_super_init:  # (PyTorch's switch for cooperative multiple inheritance: mixins after Module)
            super().__init__(*args, **kwargs)

    forward: Callable

    def forward(self, *args, **kwargs):  # noqa: F811 - documented abstract method
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ------------------------------------------------------------------------------------------
    # registration
    # ------------------------------------------------------------------------------------------
    def _check_name(self, kind: str, name) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        self._check_name("parameter", name)
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                            "(tensorlab.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. "
                f"To express '{name}' as a function of another Tensor, compute the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        self._check_name("buffer", name)
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer '{name}' (Tensor or None "
                            "required)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name("module", name)
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def __setattr__(self, name: str, value) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._buffers, self._modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                                "(tensorlab.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._parameters, self._buffers)
            self._modules[name] = value
        elif params is not None and name in self._modules:
            if value is not None:
                raise TypeError(f"cannot assign '{type(value).__name__}' as child module '{name}' "
                                "(tensorlab.nn.Module or None expected)")
            self._modules[name] = value
        elif isinstance(value, Buffer):
            # (nothing removed first, as PyTorch: register_buffer refuses a name that is another
            # attribute, a parameter or a module, with its KeyError; `m.training = Buffer(...)` was taken)
            self._register_assigned_buffer(name, value, getattr(value, "persistent", True))
        elif params is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (Tensor or None "
                                "expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def _register_assigned_buffer(self, name: str, value, persistent: bool) -> None:
        """``register_buffer`` for an assigned Buffer. A subclass may override ``register_buffer``
        without ``persistent`` (an older signature): PyTorch then registers it persistent, and
        refuses a non-persistent one."""
        register = self.register_buffer
        if getattr(register, "__func__", None) is not Module.register_buffer:
            import inspect

            if "persistent" not in inspect.signature(register).parameters:
                if not persistent:
                    raise RuntimeError("Registering a non-persistent buffer on a Module subclass that implements "
                                       "register_buffer() without the persistent argument is not allowed.")
                register(name, value)
                return
        register(name, value, persistent)

    @staticmethod
    def _remove_from(name, *dicts) -> None:
        for d in dicts:
            if name in d:
                del d[name]

    def __getattr__(self, name: str):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for store in (self._parameters, self._buffers, self._modules):
            if name in store:
                del store[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = set(super().__dir__()) | set(self._parameters) | set(self._buffers) | set(self._modules)
        return sorted(k for k in keys if not k[0].isdigit())

    # ------------------------------------------------------------------------------------------
    # calling
    # ------------------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks
                or _global_forward_pre_hooks or _global_forward_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        """PyTorch's ``_call_impl``: forward pre-hooks, the backward hooks' input wrapping, forward,
        forward hooks, the output wrapping, then the deprecated (non-full) backward hooks."""
        full_backward_hooks, non_full_backward_hooks, backward_pre_hooks = [], [], []
        if self._backward_pre_hooks:
            backward_pre_hooks = list(self._backward_pre_hooks.values())
        if self._backward_hooks:
            if self._is_full_backward_hook:
                full_backward_hooks = list(self._backward_hooks.values())
            else:
                non_full_backward_hooks = list(self._backward_hooks.values())
        called, result = set(), None
        try:
            for hid, hook in [*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()]:
                if hid in self._forward_pre_hooks_with_kwargs:
                    hook_result = hook(self, args, kwargs)
                    if hook_result is not None:
                        if not (isinstance(hook_result, tuple) and len(hook_result) == 2):
                            raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, "
                                               f"new_kwargs), but got {hook_result}.")
                        args, kwargs = hook_result
                else:
                    hook_result = hook(self, args)
                    if hook_result is not None:
                        args = hook_result if isinstance(hook_result, tuple) else (hook_result,)
            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)
            result = self.forward(*args, **kwargs)
            if bw_hook is not None:
                bw_hook.check_inputs_not_modified()
            for hid, hook in [*_global_forward_hooks.items(), *self._forward_hooks.items()]:
                called.add(hid)
                if hid in self._forward_hooks_with_kwargs or hid in _global_forward_hooks_with_kwargs:
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result
            if bw_hook is not None:
                if not isinstance(result, Tensor | tuple):
                    warnings.warn("For backward hooks to be called, module output should be a Tensor or a tuple of "
                                  f"Tensors but received {type(result)}", stacklevel=2)
                result = bw_hook.setup_output_hook(result)
            if non_full_backward_hooks:
                var = result
                while not isinstance(var, Tensor):
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if isinstance(v, Tensor))
                    else:
                        var = var[0]
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_backward_hooks:
                        grad_fn.register_hook(WrappedHook(hook, self))
                    warn_non_full_backward_hook(args, result, grad_fn)
            return result
        except Exception:
            # PyTorch: hooks registered with always_call=True still run (with the output so far: None
            # when forward raised) after a hook or forward raised; their own errors are silenced
            always = getattr(self, "_forward_hooks_always_called", set()) | _global_forward_hooks_always_called
            for hid, hook in [*_global_forward_hooks.items(), *self._forward_hooks.items()]:
                if hid in always and hid not in called:
                    try:
                        if hid in self._forward_hooks_with_kwargs or hid in _global_forward_hooks_with_kwargs:
                            hook(self, args, kwargs, result)
                        else:
                            hook(self, args, result)
                    except Exception as exc:
                        warnings.warn("forward hook with ``always_call=True`` raised an exception that was silenced as "
                                      f"another error was raised in forward: {exc}", stacklevel=2)
            raise

    def register_forward_pre_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False) -> RemovableHandle:
        """``hook(module, args)`` (or ``hook(module, args, kwargs)``) before forward; may return new args."""
        handle = add_hook(self._forward_pre_hooks, hook)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs.add(handle.id)
        if prepend:
            _move_first(self._forward_pre_hooks, handle.id)
        return handle

    def register_forward_hook(self, hook, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """``hook(module, args, output)`` after forward; may return a new output. ``always_call``:
        also run (with output None) when forward raises."""
        handle = add_hook(self._forward_hooks, hook)
        if with_kwargs:
            self._forward_hooks_with_kwargs.add(handle.id)
        if always_call:
            if "_forward_hooks_always_called" not in self.__dict__:
                object.__setattr__(self, "_forward_hooks_always_called", set())
            self._forward_hooks_always_called.add(handle.id)
        if prepend:
            _move_first(self._forward_hooks, handle.id)
        return handle

    def register_full_backward_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_output)`` when the gradients with respect to the module's outputs have been
        computed; may return a new ``grad_output`` tuple. ``grad_output`` has one entry per returned
        value (None for non-tensors and unused outputs). The forward receives an alias of each input
        tensor and the caller an alias of each output (PyTorch's ``BackwardHookFunction``)."""
        handle = add_hook(self._backward_pre_hooks, hook)
        if prepend:
            _move_first(self._backward_pre_hooks, handle.id)
        return handle

    def register_full_backward_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """``hook(module, grad_input, grad_output)`` when the gradients with respect to the module's
        positional inputs have been computed (with respect to its outputs when no input requires grad);
        may return a new ``grad_input`` tuple. One entry per positional argument (None for non-tensors);
        keyword arguments are not covered. Writing to an input in place in ``forward`` raises."""
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = True
        handle = add_hook(self._backward_hooks, hook)
        if prepend:
            _move_first(self._backward_hooks, handle.id)
        return handle

    def register_backward_hook(self, hook) -> RemovableHandle:
        """Deprecated (as in PyTorch): ``hook(module, grad_input, grad_output)`` on the autograd node of
        the module's first output only, so it sees that node's inputs, not the module's."""
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a single Module. "
                               "Please use only one of them.")
        self._is_full_backward_hook = False
        return add_hook(self._backward_hooks, hook)

    # ------------------------------------------------------------------------------------------
    # traversal
    # ------------------------------------------------------------------------------------------
    def _named_members(self, get_members, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members(module):
                if v is None or (remove_duplicate and id(v) in memo):
                    continue
                if remove_duplicate:
                    memo.add(id(v))
                yield (module_prefix + ("." if module_prefix else "") + k), v

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_children(self) -> Iterator[tuple[str, Module]]:
        memo = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in memo:
                memo.add(id(m))
                yield name, m

    def children(self) -> Iterator[Module]:
        for _, m in self.named_children():
            yield m

    def named_modules(self, memo: set | None = None, prefix: str = "", remove_duplicate: bool = True):
        if memo is None:
            memo = set()
        if id(self) in memo and remove_duplicate:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, m in self._modules.items():
            if m is None:
                continue
            yield from m.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        for _, m in self.named_modules(remove_duplicate=remove_duplicate):
            yield m

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replace (or, unless ``strict``, add) the submodule at the dotted path ``target``; its parent
        must exist."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError("`module` is not an nn.Module, found " + str(type(module)))
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]):
            mod = getattr(parent, atoms[-1])
            if not isinstance(mod, Module):
                raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def _owner_of(self, target: str) -> tuple:
        """(the submodule holding the dotted ``target``, the attribute's name); PyTorch's error when
        it has no such attribute."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        return mod, name

    def get_parameter(self, target: str) -> Parameter:
        mod, name = self._owner_of(target)
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        mod, name = self._owner_of(target)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return mod._buffers[name]

    def get_extra_state(self):
        """Override (with ``set_extra_state``) to save extra state in the state dict under
        ``<prefix>_extra_state``; the base class has none, so it is never called."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state) -> None:
        """Override (with ``get_extra_state``) to restore the ``_extra_state`` entry of a state dict."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be called.")

    def apply(self, fn: Callable[[Module], None]) -> Module:
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------------------------------
    # modes and gradients
    # ------------------------------------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:  # the same gradient object, zeroed (PyTorch's: an optimizer or hook may hold it)
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                with no_grad():
                    g.zero_()

    # ------------------------------------------------------------------------------------------
    # moving and casting (parameters keep their identity, so optimizers keep working)
    # ------------------------------------------------------------------------------------------
    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        if recurse:
            for m in self.children():
                m._apply(fn)
        with no_grad():
            for p in self._parameters.values():
                if p is None:
                    continue
                new = fn(p)
                if new is not p:
                    p.data = new
                if p.grad is not None:
                    g = fn(p.grad)
                    if g is not p.grad:
                        p.grad.data = g  # (the same gradient object, as PyTorch)
            for name, b in self._buffers.items():
                if b is not None:
                    self._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs) -> Module:
        """``to(device)``, ``to(dtype)`` (floating parameters and buffers only), ``to(device, dtype)``,
        ``to(tensor)``, with ``non_blocking``; ``to(memory_format=tl.channels_last)`` lays out the
        4-d and 5-d parameters and buffers in that format (as PyTorch)."""
        from ..._tensor import _parse_to

        probe = _Probe()
        kwargs = dict(kwargs)
        memory_format = kwargs.pop("memory_format", None)
        dev, dtype, non_blocking, copy, _ = _parse_to(probe, args, kwargs)
        if copy:  # (PyTorch's refusal, for the keyword and the positional form)
            raise RuntimeError("nn.Module.to() does not accept copy argument")
        if dtype is not None and dtype is not probe.dtype and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            target_dtype = dtype if (dtype is not probe.dtype and t.dtype.is_floating_point) else t.dtype
            target_dev = t.device if dev is probe.device else dev
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(target_dev, target_dtype, non_blocking=non_blocking, memory_format=memory_format)
            return t.to(target_dev, target_dtype, non_blocking=non_blocking)

        return self._apply(convert)

    def to_empty(self, *, device, recurse: bool = True) -> Module:
        """Replace every parameter and buffer by an uninitialised tensor of its shape and dtype on
        ``device`` (None: where it is); parameters keep their identity."""
        from ..._factories import empty_like

        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def cuda(self, device=None) -> Module:
        dev = as_device("cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device))
        return self._apply(lambda t: t.to(dev))

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type) -> Module:
        """Every parameter and buffer (integer ones too) to ``dst_type``: a dtype or a type name
        (``"tensorlab.DoubleTensor"``), as ``Tensor.type``."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.dtype.is_floating_point else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.dtype.is_floating_point else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.dtype.is_floating_point else t)

    def bfloat16(self) -> Module:
        return self._apply(lambda t: t.bfloat16() if t.dtype.is_floating_point else t)

    # ------------------------------------------------------------------------------------------
    # state dict
    # ------------------------------------------------------------------------------------------
    def _save_to_state_dict(self, destination, prefix: str, keep_vars: bool) -> None:
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if _overrides(self, "get_extra_state"):
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """Parameters and persistent buffers by dotted name (PyTorch's key names), plus each module's
        ``get_extra_state()`` under ``<prefix>_extra_state`` when it defines one. Pre-hooks run before
        a module saves its entries, post-hooks after its children have."""
        if args:  # PyTorch's deprecated positional form: (destination, prefix, keep_vars)
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html#torch.nn.Module.state_dict"
                          " for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):  # PyTorch's per-module versions (read by load_state_dict)
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in list(self._state_dict_hooks.values()):
            result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if result is not None:  # the private hook's old contract: a returned dict replaces it
                    destination = result
            elif result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def register_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """``hook(module, prefix, keep_vars)`` before ``state_dict`` saves this module's entries."""
        return add_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata)`` after this module's (and its children's)
        entries were saved; it may change ``state_dict`` in place and must return None."""
        hook._from_public_api = True  # PyTorch marks the function itself (see _register_state_dict_hook)
        return add_hook(self._state_dict_hooks, hook)

    def _register_state_dict_hook(self, hook) -> RemovableHandle:
        """PyTorch's older private post-hook: as ``register_state_dict_post_hook`` but a returned
        dict replaces the state dict (respected only for the module ``state_dict`` was called on)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("Cannot register the same function as the state dict post hook that was previously "
                               "registered via register_state_dict_post_hook")
        return add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_pre_hook(self, hook) -> RemovableHandle:
        """``hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs)`` before this module reads its entries; it may edit ``state_dict`` (this module's
        part of the copy being loaded) and the three lists in place."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module: bool = False) -> RemovableHandle:
        return add_hook(self._load_state_dict_pre_hooks, WrappedHook(hook, self if with_module else None))

    def register_load_state_dict_post_hook(self, hook) -> RemovableHandle:
        """``hook(module, incompatible_keys)`` once the state dict was loaded; it may edit
        ``incompatible_keys.missing_keys`` / ``.unexpected_keys`` in place (which decides a strict
        load's error) and must return None."""
        return add_hook(self._load_state_dict_post_hooks, hook)

    def _state_entries(self):
        """(key, owning module, local name, kind) for every state dict entry."""
        for mod_prefix, mod in self.named_modules(remove_duplicate=False):
            base = mod_prefix + "." if mod_prefix else ""
            for name, p in mod._parameters.items():
                if p is not None:
                    yield base + name, mod, name, "parameter"
            for name, b in mod._buffers.items():
                if b is not None and name not in mod._non_persistent_buffers_set:
                    yield base + name, mod, name, "buffer"

    def _missing_in_version(self, name: str, version) -> bool:
        """Whether a state dict written by ``version`` of this module (None: no metadata) may lack
        the entry ``name`` (PyTorch's ``_load_from_state_dict`` upgrades)."""
        return False

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs) -> None:
        """Check this module's own entries of ``state_dict`` (not its children's) and queue their
        copies (PyTorch's signature, so a subclass may rename keys and call ``super()``). Within
        ``load_state_dict`` the copies wait until every module has been checked."""
        for hook in list(self._load_state_dict_pre_hooks.values()):
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = ((k, v) for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set)
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent) if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        version = local_metadata.get("version")
        writes = []
        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                value = state_dict[key]
                if not isinstance(value, Tensor):
                    error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                      f"Tensor-like object from checkpoint but received {type(value)}")
                    continue
                if param.ndim == 0 and value.ndim == 1 and value.shape[0] == 1:
                    value = value[0]  # PyTorch's compatibility with 0.3's one-element vectors
                if tuple(value.shape) != tuple(param.shape):
                    error_msgs.append(f"size mismatch for {key}: copying a param with shape {list(value.shape)} from "
                                      f"checkpoint, the shape in current model is {list(param.shape)}.")
                    continue
                if (assign and name in self._parameters and param.requires_grad
                        and not value.dtype.is_floating_point):  # (the Parameter it would become)
                    error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                      f"{list(param.shape)} and whose dimensions in the checkpoint are "
                                      f"{list(value.shape)}, an exception occurred : ('Only Tensors of floating point "
                                      "dtype can require gradients',).")
                    continue
                writes.append((self, name, param, value, assign))
            elif strict and not self._missing_in_version(name, version):
                missing_keys.append(key)
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if _overrides(self, "set_extra_state"):
            if extra_state_key in state_dict and self._names_unknown_children(state_dict, prefix, extra_state_key):
                # the extra state may create the submodules those keys belong to (PyTorch sets it before it
                # loads the children): set now, before the children are walked, not after every check
                with no_grad():
                    self.set_extra_state(state_dict[extra_state_key])
            elif extra_state_key in state_dict:
                writes.append((self, None, None, state_dict[extra_state_key], False))
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and extra_state_key in state_dict:
            unexpected_keys.append(extra_state_key)
        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)
        plans = _LOAD_PLANS.plans
        if plans and not _user_load_override(self):
            plans[-1].extend(writes)
        else:  # called on its own, or through a user's override, which may read the values after super(): now
            _apply_writes(writes)

    def _names_unknown_children(self, state_dict, prefix: str, extra_state_key: str) -> bool:
        """Whether ``state_dict`` has keys under ``prefix`` for a submodule this module lacks."""
        return any(key.startswith(prefix) and key != extra_state_key and "." in key[len(prefix):]
                   and key[len(prefix):].split(".", 1)[0] not in self._modules for key in state_dict)

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy values (and extra states) from ``state_dict``, walking the modules as PyTorch does
        (load pre-hooks, ``_load_from_state_dict``, children, load post-hooks).

        Every key and shape is checked before anything is written: on an error nothing changes and
        the message lists the missing, unexpected and mismatched keys. (Exceptions: a module whose
        ``set_extra_state`` must run to create the submodules that keys name gets it when reached, and
        a module whose class outside tensorlab overrides ``_load_from_state_dict`` is written when
        reached, so the override can read the values after ``super()``, as in PyTorch.)
        Load post-hooks (which may clear missing/unexpected keys, so decide a strict load's error) run
        after the writes, as in PyTorch; a module tree with post-hooks is therefore written before a
        remaining strict key error is raised."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata
        post_hooked: list[Module] = []

        def load(module: Module, local_state_dict, prefix: str = "") -> None:
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)
            if module._load_state_dict_post_hooks:
                post_hooked.append(module)  # children before parents, as PyTorch calls them

        plan: list = []
        plans = _LOAD_PLANS.plans
        plans.append(plan)
        try:
            load(self, state_dict)
        finally:
            plans.pop()

        def key_errors() -> list[str]:
            msgs = []
            if strict:
                if missing_keys:
                    msgs.append("Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing_keys)))
                if unexpected_keys:
                    msgs.append("Unexpected key(s) in state_dict: {}. ".format(
                        ", ".join(f'"{k}"' for k in unexpected_keys)))
            return msgs

        if not post_hooked and (error_msgs or key_errors()):
            self._raise_load_errors(key_errors() + error_msgs)
        if not error_msgs:
            _apply_writes(plan)
        incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
        for module in post_hooked:
            for hook in list(module._load_state_dict_post_hooks.values()):
                if hook(module, incompatible_keys) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys need to be modified, "
                                         "it should be done inplace.")
        errors = key_errors() + error_msgs
        if errors:
            self._raise_load_errors(errors)
        return incompatible_keys

    def _raise_load_errors(self, errors: list[str]) -> None:
        raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))

    # ------------------------------------------------------------------------------------------
    # repr
    # ------------------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        lines = []
        extra = self.extra_repr()
        if extra:
            lines = extra.split("\n")
        child_lines = []
        for name, m in self._modules.items():
            mod_str = _addindent(repr(m), 2)
            child_lines.append(f"({name}): {mod_str}")
        lines = lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra.split("\n")) == 1 and not child_lines:
                main += extra
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

    def __setstate__(self, state):
        self.__dict__.update(state)
        _init_hook_dicts(self, only_missing=True)  # a module pickled before these existed


def _init_hook_dicts(module: Module, only_missing: bool = False) -> None:
    d = module.__dict__
    for name in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks",
                 "_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
                 "_load_state_dict_post_hooks"):
        if not only_missing or name not in d:
            object.__setattr__(module, name, _HookDict())
    for name in ("_forward_hooks_with_kwargs", "_forward_pre_hooks_with_kwargs"):
        if not only_missing or name not in d:
            object.__setattr__(module, name, set())
    if not only_missing or "_is_full_backward_hook" not in d:
        object.__setattr__(module, "_is_full_backward_hook", None)


def _overrides(module: Module, method: str) -> bool:
    """Whether the module's class defines its own ``get_extra_state``/``set_extra_state``."""
    return getattr(type(module), method, None) is not getattr(Module, method)


def _user_load_override(module: Module) -> bool:
    """Whether ``_load_from_state_dict`` comes from a class outside tensorlab. Such an override may
    read the loaded values after calling ``super()`` (a derived cache, a format conversion), so its
    module is written at once, as PyTorch writes, instead of after every module was checked."""
    for cls in type(module).__mro__:
        if "_load_from_state_dict" in cls.__dict__:
            return not cls.__module__.startswith("tensorlab.")
    return False


def _apply_writes(writes) -> None:
    """Perform the copies (or, with ``assign``, replacements) and extra states load_state_dict queued.
    ``assign`` puts the state dict's own tensors in (PyTorch's: a Parameter given is used, its
    requires_grad set to the model's; another tensor becomes a Parameter over the same memory)."""
    with no_grad():
        for mod, name, current, value, assign in writes:
            if name is None:
                mod.set_extra_state(value)
            elif assign:
                if name in mod._parameters:
                    if isinstance(value, Parameter):
                        value.requires_grad_(current.requires_grad)
                    else:
                        value = Parameter(value, current.requires_grad)
                    mod._parameters[name] = value
                else:
                    mod._buffers[name] = value
            else:
                current.copy_(value)


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * spaces + line for line in lines)


def _move_first(d: _HookDict, key) -> None:
    items = list(d.items())
    d.clear()
    d[key] = dict(items)[key]
    for k, v in items:
        if k != key:
            d[k] = v


class _Probe:
    """Stands in for a tensor when parsing Module.to's arguments (None device/dtype = keep)."""

    def __init__(self):
        self.device = object()
        self.dtype = object()

