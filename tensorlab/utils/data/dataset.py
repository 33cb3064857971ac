"""Datasets: ``Dataset``, ``IterableDataset``, ``TensorDataset``, ``StackDataset``, ``ConcatDataset``,
``ChainDataset``, ``Subset`` and ``random_split`` — PyTorch's ``torch.utils.data.dataset``.

A map-style dataset answers ``dataset[i]`` (and usually ``len(dataset)``); an iterable-style
dataset is iterated. ``random_split`` draws its permutation from a tensorlab :class:`Generator`
(``tensorlab.randperm``), so a seed reproduces the split.
"""

from __future__ import annotations

import bisect
import math
import numbers
import warnings
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

__all__ = ["ChainDataset", "ConcatDataset", "Dataset", "IterableDataset", "StackDataset", "Subset", "TensorDataset",
           "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses implement ``__getitem__`` (and usually ``__len__``).

    A subclass may also implement ``__getitems__(indices) -> list of samples`` to fetch a whole
    batch at once; the DataLoader then calls it instead of ``__getitem__`` per index.
    """

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """An iterable-style dataset: subclasses implement ``__iter__``.

    With ``num_workers > 0`` every worker iterates its own copy of the dataset, so (as in
    PyTorch) sharding is the dataset's job: use :func:`get_worker_info` inside ``__iter__`` (or in
    ``worker_init_fn``) to make each worker yield a different part, or every sample appears once
    per worker.
    """

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")

    def __add__(self, other: Dataset) -> ChainDataset:
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are slices along the first dimension of each tensor (or numpy array)."""

    def __init__(self, *tensors):
        if not tensors:
            raise ValueError("TensorDataset: expected at least one tensor")
        n = _first_dim(tensors[0])
        sizes = []
        for t in tensors:  # in order, stopping at the first mismatch: a 0-d tensor after it is not looked at,
            sizes.append(_first_dim(t))  # so the error is the mismatch's AssertionError, as PyTorch's
            if sizes[-1] != n:
                raise AssertionError(f"Size mismatch between tensors: first dimensions are {sizes}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return _first_dim(self.tensors[0])


def _first_dim(t) -> int:
    shape = getattr(t, "shape", None)
    if shape is None or len(shape) == 0:  # PyTorch: IndexError from tensor.size(0)
        raise IndexError(f"TensorDataset: expected tensors with at least one dimension, got {type(t).__name__} "
                         f"of shape {None if shape is None else tuple(shape)}")
    return int(shape[0])


class StackDataset(Dataset[T_co]):
    """Samples are tuples (``StackDataset(a, b)``) or dicts (``StackDataset(x=a, y=b)``) of the
    samples of datasets of equal length."""

    def __init__(self, *args: Dataset, **kwargs: Dataset):
        if args and kwargs:
            raise ValueError("StackDataset: give datasets either as positional (tuple samples) or keyword "
                             "(dict samples) arguments, not both")
        datasets = list(args) if args else list(kwargs.values())
        if not datasets:
            raise ValueError("StackDataset: at least one dataset is required")
        lengths = [len(d) for d in datasets]
        if any(n != lengths[0] for n in lengths):
            raise ValueError(f"Size mismatch between datasets: lengths {lengths}")
        self._length = lengths[0]
        self.datasets = tuple(args) if args else dict(kwargs)

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list) -> list:
        """A batch of samples (tuples or dicts); a dataset that has ``__getitems__`` fetches its
        column of the batch at once, and must return one item per index."""
        keyed = isinstance(self.datasets, dict)
        columns = []
        for dataset in self.datasets.values() if keyed else self.datasets:
            getitems = getattr(dataset, "__getitems__", None)
            if callable(getitems):
                items = getitems(indices)
                if len(items) != len(indices):
                    raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, "
                                     f"got {len(items)}")
            else:
                items = [dataset[i] for i in indices]
            columns.append(items)
        if keyed:
            keys = list(self.datasets)
            return [dict(zip(keys, sample, strict=True)) for sample in zip(*columns, strict=True)]
        return list(zip(*columns, strict=True))

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """The concatenation of map-style datasets (``a + b``)."""

    @staticmethod
    def cumsum(sequence) -> list[int]:
        r, s = [], 0
        for e in sequence:
            s += len(e)
            r.append(s)
        return r

    def __init__(self, datasets: Iterable[Dataset]):
        self.datasets = list(datasets)
        # AssertionError for both, as PyTorch's
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset (use ChainDataset)")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        idx = _as_index(idx, "ConcatDataset")
        if idx < 0:
            if -idx > len(self):
                raise ValueError(f"ConcatDataset: absolute value of index should not exceed dataset length "
                                 f"(index {idx}, length {len(self)})")
            idx = len(self) + idx
        if idx >= len(self):
            raise IndexError(f"ConcatDataset: index {idx} is out of range for a dataset of length {len(self)}")
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


def _as_index(idx, where: str) -> int:
    if isinstance(idx, bool) or not isinstance(idx, numbers.Integral):
        try:
            return int(idx.__index__())
        except (AttributeError, TypeError):
            raise TypeError(f"{where}: indices must be integers, got {type(idx).__name__}") from None
    return int(idx)


class ChainDataset(IterableDataset):
    """Iterable datasets chained one after another (``a + b`` for iterable datasets)."""

    def __init__(self, datasets: Iterable[Dataset]):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            _check_chainable(d)
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            _check_chainable(d)
            total += len(d)
        return total


def _check_chainable(d) -> None:
    if not isinstance(d, IterableDataset):  # AssertionError, as PyTorch's (and as ConcatDataset's checks here)
        raise AssertionError(f"ChainDataset only supports IterableDataset, got {type(d).__name__}")


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices: list[int]) -> list:
        # Forward batched fetches when the wrapped dataset supports them.
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset, lengths: Sequence[int | float], generator=None) -> list[Subset]:
    """Split ``dataset`` into non-overlapping random subsets of the given lengths.

    ``lengths`` are either integers summing to ``len(dataset)`` or fractions summing to 1 (each
    part gets ``floor(frac * len)`` samples and the remainder is handed out one by one, round
    robin, as in PyTorch). The permutation is ``tensorlab.randperm(len, generator=generator)``
    (tensorlab's default cpu generator when None), so a seeded generator reproduces the split.
    """
    from ... import _random
    from ..._tensor import Tensor

    lengths = [x.item() if isinstance(x, Tensor) else x for x in lengths]  # (PyTorch takes 0-d tensors too)
    n = len(dataset)
    if lengths and math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"random_split: fraction at index {i} is not between 0 and 1 (got {frac})")
            counts.append(int(math.floor(n * frac)))
        remainder = n - sum(counts)
        for i in range(remainder):
            counts[i % len(counts)] += 1
        for i, c in enumerate(counts):
            if c == 0:
                warnings.warn(f"random_split: length of split at index {i} is 0. This might result in an empty "
                              "dataset.")
        lengths = counts
    if any(isinstance(x, float) or x < 0 for x in lengths):
        raise ValueError(f"random_split: lengths must be non-negative integers or fractions summing to 1, "
                         f"got {lengths}")
    if sum(lengths) != n:
        raise ValueError(f"random_split: Sum of input lengths ({sum(lengths)}) does not equal the length of the "
                         f"input dataset ({n})!")
    perm = _random.randperm(sum(lengths), generator=generator).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[offset:offset + length]))
        offset += length
    return out
