"""Batches of sequences of different lengths: padding, and packing for the recurrent layers.

    words = [nb.randn(7, 3), nb.randn(5, 3), nb.randn(2, 3)]     # (L_i, C) each
    padded = pad_sequence(words)                                  # (7, 3, 3): (T, B, C)
    packed = pack_padded_sequence(padded, [7, 5, 2])              # what nn.LSTM reads
    output, (h_n, c_n) = lstm(packed)                             # h_n: each word's last step
    out, lengths = pad_packed_sequence(output)                    # (7, 3, H), [7, 5, 2]

A padded batch (T, B, C) holds T steps of every sequence, padding included.  A
:class:`PackedSequence` holds only the real steps, time step by time step: first step 0
of every sequence, then step 1 of every sequence that has one, and so on, with the
sequences sorted longest first so that the ones still running at step t are always the
first ``batch_sizes[t]``.  A recurrent layer then runs step t on those rows only, so
padding never reaches its state.

Packing and unpacking only pick rows (indexing), so gradients flow back through both.
"""
from __future__ import annotations

import numbers
from typing import NamedTuple

import numpy as np

from ... import context, dtypes
from ...creation import cat, full, stack, tensor
from ...errors import ArgumentError, DTypeError, InputError, ShapeError, fmt_shape, message
from ...tensor import Tensor


class _PackedFields(NamedTuple):
    data: Tensor               # (N, *): the real steps, time step by time step
    batch_sizes: Tensor        # (T,) int64: how many sequences have a step t
    sorted_indices: Tensor | None    # the caller's batch order -> longest first
    unsorted_indices: Tensor | None  # and back


