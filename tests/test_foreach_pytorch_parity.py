"""tl._foreach_* against torch 2.15 (the values, dtypes and messages below were read from torch 2.15
on cpu; torch is not imported here): maximum/minimum with numbers and 0-d tensors, pow with a scalar
base, addcmul/addcdiv with a packed tensor of scalars, in-place forms returning their list, a 0-d
tensor ``other`` promoting as a Python number, and the linalg.matrix_norm/norm ``out=`` dtype and
dist's 0-d tensor ``p`` found with them."""

import math

import pytest

import tensorlab as tl

_DT = {"b": tl.bool, "u8": tl.uint8, "i8": tl.int8, "i16": tl.int16, "i32": tl.int32, "i64": tl.int64,
       "f16": tl.float16, "bf16": tl.bfloat16, "f32": tl.float32, "f64": tl.float64}
_ELEMENTS = ["b", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"]


def _t(data, device, dtype=None, **kw):
    return tl.tensor(data, dtype=dtype, device=device, **kw)


def _got(ts):
    return [(t.tolist(), t.dtype) for t in ts]


# ----------------------------------------------------------------------------------------------
# maximum / minimum (and clamp_min / clamp_max)
# ----------------------------------------------------------------------------------------------


def test_maximum_minimum_take_numbers_lists_and_tensors(device):
    x = _t([1.0, 5.0], device)
    ts = [x.clone()]
    assert tl._foreach_maximum_(ts, [_t([3.0, 3.0], device)]) is ts and ts[0].tolist() == [3.0, 5.0]
    assert _got(tl._foreach_maximum([x], 3.0)) == [([3.0, 5.0], tl.float32)]
    assert _got(tl._foreach_maximum([x], [3.0])) == [([3.0, 5.0], tl.float32)]
    assert _got(tl._foreach_maximum([x], _t(3.0, device))) == [([3.0, 5.0], tl.float32)]
    assert _got(tl._foreach_minimum([x], _t(3.0, device))) == [([1.0, 3.0], tl.float32)]
    assert _got(tl._foreach_minimum([x], math.inf)) == [([1.0, 5.0], tl.float32)]
    assert _got(tl._foreach_minimum([x, _t([2], device)], [3.0, 1])) == [([1.0, 3.0], tl.float32), ([1], tl.int64)]
    # an int list with a float number: clamp_min's promotion
    xi = _t([1, 5], device)
    for other in (3.5, [3.5], _t(3.5, device), [_t([3.5, 3.5], device)]):
        assert _got(tl._foreach_maximum([xi], other)) == [([3.5, 5.0], tl.float32)]
    assert _got(tl._foreach_clamp_min([xi], 3.5)) == [([3.5, 5.0], tl.float32)]
    # in place: the list back, the numbers and tensors of every form
    for fn, other, want in ((tl._foreach_maximum_, 3.0, [3.0, 5.0]), (tl._foreach_maximum_, [3.0], [3.0, 5.0]),
                            (tl._foreach_maximum_, _t(3, device), [3.0, 5.0]),
                            (tl._foreach_minimum_, _t(3.0, device), [1.0, 3.0]),
                            (tl._foreach_minimum_, [_t([3.0, 3.0], device)], [1.0, 3.0]),
                            (tl._foreach_clamp_max_, _t(3.0, device), [1.0, 3.0]),
                            (tl._foreach_clamp_max_, [_t([3.0, 3.0], device)], [1.0, 3.0])):
        ts = (x.clone(),)
        assert fn(ts, other) is ts and ts[0].tolist() == want
    ts = [_t([1, 5], device)]
    assert tl._foreach_maximum_(ts, [_t([3, 3], device)]) is ts and _got(ts) == [([3, 5], tl.int64)]
    # nan propagates
    nan = math.nan
    got = tl._foreach_maximum([_t([1.0, nan], device)], nan)[0].tolist()
    assert all(math.isnan(v) for v in got)
    got = tl._foreach_maximum_([_t([1.0, nan], device)], [_t([nan, 3.0], device)])[0].tolist()
    assert all(math.isnan(v) for v in got)


def test_maximum_minimum_errors():
    x = tl.tensor([1.0, 5.0])
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        tl._foreach_maximum_([tl.tensor([1, 5])], 3.5)
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        tl._foreach_maximum_([tl.tensor([1, 5])], [tl.tensor([3.5, 3.5])])
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
        tl._foreach_minimum_([tl.tensor([1, 5])], tl.tensor(3.5))
    with pytest.raises(RuntimeError, match="^Tensor list must have same number of elements as scalar list.$"):
        tl._foreach_maximum([x], [3.0, 4.0])
    with pytest.raises(RuntimeError, match="^Tensor list must have same number of elements as scalar list.$"):
        tl._foreach_maximum_([x], [3.0, 4.0])
    with pytest.raises(TypeError):  # (no alpha=)
        tl._foreach_maximum([x], 3.0, alpha=2)
    b = tl.tensor([True, False])
    for fn, other in ((tl._foreach_maximum, True), (tl._foreach_maximum, tl.tensor(True)),
                      (tl._foreach_clamp_min, True), (tl._foreach_clamp_min, tl.tensor(True)),
                      (tl._foreach_minimum, tl.tensor(True)), (tl._foreach_clamp_max, tl.tensor(True))):
        with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
            fn([b], other)
    assert _got(tl._foreach_maximum([b], 1)) == [([1, 1], tl.int64)]
    assert _got(tl._foreach_maximum([b], tl.tensor(1))) == [([1, 1], tl.int64)]
    assert _got(tl._foreach_maximum([b], [tl.tensor([True, True])])) == [([True, True], tl.bool)]
    with pytest.raises(RuntimeError, match="Clamp min value 300 is outside the representable range of Char"):
        tl._foreach_maximum([tl.tensor([1], dtype=tl.int8)], 300)


def test_maximum_minimum_gradients_share_ties():
    # torch: maximum with a number has maximum's gradient (a tie shares it), clamp_min's does not
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    tl._foreach_maximum([x], 2.0)[0].sum().backward()
    assert x.grad.tolist() == [0.0, 0.5]
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    tl._foreach_minimum([x], [1.0])[0].sum().backward()
    assert x.grad.tolist() == [0.5, 0.0]
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    tl._foreach_maximum([x], [tl.tensor([2.0, 2.0])])[0].sum().backward()
    assert x.grad.tolist() == [0.0, 0.5]
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    tl._foreach_clamp_min([x], 2.0)[0].sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]


