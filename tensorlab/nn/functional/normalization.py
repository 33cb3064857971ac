"""nn.functional normalisations: ``layer_norm``, ``rms_norm``, ``group_norm``, ``batch_norm``,
``instance_norm``.

``layer_norm`` and ``rms_norm`` are registered ops on the fused Triton kernels of
``tensorlab_kernels.nn.layer_norm`` (one pass per row, fp32 statistics, a deterministic
two-stage reduction for the weight/bias gradients). Their backward rules call the fused
backward ops; when the graph of the backward is itself being recorded (``create_graph=True``,
for double backward) they instead compose the same formulas from registered ops (mean,
rsqrt, mul, ...), which are differentiable, so ``gradgradcheck`` passes.

``group_norm`` reshapes to (N, groups, -1) and runs the fused layer-norm op without affine,
then applies the per-channel affine. ``batch_norm`` is a composition of registered ops
(``var_mean`` over every dim but the channel dim, then the affine); in training its gradient is
PyTorch's fused backward on ``x - mean`` (a custom Function, itself differentiable), as
differentiating the composition underflows and cancels at large magnitudes. The running statistics
are updated in place under ``no_grad`` with PyTorch's formulas (momentum, unbiased variance).
``instance_norm`` is PyTorch's composition: ``batch_norm`` of the input seen as one sample of
N * C channels, with the per-channel tensors repeated N times.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from tensorlab_kernels.nn import layer_norm as kln

from ... import _dtype as D
from ..._dispatch import dispatch
from ..._registry import Plan, defop
from ..._tensor import Tensor
from ...amp.autocast_mode import autocast_float32, autocast_op
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled, no_grad

# ----------------------------------------------------------------------------------------------
# layer_norm / rms_norm ops
# ----------------------------------------------------------------------------------------------


def _acc_dtype(x: Tensor) -> D.dtype:
    return D.float64 if x.dtype is D.float64 else D.float32


def _n_rows(x: Tensor, norm_ndim: int) -> int:
    return math.prod(x._shape[:x.ndim - norm_ndim])


def _layer_norm_meta(x, weight, bias, *, norm_ndim: int, eps: float) -> Plan:
    acc = _acc_dtype(x)
    rows = (_n_rows(x, norm_ndim),)
    return Plan(args=[x, weight, bias], outputs=[(x._shape, x.dtype), (rows, acc), (rows, acc)],
                params={"norm_ndim": norm_ndim, "eps": eps}, single=False)


def _rms_norm_meta(x, weight, *, norm_ndim: int, eps: float) -> Plan:
    rows = (_n_rows(x, norm_ndim),)
    return Plan(args=[x, weight], outputs=[(x._shape, x.dtype), (rows, _acc_dtype(x))],
                params={"norm_ndim": norm_ndim, "eps": eps}, single=False)


def _save_norm(ctx, inputs, outputs, params):
    """Save x, weight and the statistics; the statistics are not differentiable outputs."""
    ctx.save_for_backward(inputs[0], inputs[1], *outputs[1:])
    ctx.mark_non_differentiable(*outputs[1:])
    ctx.set_materialize_grads(False)


def _lead_sum(t: Tensor, norm_ndim: int) -> Tensor:
    lead = list(range(t.ndim - norm_ndim))
    return t.sum(dim=lead) if lead else t


def _composite_backward(gy, x, weight, norm_ndim: int, eps: float, rms: bool, needs: tuple) -> tuple:
    """The backward formulas from registered (differentiable) ops, for double backward."""
    dims = list(range(x.ndim - norm_ndim, x.ndim))
    acc = _acc_dtype(x)
    xf = x if x.dtype is acc else x.to(acc)
    g = gy if gy.dtype is acc else gy.to(acc)
    if rms:
        rstd = ((xf * xf).mean(dim=dims, keepdim=True) + eps).rsqrt()
        xhat = xf * rstd
    else:
        xc = xf - xf.mean(dim=dims, keepdim=True)
        rstd = ((xc * xc).mean(dim=dims, keepdim=True) + eps).rsqrt()
        xhat = xc * rstd
    dx = dw = db = None
    if needs[0]:
        gw = g * (weight if weight.dtype is acc else weight.to(acc)) if weight is not None else g
        d = gw - xhat * (gw * xhat).mean(dim=dims, keepdim=True)
        if not rms:
            d = d - gw.mean(dim=dims, keepdim=True)
        dx = (d * rstd).to(x.dtype)
    if len(needs) > 1 and needs[1]:
        dw = _lead_sum(g * xhat, norm_ndim).to(weight.dtype)
    if len(needs) > 2 and needs[2]:
        db = _lead_sum(g, norm_ndim)
    return dx, dw, db


def _layer_norm_backward(ctx, gy, *_stats):
    x, weight, mean, rstd = ctx.saved_tensors
    p = ctx.params
    needs = tuple(ctx.needs_input_grad)
    if gy is None or not any(needs):
        return None, None, None
    if is_grad_enabled():  # create_graph=True: a differentiable backward
        dx, dw, db = _composite_backward(gy, x, weight, p["norm_ndim"], p["eps"], False, needs)
        if db is not None:
            db = db.to(ctx.inputs[2].dtype)
        return dx, dw, db
    which = (needs[0], needs[1], needs[2])
    outs = iter(dispatch(LAYER_NORM_BACKWARD, gy, x, weight, mean, rstd, norm_ndim=p["norm_ndim"], which=which))
    return tuple(next(outs) if w else None for w in which)


def _layer_norm_backward_meta(gy, x, weight, mean, rstd, *, norm_ndim: int, which: tuple) -> Plan:
    outputs = [(x._shape, x.dtype)] if which[0] else []
    if which[1]:
        outputs.append((weight._shape, weight.dtype))
    if which[2]:
        outputs.append((x._shape[x.ndim - norm_ndim:], x.dtype if weight is None else weight.dtype))
    return Plan(args=[gy, x, weight, mean, rstd], outputs=outputs, params={"norm_ndim": norm_ndim, "which": which},
                single=False)


def _rms_norm_backward(ctx, gy, *_stats):
    x, weight, rstd = ctx.saved_tensors
    p = ctx.params
    needs = tuple(ctx.needs_input_grad)
    if gy is None or not any(needs):
        return None, None
    if is_grad_enabled():
        dx, dw, _ = _composite_backward(gy, x, weight, p["norm_ndim"], p["eps"], True, needs)
        return dx, dw
    which = (needs[0], needs[1])
    outs = iter(dispatch(RMS_NORM_BACKWARD, gy, x, weight, rstd, norm_ndim=p["norm_ndim"], which=which))
    return tuple(next(outs) if w else None for w in which)


def _rms_norm_backward_meta(gy, x, weight, rstd, *, norm_ndim: int, which: tuple) -> Plan:
    outputs = [(x._shape, x.dtype)] if which[0] else []
    if which[1]:
        outputs.append((weight._shape, weight.dtype))
    return Plan(args=[gy, x, weight, rstd], outputs=outputs, params={"norm_ndim": norm_ndim, "which": which},
                single=False)


LAYER_NORM = defop("layer_norm", twin=kln.layer_norm_twin, kernel=kln.layer_norm, meta=_layer_norm_meta,
                   backward=_layer_norm_backward, save=_save_norm, tags={"nn", "normalization"},
                   doc="(x - mean) / sqrt(var + eps) * weight + bias over the trailing dims; also returns the "
                       "per-row mean and rstd (fp32) it saves for the backward.")
LAYER_NORM_BACKWARD = defop("layer_norm_backward", twin=kln.layer_norm_backward_twin, kernel=kln.layer_norm_backward,
                            meta=_layer_norm_backward_meta, tags={"nn", "normalization"},
                            doc="Fused LayerNorm backward: dx per row, dweight/dbias as deterministic two-stage "
                                "sums. Not differentiable itself: layer_norm's backward composes registered ops "
                                "instead when create_graph=True.")
RMS_NORM = defop("rms_norm", twin=kln.rms_norm_twin, kernel=kln.rms_norm, meta=_rms_norm_meta,
                 backward=_rms_norm_backward, save=_save_norm, tags={"nn", "normalization"},
                 doc="x / sqrt(mean(x^2) + eps) * weight over the trailing dims; also returns the per-row rstd.")
RMS_NORM_BACKWARD = defop("rms_norm_backward", twin=kln.rms_norm_backward_twin, kernel=kln.rms_norm_backward,
                          meta=_rms_norm_backward_meta, tags={"nn", "normalization"},
                          doc="Fused RMSNorm backward (dx, dweight); see layer_norm_backward.")


# ----------------------------------------------------------------------------------------------
# argument checks
# ----------------------------------------------------------------------------------------------


def _shape_tuple(normalized_shape) -> tuple:
    if isinstance(normalized_shape, numbers.Integral):
        return (int(normalized_shape),)
    return tuple(int(s) for s in normalized_shape)


def _check_norm_args(op: str, input, normalized_shape, weight, bias, star: str) -> tuple:
    if not isinstance(input, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    shape = _shape_tuple(normalized_shape)
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    k = len(shape)
    if input.ndim < k or tuple(input._shape[input.ndim - k:]) != shape:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [{star}"
                           f"{', '.join(str(s) for s in shape)}], but got input of size{list(input._shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is None:
            continue
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(t).__name__}")
        if tuple(t._shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t._shape)} and normalized_shape = {list(shape)}")
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"{op}(): expected a floating point {name}, got {t.dtype}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"{op}(): not implemented for '{input.dtype}' (a floating point input is needed)")
    return shape


def _check_param_dtypes(op: str, input: Tensor, **params) -> None:
    """PyTorch's mixed-dtype rule of its norm kernels: the parameters (and running statistics) have
    the input's dtype, or are float32 with a float16/bfloat16 input (a float64 input with float32
    weights computed silently, in whichever dtype the arithmetic promoted to)."""
    given = [(name, t) for name, t in params.items() if isinstance(t, Tensor)]
    for name, t in given:
        low_with_float32 = input.dtype in (D.float16, D.bfloat16) and t.dtype is D.float32
        if t.dtype is not input.dtype and not low_with_float32:
            raise RuntimeError(f"{op}: mixed dtype: input is {input.dtype.name} but {name} is {t.dtype.name} (all "
                               "inputs must share the same dtype, or be float32 with a float16/bfloat16 input)")
    if len({t.dtype for _, t in given}) > 1:
        raise RuntimeError(f"{op}: mixed dtype: the parameters must share one dtype, got "
                           + ", ".join(f"{name} {t.dtype.name}" for name, t in given))


# ----------------------------------------------------------------------------------------------
# public functions
# ----------------------------------------------------------------------------------------------


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Layer normalisation over the trailing ``normalized_shape`` dims (biased variance)."""
    shape = _check_norm_args("layer_norm", input, normalized_shape, weight, bias, "*, ")
    _check_param_dtypes("layer_norm", input, weight=weight, bias=bias)
    return dispatch(LAYER_NORM, input, weight, bias, norm_ndim=len(shape), eps=float(eps))[0]


