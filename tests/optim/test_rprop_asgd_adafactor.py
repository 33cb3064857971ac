"""Rprop, ASGD (fused kernels + twins) and Adafactor (tensorlab ops) against independent float64 numpy
references of PyTorch's algorithms, hand-computed values, cuda vs cpu; state dicts, groups, errors."""

from __future__ import annotations

import math
import re

import ml_dtypes
import numpy as np
import pytest

import tensorlab as tl
from tensorlab_kernels.optim import multi_tensor

from .reference import Ref, check_state_dict_round_trip, run_optimizer, run_reference

CUDA = tl.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="cuda (or Triton's interpreter) is unavailable")

SHAPES = [(3, 4), (5,), (2, 3, 2), ()]


# ----------------------------------------------------------------------------------------------
# float64 references, written from PyTorch's algorithm descriptions (torch.optim docs / _single_tensor_*)
# ----------------------------------------------------------------------------------------------


class RpropRef(Ref):
    """s = sign(g prev); step_size *= etaplus | etaminus | 1, clipped; g = 0 where s < 0; p -= sign(g) step_size."""

    def update(self, p, g, st, t):
        g = -g if self.opts.get("maximize") else g  # (reference.Ref leaves it to decayed_grad)
        o = self.opts
        lr, (em, ep), (lo, hi) = o.get("lr", 1e-2), o.get("etas", (0.5, 1.2)), o.get("step_sizes", (1e-6, 50))
        s = np.sign(g * st.get("prev", 0.0))
        ss = np.clip(st.get("step_size", np.full(p.shape, lr)) * np.where(s > 0, ep, np.where(s < 0, em, 1.0)), lo, hi)
        g = np.where(s < 0, 0.0, g)
        p -= np.sign(g) * ss
        st["prev"], st["step_size"] = g, ss


class ASGDRef(Ref):
    """p *= 1 - lambd eta; p -= eta g; ax averages p once mu < 1; eta, mu for the next step (float32)."""

    def update(self, p, g, st, t):
        g = -g if self.opts.get("maximize") else g  # (reference.Ref leaves it to decayed_grad)
        o = self.opts
        lr, lambd, alpha, t0, wd = (o.get("lr", 1e-2), o.get("lambd", 1e-4), o.get("alpha", 0.75), o.get("t0", 1e6),
                                    o.get("weight_decay", 0))
        eta, mu = st.get("eta", float(np.float32(lr))), st.get("mu", 1.0)
        g = g + wd * p
        p *= 1 - lambd * eta
        p -= eta * g
        st["ax"] = p.copy() if mu == 1 else st["ax"] + (p - st["ax"]) * mu
        st["eta"] = float(np.float32(lr / (1 + lambd * lr * t) ** alpha))  # PyTorch stores them as float32
        st["mu"] = float(np.float32(1 / max(1, t - t0)))


class AdafactorRef(Ref):
    """Factored second moments (row/col means of g^2) for >= 2-D, a full one for vectors; RMS clipping."""

    def update(self, p, g, st, t):
        g = -g if self.opts.get("maximize") else g  # (reference.Ref leaves it to decayed_grad)
        o = self.opts
        lr, decay, (eps1, eps2), d, wd = (o.get("lr", 1e-2), o.get("beta2_decay", -0.8), o.get("eps", (None, 1e-3)),
                                          o.get("d", 1.0), o.get("weight_decay", 0.0))
        eps1 = o["machine_eps"] if eps1 is None else eps1
        w = t**decay
        alpha = max(eps2, math.sqrt(np.mean(p * p)) if p.size else 0.0) * min(lr, 1 / math.sqrt(t))
        p *= 1 - lr * wd
        if p.ndim > 1:
            row = st.get("row_var", np.zeros((*p.shape[:-1], 1)))
            col = st.get("col_var", np.zeros((*p.shape[:-2], 1, p.shape[-1])))
            row = row + w * ((g * g).mean(axis=-1, keepdims=True) - row)
            col = col + w * ((g * g).mean(axis=-2, keepdims=True) - col)
            st["row_var"], st["col_var"] = row, col
            v = (row @ col) / np.maximum(row.mean(axis=-2, keepdims=True), eps1)
        else:
            v = st.get("variance", np.zeros(p.shape))
            v = v + w * (g * g - v)
            st["variance"] = v
        u = g / np.sqrt(np.maximum(v, eps1 * eps1))
        p -= alpha / max(1.0, math.sqrt(np.mean(u * u)) / d) * u


