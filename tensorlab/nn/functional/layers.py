"""nn.functional layers: ``linear``, ``bilinear``, dropouts, ``embedding``, ``embedding_bag``,
``normalize``, ``pad``, ``one_hot``, ``cosine_similarity``, ``pairwise_distance``; and the channel
rearrangements ``pixel_shuffle``, ``pixel_unshuffle``, ``channel_shuffle`` of ``tensorlab.ops``.

Two registered ops live here:

- ``dropout``: the fused Philox kernel of ``tensorlab_kernels.nn.dropout``. The mask is a pure
  function of (seed, offset, element index), taken from the device's generator, so nothing is
  stored: the backward runs the same op on the gradient with the same (seed, offset). That
  backward is itself this op, so dropout is differentiable to any order.
- ``embedding``: a row gather (the indexing family's gather kernel); its backward is
  ``index_add`` of the gradient into zeros, with ``padding_idx`` rows masked out and, with
  ``scale_grad_by_freq``, each row's gradient divided by its count in the batch.

Everything else is a composition of registered ops (so it runs on their kernels and is
differentiable): ``bilinear`` is one matmul and a reduction, ``pad`` is ``cat`` of fills
(constant) or an ``index_select`` per padded dim with host-computed source positions
(reflect, replicate, circular), ``embedding_bag`` gathers and ``index_add``s rows into bags.
"""

from __future__ import annotations

import math
import numbers
import warnings

import numpy as np

from tensorlab_kernels import random as krand
from tensorlab_kernels.nn import dropout as kdrop
from tensorlab_kernels.nn import embedding as kemb

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._layout import preserve_strides
from ..._registry import Plan, defop
from ..._tensor import Tensor
from ..._views import int_arg
from ...amp.autocast_mode import autocast_float32, autocast_op, cast_for
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ...ops.indexing import one_hot
from ...ops.matmul import linear
from ...ops.pixel_shuffle import channel_shuffle, native_channel_shuffle, pixel_shuffle, pixel_unshuffle

# ----------------------------------------------------------------------------------------------
# dropout op (fused Philox kernel)
# ----------------------------------------------------------------------------------------------


def _dropout_meta(x, *, seed: int, offset: int, threshold: int, scale: float) -> Plan:
    # laid out as x, as PyTorch's dropout (empty_like); the mask follows the logical index anyway
    return Plan(args=[x], outputs=[(x._shape, x.dtype, preserve_strides(x))],
                params={"seed": seed, "offset": offset, "threshold": threshold, "scale": scale})


def _dropout_backward(ctx, g):
    # The mask is regenerated from (seed, offset): the gradient goes through the same op.
    return (dispatch(DROPOUT, g, **ctx.params),)


DROPOUT = defop("dropout", twin=kdrop.dropout_twin, kernel=kdrop.dropout, meta=_dropout_meta,
                backward=_dropout_backward, save=lambda ctx, inputs, outputs, params: None,
                tags={"nn", "random", "inplace_safe"},
                doc="x * keep / (1 - p) with keep drawn from Philox(seed, offset, index); no mask is stored.")


def _check_p(p, name: str = "dropout") -> float:
    if isinstance(p, bool) or not isinstance(p, numbers.Real):
        raise TypeError(f"{name}(): p must be a number, got {type(p).__name__}")
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p != p:  # (PyTorch's Python check lets NaN through to its kernel's RuntimeError)
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p}")
    return float(p)


