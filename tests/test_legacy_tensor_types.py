"""PyTorch's legacy typed-tensor constructors (tl.FloatTensor, tl.cuda.LongTensor, x.new) and
x.untyped_storage()."""

import numpy as np
import pytest

import tensorlab as tl


def test_constructors_from_sizes_data_and_tensors():
    assert tl.FloatTensor().shape == (0,) and tl.FloatTensor().dtype is tl.float32
    t = tl.FloatTensor(2, 3)
    assert t.shape == (2, 3) and t.dtype is tl.float32
    assert tl.FloatTensor(tl.Size([2, 3])).shape == (2, 3)
    assert tl.LongTensor([1.5, 2]).tolist() == [1, 2] and tl.LongTensor([1]).dtype is tl.int64
    assert tl.FloatTensor((1, 2)).tolist() == [1.0, 2.0]
    assert tl.DoubleTensor(np.array([1.0, 2.0])).dtype is tl.float64
    assert tl.BoolTensor([1, 0]).tolist() == [True, False]
    for name, dtype in (("ByteTensor", tl.uint8), ("CharTensor", tl.int8), ("ShortTensor", tl.int16),
                        ("IntTensor", tl.int32), ("HalfTensor", tl.float16), ("BFloat16Tensor", tl.bfloat16)):
        assert getattr(tl, name)([1]).dtype is dtype
    x = tl.tensor([1.0, 2.0])
    assert tl.FloatTensor(x).data_ptr() == x.data_ptr()  # the same type: shared, as PyTorch
    with pytest.raises(TypeError, match="expected a Long tensor"):
        tl.LongTensor(x)
    with pytest.raises(TypeError, match="data must be a sequence"):
        tl.FloatTensor(2.5)
    with pytest.raises(TypeError, match="dtype"):
        tl.FloatTensor(2, dtype=tl.float64)
    with pytest.raises(RuntimeError, match="negative dimension"):
        tl.FloatTensor(-1)


def test_isinstance_and_type_conversion():
    x = tl.tensor([1.0, 2.0])
    assert isinstance(x, tl.FloatTensor) and not isinstance(x, tl.DoubleTensor)
    assert not isinstance(x, tl.cuda.FloatTensor) and not isinstance(1.0, tl.FloatTensor)
    d = x.type(tl.DoubleTensor)
    assert d.dtype is tl.float64 and d.tolist() == [1.0, 2.0]
    assert repr(tl.FloatTensor) == "<class 'tensorlab.FloatTensor'>"


def test_type_takes_pytorchs_type_names_too():
    # ported code's 'torch.*Tensor' strings (torch 2.15: 'torch.FloatTensor' on a float tensor is the
    # tensor itself; 'torch.LongTensor' [1.5, 2.0] -> [1, 2]; an unknown name is a ValueError
    # "invalid type: 'torch.FooTensor'"); x.type() still answers tensorlab's name
    x = tl.tensor([1.5, 2.0])
    assert x.type("torch.FloatTensor") is x and x.type("tensorlab.FloatTensor") is x
    assert x.type("torch.LongTensor").dtype is tl.int64 and x.type("torch.LongTensor").tolist() == [1, 2]
    for name, dtype in (("Double", tl.float64), ("Half", tl.float16), ("BFloat16", tl.bfloat16), ("Int", tl.int32),
                        ("Short", tl.int16), ("Char", tl.int8), ("Byte", tl.uint8), ("Bool", tl.bool)):
        y = x.type(f"torch.{name}Tensor")
        assert y.dtype is dtype and y.device.type == "cpu", name
    with pytest.raises(ValueError, match="invalid type: 'torch.FooTensor'"):
        x.type("torch.FooTensor")
    assert x.type() == "tensorlab.FloatTensor" and x.type("torch.DoubleTensor").type() == "tensorlab.DoubleTensor"


