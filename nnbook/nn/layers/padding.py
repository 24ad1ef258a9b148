"""Padding layers: F.pad with a fixed padding and mode.

``padding`` is an int (the same on every side) or a tuple (left, right) for the 1-D
layers, (left, right, top, bottom) for the 2-D ones, (left, right, top, bottom, front,
back) for the 3-D ones (volumes: front and back pad the depth).  A negative padding crops, as in
PyTorch.  The modes (``F.pad``): zeros or a constant value, reflection (the border
mirrored, without repeating the edge), replication (the edge repeated) and circular
(the other side wrapped round).
"""
from __future__ import annotations

import numbers

from ...errors import InputError, message
from .. import functional as F
from ..module import Module

_SIDES = ("left", "right", "top", "bottom", "front", "back")  # F.pad's order


class _PadNd(Module):
    preserves_channels = True  # for hints: the channel count passes through
    dims = 1          # how many trailing dimensions are padded
    mode = "constant"

    def __init__(self, padding):
        super().__init__()
        self.padding = self._padding_of(padding)

    def _padding_of(self, padding) -> tuple:
        count = 2 * self.dims
        if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
            return (int(padding),) * count
        if isinstance(padding, (tuple, list)) and len(padding) == count and all(
                isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in padding):
            return tuple(int(p) for p in padding)
        sides = "(" + ", ".join(_SIDES[:count]) + ")"
        cls = type(self).__name__
        raise InputError(message(
            f"padding must be an int or a tuple of {count} ints {sides}, got {padding!r}.",
            where=cls, hint=f"e.g. {cls}(1) or {cls}({(1, 2) * self.dims})."))

    def forward(self, input):
        if self.mode == "constant":
            return F.pad(input, self.padding, "constant", self.value)
        return F.pad(input, self.padding, self.mode)

    def shape_formula(self, input_shapes) -> list:
        """For nb.infer_shapes: each padded size, its padding added."""
        if not input_shapes or len(input_shapes[0]) < self.dims:
            return []
        shape, lines = input_shapes[0], []
        sides = (("W", "left", "right"), ("H", "top", "bottom"), ("D", "front", "back"))
        for i, (name, first, last) in enumerate(sides[:self.dims]):
            before, after = self.padding[2 * i], self.padding[2 * i + 1]
            size = shape[-1 - i]
            numbers = f"{size} + {before} + {after}".replace("+ -", "\u2212 ")
            lines.append(f"{name}_out = {name} + {first} + {last} = {numbers} = "
                         f"{size + before + after}")
        return lines[::-1]

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float):
        super().__init__(padding)
        self.value = value

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dimension with ``value``."""


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dimensions with ``value``."""

    dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dimensions with ``value``."""

    dims = 3


class ZeroPad1d(_ConstantPadNd):
    """Pad the last dimension with zeros."""

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ZeroPad1d):
    """Pad the last two dimensions with zeros."""

    dims = 2


class ZeroPad3d(ZeroPad1d):
    """Pad the last three dimensions with zeros."""

    dims = 3


class ReflectionPad1d(_PadNd):
    """Pad (C, L) or (N, C, L) with the signal mirrored at each end (the end not repeated)."""

    mode = "reflect"


class ReflectionPad2d(_PadNd):
    """Pad (C, H, W) or (N, C, H, W) with the image mirrored at each border."""

    dims, mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Pad (C, D, H, W) or (N, C, D, H, W) with the volume mirrored at each face."""

    dims, mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pad (C, L) or (N, C, L) with copies of the end values."""

    mode = "replicate"


class ReplicationPad2d(_PadNd):
    """Pad (C, H, W) or (N, C, H, W) with copies of the border pixels."""

    dims, mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Pad (C, D, H, W) or (N, C, D, H, W) with copies of the voxels on each face."""

    dims, mode = 3, "replicate"


class CircularPad1d(_PadNd):
    """Pad (C, L) or (N, C, L) with the other end of the signal, wrapped round."""

    mode = "circular"


class CircularPad2d(_PadNd):
    """Pad (C, H, W) or (N, C, H, W) with the opposite border, wrapped round (a torus)."""

    dims, mode = 2, "circular"


class CircularPad3d(_PadNd):
    """Pad (C, D, H, W) or (N, C, D, H, W) with the opposite face, wrapped round."""

    dims, mode = 3, "circular"
