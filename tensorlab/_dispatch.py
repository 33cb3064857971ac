"""The dispatcher: op + inputs -> OpDef -> twin (cpu) or kernel (cuda) -> outputs -> tape.

One function, :func:`dispatch`, runs every op:

1. one device for all tensor inputs (a 0-d cpu tensor may join cuda tensors, as in PyTorch:
   it is copied there), else RuntimeError naming the op and both devices;
2. view ops get their new geometry from ``op.view`` and share storage;
3. compute ops ask ``op.meta`` for a :class:`Plan` (promotion, broadcasting, output shapes);
4. outputs are allocated, or ``out=`` is checked (device, castable dtype, resized with
   PyTorch's warning), or the in-place destination is checked (shape and dtype);
5. the twin runs on cpu, the kernel on cuda, with numpy arrays / DeviceArrays (an elementwise
   or replayable op on a GPU replays its launch when its key was seen: ``_replay``);
6. in-place and ``out=`` writes bump the version counter; the autograd hook records a node.

``TENSORLAB_DEBUG=1`` logs every dispatched op (name, shapes, dtypes, device, implementation);
the kernel layer logs the launch configuration of each Triton launch.
"""

from __future__ import annotations

import logging
import math
import os
import warnings

import numpy as np

from tensorlab_kernels.runtime import DeviceArray, copy_device_to_device
from tensorlab_kernels.runtime import allocate as _allocate

from . import _dtype as D
from . import _replay
from ._device import CPU, device
from ._registry import Geometry, OpDef, Plan, get_op
from ._storage import Storage, contiguous_strides, device_array, new_storage, numpy_view
from ._tensor import Tensor
from .autograd import graph as _graph
from .autograd.grad_mode import is_grad_enabled as _grad_enabled

log = logging.getLogger("tensorlab")
DEBUG = os.environ.get("TENSORLAB_DEBUG", "0") not in ("", "0")
if DEBUG and not log.handlers:
    logging.basicConfig(level=logging.DEBUG, format="[tensorlab] %(message)s")
    log.setLevel(logging.DEBUG)


# Set by tensorlab.amp while an autocast region is open: inputs are then cast by op kind first
AUTOCAST = False


def _autocast_inputs(op: OpDef, inputs) -> tuple:
    from .amp.autocast_mode import cast_inputs

    return cast_inputs(op, inputs)


