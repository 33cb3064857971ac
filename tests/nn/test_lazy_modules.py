"""Lazy modules (``nn.LazyLinear``, ``LazyBatchNorm1d/2d/3d``, ``LazyInstanceNorm1d/2d/3d``) and their
placeholders (``nn.UninitializedParameter``/``UninitializedBuffer``): materialization on the first
forward (shapes, dtypes, devices, the class change), initialisation as the eager module's, an
optimizer made before the first forward, state dicts before and after, and PyTorch's errors."""

from __future__ import annotations

import copy
import math
import pickle
import warnings

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn as nn
import tensorlab.nn.functional as F
from tensorlab.nn.modules.lazy import LazyModuleMixin
from tensorlab.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from tests.helpers import assert_close, to_numpy

RNG = np.random.default_rng(5)
UNINIT = "Attempted to use an uninitialized parameter in"


def _t(a, device="cpu", dtype=None):
    return tl.tensor(np.asarray(a), device=device, dtype=dtype)


# ----------------------------------------------------------------------------------------------
# the placeholders
# ----------------------------------------------------------------------------------------------
def test_uninitialized_parameter_attributes():
    p = UninitializedParameter()
    assert isinstance(p, nn.Parameter) and is_lazy(p) and not is_lazy(nn.Parameter(tl.ones(1)))
    assert repr(p) == "<UninitializedParameter>" and str(p) == "<UninitializedParameter>"
    assert p.requires_grad and p.is_leaf and p.grad is None
    assert p.dtype is tl.float32 and p.device == tl.device("cpu") and p.size() == (0,)
    assert hash(p) == hash(p)
    q = UninitializedParameter(False, "cpu", tl.float64)  # positional: requires_grad, device, dtype
    assert not q.requires_grad and q.dtype is tl.float64
    b = UninitializedBuffer(dtype=tl.float16, persistent=False)
    assert not isinstance(b, nn.Parameter) and is_lazy(b) and not b.requires_grad and b.persistent is False
    assert repr(b) == "<UninitializedBuffer>"
    m = nn.Module()
    m.b = b  # a Buffer: registered as one, with its persistence
    assert list(m._buffers) == ["b"] and "b" in m._non_persistent_buffers_set and isinstance(b, nn.Buffer)
    m.p = UninitializedParameter()
    assert list(m._parameters) == ["p"]


def test_uninitialized_shape_raises_runtime_error():
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        _ = UninitializedParameter().shape
    with pytest.raises(RuntimeError, match="Can't share memory on an uninitialized parameter"):
        UninitializedBuffer().share_memory_()


_USES = {
    "add": lambda p: p + 1, "tl.add": lambda p: tl.add(p, 1), "rmul": lambda p: 2 * p, "sum": lambda p: p.sum(),
    "dim": lambda p: p.dim(), "numel": lambda p: p.numel(), "detach": lambda p: p.detach(),
    "requires_grad_": lambda p: p.requires_grad_(False), "len": lambda p: len(p), "getitem": lambda p: p[0],
    "iter": lambda p: list(p), "bool": lambda p: bool(p), "float": lambda p: float(p), "item": lambda p: p.item(),
    "numpy": lambda p: p.numpy(), "cat": lambda p: tl.cat([p, p]), "F.linear": lambda p: F.linear(tl.ones(2, 3), p),
    "matmul": lambda p: p @ p, "fill_": lambda p: p.fill_(1.0), "eq": lambda p: p == p,
}


@pytest.mark.parametrize("use", list(_USES.values()), ids=list(_USES))
@pytest.mark.parametrize("cls", [UninitializedParameter, UninitializedBuffer])
def test_uninitialized_ops_raise_value_error(cls, use):
    p = cls()
    with pytest.raises(ValueError, match=UNINIT) as info:
        use(p)
    assert f"tensorlab.nn.parameter.{cls.__name__}" in str(info.value)


def test_uninitialized_error_names_the_op():
    p = UninitializedParameter()
    with pytest.raises(ValueError, match=r"in Tensor\.sum\."):
        p.sum()
    with pytest.raises(ValueError, match=r"in tensorlab\.add\."):
        tl.add(tl.ones(0), p)


