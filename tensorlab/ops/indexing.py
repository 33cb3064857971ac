"""The indexing op family (issue 3): declarations, public functions, Tensor methods, and the
advanced-indexing hooks of ``Tensor.__getitem__``/``__setitem__`` (``indexing_advanced``).

Ops: index_select, gather, take, take_along_dim, scatter (src or value), scatter_add,
scatter_reduce, index_add, index_copy, index_fill, index_put, masked_fill, masked_select,
masked_scatter, nonzero, argwhere, one_hot, bincount; in-place ``_`` variants as in PyTorch.

Validation happens here, before anything runs: dtypes, shapes, devices, and the *range* of every
index tensor, from one min/max reduction on the device and a single 16-byte copy to the host
(``_check_range``). Out-of-range indices raise :class:`IndexOutOfRangeError`, which is both an
``IndexError`` (what PyTorch raises for index_select/index_add/index_copy/index_fill/take/
advanced indexing) and a ``RuntimeError`` (what it raises for gather/scatter), with the op, the
index and the size in the message. Negative indices wrap where PyTorch allows them (advanced
indexing, index_put, index_fill, take) and are errors elsewhere (index_select, gather, scatter*,
index_add, index_copy), as in PyTorch.

Every write with possible duplicates (scatter, scatter_add, scatter_reduce, index_add,
index_copy, index_put) is deterministic: see ``tensorlab_kernels/indexing/scatter.py``.
"""

from __future__ import annotations

import numbers
import operator

import numpy as np

from tensorlab_kernels.indexing import gather as kg
from tensorlab_kernels.indexing import index as ki
from tensorlab_kernels.indexing import masked as km
from tensorlab_kernels.indexing import scatter as ks
from tensorlab_kernels.indexing.layout import AdvancedLayout, basic_view_geometry

from .. import _dtype as D
from .._broadcast import broadcast_geometry, broadcast_shapes
from .._dispatch import check_no_overlap, dispatch
from .._factories import check_scalar_fits, filled
from .._layout import preserve_strides
from .._registry import Plan, defop
from .._tensor import Tensor, need_tensor, norm_dim, tensor_method
from ..amp.autocast_mode import autocast_op
from .elementwise_common import exact_out, not_implemented_for, write_out


class IndexOutOfRangeError(IndexError, RuntimeError):
    """An index outside its dimension: an IndexError and a RuntimeError (PyTorch raises one or the
    other depending on the op)."""


# ----------------------------------------------------------------------------------------------
# validation helpers
# ----------------------------------------------------------------------------------------------


def index_minmax(index: Tensor) -> tuple[int, int] | None:
    """(min, max) of an integer tensor: a device reduction and one small copy on cuda."""
    if index.is_cpu:
        return ki.index_minmax_twin(index._np_view())
    return ki.index_minmax(index._device_array())


def _check_range(op: str, index: Tensor, size: int, dim: int, *, negative: bool) -> None:
    """Every value of ``index`` in ``[0, size)`` (or ``[-size, size)`` when ``negative``)."""
    r = index_minmax(index)
    if r is None:
        return
    lo, hi = r
    low = -size if negative else 0
    bad = hi if hi >= size else lo if lo < low else None
    if bad is not None:
        raise IndexOutOfRangeError(f"{op}(): index {bad} is out of bounds for dimension {dim} with size {size}")


def _wrap_negative(op: str, index: Tensor, size: int, dim: int) -> Tensor:
    """``index`` with values in ``[-size, 0)`` moved to ``[0, size)`` (an error, naming ``op``, for
    any value outside ``[-size, size)``).

    PyTorch 2.13's take_along_dim with a dim reads negative indices from the end, as NumPy's
    take_along_axis (it wraps every index modulo the size: we raise for one outside ``[-size, size)``
    instead).
    """
    r = index_minmax(index)
    if r is None:
        return index
    lo, hi = r
    if hi >= size or lo < -size:
        raise IndexOutOfRangeError(f"{op}(): index {hi if hi >= size else lo} is out of bounds for dimension {dim} "
                                   f"with size {size}")
    if lo >= 0:
        return index
    return index + (index < 0).to(index.dtype) * size


def check_flat_range(op: str, index: Tensor, n: int, end: str = "") -> None:
    """Every position of ``index`` in ``[-n, n)`` (positions in a tensor of ``n`` elements read as
    1-d, as ``take`` and ``put_`` use them); PyTorch's message (``put_``'s ends with ``end="."``)."""
    r = index_minmax(index)
    if r is not None and (r[1] >= n or r[0] < -n):
        bad = r[1] if r[1] >= n else r[0]
        raise IndexOutOfRangeError(f"{op}(): out of range: tried to access index {bad} on a tensor of {n} "
                                   f"elements{end}")


