"""nn modules: ``Identity``, ``Linear``, ``Bilinear`` (PyTorch's signatures, names and initialisation)."""

from __future__ import annotations

import math

from ..._factories import empty
from ...autograd.grad_mode import no_grad
from .. import functional as F
from .. import init
from ..parameter import Parameter, UninitializedParameter
from ._shapes import check_last_dim, need_tensor
from .lazy import LazyModuleMixin
from .module import Module


class Identity(Module):
    """Returns its input; constructor arguments are accepted and ignored (as PyTorch)."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` with ``weight`` (out_features, in_features) and ``bias`` (out_features).

    Initialisation (PyTorch's): ``weight`` from ``kaiming_uniform_(a=sqrt(5))``, i.e.
    U(-1/sqrt(in_features), 1/sqrt(in_features)), and ``bias`` from the same bound.
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        check_last_dim("Linear", input, self.in_features, "in_features")
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose ``in_features`` is the last dim of its first input; it then becomes a Linear
    (initialised as one). ``weight`` and ``bias`` are placeholders until then."""

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__(0, 0, False)  # (no bias: a tensor that would be replaced at once)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()
        if self.in_features == 0:  # materialized by load_state_dict: in_features is still to learn
            if input.shape[-1] != self.weight.shape[-1]:
                raise AssertionError(f"The in_features inferred from input: {input.shape[-1]} is not equal to "
                                     f"in_features from self.weight: {self.weight.shape[-1]}")
            self.in_features = input.shape[-1]


class NonDynamicallyQuantizableLinear(Linear):
    """PyTorch's name for MultiheadAttention's ``out_proj`` (a plain Linear; the name shows in repr)."""


class Bilinear(Module):
    """``y = x1^T A x2 + b`` with ``weight`` (out_features, in1_features, in2_features); weight and bias
    initialised U(-1/sqrt(in1_features), 1/sqrt(in1_features))."""

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        if in1_features <= 0:  # (the initialisation bound divides by it)
            raise ValueError(f"in1_features must be > 0, but got (in1_features={in1_features})")
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        check_last_dim("Bilinear", input1, self.in1_features, "in1_features", "input1")
        check_last_dim("Bilinear", input2, self.in2_features, "in2_features", "input2")
        need_tensor("Bilinear", input2, "input2")
        if tuple(input1.shape[:-1]) != tuple(input2.shape[:-1]):
            raise RuntimeError(f"Bilinear: expected input1 and input2 with the same batch dimensions, got shapes "
                               f"{list(input1.shape)} and {list(input2.shape)}")
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


__all__ = ["Bilinear", "Identity", "LazyLinear", "Linear"]  # NonDynamicallyQuantizableLinear: not in torch.nn either
