"""autograd.graph.saved_tensors_hooks / save_on_cpu / disable_saved_tensors_hooks."""

import contextlib

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.autograd.graph import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks


def test_pack_and_unpack_run_once_per_saved_tensor():
    calls = []

    def pack(t):
        calls.append(("pack", tuple(t.shape)))
        return t.clone()

    def unpack(x):
        calls.append(("unpack",))
        return x

    a = tl.ones(3, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = (a * a).exp().sum()  # mul saves both inputs, exp its output, sum nothing
    assert calls == [("pack", (3,))] * 3
    y.backward()
    assert calls[3:] == [("unpack",)] * 3
    np.testing.assert_allclose(a.grad.numpy(), 2 * np.exp(1.0), rtol=1e-6)


def test_save_on_cpu_keeps_saved_tensors_on_the_host(device):
    b = tl.tensor([0.5, 1.0, 2.0], device=device, requires_grad=True)
    seen = []
    inner = save_on_cpu()
    pack, unpack = inner.pack_hook, inner.unpack_hook

    def spy(t):
        packed = pack(t)
        seen.append(packed[1].device.type)
        return packed

    with saved_tensors_hooks(spy, unpack):
        loss = (b * 3).sin().sum()
    loss.backward()
    assert seen and all(d == "cpu" for d in seen)
    np.testing.assert_allclose(b.grad.cpu().numpy(), 3 * np.cos(3 * np.array([0.5, 1.0, 2.0])), rtol=1e-5)
    assert b.grad.device == b.device


def test_errors_and_disabling():
    a = tl.ones(2, requires_grad=True)
    with saved_tensors_hooks(lambda t: 1, lambda x: x):
        z = (a * a).sum()
    with pytest.raises(TypeError, match="unpack_hook expected to be a Tensor"):
        z.backward()
    with disable_saved_tensors_hooks("no hooks here"), pytest.raises(RuntimeError, match="no hooks here"):
        with saved_tensors_hooks(lambda t: t, lambda x: x):
            pass
    with saved_tensors_hooks(lambda t: t, lambda x: x):
        pass  # allowed again outside


# Unpacked saved tensors keep the saved tensor's autograd identity (PyTorch's SavedVariable::unpack
# re-attaches the unpack hook's value to the original's grad_fn / gradient accumulator), so double
# backward goes through the original tensor whatever the hooks return. Expected values are torch
# 2.15's, for a = [0.5, -1.0, 2.0].

A = [0.5, -1.0, 2.0]


def _double_backward(pack, unpack, *, around_grad=False, leaf=True, op="pow"):
    a = tl.tensor(A, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        x = a if leaf else a * 1.5
        s = {"pow": lambda: (x**3).sum(), "exp": lambda: x.exp().sum(), "view": lambda: (x[1:] ** 3).sum()}[op]()
    with saved_tensors_hooks(pack, unpack) if around_grad else contextlib.nullcontext():
        (g,) = tl.autograd.grad(s, (a,), create_graph=True)
    g.sum().backward()
    return g, a.grad


_DETACH = (lambda x: x.detach(), lambda x: x)
_TOLIST = (lambda x: x.tolist(), lambda v: tl.tensor(v))
_DOUBLE = (lambda x: 2 * x, lambda x: x)


@pytest.mark.parametrize("hooks", [_DETACH, _TOLIST], ids=["detach", "tolist"])
@pytest.mark.parametrize("around_grad", [False, True])
@pytest.mark.parametrize("leaf, op, g_expected, grad_expected", [
    (True, "pow", [0.75, 3.0, 12.0], [3.0, -6.0, 12.0]),  # torch 2.15
    (True, "exp", [1.6487, 0.3679, 7.3891], [1.6487, 0.3679, 7.3891]),  # (exp saves its output)
    (True, "view", [0.0, 3.0, 12.0], [0.0, -6.0, 12.0]),
    (False, "pow", [2.5312, 10.125, 40.5], [10.125, -20.25, 40.5]),
    (False, "exp", [3.1755, 0.3347, 30.1283], [4.7633, 0.502, 45.1925]),
])
def test_double_backward_through_detaching_hooks_reaches_the_original(hooks, around_grad, leaf, op, g_expected,
                                                                       grad_expected):
    g, grad = _double_backward(*hooks, around_grad=around_grad, leaf=leaf, op=op)
    np.testing.assert_allclose(g.detach().numpy(), g_expected, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(grad.numpy(), grad_expected, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("around_grad, leaf, op, grad_expected", [
    # torch 2.15: the value 2a is used as data, the graph goes through a itself (12a, not 24a)
    (False, True, "pow", [6.0, -12.0, 24.0]),
    (True, True, "pow", [24.0, -48.0, 96.0]),  # hooks around grad too: 48a (torch's test: 6 * 8 * a)
    (False, True, "exp", [3.2974, 0.7358, 14.7781]),
    (True, True, "exp", [6.5949, 1.4715, 29.5562]),
    (False, False, "pow", [20.25, -40.5, 81.0]),
    (True, False, "pow", [81.0, -162.0, 324.0]),
    (False, False, "exp", [9.5265, 1.0041, 90.3849]),
])
def test_double_backward_with_a_scaling_pack_hook(around_grad, leaf, op, grad_expected):
    _, grad = _double_backward(*_DOUBLE, around_grad=around_grad, leaf=leaf, op=op)
    np.testing.assert_allclose(grad.numpy(), grad_expected, rtol=1e-4)


def test_scaling_hooks_around_grad_only():
    a = tl.tensor(A, requires_grad=True)
    s = (a**3).sum()
    with saved_tensors_hooks(*_DOUBLE):
        (g,) = tl.autograd.grad(s, (a,), create_graph=True)
        g.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [12.0, -24.0, 48.0])  # torch 2.15 (24a)


def test_pack_hook_runs_without_grad_and_sees_outputs_with_their_grad_fn():
    a = tl.tensor(A, requires_grad=True)
    seen = []

    def pack(x):
        seen.append((x is a, x.requires_grad, type(x.grad_fn).__name__, tl.is_grad_enabled()))
        return x

    with saved_tensors_hooks(pack, lambda x: x):
        a.exp()  # saves its output
        a.sin()  # saves its input
    # torch 2.15
    assert seen == [(False, True, "ExpBackward0", False), (True, True, "NoneType", False)]


def test_custom_function_saved_tensors_keep_requires_grad_under_a_detaching_hook():
    info = []

    class F(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            out = x * w
            ctx.save_for_backward(out, x, w)
            return out

        @staticmethod
        def backward(ctx, g):
            out, x, w = ctx.saved_tensors
            info.extend((s.requires_grad, type(s.grad_fn).__name__, s.is_leaf) for s in (out, x, w))
            return g * w, g * x

    a = tl.tensor(A, requires_grad=True)
    w = tl.tensor([2.0, 3.0, 4.0])
    with saved_tensors_hooks(*_DETACH):
        y = F.apply(a * 1, w)
    y.sum().backward()
    # torch 2.15: the output re-attached to its node, the input to its history, the constant stays one
    assert info == [(True, "FBackward", False), (True, "MulBackward0", False), (False, "NoneType", True)]
    np.testing.assert_allclose(a.grad.numpy(), [2.0, 3.0, 4.0])


def test_unpacked_constant_does_not_require_grad_even_if_the_hook_says_so():
    a = tl.tensor(A, requires_grad=True)
    c = tl.tensor([1.0, 2.0, 3.0])
    with saved_tensors_hooks(lambda x: x, lambda x: x.detach().requires_grad_()):
        y = (a * c).sum()
    (g,) = tl.autograd.grad(y, a, create_graph=True)
    assert not g.requires_grad and g.grad_fn is None  # torch 2.15


def test_unpack_hook_of_another_dtype_leaves_gradient_dtypes_alone():
    a = tl.tensor(A, requires_grad=True)
    with saved_tensors_hooks(lambda x: x, lambda x: x.double()):
        y = (a**3).sum()
    (g,) = tl.autograd.grad(y, a, create_graph=True)
    g.sum().backward()
    assert g.dtype == tl.float32 and a.grad.dtype == tl.float32  # torch 2.15
    np.testing.assert_allclose(a.grad.numpy(), [3.0, -6.0, 12.0])


def test_gradients_handed_in_take_the_dtype_of_their_tensor():
    a = tl.tensor(A, requires_grad=True)
    (g,) = tl.autograd.grad(a, a, tl.ones(3, dtype=tl.float64))
    assert g.dtype == tl.float32  # torch 2.15
    a.backward(tl.ones(3, dtype=tl.float64))
    assert a.grad.dtype == tl.float32


def test_saved_tensor_modified_in_place_under_hooks_is_not_detected():
    a = tl.tensor(A, requires_grad=True)
    with saved_tensors_hooks(lambda x: x, lambda x: x):
        b = a * 1
        y = (b * b).sum()
    b.add_(1)
    y.backward()  # torch 2.15: no version check through hooks; the modified value is used
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 0.0, 6.0])
    c = a * 1
    z = (c * c).sum()
    c.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.backward()  # (without hooks it is)


def test_pack_hook_modifying_its_input_in_place_raises():
    def inc(x):
        x += 1
        return x

    a = tl.tensor(A, requires_grad=True)
    with saved_tensors_hooks(inc, lambda x: x), pytest.raises(
            RuntimeError, match="^A saved tensor pack hook is modifying its input in place. Tensors provided as input "
                                "to pack hook cannot be modified by in-place operations as this can lead to unexpected "
                                "side-effects. Please open an issue if you need to perform in-place operations on the "
                                "input to a pack hook.$"):
        tl.exp(a)
    np.testing.assert_allclose(a.detach().numpy(), A)  # (exp saves its output: that one was modified)


@pytest.mark.parametrize("outer", ["hooks", "save_on_cpu"])
def test_disabling_hooks_inside_open_hooks_raises(outer):
    block = saved_tensors_hooks(lambda x: x, lambda x: x) if outer == "hooks" else save_on_cpu()
    with block, pytest.raises(RuntimeError, match="^msg$"):
        with disable_saved_tensors_hooks("msg"):
            pass
    with saved_tensors_hooks(lambda x: x, lambda x: x):
        pass  # nothing left disabled
    with disable_saved_tensors_hooks("outer"):
        with pytest.raises(RuntimeError, match="^inner$"):
            with disable_saved_tensors_hooks("inner"), saved_tensors_hooks(lambda x: x, lambda x: x):
                pass
        with pytest.raises(RuntimeError, match="^outer$"):
            with saved_tensors_hooks(lambda x: x, lambda x: x):
                pass


def test_checkpoint_under_a_detaching_hook_reaches_the_leaf():
    from tensorlab.utils.checkpoint import checkpoint

    for reentrant in (False, True):
        a = tl.tensor(A, requires_grad=True)
        with saved_tensors_hooks(*_DETACH):
            y = checkpoint(lambda t: (t.sin() * t).sum(), a, use_reentrant=reentrant)
        y.backward()
        np.testing.assert_allclose(a.grad.numpy(), [0.9182, -1.3818, 0.077], atol=1e-4)  # torch 2.15