def dispatch(op: OpDef | str, *inputs, out=None, inplace: bool = False, **params):
    if isinstance(op, str):
        op = get_op(op)
    if AUTOCAST and out is None and not inplace:
        inputs = _autocast_inputs(op, inputs)
    first = inputs[0] if inputs else None
    if not isinstance(first, Tensor) and not (isinstance(first, list | tuple) and "takes_list" in op.tags):
        raise TypeError(f"{op.name}(): argument 'input' (position 1) must be Tensor, not {type(first).__name__}")
    replay_key = None
    if op.replayable and out is None and not inplace:  # on a GPU, replayed when its key's launch is known
        found = _replay.find(op, inputs, params, _impl_arg)
        if found is not None:
            replay_key, replay_plan, requires_grad = found
            if replay_plan is not None:  # a known key: replayed, or the full path without recording
                result = (_replay.replay(replay_plan, first._storage.device, inputs, contiguous_tensor,
                                         new_tensor)
                          if replay_plan else None)
                if result is not None:
                    if requires_grad:
                        _record(op, inputs, result if result.__class__ is tuple else (result,), params,
                                requires_grad=requires_grad)
                    return result
                replay_key = None
    dev, mixed, requires_grad = _scan_inputs(op, inputs)
    if mixed:
        inputs = _cpu_scalars_to_device(op, inputs, dev, inplace)

    if op.view is not None:
        return _dispatch_view(op, inputs, params, requires_grad)
    if op.custom is not None:
        result = op.custom(*inputs, **params)
        outputs = result if isinstance(result, tuple) else (result,)
        _record(op, inputs, outputs, params, requires_grad=requires_grad)
        return result

    if inplace or out is not None:
        _check_autograd_write(op, inputs, out, inplace, requires_grad)
    plan: Plan = op.meta(*inputs, **params)
    impl = op.twin if dev.type == "cpu" else op.kernel
    if impl is None:
        what = "numpy twin" if dev.type == "cpu" else "cuda kernel"
        raise NotImplementedError(f"{op.name}: no {what} is implemented")

    if plan.outputs is None:
        if out is not None or inplace:
            raise NotImplementedError(f"{op.name}: out= and in-place are not supported for this op")
        arrays = [_impl_arg(a, dev) for a in plan.args]
        if DEBUG:
            _log(op, impl, dev, inputs, None)
        results = impl(*arrays, **plan.params)
        results = results if isinstance(results, tuple) else (results,)
        outputs = tuple(wrap_array(r, dev) for r in results)
    else:
        specs = plan.outputs
        # a tensor's array is cached (see _impl_arg); scalars pass as they are
        if out is None and not inplace and len(specs) == 1:  # the usual case: one new output
            spec = specs[0]  # (shape, dtype), or (shape, dtype, strides) laid out as the inputs
            o = empty_tensor(*spec, dev) if len(spec) == 2 else empty_tensor(spec[0], spec[1], dev, spec[2])
            outputs, write_back = (o,), None
            v = o._impl_view
            out_arrays = (v if v is not None else _impl_arg(o, dev),)
        else:
            outputs, write_back = _prepare_outputs(op, plan, dev, inputs, out, inplace)
            out_arrays = [o._impl_view if o._impl_view is not None else _impl_arg(o, dev)
                          for o in (write_back[1] if write_back else outputs)]
        arrays = []  # (a loop, not a comprehension: every op runs it, and a comprehension is a call)
        for a in plan.args:
            if a.__class__ is Tensor:
                v = a._impl_view
                arrays.append(v if v is not None else _impl_arg(a, dev))
            else:
                arrays.append(a if a.__class__ in _PLAIN else _impl_arg(a, dev))
        if DEBUG:
            _log(op, impl, dev, inputs, outputs)
        if replay_key is None:
            impl(*out_arrays, *arrays, **plan.params)
        else:  # record the launch, to replay it for the next call with this key
            with _replay.recording(replay_key, inputs, outputs, not (plan.single and len(outputs) == 1)):
                impl(*out_arrays, *arrays, **plan.params)
        if write_back:
            from ._copy_ops import copy_into

            for dst, tmp in zip(*write_back):
                copy_into(dst, tmp)
        if out is not None or inplace:
            for o in outputs:
                o._bump_version()

    if requires_grad:  # the tape only records ops with an input that requires grad
        if inplace:
            _record(op, inputs, outputs, params, inplace=True, requires_grad=requires_grad)
        elif out is None:
            _record(op, inputs, outputs, params, requires_grad=requires_grad)
    return outputs[0] if plan.single and len(outputs) == 1 else tuple(outputs)


# ----------------------------------------------------------------------------------------------
# devices
# ----------------------------------------------------------------------------------------------


def _scan_inputs(op: OpDef, inputs) -> tuple[device, bool, bool]:
    """One pass over the tensor inputs (the host cost of every op): their common device, whether
    a 0-d cpu tensor joins tensors of another device (it is then copied to that device), and
    whether any input requires grad.

    The usual case first: tensors and scalars only, every tensor's device the same object (as
    ``as_device`` hands out one object per device); anything else takes the full scan."""
    dev = None
    requires_grad = False
    for x in inputs:
        if isinstance(x, Tensor):
            if x._requires_grad or (x._view_version is not None and x._view_version != x._storage.version
                                    and _graph.promote_view(x)):
                requires_grad = True
            d = x._storage.device
            if d is not dev:
                if dev is not None:
                    return _scan_all(op, inputs)
                dev = d
        elif isinstance(x, list | tuple):
            return _scan_all(op, inputs)
    return (dev if dev is not None else CPU), False, requires_grad


