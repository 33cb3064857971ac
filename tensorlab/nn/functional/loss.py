"""nn.functional losses, with PyTorch's signatures, shape rules, reductions and errors.

``cross_entropy`` with class indices is one registered op on the fused Triton kernel of
``tensorlab_kernels.nn.cross_entropy``: per row, the logsumexp (online), the target's logit,
the class weight, ``ignore_index`` and label smoothing in one pass; it returns the per-row
losses, the per-row target weights (``w_t``, 0 for ignored rows), the logsumexp it saves, and
one flag per program for out-of-range targets (read back once: the IndexError PyTorch raises).
The reduction happens outside the kernel, on those rows, with the deterministic reduction
kernels: 'sum' is ``sum(l_i)``, 'mean' is ``sum(l_i) / sum(w_t)`` (PyTorch's weighted mean; the
label-smoothing term is divided by the same sum, as PyTorch does). Its backward is another
registered op (``cross_entropy_loss_backward``, the fused backward kernel: the softmax is
recomputed from the saved logsumexp, ``dx = g * ((1-eps) w_t (p - onehot) + eps/C (W p - w))``).
When the backward itself is being recorded (``create_graph=True``) the same formula is composed
from registered ops instead, so double backward works.

Every other loss is a composition of registered ops (elementwise, reductions, gather), so it runs
on their kernels and is differentiable to any order. ``binary_cross_entropy`` is a custom
autograd Function whose backward is PyTorch's formula ``(x - y) / max(x (1 - x), 1e-12)``
(the composition would differ from PyTorch where the log is clamped at -100), and so is
``binary_cross_entropy_with_logits`` (``sigmoid(x) - y``: the stable forward formula's own
derivative is NaN at infinite logits).

Reductions: ``'none' | 'mean' | 'sum'`` (``kl_div`` also ``'batchmean'``); the deprecated
``size_average``/``reduce`` arguments are honoured with PyTorch's warning.
"""

from __future__ import annotations

import math
import warnings

from tensorlab_kernels.nn import cross_entropy as kce

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._registry import Plan, defop
from ..._tensor import Tensor
from ...amp.autocast_mode import autocast_float32, unsafe_under_cuda_autocast
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled, no_grad

# ----------------------------------------------------------------------------------------------
# reductions and argument checks shared by the losses
# ----------------------------------------------------------------------------------------------

_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce) -> str:
    """PyTorch's ``_Reduction.legacy_get_string`` (with its deprecation warning)."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                  stacklevel=3)
    return ret


def _reduction(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return _legacy_reduction(size_average, reduce)
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=3)
        return "mean"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _need_tensor(op: str, **named) -> None:
    for name, t in named.items():
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")


def _need_floating(op: str, name: str, t: Tensor) -> None:
    if not t.dtype.is_floating_point:
        raise RuntimeError(f"{op}: expected a floating point {name}, got {t.dtype.name}")


def _no_grad_arg(op: str, name: str, t) -> None:
    """PyTorch does not differentiate class weights: an argument that requires grad is refused."""
    if t is not None and t.requires_grad and is_grad_enabled():
        raise RuntimeError(f"{op}: The function '{op}' is not differentiable with respect to argument '{name}'. "
                           "This input cannot have requires_grad True.")


def _need_float_result(kernel: str, input: Tensor, target: Tensor, dt: D.dtype | None = None) -> D.dtype:
    """The promoted dtype ``dt`` of mse/smooth_l1/huber, which have no integer kernels in PyTorch:
    two integer operands raise its NotImplementedError (``"mse_cpu" not implemented for 'Long'``)
    instead of an integer loss."""
    dt = D.promote_types(input.dtype, target.dtype) if dt is None else dt
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{kernel}_{input.device.type}" not implemented for \'{D.torch_name(dt)}\'')
    return dt


def _bool_as(dt: D.dtype, *tensors: Tensor) -> tuple:
    """mse/smooth_l1/huber compute in a floating dtype through PyTorch's type promotion, so a
    bool operand is read as 0/1 there (the composition's ``a - b`` would refuse it)."""
    return tuple(t.to(dt) if t.dtype is D.bool else t for t in tensors)


def _warn_size(input: Tensor, target: Tensor) -> None:
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            stacklevel=3,
        )


def _broadcast(op: str, *tensors: Tensor) -> tuple:
    from ...ops.shape_ops import broadcast_tensors

    try:
        return broadcast_tensors(*tensors)
    except RuntimeError as exc:
        shapes = " and ".join(str(list(t.shape)) for t in tensors)
        raise RuntimeError(f"{op}: the shapes {shapes} cannot be broadcast together ({exc})") from None


def _weighted(op: str, loss: Tensor, input: Tensor, weight: Tensor | None, reduction: str, mean_by_weight: bool):
    """The optional per-element ``weight`` of mse/l1/huber (same size as the input)."""
    if weight is None:
        return _reduce(loss, reduction)
    _need_tensor(op, weight=weight)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError(f"{op}: Weights and input must have the same size (weight {list(weight.shape)}, "
                         f"input {list(input.shape)}).")
    loss = loss * weight
    if reduction == "mean" and mean_by_weight:
        return loss.sum() / weight.sum()
    return _reduce(loss, reduction)


# ----------------------------------------------------------------------------------------------
# regression losses
# ----------------------------------------------------------------------------------------------


@autocast_float32
def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """``(input - target)^2``; with ``weight``, 'mean' is ``sum(w * l) / sum(w)`` (PyTorch's)."""
    _need_tensor("mse_loss", input=input, target=target)
    dt = _need_float_result("mse", input, target)
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    a, b = _broadcast("mse_loss", *_bool_as(dt, input, target))
    return _weighted("mse_loss", (a - b).square(), input, weight, reduction, mean_by_weight=True)


@autocast_float32
def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """``|input - target|``; with ``weight``, 'mean' is ``sum(w * l) / sum(w)``."""
    _need_tensor("l1_loss", input=input, target=target)
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    a, b = _broadcast("l1_loss", input, target)
    return _weighted("l1_loss", (a - b).abs(), input, weight, reduction, mean_by_weight=True)


