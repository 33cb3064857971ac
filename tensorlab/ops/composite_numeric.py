"""Numeric ops PyTorch users expect, built from registered ops (no OpDef here; see composite.py).

- membership and counting: ``isin`` (sort + searchsorted), ``histc`` (bucket index + bincount,
  no data-dependent shapes), ``histogram`` (searchsorted over the bin edges + bincount),
  ``histogramdd`` (the same per coordinate, one flat bin index);
- distances: ``cdist`` (p = 0, 1, 2, inf or any p > 0, batched), ``dist``;
- products: ``addr``;
- piecewise functions: ``heaviside``, ``sinc`` (its gradient at 0 is 0, not NaN);
- integration: ``trapezoid``/``trapz``, ``cumulative_trapezoid``;
- statistics: ``cov`` (correction, fweights, aweights, as numpy), ``corrcoef``.

Each follows torch 2.13's dtype rules and error messages, checked against it.
"""

from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from .. import _dtype as D
from .._layout import elementwise_strides
from .._tensor import Tensor, need_tensor, norm_dim, tensor_method
from ..amp.autocast_mode import autocast_float32, autocast_op
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from . import elementwise_binary as B
from . import elementwise_common as E
from . import reductions as R
from . import shape_ops as S
from . import sorting as SO
from .deprecated_overloads import scalars_first
from .indexing import check_same_device

__all__ = ["isin", "histc", "histogram", "histogramdd", "cdist", "dist", "addr", "heaviside", "sinc", "trapezoid",
           "trapz", "cumulative_trapezoid", "cov", "corrcoef",
           "sinc_"]  # (addr_, heaviside_: methods only, as PyTorch's)


# ----------------------------------------------------------------------------------------------
# membership and counting
# ----------------------------------------------------------------------------------------------


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False, out=None) -> Tensor:
    """Whether each of ``elements`` is in ``test_elements`` (either may be a number): a bool tensor
    of ``elements``' shape. Compared in the promoted dtype; NaN is in nothing. ``out=``: bool."""
    from .._factories import tensor

    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin(): one of elements and test_elements must be a Tensor")
    like = elements if isinstance(elements, Tensor) else test_elements
    out = E.exact_out("isin", out, like, dtype=D.bool)  # (not differentiable: inputs with grad are fine)
    for t in (elements, test_elements):  # (PyTorch has no bool kernel: a bool number is refused too)
        if (t.dtype is D.bool) if isinstance(t, Tensor) else isinstance(t, bool):
            raise NotImplementedError("isin(): Unsupported input type encountered for isin(): Bool")
    dtype = D.result_type(elements, test_elements)
    el = elements.to(dtype) if isinstance(elements, Tensor) else tensor(elements, dtype=dtype, device=like.device)
    te = (test_elements.to(dtype) if isinstance(test_elements, Tensor)
          else tensor(test_elements, dtype=dtype, device=like.device)).reshape(-1)
    if dtype.is_floating_point:  # NaN matches nothing, and a NaN in the table would steer the binary search
        te = te[B.eq(te, te)]
    if te.numel() == 0:
        found = B.ne(el, el) & B.eq(el, el)  # all False, on el's device and shape
    else:
        table = SO.sort(te).values
        pos = SO.searchsorted(table, el.contiguous()).clamp_max(te.numel() - 1)
        found = B.eq(table.take(pos), el)
    result = found.logical_not() if invert else found
    return result if out is None else E.write_out(result, out)


