"""``DistributedSampler`` (PyTorch's ``torch.utils.data.distributed``): one replica's share of a dataset.

tensorlab has no process group (``tensorlab.distributed.is_available()`` is False), so, as in a
PyTorch build without the distributed package, ``num_replicas`` and ``rank`` must be given; the
split (padding by wrapping around, or ``drop_last``) is PyTorch's. The shuffle is a
``tensorlab.randperm`` seeded with ``seed + epoch`` — the same order on every replica, but not
PyTorch's numbers (the generators differ).
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            # (PyTorch asks the process group for the missing one; there is none here)
            raise RuntimeError("Requires distributed package to be available")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if drop_last and len(dataset) % num_replicas != 0:
            # the largest length every replica can have without repeating a sample
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        if self.shuffle:
            from ..._random import Generator, randperm

            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:  # wrap around so that every replica gets num_samples indices
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """The epoch mixed into the shuffle's seed: call it before each epoch for a new order."""
        self.epoch = epoch
