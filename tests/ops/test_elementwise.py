"""Specific behaviour of the elementwise family that the OpInfo table does not cover: Python
operators (reflected and in-place), in-place semantics and version counters, out=, PyTorch's type
promotion with scalars and 0-d tensors, integer division and rounding modes, shifts, error
messages, and autograd end to end. Every test runs on cpu (twins) and cuda (kernels; Triton's
interpreter when there is no GPU)."""

from __future__ import annotations

import math
import operator
import warnings

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import assert_close, to_numpy


def t(values, device, dtype=None):
    return tl.tensor(values, dtype=dtype, device=device)


# ----------------------------------------------------------------------------------------------
# Python operators
# ----------------------------------------------------------------------------------------------


def test_arithmetic_operators(device):
    a = t([1.0, -2.0, 3.5], device)
    b = t([2.0, 4.0, -0.5], device)
    an, bn = to_numpy(a), to_numpy(b)
    assert_close(a + b, an + bn)
    assert_close(a - b, an - bn)
    assert_close(a * b, an * bn)
    assert_close(a / b, an / bn)
    assert_close(a // b, np.floor_divide(an, bn))
    assert_close(a % b, np.remainder(an, bn))
    assert_close(abs(a) ** b, np.abs(an) ** bn)
    assert_close(-a, -an)
    assert_close(+a, an)
    assert_close(abs(a), np.abs(an))


def test_reflected_operators(device):
    x = t([1.0, 2.0, 4.0], device)
    xn = to_numpy(x)
    assert_close(2 - x, 2 - xn)
    assert_close(2 + x, 2 + xn)
    assert_close(3 * x, 3 * xn)
    assert_close(2 / x, 2 / xn)
    assert_close(7 // x, np.floor_divide(7, xn))
    assert_close(7 % x, np.remainder(7, xn))
    assert_close(2 ** x, 2.0 ** xn)
    assert_close(np.float64(2.0) * x, 2 * xn)  # numpy scalars defer to Tensor (__array_priority__)
    assert isinstance(np.float32(3.0) - x, tl.Tensor)
    i = t([1, 2, 3], device)
    assert (2 ** i).dtype is tl.int64
    assert (1 << i).tolist() == [2, 4, 8]
    assert (16 >> i).tolist() == [8, 4, 2]
    assert (6 & i).tolist() == [0, 2, 2]
    assert (6 | i).tolist() == [7, 6, 7]
    assert (6 ^ i).tolist() == [7, 4, 5]


def test_bitwise_functions_take_a_number_first(device):
    # PyTorch's bitwise_and/or/xor and the shifts have a (Scalar self, Tensor other) overload
    # (documented: input is a Tensor or Scalar); here the functions raised TypeError
    i = t([1, 2, 3], device)
    u = t([1, 2, 3], device, tl.uint8)
    m = t([True, False, True], device)
    for fn, n, expected in ((tl.bitwise_and, 6, [0, 2, 2]), (tl.bitwise_or, 6, [7, 6, 7]),
                            (tl.bitwise_xor, 6, [7, 4, 5]), (tl.bitwise_left_shift, 1, [2, 4, 8]),
                            (tl.bitwise_right_shift, 16, [8, 4, 2])):
        r = fn(n, i)
        assert r.dtype is tl.int64 and r.tolist() == expected
        assert fn(n, u).dtype is tl.uint8 and fn(n, other=i).tolist() == expected
    assert tl.bitwise_and(True, m).dtype is tl.bool and tl.bitwise_xor(True, m).tolist() == [False, True, False]
    assert tl.bitwise_or(2, m).dtype is tl.int64
    for fn in (tl.bitwise_and, tl.bitwise_left_shift):
        with pytest.raises(RuntimeError, match="not implemented for 'Float'"):
            fn(2, t([1.0], device))
        with pytest.raises(TypeError):
            fn("a", i)


def test_int_operands_of_operators_as_the_functions_take_them(device):
    """An int operand gives what the op's function gives (the int's dtype rules: an int tensor stays
    int64, a float tensor keeps its dtype), up to the edges of 64 bits; past them it raises
    PyTorch's OverflowError, as the function does (and as every op taking a number: torch 2.13's
    argument parser refuses an int beyond 64 bits before the op sees it)."""
    i, f = t([1, 2, 3], device), t([1.0, 2.0, 3.0], device, tl.float32)
    for result, expected in ((i + 2, tl.add(i, 2)), (i * -3, tl.mul(i, -3)), (f - 2, tl.sub(f, 2)),
                             (f / 4, tl.div(f, 4)), (2 - f, tl.rsub(f, 2)), (i < 2, tl.lt(i, 2)),
                             (i * (2**63 - 1), tl.mul(i, 2**63 - 1)), (i + -(2**63), tl.add(i, -(2**63)))):
        assert result.dtype is expected.dtype and result.tolist() == expected.tolist()
    assert (i * 2).dtype is tl.int64 and (f * 2).dtype is tl.float32
    for big in (2**64, -(2**63) - 1):
        for x, python_operator in ((i, operator.add), (i, operator.mul), (f, operator.lt), (f, operator.sub)):
            with pytest.raises(OverflowError, match="too big to convert"):
                python_operator(x, big)
    x, m = t([1.0, 2.0], device), t([True, False], device)
    calls = (lambda n: tl.add(i, n), lambda n: tl.add(n, i), lambda n: tl.eq(x, n), lambda n: tl.pow(n, x),
             lambda n: tl.bitwise_and(i, n), lambda n: tl.clamp(i, max=n), lambda n: tl.where(m, x, n),
             lambda n: tl.lerp(x, x, n), lambda n: i.add_(n), lambda n: tl.masked_fill(x, m, n),
             lambda n: x.clone().fill_(n), lambda n: tl.index_fill(x, 0, t([0], device), n),
             lambda n: tl.scatter(x, 0, t([1], device), n))
    for big in (2**64, -(2**63) - 1, 2**70):
        for call in calls:
            with pytest.raises(OverflowError, match="too big to convert"):
                call(big)
    assert tl.masked_fill(x, m, 2**64 - 1).tolist() == [2.0**64, 2.0]  # (what fits 64 bits converts)


def test_comparison_operators_return_bool_tensors(device):
    a = t([1, 2, 3], device)
    for result, expected in ((a == 2, [False, True, False]), (a != 2, [True, False, True]),
                             (a < 2, [True, False, False]), (a <= 2, [True, True, False]),
                             (a > 2, [False, False, True]), (a >= 2, [False, True, True]),
                             (2 < a, [False, False, True]),
                             (a == t([1, 0, 3], device), [True, False, True])):
        assert isinstance(result, tl.Tensor) and result.dtype is tl.bool
        assert result.tolist() == expected
    assert (a == None) is False  # noqa: E711 - NotImplemented -> identity comparison
    assert (a != "x") is True
    assert {a: 1}[a] == 1  # still hashable by identity


def test_bitwise_and_invert_operators(device):
    a = t([0b1100, 0b1010, -1], device, tl.int32)
    b = t([0b1010, 0b0110, 5], device, tl.int32)
    an, bn = to_numpy(a), to_numpy(b)
    assert (a & b).tolist() == (an & bn).tolist()
    assert (a | b).tolist() == (an | bn).tolist()
    assert (a ^ b).tolist() == (an ^ bn).tolist()
    assert (~a).tolist() == (~an).tolist()
    assert (a << 2).tolist() == (an << 2).tolist()
    assert (a >> 1).tolist() == (an >> 1).tolist()
    m = t([True, False], device)
    assert (~m).tolist() == [False, True]
    assert (m & t([True, True], device)).tolist() == [True, False]


def test_numpy_array_operands_go_to_numpy_as_in_pytorch(device):
    # torch 2.15: an arithmetic or bitwise operator with an ndarray (0-d too) returns NotImplemented,
    # so numpy computes ``t op array`` with numpy's promotion and __array_wrap__ makes it a cpu tensor;
    # with the array on the left Python raises TypeError (numpy defers to the tensor first); a cuda
    # tensor or one that requires grad cannot become an array. Values and dtypes are torch 2.15's.
    a = t([1.5, 2.0, 3.0], device)
    host = np.array([1.0, 2.0, 4.0], dtype=np.float32)
    if device == "cpu":
        for result, expected, dtype in [
                (a + host, [2.5, 4.0, 7.0], tl.float32), (host / a, [2 / 3, 1, 4 / 3], tl.float32),
                (a * np.float64(2), [3.0, 4.0, 6.0], tl.float32),  # (a numpy scalar is a scalar)
                (a + np.ones(3), [2.5, 3.0, 4.0], tl.float64), (a / np.array([2, 2, 2]), [0.75, 1.0, 1.5], tl.float64),
                (a ** np.array([2, 2, 2]), [2.25, 4.0, 9.0], tl.float64),
                (a + np.array(1.5), [3.0, 3.5, 4.5], tl.float64),
                (t([200, 3], device, tl.uint8) + np.array(100), [300, 103], tl.int64),
                (t([1, 2], device, tl.int8) + np.array([1, 2], dtype=np.int16), [2, 4], tl.int16),
                (t([1.0], device, tl.float16) * np.array(1e5), [1e5], tl.float64),
                (t([6, 3], device, tl.uint8) & np.array([3, 1], np.uint8), [2, 1], tl.uint8)]:
            assert isinstance(result, tl.Tensor) and result.device.type == "cpu" and result.dtype is dtype, dtype
            np.testing.assert_allclose(to_numpy(result), expected, rtol=1e-6)
        b = c = a.clone()
        b += np.array([1.0, 1.0, 1.0])  # (no in-place numpy op: ``b`` is rebound to the float64 sum)
        assert b is not c and b.dtype is tl.float64 and b.tolist() == [2.5, 3.0, 4.0] and c.tolist() == a.tolist()
        for fn in (lambda: host - a, lambda: host * a, lambda: host ** a, lambda: a + np.array(["x"])):
            with pytest.raises(TypeError):
                fn()
        with pytest.raises(RuntimeError, match="requires grad"):
            t([1.0, 2.0], device).requires_grad_() * np.array([1.0, 1.0])
        with tl.no_grad():  # (numpy() is allowed there)
            assert (t([1.0, 2.0], device).requires_grad_() * np.array([2.0, 2.0])).tolist() == [2.0, 4.0]
        # comparisons and the functions still take an array as a cpu tensor (torch 2.15 raises for
        # ``t < array`` and tl.mul(t, array); tensorlab is lenient there)
        assert (host == a).tolist() == [False, True, False] and (a > host).tolist() == [True, False, False]
        assert tl.mul(a, host).dtype is tl.float32
    else:  # numpy cannot read a cuda tensor (torch 2.15's TypeError), 0-d arrays included
        for arr in (host, np.array(1.0, dtype=np.float32)):
            with pytest.raises(TypeError, match="can't convert cuda"):
                a + arr


def test_python_protocols_on_tensors(device):
    a = t([[1.5, 2.0], [3.0, -1.0]], device)
    assert 3.0 in a and 4 not in a and t([2.0], device) in a  # any element equal, any shape (PyTorch's)
    assert 1.5 in a[0, 0]
    with pytest.raises(RuntimeError, match="only supports Tensor or scalar"):
        a.__contains__("x")
    assert f"{a[0, 0]:.3f}" == "1.500" and format(a[1, 1]) == "-1.0" and f"{t(7, device):>3d}" == "  7"
    assert format(a) == str(a)
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{a:.2f}"
    assert reversed(a).tolist() == [[3.0, -1.0], [1.5, 2.0]] and reversed(a[0, 0]).item() == 1.5
    for convert in (float, int, math.floor, math.ceil):  # PyTorch's ValueError (item() raises RuntimeError)
        with pytest.raises(ValueError, match="only one element tensors"):
            convert(a)
    assert float(a[1, 0]) == 3.0 and math.floor(a[0, 0]) == 1
    with pytest.raises(TypeError, match="only implemented on integer and Boolean"):
        _ = ~a
    assert (~t([5], device)).tolist() == [-6]


def test_unsupported_operand_type_raises_type_error(device):
    a = t([1.0], device)
    with pytest.raises(TypeError):
        a + "x"
    with pytest.raises(TypeError):
        a * object()


# ----------------------------------------------------------------------------------------------
# in-place and out=
# ----------------------------------------------------------------------------------------------


def test_inplace_operator_keeps_identity_and_bumps_version(device):
    a = t([1.0, 2.0, 3.0], device)
    ident, v0 = id(a), a._version
    a += 1
    assert id(a) == ident and a._version == v0 + 1
    a *= t([2.0, 2.0, 2.0], device)
    a -= 1
    a /= 2
    assert a.tolist() == [1.5, 2.5, 3.5]
    assert a._version == v0 + 4
    i = t([7, -7, 8], device)
    i //= 2
    assert i.tolist() == [3, -4, 4]
    i %= 3
    assert i.tolist() == [0, 2, 1]
    i <<= 1
    i |= 1
    assert i.tolist() == [1, 5, 3]


def test_inplace_methods_return_self_and_write_through_views(device):
    base = t([[1.0, 2.0], [3.0, 4.0]], device)
    col = base[:, 1]
    out = col.mul_(10)
    assert out is col
    assert base.tolist() == [[1.0, 20.0], [3.0, 40.0]]
    base.t().add_(t([1.0, 2.0], device))  # a transposed (non-contiguous) destination, broadcast source
    assert base.tolist() == [[2.0, 21.0], [5.0, 42.0]]
    x = t([-1.0, 0.5, 2.0], device)
    assert x.clamp_(min=0.0, max=1.0) is x and x.tolist() == [0.0, 0.5, 1.0]
    x.exp_().neg_()
    assert_close(x, -np.exp(np.array([0.0, 0.5, 1.0], dtype=np.float32)))


def test_inplace_dtype_and_shape_errors(device):
    i = t([1, 2], device)
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.add_(1.5)
    with pytest.raises(RuntimeError, match="can't be cast"):
        i.div_(2)
    assert i.tolist() == [1, 2]  # nothing written
    a = t([1.0, 2.0], device)
    with pytest.raises(RuntimeError, match=r"doesn't match the broadcast shape"):
        a.add_(t([[1.0, 2.0], [3.0, 4.0]], device))
    e = t([1.0], device).expand(3)
    with pytest.raises(RuntimeError, match="more than one element"):
        e.add_(1)


def test_out_that_is_an_input_and_needs_a_resize_raises(device):
    # resizing it first made the op read a new, unwritten buffer (garbage, different per device)
    a = t([[1.0], [2.0]], device)
    message = r"add\(\): output with shape \[2, 1\] doesn't match the broadcast shape \[2, 2\]"
    with pytest.raises(RuntimeError, match=message):
        tl.add(a, t([[10.0, 20.0]], device), out=a)
    assert a.tolist() == [[1.0], [2.0]] and a.shape == (2, 1)
    with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
        tl.clamp(a, t([[0.0, 5.0]], device), out=a)
    b = t([[1.0], [2.0]], device)
    tl.add(a, t([[10.0, 20.0]], device), out=b)  # another tensor is resized, as before (with a warning)
    assert b.tolist() == [[11.0, 21.0], [12.0, 22.0]]


def test_out_that_is_in_an_input_list_and_needs_a_resize_raises(device):
    # cat/stack's out= among its own inputs: resizing it first lost its data, then the twin raised
    x, y = t([1.0, 2.0, 3.0], device), t([4.0, 5.0, 6.0], device)
    for call in (lambda: tl.cat((x, y), out=x), lambda: tl.cat([x, y], out=y), lambda: tl.stack((x, y), out=x)):
        with pytest.raises(RuntimeError, match="doesn't match the broadcast shape"):
            call()
        assert x.tolist() == [1.0, 2.0, 3.0] and y.tolist() == [4.0, 5.0, 6.0]


def test_out_argument(device):
    a, b = t([1.0, 2.0], device), t([3.0, 4.0], device)
    o = tl.empty(2, dtype=tl.float64, device=device)
    v0 = o._version
    r = tl.add(a, b, out=o)
    assert r is o and o.dtype is tl.float64 and o.tolist() == [4.0, 6.0] and o._version == v0 + 1
    with pytest.raises(RuntimeError, match="can't be cast"):
        tl.add(a, b, out=tl.empty(2, dtype=tl.int32, device=device))
    ob = tl.empty(2, dtype=tl.bool, device=device)
    tl.lt(a, b, out=ob)
    assert ob.tolist() == [True, True]
    # a strided destination: every other element of a buffer
    buf = tl.zeros(4, device=device)
    tl.mul(a, b, out=buf[::2])
    assert buf.tolist() == [3.0, 0.0, 8.0, 0.0]
    # a wrongly shaped out= is resized with PyTorch's warning
    small = tl.empty(5, device=device)
    with pytest.warns(UserWarning, match="resized"):
        tl.exp(a, out=small)
    assert small.shape == (2,)
    empty = tl.empty(0, device=device)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an empty out= is resized silently
        tl.sin(a, out=empty)
    assert empty.shape == (2,)


class _AnyOf:
    """Equal to any of ``values`` (a result that may be one of two correctly computed roundings)."""

    def __init__(self, *values):
        self.values = values

    def __eq__(self, other):
        return other in self.values

    def __repr__(self):
        return f"any of {self.values}"


def test_float_to_uint8_wraps_negative_values_as_pytorch(device):
    """torch 2.13 converts a float to uint8 through int64 (c10's static_cast_with_inter_type), so a
    negative value wraps: -3.7 -> 253, -200.5 -> 56, on cpu and cuda alike. A GPU's direct
    float -> uint8 conversion saturates to 0 instead: the copy, elementwise-store and reduction
    kernels go through int64 (on an H100, test_prod_out_dtype_as_pytorch's uint8 case gave 0s)."""
    values = [-3.7, -1.0, 250.9, 3.2, -200.5]
    for dt in (tl.float32, tl.float64, tl.float16):
        x = t(values, device, dt)
        assert x.to(tl.uint8).tolist() == [253, 255, 250, 3, 56]
        o = tl.zeros(5, dtype=tl.uint8, device=device)
        assert o.copy_(x[None].expand(2, 5)[1]).tolist() == [253, 255, 250, 3, 56]
    o = tl.zeros(2, dtype=tl.uint8, device=device)
    assert tl.sum(t([[-1.5, -2.5], [0.5, -0.7]], device), 1, out=o).tolist() == [253, 0]


def test_float_to_uint8_beyond_int32_wraps_through_int64_as_pytorch(device):
    """The int64 step is explicit in the numpy twins too: numpy's own float -> uint8 conversion goes
    through int32 on x86 (3000000007.0 -> 0) and saturates on Arm, where torch 2.15 gives 7 and 253."""
    x = t([3000000007.0, -3.7, 4294967298.5], device, tl.float64)
    expected = [7, 253, 2]
    assert x.to(tl.uint8).tolist() == expected
    assert tl.zeros(3, dtype=tl.uint8, device=device).copy_(x).tolist() == expected
    assert tl.sum(x[:, None], 1, out=tl.zeros(3, dtype=tl.uint8, device=device)).tolist() == expected


def test_out_of_another_dtype_gets_the_result_computed_in_the_result_dtype(device):
    """torch 2.13: an elementwise op computes in its result dtype, then casts into out= (bool add is
    a logical or, half 300 * 300 overflows before it reaches a float32 out=, acos of a half is the
    half result widened). In place, the destination's dtype may be narrower than the computation's:
    half_t.add_(float_t) computes in float32 and rounds once into the half."""
    h = t([300.0], device, tl.float16)
    cases = [
        (lambda o: tl.add(t([True, False], device), t([True, False], device), out=o), tl.int64, [1, 0]),
        (lambda o: tl.mul(h, h, out=o), tl.float32, [float("inf")]),
        (lambda o: tl.add(h, 65504.0, out=o), tl.float64, [float("inf")]),
        (lambda o: tl.acos(t([0.3], device, tl.float16), out=o), tl.float64, [1.265625]),
        # e in float32, widened (not float64's e): the nearest float32 or, as numpy's vectorised
        # float32 exp gives on some machines, the next one up
        (lambda o: tl.exp(t([1.0], device), out=o), tl.float64,
         [_AnyOf(float(np.float32(np.e)), float(np.nextafter(np.float32(np.e), np.float32(3))))]),
        (lambda o: tl.div(t([1], device), t([3], device), out=o), tl.float64, [float(np.float32(1) / np.float32(3))]),
        (lambda o: tl.lt(t([1.0], device), t([2.0], device), out=o), tl.float32, [1.0]),
        (lambda o: tl.addcmul(t([0.1], device, tl.float16), h, h, out=o), tl.float64, [float("inf")]),
    ]
    for call, dtype, expected in cases:
        o = tl.zeros(len(expected), dtype=dtype, device=device)
        v0 = o._version
        r = call(o)
        assert r is o and o.dtype is dtype and o.tolist() == expected and o._version == v0 + 1
    buf = tl.zeros(4, dtype=tl.float32, device=device)  # a strided out= of another dtype
    tl.mul(t([300.0, 2.0], device, tl.float16), 300, out=buf[::2])
    assert buf.tolist() == [float("inf"), 0.0, 600.0, 0.0]
    x = t([1.0, 2048.0], device, tl.float16)
    x.add_(t([1e-3, 1.5], device))  # float32 result rounded into the half destination
    assert x.dtype is tl.float16 and x.tolist() == [1.0009765625, 2050.0]


# ----------------------------------------------------------------------------------------------
# type promotion (PyTorch's rules, scalars weak)
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("make,expected", [
    (lambda d: t([1, 2], d, tl.int32) + 2.5, tl.float32),
    (lambda d: t([1, 2], d, tl.int32) + 2, tl.int32),
    (lambda d: t([1.0], d, tl.float16) * 3.0, tl.float16),
    (lambda d: t([1.0], d, tl.bfloat16) + 1, tl.bfloat16),
    (lambda d: t([1, 2], d, tl.int32) / 2, tl.float32),
    (lambda d: t([1, 2], d, tl.int64) / t([2, 2], d, tl.int64), tl.float32),
    (lambda d: t([1, 2], d, tl.uint8) + t([1, 2], d, tl.int8), tl.int16),
    (lambda d: t([1.0], d, tl.float16) + t([1.0], d, tl.bfloat16), tl.float32),
    (lambda d: t([1.0], d, tl.float16) + t(1.0, d, tl.float32), tl.float16),  # 0-d tensors are weak
    (lambda d: t([1], d, tl.int32) + t(1, d, tl.int64), tl.int32),
    (lambda d: t([1], d, tl.int32) + t(1.5, d, tl.float64), tl.float64),  # ... unless of a higher category
    (lambda d: t([True], d) + t([True], d), tl.bool),
    (lambda d: t([True], d) + 1, tl.int64),
    (lambda d: t([True], d) * 1.5, tl.float32),
    (lambda d: t([1, 2], d, tl.int32) < 2.5, tl.bool),
    (lambda d: tl.exp(t([1, 2], d, tl.int16)), tl.float32),
    (lambda d: tl.abs(t([-1], d, tl.int8)), tl.int8),
    (lambda d: tl.square(t([True], d)), tl.int64),
    (lambda d: tl.floor(t([3], d, tl.int16)), tl.int16),
    (lambda d: tl.atan2(t([1], d, tl.int32), t([1], d, tl.int32)), tl.float32),
    (lambda d: tl.where(t([True], d), 1.0, 0), tl.float32),
    (lambda d: tl.where(t([True], d), t([1], d, tl.int32), 2.5), tl.float32),
    (lambda d: tl.clamp(t([1, 5], d), min=0.5), tl.float32),
    (lambda d: t([1, 2], d, tl.int32) // 2, tl.int32),
    (lambda d: t([1, 2], d, tl.int32) ** 2, tl.int32),
    (lambda d: t([1, 2], d, tl.int32) ** 0.5, tl.float32),
])
def test_type_promotion(device, make, expected):
    assert make(device).dtype is expected


def test_bool_arithmetic_saturates(device):
    a = t([True, True, False], device)
    b = t([True, False, False], device)
    assert (a + b).tolist() == [True, True, False]
    assert (a * b).tolist() == [True, False, False]
    assert tl.maximum(a, b).tolist() == [True, True, False]


def test_scalar_precision_float64(device):
    x = t([1.0, 3.0], device, tl.float64)
    assert_close(x + 0.1, np.array([1.1, 3.1]), rtol=0, atol=0)
    assert_close(x * (1 / 3), np.array([1.0, 3.0]) * (1 / 3), rtol=0, atol=0)
    big = t([0], device, tl.int64) + (2**62 + 1)
    assert big.tolist() == [2**62 + 1]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast:RuntimeWarning")  # the interpreter's numpy cast
def test_fp16_large_values(device):
    x = t([65504.0, -65504.0, 1000.0], device, tl.float16)
    assert (x + x).tolist() == [math.inf, -math.inf, 2000.0]
    assert (x * 0.5).tolist() == [32752.0, -32752.0, 500.0]
    # the product 1000*1000 overflows float16, but computing in float32 keeps the quotient
    assert_close(x * x / x, np.array([np.inf, -np.inf, np.inf], dtype=np.float16))
    assert tl.nan_to_num(t([math.inf, -math.inf, math.nan], device, tl.float16)).tolist() == [65504.0, -65504.0, 0.0]


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16, tl.float32, tl.float64])
def test_nan_to_num_infinite_replacements_are_not_replaced_again(device, dtype):
    # nan=inf must stay inf (not then become posinf's default, the dtype's max), as PyTorch's
    x = t([math.nan, 1.0, math.inf, -math.inf], device, dtype)
    big = tl.finfo(dtype).max
    assert tl.nan_to_num(x, nan=math.inf).tolist() == [math.inf, 1.0, big, -big]
    assert tl.nan_to_num(x, nan=-math.inf, posinf=0.0).tolist() == [-math.inf, 1.0, 0.0, -big]
    assert tl.nan_to_num(x, posinf=-math.inf, neginf=math.inf).tolist()[1:] == [1.0, -math.inf, math.inf]


# ----------------------------------------------------------------------------------------------
# integer semantics and rounding modes
# ----------------------------------------------------------------------------------------------


def test_integer_floor_division_and_remainder(device):
    a = t([7, -7, 7, -7, 0, 9], device)
    b = t([2, 2, -2, -2, 3, 3], device)
    assert (a // b).tolist() == [3, -4, -4, 3, 0, 3]
    assert (a % b).tolist() == [1, 1, -1, -1, 0, 0]
    assert tl.div(a, b, rounding_mode="trunc").tolist() == [3, -3, -3, 3, 0, 3]
    assert tl.fmod(a, b).tolist() == [1, -1, 1, -1, 0, 0]
    assert tl.div(a, b, rounding_mode="floor").dtype is tl.int64
    assert (a / b).dtype is tl.float32
    assert_close(a / b, np.array([3.5, -3.5, -3.5, 3.5, 0.0, 3.0], dtype=np.float32))
    assert tl.remainder(-7, t([3, -3], device)).tolist() == [2, -1]


def test_float_rounding_modes(device):
    a = t([5.5, -5.5, 1.0, -1.0, 0.0, 7.0], device)
    b = t([-2.0, 2.0, 0.0, 0.0, 0.0, 0.1], device)
    floor = tl.div(a, b, rounding_mode="floor").tolist()
    assert floor[:2] == [-3.0, -3.0]
    assert floor[2] == math.inf and floor[3] == -math.inf and math.isnan(floor[4])
    assert floor[5] == 69.0  # 7 / 0.1 is 70.00000xx in float32, but 7 = 69 * 0.1 + 0.0999...: Python's answer
    trunc = tl.div(a, b, rounding_mode="trunc").tolist()
    assert trunc[:2] == [-2.0, -2.0]
    assert_close(tl.remainder(a[:2], b[:2]), np.array([-0.5, 0.5], dtype=np.float32))
    assert_close(tl.fmod(a[:2], b[:2]), np.array([1.5, -1.5], dtype=np.float32))
    with pytest.raises(RuntimeError, match="rounding_mode"):
        tl.div(a, b, rounding_mode="round")


def test_integer_pow(device):
    base = t([2, -3, 5, 1, -1, 0], device)
    assert (base ** 3).tolist() == [8, -27, 125, 1, -1, 0]
    assert (base ** t([10, 3, 0, 7, 5, 2], device)).tolist() == [1024, -27, 1, 1, -1, 0]
    # negative integer exponents in a tensor: 1 ** -n = 1, (-1) ** -n = +-1, else 0 (PyTorch's result)
    assert (base ** t([-1, -2, -1, -3, -3, 2], device)).tolist() == [0, 0, 0, 1, -1, 0]
    with pytest.raises(RuntimeError, match="negative integer powers"):
        base ** -1
    assert (t([3], device, tl.int8) ** 5).tolist() == [-13]  # 243 wraps like C
    assert (2 ** t([0, 62], device)).tolist() == [1, 2**62]


def test_shift_semantics(device):
    a = t([1, -8, 5], device, tl.int32)
    assert (a << 40).tolist() == [0, 0, 0]  # shift >= width: 0 (PyTorch)
    assert (a >> 40).tolist() == [0, -1, 0]  # ... and the sign for >>
    assert (a << t([1, 2, 31], device, tl.int32)).tolist() == [2, -32, -2147483648]
    u = t([200], device, tl.uint8)
    assert (u >> 1).tolist() == [100]  # logical shift for unsigned
    with pytest.raises(RuntimeError, match="not implemented for 'Float'"):
        t([1.0], device) << 1


def test_round_with_more_decimals_than_a_double_holds_as_pytorch(device):
    """10 ** 309 is inf in float64: x * inf / inf (decimals >= 309) and x / inf * inf (<= -309) are NaN
    everywhere, as torch 2.15 gives (it raised OverflowError building the scale); 308 still rounds."""
    x = t([1.23456, 123.0, float("inf"), 0.0, 1e300], device, tl.float64)
    for decimals in (309, 400, -309, -400):
        assert np.isnan(to_numpy(tl.round(x, decimals=decimals))).all()
    assert tl.round(x, decimals=308).tolist() == [1.23456, float("inf"), float("inf"), 0.0, float("inf")]
    assert tl.round(x, decimals=-300).tolist() == [0.0, 0.0, float("inf"), 0.0, 1e300]


def test_round_decimals_and_half_to_even(device):
    x = t([0.5, 1.5, 2.5, -0.5, -1.5, 1234.5678], device, tl.float64)
    assert tl.round(x).tolist() == [0.0, 2.0, 2.0, -0.0, -2.0, 1235.0]
    assert_close(tl.round(x, decimals=2)[-1:], np.array([1234.57]))
    assert_close(tl.round(x, decimals=-2)[-1:], np.array([1200.0]))
    assert tl.round(t([3, 4], device)).tolist() == [3, 4]
    with pytest.raises(RuntimeError):
        tl.round(t([3, 4], device), decimals=1)


def test_sign_and_special_values(device):
    x = t([-2.0, -0.0, 0.0, 3.0, math.nan, math.inf], device)
    assert tl.sign(x).tolist()[:4] == [-1.0, 0.0, 0.0, 1.0]
    assert tl.sign(x).tolist()[4] == 0.0  # PyTorch: sign(nan) = 0
    assert tl.signbit(x).tolist() == [True, True, False, False, False, False]
    assert tl.isfinite(x).tolist() == [True, True, True, True, False, False]
    assert tl.isnan(t([1, 2], device)).tolist() == [False, False]
    assert tl.isfinite(t([1, 2], device)).tolist() == [True, True]
    assert tl.maximum(x, t(1.0, device)).tolist()[4] != tl.maximum(x, t(1.0, device)).tolist()[4]  # nan propagates
    assert tl.fmax(x, t(1.0, device)).tolist()[4] == 1.0  # ... fmax ignores it


def test_integer_clamp_saturates_number_bounds_beyond_the_dtype_as_pytorch(device):
    """torch 2.15: an integer clamp's number bound beyond the dtype's range on its own side clamps
    nothing (it was wrapped: clamp(uint8, min=-1) gave 255s); a min above the range or a max below
    it raises. hardtanh on integers truncates its limits, then does the same."""
    u, i8 = t([1, 5, 200], device, tl.uint8), t([-100, 0, 100], device, tl.int8)
    assert tl.clamp(u, min=-1).tolist() == [1, 5, 200] and tl.clip(u, -1, 3).tolist() == [1, 3, 3]
    assert tl.clamp(u, max=300).tolist() == [1, 5, 200] and tl.clamp_max(u, 256).tolist() == [1, 5, 200]
    assert u.clamp_min(-5).tolist() == [1, 5, 200] and tl.clamp(i8, -200, 50).tolist() == [-100, 0, 50]
    assert tl.clamp(i8, max=128).tolist() == [-100, 0, 100] and tl.clamp(i8, min=-129).tolist() == [-100, 0, 100]
    assert u.clone().clamp_(min=-1, max=2).tolist() == [1, 2, 2] and u.clone().clamp_min_(-1).tolist() == [1, 5, 200]
    assert tl.clamp(u, min=-1, out=tl.empty(3, dtype=tl.uint8, device=device)).tolist() == [1, 5, 200]
    assert tl.clamp(u, min=-1.5).dtype is tl.float32  # a float bound: a float result, nothing to saturate
    F = tl.nn.functional
    assert F.hardtanh(u, -1.0, 3.0).tolist() == [1, 3, 3] and F.hardtanh(i8, -2.5, 2.5).tolist() == [-2, 0, 2]
    assert F.hardtanh(u.clone(), -1.0, 300.0, inplace=True).tolist() == [1, 5, 200]
    outside = "is outside the representable range of"
    for call, message in [(lambda: tl.clamp(u, max=-1), f"Clamp max value -1 {outside} Byte"),
                          (lambda: u.clamp_min_(300), f"Clamp min value 300 {outside} Byte"),
                          (lambda: tl.clamp(i8, -200, -150), f"Clamp max value -150 {outside} Char"),
                          (lambda: F.hardtanh(u, -3.0, -1.0), f"Clamp max value -1 {outside} Byte")]:
        with pytest.raises(RuntimeError, match=message):
            call()
    assert u.tolist() == [1, 5, 200]  # (the refused in-place clamp left it as it was)
    # two number bounds are promoted with each other first: one past int64 is a uint64, which has no
    # promotion with a signed one (one such bound alone saturates like any other)
    big = t([1, 2], device)
    with pytest.raises(RuntimeError, match="Promotion for uint16, uint32, uint64 types is not supported"):
        tl.clamp(big, -2**63, 2**63)
    assert tl.clamp(big, max=2**63).tolist() == [1, 2] and tl.clamp(i8, max=2**63).tolist() == [-100, 0, 100]


def test_clamp_variants(device):
    x = t([-2.0, 0.5, 3.0, math.nan], device)
    assert_close(tl.clamp(x, min=-1.0, max=1.0), np.array([-1.0, 0.5, 1.0, np.nan], dtype=np.float32))
    assert_close(tl.clamp(x, max=0.0), np.array([-2.0, 0.0, 0.0, np.nan], dtype=np.float32))
    assert_close(tl.clamp(x, min=2.0, max=1.0), np.array([1.0, 1.0, 1.0, np.nan], dtype=np.float32))  # min > max
    lo, hi = t([0.0, 0.0, 0.0, 0.0], device), t([1.0], device)
    assert_close(tl.clip(x, lo, hi), np.array([0.0, 0.5, 1.0, np.nan], dtype=np.float32))
    with pytest.raises(RuntimeError, match="At least one of 'min' or 'max'"):
        tl.clamp(x)
    # a number and a tensor: PyTorch takes a 0-d tensor that needs no gradient as a number
    assert_close(tl.clamp(x, min=-1.0, max=t(1.0, device)), np.array([-1.0, 0.5, 1.0, np.nan], dtype=np.float32))
    assert tl.clamp(t([1, 5], device), min=t(2.5, device), max=4).tolist() == [2.5, 4.0]
    for bad in (t(1.0, device).requires_grad_(), t([1.0], device)):
        with pytest.raises(TypeError, match="invalid combination of arguments"):
            tl.clamp(x, min=-1.0, max=bad)


def test_where_and_lerp_and_addc(device):
    c = t([True, False, True], device)
    assert tl.where(c, t([1, 2, 3], device), 0).tolist() == [1, 0, 3]
    assert t([1.0, 2.0, 3.0], device).where(c, -1.0).tolist() == [1.0, -1.0, 3.0]
    s, e = t([0.0, 10.0], device), t([10.0, 20.0], device)
    assert tl.lerp(s, e, 0.25).tolist() == [2.5, 12.5]
    assert tl.lerp(s, e, t([1.0, 0.0], device)).tolist() == [10.0, 10.0]  # exact at both ends
    x = t([1.0, 2.0], device)
    assert tl.addcmul(x, x, x, value=2).tolist() == [3.0, 10.0]
    assert tl.addcdiv(x, x, t([4.0, 8.0], device), value=-1).tolist() == [0.75, 1.75]


# ----------------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------------


def test_error_messages(device):
    a, b = t([1.0, 2.0, 3.0], device), t([1.0, 2.0], device)
    with pytest.raises(RuntimeError, match=r"add\(\).*size of tensor a \(3\).*tensor b \(2\)"):
        tl.add(a, b)
    with pytest.raises(RuntimeError, match='"bitwise_and" not implemented for \'Float\''):
        tl.bitwise_and(a, a)
    with pytest.raises(RuntimeError, match="not implemented for 'Float'"):
        tl.bitwise_not(a)
    with pytest.raises(TypeError, match="only implemented on integer and Boolean"):  # the operator's, as PyTorch's
        _ = ~a
    m = t([True], device)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
        _ = m - m
    with pytest.raises(RuntimeError, match="Negation, the `-` operator, on a bool tensor"):
        _ = -m
    with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
        tl.add(t([1], device), t([1], device), alpha=0.5)
    with pytest.raises(RuntimeError, match="Boolean alpha"):
        tl.add(a, a, alpha=True)
    # torch 2.15 checks sub's bool operands before alpha, and neg's bool input before its out=
    for alpha in (True, 0.5):
        with pytest.raises(NotImplementedError, match="Subtraction, the `-` operator, with a bool tensor"):
            tl.sub(t([1.0], device), m, alpha=alpha)
        with pytest.raises(NotImplementedError, match="Subtraction, the `-` operator, with a bool tensor"):
            tl.sub(t([1], device), True, alpha=alpha)
    with pytest.raises(NotImplementedError, match="Negation, the `-` operator, on a bool tensor"):
        tl.neg(m, out=tl.zeros(1, device=device))
    with pytest.raises(TypeError, match="argument 'decimals' must be int, not bool"):
        tl.round(t([1.26], device), decimals=True)
    with pytest.raises(RuntimeError, match="expected condition to be a boolean tensor"):
        tl.where(a, a, a)
    with pytest.raises(RuntimeError, match="expected dtype float32 for `end`"):
        tl.lerp(a, a.double(), 0.5)
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        tl.addcdiv(t([1], device), t([1], device), t([1], device))
    with pytest.raises(RuntimeError, match="not implemented for 'Long'"):
        tl.gelu(t([1], device))
    with pytest.raises(RuntimeError, match="approximate"):
        tl.gelu(a, approximate="fast")
    with pytest.raises(TypeError, match="must be Tensor"):
        tl.maximum(a, 1.0)
    with pytest.raises(TypeError, match="must be Tensor"):
        tl.exp(1.0)


# ----------------------------------------------------------------------------------------------
# layouts: broadcast reads, > 6 dims, transposed operands
# ----------------------------------------------------------------------------------------------


def test_many_dims_and_transposes(device):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 1, 3, 2, 1, 2, 3, 2)).astype(np.float32)
    b = rng.standard_normal((2, 3, 1, 2, 2, 1, 3, 1)).astype(np.float32)
    ta, tb = t(a, device), t(b, device)
    # permuted views: more than six dims that no stride pattern merges
    perm = (7, 0, 6, 1, 5, 2, 4, 3)
    got = ta.permute(perm) * tb.permute(perm)
    assert_close(got, np.transpose(a, perm) * np.transpose(b, perm))
    m = rng.standard_normal((5, 7)).astype(np.float32)
    assert_close(tl.sub(t(m, device).t(), t(m.T.copy(), device)), np.zeros((7, 5), np.float32))


