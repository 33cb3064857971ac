"""tensorlab.autograd.functional: PyTorch's higher-level derivative API (``vjp``, ``jvp``,
``jacobian``, ``hessian``, ``vhp``, ``hvp``), built on ``autograd.grad``.

Everything here is reverse mode: ``jvp`` and ``hvp`` use the double-backward trick (the backward of
a vjp is linear in its cotangent, so differentiating it with respect to that cotangent gives the
forward product), ``jacobian`` and ``hessian`` take one backward per output element. tensorlab has
no forward-mode AD, so ``strategy="forward-mode"`` raises NotImplementedError.

Rules shared with PyTorch: ``inputs`` (and ``v``, and ``func``'s result) are a Tensor or a tuple
of Tensors, and results come back in the same form; ``func`` sees fresh tensor objects (so a
tensor it captures from outside is not mistaken for an input); parts of a derivative that do not
depend on the inputs are zeros, or a RuntimeError under ``strict=True``; without
``create_graph`` every returned tensor is detached.
"""

from __future__ import annotations

from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tensors(x, what: str, fn: str):
    """``(was_a_tuple, tuple_of_tensors)``; a TypeError for anything but a Tensor or a tuple of them."""
    from .._tensor import Tensor

    is_tuple = isinstance(x, tuple)
    items = x if is_tuple else (x,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"the value at index {i}" if is_tuple else f"the given {what}"
            raise TypeError(f"The {what} given to {fn} must be either a Tensor or a tuple of Tensors but "
                            f"{where} has type {type(el)}.")
    return is_tuple, items


def _unwrap(res, is_tuple):
    """Undo ``_as_tensors``: ``is_tuple`` is a bool, or a pair (outer, inner) for nested results."""
    if isinstance(is_tuple, tuple):
        outer, inner = is_tuple
        if not inner:
            res = tuple(el[0] for el in res)
        return res if outer else res[0]
    return res if is_tuple else res[0]


def _fresh(tensors, create_graph: bool, need_graph: bool):
    """New tensor objects for ``tensors``: a differentiable view when the caller wants a graph back to
    them (create_graph and they require grad), else detached copies of the handle that require grad
    when we differentiate with respect to them (need_graph)."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in tensors)


def _detach_unless(res, create_graph: bool):
    """Returned tensors carry no history unless create_graph (nested tuples allowed)."""
    if create_graph:
        return res
    return tuple(_detach_unless(r, False) if isinstance(r, tuple) else r.detach() for r in res)


def _check_v(v, refs, refs_tuple: bool) -> None:
    if len(v) != len(refs):
        if refs_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(refs)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (a, b) in enumerate(zip(v, refs)):
        if a.shape != b.shape:
            prefix = f"Entry {i} in " if refs_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {b.shape} but got {a.shape}.")


def _check_outputs(outputs, strict: bool) -> None:
    if strict:
        for i, out in enumerate(outputs):
            if not out.requires_grad:
                raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The "
                                   "outputs must be computed in a differentiable manner from the input when "
                                   "running in strict mode.")


def _check_depends(tensors, kind: str, strict: bool) -> None:
    """Strict mode: the intermediate gradients ``tensors`` must depend on the inputs (``kind``:
    "grad_inputs" for jvp's first backward, "jacobian" for a Hessian's gradient)."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is "
                               "not allowed in strict mode.")
        if t.requires_grad:
            continue
        if kind == "grad_inputs":
            raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of the "
                               "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError("While computing the hessian, found that the jacobian of the user-provided function "
                           f"with respect to input {i} is independent of the input. This is not allowed in strict "
                           "mode. You should ensure that your function is twice differentiable and that the "
                           "jacobian depends on the inputs (this would be violated by a linear function for "
                           "example).")


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """``autograd.grad`` that skips outputs which are None or do not require grad, and gives None for
    every input when nothing is left to differentiate."""
    from . import grad

    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return grad(tuple(o for o, _ in kept), inputs, tuple(g for _, g in kept), retain_graph=retain_graph,
                create_graph=create_graph, allow_unused=True)


_UNUSED = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in "
            "strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                  "using the double backward trick to compute forward mode gradients. This is not allowed in "
                  "strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed "
                   "in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _zeros_for_unused(grads, refs, strict: bool, create_graph: bool, stage: str):
    """None gradients become zeros shaped like ``refs`` (a RuntimeError under strict); under strict and
    create_graph a gradient with no graph back to the inputs is an error too."""
    from .._factories import zeros_like

    res = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_UNUSED[stage].format(i=i))
            g = zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is "
                               "not allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


