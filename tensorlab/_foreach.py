"""``tl._foreach_*``: PyTorch's list-of-tensors ops (``torch._foreach_mul_(params, 0.999)``), which
EMA updates and hand-written optimizers call. Each is the single-tensor op applied to every tensor
of the list (PyTorch fuses them into multi-tensor kernels; tensorlab's fused optimizers have their
own). The second operand may be a number, a list of numbers, a list of tensors or one tensor, as
in PyTorch; out-of-place forms return a tuple, in-place forms the list they were given (as torch
2.15's).

PyTorch's overload rules, kept here:

- ``maximum``/``minimum`` with a number (or a list of numbers) run ``clamp_min``/``clamp_max``
  (its dtype rule and errors: ``"clamp_min" not implemented for 'Bool'``) with maximum's gradient
  (a tie shares it); with tensors, ``maximum``/``minimum`` (in place: ``clamp_min_``/``clamp_max_``).
- A 0-d tensor ``other`` of add/sub (without ``alpha=``), maximum/minimum, pow and clamp_min/clamp_max,
  and a 0-d tensor weight of lerp, is PyTorch's Scalar overload: it promotes as a Python number of
  its kind would (``[<0-d float16>] + <0-d float32>`` stays float16). It is cast on its device to the
  dtype that rule gives, never read to the host (a lerp weight of a 0-d entry is not: the entry's
  lerp with it is rounded to the entry's dtype, as PyTorch reads the weight at full precision). One
  that requires grad is a Tensor operand (for add, PyTorch's Tensor overload); mul/div take a 0-d
  tensor as a Tensor, as PyTorch's do.
- ``_foreach_pow(number_or_0d_tensor, exponents)``: the base is a scalar (that rule again).
- The ``value`` of addcmul/addcdiv may be a number, a list of numbers, or a 1-d cpu tensor of one
  number per entry (PyTorch's packed scalars, read to the host as PyTorch reads them).
"""

from __future__ import annotations

import numbers

from . import _dtype as D
from ._tensor import Tensor

_BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow", "clamp_min", "clamp_max"]
_UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac",
          "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "rsqrt", "sigmoid", "sign", "sin",
          "sinh", "sqrt", "tan", "tanh", "trunc"]
_TERNARY = ["addcmul", "addcdiv", "lerp"]
# the binary ops whose 0-d tensor ``other`` PyTorch takes as a Scalar (mul/div have a Tensor overload)
_SCALAR_OTHER = frozenset({"add", "sub", "maximum", "minimum", "pow", "clamp_min", "clamp_max"})
_CLAMP = {"maximum": "clamp_min", "minimum": "clamp_max"}
_CLAMP_OF = {**_CLAMP, "clamp_min": "clamp_min", "clamp_max": "clamp_max"}  # (the kernel a number runs)


def _list(op: str, tensors) -> list:
    if not isinstance(tensors, list | tuple):  # (a Tensor would be taken apart into its rows)
        raise TypeError(f"{op}(): argument 'self' must be tuple of Tensors, not {type(tensors).__name__}")
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{op}: Tensor list must have at least one tensor.")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return tensors


def _nth(op: str, other, i: int, n: int):
    if isinstance(other, list | tuple):
        if len(other) != n:
            if other and all(isinstance(x, numbers.Number) for x in other):
                raise RuntimeError("Tensor list must have same number of elements as scalar list.")
            raise RuntimeError(f"{op}: Tensor lists must have the same number of tensors, got {n} and {len(other)}.")
        return other[i]
    return other


# the binary ops with a TensorList overload taking alpha=, and those whose Tensor overload does too
_ALPHA_LIST = frozenset({"add", "sub"})
_ALPHA_TENSOR = frozenset({"add"})
_TENSOR_OTHER = frozenset({"add", "mul", "div"})  # (a Tensor overload: a 0-d tensor, broadcast to each entry)


def _check_other(op: str, name: str, other, kwargs: dict) -> None:
    """PyTorch's overloads of the binary ops, checked before any entry is touched: a list is all
    tensors or all numbers; a tensor ``other`` is 0-d (a Scalar, or add/mul/div's Tensor); ``alpha=``
    only with a list of tensors (add, sub) or add's tensor."""
    if isinstance(other, list | tuple):
        kinds = {isinstance(x, Tensor) for x in other}
        if len(kinds) > 1 or (kinds == {False} and not all(isinstance(x, numbers.Number) for x in other)):
            raise TypeError(f"{op}(): argument 'other' must be a list of Tensors or a list of numbers, got "
                            f"[{', '.join(type(x).__name__ for x in other)}]")
    elif isinstance(other, Tensor) and other._shape:
        if name in _TENSOR_OTHER:
            raise RuntimeError(f"{op}: scalar tensor expected to be 0 dim but it has {other.ndim} dimensions")
        raise TypeError(f"{op}(): a tensor 'other' must be 0-d (taken as a Scalar), got shape {list(other.shape)}")
    if "alpha" in kwargs:
        tensors = isinstance(other, list | tuple) and all(isinstance(x, Tensor) for x in other)
        if not ((tensors and name in _ALPHA_LIST) or (isinstance(other, Tensor) and name in _ALPHA_TENSOR)):
            raise TypeError(f"{op}() got an unexpected keyword argument 'alpha' (only with "
                            f"{'a list of tensors or a tensor' if name == 'add' else 'a list of tensors'} as other)")


