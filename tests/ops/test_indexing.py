"""Indexing family: the advanced-indexing semantics table (against NumPy with PyTorch's int rule),
index assignment, errors, determinism of the accumulating scatters, and what validation costs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorlab as tl
from tensorlab_kernels import runtime as rt
from tensorlab_kernels.indexing.scatter import RUN_CHUNK
from tests.helpers import to_numpy

CUDA = pytest.mark.skipif(not tl.cuda.is_available(), reason="no cuda device (real or interpreted)")

X = np.arange(4 * 5 * 6, dtype=np.float32).reshape(4, 5, 6)
RNG = np.random.default_rng(7)
MASK45 = np.asarray(RNG.random((4, 5)) < 0.5)
MASK56 = np.asarray(RNG.random((5, 6)) < 0.4)
MASK4 = np.array([True, False, True, True])


# ----------------------------------------------------------------------------------------------
# a reference with PyTorch's rule: ints (and None, bools) are applied first as basic indexing
# ----------------------------------------------------------------------------------------------


def _ref_index(a: np.ndarray, index) -> tuple:
    """(basic, advanced): apply ``a[basic][advanced]`` in NumPy to get PyTorch's result."""
    if not isinstance(index, tuple):
        index = (index,)
    index = tuple(np.asarray(i) if isinstance(i, list | tuple) else i for i in index)
    index = tuple(i.astype(np.int64) if isinstance(i, np.ndarray) and i.size == 0 else i for i in index)
    if any(i is Ellipsis for i in index):
        e = index.index(Ellipsis)
        used = sum(i.ndim if isinstance(i, np.ndarray) and i.dtype == bool else
                   0 if (i is None or isinstance(i, bool)) else 1 for i in index if i is not Ellipsis)
        index = index[:e] + (slice(None),) * (a.ndim - used) + index[e + 1:]
    basic, adv = [], []
    for it in index:
        if it is None:
            basic.append(None)
            adv.append(slice(None))
        elif isinstance(it, bool):
            basic.append(None)
            adv.append(np.array([0] if it else [], dtype=np.int64))
        elif isinstance(it, slice):
            basic.append(it)
            adv.append(slice(None))
        elif isinstance(it, np.ndarray) and it.dtype == bool:
            basic.extend([slice(None)] * it.ndim)
            adv.extend(np.nonzero(it))
        elif isinstance(it, np.ndarray):
            basic.append(slice(None))
            adv.append(np.asarray(it, dtype=np.int64))
        else:
            basic.append(int(it))
    return tuple(basic), tuple(adv)


def torch_like(a: np.ndarray, index) -> np.ndarray:
    basic, adv = _ref_index(a, index)
    y = a[basic]
    return np.asarray(y[adv]).copy() if any(isinstance(i, np.ndarray) for i in adv) else y.copy()


def _to_tl(index, device):
    def conv(i):
        if isinstance(i, np.ndarray):
            return tl.tensor(i, device=device)
        return i

    return tuple(conv(i) for i in index) if isinstance(index, tuple) else conv(index)


GETITEM_CASES = [
    ("list", [0, 2]),
    ("list-neg-dup", [-1, 0, -1]),
    ("tensor-2d", np.array([[0, 1], [3, 3]])),
    ("slice-then-index", (slice(None), [1, 3])),
    ("ellipsis-index", (Ellipsis, [0, -1])),
    ("none-then-index", (None, [1])),
    ("index-then-none", ([1], None)),
    ("adjacent", (slice(None), [0, 1], [2, 3])),
    ("pair", ([0, 1], [2, 3])),
    ("separated", ([0, 1], slice(None), [2, 3])),
    ("separated-broadcast", (np.array([[0], [3]]), slice(1, 4), np.array([2, 5, 0]))),
    ("int-and-index", (1, [0, 2])),
    ("int-slice-index", (1, slice(None), [0, 2])),  # PyTorch: (5, 2); NumPy would give (2, 5)
    ("index-int-index", ([0, 2], 3, [1, 5])),
    ("strided-slice", (slice(None, None, 2), [4, 0])),
    ("mask-full", X > 50),
    ("mask-leading", MASK45),
    ("mask-trailing", (slice(None), MASK56)),
    ("mask-and-int", (MASK4, 2)),
    ("mask-and-index", (MASK4, slice(None), np.array([1]))),
    ("bool-true", True),
    ("bool-false", False),
    ("bool-true-then-index", (True, [1, 2])),
    ("list-of-bools", [True, False, True, False]),
    ("empty-list", []),
    ("numpy-array", np.array([3, 1])),
    ("int32", np.array([2, 0], dtype=np.int32)),
    ("nested-tuple", ((0, 3),)),
    ("3-indices", ([0, 3], [1, 4], [5, 0])),
    ("3-indices-broadcast", (np.array([[0], [3]]), np.array([[1, 4]]), np.array([5]))),
]


@pytest.mark.parametrize("name,index", GETITEM_CASES, ids=[c[0] for c in GETITEM_CASES])
def test_getitem_matches_numpy_with_pytorch_rule(device, name, index):
    x = tl.tensor(X, device=device)
    got = x[_to_tl(index, device)]
    expected = torch_like(X, index)
    assert got.shape == expected.shape, name
    np.testing.assert_array_equal(to_numpy(got), expected)


def test_getitem_int_rule_differs_from_numpy():
    # the documented PyTorch/NumPy difference: ints are selects, so the index dims stay in place
    x = tl.tensor(X)
    assert tuple(x[1, :, [0, 2]].shape) == (5, 2)
    assert X[1, :, [0, 2]].shape == (2, 5)


def test_list_of_lists_is_a_tuple():
    # PyTorch's legacy rule: a short list holding sequences is read as a tuple of indices
    x = tl.tensor(X)
    np.testing.assert_array_equal(to_numpy(x[[[0, 1], [2, 3]]]), X[[0, 1], [2, 3]])


def test_list_of_lists_inside_a_tuple_is_one_index(device):
    # the rule is for the whole index only: in x[(list,)] the list is one index tensor (torch 2.13:
    # x[([[0, 1], [1, 0]],)] has shape (2, 2, 5, 6); tensorlab read it as x[[0, 1], [1, 0]], (2, 6))
    x = tl.tensor(X, device=device)
    ll = [[0, 1], [1, 0]]
    np.testing.assert_array_equal(to_numpy(x[(ll,)]), X[np.array(ll)])
    np.testing.assert_array_equal(to_numpy(x[[ll]]), X[np.array(ll)])  # a list holding one list: a tuple
    np.testing.assert_array_equal(to_numpy(x[(ll, 2)]), X[np.array(ll), 2])
    i0 = tl.tensor(0, device=device)
    np.testing.assert_array_equal(to_numpy(x[([i0, 1],)]), X[[0, 1]])  # one index tensor [0, 1]
    np.testing.assert_array_equal(to_numpy(x[[i0, 1]]), X[0, 1])  # the whole index: a tuple
    np.testing.assert_array_equal(to_numpy(x[[0, slice(1, 3)]]), X[0, 1:3])
    y = tl.zeros(4, 5, device=device)
    y[(ll,)] = 1.0
    assert to_numpy(y).sum() == 2 * 5 and to_numpy(y)[:2].all()
    y = tl.zeros(4, 5, device=device)
    y[ll] = 1.0  # the whole index: y[[0, 1], [1, 0]]
    assert to_numpy(y).sum() == 2 and y[0, 1].item() == 1.0 and y[1, 0].item() == 1.0


def test_getitem_strided_source_and_index(device):
    x = tl.tensor(X, device=device).transpose(0, 2)  # (6, 5, 4), non-contiguous
    idx = tl.tensor([5, 0, 9, 2, 7, 1], device=device)[::2]  # a strided index: [5, 9, 7]
    with pytest.raises(IndexError, match="index 9 is out of bounds"):
        x[idx]
    idx = tl.tensor([5, 0, -1, 2, 3, 1], device=device)[::2]  # [5, -1, 3]
    np.testing.assert_array_equal(to_numpy(x[idx, 1:, [0]]), X.transpose(2, 1, 0)[[5, -1, 3], 1:, [0]])


def test_getitem_0d_and_empty(device):
    z = tl.tensor(3.5, device=device)
    assert z[True].tolist() == [3.5]
    assert tuple(z[False].shape) == (0,)
    assert tuple(z[None, tl.tensor(True, device=device)].shape) == (1, 1)
    e = tl.zeros(3, 0, device=device)
    assert tuple(e[[0, 2]].shape) == (2, 0)
    assert tuple(tl.tensor(X, device=device)[tl.tensor([], dtype=tl.int64, device=device)].shape) == (0, 5, 6)


def test_getitem_result_is_a_copy(device):
    x = tl.tensor(X, device=device)
    y = x[[0, 1]]
    y.fill_(0)
    assert x[0, 0, 1].item() == 1.0


@CUDA
def test_getitem_cpu_index_on_cuda_tensor():
    x = tl.tensor(X, device="cuda")
    np.testing.assert_array_equal(to_numpy(x[tl.tensor([3, 0])]), X[[3, 0]])
    np.testing.assert_array_equal(to_numpy(x[tl.tensor(MASK45)]), X[MASK45])


def test_uint8_index_is_a_deprecated_mask():
    x = tl.tensor(X)
    with pytest.warns(UserWarning, match="uint8"):
        got = x[tl.tensor([1, 0, 0, 2], dtype=tl.uint8)]
    np.testing.assert_array_equal(to_numpy(got), X[[0, 3]])


def test_0d_index_tensors_as_pytorch(device):
    # values from torch 2.13: a 0-d uint8 tensor is a byte mask (x[True] / x[False]), not an int ...
    x = tl.tensor(X[:2, :3, 0], device=device)
    with pytest.warns(UserWarning, match="uint8"):
        assert x[tl.tensor(2, dtype=tl.uint8)].shape == (1, 2, 3)
    with pytest.warns(UserWarning, match="uint8"):
        assert x[tl.tensor(0, dtype=tl.uint8)].shape == (0, 2, 3)
    # ... while a 0-d tensor of any other int dtype is an int, also next to advanced indices
    y = tl.tensor(X, device=device)
    got = y[tl.tensor(1, dtype=tl.int16), [0, 2], tl.tensor(-1, dtype=tl.int8)]
    np.testing.assert_array_equal(to_numpy(got), X[1, [0, 2], -1])
    y[tl.tensor(1, dtype=tl.int8), [0, 2], tl.tensor(-1, dtype=tl.int16)] = -5.0
    assert (to_numpy(y)[1, [0, 2], -1] == -5.0).all()


