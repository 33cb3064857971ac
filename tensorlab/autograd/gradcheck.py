"""``gradcheck``: compare autograd's gradients with central finite differences (use float64).

For every input that requires grad and every element of it, the numerical Jacobian column is
``(f(x + eps) - f(x - eps)) / (2 eps)``; the analytical Jacobian rows come from one backward
pass per output element. They must agree within ``atol + rtol * |numerical|``.
"""

from __future__ import annotations

import numpy as np

from .._tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck when gradients disagree (a RuntimeError, as in PyTorch)."""


def _as_tuple(x):
    return tuple(x) if isinstance(x, list | tuple) else (x,)


def _outputs(func, inputs) -> tuple:
    out = _as_tuple(func(*inputs))
    return tuple(o for o in out if isinstance(o, Tensor) and o.dtype.is_floating_point)


def _host(t: Tensor) -> np.ndarray:
    return np.array(t.detach().cpu()._np_view(), dtype=np.float64)


def numerical_jacobian(func, inputs, eps: float = 1e-6) -> list[list[np.ndarray]]:
    """jac[i][j]: d output j / d input i, shape (input numel, output numel)."""
    from .grad_mode import no_grad

    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    with no_grad():
        base = _outputs(func, inputs)
    jac = [[np.zeros((inputs[i].numel(), o.numel())) for o in base] for i in diff]
    for k, i in enumerate(diff):
        x = inputs[i]
        for e in range(x.numel()):
            idx = np.unravel_index(e, x.shape) if x.ndim else ()
            orig = _read(x, idx)
            _write(x, idx, orig + eps)
            with no_grad():
                plus = [_host(o) for o in _outputs(func, inputs)]
            _write(x, idx, orig - eps)
            with no_grad():
                minus = [_host(o) for o in _outputs(func, inputs)]
            _write(x, idx, orig)
            for j, (p, m) in enumerate(zip(plus, minus)):
                jac[k][j][e] = ((p - m) / (2 * eps)).reshape(-1)
    return jac


def _read(x: Tensor, idx) -> float:
    if x.is_cpu:
        return float(x._np_view()[idx])
    return float(x.detach()[tuple(int(i) for i in idx)].item())


def _write(x: Tensor, idx, value: float) -> None:
    # Perturb in place without touching the version counter: no graph is alive across calls.
    if x.is_cpu:
        x._np_view()[idx] = value
    else:
        from .._factories import tensor

        view = x.detach()[tuple(int(i) for i in idx)]
        from .._copy_ops import copy_into

        copy_into(view, tensor(value, dtype=x.dtype, device=x.device))


def _check_inputs(inputs) -> None:
    """PyTorch's refusals: nothing to check, and an input whose elements share memory (perturbing
    one element would move the others too, so a right backward would look wrong)."""
    if not any(isinstance(x, Tensor) and x.requires_grad for x in inputs):
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of the them "
                         "have requires_grad=True.")
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and 0 not in x.shape:
            if any(s == 0 and n > 1 for n, s in zip(x.shape, x.stride())):
                raise RuntimeError(f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs "
                                   "that are non-overlapping to be able to compute the numerical gradients "
                                   "correctly. You should call .contiguous on the input before passing it to "
                                   "gradcheck.")


def _refuse_unsupported(op: str, **options) -> None:
    """The PyTorch options tensorlab cannot check (batched and forward-mode gradients): refused when
    asked for rather than reported as passed."""
    for name, value in options.items():
        if value:
            raise NotImplementedError(f"{op}: {name}=True is not supported (tensorlab has no vmap and no "
                                      "forward-mode AD)")


def analytical_jacobian(func, inputs, check_grad_dtypes: bool = False) -> list[list[np.ndarray]]:
    from .._factories import tensor
    from . import grad as autograd_grad

    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    outputs = _outputs(func, inputs)
    jac = [[np.zeros((inputs[i].numel(), o.numel())) for o in outputs] for i in diff]
    for j, out in enumerate(outputs):
        if not out.requires_grad:
            continue
        for e in range(out.numel()):
            g_host = np.zeros(out.shape, dtype=np.float64)
            g_host.reshape(-1)[e] = 1.0
            g = tensor(g_host, dtype=out.dtype, device=out.device)
            grads = autograd_grad(out, [inputs[i] for i in diff], grad_outputs=g, retain_graph=True, allow_unused=True)
            for k, gi in enumerate(grads):
                if gi is not None:
                    if check_grad_dtypes and gi.dtype is not inputs[diff[k]].dtype:
                        raise GradcheckError(f"Gradient has dtype mismatch: input {diff[k]} is "
                                             f"{inputs[diff[k]].dtype.name}, its gradient {gi.dtype.name}")
                    jac[k][j][:, e] = _host(gi).reshape(-1)
    return jac


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """True when analytical and numerical Jacobians agree; raises GradcheckError otherwise.

    PyTorch's keywords. Always the full (slow-mode) comparison, so ``fast_mode`` gives the same
    answer; backward is deterministic here, so ``nondet_tol`` has nothing to allow for;
    ``check_undefined_grad`` (whether a backward copes with missing output gradients) is not
    exercised. Batched and forward-mode checks are refused (NotImplementedError), as is
    ``check_backward_ad=False``, which would leave nothing to check."""
    _refuse_unsupported("gradcheck", check_batched_grad=check_batched_grad,
                        check_batched_forward_grad=check_batched_forward_grad, check_forward_ad=check_forward_ad,
                        masked=masked, check_backward_ad=not check_backward_ad)
    inputs = _as_tuple(inputs)
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad and x.dtype.name != "float64":
            import warnings

            warnings.warn(f"gradcheck: input {i} is {x.dtype.name}, not float64; finite differences may be too "
                          "imprecise for the check to mean anything")
    _check_inputs(inputs)
    numerical = numerical_jacobian(func, inputs, eps)
    analytical = analytical_jacobian(func, inputs, check_grad_dtypes)
    diff = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]
    for k, i in enumerate(diff):
        for j, (n, a) in enumerate(zip(numerical[k], analytical[k])):
            if not np.allclose(a, n, rtol=rtol, atol=atol, equal_nan=True):
                worst = np.unravel_index(np.argmax(np.abs(a - n)), a.shape) if a.size else (0, 0)
                msg = (f"Jacobian mismatch for output {j} with respect to input {i},\n"
                       f"numerical:{n}\nanalytical:{a}\n"
                       f"largest difference at (input element {worst[0]}, output element {worst[1]}): "
                       f"numerical {n[worst] if n.size else None} vs analytical {a[worst] if a.size else None}")
                if raise_exception:
                    raise GradcheckError(msg)
                return False
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False, check_rev_over_rev: bool = True,
                  fast_mode: bool = False, masked: bool = False) -> bool:
    """gradcheck of the first derivative: checks second-order gradients (``create_graph`` backward).

    ``grad_outputs`` default to fixed random float64 tensors shaped like the outputs, which also get
    ``requires_grad`` so the check covers the gradient with respect to them too
    (``gen_non_contig_grad_outputs``: laid out transposed). PyTorch's keywords, as gradcheck's.
    """
    from .. import tensor as make_tensor
    from . import grad as autograd_grad

    _refuse_unsupported("gradgradcheck", check_batched_grad=check_batched_grad, check_fwd_over_rev=check_fwd_over_rev,
                        masked=masked, check_rev_over_rev=not check_rev_over_rev)
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(
            make_tensor(rng.standard_normal(o.shape), dtype=o.dtype, device=o.device, requires_grad=True)
            for o in outputs
        )
        if gen_non_contig_grad_outputs:  # the same values through transposed strides
            grad_outputs = tuple(g.detach().mT.contiguous().mT.requires_grad_(True) if g.ndim >= 2 else g
                                 for g in grad_outputs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)
    diff_pos = [i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad]

    def first_derivative(*args):
        from .._factories import zeros_like
        from .grad_mode import enable_grad

        # numerical_jacobian evaluates this under no_grad; the first derivative needs a graph
        with enable_grad():
            ins, gos = args[:n_in], args[n_in:]
            outs = tuple(o for o in _outputs(func, ins) if o.requires_grad)
            grads = autograd_grad(outs, [ins[i] for i in diff_pos], grad_outputs=gos[: len(outs)],
                                  create_graph=True, allow_unused=True)
            return tuple(g if g is not None else zeros_like(ins[i]) for g, i in zip(grads, diff_pos))

    return gradcheck(first_derivative, (*inputs, *grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, check_grad_dtypes=check_grad_dtypes)
