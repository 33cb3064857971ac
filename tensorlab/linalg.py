"""``tensorlab.linalg``: the part of ``torch.linalg`` that is built from ops tensorlab has.

Norms (``vector_norm``, ``matrix_norm`` for 'fro' and the 1/inf orders, ``norm``), products
(``vecdot``, ``multi_dot``, ``matmul``, ``cross``, ``matrix_power`` for n >= 0), ``diagonal`` and ``vander``,
with torch 2.13's argument rules, dtypes and error messages. Nothing here declares an op: each
function composes registered ops (reductions, elementwise, matmul, views), so it runs on both
devices and is differentiable.

Factorizations and solvers (``det``, ``inv``, ``solve``, ``svd``, ``qr``, ``eigh``, ``cholesky``,
...) need kernels tensorlab does not have and are not here; the matrix norms that need singular
values (ord 'nuc', 2, -2) raise NotImplementedError.
"""

from __future__ import annotations

import math
import warnings

from . import _dtype as D
from ._layout import contiguous_format
from ._tensor import Tensor, norm_dim, tensor_method
from ._views import diagonal as _diagonal
from .amp.autocast_mode import autocast_op
from .ops import composite as _composite
from .ops import elementwise_common as E
from .ops import reductions as R
from .ops.matmul import matmul, mm

__all__ = ["vector_norm", "matrix_norm", "norm", "vecdot", "multi_dot", "matmul", "cross", "diagonal", "matrix_power",
           "vander"]


def _need_float(op: str, x: Tensor) -> None:
    _composite.need_tensor(op, x, "input", 1)
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f"{op}: Expected a floating point or complex tensor as input. "
                                  f"Got {D.torch_name(x.dtype)}")


def _check_dtype_arg(op: str, dtype) -> None:
    if dtype is not None and not dtype.is_floating_point:
        raise RuntimeError(f"{op}: dtype should be floating point or complex, but got {D.torch_name(dtype)}")


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """The ``ord``-norm of the vectors along ``dim`` (every element by default): any number ``ord``,
    ``inf``/``-inf`` (max/min of ``|x|``), 0 (the count of non-zeros)."""
    _need_float("linalg.vector_norm", x)
    if isinstance(ord, str):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type(ord).__name__}")
    ord = E.number_param("linalg_vector_norm", ord, "ord", "Number (real)")  # (a numpy number, a 0-d tensor)
    _check_dtype_arg("linalg.vector_norm", dtype)
    return R.norm(x, float(ord), dim=dim, keepdim=keepdim, dtype=dtype, out=out)


