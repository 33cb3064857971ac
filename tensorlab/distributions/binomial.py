"""``Binomial(total_count=1, probs=None, logits=None)``: the number of successes in ``total_count``
independent Bernoulli(probs) trials.

Sampling sums Bernoulli draws (tensorlab has no binomial sampler op): memory and time grow with
``max(total_count)``, fine for the small counts it is meant for; the trials are drawn in chunks
so a large count costs time, not memory."""

from __future__ import annotations

import tensorlab as tl

from . import constraints
from ._binary_probability import BinaryProbability

__all__ = ["Binomial"]

_TRIALS_PER_CHUNK_ELEMENTS = 1 << 22  # Bernoulli draws held at once while sampling


def _clamp_by_zero(x):
    # max(x, 0) with gradient 1/2 at x == 0 (as PyTorch: its logits gradient is then symmetric)
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(BinaryProbability):
    """The binomial distribution, parametrised by ``probs`` or ``logits`` (not both)."""

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args: bool | None = None) -> None:
        self._init_probability(probs, logits, validate_args, total_count)

    def expand(self, batch_shape, _instance=None):
        return self._expand_probability(Binomial, batch_shape, _instance)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with tl.no_grad():
            counts = self.total_count.detach().expand(shape)
            probs = self.probs.detach().expand(shape)
            # as torch.binomial (whose results these follow for total_count that is not an integer, allowed
            # with validate_args=False): floor(total_count) trials of q = min(p, 1 - p), and total_count - k
            # where p > 1/2, so p = 1 gives total_count itself; total_count <= 0 gives 0, p = nan gives nan.
            # (For total_count * q >= 10 torch's BTRS sampler draws from the real-n binomial instead, whose
            # mean is total_count * q rather than floor(total_count) * q.)
            flip = probs > 0.5
            q = tl.where(flip, 1 - probs, probs)
            q = tl.where(q > 0, q, 0.0)  # p > 1, p < 0 (validate_args=False) and nan draw no successes
            trials_n = counts.floor()
            k = tl.zeros(shape, dtype=probs.dtype, device=probs.device)
            n_max = int(trials_n.max()) if trials_n.numel() else 0
            chunk = max(1, _TRIALS_PER_CHUNK_ELEMENTS // max(1, trials_n.numel()))
            for start in range(0, n_max, chunk):
                n = min(chunk, n_max - start)
                trials = tl.bernoulli(q.expand((n,) + shape))
                # trial i counts where i < floor(total_count): each element's draw ignores the others' counts
                index = tl.arange(start, start + n, dtype=probs.dtype, device=probs.device)
                live = index.view((n,) + (1,) * len(shape)) < trials_n
                k = k + (trials * live).sum(0)
            result = tl.where(flip, counts - k, k)
            result = tl.where(probs.isnan(), float("nan"), result)
            return tl.where(counts <= 0, 0.0, result)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = tl.lgamma(self.total_count + 1)
        log_factorial_k = tl.lgamma(value + 1)
        log_factorial_nmk = tl.lgamma(self.total_count - value + 1)
        # n * log(1 + exp(logits)), stably
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * tl.log1p(tl.exp(-tl.abs(self.logits))) - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(tl.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True):
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = tl.arange(1 + total_count, dtype=self._param.dtype, device=self._param.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
