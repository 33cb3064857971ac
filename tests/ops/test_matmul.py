"""The matmul family beyond the OpInfo table: shape rules, strides without copies, the kernel's
tiling and batching, precision, dtypes, einsum/tensordot variety, errors, out=, autograd."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab_kernels.matmul import configs as kconfigs
from tensorlab_kernels.matmul import gemm as kgemm
from tests.helpers import assert_close, to_numpy

CUDA = tl.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="no cuda device (real or interpreted)")


def _rand(shape, dtype=np.float32, seed=0):
    return np.random.default_rng(seed).uniform(-2, 2, size=shape).astype(dtype)


def _t(arr, device, dtype=None):
    return tl.tensor(arr, device=device, dtype=dtype)


@pytest.fixture
def launches(monkeypatch):
    """Record every GEMM launch: (grid, positional args, meta)."""
    calls = []
    real = kgemm.launch

    def spy(kernel, grid, *args, **meta):
        calls.append((tuple(grid), args, meta))
        return real(kernel, grid, *args, **meta)

    monkeypatch.setattr(kgemm, "launch", spy)
    return calls


@pytest.fixture
def no_copies(monkeypatch):
    """Fail if anything is copied through the clone op (contiguous(), reshape copies, ...)."""
    op = tl.get_op("clone")

    def refuse(*args, **kwargs):
        raise AssertionError("an operand was copied (clone) on the matmul path")

    monkeypatch.setattr(op, "kernel", refuse)
    monkeypatch.setattr(op, "twin", refuse)


@pytest.fixture
def precision():
    before = tl.get_float32_matmul_precision()
    yield
    tl.set_float32_matmul_precision(before)


# ----------------------------------------------------------------------------------------------
# shape rules
# ----------------------------------------------------------------------------------------------

SHAPE_RULES = [
    ((4,), (4,), ()),  # 1-D x 1-D: dot
    ((3, 4), (4,), (3,)),  # 2-D x 1-D: mv
    ((4,), (4, 5), (5,)),  # 1-D x 2-D: prepend 1, then remove it
    ((3, 4), (4, 5), (3, 5)),
    ((2, 3, 4), (4, 5), (2, 3, 5)),
    ((3, 4), (2, 4, 5), (2, 3, 5)),
    ((4,), (2, 4, 5), (2, 5)),
    ((2, 3, 4), (4,), (2, 3)),
    ((2, 1, 3, 4), (5, 4, 6), (2, 5, 3, 6)),  # batch broadcasting
    ((1, 3, 4), (7, 4, 2), (7, 3, 2)),
    ((2, 1, 1, 3, 4), (1, 3, 2, 4, 2), (2, 3, 2, 3, 2)),  # three batch dims
]


@pytest.mark.parametrize("sa,sb,expected", SHAPE_RULES, ids=[f"{a}@{b}" for a, b, _ in SHAPE_RULES])
def test_matmul_shape_rules(device, sa, sb, expected):
    a, b = _rand(sa, seed=1), _rand(sb, seed=2)
    r = tl.matmul(_t(a, device), _t(b, device))
    assert tuple(r.shape) == expected
    assert_close(r, np.matmul(a.astype(np.float64), b.astype(np.float64)), rtol=1e-5, atol=1e-5)
    r2 = _t(a, device) @ _t(b, device)
    assert_close(r2, to_numpy(r))


def test_matmul_errors(device):
    a = _t(_rand((2, 3)), device)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        tl.mm(a, _t(_rand((4, 5)), device))
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        tl.matmul(a, _t(_rand((4, 5)), device))
    with pytest.raises(RuntimeError, match=r"both arguments to matmul need to be at least 1D, but they are 0D and 2D"):
        tl.matmul(_t(np.float32(1), device), a)
    with pytest.raises(RuntimeError, match=r"inconsistent tensor size, expected tensor \[3\] and src \[4\]"):
        tl.matmul(_t(_rand((3,)), device), _t(_rand((4,)), device))
    with pytest.raises(RuntimeError, match=r"size mismatch, got input \(2\), mat \(2x3\), vec \(4\)"):
        tl.mv(a, _t(_rand((4,)), device))
    with pytest.raises(RuntimeError, match=r"not broadcastable"):
        tl.matmul(_t(_rand((2, 2, 3)), device), _t(_rand((3, 3, 4)), device))
    with pytest.raises(RuntimeError, match=r"mm: self must be a matrix"):
        tl.mm(_t(_rand((3,)), device), a)
    with pytest.raises(RuntimeError, match=r"Expected size for first two dimensions of batch2 tensor to be: \[2, 3\]"):
        tl.bmm(_t(_rand((2, 4, 3)), device), _t(_rand((3, 3, 5)), device))
    with pytest.raises(RuntimeError, match=r"batch1 must be a 3D tensor"):
        tl.bmm(a, a)
    with pytest.raises(RuntimeError, match=r"1D tensors expected, but got 2D and 1D tensors"):
        tl.dot(a, _t(_rand((3,)), device))
    with pytest.raises(TypeError, match=r"must be Tensor"):
        tl.mm(a, np.ones((3, 2)))


def test_dtype_mismatch_raises(device):
    a = _t(_rand((2, 3)), device)
    b = _t(_rand((3, 4), np.float64), device)
    for fn in (tl.mm, tl.matmul):
        with pytest.raises(RuntimeError, match=r"expected m1 and m2 to have the same dtype, but got: float32 != float64"):  # noqa: E501
            fn(a, b)
    with pytest.raises(RuntimeError, match=r"expected both vectors to have same dtype, but found Float and Double"):
        tl.dot(_t(_rand((3,)), device), _t(_rand((3,), np.float64), device))
    with pytest.raises(RuntimeError, match=r"same dtype"):
        tl.addmm(_t(_rand((2, 4), np.float64), device), a, a.new_zeros((3, 4)))
    with pytest.raises(RuntimeError, match=r"same dtype"):
        tl.linear(a, _t(_rand((5, 3), np.float64), device))


def test_operator_semantics(device):
    a_np = _rand((2, 3))
    a, b = _t(a_np, device), _t(_rand((3, 3)), device)
    assert a.__matmul__(np.ones((3, 3))) is NotImplemented
    assert b.__rmatmul__(np.ones((3, 3))) is NotImplemented
    assert_close(b.__rmatmul__(a), to_numpy(a @ b))
    # PyTorch has no in-place @=: it rebinds to a new tensor and leaves the original alone.
    c = a
    c @= b
    assert c is not a and tuple(c.shape) == (2, 3)
    assert_close(a, a_np)
    assert_close(c, to_numpy(a) @ to_numpy(b), rtol=1e-5, atol=1e-5)
    # methods
    assert_close(a.matmul(b), to_numpy(tl.matmul(a, b)))
    assert_close(a.mm(b), to_numpy(tl.mm(a, b)))


# ----------------------------------------------------------------------------------------------
# dtypes, devices, precision
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [tl.int8, tl.uint8, tl.int16, tl.int32, tl.int64])
def test_integer_matmul_cpu_wraps_like_numpy(dtype):
    rng = np.random.default_rng(3)
    a = rng.integers(-100 if dtype.is_signed else 0, 100, size=(5, 7)).astype(dtype.np)
    b = rng.integers(-100 if dtype.is_signed else 0, 100, size=(7, 3)).astype(dtype.np)
    r = tl.mm(tl.tensor(a), tl.tensor(b))
    assert r.dtype is dtype
    np.testing.assert_array_equal(to_numpy(r), np.matmul(a, b))  # numpy wraps in the dtype too


@needs_cuda
@pytest.mark.parametrize("dtype,name", [(tl.int64, "Long"), (tl.int32, "Int"), (tl.uint8, "Byte")])
def test_integer_matmul_cuda_raises(dtype, name):
    a = tl.ones((2, 3), dtype=dtype, device="cuda")
    # NotImplementedError, as PyTorch's dispatch raises (it is also a RuntimeError)
    with pytest.raises(NotImplementedError, match=rf"\"addmm_cuda\" not implemented for '{name}'"):
        tl.matmul(a, a.t())
    with pytest.raises(NotImplementedError, match=rf"not implemented for '{name}'"):
        tl.bmm(a.unsqueeze(0), a.t().unsqueeze(0))


# (equation, shapes, result dtype for int32 operands): a label summed in one operand alone is a
# sum, which promotes integers to int64 as in PyTorch; the product that follows runs in int64
# (PyTorch 2.13 fails in bmm there: "expected scalar type Int but found Long").
EINSUM_INT = [
    ("ij->i", [(3, 4)], tl.int64),
    ("ii->", [(3, 3)], tl.int64),
    ("ij,j->i", [(3, 4), (4,)], tl.int32),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)], tl.int32),
    ("i,i->", [(4,), (4,)], tl.int32),
    ("ij,jk->i", [(3, 4), (4, 5)], tl.int64),
    ("ij,j->", [(3, 4), (4,)], tl.int64),
    ("i,j->i", [(3,), (4,)], tl.int64),
    ("ij,jk,kl->", [(3, 4), (4, 5), (5, 2)], tl.int64),
]


@pytest.mark.parametrize("eq,shapes,dtype", EINSUM_INT, ids=[e for e, _, _ in EINSUM_INT])
def test_einsum_integer_sums(eq, shapes, dtype):
    rng = np.random.default_rng(5)
    ops = [rng.integers(-50, 50, size=s).astype(np.int32) for s in shapes]
    r = tl.einsum(eq, *[tl.tensor(o) for o in ops])
    assert r.dtype is dtype
    np.testing.assert_array_equal(to_numpy(r), np.einsum(eq, *[o.astype(np.int64) for o in ops]))


def test_einsum_integer_sums_on_cuda_and_bool():
    a = tl.ones((2, 3), dtype=tl.bool)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.einsum("ij,jk->i", a, a.t())
    if tl.cuda.is_available():
        a = tl.ones((2, 3), dtype=tl.int32, device="cuda")
        assert tl.einsum("ij->i", a).tolist() == [3, 3]  # a sum: runs on cuda
        with pytest.raises(NotImplementedError, match="\"addmm_cuda\" not implemented for 'Long'"):
            tl.einsum("ij,jk->i", a, a.t())  # a product: cpu only, as PyTorch


def test_einsum_without_a_sum_multiplies(device):
    # No label left to sum (or only size-1 ones): PyTorch multiplies, so bool operands and integer
    # ones on cuda work (tensorlab's matmul refused them: "addmm_impl_cpu_" not implemented for 'Bool')
    u, v = tl.tensor([True, False], device=device), tl.tensor([True, True, False], device=device)
    r = tl.einsum("i,j->ij", u, v)
    assert r.dtype is tl.bool and r.tolist() == [[True, True, False], [False, False, False]]
    assert tl.einsum("i,i->i", u, u).tolist() == [True, False]
    assert tl.einsum("ab,b->a", u.reshape(2, 1), tl.tensor([True], device=device)).tolist() == [True, False]
    x = tl.tensor([[1, 2], [3, 4]], dtype=tl.int32, device=device)
    r = tl.einsum("bi,bj->bij", x, x)
    assert r.dtype is tl.int32 and r.tolist() == [[[1, 2], [2, 4]], [[9, 12], [12, 16]]]
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.einsum("i,i->", u, u)  # a sum of products: a matmul, which refuses bools (as PyTorch's bmm)
    # a bool operand meets one a sum made int64 ("jj" is summed first): promoted and multiplied
    r = tl.einsum("i,jj->i", u, tl.ones((3, 3), dtype=tl.bool, device=device))
    assert r.dtype is tl.int64 and r.tolist() == [3, 0]
    a = tl.tensor([1.0, 2.0], device=device, requires_grad=True)
    b = tl.tensor([3.0, 4.0, 5.0], device=device, requires_grad=True)
    tl.einsum("i,j->ij", a, b).sum().backward()
    assert a.grad.tolist() == [12.0, 12.0] and b.grad.tolist() == [3.0, 3.0, 3.0]


def test_bool_matmul_raises(device):
    a = tl.ones((2, 2), dtype=tl.bool, device=device)
    with pytest.raises(NotImplementedError, match=r"not implemented for 'Bool'"):
        tl.mm(a, a)


def test_precision_setting(precision):
    assert tl.get_float32_matmul_precision() == "highest"  # PyTorch's default: no TF32
    tl.set_float32_matmul_precision("high")
    assert tl.get_float32_matmul_precision() == "high"
    with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
        tl.set_float32_matmul_precision("fastest")
    assert tl.get_float32_matmul_precision() == "high"  # unchanged, as in PyTorch
    for bad in (3, None, ["high"]):  # not a str: PyTorch's RuntimeError (it warned), unchanged
        with pytest.raises(RuntimeError, match="set_float32_matmul_precision expects a str, but got"):
            tl.set_float32_matmul_precision(bad)
    assert tl.get_float32_matmul_precision() == "high"
    tl.set_float32_matmul_precision(b"medium")  # bytes are taken as text, as PyTorch's binding does
    assert tl.get_float32_matmul_precision() == "medium"


@needs_cuda
def test_precision_reaches_the_kernel(launches, precision):
    a = tl.tensor(_rand((8, 8)), device="cuda")
    tl.mm(a, a)
    tl.set_float32_matmul_precision("high")
    tl.mm(a, a)
    tl.mm(a.half(), a.half())
    assert [m["PRECISION"] for _, _, m in launches[:2]] == ["ieee", "tf32"]


@needs_cuda
def test_fp32_highest_matches_float64(precision):
    """With "highest" (the default) fp32 products are IEEE: ~1e-6 relative to a float64 reference."""
    a, b = _rand((64, 96), seed=5), _rand((96, 80), seed=6)
    r = tl.mm(_t(a, "cuda"), _t(b, "cuda"))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    err = np.abs(to_numpy(r) - ref).max() / np.abs(ref).max()
    assert err < 1e-5


@needs_cuda
@pytest.mark.parametrize("dtype,tol", [(tl.float16, 2e-3), (tl.bfloat16, 1e-2), (tl.float64, 1e-13)])
def test_cuda_dtypes_against_float64(dtype, tol):
    """fp16/bf16 accumulate in fp32 (error = one output rounding); fp64 runs the FMA path exactly."""
    a, b = _rand((33, 70), seed=7), _rand((70, 21), seed=8)
    ta, tb = tl.tensor(a, device="cuda").to(dtype), tl.tensor(b, device="cuda").to(dtype)
    r = tl.mm(ta, tb)
    assert r.dtype is dtype
    ref = to_numpy(ta.double()) @ to_numpy(tb.double())
    err = np.abs(to_numpy(r.double()) - ref).max() / np.abs(ref).max()
    assert err < tol


# ----------------------------------------------------------------------------------------------
# strides: transposed, sliced and broadcast operands reach the kernel without copies
# ----------------------------------------------------------------------------------------------


def _strides_of(call):
    """(stride_am, stride_ak, stride_bk, stride_bn) from a recorded launch."""
    args = call[1]
    # c, a, b, bias, M, N, K, B2, c strides (4), a strides (4), b strides (4), ...
    return args[14], args[15], args[18], args[19]


@needs_cuda
def test_transposed_operands_no_copy(launches, no_copies):
    a, b = _rand((6, 5), seed=1), _rand((7, 6), seed=2)  # compute a.T @ b.T: (5, 6) @ (6, 7)
    ta, tb = _t(a, "cuda").t(), _t(b, "cuda").t()
    r = tl.mm(ta, tb)
    assert_close(r, a.T.astype(np.float64) @ b.T.astype(np.float64), rtol=1e-5, atol=1e-5)
    assert len(launches) == 1
    assert _strides_of(launches[0]) == (1, 5, 1, 6)  # the transposed strides, read as they are


@needs_cuda
def test_sliced_and_broadcast_operands_no_copy(launches, no_copies):
    big = _rand((4, 9, 12), seed=3)
    a = _t(big, "cuda")[:, 1:8:2, ::3]  # (4, 4, 4) with strides (108, 24, 3)
    w = _rand((1, 4, 6), seed=4)
    b = _t(w, "cuda").expand(4, 4, 6)  # batch stride 0
    r = tl.bmm(a, b)
    assert_close(r, np.matmul(big[:, 1:8:2, ::3].astype(np.float64), w.astype(np.float64)), rtol=1e-5, atol=1e-5)
    # (2, 1, M, K) @ (3, K, N): a broadcast batch on both sides, still one launch, no copy
    x, y = _rand((2, 1, 5, 4), seed=5), _rand((3, 4, 6), seed=6)
    r = tl.matmul(_t(x, "cuda"), _t(y, "cuda"))
    assert_close(r, np.matmul(x.astype(np.float64), y.astype(np.float64)), rtol=1e-5, atol=1e-5)
    assert len(launches) == 2
    grid, args, _ = launches[1]
    assert args[7] == 3  # B2: two batch dims (2, 3) in one launch


@needs_cuda
def test_linear_reads_weight_transposed_and_fuses_bias(launches, no_copies):
    x, w, bias = _rand((2, 3, 5), seed=1), _rand((4, 5), seed=2), _rand((4,), seed=3)
    r = tl.linear(_t(x, "cuda"), _t(w, "cuda"), _t(bias, "cuda"))
    assert_close(r, x.astype(np.float64) @ w.T.astype(np.float64) + bias, rtol=1e-5, atol=1e-5)
    assert len(launches) == 1  # bias in the epilogue, no separate add
    grid, args, meta = launches[0]
    assert meta["HAS_BIAS"]
    assert args[4] == 6  # M: the (2, 3) batch folded into one tall GEMM
    assert _strides_of(launches[0])[2:] == (1, 5)  # weight (4, 5) read as (5, 4) with strides (1, 5)


@needs_cuda
def test_out_noncontiguous_is_written_through_strides():
    a, b = _rand((3, 4), seed=1), _rand((4, 5), seed=2)
    big = tl.full((5, 6), 7.0, device="cuda")
    out = big[:5, :3].t()  # (3, 5) with strides (1, 6): a transposed window of big
    assert not out.is_contiguous()
    r = tl.mm(_t(a, "cuda"), _t(b, "cuda"), out=out)
    assert r is out
    expected = np.full((5, 6), 7.0)
    expected[:5, :3] = (a.astype(np.float64) @ b.astype(np.float64)).T
    assert_close(big, expected, rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------------------------------------
# the kernel itself: tiles, groups, batches, epilogue, int64 offsets, configs
# ----------------------------------------------------------------------------------------------

SMALL = {"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16, "GROUP_M": 2, "num_warps": 4, "num_stages": 1}


def _device_arrays(*tensors):
    return [None if t is None else t._device_array() for t in tensors]


@needs_cuda
@pytest.mark.parametrize("dtype", [tl.float32, tl.float16, tl.float64])
def test_kernel_many_tiles_odd_sizes(dtype):
    """Several tile-rows and -columns, grouped ordering, a K loop with a masked tail, alpha/beta."""
    M, N, K = 37, 45, 50
    a, b, d = _rand((K, M), seed=1), _rand((K, N), seed=2), _rand((N,), seed=3)
    ta = tl.tensor(a, device="cuda").to(dtype).t()  # (M, K), transposed
    tb = tl.tensor(b, device="cuda").to(dtype)
    td = tl.tensor(d, device="cuda").to(dtype).expand(M, N)
    out = tl.empty((M, N), dtype=dtype, device="cuda")
    kgemm.matmul(*_device_arrays(out, ta, tb, td), alpha=0.5, beta=-2.0, config=SMALL)
    ref = 0.5 * (to_numpy(ta.double()) @ to_numpy(tb.double())) - 2.0 * to_numpy(td.double())
    rtol = {tl.float32: 1e-5, tl.float16: 2e-3, tl.float64: 1e-12}[dtype]
    assert_close(out, ref, rtol=rtol, atol=rtol * 10)


@needs_cuda
def test_kernel_empty_k_gives_bias():
    out = tl.empty((3, 4), device="cuda")
    a, b = tl.empty((3, 0), device="cuda"), tl.empty((0, 4), device="cuda")
    bias = tl.tensor(_rand((4,)), device="cuda")
    r = tl.addmm(bias, a, b, beta=2.0)
    assert_close(r, np.broadcast_to(2.0 * to_numpy(bias), (3, 4)))
    kgemm.matmul(*_device_arrays(out, a, b, None))
    assert_close(out, np.zeros((3, 4)))
    r = tl.linear(tl.empty((2, 0), device="cuda"), tl.empty((4, 0), device="cuda"), bias)
    assert_close(r, np.broadcast_to(to_numpy(bias), (2, 4)))


@needs_cuda
def test_kernel_more_than_two_batch_dims(launches):
    """Three batch dims that do not merge: one launch per index of the leading one."""
    full = _rand((2, 3, 5, 4, 3), seed=1)
    a = full[:, :, ::2]  # (2, 3, 3, 4, 3): the strides break merging
    b = _rand((3, 1, 3, 2), seed=2)
    ta = tl.tensor(full, device="cuda")[:, :, ::2]
    r = tl.matmul(ta, tl.tensor(b, device="cuda"))
    assert_close(r, np.matmul(a.astype(np.float64), b.astype(np.float64)), rtol=1e-5, atol=1e-5)
    assert len(launches) == 2


@needs_cuda
def test_kernel_int64_offsets_path(monkeypatch):
    """The INT64 variant (chosen when an offset can pass 2**31 - 1) computes the same result."""
    monkeypatch.setattr(kgemm, "needs_int64", lambda *arrays: True)
    a, b = _rand((3, 20, 30), seed=1), _rand((30, 17), seed=2)
    r = tl.matmul(tl.tensor(a, device="cuda"), tl.tensor(b, device="cuda").t().contiguous().t())
    assert_close(r, np.matmul(a.astype(np.float64), b.astype(np.float64)), rtol=1e-5, atol=1e-5)


PERSISTENT = {**SMALL, "PROGRAMS_PER_SM": 1}


@needs_cuda
@pytest.mark.parametrize("dtype", [tl.float32, tl.float16, tl.float64])
def test_persistent_kernel_loops_over_tiles(monkeypatch, launches, dtype):
    """PROGRAMS_PER_SM: fewer programs than tiles, each computing every P-th tile (here 3 programs
    over 3 x 3 tiles of each of 2 batches, a masked K tail, alpha, beta and a broadcast bias)."""
    monkeypatch.setitem(kgemm._num_sms, 0, 3)
    M, N, K = 37, 45, 50
    a, b, d = _rand((2, M, K), seed=1), _rand((2, K, N), seed=2), _rand((N,), seed=3)
    ta, tb = tl.tensor(a, device="cuda").to(dtype), tl.tensor(b, device="cuda").to(dtype)
    td = tl.tensor(d, device="cuda").to(dtype).expand(2, M, N)
    out = tl.empty((2, M, N), dtype=dtype, device="cuda")
    kgemm.matmul(*_device_arrays(out, ta, tb, td), alpha=0.5, beta=-2.0, config=PERSISTENT)
    ref = 0.5 * np.matmul(to_numpy(ta.double()), to_numpy(tb.double())) - 2.0 * to_numpy(td.double())
    rtol = {tl.float32: 1e-5, tl.float16: 2e-3, tl.float64: 1e-12}[dtype]
    assert_close(out, ref, rtol=rtol, atol=rtol * 10)
    ((grid, args, meta),) = launches
    assert grid == (3,) and args[-1] == 2 * 3 * 3 and "PROGRAMS_PER_SM" not in meta  # (total tiles)


@needs_cuda
def test_persistent_kernel_int64_path_and_more_programs_than_tiles(monkeypatch):
    monkeypatch.setitem(kgemm._num_sms, 0, 4)
    monkeypatch.setattr(kgemm, "needs_int64", lambda *arrays: True)
    a, b = _rand((20, 30), seed=1), _rand((30, 17), seed=2)
    out = tl.empty((20, 17), device="cuda")
    ta, tb = tl.tensor(a, device="cuda"), tl.tensor(b, device="cuda").t().contiguous().t()
    kgemm.matmul(*_device_arrays(out, ta, tb, None), config={**PERSISTENT, "PROGRAMS_PER_SM": 2})
    assert_close(out, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-5, atol=1e-5)


def test_persistent_plans_launch_a_few_programs_per_sm():
    cfg = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8, "num_warps": 8, "num_stages": 3}
    geometry = ((8192, 768), (768, 1), (8192, 768), (768, 1), (768, 768), (768, 1), None, np.dtype(np.float16),
                None, None, "highest", False, 132)
    kernel, ((grid, _, ints),), _, meta = kgemm._plan(*geometry, {**cfg, "PROGRAMS_PER_SM": 2})
    assert kernel is kgemm._gemm_persistent_kernel and grid == (264,) and ints[-1] == 64 * 6
    assert "PROGRAMS_PER_SM" not in meta
    kernel, ((grid, _, ints),), _, _ = kgemm._plan(*geometry, cfg)
    assert kernel is kgemm._gemm_kernel and grid == (64 * 6,) and len(ints) == 22
    for bad in (0, -1, 1.5):
        with pytest.raises(ValueError, match="PROGRAMS_PER_SM must be a positive int"):
            kgemm._plan(*geometry, {**cfg, "PROGRAMS_PER_SM": bad})


def test_fold_batch():
    # (B, S, K) @ (K, N): the batch folds into M (one tall GEMM)
    shape, M, ops = kgemm.fold_batch((4,), 6, [((6 * 5,), 5), ((0,), 0), ((6 * 7,), 7), ((0,), 0)])
    assert M == 24 and ops[0][1] == 5 and ops[2][1] == 7
    # b moves with the batch: no fold
    shape, M, ops = kgemm.fold_batch((4,), 6, [((30,), 5), ((35,), 0), ((42,), 7), ((0,), 0)])
    assert M == 6 and shape == (4,)
    # M == 1 (a vector times a batch of matrices would be b-batched; here a-batched): folds
    shape, M, ops = kgemm.fold_batch((3, 4), 1, [((20, 5), 0), ((0, 0), 0), ((4, 1), 0), ((0, 0), 0)])
    assert M == 12 and ops[0][1] == 5 and ops[2][1] == 1


def test_configs_space_and_heuristic(monkeypatch):
    import ml_dtypes

    for c in kconfigs.CONFIGS:
        assert {"BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M", "num_warps", "num_stages", "family"} <= set(c)
        assert min(c["BLOCK_M"], c["BLOCK_N"], c["BLOCK_K"]) >= 4
    monkeypatch.setattr(kconfigs, "INTERPRET", False)  # the GPU heuristic
    bf16 = ml_dtypes.bfloat16
    big = kconfigs.pick_config(4096, 4096, 4096, bf16, num_sms=132)
    assert (big["BLOCK_M"], big["BLOCK_N"], big["BLOCK_K"]) == (128, 256, 64)
    skinny = kconfigs.pick_config(8192, 768, 4096, np.float16, num_sms=132)
    assert skinny["BLOCK_M"] * skinny["BLOCK_N"] < 128 * 256  # 128x256 tiles would leave SMs idle
    # narrow N on 128x128 tiles (measured on an H100): row-major order for a long K, 3 stages for a short one
    assert (skinny["GROUP_M"], skinny["num_stages"]) == (1, 4) and skinny in kconfigs.configs_for(np.float16)
    short = kconfigs.pick_config(8192, 768, 768, bf16, num_sms=132)
    assert (short["BLOCK_N"], short["GROUP_M"], short["num_stages"]) == (128, 8, 3)
    assert kconfigs.pick_config(8192, 3072, 768, bf16, num_sms=132)["GROUP_M"] == 8  # wide N: unchanged
    for M, N, K, dt in [(1, 1, 1, np.float32), (8192, 3072, 768, bf16), (5, 4096, 64, np.float64),
                        (100, 100, 100, np.float16)]:
        c = kconfigs.pick_config(M, N, K, dt)
        assert c in kconfigs.configs_for(dt)
    with pytest.raises(NotImplementedError):
        kconfigs.pick_config(4, 4, 4, np.int64)


def test_kernel_rejects_what_it_cannot_do():
    if not CUDA:
        pytest.skip("no cuda")
    a = tl.ones((2, 2), dtype=tl.int64, device="cuda")
    with pytest.raises(NotImplementedError, match="floating dtypes only"):
        kgemm.matmul(*_device_arrays(a, a, a, None))
    f = tl.ones((2, 2), device="cuda")
    with pytest.raises(ValueError, match="dtypes differ"):
        kgemm.matmul(*_device_arrays(f, f, f.double(), None))


# ----------------------------------------------------------------------------------------------
# addmm family, linear
# ----------------------------------------------------------------------------------------------


def test_addmm_beta_zero_ignores_nan(device):
    inp = tl.full((3, 4), float("nan"), device=device)
    a, b = _rand((3, 5), seed=1), _rand((5, 4), seed=2)
    r = tl.addmm(inp, _t(a, device), _t(b, device), beta=0, alpha=2.0)
    assert_close(r, 2.0 * (a.astype(np.float64) @ b.astype(np.float64)), rtol=1e-5, atol=1e-5)
    # beta != 0: NaN propagates
    r = tl.addmm(inp, _t(a, device), _t(b, device), beta=1)
    assert np.isnan(to_numpy(r)).all()



def test_addmm_alpha_zero_ignores_the_matrices(device):
    """alpha == 0: addmm, addmv and addbmm never read the matrices (BLAS, PyTorch): NaN and inf there
    are ignored; baddbmm computes 0 * product as PyTorch's cpu does (NaN stays). The gradients keep
    0 * (g @ other^T), NaN where the other operand has one, as PyTorch's."""
    nan, inf = float("nan"), float("inf")
    bad = tl.tensor([[nan, 1.0], [inf, 1.0]], device=device)
    ones = lambda *shape: tl.ones(shape, device=device)  # noqa: E731
    assert tl.addmm(ones(2, 2), bad, ones(2, 2), alpha=0).tolist() == [[1.0, 1.0]] * 2
    assert tl.addmm(tl.tensor([1.0, 2.0], device=device), ones(2, 2), bad, alpha=0, beta=2).tolist() == [[2.0, 4.0]] * 2
    assert tl.addmm(ones(2, 2), bad, ones(2, 2), alpha=0, beta=0).tolist() == [[0.0, 0.0]] * 2
    assert tl.addmv(ones(2), bad, ones(2), alpha=0).tolist() == [1.0, 1.0]
    assert tl.addbmm(ones(2, 2), bad[None], ones(1, 2, 2), alpha=0).tolist() == [[1.0, 1.0]] * 2
    r = tl.baddbmm(ones(1, 2, 2), bad[None], ones(1, 2, 2), alpha=0)
    assert np.isnan(to_numpy(r)).all()  # 0 * nan, 0 * inf
    a = tl.ones((2, 2), device=device, requires_grad=True)
    b = tl.tensor([[nan, 1.0], [1.0, 1.0]], device=device, requires_grad=True)
    tl.addmm(ones(2, 2), a, b, alpha=0).sum().backward()
    assert np.isnan(to_numpy(a.grad)[:, 0]).all() and to_numpy(a.grad)[:, 1].tolist() == [0.0, 0.0]
    assert b.grad.tolist() == [[0.0, 0.0]] * 2


