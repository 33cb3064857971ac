"""The reductions op family (issue 3): reductions, softmax and scans. Declarations, public functions, methods.

Kernels and numpy twins live in ``tensorlab_kernels/reduction/``: ``reduce.py`` (sum, mean, prod,
amax, amin, all, any, count_nonzero, norm, logsumexp), ``argreduce.py`` (max/min with indices,
argmax, argmin), ``var.py`` (var, std, var_mean, std_mean), ``softmax.py`` (softmax, log_softmax
and their backward), ``scan.py`` (cumsum, cumprod, cummax, cummin).

PyTorch's rules, which this module implements on top of the kernels:

- ``dim``: None reduces everything (so do ``()`` and ``[]``, but for ``all``/``any``, where they
  reduce nothing, as PyTorch's), an int or a list/tuple of ints reduces those dims (negative dims
  wrap; a repeated dim is an error); ``keepdim`` keeps them as size 1.
- dtypes: ``sum``/``prod``/``cumsum``/``cumprod`` of integers or bools give int64; ``mean``,
  ``var``, ``std``, ``norm``, ``softmax`` need a floating input (or a floating ``dtype=``);
  ``logsumexp`` of integers gives the default float dtype; ``argmax``/``argmin``/indices give
  int64; ``all``/``any`` give bool (uint8 for a uint8 input); ``count_nonzero`` gives int64.
  ``dtype=`` converts the input before reducing.
- empty inputs: ``sum`` 0, ``prod`` 1, ``mean``/``var`` nan, ``logsumexp`` -inf, ``all`` True,
  ``any`` False; ``amax``/``max``/``argmax`` over an empty dim raise, naming the op.
"""

from __future__ import annotations

import builtins
import math
import operator

from tensorlab_kernels.reduction import argreduce as kargreduce
from tensorlab_kernels.reduction import reduce as kreduce
from tensorlab_kernels.reduction import scan as kscan
from tensorlab_kernels.reduction import softmax as ksoftmax
from tensorlab_kernels.reduction import var as kvar

from .. import _dtype as D
from .. import return_types as RT
from .._dispatch import dispatch
from .._registry import Plan, defop
from .._tensor import Tensor, norm_dim, tensor_method
from ..autograd.grad_mode import is_grad_enabled
from . import elementwise_common as E

__all__ = [
    "sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "var", "std", "var_mean",
    "std_mean", "norm", "logsumexp", "softmax", "log_softmax", "cumsum", "cumprod", "logcumsumexp", "cummax",
    "cummin", "all",
    "any", "count_nonzero", "sum_to_size",
]

_builtin_sum, _builtin_max, _builtin_min, _builtin_all, _builtin_any = (
    builtins.sum, builtins.max, builtins.min, builtins.all, builtins.any)



# ----------------------------------------------------------------------------------------------
# argument helpers
# ----------------------------------------------------------------------------------------------


def reduction_dims(input: Tensor, dim, op: str, empty_means_all: bool = True) -> tuple:
    """``dim`` as a sorted tuple of non-negative dims; None (and ``[]`` when ``empty_means_all``)
    means every dim. IndexError for a dim out of range, RuntimeError for a repeated one."""
    n = input.ndim
    if dim is None:
        return tuple(range(n))
    if isinstance(dim, list | tuple):
        if len(dim) == 0:
            return tuple(range(n)) if empty_means_all else ()
        dims = [norm_dim(d, n, op) for d in dim]
    else:
        dims = [norm_dim(dim, n, op)]
    seen = set()
    for d in dims:  # before the 0-d return: PyTorch refuses (0, 0) on a 0-d tensor too
        if d in seen:
            raise RuntimeError(f"{op}(): dim {d} appears multiple times in the list of dims")
        seen.add(d)
    if n == 0:
        return ()
    return tuple(sorted(seen))


def reduced_shape(shape: tuple, dims: tuple, keepdim: bool) -> tuple:
    if keepdim:
        return tuple(1 if i in dims else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in dims)


def _opt_dtype(dtype, op: str):
    return None if dtype is None else D.as_dtype(dtype, op)


def _dtype_from_out(op: str, dtype, out):
    """sum/prod with ``out=`` compute in ``out``'s dtype (the input converted to it first, as PyTorch:
    ``prod([1.5, 2.5], 0, out=<int64>)`` is 2); a ``dtype`` given as well must be ``out``'s."""
    if out is None:
        return dtype
    if not isinstance(out, Tensor):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if dtype is not None and dtype is not out.dtype:
        raise RuntimeError(f"{op}(): Expected out tensor to have dtype {dtype.name}, but got {out.dtype.name} instead")
    return out.dtype


def _check_grad_dtype(input, dtype, out) -> None:
    """A ``dtype=`` that makes sum/prod/cumsum/cumprod integral cannot carry a gradient: PyTorch refuses
    it when the input requires grad, rather than returning a result cut off from the graph. (With
    ``out=``, the dispatcher's refusal of out= under autograd is the error.)"""
    if (out is None and dtype is not None and not dtype.is_floating_point and isinstance(input, Tensor)
            and input._requires_grad and is_grad_enabled()):
        raise RuntimeError(f"Autograd not support dtype: {D.torch_name(dtype)}")


def _dim_given(dim) -> bool:
    """amax/amin's ``dim``: an int (a numpy or 0-d tensor one too) or a non-empty list gives dims;
    None and ``()`` / ``[]`` mean every dim."""
    return dim is not None and not (isinstance(dim, list | tuple) and len(dim) == 0)


def _check_nonempty(input: Tensor, dims: tuple, op: str, dim_given: bool) -> None:
    """amax/max/argmax have no identity: an empty reduction is an error (PyTorch's messages and classes:
    IndexError for an empty reduced dim, and for argmax/argmin without a dim; RuntimeError otherwise)."""
    if input.numel() != 0:
        return
    if not dim_given:
        if op in ("argmax", "argmin"):
            raise IndexError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0.")
        raise RuntimeError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with "
            "the 'dim' argument."
        )
    for d in dims:
        if input._shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def _restore_dims(g: Tensor, dims: tuple, keepdim: bool) -> Tensor:
    """``g`` (a reduction's output or gradient) with the reduced dims back as size 1."""
    if keepdim:
        return g
    for d in sorted(dims):
        g = g.unsqueeze(d)
    return g


def _expand_back(g: Tensor, meta, dims: tuple, keepdim: bool) -> Tensor:
    """The gradient of a sum: ``g`` broadcast back over the reduced dims, in the input's dtype."""
    g = _restore_dims(g, dims, keepdim).expand(meta.shape)
    return g if g.dtype is meta.dtype else g.to(meta.dtype)


def _no_save(ctx, inputs, outputs, params):
    return None


def _save_output(ctx, inputs, outputs, params):
    ctx.save_for_backward(outputs[0])


def _save_input_output(ctx, inputs, outputs, params):
    ctx.save_for_backward(inputs[0], outputs[0])


def _tl():
    import tensorlab

    return tensorlab


# ----------------------------------------------------------------------------------------------
# the generic reductions (tensorlab_kernels.reduction.reduce)
# ----------------------------------------------------------------------------------------------


def _reduce_meta(kernel_op: str, out_dtype):
    """meta for ``kernel_op``; ``out_dtype(x, dtype) -> (result dtype, compute dtype or None)``."""

    def meta(x: Tensor, *, dim: tuple, keepdim: bool = False, dtype=None, p=None, nan_shares: bool = False) -> Plan:
        # (nan_shares: read by the amax/amin backward only)
        result, compute = out_dtype(x, dtype)
        params = {"op": kernel_op, "dims": dim, "compute": None if compute is None else compute.np}
        if p is not None:
            params["p"] = p
        return Plan(args=[x], outputs=[(reduced_shape(x._shape, dim, keepdim), result)], params=params)

    return meta


