"""Autograd: the tape, backward/grad, grad modes, custom Functions, hooks, version counters,
views and in-place ops, memory release, anomaly detection, gradcheck/gradgradcheck."""

from __future__ import annotations

import gc
import threading
import weakref

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy


def _leaf(values, device="cpu", dtype=tl.float64):
    return tl.tensor(values, dtype=dtype, device=device, requires_grad=True)


def test_backward_accumulates_into_leaves(device):
    x = _leaf([1.0, 2.0, 3.0], device)
    y = (x * x + x).sum()
    assert y.grad_fn.name() == "SumBackward0" and not y.is_leaf and x.is_leaf
    y.backward()
    np.testing.assert_allclose(to_numpy(x.grad), [3.0, 5.0, 7.0])
    (x * 2).sum().backward()
    np.testing.assert_allclose(to_numpy(x.grad), [5.0, 7.0, 9.0])  # accumulated


def test_grad_fn_graph_structure():
    a, b = _leaf([1.0]), _leaf([2.0])
    c = a * b
    d = c + a
    assert d.grad_fn.name() == "AddBackward0"
    names = [fn.name() if fn is not None else None for fn, _ in d.grad_fn.next_functions]
    assert names == ["MulBackward0", "AccumulateGrad"]
    assert d.grad_fn.next_functions[1][0].variable is a


def test_second_backward_needs_retain_graph():
    x = _leaf([1.0, 2.0])
    y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_non_scalar_backward_needs_gradient():
    x = _leaf([1.0, 2.0])
    y = x * 3
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        y.backward()
    y.backward(tl.tensor([1.0, 10.0], dtype=tl.float64))
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 30.0])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 3).backward(tl.ones(3, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="does not require grad"):
        tl.ones(2).sum().backward()


def test_retain_grad_and_non_leaf_grad():
    x = _leaf([1.0, 2.0])
    h = x * 2
    h.retain_grad()
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), [4.0, 8.0])
    np.testing.assert_allclose(x.grad.numpy(), [8.0, 16.0])
    assert h.retains_grad


def test_autograd_grad_and_higher_order():
    x = _leaf([0.5, 2.0])
    y = (x * x * x).sum()
    (g,) = tl.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * np.array([0.5, 2.0]) ** 2)
    assert x.grad is None  # grad() does not accumulate
    (gg,) = tl.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), 6 * np.array([0.5, 2.0]))
    z = _leaf([1.0])
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        tl.autograd.grad((x * 2).sum(), [x, z])
    gx, gz = tl.autograd.grad((x * 2).sum(), [x, z], allow_unused=True)
    assert gz is None and gx.tolist() == [2.0, 2.0]


def test_backward_inputs_limits_accumulation():
    a, b = _leaf([1.0]), _leaf([2.0])
    (a * b).sum().backward(inputs=[a])
    assert a.grad.tolist() == [2.0] and b.grad is None


def test_grad_modes():
    x = _leaf([1.0])
    with tl.no_grad():
        y = x * 2
        assert not tl.is_grad_enabled()
        with tl.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None and z.requires_grad

    @tl.no_grad()
    def f(t):
        return t * 2

    assert not f(x).requires_grad and tl.is_grad_enabled()
    with tl.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert tl.is_grad_enabled()
    tl.set_grad_enabled(False)
    assert not tl.is_grad_enabled()
    tl.set_grad_enabled(True)
    with tl.inference_mode():
        assert not (x * 2).requires_grad and tl.is_inference_mode_enabled()
    seen = []
    with tl.no_grad():
        t = threading.Thread(target=lambda: seen.append(tl.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]  # grad mode is per thread


def test_inference_mode_nesting():
    """Inside inference_mode() enable_grad()/set_grad_enabled(True) record nothing; inference_mode(False)
    turns grad mode on, even inside no_grad (PyTorch's InferenceMode(false) enables grad mode); leaving
    each block restores both modes."""
    x = _leaf([1.0, 2.0])
    with tl.inference_mode():
        with tl.enable_grad():
            assert not (x * 2).requires_grad
        with tl.set_grad_enabled(True):
            assert not (x * 2).requires_grad
        with tl.inference_mode(False):
            assert tl.is_grad_enabled() and not tl.is_inference_mode_enabled()
            y = x * 2
            assert y.requires_grad and y.grad_fn is not None
        assert not tl.is_grad_enabled() and tl.is_inference_mode_enabled()
    with tl.no_grad():
        with tl.inference_mode(False):
            assert (x * 2).requires_grad
        assert not tl.is_grad_enabled()
    assert tl.is_grad_enabled() and not tl.is_inference_mode_enabled()

def test_requires_grad_rules():
    x = _leaf([1.0])
    y = x * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        y.requires_grad = False
    assert not (x * 1).argmax().requires_grad  # integer outputs never require grad
    assert not (x > 0).requires_grad  # comparisons are not differentiable
    d = y.detach()
    assert not d.requires_grad and d._storage is y._storage


class _Exp(tl.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        y = (x * scale).exp()
        ctx.save_for_backward(y)
        ctx.scale = scale
        return y

    @staticmethod
    def backward(ctx, grad):
        (y,) = ctx.saved_tensors
        return grad * y * ctx.scale, None


def test_custom_function():
    x = _leaf([0.1, 0.2, -0.3])
    y = _Exp.apply(x, 2.0)
    assert y.grad_fn.name() == "_ExpBackward"
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * np.array([0.1, 0.2, -0.3])))
    assert tl.autograd.gradcheck(lambda t: _Exp.apply(t, 1.5), (_leaf([0.3, -0.7]),))
    with tl.no_grad():
        assert not _Exp.apply(x, 1.0).requires_grad