def _call(func, inputs, fn: str, strict: bool):
    is_tuple, outputs = _as_tensors(func(*inputs), "outputs of the user-provided function", fn)
    _check_outputs(outputs, strict)
    return is_tuple, outputs


def _prepare_v(v, refs, refs_tuple: bool, create_graph: bool, fn: str, none_msg: str):
    if v is None:
        if len(refs) != 1 or refs[0].numel() != 1:
            raise RuntimeError(none_msg)
        return None
    _, v = _as_tensors(v, "v", fn)
    v = _fresh(v, create_graph, need_graph=False)
    _check_v(v, refs, refs_tuple)
    return v


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a single Tensor "
                 "with a single element.")


def vjp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), v^T J)``: the vector-Jacobian product, shaped like ``inputs``. ``v`` is shaped
    like ``func``'s output and may be omitted when that output is a single one-element tensor."""
    with enable_grad():
        inputs_tuple, inputs = _as_tensors(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _call(func, inputs, "vjp", strict)
        v = _prepare_v(v, outputs, outputs_tuple, create_graph, "vjp",
                       "The vector v can only be None if the user-provided function returns a single Tensor "
                       "with a single element.")
    with set_grad_enabled(create_graph or is_grad_enabled()):
        res = _zeros_for_unused(_grad(outputs, inputs, v, create_graph), inputs, strict, create_graph, "back")
    return (_unwrap(_detach_unless(outputs, create_graph), outputs_tuple),
            _unwrap(_detach_unless(res, create_graph), inputs_tuple))


def jvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), J v)``: the Jacobian-vector product, shaped like ``func``'s output. ``v`` is
    shaped like ``inputs`` and may be omitted for a single one-element input.

    Computed by the double-backward trick (no forward-mode AD): ``u -> J^T u`` is linear in ``u``, so
    its own vjp with ``v`` is ``J v``; ``u`` is a zeros tensor that requires grad (its value never
    enters the result)."""
    from .._factories import zeros_like

    with enable_grad():
        inputs_tuple, inputs = _as_tensors(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepare_v(v, inputs, inputs_tuple, create_graph, "jvp", _V_NONE_INPUT)
        outputs_tuple, outputs = _call(func, inputs, "jvp", strict)
        cotangents = tuple(zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad(outputs, inputs, cotangents, create_graph=True)
        _check_depends(grad_inputs, "grad_inputs", strict)
    # (PyTorch runs this second backward in the caller's grad mode unless create_graph)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad(grad_inputs, cotangents, v, create_graph)
        res = _zeros_for_unused(res, outputs, strict, create_graph, "back_trick")
    return (_unwrap(_detach_unless(outputs, create_graph), outputs_tuple),
            _unwrap(_detach_unless(res, create_graph), outputs_tuple))


def jacobian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``: ``J[i][j]`` has shape ``outputs[i].shape +
    inputs[j].shape``; the tuple levels are dropped where ``func``'s output or ``inputs`` is a single
    Tensor.

    ``vectorize`` is accepted for PyTorch compatibility and changes nothing but its errors: tensorlab
    always takes one backward per output element (PyTorch batches them with vmap; the values are the
    same). ``strategy="forward-mode"`` raises NotImplementedError: tensorlab has no forward-mode AD."""
    from .. import stack
    from .._factories import zeros, zeros_like

    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                             'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                             'Otherwise, prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        # (PyTorch's own refusals first, in its order; the rest needs forward-mode AD)
        if create_graph:
            raise NotImplementedError('tensorlab.autograd.functional.jacobian: `create_graph=True` and '
                                      '`strategy="forward-mode"` are not supported together (yet). Please either '
                                      'set `create_graph=False` or `strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('tensorlab.autograd.functional.jacobian: `strict=True` and '
                               '`strategy="forward-mode"` are not supported together (yet). Please either set '
                               '`strict=False` or `strategy="reverse-mode"`.')
        raise NotImplementedError('tensorlab.autograd.functional.jacobian: strategy="forward-mode" needs '
                                  'forward-mode AD, which tensorlab does not have; use strategy="reverse-mode" '
                                  '(same values).')
    with enable_grad():
        inputs_tuple, inputs = _as_tensors(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _call(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError("tensorlab.autograd.functional.jacobian: `strict=True` and `vectorized=True` are "
                               "not supported together. Please either set `strict=False` or `vectorize=False`.")
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]  # rows[j][k]: d out.flatten()[k] / d inputs[j]
            flat = out.reshape(-1)
            for k in range(out.numel()):
                for j, g in enumerate(_grad((flat[k],), inputs, retain_graph=True, create_graph=create_graph)):
                    if g is None:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is independent of input "
                                               f"{j}. This is not allowed in strict mode.")
                        g = zeros_like(inputs[j])
                    elif strict and create_graph and not g.requires_grad:
                        # (PyTorch's message names the output index here)
                        raise RuntimeError(f"The jacobian of the user-provided function is independent of input "
                                           f"{i}. This is not allowed in strict mode when create_graph=True.")
                    rows[j].append(g)
            # an output with no elements has an empty Jacobian (PyTorch's stack of no rows raises)
            jac.append(tuple(stack(r).view((*out.shape, *t.shape)) if r else
                             zeros((*out.shape, *t.shape), dtype=t.dtype, device=t.device)
                             for t, r in zip(inputs, rows)))
        return _unwrap(_detach_unless(tuple(jac), create_graph), (outputs_tuple, inputs_tuple))


