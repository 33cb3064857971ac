"""Copies: ``clone``, ``contiguous``, dtype conversion, device transfer, ``copy_``, pinned memory.

All of them run on the one strided copy/cast kernel (``tensorlab_kernels.copy``) and its twin;
device transfers move contiguous bytes and use the kernel on the device side to gather a
non-contiguous source first.
"""

from __future__ import annotations

import threading

import numpy as np

from tensorlab_kernels import copy as kcopy
from tensorlab_kernels import runtime as rt

from . import _dtype as D
from ._broadcast import broadcast_geometry
from ._device import CPU, as_device
from ._dispatch import dispatch, empty_tensor
from ._layout import (
    contiguous_format,
    format_strides,
    is_in_format,
    non_overlapping_and_dense,
    preserve_format,
    suggest_memory_format,
)
from ._registry import Plan, defop
from ._storage import Storage, contiguous_strides, new_storage, numpy_view
from ._tensor import Tensor, tensor_method
from .autograd.grad_mode import no_grad

# ----------------------------------------------------------------------------------------------
# op declarations
# ----------------------------------------------------------------------------------------------


def _same_shape_meta(x: Tensor, dtype: D.dtype | None = None, memory_format=None) -> Plan:
    """A copy of ``x`` (in ``dtype``), laid out as ``memory_format`` asks: by default as ``x`` is
    (PyTorch's ``preserve_format``: a transposed tensor's copy is transposed)."""
    dtype = x.dtype if dtype is None else dtype
    strides = format_strides("clone", x._shape, memory_format, x)
    return Plan(args=[x], outputs=[(x._shape, dtype) if strides is None else (x._shape, dtype, strides)])


CLONE = defop(
    "clone",
    twin=kcopy.strided_copy_twin,
    kernel=kcopy.strided_copy,
    meta=lambda x, memory_format=None: _same_shape_meta(x, memory_format=memory_format),
    backward=lambda ctx, g: (g,),
    save=lambda ctx, inputs, outputs, params: None,
    tags={"copy"},
    doc="A copy of the input, laid out as memory_format asks (by default as the input).",
)


def _convert_backward(ctx, g):
    src = ctx.inputs[0]
    return (g.to(src.dtype) if src.dtype.is_floating_point else None,)


CONVERT = defop(
    "_to_dtype",
    twin=kcopy.strided_copy_twin,
    kernel=kcopy.strided_copy,
    meta=lambda x, dtype, memory_format=None: _same_shape_meta(x, dtype, memory_format),
    backward=_convert_backward,
    save=lambda ctx, inputs, outputs, params: None,
    tags={"copy"},
    doc="Conversion to another dtype (a copy laid out as memory_format asks; by default as the input).",
)


def _copy_meta(dst: Tensor, src: Tensor, non_blocking: bool = False) -> Plan:
    return Plan(args=[broadcast_geometry(src, dst._shape, "copy_")], outputs=[(dst._shape, dst.dtype)])


def _copy_backward(ctx, g):
    src = ctx.inputs[1]
    g_src = None
    if ctx.needs_input_grad[1]:
        g_src = g.sum_to_size(src.shape) if tuple(src.shape) != tuple(g.shape) else g
        g_src = g_src.to(src.dtype)
    g_dst = None
    if ctx.needs_input_grad[0]:
        from ._factories import zeros_like

        g_dst = zeros_like(g)
    return g_dst, g_src


COPY_ = defop(
    "copy",
    twin=kcopy.strided_copy_twin,
    kernel=kcopy.strided_copy,
    meta=_copy_meta,
    backward=_copy_backward,
    save=lambda ctx, inputs, outputs, params: None,
    tags={"copy", "inplace_safe"},
    doc="dst.copy_(src): broadcast, cast and write src into dst.",
)


