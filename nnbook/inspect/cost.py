"""Multiply-adds of the ops that do most of the arithmetic, counted from shapes alone."""
from __future__ import annotations

import math

from ..ops.pool import adaptive_windows

# the pools: one comparison (max) or addition (mean) per element of each window
WINDOW_POOLS = ("max_pool2d", "avg_pool2d", "max_pool1d", "avg_pool1d", "max_pool3d",
                "avg_pool3d")
FUSED_PRODUCTS = ("addmm", "addmv", "addr", "baddbmm", "addbmm")
ADAPTIVE_POOLS = ("adaptive_avg_pool2d", "adaptive_max_pool2d", "adaptive_avg_pool1d",
                  "adaptive_max_pool1d", "adaptive_avg_pool3d", "adaptive_max_pool3d")


def mult_adds(op, inputs, out_shape) -> int:
    """Multiply-adds ``op`` spends on inputs of these shapes (0 for cheap ops).

    A convolution does C_in/groups * kh * kw of them per output element (conv1d: k;
    conv3d: C_in/groups * kd * kh * kw), a transposed convolution C_out/groups * kh * kw
    per input element (each input value is
    spread over a kernel's worth of outputs), a linear layer in_features per output
    element, a matrix product (also inside addmm and its kin) k per output element, a
    recurrence H per gate per step (the input's share of the gates is a linear op of its
    own), an einsum one per term of its sums (a Bilinear layer: in1 * in2 per output
    element), a bag of embeddings one addition per value it looks up.  Biases are not
    counted.

    Pools multiply nothing; as summaries of PyTorch models usually do, they are counted
    here too, one per element of each window: a max pool compares every element of its
    window (padding taps included), an average pool adds every one, and an adaptive pool
    does as many as its window has elements (windows may overlap).  The division of the
    mean is not counted.
    """
    name = op.name
    out = math.prod(out_shape)
    if name in ("conv2d", "conv1d", "conv3d"):  # weight (C_out, C_in/groups, kh, kw), ...
        return out * math.prod(inputs[1].shape[1:])
    if name in ("conv_transpose2d", "conv_transpose1d", "conv_transpose3d"):  # (C_in, ...)
        return math.prod(inputs[0].shape) * math.prod(inputs[1].shape[1:])
    if name in WINDOW_POOLS:
        return out * math.prod(op.kernel)
    if name in ADAPTIVE_POOLS:
        return _adaptive_pool_adds(op, inputs[0].shape)
    if name == "linear":
        return out * inputs[1].shape[1]
    if name in ("rnnsequence", "lstmsequence", "grusequence"):  # h_{t-1} @ W_hh^T each step
        steps, batch, gates = inputs[0].shape
        return steps * batch * gates * inputs[1].shape[-1]
    if name == "matmul":
        return out * inputs[0].shape[-1]
    if name in FUSED_PRODUCTS:  # x + a @ b: k per element of the product
        return out * inputs[1].shape[-1]
    if name == "einsum":  # Bilinear: one per combination of all the letters' values
        return _einsum_terms(op, inputs)
    if name == "embedding_bag":  # every looked-up row is added into its bag
        return math.prod(inputs[0].shape) * inputs[1].shape[-1]
    return 0


def _einsum_terms(op, inputs) -> int:
    """The terms an einsum adds up, computed the plain way: the product of the sizes of
    every letter of the equation (for 'ij,jk->ik', i·j·k; for a Bilinear layer's
    '...i,oij,...j->...o', batch · out · in1 · in2)."""
    subs, _ = op.letters([x.shape for x in inputs])
    size = {}
    for sub, x in zip(subs, inputs):
        for letter, n in zip(sub, x.shape):
            size[letter] = max(size.get(letter, 1), n)
    return math.prod(size.values())


def _adaptive_pool_adds(op, shape) -> int:
    """The elements of every window of an adaptive pool, once per (sample, channel): the
    windows are a range of rows times a range of columns (times a range of planes in a
    volume), so their sizes add up as (sum of the row ranges) · (sum of the column
    ranges) (· ...).  A signal is one row high."""
    spatial = int(op.name[-2])  # adaptive_avg_pool1d, 2d or 3d
    sizes = (1,) * (op.spatial - spatial) + tuple(shape[-spatial:])
    per_plane = 1
    for size, out in zip(sizes, op.out_size((1, 1) + sizes)):
        per_plane *= sum(end - start for start, end in adaptive_windows(size, out))
    return math.prod(shape[:-spatial]) * per_plane