def test_type_takes_pytorchs_cuda_type_names_too():
    if not tl.cuda.is_available():
        pytest.skip("needs cuda (a GPU or TRITON_INTERPRET=1)")
    x = tl.tensor([1.5, 2.0])
    c = x.type("torch.cuda.LongTensor")  # moves to the GPU, as torch's
    assert c.device.type == "cuda" and c.dtype is tl.int64 and c.tolist() == [1, 2]
    assert c.type() == "tensorlab.cuda.LongTensor" and c.type("torch.cuda.LongTensor") is c
    back = c.type("torch.FloatTensor")  # a cpu name brings it back to the cpu
    assert back.device.type == "cpu" and back.dtype is tl.float32 and back.tolist() == [1.0, 2.0]


def test_cuda_types():
    c = tl.cuda.FloatTensor([1.0, 3.0])
    assert c.device.type == "cuda" and c.dtype is tl.float32 and c.tolist() == [1.0, 3.0]
    assert isinstance(c, tl.cuda.FloatTensor) and not isinstance(c, tl.FloatTensor)
    moved = tl.tensor([1, 2]).type(tl.cuda.LongTensor)
    assert moved.device.type == "cuda" and moved.dtype is tl.int64
    with pytest.raises(RuntimeError, match="device type"):
        tl.cuda.FloatTensor([1.0], device="cpu")


def test_new_uses_the_tensors_dtype_and_device(device):
    x = tl.tensor([1, 2], dtype=tl.int32, device=device)
    assert x.new(3).shape == (3,) and x.new(3).dtype is tl.int32 and x.new(3).device == x.device
    assert x.new([4, 5]).tolist() == [4, 5] and x.new([4.7]).dtype is tl.int32
    assert x.new().shape == (0,)
    assert x.new(x).data_ptr() == x.data_ptr()


def test_untyped_storage_tells_shared_memory():
    x = tl.arange(6.0).reshape(2, 3)
    y = x[1]
    z = x.clone()
    assert x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr() != z.untyped_storage().data_ptr()
    assert y.untyped_storage().nbytes() == 24 == len(x.untyped_storage()) == x.untyped_storage().size()
    assert x.untyped_storage().device == tl.device("cpu") and x.untyped_storage().element_size() == 1


def test_apply_and_map_run_python_callables_in_place():
    x = tl.tensor([1.0, 2.0, 3.0])
    assert x.apply_(lambda v: v * 2) is x and x.tolist() == [2.0, 4.0, 6.0]
    x.map_(tl.tensor([1.0, 1.0, 1.0]), lambda a, b: a + b)
    x.map_(tl.tensor(10.0), lambda a, b: a + b)  # broadcasts
    assert x.tolist() == [13.0, 15.0, 17.0]
    with pytest.raises(RuntimeError, match=r"map_: the tensor of shape \[2\] cannot be broadcast to self's"):
        x.map_(tl.ones(2), lambda a, b: a + b)
    assert x.tolist() == [13.0, 15.0, 17.0]
    i = tl.tensor([1, 2])
    assert i.apply_(lambda v: v / 2).tolist() == [0, 1]  # cast back to the tensor's dtype
    t = tl.arange(6.0).reshape(2, 3).t()  # strided: written through the view
    t.apply_(lambda v: v + 100)
    assert t.tolist() == [[100.0, 103.0], [101.0, 104.0], [102.0, 105.0]]
    v0 = x._version
    x.apply_(lambda v: v)
    assert x._version > v0
    with pytest.raises(RuntimeError, match="requires grad"):
        tl.ones(2, requires_grad=True).apply_(lambda v: v)
    with pytest.raises(TypeError, match="CPU"):
        tl.ones(2, device="cuda").apply_(lambda v: v)