@autocast_float32
def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """``0.5 d^2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 beta`` (``beta == 0``: L1)."""
    _need_tensor("smooth_l1_loss", input=input, target=target)
    _warn_size(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta == 0:  # PyTorch's shortcut to l1_loss, before any dtype check: integer operands give an integer loss
        a, b = _broadcast("smooth_l1_loss", input, target)
        return _reduce((a - b).abs(), reduction)
    dt = _need_float_result("smooth_l1", input, target)
    if beta < 0:
        raise RuntimeError(f"smooth_l1_loss does not support negative values for beta (got beta={beta}).")
    a, b = _broadcast("smooth_l1_loss", *_bool_as(dt, input, target))
    return _reduce(_smooth_l1_terms(a - b, beta, 0.5 / beta, 0.5 * beta, 1.0), reduction)


def _smooth_l1_terms(diff: Tensor, beta: float, quad_scale: float, lin_shift: float, lin_scale: float) -> Tensor:
    """``quad_scale * diff^2`` where ``|diff| < beta``, else ``(|diff| - lin_shift) * lin_scale``.

    PyTorch's gradients: ``diff / beta`` (resp. ``diff``) in the quadratic branch, ``+-1`` (``+-delta``)
    in the linear one, NaN at a NaN diff; and the second derivative ``1 / beta`` (1) in the quadratic
    branch, at ``diff == 0`` too. So the square is of the signed difference (``|diff|``'s derivative
    at 0 is 0, which would lose the curvature there), with the linear branch's elements zeroed (an
    unselected ``inf**2`` would give a NaN gradient); a NaN diff takes the square's branch."""
    from ...ops.elementwise_binary import where

    d = diff.abs()
    big = d >= beta
    linear = d - lin_shift
    if lin_scale != 1.0:
        if diff.dtype is D.float32 and abs(lin_scale) > D.finfo(D.float32).max:
            # a delta that is inf in float32: 0 (not 0 * inf, NaN) for the unselected branch's gradient
            lin_scale = where(big, math.inf if lin_scale > 0 else -math.inf, 0.0)
        linear = linear * lin_scale
    return where(big, linear, where(big, 0.0, diff).square() * quad_scale)


@autocast_float32
def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """``0.5 d^2`` where ``|d| < delta``, else ``delta (|d| - 0.5 delta)``; with ``weight``, 'mean'
    is the plain mean of ``w * l`` (PyTorch's rule for huber, unlike mse/l1)."""
    _need_tensor("huber_loss", input=input, target=target)
    promoted = D.promote_types(input.dtype, target.dtype)
    if not D.can_cast(promoted, input.dtype):  # the result is the input's dtype
        raise RuntimeError(f"huber_loss: result type {D.torch_name(promoted)} can't "
                           f"be cast to the desired output type {D.torch_name(input.dtype)}")
    _need_float_result("huber", input, target, promoted)
    _warn_size(input, target)
    reduction = _reduction(None, None, reduction)
    if delta <= 0:
        raise RuntimeError(f"huber_loss does not support non-positive values for delta (got delta={delta}).")
    if target.dtype is not input.dtype:
        target = target.to(input.dtype)  # PyTorch's huber_loss computes in the input's dtype (mse_loss promotes)
    a, b = _broadcast("huber_loss", input, target)
    if a.dtype is D.float16:
        # PyTorch computes float16 in float32 (delta too), rounding the loss once: in float16, 0.5 * delta
        # overflows from delta = 131008 (inf - inf: NaN) and a - b from |a - b| = 65520
        loss = _smooth_l1_terms(a.float() - b.float(), delta, 0.5, 0.5 * delta, delta).to(a.dtype)
    else:
        if a.dtype is D.bfloat16:  # PyTorch's bfloat16 kernel: bfloat16 steps, with delta rounded to bfloat16
            delta = float(D.bfloat16.np.type(delta))
        loss = _smooth_l1_terms(a - b, delta, 0.5, 0.5 * delta, delta)
    return _weighted("huber_loss", loss, input, weight, reduction, mean_by_weight=False)


# ----------------------------------------------------------------------------------------------
# cross_entropy / nll_loss
# ----------------------------------------------------------------------------------------------


def _acc(x: Tensor) -> D.dtype:
    return D.float64 if x.dtype is D.float64 else D.float32


def _class_dim(x: Tensor) -> int:
    return 0 if x.ndim == 1 else 1


def _ce_meta(x, target, weight, *, class_dim: int, ignore_index: int, label_smoothing: float) -> Plan:
    acc = _acc(x)
    shape = target._shape
    n_status = kce.status_size(target.numel(), x._shape[class_dim])
    return Plan(args=[x, target, weight],
                outputs=[(shape, acc), (shape, acc), (shape + (2,), acc), ((n_status,), D.int32)],
                params={"class_dim": class_dim, "ignore_index": ignore_index, "label_smoothing": label_smoothing},
                single=False)


def _ce_save(ctx, inputs, outputs, params):
    x, target, weight = inputs
    ctx.save_for_backward(x, target, weight, outputs[2])
    ctx.mark_non_differentiable(*outputs[1:])
    ctx.set_materialize_grads(False)


def _ce_backward(ctx, g_loss, *_unused):
    x, target, weight, stats = ctx.saved_tensors
    if g_loss is None or not ctx.needs_input_grad[0]:
        return None, None, None
    p = ctx.params
    if is_grad_enabled():  # create_graph=True: a differentiable composition
        dx = _ce_composite_backward(g_loss, x, target, weight, **p)
    else:
        dx = dispatch(CROSS_ENTROPY_BACKWARD, g_loss, x, target, weight, stats, **p)
    return dx, None, None


def _ce_backward_meta(g, x, target, weight, stats, *, class_dim: int, ignore_index: int,
                      label_smoothing: float) -> Plan:
    return Plan(args=[g, x, target, weight, stats], outputs=[(x._shape, x.dtype)],
                params={"class_dim": class_dim, "ignore_index": ignore_index, "label_smoothing": label_smoothing})


def _at_class_dim(v: Tensor, x: Tensor, class_dim: int) -> Tensor:
    """A (C,) vector shaped to broadcast along ``x``'s class dim."""
    shape = [1] * x.ndim
    shape[class_dim] = v.shape[0]
    return v.reshape(shape)


def _ce_composite_backward(g, x, target, weight, *, class_dim: int, ignore_index: int, label_smoothing: float):
    """The fused backward's formula from registered ops (differentiable, for double backward)."""
    from ..._factories import arange
    from ...ops.elementwise_binary import where

    acc = _acc(x)
    n_classes = x.shape[class_dim]
    xf = x if x.dtype is acc else x.to(acc)
    p = xf.softmax(class_dim)
    valid = target != ignore_index
    t_safe = where(valid, target.to(D.int64), 0)
    classes = _at_class_dim(arange(n_classes, device=x.device), x, class_dim)
    onehot = (t_safe.unsqueeze(class_dim) == classes).to(acc)
    w_t = weight.to(acc).take(t_safe) if weight is not None else valid.to(acc)
    w_t = where(valid, w_t, 0.0)
    gv = where(valid, g, 0.0)
    dx = (gv * w_t * (1.0 - label_smoothing)).unsqueeze(class_dim) * (p - onehot)
    if label_smoothing != 0:
        if weight is not None:
            w = _at_class_dim(weight.to(acc), x, class_dim)
            w_all = weight.to(acc).sum()
        else:
            w, w_all = 1.0, float(n_classes)
        dx = dx + (gv * (label_smoothing / n_classes)).unsqueeze(class_dim) * (p * w_all - w)
    return dx.to(x.dtype)


CROSS_ENTROPY = defop(
    "cross_entropy_loss", twin=kce.cross_entropy_forward_twin, kernel=kce.cross_entropy_forward, meta=_ce_meta,
    backward=_ce_backward, save=_ce_save, tags={"nn", "loss", "replayable"},
    doc="Fused softmax cross-entropy with class indices: per-row loss (weights, ignore_index, label smoothing), "
        "per-row target weight (the 'mean' divisor), row max and log of the shifted exp sum as a pair (saved for "
        "the backward) and per-program "
        "out-of-range-target flags. fp32 math for fp16/bf16 logits.")
CROSS_ENTROPY_BACKWARD = defop(
    "cross_entropy_loss_backward", twin=kce.cross_entropy_backward_twin, kernel=kce.cross_entropy_backward,
    meta=_ce_backward_meta, tags={"nn", "loss", "replayable"},
    doc="Fused cross-entropy backward: the softmax recomputed from the saved row statistics, minus the (smoothed, "
        "weighted) one-hot, times the incoming per-row gradient. Not differentiable itself: cross_entropy's "
        "backward composes registered ops instead when create_graph=True.")


def _check_class_target_shape(op: str, input: Tensor, target: Tensor) -> None:
    if input.ndim == 1:
        if target.ndim == 1 and target.shape[0] != 1:
            raise ValueError(f"{op}: For 1D input, 1D target must have size 1, but got target size: "
                             f"{target.shape[0]}")
        if target.ndim > 1:
            raise RuntimeError(f"{op}: 0D or 1D target tensor expected, multi-target not supported (input "
                               f"{list(input.shape)}, target {list(target.shape)})")
        return
    batch = target.shape[0] if target.ndim else 0  # (PyTorch's nll_loss_nd reads a 0-D target's batch as 0)
    if input.shape[0] != batch:
        raise ValueError(f"{op}: Expected input batch_size ({input.shape[0]}) to match target batch_size ({batch}).")
    if input.ndim == 2:
        if target.ndim != 1:
            raise RuntimeError(f"{op}: 0D or 1D target tensor expected, multi-target not supported (input "
                               f"{list(input.shape)}, target {list(target.shape)})")
        return
    expected = [input.shape[0], *input.shape[2:]]
    if list(target.shape) != expected:
        raise RuntimeError(f"{op}: Expected target size {expected}, got {list(target.shape)} (input "
                           f"{list(input.shape)})")


def _check_weight(op: str, weight, n_classes: int, input: Tensor, differentiable: bool = False) -> None:
    if weight is None:
        return
    _need_tensor(op, weight=weight)
    if not differentiable:  # class-probability cross_entropy is composed of ops: its weight has a gradient
        _no_grad_arg(op, "weight", weight)
    if weight.ndim != 1 or weight.shape[0] != n_classes:
        raise RuntimeError(f"{op}: weight tensor should be defined either for all {n_classes} classes or no classes "
                           f"but got weight tensor of shape: {list(weight.shape)}")
    if weight.device != input.device:
        raise RuntimeError(f"{op}: Expected all tensors to be on the same device, but found at least two devices, "
                           f"{input.device} and {weight.device}!")
    if not differentiable and weight.dtype is not input.dtype:  # (PyTorch's class-index kernels: one dtype)
        raise RuntimeError(f"{op}: expected scalar type {D.torch_name(input.dtype)} but found "
                           f"{D.torch_name(weight.dtype)} (the weight's dtype must be the input's)")


def _check_target_range(op: str, target: Tensor, n_classes: int, ignore_index: int, status: Tensor | None = None):
    """IndexError naming the first class index outside [0, C) that is not ``ignore_index``.

    With ``status`` (the fused cross-entropy's per-program flags) only those flags are read back;
    otherwise, on cuda, two small reductions (min, max) tell whether the host scan is needed. Either
    way a cuda call synchronises once (PyTorch's cuda kernels assert on the device instead)."""
    if target.numel() == 0:
        return
    import numpy as np

    if status is not None:
        if not status._host_array().any():
            return
    elif target.device.type == "cuda":
        from ...ops.shape_ops import stack

        lo, hi = stack([target.amin(), target.amax()]).tolist()
        if lo >= 0 and hi < n_classes:
            return
    t = target._host_array().astype(np.int64)
    bad = (t != ignore_index) & ((t < 0) | (t >= n_classes))
    if bad.any():
        value = int(t[bad].reshape(-1)[0])
        raise IndexError(f"{op}: Target {value} is out of bounds: expected a class index in [0, {n_classes}) "
                         f"(or ignore_index={ignore_index}) for an input with {n_classes} classes.")


def _check_index_target(op: str, input: Tensor, target: Tensor) -> Tensor:
    """Checks a class-index target and returns it; a 1-D input's target of shape (1) comes back 0-D
    (PyTorch takes it as the single sample's class, and the loss is 0-D). PyTorch's order: with a
    batch dim the shape is checked before the dtype, for a 1-D input the dtype first."""
    if input.ndim >= 2:
        _check_class_target_shape(op, input, target)
    if target.dtype not in (D.int64, D.uint8):
        raise RuntimeError(f"{op}: expected target dtype to be Long or Byte, but got {target.dtype.name}")
    if input.ndim < 2:
        _check_class_target_shape(op, input, target)
    return target.reshape(()) if input.ndim == 1 and target.ndim == 1 else target


def _no_class_loss(input: Tensor, cd: int, reduction: str, label_smoothing: float = 0.0) -> Tensor:
    """The loss of an input with 0 classes whose targets are all ``ignore_index``: zeros per target
    ('sum' 0, 'mean' 0/0 = NaN, as PyTorch), still connected to ``input`` for backward. With label
    smoothing PyTorch adds ``smooth * (label_smoothing / 0)`` = ``0 * inf``: NaN, for every reduction."""
    loss = input.sum(cd) * 0
    loss = loss.sum() / 0 if reduction == "mean" else _reduce(loss, reduction)
    return loss * math.nan if label_smoothing > 0 else loss


def _check_ignore_index(op: str, ignore_index) -> int:
    """PyTorch's argument parser takes an int (a NumPy integer or an integer 0-D tensor too), not a float or a bool."""
    if isinstance(ignore_index, bool | float):
        fn = "cross_entropy_loss" if op == "cross_entropy" else "nll_loss_nd"
        raise TypeError(f"{fn}(): argument 'ignore_index' (position 5) must be int, not {type(ignore_index).__name__}")
    return int(ignore_index)


def _need_float_logits(op: str, kernel: str, input: Tensor) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{D.torch_name(input.dtype)}\' ({op}: expected a '
                                  f"floating point input, got {input.dtype.name})")