def test_addmm_integer_float_scalars_are_truncated():
    """An integer addmm/addmv/baddbmm/addbmm truncates a float alpha or beta (PyTorch 2.15): beta=0.5
    is 0 (the input is not read), alpha=-1.5 is -1."""
    a = tl.ones((2, 2), dtype=tl.int64)
    r = tl.addmm(a, a, a, alpha=3, beta=2)
    np.testing.assert_array_equal(to_numpy(r), np.full((2, 2), 2 + 3 * 2))
    i, e = tl.full((2, 2), 10), tl.eye(2, dtype=tl.int64)
    assert tl.addmm(i, e, e, beta=0.5).tolist() == [[1, 0], [0, 1]]
    assert tl.addmm(i, e, e, alpha=2.7).tolist() == [[12, 10], [10, 12]]
    assert tl.addmm(i, e, e, alpha=-1.5).tolist() == [[9, 10], [10, 9]]
    assert tl.addmv(tl.full((2,), 10), e, tl.ones(2, dtype=tl.int64), beta=0.5).tolist() == [1, 1]
    assert tl.baddbmm(i[None], e[None], e[None], alpha=1.5).tolist() == [[[11, 10], [10, 11]]]


def test_alpha_beta_must_fit_the_dtype(device):
    # torch 2.13 converts alpha and beta to the type its kernel reads them in, with an overflow check:
    # float32 for float16/bfloat16 in addmm/baddbmm/addbmm, the dtype itself in addmv and addr
    def ones(*shape, dtype=tl.float32):
        return tl.ones(shape, dtype=dtype, device=device)

    overflow = "value cannot be converted to type .* without overflow"
    for call in (lambda: tl.addmm(ones(1, 1), ones(1, 1), ones(1, 1), alpha=1e50),
                 lambda: tl.baddbmm(ones(1, 1, 1), ones(1, 1, 1), ones(1, 1, 1), beta=-1e39),
                 lambda: tl.addbmm(ones(1, 1), ones(1, 1, 1), ones(1, 1, 1), alpha=1e50),
                 lambda: tl.addmv(ones(1), ones(1, 1), ones(1), alpha=1j),
                 lambda: tl.addmv(ones(1, dtype=tl.float16), ones(1, 1, dtype=tl.float16), ones(1, dtype=tl.float16),
                                  alpha=70000),
                 lambda: tl.addr(ones(1, 1), ones(1), ones(1), beta=1e50),
                 lambda: tl.addr(ones(1, 1, dtype=tl.float16), ones(1, dtype=tl.float16), ones(1, dtype=tl.float16),
                                 alpha=70000)):
        with pytest.raises(RuntimeError, match=overflow):
            call()
    half = tl.addmm(ones(1, 1, dtype=tl.float16), ones(1, 1, dtype=tl.float16), ones(1, 1, dtype=tl.float16),
                    alpha=70000)  # read in float32: fits, and the float16 result overflows
    assert to_numpy(half).tolist() == [[float("inf")]]
    assert tl.addmm(ones(1, 1), ones(1, 2), ones(2, 1), alpha=2 + 0j, beta=float("inf")).tolist() == [[float("inf")]]
    assert tl.addmm(ones(1, 1), ones(1, 2), ones(2, 1), alpha=2 + 0j).tolist() == [[5.0]]
    assert tl.addr(ones(1, 1), ones(1), ones(1), alpha=3 + 0j).tolist() == [[4.0]]
    if device == "cpu":  # integer products: cpu only
        i8 = tl.ones((1, 1), dtype=tl.int8)
        for bad in (300, -129, 255, 2 ** 63):
            with pytest.raises(RuntimeError, match="value cannot be converted to type int8 without overflow"):
                tl.addmm(i8, i8, i8, alpha=bad)
        with pytest.raises(OverflowError):
            tl.addmm(i8, i8, i8, beta=2 ** 70)
        assert tl.addmm(i8, i8, i8, alpha=-128, beta=127).tolist() == [[-1]]  # wraps: 127 - 128
        u8 = tl.ones((1, 1), dtype=tl.uint8)
        assert tl.addmm(u8, u8, u8, alpha=-255).tolist() == [[2]]  # -255 is 1 in uint8 (as in C++)
        with pytest.raises(RuntimeError, match="value cannot be converted to type uint8 without overflow"):
            tl.addmm(u8, u8, u8, alpha=256)