# (id, class, kwargs, reference class, reference options, steps)
CONFIGS = [
    ("rprop", tl.optim.Rprop, dict(), RpropRef, dict(), 6),
    ("rprop-opts-maximize", tl.optim.Rprop, dict(lr=0.05, etas=(0.3, 1.7), step_sizes=(1e-3, 0.2), maximize=True),
     RpropRef, dict(lr=0.05, etas=(0.3, 1.7), step_sizes=(1e-3, 0.2), maximize=True), 6),
    ("asgd", tl.optim.ASGD, dict(lr=0.05), ASGDRef, dict(lr=0.05), 5),
    ("asgd-t0-wd-maximize", tl.optim.ASGD, dict(lr=0.05, lambd=0.1, alpha=0.5, t0=2, weight_decay=0.1, maximize=True),
     ASGDRef, dict(lr=0.05, lambd=0.1, alpha=0.5, t0=2, weight_decay=0.1, maximize=True), 5),
    ("adafactor", tl.optim.Adafactor, dict(), AdafactorRef, dict(machine_eps=np.finfo(np.float64).eps), 4),
    ("adafactor-opts-maximize", tl.optim.Adafactor, dict(lr=0.3, beta2_decay=-0.5, eps=(1e-3, 1e-2), d=1.5,
                                                         weight_decay=0.1, maximize=True),
     AdafactorRef, dict(lr=0.3, beta2_decay=-0.5, eps=(1e-3, 1e-2), d=1.5, weight_decay=0.1, maximize=True), 4),
]
IDS = [c[0] for c in CONFIGS]


