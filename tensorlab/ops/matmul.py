"""The matmul op family (issue 3): declarations, public functions and Tensor methods.

Every product here runs on one kernel, ``tensorlab_kernels.matmul.gemm.matmul`` (cuda) and its
numpy twin (cpu): ``out = alpha * (a @ b) + beta * bias`` with numpy's matmul shape rules (1-D
operands, broadcast batch dims). The ops differ in what they accept and how they fail:

``mm``, ``bmm``, ``mv``, ``dot``/``vdot``   strict shapes, as in PyTorch
``matmul`` (``@``)                          1-D/2-D/N-D rules with batch broadcasting
``addmm``, ``addmv``, ``baddbmm``           ``beta * input + alpha * (product)``, fused epilogue
``linear``                                  ``input @ weight.T + bias``, bias fused in the epilogue

Composites (made of registered ops, so autograd needs no rule of its own): ``addbmm``,
``outer``/``ger``, ``tensordot``, ``einsum``.

Operands reach the kernel through their strides: a transposed weight, a sliced activation or a
broadcast batch operand is never copied (``linear`` passes ``weight`` transposed as a geometry).

fp32 products follow :func:`set_float32_matmul_precision` ("highest": IEEE fp32, PyTorch's
default; "high"/"medium": TF32 tensor cores on the GPU). Integer products run on cpu only, as in
PyTorch; cuda raises ``"addmm_cuda" not implemented for 'Long'``.
"""

from __future__ import annotations

import math
import operator
import warnings

from tensorlab_kernels.matmul import gemm as kgemm

from .. import _dtype as D
from .._broadcast import broadcast_geometry
from .._dispatch import dispatch
from .._registry import Geometry, Plan, defop
from .._tensor import Tensor, tensor_method
from ..amp.autocast_mode import autocast_op, autocast_policy
from . import elementwise_common as E
from .deprecated_overloads import scalars_first

__all__ = [
    "addbmm", "addmm", "addmv", "addmv_", "baddbmm", "bmm", "dot", "einsum", "ger", "get_float32_matmul_precision",
    "linear", "matmul", "mm", "mv", "outer", "set_float32_matmul_precision", "tensordot", "vdot",
]

# ----------------------------------------------------------------------------------------------
# fp32 precision (PyTorch's torch.set_float32_matmul_precision)
# ----------------------------------------------------------------------------------------------

_PRECISIONS = ("highest", "high", "medium")
_precision = "highest"


def set_float32_matmul_precision(precision: str) -> None:
    """How fp32 matmuls may compute on the GPU: ``"highest"`` (IEEE fp32, the default), ``"high"``
    or ``"medium"`` (TF32 tensor cores: 10-bit mantissa products, fp32 accumulation).

    As in PyTorch, an unknown value warns and changes nothing. fp16/bf16/fp64 and the cpu are
    not affected. A value that is not a str raises RuntimeError, as in PyTorch (which also takes
    bytes, as its binding does).
    """
    global _precision
    if isinstance(precision, bytes):
        precision = precision.decode("utf-8", "replace")
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in _PRECISIONS:
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
                      "set_float32_matmul_precision call has no effect.", stacklevel=2)
        return
    _precision = precision


def get_float32_matmul_precision() -> str:
    return _precision


# ----------------------------------------------------------------------------------------------
# checks shared by the declarations
# ----------------------------------------------------------------------------------------------



def _dims(shape) -> str:
    return "x".join(str(s) for s in shape)


def _require_tensor(op: str, x, name: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}(): argument '{name}' must be Tensor, not {type(x).__name__}")


def _check_same_dtype(op: str, *tensors) -> None:
    dts = [t.dtype for t in tensors if t is not None]
    if any(d is not dts[0] for d in dts):
        names = " != ".join(d.name for d in dts)
        raise RuntimeError(f"{op}: expected m1 and m2 to have the same dtype, but got: {names}")


def _check_supported(op: str, kernel_name: str, t: Tensor) -> None:
    """Integer products exist on cpu only (as in PyTorch); bool products nowhere."""
    dt = t.dtype
    if t.is_cuda and not dt.is_floating_point:
        raise NotImplementedError(f"{op}: \"{kernel_name}_cuda\" not implemented for '{D.torch_name(dt)}'")
    if dt is D.bool:
        raise NotImplementedError(f"{op}: \"{kernel_name}_impl_cpu_\" not implemented for 'Bool'")


def _matmul_shape(op: str, a_shape: tuple, b_shape: tuple) -> tuple:
    """numpy/PyTorch matmul result shape, with PyTorch's errors."""
    na, nb = len(a_shape), len(b_shape)
    if na == 0 or nb == 0:
        raise RuntimeError(f"both arguments to {op} need to be at least 1D, but they are {na}D and {nb}D")
    k_a = a_shape[-1]
    k_b = b_shape[0] if nb == 1 else b_shape[-2]
    if k_a != k_b:
        if na == 1 and nb == 1:
            raise RuntimeError(
                f"{op}: inconsistent tensor size, expected tensor [{k_a}] and src [{k_b}] to have the same number of "
                f"elements, but got {k_a} and {k_b} elements respectively")
        if na <= 2 and nb == 1:
            raise RuntimeError(f"{op}: size mismatch, got input ({a_shape[0]}), mat ({_dims(a_shape)}), vec ({k_b})")
        sa = (1,) + tuple(a_shape) if na == 1 else a_shape
        raise RuntimeError(f"{op}: mat1 and mat2 shapes cannot be multiplied ({_dims(sa)} and {_dims(b_shape)})")
    ba, bb = tuple(a_shape[:-2]), tuple(b_shape[:-2])
    nd = max(len(ba), len(bb))
    pa, pb = (1,) * (nd - len(ba)) + ba, (1,) * (nd - len(bb)) + bb
    batch = []
    for x, y in zip(pa, pb):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"{op}: the batch dimensions of {list(a_shape)} and {list(b_shape)} are not "
                               f"broadcastable ({list(ba)} vs {list(bb)})")
        batch.append(y if x == 1 else x)
    return tuple(batch) + ((a_shape[-2],) if na >= 2 else ()) + ((b_shape[-1],) if nb >= 2 else ())