def _grad_on() -> bool:
    from .autograd.grad_mode import is_grad_enabled

    return is_grad_enabled()


def _is_scalar_tensor(x) -> bool:
    """A 0-d tensor that PyTorch's argument parser would take as a Scalar (one requiring grad it
    cannot)."""
    return isinstance(x, Tensor) and not x._shape and not x._requires_grad


def _as_number(t: Tensor, scalar: Tensor, cache: dict) -> Tensor:
    """``scalar`` (a 0-d tensor) cast to the dtype a Python number of its kind would give with ``t``
    (``[<0-d int32>] + <0-d int64>`` is int32, ``[<int32>] + <0-d float64>`` float32); one cast per
    dtype, on the device, without reading the value."""
    kind = scalar.dtype
    sample = True if kind is D.bool else 1.0 if kind.is_floating_point else 1
    dtype = D.result_type(t, sample)
    if dtype is kind:
        return scalar
    if dtype not in cache:
        cache[dtype] = scalar.to(dtype)
    return cache[dtype]


def _extremum(name: str, t: Tensor, other, inplace: bool):
    """maximum/minimum as PyTorch's foreach overloads run them (see the module docstring)."""
    clamp = _CLAMP[name]
    if isinstance(other, Tensor):
        return getattr(t, clamp + "_")(other) if inplace else getattr(t, name)(other)
    if inplace:
        return getattr(t, clamp + "_")(other)
    if _grad_on() and t._requires_grad and isinstance(other, numbers.Number):
        from ._factories import tensor  # maximum's gradient: a tie shares it, where clamp's goes to t

        return getattr(t, name)(tensor(other, dtype=t.dtype, device=t.device))
    return getattr(t, clamp)(other)


def _binary(name: str):
    def run(op: str, self, other, inplace: bool, kwargs: dict):
        if name == "pow" and not inplace and isinstance(self, numbers.Number | Tensor):
            return _pow_scalar_base(self, other)
        ts = _list(op, self)
        if name in _CLAMP and kwargs:
            raise TypeError(f"{op}() got an unexpected keyword argument '{next(iter(kwargs))}'")
        _check_other(op, name, other, kwargs)
        number = name in _SCALAR_OTHER and "alpha" not in kwargs and _is_scalar_tensor(other)
        if number and other.dtype is D.bool and name == "sub":
            number = False  # (sub's error for a bool operand, as for True)
        cache: dict = {}
        results = []
        for i, t in enumerate(ts):
            if number and other.dtype is D.bool and t.dtype is D.bool and name in _CLAMP_OF:
                from .ops.elementwise_common import not_implemented_for  # (clamp_min(bool, True)'s error)

                raise not_implemented_for(_CLAMP_OF[name], D.bool)
            o = _as_number(t, other, cache) if number else _nth(op, other, i, len(ts))
            if name in _CLAMP:
                results.append(_extremum(name, t, o, inplace))
            elif number and name == "pow" and t.dtype is D.bool and o.dtype is D.bool:  # pow(bools, True)
                results.append(getattr(t, "logical_or_" if inplace else "logical_or")(o.logical_not()))
            else:
                results.append(getattr(t, name + "_" if inplace else name)(o, **kwargs))
        return self if inplace else tuple(results)

    def out_of_place(self, other, **kwargs):
        return run(f"_foreach_{name}", self, other, False, kwargs)

    def in_place(self, other, **kwargs):
        return run(f"_foreach_{name}_", self, other, True, kwargs)

    return out_of_place, in_place


def _pow_scalar_base(base, exponents) -> list:
    """``_foreach_pow(2.0, exponents)``: ``base ** e`` for each tensor ``e`` (a 0-d tensor base is
    PyTorch's Scalar, see :func:`_as_number`)."""
    from .ops.elementwise_binary import pow as _pow

    if (isinstance(base, Tensor) and base._shape) or not isinstance(exponents, list | tuple):
        raise TypeError(f"_foreach_pow() received an invalid combination of arguments - got "
                        f"({type(base).__name__}, {type(exponents).__name__}), but expected one of: "
                        "(tuple of Tensors self, Number scalar), (tuple of Tensors self, tuple of Scalars scalars), "
                        "(tuple of Tensors self, tuple of Tensors exponent), (Number self, tuple of Tensors exponent)")
    ts = _list("_foreach_pow", exponents)
    number = _is_scalar_tensor(base)
    cache: dict = {}
    return tuple(_pow(_as_number(e, base, cache) if number else base, e) for e in ts)


def _unary(name: str):
    def out_of_place(self):
        return tuple(getattr(t, name)() for t in _list(f"_foreach_{name}", self))

    def in_place(self):
        for t in _list(f"_foreach_{name}_", self):
            getattr(t, name + "_")()
        return self

    return out_of_place, in_place


