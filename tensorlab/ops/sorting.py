"""The sorting op family (see issue 3): sort, argsort, msort, topk, kthvalue, median, searchsorted,
bucketize, unique, unique_consecutive. Declarations, public functions and Tensor methods.

Semantics (PyTorch's): NaN sorts as the largest value (last ascending, first descending); -0.0
and +0.0 compare equal. Every sort here is **stable**, also with ``stable=False`` (PyTorch then
promises nothing about ties; this is one valid, deterministic answer). So topk, kthvalue and
median return, among equal values, the one that comes first in the stable order: for topk the
lowest indices first, for kthvalue/median the index that the stable ascending sort puts at that
position. ``median`` is the lower median and returns NaN (the first NaN's index) when the row has
any. ``topk(sorted=False)`` returns the sorted result too. ``unique`` always sorts
(``sorted=False`` is accepted and sorts, as PyTorch on CUDA does); every NaN is its own value.
``unique(dim=d)`` / ``unique_consecutive(dim=d)`` compare whole slices along ``d``; they are composed
of registered ops (a radix sort of the slices with stable ``argsort``), see ``_unique_dim``.

Gradients: the values of sort/topk/kthvalue/median(dim) send their gradient back to the input
position they came from (the indexing family's ``scatter`` into zeros at the returned indices;
its own backward is a ``gather``, so double backward works); indices are int64 and not differentiable; argsort,
searchsorted, bucketize and unique are not differentiable.
"""

from __future__ import annotations

import builtins

import numpy as np

from tensorlab_kernels.sorting import search as kss
from tensorlab_kernels.sorting import sort as ks
from tensorlab_kernels.sorting import unique as ku

from .. import _dtype as D
from .. import return_types as RT
from .._dispatch import dispatch
from .._layout import preserve_strides
from .._registry import Plan, defop
from .._tensor import Tensor, norm_dim, tensor_method
from .._views import flag_arg, int_arg  # (int_arg refuses a bool: sort(True) would sort along dim 1)
from ..autograd.grad_mode import is_grad_enabled
from . import elementwise_common as E
from .elementwise_common import exact_out

__all__ = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "searchsorted", "bucketize", "unique",
           "unique_consecutive"]

# The named tuples ops return (PyTorch's ``torch.return_types``): ``values, indices = x.sort()``
# or ``x.sort().values``; defined once in tensorlab.return_types, where pickle finds them.
SortResult, TopkResult, KthvalueResult, MedianResult = RT.sort, RT.topk, RT.kthvalue, RT.median


def _save_indices(ctx, inputs, outputs, params):
    ctx.save_for_backward(outputs[1])


def _dim_size(x: Tensor, d: int) -> int:
    return x._shape[d] if x.ndim else 1


def _reduced_shape(x: Tensor, d: int, keepdim: bool) -> tuple:
    if x.ndim == 0:
        return ()
    shape = list(x._shape)
    if keepdim:
        shape[d] = 1
    else:
        del shape[d]
    return tuple(shape)


# ----------------------------------------------------------------------------------------------
# sort, argsort, topk, kthvalue, median
# ----------------------------------------------------------------------------------------------


def _value_select_backward(ctx, g_values, g_indices=None):
    """Send each selected value's gradient to the input position it came from."""
    (indices,) = ctx.saved_tensors
    shape = ctx.inputs[0].shape
    d = norm_dim(ctx.params.get("dim", -1), len(shape), "backward")
    if len(shape) and not ctx.params.get("keepdim", True):
        g_values, indices = g_values.unsqueeze(d), indices.unsqueeze(d)
    from .._factories import zeros

    # The indexing family's scatter (a registered op; its backward is a gather). Indices are
    # distinct along ``d``, so every input position receives at most one gradient.
    return (zeros(shape, dtype=g_values.dtype, device=g_values.device).scatter(d, indices, g_values),)


def _sort_meta(x: Tensor, dim=-1, descending=False) -> Plan:
    d = norm_dim(dim, x.ndim, "sort")
    strides = preserve_strides(x)  # values and indices laid out as x, as PyTorch's sort
    return Plan(args=[x], outputs=[(x._shape, x.dtype, strides), (x._shape, D.int64, strides)],
                params={"dim": d, "descending": builtins.bool(descending)}, single=False)