# ----------------------------------------------------------------------------------------------
# backward helpers (registered ops only, so they run on the kernels and are differentiable)
# ----------------------------------------------------------------------------------------------


def _shaped(t: Tensor, shape: tuple) -> Tensor:
    """``t.reshape(shape)``, or ``t`` itself when it has that shape already (the usual 2-D case of a
    backward: no view to make and record)."""
    return t if t._shape == shape else t.reshape(shape)


def _reduce_to(g: Tensor, shape) -> Tensor:
    """Sum a broadcast gradient back to ``shape``."""
    shape = tuple(shape)
    return g if tuple(g.shape) == shape else g.sum_to_size(shape)


def _scaled(g: Tensor, s) -> Tensor:
    """``s * g``; a product even for ``s == 0``, so NaN and inf in ``g`` give NaN, as PyTorch's
    gradients do."""
    return g if s == 1 else g * s


def _product_grads(a, b, g: Tensor, a_shape: tuple, b_shape: tuple, need_a: bool, need_b: bool, alpha=1):
    """Gradients of ``alpha * (a @ b)`` (numpy matmul rules) for the incoming gradient ``g``; ``a``
    is read only for b's gradient and ``b`` only for a's (the other may be None: not saved).

    1-D operands get their size-1 dim back (and ``g`` the dims they removed), then
    grad_a = alpha * g @ b^T and grad_b = alpha * a^T @ g (alpha applied in the GEMM epilogue),
    summed over broadcast batch dims. When b is a matrix and a is batched (an activation times a
    weight), grad_b is one tall GEMM over the folded batch instead of a batched product and a sum.
    """
    a_vector, b_vector = len(a_shape) == 1, len(b_shape) == 1
    g2 = g
    if b_vector:
        g2 = g2.unsqueeze(-1)
    if a_vector:
        g2 = g2.unsqueeze(-2)
    ga = gb = None
    if need_a:
        b2 = b.unsqueeze(-1) if b_vector else b
        ga = _reduce_to(_scaled_matmul(g2, b2.mT, alpha), (1, *a_shape) if a_vector else a_shape).reshape(a_shape)
    if need_b:
        a2 = a.unsqueeze(0) if a_vector else a
        if len(b_shape) == 2 and a2.ndim > 2:
            rows = math.prod(a2.shape[:-1])  # explicit: a -1 would be ambiguous for empty tensors
            gb = _scaled_matmul(a2.reshape(rows, a2.shape[-1]).mT, g2.reshape(rows, g2.shape[-1]), alpha)
        else:
            gb = _reduce_to(_scaled_matmul(a2.mT, g2, alpha), (*b_shape, 1) if b_vector else b_shape)
        gb = gb.reshape(b_shape)
    return ga, gb


def _scaled_matmul(a: Tensor, b: Tensor, alpha=1) -> Tensor:
    """``alpha * (a @ b)`` in one launch (alpha in the epilogue); a registered, differentiable op."""
    if alpha == 1:
        return matmul(a, b)
    return dispatch(MATMUL, a, b, precision=_precision, alpha=alpha)


def _product_backward(ctx, g):
    a, b = ctx.saved_tensors
    return _product_grads(a, b, g, ctx.inputs[0].shape, ctx.inputs[1].shape, ctx.needs_input_grad[0],
                          ctx.needs_input_grad[1], ctx.params.get("alpha", 1))


def _operand_saver(first: int):
    """The save rule of a product of ``inputs[first]`` and ``inputs[first + 1]``: each operand is
    saved only if the other's gradient is wanted (it is read for nothing else), as PyTorch; then
    ``h @ w`` with a frozen ``w`` lets ``h`` be modified in place before backward."""
    second = first + 1

    def save(ctx, inputs, outputs, params):
        needs = ctx.needs_input_grad
        ctx.save_for_backward(inputs[first] if needs[second] else None, inputs[second] if needs[first] else None)

    return save


_save_product = _operand_saver(0)  # (a, b): matmul, mm, bmm, mv, dot, linear
_save_add_product = _operand_saver(1)  # (input, mat1, mat2): addmm's family


def _addmm_family_backward(ctx, g):
    """``beta * input + alpha * (m1 @ m2)``: input gets beta * g summed to its shape, m1 and m2
    alpha times the product's gradients; with ``alpha == 0`` (``beta == 0``) too, as PyTorch: an
    inf or NaN in the other operand (in ``g``) makes NaN there, not 0."""
    m1, m2 = ctx.saved_tensors
    beta, alpha = ctx.params["beta"], ctx.params["alpha"]
    gi = None
    if ctx.needs_input_grad[0]:
        gi = _reduce_to(_scaled(g, beta), ctx.inputs[0].shape)  # scaled, then summed: PyTorch's order
    g1, g2 = _product_grads(m1, m2, g, ctx.inputs[1].shape, ctx.inputs[2].shape, ctx.needs_input_grad[1],
                            ctx.needs_input_grad[2], alpha)
    return gi, g1, g2


# ----------------------------------------------------------------------------------------------
# declarations: products
# ----------------------------------------------------------------------------------------------


def _plan(a: Tensor, b: Tensor, shape: tuple, precision: str, **params) -> Plan:
    return Plan(args=[a, b], outputs=[(shape, a.dtype)], params={"precision": precision, **params})


