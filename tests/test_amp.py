"""Automatic mixed precision: ``tl.autocast`` (ops run in the dtype of their kind, PyTorch's CUDA
lists) and ``tl.amp.GradScaler`` (loss scaling; its sequence of scales and skipped steps)."""

import warnings

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F


def _low(device):
    return tl.float16 if device == "cuda" else tl.bfloat16


def test_ops_run_in_their_kinds_dtype(device):
    x = tl.randn(4, 8, device=device)
    w = tl.randn(8, 8, device=device, requires_grad=True)
    low = _low(device)
    with tl.autocast(device):
        assert tl.is_autocast_enabled(device) and tl.get_autocast_dtype(device) is low
        y = x @ w
        assert y.dtype is low  # lower precision: matmuls, linear, attention
        assert F.linear(x, w).dtype is low and tl.einsum("ij,jk->ik", x, w).dtype is low
        q = x.reshape(1, 1, 4, 8)
        assert F.scaled_dot_product_attention(q, q, q).dtype is low
        for r in (y.prod(), F.mse_loss(y, x), F.cross_entropy(y, tl.tensor([1, 2, 3, 4], device=device)),
                  tl.cdist(y, y)):  # float32 on both device types
            assert r.dtype is tl.float32
        # float32 on cuda only (PyTorch's cpu list is shorter): there they run in the inputs' dtype
        want = tl.float32 if device == "cuda" else low
        for r in (y.softmax(-1), y.log_softmax(-1), y.sum(), y.exp(), y.log1p(), y.pow(2), F.layer_norm(y, (8,)),
                  F.group_norm(y[:, :, None], 2), F.normalize(y), tl.dist(y, y)):
            assert r.dtype is want
        assert (y + x).dtype is tl.float32 and y.relu().dtype is low and y.mean().dtype is low  # not listed
        assert tl.addcmul(x, y, y).dtype is tl.float32  # promoted (cuda's list; cpu: ordinary promotion)
        assert tl.cat([x, y]).dtype is tl.float32 and tl.stack([y, x]).dtype is tl.float32
        assert tl.mv(x, x[0]).dtype is (low if device == "cuda" else tl.float32)  # mv: cuda's list only
        assert (x.double() @ w.double()).dtype is tl.float64  # float64 is never cast
        with tl.autocast(device, enabled=False):
            assert (x @ w).dtype is tl.float32 and not tl.is_autocast_enabled(device)
        assert (x @ w).dtype is low
    assert not tl.is_autocast_enabled(device) and (x @ w).dtype is tl.float32


def test_values_and_gradients_are_those_of_the_cast_computation(device):
    low = _low(device)
    x = tl.randn(3, 5, device=device, dtype=tl.float64).float()
    w = tl.randn(5, 2, device=device, dtype=tl.float64).float().requires_grad_()
    with tl.autocast(device):
        y = x @ w
        loss = y.float().square().sum()
    loss.backward()
    xl, wl = x.to(low), w.detach().to(low)
    want_y = (xl @ wl)
    assert y.dtype is low and tl.equal(y, want_y)
    assert w.grad.dtype is tl.float32  # the cast's backward returns the gradient in w's dtype
    g = 2 * want_y.float()  # d(sum y^2)/dy, then through the low-precision matmul
    want = (xl.t() @ g.to(low)).float()
    np.testing.assert_allclose(w.grad.cpu().numpy(), want.cpu().numpy(), rtol=1e-6)


def test_backward_inside_autocast_runs_in_forward_dtypes(device):
    w = tl.randn(4, 4, device=device, requires_grad=True)
    x = tl.randn(2, 4, device=device)
    with tl.autocast(device):
        loss = (x @ w).float().sum()
        loss.backward()  # (backward ops are not autocast: no float32 -> low casts of the gradients)
        assert tl.is_autocast_enabled(device)
    assert w.grad.dtype is tl.float32
    low = _low(device)  # the forward's matmul ran in low precision: so does its backward
    want = (x.to(low).t() @ tl.ones(2, 4, dtype=low, device=device)).float()
    np.testing.assert_allclose(w.grad.cpu().numpy(), want.cpu().numpy(), rtol=1e-3, atol=1e-3)