def _sum_dtype(x: Tensor, dtype):
    if dtype is not None:
        return dtype, dtype
    return (x.dtype if x.dtype.is_floating_point else D.int64), None


def _same_dtype(x: Tensor, dtype):
    return x.dtype, None


def _mean_dtype(x: Tensor, dtype, op: str = "mean"):
    if dtype is not None:
        if not dtype.is_floating_point:
            raise NotImplementedError(
                f"{op}(): could not infer output dtype. Optional dtype must be either a floating point or complex "
                f"dtype. Got: {D.torch_name(dtype)}"
            )
        return dtype, dtype
    if not x.dtype.is_floating_point:
        raise NotImplementedError(
            f"{op}(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. "
            f"Got: {D.torch_name(x.dtype)}"
        )
    return x.dtype, None


def _bool_dtype(x: Tensor, dtype):
    return (D.uint8 if x.dtype is D.uint8 else D.bool), None


def _int64_dtype(x: Tensor, dtype):
    return D.int64, None


def _norm_dtype(x: Tensor, dtype):
    """PyTorch's vector_norm checks, in its order: a floating input (even with a floating ``dtype=``),
    a floating ``dtype``, which the input's dtype converts to without narrowing (float32 -> float16
    raises)."""
    if not x.dtype.is_floating_point:
        raise NotImplementedError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {D.torch_name(x.dtype)}"
        )
    if dtype is not None:
        if not dtype.is_floating_point:
            raise RuntimeError(f"linalg.vector_norm: dtype should be floating point or complex, but got "
                               f"{D.torch_name(dtype)}")
        if D.promote_types(x.dtype, dtype) is not dtype:
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input ({D.torch_name(x.dtype)}) should be "
                               f"convertible without narrowing to the specified dtype ({D.torch_name(dtype)})")
        return dtype, dtype
    return x.dtype, None


def _logsumexp_dtype(x: Tensor, dtype):
    if x.dtype.is_floating_point:
        return x.dtype, None
    d = D.get_default_dtype()  # PyTorch promotes integer inputs to the default float dtype
    return d, d


def _sum_backward(ctx, g):
    p = ctx.params
    return (_expand_back(g, ctx.inputs[0], p["dim"], p["keepdim"]),)


def _mean_backward(ctx, g):
    p, meta = ctx.params, ctx.inputs[0]
    n = math.prod(meta.shape[d] for d in p["dim"])
    # (over an empty dim the gradient is empty: g * 0 keeps its derivative in g 0, where g / 0 made it NaN)
    return (_expand_back(g * 0.0 if n == 0 else g / n, meta, p["dim"], p["keepdim"]),)


def _prod_backward(ctx, g):
    """d prod / d x_i = the product of the other elements. Without zeros that is ``prod / x_i``;
    with zeros it is computed without dividing: exclusive products from the left times exclusive
    products from the right (PyTorch's prod_safe_zeros_backward)."""
    x, y = ctx.saved_tensors
    p = ctx.params
    dims, keepdim = p["dim"], p["keepdim"]
    g = _restore_dims(g, dims, keepdim)
    if not dims:  # a 0-d input: prod is the identity
        return (g.to(x.dtype),)
    xc = x if x.dtype is g.dtype else x.to(g.dtype)
    if not bool((xc == 0).any()):
        return ((g * (_restore_dims(y, dims, keepdim).to(g.dtype) / xc)).to(x.dtype),)
    kept = [d for d in range(x.ndim) if d not in dims]
    order = kept + list(dims)
    xp = xc.permute(order)
    flat = xp.reshape(*xp.shape[:len(kept)], -1)  # the reduced dims as one last dim
    others = _scan(CUMPROD, flat, -1, exclusive=True) * _scan(CUMPROD, flat, -1, exclusive=True, reverse=True)
    others = others.reshape(xp.shape).permute([order.index(d) for d in range(x.ndim)])
    return ((g * others).to(x.dtype),)


def _minmax_evenly_backward(ctx, g):
    """amax/amin/max()/min(): the gradient is shared evenly among the elements equal to the result
    (for max()/min(), PyTorch's evenly_distribute_backward, among the NaNs when the result is NaN)."""
    x, y = ctx.saved_tensors
    p = ctx.params
    dims, keepdim = p["dim"], p["keepdim"]
    y = _restore_dims(y, dims, keepdim)
    mask = x == y
    if p.get("nan_shares"):  # max()/min(): PyTorch's cpu evenly_distribute_backward (a masked fill:
        # an inf or NaN gradient reaches the selected elements only)
        mask = mask | (x.isnan() & y.isnan())
        share = _restore_dims(g, dims, keepdim) / mask.to(g.dtype).sum()
        return (_tl().where(mask, share, _tl().zeros((), dtype=g.dtype, device=g.device)).to(x.dtype),)
    mask = mask.to(g.dtype)
    count = mask.sum(dim=list(dims), keepdim=True)
    return ((mask * (_restore_dims(g, dims, keepdim) / count)).to(x.dtype),)


def _norm_backward(ctx, g):
    x, y = ctx.saved_tensors
    p = ctx.params
    dims, keepdim, order = p["dim"], p["keepdim"], p["p"]
    tl = _tl()
    g = _restore_dims(g, dims, keepdim)
    y = _restore_dims(y, dims, keepdim)
    xc = x if x.dtype is g.dtype else x.to(g.dtype)
    zero = tl.zeros((), dtype=g.dtype, device=g.device)
    if order == 0:
        grad = tl.zeros_like(xc)
    elif order == 1:
        grad = xc.sign() * g
    elif order == 2:
        grad = tl.where(y == 0, zero, xc / y) * g
    elif order in (math.inf, -math.inf):
        # PyTorch: a NaN is one of the selected elements (its gradient is sign(NaN) = 0 times its share)
        mask = ((xc.abs() == y) | xc.isnan()).to(g.dtype)
        grad = xc.sign() * mask * (g / mask.sum(dim=list(dims), keepdim=True))
    else:
        # sign(x) |x|^(p-1), as PyTorch: x |x|^(p-2) is 0 * inf = nan at a zero for 1 < p < 2
        scaled = xc.sign() * xc.abs().pow(order - 1) if order >= 1 else tl.where(
            xc == 0, zero, xc.sign() * xc.abs().pow(order - 1))
        grad = scaled * tl.where(y == 0, zero, g / y.pow(order - 1))
    return (grad.to(x.dtype),)


def _logsumexp_backward(ctx, g):
    x, y = ctx.saved_tensors
    p = ctx.params
    dims, keepdim = p["dim"], p["keepdim"]
    xc = x if x.dtype is g.dtype else x.to(g.dtype)
    return (((xc - _restore_dims(y, dims, keepdim)).exp() * _restore_dims(g, dims, keepdim)).to(x.dtype),)


def _declare_reduce(name, kernel_op, out_dtype, backward=None, save=_no_save, doc=""):
    return defop(name, twin=kreduce.reduce_twin, kernel=kreduce.reduce, meta=_reduce_meta(kernel_op, out_dtype),
                 backward=backward, save=save if backward is not None else None,
                 tags={"reduction", "replayable"}, doc=doc)  # (its launches follow from geometry, dims, dtype)


SUM = _declare_reduce("sum", "sum", _sum_dtype, _sum_backward, doc="Sum over dims (int/bool -> int64).")
MEAN = _declare_reduce("mean", "mean", _mean_dtype, _mean_backward, doc="Mean over dims (floating only).")
PROD = _declare_reduce("prod", "prod", _sum_dtype, _prod_backward, save=_save_input_output,
                       doc="Product over dims (int/bool -> int64).")
AMAX = _declare_reduce("amax", "amax", _same_dtype, _minmax_evenly_backward, save=_save_input_output,
                       doc="Maximum over dims (NaN propagates); the gradient is shared among ties.")
