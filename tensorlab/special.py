"""``tensorlab.special``: the functions of ``torch.special`` that are ops tensorlab has, under
PyTorch's names (``expit`` is ``sigmoid``, ``special.logsumexp`` is ``logsumexp``, ...).

The rest of ``torch.special`` (gamma and Bessel functions, ``ndtr``/``ndtri``/``log_ndtr``,
``erfcx``, ``entr``, ``xlog1py``, ``zeta``, the orthogonal polynomials) needs kernels of its own
to match PyTorch's values and is not here.
"""

from __future__ import annotations

from .ops.composite_numeric import sinc
from .ops.elementwise_binary import xlogy
from .ops.elementwise_unary import erf, erfc, erfinv, exp2, expm1, log1p, logit, round, sigmoid
from .ops.reductions import log_softmax, logsumexp, softmax

expit = sigmoid

__all__ = ["expit", "exp2", "expm1", "erf", "erfc", "erfinv", "log1p", "logit", "logsumexp", "round", "sinc",
           "softmax", "log_softmax", "xlogy"]
