"""OpInfo entries for the shape / data-movement family (tensorlab/ops/shape_ops.py).

References are numpy's own functions (np.concatenate, np.stack, np.flip, np.roll, np.tile,
np.repeat, np.tril, np.diag, np.trace, np.meshgrid, ...). Samples cover 0-d (where the op takes
it), empty, size-1, odd sizes, negative dims, and one sample per kernel larger than a block
(1025+ elements: a masked tail and several programs; no gradcheck there, ``grad_args=()``).
The cuda dtypes are a subset (the interpreter is slow): a float, a half type, an integer and
bool for ops with kernels of their own; one float for the compositions of those.
"""

from __future__ import annotations

import numpy as np

import tensorlab as tl
from tests.helpers import random_array

from .core import OpInfo, SampleInput, all_dtypes

CUDA_KERNEL = (tl.float32, tl.bfloat16, tl.int64, tl.bool)  # ops with their own launcher/kernel
CUDA_MIN = (tl.float32,)  # compositions of other ops (stacks, views)
FEW = (tl.float32, tl.float64, tl.int64, tl.bool)  # ops that only build views


def _arr(shape, dtype, rng):
    return random_array(shape, dtype, rng)


# ----------------------------------------------------------------------------------------------
# cat / stack family
# ----------------------------------------------------------------------------------------------


def _cat(*xs, dim=0):
    return tl.cat(list(xs), dim)


def _cat_ref(*xs, dim=0):
    return np.concatenate(xs, axis=dim)


def _cat_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3, 5), a(2, 5)), {"dim": 0}, "rows"),
        SampleInput((a(2, 3), a(2, 1), a(2, 4)), {"dim": -1}, "three_cols_neg_dim"),
        SampleInput((a(2, 3, 5), a(2, 1, 5)), {"dim": -2}, "3d_neg_dim"),
        SampleInput((a(1), a(1)), {"dim": 0}, "size1"),
        SampleInput((a(4),), {"dim": 0}, "single"),
        SampleInput((a(0, 3), a(2, 3), a(0, 3)), {"dim": 0}, "empty_parts"),
        SampleInput((a(2, 0), a(2, 0)), {"dim": 1}, "all_empty"),
        SampleInput((a(3, 4), _arr((3, 2), tl.int16, rng), _arr((3, 1), tl.bool, rng)), {"dim": 1}, "mixed_dtypes"),
        SampleInput((a(700), a(400)), {"dim": 0}, "large", grad_args=()),
    ]


def _stack(*xs, dim=0):
    return tl.stack(list(xs), dim)


def _stack_ref(*xs, dim=0):
    return np.stack(xs, axis=dim)


def _stack_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3, 5), a(3, 5)), {"dim": 0}, "dim0"),
        SampleInput((a(2, 3), a(2, 3), a(2, 3)), {"dim": 1}, "dim1"),
        SampleInput((a(2, 3), a(2, 3)), {"dim": -1}, "neg_dim"),
        SampleInput((a(), a(), a()), {"dim": 0}, "0d"),
        SampleInput((a(0, 2), a(0, 2)), {"dim": 1}, "empty"),
        SampleInput((a(1),), {"dim": 0}, "single"),
        SampleInput((a(3, 2), _arr((3, 2), tl.int8, rng)), {"dim": 2}, "mixed_dtypes"),
        SampleInput((a(600), a(600)), {"dim": 1}, "large", grad_args=()),
    ]


def _list_op(fn):
    return lambda *xs: fn(list(xs))


def _hvd_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3), a(2)), name="1d_1d"),
        SampleInput((a(2, 3), a(2, 3)), name="2d"),
        SampleInput((a(), a()), name="0d"),
        SampleInput((a(2, 1, 3), a(2, 2, 3)), name="3d"),
    ]


def _vstack_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3), a(3)), name="1d"),
        SampleInput((a(2, 3), a(1, 3), a(3)), name="2d_1d"),
        SampleInput((a(), a()), name="0d"),
        SampleInput((a(1, 2, 3), a(2, 2, 3)), name="3d"),
    ]