def _argsort_meta(x: Tensor, dim=-1, descending=False) -> Plan:
    d = norm_dim(dim, x.ndim, "argsort")
    return Plan(args=[x], outputs=[(x._shape, D.int64, preserve_strides(x))],
                params={"dim": d, "descending": builtins.bool(descending)})


def _topk_meta(x: Tensor, k, dim=-1, largest=True) -> Plan:
    d = norm_dim(dim, x.ndim, "topk")
    n = _dim_size(x, d)
    if not 0 <= k <= n:
        raise RuntimeError(f"topk(): selected index k out of range (k = {k}, dim {d} has size {n})")
    if x.dtype is D.bool:  # PyTorch refuses bool (sort of a bool tensor works)
        raise NotImplementedError("topk(): topk does not support bool dtypes")
    shape = list(x._shape)
    if x.ndim:
        shape[d] = k
    else:  # a 0-d input's output is 0-d, its one element, even for k = 0 (as PyTorch)
        k = 1
    return Plan(args=[x], outputs=[(tuple(shape), x.dtype), (tuple(shape), D.int64)],
                params={"k": k, "dim": d, "largest": builtins.bool(largest)}, single=False)


def _kthvalue_meta(x: Tensor, k, dim=-1, keepdim=False) -> Plan:
    d = norm_dim(dim, x.ndim, "kthvalue")
    n = _dim_size(x, d)
    if n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d} (k = {k}, size {n})")
    if x.dtype is D.bool and x.ndim:  # PyTorch has no bool kernel (a 0-d one is its own value; sort, msort
        raise E.not_implemented_for("kthvalue", x.dtype)  # and argsort of bool work)
    shape = _reduced_shape(x, d, keepdim)
    return Plan(args=[x], outputs=[(shape, x.dtype), (shape, D.int64)],
                params={"k": k, "dim": d, "keepdim": builtins.bool(keepdim)}, single=False)


def _median_meta(x: Tensor, dim=-1, keepdim=False) -> Plan:
    d = norm_dim(dim, x.ndim, "median")
    if _dim_size(x, d) == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    if x.dtype is D.bool:  # (after the dim checks, as PyTorch)
        raise E.not_implemented_for("median", x.dtype)
    shape = _reduced_shape(x, d, keepdim)
    return Plan(args=[x], outputs=[(shape, x.dtype), (shape, D.int64)],
                params={"dim": d, "keepdim": builtins.bool(keepdim)}, single=False)


SORT = defop("sort", twin=ks.sort_twin, kernel=ks.sort, meta=_sort_meta, backward=_value_select_backward,
             save=_save_indices, tags={"sorting", "no_partial_overlap"},
             doc="Stable sort along a dim: (values, indices).")
ARGSORT = defop("argsort", twin=ks.argsort_twin, kernel=ks.argsort, meta=_argsort_meta, tags={"sorting"},
                doc="The indices of a stable sort along a dim.")
TOPK = defop("topk", twin=ks.topk_twin, kernel=ks.topk, meta=_topk_meta, backward=_value_select_backward,
             save=_save_indices, tags={"sorting"}, doc="The k largest (smallest) elements along a dim, sorted.")
KTHVALUE = defop("kthvalue", twin=ks.kthvalue_twin, kernel=ks.kthvalue, meta=_kthvalue_meta,
                 backward=_value_select_backward, save=_save_indices, tags={"sorting"},
                 doc="The k-th smallest element along a dim (1-based).")
MEDIAN = defop("median", twin=ks.median_twin, kernel=ks.median, meta=_median_meta, backward=_value_select_backward,
               save=_save_indices, tags={"sorting"}, doc="The lower median along a dim (NaN if the row has one).")


