"""Specific tests of the reductions family: dtype rules, empty inputs, errors, hard numerics, index
semantics, result types, the split (two-pass) path, strided layouts, out=, and gradient rules.

The generic op x dtype x device coverage lives in tests/opinfo/reductions.py.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab import _replay
from tensorlab_kernels.reduction import common as kcommon
from tensorlab_kernels.reduction import reduce as kreduce
from tests.helpers import assert_close, to_numpy


def T(values, device="cpu", dtype=None):
    return tl.tensor(np.asarray(values), device=device, dtype=dtype)


def quiet(fn, *args, **kwargs):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# ----------------------------------------------------------------------------------------------
# dtype rules
# ----------------------------------------------------------------------------------------------


def test_integer_and_bool_sums_are_int64(device):
    x = T(np.array([[1, 2], [3, 4]], np.int32), device)
    assert x.sum().dtype is tl.int64 and x.sum().item() == 10
    assert x.prod(1).dtype is tl.int64 and x.prod(1).tolist() == [2, 12]
    b = T(np.array([True, False, True]), device)
    assert b.sum().dtype is tl.int64 and b.sum().item() == 2
    assert b.prod().dtype is tl.int64 and b.prod().item() == 0
    assert x.cumsum(0).dtype is tl.int64 and b.cumsum(0).tolist() == [1, 1, 2]
    assert x.sum(dtype=tl.float16).dtype is tl.float16
    assert x.cumsum(1, dtype=tl.int8).dtype is tl.int8


def test_sum_dtype_converts_before_reducing(device):
    x = T(np.array([1.7, 2.9, -0.5], np.float32), device)
    assert x.sum(dtype=tl.int32).item() == 1 + 2 + 0  # truncated first, as PyTorch
    h = T(np.full(8, 60000.0, np.float16), device)
    assert math.isinf(h.sum().item())  # fp16 result overflows
    assert h.sum(dtype=tl.float32).item() == 480000.0


def test_mean_of_integers_raises(device):
    x = T(np.arange(4), device)
    with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype.*Long"):
        x.mean()
    with pytest.raises(RuntimeError, match="Optional dtype must be either a floating point"):
        x.mean(dtype=tl.int32)
    m = x.mean(dtype=tl.float32)
    assert m.dtype is tl.float32 and m.item() == 1.5


def test_other_dtype_rules(device):
    i = T(np.array([[3, 1, 2]], np.int16), device)
    assert i.argmax().dtype is tl.int64 and i.argmax().item() == 0
    assert i.amax().dtype is tl.int16
    v, idx = i.max(1)
    assert v.dtype is tl.int16 and idx.dtype is tl.int64
    assert i.all().dtype is tl.bool and i.any(1).dtype is tl.bool
    u = T(np.array([0, 7], np.uint8), device)
    assert u.all().dtype is tl.uint8 and u.all().item() == 0 and u.any().item() == 1  # PyTorch keeps uint8
    assert i.count_nonzero().dtype is tl.int64
    lse = tl.logsumexp(i, 1)
    assert lse.dtype is tl.float32  # integers promote to the default float dtype
    np.testing.assert_allclose(to_numpy(lse), [np.log(np.exp([3, 1, 2]).sum())], rtol=1e-6)
    with pytest.raises(RuntimeError, match="std and var only support floating point"):
        i.var()
    with pytest.raises(RuntimeError, match="not implemented for 'Short'"):
        i.softmax(1)
    s = i.softmax(1, dtype=tl.float64)
    assert s.dtype is tl.float64
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Short"):
        i.norm()
    h = T(np.array([1.0, 2.0], np.float16), device)
    assert h.softmax(0, dtype=tl.float32).dtype is tl.float32
    assert h.norm(dtype=tl.float64).dtype is tl.float64


# ----------------------------------------------------------------------------------------------
# empty inputs
# ----------------------------------------------------------------------------------------------


def test_empty_reductions(device):
    e = tl.zeros((0,), device=device)
    assert e.sum().item() == 0.0 and e.prod().item() == 1.0
    assert math.isnan(e.mean().item())
    assert math.isnan(quiet(e.var).item()) and math.isnan(quiet(e.std).item())
    v, m = quiet(tl.var_mean, e)
    assert math.isnan(v.item()) and math.isnan(m.item())
    assert tl.logsumexp(e, 0).item() == -math.inf
    assert e.all().item() is True and e.any().item() is False
    assert e.count_nonzero().item() == 0
    assert e.norm().item() == 0.0 and e.norm(1).item() == 0.0
    assert e.cumsum(0).shape == (0,) and e.softmax(0).shape == (0,)
    rows = tl.zeros((0, 4), device=device)
    assert rows.amax(1).shape == (0,) and rows.max(1).values.shape == (0,)
    assert rows.sum(0).tolist() == [0.0] * 4
    assert rows.argmax(1).shape == (0,)


def test_empty_max_errors_name_the_op(device):
    e = tl.zeros((0, 3), device=device)
    with pytest.raises(RuntimeError, match=r"amax\(\): Expected reduction dim to be specified"):
        e.amax()
    # classes as PyTorch 2.13: IndexError for an empty reduced dim (and argmax/argmin without a dim)
    with pytest.raises(IndexError, match=r"amin\(\): Expected reduction dim 0 to have non-zero size\."):
        e.amin(0)
    with pytest.raises(IndexError, match=r"amax\(\): Expected reduction dim 0 to have non-zero size\."):
        e.amax((0, 1))
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 0 to have non-zero size\."):
        e.max(0)
    with pytest.raises(IndexError, match=r"min\(\): Expected reduction dim 0 to have non-zero size\."):
        e.min(0)
    with pytest.raises(RuntimeError, match=r"max\(\): Expected reduction dim to be specified"):
        e.max()
    with pytest.raises(IndexError, match=r"argmax\(\): Expected reduction dim to be specified"):
        e.argmax()
    with pytest.raises(IndexError, match=r"argmin\(\): Expected reduction dim 0 to have non-zero size"):
        e.argmin(0)
    with pytest.raises(RuntimeError, match="cannot compute the inf norm on an empty tensor"):
        e.norm(float("inf"))


def test_amax_amin_take_a_numpy_or_0d_tensor_dim(device):
    # amax(x, np.int64(1)) raised numpy's 'truth value of an empty array is ambiguous' (the dim was
    # compared with () to see whether one was given); PyTorch takes any integer there
    x = T(np.array([[1.0, 5.0, 2.0], [4.0, 0.0, 3.0]]), device)
    for dim in (np.int64(1), np.int32(-1), T(1)):
        assert x.amax(dim).tolist() == [5.0, 4.0] and tl.amin(x, dim=dim).tolist() == [1.0, 0.0]
    assert x.amax((np.int64(0),)).tolist() == [4.0, 5.0, 3.0]
    e = tl.zeros((0, 3), device=device)
    assert e.amax(np.int64(1)).shape == (0,)
    with pytest.raises(IndexError, match="Expected reduction dim 0 to have non-zero size"):
        e.amin(np.int64(0))


def test_norms_without_identity_over_an_empty_dim_raise(device):
    # p = inf and every p < 0 have no identity: torch 2.13 raises (its wording, checked with torch);
    # tensorlab gave inf for p = -1, -2, -0.5 and called p = -inf "the inf norm" (found by a
    # differential fuzzer against torch)
    e = tl.zeros((0, 3), device=device)
    for p, name in ((-1, "-1"), (-2.0, "-2"), (-0.5, "-0.5"), (-math.inf, "-inf"), ("-inf", "-inf"),
                    (math.inf, "inf"), (-1.23456789, "-1.23457")):
        with pytest.raises(RuntimeError, match=rf"^linalg.vector_norm cannot compute the {name} norm on an empty "
                                               "tensor because the operation does not have an identity$"):
            tl.norm(e, p=p)
        with pytest.raises(RuntimeError, match=rf"^linalg.vector_norm cannot compute the {name} norm on the "
                                               "dimension 0because this dimension is empty and the operation"):
            e.norm(p, 0)
        assert e.norm(p, 1).shape == (0,)  # no empty dim reduced: an empty result
    z = tl.zeros((0, 3, 0), device=device)
    with pytest.raises(RuntimeError, match="the -1 norm on the dimension -1because"):  # the first empty dim, as given
        z.norm(-1, (1, -1, 0), keepdim=True)
    with pytest.raises(RuntimeError, match="the -2 norm on an empty tensor"):
        z.norm(-2, [])
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        tl.zeros((0,), dtype=tl.int64, device=device).norm(-1)  # the dtype error first, as PyTorch
    assert e.norm(0).item() == 0.0 and e.norm(2, 0).tolist() == [0.0] * 3 and e.norm(0.5, 0).tolist() == [0.0] * 3


# ----------------------------------------------------------------------------------------------
# argument errors
# ----------------------------------------------------------------------------------------------


def test_argument_errors():
    x = tl.ones(2, 3)
    with pytest.raises(IndexError, match=r"sum\(\): Dimension out of range"):
        x.sum(2)
    with pytest.raises(IndexError):
        x.softmax(-3)
    with pytest.raises(RuntimeError, match="dim 1 appears multiple times"):
        x.sum((1, -1))
    for f in (lambda: x.var(1, unbiased=True, correction=0), lambda: tl.std(x, unbiased=False, correction=0),
              lambda: tl.var_mean(x, True, correction=1), lambda: tl.std_mean(x, dim=1, unbiased=True, correction=1)):
        with pytest.raises(TypeError, match="Cannot specify both unbiased and correction"):  # (torch 2.13's class)
            f()
    with pytest.raises(TypeError):
        x.prod((0, 1))
    with pytest.raises(TypeError):
        x.max((0, 1))
    with pytest.raises(RuntimeError, match="is not expandable to size"):
        x.sum_to_size(2, 2)
    with pytest.raises(RuntimeError, match="is not expandable to size"):
        x.sum_to_size(1, 1, 3)
    with pytest.raises(NotImplementedError, match="nuclear"):
        x.norm("nuc")
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        x.softmax()  # (torch.softmax and Tensor.softmax need a dim; nn.functional's warns and picks one)
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        tl.ones(1).var()


def test_sum_empty_dim_list_means_all_and_zero_d_dims():
    x = tl.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert x.sum([]).item() == 10.0
    assert x.sum(dim=()).item() == 10.0
    s = tl.tensor(5.0)
    assert s.sum(0).item() == 5.0 and s.sum(-1, keepdim=True).shape == ()
    v, i = s.max(0)
    assert v.item() == 5.0 and i.item() == 0
    assert s.softmax(0).item() == 1.0 and s.cumsum(0).item() == 5.0


def test_all_any_with_an_empty_dim_list_reduce_nothing(device):
    # torch 2.13: all/any with dim=() or [] test each element (the input's shape, keepdim or not),
    # while sum/mean/amax/... reduce everything; tensorlab reduced everything for all/any too
    # (found by a differential fuzzer against torch)
    x = T(np.array([[1.0, 0.0], [np.nan, -0.0]], np.float32), device)
    for dim in ((), []):
        for keepdim in (False, True):
            assert tl.all(x, dim=dim, keepdim=keepdim).tolist() == [[True, False], [True, False]]
            assert tl.any(x, dim, keepdim).tolist() == [[True, False], [True, False]]
        assert x.all(dim).dtype is tl.bool and x.t().any(dim).tolist() == [[True, True], [False, False]]
    u = T(np.array([3, 0, 1], np.uint8), device)
    assert u.all(()).dtype is tl.uint8 and u.all(()).tolist() == [1, 0, 1] and u.any([]).tolist() == [1, 0, 1]
    assert tl.zeros((0, 3), device=device).any(()).shape == (0, 3)
    assert tl.tensor(2.0, device=device).all(()).item() is True
    out = tl.empty((2, 2), dtype=tl.bool, device=device)
    assert tl.all(x, (), out=out) is out and out.tolist() == [[True, False], [True, False]]
    assert x.all().item() is False and x.any(None).item() is True and x.all((0, 1)).item() is False
    assert x.sum(()).isnan().item() and x.nan_to_num().sum([]).item() == 1.0  # sum keeps reducing everything


# ----------------------------------------------------------------------------------------------
# numerics
# ----------------------------------------------------------------------------------------------


def test_repeated_dims_of_a_0d_reduction_raise(device):
    s = tl.tensor(3.0, device=device)  # as on a tensor with dims (PyTorch)
    for fn in (lambda: s.sum((0, 0)), lambda: s.mean((0, -1)), lambda: s.amax((0, 0)), lambda: s.var((0, 0)),
               lambda: s.logsumexp((0, 0)), lambda: s.any((0, 0)), lambda: tl.count_nonzero(s, (0, 0))):
        with pytest.raises(RuntimeError, match="dim 0 appears multiple times in the list of dims"):
            fn()
    assert s.sum(0).item() == 3.0 and s.sum((0,)).item() == 3.0


def test_argmax_argmin_of_bool_raise(device):
    b = T([[True, False], [True, True]], device)
    for name in ("argmax", "argmin"):
        fn = getattr(tl, name)
        for x, kw in ((b, {}), (b, {"dim": 1}), (T(np.zeros(0, bool), device), {}), (b, {"dim": 5})):
            # (before other checks, as torch 2.15's NotImplementedError)
            with pytest.raises(NotImplementedError, match=rf"{name}\(\): does not support bool input"):
                fn(x, **kw)
    assert tl.max(b).item() is True  # max/min take bool


def test_softmax_of_integers(device):
    # PyTorch has no integer softmax kernel, but returns an empty integer input as it is
    for fn in (tl.softmax, tl.log_softmax, tl.nn.functional.softmin):
        r = fn(tl.zeros(0, 3, dtype=tl.int64, device=device), 1)
        assert r.shape == (0, 3) and r.dtype is tl.int64
        with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
            fn(tl.zeros(2, dtype=tl.int64, device=device), 0)
    assert tl.softmax(tl.zeros(0, dtype=tl.int64, device=device), 0, dtype=tl.int32).dtype is tl.int32
    assert tl.softmax(tl.zeros(0, dtype=tl.int64, device=device), 0, dtype=tl.float16).dtype is tl.float16
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.softmax(tl.zeros(2, dtype=tl.bool, device=device), 0)


def test_softmax_hard_inputs(device):
    x = T(np.array([[1000.0, 1000.0 + 1e-3], [-1000.0, 1000.0], [-np.inf, -np.inf], [-np.inf, 0.0]], np.float32),
          device)
    s = quiet(tl.softmax, x, 1)
    got = to_numpy(s)
    e = np.exp(np.float64(np.float32(1000.0 + 1e-3)) - 1000.0)  # the fp32 input's actual difference
    np.testing.assert_allclose(got[0], [1 / (1 + e), e / (1 + e)], rtol=1e-5)
    np.testing.assert_array_equal(got[1], [0.0, 1.0])
    assert np.isnan(got[2]).all()  # PyTorch: a row of -inf is nan
    np.testing.assert_array_equal(got[3], [0.0, 1.0])
    ls = to_numpy(quiet(tl.log_softmax, x, 1))
    np.testing.assert_allclose(ls[0], np.log([1 / (1 + e), e / (1 + e)]), rtol=1e-5)
    np.testing.assert_array_equal(ls[1], [-2000.0, 0.0])
    assert np.isnan(ls[2]).all()
    assert ls[3][0] == -np.inf and ls[3][1] == 0.0
    inf_row = quiet(tl.softmax, T(np.array([np.inf, 1.0], np.float32), device), 0)
    assert np.isnan(to_numpy(inf_row)).all()


def test_logsumexp_special_values(device):
    x = T(np.array([[-np.inf, -np.inf], [np.inf, 1.0], [1000.0, 1000.0], [-1000.0, -1000.0], [np.nan, 1.0]],
                   np.float32), device)
    got = to_numpy(quiet(tl.logsumexp, x, 1))
    assert got[0] == -np.inf and got[1] == np.inf
    np.testing.assert_allclose(got[2:4], [1000 + np.log(2), -1000 + np.log(2)], rtol=1e-6)
    assert np.isnan(got[4])


def test_fp16_sum_accumulates_in_fp32(device):
    # 0.1 in fp16 is 0.0999755859375; fp16 accumulation would stall at 256 (ulp 0.25 > 2 * 0.1)
    h = tl.full((10000,), 0.1, dtype=tl.float16, device=device)
    assert h.sum().item() == 1000.0  # 999.7558... rounded once to fp16
    np.testing.assert_allclose(h.mean().item(), 0.0999755859375, rtol=1e-3)
    np.testing.assert_allclose(to_numpy(h.reshape(100, 100).sum(0)), np.full(100, 10.0), rtol=1e-3)
    np.testing.assert_allclose(to_numpy(h.cumsum(0))[-1], 1000.0, rtol=1e-3)
    b = tl.full((4096,), 1.0, dtype=tl.bfloat16, device=device)
    assert b.sum().item() == 4096.0  # bf16 accumulation would stall at 256


def test_variance_is_stable_with_a_large_offset(device):
    rng = np.random.default_rng(0)
    base = 1e4 + rng.standard_normal(4096)
    x = T(base.astype(np.float32), device)
    exact = np.var(base.astype(np.float32).astype(np.float64), ddof=1)
    np.testing.assert_allclose(x.var().item(), exact, rtol=1e-3)  # sum(x^2) - n mean^2 would lose everything
    np.testing.assert_allclose(x.reshape(4, 1024).std(1).tolist(),
                               np.std(base.astype(np.float32).astype(np.float64).reshape(4, 1024), 1, ddof=1),
                               rtol=1e-3)


def test_var_correction_forms(device):
    x = T(np.array([[1.0, 2.0, 4.0], [0.0, 0.0, 3.0]]), device)
    a = to_numpy(x)
    np.testing.assert_allclose(to_numpy(x.var(1)), a.var(1, ddof=1))
    np.testing.assert_allclose(to_numpy(x.var(1, False)), a.var(1))  # legacy positional unbiased
    np.testing.assert_allclose(to_numpy(x.var(False)), a.var())  # var(input, unbiased)
    np.testing.assert_allclose(to_numpy(x.std(1, correction=0.5)), np.sqrt(((a - a.mean(1, keepdims=True)) ** 2)
                                                                            .sum(1) / 2.5))
    assert math.isnan(quiet(tl.var, T(np.array([3.0]), device)).item())  # N - 1 = 0: nan, as PyTorch


def test_norm_orders(device):
    a = np.array([[3.0, -4.0, 0.0], [1.0, 2.0, -2.0]])
    x = T(a, device)
    assert x.norm().item() == pytest.approx(np.sqrt((a ** 2).sum()))
    np.testing.assert_allclose(to_numpy(x.norm(0, 1)), [2.0, 3.0])
    np.testing.assert_allclose(to_numpy(x.norm(float("inf"), 1)), [4.0, 2.0])
    np.testing.assert_allclose(to_numpy(x.norm(-float("inf"), 1)), [0.0, 1.0])
    np.testing.assert_allclose(to_numpy(x.norm(3, 1)), (np.abs(a) ** 3).sum(1) ** (1 / 3), rtol=1e-12)
    np.testing.assert_allclose(to_numpy(x.norm(-1, 1)), [0.0, 1 / (1 + 0.5 + 0.5)], rtol=1e-12)  # 0 ** -1 = inf
    # p=None is the 2-norm and a numpy number is a number, as torch.norm takes them (here TypeError)
    np.testing.assert_allclose(to_numpy(tl.norm(x, None, 1)), np.sqrt((a ** 2).sum(1)), rtol=1e-12)
    assert x.norm(p=None).item() == pytest.approx(np.sqrt((a ** 2).sum()))
    np.testing.assert_allclose(to_numpy(x.norm(np.int64(1), 1)), [7.0, 5.0])
    np.testing.assert_allclose(to_numpy(x.norm(np.float32(3), 1)), (np.abs(a) ** 3).sum(1) ** (1 / 3), rtol=1e-12)


def test_norm_dtype_checks_as_pytorch(device):
    # torch.norm/linalg.vector_norm refuse an integer input even with a floating dtype= (tensorlab's
    # norm returned 2.2361 for norm([1, 2], dtype=float64)), and a dtype= the input narrows to; the
    # dtype errors come before a dim error
    i = T(np.array([1, 2]), device)
    for call in (lambda: tl.norm(i, dtype=tl.float64), lambda: tl.norm(i, 3, 0, dtype=tl.float32),
                 lambda: i.norm(float("inf"), dtype=tl.float64), lambda: tl.norm(i, 2, 5)):
        with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
            call()
    f = T(np.array([3.0, 4.0], np.float32), device)
    for call in (lambda: f.norm(dtype=tl.float16), lambda: tl.linalg.vector_norm(f, dtype=tl.bfloat16),
                 lambda: T(np.array([1.0], np.float16), device).norm(dtype=tl.bfloat16)):
        with pytest.raises(RuntimeError, match="should be convertible without narrowing to the specified dtype"):
            call()
    r = f.norm(dtype=tl.float64)
    assert r.dtype is tl.float64 and r.item() == 5.0
    assert T(np.array([3.0, 4.0], np.float16), device).norm(dtype=tl.float32).item() == 5.0


def test_mean_checks_the_dtype_before_the_dims(device):
    x = T(np.arange(6, dtype=np.uint8).reshape(2, 3), device)
    with pytest.raises(RuntimeError, match=r"mean\(\): could not infer output dtype.*Byte"):
        x.mean(3)  # PyTorch: the dtype error, not the IndexError of dim 3
    with pytest.raises(IndexError):
        x.mean(3, dtype=tl.float32)
    assert x.mean(1, dtype=tl.float32).tolist() == [1.0, 4.0]


@pytest.mark.parametrize("dtype", [tl.float32, tl.float16, tl.bfloat16])
def test_norm_of_one_element_is_its_magnitude(device, dtype):
    # PyTorch returns |x| for a norm over one element; (x ** p) ** (1/p) in float32 gave inf for
    # |x| = 3e38 (p = 2: x * x overflows) and 0 for 1e-30 (p = 2, 3: the power underflows)
    big = 3e38 if dtype is not tl.float16 else 6e4
    a = np.array([[-big, 1e-30 if dtype is not tl.float16 else 1e-7, 2.0]], dtype=np.float32)
    x = tl.tensor(a, device=device).to(dtype)
    want = np.abs(to_numpy(x.float()))[0]
    for p in (2, "fro", 3, 0.5, -2, 1, float("inf")):
        np.testing.assert_array_equal(to_numpy(x.norm(p, 0).float()), want)  # over a dim of size 1
    np.testing.assert_array_equal(to_numpy(x[0, :1].norm().float()), want[:1])  # the one element of a tensor
    np.testing.assert_array_equal(to_numpy(x.reshape(1, 1, 3).norm(dim=(0, 1), keepdim=True).float()),
                                  want.reshape(1, 1, 3))
    np.testing.assert_array_equal(to_numpy(x.norm(0, 0).float()), [1.0, 1.0, 1.0])
    assert x[0, 0].norm().float().item() == want[0]  # a 0-d tensor
    if dtype is not tl.float16:  # (float16 squares fit the float32 accumulator)
        assert x.norm(dim=1).float().item() == float("inf")  # several elements: squares overflow, as PyTorch
    assert x[:, 1:].norm(dim=1).float().item() == pytest.approx(2.0)


def test_norm_gradient_at_zero_for_p_between_1_and_2(device):
    # x |x|^(p-2) was 0 * inf = nan at a zero entry; PyTorch's sign(x) |x|^(p-1) gives 0 there
    a = np.array([[0.0, 0.5, -1.0], [2.0, 0.0, 1.0]])
    for p in (1.25, 1.5, 1.9, 3.0):
        x = T(a, device).requires_grad_()
        x.norm(p=p, dim=1).sum().backward()
        norms = (np.abs(a) ** p).sum(1, keepdims=True) ** (1 / p)
        expected = np.sign(a) * np.abs(a) ** (p - 1) / norms ** (p - 1)
        np.testing.assert_allclose(to_numpy(x.grad), expected, rtol=1e-12)
    z = T(np.zeros(3), device).requires_grad_()
    z.norm(p=1.5).backward()
    assert to_numpy(z.grad).tolist() == [0.0, 0.0, 0.0]


# ----------------------------------------------------------------------------------------------
# index semantics and result types
# ----------------------------------------------------------------------------------------------


def test_ties_and_nan_indices(device):
    x = T(np.array([[1.0, 5.0, 5.0, -1.0], [np.nan, 2.0, np.nan, 9.0], [-np.inf, -np.inf, -np.inf, -np.inf]]),
          device)
    assert x.argmax(1).tolist() == [1, 0, 0]
    assert x.argmin(1).tolist() == [3, 0, 0]
    r = x.max(1)
    assert r.indices.tolist() == [1, 0, 0]
    np.testing.assert_array_equal(to_numpy(r.values), [5.0, np.nan, -np.inf])
    assert x.argmax().item() == 4  # the first NaN of the flattened input
    assert to_numpy(x.amax(1))[1] != to_numpy(x.amax(1))[1]  # NaN propagates


def test_cumsum_cumprod_in_place(device):
    # PyTorch's cumsum_/cumprod_: the scan in self's dtype (int8 wraps, as torch 2.13's), the same object back
    x = tl.tensor([[1, 2, 3], [4, 5, 6]], dtype=tl.int32, device=device)
    v0 = x._version
    assert x.cumsum_(1) is x and x.dtype is tl.int32 and x._version > v0
    assert to_numpy(x).tolist() == [[1, 3, 6], [4, 9, 15]]
    assert to_numpy(x.cumprod_(0)).tolist() == [[1, 3, 6], [4, 27, 90]]
    assert to_numpy(tl.full((3,), 100, dtype=tl.int8, device=device).cumsum_(0)).tolist() == [100, -56, 44]
    assert to_numpy(tl.full((3,), 100, dtype=tl.int8, device=device).cumprod_(0)).tolist() == [100, 16, 64]
    f = tl.tensor([1.0, 2.0, 3.0], device=device)
    assert to_numpy(f.cumsum_(-1, dtype=tl.float32)).tolist() == [1.0, 3.0, 6.0]
    with pytest.raises(RuntimeError, match="Bad in-place call: input tensor dtype float and output tensor dtype "
                                           "double should match"):
        f.cumsum_(0, dtype=tl.float64)
    with pytest.raises(RuntimeError, match="input tensor dtype int and output tensor dtype long int should match"):
        tl.ones(2, dtype=tl.int32, device=device).cumprod_(0, dtype=tl.int64)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.ones(2, dtype=tl.bool, device=device).cumsum_(0)
    with pytest.raises(IndexError, match="Dimension out of range"):
        f.cumsum_(3)
    assert to_numpy(f).tolist() == [1.0, 3.0, 6.0]  # untouched by the errors
    leaf = tl.ones(2, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="cumprod_: a leaf Variable that requires grad"):
        leaf.cumprod_(0)
    # gradients on a non-leaf: cumprod's backward reads the old values (kept from a clone)
    a = tl.tensor([2.0, 3.0, 4.0], device=device, requires_grad=True)
    y = a * 1
    y.cumprod_(0)
    y.sum().backward()
    assert to_numpy(y).tolist() == [2.0, 6.0, 24.0]
    assert to_numpy(a.grad).tolist() == [16.0, 10.0, 6.0]  # 1 + a1 + a1 a2, a0 + a0 a2, a0 a1
    b = tl.tensor([2.0, 3.0, 4.0], device=device, requires_grad=True)
    z = b * 1
    z.cumsum_(0)
    (z * tl.tensor([1.0, 10.0, 100.0], device=device)).sum().backward()
    assert to_numpy(b.grad).tolist() == [111.0, 110.0, 100.0]


def test_cumsum_cumprod_out_dtype_and_bool(device):
    # PyTorch: out= without dtype= scans in out's dtype (the input is converted first), no bool scan
    x = tl.tensor([1.5, 2.5, -1.5], device=device)
    out = tl.empty(3, dtype=tl.int64, device=device)
    assert tl.cumsum(x, 0, out=out) is out and to_numpy(out).tolist() == [1, 3, 2]  # [1, 2, -1] summed
    assert to_numpy(tl.cumprod(x, 0, out=out)).tolist() == [1, 2, -2]
    assert to_numpy(tl.cumsum(x.half(), 0, out=tl.empty(3, device=device))).tolist() == [1.5, 4.0, 2.5]
    for op in (tl.cumsum, tl.cumprod):
        with pytest.raises(NotImplementedError, match=f'"{op.__name__}" not implemented for \'Bool\''):
            op(x, 0, dtype=tl.bool)
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            op(x, 0, out=tl.empty(3, dtype=tl.bool, device=device))
    assert to_numpy(tl.cumsum(tl.tensor([True, True], device=device), 0)).tolist() == [1, 2]  # bool input: int64


def test_cumsum_cumprod_dtype_must_be_outs(device):
    # PyTorch 2.13: with out=, a dtype= must be out's dtype (it was cast into out: cumsum(x, 0,
    # dtype=int32, out=<int64>) gave [1, 3, 2]); the dim is checked first; out is left unwritten
    x = tl.tensor([1.5, 2.5, -1.5], device=device)
    out = tl.full((3,), 7, dtype=tl.int64, device=device)
    for op in (tl.cumsum, tl.cumprod):
        for dt, name in ((tl.int32, "int32"), (tl.float64, "float64"), (tl.bool, "bool")):
            with pytest.raises(RuntimeError, match=f"Expected out tensor to have dtype {name}, but got int64"):
                op(x, 0, dtype=dt, out=out)
            with pytest.raises(IndexError, match="Dimension out of range"):
                op(x, 5, dtype=dt, out=out)
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype int64, but got bool"):
            op(x, 0, dtype=tl.int64, out=tl.empty(3, dtype=tl.bool, device=device))
        assert out.tolist() == [7, 7, 7]
    assert tl.cumsum(x, 0, dtype=tl.int64, out=out).tolist() == [1, 3, 2]


def test_cumsum_cumprod_bool_dtype_checks_dim_first(device):
    # PyTorch checks the dim before the dtype: a bad dim with dtype=bool is its IndexError (it was the
    # bool NotImplementedError)
    x = tl.tensor([[1.0, 2.0]], device=device)
    for op in (tl.cumsum, tl.cumprod):
        with pytest.raises(IndexError, match="Dimension out of range"):
            op(x, 2, dtype=tl.bool)
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            op(x, -2, dtype=tl.bool)


def test_cummax_cummin_indices(device):
    x = T(np.array([1.0, 3.0, 3.0, 2.0, 5.0, 5.0]), device)
    v, i = tl.cummax(x, 0)
    assert v.tolist() == [1, 3, 3, 3, 5, 5] and i.tolist() == [0, 1, 2, 2, 4, 5]  # the last of equal values
    v, i = tl.cummin(T(np.array([4.0, 2.0, 2.0, 3.0, 1.0]), device), 0)
    assert v.tolist() == [4, 2, 2, 2, 1] and i.tolist() == [0, 1, 2, 2, 4]
    v, i = tl.cummax(T(np.array([1.0, np.nan, 2.0, np.nan, 0.0]), device), 0)
    assert np.isnan(to_numpy(v)[1:]).all() and i.tolist() == [0, 1, 1, 3, 3]  # the latest NaN
    b = T(np.array([[False, True, False, True]]), device)
    v, i = b.cummax(1)
    assert v.tolist() == [[False, True, True, True]] and i.tolist() == [[0, 1, 1, 3]]


def test_namedtuple_results(device):
    x = T(np.array([[1.0, 4.0], [3.0, 2.0]]), device)
    for fn, name in ((tl.max, "max"), (tl.min, "min"), (tl.cummax, "cummax"), (tl.cummin, "cummin")):
        r = fn(x, 1)
        assert isinstance(r, tuple) and type(r).__name__ == name
        assert r._fields == ("values", "indices")
        values, indices = r
        assert values is r.values and indices is r.indices
    assert tl.max(x, 1, keepdim=True).values.shape == (2, 1)
    v, m = tl.var_mean(x, 1)
    assert v.shape == (2,) and m.tolist() == [2.5, 2.5]


def test_max_binary_form_delegates_to_maximum(device):
    a, b = T(np.array([1.0, 5.0]), device), T(np.array([3.0, 2.0]), device)
    assert tl.max(a, b).tolist() == [3.0, 5.0] and a.min(b).tolist() == [1.0, 2.0]
    # the overload by name, as PyTorch's max(input, other) / Tensor.min(other=)
    assert tl.max(a, other=b).tolist() == [3.0, 5.0] and a.min(other=b).tolist() == [1.0, 2.0]
    out = T(np.zeros(2), device)
    assert tl.min(a, other=b, out=out) is out and out.tolist() == [1.0, 2.0]
    for f in (lambda: tl.max(a, 0, other=b), lambda: tl.max(a, other=b, keepdim=True), lambda: tl.min(a, other=2.0)):
        with pytest.raises(TypeError):
            f()


def test_argmax_keepdim_without_dim(device):
    x = T(np.arange(24.0).reshape(2, 3, 4), device)
    r = x.argmax(keepdim=True)
    assert r.shape == (1, 1, 1) and r.item() == 23


# ----------------------------------------------------------------------------------------------
# kernel paths: split rows (two passes), strided layouts, > 6 dims, out=
# ----------------------------------------------------------------------------------------------

_CUDA = pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")


@_CUDA
@pytest.mark.parametrize("segments", [3, 7])
def test_split_rows_two_passes(monkeypatch, segments):
    monkeypatch.setattr(kcommon, "FORCE_SEGMENTS", segments)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((3, 1001)).astype(np.float32)
    a[1, 500] = 9.0
    a[2, 17] = a[2, 900] = 9.5  # a tie across segments: the first index wins
    x = T(a, "cuda")
    a64 = a.astype(np.float64)
    np.testing.assert_allclose(to_numpy(x.sum(1)), a64.sum(1), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(to_numpy(x.mean()), a64.mean(), rtol=1e-4, atol=1e-6)
    np.testing.assert_array_equal(to_numpy(x.amax(1)), a.max(1))
    np.testing.assert_allclose(to_numpy(tl.logsumexp(x, 1)), np.log(np.exp(a64).sum(1)), rtol=1e-5)
    np.testing.assert_allclose(to_numpy(x.norm(3, 1)), (np.abs(a64) ** 3).sum(1) ** (1 / 3), rtol=1e-5)
    np.testing.assert_allclose(to_numpy(x.var(1)), a64.var(1, ddof=1), rtol=1e-5)
    v, m = tl.std_mean(x)
    np.testing.assert_allclose([v.item(), m.item()], [a64.std(ddof=1), a64.mean()], rtol=1e-4, atol=1e-6)
    assert x.argmax(1).tolist() == [int(a[0].argmax()), 500, 17]
    assert x.argmax().item() == int(a.argmax())
    r = x.min(1)
    assert r.indices.tolist() == a.argmin(1).tolist()
    b = T(a > 0, "cuda")
    assert b.all(1).tolist() == [False] * 3 and b.any().item() is True
    assert b.count_nonzero(1).tolist() == (a > 0).sum(1).tolist()
    assert T(np.zeros((2, 1001), np.uint8), "cuda").any(1).tolist() == [0, 0]


@_CUDA
@pytest.mark.parametrize("segments", [None, 3, 7])
def test_full_reduction_in_one_pass(monkeypatch, segments):
    """FULL_ONE_PASS: each program writes its segment's partial and takes a ticket; the last one
    combines the partials. Every op of the reduce kernel gives the two-pass result bit for bit
    (the same partials, combined in the same order), also when the counter is reused launch after
    launch; on a GPU the launches repeat to give a missing memory fence a chance to show."""
    monkeypatch.setattr(kcommon, "FORCE_SEGMENTS", segments)
    if tl.cuda.is_interpreted():  # tiles of 256: segments are whole tiles, and the interpreter splits rows in two
        monkeypatch.setattr(kcommon, "TILE_BUDGET", 256)
    rng = np.random.default_rng(3)
    a = rng.standard_normal(3001 if segments else 20_001 if tl.cuda.is_interpreted() else 300_001).astype(np.float32)
    a[17] = 40.0
    cases = [("sum", {}), ("mean", {}), ("prod", {}), ("amax", {}), ("amin", {}), ("norm", {"p": 3.0}),
             ("norm", {"p": 2.0}), ("norm", {"p": math.inf}), ("logsumexp", {}), ("count_nonzero", {}),
             ("all", {}), ("any", {}), ("sum_f64", {})]
    x = T(a, "cuda")
    xi = T((a * 3).astype(np.int32), "cuda")
    xb = T(a > -3, "cuda")

    def run(op, kw):
        if op in ("all", "any"):
            return getattr(xb, op)()
        if op == "count_nonzero":
            return xi.count_nonzero()
        if op == "sum_f64":
            return x.sum(dtype=tl.float64)
        if op == "logsumexp":
            return tl.logsumexp(x, 0)
        if op == "prod":
            return (x * 1e-3 + 1).prod()
        return getattr(x, op)(**kw)

    two_pass = [to_numpy(run(op, kw)) for op, kw in cases]
    monkeypatch.setattr(kreduce, "FULL_ONE_PASS", True)
    calls = []
    real = kreduce.launch
    monkeypatch.setattr(kreduce, "launch", lambda k, *args, **meta: calls.append(k) or real(k, *args, **meta))
    repeats = 1 if tl.cuda.is_interpreted() else 20
    for _ in range(repeats):
        for (op, kw), want in zip(cases, two_pass):
            np.testing.assert_array_equal(to_numpy(run(op, kw)), want, err_msg=op)
    assert calls.count(kreduce._full_reduce_kernel) == len(calls) == len(cases) * repeats
    a64 = a.astype(np.float64)
    np.testing.assert_allclose(to_numpy(x.sum()), a64.sum(), rtol=1e-5)
    np.testing.assert_allclose(to_numpy(tl.logsumexp(x, 0)), np.log(np.exp(a64).sum()), rtol=1e-6)
    assert to_numpy(T(np.array([1.0, np.nan] * 2000, np.float32), "cuda").amax()).item() != 0  # NaN propagates
    assert np.isnan(to_numpy(T(np.array([1.0, np.nan] * 2000, np.float32), "cuda").amax()))
    assert to_numpy(T(np.full(5000, -np.inf, np.float32), "cuda").logsumexp(0)).item() == -np.inf


@_CUDA
@pytest.mark.parametrize("transpose", [False, True])
def test_rows_walked_in_several_tiles(monkeypatch, transpose):
    """The GPU walks long rows tile by tile (carries, running maxima, Chan merges); the interpreter's
    big tiles would hide a bug there, so cap the tile at 64 elements."""
    from tensorlab_kernels.reduction import softmax as ksoftmax

    monkeypatch.setattr(kcommon, "TILE_BUDGET", 64)
    monkeypatch.setattr(ksoftmax, "MAX_ONE_TILE", 64)
    monkeypatch.setattr(ksoftmax, "MAX_ONE_TILE_BACKWARD", 64)
    rng = np.random.default_rng(8)
    a = rng.standard_normal((4, 300))
    a[0, :150] = -np.inf  # the first tiles of a row see only -inf
    a[1] = -1000.0 + rng.standard_normal(300) * 1e-3  # exp(x) underflows: the online shift must handle it
    a[2, 100:] += 20.0  # the maximum grows in a later tile: the running sum is rescaled
    a[3, 7] = a[3, 250] = 50.0  # a tie in different tiles: argmax takes the first
    ref = a.T if transpose else a
    x = T(a.astype(np.float32), "cuda")
    x = x.t() if transpose else x
    dim = 0 if transpose else 1
    r32 = ref.astype(np.float32).astype(np.float64)
    finite = np.where(np.isinf(r32), 0.0, r32)
    np.testing.assert_allclose(to_numpy(x.sum(dim)), r32.sum(dim), rtol=1e-5)
    np.testing.assert_allclose(to_numpy(tl.logsumexp(x, dim)), np.log(np.exp(r32 - r32.max(dim, keepdims=True))
                                                                      .sum(dim)) + r32.max(dim), rtol=1e-6)
    np.testing.assert_array_equal(to_numpy(x.amax(dim)), ref.astype(np.float32).max(dim))
    assert x.argmax(dim).tolist() == r32.argmax(dim).tolist()
    fin = T(finite.astype(np.float32), "cuda")
    np.testing.assert_allclose(to_numpy(fin.var(dim)), finite.var(dim, ddof=1), rtol=1e-4)
    np.testing.assert_allclose(to_numpy(fin.norm(3, dim)), (np.abs(finite) ** 3).sum(dim) ** (1 / 3), rtol=1e-5)
    np.testing.assert_allclose(to_numpy((fin * 0.01).exp().prod(dim)), np.exp((finite * 0.01).sum(dim)), rtol=1e-4)
    e = np.exp(r32 - r32.max(dim, keepdims=True))
    np.testing.assert_allclose(to_numpy(x.softmax(dim)), e / e.sum(dim, keepdims=True), rtol=1e-5, atol=1e-8)
    ls = to_numpy(x.log_softmax(dim))
    expected = (r32 - r32.max(dim, keepdims=True)) - np.log(e.sum(dim, keepdims=True))
    np.testing.assert_allclose(np.where(np.isinf(expected), 0, ls), np.where(np.isinf(expected), 0, expected),
                               rtol=1e-5, atol=1e-4)
    assert (np.isinf(ls) == np.isinf(expected)).all()
    np.testing.assert_allclose(to_numpy(fin.cumsum(dim)), np.cumsum(finite.astype(np.float32), dim), rtol=1e-4,
                               atol=1e-4)
    v, i = fin.cummax(dim)
    np.testing.assert_array_equal(to_numpy(v), np.maximum.accumulate(finite.astype(np.float32), dim))
    w = rng.standard_normal(ref.shape)
    xs = fin.detach().requires_grad_()
    (xs.softmax(dim) * T(w.astype(np.float32), "cuda")).sum().backward()
    sm = np.exp(finite - finite.max(dim, keepdims=True))
    sm /= sm.sum(dim, keepdims=True)
    np.testing.assert_allclose(to_numpy(xs.grad), sm * (w - (w * sm).sum(dim, keepdims=True)), rtol=1e-4, atol=1e-6)


@_CUDA
def test_strided_layouts_read_through_strides():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 6, 10)).astype(np.float32)
    base = T(a, "cuda")
    views = {
        "transposed": (base.transpose(0, 2), np.swapaxes(a, 0, 2)),
        "permuted": (base.permute(1, 2, 0), np.transpose(a, (1, 2, 0))),
        "stepped": (base[:, ::2, 1::3], a[:, ::2, 1::3]),
        "expanded": (base[:, :1, :].expand(4, 5, 10), np.broadcast_to(a[:, :1, :], (4, 5, 10))),
    }
    for name, (v, ref) in views.items():
        assert not v.is_contiguous(), name
        r64 = ref.astype(np.float64)
        for dim in (0, 1, 2, (0, 2), None):
            ax = dim
            np.testing.assert_allclose(to_numpy(v.sum(dim)), r64.sum(axis=ax), rtol=1e-5, atol=1e-5,
                                       err_msg=f"{name} {dim}")
            np.testing.assert_allclose(to_numpy(v.var(dim)), r64.var(axis=ax, ddof=1), rtol=1e-4, atol=1e-6)
        for dim in (0, 1, 2):
            e = np.exp(r64 - r64.max(dim, keepdims=True))
            np.testing.assert_allclose(to_numpy(v.softmax(dim)), e / e.sum(dim, keepdims=True), rtol=1e-5,
                                       atol=1e-7, err_msg=f"{name} softmax {dim}")
            np.testing.assert_allclose(to_numpy(v.cumsum(dim)), r64.cumsum(dim), rtol=1e-5, atol=1e-5)
            assert v.argmax(dim).tolist() == ref.argmax(dim).tolist(), name
        assert v.argmax().item() == int(ref.argmax())


@pytest.mark.parametrize("device_name", ["cpu", pytest.param("cuda", marks=_CUDA)])
def test_more_than_six_unmergeable_dims(device_name):
    # 8 dims of size 2, every other dim reduced, and a permutation so no strides merge: the
    # launchers copy once to (rows, cols) rather than refuse
    rng = np.random.default_rng(3)
    a = rng.standard_normal((2,) * 8).astype(np.float32)
    order = (1, 0, 3, 2, 5, 4, 7, 6)
    x = T(a, device_name).permute(order)
    ref = np.transpose(a, order).astype(np.float64)
    dims = (0, 2, 4, 6)
    np.testing.assert_allclose(to_numpy(x.sum(dims)), ref.sum(dims), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(to_numpy(x.var(dims)), ref.var(dims, ddof=1), rtol=1e-4, atol=1e-6)
    kept = x.amax((1, 3, 5, 7), keepdim=True)
    np.testing.assert_array_equal(to_numpy(kept), np.transpose(a, order).max((1, 3, 5, 7), keepdims=True))


def test_out_arguments(device):
    x = T(np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], np.float32), device)
    out = tl.empty(2, device=device)
    r = tl.sum(x, 1, out=out)
    assert r is out and out.tolist() == [8.0, 10.0]
    v, i = tl.empty(3, device=device), tl.empty(3, dtype=tl.int64, device=device)
    res = tl.max(x, 0, out=(v, i))
    assert res.values is v and v.tolist() == [7.0, 5.0, 3.0] and i.tolist() == [1, 0, 1]
    c = tl.empty((2, 3), dtype=tl.float64, device=device)
    tl.cumsum(x, 1, out=c)
    assert c.tolist() == [[1.0, 6.0, 8.0], [7.0, 7.0, 10.0]]
    strided = tl.zeros((2, 2), device=device)[:, 0]
    tl.amax(x, 1, out=strided)
    assert strided.tolist() == [5.0, 7.0]


def test_out_of_another_dtype_is_refused_where_pytorch_refuses(device):
    # amax/amin, max/min/median over a dim, argmax/argmin, cummax/cummin, logcumsumexp and norm want
    # an out= of exactly their result dtype (torch 2.13 raises RuntimeError); the dispatcher cast
    # into any castable out (amax(float32 x, 1, out=<float64>) and argmax(x, 1, out=<int32>) were
    # written). all/any take a bool or uint8 out only; a uint8 input's result goes into a bool out.
    x = T(np.array([[0.5, 2.5, -1.5], [3.25, 0.0, 1.75]], np.float32), device)

    def e(dtype):
        return tl.empty(0, dtype=dtype, device=device)

    f32, f64, i32, i64 = tl.float32, tl.float64, tl.int32, tl.int64
    refused = [
        lambda: tl.amax(x, 1, out=e(f64)), lambda: tl.amin(x, 1, out=e(tl.float16)),
        lambda: tl.max(x, 1, out=(e(f64), e(i64))), lambda: tl.min(x, 1, out=(e(f32), e(i32))),
        lambda: tl.argmax(x, 1, out=e(i32)), lambda: tl.argmin(x, out=e(f32)),
        lambda: tl.cummax(x, 1, out=(e(f64), e(i64))), lambda: tl.cummin(x, 1, out=(e(f32), e(f32))),
        lambda: tl.logcumsumexp(x, 1, out=e(f64)), lambda: tl.norm(x, 2, 1, out=e(f64)),
        lambda: tl.linalg.vector_norm(x, 2, 1, dtype=f64, out=e(f32)), lambda: tl.median(x, 1, out=(e(f64), e(i64))),
    ]
    for call in refused:
        with pytest.raises(RuntimeError, match="Expected out tensor to have dtype"):
            call()
    for op in (tl.all, tl.any):
        with pytest.raises(RuntimeError, match="only supports bool tensor for result, got: Long"):
            op(x, 1, out=e(i64))
    v, i = e(f32), e(i64)
    assert tl.max(x, 1, out=(v, i)).values is v and v.tolist() == [2.5, 3.25] and i.tolist() == [1, 0]
    o = e(i64)
    assert tl.argmin(x, 1, out=o) is o and o.tolist() == [2, 1]
    o = e(f64)
    assert tl.norm(x, 1, 1, dtype=f64, out=o) is o and o.tolist() == [4.5, 5.0]
    u = T(np.array([[0, 2, 255], [3, 1, 1]], np.uint8), device)
    b = e(tl.bool)
    assert tl.all(u, 1, out=b) is b and b.tolist() == [False, True]
    assert tl.any(u, 1, out=e(tl.bool)).tolist() == [True, True]
    assert tl.all(u, 1, out=e(tl.uint8)).tolist() == [0, 1]
    m = tl.empty((), dtype=f64, device=device)  # the full max/min cast into a castable out, as torch
    assert tl.max(x, out=m) is m and m.item() == 3.25


def test_sum_out_dtype_as_pytorch(device):
    """torch 2.13: sum(x, dim, out=o) sums in o's dtype (the input converted first: 0.6 + 0.6 into
    int64 is 0, not int(1.2)); with dtype= the out tensor must have that dtype; the full sum and
    Tensor.sum take no out= (TypeError)."""
    x = T(np.array([[0.6, 0.7], [0.6, -0.7]], np.float32), device)
    for dt, expected in ((tl.int64, [0, 0]), (tl.int32, [0, 0]), (tl.bool, [True, True]),
                         (tl.float16, [1.2001953125, 0.0]), (tl.float64, [1.2000000476837158, 0.0])):
        o = tl.empty(2, dtype=dt, device=device)
        assert tl.sum(x, 0, out=o) is o and o.dtype is dt and o.tolist() == expected
    o = tl.empty(2, dtype=tl.int64, device=device)
    assert tl.sum(x, 0, dtype=tl.int64, out=o).tolist() == [0, 0]
    o = tl.full((2,), 7, dtype=tl.int64, device=device)
    for dt, name in ((tl.float64, "float64"), (tl.float32, "float32"), (tl.int32, "int32")):
        with pytest.raises(RuntimeError, match=f"Expected out tensor to have dtype {name}, but got int64 instead"):
            tl.sum(x, 0, dtype=dt, out=o)
    with pytest.raises(TypeError, match="out= needs a dim"):
        tl.sum(x, out=tl.empty((), dtype=tl.int64, device=device))
    with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
        x.sum(0, out=o)
    assert o.tolist() == [7, 7]  # nothing written by the refusals


def test_prod_out_dtype_as_pytorch(device):
    """torch 2.13: prod(x, dim, out=o) multiplies in o's dtype, the input converted first, as sum's
    out= (it raised "result type float32 can't be cast to the desired output type int64")."""
    x = T(np.array([[1.5, 2.5, -3.7], [0.5, 2.0, 3.0]], np.float32), device)
    for dt, expected in ((tl.int64, [-6, 0]), (tl.int32, [-6, 0]), (tl.uint8, [250, 0]), (tl.bool, [True, True]),
                         (tl.float64, [-13.875, 3.0])):
        o = tl.empty(2, dtype=dt, device=device)
        assert tl.prod(x, 1, out=o) is o and o.dtype is dt and o.tolist() == pytest.approx(expected)
    xi = T(np.array([[3, 4, 5], [200, 2, 1]], np.int64), device)  # 200 * 2 wraps in uint8: 144
    assert tl.prod(xi, 1, out=tl.empty(2, dtype=tl.uint8, device=device)).tolist() == [60, 144]
    o = tl.full((2,), 7, dtype=tl.int64, device=device)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype int32, but got int64 instead"):
        tl.prod(x, 1, dtype=tl.int32, out=o)
    assert o.tolist() == [7, 7]


def test_mean_and_logsumexp_compute_in_a_floating_out_dtype(device):
    """torch 2.13: mean(x, dim, out=o) is computed in o's floating dtype (a float32 [1e8, 1, 0, 0]
    into float64 is 25000000.25, not the float32 2.5e7 widened) and a dtype= must be o's; logsumexp
    sums into o, so float32 [100, 100] into float64 is 100 + log(2) to float64 precision."""
    # 1e8 + 1 is 1e8 in float32 whichever order the kernel adds in (the GPU's tree or a loop)
    x = T(np.array([[1e8, 1.0, 0.0, 0.0]], np.float32), device)
    o = tl.empty(1, dtype=tl.float64, device=device)
    assert tl.mean(x, 1, out=o) is o and o.item() == 25000000.25
    assert tl.mean(x, 1).item() == 25000000.0  # (float32 on its own)
    f = tl.full((1,), 7.0, device=device)
    with pytest.raises(RuntimeError, match="Expected out tensor to have dtype float64, but got float32 instead"):
        tl.mean(x, 1, dtype=tl.float64, out=f)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        tl.mean(x, 1, out=tl.empty(1, dtype=tl.int64, device=device))
    assert f.item() == 7.0
    y = T(np.array([[100.0, 100.0]], np.float32), device)
    assert tl.logsumexp(y, 1, out=o) is o and abs(o.item() - (100 + math.log(2))) < 1e-12
    assert abs(tl.logsumexp(y, 1).item() - (100 + math.log(2))) > 1e-7  # (float32 cannot hold it)


def test_integral_dtype_under_autograd_is_refused(device):
    """torch 2.13 refuses sum/prod/cumsum/cumprod/nansum with an integral dtype= of an input that
    requires grad ("Autograd not support dtype: Long"); tensorlab returned a result with no history.
    A floating dtype=, no_grad, and an input that needs no grad are fine; out= gets out='s refusal."""
    x = tl.tensor([[1.5, 2.5], [3.0, 4.0]], device=device, requires_grad=True)
    for call, name in ((lambda: x.sum(dtype=tl.int64), "Long"), (lambda: tl.sum(x, 1, dtype=tl.bool), "Bool"),
                       (lambda: x.prod(dtype=tl.int32), "Int"), (lambda: tl.prod(x, 0, dtype=tl.uint8), "Byte"),
                       (lambda: x.cumsum(0, dtype=tl.int16), "Short"),
                       (lambda: tl.cumprod(x, 1, dtype=tl.int64), "Long"),
                       (lambda: tl.nansum(x, dtype=tl.int64), "Long")):
        with pytest.raises(RuntimeError, match=f"^Autograd not support dtype: {name}$"):
            call()
    with tl.no_grad():
        assert x.sum(dtype=tl.int64).item() == 10
    assert x.detach().cumsum(0, dtype=tl.int64).tolist() == [[1, 2], [4, 6]]
    y = x.sum(dtype=tl.float64)
    y.backward()
    assert y.dtype is tl.float64 and x.grad.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
        tl.prod(x, 1, out=tl.empty(2, dtype=tl.int64, device=device))


