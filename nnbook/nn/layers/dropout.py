"""Dropout layers: single values (Dropout), whole channels (Dropout1d/2d/3d), and the
alpha dropouts for SELU networks.

While training they zero inputs at random (probability ``p``) and scale the rest; in
``model.eval()`` they pass the input through unchanged.  Random draws come from
nnbook's generator, so ``nb.manual_seed`` makes them reproducible.
"""
from __future__ import annotations

from ...ops.dropout import check_probability
from .. import functional as F
from ..module import Module


class _DropoutNd(Module):
    preserves_channels = True  # for hints: the channel count passes through
    _function = None

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        self.p = check_probability(p, type(self).__name__)
        self.inplace = inplace

    def forward(self, input):
        return type(self)._function(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """Zero each value with probability p and scale the rest by 1/(1-p)."""

    _function = staticmethod(F.dropout)


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) or (C, L) inputs."""

    _function = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """Zero whole channels of (N, C, H, W) or (C, H, W) inputs (feature maps)."""

    _function = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """Zero whole channels of (N, C, D, H, W) or (C, D, H, W) inputs."""

    _function = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps mean 0 and variance 1, for SELU networks."""

    _function = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """AlphaDropout of whole channels."""

    _function = staticmethod(F.feature_alpha_dropout)
