"""tensorlab.utils.checkpoint against torch 2.15 (cases from its test_utils.py TestCheckpoint and
test_autograd.py checkpoint tests): double backward, non-determinism detection, saved_tensors_hooks
around a checkpoint, and custom Functions' saved tensors. Expected values and errors are torch's,
hard-coded."""

from __future__ import annotations

import weakref

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.autograd.graph import save_on_cpu, saved_tensors_hooks
from tensorlab.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential, set_checkpoint_early_stop

BOTH = pytest.mark.parametrize("reentrant", [True, False])


def np_(t):
    return np.array(t.detach().cpu().numpy())


# ----------------------------------------------------------------------------------------------
# double backward
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["grad", "backward"])
def test_double_backward_non_reentrant(how):
    x = tl.tensor([0.3], requires_grad=True)
    y = checkpoint(lambda t: t.sin().exp(), x, use_reentrant=False)
    if how == "grad":
        (g,) = tl.autograd.grad(y.sum(), x, create_graph=True)
    else:
        y.sum().backward(create_graph=True)
        g, x.grad = x.grad, None
    assert g.requires_grad and g.grad_fn is not None
    g.sum().backward()
    np.testing.assert_allclose(np_(g), [1.2838], atol=1e-4)  # torch 2.15
    np.testing.assert_allclose(np_(x.grad), [0.8293], atol=1e-4)  # torch 2.15


def test_double_backward_reaches_parameters_and_outer_tensors():
    w = tl.tensor([[0.5, -0.2], [0.1, 0.7]], requires_grad=True)
    x = tl.tensor([[0.3, -0.4]], requires_grad=True)
    c = tl.tensor([1.5, 0.5], requires_grad=True)
    h, cc = x * 2, c.exp()  # (an input with a history, a closed-over non-leaf tensor)
    y = checkpoint(lambda t: ((t @ w).tanh() * cc).sin(), h, use_reentrant=False)
    gx, gw, gc = tl.autograd.grad(y.pow(2).sum(), (x, w, c), create_graph=True)
    (gx.pow(2).sum() + gw.sin().sum() + gc.pow(3).sum()).backward()
    # torch 2.15
    np.testing.assert_allclose(np_(gx), [[4.380814, -0.597175]], rtol=1e-4)
    np.testing.assert_allclose(np_(gw), [[2.389569, -0.597299], [-3.186092, 0.796399]], rtol=1e-4)
    np.testing.assert_allclose(np_(gc), [0.904721, 0.905787], rtol=1e-4)
    np.testing.assert_allclose(np_(x.grad), [[-141.616196, -21.245718]], rtol=1e-4)
    np.testing.assert_allclose(np_(w.grad), [[-8.281540, -11.389858], [94.579941, -5.694741]], rtol=1e-4)
    np.testing.assert_allclose(np_(c.grad), [9.302863, 1.650110], rtol=1e-4)


def test_double_backward_parameters_with_an_input_that_does_not_require_grad():
    w = tl.tensor([[0.5, -0.2, 0.3], [0.1, 0.7, -0.4]], requires_grad=True)
    b = tl.tensor([0.05, -0.1], requires_grad=True)
    x = tl.tensor([[0.3, -0.4, 1.2], [1.0, 0.2, -0.5]])
    y = checkpoint(lambda t: (t @ w.t() + b).tanh().pow(2), x, use_reentrant=False)
    gw, gb = tl.autograd.grad(y.sum(), (w, b), create_graph=True)
    (gw.pow(2).sum() + gb.sum()).backward()
    # torch 2.15
    np.testing.assert_allclose(np_(gw), [[0.8389, -0.1861, 0.619], [0.3655, 0.4092, -1.1693]], atol=1e-4)
    np.testing.assert_allclose(np_(gb), [1.3774, -0.146], atol=1e-4)
    np.testing.assert_allclose(np_(w.grad), [[2.3007, 0.3763, -0.9042], [3.9507, 0.4221, -0.8953]], atol=1e-4)
    np.testing.assert_allclose(np_(b.grad), [2.4283, 4.5107], atol=1e-4)


