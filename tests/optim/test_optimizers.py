"""Optimizers against independent numpy references (tests/optim/reference.py), on cpu (the numpy twins)
and cuda (the fused Triton kernels; Triton's interpreter without a GPU); state dicts, groups, errors."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab_kernels.optim import multi_tensor

from . import reference as R
from .reference import run_optimizer, run_reference

CUDA = tl.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="cuda (or Triton's interpreter) is unavailable")

SHAPES = [(3, 4), (5,), (2, 3, 2)]

# (id, class, kwargs, reference class, reference options, steps)
CONFIGS = [
    ("sgd", tl.optim.SGD, dict(lr=0.1), R.SGDRef, dict(lr=0.1), 4),
    ("sgd-momentum", tl.optim.SGD, dict(lr=0.1, momentum=0.9), R.SGDRef, dict(lr=0.1, momentum=0.9), 4),
    ("sgd-dampening-wd", tl.optim.SGD, dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.1), R.SGDRef,
     dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.1), 4),
    ("sgd-nesterov-maximize", tl.optim.SGD, dict(lr=0.1, momentum=0.8, nesterov=True, maximize=True,
                                                 weight_decay=0.05), R.SGDRef,
     dict(lr=0.1, momentum=0.8, nesterov=True, maximize=True, weight_decay=0.05), 4),
    ("adam", tl.optim.Adam, dict(lr=0.01), R.AdamRef, dict(lr=0.01, weight_decay=0), 4),
    ("adam-amsgrad-wd-maximize", tl.optim.Adam, dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True,
                                                      maximize=True), R.AdamRef,
     dict(lr=0.01, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True, maximize=True), 4),
    ("adam-small-beta1", tl.optim.Adam, dict(lr=0.01, betas=(0.3, 0.9), eps=1e-6), R.AdamRef,  # lerp's other form
     dict(lr=0.01, betas=(0.3, 0.9), eps=1e-6, weight_decay=0), 4),
    ("adam-decoupled", tl.optim.Adam, dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True), R.AdamRef,
     dict(lr=0.01, weight_decay=0.1, decoupled=True), 4),
    ("adamw", tl.optim.AdamW, dict(lr=0.01), R.AdamRef, dict(lr=0.01, weight_decay=1e-2, decoupled=True), 4),
    ("adamw-amsgrad-maximize", tl.optim.AdamW, dict(lr=0.02, weight_decay=0.2, amsgrad=True, maximize=True),
     R.AdamRef, dict(lr=0.02, weight_decay=0.2, amsgrad=True, maximize=True, decoupled=True), 4),
    ("adamax", tl.optim.Adamax, dict(lr=0.01), R.AdamaxRef, dict(lr=0.01, weight_decay=0), 4),
    ("adamax-wd-maximize", tl.optim.Adamax, dict(lr=0.01, betas=(0.5, 0.9), weight_decay=0.1, maximize=True),
     R.AdamaxRef, dict(lr=0.01, betas=(0.5, 0.9), weight_decay=0.1, maximize=True), 4),
    ("nadam", tl.optim.NAdam, dict(lr=0.01), R.NAdamRef, dict(lr=0.01, weight_decay=0), 4),
    ("nadam-wd", tl.optim.NAdam, dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01), R.NAdamRef,
     dict(lr=0.01, weight_decay=0.1, momentum_decay=0.01), 4),
    ("nadam-decoupled-maximize", tl.optim.NAdam, dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True,
                                                      maximize=True), R.NAdamRef,
     dict(lr=0.01, weight_decay=0.1, decoupled=True, maximize=True), 4),
    ("radam", tl.optim.RAdam, dict(lr=0.01, betas=(0.9, 0.9)), R.RAdamRef,  # rho_t crosses 5 at step 6
     dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0), 7),
    ("radam-wd-maximize", tl.optim.RAdam, dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0.1, maximize=True),
     R.RAdamRef, dict(lr=0.01, betas=(0.9, 0.9), weight_decay=0.1, maximize=True), 7),
    ("radam-decoupled", tl.optim.RAdam, dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True), R.RAdamRef,
     dict(lr=0.01, weight_decay=0.1, decoupled=True), 4),
    ("rmsprop", tl.optim.RMSprop, dict(lr=0.01), R.RMSpropRef, dict(lr=0.01), 4),
    ("rmsprop-centered", tl.optim.RMSprop, dict(lr=0.01, alpha=0.9, centered=True), R.RMSpropRef,
     dict(lr=0.01, alpha=0.9, centered=True), 4),
    ("rmsprop-momentum-wd", tl.optim.RMSprop, dict(lr=0.01, momentum=0.5, weight_decay=0.1), R.RMSpropRef,
     dict(lr=0.01, momentum=0.5, weight_decay=0.1), 4),
    ("rmsprop-centered-momentum-maximize", tl.optim.RMSprop, dict(lr=0.01, alpha=0.8, momentum=0.7, centered=True,
                                                                  maximize=True), R.RMSpropRef,
     dict(lr=0.01, alpha=0.8, momentum=0.7, centered=True, maximize=True), 4),
    ("adagrad", tl.optim.Adagrad, dict(lr=0.1), R.AdagradRef, dict(lr=0.1), 4),
    ("adagrad-decay-wd-init", tl.optim.Adagrad, dict(lr=0.1, lr_decay=0.5, weight_decay=0.1,
                                                     initial_accumulator_value=0.3, maximize=True), R.AdagradRef,
     dict(lr=0.1, lr_decay=0.5, weight_decay=0.1, initial_accumulator_value=0.3, maximize=True), 4),
    ("adadelta", tl.optim.Adadelta, dict(), R.AdadeltaRef, dict(), 4),
    ("adadelta-wd-maximize", tl.optim.Adadelta, dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True),
     R.AdadeltaRef, dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True), 4),
]
IDS = [c[0] for c in CONFIGS]


def _data(steps: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s) for s in SHAPES]
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(steps)]
    return init, grads


_run, _reference = run_optimizer, run_reference  # (shared with the other optimizer tests)


def _host(t) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy()).astype(np.float64)


def _compare(params, opt, ref_params, ref, rtol, atol, states=True):
    for i, (p, rp) in enumerate(zip(params, ref_params)):
        np.testing.assert_allclose(_host(p), rp, rtol=rtol, atol=atol, err_msg=f"parameter {i}")
        if not states:
            continue
        state = opt.state[p]
        for key, value in ref.state[i].items():
            if key == "step":
                if "step" in state:  # SGD keeps no step count
                    assert state["step"].dtype is tl.float32 and state["step"].device.type == "cpu"
                    assert state["step"].item() == value
                continue
            if key == "mu_product":
                np.testing.assert_allclose(state[key].item(), value, rtol=1e-6)
                continue
            np.testing.assert_allclose(_host(state[key]), np.broadcast_to(value, rp.shape), rtol=rtol, atol=atol,
                                       err_msg=f"state {key!r} of parameter {i}")


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_matches_reference_cpu_float64(config):
    name, cls, kwargs, ref_cls, ref_opts, steps = config
    init, grads = _data(steps)
    params, opt = _run(cls, kwargs, "cpu", tl.float64, init, grads)
    ref_params, ref = _reference(ref_cls, ref_opts, init, grads, np.float64)
    # NAdam keeps mu_product in float32 (as PyTorch does); the reference multiplies in float64.
    tol = 2e-6 if name.startswith("nadam") else 1e-10
    _compare(params, opt, ref_params, ref, rtol=tol, atol=tol)


@needs_cuda
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_fused_kernel_cuda_float32(config):
    """The fused kernel (one launch per step) against the reference and against the cpu twin."""
    name, cls, kwargs, ref_cls, ref_opts, steps = config
    init, grads = _data(steps, seed=1)
    params, opt = _run(cls, kwargs, "cuda", tl.float32, init, grads)
    ref_params, ref = _reference(ref_cls, ref_opts, init, grads, np.float32)
    _compare(params, opt, ref_params, ref, rtol=2e-5, atol=2e-6)
    cpu_params, cpu_opt = _run(cls, kwargs, "cpu", tl.float32, init, grads)
    for p, q in zip(params, cpu_params):
        np.testing.assert_allclose(_host(p), _host(q), rtol=1e-6, atol=1e-7)
    for p, q in zip(params, cpu_params):
        for key, value in opt.state[p].items():
            np.testing.assert_allclose(_host(value), _host(cpu_opt.state[q][key]), rtol=1e-6, atol=1e-7,
                                       err_msg=key)


LOW_PRECISION = [c for c in CONFIGS if c[0] in ("sgd-nesterov-maximize", "adam-amsgrad-wd-maximize", "adamw",
                                                 "rmsprop-centered-momentum-maximize", "nadam-wd", "radam")]


@needs_cuda
@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16, tl.float64], ids=str)
@pytest.mark.parametrize("config", LOW_PRECISION, ids=[c[0] for c in LOW_PRECISION])
def test_fused_kernel_other_dtypes(config, dtype):
    """fp16/bf16 parameters and state with fp32 math (one rounding per stored value); fp64 in fp64."""
    name, cls, kwargs, ref_cls, ref_opts, steps = config
    init, grads = _data(steps, seed=2)
    params, opt = _run(cls, kwargs, "cuda", dtype, init, grads)
    cpu_params, _ = _run(cls, kwargs, "cpu", dtype, init, grads)
    for p, q in zip(params, cpu_params):
        assert p.dtype is dtype
        assert all(v.dtype is dtype for k, v in opt.state[p].items() if k not in ("step", "mu_product"))
        # the twin computes exactly as the kernel: equal up to one unit in the last place
        ulp = {tl.float16: 1e-3, tl.bfloat16: 8e-3, tl.float64: 1e-12}[dtype]
        np.testing.assert_allclose(_host(p), _host(q), rtol=ulp, atol=ulp)
    ref_params, _ = _reference(ref_cls, ref_opts, init, grads, dtype.np if dtype is not tl.bfloat16 else np.float32)
    tol = {tl.float16: 5e-3, tl.bfloat16: 3e-2, tl.float64: 2e-6 if name.startswith("nadam") else 1e-10}[dtype]
    for p, rp in zip(params, ref_params):
        np.testing.assert_allclose(_host(p), rp, rtol=tol, atol=tol)


@needs_cuda
def test_one_launch_per_group_and_multi_chunk(monkeypatch):
    """Every tensor of a group goes through ONE launch; small chunks split tensors across programs
    (and blocks within a chunk) with the same result."""
    launches = []
    real = multi_tensor.launch
    monkeypatch.setattr(multi_tensor, "launch", lambda kernel, grid, *a, **k: (launches.append(grid),
                                                                                 real(kernel, grid, *a, **k))[1])
    init, grads = _data(3, seed=3)
    params, _ = _run(tl.optim.Adam, dict(lr=0.01, amsgrad=True), "cuda", tl.float32, init, grads)
    assert len(launches) == 3  # one per step, all three tensors in it
    assert launches[0] == (3,)  # one chunk (program) per small tensor
    launches.clear()
    with multi_tensor.override_config({"CHUNK": 8, "BLOCK": 4}):
        small, _ = _run(tl.optim.Adam, dict(lr=0.01, amsgrad=True), "cuda", tl.float32, init, grads)
    assert len(launches) == 3
    assert launches[0] == (sum(-(-math.prod(s) // 8) for s in SHAPES),)
    for p, q in zip(params, small):
        np.testing.assert_array_equal(_host(p), _host(q))
    # two groups: one launch each per step
    launches.clear()
    p1 = [tl.nn.Parameter(tl.tensor(a, device="cuda", dtype=tl.float32)) for a in init[:2]]
    p2 = [tl.nn.Parameter(tl.tensor(init[2], device="cuda", dtype=tl.float32))]
    opt = tl.optim.SGD([{"params": p1}, {"params": p2, "lr": 0.5}], lr=0.1, momentum=0.9)
    for p, g in zip(p1 + p2, grads[0]):
        p.grad = tl.tensor(g, device="cuda", dtype=tl.float32)
    opt.step()
    opt.step()
    assert len(launches) == 4


@needs_cuda
def test_chunk_table_is_kept_for_the_same_tensors_and_built_for_others():
    """The device chunk table is looked up by the operands' addresses and sizes: the same tensors
    get the same table back (no host work), another tensor, size or chunk gets a new one, and each
    table holds what build_table computes for its operands."""
    a, b, c = (tl.ones(n, device="cuda")._device_array() for n in (20, 3, 20))
    numels = [20, 3]
    first, aligned = multi_tensor.device_table([[a, b], [c, a]], numels, a.dtype, 8, a.device)
    again, _ = multi_tensor.device_table([[a, b], [c, a]], numels, a.dtype, 8, a.device)
    assert again is first and aligned == bool((multi_tensor.build_table([[a, b], [c, a]], 8)[:, :-1] % 16 == 0).all())
    for lists, sizes, chunk in (([[c, b], [a, a]], numels, 8), ([[a, b], [c, a]], numels, 16),
                                ([[a, c], [c, a]], [20, 20], 8)):
        table, _ = multi_tensor.device_table(lists, sizes, a.dtype, chunk, a.device)
        assert table is not first
        np.testing.assert_array_equal(table.host_view(), multi_tensor.build_table(lists, chunk))
    np.testing.assert_array_equal(first.host_view(), multi_tensor.build_table([[a, b], [c, a]], 8))
    # an absent operand (None) has no column: the same table as without it
    assert multi_tensor.device_table([[a, b], None, [c, a]], numels, a.dtype, 8, a.device)[0] is first


@needs_cuda
@pytest.mark.parametrize("make", [lambda p: tl.optim.SGD(p, lr=0.1, momentum=0.9), lambda p: tl.optim.Adam(p)],
                         ids=["sgd-momentum", "adam"])
def test_a_training_loop_settles_on_its_chunk_tables(make, monkeypatch):
    """A loop that frees its gradients every step (zero_grad's default) gets the same blocks back
    each step, so its tables are found again. The tables used to come from the tensors' pool, where
    each new one held a block the next step's gradient would have had: a table was built (and the
    memory grew) every step."""
    import gc

    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Linear(16, 32), tl.nn.ReLU(), tl.nn.Linear(32, 10)).to("cuda")
    x, t = tl.randn(8, 16, device="cuda"), tl.randint(0, 10, (8,), device="cuda")
    opt = make(model.parameters())
    tables = []
    build = multi_tensor.build_table
    monkeypatch.setattr(multi_tensor, "build_table", lambda *args: tables.append(1) or build(*args))
    gc.collect()
    built, memory = [], []
    for _ in range(14):
        before = len(tables)
        opt.zero_grad()
        tl.nn.functional.cross_entropy(model(x), t).backward()
        opt.step()
        built.append(len(tables) - before)
        memory.append(tl.cuda.memory_allocated())
    assert built[-6:] == [0] * 6 and len(set(memory[-6:])) == 1


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_param_groups_with_different_options(device):
    init, grads = _data(3, seed=4)
    params = [tl.nn.Parameter(tl.tensor(a, dtype=tl.float32, device=device)) for a in init]
    opt = tl.optim.Adam([{"params": params[:2]}, {"params": params[2:], "lr": 0.1, "amsgrad": True}], lr=0.01)
    assert opt.param_groups[0]["lr"] == 0.01 and opt.param_groups[1]["lr"] == 0.1
    assert opt.param_groups[1]["amsgrad"] and not opt.param_groups[0]["amsgrad"]
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = tl.tensor(g, dtype=tl.float32, device=device)
        opt.step()
    ref_a, _ = _reference(R.AdamRef, dict(lr=0.01, weight_decay=0), init[:2], [g[:2] for g in grads], np.float32)
    ref_b, _ = _reference(R.AdamRef, dict(lr=0.1, weight_decay=0, amsgrad=True), init[2:], [g[2:] for g in grads],
                          np.float32)
    for p, rp in zip(params, ref_a + ref_b):
        np.testing.assert_allclose(_host(p), rp, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_parameters_without_grad_are_skipped_and_keep_their_own_step(device):
    """A parameter with no gradient on a step is not updated and its step count lags (its launch is
    separate on cuda); values still follow the reference."""
    init, grads = _data(4, seed=5)
    grads[1][0] = None
    grads[2][2] = None
    params, opt = _run(tl.optim.Adam, dict(lr=0.05), device, tl.float32, init, grads)
    ref_params, ref = _reference(R.AdamRef, dict(lr=0.05, weight_decay=0), init, grads, np.float32)
    _compare(params, opt, ref_params, ref, rtol=2e-5, atol=2e-6)
    assert [opt.state[p]["step"].item() for p in params] == [3.0, 4.0, 3.0]


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_noncontiguous_parameter_and_gradient(device):
    init, grads = _data(3, seed=6)
    base = tl.tensor(init[0].T.copy(), dtype=tl.float32, device=device)  # (4, 3)
    p = base.t().detach().requires_grad_(True)  # a transposed leaf: not contiguous
    assert not p.is_contiguous()
    q = tl.nn.Parameter(tl.tensor(init[1], dtype=tl.float32, device=device))
    opt = tl.optim.SGD([p, q], lr=0.1, momentum=0.9, weight_decay=0.01)
    for g0, g1, _ in grads:
        p.grad = tl.tensor(g0.T.copy(), dtype=tl.float32, device=device).t()  # a transposed gradient too
        q.grad = tl.tensor(g1, dtype=tl.float32, device=device)
        opt.step()
    ref_params, _ = _reference(R.SGDRef, dict(lr=0.1, momentum=0.9, weight_decay=0.01), init[:2],
                               [g[:2] for g in grads], np.float32)
    np.testing.assert_allclose(_host(p), ref_params[0], rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(_host(q), ref_params[1], rtol=2e-5, atol=2e-6)
    assert p.stride() == (1, 3)  # still the same (strided) tensor


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_step_with_closure_returns_its_loss_and_trains(device):
    w = tl.nn.Parameter(tl.tensor([1.0, -2.0, 3.0], device=device))
    target = tl.tensor([0.5, 0.5, 0.5], device=device)
    opt = tl.optim.SGD([w], lr=0.1)
    calls = []

    def closure():
        opt.zero_grad()
        loss = ((w - target) ** 2).sum()
        loss.backward()
        calls.append(loss.item())
        return loss

    with tl.no_grad():  # the closure runs with grad enabled regardless
        loss = opt.step(closure)
    assert isinstance(loss, tl.Tensor) and loss.item() == calls[0]
    np.testing.assert_allclose(calls[0], 0.25 + 6.25 + 6.25, rtol=1e-6)
    np.testing.assert_allclose(_host(w), [1.0 - 0.1, -2.0 + 0.5, 3.0 - 0.5], rtol=1e-6)
    assert opt.step() is None


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
@pytest.mark.parametrize("name", ["adam-amsgrad-wd-maximize", "sgd-momentum", "nadam", "adadelta", "adamax", "radam",
                                  "rmsprop-centered-momentum-maximize", "adagrad-decay-wd-init"])
def test_state_dict_round_trip(tmp_path, device, name):
    """save -> tensorlab.save/load -> a new optimizer over copies of the parameters -> load -> identical
    next steps (PyTorch's state_dict layout)."""
    _, cls, kwargs, _, _, _ = CONFIGS[IDS.index(name)]
    init, grads = _data(5, seed=7)
    params, opt = _run(cls, kwargs, device, tl.float32, init, grads[:2])
    R.check_state_dict_round_trip(opt, cls, kwargs, params, grads[2:], device, tmp_path)


def test_state_dict_layout_matches_pytorch():
    a, b, c = (tl.nn.Parameter(tl.zeros(2)) for _ in range(3))
    opt = tl.optim.SGD([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1, momentum=0.9)
    for p in (a, b, c):
        p.grad = tl.ones(2)
    opt.step()
    sd = opt.state_dict()
    assert sd["param_groups"] == [
        {"lr": 0.1, "momentum": 0.9, "dampening": 0, "weight_decay": 0, "nesterov": False, "maximize": False,
         "foreach": None, "differentiable": False, "fused": None, "params": [0, 1]},
        {"lr": 0.5, "momentum": 0.9, "dampening": 0, "weight_decay": 0, "nesterov": False, "maximize": False,
         "foreach": None, "differentiable": False, "fused": None, "params": [2]},
    ]
    assert list(sd["state"]) == [0, 1, 2] and list(sd["state"][0]) == ["momentum_buffer"]
    assert sd["state"][0]["momentum_buffer"] is opt.state[a]["momentum_buffer"]  # references, as PyTorch


def test_load_state_dict_validates_before_changing_anything():
    p, q = tl.nn.Parameter(tl.zeros(2)), tl.nn.Parameter(tl.zeros(3))
    opt = tl.optim.Adam([p, q], lr=0.1)
    p.grad, q.grad = tl.ones(2), tl.ones(3)
    opt.step()
    before = opt.state_dict()
    other = tl.optim.Adam([tl.nn.Parameter(tl.zeros(2))], lr=0.5)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(other.state_dict())
    two_groups = tl.optim.Adam([{"params": [tl.nn.Parameter(tl.zeros(2))]},
                                {"params": [tl.nn.Parameter(tl.zeros(3))]}])
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict(two_groups.state_dict())
    with pytest.raises(ValueError, match="'state' and 'param_groups'"):
        opt.load_state_dict({"state": {}})
    assert opt.param_groups[0]["lr"] == 0.1 and opt.state_dict()["state"].keys() == before["state"].keys()
    assert opt.state[p]["step"].item() == 1.0


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_step_with_state_of_another_shape_names_the_optimizer(device):
    # a state_dict loaded from another model's optimizer: PyTorch raises at step (a size mismatch);
    # the cpu twins raised numpy's broadcast error, not naming the optimizer
    for cls, kwargs in ((tl.optim.SGD, {"lr": 0.1, "momentum": 0.9}), (tl.optim.Adam, {}), (tl.optim.Adagrad, {})):
        small = tl.nn.Parameter(tl.ones(2, device=device))
        small.grad = tl.ones(2, device=device)
        source = cls([small], **kwargs)
        source.step()
        p = tl.nn.Parameter(tl.ones(3, device=device))
        p.grad = tl.ones(3, device=device)
        opt = cls([p], **kwargs)
        opt.load_state_dict(source.state_dict())
        with pytest.raises(RuntimeError, match=rf"{cls.__name__}: .* has shape \[2\], the parameter \[3\]"):
            opt.step()
        assert p.tolist() == [1.0, 1.0, 1.0]
    # the state of another optimizer: PyTorch raises KeyError('step'); here a message that says so
    sgd = tl.optim.SGD([p], lr=0.1, momentum=0.9)
    sgd.step()
    adam = tl.optim.Adam([p])
    adam.load_state_dict(sgd.state_dict())
    before = p.tolist()
    with pytest.raises(RuntimeError, match=r"Adam: the state of parameter 0 has no 'step' \(it has \['momentum"):
        adam.step()
    assert p.tolist() == before


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_load_state_dict_casts_to_each_parameter(device):
    src = tl.nn.Parameter(tl.ones(3))
    opt = tl.optim.Adam([src], lr=0.1)
    src.grad = tl.ones(3)
    opt.step()
    dst = tl.nn.Parameter(tl.ones(3, dtype=tl.float64, device=device))
    opt2 = tl.optim.Adam([dst])
    opt2.load_state_dict(opt.state_dict())
    st = opt2.state[dst]
    assert st["exp_avg"].dtype is tl.float64 and st["exp_avg"].device == dst.device
    assert st["step"].dtype is tl.float32 and st["step"].device.type == "cpu"
    np.testing.assert_allclose(_host(st["exp_avg"]), 0.1, rtol=1e-6)
    dst.grad = tl.ones(3, dtype=tl.float64, device=device)
    opt2.step()
    assert st["step"].item() == 2.0



def test_load_state_dict_keeps_a_custom_optimizers_step():
    # AdaBelief/NovoGrad-style subclasses keep ``state["step"]`` as an int and compute ``beta2 ** step``:
    # PyTorch's base class leaves it an int (it was a float32 tensor, which rounded the bias correction)
    # and never casts a step tensor (Sophia's float32 shape-(1,) counter beside float64 parameters)
    class Custom(tl.optim.Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": 0.1})

    p = tl.nn.Parameter(tl.zeros(2, dtype=tl.float64))
    opt = Custom([p])
    opt.state[p] = {"step": 3, "buf": tl.zeros(1, dtype=tl.float32)}
    opt.load_state_dict(opt.state_dict())
    assert opt.state[p]["step"] == 3 and type(opt.state[p]["step"]) is int
    assert opt.state[p]["buf"].dtype is tl.float64
    opt.state[p] = {"step": tl.ones(1, dtype=tl.float32)}
    opt.load_state_dict(opt.state_dict())
    assert opt.state[p]["step"].dtype is tl.float32 and opt.state[p]["step"].shape == (1,)

def test_constructor_errors():
    p = tl.nn.Parameter(tl.zeros(2))
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        tl.optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match=r"Invalid learning rate: -0.1"):
        tl.optim.SGD([p], lr=-0.1)
    with pytest.raises(ValueError, match=r"Invalid learning rate: -0.1"):
        tl.optim.Adam([p], lr=-0.1)
    # PyTorch's SGD checks `lr < 0`: a NaN lr (float or Tensor) is accepted there, refused by Adam's `0 <= lr`
    tl.optim.SGD([p], lr=float("nan"))
    tl.optim.SGD([p], lr=tl.tensor(float("nan")))
    with pytest.raises(ValueError, match=r"Invalid learning rate: nan"):
        tl.optim.Adam([p], lr=float("nan"))
    with pytest.raises(ValueError, match=r"Invalid momentum value: -0.5"):
        tl.optim.SGD([p], lr=0.1, momentum=-0.5)
    with pytest.raises(ValueError, match=r"Invalid weight_decay value: -1"):
        tl.optim.SGD([p], lr=0.1, weight_decay=-1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        tl.optim.SGD([p], lr=0.1, nesterov=True)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        tl.optim.SGD([p], lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)
    with pytest.raises(ValueError, match=r"Invalid beta parameter at index 0: 1.0"):
        tl.optim.Adam([p], betas=(1.0, 0.999))
    with pytest.raises(ValueError, match=r"Invalid beta parameter at index 1: -0.1"):
        tl.optim.AdamW([p], betas=(0.9, -0.1))
    with pytest.raises(ValueError, match=r"Invalid epsilon value: -1e-08"):
        tl.optim.Adam([p], eps=-1e-8)
    with pytest.raises(ValueError, match=r"Invalid weight_decay value: -0.1"):
        tl.optim.AdamW([p], weight_decay=-0.1)
    with pytest.raises(ValueError, match=r"Invalid momentum_decay value: -1"):
        tl.optim.NAdam([p], momentum_decay=-1)
    with pytest.raises(ValueError, match=r"Invalid alpha value: -0.5"):
        tl.optim.RMSprop([p], alpha=-0.5)
    with pytest.raises(ValueError, match=r"Invalid rho value: 1.5"):
        tl.optim.Adadelta([p], rho=1.5)
    with pytest.raises(ValueError, match=r"Invalid lr_decay value: -1"):
        tl.optim.Adagrad([p], lr_decay=-1)
    with pytest.raises(ValueError, match=r"Invalid initial_accumulator_value value: -1"):
        tl.optim.Adagrad([p], initial_accumulator_value=-1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        tl.optim.SGD([p * 2], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        tl.optim.SGD([{"params": [p]}, {"params": [p]}], lr=0.1)
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts, but got a dict"):
        tl.optim.SGD({"w": p}, lr=0.1)
    with pytest.raises(TypeError, match="should be an iterable of Tensors or dicts, but got tensorlab.Tensor"):
        tl.optim.SGD(p, lr=0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the params is int"):
        tl.optim.SGD([p, 3], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        tl.optim.SGD([{"params": {p}}], lr=0.1)
    with pytest.raises(ValueError, match="LBFGS doesn't support per-parameter options"):
        tl.optim.LBFGS([{"params": [p]}, {"params": [tl.nn.Parameter(tl.zeros(1))]}])
    with pytest.raises(NotImplementedError, match="capturable"):
        tl.optim.Adam([p], capturable=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tl.optim.SGD([p, p], lr=0.1)
    assert any("duplicate parameters" in str(x.message) for x in w)


def test_add_param_group_and_errors_leave_optimizer_unchanged():
    p, q = tl.nn.Parameter(tl.zeros(2)), tl.nn.Parameter(tl.zeros(2))
    opt = tl.optim.SGD([p], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="Invalid learning rate: -1"):
        opt.add_param_group({"params": [q], "lr": -1})
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [p]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([q])
    assert len(opt.param_groups) == 1
    opt.add_param_group({"params": q, "lr": 0.01})
    assert opt.param_groups[1]["lr"] == 0.01 and opt.param_groups[1]["momentum"] == 0.9
    assert opt.param_groups[1]["params"][0] is q


def test_gradient_dtype_mismatch_raises_before_updating():
    p = tl.nn.Parameter(tl.zeros(3, dtype=tl.float64))
    p.grad = tl.ones(3, dtype=tl.float64)
    p.data = tl.zeros(3)  # (the grad setter refuses another dtype; a parameter's may change afterwards)
    opt = tl.optim.Adam([p], lr=0.1)
    with pytest.raises(RuntimeError, match="Adam: the gradient of parameter 0 is float64 but the parameter is float32"):
        opt.step()
    assert len(opt.state[p]) == 0 and _host(p).tolist() == [0, 0, 0]


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_zero_grad(device):
    p = tl.nn.Parameter(tl.ones(3, device=device))
    opt = tl.optim.SGD([p], lr=0.1)
    (p * 2).sum().backward()
    g = p.grad
    opt.zero_grad(set_to_none=False)
    assert p.grad is g and _host(p.grad).tolist() == [0, 0, 0]
    opt.zero_grad()
    assert p.grad is None


def test_step_hooks_and_state_dict_hooks():
    p = tl.nn.Parameter(tl.ones(2))
    opt = tl.optim.SGD([p], lr=0.1)
    seen = []
    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(("pre", o is opt)))
    opt.register_step_post_hook(lambda o, args, kwargs: seen.append(("post", o is opt)))
    opt.register_state_dict_post_hook(lambda o, sd: {**sd, "extra": 1})
    opt.register_load_state_dict_pre_hook(lambda o, sd: {k: v for k, v in sd.items() if k != "extra"})
    p.grad = tl.ones(2)
    opt.step()
    assert seen == [("pre", True), ("post", True)]
    h1.remove()
    opt.step()
    assert seen[-1] == ("post", True) and len(seen) == 3
    sd = opt.state_dict()
    assert sd["extra"] == 1
    opt.load_state_dict(sd)
    handle = tl.optim.register_optimizer_step_pre_hook(lambda o, a, k: seen.append("global"))
    try:
        opt.step()
    finally:
        handle.remove()
    assert "global" in seen


def test_wrapper_optimizer_without_base_init_steps():
    # timm's Lookahead subclasses Optimizer but sets param_groups/defaults/state itself, never calling
    # Optimizer.__init__; PyTorch runs its step unhooked (it raised AttributeError on the hook dicts)
    class Lookahead(tl.optim.Optimizer):
        def __init__(self, base):
            self.base, self.param_groups, self.defaults, self.state = base, base.param_groups, base.defaults, {}

        def step(self, closure=None):
            return self.base.step(closure)

    p = tl.nn.Parameter(tl.tensor([1.0, 2.0]))
    p.grad = tl.tensor([1.0, -1.0])
    assert Lookahead(tl.optim.SGD([p], lr=0.5)).step(lambda: 3.0) == 3.0
    assert _host(p).tolist() == [0.5, 2.5]


def test_step_bumps_parameter_version_so_autograd_notices():
    w = tl.nn.Parameter(tl.tensor([1.0, 2.0]))
    y = (w * w).sum()  # saves w for backward
    w.grad = tl.ones(2)
    tl.optim.SGD([w], lr=0.1).step()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_minimises_rosenbrock(line_search_fn):
    x = tl.nn.Parameter(tl.tensor([-1.5, 2.0], dtype=tl.float64))
    opt = tl.optim.LBFGS([x], lr=1 if line_search_fn else 0.5, max_iter=200, history_size=10,
                         line_search_fn=line_search_fn, tolerance_grad=1e-10, tolerance_change=1e-14)

    def closure():
        opt.zero_grad()
        loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        loss.backward()
        return loss

    for _ in range(10 if line_search_fn else 30):
        opt.step(closure)
    np.testing.assert_allclose(_host(x), [1.0, 1.0], atol=1e-5)
    assert opt.state[x]["func_evals"] > 10 and opt.state[x]["n_iter"] > 10


def _lbfgs_quadratic(device, max_iter):
    rng = np.random.default_rng(8)
    m = rng.standard_normal((4, 4))
    a_np = m @ m.T + 4 * np.eye(4)
    b_np = rng.standard_normal(4)
    a, b = tl.tensor(a_np, device=device), tl.tensor(b_np, device=device)
    x = tl.nn.Parameter(tl.zeros(4, dtype=tl.float64, device=device))
    opt = tl.optim.LBFGS([x], max_iter=max_iter, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x * (a @ x)).sum() - (b * x).sum()
        loss.backward()
        return loss

    first = opt.step(closure)
    return x, first, np.linalg.solve(a_np, b_np)


def test_lbfgs_minimises_a_quadratic():
    x, first, solution = _lbfgs_quadratic("cpu", 12)
    np.testing.assert_allclose(first.item(), 0.0)
    np.testing.assert_allclose(_host(x), solution, rtol=1e-4, atol=1e-5)


@needs_cuda
def test_lbfgs_cuda_follows_cpu():
    """The same iterations on cuda (registered ops on the kernels; a few: the interpreter is slow)."""
    x_cuda, _, _ = _lbfgs_quadratic("cuda", 2)
    x_cpu, _, _ = _lbfgs_quadratic("cpu", 2)
    np.testing.assert_allclose(_host(x_cuda), _host(x_cpu), rtol=1e-10, atol=1e-12)


def test_optimizer_repr_matches_pytorch():
    """PyTorch's repr: one block per group, sorted keys, groups separated by a blank line (string
    from torch 2.13 for the same optimizer)."""
    opt = tl.optim.SGD([{"params": [tl.nn.Parameter(tl.zeros(2))]},
                        {"params": [tl.nn.Parameter(tl.zeros(3))], "lr": 0.3}], lr=0.1)
    group = ("    dampening: 0\n    differentiable: False\n    foreach: None\n    fused: None\n    lr: {}\n"
             "    maximize: False\n    momentum: 0\n    nesterov: False\n    weight_decay: 0\n")
    assert repr(opt) == ("SGD (\nParameter Group 0\n" + group.format(0.1) + "\nParameter Group 1\n" + group.format(0.3)
                         + ")")


# torch 2.15 (cpu) after two steps from p = [1, -2] (lr 1e-3) with grads [1e20, -3e19] then [1, 1]:
# the second moment is ((1 - beta2) * g) * g, PyTorch's addcmul order. Squaring first overflows
# float32 from |g| ~ 2e19: the state went inf and the parameter never moved again.
_HUGE_GRAD_STEPS = {
    "Adam": ({}, [0.9983299374580383, -1.9983298778533936], "exp_avg_sq",
             [9.990001339706512e+36, 8.991002029708751e+35]),
    "AdamW": ({}, [0.9983099102973938, -1.9982898235321045], "exp_avg_sq",
              [9.990001339706512e+36, 8.991002029708751e+35]),
    "Adam-amsgrad": ({"amsgrad": True}, [0.998330295085907, -1.9983302354812622], "max_exp_avg_sq",
                     [1.0000001201466413e+37, 9.000001556688747e+35]),
    "RMSprop": ({}, [0.9900000095367432, -1.9900000095367432], "square_avg",
                [9.899999287975848e+37, 8.910000424004768e+36]),
    "NAdam": ({}, [1.0, -2.0], "exp_avg_sq", [9.990001339706512e+36, 8.991002029708751e+35]),
    "RAdam": ({}, [-1.4736843682401485e+17, 4.421052932921754e+16], "exp_avg_sq",
              [9.990001339706512e+36, 8.991002029708751e+35]),
}


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
@pytest.mark.parametrize("name", list(_HUGE_GRAD_STEPS))
def test_second_moments_of_huge_gradients_stay_finite(name, device):
    kwargs, want_p, key, want_state = _HUGE_GRAD_STEPS[name]
    p = tl.nn.Parameter(tl.tensor([1.0, -2.0], device=device))
    opt = getattr(tl.optim, name.split("-")[0])([p], lr=1e-3, **kwargs)
    for g in ([1e20, -3e19], [1.0, 1.0]):
        p.grad = tl.tensor(g, device=device)
        opt.step()
    np.testing.assert_allclose(p.detach().cpu().numpy(), want_p, rtol=2e-6)
    np.testing.assert_allclose(opt.state[p][key].cpu().numpy(), want_state, rtol=2e-6)
