"""3-D convolution and pooling over volumes (PyTorch's ``F.conv3d``, ``F.conv_transpose3d``,
``F.max_pool3d``, ``F.avg_pool3d``, ``F.adaptive_avg_pool3d``, ``F.adaptive_max_pool3d``).

A volume is a stack of images: a video clip (frames, height, width) or a scan (slices,
height, width).  Inputs are (N, C, D, H, W), or (C, D, H, W) for one unbatched sample as
in PyTorch; a kernel is kd×kh×kw, and stride, padding and dilation take an int or a
(d, h, w) triple (``ops.base.triple``).  The depth works exactly as the height and width
do, so each rule of the 2-D ops goes one axis further:

* the convolutions are written out here, as the 2-D ones are (``ops/conv.py``,
  ``ops/conv_transpose.py``), with one more letter in each ``np.einsum`` (t for the
  depth's tap, as i and j are the height's and width's); they share the 2-D ops'
  arguments, checks, messages and formulas, which count the axes (``spatial = 3``);
* the pools are the 2-D classes with ``spatial = 3`` (``ops/pool.py``,
  ``ops/adaptive_max.py``): their windows, divisors, indices and backwards are written
  for any number of axes; adaptive average pooling is three matrix products, not two.

There are no faster kernels for volumes: these reference ops compute them.
"""
from __future__ import annotations

import numpy as np

from .adaptive_max import AdaptiveMaxPool2d
from .conv import Conv2d
from .conv_transpose import ConvTranspose2d
from .pool import AXES, AdaptiveAvgPool2d, AvgPool2d, MaxPool2d, averaging_matrix
from .windows import add_windows, crop_hw, pad_hw, windows