@tensor_method
def histc(input: Tensor, bins: int = 100, min=0, max=0, *, out=None) -> Tensor:  # noqa: A002
    """Counts of ``input`` in ``bins`` equal bins over ``[min, max]`` (the data's range when both
    are 0), in ``input``'s dtype; values outside the range (and NaN) are not counted, ``max``
    falls in the last bin. ``out=``: of ``input``'s dtype (an input that requires grad is fine:
    histc has no gradient)."""
    need_tensor("histc", input, "input", 1)
    if isinstance(out, Tensor) and out.dtype is not input.dtype:
        raise RuntimeError(f"histc: input tensor and hist tensor should have the same dtype, but got input "
                           f"{D.cpp_name(input.dtype)} and hist {D.cpp_name(out.dtype)}")
    out = E.exact_out("histc", out, input)
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"histc(): \"histogram_cpu\" not implemented for '{D.torch_name(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"histc(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(E.number_param("histc", min, "min")), float(E.number_param("histc", max, "max"))
    if lo == hi and input.numel() > 0:
        lo, hi = S.stack([R.amin(input), R.amax(input)]).tolist()  # (one read back to the host)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"histc: range of [{lo:g}, {hi:g}] is not finite")
    if lo > hi:
        raise RuntimeError("histc: max must be larger than min")
    # PyTorch's arithmetic: the edges in the input's dtype, ((x - lo) * bins) / (hi - lo) in that
    # dtype, left to right, so a value on a bin edge lands in the bin above it (x * (bins / width),
    # in float64, put 1.8 of [0, 3] in 5 bins in bin 2, not 3)
    dt = np.dtype(input.dtype.np)
    lo_d, hi_d = dt.type(lo), dt.type(hi)
    with np.errstate(over="ignore"):
        lo, hi, width = float(lo_d), float(hi_d), float(hi_d - lo_d)
    with no_grad():
        x = input.reshape(-1)
        if math.isfinite(width):
            pos = ((x - lo) * bins / width).floor()
        else:
            # max - min overflows the dtype: that formula's NaN bins became negative int64 indices
            # (PyTorch counts nothing); in float64 halves, the ratio before the scaling, no overflow
            half = x.to(D.float64) / 2
            pos = ((half - lo / 2) / (hi / 2 - lo / 2) * bins).floor()
        pos = B.where(x == hi, bins - 1, pos)  # the right edge belongs to the last bin
        outside = (x < lo) | (x > hi) | x.isnan()
        index = B.where(outside, bins, pos.clamp(0, bins - 1)).to(D.int64)  # outside: an extra bin, dropped
        counts = index.bincount(minlength=bins + 1)[:bins]
    return counts.to(input.dtype) if out is None else E.write_out(counts, out)


def _histogram_edges(input: Tensor, bins, range, dim: int = 0) -> Tensor:  # noqa: A002
    """PyTorch's bin edges of ``histogram``: a 1-D edge tensor as given (input's dtype), or
    ``bins + 1`` linspace edges over ``range`` / the data's [min, max] ([0, 1] for no data), a
    zero-width range widened by 0.5 on each side (numpy's rule). ``dim``: the coordinate of a
    ``histogramdd`` they are for (``input`` is then that coordinate's column), named in errors."""
    from .._factories import linspace

    if isinstance(bins, Tensor):
        if range is not None:  # PyTorch's overload with a bins tensor has no range
            raise TypeError("histogram(): range can't be given with a bins tensor (give bins as an int to use range)")
        # checked here rather than by the searchsorted it runs on, so the error names histogram
        check_same_device("histogram", bins, input, "bins")
        if bins.ndim != 1:
            raise RuntimeError(f"torch.histogramdd: bins tensor should have one dimension, but got {bins.ndim} "
                               f"dimensions in the bins tensor for dimension {dim}")
        if bins.dtype is not input.dtype:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same dtype, but got "
                               f"input with dtype {D.cpp_name(input.dtype)} and bins for dimension {dim} with dtype "
                               f"{D.cpp_name(bins.dtype)}")
        if bins.numel() < 2:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins.numel() - 1} for dimension {dim}")
        return bins.clone()  # (the result's edges are its own: editing them must not edit the caller's)
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)):
        raise TypeError(f"histogram(): argument 'bins' must be int or Tensor, not {type(bins).__name__}")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension {dim}")
    if range is not None:
        if len(range) != 2:
            raise RuntimeError("torch.histogramdd: for a 1-dimensional histogram range should have 2 elements, but "
                               f"got {len(range)}")
        lo, hi = float(range[0]), float(range[1])
    elif input.numel() > 0:
        lo, hi = S.stack([R.amin(input), R.amax(input)]).tolist()  # (one read back to the host)
    else:
        lo, hi = 0.0, 1.0
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension {dim}'s range [{lo:g}, {hi:g}] is not finite")
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} "
                           f"for dimension {dim}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return linspace(lo, hi, int(bins) + 1, dtype=input.dtype, device=input.device)