def test_parameter_casts_are_cached_within_a_region(device):
    w = tl.randn(4, 4, device=device, requires_grad=True)
    x = tl.randn(2, 4, device=device)
    calls = []
    real = tl.Tensor.to

    def counting_to(self, *args, **kwargs):
        calls.append(self is w)
        return real(self, *args, **kwargs)

    tl.Tensor.to = counting_to
    try:
        with tl.autocast(device):
            x @ w, x @ w, x @ w
        assert sum(calls) == 1  # w cast once; x (not a parameter) each time
        with tl.autocast(device, cache_enabled=False):
            x @ w, x @ w
        assert sum(calls) == 3
    finally:
        tl.Tensor.to = real


def test_the_rest_of_pytorchs_lists(device):
    f32, bf16, f16 = tl.float32, tl.bfloat16, tl.float16
    x, h = tl.rand(3, 3, device=device) + 0.5, (tl.rand(3, 3, device=device) + 0.5).to(_low(device))
    with tl.autocast(device):
        cases = {  # name: (result, dtype on cpu (bfloat16), dtype on cuda (float16)) -- torch 2.15's lists
            "vecdot": (tl.linalg.vecdot(x, x), bf16, f16),  # lower precision
            "addr": (tl.addr(x, x[0], x[1]), f32, f16),  # (cuda's lower-precision list only)
            "prelu": (F.prelu(x, tl.tensor([0.25], device=device)), bf16, f16),
            "addbmm": (tl.addbmm(x, x[None], x[None]), bf16, f16),
            "einsum": (tl.einsum("ij,jk->i", x, x), bf16, f16),  # (its sum is not cast to float32 on cuda)
            "multi_dot": (tl.linalg.multi_dot([x, x, x]), bf16, f16),
            "trace": (tl.trace(h), f32, f16),  # float32 (cpu: a bfloat16 trace; cuda: no float32 sum inside)
            # (cuda: a float16 quantile is PyTorch's error, as without autocast)
            "quantile": (tl.quantile(h if device == "cpu" else x, 0.5), f32, f32),
            "huber_loss": (F.huber_loss(h, h), f32, f32),
            "logsumexp": (tl.logsumexp(h, 0), bf16, f32),
            "renorm": (tl.renorm(h, 2, 0, 1.0), bf16, f32),
            "rms_norm": (F.rms_norm(h, (3,)), bf16, f32),
            "reflect pad": (F.pad(h[None], (1, 1), mode="reflect"), f32, f16),
            "replicate pad": (F.pad(h[None, None], (1, 1, 1, 1), mode="replicate"), f32, f16),
            "circular pad": (F.pad(h[None], (1, 1), mode="circular"), bf16, f16),
            "tensordot": (tl.tensordot(x, x, 1), bf16, f32),  # promote on cuda: its mm is not cast
            "cross": (tl.cross(h, h, dim=1), bf16, f16),
            "bilinear": (F.bilinear(h, h, h[None]), bf16, f16),  # cpu: its matmul is not cast (one kernel in PyTorch)
        }
        for name, (r, want_cpu, want_cuda) in cases.items():
            assert r.dtype is (want_cpu if device == "cpu" else want_cuda), (name, r.dtype)
    # the op runs without autocast inside, as PyTorch's: tensordot's mm in float32 on cuda, cdist's
    # (its mm path: more than 25 rows) in float32 on both
    y = tl.rand(30, 3, device=device)
    with tl.autocast(device):
        dot, dist = tl.tensordot(x, x, 1), tl.cdist(y, y)
    assert tl.equal(dist, tl.cdist(y, y))
    if device == "cuda":
        assert tl.equal(dot, tl.tensordot(x, x, 1))


