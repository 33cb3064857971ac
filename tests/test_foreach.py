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


def test_overloads_are_checked_before_any_entry_changes():
    # torch 2.15's overloads: a list or tuple of tensors (a Tensor was taken apart into its rows and
    # changed in place), a 0-d tensor other (a 1-d one was broadcast, and raised half-way), alpha=
    # only with tensors, and no list mixing numbers and tensors
    t = tl.ones(2, 2)
    with pytest.raises(TypeError, match="must be tuple of Tensors, not Tensor"):
        tl._foreach_mul_(t, 3)
    assert t.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(TypeError, match="must be tuple of Tensors, not generator"):
        tl._foreach_exp(x for x in [t])
    a = [tl.ones(2), tl.ones(())]
    with pytest.raises(RuntimeError, match="scalar tensor expected to be 0 dim but it has 1 dimensions"):
        tl._foreach_add_(a, tl.ones(1))
    assert a[0].tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match="must be 0-d"):
        tl._foreach_maximum([tl.ones(2)], tl.tensor([3.0]))
    for other in (2, [2.0]):
        with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
            tl._foreach_add([tl.ones(2)], other, alpha=3)
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        tl._foreach_sub([tl.ones(2)], tl.tensor(2.0), alpha=3)
    assert tl._foreach_add([tl.ones(2)], tl.tensor(2.0), alpha=3)[0].tolist() == [7.0, 7.0]
    assert tl._foreach_sub([tl.ones(2)], [tl.ones(2)], alpha=3)[0].tolist() == [-2.0, -2.0]
    with pytest.raises(TypeError, match="a list of Tensors or a list of numbers"):
        tl._foreach_add([tl.ones(2), tl.ones(2)], [1.0, tl.tensor(2.0)])