# ----------------------------------------------------------------------------------------------
# pow with a scalar base
# ----------------------------------------------------------------------------------------------


def test_pow_with_a_scalar_base(device):
    assert _got(tl._foreach_pow(2.0, [_t([1.0, 3.0], device)])) == [([2.0, 8.0], tl.float32)]
    assert _got(tl._foreach_pow(2, [_t([1, 3], device)])) == [([2, 8], tl.int64)]
    assert _got(tl._foreach_pow(2.5, [_t([1, 3], device)])) == [([2.5, 15.625], tl.float32)]
    assert _got(tl._foreach_pow(2, [_t([-1, 3], device)])) == [([0, 8], tl.int64)]
    assert _got(tl._foreach_pow(True, [_t([1.0, 3.0], device)])) == [([1.0, 1.0], tl.float32)]
    got = tl._foreach_pow(2.0, (_t([1.0, 3.0], device), _t(2.0, device, tl.float64)))
    assert _got(got) == [([2.0, 8.0], tl.float32), (4.0, tl.float64)]
    got = tl._foreach_pow(2, [_t(1, device, tl.int8), _t([1.0, 3.0], device, tl.float16)])
    assert _got(got) == [(2, tl.int8), ([2.0, 8.0], tl.float16)]
    # a 0-d tensor base is a Scalar: it promotes as a number of its kind
    assert _got(tl._foreach_pow(_t(2.0, device), [_t([1.0, 3.0], device)])) == [([2.0, 8.0], tl.float32)]
    assert _got(tl._foreach_pow(_t(2.0, device, tl.float64), [_t([1, 3], device)])) == [([2.0, 8.0], tl.float32)]
    assert _got(tl._foreach_pow(_t(2, device), [_t(1, device, tl.int32)])) == [(2, tl.int32)]
    assert _got(tl._foreach_pow(_t(2049.0, device), [_t(1.0, device, tl.float16)])) == [(2048.0, tl.float16)]


