"""Gradient clipping: ``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm``, ``clip_grads_with_norm_``.

As in PyTorch, the total norm stays on the device and the gradients are always scaled by
``min(max_norm / (total_norm + 1e-6), 1)`` read in-kernel, so clipping costs no host
synchronisation (``error_if_nonfinite=True`` reads the norm back, as PyTorch does). On cuda the
norm of any number of gradients is one partials launch per dtype plus one finishing program, and
the scaling one launch per dtype (``tensorlab_kernels/optim/multi_tensor.py``); on cpu the twins.
"""

from __future__ import annotations

import math
import types
import warnings

from tensorlab_kernels.optim import multi_tensor as K

from ... import _dtype as D
from ..._tensor import Tensor
from ...autograd import no_grad

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm"]


def _as_list(tensors) -> list:
    return [tensors] if isinstance(tensors, Tensor) else list(tensors)


def _array(t: Tensor):
    return t._np_view() if t.is_cpu else t._device_array()


def _by_device(tensors) -> dict:
    groups: dict = {}
    for t in tensors:
        groups.setdefault(t.device, []).append(t)
    return groups


def _check_foreach(foreach, device) -> None:
    if foreach and device.type not in ("cpu", "cuda"):  # pragma: no cover - tensorlab has no other device
        raise RuntimeError(f"foreach=True was passed, but can't use the foreach API on {device.type} tensors")


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The ``norm_type``-norm of all elements of ``tensors`` together, as a 0-d tensor on the first
    tensor's device, in their promoted dtype (PyTorch's ``vector_norm`` of the per-tensor norms)."""
    from ..._factories import empty, tensor
    from ...ops.reductions import norm
    from ...ops.shape_ops import stack

    tensors = _as_list(tensors)
    norm_type = float(norm_type)
    if len(tensors) == 0:
        return tensor(0.0)
    with no_grad():
        first = tensors[0].device
        dtype = tensors[0].dtype
        for t in tensors[1:]:
            dtype = D.promote_types(dtype, t.dtype)
        if not all(t.dtype.is_floating_point for t in tensors):
            bad = next(t.dtype for t in tensors if not t.dtype.is_floating_point)
            raise RuntimeError(f"clip_grad_norm_: gradients must be floating point, got {bad.name}")
        fused = norm_type == math.inf or norm_type == -math.inf or (norm_type > 0 and math.isfinite(norm_type))
        norms = []
        # Mixed dtypes: PyTorch takes each tensor's norm in its own dtype (a float16 gradient's norm is
        # rounded to float16, a float32 one's to float32) and then the norm of those norms in the promoted
        # dtype; one fused norm in the promoted dtype would be more precise than PyTorch, and different.
        # One dtype: one fused kernel per device (the same value to rounding).
        per_tensor = not fused or len({t.dtype for t in tensors}) > 1
        for dev, group in _by_device(tensors).items():
            _check_foreach(foreach, dev)
            if per_tensor:  # (not fused: p = 0, p < 0, NaN, PyTorch's definition, per tensor then over the norms)
                norms.extend(norm(g, norm_type).to(dtype) for g in group)
                continue
            if norm_type in (math.inf, -math.inf) and any(g.numel() == 0 for g in group):
                raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
                                   "operation does not have an identity")
            out = empty((), dtype=dtype, device=dev)
            arrays = [_array(g.contiguous()) for g in group]  # the kernels walk memory linearly
            impl = K.multi_tensor_norm_twin if dev.type == "cpu" else K.multi_tensor_norm
            impl(_array(out), arrays, norm_type=norm_type)
            norms.append(out)
        if len(norms) == 1 and norm_type != 0:  # (the norm of one norm is itself; for p = 0 it counts: 0 or 1)
            total = norms[0]
        else:
            total = norm(stack([n.to(first) for n in norms]), norm_type)
        if error_if_nonfinite and bool((total.isnan() | total.isinf()).item()):
            raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                               "so it cannot be clipped. To disable this error and scale the gradients by the "
                               "non-finite norm anyway, set `error_if_nonfinite=False`")
        return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach=None) -> None:
    """Scale the gradients of ``parameters`` in place by ``min(max_norm / (total_norm + 1e-6), 1)``."""
    parameters = _as_list(parameters)
    grads = [p.grad for p in parameters if p.grad is not None]
    max_norm = float(max_norm)
    if not grads:
        return
    with no_grad():
        coef = None
        for dev, group in _by_device(grads).items():
            _check_foreach(foreach, dev)
            dense = [g for g in group if g.is_contiguous()]
            norm_here = total_norm.to(dev)
            impl = K.multi_tensor_clip_scale_twin if dev.type == "cpu" else K.multi_tensor_clip_scale
            impl([_array(g) for g in dense], _array(norm_here), max_norm=max_norm)
            for g in dense:
                g._bump_version()
            for g in group:
                if not g.is_contiguous():  # rare (a gradient assigned by hand): the strided op path
                    if coef is None:
                        coef = (max_norm / (total_norm + 1e-6)).clamp(max=1.0)
                    g.mul_(coef.to(dev))


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach=None) -> Tensor:
    """Clip the gradient norm of ``parameters`` (a Tensor or an iterable of them) to ``max_norm``.

    The norm is over all gradients together, as if concatenated; the gradients are modified in
    place. ``norm_type`` may be ``inf``. Returns the total norm (a 0-d tensor, before clipping).
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        parameters = list(parameters)
        if is_generator and len(parameters) == 0:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2)
    grads = [p.grad for p in parameters if p.grad is not None]
    total_norm = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(parameters, max_norm, total_norm, foreach)
    return total_norm


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """Deprecated alias of :func:`clip_grad_norm_` (as in PyTorch)."""
    warnings.warn("`tensorlab.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`tensorlab.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient of ``parameters`` to ``[-clip_value, clip_value]`` in place."""
    parameters = _as_list(parameters)
    clip_value = float(clip_value)
    grads = [p.grad for p in parameters if p.grad is not None]
    with no_grad():
        for dev, group in _by_device(grads).items():
            _check_foreach(foreach, dev)
            dense = [g for g in group if g.is_contiguous() and g.dtype.is_floating_point]
            impl = K.multi_tensor_clamp_twin if dev.type == "cpu" else K.multi_tensor_clamp
            impl([_array(g) for g in dense], min=-clip_value, max=clip_value)
            for g in dense:
                g._bump_version()
            for g in group:
                if not (g.is_contiguous() and g.dtype.is_floating_point):
                    g.clamp_(min=-clip_value, max=clip_value)
