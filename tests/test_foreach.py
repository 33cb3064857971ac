"""tl._foreach_*: PyTorch's list-of-tensors ops, each the single-tensor op over the list."""

import numpy as np
import pytest

import tensorlab as tl


def _lists(device):
    a = [tl.tensor([1.0, 2.0], device=device), tl.tensor([[3.0, 4.0]], device=device)]
    b = [tl.tensor([0.5, 0.5], device=device), tl.tensor([[2.0, 2.0]], device=device)]
    return a, b


def test_out_of_place_forms(device):
    a, b = _lists(device)
    got = [t.tolist() for t in tl._foreach_add(a, b, alpha=2)]
    assert got == [[2.0, 3.0], [[7.0, 8.0]]]
    assert [t.tolist() for t in tl._foreach_mul(a, [2.0, 4.0])] == [[2.0, 4.0], [[12.0, 16.0]]]
    assert [t.tolist() for t in tl._foreach_sub(a, tl.tensor(1.0))] == [[0.0, 1.0], [[2.0, 3.0]]]
    norms = tl._foreach_norm(a)
    np.testing.assert_allclose([n.item() for n in norms], [np.sqrt(5.0), 5.0], rtol=1e-6)
    assert [t.tolist() for t in tl._foreach_addcmul(a, b, b, 2.0)] == [[1.5, 2.5], [[11.0, 12.0]]]
    assert [t.tolist() for t in tl._foreach_lerp(a, b, 0.5)] == [[0.75, 1.25], [[2.5, 3.0]]]
    assert [t.tolist() for t in tl._foreach_sqrt([tl.tensor([4.0, 9.0], device=device)])] == [[2.0, 3.0]]


def test_in_place_forms_update_every_tensor_and_return_the_list(device):
    a, b = _lists(device)
    ema = [t.clone() for t in a]
    assert tl._foreach_mul_(ema, 0.5) is ema  # (torch 2.15 returns the list it was given)
    tl._foreach_add_(ema, b, alpha=0.5)  # an EMA step: ema = 0.5 ema + 0.5 b
    assert [t.tolist() for t in ema] == [[0.75, 1.25], [[2.5, 3.0]]]
    tl._foreach_lerp_(ema, a, [tl.tensor(1.0, device=device), tl.tensor(0.0, device=device)])
    assert [t.tolist() for t in ema] == [[1.0, 2.0], [[2.5, 3.0]]]
    tl._foreach_addcdiv_(ema, a, b, [1.0, 2.0])
    assert [t.tolist() for t in ema] == [[3.0, 6.0], [[5.5, 7.0]]]
    tl._foreach_zero_(ema)
    assert all(not t.any().item() for t in ema)
    tl._foreach_copy_(ema, b)
    assert [t.tolist() for t in ema] == [t.tolist() for t in b]


def test_errors():
    with pytest.raises(RuntimeError, match="same number of tensors"):
        tl._foreach_add([tl.ones(1)], [tl.ones(1), tl.ones(1)])
    with pytest.raises(RuntimeError, match="at least one tensor"):
        tl._foreach_mul_([], 2.0)