def test_double_backward_with_inputs_argument():
    x = tl.tensor([0.3, -0.8], requires_grad=True)
    y = checkpoint(lambda t: (t.exp() * t).sum(), x * 3, use_reentrant=False)
    y.backward(create_graph=True, inputs=[x])
    gx, x.grad = x.grad, None
    gx.sum().backward(inputs=[x])
    np.testing.assert_allclose(np_(gx), [14.0197, -0.381], atol=1e-4)  # torch 2.15
    np.testing.assert_allclose(np_(x.grad), [64.1956, -0.3266], atol=1e-4)  # torch 2.15


def test_reentrant_with_create_graph():
    # torch 2.15: backward(create_graph=True) gives the first-order gradient, without history;
    # autograd.grad is refused
    x = tl.tensor([0.3], requires_grad=True)
    y = checkpoint(lambda t: t.sin().exp(), x, use_reentrant=True)
    y.sum().backward(create_graph=True)
    np.testing.assert_allclose(np_(x.grad), [1.2838], atol=1e-4)
    assert not x.grad.requires_grad and x.grad.grad_fn is None
    y = checkpoint(lambda t: t.sin().exp(), x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="incompatible with .grad"):
        tl.autograd.grad(y.sum(), x, create_graph=True)


def test_checkpoint_valid():
    # torch's TestCheckpoint.test_checkpoint_valid
    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Linear(100, 50), tl.nn.ReLU(), tl.nn.Linear(50, 20), tl.nn.ReLU(),
                             tl.nn.Linear(20, 5), tl.nn.ReLU())
    x = tl.randn(1, 100, requires_grad=True)
    modules = list(model.children())
    out = checkpoint_sequential(modules, 2, x, use_reentrant=True)
    with pytest.raises(RuntimeError, match="checkpoint is incompatible"):
        tl.autograd.grad(outputs=[out], grad_outputs=[tl.ones(1, 5)], inputs=[x], create_graph=True)
    out = model(x)
    want = tl.autograd.grad(outputs=[out], grad_outputs=[tl.ones(1, 5)], inputs=[x], create_graph=True)
    out_checkpoint = checkpoint_sequential(modules, 2, x, use_reentrant=False)
    np.testing.assert_allclose(np_(out_checkpoint), np_(out), rtol=1e-6)
    got = tl.autograd.grad(outputs=[out_checkpoint], grad_outputs=[tl.ones(1, 5)], inputs=[x], create_graph=True)
    np.testing.assert_allclose(np_(got[0]), np_(want[0]), rtol=1e-5, atol=1e-7)


def _grad(fn):
    def wrapper(x):
        with tl.enable_grad():
            out = fn(x)
            (g,) = tl.autograd.grad(out, inputs=(x,), create_graph=True)
        return g

    return wrapper


def _c(fn):
    def wrapped(*args, **kwargs):
        return checkpoint(fn, *args, use_reentrant=False, **kwargs)

    return wrapped


def _f(x):
    return x.sin().exp().sin()


def _g(x):
    a = x.sin().exp().sin()
    b = x.sin().exp().sin()
    tl.autograd.grad(a, x)
    tl.autograd.grad(b, x)
    return x.sin()


def _nested_cases(fn):
    grad, c = _grad, _c
    return [
        (0, (c(fn), c(c(fn)))),
        (1, (grad(c(fn)), grad(c(c(fn))))),
        (2, (grad(c(grad(fn))), c(grad(grad(c(fn)))), grad(c(grad(c(fn)))))),
        (3, (grad(c(grad(grad(c(fn))))), grad(c(grad(c(grad(c(fn)))))))),
    ]


# torch 2.15 at x = 0.7: fn, grad(fn), grad(grad(fn)), grad(grad(grad(fn)))
_NESTED_WANT = {"f": [0.94484, -0.47711, -1.9678, 2.59821], "g": [0.64422, 0.76484, -0.64422, -0.76484]}


@pytest.mark.parametrize("early_stop", [True, False])
@pytest.mark.parametrize("name", ["f", "g"])
def test_nested_checkpoint(name, early_stop):
    # torch's TestNestedCheckpoint.test_nested_checkpoint: values, and the graph dies with the output
    fn = {"f": _f, "g": _g}[name]
    with set_checkpoint_early_stop(early_stop):
        for order, actual_fns in _nested_cases(fn):
            for actual_fn in actual_fns:
                x = tl.tensor(0.7, requires_grad=True)
                out = actual_fn(x)
                np.testing.assert_allclose(float(out), _NESTED_WANT[name][order], atol=1e-4)
                refs, seen, stack = [], set(), [out.grad_fn]
                while stack:
                    n = stack.pop()
                    if n is None or id(n) in seen:
                        continue
                    seen.add(id(n))
                    refs.append((weakref.ref(n), n.name()))
                    stack.extend(m for m, _ in n.next_functions)
                del out, x, n, stack
                assert [name for r, name in refs if r() is not None] == []


