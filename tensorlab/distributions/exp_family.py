"""``ExponentialFamily``: distributions with density ``h(x) exp(<t(x), theta> - F(theta))``. A
subclass gives its natural parameters ``theta`` and log-normalizer ``F``; the base class derives
the entropy (and ``kl.py`` the KL divergence between two members of one family, a Bregman
divergence of ``F``) with autograd."""

from __future__ import annotations

import tensorlab as tl

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions."""

    @property
    def _natural_params(self):
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """``E[log h(x)]``."""
        raise NotImplementedError

    def entropy(self):
        # H = F(theta) - <theta, grad F(theta)> - E[log h(x)]
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with tl.enable_grad():
            lg_normal = self._log_normalizer(*nparams)
            gradients = tl.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for p, g in zip(nparams, gradients):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
