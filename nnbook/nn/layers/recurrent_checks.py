"""What a recurrent layer or cell checks before it steps: the input's layout, the initial
state's shape, and the text nb.infer_shapes shows for them.

The usual mistakes: a batch-first (B, T, C) batch given to a time-major layer (or the
other way round), features in dim 1 as Conv1d keeps them, token indices instead of
vectors, and an initial state laid out batch-first.  Each gets a message naming the
layout the layer expected, how it read the input, and the one-line fix.
"""
from __future__ import annotations

import numpy as np

from ... import context
from ...errors import ArgumentError, DTypeError, InputError, ShapeError, fmt_shape, message
from ...tensor import Tensor, _wrap, meta_tensor
from ..utils.rnn import PackedSequence
from .containers import mismatch_hint


def check_nonlinearity(cls: str, value) -> str:
    if value in ("tanh", "relu"):
        return value
    raise InputError(message(
        f"nonlinearity must be 'tanh' or 'relu', got {value!r}.", where=cls,
        hint="nonlinearity='tanh' (the default) keeps h in (-1, 1); 'relu' does not."))


def weight_t(n_in: int, gates: int, hidden: int) -> str:
    """The shape of W^T for a formula: '(10, 4·20)' for an LSTM's four gate blocks."""
    return f"({n_in}, {gates}·{hidden})" if gates > 1 else f"({n_in}, {hidden})"


def zeros(shape, dtype) -> Tensor:
    """The default initial state (no memory at all in a shape-only pass)."""
    if context.shape_only():
        return meta_tensor(shape, dtype)
    return _wrap(np.zeros(shape, dtype))


def zero_state(input, size: int, dtype) -> Tensor:
    """A cell's zero state for ``input`` (B, C) or (C,): (B, size) or (size,)."""
    return zeros(tuple(input.shape[:-1]) + (size,), np.dtype(str(dtype)))


def _check_tensor(input, what: str, layout: str) -> None:
    """A float Tensor, or a message about what came instead (token indices, arrays)."""
    if not isinstance(input, Tensor):
        got = (f"a numpy array of shape {fmt_shape(input.shape)}"
               if isinstance(input, np.ndarray) else f"a {type(input).__name__}")
        raise DTypeError(message(f"{what} must be an nnbook Tensor, got {got}.",
                                 hint=f"wrap it: nb.tensor({what}).".replace("(input)", "(x)")))
    if input.dtype.is_floating_point:
        return
    raise DTypeError(message(
        f"expects a floating point {what} of feature vectors {layout}, got "
        f"{input.dtype} of shape {fmt_shape(input.shape)}.",
        hint="token indices go through an embedding first (nn.Embedding(vocab_size, "
        "input_size)), or become one-hot vectors: nb.eye(vocab_size)[x]."
        if input.dtype.numpy.kind in "iub" else f"convert it: {what}.float()."))


# ---------------------------------------------------------------------------
# Cells: one step, input (B, C) or (C,)
# ---------------------------------------------------------------------------