# ----------------------------------------------------------------------------------------------
# non-determinism (torch's test_checkpoint_detects_non_determinism)
# ----------------------------------------------------------------------------------------------


def _save_3_tensors(x):
    return x.sin().exp().sin()


def _save_2_tensors(x):
    return x.sin().exp()


def _save_2_tensors_alt(x):
    return x.sin() * tl.tensor([1.0, 2.0])


def _non_det(orig_fn, recompute_fn):
    calls = [0]

    def fn(x):
        calls[0] += 1
        return orig_fn(x) if calls[0] == 1 else recompute_fn(x)

    return fn


def test_detects_fewer_saved_tensors():
    a = tl.tensor([0.3], requires_grad=True)
    for check in ("default", "none"):  # (torch counts whatever determinism_check)
        out = checkpoint(_non_det(_save_3_tensors, _save_2_tensors), a, use_reentrant=False, determinism_check=check)
        with pytest.raises(CheckpointError, match="A different number of tensors was saved during the original forward "
                           "and recomputation.\nNumber of tensors saved during forward: 3\nNumber of tensors saved "
                           "during recomputation: 2."):
            out.backward()
    assert a.grad is None


def test_detects_more_saved_tensors():
    a = tl.tensor([0.3], requires_grad=True)
    with set_checkpoint_early_stop(False):
        out = checkpoint(_non_det(_save_2_tensors, _save_3_tensors), a, use_reentrant=False)
        with pytest.raises(CheckpointError, match="trying to save more tensors during recomputation than during the "
                           "original forward pass"):
            out.backward()
    # torch's early stop (the default) stops the recomputation at the forward's last saved tensor and
    # differentiates the forward's graph (x.grad 1.2838); tensorlab differentiates the recomputed
    # graph, so it raises rather than give the recomputed function's gradient
    out = checkpoint(_non_det(_save_2_tensors, _save_3_tensors), a, use_reentrant=False)
    with pytest.raises(CheckpointError, match="trying to save more tensors"):
        out.backward()
    assert a.grad is None


def test_detects_different_saved_metadata():
    a = tl.tensor([0.3], requires_grad=True)
    out = checkpoint(_non_det(_save_2_tensors, _save_2_tensors_alt), a, use_reentrant=False)
    with pytest.raises(CheckpointError, match="tensors have different metadata"):
        out.backward()
    # the same outputs, a saved tensor of another shape
    out = checkpoint(_non_det(lambda x: x.sin().exp().sum(), lambda x: x.expand(2).sin().exp().sum()), a,
                     use_reentrant=False)
    with pytest.raises(CheckpointError, match=r"(?s)tensors have different metadata.*Size\(\[1\]\).*Size\(\[2\]\)"):
        out.backward()
    out = checkpoint(_non_det(lambda x: x.sin().exp().sum(), lambda x: x.expand(2).sin().exp().sum()), a,
                     use_reentrant=False, determinism_check="none")
    out.backward()  # (counts equal, metadata not compared: torch 2.15 raises no error either)


def test_deterministic_function_passes_with_parameters_and_kept_intermediates():
    lin = tl.nn.Linear(3, 3)
    kept = {}

    def fn(x):
        kept["w"] = lin.weight.exp()  # a node made from parameters only, alive after the function
        return (lin(x).sin() * kept["w"].sum()).tanh()

    x = tl.randn(2, 3, requires_grad=True)
    checkpoint(fn, x, use_reentrant=False).sum().backward()
    assert x.grad is not None and lin.weight.grad is not None


# ----------------------------------------------------------------------------------------------
# saved_tensors_hooks around a checkpoint
# ----------------------------------------------------------------------------------------------


@BOTH
def test_detaching_hooks_around_checkpoint(reentrant):
    a = tl.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda x: x.detach(), lambda x: x):
        y = checkpoint(lambda x: x.pow(2).pow(2), a, use_reentrant=reentrant)
    y.sum().backward()
    np.testing.assert_allclose(np_(a.grad), [0.5, -4.0, 32.0])  # torch 2.15


