"""Pooling: max and average over windows, adaptive average and max, global average, and
the p-norm of windows (LPPool); of signals (1d), images (2d) and volumes (3d)."""
from __future__ import annotations

from ...errors import ArgumentError, InputError, message
from ...ops.base import is_int, is_real, pair, per_axis
from ...ops.onedim import single
from .. import functional as F
from ..module import Module


def _check_windows(cls: str, kernel_size, stride, padding, dilation=1, count=2) -> None:
    """Refuse a bad window argument when the layer is built (the op checks the sizes
    against the input when it runs); ``count``: the spatial axes, 2 or 3."""
    per_axis(kernel_size, count, "kernel_size", cls, minimum=1)
    if stride is not None:
        per_axis(stride, count, "stride", cls, minimum=1)
    per_axis(padding, count, "padding", cls, minimum=0)
    per_axis(dilation, count, "dilation", cls, minimum=1)


class _MaxPoolNd(Module):
    """What MaxPool2d and MaxPool3d share; ``_function`` pools, over ``_spatial`` axes."""

    preserves_channels = True  # for hints: the channel count passes through
    _spatial, _function = 2, None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False):
        super().__init__()
        _check_windows(type(self).__name__, kernel_size, stride, padding, dilation,
                       self._spatial)
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return type(self)._function(input, self.kernel_size, self.stride, self.padding,
                                    self.dilation, ceil_mode=self.ceil_mode,
                                    return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool2d(_MaxPoolNd):
    """The maximum of each kernel_size window; ``stride`` defaults to ``kernel_size``.

    H_out = floor((H + 2*padding - dilation*(k - 1) - 1) / stride) + 1 (ceil with ceil_mode).
    """

    _function = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """The maximum of each kd×kh×kw window of a volume (N, C, D, H, W); ``stride``
    defaults to ``kernel_size``.  D_out, H_out and W_out as MaxPool2d's H_out."""

    _spatial, _function = 3, staticmethod(F.max_pool3d)


class _AvgPoolNd(Module):
    """What AvgPool2d and AvgPool3d share; ``_function`` pools, over ``_spatial`` axes."""

    preserves_channels = True  # for hints: the channel count passes through
    _spatial, _function = 2, None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override=None):
        super().__init__()
        _check_windows(type(self).__name__, kernel_size, stride, padding, count=self._spatial)
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return type(self)._function(input, self.kernel_size, self.stride, self.padding,
                                    self.ceil_mode, self.count_include_pad,
                                    self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """The mean of each kernel_size window; ``stride`` defaults to ``kernel_size``."""

    _function = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """The mean of each kd×kh×kw window of a volume; ``stride`` defaults to ``kernel_size``."""

    _spatial, _function = 3, staticmethod(F.avg_pool3d)


class MaxPool1d(Module):
    """The maximum of each window of kernel_size values along L; ``stride`` defaults to
    ``kernel_size``.  L_out as MaxPool2d's W_out."""

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1,
                 return_indices: bool = False, ceil_mode: bool = False):
        super().__init__()
        _check_signal_windows("MaxPool1d", kernel_size, stride, padding, dilation)
        self.kernel_size = kernel_size
        self.stride = kernel_size if stride is None else stride
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"padding={self.padding}, dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool1d(Module):
    """The mean of each window of kernel_size values along L (as PyTorch, its sizes are
    kept as tuples of one)."""

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True):
        super().__init__()
        _check_signal_windows("AvgPool1d", kernel_size, stride, padding)
        self.kernel_size = (single(kernel_size, "kernel_size", "AvgPool1d"),)
        self.stride = (self.kernel_size if stride is None
                       else (single(stride, "stride", "AvgPool1d"),))
        self.padding = (single(padding, "padding", "AvgPool1d"),)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _check_signal_windows(cls: str, kernel_size, stride, padding, dilation=1) -> None:
    single(kernel_size, "kernel_size", cls, minimum=1)
    if stride is not None:
        single(stride, "stride", cls, minimum=1)
    single(padding, "padding", cls, minimum=0)
    single(dilation, "dilation", cls, minimum=1)


