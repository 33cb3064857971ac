"""Activation checkpointing: gradients equal to the un-checkpointed run (dropout included: the
recomputation replays the RNG), both variants, what each supports and refuses, and that the
forward's graph is not kept."""

from __future__ import annotations

import gc
import warnings
import weakref

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.utils import checkpoint as C
from tensorlab.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

BOTH = pytest.mark.parametrize("reentrant", [True, False])


def np_(t):
    return np.array(t.detach().cpu().numpy())  # (a copy: .grad may be accumulated into in place later)


def _mlp(device="cpu", dtype=tl.float64):
    tl.manual_seed(0)
    return tl.nn.Sequential(tl.nn.Linear(4, 6), tl.nn.ReLU(), tl.nn.Dropout(0.5), tl.nn.Linear(6, 3)).to(
        device=device, dtype=dtype)


def _grads(model, x):
    return [np_(p.grad) for p in model.parameters()] + [np_(x.grad)]


def _clear(model, x):
    model.zero_grad(set_to_none=True)
    x.grad = None


@BOTH
def test_mlp_with_dropout_matches_plain_run(reentrant, device):
    dtype = tl.float64 if device == "cpu" else tl.float32
    model = _mlp(device, dtype)
    x = tl.randn(5, 4, dtype=dtype, device=device, requires_grad=True)
    tl.manual_seed(123)
    plain = model(x)
    (plain * plain).sum().backward()
    want = _grads(model, x)
    _clear(model, x)

    tl.manual_seed(123)
    out = checkpoint(model, x, use_reentrant=reentrant)
    np.testing.assert_array_equal(np_(out), np_(plain))
    tl.randn(7, device=device)  # the RNG moves on before backward: the recomputation must not care
    state = tl.get_rng_state().numpy().copy()
    (out * out).sum().backward()
    got = _grads(model, x)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)
    assert all(abs(g).sum() > 0 for g in got)
    np.testing.assert_array_equal(tl.get_rng_state().numpy(), state)  # restored after the recomputation


@BOTH
def test_without_preserve_rng_state_dropout_draws_anew(reentrant):
    model = _mlp()
    x = tl.randn(64, 4, dtype=tl.float64, requires_grad=True)
    tl.manual_seed(1)
    model(x).sum().backward()
    want = np_(x.grad)
    _clear(model, x)
    tl.manual_seed(1)
    out = checkpoint(model, x, use_reentrant=reentrant, preserve_rng_state=False)
    out.sum().backward()
    assert not np.allclose(np_(x.grad), want)  # a different mask in the recomputation


@BOTH
def test_gradients_with_finite_differences(reentrant):
    w = tl.randn(3, 3, dtype=tl.float64, requires_grad=True)

    def f(x, k, y):
        return ((x @ w).tanh() * k + y.sin()).sum(0)

    x = tl.randn(2, 3, dtype=tl.float64, requires_grad=True)
    y = tl.randn(2, 3, dtype=tl.float64, requires_grad=True)
    out = checkpoint(f, x, 0.5, y, use_reentrant=reentrant)
    g = tl.randn(3, dtype=tl.float64)
    out.backward(g)
    eps = 1e-6
    for t in (x, y, w):
        num = np.zeros(t.shape)
        base = np_(t).copy()
        for idx in np.ndindex(*t.shape):
            for sign in (1, -1):
                with tl.no_grad():
                    t.copy_(tl.tensor(base, dtype=tl.float64))
                    t[idx] += sign * eps
                    num[idx] += sign * float((f(x, 0.5, y) * g).sum()) / (2 * eps)
        with tl.no_grad():
            t.copy_(tl.tensor(base, dtype=tl.float64))
        np.testing.assert_allclose(np_(t.grad), num, rtol=1e-6, atol=1e-8)


def test_gradcheck_non_reentrant():
    lin = tl.nn.Linear(3, 2).double()
    x = tl.randn(4, 3, dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: checkpoint(lambda u: lin(u).sigmoid(), t, use_reentrant=False), (x,))


@BOTH
def test_non_tensor_inputs_and_mixed_outputs(reentrant):
    a = tl.randn(3, dtype=tl.float64, requires_grad=True)
    b = tl.randn(3, dtype=tl.float64, requires_grad=True)

    def f(x, k, y, tag):
        return x * k, tag, (x + y).long(), y.detach() * 2, None

    out = checkpoint(f, a, 3.0, b, "s", use_reentrant=reentrant)
    assert out[1] == "s" and out[4] is None and out[2].dtype is tl.int64
    assert out[0].requires_grad and not out[2].requires_grad
    # PyTorch: the reentrant Function makes every floating output require grad; the graph does not
    assert out[3].requires_grad is reentrant
    (out[0].sum() * 2).backward()
    np.testing.assert_array_equal(np_(a.grad), [6.0, 6.0, 6.0])
    assert b.grad is None


