"""Collation: turning a list of samples into one batch, as PyTorch's ``default_collate`` does.

The batch keeps the structure of one sample, with a new first dimension:

    tensors / numpy arrays  ->  stacked into one tensor (numpy dtypes kept)
    Python floats           ->  a float64 tensor;  ints -> int64;  bools -> bool
    str / bytes             ->  left as a list
    dict                    ->  a dict of collated values, key by key
    tuple or list           ->  a list of collated items, position by position
    namedtuple              ->  the same namedtuple of collated fields

So a dataset returning ``(image, label)`` gives batches ``[images, labels]``.
Samples of different shapes cannot be stacked: the error says which samples, and a
``collate_fn=`` that pads is the usual way out.
"""
from __future__ import annotations

import collections.abc
import copy

import numpy as np

from ... import dtypes
from ...creation import from_numpy, stack, tensor
from ...errors import ArgumentError, InputError, ShapeError, fmt_shape, message
from ...tensor import Tensor

_SUPPORTED = "tensors, numpy arrays, numbers, str, dicts, lists or tuples"


def default_collate(batch):
    """One batch from a list of samples (see the module docstring for the rules)."""
    return collate_samples(batch)


def collate_samples(batch, indices=None, path=()):
    """``default_collate``, with the dataset ``indices`` of the samples for error messages
    and ``path``, where inside a sample this part of the batch lies."""
    given, batch = batch, list(batch)
    if not batch:
        raise InputError(message("default_collate got an empty batch.",
                                 where="default_collate", hint="a batch needs a sample."))
    elem = batch[0]
    _same_kind(batch, indices, path)
    if isinstance(elem, Tensor):
        return _stack(batch, indices, path)
    if isinstance(elem, np.ndarray):
        _numeric_array(elem, path)
        return _stack([from_numpy(np.asarray(b)) for b in batch], indices, path)
    if isinstance(elem, np.generic) and not isinstance(elem, (np.str_, np.bytes_)):
        return from_numpy(np.array(batch))  # numpy scalars keep their dtype
    if isinstance(elem, int):  # bools too; a float among them makes the default float
        return tensor(batch)
    if isinstance(elem, float):
        return tensor(batch, dtype=dtypes.float64)  # PyTorch's choice, not the default float
    if isinstance(elem, (str, bytes)):  # as given: the DataLoader's list, or a tuple of
        return given if isinstance(given, tuple) else batch  # a sample's part (PyTorch)
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: collate_samples([_item(d, key, i, indices, path)
                                          for i, d in enumerate(batch)], indices, path + (key,))
                    for key in elem}
        return _rebuild(elem, collated, mapping=True)
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(collate_samples(s, indices, path + (i,))
                            for i, s in enumerate(zip(*batch))))
    if isinstance(elem, collections.abc.Sequence):
        _same_length(batch, indices, path)
        items = [collate_samples(s, indices, path + (i,)) for i, s in enumerate(zip(*batch))]
        if isinstance(elem, tuple):
            return items  # a tuple of samples becomes a list of batches, as in PyTorch
        return _rebuild(elem, items, mapping=False)
    raise ArgumentError(message(
        f"default_collate cannot batch {type(elem).__name__} values{_place(path)}.",
        where="default_collate", values=f"{_sample(0, indices)}: {elem!r:.60}",
        hint=f"make __getitem__ return {_SUPPORTED}, or pass collate_fn= to the DataLoader."))


def default_convert(data):
    """What ``DataLoader(batch_size=None)`` does to each sample: numpy arrays become
    tensors (sharing memory), everything else keeps its structure."""
    if isinstance(data, np.ndarray) and data.dtype.kind in "biufc":
        return from_numpy(data)
    if isinstance(data, np.generic) and np.asarray(data).dtype.kind in "biufc":
        return from_numpy(np.array(data))
    if isinstance(data, collections.abc.Mapping):
        return _rebuild(data, {k: default_convert(v) for k, v in data.items()}, mapping=True)
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild(data, [default_convert(d) for d in data], mapping=False)
    return data


