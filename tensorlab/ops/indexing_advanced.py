"""Advanced indexing: ``x[idx]`` and ``x[idx] = v`` with integer tensors, lists, bool masks and bools,
mixed with ints, slices, None and ``...`` — PyTorch's semantics (installed as the hooks of
``tensorlab._indexing``).

How an index is taken apart (PyTorch's ``applySlicing``):

- ints, slices and None are *basic*: they become views (select, slice, unsqueeze) of ``x``,
  giving ``y``; a 0-d integer tensor counts as an int (PyTorch does the same);
- an integer tensor (or a list of ints) indexes one dim of ``y``; a bool tensor of rank k
  indexes k dims through the coordinates of its true elements (``nonzero``); a Python bool
  (or a 0-d bool tensor) adds a dim of size 1 indexed by ``[0]`` (True) or ``[]`` (False);
- the index tensors broadcast together; if the indexed dims of ``y`` are adjacent the broadcast
  dims replace them in place, otherwise they go first (``layout.AdvancedLayout``). Ints do not
  take part in this rule (unlike NumPy, where ``x[0, :, [0, 1]]`` puts the index dim first:
  PyTorch has applied the int as a select before).

A short list that holds a sequence, slice, tensor, None or ``...`` is read as a tuple, as
PyTorch (and old NumPy) do: ``x[[[0, 1], [1, 2]]]`` is ``x[[0, 1], [1, 2]]``.

Fast paths: a bool mask with the shape of ``y`` reads with ``masked_select``; ``x[mask] = scalar``
(no ints/None/partial slices) writes with ``masked_fill_``. Everything else reads with the
``index`` op (a gather) and writes with ``index_put`` (deterministic; duplicates: the last
value wins, as ``index_put_`` without accumulate). ``x[idx] += v`` is Python's getitem, ``+=``
and setitem, so duplicates add ``v`` once, as in PyTorch.

Writes are recorded on ``x`` itself (the basic part of the index travels as a parameter of
``index_put``, not as a view), so autograd sees ``x`` change: ``out = zeros(...); out[:, idx] = h``
propagates gradients to ``h``.
"""

from __future__ import annotations

import operator
import warnings

import numpy as np

from .. import _dtype as D
from .. import _indexing
from .._dispatch import dispatch
from .._tensor import Tensor
from . import indexing as ops

_INDEX_ERROR = _indexing.INDEX_ERROR


# ----------------------------------------------------------------------------------------------
# parsing an index
# ----------------------------------------------------------------------------------------------


def _sequence_to_tensor(seq, x: Tensor) -> Tensor:
    from .._factories import tensor

    arr = np.asarray(seq) if isinstance(seq, np.ndarray) else None
    if arr is not None and arr.dtype.kind not in "biuf":
        raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors (got {arr.dtype})")
    if arr is None and len(seq) == 0:
        return tensor([], dtype=D.int64, device=x.device)
    try:
        t = tensor(seq if arr is None else arr, device=x.device)
    except (TypeError, ValueError) as exc:
        error = _indexing.invalid_index(seq)
        if isinstance(error, TypeError):  # a str or bytes in the sequence
            raise error from None
        raise IndexError(f"{_INDEX_ERROR} (could not convert the sequence {seq!r}: {exc})") from None
    if t.dtype.is_floating_point:
        # PyTorch makes an index tensor of a list or array of numbers as int64 (only bool and uint8
        # data keep their type): floats are truncated, [1.7] is row 1 (a float tensor is refused)
        t = t.to(D.int64)
    return t


class Parsed:
    """``x[index]`` taken apart: ``basic`` (ints, slices, None per dim of ``x``, for views), the
    shape of ``y = x[basic]``, and ``entries``: ``(ydim, tensor)`` for integer indices and
    ``(ydim, mask)`` for bool masks (a mask covers ``mask.ndim`` dims from ``ydim``)."""

    __slots__ = ("basic", "yshape", "entries", "x", "range_error")

    def __init__(self, x, basic, entries, range_error=None):
        from tensorlab_kernels.indexing.layout import basic_view_geometry

        self.x, self.basic, self.entries, self.range_error = x, basic, entries, range_error
        self.yshape = basic_view_geometry(x._shape, x._stride, x._offset, basic)[0]

    def trivial_basic(self) -> bool:
        """``x[basic]`` is ``x`` itself (only full slices)."""
        return all(isinstance(b, slice) and b == slice(None) for b in self.basic)

    def single_mask(self):
        if len(self.entries) == 1 and self.entries[0][1].dtype is D.bool:
            return self.entries[0]
        return None

    def indices(self) -> list:
        """One entry per dim of ``y``: an integer index tensor or None (masks become their coordinates)."""
        out = [None] * len(self.yshape)
        for ydim, t in self.entries:
            if t.dtype is D.bool:
                coords = dispatch(ops.NONZERO, t)
                for j in range(t.ndim):
                    out[ydim + j] = coords.select(1, j)
            else:
                out[ydim] = t
        return out


