"""LazyConv2d and LazyConv3d: a Conv2d (Conv3d) whose in_channels is read from its first
input (PyTorch's).

Until then ``in_channels`` is 0 and the weight has no shape; the first call -- or
``nb.infer_shapes(model, input_shape)``, which needs no data -- reads the channel
dimension of (N, C, H, W) or (C, H, W) (of (N, C, D, H, W) or (C, D, H, W)), initialises
the weight and bias as the plain layer does, and the layer becomes a plain ``Conv2d``
(``Conv3d``).  Build the optimizer after that first call.
"""
from __future__ import annotations

import numpy as np

from ...dtypes import default_float
from ...errors import ShapeError, fmt_shape, message
from ..lazy import LazyModuleMixin, UninitializedParameter
from ._args import positive_int
from .conv import Conv2d, Conv3d

_LAYOUTS = {2: ("(C, H, W)", "(N, C, H, W)", "images"),
            3: ("(C, D, H, W)", "(N, C, D, H, W)", "volumes")}


class _LazyConvNd(LazyModuleMixin):
    """What the lazy convolutions share; ``cls_to_become`` is the layer they become."""

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        groups = positive_int(type(self).__name__, "groups", groups)
        # The plain layer checks every argument; it is given groups input channels (a size
        # that always divides) and draws nothing while _building is set.
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
            self.cls_to_become.reset_parameters(self)

    def initialize_parameters(self, input) -> None:
        n = self.cls_to_become._spatial
        ndim = getattr(input, "ndim", None)
        one, batch, things = _LAYOUTS[n]
        if ndim not in (n + 1, n + 2):
            got = type(input).__name__ if ndim is None else \
                f"{ndim}-D with shape {fmt_shape(input.shape)}"
            raise ShapeError(message(
                f"expects a {n + 1}-D {one} or {n + 2}-D {batch} input to learn in_channels "
                f"from, got {got}.", hint=f"give it a batch of {things} {batch}."))
        channels = int(input.shape[-1 - n])
        if channels % self.groups:
            raise ShapeError(message(
                f"groups={self.groups} must divide the input's {channels} channels.",
                values=f"input {fmt_shape(input.shape)}",
                hint="each group convolves in_channels/groups inputs; pick groups dividing "
                "the number of channels the layer receives."))
        self._materialize(channels)

    def _materialize(self, in_channels: int) -> None:
        self.in_channels = in_channels
        self.weight.materialize((self.out_channels, in_channels // self.groups,
                                 *self.kernel_size))
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.cls_to_become.reset_parameters(self)

    def _shapes_from_state_dict(self, state_dict, prefix: str):
        weight, lazy = state_dict.get(prefix + "weight"), type(self)
        if weight is None or np.ndim(weight) != self.cls_to_become._spatial + 2:
            return None
        params = [self.weight] + ([self.bias] if self.bias is not None else [])
        old = [(p, p._array) for p in params]
        self._materialize(int(np.shape(weight)[1]) * self.groups)
        self.__class__ = self.cls_to_become

        def undo():
            for p, array in old:
                p._array, p.__class__ = array, UninitializedParameter
            self.in_channels, self.__class__ = 0, lazy
        return undo

    def forward(self, input):
        plain = self.cls_to_become  # (read first: the first call makes self a plain layer)
        self._first_call(input)
        return plain.forward(self, input)


class LazyConv2d(_LazyConvNd, Conv2d):
    """``LazyConv2d(out_channels, kernel_size, ...)``: Conv2d's arguments without
    in_channels."""

    cls_to_become = Conv2d


class LazyConv3d(_LazyConvNd, Conv3d):
    """``LazyConv3d(out_channels, kernel_size, ...)``: Conv3d's arguments without
    in_channels."""

    cls_to_become = Conv3d