def test_custom_function_ctx_features():
    class Split(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            idx = tl.tensor([0, 1])
            ctx.mark_non_differentiable(idx)
            assert ctx.needs_input_grad == (True,)
            return x * 1, x * 2, idx

        @staticmethod
        def backward(ctx, g1, g2, g_idx):
            assert g_idx is None
            out = 0
            if g1 is not None:
                out = out + g1
            if g2 is not None:
                out = out + 2 * g2
            return out

    x = _leaf([1.0, 2.0])
    a, b, idx = Split.apply(x)
    assert not idx.requires_grad
    b.sum().backward()  # a gets no gradient: with materialize off the backward sees None
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])

    class Bad(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            return x + y

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="returned an incorrect number of gradients"):
        Bad.apply(_leaf([1.0]), _leaf([2.0])).sum().backward()

    class WrongShape(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g.sum()

    with pytest.raises(RuntimeError, match="invalid gradient at index 0"):
        WrongShape.apply(_leaf([1.0, 2.0])).sum().backward()


def test_once_differentiable():
    class Sq(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @tl.autograd.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = _leaf([3.0])
    (g,) = tl.autograd.grad(Sq.apply(x).sum(), x, create_graph=True)
    assert g.tolist() == [6.0] and not g.requires_grad


class _Same(tl.autograd.Function):
    """Returns its input as it is."""

    @staticmethod
    def forward(ctx, a):
        return a

    @staticmethod
    def backward(ctx, g):
        return g


def test_once_differentiable_refuses_a_second_derivative():
    # torch 2.15: under create_graph with grads that require grad, the results require grad through a
    # node that raises (tensorlab returned them detached: v.grad silently lacked the g term, [2, 2])
    class Cube(tl.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a**3

        @staticmethod
        @tl.autograd.function.once_differentiable
        def backward(ctx, g):
            (a,) = ctx.saved_tensors
            return 3 * a**2 * g

    x, v = _leaf([1.0, 2.0]), _leaf([1.0, 1.0])
    (g,) = tl.autograd.grad(Cube.apply(x), x, v, create_graph=True)
    assert g.tolist() == [3.0, 12.0] and g.requires_grad
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with "
                                           "@once_differentiable"):
        (g.sum() + (v**2).sum()).backward()


def test_custom_function_pytorch_rules():
    x = _leaf([1.0, 2.0, 3.0])

    class NonDiffIndex(tl.autograd.Function):  # an integer output's gradient is a zero, not None
        @staticmethod
        def forward(ctx, a):
            i = a.argmax()
            ctx.mark_non_differentiable(i)
            return a * 2, i

        @staticmethod
        def backward(ctx, g, gi):
            assert gi.dtype is tl.int64 and gi.tolist() == 0
            return g * 2 + gi

    y, _ = NonDiffIndex.apply(x)
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0, 2.0]

    class DirtyNotReturned(tl.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            a.add_(1)
            ctx.mark_dirty(a)
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(RuntimeError, match="Some elements marked as dirty during the forward method were not "
                                           "returned as output"):
        DirtyNotReturned.apply(x * 1)

    class Head(tl.autograd.Function):  # returns a view: writing to it in place is refused
        @staticmethod
        def forward(ctx, a):
            return a[:2]

        @staticmethod
        def backward(ctx, g):
            return tl.cat([g, tl.zeros(1, dtype=g.dtype)])

    for fn in (Head, _Same):  # (_Same returns its input: the same)
        out = fn.apply(x * 1)
        with pytest.raises(RuntimeError, match=f"Output 0 of {fn.__name__} is a view and is being modified inplace"):
            out.mul_(2)
        out.clone().mul_(2)  # (a clone may be written)
        with tl.no_grad():
            fn.apply(x * 1).mul_(2)  # (nothing recorded: allowed)

    class Seven(tl.autograd.Function):  # vjp is PyTorch's alias of backward
        @staticmethod
        def forward(ctx, a):
            return a * 7

        @staticmethod
        def vjp(ctx, g):
            return g * 7

    x.grad = None
    Seven.apply(x).sum().backward()
    assert x.grad.tolist() == [7.0, 7.0, 7.0]

    class ListGrads(tl.autograd.Function):  # a list is one gradient, as PyTorch reads it
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return [g, g]

    with pytest.raises(RuntimeError, match=r"returned an incorrect number of gradients \(expected 2, got 1\)"):
        ListGrads.apply(x, x).sum().backward()


def test_tensor_hooks():
    x = _leaf([1.0, 2.0])
    seen = []
    h = x.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    (x * 3).sum().backward()
    assert seen == [[3.0, 3.0]] and x.grad.tolist() == [30.0, 30.0]
    h.remove()
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    y = x * 2
    y.register_hook(lambda g: g + 1)
    x.grad = None
    y.sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tl.ones(2).register_hook(lambda g: g)


def test_node_hooks():
    x = _leaf([1.0])
    y = x * 5
    calls = []
    y.grad_fn.register_prehook(lambda grads: calls.append("pre"))
    y.grad_fn.register_hook(lambda gin, gout: calls.append("post"))
    y.sum().backward()
    assert calls == ["pre", "post"]


def test_saved_tensor_modified_inplace_raises():
    x = _leaf([1.0, 2.0])
    h = x * 1
    y = h * h  # mul saves h
    h.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation.*MulBackward0.*version 1; expected "
                                           r"version 0"):
        y.sum().backward()


def test_inplace_op_input_sharing_the_destination_is_saved_stale(device):
    # An in-place op's other input that shares the destination's memory (x.detach(), a view of x) is
    # saved after the write: the value its backward needs was overwritten, so backward must raise (as
    # PyTorch, whose views share the version counter) rather than compute with the new value. Without
    # that, x.mul_(x.detach()) gave the gradient x_old**2 instead of x_old, x.div_(x.detach()) 1
    # instead of 1 / x_old.
    for inplace in (lambda x: x.mul_(x.detach()), lambda x: x.div_(x.detach()),
                    lambda x: x.view(-1).mul_(x.detach().view(-1)), lambda x: x[0].mul_(x[1].detach())):
        a = _leaf([[1.0, 2.0], [3.0, 4.0]], device)
        x = a * 1
        inplace(x)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            x.sum().backward()
    a = _leaf([[1.0, 2.0], [3.0, 4.0]], device)
    x = a * 1
    x.mul_(x.detach().clone())  # a copy of the old value: nothing overwritten
    x.add_(x.detach())  # add saves nothing
    x.sum().backward()
    np.testing.assert_allclose(to_numpy(a.grad), [[1.0, 2.0], [3.0, 4.0]])  # the old x (the add is of a constant)


def test_inplace_op_with_the_destination_as_another_input_raises(device):
    # y.addcmul_(y, t): the rule saves input 1, which is the destination itself. It was saved as the
    # op's output, so backward used the new y where it needs the old one (t.grad was the new y, no
    # error); PyTorch raises, as for any saved tensor overwritten in place.
    for inplace in (lambda y, t: y.addcmul_(y, t), lambda y, t: y.addcmul_(t, y), lambda y, t: y.addcmul_(y, y),
                    lambda y, t: y.addcdiv_(t, y), lambda y, t: y.mul_(y)):
        x = _leaf([0.5, 1.0, 2.0], device)
        t = _leaf([3.0, 4.0, 5.0], device)
        y = x * 1
        inplace(y, t)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_inplace_on_leaf_requiring_grad_raises():
    x = _leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        x.add_(1)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        x[0].mul_(2)
    assert x.tolist() == [1.0, 2.0]  # nothing changed
    with tl.no_grad():
        x.add_(1)  # allowed without grad recording (how optimizers update parameters)
    assert x.tolist() == [2.0, 3.0]


def test_inplace_ops_track_history():
    x = _leaf([1.0, 2.0])
    h = x * 2
    h.mul_(3)  # h = 6x; the gradient w.r.t. h needs only the 3, so h may change again
    h.exp_()  # h = exp(6x)
    assert h.grad_fn.name() == "ExpBackward0"
    h.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 6 * np.exp(6 * np.array([1.0, 2.0])))


