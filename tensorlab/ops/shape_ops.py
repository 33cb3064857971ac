"""The shape / data-movement op family (issue 3): declarations, public functions and Tensor methods.

Ops with their own OpDef (kernels in ``tensorlab_kernels/shape``):

- ``cat`` (takes a list; PyTorch's promotion across inputs; the legacy skip of 1-D ``(0,)``
  inputs) and ``stack`` (the same launcher over views with a size-1 dim inserted);
- ``flip`` (a strided copy from a view with negated strides) and ``roll`` (its own kernel);
- ``repeat`` (``tile``) and ``repeat_interleave`` (int repeats: one strided copy; tensor
  repeats: scan + segment search + gather, with a deterministic segment-sum backward);
- ``tril``/``triu`` (a masked copy, also in place) and ``diag_embed`` (fill + diagonal copy).

Built from those and from views: ``concat``/``concatenate``, ``hstack``/``vstack``/``row_stack``/
``dstack``/``column_stack``, ``fliplr``/``flipud``, ``tile``, ``diag``, ``trace`` (``diagonal``
then ``sum``), ``meshgrid``/``broadcast_tensors``/``atleast_{1,2,3}d`` (views, no copy).

Backward rules are written with registered ops: cat -> ``narrow``, stack -> ``select``, flip ->
flip, roll -> roll back, repeat -> reshape + ``sum`` over the repeat dims, tril -> tril, ...
"""

from __future__ import annotations

import warnings

import numpy as np

from tensorlab_kernels.shape import concat as kcat
from tensorlab_kernels.shape import reorder as kreorder
from tensorlab_kernels.shape import replicate as krep
from tensorlab_kernels.shape import triangular as ktri

from .. import _dtype as D
from .._broadcast import broadcast_shapes
from .._dispatch import dispatch
from .._layout import preserve_strides
from .._registry import Geometry, Plan, defop
from .._tensor import Tensor, need_tensor, norm_dim, tensor_method
from .._views import int_arg, shape_args
from ..amp.autocast_mode import autocast_op
from . import elementwise_common as E

__all__ = [
    "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_tensors", "cat", "column_stack", "concat", "concatenate",
    "diag", "diag_embed", "dstack", "flip", "fliplr", "flipud", "hstack", "meshgrid", "repeat_interleave", "roll",
    "row_stack", "stack", "tile", "trace", "tril", "triu", "vstack",
]


def _no_save(ctx, inputs, outputs, params):
    return None


def _grad_as(g: Tensor, meta):
    """``g`` in the input's dtype (cat/stack promote), or None for inputs without a gradient."""
    if not meta.requires_grad:
        return None
    return g if g.dtype is meta.dtype else g.to(meta.dtype)


def _tensor_list(tensors, op: str) -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, list | tuple):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        f"{type(tensors).__name__}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def _same_device(tensors: list, op: str) -> None:
    # Stricter than the dispatcher: a 0-d cpu tensor inside a list is not a scalar argument.
    for t in tensors[1:]:
        if t.device != tensors[0].device:
            raise RuntimeError(f"{op}(): Expected all tensors to be on the same device, but found at least two "
                               f"devices, {tensors[0].device} and {t.device}!")


# ----------------------------------------------------------------------------------------------
# cat / stack
# ----------------------------------------------------------------------------------------------


def _cat_skipped(t) -> bool:
    # PyTorch's legacy rule: 1-D empty tensors of shape (0,) are ignored by cat whatever the
    # other inputs' shapes (they once were the only empty tensors).
    return len(t._shape) == 1 and t._shape[0] == 0


def _cat_meta(tensors, dim, out_dtype=None):
    # every input counts for the dtype, skipped ones too; an out= of another dtype is written
    # directly (``_join_out_params``)
    out_dtype = D.result_type(*tensors) if out_dtype is None else out_dtype
    kept = [(i, t) for i, t in enumerate(tensors) if not _cat_skipped(t)]
    if not kept:
        return Plan(args=[[]], outputs=[((0,), out_dtype)], params={"dim": 0})
    ref = kept[0][1]
    size = 0
    for i, t in kept:
        if t.ndim != ref.ndim:
            raise RuntimeError(f"cat(): Tensors must have same number of dimensions: got {ref.ndim} and {t.ndim}")
        for d in range(ref.ndim):
            if d != dim and t._shape[d] != ref._shape[d]:
                raise RuntimeError(
                    f"cat(): Sizes of tensors must match except in dimension {dim}. Expected size {ref._shape[d]} "
                    f"but got size {t._shape[d]} for tensor number {i} in the list."
                )
        size += t._shape[dim]
    shape = ref._shape[:dim] + (size,) + ref._shape[dim + 1:]
    return Plan(args=[[t for _, t in kept]], outputs=[(shape, out_dtype)], params={"dim": dim})


