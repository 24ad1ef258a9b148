"""Inverted dropout: zero each element with probability p, scale the rest by 1/(1-p)."""
from __future__ import annotations

import numpy as np

from ..errors import InputError, message
from .base import Op, check_float, is_real


def check_probability(p, where: str) -> float:
    """A dropout probability in [0, 1] (the one check of it, for the op and the layer)."""
    if is_real(p) and 0 <= p <= 1:
        return float(p)
    raise InputError(message(
        f"p={p!r} must be a probability between 0 and 1.", where=where,
        hint="p is the fraction of elements set to zero: p=0.5 drops half, p=0.1 keeps 90%."))


class Dropout(Op):
    """y = x * mask / (1 - p), mask_i = 1 with probability 1 - p (training only).

    The mask comes from ``generator`` (a numpy Generator); ``F.dropout`` passes
    nnbook's seeded one, so ``nb.manual_seed`` makes it repeatable.
    """

    name = "dropout"

    def __init__(self, generator, p=0.5, training=True):
        self.p = check_probability(p, self.where)
        self.training, self.generator = bool(training), generator

    def infer(self, x):
        check_float(self, x)
        return x.shape

    def forward(self, x):
        if not self.training or self.p == 0:
            self.mask = None
            return x
        if self.p == 1:
            self.mask = np.zeros_like(x)
        else:
            keep = self.generator.random(x.shape, dtype=np.float32) >= self.p  # kept with probability 1 - p
            self.mask = keep * x.dtype.type(1 / (1 - self.p))
        return x * self.mask

    def backward(self, grad_out):  # y = x m / (1 - p);  dy/dx = m / (1 - p)
        return (grad_out if self.mask is None else grad_out * self.mask,)