def test_inplace_on_view_rebases_base():
    a = _leaf([1.0, 2.0, 3.0])
    x = a * 1
    x[1].mul_(10)  # only the middle element is scaled
    assert x.grad_fn.name() == "CopySlicesBackward0"
    (x * tl.tensor([1.0, 2.0, 3.0], dtype=tl.float64)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [1.0, 20.0, 3.0])


def test_view_sees_inplace_writes_through_its_base():
    # values from torch 2.13: a view made before an in-place op on its base (or on another view of
    # it) reads the new values, so its gradient must go through that op (its grad_fn was stale)
    x = _leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    v = y[1]
    y.mul_(2)
    (v * tl.tensor([5.0, 6.0], dtype=tl.float64)).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [10.0, 12.0]]
    x = _leaf([[1.0, 2.0], [3.0, 4.0]])
    y = x * 1
    a, b = y[0], y[:, 0]  # they share y[0, 0]
    a.mul_(tl.tensor([5.0, 6.0], dtype=tl.float64))
    b.add_(1)
    assert y.tolist() == [[6.0, 12.0], [4.0, 4.0]]
    (y * y).sum().backward()
    assert x.grad.tolist() == [[60.0, 144.0], [8.0, 8.0]]


def test_retain_grad_and_hooks_follow_inplace_writes():
    # values from torch 2.13: .grad retained before an in-place op is the gradient of the new value;
    # a view whose base was written since keeps retain_grad, and a hook registered on it then fires
    x = _leaf([1.0, 2.0, 3.0])
    y = x * 1
    y.retain_grad()
    y.mul_(2)
    (y * 3).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0, 3.0]  # (6s, the old value's gradient, before)
    x = _leaf([1.0, 2.0, 3.0])
    y = x * 1
    v = y[1:]
    v.retain_grad()
    y.mul_(2)
    calls = []
    v.register_hook(lambda g: calls.append(g.tolist()))
    (v * 3).sum().backward()
    assert v.grad.tolist() == [3.0, 3.0] and calls == [[3.0, 3.0]] and x.grad.tolist() == [0.0, 6.0, 6.0]
    x = _leaf([1.0, 2.0, 3.0])
    y = x * 1
    v = y[1:]
    y.mul_(2)
    v.backward(tl.ones(2, dtype=tl.float64))  # backward from the stale view itself
    assert x.grad.tolist() == [0.0, 2.0, 2.0]