def test_uninitialized_conversions():
    p = UninitializedParameter()
    assert p.to(tl.float32) is p and p.float() is p  # nothing changes: itself
    e = p.to(tl.float64)  # a parameter's conversion: an empty tensor (as PyTorch's)
    assert type(e) is tl.Tensor and e.shape == (0,) and e.dtype is tl.float64
    assert p.double().dtype is tl.float64 and p.half().dtype is tl.float16 and p.long().dtype is tl.int64
    assert is_lazy(p) and p.dtype is tl.float32
    b = UninitializedBuffer(persistent=False)
    c = b.to(dtype=tl.float64)  # a buffer's: another placeholder (Module._apply replaces buffers)
    assert type(c) is UninitializedBuffer and c.dtype is tl.float64 and c.persistent is False
    d = p.data
    assert type(d) is tl.Tensor and d.shape == (0,) and d.dtype is tl.float32


def test_materialize_in_place():
    p = UninitializedParameter(dtype=tl.float64)
    ident = id(p)
    p.materialize((2, 3))
    assert id(p) == ident and type(p) is nn.Parameter and not is_lazy(p)
    assert p.shape == (2, 3) and p.dtype is tl.float64 and p.requires_grad
    with tl.no_grad():
        p.fill_(2.0)
    assert_close(p.sum(), np.float64(12.0))
    q = UninitializedParameter()
    q.materialize((4,), dtype=tl.float16)  # keyword form, overriding the dtype
    assert q.dtype is tl.float16 and q.shape == (4,)
    b = UninitializedBuffer()
    b.materialize([5])
    assert type(b) is tl.Tensor and b.shape == (5,) and not b.requires_grad


def test_materialize_on_cuda(device):
    p = UninitializedParameter(device=device)
    assert p.device.type == device
    p.materialize((3,), dtype=tl.float64)
    assert p.device.type == device and p.shape == (3,)
    with tl.no_grad():
        p.fill_(1.5)
    assert_close(p, np.full(3, 1.5))


def test_uninitialized_copy_and_pickle():
    p = UninitializedParameter(False, dtype=tl.float64)
    c = copy.deepcopy(p)
    assert type(c) is UninitializedParameter and c is not p and c.dtype is tl.float64 and not c.requires_grad
    pair = copy.deepcopy([p, p])
    assert pair[0] is pair[1]  # the memo
    r = pickle.loads(pickle.dumps(p))
    assert type(r) is UninitializedParameter and not r.requires_grad  # (PyTorch keeps only requires_grad)
    assert type(copy.copy(UninitializedBuffer())) is UninitializedBuffer


# ----------------------------------------------------------------------------------------------
# LazyLinear
# ----------------------------------------------------------------------------------------------
def test_lazy_linear_construction():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch 2.15 warns nothing on construction
        m = nn.LazyLinear(3)
    assert type(m) is nn.LazyLinear and isinstance(m, nn.Linear) and isinstance(m, LazyModuleMixin)
    assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=True)"
    assert m.has_uninitialized_params()
    assert [type(p) for p in m.parameters()] == [UninitializedParameter, UninitializedParameter]
    m = nn.LazyLinear(4, False, None, tl.float64)  # positional form
    assert m.bias is None and m.weight.dtype is tl.float64 and list(m.state_dict()) == ["weight"]
    m = nn.LazyLinear(out_features=2, bias=True, device="cpu", dtype=tl.float16)  # keyword form
    assert m.weight.dtype is tl.float16 and m.bias.dtype is tl.float16


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64])
def test_lazy_linear_first_forward(device, dtype):
    m = nn.LazyLinear(3, device=device, dtype=dtype)
    w, b = m.weight, m.bias
    x = RNG.standard_normal((2, 5))
    y = m(_t(x, device, dtype))
    assert type(m) is nn.Linear and m.in_features == 5 and m.out_features == 3
    assert m.weight is w and m.bias is b and type(w) is nn.Parameter
    assert w.shape == (3, 5) and b.shape == (3,) and w.dtype is dtype and w.device.type == device
    assert y.shape == (2, 3) and y.dtype is dtype
    assert_close(y, x @ to_numpy(w).T.astype(np.float64) + to_numpy(b), rtol=1e-4, atol=1e-5, check_dtype=False)
    assert repr(m) == "Linear(in_features=5, out_features=3, bias=True)"
    assert not hasattr(m, "_initialize_hook") and not hasattr(m, "_load_hook")
    assert len(m._forward_pre_hooks) == 0 and len(m._load_state_dict_pre_hooks) == 0
    y2 = m(_t(x, device, dtype))  # a plain Linear from now on
    assert_close(y2, to_numpy(y), check_dtype=False)