def check_cell_input(cell, input, hx, name: str) -> None:
    cls = type(cell).__name__
    _check_tensor(input, "input", "(B, C)")
    if input.ndim not in (1, 2):
        raise ShapeError(message(
            f"expects a 2-D input (B, C) or a 1-D one (C,), got {input.ndim}-D with shape "
            f"{fmt_shape(input.shape)}.",
            hint=f"a cell takes one time step; loop over the sequence (for x_t in x: ...), "
            f"or use nn.{cls[:-4]} for a whole (T, B, C) sequence."))
    got = input.shape[-1]
    if got != cell.input_size:
        raise ShapeError(message(
            f"expects input with {cell.input_size} features in its last dimension, got {got}.",
            values=f"input {fmt_shape(input.shape)}   weight_ih "
            f"{fmt_shape(cell.weight_ih.shape)}",
            hint=mismatch_hint(f"{cls}({got}, {cell.hidden_size})", "features", got,
                               cell.input_size)))
    if hx is None:
        return
    want = tuple(input.shape[:-1]) + (cell.hidden_size,)
    if cls == "LSTMCell":
        if not (isinstance(hx, (tuple, list)) and len(hx) == 2):
            raise ArgumentError(message(
                f"takes its state as a pair (h, c), got {_describe(hx)}.",
                hint="pass cell(x, (h, c)), or leave the state out to start from zeros."))
        states = zip(("h", "c"), hx)
    else:
        if isinstance(hx, (tuple, list)):
            raise ArgumentError(message(
                f"takes one state tensor h, got a {type(hx).__name__} of {len(hx)}.",
                hint="only an LSTMCell takes a pair (h, c); pass cell(x, h)."))
        states = [("hx", hx)]
    for label, h in states:
        _check_tensor(h, label, fmt_shape(want))
        if tuple(h.shape) != want:
            batch = (f"the input's batch is {input.shape[0]}; " if input.ndim == 2 and
                     h.ndim == 2 and h.shape[0] != input.shape[0] else "")
            raise ShapeError(message(
                f"{label} must have shape {fmt_shape(want)} to go with the input "
                f"{fmt_shape(input.shape)}, got {fmt_shape(h.shape)}.",
                values=f"hidden_size={cell.hidden_size}   input {fmt_shape(input.shape)}",
                hint=f"{batch}start from zeros (nb.zeros{fmt_shape(want)}) or leave "
                f"{name} out; a state has hidden_size values per sample."))


def _describe(value) -> str:
    if isinstance(value, Tensor):
        return f"one Tensor of shape {fmt_shape(value.shape)}"
    return f"a {type(value).__name__}"


# ---------------------------------------------------------------------------
# Layers: a whole sequence, (T, B, C), (B, T, C) or (T, C)
# ---------------------------------------------------------------------------

def layout(layer) -> str:
    return "(B, T, C)" if layer.batch_first else "(T, B, C)"


def read_as(layer, shape) -> str:
    """How the layer reads an input shape: '(B, T, C) = (3, 7, 10) (batch_first=True)'."""
    if len(shape) == 2:
        return f"(T, C) = {fmt_shape(shape)} (one sequence, unbatched)"
    return f"{layout(layer)} = {fmt_shape(shape)} (batch_first={layer.batch_first})"


def check_packed_input(layer, packed) -> None:
    """A PackedSequence's data must be (N, input_size) floats: the real steps, one a row."""
    data = packed.data
    _check_tensor(data, "input", "(N, C) packed")
    if data.ndim == 2 and data.shape[-1] == layer.input_size:
        return
    raise ShapeError(message(
        f"expects a PackedSequence whose data is (N, C) with C = input_size = "
        f"{layer.input_size}, got data of shape {fmt_shape(data.shape)}.",
        values=f"input {describe_input(layer, packed)}",
        hint="pack a padded batch of feature vectors, (T, B, C) or (B, T, C) with "
        "batch_first=True: pack_padded_sequence(x, lengths, batch_first=...)."))


def describe_input(layer, input) -> str:
    """How the layer reads its input, for messages."""
    if isinstance(input, PackedSequence):
        return (f"packed: {int(input.batch_sizes[0])} sequences of up to "
                f"{len(input.batch_sizes)} steps, data {fmt_shape(input.data.shape)}")
    return f"read as {read_as(layer, input.shape)}"


def check_layer_input(layer, input) -> None:
    _check_tensor(input, "input", layout(layer))
    cls = type(layer).__name__
    if input.ndim not in (2, 3):
        hint = ("a sequence of numbers needs a feature dimension: x.unsqueeze(-1) gives "
                "(T, 1) for input_size=1." if input.ndim == 1 else
                f"a recurrent layer takes {layout(layer)}: merge the extra dimensions into "
                "the batch with reshape first." if input.ndim > 3 else
                "give it a sequence: (T, C) for one, (T, B, C) for a batch.")
        raise ShapeError(message(
            f"expects a 3-D input {layout(layer)} (batch_first={layer.batch_first}) or a 2-D "
            f"unbatched one (T, C), got {input.ndim}-D with shape {fmt_shape(input.shape)}.",
            hint=hint))
    got, want = input.shape[-1], layer.input_size
    if got == want:
        return
    raise ShapeError(message(
        f"expects input with {want} features in its last dimension, got {got}.",
        values=f"input read as {read_as(layer, input.shape)}   input_size={want}",
        hint=_features_hint(layer, input.shape, cls)))


