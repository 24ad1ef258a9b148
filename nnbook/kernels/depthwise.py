"""Depthwise convolution (groups == C_in == C_out): kh·kw multiply-adds over long slices.

Channel c sees only itself: y[c] = sum_{i,j} W[c, 0, i, j] · (slice (i, j) of x[c]),
where slice (i, j) is kernel offset (i, j) of every window of channel c at once, one
contiguous row of the planes layout (planes.py).  No columns, no GEMMs: measured
1.4× faster than im2col at 32×32, and no column matrix to allocate.

The batch goes in blocks of a few samples, each block's planes small enough to stay
in the cache through its kh·kw passes (a third faster than one pass over the whole
batch at 32×32×32×32) and large enough that numpy's per-call cost stays small (1 MB
blocks made (c) of the benchmarks 5% faster than 0.5 MB ones), and threads take whole
blocks.  The blocks depend on the shape only, and dL/dW is summed over them in block
order afterwards, so the result is the same for any number of threads.
"""
from __future__ import annotations

import numpy as np

from .scratch import scratch

BLOCK_VALUES = 1 << 18  # planes values per block: ~1 MB in float32


def block_size(geometry, x_shape) -> int:
    """Samples per block: about BLOCK_VALUES planes values."""
    c, (ho, wo), (kh, kw), (sh, sw) = x_shape[1], geometry.out_hw, geometry.kernel, \
        geometry.stride
    per_sample = c * (ho + kh) * (wo + kw) * sh * sw  # about the planes of one sample
    return max(1, min(x_shape[0], BLOCK_VALUES // per_sample))


def _over_blocks(part, geometry, x_shape) -> int:
    """``part(block index, samples, planes)`` for every block, blocks split over threads."""
    (ho, wo), (kh, kw) = geometry.out_hw, geometry.kernel
    return geometry.over_blocks(part, x_shape, block_size(geometry, x_shape),
                                x_shape[1] * ho * wo * kh * kw)  # multiply-adds per sample


def forward(geometry, x, weight, bias):
    (n, c), (ho, wo) = x.shape[:2], geometry.out_hw
    w = weight.reshape(c, -1)                                    # (C, kh·kw): tap t = i·kw + j
    out = np.empty((n, c, ho, wo), dtype=x.dtype)

    def part(_, samples, planes):
        data = planes.scatter(x[samples])                        # (phases, C, n·P + slack)
        total = scratch("out_cols", (planes.c, planes.cols), x.dtype)
        tmp = scratch("tmp", total.shape, x.dtype)
        for t, (_, _, phase, off) in enumerate(planes.taps):
            view = data[phase, :, off:off + planes.cols]         # (C, n·P)
            np.multiply(view, w[:, t, None], out=tmp if t else total)
            if t:
                total += tmp
        planes.crop(total, out=out[samples])
        if bias is not None:
            out[samples] += bias.reshape(-1, 1, 1)

    _over_blocks(part, geometry, x.shape)
    return out


def backward(geometry, grad_out, x_shape, x, weight, need_x, need_w):
    (kh, kw), c = geometry.kernel, x_shape[1]
    w = weight[:, 0]                                             # (C, kh, kw)
    blocks = -(-x_shape[0] // block_size(geometry, x_shape))
    grad_w_blocks = np.empty((blocks, c, kh, kw), grad_out.dtype) if need_w else None
    grad_x = np.empty(x_shape, grad_out.dtype) if need_x else None

    def part(b, samples, planes):
        go = planes.spread(grad_out[samples])                    # (C, n·P)
        if need_w:  # dL/dW[c, 0, i, j] = sum over columns of dL/dy[c] · slice (i, j)[c]
            data = planes.scatter(x[samples])
            for i, j, phase, off in planes.taps:
                view = data[phase, :, off:off + planes.cols, None]   # (C, n·P, 1)
                grad_w_blocks[b, :, i, j] = np.matmul(go[:, None], view)[:, 0, 0]
        if need_x:  # dL/d slice (i, j)[c] = W[c, 0, i, j] · dL/dy[c]
            grad_data = planes.zeros(go.dtype)
            tmp = scratch("tmp", go.shape, go.dtype)
            for i, j, phase, off in planes.taps:
                np.multiply(go, w[:, i, j, None], out=tmp)
                grad_data[phase, :, off:off + planes.cols] += tmp
            planes.gather(grad_data, out=grad_x[samples])

    _over_blocks(part, geometry, x_shape)
    grad_w = grad_w_blocks.sum(axis=0)[:, None] if need_w else None  # in block order
    return grad_x, grad_w