def test_cpu_scalar_tensor_with_cuda_tensor():
    if not tl.cuda.is_available():
        pytest.skip("no cuda device (real or interpreted)")
    x = t([1.0, 2.0], "cuda")
    y = x * t(3.0, "cpu")  # a 0-d cpu tensor joins a cuda op as a scalar
    assert y.device.type == "cuda" and y.tolist() == [3.0, 6.0]
    z = tl.sub(t(10.0, "cpu"), x)  # also as the first operand: the op runs on cuda
    assert z.device.type == "cuda" and z.tolist() == [9.0, 8.0]
    with pytest.raises(RuntimeError, match="same device"):
        x + t([1.0, 2.0], "cpu")
    # it takes part in promotion as a 0-d tensor (its dtype counts within its category), as on cpu
    for a, b in [(tl.tensor([-6, 5], dtype=tl.int8), tl.tensor(-3.0, dtype=tl.float16)),
                 (tl.tensor(7, dtype=tl.uint8), tl.tensor(8, dtype=tl.int32)),
                 (tl.tensor([0.5, 1.5], dtype=tl.bfloat16), tl.tensor(2.0, dtype=tl.float64))]:
        on_cpu, mixed = a - b, a.cuda() - b
        assert mixed.device.type == "cuda" and mixed.dtype is on_cpu.dtype and mixed.tolist() == on_cpu.tolist()
    c = tl.tensor([0.0, 1.0], dtype=tl.float16)
    for f in (lambda d: tl.where(tl.tensor(False), c.to(d), -2.5),
              lambda d: tl.addcdiv(c.to(d), tl.tensor(3.0), c.to(d) + 1),
              lambda d: tl.lerp(c.to(d), c.to(d) + 2, tl.tensor(0.5, dtype=tl.float16))):
        assert f("cuda").tolist() == f("cpu").tolist()
    with pytest.raises(RuntimeError, match="same device"):
        t(4.0, "cpu").add_(t(1.0, "cuda"))  # the in-place destination is never moved
    w = t(3.0, "cpu").requires_grad_()
    (x * w).sum().backward()  # the copy to the device is differentiable
    assert w.grad.device.type == "cpu" and w.grad.item() == 3.0