def _need_tensor(op: str, x, name: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")


def check_same_device(op: str, t: Tensor, like: Tensor, name: str = "index") -> None:
    """``t`` (an index, mask, source or weights tensor), refused unless on ``like``'s device: PyTorch's
    index_select, gather, scatter, index_add, masked_fill, take, put_, bincount ... check every
    tensor argument's device (only advanced indexing, ``indexing_advanced.parse``, copies cpu
    indices over to the indexed tensor's device)."""
    if t.device != like.device:
        raise RuntimeError(f"{op}(): Expected all tensors to be on the same device, but found at least two devices, "
                           f"{like.device} and {t.device}! (when checking argument '{name}')")


def _index_dtype(op: str, index: Tensor, allowed=(D.int64,), exc=RuntimeError) -> None:
    if index.dtype not in allowed:
        names = " or ".join(d.name for d in allowed)
        raise exc(f"{op}(): Expected dtype {names} for index, but got {index.dtype.name}")


_GATHER_INDEX = (D.int32, D.int64)  # gather and the scatters take int32 too (PyTorch 2.x); take and index_copy do not


def _same_dtype(op: str, a: Tensor, b: Tensor, what: str = "src") -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(f"{op}(): Expected self.dtype to be equal to {what}.dtype (got self {a.dtype.name} and "
                           f"{what} {b.dtype.name})")


def _dim(op: str, dim, ndim: int) -> int:
    return norm_dim(dim, ndim, op)


def _zeros(shape, like: Tensor) -> Tensor:
    from .._factories import zeros

    return zeros(tuple(shape), dtype=like.dtype, device=like.device)


def _reduce_to(g: Tensor, meta) -> Tensor:
    """A gradient summed to an input's (broadcast) shape and cast to its dtype."""
    if tuple(g.shape) != tuple(meta.shape):
        g = g.sum_to_size(tuple(meta.shape))
    return g if g.dtype is meta.dtype else g.to(meta.dtype)


def _save(*positions):
    """A ``save`` rule keeping only the tensor inputs at ``positions`` (the index, usually)."""

    def save(ctx, inputs, outputs, params):
        ctx.save_for_backward(*[inputs[i] if isinstance(inputs[i], Tensor) else None for i in positions])

    return save


# ----------------------------------------------------------------------------------------------
# reads: index_select, gather, take, advanced getitem
# ----------------------------------------------------------------------------------------------


def _index_select_meta(x, index, dim):
    shape = list(x._shape)
    if shape:
        shape[dim] = index.numel()
    return Plan(args=[x, index], outputs=[(tuple(shape), x.dtype)], params={"dim": dim})


def _index_select_backward(ctx, g):
    (index,) = ctx.saved_tensors
    base = _zeros(ctx.inputs[0].shape, g)
    return dispatch(INDEX_ADD, base, index, g, dim=ctx.params["dim"], alpha=1), None


INDEX_SELECT = defop("index_select", twin=kg.index_select_twin, kernel=kg.index_select, meta=_index_select_meta,
                     backward=_index_select_backward, save=_save(1), tags={"indexing", "no_input_overlap"},
                     doc="Slices of input along dim at the positions in a 1-d index.")


def _gather_meta(x, index, dim):
    return Plan(args=[x, index], outputs=[(index._shape, x.dtype)], params={"dim": dim})


def _gather_backward(ctx, g):
    (index,) = ctx.saved_tensors
    base = _zeros(ctx.inputs[0].shape, g)
    return dispatch(SCATTER_ADD, base, index, g, dim=ctx.params["dim"]), None


GATHER = defop("gather", twin=kg.gather_twin, kernel=kg.gather, meta=_gather_meta, backward=_gather_backward,
               save=_save(1), tags={"indexing", "no_input_overlap"}, doc="out[i][j] = input[index[i][j]][j] (dim 0).")


def _take_meta(x, index):
    return Plan(args=[x, index], outputs=[(index._shape, x.dtype)])


def _take_backward(ctx, g):
    (index,) = ctx.saved_tensors
    meta = ctx.inputs[0]
    flat = _zeros((int(np.prod(meta.shape)),), g)
    gi = index_put_dims(flat, [index.reshape(-1)], g.reshape(-1), accumulate=True)
    return gi.reshape(meta.shape), None


TAKE = defop("take", twin=kg.take_twin, kernel=kg.take, meta=_take_meta, backward=_take_backward, save=_save(1),
             tags={"indexing", "no_input_overlap"}, doc="input.flatten()[index] (negative positions wrap).")


def index_dims(x: Tensor, per_dim) -> Tensor:
    """``x[...]`` with integer index tensors on some dims (``per_dim``: one entry per dim, None = all)."""
    dims = tuple(d for d, i in enumerate(per_dim) if i is not None)
    return dispatch(INDEX, x, [per_dim[d] for d in dims], dims=dims)


def index_put_dims(x: Tensor, per_dim, values: Tensor, *, accumulate: bool = False, basic=(),
                   inplace: bool = False) -> Tensor:
    """``x[basic][...] = values`` (``+=`` with accumulate) with integer index tensors on some dims of
    ``x[basic]`` (``per_dim``: one entry per dim, None = all)."""
    dims = tuple(d for d, i in enumerate(per_dim) if i is not None)
    return dispatch(INDEX_PUT, x, [per_dim[d] for d in dims], values, dims=dims, accumulate=accumulate,
                    basic=tuple(basic), inplace=inplace)


def _per_dim(indices, dims, ndim: int) -> list:
    return kg.per_dim(indices, dims, ndim)


def _index_meta(x, indices, dims):
    lay = AdvancedLayout(x._shape, x._stride, [i._shape if i is not None else None
                                               for i in _per_dim(indices, dims, x.ndim)])
    return Plan(args=[x, list(indices)], outputs=[(lay.result_shape, x.dtype)], params={"dims": tuple(dims)})


def _index_save(ctx, inputs, outputs, params):
    ctx.save_for_backward(*inputs[1])


def _index_backward(ctx, g):
    indices = list(ctx.saved_tensors)
    base = _zeros(ctx.inputs[0].shape, g)
    return dispatch(INDEX_PUT, base, indices, g, dims=ctx.params["dims"], accumulate=True, basic=()), None


INDEX = defop("index", twin=kg.index_twin, kernel=kg.index, meta=_index_meta, backward=_index_backward,
              save=_index_save, tags={"indexing"},
              doc="Advanced indexing x[i0, i1, ...] with integer index tensors (None: a full slice).")


# ----------------------------------------------------------------------------------------------
# writes: scatter family
# ----------------------------------------------------------------------------------------------


def _scatter_meta(x, index, src, dim, **params):
    return Plan(args=[x, index, src], outputs=[(x._shape, x.dtype)], params={"dim": dim, **params})


def _src_region(src: Tensor, index_shape) -> Tensor:
    """The part of ``src`` that the scatter reads: its leading ``index_shape`` block (a view)."""
    out = src
    for d, n in enumerate(index_shape):
        if out._shape[d] != n:
            out = out.narrow(d, 0, n)
    return out


def _pad_to(g: Tensor, meta) -> Tensor:
    """A gradient for the leading block of a larger ``src``: zeros elsewhere (differentiable)."""
    if tuple(g.shape) == tuple(meta.shape):
        return g
    from .._copy_ops import as_strided_scatter
    from .._storage import contiguous_strides

    base = _zeros(meta.shape, g)
    if g.numel() == 0:  # (an empty index, whose rank may differ from src's: no block to place)
        return base
    return as_strided_scatter(base, g, g._shape, contiguous_strides(meta.shape), 0)


def _scatter_backward(ctx, g):
    (index,) = ctx.saved_tensors
    dim = ctx.params["dim"]
    gx = dispatch(SCATTER_VALUE, g, index, dim=dim, value=0) if ctx.needs_input_grad[0] else None
    gsrc = _pad_to(dispatch(GATHER, g, index, dim=dim), ctx.inputs[2]) if ctx.needs_input_grad[2] else None
    return gx, None, gsrc


SCATTER = defop("scatter", twin=ks.scatter_twin, kernel=ks.scatter, meta=_scatter_meta, backward=_scatter_backward,
                save=_save(1), tags={"indexing", "no_input_overlap", "inplace_safe"},
                doc="input with input[..index[i]..] = src[i] along dim; with duplicates the last source wins.")


def _scatter_value_meta(x, index, dim, value):
    return Plan(args=[x, index], outputs=[(x._shape, x.dtype)], params={"dim": dim, "value": value})


def _scatter_value_backward(ctx, g):
    (index,) = ctx.saved_tensors
    return dispatch(SCATTER_VALUE, g, index, dim=ctx.params["dim"], value=0), None


SCATTER_VALUE = defop("scatter_value", twin=ks.scatter_value_twin, kernel=ks.scatter_value,
                      meta=_scatter_value_meta, backward=_scatter_value_backward, save=_save(1),
                      tags={"indexing", "inplace_safe"}, doc="input with input[..index[i]..] = value along dim.")


def _scatter_add_backward(ctx, g):
    (index,) = ctx.saved_tensors
    gsrc = None
    if ctx.needs_input_grad[2]:
        gsrc = _pad_to(dispatch(GATHER, g, index, dim=ctx.params["dim"]), ctx.inputs[2])
    return g, None, gsrc


SCATTER_ADD = defop("scatter_add", twin=ks.scatter_add_twin, kernel=ks.scatter_add, meta=_scatter_meta,
                    backward=_scatter_add_backward, save=_save(1),
                    tags={"indexing", "no_input_overlap", "inplace_safe"},
                    doc="input with src[i] added at input[..index[i]..] along dim (deterministic order).")


def _scatter_reduce_save(ctx, inputs, outputs, params):
    if params["reduce"] == "sum":
        ctx.save_for_backward(inputs[1])
    else:
        ctx.save_for_backward(inputs[1], inputs[0], inputs[2], outputs[0])


def _scatter_reduce_backward(ctx, g):
    """PyTorch's formulas (derivatives.yaml: scatter_reduce_backward); the source gradient is padded
    with zeros when ``src`` is larger than ``index``."""
    p = ctx.params
    grads = _scatter_reduce_grads(ctx, g, p["dim"], p["reduce"], p["include_self"])
    gx, gsrc = grads
    if gx is not None and not p["include_self"]:
        (index,) = ctx.saved_tensors[:1]
        gx = dispatch(SCATTER_VALUE, gx, index, dim=p["dim"], value=0)
    return gx, None, _pad_to(gsrc, ctx.inputs[2])


def _scatter_reduce_grads(ctx, g, dim, reduce, include_self):
    from .. import where

    saved = ctx.saved_tensors
    index = saved[0]
    if reduce == "sum":
        return g, dispatch(GATHER, g, index, dim=dim)
    _, x, src, result = saved
    src = _src_region(src, index._shape)
    if reduce == "mean":
        n = dispatch(SCATTER_ADD, _zeros(x.shape, g) + (1 if include_self else 0), index, _zeros(src.shape, g) + 1,
                     dim=dim)
        n = dispatch(MASKED_FILL, n, n == 0, 1)
        gx = g / n
        return gx, dispatch(GATHER, gx, index, dim=dim)
    if reduce in ("amax", "amin"):
        # evenly distributed between the elements equal to the result (PyTorch's rule)
        value = dispatch(GATHER, result, index, dim=dim)
        self_is_result = (x == result).to(g.dtype)
        src_is_result = (src == value).to(g.dtype)
        n = dispatch(SCATTER_ADD, self_is_result, index, src_is_result, dim=dim)
        distributed = g / n
        return self_is_result * distributed, src_is_result * dispatch(GATHER, distributed, index, dim=dim)
    if reduce == "prod":
        # exclusive products where self/src hold zeros (PyTorch's formula)
        masked_self = dispatch(MASKED_FILL, x, x == 0, 1)
        masked_self_result = dispatch(SCATTER_REDUCE, masked_self, index, src, dim=dim, reduce="prod",
                                      include_self=include_self)
        gx = g * masked_self_result / masked_self
        src_zero = src == 0
        zeros_per_dst = dispatch(SCATTER_ADD, _zeros(x.shape, g), index, src_zero.to(g.dtype), dim=dim)
        src_single_zero = src_zero & (dispatch(GATHER, zeros_per_dst, index, dim=dim) == 1)
        masked_src = dispatch(MASKED_FILL, src, src_single_zero, 1)
        masked_src_result = dispatch(SCATTER_REDUCE, x, index, masked_src, dim=dim, reduce="prod",
                                     include_self=include_self)
        gsrc = where(src_single_zero, dispatch(GATHER, g * masked_src_result, index, dim=dim),
                     dispatch(GATHER, g * result, index, dim=dim) / dispatch(MASKED_FILL, src, src_zero, 1))
        return gx, gsrc
    # 'max' and 'min' (aliases the forward takes): PyTorch's backward refuses them
    raise RuntimeError(f"scatter_reduce(): Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but "
                       f"got {reduce}.")


_REDUCE_ALIASES = {"max": "amax", "min": "amin"}  # PyTorch's forward takes these (its backward does not)


def _scatter_reduce_meta(x, index, src, dim, reduce, include_self=True):
    return _scatter_meta(x, index, src, dim, reduce=_REDUCE_ALIASES.get(reduce, reduce), include_self=include_self)


SCATTER_REDUCE = defop("scatter_reduce", twin=ks.scatter_reduce_twin, kernel=ks.scatter_reduce,
                       meta=_scatter_reduce_meta, backward=_scatter_reduce_backward, save=_scatter_reduce_save,
                       tags={"indexing", "no_input_overlap", "inplace_safe"},
                       doc="input with src reduced into input[..index[i]..] (sum, prod, mean, amax, amin).")


# ----------------------------------------------------------------------------------------------
# writes: index_add, index_copy, index_fill
# ----------------------------------------------------------------------------------------------


def _index_add_meta(x, index, source, dim, alpha=1):
    return Plan(args=[x, index, source], outputs=[(x._shape, x.dtype)], params={"dim": dim, "alpha": alpha})


def _index_add_backward(ctx, g):
    (index,) = ctx.saved_tensors
    p = ctx.params
    gsrc = None
    if ctx.needs_input_grad[2]:
        gsrc = dispatch(INDEX_SELECT, g, index, dim=p["dim"])
        if p["alpha"] != 1:
            gsrc = gsrc * p["alpha"]
        gsrc = gsrc.reshape(ctx.inputs[2].shape)
    return g, None, gsrc


INDEX_ADD = defop("index_add", twin=ks.index_add_twin, kernel=ks.index_add, meta=_index_add_meta,
                  backward=_index_add_backward, save=_save(1), tags={"indexing", "no_input_overlap", "inplace_safe"},
                  doc="input with alpha * source's slices added at index along dim (deterministic order).")


def _index_copy_meta(x, index, source, dim):
    return Plan(args=[x, index, source], outputs=[(x._shape, x.dtype)], params={"dim": dim})


def _index_copy_backward(ctx, g):
    (index,) = ctx.saved_tensors
    dim = ctx.params["dim"]
    gx = dispatch(INDEX_FILL, g, index, 0, dim=dim) if ctx.needs_input_grad[0] else None
    gsrc = dispatch(INDEX_SELECT, g, index, dim=dim).reshape(ctx.inputs[2].shape) if ctx.needs_input_grad[2] else None
    return gx, None, gsrc


INDEX_COPY = defop("index_copy", twin=ks.index_copy_twin, kernel=ks.index_copy, meta=_index_copy_meta,
                   backward=_index_copy_backward, save=_save(1), tags={"indexing", "no_input_overlap", "inplace_safe"},
                   doc="input with source's slices copied to index along dim (duplicates: the last wins).")


def _index_fill_meta(x, index, value, dim):
    # out of place: laid out as x (PyTorch fills a clone of x)
    return Plan(args=[x, index, value], outputs=[(x._shape, x.dtype, preserve_strides(x))], params={"dim": dim})


def _index_fill_backward(ctx, g):
    (index,) = ctx.saved_tensors
    gx = dispatch(INDEX_FILL, g, index, 0, dim=ctx.params["dim"])
    gvalue = None
    if ctx.needs_input_grad[2]:
        gvalue = _reduce_to((g - gx).sum(), ctx.inputs[2])
    return gx, None, gvalue


INDEX_FILL = defop("index_fill", twin=ks.index_fill_twin, kernel=ks.index_fill, meta=_index_fill_meta,
                   backward=_index_fill_backward, save=_save(1), tags={"indexing", "inplace_safe"},
                   doc="input with the slices at index along dim set to value (negative indices wrap).")


# ----------------------------------------------------------------------------------------------
# writes: index_put (x[idx] = v, x[idx] += v with accumulate)
# ----------------------------------------------------------------------------------------------


def _basic_shape(x: Tensor, basic) -> tuple:
    return basic_view_geometry(x._shape, x._stride, x._offset, basic)[0] if basic else x._shape


def _index_put_meta(x, indices, values, dims, accumulate=False, basic=()):
    yshape = _basic_shape(x, basic)
    shapes = [i._shape if i is not None else None for i in _per_dim(indices, dims, len(yshape))]
    lay = AdvancedLayout(yshape, (0,) * len(yshape), shapes)
    vgeom = broadcast_geometry(values, lay.result_shape, "index_put")
    # out of place: laid out as x (PyTorch writes into a clone of x)
    return Plan(args=[x, list(indices), vgeom], outputs=[(x._shape, x.dtype, preserve_strides(x))],
                params={"dims": tuple(dims), "accumulate": bool(accumulate), "basic": tuple(basic)})


def _index_put_backward(ctx, g):
    from .._indexing import basic_getitem

    p = ctx.params
    indices = list(ctx.saved_tensors)
    gx = gv = None
    if ctx.needs_input_grad[0]:
        if p["accumulate"]:
            gx = g
        else:
            gx = dispatch(INDEX_PUT, g, indices, _zeros((), g), dims=p["dims"], accumulate=False, basic=p["basic"])
    if ctx.needs_input_grad[2]:
        gy = basic_getitem(g, p["basic"]) if p["basic"] else g
        gv = _reduce_to(dispatch(INDEX, gy, indices, dims=p["dims"]), ctx.inputs[2])
    return gx, None, gv


INDEX_PUT = defop("index_put", twin=ks.index_put_twin, kernel=ks.index_put, meta=_index_put_meta,
                  backward=_index_put_backward, save=_index_save, tags={"indexing", "no_input_overlap", "inplace_safe"},
                  doc="input with input[basic][indices] = values (or += with accumulate, deterministic order).")


# ----------------------------------------------------------------------------------------------
# masked ops
# ----------------------------------------------------------------------------------------------


def _masked_fill_meta(x, mask, value):
    shape = broadcast_shapes(x._shape, mask._shape)
    return Plan(args=[broadcast_geometry(x, shape, "masked_fill"), broadcast_geometry(mask, shape, "masked_fill"),
                      value], outputs=[(shape, x.dtype)])


def _masked_fill_save(ctx, inputs, outputs, params):
    ctx.save_for_backward(inputs[1])


def _masked_fill_backward(ctx, g):
    (mask,) = ctx.saved_tensors
    gx = _reduce_to(dispatch(MASKED_FILL, g, mask, 0), ctx.inputs[0]) if ctx.needs_input_grad[0] else None
    gv = None
    if ctx.needs_input_grad[2]:
        gv = _reduce_to(dispatch(MASKED_SELECT, g, mask).sum(), ctx.inputs[2])
    return gx, None, gv


MASKED_FILL = defop("masked_fill", twin=km.masked_fill_twin, kernel=km.masked_fill, meta=_masked_fill_meta,
                    backward=_masked_fill_backward, save=_masked_fill_save, tags={"indexing", "inplace_safe"},
                    doc="input with value where mask is true (mask broadcasts).")


def _masked_select_meta(x, mask):
    shape = broadcast_shapes(x._shape, mask._shape)
    return Plan(args=[broadcast_geometry(x, shape, "masked_select"), broadcast_geometry(mask, shape, "masked_select")],
                outputs=None)


def _masked_select_backward(ctx, g):
    (mask,) = ctx.saved_tensors
    meta = ctx.inputs[0]
    shape = broadcast_shapes(meta.shape, mask.shape)
    base = _zeros(shape, g)
    return _reduce_to(dispatch(MASKED_SCATTER, base, mask, g), meta), None


MASKED_SELECT = defop("masked_select", twin=km.masked_select_twin, kernel=km.masked_select, meta=_masked_select_meta,
                      backward=_masked_select_backward, save=_masked_fill_save, tags={"indexing"},
                      doc="The elements of input where mask is true, as a 1-d tensor (count pass + compaction).")


def _masked_scatter_meta(x, mask, source):
    shape = broadcast_shapes(x._shape, mask._shape)
    return Plan(args=[broadcast_geometry(x, shape, "masked_scatter"), broadcast_geometry(mask, shape, "masked_scatter"),
                      source], outputs=[(shape, x.dtype)])


def _masked_scatter_backward(ctx, g):
    (mask,) = ctx.saved_tensors
    gx = _reduce_to(dispatch(MASKED_FILL, g, mask, 0), ctx.inputs[0]) if ctx.needs_input_grad[0] else None
    gs = None
    if ctx.needs_input_grad[2]:
        meta = ctx.inputs[2]
        numel = int(np.prod(meta.shape))
        selected = dispatch(MASKED_SELECT, g, mask)
        if selected.numel() < numel:  # positions of source that were not used get zero
            padded = _zeros((numel,), g)
            padded = dispatch(INDEX_COPY, padded, _arange(selected.numel(), g), selected, dim=0)
            selected = padded
        gs = _reduce_to(selected.reshape(meta.shape), meta)
    return gx, None, gs


def _arange(n: int, like: Tensor) -> Tensor:
    from .._factories import arange

    return arange(n, device=like.device)


MASKED_SCATTER = defop("masked_scatter", twin=km.masked_scatter_twin, kernel=km.masked_scatter,
                       meta=_masked_scatter_meta, backward=_masked_scatter_backward, save=_masked_fill_save,
                       tags={"indexing", "inplace_safe"},
                       doc="input with source's elements, in order, at the positions where mask is true.")


def _nonzero_meta(x):
    return Plan(args=[x], outputs=None)


NONZERO = defop("nonzero", twin=km.nonzero_twin, kernel=km.nonzero, meta=_nonzero_meta, tags={"indexing"},
                doc="Coordinates of the non-zero elements, [count, ndim] int64 (count pass + compaction).")


def _one_hot_meta(x, num_classes):
    return Plan(args=[x], outputs=[(x._shape + (num_classes,), D.int64)], params={"num_classes": num_classes})


ONE_HOT = defop("one_hot", twin=ki.one_hot_twin, kernel=ki.one_hot, meta=_one_hot_meta, tags={"indexing"},
                doc="out[..., c] = (input == c), int64.")


# ----------------------------------------------------------------------------------------------
# public functions and methods: reads
# ----------------------------------------------------------------------------------------------


@tensor_method
def index_select(input: Tensor, dim: int, index: Tensor, *, out=None) -> Tensor:
    """The slices of ``input`` along ``dim`` at the positions in ``index`` (0-d or 1-d, int32/int64)."""
    _need_tensor("index_select", index, "index")
    _index_dtype("index_select", index, (D.int32, D.int64))  # (PyTorch: RuntimeError; a 2-d index: IndexError)
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if isinstance(out, Tensor) and isinstance(input, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError("index_select(): self and result must have the same scalar type")
    out = exact_out("index_select", out, input, input)
    d = _dim("index_select", dim, input.ndim)
    check_same_device("index_select", index, input)
    if input.ndim == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    _check_range("index_select", index, input._shape[d] if input.ndim else 1, d, negative=False)
    return dispatch(INDEX_SELECT, input, index, dim=d, out=out)


def _gather_shape_check(op: str, x: Tensor, dim: int, index: Tensor, src: Tensor | None = None) -> None:
    if index.numel() == 0:  # (PyTorch checks nothing for an empty index: scatter does nothing, gather is empty)
        return
    xn, inn = max(x.ndim, 1), max(index.ndim, 1)
    if xn != inn:
        raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as "
                           f"{'self' if src is not None else 'input'} tensor")
    if src is not None and max(src.ndim, 1) != inn:
        raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as src tensor")
    xs = x._shape or (1,)
    ishape = index._shape or (1,)
    ss = (src._shape or (1,)) if src is not None else None
    for d in range(inn):
        if d != dim and ishape[d] > xs[d]:
            raise RuntimeError(f"{op}(): Size does not match at dimension {d} expected index {list(index.shape)} to be "
                               f"smaller than self {list(x.shape)} apart from dimension {dim}")
        if ss is not None and ishape[d] > ss[d]:
            raise RuntimeError(f"{op}(): Expected index {list(index.shape)} to be smaller than self {list(x.shape)} "
                               f"apart from dimension {dim} and to be smaller size than src {list(src.shape)}")


@tensor_method
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out=None) -> Tensor:
    """``out[i][j][k] = input[index[i][j][k]][j][k]`` for ``dim == 0`` (index: int64 or int32, same rank)."""
    out = exact_out("gather", out, input, input)
    _need_tensor("gather", index, "index")
    _index_dtype("gather", index, _GATHER_INDEX)
    d = _dim("gather", dim, input.ndim)
    check_same_device("gather", index, input)
    _gather_shape_check("gather", input, d, index)
    _check_range("gather", index, input._shape[d] if input.ndim else 1, d, negative=False)
    return dispatch(GATHER, input, index, dim=d, out=out)