@tensor_method
def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, *, out=None):
    """``(values, indices)`` of ``input`` sorted along ``dim``. Always stable (see the module doc)."""
    dim = int_arg("sort", "dim", dim)
    flag_arg("sort", "descending", descending)
    if stable is not None:
        flag_arg("sort", "stable", stable)
    E.exact_pair_out("sort", out, input)
    return SortResult(*dispatch(SORT, input, dim=dim, descending=descending, out=out))


@tensor_method
def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False, *, out=None) -> Tensor:
    dim = int_arg("argsort", "dim", dim)
    flag_arg("argsort", "descending", descending)
    flag_arg("argsort", "stable", stable)  # (sort takes None; PyTorch's argsort wants a bool)
    if out is not None:  # an int64 out=, as PyTorch's (which takes it with stable= given)
        out = exact_out("argsort", out, input, input, dtype=D.int64)
    return dispatch(ARGSORT, input, dim=dim, descending=descending, out=out)


@tensor_method
def msort(input: Tensor, *, out=None) -> Tensor:
    """``input`` sorted along its first dim (the values of ``sort(input, dim=0)``)."""
    if out is not None:
        from .._dispatch import empty_tensor

        E.exact_out("msort", out, input, input)
        indices = empty_tensor(input._shape, D.int64, input.device)
        return dispatch(SORT, input, dim=0, descending=False, out=(out, indices))[0]
    return sort(input, 0).values


@tensor_method
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *, out=None):
    """The ``k`` largest (``largest=False``: smallest) elements along ``dim``, always sorted."""
    k, dim = int_arg("topk", "k", k), int_arg("topk", "dim", dim)
    flag_arg("topk", "largest", largest)
    flag_arg("topk", "sorted", sorted)
    E.exact_pair_out("topk", out, input)
    return TopkResult(*dispatch(TOPK, input, k=k, dim=dim, largest=largest, out=out))


@tensor_method
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False, *, out=None):
    """The ``k``-th smallest element (1-based) along ``dim`` and its index."""
    k, dim = int_arg("kthvalue", "k", k), int_arg("kthvalue", "dim", dim)
    flag_arg("kthvalue", "keepdim", keepdim)
    E.exact_pair_out("kthvalue", out, input)
    return KthvalueResult(*dispatch(KTHVALUE, input, k=k, dim=dim, keepdim=keepdim, out=out))


def _median_all_impl(x: Tensor) -> Tensor:
    from ..autograd.grad_mode import no_grad

    with no_grad():
        if x.numel() == 0:
            if not x.dtype.is_floating_point:
                raise RuntimeError(f"median(): cannot compute the median of an empty {x.dtype.name} tensor")
            from .._factories import full

            return full((), float("nan"), dtype=x.dtype, device=x.device)
        return dispatch(MEDIAN, x.reshape(-1), dim=0, keepdim=False)[0]


def _median_all_backward(ctx, g):
    # PyTorch's evenly_distribute_backward: the gradient is shared by every element equal to the
    # median (every NaN when the median is NaN), so it does not depend on which one was picked.
    # (cpu's masked fill: an inf or NaN gradient reaches the selected elements only)
    from .elementwise_binary import where

    x, value = ctx.saved_tensors
    mask = (x == value) | (x.isnan() & value.isnan())
    share = g / mask.to(g.dtype).sum()
    return (where(mask, share, g.new_zeros(())),)


MEDIAN_ALL = defop("median_all", custom=_median_all_impl, backward=_median_all_backward,
                   save=lambda ctx, inputs, outputs, params: ctx.save_for_backward(inputs[0], outputs[0]),
                   tags={"sorting"}, doc="The lower median of all elements (NaN if any is NaN).")