def _edge_bins(x: Tensor, edges: Tensor) -> tuple[Tensor, Tensor]:
    """The bin of each value of the 1-D ``x`` over the 1-D ``edges`` (int64, in [0, bins - 1]) and
    whether it lies outside them (or is NaN): not to be counted."""
    n = edges.numel() - 1
    # the bin is the last edge <= x (upper bound - 1): what PyTorch's kernel finds, by binary
    # search over an edge tensor, or by interpolation corrected by a local search over the
    # linspace edges, so a value on an edge is counted by the actual edge values, not by
    # (x - lo) * bins / width as histc does
    pos = SO.searchsorted(edges, x, right=True) - 1
    last = edges[n]
    pos = B.where(x == last, n - 1, pos)  # the right edge belongs to the last bin
    outside = (x < edges[0]) | (x > last) | x.isnan()
    return pos.clamp(0, n - 1), outside


@tensor_method
def histogram(input: Tensor, bins=100, *, range=None, weight: Tensor | None = None, density: bool = False,  # noqa: A002
              out=None):
    """``(hist, bin_edges)`` of ``input`` (flattened) as ``torch.histogram``: ``bins`` equal bins
    over ``range`` (default: the data's [min, max]) or a 1-D tensor of edges; each bin holds
    ``[edge_i, edge_i+1)``, the last one its right edge too; values outside the edges and NaN are
    not counted. ``weight`` (input's shape and dtype) sums weights instead of counting;
    ``density`` divides by the total and by each bin's width. float32/float64 only, as PyTorch's
    CPU kernel; not differentiable (PyTorch's result records a node whose backward raises, so a
    plot's ``hist.detach()`` works in both). ``out=``: a (hist, bin_edges) pair of input's dtype."""
    from ..return_types import histogram as _histogram_result

    need_tensor("histogram", input, "input", 1)
    if not input.dtype.is_floating_point or input.dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{D.torch_name(input.dtype)}'")
    if out is not None:
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("histogram(): argument 'out' must be a tuple of 2 Tensors (hist, bin_edges)")
        for name, o in zip(("hist", "bin_edges"), out):
            need_tensor("histogram", o, "out")
            if o.dtype is not input.dtype:
                raise RuntimeError(f"torch.histogram: input tensor and {name} tensor should have the same dtype, but "
                                   f"got input {D.cpp_name(input.dtype)} and {name} {D.cpp_name(o.dtype)}")
        out = tuple(E.exact_out("histogram", o, input) for o in out)
    edges = _histogram_edges(input, bins, range)  # (PyTorch checks the range before the weight)
    if weight is not None:
        need_tensor("histogram", weight, "weight")
        check_same_device("histogram", weight, input, "weight")  # (else the bincount it runs on names itself)
        if weight.numel() != input.numel():  # (PyTorch flattens both: only the element counts must agree)
            raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as the "
                               f"input tensor excluding its innermost dimension, but got input with shape "
                               f"[{input.numel()}, 1] and weight with shape [{weight.numel()}]")
        if weight.dtype is not input.dtype:
            raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor should "
                               f"have the same dtype, but got input({D.cpp_name(input.dtype)}), and "
                               f"weight({D.cpp_name(weight.dtype)})")
    n = edges.numel() - 1
    with no_grad():
        pos, outside = _edge_bins(input.reshape(-1).contiguous(), edges)
        index = B.where(outside, n, pos)  # outside: an extra bin, dropped
        w = None if weight is None else weight.reshape(-1)
        hist = index.bincount(weights=w, minlength=n + 1)[:n].to(input.dtype)
        if density:  # PyTorch's order: by the total first, then by each bin's width
            hist = hist / hist.sum()
            hist = hist / (edges[1:] - edges[:-1])
        edges = edges.detach()
    if out is None:
        return _histogram_result(hist, edges)
    return _histogram_result(E.write_out(hist, out[0]), E.write_out(edges, out[1]))


