"""OpInfo entries for the copy ops of the foundation: clone, contiguous, dtype conversion, copy_."""

from __future__ import annotations

import numpy as np

import tensorlab as tl
from tests.helpers import random_array

from .core import OpInfo, SampleInput, all_dtypes


def _shapes_samples(dtype, rng):
    shapes = [(), (0,), (1,), (5,), (3, 7), (2, 3, 5), (4, 1, 3), (1025,)]
    samples = [SampleInput((random_array(s, dtype, rng),), name=str(s)) for s in shapes]
    if dtype.is_floating_point:
        extremal = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e-30], dtype=np.float64)
        if dtype is tl.float16:
            extremal = np.concatenate([extremal, [65504.0, -65504.0, 6e-8]])
        samples.append(SampleInput((extremal.astype(dtype.np),), name="extremal"))
    return samples


def _transposed_contiguous(x):
    return x.transpose(0, -1).contiguous() if x.ndim >= 2 else x.contiguous()


def _ref_transposed(x):
    return np.ascontiguousarray(np.swapaxes(x, 0, -1)) if x.ndim >= 2 else x.copy()


def _conversion(target):
    def op(x):
        return x.to(target)

    def ref(x):
        with np.errstate(invalid="ignore", over="ignore"):
            # double -> float -> half, as PyTorch converts
            src = x.astype(np.float32) if (target.itemsize == 2 and target.is_floating_point and
                                           x.dtype == np.float64) else x
            return src.astype(target.np)

    return op, ref


def _conversion_samples(target):
    def samples(dtype, rng):
        # float -> unsigned of a negative value is undefined behaviour (in C, numpy and PyTorch alike)
        low = 0 if target is tl.uint8 and dtype.is_floating_point else None
        out = [SampleInput((random_array(s, dtype, rng, low=low),), name=str(s)) for s in [(), (0,), (7,), (3, 5)]]
        if dtype.is_floating_point and target.is_floating_point:
            out.append(SampleInput((np.array([np.inf, -np.inf, np.nan, -0.0], dtype=dtype.np),), name="extremal"))
        return out

    return samples


def _copy_into(dst, src):
    return dst.clone().copy_(src)


def _copy_samples(dtype, rng):
    return [
        SampleInput((random_array((3, 4), dtype, rng), random_array((3, 4), dtype, rng)), name="same"),
        SampleInput((random_array((3, 4), dtype, rng), random_array((4,), dtype, rng)), name="broadcast"),
        SampleInput((random_array((2, 1, 3), dtype, rng), random_array((1, 3), dtype, rng)), name="broadcast2"),
    ]


OPS = [
    OpInfo("clone", tl.clone, lambda x: x.copy(), _shapes_samples, all_dtypes(), ref_float64=False),
    OpInfo("contiguous_of_transpose", _transposed_contiguous, _ref_transposed, _shapes_samples, all_dtypes(),
           ref_float64=False),
    OpInfo("copy_", _copy_into, lambda dst, src: np.broadcast_to(src, dst.shape).copy(), _copy_samples,
           all_dtypes(), ref_float64=False),
]

for _target in all_dtypes():
    _op, _ref = _conversion(_target)
    OPS.append(OpInfo(f"to_{_target.name}", _op, _ref, _conversion_samples(_target), all_dtypes(),
                      grad=_target is tl.float64, ref_float64=False,
                      out_dtype=lambda dtype, t=_target: t))