def test_mixed_dtypes_are_cast_before_the_ops_own_dtype_checks(device):
    f32, low = tl.float32, _low(device)
    x, h = tl.rand(3, 4, device=device), tl.rand(3, 4, device=device).to(low)
    i = tl.tensor([0, 2], device=device)
    q = x.reshape(1, 3, 4)
    with tl.autocast(device):
        # lower precision on both device types (cpu: einsum's bmm is what PyTorch casts)
        assert tl.addbmm(x[:, :3], h[None], x.T[None]).dtype is low
        assert tl.einsum("ij,kj->ik", x, h).dtype is low
        assert F.scaled_dot_product_attention(q, h[None], h[None]).dtype is low
        assert tl.linalg.vecdot(x, h).dtype is low
        if device == "cpu":  # promote: cpu's list
            assert tl.index_copy(x, 0, i, h[:2]).dtype is f32
        else:  # cuda's lists
            assert x.index_put((i,), h[:2]).dtype is f32
            assert x.scatter_add(0, tl.zeros(2, 4, dtype=tl.int64, device=device), h[:2]).dtype is f32
            assert tl.vdot(x[0], h[0]).dtype is f32
            assert tl.cross(x[:, :3], h[:, :3], dim=1).dtype is f32
            assert F.bilinear(x, h, h[:2, None].expand(2, 4, 4)).dtype is f32
            assert tl.linalg.multi_dot([x, h.T]).dtype is low
        # in-place and out= variants are on no list, as PyTorch's: their dtype checks stand
        with pytest.raises(RuntimeError, match="same"):
            x.clone().index_copy_(0, i, h[:2])
        with pytest.raises(RuntimeError, match="einsum"):  # float64 is never cast: bmm's mismatch
            tl.einsum("ij,kj->ik", x.double(), h)


def test_decorator_and_errors():
    @tl.autocast("cpu")
    def f(a):
        return a @ a

    assert f(tl.ones(2, 2)).dtype is tl.bfloat16
    with pytest.raises(RuntimeError, match="unsupported autocast device_type"):
        tl.autocast("tpu")
    # cpu: an unsupported dtype warns and turns autocast off, as PyTorch's (the dtype is still set)
    x = tl.ones(2, 2)
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not supported. Disabling"):
        region = tl.autocast("cpu", dtype=tl.float32)
    with region:
        assert not tl.is_autocast_enabled("cpu") and tl.get_autocast_dtype("cpu") is tl.float32
        assert (x @ x).dtype is tl.float32
    with pytest.warns(UserWarning, match="not supported"), tl.autocast("cpu", dtype=tl.float64):
        assert (x @ x).dtype is tl.float32
    with pytest.raises(ValueError, match="device_type"):
        tl.autocast(0)
    for enabled in (1, 0, None):  # a bool only, as PyTorch's: TypeError on entry, autocast left as it was
        region = tl.autocast("cpu", enabled=enabled)
        with pytest.raises(TypeError, match="argument 'enabled' .* must be bool, not"), region:
            pass
        assert not tl.is_autocast_enabled("cpu")


def test_binary_cross_entropy_refuses_cuda_autocast():
    p = tl.tensor([0.2, 0.7], device="cuda")
    with tl.autocast("cuda"), pytest.raises(RuntimeError, match="unsafe to autocast"):
        F.binary_cross_entropy(p, p)
    with tl.autocast("cpu"):  # (PyTorch's cpu autocast allows it)
        assert F.binary_cross_entropy(p.cpu(), p.cpu()).dtype is tl.float32


