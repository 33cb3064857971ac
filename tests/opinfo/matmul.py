"""OpInfo entries for the matmul family: products, fused add-products, linear, outer, tensordot, einsum.

References are numpy in float64 (``ref_float64``). Tolerances: fp16/bf16 products accumulate in
fp32 and round once, so the error is the output's rounding (relative) plus an fp32 accumulation
error that grows with K (absolute, near cancellations): ``atol`` is proportional to the largest
K of the samples. Integer products wrap around exactly like numpy's.
"""

from __future__ import annotations

import numpy as np

import tensorlab as tl
from tests.helpers import random_array

from .core import OpInfo, SampleInput

FLOATS = (tl.float16, tl.bfloat16, tl.float32, tl.float64)
INTS = (tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64)
K_MAX = 45  # largest reduction length in the samples below


def _tol(k: int = K_MAX) -> dict:
    # values in [-3, 3): products up to 9, fp32 accumulation error ~ k * 9 * 2**-24 per result
    return {
        tl.float16: (2e-3, 2e-5 * k),
        tl.bfloat16: (1.6e-2, 2e-5 * k),
        tl.float32: (1e-5, 2e-6 * k),
        tl.float64: (1e-7, 1e-9 * k),
    }


def _arr(shape, dtype, rng):
    return random_array(shape, dtype, rng)


def _pairs(pairs, dtype, rng):
    return [SampleInput((_arr(a, dtype, rng), _arr(b, dtype, rng)), name=f"{a}@{b}") for a, b in pairs]


def _extremal(dtype):
    """inf/NaN propagate as in IEEE arithmetic (inf * 0 = NaN); large fp16 values that do not overflow."""
    if not dtype.is_floating_point:
        return []
    if dtype is tl.float16:
        a = np.array([[np.inf, 1.0], [np.nan, 2.0], [65504.0, 0.0]])  # the largest fp16, no overflow
    else:
        a = np.array([[np.inf, 1.0], [np.nan, 2.0], [1e30, -1e30]])
    b = np.array([[1.0, 0.0], [2.0, 3.0]])
    return [SampleInput((a.astype(dtype.np), b.astype(dtype.np)), name="extremal")]


# -- matmul / mm / bmm / mv / dot ----------------------------------------------------------------


def _matmul_samples(dtype, rng):
    small = dtype is tl.float64  # gradcheck runs on the float64 samples: keep them small
    pairs = [
        ((3,), (3,)),  # dot
        ((2, 3), (3,)),  # mv
        ((3,), (3, 4)),  # 1-D prepended, then removed
        ((5, 7), (7, 3)),
        ((2, 5, 7), (7, 3)),  # batch folded into M
        ((7,), (2, 7, 3)),  # 1-D with a batch
        ((2, 5, 7), (7,)),
        ((2, 1, 4, 3), (5, 3, 2)),  # batch broadcasting both ways
        ((1, 1), (1, 1)),
        ((1, 5), (5, 1)),
        ((0, 3), (3, 4)),
        ((2, 0), (0, 4)),  # K = 0: zeros
        ((3, 4), (4, 0)),
        ((13, 17), (17, 11)) if small else ((37, K_MAX), (K_MAX, 29)),  # masked tails in M, N and K
    ]
    return _pairs(pairs, dtype, rng) + _extremal(dtype)


def _mm_samples(dtype, rng):
    small = dtype is tl.float64
    pairs = [((1, 1), (1, 1)), ((3, 4), (4, 5)), ((0, 4), (4, 3)), ((3, 0), (0, 2)), ((2, 3), (3, 0)),
             ((13, 17), (17, 11)) if small else ((37, K_MAX), (K_MAX, 29))]
    return _pairs(pairs, dtype, rng) + _extremal(dtype)


def _bmm_samples(dtype, rng):
    pairs = [((1, 1, 1), (1, 1, 1)), ((3, 4, 5), (3, 5, 2)), ((0, 2, 3), (0, 3, 4)), ((2, 3, 0), (2, 0, 4)),
             ((2, 9, 13), (2, 13, 7))]
    return _pairs(pairs, dtype, rng)


def _mv_samples(dtype, rng):
    return _pairs([((1, 1), (1,)), ((4, 6), (6,)), ((0, 3), (3,)), ((3, 0), (0,)), ((19, 23), (23,))], dtype, rng)


def _dot_samples(dtype, rng):
    return _pairs([((1,), (1,)), ((5,), (5,)), ((0,), (0,)), ((K_MAX,), (K_MAX,))], dtype, rng)


# -- beta * input + alpha * product ---------------------------------------------------------------


