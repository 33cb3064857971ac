"""nn.functional behaviour where a differential scan against torch 2.15 found differences (expected
values and shapes are torch's)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F


def test_dropout2d_reads_a_3d_input_as_batched_and_warns_for_other_ranks():
    tl.manual_seed(0)
    with pytest.warns(UserWarning, match=r"interpreted as shape \(N, C, L\)"):
        out = F.dropout2d(tl.ones(6, 6, 6), p=0.5, training=True)
    assert bool((out[:, :, 0:1] == out).all())  # one draw per (n, c): constant along L
    assert not bool((out[:, 0:1, :] == out).all())
    with pytest.warns(UserWarning, match="deprecated"):
        assert F.dropout2d(tl.ones(2, 2), 0.5).shape == (2, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert F.dropout3d(tl.ones(2, 2, 2), 0.5).shape == (2, 2, 2)
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
        F.dropout1d(tl.ones(2, 2, 2, 2), 0.5)


def test_dropout_returns_an_integer_input_when_it_has_nothing_to_do_and_refuses_nan():
    x = tl.tensor([1, 2, 3])
    assert F.dropout(x, 0.5, training=False) is x and F.dropout(x, 0.0) is x
    with pytest.raises(RuntimeError, match="floating point"):
        F.dropout(x, 0.5)
    for training in (True, False):
        with pytest.raises(RuntimeError, match="between 0 and 1, but got nan"):
            F.dropout(tl.ones(3), float("nan"), training=training)


def test_grouped_query_attention_with_different_key_and_value_heads():
    rng = np.random.default_rng(0)
    q, k, v = rng.normal(size=(1, 4, 2, 3)), rng.normal(size=(1, 2, 3, 3)), rng.normal(size=(1, 1, 3, 3))
    out = F.scaled_dot_product_attention(tl.tensor(q), tl.tensor(k), tl.tensor(v), enable_gqa=True)
    kk, vv = np.repeat(k, 2, axis=1), np.repeat(v, 4, axis=1)
    s = q @ kk.swapaxes(-1, -2) / np.sqrt(3)
    w = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(out.numpy(), (w / w.sum(-1, keepdims=True)) @ vv, rtol=1e-12)
    assert F.scaled_dot_product_attention(tl.ones(2, 3), tl.ones(2, 3), tl.ones(2, 3), dropout_p=-0.1).shape == (2, 3)
    with pytest.raises(RuntimeError, match="dropout probability"):
        F.scaled_dot_product_attention(tl.ones(2, 3), tl.ones(2, 3), tl.ones(2, 3), dropout_p=1.5)


def test_empty_batches_in_embedding_bag_and_batch_norm():
    for mode in ("sum", "mean", "max"):
        assert F.embedding_bag(tl.zeros((0, 3), dtype=tl.int64), tl.ones(5, 2), mode=mode).shape == (0, 2)
    w, b = tl.ones(3, requires_grad=True), tl.zeros(3, requires_grad=True)
    out = F.batch_norm(tl.zeros(0, 3, 2), None, None, w, b, training=True)
    assert out.shape == (0, 3, 2)
    assert [g.tolist() for g in tl.autograd.grad(out.sum(), [w, b])] == [[0, 0, 0], [0, 0, 0]]