# ----------------------------------------------------------------------------------------------
# autograd
# ----------------------------------------------------------------------------------------------


def test_backward_end_to_end(device):
    x = t([1.0, 2.0, 3.0], device).requires_grad_()
    y = t([4.0, 5.0, 6.0], device).requires_grad_()
    (x * y + x).sum().backward()
    assert x.grad.tolist() == [5.0, 6.0, 7.0]
    assert y.grad.tolist() == [1.0, 2.0, 3.0]


def test_broadcast_gradients_are_reduced(device):
    x = t([[1.0], [2.0]], device).requires_grad_()
    y = t([1.0, 2.0, 3.0], device).requires_grad_()
    z = (x * y - y / 2).sum()
    z.backward()
    assert x.grad.shape == (2, 1) and x.grad.tolist() == [[6.0], [6.0]]
    assert y.grad.shape == (3,) and y.grad.tolist() == [2.0, 2.0, 2.0]


def test_mixed_dtype_gradient_cast_to_input_dtype(device):
    h = t([1.0, 2.0], device, tl.float16).requires_grad_()
    f = t([3.0, 4.0], device, tl.float32).requires_grad_()
    (h * f).sum().backward()
    assert h.grad.dtype is tl.float16 and h.grad.tolist() == [3.0, 4.0]
    assert f.grad.dtype is tl.float32 and f.grad.tolist() == [1.0, 2.0]


def test_inplace_ops_under_autograd(device):
    x = t([0.5, 1.0, 2.0], device).requires_grad_()
    w = t([3.0, 4.0, 5.0], device).requires_grad_()
    a = x * 1
    a.mul_(w)  # the gradient of w needs the old a: saved as a clone
    a.sin_()  # sin_'s gradient needs its input
    a.relu_()
    a.sum().backward()
    xn, wn = to_numpy(x), to_numpy(w)
    inner = xn * wn
    d = np.cos(inner) * (np.sin(inner) > 0)
    assert_close(x.grad, d * wn, rtol=1e-5, atol=1e-6)
    assert_close(w.grad, d * xn, rtol=1e-5, atol=1e-6)
    leaf = t([1.0], device).requires_grad_()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.add_(1)


def test_modified_saved_tensor_is_detected(device):
    x = t([1.0, 2.0], device).requires_grad_()
    y = x.exp()  # exp saves its output
    y.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_pow_by_a_number_saves_only_its_input(device):
    # PyTorch's pow(Tensor, Scalar) saves self, not the result: the result may be modified in place
    # (it raised here, the result being saved for nothing); a tensor exponent or base saves the result.
    x = t([[1.0, 2.0], [3.0, 4.0]], device, tl.float64).requires_grad_()
    y = x**2
    y.add_(1)
    y.sum().backward()
    assert_close(x.grad, [[2.0, 4.0], [6.0, 8.0]])
    a = x * 1
    y = tl.pow(a, 3.0)
    a.add_(1)  # the input is what is saved
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    for y in (x ** t([2.0, 3.0], device, tl.float64), 2.0**x):
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_activations_save_their_input_out_of_place(device):
    # PyTorch's elu, selu, celu, leaky_relu, hardtanh and relu6 save the input out of place (the
    # result in place): the result may then be modified in place; here it was saved and backward
    # raised. hardtanh passes the gradient at a NaN, as PyTorch (it gave 0).
    F = tl.nn.functional
    xs = np.array([-2.0, -0.5, 0.5, 2.0])
    scale, alpha = 1.0507009873554804934193349852946, 1.6732632423543772848170429916717
    cases = [(F.elu, np.where(xs <= 0, np.exp(xs), 1.0)),
             (F.selu, np.where(xs <= 0, scale * alpha * np.exp(xs), scale)),
             (lambda x: F.celu(x, 0.5), np.where(xs <= 0, np.exp(xs / 0.5), 1.0)),
             (lambda x: F.leaky_relu(x, 0.1), np.where(xs > 0, 1.0, 0.1)),
             (F.hardtanh, [0.0, 1.0, 1.0, 0.0]),
             (lambda x: F.relu6(x * 3), [0.0, 0.0, 3.0, 0.0])]
    for f, expected in cases:
        x = t(xs, device, tl.float64).requires_grad_()
        y = f(x)
        y.add_(1)
        y.sum().backward()
        assert_close(x.grad, expected)
    for f in (F.elu, F.selu, F.leaky_relu, F.hardtanh):
        a = t(xs, device, tl.float64).requires_grad_() * 1
        y = f(a)
        a.add_(1)  # the input is what is saved
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()
    x = t([float("nan"), -1.0, 1.0, 0.5], device, tl.float64).requires_grad_()
    F.hardtanh(x).sum().backward()
    assert_close(x.grad, [1.0, 0.0, 0.0, 1.0])
    x.grad = None
    F.hardtanh(x * 1, inplace=True).sum().backward()
    assert_close(x.grad, [1.0, 0.0, 0.0, 1.0])