def test_pow_with_a_scalar_base_gradient_and_errors():
    x = tl.tensor([1.0, 3.0], requires_grad=True)
    r = tl._foreach_pow(2.0, [x])
    r[0].sum().backward()
    assert r[0].tolist() == [2.0, 8.0]
    assert x.grad.tolist() == pytest.approx([1.3862943611, 5.5451774445], rel=1e-6)  # torch: 2**x * log(2)
    x = tl.tensor([0.0, 3.0], requires_grad=True)
    tl._foreach_pow(0.0, [x])[0].sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match=r"_foreach_pow\(\) received an invalid combination of arguments - got "
                                        r"\(Tensor, list\)"):
        tl._foreach_pow(tl.tensor([2.0, 3.0]), [tl.tensor([1.0, 3.0])])
    with pytest.raises(TypeError, match=r"got \(float, Tensor\)"):
        tl._foreach_pow(2.0, tl.tensor([1.0, 3.0]))
    with pytest.raises(RuntimeError, match="Tensor list must have at least one tensor"):
        tl._foreach_pow(2.0, [])
    with pytest.raises(TypeError, match="^expected Tensor as element 0 in argument 0, but got float$"):
        tl._foreach_pow([2.0], [tl.tensor([1.0, 3.0])])
    with pytest.raises(TypeError):
        tl._foreach_pow_(2.0, [tl.tensor([1.0, 3.0])])


# ----------------------------------------------------------------------------------------------
# addcmul / addcdiv with a packed tensor of scalars
# ----------------------------------------------------------------------------------------------


def test_addcmul_addcdiv_take_a_packed_tensor_of_scalars(device):
    zeros, ones = [_t([0.0, 0.0], device)] * 2, [_t([1.0, 1.0], device)] * 2
    assert _got(tl._foreach_addcmul(zeros, ones, ones, tl.tensor([2.0, 3.0]))) == [([2.0, 2.0], tl.float32),
                                                                                    ([3.0, 3.0], tl.float32)]
    twos = [_t([2.0, 2.0], device)] * 2
    assert _got(tl._foreach_addcdiv(zeros, ones, twos, tl.tensor([2.0, 3.0]))) == [([1.0, 1.0], tl.float32),
                                                                                    ([1.5, 1.5], tl.float32)]
    assert _got(tl._foreach_addcmul(zeros, ones, ones, tl.tensor([True, False]))) == [([1.0, 1.0], tl.float32),
                                                                                       ([0.0, 0.0], tl.float32)]
    assert _got(tl._foreach_addcmul(zeros, ones, ones, tl.tensor([2, 3]))) == [([2.0, 2.0], tl.float32),
                                                                                ([3.0, 3.0], tl.float32)]
    izeros, iones = [_t([0, 0], device)] * 2, [_t([1, 1], device)] * 2
    assert _got(tl._foreach_addcmul(izeros, iones, iones, tl.tensor([2.5, 3.0]))) == [([2, 2], tl.int64),
                                                                                       ([3, 3], tl.int64)]
    h = tl.float16
    got = tl._foreach_addcmul([_t([0.0, 0.0], device, h)] * 2, [_t([1.0, 1.0], device, h)] * 2,
                              [_t([1.0, 1.0], device, h)] * 2, tl.tensor([2.0, 3.0], dtype=tl.float64))
    assert _got(got) == [([2.0, 2.0], h), ([3.0, 3.0], h)]
    ts = [_t([0.0, 0.0], device), _t([0.0, 0.0], device)]
    assert tl._foreach_addcmul_(ts, ones, ones, tl.tensor([2.0, 3.0])) is ts
    assert [t.tolist() for t in ts] == [[2.0, 2.0], [3.0, 3.0]]
    ts = (_t([0.0, 0.0], device), _t([0.0, 0.0], device))
    assert tl._foreach_addcdiv_(ts, ones, twos, tl.tensor([2.0, 3.0])) is ts
    assert [t.tolist() for t in ts] == [[1.0, 1.0], [1.5, 1.5]]
    if device != "cpu":
        with pytest.raises(RuntimeError, match="^Expected scalars to be on CPU, got cuda:0 instead.$"):
            tl._foreach_addcmul(zeros, ones, ones, _t([2.0, 3.0], device))


