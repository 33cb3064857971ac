"""``default_collate`` and ``default_convert``: samples -> a batch, as PyTorch's ``torch.utils.data._utils.collate``.

``default_collate`` turns a list of samples into a batch by structure:

==========================================  ==============================================
sample element                              batch element
==========================================  ==============================================
``Tensor`` / ``np.ndarray`` (numeric)        ``Tensor`` of shape ``(batch, *sample_shape)``
numpy scalar                                ``Tensor`` of its dtype, shape ``(batch,)``
``float`` / ``int`` / ``bool``              ``Tensor`` float64 / int64 / bool
``str`` / ``bytes``                         the list, unchanged
mapping / namedtuple / sequence             the same structure, collated field by field
==========================================  ==============================================

(a tuple comes back as a list, like PyTorch). Samples of different dtypes promote with PyTorch's
rules (``tensorlab.promote_types``), numpy ones included: an int64 array with a float32 one gives
float32, not numpy's float64. As in PyTorch the dispatch looks only at ``batch[0]``, so a batch may
be any sequence: a numpy array of numbers becomes a tensor, one of strings comes back unchanged, and
an empty batch raises ``IndexError``. Samples of different shapes raise ``RuntimeError`` naming both
shapes and where they occur; lists of different lengths raise naming the lengths.

Stacking cpu tensors and numpy arrays is one ``np.stack(..., out=buffer)`` into a freshly
allocated buffer that is then wrapped (``tensorlab.from_numpy``), so a batch is written exactly
once. Inside a DataLoader worker that buffer is a shared-memory segment (see ``_shm``), so the
batch reaches the main process without another copy. Tensors on another device (or that
require grad) are stacked with ``tensorlab.stack`` when it exists, else copied row by row.

``collate(batch, collate_fn_map=...)`` is the extensible form: ``collate_fn_map`` maps a type
(or tuple of types) to ``fn(batch, *, collate_fn_map)``; ``default_collate_fn_map`` is the table
``default_collate`` uses.
"""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable

import numpy as np

__all__ = ["collate", "default_collate", "default_collate_fn_map", "default_convert"]

_NP_STR_OBJ = re.compile(r"[SaUO]")
_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"

# Where stacked batches are allocated: np.empty in the main process; a DataLoader worker
# installs an allocator that returns arrays over new shared-memory segments.
_allocator: Callable | None = None


def _empty(shape: tuple, np_dtype) -> np.ndarray:
    if _allocator is not None:
        return _allocator(shape, np.dtype(np_dtype))
    return np.empty(shape, np_dtype)


def _check_shapes(shapes: list[tuple]) -> None:
    first = shapes[0]
    for i, s in enumerate(shapes):
        if s != first:
            raise RuntimeError(
                f"default_collate: stack expects each tensor to be equal size, but got {list(first)} at entry 0 "
                f"and {list(s)} at entry {i}"
            )


def _stack_host(arrays: list[np.ndarray], np_dtype) -> np.ndarray:
    """np.stack into a fresh buffer from ``_empty`` (shared memory in a worker)."""
    _check_shapes([a.shape for a in arrays])
    out = _empty((len(arrays), *arrays[0].shape), np_dtype)
    if out.size:
        np.stack(arrays, out=out, casting="same_kind")
    return out


def _wrap(arr: np.ndarray):
    from ..._factories import wrap_numpy

    if arr.size == 0:  # (NumPy gives an empty array 0 strides; a stacked batch is contiguous, as on cuda)
        arr = np.lib.stride_tricks.as_strided(arr, strides=_contiguous_byte_strides(arr.shape, arr.itemsize))
    return wrap_numpy(arr)


def _contiguous_byte_strides(shape: tuple, itemsize: int) -> tuple:
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


# ----------------------------------------------------------------------------------------------
# per-type collate functions (PyTorch's collate_*_fn)
# ----------------------------------------------------------------------------------------------


def collate_tensor_fn(batch, *, collate_fn_map=None):
    from ... import _dtype as D
    from ...autograd import is_grad_enabled

    Tensor = _tensor_type()
    for i, t in enumerate(batch):  # (the dispatch looked at batch[0] only)
        if not isinstance(t, Tensor):
            kind = type(t)
            name = kind.__qualname__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}"
            raise TypeError(f"default_collate: expected Tensor as element {i} in argument 0, but got {name}")
    devices = {t.device for t in batch}
    if len(devices) > 1:
        raise RuntimeError(f"default_collate: expected all tensors to be on the same device, but found "
                           f"{sorted(str(d) for d in devices)}")
    dtype = batch[0].dtype
    for t in batch[1:]:
        if t.dtype is not dtype:
            dtype = D.promote_types(dtype, t.dtype)
    needs_grad = is_grad_enabled() and any(t.requires_grad for t in batch)
    dev = batch[0].device
    if dev.type == "cpu" and not needs_grad:
        return _wrap(_stack_host([t.detach()._np_view() for t in batch], dtype.np))
    _check_shapes([tuple(t.shape) for t in batch])
    import tensorlab

    stack = getattr(tensorlab, "stack", None)
    if stack is not None:
        return stack([t if t.dtype is dtype else t.to(dtype) for t in batch], 0)
    if needs_grad:
        raise NotImplementedError("default_collate: stacking tensors that require grad needs tensorlab.stack, "
                                  "which is not available in this build")
    from ..._factories import empty

    out = empty((len(batch), *batch[0].shape), dtype=dtype, device=dev)
    for i, t in enumerate(batch):
        out.select(0, i).copy_(t)
    return out


