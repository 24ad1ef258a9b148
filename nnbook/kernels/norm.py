"""Batch norm, faster: PyTorch's arithmetic, in few passes over the input, a block at a time.

The reference (``BatchNorm`` in nnbook/ops) makes about ten passes over the whole
input, most of them writing a fresh array.  Here the input is seen as (N, C, L) and
read a block of samples at a time (contiguous, and small enough that what is made
from it stays in the cache, large enough that numpy's cost per call stays small:
blocks of 1 MB made (c) of the benchmarks 4-5% faster than blocks of 256 KB):

* forward: one pass for each channel's mean and variance (each block's own, merged in
  order: _mean_and_var), and the output in two, y = x · alpha + beta per channel, with
  alpha = w · inv_std and beta = b − mean · alpha (as PyTorch computes it on the CPU);
* backward: one pass for the sums of g and of g · (x − mean), then
  dx = g · A + (x − mean) · B + C, with per-channel A, B and C folded from the formula
  w inv_std (g − mean(g) − x_hat mean(g x_hat)).

Backward's per-sample sums go to (N, C) arrays, then summed over the samples in order.
The blocks run one after the other in this thread: on a shared two-core machine a
second thread gained little on these memory-bound passes, and BLAS's row sums ran
2.4× slower from two threads at once than from one.
"""
from __future__ import annotations

import numpy as np

from ..ops.base import register_kernel
from ..ops.norm import BatchNorm
from .memory import keep_freed_memory
from .scratch import scratch

BLOCK_VALUES = 1 << 18  # a block of samples: ~1 MB in float32
SHORT_ROW = 4096        # rows shorter than this get per-channel values written out


