"""Transposed convolution (PyTorch's ``F.conv_transpose2d``).

Each input pixel stamps the kernel, scaled by its value, onto the output at stride
steps; overlapping stamps add up.  That is the gradient of conv2d with respect to its
input, so the forward here is conv2d's backward (windows added back, ``add_windows``),
and the backward is a conv2d forward (windows read, ``windows``).

    H_out = (H − 1)·stride − 2·padding + dilation·(kh − 1) + output_padding + 1

``padding`` crops that many rows from each side of the full result; ``output_padding``
adds rows at the bottom (and columns at the right), to reach a size that a strided
conv2d maps onto this input.  weight: (C_in, C_out / groups, kh, kw).
"""
from __future__ import annotations

import numpy as np

from ..errors import InputError, fmt_shape
from .base import Op, check_float, check_ndim, fmt_pair, is_int, per_axis
from .conv import check_weight_not_empty
from .windows import add_windows, crop_hw, pad_hw, span, windows


class ConvTranspose2d(Op):
    """y = conv_transpose2d(x, W) + b, with PyTorch's arguments."""

    name = "conv_transpose2d"
    spatial = 2  # (H, W); ConvTranspose3d in ops/threedim.py has 3, (D, H, W)
    layouts = ("(N, C_in, H, W)", "(C_in, C_out/groups, kh, kw)")  # input, weight

    def __init__(self, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
        where, n = self.where, self.spatial
        self.stride = per_axis(stride, n, "stride", where)
        self.padding = per_axis(padding, n, "padding", where)
        self.output_padding = per_axis(output_padding, n, "output_padding", where)
        self.dilation = per_axis(dilation, n, "dilation", where)
        if not is_int(groups):
            self.fail(f"groups must be an int, got {groups!r}.", cls=InputError,
                      hint="groups=1 connects every input channel to every output channel.")
        self.groups = int(groups)

    def _values(self, x, weight) -> str:
        return "   ".join([f"input {fmt_shape(x.shape)}", f"weight {fmt_shape(weight.shape)}",
                            fmt_pair("stride", self.stride), fmt_pair("padding", self.padding),
                            fmt_pair("output_padding", self.output_padding),
                            fmt_pair("dilation", self.dilation), f"groups={self.groups}"])

    def infer(self, x, weight, bias=None):
        n = self.spatial
        check_ndim(self, x, (n + 1, n + 2), "input", self.layouts[0])
        check_ndim(self, weight, (n + 2,), "weight", self.layouts[1])
        check_float(self, x)
        values, g = self._values(x, weight), self.groups
        if min(self.stride + self.dilation) < 1 or min(self.padding + self.output_padding) < 0 \
                or g < 1:
            self.fail("stride, dilation and groups must be at least 1, padding and "
                      "output_padding at least 0.", values=values, cls=InputError,
                      hint="the defaults are stride=1, padding=0, output_padding=0, dilation=1.")
        for s, d, o in zip(self.stride, self.dilation, self.output_padding):
            if o >= max(s, d):
                self.fail(f"output_padding must be smaller than stride or dilation, got "
                          f"{fmt_pair('output_padding', self.output_padding)}.", values=values,
                          cls=InputError, hint="output_padding only picks among the sizes "
                          "a stride leaves open: 0 <= output_padding < stride.")
        if min(x.shape[-n:]) < 1:
            self.fail(f"expects an input {'image' if n == 2 else 'volume'} of at least "
                      f"{'×'.join('1' * n)}, got {'×'.join(map(str, x.shape[-n:]))}.",
                      values=values,
                      hint="the layer before left no pixels: check its size and stride.")
        check_weight_not_empty(self, weight, values)
        c_in = x.shape[-1 - n]
        if weight.shape[0] != c_in or c_in % g:
            self.fail(f"expects input with {weight.shape[0]} channels (the weight's first "
                      f"dimension), divisible by groups={g}, got {c_in}.", values=values,
                      hint=f"the layer before outputs {c_in} channels; use "
                      f"ConvTranspose{n}d({c_in}, ...) or check the layer before.")
        if bias is not None and tuple(bias.shape) != (weight.shape[1] * g,):
            self.fail(f"expects a bias of shape ({weight.shape[1] * g},), got "
                      f"{fmt_shape(bias.shape)}.", values=values,
                      hint="one bias value per output channel, or bias=None.")
        out = self.out_size(x.shape[-n:], weight.shape[2:])
        if min(out) < 1:
            self.fail(f"the output would be {'×'.join(map(str, out))}: padding crops more "
                      "than the transposed convolution makes.", values=values,
                      hint="use a smaller padding, or a larger kernel or stride.")
        return tuple(x.shape[:-1 - n]) + (weight.shape[1] * g,) + out

    def out_size(self, in_size, kernel) -> tuple:
        """(H_out, W_out), or (D_out, H_out, W_out): the formula above, per axis."""
        return tuple((h - 1) * s - 2 * p + span(k, d) + o for h, k, s, p, d, o in zip(
            in_size, kernel, self.stride, self.padding, self.dilation, self.output_padding))

    def full_size(self, in_size, kernel) -> tuple:
        """The size before ``padding`` crops it: every stamp whole, and output_padding."""
        return tuple(h + 2 * p for h, p in zip(self.out_size(in_size, kernel), self.padding))

    # With x split into groups, W as (G, C_in/G, C_out/G, kh, kw):
    #   stamps[n, g, o, h, w, i, j] = sum_c x[n, g, c, h, w] · W[g, c, o, i, j]
    #   y = the stamps added at rows h·s + i·d, columns w·s + j·d, then cropped by padding
    def forward(self, x, weight, bias=None):
        self.unbatched = x.ndim == 3
        x = x[None] if self.unbatched else x
        (n, c), g, kernel = x.shape[:2], self.groups, weight.shape[2:]
        xg = x.reshape(n, g, c // g, *x.shape[2:])
        w = weight.reshape(g, c // g, *weight.shape[1:])        # (G, C_in/G, C_out/G, kh, kw)
        stamps = np.einsum("ngchw,gcoij->ngohwij", xg, w, optimize=True)
        full = add_windows(stamps.reshape(n, g * stamps.shape[2], *stamps.shape[3:]),
                           self.full_size(x.shape[2:], kernel), self.stride, self.dilation)
        self.crop = tuple((p, p) for p in self.padding)
        y = np.ascontiguousarray(crop_hw(full, self.crop))
        if bias is not None:
            y += bias.reshape(-1, 1, 1)
        self.xg, self.w, self.in_hw = xg, w, x.shape[2:]
        return y[0] if self.unbatched else y

    # Each output pixel came from the stamps that cover it, so with gy = dL/dy padded back:
    #   dL/dx[n, g, c, h, w] = sum_{o, i, j} W[g, c, o, i, j] · gy_window[n, g, o, h, w, i, j]
    #   dL/dW[g, c, o, i, j] = sum_{n, h, w} x[n, g, c, h, w] · gy_window[n, g, o, h, w, i, j]
    #   dL/db[o] = sum over n, h, w of gy[n, o, h, w]
    def backward(self, grad_out):
        need = self.needs_input_grad
        gy = grad_out[None] if self.unbatched else grad_out
        (n, c_out), g, (h, w) = gy.shape[:2], self.groups, self.in_hw
        kernel = self.w.shape[-2:]
        win = windows(pad_hw(gy, self.crop), kernel, self.stride, self.dilation)
        win = win[:, :, :h, :w].reshape(n, g, c_out // g, h, w, *kernel)
        grads = [None] * len(need)
        if need[0]:
            grad_x = np.einsum("ngohwij,gcoij->ngchw", win, self.w, optimize=True)
            grad_x = grad_x.reshape(n, g * self.xg.shape[2], h, w)
            grads[0] = grad_x[0] if self.unbatched else grad_x
        if need[1]:
            grad_w = np.einsum("ngohwij,ngchw->gcoij", win, self.xg, optimize=True)
            grads[1] = grad_w.reshape(g * grad_w.shape[1], *grad_w.shape[2:])
        if len(need) > 2 and need[2]:
            grads[2] = gy.sum(axis=(0, 2, 3))
        return tuple(grads)