def _as_strided_scatter_meta(x: Tensor, src: Tensor, size, stride, storage_offset=None) -> Plan:
    size, stride = tuple(size), tuple(stride)
    offset = 0 if storage_offset is None else storage_offset
    _check_in_bounds("as_strided_scatter", x.numel(), size, stride, offset)
    if tuple(src._shape) != size:
        raise RuntimeError(f"as_strided_scatter: src has shape {list(src._shape)}, expected {list(size)}")
    return Plan(args=[x, src], outputs=[(x._shape, x.dtype)],
                params={"size": size, "stride": stride, "storage_offset": offset})


def region_write_grads(g, size, stride, offset: int, needs_input_grad) -> tuple:
    """Gradients of ``out = base with the region base.as_strided(size, stride, offset) := src``
    for a contiguous base (as_strided_scatter; in-place writes into a view, autograd's CopySlices):
    ``(g with the region zeroed, g's region)``, each None when not needed. The region's offset
    counts from g's first element: g may start inside its storage (cat's backward hands out such
    views)."""
    g = g.contiguous()
    g_src = g.as_strided(size, stride, g._offset + offset) if needs_input_grad[1] else None
    g_base = None
    if needs_input_grad[0]:
        from ._factories import zeros

        g_base = as_strided_scatter(g, zeros(size, dtype=g.dtype, device=g.device), size, stride, offset)
    return g_base, g_src


def _as_strided_scatter_backward(ctx, g):
    p = ctx.params  # (storage_offset None: the input's first element)
    return region_write_grads(g, p["size"], p["stride"], p["storage_offset"] or 0, ctx.needs_input_grad)


AS_STRIDED_SCATTER = defop(
    "as_strided_scatter",
    twin=kcopy.as_strided_scatter_twin,
    kernel=kcopy.as_strided_scatter,
    meta=_as_strided_scatter_meta,
    backward=_as_strided_scatter_backward,
    save=lambda ctx, inputs, outputs, params: None,
    tags={"copy"},
    doc="input (made contiguous) with the region as_strided(size, stride, storage_offset) replaced by src.",
)