def test_assigning_a_mismatched_grad_raises():
    # PyTorch 2.13's checks and messages (it refused nothing before)
    x = _leaf([1.0, 2.0])
    with pytest.raises(RuntimeError, match=r"attempting to assign a gradient of size '\[3\]' to a tensor of size "
                                           r"'\[2\]'"):
        x.grad = tl.zeros(3, dtype=tl.float64)
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None but got grad of type list"):
        x.grad = [1.0, 2.0]
    # another dtype (it stayed, and accumulation kept it) and the tensor itself (torch 2.15 refuses both)
    with pytest.raises(RuntimeError, match="attempting to assign a gradient with dtype 'float32' to a tensor with "
                                           "dtype 'float64'"):
        x.grad = tl.zeros(2)
    with pytest.raises(RuntimeError, match="can't assign Variable as its own grad"):
        x.grad = x
    assert x.grad is None
    x.grad = tl.zeros(2, dtype=tl.float64).expand(2)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_retained_grad_is_set_once_and_by_autograd_grad():
    # torch 2.15: a retain_grad() tensor gets each gradient reaching it once, autograd.grad's too
    x = _leaf([1.0, 2.0, 3.0])
    z = x * 2
    z.retain_grad()
    (z * z).sum().backward(inputs=[z])  # (was counted twice: as an input and as retained)
    assert z.grad.tolist() == [4.0, 8.0, 12.0] and x.grad is None
    z = x * 2
    z.retain_grad()
    tl.autograd.grad((z * z).sum(), z)  # (was left None)
    assert z.grad.tolist() == [4.0, 8.0, 12.0]
    tl.autograd.grad((z * z).sum(), z)
    assert z.grad.tolist() == [8.0, 16.0, 24.0]
    z = x * 2
    (z * z).sum().backward(inputs=[z])  # an input that does not retain its grad gets it too
    assert z.grad.tolist() == [4.0, 8.0, 12.0]


def test_inputs_and_gradients_as_pytorch_reads_them():
    # any iterable of inputs (a generator too: was an AttributeError); a list as Tensor.backward's
    # gradient is a TypeError, as torch 2.15's (was "got 3 gradients for 1 tensors")
    x = _leaf([1.0, 2.0, 3.0])
    (g,) = tl.autograd.grad((x * x).sum(), (t for t in [x]))
    assert g.tolist() == [2.0, 4.0, 6.0]
    tl.autograd.backward([(x * x).sum()], inputs=(t for t in [x]))
    assert x.grad.tolist() == [2.0, 4.0, 6.0]
    with pytest.raises(TypeError, match="gradients can be either Tensors or None"):
        (x * 2).backward([1.0, 1.0, 1.0])


def test_requires_grad_flag_as_pytorch():
    # the attribute takes a bool only ('no' was True) and not on a non-leaf; requires_grad_(True) on a
    # non-leaf is a no-op, requires_grad_(1) a TypeError (torch 2.15)
    x = tl.ones(2)
    for bad in ("no", 1):
        with pytest.raises(RuntimeError, match="requires_grad must be a bool"):
            x.requires_grad = bad
    assert not x.requires_grad
    with pytest.raises(TypeError, match="must be bool, not int"):
        x.requires_grad_(1)
    z = _leaf([1.0]) * 2
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        z.requires_grad = True
    assert z.requires_grad_(True) is z
    with pytest.raises(RuntimeError, match="only change requires_grad flags of leaf variables"):
        z.requires_grad_(False)


def test_fill_with_a_value_tensor_that_requires_grad():
    # values from torch 2.13: the value's gradient sums the filled elements' (NotImplementedError before)
    x = _leaf([[1.0, 2.0], [3.0, 4.0]])
    w = _leaf(3.0)
    y = x * 1
    y[1].fill_(w)
    assert y.tolist() == [[1.0, 2.0], [3.0, 3.0]]
    (y * tl.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tl.float64)).sum().backward()
    assert x.grad.tolist() == [[1.0, 2.0], [0.0, 0.0]] and w.grad.item() == 7.0


def test_setitem_from_values_that_require_grad():
    w = _leaf([2.0])
    z = tl.zeros(3, dtype=tl.float64)
    z[1] = w * 3
    z[2:] = w.expand(1) * 5
    assert z.requires_grad
    (z * tl.tensor([1.0, 1.0, 1.0], dtype=tl.float64)).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), [8.0])


def test_saved_tensors_are_released_after_backward():
    x = _leaf(np.linspace(0, 1, 5))
    a = x * 2
    b = a.sin()  # saves `a`
    ref = weakref.ref(a)
    del a
    gc.collect()
    assert ref() is not None  # the graph keeps it for backward
    b.sum().backward()
    gc.collect()
    assert ref() is None  # released as soon as backward passed its node

    a = x * 2
    b = a * a
    ref = weakref.ref(a)
    del a
    b.sum().backward(retain_graph=True)
    gc.collect()
    assert ref() is not None  # retained for a second backward
    b.sum().backward()
    gc.collect()
    assert ref() is None