def test_add_family_zero_alpha_beta_gradients_propagate_nan(device):
    # PyTorch's gradients are alpha * (g @ m2^T), alpha * (m1^T @ g) and beta * g even for a zero
    # alpha or beta: an inf in the other operand, or NaN in g, gives NaN (tensorlab gave zeros)
    inf, nan = float("inf"), float("nan")

    def leaf(values):
        return tl.tensor(values, device=device, requires_grad=True)

    c, a, b = leaf([[1.0]]), leaf([[1.0, 2.0]]), leaf([[inf], [1.0]])
    tl.addmm(c, a, b, alpha=0).backward(tl.ones((1, 1), device=device))
    assert to_numpy(a.grad).tolist()[0][0] != to_numpy(a.grad).tolist()[0][0]  # NaN: 0 * (1 * inf)
    assert to_numpy(a.grad).tolist()[0][1] == 0.0 and to_numpy(b.grad).tolist() == [[0.0], [0.0]]
    assert to_numpy(c.grad).tolist() == [[1.0]]
    c, a, b = leaf([[1.0]]), leaf([[1.0, 2.0]]), leaf([[1.0], [1.0]])
    tl.addmm(c, a, b, beta=0).backward(tl.tensor([[nan]], device=device))
    assert np.isnan(to_numpy(c.grad)).all()  # 0 * NaN
    m, v = leaf([[1.0, 2.0]]), leaf([nan, 1.0])
    tl.addmv(leaf([1.0]), m, v, alpha=0).backward(tl.ones(1, device=device))
    g = to_numpy(m.grad)
    assert np.isnan(g[0, 0]) and g[0, 1] == 0.0 and to_numpy(v.grad).tolist() == [0.0, 0.0]
    b1, b2 = leaf([[[1.0, inf]]]), leaf([[[1.0], [1.0]]])
    tl.baddbmm(leaf([[[1.0]]]), b1, b2, alpha=0, beta=0).backward(tl.ones((1, 1, 1), device=device))
    g = to_numpy(b2.grad)
    assert g[0, 0, 0] == 0.0 and np.isnan(g[0, 1, 0]) and to_numpy(b1.grad).tolist() == [[[0.0, 0.0]]]


