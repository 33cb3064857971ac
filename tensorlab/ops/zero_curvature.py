"""Recorded zero second derivatives of piecewise-linear ops.

The input gradient of relu, leaky_relu, hardtanh, threshold, the shrinks, prelu, nll_loss or a
reflect/replicate pad is the output gradient masked or moved by something read from the input:
it does not change with the input's values, so its derivative with respect to the input is 0.
A tape that only follows values would record no edge from that gradient back to the input, and
``grad(grad(relu(x).sum(), x, create_graph=True)[0].sum(), x)`` would raise "appears to not
have been used in the graph". PyTorch records the edge instead (its ``threshold_backward``,
``leaky_relu_backward``, ... take the input as a differentiable argument whose derivative is
``zeros_like``) and returns zeros; a physics-informed network with ReLU layers asks exactly this.

Two registered view ops give the same graph here. Neither launches anything; the edge itself is
only recorded while a gradient is being recorded (``create_graph=True``), so a first-order
backward computes what it did before:

- ``depends_on(value, input)``: ``value`` unchanged, recorded as depending on ``input`` with
  derivative 0. A backward rule returns ``depends_on(gradient, input)``
  (:func:`gradient_depending_on`).
- ``piecewise_linear(input)``: ``input`` unchanged; its backward returns the incoming gradient
  through ``depends_on`` on ``input``. A composite op (built from ``where``, ``index_select``...)
  reads its input through it (:func:`piecewise_linear_input`), and its composite gradient then
  depends on the input as PyTorch's registered op's does. It is recorded in the forward whenever
  the input requires grad (one view node) and keeps the input for the backward, as PyTorch's
  hardshrink, prelu or pad backward do (an in-place write to the input before backward raises).
"""

from __future__ import annotations

from .._dispatch import dispatch
from .._registry import defop
from ..autograd.grad_mode import is_grad_enabled
from . import elementwise_common as E


def _same_geometry(shape, strides, offset, *_):
    return shape, strides, offset


def _depends_on_backward(ctx, h):
    from .._factories import zeros

    if not ctx.needs_input_grad[1]:
        return h, None
    meta = ctx.inputs[1]
    return h, zeros(meta.shape, dtype=meta.dtype, device=meta.device)


def _save_input(ctx, inputs, outputs, params):
    ctx.save_for_backward(inputs[0])


def _piecewise_linear_backward(ctx, h):
    return (gradient_depending_on(h, ctx.saved_tensors[0]),)


DEPENDS_ON = defop("depends_on", view=_same_geometry, backward=_depends_on_backward, save=E.save_nothing,
                   tags={"view"}, doc="value, recorded as depending on input with derivative 0")
PIECEWISE_LINEAR = defop("piecewise_linear", view=_same_geometry, backward=_piecewise_linear_backward,
                         save=_save_input, tags={"view"},
                         doc="input; its gradient is recorded as depending on input with derivative 0")


def gradient_depending_on(gradient, input):
    """``gradient``, recorded as depending on ``input`` (derivative 0) while gradients are being
    recorded and ``input`` requires grad; ``gradient`` itself otherwise."""
    if input is not None and input.requires_grad and is_grad_enabled():
        return dispatch(DEPENDS_ON, gradient, input)
    return gradient


def piecewise_linear_input(input):
    """``input`` for a piecewise-linear composite to compute from (see the module docstring)."""
    if input.requires_grad and is_grad_enabled():
        return dispatch(PIECEWISE_LINEAR, input)
    return input


__all__: list = []
