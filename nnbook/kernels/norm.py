"""Batch norm, faster: blocks of channels side by side in threads, fewer passes.

The reference (``BatchNorm`` in nnbook/ops) reduces over non-contiguous axes and makes
a fresh array at most steps.  Here the input is seen as (N, C, L), each channel's sums
run along its contiguous rows of L values, the normalised values and the output are
written in place, and the channels are cut into a few blocks that threads compute side
by side.  The blocks depend on the shape only, so the result is the same for any
number of threads.
"""
from __future__ import annotations

import numpy as np

from ..ops.base import register_kernel
from ..ops.nnops import BatchNorm
from .scratch import scratch
from .threads import over_batch

BLOCK_VALUES = 1 << 16  # at least this many input values make a block worth a thread
MAX_BLOCKS = 4          # more, smaller blocks measured slower (strided rows, overhead)


def channel_blocks(n: int, c: int, length: int) -> list:
    """Channels 0..C-1 in at most MAX_BLOCKS blocks, each worth a thread."""
    count = max(1, min(c, MAX_BLOCKS, (n * c * length) // BLOCK_VALUES))
    bounds = [c * i // count for i in range(count + 1)]
    return [slice(a, b) for a, b in zip(bounds, bounds[1:])]


def _over_blocks(part, x3) -> None:
    """``part(channels)`` for every block of channels, the blocks split over threads."""
    blocks = channel_blocks(*x3.shape)

    def run(chunk):  # a chunk of the blocks (see threads.py)
        for channels in blocks[chunk]:
            part(channels)

    over_batch(run, len(blocks), x3.shape[0] * x3.shape[2] * blocks[0].stop)


def _sums(a):
    """(N, c, L) -> (c,): each channel's sum, along its rows first."""
    return a.sum(axis=2).sum(axis=0)


@register_kernel(BatchNorm)
class BatchNormKernel(BatchNorm):
    """BatchNorm by blocks of channels; the formulas are the reference's."""

    def forward(self, x, weight=None, bias=None):
        if x.size == 0:
            return super().forward(x, weight, bias)
        x3 = x.reshape(x.shape[0], x.shape[1], -1)                   # (N, C, L)
        (n, c, length), dtype = x3.shape, x.dtype
        self.count = n * length
        mean, var = np.empty(c, dtype), np.empty(c, dtype)
        self.inv_std = np.empty(c, dtype)
        self.x_hat, out = np.empty_like(x3), np.empty_like(x3)

        def part(cs):  # a block of channels
            x_hat = self.x_hat[:, cs]
            if self.training:  # mean and biased variance of this batch
                mean[cs] = _sums(x3[:, cs]) / self.count
                np.subtract(x3[:, cs], mean[cs, None], out=x_hat)
                var[cs] = np.einsum("ncl,ncl->c", x_hat, x_hat) / self.count
            else:
                mean[cs] = self.running_mean[cs]
                var[cs] = self.running_var[cs]
                np.subtract(x3[:, cs], mean[cs, None], out=x_hat)
            self.inv_std[cs] = 1 / np.sqrt(var[cs] + self.eps)
            x_hat *= self.inv_std[cs, None]
            if weight is None:
                np.copyto(out[:, cs], x_hat)
            else:
                np.multiply(x_hat, weight[cs, None], out=out[:, cs])
            if bias is not None:
                out[:, cs] += bias[cs, None]

        _over_blocks(part, x3)
        if self.training:
            self._update_running(mean, var)
        self.weight = weight
        return out.reshape(x.shape)

    def backward(self, grad_out):  # the derivatives: see BatchNorm.backward
        if grad_out.size == 0:
            return super().backward(grad_out)
        need, g3 = self.needs_input_grad, grad_out.reshape(self.x_hat.shape)
        c = g3.shape[1]
        sum_g, sum_g_xhat = np.empty(c, g3.dtype), np.empty(c, g3.dtype)
        scale = self.inv_std if self.weight is None else self.weight * self.inv_std
        grad_x = np.empty_like(g3) if need[0] else None

        def part(cs):  # a block of channels
            g, x_hat = g3[:, cs], self.x_hat[:, cs]
            sum_g[cs] = _sums(g)
            sum_g_xhat[cs] = np.einsum("ncl,ncl->c", g, x_hat)
            if not need[0]:
                return
            if not self.training:  # constants: dx = w inv_std g
                np.multiply(g, scale[cs, None], out=grad_x[:, cs])
                return
            # dx = w inv_std (g - mean(g) - x_hat mean(g x_hat))
            gx, tmp = grad_x[:, cs], scratch("tmp", g.shape, g.dtype)
            np.subtract(g, (sum_g[cs] / self.count)[:, None], out=gx)
            gx -= np.multiply(x_hat, (sum_g_xhat[cs] / self.count)[:, None], out=tmp)
            gx *= scale[cs, None]

        _over_blocks(part, g3)
        grads = (None if grad_x is None else grad_x.reshape(grad_out.shape), sum_g_xhat, sum_g)
        return tuple(gr if want else None for gr, want in zip(grads, need))
