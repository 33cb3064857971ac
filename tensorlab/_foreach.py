"""``tl._foreach_*``: PyTorch's list-of-tensors ops (``torch._foreach_mul_(params, 0.999)``), which
EMA updates and hand-written optimizers call. Each is the single-tensor op applied to every tensor
of the list (PyTorch fuses them into multi-tensor kernels; tensorlab's fused optimizers have their
own). The second operand may be a number, a list of numbers, a list of tensors or one tensor, as
in PyTorch; out-of-place forms return a list, in-place forms None."""

from __future__ import annotations

_BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow", "clamp_min", "clamp_max"]
_UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1", "floor", "frac",
          "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal", "round", "sigmoid", "sign", "sin", "sinh",
          "sqrt", "tan", "tanh", "trunc"]
_TERNARY = ["addcmul", "addcdiv", "lerp"]


def _list(op: str, tensors) -> list:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{op}: Tensor list must have at least one tensor.")
    return tensors


def _nth(op: str, other, i: int, n: int):
    if isinstance(other, list | tuple):
        if len(other) != n:
            raise RuntimeError(f"{op}: Tensor lists must have the same number of tensors, got {n} and {len(other)}.")
        return other[i]
    return other


def _binary(name: str):
    def out_of_place(self, other, **kwargs):
        op = f"_foreach_{name}"
        ts = _list(op, self)
        return [getattr(t, name)(_nth(op, other, i, len(ts)), **kwargs) for i, t in enumerate(ts)]

    def in_place(self, other, **kwargs):
        op = f"_foreach_{name}_"
        ts = _list(op, self)
        for i, t in enumerate(ts):
            getattr(t, name + "_")(_nth(op, other, i, len(ts)), **kwargs)

    return out_of_place, in_place


def _unary(name: str):
    def out_of_place(self):
        return [getattr(t, name)() for t in _list(f"_foreach_{name}", self)]

    def in_place(self):
        for t in _list(f"_foreach_{name}_", self):
            getattr(t, name + "_")()

    return out_of_place, in_place


def _ternary(name: str):
    """addcmul/addcdiv (self, tensor1, tensor2, value=1; value: a number, numbers or a tensor of them per
    entry) and lerp (self, tensors1, weight)."""

    def operands(op, self, a, b):
        ts = _list(op, self)
        return ts, [(_nth(op, a, i, len(ts)), _nth(op, b, i, len(ts))) for i in range(len(ts))]

    if name == "lerp":
        def out_of_place(self, tensors1, weight):
            ts, ops = operands("_foreach_lerp", self, tensors1, weight)
            return [t.lerp(x, w) for t, (x, w) in zip(ts, ops, strict=True)]

        def in_place(self, tensors1, weight):
            ts, ops = operands("_foreach_lerp_", self, tensors1, weight)
            for t, (x, w) in zip(ts, ops, strict=True):
                t.lerp_(x, w)

        return out_of_place, in_place

    def out_of_place(self, tensor1, tensor2, value=1):
        op = f"_foreach_{name}"
        ts, ops = operands(op, self, tensor1, tensor2)
        return [getattr(t, name)(x, y, value=_nth(op, value, i, len(ts)))
                for i, (t, (x, y)) in enumerate(zip(ts, ops, strict=True))]

    def in_place(self, tensor1, tensor2, value=1):
        op = f"_foreach_{name}_"
        ts, ops = operands(op, self, tensor1, tensor2)
        for i, (t, (x, y)) in enumerate(zip(ts, ops, strict=True)):
            getattr(t, name + "_")(x, y, value=_nth(op, value, i, len(ts)))

    return out_of_place, in_place


def _foreach_zero_(self) -> None:
    for t in _list("_foreach_zero_", self):
        t.zero_()


def _foreach_copy_(self, src, non_blocking: bool = False) -> None:
    ts = _list("_foreach_copy_", self)
    for i, t in enumerate(ts):
        t.copy_(_nth("_foreach_copy_", src, i, len(ts)), non_blocking=non_blocking)


def _foreach_norm(self, ord=2, dtype=None) -> list:
    from .linalg import vector_norm

    return [vector_norm(t, ord, dtype=dtype) for t in _list("_foreach_norm", self)]


def functions() -> dict:
    """Every ``_foreach_*`` function by name (installed at the top level of tensorlab)."""
    made = {"_foreach_zero_": _foreach_zero_, "_foreach_copy_": _foreach_copy_, "_foreach_norm": _foreach_norm}
    for names, factory in ((_BINARY, _binary), (_UNARY, _unary), (_TERNARY, _ternary)):
        for name in names:
            out_of_place, in_place = factory(name)
            out_of_place.__name__, in_place.__name__ = f"_foreach_{name}", f"_foreach_{name}_"
            made[out_of_place.__name__], made[in_place.__name__] = out_of_place, in_place
    return made