def _features_hint(layer, shape, cls: str) -> str:
    want = layer.input_size
    if len(shape) == 3 and shape[1] == want:  # (B, C, T): Conv1d's layout
        return ("the features look to be in dim 1, as Conv1d keeps them (B, C, T); a "
                "recurrent layer wants them last: x.transpose(1, 2) gives (B, T, C) for "
                "batch_first=True, x.permute(2, 0, 1) gives (T, B, C).")
    if len(shape) == 3 and shape[0] == want:
        return (f"the features look to be in dim 0; a recurrent layer wants them last: "
                f"x.permute(1, 2, 0) or x.permute(2, 1, 0), whichever gives {layout(layer)}.")
    got = shape[-1]
    return mismatch_hint(f"{cls}({got}, {layer.hidden_size})", "features", got, want)


def check_layer_state(layer, hx, input, label: str, size: int) -> None:
    """``hx`` (h_0 or c_0) must be (num_layers·num_directions, B, size), or 2-D unbatched."""
    _check_tensor(hx, label, "(num_layers·num_directions, B, H)")
    packed = isinstance(input, PackedSequence)
    batched = packed or input.ndim == 3
    stack = layer.num_layers * (2 if layer.bidirectional else 1)
    if packed:
        batch = int(input.batch_sizes[0])
    else:
        batch = input.shape[0 if layer.batch_first else 1] if batched else None
    want = (stack, batch, size) if batched else (stack, size)
    got = tuple(hx.shape)
    if got == want:
        return
    h = "proj_size" if size != layer.hidden_size else "H"
    form = f"(num_layers·num_directions, B, {h})" if batched else \
        f"(num_layers·num_directions, {h})"
    raise ShapeError(message(
        f"{label} must have shape {form} = {fmt_shape(want)}, got {fmt_shape(got)}.",
        values=f"input {describe_input(layer, input)}   num_layers={layer.num_layers}, "
        f"bidirectional={layer.bidirectional}, {h if h != 'H' else 'hidden_size'}={size}",
        hint=_state_hint(layer, got, want, None if packed else input.shape, label)))


def _state_hint(layer, got, want, shape, label: str) -> str:
    """``shape``: the input's, or None for a packed one."""
    if len(got) != len(want):
        what = "a packed" if shape is None else f"a {len(shape)}-D"
        return (f"for {what} input, {label} is {len(want)}-D: one state per layer "
                f"and direction{', per sample' if len(want) == 3 else ''}.")
    if len(want) == 3 and got == (want[1], want[0], want[2]):
        return (f"{label} keeps the layout (num_layers·num_directions, B, H) even with "
                f"batch_first=True: pass {label}.transpose(0, 1).")
    if len(want) == 3 and got[0] == want[0] and got[2] == want[2]:
        other = shape[1] if layer.batch_first else shape[0] if shape is not None else None
        if got[1] == other:
            looks = "time-major (T, B, C)" if layer.batch_first else "batch-first (B, T, C)"
            return (f"{label}'s batch {got[1]} is the input's dim "
                    f"{1 if layer.batch_first else 0}: the input looks {looks}; build the "
                    f"layer with batch_first={not layer.batch_first}, or pass "
                    "x.transpose(0, 1).")
        return f"the input's batch is {want[1]}; {label} needs one state per sample."
    if got[0] != want[0]:
        return (f"{label} holds one state per layer and direction: num_layers "
                f"{layer.num_layers} x directions {2 if layer.bidirectional else 1} = "
                f"{want[0]} in dim 0; or leave it out to start from zeros.")
    return f"start from zeros, nb.zeros{fmt_shape(want)}, or leave {label} out."