def _data(steps: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    init = [rng.standard_normal(s) for s in SHAPES]
    # some exact zeros: Rprop's "no sign" case
    grads = [[rng.standard_normal(s) * (rng.random(s) > 0.2) for s in SHAPES] for _ in range(steps)]
    return init, grads


_run, _reference = run_optimizer, run_reference  # (shared with the other optimizer tests)


def _host(t) -> np.ndarray:
    return np.asarray(t.detach().cpu().to(tl.float64).numpy())


def _compare(params, opt, ref_params, ref, rtol, atol):
    for i, (p, rp) in enumerate(zip(params, ref_params)):
        np.testing.assert_allclose(_host(p), rp, rtol=rtol, atol=atol, err_msg=f"parameter {i}")
        state = opt.state[p]
        assert set(state) == set(ref.state[i]), (list(state), list(ref.state[i]))
        for key, value in ref.state[i].items():
            if key in ("step", "eta", "mu"):  # float32 cpu scalars, exact
                assert state[key].dtype is tl.float32 and state[key].device.type == "cpu" and state[key].ndim == 0
                assert state[key].item() == value, key
                continue
            assert state[key].dtype is p.dtype and state[key].device == p.device
            np.testing.assert_allclose(_host(state[key]), value, rtol=rtol, atol=atol, err_msg=f"{key} of {i}")


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_matches_reference_cpu_float64(config):
    _, cls, kwargs, ref_cls, ref_opts, steps = config
    init, grads = _data(steps)
    params, opt = _run(cls, kwargs, "cpu", tl.float64, init, grads)
    ref_params, ref = _reference(ref_cls, ref_opts, init, grads, np.float64)
    _compare(params, opt, ref_params, ref, rtol=1e-12, atol=1e-12)


@needs_cuda
@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_cuda_float32_matches_reference_and_cpu(config):
    """cuda (the fused kernel; Adafactor's ops) against the reference and against cpu."""
    _, cls, kwargs, ref_cls, ref_opts, steps = config
    init, grads = _data(3, seed=1)
    if ref_cls is AdafactorRef:
        ref_opts = {**ref_opts, "machine_eps": float(np.finfo(np.float32).eps)}
    params, opt = _run(cls, kwargs, "cuda", tl.float32, init, grads)
    ref_params, ref = _reference(ref_cls, ref_opts, init, grads, np.float32)
    _compare(params, opt, ref_params, ref, rtol=2e-5, atol=2e-6)
    cpu_params, cpu_opt = _run(cls, kwargs, "cpu", tl.float32, init, grads)
    for p, q in zip(params, cpu_params):
        np.testing.assert_allclose(_host(p), _host(q), rtol=1e-6, atol=1e-7)
        assert list(opt.state[p]) == list(cpu_opt.state[q])
        for key, value in opt.state[p].items():
            np.testing.assert_allclose(_host(value), _host(cpu_opt.state[q][key]), rtol=1e-6, atol=1e-7, err_msg=key)


@needs_cuda
@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16, tl.float64], ids=str)
@pytest.mark.parametrize("name", ["rprop-opts-maximize", "asgd-t0-wd-maximize", "adafactor-opts-maximize"])
def test_other_dtypes_cuda_follows_cpu_and_reference(name, dtype):
    """fp16/bf16 parameters and state with fp32 math, fp64 in fp64: the kernel as its twin, near the reference."""
    _, cls, kwargs, ref_cls, ref_opts, _ = CONFIGS[IDS.index(name)]
    init, grads = _data(3, seed=2)
    params, opt = _run(cls, kwargs, "cuda", dtype, init, grads)
    cpu_params, _ = _run(cls, kwargs, "cpu", dtype, init, grads)
    ulp = {tl.float16: 1e-3, tl.bfloat16: 8e-3, tl.float64: 1e-12}[dtype]
    for p, q in zip(params, cpu_params):
        assert p.dtype is dtype
        assert all(v.dtype is dtype for k, v in opt.state[p].items() if k not in ("step", "eta", "mu"))
        np.testing.assert_allclose(_host(p), _host(q), rtol=ulp, atol=ulp)
    np_dtype = dtype.np if dtype is not tl.bfloat16 else ml_dtypes.bfloat16
    ref_params, _ = _reference(ref_cls, ref_opts, init, grads, np_dtype)
    tol = {tl.float16: 1e-2, tl.bfloat16: 5e-2, tl.float64: 1e-12}[dtype]
    for p, rp in zip(params, ref_params):
        np.testing.assert_allclose(_host(p), rp, rtol=tol, atol=tol)


