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
