"""Embedding lookup: ``out[..., :] = weight[indices[...], :]``.

This is a row gather, so it runs on the indexing family's gather kernel
(``indexing.gather.gather_strided``): the loop is the output (``indices.shape + (dim,)``), the
weight is read at ``index * weight.stride(0)`` plus its column stride, and the indices are read
through their own strides (stride 0 along the embedding dim) — a strided or multi-dimensional
index tensor costs no copy. Indices are validated on the host before the launch.

The backward (``index_add`` of the incoming gradient into zeros, with ``padding_idx`` rows
masked out) is written with registered ops in ``tensorlab.nn.functional.layers``.

Layout of this file: launcher, numpy twin (the kernel is the indexing family's).
"""

from __future__ import annotations

import numpy as np

from ..indexing.gather import gather_strided

# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def embedding(out, weight, indices) -> None:
    """``out`` (contiguous, ``indices.shape + (weight.shape[1],)``) = rows of the 2-d ``weight``."""
    if weight.ndim != 2:
        raise ValueError(f"embedding: weight must be 2-d, got shape {weight.shape}")
    k = indices.ndim
    gather_strided(out, weight, indices, out.shape, (0,) * k + (weight.strides[1],), tuple(indices.strides) + (0,),
                   weight.shape[0], weight.strides[0], False)


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def embedding_twin(out, weight, indices) -> None:
    out[...] = weight[np.asarray(indices).astype(np.int64)]
