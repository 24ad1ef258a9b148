"""im2col and col2im (PyTorch's ``F.unfold`` and ``F.fold``): convolution as a matrix product.

``unfold`` cuts every window a convolution would see out of an image (N, C, H, W) and
lays each one out as a column of C·kh·kw numbers, one column per output pixel::

    cols[n, c·kh·kw + i·kw + j, h·W_out + w] = xp[n, c, s_h·h + d_h·i, s_w·w + d_w·j]

(xp: the zero-padded input).  A convolution is then one matrix product:
``conv2d(x, W) == (W.view(C_out, -1) @ unfold(x)).view(N, C_out, H_out, W_out)``.

``fold`` goes back: each column's numbers are added onto the pixels they came from,
so where windows overlap, their values add up.  It is unfold's adjoint -- for any
image x and columns c, sum(unfold(x) · c) = sum(x · fold(c)) -- so each op's backward
is the other op's forward.  fold(unfold(x)) is x times how many windows saw each pixel.

    H_out = floor((H + 2·padding − dilation·(kh − 1) − 1) / stride) + 1   (and W_out)
"""
from __future__ import annotations

import math

from ..errors import InputError, fmt_shape
from .base import Op, check_float, check_ndim, fmt_pair, pair
from .conv import DOT, MINUS
from .windows import add_windows, crop_hw, out_length, pad_hw, span, windows


