"""LSTMSequence, faster: the reference op's maths (nnbook/ops/recurrent.py) in place.

A step of a small LSTM works on arrays of a few thousand numbers, where numpy spends more
time per call than per element; the reference makes a dozen fresh arrays a step.  Here
every array is made once per sequence and each step writes into views of it:

* the gates' input share and b_hh are added for all steps at once, before the loop;
* the sigmoids are computed with the g gate's tanh, in one call for all four gates;
* h_{t-1} for every step sits in one (T + 1, B, H) array, so dW_hh is one product;
* the backward multiplies by derivative factors computed for all steps at once before
  its loop (i (1 - i), ...), leaving eight numpy calls a step.

The numbers agree with the reference to rounding (tests/ops/test_recurrent_ops.py): the
sigmoid through tanh is within a few units in the last place of 1 (not of tiny values).
"""
from __future__ import annotations

import numpy as np

from ..ops.base import quiet, register_kernel
from ..ops.recurrent import LSTMSequence
from .memory import keep_freed_memory


@register_kernel(LSTMSequence)
class LSTMSequenceKernel(LSTMSequence):

    def forward(self, gx, h0, c0, w_hh, b_hh=None):
        keep_freed_memory()  # once: the arrays below are made again every sequence
        steps, batch, width = gx.shape
        size = width // 4
        # sigmoid(x) = (1 + tanh(x / 2)) / 2: with the rows of i, f and o halved (exactly:
        # a power of two) one tanh over all four gates serves the three sigmoids as well;
        # then `* scale + shift` turns i, f and o into sigmoids and leaves g as it is.
        scale = np.full(width, 0.5, gx.dtype)
        scale[2 * size:3 * size] = 1
        shift = np.where(scale == 1, 0, scale)                  # 0.5, and 0 for g
        w_t = np.ascontiguousarray(w_hh.T) * scale               # (H, 4H)
        acts = np.add(gx, b_hh) if b_hh is not None else gx.copy()   # i, f, g, o in place
        acts *= scale
        # h and c in the order of travel, the initial ones first: states[:, k] is what
        # step k reads and states[:, k + 1] what it writes, with no copying
        states = np.empty((2, steps + 1, batch, size), gx.dtype)
        states[0, 0], states[1, 0] = h0, c0
        tanh_c = np.empty((steps, batch, size), gx.dtype)
        product = np.empty((batch, width), gx.dtype)
        scratch = np.empty((batch, size), gx.dtype)
        for k, t in enumerate(self.order(steps)):
            a = acts[t]
            np.matmul(states[0, k], w_t, out=product)
            a += product                                   # the gates (i, f, o halved)
            np.tanh(a, out=a)
            a *= scale                                     # i, f, o: the sigmoids
            a += shift
            i, f, g, o = (a[:, n * size:(n + 1) * size] for n in range(4))
            c = states[1, k + 1]
            np.multiply(f, states[1, k], out=c)            # c = f c_prev + i g
            np.multiply(i, g, out=scratch)
            c += scratch
            np.tanh(c, out=tanh_c[t])
            np.multiply(o, tanh_c[t], out=states[0, k + 1])  # h = o tanh(c)
        self.acts, self.states, self.tanh_c, self.w_hh = acts, states, tanh_c, w_hh
        return self.by_time(states[:, 1:], axis=1).copy()  # ours stay as backward needs them

    def by_time(self, array, axis=0):
        """An array in the order of travel, in the order of time (a view)."""
        if not self.reverse:
            return array
        return array[(slice(None),) * axis + (slice(None, None, -1),)]

    def factors(self, c_prev, factor, o_dtanh) -> None:
        """The derivative factors of every step, written into ``factor`` (T, B, 4H) and
        ``o_dtanh`` (T, B, H).

        Each gate's gradient is dc (or dh) times a factor known from the forward:
        di = dc g i(1-i), df = dc c_prev f(1-f), dg = dc i (1-g^2), do = dh tanh(c) o(1-o),
        and dh/dc = o (1 - tanh(c)^2).  Whole arrays at a time: a dozen numpy calls in all.
        """
        acts, tanh_c = self.acts, self.tanh_c
        size = acts.shape[-1] // 4
        i, f, g, o = (acts[..., n * size:(n + 1) * size] for n in range(4))
        fi, ff, fg, fo = (factor[..., n * size:(n + 1) * size] for n in range(4))
        np.subtract(1, acts, out=factor)
        factor *= acts                                      # y (1 - y): i, f and o
        fi *= g
        ff *= c_prev
        fo *= tanh_c
        np.multiply(g, g, out=fg)                           # g: 1 - g^2, times i
        np.subtract(1, fg, out=fg)
        fg *= i
        np.multiply(tanh_c, tanh_c, out=o_dtanh)
        np.subtract(1, o_dtanh, out=o_dtanh)
        o_dtanh *= o

    @quiet
    def backward(self, grad_out):
        acts, w_hh = self.acts, self.w_hh
        steps, batch, width = acts.shape
        size = width // 4
        h_prev, c_prev = self.by_time(self.states[:, :-1], axis=1)   # (T, B, H) each
        f = acts[..., size:2 * size]
        # Written into arrays made once (a fresh array costs a page fault per 4 KiB)
        factor, grad_gates = np.empty((2,) + acts.shape, acts.dtype)
        o_dtanh = np.empty((steps, batch, size), acts.dtype)
        grad_h, grad_c = np.zeros((2, batch, size), acts.dtype)
        scratch = np.empty((batch, size), acts.dtype)
        self.factors(c_prev, factor, o_dtanh)
        for t in reversed(self.order(steps)):
            grad_h += grad_out[0, t]
            np.multiply(grad_h, o_dtanh[t], out=scratch)
            grad_c += scratch
            grad_c += grad_out[1, t]
            d = grad_gates[t].reshape(batch, 4, size)
            np.multiply(factor[t].reshape(batch, 4, size)[:, :3], grad_c[:, None], out=d[:, :3])
            np.multiply(factor[t, :, 3 * size:], grad_h, out=d[:, 3])
            grad_c *= f[t]                                 # dc_t/dc_{t-1} = f
            np.matmul(grad_gates[t], w_hh, out=grad_h)     # gates = ... + h_{t-1} W_hh^T
        need = self.needs_input_grad
        flat = grad_gates.reshape(-1, width)
        grads = [grad_gates, grad_h, grad_c,
                 flat.T @ h_prev.reshape(-1, size) if need[3] else None]
        if len(need) > 4:
            grads.append(flat.sum(0) if need[4] else None)
        return tuple(grads)
