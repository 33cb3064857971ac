"""``nn.Parameter``: a tensor that a Module registers as a learnable parameter."""

from __future__ import annotations

import sys

from .._tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor (``requires_grad=True`` by default) that Modules collect in ``parameters()``.

    It shares storage with ``data``; ops on a Parameter return plain Tensors.
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from .._factories import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
        p = Tensor._make.__func__(cls, data._storage, data._shape, data._stride, data._offset, data.dtype)
        p.requires_grad = requires_grad
        return p

    def __init__(self, data=None, requires_grad: bool = True):  # Tensor.__init__ refuses direct construction
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    # copy.copy and pickle: Tensor's (tensorlab/_tensor_copying.py), which keep the class
    def __deepcopy__(self, memo):
        from .._tensor_copying import deep_copy

        return deep_copy(self, memo, with_grad=False)  # (PyTorch's Parameter drops .grad)


class Buffer(Tensor):
    """Marker type: ``Module.__setattr__`` registers a ``Buffer`` as a buffer (PyTorch 2.5+)."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True):
        if data is None:  # (PyTorch's: an empty buffer)
            from .._factories import empty

            data = empty(0)
        b = Tensor._make.__func__(cls, data._storage, data._shape, data._stride, data._offset, data.dtype)
        b._requires_grad = data.requires_grad  # (data detached, its requires_grad kept, as PyTorch's)
        b.persistent = persistent
        return b

    def __init__(self, data=None, *, persistent: bool = True):
        pass


# ----------------------------------------------------------------------------------------------
# uninitialized parameters and buffers (the lazy modules' placeholders, PyTorch's)
# ----------------------------------------------------------------------------------------------

# What PyTorch lets through on an uninitialized tensor (its ``_allowed_methods``): converting the
# dtype, moving it, and questions that need no values. Every other Tensor method raises.
_ALLOWED_METHODS = frozenset({
    "size", "copy_", "is_complex", "is_floating_point", "half", "float", "double", "char", "short", "int",
    "long", "cuda", "cpu", "to", "get_device", "materialize",
})


def _uninitialized_message(cls_name: str, what: str) -> str:
    return (f"Attempted to use an uninitialized parameter in {what}. This error happens when you are using a "
            f"`LazyModule` or explicitly manipulating `tensorlab.nn.parameter.{cls_name}` objects. When using "
            "LazyModules Call `forward` with a dummy batch to initialize the parameters before calling tensorlab "
            "functions")


def _op_in_flight() -> str:
    """The name of the op whose dispatch touched an uninitialized tensor (PyTorch's message names the
    function, which its ``__torch_function__`` receives; tensorlab's dispatcher has it in a local)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name == "dispatch" and frame.f_globals.get("__name__") == "tensorlab._dispatch":
            op = frame.f_locals.get("op")
            return f"tensorlab.{getattr(op, 'name', op)}"
        frame = frame.f_back
    return "a tensorlab op"


class _NoStorage:
    """The storage of an uninitialized tensor: it remembers the device to materialize on, and
    anything that reads it (the dispatcher does, for every tensor input) raises PyTorch's ValueError.
    A guard in the storage rather than in each op: every op goes through the dispatcher, and the
    dispatcher reads ``_storage`` of each tensor input first."""

    __slots__ = ("_device", "_cls_name")

    def __init__(self, device, cls_name: str):
        self._device = device
        self._cls_name = cls_name

    def __getattr__(self, name):
        raise ValueError(_uninitialized_message(self._cls_name, _op_in_flight()))


def _tensor_method(name: str):
    """Tensor's own attribute ``name`` when it is a method (not a property or a slot), else None."""
    for klass in Tensor.__mro__:
        if name in klass.__dict__:
            attr = klass.__dict__[name]
            return attr if callable(attr) and not isinstance(attr, type) else None
    return None


class UninitializedTensorMixin:
    """A tensor without a shape yet: it knows only its device, dtype and ``requires_grad``.

    ``materialize(shape)`` gives it storage of that shape and turns the object itself into its
    ``cls_to_become`` (so an optimizer or a module that holds it keeps working). Until then only
    dtype and device conversions, ``size()`` and the attributes pass; ``.shape`` raises PyTorch's
    RuntimeError and every op or other method its ValueError ("Attempted to use an uninitialized
    parameter in ...").
    """

    __slots__ = ()
    cls_to_become: type

    def __init__(self, *args, **kwargs):  # (Tensor's __init__ takes the data; ours takes flags)
        pass

    @classmethod
    def _placeholder(cls, obj, requires_grad: bool, device, dtype):
        """Turn ``obj`` (made by ``Tensor._make``) into an uninitialized tensor of ``device``/``dtype``."""
        from .._factories import empty

        data = empty(0, device=device, dtype=dtype)  # (the default device and dtype, as PyTorch's)
        Tensor.data.fset(obj, data)
        obj._storage = _NoStorage(data.device, cls.__name__)
        obj.requires_grad = requires_grad
        return obj

    def __getattribute__(self, name: str):
        # Tensor's public methods: a function that refuses when called (PyTorch refuses the call in
        # __torch_function__; hasattr still holds). Methods that never reach the dispatcher (dim,
        # numel, item, detach...) would otherwise answer from the placeholder's empty geometry.
        if name[0] != "_" and name not in _ALLOWED_METHODS and _tensor_method(name) is not None:
            cls_name = object.__getattribute__(self, "__class__").__name__

            def refuse(*args, **kwargs):
                raise ValueError(_uninitialized_message(cls_name, f"Tensor.{name}"))

            return refuse
        return object.__getattribute__(self, name)

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give this object storage of ``shape`` (uninitialised values) on ``device`` with ``dtype``
        (default: its own) and make it a ``cls_to_become`` (Parameter, or a plain Tensor for a buffer)."""
        from .._factories import empty

        data = empty(shape, device=self.device if device is None else device,
                     dtype=self.dtype if dtype is None else dtype)
        Tensor.data.fset(self, data)
        self.__class__ = self.cls_to_become

    # attributes that read the storage in Tensor: here from the placeholder's device
    @property
    def device(self):
        return self._storage._device

    @property
    def is_cuda(self) -> bool:
        return self._storage._device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._storage._device.type == "cpu"

    def get_device(self) -> int:
        dev = self._storage._device
        return -1 if dev.type == "cpu" else dev.index

    @property
    def shape(self):
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually happens in "
            "`load_state_dict` when trying to load an uninitialized parameter into an initialized one. Call "
            "`forward` to initialize the parameters before accessing their attributes.")

    @property
    def data(self) -> Tensor:
        """An empty tensor of this one's device and dtype (PyTorch's ``.data`` of a placeholder)."""
        from .._factories import empty

        return empty(0, device=self.device, dtype=self.dtype)

    @data.setter
    def data(self, other: Tensor) -> None:
        # Module._apply (to, cuda, double...) sets .data to the converted tensor: keep the new
        # device and dtype, stay uninitialized
        if not isinstance(other, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(other).__name__}")
        self._storage = _NoStorage(other.device, type(self).__name__)
        self.dtype = other.dtype

    def to(self, *args, **kwargs):
        """A placeholder of the new device and dtype (``self`` when neither changes): a buffer stays
        an uninitialized buffer, a parameter gives an empty tensor (as PyTorch's)."""
        from .._tensor import _parse_to

        dev, dtype, _, copy, _ = _parse_to(self, args, dict(kwargs))
        if dev == self.device and dtype == self.dtype and not copy:
            return self
        return self._converted(dev, dtype)

    def _converted(self, device, dtype):
        from .._factories import empty

        return empty(0, device=device, dtype=dtype)

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call `forward` to initialize "
                           "the parameters before calling `module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (type(self), (self.requires_grad,))  # (PyTorch's: device and dtype are not kept)

    def __copy__(self):
        return type(self)(self.requires_grad, self.device, self.dtype)

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = self.__copy__()
        return memo[id(self)]


# Tensor's special methods that a placeholder keeps: object protocol, copying, printing, hashing
_SAFE_DUNDERS = frozenset({
    "__init__", "__new__", "__getattribute__", "__getattr__", "__setattr__", "__delattr__", "__dir__",
    "__sizeof__", "__init_subclass__", "__subclasshook__", "__class_getitem__", "__reduce__", "__reduce_ex__",
    "__copy__", "__deepcopy__", "__getstate__", "__setstate__", "__repr__", "__str__", "__format__", "__hash__",
})


def _refusing(name: str):
    def refuse(self, *args, **kwargs):
        raise ValueError(_uninitialized_message(type(self).__name__, f"Tensor.{name}"))

    refuse.__name__ = name
    return refuse


# Operators and protocols (len, indexing, iteration, numpy, dlpack) look their method up on the type,
# past __getattribute__, and some check their arguments before the dispatcher reads the storage:
# every special method Tensor has by now refuses, as PyTorch's __torch_function__ does. (Methods
# attached to Tensor later reach the dispatcher, whose read of the storage refuses.)
for _klass in Tensor.__mro__[:-1]:
    for _name, _attr in list(vars(_klass).items()):
        if (_name.startswith("__") and _name.endswith("__") and _name not in _SAFE_DUNDERS and callable(_attr)
                and not isinstance(_attr, type) and _name not in UninitializedTensorMixin.__dict__):
            setattr(UninitializedTensorMixin, _name, _refusing(_name))
del _klass, _name, _attr


def is_lazy(param) -> bool:
    """Whether ``param`` is an UninitializedParameter or UninitializedBuffer."""
    return isinstance(param, UninitializedTensorMixin)


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A Parameter whose shape is not known yet; ``materialize(shape)`` makes it a Parameter.

    ``device``/``dtype`` (default: the defaults) are those it will be materialized with."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        obj = Tensor._make.__func__(cls, None, (0,), (1,), 0, None)
        return cls._placeholder(obj, requires_grad, device, dtype)


class UninitializedBuffer(UninitializedTensorMixin, Buffer):
    """A buffer whose shape is not known yet; ``materialize(shape)`` makes it a plain Tensor.

    A ``Buffer``, so assigning one to a Module attribute registers it (``persistent`` included), as
    PyTorch's (whose ``isinstance(b, Buffer)`` holds for it)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad: bool = False, device=None, dtype=None, persistent: bool = True):
        obj = cls._placeholder(Tensor._make.__func__(cls, None, (0,), (1,), 0, None), requires_grad, device, dtype)
        obj.persistent = persistent
        obj._is_buffer = True
        return obj

    def __copy__(self):
        return self._converted(self.device, self.dtype)

    def _converted(self, device, dtype):
        # Module._apply replaces a buffer by what the conversion returns: another placeholder
        return UninitializedBuffer(self.requires_grad, device, dtype, getattr(self, "persistent", True))
