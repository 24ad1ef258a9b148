"""Mistakes with the layers for volumes (N, C, D, H, W) -- video clips and scans: Conv3d
given scans without their channel dimension, clips with their channels last or a batch of
images (and Conv2d a batch of signals), kernel sizes given as pairs, a 2-D norm after a
3-D convolution, a clip pooled away in depth, trilinear resizing of an image.

See catalogue.py for what every entry is checked for (the error class and its builtin, the
four parts of the message, the user's line, and parameters, buffers and flags unchanged).
"""
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook import nn
from nnbook.errors import InputError, ShapeError
from nnbook.nn import functional as F

MISTAKES = [
    mistake("a batch of one-channel scans without their channel dimension into Conv3d",
            lambda: (nn.Conv3d(1, 8, 3), nb.randn(2, 9, 12, 10)), lambda mx: mx[0](mx[1]),
            ShapeError, "Conv3d", r"expects input with 1 channels, got 2",
            r"one-channel volumes without their channel dimension.*x\.unsqueeze\(1\)"),
    mistake("video clips with their channels last into Conv3d",
            lambda: (nn.Sequential(nn.Conv3d(3, 8, 3), nn.ReLU()), nb.randn(2, 6, 12, 10, 3)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "0 (Conv3d)", r"expects input with 3 channels, got 6",
            r"channels-last \(N, D, H, W, C\).*x\.permute\(0, 4, 1, 2, 3\)"),
    mistake("channels-last clips into F.conv3d", lambda: (nb.randn(2, 6, 12, 10, 3),
                                                           nb.randn(8, 3, 3, 3, 3)),
            lambda xw: F.conv3d(xw[0], xw[1]),
            ShapeError, "F.conv3d", r"3 channels in dimension 1, got 6",
            r"x\.permute\(0, 4, 1, 2, 3\)"),
    mistake("a batch of images into Conv3d, read as one volume",
            lambda: (nn.Sequential(nn.Conv3d(3, 8, 3), nn.ReLU()), nb.randn(2, 3, 12, 10)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "0 (Conv3d)", r"expects input with 3 channels, got 2",
            r"batch of images \(N, C, H, W\), which Conv3d reads as one sample.*use Conv2d"
            r".*x\.unsqueeze\(2\) to give each a depth of 1"),
    mistake("a batch of signals into Conv2d, read as one image",
            lambda: (nn.Conv2d(3, 8, 3), nb.randn(2, 3, 20)), lambda mx: mx[0](mx[1]),
            ShapeError, "Conv2d", r"expects input with 3 channels, got 2",
            r"batch of signals \(N, C, L\), which Conv2d reads as one sample.*use Conv1d"),
    mistake("Conv3d given a 2-D kernel size", None, lambda: nn.Conv3d(3, 8, (3, 3)),
            InputError, "Conv3d",
            r"kernel_size must be an int >= 1 or a triple \(d, h, w\) of them, got \(3, 3\)",
            r"kernel_size=\(3, 1, 1\)"),
    mistake("BatchNorm2d after a Conv3d",
            lambda: (nn.Sequential(nn.Conv3d(3, 8, 3), nn.BatchNorm2d(8)),
                     nb.randn(2, 3, 6, 12, 10)), lambda mx: mx[0](mx[1]),
            ShapeError, "1 (BatchNorm2d)", r"4-D input \(N, C, H, W\), got 5-D",
            r"BatchNorm3d for volumes"),
    mistake("a short clip pooled away in depth",
            lambda: (nn.Sequential(nn.MaxPool3d(2), nn.MaxPool3d(2)), nb.randn(2, 3, 3, 16, 16)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "1 (MaxPool3d), in max_pool3d",
            r"the output would be 0×4×4: the window does not fit in the 1×8×8 input",
            r"pool the height and width alone with kernel_size=\(1, 2, 2\)"),
    mistake("AvgPool3d deeper than the clip, counting on the padding",
            lambda: nb.randn(2, 3, 2, 8, 8),
            lambda x: nn.AvgPool3d(3, stride=1, padding=1)(x),
            ShapeError, "AvgPool3d, in avg_pool3d",
            r"2 voxel\(s\) in depth, fewer than the kernel's 3", r"smaller kernel_size"),
    mistake("trilinear resizing of an image", lambda: nb.randn(2, 3, 7, 5),
            lambda x: F.interpolate(x, scale_factor=2, mode="trilinear"),
            ShapeError, "interpolate", r"5-D input .* got 4-D with shape \(2, 3, 7, 5\)",
            r"reshape the input"),
    mistake("a padding of four numbers for a 3-D padding layer", None,
            lambda: nn.ReplicationPad3d((1, 1, 2, 2)),
            InputError, "ReplicationPad3d", r"a tuple of 6 ints \(left, right, top, bottom, "
            r"front, back\), got \(1, 1, 2, 2\)", r"ReplicationPad3d\(1\)"),
]


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)
