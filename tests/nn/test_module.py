"""nn.Module core: registration, traversal, state dicts, hooks, moving/casting, containers, repr."""

from __future__ import annotations

from collections import OrderedDict

import numpy as np
import pytest

import tensorlab as tl
from tensorlab import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 4)
        self.scale = nn.Parameter(tl.ones(4))
        self.register_buffer("running", tl.zeros(4))
        self.register_buffer("scratch", tl.zeros(2), persistent=False)

    def forward(self, x):
        return self.fc(x) * self.scale


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Block()
        self.b = Block()
        self.b.fc = self.a.fc  # shared submodule
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(4, 2))

    def forward(self, x):
        return self.head(self.b(self.a(x)[:, :3]))


def test_registration_and_traversal():
    net = Net()
    names = [n for n, _ in net.named_parameters()]
    # as PyTorch: a module's own parameters come before its children's
    assert names == ["a.scale", "a.fc.weight", "a.fc.bias", "b.scale", "head.1.weight", "head.1.bias"]
    assert len(list(net.parameters())) == 6  # the shared Linear counted once
    assert [n for n, _ in net.named_buffers()] == ["a.running", "a.scratch", "b.running", "b.scratch"]
    assert [n for n, _ in net.named_children()] == ["a", "b", "head"]
    assert [n for n, _ in net.named_modules()] == ["", "a", "a.fc", "b", "head", "head.0", "head.1"]
    assert net.get_submodule("head.1") is net.head[1]
    assert net.get_parameter("a.scale") is net.a.scale
    assert list(net.parameters(recurse=False)) == []
    with pytest.raises(AttributeError, match="Block has no attribute `nope`"):  # PyTorch's message
        net.get_submodule("a.nope")


def test_state_dict_keys_and_persistence():
    net = Net()
    keys = list(net.state_dict())
    # as PyTorch: own parameters, own persistent buffers, then children; shared weights appear under both
    assert keys == ["a.scale", "a.running", "a.fc.weight", "a.fc.bias", "b.scale", "b.running", "b.fc.weight",
                    "b.fc.bias", "head.1.weight", "head.1.bias"]
    sd = net.state_dict()
    assert not sd["a.scale"].requires_grad and sd["a.scale"]._storage is net.a.scale._storage
    assert net.state_dict(keep_vars=True)["a.scale"] is net.a.scale


def test_load_state_dict_validates_before_changing_anything():
    net, other = Net(), Net()
    before = {k: v.clone() for k, v in net.state_dict().items()}
    bad = other.state_dict()
    bad["head.1.weight"] = tl.zeros(3, 3)
    del bad["a.scale"]
    bad["extra.weight"] = tl.zeros(1)
    with pytest.raises(RuntimeError) as exc:
        net.load_state_dict(bad)
    msg = str(exc.value)
    assert 'Missing key(s) in state_dict: "a.scale"' in msg
    assert 'Unexpected key(s) in state_dict: "extra.weight"' in msg
    assert "size mismatch for head.1.weight: copying a param with shape [3, 3]" in msg
    for k, v in net.state_dict().items():  # nothing changed
        np.testing.assert_array_equal(v.numpy(), before[k].numpy())
    good = other.state_dict()
    result = net.load_state_dict(good)
    assert result.missing_keys == [] and result.unexpected_keys == []
    np.testing.assert_array_equal(net.head[1].weight.detach().numpy(), other.head[1].weight.detach().numpy())
    partial = {"a.scale": tl.full((4,), 3.0)}
    result = net.load_state_dict(partial, strict=False)
    assert "a.fc.weight" in result.missing_keys and net.a.scale.tolist() == [3.0] * 4
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        net.load_state_dict([1, 2])


def test_registration_errors():
    m = nn.Module()
    with pytest.raises(TypeError, match="cannot assign 'Tensor' object to parameter 'w'"):
        m.register_parameter("w", tl.ones(2))
    with pytest.raises(KeyError, match='contain "."'):
        m.register_buffer("a.b", tl.ones(1))
    x = tl.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'w'"):
        m.register_parameter("w", _non_leaf_parameter(x))
    m.w = nn.Parameter(tl.ones(2))
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'w'"):
        m.w = tl.ones(2)
    m.w = None
    assert m.w is None and list(m.parameters()) == []

    class Early(nn.Module):
        def __init__(self):
            self.p = nn.Parameter(tl.ones(1))

    with pytest.raises(AttributeError, match="before Module.__init__"):
        Early()


