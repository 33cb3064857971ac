"""tensorlab.autograd: reverse-mode differentiation over the tape of registered ops."""

from __future__ import annotations

from . import graph
from .anomaly_mode import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .function import Function, once_differentiable
from .grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck


def _as_tuple(x):
    if x is None:
        return None
    return tuple(x) if isinstance(x, list | tuple) else (x,)


def _make_grads(outputs, grad_outputs, create_graph: bool, op: str):
    from .._factories import ones_like
    from .._tensor import Tensor

    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if g is None:
            if out.numel() != 1:
                raise RuntimeError(
                    f"{op}: grad can be implicitly created only for scalar outputs "
                    f"(output {i} has shape {list(out.shape)})"
                )
            if not out.dtype.is_floating_point:
                raise RuntimeError(
                    f"{op}: grad can be implicitly created only for real scalar outputs, got {out.dtype}"
                )
            g = ones_like(out)
        elif not isinstance(g, Tensor):
            raise TypeError(f"{op}: gradient must be a Tensor or None, got {type(g).__name__}")
        elif g.shape != out.shape:
            raise RuntimeError(
                f"{op}: Mismatch in shape: grad_output[{i}] has a shape of {list(g.shape)} and output[{i}] has a "
                f"shape of {list(out.shape)}."
            )
        elif g.device != out.device:
            raise RuntimeError(f"{op}: gradient is on {g.device} but output {i} is on {out.device}")
        grads.append(g)
    return grads


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
    """Accumulate d(tensors)/d(leaves) into the leaves' ``.grad``."""
    tensors = _as_tuple(tensors)
    for t in tensors:
        t._refresh_grad_fn()
    grad_tensors = _as_tuple(grad_tensors) or (None,) * len(tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"backward: got {len(grad_tensors)} gradients for {len(tensors)} tensors")
    for i, t in enumerate(tensors):
        if not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(tensors, grad_tensors, create_graph, "backward")
    inputs = _as_tuple(inputs)
    if inputs is not None and len(inputs) == 0:
        raise RuntimeError("backward: 'inputs' argument to backward() cannot be empty.")
    graph.run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         allow_unused: bool = False, materialize_grads: bool = False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` untouched)."""
    outputs = _as_tuple(outputs)
    for t in outputs:
        t._refresh_grad_fn()
    inputs = _as_tuple(inputs)
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad: got {len(grad_outputs)} grad_outputs for {len(outputs)} outputs")
    for i, t in enumerate(outputs):
        if not t.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
    for i, t in enumerate(inputs):
        if not t.requires_grad:
            raise RuntimeError(f"grad: One of the differentiated Tensors (input {i}) does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grad_outputs, create_graph, "grad")
    if len({id(t) for t in inputs}) != len(inputs):
        raise RuntimeError("grad: the same tensor appears twice in inputs")
    captured = graph.run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs, accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if materialize_grads:
                from .._factories import zeros_like

                g = zeros_like(t)
            elif not allow_unused:
                raise RuntimeError(
                    f"grad: One of the differentiated Tensors (input {i}) appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
        elif not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)


__all__ = ["Function", "GradcheckError", "backward", "detect_anomaly", "gradgradcheck", "is_anomaly_enabled",
           "once_differentiable", "set_detect_anomaly", "enable_grad", "grad", "gradcheck", "graph", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled", "no_grad", "set_grad_enabled"]