def test_inputs_not_requiring_grad():
    lin = tl.nn.Linear(3, 2).double()
    x = tl.randn(4, 3, dtype=tl.float64)
    lin(x).pow(2).sum().backward()
    want = np_(lin.weight.grad)
    lin.zero_grad(set_to_none=True)
    # non-reentrant: the parameters still get their gradients
    checkpoint(lin, x, use_reentrant=False).pow(2).sum().backward()
    np.testing.assert_allclose(np_(lin.weight.grad), want, rtol=1e-12)
    # reentrant (PyTorch's behaviour): a warning, and the output is cut from the graph
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        out = checkpoint(lin, x, use_reentrant=True)
    assert not out.requires_grad


def test_autograd_grad_and_backward_inputs():
    lin = tl.nn.Linear(3, 2).double()
    x = tl.randn(4, 3, dtype=tl.float64, requires_grad=True)
    gw_plain, gx_plain = tl.autograd.grad(lin(x).exp().sum(), [lin.weight, x])
    gw, gx = tl.autograd.grad(checkpoint(lambda t: lin(t).exp(), x, use_reentrant=False).sum(), [lin.weight, x])
    np.testing.assert_allclose(np_(gw), np_(gw_plain), rtol=1e-12)
    np.testing.assert_allclose(np_(gx), np_(gx_plain), rtol=1e-12)
    assert lin.weight.grad is None and x.grad is None
    checkpoint(lin, x, use_reentrant=False).sum().backward(inputs=[x])
    assert lin.weight.grad is None and x.grad is not None
    x.grad = None
    with pytest.raises(RuntimeError, match="use_reentrant=True.*incompatible with .grad()"):
        tl.autograd.grad(checkpoint(lin, x, use_reentrant=True).sum(), [x])
    with pytest.raises(RuntimeError, match="incompatible with .grad()"):
        checkpoint(lin, x, use_reentrant=True).sum().backward(inputs=[x])
    assert lin.weight.grad is None  # refused before anything accumulated


def test_engine_lists_its_user_level_calls():
    seen = []
    x = tl.ones(2, requires_grad=True)
    y = (x * 2).sum()
    y.grad_fn.register_hook(lambda gi, go: seen.append(list(tl.autograd.graph.engine_calls())))
    y.backward(retain_graph=True)
    tl.autograd.grad(y, [x], retain_graph=True)
    y.backward(inputs=[x])
    assert seen == [[True], [False], [False]] and tl.autograd.graph.engine_calls() == []


def test_keyword_arguments_and_nested_structures():
    a = tl.randn(3, dtype=tl.float64, requires_grad=True)
    b = tl.randn(3, dtype=tl.float64, requires_grad=True)
    s = tl.tensor(2.0, dtype=tl.float64, requires_grad=True)

    def h(d, *, scale):
        return {"y": d["a"] * scale + d["b"][0].exp(), "n": 1}

    out = checkpoint(h, {"a": a, "b": [b]}, scale=s, use_reentrant=False)
    assert out["n"] == 1
    out["y"].sum().backward()
    np.testing.assert_allclose(np_(a.grad), [2.0] * 3)
    np.testing.assert_allclose(np_(b.grad), np.exp(np_(b)))
    np.testing.assert_allclose(float(s.grad), np_(a).sum())
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(h, {"a": a, "b": [b]}, scale=s, use_reentrant=True)


def test_closed_over_tensor_with_history():
    w = tl.randn(3, dtype=tl.float64, requires_grad=True)
    a = tl.randn(3, dtype=tl.float64, requires_grad=True)

    def run(ckpt):
        c = w.sin() * 3  # made outside the function, read inside it

        def g(x):
            return (x * c).sin() + c.sum()

        out = checkpoint(g, a, use_reentrant=False) if ckpt else g(a)
        ((out * out).sum() + (c * c).sum()).backward()
        grads = np_(w.grad), np_(a.grad)
        w.grad = a.grad = None
        return grads

    for got, want in zip(run(True), run(False)):
        np.testing.assert_allclose(got, want, rtol=1e-12)
    # the function may return the closed-over tensor itself
    c = w * 3
    o1, o2 = checkpoint(lambda x: (x * 2, c), a, use_reentrant=False)
    (o1.sum() + (o2 * o2).sum()).backward()
    np.testing.assert_allclose(np_(w.grad), 18 * np_(w), rtol=1e-12)


