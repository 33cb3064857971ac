"""Custom differentiable operations: ``tensorlab.autograd.Function``, as in PyTorch.

    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * y

    y = Exp.apply(x)

Each Function subclass gets its own OpDef (tagged ``custom_function``, not in the global
registry), so the tape records an op, not a closure, exactly as for built-in ops.
"""

from __future__ import annotations

from .._registry import OpDef
from . import graph
from .grad_mode import is_grad_enabled, no_grad


def _backward_of(cls):
    """The user's backward: ``backward``, or ``vjp``, PyTorch's alias of it (not both)."""
    backward, vjp = cls.backward, cls.vjp
    if backward is not Function.backward and vjp is not Function.vjp:
        raise RuntimeError("Implementing both 'backward' and 'vjp' for a custom Function is not allowed. You should "
                           "only implement one of them.")
    return vjp if vjp is not Function.vjp else backward


def _user_backward(cls):
    def backward(ctx, *grads):
        from .._tensor import Tensor

        positions = ctx._output_positions
        if positions is not None:  # forward returned non-tensors too: they get None, as in PyTorch
            full = [None] * positions[0]
            for p, g in zip(positions[1], grads):
                full[p] = g
            grads = full
        result = _backward_of(cls)(ctx, *grads)
        if not isinstance(result, tuple):  # (a list is one gradient, as PyTorch reads it)
            result = (result,)
        structure = ctx._node().input_structure
        n = len(structure)
        if len(result) > n and all(g is None for g in result[n:]):
            result = result[:n]  # PyTorch accepts extra trailing Nones
        if len(result) != n:
            raise RuntimeError(f"function {cls.__name__}Backward returned an incorrect number of gradients (expected "
                               f"{n}, got {len(result)})")
        for i, (kind, g) in enumerate(zip(structure, result)):
            if g is None:
                continue
            if kind is None:
                raise RuntimeError(f"function {cls.__name__}Backward returned a gradient different than None at "
                                   f"position {i + 1}, but the corresponding forward input was not a Variable")
            if kind == "tensor" and not isinstance(g, Tensor):
                raise RuntimeError(f"function {cls.__name__}Backward: expected Variable or None (got "
                                   f"{type(g).__name__}) as the gradient at position {i + 1}")
        return tuple(result)

    return backward


