"""Pooling (PyTorch's ``F.max_pool2d``, ``F.avg_pool2d``, ``F.adaptive_avg_pool2d``).

Each output pixel summarises one window of its own channel (``ops/windows.py``):
max pooling takes the window's largest element, average pooling its mean.
Inputs are (N, C, H, W), or (C, H, W) for one unbatched sample as in PyTorch, and
must be floating point (PyTorch also pools integers; nnbook refuses them with a hint).
The 3-D pools (``ops/threedim.py``) are these classes with ``spatial = 3``: volumes
(N, C, D, H, W) with windows of kd×kh×kw, every rule here taken one axis further.

This is the reference; ``nnbook/kernels/pool.py`` computes the same numbers faster.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from ..errors import DTypeError, InputError, fmt_shape
from .base import Op, check_ndim, fmt_pair, is_int, per_axis
from .conv import DOT, MINUS
from .windows import add_windows, crop_hw, pad_hw, span, windows

AXES = ("depth", "height", "width")  # the spatial axes' names, the last ``spatial`` of them


def _check_input(op: Op, x):
    n = op.spatial
    check_ndim(op, x, (n + 1, n + 2), "input", "(N, C, H, W)" if n == 2 else "(N, C, D, H, W)")
    if x.dtype.kind != "f":
        op.fail(f"needs a floating point input, got {x.dtype.name}.",
                values=f"input {fmt_shape(x.shape)} {x.dtype.name}", cls=DTypeError,
                hint="convert it first: x.float().")
    if min(x.shape[-1 - n:]) < 1:
        op.fail(f"expects an input with at least one channel{', plane' if n == 3 else ''}, "
                f"row and column, got {fmt_shape(x.shape)}.",
                hint="check the layer before this one.")


def _batched(x, spatial=2):
    """(C, H, W) -> (1, C, H, W) (or (C, D, H, W) -> (1, C, D, H, W)); the flag says to
    drop the batch axis again."""
    return (x[None], True) if x.ndim == spatial + 1 else (x, False)


class WindowPool(Op):
    """What max and avg pooling share: arguments, output size, padding and formula."""

    spatial = 2  # (H, W); the 3-D pools have 3, (D, H, W)
    ceil_mode = False

    def _init_windows(self, kernel_size, stride, padding, dilation=1):
        n, where = self.spatial, self.where
        self.kernel = per_axis(kernel_size, n, "kernel_size", where)
        none = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
        self.stride = self.kernel if none else per_axis(stride, n, "stride", where)
        self.padding = per_axis(padding, n, "padding", where)
        self.dilation = per_axis(dilation, n, "dilation", where)

    def out_length(self, size: int, axis: int, rule=True) -> int:
        """PyTorch's output size along one axis; with ceil_mode, its ``rule``: the last
        window must start inside the input or the left padding."""
        k, s, p = self.kernel[axis], self.stride[axis], self.padding[axis]
        extra = s - 1 if self.ceil_mode else 0
        out = (size + 2 * p - span(k, self.dilation[axis]) + extra) // s + 1
        if rule and self.ceil_mode and (out - 1) * s >= size + p:
            out -= 1
        return out

    def out_size(self, shape) -> tuple:
        """(H_out, W_out), or (D_out, H_out, W_out), for an input of this shape."""
        n = self.spatial
        return tuple(self.out_length(shape[-n + axis], axis) for axis in range(n))

    def pads(self, shape) -> tuple:
        """((top, bottom), (left, right)) (and (front, back) first for a volume): the
        padding, and at the bottom and right the pixels that ceil_mode's last window
        hangs past it (they count for nothing)."""
        out = []
        for axis, length in enumerate(self.out_size(shape)):
            size, p = shape[-self.spatial + axis], self.padding[axis]
            reach = (length - 1) * self.stride[axis] + span(self.kernel[axis],
                                                            self.dilation[axis])
            out.append((p, max(p, reach - size - p)))
        return tuple(out)

    def _values(self, x) -> str:
        parts = [f"input {fmt_shape(x.shape)}", fmt_pair("kernel_size", self.kernel),
                 fmt_pair("stride", self.stride)]
        if set(self.padding) != {0}:
            parts.append(fmt_pair("padding", self.padding))
        if set(self.dilation) != {1}:
            parts.append(fmt_pair("dilation", self.dilation))
        if self.ceil_mode:
            parts.append("ceil_mode=True")
        return "   ".join(parts)

    def infer(self, x):
        _check_input(self, x)
        values = self._values(x)
        for name, value in (("kernel_size", self.kernel), ("stride", self.stride),
                            ("dilation", self.dilation)):
            if min(value) < 1:
                self.fail(f"{name} must be at least 1, got {fmt_pair(name, value)}.",
                          values=values, hint=f"e.g. {name}=2.")
        if min(self.padding) < 0:
            self.fail(f"padding must be at least 0, got {fmt_pair('padding', self.padding)}.",
                      values=values, hint="padding=0 is the usual value.")
        for p, k in zip(self.padding, self.kernel):
            if p > k // 2:
                self.fail(f"padding must be at most half the kernel size, got padding={p} "
                          f"with kernel size {k} (at most {k // 2}).", values=values,
                          hint="padding only lets windows hang over the border, and PyTorch "
                          f"allows at most kernel_size // 2; use padding={k // 2} or less.")
        out, n = self.out_size(x.shape), self.spatial
        if min(out) < 1:
            hint = ("the input is too small for this layer: remove a stride or pooling "
                    "before it, or use a smaller kernel_size.")
            if n == 3 and out[0] < 1 <= min(out[1:]):  # a short clip: few frames left
                hint = (f"only {x.shape[-3]} plane(s) (frames, slices) are left in depth; "
                        "pool the height and width alone with kernel_size=(1, "
                        f"{self.kernel[1]}, {self.kernel[2]}), or pool the depth less before.")
            self.fail(f"the output would be {'×'.join(map(str, out))}: the window does not "
                      f"fit in the {'×'.join(map(str, x.shape[-n:]))} input.", values=values,
                      hint=hint)
        return tuple(x.shape[:-n]) + out

    def formula(self, x) -> list:
        """['H_out = floor((16 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 8', 'W_out = ...']."""
        n = self.spatial
        out = self.infer(x)[-n:]
        rounding = "ceil" if self.ceil_mode else "floor"
        lines = []
        for axis, name in enumerate("DHW"[-n:]):
            size, s, p = x.shape[-n + axis], self.stride[axis], self.padding[axis]
            line = (f"{name}_out = {rounding}(({size} + 2{DOT}{p} {MINUS} "
                    f"{self._kernel_term(axis)}) / {s}) + 1")
            if self.out_length(size, axis, rule=False) != out[axis]:
                line += (f" {MINUS} 1 = {out[axis]} "
                         "(the last window would start in the padding)")
            else:
                line += f" = {out[axis]}"
            lines.append(line)
        return lines


class MaxPool2d(WindowPool):
    """y = the largest element of each window; padding counts as -inf.

    The gradient goes to the first largest element of its window in row-major
    order (PyTorch's rule for ties).  A window holding NaN outputs NaN; its
    gradient is dropped (PyTorch gives it to the last NaN), and so is that of a
    window of -inf whose first tap is padding (PyTorch: its first input element).

    With ``return_indices=True`` the forward also keeps ``self.indices``: where each
    maximum is in its (H, W) plane, row·W + column (see :meth:`flat_indices`).
    """

    name = "max_pool2d"

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                 return_indices=False):
        self._init_windows(kernel_size, stride, padding, dilation)
        self.ceil_mode = bool(ceil_mode)
        self.return_indices = bool(return_indices)

    def _kernel_term(self, axis) -> str:
        return f"{self.dilation[axis]}{DOT}({self.kernel[axis]} {MINUS} 1) {MINUS} 1"

    def infer(self, x):
        shape, n = super().infer(x), self.spatial
        for axis, name in enumerate(AXES[-n:]):
            window = self._empty_window(x.shape[-n + axis], axis, shape[-n + axis])
            if window is not None:
                self.fail(f"output pixel {window} along the {name} has a window of padding "
                          "only: its dilated kernel steps over every input pixel.",
                          values=self._values(x),
                          hint="use a smaller dilation or padding, or a larger input.")
        return shape

    def _empty_window(self, size, axis, out):
        """The first output index whose window holds no input pixel (or None).

        Only windows reaching past an edge can miss the input, so only those
        are looked at; PyTorch does not check this (its backward then writes
        out of bounds).
        """
        k, s, p, d = (self.kernel[axis], self.stride[axis], self.padding[axis],
                      self.dilation[axis])
        edges = set(range(min(out, p // s + 1)))
        edges |= set(range(max(0, (size + p - span(k, d)) // s), out))
        for o in sorted(edges):
            if not any(0 <= o * s - p + d * i < size for i in range(k)):
                return o
        return None

    def forward(self, x):
        x, self.unbatched = _batched(x, self.spatial)
        self.window_pads = self.pads(x.shape)
        xp = pad_hw(x, self.window_pads, -np.inf)
        win = windows(xp, self.kernel, self.stride, self.dilation)  # (N, C, H_out, W_out, kh, kw)
        taps = win.reshape(*win.shape[:2 + self.spatial], math.prod(self.kernel))  # row-major
        first = taps.argmax(axis=-1)                  # the first maximum: PyTorch's rule for ties
        y = np.take_along_axis(taps, first[..., None], axis=-1)[..., 0]
        self.first = np.where(np.isnan(y), -1, first)  # a NaN window: no tap gets the gradient
        self.padded_size = xp.shape[2:]
        if self.return_indices:
            self.indices = self.flat_indices(taps, first, x.shape[2:])
            self.indices = self.indices[0] if self.unbatched else self.indices
        return y[0] if self.unbatched else y

    def flat_indices(self, taps, first, size) -> np.ndarray:
        """Where each window's maximum is in its (H, W) plane, row·W + column, as PyTorch
        numbers it for ``return_indices``: the first maximum, the last NaN of a window
        holding NaN, and the first input pixel of a window of -inf whose maximum is a tap
        in the padding.  ``taps`` (..., H_out, W_out, kh·kw), ``first`` their argmax."""
        count = taps.shape[-1]
        last_nan = count - 1 - np.isnan(taps[..., ::-1]).argmax(axis=-1)
        return self.places_of(np.where(np.isnan(taps).any(axis=-1), last_nan, first), size)

    def places_of(self, tap, size) -> np.ndarray:
        """Tap numbers (..., H_out, W_out) -> their places in the (H, W) plane; a tap in the
        padding -> its window's first input pixel."""
        places = self.places(size)                         # (H_out, W_out, kh·kw)
        places = np.broadcast_to(places, tap.shape + places.shape[-1:])
        inside = (places >= 0).argmax(axis=-1)             # each window's first input pixel
        place = np.take_along_axis(places, tap[..., None], axis=-1)[..., 0]
        tap = np.where(place < 0, inside, tap)
        return np.take_along_axis(places, tap[..., None], axis=-1)[..., 0].astype(np.int64)

    def places(self, size) -> np.ndarray:
        """places[a, b, t]: where tap t of output window (a, b) reads in an (H, W) plane,
        as row·W + column; -1 for a tap in the padding.  A volume's: places[c, a, b, t] in
        its (D, H, W) block, (plane·H + row)·W + column."""
        n, shape = self.spatial, (1, 1) + tuple(size)
        out, starts = self.out_size(shape), [before for before, _ in self.pads(shape)]
        offsets = np.indices(self.kernel).reshape(n, -1)   # tap t = (i, j): t = i·kw + j
        place, inside = 0, True
        for axis in range(n):  # the position each tap reads along this axis, then the next
            o = np.arange(out[axis]).reshape([-1 if a == axis else 1 for a in range(n)] + [1])
            at = o * self.stride[axis] + offsets[axis] * self.dilation[axis] - starts[axis]
            inside = inside & (at >= 0) & (at < size[axis])
            place = place * size[axis] + at                # (H_out, W_out, taps) at the end
        return np.where(inside, place, -1)

    def backward(self, grad_out):  # y = max over the window;  dy/dx = 1 at the first max, else 0
        gy = grad_out[None] if self.unbatched else grad_out
        at_max = self.first[..., None] == np.arange(math.prod(self.kernel))
        grad_win = (gy[..., None] * at_max).reshape(*gy.shape, *self.kernel)
        grad_x = crop_hw(add_windows(grad_win, self.padded_size, self.stride, self.dilation),
                         self.window_pads)
        return (grad_x[0] if self.unbatched else grad_x,)


class AvgPool2d(WindowPool):
    """y = mean of each window, with PyTorch's divisor rules.

    The divisor is the window's size clipped to the padded input (windows that
    ceil_mode lets hang past it are smaller); with count_include_pad=False only
    the input's own pixels count; divisor_override replaces it outright.
    """

    name = "avg_pool2d"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        self._init_windows(kernel_size, stride, padding)
        self.ceil_mode = bool(ceil_mode)
        self.count_include_pad = bool(count_include_pad)
        if divisor_override is not None and (not is_int(divisor_override)
                                             or divisor_override == 0):
            self.fail(f"divisor_override must be a nonzero int or None, got "
                      f"{divisor_override!r}.", cls=InputError,
                      hint="leave it None to divide by the window size.")
        self.divisor_override = divisor_override

    def _kernel_term(self, axis) -> str:
        return f"{self.kernel[axis]}"

    def divisor(self, shape, dtype):
        """(H_out, W_out) divisors (or (D_out, H_out, W_out); or one number), in the
        input's dtype: the product of each axis' count."""
        if self.divisor_override is not None:
            return np.asarray(self.divisor_override, dtype=dtype)
        counts = []
        for axis, length in enumerate(self.out_size(shape)):
            size, k, s, p = (shape[-self.spatial + axis], self.kernel[axis], self.stride[axis],
                             self.padding[axis])
            start = np.arange(length) * s - p
            end = np.minimum(start + k, size + p)     # windows stop at the padded edge
            if not self.count_include_pad:
                start, end = np.maximum(start, 0), np.minimum(end, size)
            counts.append(end - start)
        return functools.reduce(np.multiply.outer, counts).astype(dtype)

    def forward(self, x):
        x, self.unbatched = _batched(x, self.spatial)
        self.window_pads, self.x_shape = self.pads(x.shape), x.shape
        xp = pad_hw(x, self.window_pads)
        win = windows(xp, self.kernel, self.stride, self.dilation)  # (N, C, H_out, W_out, kh, kw)
        total = win.sum(axis=tuple(range(-self.spatial, 0)))
        y = total / self.divisor(x.shape, x.dtype)
        return y[0] if self.unbatched else y

    def backward(self, grad_out):  # y = sum(window) / divisor;  dy/dx = 1 / divisor in the window
        gy = grad_out[None] if self.unbatched else grad_out
        share = gy / self.divisor(self.x_shape, gy.dtype)
        share = share.reshape(share.shape + (1,) * self.spatial)
        grad_win = np.broadcast_to(share, share.shape[:-self.spatial] + self.kernel)
        padded = [sum(p) + size for p, size in zip(self.window_pads, self.x_shape[2:])]
        grad_x = crop_hw(add_windows(grad_win, padded, self.stride, self.dilation),
                         self.window_pads)
        return (grad_x[0] if self.unbatched else grad_x,)


def adaptive_windows(size: int, out: int) -> list:
    """[(start, end)] of each output pixel along one axis, as PyTorch places them:
    output a covers floor(a·size / out) up to ceil((a + 1)·size / out)."""
    return [((a * size) // out, -((-(a + 1) * size) // out)) for a in range(out)]


def averaging_matrix(size: int, out: int, dtype) -> np.ndarray:
    """(out, size): row a holds 1 / window length over output a's window, 0 elsewhere."""
    matrix = np.zeros((out, size), dtype=dtype)
    for a, (start, end) in enumerate(adaptive_windows(size, out)):
        matrix[a, start:end] = 1 / (end - start)
    return matrix


class AdaptiveAvgPool2d(Op):
    """Average pooling to a fixed output size, windows placed as PyTorch places them.

    Output pixel a (of H_out) averages input rows floor(a·H / H_out) up to
    ceil((a + 1)·H / H_out); windows may overlap when H_out does not divide H.
    ``output_size`` is an int or a pair (a triple for a volume); None in it keeps that
    size.

    The windows are products of a range of rows and a range of columns, so the
    pooling is two matrix products: y = P_h · x · P_wᵀ, with P_h (H_out, H) holding
    each window's 1 / length (see :func:`averaging_matrix`).
    """

    name = "adaptive_avg_pool2d"
    spatial = 2  # (H, W); the 3-D adaptive pools have 3, (D, H, W)

    def __init__(self, output_size):
        n = self.spatial
        if is_int(output_size) or output_size is None:
            output_size = (output_size,) * n
        ok = isinstance(output_size, (tuple, list)) and len(output_size) == n and all(
            s is None or is_int(s) for s in output_size)
        if not ok:
            self.fail(f"output_size must be an int or a {'pair' if n == 2 else 'triple'} of "
                      f"ints (None keeps that size), got {output_size!r}.", cls=InputError,
                      hint=f"e.g. output_size=1 for global average pooling, or {(7,) * n}.")
        self.output_size = tuple(None if s is None else int(s) for s in output_size)

    def out_size(self, shape) -> tuple:
        """(H_out, W_out), or (D_out, H_out, W_out): output_size, None read off the input."""
        n = self.spatial
        return tuple(shape[-n + i] if s is None else s for i, s in enumerate(self.output_size))

    def infer(self, x):
        _check_input(self, x)
        out = self.out_size(x.shape)
        if min(out) < 1:
            self.fail(f"output_size must be at least 1, got {self.output_size}.",
                      values=f"input {fmt_shape(x.shape)}",
                      hint="output_size=1 pools each channel to one number.")
        return tuple(x.shape[:-self.spatial]) + out

    def formula(self, x) -> list:
        """['H_out = output_size = 1', 'W_out = W_in = 7' (for None)]."""
        out = self.infer(x)[-self.spatial:]
        return [f"{name}_out = {'output_size' if s is not None else name + '_in'} = {o}"
                for name, s, o in zip("DHW"[-self.spatial:], self.output_size, out)]

    def forward(self, x):  # y = P_h · x · P_wᵀ
        (ho, wo), (h, w) = self.out_size(x.shape), x.shape[-2:]
        self.p_h, self.p_w = averaging_matrix(h, ho, x.dtype), averaging_matrix(w, wo, x.dtype)
        return np.einsum("ah,...hw,bw->...ab", self.p_h, x, self.p_w, optimize=True)

    def backward(self, grad_out):  # dL/dx = P_hᵀ · dL/dy · P_w
        return (np.einsum("ah,...ab,bw->...hw", self.p_h, grad_out, self.p_w, optimize=True),)