def test_custom_fwd_casts_inputs_and_custom_bwd_restores_state(device):
    seen = {}

    class Square(tl.autograd.Function):
        @staticmethod
        @tl.amp.custom_fwd(device_type=device, cast_inputs=tl.float32)
        def forward(ctx, a):
            seen["fwd"] = (a.dtype, tl.is_autocast_enabled(device))
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        @tl.amp.custom_bwd(device_type=device)
        def backward(ctx, g):
            seen["bwd"] = tl.is_autocast_enabled(device)
            (a,) = ctx.saved_tensors
            return 2 * a * g

    a = tl.tensor([1.0, 3.0], device=device, dtype=_low(device), requires_grad=True)
    with tl.autocast(device):
        out = Square.apply(a)
    out.sum().backward()
    # torch 2.15: with cast_inputs the backward runs without autocast too (it ran with it: a matmul
    # there was in the low dtype), and float64 inputs are not cast
    assert seen["fwd"] == (tl.float32, False) and seen["bwd"] is False
    assert out.dtype is tl.float32 and a.grad.tolist() == [2.0, 6.0]
    with tl.autocast(device):
        Square.apply(tl.tensor([1.0], device=device, dtype=tl.float64))
    assert seen["fwd"] == (tl.float64, False)


def _scaler_run(scaler, opt, model, x, steps, inf_at):
    out = []
    for step in range(steps):
        opt.zero_grad()
        loss = model(x).sum()
        if step == inf_at:
            loss = loss * float("inf")
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        out.append((scaler.get_scale(), round(model.weight.sum().item(), 5), scaler._get_growth_tracker()))
    return out


def test_grad_scaler_scales_skips_backs_off_and_grows(device):
    m = tl.nn.Linear(3, 2).to(device)
    with tl.no_grad():
        m.weight.copy_(tl.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]]))
        m.bias.zero_()
    opt = tl.optim.SGD(m.parameters(), lr=0.1)
    scaler = tl.amp.GradScaler(device, init_scale=4.0, growth_interval=2)
    x = tl.tensor([[1.0, 2.0, 3.0]], device=device)
    # every weight's gradient is x's value: sum(dW) = 2 * 6 = 12 -> the weight sum drops by 1.2 a step;
    # the step with an inf loss is skipped and halves the scale; two clean steps in a row double it
    assert _scaler_run(scaler, opt, m, x, 5, 2) == [(4.0, 0.9, 1), (8.0, -0.3, 0), (4.0, -0.3, 0), (4.0, -1.5, 1),
                                                    (8.0, -2.7, 0)]
    assert scaler.state_dict() == {"scale": 8.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 2,
                                   "_growth_tracker": 0}
    restored = tl.amp.GradScaler(device)
    restored.load_state_dict(scaler.state_dict())
    assert restored.get_scale() == 8.0 and restored.get_growth_interval() == 2


def test_grad_scaler_grows_only_to_a_finite_scale():
    # torch 2.15's _amp_update_scale_: a growth that overflows float32 is not taken (the scale became
    # inf, every later step was skipped and backing off kept it inf)
    p = tl.nn.Parameter(tl.ones(2))
    opt = tl.optim.SGD([p], lr=0.0)
    scaler = tl.amp.GradScaler("cpu", init_scale=2.0**127, growth_interval=1)
    for _ in range(3):
        opt.zero_grad()
        scaler.scale((p * 1e-30).sum()).backward()
        scaler.step(opt)
        scaler.update()
        assert scaler.get_scale() == 2.0**127 and scaler._get_growth_tracker() == 0


