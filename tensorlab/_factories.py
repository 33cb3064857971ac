"""Tensor factories: ``tensor``, ``as_tensor``, ``from_numpy``, ``empty``/``zeros``/``ones``/``full``
(and ``*_like``, ``new_*``), ``arange``, ``linspace``, ``logspace``, ``eye``; ``fill_``/``zero_``.

Values are built on the host for ``tensor``/``arange``/``linspace``/``logspace`` (they come from
Python) and copied once to the device; constant fills run the fill kernel (or a memset).
"""

from __future__ import annotations

import builtins
import math
import numbers
import operator
import warnings

import numpy as np

from tensorlab_kernels import fill as kfill
from tensorlab_kernels.convert import host_steps

from . import _dtype as D
from ._determinism import filling_uninitialized_memory, uninitialized_fill_value
from ._device import CPU, as_device, get_default_device
from ._dispatch import dispatch, empty_tensor
from ._layout import format_strides, preserve_format
from ._registry import Plan, defop
from ._storage import cpu_storage_from_array
from ._tensor import Tensor, tensor_method
from ._views import shape_args
from .autograd.grad_mode import is_grad_enabled, no_grad

# ----------------------------------------------------------------------------------------------
# fill_ (a registered in-place op)
# ----------------------------------------------------------------------------------------------


def _fill_meta(x: Tensor, value) -> Plan:
    return Plan(args=[value], outputs=[(x._shape, x.dtype)])


def _fill_backward(ctx, g):
    # fill_ takes a Python number (value tensors are read with item()), so only self has a gradient.
    return zeros_like(g), None


FILL_ = defop(
    "fill",
    twin=kfill.fill_twin,
    kernel=kfill.fill,
    meta=_fill_meta,
    backward=_fill_backward,
    save=lambda ctx, inputs, outputs, params: None,
    # every element gets the same value, so an expanded self (elements sharing memory) is fine,
    # as PyTorch's fill_ and zero_ allow it
    tags={"inplace_safe", "same_value_writes"},
    doc="self.fill_(value): every element set to value.",
)


@tensor_method
def fill_(self: Tensor, value) -> Tensor:
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} dimensions."
            )
        if value._requires_grad and is_grad_enabled():
            # as PyTorch: the value's gradient is the sum of the filled elements' gradients, which
            # copy_ from the value expanded to self's shape gives
            return self.copy_(value.expand(self._shape))
        if value.device == self.device:
            # as PyTorch: a value on self's device is copied, so converted as a tensor (-3.7 into
            # uint8 wraps to 253, 300 into int8 to 44, 1e6 into float16 to inf); from another
            # device it is read as a number, and checked as one
            return dispatch(FILL_, self, value.to(self.dtype).item(), inplace=True)
        value = value.item()
    value = check_scalar_fits("fill_", value, self.dtype)
    return dispatch(FILL_, self, value, inplace=True)


@tensor_method
def zero_(self: Tensor) -> Tensor:
    return fill_(self, 0)


def _rounds_to_inf(value, dtype: D.dtype) -> bool:
    """A finite number overflows a floating dtype when it rounds to infinity there (PyTorch takes
    float16 65505, which rounds to 65504, and refuses 65520)."""
    try:
        x = float(value)
    except OverflowError:  # an int beyond float64
        return True
    with np.errstate(over="ignore"):
        return bool(np.isinf(np.array(x).astype(dtype.np)))


def check_int_converts(op: str, name: str, value: int) -> None:
    """PyTorch's argument parser reads a Python int as a 64-bit integer (int64, or uint64 up to
    2**64 - 1): one beyond that is an OverflowError, whatever the dtype it is then used with."""
    if not -(2**63) <= value < 2**64:
        raise OverflowError(f"{op}(): {name} = {value} is too big to convert (it does not fit in 64 bits)")


def check_scalar_fits(op: str, value, dtype: D.dtype, floats: bool = True, name: str = "value"):
    """PyTorch's check that a Python scalar converts to ``dtype`` without overflow (``fill_``,
    ``full``, ``masked_fill``, ...): integers must lie in the type's range (unsigned types also take
    negatives down to -max, which wrap, as in C++), floats written to an integer type must be
    finite and in range, and a finite value must not overflow a floating type (``floats=False``
    skips that last check, as PyTorch's ``__setitem__`` does). bool takes anything. ``name``: the
    argument's name in the OverflowError of an int beyond 64 bits.

    Returns the value to write: a complex one (there are no complex dtypes) as its real part when
    its imaginary part is 0, as PyTorch converts it (``fill_(2+0j)``); any other is refused, as
    PyTorch refuses it, rather than silently dropping the imaginary part."""
    if not isinstance(value, numbers.Number | np.bool_):  # (NumPy's bool is no numbers.Number)
        raise TypeError(f"{op}: value must be a number, got {type(value).__name__}")
    if isinstance(value, int) and not isinstance(value, builtins.bool):
        check_int_converts(op, name, value)
    if isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        if dtype is D.bool:
            return bool(value)
        if value.imag != 0:
            raise RuntimeError(f"{op}: value cannot be converted to type {dtype.name} without overflow: {value}")
        value = float(value.real)
    if dtype is D.bool or isinstance(value, builtins.bool | np.bool_):
        return value
    if dtype.is_floating_point:
        finite = not isinstance(value, builtins.float | np.floating) or math.isfinite(value)  # inf, nan fit
        if floats and finite and _rounds_to_inf(value, dtype):
            raise RuntimeError(f"{op}: value cannot be converted to type {dtype.name} without overflow: {value}")
        return value
    info = np.iinfo(dtype.np)
    if isinstance(value, builtins.float | np.floating):
        fits = math.isfinite(value) and info.min <= value <= info.max
    else:
        fits = (-info.max if info.min == 0 else info.min) <= value <= info.max
    if not fits:
        raise RuntimeError(f"{op}: value cannot be converted to type {dtype.name} without overflow: {value}")
    return value