AMIN = _declare_reduce("amin", "amin", _same_dtype, _minmax_evenly_backward, save=_save_input_output,
                       doc="Minimum over dims (NaN propagates); the gradient is shared among ties.")
ALL = _declare_reduce("all", "all", _bool_dtype, doc="True where every element is non-zero.")
ANY = _declare_reduce("any", "any", _bool_dtype, doc="True where some element is non-zero.")
COUNT_NONZERO = _declare_reduce("count_nonzero", "count_nonzero", _int64_dtype, doc="Number of non-zeros (int64).")
NORM = _declare_reduce("norm", "norm", _norm_dtype, _norm_backward, save=_save_input_output,
                       doc="Vector p-norm over dims.")
LOGSUMEXP = _declare_reduce("logsumexp", "logsumexp", _logsumexp_dtype, _logsumexp_backward,
                            save=_save_input_output, doc="log(sum(exp(x))) over dims, computed stably.")


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:  # noqa: A001
    """Sum over ``dim`` (all dims by default); integer and bool inputs sum to int64. With ``out=``
    (and a ``dim``: PyTorch's full sum has no ``out=``) the sum is computed in ``out``'s dtype, the
    input converted to it first (``sum(float_x, 0, out=int64_t)`` sums the truncated values), and a
    ``dtype`` must be ``out``'s."""
    dtype = _opt_dtype(dtype, "sum")
    if out is not None and dim is None:
        raise TypeError("sum(): out= needs a dim (PyTorch has no sum(input, *, dtype, out) overload); "
                        "use sum(input, dim, out=...)")
    dtype = _dtype_from_out("sum", dtype, out)
    _check_grad_dtype(input, dtype, out)
    dims = reduction_dims(input, dim, "sum")
    return dispatch(SUM, input, dim=dims, keepdim=bool(keepdim), dtype=dtype, out=out)


