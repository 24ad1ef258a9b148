"""Layers that rearrange pixels: Unfold and Fold (im2col and col2im), PixelShuffle,
PixelUnshuffle and ChannelShuffle.  None has parameters."""
from __future__ import annotations

from ...errors import fmt_shape
from ...ops.base import pair
from .. import functional as F
from ..module import Module
from ._args import positive_int


class Unfold(Module):
    """Every window of an image as a column: (N, C, H, W) -> (N, C·kh·kw, L), as a
    convolution sees it (``conv2d(x, W)`` is ``W.view(C_out, -1) @ unfold(x)``, reshaped)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        for name, value, least in (("kernel_size", kernel_size, 1), ("dilation", dilation, 1),
                                   ("padding", padding, 0), ("stride", stride, 1)):
            pair(value, name, "Unfold", minimum=least)  # refused here, kept as given
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input):
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """Columns back onto an image: (N, C·kh·kw, L) -> (N, C, *output_size), the values of
    overlapping windows added (the adjoint of Unfold)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        for name, value, least in (("output_size", output_size, 1),
                                   ("kernel_size", kernel_size, 1), ("dilation", dilation, 1),
                                   ("padding", padding, 0), ("stride", stride, 1)):
            pair(value, name, "Fold", minimum=least)
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class PixelShuffle(Module):
    """(*, C·r², H, W) -> (*, C, H·r, W·r), r = upscale_factor."""

    def __init__(self, upscale_factor: int):
        super().__init__()
        self.upscale_factor = positive_int("PixelShuffle", "upscale_factor", upscale_factor)

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def shape_formula(self, input_shapes) -> list:
        """For nb.infer_shapes: the channels and the sizes, with r filled in."""
        if not input_shapes or len(input_shapes[0]) < 3:
            return []
        (c, h, w), r = input_shapes[0][-3:], self.upscale_factor
        return [f"C_out = C / r\u00b2 = {c} / {r * r} = {c // (r * r)}",
                f"(H_out, W_out) = (H\u00b7r, W\u00b7r) = {fmt_shape((h * r, w * r))}"]

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H·r, W·r) -> (*, C·r², H, W), r = downscale_factor: PixelShuffle undone."""

    def __init__(self, downscale_factor: int):
        super().__init__()
        self.downscale_factor = positive_int("PixelUnshuffle", "downscale_factor",
                                             downscale_factor)

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def shape_formula(self, input_shapes) -> list:
        """For nb.infer_shapes: the channels and the sizes, with r filled in."""
        if not input_shapes or len(input_shapes[0]) < 3:
            return []
        (c, h, w), r = input_shapes[0][-3:], self.downscale_factor
        return [f"C_out = C\u00b7r\u00b2 = {c}\u00b7{r * r} = {c * r * r}",
                f"(H_out, W_out) = (H / r, W / r) = {fmt_shape((h // r, w // r))}"]

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """(N, C, *) -> (N, C, *) with the C channels read as ``groups`` groups, interleaved:
    after a grouped convolution, each group of the next one sees channels of every group."""

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, groups: int):
        super().__init__()
        self.groups = positive_int("ChannelShuffle", "groups", groups)

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"
