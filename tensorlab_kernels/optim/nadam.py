"""Fused NAdam: one launch updates a whole parameter group.

PyTorch's algorithm (``torch.optim.NAdam``, ``_single_tensor_nadam``), per element, step ``t``::

    g = -grad if maximize else grad
    p = p * (1 - lr * weight_decay)                 (weight_decay != 0, decoupled_weight_decay)
    g = g + weight_decay * p                        (weight_decay != 0, otherwise)
    m = lerp(m, g, 1 - beta1)
    v = beta2 * v + (1 - beta2) * g * g
    denom = sqrt(v / (1 - beta2^t)) + eps
    p = p + c_grad * g / denom                      c_grad = -lr (1 - mu_t) / (1 - mu_product)
    p = p + c_avg * m / denom                       c_avg = -lr mu_{t+1} / (1 - mu_product mu_{t+1})

``mu_t = beta1 (1 - 0.5 * 0.96^(t * momentum_decay))``; ``mu_product`` is the per-parameter
running product of ``mu`` (a float32 state, as in PyTorch). The host computes the factors in
double precision (:func:`nadam_scalars`, PyTorch's Python code) and passes them as fp64 bits.
The two parameter updates are rounded separately, as PyTorch's two ``addcdiv_`` calls are.
"""

from __future__ import annotations

import numpy as np

from .._triton import tl, triton
from .adam import adam_moments, adam_moments_twin
from .multi_tensor import bits, chunk_row, launch_table, param_grad, param_grad_twin, rnd, scalar, store

# ----------------------------------------------------------------------------------------------
# Kernel
# ----------------------------------------------------------------------------------------------


@triton.jit(do_not_specialize=["weight1_bits", "beta2_bits", "one_minus_beta2_bits", "bc2_bits", "eps_bits",
                               "weight_decay_bits", "decay_bits", "c_grad_bits", "c_avg_bits"])
def _nadam_kernel(
    table_ptr,  # int64 [chunks, 5]: param, grad, exp_avg, exp_avg_sq chunk addresses; element count
    weight1_bits: tl.int64,  # 1 - beta1
    beta2_bits: tl.int64, one_minus_beta2_bits: tl.int64,
    bc2_bits: tl.int64,  # 1 - beta2^t
    eps_bits: tl.int64, weight_decay_bits: tl.int64,
    decay_bits: tl.int64,  # 1 - lr * weight_decay
    c_grad_bits: tl.int64, c_avg_bits: tl.int64,
    ROW: tl.constexpr, DTYPE: tl.constexpr, COMPUTE: tl.constexpr, ALIGNED: tl.constexpr, BLOCK: tl.constexpr,
    MAXIMIZE: tl.constexpr, WEIGHT_DECAY: tl.constexpr, DECOUPLED: tl.constexpr,
):
    row, n, full = chunk_row(table_ptr, ROW, BLOCK)
    bc2 = scalar(bc2_bits, COMPUTE)
    eps = scalar(eps_bits, COMPUTE)
    c_grad = scalar(c_grad_bits, COMPUTE)
    c_avg = scalar(c_avg_bits, COMPUTE)
    for MASKED in tl.static_range(2):  # the full blocks unmasked (vectorised), then the masked tail
        for start in range(full if MASKED else 0, n if MASKED else full, BLOCK):
            offs, p_ptr, p, g = param_grad(row, start, n, weight_decay_bits, DTYPE, COMPUTE, ALIGNED, BLOCK, MAXIMIZE,
                                           WEIGHT_DECAY, MASKED, decay_bits, DECOUPLED)
            m, v = adam_moments(row, offs, n, g, weight1_bits, beta2_bits, one_minus_beta2_bits, DTYPE, COMPUTE,
                                ALIGNED, MASKED)
            denom = tl.sqrt(v / bc2) + eps
            p = rnd(p + c_grad * (g / denom), DTYPE).to(COMPUTE)  # two in-place updates in PyTorch: rounded between
            store(p_ptr, offs, p + c_avg * (m / denom), n, DTYPE, MASKED)

# ----------------------------------------------------------------------------------------------
# Launcher
# ----------------------------------------------------------------------------------------------


def nadam_mu(beta1: float, momentum_decay: float, step: float) -> tuple[float, float]:
    """(mu_t, mu_{t+1}) as PyTorch computes them."""
    mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
    mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
    return mu, mu_next


def nadam_scalars(*, lr: float, beta2: float, weight_decay: float, step: float, mu: float, mu_next: float,
                  mu_product: float) -> dict:
    """Per-step factors; ``mu_product`` already includes ``mu`` (PyTorch's ``mu_product *= mu``)."""
    mu_product_next = mu_product * mu_next
    return {"bc2": 1 - beta2**step, "decay": 1 - lr * weight_decay,
            "c_grad": -lr * (1.0 - mu) / (1.0 - mu_product), "c_avg": (-lr * mu_next) / (1.0 - mu_product_next)}


def nadam(params, grads, exp_avgs, exp_avg_sqs, *, lr: float, beta1: float, beta2: float, eps: float,
          weight_decay: float, step: float, mu: float, mu_next: float, mu_product: float, maximize: bool,
          decoupled: bool, config: dict | None = None) -> int:
    """One NAdam step for tensors (contiguous DeviceArrays of one dtype) that share the step and
    ``mu_product`` (already multiplied by this step's ``mu``)."""
    s = nadam_scalars(lr=lr, beta2=beta2, weight_decay=weight_decay, step=step, mu=mu, mu_next=mu_next,
                      mu_product=mu_product)
    args = (bits(1 - beta1), bits(beta2), bits(1 - beta2), bits(s["bc2"]), bits(eps), bits(weight_decay),
            bits(s["decay"]), bits(s["c_grad"]), bits(s["c_avg"]))
    return launch_table(_nadam_kernel, "NAdam", [params, grads, exp_avgs, exp_avg_sqs], args, config,
                        MAXIMIZE=bool(maximize), WEIGHT_DECAY=weight_decay != 0, DECOUPLED=bool(decoupled))


# ----------------------------------------------------------------------------------------------
# Numpy twin
# ----------------------------------------------------------------------------------------------


def nadam_twin(params, grads, exp_avgs, exp_avg_sqs, *, lr: float, beta1: float, beta2: float, eps: float,
               weight_decay: float, step: float, mu: float, mu_next: float, mu_product: float, maximize: bool,
               decoupled: bool, config: dict | None = None) -> int:
    s = nadam_scalars(lr=lr, beta2=beta2, weight_decay=weight_decay, step=step, mu=mu, mu_next=mu_next,
                      mu_product=mu_product)
    for i, param in enumerate(params):
        ct, p, g = param_grad_twin(param, grads[i], weight_decay=weight_decay, maximize=maximize,
                                   decay=s["decay"] if decoupled else None)
        c, dt = ct.type, param.dtype
        m, v = adam_moments_twin(exp_avgs[i], exp_avg_sqs[i], g, beta1, beta2)
        with np.errstate(over="ignore"):  # (v near the float32 top over bc2: inf, a zero step, as PyTorch's)
            denom = np.sqrt(v / c(s["bc2"])) + c(eps)
        p = (p + c(s["c_grad"]) * (g / denom)).astype(dt, copy=False).astype(ct, copy=False)
        param[...] = (p + c(s["c_avg"]) * (m / denom)).astype(dt, copy=False)
    return 1 if params else 0


__all__ = ["nadam", "nadam_mu", "nadam_scalars", "nadam_twin"]