def _tensor_sum(self: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """``Tensor.sum``: no ``out=`` (as PyTorch's method)."""
    return sum(self, dim, keepdim, dtype=dtype)


tensor_method(_tensor_sum, name="sum")


@tensor_method
def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    dtype = _opt_dtype(dtype, "mean")
    if out is not None and (dtype is not None or (isinstance(out, Tensor) and out.dtype.is_floating_point
                                                  and isinstance(input, Tensor) and input.dtype.is_floating_point)):
        dtype = _dtype_from_out("mean", dtype, out)  # (the mean is computed in out's floating dtype)
    _mean_dtype(input, dtype)  # (PyTorch checks the dtype before the dims)
    dims = reduction_dims(input, dim, "mean")
    return dispatch(MEAN, input, dim=dims, keepdim=bool(keepdim), dtype=dtype, out=out)


@tensor_method
def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    if isinstance(dim, list | tuple):
        raise TypeError("prod(): argument 'dim' must be int, not " + type(dim).__name__)
    if dim is None and out is not None:  # (PyTorch's prod over everything has no out= overload)
        raise TypeError("prod() received an invalid combination of arguments - got (Tensor, out=Tensor), but "
                        "expected one of: (Tensor input, *, dtype), (Tensor input, int dim, bool keepdim, *, dtype, "
                        "Tensor out)")
    dtype = _dtype_from_out("prod", _opt_dtype(dtype, "prod"), out)
    _check_grad_dtype(input, dtype, out)
    dims = reduction_dims(input, dim, "prod")
    return dispatch(PROD, input, dim=dims, keepdim=bool(keepdim), dtype=dtype, out=out)


@tensor_method
def amax(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    dims = reduction_dims(input, dim, "amax")
    _check_nonempty(input, dims, "amax", dim_given=_dim_given(dim))
    E.exact_out("amax", out, input, input)
    return dispatch(AMAX, input, dim=dims, keepdim=bool(keepdim), out=out)


@tensor_method
def amin(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    dims = reduction_dims(input, dim, "amin")
    _check_nonempty(input, dims, "amin", dim_given=_dim_given(dim))
    E.exact_out("amin", out, input, input)
    return dispatch(AMIN, input, dim=dims, keepdim=bool(keepdim), out=out)


def _bool_out_input(op: str, input: Tensor, out) -> Tensor:
    """all/any write a bool (or uint8) ``out=`` only, as PyTorch; a uint8 input's result is uint8,
    which does not cast to a bool ``out=``, so that input is reduced as ``input != 0``."""
    if isinstance(out, Tensor):
        if out.dtype not in (D.bool, D.uint8):
            raise RuntimeError(f"{op} only supports bool tensor for result, got: {D.torch_name(out.dtype)}")
        if out.dtype is D.bool and input.dtype is D.uint8:
            return input != 0
    return input


@tensor_method
def all(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:  # noqa: A001
    """True where every element over ``dim`` is non-zero; ``dim=()`` or ``[]`` reduces nothing (PyTorch's
    all/any, unlike sum/mean/amax, which reduce everything then): the elementwise test, in the input's shape."""
    dims = reduction_dims(input, dim, "all", empty_means_all=False)
    input = _bool_out_input("all", input, out)
    return dispatch(ALL, input, dim=dims, keepdim=bool(keepdim), out=out)


@tensor_method
def any(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:  # noqa: A001
    """True where some element over ``dim`` is non-zero; ``dim=()`` or ``[]`` reduces nothing, as :func:`all`."""
    dims = reduction_dims(input, dim, "any", empty_means_all=False)
    input = _bool_out_input("any", input, out)
    return dispatch(ANY, input, dim=dims, keepdim=bool(keepdim), out=out)


@tensor_method
def count_nonzero(input: Tensor, dim=None) -> Tensor:
    dims = reduction_dims(input, dim, "count_nonzero")
    return dispatch(COUNT_NONZERO, input, dim=dims, keepdim=False)


def _norm_order(p, dim, op: str):
    """torch.norm's ``p`` as a number (``'fro'`` is the 2-norm over the given dims; None, as
    torch.norm takes it, the 2-norm too; a numpy number is a number)."""
    if p is None:
        return 2.0
    if isinstance(p, str):
        if p == "fro":
            if isinstance(dim, list | tuple) and len(dim) > 2:
                raise RuntimeError(f"{op}(): 'fro' norm expects at most 2 dims, got {list(dim)}")
            return 2.0
        if p == "nuc":
            raise NotImplementedError(f"{op}(): the nuclear norm ('nuc') needs an SVD, which tensorlab does not have")
        if p in ("inf", "-inf"):
            return float(p)
        raise RuntimeError(f"{op}(): invalid norm type {p!r}")
    # a number as PyTorch's Scalar argument takes it: a numpy number, a bool (True is 1), a 0-d tensor
    p = E.number_param(op, p, "p", "float")
    return float(p)


def _check_norm_identity(input: Tensor, order: float, dim, dtype) -> None:
    """PyTorch's vector_norm: the inf norm and the norms of negative order have no identity, so an
    empty reduction raises, naming the first empty dim as given (or the tensor, without a dim)."""
    if input.numel() != 0 or not (order < 0 or order == math.inf):
        return
    given = [] if dim is None else list(dim) if isinstance(dim, list | tuple) else [dim]
    if not given:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {order:g} norm on an empty tensor because the "
                           "operation does not have an identity")
    for d in given:
        if input._shape[norm_dim(d, input.ndim, "norm")] == 0:  # (PyTorch's wording, its missing space too)
            raise RuntimeError(f"linalg.vector_norm cannot compute the {order:g} norm on the dimension {d}because "
                               "this dimension is empty and the operation does not have an identity")


def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None) -> Tensor:
    """Vector p-norm over ``dim`` (all elements by default): p = 0, 1, 2, inf, -inf, 'fro', any float."""
    order = _norm_order(p, dim, "norm")
    dtype = _opt_dtype(dtype, "norm")
    _norm_dtype(input, dtype)  # (PyTorch checks the dtypes before the dims)
    dims = reduction_dims(input, dim, "norm")
    _check_norm_identity(input, order, dim, dtype)
    E.exact_out("norm", out, input, input, dtype=dtype)
    return dispatch(NORM, input, dim=dims, keepdim=bool(keepdim), dtype=dtype, p=order, out=out)


@tensor_method(name="norm")
def _norm_method(self: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """``Tensor.norm(p, dim, keepdim, dtype)``: the method's fourth argument is the dtype (the
    function's is ``out``)."""
    return norm(self, p, dim, keepdim, dtype=dtype)


@tensor_method
def logsumexp(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """``log(sum(exp(input)))`` over ``dim``, stably (an online maximum; all -inf gives -inf). With a
    floating ``out=`` of another dtype it is computed in ``out``'s dtype, as PyTorch sums ``exp(x - max)``
    into ``out``: ``logsumexp(float32 [100, 100], 0, out=<float64>)`` is 100 + log(2) to float64
    precision, not the float32 result widened. ``dim`` is required, as torch.logsumexp's."""
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' (position 2) must be tuple of ints, not NoneType")
    dims = reduction_dims(input, dim, "logsumexp")
    if (isinstance(out, Tensor) and out.dtype is not input.dtype and out.dtype.is_floating_point
            and input.dtype.is_floating_point):
        input = input.to(out.dtype)
    return dispatch(LOGSUMEXP, input, dim=dims, keepdim=bool(keepdim), out=out)


@tensor_method
def sum_to_size(self: Tensor, *size) -> Tensor:
    """Sum ``self`` down to ``size`` (which must broadcast to ``self``'s shape): leading dims are
    summed away and dims where ``size`` is 1 are summed with keepdim. Returns ``self`` when the
    shapes already match. Its gradient is ``expand`` (sum's backward)."""
    if len(size) == 1 and isinstance(size[0], list | tuple):
        size = tuple(size[0])
    try:
        size = tuple(operator.index(s) for s in size)
    except TypeError:
        raise TypeError(f"sum_to_size(): size must be a sequence of ints, got {size!r}") from None
    shape = self._shape
    lead = len(shape) - len(size)
    if lead < 0 or _builtin_any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"sum_to_size: size {{{', '.join(map(str, size))}}} is not expandable to size "
                           f"{{{', '.join(map(str, shape))}}}.")
    if size == shape:
        return self
    inner = tuple(lead + i for i, s in enumerate(size) if s == 1 and shape[lead + i] != 1)
    dims = tuple(range(lead)) + inner
    if not dims:
        return self.reshape(size)
    if not inner:  # leading dims only (a bias gradient): summed away, which leaves ``size``
        return dispatch(SUM, self, dim=dims, keepdim=False, dtype=None)
    out = dispatch(SUM, self, dim=dims, keepdim=True, dtype=None)
    return out.reshape(size) if lead else out


# ----------------------------------------------------------------------------------------------
# max / min: full reduction, with dim (values, indices), or the binary form
# ----------------------------------------------------------------------------------------------

max_return, min_return = RT.max, RT.min  # (tensorlab.return_types: they pickle by those names)


def _other_overload(name: str, dim, keepdim, other):
    """max/min's ``other=`` keyword (PyTorch's ``max(input, other)`` overload, by name): the tensor to
    compare with, which goes where a positional one goes; it takes no dim."""
    if other is None:
        return dim
    if dim is not None or keepdim:
        raise TypeError(f"{name}(): other= takes no dim or keepdim")
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' must be Tensor, not {type(other).__name__}")
    return other


@tensor_method
def max(input: Tensor, dim=None, keepdim: bool = False, *, other=None, out=None):  # noqa: A001
    """``max(input)`` -> 0-d maximum; ``max(input, dim, keepdim)`` -> (values, indices);
    ``max(input, other)`` (or ``other=``) -> elementwise ``maximum``."""
    dim = _other_overload("max", dim, keepdim, other)
    if isinstance(dim, Tensor):
        return _tl().maximum(input, dim) if out is None else _tl().maximum(input, dim, out=out)
    if dim is None:
        if keepdim:
            raise TypeError("max(): keepdim=True needs dim")
        _check_nonempty(input, (), "max", dim_given=False)
        return dispatch(AMAX, input, dim=tuple(range(input.ndim)), keepdim=False, nan_shares=True, out=out)
    return _minmax_dim(MAX_DIM, max_return, input, dim, keepdim, out, "max")


@tensor_method
def min(input: Tensor, dim=None, keepdim: bool = False, *, other=None, out=None):  # noqa: A001
    dim = _other_overload("min", dim, keepdim, other)
    if isinstance(dim, Tensor):
        return _tl().minimum(input, dim) if out is None else _tl().minimum(input, dim, out=out)
    if dim is None:
        if keepdim:
            raise TypeError("min(): keepdim=True needs dim")
        _check_nonempty(input, (), "min", dim_given=False)
        return dispatch(AMIN, input, dim=tuple(range(input.ndim)), keepdim=False, nan_shares=True, out=out)
    return _minmax_dim(MIN_DIM, min_return, input, dim, keepdim, out, "min")



# ----------------------------------------------------------------------------------------------
# max/min over a dim (values, indices), argmax, argmin (tensorlab_kernels.reduction.argreduce)
# ----------------------------------------------------------------------------------------------


def _max_dim_meta(x: Tensor, *, dim: int, keepdim: bool = False, is_max: bool = True) -> Plan:
    shape = reduced_shape(x._shape, (dim,) if x.ndim else (), keepdim)
    return Plan(args=[x], outputs=[(shape, x.dtype), (shape, D.int64)], params={"dim": dim, "is_max": is_max},
                single=False)


def _max_dim_backward(ctx, g, g_indices=None):
    """The gradient goes to the selected element (PyTorch routes it to the index, no sharing)."""
    (indices,) = ctx.saved_tensors
    meta, p = ctx.inputs[0], ctx.params
    if len(meta.shape) == 0:
        return (g.to(meta.dtype),)
    dim = p["dim"]
    tl = _tl()
    g = _restore_dims(g, (dim,), p["keepdim"])
    indices = _restore_dims(indices, (dim,), p["keepdim"])
    size = meta.shape[dim]
    positions = tl.arange(size, device=g.device).reshape([size if d == dim else 1 for d in range(len(meta.shape))])
    hit = positions == indices
    zero = tl.zeros((), dtype=g.dtype, device=g.device)
    return (tl.where(hit, g, zero).expand(meta.shape).to(meta.dtype),)


def _save_indices(ctx, inputs, outputs, params):
    ctx.save_for_backward(outputs[1])


_ARG_DOC = "over one dim: (values, indices); the first index among ties, NaN propagates"
MAX_DIM = defop("max_dim", twin=kargreduce.max_min_dim_twin, kernel=kargreduce.max_min_dim, meta=_max_dim_meta,
                backward=_max_dim_backward, save=_save_indices,
                tags={"reduction", "no_partial_overlap"}, doc="max " + _ARG_DOC)
MIN_DIM = defop("min_dim", twin=kargreduce.max_min_dim_twin, kernel=kargreduce.max_min_dim, meta=_max_dim_meta,
                backward=_max_dim_backward, save=_save_indices,
                tags={"reduction", "no_partial_overlap"}, doc="min " + _ARG_DOC)


def _arg_meta(x: Tensor, *, dim: tuple, keepdim: bool = False, is_max: bool = True) -> Plan:
    return Plan(args=[x], outputs=[(reduced_shape(x._shape, dim, keepdim), D.int64)],
                params={"dims": dim, "is_max": is_max})


ARGMAX = defop("argmax", twin=kargreduce.arg_max_min_twin, kernel=kargreduce.arg_max_min, meta=_arg_meta,
               tags={"reduction"}, doc="Index of the maximum (first among ties; NaN counts as the maximum).")
ARGMIN = defop("argmin", twin=kargreduce.arg_max_min_twin, kernel=kargreduce.arg_max_min, meta=_arg_meta,
               tags={"reduction"}, doc="Index of the minimum (first among ties; NaN counts as the minimum).")


def _minmax_dim(op, result_type, input: Tensor, dim, keepdim: bool, out, name: str):
    d = norm_dim(dim, input.ndim, name)
    _check_nonempty(input, (d,) if input.ndim else (), name, dim_given=True)
    E.exact_pair_out(name, out, input)
    values, indices = dispatch(op, input, dim=d, keepdim=bool(keepdim), is_max=op is MAX_DIM,
                               out=tuple(out) if out is not None else None)
    return result_type(values, indices)


def _argmaxmin(op, input: Tensor, dim, keepdim: bool, out, name: str) -> Tensor:
    if isinstance(dim, list | tuple):  # (the argument parser's check comes first)
        raise TypeError(f"{name}(): argument 'dim' must be int, not {type(dim).__name__}")
    if input.dtype is D.bool:  # PyTorch refuses bool (max/min of a bool tensor work), before other checks,
        # with a NotImplementedError (a RuntimeError too)
        raise NotImplementedError(f"{name}(): does not support bool input")
    if dim is None:  # the index into the flattened input (keepdim: every dim kept as size 1)
        _check_nonempty(input, (), name, dim_given=False)
        E.exact_out(name, out, input, input, dtype=D.int64)
        return dispatch(op, input, dim=tuple(range(input.ndim)), keepdim=bool(keepdim), is_max=op is ARGMAX,
                        out=out)
    d = norm_dim(dim, input.ndim, name)
    dims = (d,) if input.ndim else ()
    _check_nonempty(input, dims, name, dim_given=True)
    E.exact_out(name, out, input, input, dtype=D.int64)
    return dispatch(op, input, dim=dims, keepdim=bool(keepdim), is_max=op is ARGMAX, out=out)


@tensor_method
def argmax(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    """Index (int64) of the maximum over ``dim``; ``dim=None`` gives the index into the flattened input."""
    return _argmaxmin(ARGMAX, input, dim, keepdim, out, "argmax")


@tensor_method
def argmin(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    return _argmaxmin(ARGMIN, input, dim, keepdim, out, "argmin")


# ----------------------------------------------------------------------------------------------
# var, std, var_mean, std_mean (tensorlab_kernels.reduction.var)
# ----------------------------------------------------------------------------------------------


def _var_meta(x: Tensor, *, dim: tuple, keepdim: bool = False, correction: float = 1.0, std: bool = False,
              with_mean: bool = False) -> Plan:
    shape = reduced_shape(x._shape, dim, keepdim)
    outputs = [(shape, x.dtype)] * (2 if with_mean else 1)
    return Plan(args=[x], outputs=outputs, params={"dims": dim, "correction": correction, "std": std},
                single=not with_mean)


def _var_backward(ctx, g, g_mean=None):
    """var: ``g * 2 (x - mean) / (N - correction)``; std: ``g (x - mean) / ((N - correction) std)``
    (0 where std is 0, as PyTorch); plus the mean's gradient ``g_mean / N`` for var_mean/std_mean."""
    x, result = ctx.saved_tensors
    p = ctx.params
    dims, keepdim = p["dim"], p["keepdim"]
    n = math.prod(x._shape[d] for d in dims)
    if p.get("with_mean") and 0 in ctx.undefined_grads:
        # only the mean was used: no var/std term, as PyTorch, whose x - mean is NaN where x is inf
        grad = _restore_dims(g_mean, dims, keepdim) / n
        return (grad.expand(x._shape).to(x.dtype),)
    divisor = _builtin_max(0.0, n - p["correction"])
    tl = _tl()
    xc = x if x.dtype is g.dtype else x.to(g.dtype)
    g = _restore_dims(g, dims, keepdim)
    if p["std"]:
        r = _restore_dims(result, dims, keepdim)
        zero = tl.zeros((), dtype=g.dtype, device=g.device)
        scale = tl.where(r == 0, zero, g / r) / divisor
    else:
        scale = g * (2.0 / divisor) if divisor else g / divisor
    grad = (xc - xc.mean(dim=list(dims), keepdim=True)) * scale
    if g_mean is not None and p.get("with_mean"):
        grad = grad + _restore_dims(g_mean, dims, keepdim) / n
    return (grad.expand(x._shape).to(x.dtype),)


def _var_save(ctx, inputs, outputs, params):
    """var and var_mean save the input alone (their backward recomputes the mean), as PyTorch, so
    their results may be modified in place; std and std_mean also the std, which they divide by."""
    ctx.save_for_backward(inputs[0], outputs[0] if params["std"] else None)


VAR = defop("var", twin=kvar.var_only_twin, kernel=kvar.var_only, meta=_var_meta, backward=_var_backward,
            save=_var_save, tags={"reduction"}, doc="Variance (Welford/Chan, one pass).")
STD = defop("std", twin=kvar.var_only_twin, kernel=kvar.var_only, meta=_var_meta, backward=_var_backward,
            save=_save_input_output, tags={"reduction"}, doc="Standard deviation.")
VAR_MEAN = defop("var_mean", twin=kvar.var_mean_twin, kernel=kvar.var_mean, meta=_var_meta,
                 backward=_var_backward, save=_var_save, tags={"reduction"}, doc="(var, mean) in one pass.")
STD_MEAN = defop("std_mean", twin=kvar.var_mean_twin, kernel=kvar.var_mean, meta=_var_meta,
                 backward=_var_backward, save=_save_input_output, tags={"reduction"}, doc="(std, mean) in one pass.")


def _var_args(input: Tensor, dim, unbiased, keepdim, correction, name: str):
    if isinstance(dim, bool):  # the legacy var(input, unbiased) form
        if unbiased is not None:
            raise TypeError(f"{name}(): got multiple values for argument 'unbiased'")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:  # (no PyTorch overload takes both: a TypeError)
        raise TypeError(f"{name}(): Cannot specify both unbiased and correction")
    if correction is None:
        correction = 1.0 if unbiased is None or unbiased else 0.0
    else:  # a number as PyTorch's Scalar argument takes it: a numpy number, a 0-d tensor; a bool (True is 1)
        correction = E.number_param(name, correction, "correction", "float")
        correction = int(correction) if isinstance(correction, bool) else correction
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"{name}(): std and var only support floating point and complex dtypes (got "
                                  f"{D.torch_name(input.dtype)})")
    dims = reduction_dims(input, dim, name)
    n = math.prod(input._shape[d] for d in dims)
    if n - correction <= 0:
        import warnings

        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      f"factor (input numel divided by output numel) (N = {n}, correction = {correction})",
                      stacklevel=3)
    return dims, bool(keepdim), float(correction)


@tensor_method
def var(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, out=None) -> Tensor:
    """Variance over ``dim`` with divisor ``N - correction`` (default 1; ``unbiased=False`` means 0)."""
    dims, keepdim, c = _var_args(input, dim, unbiased, keepdim, correction, "var")
    return dispatch(VAR, _in_wider_out(input, out), dim=dims, keepdim=keepdim, correction=c, std=False, out=out)


def _in_wider_out(input: Tensor, out) -> Tensor:
    """var/std of a float16/bfloat16 input into a float32/float64 ``out=``: computed in out's
    dtype, as PyTorch's (the half result cast up lost digits out= has room for)."""
    if isinstance(out, Tensor) and input.dtype in (D.float16, D.bfloat16) and out.dtype in (D.float32, D.float64):
        return input.to(out.dtype)
    return input


@tensor_method
def std(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None, out=None) -> Tensor:
    dims, keepdim, c = _var_args(input, dim, unbiased, keepdim, correction, "std")
    return dispatch(STD, _in_wider_out(input, out), dim=dims, keepdim=keepdim, correction=c, std=True, out=out)


@tensor_method
def var_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> tuple:
    """``(var, mean)`` from one pass over the input (no ``out=``: PyTorch has none)."""
    dims, keepdim, c = _var_args(input, dim, unbiased, keepdim, correction, "var_mean")
    return dispatch(VAR_MEAN, input, dim=dims, keepdim=keepdim, correction=c, std=False, with_mean=True)


@tensor_method
def std_mean(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None) -> tuple:
    dims, keepdim, c = _var_args(input, dim, unbiased, keepdim, correction, "std_mean")
    return dispatch(STD_MEAN, input, dim=dims, keepdim=keepdim, correction=c, std=True, with_mean=True)


# ----------------------------------------------------------------------------------------------
# softmax, log_softmax (tensorlab_kernels.reduction.softmax)
# ----------------------------------------------------------------------------------------------


def _softmax_meta(x: Tensor, *, dim: int, dtype=None, log: bool = False) -> Plan:
    name = "log_softmax" if log else "softmax"
    target = dtype if dtype is not None else x.dtype
    if not target.is_floating_point and x.numel() != 0:  # (PyTorch returns an empty integer input as it is)
        raise NotImplementedError(f"{name}(): \"{name}\" not implemented for '{D.torch_name(target)}' (softmax needs "
                                  "a floating point input or a floating dtype=)")
    return Plan(args=[x], outputs=[(x._shape, target)],
                params={"dim": dim, "log": log, "compute": None if dtype is None else dtype.np})


def _softmax_backward(ctx, g):
    (y,) = ctx.saved_tensors
    meta, p = ctx.inputs[0], ctx.params
    gin = dispatch(SOFTMAX_BACKWARD, g, y, dim=p["dim"], log=p["log"])
    return (gin if gin.dtype is meta.dtype else gin.to(meta.dtype),)


SOFTMAX = defop("softmax", twin=ksoftmax.softmax_twin, kernel=ksoftmax.softmax, meta=_softmax_meta,
                backward=_softmax_backward, save=_save_output, tags={"reduction", "replayable"},
                doc="exp(x - max) / sum(exp(x - max)) over one dim (one read, one write when a row fits).")
LOG_SOFTMAX = defop("log_softmax", twin=ksoftmax.softmax_twin, kernel=ksoftmax.softmax, meta=_softmax_meta,
                    backward=_softmax_backward, save=_save_output, tags={"reduction", "replayable"},
                    doc="x - max - log(sum(exp(x - max))) over one dim.")


def _softmax_backward_meta(g: Tensor, y: Tensor, *, dim: int, log: bool = False) -> Plan:
    if g._shape != y._shape:
        raise RuntimeError(f"_softmax_backward_data: grad shape {list(g._shape)} != output shape {list(y._shape)}")
    return Plan(args=[g, y], outputs=[(g._shape, g.dtype)], params={"dim": dim, "log": log})


def _softmax_backward_backward(ctx, h):
    """Double backward. softmax: gin = y (g - s), s = sum(g y): d/dg is the same op applied to h,
    d/dy = h (g - s) - g sum(h y). log_softmax: gin = g - exp(y) sum(g): d/dg = h - sum(h exp(y)),
    d/dy = -h exp(y) sum(g)."""
    g, y = ctx.saved_tensors
    p = ctx.params
    dim = p["dim"] if g.ndim else None
    kw = {"dim": dim, "keepdim": True} if dim is not None else {}
    dg = dy = None
    if p["log"]:
        ey = y.exp()
        if ctx.needs_input_grad[0]:
            dg = h - (h * ey).sum(**kw)
        if ctx.needs_input_grad[1]:
            dy = -(h * ey) * g.sum(**kw)
    else:
        if ctx.needs_input_grad[0]:
            dg = dispatch(SOFTMAX_BACKWARD, h, y, dim=p["dim"], log=False)
        if ctx.needs_input_grad[1]:
            dy = h * (g - (g * y).sum(**kw)) - g * (h * y).sum(**kw)
    return dg, dy


SOFTMAX_BACKWARD = defop("_softmax_backward_data", twin=ksoftmax.softmax_backward_twin,
                         kernel=ksoftmax.softmax_backward, meta=_softmax_backward_meta,
                         backward=_softmax_backward_backward, tags={"reduction", "replayable"},
                         doc="softmax's input gradient from its output y and gradient g: y (g - sum(g y)); "
                             "log_softmax's: g - exp(y) sum(g).")


def implicit_softmax_dim(input: Tensor, dim, name: str, stacklevel: int = 3):
    """nn.functional's softmax family's ``dim=None``: PyTorch's legacy implicit choice, with its
    warning (torch.softmax and Tensor.softmax take no such thing)."""
    if dim is None:
        import warnings

        warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                      "as an argument.", stacklevel=stacklevel)
        dim = 0 if input.ndim in (0, 1, 3) else 1
    return dim


def _softmax_dim(input: Tensor, dim, name: str) -> int:
    if dim is None:  # (torch.softmax's dim is an int, required)
        raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not NoneType")
    return norm_dim(dim, input.ndim, name)


def _check_softmax_out(name: str, input: Tensor, dtype, out) -> None:
    """softmax/log_softmax's ``out=``: of the result's dtype exactly (PyTorch's check)."""
    E.check_outs(name, out, (dtype if dtype is not None else input.dtype,), input.device, input)


@tensor_method
def softmax(input: Tensor, dim, dtype=None, *, out=None, _stacklevel: int = 3) -> Tensor:
    """``exp(x) / sum(exp(x))`` over ``dim``, stably; ``dtype`` converts the input first."""
    d = _softmax_dim(input, dim, "softmax")
    dtype = _opt_dtype(dtype, "softmax")
    if out is not None:
        _check_softmax_out("softmax", input, dtype, out)
    return dispatch(SOFTMAX, input, dim=d, dtype=dtype, log=False, out=out)


@tensor_method
def log_softmax(input: Tensor, dim, dtype=None, *, out=None, _stacklevel: int = 3) -> Tensor:
    d = _softmax_dim(input, dim, "log_softmax")
    dtype = _opt_dtype(dtype, "log_softmax")
    if out is not None:
        _check_softmax_out("log_softmax", input, dtype, out)
    return dispatch(LOG_SOFTMAX, input, dim=d, dtype=dtype, log=True, out=out)


# ----------------------------------------------------------------------------------------------
# cumsum, cumprod, logcumsumexp, cummax, cummin (tensorlab_kernels.reduction.scan)
# ----------------------------------------------------------------------------------------------


def _scan_meta(kernel_op: str):
    def meta(x: Tensor, *, dim: int, dtype=None, exclusive: bool = False, reverse: bool = False) -> Plan:
        if dtype is not None:
            result, compute = dtype, dtype.np
        else:
            result, compute = (x.dtype if x.dtype.is_floating_point else D.int64), None
        return Plan(args=[None, x], outputs=[(x._shape, result)],
                    params={"op": kernel_op, "dim": dim, "compute": compute, "exclusive": exclusive,
                            "reverse": reverse})

    return meta


def _cumsum_backward(ctx, g):
    meta, p = ctx.inputs[0], ctx.params
    grad = _scan(CUMSUM, g, p["dim"], exclusive=p["exclusive"], reverse=not p["reverse"])
    return (grad.to(meta.dtype),)


def _cumprod_backward(ctx, g):
    """d y_j / d x_k = prod_{i <= j, i != k} x_i for k <= j. Where x has no zero:
    ``reverse_cumsum(g * y) / x``. Otherwise, as PyTorch, a term with a zero factor is 0 even where
    an inf or NaN would make it NaN: the first zero z of each row (in scan order) gets
    ``prod_{i < z} x_i * sum_{z <= j < next zero} g_j prod_{z < i <= j} x_i``, every later element
    0, and the elements before it the division formula over the terms before it. (PyTorch 2.15
    gives NaN at and before z where an infinite x precedes z, an artifact this does not copy.)"""
    x, y = ctx.saved_tensors
    p = ctx.params
    dim, rev = p["dim"], p["reverse"]
    if not p["exclusive"] and (x.ndim == 0 or x._shape[dim] <= 1):
        # a scan over one element is the identity: its gradient is g, also where x is inf or NaN
        # (the division formula gave NaN there), as PyTorch's cumprod_backward
        return (g.to(x.dtype),)
    xc = x if x.dtype is g.dtype else x.to(g.dtype)
    if p["exclusive"]:
        # (prod's double backward with zeros) the exclusive scan is the inclusive scan of x without
        # its last element (in scan order) shifted by one: that element gets no gradient
        n = x._shape[dim]
        if n <= 1:
            return (_tl().zeros(x._shape, dtype=x.dtype, device=g.device),)
        xs = xc.narrow(dim, 1 if rev else 0, n - 1)
        gs = g.narrow(dim, 0 if rev else 1, n - 1)
        grad = _inclusive_cumprod_grad(xs, _scan(CUMPROD, xs, dim, reverse=rev), gs, dim, rev)
        edge = _tl().zeros_like(g.narrow(dim, 0, 1))
        return (_tl().cat([edge, grad] if rev else [grad, edge], dim).to(x.dtype),)
    yc = y if y.dtype is g.dtype else y.to(g.dtype)
    return (_inclusive_cumprod_grad(xc, yc, g, dim, rev).to(x.dtype),)


def _inclusive_cumprod_grad(xc: Tensor, yc: Tensor, g: Tensor, dim: int, rev: bool) -> Tensor:
    tl = _tl()
    a = _scan(CUMSUM, g * yc, dim, reverse=not rev)
    is_zero = xc == 0
    if not bool(is_zero.any()):
        return a / xc
    if xc.requires_grad and is_grad_enabled():  # a gradient to differentiate again (create_graph)
        return _cumprod_grad_by_products(xc, g, dim, rev)
    zero = tl.zeros((), dtype=g.dtype, device=g.device)
    one = tl.ones((), dtype=g.dtype, device=g.device)
    zeros_so_far = _scan(CUMSUM, is_zero, dim, reverse=rev)
    first_run, seen = zeros_so_far == 1, zeros_so_far >= 1  # from the first zero to the next; from it on
    first = is_zero & first_run
    head = _scan(CUMPROD, tl.where(seen, one, xc), dim, reverse=rev)  # prod_{i < z} x_i at z
    tail = _scan(CUMPROD, tl.where(seen & ~first, xc, one), dim, reverse=rev)  # prod_{z < i <= j} x_i
    at_first = head * _scan(CUMSUM, tl.where(first_run, g * tail, zero), dim, reverse=not rev)
    before = _scan(CUMSUM, tl.where(seen, zero, g * yc), dim, reverse=not rev) / tl.where(seen, one, xc)
    return tl.where(first, at_first, tl.where(seen, zero, before))


# elements of the (k, i) product table _cumprod_grad_by_products builds at a time
PRODUCT_TABLE_ELEMENTS = 1 << 24


def _cumprod_grad_by_products(xc: Tensor, g: Tensor, dim: int, rev: bool) -> Tensor:
    """``grad_k = sum_{j >= k} g_j prod_{i <= j, i != k} x_i`` (scan order) computed from the
    products themselves, as PyTorch's cumprod_backward does when its result is differentiated
    again: the zero-aware formula above replaces the zeros by constants, so its gradient would not
    depend on them (d2/dx2 of cumprod([2, 0, 3]).sum() gave [4, 0, 2]; the right answer is
    [4, 6, 2]). For each k, the cumulative product of x with x_k set to 1, over blocks of k so that
    a block's table has at most PRODUCT_TABLE_ELEMENTS elements."""
    tl = _tl()
    if rev:
        return _cumprod_grad_by_products(xc.flip(dim), g.flip(dim), dim, False).flip(dim)
    x, gl = xc.movedim(dim, -1), g.movedim(dim, -1)  # (..., n)
    n = x._shape[-1]
    rows = builtins.max(1, PRODUCT_TABLE_ELEMENTS // builtins.max(1, n * x.numel()))
    k_all = tl.arange(n, device=g.device)
    parts = []
    for k0 in range(0, n, rows):
        k = k_all[k0:k0 + rows, None]  # (b, 1)
        table = tl.where(k == k_all, 1.0, x.unsqueeze(-2))  # (..., b, n): x with x_k set to 1, per row k
        products = _scan(CUMPROD, table, table.ndim - 1, reverse=False)
        counted = (k_all >= k).to(g.dtype)  # j >= k
        parts.append((products * gl.unsqueeze(-2) * counted).sum(-1))  # (..., b)
    return (parts[0] if len(parts) == 1 else tl.cat(parts, -1)).movedim(-1, dim)


def _logcumsumexp_meta(x: Tensor, *, dim: int, reverse: bool = False) -> Plan:
    if not x.dtype.is_floating_point:
        raise E.not_implemented_for("logcumsumexp", x.dtype)
    return Plan(args=[None, x], outputs=[(x._shape, x.dtype)],
                params={"op": "logcumsumexp", "dim": dim, "reverse": reverse})


def _logcumsumexp_backward(ctx, g):
    x, y = ctx.saved_tensors
    if x.ndim == 0:  # the identity: g, also at an infinite or NaN x (PyTorch's rule; the formula gave NaN)
        return (g,)
    return (dispatch(LOGCUMSUMEXP_BACKWARD, g, x, y, dim=ctx.params["dim"], reverse=ctx.params.get("reverse", False)),)


def _signed_log_scan(v: Tensor, x: Tensor, y: Tensor, dim: int, reverse: bool, to_x: bool) -> Tensor:
    """``sum_j v_j exp(x_i - y_j)`` over j at or after i in scan order (``to_x``: the gradient of x
    for an upstream gradient v), or ``sum_i v_i exp(x_i - y_j)`` over i up to j (its transpose: the
    change of y for a change v of x). PyTorch's rule (after TensorFlow's): a logcumsumexp in log space,
    the positive and the negative v apart, so nothing overflows."""
    tl = _tl()
    log_v = v.abs().log()
    lowest = float(D.float_info(v.dtype).min)  # (PyTorch's choice: not -inf, which would give -inf - -inf)
    parts = []
    for sign in (v > 0, v < 0):
        if to_x:
            parts.append((dispatch(LOGCUMSUMEXP, tl.where(sign, log_v, lowest) - y, dim=dim, reverse=not reverse)
                          + x).exp())
        else:
            parts.append((dispatch(LOGCUMSUMEXP, tl.where(sign, log_v, lowest) + x, dim=dim, reverse=reverse)
                          - y).exp())
    return parts[0] - parts[1]


def _logcumsumexp_backward_impl(g: Tensor, x: Tensor, y: Tensor, *, dim: int, reverse: bool) -> Tensor:
    """d y_j / d x_i = exp(x_i - y_j) for i <= j (in scan order): the gradient of x_i is
    ``sum_{j >= i} g_j exp(x_i - y_j)``. Not differentiated through: log|g| has no derivative at
    g = 0 (where(g > 0, log g, lowest) picks a constant there), so a double backward through it lost
    the g = 0 terms; the op's own rule (below) differentiates the linear map instead."""
    from ..autograd.grad_mode import no_grad

    with no_grad():
        return _signed_log_scan(g, x, y, dim, reverse, to_x=True)


def _logcumsumexp_backward_backward(ctx, u):
    """The gradient of b = logcumsumexp's backward(g, x, y), ``b_i = sum_{j >= i} g_j exp(x_i - y_j)``,
    for an upstream u: linear in g (its transpose: ``sum_{i <= j} u_i exp(x_i - y_j)``), ``b_i`` itself
    for x_i, and ``-g_j`` times the transpose for y_j (y carries its own dependence on x). (Written
    with ops, so a third derivative goes through log|u| and loses the u = 0 terms again.)"""
    g, x, y, b = ctx.saved_tensors
    p = ctx.params
    t = _signed_log_scan(u, x, y, p["dim"], p["reverse"], to_x=False)
    return t, u * b, -g * t


LOGCUMSUMEXP_BACKWARD = defop(
    "logcumsumexp_backward", custom=_logcumsumexp_backward_impl, backward=_logcumsumexp_backward_backward,
    save=lambda ctx, inputs, outputs, params: ctx.save_for_backward(*inputs, outputs[0]), tags={"reduction"},
    doc="The gradient of logcumsumexp's input, with its own (exact at g = 0) derivative.")


def _cummax_meta(x: Tensor, *, dim: int) -> Plan:
    return Plan(args=[x], outputs=[(x._shape, x.dtype), (x._shape, D.int64)], params={"dim": dim}, single=False)


def _cummax_backward(ctx, g, g_indices=None):
    """Each output takes its value from one input element (its index): scatter-add the gradient there."""
    (indices,) = ctx.saved_tensors
    meta = ctx.inputs[0]
    if len(meta.shape) == 0:
        return (g.to(meta.dtype),)
    tl = _tl()
    base = tl.zeros(meta.shape, dtype=g.dtype, device=g.device)
    return (base.scatter_add(ctx.params["dim"], indices, g).to(meta.dtype),)


def _scan_impl(is_max: bool):
    def kernel(values, indices, x, *, dim):
        kscan.scan(values, indices, x, op="cummax" if is_max else "cummin", dim=dim)

    def twin(values, indices, x, *, dim):
        kscan.scan_twin(values, indices, x, op="cummax" if is_max else "cummin", dim=dim)

    return kernel, twin


CUMSUM = defop("cumsum", twin=kscan.scan_twin, kernel=kscan.scan, meta=_scan_meta("cumsum"),
               backward=_cumsum_backward, save=_no_save, tags={"reduction", "no_partial_overlap"},
               doc="Cumulative sum (integers/bools -> int64; fp16/bf16 accumulate in fp32).")
CUMPROD = defop("cumprod", twin=kscan.scan_twin, kernel=kscan.scan, meta=_scan_meta("cumprod"),
                backward=_cumprod_backward, save=_save_input_output, tags={"reduction", "no_partial_overlap"},
                doc="Cumulative product (integers/bools -> int64).")
LOGCUMSUMEXP = defop("logcumsumexp", twin=kscan.scan_twin, kernel=kscan.scan, meta=_logcumsumexp_meta,
                     backward=_logcumsumexp_backward, save=_save_input_output,
                     tags={"reduction", "no_partial_overlap"},
                     doc="log(cumsum(exp(x))) along a dim, computed stably (floating dtypes).")
_cummax_kernel, _cummax_twin = _scan_impl(True)
_cummin_kernel, _cummin_twin = _scan_impl(False)
CUMMAX = defop("cummax", twin=_cummax_twin, kernel=_cummax_kernel, meta=_cummax_meta, backward=_cummax_backward,
               save=_save_indices, tags={"reduction"},
               doc="Running maximum and its index (the last among ties; NaN propagates).")
CUMMIN = defop("cummin", twin=_cummin_twin, kernel=_cummin_kernel, meta=_cummax_meta, backward=_cummax_backward,
               save=_save_indices, tags={"reduction"},
               doc="Running minimum and its index (the last among ties; NaN propagates).")


def _scan(op, x: Tensor, dim: int, exclusive: bool = False, reverse: bool = False, dtype=None, out=None) -> Tensor:
    """Dispatch a cumsum/cumprod with the internal variants the backward rules use."""
    return dispatch(op, x, dim=norm_dim(dim, x.ndim, op.name), dtype=dtype, exclusive=exclusive, reverse=reverse,
                    out=out)


def _public_scan(op, input: Tensor, dim, dtype, out) -> Tensor:
    """cumsum/cumprod as PyTorch's: ``out=`` scans in out's dtype (the input is converted first:
    cumsum([1.5, 2.5], out=<int64>) is [1, 3]; a ``dtype`` given as well must be out's), and there
    is no bool scan."""
    dtype = _opt_dtype(dtype, op.name)
    if out is not None or dtype is D.bool:
        if isinstance(input, Tensor):  # PyTorch checks the dim first: an IndexError for a bad one
            norm_dim(dim, input.ndim, op.name)
        dtype = _dtype_from_out(op.name, dtype, out)
        if dtype is D.bool:
            raise E.not_implemented_for(op.name, dtype)
    _check_grad_dtype(input, dtype, out)
    return _scan(op, input, dim, dtype=dtype, out=out)


@tensor_method
def cumsum(input: Tensor, dim, *, dtype=None, out=None) -> Tensor:
    """Cumulative sum along ``dim``; integer and bool inputs give int64 unless ``dtype`` (or out='s
    dtype) says otherwise."""
    return _public_scan(CUMSUM, input, dim, dtype, out)


@tensor_method
def cumprod(input: Tensor, dim, *, dtype=None, out=None) -> Tensor:
    return _public_scan(CUMPROD, input, dim, dtype, out)


def _scan_(op, self: Tensor, dim, dtype) -> Tensor:
    """cumsum_/cumprod_: the scan in ``self``'s dtype (int32 stays int32 and wraps, as PyTorch's),
    computed out of place and copied in (the backward of cumprod reads the old ``self``)."""
    dtype = _opt_dtype(dtype, op.name + "_")
    if isinstance(self, Tensor):
        if dtype is not None and dtype is not self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {D.cpp_name(self.dtype)} and output tensor "
                               f"dtype {D.cpp_name(dtype)} should match")
        if self.dtype is D.bool:  # PyTorch has no bool scan kernel
            raise E.not_implemented_for(op.name, self.dtype)
    return E.inplace_composite(op.name, lambda src: _scan(op, src, dim, dtype=src.dtype), self)


@tensor_method
def cumsum_(self: Tensor, dim, *, dtype=None) -> Tensor:
    return _scan_(CUMSUM, self, dim, dtype)


@tensor_method
def cumprod_(self: Tensor, dim, *, dtype=None) -> Tensor:
    return _scan_(CUMPROD, self, dim, dtype)


@tensor_method
def logcumsumexp(input: Tensor, dim, *, out=None) -> Tensor:
    """``log(cumsum(exp(input)))`` along ``dim``, without overflow (floating inputs; fp16/bf16 in fp32)."""
    d = norm_dim(dim, input.ndim, "logcumsumexp")
    E.exact_out("logcumsumexp", out, input, input)
    return dispatch(LOGCUMSUMEXP, input, dim=d, out=out)


cummax_return, cummin_return = RT.cummax, RT.cummin


@tensor_method
def cummax(input: Tensor, dim: int, *, out=None):
    """(values, indices): the running maximum along ``dim`` and where it was found."""
    d = norm_dim(dim, input.ndim, "cummax")
    E.exact_pair_out("cummax", out, input)
    return cummax_return(*dispatch(CUMMAX, input, dim=d, out=tuple(out) if out is not None else None))


@tensor_method
def cummin(input: Tensor, dim: int, *, out=None):
    d = norm_dim(dim, input.ndim, "cummin")
    E.exact_pair_out("cummin", out, input)
    return cummin_return(*dispatch(CUMMIN, input, dim=d, out=tuple(out) if out is not None else None))
