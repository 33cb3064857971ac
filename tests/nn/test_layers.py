"""tensorlab.nn layers (issue 5): constructors, parameter/buffer names, initialisation, ``repr``,
forward values and gradients against numpy, train/eval behaviour (dropout, batch norm running
statistics), gradcheck on the layers in float64, cuda against cpu, and errors naming the layer.

The expected ``repr`` strings and state dict keys below were produced by PyTorch 2.13 for the
same constructors (in a separate environment; tensorlab never imports torch).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn as nn
import tensorlab.nn.functional as F
from tests.helpers import assert_close, to_numpy

CUDA = tl.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="no cuda device (real or interpreted)")
RNG = np.random.default_rng(5)


def _t(values, device="cpu", dtype=tl.float64, requires_grad=False):
    t = tl.tensor(np.asarray(values), dtype=dtype, device=device)
    return t.requires_grad_(True) if requires_grad else t


# ----------------------------------------------------------------------------------------------
# repr and state dict names (PyTorch's strings)
# ----------------------------------------------------------------------------------------------

REPRS = [
    (lambda: nn.Linear(2, 3), "Linear(in_features=2, out_features=3, bias=True)"),
    (lambda: nn.Linear(2, 3, bias=False), "Linear(in_features=2, out_features=3, bias=False)"),
    (lambda: nn.Bilinear(2, 3, 4), "Bilinear(in1_features=2, in2_features=3, out_features=4, bias=True)"),
    (lambda: nn.Identity(5, a=1), "Identity()"),
    (lambda: nn.ReLU(), "ReLU()"),
    (lambda: nn.ReLU(inplace=True), "ReLU(inplace=True)"),
    (lambda: nn.ReLU6(True), "ReLU6(inplace=True)"),
    (lambda: nn.LeakyReLU(), "LeakyReLU(negative_slope=0.01)"),
    (lambda: nn.LeakyReLU(0.2, True), "LeakyReLU(negative_slope=0.2, inplace=True)"),
    (lambda: nn.PReLU(3, 0.1), "PReLU(num_parameters=3)"),
    (lambda: nn.ELU(0.5, True), "ELU(alpha=0.5, inplace=True)"),
    (lambda: nn.CELU(), "CELU(alpha=1.0)"),
    (lambda: nn.SELU(), "SELU()"),
    (lambda: nn.GELU("tanh"), "GELU(approximate='tanh')"),
    (lambda: nn.SiLU(True), "SiLU(inplace=True)"),
    (lambda: nn.Mish(), "Mish()"),
    (lambda: nn.Sigmoid(), "Sigmoid()"),
    (lambda: nn.Tanh(), "Tanh()"),
    (lambda: nn.Softplus(), "Softplus(beta=1.0, threshold=20.0)"),
    (lambda: nn.Hardtanh(), "Hardtanh(min_val=-1.0, max_val=1.0)"),
    (lambda: nn.Hardtanh(-2, 2, True), "Hardtanh(min_val=-2, max_val=2, inplace=True)"),
    (lambda: nn.Hardsigmoid(), "Hardsigmoid()"),
    (lambda: nn.Hardswish(), "Hardswish()"),
    (lambda: nn.Softmax(), "Softmax(dim=None)"),
    (lambda: nn.LogSoftmax(-1), "LogSoftmax(dim=-1)"),
    (lambda: nn.Softmin(0), "Softmin(dim=0)"),
    (lambda: nn.Threshold(0.1, 20), "Threshold(threshold=0.1, value=20)"),
    (lambda: nn.Hardshrink(), "Hardshrink(0.5)"),
    (lambda: nn.Dropout(), "Dropout(p=0.5, inplace=False)"),
    (lambda: nn.Dropout(0.2, True), "Dropout(p=0.2, inplace=True)"),
    (lambda: nn.AlphaDropout(0.1), "AlphaDropout(p=0.1, inplace=False)"),
    (lambda: nn.Dropout2d(0.3), "Dropout2d(p=0.3, inplace=False)"),
    (lambda: nn.Embedding(10, 3), "Embedding(10, 3)"),
    (lambda: nn.Embedding(10, 3, padding_idx=-1, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True),
     "Embedding(10, 3, padding_idx=9, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True)"),
    (lambda: nn.EmbeddingBag(10, 3), "EmbeddingBag(10, 3, mode='mean')"),
    (lambda: nn.EmbeddingBag(10, 3, mode="sum", padding_idx=2, max_norm=2.0),
     "EmbeddingBag(10, 3, max_norm=2.0, mode='sum', padding_idx=2)"),
    (lambda: nn.LayerNorm(4), "LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)"),
    (lambda: nn.LayerNorm([2, 3], elementwise_affine=False),
     "LayerNorm((2, 3), eps=1e-05, elementwise_affine=False, bias=False)"),
    (lambda: nn.RMSNorm(4), "RMSNorm((4,), eps=None, elementwise_affine=True)"),
    (lambda: nn.GroupNorm(2, 4), "GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)"),
    (lambda: nn.BatchNorm1d(3), "BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                                "track_running_stats=True)"),
    (lambda: nn.BatchNorm1d(3, momentum=None, affine=False, track_running_stats=False),
     "BatchNorm1d(3, eps=1e-05, momentum=None, affine=False, bias=False, track_running_stats=False)"),
    (lambda: nn.Flatten(), "Flatten(start_dim=1, end_dim=-1)"),
    (lambda: nn.Unflatten(1, (2, 2)), "Unflatten(dim=1, unflattened_size=(2, 2))"),
]


@pytest.mark.parametrize("make,expected", REPRS, ids=[r[1].split("(")[0] + str(i) for i, r in enumerate(REPRS)])
def test_repr_is_pytorchs(make, expected):
    assert repr(make()) == expected


def test_nested_repr():
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.LayerNorm(3), nn.Dropout(0.1), nn.Linear(3, 1))
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): LayerNorm((3,), eps=1e-05, elementwise_affine=True, bias=True)\n"
        "  (3): Dropout(p=0.1, inplace=False)\n"
        "  (4): Linear(in_features=3, out_features=1, bias=True)\n"
        ")"
    )


def test_state_dict_names_are_pytorchs():
    model = nn.Sequential(nn.Embedding(5, 4), nn.LayerNorm(4), nn.Linear(4, 3), nn.BatchNorm1d(3), nn.PReLU(),
                          nn.GroupNorm(1, 3), nn.RMSNorm(3), nn.Bilinear(3, 3, 2), nn.EmbeddingBag(3, 2))
    sd = model.state_dict()
    assert [(k, tuple(v.shape)) for k, v in sd.items()] == [
        ("0.weight", (5, 4)), ("1.weight", (4,)), ("1.bias", (4,)), ("2.weight", (3, 4)), ("2.bias", (3,)),
        ("3.weight", (3,)), ("3.bias", (3,)), ("3.running_mean", (3,)), ("3.running_var", (3,)),
        ("3.num_batches_tracked", ()), ("4.weight", (1,)), ("5.weight", (3,)), ("5.bias", (3,)), ("6.weight", (3,)),
        ("7.weight", (2, 3, 3)), ("7.bias", (2,)), ("8.weight", (3, 2))]
    assert [n for n, _ in model.named_buffers()] == ["3.running_mean", "3.running_var", "3.num_batches_tracked"]
    assert sd["3.num_batches_tracked"].dtype is tl.int64
    # a state dict round-trips into a fresh model
    other = nn.Sequential(nn.Embedding(5, 4), nn.LayerNorm(4), nn.Linear(4, 3), nn.BatchNorm1d(3), nn.PReLU(),
                          nn.GroupNorm(1, 3), nn.RMSNorm(3), nn.Bilinear(3, 3, 2), nn.EmbeddingBag(3, 2))
    other.load_state_dict(sd)
    for k, v in other.state_dict().items():
        assert np.array_equal(to_numpy(v), to_numpy(sd[k]))


def test_optional_parameters_are_registered_as_none():
    assert nn.Linear(2, 3, bias=False).bias is None
    ln = nn.LayerNorm(4, elementwise_affine=False)
    assert ln.weight is None and ln.bias is None and list(ln.parameters()) == []
    bn = nn.BatchNorm1d(3, track_running_stats=False)
    assert bn.running_mean is None and list(bn.state_dict()) == ["weight", "bias"]
    assert list(nn.GroupNorm(1, 2, bias=False).state_dict()) == ["weight"]


# ----------------------------------------------------------------------------------------------
# initialisation
# ----------------------------------------------------------------------------------------------


def test_linear_initialisation_bounds_and_spread():
    tl.manual_seed(0)
    m = nn.Linear(400, 300)
    w, b = to_numpy(m.weight), to_numpy(m.bias)
    bound = 1 / math.sqrt(400)  # kaiming_uniform_(a=sqrt(5)): gain sqrt(1/3), bound gain*sqrt(3/fan_in)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert abs(w.std() - bound / math.sqrt(3)) < 0.02 * bound  # uniform's std
    assert abs(w.mean()) < 0.02 * bound
    assert np.abs(w).max() > 0.99 * bound and np.abs(b).max() > 0.9 * bound
    assert m.weight.requires_grad and m.weight.is_leaf and isinstance(m.weight, nn.Parameter)


def test_layer_initialisations():
    tl.manual_seed(1)
    bl = nn.Bilinear(25, 3, 40)
    assert np.abs(to_numpy(bl.weight)).max() <= 1 / 5 and np.abs(to_numpy(bl.bias)).max() <= 1 / 5
    emb = nn.Embedding(200, 50, padding_idx=3)
    e = to_numpy(emb.weight)
    assert np.all(e[3] == 0)
    rest = np.delete(e, 3, axis=0)
    assert abs(rest.mean()) < 0.03 and abs(rest.std() - 1) < 0.03  # N(0, 1)
    for m in (nn.LayerNorm(4), nn.GroupNorm(2, 4), nn.BatchNorm1d(4)):
        assert to_numpy(m.weight).tolist() == [1.0] * 4 and to_numpy(m.bias).tolist() == [0.0] * 4
    bn = nn.BatchNorm1d(4)
    assert to_numpy(bn.running_mean).tolist() == [0.0] * 4 and to_numpy(bn.running_var).tolist() == [1.0] * 4
    assert bn.num_batches_tracked.item() == 0
    assert to_numpy(nn.PReLU(3, 0.1).weight).tolist() == pytest.approx([0.1] * 3)
    assert nn.Linear(2, 3, dtype=tl.float64).weight.dtype is tl.float64


def test_seeded_construction_is_reproducible():
    tl.manual_seed(42)
    a = to_numpy(nn.Linear(5, 4).weight)
    tl.manual_seed(42)
    assert np.array_equal(a, to_numpy(nn.Linear(5, 4).weight))


# ----------------------------------------------------------------------------------------------
# forward values and gradients
# ----------------------------------------------------------------------------------------------


def test_linear_forward_backward_against_numpy(device):
    m = nn.Linear(4, 3, dtype=tl.float64).to(device)
    x = RNG.standard_normal((2, 5, 4))
    xt = _t(x, device, requires_grad=True)
    y = m(xt)
    w, b = to_numpy(m.weight), to_numpy(m.bias)
    assert_close(y, x @ w.T + b, rtol=1e-12, atol=1e-12)
    g = RNG.standard_normal((2, 5, 3))
    y.backward(_t(g, device))
    assert_close(m.weight.grad, np.einsum("bno,bni->oi", g, x), rtol=1e-12, atol=1e-12)
    assert_close(m.bias.grad, g.sum((0, 1)), rtol=1e-12, atol=1e-12)
    assert_close(xt.grad, g @ w, rtol=1e-12, atol=1e-12)


LAYERS = [
    ("Linear", lambda: nn.Linear(3, 2), (4, 3)),
    ("Bilinear", lambda: nn.Bilinear(3, 2, 2), None),
    ("LayerNorm", lambda: nn.LayerNorm((2, 3)), (2, 2, 3)),
    ("RMSNorm", lambda: nn.RMSNorm(3, eps=1e-6), (4, 3)),
    ("GroupNorm", lambda: nn.GroupNorm(2, 4), (2, 4, 2)),
    ("BatchNorm1d", lambda: nn.BatchNorm1d(3), (4, 3)),
    ("PReLU", lambda: nn.PReLU(3), (2, 3, 2)),
    ("ELU", lambda: nn.ELU(0.3), (3, 4)),
    ("Softmax", lambda: nn.Softmax(-1), (3, 4)),
    ("Embedding", lambda: nn.Embedding(5, 3), None),  # (padding_idx: no gradient by design)
    ("EmbeddingBag", lambda: nn.EmbeddingBag(5, 3, mode="mean"), None),
]


def _layer_inputs(name, shape, device, requires_grad=True):
    if name == "Bilinear":
        return (_t(RNG.standard_normal((4, 3)), device, requires_grad=requires_grad),
                _t(RNG.standard_normal((4, 2)), device, requires_grad=requires_grad))
    if name in ("Embedding", "EmbeddingBag"):
        return (tl.tensor(np.array([[0, 4, 1], [2, 2, 3]]), device=device),)
    return (_t(RNG.standard_normal(shape), device, requires_grad=requires_grad),)


@pytest.mark.parametrize("name,make,shape", LAYERS, ids=[n for n, _, _ in LAYERS])
def test_layer_gradcheck_float64(name, make, shape):
    """Gradients of each layer with respect to its input(s) and its parameters, by finite differences."""
    tl.manual_seed(0)
    m = make().double()
    inputs = _layer_inputs(name, shape, "cpu")
    params = list(m.parameters())
    n_in = len(inputs)

    def fn(*args):
        return m(*args[:n_in])  # the parameters are perturbed in place by gradcheck

    assert tl.autograd.gradcheck(fn, (*inputs, *params))


@needs_cuda
@pytest.mark.parametrize("name,make,shape", LAYERS, ids=[n for n, _, _ in LAYERS])
def test_layer_cuda_matches_cpu(name, make, shape):
    tl.manual_seed(0)
    m = make()
    inputs = _layer_inputs(name, shape, "cpu")
    inputs = tuple(x.float().detach().requires_grad_(True) if x.dtype.is_floating_point else x for x in inputs)
    results = []
    for device in ("cpu", "cuda"):
        m.to(device)
        m.zero_grad()
        xs = tuple(x.detach().to(device).requires_grad_(x.requires_grad) for x in inputs)
        y = m(*xs)
        y.backward(tl.ones_like(y) * 0.5 + tl.arange(y.numel(), device=device).reshape(y.shape) * 0.01)
        results.append([to_numpy(y)] + [to_numpy(p.grad) for p in m.parameters()]
                       + [to_numpy(x.grad) for x in xs if x.requires_grad])
    for a, b in zip(*results):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-5)


def test_module_forward_equals_functional(device):
    x = _t(RNG.standard_normal((3, 4, 5)), device)
    tl.manual_seed(3)
    ln = nn.LayerNorm(5, dtype=tl.float64).to(device)
    with tl.no_grad():
        ln.weight.copy_(_t(RNG.standard_normal(5), device))
    assert_close(ln(x), F.layer_norm(x, (5,), ln.weight, ln.bias))
    gn = nn.GroupNorm(2, 4, dtype=tl.float64).to(device)
    assert_close(gn(x), F.group_norm(x, 2))
    assert_close(nn.Flatten()(x), to_numpy(x).reshape(3, 20))
    assert_close(nn.Flatten(0, 1)(x), to_numpy(x).reshape(12, 5))
    assert_close(nn.Unflatten(2, (1, 5))(x), to_numpy(x).reshape(3, 4, 1, 5))
    assert nn.Identity()(x) is x
    assert_close(nn.CELU(0.5)(x), F.celu(x, 0.5))
    assert_close(nn.Hardtanh(-0.5, 0.5)(x), np.clip(to_numpy(x), -0.5, 0.5))


def test_inplace_modules_write_their_input(device):
    xs = np.linspace(-3, 7, 11)
    cases = [(nn.ReLU(inplace=True), np.maximum(xs, 0)), (nn.ReLU6(True), np.clip(xs, 0, 6)),
             (nn.LeakyReLU(0.1, True), np.where(xs > 0, xs, 0.1 * xs)),
             (nn.ELU(inplace=True), np.where(xs > 0, xs, np.expm1(xs))),
             (nn.Hardtanh(inplace=True), np.clip(xs, -1, 1)),
             (nn.SiLU(True), xs / (1 + np.exp(-xs))), (nn.Threshold(0.0, 1.0, True), np.where(xs > 0, xs, 1.0))]
    for m, ref in cases:
        x = _t(xs, device)
        assert m(x) is x, type(m).__name__
        assert_close(x, ref, rtol=1e-12, atol=1e-12)


# ----------------------------------------------------------------------------------------------
# train / eval
# ----------------------------------------------------------------------------------------------


def test_dropout_module_train_and_eval(device):
    m = nn.Dropout(0.4)
    x = tl.ones(50, 40, device=device)
    tl.manual_seed(0)
    y = to_numpy(m(x))
    assert set(np.unique(y).tolist()) <= {0.0, np.float32(1 / 0.6).item()}
    assert 0.35 < (y == 0).mean() < 0.45
    m.eval()
    assert m(x) is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        nn.Dropout(-0.1)


def test_batchnorm1d_running_stats_over_steps(device):
    """Three training steps with momentum 0.1, then eval: running statistics against numpy formulas."""
    bn = nn.BatchNorm1d(3, dtype=tl.float64).to(device)
    rm, rv = np.zeros(3), np.ones(3)
    for step in range(3):
        x = RNG.standard_normal((6, 3, 4)) * (step + 1) + step
        y = bn(_t(x, device))
        mean, var = x.mean((0, 2)), x.var((0, 2))
        n = 24
        rm = 0.9 * rm + 0.1 * mean
        rv = 0.9 * rv + 0.1 * var * n / (n - 1)
        assert_close(y, (x - mean[None, :, None]) / np.sqrt(var[None, :, None] + 1e-5), rtol=1e-10, atol=1e-10)
        assert_close(bn.running_mean, rm, rtol=1e-12, atol=1e-12)
        assert_close(bn.running_var, rv, rtol=1e-12, atol=1e-12)
        assert bn.num_batches_tracked.item() == step + 1
    bn.eval()
    x = RNG.standard_normal((2, 3))
    y = bn(_t(x, device))
    assert_close(y, (x - rm) / np.sqrt(rv + 1e-5), rtol=1e-10, atol=1e-10)
    assert bn.num_batches_tracked.item() == 3  # eval does not count


def test_batchnorm_refused_batch_changes_nothing(device):
    # one value per channel in training is refused before anything is counted or updated
    for momentum in (0.1, None):
        bn = nn.BatchNorm1d(2, momentum=momentum).to(device)
        bn(_t(RNG.standard_normal((4, 2)), device, tl.float32))
        before = {k: to_numpy(v).copy() for k, v in bn.state_dict().items()}
        with pytest.raises(ValueError, match="more than 1 value per channel"):
            bn(_t(np.ones((1, 2)), device, tl.float32))
        for k, v in bn.state_dict().items():
            np.testing.assert_array_equal(to_numpy(v), before[k])


def test_norms_mixed_dtypes_and_channels_as_pytorch(device):
    # torch 2.15: parameters of the input's dtype, or float32 with a float16/bfloat16 input (a float64
    # input through float32 weights was computed); no channel check without weights or running stats
    for run in (lambda: nn.BatchNorm1d(3).to(device)(_t(np.ones((4, 3)), device, tl.float64)),
                lambda: nn.BatchNorm1d(3, dtype=tl.float16).to(device)(_t(np.ones((4, 3)), device, tl.float32)),
                lambda: nn.LayerNorm(3).to(device)(_t(np.ones((4, 3)), device, tl.float64)),
                lambda: nn.GroupNorm(1, 3).to(device)(_t(np.ones((4, 3)), device, tl.float64)),
                lambda: nn.InstanceNorm1d(3, affine=True).to(device)(_t(np.ones((2, 3, 4)), device, tl.float64))):
        with pytest.raises(RuntimeError, match="mixed dtype"):
            run()
    x = _t(RNG.standard_normal((4, 3)), device, tl.bfloat16)
    assert nn.BatchNorm1d(3).to(device)(x).dtype is tl.bfloat16 and nn.LayerNorm(3).to(device)(x).dtype is tl.bfloat16
    free = nn.BatchNorm1d(3, affine=False, track_running_stats=False).to(device)
    assert free(_t(RNG.standard_normal((4, 5)), device, tl.float32)).shape == (4, 5)


def test_batchnorm_cumulative_average_and_untracked(device):
    bn = nn.BatchNorm1d(2, momentum=None, dtype=tl.float64).to(device)
    batches = [RNG.standard_normal((5, 2)) for _ in range(3)]
    for x in batches:
        bn(_t(x, device))
    # momentum=None: the running mean is the plain average of the batch means
    assert_close(bn.running_mean, np.mean([x.mean(0) for x in batches], axis=0), rtol=1e-12, atol=1e-12)
    assert_close(bn.running_var, np.mean([x.var(0, ddof=1) for x in batches], axis=0), rtol=1e-12, atol=1e-12)
    free = nn.BatchNorm1d(2, track_running_stats=False, dtype=tl.float64).to(device).eval()
    x = batches[0]
    assert_close(free(_t(x, device)), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-10, atol=1e-10)


# ----------------------------------------------------------------------------------------------
# Embedding specifics
# ----------------------------------------------------------------------------------------------


def test_embedding_from_pretrained_and_padding_gradient():
    w = _t(RNG.standard_normal((4, 3)), dtype=tl.float32)
    emb = nn.Embedding.from_pretrained(w)
    assert not emb.weight.requires_grad
    assert emb.weight.data_ptr() == w.data_ptr()  # shared, as PyTorch
    idx = tl.tensor([[3, 0], [1, 1]])
    assert_close(emb(idx), to_numpy(w)[[[3, 0], [1, 1]]], rtol=0, atol=0)
    trainable = nn.Embedding.from_pretrained(w.clone(), freeze=False, padding_idx=1)
    trainable(idx).sum().backward()
    g = to_numpy(trainable.weight.grad)
    assert g[1].tolist() == [0.0] * 3 and g[3].tolist() == [1.0] * 3 and g[0].tolist() == [1.0] * 3
    with pytest.raises(AssertionError, match="Embeddings parameter is expected to be 2-dimensional"):
        nn.Embedding.from_pretrained(tl.zeros(3))
    bag = nn.EmbeddingBag.from_pretrained(w, mode="sum")
    assert_close(bag(tl.tensor([[0, 1]])), to_numpy(w)[[0, 1]].sum(0, keepdims=True), rtol=1e-6, atol=1e-6)


def test_embedding_max_norm_module():
    tl.manual_seed(0)
    emb = nn.Embedding(6, 4, max_norm=1.0)
    emb(tl.tensor([0, 1]))
    norms = np.linalg.norm(to_numpy(emb.weight), axis=1)
    assert np.all(norms[:2] <= 1.0 + 1e-6)


# ----------------------------------------------------------------------------------------------
# errors naming the layer and the expected shape
# ----------------------------------------------------------------------------------------------


def test_wrong_input_shapes_name_the_layer():
    cases = [
        (lambda: nn.Linear(3, 2)(tl.zeros(2, 4)),
         RuntimeError, r"Linear: expected input with last dimension 3 \(in_features\), got shape \[2, 4\]"),
        (lambda: nn.Bilinear(3, 2, 1)(tl.zeros(2, 3), tl.zeros(2, 5)),
         RuntimeError, r"Bilinear: expected input2 with last dimension 2 \(in2_features\), got shape \[2, 5\]"),
        (lambda: nn.LayerNorm(4)(tl.zeros(2, 3)),
         RuntimeError, r"LayerNorm: expected input with trailing dimensions \[4\] \(normalized_shape\), got shape "
                       r"\[2, 3\]"),
        (lambda: nn.RMSNorm([2, 3])(tl.zeros(3, 2)),
         RuntimeError, r"RMSNorm: expected input with trailing dimensions \[2, 3\]"),
        (lambda: nn.GroupNorm(2, 4)(tl.zeros(2, 6, 3)),
         RuntimeError, r"GroupNorm: expected input with 4 channels \(num_channels\) at dim 1, got shape \[2, 6, 3\]"),
        (lambda: nn.BatchNorm1d(3)(tl.zeros(2, 4)),
         RuntimeError, r"BatchNorm1d: expected input with 3 channels \(num_features\) at dim 1, got shape \[2, 4\]"),
        (lambda: nn.BatchNorm1d(3)(tl.zeros(2, 3, 4, 5)), ValueError, r"expected 2D or 3D input \(got 4D input\)"),
        # no weight and no running statistics: the dimension count is still PyTorch's
        (lambda: nn.BatchNorm3d(2, affine=False, track_running_stats=False)(tl.ones(2, 1, 2, 1)),
         ValueError, r"expected 5D input \(got 4D input\)"),
        (lambda: nn.BatchNorm1d(2, affine=False, track_running_stats=False)(tl.ones(2)),
         ValueError, r"expected 2D or 3D input \(got 1D input\)"),
        # one value per channel in training is refused before the channel count is compared
        (lambda: nn.BatchNorm1d(1)(tl.ones(1, 2)),
         ValueError, r"Expected more than 1 value per channel when training, got input size \[1, 2\]"),
        (lambda: nn.PReLU(3)(tl.zeros(2, 4)),
         RuntimeError, r"PReLU: expected input with 3 channels \(num_parameters\) at dim 1, got shape \[2, 4\]"),
        (lambda: nn.Embedding(3, 2)(tl.tensor([3])), IndexError, "index out of range in self"),
        (lambda: nn.Linear(3, 2)([1, 2, 3]), TypeError, "Linear: expected a Tensor as input, got list"),
    ]
    for fn, exc, pattern in cases:
        with pytest.raises(exc, match=pattern):
            fn()


def test_constructor_errors():
    with pytest.raises(ValueError, match=r"num_channels \(5\) must be divisible by num_groups \(2\)"):
        nn.GroupNorm(2, 5)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        nn.Embedding(3, 2, padding_idx=5)
    with pytest.raises(AssertionError, match=r"max_val \(-1\) must be greater than min_val \(1\)"):
        nn.Hardtanh(1, -1)
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints"):
        nn.Unflatten(1, (2, 2.0))


def test_tiny_model_trains():
    """LayerNorm + Linear + GELU + Dropout regressor: plain SGD by hand lowers the loss a lot."""
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.LayerNorm(16), nn.GELU(), nn.Dropout(0.1), nn.Linear(16, 1))
    x = tl.tensor(RNG.standard_normal((32, 4)), dtype=tl.float32)
    y = (x[:, :1] * 2 - x[:, 1:2]).detach()
    losses = []
    for _ in range(60):
        loss = ((model(x) - y) ** 2).mean()
        model.zero_grad()
        loss.backward()
        with tl.no_grad():
            for p in model.parameters():
                p.sub_(p.grad * 0.1)
        losses.append(loss.item())
    assert losses[-1] < 0.25 * losses[0]


def test_embedding_bag_last_bag_runs_to_the_end_of_the_input(device):
    """With include_last_offset the last bag runs to the end of the input, also when the last offset
    is before it (torch 2.15's test_embeddingbag_include_last_offset, issue 89677; the indices after
    it were in no bag here, and a raw IndexError before that)."""
    w = tl.arange(20.0, device=device).reshape(10, 2)
    inp = tl.tensor([0, 2, 5, 2, 2, 1, 6, 3], device=device)
    offsets = tl.tensor([0, 2, 4], device=device)  # bags [0, 2] and [5, 2, 2, 1, 6, 3]
    assert F.embedding_bag(inp, w, offsets, mode="sum", include_last_offset=True).tolist() == [[4.0, 6.0],
                                                                                              [38.0, 44.0]]
    np.testing.assert_allclose(F.embedding_bag(inp, w, offsets, mode="mean", include_last_offset=True).tolist(),
                               [[2.0, 3.0], [38 / 6, 44 / 6]], rtol=1e-6)
    assert F.embedding_bag(inp, w, offsets, mode="max", include_last_offset=True).tolist() == [[4.0, 5.0],
                                                                                              [12.0, 13.0]]
