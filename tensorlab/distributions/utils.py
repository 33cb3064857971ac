"""Helpers shared by the distributions, as ``torch.distributions.utils`` has them: broadcasting
parameters, logits <-> probs, clamping probabilities, and ``lazy_property`` (a parameter given as
probs computes its logits on first use and keeps them)."""

from __future__ import annotations

from functools import update_wrapper

import tensorlab as tl

euler_constant = 0.57721566490153286060  # Euler-Mascheroni constant

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property"]


def _is_number(v) -> bool:
    # PyTorch's _Number: int, float, bool (and their subclasses, so np.float64); other numbers.Number types
    # (np.float32, np.int64, Fraction, complex) are refused by broadcast_all, as there
    return isinstance(v, (int, float))


def broadcast_all(*values):
    """Broadcast tensors and numbers together; numbers become tensors of the first tensor's dtype and
    device (of the default dtype when all are numbers), as PyTorch's ``broadcast_all``."""
    for v in values:
        if not (isinstance(v, tl.Tensor) or _is_number(v)):
            raise ValueError(f"Input arguments must all be instances of Number or tensorlab.Tensor (got "
                             f"{type(v).__module__}.{type(v).__qualname__}: {v!r}).")
    if not all(isinstance(v, tl.Tensor) for v in values):
        options = {"dtype": tl.get_default_dtype()}
        for v in values:
            if isinstance(v, tl.Tensor):
                options = {"dtype": v.dtype, "device": v.device}
                break
        values = [v if isinstance(v, tl.Tensor) else tl.tensor(v, **options) for v in values]
    return tl.broadcast_tensors(*values)


def _standard_normal(shape, dtype, device):
    return tl.randn(tuple(shape), dtype=dtype, device=device)


def _sum_rightmost(value, dim: int):
    """Sum out the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary: bool = False):
    """Binary: ``sigmoid`` of the log-odds; otherwise a softmax over the last dimension."""
    if is_binary:
        return tl.sigmoid(logits)
    return tl.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Clamp into ``[eps, 1 - eps]`` (eps of the dtype), so that their logs stay finite."""
    eps = tl.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary: bool = False):
    """Binary: the log-odds ``log p - log1p(-p)``; otherwise ``log p`` (of the clamped probs)."""
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return tl.log(ps_clamped) - tl.log1p(-ps_clamped)
    return tl.log(ps_clamped)


class lazy_property:  # noqa: N801  (PyTorch's name)
    """A property computed on first access (with grad enabled, so logits derived from probs stay
    differentiable) and then stored on the instance, replacing the descriptor."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        with tl.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value