def _scan_all(op: OpDef, inputs) -> tuple[device, bool, bool]:
    dev = None
    cpu_scalar = False  # ``dev`` so far comes from a 0-d cpu tensor
    mixed = requires_grad = False
    for item in inputs:  # tensors, and the tensors of list arguments (cat's)
        group = (item,) if isinstance(item, Tensor) else (item if isinstance(item, list | tuple) else ())
        for x in group:
            if not isinstance(x, Tensor):
                continue
            if x._requires_grad or (x._view_version is not None and x._view_version != x._storage.version
                                    and _graph.promote_view(x)):
                requires_grad = True
            d = x._storage.device
            if dev is None:
                dev = d
                cpu_scalar = d.type == "cpu" and not x._shape
            elif d is not dev and d != dev:
                # A 0-d cpu tensor may be used with tensors of another device (PyTorch's rule).
                if d.type == "cpu" and not x._shape:
                    mixed = True
                    continue
                if cpu_scalar:
                    dev, cpu_scalar, mixed = d, False, True
                    continue
                raise RuntimeError(
                    f"{op.name}: Expected all tensors to be on the same device, but found at least two devices, "
                    f"{dev} and {d}!"
                )
    return (dev if dev is not None else device("cpu")), mixed, requires_grad


def common_device(op: OpDef, inputs) -> device:
    """The device an op with these inputs runs on (RuntimeError naming both when they disagree)."""
    return _scan_inputs(op, inputs)[0]


def _iter_tensors(inputs):
    for x in inputs:
        if isinstance(x, Tensor):
            yield x
        elif isinstance(x, list | tuple):
            for y in x:
                if isinstance(y, Tensor):
                    yield y


def _is_cpu_scalar(x) -> bool:
    return isinstance(x, Tensor) and x.ndim == 0 and x._storage.device.type == "cpu"


def _cpu_scalars_to_device(op: OpDef, inputs, dev: device, inplace: bool):
    """A 0-d cpu tensor among tensors of ``dev`` is copied there as a 0-d tensor: it keeps its
    dtype and takes part in promotion as a 0-d tensor does on its own device (PyTorch's rule), so
    the result is the all-cpu result. (A Python scalar would lose the dtype: ``uint8 cuda - int32
    cpu 0-d`` would wrap in uint8.) The copy is differentiable. An in-place destination is
    never moved."""
    if inplace and _is_cpu_scalar(inputs[0]):
        raise RuntimeError(f"{op.name}_: Expected all tensors to be on the same device, but found at least two "
                           f"devices, {dev} and cpu!")
    return tuple(x.to(dev) if _is_cpu_scalar(x) else x for x in inputs)


# ----------------------------------------------------------------------------------------------
# arrays for the implementations
# ----------------------------------------------------------------------------------------------


_PLAIN = frozenset({int, float, bool, str, type(None)})


def _impl_arg(a, dev: device):
    if isinstance(a, Tensor):
        # A tensor's geometry never changes (``.data =`` and resizing reset the cache), so its
        # numpy view / DeviceArray is built once. Implementations never mutate these objects.
        v = a._impl_view
        if v is None:
            if dev.type != "cpu":
                return a._device_array()  # (made and cached there)
            v = a._impl_view = numpy_view(a._storage, a._shape, a._stride, a._offset, a.dtype.np)
        return v
    if isinstance(a, Geometry):
        t = a.tensor
        if dev.type == "cpu":
            return numpy_view(t._storage, a.shape, a.strides, a.offset, t.dtype.np)
        return device_array(t._storage, a.shape, a.strides, a.offset, t.dtype.np)
    if isinstance(a, list | tuple) and a and any(isinstance(x, Tensor | Geometry) for x in a):
        return type(a)(_impl_arg(x, dev) for x in a)
    return a


