"""Optimizer and scheduler behaviour where a differential scan against torch 2.15 found differences
(expected values are torch's)."""

from __future__ import annotations

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
