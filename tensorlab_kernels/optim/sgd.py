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
from .multi_tensor import bits, chunk_row, launch_table, load, operand, param_grad, param_grad_twin, rnd, scalar, store

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit(do_not_specialize=["lr_bits", "weight_decay_bits", "momentum_bits", "one_minus_dampening_bits"])
def _sgd_kernel(
    table_ptr,  # int64 [chunks, ROW]: param, grad, (momentum buffer) chunk addresses; element count
    lr_bits: tl.int64, weight_decay_bits: tl.int64, momentum_bits: tl.int64, one_minus_dampening_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, MOMENTUM: tl.constexpr, NESTEROV: tl.constexpr,
    FIRST: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    lr = scalar(lr_bits, COMPUTE)
    momentum = scalar(momentum_bits, COMPUTE)
    one_minus_dampening = scalar(one_minus_dampening_bits, COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs, p_ptr, p, g = param_grad(row, start, n, weight_decay_bits, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE,
                                           WEIGHT_DECAY, MASKED)
            if MOMENTUM:
                b_ptr = operand(row, 2, DTYPE, ALIGNED)
                if FIRST:
                    buf = g
                else:
                    buf = load(b_ptr, offs, n, COMPUTE, MASKED) * momentum + one_minus_dampening * g
                store(b_ptr, offs, buf, n, DTYPE, MASKED)
                buf = rnd(buf, DTYPE).to(COMPUTE)  # the stored buffer is what the next step (and Nesterov) sees
                if NESTEROV:
                    g = g + momentum * buf
                else:
                    g = buf
            store(p_ptr, offs, p - lr * g, n, DTYPE, MASKED)

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
        ct, p, g = param_grad_twin(param, grads[i], weight_decay=weight_decay, maximize=maximize)
        if momentum != 0:
            if first:
                buf = g
            else:
                buf = momentum_buffers[i].astype(ct, copy=False) * ct.type(momentum) + ct.type(1.0 - dampening) * g
            momentum_buffers[i][...] = buf.astype(param.dtype, copy=False)
            buf = momentum_buffers[i].astype(ct, copy=False)
            g = g + ct.type(momentum) * buf if nesterov else buf
        param[...] = (p - ct.type(lr) * g).astype(param.dtype, copy=False)
    return 1 if params else 0


__all__ = ["sgd", "sgd_twin"]