def histogramdd(input: Tensor, bins=10, *, range=None, weight: Tensor | None = None,  # noqa: A002
                density: bool = False):
    """``(hist, bin_edges)`` of the points ``input`` (``(..., D)``: one point per row of its last
    dim) as ``torch.histogramdd``: ``hist`` of shape ``(bins_0, ..., bins_D-1)`` and a tuple of
    ``D`` edge tensors. ``bins``: one int for every coordinate, a sequence of ``D`` ints, or of
    ``D`` 1-D edge tensors (``range`` is then ignored, as PyTorch); ``range``: ``2 * D`` floats
    (min, max per coordinate; default: each coordinate's data range). Each coordinate is binned
    as :func:`histogram` bins (the last bin holds its right edge too); a point outside any
    coordinate's edges, or with a NaN, is not counted. ``weight`` (``input.shape[:-1]``, input's
    dtype) sums weights; ``density`` divides by the total and by each bin's volume.
    float32/float64 only; not differentiable."""
    from ..return_types import histogramdd as _histogramdd_result

    need_tensor("histogramdd", input, "input")
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if not input.dtype.is_floating_point or input.dtype in (D.float16, D.bfloat16):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{D.torch_name(input.dtype)}'")
    ndim = input.shape[-1]
    if isinstance(bins, Tensor) or (isinstance(bins, (int, np.integer)) and not isinstance(bins, bool)):
        per_dim = [bins] * ndim
    elif isinstance(bins, (tuple, list)):
        per_dim = list(bins)
        if len(per_dim) != ndim:
            raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    else:
        raise TypeError(f"histogramdd(): argument 'bins' must be int, a sequence of ints or a sequence of Tensors, "
                        f"not {type(bins).__name__}")
    given_edges = all(isinstance(b, Tensor) for b in per_dim)
    if range is not None and not given_edges:
        range = [float(r) for r in range]  # noqa: A001
        if len(range) != 2 * ndim:
            raise RuntimeError(f"torch.histogramdd: for a {ndim}-dimensional histogram range should have {2 * ndim} "
                               f"elements, but got {len(range)}")
    points = input.reshape(-1, ndim)
    with no_grad():
        columns = [points[:, k].contiguous() for k in builtins.range(ndim)]
        edges = tuple(_histogram_edges(columns[k], b, None if given_edges or range is None else range[2 * k:2 * k + 2],
                                       dim=k) for k, b in enumerate(per_dim))  # (all checked before any counting)
        # (PyTorch checks the bins and ranges before the weight)
        if weight is not None:
            need_tensor("histogramdd", weight, "weight")
            check_same_device("histogramdd", weight, input, "weight")
            if tuple(weight.shape) != tuple(input.shape[:-1]):
                raise RuntimeError("torch.histogramdd: if weight tensor is provided it should have the same shape as "
                                   "the input tensor excluding its innermost dimension, but got input with shape "
                                   f"{list(input.shape)} and weight with shape {list(weight.shape)}")
            if weight.dtype is not input.dtype:
                raise RuntimeError("torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                                   f"should have the same dtype, but got input({D.cpp_name(input.dtype)}), and "
                                   f"weight({D.cpp_name(weight.dtype)})")
        shape = tuple(e.numel() - 1 for e in edges)
        flat = None
        outside = None
        for k, (x, e) in enumerate(zip(columns, edges)):
            pos, out_k = _edge_bins(x, e)
            flat = pos if flat is None else flat * shape[k] + pos  # row-major: the last coordinate varies fastest
            outside = out_k if outside is None else outside | out_k
        total_bins = math.prod(shape)
        index = B.where(outside, total_bins, flat)  # outside: an extra bin, dropped
        w = None if weight is None else weight.reshape(-1)
        hist = index.bincount(weights=w, minlength=total_bins + 1)[:total_bins].to(input.dtype).reshape(shape)
        if density:  # by the total first, then by each bin's volume (the outer product of the widths)
            hist = hist / hist.sum()
            for k, e in enumerate(edges):
                width_shape = [1] * ndim
                width_shape[k] = shape[k]
                hist = hist / (e[1:] - e[:-1]).reshape(width_shape)
    return _histogramdd_result(hist, edges)


# ----------------------------------------------------------------------------------------------
# distances
# ----------------------------------------------------------------------------------------------


def _safe_sqrt(squared: Tensor) -> Tensor:
    """sqrt with gradient 0 (not inf * 0) where the argument is 0: a distance between equal points."""
    zero = squared == 0
    return B.where(zero, 0.0, B.where(zero, 1.0, squared).sqrt())  # NaN stays NaN


