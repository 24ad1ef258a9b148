"""Which input pixels one output pixel of a convolution reads, as plain data.

For output pixel (h, w), kernel tap (i, j) reads the zero-padded input at::

    row = s_h·h + d_h·i − p_top        col = s_w·w + d_w·j − p_left

in the coordinates of the unpadded input, so a row < 0 or ≥ H (a column < 0 or
≥ W) is one of the padding zeros.  With groups, output channel o reads only the
input channels of its group: g = o // (C_out/G) reads g·C_in/G … (g+1)·C_in/G − 1.

Every function checks its arguments with the Conv2d op's own shape rule on
:class:`~nnbook.ops.base.Spec` objects, so an impossible setting gives exactly
the ShapeError a real ``conv2d`` would::

    >>> [(t.row, t.col) for t in receptive_field((7, 5), (3, 2), 2, (1, 0), (1, 2), (0, 0))]
    [(-1, 0), (-1, 2), (0, 0), (0, 2), (1, 0), (1, 2)]
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..errors import InputError, NnbookError, message
from ..ops.base import Spec, pair
from ..ops.conv import DOT, MINUS, Conv2d


@dataclass(frozen=True)
class Tap:
    """One kernel tap (kernel_row, kernel_col) and the input pixel (row, col) it reads."""

    kernel_row: int
    kernel_col: int
    row: int
    col: int
    padding: bool  # True: (row, col) lies in the zero padding, outside the input


@dataclass(frozen=True)
class ConvGeometry:
    """A convolution's sizes without data: what ConvArithmetic draws.

    ``error`` holds the op's ShapeError (or InputError) for an impossible
    setting; then ``out_hw``, ``pads`` and ``formula`` are empty.
    """

    in_channels: int
    in_hw: tuple
    out_channels: int
    kernel_hw: tuple
    stride: tuple
    padding: object           # as given: an (h, w) pair, or 'same' / 'valid'
    dilation: tuple
    groups: int
    pads: tuple = ()          # ((top, bottom), (left, right)) zeros around the input
    out_hw: tuple = ()
    formula: tuple = ()       # the op's lines: 'H_out = floor((7 + 2·1 − …) / 2) + 1 = 4'
    error: NnbookError | None = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def padded_hw(self) -> tuple:
        (top, bottom), (left, right) = self.pads
        return (self.in_hw[0] + top + bottom, self.in_hw[1] + left + right)

    @property
    def weight_shape(self) -> tuple:
        """(C_out, C_in/groups, kh, kw), PyTorch's layout."""
        return (self.out_channels, self.in_channels // self.groups) + tuple(self.kernel_hw)

    @property
    def params(self) -> int:
        """Weights plus one bias per output channel."""
        c_out, per_group, kh, kw = self.weight_shape
        return c_out * per_group * kh * kw + c_out


def _as_given(value, name: str):
    """A pair when ``value`` makes one, else the value itself (for a record of an error)."""
    try:
        return pair(value, name, "conv_geometry")
    except InputError:
        return value


def _checked_op(in_hw, kernel_hw, stride, padding, dilation, in_channels=1, out_channels=1,
                groups=1):
    """A Conv2d op whose shape rule has accepted these sizes (else its ShapeError)."""
    op = Conv2d(stride=stride, padding=padding, dilation=dilation, groups=groups)
    kh, kw = pair(kernel_hw, "kernel_hw", "conv_geometry")
    h, w = pair(in_hw, "in_hw", "conv_geometry")
    # The op checks that groups divides the channels before it looks at the weight's
    # per-group size, so any size ≥ 1 gives the right message when it does not.
    per_group = max(in_channels // op.groups, 1) if op.groups >= 1 else 1
    x = Spec((in_channels, h, w))                  # one sample, (C_in, H, W)
    weight = Spec((out_channels, per_group, kh, kw))
    op.infer(x, weight, Spec((out_channels,)))
    return op, x, weight


def conv_geometry(in_hw, kernel_hw, stride=1, padding=0, dilation=1, in_channels=1,
                  out_channels=1, groups=1) -> ConvGeometry:
    """Sizes, padding and formulas of a convolution; never raises for a bad setting.

    An impossible setting (a kernel larger than the padded input, groups that do not
    divide the channels, …) is kept in ``.error`` with the op's own explanation.
    """
    try:
        op, x, weight = _checked_op(in_hw, kernel_hw, stride, padding, dilation,
                                    in_channels, out_channels, groups)
    except NnbookError as err:
        return ConvGeometry(in_channels, _as_given(in_hw, "in_hw"), out_channels,
                            _as_given(kernel_hw, "kernel_hw"), _as_given(stride, "stride"),
                            padding, _as_given(dilation, "dilation"), groups, error=err)
    return ConvGeometry(in_channels, x.shape[1:], out_channels, weight.shape[2:], op.stride,
                        op.padding, op.dilation, op.groups, pads=op.pads(weight.shape[2:]),
                        out_hw=op.infer(x, weight)[1:], formula=tuple(op.formula(x, weight)))


def receptive_field(in_hw, kernel_hw, stride, padding, dilation, out_pos) -> list:
    """The :class:`Tap` of every kernel offset for output pixel ``out_pos = (h, w)``.

    Taps come in kernel order (row by row); ``row``/``col`` are input coordinates,
    negative or past the edge for the padding.  Raises the op's ShapeError for an
    impossible setting and InputError for an output pixel that does not exist.
    """
    op, x, weight = _checked_op(in_hw, kernel_hw, stride, padding, dilation)
    (h, w), (kh, kw) = out_pos, weight.shape[2:]
    (s_h, s_w), (d_h, d_w) = op.stride, op.dilation
    ((top, _), (left, _)) = op.pads(weight.shape[2:])
    (height, width), (h_out, w_out) = x.shape[1:], op.infer(x, weight)[1:]
    if not (0 <= h < h_out and 0 <= w < w_out):
        raise InputError(message(
            f"output pixel {tuple(out_pos)} does not exist: the output is {h_out}×{w_out}.",
            where="receptive_field", line="",
            hint=f"use a row in 0..{h_out - 1} and a column in 0..{w_out - 1}."))
    taps = []
    for i in range(kh):
        for j in range(kw):
            row, col = s_h * h + d_h * i - top, s_w * w + d_w * j - left
            outside = not (0 <= row < height and 0 <= col < width)
            taps.append(Tap(i, j, row, col, outside))
    return taps


def tap_formulas(geometry: ConvGeometry, out_pos) -> tuple:
    """Where output pixel (h, w) reads, with the numbers filled in, one line per axis::

        row = 2·1 + 1·i − 1 = 1, 2, 3  (i = 0..2)
    """
    if not geometry.ok:
        raise geometry.error
    lines = []
    for axis, (name, index) in enumerate((("row", "i"), ("col", "j"))):
        s, d, k = geometry.stride[axis], geometry.dilation[axis], geometry.kernel_hw[axis]
        p = geometry.pads[axis][0]
        values = ", ".join(str(s * out_pos[axis] + d * t - p).replace("-", MINUS)
                           for t in range(k))
        lines.append(f"{name} = {s}{DOT}{out_pos[axis]} + {d}{DOT}{index} {MINUS} {p} = "
                     f"{values}  ({index} = 0..{k - 1})")
    return tuple(lines)


def group_connections(in_channels: int, out_channels: int, groups: int) -> list:
    """[(out_channel, range of the input channels it reads), …] for a grouped conv.

    groups=1: every output reads every input; groups=in_channels: depthwise, each
    output reads one input channel.  Raises the op's ShapeError if groups does not
    divide both channel counts.
    """
    _checked_op((1, 1), (1, 1), 1, 0, 1, in_channels, out_channels, groups)
    in_per, out_per = in_channels // groups, out_channels // groups
    return [(o, range((o // out_per) * in_per, (o // out_per + 1) * in_per))
            for o in range(out_channels)]


__all__ = ["ConvGeometry", "Tap", "conv_geometry", "group_connections",
           "receptive_field", "tap_formulas"]
