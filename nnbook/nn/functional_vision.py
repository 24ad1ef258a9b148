"""Functions that rearrange an image's pixels: unfold and fold (im2col and col2im,
``ops/unfold.py``), pixel_shuffle and pixel_unshuffle (a reshape and a permute: the
gradient is the same rearrangement backwards)."""
from __future__ import annotations

import numbers

from ..errors import ShapeError, fmt_shape
from ..ops.unfold import Fold, Unfold
from ..tensor import apply
from .arguments import _fail, _tensor

__all__ = ["unfold", "fold", "pixel_shuffle", "pixel_unshuffle"]


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Every kernel_size window of the image (N, C, H, W) as a column: (N, C·kh·kw, L)."""
    return apply(Unfold(kernel_size, dilation, padding, stride),
                 _tensor("unfold", "input", input))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The columns (N, C·kh·kw, L) added back onto an image (N, C, *output_size)."""
    return apply(Fold(output_size, kernel_size, dilation, padding, stride),
                 _tensor("fold", "input", input))


def _factor(fn: str, name: str, value) -> int:
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 1:
        _fail(fn, f"{name} must be an int >= 1, got {value!r}.",
              hint=f"e.g. {name}=2 doubles (or halves) the height and width.")
    return int(value)


def _check_image(fn: str, input, layout: str):
    if input.ndim < 3:
        _fail(fn, f"expects an input {layout} (with any batch dimensions before), got "
              f"{input.ndim}-D with shape {fmt_shape(input.shape)}.", cls=ShapeError,
              hint="a single image needs its channel dimension: x.unsqueeze(0).")


def pixel_shuffle(input, upscale_factor):
    """(*, C·r², H, W) -> (*, C, H·r, W·r): each group of r² channels becomes an r×r
    block of pixels (sub-pixel convolution's upsampling)."""
    fn = "pixel_shuffle"
    x, r = _tensor(fn, "input", input), _factor(fn, "upscale_factor", upscale_factor)
    _check_image(fn, x, "(*, C·r², H, W)")
    *batch, c, h, w = x.shape
    if c % (r * r):
        _fail(fn, f"expects the {c} channels in dimension {x.ndim - 3} to be divisible by "
              f"upscale_factor² = {r * r}.", values=f"input {fmt_shape(x.shape)}   "
              f"upscale_factor={r}", cls=ShapeError,
              hint=f"the layer before must output C·{r * r} channels for C output channels.")
    k = len(batch)
    # (*, C, r, r, H, W) -> (*, C, H, r, W, r): row i, column j of each block from channel (i, j)
    blocks = x.reshape(*batch, c // (r * r), r, r, h, w)
    blocks = blocks.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return blocks.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H·r, W·r) -> (*, C·r², H, W): the inverse of pixel_shuffle."""
    fn = "pixel_unshuffle"
    x, r = _tensor(fn, "input", input), _factor(fn, "downscale_factor", downscale_factor)
    _check_image(fn, x, "(*, C, H·r, W·r)")
    *batch, c, h, w = x.shape
    if h % r or w % r:
        _fail(fn, f"expects the height {h} and width {w} to be divisible by "
              f"downscale_factor={r}.", values=f"input {fmt_shape(x.shape)}", cls=ShapeError,
              hint="crop or pad the image to a multiple of downscale_factor first.")
    k = len(batch)
    # (*, C, H, r, W, r) -> (*, C, r, r, H, W)
    blocks = x.reshape(*batch, c, h // r, r, w // r, r)
    blocks = blocks.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return blocks.reshape(*batch, c * r * r, h // r, w // r)
