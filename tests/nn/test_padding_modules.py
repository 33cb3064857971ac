"""Padding layers (``ZeroPad``, ``ConstantPad``, ``ReflectionPad``, ``ReplicationPad``, ``CircularPad``
in 1/2/3-d): constructor forms, ``repr`` (PyTorch's strings), values against ``np.pad``, gradients
and the rank errors (PyTorch's types and messages)."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn as nn
from tests.helpers import assert_close, to_numpy

RNG = np.random.default_rng(3)
NP_MODE = {"Zero": "constant", "Constant": "constant", "Reflection": "reflect", "Replication": "edge",
           "Circular": "wrap"}


def _np_pad(x: np.ndarray, padding, kind: str, value: float = 0.0) -> np.ndarray:
    """``padding`` in PyTorch's order (last dim first); negative entries crop."""
    k = len(padding) // 2
    widths = [(0, 0)] * (x.ndim - k) + [(padding[2 * j], padding[2 * j + 1]) for j in reversed(range(k))]
    pos = [(max(a, 0), max(b, 0)) for a, b in widths]
    kw = {"constant_values": value} if NP_MODE[kind] == "constant" else {}
    if kind == "Circular":  # PyTorch wraps within the cropped extent: crop first
        crop = tuple(slice(max(-a, 0), x.shape[i] - max(-b, 0)) for i, (a, b) in enumerate(widths))
        return np.pad(x[crop], pos, mode="wrap")
    y = np.pad(x, pos, mode=NP_MODE[kind], **kw)
    crop = tuple(slice(max(-a, 0), y.shape[i] - max(-b, 0)) for i, (a, b) in enumerate(widths))
    return y[crop]


def _make(kind: str, d: int, padding, value=2.5):
    cls = getattr(nn, f"{kind}Pad{d}d")
    return cls(padding, value) if kind == "Constant" else cls(padding)


CASES = [(kind, d) for kind in NP_MODE for d in (1, 2, 3)]


@pytest.mark.parametrize("kind,d", CASES, ids=[f"{k}{d}d" for k, d in CASES])
def test_padding_values(kind, d, device):
    for padding in (1, tuple(int(v) for v in RNG.integers(-1, 3, 2 * d))):
        m = _make(kind, d, padding)
        full = padding if isinstance(padding, tuple) else (padding,) * (2 * d)
        for ndim in (d + 1, d + 2):  # unbatched and batched
            x = RNG.standard_normal(tuple(int(s) for s in RNG.integers(3, 5, ndim)))
            y = m(tl.tensor(x, device=device))
            assert_close(y, _np_pad(x, full, kind, 2.5 if kind == "Constant" else 0.0))


def test_padding_known_values():
    x = tl.arange(4.0).reshape(1, 1, 4)
    np.testing.assert_array_equal(to_numpy(nn.ReflectionPad1d((3, 1))(x)), [[[3, 2, 1, 0, 1, 2, 3, 2]]])
    np.testing.assert_array_equal(to_numpy(nn.ReplicationPad1d((2, 1))(x)), [[[0, 0, 0, 1, 2, 3, 3]]])
    np.testing.assert_array_equal(to_numpy(nn.CircularPad1d((1, 2))(x)), [[[3, 0, 1, 2, 3, 0, 1]]])
    np.testing.assert_array_equal(to_numpy(nn.ConstantPad1d(padding=(0, 1), value=-1)(x)), [[[0, 1, 2, 3, -1]]])
    np.testing.assert_array_equal(to_numpy(nn.ZeroPad1d(padding=1)(x)), [[[0, 0, 1, 2, 3, 0]]])


def test_constant_padding_any_rank():
    # PyTorch's ConstantPad/ZeroPad leave the rank to F.pad, which pads any tensor with >= k dims
    assert nn.ZeroPad1d(1)(tl.ones(5)).shape == (7,)
    assert nn.ConstantPad2d(1, 3.0)(tl.ones(2, 3, 4, 5, 6)).shape == (2, 3, 4, 7, 8)
    # a tuple is used as given (PyTorch's _ntuple): a 4-tuple to ConstantPad1d pads two dims
    assert nn.ConstantPad1d((1, 1, 2, 2), 0.0)(tl.ones(3, 3)).shape == (7, 5)