@autocast_float32
def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Softmax cross-entropy of logits ``input`` — (C), (N, C) or (N, C, d1, ...) — against class
    indices (int64/uint8: (), (N) or (N, d1, ...)) or class probabilities (floating, input's shape)."""
    _need_tensor("cross_entropy", input=input, target=target)
    reduction = _reduction(size_average, reduce, reduction)
    ignore_index = _check_ignore_index("cross_entropy", ignore_index)
    label_smoothing = float(label_smoothing)
    # PyTorch checks only the upper bound (NaN passes), and smooths only where label_smoothing > 0:
    # a negative (or NaN) one is no smoothing
    if label_smoothing > 1.0:
        raise RuntimeError(f"cross_entropy: label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if not label_smoothing > 0.0:
        label_smoothing = 0.0
    if input.ndim == 0:
        raise RuntimeError("cross_entropy: input must have at least one dimension (the classes), got a 0-D tensor")
    cd = _class_dim(input)
    _need_float_logits("cross_entropy", "log_softmax_lastdim_kernel_impl" if cd == input.ndim - 1
                       else "log_softmax_kernel_impl", input)
    n_classes = input.shape[cd]
    # PyTorch's routing: a target of the input's shape holds class probabilities (any other target,
    # a floating one included, goes to the class-index checks)
    probabilities = target.dtype.is_floating_point and tuple(target.shape) == tuple(input.shape)
    _check_weight("cross_entropy", weight, n_classes, input, differentiable=probabilities)
    if probabilities:
        return _cross_entropy_probabilities(input, target, weight, ignore_index, reduction, label_smoothing, cd)
    target = _check_index_target("cross_entropy", input, target)
    if n_classes == 0:  # no class is valid, so every target must be ignored; the kernel needs C >= 1
        _check_target_range("cross_entropy", target, n_classes, ignore_index)
        return _no_class_loss(input, cd, reduction, label_smoothing)
    loss, w_t, _, status = dispatch(CROSS_ENTROPY, input, target, weight, class_dim=cd,
                                    ignore_index=int(ignore_index), label_smoothing=label_smoothing)
    _check_target_range("cross_entropy", target, n_classes, ignore_index, status)
    if reduction == "sum":
        loss = loss.sum()
    elif reduction == "mean":
        total = w_t.sum()
        loss = loss.sum() / total  # sum(w_t * l_t) / sum(w_t), ignored rows excluded from both
        if label_smoothing:
            # PyTorch averages the nll and smoothing terms apart, each by sum(w_t): when that is 0 its
            # nll term is 0/0, so the loss is NaN (here the smoothing term alone made it inf)
            loss = loss * (total / total)
    return loss if loss.dtype is input.dtype else loss.to(input.dtype)


def _cross_entropy_probabilities(input, target, weight, ignore_index, reduction, label_smoothing, cd):
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"cross_entropy: with class probabilities the target must have the input's shape: input "
                           f"{list(input.shape)}, target {list(target.shape)}")
    if ignore_index >= 0:  # (PyTorch's check: any negative ignore_index is accepted, and unused)
        raise RuntimeError("cross_entropy: ignore_index is not supported for floating point target")
    n_classes = input.shape[cd]
    logp = input.log_softmax(cd)
    if label_smoothing > 0 and n_classes:  # (0 classes: an empty target, nothing to smooth)
        target = target * (1.0 - label_smoothing) + label_smoothing / n_classes
    prod = logp * target
    if weight is not None:
        prod = prod * _at_class_dim(weight, input, cd)
    if reduction == "none":
        return -prod.sum(cd)
    total = -prod.sum()  # PyTorch's reductions: of the whole product ('mean' by the row count)
    if reduction == "sum":
        return total
    if input.numel() == 0:  # (no rows, or rows of no classes: NaN, as PyTorch's fill_)
        return total * math.nan
    return total / (input.numel() // n_classes)


@autocast_float32
def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """``-w_t * input[t]`` per row of log-probabilities ``input`` ((C), (N, C) or (N, C, d1, ...));
    ignored rows are 0; 'mean' is ``sum(w_t * l) / sum(w_t)``."""
    from ...ops.elementwise_binary import where
    from ...ops.zero_curvature import piecewise_linear_input

    _need_tensor("nll_loss", input=input, target=target)
    reduction = _reduction(size_average, reduce, reduction)
    ignore_index = _check_ignore_index("nll_loss", ignore_index)
    if input.ndim == 0:
        raise ValueError("nll_loss: Expected 1 or more dimensions (got 0)")
    cd = _class_dim(input)
    n_classes = input.shape[cd]
    _check_weight("nll_loss", weight, n_classes, input)
    target = _check_index_target("nll_loss", input, target)
    _need_float_logits("nll_loss", "nll_loss_out_frame", input)
    _check_target_range("nll_loss", target, n_classes, ignore_index)
    if n_classes == 0:  # every target is ignore_index (checked above); gather needs C >= 1
        return _no_class_loss(input, cd, reduction)
    valid = target != ignore_index
    t_safe = where(valid, target.to(D.int64), 0)
    # (gathered from piecewise_linear_input: the gradient depends on the input with derivative 0, as PyTorch's)
    picked = piecewise_linear_input(input).gather(cd, t_safe.unsqueeze(cd)).squeeze(cd)
    if weight is not None:
        w_t = where(valid, weight.take(t_safe), 0.0).to(input.dtype)
    else:
        w_t = valid.to(input.dtype)
    # an ignored row is +0, as PyTorch's, whatever its stand-in class 0 holds (-inf * 0 would be NaN),
    # and its gradient is 0: where() passes none to the rows it masks out. (In 'mean', when every
    # target is ignored, sum(w_t) is 0: the loss is 0/0 = NaN, as PyTorch's, but the gradient
    # -w_t * g / sum(w_t) would otherwise be 0 * inf = NaN at those rows.)
    loss = where(valid, -(picked * w_t), 0.0)
    if reduction == "mean":
        return loss.sum() / w_t.sum()
    return _reduce(loss, reduction)


# ----------------------------------------------------------------------------------------------
# binary cross-entropy
# ----------------------------------------------------------------------------------------------


_LOSS_EPSILON = 9.999999960041972e-13  # float(np.float32(1e-12)): PyTorch's EPSILON in Loss.cpp


class _BinaryCrossEntropy(Function):
    """Elementwise ``-w (y log x + (1 - y) log(1 - x))`` with both logs clamped at -100; the
    gradients are PyTorch's: ``dx = w (x - y) / max(x (1 - x), 1e-12)``,
    ``dy = w (log(1 - x) - log x)`` (logs not clamped)."""

    @staticmethod
    def forward(ctx, x, y, w):
        ctx.save_for_backward(x, y, w)
        log_x = x.log().clamp_min(-100.0)
        log_1mx = (-x).log1p().clamp_min(-100.0)
        loss = -(y * log_x + (1 - y) * log_1mx)
        return loss * w if w is not None else loss

    @staticmethod
    def backward(ctx, g):
        x, y, w = ctx.saved_tensors
        gx = gy = None
        gw = g * w if w is not None else g
        if ctx.needs_input_grad[0]:
            # PyTorch's floor is 1e-12 rounded to float32 (9.99999996e-13) in every dtype: a saturated
            # float64 input (x(1 - x) < 1e-12) gets torch's gradient only with that value
            gx = gw * (x - y) / (x * (1 - x)).clamp_min(_LOSS_EPSILON)
        if ctx.needs_input_grad[1]:
            # unclamped, as PyTorch's (-logit(x)): +-inf where x is exactly 0 or 1
            gy = gw * ((-x).log1p() - x.log())
        return gx, gy, None


def _check_bce_ranges(input: Tensor, target: Tensor) -> None:
    """PyTorch's per-element checks (NaN fails them): input, then target, in [0, 1]; the first failing
    element names which. One device read when both are in range; the error path reads both back."""
    if not input.numel():
        return
    bad_x = ~((input >= 0) & (input <= 1))
    bad_y = ~((target >= 0) & (target <= 1))
    if not bool((bad_x | bad_y).any()):
        return
    import numpy as np

    bx, by = bad_x.reshape(-1)._host_array(), bad_y.reshape(-1)._host_array()
    first = int(np.argmax(bx | by))
    name = "input" if bx[first] else "target"
    raise RuntimeError(f"binary_cross_entropy: all elements of {name} should be between 0 and 1")


@autocast_float32(devices=("cpu",))  # (cuda autocast refuses it: unsafe_under_cuda_autocast)
def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """Binary cross-entropy of probabilities ``input`` (in [0, 1], checked) and ``target`` (same size);
    ``weight`` broadcasts to the target."""
    _need_tensor("binary_cross_entropy", input=input, target=target)
    unsafe_under_cuda_autocast("binary_cross_entropy", (input, target))
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"binary_cross_entropy: Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same size.")
    _need_floating("binary_cross_entropy", "input", input)
    if target.dtype is not input.dtype:  # PyTorch's kernel takes no other target dtype (an int/bool one included)
        raise RuntimeError(f"binary_cross_entropy: Found dtype {D.torch_name(target.dtype)} but expected "
                           f"{D.torch_name(input.dtype)}")
    if weight is not None:
        _need_tensor("binary_cross_entropy", weight=weight)
        _no_grad_arg("binary_cross_entropy", "weight", weight)
        from ..._broadcast import broadcast_shapes

        try:
            shape = broadcast_shapes(tuple(target.shape), tuple(weight.shape))
        except (RuntimeError, ValueError):
            raise RuntimeError(f"binary_cross_entropy: weight of shape {list(weight.shape)} does not broadcast to "
                               f"the target's shape {list(target.shape)}") from None
        if tuple(shape) != tuple(target.shape):
            raise RuntimeError(f"binary_cross_entropy: weight of shape {list(weight.shape)} does not broadcast to "
                               f"the target's shape {list(target.shape)}")
        weight = weight.expand(shape).to(input.dtype)  # (the loss keeps the input's dtype, as PyTorch's)
    _check_bce_ranges(input, target)
    loss = _BinaryCrossEntropy.apply(input, target, weight)
    return _reduce(loss, reduction)


@autocast_float32
def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """``(1 - y) x - lw * logsigmoid(x)`` with ``lw = 1 + (pos_weight - 1) y``, times ``weight``.

    PyTorch's composition and its in-place steps: ``logsigmoid(x)`` (the input's dtype) is
    multiplied in place by ``lw``; the loss is ``(1 - y).mul_(x).sub_(...)``, so it has the TARGET's
    dtype and shape (an integer target cannot hold it: RuntimeError); ``weight`` multiplies in place.
    Neither ``lw`` nor ``weight`` may broadcast beyond the input's shape."""
    _need_tensor("binary_cross_entropy_with_logits", input=input, target=target)
    reduction = _reduction(size_average, reduce, reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"binary_cross_entropy_with_logits: Target size ({target.shape}) must be the same as input "
                         f"size ({input.shape})")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"log_sigmoid_{input.device.type}" not implemented for '
                                  f"'{D.torch_name(input.dtype)}'")
    for name, t in (("weight", weight), ("pos_weight", pos_weight)):
        if t is not None:
            _need_tensor("binary_cross_entropy_with_logits", **{name: t})
            _no_grad_arg("binary_cross_entropy_with_logits", name, t)
    shape = tuple(input.shape)
    if pos_weight is not None:
        _fits_in_place("binary_cross_entropy_with_logits", shape, pos_weight.shape, target.shape)
    if target.dtype is D.bool:
        raise NotImplementedError("binary_cross_entropy_with_logits: Subtraction, the `-` operator, with two bool "
                                  "tensors is not supported. Use the `^` or `logical_xor()` operator instead.")
    if not target.dtype.is_floating_point:
        raise RuntimeError(f"binary_cross_entropy_with_logits: result type {D.torch_name(input.dtype)} can't be cast "
                           f"to the desired output type {D.torch_name(target.dtype)}")
    if weight is not None:
        _fits_in_place("binary_cross_entropy_with_logits", shape, weight.shape)
    return _reduce(_BinaryCrossEntropyWithLogits.apply(input, target, weight, pos_weight), reduction)


