"""Index arithmetic past 2**31 - 1 in the row kernels, and CUDA's grid limits.

Triton types an integer argument below 2**31 as int32, so ``cols * stride`` wraps in int32 unless
``cols`` is int64 first: a launcher's INT64 flag (``needs_int64``) must widen every term of an
offset, columns included. The views here put three rows ``ROW_GAP`` elements apart in one
allocation of 2**31 + 132 float16 elements, so the last row starts past 2**31 - 1 while its
stride stays an int32. In the interpreter the device memory is host memory that numpy allocates
and the kernels touch only where they read or write: these 4 GB cost a few pages.

Before the fix the column offsets wrapped to about -2**31 and the kernels read and wrote 4 GB
before the allocation (a crash, or silently wrong values).
"""

import numpy as np
import pytest

import tensorlab as tl
import tensorlab.nn.functional as F
from tensorlab_kernels import launch as klaunch
from tensorlab_kernels.indexing import scatter as kscatter
from tensorlab_kernels.matmul import gemm as kgemm
from tensorlab_kernels.nn import cross_entropy as kce
from tensorlab_kernels.nn import layer_norm as kln
from tensorlab_kernels.reduction import reduce as kreduce
from tensorlab_kernels.reduction import softmax as ksoftmax

CUDA = tl.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="no cuda device (real or interpreted)")
pytestmark = needs_cuda

ROW_GAP = 2**30 + 64  # (an int32 stride; twice it passes 2**31 - 1)
VALUES = np.array([[0.5, -1.0, 2.0, 3.0], [1.0, 1.0, -2.0, 0.0], [4.0, 0.25, 1.0, -3.0]], np.float32)


def _far_rows(values=VALUES) -> tl.Tensor:
    """A (3, n) float16 cuda view of ``values`` whose rows lie ROW_GAP elements apart."""
    n = values.shape[1]
    base = tl.empty(2 * ROW_GAP + n, dtype=tl.float16, device="cuda")
    view = base.as_strided((3, n), (ROW_GAP, 1))
    view.copy_(tl.tensor(values, dtype=tl.float16))
    return view


def _far_columns(values=VALUES.T) -> tl.Tensor:
    """The same, transposed: (n, 3) with the far-apart dim last (a row's classes, a norm's columns)."""
    return _far_rows(values.T).t()


def _softmax(x, dim):
    e = np.exp(x - x.max(dim, keepdims=True))
    return e / e.sum(dim, keepdims=True)


@pytest.mark.parametrize("looped", [False, True])
def test_softmax_and_log_softmax_over_far_apart_rows(monkeypatch, looped):
    if looped:  # a tile of two columns: the looped path
        monkeypatch.setattr(ksoftmax, "MAX_ONE_TILE", 2)
        monkeypatch.setattr(ksoftmax, "MAX_ONE_TILE_BACKWARD", 2)
    x = _far_rows()
    want = _softmax(VALUES, 0)
    np.testing.assert_allclose(tl.softmax(x, 0).float().cpu().numpy(), want, rtol=2e-3, atol=1e-4)
    np.testing.assert_allclose(tl.log_softmax(x, 0).float().cpu().numpy(), np.log(want), rtol=2e-3, atol=2e-3)
    # the backward reads a far-apart incoming gradient
    a = tl.tensor(VALUES, dtype=tl.float16, device="cuda", requires_grad=True)
    g = _far_rows(VALUES[::-1].copy())
    tl.softmax(a, 0).backward(g)
    gv = VALUES[::-1]
    np.testing.assert_allclose(a.grad.float().cpu().numpy(), want * (gv - (gv * want).sum(0)), rtol=5e-3, atol=2e-3)


def test_scans_over_far_apart_rows():
    x = _far_rows()
    np.testing.assert_allclose(tl.cumsum(x, 0).float().cpu().numpy(), np.cumsum(VALUES, 0))
    np.testing.assert_allclose(tl.cummax(x, 0).values.float().cpu().numpy(), np.maximum.accumulate(VALUES, 0))
    np.testing.assert_array_equal(tl.cummax(x, 0).indices.cpu().numpy(), [[0] * 4, [1, 1, 0, 0], [2, 1, 0, 0]])