def _blocks(x3) -> list:
    """Slices of the samples of x3 (N, C, L), each about BLOCK_VALUES values."""
    n, per_sample = x3.shape[0], x3.shape[1] * x3.shape[2]
    size = max(1, min(n, BLOCK_VALUES // max(per_sample, 1)))
    return [slice(a, min(a + size, n)) for a in range(0, n, size)]


def _row_sums(a) -> np.ndarray:
    """(n, C, L) -> (n, C), as a product with a vector of ones: BLAS's dot products
    measured 4-6× faster than a.sum(axis=2) on these rows (32 to 1024 values)."""
    return a @ np.ones(a.shape[2], dtype=a.dtype)


_vecdot = getattr(np, "vecdot", None)  # numpy 2.0 and later


def _row_dots(a, b) -> np.ndarray:
    """(n, C, L) · (n, C, L) -> (n, C): one dot product per row, with no product array in
    between (numpy's vecdot measured 2.4× faster than a * b then _row_sums)."""
    if _vecdot is not None:
        return _vecdot(a, b)
    return np.einsum("ncl,ncl->nc", a, b)  # numpy 1.x


def _per_channel(values, length):
    """(C,) values broadcast along rows of ``length``: (C, 1), or for short rows (C, length)
    written out, which numpy multiplies in one long loop instead of one short loop per row
    (25-35% faster for rows of 1024 values)."""
    if length >= SHORT_ROW:
        return values[:, None]
    return np.repeat(values, length).reshape(-1, length)


def _centred(x, mean, slot):
    """x − mean (per channel) in a scratch array."""
    return np.subtract(x, mean[:, None], out=scratch(slot, x.shape, x.dtype))


def _mean_and_var(x3, blocks) -> tuple:
    """Each channel's mean and biased variance over samples and positions, reading x3 once.

    Each block, while it is in the cache, gives its own count n_b, mean m_b and sum of
    squared deviations from m_b, S_b; then the blocks are merged in order (Chan, Golub and
    LeVeque's formula, as exact as two passes over the whole input):
        mean = sum_b n_b m_b / n,   n var = sum_b (S_b + n_b (m_b - mean)^2)
    """
    per_sample, dtype = x3.shape[2], x3.dtype
    counts, means, squares = [], [], []
    for s in blocks:
        count = (s.stop - s.start) * per_sample
        block_mean = _row_sums(x3[s]).sum(axis=0) / count
        centred = _centred(x3[s], block_mean, "tmp")
        counts.append(count)
        means.append(block_mean)
        squares.append(_row_dots(centred, centred).sum(axis=0))
    counts = np.array(counts, dtype)[:, None]
    means, total = np.array(means), counts.sum()
    mean = (counts * means).sum(axis=0) / total
    var = (np.array(squares) + counts * (means - mean) ** 2).sum(axis=0) / total
    return mean.astype(dtype, copy=False), var.astype(dtype, copy=False)


@register_kernel(BatchNorm)
class BatchNormKernel(BatchNorm):
    """BatchNorm in few passes over the input; the formulas are the reference's."""

    def forward(self, x, weight=None, bias=None):
        if x.size == 0:
            return super().forward(x, weight, bias)
        keep_freed_memory()  # once: the output and scratch are made again every call
        x3 = np.ascontiguousarray(x).reshape(x.shape[0], x.shape[1], -1)  # (N, C, L)
        dtype, blocks = x.dtype, _blocks(x3)
        self.count = x3.shape[0] * x3.shape[2]
        if self.training:  # mean and biased variance of this batch, in one pass
            mean, var = _mean_and_var(x3, blocks)
            if self.running_mean is not None:
                self.running_update = self.updated_running_stats(mean, var)
        else:
            mean = self.running_mean.astype(dtype, copy=False)
            var = self.running_var.astype(dtype, copy=False)
        self.mean, self.inv_std = mean, (1 / np.sqrt(var + self.eps)).astype(dtype)
        alpha = self.inv_std if weight is None else self.inv_std * weight
        beta = -mean * alpha if bias is None else bias - mean * alpha
        out = np.empty_like(x3)
        alpha, beta = (_per_channel(v, x3.shape[2]) for v in (alpha, beta))
        for s in blocks:  # y = x_hat w + b = x alpha + beta
            np.multiply(x3[s], alpha, out=out[s])
            out[s] += beta
        self.x3, self.weight = x3, weight
        return out.reshape(x.shape)

    def backward(self, grad_out):  # the derivatives: see BatchNorm.backward
        if grad_out.size == 0:
            return super().backward(grad_out)
        need, g3 = self.needs_input_grad, grad_out.reshape(self.x3.shape)
        mean, inv_std, blocks = self.mean, self.inv_std, _blocks(g3)
        sum_g, sum_gc = np.empty((2,) + g3.shape[:2], g3.dtype)
        for s in blocks:  # sum(g) and sum(g (x − mean)) per channel
            sum_g[s] = _row_sums(g3[s])
            sum_gc[s] = _row_dots(_centred(self.x3[s], mean, "tmp"), g3[s])
        sum_g, sum_g_xhat = sum_g.sum(axis=0), sum_gc.sum(axis=0) * inv_std
        grad_x = None
        if need[0]:
            grad_x = np.empty_like(g3)
            scale = inv_std if self.weight is None else self.weight * inv_std
            if self.training:
                # dx = scale (g − sum_g / n − x_hat sum_g_xhat / n), x_hat = (x − mean) inv_std
                #    = g A + (x − mean) B + C
                a, b = scale, -scale * inv_std * sum_g_xhat / self.count
                c = -scale * sum_g / self.count
                a, b, c = (_per_channel(v, g3.shape[2]) for v in (a, b, c))
                for s in blocks:
                    centred = _centred(self.x3[s], mean, "tmp")
                    centred *= b
                    np.multiply(g3[s], a, out=grad_x[s])
                    grad_x[s] += centred
                    grad_x[s] += c
            else:  # constants: dx = scale g
                for s in blocks:
                    np.multiply(g3[s], scale[:, None], out=grad_x[s])
            grad_x = grad_x.reshape(grad_out.shape)
        grads = (grad_x, sum_g_xhat, sum_g)
        return tuple(gr if want else None for gr, want in zip(grads, need))