@_CUDA
def test_deterministic_results():
    rng = np.random.default_rng(4)
    x = T(rng.standard_normal(50000).astype(np.float32), "cuda")
    first = x.sum().item()
    assert all(x.sum().item() == first for _ in range(3))


# ----------------------------------------------------------------------------------------------
# gradients
# ----------------------------------------------------------------------------------------------


def test_amax_gradient_is_shared_among_ties(device):
    x = T(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]]), device).requires_grad_()
    x.amax(1).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]]
    x.grad = None
    x.max().backward()
    assert x.grad.tolist() == [[0.0, 0.5, 0.5], [0.0, 0.0, 0.0]]


def test_nan_results_share_the_gradient_as_pytorch(device):
    # values from torch 2.13: max()/min() share a NaN result's gradient among the NaNs (amax keeps
    # its own rule: NaN everywhere); an inf-norm counts a NaN among the selected elements (sign(NaN)
    # = 0 then), so the other elements of a NaN row get 0, not NaN
    nan = math.nan
    for reduce in ("max", "min"):
        x = T(np.array([1.0, nan, 2.0, nan]), device).requires_grad_()
        getattr(x, reduce)().backward()
        assert x.grad.tolist() == [0.0, 0.5, 0.0, 0.5]
    x = T(np.array([1.0, nan, 2.0]), device).requires_grad_()
    x.amax().backward()
    assert np.isnan(to_numpy(x.grad)).all()
    x = T(np.array([[1.0, nan, -2.0], [3.0, -3.0, 1.0]]), device).requires_grad_()
    x.norm(p=math.inf, dim=1).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0, 0.0], [0.5, -0.5, 0.0]]