def _packed_scalars(op: str, value, n: int):
    """addcmul/addcdiv's ``value``: a tensor of scalars is PyTorch's packed form, a 1-d cpu tensor of
    one number per entry (its checks, in its order), read as the list of numbers."""
    if not isinstance(value, Tensor):
        return value
    if value.device.type != "cpu":
        raise RuntimeError(f"Expected scalars to be on CPU, got {value.device} instead.")
    if not value.is_contiguous():
        raise RuntimeError("Expected scalars to be contiguous.")
    if value.ndim != 1:
        raise RuntimeError(f"Expected packed scalar Tensor to be of dimension 1. Got {value.ndim} instead.")
    if value.shape[0] != n:
        raise RuntimeError(f"Expected length of scalars to match input of length {n} but got {value.shape[0]} "
                           "instead.")
    return value.tolist()


def _ternary(name: str):
    """addcmul/addcdiv (self, tensor1, tensor2, value=1; value: a number, numbers or a 1-d tensor of
    them, one per entry) and lerp (self, tensors1, weight)."""

    def operands(op, self, a, b):
        ts = _list(op, self)
        return ts, [(_nth(op, a, i, len(ts)), _nth(op, b, i, len(ts))) for i in range(len(ts))]

    if name == "lerp":
        def one(t, x, w, inplace, number, cache):
            if number and not t._shape and t.dtype.is_floating_point and w.dtype.is_floating_point:
                # PyTorch's Scalar weight is read at full precision: lerp with it and round the
                # result to t's dtype (a 0-d weight and a 0-d t would otherwise promote)
                return t.lerp_(x, w) if inplace else t.lerp(x, w).to(t.dtype)
            w = _as_number(t, w, cache) if number else w
            return t.lerp_(x, w) if inplace else t.lerp(x, w)

        def run(op, self, tensors1, weight, inplace):
            number = _is_scalar_tensor(weight)
            ts, ops = operands(op, self, tensors1, None if number else weight)
            cache: dict = {}
            results = [one(t, x, weight if number else w, inplace, number, cache)
                       for t, (x, w) in zip(ts, ops, strict=True)]
            return self if inplace else tuple(results)

        def out_of_place(self, tensors1, weight):
            return run("_foreach_lerp", self, tensors1, weight, False)

        def in_place(self, tensors1, weight):
            return run("_foreach_lerp_", self, tensors1, weight, True)

        return out_of_place, in_place

    def run(op, self, tensor1, tensor2, value, inplace):
        ts, ops = operands(op, self, tensor1, tensor2)
        value = _packed_scalars(op, value, len(ts))
        results = [getattr(t, name + "_" if inplace else name)(x, y, value=_nth(op, value, i, len(ts)))
                   for i, (t, (x, y)) in enumerate(zip(ts, ops, strict=True))]
        return self if inplace else tuple(results)

    def out_of_place(self, tensor1, tensor2, value=1):
        return run(f"_foreach_{name}", self, tensor1, tensor2, value, False)

    def in_place(self, tensor1, tensor2, value=1):
        return run(f"_foreach_{name}_", self, tensor1, tensor2, value, True)

    return out_of_place, in_place


def _foreach_zero_(self):
    for t in _list("_foreach_zero_", self):
        t.zero_()
    return self


def _foreach_copy_(self, src, non_blocking: bool = False):
    ts = _list("_foreach_copy_", self)
    for i, t in enumerate(ts):
        t.copy_(_nth("_foreach_copy_", src, i, len(ts)), non_blocking=non_blocking)
    return self


def _foreach_norm(self, ord=2, dtype=None) -> tuple:
    from .linalg import vector_norm

    return tuple(vector_norm(t, ord, dtype=dtype) for t in _list("_foreach_norm", self))


def _foreach_clone(self) -> tuple:
    return tuple(t.clone() for t in _list("_foreach_clone", self))


def _foreach_max(self) -> tuple:
    """The largest element of each tensor, 0-d (clip_grad_norm_'s inf norm); an empty tensor has none."""
    ts = _list("_foreach_max", self)
    for t in ts:
        if t.numel() == 0:
            raise RuntimeError("_foreach_max cannot compute the maximum of an empty tensor; max over zero elements "
                               "is undefined.")
    return tuple(t.max() for t in ts)


def functions() -> dict:
    """Every ``_foreach_*`` function by name (installed at the top level of tensorlab)."""
    made = {"_foreach_zero_": _foreach_zero_, "_foreach_copy_": _foreach_copy_, "_foreach_norm": _foreach_norm,
            "_foreach_clone": _foreach_clone, "_foreach_max": _foreach_max}
    for names, factory in ((_BINARY, _binary), (_UNARY, _unary), (_TERNARY, _ternary)):
        for name in names:
            out_of_place, in_place = factory(name)
            out_of_place.__name__, in_place.__name__ = f"_foreach_{name}", f"_foreach_{name}_"
            made[out_of_place.__name__], made[in_place.__name__] = out_of_place, in_place
    return made