# ----------------------------------------------------------------------------------------------
# from Python / numpy data
# ----------------------------------------------------------------------------------------------


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A cpu tensor sharing memory with ``ndarray`` (writes show in both; ``resize_`` may not grow
    it, as PyTorch's: the array keeps using this memory)."""
    t = wrap_numpy(ndarray)
    t._storage.resizable = False
    return t


def wrap_numpy(ndarray: np.ndarray) -> Tensor:
    """:func:`from_numpy` for an array made for the tensor (an op's result, a copy, a loaded
    file): nobody else holds it, so the tensor's storage stays resizable."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected np.ndarray (got {type(ndarray).__name__})")
    _check_native_byte_order(ndarray, "from_numpy")
    dtype = D.from_numpy_dtype(ndarray.dtype, "from_numpy")
    if any(s < 0 for s in ndarray.strides):
        raise ValueError(
            "At least one stride in the given numpy array is negative, and tensors with negative strides are not "
            "currently supported. (You can probably work around this by making a copy of your array  with "
            "array.copy().) "
        )
    if any(s % ndarray.itemsize for s in ndarray.strides):
        raise ValueError("from_numpy: strides that are not a multiple of the element size are not supported")
    if not ndarray.flags.writeable:
        warnings.warn("The given NumPy array is not writable; tensorlab shares its memory, so writing through the "
                      "tensor will fail. Copy the array first if you need to write to it.")
    storage, strides, offset = cpu_storage_from_array(ndarray)
    return Tensor._make(storage, tuple(ndarray.shape), strides, offset, dtype)


def _check_native_byte_order(arr: np.ndarray, op: str) -> None:
    # A byte-swapped array ('>i4' on a little-endian machine) is PyTorch's ValueError, whatever its type: the
    # message says what is wrong rather than listing the dtypes (which '>i4' seems to be one of).
    if not arr.dtype.isnative:
        raise ValueError(f"{op}: given numpy array has byte order different from the native byte order "
                         f"({arr.dtype.str}). Conversion between byte orders is currently not supported.")


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-d cpu tensor over the bytes of ``buffer`` (any object with the buffer protocol; shared, not
    copied): ``count`` elements of ``dtype`` (-1: as many as fit) from byte ``offset``."""
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    if not view.c_contiguous:  # (numpy's frombuffer would raise its own ValueError, naming no op)
        raise RuntimeError("frombuffer: could not retrieve a contiguous buffer from the given object "
                           "(non-contiguous buffers are not supported)")
    nbytes = view.nbytes
    dt = D.as_dtype(dtype, "frombuffer")
    size = dt.itemsize
    if nbytes == 0 or count == 0:
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    if not 0 <= offset < nbytes:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({nbytes} bytes) minus 1")
    if count < 0:
        if (nbytes - offset) % size:
            raise ValueError(f"buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({size})")
        count = (nbytes - offset) // size
    elif offset + count * size > nbytes:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not "
                         f"be greater than actual buffer length ({nbytes} bytes)")
    t = from_numpy(np.frombuffer(buffer, dtype=dt.np, count=count, offset=offset))
    return t.requires_grad_() if requires_grad else t


def _infer_dtype_of_scalar(x) -> D.dtype:
    if isinstance(x, builtins.bool | np.bool_):
        return D.bool
    if isinstance(x, numbers.Integral):
        return D.int64
    if isinstance(x, numbers.Real):
        return D.get_default_dtype()
    if isinstance(x, numbers.Complex):
        raise TypeError("tensorlab does not support complex numbers")
    raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")  # (PyTorch's type and words)


_PLAIN_NUMBERS = frozenset({float, int, builtins.bool})  # (the walk's common case, checked first)


def _is_sequence(x) -> bool:
    """What PyTorch's data walk takes as a sequence besides lists and tuples: anything with
    ``__len__`` and ``__getitem__`` (Python's sequence protocol) but a string, bytes or a mapping."""
    return (not isinstance(x, list | tuple | np.ndarray | Tensor | str | bytes | dict)
            and hasattr(type(x), "__len__") and hasattr(type(x), "__getitem__")
            and not hasattr(type(x), "keys"))