def parse(x: Tensor, index: tuple) -> Parsed:
    items = []
    for it in index:
        if isinstance(it, list | tuple | np.ndarray):
            it = _sequence_to_tensor(it, x)
        if isinstance(it, Tensor):
            if it.dtype is D.uint8:
                warnings.warn("indexing with dtype uint8 is deprecated, please use a dtype bool instead.",
                              UserWarning, stacklevel=3)
                it = it.to(D.bool)
            elif it.ndim == 0 and it.dtype is not D.bool and not it.dtype.is_floating_point:
                it = int(it.item())  # a 0-d integer tensor of any int dtype is an int (PyTorch's select)
                items.append(it)
                continue
            elif it.dtype not in (D.bool, D.int64, D.int32):
                raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors (got "
                                 f"{it.dtype.name})")
            if it.device != x.device:
                if x.device.type == "cpu":  # (cpu indices for a cuda tensor are copied over, as PyTorch)
                    raise IndexError(f"indices should be either on cpu or on the same device as the indexed tensor "
                                     f"(cpu), got indices on {it.device}")
                it = it.to(x.device)
            if it.ndim == 0 and it.dtype is not D.bool:
                it = int(it.item())  # a 0-d integer tensor is an int (PyTorch's select)
        items.append(it)
    items = _indexing.expand_ellipsis(x, tuple(items))

    basic, entries = [], []
    range_error = None
    xd = yd = 0
    for it in items:
        if it is None:
            basic.append(None)
            yd += 1
        elif isinstance(it, bool) or (isinstance(it, Tensor) and it.dtype is D.bool and it.ndim == 0):
            from .._factories import tensor

            flag = it if isinstance(it, bool) else bool(it.item())
            basic.append(None)
            entries.append((yd, tensor([0] if flag else [], dtype=D.int64, device=x.device)))
            yd += 1
        elif isinstance(it, slice):
            step = 1 if it.step is None else operator.index(it.step)
            if step <= 0:
                raise ValueError(f"step must be greater than zero, got {step}")
            basic.append(it)
            xd += 1
            yd += 1
        elif isinstance(it, Tensor) and it.dtype is D.bool:
            k = it.ndim
            region = x._shape[xd:xd + k]
            for j in range(k):
                if it._shape[j] != region[j]:
                    raise IndexError(f"The shape of the mask {list(it.shape)} at index {j} does not match the shape "
                                     f"of the indexed tensor {list(x.shape)} at index {xd + j}")
            basic.extend([slice(None)] * k)
            entries.append((yd, it))
            xd += k
            yd += k
        elif isinstance(it, Tensor):
            try:
                ops._check_range("index", it, x._shape[xd], yd, negative=True)
            except IndexError as exc:
                # PyTorch checks an index where it reads it: an out-of-range index is no error when
                # the result is empty (x[False, [5]]); raised by check_range once the shape is known
                range_error = range_error or exc
            basic.append(slice(None))
            entries.append((yd, it))
            xd += 1
            yd += 1
        else:
            try:
                i = operator.index(it)
            except TypeError:
                raise _indexing.invalid_index(it) from None
            size = x._shape[xd]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {xd} with size {size}")
            basic.append(i)
            xd += 1
    return Parsed(x, basic, entries, range_error)


def check_range(p: Parsed, shape: tuple, indices: list) -> None:
    """Raise an index's out-of-range error unless the result (of ``shape``) is empty; PyTorch
    raises even then when an indexed dim has size 0 but the index tensors are not empty."""
    if p.range_error is None:
        return
    if 0 not in shape:
        raise p.range_error
    present = [(p.yshape[i], t._shape) for i, t in enumerate(indices) if t is not None]
    if any(size == 0 for size, _ in present):
        from .._broadcast import broadcast_shapes

        if 0 not in broadcast_shapes(*(s for _, s in present)):
            raise p.range_error


# ----------------------------------------------------------------------------------------------
# x[index]
# ----------------------------------------------------------------------------------------------


