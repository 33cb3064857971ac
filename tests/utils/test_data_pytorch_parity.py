"""tensorlab.utils.data against torch.utils.data (torch 2.15): the values, dtypes, errors and warnings
below were observed with PyTorch and are written in as known values (the tests do not import torch).

Covers default_collate's dtype promotion for numpy inputs and its dispatch on ``batch[0]`` (any
sequence as a batch), ``StackDataset.__getitems__`` and its use by the DataLoader, the
ConcatDataset / TensorDataset error types, and the warning for an IterableDataset that yields
more than its reported length.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.utils.data import (
    ConcatDataset,
    DataLoader,
    Dataset,
    IterableDataset,
    StackDataset,
    TensorDataset,
    default_collate,
)

# ---------------------------------------------------------------------------------------------
# default_collate: numpy dtypes promote with torch's rules
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("batch, dtype, values", [
    ([np.zeros(2, np.int64), np.ones(2, np.float32)], tl.float32, [[0.0, 0.0], [1.0, 1.0]]),
    ([np.zeros(2, np.int32), np.ones(2, np.float16)], tl.float16, [[0.0, 0.0], [1.0, 1.0]]),
    ([np.zeros(2, np.uint8), np.ones(2, np.int8)], tl.int16, [[0, 0], [1, 1]]),
    ([np.zeros(2, np.bool_), np.ones(2, np.uint8)], tl.uint8, [[0, 0], [1, 1]]),
    ([np.zeros(2, np.float32), np.ones(2, np.float64)], tl.float64, [[0.0, 0.0], [1.0, 1.0]]),
    ([np.array(1, np.int64), np.array(2.5, np.float32)], tl.float32, [1.0, 2.5]),
])
def test_collate_numpy_arrays_promote_like_torch(batch, dtype, values):
    out = default_collate(batch)
    assert out.dtype == dtype and out.tolist() == values


def test_collate_numpy_array_with_tensor_promotes_like_torch():
    out = default_collate([np.zeros(2, np.int64), tl.ones(2, dtype=tl.float32)])
    assert out.dtype == tl.float32 and out.tolist() == [[0.0, 0.0], [1.0, 1.0]]


@pytest.mark.parametrize("batch, dtype, values", [
    ([np.int64(1), np.float16(2.5)], tl.float16, [1.0, 2.5]),
    ([np.int32(1), np.float32(2.5)], tl.float32, [1.0, 2.5]),
    ([np.uint8(1), np.int8(2)], tl.int16, [1, 2]),
    ([np.float32(1), np.float64(2)], tl.float64, [1.0, 2.0]),
    ([np.int16(1), np.int64(2)], tl.int64, [1, 2]),
    ([np.float16(1), np.float16(2)], tl.float16, [1.0, 2.0]),
    ([np.bool_(True), np.bool_(False)], tl.bool, [True, False]),
    # a Python number among numpy scalars counts as torch.as_tensor infers it
    ([np.float16(1), 2.5], tl.float32, [1.0, 2.5]),
    ([np.float32(1), 2.5], tl.float32, [1.0, 2.5]),
    ([np.int32(1), 2], tl.int64, [1, 2]),
    ([np.float64(1), 2], tl.float64, [1.0, 2.0]),
    ([np.int8(1), True], tl.int8, [1, 1]),
])
def test_collate_numpy_scalars_promote_like_torch(batch, dtype, values):
    out = default_collate(batch)
    assert out.dtype == dtype and out.tolist() == values


# ---------------------------------------------------------------------------------------------
# default_collate: the dispatch looks at batch[0] only, so any sequence is a batch
# ---------------------------------------------------------------------------------------------


def test_collate_numpy_array_batch():
    strs = np.array(["a", "b", "c"])
    assert default_collate(strs) is strs  # torch returns the array unchanged
    out = default_collate(np.array([1, 2, 3]))
    assert isinstance(out, tl.Tensor) and out.dtype == tl.int64 and out.tolist() == [1, 2, 3]
    out = default_collate(np.array([1, 2, 3], np.float32))
    assert out.dtype == tl.float32 and out.tolist() == [1.0, 2.0, 3.0]
    out = default_collate(np.ones((2, 3), np.float32))  # rows are arrays: stacked
    assert out.dtype == tl.float32 and out.tolist() == [[1.0] * 3] * 2
    assert default_collate(np.array([{}, {}], dtype=object)) == {}


def test_collate_other_sequences_as_batch():
    out = default_collate((1, 2, 3))
    assert out.dtype == tl.int64 and out.tolist() == [1, 2, 3]
    out = default_collate(range(3))
    assert out.dtype == tl.int64 and out.tolist() == [0, 1, 2]
    assert default_collate("abc") == "abc"
    with pytest.raises(IndexError):
        default_collate([])
    with pytest.raises(IndexError):
        default_collate(())


# ---------------------------------------------------------------------------------------------
# StackDataset.__getitems__
# ---------------------------------------------------------------------------------------------


class Plain(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        if not 0 <= i < 5:
            raise IndexError(f"index {i} out of range")
        return i * 2


class Batched(Dataset):
    """Has __getitems__; ``short`` makes it return one item too few."""

    def __init__(self, short=False):
        self.short = short
        self.calls = []

    def __len__(self):
        return 5

    def __getitem__(self, i):
        raise AssertionError("__getitem__ should not be called: __getitems__ exists")

    def __getitems__(self, indices):
        self.calls.append(list(indices))
        out = [("b", 100 + i) for i in indices]
        return out[:-1] if self.short else out


def test_stack_dataset_getitems_tuples():
    b = Batched()
    ds = StackDataset(Plain(), b)
    assert ds.__getitems__([0, 3, 1, 4]) == [(0, ("b", 100)), (6, ("b", 103)), (2, ("b", 101)), (8, ("b", 104))]
    assert b.calls == [[0, 3, 1, 4]]  # one batched call
    assert StackDataset(Plain(), Plain()).__getitems__([]) == []
    out = StackDataset(Plain(), TensorDataset(tl.arange(5))).__getitems__([1, 2])
    assert [(a, len(t), t[0].item()) for a, t in out] == [(2, 1, 1), (4, 1, 2)]


def test_stack_dataset_getitems_dicts():
    ds = StackDataset(a=Plain(), b=Batched())
    assert ds.__getitems__([0, 3]) == [{"a": 0, "b": ("b", 100)}, {"a": 6, "b": ("b", 103)}]


def test_stack_dataset_getitems_errors():
    with pytest.raises(ValueError, match=r"^Nested dataset's output size mismatch. Expected 4, got 3$"):
        StackDataset(Plain(), Batched(short=True)).__getitems__([0, 3, 1, 4])
    with pytest.raises(ValueError, match=r"^Nested dataset's output size mismatch. Expected 3, got 2$"):
        StackDataset(a=Batched(short=True)).__getitems__([0, 3, 1])
    with pytest.raises(IndexError, match="index 7 out of range"):
        StackDataset(Plain(), Batched()).__getitems__([0, 7])


def test_dataloader_uses_stack_dataset_getitems():
    b = Batched()
    batches = list(DataLoader(StackDataset(Plain(), b), batch_size=2))
    assert b.calls == [[0, 1], [2, 3], [4]]
    assert [x.tolist() for x, _ in batches] == [[0, 2], [4, 6], [8]]
    assert [(tags, n.tolist()) for _, (tags, n) in batches] == [
        (("b", "b"), [100, 101]), (("b", "b"), [102, 103]), (("b",), [104])]


# ---------------------------------------------------------------------------------------------
# error types
# ---------------------------------------------------------------------------------------------


class It(IterableDataset):
    def __init__(self, n=4):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n

    def __repr__(self):
        return "It()"


def test_error_types_follow_torch():
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        ConcatDataset([Plain(), It()])
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        TensorDataset(tl.zeros(4), tl.zeros(3))
    with pytest.raises(IndexError):
        TensorDataset(tl.tensor(1.0))
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(Plain(), TensorDataset(tl.zeros(3)))


# ---------------------------------------------------------------------------------------------
# IterableDataset yielding more than len(dataset)
# ---------------------------------------------------------------------------------------------


def _run(loader):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        n = sum(1 for _ in loader)
    return n, [str(w.message) for w in caught if "Length of IterableDataset" in str(w.message)]


def test_iterable_dataset_length_warning_with_workers():
    loader = DataLoader(It(), batch_size=1, num_workers=2)
    assert len(loader) == 4
    n, msgs = _run(loader)  # each worker iterates the whole (unsharded) dataset
    assert n == 8 and len(msgs) == 4
    assert msgs[0] == (
        "Length of IterableDataset It() was reported to be 4(when accessing len(dataloader)), but 5 samples have "
        "been fetched. For multiprocessing data-loading, this could be caused by not properly configuring the "
        "IterableDataset replica at each worker. Please see "
        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
    assert "but 8 samples have been fetched" in msgs[-1]


def test_iterable_dataset_length_warning_needs_len_called():
    n, msgs = _run(DataLoader(It(), batch_size=1, num_workers=2))  # len(loader) never asked: no warning
    assert n == 8 and msgs == []


def test_iterable_dataset_length_warning_single_process():
    loader = DataLoader(It(), batch_size=1)
    assert len(loader) == 4
    assert _run(loader) == (4, [])
    loader = DataLoader(It(6), batch_size=None)
    loader.__len__()
    loader.dataset.n = 8  # yields more than it reported
    n, msgs = _run(loader)
    assert n == 8 and len(msgs) == 2
    assert msgs[0] == ("Length of IterableDataset It() was reported to be 6(when accessing len(dataloader)), but "
                       "7 samples have been fetched. ")
