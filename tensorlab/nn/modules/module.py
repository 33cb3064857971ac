"""``nn.Module``: parameters, buffers and submodules in a tree, shaped like ``torch.nn.Module``.

State dict keys, ``repr`` and the registration rules follow PyTorch, so a PyTorch model ports by
changing the import and its state dict keys line up.
"""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator

from ... import _dtype as D
from ..._device import as_device
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...autograd.graph import RemovableHandle, _HookDict, add_hook
from ..parameter import Buffer, Parameter


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
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", _HookDict())
        object.__setattr__(self, "_forward_hooks_with_kwargs", set())
        object.__setattr__(self, "_forward_pre_hooks", _HookDict())
        object.__setattr__(self, "_forward_pre_hooks_with_kwargs", set())
        object.__setattr__(self, "_state_dict_hooks", _HookDict())
        object.__setattr__(self, "_load_state_dict_pre_hooks", _HookDict())

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
            self._remove_from(name, self.__dict__, self._parameters, self._modules)
            self.register_buffer(name, value, getattr(value, "persistent", True))
        elif params is not None and name in self._buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{type(value).__name__}' as buffer '{name}' (Tensor or None "
                                "expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

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
        for hid, hook in list(self._forward_pre_hooks.items()):
            if hid in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        called, output = set(), None
        try:
            output = self.forward(*args, **kwargs)
            for hid, hook in list(self._forward_hooks.items()):
                called.add(hid)
                if hid in self._forward_hooks_with_kwargs:
                    result = hook(self, args, kwargs, output)
                else:
                    result = hook(self, args, output)
                if result is not None:
                    output = result
            return output
        except Exception:
            # PyTorch: hooks registered with always_call=True still run (with the output so far: None
            # when forward raised) after forward or a hook raised; their own errors are silenced
            always = getattr(self, "_forward_hooks_always_called", ())
            for hid, hook in list(self._forward_hooks.items()):
                if hid in always and hid not in called:
                    try:
                        if hid in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, output)
                        else:
                            hook(self, args, output)
                    except Exception as exc:
                        import warnings

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

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item) or not isinstance(getattr(mod, item), Module):
                raise AttributeError(f"{type(mod).__name__} has no submodule `{item}`")
            mod = getattr(mod, item)
        return mod

    def get_parameter(self, target: str) -> Parameter:
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._parameters:
            raise AttributeError(f"{type(mod).__name__} has no parameter `{name}`")
        return mod._parameters[name]

    def get_buffer(self, target: str) -> Tensor:
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if name not in mod._buffers:
            raise AttributeError(f"{type(mod).__name__} has no buffer `{name}`")
        return mod._buffers[name]

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
            else:
                with no_grad():
                    p.grad = p.grad.detach()
                    p.grad.zero_()

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
                        p.grad = g
            for name, b in self._buffers.items():
                if b is not None:
                    self._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs) -> Module:
        """``to(device)``, ``to(dtype)`` (floating parameters and buffers only), ``to(device, dtype)``,
        ``to(tensor)``, with ``non_blocking``."""
        from ..._tensor import _parse_to

        probe = _Probe()
        dev, dtype, non_blocking, _ = _parse_to(probe, args, dict(kwargs))
        if dtype is not None and dtype is not probe.dtype and not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            target_dtype = dtype if (dtype is not probe.dtype and t.dtype.is_floating_point) else t.dtype
            target_dev = t.device if dev is probe.device else dev
            return t.to(target_dev, target_dtype, non_blocking=non_blocking)

        return self._apply(convert)

    def cuda(self, device=None) -> Module:
        dev = as_device("cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device))
        return self._apply(lambda t: t.to(dev))

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type) -> Module:
        return self._apply(lambda t: t.to(D.as_dtype(dst_type)))

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

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False):
        """Parameters and persistent buffers by dotted name (PyTorch's key names)."""
        if args:  # PyTorch's deprecated positional form: (destination, prefix, keep_vars)
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        if hasattr(destination, "_metadata"):  # PyTorch's per-module versions (read by load_state_dict)
            destination._metadata[prefix[:-1]] = {"version": self._version}
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, {})
            if result is not None:
                destination = result
        return destination

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

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """Copy values from ``state_dict``. Every key and shape is validated first: on an error
        nothing changes, and the message lists missing, unexpected and mismatched keys."""
        if not hasattr(state_dict, "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict).__name__}.")
        entries = {key: (mod, name, kind) for key, mod, name, kind in self._state_entries()}
        metadata = getattr(state_dict, "_metadata", None)

        def legacy_ok(key):  # an entry an older version of its module did not save (it keeps its value)
            mod, name, _ = entries[key]
            mod_prefix = key[:-len(name) - 1]
            version = metadata.get(mod_prefix, {}).get("version") if metadata is not None else None
            return mod._missing_in_version(name, version)

        missing = [k for k in entries if k not in state_dict and not legacy_ok(k)]
        unexpected = [k for k in state_dict if k not in entries]
        mismatched, bad_type = [], []
        for key, (mod, name, _) in entries.items():
            if key not in state_dict:
                continue
            value = state_dict[key]
            current = getattr(mod, name)
            if not isinstance(value, Tensor):
                bad_type.append(f'While copying the parameter named "{key}", expected a Tensor, got '
                                f"{type(value).__name__}")
                continue
            if tuple(value.shape) != tuple(current.shape):
                mismatched.append(f"size mismatch for {key}: copying a param with shape {list(value.shape)} from "
                                  f"checkpoint, the shape in current model is {list(current.shape)}.")
        errors = list(bad_type) + mismatched
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ".")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ".")
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t" + "\n\t".join(errors))
        with no_grad():
            for key, (mod, name, kind) in entries.items():
                if key not in state_dict:
                    continue
                value = state_dict[key]
                current = getattr(mod, name)
                if assign:
                    if kind == "parameter":
                        mod._parameters[name] = Parameter(value.detach(), current.requires_grad)
                    else:
                        mod._buffers[name] = value.detach()
                else:
                    current.copy_(value)
        return _IncompatibleKeys(missing, unexpected)

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