# ----------------------------------------------------------------------------------------------
# hand-computed values
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_rprop_step_sizes_grow_shrink_and_clamp(device):
    p = tl.nn.Parameter(tl.tensor([1.0, 1.0, 1.0], dtype=tl.float64, device=device))
    opt = tl.optim.Rprop([p], 0.01, (0.5, 1.2), (1e-3, 0.02))  # positional form
    sizes, values = [], []
    for g in ([1.0, 1.0, 0.0], [2.0, -1.0, 0.0], [3.0, 1.0, 1.0], [1.0, 1.0, 1.0], [5.0, 1.0, -1.0]):
        p.grad = tl.tensor(g, dtype=tl.float64, device=device)
        opt.step()
        sizes.append(_host(opt.state[p]["step_size"]).tolist())
        values.append(_host(p).tolist())
    # element 0: same sign every step -> x1.2 until the 0.02 cap; element 1: flips at step 2 (halved, no move,
    # prev = 0), so step 3 keeps the size; element 2: no gradient (size kept, no move) then a flip
    np.testing.assert_allclose([s[0] for s in sizes], [0.01, 0.012, 0.0144, 0.01728, 0.02], rtol=1e-15)
    np.testing.assert_allclose([s[1] for s in sizes], [0.01, 0.005, 0.005, 0.006, 0.0072], rtol=1e-15)
    np.testing.assert_allclose([s[2] for s in sizes], [0.01, 0.01, 0.01, 0.012, 0.006], rtol=1e-15)
    np.testing.assert_allclose([v[1] for v in values], [0.99, 0.99, 0.985, 0.979, 0.9718], rtol=1e-15)
    np.testing.assert_allclose([v[2] for v in values], [1.0, 1.0, 0.99, 0.978, 0.978], rtol=1e-15)
    assert _host(opt.state[p]["prev"]).tolist() == [5.0, 1.0, 0.0]  # the flipped gradient is stored as 0


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_rprop_nan_and_inf_gradients_leave_the_step_size(device):
    # torch 2.15: sign(NaN) is 0, so a NaN product (a NaN gradient, or inf * 0 on the first step) is
    # factor 1 and the parameter stays put; the NaN product was the factor (step size and parameter NaN)
    p = tl.nn.Parameter(tl.tensor([1.0, 1.0, 1.0, 1.0], device=device))
    opt = tl.optim.Rprop([p], lr=0.1)
    expected = [([1.0, 0.9, 0.9, 0.9], [0.1, 0.1, 0.1, 0.1]), ([0.9, 0.78, 0.78, 0.9], [0.1, 0.12, 0.12, 0.1]),
                ([0.78, 0.78, 0.636, 0.8], [0.12, 0.06, 0.144, 0.1])]
    grads = ([math.nan, math.inf, 1.0, 1.0], [1.0, 1.0, 1.0, math.nan], [1.0, -1.0, 1.0, 1.0])
    for g, (values, sizes) in zip(grads, expected):
        p.grad = tl.tensor(g, device=device)
        opt.step()
        np.testing.assert_allclose(_host(p), values, rtol=1e-6)
        np.testing.assert_allclose(_host(opt.state[p]["step_size"]), sizes, rtol=1e-6)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_rprop_half_uses_the_dtype_of_the_parameter(device):
    """PyTorch works in the parameter's dtype: fp16 etaplus is 1.2001953125, and an fp16 product
    g * prev that underflows to 0 is "no sign" (factor 1), unlike float32."""
    h = np.float16
    p = tl.nn.Parameter(tl.tensor([1.0, 1.0], dtype=tl.float16, device=device))
    opt = tl.optim.Rprop([p], lr=0.01)
    for g in ([1.0, 1e-4], [1.0, 1e-4]):
        p.grad = tl.tensor(g, dtype=tl.float16, device=device)
        opt.step()
    ss0 = h(np.float32(h(0.01)))
    grown = h(np.float32(ss0) * np.float32(h(1.2)))
    assert _host(opt.state[p]["step_size"]).tolist() == [float(grown), float(ss0)]
    assert _host(p).tolist() == [float(h(np.float32(h(1 - np.float32(ss0))) - np.float32(grown))),
                                 float(h(np.float32(h(1 - np.float32(ss0))) - np.float32(ss0)))]
    q = tl.nn.Parameter(tl.tensor([1.0, 1.0], dtype=tl.float32, device=device))
    opt32 = tl.optim.Rprop([q], lr=0.01)
    for g in ([1.0, 1e-4], [1.0, 1e-4]):
        q.grad = tl.tensor(g, device=device)
        opt32.step()
    np.testing.assert_allclose(_host(opt32.state[q]["step_size"]), [0.012, 0.012], rtol=1e-6)


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_asgd_eta_mu_and_averaging_by_hand(device):
    p = tl.nn.Parameter(tl.tensor([2.0, -1.0], dtype=tl.float64, device=device))
    opt = tl.optim.ASGD([p], lr=0.1, lambd=0.5, alpha=1.0, t0=1)
    st = opt.state
    expect_p, ax = np.array([2.0, -1.0]), None
    eta, mu = float(np.float32(0.1)), 1.0
    for t, g in enumerate(([1.0, 1.0], [0.5, -2.0], [1.0, 3.0], [-1.0, 0.0]), start=1):
        p.grad = tl.tensor(g, dtype=tl.float64, device=device)
        opt.step()
        expect_p = expect_p * (1 - 0.5 * eta) - eta * np.array(g)
        ax = expect_p.copy() if mu == 1 else ax + (expect_p - ax) * mu
        eta, mu = float(np.float32(0.1 / (1 + 0.5 * 0.1 * t))), float(np.float32(1 / max(1, t - 1)))
        np.testing.assert_allclose(_host(p), expect_p, rtol=1e-15)
        np.testing.assert_allclose(_host(st[p]["ax"]), ax, rtol=1e-15)
        assert st[p]["eta"].item() == eta and st[p]["mu"].item() == mu and st[p]["step"].item() == t
    assert mu == float(np.float32(1 / 3)) and list(st[p]) == ["step", "eta", "mu", "ax"]


