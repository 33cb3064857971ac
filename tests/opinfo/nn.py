"""OpInfo entries for the nn ops (issue 5): layer_norm, rms_norm (fused kernels), group_norm (on the
layer-norm op), dropout (Philox kernel: p = 0, p = 1 and a seeded p = 0.4), embedding (row gather).

References are numpy, written here from the definitions. The seeded dropout's reference draws the
keep mask from ``tensorlab_kernels.random.philox4x32`` (the Philox twin that the random family
tests against known answers) with the counter scheme the op documents: element ``e`` uses lane
``e % 4`` of counter ``e // 4`` of the seed's stream, dropped when its top 24 bits are below
``round(p * 2**24)``.

Samples cover: one and several normalized dims, no affine, size-1, empty rows, an odd row
length that leaves a masked tail (1025), NaN/inf rows; 0-d and empty indices; the generic test
also runs everything non-contiguous (NaN in the gaps) and on cuda.
"""

from __future__ import annotations

import numpy as np

import tensorlab as tl
import tensorlab.nn.functional as F
from tensorlab.nn.functional import layers as _layers
from tensorlab_kernels.random import philox4x32
from tests.helpers import random_array

from .core import OpInfo, SampleInput, float_dtypes

F32, F16, BF16, F64 = tl.float32, tl.float16, tl.bfloat16, tl.float64
NORM_TOL = {F32: (1e-5, 1e-5), F16: (2e-3, 1e-4), BF16: (2e-2, 1e-3)}

# ----------------------------------------------------------------------------------------------
# references
# ----------------------------------------------------------------------------------------------


def _ln_ref(rms):
    def ref(x, w, b, shape, eps=1e-5):
        k = len(shape)
        ax = tuple(range(x.ndim - k, x.ndim))
        with np.errstate(all="ignore"):
            if rms:
                y = x / np.sqrt((x * x).mean(ax, keepdims=True) + eps)
            else:
                mu = x.mean(ax, keepdims=True)
                y = (x - mu) / np.sqrt(((x - mu) ** 2).mean(ax, keepdims=True) + eps)
        if w is not None:
            y = y * w
        if b is not None:
            y = y + b
        return y

    return ref


def _group_norm_ref(x, groups, w, b):
    g = x.reshape(x.shape[0], groups, -1)
    y = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5)).reshape(x.shape)
    shape = [1, x.shape[1]] + [1] * (x.ndim - 2)
    return y * w.reshape(shape) + b.reshape(shape)