def test_detect_anomaly_names_the_forward_op():
    class NaNGrad(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g * float("nan")

    x = _leaf([1.0])
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"), tl.autograd.detect_anomaly():
        y = NaNGrad.apply(x) * 2
        with pytest.raises(RuntimeError, match="NaNGradBackward.*returned nan values.*NaNGrad"):
            y.sum().backward()
    assert not tl.autograd.is_anomaly_enabled()
    assert tl.is_anomaly_enabled is tl.autograd.is_anomaly_enabled  # torch.is_anomaly_enabled's place
    with pytest.warns(UserWarning), tl.autograd.detect_anomaly(check_nan=False):
        assert tl.is_anomaly_enabled() and not tl.is_anomaly_check_nan_enabled()
    assert tl.is_anomaly_check_nan_enabled()


def test_gradcheck_catches_wrong_gradients():
    class WrongSin(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # should be 2 * x

    with pytest.raises(tl.autograd.GradcheckError, match="Jacobian mismatch"):
        tl.autograd.gradcheck(WrongSin.apply, (_leaf([0.5, 1.5]),))
    assert not tl.autograd.gradcheck(WrongSin.apply, (_leaf([0.5]),), raise_exception=False)


def test_gradcheck_keywords_and_refusals():
    # PyTorch's keywords only (a typo such as atoll= was silently accepted), the checks tensorlab
    # cannot make refused, an expanded input refused (its perturbed elements share memory: a right
    # backward looked wrong), and gradgradcheck with nothing to check says so
    x = _leaf([0.5, 1.5])
    with pytest.raises(TypeError, match="atoll"):
        tl.autograd.gradcheck(lambda a: a.sin(), (x,), atoll=1e-3)
    assert tl.autograd.gradcheck(lambda a: a.sin(), (x,), fast_mode=True, nondet_tol=0.0, check_grad_dtypes=True)
    with pytest.raises(NotImplementedError, match="check_batched_grad=True"):
        tl.autograd.gradcheck(lambda a: a.sin(), (x,), check_batched_grad=True)
    with pytest.raises(NotImplementedError, match="check_fwd_over_rev=True"):
        tl.autograd.gradgradcheck(lambda a: a.sin(), (x,), check_fwd_over_rev=True)
    wide = tl.tensor([[0.5], [1.5]], dtype=tl.float64).expand(2, 3).requires_grad_()
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        tl.autograd.gradcheck(lambda a: a * a, (wide,))
    with pytest.raises(ValueError, match="gradcheck expects at least one input tensor to require gradient"):
        tl.autograd.gradgradcheck(lambda a: a * a, (tl.ones(2, dtype=tl.float64),))
    m = _leaf([[1.0, 2.0], [3.0, 4.0]])
    assert tl.autograd.gradgradcheck(lambda a: a @ a, (m,), gen_non_contig_grad_outputs=True)


def test_gradgradcheck():
    x = _leaf([0.3, -0.4, 0.9])
    y = _leaf([1.1, 0.2, -0.5])
    assert tl.autograd.gradgradcheck(lambda a, b: a * a * b + a.exp() * b.sin(), (x, y))


def test_cuda_autograd_matches_cpu():
    if not tl.cuda.is_available():
        pytest.skip("no cuda device")
    vals = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
    grads = []
    for device in ("cpu", "cuda"):
        x = tl.tensor(vals, dtype=tl.float32, device=device, requires_grad=True)
        w = tl.tensor([1.0, -2.0, 0.5], dtype=tl.float32, device=device, requires_grad=True)
        out = ((x * w + x).exp() * x).sum()
        out.backward()
        grads.append((to_numpy(x.grad), to_numpy(w.grad)))
    for c, g in zip(grads[0], grads[1]):
        np.testing.assert_allclose(g, c, rtol=1e-5, atol=1e-5)


def test_logit_second_derivative(device):
    # the backward multiplied g by an inf constant in a where's other branch: 0 * inf = nan in every
    # double backward; d2/dx2 of logit(x)^2 at 0.6 is 37.538 (torch, and the formula below)
    x = _leaf([0.6, 0.3], device)
    (g,) = tl.autograd.grad((x.logit() ** 2).sum(), x, create_graph=True)
    (h,) = tl.autograd.grad(g.sum(), x)
    v = np.array([0.6, 0.3])
    s, d = np.log(v / (1 - v)), v * (1 - v)
    np.testing.assert_allclose(to_numpy(h), (2 - 2 * s * (1 - 2 * v)) / d ** 2, rtol=1e-12)
    y = _leaf([0.0, -0.0, 1.0, 0.5], device)  # the first derivative at the edges is unchanged: g * inf
    y.logit().backward(tl.tensor([1.0, 1.0, -1.0, 1.0], dtype=tl.float64, device=device))
    assert to_numpy(y.grad).tolist() == [np.inf, np.inf, -np.inf, 4.0]


def test_backward_twice_through_nodes_that_saved_nothing():
    # PyTorch frees saved tensors, not nodes: a graph that saved none can run backward again
    x = _leaf([1.0, 2.0])
    y = (x + 1).sum()
    y.backward()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 2.0])
    y = (x * x).sum()  # mul saves its inputs
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_grad_of_a_leaf_runs_its_hooks():
    # PyTorch runs a leaf's tensor hooks before autograd.grad captures its gradient
    x = _leaf([1.0, 2.0])
    x.register_hook(lambda g: g * 10)
    (gx,) = tl.autograd.grad((x * x).sum(), x)
    np.testing.assert_allclose(gx.numpy(), [20.0, 40.0])
    assert x.grad is None
    (x * x).sum().backward(inputs=[x])  # once, not twice
    np.testing.assert_allclose(x.grad.numpy(), [20.0, 40.0])


@pytest.mark.parametrize("leaf", [True, False])
def test_tensor_hook_result_is_checked(leaf):
    # PyTorch refuses a hook's result of another dtype, shape or type before it reaches .grad
    cases = [(lambda g: g.float(), RuntimeError, "changed the type of value"),
             (lambda g: g.sum(), RuntimeError, "changed the size of value"),
             (lambda g: 3, TypeError, "hook returned 'int'")]
    for hook, exc, msg in cases:
        x = _leaf([1.0, 2.0])
        t = x if leaf else x * 2
        t.register_hook(hook)
        with pytest.raises(exc, match=msg):
            (t * t).sum().backward()
        assert x.grad is None