def _nested_to_numpy(data, op: str, target: D.dtype | None = None) -> tuple[np.ndarray, D.dtype]:
    """Python scalars / nested sequences (possibly holding tensors, numpy scalars and arrays) -> numpy
    array + inferred dtype (PyTorch's: a Python number gives bool/int64/the default dtype, a tensor or
    numpy value its own dtype, promoted together). ``target``: the dtype asked for, if any (a floating
    one takes Python ints beyond 64 bits, as PyTorch's)."""
    shape: list[int] = []
    dtype = None
    leaf_depth = None  # where the numbers stand, once one was seen: no sequence may stand there
    # An integer dtype asked for: each float is checked and truncated on its own, so that the ints beside it
    # are not read through float64 (tensor([2**53 + 1, 0.5], dtype=int64) keeps 2**53 + 1, and
    # tensor([-3, 0.5], dtype=uint8) wraps -3 to 253 as an int, as PyTorch's per-number conversion does).
    to_int = target is not None and target is not D.bool and not target.is_floating_point

    def number(v):
        return int(check_scalar_fits(op, v, target)) if to_int and isinstance(v, builtins.float) else v

    def walk(x, depth: int):
        nonlocal dtype, leaf_depth
        if isinstance(x, Tensor):
            if x.numel() != 1 and depth >= 0:  # (a one-element tensor of any shape is a number, as PyTorch)
                raise ValueError(f"{op}: only one element tensors can be converted to Python scalars")
            v = x.item()
            d = x.dtype
            dtype = d if dtype is None else D.promote_types(dtype, d)
            return number(v)
        if isinstance(x, np.generic) or (isinstance(x, np.ndarray) and x.ndim == 0):
            if depth != len(shape):  # [[1], np.int16(2)]: a TypeError, as for a Python number there
                raise TypeError(f"{op}: expected a sequence at dim {depth}, got {type(x).__name__}")
            leaf_depth = depth  # (so a sequence or a str after it is told apart as after a Python number)
            d = D.from_numpy_dtype(np.asarray(x).dtype, op)
            dtype = d if dtype is None else D.promote_types(dtype, d)
            return number(x.item())
        if x.__class__ not in _PLAIN_NUMBERS and _is_sequence(x):  # range, array.array, bytearray, memoryview...
            x = x.tolist() if isinstance(x, memoryview) else list(x)
        if isinstance(x, list | tuple | np.ndarray):
            n = len(x)
            if leaf_depth is not None and depth >= leaf_depth:  # [1, [2]]
                raise TypeError(f"{op}: expected a number at dim {depth}, got {type(x).__name__}")
            if depth == len(shape):
                shape.append(n)
            elif depth > len(shape) or shape[depth] != n:
                raise ValueError(f"{op}: expected sequence of length {shape[depth] if depth < len(shape) else 0} at "
                                 f"dim {depth} (got {n})")
            return [walk(y, depth + 1) for y in x]
        if depth != len(shape):  # [[1], 2]
            raise TypeError(f"{op}: expected a sequence at dim {depth}, got {type(x).__name__}")
        first_leaf = leaf_depth is None  # (depth first: the first leaf is data[0][0]..., where PyTorch sizes the data)
        leaf_depth = depth
        if isinstance(x, str | bytes):
            # PyTorch's types: a str where it reads the sizes (the first leaf) is a sequence of too many
            # dimensions (ValueError); anywhere else, and bytes anywhere, it is an invalid type (TypeError)
            if depth == 0 or not first_leaf or isinstance(x, bytes):
                raise TypeError(f"{op}: invalid data type '{type(x).__name__}'")
            raise ValueError(f"{op}: too many dimensions '{type(x).__name__}'")
        if target is not None and not isinstance(x, numbers.Number | np.bool_):
            # with a dtype asked for, PyTorch converts any object through __float__ / __index__
            try:
                x = float(x) if target.is_floating_point else builtins.bool(x) if target is D.bool else \
                    operator.index(x)
            except TypeError:
                raise TypeError(f"{op}: could not convert {type(x).__name__} to {target.name}") from None
        d = _infer_dtype_of_scalar(x)
        dtype = d if dtype is None else D.promote_types(dtype, d)
        return number(x)

    values = walk(data, 0)
    if dtype is None:  # empty sequence
        dtype = D.get_default_dtype()
    if to_int and dtype.is_floating_point:  # (every float was made an int above)
        np_dtype = np.int64
    elif dtype.is_floating_point or (target is not None and target.is_floating_point):
        np_dtype = np.float64
    else:
        np_dtype = dtype.np
    try:
        arr = np.array(values, dtype=np_dtype)
    except OverflowError:  # a Python int beyond 64 bits in an integer tensor
        fit = (target or dtype).name
        raise ValueError(f"{op}: Overflow when unpacking long long (a value does not fit {fit})") from None
    if shape and arr.shape != tuple(shape):
        arr = arr.reshape(shape)
    return arr, dtype


def _array_from_data(data, op: str, target: D.dtype | None = None) -> tuple[np.ndarray, D.dtype]:
    if isinstance(data, np.ndarray | np.generic):
        arr = np.asarray(data)
        _check_native_byte_order(arr, op)
        if target is not None and arr.dtype.kind == "u":  # uint16/32/64 (16-bit images): converted, as PyTorch
            return arr, target
        return arr, D.from_numpy_dtype(arr.dtype, op)
    if hasattr(data, "__dlpack__") and not isinstance(data, Tensor):
        from ._dlpack import from_dlpack

        arr = from_dlpack(data).numpy()  # (tensorlab's reader: bfloat16 too, which np.from_dlpack lacks)
        return arr, D.from_numpy_dtype(arr.dtype, op)
    return _nested_to_numpy(data, op, target)


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of ``data`` (scalars, nested sequences, numpy arrays, tensors)."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() "
                      "rather than tensorlab.tensor(sourceTensor).")
        t = data.detach().to(device=as_device(device) if device is not None else data.device,
                             dtype=D.as_dtype(dtype) if dtype is not None else data.dtype, copy=True)
        return t.requires_grad_(requires_grad) if requires_grad else t
    target = None if dtype is None else D.as_dtype(dtype, "tensor")
    arr, inferred = _array_from_data(data, "tensor", target)
    dt = inferred if target is None else target
    if dtype is not None and not isinstance(data, np.ndarray) and arr is not data:
        _check_values_fit("tensor", arr, dt)
    with np.errstate(invalid="ignore", over="ignore"):
        # the intermediate steps of tensorlab's .to() (and PyTorch's casts): to a half type through float32, a
        # float to uint8 through int64 (numpy's own cast goes through int32 on x86: -5171361537520.0 gave 0, not 16)
        arr = np.array(host_steps(arr, dt.np), dtype=dt.np, copy=True, order="C")
    # (numpy gives an empty array 0 strides; PyTorch's tensor([]) has contiguous ones, as zeros(0): an
    # empty numpy array's own strides are kept, as PyTorch keeps them)
    t = wrap_numpy(arr) if arr.size or isinstance(data, np.ndarray) else empty(arr.shape, dtype=dt)
    dev = as_device(device)
    if dev.type != "cpu":
        t = t.to(dev)
    if pin_memory:
        t = t.pin_memory()
    if requires_grad:
        t.requires_grad_(True)
    return t


