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
            # kept with probability 1 - p
            keep = self.generator.random(x.shape, dtype=np.float32) >= self.p
            self.mask = keep * x.dtype.type(1 / (1 - self.p))
        return x * self.mask

    def backward(self, grad_out):  # y = x m / (1 - p);  dy/dx = m / (1 - p)
        return (grad_out if self.mask is None else grad_out * self.mask,)


class FeatureDropout(Dropout):
    """Dropout of whole channels: one draw per (sample, channel), shared by every position
    of that channel's map (dropout1d, dropout2d, dropout3d).

    ``batched`` says whether dimension 0 is the batch (then channels are dimension 1).
    """

    name = "feature_dropout"

    def __init__(self, generator, p=0.5, training=True, batched=True):
        super().__init__(generator, p, training)
        self.batched = batched

    def forward(self, x):
        if not self.training or self.p == 0:
            self.mask = None
            return x
        kept = 2 if self.batched else 1  # (N, C) or (C,) get their own draws
        shape = x.shape[:kept] + (1,) * (x.ndim - kept)
        keep = self.generator.random(shape, dtype=np.float32) >= self.p
        scale = 0 if self.p == 1 else 1 / (1 - self.p)
        self.mask = np.broadcast_to(keep * x.dtype.type(scale), x.shape)
        return x * self.mask


class AlphaDropout(Dropout):
    """Dropout for SELU networks: dropped values become SELU's negative limit -alpha', and
    an affine map a y + b brings mean 0 and variance 1 back.

        alpha' = SELU scale * SELU alpha = 1.7580993408473766
        a = 1 / sqrt((alpha'**2 p + 1)(1 - p)),  y = a (x m - alpha' (1 - m)) + a alpha' p
    ``feature=True`` draws one mask value per channel (feature_alpha_dropout).
    """

    name = "alpha_dropout"
    ALPHA = 1.7580993408473766

    def __init__(self, generator, p=0.5, training=True, feature=False):
        super().__init__(generator, p, training)
        self.feature = feature

    def forward(self, x):
        if not self.training or self.p == 0:
            self.scale = None
            return x
        if self.p == 1:
            self.scale = np.zeros_like(x)
            return self.scale.copy()
        shape = x.shape[:2] + (1,) * (x.ndim - 2) if self.feature else x.shape
        keep = (self.generator.random(shape, dtype=np.float32) >= self.p).astype(x.dtype)
        a = 1 / np.sqrt((self.ALPHA ** 2 * self.p + 1) * (1 - self.p))
        self.scale = np.broadcast_to(keep * x.dtype.type(a), x.shape)  # dy/dx
        shift = (keep - 1) * (self.ALPHA * a) + self.ALPHA * a * self.p
        return (x * self.scale + shift).astype(x.dtype)

    def backward(self, grad_out):  # y = a m x + const;  dy/dx = a m
        return (grad_out if self.scale is None else grad_out * self.scale,)
