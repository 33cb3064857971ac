"""PyTorch's deprecated scalars-first overloads (``addmm(beta, input, alpha, m1, m2)``,
``x.addcmul(value, t1, t2)``, ``add(x, alpha, other)``, ...): taken with a warning, and equal to
the keyword forms, as in PyTorch 2.15."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy


def _r(rng, *shape, device):
    return tl.tensor(rng.standard_normal(shape).astype(np.float32), device=device)


def _same(got, expected):
    np.testing.assert_allclose(to_numpy(got), to_numpy(expected), rtol=1e-6, atol=1e-6)


def test_beta_alpha_family(device):
    rng = np.random.default_rng(0)
    b1, b2, o, ob = _r(rng, 2, 3, 4, device=device), _r(rng, 2, 4, 5, device=device), _r(rng, 3, 5, device=device), \
        _r(rng, 2, 3, 5, device=device)
    m1, m2, v, o2 = _r(rng, 3, 4, device=device), _r(rng, 4, 5, device=device), _r(rng, 4, device=device), \
        _r(rng, 3, device=device)
    u1, u2, ar = _r(rng, 3, device=device), _r(rng, 4, device=device), _r(rng, 3, 4, device=device)
    cases = [
        (lambda: tl.addmm(2, o, 3, m1, m2), lambda: tl.addmm(o, m1, m2, beta=2, alpha=3)),
        (lambda: tl.addmm(2, o, m1, m2), lambda: tl.addmm(o, m1, m2, beta=2)),
        (lambda: o.addmm(2, 3, m1, m2), lambda: o.addmm(m1, m2, beta=2, alpha=3)),
        (lambda: o.clone().addmm_(2, m1, m2), lambda: o.clone().addmm_(m1, m2, beta=2)),
        (lambda: tl.addmv(2, o2, 3, m1, v), lambda: tl.addmv(o2, m1, v, beta=2, alpha=3)),
        (lambda: o2.clone().addmv_(2, 3, m1, v), lambda: o2.clone().addmv_(m1, v, beta=2, alpha=3)),
        (lambda: tl.addr(2, ar, 3, u1, u2), lambda: tl.addr(ar, u1, u2, beta=2, alpha=3)),
        (lambda: ar.clone().addr_(2, u1, u2), lambda: ar.clone().addr_(u1, u2, beta=2)),
        (lambda: tl.baddbmm(2, ob, 3, b1, b2), lambda: tl.baddbmm(ob, b1, b2, beta=2, alpha=3)),
        (lambda: ob.clone().baddbmm_(2, b1, b2), lambda: ob.clone().baddbmm_(b1, b2, beta=2)),
        (lambda: tl.addbmm(2, o, 0.5, b1, b2), lambda: tl.addbmm(o, b1, b2, beta=2, alpha=0.5)),
        (lambda: o.clone().addbmm_(2.0, 0.5, b1, b2), lambda: o.clone().addbmm_(b1, b2, beta=2.0, alpha=0.5)),
    ]
    for old, new in cases:
        with pytest.warns(UserWarning, match="This overload of .* is deprecated"):
            got = old()
        _same(got, new())


def test_value_and_alpha_families(device):
    t = tl.tensor([1.5], device=device)
    for old, expected in [(lambda: tl.addcmul(t, 2, t, t), 6.0), (lambda: t.addcmul(2, t, t), 6.0),
                          (lambda: t.clone().addcmul_(2, t, t), 6.0), (lambda: tl.addcdiv(t, 2, t, t), 3.5),
                          (lambda: t.clone().addcdiv_(2, t, t), 3.5), (lambda: tl.add(t, 2, t), 4.5),
                          (lambda: t.add(2, t), 4.5), (lambda: tl.sub(t, 2, t), -1.5),
                          (lambda: t.clone().add_(2, t), 4.5), (lambda: t.clone().sub_(2, t), -1.5)]:
        with pytest.warns(UserWarning, match="is deprecated"):
            assert old().item() == expected


def test_a_wrong_deprecated_call_raises_type_error():
    t, m = tl.ones(1), tl.ones(2, 2)
    with pytest.raises(TypeError, match="multiple values for argument 'alpha'"):
        tl.add(t, 2, t, alpha=3)
    with pytest.raises(TypeError, match="addmm\\(\\) takes 3 positional arguments but 4 were given"):
        tl.addmm(m, m, m, m)
    with pytest.raises(TypeError):
        tl.addcmul(t, t, t, t)