def _check_values_fit(op: str, arr: np.ndarray, dtype: D.dtype) -> None:
    """PyTorch converts each Python number of ``tensor(data, dtype=...)`` with an overflow check:
    ``tensor([300], dtype=int8)`` raises instead of wrapping to 44 (a numpy array is cast without
    one, as in PyTorch). Integer types only: a float that overflows a floating type becomes inf."""
    if dtype is D.bool or dtype.is_floating_point or arr.size == 0 or arr.dtype == np.bool_:
        return
    info = np.iinfo(dtype.np)
    low = -info.max if info.min == 0 and arr.dtype.kind != "f" else info.min  # C++'s wrap of negatives
    with np.errstate(invalid="ignore"):
        bad = ~((arr >= low) & (arr <= info.max))  # NaN fails both comparisons
    if bad.any():
        check_scalar_fits(op, arr[bad].flat[0].item(), dtype)  # raises, naming the first such value


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a numpy array or tensor when dtype and device allow."""
    dt = None if dtype is None else D.as_dtype(dtype, "as_tensor")
    if isinstance(data, Tensor):  # (a tensor stays where it is unless device= says otherwise)
        return data.to(device=data.device if device is None else as_device(device), dtype=dt or data.dtype)
    dev = None if device is None and get_default_device() is CPU else as_device(device)
    if isinstance(data, np.ndarray) and data.dtype in D._BY_NP and all(s >= 0 for s in data.strides):
        t = from_numpy(data)
        if dt is not None and dt is not t.dtype:
            t = t.to(dt)
        if dev is not None and dev != t.device:
            t = t.to(dev)
        return t
    return tensor(data, dtype=dt, device=dev)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=None) -> Tensor:
    """``obj`` as a tensor, sharing its memory where it can (``copy=True``: a copy). ``requires_grad``
    as PyTorch 2.15's: unspecified, a tensor's own (with PyTorch's warning when that is True);
    False, a tensor that does not require grad (a non-leaf detached; a leaf returned as itself with
    requires_grad turned off, as PyTorch does)."""
    if copy and isinstance(obj, Tensor):  # a differentiable copy (PyTorch's clone: the history is kept)
        t = obj.to(dtype=obj.dtype if dtype is None else dtype, device=obj.device if device is None else device)
        t = t.clone() if t is obj else t
    else:
        if not isinstance(obj, Tensor | np.ndarray) and not hasattr(obj, "__dlpack__"):
            try:  # an object with the buffer protocol (bytes, bytearray, array.array): its memory, its type
                obj = np.asarray(memoryview(obj))
            except TypeError:
                pass
        t = tensor(obj, dtype=dtype, device=device) if copy else as_tensor(obj, dtype=dtype, device=device)
        if copy is False:
            _check_aliases("asarray", obj, t)
    if requires_grad is None:
        if isinstance(obj, Tensor) and obj.requires_grad:
            warnings.warn("asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. "
                          "Pass requires_grad=False explicitly to get the old behavior and silence this warning.",
                          UserWarning, stacklevel=2)
        return t
    if requires_grad:
        return t.requires_grad_(True)
    if t.requires_grad:
        return t.requires_grad_(False) if t.is_leaf else t.detach()
    return t


def _check_aliases(op: str, obj, t: Tensor) -> None:
    """``copy=False`` promises memory shared with ``obj``: PyTorch's ValueError where ``t`` is a copy
    (another dtype or device, or data that is no array: a list, a number)."""
    if isinstance(obj, Tensor):
        source_dtype, source_device, shared = obj.dtype, obj.device, t._storage is obj._storage
    elif isinstance(obj, np.ndarray):
        source_dtype, source_device = None, CPU
        shared = t.is_cpu and (obj.size == 0 or np.shares_memory(t._np_view(), obj))
        if not shared and obj.dtype != t.dtype.np:
            source_dtype = D.from_numpy_dtype(obj.dtype, op)
    elif isinstance(obj, list | tuple | numbers.Number | np.generic):
        raise ValueError(f"{op}: can't alias arbitrary sequence into a tensor (copy=False, but "
                         f"{type(obj).__name__} data must be copied)")
    else:  # (DLPack and buffer objects: as_tensor shares their memory where it can)
        return
    if shared:
        return
    if source_dtype is not None and source_dtype is not t.dtype:
        raise ValueError(f"{op}: can't alias tensor with dtype '{D.torch_name(source_dtype)}' into dtype "
                         f"'{D.torch_name(t.dtype)}' (copy=False)")
    if source_device != t.device:
        raise ValueError(f"{op}: can't alias tensor from device '{source_device}' to '{t.device}' (copy=False)")
    raise ValueError(f"{op}: can't alias the data into a tensor without a copy (copy=False)")


# ----------------------------------------------------------------------------------------------
# shaped factories
# ----------------------------------------------------------------------------------------------


def _check_size(op: str, size: tuple) -> tuple:
    for s in size:
        if s < 0:
            raise RuntimeError(f"{op}: Trying to create tensor with negative dimension {s}: {list(size)}")
    return size


def factory_out(op: str, out, dtype, device) -> D.dtype:
    """PyTorch's checks of a factory's ``out=``, before anything is written: a Tensor; a ``dtype=``
    or ``device=`` given must be ``out``'s (the result takes ``out``'s dtype otherwise); no
    ``out`` that requires grad with grad mode on. Returns the dtype to produce (``out``'s)."""
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if dtype is not None and D.as_dtype(dtype, op) is not out.dtype:
        raise RuntimeError(f"dtype {D.torch_name(D.as_dtype(dtype, op))} does not match dtype of out parameter "
                           f"({D.torch_name(out.dtype)})")
    if device is not None and as_device(device).type != out.device.type:
        raise RuntimeError(f"device type {as_device(device).type} does not match device type of out parameter "
                           f"({out.device.type})")
    if out._requires_grad and is_grad_enabled():
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, but "
                           "one of the arguments requires grad.")
    return out.dtype


