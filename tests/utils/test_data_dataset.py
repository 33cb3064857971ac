"""Datasets: TensorDataset, StackDataset, ConcatDataset, ChainDataset, Subset, random_split."""

from __future__ import annotations

import numpy as np
import pytest

import tensorlab as tl
from tensorlab.utils.data import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)


class Range(Dataset):
    def __init__(self, start, stop):
        self.start, self.stop = start, stop

    def __len__(self):
        return self.stop - self.start

    def __getitem__(self, i):
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.start + i


class It(IterableDataset):
    def __init__(self, values):
        self.values = values

    def __iter__(self):
        return iter(self.values)

    def __len__(self):
        return len(self.values)


def test_base_classes_raise_not_implemented():
    with pytest.raises(NotImplementedError, match="__getitem__"):
        Dataset()[0]
    with pytest.raises(NotImplementedError, match="__iter__"):
        iter(IterableDataset())


def test_tensor_dataset():
    x = tl.arange(12, dtype=tl.float32).reshape(4, 3)
    y = tl.tensor([0, 1, 0, 1])
    ds = TensorDataset(x, y)
    assert len(ds) == 4
    xi, yi = ds[2]
    assert xi.tolist() == [6.0, 7.0, 8.0] and yi.item() == 0
    nd = TensorDataset(np.arange(6).reshape(3, 2))
    assert nd[1][0].tolist() == [2, 3]
    with pytest.raises(AssertionError, match=r"Size mismatch between tensors: first dimensions are \[4, 3\]"):
        TensorDataset(x, tl.zeros(3))
    with pytest.raises(ValueError, match="at least one"):
        TensorDataset()
    with pytest.raises(IndexError, match="at least one dimension"):
        TensorDataset(tl.tensor(1.0))
    with pytest.raises(IndexError, match="at least one dimension"):
        TensorDataset(x, tl.tensor(1.0))
    # the tensors are checked in order: a mismatch before a 0-d tensor is PyTorch's AssertionError
    with pytest.raises(AssertionError, match=r"first dimensions are \[4, 3\]"):
        TensorDataset(x, tl.zeros(3), tl.tensor(1.0))


def test_stack_dataset():
    a, b = Range(0, 3), Range(10, 13)
    assert StackDataset(a, b)[1] == (1, 11)
    assert StackDataset(x=a, y=b)[2] == {"x": 2, "y": 12}
    assert len(StackDataset(a, b)) == 3
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        StackDataset(a, Range(0, 4))
    with pytest.raises(ValueError, match="not both"):
        StackDataset(a, y=b)


def test_concat_dataset():
    ds = ConcatDataset([Range(0, 3), Range(10, 12), Range(20, 20), Range(30, 31)])
    assert len(ds) == 6
    assert [ds[i] for i in range(6)] == [0, 1, 2, 10, 11, 30]
    assert ds[-1] == 30 and ds[-6] == 0
    assert ds.cumulative_sizes == [3, 5, 5, 6]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        ds[-7]
    with pytest.raises(IndexError, match="index 6 is out of range"):
        ds[6]
    added = Range(0, 2) + Range(5, 6)
    assert isinstance(added, ConcatDataset) and [added[i] for i in range(3)] == [0, 1, 5]
    with pytest.raises(AssertionError, match="should not be an empty iterable"):
        ConcatDataset([])
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        ConcatDataset([Range(0, 1), It([1])])


def test_chain_dataset():
    ds = ChainDataset([It([1, 2]), It([]), It([3])])
    assert list(ds) == [1, 2, 3] and len(ds) == 3
    assert list(It([1]) + It([2])) == [1, 2]
    # AssertionError, as PyTorch's, when iterated or measured (PyTorch yields the datasets before the bad one)
    chained = ChainDataset([It([1]), Range(0, 2)])
    it = iter(chained)
    assert next(it) == 1
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset, got Range"):
        next(it)
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset, got Range"):
        len(chained)


def test_subset():
    s = Subset(Range(100, 110), [4, 0, 9])
    assert len(s) == 3 and [s[i] for i in range(3)] == [104, 100, 109]
    assert s.__getitems__([2, 0]) == [109, 104]


def test_random_split_lengths_reproducible_and_disjoint():
    ds = Range(0, 20)
    a = random_split(ds, [5, 15], generator=tl.Generator().manual_seed(0))
    b = random_split(ds, [5, 15], generator=tl.Generator().manual_seed(0))
    c = random_split(ds, [5, 15], generator=tl.Generator().manual_seed(1))
    assert [len(s) for s in a] == [5, 15]
    assert a[0].indices == b[0].indices and a[1].indices == b[1].indices
    assert a[0].indices != c[0].indices
    assert sorted(a[0].indices + a[1].indices) == list(range(20))
    # the permutation is tensorlab.randperm's
    perm = tl.randperm(20, generator=tl.Generator().manual_seed(0)).tolist()
    assert a[0].indices == perm[:5] and a[1].indices == perm[5:]


def test_random_split_fractions():
    parts = random_split(Range(0, 10), [0.5, 0.3, 0.2], generator=tl.Generator().manual_seed(3))
    assert [len(p) for p in parts] == [5, 3, 2]
    parts = random_split(Range(0, 11), [0.34, 0.33, 0.33], generator=tl.Generator().manual_seed(3))
    # floor: 3, 3, 3 -> the remainder 2 goes round robin, one each to the first two
    assert [len(p) for p in parts] == [4, 4, 3]
    with pytest.warns(UserWarning, match="length of split at index 1 is 0"):
        random_split(Range(0, 2), [0.9, 0.1])


def test_random_split_takes_tensor_lengths():
    parts = random_split(Range(0, 10), tl.tensor([3, 7]), generator=tl.Generator().manual_seed(0))
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    assert all(type(i) is int for i in parts[0].indices)


def test_random_split_default_generator_follows_manual_seed():
    tl.manual_seed(5)
    a = random_split(Range(0, 8), [4, 4])
    tl.manual_seed(5)
    b = random_split(Range(0, 8), [4, 4])
    assert a[0].indices == b[0].indices


def test_random_split_errors():
    with pytest.raises(ValueError, match=r"Sum of input lengths \(9\) does not equal the length of the input dataset "
                                         r"\(10\)"):
        random_split(Range(0, 10), [4, 5])
    with pytest.raises(ValueError, match=r"fraction at index 0 is not between 0 and 1 \(got 1.5\)"):
        random_split(Range(0, 10), [1.5, -0.5])


def test_generic_classes_take_a_type_parameter():
    # PyTorch's are typing.Generic (its Sampler docs subclass Sampler[int])
    from tensorlab.utils.data import ConcatDataset, DataLoader, Dataset, IterableDataset, Sampler, Subset

    class Squares(Dataset[int]):
        def __getitem__(self, i):
            return i * i

        def __len__(self):
            return 4

    class Backwards(Sampler[int]):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n - 1, -1, -1))

        def __len__(self):
            return self.n

    loader: DataLoader[int] = DataLoader(Subset[int](Squares(), [1, 2, 3]), sampler=Backwards(3), batch_size=None)
    assert [int(x) for x in loader] == [9, 4, 1]
    assert IterableDataset[int] is not None and ConcatDataset[int] is not None
    with pytest.raises(TypeError):
        TensorDataset[int]  # noqa: B018 (not generic, as PyTorch's)
