"""The Tensor: storage + shape + strides (in elements) + storage offset + dtype.

This file holds the class, its properties and host conversions. Ops are declared in their own
modules (views in ``_views``, copies in ``_copy_ops``, the kernel families in ``ops/``) and
attached here as methods with :func:`tensor_method`, so an op is written once and is both
``tensorlab.<op>(t, ...)`` and ``t.<op>(...)``.
"""

from __future__ import annotations

import builtins
import functools
import math
import numbers
import operator

import numpy as np

from tensorlab_kernels.runtime.array import contiguous_layout

from . import _dtype as D
from ._device import CPU, as_device, device
from ._layout import is_in_format, preserve_format
from ._storage import Storage, contiguous_strides, device_array, numpy_view


def _norm_dim(dim, ndim: int, op: str) -> int:
    """Wrap a possibly negative dim; IndexError naming the op when out of range (PyTorch's)."""
    if dim.__class__ is int and -ndim <= dim < ndim:  # the usual case (views and reductions ask per call)
        return dim % ndim
    if dim.__class__ is bool:  # (an int to operator.index, but PyTorch refuses it)
        raise TypeError(f"{op}(): argument 'dim' must be int, not bool")
    try:
        dim = operator.index(dim)
    except TypeError:
        raise TypeError(f"{op}(): dim must be an int, got {type(dim).__name__}") from None
    lo, hi = (-ndim, ndim - 1) if ndim > 0 else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(f"{op}(): Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return dim % ndim if ndim > 0 else 0


class Tensor:
    __slots__ = (
        "_storage", "_shape", "_stride", "_offset", "dtype",
        "_requires_grad", "_grad", "grad_fn", "_output_nr", "_base", "_retains_grad",
        "_hooks", "_grad_accumulator", "_impl_view", "_view_version", "__weakref__", "__dict__",
    )

    # A leaf's hooks run after backward accumulated into its .grad (set in the instance's __dict__ by
    # register_post_accumulate_grad_hook; most tensors never have any).
    _post_accumulate_grad_hooks = None
    # (output index, Function name) of a view a custom Function returned: in-place writes to it are
    # refused (set in the instance's __dict__ by Function.apply)
    _custom_function_view = None

    # ``Tensor(...)`` is PyTorch's legacy constructor of the default dtype: ``Tensor(2, 3)``
    # (uninitialised), ``Tensor([1, 2])`` (data), ``Tensor()`` (empty); see _legacy_tensor_types.
    # Tensors made internally go through _make (object.__new__), not through here.
    def __new__(cls, *args, device=None):
        if cls is not Tensor:
            raise TypeError(f"{cls.__name__}: a Tensor subclass needs a __new__ of its own (build the tensor "
                            "with Tensor._make or from a tensor, as Parameter does)")
        from ._device import as_device
        from ._legacy_tensor_types import _legacy_new

        return _legacy_new("Tensor", D.get_default_dtype(), as_device(device), args)

    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def _make(cls, storage: Storage, shape: tuple, stride: tuple, offset: int, dtype: D.dtype) -> Tensor:
        t = object.__new__(cls)
        t._storage = storage
        t._shape = shape
        t._stride = stride
        t._offset = offset
        t.dtype = dtype
        t._requires_grad = False
        t._grad = None
        t.grad_fn = None
        t._output_nr = 0
        t._base = None
        t._retains_grad = False
        t._hooks = None
        t._grad_accumulator = None
        t._impl_view = None  # the numpy view / DeviceArray the dispatcher hands to implementations
        # a differentiable view: the storage version its grad_fn describes (autograd regenerates the
        # grad_fn from the base when the storage was written since, as PyTorch); None otherwise
        t._view_version = None
        return t

    # ------------------------------------------------------------------------------------
    # geometry
    # ------------------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return Size._of(self._shape)

    def size(self, dim: int | None = None):
        if dim is None:
            return Size._of(self._shape)
        return self._shape[_norm_dim(dim, len(self._shape), "size")]

    def stride(self, dim: int | None = None):
        if dim is None:
            return self._stride
        return self._stride[_norm_dim(dim, len(self._shape), "stride")]

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def numel(self) -> int:
        return math.prod(self._shape)

    nelement = numel

    def storage_offset(self) -> int:
        return self._offset

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self.dtype.itemsize

    @property
    def device(self) -> device:
        return self._storage.device

    @property
    def is_cuda(self) -> bool:
        return self._storage.device.type == "cuda"

    @property
    def is_cpu(self) -> bool:
        return self._storage.device.type == "cpu"

    def get_device(self) -> int:
        return -1 if self.is_cpu else self._storage.device.index

    def data_ptr(self) -> int:
        if self.numel() == 0:
            return 0
        return self._storage.data_ptr() + self._offset * self.dtype.itemsize

    const_data_ptr = data_ptr  # (PyTorch's read-only-intent spelling; the same address)

    def is_contiguous(self, memory_format=None) -> bool:
        if memory_format is None:
            return contiguous_layout(self._shape, self._stride)
        return is_in_format(self._shape, self._stride, memory_format)

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_complex(self) -> bool:
        return False

    # What PyTorch tensors also say of themselves; tensorlab's are dense, strided, real and never
    # inference tensors (inference_mode only turns recording off).
    @property
    def layout(self):
        from ._layout import strided

        return strided

    is_sparse = is_sparse_csr = is_quantized = is_meta = is_nested = is_mkldnn = property(lambda self: False)
    # (devices tensorlab has no backend for)
    is_mps = is_xpu = is_ipu = is_xla = is_vulkan = is_mtia = is_maia = property(lambda self: False)

    def is_inference(self) -> bool:
        return False

    def is_same_size(self, other: Tensor) -> bool:
        need_tensor("is_same_size", other, "other", 1)
        return self._shape == other._shape

    def is_signed(self) -> bool:
        return self.dtype.is_signed

    @property
    def _version(self) -> int:
        return self._storage.version

    def _bump_version(self) -> None:
        self._storage.version += 1

    # ------------------------------------------------------------------------------------
    # autograd attributes (the engine lives in tensorlab.autograd)
    # ------------------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        if self._requires_grad:
            return True
        if self._view_version is not None:  # a view whose base came to require grad since (promote_view)
            from .autograd.graph import promote_view

            return promote_view(self)
        return False

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        # PyTorch's attribute: a bool only ('no' was True), and a non-leaf's flag is not to be set at all
        # (requires_grad_(True) on a non-leaf is the no-op)
        if value.__class__ is not builtins.bool:
            raise RuntimeError(f"requires_grad must be a bool, got {type(value).__name__}")
        if self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables."
                + ("" if value else " If you want to use a computed variable in a subgraph that doesn't require "
                   "differentiation use var_no_grad = var.detach().")
            )
        self._set_requires_grad(value)

    def _set_requires_grad(self, value: bool) -> None:
        if value and not self.dtype.is_floating_point:
            raise RuntimeError(
                f"only Tensors of floating point dtype can require gradients (got {self.dtype})"
            )
        self._requires_grad = value
        if value and self._view_version is not None and self._base is not None and not self._base._requires_grad:
            # a view of a base without history becomes a leaf of its own: a write into the storage
            # (before or after) must not turn it into an as_strided of the base (PyTorch's leaf view)
            self._view_version = None

    @property
    def grad(self):
        g = self._grad
        if g is None and self.grad_fn is not None and not self._retains_grad:
            # PyTorch's warning: backward() fills .grad of leaves only; this is usually a mistake
            import warnings

            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad attribute "
                "won't be populated during autograd.backward(). If you indeed want the .grad field to be populated "
                "for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you access the non-leaf "
                "Tensor by mistake, make sure you access the leaf Tensor instead.", UserWarning, stacklevel=2)
        return g

    @grad.setter
    def grad(self, value) -> None:
        # PyTorch's checks: a gradient is another tensor of its tensor's dtype, shape and device
        # (the optimizers check the dtype again at step(): a parameter's dtype may change later)
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type "
                                f"{type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value.dtype is not self.dtype:
                raise RuntimeError(f"attempting to assign a gradient with dtype '{value.dtype.name}' to a tensor with "
                                   f"dtype '{self.dtype.name}'. The gradient must match the tensor's dtype")
            if value._shape != self._shape:
                raise RuntimeError(f"attempting to assign a gradient of size '{list(value._shape)}' to a tensor of "
                                   f"size '{list(self._shape)}'. Please ensure that the gradient and the tensor are "
                                   "the same size")
            if value._storage.device != self._storage.device:
                raise RuntimeError(f"attempting to assign a gradient on device '{value.device}' to a tensor on "
                                   f"device '{self.device}'. The gradient must be on the tensor's device")
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None  # ``del t.grad``, as PyTorch

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if requires_grad.__class__ is not builtins.bool:
            raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, not "
                            f"{type(requires_grad).__name__}")
        if self.grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                    "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
                )
            return self  # (a non-leaf already requires grad)
        self._set_requires_grad(requires_grad)
        return self

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def data(self) -> Tensor:
        """This tensor's values without autograd history: the same memory, with a version counter of
        its own (PyTorch's ``.data``: ``w.data.mul_(0.5)`` does not invalidate a graph that saved
        ``w``; ``detach()`` shares the counter instead)."""
        return Tensor._make(self._storage.alias(), self._shape, self._stride, self._offset, self.dtype)

    @data.setter
    def data(self, other: Tensor) -> None:
        if not isinstance(other, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(other).__name__}")
        if self._requires_grad and not other.dtype.is_floating_point:
            # (else an integer tensor would require grad, and its gradient be truncated)
            raise RuntimeError(f"data set to a tensor that requires gradients must be floating point or complex "
                               f"dtype, got {other.dtype.name}")
        self._storage, self._shape, self._stride = other._storage, other._shape, other._stride
        self._offset, self.dtype = other._offset, other.dtype
        self._impl_view = None

    def detach(self) -> Tensor:
        """A new tensor sharing storage, cut from the graph (PyTorch's ``detach``)."""
        t = Tensor._make(self._storage, self._shape, self._stride, self._offset, self.dtype)
        return t

    def detach_(self) -> Tensor:
        if self._base is not None and self._base.requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    def _refresh_grad_fn(self) -> None:
        """A view whose storage was written since its grad_fn was made gets its history anew (and one
        whose base came to require grad since, its first: promote_view)."""
        if self._view_version is not None and self._view_version != self._storage.version:
            from .autograd.graph import promote_view, regenerate_view_grad_fn

            if self._requires_grad:
                regenerate_view_grad_fn(self)
            else:
                promote_view(self)

    def retain_grad(self) -> None:
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        self._refresh_grad_fn()
        if self.grad_fn is not None and not self._retains_grad:
            import weakref

            node = self.grad_fn
            if node._retained is None:
                node._retained = {}
            node._retained[self._output_nr] = weakref.ref(self)
            self._retains_grad = True

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def register_hook(self, hook):
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor replaces it.

        Returns a handle whose ``remove()`` unregisters the hook.
        """
        from .autograd.graph import _HookDict, add_hook

        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        self._refresh_grad_fn()
        if self.grad_fn is None:
            if self._hooks is None:
                self._hooks = _HookDict()
            return add_hook(self._hooks, hook)
        node = self.grad_fn
        if node._tensor_hooks is None:
            node._tensor_hooks = {}
        return add_hook(node._tensor_hooks.setdefault(self._output_nr, _HookDict()), hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(tensor)`` after backward accumulated a gradient into this leaf's ``.grad`` (an
        optimizer step per parameter, as in PyTorch); the hook must return None. Returns a handle
        whose ``remove()`` unregisters it. ``autograd.grad`` does not call it (nothing accumulates)."""
        from .autograd.graph import _HookDict, add_hook

        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        hooks = self._post_accumulate_grad_hooks
        if hooks is None:
            hooks = self._post_accumulate_grad_hooks = _HookDict()
        return add_hook(hooks, hook)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None) -> None:
        from .autograd import backward

        if gradient is not None and not isinstance(gradient, Tensor):  # (a list is not spread here)
            raise TypeError(f"gradients can be either Tensors or None, but got {type(gradient).__name__}")
        backward(self, gradient, retain_graph=retain_graph, create_graph=create_graph, inputs=inputs)

    # ------------------------------------------------------------------------------------
    # host conversions
    # ------------------------------------------------------------------------------------
    def _np_view(self) -> np.ndarray:
        """cpu only: numpy view of this tensor (shares memory)."""
        return numpy_view(self._storage, self._shape, self._stride, self._offset, self.dtype.np)

    def _device_array(self):
        """A cuda tensor's DeviceArray: the one the dispatcher hands its kernels, made once (a tensor's
        geometry never changes; ``.data =`` and resizing reset it)."""
        v = self._impl_view
        if v is None:
            v = self._impl_view = device_array(self._storage, self._shape, self._stride, self._offset, self.dtype.np)
        return v

    def numpy(self, *, force: bool = False) -> np.ndarray:
        if self.is_cuda:
            if not force:
                raise TypeError(
                    f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to copy the "
                    "tensor to host memory first."
                )
            return self._host_array()  # (force: a copy, detached as PyTorch's, even when it requires grad)
        if self._requires_grad and not force:
            from .autograd.grad_mode import is_grad_enabled

            if is_grad_enabled():  # (under no_grad the array cannot reach a graph: PyTorch allows it)
                raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                                   "instead.")
        self._storage.resizable = False  # (the array shares the memory from now on, as PyTorch's)
        return self._np_view()

    def __array__(self, dtype=None, copy=None):
        # PyTorch's: numpy() (a cuda tensor, or one that requires grad, raises: numpy would compute on
        # the host behind the device, or drop the gradient, when ``t + array`` falls to it)
        arr = self.numpy()
        if copy:
            arr = arr.copy()
        if dtype is None or np.dtype(dtype) == arr.dtype:
            return arr
        if copy is False:  # (NumPy 2's protocol: a conversion is a copy, which copy=False forbids)
            raise ValueError(f"Unable to avoid copy while creating an array as requested: the tensor is "
                             f"{self.dtype.name}, the array asked for {np.dtype(dtype)}")
        return arr.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        """A NumPy ufunc's result on a tensor is a (cpu) tensor sharing the result's memory, as
        PyTorch's (``np.sin(t)``); bool results stay bool (PyTorch turns them into uint8)."""
        from ._factories import wrap_numpy

        return wrap_numpy(np.asarray(array))

    def _host_array(self) -> np.ndarray:
        """A numpy array with this tensor's values (a copy for cuda, without a cpu Tensor around it;
        a view for cpu)."""
        if self.is_cpu:
            return self._np_view()
        from ._copy_ops import host_copy

        return host_copy(self)

    def item(self):
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        return self._host_array().reshape(-1)[0].item()

    def tolist(self):
        arr = self._host_array()
        if self.dtype is D.bfloat16:
            arr = arr.astype(np.float32)
        return arr.tolist()

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __bool__(self) -> bool:
        if self.numel() != 1:
            # PyTorch's words differ in number: "no values" but "more than one value"
            what = "no values" if self.numel() == 0 else "more than one value"
            raise RuntimeError(f"Boolean value of Tensor with {what} is ambiguous")
        return builtins.bool(self.item())

    def _python_scalar(self):
        """The value for float(t), int(t), math.floor(t)...: PyTorch raises ValueError (not item()'s
        RuntimeError) for a tensor of more than one element."""
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __float__(self) -> float:
        return builtins.float(self._python_scalar())

    def __int__(self) -> int:
        return builtins.int(self._python_scalar())

    def __format__(self, format_spec: str) -> str:
        # a 0-d tensor formats as its value, so f"{loss:.4f}" works, as in PyTorch
        if not self._shape:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __contains__(self, element) -> bool:
        """``element in t``: any element equal to it (PyTorch's ``(element == t).any()``), any shape."""
        if not isinstance(element, Tensor | numbers.Number | np.bool_):
            raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                               f"{type(element)}.")
        return builtins.bool((self == element).any().item())

    def __reversed__(self) -> Tensor:
        """``reversed(t)``: ``t`` flipped along dim 0 (a 0-d tensor is itself), as PyTorch's."""
        return self if not self._shape else self.flip(0)

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return builtins.int(self.item())

    def __hash__(self):
        return id(self)

    def __repr__(self) -> str:
        from ._repr import tensor_repr

        return tensor_repr(self)

    # copy.copy, copy.deepcopy and pickle keep storages, geometry and attributes (_tensor_copying)
    def __reduce_ex__(self, protocol):
        from ._tensor_copying import reduce_tensor

        return reduce_tensor(self)

    def __copy__(self):
        from ._tensor_copying import shallow_copy

        return shallow_copy(self)

    def __deepcopy__(self, memo):
        from ._tensor_copying import deep_copy

        return deep_copy(self, memo)

    # ------------------------------------------------------------------------------------
    # device and dtype conversions
    # ------------------------------------------------------------------------------------
    def to(self, *args, **kwargs) -> Tensor:
        """``to(device=None, dtype=None, non_blocking=False, copy=False)``, ``to(dtype)``,
        ``to(device, dtype)`` or ``to(other_tensor)``, as in PyTorch."""
        dev, dtype, non_blocking, copy, memory_format = _parse_to(self, args, kwargs)
        from ._copy_ops import to_dtype_device

        return to_dtype_device(self, dev, dtype, non_blocking=non_blocking, copy=copy, memory_format=memory_format)

    def cuda(self, device=None, non_blocking: bool = False, *, memory_format=preserve_format) -> Tensor:
        dev = as_device("cuda" if device is None else device if not isinstance(device, int) else f"cuda:{device}")
        if dev.type != "cuda":  # (PyTorch's: .cuda('cpu') returned a cpu tensor)
            raise RuntimeError(f"Invalid device, must be cuda device (got {dev})")
        return self.to(dev, non_blocking=non_blocking, memory_format=memory_format)

    def cpu(self, *, memory_format=preserve_format) -> Tensor:
        return self.to(CPU, memory_format=memory_format)

    def type_as(self, other: Tensor) -> Tensor:
        need_tensor("type_as", other, "other", 1)
        # PyTorch's type_as is self.to(other.options()): the device follows too, so the seq2seq
        # tutorials' torch.ones(1, 1).type_as(src).fill_(w) lands on src's GPU
        return self.to(other.device, other.dtype)

    def float(self, *, memory_format=preserve_format) -> Tensor:
        return self.to(D.float32, memory_format=memory_format)

    def half(self, *, memory_format=preserve_format) -> Tensor:
        return self.to(D.float16, memory_format=memory_format)

    def bfloat16(self, *, memory_format=preserve_format) -> Tensor:
        return self.to(D.bfloat16, memory_format=memory_format)

    def double(self, *, memory_format=preserve_format) -> Tensor:
        return self.to(D.float64, memory_format=memory_format)

    def long(self, *, memory_format=preserve_format) -> Tensor:
        return self.to(D.int64, memory_format=memory_format)

    def int(self, *, memory_format=preserve_format) -> Tensor:
        return self.to(D.int32, memory_format=memory_format)

    def short(self, *, memory_format=preserve_format) -> Tensor:
        return self.to(D.int16, memory_format=memory_format)

    def char(self, *, memory_format=preserve_format) -> Tensor:
        return self.to(D.int8, memory_format=memory_format)

    def byte(self, *, memory_format=preserve_format) -> Tensor:
        return self.to(D.uint8, memory_format=memory_format)

    def bool(self, *, memory_format=preserve_format) -> Tensor:
        return self.to(D.bool, memory_format=memory_format)

    def type(self, dtype=None, non_blocking: builtins.bool = False):
        """No argument: the type name, as PyTorch's (``'tensorlab.FloatTensor'``,
        ``'tensorlab.cuda.LongTensor'``). With a dtype, or a type name like those (a ``cuda.`` one
        moves the tensor to the GPU): the converted tensor (``self`` when nothing changes)."""
        if dtype is None:
            return f"tensorlab.{'cuda.' if self.is_cuda else ''}{D.torch_name(self.dtype)}Tensor"
        if isinstance(dtype, type) and hasattr(dtype, "device_type"):  # tl.DoubleTensor, tl.cuda.LongTensor
            dtype = dtype.__qualname__
        if isinstance(dtype, str) and dtype.startswith(("tensorlab.", "torch.")) and dtype.endswith("Tensor"):
            # (ported code's PyTorch spellings, 'torch.FloatTensor', 'torch.cuda.LongTensor', name the same types)
            name = dtype[dtype.index(".") + 1:-len("Tensor")]
            on_cuda = name.startswith("cuda.")
            try:
                target = D.from_torch_name(name[5:] if on_cuda else name, "type")
            except ValueError:
                raise ValueError(f"type: invalid type: {dtype!r}") from None
            return self.to("cuda" if on_cuda else CPU if self.is_cuda else self.device, target,
                           non_blocking=non_blocking)
        return self.to(D.as_dtype(dtype, "type"), non_blocking=non_blocking)