def _non_leaf_parameter(x):
    p = nn.Parameter(tl.ones(2))
    p.grad_fn = (x * 2).grad_fn  # a parameter that is the output of an op
    return p


def test_train_eval_zero_grad_requires_grad():
    net = Net()
    net.eval()
    assert not net.training and not net.head[0].training
    net.train()
    assert all(m.training for m in net.modules())
    net(tl.randn(2, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(float(np.abs(p.grad.numpy()).sum()) == 0 for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.requires_grad_(False)
    assert not any(p.requires_grad for p in net.parameters())


def test_to_keeps_parameter_identity():
    net = Net()
    params = list(net.parameters())
    opt = tl.optim.SGD(net.parameters(), lr=0.1)
    net.double()
    assert all(p.dtype is tl.float64 for p in net.parameters()) and net.a.running.dtype is tl.float64
    assert [id(p) for p in net.parameters()] == [id(p) for p in params]
    assert opt.param_groups[0]["params"][0] is params[0]
    net.to(tl.float32)
    with pytest.raises(TypeError, match="only accepts floating point dtypes"):
        net.to(tl.int64)
    if tl.cuda.is_available():
        net.to("cuda")
        assert all(p.is_cuda for p in net.parameters()) and net.a.running.is_cuda
        assert [id(p) for p in net.parameters()] == [id(p) for p in params]
        out = net(tl.randn(2, 3, device="cuda"))
        assert out.is_cuda
        net.cpu()


def test_forward_hooks():
    m = nn.Linear(2, 2)
    calls = []
    h1 = m.register_forward_pre_hook(lambda mod, args: (args[0] * 0,))
    h2 = m.register_forward_hook(lambda mod, args, out: calls.append(out.shape) or out + 100)
    out = m(tl.ones(1, 2))
    np.testing.assert_allclose(out.detach().numpy(), m.bias.detach().numpy()[None] + 100, rtol=1e-6)
    assert calls == [(1, 2)]
    h1.remove()
    h2.remove()
    np.testing.assert_allclose(m(tl.ones(1, 2)).detach().numpy(),
                               (m.weight.detach().numpy().sum(1) + m.bias.detach().numpy())[None], rtol=1e-6)
    m.register_forward_pre_hook(lambda mod, args, kwargs: (args, {"x": kwargs.get("x", None)}), with_kwargs=True)


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and isinstance(seq[1:], nn.Sequential)
    seq.append(nn.Sigmoid())
    del seq[1]
    assert [type(m).__name__ for m in seq] == ["Linear", "Linear", "Sigmoid"] and list(seq._modules) == ["0", "1", "2"]
    named = nn.Sequential(OrderedDict([("enc", nn.Linear(2, 2)), ("act", nn.Tanh())]))
    assert list(named.state_dict()) == ["enc.weight", "enc.bias"]
    ml = nn.ModuleList([nn.Linear(1, 1) for _ in range(3)])
    ml += [nn.Linear(1, 1)]
    assert len(ml) == 4 and len(list(ml.parameters())) == 8
    md = nn.ModuleDict({"x": nn.Linear(1, 2)})
    md["y"] = nn.Linear(2, 1)
    assert list(md.keys()) == ["x", "y"] and "x" in md
    pl = nn.ParameterList([tl.ones(2), nn.Parameter(tl.zeros(1))])
    assert all(isinstance(p, nn.Parameter) for p in pl) and len(list(pl.parameters())) == 2
    pd = nn.ParameterDict({"a": tl.ones(1)})
    assert isinstance(pd["a"], nn.Parameter) and list(pd.state_dict()) == ["a"]
    with pytest.raises(IndexError):
        seq[5]


def test_repr_matches_pytorch():
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 1, bias=False)))
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Sequential(\n"
        "    (0): Linear(in_features=3, out_features=1, bias=False)\n"
        "  )\n"
        ")"
    )
    assert repr(nn.Parameter(tl.ones(1))) == "Parameter containing:\ntensor([1.], requires_grad=True)"


