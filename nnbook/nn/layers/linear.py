"""Linear: y = x W^T + b; LazyLinear, which learns in_features from its first input;
Bilinear: y = x1^T A x2 + b; and Identity."""
from __future__ import annotations

import math

import numpy as np

from ...dtypes import default_float
from ...errors import InputError, ShapeError, fmt_shape, message
from ...ops.linalg import features_hint
from .. import functional as F
from .. import init
from ..lazy import LazyModuleMixin, UninitializedParameter
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
        dtype = np.dtype(dtype or default_float())
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


class LazyLinear(LazyModuleMixin, Linear):
    """A Linear whose in_features is read from its first input's last dimension.

    Until then ``in_features`` is 0 and the weight has no shape; the first call (or
    ``nb.infer_shapes``) initialises it as ``Linear`` does, and the layer becomes a
    ``Linear``.  Build the optimizer after that first call, as in PyTorch.
    """

    cls_to_become = Linear

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None):
        Module.__init__(self)
        check_device("LazyLinear", device)
        self.in_features = 0
        self.out_features = positive_int("LazyLinear", "out_features", out_features, 0)
        dtype = np.dtype(dtype or default_float())
        self.weight = UninitializedParameter(dtype=dtype)
        self.bias = UninitializedParameter(dtype=dtype) if bias else None

    def reset_parameters(self) -> None:
        if not self.has_uninitialized_params():
            super().reset_parameters()

    def initialize_parameters(self, input) -> None:
        if getattr(input, "ndim", 0) < 1:
            raise InputError(message(
                f"expects an input with a feature dimension to learn in_features from, got "
                f"{'a 0-d tensor' if hasattr(input, 'ndim') else type(input).__name__}.",
                hint="give it a batch of feature vectors (N, features)."))
        self._materialize(int(input.shape[-1]))

    def _materialize(self, in_features: int) -> None:
        self.in_features = in_features
        self.weight.materialize((self.out_features, in_features))
        if self.bias is not None:
            self.bias.materialize((self.out_features,))
        Linear.reset_parameters(self)

    def _shapes_from_state_dict(self, state_dict, prefix: str):
        weight = state_dict.get(prefix + "weight")
        if weight is None or np.ndim(weight) != 2:
            return None
        params = [self.weight] + ([self.bias] if self.bias is not None else [])
        old = [(p, p._array) for p in params]
        self._materialize(int(np.shape(weight)[1]))
        self.__class__ = Linear

        def undo():
            for p, array in old:
                p._array, p.__class__ = array, UninitializedParameter
            self.in_features, self.__class__ = 0, LazyLinear
        return undo

    def forward(self, input):
        self._first_call(input)
        return Linear.forward(self, input)


class Bilinear(Module):
    """y = x1^T A x2 + b for each output: weight (out_features, in1_features, in2_features).

    Initialised like PyTorch: weight and bias uniform in +-1/sqrt(in1_features).
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device=None, dtype=None):
        super().__init__()
        check_device("Bilinear", device)
        self.in1_features = positive_int("Bilinear", "in1_features", in1_features)
        self.in2_features = positive_int("Bilinear", "in2_features", in2_features)
        self.out_features = positive_int("Bilinear", "out_features", out_features)
        dtype = np.dtype(dtype or default_float())
        shape = (self.out_features, self.in1_features, self.in2_features)
        self.weight = Parameter(np.empty(shape, dtype))
        self.bias = Parameter(np.empty((self.out_features,), dtype)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        bound = 1 / math.sqrt(self.in1_features)
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