def test_max_dim_gradient_goes_to_the_index(device):
    x = T(np.array([[1.0, 3.0, 3.0], [2.0, 0.0, 1.0]]), device).requires_grad_()
    v, _ = x.max(1)
    (v * T(np.array([2.0, 5.0]), device)).sum().backward()
    assert x.grad.tolist() == [[0.0, 2.0, 0.0], [5.0, 0.0, 0.0]]


@pytest.mark.parametrize("values", [[2.0, 0.0, 3.0, 4.0], [0.0, 5.0, 0.0, 2.0], [1.5, -2.0, 3.0, 0.5]])
def test_prod_and_cumprod_gradients_with_zeros(values):
    x = tl.tensor(np.array(values).reshape(2, 2), dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: t.prod(), (x,))
    assert tl.autograd.gradcheck(lambda t: t.prod(1), (x,))
    flat = tl.tensor(np.array(values), dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: t.cumprod(0), (flat,))
    x.grad = None
    x.prod().backward()
    a = np.array(values).reshape(2, 2)
    expected = [[np.prod(np.delete(a.ravel(), k)) for k in (2 * r, 2 * r + 1)] for r in range(2)]
    np.testing.assert_allclose(to_numpy(x.grad), expected)


@pytest.mark.parametrize("values, second", [([2.0, 0.0, 3.0], [4, 6, 2]), ([2.0, 0.0, 0.0, 3.0], [1, 9, 8, 0]),
                                            ([0.0, 2.0, 3.0], [6, 4, 2])])