@tensor_method
def median(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """``median(input)``: the lower median of all elements (a 0-d tensor);
    ``median(input, dim, keepdim=False)``: ``(values, indices)`` along ``dim``.

    NaN if there is any NaN (with the first NaN's index along ``dim``). The gradient of
    ``median(input)`` is shared evenly by the elements equal to the median (PyTorch's rule); that of
    the ``dim`` form goes to the returned index.
    """
    if dim is None:
        if out is not None:
            raise TypeError("median(): out= is only supported together with dim")
        if keepdim:  # median(input) has no keepdim in PyTorch: refused rather than ignored
            raise TypeError("median(): keepdim=True needs dim")
        return dispatch(MEDIAN_ALL, input)
    dim = int_arg("median", "dim", dim)
    E.exact_pair_out("median", out, input)
    return MedianResult(*dispatch(MEDIAN, input, dim=dim, keepdim=keepdim, out=out))


# ----------------------------------------------------------------------------------------------
# searchsorted, bucketize
# ----------------------------------------------------------------------------------------------


def _searchsorted_meta(seq: Tensor, values: Tensor, sorter, out_int32=False, right=False) -> Plan:
    return Plan(args=[seq, values, sorter], outputs=[(values._shape, D.int32 if out_int32 else D.int64)],
                params={"right": builtins.bool(right)})


SEARCHSORTED = defop("searchsorted", twin=kss.searchsorted_twin, kernel=kss.searchsorted, meta=_searchsorted_meta,
                     tags={"sorting"}, doc="Insertion positions of values in the rows of a sorted sequence.")


def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False, side=None,
                 out=None, sorter=None) -> Tensor:
    """Indices where ``input`` would be inserted into the innermost dim of ``sorted_sequence``.

    ``right``/``side='right'``: the last such index (upper bound), else the first (lower bound).
    Both are compared in their promoted dtype (as PyTorch; a Python scalar is weak). NaN is the
    largest value, as in ``sort``.
    """
    op = "searchsorted()"
    if not isinstance(sorted_sequence, Tensor):
        raise TypeError(f"searchsorted(): argument 'sorted_sequence' must be Tensor, not "
                        f"{type(sorted_sequence).__name__}")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"{op}: side can only be 'left' or 'right' but got {side}")
        if side == "left" and right:
            raise RuntimeError(f"{op}: side and right can't be set to opposites, got side of left while right "
                               "was True")
        right = side == "right"
    dev = sorted_sequence.device
    scalar = not isinstance(input, Tensor)
    if scalar:
        if sorted_sequence.ndim != 1:
            raise RuntimeError(f"{op}: input value can be a scalar only when boundaries tensor dimension is 1, but "
                               f"we got boundaries tensor dim({sorted_sequence.ndim}) and input value's dim(0) "
                               "numel(1)")
        if not isinstance(input, builtins.bool | builtins.int | builtins.float | np.number | np.bool_):
            raise TypeError(f"searchsorted(): argument 'input' must be Tensor or a number, not "
                            f"{type(input).__name__}")
    elif input.device != dev:
        if input.ndim == 0 and input.is_cpu:
            input = input.to(dev)  # a 0-d cpu tensor joins the sequence's device, as a scalar would
        else:
            raise RuntimeError(f"{op}: Expected all tensors to be on the same device, but found at least two "
                               f"devices, {dev} and {input.device}!")
    seq_shape = sorted_sequence._shape
    in_shape = () if scalar else input._shape
    if sorted_sequence.ndim == 0 or (sorted_sequence.ndim > 1 and (len(in_shape) == 0
                                                                  or seq_shape[:-1] != in_shape[:-1])):
        if sorted_sequence.ndim > 1 and len(in_shape) == 0:
            raise RuntimeError(f"{op}: input value can be a scalar only when boundaries tensor dimension is 1, but "
                               f"we got boundaries tensor dim({sorted_sequence.ndim}) and input value's dim(0) "
                               f"numel(1)")
        raise RuntimeError(f"{op}: boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
                           f"tensor and input value tensor must match, but we got boundaries tensor "
                           f"{list(seq_shape)} and input value tensor {list(in_shape)}")
    n = seq_shape[-1]
    if out_int32 and n >= 2**31 - 1:
        raise RuntimeError(f"{op}: the size of boundaries' last dimension should be less than 2147483647, but we "
                           f"got {n}")
    if sorter is not None:
        _check_sorter(sorted_sequence, sorter, op)
    if out is not None:
        want = D.int32 if out_int32 else D.int64
        if not isinstance(out, Tensor):
            raise TypeError(f"searchsorted(): out= must be a Tensor, got {type(out).__name__}")
        if out.dtype is not want:
            raise RuntimeError(f"{op}: output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
                               f"depending on whether out_int32 flag is True, but we got output tensor's dtype "
                               f"{out.dtype.name} and out_int32 flag is {builtins.bool(out_int32)}")
    common = D.result_type(sorted_sequence, input)
    if common is D.bool:  # PyTorch has no bool kernel (a bool side promoted with an integer one is fine)
        raise E.not_implemented_for("searchsorted", common)
    if scalar:
        from .._factories import tensor

        input = tensor(input, dtype=common, device=dev)
    if sorted_sequence.dtype is not common:
        sorted_sequence = sorted_sequence.to(common)
    if input.dtype is not common:
        input = input.to(common)
    return dispatch(SEARCHSORTED, sorted_sequence.detach(), input.detach(),
                    sorter.detach() if sorter is not None else None,
                    out_int32=builtins.bool(out_int32), right=builtins.bool(right), out=out)