def _addmm_samples(dtype, rng):
    f = dtype.is_floating_point
    alpha, beta = (0.5, -1.5) if f else (2, -3)
    out = []
    for inp, a, b, kw in [
        ((4, 5), (4, 3), (3, 5), {}),
        ((5,), (4, 3), (3, 5), {"beta": beta, "alpha": alpha}),  # a bias row (PyTorch's Linear)
        ((4, 1), (4, 3), (3, 5), {"alpha": alpha}),
        ((), (4, 3), (3, 5), {"beta": beta}),
        ((2, 4), (2, 0), (0, 4), {}),  # K = 0: beta * input
        ((11, 13), (11, 17), (17, 13), {"beta": beta, "alpha": alpha}),
    ]:
        out.append(SampleInput((_arr(inp, dtype, rng), _arr(a, dtype, rng), _arr(b, dtype, rng)), kw,
                               name=f"{inp}+{a}@{b}"))
    if f:  # beta = 0: the input is not read, NaN there is ignored (PyTorch)
        out.append(SampleInput((np.full((4, 5), np.nan, dtype=dtype.np), _arr((4, 3), dtype, rng),
                                _arr((3, 5), dtype, rng)), {"beta": 0}, name="beta0-nan", grad_args=(1, 2)))
    return out


def _addmm_ref(inp, a, b, beta=1, alpha=1):
    prod = np.matmul(a, b)
    if np.issubdtype(prod.dtype, np.integer):
        prod = prod * prod.dtype.type(alpha)
        return prod if beta == 0 else prod + (inp * inp.dtype.type(beta)).astype(prod.dtype)
    return alpha * prod + (0 if beta == 0 else beta * inp)


def _addmv_samples(dtype, rng):
    f = dtype.is_floating_point
    alpha, beta = (0.5, 2.0) if f else (2, 3)
    return [
        SampleInput((_arr((4,), dtype, rng), _arr((4, 3), dtype, rng), _arr((3,), dtype, rng)), name="plain"),
        SampleInput((_arr((1,), dtype, rng), _arr((9, 13), dtype, rng), _arr((13,), dtype, rng)),
                    {"beta": beta, "alpha": alpha}, name="broadcast"),
        SampleInput((_arr((3,), dtype, rng), _arr((3, 0), dtype, rng), _arr((0,), dtype, rng)), name="K=0"),
    ]


def _baddbmm_samples(dtype, rng):
    f = dtype.is_floating_point
    alpha, beta = (0.5, 2.0) if f else (2, 3)
    return [
        SampleInput((_arr((2, 3, 4), dtype, rng), _arr((2, 3, 5), dtype, rng), _arr((2, 5, 4), dtype, rng)),
                    name="plain"),
        SampleInput((_arr((4,), dtype, rng), _arr((3, 7, 9), dtype, rng), _arr((3, 9, 4), dtype, rng)),
                    {"beta": beta, "alpha": alpha}, name="broadcast"),
    ]


def _addbmm_ref(inp, b1, b2, beta=1, alpha=1):
    return _addmm_ref(inp, np.concatenate(list(b1), axis=1), np.concatenate(list(b2), axis=0), beta, alpha)


def _addbmm_samples(dtype, rng):
    f = dtype.is_floating_point
    alpha, beta = (0.5, 2.0) if f else (2, 3)
    return [
        SampleInput((_arr((3, 4), dtype, rng), _arr((2, 3, 5), dtype, rng), _arr((2, 5, 4), dtype, rng)),
                    name="plain"),
        SampleInput((_arr((4,), dtype, rng), _arr((3, 7, 9), dtype, rng), _arr((3, 9, 4), dtype, rng)),
                    {"beta": beta, "alpha": alpha}, name="broadcast"),
    ]


# -- linear ---------------------------------------------------------------------------------------


def _linear_samples(dtype, rng):
    out = []
    for x, w, b in [((4, 5), (3, 5), (3,)), ((2, 3, 5), (6, 5), (6,)), ((5,), (3, 5), (3,)), ((4, 5), (3, 5), None),
                    ((2, 4, 5), (5,), ()), ((0, 5), (3, 5), (3,)), ((4, 0), (3, 0), (3,)), ((9, 21), (13, 21), (13,))]:
        args = (_arr(x, dtype, rng), _arr(w, dtype, rng), None if b is None else _arr(b, dtype, rng))
        out.append(SampleInput(args, name=f"x{x} w{w} b{b}"))
    return out


def _linear_ref(x, w, b=None):
    r = np.matmul(x, w.T)
    return r if b is None else r + b


# -- outer, tensordot, einsum ---------------------------------------------------------------------


def _outer_samples(dtype, rng):
    return _pairs([((3,), (4,)), ((1,), (1,)), ((0,), (3,)), ((17,), (5,))], dtype, rng)


def _tensordot_samples(dtype, rng):
    return [
        SampleInput((_arr((3, 4, 5), dtype, rng), _arr((4, 5, 2), dtype, rng)), {"dims": 2}, name="dims=2"),
        SampleInput((_arr((3, 4), dtype, rng), _arr((5, 6), dtype, rng)), {"dims": 0}, name="dims=0 (outer)"),
        SampleInput((_arr((3, 4, 5), dtype, rng), _arr((5, 3, 2), dtype, rng)), {"dims": ([0, 2], [1, 0])},
                    name="lists"),
        SampleInput((_arr((2, 7), dtype, rng), _arr((7,), dtype, rng)), {"dims": ([1], [0])}, name="mv"),
    ]


