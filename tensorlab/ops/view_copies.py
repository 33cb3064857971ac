"""PyTorch's ``*_copy`` ops: each view op's result as a new contiguous tensor (``t_copy``,
``diagonal_copy``, ``expand_copy``, ..., ``split_copy``), plus ``fill`` (``fill_`` out of place).

A ``*_copy`` op is the view followed by a contiguous clone, so gradients flow through the view's
and the clone's rules; the result is never a view (no ``_base``) and owns its memory. ``out=``
must have exactly the input's dtype, as PyTorch's; it is checked before anything is written.
"""

from __future__ import annotations

from .._copy_ops import clone
from .._layout import contiguous_format
from .._tensor import Tensor, need_tensor, norm_dim
from . import elementwise_common as E

__all__ = ["alias_copy", "as_strided_copy", "detach_copy", "diagonal_copy", "expand_copy", "permute_copy",
           "select_copy", "slice_copy", "squeeze_copy", "t_copy", "transpose_copy", "unfold_copy",
           "unsqueeze_copy", "view_copy", "split_copy", "split_with_sizes_copy", "unbind_copy", "fill"]


def _copied(op: str, input, make_view, out):
    need_tensor(op, input)
    out = E.exact_out(op, out, input, input)
    view = make_view(input)
    return clone(view, memory_format=contiguous_format) if out is None else E.write_out(view, out)


def _copied_list(op: str, input, make_views, out):
    need_tensor(op, input)
    views = make_views(input)
    if out is None:
        return tuple(clone(v, memory_format=contiguous_format) for v in views)
    if not isinstance(out, (list, tuple)) or len(out) != len(views):
        got = len(out) if isinstance(out, (list, tuple)) else type(out).__name__
        raise RuntimeError(f"{op}(): expected out to be a list of {len(views)} tensors, but got {got}")
    outs = [E.exact_out(op, o, input, input) for o in out]  # every one checked before any is written
    for v, o in zip(views, outs, strict=True):
        E.write_out(v, o)
    return None


def alias_copy(input: Tensor, *, out=None) -> Tensor:
    return _copied("alias_copy", input, lambda x: x, out)


def detach_copy(input: Tensor, *, out=None) -> Tensor:
    return _copied("detach_copy", input, lambda x: x.detach(), out)


def as_strided_copy(input: Tensor, size, stride, storage_offset=None, *, out=None) -> Tensor:
    return _copied("as_strided_copy", input, lambda x: x.as_strided(size, stride, storage_offset), out)


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1, *, out=None) -> Tensor:
    return _copied("diagonal_copy", input, lambda x: x.diagonal(offset, dim1, dim2), out)


def expand_copy(input: Tensor, size, *, implicit: bool = False, out=None) -> Tensor:
    return _copied("expand_copy", input, lambda x: x.expand(size), out)


def permute_copy(input: Tensor, dims, *, out=None) -> Tensor:
    return _copied("permute_copy", input, lambda x: x.permute(dims), out)


def select_copy(input: Tensor, dim: int, index: int, *, out=None) -> Tensor:
    return _copied("select_copy", input, lambda x: x.select(dim, index), out)


def slice_copy(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1, *, out=None) -> Tensor:
    def view(x):
        return x[(slice(None),) * norm_dim(dim, x.ndim, "slice_copy") + (slice(start, end, step),)]

    return _copied("slice_copy", input, view, out)


def squeeze_copy(input: Tensor, dim=None, *, out=None) -> Tensor:
    return _copied("squeeze_copy", input, lambda x: x.squeeze() if dim is None else x.squeeze(dim), out)


def t_copy(input: Tensor, *, out=None) -> Tensor:
    return _copied("t_copy", input, lambda x: x.t(), out)


def transpose_copy(input: Tensor, dim0: int, dim1: int, *, out=None) -> Tensor:
    return _copied("transpose_copy", input, lambda x: x.transpose(dim0, dim1), out)


def unfold_copy(input: Tensor, dimension: int, size: int, step: int, *, out=None) -> Tensor:
    return _copied("unfold_copy", input, lambda x: x.unfold(dimension, size, step), out)


def unsqueeze_copy(input: Tensor, dim: int, *, out=None) -> Tensor:
    return _copied("unsqueeze_copy", input, lambda x: x.unsqueeze(dim), out)


def view_copy(input: Tensor, size, *, out=None) -> Tensor:
    return _copied("view_copy", input, lambda x: x.view(size), out)


def split_copy(input: Tensor, split_size, dim: int = 0, *, out=None):
    return _copied_list("split_copy", input, lambda x: x.split(split_size, dim), out)


def split_with_sizes_copy(input: Tensor, split_sizes, dim: int = 0, *, out=None):
    return _copied_list("split_with_sizes_copy", input, lambda x: x.split_with_sizes(split_sizes, dim), out)


def unbind_copy(input: Tensor, dim: int = 0, *, out=None):
    return _copied_list("unbind_copy", input, lambda x: x.unbind(dim), out)


def fill(input: Tensor, value) -> Tensor:
    """A tensor like ``input`` filled with ``value`` (a number or a 0-d tensor, whose gradient is
    the sum of the result's), laid out as ``input``. A copy filled in place: ``input``'s gradient
    is then zeros, as PyTorch's, rather than absent."""
    need_tensor("fill", input)
    return clone(input).fill_(value)