def test_asgd_half_rounds_like_pytorch_ops():
    """Each of PyTorch's ops rounds to fp16; the alpha of add (weight_decay, -eta) is itself fp16."""
    rng = np.random.default_rng(3)
    p0, g0 = rng.standard_normal(64).astype(np.float16), rng.standard_normal(64).astype(np.float16)
    p = tl.nn.Parameter(tl.tensor(p0))
    opt = tl.optim.ASGD([p], lr=0.3, lambd=0.2, weight_decay=0.3, t0=0)
    p.grad = tl.tensor(g0)
    opt.step()
    f, h = np.float32, np.float16
    eta = f(0.3)
    g = h(g0.astype(f) + f(h(0.3)) * p0.astype(f))
    x = h(p0.astype(f) * f(1 - 0.2 * float(eta)))
    x = h(x.astype(f) + f(h(-float(eta))) * g.astype(f))
    assert _host(p).tolist() == x.astype(np.float64).tolist()


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
def test_adafactor_first_step_by_hand(device):
    """Step 1: beta2 weight 1^-0.8 = 1, so the factors are the row/col means of g^2; rho = lr."""
    p = tl.nn.Parameter(tl.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tl.float64, device=device))
    opt = tl.optim.Adafactor([p], lr=0.1)
    p.grad = tl.tensor([[1.0, 0.0], [2.0, 2.0]], dtype=tl.float64, device=device)
    opt.step()
    g = np.array([[1.0, 0.0], [2.0, 2.0]])
    row, col = np.array([[0.5], [4.0]]), np.array([[2.5, 2.0]])
    v = row @ col / 2.25
    u = g / np.sqrt(v)
    alpha = math.sqrt(30 / 4) * 0.1
    expect = np.array([[1.0, 2.0], [3.0, 4.0]]) - alpha / max(1.0, math.sqrt(np.mean(u * u))) * u
    np.testing.assert_allclose(_host(p), expect, rtol=1e-14)
    np.testing.assert_allclose(_host(opt.state[p]["row_var"]), row, rtol=1e-15)
    np.testing.assert_allclose(_host(opt.state[p]["col_var"]), col, rtol=1e-15)
    assert list(opt.state[p]) == ["step", "row_var", "col_var"] and opt.state[p]["step"].item() == 1.0


def test_adafactor_default_eps1_comes_from_the_groups_first_parameter():
    """PyTorch sets eps1 = finfo(dtype).eps inside its loop: the first parameter's dtype holds for the group."""
    rng = np.random.default_rng(4)
    a, b, ga, gb = (rng.standard_normal(5) * 1e-9 for _ in range(4))  # tiny: eps1 clamps the variance
    for first, second in ((tl.float64, tl.float32), (tl.float32, tl.float64)):
        p, q = tl.nn.Parameter(tl.tensor(a, dtype=first)), tl.nn.Parameter(tl.tensor(b, dtype=second))
        opt = tl.optim.Adafactor([p, q])
        p.grad, q.grad = tl.tensor(ga, dtype=first), tl.tensor(gb, dtype=second)
        opt.step()
        expect = {}
        for dtype in (first, second):
            rq, ref = [np.asarray(b, second.np).astype(np.float64)], AdafactorRef(1, machine_eps=np.finfo(dtype.np).eps)
            ref.step(rq, [np.asarray(gb, second.np).astype(np.float64)])
            expect[dtype] = rq[0]
        np.testing.assert_allclose(_host(q), expect[first], rtol=1e-5)
        assert not np.allclose(expect[first], expect[second], rtol=1e-2)  # the test can tell them apart


