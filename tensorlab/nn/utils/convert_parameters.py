"""``parameters_to_vector`` / ``vector_to_parameters``: all parameters as one flat vector and back."""

from __future__ import annotations

from ..._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param: Tensor, old_param_device: int | None) -> int:
    """-1 for cpu, the index for cuda; TypeError when parameters sit on different devices."""
    if old_param_device is None:
        return param.get_device() if param.is_cuda else -1
    warn = param.get_device() != old_param_device if param.is_cuda else old_param_device != -1
    if warn:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return old_param_device


def parameters_to_vector(parameters) -> Tensor:
    """Flatten and concatenate ``parameters`` into one 1-D tensor (differentiable, like ``cat``)."""
    from ...ops.shape_ops import cat

    device = None
    vec = []
    for param in parameters:
        device = _check_param_device(param, device)
        vec.append(param.reshape(-1))
    return cat(vec)  # (no parameters: cat's ValueError, as PyTorch's)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Point each parameter's ``.data`` at its slice of ``vec`` (views: no copy), as PyTorch does."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected tensorlab.Tensor, but got: {type(vec).__name__}")
    parameters = list(parameters)
    total = sum(p.numel() for p in parameters)
    if vec.dim() != 1 or vec.numel() < total:
        raise RuntimeError(f"vector_to_parameters: vec must be 1-D with at least {total} elements (the parameters' "
                           f"total), got shape {list(vec.shape)}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