def _matmul_meta(a, b, precision="highest", alpha=1):
    """``alpha`` (internal, default 1): the product scaled in the epilogue, for backward rules."""
    _require_tensor("matmul", a, "input")
    _require_tensor("matmul", b, "other")
    shape = _matmul_shape("matmul", a._shape, b._shape)
    _check_same_dtype("matmul", a, b)
    _check_supported("matmul", "addmm", a)
    return _plan(a, b, shape, precision, **({"alpha": alpha} if alpha != 1 else {}))


def _mm_meta(a, b, precision="highest"):
    _require_tensor("mm", b, "mat2")
    if a.ndim != 2:
        raise RuntimeError(f"mm: self must be a matrix, got a {a.ndim}-D tensor")
    if b.ndim != 2:
        raise RuntimeError(f"mm: mat2 must be a matrix, got a {b.ndim}-D tensor")
    shape = _matmul_shape("mm", a._shape, b._shape)
    _check_same_dtype("mm", a, b)
    _check_supported("mm", "addmm", a)
    return _plan(a, b, shape, precision)


def _check_bmm_shapes(op: str, a: Tensor, b: Tensor) -> tuple:
    if a.ndim != 3:
        raise RuntimeError(f"{op}: batch1 must be a 3D tensor, got {a.ndim}-D")
    if b.ndim != 3:
        raise RuntimeError(f"{op}: batch2 must be a 3D tensor, got {b.ndim}-D")
    B, M, K = a._shape
    if b._shape[0] != B or b._shape[1] != K:
        raise RuntimeError(f"{op}: Expected size for first two dimensions of batch2 tensor to be: [{B}, {K}] but got: "
                           f"[{b._shape[0]}, {b._shape[1]}].")
    return (B, M, b._shape[2])


def _bmm_meta(a, b, precision="highest"):
    _require_tensor("bmm", b, "mat2")
    shape = _check_bmm_shapes("bmm", a, b)
    _check_same_dtype("bmm", a, b)
    _check_supported("bmm", "bmm", a)
    return _plan(a, b, shape, precision)


def _mv_meta(a, b, precision="highest"):
    _require_tensor("mv", b, "vec")
    if a.ndim != 2 or b.ndim != 1:
        raise RuntimeError(f"mv: vector + matrix @ vector expected, got {a.ndim}-D matrix and {b.ndim}-D vector")
    shape = _matmul_shape("mv", a._shape, b._shape)
    _check_same_dtype("mv", a, b)
    _check_supported("mv", "addmv", a)
    return _plan(a, b, shape, precision)


