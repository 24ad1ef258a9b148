"""Resizing a signal, an image or a volume (PyTorch's ``F.interpolate``): modes nearest,
nearest-exact, linear, bilinear, bicubic, trilinear and area.

Every output pixel is a weighted sum of input pixels, and the weights along the height do
not depend on the column (nor those along the width on the row).  So resizing is two
matrix products, one per spatial axis:

    y[n, c] = A_h · x[n, c] · A_wᵀ        A_h: (H_out, H), A_w: (W_out, W)

and a volume (N, C, D, H, W) has a third, A_d (D_out, D), along its depth.

Row i of A holds the weights output position i gives the input positions; with
scale = in / out (or 1 / scale_factor when that is given):
* nearest:        a single 1 at floor(i · scale);
* nearest-exact:  a single 1 at floor((i + ½) · scale), the nearest centre;
* linear:         (bilinear, trilinear: the same along each axis)
                  1 − t and t at the two neighbours of the source position
                  s = (i + ½)·scale − ½ (clamped at 0), t = s − floor(s); with
                  ``align_corners=True`` s = i · (in − 1) / (out − 1);
* bicubic:        four weights at floor(s) − 1 … floor(s) + 2 (s as linear's, not
                  clamped), from Keys' cubic with a = −0.75 (:func:`cubic`); a neighbour
                  past the border is read as the border pixel;
* area:           1 / window length over adaptive average pooling's window of output i
                  (``ops/pool.py``), 0 elsewhere.
The derivative is the same products transposed:  dL/dx[n, c] = A_hᵀ · dL/dy[n, c] · A_w.
Every input is resized as a volume: an image is a volume one plane deep, a signal one
plane deep and one row high (A_d and A_h are then the 1×1 matrix [1]).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, fmt_shape
from .base import Op, check_float, check_ndim, is_int, is_real
from .pool import averaging_matrix

# mode -> the numbers of dimensions it takes: signals (3), images (4), volumes (5)
MODES = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "area": (3, 4, 5), "linear": (3,),
         "bilinear": (4,), "bicubic": (4,), "trilinear": (5,)}
CUBIC_A = -0.75  # PyTorch's coefficient of the cubic convolution kernel


def cubic(d):
    """Keys' cubic convolution kernel at distance |d|: 1 at 0, 0 at 1 and 2, smooth between."""
    d, a = np.abs(d), CUBIC_A
    near = ((a + 2) * d - (a + 3)) * d * d + 1          # |d| <= 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a     # 1 < |d| < 2
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def source(size: int, out: int, align_corners: bool, step: float) -> np.ndarray:
    """Where each output position samples the input, in input pixels (not clamped)."""
    i = np.arange(out)
    if align_corners:
        return i * ((size - 1) / (out - 1)) if out > 1 else np.zeros(out)
    return (i + 0.5) * step - 0.5


def weights(size: int, out: int, mode: str, align_corners: bool, scale) -> np.ndarray:
    """The (out, size) matrix A of one axis (see the module docstring)."""
    if mode == "area":
        return averaging_matrix(size, out, np.float64)
    a = np.zeros((out, size))
    i = np.arange(out)
    step = size / out if scale is None else 1.0 / scale
    if mode in ("nearest", "nearest-exact"):
        # PyTorch rounds the scale, and the product, to float32: the same pixels as it picks
        step = np.float32(step)
        at = i.astype(np.float32) * step if mode == "nearest" else (i + 0.5) * np.float64(step)
        a[i, np.minimum(np.floor(at.astype(np.float32)).astype(int), size - 1)] = 1.0
        return a
    src = source(size, out, align_corners, step)
    if mode == "bicubic":
        low = np.floor(src).astype(int)
        t = src - low
        for k in (-1, 0, 1, 2):  # the four neighbours, those past the border on the border
            np.add.at(a, (i, np.clip(low + k, 0, size - 1)), cubic(t - k))
        return a
    src = np.maximum(src, 0.0)
    low = np.minimum(np.floor(src).astype(int), size - 1)
    high = np.minimum(low + 1, size - 1)
    lam = src - low
    np.add.at(a, (i, low), 1.0 - lam)
    np.add.at(a, (i, high), lam)
    return a


