"""The Tensor: properties, host conversions, device moves, views that share memory, basic indexing."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tests.helpers import to_numpy


def test_properties(device):
    t = tl.zeros(2, 3, 4, dtype=tl.float16, device=device)
    assert t.shape == (2, 3, 4) and t.size() == (2, 3, 4) and t.size(-1) == 4
    assert repr(t.shape) == "tensorlab.Size([2, 3, 4])"
    assert t.dim() == 3 == t.ndim and t.numel() == 24
    assert t.stride() == (12, 4, 1) and t.stride(0) == 12 and t.storage_offset() == 0
    assert t.element_size() == 2 and t.nbytes == 48 and t.itemsize == 2
    assert t.is_contiguous() and t.dtype is tl.float16
    assert t.device == tl.device(device if device == "cpu" else "cuda:0")
    assert t.is_cuda == (device == "cuda")
    assert t.data_ptr() != 0
    with pytest.raises(IndexError, match="Dimension out of range"):
        t.size(3)


def test_numpy_shares_memory_on_cpu():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = tl.from_numpy(a)
    a[0, 0] = 100.0
    assert t[0, 0].item() == 100.0
    t.numpy()[1, 2] = -1.0
    assert a[1, 2] == -1.0
    assert np.shares_memory(t.numpy(), a)
    assert t.data_ptr() == a.ctypes.data


def test_from_numpy_strided_and_errors():
    base = np.arange(24, dtype=np.int64).reshape(4, 6)
    view = base[1:, ::2]
    t = tl.from_numpy(view)
    assert t.shape == (3, 3) and t.stride() == (6, 2)
    np.testing.assert_array_equal(t.numpy(), view)
    with pytest.raises(ValueError, match="negative"):
        tl.from_numpy(base[::-1])
    with pytest.raises(TypeError, match="can't convert"):
        tl.from_numpy(np.zeros(3, dtype=np.complex64))
    with pytest.raises(TypeError, match="expected np.ndarray"):
        tl.from_numpy([1, 2])


def test_byte_swapped_numpy_arrays_are_a_value_error():
    # PyTorch's ValueError for an array of a supported type in the other byte order (it was the TypeError
    # that lists the supported dtypes, which '>i4' seems to be one of)
    swapped = np.array([1, 2], dtype=np.dtype(np.int32).newbyteorder())
    for make, op in [(tl.from_numpy, "from_numpy"), (tl.tensor, "tensor"), (tl.as_tensor, "tensor"),
                     (tl.asarray, "tensor"), (lambda a: tl.tensor(a, dtype=tl.float32), "tensor")]:
        with pytest.raises(ValueError, match=f"{op}: given numpy array has byte order different from the native"):
            make(swapped)
    with pytest.raises(ValueError, match="byte order different"):
        tl.tensor(np.array(2.5, dtype=np.dtype(np.float64).newbyteorder()))
    assert tl.tensor(swapped.astype(np.int32)).tolist() == [1, 2]  # (converted to native order first: fine)


def test_numpy_on_cuda_raises():
    if not tl.cuda.is_available():
        pytest.skip("no cuda device")
    t = tl.ones(3, device="cuda")
    with pytest.raises(TypeError, match=r"Use Tensor.cpu\(\)"):
        t.numpy()
    with pytest.raises(TypeError, match=r"Use Tensor.cpu\(\)"):  # __array__ is numpy(), as PyTorch's
        np.asarray(t)
    np.testing.assert_array_equal(np.asarray(t.cpu()), [1, 1, 1])


def test_tensor_from_python_data():
    assert tl.tensor(3).dtype is tl.int64 and tl.tensor(3).ndim == 0
    assert tl.tensor(3.5).dtype is tl.float32
    assert tl.tensor(True).dtype is tl.bool
    assert tl.tensor([1, 2.5]).dtype is tl.float32
    assert tl.tensor([[1, 2], [3, 4]]).shape == (2, 2)
    assert tl.tensor([]).shape == (0,) and tl.tensor([]).dtype is tl.float32
    assert tl.tensor(np.array([1, 2], dtype=np.int16)).dtype is tl.int16
    assert tl.tensor([1, 2], dtype=tl.float64).dtype is tl.float64
    assert tl.tensor([1.5], dtype=float).dtype is tl.float64  # Python float means double, as in PyTorch
    assert tl.tensor([tl.tensor(1), tl.tensor(2)]).tolist() == [1, 2]
    with pytest.raises(ValueError, match="expected sequence of length 2 at dim 1"):
        tl.tensor([[1, 2], [3]])
    # PyTorch's exception types: a string is a sequence of too many dimensions; a number where a
    # sequence stood, or the reverse, a TypeError; a value of no dtype a RuntimeError
    with pytest.raises(ValueError, match="too many dimensions 'str'"):
        tl.tensor(["a"])
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        tl.tensor("a")
    # only where PyTorch reads the sizes (the first leaf, data[0][0]...) is a str a sequence; after a number
    # it is an invalid type, and bytes always are
    with pytest.raises(ValueError, match="too many dimensions 'str'"):
        tl.tensor([["a"], [1.0]])
    for bad in ([1.0, "a"], [[1.0], ["a"]], [[1.0, "ab"]]):
        with pytest.raises(TypeError, match="invalid data type 'str'"):
            tl.tensor(bad)
    for bad in ([b"x"], [1, b"x"]):
        with pytest.raises(TypeError, match="invalid data type 'bytes'"):
            tl.tensor(bad)
    with pytest.raises(TypeError, match="expected a number at dim 1, got list"):
        tl.tensor([1, [2]])
    with pytest.raises(TypeError, match="expected a sequence at dim 1, got int"):
        tl.tensor([[1], 2])
    # the same with numpy scalars as the numbers (a ValueError, numpy's 'inhomogeneous shape' one, before)
    with pytest.raises(TypeError, match="expected a sequence at dim 1, got int16"):
        tl.tensor([[1], np.int16(2)])
    for bad in ([np.int16(2), [1]], [np.int16(7), []], [np.float32(1.0), np.array([2.0])]):
        with pytest.raises(TypeError, match="expected a number at dim 1"):
            tl.tensor(bad)
    with pytest.raises(TypeError, match="invalid data type 'str'"):
        tl.tensor([np.int16(3), "a"])
    for bad in (None, {}, [1, None]):
        with pytest.raises(RuntimeError, match="Could not infer dtype of"):
            tl.tensor(bad)
    assert tl.full((2,), tl.tensor(3)).tolist() == [3, 3]
    with pytest.raises(TypeError, match="full\\(\\): argument 'fill_value' .* must be Number"):
        tl.full((2,), tl.ones(2))
    a = np.arange(3.0)
    t = tl.tensor(a)
    a[0] = 9
    assert t[0].item() == 0.0  # tensor() copies
    s = tl.as_tensor(a)
    a[1] = 7
    assert s[1].item() == 7.0  # as_tensor shares


def test_tensor_with_integer_dtype_checks_python_numbers_for_overflow():
    # PyTorch converts each Python number with an overflow check (a numpy array is cast as is)
    for data, dtype in [([300], tl.int8), ([[1, 2], [3, 128]], tl.int8), ([-256], tl.uint8), ([-0.5], tl.uint8),
                        ([255.9], tl.uint8), ([127.5], tl.int8), ([2.5e9], tl.int32), ([float("nan")], tl.int64),
                        ([float("inf")], tl.int32), ([True, 300], tl.int8), (300, tl.int8),
                        ([tl.tensor(300)], tl.int8), (np.int64(300), tl.int8)]:
        with pytest.raises(RuntimeError, match=f"tensor: value cannot be converted to type {dtype.name} without"):
            tl.tensor(data, dtype=dtype)
    with pytest.raises(RuntimeError, match="without overflow: 300"):
        tl.as_tensor([1, 300], dtype=tl.int8)
    assert tl.tensor([-1, -255, 255], dtype=tl.uint8).tolist() == [255, 1, 255]  # C++'s wrap, as PyTorch
    assert tl.tensor([2.7, -128.0, -2.5], dtype=tl.int8).tolist() == [2, -128, -2]  # truncation toward zero
    assert tl.tensor(np.array([300]), dtype=tl.int8).tolist() == [44]  # numpy arrays are cast unchecked
    assert tl.tensor([1e6], dtype=tl.float16).tolist() == [float("inf")]  # floating types take inf
    assert tl.tensor([float("nan"), 2], dtype=tl.bool).tolist() == [True, True]
    assert tl.tensor([], dtype=tl.int8).shape == (0,)



def test_tensor_of_a_float_array_to_uint8_converts_as_to_does():
    # a float array cast to uint8 through int64, as .to() and PyTorch (numpy's own cast goes through int32)
    a = np.array([-5171361537520.0, 319804381165.5, -300.5, 3000000007.0, -3.7])
    assert tl.tensor(a, dtype=tl.uint8).tolist() == [16, 237, 212, 7, 253]
    assert tl.asarray(a, dtype=tl.uint8, copy=True).tolist() == tl.tensor(a).to(tl.uint8).tolist()


def test_tensor_with_integer_dtype_keeps_ints_mixed_with_floats_exact():
    # each number is converted on its own: the ints beside a float are not read through float64
    assert tl.tensor([2**53 + 1, 0.5], dtype=tl.int64).tolist() == [9007199254740993, 0]
    assert tl.tensor([[1, 2.7], [-2.7, 2**63 - 1]], dtype=tl.int64).tolist() == [[1, 2], [-2, 9223372036854775807]]
    assert tl.tensor([False, -3, 0.1], dtype=tl.uint8).tolist() == [0, 253, 0]  # the int -3 wraps, as PyTorch
    assert tl.as_tensor([2**53 + 1, 1.5], dtype=tl.int64).tolist() == [9007199254740993, 1]
    with pytest.raises(RuntimeError, match="tensor: value cannot be converted to type uint8 without overflow: -3.0"):
        tl.tensor([-3.0, 1], dtype=tl.uint8)  # a float still must fit
    with pytest.raises(ValueError, match="Overflow when unpacking long long"):
        tl.tensor([2**63, 1.5], dtype=tl.int64)

def test_item_tolist_and_python_conversions(device):
    t = tl.tensor([[1.5, -2.0], [3.0, 4.25]], device=device)
    assert t.tolist() == [[1.5, -2.0], [3.0, 4.25]]
    assert t[1, 1].item() == 4.25 and float(t[0, 0]) == 1.5 and int(t[1, 0]) == 3
    assert tl.tensor(7, device=device).__index__() == 7
    with pytest.raises(RuntimeError, match="cannot be converted to Scalar"):
        t.item()
    # torch 2.15's words: "more than one value" / "no values" (it said "more than one values")
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with more than one value is ambiguous$"):
        bool(t)
    with pytest.raises(RuntimeError, match="^Boolean value of Tensor with no values is ambiguous$"):
        bool(tl.tensor([], device=device))
    assert bool(tl.tensor([1], device=device)) is True
    assert len(t) == 2 and [r.tolist() for r in t] == [[1.5, -2.0], [3.0, 4.25]]
    assert tl.tensor([1, 2], dtype=tl.bfloat16).tolist() == [1.0, 2.0]
    # views read straight from memory: transposed (made contiguous first), offset, bfloat16
    assert t.t().tolist() == [[1.5, 3.0], [-2.0, 4.25]] and t[:, 1].tolist() == [-2.0, 4.25]
    assert t.t()[0, 1].item() == 3.0 and t.to(tl.bfloat16)[1].tolist() == [3.0, 4.25]
    # numpy(force=True) copies and detaches on any device, as PyTorch's (a cuda tensor that
    # required grad raised before)
    w = tl.tensor([1.5, -2.0], device=device, requires_grad=True)
    assert w.numpy(force=True).tolist() == [1.5, -2.0] and np.asarray(w.detach().cpu()).tolist() == [1.5, -2.0]
    with pytest.raises(TypeError if device == "cuda" else RuntimeError):  # __array__ is numpy(), as PyTorch's
        np.asarray(w)


def test_to_device_and_dtype_roundtrip():
    if not tl.cuda.is_available():
        pytest.skip("no cuda device")
    a = tl.arange(12, dtype=tl.float32).reshape(3, 4)
    c = a.cuda()
    assert c.is_cuda and c.dtype is tl.float32
    back = c.cpu()
    np.testing.assert_array_equal(back.numpy(), a.numpy())
    # non-contiguous sources are gathered with the copy kernel on the way out and in
    np.testing.assert_array_equal(c.t().cpu().numpy(), a.numpy().T)
    np.testing.assert_array_equal(a.t().cuda().cpu().numpy(), a.numpy().T)
    h = a.to("cuda", tl.float16)
    assert h.is_cuda and h.dtype is tl.float16
    assert a.to(h).dtype is tl.float16 and a.to(h).is_cuda
    assert c.to("cuda") is c and a.to(tl.float32) is a
    assert a.to(tl.float32, copy=True) is not a
    assert a.to(c).is_cuda


def test_type_as_follows_the_other_tensors_device():
    # PyTorch's type_as is self.to(other.options()): dtype and device both follow other
    if not tl.cuda.is_available():
        pytest.skip("no cuda device")
    src = tl.tensor([[4, 5]], device="cuda")
    w = tl.ones(1, 1).type_as(src).fill_(7)
    assert w.is_cuda and w.dtype is tl.int64 and w.cpu().tolist() == [[7]]
    assert tl.cat([src, w], dim=1).cpu().tolist() == [[4, 5, 7]]
    back = src.type_as(tl.zeros(1, dtype=tl.float64))
    assert back.device.type == "cpu" and back.dtype is tl.float64 and back.tolist() == [[4.0, 5.0]]


def test_dtype_conversions(device):
    t = tl.tensor([1.7, -2.2, 0.0], device=device)
    assert t.long().tolist() == [1, -2, 0]
    assert t.int().dtype is tl.int32 and t.short().dtype is tl.int16 and t.char().dtype is tl.int8
    assert t.bool().tolist() == [True, True, False]
    assert t.double().dtype is tl.float64 and t.half().dtype is tl.float16 and t.bfloat16().dtype is tl.bfloat16
    assert t.type_as(tl.zeros(1, dtype=tl.float64)).dtype is tl.float64
    prefix = "tensorlab.cuda." if device == "cuda" else "tensorlab."
    assert t.type() == prefix + "FloatTensor" and t.long().type() == prefix + "LongTensor"  # PyTorch's names
    assert t.bfloat16().type() == prefix + "BFloat16Tensor" and t.bool().type() == prefix + "BoolTensor"
    assert t.type(prefix + "FloatTensor") is t and t.type(tl.int8).dtype is tl.int8
    h = t.type("tensorlab.HalfTensor")  # a type name without 'cuda.' is a cpu type
    assert h.dtype is tl.float16 and h.device.type == "cpu" and h.tolist() == [1.7001953125, -2.19921875, 0.0]
    with pytest.raises(ValueError, match="invalid type: 'tensorlab.FooTensor'"):
        t.type("tensorlab.FooTensor")
    assert tl.tensor([1, 0, 3], device=device).float().tolist() == [1.0, 0.0, 3.0]


def test_views_share_memory(device):
    base = tl.arange(24, device=device).reshape(2, 3, 4)
    views = {
        "view": base.view(6, 4),
        "transpose": base.transpose(0, 2),
        "permute": base.permute(2, 0, 1),
        "squeeze_unsqueeze": base.unsqueeze(1).squeeze(1),
        "narrow": base.narrow(2, 1, 2),
        "select": base.select(1, 2),
        "slice": base[:, 1:, ::2],
        "diagonal": base.diagonal(0, 1, 2),
        "expand": base[:, :1, :].expand(2, 5, 4),
        "as_strided": base.as_strided((2, 2), (1, 4), 1),
        "flatten": base.flatten(),
        "unflatten": base.unflatten(2, (2, 2)),
        "movedim": base.movedim(0, -1),
        "T": base[0].T,
        "mT": base.mT,
        "swapaxes": base.swapaxes(0, 1),
        "detach": base.detach(),
    }
    base_np = np.arange(24).reshape(2, 3, 4)
    expected = {
        "view": base_np.reshape(6, 4),
        "transpose": base_np.transpose(2, 1, 0),
        "permute": base_np.transpose(2, 0, 1),
        "squeeze_unsqueeze": base_np,
        "narrow": base_np[:, :, 1:3],
        "select": base_np[:, 2],
        "slice": base_np[:, 1:, ::2],
        "diagonal": np.diagonal(base_np, 0, 1, 2),
        "expand": np.broadcast_to(base_np[:, :1, :], (2, 5, 4)),
        "as_strided": np.lib.stride_tricks.as_strided(base_np.reshape(-1)[1:], (2, 2), (8, 32)),
        "flatten": base_np.reshape(-1),
        "unflatten": base_np.reshape(2, 3, 2, 2),
        "movedim": np.moveaxis(base_np, 0, -1),
        "T": base_np[0].T,
        "mT": np.swapaxes(base_np, -1, -2),
        "swapaxes": np.swapaxes(base_np, 0, 1),
        "detach": base_np,
    }
    for name, v in views.items():
        assert v._storage is base._storage, name
        np.testing.assert_array_equal(to_numpy(v), expected[name], err_msg=name)
    # a write through a view shows in the base
    base.select(0, 1).select(0, 2).fill_(-5)
    assert base[1, 2].tolist() == [-5] * 4
    assert views["view"][5].tolist() == [-5] * 4


def test_split_chunk_unbind(device):
    x = tl.arange(10, device=device)
    assert [p.tolist() for p in x.split(4)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert [p.tolist() for p in x.split([3, 7])] == [[0, 1, 2], list(range(3, 10))]
    assert [p.numel() for p in x.chunk(3)] == [4, 4, 2]
    assert [p.numel() for p in tl.arange(6).chunk(4)] == [2, 2, 2]
    assert [p.tolist() for p in x.view(2, 5).unbind(1)] == [[0, 5], [1, 6], [2, 7], [3, 8], [4, 9]]
    assert all(p._storage is x._storage for p in x.split(3))
    with pytest.raises(RuntimeError, match="split_with_sizes expects split_sizes to sum exactly to 10"):
        x.split([3, 3])


def test_reshape_copies_only_when_it_must():
    x = tl.arange(12).reshape(3, 4)
    assert x.reshape(4, 3)._storage is x._storage
    assert x.reshape(-1, 6).shape == (2, 6)
    t = x.t()
    r = t.reshape(12)  # a transposed matrix cannot be flattened without a copy
    assert r._storage is not x._storage
    np.testing.assert_array_equal(r.numpy(), np.arange(12).reshape(3, 4).T.reshape(12))
    with pytest.raises(RuntimeError, match="view size is not compatible"):
        t.view(12)
    assert t.view(4, 3).shape == (4, 3)  # same shape: always a view
    assert x[:, :2].view(3, 2, 1).shape == (3, 2, 1)  # splitting/adding unit dims works on strided views


@pytest.mark.parametrize(
    "fn,err,match",
    [
        (lambda x: x.view(5, 5), RuntimeError, r"shape '\[5, 5\]' is invalid for input of size 12"),
        (lambda x: x.view(-1, -1), RuntimeError, "only one dimension can be inferred"),
        (lambda x: x.reshape(-2, 6), RuntimeError, "invalid shape dimension -2"),
        (lambda x: x.transpose(0, 2), IndexError, "Dimension out of range"),
        (lambda x: x.permute(0, 0), RuntimeError, "duplicate dims"),
        (lambda x: x.permute(0), RuntimeError, "does not match the length"),
        (lambda x: x.expand(3, 5), RuntimeError, r"expanded size of the tensor \(5\) must match the existing size"),
        (lambda x: x.narrow(1, 2, 3), RuntimeError, r"start \(2\) \+ length \(3\) exceeds dimension size \(4\)"),
        (lambda x: x.select(0, 3), IndexError, r"index 3 out of range for tensor of size \[3, 4\] at dimension 0"),
        (lambda x: x[3], IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
        (lambda x: x[0, 0, 0], IndexError, "too many indices"),
        (lambda x: x[::-1], ValueError, "step must be greater than zero"),
        (lambda x: x.unsqueeze(3), IndexError, "Dimension out of range"),
        (lambda x: x.t().t().diagonal(0, 1, 1), RuntimeError, "diagonal dimensions cannot be identical"),
        (lambda x: x.as_strided((4, 4), (4, 1)), RuntimeError, "require 16 elements"),
        (lambda x: x.flatten(1, 0), RuntimeError, "start_dim cannot come after end_dim"),
        (lambda x: tl.empty(-1), RuntimeError, "negative dimension -1"),
        (lambda x: x.chunk(0), RuntimeError, "chunks"),
    ],
)
def test_view_errors_match_pytorch(fn, err, match):
    x = tl.arange(12).reshape(3, 4)
    with pytest.raises(err, match=match):
        fn(x)


# view(dtype): values, shapes, strides and offsets from torch 2.15 (the bits read back as ints of the same size)
_VIEW_DTYPE_CASES = [
    ('float32', [1.0, -2.0, 0.5, 3.25, -0.0, 1e-30], ((2, 2), (3, 1), 1), 'int32',
     ((2, 2), (3, 1), 1, [[-1073741824, 1056964608], [-2147483648, 228737632]])),
    ('float32', [1.0, -2.0, 0.5, 3.25, -0.0, 1e-30], ((2, 2), (3, 1), 1), 'uint8',
     ((2, 8), (12, 1), 4, [[0, 0, 0, 192, 0, 0, 0, 63], [0, 0, 0, 128, 96, 66, 162, 13]])),
    ('float32', [1.0, -2.0, 0.5, 3.25, -0.0, 1e-30], ((3, 2), (2, 1), 0), 'float64',
     ((3, 1), (1, 1), 0, [[-4611686017362034688], [4634204017621204992], [982420650951966720]])),
    ('float32', [1.0, -2.0, 0.5, 3.25, -0.0, 1e-30], ((2, 2), (0, 1), 2), 'float16',
     ((2, 4), (0, 1), 4, [[0, 16128, 0, 16464], [0, 16128, 0, 16464]])),
    ('float64', [1.0, -2.5, 1e+300, -0.0], ((2, 2), (1, 1), 1), 'int64',
     ((2, 2), (1, 1), 1, [[-4610560118520545280, 9094988921128908188], [9094988921128908188, -9223372036854775808]])),
    ('float64', [1.0, -2.5, 1e+300, -0.0], ((2, 1), (2, 1), 1), 'uint8',
     ((2, 8), (16, 1), 8, [[0, 0, 0, 0, 0, 0, 4, 192], [0, 0, 0, 0, 0, 0, 0, 128]])),
    ('float64', [1.0, -2.5, 1e+300, -0.0], ((4,), (1,), 0), 'float32',
     ((8,), (1,), 0, [0, 1072693248, 0, -1073479680, -2013235812, 2117592124, 0, -2147483648])),
    ('float16', [1.0, -2.0, 65504.0, float("inf"), 0.1, -0.0], ((3, 2), (2, 1), 0), 'int16',
     ((3, 2), (2, 1), 0, [[15360, -16384], [31743, 31744], [11878, -32768]])),
    ('bfloat16', [1.0, -2.0, 3e+38, float("-inf"), 0.1, -0.0], ((2, 2), (3, 1), 1), 'int16',
     ((2, 2), (3, 1), 1, [[-16384, 32610], [15821, -32768]])),
    ('bfloat16', [1.0, -2.0, 3e+38, float("-inf"), 0.1, -0.0], ((3, 2), (2, 1), 0), 'float32',
     ((3, 1), (1, 1), 0, [[-1073725568], [-8355998], [-2147467827]])),
    ('int16', [16256, -16384, 0, 32767], ((4,), (1,), 0), 'bfloat16', ((4,), (1,), 0, [16256, -16384, 0, 32767])),
    ('int16', [16256, -16384, 0, 32767], ((2, 2), (2, 1), 0), 'float16',
     ((2, 2), (2, 1), 0, [[16256, -16384], [0, 32767]])),
    ('uint8', [0, 0, 128, 63, 0, 0, 0, 192, 255], ((2, 4), (4, 1), 0), 'float32',
     ((2, 1), (1, 1), 0, [[1065353216], [-1073741824]])),
    ('uint8', [0, 1, 2, 255, 128, 7, 9, 0, 1], ((2, 4), (4, 1), 1), 'int8',
     ((2, 4), (4, 1), 1, [[1, 2, 255, 128], [7, 9, 0, 1]])),
    ('int8', [0, 1, -1, -128, 127, 1], ((6,), (1,), 0), 'uint8', ((6,), (1,), 0, [0, 1, 255, 128, 127, 1])),
    ('uint8', [0, 1, 1, 0, 1, 1], ((2, 3), (3, 1), 0), 'bool', ((2, 3), (3, 1), 0, [[0, 1, 1], [0, 1, 1]])),
    ('bool', [True, False, True, True, False, True, True, True], ((2, 4), (4, 1), 0), 'int8',
     ((2, 4), (4, 1), 0, [[1, 0, 1, 1], [0, 1, 1, 1]])),
    ('bool', [True, False, True, True, False, True, True, True], ((2, 4), (4, 1), 0), 'int32',
     ((2, 1), (1, 1), 0, [[16842753], [16843008]])),
    ('int32', [1, -1, 7, 2147483647], ((), (), 2), 'float32', ((), (), 2, 7)),
    ('int64', [1, -1], ((0, 2), (2, 1), 0), 'int32', ((0, 4), (4, 1), 0, [])),
]
_BITS = {1: tl.uint8, 2: tl.int16, 4: tl.int32, 8: tl.int64}


@pytest.mark.parametrize("src,values,layout,dst,expected", _VIEW_DTYPE_CASES)
def test_view_dtype_reinterprets_the_bytes_as_pytorch(src, values, layout, dst, expected, device):
    base = tl.tensor(values, dtype=getattr(tl, src), device=device)
    x = base.as_strided(*layout)
    v = x.view(getattr(tl, dst))
    shape, stride, offset, bits = expected
    assert (v.dtype, v.shape, v.stride(), v.storage_offset()) == (getattr(tl, dst), shape, stride, offset)
    assert v.device == base.device and v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    c = v.contiguous()
    assert c.view(_BITS[c.element_size()]).tolist() == bits
    assert v.cpu().view(_BITS[c.element_size()]).tolist() == bits  # (a device copy keeps the bytes)
    if device == "cpu":  # (numpy reads the storage's bytes as the view's dtype)
        assert v.numpy().copy().view(_BITS[c.element_size()].np).tolist() == bits
    if v.ndim and x.numel():
        assert tl.equal(v.view(x.dtype).view(tl.uint8), x.view(tl.uint8))  # (and back)


@pytest.mark.parametrize("src,layout,dst,message", [
    ('float32', ((), (), 0), 'float64', 'self.dim() cannot be 0 to view Float as Double (different element sizes)'),
    ('float32', ((), (), 0), 'float16', 'self.dim() cannot be 0 to view Float as Half (different element sizes)'),
    ('float32', ((3,), (1,), 0), 'float64',
     'self.size(-1) must be divisible by 2 to view Float as Double (different element sizes), but got 3'),
    ('float32', ((4,), (1,), 1), 'float64',
     'self.storage_offset() must be divisible by 2 to view Float as Double (different element sizes), but got 1'),
    ('float32', ((2, 4), (1, 2), 0), 'float64',
     'self.stride(-1) must be 1 to view Float as Double (different element sizes), but got 2'),
    ('float32', ((4, 2), (1, 4), 0), 'uint8',
     'self.stride(-1) must be 1 to view Float as Byte (different element sizes), but got 4'),
    ('float32', ((2, 4), (5, 1), 0), 'float64',
     'self.stride(0) must be divisible by 2 to view Float as Double (different element sizes), but got 5'),
    ('float32', ((4, 1), (1, 1), 0), 'float64',
     'self.size(-1) must be divisible by 2 to view Float as Double (different element sizes), but got 1'),
    ('float32', ((4, 2), (2, 0), 0), 'uint8',
     'self.stride(-1) must be 1 to view Float as Byte (different element sizes), but got 0'),
    ('uint8', ((3, 1), (1, 3), 0), 'float32',
     'self.size(-1) must be divisible by 4 to view Byte as Float (different element sizes), but got 1'),
    ('bool', ((2, 4), (1, 2), 0), 'float16',
     'self.stride(-1) must be 1 to view Bool as Half (different element sizes), but got 2'),
    ('int8', ((2, 4), (8, 2), 1), 'int32',
     'self.storage_offset() must be divisible by 4 to view Char as Int (different element sizes), but got 1'),
    ('float16', ((2, 3, 4), (13, 5, 1), 0), 'float32',
     'self.stride(0) must be divisible by 2 to view Half as Float (different element sizes), but got 13'),
    ('bfloat16', ((2, 2), (4, 1), 1), 'int64',
     'self.size(-1) must be divisible by 4 to view BFloat16 as Long (different element sizes), but got 2'),
    ('int16', ((2, 0), (1, 2), 0), 'bool',
     'self.stride(-1) must be 1 to view Short as Bool (different element sizes), but got 2'),
    ('int16', ((2, 0), (1, 2), 0), 'int32',
     'self.stride(-1) must be 1 to view Short as Int (different element sizes), but got 2'),
])
def test_view_dtype_errors_match_pytorch(src, layout, dst, message):
    x = tl.zeros(64, dtype=getattr(tl, src)).as_strided(*layout)
    with pytest.raises(RuntimeError) as info:
        x.view(getattr(tl, dst))
    assert str(info.value) == message


def test_view_dtype_arguments():
    x = tl.tensor([1.0, 2.0])
    assert x.view(dtype=tl.int32).tolist() == [1065353216, 1073741824]
    assert tl.zeros(2, 3).view(tl.float32).shape == (2, 3)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        x.view(tl.float32, 2)
    with pytest.raises(TypeError):
        x.view("float32")
    with pytest.raises(TypeError):
        x.view(2, dtype=tl.int32)


def test_view_dtype_takes_python_types_as_pytorch():
    # torch: x.view(int) is x.view(torch.int64), float float64, bool bool (values checked against torch 2.15)
    x = tl.tensor([1.0, 2.0])
    assert x.view(int).dtype is tl.int64 and x.view(int).tolist() == [4611686019492741120]
    assert x.view(dtype=int).tolist() == [4611686019492741120]
    assert x.view(float).dtype is tl.float64 and x.view(float).tolist() == [2.000000473111868]
    assert tl.tensor([0, 1], dtype=tl.uint8).view(bool).tolist() == [False, True]
    with pytest.raises(TypeError):
        x.view(2, int)


def test_view_dtype_shares_storage_and_version_counter(device):
    # torch 2.15: add_(1) on the int32 view steps each float's bits by one ulp; one version counter
    x = tl.tensor([1.0, -2.0, 0.5, 3.25], device=device)
    v = x.view(tl.int32)
    assert v._base is None and x._version == v._version == 0
    v.add_(1)
    assert x.tolist() == [1.0000001192092896, -2.000000238418579, 0.5000000596046448, 3.250000238418579]
    assert x._version == v._version == 1
    x.mul_(2)
    assert v.tolist() == [1073741825, -1065353215, 1065353217, 1087373313] and v._version == 2
    b = tl.tensor([1.0, -2.0], device=device)
    b.view(tl.uint8)[1:6:2].add_(7)  # a strided byte view of the floats
    assert b.tolist() == [16387.5, -2.00042724609375]
    h = tl.tensor([1.0, -2.0, 65504.0, float("inf")], dtype=tl.float16, device=device)
    h.view(tl.int16).mul_(3)
    assert h.view(tl.int16).tolist() == [-19456, 16384, 29693, 29696]
    # x.copy_(x.view(int32)): the whole destination, read before written (torch: the ints as floats)
    y = tl.tensor([1.0, 2.0], device=device)
    y.copy_(y.view(tl.int32))
    assert y.tolist() == [1065353216.0, 1073741824.0]
    # the same element geometry in another element size is other bytes: a partial overlap, refused
    d = tl.tensor([1.0, 2.0], dtype=tl.float64, device=device)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer"):
        d.add_(d.view(tl.int32)[:2])


def test_view_dtype_on_cpu_reaches_numpy_and_host_scalars():
    x = tl.tensor([1.0, 2.0])
    n = x.view(tl.int32).numpy()
    n[0] = 0
    assert x.tolist() == [0.0, 2.0] and n.dtype == np.int32
    assert x.view(tl.uint8).numpy().tolist() == [0, 0, 0, 0, 0, 0, 0, 64]
    assert np.from_dlpack(x[1:].view(tl.int32)).tolist() == [1073741824]
    from tensorlab.optim.optimizer import add_host_scalar_, read_host_scalar

    s = tl.tensor(1065353216, dtype=tl.int32).view(tl.float32)  # a float32 step over int32 memory
    assert read_host_scalar(s) == 1.0
    add_host_scalar_(s, 1.0)
    assert s.item() == 2.0 and s.view(tl.int32).item() == 1073741824


def test_view_dtype_moves_between_devices(device):
    # a cpu view(dtype) with an offset, copied to the device and back: its own bytes, not the storage's
    # elements at its offset (the cpu storage is a float32 array; the view counts int16 elements)
    x = tl.tensor([1.0, -2.0, 0.5, 3.25])
    v = x.view(tl.int16)[3:7]
    assert v.storage_offset() == 3 and v.tolist() == [-16384, 0, 16128, 0]
    d = v.to(device)
    assert d.tolist() == [-16384, 0, 16128, 0] and d.to("cpu").tolist() == [-16384, 0, 16128, 0]
    u = x.view(tl.uint8).as_strided((2, 3), (8, 1), 2).to(device)  # (not dense: copied as a block first)
    assert u.tolist() == [[128, 63, 0], [0, 63, 0]]
    w = tl.tensor([1.0, 2.0], device=device).view(tl.int32)[1:].to("cpu")
    assert w.tolist() == [1073741824] and w.view(tl.float32).tolist() == [2.0]


def test_view_dtype_is_not_differentiable_as_pytorch():
    # torch 2.15: view(dtype) of a tensor that requires grad, any dtype (the same one too), neither
    # requires grad nor has a grad_fn; in-place writes through it bump the shared version counter
    x = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for t in (x, x * 2):
        for dt in (tl.float32, tl.int32, tl.float16, tl.uint8, tl.bfloat16):
            v = t.view(dt)
            assert (v.requires_grad, v.grad_fn, v.is_leaf, v._base) == (False, None, True, None)
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        x.view(tl.float32).sum().backward()
    with pytest.raises(RuntimeError, match="only Tensors of floating point dtype can require gradients"):
        x.view(tl.int32).requires_grad_()
    h = x.view(tl.float16).requires_grad_()
    assert h.requires_grad and h.is_leaf
    b = x * 1
    c = b.sin()
    b.view(tl.int32).add_(1)  # (allowed, as torch: not a view of a leaf in autograd's sense)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        c.sum().backward()
    a = tl.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a.view(tl.int32).add_(1)
    assert a.detach().view(tl.int32).tolist() == [1065353217, 1073741825, 1077936129]


def test_as_strided_backward_adds_up_overlapping_elements(device):
    # values from torch 2.13: windows that share elements (stride 1 < row length) and a stride-0
    # dim send every copy's gradient to the one input element, summed
    x = tl.arange(1.0, 7.0, dtype=tl.float64, device=device).requires_grad_()
    x.as_strided((3, 3), (1, 1), 0).backward(tl.arange(9.0, dtype=tl.float64, device=device).reshape(3, 3))
    assert x.grad.tolist() == [0.0, 4.0, 12.0, 12.0, 8.0, 0.0]
    x = tl.arange(1.0, 7.0, dtype=tl.float64, device=device).requires_grad_()
    x.as_strided((2, 3), (0, 2), 1).backward(tl.arange(6.0, dtype=tl.float64, device=device).reshape(2, 3))
    assert x.grad.tolist() == [0.0, 3.0, 0.0, 5.0, 0.0, 7.0]
    # differentiable again: d/dx sum(view ** 2) = 2 x * (number of copies)
    x = tl.tensor([1.0, 2.0, 3.0, 4.0], dtype=tl.float64, device=device).requires_grad_()
    (g,) = tl.autograd.grad((x.as_strided((2, 3), (1, 1)) ** 2).sum(), x, create_graph=True)
    assert g.tolist() == [2.0, 8.0, 12.0, 8.0]
    g.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 4.0, 2.0]


def test_as_strided_backward_of_a_strided_input(device):
    # values from torch 2.13: the view's offsets address the input's storage; gradients go to the
    # input element at each position (none for positions outside the input, shared by aliases)
    def grad_of(view_of, g):
        x = tl.arange(12.0, dtype=tl.float64, device=device).reshape(3, 4).requires_grad_()
        y = view_of(x)
        y.backward(tl.tensor(g, dtype=tl.float64, device=device).reshape(y.shape))
        return x.grad.tolist()

    assert grad_of(lambda x: x.t().as_strided((3, 2), (1, 4), 0), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]) == \
        [[1.0, 3.0, 5.0, 0.0], [2.0, 4.0, 6.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    assert grad_of(lambda x: x[:, ::2].as_strided((3, 2), (1, 2), 0), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]) == \
        [[1.0, 0.0, 7.0, 0.0], [6.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    assert grad_of(lambda x: x.t().unfold(0, 3, 1), [1.0] * 18) == [[1.0, 2.0, 2.0, 1.0]] * 3
    x = tl.arange(3.0, dtype=tl.float64, device=device).requires_grad_()
    x.expand(2, 3).as_strided((2,), (1,), 1).backward(tl.tensor([10.0, 20.0], dtype=tl.float64, device=device))
    assert x.grad.tolist() == [0.0, 10.0, 20.0]


def test_basic_indexing(device):
    a = np.arange(60).reshape(3, 4, 5)
    t = tl.tensor(a, device=device)
    for index in [
        0, -1, (1, 2), (slice(None), 1), (Ellipsis, 2), (None, 1), (slice(1, None), None, slice(None, None, 2)),
        (Ellipsis, None), (slice(-2, None), Ellipsis, slice(1, 4, 2)), (0, slice(5, 10)), (slice(2, 1),),
    ]:
        got = t[index]
        np.testing.assert_array_equal(to_numpy(got), a[index], err_msg=str(index))
        assert got._storage is t._storage
    with pytest.raises(IndexError, match="invalid index of a 0-dim tensor"):
        tl.tensor(3)[0]
    assert tl.tensor(3)[...].shape == () and tl.tensor(3)[None].shape == (1,)


def test_basic_setitem(device):
    t = tl.zeros(3, 4, device=device)
    t[1] = 5.0
    t[:, 0] = tl.tensor([1.0, 2.0, 3.0], device=device)
    t[2, 1:3] = tl.tensor([7.0, 8.0], device=device)
    t[..., -1] = 9
    expected = np.zeros((3, 4))
    expected[1] = 5
    expected[:, 0] = [1, 2, 3]
    expected[2, 1:3] = [7, 8]
    expected[..., -1] = 9
    np.testing.assert_array_equal(to_numpy(t), expected)


def test_contiguous_clone_detach(device):
    x = tl.arange(6, dtype=tl.float32, device=device).view(2, 3)
    assert x.contiguous() is x
    t = x.t()
    c = t.contiguous()
    assert c.is_contiguous() and c._storage is not x._storage
    np.testing.assert_array_equal(to_numpy(c), np.arange(6).reshape(2, 3).T)
    k = x.clone()
    k.fill_(0)
    assert to_numpy(x).sum() == 15  # the clone has its own memory
    d = x.detach()
    assert d._storage is x._storage and not d.requires_grad


def test_copy_broadcast_cast_and_cross_device(device):
    dst = tl.zeros(2, 3, dtype=tl.int32, device=device)
    dst.copy_(tl.tensor([1.9, -2.9, 3.0]))  # from cpu, broadcast over rows, float -> int truncates
    assert dst.tolist() == [[1, -2, 3], [1, -2, 3]]
    with pytest.raises(RuntimeError, match="must match the size"):
        dst.copy_(tl.ones(4))
    assert dst.tolist() == [[1, -2, 3], [1, -2, 3]]  # nothing changed by the failed copy
    v0 = dst._version
    dst[0].copy_(tl.tensor([7, 8, 9], dtype=tl.int64, device=device))
    assert dst._version == v0 + 1
    assert dst.tolist() == [[7, 8, 9], [1, -2, 3]]


def test_factories(device):
    assert to_numpy(tl.zeros(2, 3, device=device)).tolist() == [[0.0] * 3] * 2
    assert tl.ones((2,), dtype=tl.int8, device=device).tolist() == [1, 1]
    f = tl.full((2, 2), 7, device=device)
    assert f.dtype is tl.int64 and f.tolist() == [[7, 7], [7, 7]]
    assert tl.full((1,), True).dtype is tl.bool and tl.full((1,), 0.5).dtype is tl.float32
    assert tl.full((2,), 1 / 3, dtype=tl.float64, device=device).tolist() == [1 / 3, 1 / 3]
    assert tl.empty(3, 0, device=device).shape == (3, 0)
    e = tl.eye(2, 3, device=device)
    assert e.tolist() == [[1, 0, 0], [0, 1, 0]]
    x = tl.ones(2, 3, dtype=tl.float16, device=device)
    for like in (tl.zeros_like(x), tl.ones_like(x), tl.empty_like(x), tl.full_like(x, 2)):
        assert like.shape == x.shape and like.dtype is tl.float16 and like.device == x.device
    assert x.new_zeros(4).dtype is tl.float16 and x.new_ones(2, 2).shape == (2, 2)
    assert x.new_full((1,), 3).tolist() == [3.0] and x.new_tensor([1, 2]).dtype is tl.float16
    assert x.new_empty((5,)).shape == (5,)


def test_ranges():
    assert tl.arange(5).tolist() == [0, 1, 2, 3, 4] and tl.arange(5).dtype is tl.int64
    assert tl.arange(1, 4, 0.5).dtype is tl.float32
    np.testing.assert_allclose(tl.arange(1, 4, 0.5).numpy(), np.arange(1, 4, 0.5))
    assert tl.arange(10, 0, -3).tolist() == [10, 7, 4, 1]
    with pytest.raises(RuntimeError, match="step must be nonzero"):
        tl.arange(0, 3, 0)
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        tl.arange(0, 3, -1)
    # an integer dtype counts the elements from the float arguments, then steps from the truncated
    # start by the truncated step (PyTorch 2.15)
    assert tl.arange(-2.5, 3, 1.5, dtype=tl.int64).tolist() == [-2, -1, 0, 1]
    assert tl.arange(1, 10, 1.5, dtype=tl.int32).tolist() == [1, 2, 3, 4, 5, 6]
    assert tl.arange(2.7, dtype=tl.int64).tolist() == [0, 1, 2] and tl.arange(0.5, dtype=tl.int16).tolist() == [0]
    assert tl.arange(5.5, 0.5, -1.5, dtype=tl.int64).tolist() == [5, 4, 3, 2]
    assert tl.arange(0, 1, 0.3, dtype=tl.int64).tolist() == [0, 0, 0, 0]
    assert tl.arange(0, 1, 0.3).tolist() == pytest.approx([0, 0.3, 0.6, 0.9])  # a float dtype keeps them
    # integer ranges longer than 2**53 are counted exactly (a float quotient dropped the last element);
    # a float dtype counts through doubles, as PyTorch
    assert tl.arange(0, 2**62 + 5, 2**60).tolist() == [0, 2**60, 2**61, 3 * 2**60, 2**62]
    assert tl.arange(1, 2**62 + 2, 2**61).tolist() == [1, 2**61 + 1, 2**62 + 1]
    assert tl.arange(2**62 + 5, 0, -(2**60)).shape == (5,) and tl.arange(0, 2**55 + 1, 2**52).shape == (9,)
    assert tl.arange(0, 2**62 + 5, 2**60, dtype=tl.float64).shape == (4,)
    np.testing.assert_allclose(tl.linspace(-1, 1, 5).numpy(), [-1, -0.5, 0, 0.5, 1])
    np.testing.assert_allclose(tl.linspace(0, 1, 7, dtype=tl.float64).numpy(), np.linspace(0, 1, 7), rtol=1e-15)
    assert tl.linspace(0, 1, 1).tolist() == [0.0] and tl.linspace(0, 1, 0).shape == (0,)
    np.testing.assert_allclose(tl.logspace(0, 3, 4).numpy(), [1, 10, 100, 1000], rtol=1e-6)
    np.testing.assert_allclose(tl.logspace(0, 3, 4, base=2).numpy(), [1, 2, 4, 8])
    # both ends must convert to dtype, as in PyTorch: no wrapped int32 steps, no inf-wide half spacing
    for op, dtype in [(tl.linspace, tl.int32), (tl.linspace, tl.float16), (tl.logspace, tl.int32),
                      (tl.logspace, tl.float16)]:
        with pytest.raises(RuntimeError, match=f"{op.__name__}: value cannot be converted to type {dtype.name}"):
            op(0, 1e10, 3, dtype=dtype)
    assert tl.linspace(-2, 4, 4, dtype=tl.int8).tolist() == [-2, 0, 2, 4]
    # ...only when there are steps between them: no steps converts nothing, one step only linspace's start
    assert tl.linspace(1000, 0, 0, dtype=tl.int8).shape == (0,) and tl.logspace(1, 1e6, 0, dtype=tl.int8).shape == (0,)
    assert tl.linspace(-42, -220, 1, dtype=tl.int8).tolist() == [-42]
    assert tl.linspace(-1e6, 5, 1, dtype=tl.float16).tolist() == [float("-inf")]
    with pytest.raises(RuntimeError, match="linspace: value cannot be converted to type int8 without overflow: -220"):
        tl.linspace(-220, -42, 1, dtype=tl.int8)
    assert tl.logspace(-220, -42, 1, dtype=tl.int8).tolist() == [0]
    # PyTorch's arithmetic: integer ends converted to the dtype (wrapped) and a float64 step; a float
    # output's step in its precision, each value rounded once
    assert tl.linspace(-5, 5, 3, dtype=tl.uint8).tolist() == [251, 128, 5]
    assert tl.linspace(0.5, 3.5, 3, dtype=tl.int64).tolist() == [0, 1, 3]
    # the integer dtypes' multiply-add is fused too (rounded once, then truncated; values from torch 2.15)
    assert tl.linspace(73, -181, 7, dtype=tl.int32).tolist() == [73, 30, -11, -53, -96, -138, -181]
    assert tl.linspace(9.707197221819413, -3.0191220597675077, 10, dtype=tl.int32).tolist()[6] == 0
    assert tl.logspace(0.5, 2.5, 3, dtype=tl.int64).tolist() == [1, 10, 100]
    assert tl.linspace(0, 10, 4).tolist() == [0.0, 3.3333332538604736, 6.6666669845581055, 10.0]
    assert tl.linspace(-1, 1, 11).tolist()[5] == -1.4901161193847656e-08
    # float32's step is (end - start) / (steps - 1) in float32 arithmetic (a float64 step, rounded
    # once, moved the middle values by up to 20 ulps)
    assert tl.linspace(-1.1206011000689373, 1.547112456618598, 26).tolist()[10:14] == [
        -0.05351556837558746, 0.05319298058748245, 0.15990152955055237, 0.26660987734794617]
    assert tl.logspace(0, 400, 2, dtype=tl.float64).tolist() == [1.0, float("inf")]  # the powers may overflow
    # logspace's exponents are rounded product by product (no fused multiply-add), ends in the dtype,
    # and the power is rounded once: the middle exponent of -5..5 is exactly 0 (values from torch 2.15)
    assert tl.logspace(-5, 5, 7, dtype=tl.int64).tolist() == [0, 0, 0, 1, 46, 2154, 100000]
    assert tl.logspace(-5, 5, 7, dtype=tl.float64).tolist()[3] == 1.0
    assert tl.logspace(-10, -5, 2, dtype=tl.float64).tolist() == [1e-10, 1e-05]
    assert tl.logspace(-10, 1.7, 2).tolist()[1] == 50.118728637695312  # 10 ** float32(1.7), not 10 ** 1.7
    assert tl.logspace(0.5, -10, 1, dtype=tl.int64).tolist() == [3]  # one step: base ** start, unconverted


def test_fill_and_zero(device):
    t = tl.empty(5, 3, device=device)
    t.fill_(2.5)
    assert to_numpy(t).tolist() == [[2.5] * 3] * 5
    t[:, 1].zero_()
    assert to_numpy(t)[:, 1].tolist() == [0.0] * 5 and to_numpy(t)[:, 0].tolist() == [2.5] * 5
    with pytest.raises(RuntimeError, match="overflow"):
        tl.zeros(2, dtype=tl.int8, device=device).fill_(300)
    with pytest.raises(RuntimeError, match="only supports 0-dimension value tensor"):
        t.fill_(tl.ones(2))
    t.fill_(tl.tensor(4.0))
    assert to_numpy(t).max() == 4.0


def test_fill_with_a_value_tensor_converts_it_as_a_tensor(device):
    """torch 2.15: a 0-d value on self's device is copied (converted as a tensor: no overflow check);
    from another device it is read as a number and checked as one; a view of self is read first."""
    def filled(dtype, value):
        return tl.zeros(2, dtype=dtype, device=device).fill_(tl.tensor(value, device=device)).tolist()

    assert filled(tl.uint8, -3.7) == [253, 253]
    assert filled(tl.int8, 300) == [44, 44]
    assert filled(tl.float16, 1e6) == [float("inf")] * 2
    assert filled(tl.int32, 2.7) == [2, 2] and filled(tl.bool, 0.2) == [True, True]
    x = tl.arange(3.0, device=device)
    assert x.fill_(x[1]).tolist() == [1.0, 1.0, 1.0]
    if device != "cpu":
        with pytest.raises(RuntimeError, match="fill_: value cannot be converted to type uint8 without overflow"):
            tl.zeros(2, dtype=tl.uint8, device=device).fill_(tl.tensor(-3.7))


def test_fill_and_zero_of_an_expanded_tensor(device):
    # every element gets the same value, so PyTorch lets fill_/zero_ write an expanded tensor
    # (elements sharing memory) where other in-place ops raise
    base = tl.ones(3, device=device)
    e = base.expand(2, 3)
    assert e.fill_(2.5) is e and base.tolist() == [2.5] * 3 and e.tolist() == [[2.5] * 3] * 2
    e.zero_()
    assert base.tolist() == [0.0] * 3
    col = tl.ones(4, 1, dtype=tl.float16, device=device)
    col.expand(4, 5).t().fill_(-3)  # a stride-0 dim that is not the last, transposed
    assert col.tolist() == [[-3.0]] * 4
    with pytest.raises(RuntimeError, match="more than one element"):
        e.add_(1)
    with pytest.raises(RuntimeError, match="more than one element"):
        e.copy_(tl.ones(2, 3, device=device))
    assert base.tolist() == [0.0] * 3


def test_repr_matches_pytorch_format():
    assert repr(tl.tensor([1.0, 2.0, 3.0])) == "tensor([1., 2., 3.])"
    assert repr(tl.tensor([1.5, 2.25])) == "tensor([1.5000, 2.2500])"
    assert repr(tl.tensor([[1, 2], [3, 4]])) == "tensor([[1, 2],\n        [3, 4]])"
    assert repr(tl.tensor(3.0)) == "tensor(3.)"
    assert repr(tl.tensor([True, False])) == "tensor([ True, False])"
    assert repr(tl.tensor([1.0], dtype=tl.float64)) == "tensor([1.], dtype=tensorlab.float64)"
    assert repr(tl.tensor([1], dtype=tl.int32)) == "tensor([1], dtype=tensorlab.int32)"
    assert repr(tl.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert repr(tl.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(tl.tensor([float("nan"), float("inf"), 1.0])) == "tensor([nan, inf, 1.])"
    assert repr(tl.ones(2, requires_grad=True)) == "tensor([1., 1.], requires_grad=True)"
    big = repr(tl.arange(2000))
    assert "..." in big and big.startswith("tensor([   0,    1,    2,  ..., 1997, 1998, 1999])")
    if tl.cuda.is_available():
        assert repr(tl.tensor([1.0], device="cuda")) == "tensor([1.], device='cuda:0')"


def test_pickle_by_value(device):
    import pickle

    t = tl.tensor([[1.0, 2.0], [3.0, 4.0]], device=device).t()
    r = pickle.loads(pickle.dumps(t))
    assert r.device == t.device and r.dtype is t.dtype
    np.testing.assert_array_equal(to_numpy(r), to_numpy(t))


def test_dlpack_numpy_roundtrip():
    t = tl.arange(6, dtype=tl.float32).view(2, 3)[:, 1:]
    a = np.from_dlpack(t)
    np.testing.assert_array_equal(a, [[1, 2], [4, 5]])
    a[0, 0] = 42
    assert t[0, 0].item() == 42  # shared memory
    back = tl.from_dlpack(np.arange(4, dtype=np.int16))
    assert back.dtype is tl.int16 and back.tolist() == [0, 1, 2, 3]
    assert t.__dlpack_device__() == (1, 0)
    with pytest.raises(BufferError, match="require gradient"):  # (PyTorch 2.15: BufferError)
        tl.ones(2, requires_grad=True).__dlpack__()
    # PyTorch's legacy module (its from_dlpack docs use it): a capsule for one from_dlpack
    from tensorlab.utils.dlpack import from_dlpack, to_dlpack

    u = from_dlpack(to_dlpack(t))
    u[1, 1] = -1.0
    assert t[1, 1].item() == -1.0 and tl.to_dlpack is to_dlpack


def test_dlpack_capsule_roundtrip(device):
    t = tl.arange(10, dtype=tl.int32, device=device)[2:8:2]
    r = tl.from_dlpack(t.__dlpack__())
    assert r.device == t.device and r.tolist() == [2, 4, 6]
    assert r.data_ptr() == t.data_ptr()


def test_cuda_array_interface():
    with pytest.raises(AttributeError):
        _ = tl.ones(2).__cuda_array_interface__
    assert not hasattr(tl.ones(2), "__cuda_array_interface__")
    if not tl.cuda.is_available():
        pytest.skip("no cuda device")
    t = tl.zeros(3, 4, dtype=tl.float16, device="cuda").t()
    cai = t.__cuda_array_interface__
    assert cai["shape"] == (4, 3) and cai["typestr"] == "<f2" and cai["version"] == 3
    assert cai["strides"] == (2, 8) and cai["data"][0] == t.data_ptr()


def test_requires_grad_flags():
    t = tl.ones(2)
    assert not t.requires_grad and t.is_leaf and t.grad is None
    t.requires_grad_()
    assert t.requires_grad
    with pytest.raises(RuntimeError, match="floating point"):
        tl.ones(2, dtype=tl.int64).requires_grad_()
    with pytest.raises(RuntimeError, match="Can't call numpy"):
        t.numpy()
    assert t.detach().numpy().tolist() == [1.0, 1.0]


def test_mixed_devices_raise():
    if not tl.cuda.is_available():
        pytest.skip("no cuda device")
    a, b = tl.ones(2), tl.ones(2, device="cuda")
    with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device.*cpu and cuda:0"):
        tl.as_strided_scatter(a, b, (2,), (1,))


def test_empty_tensors_are_contiguous_as_in_pytorch():
    for shape in [(3, 0), (2, 0, 3), (0,), (0, 5)]:
        assert tl.empty(*shape).is_contiguous(), shape
    assert tl.empty(3, 0).t().is_contiguous()  # any strides: no element is out of place
    x = tl.empty(4, 6)
    assert not x.t().is_contiguous() and x[:, ::2].is_contiguous() is False and x[1:].is_contiguous()


def test_tensor_infers_numpy_values_dtypes_inside_sequences():
    """Inside a list, numpy scalars and arrays keep their dtypes (promoted with the rest), a
    one-element tensor of any shape is a number, a range is a sequence, and a floating dtype= takes
    Python ints beyond 64 bits (PyTorch's inference)."""
    assert tl.tensor([np.float64(1.5)]).dtype is tl.float64
    assert tl.tensor([np.int32(3)]).dtype is tl.int32 and tl.tensor([np.int32(3), 2]).dtype is tl.int64
    assert tl.tensor([np.float16(1.5)]).dtype is tl.float16 and tl.tensor([np.array([1.5])]).dtype is tl.float64
    assert tl.tensor([np.float64(1.5), 2.5]).dtype is tl.float64
    assert tl.tensor([np.uint8(3), 2.5]).dtype is tl.float32
    t = tl.tensor([tl.tensor([1.0]), tl.tensor([[2.0]])])
    assert t.tolist() == [1.0, 2.0] and t.dtype is tl.float32
    with pytest.raises(ValueError, match="only one element tensors"):
        tl.tensor([tl.tensor([1.0, 2.0])])
    assert tl.tensor(range(3)).tolist() == [0, 1, 2]
    assert tl.tensor([2**63], dtype=tl.float64).tolist() == [2.0**63]
    assert tl.tensor(2**64, dtype=tl.float32).item() == 2.0**64
    assert tl.tensor([1.5, 2**70]).tolist() == [1.5, float(2**70)]  # (a float tensor takes it)
    for big in ([2**63], [-(2**63) - 1], 2**64):
        with pytest.raises(ValueError, match="Overflow when unpacking long long"):  # (PyTorch's words)
            tl.tensor(big)


def test_size_arithmetic_stays_a_size():
    s = tl.ones(2, 3).shape
    for r in (s + (4,), (4,) + s, s * 2, 2 * s, s + s, s[1:]):
        assert isinstance(r, tl.Size)
    assert s + (4,) == (2, 3, 4) and (4,) + s == (4, 2, 3) and s * 2 == (2, 3, 2, 3)
    with pytest.raises(TypeError):
        s + [4]


def test_to_takes_copy_as_the_second_positional_bool():
    t = tl.zeros(3)
    for args in ((tl.float32, False, True), ("cpu", tl.float32, False, True), (tl.zeros(2), False, True)):
        c = t.to(*args)
        c[0] = 9
        assert c is not t and t[0].item() == 0, args
    assert t.to(tl.float32, False, False) is t and t.to(tl.float32, True) is t
    with pytest.raises(TypeError, match="too many positional bools"):
        t.to(tl.float32, False, True, True)


@pytest.mark.parametrize("factory", ["tensor", "as_tensor"])
def test_unsigned_numpy_arrays_convert_to_a_given_dtype(factory):
    make = getattr(tl, factory)
    assert make(np.arange(3, dtype=np.uint16), dtype=tl.int32).tolist() == [0, 1, 2]
    assert make(np.array([70000], dtype=np.uint32), dtype=tl.float32).tolist() == [70000.0]
    assert make(np.uint16(7), dtype=tl.int64).item() == 7
    with pytest.raises(TypeError, match="uint16"):
        make(np.arange(3, dtype=np.uint16))  # no dtype of its own: PyTorch's uint16 is not supported


def test_what_a_tensor_says_of_itself_and_small_factories():
    x = tl.ones(2)
    assert x.layout is tl.strided and repr(tl.strided) == "tensorlab.strided"
    assert not (x.is_sparse or x.is_quantized or x.is_meta or x.is_nested or x.is_inference())
    assert x.is_same_size(tl.zeros(2)) and not x.is_same_size(tl.zeros(3))
    assert tl.scalar_tensor(3).dtype == tl.float32 and tl.scalar_tensor(3).shape == ()
    assert tl.scalar_tensor(3, dtype=tl.int64).item() == 3
    assert tl.isreal(tl.tensor([1.0, float("nan")])).tolist() == [True, True]
    e = x.new_empty_strided((2, 3), (1, 2))
    assert e.stride() == (1, 2) and e.dtype == tl.float32
    assert tl.threshold(tl.tensor([0.1, 2.0]), 0.5, -1.0).tolist() == [-1.0, 2.0]
    assert tl.hardshrink(tl.tensor([0.1, 2.0])).tolist() == [0.0, 2.0]
    assert tl.prelu(tl.tensor([-1.0]), tl.tensor([0.5])).tolist() == [-0.5]
    assert tl.celu(tl.tensor([-1.0]), 2.0).item() == pytest.approx(2.0 * np.expm1(-0.5), rel=1e-6)


def test_empty_tensors_from_lists_and_ranges_have_contiguous_strides():
    """As PyTorch's (numpy gives an empty array 0 strides); an empty numpy array keeps its own."""
    assert tl.tensor([]).stride() == (1,) and tl.tensor([[], []]).stride() == (1, 1)
    assert tl.arange(0.0).stride() == (1,) and tl.linspace(0, 1, 0).stride() == (1,)
    assert tl.tensor(np.zeros((2, 0, 4))).stride() == (0, 0, 0)


def test_size_built_by_a_user_holds_ints():
    """PyTorch's torch.Size(): integer items only; a 0-d integer tensor or a bool becomes an int."""
    s = tl.Size([tl.tensor(2), True, np.int64(4)])
    assert s == (2, 1, 4) and [type(v) for v in s[:2]] == [int, int]
    for bad in ([1.5], ["a"], [tl.tensor(2.0)], [tl.tensor([2])]):
        with pytest.raises(TypeError, match="takes an iterable of 'int'"):
            tl.Size(bad)
    assert tl.ones(2, 3).shape[1:] == tl.Size([3]) and isinstance(tl.ones(2, 3).shape[1:], tl.Size)


def test_asarray_shares_memory_and_sets_requires_grad_as_pytorch():
    import warnings

    base = np.arange(3.0)
    shared = tl.asarray(base)
    base[0] = 9.0
    assert shared.tolist() == [9.0, 1.0, 2.0] and tl.asarray(base, copy=True).tolist() == [9.0, 1.0, 2.0]
    x = tl.ones(2)
    assert tl.asarray(x) is x and tl.asarray(x, dtype=tl.float64).dtype is tl.float64
    a = tl.tensor([1.0, 2.0], requires_grad=True)
    b = a + 2
    with pytest.warns(UserWarning, match="unspecified requires_grad now defaults to obj.requires_grad"):
        assert tl.asarray(b) is b  # unspecified: the tensor's own (PyTorch 2.15, with its warning)
    c = tl.asarray(b, requires_grad=False)  # a non-leaf: detached, same memory
    assert not c.requires_grad and c.grad_fn is None and c.data_ptr() == b.data_ptr() and b.requires_grad
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tl.asarray(a, requires_grad=False) is a and not a.requires_grad  # a leaf: turned off, as PyTorch
        assert tl.asarray(x, requires_grad=True) is x and x.requires_grad
        assert tl.asarray([1.0, 2.0], requires_grad=True).requires_grad


def test_more_than_64_dims_on_cpu_is_a_clear_error():
    # numpy's own ValueError came out of the twins ("maximum supported dimension for an ndarray")
    for call in (lambda: tl.zeros((1,) * 65), lambda: tl.zeros(1).view((1,) * 65).sum()):
        with pytest.raises(RuntimeError, match="only tensors with up to 64 dims are supported by the cpu device"):
            call()
    assert tl.zeros((1,) * 64).sum().item() == 0.0


def test_methods_torch_has_hardshrink_prelu_unsafe_splits_and_device_flags():
    x = tl.tensor([1.0, 0.5, 0.3, -0.6])
    assert x.hardshrink(0.4).tolist() == pytest.approx([1.0, 0.5, 0.0, -0.6])
    assert tl.tensor([1.0, -2.0]).prelu(tl.tensor([0.25])).tolist() == [1.0, -0.5]
    y = tl.arange(10.0)
    assert [t.shape[0] for t in y.unsafe_split(4)] == [4, 4, 2]
    assert [t.shape[0] for t in tl.unsafe_chunk(y, 3)] == [4, 4, 2]
    assert [t.shape[0] for t in y.unsafe_split_with_sizes([3, 7])] == [3, 7]
    assert not (y.is_mps or y.is_xpu or y.is_xla or y.is_ipu or y.is_vulkan or y.is_mtia or y.is_maia)
    assert y.const_data_ptr() == y.data_ptr()


def test_numpy_bool_fill_values():
    # np.bool_ is no numbers.Number: fills refused it (TypeError); PyTorch writes it as 0/1
    t = tl.tensor([1, 2])
    assert t.new_full((1,), np.bool_(True)).tolist() == [1]
    assert t.clone().fill_(np.bool_(True)).tolist() == [1, 1]
    assert t.masked_fill(t > 1, np.bool_(True)).tolist() == [1, 1]
    assert t.index_fill(0, tl.tensor([0]), np.bool_(True)).tolist() == [1, 2]
    assert t.scatter(0, tl.tensor([1]), np.bool_(True)).tolist() == [1, 1]
    assert tl.full_like(tl.ones(2), np.bool_(False)).tolist() == [0.0, 0.0]


def test_complex_fill_values_convert_only_without_an_imaginary_part(device):
    # values from torch 2.15: the real part when the imaginary part is 0, else refused (the cpu
    # twins dropped it silently: fill_(3+1j) wrote 3; the kernels raised float()'s TypeError)
    x = tl.tensor([1.0, 2.0], device=device)
    assert x.fill_(2 + 0j).tolist() == [2.0, 2.0]
    assert tl.full((2,), 4 + 0j, dtype=tl.int32, device=device).tolist() == [4, 4]
    assert tl.zeros(3, device=device).scatter_(0, tl.tensor([1], device=device), 4 + 0j).tolist() == [0, 4, 0]
    assert tl.zeros(2, 2, device=device).fill_diagonal_(3 + 0j).tolist() == [[3, 0], [0, 3]]
    assert tl.tensor([False], device=device).fill_(1j).tolist() == [True]
    calls = [lambda: x.fill_(3 + 1j), lambda: x.fill_(np.complex128(1j)), lambda: x.new_full((2,), 1j),
             lambda: tl.full_like(tl.tensor([1, 2], device=device), 1j),
             lambda: tl.full((2,), 1j, dtype=tl.float32, device=device),
             lambda: tl.zeros(3, device=device).scatter_(0, tl.tensor([1], device=device), 1j),
             lambda: tl.nn.init.constant_(x, 1j), lambda: tl.nn.functional.pad(x, (1, 1), value=3 + 1j)]
    for call in calls:
        with pytest.raises(RuntimeError, match="value cannot be converted to type .* without overflow"):
            call()
    assert x.tolist() == [2.0, 2.0]


def test_glu_of_integers_and_positive_of_bool_raise_not_implemented():
    with pytest.raises(NotImplementedError, match="\"glu\" not implemented for 'Long'"):
        tl.nn.functional.glu(tl.tensor([0, 1, 2, 3]))
    with pytest.raises(NotImplementedError, match="The `\\+` operator, on a bool tensor is not supported"):
        +tl.tensor([True])


def test_sequences_buffers_and_number_like_objects():
    # torch 2.15: tensor/as_tensor walk any sequence (array.array, bytearray, memoryview, a class with
    # __len__/__getitem__) element by element; asarray reads a buffer with its own type and shares it;
    # with a dtype given, an object with __float__/__index__ converts (all were "Could not infer dtype")
    import array

    class Pair:
        def __len__(self):
            return 2

        def __getitem__(self, i):
            if i >= 2:
                raise IndexError(i)
            return [1.5, 2.5][i]

    class Num:
        def __float__(self):
            return 2.5

        def __index__(self):
            return 2

    t = tl.tensor(array.array("d", [1.0, 2.0]))
    assert t.dtype is tl.float32 and t.tolist() == [1.0, 2.0]
    assert tl.as_tensor(bytearray(b"\x01\x02")).dtype is tl.int64
    assert tl.tensor(Pair()).tolist() == [1.5, 2.5] and tl.tensor(memoryview(np.arange(3.0))).tolist() == [0, 1, 2]
    ints = array.array("i", [1, 2])
    shared = tl.asarray(ints)
    assert shared.dtype is tl.int32 and shared.tolist() == [1, 2]
    shared[0] = 7
    assert ints[0] == 7
    assert tl.asarray(bytearray(b"\x01\x02")).dtype is tl.uint8
    assert tl.tensor([Num()], dtype=tl.float64).tolist() == [2.5]
    assert tl.tensor([Num()], dtype=tl.int64).tolist() == [2]
    with pytest.raises(RuntimeError, match="Could not infer dtype of Num"):
        tl.tensor([Num()])
    with pytest.raises(TypeError, match="invalid data type 'bytes'"):
        tl.tensor(b"\x01\x02")


def test_asarray_copy_false_refuses_to_copy():
    # PyTorch: copy=False promises shared memory, so a conversion or a list is a ValueError (was copied)
    a = np.arange(3.0)
    t = tl.asarray(a, copy=False)
    t[0] = 5.0
    assert a[0] == 5.0
    x = tl.arange(3.0, dtype=tl.float64)
    assert tl.asarray(x, copy=False) is x
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Double' into dtype 'Float'"):
        tl.asarray(a, dtype=tl.float32, copy=False)
    with pytest.raises(ValueError, match="can't alias tensor with dtype 'Double' into dtype 'Float'"):
        tl.asarray(x, dtype=tl.float32, copy=False)
    for data in ([1.0, 2.0], 3.0):
        with pytest.raises(ValueError, match="can't alias arbitrary sequence into a tensor"):
            tl.asarray(data, copy=False)
    assert tl.asarray(np.zeros((0, 3)), copy=False).shape == (0, 3)


def test_asarray_copy_of_a_tensor_keeps_its_history():
    # torch 2.15: asarray(t, copy=True) is t.clone() (CloneBackward), not a detached copy
    o = tl.ones(3, requires_grad=True)
    a = tl.asarray(o * 2, copy=True, requires_grad=False)
    assert not a.requires_grad
    with pytest.warns(UserWarning, match="defaults to obj.requires_grad"):
        b = tl.asarray(o, copy=True)
    assert b.requires_grad and not b.is_leaf and b.data_ptr() != o.data_ptr()
    b.sum().backward()
    assert o.grad.tolist() == [1.0, 1.0, 1.0]
    c = tl.asarray(o, copy=True, dtype=tl.float64, requires_grad=True)
    assert c.dtype is tl.float64 and not c.is_leaf
