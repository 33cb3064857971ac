"""Learning-rate schedulers against their closed forms over many steps, chaining as PyTorch documents it,
state dicts, and ReduceLROnPlateau's modes."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.optim import lr_scheduler as S


def _opt(lrs=(0.1,), cls=tl.optim.SGD, **kw):
    groups = [{"params": [tl.nn.Parameter(tl.zeros(2))], "lr": lr} for lr in lrs]
    return cls(groups, **kw)


def _trace(sched, opt, steps):
    """The lr of every group before each of ``steps`` epochs (optimizer.step then scheduler.step)."""
    out = []
    for _ in range(steps):
        out.append([g["lr"] for g in opt.param_groups])
        opt.step()
        sched.step()
    return np.array(out)


def _check(sched_fn, closed, lrs=(0.1, 0.02), steps=40, **opt_kw):
    opt = _opt(lrs, **opt_kw)
    sched = sched_fn(opt)
    got = _trace(sched, opt, steps)
    want = np.array([[closed(base, e) for base in lrs] for e in range(steps)])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    assert sched.get_last_lr() == [g["lr"] for g in opt.param_groups]
    assert sched.last_epoch == steps


def test_step_lr():
    _check(lambda o: S.StepLR(o, step_size=3, gamma=0.5), lambda b, e: b * 0.5 ** (e // 3))


def test_multistep_lr_with_repeated_milestone():
    _check(lambda o: S.MultiStepLR(o, milestones=[5, 12, 12, 30], gamma=0.1),
           lambda b, e: b * 0.1 ** sum(m <= e for m in [5, 12, 12, 30]))


def test_exponential_lr():
    _check(lambda o: S.ExponentialLR(o, gamma=0.9), lambda b, e: b * 0.9**e)


def test_cosine_annealing_lr_including_past_t_max():
    # PyTorch's recursive form follows the closed form also beyond T_max (it keeps oscillating).
    _check(lambda o: S.CosineAnnealingLR(o, T_max=10, eta_min=0.001),
           lambda b, e: 0.001 + (b - 0.001) * (1 + math.cos(math.pi * e / 10)) / 2, steps=35)


def test_cosine_annealing_warm_restarts():
    def closed(b, e, t0=3, mult=2, eta=0.0005):
        t_i, t_cur = t0, e
        while t_cur >= t_i:
            t_cur -= t_i
            t_i *= mult
        return eta + (b - eta) * (1 + math.cos(math.pi * t_cur / t_i)) / 2

    _check(lambda o: S.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.0005), closed, steps=50)
    opt = _opt()
    sched = S.CosineAnnealingWarmRestarts(opt, T_0=4)
    sched.step(5.5)  # fractional epochs: T_cur = 1.5 in the second cycle
    assert math.isclose(opt.param_groups[0]["lr"], 0.1 * (1 + math.cos(math.pi * 1.5 / 4)) / 2)


def test_lambda_and_multiplicative_lr():
    _check(lambda o: S.LambdaLR(o, lambda e: 1 / (1 + e)), lambda b, e: b / (1 + e))
    _check(lambda o: S.LambdaLR(o, [lambda e: 0.9**e, lambda e: 1 + e]),
           lambda b, e: b * (0.9**e if b == 0.1 else 1 + e))
    _check(lambda o: S.MultiplicativeLR(o, lambda e: 0.95), lambda b, e: b * 0.95**e)


def test_linear_and_constant_lr():
    _check(lambda o: S.LinearLR(o, start_factor=0.25, end_factor=0.75, total_iters=8),
           lambda b, e: b * (0.25 + 0.5 * min(e, 8) / 8))
    _check(lambda o: S.ConstantLR(o, factor=0.5, total_iters=4), lambda b, e: b * (0.5 if e < 4 else 1.0))


def test_polynomial_lr():
    _check(lambda o: S.PolynomialLR(o, total_iters=10, power=2.0), lambda b, e: b * (1 - min(e, 10) / 10) ** 2)


def test_closed_form_with_explicit_epoch():
    opt = _opt()
    sched = S.StepLR(opt, step_size=2, gamma=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched.step(7)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.5**3) and sched.last_epoch == 7


def test_one_cycle_lr_cos_and_linear():
    total, max_lr, div, final_div, pct = 20, 1.0, 25.0, 1e4, 0.3

    def closed(e, anneal):
        initial, low = max_lr / div, max_lr / div / final_div
        up_end = pct * total - 1
        if e <= up_end:
            start, end, frac = initial, max_lr, e / up_end
        else:
            start, end, frac = max_lr, low, (e - up_end) / (total - 1 - up_end)
        if anneal == "cos":
            return end + (start - end) / 2 * (math.cos(math.pi * frac) + 1)
        return (end - start) * frac + start

    for anneal in ("cos", "linear"):
        opt = _opt(cls=tl.optim.SGD, momentum=0.9)
        sched = S.OneCycleLR(opt, max_lr=max_lr, total_steps=total, anneal_strategy=anneal)
        got = _trace(sched, opt, total)[:, 0]
        np.testing.assert_allclose(got, [closed(e, anneal) for e in range(total)], rtol=1e-12)
        with pytest.raises(ValueError, match="Tried to step 21 times"):
            sched.step()
    # momentum (here Adam's beta1) cycles inversely: max at the start, base at the peak of lr
    opt = _opt(cls=tl.optim.Adam)
    S.OneCycleLR(opt, max_lr=0.1, total_steps=10, base_momentum=0.8, max_momentum=0.9)
    assert opt.param_groups[0]["betas"][0] == pytest.approx(0.9)


def test_cyclic_lr_modes():
    base, top, up, down = 0.01, 0.1, 4, 6

    def closed(e, mode, gamma=0.9):
        cycle = math.floor(1 + e / (up + down))
        x = 1 + e / (up + down) - cycle
        ratio = up / (up + down)
        scale = x / ratio if x <= ratio else (x - 1) / (ratio - 1)
        amp = {"triangular": 1.0, "triangular2": 1 / 2 ** (cycle - 1), "exp_range": gamma**e}[mode]
        return base + (top - base) * scale * amp

    for mode in ("triangular", "triangular2", "exp_range"):
        opt = _opt(cls=tl.optim.SGD, momentum=0.9)
        sched = S.CyclicLR(opt, base_lr=base, max_lr=top, step_size_up=up, step_size_down=down, mode=mode, gamma=0.9)
        got = _trace(sched, opt, 35)[:, 0]
        np.testing.assert_allclose(got, [closed(e, mode) for e in range(35)], rtol=1e-12)
    with pytest.raises(ValueError, match="optimizer must support momentum"):
        S.CyclicLR(_opt(cls=tl.optim.Adagrad), 0.01, 0.1)


def test_chained_schedulers_compose_multiplicatively():
    """Two schedulers stepping one optimizer: their factors multiply (PyTorch's chainable form)."""
    opt = _opt((0.1,))
    s1 = S.ExponentialLR(opt, gamma=0.9)
    s2 = S.MultiStepLR(opt, milestones=[3, 6], gamma=0.5)
    got = []
    for _ in range(10):
        got.append(opt.param_groups[0]["lr"])
        opt.step()
        s1.step()
        s2.step()
    np.testing.assert_allclose(got, [0.1 * 0.9**e * 0.5 ** sum(m <= e for m in (3, 6)) for e in range(10)], rtol=1e-12)
    opt = _opt((0.1,))
    chain = S.ChainedScheduler([S.ConstantLR(opt, factor=0.1, total_iters=2), S.ExponentialLR(opt, gamma=0.9)])
    got = _trace(chain, opt, 5)[:, 0]
    np.testing.assert_allclose(got, [0.01, 0.009, 0.081, 0.0729, 0.06561], rtol=1e-12)  # PyTorch's documented example


def test_sequential_lr_documented_example():
    opt = _opt((1.0,))
    s1 = S.ConstantLR(opt, factor=0.1, total_iters=2)
    s2 = S.ExponentialLR(opt, gamma=0.9)
    seq = S.SequentialLR(opt, schedulers=[s1, s2], milestones=[2])
    got = _trace(seq, opt, 6)[:, 0]
    np.testing.assert_allclose(got, [0.1, 0.1, 1.0, 0.9, 0.81, 0.729], rtol=1e-12)
    with pytest.raises(ValueError, match="one more than the number of milestone points"):
        S.SequentialLR(opt, schedulers=[s1, s2], milestones=[2, 3])


def test_reduce_lr_on_plateau_modes_cooldown_min_lr():
    opt = _opt((1.0, 0.5))
    sched = S.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2, cooldown=1, min_lr=[0.2, 0.3])
    lrs = []
    for metric in [10, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9]:
        sched.step(metric)
        lrs.append([g["lr"] for g in opt.param_groups])
    # bad epochs 3 at step 5 -> halve; cooldown 1 swallows the next; 3 more bad -> halve again
    assert [l[0] for l in lrs] == [1, 1, 1, 1, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25]
    assert [l[1] for l in lrs][-1] == 0.3  # min_lr per group
    assert sched.get_last_lr() == [0.25, 0.3]

    opt = _opt((1.0,))
    sched = S.ReduceLROnPlateau(opt, mode="max", threshold=0.1, threshold_mode="abs", patience=0)
    sched.step(1.0)
    sched.step(1.05)  # not better by 0.1 -> reduce
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    sched.step(1.2)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1) and sched.best == 1.2

    opt = _opt((1.0,))
    sched = S.ReduceLROnPlateau(opt, mode="min", threshold=0.1, threshold_mode="rel", patience=0, eps=0.6)
    sched.step(1.0)
    sched.step(0.95)  # 0.95 is not < 1.0 * 0.9 -> bad; but 1.0 - 0.1 = 0.9 > eps=0.6 -> reduced
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    sched.step(0.9)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)  # 0.1 - 0.01 < eps: ignored
    with pytest.raises(ValueError, match="Factor should be < 1.0"):
        S.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode bad is unknown"):
        S.ReduceLROnPlateau(opt, mode="bad")
    with pytest.raises(ValueError, match="threshold mode bad is unknown"):
        S.ReduceLROnPlateau(opt, threshold_mode="bad")


