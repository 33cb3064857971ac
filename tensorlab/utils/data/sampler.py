"""Samplers: the order in which a DataLoader visits a map-style dataset (PyTorch's ``torch.utils.data.sampler``).

All randomness comes from tensorlab generators (``tensorlab.randperm``, ``tensorlab.randint``,
``tensorlab.rand`` with ``generator=``), so a seeded :class:`tensorlab.Generator` (or
``tensorlab.manual_seed``) reproduces the order. Samplers run in the main process only; workers
receive the indices.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Iterator, Sequence
from typing import Generic, TypeVar

import numpy as np

__all__ = ["BatchSampler", "RandomSampler", "Sampler", "SequentialSampler", "SubsetRandomSampler",
           "WeightedRandomSampler"]


T_co = TypeVar("T_co", covariant=True)


class Sampler(Generic[T_co]):
    """Base class: subclasses implement ``__iter__`` (indices or lists of indices) and usually ``__len__``."""

    def __init__(self, data_source=None) -> None:
        pass

    def __iter__(self) -> Iterator:
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


def _is_positive_int(x) -> bool:
    return isinstance(x, numbers.Integral) and not isinstance(x, bool) and x > 0


def _fresh_generator(generator):
    """PyTorch's rule: with no generator, a sampler draws a seed from the default generator at the
    start of every pass and uses a private generator for the pass."""
    from ... import _random

    if generator is not None:
        return generator
    return _random.Generator().manual_seed(draw_seed(None))


def draw_seed(generator) -> int:
    """A seed in [0, 2**63) drawn from ``generator`` (tensorlab's default cpu generator when None),
    as PyTorch's ``torch.empty((), dtype=torch.int64).random_(generator=g).item()``."""
    from ... import _dtype, _factories

    return int(_factories.empty((), dtype=_dtype.int64).random_(generator=generator).item())


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation (``replacement=False``) or ``num_samples`` draws with replacement.

    Without replacement and ``num_samples > len(data_source)``, whole permutations follow one
    another (PyTorch's behaviour).
    """

    def __init__(self, data_source, replacement: bool = False, num_samples: int | None = None,
                 generator=None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not _is_positive_int(self.num_samples):
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        from ... import _random

        n = len(self.data_source)
        generator = _fresh_generator(self.generator)
        if self.replacement:
            # Chunks of 32, as PyTorch draws them: short passes cost little, long ones stream.
            for _ in range(self.num_samples // 32):
                yield from _random.randint(0, n, (32,), generator=generator).tolist()
            rest = self.num_samples % 32
            if rest:
                yield from _random.randint(0, n, (rest,), generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _random.randperm(n, generator=generator).tolist()
            rest = self.num_samples % n
            if rest:
                yield from _random.randperm(n, generator=generator).tolist()[:rest]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (a fresh permutation every pass)."""

    def __init__(self, indices: Sequence[int], generator=None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        from ... import _random

        for i in _random.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``.

    With replacement: inverse-CDF sampling — ``searchsorted(cumsum(weights), u * total)`` for
    uniforms ``u`` from ``tensorlab.rand(..., generator=)``. Without replacement: exponential
    race (Efraimidis–Spirakis): the ``num_samples`` smallest keys ``-log(u_i) / w_i``, which is the
    same distribution as drawing one index at a time and removing it. Either way the uniforms
    come from a tensorlab generator (the default one when ``generator`` is None), so seeds
    reproduce.

    As in PyTorch, ``weights`` is kept as a float64 tensor and its values are checked when the
    sampler is iterated, with ``torch.multinomial``'s ``RuntimeError`` messages (negative, inf or nan
    weights, a zero sum, more draws without replacement than weights); without replacement, once
    the non-zero weights are used up, zero-weight indices follow.
    """

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True, generator=None) -> None:
        from ... import _dtype, _factories

        if not _is_positive_int(num_samples):
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        # A float64 tensor, as PyTorch's ``torch.as_tensor(weights, dtype=torch.double)``. Like
        # PyTorch, the values are checked when the sampler is iterated (torch.multinomial's checks).
        weights_tensor = _factories.as_tensor(weights, dtype=_dtype.float64)
        if weights_tensor.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = int(num_samples)
        self.replacement = replacement
        self.generator = generator

    def _checked_weights(self) -> np.ndarray:
        """The weights as numpy, with the errors (types and messages) of ``torch.multinomial``."""
        w = np.asarray(self.weights.detach()._host_array(), dtype=np.float64)
        bad = ~(np.isfinite(w) & (w >= 0))
        if not self.replacement and self.num_samples > w.size:
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        if bad.any():
            if not self.replacement or self.num_samples == 1:
                raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
            if np.isinf(w[np.flatnonzero(bad)[0]]):
                raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or "
                                   "NaN)")
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if not w.sum() > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        return w

    def __iter__(self) -> Iterator[int]:
        from ... import _dtype, _random

        w = self._checked_weights()
        u = _random.rand(self.num_samples if self.replacement else w.size, generator=self.generator,
                         dtype=_dtype.float64).numpy()
        if self.replacement:
            # A zero-weight category has an empty interval: searchsorted(side="right") skips it.
            # u * total can round up to total itself, hence the clamp to the last positive weight.
            cdf = np.cumsum(w)
            idx = np.searchsorted(cdf, u * cdf[-1], side="right")
            idx = np.minimum(idx, int(np.flatnonzero(w)[-1]))
        else:
            # Zero weights give keys inf (or nan for u == 0), which sort after every finite key:
            # as PyTorch's, once the categories of non-zero weight are used up, zero-weight ones follow.
            with np.errstate(divide="ignore", invalid="ignore"):
                keys = -np.log1p(-u) / w  # -log(1 - u): u in [0, 1) keeps it finite
            idx = np.argsort(keys, kind="stable")[: self.num_samples]
        yield from idx.tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the indices of ``sampler`` into lists of ``batch_size`` (the last one shorter unless ``drop_last``)."""

    def __init__(self, sampler: Sampler | Iterable[int], batch_size: int, drop_last: bool) -> None:
        if not _is_positive_int(batch_size):
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