def _dot_meta_for(op: str):
    def meta(a, b, precision="highest"):
        _require_tensor(op, b, "tensor")
        if a.ndim != 1 or b.ndim != 1:
            raise RuntimeError(f"{op}: 1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
        if a.dtype is not b.dtype:
            raise RuntimeError(f"{op}: expected both vectors to have same dtype, but found "
                               f"{D.torch_name(a.dtype)} and {D.torch_name(b.dtype)}")
        shape = _matmul_shape(op, a._shape, b._shape)
        _check_supported(op, "dot", a)
        return _plan(a, b, shape, precision)

    return meta


# (replayable: a launch follows from the operands' geometry and the parameters, _replay)
_PRODUCT = dict(twin=kgemm.matmul_twin, kernel=kgemm.matmul, backward=_product_backward, save=_save_product,
                tags=["replayable"])

MATMUL = defop("matmul", meta=_matmul_meta, **_PRODUCT,
               doc="Matrix product with numpy/PyTorch rules: 1-D operands, broadcast batch dims.")
MM = defop("mm", meta=_mm_meta, **_PRODUCT, doc="(M x K) @ (K x N).")
BMM = defop("bmm", meta=_bmm_meta, **_PRODUCT, doc="(B x M x K) @ (B x K x N), no broadcasting.")
MV = defop("mv", meta=_mv_meta, **_PRODUCT, doc="(M x K) @ (K,).")
DOT = defop("dot", meta=_dot_meta_for("dot"), **_PRODUCT, doc="(K,) . (K,) -> 0-d.")
VDOT = defop("vdot", meta=_dot_meta_for("vdot"), **_PRODUCT, doc="dot for real dtypes (no conjugation).")


# ----------------------------------------------------------------------------------------------
# declarations: beta * input + alpha * product (the input read in the kernel's epilogue)
# ----------------------------------------------------------------------------------------------


def _addmm_family_meta(op: str, kernel_name: str, check_shapes):
    def meta(inp, m1, m2, beta=1, alpha=1, precision="highest"):
        _require_tensor(op, inp, "input")
        _require_tensor(op, m1, "mat1")
        _require_tensor(op, m2, "mat2")
        shape = check_shapes(m1, m2)
        _check_same_dtype(op, inp, m1, m2)
        _check_supported(op, kernel_name, m1)
        # alpha and beta as the kernel takes them; for an integral dtype a float is truncated, as PyTorch
        # 2.15's addmm/addmv/baddbmm (beta=0.5 is 0, so the input is not read)
        scalars = E.fit_scalars(op, m1.dtype, op != "addmv", beta=beta, alpha=alpha)
        beta, alpha = scalars["beta"], scalars["alpha"]
        geom = broadcast_geometry(inp, shape, op)  # checked even when beta == 0
        bias = geom if beta != 0 else None  # beta == 0: input is never read (NaN there is ignored)
        params = {"alpha": alpha, "beta": beta, "precision": precision}
        if alpha == 0 and op != "baddbmm":
            # addmm/addmv (so addbmm) with alpha == 0 never read the matrices, as BLAS and PyTorch:
            # NaN there is ignored (PyTorch's cpu baddbmm computes 0 * product: NaN stays)
            params["product"] = False
        return Plan(args=[m1, m2, bias], outputs=[(shape, m1.dtype)], params=params)

    return meta


def _addmm_shapes(m1, m2):
    if m1.ndim != 2:
        raise RuntimeError(f"addmm: mat1 must be a matrix, got {m1.ndim}-D tensor")
    if m2.ndim != 2:
        raise RuntimeError(f"addmm: mat2 must be a matrix, got {m2.ndim}-D tensor")
    return _matmul_shape("addmm", m1._shape, m2._shape)


def _addmv_shapes(m, v):
    if m.ndim != 2 or v.ndim != 1:
        raise RuntimeError(f"addmv: vector + matrix @ vector expected, got {m.ndim}-D matrix and {v.ndim}-D vector")
    return _matmul_shape("addmv", m._shape, v._shape)


def _baddbmm_shapes(b1, b2):
    return _check_bmm_shapes("baddbmm", b1, b2)


_ADD_FAMILY = dict(twin=kgemm.matmul_twin, kernel=kgemm.matmul, backward=_addmm_family_backward,
                   save=_save_add_product, tags=["replayable"])

ADDMM = defop("addmm", meta=_addmm_family_meta("addmm", "addmm", _addmm_shapes), **_ADD_FAMILY,
              doc="beta * input + alpha * (mat1 @ mat2); input broadcast to (M, N).")
ADDMV = defop("addmv", meta=_addmm_family_meta("addmv", "addmv", _addmv_shapes), **_ADD_FAMILY,
              doc="beta * input + alpha * (mat @ vec).")
BADDBMM = defop("baddbmm", meta=_addmm_family_meta("baddbmm", "baddbmm", _baddbmm_shapes), **_ADD_FAMILY,
                doc="beta * input + alpha * bmm(batch1, batch2).")


# ----------------------------------------------------------------------------------------------
# declaration: linear (the bias fused into the kernel's epilogue)
# ----------------------------------------------------------------------------------------------


def _weight_t(weight: Tensor):
    """``weight.T`` as the kernel's ``b`` operand: a geometry over the same memory, no copy."""
    if weight.ndim == 1:
        return weight
    (n, k), (sn, sk) = weight._shape, weight._stride
    return Geometry(weight, (k, n), (sk, sn))


def _fusable_bias(bias: Tensor) -> bool:
    """torch 2.13's linear adds such a bias inside addmm (a contiguous input flattened to 2-D): a
    contiguous bias that is 1-D, or that squeezes to 1-D ((1, N), (N, 1), ...)."""
    return bias.is_contiguous() and (bias.ndim == 1 or sum(n != 1 for n in bias._shape) == 1)


def _linear_meta(inp, weight, bias=None, precision="highest"):
    _require_tensor("linear", inp, "input")
    _require_tensor("linear", weight, "weight")
    if bias is not None:
        _require_tensor("linear", bias, "bias")
    if weight.ndim > 2:
        raise RuntimeError(f"linear: weight must be 1-D or 2-D, got a {weight.ndim}-D tensor")
    if inp.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {inp.ndim}D and "
                           f"{weight.ndim}D")
    if weight.ndim == 1 and bias is not None and (inp.ndim == 2 or (inp.is_contiguous() and _fusable_bias(bias))):
        # PyTorch adds the bias inside addmm for a 2-D input, and for a contiguous input with a
        # contiguous bias of one dim other than 1 (flattened to 2-D); addmm wants a 2-D weight.
        # Other inputs go through matmul + add and work.
        raise RuntimeError(f"linear(): mat2 must be a matrix, got 1-D tensor (a 1-D weight with a bias and a "
                           f"{inp.ndim}-D input)")
    wt_shape = tuple(reversed(weight._shape))
    if inp._shape[-1] != wt_shape[0]:
        rows = math.prod(inp._shape[:-1])
        raise RuntimeError(f"linear: mat1 and mat2 shapes cannot be multiplied ({rows}x{inp._shape[-1]} and "
                           f"{_dims(wt_shape)})")
    shape = _matmul_shape("linear", inp._shape, wt_shape)
    dts = [inp.dtype, weight.dtype] + ([bias.dtype] if bias is not None else [])
    if any(d is not dts[0] for d in dts):
        raise RuntimeError("linear: expected input, weight and bias to have the same dtype, but got "
                           + ", ".join(d.name for d in dts))
    _check_supported("linear", "addmm", inp)
    geom = broadcast_geometry(bias, shape, "linear") if bias is not None else None
    return Plan(args=[inp, _weight_t(weight), geom], outputs=[(shape, inp.dtype)], params={"precision": precision})


def _linear_backward(ctx, g):
    x, w = ctx.saved_tensors  # (each saved only if the other's gradient is wanted)
    x_shape, w_shape = ctx.inputs[0].shape, ctx.inputs[1].shape
    gx = gw = gb = None
    if ctx.needs_input_grad[0]:
        # g (*, N) @ W (N, K); a 1-D weight: g (*) times w (K) as an outer product
        gx = matmul(g, w) if len(w_shape) == 2 else matmul(g.unsqueeze(-1), w.unsqueeze(0))
        gx = _shaped(gx, x_shape)
    if ctx.needs_input_grad[1]:
        k, rows = x_shape[-1], math.prod(x_shape[:-1])  # explicit sizes: -1 is ambiguous for empty tensors
        if len(w_shape) == 2:
            gw = mm(_shaped(g, (rows, w_shape[0])).mT, _shaped(x, (rows, k)))
        else:
            gw = matmul(_shaped(g, (rows,)), _shaped(x, (rows, k)))
    if len(ctx.needs_input_grad) > 2 and ctx.needs_input_grad[2]:
        gb = _reduce_to(g, ctx.inputs[2].shape)
    return gx, gw, gb