def _dstack_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3), a(3)), name="1d"),
        SampleInput((a(2, 3), a(2, 3)), name="2d"),
        SampleInput((a(), a()), name="0d"),
        SampleInput((a(2, 3, 1), a(2, 3, 2)), name="3d"),
    ]


def _column_stack_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3), a(3)), name="1d"),
        SampleInput((a(3, 2), a(3)), name="2d_1d"),
        SampleInput((a(), a()), name="0d"),
    ]


# ----------------------------------------------------------------------------------------------
# flip / roll
# ----------------------------------------------------------------------------------------------


def _flip_ref(x, dims):
    return np.flip(x, tuple(dims)).copy() if x.ndim else x.copy()


def _flip_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(5),), {"dims": (0,)}, "1d"),
        SampleInput((a(3, 7),), {"dims": (0, 1)}, "all_dims"),
        SampleInput((a(3, 7),), {"dims": (-1,)}, "neg_dim"),
        SampleInput((a(2, 3, 5),), {"dims": (0, 2)}, "outer_inner"),
        SampleInput((a(4, 1, 3),), {"dims": (1,)}, "size1_dim"),
        SampleInput((a(3, 4),), {"dims": ()}, "no_dims"),
        SampleInput((a(0, 3),), {"dims": (0,)}, "empty"),
        SampleInput((a(),), {"dims": (0,)}, "0d"),
        SampleInput((a(3, 1031),), {"dims": (1,)}, "large", grad_args=()),
    ]


def _roll_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(7),), {"shifts": 3, "dims": 0}, "1d"),
        SampleInput((a(3, 7),), {"shifts": (1, -2), "dims": (0, 1)}, "two_dims"),
        SampleInput((a(3, 7),), {"shifts": 5, "dims": None}, "flat"),
        SampleInput((a(2, 3, 5),), {"shifts": -4, "dims": -1}, "neg_dim"),
        SampleInput((a(2, 3, 5),), {"shifts": 1, "dims": 1}, "middle_dim"),
        SampleInput((a(4, 3),), {"shifts": (1, 1), "dims": (0, 0)}, "repeated_dim"),
        SampleInput((a(3, 2),), {"shifts": 10, "dims": 0}, "shift_beyond_size"),
        SampleInput((a(0, 3),), {"shifts": 1, "dims": 0}, "empty"),
        SampleInput((a(),), {"shifts": 2, "dims": None}, "0d"),
        SampleInput((a(3, 1031),), {"shifts": (1000, 1), "dims": (1, 0)}, "large", grad_args=()),
    ]


def _roll(x, shifts, dims):
    return tl.roll(x, shifts, dims)


def _roll_ref(x, shifts, dims):
    return np.roll(x, shifts, axis=dims)


# ----------------------------------------------------------------------------------------------
# repeat / tile / repeat_interleave
# ----------------------------------------------------------------------------------------------


def _repeat_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3),), {"sizes": (2,)}, "1d"),
        SampleInput((a(2, 3),), {"sizes": (2, 2)}, "2d"),
        SampleInput((a(2, 3),), {"sizes": (1, 1)}, "ones"),
        SampleInput((a(2, 3),), {"sizes": (2, 1, 3)}, "more_sizes_than_dims"),
        SampleInput((a(),), {"sizes": (3,)}, "0d"),
        SampleInput((a(),), {"sizes": ()}, "0d_no_sizes"),
        SampleInput((a(0, 3),), {"sizes": (2, 2)}, "empty_input"),
        SampleInput((a(2, 3),), {"sizes": (0, 2)}, "zero_repeat"),
        SampleInput((a(1, 5),), {"sizes": (3, 1)}, "size1"),
        SampleInput((a(3, 41),), {"sizes": (3, 9)}, "large", grad_args=()),
    ]


def _tile_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(2, 3),), {"dims": (2,)}, "fewer_dims"),
        SampleInput((a(3),), {"dims": (2, 2)}, "more_dims"),
        SampleInput((a(2, 1, 3),), {"dims": (1, 2, 1)}, "same"),
        SampleInput((a(),), {"dims": (2,)}, "0d"),
    ]