@tensor_method
def take(input: Tensor, index: Tensor, *, out=None) -> Tensor:
    """``input`` read as a 1-d tensor (row-major) at ``index`` (int64; negative positions wrap)."""
    if isinstance(out, Tensor) and isinstance(input, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(f"take(): self and out expected to have the same dtype, but got self.dtype = "
                           f"{D.torch_name(input.dtype)} and out.dtype = {D.torch_name(out.dtype)}")
    out = exact_out("take", out, input, input)
    _need_tensor("take", index, "index")
    _index_dtype("take", index)
    check_same_device("take", index, input)
    check_flat_range("take", index, input.numel())
    return dispatch(TAKE, input, index, out=out)


@tensor_method
def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None, *, out=None) -> Tensor:
    """numpy's ``take_along_axis``: ``gather`` after broadcasting input and indices (except along ``dim``)."""
    _need_tensor("take_along_dim", indices, "indices")
    if indices.dtype is not D.int64:
        raise RuntimeError(f"take_along_dim(): dtype of indices should be int64 but got {indices.dtype.name}")
    if dim is None:  # (PyTorch gathers from the flattened input: a negative index is out of range here)
        flat = input.reshape(-1)
        _check_range("take_along_dim", indices, flat._shape[0], 0, negative=False)
        return gather(flat, 0, indices.reshape(-1), out=out)
    if input.ndim != indices.ndim:
        raise RuntimeError(f"take_along_dim(): input and indices should have the same number of dimensions, but got "
                           f"{input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    d = _dim("take_along_dim", dim, input.ndim)
    indices = _wrap_negative("take_along_dim", indices, input._shape[d] if input.ndim else 1, d)
    sizes = list(input._shape)
    if sizes:
        sizes[d] = indices._shape[d]
    idx = indices.broadcast_to(broadcast_shapes(tuple(sizes), indices._shape))
    sizes = list(indices._shape)
    if sizes:
        sizes[d] = input._shape[d]
    src = input.broadcast_to(broadcast_shapes(tuple(sizes), input._shape))
    return gather(src, d, idx, out=out)


# ----------------------------------------------------------------------------------------------
# public functions: scatter family
# ----------------------------------------------------------------------------------------------

_SCATTER_REDUCES = ("sum", "prod", "mean", "amax", "amin", *_REDUCE_ALIASES)


def _scatter_checks(op: str, input: Tensor, dim, index: Tensor, src: Tensor | None):
    _need_tensor(op, index, "index")
    _index_dtype(op, index, _GATHER_INDEX)
    d = _dim(op, dim, input.ndim)
    check_same_device(op, index, input)
    if src is not None:
        _need_tensor(op, src, "src")
        _same_dtype(op, input, src)
        if src.ndim:  # (a 0-d cpu src is a scalar, which the dispatcher moves over)
            check_same_device(op, src, input, "src")
    _gather_shape_check(op, input, d, index, src)
    _check_range(op, index, input._shape[d] if input.ndim else 1, d, negative=False)
    return d, index, src


def _scatter(op: str, input, dim, index, src, value, reduce, inplace: bool, out=None):
    if out is not None:  # of input's dtype (checked first, as PyTorch)
        out = exact_out(op, out, input, input, src)
    if src is not None and value is not None:  # (value was silently ignored beside a tensor src)
        raise TypeError(f"{op}(): got both a value and src (pass one: src, a Tensor, or value, a number)")
    if src is not None and not isinstance(src, Tensor):
        value, src = src, None
    if src is None and value is None:
        raise TypeError(f"{op}(): expected src (a Tensor) or value (a number)")
    if reduce is not None:
        modes = {"add": "sum", "multiply": "prod"}
        if reduce not in modes:
            raise RuntimeError(f"{op}(): reduce argument must be either add or multiply, got {reduce!r}")
        if src is None:
            from .._factories import full

            src = full(index._shape, value, dtype=input.dtype, device=input.device)
        d, index, src = _scatter_checks(op, input, dim, index, src)
        return dispatch(SCATTER_REDUCE, input, index, src, dim=d, reduce=modes[reduce], include_self=True,
                        inplace=inplace, out=out)
    if src is None:
        if isinstance(value, Tensor):
            if value.ndim:
                raise RuntimeError(f"{op}(): value must be a number or a 0-dim tensor")
            value = value.item()
        if isinstance(value, np.bool_):  # (a NumPy bool: its Python bool)
            value = bool(value)
        if not isinstance(value, numbers.Number):
            raise TypeError(f"{op}(): value must be a number, got {type(value).__name__}")
        if isinstance(index, Tensor) and index.numel():  # PyTorch converts the value only to write it
            value = check_scalar_fits(op, value, input.dtype)
        d, index, _ = _scatter_checks(op, input, dim, index, None)
        return dispatch(SCATTER_VALUE, input, index, dim=d, value=value, inplace=inplace, out=out)
    d, index, src = _scatter_checks(op, input, dim, index, src)
    return dispatch(SCATTER, input, index, src, dim=d, inplace=inplace, out=out)


@tensor_method
def scatter(input: Tensor, dim: int, index: Tensor, src=None, value=None, *, reduce=None, out=None) -> Tensor:
    """``input`` with ``out[..index[i]..] = src[i]`` along ``dim`` (or ``value``); duplicates: the last
    source in row-major order wins (deterministic). ``reduce='add'|'multiply'`` as in PyTorch."""
    return _scatter("scatter", input, dim, index, src, value, reduce, False, out)


@tensor_method
def scatter_(self: Tensor, dim: int, index: Tensor, src=None, value=None, *, reduce=None) -> Tensor:
    return _scatter("scatter_", self, dim, index, src, value, reduce, True)


@tensor_method
@autocast_op("scatter_add")
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor, *, out=None) -> Tensor:
    """``input`` with ``src[i]`` added at ``out[..index[i]..]`` along ``dim``, in source order (deterministic)."""
    out = exact_out("scatter_add", out, input, input, src)
    d, index, src = _scatter_checks("scatter_add", input, dim, index, src)
    return dispatch(SCATTER_ADD, input, index, src, dim=d, out=out)