def test_addcmul_addcdiv_packed_scalars_errors():
    zeros, ones = [tl.zeros(2)] * 2, [tl.ones(2)] * 2
    for fn in (tl._foreach_addcmul, tl._foreach_addcdiv, tl._foreach_addcmul_, tl._foreach_addcdiv_):
        with pytest.raises(RuntimeError, match="^Expected packed scalar Tensor to be of dimension 1. Got 0 instead.$"):
            fn([tl.zeros(2), tl.zeros(2)], ones, ones, tl.tensor(2.0))
        with pytest.raises(RuntimeError, match="^Expected packed scalar Tensor to be of dimension 1. Got 2 instead.$"):
            fn([tl.zeros(2), tl.zeros(2)], ones, ones, tl.tensor([[2.0, 3.0]]))
        with pytest.raises(RuntimeError, match="^Expected length of scalars to match input of length 2 but got 3 "
                                               "instead.$"):
            fn([tl.zeros(2), tl.zeros(2)], ones, ones, tl.tensor([2.0, 3.0, 4.0]))
    with pytest.raises(RuntimeError, match="^Expected length of scalars to match input of length 2 but got 1 instead"):
        tl._foreach_addcdiv(zeros, ones, ones, tl.tensor([2.0]))
    with pytest.raises(RuntimeError, match="^Expected length of scalars to match input of length 2 but got 0 instead"):
        tl._foreach_addcmul(zeros, ones, ones, tl.tensor([]))
    with pytest.raises(RuntimeError, match="^Expected scalars to be contiguous.$"):
        tl._foreach_addcmul(zeros, ones, ones, tl.tensor([2.0, 0.0, 3.0])[::2])
    with pytest.raises(RuntimeError, match="^Expected scalars to be contiguous.$"):
        tl._foreach_addcmul(zeros, ones, ones, tl.tensor(2.0).expand(2))


# ----------------------------------------------------------------------------------------------
# in-place forms return the list they were given
# ----------------------------------------------------------------------------------------------


def test_every_in_place_form_returns_its_list(device):
    def fresh():
        return [_t([1.0, 4.0], device), _t([[2.0, 9.0]], device)]

    others = [_t([1.0, 1.0], device), _t([[2.0, 2.0]], device)]
    calls = {
        "_foreach_zero_": (), "_foreach_copy_": (others,), "_foreach_add_": (others,), "_foreach_lerp_": (others, 0.5),
        "_foreach_addcmul_": (others, others, 2.0), "_foreach_addcdiv_": (others, others, [1.0, 2.0]),
        "_foreach_mul_": (2.0,), "_foreach_sub_": (_t(1.0, device),), "_foreach_div_": (others,),
        "_foreach_maximum_": (1.0,), "_foreach_minimum_": (others,), "_foreach_pow_": (2.0,),
        "_foreach_clamp_min_": (1.0,), "_foreach_clamp_max_": ([3.0, 4.0],), "_foreach_sqrt_": (),
    }
    names = sorted(n for n in dir(tl) if n.startswith("_foreach_") and n.endswith("_"))
    for name in names:
        args = calls.get(name, ())
        for make in (list, tuple):
            ts = make(fresh())
            assert getattr(tl, name)(ts, *args) is ts, name
    ts = fresh()
    tl._foreach_add_(ts, others, alpha=2)
    assert [t.tolist() for t in ts] == [[3.0, 6.0], [[6.0, 13.0]]]


