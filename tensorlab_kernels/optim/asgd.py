"""Fused ASGD: one launch updates a whole parameter group.

PyTorch's algorithm (``torch.optim.ASGD``, ``_single_tensor_asgd``), per element, with the
parameter's ``eta`` and ``mu`` of this step (host scalars)::

    g = -grad if maximize else grad
    g = g + weight_decay * p                        (weight_decay != 0)
    p = p * (1 - lambd * eta)
    p = p - eta * g
    ax = ax + (p - ax) * mu                         (mu != 1)
    ax = p                                          (mu == 1)

Each line is one PyTorch op that stores its result in the parameter's dtype, so for fp16/bf16 the
kernel rounds after each of them (a no-op for fp32/fp64). The host computes ``1 - lambd * eta``
and ``-eta`` in double precision, as PyTorch's Python code does; ``weight_decay`` and ``-eta`` are
the ``alpha`` of PyTorch's ``add``, which it converts to the parameter's dtype (fp16: 0.1 is
0.0999755859375), so the kernel rounds them so too. Operands: param, grad, ax.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from .multi_tensor import (
    as_stored,
    as_stored_twin,
    bits,
    chunk_row,
    launch_table,
    load,
    operand,
    param_grad,
    param_grad_twin,
    rnd,
    scalar,
    store,
)

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit(do_not_specialize=["weight_decay_bits", "decay_bits", "neg_eta_bits", "mu_bits"])
def _asgd_kernel(
    table_ptr,  # int64 [chunks, 4]: param, grad, ax chunk addresses; element count
    weight_decay_bits: tl.int64,
    decay_bits: tl.int64,  # 1 - lambd * eta
    neg_eta_bits: tl.int64,  # -eta
    mu_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, AVERAGE: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    weight_decay = as_stored(weight_decay_bits, DTYPE, COMPUTE)
    decay = scalar(decay_bits, COMPUTE)  # mul_(python float): PyTorch multiplies in the compute dtype
    neg_eta = as_stored(neg_eta_bits, DTYPE, COMPUTE)
    mu = scalar(mu_bits, COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs, p_ptr, p, g = param_grad(row, start, n, 0, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE, False, MASKED)
            if WEIGHT_DECAY:  # grad.add(param, alpha=weight_decay): a new tensor of the parameter's dtype
                g = rnd(g + weight_decay * p, DTYPE).to(COMPUTE)
            p = rnd(p * decay, DTYPE).to(COMPUTE)
            p = rnd(p + neg_eta * g, DTYPE).to(COMPUTE)
            store(p_ptr, offs, p, n, DTYPE, MASKED)
            ax_ptr = operand(row, 2, DTYPE, ALIGNED)
            if AVERAGE:
                ax = load(ax_ptr, offs, n, COMPUTE, MASKED)
                d = rnd(p - ax, DTYPE).to(COMPUTE)
                d = rnd(d * mu, DTYPE).to(COMPUTE)
                store(ax_ptr, offs, ax + d, n, DTYPE, MASKED)
            else:
                store(ax_ptr, offs, p, n, DTYPE, MASKED)

# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def asgd_scalars(*, lambd: float, eta: float) -> dict:
    """The per-step factors, as PyTorch's Python code computes them (double precision)."""
    return {"decay": 1 - lambd * eta, "neg_eta": -eta}


def asgd(params, grads, axs, *, weight_decay: float, decay: float, neg_eta: float, mu: float, maximize: bool,
         config: dict | None = None) -> int:
    """One ASGD step (contiguous DeviceArrays of one dtype) for parameters that share ``eta`` and ``mu``."""
    args = (bits(weight_decay), bits(decay), bits(neg_eta), bits(mu))
    return launch_table(_asgd_kernel, "ASGD", [params, grads, axs], args, config, MAXIMIZE=bool(maximize),
                        WEIGHT_DECAY=weight_decay != 0, AVERAGE=mu != 1)


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def asgd_twin(params, grads, axs, *, weight_decay: float, decay: float, neg_eta: float, mu: float, maximize: bool,
              config: dict | None = None) -> int:
    for i, param in enumerate(params):
        ct, p, g = param_grad_twin(param, grads[i], weight_decay=0, maximize=maximize)
        c, dt = ct.type, param.dtype

        def rounded(x, dt=dt, ct=ct):  # one PyTorch op's result, stored in the parameter's dtype
            return x.astype(dt, copy=False).astype(ct, copy=False)

        with np.errstate(invalid="ignore", over="ignore"):
            if weight_decay != 0:
                g = rounded(g + as_stored_twin(weight_decay, ct, dt) * p)
            p = rounded(p * c(decay))
            p = rounded(p + as_stored_twin(neg_eta, ct, dt) * g)
            param[...] = p.astype(dt, copy=False)
            if mu != 1:
                ax = axs[i].astype(ct, copy=False)
                d = rounded(rounded(p - ax) * c(mu))
                axs[i][...] = (ax + d).astype(dt, copy=False)
            else:
                axs[i][...] = param
    return 1 if params else 0


__all__ = ["asgd", "asgd_scalars", "asgd_twin"]
