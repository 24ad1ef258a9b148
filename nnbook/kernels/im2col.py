"""im2col: copy every window into a column, then the convolution is GEMMs.

cols[g, (i, j, c), n, h·W_out + w] = window (h, w) of sample n, tap (i, j), channel c
of group g; then y[n, g] = W_rows[g] · cols[g, :, n] (one GEMM per sample and group).
The columns hold real output pixels only, no spare columns (those would cost the
GEMMs a third more work on a 14×14 map).

The batch goes in blocks of samples whose columns take about BLOCK_VALUES values
(blocks depend on the shape only), threads take whole blocks, and dL/dW is one GEMM
per block, the blocks' sums added up in block order: the same bits for any number of
threads.
"""
from __future__ import annotations

import numpy as np

from .scratch import scratch

BLOCK_VALUES = 1 << 18  # column values per block of samples: ~1 MB in float32


def weight_rows(weight, groups):
    """W (O, C/G, kh, kw) -> (G, O/G, kh·kw·C/G), rows in the order of the columns."""
    c_out, per_group = weight.shape[:2]
    w = weight.reshape(groups, c_out // groups, per_group, -1)
    return w.transpose(0, 1, 3, 2).reshape(groups, c_out // groups, -1)


def _over_blocks(part, geometry, x_shape, rows: int) -> int:
    """``part(block index, samples, planes)`` for blocks of samples, in threads;
    ``rows``: column rows per sample (kh·kw·C/G per group, all groups)."""
    per_sample = rows * geometry.out_hw[0] * geometry.out_hw[1]
    block = max(1, min(x_shape[0], BLOCK_VALUES // per_sample))
    return geometry.over_blocks(part, x_shape, block, per_sample)


def forward(geometry, x, weight, bias):
    w_rows = weight_rows(weight, geometry.groups)                # (G, O/G, K)
    (n, g), (ho, wo) = (x.shape[0], geometry.groups), geometry.out_hw
    out = np.empty((n, weight.shape[0], ho, wo), dtype=x.dtype)

    def part(_, samples, planes):
        cols = im2col(geometry, planes, planes.scatter(x[samples]))  # (G, K, n, L)
        # One GEMM per sample and group, written straight into the output's layout
        # (measured faster here than one GEMM over the block plus a transposing copy).
        np.matmul(w_rows, cols.transpose(2, 0, 1, 3),
                  out=out[samples].reshape(-1, g, w_rows.shape[1], ho * wo))
        if bias is not None:  # added block by block, while it is in cache
            out[samples] += bias.reshape(-1, 1, 1)

    _over_blocks(part, geometry, x.shape, w_rows.shape[2] * g)
    return out


def backward(geometry, grad_out, x_shape, x, weight, need_x, need_w):
    g, (ho, wo) = geometry.groups, geometry.out_hw
    c_out, (kh, kw) = grad_out.shape[1], geometry.kernel
    w_rows = weight_rows(weight, g)                                # (G, O/G, K)
    grad_x = np.empty(x_shape, grad_out.dtype) if need_x else None
    per_block = {}  # block index -> its share of dL/dW, (G, K, O/G)

    def part(index, samples, planes):
        go = grad_out[samples].reshape(-1, g, c_out // g, ho * wo)   # (n, G, O/G, L)
        if need_w:  # dL/dW[g] = cols[g] · dL/dy[g]^T, summed over the block's pixels
            cols = im2col(geometry, planes, planes.scatter(x[samples]))  # (G, K, n, L)
            go_rows = scratch("grad_out", (g, c_out // g) + go.shape[:1] + go.shape[3:],
                              go.dtype)                              # (G, O/G, n, L)
            go_rows[...] = go.transpose(1, 2, 0, 3)
            per_block[index] = np.matmul(cols.reshape(g, cols.shape[1], -1),
                                         go_rows.reshape(g, c_out // g, -1).transpose(0, 2, 1))
        if need_x:  # dL/dcols[g] = W[g]^T · dL/dy[g]; each column goes back to its window
            col2im(geometry, planes, w_rows, grad_out[samples], out=grad_x[samples])

    blocks = _over_blocks(part, geometry, x_shape, w_rows.shape[2] * g)
    grad_w = None
    if need_w:  # the blocks' sums added in block order, whatever the threads were
        grad_rows = per_block[0]                                   # (G, K, O/G)
        for index in range(1, blocks):
            grad_rows = grad_rows + per_block[index]
        grad_w = grad_rows.reshape(g, kh, kw, -1, c_out // g).transpose(0, 4, 3, 1, 2)
        grad_w = grad_w.reshape(weight.shape)
    return grad_x, grad_w


def im2col(geometry, planes, data):
    """Every window as a column: cols[g, (i, j, c), n, h·W_out + w], (G, kh·kw·C/G, N, L).

    Built in two copies per strip of taps sharing a phase and a column shift:
    first the strip's W_out columns of every row (short rows), then each tap of
    the strip is a run of H_out·W_out contiguous pixels of it (long rows).
    """
    g, per_group, n = geometry.groups, planes.c // geometry.groups, planes.n
    (ho, wo), images = geometry.out_hw, planes.images(data)  # (phases, C, N, Hp, Wp)
    cols = scratch("cols", (g, len(planes.taps), per_group, n, ho * wo), data.dtype)
    strip = scratch("strip", (planes.c, n, planes.hp, wo), data.dtype)
    rows = strip.reshape(g, per_group, n, -1)             # (G, C/G, N, Hp·W_out)
    for (phase, rj), taps in planes.strips.items():
        strip[...] = images[phase, :, :, :, rj:rj + wo]
        for t, ri in taps:
            cols[:, t] = rows[..., ri * wo:(ri + ho) * wo]
    return cols.reshape(g, -1, n, ho * wo)


def col2im(geometry, planes, w_rows, grad_out, out):
    """dL/dx from dL/dy: the columns' gradients W^T · dL/dy, each added back onto the
    pixels of its window, into ``out`` (N, C, H, W).

    Windows overlap, so taps overlap.  The gradients are computed in the planes'
    columns (spare ones included, where dL/dy is 0): there each tap's columns are
    one long slice of the planes, added in one call (no np.add.at, no short rows).
    The product is Hp·Wp / (H_out·W_out) larger than on real pixels only; the adds
    of long slices save more than that (6 ms -> 1.5 ms for conv 16->32 of a
    64 x 16 x 14 x 14 batch on one thread).
    """
    g, c = geometry.groups, planes.c
    go = planes.spread(grad_out, slot="grad_out_planes")             # (O, N·P)
    grad_cols = scratch("grad_cols", (g, w_rows.shape[2], planes.cols), go.dtype)
    np.matmul(w_rows.transpose(0, 2, 1), go.reshape(g, -1, planes.cols), out=grad_cols)
    grad_cols = grad_cols.reshape(len(planes.taps), c, planes.cols) if g == 1 else \
        grad_cols.reshape(g, len(planes.taps), c // g, -1).transpose(1, 0, 2, 3).reshape(
            len(planes.taps), c, planes.cols)                         # (taps, C, N·P)
    if not np.isfinite(w_rows).all():  # inf · 0 is NaN: keep spare columns out exactly
        ho, wo = geometry.out_hw
        grid = grad_cols.reshape(len(planes.taps), c, planes.n, planes.hp, planes.wp)
        grid[..., ho:, :] = 0
        grid[..., :, wo:] = 0
    grad_data = planes.zeros(go.dtype)                                # (phases, C, N·P + slack)
    for t, (_, _, phase, off) in enumerate(planes.taps):
        grad_data[phase, :, off:off + planes.cols] += grad_cols[t]
    return planes.gather(grad_data, out)