def _cat_backward(ctx, g):
    dim = ctx.params["dim"]
    grads, start = [], 0
    for m in ctx.inputs[0]:
        if tuple(m.shape) == (0,):  # skipped by the forward (or empty): an empty gradient, as PyTorch
            grads.append(_grad_as(_zeros((0,), g), m))
            continue
        n = m.shape[dim]
        grads.append(_grad_as(g.narrow(dim, start, n), m))
        start += n
    return (grads,)


def _zeros(shape, like: Tensor) -> Tensor:
    from .._factories import zeros

    return zeros(shape, dtype=like.dtype, device=like.device)


CAT = defop("cat", twin=kcat.cat_twin, kernel=kcat.cat, meta=_cat_meta, backward=_cat_backward, save=_no_save,
            tags={"takes_list", "copy", "no_input_overlap"},
            doc="Tensors joined along an existing dim (promoting dtypes; 1-D (0,) inputs skipped).")


def _cat_dim(tensors: list, dim) -> int:
    """Wrap ``dim`` against the first input that is not skipped (PyTorch's legacy_cat_wrap_dim)."""
    dim = int_arg("cat", "dim", dim)
    for t in tensors:
        if not _cat_skipped(t):
            return norm_dim(dim, t.ndim, "cat")
    return dim


def cat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Concatenate ``tensors`` along ``dim`` (all on one device; dtypes promote like ``result_type``)."""
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("cat(): expected a non-empty list of Tensors")  # (PyTorch's class: its argument parser)
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"cat(): zero-dimensional tensor (at position {i}) cannot be concatenated")
    _same_device(tensors, "cat")
    _check_join_out(tensors, out, "cat")
    return dispatch(CAT, tensors, dim=_cat_dim(tensors, dim), out=out, **_join_out_params(out))


def _check_join_out(tensors, out, op: str) -> None:
    """cat's and stack's ``out=`` takes any dtype the promoted inputs cast to; else PyTorch's TypeError
    (not the RuntimeError of the elementwise ops' same rule)."""
    if isinstance(out, Tensor) and not D.can_cast(D.result_type(*tensors), out.dtype):
        raise TypeError(f"{op}(): input types can't be cast to the desired output type {D.torch_name(out.dtype)}")


def _join_out_params(out) -> dict:
    """cat's and stack's output dtype is that of out=: PyTorch copies each input straight into it, so
    no value takes a detour through the promoted dtype (an int32 2**31 - 2 stacked with a float16
    stays exact in a float64 out=, where the dispatcher's temporary of the result dtype made it inf)."""
    return {"out_dtype": out.dtype} if isinstance(out, Tensor) else {}


def concat(tensors, dim: int = 0, *, out=None) -> Tensor:
    return cat(tensors, dim, out=out)


def concatenate(tensors, axis: int = 0, out=None, *, dim: int | None = None) -> Tensor:
    """``cat`` (numpy's name; ``dim=`` is accepted too, as PyTorch's)."""
    if dim is not None:
        if axis != 0:
            raise TypeError("concatenate(): got both 'axis' and 'dim'")
        axis = dim
    return cat(tensors, axis, out=out)


def _stack_meta(tensors, dim, out_dtype=None):
    shape = tensors[0]._shape
    for i, t in enumerate(tensors):
        if t._shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                               f"{list(t._shape)} at entry {i}")
    # Each input read with a size-1 dim at ``dim`` (no copy): stacking is then cat along ``dim``.
    views = [Geometry(t, shape[:dim] + (1,) + shape[dim:], t._stride[:dim] + (0,) + t._stride[dim:]) for t in tensors]
    out_shape = shape[:dim] + (len(tensors),) + shape[dim:]
    out_dtype = D.result_type(*tensors) if out_dtype is None else out_dtype
    return Plan(args=[views], outputs=[(out_shape, out_dtype)], params={"dim": dim})