LINEAR = defop("linear", meta=_linear_meta, twin=kgemm.matmul_twin, kernel=kgemm.matmul, backward=_linear_backward,
               save=_save_product,
               tags=["replayable"], doc="input @ weight.T + bias (bias added in the GEMM epilogue).")


# ----------------------------------------------------------------------------------------------
# public functions and Tensor methods
# ----------------------------------------------------------------------------------------------


def _product(op, name: str, a, b, out):
    _require_tensor(name, a, "input")
    _require_tensor(name, b, "other")
    if out is not None:
        _check_same_dtype(name, a, b)
        E.check_outs(name, out, (a.dtype,), a.device, a, b)
    return dispatch(op, a, b, out=out, precision=_precision)


@tensor_method
def matmul(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Matrix product with PyTorch's rules: 1-D x 1-D is a dot product, a 1-D operand gets a
    size-1 dim (prepended for the first, appended for the second) that the result drops, and
    batch dims broadcast."""
    return _product(MATMUL, "matmul", input, other, out)


@tensor_method
def mm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    return _product(MM, "mm", input, mat2, out)


@tensor_method
def bmm(input: Tensor, mat2: Tensor, *, out=None) -> Tensor:
    return _product(BMM, "bmm", input, mat2, out)


@tensor_method
def mv(input: Tensor, vec: Tensor, *, out=None) -> Tensor:
    return _product(MV, "mv", input, vec, out)


@tensor_method
def dot(input: Tensor, tensor: Tensor, *, out=None) -> Tensor:
    return _product(DOT, "dot", input, tensor, out)


@tensor_method
def vdot(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """``dot`` (real dtypes: nothing to conjugate)."""
    return _product(VDOT, "vdot", input, other, out)


def _matmul_operator(self: Tensor, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(self, other)


def _rmatmul_operator(self: Tensor, other):
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(other, self)


# As in PyTorch there is no in-place ``@=``: ``a @= b`` rebinds ``a`` to a new tensor.
Tensor.__matmul__ = _matmul_operator
Tensor.__rmatmul__ = _rmatmul_operator


def _add_family(op, name: str, input, m1, m2, beta, alpha, out, inplace=False):
    for x, n in ((input, "input"), (m1, "mat1"), (m2, "mat2")):
        _require_tensor(name, x, n)
    beta, alpha = E.number_param(name, beta, "beta"), E.number_param(name, alpha, "alpha")
    if out is not None:
        _check_same_dtype(name, input, m1, m2)
        E.check_outs(name, out, (m1.dtype,), m1.device, input, m1, m2)
    return dispatch(op, input, m1, m2, out=out, inplace=inplace, beta=beta, alpha=alpha, precision=_precision)


@tensor_method
@scalars_first("beta_alpha")
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``; with ``beta=0`` input is not read (NaN there is ignored)."""
    return _add_family(ADDMM, "addmm", input, mat1, mat2, beta, alpha, out)


@tensor_method
@scalars_first("beta_alpha")
def addmm_(self: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    return _add_family(ADDMM, "addmm", self, mat1, mat2, beta, alpha, None, inplace=True)


@tensor_method
@scalars_first("beta_alpha")
def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    return _add_family(ADDMV, "addmv", input, mat, vec, beta, alpha, out)


@tensor_method
@scalars_first("beta_alpha")
def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    return _add_family(ADDMV, "addmv", input, mat, vec, beta, alpha, None, inplace=True)


@tensor_method
@scalars_first("beta_alpha")
def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    return _add_family(BADDBMM, "baddbmm", input, batch1, batch2, beta, alpha, out)


@tensor_method
@scalars_first("beta_alpha")
def baddbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    return _add_family(BADDBMM, "baddbmm", self, batch1, batch2, beta, alpha, None, inplace=True)


@tensor_method
@scalars_first("beta_alpha")
@autocast_op("addbmm")
def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1, out=None) -> Tensor:
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]``: one addmm over the (B * K) reduction."""
    for x, n in ((input, "input"), (batch1, "batch1"), (batch2, "batch2")):
        _require_tensor("addbmm", x, n)
    B, M, N = _check_bmm_shapes("addbmm", batch1, batch2)
    _check_same_dtype("addbmm", input, batch1, batch2)
    if out is not None:
        E.check_outs("addbmm", out, (batch1.dtype,), batch1.device, input, batch1, batch2)
    K = batch1.shape[2]
    # (B, M, K) -> (M, B*K) and (B, K, N) -> (B*K, N): the sum over b is part of the reduction.
    m1 = batch1.permute(1, 0, 2).reshape(M, B * K)
    m2 = batch2.reshape(B * K, N)
    result = addmm(input, m1, m2, beta=beta, alpha=alpha)
    return result if out is None else E.write_out(result, out)


@tensor_method
@scalars_first("beta_alpha")
def addbmm_(self: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    result = addbmm(self, batch1, batch2, beta=beta, alpha=alpha)
    if tuple(result.shape) != tuple(self.shape):
        raise RuntimeError(f"addbmm_: output with shape {list(self.shape)} doesn't match the broadcast shape "
                           f"{list(result.shape)}")
    return self.copy_(result)


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None, *, out=None) -> Tensor:
    """``input @ weight.T + bias`` (``torch.nn.functional.linear``), the bias added in the GEMM epilogue."""
    if out is not None:  # (off the hot path: the checks mm(out=) makes, then the op writes out)
        _require_tensor("linear", input, "input")
        _require_tensor("linear", weight, "weight")
        E.check_outs("linear", out, (input.dtype,), input.device, input, weight, bias)
        return dispatch(LINEAR, input, weight, bias, out=out, precision=_precision)
    return dispatch(LINEAR, input, weight, bias, precision=_precision)


@tensor_method
def outer(input: Tensor, vec2: Tensor, *, out=None) -> Tensor:
    """Outer product of two vectors: ``input[:, None] * vec2[None, :]`` (as PyTorch: promotes dtypes)."""
    _require_tensor("outer", input, "input")
    _require_tensor("outer", vec2, "vec2")
    if input.ndim != 1 or vec2.ndim != 1:
        which, t = ("self", input) if input.ndim != 1 else ("vec2", vec2)
        raise RuntimeError(f"outer: Expected 1-D argument {which}, but got {t.ndim}-D")
    from .. import mul

    if out is not None:
        return mul(input.unsqueeze(1), vec2, out=out)
    return mul(input.unsqueeze(1), vec2)


ger = tensor_method(outer, name="ger")


# ----------------------------------------------------------------------------------------------
# tensordot
# ----------------------------------------------------------------------------------------------


def _dim_list(x, ndim: int, which: str) -> list:
    kind = type(x).__name__
    if isinstance(x, Tensor):
        x = x.tolist()
    if not isinstance(x, tuple | list):  # (a pair of ints is refused, as PyTorch's: NumPy would take it)
        name, position = ("dims_self", 3) if which == "dims[0]" else ("dims_other", 4)
        raise TypeError(f"tensordot(): argument '{name}' (position {position}) must be tuple of ints, not {kind}")
    out = []
    for d in x:
        d = operator.index(d)
        if not -ndim <= d < max(ndim, 1):
            raise IndexError(f"tensordot: Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                             f"but got {d}) in {which}")
        out.append(d % ndim if ndim else 0)
    return out


@autocast_op("tensordot")
def tensordot(a: Tensor, b: Tensor, dims=2, out=None) -> Tensor:
    """Sum of products over ``dims``: an int (the last ``dims`` of a with the first of b) or a pair
    of dim lists. Computed as permute + reshape + one ``mm``."""
    _require_tensor("tensordot", a, "a")
    _require_tensor("tensordot", b, "b")
    if isinstance(dims, Tensor) and dims.numel() == 1:
        dims = int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.ndim or dims > b.ndim:
            raise RuntimeError(f"tensordot: dims={dims} exceeds the number of dimensions of a ({a.ndim}) or b "
                               f"({b.ndim})")
        da, db = list(range(a.ndim - dims, a.ndim)), list(range(dims))
    elif isinstance(dims, tuple | list | Tensor):
        if len(dims) != 2:  # (PyTorch's unpacking: ValueError)
            raise ValueError(f"tensordot expects dims to be a pair of dim lists, got {len(dims)} of them: {dims!r}")
        xa, xb = dims
        da, db = _dim_list(xa, a.ndim, "dims[0]"), _dim_list(xb, b.ndim, "dims[1]")
    else:
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or list[list[int]] "
                           f"containing two lists, but got dims={dims!r}")
    if len(da) != len(db):
        raise RuntimeError(f"tensordot: both dimension lists should have same length, got {len(da)} and {len(db)}")
    if len(set(da)) != len(da) or len(set(db)) != len(db):
        raise RuntimeError(f"tensordot: repeated dims in {da} or {db}")
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y] and a.shape[x] != 1 and b.shape[y] != 1:
            raise RuntimeError(f"tensordot: contracted dimensions need to match, but first has size {a.shape[x]} in "
                               f"dim {x} and second has size {b.shape[y]} in dim {y}")
    _check_same_dtype("tensordot", a, b)
    if out is not None:
        E.check_outs("tensordot", out, (a.dtype,), a.device, a, b)
    # a contracted dim of size 1 against a longer one broadcasts, as in PyTorch: the other side is
    # summed over it first (sum_i x * y_i = x * sum_i y_i)
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            if b.shape[y] == 1:
                a = a.sum(x, keepdim=True, dtype=a.dtype)
            else:
                b = b.sum(y, keepdim=True, dtype=b.dtype)
    fa = [d for d in range(a.ndim) if d not in da]
    fb = [d for d in range(b.ndim) if d not in db]
    k = math.prod(a.shape[d] for d in da)
    sa = [a.shape[d] for d in fa]
    sb = [b.shape[d] for d in fb]
    ma = a.permute(fa + da).reshape(math.prod(sa), k)
    mb = b.permute(db + fb).reshape(k, math.prod(sb))
    result = mm(ma, mb).reshape(sa + sb)
    return result if out is None else E.write_out(result, out)


# ----------------------------------------------------------------------------------------------
# einsum
# ----------------------------------------------------------------------------------------------


def _sublist_equation(args) -> tuple[str, list]:
    """einsum(op0, sublist0, op1, sublist1, ..., [sublist_out]) -> (equation, operands)."""
    def letters(sub):
        s = ""
        for x in sub:
            if x is Ellipsis:
                s += "..."
            else:
                i = operator.index(x)
                if not 0 <= i < 52:
                    raise ValueError(f"einsum(): subscript in subscript list is not within the valid range [0, 52), "
                                     f"got {i}")
                s += chr(ord("A") + i) if i < 26 else chr(ord("a") + i - 26)
        return s

    ops, subs = list(args[0::2]), list(args[1::2])
    out_sub = None
    if len(ops) > len(subs):  # odd count: the last entry is the output sublist
        out_sub = ops.pop()
    eq = ",".join(letters(s) for s in subs)
    if out_sub is not None:
        eq += "->" + letters(out_sub)
    return eq, ops


def _parse_term(equation: str, start: int, stop: int, what: str):
    """Yields the labels of ``equation[start:stop]``, the subscripts of ``what`` ("operand 0",
    "output"): letters, and ``...`` (Ellipsis) at most once; spaces are skipped. Syntax errors are
    RuntimeErrors with PyTorch's messages, the index counted in the whole equation as PyTorch does.
    A generator, so the caller's checks of each label come in PyTorch's order."""
    ell, i = False, start
    output = what == "output"
    while i < stop:
        c = equation[i]
        if c == " ":
            i += 1
            continue
        if c == ".":
            if ell:
                raise RuntimeError(f"einsum(): found '.' for {what} but an ellipsis (...) was already found" if output
                                   else f"einsum(): found '.' for {what} for which an ellipsis was already found")
            if i + 3 > stop or equation[i:i + 3] != "...":
                raise RuntimeError(f"einsum(): found '.' for {what} that is not part of any ellipsis"
                                   + (" (...)" if output else ""))
            yield ...
            ell = True
            i += 3
            continue
        if not c.isalpha() or not c.isascii():
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, subscripts "
                               f"must be in [a-zA-Z], got {c!r}")
        yield c
        i += 1


_EINSUM_USAGE = ("einsum(): must specify the equation string and at least one operand, or at least one operand and "
                 "its subscripts list")


@autocast_op("einsum")
def einsum(*args) -> Tensor:
    """Einstein summation (``torch.einsum``): ``einsum("ij,jk->ik", a, b)``, implicit output
    (labels seen once, sorted), ``...`` broadcasting, repeated labels in one operand (its
    diagonal), labels summed away. Two operands contract as permute + reshape + one batched
    matmul (a broadcast product when nothing is summed); more operands contract pairwise, left
    to right. Also the sublist form
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    if not args:
        raise ValueError(_EINSUM_USAGE)  # (PyTorch's Python wrapper: ValueError)
    if isinstance(args[0], str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], list | tuple):
            operands = list(operands[0])
    else:
        equation, operands = _sublist_equation(args)
    for i, t in enumerate(operands):
        _require_tensor("einsum", t, f"operands[{i}]")
    if not operands:
        raise ValueError(_EINSUM_USAGE)

    # -- the equation, left to right as PyTorch reads it (so the same error comes first) ----------
    # Spaces are skipped, not removed first: "- >" is no arrow.
    arrow = equation.find("->")
    lhs_end = arrow if arrow >= 0 else len(equation)
    parsed, start = [], 0
    while True:
        comma = equation.find(",", start, lhs_end)
        labels = list(_parse_term(equation, start, lhs_end if comma < 0 else comma, f"operand {len(parsed)}"))
        parsed.append((labels, ... in labels))
        if comma < 0:
            break
        if len(parsed) >= len(operands):
            raise RuntimeError(f"einsum(): fewer operands were provided than specified in the equation "
                               f"({len(operands)} operands in {equation!r})")
        start = comma + 1
    if len(parsed) < len(operands):
        raise RuntimeError(f"einsum(): more operands were provided than specified in the equation "
                           f"({len(operands)} operands, {len(parsed)} subscript groups in {equation!r})")

    # -- labels per operand, the ellipsis expanded into right-aligned labels ("...", k) ----------
    ell_dims = 0
    op_labels = []
    for i, ((labels, ell), t) in enumerate(zip(parsed, operands)):
        named = len(labels) - (1 if ell else 0)
        if ell and named > t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) is more than the number "
                               f"of dimensions ({t.ndim}) for operand {i}")
        if not ell and named != t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) does not match the "
                               f"number of dimensions ({t.ndim}) for operand {i} and no ellipsis was given")
        ell_dims = max(ell_dims, t.ndim - named if ell else 0)
    for (labels, ell), t in zip(parsed, operands):
        n_ell = t.ndim - (len(labels) - (1 if ell else 0))
        full = []
        for lab in labels:
            if lab is ...:
                full.extend(("...", ell_dims - n_ell + k) for k in range(n_ell))
            else:
                full.append(lab)
        op_labels.append(full)
    ell_labels = [("...", k) for k in range(ell_dims)]

    if arrow >= 0:
        out_labels = []
        for lab in _parse_term(equation, arrow + 2, len(equation), "output"):
            if lab is ...:
                out_labels.extend(ell_labels)
            else:
                if lab in out_labels:
                    raise RuntimeError(f"einsum(): output subscript {lab} appears more than once in the output")
                if not any(lab in ls for ls in op_labels):
                    raise RuntimeError(f"einsum(): output subscript {lab} does not appear in the equation for any "
                                       "input operand")
                out_labels.append(lab)
    else:
        counts: dict = {}
        for ls in op_labels:
            for lab in ls:
                if isinstance(lab, str):
                    counts[lab] = counts.get(lab, 0) + 1
        out_labels = ell_labels + sorted(lab for lab, c in counts.items() if c == 1)
    # Operands of different dtypes: PyTorch promotes where its path multiplies (no summed label
    # between them: "i,j->ij", "ij,j->ij") and its bmm refuses a contraction ("ij,jk"): _contract.
    # Unless autocast casts that bmm to one dtype (cpu: einsum is on no list, its bmm is): then it runs lower.
    dtypes = {t.dtype for t in operands}
    mixed = len(dtypes) > 1 and not (dtypes <= {D.float16, D.bfloat16, D.float32}
                                     and autocast_policy("bmm", operands) == "lower")

    # -- per operand: repeated labels -> diagonal --------------------------------------------------
    tensors = []
    for i, (t, ls) in enumerate(zip(operands, op_labels)):
        ls = list(ls)
        while True:
            dup = next((lab for j, lab in enumerate(ls) if lab in ls[j + 1:]), None)
            if dup is None:
                break
            d1 = ls.index(dup)
            d2 = ls.index(dup, d1 + 1)
            if t.shape[d1] != t.shape[d2]:
                raise RuntimeError(f"einsum(): subscript {dup} is repeated for operand {i} but the sizes don't match, "
                                   f"{t.shape[d1]} != {t.shape[d2]}")
            t = t.diagonal(0, d1, d2)  # the diagonal becomes the last dim
            ls = [lab for j, lab in enumerate(ls) if j not in (d1, d2)] + [dup]
        tensors.append((t, ls))

    # -- sizes per label: equal, or 1 (broadcast) ---------------------------------------------------
    sizes: dict = {}
    for i, (t, ls) in enumerate(tensors):
        for lab, n in zip(ls, t.shape):
            cur = sizes.get(lab, 1)
            if n != 1 and cur != 1 and n != cur:
                name = "..." if isinstance(lab, tuple) else lab
                raise RuntimeError(f"einsum(): operands do not broadcast: subscript {name} has size {n} for operand {i}"
                                   f" but size {cur} for an earlier operand")
            sizes[lab] = max(cur, n) if n and cur else 0
    # (size-1 dims stay as they are, not expanded: as in PyTorch, a label of size 1 in one operand
    # is no contraction with it, which decides the result's dtype: _contract)

    # -- contract left to right ----------------------------------------------------------------------
    def sum_only(t, ls, keep, squeeze_ones: bool = True):
        """Sum away the labels nobody else needs; as PyTorch, a size-1 one is squeezed, not summed
        (summing would promote an integer operand to int64), but for a lone operand."""
        drop = [j for j, lab in enumerate(ls) if lab not in keep]
        if drop:
            summed = tuple(j for j in drop if t.shape[j] != 1 or not squeeze_ones)
            if summed:
                t = t.sum(summed, keepdim=True)
            t = t.reshape([n for j, n in enumerate(t.shape) if j not in drop])
            ls = [lab for j, lab in enumerate(ls) if j not in drop]
        return t, ls

    t, ls = tensors[0]
    for i in range(1, len(tensors)):
        u, lu = tensors[i]
        later = set(out_labels)
        for _, lo in tensors[i + 1:]:
            later.update(lo)
        t, ls = sum_only(t, ls, later | set(lu))
        u, lu = sum_only(u, lu, later | set(ls))
        t, ls = _contract(t, ls, u, lu, later, mixed)
    t, ls = sum_only(t, ls, set(out_labels), squeeze_ones=len(tensors) > 1)
    perm = [ls.index(lab) for lab in out_labels]
    if perm != list(range(len(perm))):
        t = t.permute(perm)
    return t


