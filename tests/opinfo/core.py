"""OpInfo and SampleInput: how an op describes its test inputs, reference and supported dtypes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

import tensorlab as tl


@dataclass
class SampleInput:
    """Positional ``args`` (numpy arrays become tensors; other values pass through) and ``kwargs``.

    ``grad_args``: indices of array args that get ``requires_grad`` in gradient tests (default:
    every floating array arg).
    """

    args: tuple
    kwargs: dict = field(default_factory=dict)
    name: str = ""
    grad_args: tuple | None = None

    def __repr__(self):
        shapes = [a.shape if isinstance(a, np.ndarray) else a for a in self.args]
        return f"SampleInput({self.name or shapes}, {self.kwargs})"


@dataclass
class OpInfo:
    """One op's test description.

    name          id in test names
    op            the tensorlab callable (``tl.add``, ``lambda x: x.T.contiguous()``, ...)
    ref           independent numpy reference: ``ref(*numpy_args, **kwargs)`` -> array or tuple; floating
                  arrays are given in float64 when ``ref_float64`` so the reference is exact
    sample_inputs ``sample_inputs(dtype, rng) -> list[SampleInput]`` with arrays already in ``dtype``
                  (cover: 0-d, empty, size-1, odd sizes with masked tails, broadcasting, extremal values)
    dtypes        dtypes the op supports (all are tested on cpu)
    cuda_dtypes   dtypes tested on cuda (defaults to ``dtypes``; the interpreter is slow)
    grad          run gradcheck (float64, cpu) and compare cuda vs cpu gradients
    tol           per-dtype (rtol, atol) overrides of tests/helpers.TOLERANCES
    out_dtype     optional ``out_dtype(dtype) -> dtype`` the op must return (checked)
    noncontiguous test non-contiguous inputs (NaN in the gaps)
    """

    name: str
    op: Callable
    ref: Callable | None
    sample_inputs: Callable
    dtypes: tuple
    cuda_dtypes: tuple | None = None
    grad: bool = True
    tol: dict = field(default_factory=dict)
    out_dtype: Callable | None = None
    noncontiguous: bool = True
    ref_float64: bool = True

    def tolerance(self, dtype):
        from tests.helpers import tolerance

        if dtype in self.tol:
            return self.tol[dtype]
        return tolerance(dtype)

    def __repr__(self):
        return f"OpInfo({self.name})"


def all_dtypes():
    return (tl.float16, tl.bfloat16, tl.float32, tl.float64, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64, tl.bool)


def non_bool_dtypes():
    """Every dtype but bool (ops PyTorch refuses for bool: neg, argmax, topk, ...)."""
    return tuple(d for d in all_dtypes() if d is not tl.bool)


def float_dtypes():
    return (tl.float16, tl.bfloat16, tl.float32, tl.float64)