def test_lazy_linear_input_forms():
    m = nn.LazyLinear(2)
    m(input=tl.ones(3, 4))  # keyword input reaches initialize_parameters too
    assert m.in_features == 4
    m = nn.LazyLinear(2)
    assert m(tl.ones(6)).shape == (2,) and m.in_features == 6  # a 1-d input
    m = nn.LazyLinear(2)
    assert m(tl.ones(2, 3, 7)).shape == (2, 3, 2) and m.weight.shape == (2, 7)


def test_lazy_linear_init_matches_linear():
    """Same seed, same draws: LazyLinear materializes then runs Linear's kaiming-uniform init."""
    tl.manual_seed(123)
    eager = nn.Linear(16, 40)
    tl.manual_seed(123)
    lazy = nn.LazyLinear(40)
    lazy(tl.ones(1, 16))
    np.testing.assert_array_equal(to_numpy(lazy.weight), to_numpy(eager.weight))
    np.testing.assert_array_equal(to_numpy(lazy.bias), to_numpy(eager.bias))
    bound = 1 / math.sqrt(16)  # kaiming_uniform_(a=sqrt(5)) on fan_in 16, and the bias's bound
    w, b = to_numpy(lazy.weight), to_numpy(lazy.bias)
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.9 * bound and abs(w.mean()) < 0.05
    assert np.abs(b).max() <= bound


def test_lazy_linear_optimizer_made_before_forward(device):
    m = nn.LazyLinear(2, device=device)
    opt = tl.optim.SGD(m.parameters(), lr=0.5)
    x = _t(RNG.standard_normal((4, 3)).astype(np.float32), device)
    m(x)
    before = to_numpy(m.weight).copy(), to_numpy(m.bias).copy()
    assert opt.param_groups[0]["params"][0] is m.weight
    loss = m(x).sum()
    loss.backward()
    gw = to_numpy(x).sum(axis=0)  # d(sum(x W^T + b))/dW: each row is the column sums of x
    assert_close(m.weight.grad, np.tile(gw, (2, 1)), rtol=1e-5, atol=1e-5)
    opt.step()
    assert_close(m.weight, before[0] - 0.5 * np.tile(gw, (2, 1)), rtol=1e-5, atol=1e-5)
    assert_close(m.bias, before[1] - 0.5 * 4, rtol=1e-5, atol=1e-5)


def test_lazy_linear_gradcheck():
    m = nn.LazyLinear(2, dtype=tl.float64)
    x = tl.tensor(RNG.standard_normal((3, 4)), dtype=tl.float64, requires_grad=True)
    m(x)
    assert tl.autograd.gradcheck(lambda inp, w, b: F.linear(inp, w, b), (x, m.weight, m.bias))
    assert tl.autograd.gradcheck(lambda inp: m(inp), (x,))


def test_lazy_linear_conversions_before_forward(device):
    m = nn.LazyLinear(3)
    w = m.weight
    m.double()
    assert m.weight is w and is_lazy(w) and w.dtype is tl.float64
    m.to(device)
    assert is_lazy(w) and w.device.type == device
    m(tl.ones(2, 4, dtype=tl.float64, device=device))
    assert m.weight is w and w.dtype is tl.float64 and w.device.type == device and w.shape == (3, 4)


def test_lazy_linear_deepcopy_before_forward():
    m = nn.LazyLinear(3)
    c = copy.deepcopy(m)
    assert type(c) is nn.LazyLinear and c.weight is not m.weight and is_lazy(c.weight)
    c(tl.ones(1, 2))
    assert type(c) is nn.Linear and type(m) is nn.LazyLinear and is_lazy(m.weight)


def test_lazy_linear_in_sequential():
    net = nn.Sequential(nn.LazyLinear(8), nn.ReLU(), nn.LazyLinear(2))
    y = net(tl.ones(5, 3))
    assert y.shape == (5, 2) and [type(net[0]), type(net[2])] == [nn.Linear, nn.Linear]
    assert net[0].weight.shape == (8, 3) and net[2].weight.shape == (2, 8)