def _shortcut(op: str, input: Tensor, p: float, training: bool, inplace: bool) -> Tensor | None:
    """PyTorch's ``_dropout_impl`` answers these before looking at the dtype or the rank: the input
    itself when not training, p = 0 or no elements; ``input * 0`` (its dtype, in place with
    ``inplace``) for p = 1. None otherwise."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not training or p == 0.0 or input.numel() == 0:
        return input
    if p == 1.0:
        from ..._factories import zeros

        zero = zeros((), dtype=input.dtype, device=input.device)
        return input.mul_(zero) if inplace else input * zero
    return None


def _check_floating(op: str, input: Tensor) -> None:
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{op}(): result type Float can't be cast to the desired output type {input.dtype} "
                           "(dropout needs a floating point input)")


def _dropout(input: Tensor, p: float, inplace: bool = False, generator=None) -> Tensor:
    """Run the dropout op (always, even for p = 0): draws counters from the device's generator."""
    from ..._random import _generator_for

    g = _generator_for(input.device, generator, "dropout")
    seed, offset = g._take(krand.counters_needed("bernoulli", input.numel()))
    return dispatch(DROPOUT, input, inplace=inplace, seed=seed, offset=offset, threshold=kdrop.threshold_for(p),
                    scale=kdrop.scale_for(p))


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (training only).

    As PyTorch: with ``training=False``, ``p = 0`` or no elements the input itself is returned, with
    ``p = 1`` ``input * 0`` (any dtype; no random numbers drawn).
    """
    p = _check_p(p)
    done = _shortcut("dropout", input, p, training, inplace)
    if done is not None:
        return done
    _check_floating("dropout", input)
    return _dropout(input, p, inplace)


_SELU_ALPHA_SCALE = 1.7580993408473766  # SELU's alpha * scale: the value alpha dropout drops to


def _noise(input: Tensor, shape, p: float) -> Tensor:
    from ..._factories import full
    from ..._random import bernoulli

    # (p as a number: a probabilities tensor would be range-checked, a read back from the GPU)
    return bernoulli(full(tuple(shape), 0.0, dtype=input.dtype, device=input.device), p=1.0 - p)


def _alpha_or_feature(op: str, input: Tensor, p: float, training: bool, inplace: bool, alpha: bool,
                      feature: bool) -> Tensor:
    """PyTorch's ``_dropout_impl``: alpha and/or feature (channel-wise) dropout, mask from bernoulli."""
    p = _check_p(p)
    done = _shortcut(op, input, p, training, inplace)
    if done is not None:
        return done
    if feature and input.ndim < 2:
        raise RuntimeError(f"{op}: Feature dropout requires at least 2 dimensions in the input")
    _check_floating(op, input)
    shape = (input._shape[0], input._shape[1]) + (1,) * (input.ndim - 2) if feature else input._shape
    noise = _noise(input, shape, p)
    if alpha:
        a = 1.0 / math.sqrt((_SELU_ALPHA_SCALE ** 2 * p + 1) * (1 - p))
        b = (noise - 1.0) * (_SELU_ALPHA_SCALE * a) + _SELU_ALPHA_SCALE * a * p
        result = input * (noise * a) + b
    else:
        result = input * (noise / (1.0 - p))
    return input.copy_(result) if inplace else result


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped elements become SELU's negative saturation value, and an
    affine map keeps the mean and variance (PyTorch's formula)."""
    return _alpha_or_feature("alpha_dropout", input, p, training, inplace, alpha=True, feature=False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels (dim 1)."""
    return _alpha_or_feature("feature_alpha_dropout", input, p, training, inplace, alpha=True, feature=True)


def _feature_dropout(op: str, input: Tensor, p: float, training: bool, inplace: bool, spatial: int) -> Tensor:
    """PyTorch 2.15's dropout1d/2d/3d: dropout1d takes 2-D or 3-D inputs only (a 2-D one unbatched);
    dropout2d warns for other than 3-D/4-D and reads a 3-D input as batched (N, C, L), as PyTorch
    still does (with its warning); dropout3d warns for other than 4-D/5-D and adds a batch dim to
    anything but 5-D."""
    lo, hi = spatial + 1, spatial + 2
    _check_p(p)  # (PyTorch checks p before the rank)
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    note = (f"Note that {op} exists to provide channel-wise dropout on inputs with {spatial} spatial "
            f"dimension{'s' if spatial > 1 else ''}, a channel dimension, and an optional batch dimension "
            f"(i.e. {lo}D or {hi}D inputs).")
    if input.ndim not in (lo, hi):
        if spatial == 1:
            raise RuntimeError(f"{op}: Expected {lo}D or {hi}D input, but received a {input.ndim}D input. {note}")
        warnings.warn(f"{op}: Received a {input.ndim}-D input to {op}, which is deprecated and will result in an "
                      f"error in a future release. To retain the behavior and silence this warning, please use "
                      f"dropout instead. {note}", stacklevel=3)
    if spatial == 2:
        if input.ndim == 3:
            warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                          "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                          "This behavior will change in a future release to interpret the input as one without a "
                          "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                          "please switch to using dropout1d instead.", stacklevel=3)
        return _alpha_or_feature(op, input, p, training, inplace, alpha=False, feature=True)
    if input.ndim != hi:  # unbatched (dropout3d: any other rank): add the batch dim
        out = _alpha_or_feature(op, input.unsqueeze(0), p, training, False, alpha=False, feature=True).squeeze(0)
        return input.copy_(out) if inplace and out is not input else out
    return _alpha_or_feature(op, input, p, training, inplace, alpha=False, feature=True)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) inputs with probability ``p``."""
    return _feature_dropout("dropout1d", input, p, training, inplace, 1)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) or (C, H, W) inputs with probability ``p``."""
    return _feature_dropout("dropout2d", input, p, training, inplace, 2)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs with probability ``p``."""
    return _feature_dropout("dropout3d", input, p, training, inplace, 3)


# ----------------------------------------------------------------------------------------------
# embedding op
# ----------------------------------------------------------------------------------------------


def _embedding_meta(weight, indices, *, padding_idx=None, scale_grad_by_freq: bool = False) -> Plan:
    return Plan(args=[weight, indices], outputs=[(indices._shape + (weight._shape[1],), weight.dtype)])


def _embedding_backward(ctx, g):
    from ... import bincount, index_add, where, zeros

    (indices,) = ctx.saved_tensors
    num, dim = ctx.inputs[0].shape
    padding_idx, by_freq = ctx.params.get("padding_idx"), ctx.params.get("scale_grad_by_freq", False)
    flat = indices.reshape(-1)
    if flat.dtype is not D.int64:
        flat = flat.to(D.int64)
    g2 = g.reshape(-1, dim)
    if by_freq:
        counts = bincount(flat, minlength=num).index_select(0, flat).to(g.dtype)
        g2 = _ScaleByFreq.apply(g2, counts.unsqueeze(1))
    if padding_idx is not None:
        g2 = where((flat != padding_idx).unsqueeze(1), g2, 0.0)
    return index_add(zeros((num, dim), dtype=g.dtype, device=g.device), 0, flat, g2), None


class _ScaleByFreq(Function):
    """``g / counts`` whose own backward is the identity: PyTorch's double backward of embedding
    (``embedding_dense_double_backward``) gathers the incoming gradient without the 1/frequency
    scaling, so a second derivative through ``scale_grad_by_freq`` is unscaled."""

    @staticmethod
    def forward(ctx, g, counts):
        return g / counts

    @staticmethod
    def backward(ctx, gg):
        return gg, None


EMBEDDING = defop("embedding", twin=kemb.embedding_twin, kernel=kemb.embedding, meta=_embedding_meta,
                  backward=_embedding_backward,
                  save=lambda ctx, inputs, outputs, params: ctx.save_for_backward(inputs[1]),
                  tags={"nn", "indexing"},
                  doc="weight[indices]: a row gather; the backward index_adds the gradient (padding_idx rows "
                      "masked, optionally scaled by 1/frequency).")


def _index_range(indices: Tensor) -> tuple[int, int] | None:
    from ...ops.indexing import index_minmax

    return index_minmax(indices)


def _as_index(v) -> int | None:
    """``v`` as PyTorch's parser reads an int (``views.int_arg``), or None when it is not one (a
    float was truncated before)."""
    try:
        return int_arg("", "", v)
    except TypeError:
        return None


def _index_arg(op: str, name: str, pos: int, v) -> int:
    """An int argument (``_as_index``), else PyTorch's TypeError naming its position."""
    i = _as_index(v)
    if i is None:
        raise TypeError(f"{op}(): argument '{name}' (position {pos}) must be int, not {type(v).__name__}")
    return i


def _check_embedding(op: str, input, weight, padding_idx):
    if not isinstance(input, Tensor) or not isinstance(weight, Tensor):
        raise TypeError(f"{op}(): input and weight must be Tensors")
    if input.dtype not in (D.int64, D.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {input.type()} instead (while checking arguments for {op})")
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if input.device != weight.device:
        raise RuntimeError(f"{op}: Expected all tensors to be on the same device, but found at least two devices, "
                           f"{weight.device} and {input.device}!")
    num = weight._shape[0]
    if padding_idx is not None:
        if op == "embedding" and isinstance(padding_idx, numbers.Real) and not -num <= padding_idx < num:
            raise AssertionError("Padding_idx must be within num_embeddings")  # (F.embedding's, before the type)
        padding_idx = _index_arg(op, "padding_idx", 3 if op == "embedding" else 9, padding_idx)
        if padding_idx >= num or padding_idx < -num:
            if op == "embedding_bag":  # PyTorch checks it in ATen there (F.embedding asserts in Python)
                raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through "
                                   f"{num - 1}, but got {padding_idx}")
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num
    return padding_idx


def _renorm_(weight: Tensor, indices: np.ndarray, max_norm: float, norm_type: float) -> None:
    """PyTorch's ``embedding_renorm_``: rows used by ``indices`` whose ``norm_type``-norm exceeds
    ``max_norm`` are scaled to ``max_norm / (norm + 1e-7)`` of themselves, in place."""
    from ... import tensor, where

    rows = np.unique(indices.astype(np.int64))
    if rows.size == 0:
        return
    with no_grad():
        idx = tensor(rows, device=weight.device)
        w = weight.detach()
        selected = w.index_select(0, idx)
        norms = selected.norm(p=norm_type, dim=1, keepdim=True)
        scale = where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        w.index_copy_(0, idx, (selected * scale).to(w.dtype))


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` at the integer ``input``: shape ``input.shape + (embedding_dim,)``.

    ``padding_idx``: that row gets no gradient. ``max_norm``: the rows used are first renormalised in
    place (no grad) to norm at most ``max_norm``. ``scale_grad_by_freq``: each row's gradient is
    divided by how often it occurs in ``input``.
    """
    padding_idx = _check_embedding("embedding", input, weight, padding_idx)
    if sparse:
        raise NotImplementedError("embedding(): sparse=True needs sparse gradients, which tensorlab does not have")
    r = _index_range(input)
    if r is not None and (r[0] < 0 or r[1] >= weight._shape[0]):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_(weight, input.detach()._host_array(), float(max_norm), float(norm_type))
    return dispatch(EMBEDDING, weight, input, padding_idx=padding_idx, scale_grad_by_freq=bool(scale_grad_by_freq))


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sums, means or maxima of bags of embeddings, without materialising the per-index rows per bag.

    ``input`` 2-D: each row is a bag. ``input`` 1-D: bags start at ``offsets``; with
    ``include_last_offset`` there is one bag fewer than offsets, and the last bag runs to the end
    of the input (what torch 2.15's test_embeddingbag_include_last_offset asserts: offsets
    [0, 3, 3] and [0, 3, 4] give the same bags of 4 indices; PyTorch's cpu fbgemm path for float
    sum/mean without padding_idx still ends the sum at the last offset, which tensorlab does not
    copy). Entries equal to ``padding_idx`` are left out (and not counted by ``mean``); an empty
    bag gives zeros. The bag structure is computed on the host from the indices and offsets (one
    small transfer for cuda tensors).
    """
    from ... import index_add, tensor, zeros

    if not isinstance(input, Tensor):
        raise TypeError(f"embedding_bag(): argument 'input' must be Tensor, not {type(input).__name__}")
    # the checks in PyTorch's order: its Python wrapper's, the renorm's range check, then ATen's
    if per_sample_weights is not None and tuple(input._shape) != tuple(per_sample_weights._shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if isinstance(weight, Tensor) and weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if not isinstance(offsets, Tensor) or offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    idx = input.detach()._host_array().astype(np.int64).reshape(-1)
    num = weight._shape[0] if isinstance(weight, Tensor) and weight.ndim == 2 else 0
    if max_norm is not None:
        # PyTorch renormalises before ATen's checks, on every index of the input; its renorm
        # selects each row, so an index past the table fails there, as an IndexError
        bad = np.unique(idx[(idx >= num) | (idx < -num)])
        if bad.size:
            raise IndexError(f"select(): index {bad[0]} out of range for tensor of size [{num}, "
                             f"{weight._shape[1]}] at dimension 0")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    padding_idx = _check_embedding("embedding_bag", input, weight, padding_idx)
    # PyTorch promotes the indices to the offsets' dtype, so float offsets fail its indices check (naming their type)
    if offsets is not None and offsets.dtype.is_floating_point:
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {offsets.type()} instead (while checking arguments for embedding_bag)")
    if sparse:
        raise NotImplementedError("embedding_bag(): sparse=True needs sparse gradients, which tensorlab does not have")
    if per_sample_weights is not None and per_sample_weights.dtype is not weight.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 "
                           f"'per_sample_weights'; but type {weight.type()} does not equal "
                           f"{per_sample_weights.type()} (while checking arguments for embedding_bag)")
    n = idx.size
    if input.ndim == 2:
        width = input._shape[1]
        starts = np.arange(0, n, width, dtype=np.int64) if width else np.zeros(input._shape[0], np.int64)
        include_last_offset = False
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    else:
        starts = offsets.detach()._host_array().astype(np.int64)
        if include_last_offset and not starts.size:
            raise RuntimeError("include_last_offset: number of offset should be at least 1")
    if starts.size and starts[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {starts[0]}")
    if starts.size and starts[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got offsets[-1] of "
                           f"{starts[-1]}")
    if np.any(np.diff(starts) < 0):
        raise RuntimeError(f"embedding_bag: offsets must be non-decreasing, got {starts.tolist()}")
    bags = len(starts) - 1 if include_last_offset else len(starts)
    # the last bag runs to the end of the input, also with include_last_offset (PyTorch's offset2bag)
    bag_of = np.repeat(np.arange(bags, dtype=np.int64), np.diff(np.append(starts[:bags], n))) if bags else \
        np.zeros(0, np.int64)
    out_of_range = (idx < 0) | (idx >= num)
    if out_of_range.any():
        raise RuntimeError("embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                           f"{idx[int(np.argmax(out_of_range))]}")
    if max_norm is not None:
        _renorm_(weight, idx, float(max_norm), float(norm_type))
    keep = np.ones(n, bool) if padding_idx is None else idx != padding_idx
    keep[len(bag_of):] = False  # (a 2-D input of no rows: no bags)
    dim = weight._shape[1]
    dev = weight.device
    out = zeros((bags, dim), dtype=weight.dtype, device=dev)
    positions = np.nonzero(keep)[0]
    sel = tensor(idx[positions], device=dev)
    rows = dispatch(EMBEDDING, weight, sel, padding_idx=None, scale_grad_by_freq=bool(scale_grad_by_freq))
    if per_sample_weights is not None:
        psw = per_sample_weights
        if positions.size != n:
            psw = psw.index_select(0, tensor(positions, device=dev))
        rows = rows * psw.unsqueeze(1)
    kept_bags = bag_of[positions]
    target = tensor(kept_bags, device=dev)
    if mode == "max":
        later = np.zeros(kept_bags.size, bool)  # not the first (kept) element of its bag
        later[1:] = kept_bags[1:] == kept_bags[:-1]
        return _bag_max(out, rows, target, tensor(later.reshape(-1, 1), device=dev))
    out = index_add(out, 0, target, rows)
    if mode == "mean":
        counts = np.bincount(kept_bags, minlength=bags).astype(np.float64)
        out = out / tensor(np.maximum(counts, 1.0).reshape(-1, 1), dtype=out.dtype, device=dev)
    return out


def _bag_max(out: Tensor, rows: Tensor, target: Tensor, later: Tensor) -> Tensor:
    """Per bag and column, the row that holds the maximum; the gradient goes to the first such row
    in bag order, as PyTorch's (an amax would share it between tied rows). PyTorch's running maximum
    (the bag's first value, then any later one that is ``>``) keeps a NaN in first place and skips a
    later one: ``later`` marks the rows that are not their bag's first, whose NaNs are taken as -inf."""
    from ... import arange, full, where

    index = target.unsqueeze(1).expand(rows._shape)
    n = rows._shape[0]
    if n == 0:
        return out.scatter_reduce(0, index, rows, "amax", include_self=False)
    with no_grad():
        values = where(later & rows.isnan(), -math.inf, rows)
        best = out.scatter_reduce(0, index, values, "amax", include_self=False).index_select(0, target)
        hit = (values == best) | (values.isnan() & best.isnan())
        position = arange(n, device=rows.device).unsqueeze(1).expand(rows._shape)
        first = full(out._shape, n, dtype=D.int64, device=rows.device).scatter_reduce(
            0, index, where(hit, position, n), "amin")
    picked = rows.gather(0, first.clamp_max(n - 1))
    return where(first == n, out, picked)  # an empty bag keeps its zeros


# ----------------------------------------------------------------------------------------------
# compositions
# ----------------------------------------------------------------------------------------------


@autocast_op("bilinear", opaque=True)  # (PyTorch's _trilinear: its matmul is on no cpu list)
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``."""
    named = [("input1", input1), ("input2", input2), ("weight", weight)]
    named += [("bias", bias)] if bias is not None else []
    if any(t.dtype is not input1.dtype for _, t in named):  # PyTorch's first check: no promotion between them
        raise RuntimeError("bilinear(): All tensors must have the same dtype, got "
                           + ", ".join(f"{n}: {t.dtype.name}" for n, t in named))
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be three-dimensional, but got {weight.ndim}")
    o, i1, i2 = weight._shape
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for d in range(input1.ndim - 1):
        if input1._shape[d] != input2._shape[d]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: got "
                               f"{input1._shape[d]} and {input2._shape[d]}")
    if input1._shape[-1] != i1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1._shape[-1]} but "
                           f"expected {i1}")
    if input2._shape[-1] != i2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2._shape[-1]} but "
                           f"expected {i2}")
    if bias is not None and (bias.ndim != 1 or bias._shape[0] != o):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias._shape[-1]} but "
                           f"expected {o}")
    lead = input1._shape[:-1]
    x1 = input1.reshape(-1, i1)
    x2 = input2.reshape(-1, i2)
    # (B, I1) @ (I1, O*I2): one GEMM, then the I2 contraction per output feature
    t = x1.matmul(weight.permute(1, 0, 2).reshape(i1, o * i2)).reshape(-1, o, i2)
    prod = t * x2.unsqueeze(1)
    y = prod.sum(dim=-1, dtype=prod.dtype)  # (an integer sum would widen to int64; PyTorch keeps the dtype)
    if bias is not None:
        y = y + bias
    return y.reshape(*lead, o)


@autocast_float32(devices=("cuda",))
def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """``input / max(||input||_p, eps)`` along ``dim``."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    if out is not None:
        from ... import div

        return div(input, denom, out=out)
    return input / denom


@autocast_float32(devices=("cuda",))
def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps))`` along ``dim`` (broadcasting): each
    input is divided by its own norm first, as PyTorch, which keeps the result within [-1, 1]."""
    from ... import broadcast_tensors

    if not eps >= 0:  # (PyTorch's check; a negative eps could divide by a negative norm)
        raise RuntimeError(f"cosine_similarity: eps must be non-negative, got: {eps}")
    a, b = broadcast_tensors(x1, x2)
    common = D.promote_types(a.dtype, b.dtype)  # (PyTorch's rule: integers are refused, mixed ones promote)
    if not common.is_floating_point:
        raise RuntimeError(f"cosine_similarity: expected common dtype to be floating point, yet common dtype is "
                           f"{D.torch_name(common)}")
    a, b = a.to(common), b.to(common)
    na = _clamp_min_no_grad(a.norm(2, dim, keepdim=True), eps)
    nb = _clamp_min_no_grad(b.norm(2, dim, keepdim=True), eps)
    return ((a / na) * (b / nb)).sum(dim=dim)


def _clamp_min_no_grad(n: Tensor, eps: float) -> Tensor:
    """``n.clamp_min(eps)`` in value, ``n`` for autograd: PyTorch clamps the norms in place under
    no_grad, so a norm below eps still passes its gradient. ``n - n.detach()`` is exactly 0 where
    it is taken (below eps: finite); an overflowed (inf) or NaN norm is ``n`` itself, as PyTorch's
    (``inf - inf`` made the result and its gradient NaN, where PyTorch's are 0)."""
    from ... import where

    if not n.requires_grad:
        return n.clamp_min(eps)
    d = n.detach()
    return where(d < eps, (n - d) + eps, n)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dim (broadcasting)."""
    ndim = max(x1.ndim, x2.ndim)
    diff = x1 - x2 + eps
    # 0-d inputs: PyTorch's norm over dim -1 of a scalar, which honours p (p=0 counts a nonzero as 1)
    return diff.norm(p, ndim - 1, keepdim=keepdim)


@autocast_float32
def pdist(input: Tensor, p: float = 2.0) -> Tensor:
    """The p-norm distances between the rows of an (N, M) ``input``, each pair i < j once, in
    row-major order of (i, j): N(N-1)/2 values (``cdist(x, x)``'s upper triangle)."""
    from ... import triu_indices

    if not isinstance(input, Tensor):
        raise TypeError(f"pdist(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"pdist only supports floating-point dtypes, got {input.dtype.name}")
    if isinstance(p, bool) or not isinstance(p, int | float) or p < 0:
        raise RuntimeError(f"pdist only supports non-negative p values, got {p}")
    n = input.shape[0]
    i, j = triu_indices(n, n, 1, device=input.device)
    from ...ops.composite_numeric import coordinate_distance

    return coordinate_distance(input[i] - input[j], p)  # (p = inf propagates a NaN coordinate)


_PAD_MODES = ("constant", "reflect", "replicate", "circular")


def _pad_indices(mode: str, size: int, left: int, right: int) -> np.ndarray:
    """Source positions along one dim of the padded output (``left``/``right`` may be negative: crop)."""
    o = np.arange(size + left + right, dtype=np.int64)
    if mode == "circular":
        lo = max(-left, 0)
        kept = size - lo - max(-right, 0)  # circular pads wrap within the cropped extent, as PyTorch
        return lo + (o - max(left, 0)) % kept
    i = o - left
    if mode == "reflect":
        i = np.abs(i)
        i = np.where(i >= size, 2 * (size - 1) - i, i)
        return i
    return np.clip(i, 0, size - 1)  # replicate


def _pad_ints(pad) -> list[int]:
    """``pad`` as PyTorch's argument parser takes it: a tuple or list of ints (``_as_index``); a float
    was truncated and a tensor iterated."""
    msg = "pad(): argument 'pad' (position 2) must be tuple of ints"
    if not isinstance(pad, tuple | list):
        raise TypeError(f"{msg}, not {type(pad).__name__}")
    out = []
    for i, v in enumerate(pad):
        k = _as_index(v)
        if k is None:
            raise TypeError(f"{msg}, but found element of type {type(v).__name__} at pos {i}")
        out.append(k)
    return out


def _pad_sizes_check(mode: str, input: Tensor, pad: list[int], k: int) -> None:
    """PyTorch's shape checks of the reflect/replicate/circular pads, in its order, and the circular pads it
    cannot do: more than what is left of a dim after cropping (it raises an overlap error, or returns
    uninitialised memory when nothing is left)."""
    sizes = [input._shape[input.ndim - 1 - j] for j in range(k)]  # last dim first, as ``pad``
    outs = [sizes[j] + pad[2 * j] + pad[2 * j + 1] for j in range(k)]
    if mode == "reflect":
        for j in range(k):
            if pad[2 * j] >= sizes[j] or pad[2 * j + 1] >= sizes[j]:
                raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({pad[2 * j]}, {pad[2 * j + 1]}) at dimension "
                                   f"{input.ndim - 1 - j} of input {list(input._shape)}")
    if mode != "circular":
        if min(outs) < 1:
            names = "WHD"[:k][::-1]
            if k == 1:
                raise RuntimeError(f"pad: input (W: {sizes[0]}) is too small. Calculated output W: {outs[0]}")
            got = " ".join(f"{n}: {o}" for n, o in zip(names, outs[::-1], strict=True))
            ins = ", ".join(f"{n}: {z}" for n, z in zip(names, sizes[::-1], strict=True))
            raise RuntimeError(f"pad: Calculated output {got} must be >= 1 in every dimension (input {ins})")
        return
    for j in reversed(range(k)):  # (PyTorch's circular pad checks the outer dims first)
        if pad[2 * j] > sizes[j] or pad[2 * j + 1] > sizes[j]:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if outs[j] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    for j in reversed(range(k)):
        left, right = pad[2 * j], pad[2 * j + 1]
        kept = sizes[j] - max(-left, 0) - max(-right, 0)
        if max(left, right) > kept:
            raise RuntimeError(f"pad: circular padding ({left}, {right}) of dimension {input.ndim - 1 - j} (size "
                               f"{sizes[j]}) wraps around more than once: {max(kept, 0)} element(s) are left after "
                               "cropping")


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad (or, with negative sizes, crop) the last ``len(pad) // 2`` dims; ``pad`` is PyTorch's order:
    ``(last_left, last_right, second_last_left, second_last_right, ...)``."""
    from ... import cat, full, tensor
    from ...ops.zero_curvature import piecewise_linear_input

    if not isinstance(input, Tensor):
        raise TypeError(f"pad(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    pad = _pad_ints(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    k = len(pad) // 2
    if k > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    if mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode == "constant" and value is not None:  # (a value the dtype cannot hold raises, as PyTorch's)
        from ..._factories import check_scalar_fits

        if input.dtype is D.uint8 and isinstance(value, numbers.Real) and value < 0:  # (full would wrap it)
            raise RuntimeError(f"pad: value {value} cannot be converted to type uint8_t without overflow")
        value = check_scalar_fits("pad", value, input.dtype)
    if mode != "constant":
        if value is not None and value != 0:
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        if not ((k == 1 and input.ndim in (2, 3)) or (k == 2 and input.ndim in (3, 4))
                or (k == 3 and input.ndim in (4, 5))):
            raise NotImplementedError(
                f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\nSupported combinations "
                "for non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
        batched = input.ndim == k + 2
        if mode != "circular" and 0 in input._shape[1 if batched else 0:]:
            # (PyTorch's reflection/replication kernels: only the batch dim may be empty)
            raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and "
                               f"other non-zero dimensions for input, but got: {list(input._shape)}")
        _pad_sizes_check(mode, input, pad, k)
        if mode != "circular":  # PyTorch's pad runs reflection_pad{k}d / replication_pad{k}d: cpu autocast's float32
            input, = cast_for(f"{'reflection' if mode == 'reflect' else 'replication'}_pad{k}d", input)
    x = input
    for j in range(k):
        d = input.ndim - 1 - j
        left, right = pad[2 * j], pad[2 * j + 1]
        size = x._shape[d]
        if size + left + right < 0:
            raise RuntimeError(f"pad: the padded size of dimension {d} would be negative: {size} + {left} + {right}")
        if left == 0 and right == 0:
            continue
        if mode == "constant":
            if left < 0 or right < 0:
                start = max(-left, 0)
                x = x.narrow(d, start, size - start - max(-right, 0))
                left, right = max(left, 0), max(right, 0)
            parts = []
            for n in (left, right):
                shape = list(x._shape)
                shape[d] = n
                parts.append(full(tuple(shape), 0.0 if value is None else value, dtype=x.dtype, device=x.device))
            x = cat([parts[0], x, parts[1]], dim=d)
            continue
        src = _pad_indices(mode, size, left, right)
        # PyTorch's reflection/replication pad backward takes the input: 0 second derivative, recorded
        # (its circular pad is a composite of slices, whose gradient does not)
        x = (x if mode == "circular" else piecewise_linear_input(x)).index_select(d, tensor(src, device=x.device))
    return x if x is not input else input.clone()


__all__ = ["alpha_dropout", "bilinear", "channel_shuffle", "cosine_similarity", "dropout", "dropout1d", "dropout2d",
           "dropout3d", "embedding", "embedding_bag", "feature_alpha_dropout", "linear", "native_channel_shuffle",
           "normalize", "one_hot", "pad", "pairwise_distance", "pdist", "pixel_shuffle", "pixel_unshuffle"]