def test_checkpoint_roundtrip_of_a_model(tmp_path):
    net = Net()
    tl.save(net.state_dict(), tmp_path / "net.safetensors")
    fresh = Net()
    fresh.load_state_dict(tl.load(tmp_path / "net.safetensors"))
    x = tl.randn(3, 3)
    np.testing.assert_array_equal(fresh(x).detach().numpy(), net(x).detach().numpy())


def test_parameter_dict_repr_and_load_result_repr():
    """ParameterDict lists its entries (its repr was empty); load_state_dict's result prints as
    PyTorch's (strings from torch 2.13 for the same calls)."""
    pd = nn.ParameterDict({"a": tl.zeros(2, 3), "b": tl.zeros(1)})
    assert repr(pd) == ("ParameterDict(\n    (a): Parameter containing: [tensorlab.FloatTensor of size 2x3]\n"
                        "    (b): Parameter containing: [tensorlab.FloatTensor of size 1]\n)")
    # PyTorch's layouts: one entry inline, ParameterList with the dtype
    assert repr(nn.ParameterDict({"z": tl.zeros(1)})) == (
        "ParameterDict(  (z): Parameter containing: [tensorlab.FloatTensor of size 1])")
    assert repr(nn.ParameterList([tl.zeros(1), tl.zeros(2)])) == (
        "ParameterList(\n    (0): Parameter containing: [tensorlab.float32 of size 1]\n"
        "    (1): Parameter containing: [tensorlab.float32 of size 2]\n)")
    m = nn.Linear(2, 1)
    assert repr(m.load_state_dict(m.state_dict())) == "<All keys matched successfully>"
    res = m.load_state_dict({"weight": tl.zeros(1, 2), "extra": tl.zeros(1)}, strict=False)
    assert repr(res) == "_IncompatibleKeys(missing_keys=['bias'], unexpected_keys=['extra'])"
    assert res.missing_keys == ["bias"] and tuple(res) == (["bias"], ["extra"])


def test_state_dict_metadata_and_batchnorm_upgrade():
    """state_dict carries PyTorch's per-module ``_metadata`` versions; a BatchNorm state dict without
    them (an older or plain dict) may lack num_batches_tracked, which then keeps the module's value,
    while its own (version 2) state dict without it is missing a key, as in torch 2.13."""
    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    sd = net.state_dict()
    assert sd._metadata == {"": {"version": 1}, "0": {"version": 1}, "1": {"version": 2}}
    plain = {k: v for k, v in sd.items() if k != "1.num_batches_tracked"}
    target = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    target[1].num_batches_tracked.fill_(7)
    assert repr(target.load_state_dict(plain)) == "<All keys matched successfully>"
    assert target[1].num_batches_tracked.item() == 7
    del sd["1.num_batches_tracked"]
    with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "1.num_batches_tracked"'):
        target.load_state_dict(sd)
    missing = nn.BatchNorm1d(2).load_state_dict({}, strict=False).missing_keys
    assert missing == ["weight", "bias", "running_mean", "running_var"]  # torch 2.13's list


def test_module_list_repr_compresses_repeats():
    """ModuleList's repr compresses runs of identical entries, as PyTorch's (string from torch 2.13)."""
    net = nn.Sequential(nn.ModuleList([nn.ReLU()] * 3), nn.ModuleList([nn.ModuleList([nn.ReLU()])] * 2),
                        nn.ModuleList([nn.Linear(1, 1), nn.Tanh(), nn.Tanh(), nn.Linear(1, 1)]), nn.ModuleList())
    assert repr(net) == (
        "Sequential(\n  (0): ModuleList(\n    (0-2): 3 x ReLU()\n  )\n  (1): ModuleList(\n    (0-1): 2 x ModuleList(\n"
        "      (0): ReLU()\n    )\n  )\n  (2): ModuleList(\n    (0): Linear(in_features=1, out_features=1, bias=True)\n"
        "    (1-2): 2 x Tanh()\n    (3): Linear(in_features=1, out_features=1, bias=True)\n  )\n  (3): ModuleList()\n)")


