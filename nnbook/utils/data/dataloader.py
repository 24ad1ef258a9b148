"""DataLoader: batches from a dataset, in order or shuffled, with PyTorch's arguments.

    loader = DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True)
    for xb, yb in loader:          # xb (32, ...), yb (32,); the last batch may be smaller
        ...
    len(loader)                    # batches per epoch

A loader asks its *sampler* for indices (0, 1, 2... or a random order, new every
epoch), groups them into lists of ``batch_size`` (the *batch sampler*), reads
``dataset[i]`` for each and puts the samples together with ``collate_fn``
(``default_collate``: tensors stacked, numbers made tensors, tuples kept apart).

Everything runs in this process: ``num_workers=2`` is accepted (with a note) and
gives the same batches; ``pin_memory`` changes nothing on the CPU.
"""
from __future__ import annotations

from ...errors import ArgumentError, InputError, message
from ...notes import note
from .collate import collate_samples, default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, check_count, check_flag

# likely misspellings of the two methods a map-style dataset needs
_TYPOS = {"__getitem__": ("getitem", "__getitem", "__get_item__", "get_item", "__getItem__",
                          "_getitem_", "__getitems"),
          "__len__": ("len", "__len", "length", "__length__", "_len_", "size")}


def get_worker_info():
    """None: nnbook has no worker processes (PyTorch answers None in the main process too)."""
    return None


class DataLoader:
    """``DataLoader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
    num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
    worker_init_fn=None, multiprocessing_context=None, generator=None, *,
    prefetch_factor=None, persistent_workers=False, pin_memory_device='', in_order=True)``.

    ``batch_size=None`` turns batching off (each sample passes ``default_convert``);
    ``generator=`` seeds the shuffling; ``drop_last=True`` drops a last, smaller batch.
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        where = "DataLoader"
        iterable = isinstance(dataset, IterableDataset)
        _check_workers(num_workers, prefetch_factor, persistent_workers, timeout)
        if batch_size is not None:
            batch_size = check_count("batch_size", batch_size, where)
        drop_last = check_flag("drop_last", drop_last, where)
        if iterable:
            _check_iterable(dataset, shuffle, sampler, batch_sampler)
        else:
            _check_map_style(dataset, needs_len=sampler is None and batch_sampler is None)
        batch_size, drop_last, sampler, batch_sampler = _samplers(
            dataset, iterable, batch_size, shuffle, sampler, batch_sampler, drop_last, generator)
        if num_workers > 0:
            note(f"nnbook loads data in this process: num_workers={num_workers} is accepted "
                 "and gives the same batches, one after another.", where=where,
                 hint="nothing to change; use num_workers=0 to silence this note.")
        settings = dict(dataset=dataset, batch_size=batch_size, drop_last=drop_last,
                        sampler=sampler, batch_sampler=batch_sampler, num_workers=num_workers,
                        collate_fn=collate_fn, pin_memory=pin_memory, timeout=timeout,
                        worker_init_fn=worker_init_fn, generator=generator,
                        prefetch_factor=prefetch_factor, persistent_workers=persistent_workers,
                        multiprocessing_context=multiprocessing_context,
                        pin_memory_device=pin_memory_device, in_order=in_order)
        self.__dict__.update(settings)
        self._iterable = iterable

    # As in PyTorch: the parts that decide the batches are fixed once the loader exists.
    _FIXED = ("dataset", "batch_size", "batch_sampler", "sampler", "drop_last",
              "persistent_workers")

    def __setattr__(self, name, value):
        if name in self._FIXED and "_iterable" in self.__dict__:
            raise InputError(message(
                f"{name} cannot be changed after the DataLoader is made.", where="DataLoader",
                hint=f"make a new DataLoader(..., {name}=...)."))
        super().__setattr__(name, value)

    def __iter__(self) -> _LoaderIterator:
        return _LoaderIterator(self)

    def __len__(self) -> int:
        if self._iterable:
            n = _length_of(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


def _samplers(dataset, iterable, batch_size, shuffle, sampler, batch_sampler, drop_last,
              generator):
    """The sampler (which indices, in which order) and the batch sampler (which indices go
    together), from the arguments PyTorch takes -- refusing the ones that contradict."""
    where = "DataLoader"
    if sampler is not None and shuffle:
        raise InputError(message(
            "shuffle=True and sampler= both say how to order the samples.", where=where,
            hint="keep one: the sampler (e.g. RandomSampler(ds)) or shuffle=True."))
    if batch_sampler is not None:
        if batch_size != 1 or shuffle or sampler is not None or drop_last:
            raise InputError(message(
                "batch_sampler= already makes the batches, so batch_size, shuffle, "
                "sampler and drop_last must be left at their defaults.", where=where,
                hint="give either batch_sampler=, or batch_size= with shuffle= / sampler=."))
        batch_size, drop_last = None, False
    elif batch_size is None and drop_last:
        raise InputError(message(
            "batch_size=None turns batching off, so there is no last batch to drop.",
            where=where, hint="give a batch_size, or leave drop_last=False."))
    if sampler is None:
        sampler = _InfiniteIndices() if iterable else (
            RandomSampler(dataset, generator=generator) if shuffle
            else SequentialSampler(dataset))
    if batch_size is not None and batch_sampler is None:
        batch_sampler = BatchSampler(sampler, batch_size, drop_last)
    return batch_size, drop_last, sampler, batch_sampler


class _LoaderIterator:
    """One pass over a DataLoader (what ``iter(loader)`` returns); ``len()`` as the loader's."""

    def __init__(self, loader: DataLoader):
        self._loader = loader
        self._batches = _iterable_batches(loader) if loader._iterable else _map_batches(loader)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._batches)

    def __len__(self) -> int:
        return len(self._loader)


