"""F.pdist: the distances between the rows of a matrix, each pair once."""

import itertools

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F


@pytest.mark.parametrize("p", [0, 1, 2, 3.5, float("inf")])
def test_pdist_matches_pairwise_norms(device, p):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 3))
    want = [np.linalg.norm(a[i] - a[j], ord=p) for i, j in itertools.combinations(range(5), 2)]
    got = F.pdist(tl.tensor(a, device=device), p)
    assert got.shape == (10,)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)


def test_pdist_gradient_and_edge_shapes():
    rng = np.random.default_rng(1)
    a = tl.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    assert tl.autograd.gradcheck(lambda x: F.pdist(x, 2), (a,))
    dup = tl.tensor([[1.0, 2.0], [1.0, 2.0], [0.0, 0.0]], requires_grad=True)
    F.pdist(dup).sum().backward()  # a zero distance contributes a zero gradient, as PyTorch's
    assert np.isfinite(dup.grad.numpy()).all()
    assert F.pdist(tl.ones(1, 4)).shape == (0,) and F.pdist(tl.ones(0, 2)).shape == (0,)
    # no coordinates: zeros for every p, as PyTorch (p = inf raised norm's "no identity" error)
    assert F.pdist(tl.zeros(3, 0), float("inf")).tolist() == [0.0] * 3 == F.pdist(tl.zeros(3, 0)).tolist()
    # p = inf: each coordinate at a tied maximum gets the whole gradient, as PyTorch (norm split it)
    z = tl.tensor([[0.0, 0.0], [1.0, 1.0]], requires_grad=True)
    F.pdist(z, float("inf")).sum().backward()
    assert z.grad.tolist() == [[-1.0, -1.0], [1.0, 1.0]]
    assert np.isnan(F.pdist(tl.tensor([[float("nan"), 0.0], [1.0, 1.0]]), float("inf")).item())  # (as PyTorch)


def test_pdist_errors():
    with pytest.raises(RuntimeError, match="2D"):
        F.pdist(tl.ones(3))
    with pytest.raises(RuntimeError, match="non-negative"):
        F.pdist(tl.ones(2, 2), -1.0)
    with pytest.raises(RuntimeError, match="floating"):
        F.pdist(tl.ones(2, 2, dtype=tl.int64))


INF, NAN = float("inf"), float("nan")
FMAX = float(np.finfo(np.float32).max)


def _grads(fn, device, *arrays, weight):
    ts = [tl.tensor(a, device=device, requires_grad=True) for a in arrays]
    out = fn(*ts)
    (out * tl.tensor(weight, device=device)).sum().backward()
    return [out.detach().cpu().numpy()] + [t.grad.cpu().numpy() for t in ts]


def _check(got, expected):
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, np.asarray(e, dtype=np.float32))  # (NaN where NaN)


# (x1, x2, p): torch 2.15's distances and gradients of sum(cdist * [[1, 2], [3, 4]]). PyTorch's p = inf
# backward is sign(d) * (1 - min(1, ceil(| |d| - dist |))): NaN for an infinite difference at an
# infinite distance (inf - inf) and for a NaN difference; p = 1's sign(d) is NaN at a NaN difference
CDIST_EXTREMES = [
    ([[INF, 1.0], [1.0, 2.0]], [[0.0, 1.0], [1.0, 3.0]], INF,
     [[[INF, INF], [1.0, 1.0]], [[NAN, 0.0], [3.0, -1.0]], [[NAN, -3.0], [NAN, 4.0]]]),
    ([[-INF, 5.0], [1.0, 2.0]], [[0.0, 1.0], [1.0, 3.0]], INF,
     [[[INF, INF], [1.0, 1.0]], [[NAN, 0.0], [3.0, -1.0]], [[NAN, -3.0], [NAN, 4.0]]]),
    ([[FMAX, 1.0], [1.0, 2.0]], [[-FMAX, 1.0], [1.0, 3.0]], INF,  # (FMAX - -FMAX overflows)
     [[[INF, FMAX], [FMAX, 1.0]], [[NAN, 0.0], [3.0, -4.0]], [[NAN, 0.0], [-2.0, 4.0]]]),
    ([[NAN, 1.0], [1.0, 2.0]], [[0.0, 1.0], [1.0, 3.0]], INF,  # (the NaN coordinate is skipped)
     [[[0.0, 2.0], [1.0, 1.0]], [[NAN, -2.0], [3.0, -1.0]], [[NAN, -3.0], [NAN, 6.0]]]),
    ([[INF, 1.0], [1.0, 2.0]], [[INF, 1.0], [1.0, 3.0]], INF,
     [[[0.0, INF], [INF, 1.0]], [[NAN, 0.0], [NAN, -4.0]], [[NAN, 0.0], [NAN, 4.0]]]),
    ([[INF, 1.0], [1.0, 2.0]], [[INF, 1.0], [1.0, 3.0]], 1.0,
     [[[NAN, INF], [INF, 1.0]], [[NAN, -2.0], [-3.0, -1.0]], [[NAN, -3.0], [-2.0, 6.0]]]),
    ([[INF, 1.0], [1.0, 2.0]], [[0.0, 1.0], [1.0, 3.0]], 1.0,  # (an infinite difference: sign 1)
     [[[INF, INF], [2.0, 1.0]], [[3.0, -2.0], [3.0, -1.0]], [[-4.0, -3.0], [-2.0, 6.0]]]),
]