class _MaxDistance(Function):
    """PyTorch's p = inf distance and its backward, ``g * (1 - min(1, ceil(|size - dist|)))``: the
    whole gradient to every coordinate at the maximum (amax splits it between ties), 0 to the
    others, and NaN where ``size - dist`` is NaN: a NaN coordinate, an infinite one at an infinite
    distance (inf - inf), every one at a NaN distance."""

    @staticmethod
    def forward(ctx, size, skip_nan):
        top = (B.where(size.isnan(), 0.0, size) if skip_nan else size).amax(-1)
        ctx.save_for_backward(size, top)
        return top

    @staticmethod
    def backward(ctx, g):
        size, top = ctx.saved_tensors
        gap = size - top.unsqueeze(-1)
        share = B.where(gap.isnan(), gap, (gap == 0).to(gap.dtype))
        return g.unsqueeze(-1) * share, None


class _L1Distance(Function):
    """``sum(|diff|)`` over the last dim, with PyTorch's cdist backward ``g * sign(diff)``, whose
    sign is NaN at a NaN difference (abs's gradient is 0 there)."""

    @staticmethod
    def forward(ctx, diff):
        ctx.save_for_backward(diff)
        return diff.abs().sum(-1)

    @staticmethod
    def backward(ctx, g):
        (diff,) = ctx.saved_tensors
        return g.unsqueeze(-1) * B.where(diff.isnan(), diff, diff.sign())


def coordinate_distance(diff: Tensor, p: float, *, skip_nan: bool = False) -> Tensor:
    """The p-norm of the coordinate differences ``diff`` (last dim) with PyTorch's cdist/pdist
    forward and backward: p = 0 counts the differing coordinates (NaN propagates, as PyTorch's
    min(ceil(|d|), 1)); p = 1 and p = inf have PyTorch's backwards (``_L1Distance``,
    ``_MaxDistance``); p = 2 has gradient 0 between equal points. ``skip_nan``: p = inf leaves NaN
    coordinates out of the maximum (cdist's running max from 0) rather than propagating them
    (pdist's)."""
    if p == 0:
        return diff.abs().ceil().clamp_max(1).sum(-1)
    if diff.shape[-1] == 0:  # no coordinates: every distance is 0 (the max has no identity)
        return diff.sum(-1)
    if p == math.inf:
        size = diff.abs()
        if size.requires_grad:
            return _MaxDistance.apply(size, skip_nan)
        return (B.where(size.isnan(), 0.0, size) if skip_nan else size).amax(-1)
    if p == 2:
        return _safe_sqrt((diff * diff).sum(-1))
    if p == 1:
        return _L1Distance.apply(diff) if diff.requires_grad else diff.abs().sum(-1)
    return R.norm(diff, p, dim=-1)


@autocast_float32
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """p-norm distances between each row of ``x1`` (``..., P, M``) and of ``x2`` (``..., R, M``):
    ``(..., P, R)``, the leading dims broadcast. For p = 2 with more than 25 rows on either side
    (PyTorch's default rule) the squared distances come from one matmul, as PyTorch's."""
    need_tensor("cdist", x1, "x1", 1)
    need_tensor("cdist", x2, "x2", 2)
    for name, x in (("X1", x1), ("X2", x2)):
        if not x.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: {D.torch_name(x.dtype)}")
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist", "donot_use_mm_for_euclid_dist")
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"cdist: X1 and X2 must have the same dtype, got {D.torch_name(x1.dtype)} and "
                           f"{D.torch_name(x2.dtype)}")
    rows1, rows2 = x1.shape[-2], x2.shape[-2]
    use_mm = p == 2 and (compute_mode == "use_mm_for_euclid_dist" or
                         (compute_mode == modes[0] and (rows1 > 25 or rows2 > 25)))
    if use_mm:  # PyTorch's _euclidean_dist: one matmul of [-2 x1, |x1|^2, 1] and [x2, 1, |x2|^2]
        from .._factories import ones_like

        n1, n2 = (x1 * x1).sum(-1, keepdim=True), (x2 * x2).sum(-1, keepdim=True)
        a = S.cat([x1 * -2, n1, ones_like(n1)], -1)
        b = S.cat([x2, ones_like(n2), n2], -1)
        return _safe_sqrt((a @ b.transpose(-1, -2)).clamp_min(0))  # (0 and gradient 0 for equal rows)
    # (PyTorch's cdist p = inf is a running max from 0, which skips NaN coordinates)
    return coordinate_distance(x1.unsqueeze(-2) - x2.unsqueeze(-3), p, skip_nan=True)  # (..., P, R, M)


