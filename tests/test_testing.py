"""tensorlab.testing: assert_close's tolerances, pairing and messages (the messages are PyTorch's,
checked against it once by hand), and make_tensor's ranges, layouts and argument checks."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.testing import assert_close, make_tensor

T = tl.tensor


def _raises(exc, match_text, fn, *args, **kwargs):
    with pytest.raises(exc) as info:
        fn(*args, **kwargs)
    assert str(info.value) == match_text, str(info.value)


# ----------------------------------------------------------------------------------------------
# assert_close
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, rtol, atol", [
    (tl.float16, 1e-3, 1e-5), (tl.bfloat16, 1.6e-2, 1e-5), (tl.float32, 1.3e-6, 1e-5), (tl.float64, 1e-7, 1e-7)])
def test_default_tolerances_per_dtype(dtype, rtol, atol, device):
    base = np.array([0.0, 1.0, 2.0, -4.0])
    inside = base + (atol + rtol * np.abs(base)) * 0.5
    outside = base + (atol + rtol * np.abs(base)) * 3
    e = T(base, dtype=dtype, device=device)
    # representable values only: round through the dtype, then compare in numpy what isclose decides
    a_in, a_out = T(inside, dtype=dtype, device=device), T(outside, dtype=dtype, device=device)
    got_in = np.array(a_in.cpu().to(tl.float64).numpy())
    if np.all(np.abs(got_in - base) <= atol + rtol * np.abs(base)):
        assert_close(a_in, e)
    with pytest.raises(AssertionError, match="Tensor-likes are not close!"):
        assert_close(a_out, e)


def test_exact_for_integers_and_bool(device):
    assert_close(T([1, 2, 3], device=device), T([1, 2, 3], device=device))
    _raises(AssertionError, "Tensor-likes are not equal!\n\nMismatched elements: 1 / 3 (33.3%)\n"
            "Greatest absolute difference: 4 at index (2,)\nGreatest relative difference: 0.5714285969734192 at "
            "index (2,)", assert_close, T([1, 2, 3], device=device), T([1, 2, 7], device=device))
    with pytest.raises(AssertionError, match="Tensor-likes are not equal!"):
        assert_close(T([True, False], device=device), T([True, True], device=device))
    _raises(AssertionError, "Scalars are not equal!\n\nExpected False but got True.\nAbsolute difference: 1\n"
            "Relative difference: inf", assert_close, T(True), T(False))


def test_message_like_pytorch():
    _raises(AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n"
            "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
            "Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)",
            assert_close, T([1.0, 2.0, 3.0]), T([1.0, 2.5, 3.0]))
    _raises(AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 2 / 4 (50.0%)\n"
            "Greatest absolute difference: 6.0 at index (1, 1) (up to 1e-05 allowed)\n"
            "Greatest relative difference: 6.0 at index (1, 1) (up to 1.3e-06 allowed)",
            assert_close, T([[1.0, 5.0], [2.0, 7.0]]), T([[1.0, 2.0], [2.0, 1.0]]))
    # NaN differences win the "greatest", as PyTorch's max propagates them
    _raises(AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 3 / 3 (100.0%)\n"
            "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\n"
            "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)",
            assert_close, T([4.0, 2.0, 3.0]), T([1.0, float("nan"), 0.0]))
    _raises(AssertionError, "Scalars are not close!\n\nExpected 1.5 but got 1.0.\n"
            "Absolute difference: 0.5 (up to 1e-05 allowed)\nRelative difference: 0.3333333333333333 (up to 1.3e-06 "
            "allowed)", assert_close, T(1.0), T(1.5))
    _raises(AssertionError, "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
            "Greatest absolute difference: 0.5 at index (1,)\nGreatest relative difference: 0.20000000298023224 at "
            "index (1,)", assert_close, T([1.0, 2.0]), T([1.0, 2.5]), rtol=0, atol=0)


def test_nan_inf_and_explicit_tolerances():
    nan, inf = float("nan"), float("inf")
    with pytest.raises(AssertionError):
        assert_close(T([nan, 1.0]), T([nan, 1.0]))
    assert_close(T([nan, 1.0]), T([nan, 1.0]), equal_nan=True)
    assert_close(T([inf, 1.0]), T([inf, 1.0]))
    with pytest.raises(AssertionError):
        assert_close(T([inf, 1.0]), T([-inf, 1.0]))
    assert_close(T([1.0, 2.0]), T([1.0, 2.5]), rtol=0.5, atol=0)
    assert_close(T([1, 2]), T([3, 2]), rtol=0.5, atol=1)
    _raises(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol.",
            assert_close, T([1.0]), T([1.0]), rtol=0.1)
    _raises(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, but got no rtol.",
            assert_close, 1.0, 1.0, atol=0.1)
    assert_close(None, None, atol=0.1)  # (no tolerances to get for None)


def test_attribute_checks(device):
    _raises(AssertionError, "The values for attribute 'shape' do not match: tensorlab.Size([1, 2]) != "
            "tensorlab.Size([2]).", assert_close, T([[1.0, 2.0]]), T([1.0, 2.0]))
    _raises(AssertionError, "The values for attribute 'dtype' do not match: tensorlab.float32 != tensorlab.float64.",
            assert_close, T([1.0, 2.0]), T([1.0, 2.0], dtype=tl.float64))
    assert_close(T([1.0, 2.0]), T([1.0, 2.0], dtype=tl.float64), check_dtype=False)
    with pytest.raises(AssertionError, match=r"up to 1e-05 allowed"):  # promoted to float64, float32's tolerances
        assert_close(T([1.0, 2.0]), T([1.0, 2.001], dtype=tl.float64), check_dtype=False)
    assert_close(T([1, 2], dtype=tl.int8), T([1.0, 2.0]), check_dtype=False)
    t = tl.zeros(2, 3).t()
    assert_close(t, tl.zeros(3, 2))
    _raises(AssertionError, "The values for attribute 'stride()' do not match: (1, 3) != (2, 1).",
            assert_close, t, tl.zeros(3, 2), check_stride=True)
    if device != "cpu":
        with pytest.raises(AssertionError, match="attribute 'device' do not match: cuda:0 != cpu"):
            assert_close(T([1.0], device=device), T([1.0]))
        assert_close(T([1.0], device=device), T([1.0]), check_device=False)
        with pytest.raises(AssertionError, match="not close"):
            assert_close(T([1.0], device=device), T([2.0]), check_device=False)
    assert_close(T([1.0, 2.0], requires_grad=True), T([1.0, 2.0]))
    assert_close(T([], dtype=tl.float32), T([], dtype=tl.float32))


def test_sequences_mappings_and_ids():
    assert_close([T([1.0]), (1, 2.0)], [T([1.0]), [1, 2.0]])
    _raises(AssertionError, "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
            "Greatest absolute difference: 1.0 at index (0,) (up to 1e-05 allowed)\n"
            "Greatest relative difference: 0.3333333432674408 at index (0,) (up to 1.3e-06 allowed)\n\n"
            "The failure occurred for item ['b'][1]",
            assert_close, {"a": T([1.0]), "b": [1, T([2.0])]}, {"a": T([1.0]), "b": [1, T([3.0])]})
    _raises(AssertionError, "The length of the sequences mismatch: 2 != 3", assert_close, [1, 2], [1, 2, 3])
    # a structural mismatch ignores msg, as in PyTorch
    _raises(AssertionError, "The length of the sequences mismatch: 2 != 3", assert_close, [1, 2], [1, 2, 3], msg="m")
    _raises(AssertionError, "The keys of the mappings do not match:\nMissing keys in the actual mapping: ['c']\n"
            "Additional keys in the actual mapping: ['b']", assert_close, {"a": 1, "b": 2}, {"a": 1, "c": 2})
    # keys are visited sorted: the first failure reported is 'a''s
    with pytest.raises(AssertionError, match=r"item \['a'\]"):
        assert_close({"b": T([1.0]), "a": T([5.0])}, {"a": T([1.0]), "b": T([2.0])})
    assert_close(tl.Size([2, 3]), (2, 3))


def test_scalars_none_and_bools():
    assert_close(1.0, 1.0 + 1e-8)
    _raises(AssertionError, "Scalars are not close!\n\nExpected 1.1 but got 1.0.\nAbsolute difference: "
            "0.10000000000000009 (up to 1e-07 allowed)\nRelative difference: 0.09090909090909098 (up to 1e-07 "
            "allowed)", assert_close, 1.0, 1.1)
    _raises(AssertionError, "The (d)types do not match: <class 'int'> != <class 'float'>.", assert_close, 1, 1.0)
    assert_close(1, 1.0, check_dtype=False)
    _raises(AssertionError, "Scalars are not equal!\n\nExpected 5 but got 3.\nAbsolute difference: 2\n"
            "Relative difference: 0.4", assert_close, 3, 5)
    assert_close(float("nan"), float("nan"), equal_nan=True)
    with pytest.raises(AssertionError, match="Scalars are not close"):
        assert_close(float("nan"), float("nan"))
    assert_close(np.float32(1.0), 1.0)
    _raises(AssertionError, "Booleans mismatch: True is not False", assert_close, True, False)
    assert_close(np.bool_(True), True)
    _raises(AssertionError, "None mismatch: None is not 1", assert_close, None, 1)
    assert_close(None, None)


def test_type_pairing():
    # a tensor pairs with a tensor only (numpy arrays with numpy arrays; never a number)
    for a, e in [(T([1.0, 2.0]), np.array([1.0, 2.0], dtype=np.float32)), (T([1.0]), 1.0), (T([1.0]), [1.0]),
                 ("a", "a")]:
        with pytest.raises(TypeError, match="No comparison pair was able to handle inputs of type"):
            assert_close(a, e)
    assert_close(np.array([1.0, 2.0]), np.array([1.0, 2.0]))
    with pytest.raises(AssertionError, match="Tensor-likes are not close"):
        assert_close(np.array([1.0, 2.0], dtype=np.float32), np.array([1.0, 2.5], dtype=np.float32))
    p = tl.nn.Parameter(T([1.0]))
    assert_close(p, T([1.0]))
    with pytest.raises(TypeError, match="No comparison pair"):
        assert_close(p, T([1.0]), allow_subclasses=False)


def test_dataclasses():
    @dataclasses.dataclass
    class Box:
        a: object
        b: int = 1

    assert_close(Box(1), Box(1))
    _raises(AssertionError, f"{Box(1)} != {Box(2)}", assert_close, Box(1), Box(2))
    with pytest.raises(AssertionError, match=r"(?s)not close.*item \['a'\]"):
        assert_close(Box(T([1.0, 2.0])), Box(T([1.0, 2.5])))


def test_msg_string_and_callable():
    _raises(AssertionError, "custom", assert_close, T([1.0, 2.0]), T([1.0, 2.5]), msg="custom")
    with pytest.raises(AssertionError) as info:
        assert_close([T([1.0]), T([2.0])], [T([1.0]), T([2.5])], msg=lambda m: "H\n" + m + "\nF")
    text = str(info.value)
    assert text.startswith("H\nTensor-likes are not close!") and text.endswith("item [1]\nF")


# ----------------------------------------------------------------------------------------------
# make_tensor
# ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype, low, high", [
    (tl.float32, -9, 9), (tl.float64, -9, 9), (tl.bfloat16, -9, 9), (tl.float16, -9, 9), (tl.int64, -9, 9),
    (tl.int8, -9, 9), (tl.uint8, 0, 9), (tl.bool, 0, 1)])
def test_make_tensor_default_ranges(dtype, low, high, device):
    t = make_tensor(400, dtype=dtype, device=device)
    assert t.dtype is dtype and t.shape == (400,) and t.device.type == device
    v = np.array(t.cpu().to(tl.float64).numpy())
    assert v.min() >= low and v.max() <= high
    assert len(np.unique(v)) > 1
    if not dtype.is_floating_point:
        assert v.min() == low and v.max() == high  # (400 draws of at most 19 values: both ends appear)


def test_make_tensor_shapes_bounds_and_layouts(device):
    assert make_tensor(3, 4, dtype=tl.float32, device=device).shape == (3, 4)
    assert make_tensor((3, 4), dtype=tl.float32, device=device).shape == (3, 4)
    assert make_tensor([2], dtype=tl.int8, device=device).shape == (2,)
    assert make_tensor((), dtype=tl.float64, device=device).shape == ()
    v = np.array(make_tensor(2000, dtype=tl.int16, device=device, low=-3.5, high=2.5).cpu().numpy())
    assert v.min() == -3 and v.max() == 2  # (integer bounds are ceiled: low inclusive, high exclusive)
    v = np.array(make_tensor(2000, dtype=tl.int8, device=device, low=-1000, high=1000).cpu().numpy())
    assert v.min() == -128 and v.max() == 127  # clamped to the dtype's range
    v = np.array(make_tensor(500, dtype=tl.float32, device=device, low=2, high=3).cpu().numpy())
    assert v.min() >= 2 and v.max() < 3
    assert bool(make_tensor(1000, dtype=tl.float16, device=device, low=-1e6, high=1e6).isfinite().all())
    t = make_tensor(3, 4, dtype=tl.float32, device=device, noncontiguous=True)
    assert t.shape == (3, 4) and not t.is_contiguous() and t.stride() == (8, 2)
    assert make_tensor(1, 1, dtype=tl.float32, device=device, noncontiguous=True).is_contiguous()
    t = make_tensor(2, 3, 4, 5, dtype=tl.float32, device=device, memory_format=tl.channels_last)
    assert t.stride() == (60, 1, 15, 3)
    t = make_tensor(500, dtype=tl.int8, device=device, low=-1, high=1, exclude_zero=True)
    assert set(np.unique(t.cpu().numpy()).tolist()) == {-1, 1}
    t = make_tensor(4, dtype=tl.float32, device=device, low=0, high=1e-30, exclude_zero=True)
    assert bool((t != 0).all())
    assert make_tensor(2, dtype=tl.float32, device=device, requires_grad=True).requires_grad


def test_make_tensor_reproducible_with_seed():
    tl.manual_seed(5)
    a = make_tensor(5, dtype=tl.float32, device="cpu")
    tl.manual_seed(5)
    assert_close(make_tensor(5, dtype=tl.float32, device="cpu"), a, rtol=0, atol=0)


def test_make_tensor_errors():
    with pytest.raises(ValueError, match="`requires_grad=True` is not supported for boolean and integral dtypes"):
        make_tensor(2, dtype=tl.int32, device="cpu", requires_grad=True)
    _raises(ValueError, "`low` must be less than `high`, but got 1 >= 0", make_tensor, 2, dtype=tl.float32,
            device="cpu", low=1, high=0)
    with pytest.raises(ValueError, match="`low` and `high` cannot be NaN"):
        make_tensor(2, dtype=tl.float32, device="cpu", low=float("nan"))
    _raises(ValueError, "The value interval specified by `low` and `high` is [-10, -1), but tensorlab.uint8 only "
            "supports [0, 256)", make_tensor, 2, dtype=tl.uint8, device="cpu", low=-10, high=-1)
    with pytest.raises(ValueError, match="`noncontiguous` and `memory_format` are mutually exclusive"):
        make_tensor(2, dtype=tl.float32, device="cpu", noncontiguous=True, memory_format=tl.channels_last)
    with pytest.raises(TypeError, match=re.escape("The requested dtype 'float32' is not supported")):
        make_tensor(2, dtype="float32", device="cpu")
    with pytest.raises(TypeError):
        make_tensor(2, dtype=tl.float32)  # device is required, as in PyTorch
    with pytest.warns(FutureWarning, match="Passing `low==high`"):
        t = make_tensor(2, dtype=tl.float32, device="cpu", low=1, high=1)
    assert t.tolist() == [1.0, 1.0]
    with pytest.raises(ValueError, match="`low` must be less than `high`"):
        make_tensor(2, dtype=tl.int32, device="cpu", low=1, high=1)


def test_reachable_from_the_package():
    assert tl.testing.assert_close is assert_close and tl.testing.make_tensor is make_tensor
