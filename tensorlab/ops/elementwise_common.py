"""What the elementwise declarations share: scalars, broadcasting, compute types, errors, gradients.

PyTorch's rules implemented here:

- Python scalars (``bool``, ``int``, ``float``, numpy scalars) are *weak* operands: they take part
  in :func:`tensorlab.result_type` only by category (``int32 tensor + 2.5`` is float32,
  ``float16 tensor * 3.0`` stays float16). They reach the kernels as arguments, never as tensors.
- Inputs broadcast without copies (:func:`broadcast_geometry`: stride 0 on broadcast dims).
- The compute type is the result's ``opmath``: float16/bfloat16 compute in float32.
- Gradients of broadcast inputs are summed back to the input's shape and cast to its dtype.
"""

from __future__ import annotations

import numbers

import numpy as np

from tensorlab_kernels.elementwise.common import opmath

from .. import _dtype as D
from .._broadcast import broadcast_geometry, broadcast_shapes
from .._dispatch import check_outs_apart
from .._factories import as_tensor, check_int_converts, check_scalar_fits
from .._layout import elementwise_strides
from .._storage import contiguous_strides
from .._tensor import Tensor

TAGS = frozenset({"elementwise", "inplace_safe"})


def not_implemented_for(op: str, dtype: D.dtype) -> NotImplementedError:
    """PyTorch's error for an op without a kernel for a dtype (``"silu" not implemented for 'Long'``):
    a NotImplementedError, as PyTorch raises (a RuntimeError too: Python's NotImplementedError derives from it)."""
    return NotImplementedError(f'{op}(): "{op}" not implemented for \'{D.torch_name(dtype)}\'')


def ct(dtype: D.dtype) -> str:
    """The compute type (by name) of a result dtype: float16/bfloat16 compute in float32."""
    return opmath(dtype.name)


def float_result(dtype: D.dtype) -> D.dtype:
    """Integer and bool inputs of a floating op give the default floating dtype (``exp(int)`` is float32)."""
    return dtype if dtype.is_floating_point else D.get_default_dtype()


_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


def fit_scalars(op: str, dtype: D.dtype, opmath: bool, **scalars) -> dict:
    """Number parameters (the add family's ``alpha``/``beta``, add/sub's ``alpha``, addcmul/addcdiv's
    ``value``, lerp's number ``weight``) as torch 2.13's cpu kernels convert them, each returned as
    the kernel takes it:

    - a complex number only with no imaginary part, returned as its real part;
    - a value that fits the type the kernel reads it in, where a silent conversion would give inf
      or a wrapped integer (``value cannot be converted to type float without overflow``: 1e50 for
      float32, 300 for int8): float32 for float16/bfloat16 where ``opmath`` (addmm, baddbmm,
      addcmul, addcdiv, lerp), else ``dtype`` itself (addmv, addr and add read a float16 alpha as
      float16);
    - for an integer type, truncated to an int (callers that refuse a float there, as PyTorch's
      alpha_check, do so first);
    - a Python int beyond 64 bits is an OverflowError, as PyTorch's argument parser raises."""
    into = D.float32 if opmath and dtype in (D.float16, D.bfloat16) else dtype
    fitted = {}
    for name, v in scalars.items():
        v = check_scalar_fits(op, v, into, name=name)  # (the real part of a complex; beyond 64 bits: OverflowError)
        if into in D.INTEGRAL:  # C++'s conversion truncates: addcmul(int64, value=2.5) adds 2 * t1 * t2
            v = int(v)
        fitted[name] = v
    return fitted


def number_param(op: str, x, name: str, kind: str = "Number"):
    """A number parameter (PyTorch's Scalar: add's ``alpha``, the addmm family's ``alpha``/``beta``,
    addcmul's ``value``; ``kind="float"`` for its float ones, whose error says so). PyTorch's
    argument parser also takes a 0-d tensor that does not require grad, read as its number (an
    optimizer's tensor learning rate: ``p.add_(g, alpha=-lr)``), and a complex number, which
    :func:`fit_scalars` takes as its real part or refuses."""
    if isinstance(x, Tensor):
        if x._shape or x._requires_grad:
            raise TypeError(f"{op}(): argument '{name}' must be {kind}, not Tensor")
        return x.item()
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, numbers.Integral):
        return int(x)  # (its range is the op's to check: fit_scalars)
    if isinstance(x, numbers.Real):
        return float(x)
    if isinstance(x, numbers.Complex) and kind == "Number":
        return complex(x)
    raise TypeError(f"{op}(): argument '{name}' must be {kind}, not {type(x).__name__}")