def wrap_array(arr, dev: device) -> Tensor:
    """A Tensor over an array an implementation returned (numpy on cpu, DeviceArray on cuda)."""
    from ._storage import Storage, cpu_storage_from_array

    if dev.type == "cpu":
        import numpy as np

        arr = np.asarray(arr)
        if not arr.flags.c_contiguous or any(s < 0 for s in arr.strides):
            arr = np.ascontiguousarray(arr)
        storage, strides, offset = cpu_storage_from_array(arr)
        return Tensor._make(storage, tuple(arr.shape), strides, offset, D.from_numpy_dtype(arr.dtype))
    storage = Storage(dev, arr.storage, arr.storage.nbytes if arr.storage is not None else 0)
    return Tensor._make(storage, tuple(arr.shape), tuple(arr.strides), arr.offset, D.from_numpy_dtype(arr.dtype))


def empty_tensor(shape: tuple, dtype: D.dtype, dev: device, strides: tuple | None = None) -> Tensor:
    """A new tensor; contiguous, or dense with ``strides`` (an output laid out as its inputs, by
    ``_layout``'s rules; an op's output spec ``(shape, dtype, strides)``)."""
    shape = tuple(shape)
    if strides is None:
        return contiguous_tensor(shape, contiguous_strides(shape), math.prod(shape), dtype, dev)
    return new_tensor(shape, strides, math.prod(shape), dtype, dev)


def contiguous_tensor(shape: tuple, strides: tuple, numel: int, dtype: D.dtype, dev: device) -> Tensor:
    """:func:`empty_tensor` with its layout already known (``strides``: ``shape``'s contiguous
    strides)."""
    np_dtype = dtype.np
    if dev.type != "cuda":
        return Tensor._make(new_storage(numel, np_dtype, dev), shape, strides, 0, dtype)
    # (new_storage and device_array written out: every op's output on a GPU comes through here)
    nbytes = numel * np_dtype.itemsize
    memory = _allocate(nbytes, dev.index)
    t = Tensor._make(Storage(dev, memory, nbytes), shape, strides, 0, dtype)
    t._impl_view = DeviceArray.at_start(memory, shape, strides, np_dtype, True)  # (the kernel's array)
    return t


def new_tensor(shape: tuple, strides: tuple, numel: int, dtype: D.dtype, dev: device) -> Tensor:
    """A new dense tensor of ``numel`` elements laid out by ``strides``, contiguous or not (a
    replayed op's recorded output layout, ``_replay``)."""
    if strides == contiguous_strides(shape):
        return contiguous_tensor(shape, strides, numel, dtype, dev)
    storage = new_storage(numel, dtype.np, dev)
    t = Tensor._make(storage, shape, strides, 0, dtype)
    if dev.type == "cuda":  # (the replay path reads the array's address)
        t._impl_view = DeviceArray.at_start(storage.data, shape, strides, dtype.np, False)
    return t


# ----------------------------------------------------------------------------------------------
# outputs: allocate, out=, in-place
# ----------------------------------------------------------------------------------------------


def _check_no_internal_overlap(op_name: str, dst: Tensor) -> None:
    """An in-place or out= destination must not have elements that share memory (an expanded
    tensor): which write would win is undefined. PyTorch's check and message. An empty tensor
    writes nothing, whatever its strides (numpy gives ``np.zeros((0, 3))`` strides (0, 0))."""
    if 0 in dst._shape:
        return
    for n, s in zip(dst._shape, dst._stride):
        if s == 0 and n > 1:
            raise RuntimeError(
                f"{op_name}: unsupported operation: more than one element of the written-to tensor refers to a "
                "single memory location. Please clone() the tensor before performing the operation."
            )


# PyTorch's TensorIterator ops, and the others that assert no partial overlap (scans, sort, max(dim))
_PARTIAL_OVERLAP_CHECKED = frozenset({"elementwise", "copy", "no_partial_overlap"})


def _dense_byte_range(shape, strides, offset: int, itemsize: int):
    """[start, end) in bytes of a view whose elements fill that range exactly once (PyTorch's
    non-overlapping and dense), else None (PyTorch calls the overlap of such views too hard)."""
    expected = 1
    n = 1
    for size, stride in sorted(((n_, s_) for n_, s_ in zip(shape, strides) if n_ != 1), key=lambda d: d[1]):
        if stride != expected:
            return None
        expected *= size
        n *= size
    if n == 0:
        return None
    return offset * itemsize, (offset + n) * itemsize


