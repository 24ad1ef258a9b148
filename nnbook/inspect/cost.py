"""Multiply-adds of the ops that do most of the arithmetic, counted from shapes alone."""
from __future__ import annotations

import math


def mult_adds(op, inputs, out_shape) -> int:
    """Multiply-adds ``op`` spends on inputs of these shapes (0 for cheap ops).

    A convolution does C_in/groups * kh * kw of them per output element, a linear
    layer in_features per output element, a matrix product k per output element, a
    recurrence H per gate per step (the input's share of the gates is a linear op of its own).
    """
    name = op.name
    out = math.prod(out_shape)
    if name == "conv2d":
        weight = inputs[1].shape
        return out * weight[1] * weight[2] * weight[3]
    if name == "linear":
        return out * inputs[1].shape[1]
    if name in ("rnnsequence", "lstmsequence", "grusequence"):  # h_{t-1} @ W_hh^T each step
        steps, batch, gates = inputs[0].shape
        return steps * batch * gates * inputs[1].shape[-1]
    if name == "matmul":
        return out * inputs[0].shape[-1]
    return 0