_MATRIX_ORDERS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def matrix_norm(input: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """The ``ord``-norm of the matrices in the dims ``dim``: 'fro' (Frobenius), 1 / -1 (max / min
    column sum of ``|A|``), inf / -inf (max / min row sum). 'nuc', 2 and -2 need singular values:
    NotImplementedError. ``out=`` must have the result's dtype exactly (``dtype`` or the input's)."""
    return _matrix_norm("linalg.matrix_norm", input, ord, dim, keepdim, dtype, out)


def _out_dtype_check(op: str, expected, out) -> None:
    """PyTorch's linalg norms take an ``out=`` of the result's dtype only (no cast into it)."""
    if isinstance(out, Tensor) and out.dtype is not expected:
        raise RuntimeError(f"{op} expected out tensor dtype {D.torch_name(expected)} but got: "
                           f"{D.torch_name(out.dtype)}")


def _matrix_norm(out_op: str, input: Tensor, ord, dim, keepdim: bool, dtype, out) -> Tensor:
    """:func:`matrix_norm`, its out= dtype error naming ``out_op`` (``linalg.norm`` through :func:`norm`)."""
    op, A = "linalg.matrix_norm", input  # (PyTorch's keyword is ``input``; its docs call it A)
    _composite.need_tensor(op, A, "A", 1)
    if isinstance(ord, bool) or ord not in _MATRIX_ORDERS:
        raise RuntimeError(f"{op}: Order {ord} not supported.")
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    _need_float(op, A)
    _check_dtype_arg(op, dtype)
    dim = tuple(dim) if isinstance(dim, list | tuple) else (dim,)
    if len(dim) != 2:
        raise RuntimeError(f"{op}: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    d0, d1 = (norm_dim(d, A.ndim, op) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"{op}: dims must be different. Got ({dim[0]}, {dim[1]})")
    if dtype is not None and D.promote_types(A.dtype, dtype) is not dtype:
        raise RuntimeError(f"{op}: the dtype of the input ({D.torch_name(A.dtype)}) should be convertible without "
                           f"narrowing to the specified dtype ({D.torch_name(dtype)})")
    _out_dtype_check(out_op, A.dtype if dtype is None else dtype, out)
    if ord == "fro":
        return R.norm(A, 2.0, dim=(d0, d1), keepdim=keepdim, dtype=dtype, out=out)
    if ord in ("nuc", 2, -2):
        raise NotImplementedError(f"{op}: ord={ord!r} needs the singular values (an SVD), which tensorlab does not "
                                  "implement")
    # PyTorch's way: the 1-norms of the columns (ord ±1) or rows (ord ±inf), then their max or min
    if abs(ord) == math.inf:
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = R.norm(A, 1.0, dim=d0, keepdim=keepdim, dtype=dtype)
    if ord > 0 and sums.shape[d1] == 0:  # no columns (rows): PyTorch's norm is 0, the max of no norms >= 0
        result = R.sum(sums, dim=d1, keepdim=keepdim)
    else:  # (amin over nothing raises, as PyTorch's)
        result = (R.amax if ord > 0 else R.amin)(sums, dim=d1, keepdim=keepdim)
    return E.composite_out(op, result, out)


def norm(input: Tensor, ord=None, dim=None, keepdim: bool = False, *, out=None, dtype=None) -> Tensor:
    """A vector norm (``dim`` an int or one dim; a 1-d input; ``ord`` None over everything) or a
    matrix norm (``dim`` two dims; a 2-d input with ``ord``), as PyTorch's ``linalg.norm``."""
    op, A = "linalg.norm", input  # (PyTorch's keyword is ``input``; its docs call it A)
    _composite.need_tensor(op, A, "A", 1)
    if dim is not None:
        dim = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dim) not in (1, 2):
            raise RuntimeError(f"{op}: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None and A.ndim not in (1, 2):
        raise RuntimeError(f"{op}: If dim is not specified but ord is, the input must be 1D or 2D. Got {A.ndim}D.")
    if ord is not None and (isinstance(ord, str) or (dim is not None and len(dim) == 2) or
                            (dim is None and A.ndim == 2)):
        return _matrix_norm(op, A, ord, (-2, -1) if dim is None else dim, keepdim, dtype, out)
    if A.dtype.is_floating_point and (dtype is None or (dtype.is_floating_point and
                                                        D.promote_types(A.dtype, dtype) is dtype)):
        _out_dtype_check(op, A.dtype if dtype is None else dtype, out)  # (vector_norm's own check names it)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)


@autocast_op("linalg_vecdot")
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """The dot products of the vectors along ``dim`` (``x`` and ``y`` broadcast; one dtype)."""
    op = "linalg.vecdot"
    _composite.need_tensor(op, x, "x", 1)
    _composite.need_tensor(op, y, "y", 2)
    if x.dtype is not y.dtype:
        raise RuntimeError(f"{op}: Expected x and y to have the same dtype, but found x of type "
                           f"{D.torch_name(x.dtype)} and y of type {D.torch_name(y.dtype)} instead")
    _need_float(op, x)
    out = E.exact_out(op, out, x, x, y)  # (PyTorch's: out of x's dtype exactly, checked before anything runs)
    result = R.sum(x * y, dim=dim)
    return result if out is None else E.write_out(result, out)


def cross(input: Tensor, other: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """The 3-d cross product along ``dim`` (last by default; both of one number of dims)."""
    op = "linalg.cross"
    _composite.need_tensor(op, input, "input", 1)
    _composite.need_tensor(op, other, "other", 2)
    if input.ndim != other.ndim:
        raise RuntimeError(f"{op}: inputs must have the same number of dimensions.")
    out = E.exact_out(op, out, input, input, other)  # of input's dtype, as PyTorch's linalg_cross.out
    result = _composite._cross(op, input, other, dim)
    return result if out is None else E.write_out(result, out)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``torch.diagonal`` with the last two dims as its default (a view)."""
    return _diagonal(A, offset=offset, dim1=dim1, dim2=dim2)


def _chain_order(sizes: list) -> list:
    """The matrix-chain order of least multiply-adds (the classic dynamic program, as PyTorch's
    multi_dot for more than two matrices): ``split[i][j]`` is where the product of matrices i..j
    splits. ``sizes``: n + 1 dims, matrix k being sizes[k] x sizes[k + 1]."""
    n = len(sizes) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = math.inf
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + sizes[i] * sizes[k + 1] * sizes[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    if n == 3:  # PyTorch's own rule for three: (AB)C unless A(BC) is strictly cheaper (the program's tie is A(BC))
        a, b, c, d = sizes
        split[0][2] = 0 if a * c * (b + d) > b * d * (a + c) else 1
    return split


@autocast_op("chain_matmul")
def chain_matmul(*matrices, out=None) -> Tensor:
    """PyTorch's deprecated ``torch.chain_matmul`` (top level; not in ``linalg``): ``multi_dot`` of
    2-d matrices, one of them allowed."""
    warnings.warn("tensorlab.chain_matmul is deprecated and will be removed in a future release. Use "
                  "tensorlab.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                  "multiple parameters.", UserWarning, stacklevel=2)
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for t in matrices:
        if not isinstance(t, Tensor):
            raise TypeError(f"chain_matmul(): expected Tensor arguments, got {type(t).__name__}")
        if t.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {t.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        result = matrices[0].clone()
        return result if out is None else E.write_out(result, E.exact_out("chain_matmul", out, result))
    return multi_dot(matrices, out=out)


@autocast_op("linalg_multi_dot")
def multi_dot(tensors, *, out=None) -> Tensor:
    """The product of a chain of matrices, multiplied in the order of least work; the first may be
    a 1-d row vector and the last a 1-d column vector (their dims are dropped from the result)."""
    op = "multi_dot()"
    if not isinstance(tensors, list | tuple):  # (a Tensor would be taken apart into its rows)
        raise TypeError(f"multi_dot(): argument 'tensors' must be tuple of Tensors, not {type(tensors).__name__}")
    tensors = list(tensors)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"{op}: expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"{op}: the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"{op}: the last tensor must be 1D or 2D but got {last.ndim}D")
    for i in range(1, n - 1):
        if tensors[i].ndim != 2:
            raise RuntimeError(f"{op}: tensor {i} must be 2D but got {tensors[i].ndim}D")
    dtype, device = first.dtype, first.device
    for i, t in enumerate(tensors[1:], 1):
        if t.dtype is not dtype:
            raise RuntimeError(f"{op}: all tensors must have be the same dtype but tensor 0 is "
                               f"{D.cpp_name(dtype)} and tensor {i} {D.cpp_name(t.dtype)}")
        if t.device != device:
            raise RuntimeError(f"{op}: all tensors must be on the same device but tensor 0 is on {device} and "
                               f"tensor {i} on {t.device}")
    mats = [first.unsqueeze(0) if first.ndim == 1 else first, *tensors[1:-1],
            last.unsqueeze(1) if last.ndim == 1 else last]
    for i in range(n - 1):
        if mats[i].shape[1] != mats[i + 1].shape[0]:
            raise RuntimeError(f"{op}: tensors {i} and {i + 1} with shapes {list(mats[i].shape)} and "
                               f"{list(mats[i + 1].shape)} cannot be multiplied")
    if out is not None:
        if isinstance(out, Tensor) and out.dtype is not dtype:
            raise RuntimeError(f"{op}: expected out tensor to have dtype {D.cpp_name(dtype)} but got "
                               f"{D.cpp_name(out.dtype)}")
        E.check_outs("multi_dot", out, (dtype,), device, *tensors)
    split = _chain_order([m.shape[0] for m in mats] + [mats[-1].shape[1]])

    def product(i: int, j: int) -> Tensor:
        if i == j:
            return mats[i]
        k = split[i][j]
        return mm(product(i, k), product(k + 1, j))

    result = product(0, n - 1)
    if first.ndim == 1 and last.ndim == 1:
        result = result.reshape(())
    elif first.ndim == 1:
        result = result.squeeze(0)
    elif last.ndim == 1:
        result = result.squeeze(1)
    return E.composite_out("multi_dot", result, out)



@tensor_method
def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    """``A`` multiplied by itself ``n`` times (batches of square matrices), by repeated squaring in
    PyTorch's order; ``n = 0`` gives identities. A negative ``n`` needs a matrix inverse, which
    tensorlab does not have."""
    op = "linalg.matrix_power"
    _composite.need_tensor("matrix_power", A, "input", 1)
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    if A.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    rows, cols = A._shape[-2], A._shape[-1]
    if rows != cols:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are {rows} by {cols} matrices")
    if n < 0:
        raise NotImplementedError(f"{op}: a negative power ({n}) needs a matrix inverse (linalg.inv), which "
                                  "tensorlab does not have")
    out = E.exact_out(op, out, A, A)
    if n == 0:  # (a copy overwritten with identities, as PyTorch: A's gradient is then zeros)
        from ._factories import eye

        result = A.clone(memory_format=contiguous_format).copy_(eye(rows, dtype=A.dtype, device=A.device).expand_as(A))
    elif n == 1:
        result = A.clone(memory_format=contiguous_format)
    else:
        result = square = None
        while n > 0:  # the bits of n from the lowest: square A each step, multiply in the set bits
            bit, n = n % 2, n // 2
            square = A if square is None else matmul(square, square)
            if bit:
                result = square if result is None else matmul(result, square)
    return result if out is None else E.write_out(result, out)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """The Vandermonde matrices of the last dim of ``x``: ``(*, n) -> (*, n, N)`` with columns
    ``1, x, x**2, ..., x**(N-1)`` (increasing powers, unlike ``tl.vander``); ``N`` defaults to n.
    The powers are a running product (cumprod, as PyTorch), so integers are exact and give int64."""
    from .ops.shape_ops import cat

    _composite.need_tensor("linalg_vander", x, "x", 1)
    dt = x.dtype
    if dt is D.bool or dt in (D.float16, D.bfloat16):
        raise NotImplementedError("linalg.vander supports floating point, complex, and integer tensors, but got "
                                  f"{D.torch_name(dt)}")
    x = x.unsqueeze(-1) if x.ndim == 0 else x
    n = x._shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = x.unsqueeze(-1).expand(*x._shape, n - 1).cumprod(-1)
    return cat([powers.new_ones(*x._shape, 1), powers], -1)