def test_grad_scaler_call_order_errors_and_disabled():
    m = tl.nn.Linear(2, 1)
    opt = tl.optim.SGD(m.parameters(), lr=0.1)
    scaler = tl.amp.GradScaler("cpu")
    with pytest.raises(AssertionError, match="scale"):
        scaler.step(opt)
    scaler.scale(m(tl.ones(1, 2)).sum()).backward()
    scaler.unscale_(opt)
    assert m.weight.grad.tolist() == [[1.0, 1.0]]  # unscaled in place
    with pytest.raises(RuntimeError, match="already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    scaler.update(16.0)
    assert scaler.get_scale() == 16.0
    with pytest.raises(RuntimeError, match="Closure"):
        scaler.step(opt, closure=lambda: 0)
    off = tl.amp.GradScaler("cpu", enabled=False)
    assert off.scale(tl.ones(1)).item() == 1.0 and off.get_scale() == 1.0 and off.state_dict() == {}
    with pytest.raises(RuntimeError, match="state dict is empty"):
        tl.amp.GradScaler("cpu").load_state_dict({})
    p = tl.nn.Parameter(tl.ones(2, dtype=tl.float16))
    o2 = tl.optim.SGD([p], lr=1.0)
    s = tl.amp.GradScaler("cpu")
    s.scale(p.float().sum()).backward()
    with pytest.raises(ValueError, match="FP16 gradients"):
        s.step(o2)
    with pytest.raises(ValueError, match="growth factor"):
        tl.amp.GradScaler("cpu", growth_factor=1.0)


def test_mixed_precision_training_learns(device):
    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Linear(4, 16), tl.nn.ReLU(), tl.nn.Linear(16, 2)).to(device)
    opt = tl.optim.Adam(model.parameters(), lr=0.05)
    scaler = tl.amp.GradScaler(device)
    x = tl.randn(32, 4, device=device)
    y = (x[:, 0] > 0).long()
    losses = []
    for _ in range(30):
        opt.zero_grad()
        with tl.autocast(device):
            logits = model(x)
            loss = F.cross_entropy(logits, y)
        assert logits.dtype is _low(device) and loss.dtype is tl.float32
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        losses.append(loss.item())
    assert all(p.dtype is tl.float32 and p.grad.dtype is tl.float32 for p in model.parameters())
    assert losses[-1] < 0.5 * losses[0]


def test_cuda_amp_aliases_warn():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with tl.cuda.amp.autocast():
            assert (tl.ones(2, 2, device="cuda") @ tl.ones(2, 2, device="cuda")).dtype is tl.float16
        scaler = tl.cuda.amp.GradScaler(init_scale=2.0)
    assert sum(issubclass(x.category, FutureWarning) for x in w) == 2
    assert scaler.get_scale() == 2.0


def test_a_cast_made_under_no_grad_is_not_reused_with_grad(device):
    lin = tl.nn.Linear(3, 2).to(device)
    x = tl.randn(4, 3, device=device)
    with tl.autocast(device):
        with tl.no_grad():
            lin(x)
        lin(x).float().sum().backward()
    assert lin.weight.grad is not None and lin.weight.grad.dtype is tl.float32


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_grad_scaler_skips_a_step_with_one_non_finite_gradient(device, bad):
    a = tl.nn.Parameter(tl.ones(3, device=device))
    b = tl.nn.Parameter(tl.ones(2, device=device))
    empty = tl.nn.Parameter(tl.ones(0, device=device))
    opt = tl.optim.SGD([a, b, empty], lr=1.0)
    scaler = tl.amp.GradScaler(device, init_scale=4.0)
    scaler.scale((a * 1.0).sum() + (b * 1.0).sum() + empty.sum()).backward()
    b.grad[1] = bad
    assert scaler.step(opt) is None  # skipped
    assert a.tolist() == [1.0, 1.0, 1.0] and a.grad.tolist() == [1.0, 1.0, 1.0]  # still unscaled in place
    scaler.update()
    assert scaler.get_scale() == 2.0


def test_grad_scaler_refuses_fp16_gradients_before_changing_any():
    a = tl.nn.Parameter(tl.ones(2))
    h = tl.nn.Parameter(tl.ones(2, dtype=tl.float16))
    opt = tl.optim.SGD([a, h], lr=1.0)
    scaler = tl.amp.GradScaler("cpu", init_scale=4.0)
    scaler.scale(a.sum() + h.float().sum()).backward()
    with pytest.raises(ValueError, match="FP16"):
        scaler.unscale_(opt)
    assert a.grad.tolist() == [4.0, 4.0]
