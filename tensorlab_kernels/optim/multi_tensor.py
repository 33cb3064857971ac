"""Multi-tensor apply: one launch works on every tensor of a list (an optimizer's parameter group).

Why. An optimizer step touches every parameter, its gradient and one to three state buffers. A
launch per tensor costs several microseconds of host time each (hundreds of parameters: a
millisecond per step); PyTorch's foreach/fused optimizers avoid it by handing one kernel a list
of tensors. We do the same.

How. The host cuts every tensor into chunks of at most ``CHUNK`` elements and writes one row per
chunk into an int64 table: the byte address of the chunk's first element in each operand
(parameter, gradient, state buffers: K operands of one dtype, all contiguous, all of the same
element count) followed by the chunk's element count. Program ``i`` reads row ``i``, turns the
addresses into typed pointers (``int64 -> tl.pointer_type(DTYPE)``, see :func:`operand`) and
streams its chunk ``BLOCK`` elements at a time. Addresses are advanced on the host, so in-kernel
offsets stay below ``CHUNK`` (int32 is enough whatever the tensor size).

The table lives in device memory. It is uploaded asynchronously and kept in a small cache keyed
by its bytes: in a training loop the parameters and states keep their addresses and the caching
allocator usually hands the gradients the same blocks again, so a steady-state step costs one
launch and no copy at all.

Hyperparameters travel as the bit pattern of an fp64 (int64 arguments, ``do_not_specialize``):
exact on the GPU (which types a Python float argument fp32) and in the interpreter (fp64), and a
learning rate that changes every step (a scheduler) or a bias correction never triggers a
recompilation. The kernels compute in fp32 (fp64 for fp64 tensors) and round once per stored
value, like PyTorch's fused optimizers.

Every kernel has the same shape: :func:`chunk_row` decodes its row of the table, then it walks the
chunk's full blocks without a mask and its tail with one (``for MASKED in tl.static_range(2)``),
reading blocks with :func:`load` (compute dtype) and writing them with :func:`store` (rounded to
the storage dtype). The optimizers start every block with :func:`param_grad`.

This file: shared device helpers, the host-side table, then the multi-tensor norm / scale /
clamp kernels (gradient clipping), their launchers and numpy twins.
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np

from .. import runtime as rt
from .._triton import tl, triton
from ..fill import float64_bits
from ..launch import INTERPRET, launch

_TL_BY_NAME = {"float16": tl.float16, "bfloat16": tl.bfloat16, "float32": tl.float32, "float64": tl.float64}


def tl_dtype(np_dtype):
    """Triton's dtype for a floating numpy dtype (ml_dtypes' bfloat16 included)."""
    name = np.dtype(np_dtype).name
    if name not in _TL_BY_NAME:
        raise TypeError(f"multi-tensor kernels take floating tensors (float16/bfloat16/float32/float64), got {name}")
    return _TL_BY_NAME[name]


def compute_dtype(np_dtype):
    """What the kernels compute in: fp64 for fp64 tensors, fp32 otherwise (fp16/bf16 included)."""
    return tl.float64 if np.dtype(np_dtype) == np.float64 else tl.float32


def host_compute_dtype(np_dtype) -> np.dtype:
    """The twins' compute dtype, the same rule."""
    return np.dtype(np.float64) if np.dtype(np_dtype) == np.float64 else np.dtype(np.float32)


bits = float64_bits  # a Python float as the int64 bit pattern of its fp64


# ----------------------------------------------------------------------------------------------
# Device helpers shared by the optimizer kernels
# ----------------------------------------------------------------------------------------------


@triton.jit
def chunk_row(table_ptr, ROW: tl.constexpr, BLOCK: tl.constexpr):
    """This program's row of the chunk table, the chunk's element count ``n`` and the end of its
    full blocks: the kernels walk ``[0, full)`` unmasked, then the masked tail ``[full, n)``."""
    row = table_ptr + tl.program_id(0) * ROW
    n = tl.load(row + ROW - 1).to(tl.int32)
    return row, n, n - n % BLOCK