def _check_no_partial_overlap(op_name: str, dst: Tensor, src, src_geometry) -> None:
    """An input that shares the destination's storage must be the destination itself or lie
    elsewhere in the storage: PyTorch refuses a partial overlap of two dense views
    (``x[1:].copy_(x[:-1])``, ``add(x[:-1], 1, out=x[1:])``) rather than let the result depend on
    the order of the writes. Only called when the storages are the same object."""
    shape, strides, offset = src_geometry
    if (shape, strides, offset) == (dst._shape, dst._stride, dst._offset) and src.dtype.itemsize == dst.dtype.itemsize:
        return  # the destination itself (``x.copy_(x)``): each element is read before it is written
    a = _dense_byte_range(dst._shape, dst._stride, dst._offset, dst.dtype.itemsize)
    b = _dense_byte_range(shape, strides, offset, src.dtype.itemsize)
    if a is not None and b is not None and a[0] < b[1] and b[0] < a[1]:
        raise _overlap_error(op_name)


def _overlap_error(op_name: str) -> RuntimeError:
    return RuntimeError(
        f"{op_name}: unsupported operation: some elements of the input tensor and the written-to tensor refer "
        "to a single memory location. Please clone() the tensor before performing the operation."
    )


def _flat(args) -> list:
    """The arguments with list arguments (cat's tensors) spread out, in order."""
    return [b for a in args for b in (a if isinstance(a, list | tuple) else (a,))]


def check_no_overlap(op_name: str, dst: Tensor, inputs, base_first: bool) -> None:
    """PyTorch's assert_no_overlap, for the ops tagged ``no_input_overlap`` (index_copy_, scatter_,
    gather's out=, cat's out=, ...): an input tensor that shares memory with the destination, the
    whole of it (``x.index_copy_(0, i, x)``) or part (``x[:2].scatter_(0, i, x[1:3])``), is refused,
    since the result would depend on the order of the kernel's reads and writes. ``base_first``:
    the first input is the base the result starts from (in place: the destination itself; with
    out=, copied into it first), which may be the destination but not a part of it. Views too
    hard to compare (not dense: an expanded source) pass, as in PyTorch."""
    if dst.numel() == 0:
        return
    for k, t in enumerate(_flat(inputs)):
        if not isinstance(t, Tensor) or t._storage.data is not dst._storage.data or t.numel() == 0:
            continue
        if ((t._shape, t._stride, t._offset) == (dst._shape, dst._stride, dst._offset)
                and t.dtype.itemsize == dst.dtype.itemsize):
            if k == 0 and base_first:
                continue
            raise _overlap_error(op_name)  # the whole destination
        _check_no_partial_overlap(op_name, dst, t, (t._shape, t._stride, t._offset))  # a part of it


def check_outs_apart(op_name: str, outs) -> None:
    """The out= tensors of an op with several results (values and indices) must not share memory:
    one result would overwrite the other (PyTorch's aminmax refuses it; its max/sort/topk leave
    whichever kernel wrote last). Views too hard to compare (not dense) pass, as in PyTorch."""
    for i, a in enumerate(outs):
        for b in outs[i + 1:]:
            if not (isinstance(a, Tensor) and isinstance(b, Tensor)) or a._storage.data is not b._storage.data:
                continue
            if a.numel() == 0 or b.numel() == 0:
                continue
            ra = _dense_byte_range(a._shape, a._stride, a._offset, a.dtype.itemsize)
            rb = _dense_byte_range(b._shape, b._stride, b._offset, b.dtype.itemsize)
            same = a is b or (a._shape, a._stride, a._offset) == (b._shape, b._stride, b._offset)
            if same or (ra is not None and rb is not None and ra[0] < rb[1] and rb[0] < ra[1]):
                raise ValueError(f"{op_name}(): the out= tensors must not overlap.")