def test_hardtanh_inplace_saves_the_old_input(device):
    # PyTorch's hardtanh_ (and relu6(inplace=True)) saves a clone of the old self, so its result may
    # be modified in place before backward; here the result was saved and backward raised 'modified
    # by an inplace operation'. elu_ and leaky_relu_ do save their result (they still raise).
    F = tl.nn.functional
    x = t([0.3, -2.0, 3.0, -0.5], device, tl.float64).requires_grad_()
    for f, expected in ((lambda y: F.hardtanh(y, -0.5, 0.5, inplace=True), [2.0, 0.0, 0.0, 0.0]),
                        (lambda y: y.hardtanh_(), [2.0, 0.0, 0.0, 2.0]),
                        (lambda y: F.relu6(y, inplace=True), [2.0, 0.0, 2.0, 0.0])):
        x.grad = None
        y = x * 1
        f(y)
        y.mul_(2)
        y.sum().backward()
        assert_close(x.grad, expected)
    for f in (lambda y: F.elu(y, inplace=True), lambda y: F.leaky_relu(y, 0.1, inplace=True)):
        y = x * 1
        f(y)
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_inplace_functions_name_their_tensor_input(device):
    # torch.exp_(input=t), torch.clamp_(input=t, min=0), F.elu_(input=t): PyTorch's function forms of
    # the in-place ops name the tensor input, as the out-of-place forms; here they named it self
    F = tl.nn.functional
    x = t([0.25, -0.5, 0.75], device)
    cases = [(tl.exp_, {}, tl.exp), (tl.neg_, {}, tl.neg), (tl.abs_, {}, tl.abs), (tl.sigmoid_, {}, tl.sigmoid),
             (tl.arcsin_, {}, tl.asin), (tl.logit_, {"eps": 0.1}, tl.logit), (tl.round_, {"decimals": 1}, tl.round),
             (tl.nan_to_num_, {"nan": 1.0}, tl.nan_to_num), (tl.relu_, {}, tl.relu), (tl.selu_, {}, tl.selu),
             (tl.clamp_, {"min": 0.0}, tl.clamp), (tl.clip_, {"max": 0.0}, tl.clip),
             (tl.clamp_min_, {"min": 0.0}, tl.clamp_min), (tl.clamp_max_, {"max": 0.0}, tl.clamp_max),
             (F.relu_, {}, F.relu), (F.selu_, {}, F.selu), (F.elu_, {"alpha": 0.5}, F.elu),
             (F.leaky_relu_, {"negative_slope": 0.2}, F.leaky_relu),
             (F.hardtanh_, {"min_val": -0.3, "max_val": 0.3}, F.hardtanh)]
    for fn_, kw, fn in cases:
        y = x.clone()
        assert fn_(input=y, **kw) is y
        assert_close(y, fn(x, **kw))


def test_number_parameters_take_numbers_and_0d_tensors(device):
    # nan_to_num's nan/posinf/neginf, logit's eps and the activations' slopes are PyTorch float
    # arguments: a number or a 0-d tensor, anything else a TypeError (here float()'s ValueError);
    # round's decimals is an int (1.5 was truncated to 1 where torch raises TypeError)
    F = tl.nn.functional
    x = t([float("nan"), 0.25, float("inf")], device)
    assert tl.nan_to_num(x, t(1.0, "cpu"), posinf=np.float32(3)).tolist() == [1.0, 0.25, 3.0]
    assert_close(tl.logit(x, t(0.1, "cpu")), tl.logit(x, 0.1))
    assert_close(tl.round(x, decimals=np.int64(1)), tl.round(x, decimals=1))
    for f in (lambda: tl.nan_to_num(x, "a"), lambda: tl.nan_to_num(x, x), lambda: x.clone().nan_to_num_(posinf=[1.0]),
              lambda: tl.logit(x, "a"), lambda: x.clone().logit_(x), lambda: F.leaky_relu(x, x),
              lambda: F.elu(x, "a"), lambda: F.softplus(x, beta="a"), lambda: tl.round(x, decimals=1.5),
              lambda: x.clone().round_(decimals=1.5), lambda: tl.nan_to_num(x, 1 + 0j),
              lambda: tl.nan_to_num(x, t(1.0, "cpu").requires_grad_()),
              lambda: F.leaky_relu(x, t(0.5, "cpu").requires_grad_())):
        with pytest.raises(TypeError):
            f()


def test_relu_selu_gelu_signatures(device):
    # torch.relu / torch.selu / Tensor.relu take no inplace (nn.functional's forms do), gelu's
    # approximate is keyword-only, and relu of a bool tensor is PyTorch 2.15's NotImplementedError (a RuntimeError)
    F = tl.nn.functional
    x = t([0.5, -1.0, 2.0], device)
    for f in (lambda: tl.relu(x, True), lambda: tl.relu(x, inplace=True), lambda: x.relu(True),
              lambda: tl.selu(x, True), lambda: tl.selu(x, inplace=True), lambda: F.gelu(x, "tanh"),
              lambda: F.gelu(x, approximate=None)):  # (torch 2.15: a TypeError for None, not a RuntimeError)
        with pytest.raises(TypeError):
            f()
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        F.gelu(x, approximate="exact")
    assert_close(F.gelu(x, approximate="tanh"), tl.gelu(x, approximate="tanh"))
    y = x.clone()
    assert F.relu(y, inplace=True) is y and F.relu(x, False) is not x
    assert_close(y, [0.5, 0.0, 2.0])
    y = x.clone()
    assert F.selu(y, True) is y
    assert_close(y, tl.selu(x))
    m = t([True, False], device)
    for f in (tl.relu, tl.relu_, F.relu, lambda b: F.relu(b, inplace=True)):
        with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu") as info:
            f(m)
        assert type(info.value) is NotImplementedError


def test_binary_and_ternary_ops_save_only_what_their_gradients_read(device):
    # As PyTorch: fmod / remainder by a number, copysign's other operand, addcmul / addcdiv's input and
    # lerp with a number weight are not saved (their gradients do not read them), so they may be
    # modified in place after the op; here they were saved and backward raised.
    def leaf(values):
        return t(values, device, tl.float64).requires_grad_()

    x, b = leaf([0.5, 1.5, 2.5]), leaf([-1.0, 1.0, -2.0])
    a = x * 1
    ys = [tl.fmod(a, 0.7), tl.remainder(a, 0.7), tl.lerp(a, b, 0.25)]
    a.add_(1)
    sum(y.sum() for y in ys).backward()
    assert_close(x.grad, [2.75] * 3)
    assert_close(b.grad, [0.25] * 3)
    x.grad = b.grad = None
    a, c = x * 1, b * 1
    y = tl.copysign(a, c)
    c.add_(5)
    y.sum().backward()
    assert_close(x.grad, [-1.0, 1.0, -1.0])
    for op, g1, g2 in ((tl.addcmul, lambda t1, t2: 2 * t2, lambda t1, t2: 2 * t1),
                       (tl.addcdiv, lambda t1, t2: 2 / t2, lambda t1, t2: -2 * t1 / t2**2)):
        x, t1, t2 = leaf([0.5, 1.5, 2.5]), leaf([1.0, 2.0, 3.0]), leaf([4.0, 5.0, 6.0])
        a = x * 1
        y = op(a, t1, t2, value=2)
        a.add_(1)
        y.sum().backward()
        assert_close(x.grad, [1.0] * 3)
        assert_close(t1.grad, g1(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])))
        assert_close(t2.grad, g2(np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])))
    x = leaf([0.5, 1.5, 2.5])
    a = x * 1
    a.fmod_(0.7)
    a.mul_(3)
    a.sum().backward()
    assert_close(x.grad, [3.0] * 3)
    a = leaf([1.0, 2.0, 3.0]) * 1
    y = tl.fmod(a, b)  # a tensor divisor's gradient reads both operands
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_erfinv_saves_its_input(device):
    # As PyTorch (erfinv's derivative is written with self): the result may be modified in place
    # (here it was saved and backward raised), the input may not.
    x = t([-0.5, 0.0, 0.75], device, tl.float64).requires_grad_()
    y = tl.erfinv(x)
    expected = np.sqrt(np.pi) / 2 * np.exp(to_numpy(y.detach()) ** 2)
    y.add_(1)
    y.sum().backward()
    assert_close(x.grad, expected)
    a = x * 1
    y = a.erfinv()
    a.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    x.grad = None
    a = x * 1
    a.erfinv_()  # from a clone of a
    a.sum().backward()
    assert_close(x.grad, expected)


def test_erfinv_float64_far_tail_is_exact(device):
    # Within 1e-11 of ±1 the single-precision start is off by up to 0.4; Newton on erfc moved it by
    # at most ~1/(2x) a step, so three steps left errors up to 7% at 1 - 2**-53. The reference is
    # bisection on math.erfc, which resolves 1 - y where bisection on erf cannot.
    one_minus = np.array([1e-6, 1e-9, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 2.0**-52, 2.0**-53])
    y = np.concatenate([1 - one_minus, -(1 - one_minus)])
    expected = []
    for v in y:
        lo, hi = 0.0, 7.0
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (lo, mid) if math.erfc(mid) < 1 - abs(v) else (mid, hi)
        expected.append(math.copysign(0.5 * (lo + hi), v))
    # (a few ulps: libdevice on a GPU is documented to 5 ulps)
    np.testing.assert_allclose(to_numpy(tl.erfinv(t(y, device, tl.float64))), expected, rtol=5e-15)


def test_double_backward(device):
    x = t([0.3, -0.7], device, tl.float64).requires_grad_()
    (g,) = tl.autograd.grad(tl.tanh(x).sum(), x, create_graph=True)
    (gg,) = tl.autograd.grad(g.sum(), x)
    th = np.tanh(to_numpy(x))
    assert_close(gg, -2 * th * (1 - th**2))