@tensor_method
def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    d, index, src = _scatter_checks("scatter_add_", self, dim, index, src)
    return dispatch(SCATTER_ADD, self, index, src, dim=d, inplace=True)


def _scatter_reduce(op, input, dim, index, src, reduce, include_self, inplace, out=None):
    out = exact_out(op, out, input, input, src)
    if reduce not in _SCATTER_REDUCES:
        raise RuntimeError(f"{op}(): reduce argument must be either sum, prod, mean, amax or amin, got {reduce!r}")
    if reduce == "mean" and isinstance(input, Tensor) and input.dtype is D.bool:  # (PyTorch has no bool mean kernel)
        raise not_implemented_for(op, input.dtype)
    d, index, src = _scatter_checks(op, input, dim, index, src)
    if inplace and reduce != "sum" and (input._requires_grad or src._requires_grad):
        from ..autograd.grad_mode import is_grad_enabled

        if is_grad_enabled():  # the backward reads the old self: from a clone, as PyTorch saves one
            return input.copy_(dispatch(SCATTER_REDUCE, input.clone(), index, src, dim=d, reduce=reduce,
                                        include_self=bool(include_self)))
    return dispatch(SCATTER_REDUCE, input, index, src, dim=d, reduce=reduce, include_self=bool(include_self),
                    inplace=inplace, out=out)


