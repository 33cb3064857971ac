"""tensorlab.optim.swa_utils: averaged weights against numpy running averages (SWA, EMA, buffers),
SWALR's learning rates against their closed form (and chained after another scheduler), update_bn
against numpy batch statistics, and the argument checks."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.optim import swa_utils as S
from tensorlab.optim.swa_utils import SWALR, AveragedModel, update_bn


def np_(t):
    return np.array(t.detach().cpu().numpy())


def _model(device="cpu"):
    return tl.nn.Sequential(tl.nn.Linear(2, 3), tl.nn.BatchNorm1d(3)).to(device=device, dtype=tl.float64)


def _snapshots(n=5, seed=0):
    rng = np.random.default_rng(seed)
    return [dict(w=rng.standard_normal((3, 2)), b=rng.standard_normal(3), rm=rng.standard_normal(3), nbt=3 * i + 1)
            for i in range(n)]


def _load(model, snap):
    with tl.no_grad():
        dev = model[0].weight.device
        model[0].weight.copy_(tl.tensor(snap["w"], device=dev))
        model[0].bias.copy_(tl.tensor(snap["b"], device=dev))
        model[1].running_mean.copy_(tl.tensor(snap["rm"], device=dev))
        model[1].num_batches_tracked.fill_(snap["nbt"])


def _run(averaged, model, snaps):
    for s in snaps:
        _load(model, s)
        averaged.update_parameters(model)


# ----------------------------------------------------------------------------------------------
# AveragedModel
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["default", "avg_fn", "multi_avg_fn"])
def test_swa_is_the_mean_of_the_snapshots(kind, device):
    fn = {"default": {}, "avg_fn": dict(avg_fn=S.get_swa_avg_fn()),
          "multi_avg_fn": dict(multi_avg_fn=S.get_swa_multi_avg_fn())}[kind]
    model = _model(device)
    avg = AveragedModel(model, **fn)
    snaps = _snapshots()
    _run(avg, model, snaps)
    # PyTorch's lerp weight is 1/(n+1) in float32 for the multi form: close, not exact, in float64
    tol = dict(rtol=1e-6, atol=1e-7) if kind == "multi_avg_fn" else dict(rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(np_(avg.module[0].weight), np.mean([s["w"] for s in snaps], 0), **tol)
    np.testing.assert_allclose(np_(avg.module[0].bias), np.mean([s["b"] for s in snaps], 0), **tol)
    # buffers follow the source model when not averaged
    np.testing.assert_array_equal(np_(avg.module[1].running_mean), snaps[-1]["rm"])
    assert int(avg.module[1].num_batches_tracked) == snaps[-1]["nbt"] and int(avg.n_averaged) == 5
    assert avg.module[0].weight is not model[0].weight  # a copy
    x = tl.randn(4, 2, dtype=tl.float64, device=device)
    avg.eval()
    np.testing.assert_array_equal(np_(avg(x)), np_(avg.module(x)))


@pytest.mark.parametrize("multi", [False, True])
def test_ema(multi):
    decay = 0.9
    fn = dict(multi_avg_fn=S.get_ema_multi_avg_fn(decay)) if multi else dict(avg_fn=S.get_ema_avg_fn(decay))
    model = _model()
    avg = AveragedModel(model, **fn)
    snaps = _snapshots()
    _run(avg, model, snaps)
    want = snaps[0]["w"]  # the first update copies
    for s in snaps[1:]:
        want = decay * want + (1 - decay) * s["w"]
    np.testing.assert_allclose(np_(avg.module[0].weight), want, rtol=1e-13, atol=1e-14)


def test_use_buffers_averages_buffers_too():
    model = _model()
    avg = AveragedModel(model, use_buffers=True)
    snaps = _snapshots()
    _run(avg, model, snaps)
    np.testing.assert_allclose(np_(avg.module[1].running_mean), np.mean([s["rm"] for s in snaps], 0), rtol=1e-13)
    # an integer buffer is averaged too, truncated at each step (PyTorch's cpu result)
    n = snaps[0]["nbt"]
    for k, s in enumerate(snaps[1:], start=1):
        n = int(n + (s["nbt"] - n) / (k + 1))
    assert int(avg.module[1].num_batches_tracked) == n == 5
    ema = AveragedModel(model, multi_avg_fn=S.get_ema_multi_avg_fn(0.5), use_buffers=True)
    _run(ema, model, snaps[:2])
    assert int(ema.module[1].num_batches_tracked) == int(1 * 0.5 + 4 * 0.5)


def test_averaged_model_on_another_device_and_state_dict():
    model = _model()
    avg = AveragedModel(model, device="cuda") if tl.cuda.is_available() else AveragedModel(model, device="cpu")
    dev = avg.module[0].weight.device
    assert avg.n_averaged.device == dev
    snaps = _snapshots(3)
    _run(avg, model, snaps)
    np.testing.assert_allclose(np_(avg.module[0].weight), np.mean([s["w"] for s in snaps], 0), rtol=1e-13)
    keys = set(avg.state_dict())
    assert {"n_averaged", "module.0.weight", "module.0.bias", "module.1.running_mean"} <= keys
    fresh = AveragedModel(_model(), device=dev)
    fresh.load_state_dict(avg.state_dict())
    assert int(fresh.n_averaged) == 3
    np.testing.assert_array_equal(np_(fresh.module[0].weight), np_(avg.module[0].weight))


def test_update_parameters_records_no_graph():
    model = _model()
    avg = AveragedModel(model)
    _run(avg, model, _snapshots(2))
    assert avg.module[0].weight.grad_fn is None and avg.module[0].weight.requires_grad


def test_averaging_function_checks():
    for f in (S.get_ema_avg_fn, S.get_ema_multi_avg_fn):
        for bad in (-0.1, 1.5):
            with pytest.raises(ValueError, match=rf"Invalid decay value {bad} provided. Please provide a value in "
                                                 r"\[0,1\] range."):
                f(bad)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        AveragedModel(tl.nn.Linear(2, 2), avg_fn=S.get_swa_avg_fn(), multi_avg_fn=S.get_swa_multi_avg_fn())
    a = tl.tensor([0.0, 2.0])
    np.testing.assert_allclose(np_(S.get_swa_avg_fn()(a, tl.tensor([3.0, 5.0]), 2)), [1.0, 3.0])
    np.testing.assert_allclose(np_(S.get_ema_avg_fn(0.75)(a, tl.tensor([4.0, 6.0]), 2)), [1.0, 3.0])


# ----------------------------------------------------------------------------------------------
# SWALR
# ----------------------------------------------------------------------------------------------


def _opt(lrs):
    return tl.optim.SGD([{"params": [tl.nn.Parameter(tl.zeros(2))], "lr": lr} for lr in lrs])


def _anneal(strategy, t):
    return (1 - math.cos(math.pi * t)) / 2 if strategy == "cos" else t


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("anneal_epochs", [0, 1, 3, 10])
def test_swalr_closed_form(strategy, anneal_epochs):
    lrs, swa_lrs = [0.5, 0.1], [0.05, 0.2]
    opt = _opt(lrs)
    sched = SWALR(opt, swa_lr=swa_lrs, anneal_epochs=anneal_epochs, anneal_strategy=strategy)
    got = []
    for _ in range(15):
        got.append([g["lr"] for g in opt.param_groups])
        opt.step()
        sched.step()
    want = []
    for k in range(15):
        t = 1.0 if anneal_epochs == 0 else min(1.0, k / anneal_epochs)
        a = _anneal(strategy, t)
        want.append([s * a + lr * (1 - a) for lr, s in zip(lrs, swa_lrs)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert sched.get_last_lr() == [g["lr"] for g in opt.param_groups]
    assert [g["swa_lr"] for g in opt.param_groups] == swa_lrs


def test_swalr_after_another_scheduler():
    # chainable: it starts from whatever rate the group has when it takes over
    opt = _opt([1.0])
    cos = tl.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    for _ in range(5):
        opt.step()
        cos.step()
    start = opt.param_groups[0]["lr"]
    np.testing.assert_allclose(start, (1 + math.cos(math.pi * 5 / 10)) / 2)
    sched = SWALR(opt, swa_lr=0.01, anneal_epochs=4)
    got = []
    for _ in range(8):
        got.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    want = [0.01 * _anneal("cos", min(1, k / 4)) + start * (1 - _anneal("cos", min(1, k / 4))) for k in range(8)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_swalr_state_dict_and_get_lr_warning():
    sched = SWALR(_opt([1.0]), swa_lr=0.1, anneal_epochs=3, anneal_strategy="linear")
    state = sched.state_dict()
    assert "anneal_func" not in state and "optimizer" not in state and state["_anneal_strategy"] == "linear"
    other = SWALR(_opt([1.0]), swa_lr=0.5)
    other.load_state_dict(state)
    assert other.anneal_func(0.25) == 0.25 and other.anneal_epochs == 3
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_swalr_argument_checks():
    with pytest.raises(ValueError, match="swa_lr must have the same length as optimizer.param_groups. swa_lr has 2 "
                                         "values, param_groups has 1."):
        SWALR(_opt([1.0]), swa_lr=[0.1, 0.2])
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
        SWALR(_opt([1.0]), swa_lr=0.1, anneal_strategy="exp")
    for bad in (-1, 2.0):
        with pytest.raises(ValueError, match=f"anneal_epochs must be equal or greater than 0, got {bad}"):
            SWALR(_opt([1.0]), swa_lr=0.1, anneal_epochs=bad)
    # keyword and positional forms
    a = SWALR(_opt([1.0]), 0.1, 5, "linear", -1)
    b = SWALR(optimizer=_opt([1.0]), swa_lr=0.1, anneal_epochs=5, anneal_strategy="linear", last_epoch=-1)
    assert a.get_last_lr() == b.get_last_lr() == [1.0]


# ----------------------------------------------------------------------------------------------
# update_bn
# ----------------------------------------------------------------------------------------------


def test_update_bn_matches_numpy(device):
    model = _model(device)
    model[1].momentum = 0.3
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal((4, 2)) for _ in range(3)]
    loader = [(tl.tensor(xs[0]), 0), [tl.tensor(xs[1]), 1], tl.tensor(xs[2])]  # tuples, lists and bare tensors
    model.eval()
    update_bn(loader, model, device=device)
    w, b = np_(model[0].weight), np_(model[0].bias)
    hs = [x @ w.T + b for x in xs]
    # momentum None while updating: the cumulative average of the batch statistics
    np.testing.assert_allclose(np_(model[1].running_mean), np.mean([h.mean(0) for h in hs], 0), rtol=1e-10)
    np.testing.assert_allclose(np_(model[1].running_var), np.mean([h.var(0, ddof=1) for h in hs], 0), rtol=1e-10)
    assert int(model[1].num_batches_tracked) == 3
    assert model[1].momentum == 0.3 and not model.training  # both restored


def test_update_bn_without_batchnorm_does_nothing():
    model = tl.nn.Linear(2, 2)
    calls = []
    model.register_forward_hook(lambda *a: calls.append(1))
    update_bn([tl.randn(3, 2)], model)
    assert calls == []


def test_importable_both_ways():
    assert tl.optim.swa_utils.AveragedModel is AveragedModel
    from tensorlab.optim.swa_utils import get_swa_multi_avg_fn  # noqa: F401

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        AveragedModel(tl.nn.Linear(2, 2))