class Function:
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grad_outputs)``; call ``apply``."""

    _opdef: OpDef | None = None

    def __init__(self, *args, **kwargs):
        raise RuntimeError("Function is not meant to be instantiated; call the static method apply() instead")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward  # (PyTorch's alias: a Function may define either)

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Optional (PyTorch 2's style): with it, ``forward(*args)`` takes no ctx, and
        ``setup_context(ctx, inputs, output)`` saves what backward needs."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def _op(cls) -> OpDef:
        op = cls.__dict__.get("_opdef")
        if op is None:
            op = OpDef(cls.__name__, custom=cls.apply, backward=_user_backward(cls), tags={"custom_function"},
                       doc=cls.__doc__ or "")
            cls._opdef = op
        return op

    @classmethod
    def apply(cls, *args, **kwargs):
        from .._tensor import Tensor

        op = cls._op()
        setup = cls.setup_context is not Function.setup_context
        if setup:  # PyTorch binds the arguments (defaults included): setup_context sees them all
            import inspect

            bound = inspect.signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, bound.kwargs
        node = graph.new_node(op, args, {})
        ctx = node.ctx
        ctx._outputs_ids = None  # save_for_backward waits for the outputs
        with no_grad():
            if setup:
                result = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, result)
            else:
                result = cls.forward(ctx, *args, **kwargs)
        outputs = result if isinstance(result, tuple) else (result,)
        if ctx.dirty - {id(o) for o in outputs if isinstance(o, Tensor)}:
            raise RuntimeError(f"{cls.__name__}: Some elements marked as dirty during the forward method were not "
                               "returned as output. The inputs that are modified inplace must all be outputs of the "
                               "Function.")
        tensor_inputs = [a for a in args if isinstance(a, Tensor)]
        needs_grad = is_grad_enabled() and any(t._requires_grad for t in tensor_inputs)
        if not needs_grad:
            # an input returned as-is comes back as an alias without history, as PyTorch's (under
            # no_grad, returning the input itself would hand back a tensor that requires grad)
            input_ids = {id(t) for t in tensor_inputs}
            fixed = tuple(Tensor._make(o._storage, o._shape, o._stride, o._offset, o.dtype)
                          if isinstance(o, Tensor) and id(o) in input_ids and id(o) not in ctx.dirty else o
                          for o in outputs)
            return fixed if isinstance(result, tuple) else fixed[0]

        # An input returned as-is gets an alias, so giving it a grad_fn leaves the input alone;
        # an input modified in place (mark_dirty) keeps its identity and is rebased instead.
        fixed = []
        input_ids = {id(t) for t in tensor_inputs}
        created = {id(o) for o in outputs if isinstance(o, Tensor) and id(o) not in input_ids}
        for o in outputs:
            if isinstance(o, Tensor) and id(o) in input_ids and id(o) not in ctx.dirty:
                alias = Tensor._make(o._storage, o._shape, o._stride, o._offset, o.dtype)
                if id(o) in ctx.non_differentiable:
                    ctx.non_differentiable = ctx.non_differentiable | {id(alias)}
                o = alias
            fixed.append(o)
        for o in fixed:
            if isinstance(o, Tensor) and id(o) in ctx.dirty and o._requires_grad and o.grad_fn is None:
                raise RuntimeError(f"{cls.__name__}: a leaf Variable that requires grad is being used in an "
                                   "in-place operation.")
            if (isinstance(o, Tensor) and id(o) in ctx.dirty and o._base is not None and o._base._requires_grad
                    and o._base.grad_fn is None):
                raise RuntimeError(f"{cls.__name__}: a view of a leaf Variable that requires grad is being used in "
                                   "an in-place operation.")
        tensor_outputs = [o for o in fixed if isinstance(o, Tensor)]
        if len(tensor_outputs) != len(fixed):  # backward takes one gradient per output, tensor or not
            ctx._output_positions = (len(fixed), [i for i, o in enumerate(fixed) if isinstance(o, Tensor)])
        ctx._outputs_ids = {id(o): i for i, o in enumerate(tensor_outputs)}
        to_save = ctx._to_save or ()
        ctx._to_save = None
        ctx.save_for_backward(*to_save)
        graph.attach_outputs(node, tensor_outputs)
        for k, o in enumerate(tensor_outputs):
            # A view (or an input returned as-is) written in place afterwards would need autograd's
            # view rebasing, which would bypass the custom backward: PyTorch forbids it (at the write)
            if id(o) not in ctx.dirty and (o._base is not None or id(o) not in created):
                o._custom_function_view = (k, cls.__name__)
        for o in tensor_outputs:  # a view written in place (mark_dirty): its base's history is rebased,
            if id(o) in ctx.dirty and o._base is not None:  # as for a built-in in-place op (CopySlices)
                graph.rebase_view(o)
        if len(fixed) == 1 and not isinstance(result, tuple):
            return fixed[0]
        return tuple(fixed)


class _DelayedError(Function):
    """Hands its inputs back; differentiating through them raises (PyTorch's DelayedError)."""

    @staticmethod
    def forward(ctx, message, *tensors):
        ctx.message = message
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        raise RuntimeError(ctx.message)


class once_differentiable:  # noqa: N801 - PyTorch's name
    """Decorator for ``backward``: its gradients are computed without recording a graph. Under
    ``create_graph`` they still require grad, through a node that raises when differentiated, as
    PyTorch's (a second derivative through them would silently be missing)."""

    def __new__(cls, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(ctx, *grads):
            from .._tensor import Tensor

            with no_grad():
                outputs = fn(ctx, *grads)
            if not is_grad_enabled() or not any(isinstance(g, Tensor) and g.requires_grad for g in grads):
                return outputs
            single = not isinstance(outputs, tuple)
            fake = [o.detach().requires_grad_(True) if isinstance(o, Tensor) and o.dtype.is_floating_point else o
                    for o in ((outputs,) if single else outputs)]
            wrapped = _DelayedError.apply("trying to differentiate twice a function that was marked with "
                                          "@once_differentiable", *fake)
            return wrapped[0] if single else wrapped

        return wrapper
