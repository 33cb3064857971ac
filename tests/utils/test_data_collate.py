"""default_collate / default_convert / collate: values, dtypes, structures, errors."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.utils.data import collate, default_collate, default_convert
from tensorlab.utils.data.collate import collate_tensor_fn, default_collate_fn_map

Point = collections.namedtuple("Point", ["x", "y"])


def _np(t):
    return t.numpy()


def test_numbers():
    f = default_collate([1.5, 2.0, -3.25])
    assert f.dtype is tl.float64 and f.tolist() == [1.5, 2.0, -3.25]
    i = default_collate([1, 2, 3])
    assert i.dtype is tl.int64 and i.tolist() == [1, 2, 3]
    b = default_collate([True, False])
    assert b.dtype is tl.bool and b.tolist() == [True, False]


def test_numpy_scalars_keep_dtype():
    t = default_collate([np.float32(1.5), np.float32(2.5)])
    assert t.dtype is tl.float32 and t.tolist() == [1.5, 2.5]
    t = default_collate([np.int16(3), np.int16(-4)])
    assert t.dtype is tl.int16 and t.tolist() == [3, -4]
    t = default_collate([np.array(7, np.uint8), np.array(9, np.uint8)])  # 0-d arrays
    assert t.dtype is tl.uint8 and t.shape == (2,) and t.tolist() == [7, 9]
    # a numpy scalar first, something else after it: as_tensor's dtype and PyTorch's errors
    t = default_collate([np.float32(1.0), np.array(2.0)])
    assert t.dtype is tl.float64 and t.tolist() == [1.0, 2.0]
    with pytest.raises(RuntimeError, match="Could not infer dtype of NoneType"):
        default_collate([np.int16(7), None])
    for bad in ([np.int16(7), [1]], [np.int16(7), []], [np.int16(7), "a"]):
        with pytest.raises(TypeError):
            default_collate(bad)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.uint8, np.bool_])
def test_numpy_arrays_stacked(dtype):
    rng = np.random.default_rng(0)
    arrays = [(rng.random((3, 4)) * 10).astype(dtype) for _ in range(5)]
    t = default_collate(arrays)
    assert isinstance(t, tl.Tensor) and t.shape == (5, 3, 4)
    assert t.dtype is tl._dtype.from_numpy_dtype(np.dtype(dtype))
    np.testing.assert_array_equal(_np(t), np.stack(arrays))


def test_noncontiguous_numpy_arrays():
    base = np.arange(48, dtype=np.float32).reshape(4, 12)
    arrays = [base[:, ::3], base[:, 1::3].T]  # strided views; shapes (4, 4) both
    t = default_collate(arrays)
    np.testing.assert_array_equal(_np(t), np.stack(arrays))


def test_tensors_stacked_and_promoted():
    a = tl.tensor([[1.0, 2.0]], dtype=tl.float32)
    b = tl.tensor([[3.0, 4.0]], dtype=tl.float64)
    t = default_collate([a, b])
    assert t.dtype is tl.float64 and t.shape == (2, 1, 2)
    np.testing.assert_array_equal(_np(t), [[[1, 2]], [[3, 4]]])
    # strided tensor samples
    base = tl.arange(24, dtype=tl.float32).reshape(4, 6)
    t = default_collate([base[:, ::2], base[:, 1::2]])
    np.testing.assert_array_equal(_np(t), np.stack([np.arange(24).reshape(4, 6)[:, ::2],
                                                    np.arange(24).reshape(4, 6)[:, 1::2]]))


def test_collated_tensor_does_not_alias_samples():
    a = np.zeros(3, np.float32)
    t = default_collate([a, a])
    a[0] = 5
    assert _np(t)[0, 0] == 0


def test_cuda_tensors_stacked_on_device():
    if not tl.cuda.is_available():
        pytest.skip("no cuda device (real or interpreted)")
    a = tl.tensor([1.0, 2.0], device="cuda")
    b = tl.tensor([3.0, 4.0], device="cuda")
    t = default_collate([a, b])
    assert t.device.type == "cuda" and t.shape == (2, 2)
    np.testing.assert_array_equal(t.cpu().numpy(), [[1, 2], [3, 4]])
    with pytest.raises(RuntimeError, match="same device"):
        default_collate([a, tl.tensor([1.0, 2.0])])


def test_strings_and_bytes_pass_through():
    assert default_collate(["a", "bc"]) == ["a", "bc"]
    assert default_collate([b"x", b"y"]) == [b"x", b"y"]


def test_nested_structures():
    batch = [
        {"img": np.full((2, 2), i, np.float32), "label": i, "meta": {"name": f"n{i}", "p": Point(i, 2 * i)},
         "pair": (i, [float(i), -float(i)])}
        for i in range(3)
    ]
    out = default_collate(batch)
    assert set(out) == {"img", "label", "meta", "pair"}
    assert out["img"].shape == (3, 2, 2)
    assert out["label"].tolist() == [0, 1, 2]
    assert out["meta"]["name"] == ["n0", "n1", "n2"]
    p = out["meta"]["p"]
    assert isinstance(p, Point) and p.x.tolist() == [0, 1, 2] and p.y.tolist() == [0, 2, 4]
    pair = out["pair"]
    assert isinstance(pair, list) and pair[0].tolist() == [0, 1, 2]  # a tuple comes back as a list (PyTorch)
    assert [t.tolist() for t in pair[1]] == [[0.0, 1.0, 2.0], [-0.0, -1.0, -2.0]]


def test_ordered_dict_and_list_types_kept():
    od = [collections.OrderedDict([("b", 1), ("a", 2)]) for _ in range(2)]
    out = default_collate(od)
    assert type(out) is collections.OrderedDict and list(out) == ["b", "a"]
    out = default_collate([[1, 2], [3, 4]])
    assert isinstance(out, list) and [t.tolist() for t in out] == [[1, 3], [2, 4]]


def test_ragged_shapes_error_names_sizes():
    with pytest.raises(RuntimeError, match=r"stack expects each tensor to be equal size, but got \[3\] at entry 0 "
                                           r"and \[4\] at entry 2"):
        default_collate([np.zeros(3), np.zeros(3), np.zeros(4)])
    with pytest.raises(RuntimeError, match=r"but got \[2, 2\] at entry 0 and \[2, 3\] at entry 1"):
        default_collate([tl.zeros(2, 2), tl.zeros(2, 3)])


def test_ragged_lists_error_names_lengths():
    with pytest.raises(RuntimeError, match=r"each element in list of batch should be of equal size.*\[2, 3\]"):
        default_collate([[1, 2], [1, 2, 3]])


@pytest.mark.parametrize("bad", [[object(), object()], [np.array(["a", "b"]), np.array(["c", "d"])],
                                 [np.array([{}], dtype=object)] * 2, [None, None]])
def test_unsupported_types(bad):
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers"):
        default_collate(bad)


def test_python_floats_among_arrays_get_the_default_dtype():
    # PyTorch converts each element with as_tensor: a Python float is float32, not numpy's float64
    out = default_collate([np.array([1, 2]), [1.5, 2.5]])
    assert out.dtype is tl.float32 and out.tolist() == [[1.0, 2.0], [1.5, 2.5]]
    assert default_collate([np.array(1), 1.5]).dtype is tl.float32
    assert default_collate([np.array([1.0], np.float32), [2.5]]).dtype is tl.float32
    assert default_collate([np.array(1), np.float64(1.5)]).dtype is tl.float64  # (a numpy scalar keeps its dtype)


@pytest.mark.parametrize("other, name", [(1, "int"), (None, "NoneType"), (np.array([1]), "numpy.ndarray")])
def test_tensor_first_then_not_a_tensor(other, name):
    with pytest.raises(TypeError, match=f"expected Tensor as element 1 in argument 0, but got {name}"):
        default_collate([tl.tensor([1]), other])


def test_empty_samples_stack_contiguous():
    # strides as PyTorch's and tensorlab's cuda path give: (3, 3, 1), not NumPy's (0, 0, 0)
    assert default_collate([tl.zeros(0, 3)] * 2).stride() == (3, 3, 1)
    assert default_collate([np.zeros((0, 3))] * 2).stride() == (3, 3, 1)


def test_empty_batch():
    # PyTorch: IndexError from batch[0]
    with pytest.raises(IndexError):
        default_collate([])


def test_custom_collate_fn_map():
    class Box:
        def __init__(self, v):
            self.v = v

    def collate_box(batch, *, collate_fn_map=None):
        return sum(b.v for b in batch)

    table = {**default_collate_fn_map, Box: collate_box}
    out = collate([{"b": Box(1), "x": 1.0}, {"b": Box(2), "x": 2.0}], collate_fn_map=table)
    assert out["b"] == 3 and out["x"].tolist() == [1.0, 2.0]
    assert collate_tensor_fn([tl.ones(2), tl.zeros(2)]).tolist() == [[1, 1], [0, 0]]


def test_default_convert():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = default_convert(arr)
    assert isinstance(t, tl.Tensor) and t.dtype is tl.float32
    arr[0, 0] = 9  # shares memory, like torch.as_tensor
    assert _np(t)[0, 0] == 9
    s = default_convert(np.float64(2.5))
    assert isinstance(s, tl.Tensor) and s.dtype is tl.float64 and s.item() == 2.5
    assert default_convert(3) == 3 and default_convert("x") == "x"
    strs = np.array(["a", "b"])
    assert default_convert(strs) is strs
    out = default_convert({"a": arr, "b": (arr, 1), "p": Point(arr, "s"), "l": [np.int32(4)]})
    assert isinstance(out["a"], tl.Tensor)
    assert isinstance(out["b"], list) and isinstance(out["b"][0], tl.Tensor) and out["b"][1] == 1
    assert isinstance(out["p"], Point) and isinstance(out["p"].x, tl.Tensor) and out["p"].y == "s"
    assert out["l"][0].dtype is tl.int32
    # negative strides / read-only arrays are copied (tensors cannot alias them)
    rev = np.arange(4)[::-1]
    np.testing.assert_array_equal(_np(default_convert(rev)), [3, 2, 1, 0])
    ro = np.arange(3)
    ro.setflags(write=False)
    np.testing.assert_array_equal(_np(default_convert(ro)), [0, 1, 2])


def test_tensors_requiring_grad_are_stacked_with_autograd():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    out = default_collate([x, x * 3])
    assert out.requires_grad and out.shape == (2, 2)
    out.sum().backward()
    assert x.grad.tolist() == [4.0, 4.0]
    with tl.no_grad():  # without grad mode the fast host path is used
        assert not default_collate([x, x]).requires_grad