@triton.jit
def operand(row_ptr, k, DTYPE: tl.constexpr, ALIGNED: tl.constexpr):
    """Operand ``k`` of this program's chunk as a typed pointer (the table holds byte addresses)."""
    ptr = tl.load(row_ptr + k).to(tl.pointer_type(DTYPE))
    if ALIGNED:  # every address in the table is 16-byte aligned: lets the compiler vectorise
        ptr = tl.multiple_of(ptr, 16)
    return ptr


@triton.jit
def load(ptr, offs, n, COMPUTE: tl.constexpr, MASKED: tl.constexpr):
    """Load a block into the compute dtype; a full block (not ``MASKED``) without a mask, which lets
    the compiler vectorise (a mask against a count read from memory would force scalar accesses)."""
    if MASKED:
        x = tl.load(ptr + offs, mask=offs < n)
    else:
        x = tl.load(ptr + offs)
    return x.to(COMPUTE)


@triton.jit
def store(ptr, offs, x, n, DTYPE: tl.constexpr, MASKED: tl.constexpr):
    """Round a block of compute values to the storage dtype (:func:`rnd`) and store it."""
    x = rnd(x, DTYPE)
    if MASKED:
        tl.store(ptr + offs, x, mask=offs < n)
    else:
        tl.store(ptr + offs, x)


@triton.jit
def scalar(value_bits, COMPUTE: tl.constexpr):
    """Decode a hyperparameter passed as fp64 bits into the compute dtype."""
    return tl.cast(value_bits, tl.int64).to(tl.float64, bitcast=True).to(COMPUTE)


@triton.jit
def rnd(x, DTYPE: tl.constexpr):
    """Round a compute value to the storage dtype, to nearest even.

    bf16 is rounded with integer ops (add half an ulp plus the parity bit, drop 16 bits; NaN stays
    a quiet NaN): Triton's interpreter truncates an fp32 -> bf16 cast (and its explicit "rtne" path
    drops the carry into the exponent), so this keeps the GPU, the interpreter and ml_dtypes (the
    twins) bit-identical. The other dtypes use the cast (round to nearest even everywhere).
    """
    if DTYPE == tl.bfloat16:
        b = x.to(tl.float32).to(tl.uint32, bitcast=True)
        b = (b + (((b >> 16) & 1) + 0x7FFF)) >> 16
        b = tl.where(x != x, 0x7FC0, b)
        return b.to(tl.uint16).to(tl.bfloat16, bitcast=True)
    else:
        return x.to(DTYPE)


@triton.jit
def as_stored(value_bits, DTYPE: tl.constexpr, COMPUTE: tl.constexpr):
    """A hyperparameter as a tensor of the parameter's dtype holds it (PyTorch's ``sign[...] = eta``,
    and the ``alpha`` of ``add_(other, alpha=)``, which PyTorch converts to the tensor's dtype)."""
    return rnd(scalar(value_bits, COMPUTE), DTYPE).to(COMPUTE)


@triton.jit
def param_grad(row, start, n, weight_decay_bits, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr,
               BLOCK: tl.constexpr, MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, MASKED: tl.constexpr,
               decay_bits=0, DECOUPLED: tl.constexpr = False):
    """How every optimizer starts a block: its offsets, the parameter's pointer, and the parameter
    and gradient (operands 0 and 1) in the compute dtype, with ``g = -grad`` (``MAXIMIZE``) and then
    weight decay, ``g += weight_decay * p`` or, ``DECOUPLED`` (AdamW), ``p *= decay``."""
    p_ptr = operand(row, 0, DTYPE, ALIGNED)
    offs = start + tl.arange(0, BLOCK)
    p = load(p_ptr, offs, n, COMPUTE, MASKED)
    g = load(operand(row, 1, DTYPE, ALIGNED), offs, n, COMPUTE, MASKED)
    if MAXIMIZE:
        g = -g
    if WEIGHT_DECAY:
        if DECOUPLED:
            p = p * scalar(decay_bits, COMPUTE)
        else:
            g = g + scalar(weight_decay_bits, COMPUTE) * p
    return offs, p_ptr, p, g


@triton.jit
def max_nan(acc):
    """``tl.max`` over axis 0 that returns NaN when any element is NaN (as torch's norms do). A NaN
    flag and the plain reduction: a custom-combine ``tl.reduce`` crawls in the interpreter."""
    has_nan = tl.max((acc != acc).to(tl.int32), axis=0)
    return tl.where(has_nan > 0, float("nan"), tl.max(acc, axis=0))


