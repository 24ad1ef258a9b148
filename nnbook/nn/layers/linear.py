"""Linear: y = x W^T + b, and Identity."""
from __future__ import annotations

import numpy as np

from ...errors import ShapeError, fmt_shape, message
from ...ops.linalg import features_hint
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from ._args import check_device, positive_int
from .containers import mismatch_hint


class Linear(Module):
    """y = x @ weight.T + bias, weight of shape (out_features, in_features) as in PyTorch.

    Initialised like PyTorch: weight and bias uniform in +-1/sqrt(in_features).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None,
                 dtype=None):
        super().__init__()
        check_device("Linear", device)
        self.in_features = positive_int("Linear", "in_features", in_features, 0)
        self.out_features = positive_int("Linear", "out_features", out_features, 0)
        dtype = np.dtype(dtype or np.float32)
        self.weight = Parameter(np.empty((self.out_features, self.in_features), dtype))
        self.bias = Parameter(np.empty((self.out_features,), dtype)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.default_weight_and_bias_(self.weight, self.bias)

    def forward(self, input):
        if getattr(input, "ndim", 0) >= 1 and input.shape[-1] != self.in_features:
            got = input.shape[-1]
            raise ShapeError(message(
                f"expects input with {self.in_features} features in its last dimension, "
                f"got {got}.",
                values=f"input {fmt_shape(input.shape)}   weight {fmt_shape(self.weight.shape)}",
                hint=features_hint(input.shape, self.in_features, self.out_features) or
                mismatch_hint(f"Linear({got}, {self.out_features})", "features", got,
                              self.in_features)))
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Identity(Module):
    """Returns its input unchanged (any arguments are accepted and ignored, as in PyTorch)."""

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input