def _ri_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(5),), {"repeats": 3, "dim": None}, "1d"),
        SampleInput((a(2, 3),), {"repeats": 2, "dim": 0}, "dim0"),
        SampleInput((a(2, 3),), {"repeats": 2, "dim": -1}, "neg_dim"),
        SampleInput((a(2, 3),), {"repeats": 2, "dim": None}, "flatten"),
        SampleInput((a(2, 3),), {"repeats": 0, "dim": 1}, "zero"),
        SampleInput((a(2, 3, 4),), {"repeats": 1, "dim": 1}, "one"),
        SampleInput((a(),), {"repeats": 2, "dim": None}, "0d"),
        SampleInput((a(0, 3),), {"repeats": 2, "dim": 0}, "empty"),
        SampleInput((a(3, 400),), {"repeats": 3, "dim": 1}, "large", grad_args=()),
    ]


def _ri(x, repeats, dim):
    return tl.repeat_interleave(x, repeats, dim)


def _ri_ref(x, repeats, dim):
    return np.repeat(x, repeats, axis=dim)


def _ri_tensor_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    i64 = lambda *v: np.array(v, dtype=np.int64)  # noqa: E731
    return [
        SampleInput((a(5), i64(1, 0, 2, 3, 1)), {"dim": 0}, "1d", grad_args=(0,)),
        SampleInput((a(3, 4), i64(2, 0, 1)), {"dim": 0}, "dim0", grad_args=(0,)),
        SampleInput((a(3, 4), i64(1, 2, 3, 0)), {"dim": 1}, "dim1", grad_args=(0,)),
        SampleInput((a(2, 3, 4), np.array([1, 1, 2], dtype=np.int32)), {"dim": -2}, "int32_neg_dim", grad_args=(0,)),
        SampleInput((a(2, 3), np.array(2)), {"dim": None}, "0d_repeats_flatten", grad_args=(0,)),
        SampleInput((a(2, 3), i64(3)), {"dim": 1}, "1_element_repeats", grad_args=(0,)),
        SampleInput((a(0, 3), i64()), {"dim": 0}, "empty", grad_args=(0,)),
        SampleInput((a(3, 2), i64(0, 0, 0)), {"dim": 0}, "all_zero", grad_args=(0,)),
        SampleInput((a(40, 30), np.arange(40) % 3), {"dim": 0}, "large", grad_args=()),
    ]


def _ri_index_samples(dtype, rng):
    return [
        SampleInput((np.array([1, 2, 0, 3], dtype=dtype.np),), name="1d"),
        SampleInput((np.array([0, 0], dtype=dtype.np),), name="zeros"),
        SampleInput((np.array([], dtype=dtype.np),), name="empty"),
        SampleInput(((np.arange(1100) % 3).astype(dtype.np),), name="large"),
    ]


# ----------------------------------------------------------------------------------------------
# triangles and diagonals
# ----------------------------------------------------------------------------------------------


def _tri_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3, 5),), {"diagonal": 0}, "wide"),
        SampleInput((a(5, 3),), {"diagonal": 1}, "tall_above"),
        SampleInput((a(5, 3),), {"diagonal": -1}, "tall_below"),
        SampleInput((a(2, 3, 4),), {"diagonal": 2}, "batched"),
        SampleInput((a(4, 4),), {"diagonal": -10}, "far_below"),
        SampleInput((a(4, 4),), {"diagonal": 10}, "far_above"),
        SampleInput((a(0, 3),), {"diagonal": 0}, "empty"),
        SampleInput((a(1, 1),), {"diagonal": 0}, "size1"),
        SampleInput((a(3, 1031),), {"diagonal": 500}, "large", grad_args=()),
    ]