def _prepare_outputs(op: OpDef, plan: Plan, dev: device, inputs, out, inplace):
    """Returns (outputs, write_back). ``write_back`` is (destinations, temporaries) when the
    implementation must write to temporaries first (the destination overlaps an input)."""
    specs = plan.outputs
    if inplace:
        dst = inputs[0]
        shape, dtype = specs[0][:2]
        if "same_value_writes" not in op.tags:
            _check_no_internal_overlap(f"{op.name}_", dst)
        if tuple(shape) != dst._shape:
            raise RuntimeError(
                f"{op.name}_: output with shape {list(dst._shape)} doesn't match the broadcast shape {list(shape)}"
            )
        _check_cast(op, dtype, dst.dtype)
        outs = (dst,)
    elif out is not None:
        outs = out if isinstance(out, tuple | list) else (out,)
        if len(outs) != len(specs):
            raise TypeError(f"{op.name}(): out= expects {len(specs)} tensors, got {len(outs)}")
        if len(outs) > 1:
            check_outs_apart(op.name, outs)
        for o, (shape, dtype, *strides) in zip(outs, specs):
            if not isinstance(o, Tensor):
                raise TypeError(f"{op.name}(): out= must be a Tensor, got {type(o).__name__}")
            if o.device != dev:
                raise RuntimeError(f"{op.name}(): out= is on {o.device}, but the inputs are on {dev}")
            _check_cast(op, dtype, o.dtype)
            _check_no_internal_overlap(op.name, o)
            if o._shape != tuple(shape):
                # resizing it would change what the op reads (as PyTorch); cat's list is looked into
                if any(o is a or (a.__class__ is list or a.__class__ is tuple) and any(o is b for b in a)
                       for a in inputs):
                    raise RuntimeError(f"{op.name}(): output with shape {list(o._shape)} doesn't match the "
                                       f"broadcast shape {list(shape)}")
                if not op.tags.isdisjoint(_PARTIAL_OVERLAP_CHECKED):
                    # PyTorch checks the overlap before it resizes: add(b, a, out=b[0]) is refused
                    # (resized, b[0] would become b and the write silently replace the input)
                    for t in _flat(inputs):
                        if isinstance(t, Tensor) and t._storage.data is o._storage.data:
                            _check_no_partial_overlap(op.name, o, t, (t._shape, t._stride, t._offset))
                if o.numel() != 0:
                    warnings.warn(
                        f"{op.name}(): An output with one or more elements was resized since it had shape "
                        f"{list(o._shape)}, which does not match the required output shape {list(shape)}."
                    )
                _resize_(o, tuple(shape), strides[0] if strides else None)
        outs = tuple(outs)
    else:  # (one new output: allocated by dispatch itself)
        return tuple(empty_tensor(spec[0], spec[1], dev, *spec[2:]) for spec in specs), None

    if "no_input_overlap" in op.tags:
        for o in outs:
            check_no_overlap(f"{op.name}_" if inplace else op.name, o, inputs,
                             base_first=inplace or "inplace_safe" in op.tags)
    # Writing into a tensor that an input also reads: safe only for ops tagged inplace_safe
    # with the identical geometry (elementwise); otherwise go through a temporary.
    needs_temp = []
    if out is not None:
        # PyTorch computes in the result dtype and then casts into out=: an out= of another dtype
        # gets the result through a temporary of the result dtype, then converted (add(bool, bool,
        # out=int64) is 1, mul(half 300, half 300, out=float32) is inf; sort's kernels, which move
        # raw bits, would write float32 bits into a float64 out). In place needs none: the result
        # dtype is then the destination's or wider (or bool), and the elementwise kernels' store
        # converts the computed value as that cast does (half_t.add_(float_t) computes in float32,
        # then rounds once).
        needs_temp = [o for o, (_, dtype, *_) in zip(outs, specs) if o.dtype is not dtype]
    # List arguments (cat's tensors) are checked element by element.
    flat_args = _flat(plan.args)
    for o in outs:  # (an output listed twice is harmless: membership is by identity)
        for a in flat_args:
            t = a.tensor if isinstance(a, Geometry) else a
            # the same memory: one storage, or a .data alias of it (rare: the cheap test comes first)
            if isinstance(t, Tensor) and t._storage.data is o._storage.data:
                # (a Geometry of the same layout counts too: masked_fill_'s self, broadcast to its own shape)
                # (same geometry in elements of another size, a view(dtype), is other bytes)
                same = t.dtype.itemsize == o.dtype.itemsize and (
                    a._shape == o._shape and a._stride == o._stride and a._offset == o._offset
                    if isinstance(a, Tensor) else
                    a.shape == o._shape and a.strides == o._stride and a.offset == o._offset)
                if not same and not op.tags.isdisjoint(_PARTIAL_OVERLAP_CHECKED):
                    # (the tensor's own layout, not a broadcast Geometry of it: ``x += x[0]`` reads
                    # the dense row x[0], which the write to x overlaps; PyTorch checks the input)
                    _check_no_partial_overlap(f"{op.name}_" if inplace else op.name, o, t,
                                              (t._shape, t._stride, t._offset))
                if not (same and "inplace_safe" in op.tags):
                    needs_temp.append(o)
                    break
    if needs_temp:
        temps = tuple(empty_tensor(o._shape, dtype, dev) if any(o is t for t in needs_temp) else o
                      for o, (_, dtype, *_) in zip(outs, specs))  # identity: Tensor.__eq__ is elementwise
        return outs, (outs, temps)
    return outs, None


