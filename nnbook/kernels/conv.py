"""The convolution, faster: three algorithms, chosen per call, giving the reference's numbers.

  pointwise  1×1 kernel, no padding: GEMMs over channels, no windows at all
  depthwise  groups == C_in == C_out: kh·kw multiply-adds over the planes' slices
  im2col     everything else: copy the windows into columns, then GEMMs
             (with groups, one GEMM per group; depth multipliers >= 2 land here)

Each algorithm lives in its own file as a ``forward`` and a ``backward`` function
taking the call's :class:`Geometry`; the kernel below picks one and keeps what its
backward needs.
"""
from __future__ import annotations

import numpy as np

from ..ops.base import register_kernel
from ..ops.conv import Conv2d
from ..ops.onedim import Conv1d
from ..ops.windows import out_length
from . import depthwise, im2col, pointwise
from .planes import Geometry

PATHS = {"pointwise": pointwise, "depthwise": depthwise, "im2col": im2col}


def choose_path(c_in: int, weight_shape, groups: int, pads) -> str:
    if weight_shape[2:] == (1, 1) and pads == ((0, 0), (0, 0)):
        return "pointwise"
    # Depthwise with multiplier 1.  With a multiplier m >= 2 (C_out = m·C_in) the
    # grouped GEMMs of im2col were as fast or faster (m·kh·kw elementwise passes
    # against one GEMM per channel); with one input channel "depthwise" is an
    # ordinary conv, one GEMM.
    if groups == c_in == weight_shape[0] > 1:
        return "depthwise"
    return "im2col"


@register_kernel(Conv2d)
class Conv2dKernel(Conv2d):
    """Conv2d by pointwise GEMMs, depthwise slices or im2col, with threads."""

    def forward(self, x, weight, bias=None):
        self.unbatched = x.ndim == 3
        x = x[None] if self.unbatched else x
        pads = self.pads(weight.shape[2:])
        out_hw = tuple(out_length(x.shape[2 + a], weight.shape[2 + a], self.stride[a],
                                  self.dilation[a], pads[a]) for a in (0, 1))
        self.geometry = Geometry(self.groups, weight.shape[2:], self.stride, self.dilation,
                                 pads, out_hw)
        self.path = choose_path(x.shape[1], weight.shape, self.groups, pads)
        self.x_shape, self.weight = x.shape, weight
        # Only dL/dW needs the input again (nothing is kept without a graph); its
        # planes or columns are rebuilt from it in backward, in scratch memory.
        self.saved = x if self.needs_input_grad[1] else None
        if x.shape[0] == 0:  # an empty batch: nothing to compute
            out = np.zeros((0, weight.shape[0]) + out_hw, dtype=x.dtype)
            if bias is not None:
                out += bias.reshape(-1, 1, 1)
        else:
            out = PATHS[self.path].forward(self.geometry, x, weight, bias)
        return out[0] if self.unbatched else out

    def backward(self, grad_out):  # the derivatives: see Conv2d.backward
        need = self.needs_input_grad
        grad_out = grad_out[None] if self.unbatched else grad_out
        if grad_out.shape[0] == 0:
            grad_x, grad_w = np.zeros(self.x_shape, grad_out.dtype), np.zeros_like(self.weight)
        else:
            grad_x, grad_w = PATHS[self.path].backward(
                self.geometry, grad_out, self.x_shape, self.saved, self.weight, need[0],
                need[1])
        if grad_x is not None and self.unbatched:
            grad_x = grad_x[0]
        grads = [grad_x if need[0] else None, grad_w if need[1] else None]
        if len(need) > 2:
            grads.append(_channel_sums(grad_out) if need[2] else None)
        return tuple(grads)


@register_kernel(Conv1d)
class Conv1dKernel(Conv1d, Conv2dKernel):
    """Conv1d by the Conv2d kernel: a signal is an image one pixel high."""


def _channel_sums(grad_out):
    """dL/db: (N, C, H, W) -> (C,), each sample's rows summed by a product with ones
    (BLAS: 5× faster than grad_out.sum(axis=(0, 2, 3)) on an 8×4 map), then the samples."""
    n, c, h, w = grad_out.shape
    rows = grad_out.reshape(n, c, h * w)
    return (rows @ np.ones(rows.shape[2], dtype=rows.dtype)).sum(axis=0)