@tensor_method
@autocast_float32(devices=("cuda",))
def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of ``input - other`` (broadcast). ``p`` is a number, or a 0-d tensor without grad
    read as one (PyTorch's Scalar argument: its value picks the norm, so it is read to the host)."""
    need_tensor("dist", other, "other", 2)
    if isinstance(p, Tensor) and not p._shape and not p._requires_grad:
        p = p.item()
    if isinstance(p, bool):
        p = int(p)
    elif isinstance(p, str | Tensor):
        raise TypeError(f"dist(): argument 'p' (position 3) must be Number, not {type(p).__name__}")
    return R.norm(input - other, p)


# ----------------------------------------------------------------------------------------------
# products and piecewise functions
# ----------------------------------------------------------------------------------------------


@tensor_method
@scalars_first("beta_alpha")
@autocast_op("addr")
def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)`` (``input`` broadcast to the outer product;
    ``beta = 0`` ignores it, NaN included; for bools ``and``/``or`` instead of ``*``/``+``)."""
    return E.composite_out("addr", _addr(input, vec1, vec2, beta, alpha), out)


@tensor_method
@scalars_first("beta_alpha")
def addr_(self: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    """In-place :func:`addr`: ``self`` must already have the outer product's shape (PyTorch's check)."""
    need_tensor("addr_", self, "input", 1)
    _check_vectors(vec1, vec2)
    if self._shape != (vec1.shape[0], vec2.shape[0]):
        raise RuntimeError(f"size mismatch, input: {list(self._shape)}, v1: {list(vec1.shape)}, v2: {list(vec2.shape)}")
    return E.inplace_composite("addr", _addr, self, vec1, vec2, beta, alpha)


def _check_vectors(vec1, vec2) -> None:
    for name, v in (("vec1", vec1), ("vec2", vec2)):
        need_tensor("addr", v, name, 2 if name == "vec1" else 3)
        if v.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {v.ndim}-D")


def _addr(input: Tensor, vec1: Tensor, vec2: Tensor, beta, alpha) -> Tensor:
    need_tensor("addr", input, "input", 1)
    _check_vectors(vec1, vec2)
    # PyTorch expands input to the outer product's shape before the dtypes meet: a 0-d input is
    # not a weak operand (addr(<0-d float64>, <float32>, <float32>) is float64)
    dtype = D.promote_types(D.promote_types(input.dtype, vec1.dtype), vec2.dtype)
    # (2+0j is 2.0; 1e50 for float32 raises)
    alpha = B._check_alpha("addr", dtype, E.number_param("addr", alpha, "alpha"))
    beta = B._check_alpha("addr", dtype, E.number_param("addr", beta, "beta"), "beta")
    product = vec1.to(dtype).unsqueeze(1) * vec2.to(dtype).unsqueeze(0)
    base = input.to(dtype).expand(product.shape)
    if dtype is D.bool:
        product = product if alpha else product & False
        return (base | product) if beta else product
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        if base.requires_grad:  # input stays in the graph with a zero gradient (as addmm's), NaN still ignored
            from .._factories import zeros

            return B.where(zeros((), dtype=D.bool, device=base.device), base, product)
        return product
    return product + (base if beta == 1 else base * beta)


@tensor_method
def heaviside(input: Tensor, values: Tensor, *, out=None) -> Tensor:
    """0 where ``input < 0``, ``values`` where ``input == 0``, 1 where ``input > 0`` (and 0 for
    NaN); both tensors (and ``out``) of one dtype. Not differentiable, as PyTorch's."""
    need_tensor("heaviside", input, "input", 1)
    need_tensor("heaviside", values, "values", 2)
    if input.dtype is not values.dtype or (isinstance(out, Tensor) and out.dtype is not input.dtype):
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    with no_grad():
        step = (input > 0).to(input.dtype)
        if out is None:
            # laid out as PyTorch's binary heaviside(input, values): where's layout follows its first
            # operand, a condition that is contiguous when computed from an expanded input
            shape = E.broadcast_shape("heaviside", input, values)
            strides = elementwise_strides(shape, (input, values))
            if strides is not None:
                from .composite import empty_strided

                laid = empty_strided(shape, strides, dtype=input.dtype, device=input.device)
                return B.where(input == 0, values, step, out=laid)
        return E.composite_out("heaviside", B.where(input == 0, values, step), out)