class Conv3d(Conv2d):
    """y = conv3d(x, W) + b: x (N, C_in, D, H, W), W (C_out, C_in/groups, kd, kh, kw), b (C_out,).

    With the input zero-padded to ``xp`` and the channels split into G groups::

        y[n, g, o, d, h, w] = b[g, o] + sum_{c, t, i, j} W[g, o, c, t, i, j] · window
        window[n, g, c, d, h, w, t, i, j] = xp[n, g, c, s_d·d + d_d·t, s_h·h + d_h·i,
                                               s_w·w + d_w·j]

    D_out = floor((D + 2·padding − dilation·(kd − 1) − 1) / stride) + 1, likewise H and W;
    ``padding`` may also be 'valid' or 'same' (stride 1).
    """

    name = "conv3d"
    suggested_layer = "Conv3d"
    spatial = 3
    layouts = ("(N, C_in, D, H, W)", "(C_out, C_in/groups, kd, kh, kw)")

    def forward(self, x, weight, bias=None):
        self.unbatched = x.ndim == 4
        x = x[None] if self.unbatched else x
        (n, c), g = x.shape[:2], self.groups
        xp = pad_hw(x, self.pads(weight.shape[2:]))
        win = windows(xp, weight.shape[2:], self.stride, self.dilation)
        win = win.reshape(n, g, c // g, *win.shape[2:])  # (N, G, C/G, D_o, H_o, W_o, kd, kh, kw)
        w = weight.reshape(g, -1, *weight.shape[1:])      # (G, O/G, C/G, kd, kh, kw)
        y = np.einsum("ngcdhwtij,goctij->ngodhw", win, w, optimize=True)
        y = y.reshape(n, weight.shape[0], *y.shape[-3:])
        if bias is not None:
            y += bias.reshape(-1, 1, 1, 1)
        need_x, need_w = self.needs_input_grad[:2]
        self.win, self.w = (win if need_w else None), (w if need_x else None)
        self.padded_size = xp.shape[2:]
        return y[0] if self.unbatched else y

    # With gy = dL/dy split into groups like y (and the sums over every output voxel):
    #   dL/dW[g, o, c, t, i, j] = sum_{n, d, h, w} gy[n, g, o, d, h, w] · window[..., t, i, j]
    #   dL/dwindow[n, g, c, d, h, w, t, i, j] = sum_o gy[n, g, o, d, h, w] · W[g, o, c, t, i, j]
    #   dL/dx = each window's gradient added back onto the voxels it read, minus the padding
    #   dL/db[o] = sum over n, d, h, w of gy[n, o, d, h, w]
    def backward(self, grad_out):
        need = self.needs_input_grad
        gy = grad_out[None] if self.unbatched else grad_out
        (n, c_out), g = gy.shape[:2], self.groups
        gy_g = gy.reshape(n, g, c_out // g, *gy.shape[2:])         # (N, G, O/G, D_o, H_o, W_o)
        grads = [None] * len(need)
        if need[0]:
            grad_win = np.einsum("ngodhw,goctij->ngcdhwtij", gy_g, self.w, optimize=True)
            grad_xp = add_windows(grad_win.reshape(n, g * self.w.shape[2], *grad_win.shape[3:]),
                                  self.padded_size, self.stride, self.dilation)
            grad_x = crop_hw(grad_xp, self.pads(self.w.shape[-3:]))
            grads[0] = grad_x[0] if self.unbatched else grad_x
        if need[1]:
            grad_w = np.einsum("ngodhw,ngcdhwtij->goctij", gy_g, self.win, optimize=True)
            grads[1] = grad_w.reshape(-1, *grad_w.shape[2:])
        if len(need) > 2 and need[2]:
            grads[2] = gy.sum(axis=(0, 2, 3, 4))
        return tuple(grads)


class ConvTranspose3d(ConvTranspose2d):
    """y = conv_transpose3d(x, W) + b: x (N, C_in, D, H, W), W (C_in, C_out/groups, kd, kh, kw).

    Each input voxel stamps the kernel, scaled by its value, onto the output at stride
    steps; overlapping stamps add up (conv3d's gradient with respect to its input):

        D_out = (D − 1)·stride − 2·padding + dilation·(kd − 1) + output_padding + 1
    """

    name = "conv_transpose3d"
    spatial = 3
    layouts = ("(N, C_in, D, H, W)", "(C_in, C_out/groups, kd, kh, kw)")

    # With x split into groups, W as (G, C_in/G, C_out/G, kd, kh, kw):
    #   stamps[n, g, o, d, h, w, t, i, j] = sum_c x[n, g, c, d, h, w] · W[g, c, o, t, i, j]
    #   y = the stamps added at planes d·s + t·dil, rows h·s + i·dil, columns w·s + j·dil,
    #       then cropped by padding
    def forward(self, x, weight, bias=None):
        self.unbatched = x.ndim == 4
        x = x[None] if self.unbatched else x
        (n, c), g, kernel = x.shape[:2], self.groups, weight.shape[2:]
        xg = x.reshape(n, g, c // g, *x.shape[2:])
        w = weight.reshape(g, c // g, *weight.shape[1:])    # (G, C_in/G, C_out/G, kd, kh, kw)
        stamps = np.einsum("ngcdhw,gcotij->ngodhwtij", xg, w, optimize=True)
        full = add_windows(stamps.reshape(n, g * stamps.shape[2], *stamps.shape[3:]),
                           self.full_size(x.shape[2:], kernel), self.stride, self.dilation)
        self.crop = tuple((p, p) for p in self.padding)
        y = np.ascontiguousarray(crop_hw(full, self.crop))
        if bias is not None:
            y += bias.reshape(-1, 1, 1, 1)
        self.xg, self.w, self.in_size = xg, w, x.shape[2:]
        return y[0] if self.unbatched else y

    # Each output voxel came from the stamps that cover it, so with gy = dL/dy padded back:
    #   dL/dx[n, g, c, d, h, w] = sum_{o, t, i, j} W[g, c, o, t, i, j] · gy_window[n, g, o, ...]
    #   dL/dW[g, c, o, t, i, j] = sum_{n, d, h, w} x[n, g, c, d, h, w] · gy_window[n, g, o, ...]
    #   dL/db[o] = sum over n, d, h, w of gy[n, o, d, h, w]
    def backward(self, grad_out):
        need = self.needs_input_grad
        gy = grad_out[None] if self.unbatched else grad_out
        (n, c_out), g, (d, h, w) = gy.shape[:2], self.groups, self.in_size
        kernel = self.w.shape[-3:]
        win = windows(pad_hw(gy, self.crop), kernel, self.stride, self.dilation)
        win = win[:, :, :d, :h, :w].reshape(n, g, c_out // g, d, h, w, *kernel)
        grads = [None] * len(need)
        if need[0]:
            grad_x = np.einsum("ngodhwtij,gcotij->ngcdhw", win, self.w, optimize=True)
            grad_x = grad_x.reshape(n, g * self.xg.shape[2], d, h, w)
            grads[0] = grad_x[0] if self.unbatched else grad_x
        if need[1]:
            grad_w = np.einsum("ngodhwtij,ngcdhw->gcotij", win, self.xg, optimize=True)
            grads[1] = grad_w.reshape(g * grad_w.shape[1], *grad_w.shape[2:])
        if len(need) > 2 and need[2]:
            grads[2] = gy.sum(axis=(0, 2, 3, 4))
        return tuple(grads)


class MaxPool3d(MaxPool2d):
    """y = the largest element of each kd×kh×kw window of a volume; padding counts as -inf.

    MaxPool2d's rules one axis further (its ties, NaN and -inf windows); with
    ``return_indices=True`` ``self.indices`` holds where each maximum is in its (D, H, W)
    block: (plane·H + row)·W + column.
    """

    name = "max_pool3d"
    spatial = 3


class AvgPool3d(AvgPool2d):
    """y = the mean of each kd×kh×kw window of a volume, with AvgPool2d's divisor rules
    (the divisor is the product of the window's counts along the three axes).

    As PyTorch's avg_pool3d (not its avg_pool2d), it refuses an input smaller than the
    kernel along an axis, even where the padding would make the window fit.
    """

    name = "avg_pool3d"
    spatial = 3

    def infer(self, x):
        shape = super().infer(x)
        for axis, name in enumerate(AXES):
            if x.shape[-3 + axis] < self.kernel[axis]:
                self.fail(f"the input has {x.shape[-3 + axis]} voxel(s) in {name}, fewer than "
                          f"the kernel's {self.kernel[axis]}; avg_pool3d takes no window "
                          "larger than the input, padding or not.", values=self._values(x),
                          hint="use a smaller kernel_size along that axis, or pad the input "
                          "first with F.pad.")
        return shape


class AdaptiveAvgPool3d(AdaptiveAvgPool2d):
    """Average pooling of a volume to a fixed (D_out, H_out, W_out), windows placed along
    each axis as AdaptiveAvgPool2d places them: three matrix products,
    y = x ×_d P_d ×_h P_h ×_w P_w (each P (out, in) holds its windows' 1 / length)."""

    name = "adaptive_avg_pool3d"
    spatial = 3

    def forward(self, x):  # y[..., a, b, c] = sum P_d[a, d] P_h[b, h] P_w[c, w] x[..., d, h, w]
        self.p = [averaging_matrix(size, out, x.dtype)
                  for size, out in zip(x.shape[-3:], self.out_size(x.shape))]
        return np.einsum("ad,bh,cw,...dhw->...abc", *self.p, x, optimize=True)

    def backward(self, grad_out):  # dL/dx[..., d, h, w] = sum P_d[a, d] P_h[b, h] P_w[c, w] dL/dy
        return (np.einsum("ad,bh,cw,...abc->...dhw", *self.p, grad_out, optimize=True),)


class AdaptiveMaxPool3d(AdaptiveMaxPool2d):
    """y[..., a, b, c] = the maximum of window (a, b, c) of a volume, AdaptiveMaxPool2d's
    rules one axis further; ``indices`` in the (D, H, W) block, for ``return_indices``."""

    name = "adaptive_max_pool3d"
    spatial = 3
