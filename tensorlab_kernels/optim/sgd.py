"""Fused SGD: one launch updates a whole parameter group (momentum, dampening, Nesterov, weight decay).

PyTorch's algorithm (``torch.optim.SGD``, ``_single_tensor_sgd``), per element::

    g = -grad if maximize else grad
    g = g + weight_decay * p                       (weight_decay != 0)
    buf = g                                        (momentum != 0, first step: no buffer yet)
    buf = momentum * buf + (1 - dampening) * g     (momentum != 0, later steps)
    g = g + momentum * buf  if nesterov else buf
    p = p - lr * g

The kernel walks a chunk table (:mod:`.multi_tensor`): operands param, grad and, with momentum,
the momentum buffer. ``FIRST`` (the buffers are created by this step: ``buf = g``) is a
constexpr; the caller launches the tensors with and without a buffer separately (in steady
state all have one: one launch).
"""

from __future__ import annotations

from .._triton import tl, triton
from .multi_tensor import bits, host_compute_dtype, launch_table, ld, operand, rnd, scalar, st

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit
def _sgd_block(
    row,  # this program's row of the chunk table
    start, n,  # first element of this block, elements in the chunk
    lr_bits: tl.int64, weight_decay_bits: tl.int64, momentum_bits: tl.int64, one_minus_dampening_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, MOMENTUM: tl.constexpr, NESTEROV: tl.constexpr,
    FIRST: tl.constexpr,
    EVEN: tl.constexpr,  # a full block: no mask (lets the compiler vectorise)
):
    p_ptr = operand(row, 0, DTYPE, ALIGNED)
    g_ptr = operand(row, 1, DTYPE, ALIGNED)
    lr = scalar(lr_bits, COMPUTE)
    wd = scalar(weight_decay_bits, COMPUTE)
    momentum = scalar(momentum_bits, COMPUTE)
    one_minus_dampening = scalar(one_minus_dampening_bits, COMPUTE)
    offs = start + tl.arange(0, BLOCK)
    p = ld(p_ptr, offs, n, EVEN).to(COMPUTE)
    g = ld(g_ptr, offs, n, EVEN).to(COMPUTE)
    if MAXIMIZE:
        g = -g
    if WEIGHT_DECAY:
        g = g + wd * p
    if MOMENTUM:
        b_ptr = operand(row, 2, DTYPE, ALIGNED)
        if FIRST:
            buf = g
        else:
            buf = ld(b_ptr, offs, n, EVEN).to(COMPUTE)
            buf = buf * momentum + one_minus_dampening * g
        buf = rnd(buf, DTYPE)  # the stored buffer is what the next step (and Nesterov) sees
        st(b_ptr, offs, buf, n, EVEN)
        if NESTEROV:
            g = g + momentum * buf.to(COMPUTE)
        else:
            g = buf.to(COMPUTE)
    st(p_ptr, offs, rnd(p - lr * g, DTYPE), n, EVEN)


@triton.jit(do_not_specialize=["lr_bits", "weight_decay_bits", "momentum_bits", "one_minus_dampening_bits"])
def _sgd_kernel(
    table_ptr,  # int64 [chunks, ROW]: param, grad, (momentum buffer) chunk addresses; element count
    lr_bits: tl.int64, weight_decay_bits: tl.int64, momentum_bits: tl.int64, one_minus_dampening_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, MOMENTUM: tl.constexpr, NESTEROV: tl.constexpr,
    FIRST: tl.constexpr,
):
    # Full blocks without a mask (vectorised loads/stores), then the chunk's masked tail.
    row = table_ptr + tl.program_id(0) * ROW
    n = tl.load(row + ROW - 1).to(tl.int32)
    full = n - n % BLOCK
    for start in range(0, full, BLOCK):
        _sgd_block(
            row, start, n, lr_bits, weight_decay_bits, momentum_bits, one_minus_dampening_bits, ROW, DTYPE, COMPUTE,
            ALIGNED, BLOCK, MAXIMIZE, WEIGHT_DECAY, MOMENTUM, NESTEROV, FIRST, EVEN=True)
    if full < n:
        _sgd_block(
            row, full, n, lr_bits, weight_decay_bits, momentum_bits, one_minus_dampening_bits, ROW, DTYPE, COMPUTE,
            ALIGNED, BLOCK, MAXIMIZE, WEIGHT_DECAY, MOMENTUM, NESTEROV, FIRST, EVEN=False)


# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def sgd(params, grads, momentum_buffers, *, lr: float, weight_decay: float, momentum: float, dampening: float,
        nesterov: bool, maximize: bool, first: bool, config: dict | None = None) -> int:
    """Update ``params`` (lists of contiguous DeviceArrays of one dtype) in one launch.

    ``momentum_buffers`` is None when ``momentum == 0``; with ``first`` the buffers are written
    (``buf = g``) and not read. Returns the number of launches (0 or 1).
    """
    use_momentum = momentum != 0
    lists = [params, grads, momentum_buffers if use_momentum else None]
    return launch_table(_sgd_kernel, "SGD", lists, (bits(lr), bits(weight_decay), bits(momentum),
                                                    bits(1.0 - dampening)), config,
                        MAXIMIZE=bool(maximize), WEIGHT_DECAY=weight_decay != 0, MOMENTUM=use_momentum,
                        NESTEROV=bool(nesterov), FIRST=bool(first))


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def sgd_twin(params, grads, momentum_buffers, *, lr: float, weight_decay: float, momentum: float,
             dampening: float, nesterov: bool, maximize: bool, first: bool, config: dict | None = None) -> int:
    for i, param in enumerate(params):
        ct = host_compute_dtype(param.dtype)
        p = param.astype(ct)
        g = grads[i].astype(ct)
        if maximize:
            g = -g
        if weight_decay != 0:
            g = g + ct.type(weight_decay) * p
        if momentum != 0:
            if first:
                buf = g
            else:
                buf = momentum_buffers[i].astype(ct) * ct.type(momentum) + ct.type(1.0 - dampening) * g
            momentum_buffers[i][...] = buf.astype(param.dtype)
            buf = momentum_buffers[i].astype(ct)
            g = g + ct.type(momentum) * buf if nesterov else buf
        param[...] = (p - ct.type(lr) * g).astype(param.dtype)
    return 1 if params else 0


__all__ = ["sgd", "sgd_twin"]