@tensor_method
def heaviside_(self: Tensor, values: Tensor) -> Tensor:
    return E.inplace_composite("heaviside", heaviside, self, values)


@tensor_method
def sinc(input: Tensor, *, out=None) -> Tensor:
    """``sin(pi x) / (pi x)``, 1 at 0 (integers give the default float dtype)."""
    need_tensor("sinc", input, "input", 1)
    dtype = input.dtype if input.dtype.is_floating_point else D.get_default_dtype()
    x = input.to(D.float32) if dtype.itemsize == 2 else input.to(dtype)  # halves: in float32, rounded once
    # Near 0 (|pi x| < 0.5) a Taylor polynomial to p^14 (the next term is below float64's rounding):
    # sin(p) / p's gradient, cos(p) / p - sin(p) / p^2, is a difference of huge terms there (x = 1e-10
    # gave 201 in float32, a subnormal x NaN, float32 lost 5 digits at p = 0.13). Each branch only sees
    # the inputs it is chosen for, so the other's gradient stays finite (0 * finite).
    p = x * math.pi
    small = p.abs() < 0.5
    ps = B.where(small, p, 0.0)
    p2 = ps * ps
    taylor = 1.0
    for k in (210, 156, 110, 72, 42, 20, 6):  # Horner: 1 - p^2/3! (1 - p^2/(4*5) (1 - p^2/(6*7) ...))
        taylor = 1 - p2 / k * taylor
    pb = B.where(small, 1.0, p)
    return E.composite_out("sinc", B.where(small, taylor, pb.sin() / pb).to(dtype), out)


@tensor_method
def sinc_(self: Tensor) -> Tensor:
    return E.inplace_composite("sinc", sinc, self)


# ----------------------------------------------------------------------------------------------
# integration
# ----------------------------------------------------------------------------------------------


def _widths(y: Tensor, x: Tensor, dim: int) -> Tensor:
    """The interval widths ``x[1:] - x[:-1]`` along ``dim`` (of y, non-negative), as PyTorch's: a 1-d
    ``x`` lies along ``dim``; one of fewer dims than y gets leading 1s; otherwise x is sliced along
    the same dim index (its widths then broadcast with y's samples, or raise)."""
    if x.ndim == 1:
        shape = [1] * y.ndim
        shape[dim] = x.shape[0]
        x = x.reshape(shape)
    elif x.ndim < y.ndim:
        x = x.reshape((1,) * (y.ndim - x.ndim) + tuple(x.shape))
    n = x.shape[dim]
    return x.narrow(dim, 1, n - 1) - x.narrow(dim, 0, n - 1)


def _integration_args(op: str, y: Tensor, x, dx, dim: int) -> int:
    need_tensor(op, y, "y", 1)
    if y.dtype is D.bool:
        raise RuntimeError(f"{op}: received a bool input for `y`, but bool is not supported")
    if x is not None and dx is not None:
        raise RuntimeError(f"{op}(): cannot pass both x and dx")
    if x is not None and not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument 'x' (position 2) must be Tensor, not {type(x).__name__}")
    if y.ndim == 0:  # (there is no dim to integrate along)
        raise IndexError(f"{op}: Dimension specified as {dim} but tensor has no dimensions")
    d = norm_dim(dim, y.ndim, op)
    if x is not None and x.ndim == 1 and x.shape[0] != y.shape[d]:
        # (a 1-d x lies along dim: another length would broadcast into a wrong result)
        raise RuntimeError(f"{op}: There must be one `x` value for each sample point")
    return d


def trapezoid(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``, at sample points ``x`` or with spacing ``dx`` (default
    1). PyTorch's formulas, so integer samples add up in their own dtype first."""
    need_tensor("trapezoid", y, "y", 1)
    if y.ndim and y.shape[norm_dim(dim, y.ndim, "trapezoid")] == 0:  # zeros of y's dtype (bool too), x unchecked
        return R.sum(y, dim).to(y.dtype)
    d = _integration_args("trapezoid", y, x, dx, dim)
    n = y.shape[d]
    if x is not None:
        left, right = y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)
        return R.sum(_widths(y, x, d) * (left + right) / 2.0, d)
    dx = 1 if dx is None else dx
    return (R.sum(y, d) - (y.select(d, 0) + y.select(d, -1)) * 0.5) * dx