# ----------------------------------------------------------------------------------------------
# groups, launches, state dicts
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
@pytest.mark.parametrize("name", ["rprop-opts-maximize", "asgd-t0-wd-maximize", "adafactor-opts-maximize"])
def test_param_groups_with_different_options(device, name):
    _, cls, kwargs, ref_cls, ref_opts, _ = CONFIGS[IDS.index(name)]
    init, grads = _data(3, seed=5)
    params = [tl.nn.Parameter(tl.tensor(a, dtype=tl.float64, device=device)) for a in init]
    other = {"lr": 0.2, "maximize": False}
    opt = cls([{"params": params[:2]}, {"params": params[2:], **other}], **kwargs)
    assert opt.param_groups[1]["lr"] == 0.2 and opt.param_groups[0]["lr"] == kwargs["lr"]
    for step_grads in grads:
        for p, g in zip(params, step_grads):
            p.grad = tl.tensor(g, dtype=tl.float64, device=device)
        opt.step()
    extra = {"machine_eps": np.finfo(np.float64).eps} if ref_cls is AdafactorRef else {}
    ref_a, _ = _reference(ref_cls, {**ref_opts, **extra}, init[:2], [g[:2] for g in grads], np.float64)
    ref_b, _ = _reference(ref_cls, {**ref_opts, **extra, **other}, init[2:], [g[2:] for g in grads], np.float64)
    for p, rp in zip(params, ref_a + ref_b):
        np.testing.assert_allclose(_host(p), rp, rtol=1e-12, atol=1e-12)


