"""Resizing an image or a signal (PyTorch's ``F.interpolate``, modes nearest, linear, bilinear).

Every output pixel is a weighted sum of input pixels, and the weights along the height do
not depend on the column (nor those along the width on the row).  So resizing is two
matrix products, one per spatial axis:

    y[n, c] = A_h · x[n, c] · A_wᵀ        A_h: (H_out, H), A_w: (W_out, W)

Row i of A holds the weights output position i gives the input positions:
* nearest:  a single 1 at floor(i · scale), scale = in / out (or 1 / scale_factor);
* linear:   1 − λ and λ at the two neighbours of the source position s = (i + ½)·scale − ½
            (clamped at 0), or s = i · (in − 1) / (out − 1) with ``align_corners=True``.
The derivative is the same products transposed:  dL/dx[n, c] = A_hᵀ · dL/dy[n, c] · A_w.
A signal (N, C, L) is an image one row high (A_h is the 1×1 matrix [1]).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError
from .base import Op, check_float, check_ndim, is_int, is_real

MODES = {"nearest": (3, 4), "linear": (3,), "bilinear": (4,)}


def weights(size: int, out: int, mode: str, align_corners: bool, scale) -> np.ndarray:
    """The (out, size) matrix A of one axis (see the module docstring)."""
    a = np.zeros((out, size))
    i = np.arange(out)
    step = size / out if scale is None else 1.0 / scale
    if mode == "nearest":
        a[i, np.minimum(np.floor(i * step).astype(int), size - 1)] = 1.0
        return a
    if align_corners:
        src = i * ((size - 1) / (out - 1)) if out > 1 else np.zeros(out)
    else:
        src = np.maximum((i + 0.5) * step - 0.5, 0.0)
    low = np.minimum(np.floor(src).astype(int), size - 1)
    high = np.minimum(low + 1, size - 1)
    lam = src - low
    np.add.at(a, (i, low), 1.0 - lam)
    np.add.at(a, (i, high), lam)
    return a


class Interpolate(Op):
    """y = A_h x A_wᵀ over the last two axes (the last one for a signal)."""

    name = "interpolate"

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None):
        if mode not in MODES:
            self.fail(f"mode={mode!r} is not one nnbook has.", cls=InputError,
                      hint="use 'nearest', 'linear' (signals) or 'bilinear' (images).")
        if (size is None) == (scale_factor is None):
            self.fail("give exactly one of size and scale_factor.", cls=InputError,
                      hint="e.g. F.interpolate(x, scale_factor=2) or size=(14, 10).")
        if align_corners is not None and mode == "nearest":
            self.fail("align_corners only applies to the linear modes.", cls=InputError,
                      hint="leave align_corners out with mode='nearest'.")
        self.size, self.scale_factor = size, scale_factor
        self.mode, self.align_corners = mode, bool(align_corners)

    def _per_axis(self, value, axes: int, what: str, ok) -> tuple:
        values = tuple(value) if isinstance(value, (tuple, list)) else (value,) * axes
        if len(values) != axes or not all(ok(v) for v in values):
            self.fail(f"{what}={value!r} must be one positive number or {axes} of them.",
                      cls=InputError, hint=f"e.g. {what}=2 or a tuple of {axes}.")
        return values

    def out_size(self, shape) -> tuple:
        """The output's spatial size, from size or from floor(in · scale_factor)."""
        axes = len(shape) - 2
        if self.size is not None:
            return self._per_axis(self.size, axes, "size", lambda v: is_int(v) and v > 0)
        scales = self._per_axis(self.scale_factor, axes, "scale_factor",
                                lambda v: is_real(v) and v > 0)
        return tuple(math.floor(n * s) for n, s in zip(shape[2:], scales))

    def infer(self, x):
        check_float(self, x)
        check_ndim(self, x, MODES[self.mode], "input",
                   "(N, C, L) for 'linear', (N, C, H, W) for 'bilinear'")
        out = self.out_size(x.shape)
        if min(out) < 1:
            self.fail(f"the output would be empty: {out}.", cls=InputError,
                      hint="use a larger scale_factor or give size.")
        return tuple(x.shape[:2]) + out

    def _matrices(self, shape):
        out = self.out_size(shape)
        scales = (None,) * len(out) if self.scale_factor is None else self._per_axis(
            self.scale_factor, len(out), "scale_factor", is_real)
        mats = [weights(n, o, self.mode, self.align_corners, s)
                for n, o, s in zip(shape[2:], out, scales)]
        return [np.ones((1, 1))] * (2 - len(mats)) + mats  # a signal: one row, kept

    def forward(self, x):
        self.signal = x.ndim == 3
        self.a_h, self.a_w = (m.astype(x.dtype) for m in self._matrices(x.shape))
        image = x[:, :, None] if self.signal else x
        y = np.einsum("oh,nchw,pw->ncop", self.a_h, image, self.a_w, optimize=True)
        return y[:, :, 0] if self.signal else y

    # dL/dx = A_hᵀ · dL/dy · A_w, per (n, c)
    def backward(self, grad_out):
        g = grad_out[:, :, None] if self.signal else grad_out
        grad_x = np.einsum("oh,ncop,pw->nchw", self.a_h, g, self.a_w, optimize=True)
        return (grad_x[:, :, 0] if self.signal else grad_x,)
