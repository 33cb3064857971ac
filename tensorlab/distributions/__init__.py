"""``tensorlab.distributions``: PyTorch's ``torch.distributions`` core, composed from tensorlab ops
(so sampling, log_prob and entropy run on cpu and cuda and are differentiable where PyTorch's are).

Families: Bernoulli, Beta, Binomial, Categorical, Dirichlet, Exponential, Gamma, Geometric, Gumbel,
Independent, Laplace, LogNormal, MixtureSameFamily, NegativeBinomial, Normal, OneHotCategorical(StraightThrough),
Poisson, StudentT, Uniform;
``kl_divergence``/``register_kl``; ``constraints``; the helpers of ``distributions.utils``.

Differences from PyTorch: Gamma, Beta and Dirichlet ``sample()`` but have no ``rsample`` (tensorlab
has no differentiable gamma sampler; ``has_rsample`` is False), ``Gamma.cdf`` raises (no
incomplete gamma function), ``StudentT.rsample`` is not differentiable in ``df`` (raises when df
requires grad), ``LogNormal`` and ``Gumbel`` are written directly rather than as a
``TransformedDistribution``. Not here: transforms and ``TransformedDistribution``, and
``MultivariateNormal`` (tensorlab has no Cholesky factorisation)."""

from __future__ import annotations

from . import constraints, utils
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .mixture_same_family import MixtureSameFamily
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .poisson import Poisson
from .studentT import StudentT
from .uniform import Uniform

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Dirichlet", "Distribution", "Exponential",
           "ExponentialFamily", "Gamma", "Geometric", "Gumbel", "Independent", "Laplace", "LogNormal",
           "MixtureSameFamily", "NegativeBinomial", "Normal", "OneHotCategorical", "OneHotCategoricalStraightThrough",
           "Poisson", "StudentT", "Uniform",
           "constraints", "kl_divergence", "register_kl", "utils"]
