"""``DistributedSampler`` (PyTorch's ``torch.utils.data.distributed``): the indices one replica of a
data-parallel job reads.

Every replica orders the whole dataset the same way (a permutation seeded with ``seed + epoch``, or
the natural order) and takes every ``num_replicas``-th index starting at its ``rank``, so the
replicas' shares are disjoint and equally long — equal lengths keep collective ops in step. When
the dataset does not divide evenly, the order is either extended by wrapping around to its start
(each replica gets ``ceil(n / num_replicas)`` indices, a few samples are seen twice) or, with
``drop_last``, cut to the largest multiple of ``num_replicas`` (``n // num_replicas`` each).

tensorlab has no process group (``tensorlab.distributed.is_available()`` is False), so, as in a
PyTorch build without the distributed package, ``num_replicas`` and ``rank`` must be given. The
shuffle uses tensorlab's generator: the same order on every replica, not PyTorch's numbers.
"""

from __future__ import annotations

from collections.abc import Iterator

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            # PyTorch would ask the process group for them; without one it refuses with this message
            raise RuntimeError("Requires distributed package to be available")
        if not 0 <= rank < num_replicas:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.shuffle = shuffle
        self.seed = seed
        self.drop_last = drop_last
        self.epoch = 0
        n = len(dataset)
        self.num_samples = n // num_replicas if drop_last else -(-n // num_replicas)
        self.total_size = self.num_samples * num_replicas

    def _order(self) -> list[int]:
        """The whole dataset's order, identical on every replica."""
        n = len(self.dataset)
        if not self.shuffle:
            return list(range(n))
        from ..._random import Generator, randperm

        generator = Generator()
        generator.manual_seed(self.seed + self.epoch)
        return randperm(n, generator=generator).tolist()

    def __iter__(self) -> Iterator[int]:
        order = self._order()
        # wrap around (or cut) to total_size, then this replica's stride through it
        evened = [order[i % len(order)] for i in range(self.total_size)] if order else []
        return iter(evened[self.rank::self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """The epoch mixed into the shuffle's seed: call it before each epoch for a new order."""
        self.epoch = epoch