@tensor_method
def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True, out=None) -> Tensor:
    """``src`` reduced into ``input`` at ``index`` along ``dim``: ``reduce`` is sum, prod, mean, amax or
    amin ('max'/'min' are taken as amax/amin, without a gradient, as PyTorch); with
    ``include_self=False`` the scattered-to positions start from the sources alone."""
    return _scatter_reduce("scatter_reduce", input, dim, index, src, reduce, include_self, False, out)


@tensor_method
def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    return _scatter_reduce("scatter_reduce_", self, dim, index, src, reduce, include_self, True)


# ----------------------------------------------------------------------------------------------
# public functions: index_add, index_copy, index_fill
# ----------------------------------------------------------------------------------------------


def _index_rows_checks(op: str, input: Tensor, dim, index: Tensor, source: Tensor, allowed):
    _need_tensor(op, index, "index")
    _need_tensor(op, source, "source")
    _index_dtype(op, index, allowed)  # (PyTorch: RuntimeError for the dtype, IndexError for the rank)
    if index.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    d = _dim(op, dim, input.ndim)
    if source.dtype is not input.dtype:
        raise RuntimeError(f"{op}(): self ({input.dtype.name}) and source ({source.dtype.name}) must have the same "
                           "scalar type")
    check_same_device(op, index, input)
    check_same_device(op, source, input, "source")
    xs, ss = input._shape or (1,), source._shape or (1,)
    if op.startswith("index_add") and input.ndim != source.ndim:
        # PyTorch's index_add wants the same rank (a 0-d self takes only a 0-d source); index_copy
        # reads a 0-d tensor as size 1
        raise RuntimeError(f"{op}(): source tensor shape must match self tensor shape, excluding the specified "
                           f"dimension. Got self.shape = {list(input.shape)} source.shape = {list(source.shape)}")
    copy = op.startswith("index_copy")  # (PyTorch: IndexError for index_copy's rank and count, as its 0-d source's)
    if copy and input.ndim and source.ndim and input.ndim != source.ndim:
        raise IndexError(f"{op}(): When source and destination are not scalars, their dimensionality must match. "
                         f"Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})")
    if input.ndim and source.ndim and (len(xs) != len(ss) or any(a != b for i, (a, b) in enumerate(zip(xs, ss))
                                                                  if i != d)):
        raise RuntimeError(f"{op}(): Source/destination tensor must have same slice shapes. Destination slice shape: "
                           f"{list(input.shape)} at dimension {d} and source slice shape: {list(source.shape)} at "
                           f"dimension {d}.")
    if not source.ndim and index.numel() != 1:  # (PyTorch: IndexError for a 0-d source)
        raise IndexError(f"{op}(): When source is scalar, index should have one element (got {index.numel()})")
    if source.ndim and index.numel() != ss[d]:
        raise (IndexError if copy else RuntimeError)(
            f"{op}(): Number of indices ({index.numel()}) should be equal to source.size(dim) "
            f"({ss[d] if source.ndim else 1})")
    if input.numel() or input.ndim <= 1:
        # PyTorch checks no index of an empty input of rank > 1 (nothing is written; the kernels return)
        _check_range(op, index, xs[d], d, negative=False)
    return d, index, source


