"""Shape and layout ops PyTorch users expect, built from views, ``cat`` and copies into views.

Like ``composite.py``, nothing here declares an OpDef: each function is views and registered ops,
so it runs on both devices and differentiates through its parts. Checked against torch 2.13.

- ``block_diag``, ``cartesian_prod``, ``diagflat``, ``vander``;
- ``hsplit``/``vsplit``/``dsplit`` (``tensor_split`` along dim 1, 0, 2 with numpy's names);
- ``unravel_index``;
- ``slice_scatter``/``select_scatter``/``diagonal_scatter``: ``input`` with a region replaced by
  ``src``, out of place (a clone written through a view of itself).
"""

from __future__ import annotations

from .. import _dtype as D
from .._tensor import Tensor, need_tensor, norm_dim, tensor_method
from .._views import tensor_split
from . import shape_ops as S

__all__ = ["block_diag", "cartesian_prod", "diagflat", "vander", "hsplit", "vsplit", "dsplit", "unravel_index",
           "slice_scatter", "select_scatter", "diagonal_scatter"]


def block_diag(*tensors: Tensor) -> Tensor:
    """The block-diagonal matrix of 0-, 1- and 2-d tensors (a 0-d tensor is a 1×1 block, a 1-d
    tensor a row), in their result_type (as PyTorch: 0-d blocks count like scalars in the promotion)."""
    from .._factories import zeros

    blocks = []
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"block_diag(): argument 'tensors' must be tuple of Tensors, not {type(t).__name__}")
        if t.ndim > 2:
            raise RuntimeError(f"block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
        blocks.append(t.reshape(1, -1) if t.ndim < 2 else t)
    if not blocks:
        return zeros(1, 0)
    dtype = D.result_type(*tensors)  # PyTorch's result_type: a 0-d block ranks below dimensioned ones
    device = blocks[0].device
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        r, c = b.shape
        parts = [zeros(r, left, dtype=dtype, device=device), b.to(dtype),
                 zeros(r, width - left - c, dtype=dtype, device=device)]
        rows.append(S.cat(parts, 1))
        left += c
    return S.cat(rows, 0)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each 1-d tensor, as rows (itertools.product order)."""
    for t in tensors:
        if not isinstance(t, Tensor) or t.ndim != 1:
            shape = list(t.shape) if isinstance(t, Tensor) else type(t).__name__
            raise RuntimeError(f"cartesian_prod(): Expect a 1D vector, but got shape {shape}")
    if len(tensors) == 1:
        return tensors[0]
    grids = S.meshgrid(*tensors, indexing="ij")
    return S.stack([g.reshape(-1) for g in grids], 1)


@tensor_method
def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The square matrix with ``input`` (flattened) on diagonal ``offset``."""
    need_tensor("diagflat", input)
    return S.diag(input.reshape(-1), offset)


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of a 1-d tensor: columns ``x**(N-1), ..., x, 1`` (reversed with
    ``increasing``); integers and bools give int64, as PyTorch."""
    from .._factories import ones

    if x.ndim != 1:
        raise RuntimeError("vander(): x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("vander(): N must be non-negative.")
    dtype = x.dtype if x.dtype.is_floating_point else D.int64
    if n == 0:
        return ones(x.shape[0], 0, dtype=dtype, device=x.device)
    x = x.to(dtype)
    columns = [ones(x.shape[0], 1, dtype=dtype, device=x.device)]
    if n > 1:  # x**k as a running product, as PyTorch (cumprod), exact for integers
        columns.append(x.unsqueeze(1).expand(x.shape[0], n - 1).cumprod(1))
    result = S.cat(columns, 1)
    return result if increasing else S.flip(result, [1])


def _split(op: str, input: Tensor, indices_or_sections, dim: int, min_dims: int) -> tuple:
    if input.ndim < min_dims:
        raise RuntimeError(f"{op} requires a tensor with at least {min_dims} dimension, but got a tensor with "
                           f"{input.ndim} dimensions!")
    if isinstance(indices_or_sections, int):
        size = input.shape[dim]
        if indices_or_sections == 0 or size % indices_or_sections:
            raise RuntimeError(f"{op} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {indices_or_sections}!")
    return tensor_split(input, indices_or_sections, dim)


def _sections_or_indices(op: str, args: tuple, sections, indices):
    """PyTorch's forms: ``(sections)`` or ``(indices)`` positionally, the indices also as separate
    ints (``x.hsplit(1, 3)``), or one of the keywords ``sections=`` / ``indices=``."""
    keywords = [v for v in (sections, indices) if v is not None]
    if len(keywords) > 1 or (keywords and args) or not (keywords or args):
        raise TypeError(f"{op}() takes one of: sections (int), indices (a list of ints, or ints)")
    if keywords:
        return keywords[0]
    return args[0] if len(args) == 1 else list(args)


@tensor_method
def hsplit(input: Tensor, *indices_or_sections, sections=None, indices=None) -> tuple:
    """Split along dim 1 (dim 0 for a 1-d tensor) into equal sections or at indices."""
    arg = _sections_or_indices("hsplit", indices_or_sections, sections, indices)
    return _split("hsplit", input, arg, 1 if input.ndim > 1 else 0, 1)


@tensor_method
def vsplit(input: Tensor, *indices_or_sections, sections=None, indices=None) -> tuple:
    """Split along dim 0 (at least 2-d) into equal sections or at indices."""
    return _split("vsplit", input, _sections_or_indices("vsplit", indices_or_sections, sections, indices), 0, 2)


@tensor_method
def dsplit(input: Tensor, *indices_or_sections, sections=None, indices=None) -> tuple:
    """Split along dim 2 (at least 3-d) into equal sections or at indices."""
    return _split("dsplit", input, _sections_or_indices("dsplit", indices_or_sections, sections, indices), 2, 3)


def unravel_index(indices: Tensor, shape) -> tuple:
    """The coordinates in ``shape`` of flat (row-major) positions: one int64 tensor per dim.
    Positions wrap as PyTorch's do (floor division and modulo per dim)."""
    if not isinstance(indices, Tensor):
        raise TypeError(f"unravel_index(): expected 'indices' to be a Tensor, but got {type(indices).__name__}")
    if indices.dtype.is_floating_point or indices.dtype is D.bool:
        raise TypeError(f"unravel_index(): expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, Tensor) or not isinstance(shape, int | tuple | list):  # (PyTorch's checks)
        raise TypeError(f"unravel_index(): expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    for s in shape:  # (a float would give float coordinates)
        if not isinstance(s, int):
            raise TypeError(f"unravel_index(): expected 'shape' sequence to only contain ints, but got {type(s)}")
    if any(s < 0 for s in shape):
        raise ValueError(f"unravel_index(): 'shape' cannot have negative values, but got {shape}")
    if not shape:
        return ()
    flat = indices.to(D.int64)
    coords = []
    for size in reversed(shape):
        coords.append(flat.remainder(size) if size else flat * 0)
        flat = flat.div(size, rounding_mode="floor") if size else flat * 0
    return tuple(reversed(coords))


def _scatter_into(op: str, input: Tensor, src: Tensor, region) -> Tensor:
    """A clone of ``input`` with ``region(clone)`` (a view) overwritten by ``src``."""
    if not isinstance(src, Tensor):
        raise TypeError(f"{op}(): argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    out = input.clone()
    view = region(out)
    if view.shape != src.shape:
        raise RuntimeError(f"{op}(): expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(view.shape)}")
    view.copy_(src)
    return out


@tensor_method
def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1, *, out=None) -> Tensor:
    """``input`` with ``input[..., start:end:step, ...]`` (along ``dim``) replaced by ``src``
    (``out=``: of ``input``'s dtype)."""
    from .elementwise_common import exact_out, write_out

    out = exact_out("slice_scatter", out, input, input, src)
    d = norm_dim(dim, input.ndim, "slice_scatter")
    index = (slice(None),) * d + (slice(start, end, step),)
    result = _scatter_into("slice_scatter", input, src, lambda t: t[index])
    return result if out is None else write_out(result, out)


@tensor_method
def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """``input`` with ``input.select(dim, index)`` replaced by ``src``."""
    return _scatter_into("select_scatter", input, src, lambda t: t.select(dim, index))


@tensor_method
def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """``input`` with ``input.diagonal(offset, dim1, dim2)`` replaced by ``src``."""
    return _scatter_into("diagonal_scatter", input, src, lambda t: t.diagonal(offset, dim1, dim2))
