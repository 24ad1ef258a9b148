"""Losses as modules: NLLLoss, CrossEntropyLoss, MSELoss (PyTorch's arguments).

``reduction``: 'mean' (the default), 'sum', or 'none' for one loss per element.
Class ``weight``s are kept as a buffer, so they travel with ``state_dict``.
"""
from __future__ import annotations

import numpy as np

from ...ops.losses import check_reduction
from ...tensor import Tensor, _wrap
from .. import functional as F
from ..module import Module


def _reduction(cls: str, reduction, size_average=None, reduce=None) -> str:
    """``reduction`` (or PyTorch's old flags), checked when the layer is built."""
    return check_reduction(F.legacy_reduction(cls, size_average, reduce, reduction), cls)


class _WeightedLoss(Module):
    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean"):
        super().__init__()
        cls = type(self).__name__
        if weight is not None and not isinstance(weight, Tensor):
            weight = _wrap(np.asarray(weight, dtype=np.float32))
        self.register_buffer("weight", weight)
        self.ignore_index = ignore_index
        self.reduction = _reduction(cls, reduction, size_average, reduce)

    def extra_repr(self) -> str:
        parts = [] if self.reduction == "mean" else [f"reduction={self.reduction!r}"]
        if self.ignore_index != -100:
            parts.append(f"ignore_index={self.ignore_index}")
        return ", ".join(parts)


class NLLLoss(_WeightedLoss):
    """-input[n, target[n]]: the negative log-likelihood, given log-probabilities
    (the output of LogSoftmax(dim=1)) and class indices."""

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """LogSoftmax(dim=1) and NLLLoss in one step: give it raw scores (logits)."""

    def __init__(self, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                 reduction: str = "mean", label_smoothing: float = 0.0):
        super().__init__(weight, size_average, ignore_index, reduce, reduction)
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class MSELoss(Module):
    """mean((input - target)**2); the two shapes must be equal."""

    def __init__(self, size_average=None, reduce=None, reduction: str = "mean"):
        super().__init__()
        self.reduction = _reduction("MSELoss", reduction, size_average, reduce)

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)

    def extra_repr(self) -> str:
        return "" if self.reduction == "mean" else f"reduction={self.reduction!r}"