def test_out_of_range_index_is_no_error_when_the_result_is_empty(device):
    # values from torch 2.13: it checks an index where it reads it, so an empty result reads none
    x = tl.zeros(2, 3, device=device)
    assert x[False, [5]].shape == (0, 3)
    assert x[False, [1], [7]].shape == (0,)
    assert tl.zeros(1, 4, 0, device=device)[True, [-4]].shape == (1, 4, 0)
    x[False, [5]] = 1.0
    x[False, [1], [7]] = tl.tensor(2.0, device=device)
    x[0:0, tl.tensor([5])] = 1.0  # (an empty slice of x: the cpu twin once read the index anyway)
    x[1:1, [7]] += 1.0
    assert to_numpy(x).sum() == 0
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        x[True, [5]]
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        x[True, [5]] = 1.0
    # ... but an index into a dim of size 0 raises when the index tensors are not empty
    z = tl.zeros(0, 3, 1, 2, device=device)
    with pytest.raises(IndexError, match="out of bounds"):
        z[tl.tensor([[0], [0]], device=device), -3 % 3, 2:0]
    with pytest.raises(IndexError, match="out of bounds"):
        z[[0]] = 1.0


def test_ellipsis_alone_keeps_the_strides(device):
    # x[...] and x[:] are new views with x's own strides (also of size-1 and expanded dims), as PyTorch
    x = tl.zeros(2, 4, 3, device=device)[:, :, :1].permute(2, 0, 1)
    assert x.stride() == (1, 12, 3)
    assert x[...].stride() == (1, 12, 3)
    assert x[:].stride() == (1, 12, 3)
    assert tl.zeros(8, device=device).as_strided((1, 2, 4), (0, 4, 1))[...].stride() == (0, 4, 1)


# ----------------------------------------------------------------------------------------------
# x[idx] = v
# ----------------------------------------------------------------------------------------------

SETITEM_CASES = [
    ("list-scalar", [0, 2], 7.0),
    ("rows-broadcast", [3, 1], np.arange(6, dtype=np.float32)),
    ("slice-index", (slice(None), [1, 3]), np.float32(-1)),
    ("separated", ([0, 1], slice(None), [2, 3]), np.arange(5, dtype=np.float32)[None, :] * np.ones((2, 1))),
    ("int-slice-index", (1, slice(None), [0, 2]), np.arange(10, dtype=np.float32).reshape(5, 2)),
    ("mask-scalar", X > 50, 0.0),
    ("mask-values", X > 100, np.arange(int((X > 100).sum()), dtype=np.float32)),
    ("mask-leading-rows", MASK45, np.arange(6, dtype=np.float32)),
    ("mask-trailing-scalar", (slice(None), MASK56), 2.0),
    ("slice-then-mask", (slice(1, 3), MASK56), 5.0),
    ("leading-ones-value", [0, 1], np.ones((1, 2, 5, 6), np.float32)),
    ("bool-true", True, 1.0),
    ("3-indices", ([0, 3], [1, 4], [5, 0]), np.array([8.0, 9.0], np.float32)),
]


@pytest.mark.parametrize("name,index,value", SETITEM_CASES, ids=[c[0] for c in SETITEM_CASES])
def test_setitem_matches_numpy(device, name, index, value):
    x = tl.tensor(X, device=device)
    v = tl.tensor(np.asarray(value, np.float32), device=device) if isinstance(value, np.ndarray) else value
    x[_to_tl(index, device)] = v
    expected = X.copy()
    basic, adv = _ref_index(expected, index)
    expected[basic][adv] = value
    np.testing.assert_array_equal(to_numpy(x), expected)


def test_setitem_duplicates_last_wins(device):
    # index_put without accumulate: the last source (row-major order of the index) wins, every run
    x = tl.zeros(5, device=device)
    x[tl.tensor([1, 3, 1, 1, 3], device=device)] = tl.tensor([1.0, 2.0, 3.0, 4.0, 5.0], device=device)
    assert x.tolist() == [0.0, 4.0, 0.0, 5.0, 0.0]
    y = tl.zeros(3, 4, device=device)
    y[[0, 0]] = tl.tensor([[1.0] * 4, [2.0] * 4], device=device)
    assert y[0].tolist() == [2.0] * 4


def test_setitem_iadd_with_duplicates_adds_once(device):
    # x[idx] += v is getitem, +=, setitem: a duplicated index gets v once (PyTorch's semantics)
    x = tl.zeros(4, device=device)
    x[tl.tensor([0, 0, 2], device=device)] += 1
    assert x.tolist() == [1.0, 0.0, 1.0, 0.0]
    acc = tl.zeros(4, device=device).index_put_((tl.tensor([0, 0, 2], device=device),),
                                                tl.ones(3, device=device), accumulate=True)
    assert acc.tolist() == [2.0, 0.0, 1.0, 0.0]


def test_setitem_casts_value_and_accepts_python_numbers(device):
    x = tl.zeros(2, 3, dtype=tl.int32, device=device)
    x[1] = tl.tensor([1.7, -2.2, 3.9], device=device)  # float values into int32 (a basic index: a copy): truncation
    x[tl.tensor([[True, False, False], [False, False, False]], device=device)] = 9
    assert x.tolist() == [[9, 0, 0], [1, -2, 3]]
    with pytest.raises(RuntimeError, match="dtypes match"):  # an index put does not convert (PyTorch)
        x[[1]] = tl.tensor([1.7, -2.2, 3.9], device=device)


def test_setitem_number_fills_an_expanded_target(device):
    # PyTorch fills a basic-indexed target with a number (fill_), so a stride-0 view takes it; a
    # tensor value is a copy_, which refuses to write one memory location twice.
    base = tl.arange(3.0, device=device).reshape(1, 3)
    e = base.expand(2, 3)
    e[:] = 9.0
    assert base.tolist() == [[9.0, 9.0, 9.0]]
    e.t()[0] = 5
    assert base.tolist() == [[5.0, 9.0, 9.0]]
    with pytest.raises(RuntimeError, match="more than one element"):
        e[:] = tl.ones(2, 3, device=device)


def test_setitem_shape_mismatch_raises_before_writing(device):
    x = tl.tensor(X, device=device)
    with pytest.raises(RuntimeError, match="shape mismatch"):
        x[[0, 1]] = tl.ones(3, device=device)
    np.testing.assert_array_equal(to_numpy(x), X)


def test_setitem_records_autograd_on_the_base(device):
    # out[:, idx] = h writes through a basic index: the write is recorded on ``out`` itself
    h = tl.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], device=device, requires_grad=True)
    out = tl.zeros(3, 4, device=device)
    out[:, tl.tensor([3, 0], device=device)] = h
    (out * tl.tensor([1.0, 2.0, 3.0, 4.0], device=device)).sum().backward()
    assert h.grad.tolist() == [[4.0, 1.0]] * 3
    x = tl.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    y = x * 1
    y[tl.tensor([True, False, True], device=device)] = 0
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]


def test_setitem_on_leaf_requiring_grad_raises(device):
    x = tl.zeros(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf"):
        x[[0]] = 1.0


def test_index_put_inplace_and_out_of_place(device):
    x = tl.zeros(2, 3, device=device)
    idx = (tl.tensor([1, 1], device=device), tl.tensor([0, 0], device=device))
    y = tl.index_put(x, idx, tl.tensor([1.0, 2.0], device=device), accumulate=True)
    assert x.tolist() == [[0.0] * 3] * 2 and y.tolist() == [[0.0] * 3, [3.0, 0.0, 0.0]]
    r = x.index_put_((tl.tensor([0, 1], device=device), tl.tensor([2], device=device)), tl.tensor([5.0], device=device))
    assert r is x and x.tolist() == [[0.0, 0.0, 5.0]] * 2
    # torch.index_put_'s first argument is named input, as torch.index_put's
    r = tl.index_put_(input=x, indices=(tl.tensor([0], device=device),), values=tl.tensor(7.0, device=device))
    assert r is x and x.tolist() == [[7.0] * 3, [0.0, 0.0, 5.0]]
    with pytest.raises(RuntimeError, match="dtypes match"):
        x.index_put_(idx, tl.ones(2, dtype=tl.float64, device=device))
    with pytest.raises(TypeError):
        x.index_put_((0,), tl.ones(1, device=device))


# ----------------------------------------------------------------------------------------------
# errors
# ----------------------------------------------------------------------------------------------


def test_out_of_range_errors_name_op_index_and_size(device):
    x = tl.zeros(5, 3, device=device)
    idx = tl.tensor([0, 7], device=device)
    with pytest.raises(IndexError, match=r"index_select\(\): index 7 is out of bounds for dimension 0 with size 5"):
        x.index_select(0, idx)
    with pytest.raises(IndexError, match="index 7 is out of bounds for dimension 0 with size 5"):
        x[idx]
    with pytest.raises(IndexError, match="index -6 is out of bounds for dimension 0 with size 5"):
        x[tl.tensor([-6], device=device)]
    g = tl.tensor([[0, 3]], device=device)
    with pytest.raises(RuntimeError, match=r"gather\(\): index 3 is out of bounds for dimension 1 with size 3"):
        x.gather(1, g)
    with pytest.raises(IndexError):  # the same error is also an IndexError
        x.scatter_add(1, g, tl.ones(1, 2, device=device))
    with pytest.raises(IndexError, match="tried to access index 15"):
        x.take(tl.tensor([15], device=device))
    with pytest.raises(IndexError, match="index_fill"):
        x.index_fill(1, tl.tensor([-4], device=device), 1.0)


def test_negative_indices_follow_pytorch_per_op(device):
    x = tl.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3), device=device)
    neg = tl.tensor([-1], device=device)
    assert x[neg].tolist() == [[3.0, 4.0, 5.0]]  # advanced indexing wraps
    assert x.take(tl.tensor([-1], device=device)).tolist() == [5.0]  # take wraps
    assert x.index_fill(1, neg, 0.0).tolist() == [[0.0, 1.0, 0.0], [3.0, 4.0, 0.0]]  # index_fill wraps
    for fn in (lambda: x.index_select(0, neg), lambda: x.gather(0, tl.tensor([[-1, 0, 0]], device=device)),
               lambda: x.index_add(0, neg, tl.ones(1, 3, device=device)),
               lambda: x.index_copy(0, neg, tl.ones(1, 3, device=device)),
               lambda: x.scatter(0, tl.tensor([[-1, 0, 0]], device=device), 1.0)):
        with pytest.raises(IndexError, match="-1 is out of bounds"):
            fn()