def as_operand(op: str, x, name: str = "other"):
    """A Tensor stays a Tensor; a number becomes a plain Python scalar; a numpy array becomes a cpu
    tensor sharing its memory (PyTorch converts it as ``as_tensor``: its dtype takes part in the
    promotion, ``t + np.ones(3)`` is float64); TypeError for anything else."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        return as_tensor(x)
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, numbers.Integral):
        v = int(x)
        if not _INT64_MIN <= v <= _UINT64_MAX:
            check_int_converts(op, name, v)
        return v
    if isinstance(x, numbers.Real):
        return float(x)
    raise TypeError(f"{op}(): argument '{name}' must be Tensor or Number, not {type(x).__name__}")


def fit_clamp_bounds(dtype: D.dtype, lo, hi) -> tuple:
    """Integer number bounds of a clamp whose result is the integer ``dtype``, as PyTorch 2.15 takes
    them: a bound beyond the dtype's range on its own side clamps nothing and is saturated to the
    range (``clamp(uint8, min=-1)``, ``clamp(int8, max=128)``); a min above the range or a max below
    it is an error. Tensors, None, bools and floats pass unchanged (a float bound makes the result
    floating; a bool fits every dtype)."""
    if dtype.is_floating_point or dtype is D.bool:
        return lo, hi
    info = np.iinfo(dtype.np)
    lo_int = lo.__class__ is int
    hi_int = hi.__class__ is int
    if lo_int and hi_int and (lo > _INT64_MAX) != (hi > _INT64_MAX):
        # PyTorch promotes two number bounds with each other first, and a number past int64 is a
        # uint64 to it, which promotes with no signed type (one bound alone only saturates)
        raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote Long "
                           "and UInt64")
    if lo_int and lo > info.max:
        raise RuntimeError(f"Clamp min value {lo} is outside the representable range of {D.torch_name(dtype)}")
    if hi_int and hi < info.min:
        raise RuntimeError(f"Clamp max value {hi} is outside the representable range of {D.torch_name(dtype)}")
    return (int(info.min) if lo_int and lo < info.min else lo), (int(info.max) if hi_int and hi > info.max else hi)


def check_scalars_fit(op: str, dtype: D.dtype, *operands) -> None:
    """The number operands of an op that converts them to its result ``dtype`` (clamp's bounds,
    where's values) must fit it: PyTorch's overflow check (``clamp(uint8, max=300)`` raises)."""
    for x in operands:
        if x is not None and not isinstance(x, Tensor):
            check_scalar_fits(op, x, dtype)


def round_scalar_to(x, dtype: D.dtype):
    """A Python number operand of a float16/bfloat16 op, rounded to that dtype: PyTorch converts a
    number to the op's common dtype before computing in float32 (``half == 0.1`` is True). Through
    float32, as c10::Half/BFloat16 are built from a float: 1.00048828225 is 1.0 in half (float32
    rounds it to the midpoint, which ties to even), not the nearest half 1.0009765625."""
    if (dtype is not D.float16 and dtype is not D.bfloat16) or (x.__class__ is not float and x.__class__ is not int):
        return x
    with np.errstate(over="ignore"):
        return float(np.float32(x).astype(dtype.np))


def round_0d_to(t: Tensor, dtype: D.dtype) -> Tensor:
    """A 0-d tensor operand of a float16/bfloat16 op whose dtype it does not decide (PyTorch's
    promotion treats it like a number: ``half_t + tensor(0.1)`` is float16): converted to ``dtype``
    before computing, as PyTorch converts every operand to the common dtype, through float32 as c10
    converts (``half_t == tensor(0.1)`` is True where ``half_t`` holds 0.1). Not recorded by
    autograd: the op records its own inputs."""
    from ..autograd.grad_mode import no_grad

    with no_grad():
        return (t if t.dtype is D.float32 else t.to(D.float32)).to(dtype)


def is_scalar(x) -> bool:
    return not isinstance(x, Tensor)


def scalar_dtype(x) -> D.dtype:
    """The dtype category a Python scalar stands for (bool, int64 or the default float)."""
    return x.dtype if isinstance(x, Tensor) else D._scalar_dtype(x)


def broadcast_shape(op: str, *operands) -> tuple:
    """The broadcast shape of the tensor operands (scalars have none); RuntimeError naming the op and sizes."""
    shapes = [x._shape for x in operands if isinstance(x, Tensor)]
    first = shapes[0]
    if len(shapes) == 1 or (len(shapes) == 2 and shapes[1] == first) or all(s == first for s in shapes):
        return first
    try:
        return broadcast_shapes(*shapes)
    except RuntimeError as exc:
        raise RuntimeError(f"{op}(): {exc}") from None


def output_spec(shape: tuple, dtype: D.dtype, operands) -> tuple:
    """The output spec ``(shape, dtype)`` of an elementwise op, with the strides PyTorch gives the
    output, ``(shape, dtype, strides)``, when an operand is not contiguous (``_layout``: a
    transposed operand's result is transposed). ``operands``: the op's operands in its order."""
    for x in operands:
        if x.__class__ is Tensor and x._stride != contiguous_strides(x._shape):
            strides = elementwise_strides(shape, operands)
            return (shape, dtype) if strides is None else (shape, dtype, strides)
    return (shape, dtype)


def impl_args(op: str, shape: tuple, operands) -> list:
    """Plan arguments: tensors of the output's shape as they are, others read broadcast (stride 0),
    scalars as Python values."""
    return [broadcast_geometry(x, shape, op) if isinstance(x, Tensor) and x._shape != shape else x for x in operands]


def reduce_grad(g, meta):
    """``g`` summed to the input's shape (undoing broadcasting) and cast to its dtype."""
    if g is None:
        return None
    if g._shape != tuple(meta.shape):
        g = g.sum_to_size(meta.shape)
    if g.dtype is not meta.dtype:
        g = g.to(meta.dtype)
    return g


def save_inputs(ctx, inputs, outputs, params):
    ctx.save_for_backward(*[x if isinstance(x, Tensor) else None for x in inputs])


def save_for(needed_by: dict):
    """A save policy keeping input i only if a gradient that needs it is wanted.

    ``needed_by[i]`` lists the inputs whose gradient formula reads input i (mul: {0: [1], 1: [0]}),
    in the math order of a binary op (positions swap for reflected calls).
    Saving less than everything is what lets ``h.mul_(3)`` be followed by more in-place ops on h:
    the gradient w.r.t. h needs only the 3, so h's overwritten old value is never asked for
    (as in PyTorch).
    """

    swapped = {1 - i: [1 - j for j in js] for i, js in needed_by.items()}  # reflected ops: 2 / t

    masks: dict = {}  # (reflected?, needs_input_grad, number of inputs) -> which inputs to keep

    def save(ctx, inputs, outputs, params):
        needs = ctx.needs_input_grad
        reverse = bool(params.get("reverse"))
        mask = masks.get((reverse, needs, len(inputs)))
        if mask is None:
            table = swapped if reverse else needed_by
            mask = masks[reverse, needs, len(inputs)] = tuple(
                any(j < len(needs) and needs[j] for j in table.get(i, ())) for i in range(len(inputs)))
        ctx.save_for_backward(*[x if wanted and isinstance(x, Tensor) else None for x, wanted in zip(inputs, mask)])

    return save


def save_output(ctx, inputs, outputs, params):
    ctx.save_for_backward(outputs[0])


def save_inputs_and_output(ctx, inputs, outputs, params):
    ctx.save_for_backward(*[x if isinstance(x, Tensor) else None for x in inputs], outputs[0])


def save_nothing(ctx, inputs, outputs, params):
    return None


def check_out(op: str, out) -> None:
    if out is not None:
        if not isinstance(out, Tensor):
            raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")


def check_outs(op: str, out, dtypes: tuple, device, *inputs) -> tuple:
    """``out=`` of an op that writes it itself (a composite, or a check before dispatch), before
    anything is computed or written: a Tensor (one output) or a tuple of ``len(dtypes)`` Tensors,
    each of exactly its dtype (None: any) and on ``device``, and no autograd (PyTorch's rules and
    errors). Returns the outputs as a tuple."""
    if len(dtypes) == 1:
        if not isinstance(out, Tensor):
            raise TypeError(f"{op}(): argument 'out' must be a Tensor, not {type(out).__name__}")
        outs = (out,)
    else:
        if not isinstance(out, tuple | list) or len(out) != len(dtypes):
            raise TypeError(f"{op}(): argument 'out' must be a tuple of {len(dtypes)} Tensors, not "
                            f"{type(out).__name__}")
        outs = tuple(out)
    for o, dtype in zip(outs, dtypes):
        if not isinstance(o, Tensor):
            raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(o).__name__}")
        if dtype is not None and o.dtype is not dtype:
            raise RuntimeError(f"{op}(): Expected out tensor to have dtype {dtype.name}, but got {o.dtype.name} "
                               "instead")
        if o.device != device:
            raise RuntimeError(f"{op}(): out= is on {o.device}, but the inputs are on {device}")
    if len(outs) > 1:
        check_outs_apart(op, outs)
    from ..autograd.grad_mode import is_grad_enabled

    if is_grad_enabled() and any(isinstance(t, Tensor) and t.requires_grad for t in (*inputs, *outs)):
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic differentiation, but "
                           "one of the arguments requires grad.")
    return outs