def _fits_in_place(op: str, out_shape: tuple, *shapes) -> None:
    """PyTorch's in-place ops: the operands' broadcast shape must be the output's."""
    from ..._broadcast import broadcast_shapes

    try:
        shape = tuple(broadcast_shapes(out_shape, *(tuple(s) for s in shapes)))
    except (RuntimeError, ValueError) as exc:
        raise RuntimeError(f"{op}: {exc}") from None
    if shape != tuple(out_shape):
        raise RuntimeError(f"{op}: output with shape {list(out_shape)} doesn't match the broadcast shape {list(shape)}")


def _cast(t: Tensor, dtype) -> Tensor:
    """An in-place op's result: computed in the promoted dtype, stored in the output's."""
    return t if t.dtype is dtype else t.to(dtype)


class _BinaryCrossEntropyWithLogits(Function):
    """The elementwise loss (PyTorch's dtypes and roundings, see ``binary_cross_entropy_with_logits``),
    with PyTorch's gradients: ``dx = w (sigmoid(x) - y)`` in the input's dtype (with pos_weight
    ``pw``: ``w ((pw y + 1 - y) sigmoid(x) - pw y)``, in the dtype of ``pw * y``), ``dy = -w x``
    (``w (logsigmoid(-x) - pw logsigmoid(x))``). Differentiating the forward composition instead
    gives NaN at infinite logits."""

    @staticmethod
    def forward(ctx, x, y, w, pw):
        from .activation import logsigmoid

        ctx.save_for_backward(x, y, w, pw)
        log_sig = logsigmoid(x)
        if pw is not None:
            log_sig = _cast(log_sig * ((pw - 1) * y + 1), x.dtype)  # log_sigmoid(x).mul_(lw)
        loss = _cast((1 - y) * x, y.dtype)  # (1 - y).mul_(x)
        loss = _cast(loss - log_sig, y.dtype)  # .sub_(log_sigmoid)
        return _cast(loss * w, y.dtype) if w is not None else loss  # .mul_(weight)

    @staticmethod
    def backward(ctx, g):
        from .activation import logsigmoid

        x, y, w, pw = ctx.saved_tensors
        gx = gy = None
        if ctx.needs_input_grad[0]:
            s = x.sigmoid()
            if pw is not None:
                t = pw * y
                dt = t.dtype
                gx = _cast(_cast(t + 1 - y, dt) * s, dt) - t
            else:
                dt = x.dtype
                gx = _cast(s - y, dt)
            gx = _cast(gx * g, dt)
            if w is not None:
                gx = _cast(gx * w, dt)
            gx = gx.sum_to_size(*x.shape) if tuple(gx.shape) != tuple(x.shape) else gx
        if ctx.needs_input_grad[1]:
            gy = (logsigmoid(-x) - _cast(logsigmoid(x) * pw, x.dtype) if pw is not None else -x) * g
            if w is not None:
                gy = gy * w
            gy = gy.sum_to_size(*y.shape) if tuple(gy.shape) != tuple(y.shape) else gy
        return gx, gy, None, None