def test_state_dict_round_trip_and_resume():
    opt = _opt((0.1, 0.05))
    sched = S.StepLR(opt, step_size=3, gamma=0.5)
    for _ in range(4):
        opt.step()
        sched.step()
    sd = sched.state_dict()
    assert "optimizer" not in sd and sd["last_epoch"] == 4 and sd["base_lrs"] == [0.1, 0.05]
    opt2 = _opt((0.1, 0.05))
    opt2.load_state_dict(opt.state_dict())
    sched2 = S.StepLR(opt2, step_size=99, gamma=0.9)
    sched2.load_state_dict(sd)
    for _ in range(5):
        opt.step()
        sched.step()
        opt2.step()
        sched2.step()
        assert sched.get_last_lr() == sched2.get_last_lr()
    lam = S.LambdaLR(_opt(), lambda e: e)
    assert lam.state_dict()["lr_lambdas"] == [None]


def test_scheduler_errors_and_warning():
    with pytest.raises(TypeError, match="is not an Optimizer"):
        S.StepLR(object(), 3)
    opt = _opt()
    with pytest.raises(KeyError, match="initial_lr"):
        S.StepLR(opt, 3, last_epoch=5)
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        S.LambdaLR(opt, [lambda e: 1, lambda e: 1])
    with pytest.raises(ValueError, match="Constant multiplicative factor"):
        S.ConstantLR(opt, factor=2)
    with pytest.raises(ValueError, match="Expected positive integer T_0"):
        S.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(ValueError, match="You must define either total_steps"):
        S.OneCycleLR(opt, max_lr=0.1)
    sched = S.StepLR(_opt(), 3)
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()


def test_scheduled_lr_drives_the_fused_update():
    """SGD under ExponentialLR equals the reference fed the same lr sequence (lr is a launch argument)."""
    p = tl.nn.Parameter(tl.tensor([1.0, -2.0], dtype=tl.float64))
    opt = tl.optim.SGD([p], lr=0.5, momentum=0.5)
    sched = S.ExponentialLR(opt, gamma=0.5)
    ref, buf = np.array([1.0, -2.0]), None
    for step in range(5):
        g = np.array([0.3 * step + 1, -0.7])
        p.grad = tl.tensor(g, dtype=tl.float64)
        opt.step()
        lr = 0.5 * 0.5**step
        buf = g.copy() if buf is None else 0.5 * buf + g
        ref -= lr * buf
        sched.step()
    np.testing.assert_allclose(p.detach().numpy(), ref, rtol=1e-14)
