"""Datasets: what a DataLoader draws samples from (PyTorch's ``torch.utils.data`` classes).

A *map-style* dataset answers ``dataset[i]`` and ``len(dataset)``; an *iterable*
dataset (``IterableDataset``) is read from start to end, like a file.

    class Squares(Dataset):
        def __len__(self):
            return 100
        def __getitem__(self, i):
            return nb.tensor([float(i)]), nb.tensor([float(i * i)])

``TensorDataset(x, y)`` pairs rows of tensors, ``Subset`` and ``random_split`` pick
samples out of a dataset, ``ConcatDataset`` (or ``a + b``) puts datasets one after
another.
"""
from __future__ import annotations

import bisect
import itertools
import math
import warnings

import numpy as np

from ...creation import randperm
from ...errors import (
    ArgumentError,
    DimError,
    InputError,
    NnbookError,
    ShapeError,
    fmt_shape,
    message,
)
from ...random import default_generator
from ...tensor import Tensor, _wrap


class DatasetError(NnbookError, NotImplementedError):
    """A Dataset subclass that lacks a method a DataLoader needs (``__getitem__``, ``__iter__``)."""


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__(self, index)`` and ``__len__``."""

    def __getitem__(self, index):
        raise DatasetError(message(
            f"{type(self).__name__} does not define __getitem__.", where=type(self).__name__,
            hint="define __getitem__(self, index) to return the sample at that index."))

    def __add__(self, other) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset read in order: subclasses define ``__iter__`` (and may define ``__len__``)."""

    def __iter__(self):
        raise DatasetError(message(
            f"{type(self).__name__} does not define __iter__.", where=type(self).__name__,
            hint="define __iter__(self) to yield the samples one after another."))

    def __add__(self, other) -> ChainDataset:
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample ``i`` is ``(t[i] for t in tensors)``: rows of tensors that share a first dimension.

        ds = TensorDataset(images, labels)     # ds[3] == (images[3], labels[3])
    """

    def __init__(self, *tensors):
        where = "TensorDataset"
        for i, t in enumerate(tensors):
            if not isinstance(t, Tensor):
                raise ArgumentError(message(
                    f"TensorDataset takes tensors; argument {i} is {type(t).__name__}.",
                    where=where, hint="make it a tensor first: nb.tensor(data) (or "
                    "nb.from_numpy(array), which shares the array's memory)."))
            if t.ndim == 0:
                raise ShapeError(message(
                    f"argument {i} is a 0-d tensor, which has no samples to index.",
                    where=where, hint="give every tensor a first dimension of samples, e.g. "
                    "labels of shape (N,)."))
        sizes = [t.shape[0] for t in tensors]
        if len(set(sizes)) > 1:
            shapes = "   ".join(f"tensor {i}: {fmt_shape(t.shape)}"
                               for i, t in enumerate(tensors))
            raise ShapeError(message(
                f"the tensors hold different numbers of samples ({', '.join(map(str, sizes))}"
                "): each must have one row per sample along dimension 0.", where=where,
                values=shapes, hint="pass tensors with the same first size, e.g. inputs "
                "(N, ...) and labels (N,); a transposed tensor has its samples along "
                "another dimension (use .T or .permute)."))
        self.tensors = tensors

    def __getitem__(self, index):
        if not any(t.requires_grad for t in self.tensors):
            try:  # data: numpy's indexing straight away (the same rows, far faster per sample)
                return tuple(_wrap(np.asarray(t._array[index])) for t in self.tensors)
            except (IndexError, TypeError):
                pass  # a bad index: let Tensor indexing explain it
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0] if self.tensors else 0


class ConcatDataset(Dataset):
    """Several map-style datasets, one after another: indices run through all of them."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise InputError(message("ConcatDataset needs at least one dataset.",
                                     where="ConcatDataset", hint="e.g. ConcatDataset([a, b])."))
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise ArgumentError(message(
                    f"ConcatDataset joins map-style datasets; {type(d).__name__} is an "
                    "IterableDataset.", where="ConcatDataset",
                    hint="chain iterable datasets with ChainDataset([a, b]) (or a + b)."))
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise DimError(message(
                    f"index {index} is out of range for a dataset of {len(self)} samples.",
                    where="ConcatDataset", hint=f"use an index from {-len(self)} to "
                    f"{len(self) - 1}."))
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[which - 1] if which > 0 else 0
        return self.datasets[which][index - start]


class ChainDataset(IterableDataset):
    """Several iterable datasets, read one after another."""

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            yield from d

    def __len__(self) -> int:
        return sum(len(d) for d in self.datasets)


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order: ``Subset(ds, [4, 0])[1] ==
    ds[0]``."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, indices

    def __getitem__(self, index):
        if isinstance(index, list):
            return self.dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset, lengths, generator=default_generator) -> list:
    """Split ``dataset`` at random into Subsets of the given lengths, or fractions:

        train, test = random_split(ds, [0.8, 0.2], generator=nb.Generator().manual_seed(0))

    Fractions are turned into counts by rounding down, and the samples left over go
    one each to the first splits (PyTorch's rule).
    """
    where = "random_split"
    n = len(dataset)
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        for i, frac in enumerate(lengths):
            if not 0 <= frac <= 1:
                raise InputError(message(f"fraction {i} is {frac}, not between 0 and 1.",
                                         where=where, hint="e.g. [0.8, 0.2]."))
        counts = [int(math.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):  # the remainder, round robin
            counts[i % len(counts)] += 1
        for i, count in enumerate(counts):
            if count == 0:
                warnings.warn(f"random_split: split {i} is empty ({lengths[i]} of {n} "
                              "samples rounds down to 0).", UserWarning, stacklevel=2)
        lengths = counts
    if sum(lengths) != n:
        raise InputError(message(
            f"the lengths add up to {sum(lengths)}, but the dataset has {n} samples.",
            where=where, values=f"lengths: {lengths}",
            hint="give counts that add up to len(dataset), or fractions that add up to 1 "
            "(e.g. [0.8, 0.2])."))
    indices = randperm(n, generator=generator).tolist()
    return [Subset(dataset, indices[end - length:end])
            for end, length in zip(itertools.accumulate(lengths), lengths)]