class Interpolate(Op):
    """y = A_h x A_wᵀ over the last two axes (the last one for a signal; A_d too for a
    volume)."""

    name = "interpolate"

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        if mode not in MODES:
            self.fail(f"mode={mode!r} is not one nnbook has.", cls=InputError,
                      hint="use 'nearest', 'nearest-exact', 'area' (any input), 'linear' "
                      "(signals), 'bilinear' or 'bicubic' (images), 'trilinear' (volumes).")
        if (size is None) == (scale_factor is None):
            self.fail("give exactly one of size and scale_factor.", cls=InputError,
                      hint="e.g. F.interpolate(x, scale_factor=2) or size=(14, 10).")
        if align_corners is not None and mode in ("nearest", "nearest-exact", "area"):
            self.fail("align_corners only applies to the modes 'linear', 'bilinear', "
                      "'bicubic' and 'trilinear'.", cls=InputError,
                      hint=f"leave align_corners out with mode={mode!r}.")
        if recompute_scale_factor and size is not None:
            self.fail("recompute_scale_factor=True only applies with scale_factor, not size.",
                      cls=InputError, hint="leave recompute_scale_factor out when giving size.")
        self.size, self.scale_factor = size, scale_factor
        self.mode, self.align_corners = mode, bool(align_corners)
        # True: the weights use in / out, as if the size had been given (not 1 / scale_factor)
        self.recompute_scale_factor = bool(recompute_scale_factor)

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
                   "(N, C, L) for 'linear', (N, C, H, W) for 'bilinear' and 'bicubic', "
                   "(N, C, D, H, W) for 'trilinear'")
        if min(x.shape[2:]) < 1:
            self.fail(f"expects an input with at least one pixel along each resized "
                      f"dimension, got {fmt_shape(x.shape)}.", cls=InputError,
                      hint="check the layer before this one: it gave an empty image.")
        out = self.out_size(x.shape)
        if min(out) < 1 and self.mode != "area":  # (area pools to an empty output as PyTorch)
            self.fail(f"the output would be empty: {out}.", cls=InputError,
                      hint="use a larger scale_factor or give size.")
        return tuple(x.shape[:2]) + out

    def _matrices(self, shape):
        out = self.out_size(shape)
        given = self.scale_factor is not None and not self.recompute_scale_factor
        scales = self._per_axis(self.scale_factor, len(out), "scale_factor", is_real) \
            if given else (None,) * len(out)
        mats = [weights(n, o, self.mode, self.align_corners, self._scale(n, o, s, len(out)))
                for n, o, s in zip(shape[2:], out, scales)]
        return [np.ones((1, 1))] * (3 - len(mats)) + mats  # one plane (and row), kept

    def _scale(self, size: int, out: int, scale, axes: int):
        """The scale_factor the weights use, None for in / out.  PyTorch takes two shortcuts
        that drop it: the linear modes copy an axis whose size does not change, and nearest
        copies (or doubles) an image's axis that keeps (or doubles) its size."""
        if self.mode in ("linear", "bilinear", "trilinear") and out == size:
            return None
        if self.mode == "nearest" and axes == 2 and out in (size, 2 * size):
            return None
        return scale

    def forward(self, x):
        self.a_d, self.a_h, self.a_w = (m.astype(x.dtype) for m in self._matrices(x.shape))
        volume = x.reshape(x.shape[:2] + (1,) * (5 - x.ndim) + x.shape[2:])  # (N, C, D, H, W)
        y = np.einsum("qd,oh,pw,ncdhw->ncqop", self.a_d, self.a_h, self.a_w, volume,
                      optimize=True)
        return y.reshape(y.shape[:2] + y.shape[7 - x.ndim:])  # the planes (and rows) added

    # dL/dx = A_hᵀ · dL/dy · A_w, per (n, c), and A_dᵀ along a volume's depth
    def backward(self, grad_out):
        g = grad_out.reshape(grad_out.shape[:2] + (1,) * (5 - grad_out.ndim) +
                             grad_out.shape[2:])
        grad_x = np.einsum("qd,oh,pw,ncqop->ncdhw", self.a_d, self.a_h, self.a_w, g,
                           optimize=True)
        return (grad_x.reshape(grad_x.shape[:2] + grad_x.shape[7 - grad_out.ndim:]),)