def test_autograd_grad_arguments_as_pytorch():
    x, z = _leaf([1.0, 2.0]), _leaf([3.0])
    # an input listed twice gets its gradient twice
    gx1, gx2 = tl.autograd.grad((x * x).sum(), [x, x])
    np.testing.assert_allclose(gx1.numpy(), [2.0, 4.0])
    np.testing.assert_allclose(gx2.numpy(), [2.0, 4.0])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        tl.autograd.grad((x * x).sum(), [])
    # materialize_grads: allow_unused defaults to it, and False contradicts it
    with pytest.raises(ValueError, match="allow_unused"):
        tl.autograd.grad((x * 2).sum(), [x, z], allow_unused=False, materialize_grads=True)
    gx, gz = tl.autograd.grad((x * x).sum(), [x, z], materialize_grads=True, create_graph=True)
    assert gz.tolist() == [0.0] and gz.requires_grad and gx.requires_grad  # zeros in the graph as PyTorch's
    # inputs as a dict: a dict of gradients
    g = tl.autograd.grad((x * z).sum(), {"x": x, "z": z})
    assert list(g) == ["x", "z"] and g["x"].tolist() == [3.0, 3.0] and g["z"].tolist() == [3.0]
    # PyTorch's positional order: only_inputs comes before allow_unused
    gx, gz = tl.autograd.grad((x * 2).sum(), [x, z], None, None, False, True, True)
    assert gz is None


def test_autograd_grad_is_grads_batched():
    x, z = _leaf([1.0, 2.0]), _leaf([3.0])
    y = x ** 3
    (jac,) = tl.autograd.grad(y, x, grad_outputs=tl.eye(2, dtype=tl.float64), is_grads_batched=True,
                              create_graph=True)
    np.testing.assert_allclose(jac.detach().numpy(), np.diag([3.0, 12.0]))  # rows: vector-Jacobian products
    (h,) = tl.autograd.grad(jac.sum(), x)
    np.testing.assert_allclose(h.numpy(), [6.0, 12.0])
    v = tl.tensor([[1.0, 1.0], [2.0, -1.0], [0.0, 3.0]], dtype=tl.float64)
    gx, gz = tl.autograd.grad([x * x], [x, z], grad_outputs=[v], is_grads_batched=True, allow_unused=True)
    np.testing.assert_allclose(gx.numpy(), v.numpy() * [2.0, 4.0])
    assert gz is None
    with pytest.raises(RuntimeError, match="is_grads_batched"):
        tl.autograd.grad(x * x, x, grad_outputs=tl.ones(3, 3, dtype=tl.float64), is_grads_batched=True)


def test_backward_inputs_must_require_grad():
    a, b = _leaf([1.0]), tl.tensor([2.0], dtype=tl.float64)
    with pytest.raises(RuntimeError, match="does not require grad"):
        (a * b).sum().backward(inputs=[b])
    (a * a).sum().backward(inputs=[a, a])  # listed twice, accumulated once (PyTorch)
    assert a.grad.tolist() == [2.0]


def test_grad_mode_decorators_as_pytorch():
    x = _leaf([1.0])

    @tl.no_grad
    def f():
        return x * 2

    @tl.inference_mode
    def g():
        return x * 2

    assert not f().requires_grad and not g().requires_grad and tl.is_grad_enabled()
    assert f.__name__ == "f"

    @tl.enable_grad
    def h():
        return x * 2

    with tl.no_grad():
        assert h().requires_grad

    # @set_grad_enabled(False) applies inside the function only
    @tl.set_grad_enabled(False)
    def k():
        return x * 2

    assert tl.is_grad_enabled()
    assert not k().requires_grad and tl.is_grad_enabled()
    with pytest.raises(TypeError, match="must be bool"):
        tl.set_grad_enabled(1)
    assert tl.is_grad_enabled()


def test_custom_function_backward_results_as_pytorch():
    def make(forward, backward):
        return type("Fn", (tl.autograd.Function,), {"forward": staticmethod(forward),
                                                    "backward": staticmethod(backward)})

    x = _leaf([1.0, 2.0])
    # extra trailing Nones are accepted
    make(lambda ctx, t: t * 2, lambda ctx, g: (g * 2, None, None)).apply(x).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
    # a gradient for a non-tensor input is an error, not silently dropped
    with pytest.raises(RuntimeError, match="forward input was not a Variable"):
        make(lambda ctx, t, k: t * k, lambda ctx, g: (g, g)).apply(x, 2.0).sum().backward()
    with pytest.raises(RuntimeError, match=r"expected Variable or None \(got float\)"):
        make(lambda ctx, t: t * 2, lambda ctx, g: 1.0).apply(x).sum().backward()
    # backward takes one gradient per output, non-tensor outputs included (None for them)
    seen = []

    def backward(ctx, g, g_int, g_str):
        seen.append((g_int, g_str))
        return g * 3

    x.grad = None
    y, k, s = make(lambda ctx, t: (t * 3, 5, "s"), backward).apply(x)
    assert (k, s) == (5, "s")
    y.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and seen == [(None, None)]

    def save_int(ctx, t):
        ctx.save_for_backward(t, 3)
        return t * 2

    with pytest.raises(TypeError, match="save_for_backward can only save variables"):
        make(save_int, lambda ctx, g: g).apply(x)