def resize_out(out: Tensor, size: tuple) -> Tensor:
    """A factory's ``out`` at ``size``: kept (with its strides) when it has that shape, else resized
    contiguous by dispatch's ``_resize_`` (in its own storage when that is big enough), without a
    warning (PyTorch's factories resize ``out`` silently)."""
    if out._shape != tuple(size):
        from ._dispatch import _resize_

        _resize_(out, tuple(size))
    return out


def _host_into(out: Tensor, values: np.ndarray, requires_grad: bool) -> Tensor:
    """Host-computed values (already of ``out``'s dtype and final shape) written into ``out``
    (resized first); the write bumps ``out``'s version."""
    resize_out(out, values.shape)
    with no_grad():
        out.copy_(from_numpy(np.ascontiguousarray(values)))
    return _finish(out, requires_grad)


def torch_factory(fn):
    """``fn`` with PyTorch's factory keywords: ``layout`` (``strided`` or None; tensorlab has no sparse
    layouts) and, where ``fn`` lacks them, ``pin_memory`` (the result in pinned host memory) and
    ``requires_grad``. (Ported code passes ``layout=torch.strided, pin_memory=False``.)"""
    import functools
    import inspect

    from ._layout import strided

    params = inspect.signature(fn).parameters
    own_pin, own_grad = "pin_memory" in params, "requires_grad" in params

    @functools.wraps(fn)
    def factory(*args, layout=None, **kwargs):
        if layout is not None and layout is not strided:
            raise NotImplementedError(f"{fn.__name__}(): layout={layout} is not supported: tensorlab's tensors are "
                                      "strided (there are no sparse layouts)")
        pin = False if own_pin else kwargs.pop("pin_memory", False)
        # (requires_grad is applied after pinning, by _finish, as the factories' own pin_memory does)
        grad = kwargs.pop("requires_grad", False) if pin or not own_grad else False
        return _finish(fn(*args, **kwargs), grad, pin)

    return factory


def _finish(t: Tensor, requires_grad: bool, pin_memory: bool = False) -> Tensor:
    if pin_memory:
        t = t.pin_memory()
    if requires_grad:
        t.requires_grad_(True)
    return t


def empty(*sizes, size=None, dtype=None, device=None, requires_grad: bool = False, pin_memory: bool = False,
          out=None, memory_format=None) -> Tensor:
    size = _check_size("empty", shape_args(sizes, "empty", size))
    if out is not None:  # out resized to size, its values left as they are (as PyTorch)
        if memory_format is not None:
            raise RuntimeError("'memory_format' argument is incompatible with 'out' tensor argument")
        factory_out("empty", out, dtype, device)
        return _finish(resize_out(out, size), requires_grad)
    if memory_format is preserve_format:
        raise RuntimeError("empty(): unsupported memory format Preserve")
    strides = format_strides("empty", size, memory_format)
    dt = D.get_default_dtype() if dtype is None else D.as_dtype(dtype, "empty")
    return _finish(_filled_if_deterministic(empty_tensor(size, dt, as_device(device), strides)), requires_grad,
                   pin_memory)


def _filled_if_deterministic(t: Tensor) -> Tensor:
    """``t`` filled with PyTorch's value for uninitialized memory when deterministic algorithms ask
    for it (tensorlab.utils.deterministic)."""
    if filling_uninitialized_memory() and t.numel():
        _raw_fill(t, uninitialized_fill_value(t.dtype))
    return t


def _fill_out(op: str, out: Tensor, size: tuple, value, dtype, device, requires_grad: bool) -> Tensor:
    """``out=`` of a constant factory: checked (:func:`factory_out`, the value fits out's dtype),
    resized to ``size`` and filled (strided in place when it had that shape; bumps the version)."""
    dt = factory_out(op, out, dtype, device)
    value = check_scalar_fits(op, value, dt)
    with no_grad():
        fill_(resize_out(out, size), value)
    return _finish(out, requires_grad)