def exact_out(op: str, out, like, *inputs, dtype=None):
    """``out=`` of an op whose ``out`` must have exactly ``dtype`` (default: ``like``'s; PyTorch's
    rule for most non-elementwise ops: ``scatter``, ``take``, ``cross``, ...) and be on ``like``'s
    device, checked with :func:`check_outs` before anything is computed; None when ``out`` is
    None. ``inputs``: the tensors whose requiring grad refuses ``out=`` (left out for a
    non-differentiable op, as ``histc``)."""
    if out is None:
        return None
    if not isinstance(like, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not {type(like).__name__}")
    return check_outs(op, out, (like.dtype if dtype is None else dtype,), like.device, *inputs)[0]


def exact_pair_out(op: str, out, input: Tensor):
    """A (values, indices) ``out=`` of exactly ``input``'s dtype and int64 (PyTorch's rule for
    max/min with a dim, cummax/cummin, sort, topk, kthvalue, median, mode), checked with
    :func:`check_outs` before anything is computed; None when ``out`` is None."""
    return None if out is None else check_outs(op, out, (input.dtype, D.int64), input.device, input)


def write_out(result: Tensor, out: Tensor) -> Tensor:
    """A composite op's result written into its ``out=`` (resized as PyTorch does, with its warning
    when ``out`` had elements)."""
    from .._dispatch import dispatch
    from .._registry import get_op
    from ..autograd.grad_mode import no_grad

    with no_grad():
        return dispatch(get_op("clone"), result, out=out)


def composite_out(op: str, result: Tensor, out) -> Tensor:
    """``out=`` of an elementwise-like op computed out of place (a composite): ``result`` when
    ``out`` is None, else written into ``out`` with PyTorch's rules for such an op's ``out=``: a
    Tensor on the result's device, no autograd (``result`` requires grad exactly when an input
    does, grad mode on), the result dtype castable to ``out``'s (then converted, as PyTorch
    computes in the result dtype and casts), resized with PyTorch's warning. Checked before
    ``out`` is written."""
    if out is None:
        return result
    (o,) = check_outs(op, out, (None,), result.device, result)
    if not D.can_cast(result.dtype, o.dtype):
        raise RuntimeError(f"{op}: result type {result.dtype.name} can't be cast to the desired output type "
                           f"{o.dtype.name}")
    return write_out(result, o)


def check_inplace_result(op: str, self: Tensor, result: Tensor) -> None:
    """PyTorch's checks of an in-place op ``op_`` computed out of place, before ``self`` is
    written: the result has ``self``'s shape (``self`` is not broadcast up) and its dtype casts to
    ``self``'s (``int_t.exp_()`` raises)."""
    if result._shape != self._shape:
        raise RuntimeError(f"{op}_: output with shape {list(self._shape)} doesn't match the broadcast shape "
                           f"{list(result._shape)}")
    if not D.can_cast(result.dtype, self.dtype):
        raise RuntimeError(f"{op}_: result type {result.dtype.name} can't be cast to the desired output type "
                           f"{self.dtype.name}")


def inplace_composite(op: str, compute, self: Tensor, *args, **kwargs) -> Tensor:
    """``self.op_(*args, **kwargs)`` for an op without an in-place kernel (a composite):
    ``compute(self, *args, **kwargs)`` out of place, checked (:func:`check_inplace_result`) and
    copied into ``self`` (which bumps its version; autograd records the copy). A leaf that
    requires grad is refused first, under ``op_``'s name. When autograd records, ``compute``
    reads a clone of ``self``: the graph may save it, and the copy then overwrites ``self`` (as
    PyTorch saves a clone of ``self`` for such ops)."""
    from .._dispatch import check_inplace_autograd
    from ..autograd.grad_mode import is_grad_enabled

    if not isinstance(self, Tensor):
        raise TypeError(f"{op}_(): argument 'input' (position 1) must be Tensor, not {type(self).__name__}")
    src = self
    if is_grad_enabled():
        check_inplace_autograd(f"{op}_", self)
        if self._requires_grad or any(isinstance(a, Tensor) and a._requires_grad for a in (*args, *kwargs.values())):
            src = self.clone()
    result = compute(src, *args, **kwargs)
    check_inplace_result(op, self, result)
    return self.copy_(result)
