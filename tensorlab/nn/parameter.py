"""``nn.Parameter``: a tensor that a Module registers as a learnable parameter."""

from __future__ import annotations

from .._tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor (``requires_grad=True`` by default) that Modules collect in ``parameters()``.

    It shares storage with ``data``; ops on a Parameter return plain Tensors.
    """

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True):
        if data is None:
            from .._factories import empty

            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
        p = Tensor._make.__func__(cls, data._storage, data._shape, data._stride, data._offset, data.dtype)
        p.requires_grad = requires_grad
        return p

    def __init__(self, data=None, requires_grad: bool = True):  # Tensor.__init__ refuses direct construction
        pass

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    # copy.copy and pickle: Tensor's (tensorlab/_tensor_copying.py), which keep the class
    def __deepcopy__(self, memo):
        from .._tensor_copying import deep_copy

        return deep_copy(self, memo, with_grad=False)  # (PyTorch's Parameter drops .grad)


class Buffer(Tensor):
    """Marker type: ``Module.__setattr__`` registers a ``Buffer`` as a buffer (PyTorch 2.5+)."""

    def __new__(cls, data: Tensor, persistent: bool = True):
        b = Tensor._make.__func__(cls, data._storage, data._shape, data._stride, data._offset, data.dtype)
        b.persistent = persistent
        return b

    def __init__(self, data=None, persistent: bool = True):
        pass