def _check_in_bounds(op: str, numel: int, size, stride, offset: int) -> None:
    if any(s < 0 for s in size):
        raise RuntimeError(f"{op}: negative size in {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"{op}: negative strides are not supported, got {list(stride)}")
    if offset < 0:
        raise RuntimeError(f"{op}: negative storage offset {offset}")
    if all(s > 0 for s in size):
        last = offset + sum((n - 1) * st for n, st in zip(size, stride))
        if last >= numel:
            raise RuntimeError(
                f"{op}: setStorage: sizes {list(size)}, strides {list(stride)}, storage offset {offset} require "
                f"{last + 1} elements, but the storage has only {numel}"
            )


# ----------------------------------------------------------------------------------------------
# device transfer (a custom op: it spans two devices)
# ----------------------------------------------------------------------------------------------

_pending_lock = threading.Lock()
_pending_async: list = []  # (event, keep-alive) for non-blocking copies from pinned memory


def _retire_pending() -> None:
    with _pending_lock:
        _pending_async[:] = [(e, k) for e, k in _pending_async if not e.query()]


def host_copy(x: Tensor) -> np.ndarray:
    """A numpy array with the values of the cuda tensor ``x``, copied straight from its memory (a
    non-contiguous ``x`` is made contiguous on the device first). ``.item()``, ``.tolist()``,
    ``numpy()`` and the loss functions' target checks read device values this way (``.cpu()``
    keeps the layout: ``_to_device_impl``)."""
    with no_grad():
        src = x if x.is_contiguous() else clone(x, memory_format=contiguous_format)
    host = np.empty(src._shape, src.dtype.np)
    rt.copy_device_to_host(host.reshape(-1).view(np.uint8), src._storage.data, src._offset * src.dtype.itemsize)
    return host


def _dense_block(x: Tensor) -> Tensor:
    """``x`` itself when its elements fill one block of memory from its offset (PyTorch's
    non-overlapping and dense), else a copy laid out as ``clone`` lays it out, which does. A device
    transfer copies that block as it is, so the result keeps the block's strides: ``x.t().cuda()``
    has ``x.t()``'s strides, as PyTorch's ``_to_copy`` with ``preserve_format``."""
    if x.numel() != 0 and non_overlapping_and_dense(x._shape, x._stride):
        return x
    with no_grad():
        return clone(x) if x.numel() != 0 else clone(x, memory_format=contiguous_format)


def _to_device_impl(x: Tensor, device, non_blocking: bool = False) -> Tensor:
    dev = as_device(device)
    src = _dense_block(x)
    nbytes = src.numel() * src.dtype.itemsize
    if dev.type == "cpu":  # cuda -> cpu
        host = np.empty(src.numel(), src.dtype.np)
        rt.copy_device_to_host(host.view(np.uint8), src._storage.data, src._offset * src.dtype.itemsize,
                               non_blocking=non_blocking)
        return Tensor._make(Storage(CPU, host, nbytes), src._shape, src._stride, 0, src.dtype)
    if src.is_cpu:  # cpu -> cuda
        # (the block's bytes, read as the tensor's dtype: the storage's array may hold another, view(dtype))
        host = numpy_view(src._storage, (src.numel(),), (1,), src._offset, src.dtype.np)
        out = empty_tensor(src._shape, src.dtype, dev, src._stride)
        pinned = getattr(src._storage, "owner", None) is not None and isinstance(src._storage.owner, rt.PinnedBuffer)
        rt.copy_host_to_device(out._storage.data, 0, host.view(np.uint8), non_blocking=non_blocking and pinned)
        if non_blocking and pinned:
            _retire_pending()
            ev = rt.Event()
            ev.record(rt.current_stream(dev.index))
            with _pending_lock:
                _pending_async.append((ev, src._storage))
        return out
    # cuda:i -> cuda:j: through the host (peer copies are not wired up yet)
    return _to_device_impl(_to_device_impl(src, CPU), dev, non_blocking)


def _to_device_backward(ctx, g):
    return (g.to(ctx.inputs[0].device),)


TO_DEVICE = defop(
    "_to_device",
    custom=_to_device_impl,
    backward=_to_device_backward,
    save=lambda ctx, inputs, outputs, params: None,
    tags={"copy"},
    doc="Copy to another device.",
)


# ----------------------------------------------------------------------------------------------
# public functions and methods
# ----------------------------------------------------------------------------------------------


@tensor_method
def clone(input: Tensor, *, memory_format=preserve_format) -> Tensor:
    """A copy with its own memory, laid out as ``input`` (or as ``memory_format`` asks);
    gradients flow back unchanged."""
    if memory_format is preserve_format:
        return dispatch(CLONE, input)
    return dispatch(CLONE, input, memory_format=memory_format)


@tensor_method
def contiguous(input: Tensor, memory_format=contiguous_format) -> Tensor:
    """``input`` itself when already contiguous (in ``memory_format``), else a copy that is."""
    if memory_format is preserve_format:
        raise RuntimeError("contiguous(): preserve memory format is unsupported by the contiguous operator")
    if is_in_format(input._shape, input._stride, memory_format):
        return input
    return dispatch(CLONE, input, memory_format=memory_format)


@tensor_method
def copy_(self: Tensor, src, non_blocking: bool = False) -> Tensor:
    """Write ``src`` into ``self`` (broadcast, cast, from any device); returns ``self``."""
    if not isinstance(src, Tensor):
        from ._factories import tensor

        src = tensor(src, dtype=self.dtype)
    if src.device != self.device:
        broadcast_geometry(src, self._shape, "copy_")  # check shapes before moving anything
        src = src.to(self.device, non_blocking=non_blocking)
    return dispatch(COPY_, self, src, inplace=True)


def copy_into(dst: Tensor, src: Tensor) -> None:
    """Raw copy of ``src`` into ``dst`` (same device), no autograd, no version bump."""
    impl = kcopy.strided_copy_twin if dst.is_cpu else kcopy.strided_copy
    from ._dispatch import _impl_arg

    impl(_impl_arg(dst, dst.device), _impl_arg(broadcast_geometry(src, dst._shape, "copy_"), dst.device))


@tensor_method
def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset=None) -> Tensor:
    """PyTorch's: ``out = input.clone()`` (laid out as ``input``, ``preserve_format``), then
    ``out.as_strided(size, stride, storage_offset).copy_(src)``, positions in ``out``'s storage."""
    from ._layout import preserve_strides

    size, stride = tuple(size), tuple(stride)
    layout = preserve_strides(input) if isinstance(input, Tensor) else None
    if layout is None:  # contiguous: the op's own geometry
        return dispatch(AS_STRIDED_SCATTER, input, src, size=size, stride=stride, storage_offset=storage_offset)
    # another layout: scatter into the input with its dims in storage order (slowest first), then put
    # the dims back, so that the result has the clone's strides and the positions its storage's
    order = sorted(range(input.ndim), key=lambda d: -layout[d])
    back = [order.index(d) for d in range(input.ndim)]
    flat = dispatch(AS_STRIDED_SCATTER, input.permute(order).contiguous(), src, size=size, stride=stride,
                    storage_offset=storage_offset)
    return flat.permute(back)