def getitem(x: Tensor, index: tuple) -> Tensor:
    p = parse(x, index)
    if not p.entries:  # e.g. a list that held only ints and slices, read as a tuple
        return _indexing.basic_getitem(x, tuple(p.basic))
    y = x if p.trivial_basic() else _indexing.basic_getitem(x, tuple(p.basic))
    m = p.single_mask()
    if m is not None and m[1].ndim == y.ndim:
        return dispatch(ops.MASKED_SELECT, y, m[1])
    indices = p.indices()
    if p.range_error is not None:
        check_range(p, _result_shape(p, indices), indices)
        return y.reshape(-1)[:0].reshape(_result_shape(p, indices))  # empty: nothing to read
    return ops.index_dims(y, indices)


# ----------------------------------------------------------------------------------------------
# x[index] = value, index_put
# ----------------------------------------------------------------------------------------------


def _result_shape(p: Parsed, indices) -> tuple:
    from tensorlab_kernels.indexing.layout import AdvancedLayout

    lay = AdvancedLayout(p.yshape, (0,) * len(p.yshape), [None if i is None else i._shape for i in indices])
    return lay.result_shape


def put(x: Tensor, index: tuple, values: Tensor, *, accumulate: bool = False, inplace: bool = True,
        op: str = "index_put_") -> Tensor:
    """``x[index] = values`` (``+=`` with ``accumulate``), in place or on a copy; ``values`` must have x's dtype."""
    p = parse(x, index)
    if not p.entries and any(isinstance(i, Tensor) and i.ndim == 0 and i.dtype in (D.int64, D.int32) for i in index):
        # index_put takes 0-d integer index tensors as index tensors (PyTorch), where parse reads them as
        # selects: as 1-element ones they give the same result, once values fit the 0-d indices' result
        shape = tuple(p.yshape)  # (the selects' result)
        from .._broadcast import broadcast_shapes

        try:
            fits = tuple(broadcast_shapes(tuple(values.shape), shape)) == shape
        except (RuntimeError, ValueError):
            fits = False
        if not fits:
            raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                               f"indexing result of shape {list(shape)}")
        p = parse(x, tuple(i.reshape(1) if isinstance(i, Tensor) and i.ndim == 0 else i for i in index))
    return _put(x, p, values, accumulate, inplace, op)


def _put(x: Tensor, p: Parsed, values: Tensor, accumulate: bool, inplace: bool, op: str) -> Tensor:
    values = values if values.device == x.device else values.to(x.device)
    if not p.entries:
        raise IndexError(f"{op}(): needs at least one index tensor")
    indices = p.indices()
    shape = _result_shape(p, indices)
    check_range(p, shape, indices)
    # PyTorch drops leading size-1 dims of the value that the result does not have
    while values.ndim > len(shape) and values._shape[0] == 1:
        values = values.reshape(values._shape[1:])
    try:
        from .._broadcast import broadcast_geometry

        broadcast_geometry(values, shape, op)
    except RuntimeError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.shape)} cannot be broadcast to "
                           f"indexing result of shape {list(shape)}") from None
    if values.dtype is not x.dtype:  # (after the shape check, as PyTorch)
        if accumulate or p.single_mask() is None or values.numel() != 1:
            raise ops._index_put_dtype_error(op, x, values)
        values = values.to(x.dtype)  # a lone mask and one value: PyTorch runs masked_fill_, which converts
    basic = () if p.trivial_basic() else tuple(p.basic)
    return ops.index_put_dims(x, indices, values, accumulate=accumulate, basic=basic, inplace=inplace)


def setitem(x: Tensor, index: tuple, value) -> None:
    """``x[index] = value`` with advanced indices (``_indexing.setitem`` has checked a number value)."""
    from .._factories import filled

    p = parse(x, index)
    m = p.single_mask()
    if isinstance(value, Tensor):
        if value.device != x.device:
            value = value.to(x.device)
        # PyTorch converts the value where it runs as a copy (no index tensor: a list read as a tuple);
        # as masked_fill_ (one bool mask, one value) masked_fill or _put converts it
        if value.dtype is not x.dtype and not p.entries:
            value = value.to(x.dtype)
    if m is not None and p.trivial_basic() and (not isinstance(value, Tensor) or value.ndim == 0):
        ydim, mask = m
        shape = (1,) * ydim + mask._shape + (1,) * (x.ndim - ydim - mask.ndim)
        dispatch(ops.MASKED_FILL, x, mask.reshape(shape) if shape != mask._shape else mask, value, inplace=True)
        return
    if not isinstance(value, Tensor):
        value = filled((), value, x.dtype, x.device)
    if not p.entries:
        _indexing.basic_getitem(x, tuple(p.basic)).copy_(value)
        return
    _put(x, p, value, False, True, "index_put_")


def install() -> None:
    _indexing.advanced_getitem = getitem
    _indexing.advanced_setitem = setitem
