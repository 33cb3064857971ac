"""Ops PyTorch users reach for that are compositions of registered ops.

Each function here is a few registered ops (elementwise kernels, reductions, views, matmul,
index_put), so it runs on both devices, and its gradient comes from the gradients of the parts:
nothing here declares an OpDef. What each function adds is PyTorch's argument handling, its
dtype rules and its error messages, all checked against torch 2.13.

- comparison: ``isclose``, ``allclose``;
- reductions that skip NaN: ``nansum``, ``nanmean``; both extremes at once: ``aminmax``;
- differences and products: ``diff``, ``kron``, ``inner``, ``cross``;
- geometry: ``rot90``, ``ravel``, ``tril_indices``/``triu_indices``, ``fill_diagonal_``;
- writes through a flattened view: ``put``/``put_``;
- conversions: ``deg2rad``/``rad2deg``, ``float_power``, ``ldexp``, ``frexp``, ``nextafter``, ``sgn``, ``numel``;
- the rest: ``renorm``, ``index_reduce`` (``scatter_reduce`` with the index spread over rows),
  ``narrow_copy``, ``combinations``, ``empty_strided``, ``is_tensor``, ``is_nonzero``, ``detach``, ``_assert``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype as D
from .. import return_types as RT
from .._factories import tensor as _tensor
from .._factories import zeros
from .._layout import contiguous_format
from .._tensor import Tensor, need_tensor, norm_dim, tensor_method
from .._views import int_arg, of_a_temporary
from ..amp.autocast_mode import autocast_op
from ..autograd.function import Function
from ..autograd.grad_mode import no_grad
from . import elementwise_binary as B
from . import elementwise_common as E
from . import elementwise_unary as U
from . import indexing as I
from . import matmul as M
from . import reductions as R
from . import shape_ops as S
from .composite_shape import unravel_index

__all__ = ["isclose", "allclose", "nansum", "nanmean", "aminmax", "diff", "kron", "inner", "cross", "rot90",
           "ravel", "tril_indices", "triu_indices", "put", "deg2rad", "rad2deg", "float_power", "sgn", "numel",
           "is_tensor", "is_nonzero", "detach", "empty_strided", "empty_permuted", "ldexp", "renorm", "index_reduce",
           "narrow_copy", "combinations", "deg2rad_", "rad2deg_", "ldexp_", "frexp", "nextafter", "nextafter_",
           "detach_", "is_floating_point", "is_complex", "is_signed", "get_device", "scalar_tensor", "isreal",
           "_assert"]

AminmaxResult = RT.aminmax  # (tensorlab.return_types: it pickles by that name)


# ----------------------------------------------------------------------------------------------
# comparison
# ----------------------------------------------------------------------------------------------


@tensor_method
def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """``|input - other| <= atol + rtol * |other|``, elementwise (bool), with equal infinities
    close and, with ``equal_nan``, NaN close to NaN. Both tensors must have one dtype."""
    need_tensor("isclose", input, "input", 1)
    need_tensor("isclose", other, "other", 2)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"isclose(): {D.torch_name(input.dtype)} did not match {D.torch_name(other.dtype)}")
    if not rtol >= 0:  # (NaN too)
        raise RuntimeError(f"isclose(): rtol must be greater than or equal to zero, but got {rtol}")
    if not atol >= 0:
        raise RuntimeError(f"isclose(): atol must be greater than or equal to zero, but got {atol}")
    close = input == other  # equal values, equal infinities
    if equal_nan and input.dtype.is_floating_point:
        close = close | (input.isnan() & other.isnan())
    if rtol == 0 and atol == 0:
        return close
    # integers and bools compare in the default float dtype (no wrap-around in the difference)
    a, b = (input, other) if input.dtype.is_floating_point else \
        (input.to(D.get_default_dtype()), other.to(D.get_default_dtype()))
    allowed = (b * rtol).abs() + atol  # PyTorch's order: atol + |rtol * other|
    actual = (a - b).abs()
    return close | (actual.isfinite() & (actual <= allowed))


@tensor_method
def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element of ``input`` is close to ``other`` (see :func:`isclose`): a Python bool."""
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


# ----------------------------------------------------------------------------------------------
# reductions
# ----------------------------------------------------------------------------------------------


@tensor_method
def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """``sum`` with NaN counted as zero (their gradient is zero). With ``out=`` the sum is
    computed in ``out``'s dtype, as :func:`sum`'s (a ``dtype`` must be ``out``'s)."""
    need_tensor("nansum", input, "input", 1)
    dtype = R._opt_dtype(dtype, "nansum")
    if out is not None:
        (o,) = E.check_outs("nansum", out, (None,), input.device, input)
        if dtype is not None and dtype is not o.dtype:
            raise RuntimeError(f"nansum: provided dtype must match dtype of result. Got {D.torch_name(o.dtype)} and "
                               f"{D.torch_name(dtype)}.")
        if input.dtype.is_floating_point and not o.dtype.is_floating_point and dtype is None:
            # (PyTorch sums floats in out's dtype: no kernel; with dtype= the input is cast first)
            raise E.not_implemented_for("nansum", o.dtype)
        if dim is None:
            dim = ()  # (sum's out= needs a dim: () is every dim)
    x = B.where(input.isnan(), 0, input) if input.dtype.is_floating_point else input
    return R.sum(x, dim, keepdim, dtype=dtype, out=out)