def _check_cast(op: OpDef, result: D.dtype, target: D.dtype) -> None:
    if not D.can_cast(result, target):
        raise RuntimeError(
            f"{op.name}: result type {result.name} can't be cast to the desired output type {target.name}"
        )


def _resize_(t: Tensor, shape: tuple, strides: tuple | None = None, keep_contents: bool = False) -> None:
    """PyTorch's resize of an ``out=`` tensor: contiguous at ``shape`` (or dense with ``strides``:
    the layout the op gives a new output, which PyTorch restrides a resized ``out=`` to) from its
    storage offset, in its own storage when that holds enough elements (so ``ones(3, out=x[0])``
    writes into ``x``, as in PyTorch), else in a new storage (PyTorch grows the shared storage,
    which every view of it then sees; tensorlab's views cache their arrays, so only ``t`` moves to
    the new one). ``keep_contents`` (``Tensor.resize_``): the new storage starts with the old one's
    bytes and ``t`` keeps its offset, as PyTorch's grown storage does."""
    numel = math.prod(shape)
    strides = contiguous_strides(shape) if strides is None else strides
    old = t._storage
    if (t._offset + numel) * t.dtype.itemsize <= old.nbytes:
        t._shape, t._stride = shape, strides
    elif not keep_contents:
        storage = new_storage(numel, t.dtype.np, t.device)
        storage.version = old.version
        t._storage, t._shape, t._stride, t._offset = storage, shape, strides, 0
    else:
        storage = new_storage(t._offset + numel, t.dtype.np, t.device)
        if old.nbytes:
            if t.device.type == "cpu":
                storage.data.view(np.uint8)[:old.nbytes] = old.data.view(np.uint8)[:old.nbytes]
            else:
                copy_device_to_device(storage.data, 0, old.data, 0, old.nbytes)
        storage.version = old.version
        t._storage, t._shape, t._stride = storage, shape, strides
    t._impl_view = None


# ----------------------------------------------------------------------------------------------
# views
# ----------------------------------------------------------------------------------------------


def _dispatch_view(op: OpDef, inputs, params, requires_grad: bool):
    x = inputs[0]
    shape, strides, offset = op.view(x._shape, x._stride, x._offset, *inputs[1:], **params)
    v = Tensor._make(x._storage, tuple(shape), tuple(strides), offset, x.dtype)
    v._base = x if x._base is None else x._base
    if DEBUG:
        log.debug("%s view %s -> %s device=%s", op.name, list(x._shape), list(shape), x.device)
    if requires_grad:
        _record(op, inputs, (v,), params, requires_grad=True)
        if v.grad_fn is not None:
            v._view_version = x._storage.version
    elif _grad_enabled():  # the base may come to require grad by an in-place write: autograd.graph.promote_view
        v._view_version = x._storage.version
    return v