# ----------------------------------------------------------------------------------------------
# state dicts
# ----------------------------------------------------------------------------------------------
def test_state_dict_before_materialization():
    m = nn.LazyLinear(3)
    sd = m.state_dict()
    assert list(sd) == ["weight", "bias"] and sd["weight"] is m.weight and type(sd["bias"]) is UninitializedParameter
    assert {k: type(v) for k, v in m.state_dict(keep_vars=True).items()} == {
        "weight": UninitializedParameter, "bias": UninitializedParameter}
    other = nn.LazyLinear(3)
    assert repr(other.load_state_dict(sd)) == "<All keys matched successfully>"  # placeholder into placeholder
    assert type(other) is nn.LazyLinear and is_lazy(other.weight)
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "bias"'):
        nn.LazyLinear(3).load_state_dict({"weight": sd["weight"]})
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        nn.Linear(2, 3).load_state_dict(sd)  # a placeholder into a real parameter


def test_load_real_state_dict_materializes(device):
    src = nn.Linear(4, 3, device=device)
    m = nn.LazyLinear(3, device=device)
    w = m.weight
    assert repr(m.load_state_dict(src.state_dict())) == "<All keys matched successfully>"
    assert m.weight is w and type(w) is nn.Parameter and w.shape == (3, 4) and not m.has_uninitialized_params()
    assert type(m) is nn.LazyLinear and m.in_features == 0  # (the class changes on the first forward)
    np.testing.assert_array_equal(to_numpy(m.weight), to_numpy(src.weight))
    x = _t(RNG.standard_normal((2, 4)).astype(np.float32), device)
    assert_close(m(x), to_numpy(src(x)))
    assert type(m) is nn.Linear and m.in_features == 4
    np.testing.assert_array_equal(to_numpy(m.weight), to_numpy(src.weight))  # not re-initialised


def test_load_real_state_dict_then_wrong_input():
    m = nn.LazyLinear(3)
    m.load_state_dict(nn.Linear(4, 3).state_dict())
    with pytest.raises(AssertionError, match="The in_features inferred from input: 5 is not equal to in_features"):
        m(tl.ones(2, 5))


def test_state_dict_after_materialization_round_trip():
    m = nn.LazyLinear(3)
    m(tl.ones(2, 4))
    sd = m.state_dict()
    assert {k: (type(v), tuple(v.shape)) for k, v in sd.items()} == {
        "weight": (tl.Tensor, (3, 4)), "bias": (tl.Tensor, (3,))}
    eager = nn.Linear(4, 3)
    eager.load_state_dict(sd)
    np.testing.assert_array_equal(to_numpy(eager.weight), to_numpy(m.weight))
    with pytest.raises(RuntimeError, match="size mismatch for weight"):
        nn.Linear(5, 3).load_state_dict(sd)


def test_lazy_batch_norm_state_dict():
    bn = nn.LazyBatchNorm1d()
    sd = bn.state_dict()
    assert {k: type(v) for k, v in sd.items()} == {
        "weight": UninitializedParameter, "bias": UninitializedParameter, "running_mean": UninitializedBuffer,
        "running_var": UninitializedBuffer, "num_batches_tracked": tl.Tensor}
    nn.LazyBatchNorm1d().load_state_dict(sd)  # placeholders into placeholders
    src = nn.BatchNorm1d(5)
    with tl.no_grad():
        src.weight.fill_(2.0)
        src.running_mean.fill_(0.5)
        src.num_batches_tracked.fill_(7)
    lazy = nn.LazyBatchNorm1d()
    lazy.load_state_dict(src.state_dict())
    assert lazy.running_mean.shape == (5,) and type(lazy.running_mean) is tl.Tensor
    assert int(lazy.num_batches_tracked.item()) == 7
    lazy.eval()
    src.eval()
    x = _t(RNG.standard_normal((3, 5)).astype(np.float32))
    assert_close(lazy(x), to_numpy(src(x)))
    assert type(lazy) is nn.BatchNorm1d and lazy.num_features == 5
    np.testing.assert_array_equal(to_numpy(lazy.weight), np.full(5, 2.0, np.float32))  # not re-initialised


# ----------------------------------------------------------------------------------------------
# lazy norms
# ----------------------------------------------------------------------------------------------
def _bn_ref(x, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    mean, var = x.mean(axis=axes, keepdims=True), x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps), x.mean(axis=axes), x.var(axis=axes, ddof=1)


