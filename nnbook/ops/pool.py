"""Pooling (PyTorch's ``F.max_pool2d``, ``F.avg_pool2d``, ``F.adaptive_avg_pool2d``).

Each output pixel summarises one window of its own channel (``ops/windows.py``):
max pooling takes the window's largest element, average pooling its mean.
Inputs are (N, C, H, W), or (C, H, W) for one unbatched sample as in PyTorch, and
must be floating point (PyTorch also pools integers; nnbook refuses them with a hint).

This is the reference; ``nnbook/kernels/pool.py`` computes the same numbers faster.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, InputError, fmt_shape
from .base import Op, check_ndim, fmt_pair, is_int, pair
from .conv import DOT, MINUS
from .windows import add_windows, crop_hw, pad_hw, span, windows


def _check_input(op: Op, x):
    check_ndim(op, x, (3, 4), "input", "(N, C, H, W)")
    if x.dtype.kind != "f":
        op.fail(f"needs a floating point input, got {x.dtype.name}.",
                values=f"input {fmt_shape(x.shape)} {x.dtype.name}", cls=DTypeError,
                hint="convert it first: x.float().")
    if min(x.shape[-3:]) < 1:
        op.fail(f"expects an input with at least one channel, row and column, got "
                f"{fmt_shape(x.shape)}.", hint="check the layer before this one.")


def _batched(x):
    """(C, H, W) -> (1, C, H, W); the flag says to drop the batch axis again."""
    return (x[None], True) if x.ndim == 3 else (x, False)


class WindowPool(Op):
    """What max and avg pooling share: arguments, output size, padding and formula."""

    dilation = (1, 1)
    ceil_mode = False

    def _init_windows(self, kernel_size, stride, padding):
        self.kernel = pair(kernel_size, "kernel_size", self.where)
        none = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
        self.stride = self.kernel if none else pair(stride, "stride", self.where)
        self.padding = pair(padding, "padding", self.where)

    def out_length(self, size: int, axis: int, rule=True) -> int:
        """PyTorch's output size along one axis; with ceil_mode, its ``rule``: the last
        window must start inside the input or the left padding."""
        k, s, p = self.kernel[axis], self.stride[axis], self.padding[axis]
        extra = s - 1 if self.ceil_mode else 0
        out = (size + 2 * p - span(k, self.dilation[axis]) + extra) // s + 1
        if rule and self.ceil_mode and (out - 1) * s >= size + p:
            out -= 1
        return out

    def out_hw(self, shape) -> tuple:
        return tuple(self.out_length(shape[-2 + axis], axis) for axis in (0, 1))

    def pads(self, shape) -> tuple:
        """((top, bottom), (left, right)): the padding, and at the bottom and right the
        pixels that ceil_mode's last window hangs past it (they count for nothing)."""
        out = []
        for axis, length in enumerate(self.out_hw(shape)):
            size, p = shape[-2 + axis], self.padding[axis]
            reach = (length - 1) * self.stride[axis] + span(self.kernel[axis],
                                                            self.dilation[axis])
            out.append((p, max(p, reach - size - p)))
        return tuple(out)

    def _values(self, x) -> str:
        parts = [f"input {fmt_shape(x.shape)}", fmt_pair("kernel_size", self.kernel),
                 fmt_pair("stride", self.stride)]
        if self.padding != (0, 0):
            parts.append(fmt_pair("padding", self.padding))
        if self.dilation != (1, 1):
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
        ho, wo = self.out_hw(x.shape)
        if min(ho, wo) < 1:
            self.fail(f"the output would be {ho}×{wo}: the window does not fit in the "
                      f"{x.shape[-2]}×{x.shape[-1]} input.", values=values,
                      hint="the input is too small for this layer: remove a stride or "
                      "pooling before it, or use a smaller kernel_size.")
        return tuple(x.shape[:-2]) + (ho, wo)

    def formula(self, x) -> list:
        """['H_out = floor((16 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 8', 'W_out = ...']."""
        out_hw = self.infer(x)[-2:]
        rounding = "ceil" if self.ceil_mode else "floor"
        lines = []
        for axis, name in enumerate("HW"):
            size, s, p = x.shape[-2 + axis], self.stride[axis], self.padding[axis]
            line = (f"{name}_out = {rounding}(({size} + 2{DOT}{p} {MINUS} "
                    f"{self._kernel_term(axis)}) / {s}) + 1")
            if self.out_length(size, axis, rule=False) != out_hw[axis]:
                line += (f" {MINUS} 1 = {out_hw[axis]} "
                         "(the last window would start in the padding)")
            else:
                line += f" = {out_hw[axis]}"
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
        self._init_windows(kernel_size, stride, padding)
        self.dilation = pair(dilation, "dilation", self.where)
        self.ceil_mode = bool(ceil_mode)
        self.return_indices = bool(return_indices)

    def _kernel_term(self, axis) -> str:
        return f"{self.dilation[axis]}{DOT}({self.kernel[axis]} {MINUS} 1) {MINUS} 1"

    def infer(self, x):
        shape = super().infer(x)
        for axis, name in enumerate(("height", "width")):
            window = self._empty_window(x.shape[-2 + axis], axis, shape[-2 + axis])
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
        x, self.unbatched = _batched(x)
        self.window_pads = self.pads(x.shape)
        xp = pad_hw(x, self.window_pads, -np.inf)
        win = windows(xp, self.kernel, self.stride, self.dilation)  # (N, C, H_out, W_out, kh, kw)
        taps = win.reshape(*win.shape[:4], self.kernel[0] * self.kernel[1])  # row-major order
        first = taps.argmax(axis=-1)                  # the first maximum: PyTorch's rule for ties
        y = np.take_along_axis(taps, first[..., None], axis=-1)[..., 0]
        self.first = np.where(np.isnan(y), -1, first)  # a NaN window: no tap gets the gradient
        self.padded_hw = xp.shape[-2:]
        if self.return_indices:
            self.indices = self.flat_indices(taps, first, x.shape[-2:])
            self.indices = self.indices[0] if self.unbatched else self.indices
        return y[0] if self.unbatched else y

    def flat_indices(self, taps, first, hw) -> np.ndarray:
        """Where each window's maximum is in its (H, W) plane, row·W + column, as PyTorch
        numbers it for ``return_indices``: the first maximum, the last NaN of a window
        holding NaN, and the first input pixel of a window of -inf whose maximum is a tap
        in the padding.  ``taps`` (..., H_out, W_out, kh·kw), ``first`` their argmax."""
        count = taps.shape[-1]
        last_nan = count - 1 - np.isnan(taps[..., ::-1]).argmax(axis=-1)
        return self.places_of(np.where(np.isnan(taps).any(axis=-1), last_nan, first), hw)

    def places_of(self, tap, hw) -> np.ndarray:
        """Tap numbers (..., H_out, W_out) -> their places in the (H, W) plane; a tap in the
        padding -> its window's first input pixel."""
        places = self.places(hw)                           # (H_out, W_out, kh·kw)
        inside = (places >= 0).argmax(axis=-1)             # each window's first input pixel
        out_rows, out_cols = np.indices(places.shape[:2])
        tap = np.where(places[out_rows, out_cols, tap] < 0, inside, tap)
        return places[out_rows, out_cols, tap].astype(np.int64)

    def places(self, hw) -> np.ndarray:
        """places[a, b, t]: where tap t of output window (a, b) reads in an (H, W) plane,
        as row·W + column; -1 for a tap in the padding."""
        (kh, kw), (sh, sw), (dh, dw), (h, w) = self.kernel, self.stride, self.dilation, hw
        ((top, _), (left, _)) = self.pads((1, 1) + tuple(hw))
        ho, wo = self.out_hw((1, 1) + tuple(hw))
        i, j = np.divmod(np.arange(kh * kw), kw)                   # tap t = i·kw + j
        rows = np.arange(ho)[:, None, None] * sh + i * dh - top    # (H_out, 1, taps)
        cols = np.arange(wo)[None, :, None] * sw + j * dw - left   # (1, W_out, taps)
        inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
        return np.where(inside, rows * w + cols, -1)

    def backward(self, grad_out):  # y = max over the window;  dy/dx = 1 at the first max, else 0
        gy = grad_out[None] if self.unbatched else grad_out
        at_max = self.first[..., None] == np.arange(self.kernel[0] * self.kernel[1])
        grad_win = (gy[..., None] * at_max).reshape(*gy.shape, *self.kernel)
        grad_x = crop_hw(add_windows(grad_win, self.padded_hw, self.stride, self.dilation),
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
        """(H_out, W_out) divisors (or one number), in the input's dtype."""
        if self.divisor_override is not None:
            return np.asarray(self.divisor_override, dtype=dtype)
        counts = []
        for axis, length in enumerate(self.out_hw(shape)):
            size, k, s, p = (shape[-2 + axis], self.kernel[axis], self.stride[axis],
                             self.padding[axis])
            start = np.arange(length) * s - p
            end = np.minimum(start + k, size + p)     # windows stop at the padded edge
            if not self.count_include_pad:
                start, end = np.maximum(start, 0), np.minimum(end, size)
            counts.append(end - start)
        return np.outer(*counts).astype(dtype)

    def forward(self, x):
        x, self.unbatched = _batched(x)
        self.window_pads, self.x_shape = self.pads(x.shape), x.shape
        xp = pad_hw(x, self.window_pads)
        total = windows(xp, self.kernel, self.stride, self.dilation).sum(axis=(-2, -1))
        y = total / self.divisor(x.shape, x.dtype)
        return y[0] if self.unbatched else y

    def backward(self, grad_out):  # y = sum(window) / divisor;  dy/dx = 1 / divisor in the window
        gy = grad_out[None] if self.unbatched else grad_out
        share = gy / self.divisor(self.x_shape, gy.dtype)
        grad_win = np.broadcast_to(share[..., None, None], share.shape + self.kernel)
        padded_hw = [sum(p) + size for p, size in zip(self.window_pads, self.x_shape[2:])]
        grad_x = crop_hw(add_windows(grad_win, padded_hw, self.stride, self.dilation),
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
    ``output_size`` is an int or a pair; None in the pair keeps that size.

    The windows are products of a range of rows and a range of columns, so the
    pooling is two matrix products: y = P_h · x · P_wᵀ, with P_h (H_out, H) holding
    each window's 1 / length (see :func:`averaging_matrix`).
    """

    name = "adaptive_avg_pool2d"

    def __init__(self, output_size):
        if is_int(output_size) or output_size is None:
            output_size = (output_size, output_size)
        ok = isinstance(output_size, (tuple, list)) and len(output_size) == 2 and all(
            s is None or is_int(s) for s in output_size)
        if not ok:
            self.fail(f"output_size must be an int or a pair of ints (None keeps that "
                      f"size), got {output_size!r}.", cls=InputError,
                      hint="e.g. output_size=1 for global average pooling, or (7, 7).")
        self.output_size = tuple(None if s is None else int(s) for s in output_size)

    def out_hw(self, shape) -> tuple:
        return tuple(shape[-2 + i] if s is None else s for i, s in enumerate(self.output_size))

    def infer(self, x):
        _check_input(self, x)
        out = self.out_hw(x.shape)
        if min(out) < 1:
            self.fail(f"output_size must be at least 1, got {self.output_size}.",
                      values=f"input {fmt_shape(x.shape)}",
                      hint="output_size=1 pools each channel to one number.")
        return tuple(x.shape[:-2]) + out

    def formula(self, x) -> list:
        """['H_out = output_size = 1', 'W_out = W_in = 7' (for None)]."""
        out_hw = self.infer(x)[-2:]
        return [f"{name}_out = {'output_size' if s is not None else name + '_in'} = {o}"
                for name, s, o in zip("HW", self.output_size, out_hw)]

    def forward(self, x):  # y = P_h · x · P_wᵀ
        (ho, wo), (h, w) = self.out_hw(x.shape), x.shape[-2:]
        self.p_h, self.p_w = averaging_matrix(h, ho, x.dtype), averaging_matrix(w, wo, x.dtype)
        return np.einsum("ah,...hw,bw->...ab", self.p_h, x, self.p_w, optimize=True)

    def backward(self, grad_out):  # dL/dx = P_hᵀ · dL/dy · P_w
        return (np.einsum("ah,...ab,bw->...hw", self.p_h, grad_out, self.p_w, optimize=True),)
