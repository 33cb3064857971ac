"""View ops: new shape/strides/offset over the same storage, and their backward rules.

Each view op is an OpDef whose ``view`` function maps (shape, strides, offset, params) to the
view's geometry; no data moves. Backward rules: the cheap ones are views again (transpose,
permute, reshape); the ones that pick a region (select, narrow, slices, diagonal,
as_strided) share one rule: apply the same geometry to a contiguous zero tensor of the
input's shape and scatter the gradient there (``as_strided_scatter``).
"""

from __future__ import annotations

import math
import numbers
import operator
import warnings

from . import _dtype as D
from ._dispatch import dispatch
from ._registry import defop
from ._storage import contiguous_strides
from ._tensor import Tensor, need_tensor, norm_dim, tensor_method


def shape_args(args, op: str, size=None) -> tuple:
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])`` and ``f(size=(2, 3))`` all mean shape (2, 3)."""
    if size is not None:  # the keyword spelling of a factory's ``*size`` (``zeros(size=(2, 3))``)
        if args:
            raise TypeError(f"{op}() got the size both positionally {args!r} and as size={size!r}")
        args = (size,)
    if len(args) == 1 and isinstance(args[0], list | tuple):
        args = tuple(args[0])
    try:
        return tuple(operator.index(a) for a in args)
    except TypeError:
        raise TypeError(f"{op}(): shape must be a sequence of ints, got {args!r}") from None


def int_arg(op: str, name: str, value) -> int:
    """An int argument as PyTorch's parser reads it: a Python or numpy int, or a one-element integer
    tensor, as a Python int; a float or a bool is its TypeError. (Anything else would end up in a
    view's shape, strides or offset: a numpy int there reached the kernels' launch cache, a float
    offset read garbage.)"""
    if value.__class__ is bool or (isinstance(value, Tensor) and value.dtype is D.bool):
        # (an int to operator.index, but PyTorch refuses a bool, and a bool tensor)
        raise TypeError(f"{op}(): argument '{name}' must be int, not {type(value).__name__}")
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{op}(): argument '{name}' must be int, not {type(value).__name__}") from None


def flag_arg(op: str, name: str, value) -> bool:
    """A bool argument as PyTorch's parser reads it: a Python bool only (None, an int or a NumPy
    bool is its TypeError: ``sort(descending=None)`` silently sorted ascending)."""
    if value.__class__ is not bool:
        raise TypeError(f"{op}(): argument '{name}' must be bool, not {type(value).__name__}")
    return value


def infer_size(shape: tuple, numel: int, op: str) -> tuple:
    """Resolve one ``-1`` in ``shape`` for ``numel`` elements, with PyTorch's errors."""
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError(f"{op}: only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"{op}: invalid shape dimension {s}")
        else:
            known *= s
    if infer is None:
        if known != numel:
            raise RuntimeError(f"{op}: shape '{list(shape)}' is invalid for input of size {numel}")
        return shape
    if known == 0:
        if numel:  # (view(-1, 0) of 12 elements: no size fits, as PyTorch says)
            raise RuntimeError(f"{op}: shape '{list(shape)}' is invalid for input of size {numel}")
        raise RuntimeError(
            f"{op}: cannot reshape tensor of 0 elements into shape {list(shape)} because the unspecified "
            "dimension size -1 can be any value and is ambiguous"
        )
    if numel % known:
        raise RuntimeError(f"{op}: shape '{list(shape)}' is invalid for input of size {numel}")
    return shape[:infer] + (numel // known,) + shape[infer + 1:]


def view_strides(oldshape: tuple, oldstride: tuple, newshape: tuple) -> tuple | None:
    """Strides that view ``oldshape``/``oldstride`` memory as ``newshape``, or None (PyTorch's computeStride)."""
    numel = math.prod(oldshape)
    if numel == 0:
        return tuple(oldstride) if tuple(oldshape) == tuple(newshape) else contiguous_strides(newshape)
    if len(oldshape) == 0:
        return (1,) * len(newshape)
    if oldstride == contiguous_strides(oldshape):  # contiguous memory: the view is contiguous too
        return contiguous_strides(newshape)
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base_stride = oldstride[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (
            oldshape[tensor_d - 1] != 1 and oldstride[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base_stride
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = oldstride[tensor_d - 1]
                tensor_numel = view_numel = 1
    if view_d != -1:
        return None
    return tuple(newstride)


# ----------------------------------------------------------------------------------------------
# backward helpers
# ----------------------------------------------------------------------------------------------


def _region_backward(op_name: str):
    """Backward of a view that selects a region: scatter the gradient into zeros."""

    def backward(ctx, g):
        from ._copy_ops import as_strided_scatter
        from ._factories import zeros
        from ._registry import get_op
        from .autograd.grad_mode import is_grad_enabled

        meta = ctx.inputs[0]
        op = get_op(op_name)
        shape, strides, offset = op.view(meta.shape, contiguous_strides(meta.shape), 0, **ctx.params)
        base = zeros(meta.shape, dtype=g.dtype, device=g.device)
        if not is_grad_enabled():  # (the usual backward): written in place, no second full-size buffer
            base.as_strided(shape, strides, offset).copy_(g)
            return (base,)
        return (as_strided_scatter(base, g, shape, strides, offset),)  # recorded for double backward

    return backward


def _no_save(ctx, inputs, outputs, params):
    return None


def _reshape_back(ctx, g):
    return (g.reshape(ctx.inputs[0].shape),)


# ----------------------------------------------------------------------------------------------
# geometry functions + op declarations
# ----------------------------------------------------------------------------------------------


def _view_geom(shape, strides, offset, size):
    size = infer_size(tuple(size), math.prod(shape), "view")
    new = view_strides(shape, strides, size)
    if new is None:
        raise RuntimeError(
            f"view size is not compatible with input tensor's size and stride (at least one dimension spans across "
            f"two contiguous subspaces). Use .reshape(...) instead. (input shape {list(shape)}, strides "
            f"{list(strides)}, requested {list(size)})"
        )
    return size, new, offset


VIEW = defop("view", view=_view_geom, backward=_reshape_back, save=_no_save, tags={"view"})


def _transpose_geom(shape, strides, offset, dim0, dim1):
    n = len(shape)
    d0, d1 = norm_dim(dim0, n, "transpose"), norm_dim(dim1, n, "transpose")
    shape, strides = list(shape), list(strides)
    if n:
        shape[d0], shape[d1] = shape[d1], shape[d0]
        strides[d0], strides[d1] = strides[d1], strides[d0]
    return tuple(shape), tuple(strides), offset


TRANSPOSE = defop(
    "transpose", view=_transpose_geom, save=_no_save, tags={"view"},
    backward=lambda ctx, g: (g.transpose(ctx.params["dim0"], ctx.params["dim1"]),),
)


def _permute_geom(shape, strides, offset, dims):
    n = len(shape)
    if len(dims) != n:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
            f"ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {len(dims)}"
            .replace("(sparse_coo)", "")
        )
    dims = tuple(norm_dim(d, n, "permute") for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError(f"permute(): duplicate dims are not allowed, got {list(dims)}")
    return tuple(shape[d] for d in dims), tuple(strides[d] for d in dims), offset


def _permute_backward(ctx, g):
    dims = [d % max(len(ctx.inputs[0].shape), 1) for d in ctx.params["dims"]]
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d] = i
    return (g.permute(inverse),)


PERMUTE = defop("permute", view=_permute_geom, backward=_permute_backward, save=_no_save, tags={"view"})


def _expand_geom(shape, strides, offset, size):
    size = tuple(size)
    n, m = len(size), len(shape)
    if n < m:
        raise RuntimeError(
            f"expand: the number of sizes provided ({n}) must be greater or equal to the number of dimensions in the "
            f"tensor ({m})"
        )
    out_shape, out_strides = [0] * n, [0] * n
    # Right to left, as PyTorch's inferExpandGeometry: a new leading dim of size 1 gets the stride
    # that would make it contiguous with the next one (so x.expand(1, *x.shape) keeps x's
    # contiguity and strides); a 0-d input gives all-zero strides.
    for i in range(n - 1, -1, -1):
        j = i - (n - m)
        target = size[i]
        if j < 0:
            if target < 0:
                raise RuntimeError(
                    f"expand: The expanded size of the tensor ({target}) isn't allowed in a leading, non-existing "
                    f"dimension {i}"
                )
            out_shape[i] = target
            out_strides[i] = out_shape[i + 1] * out_strides[i + 1] if target == 1 and i + 1 < n and m else 0
            continue
        cur, st = shape[j], strides[j]
        if target == -1:
            target = cur
        if cur == target:
            out_shape[i], out_strides[i] = cur, st
        elif cur == 1:
            if target < 0:
                raise RuntimeError(f"expand: invalid size {target} at dimension {i}")
            out_shape[i], out_strides[i] = target, 0
        else:
            raise RuntimeError(
                f"expand: The expanded size of the tensor ({target}) must match the existing size ({cur}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(size)}.  Tensor sizes: {list(shape)}"
            )
    return tuple(out_shape), tuple(out_strides), offset


EXPAND = defop(
    "expand", view=_expand_geom, save=_no_save, tags={"view"},
    backward=lambda ctx, g: (g.sum_to_size(ctx.inputs[0].shape),),
)


def _squeeze_geom(shape, strides, offset, dims=None):
    n = len(shape)
    if dims is None:
        keep = [i for i in range(n) if shape[i] != 1]
    else:
        drop = {norm_dim(d, n, "squeeze") for d in dims}
        if len(drop) != len(dims):
            dup = next(d for d in drop if sum(norm_dim(e, n, "squeeze") == d for e in dims) > 1)
            raise RuntimeError(f"squeeze(): dim {dup} appears multiple times in the list of dims")
        keep = [i for i in range(n) if not (i in drop and shape[i] == 1)]
    return tuple(shape[i] for i in keep), tuple(strides[i] for i in keep), offset


SQUEEZE = defop("squeeze", view=_squeeze_geom, backward=_reshape_back, save=_no_save, tags={"view"})


def _unsqueeze_geom(shape, strides, offset, dim):
    n = len(shape)
    d = norm_dim(dim, n + 1, "unsqueeze")
    new_stride = shape[d] * strides[d] if d < n else 1
    return shape[:d] + (1,) + shape[d:], strides[:d] + (new_stride,) + strides[d:], offset


UNSQUEEZE = defop("unsqueeze", view=_unsqueeze_geom, backward=_reshape_back, save=_no_save, tags={"view"})


def _slice_geom(shape, strides, offset, dim, start, stop, step):
    """dim, and a normalised range: 0 <= start <= stop <= size, step >= 1."""
    n = len(shape)
    d = norm_dim(dim, n, "slice")
    length = max(0, -(-(stop - start) // step))
    shape = shape[:d] + (length,) + shape[d + 1:]
    new_strides = strides[:d] + (strides[d] * step,) + strides[d + 1:]
    return shape, new_strides, offset + start * strides[d]  # (empty too: it starts at start, as in PyTorch)


SLICE = defop("slice", view=_slice_geom, backward=_region_backward("slice"), save=_no_save, tags={"view"})


def _select_geom(shape, strides, offset, dim, index):
    n = len(shape)
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = norm_dim(dim, n, "select")
    size = shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(shape)} at dimension {d}"
        )
    index %= size
    return shape[:d] + shape[d + 1:], strides[:d] + strides[d + 1:], offset + index * strides[d]


SELECT = defop("select", view=_select_geom, backward=_region_backward("select"), save=_no_save, tags={"view"})


def _diagonal_geom(shape, strides, offset, offset_=0, dim1=0, dim2=1):
    n = len(shape)
    d1, d2 = norm_dim(dim1, n, "diagonal"), norm_dim(dim2, n, "diagonal")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    k = offset_
    if k >= 0:
        length = max(0, min(shape[d1], shape[d2] - k))
        start = k * strides[d2] if length else 0
    else:
        length = max(0, min(shape[d1] + k, shape[d2]))
        start = -k * strides[d1] if length else 0
    keep = [i for i in range(n) if i not in (d1, d2)]
    return (tuple(shape[i] for i in keep) + (length,), tuple(strides[i] for i in keep) + (strides[d1] + strides[d2],),
            offset + start)


DIAGONAL = defop("diagonal", view=_diagonal_geom, backward=_region_backward("diagonal"), save=_no_save,
                 tags={"view"})


def _as_strided_geom(shape, strides, offset, size, stride, storage_offset=None):

    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"as_strided: mismatch in length of strides ({len(stride)}) and shape ({len(size)})")
    new_offset = offset if storage_offset is None else storage_offset
    if any(s < 0 for s in size):
        raise RuntimeError(f"as_strided: negative size in {list(size)}")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: negative strides are not supported, got {list(stride)}")
    return size, stride, new_offset


def _as_strided_backward(ctx, g):
    from ._copy_ops import as_strided_scatter
    from ._factories import zeros

    meta, p = ctx.inputs[0], ctx.params
    base_offset = ctx.params.get("_input_offset", 0)
    size, stride = p["size"], p["stride"]
    offset = (p["storage_offset"] if p["storage_offset"] is not None else base_offset) - base_offset
    last = offset + sum((n - 1) * st for n, st in zip(size, stride)) if all(size) else offset
    if not p.get("_input_contiguous", True) or _overlaps(size, stride) or offset < 0 or last >= math.prod(meta.shape):
        # Several view elements share an input element (stride 0, windows that overlap), the input
        # is itself strided, or the view reaches storage outside the input's elements (before an
        # offset view's start, past its end: as PyTorch, those contribute nothing): route each view
        # element's gradient by storage position.
        in_stride = p.get("_input_stride") or contiguous_strides(meta.shape)
        return (_strided_grad_by_position(g, meta.shape, in_stride, size, stride, offset),)
    base = zeros(meta.shape, dtype=g.dtype, device=g.device)
    return (as_strided_scatter(base, g, size, stride, offset),)


def _positions(shape, strides, offset):
    import numpy as np

    flat = np.full((), offset, dtype=np.int64)
    for n, st in zip(shape, strides):
        flat = flat[..., None] + np.arange(n, dtype=np.int64) * st
    return flat.reshape(-1)


def _strided_grad_by_position(g, shape, in_stride, size, stride, offset):
    """as_strided's gradient as PyTorch's: the view elements' gradients add up per storage position
    (offsets relative to the input's own), each input element takes its position's sum (shared
    evenly among input elements that alias one position); view elements outside the input's
    elements contribute nothing. index_add/index_select, so it is differentiable again."""
    import numpy as np

    from ._factories import tensor, zeros

    pos_in = _positions(shape, in_stride, 0)
    pos_view = _positions(size, stride, offset)
    unique, inverse, counts = np.unique(pos_in, return_inverse=True, return_counts=True)
    slot = np.searchsorted(unique, pos_view)
    inside = slot < unique.size
    inside[inside] = unique[slot[inside]] == pos_view[inside]
    dev = g.device
    g_flat = g.reshape(-1)
    if not inside.all():
        g_flat = g_flat.index_select(0, tensor(np.nonzero(inside)[0], device=dev))
    acc = zeros((unique.size,), dtype=g.dtype, device=dev).index_add(0, tensor(slot[inside], device=dev), g_flat)
    grad = acc.index_select(0, tensor(inverse.reshape(-1), device=dev))
    if (counts > 1).any():
        grad = grad / tensor(counts[inverse.reshape(-1)].astype(np.float64), dtype=g.dtype, device=dev)
    return grad.reshape(shape)


def _overlaps(size, stride) -> bool:
    dims = sorted((st, n) for n, st in zip(size, stride) if n > 1)
    extent = 1
    for st, n in dims:
        if st < extent:
            return True
        extent = st * (n - 1) + extent
    return False


AS_STRIDED = defop("as_strided", view=_as_strided_geom, backward=_as_strided_backward, save=_no_save,
                   tags={"view"})


# ----------------------------------------------------------------------------------------------
# public functions (also Tensor methods)
# ----------------------------------------------------------------------------------------------


@tensor_method
def view(input: Tensor, *shape, size=None, dtype=None) -> Tensor:
    """The same data with another shape; needs compatible strides (else use ``reshape``).
    ``view(dtype)``: the same bytes read as another dtype (:func:`view_dtype`)."""
    if dtype is not None:
        if shape or size is not None:
            raise TypeError("view() received an invalid combination of arguments: both a size and dtype=")
        shape = (dtype,)
    shape = _keyword_shape("view", "size", shape, size)
    if not shape:
        raise TypeError("view() missing 1 required positional argument: 'size' (or 'dtype')")
    if len(shape) == 1 and isinstance(shape[0], type) and shape[0] in D._PYTHON_TYPES:
        # PyTorch's parser reads a lone Python type as a dtype: x.view(int) is x.view(torch.int64)
        shape = (D._PYTHON_TYPES[shape[0]],)
    if any(isinstance(s, D.dtype) for s in shape):
        if len(shape) != 1:
            raise TypeError(f"view() received an invalid combination of arguments - got "
                            f"({', '.join(type(s).__name__ for s in shape)}), but expected one of: (dtype dtype), "
                            "(tuple of ints size)")
        return view_dtype(input, shape[0])
    return dispatch(VIEW, input, size=shape_args(shape, "view"))


def view_dtype(input: Tensor, dtype: D.dtype) -> Tensor:
    """``x.view(dtype)``: ``x``'s bytes read as ``dtype``, sharing its storage and with it the version
    counter (a write through either is seen by the other, and autograd notices one to a saved
    tensor). As PyTorch's, the result is no autograd view: it does not require grad (even for the
    same dtype), has no grad_fn and no ``_base``. With another element size the last dim is
    rescaled (it must have stride 1, and when the element grows, a size, storage offset and other
    strides divisible by the ratio); a 0-d tensor keeps only the same size."""
    old_size, new_size = input.dtype.itemsize, dtype.itemsize
    shape, strides, offset = input._shape, input._stride, input._offset
    if new_size != old_size:
        what = f"to view {D.torch_name(input.dtype)} as {D.torch_name(dtype)} (different element sizes)"
        if not shape:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if new_size < old_size:  # each element becomes `ratio` of them
            if strides[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
            ratio = old_size // new_size
            shape = (*shape[:-1], shape[-1] * ratio)
            strides = (*(s * ratio for s in strides[:-1]), 1)
            offset *= ratio
        else:  # `ratio` elements become one
            ratio = new_size // old_size
            if shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {shape[-1]}")
            if offset % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {offset}")
            if strides[-1] != 1:
                raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {strides[-1]}")
            for d, s in enumerate(strides[:-1]):
                if s % ratio:
                    raise RuntimeError(f"self.stride({d}) must be divisible by {ratio} {what}, but got {s}")
            shape = (*shape[:-1], shape[-1] // ratio)
            strides = (*(s // ratio for s in strides[:-1]), 1)
            offset //= ratio
    return Tensor._make(input._storage, shape, strides, offset, dtype)


def _keyword_shape(op: str, name: str, args: tuple, keyword) -> tuple:
    """The shape given positionally (``args``) or by keyword (``view(size=...)``), as PyTorch takes either."""
    if keyword is None:
        return args
    if args:
        raise TypeError(f"{op}() got multiple values for argument '{name}'")
    return (keyword,)


def _is_int(x) -> bool:
    try:
        operator.index(x)
        return True
    except TypeError:
        return False


@tensor_method
def view_as(input: Tensor, other: Tensor) -> Tensor:
    need_tensor("view_as", other, "other", 1)
    return view(input, other._shape)


@tensor_method
def reshape(input: Tensor, *args, shape=None) -> Tensor:
    """A view when strides allow, else a contiguous copy with the new shape."""
    size = infer_size(shape_args(_keyword_shape("reshape", "shape", args, shape), "reshape"), input.numel(), "reshape")
    if view_strides(input._shape, input._stride, size) is not None:
        return dispatch(VIEW, input, size=size)
    from ._copy_ops import clone
    from ._layout import contiguous_format

    return of_a_temporary(dispatch(VIEW, clone(input, memory_format=contiguous_format), size=size))


def of_a_temporary(v: Tensor) -> Tensor:
    """``v``, a view of a temporary the op made itself (a copy no one else holds), as a tensor of its
    own: not a view (``_base`` None, so ``detach_`` works), as PyTorch's ``_unsafe_view``. Its
    grad_fn still leads back through the temporary to the op's input."""
    v._base = None
    v._view_version = None
    return v


@tensor_method
def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    need_tensor("reshape_as", other, "other", 1)
    return reshape(input, other._shape)


@tensor_method
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    n = input.ndim
    if n == 0:
        norm_dim(start_dim, 0, "flatten"), norm_dim(end_dim, 0, "flatten")
        return reshape(input, (1,))
    s, e = norm_dim(start_dim, n, "flatten"), norm_dim(end_dim, n, "flatten")
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input._shape
    return reshape(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


@tensor_method
def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    n = input.ndim
    if n == 0:  # (norm_dim takes 0 and -1 for a 0-d tensor's one "dim"; unflatten needs a real one)
        raise IndexError(f"unflatten(): Dimension specified as {dim} but tensor has no dimensions")
    d = norm_dim(dim, n, "unflatten")
    sizes = tuple(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    sizes = infer_size(sizes, input._shape[d], "unflatten")
    return reshape(input, input._shape[:d] + sizes + input._shape[d + 1:])


@tensor_method
def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return dispatch(TRANSPOSE, input, dim0=dim0, dim1=dim1)


@tensor_method
def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """NumPy's name for :func:`transpose`, with NumPy's argument names."""
    return transpose(input, axis0, axis1)


swapdims = tensor_method(transpose, name="swapdims")


@tensor_method
def permute(input: Tensor, *args, dims=None) -> Tensor:
    dims = _keyword_shape("permute", "dims", args, dims)
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return dispatch(PERMUTE, input, dims=shape_args(dims, "permute"))


@tensor_method
def t(input: Tensor) -> Tensor:
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    if input.ndim < 2:
        return dispatch(PERMUTE, input, dims=tuple(range(input.ndim)))
    return transpose(input, 0, 1)


def _deprecated(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=3)  # (at the user's line, through the property)


def _T(self: Tensor) -> Tensor:
    # PyTorch 2.15 warns for 0-d tensors and for more than 2 dims (reversing all dims is deprecated)
    if self.ndim == 0:
        _deprecated("Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases.")
    elif self.ndim > 2:
        _deprecated("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and "
                    "it will throw an error in a future release. Consider `x.mT` to transpose batches of matrices "
                    "or `x.permute(*tensorlab.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.")
    if self.ndim < 2:
        return self
    return permute(self, tuple(reversed(range(self.ndim))))


_ZERO_D_NOTES = {"tensor.mT": "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases.",
                 "tensor.mH": "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().",
                 "tensor.adjoint()": "adjoint() is deprecated on 0-D tensors. Consider using x.conj()."}


def _mT(self: Tensor, name: str = "tensor.mT") -> Tensor:
    # PyTorch: the identity on 0-d tensors (deprecated there, with its warning), an error on 1-d ones.
    if self.ndim == 0:
        _deprecated(_ZERO_D_NOTES[name])
        return permute(self, ())
    if self.ndim < 2:
        raise RuntimeError(f"{name} is only supported on matrices or batches of matrices. Got {self.ndim}-D tensor.")
    return transpose(self, -2, -1)


def _H(self: Tensor) -> Tensor:
    # Real dtypes only, so the conjugate transpose is the transpose; PyTorch allows 0-d and 2-d.
    if self.ndim not in (0, 2):
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {self.ndim}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""))
    if self.ndim == 0:
        _deprecated("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
        return permute(self, ())
    return _T(self)


Tensor.T = property(_T)
Tensor.mT = property(_mT)
Tensor.H = property(_H)
Tensor.mH = property(lambda self: _mT(self, "tensor.mH"))


@tensor_method
def adjoint(input: Tensor) -> Tensor:
    return _mT(input, "tensor.adjoint()")


@tensor_method
def expand(input: Tensor, *sizes, size=None, implicit: bool = False) -> Tensor:
    sizes = _keyword_shape("expand", "size", sizes, size)  # (implicit: PyTorch's tracing flag, no effect)
    if not sizes:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    return dispatch(EXPAND, input, size=shape_args(sizes, "expand"))


@tensor_method
def expand_as(input: Tensor, other: Tensor) -> Tensor:
    need_tensor("expand_as", other, "other", 1)
    return expand(input, other._shape)


@tensor_method
def broadcast_to(input: Tensor, size) -> Tensor:
    return expand(input, tuple(size))


@tensor_method
def squeeze(input: Tensor, dim=None) -> Tensor:
    dims = None if dim is None else (tuple(dim) if isinstance(dim, list | tuple) else (dim,))
    if dims is not None and input.ndim == 0:
        if len({norm_dim(d, 0, "squeeze") for d in dims}) != len(dims):  # (as the n-d path checks)
            raise RuntimeError("squeeze(): dim 0 appears multiple times in the list of dims")
        return dispatch(SQUEEZE, input, dims=())
    return dispatch(SQUEEZE, input, dims=dims)


@tensor_method
def unsqueeze(input: Tensor, dim: int) -> Tensor:
    return dispatch(UNSQUEEZE, input, dim=dim)


@tensor_method
def narrow(input: Tensor, dim: int, start, length: int) -> Tensor:
    n = input.ndim
    if n == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = norm_dim(dim, n, "narrow")
    size = input._shape[d]
    if isinstance(start, Tensor) and (start.ndim != 0 or start.dtype.is_floating_point or start.dtype is D.bool):
        raise RuntimeError(f"narrow(): start must be an 0-dim integral Tensor, got shape {list(start.shape)} "
                           f"and dtype {start.dtype.name}.")
    start = int_arg("narrow", "start", start)
    length = int_arg("narrow", "length", length)
    if length < 0:  # checked before start, as PyTorch does
        raise RuntimeError(f"narrow(): length must be non-negative, got {length}")
    if not -size <= start <= size:
        raise IndexError(f"narrow(): start ({start}) out of range for dimension {d} of size {size}")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"narrow(): start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return dispatch(SLICE, input, dim=d, start=start, stop=start + length, step=1)


def slice_dim(input: Tensor, dim: int, start, stop, step: int = 1) -> Tensor:
    """``input[..., start:stop:step, ...]`` on ``dim`` (Python slice semantics, step >= 1)."""
    if step <= 0:
        raise ValueError(f"step must be greater than zero, got {step}")
    size = input._shape[dim]
    start, stop, _ = slice(start, stop, step).indices(size)
    stop = max(stop, start)
    return dispatch(SLICE, input, dim=dim, start=start, stop=stop, step=step)


@tensor_method
def select(input: Tensor, dim: int, index) -> Tensor:
    return dispatch(SELECT, input, dim=dim, index=operator.index(index))


@tensor_method
def unbind(input: Tensor, dim: int = 0) -> tuple:
    d = norm_dim(dim, input.ndim, "unbind") if input.ndim else None
    if d is None:
        raise IndexError("unbind(): Dimension specified as 0 but tensor has no dimensions")
    return tuple(select(input, d, i) for i in range(input._shape[d]))


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    if tensor.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = norm_dim(dim, tensor.ndim, "split")
    size = tensor._shape[d]
    if isinstance(split_size_or_sections, list | tuple):
        sections = [operator.index(s) for s in split_size_or_sections]
        if sum(sections) != size or any(s < 0 for s in sections):
            raise RuntimeError(
                f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension "
                f"{d}), but got split_sizes={sections}"
            )
    else:
        step = int_arg("split", "split_size", split_size_or_sections)
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and size:
            raise RuntimeError(f"split(): split_size must be positive, got {step}")
        sections = [min(step, size - i) for i in range(0, size, step)] if size else [0]
    out, start = [], 0
    for s in sections:
        out.append(narrow(tensor, d, start, s))
        start += s
    return tuple(out)


@tensor_method(name="split")
def _split_method(self: Tensor, split_size, dim: int = 0) -> tuple:
    """``Tensor.split(split_size, dim)``: the method's keyword is ``split_size`` (the function's
    ``split_size_or_sections``); a list of sizes works too."""
    return split(self, split_size, dim)


@tensor_method
def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """``split`` with a list of sizes (PyTorch's name for that form)."""
    if not isinstance(split_sizes, list | tuple):
        raise TypeError(f"split_with_sizes(): argument 'split_sizes' must be a list of ints, not "
                        f"{type(split_sizes).__name__}")
    return split(input, list(split_sizes), dim)


@tensor_method
def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    chunks = operator.index(chunks)  # (a NumPy integer as a Python int: np.uint8 arithmetic would wrap)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = norm_dim(dim, input.ndim, "chunk")
    size = input._shape[d]
    if size == 0:  # PyTorch: `chunks` empty pieces
        return tuple(narrow(input, d, 0, 0) for _ in range(chunks))
    step = max(1, -(-size // chunks))
    return split(input, step, d)


# PyTorch's unsafe_* forms skip its autograd check on in-place writes into several views of one
# op's output; that check is not made here, so they are the same functions.
unsafe_split, unsafe_split_with_sizes, unsafe_chunk = split, split_with_sizes, chunk
tensor_method(_split_method, name="unsafe_split")
tensor_method(split_with_sizes, name="unsafe_split_with_sizes")
tensor_method(chunk, name="unsafe_chunk")


@tensor_method
def tensor_split(input: Tensor, indices_or_sections=None, dim: int = 0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None) -> tuple:
    given = [v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections) if v is not None]
    if len(given) != 1:
        raise TypeError("tensor_split() takes one of indices_or_sections, sections, indices or "
                        f"tensor_indices_or_sections, got {len(given)}")
    indices_or_sections = given[0]
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = norm_dim(dim, input.ndim, "tensor_split")
    size = input._shape[d]
    if isinstance(indices_or_sections, Tensor):
        # PyTorch: a 0-d int64 tensor is a number of sections, a 1-d one the indices.
        ios = indices_or_sections
        if ios.dtype.name != "int64":
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{ios.dtype.name}")
        if ios.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {ios.ndim} dims")
        indices_or_sections = ios.item() if ios.ndim == 0 else [int(i) for i in ios.tolist()]
    if isinstance(indices_or_sections, numbers.Integral):  # (a numpy int too: sections, not indices)
        n = int(indices_or_sections)
        if n <= 0:
            raise RuntimeError(f"tensor_split: number of sections must be larger than 0, got {n}")
        base, extra = divmod(size, n)
        bounds = [0]
        for i in range(n):
            bounds.append(bounds[-1] + base + (1 if i < extra else 0))
    else:
        # Each piece is input[start:stop] on d with Python's slice rules (negative indices wrap), as PyTorch.
        ends = [operator.index(i) for i in indices_or_sections]
        starts = [0] + ends
        ends = ends + [size]
        pieces = []
        for a, b in zip(starts, ends):
            a, b, _ = slice(a, b).indices(size)
            pieces.append(narrow(input, d, a, max(b - a, 0)))
        return tuple(pieces)
    return tuple(narrow(input, d, bounds[i], max(bounds[i + 1] - bounds[i], 0)) for i in range(len(bounds) - 1))


@tensor_method
def movedim(input: Tensor, source, destination) -> Tensor:
    n = input.ndim
    src = [operator.index(source)] if _is_int(source) else list(source)
    dst = [operator.index(destination)] if _is_int(destination) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({src} dims) should contain the same number of "
            f"dims as destination ({dst} dims)"
        )
    src = [norm_dim(s, n, "movedim") for s in src]
    dst = [norm_dim(s, n, "movedim") for s in dst]
    if len(set(src)) != len(src) or len(set(dst)) != len(dst):
        raise RuntimeError("movedim: repeated dim in source or destination")
    if n == 0:  # (the dims were checked: -1 and 0 name a 0-d tensor's one "dim")
        return permute(input, ())
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(i for i in range(n) if i not in src)
    order = [o if o is not None else next(rest) for o in order]
    return permute(input, order)


moveaxis = tensor_method(movedim, name="moveaxis")


@tensor_method
def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    # (a 0-d or 1-d input: the dims' wrapping raises PyTorch's IndexError, or identical dims a RuntimeError)
    return dispatch(DIAGONAL, input, offset_=int_arg("diagonal", "offset", offset),
                    dim1=int_arg("diagonal", "dim1", dim1), dim2=int_arg("diagonal", "dim2", dim2))


@tensor_method
def as_strided(input: Tensor, size, stride, storage_offset=None) -> Tensor:
    from ._copy_ops import _check_in_bounds

    size = tuple(int_arg("as_strided", "size", n) for n in size)
    stride = tuple(int_arg("as_strided", "stride", n) for n in stride)
    if storage_offset is not None:
        storage_offset = int_arg("as_strided", "storage_offset", storage_offset)
    off = input._offset if storage_offset is None else storage_offset
    _check_in_bounds("as_strided", input._storage.nbytes // max(input.dtype.itemsize, 1), size, stride, off)
    contiguous = input.is_contiguous()
    return dispatch(AS_STRIDED, input, size=size, stride=stride, storage_offset=storage_offset,
                    _input_offset=input._offset, _input_contiguous=contiguous,
                    _input_stride=None if contiguous else tuple(input._stride))


def _as_strided_geom_public(shape, strides, offset, size, stride, storage_offset=None, _input_offset=0,
                            _input_contiguous=True, _input_stride=None):
    return _as_strided_geom(shape, strides, offset, size, stride, storage_offset)


AS_STRIDED.view = _as_strided_geom_public


@tensor_method
def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """A view of every ``size``-long window along ``dimension``, ``step`` apart, in a new last dim
    (``Tensor.unfold``, PyTorch's strides: the window dim keeps the dim's stride, the dim's own
    stride is multiplied by ``step``)."""
    n = input.ndim
    d = norm_dim(dimension, n, "unfold")
    size, step = operator.index(size), operator.index(step)
    max_size = input._shape[d] if n else 1
    if size > max_size:
        raise RuntimeError(f"unfold(): maximum size for tensor at dimension {d} is {max_size} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"unfold(): step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"unfold(): size is {size} but must be >= 0")
    if n == 0:  # PyTorch: a 0-d tensor unfolds to (size,), stride 1
        return as_strided(input, (size,), (1,))
    shape, strides = list(input._shape), list(input._stride)
    window_stride = strides[d]
    shape[d] = (shape[d] - size) // step + 1
    strides[d] *= step
    return as_strided(input, tuple(shape) + (size,), tuple(strides) + (window_stride,))


# ----------------------------------------------------------------------------------------------
# in-place view ops: the tensor itself takes the view's geometry
# ----------------------------------------------------------------------------------------------


def _inplace_view(name: str, self: Tensor, view, *args, **kwargs) -> Tensor:
    """``self.<name>(...)``: ``self``'s shape, strides and offset become those of
    ``view(self, ...)`` (which checks the arguments and raises PyTorch's errors); same storage, a
    version bump (as PyTorch). Autograd: PyTorch records the op as a view on a tensor in a
    graph; tensorlab refuses it there instead (a leaf or a view of a leaf with PyTorch's error,
    any other tensor that requires grad or has a graph with NotImplementedError), so no gradient
    is ever computed for the old shape. Without autograd (no grad required, or a leaf under
    no_grad, as PyTorch allows) it is exact."""
    from ._dispatch import check_inplace_autograd
    from .autograd.grad_mode import is_grad_enabled, no_grad

    if not isinstance(self, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(self).__name__}")
    if is_grad_enabled() and self._requires_grad:
        check_inplace_autograd(name, self)
    if self.grad_fn is not None:  # (a non-leaf in a graph: also under no_grad, its grad_fn stays the old shape's)
        raise NotImplementedError(f"{name}(): in-place view ops on a tensor that is part of an autograd graph are "
                                  f"not supported; use the out-of-place {name[:-1]}() instead")
    with no_grad():
        v = view(self, *args, **kwargs)
    self._shape, self._stride, self._offset = v._shape, v._stride, v._offset
    self._impl_view = None  # (the cached array has the old geometry)
    self._bump_version()
    return self


@tensor_method
def squeeze_(self: Tensor, dim=None) -> Tensor:
    return _inplace_view("squeeze_", self, squeeze, dim)


@tensor_method
def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    return _inplace_view("unsqueeze_", self, unsqueeze, dim)


@tensor_method
def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    return _inplace_view("transpose_", self, transpose, dim0, dim1)


@tensor_method
def swapaxes_(self: Tensor, axis0: int, axis1: int) -> Tensor:
    return transpose_(self, axis0, axis1)


swapdims_ = tensor_method(transpose_, name="swapdims_")


@tensor_method
def t_(self: Tensor) -> Tensor:
    if isinstance(self, Tensor) and self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return _inplace_view("t_", self, t)


@tensor_method
def as_strided_(self: Tensor, size, stride, storage_offset=None) -> Tensor:
    return _inplace_view("as_strided_", self, as_strided, size, stride, storage_offset)


# ----------------------------------------------------------------------------------------------
# complex views of a real tensor (tensorlab has no complex dtypes: PyTorch's real-dtype forms)
# ----------------------------------------------------------------------------------------------


def real(input: Tensor) -> Tensor:
    """``input`` itself (a real tensor is its own real part, as PyTorch returns it)."""
    need_tensor("real", input)
    return input


def imag(input: Tensor) -> Tensor:
    need_tensor("imag", input)
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _set_real(self: Tensor, value) -> None:
    self.copy_(value)  # (t.real = v writes v into t, as PyTorch)


Tensor.real = property(real, _set_real, doc="The real part: the tensor itself (tensorlab has no complex dtypes).")
Tensor.imag = property(imag, doc="Raises, as PyTorch does for a tensor of a non-complex dtype.")


@tensor_method
def conj(input: Tensor) -> Tensor:
    """``input`` itself: the conjugate of a real tensor (PyTorch returns the same tensor)."""
    need_tensor("conj", input)
    return input


def conj_physical(input: Tensor, *, out=None) -> Tensor:
    """``input`` itself for a real tensor (as PyTorch); ``out=``: a copy into ``out``."""
    need_tensor("conj_physical", input)
    if out is None:
        return input
    from .ops.elementwise_common import exact_out, write_out

    return write_out(input, exact_out("conj_physical", out, input, input))


tensor_method(conj, name="conj_physical")  # (the method takes no out=)
resolve_conj = tensor_method(conj, name="resolve_conj")
resolve_neg = tensor_method(conj, name="resolve_neg")


@tensor_method
def conj_physical_(self: Tensor) -> Tensor:
    need_tensor("conj_physical_", self)
    return self


@tensor_method
def is_conj(input: Tensor) -> bool:
    need_tensor("is_conj", input)
    return False


is_neg = tensor_method(is_conj, name="is_neg")