def test_custom_function_setup_context_style():
    # PyTorch 2's style: forward without ctx, setup_context(ctx, inputs, output) saves
    class Scale(tl.autograd.Function):
        @staticmethod
        def forward(x, k=3.0):
            return x.exp() * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs  # the default is bound too
            ctx.k = k
            ctx.save_for_backward(output)

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y, None

    x = _leaf([0.5, 1.0])
    y = Scale.apply(x)
    (g,) = tl.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * np.exp([0.5, 1.0]))
    (gg,) = tl.autograd.grad(g.sum(), x)  # through the saved output
    np.testing.assert_allclose(gg.numpy(), 3 * np.exp([0.5, 1.0]))
    assert tl.autograd.gradcheck(lambda t: Scale.apply(t, 0.5), (_leaf([0.2, -0.4]),))


def test_non_leaf_grad_warns_and_grad_can_be_deleted():
    import warnings

    x = _leaf([1.0, 2.0])
    h = x * 2
    (h * h).sum().backward(retain_graph=True)
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert h.grad is None
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.grad is not None  # a leaf: no warning
        h.retain_grad()
        assert h.grad is None  # retains grad: no warning either
        k = x * 3
        (k * k).sum().backward(inputs=[k])  # a non-leaf input gets its .grad without a warning
        assert k.grad.tolist() == [6.0, 12.0]
    del x.grad
    assert x.grad is None


def test_grad_accumulates_in_place_without_aliasing(device):
    # PyTorch accumulates into an existing .grad in place (without create_graph): a reference to it,
    # or a .grad assigned as a view of a flat buffer, sees the sum
    x = _leaf([1.0, 2.0], device)
    (x * x).sum().backward()
    g = x.grad
    (x * 3).sum().backward()
    assert x.grad is g
    np.testing.assert_allclose(to_numpy(g), [5.0, 7.0])
    flat = tl.zeros(3, dtype=tl.float64, device=device)
    w = _leaf([1.0, 1.0], device)
    w.grad = flat[1:]
    (w * tl.tensor([2.0, 4.0], dtype=tl.float64, device=device)).sum().backward()
    np.testing.assert_allclose(to_numpy(flat), [0.0, 2.0, 4.0])
    # ... so a .grad never aliases the gradient handed to backward, another leaf's .grad or a
    # retained non-leaf grad
    G = tl.ones(2, dtype=tl.float64, device=device)
    for make in (lambda t: t, lambda t: t + 0, lambda t: t.view(2)):
        a = _leaf([1.0, 1.0], device)
        make(a).backward(G)
        make(a).backward(G)
        np.testing.assert_allclose(to_numpy(G), [1.0, 1.0])
        np.testing.assert_allclose(to_numpy(a.grad), [2.0, 2.0])
    a, b = _leaf([1.0], device), _leaf([2.0], device)
    h = a + 0
    h.retain_grad()
    (h + b).sum().backward()
    (h + b).sum().backward()
    assert a.grad.tolist() == [2.0] and b.grad.tolist() == [2.0] and h.grad.tolist() == [2.0]
    # create_graph: leaves sharing one incoming gradient still get grads of their own
    c, d = _leaf([1.0], device), _leaf([2.0], device)
    (c + d).sum().backward(create_graph=True)
    (c + d).sum().backward()
    assert c.grad.tolist() == [2.0] and d.grad.tolist() == [2.0]


def test_post_accumulate_grad_hook():
    x = _leaf([1.0, 2.0])
    seen = []
    handle = x.register_post_accumulate_grad_hook(lambda p: seen.append(p.grad.tolist()))
    (x * x).sum().backward()
    (x * x).sum().backward()
    assert seen == [[2.0, 4.0], [4.0, 8.0]]  # after each accumulation
    tl.autograd.grad((x * x).sum(), x)  # nothing accumulates: not called
    assert len(seen) == 2
    handle.remove()
    (x * x).sum().backward()
    assert len(seen) == 2

    # an optimizer step in the hook (PyTorch's use): the parameter is updated during backward
    w = _leaf([1.0, 1.0])

    def step(p):
        with tl.no_grad():
            p.sub_(0.5 * p.grad)
        p.grad = None

    w.register_post_accumulate_grad_hook(step)
    (w * tl.tensor([2.0, 4.0], dtype=tl.float64)).sum().backward()
    assert w.tolist() == [0.0, -1.0] and w.grad is None

    v = _leaf([0.0, 0.0])  # PyTorch's docs' example returns the leaf itself (add_): accepted
    v.register_post_accumulate_grad_hook(lambda p: p.add_(p.grad, alpha=-0.5))
    v.backward(tl.tensor([1.0, 2.0], dtype=tl.float64))
    assert v.tolist() == [-0.5, -1.0]
    y = _leaf([1.0])
    y.register_post_accumulate_grad_hook(lambda p: p * 2)
    with pytest.raises(RuntimeError, match="should return None"):
        (y * 2).sum().backward()
    z = _leaf([1.0])
    z.register_post_accumulate_grad_hook(lambda p: (p,))
    with pytest.raises(TypeError, match="hook returned 'tuple'"):
        (z * 2).sum().backward()
    with pytest.raises(RuntimeError, match="non-leaf"):
        (y * 2).register_post_accumulate_grad_hook(lambda p: None)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tl.ones(2).register_post_accumulate_grad_hook(lambda p: None)


