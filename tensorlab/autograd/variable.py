"""``Variable``: PyTorch's legacy wrapper, still met in older code. Tensors and Variables merged
long ago: every tensor is a Variable (``isinstance(t, Variable)``), and ``Variable(t,
requires_grad=False)`` is a new tensor sharing ``t``'s memory, outside the graph, as PyTorch's."""

from __future__ import annotations


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        from .._tensor import Tensor

        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        from .._factories import tensor
        from .._tensor import Tensor

        if data is None:
            return tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        return data.detach().requires_grad_(bool(requires_grad))