# ----------------------------------------------------------------------------------------------
# kl_div, poisson_nll_loss, gaussian_nll_loss
# ----------------------------------------------------------------------------------------------


@autocast_float32
def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """Pointwise ``xlogy(target, target) - target * input`` (0 where target is 0), or with
    ``log_target`` ``exp(target) * (target - input)``; 'batchmean' divides the sum by ``input.size(0)``.

    PyTorch's rule with the deprecated ``size_average``/``reduce``: they pick the reduction, and a
    ``reduction='batchmean'`` passed alongside still divides that result by ``input.size(0)``.
    The target's gradient is ``xlogy``'s (PyTorch's): NaN where the target is 0 (``0 / 0``)."""
    _need_tensor("kl_div", input=input, target=target)
    if size_average is not None or reduce is not None:
        applied = _legacy_reduction(size_average, reduce)
    else:
        if reduction == "mean":
            warnings.warn(
                "reduction: 'mean' divides the total loss by both the batch size and the support size."
                "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                stacklevel=2,
            )
        # 'batchmean' is kl_div's own; the rest go through the shared check, which also takes
        # the deprecated 'elementwise_mean' as 'mean' (PyTorch's _Reduction.get_enum does)
        applied = "sum" if reduction == "batchmean" else _reduction(None, None, reduction)
    loss = kl_div_reduced(input, target, applied, log_target)
    if reduction == "batchmean" and input.ndim != 0:
        loss = loss / input.shape[0]
    return loss


