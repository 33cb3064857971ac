"""nn.Module containers and utilities where a differential scan against torch 2.15 found
differences (expected values are torch's)."""

from __future__ import annotations

import pytest

import tensorlab as tl
from tensorlab import nn


def _names(seq):
    return [type(m).__name__ for m in seq]


def test_sequential_insert_with_a_negative_index_is_list_insert():
    s = nn.Sequential(nn.Linear(1, 1), nn.ReLU(), nn.Tanh())
    s.insert(-1, nn.Sigmoid())
    assert _names(s) == ["Linear", "ReLU", "Sigmoid", "Tanh"]
    s = nn.Sequential(nn.Linear(1, 1), nn.ReLU(), nn.Tanh())
    s.insert(-3, nn.Sigmoid())
    assert _names(s) == ["Sigmoid", "Linear", "ReLU", "Tanh"]


def test_container_slices_keep_the_subclass_and_module_dicts_copy_module_dicts():
    class Stack(nn.Sequential):
        pass

    class Blocks(nn.ModuleList):
        pass

    assert type(Stack(nn.ReLU(), nn.ReLU())[0:1]) is Stack and type(Blocks([nn.ReLU()])[0:1]) is Blocks
    assert list(nn.ModuleDict(nn.ModuleDict({"a": nn.ReLU(), "bc": nn.Tanh()})).keys()) == ["a", "bc"]


def test_parameter_dict_from_a_plain_dict_is_sorted_and_reprs_legacy_type_names():
    pd = nn.ParameterDict({"b": tl.ones(1), "a": tl.ones(2)})
    assert list(pd.keys()) == ["a", "b"] and list(pd.state_dict()) == ["a", "b"] and list(reversed(pd)) == ["b", "a"]
    assert repr(pd) == ("ParameterDict(\n    (a): Parameter containing: [tensorlab.FloatTensor of size 2]\n"
                        "    (b): Parameter containing: [tensorlab.FloatTensor of size 1]\n)")


def test_clip_grad_norm_of_order_zero_counts_the_nonzero_tensor_norms():
    p = nn.Parameter(tl.zeros(3))
    p.grad = tl.tensor([1.0, 0.0, 2.0])
    total = nn.utils.clip_grad_norm_([p], 0.5, norm_type=0)
    assert total.item() == 1.0
    assert p.grad.tolist() == [0.4999995231628418, 0.0, 0.9999990463256836]


def test_module_type_names_batch_norm_empty_batch_and_gradient_identity():
    assert nn.Linear(2, 2).type("tensorlab.DoubleTensor").weight.dtype == tl.float64
    bn = nn.BatchNorm1d(3)
    y = bn(tl.zeros(0, 3))
    assert y.shape == (0, 3) and bn.running_mean.tolist() == [0, 0, 0] and bn.num_batches_tracked.item() == 1
    lin = nn.Linear(2, 2)
    lin.weight.grad = tl.ones(2, 2)
    g = lin.weight.grad
    lin.double()
    assert lin.weight.grad is g and g.dtype == tl.float64
    lin.zero_grad(set_to_none=False)
    assert lin.weight.grad is g and g.tolist() == [[0, 0], [0, 0]]


def test_buffer_of_none_is_empty_and_keeps_requires_grad():
    b = nn.Buffer(None)
    assert isinstance(b, nn.Buffer) and b.shape == (0,) and b.persistent
    src = tl.ones(2, requires_grad=True)
    b = nn.Buffer(src, persistent=False)
    assert b.requires_grad and b.is_leaf and not b.persistent
    with pytest.raises(TypeError):
        nn.Buffer(tl.ones(2), False)  # persistent is keyword-only, as PyTorch's


def test_assigned_buffer_on_a_subclass_with_an_old_register_buffer():
    class Old(nn.Linear):
        def __init__(self, persistent=True):
            super().__init__(2, 2)
            self.bar = nn.Buffer(tl.ones(2), persistent=persistent)

        def register_buffer(self, name, value):
            super().register_buffer(name, value, True)

    m = Old()
    assert "bar" in m.state_dict()
    with pytest.raises(RuntimeError, match="non-persistent buffer on a Module subclass that implements"):
        Old(persistent=False)


def test_parameter_list_extend_refuses_a_tensor():
    pl = nn.ParameterList([nn.Parameter(tl.ones(2, 2))])
    with pytest.raises(TypeError, match="ParameterList.extend should be called with an iterable, but got Parameter"):
        pl.extend(nn.Parameter(tl.ones(3, 2)))
    with pytest.raises(TypeError, match="but got Tensor"):
        pl += tl.ones(3, 2)
    assert len(pl) == 1
    pl += [tl.ones(1)]
    assert len(pl) == 2 and isinstance(pl[1], nn.Parameter)


def test_bilinear_refuses_no_in1_features():
    with pytest.raises(ValueError, match=r"in1_features must be > 0, but got \(in1_features=0\)"):
        nn.Bilinear(0, 2, 2)
