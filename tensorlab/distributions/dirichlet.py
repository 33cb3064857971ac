"""``Dirichlet(concentration)``: a distribution over the simplex of the last dimension.

Sampling normalises independent Gamma(concentration_i, 1) draws (``gamma._standard_gamma``); like
``Gamma`` it is not reparametrised here (``rsample`` raises NotImplementedError)."""

from __future__ import annotations

import tensorlab as tl
from tensorlab.nn.functional import one_hot

from . import constraints
from .exp_family import ExponentialFamily
from .gamma import _standard_gamma

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution; event shape ``concentration.shape[-1:]``."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = False  # see the module docstring

    def __init__(self, concentration, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = tl.Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        shape = tuple(self._extended_shape(sample_shape))
        with tl.no_grad():
            # in float64 whatever the dtype, as PyTorch's _sample_dirichlet: for small concentrations
            # float32 gamma draws all underflow to ``tiny`` and Beta(0.01, 0.01) gave 0.5 a sixth of the time
            conc = self.concentration.expand(shape)
            g = _standard_gamma(conc.double())
            x = (g / g.sum(-1, keepdim=True)).to(conc.dtype)
            # as PyTorch's min(nextafter(1, 0), max(tiny, x)): nan (inf / inf, from an infinite concentration)
            # becomes tiny, and the largest value is the float just below 1 (1 - eps / 2, not 1 - eps)
            finfo = tl.finfo(x.dtype)
            return tl.where(x.isnan(), finfo.tiny, x).clamp(min=finfo.tiny, max=1 - finfo.eps / 2)

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__}.rsample: tensorlab has no reparametrised (differentiable) "
                                  "gamma sampler; use sample()")

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (tl.xlogy(self.concentration - 1.0, value).sum(-1) + tl.lgamma(self.concentration.sum(-1))
                - tl.lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        # all concentrations < 1: the density peaks at a vertex (the largest coordinate's)
        mask = (self.concentration < 1).all(dim=-1, keepdim=True)
        vertex = one_hot(mode.argmax(dim=-1), concentrationm1.shape[-1]).to(mode)
        return tl.where(mask, vertex, mode)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return self.concentration * (con0 - self.concentration) / (con0.pow(2) * (con0 + 1))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (tl.lgamma(self.concentration).sum(-1) - tl.lgamma(a0) - (k - a0) * tl.digamma(a0)
                - ((self.concentration - 1.0) * tl.digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return x.lgamma().sum(-1) - tl.lgamma(x.sum(-1))