def _tensordot(a, b, dims):
    return tl.tensordot(a, b, dims=dims)


def _einsum(equation):
    def op(*xs):
        return tl.einsum(equation, *xs)

    def ref(*xs):
        return np.einsum(equation, *xs)

    return op, ref


_EINSUM_CASES = [
    # name, equation, operand shapes
    ("matrix", "ij,jk->ik", [(3, 4), (4, 5)]),
    ("vector", "i,i->", [(7,)] * 2),
    ("matvec", "ij,j->i", [(3, 4), (4,)]),
    ("batch", "bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("transpose_out", "ij,jk->ki", [(3, 4), (4, 5)]),
    ("trace", "ii->", [(4, 4)]),
    ("diagonal", "ii->i", [(4, 4)]),
    ("batch_diagonal", "bii->bi", [(2, 3, 3)]),
    ("outer", "i,j->ij", [(3,), (5,)]),
    ("ellipsis", "...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("ellipsis_broadcast", "...ij,...jk", [(2, 1, 3, 4), (5, 4, 2)]),
    ("implicit", "ij,jk", [(3, 4), (4, 5)]),
    ("implicit_sorted", "ba,ca", [(3, 4), (5, 4)]),
    ("sum_one_operand", "ij,jk->i", [(3, 4), (4, 5)]),
    ("three_operands", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
    ("bilinear", "bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    ("repeated_with_contraction", "iij,jk->ik", [(3, 3, 4), (4, 2)]),
    ("permute_only", "ijk->kji", [(2, 3, 4)]),
    ("empty", "ij,jk->ik", [(0, 3), (3, 2)]),
]


def _einsum_samples(shapes):
    def samples(dtype, rng):
        return [SampleInput(tuple(_arr(s, dtype, rng) for s in shapes), name=str(shapes))]

    return samples


OPS = [
    OpInfo("matmul", tl.matmul, np.matmul, _matmul_samples, FLOATS + INTS, cuda_dtypes=FLOATS, tol=_tol()),
    OpInfo("matmul_operator", lambda a, b: a @ b, np.matmul, _mm_samples, (tl.float32, tl.float64, tl.int64),
           cuda_dtypes=(tl.float32,), tol=_tol()),
    OpInfo("mm", tl.mm, np.matmul, _mm_samples, FLOATS + INTS, cuda_dtypes=FLOATS, tol=_tol()),
    OpInfo("bmm", tl.bmm, np.matmul, _bmm_samples, FLOATS + INTS, cuda_dtypes=FLOATS, tol=_tol(13)),
    OpInfo("mv", tl.mv, np.matmul, _mv_samples, FLOATS + INTS, cuda_dtypes=(tl.float32, tl.bfloat16, tl.float64),
           tol=_tol(23)),
    OpInfo("dot", tl.dot, np.dot, _dot_samples, FLOATS + INTS, cuda_dtypes=(tl.float32, tl.float16, tl.float64),
           tol=_tol()),
    OpInfo("vdot", tl.vdot, np.vdot, _dot_samples, (tl.float32, tl.float64, tl.int32), cuda_dtypes=(tl.float32,),
           tol=_tol()),
    OpInfo("addmm", tl.addmm, _addmm_ref, _addmm_samples, FLOATS + (tl.int32, tl.int64), cuda_dtypes=FLOATS,
           tol=_tol(17)),
    OpInfo("addmv", tl.addmv, _addmm_ref, _addmv_samples, FLOATS + (tl.int64,),
           cuda_dtypes=(tl.float32, tl.float16, tl.float64), tol=_tol(13)),
    OpInfo("baddbmm", tl.baddbmm, _addmm_ref, _baddbmm_samples, FLOATS + (tl.int64,),
           cuda_dtypes=(tl.float32, tl.bfloat16, tl.float64), tol=_tol(9)),
    OpInfo("addbmm", tl.addbmm, _addbmm_ref, _addbmm_samples, FLOATS + (tl.int64,),
           cuda_dtypes=(tl.float32, tl.float64), tol=_tol(27)),
    OpInfo("linear", tl.linear, _linear_ref, _linear_samples, FLOATS + (tl.int64,), cuda_dtypes=FLOATS,
           tol=_tol(21)),
    OpInfo("outer", tl.outer, np.outer, _outer_samples, FLOATS + (tl.int64,), cuda_dtypes=(tl.float32, tl.int64)),
    OpInfo("tensordot", _tensordot, lambda a, b, dims: np.tensordot(a, b, axes=dims), _tensordot_samples,
           FLOATS + (tl.int64,), cuda_dtypes=(tl.float32, tl.float64), tol=_tol(20)),
]

for _name, _eq, _shapes in _EINSUM_CASES:
    _op, _ref = _einsum(_eq)
    OPS.append(OpInfo(f"einsum_{_name}", _op, _ref, _einsum_samples(_shapes), (tl.float32, tl.float64, tl.int64),
                      cuda_dtypes=(tl.float32, tl.float64), tol=_tol(12)))