def test_every_out_of_place_form_returns_a_tuple(device):
    # torch 2.15 returns a tuple of new tensors (a list only from the in-place forms)
    ts = [_t([1.0, 4.0], device), _t([[2.0, 9.0]], device)]
    others = [_t([1.0, 1.0], device), _t([[2.0, 2.0]], device)]
    calls = {"_foreach_lerp": (others, 0.5), "_foreach_addcmul": (others, others), "_foreach_addcdiv": (others, others),
             "_foreach_add": (others,), "_foreach_maximum": (1.0,), "_foreach_pow": (2.0,), "_foreach_norm": ()}
    names = sorted(n for n in dir(tl) if n.startswith("_foreach_") and not n.endswith("_"))
    for name in names:
        fn = getattr(tl, name)
        try:
            got = fn(ts, *calls.get(name, (others,)))
        except TypeError:  # (a unary form: no operand)
            got = fn(ts)
        assert type(got) is tuple and len(got) == 2, name
    assert type(tl._foreach_pow(2.0, ts)) is tuple


# ----------------------------------------------------------------------------------------------
# a 0-d tensor ``other`` promotes as a Python number (torch's Scalar overload)
# ----------------------------------------------------------------------------------------------

# torch 2.15's result dtypes of _foreach_<op>([element], <0-d tensor other>): for each other dtype,
# the elements in _ELEMENTS order, each 0-d then 1-d (E: an error). mul/div take the 0-d tensor as a
# Tensor (0-d float16 * 0-d float32 is float32); the others as a number of its kind.
_TORCH_DTYPES = {
    "add": {
        "b": "b b u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i64": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i32": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f32": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f64": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f16": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
    },
    "sub": {
        "b": "E E E E E E E E E E E E E E E E E E E E",
        "i64": "E E u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i32": "E E u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f32": "E E f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f64": "E E f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f16": "E E f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
    },
    "mul": {
        "b": "b b u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i64": "i64 i64 i64 u8 i64 i8 i64 i16 i64 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i32": "i32 i32 i32 u8 i32 i8 i32 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f32": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f32 bf16 f32 f32 f64 f64",
        "f64": "f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f16 f64 bf16 f64 f32 f64 f64",
        "f16": "f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f32 bf16 f32 f32 f64 f64",
    },
    "div": {
        "b": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i64": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i32": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f32": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f32 bf16 f32 f32 f64 f64",
        "f64": "f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f64 f16 f64 bf16 f64 f32 f64 f64",
        "f16": "f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f16 f32 bf16 f32 f32 f64 f64",
    },
    "maximum": {
        "b": "E E u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i64": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i32": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f32": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f64": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f16": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
    },
    "minimum": {
        "b": "E E u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i64": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i32": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f32": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f64": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f16": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
    },
    "pow": {
        "b": "b b u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i64": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i32": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f32": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f64": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f16": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
    },
    "clamp_min": {
        "b": "E E u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i64": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i32": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f32": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f64": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f16": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
    },
    "clamp_max": {
        "b": "E E u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i64": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "i32": "i64 i64 u8 u8 i8 i8 i16 i16 i32 i32 i64 i64 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f32": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f64": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
        "f16": "f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f32 f16 f16 bf16 bf16 f32 f32 f64 f64",
    },

}


def test_zero_dim_tensor_other_dtypes_match_torch():
    for op, rows in _TORCH_DTYPES.items():
        fn = getattr(tl, f"_foreach_{op}")
        for other_name, row in rows.items():
            other = tl.ones((), dtype=_DT[other_name])
            got = []
            for name in _ELEMENTS:
                for shape in ((), (2,)):
                    try:
                        r = fn([tl.ones(shape, dtype=_DT[name])], other)
                    except RuntimeError:  # (NotImplementedError is one)
                        got.append("E")
                    else:
                        got.append(next(k for k, v in _DT.items() if v is r[0].dtype))
            assert " ".join(got) == row, (op, other_name)