def _np_dtype_of(arr: np.ndarray):
    """The tensorlab dtype of a numpy array (TypeError for one tensorlab has no dtype for)."""
    from ... import _dtype as D

    return D.from_numpy_dtype(arr.dtype, "default_collate")


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    # PyTorch converts every element with torch.as_tensor and stacks those, so mixed dtypes promote
    # with torch's rules (int64 with float32 -> float32), not numpy's (-> float64), and a Python
    # float among arrays is the default dtype (float32), not numpy's float64.
    from ... import _dtype as D
    from ..._factories import as_tensor

    elem = batch[0]
    if _NP_STR_OBJ.search(elem.dtype.str) is not None:
        raise TypeError(_ERR.format(elem.dtype))
    from ..._tensor import Tensor

    arrays = [b if isinstance(b, np.ndarray) else (b if isinstance(b, Tensor) else as_tensor(b))._host_array()
              for b in batch]
    dtype = elem.dtype
    if any(a.dtype != dtype for a in arrays):
        tl_dtype = _np_dtype_of(arrays[0])
        for a in arrays[1:]:
            tl_dtype = D.promote_types(tl_dtype, _np_dtype_of(a))
        dtype = tl_dtype.np
    return _wrap(_stack_host(arrays, dtype))


def _scalar_tl_dtype(x):
    """The dtype ``torch.as_tensor`` infers for one element of a list (None: not a plain scalar)."""
    from ... import _dtype as D

    if isinstance(x, np.generic):
        return D.from_numpy_dtype(x.dtype, "default_collate")
    if isinstance(x, bool):
        return D.bool
    if isinstance(x, int):
        return D.int64
    if isinstance(x, float):
        return D.get_default_dtype()
    return None


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    # torch.as_tensor(batch): a numpy array batch is converted as it is (sharing memory); a list
    # of scalars gets the torch promotion of their dtypes (a Python float counts as the default
    # dtype), so [np.int64, np.float16] -> float16 and [np.int32, np.float32] -> float32.
    from ... import _dtype as D

    if isinstance(batch, np.ndarray):
        if _NP_STR_OBJ.search(batch.dtype.str) is not None:
            raise TypeError(_ERR.format(batch.dtype))
        return _as_tensor(batch)
    dtypes = [_scalar_tl_dtype(x) for x in batch]
    if all(d is not None for d in dtypes):
        dtype = dtypes[0]
        for d in dtypes[1:]:
            if d is not dtype:
                dtype = D.promote_types(dtype, d)
        return _wrap(np.array(batch, dtype=dtype.np))
    # Something else beside the numpy scalars (a 0-d array, a tensor, a list, None, a string): PyTorch's
    # as_tensor decides, with its errors (None: RuntimeError; a list or a string: TypeError). np.array
    # gave numpy's ValueError for a list and an object array (hence a TypeError) for None.
    from ..._factories import as_tensor

    return as_tensor(batch)


def collate_float_fn(batch, *, collate_fn_map=None):
    from ... import _dtype as D
    from ..._factories import tensor

    return tensor(batch, dtype=D.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    from ..._factories import tensor

    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


def _tensor_type():
    from ..._tensor import Tensor

    return Tensor


default_collate_fn_map: dict = {}


def _build_default_map() -> None:
    if default_collate_fn_map:
        return
    default_collate_fn_map.update({
        _tensor_type(): collate_tensor_fn,
        np.ndarray: collate_numpy_array_fn,
        (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
        float: collate_float_fn,
        int: collate_int_fn,
        str: collate_str_fn,
        bytes: collate_str_fn,
    })


def collate(batch, *, collate_fn_map: dict | None = None):
    """Collate ``batch`` (a list of samples, or any sequence: a numpy array, a tuple, a string) by
    the type of its first element, as PyTorch does; the types in ``collate_fn_map`` are handled by
    their functions (exact type first, then ``isinstance``)."""
    elem = batch[0]  # as PyTorch: any indexable batch; an empty one raises IndexError
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for key, fn in collate_fn_map.items():
            if isinstance(elem, key):
                return fn(batch, collate_fn_map=collate_fn_map)

    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})
                return clone
            return elem_type({key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem})
        except TypeError:
            return {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        lengths = [len(e) for e in batch]
        if any(n != lengths[0] for n in lengths):
            raise RuntimeError(f"default_collate: each element in list of batch should be of equal size, got "
                               f"lengths {lengths[:8]}{' ...' if len(lengths) > 8 else ''}")
        transposed = list(zip(*batch))  # (tuples: a field of strings comes back as a tuple, as PyTorch's)
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(_ERR.format(elem_type))


def default_collate(batch):
    """Stack a list of samples into a batch (see the module docstring for the rules)."""
    _build_default_map()
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data):
    """Convert numpy arrays/scalars in ``data`` to tensors (sharing memory when possible), keeping
    the structure; used when automatic batching is off (``batch_size=None``)."""
    Tensor = _tensor_type()
    if isinstance(data, Tensor):
        return data
    elem_type = type(data)
    if elem_type.__module__ == "numpy" and not isinstance(data, np.str_ | np.bytes_):
        if isinstance(data, np.ndarray):
            if _NP_STR_OBJ.search(data.dtype.str) is not None:
                return data
            return _as_tensor(data)
        return _as_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update({key: default_convert(data[key]) for key in data})
                return clone
            return elem_type({key: default_convert(data[key]) for key in data})
        except TypeError:
            return {key: default_convert(data[key]) for key in data}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, str | bytes):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data


def _as_tensor(arr: np.ndarray):
    """``tensorlab.as_tensor`` for an array: share memory when the layout allows, else copy."""
    isz = arr.itemsize
    shareable = arr.flags.writeable and all(s >= 0 and s % isz == 0 for s in arr.strides)
    return _wrap(arr if shareable else np.array(arr, copy=True, order="C"))
