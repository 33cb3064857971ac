"""Order statistics built on the sort kernel: ``quantile``/``nanquantile``, ``nanmedian``, ``mode``.

Each sorts once (stable; NaN sorts last) and reads the wanted ranks with ``gather``, so values
are differentiable (the gradient goes to the elements read) and both devices share the code.
Semantics are torch 2.13's, checked against it:

- ``quantile``: the rank ``q * (n - 1)`` read with one of five interpolations; a row with a NaN
  gives NaN. ``nanquantile`` uses the ``n`` non-NaN values instead (NaN when there are none).
  The q dim comes first in the result, as PyTorch's.
- ``nanmedian``: the lower median of the non-NaN values, with its index. A row of NaN only gives
  NaN at index 0 (PyTorch's index there is where std::nth_element's partition of equivalent
  elements happens to leave one: 0, 0, 0, 2, 2, 3, 5, ... for rows of 1, 2, 3, 4, ... NaNs).
- ``mode``: the most frequent value (the smallest among equally frequent ones) and the index of
  its last occurrence. NaN != NaN, so each NaN counts once, and NaN sorts last: NaN is the mode of
  an all-NaN row only (at its first NaN). PyTorch's CPU mode with NaNs depends on where they are
  (its sort compares with ``<``, which is no order with NaN: mode([nan, nan, 1]) is NaN and
  mode([1, nan, 1, nan, 1, 2, 2]) is 2), so it is not followed there.
"""

from __future__ import annotations

from .. import _dtype as D
from .. import return_types as RT
from .._dispatch import dispatch
from .._registry import defop
from .._tensor import Tensor, norm_dim, tensor_method
from ..amp.autocast_mode import autocast_op
from . import elementwise_binary as B
from . import elementwise_common as E
from . import sorting as SO
from .shape_ops import cat

__all__ = ["quantile", "nanquantile", "nanmedian", "mode"]

NanmedianResult, ModeResult = RT.nanmedian, RT.mode  # (tensorlab.return_types: they pickle by that name)

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(op: str, input: Tensor, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool,
              out=None) -> Tensor:
    from .._factories import tensor

    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if out is not None:
        if isinstance(out, Tensor) and out.dtype is not input.dtype:  # (PyTorch says quantile() for both)
            raise RuntimeError("quantile() out tensor must be same dtype as the input tensor")
        out = E.exact_out(op, out, input, input, q)
    if input.dtype not in (D.float32, D.float64):
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if input.numel() == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got "
                           f"{interpolation}")
    scalar_q = not isinstance(q, Tensor)
    if scalar_q:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {q}")
        q = tensor([float(q)], dtype=input.dtype, device=input.device)
    else:
        if q.ndim > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor")
        if q.numel() and not bool(((q >= 0) & (q <= 1)).all().item()):
            raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    q_shape = () if scalar_q else tuple(q.shape)
    q = q.reshape(-1).to(input.device)

    if dim is None:  # over everything: the result keeps every dim as 1 with keepdim
        x = input.reshape(-1)
        kept = (1,) * input.ndim if keepdim else ()
        d = 0
    else:
        d = norm_dim(dim, input.ndim or 1, op)  # (a 0-d input takes dim 0 or -1, as PyTorch)
        x = input.reshape(1) if input.ndim == 0 else input
        kept = tuple(1 if i == d else s for i, s in enumerate(input.shape)) if keepdim else \
            tuple(s for i, s in enumerate(input.shape) if i != d)
    rows = x.movedim(d, -1)  # (..., n)
    values = SO.sort(rows, -1).values
    n = values.shape[-1]
    nan = values.isnan()
    # The ranks in float64 from q in the input's dtype, as PyTorch's (q * (n - 1) rounded to float32
    # picked the neighbour of a rank just above or below an integer: quantile(arange(6.), 0.2,
    # interpolation="higher") gave 1 instead of 2); the interpolation weight in the input's dtype.
    q = q.to(D.float64)
    if ignore_nan:  # the ranks of the non-NaN values (NaN values sort last); none: read a NaN
        count = (~nan).sum(-1, keepdim=True)
        last = (count - 1).clamp_min(0).to(D.float64)
        ranks = q * last  # (..., Q)
        ranks = B.where(count == 0, float(n - 1), ranks)
    else:  # a row holding a NaN reads its last value (a NaN)
        ranks = (q * (n - 1)).expand(*values.shape[:-1], q.shape[0])
        ranks = B.where(nan.any(-1, keepdim=True), float(n - 1), ranks)
    if interpolation == "nearest":
        ranks = ranks.round()  # half to even, as PyTorch
    below = ranks.floor().to(D.int64)
    above = ranks.ceil().to(D.int64)
    low = values.gather(-1, below)
    if interpolation == "lower" or interpolation == "nearest":
        result = low
    else:
        high = values.gather(-1, above)
        if interpolation == "higher":
            result = high
        else:
            weight = (ranks - below.to(D.float64)).to(input.dtype) if interpolation == "linear" else 0.5
            result = low.lerp(high, weight)
    result = result.movedim(-1, 0)  # (Q, ...): the q dim first
    result = result.reshape((q.shape[0], *kept))
    result = result[0] if not q_shape else result
    return result if out is None else E.write_out(result, out)


