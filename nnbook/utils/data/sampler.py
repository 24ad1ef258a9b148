"""Samplers: the order in which a DataLoader visits a dataset's indices.

``SequentialSampler`` visits 0, 1, 2, ...; ``RandomSampler`` a new random order
every epoch (every ``iter()``), drawn from ``generator=`` or from the generator
``nb.manual_seed`` seeds; ``BatchSampler`` groups indices into lists of
``batch_size``.  Random orders are reproducible in nnbook but are not the orders
PyTorch draws (its generator is another algorithm).
"""
from __future__ import annotations

import numpy as np

from ...creation import multinomial
from ...errors import ArgumentError, InputError, ShapeError, fmt_shape, message
from ...random import numpy_generator


def check_count(name, value, where) -> int:
    """A whole number >= 1 (batch_size, num_samples), or an error saying so."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise InputError(message(
            f"{name} must be a whole number of at least 1, got {value!r}.", where=where,
            hint=f"e.g. {name}=32."))
    return int(value)


def check_flag(name, value, where) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentError(message(f"{name} must be True or False, got {value!r}.",
                                    where=where, hint=f"e.g. {name}=False."))
    return bool(value)


class Sampler:
    """Base class: subclasses define ``__iter__`` (indices) and usually ``__len__``."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1, every epoch."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random order of the indices, new every epoch; with ``replacement=True`` (or more
    ``num_samples`` than samples) indices may repeat."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source, self.generator = data_source, generator
        self.replacement = check_flag("replacement", replacement, "RandomSampler")
        self._num_samples = None if num_samples is None else \
            check_count("num_samples", num_samples, "RandomSampler")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, rng = len(self.data_source), numpy_generator(self.generator)
        if n == 0:
            return
        if self.replacement:
            left = self.num_samples
            while left > 0:  # in chunks: num_samples may be huge (an endless loader)
                chunk = rng.integers(0, n, size=min(left, 32))
                yield from chunk.tolist()
                left -= len(chunk)
        else:
            for _ in range(self.num_samples // n):
                yield from rng.permutation(n).tolist()
            yield from rng.permutation(n)[:self.num_samples % n].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices, in a new random order every epoch."""

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in numpy_generator(self.generator).permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probability proportional to ``weights`` (one per
    sample): e.g. to see a rare class as often as a common one."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        where = "WeightedRandomSampler"
        self.num_samples = check_count("num_samples", num_samples, where)
        self.replacement = check_flag("replacement", replacement, where)
        self.weights = np.asarray(getattr(weights, "_array", weights), dtype=np.float64)
        if self.weights.ndim != 1:
            raise ShapeError(message(
                f"weights must be 1-D (one per sample), got shape "
                f"{fmt_shape(self.weights.shape)}.", where=where,
                hint="pass one weight per sample, e.g. 1 / class_count[label] for each."))
        self.generator = generator

    def __iter__(self):
        drawn = multinomial(self.weights, self.num_samples, self.replacement,
                            generator=self.generator)
        return iter(drawn.tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Lists of ``batch_size`` indices from ``sampler``; the last one shorter, or dropped
    with ``drop_last=True``."""

    def __init__(self, sampler, batch_size, drop_last):
        self.sampler = sampler
        self.batch_size = check_count("batch_size", batch_size, "BatchSampler")
        self.drop_last = check_flag("drop_last", drop_last, "BatchSampler")

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return -(-len(self.sampler) // self.batch_size)  # rounded up