@tensor_method
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1, out=None) -> Tensor:
    """``input`` with ``alpha * source``'s slices added at ``index`` along ``dim``, in order (deterministic)."""
    out = exact_out("index_add", out, input, input, source)
    d, index, source = _index_rows_checks("index_add", input, dim, index, source, (D.int32, D.int64))
    return dispatch(INDEX_ADD, input, index, source, dim=d, alpha=_alpha_for(input, alpha), out=out)


@tensor_method
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    d, index, source = _index_rows_checks("index_add_", self, dim, index, source, (D.int32, D.int64))
    return dispatch(INDEX_ADD, self, index, source, dim=d, alpha=_alpha_for(self, alpha), inplace=True)


def _alpha_for(input: Tensor, alpha):
    """A bool tensor's alpha is a bool, as PyTorch converts it (``alpha=-1`` is True: the add is an
    OR), so ``x + alpha * source`` never leaves {0, 1} before the cast."""
    return bool(alpha) if input.dtype is D.bool else alpha


@tensor_method
@autocast_op("index_copy")
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor, *, out=None) -> Tensor:
    """``input`` with ``source``'s slices copied to ``index`` along ``dim`` (duplicates: the last wins)."""
    out = exact_out("index_copy", out, input, input, source)
    d, index, source = _index_rows_checks("index_copy", input, dim, index, source, (D.int64,))
    return dispatch(INDEX_COPY, input, index, source, dim=d, out=out)


