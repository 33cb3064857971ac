"""Optimizer and scheduler behaviour where a differential scan against torch 2.15 found differences
(expected values are torch's)."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl


def test_adagrad_makes_its_state_in_the_constructor():
    p = tl.tensor([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    q = tl.tensor([3.0], dtype=tl.float64, requires_grad=True)
    o = tl.optim.Adagrad([p, q], initial_accumulator_value=0.5)
    state = o.state_dict()["state"]
    assert sorted(state) == [0, 1] and state[1]["sum"].tolist() == [0.5] and state[0]["step"].item() == 0
    for _ in range(3):
        p.grad = tl.tensor([0.1, -0.2], dtype=tl.float64)
        o.step()
    assert p.tolist() == pytest.approx([0.9958393637864991, 2.0078877864659193], rel=1e-14)
    assert o.state[q]["step"].item() == 0 and o.state[p]["step"].item() == 3


def test_a_scheduler_refuses_a_param_group_added_after_it():
    p, q = tl.tensor([1.0], requires_grad=True), tl.tensor([2.0], requires_grad=True)
    o = tl.optim.SGD([p], lr=0.1)
    s = tl.optim.lr_scheduler.LambdaLR(o, lambda e: 0.5 ** e)
    o.add_param_group({"params": [q], "lr": 0.7})
    p.grad = tl.ones(1)
    o.step()
    with pytest.raises(ValueError, match="zip"):
        s.step()


def test_step_hooks_see_the_optimizer_first_in_args():
    p = tl.tensor([1.0], requires_grad=True)
    o = tl.optim.SGD([p], lr=0.1)
    seen = []
    o.register_step_pre_hook(lambda opt, args, kw: seen.append((len(args), args[0] is opt)))
    o.register_step_post_hook(lambda opt, args, kw: seen.append((len(args), args[0] is opt)))
    p.grad = tl.ones(1)
    o.step()
    assert seen == [(1, True), (1, True)] and p.item() == pytest.approx(0.9)


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
def test_lbfgs_maximize(line_search_fn):
    p = tl.tensor([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    o = tl.optim.LBFGS([p], lr=0.5, max_iter=5, maximize=True, line_search_fn=line_search_fn)
    target = tl.tensor([3.0, -1.0], dtype=tl.float64)

    def closure():
        o.zero_grad()
        loss = -((p - target) ** 2).sum()
        loss.backward()
        return loss

    for _ in range(3):
        o.step(closure)
    assert p.tolist() == pytest.approx([2.99989013671875, -0.999835205078125], rel=1e-12)
    assert o.state_dict()["param_groups"][0]["maximize"] is True


@pytest.mark.parametrize("cls", [tl.optim.Adam, tl.optim.AdamW])
def test_adam_betas_both_floats_or_both_tensors(cls):
    p = [tl.zeros(2, requires_grad=True)]
    for betas in [(0.9, tl.tensor(0.99)), (tl.tensor(0.9), 0.99), (0, 0.9)]:
        with pytest.raises(ValueError, match="betas must be either both floats or both Tensors"):
            cls(p, betas=betas)
    with pytest.raises(ValueError, match="Invalid beta parameter at index 1: 1"):  # the range is checked first
        cls(p, betas=(0.9, 1))
    opt = cls(p, betas=(tl.tensor(0.9), tl.tensor(0.99)))
    p[0].grad = tl.ones(2)
    opt.step()
    ref = cls([tl.zeros(2, requires_grad=True)], betas=(0.9, 0.99))
    ref.param_groups[0]["params"][0].grad = tl.ones(2)
    ref.step()
    np.testing.assert_allclose(p[0].detach().numpy(), ref.param_groups[0]["params"][0].detach().numpy())
    # other optimizers, and later groups, take any mix (as PyTorch's)
    tl.optim.NAdam(p, betas=(0, tl.tensor(0.9)))
    opt.add_param_group({"params": [tl.zeros(1, requires_grad=True)], "betas": (0, 0.9)})


@pytest.mark.parametrize("cls, kwargs, key, value", [
    ("Adam", {"amsgrad": True}, "amsgrad", False),
    ("SGD", {"momentum": 0.9, "nesterov": True}, "nesterov", False),
    ("SGD", {"maximize": True}, "maximize", False),
    ("RMSprop", {"centered": True, "momentum": 0.5}, "centered", False),
    ("RMSprop", {"momentum": 0.5}, "momentum", 0),
    ("NAdam", {"decoupled_weight_decay": True}, "decoupled_weight_decay", False),
    ("AdamW", {}, "decoupled_weight_decay", True),
])
def test_an_option_missing_from_a_loaded_state_dict_gets_pytorchs_default(cls, kwargs, key, value):
    # torch 2.15's __setstate__ fills these with fixed values, not the constructor's: an older
    # checkpoint without 'maximize' steps downhill even in a maximize=True optimizer
    p = tl.tensor([1.0, -2.0], requires_grad=True)
    opt = getattr(tl.optim, cls)([p], lr=0.1, **kwargs)
    sd = opt.state_dict()
    del sd["param_groups"][0][key]
    opt.load_state_dict(sd)
    assert opt.param_groups[0][key] == value


def test_lbfgs_first_step_with_a_zero_gradient():
    # torch 2.15 divides by the zero gradient norm (inf, so the step length is lr) and returns the loss
    p = tl.ones(3, requires_grad=True)
    opt = tl.optim.LBFGS([p], lr=0.01, tolerance_grad=-math.inf)
    assert opt.step(lambda: tl.tensor([10.0])).tolist() == [10.0]


def test_one_cycle_lr_loads_a_legacy_state_dict_with_its_anneal_function():
    # PyTorch < 2.2 saved the bound anneal function ('anneal_func') instead of '_anneal_func_type'
    def schedule():
        opt = tl.optim.SGD([tl.zeros(2, requires_grad=True)], lr=0.1)
        return opt, tl.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=10, anneal_strategy="linear")

    (opt, sched), (legacy_opt, legacy) = schedule(), schedule()
    sd = legacy.state_dict()
    del sd["_anneal_func_type"]
    sd["anneal_func"] = legacy._annealing_linear
    del legacy._anneal_func_type
    legacy.load_state_dict(sd)
    for _ in range(4):
        opt.step(), sched.step(), legacy_opt.step(), legacy.step()
        assert legacy_opt.param_groups[0]["lr"] == opt.param_groups[0]["lr"]


@pytest.mark.parametrize("cls", [tl.optim.Adam, tl.optim.AdamW])
def test_adam_tensor_lr_or_betas_refused_with_foreach(cls):
    # PyTorch: ValueError in the constructor; RuntimeError at the step for a Tensor lr a later group brings
    p = [tl.zeros(2, requires_grad=True)]
    with pytest.raises(ValueError, match=r"^lr as a Tensor is not supported for capturable=False and foreach=True$"):
        cls(p, lr=tl.tensor(0.1), foreach=True)
    with pytest.raises(ValueError, match=r"^lr as a Tensor is not supported"):  # before the lr's value
        cls(p, lr=tl.tensor(-1.0), foreach=True)
    with pytest.raises(ValueError, match=r"^betas\[0\] as a Tensor is not supported for capturable=False"):
        cls(p, betas=(tl.tensor(0.9), tl.tensor(0.99)), foreach=True)
    cls(p, lr=tl.tensor(0.1), foreach=False)
    opt = cls(p, foreach=True)
    q = tl.zeros(2, requires_grad=True)
    opt.add_param_group({"params": [q], "lr": tl.tensor(0.1)})
    opt.step()  # no gradient in the Tensor-lr group: nothing to refuse
    q.grad = tl.ones(2)
    with pytest.raises(RuntimeError, match="lr as a Tensor is not supported for capturable=False and foreach=True"):
        opt.step()
    assert q.tolist() == [0.0, 0.0]