def test_cumprod_second_derivatives_with_zeros(values, second, device):
    """The gradient, differentiated again, depends on the zeros too (torch 2.15's values; a formula
    that swaps the zeros for constants gave [4, 0, 2] for the first)."""
    x = T(np.array(values), device).requires_grad_()
    (g,) = tl.autograd.grad(x.cumprod(0).sum(), x, create_graph=True)
    (gg,) = tl.autograd.grad(g.sum(), x)
    assert gg.tolist() == second
    flat = tl.tensor(np.array(values).reshape(-1, 1).repeat(2, 1), dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradgradcheck(lambda t: t.cumprod(0), (flat,))
    assert tl.autograd.gradgradcheck(lambda t: t.flip(0).cumprod(0).flip(0), (flat,))


def test_cumprod_second_derivatives_in_blocks_of_rows(monkeypatch):
    from tensorlab.ops import reductions

    x = tl.tensor([[2.0, 0.0, 0.0, 3.0], [1.0, 2.0, 0.0, 5.0]], dtype=tl.float64, requires_grad=True)
    results = []
    for elements in (1 << 24, 8):  # one table, then a block per row k (8 // 8 elements)
        monkeypatch.setattr(reductions, "PRODUCT_TABLE_ELEMENTS", elements)
        (g,) = tl.autograd.grad(x.cumprod(1).sum(), x, create_graph=True)
        results.append(tl.autograd.grad((g * g).sum(), x)[0].tolist())
    assert results[0] == results[1]


def test_cumprod_gradient_terms_with_a_zero_factor_are_zero(device):
    """A term of d y_j / d x_k with a zero factor is 0, also where a later inf or NaN makes y NaN
    (PyTorch's rule): elements after a row's first zero get 0, the first zero sums its terms up to
    the next zero, the elements before it their terms before it. [2, 0, 3, 0, 5] is exact: y =
    [2, 2a, 6a, 6ab, 30ab] for the zeros a, b gives 1, 2 + 6 = 8, then zeros."""
    nan = math.nan
    for values, want in (([2.0, 0.0, 3.0, 0.0, 5.0], [1.0, 8.0, 0.0, 0.0, 0.0]),
                         ([0.0, nan, 2.0], [nan, 0.0, 0.0]),
                         ([1.0, 0.0, nan], [1.0, nan, 0.0]),
                         ([0.0, 0.0, nan, -2.0], [1.0, 0.0, 0.0, 0.0]),
                         ([3.0, 0.0, 0.0, math.inf], [1.0, 3.0, 0.0, 0.0])):
        for rev in (False, True):
            x = T(np.array(values[::-1] if rev else values), device).requires_grad_()
            y = x.flip(0).cumprod(0).flip(0) if rev else x.cumprod(0)
            y.sum().backward()
            got = x.grad.tolist()[::-1] if rev else x.grad.tolist()
            np.testing.assert_array_equal(got, want, err_msg=f"{values} reversed={rev}")

def test_scan_gradient_over_one_element_is_the_upstream_gradient(device):
    # cumprod over a dim of size 1 (or a 0-d input) and logcumsumexp of a 0-d input are the identity:
    # PyTorch's gradient is g, also at inf and NaN; the general formulas gave NaN (cumprod: g * y / x
    # = inf / inf at x = inf)
    for shape, dim in (((), 0), ((1,), 0), ((3, 1), 1), ((1, 2), -2)):
        v = np.array([np.inf, -np.inf, np.nan, 0.0, 2.0][:max(1, math.prod(shape))]).reshape(shape)
        g = np.arange(1.0, 1.0 + v.size).reshape(shape)
        x = T(v, device).requires_grad_()
        tl.cumprod(x, dim).backward(T(g, device))
        assert x.grad.tolist() == g.tolist()
        if not shape:
            x = T(v, device).requires_grad_()
            tl.logcumsumexp(x, dim).backward(T(g, device))
            assert x.grad.tolist() == g.tolist()
    x = T(np.array([np.inf, 2.0]), device).requires_grad_()  # more than one element: the formula, as PyTorch
    tl.cumprod(x, 0).backward(T(np.array([1.0, 1.0]), device))
    assert math.isnan(x.grad.tolist()[0]) and x.grad.tolist()[1] == math.inf


def test_softmax_double_backward():
    rng = np.random.default_rng(5)
    for fn in (lambda t: tl.softmax(t, 1), lambda t: tl.log_softmax(t, 1)):
        x = tl.tensor(rng.standard_normal((2, 4)), dtype=tl.float64, requires_grad=True)
        w = tl.tensor(rng.standard_normal((2, 4)), dtype=tl.float64)

        def grad_of(t, fn=fn, w=w):
            with tl.enable_grad():  # gradcheck's finite differences run under no_grad
                (g,) = tl.autograd.grad((fn(t) * w).sum(), [t], create_graph=True)
            return g

        assert tl.autograd.gradcheck(grad_of, (x,))


def test_prod_double_backward():
    x = tl.tensor(np.array([1.5, -2.0, 3.0, 0.5]), dtype=tl.float64, requires_grad=True)

    def grad_of(t):
        with tl.enable_grad():
            return tl.autograd.grad(t.prod(), [t], create_graph=True)[0]

    assert tl.autograd.gradcheck(grad_of, (x,))


def test_prod_double_backward_with_zeros(device):
    # values from torch 2.13: prod's gradient with zeros goes through exclusive cumprods, whose own
    # backward was missing (NotImplementedError)
    x = tl.tensor([[0.0, 2, 3], [1, 0, 0], [1.5, 2, -1]], dtype=tl.float64, device=device, requires_grad=True)
    (g,) = tl.autograd.grad(x.prod(1).sum(), x, create_graph=True)
    assert g.tolist() == [[6.0, 0.0, 0.0], [0.0, 0.0, 0.0], [-2.0, -1.5, 3.0]]
    v = tl.tensor([[1.0, -1, 2], [0.5, 3, -2], [1, 1, 1]], dtype=tl.float64, device=device)
    (g2,) = tl.autograd.grad((g * v).sum(), x)
    assert g2.tolist() == [[1.0, 3.0, 2.0], [0.0, -2.0, 3.0], [1.0, 0.5, 3.5]]
    y = tl.tensor([2.0, 0.0, 3.0, 0.5], dtype=tl.float64, device=device, requires_grad=True)
    assert tl.autograd.gradgradcheck(lambda t: t.prod(), (y,))


def test_var_mean_and_std_gradients():
    rng = np.random.default_rng(6)
    x = tl.tensor(rng.standard_normal((3, 5)), dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: tl.var_mean(t, 1, correction=0), (x,))
    assert tl.autograd.gradcheck(lambda t: tl.std_mean(t, (0, 1)), (x,))
    const = tl.full((4,), 2.0, dtype=tl.float64, requires_grad=True)
    const.std().backward()
    assert const.grad.tolist() == [0.0] * 4  # std = 0: PyTorch masks the gradient to 0


@pytest.mark.parametrize("op", ["var_mean", "std_mean"])
def test_var_mean_gradient_of_the_mean_alone_ignores_the_var_term(op):
    """Only the mean used: its gradient is g / N even where the var's term is NaN (an inf input),
    as PyTorch's, which adds no term for the var's undefined gradient."""
    x = tl.tensor([[1.0, float("inf"), 2.0], [1.0, 2.0, 4.0]], dtype=tl.float64, requires_grad=True)
    _, m = getattr(tl, op)(x, 1)
    (g,) = tl.autograd.grad(m, x, tl.tensor([1.0, 2.0], dtype=tl.float64))
    np.testing.assert_allclose(g.numpy(), [[1 / 3] * 3, [2 / 3] * 3], rtol=1e-15)
    v, _ = getattr(tl, op)(x, 1)
    (g,) = tl.autograd.grad(v, x, tl.tensor([0.0, 1.0], dtype=tl.float64))  # a given zero still multiplies
    assert np.isnan(g.numpy()[0]).all()


def test_var_mean_std_mean_take_no_out():
    # PyTorch's var_mean/std_mean have no out= (TypeError); tensorlab accepted one and wrote it
    x = tl.tensor([1.0, 2.0, 4.0])
    outs = (tl.zeros(()), tl.zeros(()))
    for op in (tl.var_mean, tl.std_mean):
        with pytest.raises(TypeError, match="unexpected keyword argument 'out'"):
            op(x, 0, out=outs)
    assert [o.item() for o in outs] == [0.0, 0.0]


def test_reduction_signatures_and_out_refusals_as_pytorch(device):
    # torch 2.13: torch.softmax/log_softmax/logsumexp and their methods need a dim (TypeError; only
    # nn.functional's softmax family picks one, with a warning); mean of an integer input raises even
    # with a floating out=; prod over everything has no out=; argmax's tuple dim is a TypeError before
    # its bool refusal. tensorlab computed each of these (or raised RuntimeError for the last).
    x = T(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32), device)
    for call in (lambda: tl.softmax(x), lambda: x.log_softmax(), lambda: tl.logsumexp(x), lambda: x.logsumexp(None),
                 lambda: tl.softmax(x, None), lambda: tl.prod(x, out=tl.empty((), device=device)),
                 lambda: tl.argmax(x > 2, dim=(0,))):
        with pytest.raises(TypeError):
            call()
    o = tl.full((2,), 7.0, dtype=tl.float64, device=device)
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        tl.mean(x.long(), 1, out=o)
    assert o.tolist() == [7.0, 7.0]  # nothing written
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin"):
        assert tl.nn.functional.softmin(x).shape == (2, 2)
    assert tl.prod(x, 1, out=o).tolist() == [2.0, 12.0]
    assert tl.mean(x.long(), 1, dtype=tl.float32).tolist() == [1.5, 3.5]


