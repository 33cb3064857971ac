"""``tensor[index]`` and ``tensor[index] = value``.

Basic indexing (ints, slices with positive steps, ``None``, ``...``) is a chain of view ops
(select, slice, unsqueeze), so the result shares storage and has a gradient. Indices that are
tensors, lists or bools are *advanced* indexing; they go to :data:`advanced_getitem` /
:data:`advanced_setitem`, which the indexing op family installs.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from . import _dtype as D
from ._tensor import Tensor
from ._views import select, slice_dim, unsqueeze

# Installed by tensorlab.ops.indexing (advanced indexing); None until then.
advanced_getitem = None
advanced_setitem = None


def _is_advanced(item) -> bool:
    if isinstance(item, bool):
        return True
    if isinstance(item, Tensor):
        # a uint8 tensor is a (deprecated) byte mask even when 0-d, as in PyTorch: x[tensor(2, uint8)]
        # is x[True], not x[2]
        return item.ndim > 0 or item.dtype.name in ("bool", "uint8") or item.dtype.is_floating_point
    return isinstance(item, list | tuple | np.ndarray)


def treat_as_tuple(seq) -> bool:
    """PyTorch's (NumPy's legacy) heuristic for a non-tuple list used as the whole index: a short
    list holding tensors, sequences, slices, None or ``...`` is the tuple of its items."""
    if len(seq) >= 32:
        return False
    return any(isinstance(o, Tensor | list | tuple | range | slice | np.ndarray) or o is None or o is Ellipsis
               for o in seq)


INDEX_ERROR = "only integers, slices (`:`), ellipsis (`...`), None and long or byte tensors are valid indices"


def invalid_index(item) -> Exception:
    """The error for an index item that is neither an int, a slice, None, ``...`` nor convertible to
    an index tensor (raised where indexing fails, not checked up front: ``x[i]`` is a hot path): a str
    or bytes, also inside a list, is PyTorch's TypeError (it tries to make a tensor of it), anything
    else its IndexError."""
    found = _string_in(item)
    if found is not None:
        return TypeError(f"new(): invalid data type '{type(found).__name__}'")
    return IndexError(f"{INDEX_ERROR} (got {type(item).__name__})")


def _string_in(item):
    if isinstance(item, str | bytes):
        return item
    if isinstance(item, list | tuple):
        for it in item:
            found = _string_in(it)
            if found is not None:
                return found
    return None


def _normalize(index) -> tuple:
    if not isinstance(index, tuple):
        # only the whole index: inside a tuple, x[([[0, 1], [1, 0]],)], a list of lists is one index tensor
        index = tuple(index) if isinstance(index, list) and treat_as_tuple(index) else (index,)
    if any(isinstance(it, range) for it in index):  # a range indexes as the list of its values (PyTorch)
        index = tuple(list(it) if isinstance(it, range) else it for it in index)
    return index


def _consumes_dim(item) -> int:
    """How many input dims an index item uses."""
    if item is None or item is Ellipsis:
        return 0
    if isinstance(item, bool):
        return 0
    if isinstance(item, Tensor) and item.dtype.name == "bool":
        return item.ndim
    return 1


def expand_ellipsis(x: Tensor, index: tuple) -> tuple:
    ellipses = [i for i, it in enumerate(index) if it is Ellipsis]
    used = sum(_consumes_dim(it) for it in index)
    if used > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    rest = x.ndim - used  # the dims no item indexes: what an ellipsis stands for
    if not ellipses:
        return index + (slice(None),) * rest
    e = ellipses[0]
    after = index[e + 1:]
    if len(ellipses) > 1:
        # PyTorch (unlike NumPy) takes several ellipses: each one skips `rest` dims, so a later one
        # is a no-op when `rest` is 0 or nothing but ellipses follows it; otherwise the items after
        # it would index past the last dim
        if rest and any(it is not Ellipsis for it in index[ellipses[1]:]):
            raise IndexError(f"an index with more than one ellipsis ('...') indexes past the last dim of a tensor "
                             f"of dimension {x.ndim}: each ellipsis stands for the {rest} dim(s) no other item "
                             f"indexes")
        after = tuple(it for it in after if it is not Ellipsis)
    return index[:e] + (slice(None),) * rest + after


def basic_getitem(x: Tensor, index: tuple) -> Tensor:
    """Apply an index of ints, slices and None (already ellipsis-expanded)."""
    out = x
    dim = 0
    for item in index:
        if item is None:
            out = unsqueeze(out, dim)
            dim += 1
        elif isinstance(item, slice):
            step = 1 if item.step is None else operator.index(item.step)
            if step <= 0:
                raise ValueError(f"step must be greater than zero, got {step}")
            start = None if item.start is None else operator.index(item.start)
            stop = None if item.stop is None else operator.index(item.stop)
            if not (start is None and stop is None and step == 1):
                out = slice_dim(out, dim, start, stop, step)
            dim += 1
        else:
            try:
                i = operator.index(item)
            except TypeError:
                raise invalid_index(item) from None
            size = out._shape[dim]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
            out = select(out, dim, i)
    if out is x:  # x[...] or x[:] is still a new view object with x's strides, as in PyTorch
        from ._views import permute

        out = permute(x, tuple(range(x.ndim)))
    return out


def getitem(x: Tensor, index):
    index = _normalize(index)
    if any(_is_advanced(it) for it in index):
        if advanced_getitem is None:
            raise NotImplementedError("advanced indexing (tensor, list or bool indices) is not available")
        return advanced_getitem(x, index)
    if x.ndim == 0 and any(it is not Ellipsis and it is not None for it in index):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` to convert a 0-dim tensor to a number")
    return basic_getitem(x, expand_ellipsis(x, index))


def setitem(x: Tensor, index, value) -> None:
    # PyTorch's check (2.15) of a number: it must fit the dtype (300 into int8, 1e39 into float32 and
    # 70000.0 into float16 raise), except that a float16/bfloat16 target of one element (a[0], a[1:2],
    # a[0, 0]) takes any float (70000.0 or 1e39 become inf, as its copy from a float scalar). Here
    # what needs no target; a floating dtype's overflow once the target is known.
    check_float = False
    if not isinstance(value, Tensor):
        if not isinstance(value, numbers.Number) or isinstance(value, complex):
            raise TypeError(f"can't assign a {type(value).__name__} to a {x.dtype.name} tensor")
        from ._factories import check_scalar_fits

        check_scalar_fits("index_put_", value, x.dtype, floats=False)
        check_float = x.dtype.is_floating_point
    if index is True or index is False:
        # PyTorch: x[True] = v is x[None] = v, a copy (v of any dtype); x[False] = v writes nothing.
        # (x[True,] and x[(True,)] are advanced indices, with index_put_'s checks.)
        if index is False:
            return
        index = None
    index = _normalize(index)
    if any(_is_advanced(it) for it in index):
        if advanced_setitem is None:
            raise NotImplementedError("advanced index assignment (tensor, list or bool indices) is not available")
        if check_float:
            check_scalar_fits("index_put_", value, x.dtype)
        advanced_setitem(x, index, value)
        return
    target = basic_getitem(x, expand_ellipsis(x, index))
    if check_float and not (x.dtype in (D.float16, D.bfloat16) and target.numel() == 1):
        check_scalar_fits("index_put_", value, x.dtype)
    if isinstance(value, Tensor):
        # As PyTorch: leading size-1 dims of the value are dropped (x[0] = t[None] works).
        while value.ndim > target.ndim and value.shape[0] == 1:
            value = value.squeeze(0)
        target.copy_(value)
    else:
        from ._factories import filled

        # (a number checked above; fill_, as PyTorch, so an expanded target takes it too)
        target.fill_(filled((), value, x.dtype, x.device))


Tensor.__getitem__ = getitem
Tensor.__setitem__ = setitem
