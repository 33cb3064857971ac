"""The hook-based (deprecated) weight normalization, ``w = g * v / ||v||``, from
https://arxiv.org/abs/1602.07868 (PyTorch's ``torch.nn.utils.weight_norm``): ``weight`` becomes the
parameters ``weight_g`` and ``weight_v`` and a forward pre-hook recomputes ``weight`` from them.

Also the two functions behind every weight norm (PyTorch's ``torch.norm_except_dim`` and
``torch._weight_norm``), written with tensorlab ops so they have gradients on both devices.
"""

from __future__ import annotations

import warnings
from typing import Any, TypeVar

from ..._tensor import Tensor
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dim but ``dim``, shaped to broadcast against ``v``
    (size 1 except along ``dim``); ``dim=-1`` means over the whole tensor (a 0-d result), as
    PyTorch's ``norm_except_dim`` (not the last dim)."""
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = [1] * v.dim()
        shape[0] = v.size(0)
        return v.contiguous().view(v.size(0), -1).norm(pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = [1] * v.dim()
        shape[-1] = v.size(-1)
        return v.contiguous().view(-1, v.size(-1)).norm(pow, 0).view(shape)
    return _norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _weight_norm(v: Tensor, g: Tensor, dim: int = 0) -> Tensor:
    """``v * (g / ||v||)`` with the norm over every dim but ``dim`` (the whole tensor for -1)."""
    if v.device != g.device:
        raise RuntimeError(f"weight_norm: expected v_in and g_in to be on the same device, but v_in is on {v.device} "
                           f"and g_in is on {g.device}")
    return v * (g / _norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    name: str
    dim: int

    def __init__(self, name: str, dim: int) -> None:
        if dim is None:
            dim = -1
        self.name = name
        self.dim = dim

    def compute_weight(self, module: Module) -> Any:
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int) -> WeightNorm:
        warnings.warn("`tensorlab.nn.utils.weight_norm` is deprecated in favor of "
                      "`tensorlab.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        if dim is None:
            dim = -1
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        # g first: a bad dim raises before the module changes (PyTorch deletes the weight first)
        g = Parameter(_norm_except_dim(weight, 2, dim).data)
        del module._parameters[name]
        module.register_parameter(name + "_g", g)
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


T_module = TypeVar("T_module", bound=Module)


def weight_norm(module: T_module, name: str = "weight", dim: int = 0) -> T_module:
    """Deprecated (FutureWarning, as PyTorch): prefer ``nn.utils.parametrizations.weight_norm``.

    Replace the parameter ``name`` by ``<name>_g`` (the magnitude: its norm over every dim but
    ``dim``; ``dim=None``: over the whole tensor) and ``<name>_v`` (the direction, initially the
    weight); a forward pre-hook recomputes ``<name> = g * v / ||v||`` before every forward."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: T_module, name: str = "weight") -> T_module:
    """Turn ``weight_norm``'s ``<name>_g``/``<name>_v`` back into one parameter ``<name>`` (its
    current value) and drop the hook."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")