@pytest.mark.parametrize("looped", [False, True])
@pytest.mark.parametrize("smoothing", [0.0, 0.1])
def test_cross_entropy_over_far_apart_classes(monkeypatch, looped, smoothing):
    if looped:
        monkeypatch.setattr(kce, "MAX_ONE_TILE", 2)
        monkeypatch.setattr(kce, "LOOP_BLOCK_N", 2)
    x = _far_columns()  # (4 rows, 3 classes 2**30 elements apart)
    target = np.array([0, 2, 1, 2])
    xs = VALUES.T.astype(np.float64)
    logp = np.log(_softmax(xs, 1))
    want = -(1 - smoothing) * logp[np.arange(4), target] - smoothing * logp.mean(1)
    loss = F.cross_entropy(x, tl.tensor(target, device="cuda"), reduction="none", label_smoothing=smoothing)
    np.testing.assert_allclose(loss.float().cpu().numpy(), want, rtol=2e-3, atol=1e-3)
    # the backward writes a far-apart gradient when the logits' grad is laid out as them: through
    # a leaf that is the far-apart view itself
    leaf = _far_columns().requires_grad_()
    F.cross_entropy(leaf, tl.tensor(target, device="cuda"), label_smoothing=smoothing, reduction="sum").backward()
    onehot = np.eye(3)[target]
    dx = np.exp(logp) - (1 - smoothing) * onehot - smoothing / 3
    np.testing.assert_allclose(leaf.grad.float().cpu().numpy(), dx, rtol=5e-3, atol=2e-3)


@pytest.mark.parametrize("looped", [False, True])
def test_layer_norm_over_far_apart_columns(monkeypatch, looped):
    if looped:
        monkeypatch.setattr(kln, "MAX_ONE_TILE", 2)
    leaf = _far_columns().requires_grad_()  # (4, 3): normalise each row's three far-apart columns
    y = F.layer_norm(leaf, (3,), eps=0.0)
    xs = VALUES.T.astype(np.float64)
    xhat = (xs - xs.mean(1, keepdims=True)) / xs.std(1, keepdims=True)
    np.testing.assert_allclose(y.detach().float().cpu().numpy(), xhat, rtol=2e-3, atol=2e-3)
    g = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 3.0], [2.0, 2.0, -1.0], [-1.0, 0.5, 0.25]])
    y.backward(tl.tensor(g, dtype=tl.float16, device="cuda"))
    rstd = 1 / xs.std(1, keepdims=True)
    dx = rstd * (g - g.mean(1, keepdims=True) - xhat * (g * xhat).mean(1, keepdims=True))
    np.testing.assert_allclose(leaf.grad.float().cpu().numpy(), dx, rtol=5e-3, atol=5e-3)


def test_loop_needs_int64_covers_the_last_step():
    assert not klaunch.loop_needs_int64(2**31 - 4096, 4096)
    assert klaunch.loop_needs_int64(2**31 - 4095, 4096)  # (its last tile starts at 2**31 - 4096 ... ends past)
    assert klaunch.loop_needs_int64(2**31, 1)


def test_full_sum_plans_go_int64_when_the_last_segment_ends_past_2_31():
    """A full sum of 2**31 - 1 elements (within needs_int64's bound) is split into whole tiles per
    segment; the last segment's end, seg * seg_len + seg_len, passed 2**31 - 1 and wrapped in
    int32, so its loop ran no tile and the sum silently dropped up to a segment of elements."""
    n = 2**31 - 1
    for segments in (None, 1053, 3):
        _, steps, _ = kreduce._reduce_plan((), (), (n,), (1,), np.dtype(np.float32), "sum", (0,), None, 2.0,
                                           segments, kreduce.common.TILE_BUDGET, 0, False, False)
        first = steps[0][4]
        (_, nseg), ints = steps[0][2], steps[0][3]
        seg_len, block_n = ints[2], first["BLOCK_N"]
        assert (nseg * seg_len - 1 + block_n > 2**31 - 1) <= first["INT64"]
        assert first["INT64"]  # (each of these splits ends past 2**31 - 1)