@pytest.mark.parametrize("kind,d", CASES, ids=[f"{k}{d}d" for k, d in CASES])
def test_padding_gradcheck(kind, d):
    m = _make(kind, d, tuple([2, 1, 1, 0, 1, 2][:2 * d]))
    x = tl.tensor(RNG.standard_normal((2,) + (3,) * d), requires_grad=True)
    assert tl.autograd.gradcheck(m, (x,))


def test_padding_gradient_values(device):
    x = tl.tensor(np.arange(4.0).reshape(1, 4), device=device, requires_grad=True)
    nn.ReflectionPad1d(2)(x).sum().backward()  # output [2 1 0 1 2 3 2 1]: counts per source
    np.testing.assert_array_equal(to_numpy(x.grad), [[1, 3, 3, 1]])
    x.grad = None
    nn.CircularPad1d((1, 2))(x).sum().backward()  # [3 0 1 2 3 0 1]
    np.testing.assert_array_equal(to_numpy(x.grad), [[2, 2, 1, 2]])


REPRS = [
    (lambda: nn.ZeroPad1d(2), "ZeroPad1d((2, 2))"),
    (lambda: nn.ZeroPad2d((1, 2, 3, 4)), "ZeroPad2d((1, 2, 3, 4))"),
    (lambda: nn.ZeroPad3d(1), "ZeroPad3d((1, 1, 1, 1, 1, 1))"),
    (lambda: nn.ConstantPad1d(2, 3.5), "ConstantPad1d(padding=(2, 2), value=3.5)"),
    (lambda: nn.ConstantPad2d((1, 2, 3, 4), 0), "ConstantPad2d(padding=(1, 2, 3, 4), value=0)"),
    (lambda: nn.ConstantPad3d([1, 2, 3, 4, 5, 6], -1.0), "ConstantPad3d(padding=(1, 2, 3, 4, 5, 6), value=-1.0)"),
    (lambda: nn.ReflectionPad1d(1), "ReflectionPad1d((1, 1))"),
    (lambda: nn.ReflectionPad2d((1, 0, 2, 0)), "ReflectionPad2d((1, 0, 2, 0))"),
    (lambda: nn.ReplicationPad3d(2), "ReplicationPad3d((2, 2, 2, 2, 2, 2))"),
    (lambda: nn.CircularPad2d(1), "CircularPad2d((1, 1, 1, 1))"),
]


@pytest.mark.parametrize("make,expected", REPRS, ids=[r[1] for r in REPRS])
def test_padding_repr(make, expected):
    m = make()
    assert repr(m) == expected
    assert list(m.state_dict()) == []


def test_zero_pad_is_a_constant_pad():
    m = nn.ZeroPad2d(1)
    assert isinstance(m, nn.ConstantPad2d)
    assert m.value == 0.0 and m.padding == (1, 1, 1, 1)


@pytest.mark.parametrize("kind,d", CASES, ids=[f"{k}{d}d" for k, d in CASES])
def test_padding_rank_errors(kind, d):
    m = _make(kind, d, 1)
    for ndim in (d, d + 3):
        x = tl.ones(*(3,) * ndim)
        if kind in ("Zero", "Constant"):
            m(x)  # any rank with at least d dims
        elif kind == "Circular":  # the layer's own check (a ValueError, before F.pad)
            with pytest.raises(ValueError, match=rf"expected {d + 1}D or {d + 2}D input \(got {ndim}D input\)"):
                m(x)
        else:  # F.pad's NotImplementedError
            with pytest.raises(NotImplementedError, match=f"Padding size {2 * d} is not supported for {ndim}D input"):
                m(x)


def test_padding_size_errors():
    with pytest.raises(RuntimeError, match="Padding size should be less than the corresponding input dimension"):
        nn.ReflectionPad1d(3)(tl.ones(1, 3))
    with pytest.raises(RuntimeError, match="wrapping around more than once"):
        nn.CircularPad1d(4)(tl.ones(1, 3))