@pytest.mark.parametrize("x1,x2,p,expected", CDIST_EXTREMES)
def test_cdist_infinite_differences_match_torch(device, x1, x2, p, expected):
    """p = inf was NaN where a difference is infinite, with grad: max_distance's ``size - size.detach()``."""
    got = _grads(lambda a, b: tl.cdist(a, b, p=p), device, np.array(x1, np.float32), np.array(x2, np.float32),
                 weight=[[1.0, 2.0], [3.0, 4.0]])
    _check(got, expected)
    if p == INF:  # without grad too
        np.testing.assert_array_equal(tl.cdist(tl.tensor(x1, device=device), tl.tensor(x2, device=device),
                                               p=p).cpu().numpy(), np.asarray(expected[0], np.float32))


@pytest.mark.parametrize("rows,expected", [
    ([[INF, 1.0], [1.0, 2.0], [0.0, 1.0], [1.0, 3.0]],
     [[INF, INF, INF, 1.0, 1.0, 2.0], [[NAN, 0.0], [NAN, -1.0], [NAN, -10.0], [NAN, 11.0]]]),
    ([[INF, 1.0], [1.0, 2.0], [INF, 1.0], [1.0, 3.0]],  # (rows 0 and 2: inf - inf, a NaN distance)
     [[INF, NAN, INF, INF, 1.0, INF], [[NAN, NAN], [NAN, -5.0], [NAN, NAN], [NAN, 5.0]]]),
    ([[FMAX, FMAX], [1.0, 2.0], [-FMAX, 1.0], [1.0, 3.0]],
     [[FMAX, INF, FMAX, FMAX, 1.0, FMAX], [[NAN, 4.0], [3.0, -6.0], [NAN, 0.0], [3.0, 2.0]]]),
])
def test_pdist_inf_of_infinite_differences_matches_torch(device, rows, expected):
    # torch 2.15's distances and gradients of sum(pdist * [1, ..., 6]); a NaN distance's pair gets NaN
    got = _grads(lambda a: F.pdist(a, INF), device, np.array(rows, np.float32),
                 weight=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    _check(got, expected)


@pytest.mark.parametrize("p,expected", [
    (0.0, [[NAN, 2.0, NAN], [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]]),  # (a NaN difference counts as NaN)
    (1.0, [[NAN, 7.0, NAN], [[NAN, -3.0], [NAN, -2.0], [NAN, 5.0]]]),  # (sign(NaN) is NaN)
])
def test_pdist_of_a_nan_coordinate_matches_torch(device, p, expected):
    # torch 2.15's distances and gradients of sum(pdist * [1, 2, 3]); pdist counted a NaN difference
    # as one differing coordinate (p = 0) and gave it abs's gradient 0 (p = 1), unlike cdist and torch
    got = _grads(lambda a: F.pdist(a, p), device, np.array([[0.0, 1.0], [NAN, 2.0], [3.0, 5.0]], np.float32),
                 weight=[1.0, 2.0, 3.0])
    _check(got, expected)
