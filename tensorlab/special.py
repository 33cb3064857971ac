"""``tensorlab.special``: the functions of ``torch.special`` that are ops tensorlab has, under
PyTorch's names (``expit`` is ``sigmoid``, ``gammaln`` is ``lgamma``, ``psi`` is ``digamma``,
``multigammaln`` is ``mvlgamma``, ``special.logsumexp`` is ``logsumexp``, ...).

Not here yet: ``zeta`` (the binary Hurwitz zeta), the Bessel functions J/Y/K, the orthogonal
polynomials, ``gammainc``/``gammaincc``, ``spherical_bessel_j0``, ``airy_ai``, ``log1p``-style
``logit`` variants PyTorch does not have either.
"""

from __future__ import annotations

from .ops.composite_numeric import sinc
from .ops.elementwise_binary import xlog1py, xlogy
from .ops.elementwise_unary import (
           digamma,
           erf,
           erfc,
           erfinv,
           exp2,
           expm1,
           i0,
           lgamma,
           log1p,
           logit,
           mvlgamma,
           polygamma,
           round,
           sigmoid,
)
from .ops.elementwise_unary import special_entr as entr
from .ops.elementwise_unary import special_erfcx as erfcx
from .ops.elementwise_unary import special_i0e as i0e
from .ops.elementwise_unary import special_i1 as i1
from .ops.elementwise_unary import special_i1e as i1e
from .ops.elementwise_unary import special_log_ndtr as log_ndtr
from .ops.elementwise_unary import special_ndtr as ndtr
from .ops.elementwise_unary import special_ndtri as ndtri
from .ops.reductions import log_softmax, logsumexp, softmax

expit = sigmoid
gammaln = lgamma
psi = digamma
multigammaln = mvlgamma

__all__ = ["expit", "exp2", "expm1", "erf", "erfc", "erfcx", "erfinv", "log1p", "logit", "logsumexp", "round", "sinc",
           "softmax", "log_softmax", "xlogy", "xlog1py", "gammaln", "digamma", "psi", "polygamma", "multigammaln",
           "i0", "i0e", "i1", "i1e", "ndtr", "ndtri", "log_ndtr", "entr"]