def _diag_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(4),), {"diagonal": 0}, "1d"),
        SampleInput((a(4),), {"diagonal": 1}, "1d_above"),
        SampleInput((a(3),), {"diagonal": -2}, "1d_below"),
        SampleInput((a(3, 5),), {"diagonal": 0}, "2d"),
        SampleInput((a(3, 5),), {"diagonal": 2}, "2d_above"),
        SampleInput((a(3, 5),), {"diagonal": -1}, "2d_below"),
        SampleInput((a(3, 5),), {"diagonal": 6}, "2d_off_the_matrix"),
        SampleInput((a(0),), {"diagonal": 0}, "empty"),
        SampleInput((a(1),), {"diagonal": 0}, "size1"),
        SampleInput((a(1100),), {"diagonal": 0}, "large", grad_args=()),
    ]


def _diag_embed_ref(x, offset=0, dim1=-2, dim2=-1):
    n = x.shape[-1] + abs(offset)
    nd = x.ndim + 1
    out = np.zeros(x.shape[:-1] + (n, n), x.dtype)
    for i in range(x.shape[-1]):
        out[..., i + max(-offset, 0), i + max(offset, 0)] = x[..., i]
    return np.moveaxis(out, (-2, -1), (dim1 % nd, dim2 % nd))


def _diag_embed_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3),), {}, "1d"),
        SampleInput((a(2, 3),), {"offset": 1}, "batched_above"),
        SampleInput((a(2, 3),), {"offset": -1, "dim1": 0, "dim2": 2}, "outer_dims"),
        SampleInput((a(2, 3),), {"offset": 2, "dim1": 2, "dim2": 0}, "reversed_dims"),
        SampleInput((a(2, 4),), {"offset": 0, "dim1": 1, "dim2": -1}, "neg_dim"),
        SampleInput((a(0),), {}, "empty"),
        SampleInput((a(1),), {}, "size1"),
        SampleInput((a(2, 40),), {"offset": 1}, "large", grad_args=()),
    ]


def _trace_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3, 5),), name="wide"),
        SampleInput((a(5, 3),), name="tall"),
        SampleInput((a(1, 1),), name="size1"),
        SampleInput((a(0, 0),), name="empty"),
        SampleInput((a(4, 4),), name="square"),
    ]


# ----------------------------------------------------------------------------------------------
# views: meshgrid, broadcast_tensors, atleast_nd
# ----------------------------------------------------------------------------------------------


def _meshgrid_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3), a(4)), {"indexing": "ij"}, "ij"),
        SampleInput((a(3), a(4)), {"indexing": "xy"}, "xy"),
        SampleInput((a(2), a(3), a(4)), {"indexing": "xy"}, "xy_three"),
        SampleInput((a(2), a(3), a(1)), {"indexing": "ij"}, "ij_three"),
        SampleInput((a(5),), {"indexing": "xy"}, "one"),
        SampleInput((a(), a(3)), {"indexing": "ij"}, "0d"),
        SampleInput((a(0), a(2)), {"indexing": "xy"}, "empty"),
    ]


def _broadcast_samples(dtype, rng):
    a = lambda *s: _arr(s, dtype, rng)  # noqa: E731
    return [
        SampleInput((a(3, 1), a(1, 4)), name="outer"),
        SampleInput((a(2, 3), a(3)), name="leading"),
        SampleInput((a(), a(2, 2)), name="0d"),
        SampleInput((a(0, 3), a(1, 3)), name="empty"),
        SampleInput((a(2, 3),), name="single"),
    ]


def _atleast_samples(dtype, rng):
    return [SampleInput((_arr(s, dtype, rng),), name=str(s)) for s in [(), (3,), (2, 3), (2, 1, 3), (0,)]]


def _first(fn):
    return lambda x: fn(x)


