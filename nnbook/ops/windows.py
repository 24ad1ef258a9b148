"""Sliding windows, what convolution and pooling are made of, and their adjoint.

A 2-D window op looks at the input through a window of kh×kw taps, moved by a
stride; tap (i, j) of the window at output pixel (h, w) reads::

    xp[..., s_h·h + d_h·i, s_w·w + d_w·j]        (xp: the padded input, d: dilation)

``windows`` shows every window at once as a view (no copy); ``add_windows`` is
its adjoint, which backward needs: each window's gradient is added back onto the
pixels the window read (windows overlap when the stride is smaller than the span).
"""
from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view


def span(kernel: int, dilation: int) -> int:
    """Input pixels one dilated kernel row covers: d·(k − 1) + 1."""
    return dilation * (kernel - 1) + 1


def out_length(size: int, kernel: int, stride: int, dilation: int, pads=(0, 0)) -> int:
    """How many windows fit along one axis: floor((size + pads − d·(k − 1) − 1) / s) + 1."""
    return (size + pads[0] + pads[1] - span(kernel, dilation)) // stride + 1


def pad_hw(x, pads, value=0.0):
    """x (..., H, W) with ``pads`` = ((top, bottom), (left, right)) rows/columns of ``value``."""
    return np.pad(x, ((0, 0),) * (x.ndim - 2) + tuple(pads), constant_values=value)


def windows(xp, kernel, stride, dilation):
    """Every window of xp (..., Hp, Wp) as a view (..., H_out, W_out, kh, kw)."""
    reach = (span(kernel[0], dilation[0]), span(kernel[1], dilation[1]))
    view = sliding_window_view(xp, reach, axis=(-2, -1))  # every position, every span
    return view[..., ::stride[0], ::stride[1], ::dilation[0], ::dilation[1]]


def add_windows(grad_windows, padded_hw, stride, dilation):
    """The adjoint of :func:`windows`: (..., H_out, W_out, kh, kw) -> (..., Hp, Wp).

    Tap (i, j) of every window is one strided slice of the padded input, so the
    windows go back tap by tap, each adding its slice (overlaps add up).
    """
    *lead, ho, wo, kh, kw = grad_windows.shape
    (sh, sw), (dh, dw) = stride, dilation
    grad = np.zeros((*lead, *padded_hw), dtype=grad_windows.dtype)
    for i, j in np.ndindex(kh, kw):
        rows = slice(dh * i, dh * i + sh * (ho - 1) + 1, sh)
        cols = slice(dw * j, dw * j + sw * (wo - 1) + 1, sw)
        grad[..., rows, cols] += grad_windows[..., i, j]
    return grad


def crop_hw(xp, pads):
    """The inverse of :func:`pad_hw`: the pixels of xp that came from x (a view)."""
    (top, bottom), (left, right) = pads
    return xp[..., top:xp.shape[-2] - bottom, left:xp.shape[-1] - right]