def test_rounding_ops_have_zero_gradient(device):
    x = t([0.3, -1.7], device).requires_grad_()
    (tl.floor(x) + tl.ceil(x) + tl.round(x) + tl.trunc(x) + tl.sign(x) + x // 2).sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


def _grads(fn, device, *values):
    xs = [t(v, device, tl.float64).requires_grad_() for v in values]
    out = fn(*xs)
    out.backward(tl.ones_like(out))
    return [to_numpy(x.grad) for x in xs]


def test_relu_backward_is_one_kernel_with_pytorchs_mask(device):
    """relu's backward is one kernel (threshold_backward: the gradient, 0 where the output is <= 0;
    a NaN output passes it) for every float dtype and a strided gradient, and its own gradient
    (double backward) is the same mask."""
    from tensorlab._dispatch import dispatch
    from tensorlab.ops.elementwise_binary import THRESHOLD_BACKWARD

    nan, inf = math.nan, math.inf
    y = [nan, -0.0, 0.0, -1.0, 2.0, inf, -inf]
    g = [1.5, 2.0, 3.0, 4.0, 5.0, -6.0, 7.0]
    for dtype in (tl.float64, tl.float32, tl.float16, tl.bfloat16):
        r = dispatch(THRESHOLD_BACKWARD, t(g, device, dtype), t(y, device, dtype))
        assert r.dtype is dtype and r.tolist() == [1.5, 0.0, 0.0, 0.0, 5.0, -6.0, 0.0]
    strided = t([g, g], device, tl.float32).t()[:, 1]  # stride 2
    assert dispatch(THRESHOLD_BACKWARD, strided, t(y, device, tl.float32)).tolist() == [1.5, 0, 0, 0, 5.0, -6.0, 0]
    x = t([-1.0, 0.5, 2.0, 0.0], device, tl.float64).requires_grad_()
    v = t([3.0, 4.0, 5.0, 6.0], device, tl.float64).requires_grad_()
    (gx,) = tl.autograd.grad(tl.relu(x), x, grad_outputs=v, create_graph=True)
    assert gx.tolist() == [0.0, 4.0, 5.0, 0.0]
    (gv,) = tl.autograd.grad(gx.sum(), v)
    assert gv.tolist() == [0.0, 1.0, 1.0, 0.0]


def test_logit_eps_bounds_as_pytorch(device):
    """torch 2.13's values: the clamp bounds eps and 1 - eps are rounded to the input's dtype (a
    float16 1 - 1e-6 is 1: logit is inf there; a bfloat16 1 - 0.01 is 0.98828125), and the clamp is
    x < lo ? lo : (x > hi ? hi : x), so for eps > 0.5 an x below eps gives logit(eps)."""
    inf = math.inf
    cases = [
        (tl.float16, 1e-6, [0.9999, 1.0, 0.5, 1e-8, 0.0], [inf, inf, 0.0, -13.8046875, -13.8046875],
         [inf, inf, 4.0, 0.0, 0.0]),
        (tl.bfloat16, 0.01, [0.999, 0.995, 0.005, 0.5], [4.4375, 4.4375, -4.59375, 0.0], [0.0, 0.0, 0.0, 4.0]),
        (tl.float16, 0.01, [0.995, 0.99, 0.005], [4.6171875, 4.6171875, -4.59375], [0.0, 103.375, 0.0]),
        (tl.float32, 0.7, [0.3, 0.9, 0.7], [0.8472978472709656, -0.8472977876663208, -0.8472977876663208],
         [0.0, 0.0, 0.0]),
        (tl.float64, 0.7, [0.3, 0.9], [0.8472978603872034, -0.8472978603872034], [0.0, 0.0]),
    ]
    for dtype, eps, xs, want, want_grad in cases:
        x = t(xs, device, dtype).requires_grad_()
        y = tl.logit(x, eps)
        y.sum().backward()
        np.testing.assert_allclose(y.float().tolist(), want, rtol=1e-6)
        assert x.grad.float().tolist() == want_grad
        assert tl.logit(t(xs, device, dtype), eps=eps).float().tolist() == y.float().tolist()


def test_gradients_at_special_points_match_pytorch(device):
    """values from torch 2.13 (float64): the branch a NaN, a -0.0 or a boundary takes in each backward."""
    nan, inf = math.nan, math.inf
    F = tl.nn.functional
    (g,) = _grads(tl.logit, device, [-0.5, 0.0, -0.0, 0.25, 1.0, 1.5, inf, nan])
    np.testing.assert_array_equal(g, [nan, inf, inf, 16 / 3, inf, nan, nan, nan])
    (g,) = _grads(lambda x: tl.logit(x, eps=0.0), device, [-0.5, 0.0, -0.0, 0.25, 1.0, 1.5])
    np.testing.assert_array_equal(g, [0.0, inf, inf, 16 / 3, inf, 0.0])
    (g,) = _grads(tl.relu, device, [nan, 0.0, -1.0, 2.0])
    np.testing.assert_array_equal(g, [1.0, 0.0, 0.0, 1.0])
    (g,) = _grads(F.elu, device, [nan, 0.0, -1.0, 2.0])
    np.testing.assert_allclose(g, [1.0, 1.0, 0.36787944117144233, 1.0], rtol=1e-15)
    (g,) = _grads(lambda x: F.elu(x, alpha=-0.5), device, [nan, 0.0, -1.0, 2.0])
    np.testing.assert_allclose(g, [1.0, -0.5, -0.18393972058572117, 1.0], rtol=1e-15)
    (g,) = _grads(F.selu, device, [nan, 0.0, -1.0, 2.0])
    np.testing.assert_allclose(g, [1.0507009873554805, 1.7580993408473766, 0.646768603034814, 1.0507009873554805],
                               rtol=1e-15)
    (g,) = _grads(F.hardswish, device, [-3.0, -2.9, 0.0, 2.9, 3.0, 3.1])
    np.testing.assert_allclose(g, [0.0, -0.4666666666666667, 0.5, 1.4666666666666668, 1.0, 1.0], rtol=1e-15)
    # maximum/minimum: half each at a tie, the whole gradient to both operands at a NaN
    gx, gy = _grads(tl.maximum, device, [nan, 1.0, 2.0, 3.0], [1.0, nan, 2.0, 1.0])
    np.testing.assert_array_equal(gx, [1.0, 1.0, 0.5, 1.0])
    np.testing.assert_array_equal(gy, [1.0, 1.0, 0.5, 0.0])
    gx, gy = _grads(tl.minimum, device, [nan, 1.0, 2.0, 3.0], [1.0, nan, 2.0, 1.0])
    np.testing.assert_array_equal(gx, [1.0, 1.0, 0.5, 0.0])
    np.testing.assert_array_equal(gy, [1.0, 1.0, 0.5, 1.0])
    gx, gy = _grads(tl.atan2, device, [0.0, 1.0, 0.0], [0.0, 0.0, 2.0])  # 0 at the origin, not 0/0
    np.testing.assert_array_equal(gx, [0.0, 0.0, 0.5])
    np.testing.assert_array_equal(gy, [0.0, -1.0, 0.0])


def test_comparisons_are_not_differentiable(device):
    x = t([1.0, 2.0], device).requires_grad_()
    assert not (x > 1).requires_grad
    assert not tl.isnan(x).requires_grad


def test_reused_strided_plans_follow_each_call(device):
    # The launcher works out a strided geometry's launches once (common._strided_plan); what it
    # reuses must follow each call's arrays and scalars. Eight dims that no stride pattern merges
    # split into pieces at element offsets; slices of a 9-D tensor share that geometry.
    a = np.arange(2.0 ** 9).reshape((2,) * 9)
    z = tl.tensor(a, device=device)
    rev = tuple(range(7, -1, -1))
    for i in range(2):
        for s in (2.0, -3.0):
            np.testing.assert_array_equal(to_numpy(z[i].permute(rev) * s), a[i].transpose(rev) * s)
        np.testing.assert_array_equal(to_numpy(z[i].permute(rev) + z[1 - i].permute(rev)),
                                      a[i].transpose(rev) + a[1 - i].transpose(rev))


# ----------------------------------------------------------------------------------------------
# against PyTorch 2.13 (values checked there): unsigned shifts and powers, scalars that do not
# fit, half-precision scalars, integer division by zero
# ----------------------------------------------------------------------------------------------


def test_unsigned_shifts_and_powers(device):
    u = tl.tensor([200, 255, 128, 3], dtype=tl.uint8, device=device)
    assert (u >> 8).tolist() == [0, 0, 0, 0]  # the width or more: 0 (a signed type keeps its sign)
    assert (u >> 7).tolist() == [1, 1, 1, 0]
    assert (u >> tl.tensor([0, 9, 200, 1], dtype=tl.uint8, device=device)).tolist() == [200, 0, 0, 1]
    assert (tl.tensor([-8, 8], dtype=tl.int8, device=device) >> 9).tolist() == [-1, 0]
    assert (u ** 2).tolist() == [64, 1, 0, 9]  # wraps, as C
    assert (u ** u).tolist() == [0, 255, 0, 27]
    assert (2 ** u).tolist() == [0, 0, 0, 8]


def test_numbers_that_do_not_fit_a_clamp_or_where_result_raise(device):
    u = tl.tensor([200, 7], dtype=tl.uint8, device=device)
    c = tl.tensor([True, False], device=device)
    for call in (lambda: tl.where(c, u, 300), lambda: tl.tensor([1.0], dtype=tl.float16, device=device).clamp(max=1e6)):
        with pytest.raises(RuntimeError, match="value cannot be converted to type .* without overflow"):
            call()
    # torch 2.15: an integer clamp's bound beyond the range on its own side saturates; one beyond
    # the range on the other side raises (test_integer_clamp_saturates_number_bounds_beyond_the_dtype...)
    assert u.clamp(max=300).tolist() == [200, 7] and u.clamp(min=-1).tolist() == [200, 7]
    assert tl.tensor([1, 2], dtype=tl.int32, device=device).clamp(-2 ** 40, 2 ** 40).tolist() == [1, 2]
    with pytest.raises(RuntimeError, match="Clamp min value 256 is outside the representable range of Byte"):
        u.clamp_min(256)
    assert tl.where(c, u, -1).tolist() == [200, 255]  # -1 wraps into an unsigned type, as in PyTorch
    assert (u + 300).tolist() == [244, 51] and (u < 300).tolist() == [False, True]  # arithmetic wraps
    assert u.clamp(max=2.5).tolist() == [2.5, 2.5]  # a float bound promotes


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_half_precision_ops_round_numbers_to_their_dtype(device, dtype):
    x = tl.tensor([0.1], dtype=dtype, device=device)
    assert (x == 0.1).item() and (0.1 == x).item() and not (x < 0.1).item() and (x >= 0.1).item()
    if dtype is tl.float16:
        assert (x + 0.1).item() == 0.199951171875
        assert (tl.tensor([0.5], dtype=dtype, device=device) + 70000).item() == float("inf")
        # mul reads its number operand unrounded in float32 (PyTorch's kernel): 0.5 * 70000 fits
        assert (tl.tensor([0.5], dtype=dtype, device=device) * 70000).item() == 35008.0


def test_where_takes_a_uint8_condition_with_a_warning(device):
    # PyTorch 2.13: a uint8 condition is deprecated but works (nonzero is True); other dtypes raise
    c = tl.tensor([1, 0, 2], dtype=tl.uint8, device=device)
    a = t([1.0, 2.0, 3.0], device).requires_grad_()
    b = t([-1.0, -2.0, -3.0], device)
    with pytest.warns(UserWarning, match="where received a uint8 condition tensor. This behavior is deprecated"):
        r = tl.where(c, a, b)
    assert r.tolist() == [1.0, -2.0, 3.0]
    r.sum().backward()
    assert a.grad.tolist() == [1.0, 0.0, 1.0]
    with pytest.warns(UserWarning, match="uint8 condition"):
        assert tl.where(c, 1.0, 0.0).tolist() == [1.0, 0.0, 1.0]
    with pytest.warns(UserWarning, match="uint8 condition"):
        assert b.where(c, 0).tolist() == [-1.0, 0.0, -3.0]
    with pytest.raises(RuntimeError, match="expected condition to be a boolean tensor, but got .* dtype Long"):
        tl.where(c.long(), a, b)


@pytest.mark.parametrize("dtype", [tl.float16, tl.bfloat16])
def test_half_precision_numbers_round_as_pytorch(device, dtype):
    """Bit-exact against torch 2.13: a number converts to float16/bfloat16 through float32 (c10's
    Half/BFloat16 are built from a float), in the binary ops, where and clamp; lerp computes with
    its weight in float32 and does not round it to the tensor's dtype."""
    f = tl.tensor([False, False], device=device)
    z = tl.zeros(2, dtype=dtype, device=device)
    # just above a midpoint of two fp16 (resp. bf16) neighbours; float32 rounds it onto the midpoint,
    # which then ties to even: 1.0, where rounding once would give the upper neighbour
    v = 1.00048828225 if dtype is tl.float16 else 1.00390625 + 1e-9
    for r in (z + v, z * 0 + v, tl.where(f, z, v), tl.where(~f, v, z), tl.clamp(z, v), tl.clamp(z, v, 2.0),
              tl.clamp(z + 2, max=v), tl.clamp_min(z, v), z.clone().clamp_(v, 2.0)):
        assert r.float().tolist() == [1.0, 1.0]
    one_tenth = 0.0999755859375 if dtype is tl.float16 else 0.10009765625  # 0.1 in the dtype
    h = tl.tensor([1.0, 0.0], dtype=dtype, device=device)
    assert tl.where(f, h, 0.1).float().tolist() == [one_tenth] * 2
    assert tl.clamp(h, -0.1, 0.1).float().tolist() == [one_tenth, 0.0]
    assert h.clone().clamp_(-0.1, 0.1).float().tolist() == [one_tenth, 0.0]
    if dtype is tl.float16:  # with the weight rounded to fp16 (0.333251953125) this would be 21824.0
        w = tl.lerp(tl.zeros(1, dtype=dtype, device=device), tl.tensor([65504.0], dtype=dtype, device=device), 1 / 3)
        assert w.float().tolist() == [21840.0]
    elif device == "cpu":  # (Triton's interpreter rounds float32 -> bf16 stores toward zero: 900.0, 39.75)
        s, e = tl.tensor([0.0, 100.0], dtype=dtype), tl.tensor([3000.0, -100.0], dtype=dtype)
        assert tl.lerp(s, e, 0.3).float().tolist() == [904.0, 40.0]  # a bf16 weight would give 39.75


@pytest.mark.parametrize("sdtype", [tl.float32, tl.float64])
def test_0d_tensor_with_a_half_tensor_rounds_like_a_number(device, sdtype):
    """Bit-exact against torch 2.13 (cpu): a 0-d float32/float64 tensor does not promote a float16
    tensor (the result is float16) and is rounded to float16 first, like a number; except as the
    second operand of mul and div, which PyTorch's kernels read unrounded in float32 (numbers too:
    ``h * 0.1`` is ``mul(h, 0.1)``). add's alpha is rounded as well."""
    h = tl.tensor([3.0, 1.0, 0.0], dtype=tl.float16, device=device)

    def s(v):
        return tl.tensor(v, dtype=sdtype, device=device)

    cases = [  # 2049.0000001 rounds (through float32) to 2048 in float16; unrounded, 1 + it would be 2050
        (h + s(2049.0000001), [2052.0, 2048.0, 2048.0]), (s(2049.0000001) + h, [2052.0, 2048.0, 2048.0]),
        (h - s(2049.0000001), [-2045.0, -2047.0, -2048.0]),
        (h.clone().add_(s(2049.0000001)), [2052.0, 2048.0, 2048.0]),
        (tl.remainder(h, s(0.1)), [0.000732421875, 0.000244140625, 0.0]),
        (h ** s(1 / 3), [1.4423828125, 1.0, 0.0]),
        (tl.mul(s(0.1), h), [0.2998046875, 0.0999755859375, 0.0]),  # first operand: rounded
        (h * s(0.1), [0.300048828125, 0.0999755859375, 0.0]), (h * 0.1, [0.300048828125, 0.0999755859375, 0.0]),
        (0.1 * h, [0.300048828125, 0.0999755859375, 0.0]),
        (h.clone().mul_(0.1), [0.300048828125, 0.0999755859375, 0.0]),
        (h / s(1.00048828225), [2.998046875, 0.99951171875, 0.0]),
        (h / 1.00048828225, [2.998046875, 0.99951171875, 0.0]),
        (h // s(0.1), [29.0, 9.0, 0.0]), (h // 0.1, [29.0, 9.0, 0.0]),
        (tl.add(h, h, alpha=2049.0000001), [6148.0, 2048.0, 0.0]),
    ]
    for r, expected in cases:
        assert r.dtype is tl.float16 and r.tolist() == expected
    assert ((h * 0 + s(0.1)) == s(0.1)).tolist() == [True] * 3  # float16(0.1) == tensor(0.1)
    assert (h < s(1 / 3)).tolist() == [False, False, True]
    a = s(0.5).requires_grad_()
    x = h.clone().requires_grad_()
    ((x + a).sum() + (x * a).sum()).backward()  # the rounding is not on the tape
    assert a.grad.dtype is sdtype and a.grad.item() == 7.0 and x.grad.tolist() == [1.5] * 3


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.float16, tl.bfloat16])
def test_pow_by_a_number_half_or_minus_one_is_sqrt_rsqrt_reciprocal(device, dtype):
    """PyTorch's pow_tensor_scalar: a number exponent 0.5, -0.5 or -1 runs sqrt, rsqrt or reciprocal
    (torch 2.13 cpu for float32/float64/bfloat16 and its cuda kernels for every float dtype; its
    cpu float16 kernel calls std::pow); a tensor exponent (0-d too) is pow, whose values at -inf and
    -0. differ. The twin and the kernel agree (numpy's own x ** 0.5 shortcut for a broadcast
    exponent included)."""
    inf = float("inf")
    x = tl.tensor([-inf, -0.0, 0.0, -1.0, 4.0, inf], dtype=dtype, device=device)

    def same(r, expected):  # nan where nan, and the sign of a zero
        assert r.dtype is dtype
        got = np.array(r.float().tolist())
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(np.signbit(got[got == 0]), np.signbit(np.array(expected)[got == 0]))

    nan = float("nan")
    same(tl.pow(x, 0.5), [nan, -0.0, 0.0, nan, 2.0, inf])
    same(x ** 0.5, [nan, -0.0, 0.0, nan, 2.0, inf])
    same(tl.pow(x, -0.5), [nan, -inf, inf, nan, 0.5, 0.0])
    same(tl.pow(x, -1), [-0.0, -inf, inf, -1.0, 0.25, 0.0])
    same(x.clone().pow_(0.5), [nan, -0.0, 0.0, nan, 2.0, inf])
    pow_values = [inf, 0.0, 0.0, nan, 2.0, inf]  # C's pow(x, 0.5)
    same(tl.pow(x, tl.tensor(0.5, dtype=dtype, device=device)), pow_values)
    same(tl.pow(x, tl.full((6,), 0.5, dtype=dtype, device=device)), pow_values)
    same(tl.pow(x, tl.tensor([0.5], dtype=dtype, device=device)), pow_values)  # broadcast: stride 0


def test_arithmetic_functions_take_a_number_first(device):
    """torch 2.13 takes a number as the first operand of add, sub, mul, div, true_divide and
    floor_divide (as remainder and pow), converted to a float16 common dtype like any operand
    (div(70000., half) is inf, where the operator 70000. / half is reciprocal(half) * 70000.)."""
    x = t([2.0, 4.0], device)
    assert tl.add(2, x).tolist() == [4.0, 6.0] and tl.add(2, x, alpha=0.5).tolist() == [3.0, 4.0]
    assert tl.sub(2, x, alpha=2).tolist() == [-2.0, -6.0] and tl.subtract(2, x).tolist() == [0.0, -2.0]
    assert tl.mul(3, x).tolist() == [6.0, 12.0] and tl.multiply(3, x).tolist() == [6.0, 12.0]
    assert tl.div(1, x).tolist() == [0.5, 0.25] and tl.true_divide(2, x).tolist() == [1.0, 0.5]
    assert tl.floor_divide(7, x).tolist() == [3.0, 1.0]
    assert tl.div(-7, x, rounding_mode="trunc").tolist() == [-3.0, -1.0]
    i = t([2, 3], device)
    assert tl.div(7, i, rounding_mode="floor").tolist() == [3, 2] and tl.div(7, i).dtype is tl.float32
    assert tl.add(True, t([True, False], device)).tolist() == [True, True]
    o = tl.zeros(2, device=device)
    assert tl.add(2, x, out=o) is o and o.tolist() == [4.0, 6.0]
    h = t([2.0, 3.0], device, tl.float16)
    assert tl.div(70000.0, h).tolist() == [float("inf")] * 2 and tl.add(70000.0, -h).tolist() == [float("inf")] * 2
    assert tl.mul(0.1, t([3.0], device, tl.float16)).tolist() == [0.2998046875]  # 0.1 rounded first
    with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
        tl.add(2, i, alpha=0.5)
    with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor"):
        tl.sub(True, x)
    with pytest.raises(TypeError, match="mul\\(\\): argument 'input' must be Tensor or Number, not str"):
        tl.mul("a", x)
    y = x.clone().requires_grad_()
    (tl.sub(1, y, alpha=3) + tl.div(8, y) + tl.mul(2, y)).sum().backward()
    assert y.grad.tolist() == [-3.0 - 2.0 + 2.0, -3.0 - 0.5 + 2.0]