def zeros(*sizes, size=None, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    size = _check_size("zeros", shape_args(sizes, "zeros", size))
    if out is not None:
        return _fill_out("zeros", out, size, 0, dtype, device, requires_grad)
    dt = D.get_default_dtype() if dtype is None else D.as_dtype(dtype, "zeros")
    t = empty_tensor(size, dt, as_device(device))
    _raw_fill(t, 0)
    return _finish(t, requires_grad)


def ones(*sizes, size=None, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    size = _check_size("ones", shape_args(sizes, "ones", size))
    if out is not None:
        return _fill_out("ones", out, size, 1, dtype, device, requires_grad)
    dt = D.get_default_dtype() if dtype is None else D.as_dtype(dtype, "ones")
    t = empty_tensor(size, dt, as_device(device))
    _raw_fill(t, 1)
    return _finish(t, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    size = _check_size("full", shape_args((size,), "full"))
    if isinstance(fill_value, Tensor):
        if fill_value.numel() != 1:
            raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not a Tensor of "
                            f"{fill_value.numel()} elements")
        fill_value = fill_value.item()
    if out is not None:  # the value converted to out's dtype (full((2,), 7.5, out=int64) is 7)
        return _fill_out("full", out, size, fill_value, dtype, device, requires_grad)
    dt = _infer_dtype_of_scalar(fill_value) if dtype is None else D.as_dtype(dtype, "full")
    fill_value = check_scalar_fits("full", fill_value, dt)
    return _finish(filled(size, fill_value, dt, as_device(device)), requires_grad)


def filled(size: tuple, value, dtype: D.dtype, dev) -> Tensor:
    """A new tensor of ``value`` converted to ``dtype`` (callers check the value first)."""
    t = empty_tensor(size, dtype, dev)
    _raw_fill(t, value)
    return t


def _raw_fill(t: Tensor, value) -> None:
    """Fill a fresh tensor (no autograd, no version bump needed)."""
    if t.is_cpu:
        kfill.fill_twin(t._np_view(), value)
    else:
        kfill.fill(t._device_array(), value)


def refuse_uninitialized(input: Tensor) -> None:
    """A ``*_like`` factory of an uninitialized lazy parameter raises PyTorch's ValueError, as its ops
    do: it has no shape to copy, and reading its storage raises (nn.parameter._NoStorage)."""
    if type(input) is not Tensor:
        input._storage.nbytes  # noqa: B018


def _like(op: str, input: Tensor, dtype, device):
    refuse_uninitialized(input)
    dt = input.dtype if dtype is None else D.as_dtype(dtype, op)
    dev = input.device if device is None else as_device(device)
    return dt, dev


def empty_like_layout(op: str, input: Tensor, dtype, device, memory_format) -> Tensor:
    """A new tensor of ``input``'s shape (and dtype, device unless given), laid out as
    ``memory_format`` asks: by default as ``input`` (PyTorch's ``preserve_format``)."""
    dt, dev = _like(op, input, dtype, device)
    return empty_tensor(input._shape, dt, dev, format_strides(op, input._shape, memory_format, input))


def empty_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False,
               memory_format=preserve_format) -> Tensor:
    t = _filled_if_deterministic(empty_like_layout("empty_like", input, dtype, device, memory_format))
    return _finish(t, requires_grad)


def zeros_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False,
               memory_format=preserve_format) -> Tensor:
    t = empty_like_layout("zeros_like", input, dtype, device, memory_format)
    _raw_fill(t, 0)
    return _finish(t, requires_grad)


def ones_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False,
              memory_format=preserve_format) -> Tensor:
    t = empty_like_layout("ones_like", input, dtype, device, memory_format)
    _raw_fill(t, 1)
    return _finish(t, requires_grad)


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False,
              memory_format=preserve_format) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    t = empty_like_layout("full_like", input, dtype, device, memory_format)
    fill_value = check_scalar_fits("full_like", fill_value, t.dtype)
    _raw_fill(t, fill_value)
    return _finish(t, requires_grad)