def test_zero_dim_tensor_other_promotes_as_a_number(device):
    h, bf = tl.float16, tl.bfloat16
    got = tl._foreach_add([_t(1.0, device, h), tl.ones(2, dtype=h, device=device)], _t(2.0, device))
    assert _got(got) == [(3.0, h), ([3.0, 3.0], h)]
    ints = [_t(1, device, d) for d in (tl.int32, tl.int16, tl.int8, tl.uint8, tl.bool)]
    assert _got(tl._foreach_add(ints, _t(2, device))) == [(3, tl.int32), (3, tl.int16), (3, tl.int8), (3, tl.uint8),
                                                          (3, tl.int64)]
    got = tl._foreach_add([_t(1, device, tl.int32), _t([1], device, tl.int32)], _t(2.5, device, tl.float64))
    assert _got(got) == [(3.5, tl.float32), ([3.5], tl.float32)]
    assert _got(tl._foreach_sub([_t(1, device, tl.int8), _t(1.0, device, h)], _t(3, device))) == [(-2, tl.int8),
                                                                                                   (-2.0, h)]
    assert _got(tl._foreach_pow([_t(3, device, tl.int16), _t(3.0, device, h)], _t(2, device))) == [(9, tl.int16),
                                                                                                    (9.0, h)]
    got = tl._foreach_maximum([_t(1, device, tl.uint8), _t(1.0, device, bf)], _t(2.0, device))
    assert _got(got) == [(2.0, tl.float32), (2.0, bf)]
    assert _got(tl._foreach_minimum([_t(1, device, tl.int32), _t(3.0, device, h)], _t(2, device))) == [
        (1, tl.int32), (2.0, h)]
    got = tl._foreach_clamp_min([_t(1, device, tl.int32), _t(3.0, device, h)], _t(2.0, device))
    assert _got(got) == [(2.0, tl.float32), (3.0, h)]
    got = tl._foreach_clamp_max([_t(1, device, tl.int32), _t(3.0, device, h)], _t(2.0, device))
    assert _got(got) == [(1.0, tl.float32), (2.0, h)]
    # the value is cast to that dtype first (2049 is 2048 in float16), wrapping ints as torch does
    assert _got(tl._foreach_add([_t(1.0, device, h)], _t(2049.0, device))) == [(2048.0, h)]
    assert _got(tl._foreach_add([_t(1, device, tl.int8), _t([1], device, tl.int8)], _t(300, device))) == [
        (45, tl.int8), ([45], tl.int8)]
    ts = [_t(1.0, device, h)]
    assert _got(tl._foreach_add_(ts, _t(2049.0, device))) == [(2048.0, h)]
    ts = [_t(1.0, device, h)]
    assert _got(tl._foreach_sub_(ts, _t(2049.0, device))) == [(-2047.0, h)]
    # with alpha= (or a tensor requiring grad) add is torch's Tensor overload: the tensor rule
    assert _got(tl._foreach_add([_t(1.0, device, h)], _t(2049.0, device), alpha=1)) == [(2050.0, tl.float32)]
    other = _t(2.0, device, requires_grad=True)
    assert [t.dtype for t in tl._foreach_add([_t(1.0, device, h)], other)] == [tl.float32]
    # mul/div: the Tensor rule
    assert _got(tl._foreach_mul([_t(1.0, device, h), tl.ones(2, dtype=h, device=device)], _t(2.0, device))) == [
        (2.0, tl.float32), ([2.0, 2.0], h)]
    assert _got(tl._foreach_mul([_t(1, device, tl.int32)], _t(2, device))) == [(2, tl.int64)]
    assert _got(tl._foreach_div([_t(1, device, tl.int32)], _t(2, device))) == [(0.5, tl.float32)]
    # bools: pow(bools, <0-d bool>) is x or not e; sub's bool error
    bools = [_t([True, False], device), _t(False, device)]
    assert _got(tl._foreach_pow(bools, _t(False, device))) == [([True, True], tl.bool), (True, tl.bool)]
    assert _got(tl._foreach_pow(bools, _t(True, device))) == [([True, False], tl.bool), (False, tl.bool)]
    with pytest.raises(NotImplementedError, match="Subtraction, the `-` operator, with a bool tensor is not supported"):
        tl._foreach_sub([tl.ones(2, device=device)], _t(True, device))