def test_intermediate_kept_by_the_module():
    class Caching(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = tl.nn.Linear(3, 3).double()

        def forward(self, x):
            self.h = self.lin(x).tanh()  # alive after the forward, made from the input
            return self.h * 2

    m = Caching()
    a = tl.randn(2, 3, dtype=tl.float64, requires_grad=True)
    checkpoint(m, a, use_reentrant=False).sum().backward()
    got = np_(a.grad), np_(m.lin.weight.grad)
    a.grad = None
    m.zero_grad()
    m(a).sum().backward()
    np.testing.assert_allclose(got[0], np_(a.grad), rtol=1e-12)
    np.testing.assert_allclose(got[1], np_(m.lin.weight.grad), rtol=1e-12)


def test_forward_graph_is_not_kept():
    seen = []

    class Spy(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    def f(x):
        y = Spy.apply(x.exp())
        seen.append(None if y.grad_fn is None else weakref.ref(y.grad_fn))
        return y.sin()

    x = tl.randn(3, requires_grad=True)
    for reentrant in (True, False):
        seen.clear()
        out = checkpoint(f, x, use_reentrant=reentrant)
        # reentrant: nothing recorded; non-reentrant: recorded (to find the parameters), then dropped
        assert seen[0] is None if reentrant else seen[0]() is None
        out.sum().backward()
    # the node's edges: the input and the linear layer's two parameters, nothing from inside
    lin = tl.nn.Linear(3, 3)
    out = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False)
    assert len(out.grad_fn.next_functions) == 3


def test_input_returned_as_is():
    a = tl.randn(3, requires_grad=True)
    assert checkpoint(lambda t: t, a, use_reentrant=False) is a
    y1, y2 = checkpoint(lambda t: (t, t * 2), a, use_reentrant=False)
    assert y1 is a
    (y1.sum() + y2.sum()).backward()
    np.testing.assert_array_equal(np_(a.grad), [3.0] * 3)
    a.grad = None
    y = checkpoint(lambda t: t, a, use_reentrant=True)
    assert y is not a and y.grad_fn is not None
    y.sum().backward()
    np.testing.assert_array_equal(np_(a.grad), [1.0] * 3)


@BOTH
def test_nested_checkpoints(reentrant):
    l1 = tl.nn.Linear(3, 3).double()
    l2 = tl.nn.Linear(3, 3).double()
    a = tl.randn(2, 3, dtype=tl.float64, requires_grad=True)
    for inner_reentrant in (True, False):
        def outer(x, ir=inner_reentrant):
            with warnings.catch_warnings():  # (reentrant outside: the inner input does not require grad)
                warnings.simplefilter("ignore")
                return checkpoint(lambda t: l2(t).tanh(), l1(x).sin(), use_reentrant=ir) * 2

        checkpoint(outer, a, use_reentrant=reentrant).sum().backward()
        got = [np_(a.grad), np_(l1.weight.grad), np_(l2.weight.grad)]
        a.grad = None
        l1.zero_grad()
        l2.zero_grad()
        (l2(l1(a).sin()).tanh() * 2).sum().backward()
        for g, w in zip(got, [a.grad, l1.weight.grad, l2.weight.grad]):
            np.testing.assert_allclose(g, np_(w), rtol=1e-12)
        a.grad = None
        l1.zero_grad()
        l2.zero_grad()


def test_parameter_hooks_run_once_and_retain_graph():
    lin = tl.nn.Linear(3, 3).double()
    calls = []
    lin.weight.register_hook(lambda g: calls.append(g.shape))
    a = tl.randn(2, 3, dtype=tl.float64, requires_grad=True)
    y = checkpoint(lambda t: lin(t) + lin(t * 2), a, use_reentrant=False).sum()
    y.backward(retain_graph=True)
    assert len(calls) == 1
    first = np_(a.grad).copy()
    y.backward()
    np.testing.assert_allclose(np_(a.grad), 2 * first)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


@BOTH
def test_checkpoint_sequential(reentrant):
    tl.manual_seed(3)
    model = tl.nn.Sequential(*[tl.nn.Linear(4, 4) for _ in range(5)], tl.nn.Dropout(0.2)).double()
    x = tl.randn(3, 4, dtype=tl.float64, requires_grad=True)
    tl.manual_seed(9)
    checkpoint_sequential(model, 2, x, use_reentrant=reentrant).sum().backward()
    got = _grads(model, x)
    _clear(model, x)
    tl.manual_seed(9)
    model(x).sum().backward()
    for g, w in zip(got, _grads(model, x)):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    # a list of functions, keyword form
    fns = [lambda t: t.sin(), lambda t: t * 3, lambda t: t.exp()]
    y = checkpoint_sequential(functions=fns, segments=3, input=x, use_reentrant=reentrant, preserve_rng_state=False)
    np.testing.assert_allclose(np_(y), np.exp(3 * np.sin(np_(x))))
    with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
        checkpoint_sequential(fns, 2, x, use_reentrant=reentrant, foo=1)


def test_use_reentrant_must_be_explicit():
    x = tl.randn(3, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly") as rec:
        y = checkpoint(lambda t: t * 2, x)
    assert rec[0].filename == __file__
    assert y.grad_fn.name() == "CheckpointFunctionBackward"  # the default is still reentrant
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter"):
        checkpoint_sequential([lambda t: t * 2, lambda t: t + 1], 2, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(lambda t: t * 2, x, use_reentrant=False)


def test_decorator_form():
    @checkpoint(use_reentrant=False)
    def f(x, *, k):
        return x.sin() * k

    a = tl.randn(3, dtype=tl.float64, requires_grad=True)
    f(a, k=2.0).sum().backward()
    np.testing.assert_allclose(np_(a.grad), 2 * np.cos(np_(a)))
    with pytest.raises(ValueError, match="Unexpected keyword arguments: k"):
        checkpoint(k=1)


def test_under_no_grad_runs_plainly():
    lin = tl.nn.Linear(3, 2)
    x = tl.randn(2, 3, requires_grad=True)
    with tl.no_grad():
        assert not checkpoint(lin, x, use_reentrant=False).requires_grad
        assert not checkpoint(lin, x, use_reentrant=True).requires_grad


@BOTH
def test_backward_with_create_graph(reentrant):
    # non-reentrant: the gradient has a history (double backward); reentrant, as PyTorch's: the
    # nested backward() differentiates the recomputation without create_graph, no history
    a = tl.randn(3, dtype=tl.float64, requires_grad=True)
    y = checkpoint(lambda t: t.sin(), a, use_reentrant=reentrant)
    y.sum().backward(create_graph=True)
    np.testing.assert_allclose(np_(a.grad), np.cos(np_(a)), rtol=1e-12)
    assert a.grad.requires_grad is not reentrant


@BOTH
def test_input_modified_in_place_before_backward(reentrant):
    a = tl.randn(3, dtype=tl.float64, requires_grad=True)
    b = a * 1
    y = checkpoint(lambda t: t.sin(), b, use_reentrant=reentrant)
    b.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_reentrant_output_that_does_not_require_grad():
    a = tl.randn(3, requires_grad=True)
    y = checkpoint(lambda t: (t * 2).detach(), a, use_reentrant=True)
    with pytest.raises(RuntimeError, match="none of output has requires_grad=True"):
        y.sum().backward()


def test_determinism_check():
    calls = {"n": 0}

    def varying(x):
        calls["n"] += 1
        return (x[: calls["n"] + 1] * 2).sin()

    a = tl.randn(5, dtype=tl.float64, requires_grad=True)
    y = checkpoint(varying, a, use_reentrant=False)
    with pytest.raises(CheckpointError, match=r"(?s)different metadata.*position 0.*Size\(\[2\]\).*Size\(\[3\]\)"):
        y.sum().backward()
    assert issubclass(CheckpointError, RuntimeError)
    with C.set_checkpoint_debug_enabled(True):
        y = checkpoint(varying, a, use_reentrant=False)
    with pytest.raises(CheckpointError, match=r"(?s)original forward:\nSliceBackward0\nMulBackward0\nSinBackward0"):
        y.sum().backward()
    calls["n"] = 0

    def count(x):
        calls["n"] += 1
        return (x * 2,) * (1 if calls["n"] == 1 else 2)

    y = checkpoint(count, a, use_reentrant=False)
    with pytest.raises(CheckpointError, match="A different number of tensors"):
        y[0].sum().backward()
    with pytest.raises(ValueError, match=r"determinism_check should be one of \['default', 'none'\], but got x"):
        checkpoint(varying, a, use_reentrant=False, determinism_check="x")


def test_context_fn_and_argument_checks():
    log = []

    class Mark:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            log.append(self.name + ":grad" if tl.is_grad_enabled() else self.name)

        def __exit__(self, *exc):
            return False

    a = tl.randn(3, requires_grad=True)
    y = checkpoint(lambda t: t.exp(), a, use_reentrant=False, context_fn=lambda: (Mark("fwd"), Mark("re")))
    y.sum().backward()
    assert log == ["fwd:grad", "re:grad"]
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        checkpoint(lambda t: t, a, use_reentrant=True, context_fn=lambda: (Mark("a"), Mark("b")))
    with pytest.raises(ValueError, match="only supported when use_reentrant=False"):
        checkpoint(lambda t: t, a, use_reentrant=True, debug=True)
    with pytest.raises(ValueError, match="debug=True is incompatible with non-default context_fn"):
        checkpoint(lambda t: t, a, use_reentrant=False, debug=True, context_fn=lambda: (Mark("a"), Mark("b")))
    with pytest.raises(RuntimeError, match="Only tuple of tensors is supported"):
        C.detach_variable([a])
    d = C.detach_variable((a, 1))
    assert d[0].requires_grad and d[0].grad_fn is None and d[1] == 1


def test_no_cycles_left_behind():
    lin = tl.nn.Linear(3, 3)
    x = tl.randn(2, 3, requires_grad=True)
    out = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False)
    ref = weakref.ref(out.grad_fn)
    out.sum().backward()
    del out
    assert ref() is None  # freed by reference counting, no gc pass needed
    gc.collect()


def test_parameter_only_intermediate_kept_outside():
    # A node alive after the function returned passes for an outer one; when it was the function's
    # own (made from parameters only, kept on the module) the leaves behind it are the node's edges
    # too, and the recomputation reaches them through its own new nodes.
    class Keeps(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = tl.nn.Parameter(tl.randn(3, 3, dtype=tl.float64))

        def forward(self, x):
            self.wt = self.w.t() * 2
            return x @ self.wt

    m = Keeps()
    a = tl.randn(2, 3, dtype=tl.float64, requires_grad=True)
    checkpoint(m, a, use_reentrant=False).exp().sum().backward()
    got = np_(a.grad), np_(m.w.grad)
    a.grad = m.w.grad = None
    m(a).exp().sum().backward()
    np.testing.assert_allclose(got[0], np_(a.grad), rtol=1e-12)
    np.testing.assert_allclose(got[1], np_(m.w.grad), rtol=1e-12)


def test_inner_node_held_by_a_reference_cycle():
    w = tl.randn(3, dtype=tl.float64, requires_grad=True)
    a = tl.randn(3, dtype=tl.float64, requires_grad=True)

    def f(x):
        t = w.exp()
        t.register_hook(lambda g, t=t: g)  # t -> its node -> the hook -> t: alive until a gc pass
        return x * t

    y = checkpoint(f, a, use_reentrant=False)
    y.sum().backward()
    np.testing.assert_allclose(np_(w.grad), np_(a) * np.exp(np_(w)), rtol=1e-12)
    np.testing.assert_allclose(np_(a.grad), np.exp(np_(w)), rtol=1e-12)


@pytest.mark.skipif(not hasattr(tl, "autocast"), reason="tensorlab.amp is not there")
@BOTH
@pytest.mark.parametrize("backward_inside", [False, True])
def test_under_autocast(reentrant, backward_inside):
    # The recomputation runs in the forward's autocast dtypes (the engine turns autocast off), and
    # with casts of its own: one that the region cached under the reentrant forward's no_grad
    # would lead nowhere.
    tl.manual_seed(0)
    lin = tl.nn.Linear(4, 4)
    x = tl.randn(3, 4, requires_grad=True)

    def seg(t):
        return lin(t).tanh()

    def run(ckpt):
        with tl.autocast("cpu"):
            h = checkpoint(seg, x, use_reentrant=reentrant) if ckpt else seg(x)
            y = checkpoint(seg, h, use_reentrant=reentrant) if ckpt else seg(h)
            assert y.dtype is tl.bfloat16
            if backward_inside:
                y.float().sum().backward()
        if not backward_inside:
            y.float().sum().backward()
        grads = np_(x.grad), np_(lin.weight.grad)
        x.grad = None
        lin.zero_grad()
        return grads

    got, want = run(True), run(False)
    np.testing.assert_array_equal(got[0], want[0])
    # (the plain run sums the weight's two gradients in bfloat16, through its one cached cast)
    np.testing.assert_allclose(got[1], want[1], rtol=2e-2, atol=1e-2)