def test_forward_hook_always_call_and_pre_hook_result_check():
    """register_forward_hook(always_call=True) also runs when forward (or an earlier hook) raises,
    with the output so far, its own error silenced; a with_kwargs pre-hook must return None or
    (args, kwargs). As torch 2.13 (the log lists are torch's)."""

    class Boom(Exception):
        pass

    class Failing(nn.Module):
        def forward(self, x, y=None):
            raise Boom

    m, log = Failing(), []
    m.register_forward_hook(lambda mod, a, o: log.append(("always", o)), always_call=True)
    m.register_forward_hook(lambda mod, a, o: log.append(("normal", o)))
    m.register_forward_hook(lambda mod, a, k, o: log.append(("kw", sorted(k), o)), always_call=True, with_kwargs=True)
    m.register_forward_hook(lambda mod, a, o: 1 / 0, always_call=True)
    with pytest.warns(UserWarning, match="always_call=True"), pytest.raises(Boom):
        m(1, y=2)
    assert log == [("always", None), ("kw", ["y"], None)]

    lin, log = nn.Linear(1, 1), []

    def bad_hook(mod, a, o):
        log.append("first")
        raise Boom

    lin.register_forward_hook(bad_hook)
    lin.register_forward_hook(lambda mod, a, o: log.append(("second", o is None)), always_call=True)
    with pytest.raises(Boom):
        lin(tl.ones(1, 1))
    assert log == ["first", ("second", False)]

    lin = nn.Linear(1, 1)
    lin.register_forward_pre_hook(lambda mod, a, k: a, with_kwargs=True)
    with pytest.raises(RuntimeError, match="must return None or a tuple of \\(new_args, new_kwargs\\)"):
        lin(tl.ones(1, 1))


def test_sequential_and_module_list_pop_add_and_repeat():
    # PyTorch's list-like API: pop, + / += and * (repetition shares the module objects)
    relu, tanh, sig = nn.ReLU(), nn.Tanh(), nn.Sigmoid()
    s = nn.Sequential(relu, tanh, sig)
    assert s.pop(1) is tanh and list(s._modules) == ["0", "1"] and s[1] is sig  # renumbered
    twice = s * 2
    assert list(twice) == [relu, sig, relu, sig] and list(2 * s) == list(twice) and len(s) == 2
    s += nn.Sequential(tanh)
    assert list(s) == [relu, sig, tanh]
    s *= 2
    assert list(s._modules) == [str(i) for i in range(6)] and s[5] is tanh
    x = tl.tensor([-1.0, 2.0])
    assert s(x).tolist() == nn.Sequential(relu, sig, tanh, relu, sig, tanh)(x).tolist()
    with pytest.raises(ValueError, match="Non-positive multiplication factor 0"):
        s * 0
    with pytest.raises(TypeError):
        s * 1.5
    with pytest.raises(ValueError, match="supports only objects of Sequential"):
        s + [relu]
    with pytest.raises(IndexError):
        s.pop(10)
    m = nn.ModuleList([relu, tanh])
    joined = m + [sig]
    assert isinstance(joined, nn.ModuleList) and list(joined) == [relu, tanh, sig] and len(m) == 2
    assert m.pop(0) is relu and list(m._modules) == ["0"] and m[0] is tanh
    assert list(m.pop(slice(0, 1))) == [tanh] and len(m) == 0


def test_parameter_dict_has_dict_api():
    a, b = nn.Parameter(tl.ones(2)), nn.Parameter(tl.zeros(1))
    d = nn.ParameterDict({"a": a, "b": b})
    assert d.get("a") is a and d.get("z") is None and d.get("z", 3) == 3
    assert d.setdefault("a") is a and isinstance(d.setdefault("c", tl.ones(3)), nn.Parameter)
    k, v = d.popitem()
    assert k == "c" and v.shape == (3,) and list(d.keys()) == ["a", "b"]
    e = d.copy()
    assert e["a"] is a and list(e.keys()) == ["a", "b"]
    f = d.fromkeys(["x", "y"], tl.ones(1))
    assert list(f.keys()) == ["x", "y"] and f["x"] is not f["y"]  # each wrapped in its own Parameter
    g = d | f
    assert list(g.keys()) == ["a", "b", "x", "y"] and g["x"] is f["x"] and list(d.keys()) == ["a", "b"]
    d |= f
    assert [n for n, _ in d.named_parameters()] == ["a", "b", "x", "y"]
    nn.ParameterDict().update(d)  # a ParameterDict is a mapping for update()
    d.clear()
    assert len(d) == 0 and list(d.parameters()) == []
    with pytest.raises(KeyError):
        d.popitem()


