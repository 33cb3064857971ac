"""nn modules: ``AdaptiveAvgPool1d`` and ``AdaptiveMaxPool1d`` (see ``tensorlab.nn.functional.pooling``)."""

from __future__ import annotations

from ..functional.pooling import adaptive_avg_pool1d, adaptive_max_pool1d
from .module import Module

__all__ = ["AdaptiveAvgPool1d", "AdaptiveMaxPool1d"]


class AdaptiveAvgPool1d(Module):
    """(N, C, L) or (C, L) -> (..., ``output_size``): the mean of each adaptive bin."""

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(Module):
    """(N, C, L) or (C, L) -> (..., ``output_size``): the max of each adaptive bin (and where it is)."""

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input):
        return adaptive_max_pool1d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
