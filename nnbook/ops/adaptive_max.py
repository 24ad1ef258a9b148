"""Adaptive max pooling (PyTorch's ``F.adaptive_max_pool2d``).

The windows are adaptive average pooling's: output pixel (a, b) of (H_out, W_out) looks at
input rows floor(a·H / H_out) up to ceil((a + 1)·H / H_out), and likewise columns; windows
overlap when the output size does not divide the input's.  Each output is its window's
maximum, and the gradient goes to the first maximum (row-major), as in max pooling; a
window holding NaN outputs NaN and passes no gradient (see MaxPool2d).  The forward also
keeps ``self.indices``, where each maximum is in its (H, W) plane (row·W + column, the last
NaN of a window holding NaN), for ``return_indices=True``.
"""
from __future__ import annotations

import math

import numpy as np

from .pool import AdaptiveAvgPool2d


def window_starts_and_ends(size: int, out: int) -> list:
    """[(start, end)] of the ``out`` windows over ``size`` values, PyTorch's placement."""
    return [(a * size // out, math.ceil((a + 1) * size / out)) for a in range(out)]


class AdaptiveMaxPool2d(AdaptiveAvgPool2d):  # its arguments, checks and shape rule
    """y[..., a, b] = max of x over window (a, b)."""

    name = "adaptive_max_pool2d"

    def forward(self, x):
        (ho, wo), (h, w) = self.out_hw(x.shape), x.shape[-2:]
        self.rows, self.cols = window_starts_and_ends(h, ho), window_starts_and_ends(w, wo)
        self.x_shape = x.shape
        y = np.empty(x.shape[:-2] + (ho, wo), x.dtype)
        self.first = np.empty(y.shape, np.intp)  # the flat index, in its window, of the max
        self.indices = np.empty(y.shape, np.int64)  # ... and in its (H, W) plane
        for a, (r0, r1) in enumerate(self.rows):
            for b, (c0, c1) in enumerate(self.cols):
                window = x[..., r0:r1, c0:c1].reshape(*x.shape[:-2], (r1 - r0) * (c1 - c0))
                first = window.argmax(axis=-1)  # the first maximum (or the first NaN)
                y[..., a, b] = np.take_along_axis(window, first[..., None], -1)[..., 0]
                self.first[..., a, b] = first
                last_nan = window.shape[-1] - 1 - np.isnan(window[..., ::-1]).argmax(axis=-1)
                at = np.where(np.isnan(y[..., a, b]), last_nan, first)  # PyTorch's choice
                self.indices[..., a, b] = (r0 + at // (c1 - c0)) * w + c0 + at % (c1 - c0)
        self.first[np.isnan(y)] = -1  # a NaN window: no element gets the gradient
        return y

    # dL/dx[..., r, c] = sum over the windows whose first maximum is (r, c) of dL/dy
    def backward(self, grad_out):
        grad_x = np.zeros(self.x_shape, grad_out.dtype)
        lead = np.indices(self.x_shape[:-2])  # every (n, c) index, to pair with a (row, col)
        for a, (r0, _r1) in enumerate(self.rows):
            for b, (c0, c1) in enumerate(self.cols):
                first, g = self.first[..., a, b], grad_out[..., a, b]
                keep = first >= 0
                rows, cols = r0 + first // (c1 - c0), c0 + first % (c1 - c0)
                # within one window each (n, c) appears once, so += adds nothing twice
                grad_x[(*(i[keep] for i in lead), rows[keep], cols[keep])] += g[keep]
        return (grad_x,)
