"""Gamma family, Bessel i0/i1, the normal distribution's functions, entr and xlog1py: known values,
poles, infinities, large arguments, half dtypes, call forms, Tensor methods and errors (the
generic value/gradient tests are the OpInfo entries in tests/opinfo/elementwise.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl
from tensorlab_kernels.elementwise._gamma import lgamma_np
from tensorlab_kernels.elementwise._normal import erfcx_np, ndtri_np
from tests.helpers import to_numpy

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda"))]
INF, NAN = math.inf, math.nan
EULER = 0.57721566490153286061


def _t(values, device, dtype=tl.float64):
    return tl.tensor(np.asarray(values, dtype=np.float64), dtype=dtype, device=device)


def _check(got, expected, rtol=1e-13, atol=0.0):
    np.testing.assert_allclose(to_numpy(got).astype(np.float64), np.asarray(expected, dtype=np.float64),
                               rtol=rtol, atol=atol, equal_nan=True)


@pytest.mark.parametrize("device", DEVICES)
def test_known_values(device):
    _check(tl.lgamma(_t([0.5, 1.0, 2.0, 3.0], device)), [math.log(math.sqrt(math.pi)), 0.0, 0.0, math.log(2.0)])
    _check(tl.digamma(_t([1.0, 0.5], device)), [-EULER, -EULER - 2 * math.log(2)])
    _check(tl.polygamma(1, _t([1.0, 0.5], device)), [math.pi**2 / 6, math.pi**2 / 2], rtol=1e-9)  # (PyTorch's series)
    _check(tl.polygamma(2, _t([1.0], device)), [-2 * 1.2020569031595942854])  # -2 zeta(3)
    _check(tl.polygamma(3, _t([0.5], device)), [math.pi**4])
    # negative half-integers with an odd zeta order: two of the three sums cancel exactly and the
    # small third is the value (mpmath); float32 lost it when it was subtracted first
    for dtype, rtol in ((tl.float32, 1e-6), (tl.float64, 1e-13)):
        _check(tl.polygamma(4, _t([-2.5, -10.5, -171.5], device, dtype)),
               [-0.067995999506731363, -0.00040701383905697659, -6.8552805006624836e-9], rtol=rtol)
        _check(tl.polygamma(2, _t([-171.5], device, dtype)), [-3.3801769525852779e-5], rtol=rtol)
    _check(tl.i0(_t([0.0, 1.0], device)), [1.0, 1.2660658777520082])
    _check(tl.special.i1(_t([0.0, 1.0], device)), [0.0, 0.5651591039924851])
    _check(tl.special.i0e(_t([1.0], device)), [1.2660658777520082 / math.e])
    _check(tl.special.erfcx(_t([0.0, 1.0], device)), [1.0, math.e * math.erfc(1.0)])
    _check(tl.special.ndtri(_t([0.975, 0.5, 0.025], device)), [1.959963984540054, 0.0, -1.959963984540054])
    _check(tl.special.ndtr(_t([0.0, 1.959963984540054], device)), [0.5, 0.975])
    _check(tl.special.log_ndtr(_t([0.0], device)), [math.log(0.5)])
    _check(tl.special.entr(_t([0.5, 1.0], device)), [0.5 * math.log(2), 0.0])
    _check(tl.mvlgamma(_t([3.0], device), 3), [math.log(math.pi) * 1.5 + math.lgamma(3) + math.lgamma(2.5)
                                              + math.lgamma(2)])


@pytest.mark.parametrize("device", DEVICES)
def test_poles_infinities_nan(device):
    x = _t([0.0, -0.0, -1.0, -2.0, INF, -INF, NAN], device)
    _check(tl.lgamma(x), [INF, INF, INF, INF, INF, INF, NAN])
    _check(tl.digamma(x), [-INF, INF, NAN, NAN, INF, NAN, NAN])  # PyTorch: digamma(±0) = ∓inf
    _check(tl.polygamma(2, x), [-INF, -INF, -INF, -INF, NAN, -INF, NAN])  # (+inf: Cephes' 0 * inf)
    _check(tl.polygamma(3, x), [INF, INF, INF, INF, NAN, INF, NAN])
    _check(tl.i0(x)[4:], [NAN, NAN, NAN])  # exp(x) / sqrt(x) = inf / inf, as PyTorch
    _check(tl.special.i0e(x)[4:], [0.0, 0.0, NAN])
    _check(tl.special.i1e(x)[4:], [0.0, -0.0, NAN])
    _check(tl.special.erfcx(x)[4:], [0.0, INF, NAN])
    _check(tl.special.log_ndtr(x)[4:], [0.0, -INF, NAN])
    _check(tl.special.entr(x), [0.0, 0.0, -INF, -INF, -INF, -INF, NAN])
    _check(tl.special.ndtri(_t([0.0, 1.0, -0.1, 1.1, NAN], device)), [-INF, INF, NAN, NAN, NAN])


@pytest.mark.parametrize("device", DEVICES)
def test_large_and_tiny_arguments(device):
    _check(tl.lgamma(_t([1e300, 1e-300], device)), [1e300 * (math.log(1e300) - 1), -math.log(1e-300)])
    _check(tl.digamma(_t([1e300], device)), [math.log(1e300)])
    # i0e/i1e stay finite where exp(x) overflows: ~1/sqrt(2 pi x)
    _check(tl.special.i0e(_t([1e4], device)), [1 / math.sqrt(2 * math.pi * 1e4) * (1 + 1 / 8e4)], rtol=1e-8)
    _check(tl.special.erfcx(_t([1e300, 30.0], device)), [1 / (math.sqrt(math.pi) * 1e300),
                                                         erfcx_np(np.array([30.0]))[0]])
    _check(tl.special.log_ndtr(_t([-40.0], device)), [-804.60844201375379], rtol=1e-12)  # (mpmath; no -inf from log(0))
    _check(tl.special.ndtri(_t([1e-300], device)), [-37.047096299361199], rtol=1e-12)  # (mpmath)
    _check(tl.special.ndtr(_t([-10.0], device)), [0.5 * math.erfc(10 / math.sqrt(2))])  # no cancellation


def test_lgamma_twin_against_math_lgamma():
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.uniform(-30, 30, 4000), rng.uniform(0.5, 2.5, 2000), np.exp(rng.uniform(-50, 600, 2000))])
    x = x[(x > 0) | (x != np.floor(x))]
    expected = np.array([math.lgamma(v) for v in x])
    got = lgamma_np(x)
    # near the roots (1, 2 and two in each negative unit interval) relative error means nothing: the
    # reflection's log(pi / |x sin(pi x)|) - lgamma(1 - x) cancels, in glibc as here
    far = np.abs(expected) > 0.1
    np.testing.assert_allclose(got[far], expected[far], rtol=2e-14)
    np.testing.assert_allclose(got[~far], expected[~far], atol=3e-15)


def test_ndtri_twin_inverts_ndtr():
    p = np.concatenate([np.linspace(1e-6, 1 - 1e-6, 999), np.exp(-np.linspace(1, 600, 200))])
    x = ndtri_np(p)
    back = 0.5 * np.array([math.erfc(-v / math.sqrt(2)) for v in x])
    # ndtr's relative slope is ~|x| (37 at 1e-300): the round trip scales x's rounding by it
    assert np.all(np.abs(back - p) <= 1e-15 * np.maximum(1.0, np.abs(x)) ** 2 * p)


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_half_dtypes(device, dtype):
    x = _t([0.5, 2.5, 4.0], device, dtype)
    ref = x.double()
    for fn in (tl.lgamma, tl.digamma, lambda t: tl.polygamma(2, t), tl.i0, tl.special.i1e, tl.special.erfcx,
               tl.special.log_ndtr):
        out = fn(x)
        assert out.dtype is dtype
        _check(out, to_numpy(fn(ref).to(dtype)), rtol=1e-2)


def test_integer_inputs_promote():
    x = tl.tensor([1, 2, 3])
    assert tl.lgamma(x).dtype is tl.float32
    assert tl.special.i0e(tl.tensor([True])).dtype is tl.float32
    _check(tl.digamma(tl.tensor([1])), [-EULER], rtol=1e-6)
    _check(tl.special.xlog1py(tl.tensor([1, 2]), tl.tensor([3, 4])), [math.log(4), 2 * math.log(5)], rtol=1e-6)


@pytest.mark.parametrize("device", DEVICES)
def test_xlog1py(device):
    x, y = _t([0.0, 1.0, 0.0, 2.0], device), _t([NAN, -1.0, -1.0, 1.0], device)
    _check(tl.special.xlog1py(x, y), [NAN, -INF, 0.0, 2 * math.log(2)])
    _check(tl.special.xlog1py(2.0, _t([1.0], device)), [2 * math.log(2)])
    _check(tl.special.xlog1py(_t([1.0], device), 2.0), [math.log(3)])


def test_call_forms_and_methods():
    x = tl.tensor([1.5, 2.5], dtype=tl.float64)
    _check(x.lgamma(), tl.lgamma(x).numpy())
    _check(x.digamma(), tl.special.psi(x).numpy())
    _check(x.polygamma(2), tl.special.polygamma(2, x).numpy())
    _check(tl.polygamma(n=2, input=x), tl.polygamma(2, x).numpy())
    _check(x.mvlgamma(2), tl.special.multigammaln(x, p=2).numpy())
    _check(tl.special.gammaln(x), tl.lgamma(x).numpy())
    _check(x.i0(), tl.special.i0(x).numpy())
    out = tl.empty(2, dtype=tl.float64)
    assert tl.special.i1(x, out=out) is out
    _check(out, tl.special.i1(x).numpy())
    assert tl.mvlgamma(x, 2, out=out) is out
    for name, args in (("lgamma_", ()), ("digamma_", ()), ("polygamma_", (1,)), ("mvlgamma_", (2,)), ("i0_", ())):
        y = x.clone()
        assert getattr(y, name)(*args) is y
        _check(y, getattr(x, name[:-1])(*args).numpy())


def test_errors():
    x = tl.tensor([1.5])
    with pytest.raises(RuntimeError, match="does not support negative n"):
        tl.polygamma(-1, x)
    with pytest.raises(TypeError, match="argument 'n'"):
        tl.polygamma(1.5, x)
    with pytest.raises(RuntimeError, match="greater than or equal to 1"):
        tl.mvlgamma(x, 0)
    with pytest.raises(RuntimeError, match="boolean"):
        tl.mvlgamma(tl.tensor([True]), 2)
    with pytest.raises(TypeError, match="argument 'p'"):
        tl.mvlgamma(x, 1.5)
    with pytest.raises(RuntimeError, match="can't be cast"):
        tl.tensor([3, 4]).lgamma_()
    with pytest.raises(RuntimeError, match="can't be cast"):
        tl.tensor([3, 4]).mvlgamma_(2)
    with pytest.raises(TypeError):
        tl.special.xlog1py(2, 3)
    with pytest.raises(TypeError, match="must be Tensor"):
        tl.special.entr(1.0)


def test_gradients_at_special_points():
    # i1' and i1e' at 0 are 1/2 (PyTorch's limit), not 0/0; at NaN they are NaN, not the limit
    for fn in (tl.special.i1, tl.special.i1e):
        x = tl.tensor([0.0, 1.0, float("nan")], dtype=tl.float64, requires_grad=True)
        fn(x).sum().backward()
        assert x.grad.numpy()[0] == 0.5
        assert np.isnan(x.grad.numpy()[2])
    # log_ndtr's slope stays finite far in the lower tail (pdf and cdf both underflow there)
    x = tl.tensor([-40.0], dtype=tl.float64, requires_grad=True)
    tl.special.log_ndtr(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [40.024968847207264], rtol=1e-12)  # (mpmath)
    # lgamma' = digamma, digamma' = trigamma, polygamma(n)' = polygamma(n + 1)
    x = tl.tensor([2.5], dtype=tl.float64, requires_grad=True)
    (tl.lgamma(x) + tl.digamma(x) + tl.polygamma(2, x)).sum().backward()
    expected = tl.digamma(x.detach()) + tl.polygamma(1, x.detach()) + tl.polygamma(3, x.detach())
    _check(x.grad, expected.numpy())


@pytest.mark.parametrize("name", ["lgamma", "digamma", "polygamma", "mvlgamma", "i0"])
def test_top_level_names(name):
    assert hasattr(tl, name) and hasattr(tl.Tensor, name) and hasattr(tl.Tensor, name + "_")
