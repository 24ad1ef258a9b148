"""Functions that rearrange an image's pixels: unfold and fold (im2col and col2im,
``ops/unfold.py``); pixel_shuffle, pixel_unshuffle and channel_shuffle (a reshape and a
permute: the gradient is the same rearrangement backwards); and the spatial transformer's
affine_grid and grid_sample, which read an image at any points (``ops/sampling.py``)."""
from __future__ import annotations

import numbers

from ..errors import ArgumentError, ShapeError, fmt_shape, message, warn_from_user_code
from ..ops.sampling import AffineGrid, GridSample
from ..ops.unfold import Fold, Unfold
from ..tensor import apply
from .arguments import _fail, _tensor, _where

__all__ = ["unfold", "fold", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
           "affine_grid", "grid_sample"]


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


def channel_shuffle(input, groups):
    """(N, C, *) with the C channels read as ``groups`` groups of C / groups, interleaved:
    output channel i·groups + g is channel i of group g (ShuffleNet's mixing between
    grouped convolutions)."""
    fn = "channel_shuffle"
    x = _tensor(fn, "input", input)
    if not isinstance(groups, numbers.Integral) or isinstance(groups, bool):
        _fail(fn, f"groups must be an int, got {groups!r}.", cls=ArgumentError,
              hint="groups is how many groups the channels form, e.g. groups=3.")
    if groups < 1:
        _fail(fn, f"groups must be at least 1, got {groups}.",
              hint="groups is how many groups the channels form, e.g. groups=3.")
    if x.ndim < 3:
        _fail(fn, f"expects an input (N, C, *) with at least 3 dimensions, got "
              f"{x.ndim}-D with shape {fmt_shape(x.shape)}.", cls=ShapeError,
              hint="channels are dimension 1 of a batch of signals (N, C, L) or images "
              "(N, C, H, W).")
    n, c, *rest = x.shape
    if c % groups:
        _fail(fn, f"expects the {c} channels in dimension 1 to be divisible by groups="
              f"{groups}.", values=f"input {fmt_shape(x.shape)}", cls=ShapeError,
              hint=f"the grouped convolution before must output a multiple of {groups} "
              "channels, with the same groups.")
    # (N, groups, C / groups, *) -> (N, C / groups, groups, *)
    return x.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(x.shape)


def _warn_align_corners(fn: str) -> None:
    """PyTorch's note when align_corners is left out (its default changed in version 1.3)."""
    warn_from_user_code(UserWarning(message(
        "align_corners was not given, so it is False: -1 and 1 are the outer edges of the "
        "corner pixels (PyTorch's default since its version 1.3, which warns the same).",
        where=_where(fn), line=False, hint="pass align_corners=False to keep this, or "
        "align_corners=True to put -1 and 1 on the corner pixels' centres.")))


def affine_grid(theta, size, align_corners=None):
    """The points (N, H, W, 2) that F.grid_sample reads an (N, C, H, W) image at: each
    output pixel's coordinates in [-1, 1] moved by its sample's 2×3 matrix theta (N, 2, 3).
    A volume's size (N, C, D, H, W) takes theta (N, 3, 4) and gives (N, D, H, W, 3)."""
    fn = "affine_grid"
    theta = _tensor(fn, "theta", theta)
    op = AffineGrid(size, align_corners)
    if align_corners is None:
        _warn_align_corners(fn)
    if op.align_corners and min(op.size[2:]) == 1:
        warn_from_user_code(UserWarning(message(
            f"a size of 1 along an axis of {op.size} with align_corners=True: that axis' "
            "only point is 0, the middle, not -1 (PyTorch warns the same).",
            where=_where(fn), line=False,
            hint="with align_corners=False a single pixel is in the middle too, silently.")))
    return apply(op, theta)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """The image (N, C, H, W) read at the grid's points (N, H_out, W_out, 2), (x, y) in
    [-1, 1]: (N, C, H_out, W_out).  ``mode`` 'bilinear', 'nearest' or 'bicubic';
    ``padding_mode`` what points outside read: 'zeros', 'border' or 'reflection'."""
    fn = "grid_sample"
    x, grid = _tensor(fn, "input", input), _tensor(fn, "grid", grid)
    op = GridSample(mode, padding_mode, align_corners)
    if align_corners is None:
        _warn_align_corners(fn)
    return apply(op, x, grid)
