"""LazyConv2d: a Conv2d whose in_channels is read from its first input (PyTorch's).

Until then ``in_channels`` is 0 and the weight has no shape; the first call -- or
``nb.infer_shapes(model, input_shape)``, which needs no data -- reads the channel
dimension of (N, C, H, W) or (C, H, W), initialises the weight and bias as Conv2d does,
and the layer becomes a plain ``Conv2d``.  Build the optimizer after that first call.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import default_float
from ...errors import ShapeError, fmt_shape, message
from ..lazy import LazyModuleMixin, UninitializedParameter
from ._args import positive_int
from .conv import Conv2d


class LazyConv2d(LazyModuleMixin, Conv2d):
    """``LazyConv2d(out_channels, kernel_size, ...)``: Conv2d's arguments without
    in_channels."""

    cls_to_become = Conv2d

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        groups = positive_int("LazyConv2d", "groups", groups)
        # Conv2d checks every argument; it is given groups input channels (a size that
        # always divides) and draws nothing while _building is set.
        self.__dict__["_building"] = True
        super().__init__(groups, out_channels, kernel_size, stride, padding, dilation, groups,
                         bias, padding_mode, device, dtype)
        del self.__dict__["_building"]
        dtype = np.dtype(dtype or default_float())
        self.in_channels = 0
        self.weight = UninitializedParameter(dtype=dtype)
        self.bias = UninitializedParameter(dtype=dtype) if bias else None

    def reset_parameters(self) -> None:
        if not self.__dict__.get("_building") and not self.has_uninitialized_params():
            Conv2d.reset_parameters(self)

    def initialize_parameters(self, input) -> None:
        ndim = getattr(input, "ndim", None)
        if ndim not in (3, 4):
            got = type(input).__name__ if ndim is None else \
                f"{ndim}-D with shape {fmt_shape(input.shape)}"
            raise ShapeError(message(
                f"expects a 3-D (C, H, W) or 4-D (N, C, H, W) input to learn in_channels "
                f"from, got {got}.", hint="give it a batch of images (N, C, H, W)."))
        channels = int(input.shape[-3])
        if channels % self.groups:
            raise ShapeError(message(
                f"groups={self.groups} must divide the input's {channels} channels.",
                values=f"input {fmt_shape(input.shape)}",
                hint="each group convolves in_channels/groups inputs; pick groups dividing "
                "the number of channels the layer receives."))
        self._materialize(channels)

    def _materialize(self, in_channels: int) -> None:
        self.in_channels = in_channels
        kh, kw = self.kernel_size
        self.weight.materialize((self.out_channels, in_channels // self.groups, kh, kw))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        Conv2d.reset_parameters(self)

    def _shapes_from_state_dict(self, state_dict, prefix: str):
        weight = state_dict.get(prefix + "weight")
        if weight is None or np.ndim(weight) != 4:
            return None
        params = [self.weight] + ([self.bias] if self.bias is not None else [])
        old = [(p, p._array) for p in params]
        self._materialize(int(np.shape(weight)[1]) * self.groups)
        self.__class__ = Conv2d

        def undo():
            for p, array in old:
                p._array, p.__class__ = array, UninitializedParameter
            self.in_channels, self.__class__ = 0, LazyConv2d
        return undo

    def forward(self, input):
        self._first_call(input)
        return Conv2d.forward(self, input)