def hessian(func, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Hessian of the scalar function ``func``: the Jacobian of its gradient. ``H[i][j]`` has shape
    ``inputs[i].shape + inputs[j].shape``, a single Tensor for a single input. ``vectorize`` changes
    nothing (see ``jacobian``); ``outer_jacobian_strategy="forward-mode"`` raises as ``jacobian``
    does."""
    from .._tensor import Tensor

    inputs_tuple, inputs = _as_tensors(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inp):
        out = func(*inp)
        out_tuple, outs = _as_tensors(out, "outputs of the user-provided function", "hessian")
        _check_outputs(outs, strict)
        if out_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single "
                               "element")
        return out.squeeze()

    def gradient(*inp):
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_depends(jac, "jacobian", strict)
        return jac

    res = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    return _unwrap(res, (inputs_tuple, inputs_tuple))


def _scalar_and_gradient(func, inputs, v, create_graph: bool, strict: bool, fn: str):
    """The shared first half of vhp/hvp: fresh inputs, checked ``v``, ``func``'s single-element output
    and its gradient (with a graph, for the second backward)."""
    inputs_tuple, inputs = _as_tensors(inputs, "inputs", fn)
    inputs = _fresh(inputs, create_graph, need_graph=True)
    v = _prepare_v(v, inputs, inputs_tuple, create_graph, fn, _V_NONE_INPUT)
    outputs_tuple, outputs = _call(func, inputs, fn, strict)
    if outputs_tuple:
        raise RuntimeError(f"The function given to {fn} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn} should contain a single element")
    jac = _grad(outputs, inputs, create_graph=True)
    _check_depends(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs, jac


def vhp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), v^T H)`` for a scalar ``func``, shaped like ``inputs``."""
    with enable_grad():
        inputs_tuple, inputs, v, outputs, jac = _scalar_and_gradient(func, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad(jac, inputs, v, create_graph)
        res = _zeros_for_unused(res, inputs, strict, create_graph, "double_back")
    return (_detach_unless(outputs, create_graph)[0], _unwrap(_detach_unless(res, create_graph), inputs_tuple))


def hvp(func, inputs, v=None, create_graph: bool = False, strict: bool = False):
    """``(func(*inputs), H v)`` for a scalar ``func``, shaped like ``inputs``, by the double-backward
    trick on the gradient (as ``jvp``). Equal to ``vhp`` when the Hessian is symmetric, and slower."""
    from .._factories import zeros_like

    with enable_grad():
        inputs_tuple, inputs, v, outputs, jac = _scalar_and_gradient(func, inputs, v, create_graph, strict, "hvp")
        cotangents = tuple(zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _grad(jac, inputs, cotangents, create_graph=True)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        res = _grad(double_back, cotangents, v, create_graph)
        res = _zeros_for_unused(res, inputs, strict, create_graph, "double_back_trick")
    return (_detach_unless(outputs, create_graph)[0], _unwrap(_detach_unless(res, create_graph), inputs_tuple))
