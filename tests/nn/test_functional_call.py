"""tl.func.functional_call: a module run with other tensors in place of its parameters/buffers."""

import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.func import functional_call


def test_values_gradients_and_restoration(device):
    m = tl.nn.Linear(2, 1).to(device)
    w0 = m.weight
    w = tl.tensor([[1.0, 2.0]], device=device, requires_grad=True)
    b = tl.tensor([0.5], device=device, requires_grad=True)
    x = tl.tensor([[1.0, 1.0], [2.0, 0.0]], device=device)
    y = functional_call(m, {"weight": w, "bias": b}, (x,))
    assert y.tolist() == [[3.5], [2.5]]
    y.sum().backward()
    assert w.grad.tolist() == [[3.0, 1.0]] and b.grad.tolist() == [2.0]
    assert m.weight is w0 and m.weight.grad is None  # the module's own parameters untouched
    assert functional_call(m, {"weight": w}, x).shape == (2, 1)  # a single tensor as args; bias kept


def test_nested_names_buffers_kwargs_and_restore_on_error():
    class Net(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = tl.nn.Linear(1, 1, bias=False)
            self.register_buffer("scale", tl.tensor(2.0))

        def forward(self, x, *, shift=0.0):
            if shift == "boom":
                raise ValueError("boom")
            return self.inner(x) * self.scale + shift

    net = Net()
    out = functional_call(net, [{"inner.weight": tl.tensor([[3.0]])}, {"scale": tl.tensor(10.0)}],
                          (tl.tensor([[1.0]]),), {"shift": 1.0})
    assert out.item() == 31.0
    old = net.inner.weight
    with pytest.raises(ValueError, match="boom"):
        functional_call(net, {"inner.weight": tl.tensor([[3.0]])}, (tl.tensor([[1.0]]),), {"shift": "boom"})
    assert net.inner.weight is old and net.scale.item() == 2.0


def test_tied_weights_strict_and_errors():
    emb = tl.nn.Embedding(3, 2)
    head = tl.nn.Linear(2, 3, bias=False)
    head.weight = emb.weight  # tied
    model = tl.nn.Sequential(emb, head)
    new = tl.ones(3, 2)
    out = functional_call(model, {"0.weight": new}, (tl.tensor([1]),))
    np.testing.assert_allclose(out.numpy(), [[2.0, 2.0, 2.0]])  # the head used the new weight too
    with pytest.raises(ValueError, match="tied"):
        functional_call(model, {"0.weight": new, "1.weight": tl.zeros(3, 2)}, (tl.tensor([1]),))
    lin = tl.nn.Linear(2, 1)
    with pytest.raises(RuntimeError, match="Missing key\\(s\\): 'bias'"):
        functional_call(lin, {"weight": tl.ones(1, 2)}, (tl.ones(1, 2),), strict=True)
    with pytest.raises(RuntimeError, match="Unexpected key\\(s\\): 'foo'"):
        functional_call(lin, {"weight": tl.ones(1, 2), "bias": tl.ones(1), "foo": tl.ones(1)}, (tl.ones(1, 2),),
                        strict=True)
    functional_call(lin, {"foo": tl.ones(1)}, (tl.ones(1, 2),))
    assert not hasattr(lin, "foo")
    with pytest.raises(ValueError, match="multiple dictionaries"):
        functional_call(lin, [{"weight": tl.ones(1, 2)}, {"weight": tl.ones(1, 2)}], (tl.ones(1, 2),))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tl.nn.utils.stateless.functional_call(lin, {"bias": tl.zeros(1)}, (tl.ones(1, 2),))
    assert any(issubclass(x.category, FutureWarning) for x in w)
