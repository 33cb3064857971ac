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


def _user_backward(cls):
    def backward(ctx, *grads):
        from .._tensor import Tensor

        positions = ctx._output_positions
        if positions is not None:  # forward returned non-tensors too: they get None, as in PyTorch
            full = [None] * positions[0]
            for p, g in zip(positions[1], grads):
                full[p] = g
            grads = full
        result = cls.backward(ctx, *grads)
        if not isinstance(result, tuple | list):
            result = (result,)
        structure = ctx._node().input_structure
        n = len(structure)
        if len(result) > n and all(g is None for g in result[n:]):
            result = result[:n]  # PyTorch accepts extra trailing Nones
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
        raise NotImplementedError("You must implement the backward function for custom autograd.Function.")

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
        for o in tensor_outputs:  # a view written in place (mark_dirty): its base's history is rebased,
            if id(o) in ctx.dirty and o._base is not None:  # as for a built-in in-place op (CopySlices)
                graph.rebase_view(o)
        if len(fixed) == 1 and not isinstance(result, tuple):
            return fixed[0]
        return tuple(fixed)


class once_differentiable:  # noqa: N801 - PyTorch's name
    """Decorator for ``backward``: its gradients are computed without recording a graph."""

    def __new__(cls, fn):
        import functools

        @functools.wraps(fn)
        def wrapper(ctx, *grads):
            with no_grad():
                return fn(ctx, *grads)

        return wrapper