def test_rsub_with_alpha_computes_in_the_result_dtype(device):
    """torch 2.13: rsub(input, other, alpha) is sub(other, input, alpha): other - alpha * input in
    the result dtype (float32 for an int16 tensor and a float number: alpha * -16384 does not wrap
    in int16), and a float alpha with an integer result raises, as sub's check."""
    i16 = t([-16384], device, tl.int16)
    r = tl.rsub(i16, -0.758, alpha=3)
    assert r.dtype is tl.float32 and r.tolist() == [49151.2421875]
    assert tl.rsub(t([1, 2], device, tl.int32), 7, alpha=3).tolist() == [4, 1]
    assert tl.rsub(t([127], device, tl.int8), 1, alpha=2).tolist() == [3]  # 1 - 254 wraps in int8, as torch
    assert tl.rsub(t([1.0, 2.0], device, tl.float16), 70000.0, alpha=2).tolist() == [float("inf")] * 2
    assert tl.rsub(t([1.0], device), t([5.0], device), alpha=2).tolist() == [3.0]
    for call in (lambda: tl.rsub(t([1], device, tl.int32), 2, alpha=0.5),
                 lambda: tl.rsub(t([1], device), t([2], device), alpha=0.5)):
        with pytest.raises(RuntimeError, match=r"rsub\(\): For integral input tensors, argument alpha must not be a "
                                               "floating point number"):
            call()
    with pytest.raises(TypeError, match=r"rsub\(\): argument 'input' \(position 1\) must be Tensor, not int"):
        tl.rsub(2, t([1.0], device))  # (it computed t - 2)
    x = t([1.0, 2.0], device).requires_grad_()
    y = tl.rsub(x, 1.0, alpha=3)
    y.sum().backward()
    assert y.tolist() == [-2.0, -5.0] and x.grad.tolist() == [-3.0, -3.0]


def test_alpha_value_and_weight_must_fit_the_dtype(device):
    """torch 2.13 converts add/sub's alpha to the result dtype, and addcmul/addcdiv's value and lerp's
    number weight to its opmath type (float32 for float16), raising 'value cannot be converted to
    type float without overflow' where tensorlab gave inf or a wrapped integer (add(int8 1, 1,
    alpha=300) was 45); a complex alpha is refused (alpha=1j was read as 0, 2+0j as 2); an int
    beyond 64 bits is an OverflowError. Numbers that fit still work, and nothing is written."""
    f32, f16, i8 = t([1.0, 2.0], device), t([1.0, 2.0], device, tl.float16), t([1, 2], device, tl.int8)
    overflow = "value cannot be converted to type {} without overflow"
    for call, into in ((lambda: tl.add(f32, f32, alpha=1e50), "float32"),
                       (lambda: tl.add(f32, f32, alpha=np.float64(1e39)), "float32"),
                       (lambda: tl.sub(i8, i8, alpha=300), "int8"), (lambda: tl.rsub(i8, i8, alpha=-200), "int8"),
                       (lambda: tl.add(f16, f16, alpha=70000), "float16"),
                       (lambda: tl.add(t([1], device, tl.int32), 1, alpha=2**40), "int32"),
                       (lambda: f32.clone().add_(f32, alpha=1e50), "float32"),
                       (lambda: tl.addcmul(f32, f32, f32, value=1e50), "float32"),
                       (lambda: tl.addcmul(i8, i8, i8, value=300), "int8"),
                       (lambda: tl.addcdiv(f16, f16, f16, value=1e39), "float32"),
                       (lambda: tl.lerp(f32, f32, 1e50), "float32"), (lambda: tl.lerp(f16, f16, 1e39), "float32")):
        with pytest.raises(RuntimeError, match=overflow.format(into)):
            call()
    for alpha in (1j, 2 + 0j, 1 + 0j):
        with pytest.raises(RuntimeError, match="argument alpha must not be a complex number"):
            tl.add(f32, f32, alpha=alpha)
    with pytest.raises(OverflowError):
        tl.add(i8, i8, alpha=2**70)
    dst = f32.clone()
    with pytest.raises(RuntimeError, match=overflow.format("float32")):
        dst.addcmul_(f32, f32, value=1e50)
    assert dst.tolist() == [1.0, 2.0]
    # what fits: float16 reads addcmul's value and lerp's weight in float32, add's alpha in float16
    assert tl.addcmul(f16, f16, f16, value=70000).tolist() == [math.inf, math.inf]
    assert tl.lerp(f16, f16, 70000.0).tolist() == [1.0, 2.0]
    assert tl.add(f32, f32, alpha=math.inf).tolist() == [math.inf, math.inf]  # (inf and nan convert)
    assert tl.add(t([1], device, tl.uint8), t([1], device, tl.uint8), alpha=-1).tolist() == [0]  # (wraps, as C++)
    assert tl.add(i8, f32, alpha=300).tolist() == [301.0, 602.0]  # (the result is float32)
    assert tl.add(t([1], device, tl.int64), 1, alpha=2**62).tolist() == [2**62 + 1]


def test_number_parameters_as_pytorch_reads_them(device):
    """torch 2.13's Scalar parameters: a 0-d tensor that does not require grad is its number (an
    optimizer's tensor step size: p.add_(g, alpha=-lr)); a complex number with no imaginary part is
    its real part for addcmul/addcdiv/lerp/addmm (tensorlab raised TypeError for both); addcmul has
    no alpha_check, so an integer addcmul truncates a float value and a bool value is 1 (both
    raised). add/sub still refuse any complex alpha, and integer add/addr a float or complex one."""
    x, a, b = t([1.0, 2.0], device), t([3.0, 4.0], device), t([2.0, 8.0], device)
    xi, i8 = t([1, 2], device, tl.int64), t([1, 2], device, tl.int8)
    m = tl.ones(2, 2, device=device)
    assert tl.addcmul(x, a, b, value=2 + 0j).tolist() == [13.0, 66.0]
    assert tl.addcdiv(x, a, b, value=2 + 0j).tolist() == [4.0, 3.0]
    assert tl.lerp(x, a, 2 + 0j).tolist() == x.clone().lerp_(a, 2 + 0j).tolist() == [5.0, 6.0]
    assert tl.addmm(m, m, m, alpha=2 + 0j, beta=2 + 0j).tolist() == [[6.0, 6.0], [6.0, 6.0]]
    assert tl.addcmul(x, a, b, value=True).tolist() == [7.0, 34.0]
    if device == "cpu":  # (no integer product kernel on cuda, as PyTorch)
        assert tl.addmm(m.long(), m.long(), m.long(), alpha=2 + 0j).tolist() == [[5, 5], [5, 5]]
    assert tl.addcmul(xi, xi, xi, value=2.5).tolist() == [3, 10]  # truncated to 2
    assert tl.addcmul(xi, xi, xi, value=-2.5 + 0j).tolist() == [-1, -6]
    assert xi.clone().addcmul_(xi, xi, value=True).tolist() == [2, 6]
    for call in (lambda v: tl.addcmul(x, a, b, value=v), lambda v: tl.lerp(x, a, v),
                 lambda v: tl.addmm(m, m, m, beta=v), lambda v: tl.addcmul(i8, i8, i8, value=v)):
        with pytest.raises(RuntimeError, match="cannot be converted to type .* without overflow"):
            call(1j)
    with pytest.raises(RuntimeError, match="cannot be converted to type int8 without overflow"):
        tl.addcmul(i8, i8, i8, value=300.5)
    for bad in (2 + 0j, 2.0):
        with pytest.raises(RuntimeError, match="argument beta must not be a floating point number"):
            tl.addr(m.long(), xi, xi, beta=bad)
    # 0-d tensors as numbers
    lr = tl.tensor(0.5, device=device)
    assert tl.add(x, a, alpha=lr).tolist() == [2.5, 4.0]
    assert x.clone().sub_(a, alpha=lr).tolist() == [-0.5, 0.0]
    assert tl.rsub(x, a, alpha=tl.tensor(2)).tolist() == [1.0, 0.0]
    assert x.clone().addcdiv_(a, b, value=-lr).tolist() == [0.25, 1.75]
    assert tl.addmm(m, m, m, alpha=tl.tensor(2.0), beta=lr).tolist() == [[4.5, 4.5], [4.5, 4.5]]
    assert tl.addr(m, x, x, alpha=tl.tensor(3.0)).tolist() == [[4.0, 7.0], [7.0, 13.0]]
    with pytest.raises(RuntimeError, match="argument alpha must not be a floating point number"):
        tl.add(xi, xi, alpha=tl.tensor(2.0))
    with pytest.raises(RuntimeError, match="Boolean alpha only supported for Boolean results"):
        tl.add(x, x, alpha=tl.tensor(True))
    for bad in (tl.tensor([2.0], device=device), tl.tensor(2.0, device=device, requires_grad=True)):
        for call in (lambda v: tl.add(x, a, alpha=v), lambda v: tl.addcmul(x, a, b, value=v),
                     lambda v: tl.addmm(m, m, m, alpha=v)):
            with pytest.raises(TypeError, match="must be Number, not Tensor"):
                call(bad)


def test_lerp_zero_d_weight_joins_the_dtype_promotion(device):
    """torch 2.13: lerp's weight tensor must have input's dtype unless it is 0-d; a 0-d weight takes
    part in the dtype promotion like a number (float16 ema.lerp_(x, <0-d float32>) raised here;
    int64 input with a 0-d float weight is float32; all 0-d is float64 with a float64 weight)."""
    def T(v, dtype=None):
        return tl.tensor(v, dtype=dtype, device=device)

    r = tl.lerp(T([0.0]), T([1.0]), T(1 / 3, tl.float64))
    assert r.dtype is tl.float32 and r.tolist() == [np.float32(1 / 3)]
    assert tl.lerp(T([0.0]), T([1.0]), T(2)).tolist() == [2.0]
    assert tl.lerp(T([0.0]), T([1.0]), T(True)).tolist() == [1.0]
    r = tl.lerp(T(1.0), T(2.0), T(0.5, tl.float64))
    assert r.dtype is tl.float64 and r.item() == 1.5
    r = tl.lerp(T([0]), T([1]), T(0.5))
    assert r.dtype is tl.float32 and r.tolist() == [0.5]
    h = T([0.0, 2000.0], tl.float16)
    assert h.lerp_(T([1.0, 0.0], tl.float16), T(0.25)) is h and h.dtype is tl.float16 and h.tolist() == [0.25, 1500.0]
    w = T(0.5, tl.float64).requires_grad_()
    start, end = T([0.0, 1.0]).requires_grad_(), T([3.0, 5.0]).requires_grad_()
    gs, ge, gw = tl.autograd.grad(tl.lerp(start, end, w).sum(), (start, end, w))
    assert gs.tolist() == ge.tolist() == [0.5, 0.5] and gw.dtype is tl.float64 and gw.item() == 7.0
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        tl.lerp(T([0]), T([1]), T(1))
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        T([0]).lerp_(T([1]), T(0.5))
    with pytest.raises(RuntimeError, match="expected dtype float32 for `weight` but got dtype float64"):
        tl.lerp(T(0.0), T(1.0), T([0.5], tl.float64))
    with pytest.raises(RuntimeError, match="expected dtype float32 for `end` but got dtype float64"):
        tl.lerp(T([0.0]), T(1.0, tl.float64), 0.5)