@tensor_method
def new_empty(self: Tensor, *sizes, size=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    dt, dev = _like("new_empty", self, dtype, device)
    return empty(shape_args(sizes, "new_empty", size), dtype=dt, device=dev, requires_grad=requires_grad)


@tensor_method
def new_zeros(self: Tensor, *sizes, size=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    dt, dev = _like("new_zeros", self, dtype, device)
    return zeros(shape_args(sizes, "new_zeros", size), dtype=dt, device=dev, requires_grad=requires_grad)


@tensor_method
def new_ones(self: Tensor, *sizes, size=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    dt, dev = _like("new_ones", self, dtype, device)
    return ones(shape_args(sizes, "new_ones", size), dtype=dt, device=dev, requires_grad=requires_grad)


@tensor_method
def new_full(self: Tensor, size, fill_value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    dt, dev = _like("new_full", self, dtype, device)
    return full(size, fill_value, dtype=dt, device=dev, requires_grad=requires_grad)


@tensor_method
def new_tensor(self: Tensor, data, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    dt, dev = _like("new_tensor", self, dtype, device)
    if isinstance(data, Tensor):
        return data.detach().to(device=dev, dtype=dt, copy=True).requires_grad_(requires_grad)
    return tensor(data, dtype=dt, device=dev, requires_grad=requires_grad)


# ----------------------------------------------------------------------------------------------
# ranges
# ----------------------------------------------------------------------------------------------


def _from_host(arr: np.ndarray, dt: D.dtype, device, requires_grad: bool) -> Tensor:
    with np.errstate(invalid="ignore", over="ignore"):
        # (an empty result gets contiguous strides, as PyTorch's; numpy gives it 0 strides)
        t = wrap_numpy(np.ascontiguousarray(arr.astype(dt.np))) if arr.size else empty(arr.shape, dtype=dt)
    dev = as_device(device)
    if dev != CPU:
        t = t.to(dev)
    return _finish(t, requires_grad)


def _scalar_value(x):
    return x.item() if isinstance(x, Tensor) else x


def arange(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    """Values from ``start`` to ``end`` (exclusive) every ``step``; int64 unless any argument is a float.
    ``out=``: the values in ``out``'s dtype, ``out`` resized (with PyTorch's warning when its
    number of elements differs)."""
    start, end, step = _scalar_value(start), _scalar_value(end), _scalar_value(step)
    if end is None:
        start, end = 0, start
    for name, v in (("start", start), ("end", end), ("step", step)):
        if not isinstance(v, numbers.Real):
            raise TypeError(f"arange(): {name} must be a number, got {type(v).__name__}")
        if isinstance(v, builtins.float) and not math.isfinite(v):
            raise RuntimeError(f"arange(): unsupported range: {start} -> {end}")
    if step == 0:
        raise RuntimeError("arange(): step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(
            f"arange(): upper bound and larger bound inconsistent with step sign (start={start}, end={end}, "
            f"step={step})"
        )
    if out is not None:
        dt = factory_out("arange", out, dtype, device)
    elif dtype is None:
        is_float = any(isinstance(v, builtins.float | np.floating) for v in (start, end, step))
        dt = D.get_default_dtype() if is_float else D.int64
    else:
        dt = D.as_dtype(dtype, "arange")
    if dt is D.bool:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    if not dt.is_floating_point and all(isinstance(v, numbers.Integral) for v in (start, end, step)):
        # exactly, as PyTorch's integer kernel: a float quotient loses the last element of ranges longer
        # than 2**53 (arange(0, 2**62 + 5, 2**60) has 5)
        start, end, step = builtins.int(start), builtins.int(end), builtins.int(step)
        n = -((start - end) // step)
    else:
        n = builtins.int(math.ceil((end - start) / step))
    if not dt.is_floating_point and any(isinstance(v, builtins.float | np.floating) for v in (start, end, step)):
        # an integer dtype counts the elements from the float arguments, then steps from the truncated
        # start by the truncated step, as PyTorch 2.15: arange(-2.5, 3, 1.5, dtype=int64) is [-2, -1, 0, 1],
        # arange(0, 1, 0.1, dtype=int64) ten zeros
        start, step = builtins.int(start), builtins.int(step)
    if dt.is_floating_point or any(isinstance(v, builtins.float) for v in (start, end, step)):
        values = start + np.arange(n, dtype=np.float64) * step
    else:
        values = start + np.arange(n, dtype=np.int64) * step
    if out is None:
        return _from_host(values, dt, device, requires_grad)
    if out.numel() == n:  # PyTorch resizes only an out= of another number of elements: (2, 3) keeps its shape
        values = values.reshape(out._shape)
    elif out.numel():
        warnings.warn(f"The number of elements in the out tensor of shape {list(out._shape)} is {out.numel()} which "
                      f"does not match the computed number of elements {n}. Note that this may occur as a result of "
                      f"rounding error. The out tensor will be resized to a tensor of shape ({n},).")
    with np.errstate(invalid="ignore", over="ignore"):
        return _host_into(out, values.astype(dt.np), requires_grad)


def deprecated_range(start, end, step=1, *, dtype=None, device=None, requires_grad: bool = False,
                     out=None) -> Tensor:
    """PyTorch's deprecated ``torch.range`` (``tensorlab.range``): from ``start`` to ``end``
    *inclusive* every ``step``, in the default dtype whatever the arguments' types."""
    warnings.warn("tensorlab.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use tensorlab.arange, which produces values "
                  "in [start, end).", UserWarning, stacklevel=2)
    start, end, step = _scalar_value(start), _scalar_value(end), _scalar_value(step)
    for name, v in (("start", start), ("end", end), ("step", step)):
        if not isinstance(v, numbers.Real):
            raise TypeError(f"range(): {name} must be a number, got {type(v).__name__}")
        if not math.isfinite(v):
            raise RuntimeError(f"unsupported range: {start} -> {end}")
    dt = factory_out("range", out, dtype, device) if out is not None else (
        D.get_default_dtype() if dtype is None else D.as_dtype(dtype, "range"))
    if not dt.is_floating_point:  # (PyTorch's kernel takes the bounds and step in the dtype: truncated)
        start, end, step = builtins.int(start), builtins.int(end), builtins.int(step)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = builtins.int(math.floor((end - start) / step)) + 1
    exact_ints = not dt.is_floating_point and all(isinstance(v, numbers.Integral) for v in (start, end, step))
    values = start + np.arange(n, dtype=np.int64 if exact_ints else np.float64) * step
    if out is None:
        return _from_host(values, dt, device, requires_grad)
    if out.numel() != n and out.numel():
        warnings.warn(f"An output with one or more elements was resized since it had shape {list(out._shape)}, "
                      f"which does not match the required output shape [{n}].", UserWarning, stacklevel=2)
    return _host_into(out, values.astype(dt.np), requires_grad)


def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False, out=None) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (PyTorch's symmetric formula).
    ``out=``: the values in ``out``'s dtype, ``out`` resized to ``(steps,)``."""
    start, end, steps, dt = _spaced_arguments("linspace", start, end, steps, dtype, device, out)
    return _spaced_result(_linspace_values(start, end, steps, dt), dt, device, requires_grad, out)


def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None,
             requires_grad: bool = False, out=None) -> Tensor:
    """``base`` to the powers ``linspace(start, end, steps)``."""
    start, end, steps, dt = _spaced_arguments("logspace", start, end, steps, dtype, device, out)
    values = _logspace_values(float(base), start, end, steps, dt)
    if steps == 1 and not dt.is_floating_point:  # (PyTorch fills one value, checked as fill_ checks it)
        check_scalar_fits("logspace", float(values[0]), dt)
    return _spaced_result(values, dt, device, requires_grad, out)


def _logspace_values(base: float, start, end, steps: int, dt: D.dtype) -> np.ndarray:
    """PyTorch's logspace arithmetic, in float64: the exponents are linspace's halves (``start +
    step * i``, then ``end - step * (steps - 1 - i)``) from the ends converted to the dtype, with the
    step ``(end - start) / (steps - 1)`` subtracted in the dtype and each product rounded on its own
    (no fused multiply-add, unlike linspace: an exponent meant to be 0 stays 0, so ``10 ** 0`` is 1
    and not 0.99999 truncated to 0 in an integer dtype). One step is ``base ** start`` unconverted.
    The power is taken in extended precision and rounded once, as the C library's pow rounds it
    (NumPy's float64 power can be an ulp off: ``10 ** -5``)."""
    if steps == 0:
        return np.zeros(0)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if steps == 1:
            exponents = np.array([float(start)])
        else:
            if dt.is_floating_point:
                lo, hi = (np.asarray(float(v)).astype(dt.np) for v in (start, end))
                diff = float((hi - lo).astype(dt.np))
            else:  # integer ends (truncated, wrapped into the dtype), subtracted in int64
                lo, hi = (np.asarray(builtins.int(v)).astype(np.int64).astype(dt.np).astype(np.int64)
                          for v in (start, end))
                diff = float(hi - lo)
            lo, hi = float(lo), float(hi)
            step = diff / (steps - 1)
            i = np.arange(steps, dtype=np.float64)
            exponents = np.where(i < steps // 2, lo + step * i, hi - step * (steps - 1 - i))
        return np.power(np.longdouble(base), exponents.astype(np.longdouble)).astype(np.float64)


def _spaced_arguments(op: str, start, end, steps, dtype, device, out) -> tuple:
    """linspace/logspace's checks, in PyTorch's order: steps, the dtype (out='s), no bool, and both
    ends converting to the dtype (no wrapped or inf spacing)."""
    start, end = _scalar_value(start), _scalar_value(end)
    steps = operator.index(steps)
    if steps < 0:
        raise RuntimeError(f"{op}(): number of steps must be non-negative, got {steps}")
    if out is not None:
        dt = factory_out(op, out, dtype, device)
    else:
        dt = D.get_default_dtype() if dtype is None else D.as_dtype(dtype, op)
    if dt is D.bool:
        raise NotImplementedError(f"\"{op}_cpu\" not implemented for 'Bool'")
    # PyTorch converts the ends only when it steps between them: no steps checks neither, one step
    # only linspace's start, as its fill (an integer dtype's range; a float one overflows to inf);
    # logspace's one step checks base ** start, in logspace
    if steps > 1:
        for value in (start, end):
            check_scalar_fits(op, value, dt)
    elif steps == 1 and op == "linspace":
        check_scalar_fits(op, start, dt, floats=False)
    return start, end, steps, dt


def _spaced_result(values: np.ndarray, dt: D.dtype, device, requires_grad: bool, out) -> Tensor:
    if out is not None:
        if out.numel() == values.size:  # PyTorch resizes only an out= of another number of elements
            values = values.reshape(out._shape)  # (written in out's logical order, through its strides)
        with np.errstate(invalid="ignore", over="ignore"):
            return _host_into(out, values.astype(dt.np), requires_grad)
    return _from_host(values, dt, device, requires_grad)


def _linspace_values(start, end, steps: int, dt: D.dtype = D.float64) -> np.ndarray:
    """PyTorch's linspace arithmetic: the first half ``start + step * i``, the second ``end - step *
    (steps - 1 - i)``, each value rounded once (PyTorch's kernels fuse the multiply-add). A floating
    output takes the ends in its dtype and the step as PyTorch holds it (float32: ``(end - start) /
    (steps - 1)`` in float32 arithmetic; bfloat16: the float64 quotient rounded to float32; float16
    unrounded), the values computed in float64 (extended precision for a float64 output); an integer
    output the ends converted to it (truncated, wrapped) and a float64 step. (Checked against torch
    2.15 cpu: float64, float32 and bfloat16 agree to the bit, float16 but for 1 value in 4000.)"""
    if steps == 0:
        return np.zeros(0)
    if steps == 1:
        return np.array([float(start)])
    with np.errstate(over="ignore", invalid="ignore"):
        if dt.is_floating_point:
            work = np.longdouble if dt is D.float64 else np.float64
            start = np.asarray(float(start)).astype(dt.np).astype(np.float64)
            end = np.asarray(float(end)).astype(dt.np).astype(np.float64)
            step = (end - start) / (steps - 1)  # (in float64)
            if dt is D.float32:  # PyTorch's step is a float: end - start and the division rounded in float32
                step = ((end.astype(np.float32) - start.astype(np.float32)) / np.float32(steps - 1)).astype(np.float64)
            elif dt is D.bfloat16:
                step = step.astype(np.float32)
            start, end, step = start.astype(work), end.astype(work), step.astype(work)
        else:  # (the float64 step's multiply-add fused too: in extended precision, rounded once to float64,
            # then truncated, so 73 -> -181 in 7 int32 steps has -53 (end - step * 3 is -53.99999...), not -54)
            work = np.longdouble
            start = float(np.asarray(builtins.int(start)).astype(np.int64).astype(dt.np))
            end = float(np.asarray(builtins.int(end)).astype(np.int64).astype(dt.np))
            step = np.longdouble((end - start) / (steps - 1))
        i = np.arange(steps).astype(work)
        values = np.where(np.arange(steps) < steps // 2, start + step * i, end - step * (steps - 1 - i))
        return values.astype(dt.np if dt.is_floating_point else np.float64)


def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False,
        out=None) -> Tensor:
    """An ``n x m`` matrix with ones on the diagonal (``out=``: resized, in its dtype)."""
    n = operator.index(n)
    m = n if m is None else operator.index(m)
    if n < 0 or m < 0:
        raise RuntimeError(f"eye(): n and m must be non-negative, got n={n}, m={m}")
    if out is not None:
        _fill_out("eye", out, (n, m), 0, dtype, device, False)
        if n and m:
            with no_grad():
                fill_(out.diagonal(), 1)
        return _finish(out, requires_grad)
    t = zeros(n, m, dtype=dtype, device=device)
    if n and m:
        _raw_fill(t.diagonal(), 1)
    return _finish(t, requires_grad)


__all__ = [
    "arange", "as_tensor", "asarray", "empty", "empty_like", "eye", "fill_", "from_numpy", "full", "full_like",
    "linspace", "logspace", "ones", "ones_like", "tensor", "zero_", "zeros", "zeros_like",
]
