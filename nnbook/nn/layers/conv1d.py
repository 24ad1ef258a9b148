"""Conv1d (a 1-D convolution over signals (N, C_in, L)), ConvTranspose1d, ConvTranspose2d and
ConvTranspose3d (volumes (N, C_in, D, H, W)), with PyTorch's arguments."""
from __future__ import annotations

import numpy as np

from ...dtypes import default_float
from ...errors import InputError, message
from ...ops.base import per_axis
from ...ops.conv import conv_padding, conv_pads
from ...ops.onedim import single
from .. import functional as F
from .. import init
from ..module import Module
from ..parameter import Parameter
from ._args import check_device, positive_int
from .conv import _PADDING_MODES, conv_repr


class Conv1d(Module):
    """1-D convolution; weight (out_channels, in_channels / groups, k), bias (out_channels,).

    L_out = floor((L + 2*padding - dilation*(k - 1) - 1) / stride) + 1.
    ``padding_mode``: 'zeros', 'reflect', 'replicate' or 'circular', as Conv2d.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1,
                 padding=0, dilation=1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        cls = "Conv1d"
        check_device(cls, device)
        if padding_mode not in _PADDING_MODES:
            raise InputError(message(
                f"padding_mode must be one of {', '.join(map(repr, _PADDING_MODES))}, got "
                f"{padding_mode!r}.", where=cls,
                hint="'zeros' (the default) pads with zeros; 'reflect' mirrors the border."))
        self.in_channels = positive_int(cls, "in_channels", in_channels)
        self.out_channels = positive_int(cls, "out_channels", out_channels)
        self.kernel_size = (single(kernel_size, "kernel_size", cls, minimum=1),)
        self.stride = (single(stride, "stride", cls, minimum=1),)
        if padding == "same" and self.stride != (1,):
            raise InputError(message(
                "padding='same' needs stride 1: with a larger stride the output cannot be as "
                "large as the input.", where=cls, values=f"stride={self.stride[0]}",
                hint="give the padding as a number instead, e.g. padding=kernel_size // 2."))
        self.padding = (conv_padding(padding, (1, 1), cls) if isinstance(padding, str)
                        else (single(padding, "padding", cls, minimum=0),))
        self.dilation = (single(dilation, "dilation", cls, minimum=1),)
        self.groups = positive_int(cls, "groups", groups)
        self.padding_mode = padding_mode
        self._check_groups_and_mode(cls)
        self.weight = Parameter(np.empty(
            (self.out_channels, self.in_channels // self.groups, self.kernel_size[0]),
            np.dtype(dtype or default_float())))
        self.bias = (Parameter(np.empty((self.out_channels,), self.weight.dtype.name))
                     if bias else None)
        self.reset_parameters()

    def _check_groups_and_mode(self, cls: str) -> None:
        for name, size in (("in_channels", self.in_channels),
                           ("out_channels", self.out_channels)):
            if size % self.groups:
                raise InputError(message(
                    f"groups={self.groups} must divide {name} ({size}).", where=cls,
                    hint="each group convolves in_channels/groups inputs into "
                    "out_channels/groups outputs; pick groups dividing both."))

    def reset_parameters(self) -> None:
        init.default_weight_and_bias_(self.weight, self.bias)

    def forward(self, input):
        if self.padding_mode != "zeros":  # pad the ends first, then convolve without padding
            ((left, right),) = conv_pads(self.padding, self.kernel_size, self.dilation)
            input = F.pad(input, (left, right), mode=_PADDING_MODES[self.padding_mode])
            return F.conv1d(input, self.weight, self.bias, self.stride, 0, self.dilation,
                            self.groups)
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding,
                        self.dilation, self.groups)

    def extra_repr(self) -> str:
        return conv_repr(self)


class _ConvTransposeNd(Module):
    """What ConvTranspose2d and ConvTranspose3d share; ``_spatial`` says how many spatial
    axes they have, ``_function`` which function computes them."""

    _spatial = 2
    _function = None

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        cls, n = type(self).__name__, self._spatial
        check_device(cls, device)
        if padding_mode != "zeros":
            raise InputError(message(
                f"padding_mode must be 'zeros' for {cls}, got {padding_mode!r}.",
                where=cls, hint="PyTorch also supports only 'zeros' here."))
        self.padding_mode = padding_mode
        self.in_channels = positive_int(cls, "in_channels", in_channels)
        self.out_channels = positive_int(cls, "out_channels", out_channels)
        self.kernel_size = per_axis(kernel_size, n, "kernel_size", cls, minimum=1)
        self.stride = per_axis(stride, n, "stride", cls, minimum=1)
        self.padding = per_axis(padding, n, "padding", cls, minimum=0)
        self.output_padding = per_axis(output_padding, n, "output_padding", cls, minimum=0)
        self.dilation = per_axis(dilation, n, "dilation", cls, minimum=1)
        self.groups = positive_int(cls, "groups", groups)
        _check_groups(cls, self.groups, self.in_channels, self.out_channels)
        self.weight = Parameter(np.empty(
            (self.in_channels, self.out_channels // self.groups, *self.kernel_size),
            np.dtype(dtype or default_float())))
        self.bias = (Parameter(np.empty((self.out_channels,), self.weight.dtype.name))
                     if bias else None)
        self.reset_parameters()

    def reset_parameters(self) -> None:  # fan_in from weight.shape[1:], as PyTorch
        init.default_weight_and_bias_(self.weight, self.bias)

    def forward(self, input, output_size=None):
        _refuse_output_size(type(self).__name__, output_size)
        return type(self)._function(input, self.weight, self.bias, self.stride, self.padding,
                                    self.output_padding, self.groups, self.dilation)

    def extra_repr(self) -> str:
        return conv_repr(self)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution; weight (in_channels, out_channels / groups, kh, kw).

    H_out = (H - 1)*stride - 2*padding + dilation*(kh - 1) + output_padding + 1, likewise W.
    """

    _function = staticmethod(F.conv_transpose2d)


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution over volumes; weight (in_channels, out_channels / groups,
    kd, kh, kw); its sizes take an int or a (d, h, w) triple.

    D_out = (D - 1)*stride - 2*padding + dilation*(kd - 1) + output_padding + 1, likewise
    H and W.
    """

    _spatial = 3
    _function = staticmethod(F.conv_transpose3d)


class ConvTranspose1d(Module):
    """Transposed 1-D convolution; weight (in_channels, out_channels / groups, k).

    L_out = (L - 1)*stride - 2*padding + dilation*(k - 1) + output_padding + 1.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0,
                 output_padding=0, groups: int = 1, bias: bool = True, dilation=1,
                 padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        cls = "ConvTranspose1d"
        check_device(cls, device)
        if padding_mode != "zeros":
            raise InputError(message(
                f"padding_mode must be 'zeros' for ConvTranspose1d, got {padding_mode!r}.",
                where=cls, hint="PyTorch also supports only 'zeros' here."))
        self.padding_mode = padding_mode
        self.in_channels = positive_int(cls, "in_channels", in_channels)
        self.out_channels = positive_int(cls, "out_channels", out_channels)
        self.kernel_size = (single(kernel_size, "kernel_size", cls, minimum=1),)
        self.stride = (single(stride, "stride", cls, minimum=1),)
        self.padding = (single(padding, "padding", cls, minimum=0),)
        self.output_padding = (single(output_padding, "output_padding", cls, minimum=0),)
        self.dilation = (single(dilation, "dilation", cls, minimum=1),)
        self.groups = positive_int(cls, "groups", groups)
        _check_groups(cls, self.groups, self.in_channels, self.out_channels)
        self.weight = Parameter(np.empty(
            (self.in_channels, self.out_channels // self.groups, self.kernel_size[0]),
            np.dtype(dtype or default_float())))
        self.bias = (Parameter(np.empty((self.out_channels,), self.weight.dtype.name))
                     if bias else None)
        self.reset_parameters()

    def reset_parameters(self) -> None:  # fan_in from weight.shape[1:], as PyTorch
        init.default_weight_and_bias_(self.weight, self.bias)

    def forward(self, input, output_size=None):
        _refuse_output_size("ConvTranspose1d", output_size)
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self.output_padding, self.groups, self.dilation)

    def extra_repr(self) -> str:
        return conv_repr(self)


def _refuse_output_size(cls: str, output_size) -> None:
    if output_size is not None:
        raise InputError(message(
            f"output_size is not supported by nnbook's {cls}.", where=cls,
            values=f"output_size={output_size!r}",
            hint="give the layer output_padding instead (0 <= output_padding < stride)."))


def _check_groups(cls: str, groups: int, in_channels: int, out_channels: int) -> None:
    for name, size in (("in_channels", in_channels), ("out_channels", out_channels)):
        if size % groups:
            raise InputError(message(
                f"groups={groups} must divide {name} ({size}).", where=cls,
                hint="each group connects in_channels/groups inputs to "
                "out_channels/groups outputs; pick groups dividing both."))
