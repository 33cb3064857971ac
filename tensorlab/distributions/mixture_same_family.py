"""``MixtureSameFamily(mixture_distribution, component_distribution)``: a (batch of) mixture(s) of ``k``
components of one family, weighted by a ``Categorical`` over ``k`` — e.g. the Gaussian mixture a
mixture density network predicts.

Shapes: the components are the *rightmost batch dimension* of ``component_distribution``, so a
component batch ``B + (k,)`` with event ``E`` makes a mixture of batch ``B`` and event ``E``; the
``Categorical``'s batch must broadcast against ``B`` and its ``k`` must match. Every formula below
therefore works on "component-axis" tensors laid out as ``... + (k,) + E``: a value ``x`` of shape
``... + B + E`` gets a size-1 component axis inserted before its event dims, and the mixture weights
``B + (k,)`` get size-1 event dims appended, after which broadcasting lines everything up.

- ``log_prob(x) = logsumexp_k(log w_k + log p_k(x))`` (stable for very unlikely components);
- ``cdf(x) = sum_k w_k F_k(x)``; ``mean = sum_k w_k mu_k``; ``variance`` by the law of total
  variance, ``sum_k w_k var_k + sum_k w_k (mu_k - mean)^2``;
- ``sample`` draws a component index per sample and picks that component's draw (all components
  are drawn: one batched call instead of a data-dependent selection). The choice of a component is
  discrete, so there is no ``rsample``, as in PyTorch.
"""

from __future__ import annotations

import tensorlab as tl

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """``MixtureSameFamily(Categorical(probs=pi), Normal(mu, sigma))`` with ``pi``, ``mu``, ``sigma``
    of shape (N, k): batch (N,), event ()."""

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args: bool | None = None) -> None:
        # (PyTorch's messages, spacing included, so code matching on them keeps working)
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "tensorlab.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "tensorlab.distributions.Distribution")
        mixture_batch = tuple(mixture_distribution.batch_shape)
        batch = tuple(component_distribution.batch_shape[:-1])
        if any(a != b and 1 not in (a, b) for a, b in zip(mixture_batch[::-1], batch[::-1])):
            raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_distribution.batch_shape}) is not "
                             f"compatible with `component_distribution.batch_shape`({batch})")
        k_mixture = mixture_distribution.logits.shape[-1]
        k_components = component_distribution.batch_shape[-1]
        if k_mixture != k_components:
            raise ValueError(f"`mixture_distribution component` ({k_mixture}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({k_components})")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = k_mixture
        super().__init__(batch_shape=batch, event_shape=component_distribution.event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MixtureSameFamily, _instance)
        batch = tuple(batch_shape)
        new._mixture_distribution = self._mixture_distribution.expand(batch)
        new._component_distribution = self._component_distribution.expand(batch + (self._num_component,))
        new._num_component = self._num_component
        super(MixtureSameFamily, new).__init__(batch_shape=batch, event_shape=self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    # -- the component axis ------------------------------------------------------------------------
    @property
    def _component_axis(self) -> int:
        """Where the component axis sits in component-axis tensors: just before the event dims."""
        return -1 - len(self.event_shape)

    def _weights(self):
        """The mixture weights ``B + (k,)`` with size-1 event dims appended (broadcast against
        ``component_distribution.mean`` and the like)."""
        probs = self._mixture_distribution.probs
        return probs.reshape(tuple(probs.shape) + (1,) * len(self.event_shape))

    def _per_component(self, x):
        """``x`` (``... + B + E``) with a size-1 component axis, so each component sees it."""
        return x.unsqueeze(self._component_axis)

    # -- moments and probabilities -----------------------------------------------------------------
    @property
    def mean(self):
        return tl.sum(self._weights() * self._component_distribution.mean, dim=self._component_axis)

    @property
    def variance(self):
        weights, means = self._weights(), self._component_distribution.mean
        within = tl.sum(weights * self._component_distribution.variance, dim=self._component_axis)
        between = tl.sum(weights * (means - self._per_component(self.mean)) ** 2, dim=self._component_axis)
        return within + between

    def cdf(self, x):
        # (as PyTorch's: the component axis is the last one of the components' cdf, event dims
        # reduced by the component family itself)
        return tl.sum(self._component_distribution.cdf(self._per_component(x)) * self._mixture_distribution.probs,
                     dim=-1)

    def log_prob(self, x):
        if self._validate_args:
            self._validate_sample(x)
        log_weights = tl.log_softmax(self._mixture_distribution.logits, dim=-1)
        return tl.logsumexp(self._component_distribution.log_prob(self._per_component(x)) + log_weights, dim=-1)

    def sample(self, sample_shape=()):
        with tl.no_grad():
            sample_shape = tuple(sample_shape)
            leading = sample_shape + tuple(self.batch_shape)
            draws = self._component_distribution.sample(sample_shape)  # leading + (k,) + E
            # one component index per sample and mixture: a Categorical whose batch broadcasts against
            # the mixture's is expanded first, so every mixture of the batch chooses independently
            mixture = self._mixture_distribution
            if tuple(mixture.batch_shape) != tuple(self.batch_shape):
                mixture = mixture.expand(self.batch_shape)
            choice = mixture.sample(sample_shape)
            # the chosen index repeated over the event dims, then one gather along the component axis
            event = tuple(self.event_shape)
            index = choice.reshape(tuple(choice.shape) + (1,) * (1 + len(event))).expand(leading + (1,) + event)
            return tl.gather(draws, len(leading), index).squeeze(len(leading))

    def __repr__(self):
        return f"MixtureSameFamily(\n  {self._mixture_distribution},\n  {self._component_distribution})"