class _AdaptiveAvgPoolNd(Module):
    preserves_channels = True  # for hints: the channel count passes through
    _function = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return type(self)._function(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Average pooling to a fixed output size (H_out, W_out), whatever the input's size."""

    _function = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Average pooling of volumes to a fixed output size (D_out, H_out, W_out)."""

    _function = staticmethod(F.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    preserves_channels = True  # for hints: the channel count passes through
    _function = None

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return type(self)._function(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Max pooling to a fixed output size (H_out, W_out), whatever the input's size."""

    _function = staticmethod(F.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Max pooling of volumes to a fixed output size (D_out, H_out, W_out); with
    ``return_indices=True`` it returns (output, places of the maxima in their volume)."""

    _function = staticmethod(F.adaptive_max_pool3d)


class AdaptiveAvgPool1d(Module):
    """Average pooling of signals (N, C, L) to a fixed length L_out, whatever L is."""

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, output_size):
        super().__init__()
        single(output_size, "output_size", "AdaptiveAvgPool1d", minimum=1)
        self.output_size = output_size

    def forward(self, input):
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(Module):
    """Max pooling of signals (N, C, L) to a fixed length L_out; with
    ``return_indices=True`` it returns (output, positions of the maxima)."""

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, output_size, return_indices: bool = False):
        super().__init__()
        single(output_size, "output_size", "AdaptiveMaxPool1d", minimum=1)
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class GlobalAvgPool2d(Module):
    """The mean of each channel over the whole image: (N, C, H, W) -> (N, C, 1, 1).

    The two trailing 1s are kept, like Lua's GlobalAveragePooling and
    ``AdaptiveAvgPool2d(1)``; follow it with ``Reshape(C)`` or ``Flatten()`` to get
    (N, C) for a Linear layer.
    """

    preserves_channels = True  # for hints: the channel count passes through

    def forward(self, input):
        return F.adaptive_avg_pool2d(input, 1)


class MaxUnpool2d(Module):
    """Max pooling undone: each value back at the place ``MaxPool2d(..., return_indices=True)``
    found it, zeros elsewhere.  H_out = (H - 1)*stride - 2*padding + kernel_size, unless
    ``output_size`` is given to forward (the pooled input's size)."""

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        _check_windows("MaxUnpool2d", kernel_size, stride, padding)
        self.kernel_size = pair(kernel_size, "kernel_size", "MaxUnpool2d")
        self.stride = self.kernel_size if stride is None else pair(stride, "stride",
                                                                   "MaxUnpool2d")
        self.padding = pair(padding, "padding", "MaxUnpool2d")

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(Module):
    """Max pooling of signals undone: each value back at its place along L, zeros elsewhere.
    L_out = (L - 1)*stride - 2*padding + kernel_size, unless ``output_size`` is given."""

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        _check_signal_windows("MaxUnpool1d", kernel_size, stride, padding)
        self.kernel_size = (single(kernel_size, "kernel_size", "MaxUnpool1d"),)
        self.stride = (self.kernel_size if stride is None
                       else (single(stride, "stride", "MaxUnpool1d"),))
        self.padding = (single(padding, "padding", "MaxUnpool1d"),)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _LPPool(Module):
    """What LPPool1d, LPPool2d and LPPool3d share: PyTorch's arguments, kept as given."""

    preserves_channels = True  # for hints: the channel count passes through
    _function = None

    def __init__(self, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False):
        super().__init__()
        layer = type(self).__name__
        if not is_real(norm_type):
            raise ArgumentError(message(
                f"norm_type must be a number, got {norm_type!r}.", where=layer,
                hint="norm_type=2 pools each window to its Euclidean norm, 1 to its sum."))
        if norm_type == 0:
            raise InputError(message(
                "norm_type=0 has no norm: the result is the 1 / norm_type power.", where=layer,
                hint="norm_type=2 pools each window to its Euclidean norm, 1 to its sum."))
        self._check(layer, kernel_size, stride)
        self.norm_type, self.kernel_size, self.stride = norm_type, kernel_size, stride
        self.ceil_mode = ceil_mode

    def forward(self, input):
        return type(self)._function(input, self.norm_type, self.kernel_size, self.stride,
                                    self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool2d(_LPPool):
    """The p-norm (Σ x^p)^(1/p) of each kernel_size window, p = norm_type: sum pooling for
    p = 1, max pooling (of |x|) as p grows to inf.  No padding."""

    _function = staticmethod(F.lp_pool2d)

    @staticmethod
    def _check(layer, kernel_size, stride):
        _check_windows(layer, kernel_size, stride, 0)


class LPPool3d(_LPPool):
    """The p-norm of each kernel_size window of a volume (an int or a (d, h, w) triple).
    No padding."""

    _function = staticmethod(F.lp_pool3d)

    @staticmethod
    def _check(layer, kernel_size, stride):
        _check_windows(layer, kernel_size, stride, 0, count=3)


class LPPool1d(_LPPool):
    """The p-norm of each window of kernel_size values along L (an int, as in PyTorch)."""

    _function = staticmethod(F.lp_pool1d)

    @staticmethod
    def _check(layer, kernel_size, stride):
        if not is_int(kernel_size):
            raise ArgumentError(message(f"kernel_size must be an int, got {kernel_size!r}.",
                                        where=layer, hint="e.g. LPPool1d(2, 3)."))
        _check_signal_windows(layer, kernel_size, stride, 0)