@autocast_op("rms_norm")
def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """Root-mean-square normalisation over the trailing dims. ``eps=None`` is the machine epsilon of the
    computation type (fp32, or fp64 for fp64 inputs), as PyTorch."""
    shape = _check_norm_args("rms_norm", input, normalized_shape, weight, None, "*")
    if eps is None:
        eps = float(np.finfo(np.float64 if input.dtype is D.float64 else np.float32).eps)
    return dispatch(RMS_NORM, input, weight, norm_ndim=len(shape), eps=float(eps))[0]


def _channel_shape(input: Tensor) -> list:
    return [1, input._shape[1]] + [1] * (input.ndim - 2)


@autocast_float32(devices=("cuda",))
def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each of ``num_groups`` channel groups per sample (channels are dim 1), then the
    per-channel affine."""
    if not isinstance(input, Tensor):
        raise TypeError(f"group_norm(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, c = input._shape[0], input._shape[1]
    if isinstance(num_groups, int) and num_groups > 0 and n * c // num_groups * math.prod(input._shape[2:]) == 1:
        # PyTorch's F.group_norm checks this (training or not): each group would be one value
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(input._shape)}")
    if c == 0:  # (PyTorch 2.15's checks, whatever the batch size)
        raise RuntimeError("group_norm: Expected number of channels to be greater than 0, got 0")
    if 0 in input._shape[2:]:
        raise RuntimeError(f"group_norm: Expected HxW to be greater than 0, got 0 (input shape {list(input._shape)})")
    if num_groups <= 0 or c % num_groups != 0:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input._shape)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.numel() != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, "
                               f"but got {name} of shape {list(t._shape)} and input of shape {list(input._shape)}")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"group_norm(): not implemented for '{input.dtype}'")
    _check_param_dtypes("group_norm", input, weight=weight, bias=bias)
    # the group size spelled out: reshape(n, num_groups, -1) cannot infer it when n is 0
    grouped = input.reshape(n, num_groups, c // num_groups * math.prod(input._shape[2:]))
    if weight is not None or bias is not None:
        # the per-channel affine in float32 on the float32 normalised values, rounded once at the end,
        # as PyTorch's kernel (float16/bfloat16 rounded the normalised values, then each affine step)
        grouped = grouped.to(_acc_dtype(input))
    y = dispatch(LAYER_NORM, grouped, None, None, norm_ndim=1, eps=float(eps))[0].reshape(input._shape)
    if weight is not None:
        y = y * weight.reshape(_channel_shape(input))
    if bias is not None:
        y = y + bias.reshape(_channel_shape(input))
    # the input's dtype, as layer_norm and PyTorch (float16/bfloat16 input with float32 weight and bias:
    # a float16/bfloat16 result), not the affine's promoted one
    return y if y.dtype is input.dtype else y.to(input.dtype)


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Tensor:
    """Batch normalisation over every dim but the channel dim (1).

    Training: normalise with the batch statistics (biased variance) and, when given, update
    ``running_mean = (1 - momentum) * running_mean + momentum * mean`` and ``running_var`` the same
    way with the unbiased variance, in place. Evaluation: normalise with the running statistics.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"batch_norm(): argument 'input' must be Tensor, not {type(input).__name__}")
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected at least 2D input (got {input.ndim}D input)")
    c = input._shape[1]
    if training and c and input.numel() // c == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size {list(input._shape)}")
    if training and not eps > 0:  # (PyTorch's checks, in its order)
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    if not eps >= 0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    if (running_mean is None) != (running_var is None):  # (one alone would be updated without the other)
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if isinstance(t, Tensor) and not t.dtype.is_floating_point:  # (integer statistics would truncate)
            raise RuntimeError(f"batch_norm: expected {name} to have a floating point dtype, got "
                               f"{D.torch_name(t.dtype)}")
    if input.dtype.is_floating_point:
        _check_param_dtypes("batch_norm", input, running_mean=running_mean, running_var=running_var, weight=weight,
                            bias=bias)
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None,
                bias: Tensor | None, training: bool, momentum: float, eps: float) -> Tensor:
    """:func:`batch_norm` after its checks of ``eps`` (``instance_norm`` comes here: PyTorch's
    instance_norm takes any eps; with eps 0 a constant channel normalises to 0, not NaN)."""
    c = input._shape[1]
    count = input.numel() // c if c else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        which = "running_mean" if running_mean is None else "running_var"
        raise RuntimeError(f"{which} must be defined in evaluation mode")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"batch_norm(): not implemented for '{input.dtype}'")
    cshape = _channel_shape(input)
    if training and count == 0:
        # an empty batch: an empty result (through weight and bias, whose gradients are then zeros),
        # the running statistics untouched, as PyTorch's
        out = input * (1 if weight is None else weight.reshape(cshape))
        return out if bias is None else out + bias.reshape(cshape)
    acc = _acc_dtype(input)
    if training:
        dims = [0] + list(range(2, input.ndim))
        with no_grad():
            xf = input if input.dtype is acc else input.to(acc)
            var, mean = xf.var_mean(dim=dims, correction=0)
            if running_mean is not None:
                running_mean.copy_(running_mean * (1.0 - momentum) + mean.to(running_mean.dtype) * momentum)
            if running_var is not None:
                unbiased = var * (count / (count - 1))
                running_var.copy_(running_var * (1.0 - momentum) + unbiased.to(running_var.dtype) * momentum)
        return _BatchNormTrain.apply(input, weight, bias, mean, _invstd(var, eps), eps, xf)
    xf = input if input.dtype is acc else input.to(acc)
    y = _bn_affine(xf, running_mean.to(acc), (running_var.to(acc) + eps).rsqrt(), weight, bias)
    return y if y.dtype is input.dtype else y.to(input.dtype)


