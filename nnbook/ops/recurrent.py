"""A recurrence over a whole sequence as one op: forward through time, backward through time.

nn.RNN, nn.LSTM and nn.GRU read best as a loop of small steps (nn/layers/recurrent_cells.py)
that autograd unrolls.  These ops compute the same thing for one layer and one direction
with one graph node instead of a dozen per step, and spell backpropagation through time
(BPTT) out: the backward walks the steps in reverse, carrying dL/dh (and dL/dc) from each
step to the one before it.

The input's share of the gates does not depend on h, so the layer computes it for every
step at once, gx = x @ W_ih^T + b_ih (T, B, G·H); the op adds h_{t-1} @ W_hh^T + b_hh.
``reverse=True`` runs from the last step to the first (a bidirectional layer's backward
direction); the output at position t is always the state after reading x_t.
"""
from __future__ import annotations

import numpy as np

from ..errors import fmt_shape
from .base import Op, quiet


def sigmoid(x):
    """1 / (1 + e^-x) without overflow (as the sigmoid op computes it)."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1, e) / (1 + e)


class _Sequence(Op):
    """The shape rule, the step order and dW_hh, db_hh, shared by the three recurrences.

    Inputs: gx (T, B, G·H), the initial state(s) (B, H), W_hh (G·H, H), b_hh (G·H,) or none.
    """

    gates = 1        # G: gate blocks in gx and W_hh
    states = 1       # h_0, or h_0 and c_0

    def __init__(self, reverse: bool = False):
        self.reverse = bool(reverse)

    def infer(self, gx, *rest):
        states, w_hh = rest[:self.states], rest[self.states]
        b_hh = rest[self.states + 1] if len(rest) > self.states + 1 else None
        if gx.ndim != 3 or gx.shape[-1] % self.gates:
            self.fail(f"expects the input's gates (T, B, {self.gates}·H), got "
                      f"{fmt_shape(gx.shape)}.")
        steps, batch, width = gx.shape
        size = width // self.gates
        if any(s.shape != (batch, size) for s in states):
            self.fail(f"expects states (B, H) = {fmt_shape((batch, size))}, got "
                      f"{', '.join(fmt_shape(s.shape) for s in states)}.")
        if w_hh.shape != (width, size) or (b_hh is not None and b_hh.shape != (width,)):
            self.fail(f"expects W_hh {fmt_shape((width, size))} and b_hh ({width},), got "
                      f"{fmt_shape(w_hh.shape)}"
                      f"{'' if b_hh is None else ' and ' + fmt_shape(b_hh.shape)}.")
        return self.out_shape(steps, batch, size)

    def out_shape(self, steps, batch, size):
        return (steps, batch, size)

    def order(self, steps: int) -> range:
        """The steps in the direction of travel."""
        return range(steps - 1, -1, -1) if self.reverse else range(steps)

    def previous(self, states, first):
        """s_{t-1} for every t, (T, B, H): ``first`` (h_0 or c_0) where travel begins."""
        if self.reverse:
            return np.concatenate([states[1:], first[None]])
        return np.concatenate([first[None], states[:-1]])

    def weight_grads(self, grad_gh, hs, h0):
        """gh_t = h_{t-1} W_hh^T + b_hh at every step: dW_hh = sum_t dgh_t^T h_{t-1} and
        db_hh = sum_t dgh_t, each one product over all steps at once."""
        need, w = self.needs_input_grad, 1 + self.states  # w: W_hh's place among the inputs
        flat = grad_gh.reshape(-1, grad_gh.shape[-1])
        grad_w = flat.T @ self.previous(hs, h0).reshape(-1, h0.shape[-1]) if need[w] else None
        if len(need) == w + 1:  # no b_hh
            return (grad_w,)
        return grad_w, flat.sum(0) if need[w + 1] else None


class RNNSequence(_Sequence):
    """h_t = tanh(gx_t + h_{t-1} W_hh^T + b_hh) (or relu) for every t: (T, B, H)."""

    def __init__(self, reverse: bool = False, nonlinearity: str = "tanh"):
        super().__init__(reverse)
        self.relu = nonlinearity == "relu"

    def forward(self, gx, h0, w_hh, b_hh=None):
        hs = np.empty_like(gx)
        h = h0
        for t in self.order(len(gx)):
            pre = gx[t] + h @ w_hh.T
            if b_hh is not None:
                pre += b_hh
            h = hs[t] = np.maximum(pre, 0) if self.relu else np.tanh(pre)
        self.hs, self.h0, self.w_hh = hs, h0, w_hh
        return hs.copy()  # PyTorch lets the output be changed in place: backward reads ours

    @quiet
    def backward(self, grad_out):  # h_t = act(a_t);  dL/da_t = dL/dh_t * act'(a_t)
        hs, w_hh = self.hs, self.w_hh
        grad_a = np.empty_like(hs)
        grad_h = np.zeros_like(self.h0)          # dL/dh_t from step t+1, none at the end
        for t in reversed(self.order(len(hs))):
            grad_h = grad_h + grad_out[t]
            # tanh' = 1 - h^2;  relu' = 1 where h > 0
            grad_a[t] = grad_h * (hs[t] > 0) if self.relu else grad_h * (1 - hs[t] * hs[t])
            grad_h = grad_a[t] @ w_hh            # a_t = ... + h_{t-1} W_hh^T
        return (grad_a, grad_h, *self.weight_grads(grad_a, hs, self.h0))


class LSTMSequence(_Sequence):
    """(h_t, c_t) for every t, as one array (2, T, B, H): out[0] holds h, out[1] holds c.

    gates = gx_t + h_{t-1} W_hh^T + b_hh, cut into i, f, g, o;
    c_t = f c_{t-1} + i g;  h_t = o tanh(c_t)   (i, f, o sigmoids, g a tanh).
    """

    gates, states = 4, 2

    def out_shape(self, steps, batch, size):
        return (2, steps, batch, size)

    def forward(self, gx, h0, c0, w_hh, b_hh=None):
        size = h0.shape[-1]
        acts = np.empty_like(gx)                 # i, f, g, o after their nonlinearities
        hc = np.empty((2,) + gx.shape[:2] + (size,), gx.dtype)
        h, c = h0, c0
        for t in self.order(len(gx)):
            gates = gx[t] + h @ w_hh.T
            if b_hh is not None:
                gates += b_hh
            i, f, g, o = np.split(acts[t], 4, axis=1)   # views: filled in place
            i[...], f[...] = sigmoid(gates[:, :size]), sigmoid(gates[:, size:2 * size])
            g[...], o[...] = np.tanh(gates[:, 2 * size:3 * size]), sigmoid(gates[:, 3 * size:])
            c = hc[1, t] = f * c + i * g
            h = hc[0, t] = o * np.tanh(c)
        self.acts, self.hc, self.h0, self.c0, self.w_hh = acts, hc, h0, c0, w_hh
        return hc.copy()  # the output may be changed in place: backward reads ours

    @quiet
    def backward(self, grad_out):
        hs, cs = self.hc
        c_prev = self.previous(cs, self.c0)
        grad_gates = np.empty_like(self.acts)
        grad_h, grad_c = np.zeros_like(self.h0), np.zeros_like(self.c0)  # from step t+1
        for t in reversed(self.order(len(hs))):
            i, f, g, o = np.split(self.acts[t], 4, axis=1)
            grad_i, grad_f, grad_g, grad_o = np.split(grad_gates[t], 4, axis=1)
            tanh_c = np.tanh(cs[t])
            grad_h = grad_h + grad_out[0, t]
            # h = o tanh(c): dh/do = tanh(c), dh/dc = o (1 - tanh(c)^2); c also feeds c_{t+1}
            grad_c = grad_c + grad_out[1, t] + grad_h * o * (1 - tanh_c * tanh_c)
            # c = f c_prev + i g, and each gate through its sigmoid (y' = y (1 - y)) or tanh
            grad_i[...] = grad_c * g * i * (1 - i)
            grad_f[...] = grad_c * c_prev[t] * f * (1 - f)
            grad_g[...] = grad_c * i * (1 - g * g)
            grad_o[...] = grad_h * tanh_c * o * (1 - o)
            grad_c = grad_c * f                  # dc_t/dc_{t-1} = f
            grad_h = grad_gates[t] @ self.w_hh   # gates = ... + h_{t-1} W_hh^T
        return (grad_gates, grad_h, grad_c, *self.weight_grads(grad_gates, hs, self.h0))


class GRUSequence(_Sequence):
    """h_t for every t: (T, B, H).

    gx_t = (x_r, x_z, x_n), gh_t = h_{t-1} W_hh^T + b_hh = (h_r, h_z, h_n);
    r = sigmoid(x_r + h_r), z = sigmoid(x_z + h_z), n = tanh(x_n + r h_n),
    h_t = (1 - z) n + z h_{t-1}.
    """

    gates = 3

    def forward(self, gx, h0, w_hh, b_hh=None):
        size = h0.shape[-1]
        hs = np.empty(gx.shape[:2] + (size,), gx.dtype)
        rzn = np.empty_like(gx)                  # r, z, n after their nonlinearities
        h_ns = np.empty_like(hs)                 # h_n: what r multiplies
        h = h0
        for t in self.order(len(gx)):
            gh = h @ w_hh.T
            if b_hh is not None:
                gh += b_hh
            a = rzn[t]
            a[:, :2 * size] = sigmoid(gx[t, :, :2 * size] + gh[:, :2 * size])   # r, z
            r, z = a[:, :size], a[:, size:2 * size]
            h_ns[t] = gh[:, 2 * size:]
            a[:, 2 * size:] = np.tanh(gx[t, :, 2 * size:] + r * h_ns[t])      # n
            h = hs[t] = (1 - z) * a[:, 2 * size:] + z * h
        self.hs, self.rzn, self.h_ns, self.h0, self.w_hh = hs, rzn, h_ns, h0, w_hh
        return hs.copy()  # PyTorch lets the output be changed in place: backward reads ours

    @quiet
    def backward(self, grad_out):
        hs, rzn = self.hs, self.rzn
        prev = self.previous(hs, self.h0)
        grad_gx = np.empty_like(rzn)
        grad_gh = np.empty_like(rzn)
        grad_h = np.zeros_like(self.h0)          # dL/dh_t from step t+1
        for t in reversed(self.order(len(hs))):
            r, z, n = np.split(rzn[t], 3, axis=1)
            grad_h = grad_h + grad_out[t]
            # h = (1 - z) n + z h_prev: dh/dn = 1 - z, dh/dz = h_prev - n, dh/dh_prev = z
            grad_n = grad_h * (1 - z) * (1 - n * n)          # through n's tanh
            grad_z = grad_h * (prev[t] - n) * z * (1 - z)    # through z's sigmoid
            grad_r = grad_n * self.h_ns[t] * r * (1 - r)     # n = tanh(x_n + r h_n)
            grad_gx[t] = np.concatenate([grad_r, grad_z, grad_n], axis=1)
            grad_gh[t] = np.concatenate([grad_r, grad_z, grad_n * r], axis=1)
            grad_h = grad_h * z + grad_gh[t] @ self.w_hh
        return (grad_gx, grad_h, *self.weight_grads(grad_gh, hs, self.h0))