def test_outer_hooks_pack_only_the_inputs():
    # torch 2.15: the function's saved tensors go through checkpoint's own hooks, in the forward and
    # in the recomputation: the user's hooks see the checkpoint's input, once
    calls = []

    def pack(x):
        calls.append(("pack", tuple(x.shape), x.requires_grad))
        return x.detach()

    def unpack(x):
        calls.append("unpack")
        return x

    a = tl.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = checkpoint(lambda x: x.pow(2).pow(2).sin(), a, use_reentrant=False)
        assert calls == [("pack", (3,), True)]
        y.sum().backward()
    assert calls == [("pack", (3,), True), "unpack"]
    np.testing.assert_allclose(np_(a.grad), [0.4990, -2.1612, -30.6451], atol=1e-4)  # torch 2.15
    calls.clear()
    a.grad = None
    y = checkpoint(lambda x: x.pow(2).pow(2).sin(), a, use_reentrant=False)
    with saved_tensors_hooks(pack, unpack):
        y.sum().backward()
    assert calls == []
    np.testing.assert_allclose(np_(a.grad), [0.4990, -2.1612, -30.6451], atol=1e-4)


def test_detaching_hooks_with_double_backward():
    a = tl.tensor([0.5, -1.0, 2.0], requires_grad=True)
    with saved_tensors_hooks(lambda x: x.detach(), lambda x: x):
        y = checkpoint(lambda x: x.pow(2).pow(2).sin(), a, use_reentrant=False)
    (g,) = tl.autograd.grad(y.sum(), a, create_graph=True)
    g.sum().backward()
    np.testing.assert_allclose(np_(g), [0.4990, -2.1612, -30.6451], atol=1e-4)  # torch 2.15
    np.testing.assert_allclose(np_(a.grad), [2.9785, -6.9799, 248.8453], rtol=1e-4)  # torch 2.15


@BOTH
def test_save_on_cpu_around_checkpoint(reentrant, device):
    a = tl.tensor([0.5, -1.0, 2.0], device=device, requires_grad=True)
    with save_on_cpu():
        y = checkpoint(lambda x: x.pow(2).pow(2), a, use_reentrant=reentrant)
    y.sum().backward()
    np.testing.assert_allclose(np_(a.grad), [0.5, -4.0, 32.0])  # torch 2.15


# ----------------------------------------------------------------------------------------------
# custom Functions' saved tensors
# ----------------------------------------------------------------------------------------------


def test_saved_object_identity():
    # torch's test_checkpointing_without_reentrant_saved_object_identity
    seen = []

    class Test(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_backward(y)
            return x

        @staticmethod
        def backward(ctx, x):
            seen.append(ctx.saved_tensors[0])
            return x, None

    a = tl.tensor(2.0, requires_grad=True)
    b = tl.tensor(1.0, requires_grad=False)
    Test.apply(a, b).backward()
    assert seen[-1] is b
    checkpoint(Test.apply, a, b, use_reentrant=False).backward()
    assert seen[-1] is b


def test_custom_function_reading_saved_tensors_twice():
    # torch's test_checkpointing_without_reentrant_custom_function_works
    errors = []

    class MyFunc(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x, y, z):
            w = x * y * z
            out = w + w
            ctx.save_for_backward(x, y, z, w, out)
            return out

        @staticmethod
        def backward(ctx, grad_out):
            x, y, z, w, out = ctx.saved_tensors
            with pytest.raises(CheckpointError, match="Unpack is being triggered for a tensor that was already "
                               "unpacked once"):
                ctx.saved_tensors  # noqa: B018
            errors.append(True)
            return x, y, z

    x = tl.tensor(1.0, requires_grad=True)
    y = tl.tensor(2.0, requires_grad=True)
    z = tl.tensor(3.0, requires_grad=True)

    def foo(x, y, z):
        return MyFunc.apply(x * y * z, y * y * z, z * z)

    checkpoint(foo, x, y, z, use_reentrant=False).sum().backward()
    assert errors == [True]
    # torch 2.15
    assert (float(x.grad), float(y.grad), float(z.grad)) == (36.0, 162.0, 114.0)