def test_var_and_var_mean_save_only_their_input(device):
    # PyTorch's var and var_mean save the input alone (the backward recomputes the mean): their
    # results may be modified in place (here they were saved and backward raised); std divides by
    # its result, which stays saved.
    xs = np.array([[1.0, 2.0, 4.0], [0.0, 3.0, 9.0]])
    expected = 2 * (xs - xs.mean(1, keepdims=True)) / 2  # d var / dx with correction 1, n = 3
    for f in (lambda x: x.var(1), lambda x: tl.var_mean(x, 1)[0], lambda x: tl.var(x, 1, keepdim=True)):
        x = T(xs, device).requires_grad_()
        v = f(x)
        v.add_(1)
        v.sum().backward()
        assert_close(x.grad, expected)
    x = T(xs, device).requires_grad_()
    v, m = tl.var_mean(x, 1)
    m.mul_(2)  # the mean's gradient needs nothing saved
    (v + m).sum().backward()
    assert_close(x.grad, expected + 2 / 3)
    a = T(xs, device).requires_grad_() * 1
    v = a.var(1)
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        v.sum().backward()
    s = T(xs, device).requires_grad_().std(1)
    s.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        s.sum().backward()


def test_sum_to_size_gradient_is_expand(device):
    x = T(np.ones((2, 3)), device).requires_grad_()
    y = x.sum_to_size(1, 3)
    y.backward(T(np.array([[1.0, 2.0, 3.0]]), device))
    assert x.grad.tolist() == [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    assert x.sum_to_size(2, 3) is x


def test_softmax_config_keeps_long_rows_in_one_tile_forward_only():
    """Forward rows up to 32768 elements are one tile in registers (32 warps, as Liger-Kernel and
    Triton's fused-softmax tutorial); the backward holds two tiles (g and y) and loops past 16384.
    The limits are passed explicitly, so this holds with or without the interpreter."""
    import os
    import subprocess
    import sys

    from tensorlab_kernels.reduction import softmax as ksoftmax

    fwd, bwd = 32768, 16384  # the GPU's limits (the interpreter's are bigger)
    cfg = ksoftmax.pick_config(512, 32768, 32768, 1, fwd)
    assert cfg == {"BLOCK_M": 1, "BLOCK_N": 32768, "ONE_TILE": True, "num_warps": 32}
    one_row = ksoftmax.pick_config(1, 16384, 16384, 1, fwd)  # one row: BLOCK_M is 1 in or out of the interpreter
    assert one_row == {"BLOCK_M": 1, "BLOCK_N": 16384, "ONE_TILE": True, "num_warps": 16}
    assert not ksoftmax.pick_config(512, 32769, 32769, 1, fwd)["ONE_TILE"]  # pads to 65536: looped
    back = ksoftmax.pick_config(512, 32768, 32768, 1, bwd)
    assert not back["ONE_TILE"] and back["BLOCK_N"] < 32768
    assert ksoftmax.pick_config(512, 16384, 16384, 1, bwd)["ONE_TILE"]
    # the module's GPU limits, as the launchers pick them on a GPU (TENSORLAB_GPU_CONFIGS=1)
    env = dict(os.environ, TENSORLAB_GPU_CONFIGS="1")
    code = "from tensorlab_kernels.reduction import softmax as s; print(s.MAX_ONE_TILE, s.MAX_ONE_TILE_BACKWARD)"
    got = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert got.stdout.split() == [str(fwd), str(bwd)]


def test_cuda_softmax_backward_kernel_matches_cpu():
    if not tl.cuda.is_available():
        pytest.skip("no cuda device")
    rng = np.random.default_rng(7)
    a, w = rng.standard_normal((3, 33)), rng.standard_normal((3, 33))
    grads = {}
    for dev in ("cpu", "cuda"):
        for log in (False, True):
            x = tl.tensor(a.astype(np.float32), device=dev, requires_grad=True)
            y = tl.log_softmax(x, 1) if log else tl.softmax(x, 1)
            (y * tl.tensor(w.astype(np.float32), device=dev)).sum().backward()
            grads[dev, log] = to_numpy(x.grad)
    for log in (False, True):
        assert_close(tl.tensor(grads["cuda", log]), grads["cpu", log], rtol=1e-5, atol=1e-6)


# ----------------------------------------------------------------------------------------------
# the kernels compile for a real GPU (sm_90) with this Triton, without needing one
# ----------------------------------------------------------------------------------------------

_COMPILE_SCRIPT = r'''
import os, sys
os.environ.pop("TRITON_INTERPRET", None)
import triton, triton.language as tl
from triton.compiler import ASTSource
from triton.backends.compiler import GPUTarget
from tensorlab_kernels.reduction import argreduce as A, reduce as R, scan as C, softmax as S, var as V

def build(kernel, ptrs, consts, ints64=()):
    names = kernel.arg_names
    sig = {n: "constexpr" if n in consts else "*" + ptrs[n] if n in ptrs else "i64" if n in ints64 else "i32"
           for n in names}
    src = ASTSource(kernel, sig, constexprs={(names.index(k),): v for k, v in consts.items()})
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})

f32, i64 = tl.float32, tl.int64
rb = dict(CONVERT=True, COMPUTE=tl.bfloat16, KEPT_NDIM=3, RED_NDIM=2, OUT_LINEAR=False, INT64=True, BLOCK_M=4,
          BLOCK_N=64)
for pre, comb, post, ident in ((0, 0, 1, 0), (3, 0, 3, 0), (0, 2, 0, float("-inf")), (4, 3, 0, 1), (0, 4, 0, 0)):
    build(R._reduce_kernel, {"out_ptr": "fp16", "in_ptr": "fp64"},
          dict(rb, PRE=pre, COMBINE=comb, POST=post, IDENT=ident, ACC=f32), ints64=("p_bits",))
build(R._reduce_kernel, {"out_ptr": "i1", "in_ptr": "i8"},
      dict(rb, CONVERT=False, PRE=0, COMBINE=1, POST=0, IDENT=1, ACC=i64))
for comb, ident in ((0, 0), (1, 1), (3, float("inf")), (4, 0)):
    build(R._full_reduce_kernel, {"partial_ptr": "fp32", "out_ptr": "bf16", "counter_ptr": "i32", "in_ptr": "bf16"},
          dict(PRE=0, COMBINE=comb, POST=1, IDENT=ident, CONVERT=False, COMPUTE=f32, ACC=f32, RED_NDIM=1,
               INT64=True, BLOCK_N=1024, SEG_BLOCK=2048), ints64=("p_bits",))
for stage2 in (False, True):
    build(A._argreduce_kernel, {"val_ptr": "bf16", "idx_ptr": "i64", "in_ptr": "fp32", "in_idx_ptr": "i64"},
          dict(IS_MAX=stage2, HAS_VALUES=True, HAS_IN_IDX=stage2, ACC=f32, KEPT_NDIM=2, RED_NDIM=1, INT64=True,
               BLOCK_M=4, BLOCK_N=64))
    build(V._var_kernel, {"var_ptr": "fp16", "mean_ptr": "fp16", "in_ptr": "fp32", "in_m2_ptr": "fp32"},
          dict(PARTIALS=stage2, FINAL=True, STD=True, HAS_MEAN=True, ACC=tl.float64, KEPT_NDIM=1, RED_NDIM=2,
               INT64=False, BLOCK_M=4, BLOCK_N=64), ints64=("divisor_bits",))
    build(S._softmax_kernel, {"out_ptr": "bf16", "in_ptr": "fp64"},
          dict(LOG=stage2, CONVERT=True, COMPUTE=tl.float32, ACC=f32, KEPT_NDIM=2, ONE_TILE=stage2, INT64=False,
               BLOCK_M=2, BLOCK_N=128))
    build(S._softmax_backward_kernel, {"gin_ptr": "fp16", "g_ptr": "fp16", "y_ptr": "fp16"},
          dict(LOG=stage2, ACC=f32, KEPT_NDIM=1, ONE_TILE=not stage2, INT64=True, BLOCK_M=2, BLOCK_N=128))
for op, ident, acc, t in ((0, 0, f32, "fp16"), (1, 1, i64, "i32"), (2, float("-inf"), f32, "fp32"),
                          (3, 2**63 - 1, i64, "i1")):
    build(C._scan_kernel, {"out_ptr": t if op >= 2 else ("fp32" if op == 0 else "i64"), "idx_ptr": "i64",
                           "in_ptr": t},
          dict(OP=op, IDENT=ident, EXCLUSIVE=op == 1, CONVERT=False, COMPUTE=f32, ACC=acc, KEPT_NDIM=2,
               INT64=False, BLOCK_M=4, BLOCK_N=64))
print("compiled")
'''


@pytest.mark.slow
def test_kernels_compile_for_sm90():
    """The interpreter runs the kernels' Python; this compiles them through Triton's real pipeline
    (TTIR -> TTGIR -> LLVM -> PTX -> cubin for sm_90), which needs no GPU and catches what the
    interpreter accepts but the compiler does not."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    ptxas = Path(__import__("triton").__file__).parent / "backends" / "nvidia" / "bin" / "ptxas"
    if not ptxas.exists():
        pytest.skip("this Triton has no bundled ptxas")
    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-c", _COMPILE_SCRIPT], capture_output=True, text=True, env=env,
                          cwd=root, timeout=900)
    assert proc.returncode == 0 and "compiled" in proc.stdout, proc.stderr[-4000:]


def test_prod_gpu_fold_matches_numpy(monkeypatch):
    """On a GPU ``prod`` folds its tile with ``tl.reduce`` (the interpreter uses pairwise halving):
    run that GPU path in the interpreter too, through odd widths, several rows, ints and NaN."""
    if not tl.cuda.is_available():
        pytest.skip("no cuda device (real or interpreted)")
    from tensorlab_kernels._triton import tl as triton_language

    monkeypatch.setattr(kcommon, "PROD_BY_HALVING", triton_language.constexpr(False))
    rng = np.random.default_rng(11)
    x = rng.uniform(0.8, 1.25, (6, 37)).astype(np.float32)
    assert_close(T(x, "cuda").prod(1), x.prod(1), rtol=1e-5, atol=0)
    assert_close(T(x, "cuda").prod(0), x.prod(0), rtol=1e-5, atol=0)
    ints = rng.integers(-3, 4, (4, 9)).astype(np.int64)
    ints[ints == 0] = 1
    assert T(ints, "cuda").prod(1).tolist() == ints.prod(1).tolist()
    x[2, 5] = np.nan
    got = T(x, "cuda").prod(1).cpu().numpy()
    assert np.isnan(got[2]) and np.isfinite(np.delete(got, 2)).all()


@_CUDA
def test_reused_launch_plans_follow_each_call(monkeypatch):
    # The reduce launcher works out a geometry's launches once (reduce._reduce_plan); what it
    # reuses must follow each call's arrays and settings: row slices of one geometry at other
    # offsets, another op or p on the same geometry, and a forced split of the same geometry.
    a = np.random.default_rng(2).standard_normal((4, 3, 50)).astype(np.float32)
    x = T(a, "cuda")
    for i in range(4):
        np.testing.assert_allclose(to_numpy(x[i].sum(1)), a[i].astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(to_numpy(x[i].amax(1)), a[i].max(1))
    np.testing.assert_allclose(to_numpy(x[0].norm(1, 1)), np.abs(a[0]).sum(1), rtol=1e-5)
    np.testing.assert_allclose(to_numpy(x[0].norm(3, 1)), (np.abs(a[0].astype(np.float64)) ** 3).sum(1) ** (1 / 3),
                               rtol=1e-5)
    calls = []
    real = kreduce.launch
    monkeypatch.setattr(kreduce, "launch", lambda *args, **meta: calls.append(args[1]) or real(*args, **meta))
    x[0].sum(1)
    monkeypatch.setattr(kcommon, "FORCE_SEGMENTS", 3)
    monkeypatch.setattr(kcommon, "TILE_BUDGET", 16)  # 16-column tiles: 3 segments of 17 round up to 2 of 32
    _replay.plans.clear()  # on a GPU the first call's launch was recorded, and the knobs are read when recording
    np.testing.assert_allclose(to_numpy(x[0].sum(1)), a[0].astype(np.float64).sum(1), rtol=1e-5, atol=1e-5)
    assert [grid[1] for grid in calls] == [1, 2, 1]  # one pass, then the forced split's two


@pytest.mark.parametrize("split", ["one_pass", "tiles", "segments"])
def test_var_mean_of_rows_with_infinities(device, monkeypatch, split):
    # The mean of var_mean/std_mean is the plain mean (what x.mean() and PyTorch give): an inf in a
    # row makes it +-inf (nan for both signs), while the variance is nan. The corrected two-pass
    # term of a tile and Chan's merge of tiles or segments must not turn an infinite mean into nan.
    if split == "tiles":
        monkeypatch.setattr(kcommon, "TILE_BUDGET", 64)  # rows walked in tiles of 64 (Chan merges)
    elif split == "segments":
        monkeypatch.setattr(kcommon, "FORCE_SEGMENTS", 3)  # partial (mean, M2) per segment, then merged
    inf = np.inf
    a = np.random.default_rng(5).standard_normal((6, 300)).astype(np.float32)
    a[0, 299] = -inf  # in the last tile / segment only
    a[1, 0] = inf  # the first element (the shift K falls back to 0)
    a[2, 10], a[2, 150] = -inf, inf
    a[3, 5] = a[3, 250] = inf
    a[4] = -inf
    x = T(a, device)
    want_mean = quiet(np.mean, a.astype(np.float64), 1)
    for fn, correction in ((tl.var_mean, 1), (tl.std_mean, 0)):
        v, m = fn(x, 1, correction=correction)
        got_v, got_m = to_numpy(v), to_numpy(m)
        np.testing.assert_array_equal(got_m[:5], want_mean[:5])  # -inf, inf, nan, inf, -inf
        assert np.isnan(got_v[:5]).all()
        np.testing.assert_allclose(got_m[5], want_mean[5], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_v[5], quiet(np.var, a[5].astype(np.float64), ddof=correction)
                                   ** (0.5 if fn is tl.std_mean else 1), rtol=1e-5)
    small = T([[3.0, 4.0, -inf]], device)
    v, m = tl.var_mean(small, 1)
    assert m.tolist() == [-inf] and math.isnan(v.item())
    assert tl.var_mean(x[1:2])[1].item() == inf  # a full reduction (split across segments on a GPU)


@pytest.mark.parametrize("op", ["any", "all", "count_nonzero", "norm0"])
def test_bf16_signed_zero_is_zero_in_nonzero_reductions(device, op):
    # -0.0 == 0: any/all/count_nonzero/norm(p=0) compare values, not bits (Triton's interpreter
    # compared a bf16's raw bits, and norm(p=0) of bf16 failed to convert the comparison's result)
    for dtype in (tl.bfloat16, tl.float16):
        x = T(np.array([[-0.0, 0.0, 1.0], [-0.0, -0.0, 0.0]], np.float32), device, dtype)
        if op == "any":
            assert x.any(1).tolist() == [True, False] and x[1].any().item() is False
        elif op == "all":
            assert x.all(1).tolist() == [False, False] and x[:, 2].all().item() is False
            assert T([-2.0, -0.5], device, dtype).all().item() is True
            assert T([-0.0, 1.0], device, dtype).all().item() is False
        elif op == "count_nonzero":
            assert x.count_nonzero(1).tolist() == [1, 0] and tl.count_nonzero(x).item() == 1
        else:
            assert tl.norm(x, p=0, dim=1).tolist() == [1.0, 0.0] and tl.norm(x[1], p=0).item() == 0.0


def test_cumsum_and_logcumsumexp_of_negative_zero_are_positive_zero(device):
    # scans start from their identity (+0, -inf), so -0.0 comes out +0.0 (PyTorch, both devices)
    for dtype in (tl.float32, tl.float64, tl.float16):
        x = tl.tensor([-0.0, -0.0, 1.0], dtype=dtype, device=device)
        rows = x.expand(2, 3)  # (strided: a stride-0 dim)
        for y in (tl.cumsum(x, 0), tl.logcumsumexp(x[:2], 0), tl.cumsum(rows, 1)[1], tl.cumsum(x[None], -1)[0]):
            assert all(math.copysign(1.0, v) == 1.0 for v in y.tolist()[:2]), (dtype, y.tolist())


def test_logcumsumexp_as_pytorch(device):
    # values, special values and the gradient checked against torch 2.13
    inf, nan = math.inf, math.nan
    x = tl.tensor([1.0, 2.0, 3.0], device=device)
    np.testing.assert_allclose(tl.logcumsumexp(x, 0).tolist(), [1.0, 2.3132617, 3.4076061], rtol=1e-6)
    np.testing.assert_allclose(x.logcumsumexp(-1).tolist(), [1.0, 2.3132617, 3.4076061], rtol=1e-6)
    assert x.to(tl.float16).logcumsumexp(0).tolist() == [1.0, 2.3125, 3.408203125]
    assert x.to(tl.bfloat16).logcumsumexp(0).tolist() == [1.0, 2.3125, 3.40625]
    r = tl.logcumsumexp(tl.tensor([inf, inf, -inf, nan, 1.0], device=device), 0).tolist()
    assert r[:3] == [inf, inf, inf] and math.isnan(r[3]) and math.isnan(r[4])  # equal infinities stay
    assert tl.logcumsumexp(tl.tensor([-inf, -inf], device=device), 0).tolist() == [-inf, -inf]
    assert tl.logcumsumexp(tl.tensor([0.0, -30.0], device=device), 0).tolist()[1] == pytest.approx(9.3576229e-14)
    big = tl.tensor([1000.0, 1000.0], device=device)  # exp would overflow
    assert tl.logcumsumexp(big, 0).tolist() == pytest.approx([1000.0, 1000.0 + math.log(2)])
    assert tl.logcumsumexp(tl.tensor(2.0, device=device), 0).item() == 2.0
    out = tl.empty(3, device=device)
    assert tl.logcumsumexp(x, 0, out=out) is out and out.tolist()[0] == 1.0
    a = tl.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True)
    tl.logcumsumexp(a, 1).backward(tl.tensor([[1.0, -2.0], [0.5, 0.0]], device=device))
    np.testing.assert_allclose(a.grad.tolist(), [[0.4621172, -1.4621172], [0.5, 0.0]], rtol=1e-5)
    for bad in (tl.tensor([1, 2], device=device), tl.tensor([True], device=device)):
        with pytest.raises(NotImplementedError, match="\"logcumsumexp\" not implemented for"):
            tl.logcumsumexp(bad, 0)


def test_logcumsumexp_double_backward_with_zero_upstream_gradients(device):
    # The backward sums g in log space (log|g|, positive and negative g apart): where(g > 0, log g,
    # lowest) picks a constant at g = 0, so differentiating it dropped the g = 0 terms of the
    # gradient's derivative (with respect to g and to x): gradgradcheck failed against finite
    # differences (PyTorch 2.13's rule has the same defect). The backward is now an op with its own
    # derivative; a large input still does not overflow.
    rng = np.random.default_rng(2)
    x = tl.tensor(rng.standard_normal((2, 3)), dtype=tl.float64, device=device, requires_grad=True)
    gs = [[[0.0, 1.0, 0.0], [-2.0, 0.0, 3.0]], np.zeros((2, 3)), rng.standard_normal((2, 3))]
    for g in gs[:1] if device == "cuda" else gs:  # (the interpreter: one case)
        g = tl.tensor(g, dtype=tl.float64, device=device, requires_grad=True)
        for dim in (1,) if device == "cuda" else (1, 0):
            assert tl.autograd.gradgradcheck(lambda t, d=dim: tl.logcumsumexp(t, d), (x,), (g,))
    big = tl.tensor([1000.0, 999.0, 1001.0], dtype=tl.float64, device=device, requires_grad=True)
    g = tl.tensor([0.0, 1.0, -1.0], dtype=tl.float64, device=device, requires_grad=True)
    if device == "cpu":
        assert tl.autograd.gradgradcheck(lambda t: tl.logcumsumexp(t, 0), (big,), (g,))
    (gx,) = tl.autograd.grad(tl.logcumsumexp(big, 0), big, grad_outputs=g, create_graph=True)
    # d gx_i / d g_j = exp(x_i - y_j) for j >= i: the sum over i of column j is 1
    (gg,) = tl.autograd.grad(gx.sum(), g)
    np.testing.assert_allclose(gg.tolist(), [1.0, 1.0, 1.0], rtol=1e-12)


@pytest.mark.parametrize("transpose", [False, True])
def test_var_of_segmented_rows_on_a_large_offset(device, monkeypatch, transpose):
    # Split rows (few rows on a GPU: segments, then a merge) keep the precision of the shifted
    # one-pass: data of spread 1e-3 on -1000 in float32 (variance 1e-12 of the mean squared). The
    # segments' partial means used to be stored as float32 ~ -1000 (ulp 6e-5): 2e-3 relative error
    # in the variance, seen on an H100; the interpreter takes the same path when splits are forced.
    monkeypatch.setattr(kcommon, "FORCE_SEGMENTS", 3)
    monkeypatch.setattr(kcommon, "TILE_BUDGET", 64)
    rng = np.random.default_rng(8)
    a = (-1000.0 + rng.standard_normal((2, 300)) * 1e-3).astype(np.float32)
    x = T(a.T.copy(), device).t() if transpose else T(a, device)
    ref = a.astype(np.float64)
    np.testing.assert_allclose(to_numpy(x.var(1)), ref.var(1, ddof=1), rtol=1e-4)
    v, m = tl.var_mean(x, 1)
    np.testing.assert_allclose(to_numpy(v), ref.var(1, ddof=1), rtol=1e-4)
    np.testing.assert_allclose(to_numpy(m), ref.mean(1), rtol=1e-7)


@pytest.mark.parametrize("split", ["one_pass", "tiles", "segments"])
def test_var_mean_where_intermediates_overflow(device, monkeypatch, split):
    # Found by a differential fuzzer against torch: the shifted deviations x - K overflowed for data
    # spanning more than the dtype's range (var([3e38, -3e38]) was nan on cuda, its mean -inf), the
    # corrected-two-pass term c * c overflowed to inf - inf = nan (std([1e37, -1e37, 3e37])), and
    # the cpu twin's unshifted mean made var([1e37] * 3) inf. The mean is right when it is
    # representable, an overflowing variance is inf (never nan), equal values have variance 0, and
    # both devices agree (the variance accumulates in float32, as the kernel's, for float32 inputs).
    if split == "tiles":
        monkeypatch.setattr(kcommon, "TILE_BUDGET", 64)
    elif split == "segments":
        monkeypatch.setattr(kcommon, "FORCE_SEGMENTS", 3)
    inf = math.inf
    for dtype, big in ((tl.float32, 3e38), (tl.float64, 1.7e308)):
        v, m = tl.var_mean(tl.tensor([big, -big], dtype=dtype, device=device))
        assert (v.item(), m.item()) == (inf, 0.0)
        v, m = tl.var_mean(tl.tensor([-big, big, big], dtype=dtype, device=device))
        assert v.item() == inf and m.item() == pytest.approx(big / 3, rel=1e-6)
        v, m = tl.std_mean(tl.tensor([big] * 7, dtype=dtype, device=device))
        assert (v.item(), m.item()) == (0.0, tl.tensor(big, dtype=dtype).item())
        # long rows: tiles and segments merged with Chan's formula
        a = np.full((3, 300), big)
        a[0, 150:] = -big  # mean 0, variance inf
        a[1, :100] = -big  # mean big / 3
        x = tl.tensor(a, dtype=dtype, device=device)
        v, m = tl.var_mean(x, 1)
        assert v.tolist() == [inf, inf, 0.0]
        np.testing.assert_allclose(m.tolist(), [0.0, big / 3, big], rtol=1e-6, atol=big * 1e-6)
        assert m[2].item() == tl.tensor(big, dtype=dtype).item()
        assert abs(tl.var_mean(x[0])[1].item()) < big * 1e-6  # a full reduction (segments on a GPU)
    assert tl.var(tl.tensor([1e37] * 3, device=device)).item() == 0.0
    assert tl.var(tl.tensor([[1e37] * 300], device=device), 1).item() == 0.0
    assert tl.std(tl.tensor([1e37, -1e37, 3e37], device=device)).item() == inf  # (variance 4e74 > fp32's max)
    assert tl.std_mean(tl.tensor([1e37, -1e37, 3e37], dtype=tl.bfloat16, device=device))[0].item() == inf
    assert tl.var(tl.tensor([0.0, 1e20], device=device)).item() == inf
    assert tl.var_mean(tl.tensor([1e307] * 5, dtype=tl.float64, device=device))[1].item() == 1e307


def test_softmax_and_log_softmax_out(device):
    # torch 2.13's softmax/log_softmax take out= of the result's dtype (tensorlab raised TypeError;
    # found by a differential fuzzer against torch); values checked against torch
    x = T(np.array([[1.0, 2.0, 0.0], [3.0, 3.0, -1.0]], np.float32), device)
    out = tl.empty((2, 3), device=device)
    assert tl.softmax(x, 1, out=out) is out
    np.testing.assert_allclose(out.tolist(), [[0.24472848, 0.66524094, 0.09003057],
                                              [0.49546, 0.49546, 0.0090747]], rtol=1e-5)
    out64 = tl.empty(0, dtype=tl.float64, device=device)  # resized, computed in the dtype=
    assert tl.log_softmax(x, 0, dtype=tl.float64, out=out64) is out64 and out64.shape == (2, 3)
    np.testing.assert_allclose(out64.tolist()[0], [-2.126928011, -1.3132616875, -0.3132616875], rtol=1e-9)
    with pytest.raises(RuntimeError, match=r"softmax\(\): Expected out tensor to have dtype float32, but got float64"):
        tl.softmax(x, 1, out=tl.empty((2, 3), dtype=tl.float64, device=device))
    with pytest.raises(TypeError, match=r"log_softmax\(\): argument 'out' must be a Tensor, not list"):
        tl.log_softmax(x, 1, out=[out])
    with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic"):
        tl.softmax(x.requires_grad_(), 1, out=out)


def test_cpu_float32_scans_accumulate_in_double_as_pytorch():
    """torch 2.15's cpu cumsum/cumprod/logcumsumexp accumulate float32 in double: the last of 100000
    cumulative sums of 0.1 is 10000.0 (a float32 running sum ends at 9998.557). float16/bfloat16
    accumulate in float32 (at::acc_type), as they did."""
    x = tl.full((100000,), 0.1)
    assert tl.cumsum(x, 0)[-1].item() == 10000.0
    r = np.random.default_rng(0).uniform(0.999, 1.001, 100000).astype(np.float32)
    assert tl.cumprod(tl.tensor(r), 0)[-1].item() == float(np.float32(np.cumprod(r.astype(np.float64))[-1]))
    assert tl.logcumsumexp(tl.zeros(100000), 0)[-1].item() == float(np.float32(np.log(100000.0)))
    h = np.full(5000, 0.1, np.float16)
    assert tl.cumsum(tl.tensor(h), 0)[-1].item() == float(np.float16(np.cumsum(h.astype(np.float32))[-1]))


def test_var_correction_takes_a_bool(device):
    """correction=True/False is the number 1/0 to PyTorch's parser (var, std, var_mean, std_mean)."""
    x = T(np.array([1.0, 2.0, 4.0]), device)
    assert math.isclose(x.var(correction=True).item(), 7 / 3, rel_tol=1e-6)
    assert math.isclose(tl.var(x, correction=False).item(), 14 / 9, rel_tol=1e-6)
    s, m = tl.std_mean(x, correction=True)
    assert math.isclose(s.item(), math.sqrt(7 / 3), rel_tol=1e-6) and math.isclose(m.item(), 7 / 3, rel_tol=1e-6)


def test_unsupported_dtypes_raise_not_implemented_error():
    """PyTorch 2.15 raises NotImplementedError (a RuntimeError) where a dtype has no kernel or
    floating inputs are required: mean/var/norm of integers, neg/sub of bools, topk of bools."""
    i, b = tl.tensor([1, 2]), tl.tensor([True, False])
    for f in (i.mean, i.var, i.norm, lambda: tl.nanmean(i), lambda: -b, lambda: b - b, lambda: b - 1,
              lambda: tl.topk(b, 1), lambda: tl.relu(b), lambda: tl.linalg.vector_norm(i),
              lambda: tl.tensor([1.0]).mean(dtype=tl.int64)):
        with pytest.raises(NotImplementedError):
            f()


def test_mean_over_an_empty_dim_has_a_finite_double_backward(device):
    """The gradient of a mean over an empty dim is empty; its derivative in the upstream gradient is
    0 (PyTorch's), not the NaN that dividing by the count of 0 gave."""
    x = T(np.zeros((2, 0)), device).requires_grad_()
    g = T(np.ones(2), device).requires_grad_()
    (gx,) = tl.autograd.grad(x.mean(1), x, g, create_graph=True)
    assert gx.shape == (2, 0)
    assert tl.autograd.grad(gx.sum(), g)[0].tolist() == [0.0, 0.0]


def test_var_std_of_half_into_a_wider_out_compute_in_its_dtype(device):
    # torch 2.15 computes in out's dtype: [2.7311208, 0.8420746], not the float16 result cast up
    x = tl.tensor([[1.1, 2.3, 3.7, 4.9], [0.3, 0.7, 1.9, 2.2]], device=device).half()
    got = tl.var(x, 1, out=tl.empty(2, dtype=tl.float32, device=device))
    np.testing.assert_allclose(to_numpy(got), [2.7311208, 0.8420746], rtol=1e-6)
    got = tl.std(x, 1, out=tl.empty(2, dtype=tl.float64, device=device))
    np.testing.assert_allclose(to_numpy(got), [1.6526103, 0.9176463], rtol=1e-6)
    got = tl.var(x, 1, out=tl.empty(2, dtype=tl.float16, device=device))
    assert to_numpy(got.float()).tolist() == [2.73046875, 0.84228515625]