def test_wrong_index_dtypes():
    x = tl.zeros(4, 3)
    with pytest.raises(IndexError, match="tensors used as indices must be long, int, byte or bool"):
        x[tl.tensor([0.0, 1.0])]
    with pytest.raises(IndexError, match="tensors used as indices"):
        x[tl.tensor([0, 1], dtype=tl.int16)]
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64 for index, but got int16"):
        x.gather(0, tl.tensor([[0, 1, 2]], dtype=tl.int16))
    with pytest.raises(RuntimeError, match="int32 or int64"):
        x.index_select(0, tl.tensor([0], dtype=tl.int8))
    with pytest.raises(RuntimeError, match="int64"):
        x.index_copy(0, tl.tensor([0], dtype=tl.int32), tl.zeros(1, 3))
    with pytest.raises(RuntimeError, match="int64"):
        tl.take(x, tl.tensor([0], dtype=tl.int32))
    with pytest.raises(RuntimeError, match="BoolTensor"):
        x.masked_fill(tl.ones(4, 3, dtype=tl.uint8), 1.0)
    with pytest.raises(RuntimeError, match="int64"):
        tl.one_hot(tl.tensor([0, 1], dtype=tl.int32))
    with pytest.raises(IndexError, match="only integers"):
        x[1.5]
    with pytest.raises(IndexError, match="only integers"):
        x[object()]
    # a str or bytes item, also inside a tuple or a list: torch 2.13's TypeError (it tries to make a
    # tensor of it), for reads and writes
    for index in ("a", ("a",), (0, "a"), b"a", ["a"], [0, "a"], [[0], ["a"]]):
        with pytest.raises(TypeError, match="new\\(\\): invalid data type '(str|bytes)'"):
            x[index]
        with pytest.raises(TypeError, match="invalid data type"):
            x[index] = 1.0
    assert to_numpy(x).sum() == 0.0


def test_index_error_classes_as_pytorch(device):
    """PyTorch 2.13 raises RuntimeError (not IndexError) for a wrong index dtype in index_select,
    index_add and index_copy, and for index_select of a 0-d tensor with several indices and
    index_fill with a 2-d index; IndexError for index_fill's dtype and the other ops' 2-d index."""
    x = tl.zeros(4, 3, device=device)
    src = tl.ones(2, 3, device=device)
    for dt in (tl.float32, tl.int16, tl.bool):
        i = tl.tensor([0, 1], device=device).to(dt)
        for fn, args in ((x.index_select, (0, i)), (x.index_add, (0, i, src)), (x.index_add_, (0, i, src)),
                         (x.index_copy, (0, i, src))):
            msg = f"Expected dtype int(32 or int)?64 for index, but got {dt.name}"
            with pytest.raises(RuntimeError, match=msg) as e:
                fn(*args)
            assert not isinstance(e.value, IndexError)
        with pytest.raises(IndexError, match=rf"index_fill_\(\): Expected dtype int64 for index, but got {dt.name}"):
            x.index_fill_(0, i, 1.0)
    assert x.tolist() == [[0.0] * 3] * 4
    with pytest.raises(RuntimeError, match=r"index_select\(\): Index to scalar can have only 1 value, got 2 value"):
        tl.tensor(1.0, device=device).index_select(0, tl.tensor([0, 0], device=device))
    with pytest.raises(RuntimeError, match="Index has to be a vector/scalar") as e:
        x.index_fill_(0, tl.zeros(1, 1, dtype=tl.int64, device=device), 1.0)
    assert not isinstance(e.value, IndexError)
    for fn in (lambda: x.index_select(0, tl.zeros(1, 1, dtype=tl.int64, device=device)),
               lambda: x.index_add_(0, tl.zeros(1, 1, dtype=tl.int64, device=device), src[:1])):
        with pytest.raises(IndexError, match="Index is supposed to be a vector"):
            fn()


