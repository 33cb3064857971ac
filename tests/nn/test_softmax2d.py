"""``nn.Softmax2d``: softmax over the channel dim (-3) of a 3-D or 4-D input, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn as nn
from tests.helpers import assert_close

RNG = np.random.default_rng(29)


def _np_softmax(z, dim):
    e = np.exp(z - z.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


@pytest.mark.parametrize("shape", [(3, 2, 4), (2, 3, 2, 2)])
def test_softmax2d_values(shape, device):
    x = RNG.standard_normal(shape)
    y = nn.Softmax2d()(tl.tensor(x, device=device))
    assert_close(y, _np_softmax(x, -3))
    assert repr(nn.Softmax2d()) == "Softmax2d()"


def test_softmax2d_gradcheck():
    x = tl.tensor(RNG.standard_normal((2, 3, 2, 2)), requires_grad=True)
    assert tl.autograd.gradcheck(nn.Softmax2d(), (x,))


@pytest.mark.parametrize("ndim", [1, 2, 5])
def test_softmax2d_rank_error(ndim):
    with pytest.raises(ValueError, match=f"Softmax2d: expected input to be 3D or 4D, got {ndim}D instead"):
        nn.Softmax2d()(tl.ones(*(2,) * ndim))