def to_dtype_device(x: Tensor, dev, dtype: D.dtype, non_blocking: bool = False, copy: bool = False,
                    memory_format=preserve_format) -> Tensor:
    """``Tensor.to``: ``x`` itself when nothing changes (as PyTorch: also for a ``memory_format``
    that ``x``'s strides already look like, ``suggest_memory_format``), else a copy laid out as
    ``memory_format`` asks (a device transfer's is contiguous)."""
    keep = memory_format is preserve_format
    if dev == x.device and dtype is x.dtype:
        if not copy and (keep or suggest_memory_format(x._shape, x._stride) is memory_format):
            return x
        return clone(x, memory_format=memory_format)
    if dev == x.device:
        if keep:
            return dispatch(CONVERT, x, dtype=dtype)
        return dispatch(CONVERT, x, dtype=dtype, memory_format=memory_format)
    # Convert on whichever side moves fewer bytes.
    if dtype is not x.dtype and dtype.itemsize < x.dtype.itemsize:
        x = dispatch(CONVERT, x, dtype=dtype)
    x = dispatch(TO_DEVICE, x, device=dev, non_blocking=non_blocking)
    if dtype is not x.dtype:
        x = dispatch(CONVERT, x, dtype=dtype)
    if not keep:  # (a transfer's result is contiguous)
        x = contiguous(x, memory_format=memory_format)
    return x


@tensor_method
def pin_memory(self: Tensor) -> Tensor:
    """A cpu copy in page-locked memory, so ``.to('cuda', non_blocking=True)`` is asynchronous."""
    if not self.is_cpu:
        raise RuntimeError(f"pin_memory: cannot pin '{self.device}' memory; only cpu tensors can be pinned")
    if is_pinned(self):
        return self
    buf = rt.PinnedBuffer(self.numel() * self.dtype.itemsize)
    data = buf.array.view(self.dtype.np) if buf.array.size else np.empty(0, self.dtype.np)
    storage = Storage(CPU, data, buf.nbytes, owner=buf)
    out = Tensor._make(storage, self._shape, contiguous_strides(self._shape), 0, self.dtype)
    copy_into(out, self)
    return out


@tensor_method
def is_pinned(self: Tensor) -> bool:
    return self.is_cpu and isinstance(self._storage.owner, rt.PinnedBuffer)


@tensor_method
def record_stream(self: Tensor, stream) -> None:
    """Tell the allocator ``stream`` uses this tensor, so its memory is not reused too early."""
    from tensorlab_kernels.runtime.streams import Stream

    if not isinstance(stream, Stream):  # (anything else reached the allocator, to fail when the block is freed)
        raise TypeError(f"record_stream(): argument 'stream' must be a cuda Stream, not {type(stream).__name__}")
    if self.is_cuda:
        self._storage.data.record_stream(stream)


def new_uninitialized(shape, dtype: D.dtype, dev) -> Tensor:
    storage = new_storage(int(np.prod(shape)), dtype.np, dev)
    return Tensor._make(storage, tuple(shape), contiguous_strides(shape), 0, dtype)
