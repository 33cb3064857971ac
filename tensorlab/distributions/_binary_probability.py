"""The parametrisation of the families built on one success probability (Bernoulli, Geometric,
Binomial, NegativeBinomial): given as ``probs`` or as ``logits`` (exactly one of them; the other is
derived lazily, so whichever was given keeps its precision and its graph), with a ``total_count``
for the count families."""

from __future__ import annotations

import tensorlab as tl

from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


class BinaryProbability(Distribution):
    """Base of those families: stores the given one of ``probs``/``logits`` (also as ``_param``, whose
    shape is the batch shape) and, for the count families, ``total_count`` in its dtype."""

    def _init_probability(self, probs, logits, validate_args, total_count=None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, given = ("probs", probs) if probs is not None else ("logits", logits)
        if total_count is None:
            (param,) = broadcast_all(given)
        else:
            count, param = broadcast_all(total_count, given)
            self.total_count = count.type_as(param)
        setattr(self, name, param)
        self._param = param
        Distribution.__init__(self, param.size(), validate_args=validate_args)

    def _expand_probability(self, cls, batch_shape, _instance):
        """``expand`` for ``cls``: whichever of probs/logits exist (given or derived already), and the count."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = tl.Size(batch_shape)
        if "total_count" in self.__dict__:
            new.total_count = self.total_count.expand(batch_shape)
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
                new._param = new.__dict__[name]
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()