@pytest.mark.parametrize("cls,eager,shape", [
    (nn.LazyBatchNorm1d, nn.BatchNorm1d, (4, 3)), (nn.LazyBatchNorm1d, nn.BatchNorm1d, (2, 3, 4)),
    (nn.LazyBatchNorm2d, nn.BatchNorm2d, (2, 3, 2, 2)), (nn.LazyBatchNorm3d, nn.BatchNorm3d, (2, 3, 2, 1, 2)),
])
def test_lazy_batch_norm_first_forward(cls, eager, shape, device):
    m = cls(device=device)
    assert repr(m) == (f"{cls.__name__}(0, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                       "track_running_stats=True)")
    x = RNG.standard_normal(shape).astype(np.float32)
    y = m(_t(x, device))
    assert type(m) is eager and m.num_features == 3
    for name in ("weight", "bias", "running_mean", "running_var"):
        t = getattr(m, name)
        assert t.shape == (3,) and t.dtype is tl.float32 and t.device.type == device and not is_lazy(t)
    assert type(m.weight) is nn.Parameter and type(m.running_mean) is tl.Tensor
    ref, mean, var = _bn_ref(x)
    assert_close(y, ref, rtol=1e-4, atol=1e-5)
    assert_close(m.running_mean, 0.1 * mean, rtol=1e-4, atol=1e-5)
    assert_close(m.running_var, 0.9 + 0.1 * var, rtol=1e-4, atol=1e-5)
    assert int(m.num_batches_tracked.item()) == 1
    assert repr(m).startswith(f"{eager.__name__}(3, eps=1e-05")


def test_lazy_batch_norm_options():
    m = nn.LazyBatchNorm1d(1e-3, 0.2, False, False)  # positional: eps, momentum, affine, track_running_stats
    assert not m.has_uninitialized_params() and list(m.state_dict()) == [] and m.eps == 1e-3 and m.momentum == 0.2
    x = RNG.standard_normal((5, 2)).astype(np.float32)
    assert_close(m(_t(x)), _bn_ref(x, 1e-3)[0], rtol=1e-4, atol=1e-5)
    assert type(m) is nn.BatchNorm1d and m.weight is None and m.running_mean is None
    m = nn.LazyBatchNorm2d(bias=False, dtype=tl.float64)
    assert list(m.state_dict()) == ["weight", "running_mean", "running_var", "num_batches_tracked"]
    m(tl.ones(2, 4, 1, 1, dtype=tl.float64))
    assert m.bias is None and m.weight.dtype is tl.float64 and m.running_var.dtype is tl.float64
    assert m.num_batches_tracked.dtype is tl.int64
    m = nn.LazyBatchNorm1d(momentum=None, track_running_stats=True, affine=False)
    m(tl.ones(3, 2))
    assert m.weight is None and m.running_mean.shape == (2,)


def test_lazy_batch_norm_optimizer_made_before_forward():
    m = nn.LazyBatchNorm1d()
    opt = tl.optim.SGD(m.parameters(), lr=1.0)
    x = _t(RNG.standard_normal((4, 2)).astype(np.float32))
    (m(x) * _t(np.array([1.0, 2.0], np.float32))).sum().backward()
    opt.step()
    assert_close(m.bias, np.array([-4.0, -8.0]), rtol=1e-5, atol=1e-5)  # d/d bias = batch size * scale


@pytest.mark.parametrize("cls,eager,shape", [
    (nn.LazyInstanceNorm1d, nn.InstanceNorm1d, (2, 3, 5)), (nn.LazyInstanceNorm2d, nn.InstanceNorm2d, (2, 3, 2, 3)),
    (nn.LazyInstanceNorm3d, nn.InstanceNorm3d, (1, 3, 2, 2, 2)),
])
def test_lazy_instance_norm_first_forward(cls, eager, shape, device):
    m = cls(device=device)
    # PyTorch's lazy instance norms default to affine=True, track_running_stats=True (unlike the eager ones)
    assert m.affine and m.track_running_stats
    assert list(m.state_dict()) == ["weight", "bias", "running_mean", "running_var", "num_batches_tracked"]
    x = RNG.standard_normal(shape).astype(np.float32)
    y = m(_t(x, device))
    assert type(m) is eager and m.num_features == 3 and m.weight.shape == (3,) and m.running_var.shape == (3,)
    axes = tuple(range(2, x.ndim))
    ref = (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + 1e-5)
    assert_close(y, ref, rtol=1e-4, atol=1e-5)
    assert_close(m.running_mean, 0.1 * x.mean(axis=axes).mean(axis=0), rtol=1e-4, atol=1e-5)


