"""tensorlab.nn.utils.prune: PyTorch's pruning utilities (weight_orig / weight_mask, the forward
pre-hook, PruningContainer, global pruning, remove). Expected values computed with PyTorch 2.15."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.nn.utils import prune

CUDA = tl.cuda.is_available()
DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.skipif(not CUDA, reason="no cuda"))]

W = [[0.3, -1.2, 0.05, 2.0], [-0.7, 0.9, -0.1, 0.4], [1.5, -0.2, 0.6, -2.5]]
X = [[1.0, 2, 3, 4], [-1, 0, 1, 0.5]]


def _lin(device="cpu"):
    m = tl.nn.Linear(4, 3).double()
    with tl.no_grad():
        m.weight.copy_(tl.tensor(W, dtype=tl.float64))
        m.bias.copy_(tl.tensor([0.1, -0.3, 0.2], dtype=tl.float64))
    return m.to(device)


@pytest.mark.parametrize("device", DEVICES)
def test_l1_unstructured_reparametrizes_and_trains(device):
    m = prune.l1_unstructured(_lin(device), "weight", amount=0.5)
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    assert [n for n, _ in m.named_parameters()] == ["bias", "weight_orig"]
    assert [type(h).__name__ for h in m._forward_pre_hooks.values()] == ["L1Unstructured"]
    assert "weight" not in m._parameters and m.weight.grad_fn is not None
    np.testing.assert_array_equal(m.weight_mask.cpu().numpy(), [[0, 1, 0, 1], [1, 1, 0, 0], [1, 0, 0, 1]])
    x = tl.tensor(X, dtype=tl.float64, device=device)
    y = m(x)
    np.testing.assert_allclose(y.detach().cpu().numpy(), [[5.7, 0.8, -8.3], [1.1, 0.4, -2.55]], rtol=1e-12)
    (y ** 2).sum().backward()
    np.testing.assert_allclose(m.weight_orig.grad.cpu().numpy(),
                               [[0, 22.8, 0, 46.7], [0.8, 3.2, 0, 0], [-11.5, 0, 0, -68.95]], rtol=1e-12)
    tl.optim.SGD(m.parameters(), lr=0.1).step()
    # the forward pre-hook recomputes weight from the updated weight_orig
    np.testing.assert_allclose(m(x).detach().cpu().numpy(), [[-18.9, -0.16, 22.6], [-2.595, 0.24, 1.9175]],
                               rtol=1e-12, atol=1e-13)
    assert prune.is_pruned(tl.nn.Sequential(m))
    weight_orig = m.weight_orig
    assert prune.remove(m, "weight") is m
    assert list(m.state_dict()) == ["bias", "weight"] and not prune.is_pruned(m) and not m._forward_pre_hooks
    # the old weight_orig object, holding mask * orig, is the parameter again
    assert m.weight is weight_orig and isinstance(m.weight, tl.nn.Parameter)
    np.testing.assert_allclose(m.weight.detach().cpu().numpy(),
                               [[0, -3.48, 0, -2.67], [-0.78, 0.58, 0, 0], [2.65, 0, 0, 4.395]], rtol=1e-12)


@pytest.mark.parametrize("device", DEVICES)
def test_structured_and_container_masks(device):
    m = prune.ln_structured(_lin(device), "weight", amount=1, n="fro", dim=0)
    np.testing.assert_array_equal(m.weight_mask.cpu().numpy(), [[1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1]])
    m = prune.ln_structured(_lin(device), "weight", amount=0.5, n=float("inf"), dim=-1)
    np.testing.assert_array_equal(m.weight_mask.cpu().numpy(), [[1, 0, 0, 1]] * 3)
    # a second pruning of the same tensor combines both in a PruningContainer
    m = _lin(device)
    prune.l1_unstructured(m, "weight", 3)
    prune.random_unstructured(m, "weight", 0)
    prune.ln_structured(m, "weight", 1, n=2, dim=0)
    (hook,) = m._forward_pre_hooks.values()
    assert isinstance(hook, prune.PruningContainer)
    assert [type(h).__name__ for h in hook] == ["L1Unstructured", "RandomUnstructured", "LnStructured"]
    np.testing.assert_array_equal(m.weight_mask.cpu().numpy(), [[1, 1, 0, 1], [0, 0, 0, 0], [1, 0, 1, 1]])
    m = _lin(device)
    prune.l1_unstructured(m, "weight", 3)
    prune.ln_structured(m, "weight", 1, n=1, dim=1)
    np.testing.assert_array_equal(m.weight_mask.cpu().numpy(), [[1, 1, 0, 1], [1, 1, 0, 1], [1, 0, 0, 1]])


def test_importance_scores_global_and_custom_mask():
    m = prune.l1_unstructured(_lin(), "weight", 4, importance_scores=tl.arange(12.0).view(3, 4))
    np.testing.assert_array_equal(m.weight_mask.numpy(), [[0, 0, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]])
    a, b = _lin(), _lin()
    prune.global_unstructured([(a, "weight"), (b, "bias")], prune.L1Unstructured, amount=5)
    np.testing.assert_array_equal(a.weight_mask.numpy(), [[1, 1, 0, 1], [1, 1, 0, 1], [1, 0, 1, 1]])
    np.testing.assert_array_equal(b.bias_mask.numpy(), [0, 1, 0])
    assert [type(h).__name__ for h in a._forward_pre_hooks.values()] == ["CustomFromMask"]
    a, b = _lin(), _lin()
    prune.global_unstructured([(a, "weight"), (b, "bias")], prune.L1Unstructured,
                              importance_scores={(b, "bias"): tl.tensor([0.0, 10, 10], dtype=tl.float64)}, amount=4)
    np.testing.assert_array_equal(b.bias_mask.numpy(), [0, 1, 1])
    m = prune.custom_from_mask(_lin(), "bias", mask=tl.tensor([1.0, 0, 1]))
    np.testing.assert_array_equal(m.bias.detach().numpy(), [0.1, 0.0, 0.2])
    np.testing.assert_array_equal(prune.L1Unstructured(amount=2).prune(tl.tensor([3.0, -1, 0.5, 2])).numpy(),
                                  [3, 0, 0, 2])


def test_random_pruning_counts_and_state_dict_round_trip():
    tl.manual_seed(0)
    m = prune.random_unstructured(_lin(), "weight", 5)
    assert int((m.weight_mask == 0).sum()) == 5
    m = prune.random_structured(_lin(), "weight", 2, dim=1)
    assert int((m.weight_mask.sum(0) == 0).sum()) == 2 and float(m.weight_mask.sum()) == 6
    src = prune.l1_unstructured(_lin(), "weight", 3)
    dst = prune.identity(_lin(), "weight")
    dst.load_state_dict(src.state_dict())
    np.testing.assert_array_equal(dst(tl.ones(1, 4, dtype=tl.float64)).detach().numpy(),
                                  src(tl.ones(1, 4, dtype=tl.float64)).detach().numpy())
    r = tl.nn.Linear(4, 3).load_state_dict(src.state_dict(), strict=False)
    assert r.missing_keys == ["weight"] and r.unexpected_keys == ["weight_orig", "weight_mask"]
    with pytest.raises(RuntimeError, match="graph leaves"):
        copy.deepcopy(src)  # weight is a non-leaf attribute, as in PyTorch


def test_prune_errors_leave_module_unchanged():
    m = _lin()
    with pytest.raises(ValueError, match=r"amount=13 should be smaller than the number of parameters to prune=12"):
        prune.l1_unstructured(m, "weight", 13)
    assert [n for n, _ in m.named_parameters()] == ["weight", "bias"] and not m._forward_pre_hooks
    with pytest.raises(ValueError, match=r"amount=-1 should either be a float in the range \[0, 1\]"):
        prune.l1_unstructured(m, "weight", -1)
    with pytest.raises(ValueError, match=r"amount=1.5 should either be a float"):
        prune.random_unstructured(m, "weight", 1.5)
    with pytest.raises(TypeError, match="Invalid type for amount: a"):
        prune.l1_unstructured(m, "weight", "a")
    with pytest.raises(ValueError, match="Structured pruning can only be applied to multidimensional tensors"):
        prune.ln_structured(m, "bias", 1, n=2, dim=0)
    with pytest.raises(IndexError, match="Invalid index 2 for tensor of size"):
        prune.ln_structured(m, "weight", 1, n=2, dim=2)
    with pytest.raises(ValueError, match="has to be pruned before pruning can be removed"):
        prune.remove(m, "weight")
    with pytest.raises(TypeError, match='Only "unstructured" PRUNING_TYPE'):
        prune.global_unstructured([(m, "weight")], prune.LnStructured, amount=1, n=2, dim=0)
    # nothing changed, not even the parameters' order (PyTorch re-registers the parameter last)
    assert list(m.state_dict()) == ["weight", "bias"] and not prune.is_pruned(m)
    # only parameters can be pruned; several targets are all checked before any is pruned
    bn = tl.nn.BatchNorm1d(4)
    with pytest.raises(TypeError, match="prune: 'running_mean' of BatchNorm1d is a buffer, not a Parameter"):
        prune.l1_unstructured(bn, "running_mean", 1)
    with pytest.raises(TypeError, match="'running_mean' of BatchNorm1d is a buffer"):
        prune.global_unstructured([(m, "weight"), (bn, "running_mean")], prune.L1Unstructured, amount=3)
    assert not prune.is_pruned(m) and list(m.state_dict()) == ["weight", "bias"]


@pytest.mark.parametrize("device", DEVICES)
def test_failures_leave_pruned_module_and_inputs_unchanged(device):
    # where PyTorch drops the existing hook (a failed re-pruning) or writes into default_mask, tensorlab does not
    m = prune.l1_unstructured(_lin(device), "weight", 3)
    for bad in [lambda: prune.l1_unstructured(m, "weight", 10), lambda: prune.l1_unstructured(m, "weight", -1),
                lambda: prune.ln_structured(m, "weight", 1, n=1, dim=3)]:
        with pytest.raises((ValueError, IndexError)):
            bad()
        assert [type(h).__name__ for h in m._forward_pre_hooks.values()] == ["L1Unstructured"]
        np.testing.assert_array_equal(m.weight_mask.cpu().numpy(), [[1, 1, 0, 1], [1, 1, 0, 1], [1, 0, 1, 1]])
    first, second = prune.L1Unstructured(1), prune.Identity()
    first._tensor_name = second._tensor_name = "w"
    container = prune.PruningContainer(first, second)
    assert list(container) == [first, second] and list(prune.PruningContainer([first, second])) == [first, second]
    default = tl.tensor([[1.0, 0, 1], [1, 1, 0]], device=device)
    mask = prune.PruningContainer(first).compute_mask(tl.tensor([[5.0, 4, 3], [2, 1, 6]], device=device), default)
    np.testing.assert_array_equal(mask.cpu().numpy(), [[1, 0, 1], [1, 0, 0]])
    np.testing.assert_array_equal(default.cpu().numpy(), [[1, 0, 1], [1, 1, 0]])
    # a generator of (module, name) pairs works (it is read once)
    a, b = _lin(device), _lin(device)
    prune.global_unstructured(((mod, "weight") for mod in (a, b)), prune.L1Unstructured, amount=6)
    np.testing.assert_array_equal(a.weight_mask.cpu().numpy(), [[1, 1, 0, 1], [1, 1, 0, 1], [1, 0, 1, 1]])
    with pytest.raises(NotImplementedError, match="nuc"):
        prune.ln_structured(_lin(device), "weight", 1, n="nuc", dim=0)