def _contract(a: Tensor, la: list, b: Tensor, lb: list, keep: set, mixed: bool = False):
    """Contract two operands over their shared labels that ``keep`` does not need: one batched matmul.

    Labels in both and kept are batch dims; in both and not kept are summed (K); the rest are
    a's rows (M) and b's columns (N). Returns the product and its labels: batch + M + N.
    """
    batch = [lab for lab in la if lab in lb and lab in keep]
    summed = [lab for lab in la if lab in lb and lab not in keep]
    rows = [lab for lab in la if lab not in lb]
    cols = [lab for lab in lb if lab not in la]
    # A summed label of size 1 on one side only: the other side is summed over it first (PyTorch's
    # a_dims_to_sum / b_dims_to_sum), so the two meet in a product, not a matmul over it
    for lab in summed:
        na, nb = a.shape[la.index(lab)], b.shape[lb.index(lab)]
        if na != nb:
            if na == 1:
                b = b.sum(lb.index(lab), keepdim=True)
            else:
                a = a.sum(la.index(lab), keepdim=True)
    size_a = dict(zip(la, a.shape))
    size_b = dict(zip(lb, b.shape))
    # batch labels broadcast (a size 1 against n); the others have one size
    bs = [size_a[lab] if size_b[lab] == 1 else size_b[lab] if size_a[lab] == 1 else size_a[lab] for lab in batch]
    M = math.prod(size_a[lab] for lab in rows)
    K = math.prod(size_a[lab] for lab in summed)
    N = math.prod(size_b[lab] for lab in cols)
    if a.dtype is not b.dtype and mixed and K != 1:  # (the operands' own dtypes differ: PyTorch's bmm error)
        raise RuntimeError(f"einsum(): expected scalar type {D.torch_name(a.dtype)} but found {D.torch_name(b.dtype)}")
    if a.dtype is not b.dtype:
        # An integer operand summed over a label of its own became int64 (sum promotes, as in
        # PyTorch's einsum: "ij->i" on int32 is int64) and meets one that was not summed: contract
        # in the promoted dtype, as PyTorch does where its path multiplies ("i,j->i" is int64),
        # rather than fail in matmul's same-dtype check ("ij,jk->i", where PyTorch's bmm fails).
        # A bool operand is promoted where the contraction is a product (K == 1, below) and keeps
        # matmul's own error otherwise (no bool products).
        if D.bool in (a.dtype, b.dtype) and K != 1:
            _check_supported("einsum", "addmm", a if a.dtype is D.bool else b)
        dt = D.promote_types(a.dtype, b.dtype)
        a, b = a.to(dt), b.to(dt)
    pa = a.permute([la.index(lab) for lab in batch + rows + summed]).reshape([size_a[lab] for lab in batch] + [M, K])
    pb = b.permute([lb.index(lab) for lab in batch + summed + cols]).reshape([size_b[lab] for lab in batch] + [K, N])
    if K == 1:
        # Nothing to sum (no shared label left, or only size-1 ones): a broadcast product, as
        # PyTorch's einsum multiplies there, so bool operands, and integers on cuda, work too
        # ("i,j->ij" on bools is their outer product; a matmul refuses both).
        out = pa * pb
    else:
        out = matmul(pa, pb)
    out = out.reshape(bs + [size_a[lab] for lab in rows] + [size_b[lab] for lab in cols])
    return out, batch + rows + cols