def trapz(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """:func:`trapezoid` under its older name."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Tensor | None = None, *, dx=None, dim: int = -1) -> Tensor:
    """The running trapezoidal integral along ``dim`` (one element fewer than ``y`` there)."""
    d = _integration_args("cumulative_trapezoid", y, x, dx, dim)
    n = y.shape[d]
    if n == 0:  # empty, in the dtype the formula gives
        dtype = D.result_type(y, x) if x is not None else y.dtype
        return y.to(dtype if dtype.is_floating_point else D.get_default_dtype())
    left, right = y.narrow(d, 0, n - 1), y.narrow(d, 1, n - 1)
    if x is not None:
        return (_widths(y, x, d) * (left + right) / 2.0).cumsum(d)
    return ((1 if dx is None else dx) / 2.0 * (left + right)).cumsum(d)


# ----------------------------------------------------------------------------------------------
# statistics
# ----------------------------------------------------------------------------------------------


@tensor_method
def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    """Covariance of the variables in the rows of ``input`` (observations in columns; a 1-d
    input is one variable), with frequency and/or analytic observation weights (numpy's rules)."""
    need_tensor("cov", input)
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype is D.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    dtype = input.dtype if input.dtype.is_floating_point else D.get_default_dtype()
    if aweights is not None and aweights.dtype.is_floating_point:
        dtype = D.promote_types(dtype, aweights.dtype)
    x = input.to(dtype)
    x = x.reshape(1, -1) if x.ndim < 2 else x
    n = x.shape[1]
    w = None
    # PyTorch's checks, in its order (each one a RuntimeError; the sign checks read the weights on
    # the host, as PyTorch's do): negative weights or a zero sum would give inf/NaN, not an error
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is None:
            continue
        if weights.ndim > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {name} with "
                               f"{weights.ndim} dimensions")
        if name == "fweights" and weights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got fweights with "
                               f"{D.torch_name(weights.dtype)} dtype")
        if name == "aweights" and not weights.dtype.is_floating_point:
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got aweights with "
                               f"{D.torch_name(weights.dtype)} dtype")
        if weights.numel() != n:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the "
                               f"input but got {weights.numel()} != {n}")
        if n and not bool((weights.min() >= 0).item()):  # (NaN fails it too, as in PyTorch)
            raise RuntimeError(f"cov(): {name} cannot be negative")
        w = weights.to(x.dtype) if w is None else w * weights.to(x.dtype)
    if w is not None and bool((w.sum() == 0).item()):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    if w is None:
        w_sum = float(n)
        avg = x.mean(1)
        norm = n - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        elif fweights is None and n == 1 and correction == 1:
            norm = 0  # (PyTorch's: exactly 0, where the formula's rounding could leave a speck above it)
        else:
            norm = w_sum - correction * (w * aweights.to(x.dtype)).sum() / w_sum
    # (a weighted norm is read on the host for the warning, as PyTorch's)
    if (bool((norm <= 0).item()) if isinstance(norm, Tensor) else norm <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = norm.clamp_min(0) if isinstance(norm, Tensor) else 0
    centred = x - avg.unsqueeze(1)
    if n == 1 and (fweights is None) != (aweights is None):
        # PyTorch's rule: one observation under one kind of weights is its own average, so exact
        # zeros once centred (the weighted average's rounding left specks, inf over a zero norm
        # where PyTorch has NaN); NaN/inf inputs too, as PyTorch's. (PyTorch zeroes the input
        # itself, in place; here a select that keeps the graph, with a zero gradient.)
        from .._factories import zeros

        centred = B.where(zeros((), dtype=D.bool, device=x.device), centred, 0.0)
    weighted = centred if w is None else centred * w
    c = (centred @ weighted.transpose(0, 1)) / norm  # (PyTorch's order: in @ (in * w).T)
    return c.reshape(()) if input.ndim < 2 or input.shape[0] == 1 else c  # (one variable: 0-d, as PyTorch)


@tensor_method
def corrcoef(input: Tensor) -> Tensor:
    """Pearson correlation coefficients of the variables in the rows of ``input``, clipped to
    [-1, 1] (NaN where a variable is constant)."""
    need_tensor("corrcoef", input)
    c = cov(input)
    if c.ndim == 0:
        return c / c
    std = c.diagonal().sqrt()
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return c.clamp(-1, 1)