class Size(tuple):
    """``tensor.shape``: a tuple of ints that prints like PyTorch's ``torch.Size``. Built by a user,
    its items must be integers (a 0-d integer tensor counts, as PyTorch: it becomes an int);
    tensors build theirs from their own shape without the check (``_of``)."""

    def __new__(cls, sizes=()):
        items = []
        for i, s in enumerate(sizes):
            if isinstance(s, Tensor):
                if s.ndim or s.dtype.is_floating_point:
                    raise TypeError(f"tensorlab.Size() takes an iterable of 'int' (item {i} is 'Tensor')")
                s = s.item()
            elif s.__class__ is builtins.bool:
                s = builtins.int(s)
            elif not isinstance(s, builtins.int):
                try:
                    operator.index(s)
                except TypeError:
                    raise TypeError(f"tensorlab.Size() takes an iterable of 'int' (item {i} is "
                                    f"'{type(s).__name__}')") from None
            items.append(s)
        return tuple.__new__(cls, items)

    @classmethod
    def _of(cls, shape: tuple) -> Size:
        return tuple.__new__(cls, shape)

    def numel(self) -> int:
        return math.prod(self)

    def __repr__(self) -> str:
        return f"tensorlab.Size([{', '.join(str(s) for s in self)}])"

    def __getitem__(self, item):
        out = tuple.__getitem__(self, item)
        return Size._of(out) if isinstance(item, slice) else out

    # concatenation and repetition stay Sizes, as PyTorch's (a tuple on either side of +)
    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other))) if isinstance(other, tuple) else NotImplemented

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self)) if isinstance(other, tuple) else NotImplemented

    def __mul__(self, n):
        return Size._of(tuple.__mul__(self, n))

    __rmul__ = __mul__