@tensor_method
def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """``mean`` over the elements that are not NaN (NaN where all are). With ``out=``, PyTorch's
    way: the :func:`nansum` written into ``out``, then divided there by the count."""
    need_tensor("nanmean", input, "input", 1)
    if not input.dtype.is_floating_point:
        raise NotImplementedError("nanmean(): expected input to have floating point or complex dtype but got "
                                  f"{D.torch_name(input.dtype)}")
    dtype = R._opt_dtype(dtype, "nanmean")
    R._mean_dtype(input, dtype, "nanmean")  # a non-floating dtype= raises, as mean's
    nan = input.isnan()  # once, for the sum and the count
    if out is not None:
        count = R.sum(nan.logical_not(), dim, keepdim)
        return nansum(input, dim, keepdim, dtype=dtype, out=out).div_(count)
    return R.sum(B.where(nan, 0, input), dim, keepdim, dtype=dtype) / R.sum(nan.logical_not(), dim, keepdim)


@tensor_method
def aminmax(input: Tensor, *, dim=None, keepdim: bool = False, out=None) -> AminmaxResult:
    """``(amin, amax)`` over ``dim`` (everything by default), as a named tuple ``(min, max)``;
    ``out=``: a ``(min, max)`` pair of the input's dtype."""
    need_tensor("aminmax", input, "input", 1)
    if out is not None:
        out = E.check_outs("aminmax", out, (input.dtype, input.dtype), input.device, input)
    if dim is None:
        if input.numel() == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
    else:
        d = norm_dim(dim, input.ndim, "aminmax")
        if input.ndim and input.shape[d] == 0:
            raise IndexError(f"aminmax(): Expected reduction dim {d} to have non-zero size.")
    dims = () if dim is None else dim
    if dim is None and keepdim:  # PyTorch keeps every dim as size 1
        dims = tuple(range(input.ndim))
    if out is not None:
        return AminmaxResult(R.amin(input, dims, keepdim, out=out[0]), R.amax(input, dims, keepdim, out=out[1]))
    return AminmaxResult(R.amin(input, dims, keepdim), R.amax(input, dims, keepdim))


# ----------------------------------------------------------------------------------------------
# differences and products
# ----------------------------------------------------------------------------------------------


@tensor_method
def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None, *, out=None) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``logical_xor`` for bool), after joining
    ``prepend`` and ``append`` to ``input`` along ``dim``."""
    need_tensor("diff", input, "input", 1)
    if input.ndim == 0:
        raise RuntimeError("diff(): diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"diff(): order must be non-negative but got {n}")
    d = norm_dim(dim, input.ndim, "diff")
    for name, extra in (("prepend", prepend), ("append", append)):
        if extra is not None and not isinstance(extra, Tensor):
            raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(extra).__name__}")
        if extra is None:
            continue
        if extra.ndim != input.ndim:
            raise RuntimeError("diff(): diff expects prepend or append to be the same dimension as input")
        for i, (m, k) in enumerate(zip(input.shape, extra.shape)):
            if i != d and m != k:
                raise RuntimeError("diff(): diff expects the shape of tensor to prepend or append to match that of "
                                   f"input except along the differencing dimension; input.size({i}) = {m}, but got "
                                   f"tensor.size({i}) = {k}")
    # n = 0 is a copy of the input, without prepend/append (PyTorch's rule; the input itself aliased it)
    parts = [t for t in (prepend, input, append) if t is not None] if n else [input]
    x = S.cat(parts, d) if len(parts) > 1 else input.clone() if n == 0 else input
    for _ in range(n):
        size = x.shape[d]
        if size == 0:
            break
        hi, lo = x.narrow(d, 1, size - 1), x.narrow(d, 0, size - 1)
        x = B.logical_xor(hi, lo) if x.dtype is D.bool else hi - lo
    return E.composite_out("diff", x, out)  # (PyTorch's diff writes its last sub to out=: castable)


@tensor_method
def kron(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The Kronecker product: block ``(i, j)`` of the result is ``input[i, j] * other``."""
    need_tensor("kron", input, "input", 1)
    need_tensor("kron", other, "other", 2)
    nd = max(input.ndim, other.ndim)
    a_shape = (1,) * (nd - input.ndim) + input.shape
    b_shape = (1,) * (nd - other.ndim) + other.shape
    # a as (a0, 1, a1, 1, ...) times b as (1, b0, 1, b1, ...), then merge each pair of dims
    a = input.reshape([s for d in a_shape for s in (d, 1)])
    b = other.reshape([s for d in b_shape for s in (1, d)])
    # (PyTorch's kron writes its product to out=: castable, as mul's)
    return E.composite_out("kron", (a * b).reshape([x * y for x, y in zip(a_shape, b_shape)]), out)


