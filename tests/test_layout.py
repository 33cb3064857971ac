"""Memory layout of new tensors: PyTorch's rules (``tensorlab._layout``).

Elementwise results, copies and ``*_like`` tensors are laid out as their inputs; memory_format
asks for a layout. Every expected stride below is what torch 2.13 gives for the same call; values
are checked against the same op on contiguous copies (the numpy twins on cpu).
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl

from .conftest import DEVICES


def _rand(*shape, device="cpu"):
    return tl.tensor(np.random.default_rng(sum(shape)).standard_normal(shape).astype(np.float32), device=device)


def _same_values(a, b):
    np.testing.assert_array_equal(a.cpu().numpy(), b.cpu().numpy())


# (name, make the operands from x = (3, 4) and p = a (2, 3, 4) permuted to (4, 2, 3), the op,
#  torch 2.13's strides of the result)
ELEMENTWISE_CASES = [
    ("unary-transposed", lambda x, p: (x.t(),), lambda a: a.exp(), (1, 4)),
    ("scalar-transposed", lambda x, p: (x.t(),), lambda a: a * 2, (1, 4)),
    ("scalar-reflected", lambda x, p: (x.t(),), lambda a: 2 - a, (1, 4)),
    ("both-transposed", lambda x, p: (x.t(), x.t()), lambda a, b: a + b, (1, 4)),
    ("first-decides", lambda x, p: (x.t(), x.t().contiguous()), lambda a, b: a + b, (1, 4)),
    ("first-decides-2", lambda x, p: (x.t().contiguous(), x.t()), lambda a, b: a + b, (3, 1)),
    ("permuted-3d", lambda x, p: (p,), lambda a: a.sigmoid(), (1, 12, 4)),
    ("where", lambda x, p: (p,), lambda a: tl.where(a > 0, a, 0.0), (1, 12, 4)),
    ("clamp-numbers", lambda x, p: (p,), lambda a: a.clamp(-0.5, 0.5), (1, 12, 4)),
    ("comparison", lambda x, p: (x.t(),), lambda a: a > 0, (1, 4)),
    ("pow-number", lambda x, p: (x.t(),), lambda a: a ** 2, (1, 4)),
    # a number base (PyTorch's pow.Scalar) allocates its result contiguous, whatever the exponent's layout
    ("pow-number-base", lambda x, p: (x.t(),), lambda a: 2 ** a, (3, 1)),
    ("pow-number-base-fn", lambda x, p: (p,), lambda a: tl.pow(2.5, a), (6, 3, 1)),
    ("float-power-number-base", lambda x, p: (x.t(),), lambda a: tl.float_power(2, a), (3, 1)),
    ("lerp-number", lambda x, p: (x.t(), x.t()), lambda a, b: tl.lerp(a, b, 0.25), (1, 4)),
    ("addcmul", lambda x, p: (p, p, p), lambda a, b, c: tl.addcmul(a, b, c, value=0.5), (1, 12, 4)),
    # a broadcast operand tells nothing about the order of the dims it is broadcast along
    ("broadcast-row", lambda x, p: (x.t(), x[:, :1].t()), lambda a, b: a * b, (1, 4)),
    ("broadcast-first", lambda x, p: (x[:1].t(), x.t()), lambda a, b: a * b, (1, 4)),
    # heaviside (a composite of where) is laid out as the binary op heaviside(input, values), also when
    # the input is expanded and where's first operand, computed from it, is contiguous
    ("heaviside-expanded-first", lambda x, p: (x[:1].expand(3, 4).t(), x.t()), lambda a, b: tl.heaviside(a, b),
     (1, 4)),
    ("heaviside-permuted", lambda x, p: (p, p), lambda a, b: tl.heaviside(a, b), (1, 12, 4)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", ELEMENTWISE_CASES, ids=[c[0] for c in ELEMENTWISE_CASES])
def test_elementwise_result_is_laid_out_as_its_operands(device, case):
    _, make, fn, strides = case
    x = _rand(3, 4, device=device)
    p = _rand(2, 3, 4, device=device).permute(2, 0, 1)
    operands = make(x, p)
    y = fn(*operands)
    assert y.stride() == strides
    _same_values(y, fn(*[o.contiguous() for o in operands]))


def _index(*values, device):
    return tl.tensor(list(values), dtype=tl.int64, device=device)


def _dropout(a):
    tl.manual_seed(7)
    return tl.nn.functional.dropout(a, 0.5)


# Ops that are not elementwise but lay their result out as their input (PyTorch allocates it with
# empty_like or clones the input): (name, the input made from x = (3, 4) and p = (2, 3, 4), the
# op, torch 2.13's strides of the result)
TRANSPOSED, PERMUTED, NOT_DENSE = (lambda x, p: x.t()), (lambda x, p: p.permute(2, 0, 1)), (lambda x, p: x.t()[::2])
LAID_OUT_AS_INPUT_CASES = [
    ("sort-values", TRANSPOSED, lambda a, d: a.sort(1).values, (1, 4)),
    ("sort-indices", PERMUTED, lambda a, d: a.sort(0).indices, (1, 12, 4)),
    ("argsort", TRANSPOSED, lambda a, d: a.argsort(0, descending=True), (1, 4)),
    ("msort", TRANSPOSED, lambda a, d: tl.msort(a), (1, 4)),
    ("sort-not-dense", NOT_DENSE, lambda a, d: a.sort(1).values, (1, 2)),
    ("flip", PERMUTED, lambda a, d: a.flip(2), (1, 12, 4)),
    ("fliplr", TRANSPOSED, lambda a, d: a.fliplr(), (1, 4)),
    ("index_fill", TRANSPOSED, lambda a, d: a.index_fill(1, _index(0, 2, device=d), 2.0), (1, 4)),
    ("index_put", PERMUTED, lambda a, d: a.index_put((_index(3, 0, device=d),), tl.ones(3, device=d)), (1, 12, 4)),
    ("dropout", TRANSPOSED, lambda a, d: _dropout(a), (1, 4)),
    ("isreal", TRANSPOSED, lambda a, d: tl.isreal(a), (1, 4)),  # torch: ones_like(input, dtype=bool)
    ("isreal-permuted", PERMUTED, lambda a, d: tl.isreal(a), (1, 12, 4)),
]


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", LAID_OUT_AS_INPUT_CASES, ids=[c[0] for c in LAID_OUT_AS_INPUT_CASES])
def test_copying_ops_lay_the_result_out_as_the_input(device, case):
    _, make, fn, strides = case
    a = make(_rand(3, 4, device=device), _rand(2, 3, 4, device=device))
    y = fn(a, device)
    assert y.stride() == strides
    _same_values(y, fn(a.contiguous(), device))  # the same values as from a contiguous copy


@pytest.mark.parametrize("device", DEVICES)
def test_elementwise_fast_rules(device):
    # every operand contiguous: contiguous, whatever the other layouts say
    x = _rand(3, 4, device=device)
    assert (x + x).stride() == (4, 1)
    # every operand channels-last: channels-last
    c = _rand(2, 3, 4, 5, device=device).contiguous(memory_format=tl.channels_last)
    assert c.stride() == (60, 1, 15, 3)
    assert (c + c).stride() == (60, 1, 15, 3)
    assert c.relu().is_contiguous(memory_format=tl.channels_last)
    # dense operands with one layout keep it exactly (size-1 dims' strides too; torch: (1, 1, 24, 4))
    base = _rand(4, 2, 6, 3, device=device)[:, :1, :1].permute(0, 1, 3, 2)  # shape (4, 1, 3, 1)
    d = tl.empty_strided((4, 1, 1, 3), (1, 1, 24, 4), device=device).copy_(base.reshape(4, 1, 1, 3))
    assert (d + d).stride() == (1, 1, 24, 4)
    assert d.clamp(-1, 1).stride() == (1, 1, 24, 4)  # number bounds are not operands (clamp.Scalar)
    _same_values(d + d, d.contiguous() * 2)


@pytest.mark.parametrize("device", DEVICES)
def test_in_place_and_out_keep_the_destination(device):
    x = _rand(3, 4, device=device)
    y = x.t().contiguous()
    y.add_(x.t())
    assert y.stride() == (3, 1)
    out = tl.empty(3, 4, device=device)
    tl.add(x, x.t().contiguous().t(), out=out)
    assert out.stride() == (4, 1)
    # an out= that must be resized takes the layout a new result would have (as PyTorch restrides it)
    resized = tl.empty(0, device=device)
    tl.add(x.t(), 1, out=resized)
    assert resized.stride() == (1, 4)
    _same_values(resized, x.t() + 1)


@pytest.mark.parametrize("device", DEVICES)
def test_clone_to_and_like_preserve_the_layout(device):
    t = _rand(3, 4, device=device).t()
    for y in (t.clone(), t.to(tl.float64), t.double(), t.to(copy=True), tl.empty_like(t), tl.zeros_like(t),
              tl.ones_like(t), tl.full_like(t, 2.5), tl.rand_like(t), tl.randn_like(t), tl.randint_like(t, 5)):
        assert y.stride() == (1, 4)
    _same_values(t.clone(), t.contiguous())
    _same_values(tl.zeros_like(t), tl.zeros(4, 3))
    _same_values(tl.full_like(t, 2.5), tl.full((4, 3), 2.5))
    # not dense: dense again, in the input's dim order (torch: (1, 2))
    s = _rand(3, 4, device=device).t()[::2]
    assert s.clone().stride() == (1, 2)
    assert s.double().stride() == (1, 2)
    _same_values(s.clone(), s.contiguous())
    # an expanded dim keeps its place
    e = _rand(5, 1, device=device).expand(5, 4)
    assert e.clone().stride() == (4, 1)
    assert (e + 1).stride() == (4, 1)


def test_device_transfers_keep_the_layout():
    # torch 2.13's strides of x.to(other device): a dense view keeps its strides (the block is
    # copied as it is); a view with gaps or repeats is laid out as clone lays it out
    x = _rand(3, 4)
    cases = [
        (x.t(), (1, 4)),
        (_rand(2, 3, 4).permute(2, 0, 1), (1, 12, 4)),
        (x.t()[::2], (1, 2)),
        (_rand(5, 1).expand(5, 4), (4, 1)),
        (_rand(2, 3, 4).permute(2, 0, 1)[:, :, ::2], (1, 8, 4)),
        (x[1:, 1:3], (2, 1)),
    ]
    for src, strides in cases:
        on_cuda = src.to("cuda")
        assert on_cuda.stride() == strides and on_cuda.cuda().stride() == strides
        back = on_cuda.cpu()
        assert back.stride() == strides and back.to("cpu").stride() == strides
        _same_values(back, src.contiguous())
        _same_values(on_cuda.to(tl.float64), src.double())
        back.add_(1)  # the copy owns its memory: src is unchanged
        _same_values(back, src.contiguous() + 1)
    pinned = x.pin_memory().t()  # a non-blocking copy from pinned memory keeps the layout too
    async_copy = pinned.to("cuda", non_blocking=True)
    assert async_copy.stride() == (1, 4)
    _same_values(async_copy, x.t())


@pytest.mark.parametrize("device", DEVICES)
def test_memory_format_arguments(device):
    t = _rand(3, 4, device=device).t()
    assert t.clone(memory_format=tl.contiguous_format).stride() == (3, 1)
    assert tl.empty_like(t, memory_format=tl.contiguous_format).stride() == (3, 1)
    assert tl.rand_like(t, memory_format=tl.contiguous_format).stride() == (3, 1)
    assert tl.randn_like(_rand(2, 3, 4, 5), memory_format=tl.channels_last).stride() == (60, 1, 15, 3)
    assert t.to(tl.float64, memory_format=tl.contiguous_format).stride() == (3, 1)
    x = _rand(2, 3, 4, 5, device=device)
    c = x.contiguous(memory_format=tl.channels_last)
    assert c.stride() == (60, 1, 15, 3) and not c.is_contiguous()
    assert c.is_contiguous(memory_format=tl.channels_last)
    _same_values(c, x)
    assert c.contiguous(memory_format=tl.channels_last) is c
    assert tl.empty(2, 3, 4, 5, memory_format=tl.channels_last, device=device).stride() == (60, 1, 15, 3)
    assert tl.empty(2, 0, 3, 4, memory_format=tl.channels_last).stride() == (0, 1, 0, 0)
    # an empty tensor is channels-last only when its strides say so (PyTorch has no empty shortcut here)
    e = tl.empty(0, 3, 2, 2, device=device)
    assert not e.is_contiguous(memory_format=tl.channels_last) and e.is_contiguous()
    assert e.contiguous(memory_format=tl.channels_last).stride() == (12, 1, 6, 3)
    assert tl.empty(2, 0, 2, 2).is_contiguous(memory_format=tl.channels_last) is False
    assert tl.empty_strided((2, 3, 0, 1), (3, 1, 1, 1)).is_contiguous(memory_format=tl.channels_last) is False
    assert tl.empty_strided((1, 1, 1, 0), (1, 1, 1, 1)).is_contiguous(memory_format=tl.channels_last) is True
    assert tl.empty(0, 2, 1, 2, 2).contiguous(memory_format=tl.channels_last_3d).stride() == (8, 1, 8, 4, 2)
    v = _rand(2, 3, 4, 5, 6, device=device).contiguous(memory_format=tl.channels_last_3d)
    assert v.stride() == (360, 1, 90, 18, 3)
    assert v.is_contiguous(memory_format=tl.channels_last_3d)
    # Tensor.to keeps a tensor whose strides already look like the asked format (as PyTorch)
    assert c.to(memory_format=tl.channels_last) is c
    assert x.to(memory_format=tl.channels_last).stride() == (60, 1, 15, 3)
    assert c.to(memory_format=tl.contiguous_format).stride() == (60, 20, 5, 1)
    assert t.to(memory_format=tl.contiguous_format) is t  # (suggests contiguous_format: PyTorch aliases too)
    assert repr(tl.channels_last) == "tensorlab.channels_last"
    assert isinstance(tl.preserve_format, tl.memory_format)
    # the dtype shorthands take it too (keyword only, as PyTorch; they raised TypeError)
    p = x.permute(0, 2, 3, 1)
    assert p.float(memory_format=tl.preserve_format).stride() == p.double().stride() == (60, 5, 1, 20)
    assert p.half(memory_format=tl.contiguous_format).stride() == (60, 15, 3, 1)
    assert x.bool(memory_format=tl.channels_last).stride() == (60, 1, 15, 3)
    for name in ("float", "half", "bfloat16", "double", "long", "int", "short", "char", "byte", "bool", "cpu"):
        same = name == "float" or (name == "cpu" and device == "cpu")  # (no conversion: itself, as PyTorch)
        assert getattr(t, name)(memory_format=tl.contiguous_format).stride() == ((1, 4) if same else (3, 1))
        with pytest.raises(TypeError):
            getattr(t, name)(tl.contiguous_format)


def test_memory_format_errors():
    x = _rand(3, 4)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        x.clone(memory_format=tl.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d format"):
        tl.empty(2, 3, memory_format=tl.channels_last_3d)
    with pytest.raises(RuntimeError, match="preserve memory format is unsupported by the contiguous operator"):
        x.contiguous(memory_format=tl.preserve_format)
    with pytest.raises(RuntimeError, match="unsupported memory format Preserve"):
        tl.empty(3, memory_format=tl.preserve_format)
    with pytest.raises(TypeError, match="must be tensorlab.memory_format, not int"):
        x.clone(memory_format=3)


def test_views_of_laid_out_results_follow_the_strides():
    y = _rand(3, 4).t() * 2  # transposed, as in PyTorch: view(-1) cannot flatten it
    with pytest.raises(RuntimeError):
        y.view(-1)
    _same_values(y.reshape(-1), (_rand(3, 4).t().contiguous() * 2).reshape(-1))
    assert y.contiguous().stride() == (3, 1)


@pytest.mark.parametrize("device", DEVICES)
def test_leaf_grad_is_laid_out_as_the_leaf(device):
    # PyTorch's AccumulateGrad contract: a dense leaf's .grad has the leaf's strides, whatever the
    # gradient's layout (here transposed, from the transposed operand).
    w = _rand(3, 4, device=device).requires_grad_()
    x = _rand(4, 3, device=device)
    (w * x.t()).sum().backward()
    assert w.grad.stride() == (4, 1)
    _same_values(w.grad, x.t().contiguous())
    v = _rand(4, 3, device=device).t().detach().requires_grad_()
    (v * x.t().contiguous()).sum().backward()
    assert v.grad.stride() == (1, 3)
    _same_values(v.grad, x.t())


@pytest.mark.parametrize("device", DEVICES)
def test_module_to_memory_format_lays_out_4d_and_5d_tensors(device):
    class M(tl.nn.Module):
        def __init__(self, *buffer_shape):
            super().__init__()
            self.w = tl.nn.Parameter(_rand(8, 3, 3, 3, device=device))
            self.b = tl.nn.Parameter(_rand(8, device=device))
            if buffer_shape:
                self.register_buffer("v", _rand(*buffer_shape, device=device))

    m = M()
    w = m.w
    values = m.w.detach().clone(memory_format=tl.contiguous_format)
    m.to(memory_format=tl.channels_last)
    assert m.w is w and m.w.stride() == (27, 1, 9, 3)  # (torch: Conv2d(3, 8, 3)'s weight (27, 1, 9, 3))
    assert m.b.stride() == (1,)
    _same_values(m.w.detach(), values)
    # 5-d tensors are converted too: channels_last_3d lays them out, channels_last raises (as torch)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        M(2, 3, 2, 2, 2).to(memory_format=tl.channels_last)
    with pytest.raises(RuntimeError, match="required rank 5 tensor to use channels_last_3d format"):
        M(2, 3, 2, 2, 2).to(memory_format=tl.channels_last_3d)  # (its 4-d weight: as torch)
    # across devices too (a transfer lays out contiguous, then the format)
    x = _rand(2, 3, 4, 5)
    assert x.to(device, memory_format=tl.channels_last).stride() == (60, 1, 15, 3)
