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


def test_dropouts_answer_p_1_and_empty_inputs_before_the_dtype_and_rank_checks(device):
    # PyTorch's _dropout_impl: not training, p = 0 or no elements -> the input; p = 1 -> input * 0 in its dtype
    # (in place with inplace); only then the dtype and feature-rank checks. These raised.
    x = tl.tensor([1, 2, 3], device=device)
    y = F.dropout(x, 1.0)
    assert y is not x and y.dtype is tl.int64 and y.tolist() == [0, 0, 0] and x.tolist() == [1, 2, 3]
    assert F.dropout(x, 1.0, inplace=True) is x and x.tolist() == [0, 0, 0]
    b = tl.tensor([True, False], device=device)
    assert F.alpha_dropout(b, 1.0, True).tolist() == [False, False] and F.alpha_dropout(b, 1.0, True).dtype is tl.bool
    e = tl.ones(0, 3, dtype=tl.int64, device=device)
    assert F.alpha_dropout(e, 0.5, True) is e and F.feature_alpha_dropout(e, 0.5, True) is e
    assert F.dropout(e, 0.5) is e
    assert F.feature_alpha_dropout(tl.ones(4, device=device), 1.0, True).tolist() == [0.0, 0.0, 0.0, 0.0]
    with pytest.warns(UserWarning, match="Received a 1-D input to dropout2d"):
        assert F.dropout2d(tl.ones(4, device=device), 1.0).tolist() == [0.0, 0.0, 0.0, 0.0]
    with pytest.warns(UserWarning, match="Received a 1-D input to dropout3d"):
        assert F.dropout3d(tl.tensor([-1.0, 2.0], device=device), 1.0).tolist() == [-0.0, 0.0]
    assert F.dropout1d(tl.ones(2, 3, dtype=tl.int32, device=device), 1.0).tolist() == [[0, 0, 0], [0, 0, 0]]
    # p is checked first (dropout1d checked the rank first), and the checks still apply for 0 < p < 1
    with pytest.raises(ValueError, match="between 0 and 1, but got 1.5"):
        F.dropout1d(tl.ones(4, device=device), 1.5)
    with pytest.raises(RuntimeError, match="Expected 2D or 3D input"):
        F.dropout1d(tl.ones(4, device=device), 1.0)
    with pytest.raises(RuntimeError, match="Feature dropout requires at least 2 dimensions"):
        F.feature_alpha_dropout(tl.ones(4, device=device), 0.5, True)
    with pytest.raises(RuntimeError, match="floating point"):
        F.alpha_dropout(x, 0.5, True)


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


def test_instance_norm_takes_eps_0_and_a_constant_channel_normalises_to_0(device):
    # PyTorch's instance_norm takes any eps (batch_norm refuses eps <= 0 when training); with eps 0
    # its inverse std of a zero variance is 0, not inf
    x = tl.tensor([[[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]]], device=device, requires_grad=True)
    y = F.instance_norm(x, eps=0.0)
    expected = np.array([[[-1.0690449, -0.26726124, 1.3363061], [0.0, 0.0, 0.0]]])
    np.testing.assert_allclose(y.detach().cpu().numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(tl.nn.InstanceNorm1d(2, eps=0)(x).detach().cpu().numpy(), expected, rtol=1e-5,
                               atol=1e-6)
    with pytest.raises(ValueError, match="batch_norm eps must be positive during training, but got 0"):
        F.batch_norm(x, None, None, training=True, eps=0.0)


def test_group_norm_refuses_one_value_per_group(device):
    # PyTorch's F.group_norm checks N * C / G * spatial > 1, in training and in eval
    for mod in (tl.nn.GroupNorm(10, 10), tl.nn.GroupNorm(10, 10).eval()):
        with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training, got input "
                                             r"size \[1, 10, 1\]"):
            mod.to(device)(tl.rand(1, 10, 1, device=device))
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        F.group_norm(tl.rand(1, 4, device=device), 4)
    assert F.group_norm(tl.rand(1, 10, 1, device=device), 5).shape == (1, 10, 1)  # two values per group
    assert F.group_norm(tl.rand(2, 4, device=device), 4).shape == (2, 4)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_reflect_replicate_pad_refuse_an_empty_non_batch_dim(mode, device):
    for shape, pad in [((3, 0, 10), (1, 1)), ((0, 10), (1, 1)), ((3, 0, 4, 4), (1, 1, 1, 1)),
                       ((0, 4, 4), (1, 1, 1, 1)), ((2, 0, 2, 2, 2), (1,) * 6), ((3, 0, 10), (0, 0))]:
        k = len(pad) // 2
        with pytest.raises(RuntimeError, match=f"Expected {k + 1}D or {k + 2}D \\(batch mode\\) tensor with possibly "
                                               "0 batch size and other non-zero dimensions"):
            F.pad(tl.zeros(shape, device=device), pad, mode=mode)
    assert F.pad(tl.zeros((0, 3, 10), device=device), (1, 2), mode=mode).shape == (0, 3, 13)  # an empty batch
    assert F.pad(tl.zeros((3, 0, 10), device=device), (1, 1), mode="circular").shape == (3, 0, 12)
    with pytest.raises(RuntimeError, match="Padding value causes wrapping around more than once"):
        F.pad(tl.zeros((3, 4, 0), device=device), (1, 1), mode="circular")