def test_shape_errors():
    x = tl.zeros(4, 3)
    with pytest.raises(IndexError, match="shape of the mask"):
        x[tl.ones(3, dtype=tl.bool)]
    with pytest.raises(IndexError, match="shape mismatch: indexing tensors could not be broadcast"):
        x[tl.tensor([0, 1]), tl.tensor([0, 1, 2])]
    with pytest.raises(IndexError, match="too many indices"):
        x[[0], [0], [0]]
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        x.gather(0, tl.tensor([0]))
    with pytest.raises(RuntimeError, match="smaller"):
        x.gather(0, tl.zeros(1, 4, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="smaller size than src"):
        x.scatter(0, tl.zeros(2, 3, dtype=tl.int64), tl.ones(1, 3))
    with pytest.raises(RuntimeError, match="dtype"):
        x.scatter_add(0, tl.zeros(1, 3, dtype=tl.int64), tl.ones(1, 3, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="Number of indices"):
        x.index_add(0, tl.tensor([0, 1]), tl.ones(3, 3))
    with pytest.raises(RuntimeError, match="slice shapes"):
        x.index_add(0, tl.tensor([0]), tl.ones(1, 4))
    with pytest.raises(IndexError, match="vector"):
        x.index_select(0, tl.zeros(1, 1, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="0-dimensional value tensor"):
        x.masked_fill(x > 0, tl.ones(2))
    with pytest.raises(RuntimeError, match="source"):
        x.masked_scatter(tl.ones(4, 3, dtype=tl.bool), tl.ones(5))
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got 'add'"):
        x.scatter_reduce(0, tl.zeros(1, 3, dtype=tl.int64), tl.ones(1, 3), "add")


def test_errors_leave_input_unchanged(device):
    x = tl.ones(4, 3, device=device)
    for fn in (lambda: x.index_add_(0, tl.tensor([0, 9], device=device), tl.ones(2, 3, device=device)),
               lambda: x.scatter_(0, tl.tensor([[0, 4, 0]], device=device), tl.zeros(1, 3, device=device)),
               lambda: x.masked_scatter_(tl.ones(4, 3, dtype=tl.bool, device=device), tl.zeros(2, device=device)),
               lambda: x.__setitem__(tl.tensor([1, 5], device=device), 0.0)):
        with pytest.raises((IndexError, RuntimeError)):
            fn()
    assert x.tolist() == [[1.0] * 3] * 4


def test_one_hot_and_bincount_errors():
    with pytest.raises(RuntimeError, match="non-negative"):
        tl.one_hot(tl.tensor([-1, 0]))
    with pytest.raises(RuntimeError, match="smaller than num_classes"):
        tl.one_hot(tl.tensor([3]), 3)
    with pytest.raises(RuntimeError, match="empty"):
        tl.one_hot(tl.tensor([], dtype=tl.int64))
    with pytest.raises(RuntimeError, match="non-negative"):
        tl.bincount(tl.tensor([1, -1]))
    with pytest.raises(RuntimeError, match="1-d"):
        tl.bincount(tl.tensor([[1]]))
    with pytest.raises(RuntimeError, match="weights"):
        tl.bincount(tl.tensor([1, 2]), tl.ones(3))
    # as torch 2.13: the dtype is checked first, with NotImplementedError; an empty tensor needs
    # num_classes > 0 (0 cannot be inferred either)
    with pytest.raises(NotImplementedError, match="not implemented for 'Bool'"):
        tl.bincount(tl.tensor(True))
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        tl.bincount(tl.tensor([1.0]))
    with pytest.raises(RuntimeError, match="empty"):
        tl.one_hot(tl.tensor([], dtype=tl.int64), 0)
    assert tl.one_hot(tl.tensor([], dtype=tl.int64), 3).shape == (0, 3)
    # an empty input counts in int64 even with float weights
    e = tl.bincount(tl.tensor([], dtype=tl.int64), tl.tensor([], dtype=tl.float64), minlength=3)
    assert e.dtype is tl.int64 and e.tolist() == [0, 0, 0]


def test_take_along_dim_reads_negative_indices_from_the_end(device):
    # values from torch 2.13 (with a dim it wraps every index modulo the size; out of [-size, size) we raise)
    x = tl.arange(10.0, 14.0, device=device)
    np.testing.assert_array_equal(to_numpy(tl.take_along_dim(x, tl.tensor([-1, -4, 3], device=device), 0)),
                                  [13.0, 10.0, 13.0])
    m = x.reshape(2, 2)
    np.testing.assert_array_equal(to_numpy(tl.take_along_dim(m, tl.tensor([[-1], [0]], device=device), 1)),
                                  [[11.0], [12.0]])
    with pytest.raises(IndexError, match="index -5 is out of bounds"):
        tl.take_along_dim(x, tl.tensor([-5], device=device), 0)
    # past the end: the message names take_along_dim (not the gather it runs)
    with pytest.raises(IndexError, match=r"take_along_dim\(\): index 4 is out of bounds for dimension 0 with size 4"):
        tl.take_along_dim(x, tl.tensor([1, 4], device=device), 0)
    # without a dim torch 2.13 gathers from the flattened input and a negative index is out of range
    np.testing.assert_array_equal(to_numpy(tl.take_along_dim(m, tl.tensor([3, 1], device=device))), [13.0, 11.0])
    with pytest.raises(RuntimeError, match=r"take_along_dim\(\): index -1 is out of bounds for dimension 0 with"):
        tl.take_along_dim(m, tl.tensor([-1, 1], device=device))


# ----------------------------------------------------------------------------------------------
# determinism of the accumulating writes
# ----------------------------------------------------------------------------------------------


def _seq_add(base: np.ndarray, dest: np.ndarray, vals: np.ndarray, device: str = "cpu") -> np.ndarray:
    """The documented order: sequential in source order (np.add.at) on cpu; on cuda the same for runs
    of up to RUN_CHUNK duplicates, longer runs as sequential chunks whose partials are added in order."""
    out = base.copy()
    if device == "cpu":
        np.add.at(out, dest, vals)  # sequential, in index order, in the array's dtype
        return out
    chunk = RUN_CHUNK
    for d in np.unique(dest):
        v = vals[dest == d]
        acc = out[d].copy()
        for x in v[:chunk]:
            acc = acc + x
        for k in range(chunk, len(v), chunk):
            part = v[k].copy()
            for x in v[k + 1:k + chunk]:
                part = part + x
            acc = acc + part
        out[d] = acc
    return out


def test_scatter_add_many_duplicates_is_deterministic_and_sequential(device):
    rng = np.random.default_rng(0)
    n, m = 3000, 7
    index = rng.integers(0, m, n)
    src = (rng.standard_normal(n) * 1e3).astype(np.float32)
    base = rng.standard_normal(m).astype(np.float32)
    ti, ts, tb = (tl.tensor(a, device=device) for a in (index, src, base))
    first = to_numpy(tb.scatter_add(0, ti, ts))
    second = to_numpy(tb.scatter_add(0, ti, ts))
    assert first.tobytes() == second.tobytes()  # bitwise equal across runs
    np.testing.assert_array_equal(first, _seq_add(base, index, src, device))  # the documented order, exactly
    # where every order gives the same answer (exact sums) it is PyTorch's result too
    ints = rng.integers(-50, 50, n)
    got = tl.zeros(m, dtype=tl.int64, device=device).scatter_add(0, ti, tl.tensor(ints, device=device))
    np.testing.assert_array_equal(to_numpy(got), np.bincount(index, ints, m).astype(np.int64))


def test_index_add_rows_deterministic(device):
    # the embedding-backward shape: many token rows into few vocabulary rows, whole rows at once
    rng = np.random.default_rng(1)
    tokens, vocab, width = 300, 3, 17  # runs of ~100 > RUN_CHUNK in the interpreter: the chunked path
    index = rng.integers(0, vocab, tokens)
    src = rng.standard_normal((tokens, width)).astype(np.float32)
    ti, ts = tl.tensor(index, device=device), tl.tensor(src, device=device)
    runs = [to_numpy(tl.zeros(vocab, width, device=device).index_add(0, ti, ts)) for _ in range(2)]
    assert runs[0].tobytes() == runs[1].tobytes()
    np.testing.assert_array_equal(runs[0], _seq_add(np.zeros((vocab, width), np.float32), index, src, device))
    # the same through index_put(accumulate=True) and through autograd (index_select backward)
    acc = tl.zeros(vocab, width, device=device).index_put_((ti,), ts, accumulate=True)
    np.testing.assert_array_equal(to_numpy(acc), runs[0])
    w = tl.zeros(vocab, width, device=device, requires_grad=True)
    (w.index_select(0, ti) * ts).sum().backward()
    np.testing.assert_array_equal(to_numpy(w.grad), runs[0])


def test_scatter_last_writer_wins_every_run(device):
    rng = np.random.default_rng(2)
    index = rng.integers(0, 5, (400, 3))
    src = rng.standard_normal((400, 3)).astype(np.float32)
    expected = np.zeros((5, 3), np.float32)
    for i in range(400):  # the sequential loop
        for j in range(3):
            expected[index[i, j], j] = src[i, j]
    for _ in range(2):
        got = tl.zeros(5, 3, device=device).scatter(0, tl.tensor(index, device=device), tl.tensor(src, device=device))
        np.testing.assert_array_equal(to_numpy(got), expected)


def test_half_accumulates_in_float32(device):
    # 2048 ones into one fp16 slot: sequential fp16 adds would stop at 2048 - 1 + ...; fp32 accumulation is exact
    x = tl.zeros(1, dtype=tl.float16, device=device)
    got = x.index_add(0, tl.zeros(4096, dtype=tl.int64, device=device), tl.ones(4096, dtype=tl.float16,
                                                                                  device=device))
    assert got.item() == 4096.0


# ----------------------------------------------------------------------------------------------
# in-place variants, aliases, misc
# ----------------------------------------------------------------------------------------------


def test_inplace_variants_return_self(device):
    x = tl.zeros(3, 2, device=device)
    idx = tl.tensor([[2, 0]], device=device)
    assert x.scatter_(0, idx, tl.ones(1, 2, device=device)) is x
    assert x.scatter_(0, idx, 5.0) is x
    assert x.scatter_add_(0, idx, tl.ones(1, 2, device=device)) is x
    assert x.scatter_reduce_(0, idx, tl.full((1, 2), 2.0, device=device), "prod") is x
    assert x.tolist() == [[0.0, 12.0], [0.0, 0.0], [12.0, 0.0]]
    assert x.index_add_(1, tl.tensor([1], device=device), tl.ones(3, 1, device=device), alpha=-2) is x
    assert x.index_copy_(0, tl.tensor([1], device=device), tl.full((1, 2), 7.0, device=device)) is x
    assert x.index_fill_(0, tl.tensor([0], device=device), -1.0) is x
    assert x.masked_fill_(tl.tensor([True, False], device=device), 3.0) is x
    assert x.masked_scatter_(tl.tensor([[False, True]] * 3, device=device), tl.tensor([9.0, 8.0, 6.0],
                                                                                      device=device)) is x
    assert x.tolist() == [[3.0, 9.0], [3.0, 8.0], [3.0, 6.0]]


def _long_empty(device):
    return tl.empty(0, dtype=tl.int64, device=device)


# A written-to tensor that shares memory with an input (PyTorch 2.15's assert_no_overlap: the
# whole of it or a part, for index and scatter writes, gather/index_select/take/cat/stack/
# masked_select out=; assert_no_partial_overlap: a part only, for scans, sort and max(dim)).
_OVERLAP_REFUSED = {
    "index_copy_ itself": lambda a, i, d: a[:2].index_copy_(0, i, a[:2]),
    "index_copy_ part": lambda a, i, d: a[:2].index_copy_(0, i, a[1:3]),
    "index_add_ itself": lambda a, i, d: a[:2].index_add_(0, i, a[:2]),
    "index_add_ part": lambda a, i, d: a[:2].index_add_(0, i, a[1:3]),
    "index_add out= part of its base": lambda a, i, d: tl.index_add(a[:2], 0, i, a[2:4].clone(), out=a[1:3]),
    "scatter_ itself": lambda a, i, d: a[:2].scatter_(0, i[:, None].expand(2, 3), a[:2]),
    "scatter out= its base, src itself": lambda a, i, d: tl.scatter(a[:2], 0, i[:, None].expand(2, 3), a[:2],
                                                                      out=a[:2]),
    "scatter_add_ part": lambda a, i, d: a[:2].scatter_add_(0, i[:, None].expand(2, 3), a[1:3]),
    "scatter_reduce_ part": lambda a, i, d: a[:2].scatter_reduce_(0, i[:, None].expand(2, 3), a[1:3], "sum"),
    "gather out= input": lambda a, i, d: tl.gather(a[:2], 0, i[:, None].expand(2, 3), out=a[:2]),
    "gather out= part": lambda a, i, d: tl.gather(a[:2], 0, i[:, None].expand(2, 3), out=a[1:3]),
    "take_along_dim out= part": lambda a, i, d: tl.take_along_dim(a[:2], i[:, None].expand(2, 3), 0, out=a[1:3]),
    "index_select out= part": lambda a, i, d: tl.index_select(a[:2], 0, i, out=a[1:3]),
    "take out= part": lambda a, i, d: tl.take(a[:2], i, out=a[0, 1:3]),
    "index_put_ itself": lambda a, i, d: a[:2].index_put_((i,), a[:2]),
    "index_put_ accumulate part": lambda a, i, d: a[:2].index_put_((i,), a[1:3], accumulate=True),
    "setitem part": lambda a, i, d: a[:2].__setitem__(i, a[1:3]),
    "setitem a row of itself": lambda a, i, d: a.__setitem__(i, a[3]),
    "setitem an element of itself": lambda a, i, d: a.__setitem__(i, a[0, 0]),
    "put_ part": lambda a, i, d: a.view(-1)[:4].put_(i, a.view(-1)[1:3]),
    "cat out= part": lambda a, i, d: tl.cat([a[:1], a[1:2]], out=a[1:3]),
    "cat out= input": lambda a, i, d: tl.cat([a[:1]], out=a[:1]),
    "stack out= input": lambda a, i, d: tl.stack([a[0]], out=a[:1]),
    "masked_select out= part": lambda a, i, d: tl.masked_select(a[:2], a[:2] > 2, out=a.view(-1)[2:6]),
    "cumsum out= part": lambda a, i, d: tl.cumsum(a[:2], 0, out=a[1:3]),
    "cumprod out= part": lambda a, i, d: tl.cumprod(a[:2], 0, out=a[1:3]),
    "logcumsumexp out= part": lambda a, i, d: tl.logcumsumexp(a[:2], 0, out=a[1:3]),
    "sort out= part": lambda a, i, d: tl.sort(a[:2], 0, out=(a[1:3], _long_empty(d))),
    "max(dim) out= part": lambda a, i, d: tl.max(a[:2], 0, out=(a[1], _long_empty(d))),
}
# Overlaps PyTorch allows, with its results: apart in one storage, an expanded view (too hard to
# compare), the destination itself for partial-overlap ops, and a value read once.
_OVERLAP_ALLOWED = {
    "index_copy_ apart": (lambda a, i, d: a[:2].index_copy_(0, i, a[2:4]),
                          [[9, 10, 11], [6, 7, 8], [6, 7, 8], [9, 10, 11]]),
    "index_add_ an expanded row of itself": (lambda a, i, d: a.index_add_(0, i, a[3:4].expand(2, 3)),
                                             [[9, 11, 13], [12, 14, 16], [6, 7, 8], [9, 10, 11]]),
    "cat out= apart": (lambda a, i, d: tl.cat([a[0:1]], out=a[2:3]), [[0, 1, 2], [3, 4, 5], [0, 1, 2], [9, 10, 11]]),
    "gather out= apart": (lambda a, i, d: tl.gather(a[:2], 0, i[:, None].expand(2, 3), out=a[2:4]),
                          [[0, 1, 2], [3, 4, 5], [3, 4, 5], [0, 1, 2]]),
    "sort out= input": (lambda a, i, d: tl.sort(a[:2], 1, descending=True, out=(a[:2], _long_empty(d))),
                        [[2, 1, 0], [5, 4, 3], [6, 7, 8], [9, 10, 11]]),
    "cumsum out= input": (lambda a, i, d: tl.cumsum(a, 0, out=a), [[0, 1, 2], [3, 5, 7], [9, 12, 15], [18, 22, 26]]),
    "masked_fill_ value of itself": (lambda a, i, d: a.masked_fill_(a > 2, a[0, 1]),
                                     [[0, 1, 2], [1, 1, 1], [1, 1, 1], [1, 1, 1]]),
    "index_fill_ value of itself": (lambda a, i, d: a.index_fill_(0, i, a[0, 1]),
                                    [[1, 1, 1], [1, 1, 1], [6, 7, 8], [9, 10, 11]]),
}


@pytest.mark.parametrize("case", sorted(_OVERLAP_REFUSED))
def test_write_overlapping_an_input_raises_as_pytorch(device, case):
    a = tl.arange(12.0, device=device).reshape(4, 3)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor refer to a "
                                           "single memory location"):
        _OVERLAP_REFUSED[case](a, tl.tensor([1, 0], device=device), device)
    assert a.tolist() == np.arange(12.0).reshape(4, 3).tolist()  # refused before anything was written


@pytest.mark.parametrize("case", sorted(_OVERLAP_ALLOWED))
def test_write_overlapping_an_input_allowed_as_pytorch(device, case):
    a = tl.arange(12.0, device=device).reshape(4, 3)
    fn, expected = _OVERLAP_ALLOWED[case]
    fn(a, tl.tensor([1, 0], device=device), device)
    assert a.tolist() == expected


def test_scatter_refuses_a_value_beside_a_tensor_src(device):
    # torch 2.15: TypeError; value (or a positional 'add') beside a tensor src was silently ignored
    idx = tl.tensor([[0], [1]], device=device)
    src = tl.ones(2, 1, device=device)
    for call in (lambda: tl.zeros(2, 3, device=device).scatter(1, idx, src, value=7.0),
                 lambda: tl.zeros(2, 3, device=device).scatter(1, idx, src, "add")):
        with pytest.raises(TypeError, match="got both a value and src"):
            call()
    out = tl.zeros(2, 3, device=device).scatter(1, idx, value=2.0, reduce="add")
    assert to_numpy(out).tolist() == [[2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]


def test_scatter_reduce_modes_and_legacy_reduce(device):
    x = tl.tensor([1.0, 2.0, 3.0], device=device)
    idx = tl.tensor([0, 0, 2, 2], device=device)
    src = tl.tensor([4.0, -1.0, 10.0, 0.5], device=device)
    assert x.scatter_reduce(0, idx, src, "sum").tolist() == [4.0, 2.0, 13.5]
    assert x.scatter_reduce(0, idx, src, "mean", include_self=False).tolist() == [1.5, 2.0, 5.25]
    assert x.scatter_reduce(0, idx, src, "amax").tolist() == [4.0, 2.0, 10.0]
    assert x.scatter_reduce(0, idx, src, "amin", include_self=False).tolist() == [-1.0, 2.0, 0.5]
    assert x.scatter_reduce(0, idx, src, "prod").tolist() == [-4.0, 2.0, 15.0]
    assert x.scatter(0, idx, src, reduce="add").tolist() == [4.0, 2.0, 13.5]
    assert x.scatter(0, idx, 2.0, reduce="multiply").tolist() == [4.0, 2.0, 12.0]
    ints = tl.tensor([7, 0, -7], device=device)
    got = ints.scatter_reduce(0, tl.tensor([0, 2], device=device), tl.tensor([0, 0], device=device), "mean")
    assert got.tolist() == [3, 0, -4]  # floor division, as PyTorch
    nan = x.scatter_reduce(0, idx, tl.tensor([float("nan"), 1.0, 1.0, 1.0], device=device), "amax")
    assert np.isnan(nan[0].item())
    # bool: PyTorch 2.13 has sum/prod/amax/amin kernels but no mean (NotImplementedError, also for an
    # empty index and in place); tensorlab returned a value
    b = tl.tensor([True, False, True], device=device)
    bsrc = tl.tensor([False, True], device=device)
    assert b.scatter_reduce(0, tl.tensor([0, 1], device=device), bsrc, "amax").tolist() == [True, True, True]
    assert b.scatter_reduce(0, tl.tensor([0, 1], device=device), bsrc, "prod").tolist() == [False, False, True]
    for index in ([0, 0], []):
        for include_self in (True, False):
            with pytest.raises(NotImplementedError, match="scatter_reduce\\(\\): .* not implemented for 'Bool'"):
                b.scatter_reduce(0, tl.tensor(index, dtype=tl.int64, device=device), bsrc[:len(index)], "mean",
                                 include_self=include_self)
    with pytest.raises(NotImplementedError, match="scatter_reduce_\\(\\): .* not implemented for 'Bool'"):
        b.scatter_reduce_(0, tl.tensor([0, 0], device=device), bsrc, "mean")
    assert b.tolist() == [True, False, True]


def test_nonzero_forms(device):
    x = tl.tensor([[0.0, 1.5], [2.0, 0.0]], device=device)
    assert x.nonzero().tolist() == [[0, 1], [1, 0]]
    rows, cols = x.nonzero(as_tuple=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    (only,) = tl.nonzero(tl.tensor(5, device=device), as_tuple=True)
    assert only.tolist() == [0]
    assert tuple(tl.nonzero(tl.tensor(0, device=device)).shape) == (0, 0)
    assert tl.argwhere(x).tolist() == [[0, 1], [1, 0]]


def test_nonzero_static_pads_or_truncates_to_size(device):
    # values from torch 2.15
    x = tl.tensor([[0, 1], [2, 0]], device=device)
    got = tl.nonzero_static(x, size=4)
    assert got.dtype is tl.int64 and got.tolist() == [[0, 1], [1, 0], [-1, -1], [-1, -1]]
    assert x.nonzero_static(size=1, fill_value=7).tolist() == [[0, 1]]
    assert x.nonzero_static(size=3, fill_value=7).tolist() == [[0, 1], [1, 0], [7, 7]]
    assert tuple(x.nonzero_static(size=0).shape) == (0, 2)
    assert tuple(tl.nonzero_static(tl.tensor(3.0, device=device), size=2).shape) == (2, 0)
    assert tl.nonzero_static(tl.zeros(3, device=device), size=2).tolist() == [[-1], [-1]]
    with pytest.raises(RuntimeError, match="nonzero_static: 'size' must be an non-negative integer"):
        tl.nonzero_static(x, size=-1)


def test_one_hot_and_bincount_values(device):
    t = tl.tensor([[1, 0], [3, 1]], device=device)
    oh = tl.one_hot(t)
    assert oh.dtype is tl.int64 and tuple(oh.shape) == (2, 2, 4)
    np.testing.assert_array_equal(to_numpy(oh), np.eye(4, dtype=np.int64)[[[1, 0], [3, 1]]])
    # torch 2.13's one_hot names its argument input (its docs still say tensor)
    assert tl.nn.functional.one_hot(input=t, num_classes=5).shape == (2, 2, 5)
    b = tl.bincount(tl.tensor([2, 2, 0], dtype=tl.uint8, device=device), minlength=5)
    assert b.dtype is tl.int64 and b.tolist() == [1, 0, 2, 0, 0]
    w = tl.bincount(tl.tensor([1, 1], device=device), tl.tensor([0.5, 0.25], dtype=tl.float16, device=device))
    assert w.dtype is tl.float64 and w.tolist() == [0.0, 0.75]


def test_bincount_weights_that_require_grad_get_their_gradient(device):
    # (PyTorch marks the result as requiring grad and raises at backward: no derivative. The
    # gradient is the upstream gradient of each weight's bin; silently detaching would be wrong.)
    for dtype in (tl.float32, tl.float16):
        w = tl.tensor([1.0, 2.0, 3.0], dtype=dtype, requires_grad=True, device=device)
        b = tl.bincount(tl.tensor([0, 2, 2], device=device), w, minlength=4)
        assert b.requires_grad and b.tolist() == [1, 0, 5, 0]
        (b * tl.tensor([1.0, 10.0, 100.0, 1000.0], dtype=b.dtype, device=device)).sum().backward()
        assert w.grad.dtype is dtype and w.grad.tolist() == [1, 100, 100]


def test_masked_select_gradient_and_broadcast(device):
    x = tl.tensor([1.0, 2.0, 3.0], device=device, requires_grad=True)
    mask = tl.tensor([[True, False, True], [False, False, True]], device=device)
    y = x.masked_select(mask)
    assert y.tolist() == [1.0, 3.0, 3.0]
    (y * tl.tensor([1.0, 10.0, 100.0], device=device)).sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 110.0]


def test_validation_copies_only_a_few_bytes_to_host(monkeypatch):
    # a min/max reduction on the device, then one small copy: never the index tensor itself
    if not tl.cuda.is_available():
        pytest.skip("no cuda device (real or interpreted)")
    sizes = []
    real = rt.copy_device_to_host

    def spy(dst, src, src_offset, non_blocking=False):
        sizes.append(dst.nbytes)
        return real(dst, src, src_offset, non_blocking)

    x = tl.zeros(1000, 4, device="cuda")
    index = tl.tensor(np.arange(1000)[::-1].copy(), device="cuda")
    monkeypatch.setattr(rt, "copy_device_to_host", spy)
    x.index_select(0, index)
    x[index]
    x.index_add_(0, index, tl.ones(1000, 4, device="cuda"))
    assert sizes and max(sizes) <= 16


def test_inplace_writes_into_strided_views(device):
    # in-place ops write straight through the destination's strides (no contiguous copy)
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    rows = np.array([2, 0, 2])

    def fresh():
        return tl.tensor(base, device=device).t()  # (6, 4), strides (1, 6)

    def check(t, expected):
        np.testing.assert_array_equal(to_numpy(t), expected)

    expected = base.T.copy()
    np.add.at(expected, rows, np.ones((3, 4), np.float32))
    check(fresh().index_add_(0, tl.tensor(rows, device=device), tl.ones(3, 4, device=device)), expected)
    check(fresh().index_put_((tl.tensor(rows, device=device),), tl.ones(3, 4, device=device), accumulate=True),
          expected)
    expected = base.T.copy()
    expected[:, [3, 1]] = -1
    t = fresh()
    t[:, [3, 1]] = -1.0
    check(t, expected)
    expected = base.T.copy()
    idx = np.array([[1, 5, 0, 0]])
    for j in range(4):
        expected[idx[0, j], j] += 10.0
    check(fresh().scatter_add_(0, tl.tensor(idx, device=device), tl.full((1, 4), 10.0, device=device)), expected)
    expected = base.T.copy()
    expected[expected > 12] = 0
    t = fresh()
    check(t.masked_fill_(t > 12, 0.0), expected)
    expected = base.T.copy()
    expected[:, [0]] = 7
    check(fresh().index_fill_(1, tl.tensor([0], device=device), 7.0), expected)
    expected = base.T.copy()
    m = expected % 5 == 0
    expected[m] = -np.arange(m.sum(), dtype=np.float32)
    t = fresh()
    check(t.masked_scatter_(tl.tensor(m, device=device), -tl.arange(24, device=device).float()), expected)


# ----------------------------------------------------------------------------------------------
# writes into expanded tensors, and scalar values that do not fit the destination (PyTorch's checks)
# ----------------------------------------------------------------------------------------------

_WRITES_INTO_EXPANDED = {
    "setitem": lambda y, d: y.__setitem__(tl.tensor([0], device=d), 5.0),
    "scatter_": lambda y, d: y.scatter_(0, tl.tensor([[1, 1, 1]], device=d), 9.0),
    "index_add_": lambda y, d: y.index_add_(1, tl.tensor([1], device=d), tl.ones(4, 1, device=d)),
    "copy_": lambda y, d: y.copy_(tl.ones(4, 3, device=d) * 5),
    "masked_fill_": lambda y, d: y.masked_fill_(tl.ones(4, 3, dtype=tl.bool, device=d), 2.0),
    "mul_": lambda y, d: y.mul_(2),
    "add out=": lambda y, d: tl.add(tl.ones(4, 3, device=d), 1, out=y),
}


@pytest.mark.parametrize("write", sorted(_WRITES_INTO_EXPANDED))
def test_writes_into_an_expanded_tensor_raise_and_change_nothing(device, write):
    x = tl.tensor([1.0, 2.0, 3.0], device=device)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor refers to a single"):
        _WRITES_INTO_EXPANDED[write](x.expand(4, 3), device)
    assert x.tolist() == [1.0, 2.0, 3.0]
    x.expand(1, 3).mul_(2)  # a size-1 expanded dim shares nothing
    assert x.tolist() == [2.0, 4.0, 6.0]


_WRITES_INTO_EMPTY = {
    "setitem": lambda y, d: y.__setitem__(tl.tensor([0], device=d), 5.0),
    "setitem ...": lambda y, d: y.__setitem__(Ellipsis, tl.ones(3, device=d)),
    "setitem mask": lambda y, d: y.__setitem__(tl.zeros(4, 0, 3, dtype=tl.bool, device=d), 1.0),
    "scatter_": lambda y, d: y.scatter_(0, tl.zeros(1, 0, 3, dtype=tl.int64, device=d), 9.0),
    "index_add_": lambda y, d: y.index_add_(2, tl.tensor([1], device=d), tl.ones(4, 0, 1, device=d)),
    "copy_": lambda y, d: y.copy_(tl.ones(3, device=d)),
    "masked_fill_": lambda y, d: y.masked_fill_(tl.ones(4, 0, 3, dtype=tl.bool, device=d), 2.0),
    "mul_": lambda y, d: y.mul_(2),
    "add out=": lambda y, d: tl.add(tl.ones(4, 0, 3, device=d), 1, out=y),
}


@pytest.mark.parametrize("write", sorted(_WRITES_INTO_EMPTY))
def test_writes_into_an_empty_tensor_with_zero_strides_are_no_overlap(device, write):
    # numpy gives np.zeros((0, 3)) strides (0, 0), and tensors made from it keep them (as PyTorch's):
    # an empty destination writes nothing, so its zero strides are no overlap (x[...] = v raised)
    e = tl.tensor(np.zeros((0, 3), np.float32), device=device)
    y = e.expand(4, 0, 3)
    assert 0 in y.stride()
    _WRITES_INTO_EMPTY[write](y, device)
    assert y.shape == (4, 0, 3)


# (dtype, value, fits): checked against PyTorch 2.13's fill_ / full / masked_fill
_SCALARS = [
    (tl.int8, 300, False), (tl.int8, -129, False), (tl.int8, 127, True), (tl.int8, 300.0, False),
    (tl.int8, 127.9, False), (tl.int8, -128.5, False), (tl.int8, 2.5, True), (tl.uint8, -1, True),
    (tl.uint8, -255, True), (tl.uint8, -256, False), (tl.uint8, 256, False), (tl.int64, float("nan"), False),
    (tl.int32, float("inf"), False), (tl.int64, 2 ** 63, False), (tl.float16, 1e6, False),
    (tl.float16, 65520.0, False), (tl.float16, 65505.0, True), (tl.float16, 65504, True),
    (tl.float16, float("inf"), True), (tl.float16, float("nan"), True), (tl.bfloat16, 1e39, False),
    (tl.float32, 1e39, False), (tl.float32, -1e39, False), (tl.float64, 1e308, True), (tl.bool, 5, True),
    (tl.int8, True, True),
]


@pytest.mark.parametrize("dtype, value, fits", _SCALARS)
def test_scalars_that_do_not_fit_the_dtype_raise(dtype, value, fits):
    mask = tl.tensor([True, False])
    index = tl.tensor([1])
    fills = {
        "full": lambda: tl.full((2,), value, dtype=dtype),
        "fill_": lambda: tl.zeros(2, dtype=dtype).fill_(value),
        "masked_fill": lambda: tl.zeros(2, dtype=dtype).masked_fill(mask, value),
        "index_fill": lambda: tl.zeros(2, dtype=dtype).index_fill(0, index, value),
        "scatter": lambda: tl.zeros(2, dtype=dtype).scatter(0, index, value),
    }
    written = {"full": 0, "fill_": 0, "masked_fill": 0, "index_fill": 1, "scatter": 1}  # an element it writes
    for name, fill in fills.items():
        if fits:
            with np.errstate(invalid="ignore"):  # (numpy's own -1 -> uint8 wrap warns)
                expected = np.array(value, dtype=np.float64 if isinstance(value, float) else None).astype(dtype.np)
            got = to_numpy(fill())[written[name]]
            assert got == expected or (np.isnan(expected) and np.isnan(got)), (name, got, expected)
        else:
            with pytest.raises(RuntimeError, match=f"{name}.*value cannot be converted to type {dtype.name} without"):
                fill()


def test_a_0d_cpu_tensor_value_that_does_not_fit_raises(device):
    # it wrapped (uint8 -3 -> 253, int32 inf -> -2**31); a Python scalar value already raised
    mask, index = tl.tensor([True, False], device=device), tl.tensor([1], device=device)
    for dtype, value, fits in [(tl.uint8, tl.tensor(-3.0), False), (tl.int32, tl.tensor(float("inf")), False),
                               (tl.int16, tl.tensor(2**63 - 1), False), (tl.float16, tl.tensor(1e6), False),
                               (tl.uint8, tl.tensor(7), True), (tl.int8, tl.tensor(-2.5), True)]:
        x = tl.zeros(2, dtype=dtype, device=device)
        for name, args in (("masked_fill_", (mask, value)), ("index_fill_", (0, index, value))):
            if fits:
                assert getattr(x, name)(*args) is x
            else:
                with pytest.raises(RuntimeError, match=f"{name}.*cannot be converted to type {dtype.name} without"):
                    getattr(x, name)(*args)
                assert x.tolist() == [0, 0]
        if fits:
            assert x.tolist() == [int(value.item())] * 2


def test_setitem_checks_integer_destinations_only_as_pytorch(device):
    x = tl.zeros(2, dtype=tl.int8, device=device)
    for index in (0, tl.tensor([0], device=device), tl.tensor([True, False], device=device)):
        with pytest.raises(RuntimeError, match="value cannot be converted to type int8 without overflow"):
            x[index] = 300
        with pytest.raises(RuntimeError, match="value cannot be converted to type int8 without overflow"):
            x[index] = float("nan")
    x[0] = 2.7  # in range: truncates, as PyTorch
    assert x.tolist() == [2, 0]
    h = tl.zeros(2, dtype=tl.float16, device=device)
    h[0] = 1e6  # PyTorch's __setitem__ lets a floating destination overflow to inf
    assert to_numpy(h)[0] == np.inf
    u = tl.zeros(2, dtype=tl.uint8, device=device)
    u[1] = -1
    assert u.tolist() == [0, 255]


def test_range_indexes_like_the_list_of_its_values(device):
    a = np.arange(12).reshape(3, 4)
    x = tl.tensor(a, device=device)
    np.testing.assert_array_equal(to_numpy(x[range(0, 3, 2)]), a[[0, 2]])
    np.testing.assert_array_equal(to_numpy(x[:, range(1, 3)]), a[:, [1, 2]])
    assert x[range(0)].shape == (0, 4)
    x[range(1, 3)] = 0
    a[[1, 2]] = 0
    np.testing.assert_array_equal(to_numpy(x), a)


def test_nonzero_of_bf16_treats_negative_zero_as_zero(device):
    # Triton's interpreter compared a bf16's raw bits with 0: -0.0 (0x8000) counted as non-zero
    for dtype in (tl.bfloat16, tl.float16):
        x = tl.tensor([[-0.0, 0.0, 1.5], [-2.0, -0.0, 0.0]], dtype=dtype, device=device)
        assert tl.nonzero(x).tolist() == [[0, 2], [1, 0]]
        assert tl.nonzero(x[:, 1]).shape == (0, 1)
        assert [t.tolist() for t in tl.nonzero(x, as_tuple=True)] == [[0, 1], [2, 0]]


# ----------------------------------------------------------------------------------------------
# PyTorch's (2.13) acceptance and refusals, checked against torch
# ----------------------------------------------------------------------------------------------


def test_index_add_into_0d_needs_a_0d_source(device):
    x = tl.tensor(1.0, device=device)
    for source in (tl.tensor([1.0, 2.0], device=device), tl.tensor([2.0], device=device)):
        index = tl.zeros(source.numel(), dtype=tl.int64, device=device)
        with pytest.raises(RuntimeError, match=r"source tensor shape must match self tensor shape.*"
                                               r"self.shape = \[\] source.shape = \[\d\]"):
            x.index_add_(0, index, source)
    assert x.item() == 1.0
    with pytest.raises(RuntimeError, match=r"self.shape = \[3\] source.shape = \[\]"):
        tl.zeros(3, device=device).index_add(0, tl.tensor([1], device=device), tl.tensor(2.0, device=device))
    assert x.index_add(0, tl.tensor([0], device=device), tl.tensor(2.0, device=device)).item() == 3.0
    # index_copy reads a 0-d tensor as size 1 (PyTorch too)
    assert x.index_copy(0, tl.tensor([0], device=device), tl.tensor([2.0], device=device)).item() == 2.0


def test_setitem_with_a_value_of_another_dtype(device):
    def half():
        return tl.zeros(4, dtype=tl.float16, device=device)

    idx, mask = tl.tensor([0, 1], device=device), tl.tensor([True, False, True, False], device=device)
    for index, value in ((idx, tl.tensor([1, 2], device=device)), (idx, tl.tensor(3, device=device)),
                         (mask, tl.tensor([1, 2], device=device)), ([0, 1], tl.tensor([1.0, 2.0], device=device)),
                         ((True,), tl.tensor(2, device=device))):
        h = half()
        with pytest.raises(RuntimeError, match="Index put requires the source and destination dtypes match, got "
                                               "float16 for the destination and (int64|float32) for the source"):
            h[index] = value
        assert h.tolist() == [0.0] * 4
    # PyTorch converts where it runs masked_fill_ (one mask, one element) or a copy (basic indices, x[True])
    h = half()
    h[mask] = tl.tensor(2, device=device)
    h[1:3] = tl.tensor([5, 6], device=device)
    assert h.tolist() == [2.0, 5.0, 6.0, 0.0]
    h[True] = tl.tensor([1, 2, 3, 4], device=device)
    assert h.tolist() == [1.0, 2.0, 3.0, 4.0]
    h[False] = tl.tensor(7, device=device)
    assert h.tolist() == [1.0, 2.0, 3.0, 4.0]
    assert half().index_put_((mask,), tl.tensor([2], device=device)).tolist() == [2.0, 0.0, 2.0, 0.0]
    with pytest.raises(RuntimeError, match="dtypes match"):
        half().index_put_((mask,), tl.tensor(2, device=device), accumulate=True)
    with pytest.raises(RuntimeError, match="shape mismatch"):  # the shape is checked first, as PyTorch
        half()[idx] = tl.tensor([1, 2, 3], device=device)


def test_index_add_into_bool_takes_alpha_as_a_bool(device):
    # PyTorch converts alpha to the bool dtype: alpha=-1 is True, so the add is an OR ([False, True] before)
    x = tl.tensor([True, False], device=device)
    x.index_add_(0, tl.tensor([0, 1], device=device), tl.tensor([True, True], device=device), alpha=-1)
    assert x.tolist() == [True, True]
    y = tl.index_add(tl.tensor([True, False], device=device), 0, tl.tensor([1], device=device),
                     tl.tensor([True], device=device), alpha=0)
    assert y.tolist() == [True, False]


def test_index_put_into_an_empty_tensor_writes_nothing(device):
    # the cpu twin raised numpy's IndexError for an index past a size-0 tensor's dim; the kernel and PyTorch return
    x = tl.zeros(4, 0, device=device)
    assert x.index_put_((tl.tensor([5], device=device),), tl.zeros(1, 0, device=device)) is x
    assert x.shape == (4, 0)


def test_index_put_takes_no_none(device):
    x = tl.zeros(2, 3, device=device)
    idx = tl.tensor([0, 1], device=device)
    with pytest.raises(TypeError, match="expected Tensor as element 0 in argument 'indices', but got NoneType"):
        x.index_put_((None, idx), tl.tensor(1.0, device=device))
    with pytest.raises(TypeError, match="expected Tensor as element 1"):
        tl.index_put(x, (idx, None), tl.tensor(1.0, device=device))
    assert x.tolist() == [[0.0] * 3] * 2
    x[:, idx] = 1.0  # what (None, idx) meant to say
    assert x.tolist() == [[1.0, 1.0, 0.0]] * 2


def test_index_put_with_0d_index_tensors(device):
    # values from torch 2.13 (it raised "needs at least one index tensor"): 0-d integer index
    # tensors index as in x[i]; the value must fit that result (no leading 1 dropped)
    def t(v, **kw):
        return tl.tensor(v, device=device, **kw)

    x = t([1.0, 2.0])
    x.index_put_((t(0),), t(5.0))
    assert x.tolist() == [5.0, 2.0]
    y = t([[1.0, 2.0], [3.0, 4.0]])
    assert tl.index_put(y, (t(1),), t([7.0, 8.0])).tolist() == [[1.0, 2.0], [7.0, 8.0]]
    assert tl.index_put(y, (t(1), t(0)), t(7.0), accumulate=True).tolist() == [[1.0, 2.0], [10.0, 4.0]]
    with pytest.raises(RuntimeError, match=r"value tensor of shape \[1\] cannot be broadcast to indexing result of "
                                           r"shape \[\]"):
        x.index_put_((t(1),), t([5.0]), accumulate=True)
    with pytest.raises(IndexError):
        tl.index_put(x, (t(5),), t(7.0))
    assert x.tolist() == [5.0, 2.0]
    a = t([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    v = t(3.0, dtype=tl.float64, requires_grad=True)
    out = tl.index_put(a * 1, (t(1),), v * 2, accumulate=True)
    (out * t([1.0, 5.0], dtype=tl.float64)).sum().backward()
    assert a.grad.tolist() == [1.0, 5.0] and v.grad.item() == 10.0


def test_several_ellipses_as_pytorch(device):
    a = np.arange(24.0).reshape(2, 3, 4)
    x = tl.tensor(a, device=device)
    # each ellipsis skips the dims no other item indexes: later ones are no-ops at the end or when
    # they stand for no dim
    assert x[..., ...].shape == (2, 3, 4) and x[..., ...]._base is x
    np.testing.assert_array_equal(to_numpy(x[..., 0, ...]), a[..., 0])
    np.testing.assert_array_equal(to_numpy(x[0, ..., ...]), a[0])
    assert x[..., None, ...].shape == (2, 3, 4, 1)
    assert x[0, 1, ..., 2, ...].item() == a[0, 1, 2]
    np.testing.assert_array_equal(to_numpy(x[..., tl.tensor([0], device=device), ...]), a[..., [0]])
    assert tl.tensor(3.0, device=device)[..., ...].shape == ()
    for index in ((0, ..., ..., 1), (..., ..., 0), (..., ..., None)):
        with pytest.raises(IndexError, match="more than one ellipsis"):
            x[index]
    y = tl.zeros(2, 3, device=device)
    y[..., ...] = tl.ones(3, device=device)
    assert y.tolist() == [[1.0] * 3] * 2


def test_scatter_reduce_inplace_gradients(device):
    # prod, mean, amax and amin's backward reads the old self: scatter_reduce_ computes from a clone
    # under autograd, as PyTorch saves one; it wrote in place and backward raised 'modified by an
    # inplace operation'. The gradients are the out-of-place ones.
    index = tl.tensor([[0, 0], [2, 1]], device=device)
    w = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=tl.float64, device=device)
    for reduce in ("prod", "mean", "amax", "amin"):
        grads = []
        for inplace in (False, True):
            x = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=tl.float64, device=device, requires_grad=True)
            src = tl.tensor([[2.0, 0.5], [7.0, 1.0]], dtype=tl.float64, device=device, requires_grad=True)
            if inplace:
                y = x * 1
                y.scatter_reduce_(1, index, src, reduce)
            else:
                y = tl.scatter_reduce(x, 1, index, src, reduce)
            (y * w).sum().backward()
            grads.append((to_numpy(x.grad), to_numpy(src.grad)))
        np.testing.assert_allclose(grads[1][0], grads[0][0])
        np.testing.assert_allclose(grads[1][1], grads[0][1])
        if reduce == "prod":
            np.testing.assert_allclose(grads[1][0], [[1.0, 2.0, 3.0], [4.0, 5.0, 42.0]])
            np.testing.assert_allclose(grads[1][1], [[0.5, 2.0], [36.0, 25.0]])


def test_scatter_reduce_takes_max_and_min_forward_only(device):
    x, index, src = (tl.tensor([5.0, -5.0], device=device), tl.tensor([0, 1, 0], device=device),
                     tl.tensor([1.0, 2.0, 3.0], device=device))
    assert x.scatter_reduce(0, index, src, "max").tolist() == [5.0, 2.0]
    assert x.scatter_reduce(0, index, src, "min", include_self=False).tolist() == [1.0, 2.0]
    assert tl.zeros(2, device=device).scatter_reduce_(0, index, src, "max").tolist() == [3.0, 2.0]
    s = src.clone().requires_grad_()
    y = x.scatter_reduce(0, index, s, "max")
    with pytest.raises(RuntimeError, match="Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' "
                                           "but got max"):
        y.sum().backward()
    with pytest.raises(RuntimeError, match="reduce argument must be either sum, prod, mean, amax or amin, got 'MAX'"):
        x.scatter_reduce(0, index, src, "MAX")


def test_gather_and_scatters_take_int32_indices(device):
    src = tl.tensor([1.0, 2.0, 3.0], device=device)
    i32 = tl.tensor([0, 1, 0], dtype=tl.int32, device=device)
    assert tl.gather(src, 0, i32).tolist() == [1.0, 2.0, 1.0]
    assert tl.zeros(2, device=device).scatter(0, i32, src).tolist() == [3.0, 2.0]
    assert tl.zeros(2, device=device).scatter(0, i32, 1.0).tolist() == [1.0, 1.0]
    assert tl.zeros(2, device=device).scatter_add(0, i32, src).tolist() == [4.0, 2.0]
    assert tl.zeros(2, device=device).scatter_reduce(0, i32, src, "mean").tolist() == pytest.approx([4 / 3, 1.0])
    x = src.clone().requires_grad_()
    tl.gather(x, 0, i32).sum().backward()
    assert x.grad.tolist() == [2.0, 1.0, 0.0]
    for call in (lambda: tl.gather(src, 0, i32.to(tl.int16)), lambda: src.scatter(0, i32.to(tl.uint8), src)):
        with pytest.raises(RuntimeError, match="Expected dtype int32 or int64 for index"):
            call()
    with pytest.raises(RuntimeError, match="dtype of indices should be int64"):  # (take_along_dim: int64 only)
        tl.take_along_dim(src, i32, 0)


def test_index_ops_on_empty_inputs_and_scalar_sources_as_pytorch(device):
    # values from torch 2.13: no index of an empty input is checked (nothing is written) ...
    e = tl.zeros(2, 0, device=device)
    assert e.index_fill(0, tl.tensor([5], device=device), 1.0).shape == (2, 0)
    assert e.index_add(0, tl.tensor([5], device=device), tl.zeros(1, 0, device=device)).shape == (2, 0)
    assert e.index_copy(0, tl.tensor([5], device=device), tl.zeros(1, 0, device=device)).shape == (2, 0)
    assert tl.zeros(0, 3, device=device).index_add(0, tl.tensor([5], device=device),
                                                   tl.ones(1, 3, device=device)).shape == (0, 3)
    with pytest.raises(IndexError, match="out of bounds"):
        tl.zeros(2, 3, device=device).index_fill(1, tl.tensor([5], device=device), 1.0)
    with pytest.raises(IndexError, match="out of bounds"):  # a 1-d input is checked even when empty
        tl.zeros(0, device=device).index_add(0, tl.tensor([0], device=device), tl.ones(1, device=device))
    # ... nor a scatter value that nothing receives
    u = tl.zeros(3, dtype=tl.uint8, device=device)
    assert u.scatter(0, tl.tensor([], dtype=tl.int64, device=device), -1.5).tolist() == [0, 0, 0]
    with pytest.raises(RuntimeError, match="without overflow"):
        u.scatter(0, tl.tensor([0], device=device), -1.5)
    # a 0-d source takes exactly one index: IndexError
    with pytest.raises(IndexError, match="index should have one element"):
        tl.zeros(3, device=device).index_copy(0, tl.tensor([0, 1], device=device), tl.tensor(2.0, device=device))
    with pytest.raises(IndexError, match="index should have one element"):
        tl.tensor(1.0, device=device).index_add(0, tl.tensor([0, 0], device=device), tl.tensor(2.0, device=device))


def test_index_copy_rank_and_count_errors_are_index_errors_as_pytorch(device):
    # torch 2.15's index_copy raises IndexError for these two (index_add: RuntimeError)
    x = tl.zeros(3, 4, device=device)
    with pytest.raises(IndexError, match=r"index_copy\(\): Number of indices \(2\) should be equal to "
                                         r"source.size\(dim\) \(3\)"):
        x.index_copy(0, tl.tensor([0, 1], device=device), tl.ones(3, 4, device=device))
    with pytest.raises(IndexError, match=r"index_copy_\(\): When source and destination are not scalars, their "
                                         r"dimensionality must match. Source dimensionality \(1\), destination "
                                         r"dimensionality \(2\)"):
        x.index_copy_(0, tl.tensor([0], device=device), tl.ones(4, device=device))
    with pytest.raises(RuntimeError, match="same slice shapes") as e:  # a slice of another size stays a RuntimeError
        x.index_copy(0, tl.tensor([0], device=device), tl.ones(1, 5, device=device))
    assert not isinstance(e.value, IndexError)
    with pytest.raises(RuntimeError, match="Number of indices") as e:
        x.index_add(0, tl.tensor([0, 1], device=device), tl.ones(3, 4, device=device))
    assert not isinstance(e.value, IndexError)
    assert x.tolist() == [[0.0] * 4] * 3


def test_scatter_reduce_mean_of_small_integers_wraps_as_pytorch(device):
    # torch 2.13: the sum wraps in uint8 (200 + 200 + 250 = 650 -> 138), then 138 // 3 = 46
    x = tl.tensor([200, 100], dtype=tl.uint8, device=device)
    src = tl.tensor([200, 250, 100], dtype=tl.uint8, device=device)
    idx = tl.tensor([0, 0, 1], device=device)
    assert x.scatter_reduce(0, idx, src, "mean").tolist() == [46, 100]
    rows = x.reshape(2, 1).expand(2, 3).contiguous()  # the row kernel (several columns per index)
    r = rows.scatter_reduce(0, idx.reshape(3, 1).expand(3, 3).contiguous(), src.reshape(3, 1).expand(3, 3).contiguous(),
                            "mean")
    assert r.tolist() == [[46] * 3, [100] * 3]


@pytest.mark.parametrize("value", [0.5, -0.25, 1e-30, float("inf"), float("nan"), 1e20, 0.0, -0.0, 2])
def test_bool_fills_take_the_values_truthiness(device, value):
    """Filling a bool tensor with a number casts it as PyTorch does, by truthiness: 0.5, inf and NaN
    are True, +-0.0 False (the kernels once truncated 0.5 to 0 and refused inf and NaN)."""
    want = bool(value != 0)
    mask = tl.tensor([True, False, True], device=device)
    idx = tl.tensor([1], device=device)
    z = lambda: tl.zeros(3, dtype=tl.bool, device=device)  # noqa: E731
    assert z().fill_(value).tolist() == [want] * 3
    assert tl.full((2,), value, dtype=tl.bool, device=device).tolist() == [want] * 2
    assert z().masked_fill(mask, value).tolist() == [want, False, want]
    assert z().index_fill(0, idx, value).tolist() == [False, want, False]
    assert z().scatter(0, idx, value).tolist() == [False, want, False]
    t = z()
    t[0] = value
    t[tl.tensor([2], device=device)] = value
    assert t.tolist() == [want, False, want]


def test_setitem_number_must_fit_the_dtype(device):
    """x[key] = number checks the number fits x's dtype (PyTorch 2.15), for every kind of key:
    300 into int8, 1e39 into float32, 70000.0 into float16 raise and leave x unchanged; a
    float16/bfloat16 target of one element (x[0], x[1:2]) takes any float (70000.0 or 1e39 is inf,
    as PyTorch); an advanced key checks even then."""
    keys = [slice(0, 2), Ellipsis, None, [0, 2], tl.tensor([True, False, True], device=device)]
    for dtype, value in ((tl.float16, 70000.0), (tl.bfloat16, 1e39), (tl.float16, 1e300), (tl.float32, 1e39),
                         (tl.int8, 300)):
        half = dtype in (tl.float16, tl.bfloat16)
        for key in keys + ([] if half else [0, slice(1, 2)]) + [[1], tl.tensor([1], device=device)]:
            x = tl.zeros(3, dtype=dtype, device=device)
            with pytest.raises(RuntimeError, match="without overflow"):
                x[key] = value
            assert x.tolist() == [0, 0, 0]
        if half:
            x[0] = value
            x[1:2] = value
            assert x.tolist() == [math.inf, math.inf, 0.0]
    x = tl.zeros(2, 2, dtype=tl.float16, device=device)
    x[0, 1] = 1e20
    assert x.tolist() == [[0.0, math.inf], [0.0, 0.0]]


@CUDA
@pytest.mark.parametrize("op", ["masked_fill_", "masked_scatter_"])
def test_masked_writes_in_place_need_no_temporary(op):
    # the dispatcher took self (read through a broadcast geometry of its own shape) for another
    # tensor and computed into a full-size temporary, then copied it back
    import gc

    x = tl.tensor(np.arange(64 * 96, dtype=np.float32).reshape(64, 96), device="cuda")
    mask = tl.tensor(np.arange(64 * 96).reshape(64, 96) % 3 == 0, device="cuda")
    source = tl.full((64 * 96,), -1.0, device="cuda")
    args = (mask, 0.5) if op == "masked_fill_" else (mask, source)
    gc.collect()
    tl.cuda.reset_peak_memory_stats()
    before = tl.cuda.memory_allocated()
    assert getattr(x, op)(*args) is x
    assert tl.cuda.max_memory_allocated() - before < x.numel() * 4  # (masked_scatter_: its count scratch)
    want = np.arange(64 * 96, dtype=np.float32).reshape(64, 96)
    want[np.arange(64 * 96).reshape(64, 96) % 3 == 0] = 0.5 if op == "masked_fill_" else -1.0
    np.testing.assert_array_equal(x.cpu().numpy(), want)


@CUDA
@pytest.mark.parametrize("dev, other", [("cpu", "cuda"), ("cuda", "cpu")])
def test_index_tensors_on_another_device_are_refused(dev, other):
    # PyTorch checks the device of every tensor argument of these ops, both ways (cuda tensors for a
    # cpu self were refused already; cpu ones for a cuda self were copied over without a word); only
    # advanced indexing takes cpu indices for a cuda tensor
    z = tl.zeros(3, device=dev)
    x, s = tl.tensor([0, 1], device=other), tl.ones(2, device=other)
    m = tl.tensor([True, False, True], device=other)
    x0, s0, m0 = tl.tensor([0, 1], device=dev), tl.ones(2, device=dev), m.to(dev)
    calls = [("scatter_add", "index", lambda: z.scatter_add(0, x, s0)),
             ("scatter_add", "src", lambda: z.scatter_add(0, x0, s)),
             ("scatter_", "src", lambda: z.scatter_(0, x0, s)),
             ("index_add", "index", lambda: z.index_add(0, x, s0)),
             ("index_add", "source", lambda: z.index_add(0, x0, s)),
             ("index_copy_", "index", lambda: z.index_copy_(0, x, s0)),
             ("index_fill_", "index", lambda: z.index_fill_(0, x, 1.0)),
             ("gather", "index", lambda: z.gather(0, x)), ("index_select", "index", lambda: z.index_select(0, x)),
             ("masked_fill", "mask", lambda: z.masked_fill(m, 1.0)),
             ("masked_select", "mask", lambda: z.masked_select(m)),
             ("masked_scatter_", "source", lambda: z.masked_scatter_(m0, s)),
             ("take", "index", lambda: z.take(x)), ("put_", "index", lambda: z.put_(x, s0)),
             ("bincount", "weights", lambda: x0.bincount(s))]
    for name, arg, call in calls:
        with pytest.raises(RuntimeError, match=rf"{name}\(\): Expected all tensors to be on the same device.*'{arg}'"):
            call()
    assert z.tolist() == [0.0, 0.0, 0.0]


@CUDA
def test_advanced_indexing_takes_cpu_indices_for_a_cuda_tensor():
    z = tl.zeros(3)
    for index in (tl.tensor([0, 1], device="cuda"), tl.tensor([True, False, True], device="cuda")):
        with pytest.raises(IndexError, match="indices should be either on cpu or on the same device"):
            z[index]
        with pytest.raises(IndexError, match="indices should be either on cpu or on the same device"):
            z[index] = 1.0
    s = tl.ones(2, device="cuda")
    assert s[tl.tensor([0])].device.type == "cuda" and s[tl.tensor([0])].tolist() == [1.0]
    s[tl.tensor([True, False])] = 3.0
    assert s.tolist() == [3.0, 1.0]


def test_empty_index_of_another_rank_gathers_nothing_and_scatters_nothing(device):
    # PyTorch checks no shapes for an empty index (its test_scatter_gather_ops "empty index" cases)
    e1 = tl.tensor([], dtype=tl.int64, device=device)
    e2 = tl.zeros((0, 5), dtype=tl.int64, device=device)
    x = tl.ones((2, 2), device=device, requires_grad=True)
    for index in (e1, e2):
        got = tl.gather(x, 0, index)
        assert got.shape == index.shape and got.dtype is tl.float32
        got.sum().backward()
        assert to_numpy(x.grad).tolist() == [[0.0, 0.0], [0.0, 0.0]]
        x.grad = None
    ones = tl.ones((2, 2), device=device)
    for y in (ones.clone().scatter_(0, e1, ones), ones.clone().scatter_add_(0, e2, ones),
              ones.clone().scatter_reduce_(0, e1, ones, "amax"), ones.clone().scatter_(0, e1, 2.0, reduce="add")):
        assert to_numpy(y).tolist() == [[1.0, 1.0], [1.0, 1.0]]
    src = tl.ones((2, 2), device=device, requires_grad=True)
    (x * 1).scatter_add(0, e1, src).sum().backward()
    assert to_numpy(src.grad).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert to_numpy(x.grad).tolist() == [[1.0, 1.0], [1.0, 1.0]]


def test_list_index_of_ranges_is_a_tuple_and_float_sequences_truncate(device):
    # PyTorch's (NumPy's legacy) rule reads a short list holding a sequence, a range included, as a tuple;
    # x[[range(2), range(2)]] took whole rows here. A list or array of floats is an int64 index there.
    a = tl.arange(12.0, device=device).view(3, 4)
    assert a[[range(3)]].shape == (3, 4)
    assert to_numpy(a[[range(2), range(2)]]).tolist() == [0.0, 5.0]
    with pytest.raises(IndexError):
        tl.arange(10.0, device=device)[[range(i, i + 2) for i in range(3)]]
    assert to_numpy(a[[1.7]]).tolist() == [[4.0, 5.0, 6.0, 7.0]]
    assert to_numpy(a[np.array([1.9, 2.1])]).tolist() == [[4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]]
    assert to_numpy(a[:, [1.5]]).tolist() == [[1.0], [5.0], [9.0]]
    assert to_numpy(a[[True, 1.5]]).tolist() == [[4.0, 5.0, 6.0, 7.0]] * 2
    b = a.clone()
    b[[1.7]] = -1
    assert to_numpy(b[1]).tolist() == [-1.0] * 4
    with pytest.raises(IndexError, match="must be long, int, byte or bool"):
        a[tl.tensor([1.0], device=device)]  # a float tensor stays refused


def test_unravel_index_wants_int_shapes(device):
    i = tl.tensor([1], device=device)
    with pytest.raises(TypeError, match="expected 'shape' sequence to only contain ints"):
        tl.unravel_index(i, (1, 2, 2.0))
    with pytest.raises(TypeError, match="expected 'shape' to be int or sequence of ints"):
        tl.unravel_index(i, tl.tensor([1, 2, 3]))
    coords = tl.unravel_index(tl.tensor([5], device=device), tl.Size([3, 4]))
    assert [to_numpy(c).tolist() for c in coords] == [[1], [1]]


def test_scatter_into_a_0d_tensor_takes_one_source_per_index(device):
    # values from torch 2.15: a 0-d self counts as 1-d, and each index element brings its own source
    # (the cpu twin took the first source for all of them: 0.6 where PyTorch has 0.8)
    i = tl.zeros(2, dtype=tl.int64, device=device)
    src = tl.tensor([0.3, 0.5], device=device)
    zero = tl.zeros((), device=device)
    assert tl.scatter_add(zero, 0, i, src).item() == pytest.approx(0.8)
    assert tl.scatter(zero, 0, i, src).item() == pytest.approx(0.5)
    assert zero.scatter_reduce(0, i, src, "amax").item() == pytest.approx(0.5)
    assert zero.scatter_reduce(0, i, src, "mean", include_self=False).item() == pytest.approx(0.4)
    x = tl.tensor(1.5, device=device, requires_grad=True)
    tl.gather(x, 0, i).backward(src)
    assert x.grad.item() == pytest.approx(0.8)
