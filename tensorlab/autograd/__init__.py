"""tensorlab.autograd: reverse-mode differentiation over the tape of registered ops."""

from __future__ import annotations

from . import functional, graph
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
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
from .variable import Variable


def _as_tuple(x):
    """PyTorch's ``_tensor_or_tensors_to_tuple``: a tensor is one, any other iterable (a generator
    too) is spread."""
    from .._tensor import Tensor

    if x is None:
        return None
    if isinstance(x, Tensor) or not hasattr(x, "__iter__"):
        return (x,)
    return tuple(x)


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
    for i, t in enumerate(inputs or ()):
        if not t.requires_grad:  # (PyTorch raises too: nothing could accumulate into it)
            raise RuntimeError(f"backward: One of the differentiated Tensors (inputs[{i}]) does not require grad")
    graph.run_backward(tensors, grads, retain_graph, create_graph, inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False, only_inputs: bool = True,
         allow_unused: bool | None = None, is_grads_batched: bool = False, materialize_grads: bool = False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned (``.grad`` untouched).

    PyTorch's signature: ``allow_unused`` defaults to ``materialize_grads``; ``inputs`` may be a dict
    (the result is then a dict with its keys); ``is_grads_batched`` takes the first dim of every
    ``grad_outputs`` tensor as a batch of vectors (one vector-Jacobian product each, stacked)."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, "
                         "but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    if not only_inputs:
        import warnings

        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use tensorlab.autograd.backward.",
                      FutureWarning, stacklevel=2)
    keys = None
    if type(inputs) is dict:
        keys, inputs = list(inputs.keys()), tuple(inputs.values())
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if len(inputs) == 0:
        raise RuntimeError("grad: `inputs` argument to `grad()` cannot be empty.")
    if is_grads_batched:
        result = _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                               materialize_grads)
    else:
        result = _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads)
    return dict(zip(keys, result)) if keys is not None else result


def _grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    for t in outputs:
        t._refresh_grad_fn()
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
    # (an input listed twice gets its gradient twice, as in PyTorch)
    captured = graph.run_backward(outputs, grads, retain_graph, create_graph, inputs=inputs, accumulate=False)
    result = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if materialize_grads:
                from .._factories import zeros_like

                g = zeros_like(t, requires_grad=bool(create_graph))
            elif not allow_unused:
                raise RuntimeError(
                    f"grad: One of the differentiated Tensors (input {i}) appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior."
                )
        elif not create_graph:
            g = g.detach()
        result.append(g)
    return tuple(result)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused, materialize_grads):
    """``is_grads_batched``: one backward pass per vector of the batch (PyTorch vmaps the engine;
    the results are the same), the gradients stacked along a new first dim."""
    from .. import stack
    from .._factories import zeros
    from .._tensor import Tensor

    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad: got {len(grad_outputs)} grad_outputs for {len(outputs)} outputs")
    sizes = set()
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(g, Tensor) or g.ndim == 0:
            got = type(g).__name__ if not isinstance(g, Tensor) else "a 0-d tensor"
            raise ValueError(f"grad: with is_grads_batched=True, grad_outputs[{i}] must be a tensor whose first "
                             f"dimension is the batch dimension, got {got}")
        if tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                f"output, but a mismatch was detected: grad_output[{i}] has a shape of {list(g.shape[1:])} and "
                f"output[{i}] has a shape of {list(out.shape)}.")
        sizes.add(g.shape[0])
    if len(sizes) != 1:
        raise ValueError(f"grad: Expected all grad_outputs to have the same size in the batch dimension, got sizes "
                         f"{sorted(sizes)}")
    (batch,) = sizes
    if batch == 0:
        raise RuntimeError("grad: is_grads_batched=True needs a batch of at least one vector, got an empty batch")
    if retain_graph is None:
        retain_graph = create_graph
    per_vector = [
        _grad(outputs, inputs, tuple(g[b] for g in grad_outputs), retain_graph or b < batch - 1, create_graph,
              allow_unused, False)
        for b in range(batch)
    ]
    result = []
    for i, t in enumerate(inputs):
        column = [r[i] for r in per_vector]
        if all(g is None for g in column):
            result.append(zeros((batch, *t.shape), dtype=t.dtype, device=t.device,
                                requires_grad=bool(create_graph)) if materialize_grads else None)
            continue
        result.append(stack([g if g is not None else zeros(t.shape, dtype=t.dtype, device=t.device)
                             for g in column]))
    return tuple(result)


__all__ = [
    "Function", "GradcheckError", "Variable", "backward", "detect_anomaly", "gradgradcheck",
    "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "once_differentiable", "set_detect_anomaly",
    "enable_grad", "functional", "grad",
    "gradcheck", "graph", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "no_grad",
    "set_grad_enabled"
]
