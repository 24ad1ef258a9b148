"""Sliding windows, what convolution and pooling are made of, and their adjoint.

A 2-D window op looks at the input through a window of kh×kw taps, moved by a
stride; tap (i, j) of the window at output pixel (h, w) reads::

    xp[..., s_h·h + d_h·i, s_w·w + d_w·j]        (xp: the padded input, d: dilation)

A 3-D op (a volume, (..., D, H, W)) has a third axis in front that works the same way:
a kernel of kd×kh×kw taps, and one more stride, dilation and padding.  Each function
here works on as many trailing axes as the kernel (or the padding) has.

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
    """x (..., H, W) with ``pads`` = ((top, bottom), (left, right)) rows/columns of ``value``;
    with three pairs, ((front, back), (top, bottom), (left, right)), x (..., D, H, W)."""
    return np.pad(x, ((0, 0),) * (x.ndim - len(pads)) + tuple(pads), constant_values=value)


def windows(xp, kernel, stride, dilation):
    """Every window of xp (..., Hp, Wp) as a view (..., H_out, W_out, kh, kw); with a 3-D
    kernel, of xp (..., Dp, Hp, Wp) as (..., D_out, H_out, W_out, kd, kh, kw)."""
    axes = tuple(range(-len(kernel), 0))
    reach = tuple(span(k, d) for k, d in zip(kernel, dilation))
    view = sliding_window_view(xp, reach, axis=axes)  # every position, every span
    steps = [slice(None, None, s) for s in stride] + [slice(None, None, d) for d in dilation]
    return view[(..., *steps)]


def add_windows(grad_windows, padded_hw, stride, dilation):
    """The adjoint of :func:`windows`: (..., H_out, W_out, kh, kw) -> (..., Hp, Wp), and
    likewise with a third axis.

    Tap (i, j) of every window is one strided slice of the padded input, so the
    windows go back tap by tap, each adding its slice (overlaps add up).
    """
    n = len(padded_hw)
    lead, out, kernel = (grad_windows.shape[:-2 * n], grad_windows.shape[-2 * n:-n],
                         grad_windows.shape[-n:])
    grad = np.zeros((*lead, *padded_hw), dtype=grad_windows.dtype)
    for tap in np.ndindex(*kernel):
        reads = tuple(slice(d * i, d * i + s * (o - 1) + 1, s)
                      for i, o, s, d in zip(tap, out, stride, dilation))
        grad[(..., *reads)] += grad_windows[(..., *tap)]
    return grad


def crop_hw(xp, pads):
    """The inverse of :func:`pad_hw`: the pixels of xp that came from x (a view)."""
    keep = tuple(slice(before, size - after)
                 for (before, after), size in zip(pads, xp.shape[-len(pads):]))
    return xp[(..., *keep)]