def _map_batches(loader):
    ds, collate = loader.dataset, loader.collate_fn
    if loader.batch_sampler is None:  # no batching: each sample on its own
        for index in loader.sampler:
            yield (collate or default_convert)(ds[index])
        return
    fetch_many = getattr(ds, "__getitems__", None)
    for indices in loader.batch_sampler:
        samples = fetch_many(indices) if callable(fetch_many) else [ds[i] for i in indices]
        yield collate_samples(samples, indices) if collate is None else collate(samples)


def _iterable_batches(loader):
    collate, items = loader.collate_fn, iter(loader.dataset)
    if loader.batch_size is None:
        for item in items:
            yield (collate or default_convert)(item)
        return
    while True:
        samples = [item for _, item in zip(range(loader.batch_size), items)]
        if not samples or (loader.drop_last and len(samples) < loader.batch_size):
            return
        yield default_collate(samples) if collate is None else collate(samples)


class _InfiniteIndices:
    """The sampler of an iterable dataset: it is read in order, so indices mean nothing."""

    def __iter__(self):
        while True:
            yield None


# ---------------------------------------------------------------------------
# Checks made when the loader is built, so that mistakes show before the loop
# ---------------------------------------------------------------------------

def _check_workers(num_workers, prefetch_factor, persistent_workers, timeout):
    where = "DataLoader"
    if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
        raise InputError(message(f"num_workers must be a whole number >= 0, got "
                                 f"{num_workers!r}.", where=where, hint="use num_workers=0."))
    if num_workers == 0 and prefetch_factor is not None:
        raise InputError(message(
            "prefetch_factor= only applies with worker processes (num_workers > 0).",
            where=where, hint="leave prefetch_factor=None (as PyTorch requires too)."))
    if num_workers == 0 and persistent_workers:
        raise InputError(message(
            "persistent_workers=True only applies with worker processes (num_workers > 0).",
            where=where, hint="leave persistent_workers=False (as PyTorch requires too)."))
    if timeout < 0:
        raise InputError(message(f"timeout must be at least 0, got {timeout!r}.", where=where,
                                 hint="leave timeout=0."))


def _check_iterable(dataset, shuffle, sampler, batch_sampler):
    for name, value in (("shuffle", shuffle), ("sampler", sampler),
                        ("batch_sampler", batch_sampler)):
        if value:
            raise InputError(message(
                f"{type(dataset).__name__} is an IterableDataset, read in its own order, so "
                f"{name}= cannot reorder it.", where="DataLoader",
                hint="shuffle inside __iter__, or make it a map-style Dataset (__getitem__ "
                "and __len__) to use shuffle=True or a sampler."))


def _check_map_style(dataset, needs_len):
    """The dataset must answer dataset[i], and len(dataset) for the default samplers."""
    cls = type(dataset)
    missing = [name for name in ("__getitem__", "__len__")
               if (name == "__getitem__" or needs_len) and _lacks(cls, name)]
    if not missing:
        return
    typos = [f"{t}()" for name in missing for t in _TYPOS[name] if hasattr(cls, t)]
    did = f" It defines {', '.join(typos)}: Python looks for the exact name." if typos else ""
    how = {"__getitem__": "__getitem__(self, index) returning one sample",
           "__len__": "__len__(self) returning how many samples there are"}
    has = [n for n in ("__getitem__", "__len__") if not _lacks(cls, n)]
    raise ArgumentError(message(
        f"the dataset ({cls.__name__}) has no {' and no '.join(missing)}, which a DataLoader "
        f"needs to read samples by index.{did}", where="DataLoader",
        values=f"dataset: {cls.__name__}, defines {', '.join(has) or 'neither'}",
        hint=f"define {' and '.join(how[n] for n in missing)} in {cls.__name__} (or subclass "
        "IterableDataset and define __iter__)."))


def _lacks(cls, name) -> bool:
    method = getattr(cls, name, None)
    return method is None or method is getattr(Dataset, name, None)


def _length_of(dataset) -> int:
    if _lacks(type(dataset), "__len__"):
        raise ArgumentError(message(
            f"{type(dataset).__name__} has no __len__, so the number of batches is unknown.",
            where="len(DataLoader)", hint="define __len__ in the dataset, or count the "
            "batches as you loop."))
    return len(dataset)