def test_zero_dim_tensor_lerp_weight_promotes_as_a_number(device):
    h, bf = tl.float16, tl.bfloat16
    got = tl._foreach_lerp([_t(1.0, device, h), _t([1.0, 2.0], device, h)],
                           [_t(3.0, device, h), _t([3.0, 3.0], device, h)], _t(0.5, device))
    assert _got(got) == [(2.0, h), ([2.0, 2.5], h)]
    # (torch reads the weight at full precision for a 0-d entry: 3 + 0.7 * 97 is 70.875 in float16)
    got = tl._foreach_lerp([_t(3.0, device, h)], [_t(100.0, device, h)], _t(0.7, device, tl.float64))
    assert _got(got) == [(70.875, h)]
    got = tl._foreach_lerp([_t(3.0, device, bf)], [_t(100.0, device, bf)], _t(0.3, device))
    assert _got(got) == [(32.0, bf)]
    ts = [_t(3.0, device, h)]
    assert tl._foreach_lerp_(ts, [_t(100.0, device, h)], _t(0.7, device, tl.float64)) is ts
    assert _got(ts) == [(70.875, h)]
    for weight_dtype in (tl.float32, tl.float64, tl.float16):
        for d in (h, bf, tl.float32, tl.float64):
            for shape in ((), (2,)):
                r = tl._foreach_lerp([tl.ones(shape, dtype=d)], [tl.ones(shape, dtype=d)],
                                     tl.tensor(0.5, dtype=weight_dtype))
                assert r[0].dtype is d


# ----------------------------------------------------------------------------------------------
# linalg.matrix_norm / linalg.norm out= dtype, dist with a 0-d tensor p
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("ord", [1, -1, math.inf, -math.inf, "fro"])
def test_matrix_norm_out_must_have_the_result_dtype(device, ord):
    A = _t([[1.0, -2.0], [3.0, 4.0]], device)
    want = {1: 6.0, -1: 4.0, math.inf: 7.0, -math.inf: 3.0, "fro": math.sqrt(30.0)}[ord]
    for fn, name in ((tl.linalg.matrix_norm, "linalg.matrix_norm"), (tl.linalg.norm, "linalg.norm")):
        for dtype, torch_name in ((tl.float64, "Double"), (tl.float16, "Half"), (tl.int64, "Long")):
            with pytest.raises(RuntimeError, match=f"^{name} expected out tensor dtype Float but got: {torch_name}$"):
                fn(A, ord, out=tl.empty(0, dtype=dtype, device=device))
        out = tl.empty(0, device=device)
        assert fn(A, ord, out=out) is out and out.item() == pytest.approx(want)
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm expected out tensor dtype Double but got: Float$"):
        tl.linalg.matrix_norm(A, ord, dtype=tl.float64, out=tl.empty(0, device=device))
    out = tl.empty(0, dtype=tl.float64, device=device)
    assert tl.linalg.matrix_norm(A, ord, dtype=tl.float64, out=out).dtype is tl.float64
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm expected out tensor dtype Double but got: Float$"):
        tl.linalg.matrix_norm(A.double(), ord, out=tl.empty(0, device=device))


def test_matrix_norm_out_dtype_checks_order():
    A = tl.tensor([[1.0, -2.0], [3.0, 4.0]])
    o64 = tl.empty(0, dtype=tl.float64)
    with pytest.raises(RuntimeError, match="^linalg.matrix_norm: Order 3 not supported.$"):
        tl.linalg.matrix_norm(A, 3, out=o64)
    with pytest.raises(RuntimeError, match=r"^linalg.matrix_norm: dims must be different. Got \(0, 0\)$"):
        tl.linalg.matrix_norm(A, 1, dim=(0, 0), out=o64)
    for fn in (tl.linalg.matrix_norm, tl.linalg.norm):
        for ord in (1, "fro"):
            with pytest.raises(RuntimeError, match=r"^linalg.matrix_norm: the dtype of the input \(Float\) should be "
                                                   r"convertible without narrowing to the specified dtype \(Half\)$"):
                fn(A, ord, dtype=tl.float16, out=o64)
    # before computing: an empty matrix's amin would raise otherwise
    for ord in (1, -1):
        with pytest.raises(RuntimeError, match="^linalg.matrix_norm expected out tensor dtype Float but got: Double$"):
            tl.linalg.matrix_norm(tl.ones(0, 2), ord, out=o64)
    # linalg.norm's vector norms name linalg.norm too
    with pytest.raises(RuntimeError, match="^linalg.norm expected out tensor dtype Float but got: Double$"):
        tl.linalg.norm(A, out=o64)
    with pytest.raises(RuntimeError, match="^linalg.norm expected out tensor dtype Float but got: Double$"):
        tl.linalg.norm(A, 1, dim=0, out=o64)