def test_matmul_plans_go_int64_when_a_tile_index_can_pass_2_31():
    # M near 2**31 (a batch folded into rows, K = 1): the last row tile's indices pass 2**31 - 1
    _, pieces, _, meta = kgemm._plan((2**31 - 3, 2), (2, 1), (2**31 - 3, 1), (1, 1), (1, 2), (2, 1), None,
                                     np.dtype(np.float16), None, None, "highest", False, 132)
    assert meta["INT64"]
    _, pieces, _, meta = kgemm._plan((64, 2), (2, 1), (64, 1), (1, 1), (1, 2), (2, 1), None,
                                     np.dtype(np.float16), None, None, "highest", False, 132)
    assert not meta["INT64"]


def test_the_interpreter_refuses_a_grid_past_cudas_limit(monkeypatch):
    if not tl.cuda.is_interpreted():
        pytest.skip("the GPU itself refuses such a launch")
    monkeypatch.setattr(klaunch, "GRID_YZ_MAX", 2)
    with pytest.raises(RuntimeError, match="passes CUDA's limit"):
        klaunch.launch(kreduce._reduce_kernel, (1, 3), None)


@pytest.mark.parametrize("batch", [(4, 2), (2, 5), (7,)])
def test_attention_splits_a_batch_past_the_grid_limit(monkeypatch, batch):
    """Batch x heads entries are grid dim 2 (at most 65535 on a GPU: 4096 sequences of 16 heads
    pass it); with the limit lowered to 3 every launch is split into pieces."""
    monkeypatch.setattr(klaunch, "GRID_YZ_MAX", 3)
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((*batch, 5, 8)).astype(np.float32) for _ in range(3))
    mask = rng.standard_normal((*batch, 5, 5)).astype(np.float32)
    got, want = [], []
    for device, results in (("cuda", got), ("cpu", want)):
        tq, tk, tv = (tl.tensor(a, device=device, requires_grad=True) for a in (q, k, v))
        out = F.scaled_dot_product_attention(tq, tk, tv, attn_mask=tl.tensor(mask, device=device))
        out.backward(tl.tensor(np.cos(np.arange(out.numel())).reshape(out.shape).astype(np.float32), device=device))
        results += [t.detach().cpu().numpy() for t in (out, tq.grad, tk.grad, tv.grad)]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("op", ["index_add", "index_put_accumulate", "index_put"])
def test_scatter_rows_split_columns_past_the_grid_limit(monkeypatch, op):
    """index_add and index_put along dim 0 fold each row's column blocks on grid dim 2 (a row of
    more than 8.4M elements passed 65535 blocks); with the limit lowered to 2, three blocks of 1024
    columns take two launches."""
    monkeypatch.setattr(klaunch, "GRID_YZ_MAX", 2)
    monkeypatch.setattr(kscatter, "GRID_YZ_MAX", 2)
    monkeypatch.setattr(kscatter, "RUN_CHUNK", 2)  # runs of three sources: the long-runs kernel too
    rng = np.random.default_rng(1)
    x = rng.standard_normal((3, 2500)).astype(np.float32)
    src = rng.standard_normal((5, 2500)).astype(np.float32)
    index = np.array([2, 0, 2, 2, 1]) if op != "index_put" else np.array([2, 0, 1, 4, 3])
    x = np.concatenate([x, x[:2]]) if op == "index_put" else x  # (5 rows: each written once)
    results = []
    for device in ("cuda", "cpu"):
        t = tl.tensor(x, device=device)
        idx, s = tl.tensor(index, device=device), tl.tensor(src, device=device)
        if op == "index_add":
            results.append(t.index_add(0, idx, s).cpu().numpy())
        else:
            results.append(t.index_put((idx,), s, accumulate=op == "index_put_accumulate").cpu().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
    want = x.copy()
    if op == "index_put":
        want[index] = src
    else:
        np.add.at(want, index, src)
    np.testing.assert_allclose(results[1], want, rtol=1e-5, atol=1e-6)