def test_cross_entropy_with_probabilities_reduces_as_torch(device):
    # 'mean' of an empty input (no rows, or rows of no classes) is NaN; 'sum' is -(sum of products)
    for shape in [(5, 0), (0, 5), (2, 0, 3)]:
        x, t = tl.rand(*shape, device=device, requires_grad=True), tl.rand(*shape, device=device)
        assert np.isnan(F.cross_entropy(x, t).item())
        s = F.cross_entropy(x, t, reduction="sum").item()
        assert s == 0.0 and np.signbit(s)
    x = tl.tensor([[1.0, 2.0, 3.0], [0.5, 0.1, -1.0]], device=device, requires_grad=True)
    t = tl.tensor([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]], device=device)
    loss = F.cross_entropy(x, t, label_smoothing=0.2)
    loss.backward()
    np.testing.assert_allclose(loss.item(), 0.9663366675376892, rtol=1e-6)
    np.testing.assert_allclose(x.grad.cpu().numpy(), [[-0.06831805408, -0.03096909076, 0.09928716719],
                                                      [-0.16926512122, 0.14367687702, 0.02558825165]], rtol=1e-5)


def test_cosine_similarity_of_an_overflowing_norm_is_0_with_a_zero_gradient(device):
    # torch 2.15: a norm that overflows to inf divides its input to 0: the similarity is 0 and so is
    # the gradient (x / inf), with or without grad (it was NaN with grad: the clamp's inf - inf)
    x = tl.tensor([[3e38] * 4, [1e19, -2e19, 3e19, 1e19], [1.0, 2.0, 3.0, 4.0]], device=device, requires_grad=True)
    y = tl.tensor([[3e38] * 4, [1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 2.0, 0.0]], device=device, requires_grad=True)
    c = F.cosine_similarity(x, y, dim=-1)
    c.sum().backward()
    np.testing.assert_allclose(c.detach().cpu().numpy(), [0.0, 0.0, 0.35856854915618896], rtol=1e-6)
    gx = [0.027888666838407516, -0.10358647257089615, 0.12350694835186005, -0.047809138894081116]
    gy = [0.04553252086043358, 0.2276625633239746, 0.10244816541671753, 0.31872761249542236]
    np.testing.assert_allclose(x.grad.cpu().numpy(), [[0.0] * 4, [0.0] * 4, gx], rtol=1e-5)
    np.testing.assert_allclose(y.grad.cpu().numpy(), [[0.0] * 4, [0.0] * 4, gy], rtol=1e-5)
    assert F.cosine_similarity(x.detach(), y.detach(), dim=-1).tolist()[:2] == [0.0, 0.0]
    h = tl.full((2, 8), 60000.0, dtype=tl.float16, device=device, requires_grad=True)  # (float16 norm: inf)
    c = F.cosine_similarity(h, h * 1, dim=1)
    c.sum().backward()
    assert c.tolist() == [0.0, 0.0] and h.grad.tolist() == [[0.0] * 8] * 2
    d = tl.tensor([[1e200, -1e200]], dtype=tl.float64, device=device, requires_grad=True)
    c = F.cosine_similarity(d, d)
    c.backward()
    assert c.tolist() == [0.0] and d.grad.tolist() == [[0.0, 0.0]]
    # a norm below eps is still clamped in value only: its gradient passes (torch 2.15's values)
    x = tl.tensor([[1e-10, 2e-10], [0.0, 0.0]], device=device, requires_grad=True)
    c = F.cosine_similarity(x, tl.tensor([[3e-10, 1e-10], [1.0, 2.0]], device=device))
    c.sum().backward()
    np.testing.assert_allclose(c.detach().cpu().numpy(), [0.0004999999655410647, 0.0], rtol=1e-5)
    np.testing.assert_allclose(x.grad.cpu().numpy(), [[2977639.25, 955278.625], [44721360.0, 89442720.0]], rtol=1e-5)