@tensor_method
def inner(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Sum of products over the last dim of both (a product when either is 0-d)."""
    need_tensor("inner", input, "input", 1)
    need_tensor("inner", other, "other", 2)
    if input.ndim == 0 or other.ndim == 0:
        return B.mul(input, other, out=out)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner(): the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    if input.dtype is not other.dtype:
        raise RuntimeError("inner(): both inputs should have same dtype")
    return M.tensordot(input, other, dims=([input.ndim - 1], [other.ndim - 1]), out=out)


def _cross(op: str, input: Tensor, other: Tensor, dim: int) -> Tensor:
    if input.dtype is D.bool:
        raise E.not_implemented_for(op, input.dtype)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{op}(): expected scalar type {D.torch_name(input.dtype)} but found "
                           f"{D.torch_name(other.dtype)}")
    if input.ndim != other.ndim:
        raise RuntimeError(f"{op}(): inputs must have the same number of dimensions, got {input.ndim} and "
                           f"{other.ndim}")
    d = norm_dim(dim, input.ndim, op)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"{op}(): inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    a = [input.narrow(d, i, 1) for i in range(3)]
    b = [other.narrow(d, i, 1) for i in range(3)]
    return S.cat([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]], d)


@tensor_method
@autocast_op("cross")
def cross(input: Tensor, other: Tensor, dim: int | None = None, *, out=None) -> Tensor:
    """The 3-d cross product along ``dim`` (broadcast elsewhere). Without ``dim``: the first dim
    of size 3, with PyTorch's deprecation warning. ``out=``: of ``input``'s dtype."""
    need_tensor("cross", input, "input", 1)
    need_tensor("cross", other, "other", 2)
    out = E.exact_out("cross", out, input, input, other)
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        if input.ndim != other.ndim:
            raise RuntimeError(f"cross(): inputs must have the same number of dimensions, got {input.ndim} and "
                               f"{other.ndim}")
        # PyTorch's: the first dim of size 3 of input's own shape (not the broadcast one)
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise RuntimeError("cross(): no dimension of size 3 in input")
    result = _cross("cross", input, other, dim)
    return result if out is None else E.write_out(result, out)


# ----------------------------------------------------------------------------------------------
# geometry
# ----------------------------------------------------------------------------------------------


@tensor_method
def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotate by 90° ``k`` times in the plane ``dims``, from the first dim towards the second
    (a copy, as PyTorch)."""
    need_tensor("rot90", input, "input", 1)
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"rot90(): expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"rot90(): expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = norm_dim(dims[0], input.ndim, "rot90"), norm_dim(dims[1], input.ndim, "rot90")
    if d0 == d1:
        raise RuntimeError(f"rot90(): expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    k = int_arg("rot90", "k", k) % 4  # (k %= 4 changed a 0-d tensor k of the caller's in place)
    if k == 1:  # (a transpose of the flipped copy, which no one else holds: not a view, as PyTorch's transpose_)
        return of_a_temporary(S.flip(input, [d1]).transpose(d0, d1))
    if k == 2:
        return S.flip(input, [d0, d1])
    if k == 3:
        return of_a_temporary(S.flip(input, [d0]).transpose(d0, d1))
    return input.clone(memory_format=contiguous_format)


@tensor_method
def ravel(input: Tensor) -> Tensor:
    """The elements in row-major order as a contiguous 1-d tensor: a view of a contiguous input, else a
    copy. As PyTorch's, which is ``contiguous().view(-1)``: ``reshape(-1)`` would return a strided
    view of, say, ``x[::2]``, which writes through to ``x``."""
    return input.contiguous().view(-1)


def _triangle_indices(op: str, row: int, col: int, offset: int, lower: bool, dtype, device) -> Tensor:
    if row < 0:
        raise RuntimeError(f"{op}(): row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"{op}(): col must be non-negative, got{col}")
    dtype = D.int64 if dtype is None else dtype
    if dtype not in (D.int32, D.int64):
        raise E.not_implemented_for(op, dtype)
    r, c = (np.tril_indices if lower else np.triu_indices)(row, offset, col)
    return _tensor(np.stack([r, c]).astype(dtype.np).reshape(2, -1), device=device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None) -> Tensor:
    """The ``(2, N)`` coordinates of the lower triangle of a ``row × col`` matrix (row-major order)."""
    return _triangle_indices("tril_indices", row, col, offset, True, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None) -> Tensor:
    """The ``(2, N)`` coordinates of the upper triangle of a ``row × col`` matrix (row-major order)."""
    return _triangle_indices("triu_indices", row, col, offset, False, dtype, device)


@tensor_method
def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Fill the main diagonal (all dims equal, or a 2-d matrix) in place; ``wrap``: a tall matrix
    starts the diagonal again every ``cols + 1`` rows (numpy's rule)."""
    if self.ndim < 2:
        raise RuntimeError("fill_diagonal_(): dimensions must larger than 1")
    if self.ndim > 2 and len(set(self.shape)) != 1:
        raise RuntimeError("fill_diagonal_(): all dimensions of input must be of equal length")
    rows = self.shape[0]
    step = self.shape[1] + 1 if self.ndim == 2 else rows  # rows between the starts of wrapped diagonals
    starts = range(0, rows, step) if wrap and self.ndim == 2 else (0,)
    for start in starts:
        block = self.narrow(0, start, rows - start)
        n = min(block.shape)
        diagonal = block.as_strided((n,), (sum(block.stride()),), block.storage_offset())
        diagonal.fill_(fill_value)
    return self


# ----------------------------------------------------------------------------------------------
# put: writes into the row-major flattening
# ----------------------------------------------------------------------------------------------


def _put_checks(op: str, input: Tensor, index: Tensor, source: Tensor) -> Tensor:
    need_tensor(op, index, "index", 2)
    need_tensor(op, source, "source", 3)
    if index.dtype is not D.int64:
        raise RuntimeError(f"{op}(): Expected a long tensor for index, but got {D.torch_name(index.dtype)}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"{op}(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{D.torch_name(input.dtype)} and source.dtype = {D.torch_name(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"{op}(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    I.check_same_device(op, index, input)
    index = index.reshape(-1)
    I.check_flat_range(op, index, input.numel(), end=".")
    return index


def _put(op: str, target: Tensor, index: Tensor, source: Tensor, accumulate: bool) -> Tensor:
    index = _put_checks(op, target, index, source)
    source = source.reshape(-1)
    # (an empty index still goes through index_put_: a leaf requiring grad is refused and the source
    # gets its (empty) gradient, as in PyTorch)
    if target.is_contiguous():  # the flattening is a view: one index_put_ through it
        target.view(-1).index_put_((index,), source, accumulate=accumulate)
        return target
    # otherwise one index per dim (unravel_index wraps negative positions too) into target itself
    target.index_put_(unravel_index(index, target.shape), source, accumulate=accumulate)
    return target


@tensor_method
def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Write ``source`` at the positions ``index`` of ``self`` read as 1-d (row-major; negative
    positions wrap); ``accumulate`` adds instead (repeated positions add up)."""
    return _put("put_", self, index, source, accumulate)


@tensor_method
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Out-of-place :func:`put_`."""
    need_tensor("put", input, "input", 1)
    return _put("put", input.clone(), index, source, accumulate)


# ----------------------------------------------------------------------------------------------
# conversions
# ----------------------------------------------------------------------------------------------


def _to_float(op: str, input: Tensor) -> Tensor:
    need_tensor(op, input, "input", 1)
    return input if input.dtype.is_floating_point else input.to(D.get_default_dtype())


@tensor_method
def deg2rad(input: Tensor, *, out=None) -> Tensor:
    """Degrees to radians (integer and bool inputs give the default float dtype)."""
    return E.composite_out("deg2rad", _to_float("deg2rad", input) * (math.pi / 180.0), out)


@tensor_method
def deg2rad_(self: Tensor) -> Tensor:
    return E.inplace_composite("deg2rad", deg2rad, self)


@tensor_method
def rad2deg(input: Tensor, *, out=None) -> Tensor:
    """Radians to degrees (integer and bool inputs give the default float dtype)."""
    return E.composite_out("rad2deg", _to_float("rad2deg", input) * (180.0 / math.pi), out)


@tensor_method
def rad2deg_(self: Tensor) -> Tensor:
    return E.inplace_composite("rad2deg", rad2deg, self)


@tensor_method
def float_power(input, exponent, *, out=None) -> Tensor:
    """``pow`` computed in float64 (the result is float64 whatever the operands, and so is ``out``)."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise TypeError("float_power(): one of input and exponent must be a Tensor")
    if isinstance(out, Tensor) and out.dtype is not D.float64:
        raise RuntimeError(f"the output given to float_power has dtype {D.torch_name(out.dtype)} but the operation's "
                           "result requires dtype Double")
    base = input.to(D.float64) if isinstance(input, Tensor) else float(input)
    exp = exponent.to(D.float64) if isinstance(exponent, Tensor) else float(exponent)
    return B.pow(base, exp, out=out)


@tensor_method
def float_power_(self: Tensor, exponent) -> Tensor:
    """In-place :func:`float_power`: ``self`` must be float64."""
    if self.dtype is not D.float64:
        raise RuntimeError(f"float_power_(): the base given to float_power_ has dtype {D.torch_name(self.dtype)} but "
                           "the operation's result requires dtype Double")
    return self.pow_(exponent.to(D.float64) if isinstance(exponent, Tensor) else float(exponent))


@tensor_method
def sgn(input: Tensor, *, out=None) -> Tensor:
    """``sign`` (tensorlab has no complex dtypes, where ``sgn`` differs)."""
    need_tensor("sgn", input, "input", 1)
    return U.sign(input, out=out)


@tensor_method
def sgn_(self: Tensor) -> Tensor:
    return self.sign_()


def numel(input: Tensor) -> int:
    """The number of elements of ``input``."""
    need_tensor("numel", input, "input", 1)
    return input.numel()


@tensor_method
def ldexp(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``input * 2**other`` in the promoted floating dtype. As PyTorch's (``mul(input, pow(2, other))``),
    ``2**other`` is taken in the exponent's own floating dtype (the default dtype for an integer one)
    and rounded there before the product; a floating input with an integer exponent is C's ldexp."""
    need_tensor("ldexp", input, "input", 1)
    need_tensor("ldexp", other, "other", 2)
    if other.dtype is D.bool and input.dtype.is_floating_point:  # (PyTorch's kernel for that pair)
        raise E.not_implemented_for("ldexp", other.dtype)
    dtype = D.result_type(input, other)
    dtype = dtype if dtype.is_floating_point else D.get_default_dtype()
    if input.dtype.is_floating_point and not other.dtype.is_floating_point and other.dtype is not D.bool:
        # PyTorch 2.15: a floating input with an integral exponent is C's ldexp, not the product with
        # 2**other (which overflows or underflows where the result does not: 1e-38 * 2**200 is 1.6e22);
        # an integer input takes the product (1 * 2**(2**32 + 3) is inf, 0 * 2**200 nan)
        return E.composite_out("ldexp", _LdexpIntegral.apply(input, other, dtype), out)
    compute = D.float64 if dtype is D.float64 else D.float32
    power = B.pow(2.0, other)  # (a float32 exponent's power is float32 even for a float64 input)
    return E.composite_out("ldexp", (input.to(compute) * power.to(compute)).to(dtype), out)


def _exact_ldexp(x: Tensor, e: Tensor) -> Tensor:
    """``x * 2**e`` rounded once (C's ldexp) for a floating ``x`` and an int32 ``e``, from ops whose
    every step but the last is exact."""
    if x.dtype is not D.float64:
        # In float64 the product is exact (|x| in [2**-149, 2**128) times 2**+-400 stays normal there; a
        # larger |e| only saturates to 0 or inf): the one rounding is the cast back.
        return (x.to(D.float64) * B.pow(2.0, e.clamp(-400, 400).to(D.float64))).to(x.dtype)
    # float64: x = x2 * 2**s with |x2| in [2**-400, 2**400) (exact scalings of the small and the large);
    # then x2 * 2**k, k = e + s, as (x2 * 2**c) * 2**(k - c) with c = clamp(k, -600, 600): the first
    # product stays normal (exact), the second rounds once. k is clamped where the result is 0 or inf
    # anyway (|k| >= 1475), so that 2**(k - c) is neither 0 nor inf (0 * inf, inf * 0: NaN).
    a = x.abs()
    s = (a >= 2.0 ** 400).to(D.float64) * 700.0 - (a < 2.0 ** -400).to(D.float64) * 700.0  # (0 for NaN)
    x2 = x * B.pow(2.0, -s)
    k = (e.clamp(-5000, 5000).to(D.float64) + s).clamp(-1674, 1623)
    c = k.clamp(-600, 600)
    return x2 * B.pow(2.0, c) * B.pow(2.0, k - c)


class _LdexpIntegral(Function):
    """ldexp with an integral exponent: the exact ``input * 2**other`` (``other`` wraps to a C int, as
    PyTorch's kernel takes it); the gradient is PyTorch's ``grad * pow(2.0, other)`` (2**other in the
    default dtype: it overflows and underflows, as PyTorch's)."""

    @staticmethod
    def forward(ctx, input, other, dtype):
        ctx.save_for_backward(other)
        ctx.input_dtype = input.dtype
        return _exact_ldexp(input.to(dtype), other.to(D.int32))

    @staticmethod
    def backward(ctx, g):
        (other,) = ctx.saved_tensors
        gx = g * B.pow(2.0, other)
        return gx if gx.dtype is ctx.input_dtype else gx.to(ctx.input_dtype), None, None


@tensor_method
def ldexp_(self: Tensor, other: Tensor) -> Tensor:
    return E.inplace_composite("ldexp", ldexp, self, other)


# (mantissa bits, exponent bits, the integer dtype of the same size) of each floating dtype
_FLOAT_LAYOUT = {D.float16: (10, 5, D.int16), D.bfloat16: (7, 8, D.int16), D.float32: (23, 8, D.int32),
                 D.float64: (52, 11, D.int64)}



@tensor_method
def frexp(input: Tensor, *, out=None) -> RT.frexp:
    """``(mantissa, exponent)`` with ``input == mantissa * 2**exponent``, ``0.5 <= |mantissa| < 1`` and an
    int32 exponent, as C's frexp; zeros, infinities and NaN are their own mantissa with exponent 0.
    ``out=``: a ``(mantissa, exponent)`` pair of the input's dtype and int32."""
    need_tensor("frexp", input, "input", 1)
    if not input.dtype.is_floating_point:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    if out is not None:
        if not isinstance(out, tuple | list) or len(out) != 2:
            raise TypeError(f"frexp(): argument 'out' must be a tuple of 2 Tensors, not {type(out).__name__}")
        m, e = out
        if isinstance(m, Tensor) and m.dtype is not input.dtype:  # (PyTorch names the C++ types)
            raise RuntimeError(f"torch.frexp() expects mantissa to have dtype {D.cpp_name(input.dtype)} "
                               f"but got {D.cpp_name(m.dtype)}")
        if isinstance(e, Tensor) and e.dtype is not D.int32:
            raise RuntimeError(f"torch.frexp() expects exponent to have int dtype but got {D.cpp_name(e.dtype)}")
        outs = E.check_outs("frexp", out, (input.dtype, D.int32), input.device, input)
        with no_grad():
            mantissa, exponent = _frexp_parts(input)
            return RT.frexp(E.write_out(mantissa, outs[0]), E.write_out(exponent, outs[1]))
    return RT.frexp(*_Frexp.apply(input))


def _frexp_parts(x: Tensor) -> tuple[Tensor, Tensor]:
    """frexp from the bits: the biased exponent field gives the exponent, and the mantissa is ``x`` with
    that field set to the bias - 1 (|mantissa| in [0.5, 1)). A subnormal is first scaled by 2**mbits into
    the normal range (exact), and that is taken off its exponent again."""
    mbits, ebits, int_dtype = _FLOAT_LAYOUT[x.dtype]
    bias = (1 << (ebits - 1)) - 1
    field = ((1 << ebits) - 1) << mbits
    regular = x.isfinite() & (x != 0)
    subnormal = regular & (x.abs() < D.finfo(x.dtype).tiny)
    scaled = B.where(subnormal, x * float(2 ** mbits), x)
    bits = scaled.view(int_dtype)
    exponent = ((bits & field) >> mbits).to(D.int32) - (bias - 1) - subnormal.to(D.int32) * mbits
    mantissa = ((bits & ~field) | ((bias - 1) << mbits)).view(x.dtype)
    return B.where(regular, mantissa, x), B.where(regular, exponent, 0)


class _Frexp(Function):
    """frexp, differentiable in the mantissa as PyTorch's: ``grad / exp2(exponent)`` (2**exponent in
    float32, as PyTorch's ``exponent.exp2()`` of its int32 exponent); the exponent has no gradient."""

    @staticmethod
    def forward(ctx, input):
        mantissa, exponent = _frexp_parts(input)
        ctx.save_for_backward(exponent)
        ctx.mark_non_differentiable(exponent)
        ctx.input_dtype = input.dtype
        return mantissa, exponent

    @staticmethod
    def backward(ctx, g, _g_exponent):
        (exponent,) = ctx.saved_tensors
        gx = g / U.exp2(exponent)
        return gx if gx.dtype is ctx.input_dtype else gx.to(ctx.input_dtype)


@tensor_method
def nextafter(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The next floating value after ``input`` toward ``other``, elementwise in the promoted dtype (C's
    nextafter: ``other`` where they are equal, the smallest subnormal of ``other``'s sign after a zero,
    NaN where either is NaN)."""
    need_tensor("nextafter", input, "input", 1)
    need_tensor("nextafter", other, "other", 2)
    dtype = D.result_type(input, other)
    if not dtype.is_floating_point:
        raise E.not_implemented_for("nextafter", dtype)
    return E.composite_out("nextafter", _Nextafter.apply(input, other, dtype), out)


def _nextafter_values(x: Tensor, y: Tensor) -> Tensor:
    """One step of the integer image of ``x`` (sign and magnitude bits): up in magnitude when ``y`` lies
    beyond ``x`` from zero, else down; a zero steps to the smallest subnormal instead (its bits are not
    next to -0.0's)."""
    int_dtype = _FLOAT_LAYOUT[x.dtype][2]
    step = B.where((y > x) == (x > 0), 1, -1).to(int_dtype)
    moved = (x.view(int_dtype) + step).view(x.dtype)
    info = D.finfo(x.dtype)
    smallest = y.sign() * (info.smallest_normal * info.eps)  # (the smallest subnormal: 2**-149 in float32)
    result = B.where(x == y, y, B.where(x == 0, smallest, moved))
    return B.where(x.isnan() | y.isnan(), x + y, result)


class _Nextafter(Function):
    """nextafter, with PyTorch's gradient: ``grad`` for ``input``, zeros for ``other``."""

    @staticmethod
    def forward(ctx, input, other, dtype):
        ctx.shapes = (input.shape, other.shape)
        ctx.dtypes = (input.dtype, other.dtype)
        x, y = S.broadcast_tensors(input.to(dtype), other.to(dtype))
        return _nextafter_values(x, y)

    @staticmethod
    def backward(ctx, g):
        gx = g.sum_to_size(ctx.shapes[0]).to(ctx.dtypes[0])
        gy = zeros(ctx.shapes[1], dtype=ctx.dtypes[1], device=g.device)
        return gx, gy, None


@tensor_method
def nextafter_(self: Tensor, other: Tensor) -> Tensor:
    return E.inplace_composite("nextafter", nextafter, self, other)


def _renorm_factor(input: Tensor, p, dim: int, maxnorm, dtype) -> Tensor:
    """The per-slice factor of ``input`` (float32 for a float16/bfloat16 ``dtype``, see :func:`_renorm_input`),
    with the values of PyTorch's, rounded to ``dtype``."""
    if input.ndim < 2:
        raise RuntimeError(f"renorm(): input needs at least 2 dimensions, got {input.ndim} dimensions")
    if p <= 0:
        raise RuntimeError("renorm(): non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm(): expected maxnorm to be >= 0 but got {maxnorm}")
    d = norm_dim(dim, input.ndim, "renorm")
    others = [i for i in range(input.ndim) if i != d]
    norms = R.norm(input, p, dim=others, keepdim=True)
    scaled = norms > maxnorm
    if input.requires_grad:
        # a slice left alone passes its gradient through unchanged (PyTorch), also a NaN one, whose
        # norm's gradient (NaN) would otherwise reach it as 0 * NaN: its norm is taken of ones instead
        norms = R.norm(B.where(scaled, input, 1.0), p, dim=others, keepdim=True)
    factor = B.where(scaled, maxnorm / (norms + 1e-7), 1.0)  # PyTorch's 1e-7
    if dtype is not input.dtype:
        # PyTorch rounds the float32 factor to the input's dtype before the product. The rounding is added
        # as a constant, so the factor's gradient stays float32 (a float16 sum of grad * input overflows);
        # factor + (rounded - factor) is exactly the rounded value (the difference of floats this close is
        # exact).
        with no_grad():
            rounding = factor.to(dtype).to(factor.dtype) - factor
        factor = factor + rounding
    return factor


def _renorm_input(input: Tensor) -> Tensor:
    """The input the factor is computed from: float32 for float16/bfloat16, as PyTorch (whose norm is
    float32 there; a float16 one overflows)."""
    return input.to(D.float32) if input.dtype in (D.float16, D.bfloat16) else input


@tensor_method
@autocast_op("renorm")
def renorm(input: Tensor, p, dim: int, maxnorm, *, out=None) -> Tensor:
    """Each slice along ``dim`` whose p-norm exceeds ``maxnorm`` scaled down to norm ``maxnorm``.
    ``out=``: of ``input``'s dtype."""
    out = E.exact_out("renorm", out, input, input)
    x = _renorm_input(input)
    # float16/bfloat16: the product in float32 rounded once, the value of PyTorch's float16 product
    result = x * _renorm_factor(x, p, dim, maxnorm, input.dtype)
    result = result if result.dtype is input.dtype else result.to(input.dtype)
    return result if out is None else E.write_out(result, out)


@tensor_method
def renorm_(self: Tensor, p, dim: int, maxnorm) -> Tensor:
    return self.mul_(_renorm_factor(_renorm_input(self), p, dim, maxnorm, self.dtype))


_INDEX_REDUCE = ("prod", "mean", "amax", "amin")


def _index_reduce_args(op: str, input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str,
                       include_self: bool):
    if reduce not in _INDEX_REDUCE:
        raise RuntimeError(f"{op}(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if input.dtype is D.bool:  # PyTorch has no bool kernel for any reduce, with or without include_self
        raise E.not_implemented_for(op, input.dtype)
    need_tensor(op, index, "index", 3)
    need_tensor(op, source, "source", 4)
    if index.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    d = norm_dim(dim, max(input.ndim, 1), op)
    if source.ndim and index.numel() != source.shape[d]:
        raise RuntimeError(f"{op}(): Number of indices ({index.numel()}) should be equal to source.size(dim) "
                           f"({source.shape[d]})")
    # index_reduce is scatter_reduce with each index spread over its row of source
    shape = [1] * source.ndim
    if source.ndim:
        shape[d] = index.numel()
    return d, index.reshape(shape).expand(source.shape)


@tensor_method
def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True, out=None) -> Tensor:
    """Reduce the rows of ``source`` into ``input`` along ``dim`` at the positions ``index``
    (``prod``, ``mean``, ``amax`` or ``amin``; ``include_self``: ``input``'s own row takes part)."""
    out = E.exact_out("index_reduce", out, input, input, source)
    d, spread = _index_reduce_args("index_reduce", input, dim, index, source, reduce, include_self)
    return I.scatter_reduce(input, d, spread, source, reduce, include_self=include_self, out=out)


@tensor_method
def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    d, spread = _index_reduce_args("index_reduce_", self, dim, index, source, reduce, include_self)
    return self.scatter_reduce_(d, spread, source, reduce, include_self=include_self)


@tensor_method
def narrow_copy(input: Tensor, dim: int, start: int, length: int, *, out=None) -> Tensor:
    """A contiguous copy of ``input.narrow(dim, start, length)`` (``out=``: of ``input``'s dtype)."""
    out = E.exact_out("narrow_copy", out, input, input)
    view = input.narrow(dim, start, length)
    return view.contiguous().clone() if out is None else E.write_out(view, out)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of the elements of a 1-d tensor, as rows (itertools order)."""
    import itertools

    if not isinstance(input, Tensor) or input.ndim != 1:
        shape = list(input.shape) if isinstance(input, Tensor) else type(input).__name__
        raise RuntimeError(f"combinations(): Expect a 1D vector, but got shape {shape}")
    if r < 0:
        raise RuntimeError(f"combinations(): Expect a non-negative number, but got {r}")
    if r == 0:
        return input[:0]
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    index = _tensor(rows if rows else np.zeros((0, r), np.int64), dtype=D.int64, device=input.device)
    return input[index.reshape(-1)].reshape(len(rows), r)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """An uninitialised tensor with the given strides (its storage holds exactly the elements the
    strides reach)."""
    from .._factories import empty

    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"empty_strided(): mismatch in length of strides and shape: {len(stride)} vs {len(size)}")
    extent = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    t = empty(extent, dtype=dtype, device=device).as_strided(size, stride)
    return t.requires_grad_() if requires_grad else t


def empty_permuted(size, physical_layout, *, dtype=None, device=None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of shape ``size`` laid out in memory in the order ``physical_layout``
    (outermost dim first): ``empty_permuted((2, 3, 4), (0, 2, 1))`` has strides (12, 1, 3)."""
    from .._factories import empty

    size, layout = tuple(size), tuple(physical_layout)
    n = len(size)
    if n != len(layout):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {n} is not equal to len(physical_layout) = {len(layout)}")
    seen = set()
    for i, d in enumerate(layout):
        if not 0 <= d < n:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {n - 1}, but got {d} at index "
                               f"{i}).  NB: negative dims not currently supported; file an issue if you want it.")
        if d in seen:
            raise RuntimeError("Duplicate dim not allowed")
        seen.add(d)
    physical = empty(tuple(size[d] for d in layout), dtype=dtype, device=device, pin_memory=pin_memory)
    t = physical.permute(sorted(range(n), key=layout.__getitem__))  # (the inverse permutation)
    return t.requires_grad_() if requires_grad else t


@tensor_method
def new_empty_strided(self: Tensor, size, stride, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """``empty_strided`` with ``self``'s dtype and device unless given."""
    return empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                         device=self.device if device is None else device, requires_grad=requires_grad)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A 0-d tensor holding the number ``s``, of the default dtype unless given (PyTorch's: a float
    dtype for an int too)."""
    from .._factories import full

    if isinstance(s, Tensor):
        s = s.item()
    return full((), s, dtype=D.get_default_dtype() if dtype is None else dtype, device=device,
                requires_grad=requires_grad)


@tensor_method
def isreal(input: Tensor) -> Tensor:
    """True for every element of a real tensor (tensorlab has no complex dtypes), NaN included."""
    need_tensor("isreal", input)
    from .._factories import ones_like

    # laid out as the input (PyTorch's ones_like(input, dtype=bool)): isreal(x.t()) is transposed too
    return ones_like(input, dtype=D.bool)


def is_tensor(obj) -> bool:
    """Whether ``obj`` is a tensorlab Tensor."""
    return isinstance(obj, Tensor)


def _assert(condition, message) -> None:
    """``torch._assert``: an ``assert`` that model code (torchvision's anchor generator and box coder) calls as a
    function; a tensor condition is read with ``bool()``, so a tensor of several values raises as ``bool()`` does."""
    assert condition, message


@tensor_method
def is_nonzero(input: Tensor) -> bool:
    """The truth of a one-element tensor (RuntimeError for other sizes, as ``bool()``)."""
    need_tensor("is_nonzero", input)
    if input.numel() == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input.numel() > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item() != 0)


def detach(input: Tensor) -> Tensor:
    """``input.detach()``: the same data, outside the autograd graph."""
    return input.detach()


def _method_as_function(name: str):
    """``torch.<name>(t)`` for a Tensor method without arguments (the functions PyTorch has for them)."""

    def fn(input):
        need_tensor(name, input, "input", 1)
        return getattr(input, name)()

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``input.{name}()``."
    return fn


detach_ = _method_as_function("detach_")
is_floating_point = _method_as_function("is_floating_point")
is_complex = _method_as_function("is_complex")
is_signed = _method_as_function("is_signed")
get_device = _method_as_function("get_device")
