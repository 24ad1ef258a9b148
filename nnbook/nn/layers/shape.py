"""Layers that only change the shape: Flatten and Reshape (per sample, batch kept), and
Upsample, which resizes images."""
from __future__ import annotations

import math
import numbers

from ...errors import InputError, ShapeError, fmt_shape, message
from .. import functional as F
from ..module import Module


class Flatten(Module):
    """Merge dimensions start_dim..end_dim into one: (N, C, H, W) -> (N, C*H*W) by default."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Reshape(Module):
    """Reshape each sample to ``shape``; the batch dimension is kept.

    ``Reshape(512)`` maps (10, 512, 1, 1) to (10, 512), as Lua's ``nn.Reshape(512)``
    did.  One size may be -1, to be worked out from the others.
    """

    def __init__(self, *shape):
        super().__init__()
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = tuple(shape[0])
        bad = [s for s in shape if not isinstance(s, numbers.Integral) or isinstance(s, bool)
               or s < -1 or s == 0]
        if not shape or bad or sum(s == -1 for s in shape) > 1:
            raise InputError(message(
                f"Reshape needs the per-sample shape as positive ints (at most one -1), "
                f"got {shape!r}.", where="Reshape",
                hint="Reshape(512) turns (N, 512, 1, 1) into (N, 512); Reshape(3, 4) turns "
                "(N, 12) into (N, 3, 4)."))
        self.shape = tuple(int(s) for s in shape)

    def forward(self, input):
        if input.ndim == 0:
            raise ShapeError(message(
                "expects an input with a batch dimension, got a 0-d tensor.",
                hint="Reshape keeps dimension 0 (the batch) and reshapes each sample."))
        sample = input.shape[1:]
        size = math.prod(sample)
        known = math.prod(s for s in self.shape if s != -1)
        target = self.shape
        if -1 in target and known and size % known == 0:
            target = tuple(size // known if s == -1 else s for s in target)
        if math.prod(target) != size or -1 in target:
            wanted = fmt_shape(self.shape)
            raise ShapeError(message(
                f"cannot reshape each sample of {fmt_shape(sample)} ({size} values) into "
                f"{wanted} ({known} values{' times the -1' if -1 in self.shape else ''}).",
                values=f"input {fmt_shape(input.shape)}: batch {input.shape[0]} kept, "
                f"each sample {fmt_shape(sample)}",
                hint=f"the layer before gives {size} values per sample; use "
                f"Reshape({size}) or Flatten(), or pool the input down first (e.g. "
                "GlobalAvgPool2d() before Reshape(C))."))
        return input.reshape((input.shape[0],) + target)

    def extra_repr(self) -> str:
        return ", ".join(str(s) for s in self.shape)


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size``: Unflatten(1, (16, 5, 5)) turns
    (N, 400) into (N, 16, 5, 5).  The inverse of Flatten."""

    def __init__(self, dim: int, unflattened_size):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)) or not all(
                isinstance(s, numbers.Integral) and not isinstance(s, bool) and (s > 0 or s == -1)
                for s in unflattened_size):
            raise InputError(message(
                f"unflattened_size must be a tuple of positive ints (one may be -1), got "
                f"{unflattened_size!r}.", where="Unflatten",
                hint="Unflatten(1, (16, 5, 5)) turns (N, 400) into (N, 16, 5, 5)."))
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        return input.unflatten(self.dim, tuple(self.unflattened_size))

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Upsample(Module):
    """Resize the image (or signal) it is given: F.interpolate with fixed arguments."""

    preserves_channels = True  # for hints: the channel count passes through

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest",
                 align_corners=None, recompute_scale_factor=None):
        super().__init__()
        self.size, self.mode, self.align_corners = size, mode, align_corners
        if isinstance(scale_factor, (tuple, list)):
            self.scale_factor = tuple(float(s) for s in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = (f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None
                else f"size={self.size!r}")
        return f"{info}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
