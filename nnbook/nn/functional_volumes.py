"""Functions on volumes (N, C, D, H, W) -- video clips, scans: conv3d, conv_transpose3d and
the 3-D pools (``ops/threedim.py``).  Arguments, defaults and results are PyTorch's;
``kernel_size``, ``stride``, ``padding`` and ``dilation`` take an int or a (d, h, w) triple.
``F.interpolate`` resizes volumes too (modes 'nearest', 'nearest-exact', 'area' and
'trilinear'), and ``F.dropout3d`` drops whole channels of them.
"""
from __future__ import annotations

from ..tensor import apply
from .arguments import _check_layout, _tensor, _with_indices

__all__ = ["conv3d", "conv_transpose3d", "max_pool3d", "max_pool3d_with_indices",
           "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d",
           "adaptive_max_pool3d_with_indices"]


def _tensors(fn: str, input, weight, bias) -> list:
    tensors = [_tensor(fn, "input", input), _tensor(fn, "weight", weight)]
    if bias is not None:
        tensors.append(_tensor(fn, "bias", bias))
    return tensors


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution of (N, C_in, D, H, W) with weight (C_out, C_in / groups, kd, kh, kw);
    ``padding`` may also be 'valid' or 'same' (stride 1), as in PyTorch."""
    from ..ops.threedim import Conv3d  # (the ops load on first use, as in functional.py)

    tensors = _tensors("conv3d", input, weight, bias)
    _check_layout("conv3d", tensors[0], tensors[1], groups, spatial=3)
    return apply(Conv3d(stride, padding, dilation, groups), *tensors)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 3-D convolution (conv3d's gradient with respect to its input, as a
    layer); weight (C_in, C_out / groups, kd, kh, kw)."""
    from ..ops.threedim import ConvTranspose3d

    tensors = _tensors("conv_transpose3d", input, weight, bias)
    return apply(ConvTranspose3d(stride, padding, output_padding, groups, dilation), *tensors)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each window of a volume; ``stride`` defaults to ``kernel_size``.
    ``return_indices=True`` also returns where each maximum is in its (D, H, W) block
    (int64, (plane·H + row)·W + column)."""
    from ..ops.threedim import MaxPool3d

    input = _tensor("max_pool3d", "input", input)
    op = MaxPool3d(kernel_size, stride, padding, dilation, ceil_mode, return_indices)
    out = apply(op, input)
    return _with_indices(op, out) if return_indices else out


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool3d that always returns (output, indices)."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean of each window of a volume, with avg_pool2d's divisor rules."""
    from ..ops.threedim import AvgPool3d

    input = _tensor("avg_pool3d", "input", input)
    return apply(AvgPool3d(kernel_size, stride, padding, ceil_mode, count_include_pad,
                           divisor_override), input)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of a volume to a fixed (D_out, H_out, W_out); None in
    ``output_size`` keeps that size."""
    from ..ops.threedim import AdaptiveAvgPool3d

    input = _tensor("adaptive_avg_pool3d", "input", input)
    return apply(AdaptiveAvgPool3d(output_size), input)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling of a volume to a fixed (D_out, H_out, W_out), with adaptive_avg_pool3d's
    windows; ``return_indices=True`` also returns where each maximum is (as max_pool3d)."""
    from ..ops.threedim import AdaptiveMaxPool3d

    input = _tensor("adaptive_max_pool3d", "input", input)
    op = AdaptiveMaxPool3d(output_size)
    out = apply(op, input)
    return _with_indices(op, out) if return_indices else out


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d that always returns (output, indices)."""
    return adaptive_max_pool3d(input, output_size, return_indices=True)