def _check_sorter(seq: Tensor, sorter, op: str) -> None:
    if not isinstance(sorter, Tensor):
        raise TypeError(f"searchsorted(): argument 'sorter' must be Tensor, not {type(sorter).__name__}")
    if sorter._shape != seq._shape:
        raise RuntimeError(f"{op}: boundary and sorter must have the same size, but got boundary tensor "
                           f"{list(seq._shape)}and got sorter tensor {list(sorter._shape)}")
    if sorter.dtype is not D.int64:
        raise RuntimeError(f"{op}: sorter must be a tensor of long dtype but got dtype {sorter.dtype.name}")
    if sorter.device != seq.device:
        raise RuntimeError(f"{op}: Expected all tensors to be on the same device, but found at least two devices, "
                           f"{seq.device} and {sorter.device}!")
    if sorter.numel():
        # The range check reads the sorter (on cuda: a copy to the host), as PyTorch's cpu path checks it.
        host = sorter._host_array()
        n = seq._shape[-1]
        if host.min() < 0 or host.max() >= n:
            raise RuntimeError(f"{op}: sorter index out of range (values must be in [0, {n}), got "
                               f"[{host.min()}, {host.max()}])")


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out=None) -> Tensor:
    """The bucket of each element of ``input`` in the 1-D ``boundaries``: searchsorted(boundaries, input)."""
    if not isinstance(boundaries, Tensor):
        raise TypeError(f"bucketize(): argument 'boundaries' must be Tensor, not {type(boundaries).__name__}")
    if boundaries.ndim != 1:
        raise RuntimeError(f"bucketize(): boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


# ----------------------------------------------------------------------------------------------
# unique, unique_consecutive
# ----------------------------------------------------------------------------------------------


def _unique_meta(x: Tensor) -> Plan:
    return Plan(args=[x], outputs=None, single=False)


def _no_derivative_geometry(shape, strides, offset, input, name):
    return shape, strides, offset


def _no_derivative_backward(ctx, g):
    raise NotImplementedError(f"the derivative for '{ctx.params['name']}' is not implemented")


# ``value`` recorded as computed from ``input`` by an op whose values follow the input's but whose
# derivative PyTorch does not implement (unique): the value requires grad, as PyTorch's, and a
# backward through it raises rather than the gradient silently leaving out this path
NO_DERIVATIVE = defop("no_derivative", view=_no_derivative_geometry, backward=_no_derivative_backward,
                      save=E.save_nothing, tags={"view"}, doc="value, recorded as input's by an op with no derivative")
UNIQUE = defop("unique", twin=ku.unique_twin, kernel=ku.unique, meta=_unique_meta, tags={"sorting"},
               doc="Sorted distinct elements of a 1-D tensor with inverse indices and counts.")
UNIQUE_CONSECUTIVE = defop("unique_consecutive", twin=ku.unique_consecutive_twin, kernel=ku.unique_consecutive,
                           meta=_unique_meta, tags={"sorting"},
                           doc="Runs of equal consecutive elements of a 1-D tensor: values, inverse, counts.")


def _unique_result(values, inverse, counts, return_inverse, return_counts):
    if not return_inverse and not return_counts:
        return values
    out = (values,)
    if return_inverse:
        out += (inverse,)
    if return_counts:
        out += (counts,)
    return out


def _unique_impl(op, name: str, input: Tensor, return_inverse, return_counts, dim):
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")
    if dim is not None:
        values, inverse, counts = _unique_dim(name, input.detach(), int_arg(name, "dim", dim),
                                              consecutive=op is UNIQUE_CONSECUTIVE)
    else:
        values, inverse, counts = dispatch(op, input.detach().reshape(-1))
        inverse = inverse.reshape(input._shape)
    if input.requires_grad and is_grad_enabled():
        values = dispatch(NO_DERIVATIVE, values, input, name=name)
    return _unique_result(values, inverse, counts, return_inverse, return_counts)


def _unique_dim(name: str, x: Tensor, dim: int, consecutive: bool):
    """Unique slices along ``dim``, composed of registered ops (no kernel of its own).

    The slices (rows of ``x`` moved to ``[S, L]``) are put in lexicographic order by an LSD radix
    sort: one stable ``argsort`` per column, last column first, each through the permutation so
    far. A slice starts a new group when any element differs from the previous slice's (``!=``:
    -0.0 equals +0.0; a slice holding NaN is never equal to another, as in PyTorch). Group numbers
    are a ``cumsum`` of those flags; one host read gives the number of groups.
    """
    from .. import arange, cat, cumsum, index_select, nonzero, ones, tensor, zeros

    if x.ndim == 0:
        raise IndexError(f"{name}(): dim={dim} given for a 0-d tensor; use dim=None")
    d = norm_dim(dim, x.ndim, name)
    if x.numel() == 0:  # PyTorch's checks: only the selected dim may be empty
        if sum(s == 0 for s in x._shape) > 1:
            raise RuntimeError(f"{name}(): Number of zero sized dimensions is more than one, so unique cannot be "
                               "applied")
        if x._shape[d] != 0:
            raise RuntimeError(f"{name}(): There are 0 sized dimensions, and they aren't selected, so unique "
                               "cannot be applied")
    xs = x.movedim(d, 0)
    n, rest = xs._shape[0], xs._shape[1:]
    x2 = xs.reshape(n, int(np.prod(rest)) if rest else 1)
    dev = x.device
    perm = arange(n, device=dev)
    if not consecutive:
        for c in reversed(range(x2._shape[1])):
            order = argsort(index_select(x2.select(1, c), 0, perm), stable=True)
            perm = index_select(perm, 0, order)
    y = index_select(x2, 0, perm)
    if n == 0:
        empty = zeros((0,), dtype=D.int64, device=dev)
        return xs.reshape((0,) + rest).movedim(0, d), empty, empty
    first = ones((1,), dtype=D.bool, device=dev)
    if n > 1:
        first = cat([first, (y[1:] != y[:-1]).any(1)])
    groups = cumsum(first, 0) - 1
    starts = nonzero(first).reshape(-1)
    values = index_select(y, 0, starts).reshape((starts._shape[0],) + rest).movedim(0, d)
    inverse = zeros((n,), dtype=D.int64, device=dev).scatter(0, perm, groups)
    counts = cat([starts[1:], tensor([n], dtype=D.int64, device=dev)]) - starts
    return values, inverse, counts


@tensor_method
def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim=None):
    """The distinct elements of ``input`` (flattened), sorted; optionally the inverse indices
    (``input``'s shape: where each element went) and the count of each value. Every NaN is distinct."""
    for name, value in (("sorted", sorted), ("return_inverse", return_inverse), ("return_counts", return_counts)):
        flag_arg("unique", name, value)
    return _unique_impl(UNIQUE, "unique", input, return_inverse, return_counts, dim)


@tensor_method
def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """Collapse runs of equal consecutive elements of ``input`` (flattened)."""
    for name, value in (("return_inverse", return_inverse), ("return_counts", return_counts)):
        flag_arg("unique_consecutive", name, value)
    return _unique_impl(UNIQUE_CONSECUTIVE, "unique_consecutive", input, return_inverse, return_counts, dim)