def test_dim_order_to_dense_typename():
    assert tl.ones(2, 3).t().dim_order() == (1, 0)
    assert tl.ones(2, 3, 4).permute(2, 0, 1).dim_order() == (1, 2, 0)
    assert tl.empty(2, 1, 3).dim_order() == (0, 1, 2)
    x = tl.ones(2)
    assert x.to_dense() is x and x.to_dense(tl.float64).dtype is tl.float64
    assert tl.typename(x) == "tensorlab.FloatTensor" and tl.typename(1) == "int"
    # a class or a function by its own qualified name, as PyTorch (was its type's: 'type', 'function')
    assert tl.typename(tl.nn.Parameter) == "tensorlab.nn.parameter.Parameter" and tl.typename([1]) == "list"
    assert tl.typename(tl.nn.Linear(2, 2)) == "tensorlab.nn.modules.linear.Linear"
    assert tl.typename(test_resize_keeps_the_storage_prefix).endswith("test_resize_keeps_the_storage_prefix")
    # ambiguity_check (PyTorch's docs' example): a size-1 dim allows more than one order
    y = tl.empty(1, 2, 3, 4)
    with pytest.raises(RuntimeError, match="does not have unique dim order"):
        y.dim_order(ambiguity_check=True)
    assert y.dim_order(ambiguity_check=[tl.contiguous_format, tl.channels_last]) == (0, 1, 2, 3)
    assert tl.empty(2, 3, 4).dim_order(ambiguity_check=True) == (0, 1, 2)
    with pytest.raises(TypeError, match="bool or a list of memory formats"):
        y.dim_order(ambiguity_check=[1])


def test_resize_keeps_the_storage_prefix(device):
    x = tl.arange(6.0, device=device)
    assert x.resize_(2, 2) is x and x.tolist() == [[0.0, 1.0], [2.0, 3.0]]
    y = tl.arange(4.0, device=device)
    y.resize_(3, 3)  # grows: the old elements first, the rest uninitialised
    assert y.shape == (3, 3) and y.flatten()[:4].tolist() == [0.0, 1.0, 2.0, 3.0]
    v = tl.arange(4.0, device=device)[1:]
    v.resize_(5)
    assert v[:3].tolist() == [1.0, 2.0, 3.0]
    t = tl.arange(6.0, device=device).reshape(2, 3).t()
    assert t.resize_(3, 2).stride() == (1, 3)  # the shape it has: nothing changes
    z = tl.arange(4.0, device=device)
    assert z.resize_as_(tl.ones(2, 1)).tolist() == [[0.0], [1.0]]
    with pytest.raises(TypeError, match="'the_template' must be Tensor, not int"):
        z.resize_as_(5)
    c = tl.arange(16.0, device=device)
    assert c.resize_(1, 2, 2, 2, memory_format=tl.channels_last).stride() == (8, 1, 4, 2)
    with pytest.raises(RuntimeError, match="require grad"):
        tl.ones(2, requires_grad=True).resize_(3)
    with pytest.raises(RuntimeError, match="negative"):
        tl.ones(2).resize_(-1)


def test_tensor_class_as_legacy_constructor_of_the_default_dtype():
    assert tl.Tensor([1, 2]).tolist() == [1.0, 2.0] and tl.Tensor([1, 2]).dtype is tl.float32
    assert tl.Tensor(2, 3).shape == (2, 3) and tl.Tensor().shape == (0,)
    assert tl.Tensor([1.0], device="cuda").device.type == "cuda"
    before = tl.get_default_dtype()
    try:
        tl.set_default_dtype(tl.float64)
        assert tl.Tensor([1]).dtype is tl.float64
    finally:
        tl.set_default_dtype(before)
    x = tl.ones(2)
    assert tl.Tensor(x).data_ptr() == x.data_ptr()

    class Sub(tl.Tensor):
        pass

    with pytest.raises(TypeError, match="subclass"):
        Sub([1.0])


def test_new_takes_size_as_a_keyword():
    e = tl.tensor([], dtype=tl.float64)
    t = e.new(size=(3, 4))
    assert t.shape == (3, 4) and t.dtype is tl.float64
    assert e.new(size=[2]).shape == (2,)
    for bad in (lambda: e.new(size=3), lambda: e.new((3, 4), size=(2,))):
        with pytest.raises(TypeError):
            bad()