def test_grad_fn_types_are_named_as_pytorchs():
    x = tl.ones(2, requires_grad=True)
    y = (x * 2 + 1).sum()
    assert type(y.grad_fn).__name__ == "SumBackward0" == y.grad_fn.name()
    assert type(y.grad_fn.next_functions[0][0]).__name__ == "AddBackward0"
    assert isinstance(y.grad_fn, tl.autograd.graph.Node)

    class Twice(tl.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    assert type(Twice.apply(x).grad_fn).__name__ == "TwiceBackward"


def test_data_setter_swaps_the_values_and_refuses_integers_for_a_tensor_requiring_grad():
    p = tl.ones(2, requires_grad=True)
    p.data = tl.tensor([3.0, 4.0])
    assert p.requires_grad and p.is_leaf and p.tolist() == [3.0, 4.0]
    (p * 2).sum().backward()
    assert p.grad.tolist() == [2.0, 2.0]
    # PyTorch refuses an integer tensor: it would require grad and get a truncated gradient
    with pytest.raises(RuntimeError, match="must be floating point"):
        p.data = tl.tensor([1, 2])
    assert p.dtype is tl.float32 and p.tolist() == [3.0, 4.0]
    q = tl.ones(2)
    q.data = tl.tensor([1, 2])  # one that needs no gradient takes any dtype
    assert q.dtype is tl.int64
    m = tl.nn.Linear(2, 2)
    with pytest.raises(RuntimeError, match="must be floating point"):
        m.type(tl.int32)
    assert m.weight.dtype is tl.float32


# ----------------------------------------------------------------------------------------------
# differences from torch 2.15 found by translating PyTorch's test_autograd.py (expected values are torch's)
# ----------------------------------------------------------------------------------------------


def test_custom_function_marking_a_view_dirty_rebases_its_base():
    class AddInPlace(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.mark_dirty(x)
            return x.add_(y)

        @staticmethod
        def backward(ctx, g):
            return g, g * 10

    a, b = tl.ones(4, requires_grad=True), tl.ones(2, requires_grad=True)
    x = a.clone()
    AddInPlace.apply(x[1:3], b)
    x.sum().backward()
    assert b.grad.tolist() == [10.0, 10.0] and a.grad.tolist() == [1.0] * 4  # (the backward ran)

    class Double(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x.mul_(2)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    w = tl.ones(2, 3, requires_grad=True)
    base = w.clone()
    Double.apply(base[0])
    base.sum().backward()
    assert w.grad.tolist() == [[2.0, 2.0, 2.0], [1.0, 1.0, 1.0]]
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        Double.apply(tl.ones(3, requires_grad=True)[:2])


def test_custom_function_returning_its_input_under_no_grad_gives_an_alias():
    x = tl.ones(3, requires_grad=True)
    with tl.no_grad():
        y = _Same.apply(x)
    assert y is not x and not y.requires_grad and not (y * 2).requires_grad


def test_custom_backward_gradient_of_a_broadcast_shape_is_summed_down():
    class Spread(tl.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.expand(3, 2).clone()

    a = tl.ones(2, requires_grad=True)
    Spread.apply(a).sum().backward()
    assert a.grad.tolist() == [3.0, 3.0]


def test_a_view_of_a_base_without_history_made_to_require_grad_is_a_leaf():
    v = tl.zeros(4)[:2]
    v.add_(1)
    v.requires_grad_()
    (v * 2).sum().backward()
    assert v.is_leaf and v.grad.tolist() == [2.0, 2.0]
    base = tl.zeros(4)
    w = base[:2]
    w.requires_grad_()
    base.add_(1)  # (written after it became a leaf)
    (w * 3).sum().backward()
    assert w.is_leaf and w.grad.tolist() == [3.0, 3.0]


def test_autograd_grad_runs_only_the_graph_between_outputs_and_inputs():
    x = tl.ones(3, requires_grad=True)
    w = x.clone()
    h = w * w
    w.add_(1)  # (what lies below h is stale, but grad(., h) never goes there)
    assert tl.autograd.grad((h * 2).sum(), h)[0].tolist() == [2.0, 2.0, 2.0]
    calls = []
    a, b = tl.ones(2, requires_grad=True), tl.ones(2, requires_grad=True)
    b3 = b * 3
    b3.register_hook(lambda g: calls.append(g))
    loss = (a * 2 + b3).sum()
    assert tl.autograd.grad(loss, a, retain_graph=True)[0].tolist() == [2.0, 2.0] and calls == []
    loss.backward()  # the part grad() did not run still has its saved tensors
    assert b.grad.tolist() == [3.0, 3.0] and len(calls) == 1


def test_node_hooks_must_return_as_many_gradients_as_they_got():
    def backward_with(result):
        a = tl.tensor([1.0, 2.0], requires_grad=True)
        y = (a * 3).sigmoid()
        y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: result(grad_inputs))
        y.sum().backward()

    with pytest.raises(RuntimeError, match="returned an incorrect number of values \\(got 0, but expected 1\\)"):
        backward_with(lambda gi: ())
    with pytest.raises(RuntimeError, match="got 2, but expected 1"):
        backward_with(lambda gi: gi + gi)
    with pytest.raises(TypeError, match="must return a tuple of gradients or None"):
        backward_with(lambda gi: list(gi))


def test_grad_mode_decorators_on_generators_finish_with_them():
    @tl.no_grad()
    def numbers():
        yield tl.is_grad_enabled()
        return 5

    assert list(numbers()) == [False]

    @tl.enable_grad()
    def echo():
        received = yield 1
        yield received

    it = echo()
    assert next(it) == 1 and it.send(7) == 7
    with pytest.raises(StopIteration):
        next(it)


def test_numpy_of_a_tensor_that_requires_grad_under_no_grad():
    x = tl.ones(2, requires_grad=True)
    with tl.no_grad():
        assert x.numpy().tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        x.numpy()