def _seeded_dropout_ref(x, p=0.4, seed=7):
    n = x.size
    r = np.stack(philox4x32(seed, np.arange(-(-n // 4), dtype=np.uint64)), axis=1).reshape(-1)[:n]
    keep = (r >> np.uint32(8)).astype(np.int64) >= int(round(p * 2**24))
    with np.errstate(invalid="ignore"):
        return x * np.where(keep, 1 / (1 - p), 0.0).reshape(x.shape)


def _seeded_dropout(x, p=0.4, seed=7):
    tl.manual_seed(seed)  # every call (gradcheck, cpu, cuda) draws the same mask
    return F.dropout(x, p)


# ----------------------------------------------------------------------------------------------
# samples
# ----------------------------------------------------------------------------------------------


def _nan_rows(dtype):
    x = np.array([[1.0, np.nan, 2.0, 0.5], [np.inf, 1.0, 0.0, 2.0], [0.25, -1.0, 3.0, 2.0]])
    return x.astype(dtype.np)


def _norm_samples(rms):
    def samples(dtype, rng):
        def a(shape, low=-3, high=3):
            return random_array(shape, dtype, rng, low=low, high=high)

        b = (lambda shape: None) if rms else a
        out = [
            SampleInput((a((3, 5)), a((5,)), b((5,)), (5,)), name="rows"),
            SampleInput((a((2, 3, 4)), a((3, 4)), b((3, 4)), (3, 4)), {"eps": 1e-3}, name="2-dims"),
            SampleInput((a((4, 7)), None, None, (7,)), name="no-affine"),
            SampleInput((a((5,)), a((5,)), b((5,)), (5,)), name="one-row"),
            SampleInput((a((1, 1)), a((1,)), b((1,)), (1,)), name="size-1"),
            SampleInput((a((0, 4)), a((4,)), b((4,)), (4,)), name="no-rows"),
            SampleInput((a((2, 1025)), a((1025,)), b((1025,)), (1025,)), name="2x1025", grad_args=()),
            SampleInput((_nan_rows(dtype), a((4,)), b((4,)), (4,)), name="nan-inf"),
        ]
        if rms:  # the default eps (machine epsilon of the compute type) is tested in tests/nn
            for s in out:
                s.kwargs.setdefault("eps", 1e-6)
        return out

    return samples


def _group_norm_samples(dtype, rng):
    def a(shape):
        return random_array(shape, dtype, rng)

    return [SampleInput((a((2, 4, 3)), 2, a((4,)), a((4,))), name="groups-2"),
            SampleInput((a((3, 6)), 3, a((6,)), a((6,))), name="2d"),
            SampleInput((a((1, 2, 2, 3)), 1, a((2,)), a((2,))), name="one-group")]


def _dropout_samples(dtype, rng):
    out = [SampleInput((random_array((3, 7), dtype, rng),), name="3x7"),
           SampleInput((random_array((), dtype, rng),), name="0d"),
           SampleInput((random_array((0, 3), dtype, rng),), name="empty"),
           SampleInput((random_array((2, 1025), dtype, rng),), name="2x1025", grad_args=())]
    out.append(SampleInput((np.array([np.inf, -np.inf, np.nan, 0.0, -2.0], dtype=np.float64).astype(dtype.np),),
                           name="extremal"))
    return out


def _embedding_samples(dtype, rng):
    def w(shape):
        return random_array(shape, dtype, rng)

    def idx(shape, high):
        return random_array(shape, tl.int64, rng, low=0, high=high - 1)

    return [
        SampleInput((w((7, 3)), idx((2, 3), 7)), name="2d-index", grad_args=(0,)),
        SampleInput((w((5, 4)), idx((6,), 5)), name="repeats", grad_args=(0,)),
        SampleInput((w((3, 2)), np.array(2, dtype=np.int64)), name="0d-index", grad_args=(0,)),
        SampleInput((w((4, 3)), np.zeros((0,), np.int64)), name="empty-index", grad_args=(0,)),
        SampleInput((w((6, 5)), idx((3, 4), 6)), {"padding_idx": 2}, name="padding", grad_args=()),
    ]


def _embedding_ref(w, idx, padding_idx=None):
    return w[idx]


OPS = [
    OpInfo("nn.functional.layer_norm", lambda x, w, b, shape, **kw: F.layer_norm(x, shape, w, b, **kw),
           _ln_ref(False), _norm_samples(False), float_dtypes(), cuda_dtypes=(F32, BF16), tol=NORM_TOL),
    OpInfo("nn.functional.rms_norm", lambda x, w, b, shape, **kw: F.rms_norm(x, shape, w, **kw),
           _ln_ref(True), _norm_samples(True), float_dtypes(), cuda_dtypes=(F32, F16), tol=NORM_TOL),
    OpInfo("nn.functional.group_norm", lambda x, g, w, b: F.group_norm(x, g, w, b), _group_norm_ref,
           _group_norm_samples, (F32, F64), cuda_dtypes=(F32,), tol=NORM_TOL),
    OpInfo("nn.functional.dropout_p1", lambda x: F.dropout(x, 1.0), lambda x: x * 0.0, _dropout_samples,
           float_dtypes(), cuda_dtypes=(F32, F16)),
    OpInfo("nn.functional.dropout_p0_kernel", lambda x: _layers._dropout(x, 0.0), lambda x: x.copy(),
           _dropout_samples, float_dtypes(), cuda_dtypes=(F32, BF16)),
    OpInfo("nn.functional.dropout_seeded", _seeded_dropout, _seeded_dropout_ref, _dropout_samples, float_dtypes(),
           cuda_dtypes=(F32, F16), tol={F16: (1e-3, 1e-5), BF16: (1.6e-2, 1e-5)}),
    OpInfo("nn.functional.embedding", lambda w, idx, **kw: F.embedding(idx, w, **kw), _embedding_ref,
           _embedding_samples, float_dtypes(), cuda_dtypes=(F32, F16)),
]