def test_dist_takes_a_zero_dim_tensor_p(device):
    a, b = tl.ones(3, device=device), tl.zeros(3, device=device)
    assert tl.dist(a, b, tl.tensor(1.0)).item() == 3.0
    assert tl.dist(a, b, _t(1.0, device)).item() == 3.0
    assert a.dist(b, tl.tensor(1.0)).item() == 3.0
    assert tl.dist(a, b, p=tl.tensor(1.0)).item() == 3.0
    assert tl.dist(a, b, tl.tensor(3)).item() == pytest.approx(1.4422495365142822)
    assert tl.dist(a, b, tl.tensor(True)).item() == 3.0
    assert tl.dist(a, b, True).item() == 3.0
    assert tl.dist(a, b, tl.tensor(math.inf)).item() == 1.0
    assert tl.dist(a, b, tl.tensor(0.0, dtype=tl.float64)).item() == 3.0
    assert tl.dist(tl.tensor([1.0, 0.0, 2.0], device=device), b, tl.tensor(0.0)).item() == 2.0
    assert tl.dist(a, b, tl.tensor(-1.0)).item() == pytest.approx(1 / 3)
    r = tl.dist(a.double(), b, tl.tensor(1.0))
    assert r.dtype is tl.float64 and r.item() == 3.0
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    tl.dist(x, tl.zeros(2), tl.tensor(1.0)).backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_dist_p_errors():
    a, b = tl.ones(3), tl.zeros(3)
    with pytest.raises(TypeError, match=r"^dist\(\): argument 'p' \(position 3\) must be Number, not Tensor$"):
        tl.dist(a, b, tl.tensor([1.0]))
    with pytest.raises(TypeError, match=r"^dist\(\): argument 'p' \(position 3\) must be Number, not Tensor$"):
        tl.dist(a, b, tl.tensor(1.0, requires_grad=True))
    with pytest.raises(TypeError, match=r"^dist\(\): argument 'p' \(position 3\) must be Number, not str$"):
        tl.dist(a, b, "fro")


def test_max_clone_rsqrt(device):
    # torch 2.15's _foreach_max (clip_grad_norm_'s inf norm), _foreach_clone and _foreach_rsqrt(_)
    a = [_t([1.0, 4.0], device), _t([[2, 7], [3, 1]], device)]
    assert [(m.tolist(), m.dtype, m.shape) for m in tl._foreach_max(a)] == [(4.0, tl.float32, ()), (7, tl.int64, ())]
    c = tl._foreach_clone(a)
    assert _got(c) == _got(a) and c[0].data_ptr() != a[0].data_ptr()
    assert _got(tl._foreach_rsqrt([a[0]])) == [([1.0, 0.5], tl.float32)]
    ts = [a[0].clone()]
    assert tl._foreach_rsqrt_(ts) is ts and ts[0].tolist() == [1.0, 0.5]
    with pytest.raises(RuntimeError, match="^_foreach_max cannot compute the maximum of an empty tensor"):
        tl._foreach_max([_t([1.0], device), _t([], device)])
    with pytest.raises(RuntimeError, match="^_foreach_clone: Tensor list must have at least one tensor.$"):
        tl._foreach_clone([])
    with pytest.raises(RuntimeError, match="can't be cast to the desired output type int64"):
        tl._foreach_rsqrt_([_t([4], device)])