class _Columns(Op):
    """What unfold and fold share: the window arguments, their checks and the two
    directions, im2col (image -> columns) and col2im (columns -> image, overlaps added)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        where = self.where
        self.kernel = pair(kernel_size, "kernel_size", where)
        self.dilation = pair(dilation, "dilation", where)
        self.padding = pair(padding, "padding", where)
        self.stride = pair(stride, "stride", where)

    def _values(self, x) -> str:
        return "   ".join([f"input {fmt_shape(x.shape)}", fmt_pair("kernel_size", self.kernel),
                            fmt_pair("dilation", self.dilation),
                            fmt_pair("padding", self.padding), fmt_pair("stride", self.stride)])

    def _check_arguments(self, x):
        values = self._values(x)
        for name, value, least in (("kernel_size", self.kernel, 1), ("stride", self.stride, 1),
                                   ("dilation", self.dilation, 1), ("padding", self.padding, 0)):
            if min(value) < least:
                self.fail(f"{name} must be at least {least}, got {fmt_pair(name, value)}.",
                          values=values, cls=InputError, hint=f"e.g. {name}={max(least, 1)}.")

    def blocks(self, image_hw) -> tuple:
        """(H_out, W_out): how many windows fit down and across the padded image."""
        return tuple(out_length(size, k, s, d, (p, p)) for size, k, s, d, p in zip(
            image_hw, self.kernel, self.stride, self.dilation, self.padding))

    def blocks_formula(self, image_hw) -> list:
        """['H_out = floor((7 + 2·0 − 1·(3 − 1) − 1) / 2) + 1 = 3', 'W_out = ...', 'L = ...']."""
        lines = []
        for axis, name in enumerate("HW"):
            lines.append(
                f"{name}_out = floor(({image_hw[axis]} + 2{DOT}{self.padding[axis]} {MINUS} "
                f"{self.dilation[axis]}{DOT}({self.kernel[axis]} {MINUS} 1) {MINUS} 1) / "
                f"{self.stride[axis]}) + 1 = {self.blocks(image_hw)[axis]}")
        ho, wo = self.blocks(image_hw)
        return lines + [f"L = H_out{DOT}W_out = {ho}{DOT}{wo} = {ho * wo}"]

    def im2col(self, x):
        """(N, C, H, W) -> (N, C·kh·kw, L): every window, flattened, as a column."""
        n, c = x.shape[:2]
        pads = tuple((p, p) for p in self.padding)
        # windows(): numpy's sliding_window_view of the padded image, strided and dilated
        win = windows(pad_hw(x, pads), self.kernel, self.stride, self.dilation)
        ho, wo = win.shape[2:4]                          # win: (N, C, H_out, W_out, kh, kw)
        return win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * math.prod(self.kernel), ho * wo)

    def col2im(self, cols, image_hw):
        """(N, C·kh·kw, L) -> (N, C, H, W): each column added back onto its window."""
        (n, rows), (kh, kw) = cols.shape[:2], self.kernel
        ho, wo = self.blocks(image_hw)
        win = cols.reshape(n, rows // (kh * kw), kh, kw, ho, wo).transpose(0, 1, 4, 5, 2, 3)
        padded = tuple(size + 2 * p for size, p in zip(image_hw, self.padding))
        image = add_windows(win, padded, self.stride, self.dilation)
        return crop_hw(image, tuple((p, p) for p in self.padding)).copy()


class Unfold(_Columns):
    """cols = unfold(x): (N, C, H, W) -> (N, C·kh·kw, L), L = H_out·W_out (im2col)."""

    name = "unfold"

    def infer(self, x):
        check_ndim(self, x, (3, 4), "input", "(N, C, H, W)")
        check_float(self, x)
        self._check_arguments(x)
        ho, wo = self.blocks(x.shape[-2:])
        if min(ho, wo) < 1:
            self.fail(f"no {self.kernel[0]}×{self.kernel[1]} window (spanning "
                      f"{span(self.kernel[0], self.dilation[0])}×"
                      f"{span(self.kernel[1], self.dilation[1])} pixels) fits in the "
                      f"{x.shape[-2]}×{x.shape[-1]} image (padding included).",
                      values=self._values(x),
                      hint="use a smaller kernel_size or dilation, or more padding.")
        return tuple(x.shape[:-3]) + (x.shape[-3] * math.prod(self.kernel), ho * wo)

    def formula(self, x) -> list:
        self.infer(x)
        return self.blocks_formula(x.shape[-2:])

    def forward(self, x):
        self.unbatched, self.image_hw = x.ndim == 3, x.shape[-2:]
        cols = self.im2col(x[None] if self.unbatched else x)
        return cols[0] if self.unbatched else cols

    # unfold only copies pixels into columns, so each pixel's gradient is the sum of
    # the gradients of its copies: dL/dx = fold(dL/dcols), the adjoint.
    def backward(self, grad_out):
        g = grad_out[None] if self.unbatched else grad_out
        grad_x = self.col2im(g, self.image_hw)
        return (grad_x[0] if self.unbatched else grad_x,)


class Fold(_Columns):
    """x = fold(cols): (N, C·kh·kw, L) -> (N, C, H, W) with (H, W) = output_size (col2im);
    values of overlapping windows are added."""

    name = "fold"

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size, dilation, padding, stride)
        self.output_size = pair(output_size, "output_size", self.where)

    def infer(self, cols):
        check_ndim(self, cols, (2, 3), "input", "(N, C·kh·kw, L)")
        check_float(self, cols)
        self._check_arguments(cols)
        values = f"{self._values(cols)}   {fmt_pair('output_size', self.output_size)}"
        if min(self.output_size) < 1:
            self.fail(f"output_size must be at least 1, got {self.output_size}.",
                      values=values, cls=InputError, hint="give the image's (H, W).")
        taps = math.prod(self.kernel)
        rows, length = cols.shape[-2:]
        if rows % taps or rows == 0:
            self.fail(f"expects dimension {cols.ndim - 2} of the input to be a positive "
                      f"multiple of kh·kw = {taps} (C·kh·kw, one row per channel and tap), "
                      f"got {rows}.", values=values,
                      hint="fold takes the columns unfold made with the same kernel_size.")
        ho, wo = self.blocks(self.output_size)
        if min(ho, wo) < 1 or length != ho * wo:
            self.fail(f"expects {max(ho, 0) * max(wo, 0)} columns (L = H_out·W_out = "
                      f"{ho}·{wo} windows fit in output_size {self.output_size}), got "
                      f"{length}.", values=values,
                      hint="fold takes the columns unfold made of an image of output_size "
                      "with the same kernel_size, dilation, padding and stride.")
        return tuple(cols.shape[:-2]) + (rows // taps,) + self.output_size

    def formula(self, cols) -> list:
        self.infer(cols)
        taps = math.prod(self.kernel)
        return [f"C = {cols.shape[-2]} / (kh{DOT}kw) = {cols.shape[-2]} / {taps} = "
                f"{cols.shape[-2] // taps}", f"(H, W) = output_size = {self.output_size}"]

    def forward(self, cols):
        self.unbatched = cols.ndim == 2
        image = self.col2im(cols[None] if self.unbatched else cols, self.output_size)
        return image[0] if self.unbatched else image

    # fold adds columns onto pixels, so each column entry's gradient is the gradient of
    # the pixel it went to: dL/dcols = unfold(dL/dx), the adjoint.
    def backward(self, grad_out):
        g = grad_out[None] if self.unbatched else grad_out
        grad_cols = self.im2col(g)
        return (grad_cols[0] if self.unbatched else grad_cols,)
