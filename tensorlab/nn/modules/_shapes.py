"""Shape checks shared by the layers: errors that name the layer and the shape it expects."""

from __future__ import annotations

from ..._tensor import Tensor


def need_tensor(layer: str, x, what: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{layer}: expected a Tensor as {what}, got {type(x).__name__}")


def check_last_dim(layer: str, x, size: int, attr: str, what: str = "input") -> None:
    """``x.shape[-1] == size`` (``attr``: the constructor argument that set it)."""
    need_tensor(layer, x, what)
    if x.ndim == 0 or x.shape[-1] != size:
        raise RuntimeError(f"{layer}: expected {what} with last dimension {size} ({attr}), got shape "
                           f"{list(x.shape)}")


def check_trailing(layer: str, x, shape: tuple, attr: str) -> None:
    need_tensor(layer, x)
    k = len(shape)
    if x.ndim < k or tuple(x.shape[x.ndim - k:]) != tuple(shape):
        raise RuntimeError(f"{layer}: expected input with trailing dimensions {list(shape)} ({attr}), got shape "
                           f"{list(x.shape)}")


def check_ndims(x, ndims: tuple) -> None:
    """``x.ndim`` one of ``ndims``: PyTorch's ValueError and message, which names no layer."""
    if isinstance(x, Tensor) and x.ndim not in ndims:
        dims = " or ".join(f"{d}D" for d in ndims)
        raise ValueError(f"expected {dims} input (got {x.ndim}D input)")


def check_channels(layer: str, x, channels: int, attr: str, ndims: tuple | None = None) -> None:
    need_tensor(layer, x)
    if ndims is not None:
        check_ndims(x, ndims)
    if x.ndim < 2 or x.shape[1] != channels:
        raise RuntimeError(f"{layer}: expected input with {channels} channels ({attr}) at dim 1, got shape "
                           f"{list(x.shape)}")


__all__: list[str] = []