# ----------------------------------------------------------------------------------------------
# autograd hook
# ----------------------------------------------------------------------------------------------


def _check_autograd_write(op: OpDef, inputs, out, inplace: bool, requires_grad: bool | None = None) -> None:
    """Refuse, before anything is written, the writes autograd cannot follow."""
    if not _grad_enabled():
        return
    if inplace:
        check_inplace_autograd(f"{op.name}_", inputs[0])
    elif op.backward is not None and ((_any_requires_grad(inputs) if requires_grad is None else requires_grad)
                                      or _any_requires_grad(
            out if isinstance(out, tuple | list) else (out,))):
        raise RuntimeError(
            f"{op.name}(): functions with out=... arguments don't support automatic differentiation, "
            "but one of the arguments requires grad."
        )


def check_inplace_autograd(name: str, dst: Tensor) -> None:
    """PyTorch's refusal to write in place into a leaf that requires grad (or a view of one), with
    grad mode on; ``name``: the in-place op (``add_``). Also called by in-place ops that compute
    out of place and copy (``elementwise_common.inplace_composite``), so the error names them."""
    made_by = dst._custom_function_view
    if made_by is not None and dst._requires_grad:
        raise RuntimeError(
            f"Output {made_by[0]} of {made_by[1]} is a view and is being modified inplace. This view "
            "was created inside a custom Function (or because an input was returned as-is) and the autograd logic to "
            "handle view+inplace would override the custom backward associated with the custom Function, leading "
            "to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the custom "
            "Function.")
    if dst._view_version is not None and not dst._requires_grad:
        _graph.promote_view(dst)  # (a view whose base came to require grad is not a no_grad view)
    if dst._base is not None and dst._base._requires_grad and not dst._requires_grad:
        # a view of a tensor that requires grad which does not itself: made under no_grad (PyTorch's
        # refusal: the write would change the base behind autograd's back)
        raise RuntimeError(
            f"{name}: A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
            "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
            "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
            "inplace to be tracked) or both outside (if you want the inplace to be tracked).")
    if dst._requires_grad and dst.grad_fn is None:
        raise RuntimeError(f"{name}: a leaf Variable that requires grad is being used in an in-place operation.")
    if dst._base is not None and dst._base._requires_grad and dst._base.grad_fn is None:
        raise RuntimeError(
            f"{name}: a view of a leaf Variable that requires grad is being used in an in-place operation.")


def _any_requires_grad(inputs) -> bool:
    return any(t._requires_grad for t in _iter_tensors(inputs))


def _record(op: OpDef, inputs, outputs, params, inplace: bool = False, requires_grad: bool | None = None) -> None:
    """Hand the op to the tape when grad mode is on and an input requires grad (``requires_grad``:
    already known from :func:`_scan_inputs`)."""
    if op.backward is None or not _grad_enabled():
        return
    if not (_any_requires_grad(inputs) if requires_grad is None else requires_grad):
        return
    _graph.record(op, inputs, outputs, params, inplace=inplace)


def _log(op: OpDef, impl, dev, inputs, outputs) -> None:
    def desc(x):
        if isinstance(x, Tensor):
            return f"{x.dtype.name}{list(x._shape)}"
        return repr(x) if not isinstance(x, list | tuple) else f"[{len(x)} items]"

    log.debug(
        "%s device=%s impl=%s.%s inputs=(%s) outputs=(%s)", op.name, dev, getattr(impl, "__module__", "?"),
        getattr(impl, "__name__", "?"), ", ".join(desc(x) for x in inputs),
        ", ".join(desc(o) for o in outputs) if outputs else "allocated by impl",
    )


__all__ = ["Plan", "Geometry", "dispatch", "common_device", "empty_tensor", "wrap_array"]