@triton.jit
def min_nan(acc):
    has_nan = tl.max((acc != acc).to(tl.int32), axis=0)
    return tl.where(has_nan > 0, float("nan"), tl.min(acc, axis=0))


@triton.jit
def lerp(start, end, weight):
    """PyTorch's ``lerp`` (ATen's Lerp.h): the form that is exact at the nearer end point."""
    return tl.where(tl.abs(weight) < 0.5, start + weight * (end - start), end - (end - start) * (1.0 - weight))


@triton.jit
def maximum(a, b):
    """``torch.maximum``: NaN in either input gives NaN."""
    return tl.where((a > b) | (a != a), a, b)


@triton.jit
def minimum(a, b):
    """``torch.minimum``: NaN in either input gives NaN."""
    return tl.where((a < b) | (a != a), a, b)


# ----------------------------------------------------------------------------------------------
# Host side: chunk tables
# ----------------------------------------------------------------------------------------------

_GPU_CONFIG = {"CHUNK": 16384, "BLOCK": 1024, "num_warps": 4}
_INTERPRET_CONFIG = {"CHUNK": 8192, "BLOCK": 8192, "num_warps": 4}  # one program = one Python call: big blocks


_OVERRIDE: list = []  # set by override_config (tests: small chunks through the public optimizers)


class override_config:  # noqa: N801 - used as a context manager, like a function
    """``with override_config({"CHUNK": 8, "BLOCK": 4}):`` every multi-tensor launch inside uses it."""

    def __init__(self, config: dict):
        self.config = config

    def __enter__(self):
        _OVERRIDE.append(self.config)
        return self

    def __exit__(self, *exc):
        _OVERRIDE.pop()


def pick_config(config: dict | None = None) -> dict:
    """Chunk size and block size. Tests pass a small ``config`` to exercise multi-chunk tensors."""
    if config is None and _OVERRIDE:
        config = _OVERRIDE[-1]
    if config is not None:
        if config["BLOCK"] & (config["BLOCK"] - 1) or config["CHUNK"] < 1:
            raise ValueError(f"multi-tensor config needs a power-of-two BLOCK and a positive CHUNK, got {config}")
        return {"num_warps": 4, **config}
    return dict(_INTERPRET_CONFIG if INTERPRET else _GPU_CONFIG)


def check_operands(name: str, lists) -> tuple:
    """Validate K operand lists (``None`` lists are absent operands) -> (dtype, device, numels).

    Every operand of one launch shares the dtype and device of the first, and operand ``k`` of
    tensor ``i`` has the element count of tensor ``i``; all must be contiguous (the chunk walk is
    linear in memory). Raises before anything is launched.
    """
    first = lists[0]
    if not first:
        return None, None, []
    dtype, device = first[0].dtype, first[0].device
    numels = [a.numel for a in first]
    for k, lst in enumerate(lists):
        if lst is None:
            continue
        if len(lst) != len(first):
            raise ValueError(f"{name}: operand {k} has {len(lst)} tensors, operand 0 has {len(first)}")
        for i, a in enumerate(lst):
            if a.dtype != dtype:
                raise TypeError(f"{name}: tensor {i} of operand {k} is {a.dtype.name}, expected {dtype.name} "
                                "(one launch takes one dtype)")
            if a.device != device:
                raise ValueError(f"{name}: tensor {i} of operand {k} is on cuda:{a.device}, expected cuda:{device}")
            if a.numel != numels[i]:
                raise ValueError(f"{name}: tensor {i} of operand {k} has {a.numel} elements, expected {numels[i]}")
            if not a.is_contiguous():
                raise ValueError(f"{name}: tensor {i} of operand {k} is not contiguous (shape {a.shape}, "
                                 f"strides {a.strides}); the caller stages such tensors")
    tl_dtype(dtype)
    return dtype, device, numels


