"""One time step of a recurrent network, and the cells that take one step per call.

The three step functions below are the whole of the maths; ``RNN``, ``LSTM`` and ``GRU``
(recurrent.py) call them once per time step and layer, so autograd walks the unrolled
loop backwards: backpropagation through time.  Shapes: x (B, C) or (C,), h and c (B, H)
or (H,); the gates of all units are computed by one matrix product and cut into chunks
in PyTorch's order, so weights load across both ways.

    cell = nb.nn.LSTMCell(10, 20)
    h, c = cell(x_t)           # zeros as the first state
    h, c = cell(x_t, (h, c))   # the next step
"""
from __future__ import annotations

import math

import numpy as np

from ...dtypes import default_float
from ...errors import fmt_shape
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from ._args import check_device, positive_int
from .recurrent_checks import check_cell_input, check_nonlinearity, weight_t, zero_state


def rnn_step(x, h, w_ih, w_hh, b_ih=None, b_hh=None, nonlinearity="tanh"):
    """h_t = tanh(x_t @ W_ih.T + b_ih + h_{t-1} @ W_hh.T + b_hh)   (or relu)."""
    pre = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)        # (B, H)
    return pre.tanh() if nonlinearity == "tanh" else pre.relu()


def lstm_step(x, state, w_ih, w_hh, b_ih=None, b_hh=None, w_hr=None):
    """(h_t, c_t) from x_t and (h_{t-1}, c_{t-1}); gates i, f, g, o in PyTorch's order.

    The memory c is changed only by a gated sum, so its gradient can travel many steps.
    """
    h, c = state
    gates = F.linear(x, w_ih, b_ih) + F.linear(h, w_hh, b_hh)      # (B, 4H)
    i, f, g, o = gates.chunk(4, dim=-1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()   # input, forget, cell, output
    c = f * c + i * g            # keep part of the old memory, write part of the new
    h = o * c.tanh()             # show part of the memory
    if w_hr is not None:         # proj_size > 0: h is projected down to proj_size
        h = F.linear(h, w_hr)
    return h, c


def gru_step(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    """h_t from x_t and h_{t-1}; gates r, z, n in PyTorch's order.

    n = tanh(W_in x + b_in + r * (W_hn h + b_hn)): the reset gate r scales the hidden
    state's share *after* its matrix product, as PyTorch (and cuDNN) compute it.
    """
    x_r, x_z, x_n = F.linear(x, w_ih, b_ih).chunk(3, dim=-1)       # 3 x (B, H)
    h_r, h_z, h_n = F.linear(h, w_hh, b_hh).chunk(3, dim=-1)
    r = (x_r + h_r).sigmoid()    # reset: how much of the old state the candidate sees
    z = (x_z + h_z).sigmoid()    # update: how much of the old state to keep
    n = (x_n + r * h_n).tanh()   # the candidate state
    return (1 - z) * n + z * h


# ---------------------------------------------------------------------------
# The cells
# ---------------------------------------------------------------------------

class _CellBase(Module):
    """The parameters and checks RNNCell, LSTMCell and GRUCell share."""

    gates = 1  # gate blocks stacked in weight_ih's rows

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        cls = type(self).__name__
        check_device(cls, device)
        self.input_size = positive_int(cls, "input_size", input_size)
        self.hidden_size = positive_int(cls, "hidden_size", hidden_size)
        self.bias = bool(bias)
        dtype = np.dtype(dtype or default_float())
        rows = self.gates * self.hidden_size
        self.weight_ih = Parameter(np.empty((rows, self.input_size), dtype))
        self.weight_hh = Parameter(np.empty((rows, self.hidden_size), dtype))
        if self.bias:
            self.bias_ih = Parameter(np.empty((rows,), dtype))
            self.bias_hh = Parameter(np.empty((rows,), dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias uniform in +-1/sqrt(hidden_size), as PyTorch."""
        bound = 1 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _weights(self):
        return self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh

    def _state(self, input, hx, name="hx"):
        """The checked state, or zeros of the right shape when ``hx`` is None."""
        check_cell_input(self, input, hx, name)
        if hx is None:
            return zero_state(input, self.hidden_size, self.weight_ih.dtype)
        return hx

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if not self.bias:
            s += ", bias=False"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def shape_formula(self, input_shapes) -> list:
        """What one step computes, with this input's sizes (for nb.infer_shapes)."""
        x = input_shapes[0]
        lead, size, gates = x[:-1], self.hidden_size, self.gates
        h = fmt_shape(lead + (size,))
        out = "gates" if gates > 1 else "h'"
        return [f"x {fmt_shape(x)} @ W_ih^T {weight_t(self.input_size, gates, size)} + h {h} "
                f"@ W_hh^T {weight_t(size, gates, size)} -> {out} "
                f"{fmt_shape(lead + (gates * size,))}", *self._state_lines(h)]

    def _state_lines(self, h: str) -> list:
        return []


class RNNCell(_CellBase):
    """h' = tanh(x @ W_ih.T + b_ih + h @ W_hh.T + b_hh), one step (``nonlinearity='relu'``
    for relu).  forward(input (B, C) or (C,), hx (B, H) or (H,) = zeros) -> h' (B, H)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device=None, dtype=None):
        nonlinearity = check_nonlinearity("RNNCell", nonlinearity)
        super().__init__(input_size, hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        h = self._state(input, hx)
        return rnn_step(input, h, *self._weights(), nonlinearity=self.nonlinearity)


class LSTMCell(_CellBase):
    """One LSTM step.  forward(input, (h, c) = zeros) -> (h', c'), each (B, H) or (H,).

    i, f, g, o = chunks of x @ W_ih.T + b_ih + h @ W_hh.T + b_hh (4H wide);
    c' = sigmoid(f) * c + sigmoid(i) * tanh(g);  h' = sigmoid(o) * tanh(c').
    """

    gates = 4

    def forward(self, input, hx=None):
        state = self._state(input, hx, "(h, c)")
        if hx is None:
            state = (state, state)
        return lstm_step(input, state, *self._weights())

    def _state_lines(self, h: str) -> list:
        return [f"c' = f·c + i·g {h};  h' = o·tanh(c') {h}"]


class GRUCell(_CellBase):
    """One GRU step.  forward(input, hx = zeros) -> h' (B, H) or (H,).

    r, z = sigmoid(x W_ir^T + b_ir + h W_hr^T + b_hr), sigmoid(... z ...);
    n = tanh(x W_in^T + b_in + r * (h W_hn^T + b_hn));  h' = (1 - z) * n + z * h.
    """

    gates = 3

    def forward(self, input, hx=None):
        h = self._state(input, hx)
        return gru_step(input, h, *self._weights())

    def _state_lines(self, h: str) -> list:
        return [f"h' = (1 - z)·n + z·h {h}"]