@tensor_method
@autocast_op("quantile")
def quantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear", out=None) -> Tensor:
    """The ``q``-quantiles (a number or a 1-d tensor in [0, 1]) along ``dim`` (everything when
    None); ``interpolation``: linear, lower, higher, midpoint or nearest. NaN where a row has one."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, ignore_nan=False, out=out)


@tensor_method
@autocast_op("nanquantile")
def nanquantile(input: Tensor, q, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear", out=None) -> Tensor:
    """:func:`quantile` of the values that are not NaN."""
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, ignore_nan=True, out=out)


def _sorted_rows(op: str, input: Tensor, dim: int):
    """``(rows, values, order, d)``: ``input`` with ``dim`` moved last (a 0-d input as one element),
    its stable ascending sort along it, and the wrapped dim; IndexError for an empty dim or one out of
    range (a 0-d input takes -1 and 0, as PyTorch's)."""
    d = norm_dim(dim, input.ndim, op)
    x = input.reshape(1) if input.ndim == 0 else input
    if x.shape[d] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
    rows = x.movedim(d, -1)
    values, order = SO.sort(rows, -1, stable=True)
    return rows, values, order, d


def _picked(result_type, input: Tensor, rows: Tensor, order: Tensor, pick: Tensor, d: int, keepdim: bool,
            out=None):
    """The elements at sorted positions ``pick`` (one per row), as ``(values, indices)`` with the
    reduced dim kept or dropped; values are read from ``input`` (the gradient goes to index).
    ``out``: a checked ``(values, indices)`` pair written with the result and returned."""
    index = order.gather(-1, pick)
    value = rows.gather(-1, index)
    if input.ndim == 0 or not keepdim:
        value, index = value.squeeze(-1), index.squeeze(-1)
    else:
        value, index = value.movedim(-1, d), index.movedim(-1, d)
    if out is not None:
        value, index = E.write_out(value, out[0]), E.write_out(index, out[1])
    return result_type(value, index)


def _nanmedian_all_impl(x: Tensor) -> Tensor:
    from ..autograd.grad_mode import no_grad

    with no_grad():
        flat = x.reshape(-1)
        if flat.numel() == 0:
            if not x.dtype.is_floating_point:  # no NaN to return (PyTorch returns a NaN cast: garbage)
                raise RuntimeError(f"nanmedian(): cannot compute the median of an empty {x.dtype.name} tensor")
            from .._factories import full

            return full((), float("nan"), dtype=x.dtype, device=x.device)
        if x.dtype is D.bool:
            raise E.not_implemented_for("nanmedian", x.dtype)
        return nanmedian(flat, 0).values


NANMEDIAN_ALL = defop("nanmedian_all", custom=_nanmedian_all_impl, backward=SO._median_all_backward,
                      save=lambda ctx, inputs, outputs, params: ctx.save_for_backward(inputs[0], outputs[0]),
                      tags={"sorting"},
                      doc="The lower median of the non-NaN elements (NaN if all are NaN); the gradient is "
                          "shared by the elements equal to it (by every NaN when it is NaN), as median()'s.")


@tensor_method
def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False, *, out=None):
    """The lower median of the non-NaN values: a 0-d tensor without ``dim``, else ``(values,
    indices)`` along ``dim`` (NaN, index 0, where a row has only NaN). Without ``dim``, an empty
    input gives NaN, or raises for an integer or bool one (as :func:`median`)."""
    if dim is None:
        if out is not None:
            raise TypeError("nanmedian(): out= is only supported together with dim")
        if keepdim:  # nanmedian(input) has no keepdim in PyTorch: refused rather than ignored
            raise TypeError("nanmedian(): keepdim=True needs dim")
        return dispatch(NANMEDIAN_ALL, input)
    out = E.exact_pair_out("nanmedian", out, input)
    rows, values, order, d = _sorted_rows("nanmedian", input, dim)
    if input.dtype is D.bool:  # (after the dim checks, as PyTorch)
        raise E.not_implemented_for("nanmedian", input.dtype)
    count = (~values.isnan()).sum(-1, keepdim=True)  # NaN sorts last; integers have none
    pick = (count - 1).clamp_min(0).div(2, rounding_mode="floor")
    return _picked(NanmedianResult, input, rows, order, pick, d, keepdim, out)


@tensor_method
def mode(input: Tensor, dim: int = -1, keepdim: bool = False, *, out=None):
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of equally
    frequent ones) and the index of its last occurrence."""
    from .._factories import arange, full_like

    out = E.exact_pair_out("mode", out, input)
    # the stable sort keeps equal values in their order: a run of one value ends at its last occurrence
    rows, values, order, d = _sorted_rows("mode", input, dim)
    n = values.shape[-1]
    position = arange(n, device=input.device).expand(values.shape)
    changes = B.ne(values[..., 1:], values[..., :-1])
    first = cat([full_like(values[..., :1], True, dtype=D.bool), changes], -1)  # where runs start
    run_start = B.where(first, position, 0).cummax(-1).values
    length = position - run_start + 1  # the run length so far: its maximum is reached at a run's end
    end = length.argmax(-1, keepdim=True)  # the first maximum: the smallest of the most frequent values
    return _picked(ModeResult, input, rows, order, end, d, keepdim, out)