def _stack_backward(ctx, g):
    dim = ctx.params["dim"]
    return ([_grad_as(g.select(dim, i), m) for i, m in enumerate(ctx.inputs[0])],)


STACK = defop("stack", twin=kcat.cat_twin, kernel=kcat.cat, meta=_stack_meta, backward=_stack_backward,
              save=_no_save, tags={"takes_list", "copy", "no_input_overlap"},
              doc="Tensors of one shape joined along a new dim.")


def stack(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Join tensors of one shape along a new dim ``dim`` (dtypes promote like ``cat``)."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    _same_device(tensors, "stack")
    _check_join_out(tensors, out, "stack")
    d = norm_dim(int_arg("stack", "dim", dim), tensors[0].ndim + 1, "stack")
    return dispatch(STACK, tensors, dim=d, out=out, **_join_out_params(out))


def _nonempty(tensors, op: str) -> list:
    tensors = _tensor_list(tensors, op)
    if not tensors:
        raise RuntimeError(f"{op} expects a non-empty TensorList")
    return tensors


def hstack(tensors, *, out=None) -> Tensor:
    """Concatenate horizontally: along dim 1, or dim 0 for 1-D inputs (0-d inputs become 1-D)."""
    ts = atleast_1d(_nonempty(tensors, "hstack"))
    return cat(ts, 0 if ts[0].ndim == 1 else 1, out=out)


def vstack(tensors, *, out=None) -> Tensor:
    """Concatenate vertically (dim 0) after making every input at least 2-D."""
    return cat(atleast_2d(_nonempty(tensors, "vstack")), 0, out=out)


def row_stack(tensors, *, out=None) -> Tensor:
    return vstack(tensors, out=out)


def dstack(tensors, *, out=None) -> Tensor:
    """Concatenate depth-wise (dim 2) after making every input at least 3-D."""
    return cat(atleast_3d(_nonempty(tensors, "dstack")), 2, out=out)


def column_stack(tensors, *, out=None) -> Tensor:
    """Stack as columns: 0-d and 1-D inputs become (n, 1) columns, then ``hstack``."""
    ts = [t.reshape(t.numel(), 1) if t.ndim <= 1 else t for t in _nonempty(tensors, "column_stack")]
    return hstack(ts, out=out)


# ----------------------------------------------------------------------------------------------
# atleast_nd, broadcast_tensors, meshgrid (views, no data moves)
# ----------------------------------------------------------------------------------------------


def _atleast(args, fn, op: str):
    if len(args) == 1 and isinstance(args[0], Tensor):
        return fn(args[0])
    if len(args) == 1 and isinstance(args[0], list | tuple):
        args = tuple(args[0])
    return tuple(fn(t) for t in _tensor_list(args, op))


def atleast_1d(*tensors):
    """0-d tensors as shape (1,); others unchanged. One tensor in, one out; several (or a list): a tuple."""
    return _atleast(tensors, lambda t: t.reshape(1) if t.ndim == 0 else t, "atleast_1d")


def _to_2d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return t.reshape(1, 1)
    return t.unsqueeze(0) if t.ndim == 1 else t


def atleast_2d(*tensors):
    """0-d as (1, 1), 1-D (n,) as (1, n); others unchanged."""
    return _atleast(tensors, _to_2d, "atleast_2d")


def _to_3d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.unsqueeze(0).unsqueeze(-1)
    return t.unsqueeze(-1) if t.ndim == 2 else t


def atleast_3d(*tensors):
    """0-d as (1, 1, 1), 1-D (n,) as (1, n, 1), 2-D (m, n) as (m, n, 1); others unchanged."""
    return _atleast(tensors, _to_3d, "atleast_3d")


def broadcast_tensors(*tensors) -> tuple:
    """Every tensor expanded (a stride-0 view, no copy) to the tensors' common broadcast shape; one
    already of that shape is returned itself, as PyTorch does (so one made under no_grad keeps its
    graph: a distribution built in no_grad still differentiates to its parameters)."""
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    tensors = _tensor_list(tensors, "broadcast_tensors")
    shape = tuple(broadcast_shapes(*(t._shape for t in tensors)))
    return tuple(t if t._shape == shape else t.expand(shape) for t in tensors)


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids from 0-d/1-D tensors, as expanded views.

    ``indexing='ij'``: output k varies along dim k (shape ``(len(t0), len(t1), ...)``).
    ``indexing='xy'`` (numpy's default, Cartesian): the first two dims are swapped, shape
    ``(len(t1), len(t0), ...)``. Without ``indexing`` it is 'ij' with PyTorch's warning.
    """
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    tensors = _tensor_list(tensors, "meshgrid")
    if indexing is None:
        warnings.warn("meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.ndim}D")
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
        if t.device != tensors[0].device:
            raise RuntimeError("meshgrid expects all tensors to have the same device")
    ts = list(tensors)
    swap = indexing == "xy" and len(ts) >= 2
    if swap:  # PyTorch's way: swap the first two inputs, build 'ij' grids, swap the first two outputs
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.numel() for t in ts)
    grids = []
    for i, t in enumerate(ts):
        view_shape = [1] * len(ts)
        view_shape[i] = -1
        grids.append(t.reshape(view_shape).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


# ----------------------------------------------------------------------------------------------
# flip / roll
# ----------------------------------------------------------------------------------------------


def _flip_meta(x, dims):
    # laid out as x, as PyTorch's flip (empty_like with preserve_format)
    return Plan(args=[x], outputs=[(x._shape, x.dtype, preserve_strides(x))], params={"dims": dims})


FLIP = defop("flip", twin=kreorder.flip_twin, kernel=kreorder.flip, meta=_flip_meta,
             backward=lambda ctx, g: (flip(g, ctx.params["dims"]),), save=_no_save, tags={"copy"},
             doc="A copy with the order of elements reversed along the given dims.")


def _norm_dims(dims, ndim: int, op: str) -> tuple:
    out = tuple(norm_dim(d, ndim, op) for d in dims)
    for d in out:
        if out.count(d) > 1:
            raise RuntimeError(f"{op}(): dim {d} appears multiple times in the list of dims")
    return out


def _ints_arg(op: str, name: str, args: tuple, value) -> tuple:
    """An int-list parameter that Tensor methods also take as varargs: ``f(x, 2, 3)``,
    ``f(x, (2, 3))`` or by name ``f(x, dims=(2, 3))`` (flip's dims, repeat's repeats, tile's dims),
    as the arguments ``shape_args`` reads; TypeError when it is missing or given twice."""
    if value is None:
        if not args:
            raise TypeError(f'{op}() missing 1 required positional arguments: "{name}"')
        return args
    if args:
        raise TypeError(f"{op}() got multiple values for argument '{name}'")
    return (value,)


@tensor_method
def flip(input: Tensor, *args, dims=None) -> Tensor:
    """Reverse the order of elements along ``dims`` (a copy, as in PyTorch; never a view).

    ``flip(x, dims)``, ``flip(x, dims=(0, 1))``, ``x.flip(0)``, ``x.flip(0, 1)``, ``x.flip([0, 1])``.
    """
    dims = shape_args(_ints_arg("flip", "dims", args, dims), "flip")
    return dispatch(FLIP, input, dims=_norm_dims(dims, input.ndim, "flip"))


@tensor_method
def fliplr(input: Tensor) -> Tensor:
    """Flip left/right: reverse dim 1 (needs >= 2 dims)."""
    need_tensor("fliplr", input)
    if input.ndim < 2:
        raise RuntimeError("fliplr: Input must be >= 2-d.")
    return flip(input, (1,))


@tensor_method
def flipud(input: Tensor) -> Tensor:
    """Flip up/down: reverse dim 0 (needs >= 1 dim)."""
    need_tensor("flipud", input)
    if input.ndim < 1:
        raise RuntimeError("flipud: Input must be >= 1-d.")
    return flip(input, (0,))


def _roll_meta(x, shifts, dims):
    return Plan(args=[x], outputs=[(x._shape, x.dtype)], params={"shifts": shifts, "dims": dims})


def _roll_backward(ctx, g):
    return (roll(g, tuple(-s for s in ctx.params["shifts"]), ctx.params["dims"]),)


ROLL = defop("roll", twin=kreorder.roll_twin, kernel=kreorder.roll, meta=_roll_meta, backward=_roll_backward,
             save=_no_save, tags={"copy"},
             doc="Elements shifted cyclically along dims (dims=None: the flattened tensor).")


@tensor_method
def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """Shift elements cyclically: ``shifts[k]`` places along ``dims[k]``; with ``dims=None`` the
    flattened tensor by a single shift, then the original shape is restored."""
    shifts = (int_arg("roll", "shifts", shifts),) if not isinstance(shifts, list | tuple) else \
        tuple(int_arg("roll", "shifts", s) for s in shifts)
    if not shifts:
        raise RuntimeError("roll(): `shifts` required")
    if dims is None or (isinstance(dims, list | tuple) and len(dims) == 0):
        if len(shifts) != 1:
            raise RuntimeError(f"roll(): shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return dispatch(ROLL, input, shifts=shifts, dims=None)
    dims = (dims,) if not isinstance(dims, list | tuple) else tuple(dims)
    if len(shifts) != len(dims):
        raise RuntimeError(f"roll(): shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if input.ndim == 0:
        raise IndexError(f"roll(): dimension specified as {dims[0]} but tensor has no dimensions")
    dims = tuple(norm_dim(int_arg("roll", "dims", d), input.ndim, "roll") for d in dims)
    return dispatch(ROLL, input, shifts=shifts, dims=dims)


# ----------------------------------------------------------------------------------------------
# repeat / tile / repeat_interleave
# ----------------------------------------------------------------------------------------------


def _repeat_meta(x, repeats):
    k = len(repeats)
    if k < x.ndim:
        raise RuntimeError("repeat(): Number of dimensions of repeat dims can not be smaller than number of "
                           f"dimensions of tensor (got {k} repeats for a {x.ndim}-d tensor)")
    padded = (1,) * (k - x.ndim) + x._shape
    shape = tuple(r * s for r, s in zip(repeats, padded))
    if any(r < 0 for r in repeats):
        raise RuntimeError(f"repeat(): Trying to create tensor with negative dimension "
                           f"{min(repeats)}: {list(repeats)}")
    return Plan(args=[x], outputs=[(shape, x.dtype)], params={"repeats": repeats})


def _repeat_backward(ctx, g):
    # Output dim k is (repeat r_k) x (input size s_k): view the gradient as (r0, s0, r1, s1, ...)
    # and sum the repeat dims away.
    meta, repeats = ctx.inputs[0], ctx.params["repeats"]
    padded = (1,) * (len(repeats) - len(meta.shape)) + tuple(meta.shape)
    interleaved = [n for pair in zip(repeats, padded) for n in pair]
    summed = tuple(2 * k for k, r in enumerate(repeats) if r != 1)
    gi = g.reshape(interleaved)
    if summed:
        gi = gi.sum(dim=summed, keepdim=True)
    return (gi.reshape(meta.shape),)


REPEAT = defop("repeat", twin=krep.repeat_twin, kernel=krep.repeat, meta=_repeat_meta, backward=_repeat_backward,
               save=_no_save, tags={"copy"}, doc="The tensor tiled repeats[k] times along dim k.")


@tensor_method
def repeat(input: Tensor, *sizes, repeats=None) -> Tensor:
    """Tile the tensor ``sizes[k]`` times along dim k; more sizes than dims add leading dims
    (``x.repeat(2, 1)``, ``x.repeat((2, 1))``, ``x.repeat(repeats=(2, 1))``; ``x.repeat(())`` is
    fine, ``x.repeat()`` is not, as PyTorch's argument parser)."""
    return dispatch(REPEAT, input, repeats=shape_args(_ints_arg("repeat", "repeats", sizes, repeats), "repeat"))


@tensor_method
def tile(input: Tensor, *args, dims=None) -> Tensor:
    """``repeat`` that accepts fewer reps than dims (they are padded with leading 1s):
    ``tile(x, (2, 1))``, ``tile(x, dims=(2, 1))``, ``x.tile(2, 1)``."""
    reps = shape_args(_ints_arg("tile", "dims", args, dims), "tile")
    if len(reps) < input.ndim:
        reps = (1,) * (input.ndim - len(reps)) + reps
    return repeat(input, reps)


def _ri_int_meta(x, repeats, dim):
    shape = x._shape[:dim] + (x._shape[dim] * repeats,) + x._shape[dim + 1:]
    return Plan(args=[x], outputs=[(shape, x.dtype)], params={"repeats": repeats, "dim": dim})


def _ri_int_backward(ctx, g):
    shape, r, d = tuple(ctx.inputs[0].shape), ctx.params["repeats"], ctx.params["dim"]
    if r == 1:
        return (g,)
    return (g.reshape(shape[:d] + (shape[d], r) + shape[d + 1:]).sum(dim=d + 1),)


REPEAT_INTERLEAVE = defop(
    "repeat_interleave", twin=krep.repeat_interleave_twin, kernel=krep.repeat_interleave, meta=_ri_int_meta,
    backward=_ri_int_backward, save=_no_save, tags={"copy"},
    doc="Each slice along dim repeated `repeats` (an int) times in place.",
)


def _ri_tensor_meta(x, repeats, dim, output_size):
    shape = x._shape[:dim] + (output_size,) + x._shape[dim + 1:]
    return Plan(args=[x, repeats], outputs=[(shape, x.dtype)], params={"dim": dim})


def _ri_tensor_backward(ctx, g):
    (repeats,) = ctx.saved_tensors
    d = ctx.params["dim"]
    return dispatch(SEGMENT_SUM, g, repeats, dim=d, size=ctx.inputs[0].shape[d]), None


REPEAT_INTERLEAVE_TENSOR = defop(
    "repeat_interleave_tensor", twin=krep.repeat_interleave_tensor_twin, kernel=krep.repeat_interleave_tensor,
    meta=_ri_tensor_meta, backward=_ri_tensor_backward,
    save=lambda ctx, inputs, outputs, params: ctx.save_for_backward(inputs[1]), tags={"copy"},
    doc="Slice i along dim repeated repeats[i] times (repeats: a 1-D integer tensor).",
)


def _segment_sum_meta(g, repeats, dim, size):
    return Plan(args=[g, repeats], outputs=[(g._shape[:dim] + (size,) + g._shape[dim + 1:], g.dtype)],
                params={"dim": dim})


def _segment_sum_backward(ctx, gg):
    (repeats,) = ctx.saved_tensors
    d = ctx.params["dim"]
    return dispatch(REPEAT_INTERLEAVE_TENSOR, gg, repeats, dim=d, output_size=ctx.inputs[0].shape[d]), None


SEGMENT_SUM = defop(
    "repeat_interleave_backward", twin=krep.segment_sum_twin, kernel=krep.segment_sum, meta=_segment_sum_meta,
    backward=_segment_sum_backward, save=lambda ctx, inputs, outputs, params: ctx.save_for_backward(inputs[1]),
    doc="The gradient of repeat_interleave with tensor repeats: each run of slices summed (deterministic).",
)


def _repeat_index_meta(repeats, output_size):
    return Plan(args=[repeats], outputs=[((output_size,), repeats.dtype)])


REPEAT_INDEX = defop(
    "repeat_interleave_index", twin=krep.repeat_index_twin, kernel=krep.repeat_index, meta=_repeat_index_meta,
    doc="repeat_interleave(repeats): index i repeated repeats[i] times.",
)


# integer repeats the kernels take widened to int64 (PyTorch takes every integer dtype)
_NARROW_REPEATS = frozenset({D.uint8, D.int8, D.int16})


def _check_repeats(repeats: Tensor, output_size, op: str = "repeat_interleave") -> int:
    """Validate 1-D integer repeats; the output length (read from the tensor when not given:
    one device-to-host read, as in PyTorch)."""
    if repeats.dtype not in D.INTEGRAL:  # (bool, floats:) PyTorch's dispatch fails: NotImplementedError
        from .elementwise_common import not_implemented_for

        raise not_implemented_for(op, repeats.dtype)
    if repeats.ndim != 1:
        raise RuntimeError(f"{op}: repeat_interleave only accept 1D vector as repeat, got {repeats.ndim}-d")
    if output_size is not None:
        output_size = int_arg(op, "output_size", output_size)
        if output_size < 0:
            raise RuntimeError(f"{op}: output_size must be non-negative, got {output_size}")
        if not repeats.is_cuda:  # free to check on the host (PyTorch's cpu kernel checks it too)
            host = np.asarray(repeats._host_array(), dtype=np.int64)
            if (host < 0).any():
                raise RuntimeError(f"{op}: repeats can not be negative")
            total = int(host.sum())
            if total != output_size:
                raise RuntimeError(f"{op}: allocated size does not match required size: output_size={output_size}, "
                                   f"sum(repeats)={total}")
        return output_size
    host = np.asarray(repeats._host_array(), dtype=np.int64)
    if (host < 0).any():
        raise RuntimeError(f"{op}: repeats can not be negative")
    return int(host.sum())


@tensor_method
def repeat_interleave(input: Tensor | None = None, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Repeat each element (slice along ``dim``; the flattened input when ``dim`` is None)
    ``repeats`` times: an int, or a tensor with one count per slice (0-d/1-element: for all).

    ``repeat_interleave(repeats)`` (a 1-D integer tensor alone) returns ``i`` repeated
    ``repeats[i]`` times. With tensor repeats the output size depends on their values: it is
    read from the device once unless ``output_size`` gives it. A given ``output_size`` is checked
    against int repeats and cpu repeats; device repeats are not read back to check it (avoiding
    that read is what it is for, as in PyTorch's CUDA path), so a wrong one there gives a
    truncated or padded result.
    """
    if input is None:  # repeat_interleave(repeats=r): PyTorch's one-argument overload by name
        if not isinstance(repeats, Tensor) or dim is not None:
            raise TypeError("repeat_interleave() missing 1 required positional argument: 'input'")
        input, repeats = repeats, None
    if repeats is None:
        total = _check_repeats(input, output_size)
        if input.dtype in _NARROW_REPEATS:  # (the kernels count in int32/int64; the result keeps the dtype)
            return dispatch(REPEAT_INDEX, input.to(D.int64), output_size=total).to(input.dtype)
        return dispatch(REPEAT_INDEX, input, output_size=total)
    if dim is None:
        input, d = input.reshape(-1), 0
    else:
        if input.ndim == 0:
            raise IndexError(f"repeat_interleave(): dimension specified as {dim} but tensor has no dimensions")
        d = norm_dim(int_arg("repeat_interleave", "dim", dim), input.ndim, "repeat_interleave")
    if not isinstance(repeats, Tensor):
        r = int_arg("repeat_interleave", "repeats", repeats)
        if r < 0:
            raise RuntimeError("repeat_interleave: repeats can not be negative")
        if output_size is not None and int_arg("repeat_interleave", "output_size", output_size) != r * input._shape[d]:
            raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {r * input._shape[d]} but got "
                               f"{output_size}")
        return dispatch(REPEAT_INTERLEAVE, input, repeats=r, dim=d)
    n = input._shape[d]
    if repeats.ndim == 0 or (repeats.ndim == 1 and repeats.numel() == 1):
        repeats = repeats.reshape(1).expand(n)
    elif repeats.ndim == 1:
        if repeats.numel() != n:
            raise RuntimeError(f"repeat_interleave: repeats must have the same size as input along dim, but got "
                               f"repeats.size(0) = {repeats.numel()} and input.size({d}) = {n}")
    else:
        raise RuntimeError(f"repeat_interleave: repeats must be 0-dim or 1-dim tensor, got {repeats.ndim}-d")
    total = _check_repeats(repeats, output_size)
    if repeats.device != input.device:
        repeats = repeats.to(input.device)
    if repeats.dtype in _NARROW_REPEATS:
        repeats = repeats.to(D.int64)
    return dispatch(REPEAT_INTERLEAVE_TENSOR, input, repeats, dim=d, output_size=total)


# ----------------------------------------------------------------------------------------------
# tril / triu / diag_embed / diag / trace
# ----------------------------------------------------------------------------------------------


def _triangle_meta(upper: bool):
    name = "triu" if upper else "tril"

    def meta(x, diagonal=0):
        if x.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions, got {x.ndim}")
        return Plan(args=[x], outputs=[(x._shape, x.dtype)], params={"diagonal": diagonal, "upper": upper})

    return meta


TRIL = defop("tril", twin=ktri.triangle_twin, kernel=ktri.triangle, meta=_triangle_meta(False),
             backward=lambda ctx, g: (tril(g, ctx.params["diagonal"]),), save=_no_save,
             tags={"copy", "inplace_safe"}, doc="The lower triangle (j - i <= diagonal) of the last two dims.")
TRIU = defop("triu", twin=ktri.triangle_twin, kernel=ktri.triangle, meta=_triangle_meta(True),
             backward=lambda ctx, g: (triu(g, ctx.params["diagonal"]),), save=_no_save,
             tags={"copy", "inplace_safe"}, doc="The upper triangle (j - i >= diagonal) of the last two dims.")


@tensor_method
def tril(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """Lower triangle of the last two dims: elements with ``col - row <= diagonal``, others 0."""
    out = E.exact_out("tril", out, input, input)  # (PyTorch: out= of exactly the input's dtype)
    return dispatch(TRIL, input, diagonal=int_arg("tril", "diagonal", diagonal), out=out)


@tensor_method
def triu(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """Upper triangle of the last two dims: elements with ``col - row >= diagonal``, others 0."""
    out = E.exact_out("triu", out, input, input)
    return dispatch(TRIU, input, diagonal=int_arg("triu", "diagonal", diagonal), out=out)


@tensor_method
def tril_(self: Tensor, diagonal: int = 0) -> Tensor:
    return dispatch(TRIL, self, diagonal=int_arg("tril_", "diagonal", diagonal), inplace=True)


@tensor_method
def triu_(self: Tensor, diagonal: int = 0) -> Tensor:
    return dispatch(TRIU, self, diagonal=int_arg("triu_", "diagonal", diagonal), inplace=True)


def _diag_embed_meta(x, offset, dim1, dim2):
    shape = list(x._shape[:-1])
    length = x._shape[-1] + abs(offset)
    for d in sorted((dim1, dim2)):
        shape.insert(d, length)
    return Plan(args=[x], outputs=[(tuple(shape), x.dtype)], params={"offset": offset, "dim1": dim1, "dim2": dim2})


DIAG_EMBED = defop(
    "diag_embed", twin=ktri.diag_embed_twin, kernel=ktri.diag_embed, meta=_diag_embed_meta,
    backward=lambda ctx, g: (g.diagonal(ctx.params["offset"], ctx.params["dim1"], ctx.params["dim2"]),),
    save=_no_save, tags={"copy"},
    doc="Zeros with the input's last dim written on the diagonal (offset) of dims (dim1, dim2).",
)


@tensor_method
def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """A tensor whose diagonal ``offset`` over dims ``(dim1, dim2)`` holds ``input``'s last dim
    (two new dims of size ``n + |offset|``), zeros elsewhere."""
    need_tensor("diag_embed", input)
    n = input.ndim + 1
    d1 = norm_dim(int_arg("diag_embed", "dim1", dim1), n, "diag_embed")
    d2 = norm_dim(int_arg("diag_embed", "dim2", dim2), n, "diag_embed")
    if d1 == d2:
        raise RuntimeError(f"diag_embed(): diagonal dimensions cannot be identical {dim1}, {dim2}")
    return dispatch(DIAG_EMBED, input, offset=int_arg("diag_embed", "offset", offset), dim1=d1, dim2=d2)


@tensor_method
def diag(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """1-D input: the square matrix with ``input`` on diagonal ``diagonal``; 2-D input: a copy of
    that diagonal."""
    need_tensor("diag", input)
    diagonal = int_arg("diag", "diagonal", diagonal)
    out = E.exact_out("diag", out, input, input)
    if input.ndim == 1:
        return dispatch(DIAG_EMBED, input, offset=diagonal, dim1=0, dim2=1, out=out)
    if input.ndim == 2:
        from .._copy_ops import CLONE

        return dispatch(CLONE, input.diagonal(diagonal), out=out)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


@tensor_method
@autocast_op("trace", opaque=True)  # (PyTorch's trace is one kernel: no float32 sum on cuda)
def trace(input: Tensor) -> Tensor:
    """Sum of the main diagonal of a matrix (integers sum to int64, as ``sum``)."""
    need_tensor("trace", input)
    if input.dtype is D.bool:  # PyTorch has no bool trace (though sum of bools counts them)
        raise E.not_implemented_for("trace", input.dtype)
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return input.diagonal().sum()