OPS = [
    OpInfo("cat", _cat, _cat_ref, _cat_samples, all_dtypes(), cuda_dtypes=CUDA_KERNEL),
    OpInfo("stack", _stack, _stack_ref, _stack_samples, all_dtypes(), cuda_dtypes=CUDA_KERNEL),
    OpInfo("hstack", _list_op(tl.hstack), lambda *xs: np.hstack(xs), _hvd_samples, FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("vstack", _list_op(tl.vstack), lambda *xs: np.vstack(xs), _vstack_samples, FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("dstack", _list_op(tl.dstack), lambda *xs: np.dstack(xs), _dstack_samples, FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("column_stack", _list_op(tl.column_stack), lambda *xs: np.column_stack(xs), _column_stack_samples, FEW,
           cuda_dtypes=CUDA_MIN),
    OpInfo("flip", lambda x, dims: tl.flip(x, dims), _flip_ref, _flip_samples, all_dtypes(), cuda_dtypes=CUDA_KERNEL),
    OpInfo("fliplr", tl.fliplr, np.fliplr, lambda d, r: [SampleInput((_arr(s, d, r),)) for s in [(3, 4), (2, 3, 2)]],
           FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("flipud", tl.flipud, np.flipud, lambda d, r: [SampleInput((_arr(s, d, r),)) for s in [(5,), (3, 4)]],
           FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("roll", _roll, _roll_ref, _roll_samples, all_dtypes(), cuda_dtypes=CUDA_KERNEL),
    OpInfo("repeat", lambda x, sizes: x.repeat(sizes), lambda x, sizes: np.tile(x, sizes), _repeat_samples,
           all_dtypes(), cuda_dtypes=CUDA_KERNEL),
    OpInfo("tile", lambda x, dims: tl.tile(x, dims), lambda x, dims: np.tile(x, dims), _tile_samples, FEW,
           cuda_dtypes=CUDA_MIN),
    OpInfo("repeat_interleave", _ri, _ri_ref, _ri_samples, all_dtypes(), cuda_dtypes=CUDA_KERNEL),
    OpInfo("repeat_interleave_tensor", lambda x, r, dim: tl.repeat_interleave(x, r, dim),
           lambda x, r, dim: np.repeat(x, r, axis=dim), _ri_tensor_samples, all_dtypes(), cuda_dtypes=CUDA_KERNEL),
    OpInfo("repeat_interleave_index", lambda r: tl.repeat_interleave(r),
           lambda r: np.repeat(np.arange(r.shape[0]), r), _ri_index_samples, (tl.int32, tl.int64), grad=False,
           out_dtype=lambda dtype: dtype),
    OpInfo("tril", lambda x, diagonal: tl.tril(x, diagonal), lambda x, diagonal: np.tril(x, diagonal),
           _tri_samples, all_dtypes(), cuda_dtypes=CUDA_KERNEL),
    OpInfo("triu", lambda x, diagonal: tl.triu(x, diagonal), lambda x, diagonal: np.triu(x, diagonal),
           _tri_samples, all_dtypes(), cuda_dtypes=CUDA_KERNEL),
    OpInfo("diag", lambda x, diagonal: tl.diag(x, diagonal), lambda x, diagonal: np.diag(x, diagonal),
           _diag_samples, all_dtypes(), cuda_dtypes=CUDA_KERNEL),
    OpInfo("diag_embed", tl.diag_embed, _diag_embed_ref, _diag_embed_samples, all_dtypes(), cuda_dtypes=CUDA_KERNEL),
    OpInfo("trace", tl.trace, np.trace, _trace_samples, (tl.float32, tl.float64, tl.int32, tl.int64),
           cuda_dtypes=CUDA_MIN),
    OpInfo("meshgrid", lambda *xs, indexing: tl.meshgrid(*xs, indexing=indexing),
           lambda *xs, indexing: np.meshgrid(*xs, indexing=indexing), _meshgrid_samples, FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("broadcast_tensors", tl.broadcast_tensors, np.broadcast_arrays, _broadcast_samples, FEW,
           cuda_dtypes=CUDA_MIN),
    OpInfo("atleast_1d", _first(tl.atleast_1d), np.atleast_1d, _atleast_samples, FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("atleast_2d", _first(tl.atleast_2d), np.atleast_2d, _atleast_samples, FEW, cuda_dtypes=CUDA_MIN),
    OpInfo("atleast_3d", _first(tl.atleast_3d), np.atleast_3d, _atleast_samples, FEW, cuda_dtypes=CUDA_MIN),
]