def test_add_family_input_gradient_is_scaled_then_summed(device):
    # input's gradient is beta * g, then summed to input's shape (PyTorch's order): inf * [1, -1, 2, 3]
    # summed is NaN (summing first gave inf)
    inf = float("inf")

    def leaf(values):
        return tl.tensor(values, device=device, requires_grad=True)

    c = leaf(1.0)
    tl.addmm(c, tl.ones((2, 2), device=device), tl.ones((2, 2), device=device), beta=inf).backward(
        tl.tensor([[1.0, -1.0], [2.0, 3.0]], device=device))
    assert np.isnan(to_numpy(c.grad))
    c = leaf([[1.0], [2.0]])
    tl.addmm(c, tl.ones((2, 2), device=device), tl.ones((2, 2), device=device), beta=2).backward(
        tl.tensor([[1.0, -1.0], [2.0, 3.0]], device=device))
    assert to_numpy(c.grad).tolist() == [[0.0], [10.0]]


def test_inplace_add_family(device):
    a, b = _rand((3, 5), seed=1), _rand((5, 4), seed=2)
    c = _rand((3, 4), seed=3)
    t = _t(c, device)
    ver = t._version
    r = t.addmm_(_t(a, device), _t(b, device), beta=0.5, alpha=2.0)
    assert r is t and t._version > ver
    assert_close(t, 0.5 * c + 2.0 * (a.astype(np.float64) @ b.astype(np.float64)), rtol=1e-5, atol=1e-5)
    v = _t(c[:, 0].copy(), device)
    v.addmv_(_t(a, device), _t(b[:, 0].copy(), device))
    assert_close(v, c[:, 0] + a.astype(np.float64) @ b[:, 0], rtol=1e-5, atol=1e-5)
    v = _t(c[:, 0].copy(), device)  # torch.addmv_'s first argument is named input, as torch.addmv's
    assert tl.addmv_(input=v, mat=_t(a, device), vec=_t(b[:, 0].copy(), device)) is v
    assert_close(v, c[:, 0] + a.astype(np.float64) @ b[:, 0], rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        _t(c[0], device).addmm_(_t(a, device), _t(b, device))


def test_linear_shapes_and_errors(device):
    x, w, bias = _rand((2, 3, 5), seed=1), _rand((4, 5), seed=2), _rand((4,), seed=3)
    r = tl.linear(_t(x, device), _t(w, device))
    assert_close(r, x.astype(np.float64) @ w.T, rtol=1e-5, atol=1e-5)
    r = tl.linear(_t(x[0, 0], device), _t(w, device), _t(bias, device))  # 1-D input
    assert tuple(r.shape) == (4,)
    assert_close(r, x[0, 0].astype(np.float64) @ w.T + bias, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(6x5 and 6x4\)"):
        tl.linear(_t(x, device), _t(_rand((4, 6)), device))
    with pytest.raises(RuntimeError, match="linear: The size of tensor"):
        tl.linear(_t(x, device), _t(w, device), _t(_rand((3,)), device))


def test_linear_with_a_1d_weight_and_a_bias_as_pytorch(device):
    # PyTorch adds the bias inside addmm (which wants a 2-D weight) for a 2-D input and for a
    # contiguous input with a 1-D bias; other inputs go through matmul + add
    w, b1, b0 = tl.ones(3, device=device), tl.ones(1, device=device), tl.tensor(1.0, device=device)
    x2, x3 = tl.ones(2, 3, device=device), tl.ones(2, 2, 3, device=device)
    for x, b in ((x2, b1), (x2, b0), (x3, b1), (tl.ones(3, device=device), b1)):
        with pytest.raises(RuntimeError, match="mat2 must be a matrix, got 1-D tensor"):
            tl.linear(x, w, b)
    assert tl.linear(x2, w).tolist() == [3.0, 3.0]  # no bias: fine
    assert tl.linear(x3, w, b0).tolist() == [[4.0, 4.0], [4.0, 4.0]]  # a 0-d bias
    assert tl.linear(tl.ones(2, 3, 2, device=device).transpose(1, 2), w, b1).shape == (2, 2)  # not contiguous
    # the bias counts as 1-D when it squeezes to 1-D, and only when it is contiguous (torch 2.13)
    x4 = tl.ones(2, 1, 2, 3, device=device)
    for b in (tl.ones(1, 2, device=device), tl.ones(2, 1, 1, device=device)):
        with pytest.raises(RuntimeError, match="mat2 must be a matrix, got 1-D tensor"):
            tl.linear(x4, w, b)
    assert tl.linear(x4, w, tl.ones(2, 1, 2, device=device)).tolist() == [[[4.0, 4.0]], [[4.0, 4.0]]]
    b_strided = tl.tensor([1.0, 9.0, 2.0], device=device)[::2]  # (2,), stride 2
    assert tl.linear(x4, w, b_strided).tolist() == [[[4.0, 5.0]], [[4.0, 5.0]]]
    assert tl.linear(x4, w, tl.ones(1, 1, 4, device=device)[..., ::2]).tolist() == [[[4.0, 4.0]], [[4.0, 4.0]]]
    with pytest.raises(RuntimeError, match="both arguments to linear need to be at least 1D, but they are 2D and 0D"):
        tl.linear(x2, b0)


# ----------------------------------------------------------------------------------------------
# out=
# ----------------------------------------------------------------------------------------------


def test_out_argument(device):
    a, b = _rand((3, 4), seed=1), _rand((4, 5), seed=2)
    out = tl.empty((3, 5), device=device)
    assert tl.matmul(_t(a, device), _t(b, device), out=out) is out
    assert_close(out, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float32, but got float64 instead"):
        tl.mm(_t(a, device), _t(b, device), out=tl.empty((3, 5), dtype=tl.float64, device=device))
    wrong = tl.empty((2, 2), device=device)
    with pytest.warns(UserWarning, match="resized"):
        tl.mm(_t(a, device), _t(b, device), out=wrong)
    assert tuple(wrong.shape) == (3, 5)
    out1 = tl.empty((0,), device=device)
    tl.matmul(_t(a[0], device), _t(b, device), out=out1)  # 1-D @ 2-D writes a 1-D out
    assert_close(out1, a[0].astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    req = _t(a, device).requires_grad_()
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        tl.mm(req, _t(b, device), out=tl.empty((3, 5), device=device))


def test_out_aliasing_an_input(device):
    a = _rand((4, 4), seed=1)
    t = _t(a, device)
    tl.mm(t, t, out=t)  # the dispatcher goes through a temporary
    assert_close(t, a.astype(np.float64) @ a, rtol=1e-5, atol=1e-5)


# ----------------------------------------------------------------------------------------------
# tensordot, einsum
# ----------------------------------------------------------------------------------------------


def test_tensordot_broadcasts_a_contracted_dim_of_size_1(device):
    # PyTorch sums the other side over it (this raised "contracted dimensions need to match")
    a, b = _t(np.arange(3.0).reshape(1, 3), device), _t(np.arange(6.0).reshape(2, 3), device)
    expected = np.tensordot(np.arange(3.0).reshape(1, 3).repeat(2, 0), np.arange(6.0).reshape(2, 3), axes=([0], [0]))
    assert_close(tl.tensordot(a, b, dims=([0], [0])), expected, rtol=0, atol=0)
    assert_close(tl.tensordot(b, a, dims=([0], [0])), expected.T, rtol=0, atol=0)
    if device == "cpu":  # (integer mm: cpu only, as PyTorch)
        r = tl.tensordot(tl.arange(6).reshape(2, 3), tl.arange(3).reshape(1, 3), dims=([0], [0]))
        assert r.dtype is tl.int64 and r.tolist() == [[0, 3, 6], [0, 5, 10], [0, 7, 14]]
    ones = tl.ones(1, 1, 1, device=device), tl.ones(2, 1, 2, device=device)
    assert tl.tensordot(*ones, dims=([0, 1], [2, 0])).tolist() == [[4.0]]


def test_tensordot(device):
    a, b = _rand((3, 4, 5), seed=1), _rand((4, 5, 2), seed=2)
    r = tl.tensordot(_t(a, device), _t(b, device), dims=2)
    assert_close(r, np.tensordot(a.astype(np.float64), b, axes=2), rtol=1e-5, atol=1e-5)
    c = _rand((5, 3, 6), seed=3)
    r = tl.tensordot(_t(a, device), _t(c, device), dims=([0, 2], [1, 0]))
    assert_close(r, np.tensordot(a.astype(np.float64), c, axes=([0, 2], [1, 0])), rtol=1e-5, atol=1e-5)
    r = tl.tensordot(_t(a, device), _t(c, device), dims=[[2], [0]])
    assert_close(r, np.tensordot(a.astype(np.float64), c, axes=([2], [0])), rtol=1e-5, atol=1e-5)
    r = tl.tensordot(_t(a, device), _t(c, device), dims=0)
    assert tuple(r.shape) == (3, 4, 5, 5, 3, 6)
    out = tl.empty((3, 2), device=device)
    assert tl.tensordot(_t(a, device), _t(b, device), dims=2, out=out) is out
    assert_close(out, np.tensordot(a.astype(np.float64), b, axes=2), rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="tensordot expects dims >= 0, but got dims=-1"):
        tl.tensordot(_t(a, device), _t(b, device), dims=-1)
    with pytest.raises(RuntimeError, match="contracted dimensions need to match, but first has size 4 in dim 1 and "
                                           "second has size 5 in dim 0"):
        tl.tensordot(_t(a, device), _t(c, device), dims=([1], [0]))
    with pytest.raises(RuntimeError, match="both dimension lists should have same length"):
        tl.tensordot(_t(a, device), _t(c, device), dims=([1, 2], [0]))
    # dims of another type is PyTorch's RuntimeError, a sequence that is not a pair its ValueError
    # (both were TypeErrors); a one-element tensor is an int, as in PyTorch
    for bad in (1.0, np.int64(1), "1", None):
        with pytest.raises(RuntimeError, match="tensordot expects dims to be int or tuple"):
            tl.tensordot(_t(a, device), _t(b, device), dims=bad)
    for bad in (([2],), ([2], [0], [1]), []):
        with pytest.raises(ValueError, match="tensordot expects dims to be a pair of dim lists"):
            tl.tensordot(_t(a, device), _t(c, device), dims=bad)
    r = tl.tensordot(_t(a, device), _t(c, device), dims=tl.tensor([1], device=device))
    assert_close(r, np.tensordot(a.astype(np.float64), c, axes=1), rtol=1e-5, atol=1e-5)


EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("i,i", [(6,), (6,)]),  # implicit: scalar
    ("ij,j", [(3, 4), (4,)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ii", [(4, 4)]),  # trace
    ("ii->i", [(4, 4)]),  # diagonal
    ("iji->j", [(3, 2, 3)]),
    ("i,j", [(3,), (4,)]),  # outer, implicit
    ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,jk", [(2, 2, 3, 4), (4, 5)]),
    ("i...->...", [(3, 2, 4)]),
    ("ba,ca", [(3, 4), (5, 4)]),  # implicit output sorted: bc
    ("ij->", [(3, 4)]),
    ("ij,kl->ijkl", [(2, 3), (2, 2)]),
    ("ij,ij,ij->i", [(3, 4)] * 3),  # three operands left to right
    ("abc,cd,dbe->ae", [(2, 3, 4), (4, 5), (5, 3, 2)]),
    ("i j , j k -> i k", [(3, 4), (4, 5)]),  # spaces
]


@pytest.mark.parametrize("eq,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum(device, eq, shapes):
    ops = [_rand(s, seed=i) for i, s in enumerate(shapes)]
    r = tl.einsum(eq, *[_t(o, device) for o in ops])
    ref = np.einsum(eq.replace(" ", ""), *[o.astype(np.float64) for o in ops])
    assert tuple(r.shape) == ref.shape
    assert_close(r, ref, rtol=1e-5, atol=1e-5)


def test_einsum_forms_and_errors(device):
    a, b = _rand((3, 4), seed=1), _rand((4, 5), seed=2)
    ta, tb = _t(a, device), _t(b, device)
    ref = a.astype(np.float64) @ b
    assert_close(tl.einsum("ij,jk->ik", [ta, tb]), ref, rtol=1e-5, atol=1e-5)  # operands as a list
    assert_close(tl.einsum(ta, [0, 1], tb, [1, 2], [0, 2]), ref, rtol=1e-5, atol=1e-5)  # sublist format
    tc = _t(b.T.copy(), device)  # (5, 4): the ellipsis is a shared (kept) dim here
    assert_close(tl.einsum(ta, [0, Ellipsis], tc, [2, Ellipsis]),
                 np.einsum(a.astype(np.float64), [0, Ellipsis], b.T, [2, Ellipsis]), rtol=1e-5, atol=1e-5)
    with pytest.raises(RuntimeError, match="more operands were provided than specified"):
        tl.einsum("ij->i", ta, tb)
    with pytest.raises(RuntimeError, match="number of subscripts in the equation"):
        tl.einsum("ijk,jk->i", ta, tb)
    with pytest.raises(RuntimeError, match="subscript i is repeated for operand 0 but the sizes don't match, 3 != 4"):
        tl.einsum("ii->i", ta)
    with pytest.raises(RuntimeError, match="operands do not broadcast"):
        tl.einsum("ij,ij->ij", ta, tb)
    with pytest.raises(RuntimeError, match="output subscript z does not appear"):
        tl.einsum("ij,jk->iz", ta, tb)
    with pytest.raises(RuntimeError, match="subscripts must be in"):
        tl.einsum("i1,jk", ta, tb)
    with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
        tl.einsum("ij,jk", ta, tb.double())


# (equation, number of operands, PyTorch 2.13's message): every equation error is a RuntimeError,
# reported in the order PyTorch reads the equation, a bad character at its index in the whole string
EINSUM_ERRORS = [
    ("ij,jk->ik->", 2, "invalid subscript given at index 9 in the equation string, subscripts must be in [a-zA-Z]"),
    ("ij,jk>ik", 2, "invalid subscript given at index 5 in the equation string"),
    ("ij,jk - > ik", 2, "invalid subscript given at index 6 in the equation string"),  # "- >" is no arrow
    (" ij , jk -> i%k", 2, "invalid subscript given at index 13 in the equation string"),
    ("i%,jk", 1, "invalid subscript given at index 1 in the equation string"),  # before the operand count
    ("ij,k%", 1, "fewer operands were provided than specified in the equation"),  # the count before k%
    ("i j", 2, "more operands were provided than specified in the equation"),
    ("ij,jk->ii", 2, "output subscript i appears more than once in the output"),
    ("ij,jk->iz%", 2, "output subscript z does not appear in the equation for any input operand"),
    ("ijk,jk->i%", 2, "the number of subscripts in the equation (3) does not match the number of dimensions (2) for "
                      "operand 0 and no ellipsis was given"),
    ("ij...k,jk", 2, "the number of subscripts in the equation (3) is more than the number of dimensions (2) for "
                     "operand 0"),
    ("ij..,jk", 2, "found '.' for operand 0 that is not part of any ellipsis"),
    ("...i...,jk", 2, "found '.' for operand 0 for which an ellipsis was already found"),
    ("ij,jk->i.k", 2, "found '.' for output that is not part of any ellipsis (...)"),
    ("ij,jk->...ik...", 2, "found '.' for output but an ellipsis (...) was already found"),
]


@pytest.mark.parametrize("eq,n,msg", EINSUM_ERRORS, ids=[e for e, _, _ in EINSUM_ERRORS])
def test_einsum_equation_errors_as_pytorch(device, eq, n, msg):
    ops = [_t(_rand((2, 3), seed=1), device), _t(_rand((3, 4), seed=2), device)][:n]
    with pytest.raises(RuntimeError, match=re.escape(f"einsum(): {msg}")):
        tl.einsum(eq, *ops)


def test_einsum_usage_errors_are_value_errors(device):
    # PyTorch's Python wrapper raises ValueError when there is no operand (and for a bad sublist)
    msg = "must specify the equation string and at least one operand"
    with pytest.raises(ValueError, match=msg):
        tl.einsum()
    with pytest.raises(ValueError, match=msg):
        tl.einsum("ij")
    a = _t(_rand((2, 3), seed=1), device)
    with pytest.raises(ValueError, match=re.escape("not within the valid range [0, 52)")):
        tl.einsum(a, [0, 60])
    assert tuple(tl.einsum("ij,jk-> i k", a, _t(_rand((3, 4), seed=2), device)).shape) == (2, 4)


@needs_cuda
def test_einsum_contracts_with_one_batched_matmul(launches):
    a, b = _rand((2, 3, 4), seed=1), _rand((2, 4, 5), seed=2)
    tl.einsum("bij,bjk->bik", _t(a, "cuda"), _t(b, "cuda"))
    assert len(launches) == 1


# ----------------------------------------------------------------------------------------------
# autograd
# ----------------------------------------------------------------------------------------------


def test_mm_gradients_match_formulas(device):
    a, b, g = _rand((3, 4), np.float64, 1), _rand((4, 5), np.float64, 2), _rand((3, 5), np.float64, 3)
    ta, tb = _t(a, device).requires_grad_(), _t(b, device).requires_grad_()
    out = tl.mm(ta, tb)
    assert out.grad_fn.name() == "MmBackward0"
    out.backward(_t(g, device))
    assert_close(ta.grad, g @ b.T)
    assert_close(tb.grad, a.T @ g)


def test_matmul_broadcast_gradients(device):
    """Broadcast batch dims: each operand's gradient is summed back to its own shape."""
    a, b = _rand((2, 1, 3, 4), np.float64, 1), _rand((5, 4, 2), np.float64, 2)
    g = _rand((2, 5, 3, 2), np.float64, 3)
    ta, tb = _t(a, device).requires_grad_(), _t(b, device).requires_grad_()
    tl.matmul(ta, tb).backward(_t(g, device))
    ga = np.matmul(g, np.swapaxes(b, -1, -2)).sum(axis=1, keepdims=True)
    gb = np.matmul(np.swapaxes(a, -1, -2), g).sum(axis=0)
    assert_close(ta.grad, ga)
    assert_close(tb.grad, gb)


def test_matmul_vector_gradients(device):
    for sa, sb in [((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((2, 3, 4), (4,)), ((4,), (2, 4, 5))]:
        a, b = _rand(sa, np.float64, 1), _rand(sb, np.float64, 2)
        ta, tb = _t(a, device).requires_grad_(), _t(b, device).requires_grad_()
        out = tl.matmul(ta, tb)
        g = _rand(tuple(out.shape), np.float64, 3)
        out.backward(_t(g, device))
        # reference by the chain rule on the 2-D forms
        a2 = a[None] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        g2 = g.reshape(np.matmul(a2, b2).shape)
        ga = np.matmul(g2, np.swapaxes(b2, -1, -2))
        gb = np.matmul(np.swapaxes(a2, -1, -2), g2)
        ga = ga.reshape(-1, *a2.shape).sum(0) if ga.ndim > a2.ndim else ga
        gb = gb.reshape(-1, *b2.shape).sum(0) if gb.ndim > b2.ndim else gb
        assert_close(ta.grad, ga.reshape(a.shape))
        assert_close(tb.grad, gb.reshape(b.shape))


def test_linear_gradients(device):
    x, w, bias = _rand((2, 3, 5), np.float64, 1), _rand((4, 5), np.float64, 2), _rand((4,), np.float64, 3)
    g = _rand((2, 3, 4), np.float64, 4)
    tx, tw, tb = (_t(v, device).requires_grad_() for v in (x, w, bias))
    tl.linear(tx, tw, tb).backward(_t(g, device))
    assert_close(tx.grad, g @ w)
    assert_close(tw.grad, g.reshape(-1, 4).T @ x.reshape(-1, 5))
    assert_close(tb.grad, g.reshape(-1, 4).sum(0))


def test_products_save_an_operand_only_for_the_other_gradient(device):
    # As PyTorch: h @ w with a frozen w saves w alone, so h may be modified in place before backward
    # (a frozen layer followed by relu_ or +=); when both need gradients, modifying h still raises.
    products = {"matmul": lambda h, w: h @ w, "matmul (right)": lambda h, w: w @ h, "mm": tl.mm,
                "linear": tl.nn.functional.linear,
                "addmm": lambda h, w: tl.addmm(tl.ones(2, dtype=h.dtype, device=device), h, w),
                "einsum": lambda h, w: tl.einsum("ij,jk->ik", h, w), "mv": lambda h, w: tl.mv(h, w[0]),
                "bmm": lambda h, w: tl.bmm(h[None], w[None]), "dot": lambda h, w: tl.dot(h[0], w[0])}
    w = tl.tensor([[1.0, 0.0], [2.0, 1.0]], dtype=tl.float64, device=device)
    for name, f in products.items():
        p = tl.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=tl.float64, device=device, requires_grad=True)
        h = p * 1
        y = f(h, w)
        expected = tl.autograd.grad(f(p, w).sum(), p)[0]
        h.add_(1)
        y.sum().backward()
        assert_close(p.grad, to_numpy(expected)), name
        h = p * 1
        y = f(h, w.clone().requires_grad_())
        h.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_double_backward_through_mm():
    a = tl.tensor(_rand((3, 3), np.float64, 1), requires_grad=True)
    b = tl.tensor(_rand((3, 3), np.float64, 2), requires_grad=True)
    (ga,) = tl.autograd.grad(tl.mm(a, b), [a], grad_outputs=tl.ones((3, 3), dtype=tl.float64), create_graph=True)
    assert ga.requires_grad  # g @ b^T is itself a product of registered ops
    assert tl.autograd.gradcheck(lambda x, y: tl.mm(x, y), [a, b])


def test_warnings_are_not_raised_for_plain_use(device):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tl.matmul(_t(_rand((2, 3)), device), _t(_rand((3, 2)), device))


def test_empty_reduction_gradients(device):
    """K = 0: the product is zeros and so are both gradients (no ambiguous reshape of empty tensors)."""
    a = tl.zeros((2, 3, 0), device=device, requires_grad=True)
    b = tl.zeros((0, 4), device=device, requires_grad=True)
    out = tl.matmul(a, b)
    assert_close(out, np.zeros((2, 3, 4)))
    out.backward(tl.ones((2, 3, 4), device=device))
    assert tuple(a.grad.shape) == (2, 3, 0) and tuple(b.grad.shape) == (0, 4)


@needs_cuda
def test_launch_plans_are_reused_and_tell_alphas_apart(launches):
    # The launcher works out a geometry's launches once (gemm._launch_plan); what it reuses must
    # still follow each call's operands and scalars: here alpha 0.0 and -0.0 (equal, and equal in
    # hash, but not the same product's sign), then other offsets of the same geometry.
    base = _rand((8, 4)) ** 2 + 1  # positive: the sign of alpha * (a @ b) is alpha's
    a, b, bias = _t(base, "cuda"), _t(base.T.copy(), "cuda"), tl.zeros(8, 8, device="cuda")
    pos = tl.addmm(bias, a, b, beta=0, alpha=0.0)
    neg = tl.addmm(bias, a, b, beta=0, alpha=-0.0)
    assert not np.signbit(to_numpy(pos)).any() and np.signbit(to_numpy(neg)).all()
    assert launches[0][2] == launches[1][2] and launches[0][1][4:-2] == launches[1][1][4:-2]
    big = _rand((3, 8, 4), seed=1)
    x = _t(big, "cuda")
    for i in range(3):  # x[i] shares a geometry across i: one plan, three offsets
        np.testing.assert_allclose(to_numpy(tl.mm(x[i], b)), big[i] @ base.T, rtol=1e-5)


def test_einsum_mixed_dtypes_promote_where_nothing_is_summed_between_them():
    """PyTorch 2.15: a product of operands of different dtypes promotes; a contraction (bmm) refuses."""
    f64 = tl.ones(3, dtype=tl.float64)
    assert tl.einsum("i,j->ij", tl.ones(2), f64).dtype == tl.float64
    assert tl.einsum("ij,j->ij", tl.ones(2, 3), tl.ones(3, dtype=tl.int64)).dtype == tl.float32
    assert tl.einsum("i,j->", tl.ones(2), f64).item() == 6.0
    assert tl.einsum("i,i,i->i", tl.ones(2), tl.ones(2, dtype=tl.float64), tl.ones(2, dtype=tl.float16)).dtype \
        == tl.float64
    for eq, b in (("ij,ij->i", tl.ones(2, 3, dtype=tl.float64)), ("ij,jk", tl.ones(3, 2, dtype=tl.float64))):
        with pytest.raises(RuntimeError, match="expected scalar type Float but found Double"):
            tl.einsum(eq, tl.ones(2, 3), b)


def test_einsum_label_of_size_1_in_one_operand_is_no_contraction(device):
    """PyTorch 2.15: against a size-1 dim the other operand is summed over the label first, and the
    two then meet in a product (which promotes), not a bmm (which refuses mixed dtypes); a size-1
    label summed away is squeezed, not summed (no int64 promotion). These raised or gave int64."""
    def T(shape, dtype):
        return tl.ones(shape, dtype=dtype, device=device)

    got = tl.einsum("i,i->", T(1, tl.float32), tl.arange(3.0, dtype=tl.float64, device=device))
    assert got.dtype is tl.float64 and got.item() == 3.0
    got = tl.einsum("ij,jk->ik", T((2, 3), tl.float16), T((1, 2), tl.bfloat16))
    assert got.dtype is tl.float32 and got.tolist() == [[3.0, 3.0], [3.0, 3.0]]
    got = tl.einsum("i,i->", T(1, tl.bool), T(3, tl.bool))
    assert got.dtype is tl.int64 and got.item() == 3
    got = tl.einsum("i,ij->j", T(1, tl.uint8), T((2, 2), tl.uint8))
    assert got.dtype is tl.int64 and got.tolist() == [2, 2]
    got = tl.einsum("ij,k->ik", T((2, 1), tl.int32), T(3, tl.int32))
    assert got.dtype is tl.int32 and got.tolist() == [[1, 1, 1], [1, 1, 1]]
    assert tl.einsum("ij,k->ik", T((2, 1), tl.bool), T(3, tl.bool)).dtype is tl.bool
    assert tl.einsum("ij->i", T((2, 1), tl.int32)).dtype is tl.int64  # (a lone operand is summed)
    # values: a batch label broadcasts, a size-1 summed label against n sums the other side
    a = tl.arange(6.0, device=device).reshape(1, 2, 3)
    b = tl.arange(60.0, device=device).reshape(4, 3, 5)
    np.testing.assert_allclose(to_numpy(tl.einsum("bij,bjk->bik", a, b)), np.einsum("bij,bjk->bik", to_numpy(a)
                               .repeat(4, 0), to_numpy(b)))
    c = tl.arange(4.0, device=device).reshape(2, 1, 2)
    np.testing.assert_allclose(to_numpy(tl.einsum("ajk,bjk->ab", c, b[:, :, :2])),
                               np.einsum("ajk,bjk->ab", to_numpy(c).repeat(3, 1), to_numpy(b[:, :, :2])))


def test_cross_default_dim_chain_matmul_and_vecdot_out():
    with pytest.warns(UserWarning):
        assert tl.cross(tl.ones(2, 1, 3), tl.ones(1, 3, 3)).shape == (2, 3, 3)  # input's own first size-3 dim
    with pytest.warns(UserWarning, match="deprecated"):
        assert tl.chain_matmul(tl.ones(2, 3), tl.ones(3, 4), tl.ones(4, 1)).sum().item() == 24.0
    with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="Expected one or more matrices"):
        tl.chain_matmul()
    with pytest.raises(RuntimeError):
        tl.linalg.vecdot(tl.ones(3, dtype=tl.float64), tl.ones(3, dtype=tl.float64), out=tl.empty((), dtype=tl.int64))


def test_tensordot_refuses_a_pair_of_ints(device):
    # PyTorch wants two lists of dims: (3, 1) is a TypeError there (NumPy would contract 3 with 1)
    a, b = tl.ones((2, 3, 4, 5), device=device), tl.ones((4, 5, 6, 7), device=device)
    for dims, arg in (((3, 1), "dims_self"), (((3,), 1), "dims_other"), (tl.tensor([3, 0]), "dims_self")):
        with pytest.raises(TypeError, match=f"argument '{arg}' .* must be tuple of ints"):
            tl.tensordot(a, b, dims=dims)
    assert tl.tensordot(a, b, dims=([3], [1])).shape == (2, 3, 4, 4, 6, 7)
    assert tl.tensordot(a, b, dims=tl.tensor([[2, 3], [0, 1]])).shape == (2, 3, 6, 7)
