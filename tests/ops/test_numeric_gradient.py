"""``gradient`` (tensorlab/ops/numeric_gradient.py) against ``numpy.gradient``, which takes the
same spacings (a number, a number per dim, coordinates per dim) and edge orders."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy

_RNG = np.random.default_rng(0)
_A = _RNG.standard_normal((4, 5, 3))
_COORDS = [np.cumsum(_RNG.random(n) + 0.1) for n in _A.shape]


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_equals_numpys(edge_order, device):
    x = tl.tensor(_A, device=device)
    cases = [  # (tensorlab keywords, numpy arguments)
        ({}, ((), {})),
        ({"spacing": 2.0}, ((2.0,), {})),
        ({"spacing": [2, 3, 0.5]}, ((2, 3, 0.5), {})),
        ({"spacing": 0.5, "dim": 1}, ((0.5,), {"axis": 1})),
        ({"spacing": [1.5, 2.5], "dim": [0, -1]}, ((1.5, 2.5), {"axis": (0, 2)})),
        ({"spacing": [tl.tensor(c, device=device) for c in _COORDS]}, (tuple(_COORDS), {})),
        ({"spacing": [tl.tensor(_COORDS[1], device=device)], "dim": 1}, ((_COORDS[1],), {"axis": 1})),
    ]
    for kw, (np_args, np_kw) in cases:
        got = tl.gradient(x, edge_order=edge_order, **kw)
        want = np.gradient(_A, *np_args, edge_order=edge_order, **np_kw)
        want = want if isinstance(want, (list, tuple)) else [want]
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(to_numpy(g), w, rtol=1e-10, atol=1e-12)


def test_gradient_of_integers_is_float_and_differentiable():
    ints = np.array([[1, 4, 9, 16], [2, 3, 5, 8], [0, 0, 1, 1]])
    (g0, g1) = tl.gradient(tl.tensor(ints))
    assert g0.dtype is tl.float32 and g1.dtype is tl.float32
    np.testing.assert_allclose(to_numpy(g1), np.gradient(ints, axis=1), rtol=1e-6)
    x = tl.tensor(_A, requires_grad=True)
    coords = [tl.tensor(c) for c in _COORDS]
    sum(g.sum() for g in tl.gradient(x * x, spacing=coords, edge_order=2)).backward()
    # the sum of all partial derivatives is linear in y = x^2: its gradient is 2 x times the
    # weights w_i = that sum for the unit input e_i
    units = np.eye(_A.size).reshape((_A.size,) + _A.shape)
    w = np.array([sum(g.sum() for g in np.gradient(u, *_COORDS, edge_order=2)) for u in units]).reshape(_A.shape)
    np.testing.assert_allclose(to_numpy(x.grad), 2 * _A * w, rtol=1e-9, atol=1e-9)


def test_gradient_errors():
    x = tl.tensor(_A)
    with pytest.raises(RuntimeError, match="only supports edge_order=1 and edge_order=2"):
        tl.gradient(x, edge_order=3)
    with pytest.raises(RuntimeError, match="a list of length equal to 'self.dim\\(\\) = 3'.*got a list of length 2"):
        tl.gradient(x, spacing=[1.0, 2.0])
    with pytest.raises(RuntimeError, match="spacing argument of length 2 and a dim argument of length 1"):
        tl.gradient(x, spacing=[1.0, 2.0], dim=0)
    with pytest.raises(RuntimeError, match="each dimension size to be at least edge_order\\+1"):
        tl.gradient(x[:, :2], dim=1, edge_order=2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        tl.gradient(x, dim=3)
    with pytest.raises(RuntimeError, match="1-D with 5 elements \\(the size of dim 1\\), but got shape \\[4\\]"):
        tl.gradient(x, spacing=[tl.tensor(_COORDS[0])], dim=1)
    with pytest.raises(RuntimeError, match="each element of spacing to have one dimension"):
        tl.gradient(x, spacing=[tl.tensor(1.0)] * 3)
    with pytest.raises(NotImplementedError, match="does not support uint8"):
        tl.gradient(tl.ones(3, dtype=tl.uint8))
