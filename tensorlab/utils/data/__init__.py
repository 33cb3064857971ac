"""tensorlab.utils.data: datasets, samplers and the multiprocessing DataLoader (PyTorch's ``torch.utils.data``).

See :mod:`tensorlab.utils.data.dataloader` for the process model (workers, shared memory,
seeding, ordering) and fault handling.
"""

from __future__ import annotations

from . import distributed
from ._worker import WorkerInfo, get_worker_info
from .collate import collate, default_collate, default_convert
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .distributed import DistributedSampler
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "BatchSampler",
    "ChainDataset",
    "ConcatDataset",
    "DataLoader",
    "Dataset",
    "DistributedSampler",
    "IterableDataset",
    "RandomSampler",
    "Sampler",
    "SequentialSampler",
    "StackDataset",
    "Subset",
    "SubsetRandomSampler",
    "TensorDataset",
    "WeightedRandomSampler",
    "WorkerInfo",
    "collate",
    "default_collate",
    "default_convert",
    "get_worker_info",
    "random_split",
]