def _invstd(var: Tensor, eps: float) -> Tensor:
    if eps == 0:  # PyTorch's InvStd: 0 for a zero variance with no eps (else inf, then NaN)
        from ...ops.elementwise_binary import where

        return where(var == 0, 0.0, var.rsqrt())
    return (var + eps).rsqrt()


def _bn_affine(xf: Tensor, mean: Tensor, invstd: Tensor, weight: Tensor | None, bias: Tensor | None) -> Tensor:
    """PyTorch's training forward: ``x * alpha + beta``, ``alpha = invstd * w``, ``beta = b - mean * alpha``."""
    acc = xf.dtype
    cshape = _channel_shape(xf)
    scale = invstd if weight is None else invstd * weight.to(acc)
    shift = -mean * scale
    if bias is not None:
        shift = shift + bias.to(acc)
    return xf * scale.reshape(cshape) + shift.reshape(cshape)


class _BatchNormTrain(Function):
    """Batch normalisation with the batch statistics (``mean``, ``invstd``: computed by the caller,
    without history) and PyTorch's fused backward, built on ``x - mean``: with ``dotp = sum((x - mean) g)``,
    ``dx = (g - mean(g) - (x - mean) * dotp * invstd**2 / n) * (invstd * w)``, ``dw = dotp * invstd``,
    ``db = sum(g)``. Differentiating the forward composition instead (``x * scale + shift`` through
    rsqrt and var_mean) underflows and cancels at large magnitudes (1e15 fp32: most of dx wrong).

    The backward is itself made of registered ops; under ``create_graph=True`` it recomputes the
    statistics from ``x`` differentiably, so double backward goes through them too."""

    @staticmethod
    def forward(ctx, input, weight, bias, mean, invstd, eps, xf):
        # xf: ``input`` in the accumulation dtype, as the caller cast it for the statistics (not twice)
        ctx.save_for_backward(input, weight, mean, invstd)
        ctx.eps, ctx.bias_dtype = eps, None if bias is None else bias.dtype
        y = _bn_affine(xf, mean, invstd, weight, bias)
        return y if y.dtype is input.dtype else y.to(input.dtype)

    @staticmethod
    def backward(ctx, gy):
        x, weight, mean, invstd = ctx.saved_tensors
        needs = ctx.needs_input_grad
        acc = mean.dtype
        dims = [0] + list(range(2, x.ndim))
        cshape = _channel_shape(x)
        n = x.numel() // x._shape[1]
        xf = x if x.dtype is acc else x.to(acc)
        if is_grad_enabled():  # create_graph=True: the statistics as functions of x, for double backward
            var, mean = xf.var_mean(dim=dims, correction=0)
            invstd = _invstd(var, ctx.eps)
        g = gy if gy.dtype is acc else gy.to(acc)
        xc = xf - mean.reshape(cshape)
        sum_dy = g.sum(dim=dims)
        dotp = (xc * g).sum(dim=dims)
        dx = dw = db = None
        if needs[0]:
            # PyTorch's order: ((dotp * invstd) * invstd) / n stays in range where invstd**2 would not
            k = dotp * invstd * invstd / n
            grad_scale = invstd if weight is None else invstd * weight.to(acc)
            dx = (g - (sum_dy / n).reshape(cshape) - xc * k.reshape(cshape)) * grad_scale.reshape(cshape)
            dx = dx if dx.dtype is x.dtype else dx.to(x.dtype)
        if needs[1]:
            dw = (dotp * invstd).to(weight.dtype)
        if needs[2]:
            db = sum_dy.to(ctx.bias_dtype)
        return dx, dw, db, None, None, None, None


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel of each sample (N, C, *) over its spatial dims, then the per-channel affine.

    ``use_input_stats``: the sample's statistics (biased variance); given running statistics then
    move by ``momentum`` towards the batch average of the per-sample mean and unbiased variance, in
    place. Otherwise the running statistics normalise.
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"instance_norm(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if isinstance(momentum, bool) or not isinstance(momentum, numbers.Real):
        raise TypeError(f"instance_norm(): argument 'momentum' (position 7) must be float, not "
                        f"{type(momentum).__name__}")
    if use_input_stats and math.prod(input._shape[2:]) == 1:  # (also a 0-d, 1-d or (N, C) input)
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(input._shape)}")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    if input.ndim < 2:
        raise IndexError(f"instance_norm: expected an input of shape (N, C, *), got shape {list(input._shape)}")
    b, c = input._shape[0], input._shape[1]
    if input.dtype.is_floating_point:
        _check_param_dtypes("instance_norm", input, running_mean=running_mean, running_var=running_var,
                            weight=weight, bias=bias)

    def repeat(t):
        return None if t is None else t.repeat(b)

    # one sample of b * c channels: batch_norm's statistics over the spatial dims are per instance
    running_mean_, running_var_ = repeat(running_mean), repeat(running_var)
    out = _batch_norm(input.reshape(1, b * c, *input._shape[2:]), running_mean_, running_var_, repeat(weight),
                      repeat(bias), use_input_stats, momentum, eps)
    if use_input_stats and input.numel() > 0:
        # Only when they moved. PyTorch copies the statistics back whenever they are given: when it only
        # read them, the average of b copies (which can move them by an ulp), and for an empty batch
        # (b = 0) the average of nothing, NaN; here they stay as they were then.
        with no_grad():
            for running, repeated in ((running_mean, running_mean_), (running_var, running_var_)):
                if running is not None:
                    running.copy_(repeated.view(b, c).mean(0))
    return out.view(input._shape)


__all__ = ["batch_norm", "group_norm", "instance_norm", "layer_norm", "rms_norm"]
