"""tl.func.functional_call: a module run with other tensors in place of its parameters/buffers."""

import re
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


# --- cases from PyTorch's test/test_stateless.py; the expected values are torch 2.15's -------------

def _stateless_call(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return tl.nn.utils.stateless.functional_call(*args, **kwargs)


both_calls = pytest.mark.parametrize("fc", [functional_call, _stateless_call], ids=["func", "stateless"])


class _MockModule(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = tl.nn.Linear(1, 1)
        self.buffer = tl.nn.Buffer(tl.ones(1))
        self.foo = 0.0

    def forward(self, x):
        return self.l1(x) + self.buffer


class _MemberReference(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = tl.nn.Linear(1, 1)
        self.buffer = tl.nn.Buffer(tl.ones(1))

    def forward(self, x):
        out = self.l1(x) if self.buffer is None else self.l1(x) + self.buffer
        return out, tuple(self.parameters()), tuple(self.buffers())


def _snapshot(module):
    return [(n, t, t.tolist()) for n, t in [*module.named_parameters(), *module.named_buffers()]]


def _assert_unchanged(module, snap):
    now = [*module.named_parameters(), *module.named_buffers()]
    assert [n for n, _ in now] == [n for n, _, _ in snap]
    assert all(t is t0 and t.tolist() == v0 for (_, t), (_, t0, v0) in zip(now, snap))


@both_calls
def test_reassignment_in_forward_is_written_back_to_the_callers_dict(fc):
    class Foo(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = tl.nn.Buffer(tl.tensor([0.0]))

        def forward(self, x):
            self.foo = self.foo + 1
            return x + self.foo

    foo = tl.tensor([2.0])
    a = {"foo": foo}
    mod = Foo()
    assert fc(mod, a, tl.zeros(1)).tolist() == [3.0]
    # torch: the module keeps its buffer; the caller's dict gets the new tensor, the given one is untouched
    assert mod.foo.tolist() == [0.0]
    assert a["foo"].tolist() == [3.0] and a["foo"] is not foo and foo.tolist() == [2.0]

    class FooInPlace(Foo):
        def forward(self, x):
            self.foo.add_(1)
            return x + self.foo

    foo = tl.tensor([2.0])
    a = {"foo": foo}
    fc(FooInPlace(), a, tl.zeros(1))
    assert a["foo"] is foo and foo.tolist() == [3.0]


def test_write_back_goes_to_the_given_keys_only():
    class Tied(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = tl.nn.Buffer(tl.tensor([0.0]))
            self.tied = self.foo

        def forward(self, x):
            self.foo = self.foo + 1
            return x + self.foo + self.tied

    # torch: with tie_weights only the caller's keys are updated ('tied' is not added to the dict)
    a = {"foo": tl.tensor([2.0])}
    assert functional_call(Tied(), a, tl.zeros(1)).tolist() == [5.0]
    assert list(a) == ["foo"] and a["foo"].tolist() == [3.0]
    a = {"tied": tl.tensor([2.0])}
    functional_call(Tied(), a, tl.zeros(1))
    assert list(a) == ["tied"] and a["tied"].tolist() == [2.0]  # 'tied' itself was not reassigned
    # torch: several dicts are merged into a new one, so the caller's dicts are not updated
    a, b = {"foo": tl.tensor([2.0])}, {"tied": tl.tensor([5.0])}
    assert functional_call(Tied(), (a, b), tl.zeros(1), tie_weights=False).tolist() == [8.0]
    assert a["foo"].tolist() == [2.0] and b["tied"].tolist() == [5.0]
    # torch: a new name the forward reassigns is written back too (and removed from the module)
    class Doubler(tl.nn.Module):
        def forward(self, x):
            self.extra = self.extra * 2
            return x

    a, mod = {"extra": tl.ones(1)}, Doubler()
    functional_call(mod, a, tl.ones(1))
    assert a["extra"].tolist() == [2.0] and not hasattr(mod, "extra")


@both_calls
def test_none_hides_a_parameter_or_buffer(fc):
    # torch: None stands for an absent bias (out = x @ w.T), and parameters() leaves it out meanwhile
    assert fc(tl.nn.Linear(1, 1), {"weight": tl.ones(1, 1), "bias": None}, tl.ones(1, 1)).tolist() == [[1.0]]
    module = _MockModule()
    snap = _snapshot(module)
    x = tl.tensor([[0.5]])
    out = fc(module, {"l1.weight": tl.tensor([[2.0]]), "l1.bias": None, "buffer": tl.tensor([3.0])}, x)
    assert out.tolist() == [[4.0]]
    _assert_unchanged(module, snap)
    mr = _MemberReference()
    weight = tl.tensor([[2.0]])
    _, params, buffers = fc(mr, {"l1.weight": weight, "l1.bias": None}, x)
    assert len(params) == 1 and params[0] is weight and buffers == (mr.buffer,)
    _, params, buffers = fc(mr, {"buffer": None}, x)
    assert len(params) == 2 and buffers == ()
    assert [n for n, _ in mr.named_parameters()] == ["l1.weight", "l1.bias"] and mr.l1.bias is not None


@both_calls
def test_new_parameter_or_buffer_names_are_registered_for_the_call(fc):
    mr = _MemberReference()
    weight, bias, buffer = tl.tensor([[2.0]]), tl.tensor([5.0]), tl.tensor([3.0])
    extra = tl.tensor([1.0])
    extra_p = tl.nn.Parameter(extra)
    x = tl.tensor([[0.5]])
    # torch: a plain tensor under a new name is an attribute, not a parameter
    out, params, buffers = fc(mr, {"l1.weight": weight, "l1.bias": bias, "buffer": buffer, "l1.extra": extra}, x)
    assert out.tolist() == [[9.0]] and len(params) == 2 and params[0] is weight and params[1] is bias
    assert buffers[0] is buffer and len(buffers) == 1
    # torch: a Parameter under a new name is a parameter of the module during the call
    out, params, buffers = fc(mr, {"l1.weight": weight, "l1.bias": bias, "buffer": buffer, "l1.extra": extra_p}, x)
    assert len(params) == 3 and params[0] is weight and params[1] is bias and params[2] is extra_p
    _, params, _ = fc(mr, {"l1.weight": weight, "l1.extra": extra_p}, x)
    assert len(params) == 3 and params[1] is mr.l1.bias and params[2] is extra_p
    # torch: a Buffer under a new name is a buffer during the call
    _, _, buffers = fc(mr, {"newb": tl.nn.Buffer(tl.ones(2))}, x)
    assert [b.tolist() for b in buffers] == [[1.0], [1.0, 1.0]]
    # and afterwards all is as before
    assert [n for n, _ in mr.named_parameters()] == ["l1.weight", "l1.bias"]
    assert [n for n, _ in mr.named_buffers()] == ["buffer"]
    assert not hasattr(mr.l1, "extra") and not hasattr(mr, "newb") and "extra" not in mr.l1.__dict__


@both_calls
def test_new_names_removed_and_slots_restored_when_the_call_raises(fc):
    class Boom(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = tl.nn.Parameter(tl.ones(1))

        def forward(self, x):
            assert len(list(self.parameters())) == 2  # (torch: the new Parameter is registered)
            raise ValueError("boom")

    mod = Boom()
    w0 = mod.w
    with pytest.raises(ValueError, match="boom"):
        fc(mod, {"p": tl.nn.Parameter(tl.ones(1)), "w": tl.zeros(1), "q": tl.ones(1)}, tl.ones(1))
    assert list(mod._parameters) == ["w"] and mod.w is w0 and not hasattr(mod, "p") and not hasattr(mod, "q")
    # a failure while swapping in: torch swaps back what it already swapped
    module = _MockModule()
    snap = _snapshot(module)
    with pytest.raises(TypeError, match="5 is not an instance of"):
        fc(module, {"l1.weight": tl.zeros(1, 1), "l1.bias": 5}, tl.ones(1, 1))
    with pytest.raises(AttributeError, match="_MockModule has no attribute `nope`"):
        fc(module, {"l1.weight": tl.zeros(1, 1), "nope.bias": tl.ones(1)}, tl.ones(1, 1))
    _assert_unchanged(module, snap)


@both_calls
def test_invalid_values_and_names(fc):
    class NonTensor:
        def __repr__(self):
            return f"<{self.__class__.__name__}>"

    module = _MockModule()
    snap = _snapshot(module)
    weight = tl.tensor([[2.0]])
    x = tl.ones(1, 1)
    with pytest.raises(TypeError, match="<NonTensor> is not an instance of tensorlab.Tensor"):
        fc(module, {"l1.weight": NonTensor()}, x)
    # torch: only a tensor (or None) attribute may be replaced
    with pytest.raises(TypeError, match="attribute `foo`: 0.0 is not an instance of tensorlab.Tensor"):
        fc(module, {"l1.weight": weight, "foo": tl.tensor([1.0])}, x)
    with pytest.raises(TypeError, match="attribute `in_features`: 1 is not an instance"):
        fc(module.l1, {"in_features": tl.ones(1)}, x)
    with pytest.raises(AttributeError, match="_MockModule has no attribute `l2`"):
        fc(module, {"l1.weight": weight, "l2.bias": tl.ones(1)}, x)
    with pytest.raises(TypeError, match="(?s)submodule `l1.weight`: .* is not an instance of tensorlab.nn.Module"):
        fc(module, {"l1.weight.x": tl.ones(1)}, x)
    with pytest.raises(KeyError, match="empty string"):
        fc(module, {"": tl.ones(1)}, x)
    assert module.foo == 0.0
    _assert_unchanged(module, snap)
    # a None attribute may be replaced (torch)
    module.opt = None
    assert fc(module, {"opt": tl.ones(1)}, x).shape == (1, 1) and module.opt is None


@both_calls
def test_setattr_strict_and_missing_attribute(fc):
    class Bar(tl.nn.Module):
        def forward(self, x):
            return x + self.extra

    mod = Bar()
    assert fc(mod, {"extra": tl.zeros(())}, tl.ones(())).item() == 1.0 and not hasattr(mod, "extra")
    with pytest.raises(RuntimeError, match=r"Unexpected key\(s\): 'extra'\."):
        fc(mod, {"extra": tl.zeros(())}, tl.ones(()), strict=True)
    for strict in (False, True):
        with pytest.raises(AttributeError, match="'Bar' object has no attribute 'extra'"):
            fc(mod, {}, tl.ones(()), strict=strict)
    assert not hasattr(mod, "extra")


@both_calls
def test_strict_and_tied_messages(fc):
    class Tied(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = tl.nn.Linear(1, 1)
            self.tied_bias = self.l1.bias
            self.buffer = tl.nn.Buffer(tl.ones(1))
            self.tied_buffer = self.buffer

        def forward(self, x):
            return self.l1(x) + self.tied_bias + self.buffer + self.tied_buffer

    module = Tied()
    snap = _snapshot(module)
    w, b, buf, extra = tl.tensor([[2.0]]), tl.tensor([5.0]), tl.tensor([3.0]), tl.tensor([1.0])
    x = tl.tensor([[0.5]])
    assert fc(module, {"l1.weight": w, "l1.bias": b, "buffer": buf}, x, strict=True).tolist() == [[17.0]]
    cases = [({"l1.weight": w, "l1.bias": b, "buffer": buf}, False, "Missing key(s): 'tied_bias', 'tied_buffer'."),
             ({"l1.weight": w, "buffer": buf}, True, "Missing key(s): 'l1.bias', 'tied_bias'."),
             ({"l1.weight": w, "l1.bias": b, "buffer": buf, "extra": extra}, True, "Unexpected key(s): 'extra'."),
             ({"l1.weight": w, "buffer": buf, "extra": extra}, True,
              "Error(s) in reparametrizing for Tied:\n\tUnexpected key(s): 'extra'.\n\tMissing key(s): 'l1.bias', "
              "'tied_bias'."),
             ({"l1.weight": w, "l1.bias": b, "buffer": buf, "extra": extra}, False,
              "Unexpected key(s): 'extra'.\n\tMissing key(s): 'tied_bias', 'tied_buffer'.")]
    for params, tie, msg in cases:
        with pytest.raises(RuntimeError) as info:
            fc(module, params, x, tie_weights=tie, strict=True)
        assert msg in str(info.value)
    with pytest.raises(ValueError, match=r"multiple values for keys \['buffer', 'tied_buffer'\]"):
        fc(module, {"buffer": buf, "tied_buffer": tl.tensor([5.0])}, x)
    assert fc(module, {"l1.bias": b, "tied_bias": b}, x).shape == (1, 1)  # the same tensor: fine
    _assert_unchanged(module, snap)


def test_sequence_of_dicts_errors_as_torch():
    mod = _MockModule()
    x = tl.ones(1, 1)
    # torch lists the repeated keys in order of appearance
    with pytest.raises(ValueError, match=re.escape("['l1.weight', 'l1.bias'] appeared in multiple dictionaries")):
        functional_call(mod, ({"l1.weight": 1, "l1.bias": 1}, {"l1.weight": 2}, {"l1.bias": 3}), x)
    with pytest.raises(ValueError, match="Expected all elements of parameter_and_buffer_dicts to be dictionaries"):
        functional_call(mod, [("l1.weight", tl.ones(1, 1))], x)
    with pytest.raises(ValueError, match="to be a dict, or a list/tuple of dicts, but got <class 'set'>"):
        functional_call(mod, {1, 2}, x)
    assert functional_call(mod, (), x).tolist() == mod(x).tolist()


def test_stateless_functional_call_warns_like_torch():
    m = tl.nn.Linear(1, 1)
    with pytest.warns(FutureWarning, match="Please use `tensorlab.func.functional_call`"):
        tl.nn.utils.stateless.functional_call(m, dict(m.named_parameters()), tl.ones(3, 1))


@both_calls
def test_parametrization_original_can_be_replaced(fc):
    class Double(tl.nn.Module):
        def forward(self, X):
            return X * 2

    module = _MockModule()
    tl.nn.utils.parametrize.register_parametrization(module.l1, "weight", Double())
    with tl.no_grad():
        module.l1.parametrizations.weight.original.fill_(1.0)
        module.l1.bias.fill_(0.0)
    params = {"l1.parametrizations.weight.original": tl.nn.Parameter(tl.tensor([[4.0]])), "buffer": tl.zeros(1)}
    assert fc(module, params, tl.tensor([[0.5]])).tolist() == [[4.0]]  # the parametrization still applies
    with pytest.raises(RuntimeError):
        fc(module, params, tl.ones(4, 5))
    assert module.l1.weight.tolist() == [[2.0]]
    assert [n for n, _ in module.named_parameters()] == ["l1.bias", "l1.parametrizations.weight.original"]