class PackedSequence(_PackedFields):
    """The real steps of a batch of sequences, and how to read them (see the module doc).

    ``data[sum(batch_sizes[:t]) + i]`` is step t of the i-th longest sequence, which is
    sequence ``sorted_indices[i]`` of the batch as the caller gave it (None: the batch
    was already sorted longest first).
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if batch_sizes is None and isinstance(data, (tuple, list)):
            return cls(*data)  # PackedSequence(packed_fields), as PyTorch allows
        if not isinstance(data, Tensor) or not isinstance(batch_sizes, Tensor):
            raise ArgumentError(message(
                f"takes data and batch_sizes as tensors, got {type(data).__name__} and "
                f"{type(batch_sizes).__name__}.", where="nn.utils.rnn.PackedSequence",
                hint="build one with pack_padded_sequence(padded, lengths) or "
                "pack_sequence([seq_1, seq_2, ...]) instead of by hand."))
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs) -> PackedSequence:
        """The data converted as ``Tensor.to`` converts it; the indices stay as they are
        (they are positions).  This one when nothing changes."""
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._replace(data=data)

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def cuda(self, *args, **kwargs) -> PackedSequence:
        return self._replace(data=self.data.cuda(*args, **kwargs))

    def double(self):
        return self.to(dtype=dtypes.float64)

    def float(self):
        return self.to(dtype=dtypes.float32)

    def half(self):
        return self.to(dtype=dtypes.float16)

    def long(self):
        return self.to(dtype=dtypes.int64)

    def int(self):
        return self.to(dtype=dtypes.int32)

    def short(self):
        return self.to(dtype=dtypes.int16)

    def char(self):
        return self.to(dtype=dtypes.int8)

    def byte(self):
        return self.to(dtype=dtypes.uint8)

    @property
    def is_cuda(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False

    def pin_memory(self) -> PackedSequence:
        return self


def invert_permutation(permutation):
    """The permutation that undoes ``permutation``: p[inverse[i]] = i (None for None)."""
    if permutation is None:
        return None
    p = np.asarray(permutation)
    inverse = np.empty_like(p)
    inverse[p] = np.arange(len(p))
    return tensor(inverse)


# ---------------------------------------------------------------------------
# Padding
# ---------------------------------------------------------------------------

def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Sequences (L_i, *) stacked into one tensor (T, B, *), T the longest L_i, each padded
    with ``padding_value`` after its end (``padding_side='left'``: before its start).
    ``batch_first=True`` gives (B, T, *)."""
    where = "nn.utils.rnn.pad_sequence"
    if padding_side not in ("left", "right"):
        raise InputError(message(f"padding_side must be 'left' or 'right', got "
                                 f"{padding_side!r}.", where=where,
                                 hint="'right' (the default) pads after each sequence."))
    sequences = list(sequences.unbind(0) if isinstance(sequences, Tensor) else sequences)
    _check_sequences(sequences, where)
    steps = max(s.shape[0] for s in sequences)
    first = sequences[0]
    padded = []
    for s in sequences:
        s = s.to(first.dtype)                   # the batch takes the first one's dtype
        pad = full((steps - s.shape[0],) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
        padded.append(cat([s, pad] if padding_side == "right" else [pad, s]))
    return stack(padded, dim=0 if batch_first else 1)


def _check_sequences(sequences, where: str) -> None:
    if not sequences:
        raise InputError(message("got an empty list of sequences.", where=where,
                                 hint="pass at least one tensor (L, *)."))
    if not all(isinstance(s, Tensor) for s in sequences):
        got = next(type(s).__name__ for s in sequences if not isinstance(s, Tensor))
        raise ArgumentError(message(f"takes a list of tensors, got a {got} in it.",
                                    where=where, hint="wrap each one: nb.tensor(seq)."))
    if any(s.ndim == 0 for s in sequences):
        raise ShapeError(message(
            "takes sequences of shape (L, *), got a single number (0-d tensor).", where=where,
            hint="a sequence of numbers is 1-D: nb.tensor([1.0, 2.0, 3.0]), or "
            "x.reshape(1) for a sequence of one."))
    rests = {tuple(s.shape[1:]) for s in sequences}
    if len(rests) > 1:
        raise ShapeError(message(
            "takes sequences that differ only in their length (dim 0), got shapes "
            f"{', '.join(fmt_shape(s.shape) for s in sequences)}.", where=where,
            hint="every step of every sequence must have the same shape, e.g. (L_i, C) "
            "with one C for all."))


def unpad_sequence(padded_sequences, lengths, batch_first=False) -> list:
    """The sequences of a padded batch (T, B, *), each cut to its length: a list of
    (L_i, *) tensors, undoing pad_sequence."""
    where = "nn.utils.rnn.unpad_sequence"
    padded = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    lengths = _lengths(lengths, padded.shape[0], padded.shape[1], where)
    return [padded[i, :length] for i, length in enumerate(lengths)]


# ---------------------------------------------------------------------------
# Packing
# ---------------------------------------------------------------------------

def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (T, B, *) (``batch_first``: (B, T, *)) whose sequence b has
    ``lengths[b]`` real steps.  With ``enforce_sorted=True`` the lengths must be sorted
    longest first; ``enforce_sorted=False`` sorts them and remembers the order."""
    where = "nn.utils.rnn.pack_padded_sequence"
    hint = "pad the sequences into one tensor first: pad_sequence([seq_1, ...])."
    if not isinstance(input, Tensor):
        raise ArgumentError(message(
            f"takes a padded batch (T, B, *) or (B, T, *) as a tensor, got a "
            f"{type(input).__name__}.", where=where, hint="a list of sequences packs with "
            "pack_sequence(seqs, enforce_sorted=False), or " + hint))
    if input.ndim < 2:
        raise ShapeError(message(f"takes a padded batch (T, B, *) or (B, T, *), got "
                                 f"{input.ndim}-D, shape {fmt_shape(input.shape)}.",
                                 where=where, hint=hint))
    x = input.transpose(0, 1) if batch_first else input     # (T, B, *) from here on
    steps, batch = x.shape[:2]
    if batch == 0:
        raise InputError(message(
            f"cannot pack an empty batch, got shape {fmt_shape(input.shape)}.", where=where,
            hint="a packed batch holds at least one sequence of at least one step."))
    lengths = _lengths(lengths, batch, steps, where)
    if enforce_sorted:
        _check_sorted(lengths, where)
        order, sorted_indices = np.arange(batch), None
    else:  # longest first; equal lengths keep their order
        order = np.argsort(-lengths, kind="stable")
        sorted_indices = tensor(order)
    batch_sizes = [int((lengths > t).sum()) for t in range(lengths.max())]
    # row r of the packed data is step time[r] of sequence which[r]: time step by time
    # step, the sequences still running at t (the first batch_sizes[t] in sorted order)
    time = np.concatenate([np.full(n, t) for t, n in enumerate(batch_sizes)])
    which = np.concatenate([order[:n] for n in batch_sizes])
    return PackedSequence(x[time, which], tensor(batch_sizes), sorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo pack_padded_sequence: (padded (T, B, *), lengths), in the caller's batch order.
    T is the longest length, or ``total_length`` when given."""
    where = "nn.utils.rnn.pad_packed_sequence"
    if not isinstance(sequence, PackedSequence):
        raise ArgumentError(message(
            f"takes a PackedSequence, got {type(sequence).__name__}.", where=where,
            hint="a recurrent layer given a PackedSequence returns one: "
            "pad_packed_sequence(output)."))
    data, batch_sizes, _, unsorted_indices = sequence
    sizes = np.asarray(batch_sizes).astype(np.int64)
    steps, batch = len(sizes), int(sizes[0])
    if total_length is None:
        total_length = steps
    elif total_length < steps:
        raise InputError(message(
            f"total_length must be at least the longest sequence's length, {steps}; got "
            f"{total_length}.", where=where,
            hint=f"total_length={steps} or more, or leave it out to pad to the longest."))
    # rows[t, i]: the row of data holding step t of the i-th longest sequence, or
    # len(data), a row of padding_value put after the data, where it has no step t
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rows = np.full((total_length, batch), len(data))
    for t, n in enumerate(sizes):
        rows[t, :n] = starts[t] + np.arange(n)
    lengths = (sizes[None, :] > np.arange(batch)[:, None]).sum(1)  # sorted order
    if unsorted_indices is not None:    # back to the caller's batch order
        rows = rows[:, np.asarray(unsorted_indices)]
        lengths = lengths[np.asarray(unsorted_indices)]
    padding = full((1,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype)
    padded = cat([data, padding])[rows]                   # (T, B, *)
    return (padded.transpose(0, 1) if batch_first else padded), tensor(lengths)


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences (L_i, *): pad_sequence, then pack_padded_sequence."""
    sequences = list(sequences)
    _check_sequences(sequences, "nn.utils.rnn.pack_sequence")
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences) -> list:
    """The list of sequences (L_i, *) a PackedSequence holds, in the caller's order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


# ---------------------------------------------------------------------------
# The lengths
# ---------------------------------------------------------------------------

def _lengths(lengths, batch: int, steps: int, where: str) -> np.ndarray:
    """``lengths`` (a list or a 1-D tensor of whole numbers) as an int64 array, checked:
    one per sequence, each between 1 and the padded length."""
    values = _length_values(lengths, where)
    if len(values) != batch:
        raise ShapeError(message(
            f"takes one length per sequence: the batch has {batch}, got {len(values)} "
            "lengths.", where=where, values=f"lengths {values.tolist()}",
            hint="with batch_first=True the batch is dim 0 of the padded input, else dim 1."))
    if len(values) and values.min() < 1:
        if context.shape_only() and isinstance(lengths, Tensor):
            hint = ("nb.infer_shapes runs on tensors without values, so lengths given as an "
                    "input tensor read as 0: infer the shapes of a model that packs with "
                    "fixed lengths, or of its padded input.")
        else:
            hint = "every sequence needs at least one step; leave empty ones out of the batch."
        raise InputError(message(f"every length must be at least 1, got {values.tolist()}.",
                                 where=where, hint=hint))
    if len(values) and values.max() > steps:
        raise InputError(message(
            f"a length cannot be longer than the padded sequences ({steps} steps), got "
            f"{values.tolist()}.", where=where,
            hint="the lengths count real steps of each sequence; with batch_first=True the "
            "steps are dim 1 of the padded input, else dim 0."))
    return values


def _length_values(lengths, where: str) -> np.ndarray:
    hint = "pass a list of ints, or a 1-D int64 tensor: [len(s) for s in sequences]."
    if isinstance(lengths, Tensor):
        values = np.asarray(lengths)
        if values.ndim != 1:
            raise ShapeError(message(f"lengths must be 1-D, one per sequence, got shape "
                                     f"{fmt_shape(values.shape)}.", where=where, hint=hint))
    elif isinstance(lengths, (list, tuple, np.ndarray)) and all(
            isinstance(n, numbers.Real) for n in np.ravel(np.asarray(lengths, dtype=object))):
        values = np.asarray(lengths)
        if values.ndim != 1:
            raise ShapeError(message("lengths must be a flat list, one per sequence, got "
                                     f"{values.tolist()}.", where=where, hint=hint))
    else:
        raise DTypeError(message(f"lengths must be a list of ints or a 1-D tensor, got "
                                 f"{lengths!r}.", where=where, hint=hint))
    if values.dtype.kind == "b" or (values.dtype.kind == "f" and
                                     not np.array_equal(values, np.round(values))):
        raise DTypeError(message(f"lengths must be whole numbers of steps, got "
                                 f"{values.tolist()}.", where=where, hint=hint))
    if values.dtype.kind not in "iuf":
        raise DTypeError(message(f"lengths must be numbers, got {values.dtype.name}.",
                                 where=where, hint=hint))
    return values.astype(np.int64)


def _check_sorted(lengths: np.ndarray, where: str) -> None:
    if np.all(lengths[:-1] >= lengths[1:]):
        return
    raise InputError(message(
        f"with enforce_sorted=True the lengths must be sorted longest first, got "
        f"{lengths.tolist()}.", where=where,
        hint="pass enforce_sorted=False to have them sorted (the outputs come back in your "
        "order), or sort the batch by length first."))
