"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``, ``ParameterDict``."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping

from ... import _dtype as D
from ..._tensor import Tensor
from ..parameter import Parameter
from .module import Module, _addindent


def _index(idx: int, n: int, what: str) -> int:
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range for {what} of length {n}")
    return idx % n


class Sequential(Module):
    """Modules applied in order: ``Sequential(a, b, c)`` or ``Sequential(OrderedDict(name=module))``."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx):
        if isinstance(idx, slice):  # (of this class: a subclass slices to itself, as PyTorch)
            return self.__class__(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_index(idx, len(keys), "Sequential")]]

    def __setitem__(self, idx: int, module: Module) -> None:
        keys = list(self._modules)
        self.add_module(keys[_index(idx, len(keys), "Sequential")], module)

    def __delitem__(self, idx) -> None:
        keys = list(self._modules)
        targets = keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(keys), "Sequential")]]
        for k in targets:
            del self._modules[k]
        # keep numeric names contiguous, as PyTorch does
        items = list(self._modules.items())
        self._modules.clear()
        for i, (_, m) in enumerate(items):
            self._modules[str(i)] = m

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        if not isinstance(module, Module):  # (checked before anything moves, with PyTorch's error type)
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        index = index + n if index < 0 else index  # (list.insert's meaning, as PyTorch)
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        for m in sequential:
            self.append(m)
        return self

    def pop(self, key: int | slice) -> Module:
        """Remove and return the module at ``key`` (the later ones are renumbered)."""
        v = self[key]
        del self[key]
        return v

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return Sequential(*self, *other)

    def __iadd__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError(f"add operator supports only objects of Sequential class, but {type(other)} is given.")
        return self.extend(list(other))

    def __mul__(self, other: int) -> Sequential:
        """The modules repeated ``other`` times (the same module objects, as PyTorch's: shared weights)."""
        return Sequential(*_repeat(self, other))

    def __rmul__(self, other: int) -> Sequential:
        return self * other

    def __imul__(self, other: int) -> Sequential:
        modules = _repeat(self, other)
        self._modules.clear()
        return self.extend(modules)


def _repeat(seq: Sequential, times) -> list:
    if not isinstance(times, int) or isinstance(times, bool):
        raise TypeError(f"unsupported operand type(s) for *: {type(seq)} and {type(times)}")
    if times <= 0:
        raise ValueError(f"Non-positive multiplication factor {times} for {type(seq)}")
    return list(seq) * times


class ModuleList(Module):
    """A list of modules whose parameters the parent module sees."""

    def __init__(self, modules: Iterable[Module] | None = None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __repr__(self) -> str:
        """PyTorch's: runs of identical entries compressed to ``(3-5): 3 x Linear(...)``."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []  # [start, end, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [_addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2) for a, b, r in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return self.__class__(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx) -> None:
        items = list(self._modules.values())
        del items[idx if isinstance(idx, slice) else _index(idx, len(items), "ModuleList")]
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        return ModuleList([*self, *other])

    def pop(self, key: int | slice) -> Module:
        """Remove and return the module at ``key`` (the later ones are renumbered)."""
        v = self[key]
        del self[key]
        return v

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        if not isinstance(modules, Iterable):
            raise TypeError(f"ModuleList.extend should be called with an iterable, but got {type(modules).__name__}")
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        if module is not None and not isinstance(module, Module):  # (before the modules are renumbered)
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList has no forward(); iterate over it and call its modules")


class ModuleDict(Module):
    """An ordered dict of modules whose parameters the parent module sees."""

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self):
        return self._modules.keys()

    def values(self):
        return self._modules.values()

    def items(self):
        return self._modules.items()

    def pop(self, key: str) -> Module:
        v = self[key]
        del self[key]
        return v

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules) -> None:
        items = modules.items() if isinstance(modules, Mapping | ModuleDict) else modules
        for entry in items:
            key, module = entry
            self[key] = module

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleDict has no forward(); index it and call its modules")


def _param_line(key, p, typename: bool) -> str:
    """One entry of ParameterList's (``typename=False``: the dtype) or ParameterDict's (the tensor
    type name) repr, as PyTorch's, indented by two spaces."""
    if isinstance(p, Tensor):
        size = "x".join(str(s) for s in p.shape)
        dev = "" if p.is_cpu else f" ({p.device})"
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        what = (f"tensorlab.{'cuda.' if p.is_cuda else ''}{D.torch_name(p.dtype)}Tensor" if typename
                else str(p.dtype))
        return f"  ({key}): {kind} containing: [{what} of size {size}{dev}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


class ParameterList(Module):
    """A list of parameters (plain tensors are wrapped in Parameter)."""

    def __init__(self, values: Iterable | None = None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def _wrap(self, value):
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        return value

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx: int, value) -> None:
        setattr(self, str(_index(idx, len(self), "ParameterList")), self._wrap(value))

    def __len__(self) -> int:
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, values):
        return self.extend(values)

    def append(self, value) -> ParameterList:
        self._size += 1
        setattr(self, str(self._size - 1), self._wrap(value))
        return self

    def extend(self, values) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):  # (a tensor is not unpacked into rows)
            raise TypeError(f"ParameterList.extend should be called with an iterable, but got {type(values).__name__}")
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        return "\n".join(_param_line(i, self[i], False) for i in range(len(self)))

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ParameterList has no forward()")


class ParameterDict(Module):
    """An ordered dict of parameters (plain tensors are wrapped in Parameter)."""

    def __init__(self, parameters=None):
        super().__init__()
        self._keys: dict = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str):
        return getattr(self, key)

    def __setitem__(self, key: str, value) -> None:
        self._keys[key] = None
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, key, value)

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def keys(self):
        return self._keys.keys()

    def values(self):
        return [self[k] for k in self._keys]

    def items(self):
        return [(k, self[k]) for k in self._keys]

    def pop(self, key: str):
        v = self[key]
        del self[key]
        return v

    def update(self, parameters) -> None:
        if isinstance(parameters, OrderedDict | ParameterDict):
            items = parameters.items()
        elif isinstance(parameters, Mapping):  # a plain mapping's keys sorted, as PyTorch
            items = sorted(parameters.items())
        else:
            items = parameters
        for k, v in items:
            self[k] = v

    def __reversed__(self):
        return reversed(list(self._keys))

    # the rest of dict's API, as torch.nn.ParameterDict
    def get(self, key: str, default=None):
        return self[key] if key in self else default

    def setdefault(self, key: str, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def popitem(self):
        """Remove and return the last (key, parameter) pair."""
        if not self._keys:
            raise KeyError("popitem(): ParameterDict is empty")
        k = next(reversed(self._keys))
        return k, self.pop(k)

    def clear(self) -> None:
        for k in list(self._keys):
            del self[k]

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same parameters (not copies of them)."""
        return ParameterDict(self.items())

    @staticmethod
    def fromkeys(keys: Iterable[str], default=None) -> ParameterDict:
        return ParameterDict((k, default) for k in keys)

    def __or__(self, other: ParameterDict) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self

    def extra_repr(self) -> str:
        # its entries, as ParameterList's (the repr listed nothing)
        return "\n".join(_param_line(k, v, True) for k, v in self.items())

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ParameterDict has no forward()")
