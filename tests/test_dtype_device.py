"""dtypes, PyTorch's promotion rules, and device parsing."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl


@pytest.mark.parametrize(
    "a,b,expected",
    [
        (tl.uint8, tl.int8, tl.int16),
        (tl.uint8, tl.int16, tl.int16),
        (tl.int8, tl.int32, tl.int32),
        (tl.int32, tl.int64, tl.int64),
        (tl.bool, tl.uint8, tl.uint8),
        (tl.bool, tl.float16, tl.float16),
        (tl.float16, tl.bfloat16, tl.float32),
        (tl.float16, tl.float32, tl.float32),
        (tl.bfloat16, tl.float64, tl.float64),
        (tl.int64, tl.float16, tl.float16),
        (tl.uint8, tl.bfloat16, tl.bfloat16),
        (tl.float32, tl.float32, tl.float32),
    ],
)
def test_promote_types_matches_pytorch(a, b, expected):
    assert tl.promote_types(a, b) is expected
    assert tl.promote_types(b, a) is expected


def test_result_type_scalars_are_weak():
    i32 = tl.zeros(3, dtype=tl.int32)
    f16 = tl.zeros(3, dtype=tl.float16)
    u8 = tl.zeros(3, dtype=tl.uint8)
    b = tl.zeros(3, dtype=tl.bool)
    assert tl.result_type(i32, 2.5) is tl.float32  # a float scalar lifts ints to the default dtype
    assert tl.result_type(f16, 2.5) is tl.float16  # but does not widen floats
    assert tl.result_type(u8, 1000) is tl.uint8  # nor ints
    assert tl.result_type(b, 1) is tl.int64
    assert tl.result_type(b, True) is tl.bool
    assert tl.result_type(i32, tl.tensor(5)) is tl.int32  # 0-d int64 tensor is weaker than a dimensioned one
    assert tl.result_type(i32, tl.tensor(5.0, dtype=tl.float64)) is tl.float64  # ...unless it raises the category
    assert tl.result_type(tl.tensor(1, dtype=tl.int8), tl.tensor(1, dtype=tl.int16)) is tl.int16
    assert tl.result_type(2, 3.0) is tl.float32
    assert tl.result_type(True, 2) is tl.int64


def test_python_int_beyond_int64_with_bool_tensors_is_refused():
    # a Python int in [2**63, 2**64) is a uint64 number to PyTorch: beside an integer tensor it wraps into the
    # tensor's dtype, but with only bool tensors it would decide the result, a promotion PyTorch refuses
    b = tl.tensor([True, False])
    for call in [lambda: b + 2**63, lambda: b * 2**63, lambda: b == 2**63, lambda: tl.tensor(True) + 2**63,
                 lambda: 2**63 >> b, lambda: tl.result_type(b, 2**64 - 1)]:
        with pytest.raises(RuntimeError, match="attempted to promote Bool and UInt64"):
            call()
    assert (b + (2**63 - 1)).tolist() == [-9223372036854775808, 9223372036854775807]
    assert (tl.tensor([1, 2]) + 2**63).tolist() == [-9223372036854775807, -9223372036854775806]
    assert (b + tl.tensor(2) + 2**63).tolist() == [-9223372036854775805, -9223372036854775806]
    assert tl.result_type(b, 2.0**63) is tl.float32


def test_can_cast_same_kind():
    assert tl.can_cast(tl.int32, tl.float16)
    assert not tl.can_cast(tl.float32, tl.int64)
    assert not tl.can_cast(tl.int8, tl.bool)
    assert tl.can_cast(tl.bool, tl.int8)


def test_python_types_as_dtypes():
    # torch 2.15 reads float as float64, int as int64 and bool as bool where a dtype goes
    assert tl.finfo(float) == tl.finfo(tl.float64) and tl.finfo(float).bits == 64  # torch: finfo(..., dtype=float64)
    assert tl.finfo(type=float).dtype == "float64"
    assert tl.iinfo(int) == tl.iinfo(tl.int64) and tl.iinfo(int).max == 2**63 - 1  # torch: iinfo(..., dtype=int64)
    assert tl.iinfo(type=int).bits == 64
    assert tl.promote_types(tl.float32, float) is tl.float64  # torch.float64
    assert tl.promote_types(float, tl.float32) is tl.float64  # torch.float64
    assert tl.promote_types(tl.int32, int) is tl.int64  # torch.int64
    assert tl.promote_types(int, float) is tl.float64  # torch.float64
    assert tl.promote_types(tl.float16, int) is tl.float16  # torch.float16
    assert tl.promote_types(tl.int8, bool) is tl.int8  # torch.int8
    assert tl.promote_types(bool, bool) is tl.bool and tl.promote_types(float, float) is tl.float64
    assert tl.can_cast(tl.float32, int) is False  # torch: False
    assert tl.can_cast(int, tl.float32) is True  # torch: True
    assert tl.can_cast(float, int) is False and tl.can_cast(bool, int) is True and tl.can_cast(int, bool) is False
    # torch: TypeError "torch.finfo() requires a floating point input type" / "torch.bool is not supported by
    # torch.iinfo" / "torch.iinfo() requires an integer input type"
    for bad in (int, bool):
        with pytest.raises(TypeError, match="floating point input type"):
            tl.finfo(bad)
    for bad in (float, bool):
        with pytest.raises(TypeError, match="is not supported by iinfo"):
            tl.iinfo(bad)
    # torch: complex is complex128 (finfo(complex) is float64's); tensorlab has no complex dtypes
    for call in (lambda: tl.finfo(complex), lambda: tl.promote_types(tl.float32, complex),
                 lambda: tl.can_cast(tl.float32, complex)):
        with pytest.raises(TypeError, match="complex"):
            call()


def test_dtype_functions_refuse_non_dtypes_with_type_error():
    import numpy as np

    # torch: TypeError "promote_types(): argument 'type2' (position 2) must be torch.dtype, not str"
    for bad, name in (("float64", "str"), (np.float64, "type"), (None, "NoneType"), (tl.ones(2), "Tensor"), (3, "int")):
        with pytest.raises(TypeError, match=rf"promote_types\(\): argument 'type2' \(position 2\) must be "
                                            rf"tensorlab.dtype, not {name}"):
            tl.promote_types(tl.float32, bad)
        with pytest.raises(TypeError, match=r"argument 'type1' \(position 1\)"):
            tl.promote_types(bad, tl.float32)
        # torch: TypeError "can_cast(): argument 'from_' (position 1) must be torch.dtype, not Tensor", 'to' (2)
        with pytest.raises(TypeError, match=rf"can_cast\(\): argument 'from_' \(position 1\) .* not {name}"):
            tl.can_cast(bad, tl.int64)
        with pytest.raises(TypeError, match=rf"can_cast\(\): argument 'to' \(position 2\) .* not {name}"):
            tl.can_cast(tl.float32, bad)
    # torch: TypeError "finfo(): argument 'type' (position 1) must be torch.dtype, not NoneType" (finfo() is the
    # default dtype's; finfo(None) is refused), and the same for a name, a numpy type or a tensor
    for bad, name in ((None, "NoneType"), ("float32", "str"), (np.float32, "type"), (tl.ones(2), "Tensor")):
        for info in (tl.finfo, tl.iinfo):
            with pytest.raises(TypeError, match=rf"{info.__name__}\(\): argument 'type' \(position 1\) must be "
                                                rf"tensorlab.dtype, not {name}"):
                info(bad)
    assert tl.finfo().dtype == "float32"


def test_dtype_function_keywords():
    # torch 2.15: promote_types(type1, type2), can_cast(from_, to)
    assert tl.promote_types(type1=tl.float32, type2=tl.int64) is tl.float32  # torch.float32
    assert tl.promote_types(tl.int8, type2=tl.uint8) is tl.int16  # torch.int16
    assert tl.can_cast(from_=tl.float32, to=tl.int64) is False  # torch: False
    assert tl.can_cast(tl.int32, to=tl.float16) is True  # torch: True
    with pytest.raises(TypeError):  # torch: TypeError (missing "type1", "type2")
        tl.promote_types(a=tl.float32, b=tl.int64)
    with pytest.raises(TypeError):  # torch: TypeError "can_cast() takes 2 positional arguments but 3 were given"
        tl.can_cast(tl.int32, tl.int64, tl.int8)


def test_result_type_overloads():
    i32, f64 = tl.ones(2, dtype=tl.int32), tl.ones(2, dtype=tl.float64)
    # torch 2.15's overloads: (Tensor tensor, Tensor other), (Number scalar, Tensor tensor),
    # (Tensor tensor, Number other), (Number scalar1, Number scalar2); positional or by keyword
    assert tl.result_type(tensor=i32, other=f64) is tl.float64  # torch.float64
    assert tl.result_type(tensor=i32, other=1.5) is tl.float32  # torch.float32
    assert tl.result_type(other=1.5, tensor=i32) is tl.float32  # torch.float32
    assert tl.result_type(i32, other=1.5) is tl.float32  # torch.float32
    assert tl.result_type(scalar=1.5, tensor=i32) is tl.float32  # torch.float32
    assert tl.result_type(1.5, tensor=i32) is tl.float32  # torch.float32
    assert tl.result_type(scalar1=1, scalar2=1.5) is tl.float32  # torch.float32
    assert tl.result_type(1, scalar2=True) is tl.int64  # torch.int64
    # a 0-d tensor in a Number parameter is a wrapped number of its category (torch.float32: not float64)
    assert tl.result_type(scalar=tl.tensor(1.0, dtype=tl.float64), tensor=i32) is tl.float32
    assert tl.result_type(i32, other=tl.tensor(1.0, dtype=tl.float64)) is tl.float64  # torch.float64 (Tensor other)
    assert tl.result_type(scalar1=tl.tensor(1, dtype=tl.int8), scalar2=tl.tensor(1, dtype=tl.int16)) is tl.int64
    # torch: TypeError "result_type() received an invalid combination of arguments - got (Tensor), but expected
    # one of: * (Tensor tensor, Tensor other) ..."
    bad_calls = [
        ((i32,), {}), ((), {}), ((i32, i32, 1), {}), ((i32, None), {}), ((None, i32), {}), ((None, None), {}),
        ((1, None), {}), ((i32, "a"), {}), ((i32, [1, 2]), {}), ((i32, tl.float64), {}),
        ((i32,), {"scalar": 1.5}), ((i32,), {"tensor": i32}), ((), {"tensor": i32, "other": i32, "bogus": 1}),
        ((), {"scalar1": tl.ones(2), "scalar2": 2}),  # a Number takes a 0-d tensor only
        ((), {"scalar1": tl.tensor(1.0, requires_grad=True), "scalar2": 2}),  # ... that needs no grad
    ]
    for args, kwargs in bad_calls:
        with pytest.raises(TypeError, match=r"result_type\(\) received an invalid combination of arguments"):
            tl.result_type(*args, **kwargs)
    with pytest.raises(TypeError, match=r"got \(Tensor, NoneType\), but expected one of:\n \* \(Tensor tensor, "
                                        r"Tensor other\)\n \* \(Number scalar, Tensor tensor\)"):
        tl.result_type(i32, None)


def test_dtype_properties_and_aliases():
    assert tl.float is tl.float32 and tl.double is tl.float64 and tl.half is tl.float16
    assert tl.long is tl.int64 and tl.int is tl.int32 and tl.short is tl.int16
    assert tl.bfloat16.itemsize == 2 and tl.bfloat16.is_floating_point
    assert not tl.uint8.is_signed and tl.int8.is_signed
    assert repr(tl.float32) == "tensorlab.float32"
    import pickle

    assert pickle.loads(pickle.dumps(tl.bfloat16)) is tl.bfloat16


def test_default_dtype_switch():
    assert tl.get_default_dtype() is tl.float32
    tl.set_default_dtype(tl.float64)
    try:
        assert tl.tensor([1.5]).dtype is tl.float64
        assert tl.zeros(2).dtype is tl.float64
        assert tl.result_type(tl.tensor([1, 2]), 1.5) is tl.float64
    finally:
        tl.set_default_dtype(tl.float32)
    with pytest.raises(TypeError, match="floating"):
        tl.set_default_dtype(tl.int32)


def test_device_parsing():
    assert tl.device("cpu") == tl.device("cpu")
    d = tl.device("cuda:1")
    assert d.type == "cuda" and d.index == 1 and str(d) == "cuda:1"
    assert tl.device("cuda", 0) == tl.device("cuda:0") and str(tl.device("cuda", 0)) == "cuda:0"
    assert repr(tl.device("cpu")) == "device(type='cpu')"
    assert tl.device(tl.device("cuda:2")).index == 2
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        tl.device("tpu")
    with pytest.raises(RuntimeError, match="Invalid device string"):
        tl.device("cuda:x")
    with pytest.raises(RuntimeError, match="must not be negative"):
        tl.device("cuda", -1)
    assert {tl.device("cpu"), tl.device("cpu")} == {tl.device("cpu")}


def test_cpu_0_keeps_its_index_and_no_device_equals_a_string():
    import copy
    import pickle

    from tensorlab._device import CPU

    # torch 2.15: device("cpu:0") keeps index 0 (str "cpu:0", its own repr and hash), is not equal
    # to device("cpu") (as cuda:0 is not cuda), and no device equals a string, not even its own name
    d = tl.device("cpu:0")
    assert d.type == "cpu" and d.index == 0 and type(d.index) is int
    assert str(d) == "cpu:0" and repr(d) == "device(type='cpu', index=0)"
    assert d != tl.device("cpu") and d == tl.device("cpu", 0) == tl.device(type="cpu", index=0)
    assert tl.device("cuda:0") != tl.device("cuda")
    assert not (tl.device("cpu") == "cpu") and tl.device("cpu") != "cpu" and not ("cpu" == tl.device("cpu"))
    assert not (d == "cpu:0") and not (d == "cpu") and not (tl.device("cuda:0") == "cuda:0")
    assert len({d, tl.device("cpu"), tl.device("cpu", 0)}) == 2
    assert tl.device(d) == d and tl.device(d).index == 0
    for back in (pickle.loads(pickle.dumps(d)), copy.copy(d), copy.deepcopy(d)):
        assert back == d and back.index == 0
    # a tensor made on cpu:0 reports plain cpu (torch 2.15: cpu, index None), the one shared object
    for made in (tl.zeros(2, device="cpu:0"), tl.zeros(2, device=d), tl.ones(2).to("cpu:0"), tl.ones(2).to(d),
                 tl.as_tensor([1.0], device="cpu:0")):
        assert made.device is CPU and made.device.index is None and str(made.device) == "cpu"
    with tl.device("cpu:0"):
        assert tl.zeros(1).device is CPU
    try:  # torch 2.15: get_default_device() is cpu:0 when set so, its tensors on plain cpu
        tl.set_default_device("cpu:0")
        assert repr(tl.get_default_device()) == "device(type='cpu', index=0)" and tl.zeros(1).device is CPU
    finally:
        tl.set_default_device(None)
    assert repr(tl.get_default_device()) == "device(type='cpu')"


def test_tensors_made_on_a_device_share_its_device_object():
    # the dispatcher's same-device check is an identity test first (as_device hands out one object)
    from tensorlab._device import as_device

    assert as_device("cpu") is as_device(tl.device("cpu")) is as_device(None)
    assert as_device("cuda:0") is as_device(tl.device("cuda", 0)) is as_device(0)
    assert as_device("cuda:1") is not as_device("cuda:0")
    if tl.cuda.is_available():
        assert tl.ones(2, device="cuda").device is tl.zeros(3, device="cuda:0").device


@pytest.mark.skipif(not tl.cuda.is_available(), reason="needs cuda (a GPU or TRITON_INTERPRET=1)")
def test_equal_device_objects_that_are_not_the_same_object_still_mix():
    # storage made elsewhere (DLPack, say) may carry its own equal device object: the full scan
    a = tl.arange(4.0, device="cuda")
    b = a.clone()
    b._storage.device = tl.device("cuda", 0)
    assert b.device is not a.device and b.device == a.device
    assert (a + b).tolist() == [0.0, 2.0, 4.0, 6.0]
    assert (b * a).tolist() == [0.0, 1.0, 4.0, 9.0]
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
        a + tl.arange(4.0)  # a cpu tensor that is not 0-d
    assert (a + tl.tensor(1.0)).tolist() == [1.0, 2.0, 3.0, 4.0]  # a 0-d cpu tensor joins as a scalar


def test_finfo_iinfo_and_is_floating_point():
    # PyTorch's values, as Python numbers
    f = tl.finfo(tl.float16)
    assert (f.bits, f.eps, f.max, f.min, f.tiny, f.resolution, f.dtype) == (16, 2**-10, 65504.0, -65504.0, 2**-14,
                                                                            0.001, "float16")
    b = tl.finfo(tl.bfloat16)
    assert (b.bits, b.eps, b.tiny, b.resolution, b.max) == (16, 2**-7, 2**-126, 0.01, 3.3895313892515355e38)
    assert tl.finfo(tl.float32).eps == 2**-23 and tl.finfo(tl.float64).smallest_normal == 2**-1022
    assert tl.finfo().dtype == "float32" and tl.finfo(tl.float32).resolution == 1e-6
    assert type(tl.finfo(tl.float32).max) is float
    i = tl.iinfo(tl.int8)
    assert (i.bits, i.min, i.max, i.dtype) == (8, -128, 127, "int8")
    assert tl.iinfo(tl.uint8).max == 255 and tl.iinfo(tl.int64).min == -2**63 and type(tl.iinfo(tl.int32).max) is int
    with pytest.raises(TypeError, match="floating point input type"):
        tl.finfo(tl.int32)
    for bad in (tl.bool, tl.float32):
        with pytest.raises(TypeError, match="is not supported by iinfo"):
            tl.iinfo(bad)
    assert tl.is_floating_point(tl.ones(2, dtype=tl.bfloat16)) and not tl.is_floating_point(tl.ones(2, dtype=tl.int8))
    with pytest.raises(TypeError, match="must be Tensor, not float"):
        tl.is_floating_point(1.0)


def test_tensor_of_float64_data_to_half_rounds_through_float32_as_to_does():
    # 1 + 2**-11 + 2**-30 is just above a float16 half-way point; through float32 (PyTorch's cast,
    # and tensorlab's .to()) it lands on the half-way point and rounds to even: 1.0
    import numpy as np

    v = 1.0 + 2**-11 + 2**-30
    w = 1.0 + 2**-8 + 2**-30  # the same for bfloat16
    for data in (v, [v], np.array([v])):
        assert tl.tensor(data, dtype=tl.float16).reshape(-1).tolist() == [1.0]
    assert tl.tensor([w], dtype=tl.bfloat16).tolist() == [1.0]
    assert tl.tensor([v], dtype=tl.float64).to(tl.float16).tolist() == [1.0]
    assert tl.tensor([v], dtype=tl.float32).tolist() == [float(np.float32(v))]
    assert tl.tensor([1e39, -1e39], dtype=tl.float16).tolist() == [float("inf"), float("-inf")]


def test_device_objects_are_read_only_and_take_int_indices():
    # torch 2.15: a device's attributes are not writable (as_device shares one object per device, so
    # `t.device.index = 7` broke every later cuda allocation), and the index is an int
    d = tl.device("cuda:0")
    with pytest.raises(AttributeError, match="not writable"):
        d.index = 7
    with pytest.raises(TypeError, match="index must be an int"):
        tl.device("cuda", 1.0)
    assert type(tl.device("cuda", np.int64(0)).index) is int
    with pytest.raises(RuntimeError, match="must be cuda device"):
        tl.ones(2).cuda("cpu")  # (it returned a cpu tensor)


@pytest.mark.skipif(not tl.cuda.is_available(), reason="needs cuda (a GPU or TRITON_INTERPRET=1)")
def test_cuda_device_arguments_as_pytorch():
    n = tl.cuda.device_count()
    # an index past the devices is an error (device 0's answers, or a stream/generator of a device
    # that does not exist, before); a negative one is the current device
    for call in (lambda: tl.cuda.get_device_properties(n), lambda: tl.cuda.synchronize(f"cuda:{n}"),
                 lambda: tl.cuda.current_stream(n), lambda: tl.cuda.get_rng_state(n)):
        with pytest.raises(RuntimeError, match=f"Invalid device index {n}"):
            call()
    assert tl.cuda.current_stream(-1).device_index == tl.cuda.current_device()
    tl.cuda.set_device(-1)  # (no-op, as PyTorch's)
    tl.cuda.set_stream(None)  # (no-op; it raised AttributeError)
    # a Stream of a device string (TypeError from str.index before) and not of a cpu device
    assert tl.cuda.Stream("cuda:0").device_index == 0 and tl.cuda.Stream(device="cuda").device_index == 0
    for bad in ("cpu", tl.device("cpu")):
        with pytest.raises(ValueError, match="Expected a cuda device"):
            tl.cuda.Stream(bad)
    x = tl.ones(2, device="cuda")
    with pytest.raises(TypeError, match="must be a cuda Stream"):
        x.record_stream(None)
    x.record_stream(tl.cuda.current_stream())


@pytest.mark.skipif(not tl.cuda.is_available(), reason="needs cuda (a GPU or TRITON_INTERPRET=1)")
def test_cuda_functions_take_pytorchs_keywords():
    # device= and stream= as torch.cuda's (TypeError: they were named dev= and s=)
    assert tl.cuda.memory_allocated(device=0) >= 0 and tl.cuda.current_stream(device=0).device_index == 0
    tl.cuda.synchronize(device="cuda")
    tl.cuda.reset_peak_memory_stats(device=0)
    with tl.cuda.device(device=0), tl.cuda.stream(stream=tl.cuda.current_stream()):
        tl.cuda.set_stream(stream=tl.cuda.current_stream())