def _parse_to(t: Tensor, args, kwargs):
    dev = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    copy = kwargs.pop("copy", False)
    memory_format = kwargs.pop("memory_format", preserve_format)
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    args = list(args)
    given = {"device": dev is not None, "dtype": dtype is not None}

    def once(what: str):  # (PyTorch's overloads take each once: a second one was silently the winner)
        if given[what]:
            raise TypeError(f"to() received an invalid combination of arguments: {what} given twice "
                            f"({tuple(args)!r}, device={dev!r}, dtype={dtype!r})")
        given[what] = True

    if args and isinstance(args[0], Tensor):
        other = args.pop(0)
        once("device")
        once("dtype")
        dev, dtype = other.device, other.dtype
    flags = 0  # positional bools: non_blocking, then copy (to(dtype, non_blocking, copy), ...)
    for a in args:
        if isinstance(a, bool):
            if flags == 0:
                non_blocking = a
            elif flags == 1:
                copy = a
            else:
                raise TypeError(f"to() received too many positional bools (non_blocking, copy): {tuple(args)!r}")
            flags += 1
        elif isinstance(a, D.dtype) or a in (builtins.float, builtins.int, builtins.bool):
            once("dtype")
            dtype = a
        elif isinstance(a, str | device | builtins.int):
            once("device")
            dev = a
        elif a is None:  # (PyTorch's optional device, to(None): no change)
            continue
        else:
            raise TypeError(f"to() received an invalid argument {a!r}")
    dev = t.device if dev is None else as_device(dev)
    dtype = t.dtype if dtype is None else D.as_dtype(dtype, "to")
    return dev, dtype, non_blocking, copy, memory_format


def contiguous_like(shape) -> tuple:
    return contiguous_strides(shape)


def need_tensor(op: str, x, name: str = "input", position: int = 1) -> None:
    """PyTorch's TypeError for an argument that must be a Tensor (``sum(2)``), before the op's
    body reads an attribute of it."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not {type(x).__name__}")


def checked_function(fn, name: str):
    """The ``tensorlab.<name>`` function of a method whose body takes ``self`` for a Tensor
    (``tl.reshape(2, ...)`` would fail on ``int.numel``): a wrapper that first refuses anything
    else, so the method itself pays nothing."""

    @functools.wraps(fn)
    def call(input, *args, **kwargs):
        if input.__class__ is not Tensor and not isinstance(input, Tensor):
            need_tensor(name, input)
        return fn(input, *args, **kwargs)

    return call


def tensor_method(fn=None, *, name: str | None = None):
    """Attach ``fn`` to Tensor as a method (``fn(self, ...)``); returns ``fn`` unchanged."""

    def attach(f):
        setattr(Tensor, name or f.__name__, f)
        return f

    return attach(fn) if fn is not None else attach


norm_dim = _norm_dim
