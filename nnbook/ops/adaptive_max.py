"""Adaptive max pooling (PyTorch's ``F.adaptive_max_pool2d``, and ``F.adaptive_max_pool3d``).

The windows are adaptive average pooling's: output pixel (a, b) of (H_out, W_out) looks at
input rows floor(a·H / H_out) up to ceil((a + 1)·H / H_out), and likewise columns (and, in
a volume, planes); windows overlap when the output size does not divide the input's.  Each
output is its window's maximum, and the gradient goes to the first maximum (row-major), as
in max pooling; a window holding NaN outputs NaN and passes no gradient (see MaxPool2d).
The forward also keeps ``self.indices``, where each maximum is in its (H, W) plane
(row·W + column, the last NaN of a window holding NaN; in a volume's (D, H, W) block,
(plane·H + row)·W + column), for ``return_indices=True``.
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

    def windows(self, size, out):
        """Each output pixel (a, b) and its window of x: (slice of rows, slice of columns)."""
        spans = [window_starts_and_ends(s, o) for s, o in zip(size, out)]
        for place in np.ndindex(*out):
            yield place, tuple(slice(*spans[axis][a]) for axis, a in enumerate(place))

    def forward(self, x):
        n = self.spatial
        size, out, lead = x.shape[-n:], self.out_size(x.shape), x.shape[:-n]
        self.x_shape = x.shape
        y = np.empty(lead + out, x.dtype)
        self.first = np.empty(y.shape, np.intp)  # the flat index, in its window, of the max
        self.indices = np.empty(y.shape, np.int64)  # ... and in its (H, W) plane
        for place, box in self.windows(size, out):
            taps = math.prod(b.stop - b.start for b in box)
            window = x[(..., *box)].reshape(*lead, taps)  # (..., the window's taps, row-major)
            first = window.argmax(axis=-1)  # the first maximum (or the first NaN)
            y[(..., *place)] = np.take_along_axis(window, first[..., None], -1)[..., 0]
            self.first[(..., *place)] = first
            last_nan = window.shape[-1] - 1 - np.isnan(window[..., ::-1]).argmax(axis=-1)
            at = np.where(np.isnan(y[(..., *place)]), last_nan, first)  # PyTorch's choice
            self.indices[(..., *place)] = self.in_plane(at, box, size)
        self.first[np.isnan(y)] = -1  # a NaN window: no element gets the gradient
        return y

    @staticmethod
    def in_plane(at, box, size):
        """Flat places in a window (its ``box`` of slices) -> flat places in the whole plane
        (or block) of ``size``: row·W + column."""
        offsets = np.unravel_index(at, [b.stop - b.start for b in box])
        return np.ravel_multi_index([o + b.start for o, b in zip(offsets, box)], size)

    # dL/dx[..., r, c] = sum over the windows whose first maximum is (r, c) of dL/dy
    def backward(self, grad_out):
        n = self.spatial
        size, out = self.x_shape[-n:], grad_out.shape[-n:]
        grad_x = np.zeros(self.x_shape[:-n] + (math.prod(size),), grad_out.dtype)
        lead = np.indices(self.x_shape[:-n])  # every (n, c) index, to pair with a place
        for place, box in self.windows(size, out):
            first, g = self.first[(..., *place)], grad_out[(..., *place)]
            keep = first >= 0
            # within one window each (n, c) appears once, so += adds nothing twice
            at = self.in_plane(first[keep], box, size)
            grad_x[(*(i[keep] for i in lead), at)] += g[keep]
        return (grad_x.reshape(self.x_shape),)