@tensor_method
def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    d, index, source = _index_rows_checks("index_copy_", self, dim, index, source, (D.int64,))
    return dispatch(INDEX_COPY, self, index, source, dim=d, inplace=True)


def _index_fill(op: str, input: Tensor, dim, index: Tensor, value, inplace: bool):
    _need_tensor(op, index, "index")
    _index_dtype(op, index, (D.int64,), IndexError)
    if index.ndim > 1:  # (PyTorch: IndexError for the dtype above, RuntimeError here)
        raise RuntimeError(f"{op}(): Index has to be a vector/scalar")
    d = _dim(op, dim, input.ndim)
    check_same_device(op, index, input)
    value = _fill_value(op, value, input)
    if input.numel() or input.ndim <= 1:
        # PyTorch checks no index of an empty input of rank > 1 (nothing is written; the kernels return)
        _check_range(op, index, input._shape[d] if input.ndim else 1, d, negative=True)
    return dispatch(INDEX_FILL, input, index, value, dim=d, inplace=inplace)


def _fits_by_dtype(src: D.dtype, dst: D.dtype) -> bool:
    """Every value of ``src`` converts to ``dst`` without overflow: the same dtype, or one that
    promotes to ``dst``, but int32/int64 into float16 (70000 overflows it)."""
    if src is dst:
        return True
    return D.promote_types(src, dst) is dst and not (dst is D.float16 and src in (D.int32, D.int64))


def _fill_value(op: str, value, input: Tensor):
    """A number, or a 0-d tensor (kept as a tensor: read on the device, differentiable)."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"{op} only supports a 0-dimensional value tensor, but got tensor with {value.ndim} "
                               "dimension(s).")
        if value.is_cpu or not _fits_by_dtype(value.dtype, input.dtype):
            # PyTorch reads the value (.item(), a sync on a GPU) and checks it fits; a device value
            # whose dtype always fits (the usual case: the same dtype) is not read back
            check_scalar_fits(op, value.item(), input.dtype)
        return value
    if isinstance(value, np.bool_):  # (a NumPy bool: its Python bool)
        value = bool(value)
    if not isinstance(value, numbers.Number) or isinstance(value, complex):
        raise TypeError(f"{op}(): value must be a number or a 0-dim Tensor, got {type(value).__name__}")
    check_scalar_fits(op, value, input.dtype)
    return value


@tensor_method
def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` set to ``value`` (negative indices wrap)."""
    return _index_fill("index_fill", input, dim, index, value, False)


@tensor_method
def index_fill_(self: Tensor, dim: int, index: Tensor, value) -> Tensor:
    return _index_fill("index_fill_", self, dim, index, value, True)


# ----------------------------------------------------------------------------------------------
# public functions: index_put and masked ops
# ----------------------------------------------------------------------------------------------


def _index_put(op: str, input: Tensor, indices, values, accumulate, inplace: bool):
    from .indexing_advanced import put

    if not isinstance(indices, tuple | list):
        raise TypeError(f"{op}(): indices must be a tuple of Tensors, got {type(indices).__name__}")
    for n, i in enumerate(indices):
        if not isinstance(i, Tensor):  # PyTorch's argument parser takes no None here (unlike x[None, idx])
            raise TypeError(f"{op}(): expected Tensor as element {n} in argument 'indices', but got "
                            f"{type(i).__name__}")
    _need_tensor(op, values, "values")
    return put(input, tuple(indices), values, accumulate=bool(accumulate), inplace=inplace, op=op)


def _index_put_dtype_error(op: str, input: Tensor, values: Tensor) -> RuntimeError:
    return RuntimeError(f"{op}(): Index put requires the source and destination dtypes match, got "
                        f"{input.dtype.name} for the destination and {values.dtype.name} for the source.")


@tensor_method
@autocast_op("index_put")
def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``input[indices] = values`` (``+=`` with ``accumulate``: duplicates summed in order)."""
    return _index_put("index_put", input, indices, values, accumulate, False)


@tensor_method
def index_put_(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    return _index_put("index_put_", input, indices, values, accumulate, True)


def _mask_checks(op: str, input: Tensor, mask: Tensor) -> Tensor:
    _need_tensor(op, mask, "mask")
    if mask.dtype is not D.bool:
        raise RuntimeError(f"{op}: expected BoolTensor for mask, but got mask with dtype {mask.dtype.name}")
    check_same_device(op, mask, input, "mask")
    return mask


def _masked_fill(op: str, input: Tensor, mask: Tensor, value, inplace: bool):
    mask = _mask_checks(op, input, mask)
    value = _fill_value(op, value, input)
    if inplace:
        broadcast_geometry(mask, input._shape, op)
    return dispatch(MASKED_FILL, input, mask, value, inplace=inplace)


@tensor_method
def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``value`` where ``mask`` (bool, broadcast) is true, else ``input``."""
    return _masked_fill("masked_fill", input, mask, value, False)


@tensor_method
def masked_fill_(self: Tensor, mask: Tensor, value) -> Tensor:
    return _masked_fill("masked_fill_", self, mask, value, True)