def kl_div_reduced(input: Tensor, target: Tensor, reduction: str, log_target: bool) -> Tensor:
    """kl_div's pointwise loss reduced by 'none', 'mean' or 'sum' (ATen's ``kl_div``, which
    ``tensorlab.kl_div`` calls without ``nn.functional``'s warning about 'mean')."""
    from ...ops.elementwise_binary import xlogy

    for t in (input, target):
        if not t.dtype.is_floating_point:
            raise RuntimeError("kl_div: Integral inputs not supported.")
    a, b = _broadcast("kl_div", input, target)
    loss = b.exp() * (b - a) if log_target else xlogy(b, b) - b * a
    return _reduce(loss, reduction)


@autocast_float32
def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """``exp(input) - target * input`` (``log_input``) or ``input - target * log(input + eps)``; with
    ``full`` the Stirling term ``t log t - t + 0.5 log(2 pi t)`` is added except where ``target <= 1``."""
    from ...ops.elementwise_binary import where

    _need_tensor("poisson_nll_loss", input=input, target=target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    if reduction not in _REDUCTIONS:
        # PyTorch checks the string itself here, so the deprecated 'elementwise_mean' is refused
        raise ValueError(f"{reduction} is not a valid value for reduction")
    a, b = _broadcast("poisson_nll_loss", input, target)
    if log_input:
        loss = a.exp() - b * a
    else:
        loss = a - b * (a + eps).log()
    if full:
        # PyTorch's composition: the term of every target, masked where target <= 1 (so the target's
        # gradient there is 0 * log(t) etc.: 0 for 0 < t <= 1, NaN for t <= 0, as PyTorch's)
        stirling = b * b.log() - b + (b * (2 * math.pi)).log() * 0.5
        loss = loss + where(b <= 1, 0.0, stirling)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """``0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps))`` (+ ``0.5 log(2 pi)`` with ``full``).

    ``var``: a tensor of the input's size (heteroscedastic), one dim short of it, or broadcastable
    with exactly one mismatched size-1 dim (homoscedastic), or a non-negative number. The clamp is
    done without grad, as PyTorch does: the gradient flows to ``var`` as if unclamped."""
    from ..._factories import ones_like

    _need_tensor("gaussian_nll_loss", input=input, target=target)
    if isinstance(var, int | float) and not isinstance(var, bool):
        if var < 0:
            raise ValueError("gaussian_nll_loss: var has negative entry/entries")
        var = ones_like(input) * float(var)
    else:
        _need_tensor("gaussian_nll_loss", var=var)
        if var.numel() and bool((var < 0).any()):
            raise ValueError("gaussian_nll_loss: var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError(f"gaussian_nll_loss: var is of incorrect size: var {list(var.shape)} for input "
                             f"{list(input.shape)}")
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not valid")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = (var.log() + (input - target).square() / var) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# ----------------------------------------------------------------------------------------------
# embedding / ranking losses
# ----------------------------------------------------------------------------------------------


@autocast_float32
def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos - margin)`` where ``target == -1``, with
    ``cos = sum(x1 x2) / sqrt((sum(x1^2) + eps) (sum(x2^2) + eps))`` with PyTorch's EPSILON, 1e-12 rounded to
    float32."""
    from ...ops.elementwise_binary import where

    _need_tensor("cosine_embedding_loss", input1=input1, input2=input2, target=target)
    reduction = _reduction(size_average, reduce, reduction)
    targ_dim = target.ndim
    if targ_dim not in (0, 1):
        raise RuntimeError(f"cosine_embedding_loss: 0D or 1D target tensor expected, multi-target not supported "
                           f"(got target of shape {list(target.shape)})")
    if targ_dim == 1 and not (input1.ndim == 2 and input2.ndim == 2):
        raise RuntimeError(f"cosine_embedding_loss: 1D target tensor expects 2D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    if targ_dim == 0 and not (input1.ndim == 1 and input2.ndim == 1):
        raise RuntimeError(f"cosine_embedding_loss: 0D target tensor expects 1D input tensors, but found inputs with "
                           f"sizes {list(input1.shape)} and {list(input2.shape)}.")
    eps = _LOSS_EPSILON  # (torch's 1e-12 is a float32 constant: small float64 vectors see the rounding)
    prod_sum = (input1 * input2).sum(targ_dim)
    mag1 = (input1 * input1).sum(targ_dim) + eps
    mag2 = (input2 * input2).sum(targ_dim) + eps
    cos = prod_sum / (mag1 * mag2).sqrt()
    pos = 1 - cos
    neg = (cos - margin).clamp_min(0)
    loss = where(target == 1, pos, 0.0) + where(target == -1, neg, 0.0)
    return _reduce(loss, reduction)


@autocast_float32
def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``."""
    _need_tensor("margin_ranking_loss", input1=input1, input2=input2, target=target)
    reduction = _reduction(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    # PyTorch's margin is a double: integer operands give a floating (default dtype) loss
    loss = (-target * (input1 - input2) + float(margin)).clamp_min(0)
    return _reduce(loss, reduction)


def _pairwise_distance(x1: Tensor, x2: Tensor, p: float, eps: float) -> Tensor:
    """``||x1 - x2 + eps||_p`` over the last dim (PyTorch's ``pairwise_distance``)."""
    diff = x1 - x2 + eps
    if diff.ndim == 0:
        return diff.abs()
    return diff.norm(p, diff.ndim - 1)


@autocast_float32
def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the pairwise p-norm distance; with ``swap``
    ``d(a, n)`` becomes ``min(d(a, n), d(p, n))``."""
    from ...ops.elementwise_binary import minimum

    _need_tensor("triplet_margin_loss", anchor=anchor, positive=positive, negative=negative)
    reduction = _reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"triplet_margin_loss: margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"triplet_margin_loss: The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, "
                           f"and negative {negative.ndim}D inputs")
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = minimum(d_neg, _pairwise_distance(positive, negative, p, eps))
    loss = (d_pos - d_neg + margin).clamp_min(0)
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function=None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """``max(0, margin + d(a, p) - d(a, n))`` with any ``distance_function(x1, x2)`` (default
    ``pairwise_distance``); with ``swap`` ``d(a, n)`` becomes ``min(d(a, n), d(p, n))``. PyTorch's
    Python composition, so gradients flow through whatever the distance function computes."""
    from ...ops.elementwise_binary import minimum
    from .layers import pairwise_distance

    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _need_tensor("triplet_margin_with_distance_loss", anchor=anchor, positive=positive, negative=negative)
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = minimum(dist_neg, distance_function(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    return _reduce(loss, reduction)


@autocast_float32
def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target == -1``; PyTorch's
    composition, so any other target value gets both terms. The result has the broadcast shape and
    the input's dtype (``margin`` is filled into the input's dtype first: truncated for integers)."""
    from ..._factories import full_like, zeros_like
    from ...ops.elementwise_binary import where

    _need_tensor("hinge_embedding_loss", input=input, target=target)
    reduction = _reduction(size_average, reduce, reduction)
    zeros = zeros_like(input)
    margin_clamp = (full_like(input, margin) - input).clamp_min(0)
    output_margin = where(target != 1, margin_clamp, zeros)
    output_self = where(target != -1, input, zeros)
    return _reduce(output_margin + output_self, reduction)


@autocast_float32
def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """``log(1 + exp(-target * input))`` in the input's dtype and shape (``target`` broadcasts to the
    input, not the other way: PyTorch computes in place into an input-shaped result). Not
    differentiable with respect to ``target``, as in PyTorch."""
    _need_tensor("soft_margin_loss", input=input, target=target)
    reduction = _reduction(size_average, reduce, reduction)
    _no_grad_arg("soft_margin_loss", "target", target)
    dt = D.promote_types(input.dtype, target.dtype)
    if not input.dtype.is_floating_point or not dt.is_floating_point:
        raise RuntimeError(f"soft_margin_loss: result type {D.torch_name(dt if dt.is_floating_point else D.float32)} "
                           f"can't be cast to the desired output type {D.torch_name(input.dtype)}")
    from ..._broadcast import broadcast_shapes

    try:
        shape = tuple(broadcast_shapes(tuple(input.shape), tuple(target.shape)))
    except (RuntimeError, ValueError) as exc:
        raise RuntimeError(f"soft_margin_loss: the shapes {list(input.shape)} and {list(target.shape)} cannot be "
                           f"broadcast together ({exc})") from None
    if shape != tuple(input.shape):
        raise RuntimeError(f"soft_margin_loss: output with shape {list(input.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}")
    z = (-input) * target  # in the promoted dtype, rounded into the input's (PyTorch's in-place mul_)
    if z.dtype is not input.dtype:
        z = z.to(input.dtype)
    return _reduce(z.exp().log1p(), reduction)


def _margin_frames(op: str, input: Tensor) -> tuple[int, int]:
    """(nframe, dim) of a multi(label) margin loss input: (C), (N, C) or a 0-D input of one class."""
    ndims = input.ndim
    if not ((ndims == 2 and input.shape[1] != 0) or (ndims == 1 and input.shape[0] != 0) or ndims == 0):
        raise RuntimeError(f"{op}: Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    if ndims <= 1:
        return 1, (1 if ndims == 0 else input.shape[0])
    return input.shape[0], input.shape[1]


def _margin_dtypes(op: str, input: Tensor, target: Tensor) -> None:
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{op}_{input.device.type}" not implemented for \'{D.torch_name(input.dtype)}\'')
    if target.dtype is not D.int64:
        raise RuntimeError(f"{op}: expected scalar type Long but found {D.torch_name(target.dtype)} (target)")


@autocast_float32
def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """Multi-class hinge loss per sample: ``sum_{i != y} w_y max(0, margin - x_y + x_i)^p / C``
    (p = 1 or 2), for input (C) or (N, C) and class indices (int64) ``target`` () or (N).

    Composed from gather/where (the gradient is 0 where ``margin - x_y + x_i == 0``, and a NaN
    term is skipped, as PyTorch's kernel's strict ``> 0``); not differentiable with respect to ``weight``. PyTorch's
    cpu kernel also refuses float16/bfloat16 (its cuda kernel takes them); here they work on both."""
    from ..._factories import arange
    from ...ops.elementwise_binary import where

    _need_tensor("multi_margin_loss", input=input, target=target)
    reduction = _reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None:
        _need_tensor("multi_margin_loss", weight=weight)
        if weight.ndim != 1:
            raise ValueError("weight must be one-dimensional")
        _no_grad_arg("multi_margin_loss", "weight", weight)
    nframe, dim = _margin_frames("multi_margin_loss", input)
    if not (target.ndim <= 1 and target.numel() == nframe):
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{nframe}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    if weight is not None and weight.numel() != dim:
        raise RuntimeError(f"multi_margin_loss: inconsistent weight size, expected {dim} but got {list(weight.shape)}")
    _margin_dtypes("multi_margin_loss", input, target)
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"multi_margin_loss: expected scalar type {D.torch_name(input.dtype)} but found "
                           f"{D.torch_name(weight.dtype)} (weight)")
    t = target.reshape(nframe)
    if nframe and bool(((t < 0) | (t >= dim)).any()):
        raise RuntimeError(f"multi_margin_loss: target out of range (expected class indices in [0, {dim}))")
    x = input.reshape(nframe, dim)
    t1 = t.unsqueeze(1)
    z = (margin - x.gather(1, t1)) + x  # PyTorch's order: margin - x_y + x_i
    h = where(z > 0, z, 0.0)  # PyTorch's kernel adds a term when z > 0: a NaN one is skipped
    if p == 2:
        h = h * h
    if weight is not None:
        h = h * weight.take(t1)
    h = where(arange(dim, device=input.device) != t1, h, 0.0)
    loss = h.sum(1) / dim
    if reduction == "none":
        return loss if target.ndim > 0 else loss.reshape(())
    return _reduce(loss, reduction)


@autocast_float32
def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """Multi-label hinge loss: ``sum_{j, i not a target} max(0, 1 - (x[y_j] - x[i])) / C`` per sample,
    where the targets ``y`` (int64, the input's shape) are the class indices before the first -1.

    Composed from gather/scatter_add/where over an (N, C, C) block (PyTorch's kernel loops over
    the same C * C pairs); a class listed twice counts twice, as in PyTorch."""
    from ..._factories import zeros
    from ...ops.elementwise_binary import where

    _need_tensor("multilabel_margin_loss", input=input, target=target)
    reduction = _reduction(size_average, reduce, reduction)
    nframe, dim = _margin_frames("multilabel_margin_loss", input)
    ok = (target.ndim <= 1 and target.numel() == dim) if input.ndim <= 1 else (
        target.ndim == 2 and tuple(target.shape) == (nframe, dim))
    if not ok:
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    _margin_dtypes("multilabel_margin_loss", input, target)
    t = target.reshape(nframe, dim)
    valid = (t < 0).to(D.int64).cumsum(1) == 0  # the targets before the first negative entry
    if t.numel() and bool(((t < -1) | (t >= dim)).any()):  # PyTorch checks every entry, padding included
        raise RuntimeError(f"multilabel_margin_loss: argument #2 'target' is out of range (expected class indices in "
                           f"[0, {dim}) followed by -1 padding)")
    t_safe = where(valid, t, 0)
    x = input.reshape(nframe, dim)
    is_target = zeros((nframe, dim), dtype=D.int64, device=input.device).scatter_add(1, t_safe, valid.to(D.int64)) > 0
    z = (1 - x.gather(1, t_safe)).unsqueeze(2) + x.unsqueeze(1)  # (N, j, i): 1 - x[y_j] + x[i]
    pairs = valid.unsqueeze(2) & (~is_target).unsqueeze(1)
    loss = where(pairs & (z > 0), z, 0.0).sum((1, 2)) / dim  # a NaN term is skipped, as PyTorch's z > 0 test
    if reduction == "none":
        return loss if target.ndim == 2 else loss.reshape(())
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """``-mean_c w_c (y_c log sigmoid(x_c) + (1 - y_c) log sigmoid(-x_c))`` per sample (the last dim
    is the class dim); PyTorch's Python composition, differentiable in input, target and weight."""
    from .activation import logsigmoid

    _need_tensor("multilabel_soft_margin_loss", input=input, target=target)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    if class_dim < 0:
        raise IndexError("multilabel_soft_margin_loss: Dimension specified as -1 but tensor has no dimensions")
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


__all__ = [
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "cross_entropy",
    "gaussian_nll_loss", "hinge_embedding_loss", "huber_loss", "kl_div", "l1_loss", "margin_ranking_loss",
    "mse_loss", "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss", "nll_loss",
    "poisson_nll_loss", "smooth_l1_loss", "soft_margin_loss", "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]
