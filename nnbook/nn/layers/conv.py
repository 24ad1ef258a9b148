"""Conv2d, Conv3d (volumes) and DepthwiseConv2d (a Conv2d with groups = channels)."""
from __future__ import annotations

import numpy as np

from ...dtypes import default_float
from ...errors import InputError, ShapeError, fmt_shape, message
from ...ops.base import channels_hint, per_axis
from ...ops.conv import conv_padding, conv_pads
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from ._args import call_text, check_device, positive_int
from .containers import mismatch_hint

# Conv2d's padding_mode -> F.pad's mode
_PADDING_MODES = {"zeros": "constant", "reflect": "reflect", "replicate": "replicate",
                  "circular": "circular"}


class _ConvNd(Module):
    """What Conv2d and Conv3d share: their arguments, checks, weights and padding modes;
    ``_spatial`` says how many spatial axes they convolve, and ``_function`` with what."""

    _spatial = 2
    _function = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1,
                 padding=0, dilation=1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        cls = type(self).__name__
        check_device(cls, device)
        if padding_mode not in _PADDING_MODES:
            raise InputError(message(
                f"padding_mode must be one of {', '.join(map(repr, _PADDING_MODES))}, got "
                f"{padding_mode!r}.", where=cls,
                hint="'zeros' (the default) pads with zeros; 'reflect' mirrors the border."))
        self.padding_mode = padding_mode
        self.in_channels = positive_int(cls, "in_channels", in_channels)
        self.out_channels = positive_int(cls, "out_channels", out_channels)
        n = self._spatial
        self.kernel_size = per_axis(kernel_size, n, "kernel_size", cls, minimum=1)
        self.stride = per_axis(stride, n, "stride", cls, minimum=1)
        self.padding = conv_padding(padding, self.stride, cls, minimum=0)
        self.dilation = per_axis(dilation, n, "dilation", cls, minimum=1)
        self.groups = positive_int(cls, "groups", groups)
        for name, size in (("in_channels", self.in_channels),
                           ("out_channels", self.out_channels)):
            if size % self.groups:
                raise InputError(message(
                    f"groups={self.groups} must divide {name} ({size}).", where=cls,
                    hint="each group convolves in_channels/groups inputs into "
                    "out_channels/groups outputs; pick groups dividing both."))
        dtype = np.dtype(dtype or default_float())
        self.weight = Parameter(np.empty(
            (self.out_channels, self.in_channels // self.groups, *self.kernel_size), dtype))
        self.bias = Parameter(np.empty((self.out_channels,), dtype)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.default_weight_and_bias_(self.weight, self.bias)

    def forward(self, input):
        ndim, n = getattr(input, "ndim", 0), self._spatial
        if ndim in (n + 1, n + 2) and input.shape[-1 - n] != self.in_channels:
            self._wrong_channels(input)
        function = type(self)._function
        if self.padding_mode != "zeros":  # pad the border first, then convolve without padding
            pads = conv_pads(self.padding, self.kernel_size, self.dilation)  # 'same' too
            # F.pad takes the last axis first: (left, right, top, bottom[, front, back])
            input = F.pad(input, tuple(p for pair in reversed(pads) for p in pair),
                          mode=_PADDING_MODES[self.padding_mode])
            return function(input, self.weight, self.bias, self.stride, 0, self.dilation,
                            self.groups)
        return function(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)

    def _wrong_channels(self, input):
        got = input.shape[-1 - self._spatial]
        values = (f"input {fmt_shape(input.shape)}   weight {fmt_shape(self.weight.shape)}"
                  f"   groups={self.groups}")
        cls = type(self).__name__
        raise ShapeError(message(
            f"expects input with {self.in_channels} channels, got {got}.", values=values,
            hint=channels_hint(input.shape, self.in_channels, cls, self._spatial) or
            mismatch_hint(self._with_in_channels(got), "channels", got, self.in_channels)))

    def _with_in_channels(self, channels: int) -> str:
        """This layer as a user would write it, taking ``channels`` input channels."""
        groups = self.groups if channels % self.groups == 0 else None
        return call_text(type(self).__name__, (channels, self.out_channels, self.kernel_size),
                         **self._options(), groups=groups if groups != 1 else None)

    def _options(self) -> dict:
        options = {}
        for name, default in (("stride", 1), ("padding", 0), ("dilation", 1)):
            if getattr(self, name) != (default,) * self._spatial:
                options[name] = getattr(self, name)
        if self.bias is None:
            options["bias"] = False
        if self.padding_mode != "zeros":
            options["padding_mode"] = self.padding_mode
        return options

    def extra_repr(self) -> str:
        return conv_repr(self)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) with PyTorch's arguments and initialisation.

    weight: (out_channels, in_channels / groups, kh, kw);  bias: (out_channels,).
    ``padding_mode``: what the padding holds -- 'zeros', 'reflect', 'replicate', 'circular'.
    H_out = floor((H + 2*padding - dilation*(kh - 1) - 1) / stride) + 1, likewise W.
    """

    _function = staticmethod(F.conv2d)


class Conv3d(_ConvNd):
    """3-D convolution over volumes (N, C_in, D, H, W) -- video clips, scans -- with
    PyTorch's arguments and initialisation.

    weight: (out_channels, in_channels / groups, kd, kh, kw);  bias: (out_channels,).
    ``kernel_size``, ``stride``, ``padding`` and ``dilation`` take an int or a (d, h, w)
    triple; ``padding_mode`` as Conv2d's.
    D_out = floor((D + 2*padding - dilation*(kd - 1) - 1) / stride) + 1, likewise H and W.
    """

    _spatial = 3
    _function = staticmethod(F.conv3d)


class DepthwiseConv2d(Conv2d):
    """Each channel convolved with its own ``depth_multiplier`` filters (Lua's
    SpatialDepthWiseConvolution; Xception and MobileNet are built from it).

    It is ``Conv2d(channels, channels * depth_multiplier, kernel_size, groups=channels)``:
    weight (channels * depth_multiplier, 1, kh, kw) in PyTorch's grouped layout, so
    output channel ``c * depth_multiplier + m`` is filter m of input channel c.
    """

    def __init__(self, channels: int, kernel_size, depth_multiplier: int = 1, stride=1,
                 padding=0, dilation=1, bias: bool = True, padding_mode: str = "zeros",
                 device=None, dtype=None):
        channels = positive_int("DepthwiseConv2d", "channels", channels)
        multiplier = positive_int("DepthwiseConv2d", "depth_multiplier", depth_multiplier)
        super().__init__(channels, channels * multiplier, kernel_size, stride, padding,
                         dilation, groups=channels, bias=bias, padding_mode=padding_mode,
                         device=device, dtype=dtype)
        self.depth_multiplier = multiplier

    @property
    def channels(self) -> int:
        return self.in_channels

    def _with_in_channels(self, channels: int) -> str:
        return call_text("DepthwiseConv2d", (channels, self.kernel_size),
                         depth_multiplier=self.depth_multiplier
                         if self.depth_multiplier != 1 else None, **self._options())

    def extra_repr(self) -> str:
        text = f"{self.in_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.depth_multiplier != 1:
            text += f", depth_multiplier={self.depth_multiplier}"
        if self.padding != (0, 0):
            text += f", padding={self.padding}"
        if self.dilation != (1, 1):
            text += f", dilation={self.dilation}"
        if self.bias is None:
            text += ", bias=False"
        return text


def conv_repr(layer) -> str:
    """PyTorch's text for a convolution layer (any number of spatial dimensions): the
    sizes, then each argument that differs from its default."""
    n = len(layer.kernel_size)
    text = (f"{layer.in_channels}, {layer.out_channels}, kernel_size={layer.kernel_size}, "
            f"stride={layer.stride}")
    for name, default in (("padding", 0), ("dilation", 1), ("output_padding", 0)):
        value = getattr(layer, name, (default,) * n)
        if value != (default,) * n:
            text += f", {name}={value}"
    if layer.groups != 1:
        text += f", groups={layer.groups}"
    if layer.bias is None:
        text += ", bias=False"
    if getattr(layer, "padding_mode", "zeros") != "zeros":
        text += f", padding_mode={layer.padding_mode}"
    return text