def test_lazy_instance_norm_unbatched_takes_dim_1():
    # PyTorch's: num_features is input.shape[1] even for an unbatched (C, L) input, so L is taken
    m = nn.LazyInstanceNorm1d()
    with pytest.raises(ValueError, match=r"expected input's size at dim=0 to match num_features \(6\), but got: 5"):
        m(tl.ones(5, 6))
    m = nn.LazyInstanceNorm1d(affine=False, track_running_stats=False)
    assert m(tl.ones(2, 3, 4)).shape == (2, 3, 4) and type(m) is nn.InstanceNorm1d


# ----------------------------------------------------------------------------------------------
# the mixin and errors
# ----------------------------------------------------------------------------------------------
class _NoInit(LazyModuleMixin, nn.Module):
    def __init__(self):
        super().__init__()
        self.w = UninitializedParameter()

    def forward(self, x):
        return x


class _HalfInit(_NoInit):
    def initialize_parameters(self, x):
        pass  # leaves w uninitialized


def test_mixin_errors():
    with pytest.raises(NotImplementedError, match="initialize_parameters is not implemented for _NoInit"):
        _NoInit()(tl.ones(1))
    with pytest.raises(RuntimeError, match="module _HalfInit has not been fully initialized"):
        _HalfInit()(tl.ones(1))
    assert _NoInit().has_uninitialized_params()


def test_lazy_module_errors():
    with pytest.raises(ValueError, match=r"expected 4D input \(got 3D input\)"):
        nn.LazyBatchNorm2d()(tl.ones(2, 3, 4))
    with pytest.raises(ValueError, match=UNINIT):
        nn.LazyLinear(3).requires_grad_(False)
    with pytest.raises(ValueError, match=UNINIT):
        sum(p.numel() for p in nn.LazyLinear(3).parameters())
    m = nn.LazyLinear(3)
    m.zero_grad()  # no gradients: nothing touched
    with pytest.raises(ValueError, match=UNINIT):
        F.linear(tl.ones(2, 4), m.weight)


def test_lazy_batch_norm_conversions_before_forward(device):
    m = nn.LazyBatchNorm1d()
    w = m.weight
    m.double().to(device)
    assert m.weight is w and is_lazy(w) and w.dtype is tl.float64 and w.device.type == device
    assert type(m.running_mean) is UninitializedBuffer and m.running_mean.dtype is tl.float64  # replaced, as PyTorch
    assert m.running_mean.device.type == device and m.num_batches_tracked.dtype is tl.int64
    m(tl.ones(3, 2, dtype=tl.float64, device=device))
    assert m.weight is w and w.shape == (2,) and m.running_var.dtype is tl.float64
    assert_close(m.running_var, np.full(2, 0.9))


def test_lazy_modules_pickle_before_their_first_forward():
    # torch 2.15's test_lazy_linear_pickle / test_lazy_batchnorm_pickle: the hook handles pickle with
    # their hook dicts, and the copy still initialises on its first forward
    for module, x in ((nn.LazyLinear(3), tl.ones(2, 4)), (nn.LazyBatchNorm1d(), tl.randn(4, 3))):
        copy_ = pickle.loads(pickle.dumps(module))
        assert is_lazy(copy_.weight) and copy_.has_uninitialized_params()
        assert copy_(x).shape == (x.shape[0], 3) and not is_lazy(copy_.weight)
    module = nn.Module()
    handle = module.register_forward_hook(print)
    module2, handle2 = pickle.loads(pickle.dumps((module, handle)))
    assert handle2.id == handle.id and handle2.hooks_dict_ref() is module2._forward_hooks
    handle2.remove()  # (removes from the copy's dict only)
    assert not module2._forward_hooks and len(module._forward_hooks) == 1
    assert nn.Module().register_forward_hook(print).id > handle.id  # ids stay unique


def test_like_factories_and_eager_optimizer_state_refuse_uninitialized_parameters():
    # torch 2.15: empty_like & co. raise its ValueError; Adagrad creates its state in the constructor, so it
    # raises there (test_optimizer_pass), while Adam and SGD create state lazily and construct
    p = UninitializedParameter()
    for make in (tl.empty_like, tl.zeros_like, tl.ones_like, lambda t: tl.full_like(t, 2.0), tl.rand_like,
                 tl.randn_like, lambda t: tl.randint_like(t, 3)):
        with pytest.raises(ValueError, match=UNINIT):
            make(p)
    with pytest.raises(ValueError, match=UNINIT):
        tl.optim.Adagrad([p])
    tl.optim.Adam([p])
    tl.optim.SGD([p], lr=0.1)
