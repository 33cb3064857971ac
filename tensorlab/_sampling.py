"""Samplers built on the uniform generator (``_random``): ``multinomial`` and the in-place fills
``exponential_``, ``geometric_``, ``log_normal_``, ``cauchy_``, plus ``Tensor.bernoulli``.

Each turns uniform samples into the wanted distribution with registered elementwise ops, so it
runs on both devices and a seed reproduces it. The streams differ from PyTorch's (a different
generator); the distributions, arguments, dtypes and errors are PyTorch's (torch 2.13).

``multinomial`` draws with replacement by inverting the normalised cumulative sum
(``searchsorted`` of uniform samples), and without replacement as PyTorch does: the ``k``
largest ``p / E`` for exponential samples ``E`` (a Gumbel top-k).
"""

from __future__ import annotations

import math

from . import _dtype as D
from ._random import _generator_for, bernoulli, uniform_
from ._tensor import Tensor, tensor_method

__all__ = ["multinomial"]


def _uniform_like(t: Tensor, generator) -> Tensor:
    """Uniform samples in [0, 1) of ``t``'s shape and floating dtype (float32 for halves: the
    transforms below need the resolution)."""
    from ._factories import empty

    dtype = D.float64 if t.dtype is D.float64 else D.float32
    return uniform_(empty(t.shape, dtype=dtype, device=t.device), generator=generator)


def _continuous(op: str, t: Tensor, name: str) -> None:
    if not t.dtype.is_floating_point:
        raise RuntimeError(f"{op}: {name} distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {D.torch_name(t.dtype)}")


@tensor_method
def exponential_(self: Tensor, lambd: float = 1.0, *, generator=None) -> Tensor:
    """Fill with Exponential(``lambd``) samples: ``-log(1 - U) / lambd``."""
    _continuous("exponential_", self, "Exponential")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    u = _uniform_like(self, generator)
    return self.copy_((-u).log1p() * (-1.0 / lambd))


@tensor_method
def geometric_(self: Tensor, p: float, *, generator=None) -> Tensor:
    """Fill with Geometric(``p``) samples on {1, 2, ...}: the number of trials to the first success."""
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if self.dtype is D.bool and self.numel():  # (integers are filled, but bool has no kernel in PyTorch)
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    u = _uniform_like(self, generator)
    # ceil(log(1 - U) / log(1 - p)); 1 - U is in (0, 1], so the count is at least 1
    trials = ((-u).log1p() / math.log1p(-p)).ceil().clamp_min(1)
    return self.copy_(trials)


@tensor_method
def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator=None) -> Tensor:
    """Fill with samples whose logarithm is Normal(``mean``, ``std``)."""
    if not self.dtype.is_floating_point:
        raise NotImplementedError(f"log_normal_(): \"log_normal_cpu\" not implemented for "
                                  f"'{D.torch_name(self.dtype)}'")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    z = self.new_empty(self.shape, dtype=D.float64 if self.dtype is D.float64 else D.float32)
    return self.copy_(z.normal_(mean, std, generator=generator).exp())


@tensor_method
def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator=None) -> Tensor:
    """Fill with Cauchy(``median``, ``sigma``) samples: ``median + sigma * tan(pi * (U - 1/2))``."""
    _continuous("cauchy_", self, "Cauchy")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    u = _uniform_like(self, generator)
    return self.copy_(((u - 0.5) * math.pi).tan() * sigma + median)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None, out=None) -> Tensor:
    """``num_samples`` category indices per row of ``input`` (1-d or 2-d non-negative weights,
    not necessarily normalised), with or without replacement: int64, ``(rows, num_samples)``."""
    from ._factories import empty

    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if out is not None:  # int64 (PyTorch's message), resized to the result: checked before sampling
        from .ops.elementwise_common import exact_out

        if isinstance(out, Tensor) and out.dtype is not D.int64:
            raise RuntimeError(f"multinomial expects Long tensor out, got: {D.torch_name(out.dtype)}")
        out = exact_out("multinomial", out, input, dtype=D.int64)
    if input.ndim not in (1, 2):
        raise RuntimeError("multinomial(): prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{D.torch_name(input.dtype)}")
    if num_samples <= 0:
        raise RuntimeError("multinomial(): cannot sample n_sample <= 0 samples")
    categories = input.shape[-1]
    if not replacement and num_samples > categories:
        raise RuntimeError("multinomial(): cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if categories > 2**24:
        raise RuntimeError("multinomial(): number of categories cannot exceed 2^24")
    probs = (input if input.ndim == 2 else input.unsqueeze(0)).detach()
    probs = probs.to(D.float64 if probs.dtype is D.float64 else D.float32)
    if probs.shape[0] and bool((~probs.isfinite() | (probs < 0)).any().item()):
        raise RuntimeError("multinomial(): probability tensor contains either `inf`, `nan` or element < 0")
    if probs.shape[0] and bool((probs.sum(-1) <= 0).any().item()):
        raise RuntimeError("multinomial(): invalid multinomial distribution (sum of probabilities <= 0)")
    g = _generator_for(probs.device, generator, "multinomial")
    rows = probs.shape[0]
    if replacement:
        cdf = probs.cumsum(-1)
        cdf = cdf / cdf[:, -1:]  # the last entry is exactly 1: every u in [0, 1) finds a category
        u = uniform_(empty(rows, num_samples, dtype=cdf.dtype, device=cdf.device), generator=g)
        from .ops.sorting import searchsorted

        result = searchsorted(cdf.contiguous(), u, right=True).clamp_max(categories - 1)
    else:
        e = empty(probs.shape, dtype=probs.dtype, device=probs.device).exponential_(generator=g)
        result = (probs / e).topk(num_samples, -1).indices
    result = result if input.ndim == 2 else result[0]
    if out is None:
        return result
    from .ops.elementwise_common import write_out

    return write_out(result, out)


tensor_method(multinomial, name="multinomial")
tensor_method(bernoulli, name="bernoulli")
