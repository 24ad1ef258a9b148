"""``nnbook.utils.data``: datasets, samplers and the DataLoader, with PyTorch's names.

    from nnbook.utils.data import DataLoader, TensorDataset, random_split
    train, test = random_split(TensorDataset(x, y), [0.8, 0.2])
    for xb, yb in DataLoader(train, batch_size=32, shuffle=True):
        ...
"""
from .collate import default_collate, default_convert
from .dataloader import DataLoader, get_worker_info
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    DatasetError,
    IterableDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset",
           "DatasetError", "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler",
           "Subset", "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler",
           "default_collate", "default_convert", "get_worker_info", "random_split"]