def build_table(lists, chunk: int) -> np.ndarray:
    """The host table: one row per chunk, K operand byte addresses then the chunk's element count."""
    lists = [lst for lst in lists if lst is not None]
    k = len(lists)
    numels = np.array([a.numel for a in lists[0]], dtype=np.int64)
    itemsize = lists[0][0].itemsize
    ptrs = np.array([[a.data_ptr() for a in lst] for lst in lists], dtype=np.int64).T.reshape(len(numels), k)
    counts = -(-numels // chunk)  # empty tensors have no chunk
    rows = int(counts.sum())
    which = np.repeat(np.arange(len(numels)), counts)
    index_in_tensor = np.arange(rows) - np.repeat(np.cumsum(counts) - counts, counts)
    start = index_in_tensor * chunk
    table = np.empty((rows, k + 1), dtype=np.int64)
    table[:, :k] = ptrs[which] + (start * itemsize)[:, None]
    table[:, k] = np.minimum(numels[which] - start, chunk)
    return table


_TABLES: OrderedDict = OrderedDict()  # (device, dtype, chunk, sizes, addresses) -> (device table, host table, aligned)
_TABLE_CACHE_SIZE = 64


def device_table(lists, numels: list, dtype, chunk: int, device: int):
    """(the chunk table of ``lists`` in device memory, whether every chunk starts 16-byte aligned).

    The table follows from the operands' addresses and sizes, so it is kept while they come again
    (an optimizer's parameters and states every step, and gradients whenever the allocator hands
    them the same blocks): looked up by the addresses, without building the table on the host
    (numpy work that cost a step more than the rest of ``prepare``); else built and uploaded
    (asynchronously)."""
    key = (device, dtype, chunk, tuple(numels), tuple([a._ptr for lst in lists if lst is not None for a in lst]))
    hit = _TABLES.get(key)
    if hit is not None:
        _TABLES.move_to_end(key)
        return hit[0], hit[2]
    host = build_table(lists, chunk)
    aligned = bool((host[:, :-1] % 16 == 0).all())
    arr = rt.empty(host.shape, np.int64, device, kept=True)  # (not from the tensors' pool: see rt.empty)
    # Async on the current stream: ordered after the kernels that may still read an evicted table
    # whose block the allocator hands out again. ``host`` stays alive in the cache entry.
    rt.copy_host_to_device(arr.storage, arr.offset * 8, host, non_blocking=True)
    _TABLES[key] = (arr, host, aligned)
    while len(_TABLES) > _TABLE_CACHE_SIZE:
        _TABLES.popitem(last=False)
    return arr, aligned


def prepare(name: str, lists, config: dict | None):
    """Validate, build and upload the chunk table -> (table, rows, dtype, config, aligned) or None if empty."""
    dtype, device, numels = check_operands(name, lists)
    if dtype is None or sum(numels) == 0:
        return None
    cfg = pick_config(config)
    table, aligned = device_table(lists, numels, dtype, cfg["CHUNK"], device)
    return table, table.shape[0], dtype, cfg, aligned


def launch_table(kernel, name: str, lists, scalars: tuple, config: dict | None = None, **constexprs) -> int:
    """Launch ``kernel(table, *scalars, ROW=, DTYPE=, COMPUTE=, ALIGNED=, BLOCK=, **constexprs)`` once
    over all chunks of ``lists``; returns the number of launches (0 when every tensor is empty)."""
    prepared = prepare(name, lists, config)
    if prepared is None:
        return 0
    table, rows, dtype, cfg, aligned = prepared
    launch(kernel, (rows,), table, *scalars, ROW=table.shape[1], DTYPE=tl_dtype(dtype), COMPUTE=compute_dtype(dtype),
           ALIGNED=aligned, BLOCK=cfg["BLOCK"], num_warps=cfg["num_warps"], **constexprs)
    return 1


# ----------------------------------------------------------------------------------------------
# Kernels: multi-tensor norm (per-chunk partials, then one finishing program), scale, clamp
# ----------------------------------------------------------------------------------------------

# Norm kinds: |x|^p summed (general p > 0, with fast paths for 1 and 2), max |x|, min |x|.
NORM_P, NORM_ONE, NORM_TWO, NORM_INF, NORM_NEG_INF = 0, 1, 2, 3, 4


@triton.jit
def _norm_block(x_ptr, start, n, acc, p, KIND: tl.constexpr, COMPUTE: tl.constexpr, BLOCK: tl.constexpr,
                MASKED: tl.constexpr):
    offs = start + tl.arange(0, BLOCK)
    mask = offs < n
    if MASKED:
        a = tl.abs(tl.load(x_ptr + offs, mask=mask, other=0.0).to(COMPUTE))
    else:
        a = tl.abs(tl.load(x_ptr + offs).to(COMPUTE))
    if KIND == 1:
        acc += a
    elif KIND == 2:
        acc += a * a
    elif KIND == 3:
        acc = maximum(acc, tl.where(mask, a, float("-inf")))
    elif KIND == 4:
        acc = minimum(acc, tl.where(mask, a, float("inf")))
    else:  # |x|^p = 2^(p log2|x|); |x| = 0 gives 2^-inf = 0 for p > 0
        acc += tl.where(mask, tl.exp2(p * tl.log2(a)), 0.0)
    return acc


@triton.jit(do_not_specialize=["p_bits"])
def _norm_partials_kernel(
    table_ptr,  # int64 [chunks, 2]: tensor chunk address, element count
    partials_ptr,  # fp32/fp64 [chunks]: this launch's slice of the partials buffer
    p_bits: tl.int64,  # the norm order (general p) as fp64 bits
    KIND: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, 2, BLOCK)
    x_ptr = operand(row, 0, DTYPE, ALIGNED)
    if KIND == 3:
        acc = tl.full([BLOCK], float("-inf"), COMPUTE)
    elif KIND == 4:
        acc = tl.full([BLOCK], float("inf"), COMPUTE)
    else:
        acc = tl.zeros([BLOCK], COMPUTE)
    p = scalar(p_bits, COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            acc = _norm_block(x_ptr, start, n, acc, p, KIND, COMPUTE, BLOCK, MASKED)
    if KIND == 3:
        total = max_nan(acc)
    elif KIND == 4:
        total = min_nan(acc)
    else:
        total = tl.sum(acc, axis=0)
    tl.store(partials_ptr + tl.program_id(0), total.to(partials_ptr.dtype.element_ty))


@triton.jit(do_not_specialize=["n", "p_bits"])
def _norm_finish_kernel(
    out_ptr,  # 0-d result, in the gradients' (promoted) dtype
    partials_ptr,  # fp32/fp64 [n]
    n,
    p_bits: tl.int64,
    KIND: tl.constexpr, BLOCK: tl.constexpr,
):
    # One program folds the partials in a fixed order: deterministic, no atomics.
    acc_ty = partials_ptr.dtype.element_ty
    if KIND == 3:
        acc = tl.full([BLOCK], float("-inf"), acc_ty)
    elif KIND == 4:
        acc = tl.full([BLOCK], float("inf"), acc_ty)
    else:
        acc = tl.zeros([BLOCK], acc_ty)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n
        if KIND == 3:
            acc = maximum(acc, tl.load(partials_ptr + offs, mask=mask, other=float("-inf")))
        elif KIND == 4:
            acc = minimum(acc, tl.load(partials_ptr + offs, mask=mask, other=float("inf")))
        else:
            acc += tl.load(partials_ptr + offs, mask=mask, other=0.0)
    if KIND == 3:
        total = max_nan(acc)
    elif KIND == 4:
        total = min_nan(acc)
    else:
        total = tl.sum(acc, axis=0)
        if KIND == 2:
            total = tl.sqrt(total)
        elif KIND == 0:
            total = tl.exp2(tl.log2(total) / scalar(p_bits, acc_ty))
    tl.store(out_ptr, rnd(total, out_ptr.dtype.element_ty))


@triton.jit(do_not_specialize=["max_norm_bits"])
def _clip_scale_kernel(
    table_ptr,  # int64 [chunks, 2]: gradient chunk address, element count
    norm_ptr,  # 0-d total norm (device memory: no host synchronisation)
    max_norm_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    g_ptr = operand(row, 0, DTYPE, ALIGNED)
    # PyTorch: clip_coef = max_norm / (total_norm + 1e-6), clamped to at most 1 (NaN stays NaN); the
    # gradients are always multiplied (no host-side branch). Computed in fp32 (fp64 for an fp64 norm).
    total = tl.load(norm_ptr)
    if total.dtype == tl.float64:
        coef = scalar(max_norm_bits, tl.float64) / (total + 1e-6)
    else:
        coef = scalar(max_norm_bits, tl.float32) / (total.to(tl.float32) + 1e-6)
    coef = tl.where(coef > 1.0, 1.0, coef).to(COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            store(g_ptr, offs, load(g_ptr, offs, n, COMPUTE, MASKED) * coef, n, DTYPE, MASKED)


@triton.jit(do_not_specialize=["lo_bits", "hi_bits"])
def _clamp_kernel(
    table_ptr,  # int64 [chunks, 2]: tensor chunk address, element count
    lo_bits: tl.int64, hi_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    x_ptr = operand(row, 0, DTYPE, ALIGNED)
    lo = rnd(scalar(lo_bits, COMPUTE), DTYPE).to(COMPUTE)  # the bounds as the tensor's dtype sees them
    hi = rnd(scalar(hi_bits, COMPUTE), DTYPE).to(COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs = start + tl.arange(0, BLOCK)
            x = load(x_ptr, offs, n, COMPUTE, MASKED)
            x = tl.where(x < lo, lo, x)  # clamp_min then clamp_max, NaN passes through (as in PyTorch)
            x = tl.where(x > hi, hi, x)
            store(x_ptr, offs, x, n, DTYPE, MASKED)


# ----------------------------------------------------------------------------------------------
# Launchers
# ----------------------------------------------------------------------------------------------


def norm_kind(norm_type: float) -> int:
    if norm_type == math.inf:
        return NORM_INF
    if norm_type == -math.inf:
        return NORM_NEG_INF
    if norm_type == 1.0:
        return NORM_ONE
    if norm_type == 2.0:
        return NORM_TWO
    if norm_type > 0 and math.isfinite(norm_type):
        return NORM_P
    raise NotImplementedError(f"multi_tensor_norm: norm_type {norm_type} (supported: p > 0, inf, -inf)")


def _by_dtype(arrays) -> dict:
    groups: dict = {}
    for a in arrays:
        groups.setdefault(np.dtype(a.dtype).name, []).append(a)
    return groups


def multi_tensor_norm(out, tensors, *, norm_type: float, config: dict | None = None) -> None:
    """``out`` (0-d) = the ``norm_type``-norm of all elements of ``tensors`` together.

    One partials launch per dtype present (each writes one value per chunk into a shared
    buffer), then one program folds the partials. Partials are fp64 when any tensor is fp64.
    """
    kind = norm_kind(float(norm_type))
    groups = _by_dtype(tensors)
    if not tensors or sum(a.numel for a in tensors) == 0:
        if kind == NORM_INF or kind == NORM_NEG_INF:
            raise RuntimeError("multi_tensor_norm: the inf norm of no elements has no identity")
        from ..fill import fill

        fill(out, 0.0)
        return
    acc = np.float64 if "float64" in groups else np.float32
    prepared = [prepare("multi_tensor_norm", [lst], config) for lst in groups.values()]
    prepared = [p for p in prepared if p is not None]
    rows = sum(p[1] for p in prepared)
    partials = rt.empty((rows,), acc, out.device)
    p_bits = bits(float(norm_type) if kind == NORM_P else 1.0)
    at = 0
    for table, n_rows, dtype, cfg, aligned in prepared:
        launch(_norm_partials_kernel, (n_rows,), table, partials.view((n_rows,), (1,), at), p_bits,
               KIND=kind, DTYPE=tl_dtype(dtype), COMPUTE=tl.float64 if acc == np.float64 else tl.float32,
               ALIGNED=aligned, BLOCK=cfg["BLOCK"], num_warps=cfg["num_warps"])
        at += n_rows
    launch(_norm_finish_kernel, (1,), out, partials, rows, p_bits, KIND=kind,
           BLOCK=4096 if INTERPRET else 1024, num_warps=4)


def multi_tensor_clip_scale(tensors, total_norm, *, max_norm: float, config: dict | None = None) -> int:
    """Multiply every tensor by ``min(max_norm / (total_norm + 1e-6), 1)``; ``total_norm`` is a 0-d
    device array (read in-kernel). One launch per dtype present; returns the number of launches."""
    return sum(launch_table(_clip_scale_kernel, "clip_grad_norm_", [lst], (total_norm, bits(max_norm)), config)
               for lst in _by_dtype(tensors).values())


def multi_tensor_clamp(tensors, *, min: float, max: float, config: dict | None = None) -> int:  # noqa: A002
    """Clamp every tensor to [min, max] in place; one launch per dtype present."""
    return sum(launch_table(_clamp_kernel, "clip_grad_value_", [lst], (bits(min), bits(max)), config)
               for lst in _by_dtype(tensors).values())


# ----------------------------------------------------------------------------------------------
# Numpy twins
# ----------------------------------------------------------------------------------------------


def lerp_twin(start: np.ndarray, end: np.ndarray, weight) -> np.ndarray:
    """PyTorch's lerp on numpy arrays; ``weight`` a scalar of the arrays' dtype (as :func:`lerp`)."""
    if abs(weight) < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (type(weight)(1.0) - weight)


def param_grad_twin(param: np.ndarray, grad: np.ndarray, *, weight_decay: float, maximize: bool, decay=None):
    """:func:`param_grad` on numpy arrays -> (compute dtype, p, g); ``decay`` given: decoupled weight decay."""
    ct = host_compute_dtype(param.dtype)
    p, g = param.astype(ct, copy=False), grad.astype(ct, copy=False)
    if maximize:
        g = -g
    if weight_decay != 0:
        if decay is not None:
            p = p * ct.type(decay)
        else:
            g = g + ct.type(weight_decay) * p
    return ct, p, g


def as_stored_twin(value: float, ct: np.dtype, dt: np.dtype):
    return np.asarray(np.asarray(value, dtype=ct).astype(dt), dtype=ct)


def multi_tensor_norm_twin(out, tensors, *, norm_type: float, config: dict | None = None) -> None:
    kind = norm_kind(float(norm_type))
    if not tensors or sum(a.size for a in tensors) == 0:
        if kind == NORM_INF or kind == NORM_NEG_INF:
            raise RuntimeError("multi_tensor_norm: the inf norm of no elements has no identity")
        out[...] = 0
        return
    acc = np.float64 if any(a.dtype == np.float64 for a in tensors) else np.float32
    flat = np.concatenate([np.abs(np.asarray(a, dtype=acc).reshape(-1)) for a in tensors])
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if kind == NORM_INF:
            total = flat.max()
        elif kind == NORM_NEG_INF:
            total = flat.min()
        elif kind == NORM_ONE:
            total = flat.sum(dtype=acc)
        elif kind == NORM_TWO:
            total = np.sqrt((flat * flat).sum(dtype=acc))
        else:
            p = acc(norm_type)
            total = np.power(np.power(flat, p).sum(dtype=acc), acc(1.0) / p)
        # (a norm beyond float16's range becomes inf in the float16 out, as the kernel's, without numpy's warning)
        out[...] = np.asarray(total, dtype=acc).astype(np.float32 if out.dtype.itemsize == 2 else out.dtype,
                                                       copy=False)


def multi_tensor_clip_scale_twin(tensors, total_norm, *, max_norm: float, config: dict | None = None) -> int:
    norm_ty = host_compute_dtype(total_norm.dtype)
    total = np.asarray(total_norm, dtype=norm_ty)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        coef = norm_ty.type(max_norm) / (total + norm_ty.type(1e-6))
        coef = np.where(coef > 1.0, norm_ty.type(1.0), coef)
        for a in tensors:
            ct = host_compute_dtype(a.dtype)
            a[...] = (a.astype(ct, copy=False) * coef.astype(ct, copy=False)).astype(a.dtype, copy=False)
    return len(_by_dtype(tensors))


def multi_tensor_clamp_twin(tensors, *, min: float, max: float, config: dict | None = None) -> int:  # noqa: A002
    for a in tensors:
        ct = host_compute_dtype(a.dtype)
        lo = np.asarray(min, dtype=ct).astype(a.dtype, copy=False).astype(ct, copy=False)
        hi = np.asarray(max, dtype=ct).astype(a.dtype, copy=False).astype(ct, copy=False)
        x = a.astype(ct, copy=False)
        x = np.where(x < lo, lo, x)
        x = np.where(x > hi, hi, x)
        a[...] = x.astype(a.dtype, copy=False)
    return len(_by_dtype(tensors))
