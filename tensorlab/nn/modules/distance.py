"""nn modules: distances (PyTorch's ``PairwiseDistance`` and ``CosineSimilarity``)."""

from __future__ import annotations

from .. import functional as F
from .module import Module


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` over the last dim (see ``functional.pairwise_distance``)."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """Cosine similarity along ``dim`` (see ``functional.cosine_similarity``)."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


__all__ = ["CosineSimilarity", "PairwiseDistance"]