def test_integer_tensor_with_a_half_result_is_rounded_to_it_first(device):
    """torch 2.13: every operand is converted to the common dtype before computing, so an integer
    tensor in a float16/bfloat16 op is rounded to that dtype (int -> float32 -> half) before the
    float32 arithmetic: int32 70000 is inf in float16, int64 257 is 256 in bfloat16, int16 16383 is
    16384 in float16. So is a reflected number (``70000.0 // half_t`` is inf // 2: nan); the number
    ``/`` divides is not (PyTorch's ``2 / t`` is ``reciprocal(t) * 2``)."""
    def T(v, dtype=None):
        return tl.tensor(v, dtype=dtype, device=device)

    h = T([-65504.0, 2048.0], tl.float16)
    i32 = T([70000, 2049], tl.int32)
    assert (h + i32).tolist() == [float("inf"), 4096.0] and (i32 + h).tolist() == [float("inf"), 4096.0]
    assert (h - i32).tolist() == [float("-inf"), 0.0] and tl.sub(i32, h, alpha=2).tolist() == [float("inf"), -2048.0]
    assert (h * i32).tolist() == [float("-inf"), float("inf")]
    assert (h < i32).tolist() == [True, False] and (h == i32).tolist() == [False, True]
    assert (h.expand(3, 2) == i32.expand(3, 2)).tolist() == [[False, True]] * 3  # strided operands
    assert (T([256.0], tl.bfloat16) == T([257])).tolist() == [True]
    assert (T([257]) > T([256.0], tl.bfloat16)).tolist() == [False]
    assert (T([16383, 3], tl.int16) % T([0.5596, 0.5596], tl.float16)).tolist() == [0.3408203125, 0.2021484375]
    assert (T([4097], tl.int64) // T([2.0], tl.bfloat16)).tolist() == [2048.0]  # 4097 is 4096 in bf16
    assert tl.maximum(T([2049], tl.int16), T([0.0], tl.float16)).tolist() == [2048.0]
    assert tl.addcmul(T([0.0, 0.0], tl.float16), T([70000, 2049]), T([1, 1])).tolist() == [float("inf"), 2048.0]
    assert tl.addcdiv(T([0.0], tl.bfloat16), T([257]), T([1.0], tl.bfloat16)).tolist() == [256.0]
    assert (T([True, False]) + T([0.5, 0.5], tl.float16)).tolist() == [1.5, 0.5]
    # a reflected number is rounded too, but not the one `/` divides nor mul's/div's second operand
    two = T([2.0, 3.0], tl.float16)
    assert all(math.isnan(v) for v in (70000.0 // two).tolist())
    assert (70000.0 - two).tolist() == [float("inf")] * 2
    assert (70000.0 / two).tolist() == [35008.0, 23328.0]
    assert (two * 70000.0).tolist() == [float("inf")] * 2 and (T([0.5], tl.float16) * 70000).tolist() == [35008.0]
    # an integer input of a float16 default dtype's floating op: rounded to float16 first
    before = tl.get_default_dtype()
    tl.set_default_dtype(tl.float16)
    try:
        assert tl.sqrt(T([70000, 4])).tolist() == [float("inf"), 2.0]
        assert (T([2049, 1]) / T([1, 1])).tolist() == [2048.0, 1.0]
        assert (T([2049]) * 1.0).tolist() == [2048.0] and (T([2049]) * 1.0).dtype is tl.float16
    finally:
        tl.set_default_dtype(before)
    # same dtypes: nothing to round (a half tensor with itself, an integer tensor with an integer)
    assert (T([2049]) + T([1])).tolist() == [2050]


_OVERLAP = "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single"


def test_partially_overlapping_writes_raise_as_pytorch(device):
    """torch 2.13 refuses an elementwise write or copy whose input is a dense view of the same
    memory that overlaps the destination without being it; it takes disjoint views, the destination
    itself, and views it cannot call dense (strided)."""
    x = tl.arange(6.0, device=device)
    refused = [
        ("copy_", lambda: x.__setitem__(slice(1, None), x[:-1])), ("copy_", lambda: x[1:].copy_(x[:-1])),
        ("copy_", lambda: x[:-1].copy_(x[1:])), ("add", lambda: tl.add(x[:-1], 1, out=x[1:])),
        ("add", lambda: tl.add(x[1:], 1, out=x[:-1])), ("add_", lambda: x[1:].add_(x[:-1])),
        ("neg", lambda: tl.neg(x[:-1], out=x[1:])), ("mul", lambda: tl.mul(x[:-1], x[1:], out=x[1:])),
        ("add_", lambda: x.view(3, 2).add_(x.view(2, 3).t())),  # same memory, another layout
    ]
    for name, call in refused:
        with pytest.raises(RuntimeError, match=f"{name}: {_OVERLAP}"):
            call()
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]  # nothing written
    # an input that overlaps only once broadcast: the row x[0] is dense and the write to x covers it
    # (torch 2.15 checks the input itself, not its broadcast)
    m = tl.arange(10.0, device=device).view(2, 5)
    broadcast = [
        ("add_", lambda: m.__iadd__(m[0])), ("add_", lambda: m.add_(m[1:])), ("lerp_", lambda: m.lerp_(m[1], 0.5)),
        ("addcmul_", lambda: m.addcmul_(m[0], m[1])), ("where", lambda: tl.where(m > 3, m[0], m, out=m)),
        ("add", lambda: tl.add(m, m[0], out=m)), ("copy_", lambda: m.copy_(m[0])),
    ]
    for name, call in broadcast:
        with pytest.raises(RuntimeError, match=f"{name}: {_OVERLAP}"):
            call()
    assert m.tolist() == [[0.0, 1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0, 9.0]]
    accepted = [  # (each on a fresh arange(6); results as torch's)
        (lambda y: y[:3].copy_(y[3:]), [3.0, 4.0, 5.0, 3.0, 4.0, 5.0]),
        (lambda y: y.copy_(y), [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]),
        (lambda y: y[::2].copy_(y[1::2]), [1.0, 1.0, 3.0, 3.0, 5.0, 5.0]),
        (lambda y: tl.add(y[:3], y[3:], out=y[3:]), [0.0, 1.0, 2.0, 3.0, 5.0, 7.0]),
        (lambda y: tl.add(y, 1, out=y), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]),
        (lambda y: y[:3].add_(y[3:]), [3.0, 5.0, 7.0, 3.0, 4.0, 5.0]),
        (lambda y: y.__setitem__(slice(1, None), y[:-1] * 1), [0.0, 0.0, 1.0, 2.0, 3.0, 4.0]),
        (lambda y: y.__setitem__(slice(1, 3), y[0]), [0.0, 0.0, 0.0, 3.0, 4.0, 5.0]),
    ]
    for call, expected in accepted:
        y = tl.arange(6.0, device=device)
        call(y)
        assert y.tolist() == expected


def test_an_out_view_of_an_input_that_needs_resizing_is_checked_before_it_is_resized(device):
    # torch 2.15 checks the overlap first: out=b[0] overlaps b, so it is refused (resized first, it
    # became all of b and the write silently replaced the input)
    b, a = tl.ones(2, 3, device=device), tl.tensor([1.0, 2.0, 3.0], device=device)
    with pytest.raises(RuntimeError, match=f"add: {_OVERLAP}"):
        tl.add(b, a, out=b[0])
    with pytest.raises(RuntimeError, match=f"neg: {_OVERLAP}"):
        tl.neg(b, out=b[1, :2])
    assert b.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
    # an empty out= starts where its slice starts (torch: c[2:2].storage_offset() is 2), and is
    # resized from there: into c[2:4]
    c = tl.zeros(4, device=device)
    assert c[2:2].storage_offset() == 2 and c[4:].storage_offset() == 4 and c[:, None][3:1].storage_offset() == 3
    tl.add(tl.ones(2, device=device), 1, out=c[2:2])
    assert c.tolist() == [0.0, 0.0, 2.0, 2.0]


def test_integer_division_by_zero_raises_on_cpu():
    a, z = tl.tensor([7, -7]), tl.tensor([0, 0])
    for call in (lambda: a // z, lambda: a % z, lambda: tl.fmod(a, z), lambda: a % 0,
                 lambda: tl.div(a, z, rounding_mode="trunc"), lambda: tl.div(a, z, rounding_mode="floor"),
                 lambda: tl.tensor([3], dtype=tl.uint8) % tl.tensor([0], dtype=tl.uint8)):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            call()
    assert (a / z).tolist() == [float("inf"), float("-inf")]  # true division is floating
    assert (tl.tensor([1.0]) // 0).tolist() == [float("inf")]


def test_integer_division_of_an_empty_tensor_by_zero_is_empty(device):
    """torch 2.13 (cpu and cuda): an empty integer tensor divided by 0 is empty, no error."""
    e = tl.tensor([], dtype=tl.int32, device=device)
    e2 = tl.zeros((0, 3), dtype=tl.int32, device=device)
    zeros = tl.zeros(3, dtype=tl.int32, device=device)
    for r in (e // 0, e % 0, tl.fmod(e, 0), tl.div(e, 0, rounding_mode="trunc"), e // e, e2 % zeros):
        assert r.dtype is tl.int32 and r.numel() == 0


@pytest.mark.parametrize("dtype", [tl.float16, tl.float32])
def test_div_gradient_of_the_divisor_does_not_square_it(device, dtype):
    """d(x / y)/dy = -x / y**2 is computed as (x / y) / y, as PyTorch: y * y overflowed float16 from
    |y| = 256 (the gradient was -0, so softsign's float16 slope at 300 was 1/301 instead of 1/301**2)
    and underflowed for small y (an infinite gradient where it is finite)."""
    if dtype is tl.float16:  # y * y: 90000 (> 65504) and 4e-8 (< half the smallest subnormal)
        xs, ys = [30.0, 60.0, 1e-3, 2e-3], [300.0, -300.0, 2e-4, -2e-4]
    else:  # y * y: 1e40 (> 3.4e38) and 1e-46 (< 1.4e-45)
        xs, ys = [1e15, 2e15, 1e-30, 2e-30], [1e20, -1e20, 1e-23, -1e-23]
    x = tl.tensor(xs, dtype=dtype, device=device)
    y = tl.tensor(ys, dtype=dtype, device=device, requires_grad=True)
    (x / y).backward(tl.ones(4, dtype=dtype, device=device))
    xr, yr = (to_numpy(v.float()).astype(np.float64) for v in (x, y.detach()))
    assert_close(y.grad.float(), -xr / yr**2, rtol=2e-3 if dtype is tl.float16 else 1e-6, atol=0)
    if dtype is tl.float16:  # softsign(x) = x / (1 + |x|): slope 1 / (1 + |x|)**2 (was 1 / (1 + |x|))
        s = tl.tensor([300.0, -1000.0], dtype=dtype, device=device, requires_grad=True)
        tl.nn.functional.softsign(s).backward(tl.ones(2, dtype=dtype, device=device))
        # the slope is 1/301 - 300/301**2 in float16: a cancellation, good to about 4e-7 (as PyTorch's)
        assert_close(s.grad.float(), 1 / (1 + np.array([300.0, 1000.0])) ** 2, rtol=0, atol=1e-6)


# ----------------------------------------------------------------------------------------------
# dtypes PyTorch refuses or keeps (checked against torch 2.13)
# ----------------------------------------------------------------------------------------------


def test_dtype_kernels_pytorch_lacks_raise_not_implemented(device):
    b, i = t([True, False], device), t([3, 4], device)
    with pytest.raises(NotImplementedError, match=r"\"hypot\" not implemented for 'Long'"):
        tl.hypot(i, i)
    with pytest.raises(NotImplementedError, match=r"\"hypot\" not implemented for 'Bool'"):
        tl.hypot(b, b)
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        i.clone().hypot_(i)
    assert tl.hypot(t([3], device), t([4.0], device)).tolist() == [5.0]  # a float operand: fine
    with pytest.raises(NotImplementedError, match=r"\"pow\" not implemented for 'Bool'"):
        tl.pow(b, b)  # (was a plain RuntimeError: PyTorch raises NotImplementedError, a RuntimeError subclass)


def test_logical_ops_take_no_number(device):
    x = t([0.0, 1.0, 2.0], device)
    for name in ("logical_and", "logical_or", "logical_xor"):
        with pytest.raises(TypeError, match=rf"{name}\(\): argument 'other' \(position 2\) must be Tensor, not int"):
            getattr(tl, name)(x, 1)
        with pytest.raises(TypeError, match="must be Tensor, not bool"):
            getattr(x, name)(True)
        with pytest.raises(TypeError, match=rf"{name}_\(\): argument 'other' \(position 1\) must be Tensor, not float"):
            getattr(x, name + "_")(1.5)
    assert x.tolist() == [0.0, 1.0, 2.0]  # nothing written
    assert tl.logical_and(x, t(1, device)).tolist() == [False, True, True]  # a 0-d tensor is fine


def test_atan2_and_hypot_in_place_take_no_number(device):
    # torch 2.13: atan2_/hypot_ have no Scalar overload (x.atan2_(2.0) is a TypeError); tensorlab
    # computed x.atan2_(2.0), and x.hypot_(2) on an integer tensor raised a NotImplementedError
    for name in ("atan2", "hypot"):
        for dtype, number in ((tl.float32, 2.0), (tl.float64, 2), (tl.int64, 2), (tl.float16, True)):
            x = t([1.0, 2.0], device).to(dtype)
            with pytest.raises(TypeError, match=rf"{name}_\(\): argument 'other' \(position 1\) must be Tensor, "
                                                rf"not {type(number).__name__}"):
                getattr(x, name + "_")(number)
            assert x.tolist() == [1, 2]  # nothing written
    x = t([3.0, 4.0], device)
    assert x.hypot_(t(4.0, device)).tolist() == [5.0, 5.656854152679443]  # a 0-d tensor is fine


def test_ternary_argument_kinds_and_out_dtypes_as_pytorch(device):
    # torch 2.13: clamp takes two tensor bounds or two number bounds, not one of each; lerp's end is a
    # Tensor; where's out= takes tensor values and exactly the result dtype; lerp with a weight tensor
    # (not 0-d) takes an out= of the input's dtype only. tensorlab computed all of these.
    x, lo, hi = t([1.0, 5.0], device), t([2.0, 2.0], device), t([4.0, 4.0], device)
    for call in (lambda: tl.clamp(x, lo, 4.0), lambda: tl.clamp(x, min=2, max=hi), lambda: x.clone().clamp_(lo, 4),
                 lambda: tl.lerp(x, 1.0, 0.5), lambda: tl.lerp(x, 2, hi), lambda: x.clone().lerp_(1.0, 0.5),
                 lambda: tl.where(x > 2, x, 0.0, out=tl.empty(2, device=device)),
                 lambda: tl.where(x > 2, 1, x, out=tl.empty(2, device=device))):
        with pytest.raises(TypeError):
            call()
    o = tl.zeros(2, dtype=tl.float64, device=device)
    with pytest.raises(RuntimeError, match="Expected out type to be Float but got Double"):
        tl.where(x > 2, x, lo, out=o)
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
        tl.lerp(x, hi, lo, out=o)
    assert o.tolist() == [0.0, 0.0]  # nothing written
    # what PyTorch takes: a bound alone, two of a kind, a number weight or a 0-d one with a cast out=
    assert tl.clamp(x, None, hi).tolist() == [1.0, 4.0] and tl.clamp(x, lo, hi).tolist() == [2.0, 4.0]
    assert tl.lerp(x, hi, 0.5, out=o).tolist() == [2.5, 4.5]
    assert tl.lerp(x, hi, t(0.5, device), out=tl.empty(2, dtype=tl.float16, device=device)).tolist() == [2.5, 4.5]
    assert tl.where(x > 2, x, lo, out=tl.empty(2, device=device)).tolist() == [2.0, 5.0]


def test_clamp_and_addcmul_of_bool_raise(device):
    b = t([True, False], device)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.clamp(b, min=True)  # a number bound
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.clamp(b, t(False, device), t(True, device))  # both bounds (tensors)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.clamp_max(b, True)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        b.clamp_(True)
    with pytest.raises(NotImplementedError, match=r"\"addcmul\" not implemented for 'Bool'"):
        tl.addcmul(b, b, b)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        b.addcmul_(b, b)
    assert b.tolist() == [True, False]
    # what PyTorch accepts: a result that is not bool, or a single tensor bound
    assert tl.clamp(b, 0, 1).tolist() == [1, 0] and tl.clamp(b, 0, 1).dtype is tl.int64
    assert tl.clamp(b, 0.5).tolist() == [1.0, 0.5]
    assert tl.clamp_min(b, t(True, device)).tolist() == [True, True]
    assert tl.addcmul(t([1, 2], device), b, b).tolist() == [2, 2]


def test_pow_of_bool_by_bool_number_stays_bool(device):
    b = t([True, False], device)
    assert tl.pow(b, True).tolist() == [True, False] and tl.pow(b, True).dtype is tl.bool
    assert (b ** False).tolist() == [True, True] and (b ** False).dtype is tl.bool
    assert tl.pow(b, 2).dtype is tl.int64  # an int exponent promotes
    assert b.clone().pow_(True).tolist() == [True, False]
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.pow(True, b)


def test_hardtanh_of_integers(device):
    x = t([-3, 0, 3], device)
    y = tl.nn.functional.hardtanh(x)  # default limits -1.0, 1.0 convert to the integer dtype
    assert y.tolist() == [-1, 0, 1] and y.dtype is tl.int64
    assert tl.nn.functional.hardtanh(x, -2.5, 2.5).tolist() == [-2, 0, 2]  # truncated, as PyTorch
    assert tl.nn.functional.hardtanh(x.clone(), inplace=True).tolist() == [-1, 0, 1]
    # torch 2.15: the limits are clamp's integer bounds, saturated to the dtype (2.13 refused a
    # negative limit for uint8 and a limit beyond int8)
    assert tl.nn.functional.hardtanh(t([0, 3], device, tl.uint8)).tolist() == [0, 1]
    assert tl.nn.functional.hardtanh(t([1], device, tl.int8), -1000, 1000).tolist() == [1]
    # torch 2.15: NotImplementedError (TORCH_CHECK_NOT_IMPLEMENTED), for relu6 and in place too
    for call in (lambda b: tl.nn.functional.hardtanh(b), lambda b: tl.nn.functional.relu6(b),
                 lambda b: tl.nn.functional.hardtanh(b, inplace=True)):
        with pytest.raises(NotImplementedError, match="Bool inputs not supported for hardtanh"):
            call(t([True], device))
    # ... also with a NaN limit, which an integer input cannot take (it became a float32 NaN tensor)
    nan = float("nan")
    for lo, hi in ((nan, nan), (0.0, nan), (nan, 1.0)):
        with pytest.raises(RuntimeError, match="value cannot be converted to type .* without overflow"):
            tl.nn.functional.hardtanh(x, lo, hi)
        with pytest.raises(NotImplementedError, match="Bool inputs not supported for hardtanh"):
            tl.nn.functional.hardtanh(t([True], device), lo, hi)
    assert x.tolist() == [-3, 0, 3]


def test_logaddexp_xlogy_and_inverse_hyperbolics(device):
    # values from torch 2.13
    inf, nan = float("inf"), float("nan")
    x = t([1.0, inf, -inf, nan, 0.0], device)
    r = tl.logaddexp(x, t([2.0, inf, inf, 0.0, -inf], device))
    np.testing.assert_allclose(r.tolist(), [2.3132617, inf, inf, nan, 0.0], rtol=1e-6)
    assert tl.logaddexp(x, x).tolist()[1:3] == [inf, -inf]  # equal infinities stay that infinity, not nan
    np.testing.assert_allclose(tl.logaddexp2(x, x).tolist(), [2.0, inf, -inf, nan, 1.0])
    with pytest.raises(NotImplementedError, match="not implemented for 'Long'"):
        tl.logaddexp(t([1, 2], device), t([1, 2], device))
    with pytest.raises(TypeError, match="argument 'other' \\(position 2\\) must be Tensor, not float"):
        tl.logaddexp(x, 1.0)
    y = tl.xlogy(t([0.0, 0.0, 1.0, 2.0, nan, 0.0], device), t([0.0, nan, 0.0, -1.0, 1.0, inf], device))
    np.testing.assert_array_equal(y.tolist(), [0.0, nan, -inf, nan, nan, 0.0])
    assert tl.xlogy(t([1, 2], device), t([1, 2], device)).dtype is tl.float32
    np.testing.assert_allclose(tl.xlogy(2, x).tolist(), [0.0, inf, nan, nan, -inf])
    with pytest.raises(RuntimeError, match="result type float32 can't be cast to the desired output type int64"):
        t([1], device).xlogy_(2)
    np.testing.assert_allclose(tl.acosh(t([0.5, 1.0, 2.0], device)).tolist(), [nan, 0.0, 1.3169579], rtol=1e-6)
    np.testing.assert_allclose(tl.atanh(t([-1.0, 0.5, 1.0, 2.0], device)).tolist(), [-inf, 0.5493061, inf, nan],
                               rtol=1e-6)
    np.testing.assert_allclose(tl.arcsinh(t([1, 2], device)).tolist(), [0.8813736, 1.4436355], rtol=1e-6)
    assert tl.erfc(t([9.0], device)).item() == pytest.approx(4.1370317e-37, rel=1e-5)  # 1 - erf(9) would give 0


def test_xlogy_gradient_where_x_is_zero(device):
    # torch 2.13: d/dx xlogy(x, y) is log(y), also at x == 0, except where y <= 0 (there 0)
    x = t([0.0, 0.0, 0.0, 2.0], device).requires_grad_()
    y = t([2.0, 0.0, -1.0, 3.0], device).requires_grad_()
    tl.xlogy(x, y).sum().backward()
    np.testing.assert_allclose(x.grad.tolist(), [np.log(2.0), 0.0, 0.0, np.log(3.0)], rtol=1e-6)
    np.testing.assert_allclose(y.grad.tolist(), [0.0, float("nan"), -0.0, 2.0 / 3.0], rtol=1e-6)  # x / y


def test_xlogy_inplace_gradient_of_self(device):
    # self's gradient reads self (0 where self is 0): xlogy_ computes from a clone when self requires
    # grad, as PyTorch saves the original self; it wrote in place and backward raised
    # 'modified by an inplace operation' unless other required grad.
    for other in (2.0, t([2.0, 0.5, 4.0], device, tl.float64)):
        x = t([0.0, 1.5, 2.0], device, tl.float64).requires_grad_()
        a = x * 1
        a.xlogy_(other)
        a.sum().backward()
        logs = np.log(np.broadcast_to(to_numpy(other) if isinstance(other, tl.Tensor) else other, (3,)))
        assert_close(x.grad, logs)


def test_remembered_binary_plans_follow_what_decides_them(device):
    """Binary meta remembers the usual signatures; what it keys on must still decide each call: the
    default dtype (int / int), alpha's value and type, the number's type, and errors raised every time."""
    i = t([1, 2, 3], device)
    before = tl.get_default_dtype()
    try:
        for dtype in (tl.float32, tl.float64, tl.float32):
            tl.set_default_dtype(dtype)
            assert (i / i).dtype is dtype
            assert (i * 0.5).dtype is dtype  # an int tensor and a float number: the default dtype
            assert (i < 1.5).tolist() == [True, False, False]
    finally:
        tl.set_default_dtype(before)
    assert (i * 2).dtype is tl.int64 and (i * 2).tolist() == [2, 4, 6]
    assert tl.add(i, i, alpha=2).tolist() == [3, 6, 9]
    assert tl.add(i, i).tolist() == [2, 4, 6]
    for _ in range(2):  # a failing signature is never remembered as a plan
        with pytest.raises(RuntimeError, match="alpha must not be a floating point number"):
            tl.add(i, i, alpha=2.0)
        with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with two bool tensors"):
            t([True], device) - t([False], device)
    f = t([1.0, 2.0], device)
    assert (f - 1).tolist() == [0.0, 1.0] and (1 - f).tolist() == [0.0, -1.0]  # reversed: its own key
    assert (f ** 2).tolist() == [1.0, 4.0] and (2 ** f).tolist() == [2.0, 4.0]


def test_dtype_keeping_unary_ops_take_an_out_of_their_input_dtype_only(device):
    # torch 2.13: neg, abs, sign, the roundings, frac, bitwise_not and nan_to_num refuse an out= of
    # another dtype (neg(float32_t, out=float64_t): "Found dtype Double but expected Float"), checked
    # before the kernel is looked for; tensorlab computed and cast into it
    f, i = t([1.5, -2.0], device), t([3, -4], device, tl.int8)
    for name in ("neg", "abs", "sign", "sgn", "floor", "ceil", "trunc", "fix", "round", "frac", "bitwise_not"):
        for x, dtype in ((f, tl.float64), (i, tl.int16), (i, tl.float32)):
            o = tl.zeros(2, dtype=dtype, device=device)
            with pytest.raises(RuntimeError, match=f"Found dtype {tl._dtype.torch_name(dtype)} but expected "
                                                   f"{tl._dtype.torch_name(x.dtype)}"):
                getattr(tl, name)(x, out=o)
            assert o.tolist() == [0, 0]  # nothing written
    with pytest.raises(RuntimeError, match="Found dtype Double but expected Bool"):
        tl.abs(t([True], device), out=tl.empty(1, dtype=tl.float64, device=device))
    with pytest.raises(RuntimeError, match="nan_to_num: dtype of out: Double should be same as input: Float"):
        tl.nan_to_num(f, out=tl.empty(2, dtype=tl.float64, device=device))
    o = tl.empty(2, device=device)  # the input's dtype: fine; so is a promoting op's out= of another dtype
    assert tl.neg(f, out=o).tolist() == [-1.5, 2.0]
    assert tl.exp(i, out=tl.empty(2, dtype=tl.float64, device=device)).dtype is tl.float64
    with pytest.raises(RuntimeError, match="The `\\+` operator, on a bool tensor is not supported"):
        tl.positive(t([True], device))  # (a RuntimeError, as PyTorch's; was a TypeError)


def test_in_place_aliases_and_predicate_out(device):
    # PyTorch's in-place aliases of the comparisons and atan2, and out= of isposinf/isneginf/signbit
    # (bool only, as torch 2.13: "does not support non-boolean outputs")
    x = tl.tensor([1.0, 2.0, 3.0], device=device)
    for name, expected in (("greater_", [0, 0, 1]), ("greater_equal_", [0, 1, 1]), ("less_", [1, 0, 0]),
                           ("less_equal_", [1, 1, 0]), ("not_equal_", [1, 0, 1])):
        t = x.clone()
        assert getattr(t, name)(2.0) is t and t.dtype is tl.float32
        assert to_numpy(t).tolist() == expected, name
    t = tl.tensor([1.0, -1.0], device=device)
    assert t.arctan2_(tl.tensor([-1.0, -1.0], device=device)) is t
    np.testing.assert_allclose(to_numpy(t), [3 * math.pi / 4, -3 * math.pi / 4], rtol=1e-6)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        tl.ones(2, dtype=tl.int64, device=device).arctan2_(tl.ones(2, device=device))
    v = tl.tensor([-math.inf, -0.0, 1.0, math.inf, math.nan], device=device)
    for fn, expected in ((tl.isposinf, [0, 0, 0, 1, 0]), (tl.isneginf, [1, 0, 0, 0, 0]), (tl.signbit, [1, 1, 0, 0, 0])):
        out = tl.empty(5, dtype=tl.bool, device=device)
        assert fn(v, out=out) is out
        assert to_numpy(out).tolist() == [bool(e) for e in expected]
        grown = tl.empty(0, dtype=tl.bool, device=device)
        fn(v, out=grown)
        assert grown.shape == (5,)
        with pytest.raises(RuntimeError, match=f"{fn.__name__} does not support non-boolean outputs"):
            fn(v, out=tl.empty(5, device=device))
    assert v.signbit().dtype is tl.bool and tl.isposinf(v).dtype is tl.bool


def test_pow_number_exponent_must_fit_an_integer_or_half_result(device):
    """pow(Tensor, Scalar) converts the exponent to an integer or float16/bfloat16 result's dtype, with
    PyTorch's overflow check; float32/float64 read it as a double, and a number base is not checked
    (PyTorch: 300 ** int8_t wraps to 44, 70000.0 ** half_t is inf)."""
    h = tl.ones(2, dtype=tl.float16, device=device)
    i8 = tl.ones(2, dtype=tl.int8, device=device)
    for base, exponent, name in ((h, 70000.0, "float16"), (h, 1e10, "float16"), (i8, 200, "int8"), (i8, 300, "int8"),
                                 (tl.ones(2, dtype=tl.bfloat16, device=device), 1e39, "bfloat16")):
        with pytest.raises(RuntimeError, match=f"pow: value cannot be converted to type {name} without overflow"):
            base ** exponent
    with pytest.raises(RuntimeError, match="without overflow"):
        h.clone().pow_(1e5)
    assert (h ** 300).tolist() == [1.0, 1.0] and (h ** float("inf")).tolist() == [1.0, 1.0]
    assert (tl.ones(2, device=device) ** 1e39).tolist() == [1.0, 1.0]
    assert (300 ** i8).tolist() == [44, 44] and (70000.0 ** h).tolist() == [math.inf] * 2
    assert (tl.ones(2, dtype=tl.uint8, device=device) ** 255).tolist() == [1, 1]


def test_where_rounds_half_numbers_unchecked(device):
    """where with a float16/bfloat16 result rounds a number without PyTorch's overflow check (70000.0
    and 1e300 are inf there); other result dtypes keep the check."""
    c = tl.tensor([True, False], device=device)
    for dt in (tl.float16, tl.bfloat16):
        x = tl.ones(2, dtype=dt, device=device)
        assert tl.where(c, x, 1e300).tolist() == [1.0, math.inf]
        assert tl.where(c, -1e300, x).tolist() == [-math.inf, 1.0]
    assert tl.where(c, tl.ones(2, dtype=tl.float16, device=device), 70000.0).tolist() == [1.0, math.inf]
    with pytest.raises(RuntimeError, match="where: value cannot be converted to type float32 without overflow"):
        tl.where(c, tl.ones(2, device=device), 1e39)
    with pytest.raises(RuntimeError, match="where: value cannot be converted to type int8 without overflow"):
        tl.where(c, tl.ones(2, dtype=tl.int8, device=device), 300)


def test_clamp_with_number_bounds_writes_only_its_dtype_to_out(device):
    """clamp/clip/clamp_min/clamp_max with number bounds take an out= of exactly the result dtype
    (PyTorch's clamp.Scalar_out); tensor bounds cast into any out= dtype."""
    x = tl.tensor([1.0, 5.0], device=device)
    i = tl.tensor([1, 5], device=device)
    for f, found, expected in ((lambda o: tl.clamp(x, 0, 2.5, out=o), tl.float64, "Float"),
                               (lambda o: tl.clip(x, 0, 2.5, out=o), tl.float16, "Float"),
                               (lambda o: tl.clamp_min(x, 2.0, out=o), tl.float64, "Float"),
                               (lambda o: tl.clamp_max(i, 2, out=o), tl.float32, "Long"),
                               (lambda o: tl.clamp(i, 0, 2.5, out=o), tl.float64, "Float")):
        out = tl.zeros(2, dtype=found, device=device)
        with pytest.raises(RuntimeError, match=f"but expected {expected}"):
            f(out)
        assert out.tolist() == [0, 0]
    assert tl.clamp(i, 0, 2.5, out=tl.zeros(2, device=device)).tolist() == [1.0, 2.5]
    bounds = tl.tensor(0.0, device=device), tl.tensor(2.5, device=device)
    assert tl.clamp(x, *bounds, out=tl.zeros(2, dtype=tl.float64, device=device)).tolist() == [1.0, 2.5]


@pytest.mark.parametrize("op", ["fmax", "fmin"])
def test_fmax_fmin_signed_zero_ties_give_the_first_operand(op, device):
    """PyTorch: fmax(+0, -0) is +0 and fmax(-0, +0) is -0 (the twin used numpy's rule, the kernel the
    second operand's: the devices disagreed)."""
    a = tl.tensor([0.0, -0.0, 0.0, -0.0, float("nan")], device=device)
    b = tl.tensor([-0.0, 0.0, 0.0, -0.0, -0.0], device=device)
    out = getattr(tl, op)(a, b).cpu().numpy()
    assert np.signbit(out).tolist() == [False, True, False, True, True]


def test_two_numbers_make_a_0d_tensor():
    # PyTorch's add/sub/mul/div/true_divide/floor_divide take two numbers (values and dtypes from torch 2.15;
    # they raised TypeError); the other binary functions still need a tensor
    cases = [(tl.add(2, 3.5), 5.5, tl.float32), (tl.add(2, 3, alpha=2), 8, tl.int64), (tl.sub(2, 3), -1, tl.int64),
             (tl.mul(True, False), False, tl.bool), (tl.div(7, 2), 3.5, tl.float32),
             (tl.true_divide(2, 4), 0.5, tl.float32), (tl.floor_divide(-7.0, 2), -4.0, tl.float32),
             (tl.floor_divide(7, 2), 3, tl.int64), (tl.div(7, 2, rounding_mode="floor"), 3, tl.int64)]
    for r, value, dtype in cases:
        assert r.shape == () and r.dtype is dtype and r.item() == value
    for call in (lambda: tl.maximum(2, 3), lambda: tl.atan2(1.0, 2.0)):
        with pytest.raises(TypeError, match="must be Tensor, not"):
            call()


def test_angle_of_real_numbers(device):
    # torch 2.15: pi below 0, 0 from -0.0 up, nan stays nan; float64 gets float64's pi (the kernel takes pi
    # as a parameter, not a float32 literal); integers give the default float; the gradient is zero
    x = tl.tensor([-1.0, -0.0, 0.0, 2.0, float("nan"), -float("inf")], dtype=tl.float64, device=device)
    got = to_numpy(tl.angle(x))
    assert got[0] == math.pi and got[5] == math.pi and got[1:4].tolist() == [0.0, 0.0, 0.0] and np.isnan(got[4])
    i = tl.tensor([-3, 0, 4], device=device).angle()
    assert i.dtype is tl.float32 and to_numpy(i).tolist() == [np.float32(math.pi), 0.0, 0.0]
    h = tl.angle(tl.tensor([-1.0], dtype=tl.bfloat16, device=device))
    assert h.dtype is tl.bfloat16 and h.item() == 3.140625  # torch: 3.1406
    w = tl.tensor([-1.0, 2.0], device=device, requires_grad=True)
    tl.angle(w).sum().backward()
    assert to_numpy(w.grad).tolist() == [0.0, 0.0]


def test_gcd_lcm_edge_values_and_errors(device):
    # torch 2.15's values, including its C arithmetic on the wrapped |min int64|
    m = -2**63
    a = tl.tensor([12, -18, 0, 0, 7, m, 5, m, -7], device=device)
    b = tl.tensor([18, 12, 0, -5, 0, 0, m, m, -21], device=device)
    assert to_numpy(tl.gcd(a, b)).tolist() == [6, 6, 0, 5, 7, m, -1, m, 7]
    assert to_numpy(a.lcm(b)).tolist() == [36, 36, 0, 0, 0, 0, m, m, 21]
    # 8-bit lcm is |a / g * b| in int, then narrowed: lcm(105, 89) is int8(9345) = -127 (the abs came first)
    i8 = to_numpy(tl.lcm(tl.tensor([105, 100, -128], dtype=tl.int8, device=device),
                         tl.tensor([89, 3, -128], dtype=tl.int8, device=device)))
    assert i8.tolist() == [-127, 44, -128]
    u8 = tl.lcm(tl.tensor([100, 120], dtype=tl.uint8, device=device), tl.tensor([3, 7], dtype=tl.uint8, device=device))
    assert u8.dtype is tl.uint8 and to_numpy(u8).tolist() == [44, 72]
    assert tl.gcd(tl.tensor([4, 6], dtype=tl.int8, device=device), tl.tensor([6], device=device)).dtype is tl.int64
    x = tl.tensor([4, 6], device=device)
    assert x.gcd_(tl.tensor([6, 9], device=device)) is x and to_numpy(x).tolist() == [2, 3]
    x.lcm_(tl.tensor([3, 2], device=device))
    assert to_numpy(x).tolist() == [6, 6]
    with pytest.raises(TypeError, match=r"gcd\(\): argument 'other' \(position 2\) must be Tensor, not int"):
        tl.gcd(x, 2)
    for dt, name in ((tl.float32, "Float"), (tl.bool, "Bool")):
        with pytest.raises(NotImplementedError, match=f"not implemented for '{name}'"):
            tl.gcd(tl.ones(2, dtype=dt, device=device), tl.ones(2, dtype=dt, device=device))
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        tl.lcm(tl.tensor([4], device=device), tl.tensor([2.0], device=device))