def test_insert_of_a_non_module_leaves_the_container_whole():
    s = tl.nn.Sequential(tl.nn.ReLU(), tl.nn.Tanh(), tl.nn.ReLU())
    with pytest.raises(AssertionError, match="module should be of type"):  # (PyTorch's type)
        s.insert(1, [tl.nn.Linear(6, 7)])
    assert len(s) == 3 and isinstance(s[1], tl.nn.Tanh)
    m = tl.nn.ModuleList([tl.nn.ReLU(), tl.nn.Tanh()])
    with pytest.raises(TypeError, match="int is not a Module subclass"):
        m.insert(1, 5)
    assert len(m) == 2 and isinstance(m[1], tl.nn.Tanh)


def test_call_super_init_runs_the_next_init_in_the_mro():
    class Mixin:
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.mixin_init = True

    class After(tl.nn.Module, Mixin):
        call_super_init = True

    class Plain(tl.nn.Module, Mixin):
        pass

    assert After().mixin_init is True and not hasattr(Plain(), "mixin_init")


def test_extra_state_that_creates_a_submodule_loads():
    # torch 2.15's test_extra_state_non_dict: set_extra_state runs before the children are loaded, so a
    # submodule it creates receives its own keys (here another extra state, and a Linear's weights)
    class Holder(nn.Module):
        def __init__(self, foo):
            super().__init__()
            self.foo = foo

        def get_extra_state(self):
            return self.foo

        def set_extra_state(self, state):
            self.foo = state

    target = Holder("else")
    assert repr(target.load_state_dict(Holder(Holder(3)).state_dict())) == "<All keys matched successfully>"
    assert target.foo.foo == 3
    linear = nn.Linear(2, 2)
    other = Holder("x")
    other.load_state_dict(Holder(linear).state_dict())
    assert other.foo is linear
    # a load that fails on a key of the module's own still changes nothing when no submodule is missing
    kept = Holder(5)
    with pytest.raises(RuntimeError, match="Unexpected key"):
        kept.load_state_dict({"_extra_state": 7, "bogus": tl.ones(1)})
    assert kept.foo == 5


def test_module_api_as_pytorch_2_15():
    # an nn.Buffer over another attribute is refused (register_buffer's KeyError; `training` was
    # replaced and eval() then failed)
    m = nn.Linear(2, 2)
    m.plain = 5
    for name in ("training", "plain"):
        with pytest.raises(KeyError, match=f"attribute '{name}' already exists"):
            setattr(m, name, nn.Buffer(tl.ones(1)))
    assert m.training is True and m.plain == 5 and list(m.state_dict()) == ["weight", "bias"]
    # load_state_dict(assign=True) puts the state dict's own tensors in: tied weights stay tied
    seq = nn.Sequential(nn.Linear(2, 2, bias=False), nn.Linear(2, 2, bias=False))
    p = nn.Parameter(tl.ones(2, 2))
    seq.load_state_dict({"0.weight": p, "1.weight": p}, assign=True)
    assert seq[0].weight is p and seq[1].weight is p and len(list(seq.parameters())) == 1
    frozen = nn.Linear(2, 2)
    frozen.weight.requires_grad_(False)
    q = nn.Parameter(tl.ones(2, 2))
    frozen.load_state_dict({"weight": q, "bias": tl.zeros(2)}, assign=True)
    assert frozen.weight is q and not q.requires_grad and frozen.bias.requires_grad
    with pytest.raises(RuntimeError, match='While copying the parameter named "weight".*floating point'):
        nn.Linear(2, 2).load_state_dict({"weight": tl.ones(2, 2, dtype=tl.int64), "bias": tl.zeros(2)},
                                        assign=True)
    # a user's _load_from_state_dict sees the loaded values after super()
    class Summed(nn.Linear):
        def _load_from_state_dict(self, *args):
            super()._load_from_state_dict(*args)
            self.total = self.weight.sum().item()

    s = Summed(2, 2)
    s.load_state_dict({"weight": tl.ones(2, 2), "bias": tl.zeros(2)})
    assert s.total == 4.0
    with pytest.raises(RuntimeError, match="does not accept copy argument"):
        nn.Linear(1, 1).to("cpu", copy=True)
