"""RNN, LSTM and GRU: one cell step (recurrent_cells.py) looped over time, layers, directions.

    lstm = nb.nn.LSTM(input_size=10, hidden_size=20, num_layers=2, batch_first=True)
    output, (h_n, c_n) = lstm(x)          # x (B, T, 10) -> output (B, T, 20)

Shapes are PyTorch's.  The input is (T, B, C), or (B, T, C) with ``batch_first=True``, or
(T, C) for one sequence.  ``output`` holds the last layer's h at every step, (T, B, D·H)
with D = 2 when ``bidirectional`` (the forward direction in the first H columns).  The
states h_0, h_n (and c_0, c_n) are (num_layers·D, B, H) whatever ``batch_first`` says,
layer k's forward direction in row k·D and its backward direction after it.  Parameters
are named weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k} (and weight_hr_l{k}
with ``proj_size``), with a '_reverse' suffix for the backward direction, so state dicts
load across both ways.  ``dropout`` acts on each layer's output but the last's, while
training.

A PackedSequence (``nn.utils.rnn.pack_padded_sequence(x, lengths)``) is read as PyTorch
reads it: the output is packed too, and h_n (and c_n) hold each sequence's state after its
own last step, in the caller's batch order.  :meth:`RNNBase._packed_loop` runs step t on
the sequences that have a step t only.

How it runs: :meth:`RNNBase._loop` is the loop to read -- one step function per time
step, autograd unrolls it, and ``backward()`` is backpropagation through time.  Outside
inspection it hands each direction of each layer to one op instead
(``nnbook/ops/recurrent.py``, the same maths with BPTT written out), which is much faster;
``with nb.reference_ops():`` runs the loop.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ... import context
from ...creation import cat, stack
from ...dtypes import default_float
from ...errors import ArgumentError, InputError, fmt_shape, message, warn_from_user_code
from ...ops.recurrent import GRUSequence, LSTMSequence, RNNSequence
from ...tensor import apply
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from ._args import check_device, positive_int
from .recurrent_cells import gru_step, lstm_step, rnn_step
from .recurrent_checks import (
    check_layer_input,
    check_layer_state,
    check_nonlinearity,
    check_packed_input,
    read_as,
    weight_t,
    zeros,
)

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters, the checks and the loops."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None, dtype=None):
        super().__init__()
        cls = type(self).__name__
        check_device(cls, device)
        self.mode = mode
        self.input_size = positive_int(cls, "input_size", input_size)
        self.hidden_size = positive_int(cls, "hidden_size", hidden_size)
        self.num_layers = positive_int(cls, "num_layers", num_layers)
        self.bias, self.batch_first = bool(bias), bool(batch_first)
        self.bidirectional = bool(bidirectional)
        self.dropout = _check_dropout(cls, dropout, self.num_layers)
        self.proj_size = _check_proj_size(cls, mode, proj_size, self.hidden_size)
        dtype = np.dtype(dtype or default_float())
        rows = _GATES[mode] * self.hidden_size
        out = self.proj_size or self.hidden_size  # the size of h
        directions = 2 if self.bidirectional else 1
        self._flat_weights_names, self._all_weights = [], []
        for layer in range(self.num_layers):
            for suffix in ("", "_reverse")[:directions]:
                layer_input = self.input_size if layer == 0 else out * directions
                shapes = {"weight_ih": (rows, layer_input), "weight_hh": (rows, out)}
                if self.bias:
                    shapes.update(bias_ih=(rows,), bias_hh=(rows,))
                if self.proj_size:
                    shapes["weight_hr"] = (self.proj_size, self.hidden_size)
                names = [f"{name}_l{layer}{suffix}" for name in shapes]
                for name, shape in zip(names, shapes.values()):
                    setattr(self, name, Parameter(np.empty(shape, dtype)))
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in +-1/sqrt(hidden_size), as PyTorch."""
        bound = 1 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    @property
    def all_weights(self) -> list:
        """The parameters of each layer and direction, in PyTorch's order."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """PyTorch packs the weights for cuDNN here; nnbook has nothing to pack."""

    # ------------------------------------------------------------------ forward
    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        check_layer_input(self, input)
        batched = input.ndim == 3
        x = input if batched else input.unsqueeze(1)      # (T, B, C) from here on
        if self.batch_first and batched:
            x = x.transpose(0, 1)
        states = self._initial_states(hx, input, x.shape[1])
        x, finals = self._layers(x, states, self._run)
        if self.batch_first and batched:
            x = x.transpose(0, 1)
        return self._finish(x if batched else x.squeeze(1), finals, batched)

    def _layers(self, x, states, run):
        """Every layer and direction in turn, each reading the layer below's output (both
        directions side by side): (the last layer's output, every final state)."""
        directions = 2 if self.bidirectional else 1
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                out, final = run(x, states[k], k, reverse=direction == 1)
                outputs.append(out)
                finals.append(final)
            x = outputs[0] if directions == 1 else cat(outputs, dim=-1)  # (..., D·H)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)
        return x, finals

    def _forward_packed(self, packed, hx):
        """A PackedSequence in, a PackedSequence out; h_n (and c_n) hold each sequence's
        state after its own last step, in the caller's batch order."""
        check_packed_input(self, packed)
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        sizes = [int(n) for n in np.asarray(batch_sizes)]
        states = self._initial_states(hx, packed, sizes[0], order=sorted_indices)

        def run(x, state, k, reverse):
            return self._packed_loop(x, sizes, state, k, reverse)

        out, finals = self._layers(data, states, run)
        output, h_n = self._finish(out, finals, batched=True)
        if unsorted_indices is not None:    # the states back in the caller's order
            h_n = tuple(h.index_select(1, unsorted_indices) for h in h_n) \
                if self.mode == "LSTM" else h_n.index_select(1, unsorted_indices)
        return packed._replace(data=output), h_n

    def _run(self, x, state, k: int, reverse: bool):
        """One direction of one layer over the whole sequence: (outputs, final state)."""
        weights = self._weights(k)
        fused = context.kernels_enabled and not self.proj_size and (
            not context.observers or context.shape_only())
        if fused:
            return self._sequence_op(x, state, weights, reverse)
        return self._loop(x, state, weights, k, reverse)

    def _sequence_op(self, x, state, weights, reverse: bool):
        """The fast way: the same maths as one op per direction (nnbook/ops/recurrent.py)."""
        from ...kernels import recurrent  # noqa: F401  registers the faster LSTM on first use
        w_ih, w_hh, b_ih, b_hh, _ = weights
        steps, batch = x.shape[:2]        # the input's share of the gates, every step at once:
        flat = x.reshape(steps * batch, -1)
        last = 0 if reverse else -1       # where the direction of travel ends
        if self.mode == "LSTM":           # both biases add to every gate: added once, together
            bias = () if b_hh is None else (b_hh if b_ih is None else b_ih + b_hh,)
            gx = F.linear(flat, w_ih, None if bias else b_ih).reshape(steps, batch, -1)
            h0, c0 = state
            hc = apply(LSTMSequence(reverse), gx, h0, c0, w_hh, *bias)   # (2, T, B, H)
            return hc[0], (hc[0, last], hc[1, last])
        gx = F.linear(flat, w_ih, b_ih).reshape(steps, batch, -1)
        bias = () if b_hh is None else (b_hh,)
        op = GRUSequence(reverse) if self.mode == "GRU" else \
            RNNSequence(reverse, "tanh" if self.mode == "RNN_TANH" else "relu")
        hs = apply(op, gx, state, w_hh, *bias)
        return hs, hs[last]

    def _loop(self, x, state, weights, k: int, reverse: bool):
        """The readable way: one cell step per time step.  x (T, B, C) -> h (T, B, H)."""
        steps = x.unbind(0)
        hs = [None] * len(steps)
        order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
        for t in order:
            state = self._step(steps[t], state, *weights)
            hs[t] = state[0] if self.mode == "LSTM" else state
            for observer in context.observers:  # e.g. nb.inspect.gradients_over_time
                observer.recurrent_step(self, k, t, hs[t])
        return stack(hs), state

    def _packed_loop(self, data, batch_sizes, state, k: int, reverse: bool):
        """One direction of one layer over packed data (N, C) -> (N, H), one step per call.

        The sequences are sorted longest first, so the ones that have a step t are the
        first batch_sizes[t]: step t runs on those rows only, and the other rows keep
        their state.  Going forward, a sequence that has ended keeps its last state;
        going backward, one that has not begun keeps h_0 -- so each starts from its own
        last step.  The fast sequence ops take no lengths, so this always loops."""
        weights = self._weights(k)
        starts = np.concatenate([[0], np.cumsum(batch_sizes)[:-1]])
        steps = len(batch_sizes)
        hs = [None] * steps
        for t in (range(steps - 1, -1, -1) if reverse else range(steps)):
            n = batch_sizes[t]
            x_t = data[starts[t]:starts[t] + n]                          # (n, C)
            new = self._step(x_t, _rows(state, slice(0, n)), *weights)  # (n, H)
            hs[t] = new[0] if self.mode == "LSTM" else new
            if n < batch_sizes[0]:                      # the rows past n keep their state
                new = _join(new, _rows(state, slice(n, None)))
            state = new
            for observer in context.observers:  # h_t of the sequences that have a step t
                observer.recurrent_step(self, k, t, hs[t])
        return cat(hs), state

    def _step(self, x, state, w_ih, w_hh, b_ih, b_hh, w_hr):
        if self.mode == "LSTM":
            return lstm_step(x, state, w_ih, w_hh, b_ih, b_hh, w_hr)
        if self.mode == "GRU":
            return gru_step(x, state, w_ih, w_hh, b_ih, b_hh)
        return rnn_step(x, state, w_ih, w_hh, b_ih, b_hh,
                        "tanh" if self.mode == "RNN_TANH" else "relu")

    def _weights(self, k: int) -> tuple:
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of layer-and-direction k, None where absent."""
        directions = 2 if self.bidirectional else 1
        suffix = f"_l{k // directions}" + ("_reverse" if k % directions else "")
        return tuple(self._parameters.get(name + suffix)
                     for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr"))

    def _initial_states(self, hx, input, batch: int, order=None) -> list:
        """One state per layer and direction: (B, H) tensors, or (h, c) pairs for an LSTM.
        ``order``: the batch's rows in the order they run (a packed batch's sorted_indices)."""
        directions = 2 if self.bidirectional else 1
        count = self.num_layers * directions
        dtype = self.weight_ih_l0.dtype.numpy
        sizes = [self.proj_size or self.hidden_size]
        labels = ["h_0"]
        if self.mode == "LSTM":
            sizes.append(self.hidden_size)
            labels.append("c_0")
        if hx is None:
            per_kind = [[zeros((batch, size), dtype)] * count for size in sizes]
        else:
            given = self._split_hx(hx)
            per_kind = []
            for h, label, size in zip(given, labels, sizes):
                check_layer_state(self, h, input, label, size)
                if h.ndim == 2:          # unbatched: a batch of one
                    h = h.unsqueeze(1)
                if order is not None:
                    h = h.index_select(1, order)
                per_kind.append(list(h.unbind(0)))
        return list(zip(*per_kind)) if self.mode == "LSTM" else per_kind[0]

    def _split_hx(self, hx) -> list:
        cls = type(self).__name__
        if self.mode == "LSTM":
            if isinstance(hx, (tuple, list)) and len(hx) == 2:
                return list(hx)
            raise ArgumentError(message(
                f"takes its initial state as a pair (h_0, c_0), got "
                f"{_describe(hx)}.", hint="pass lstm(x, (h_0, c_0)), or leave the state out "
                "to start from zeros."))
        if isinstance(hx, (tuple, list)):
            raise ArgumentError(message(
                f"takes one initial state h_0, got a {type(hx).__name__} of {len(hx)}.",
                hint=f"only an LSTM takes a pair (h_0, c_0); pass {cls.lower()}(x, h_0)."))
        return [hx]

    def _finish(self, output, finals, batched: bool):
        """(output, h_n), or (output, (h_n, c_n)) for an LSTM; h_n (num_layers·D, B, H)."""
        def states(which):
            s = stack(which)
            return s if batched else s.squeeze(1)
        if self.mode == "LSTM":
            return output, (states([h for h, _ in finals]), states([c for _, c in finals]))
        return output, states(finals)

    # ----------------------------------------------------------------- printing
    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if not self.bias:
            s += ", bias=False"
        if self.batch_first:
            s += ", batch_first=True"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional:
            s += ", bidirectional=True"
        return s

    def shape_formula(self, input_shapes) -> list:
        """One step's shapes per layer and the states' shapes (for nb.infer_shapes)."""
        x = tuple(input_shapes[0])
        if len(x) not in (2, 3):
            return []
        batched = len(x) == 3
        steps = x[1] if batched and self.batch_first else x[0]
        lead = ((x[0] if self.batch_first else x[1]),) if batched else ()
        gates, size = _GATES[self.mode], self.hidden_size
        out = self.proj_size or size
        dirs = 2 if self.bidirectional else 1
        h = fmt_shape(lead + (out,))
        lines = [f"input read as {read_as(self, x)}: {steps} steps"]
        for layer in range(min(self.num_layers, 2)):
            n_in = self.input_size if layer == 0 else dirs * out
            which = "layer 0" if layer == 0 else (
                "layer 1" if self.num_layers == 2 else f"layers 1-{self.num_layers - 1}")
            result = "gates" if gates > 1 else "h_t"
            lines.append(
                f"{which}, each step{' and direction' if dirs == 2 else ''}: x_t "
                f"{fmt_shape(lead + (n_in,))} @ W_ih^T {weight_t(n_in, gates, size)} + "
                f"h_{{t-1}} {h} @ W_hh^T {weight_t(out, gates, size)} -> {result} "
                f"{fmt_shape(lead + (gates * size,))}")
        c = fmt_shape(lead + (size,))
        if self.mode == "LSTM":
            lines.append(f"c_t = f·c_{{t-1}} + i·g {c};  h_t = o·tanh(c_t) {c}" + (
                f" @ W_hr^T ({size}, {out}) -> {h}" if self.proj_size else ""))
        elif self.mode == "GRU":
            lines.append(f"h_t = (1 - z)·n + z·h_{{t-1}} {h}")
        b = "B, " if batched else ""
        order = ("(B, T, " if self.batch_first else "(T, B, ") if batched else "(T, "
        shape = (x[0], x[1], dirs * out) if batched else (x[0], dirs * out)
        lines.append(f"output {order}dirs·H) = {fmt_shape(shape)}")
        stacked = (self.num_layers * dirs,) + lead
        lines.append(f"h_n (num_layers·dirs, {b}H) = {fmt_shape(stacked + (out,))}")
        if self.mode == "LSTM":
            lines.append(f"c_n (num_layers·dirs, {b}H) = {fmt_shape(stacked + (size,))}")
        return lines

    def packed_shape_formula(self, packed) -> list:
        """The shapes of a run on a PackedSequence (for nb.infer_shapes): step t reads the
        rows of the sequences that have a step t."""
        sizes = [int(n) for n in np.asarray(packed.batch_sizes)]
        batch, rows = sizes[0], packed.data.shape[0]
        lengths = [sum(n > i for n in sizes) for i in range(batch)]
        gates, size = _GATES[self.mode], self.hidden_size
        out = self.proj_size or size
        dirs = 2 if self.bidirectional else 1
        lines = [f"input packed: {batch} sequences of lengths {lengths} (longest first), "
                 f"data (N, C) = {fmt_shape(packed.data.shape)}",
                 f"step t reads the first batch_sizes[t] rows, batch_sizes = {sizes}"]
        for layer in range(self.num_layers):
            n_in = self.input_size if layer == 0 else dirs * out
            lines.append(
                f"layer {layer}, each step{' and direction' if dirs == 2 else ''}: x_t "
                f"(b_t, {n_in}) @ W_ih^T {weight_t(n_in, gates, size)} + h_{{t-1}} "
                f"(b_t, {out}) @ W_hh^T {weight_t(out, gates, size)} -> (b_t, {gates * size})")
        lines.append(f"output packed: data (N, dirs·H) = {fmt_shape((rows, dirs * out))}")
        stacked = (self.num_layers * dirs, batch)
        lines.append(f"h_n (num_layers·dirs, B, H) = {fmt_shape(stacked + (out,))}, each "
                     "sequence's state after its own last step")
        if self.mode == "LSTM":
            lines.append(f"c_n (num_layers·dirs, B, H) = {fmt_shape(stacked + (size,))}")
        return lines


def _rows(state, rows: slice):
    """Some rows of a state: of h, or of both h and c."""
    return tuple(s[rows] for s in state) if isinstance(state, tuple) else state[rows]


def _join(first, rest):
    """A state from the rows of two: (first rows, rest)."""
    if isinstance(first, tuple):
        return tuple(cat([a, b]) for a, b in zip(first, rest))
    return cat([first, rest])


def _describe(value) -> str:
    from ...tensor import Tensor

    if isinstance(value, Tensor):
        return f"one Tensor of shape {fmt_shape(value.shape)}"
    return f"a {type(value).__name__}"


def _check_dropout(cls: str, dropout, num_layers: int) -> float:
    if not isinstance(dropout, numbers.Real) or isinstance(dropout, bool) \
            or not 0 <= dropout <= 1:
        raise InputError(message(
            f"dropout must be a probability between 0 and 1, got {dropout!r}.", where=cls,
            hint="dropout=0.2 zeroes a fifth of each layer's outputs (but the last layer's) "
            "while training."))
    if dropout > 0 and num_layers == 1:
        warn_from_user_code(UserWarning(message(
            f"dropout={dropout} acts between stacked layers only, so with num_layers=1 it "
            "does nothing.", where=cls, hint="use num_layers >= 2, or put an nn.Dropout "
            "on the output.", line=False)))
    return float(dropout)


def _check_proj_size(cls: str, mode: str, proj_size, hidden_size: int) -> int:
    if isinstance(proj_size, bool) or not isinstance(proj_size, numbers.Integral) \
            or proj_size < 0:
        raise InputError(message(f"proj_size must be an int >= 0, got {proj_size!r}.",
                                 where=cls, hint="proj_size=0 (the default) projects nothing."))
    if proj_size and mode != "LSTM":
        raise InputError(message(f"proj_size is an LSTM argument; {cls} has none.",
                                 where=cls, hint="leave proj_size out, or use nn.LSTM."))
    if proj_size >= hidden_size:
        raise InputError(message(
            f"proj_size ({proj_size}) must be smaller than hidden_size ({hidden_size}).",
            where=cls, hint="the projection makes h smaller than c; proj_size=0 turns it off."))
    return int(proj_size)


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t @ W_ih.T + b_ih + h_{t-1} @ W_hh.T + b_hh) at every step
    (``nonlinearity='relu'`` for relu).  forward(input, h_0=zeros) -> (output, h_n)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device=None, dtype=None):
        self.nonlinearity = check_nonlinearity("RNN", nonlinearity)
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, 0, device, dtype)


class LSTM(RNNBase):
    """Long short-term memory: forward(input, (h_0, c_0)=zeros) -> (output, (h_n, c_n)).

    Each step: i, f, g, o from x_t @ W_ih.T + b_ih + h_{t-1} @ W_hh.T + b_hh;
    c_t = sigmoid(f) * c_{t-1} + sigmoid(i) * tanh(g);  h_t = sigmoid(o) * tanh(c_t)
    (then h_t @ W_hr.T when ``proj_size`` > 0).
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit: forward(input, h_0=zeros) -> (output, h_n).

    Each step: r, z = sigmoid of their gate blocks; n = tanh(W_in x + b_in + r * (W_hn h +
    b_hn));  h_t = (1 - z) * n + z * h_{t-1}.
    """

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, 0, device, dtype)