@needs_cuda
@pytest.mark.parametrize("cls", [tl.optim.Rprop, tl.optim.ASGD])
def test_one_launch_per_group_and_multi_chunk(monkeypatch, cls):
    launches = []
    real = multi_tensor.launch
    monkeypatch.setattr(multi_tensor, "launch", lambda kernel, grid, *a, **k: (launches.append(grid),
                                                                                 real(kernel, grid, *a, **k))[1])
    init, grads = _data(3, seed=6)
    kwargs = dict(lr=0.05, t0=1) if cls is tl.optim.ASGD else dict(lr=0.05)
    params, _ = _run(cls, kwargs, "cuda", tl.float32, init, grads)
    assert launches == [(len(SHAPES),)] * 3  # one launch per step, one chunk (program) per small tensor
    launches.clear()
    with multi_tensor.override_config({"CHUNK": 8, "BLOCK": 4}):
        small, _ = _run(cls, kwargs, "cuda", tl.float32, init, grads)
    assert launches == [(sum(-(-math.prod(s) // 8) for s in SHAPES),)] * 3
    for p, q in zip(params, small):
        np.testing.assert_array_equal(_host(p), _host(q))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=needs_cuda)])
@pytest.mark.parametrize("name", ["rprop-opts-maximize", "asgd-t0-wd-maximize", "adafactor-opts-maximize"])
def test_state_dict_round_trip(tmp_path, device, name):
    _, cls, kwargs, _, _, _ = CONFIGS[IDS.index(name)]
    init, grads = _data(4, seed=7)
    params, opt = _run(cls, kwargs, device, tl.float32, init, grads[:2])
    opt2, clones = check_state_dict_round_trip(opt, cls, kwargs, params, grads[2:], device, tmp_path)
    for key, value in opt2.state[clones[0]].items():
        if key in ("step", "eta", "mu"):
            assert value.dtype is tl.float32 and value.device.type == "cpu"
        else:
            assert value.device == clones[0].device


def test_asgd_load_state_dict_keeps_eta_and_mu_float32_scalars():
    src = tl.nn.Parameter(tl.ones(3))
    opt = tl.optim.ASGD([src], lr=0.1, t0=0)
    src.grad = tl.ones(3)
    opt.step()
    dst = tl.nn.Parameter(tl.ones(3, dtype=tl.float64))
    opt2 = tl.optim.ASGD([dst])
    opt2.load_state_dict(opt.state_dict())
    st = opt2.state[dst]
    assert st["ax"].dtype is tl.float64
    assert all(st[k].dtype is tl.float32 and st[k].device.type == "cpu" for k in ("step", "eta", "mu"))
    dst.grad = tl.ones(3, dtype=tl.float64)
    opt2.step()
    assert st["step"].item() == 2.0 and st["mu"].item() == 0.5


# ----------------------------------------------------------------------------------------------
# arguments and errors
# ----------------------------------------------------------------------------------------------


def test_positional_and_keyword_forms():
    p = tl.nn.Parameter(tl.zeros(2))
    g = tl.optim.Rprop([p], 0.1, (0.4, 1.3), (1e-4, 1.0)).param_groups[0]
    assert (g["lr"], g["etas"], g["step_sizes"], g["maximize"]) == (0.1, (0.4, 1.3), (1e-4, 1.0), False)
    g = tl.optim.ASGD([p], 0.1, 1e-3, 0.5, 3, 0.2, None, True).param_groups[0]
    assert (g["lr"], g["lambd"], g["alpha"], g["t0"], g["weight_decay"], g["maximize"]) == (
        0.1, 1e-3, 0.5, 3, 0.2, True)
    g = tl.optim.Adafactor([p], 0.1, -0.5, (None, 1e-2), 2.0, 0.1, maximize=True).param_groups[0]
    assert (g["lr"], g["beta2_decay"], g["eps"], g["d"], g["weight_decay"], g["maximize"]) == (
        0.1, -0.5, (None, 1e-2), 2.0, 0.1, True)
    assert tl.optim.Adafactor([p]).defaults == {"lr": 1e-2, "beta2_decay": -0.8, "eps": (None, 1e-3), "d": 1.0,
                                                "weight_decay": 0.0, "foreach": None, "maximize": False}
    with pytest.raises(TypeError):
        tl.optim.Rprop([p], 0.1, (0.4, 1.3), (1e-4, 1.0), False)  # capturable is keyword-only
    with pytest.raises(TypeError):
        tl.optim.Adafactor([p], 0.1, -0.5, (None, 1e-2), 2.0, 0.1, None)  # foreach is keyword-only


def test_tensor_lr():
    p = tl.nn.Parameter(tl.tensor([1.0, -1.0], dtype=tl.float64))
    q = tl.nn.Parameter(tl.tensor([1.0, -1.0], dtype=tl.float64))
    for cls in (tl.optim.Rprop, tl.optim.ASGD, tl.optim.Adafactor):
        a, b = cls([p], lr=tl.tensor(0.05, dtype=tl.float64)), cls([q], lr=0.05)
        for _ in range(2):
            p.grad = q.grad = tl.tensor([0.5, 0.25], dtype=tl.float64)
            a.step()
            b.step()
        assert _host(p).tolist() == _host(q).tolist()
        with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
            cls([p], lr=tl.tensor([0.1, 0.2]))


@pytest.mark.parametrize("make, error, message", [
    (lambda p: tl.optim.Rprop([p], lr=-0.1), ValueError, "Invalid learning rate: -0.1"),
    (lambda p: tl.optim.Rprop([p], etas=(1.0, 1.2)), ValueError, "Invalid eta values: 1.0, 1.2"),
    (lambda p: tl.optim.Rprop([p], etas=(0.5, 1.0)), ValueError, "Invalid eta values: 0.5, 1.0"),
    (lambda p: tl.optim.Rprop([p], etas=(0.0, 1.2)), ValueError, "Invalid eta values: 0.0, 1.2"),
    (lambda p: tl.optim.Rprop([p], capturable=True), NotImplementedError, "Rprop: capturable=True"),
    (lambda p: tl.optim.Rprop([p], differentiable=True), NotImplementedError, "Rprop: differentiable=True"),
    (lambda p: tl.optim.ASGD([p], lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda p: tl.optim.ASGD([p], lambd=-1e-4), ValueError, "Invalid lambd value: -0.0001"),
    (lambda p: tl.optim.ASGD([p], alpha=-0.5), ValueError, "Invalid alpha value: -0.5"),
    (lambda p: tl.optim.ASGD([p], weight_decay=-1), ValueError, "Invalid weight_decay value: -1"),
    (lambda p: tl.optim.ASGD([p], capturable=True), NotImplementedError, "ASGD: capturable=True"),
    (lambda p: tl.optim.ASGD([p], differentiable=True), NotImplementedError, "ASGD: differentiable=True"),
    (lambda p: tl.optim.Adafactor([p], lr=-0.1), ValueError, "Learning rate should be >= 0 but is: -0.1"),
    (lambda p: tl.optim.Adafactor([p], beta2_decay=0.5), ValueError, "beta2_decay should be <= 0 but is: 0.5"),
    (lambda p: tl.optim.Adafactor([p], eps=(-1.0, 1e-3)), ValueError, "epsilon1 should be >= 0 but is: -1.0"),
    (lambda p: tl.optim.Adafactor([p], eps=(None, -1.0)), ValueError, "epsilon2 should be >= 0 but is: -1.0"),
    (lambda p: tl.optim.Adafactor([p], d=0.5), ValueError, "Clipping threshold d should be >= 1 but is: 0.5"),
    (lambda p: tl.optim.Adafactor([p], weight_decay=-0.1), ValueError, "weight_decay should be >= 0 but is: -0.1"),
    (lambda p: tl.optim.Adafactor([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
])
def test_constructor_errors(make, error, message):
    with pytest.raises(error, match=re.escape(message)):
        make(tl.nn.Parameter(tl.zeros(2)))


@pytest.mark.parametrize("cls", [tl.optim.Rprop, tl.optim.ASGD, tl.optim.Adafactor])
def test_bad_group_and_gradient_raise_before_anything_changes(cls):
    p = tl.nn.Parameter(tl.zeros(3, dtype=tl.float64))
    p.grad = tl.ones(3, dtype=tl.float64)
    p.data = tl.zeros(3)  # (the grad setter refuses another dtype; a parameter's may change afterwards)
    opt = cls([p], lr=0.1)
    with pytest.raises(ValueError, match="-1.0"):
        opt.add_param_group({"params": [tl.nn.Parameter(tl.zeros(1))], "lr": -1.0})
    assert len(opt.param_groups) == 1
    with pytest.raises(RuntimeError, match=f"{cls.__name__}: the gradient of parameter 0 is float64"):
        opt.step()
    assert len(opt.state[p]) == 0 and _host(p).tolist() == [0, 0, 0]


def test_parameters_without_grad_are_skipped():
    init, grads = _data(3, seed=8)
    grads[1][0] = None
    for cls, ref_cls, extra in ((tl.optim.Rprop, RpropRef, {}), (tl.optim.ASGD, ASGDRef, {}),
                                (tl.optim.Adafactor, AdafactorRef, {"machine_eps": np.finfo(np.float64).eps})):
        params, opt = _run(cls, dict(lr=0.05), "cpu", tl.float64, init, grads)
        ref_params, ref = _reference(ref_cls, dict(lr=0.05, **extra), init, grads, np.float64)
        _compare(params, opt, ref_params, ref, rtol=1e-12, atol=1e-12)
        assert [opt.state[p]["step"].item() for p in params] == [2.0, 3.0, 3.0, 3.0]