# ---------------------------------------------------------------------------
# Stacking, and the checks that explain why it cannot be done
# ---------------------------------------------------------------------------

def _stack(tensors, indices, path):
    shapes = [t.shape for t in tensors]
    if len(set(shapes)) > 1:
        odd = next(i for i, s in enumerate(shapes) if s != shapes[0])
        raise ShapeError(message(
            f"the samples of this batch have different shapes{_place(path)}, so they cannot "
            "be stacked into one tensor.", where="default_collate",
            values=f"{_sample(0, indices)}: shape {fmt_shape(shapes[0])}\n"
                   f"{_sample(odd, indices)}: shape {fmt_shape(shapes[odd])}",
            hint="make __getitem__ return one shape for every sample (pad or crop it), or "
            "pass the DataLoader a collate_fn= that pads each batch (e.g. to its longest "
            "sequence)."))
    if len({t.dtype for t in tensors}) > 1 or any(t.requires_grad for t in tensors):
        return stack(tensors)  # PyTorch's dtype promotion, and the graph when one is wanted
    return from_numpy(np.stack([t._array for t in tensors]))


def _numeric_array(elem, path):
    if elem.dtype.kind not in "biufc":
        raise ArgumentError(message(
            f"default_collate cannot batch numpy arrays of dtype {elem.dtype}{_place(path)}.",
            where="default_collate",
            hint="turn text into numbers first (indices into a vocabulary), or pass "
            "collate_fn=."))


def _same_kind(batch, indices, path):
    """Every sample must hold the same kind of value here (a tensor, an array, a number...)."""
    kind = _kind(batch[0])
    for i, b in enumerate(batch):
        if _kind(b) != kind:
            raise ArgumentError(message(
                f"the samples of this batch hold different kinds of values{_place(path)}.",
                where="default_collate",
                values=f"{_sample(0, indices)}: {type(batch[0]).__name__}\n"
                       f"{_sample(i, indices)}: {type(b).__name__}",
                hint="make __getitem__ return the same structure for every sample."))


def _kind(value):
    if isinstance(value, Tensor):
        return "tensor"
    if isinstance(value, (bool, int, float, np.generic)) and not isinstance(value, (np.str_,
                                                                                   np.bytes_)):
        return "number"
    for kind in (np.ndarray, str, bytes, collections.abc.Mapping, collections.abc.Sequence):
        if isinstance(value, kind):
            return kind.__name__
    return type(value).__name__


def _same_length(batch, indices, path):
    lengths = [len(b) for b in batch]
    if len(set(lengths)) > 1:
        odd = next(i for i, n in enumerate(lengths) if n != lengths[0])
        raise ShapeError(message(
            f"the samples of this batch are sequences of different lengths{_place(path)}.",
            where="default_collate",
            values=f"{_sample(0, indices)}: {lengths[0]} items\n"
                   f"{_sample(odd, indices)}: {lengths[odd]} items",
            hint="return sequences of one length (pad them), or tensors, or pass "
            "collate_fn=."))


def _item(sample, key, i, indices, path):
    try:
        return sample[key]
    except KeyError:
        raise InputError(message(
            f"{_sample(i, indices)} has no key {key!r}{_place(path)}, but sample 0 has.",
            where="default_collate",
            hint="return dicts with the same keys from every __getitem__.")) from None


def _rebuild(elem, items, mapping):
    """A container of elem's own type holding ``items``, or a plain dict / list."""
    try:
        if mapping:
            return type(elem)(items)
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            clone[:] = items
            return clone
        return type(elem)(items)
    except TypeError:
        return dict(items) if mapping else list(items)


def _place(path) -> str:
    """' (in item [0]['image'] of each sample)' for a path (0, 'image'); '' at the top."""
    return f" (in item {''.join(f'[{p!r}]' for p in path)} of each sample)" if path else ""


def _sample(i, indices) -> str:
    return f"sample {i}" if indices is None else f"sample {i} (dataset index {indices[i]})"