@tensor_method
def masked_select(input: Tensor, mask: Tensor, *, out=None) -> Tensor:
    """The elements of ``input`` where ``mask`` is true (both broadcast), as a 1-d tensor. ``out=``
    (of ``input``'s dtype) gets the result resized to its data-dependent length, as PyTorch's."""
    if isinstance(out, Tensor) and isinstance(input, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError("masked_select(): self and result must have the same scalar type")
    out = exact_out("masked_select", out, input, input)
    mask = _mask_checks("masked_select", input, mask)
    if out is not None:  # (PyTorch's assert_no_overlap of out= with input and mask)
        check_no_overlap("masked_select", out, (input, mask), base_first=False)
    result = dispatch(MASKED_SELECT, input, mask)
    return result if out is None else write_out(result, out)


def _masked_scatter(op: str, input: Tensor, mask: Tensor, source: Tensor, inplace: bool):
    mask = _mask_checks(op, input, mask)
    _need_tensor(op, source, "source")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"{op}: expected self and source to have same dtypes but got {input.dtype.name} and "
                           f"{source.dtype.name}")
    check_same_device(op, source, input, "source")
    shape = broadcast_shapes(input._shape, mask._shape)
    if inplace:
        broadcast_geometry(mask, input._shape, op)
        shape = input._shape
    mgeom = broadcast_geometry(mask, shape, op)
    count = km.mask_count_twin(_np_of(mgeom)) if input.is_cpu else km.mask_count(_dev_of(mgeom))
    if count > source.numel():
        raise RuntimeError(f"{op}: Number of elements of source ({source.numel()}) < number of ones in mask "
                           f"({count})")
    return dispatch(MASKED_SCATTER, input, mask, source, inplace=inplace)


def _np_of(geom):
    from .._storage import numpy_view

    t = geom.tensor
    return numpy_view(t._storage, geom.shape, geom.strides, geom.offset, t.dtype.np)


def _dev_of(geom):
    from .._storage import device_array

    t = geom.tensor
    return device_array(t._storage, geom.shape, geom.strides, geom.offset, t.dtype.np)


@tensor_method
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``input`` with ``source``'s elements (row-major) written, in order, where ``mask`` is true."""
    return _masked_scatter("masked_scatter", input, mask, source, False)


@tensor_method
def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return _masked_scatter("masked_scatter_", self, mask, source, True)


# ----------------------------------------------------------------------------------------------
# public functions: nonzero, argwhere, one_hot, bincount
# ----------------------------------------------------------------------------------------------


@tensor_method
def nonzero(input: Tensor, *, out=None, as_tuple: bool = False):
    """Coordinates of the non-zero elements: ``[count, ndim]`` int64, or with ``as_tuple`` one 1-d
    tensor per dim (a 0-d input counts as 1-d, as in PyTorch)."""
    if out is not None:  # int64, resized to the data-dependent count (PyTorch's nonzero.out)
        if as_tuple:
            raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
        if isinstance(out, Tensor) and out.dtype is not D.int64:
            raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar type"
                               f"{D.torch_name(out.dtype)}")
        out = exact_out("nonzero", out, input, dtype=D.int64)
        return write_out(dispatch(NONZERO, input), out)
    if as_tuple:
        coords = dispatch(NONZERO, input.reshape(1) if input.ndim == 0 else input)
        return tuple(coords.unbind(1))
    return dispatch(NONZERO, input)


@tensor_method
def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero`` with a row count fixed in advance (a shape that does not depend on the data):
    the first ``size`` coordinates, padded with rows of ``fill_value`` when there are fewer."""
    size, fill_value = operator.index(size), operator.index(fill_value)
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    check_scalar_fits("nonzero_static", fill_value, D.int64, name="fill_value")
    coords = dispatch(NONZERO, input)
    found = min(size, coords._shape[0])
    result = filled((size, input.ndim), fill_value, D.int64, input.device)
    if found:
        result[:found] = coords[:found]
    return result


@tensor_method
def argwhere(input: Tensor) -> Tensor:
    return dispatch(NONZERO, input)


def one_hot(input: Tensor, num_classes: int = -1) -> Tensor:
    """``out[..., c] = (input == c)`` as int64; ``num_classes=-1`` means ``input.max() + 1``. (PyTorch's
    docs name the argument ``tensor``; torch 2.13 takes it as ``input``, as here.)"""
    _need_tensor("one_hot", input, "input")
    tensor = input
    if tensor.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type int64 (LongTensor).")
    num_classes = operator.index(num_classes)
    r = index_minmax(tensor)
    if r is None:
        if num_classes <= 0:  # PyTorch: also 0 (and other negatives) for an empty tensor
            raise RuntimeError("one_hot: Can not infer total number of classes from empty tensor.")
    else:
        if r[0] < 0:
            raise RuntimeError("one_hot: Class values must be non-negative.")
        if num_classes == -1:
            num_classes = r[1] + 1
        elif r[1] >= num_classes:
            raise RuntimeError(f"one_hot: Class values must be smaller than num_classes (got {r[1]} with "
                               f"num_classes={num_classes}).")
    if num_classes < 0:
        raise RuntimeError(f"one_hot: num_classes should be -1 or non-negative, got {num_classes}")
    return dispatch(ONE_HOT, tensor, num_classes=num_classes)


@tensor_method
def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Counts (or summed weights) of each value of a 1-d non-negative integer tensor; deterministic
    (``index_add`` into zeros). Weights: float32 stays float32, any other dtype gives float64 (PyTorch's rule)."""
    need_tensor("bincount", input)
    from .._factories import ones, zeros

    if input.dtype.is_floating_point or input.dtype is D.bool:  # PyTorch's dtype dispatch fails first
        raise not_implemented_for("bincount", input.dtype)
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise RuntimeError("bincount: minlength should be >= 0")
    if weights is not None:
        _need_tensor("bincount", weights, "weights")
        if weights.ndim != 1 or weights.shape[0] != input.shape[0]:
            raise RuntimeError("bincount: weights should be 1-d and have the same length as input")
        check_same_device("bincount", weights, input, "weights")
    r = index_minmax(input)
    if r is not None and r[0] < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if r is None:  # PyTorch: an empty input gives int64 zeros, whatever the weights' dtype
        return zeros(minlength, dtype=D.int64, device=input.device)
    length = max(minlength, r[1] + 1)
    index = input if input.dtype in (D.int32, D.int64) else input.to(D.int64)
    if weights is None:
        out = zeros(length, dtype=D.int64, device=input.device)
        src = ones(input.shape[0], dtype=D.int64, device=input.device)
    else:  # (weights that require grad get g[input] through index_add's backward; PyTorch has no
        # bincount derivative and raises at backward: dropping the path silently would be wrong)
        wd = D.float32 if weights.dtype is D.float32 else D.float64
        out = zeros(length, dtype=wd, device=input.device)
        src = weights.to(wd)
    return dispatch(INDEX_ADD, out, index, src, dim=0, alpha=1, inplace=True)


# ----------------------------------------------------------------------------------------------
# advanced indexing: Tensor.__getitem__ / __setitem__ with tensors, lists, bools
# ----------------------------------------------------------------------------------------------

from . import indexing_advanced as _adv  # noqa: E402  (needs the ops above)

_adv.install()

__all__ = [
    "IndexOutOfRangeError", "argwhere", "bincount", "gather", "index_add", "index_copy", "index_fill", "index_put",
    "index_put_", "index_select", "masked_fill", "masked_scatter", "masked_select", "nonzero", "nonzero_static",
    "one_hot", "scatter", "scatter_add", "scatter_reduce", "take", "take_along_dim",
]
