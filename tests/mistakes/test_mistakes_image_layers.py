"""Mistakes with the layers that rearrange, pad and normalise images and signals: Fold,
PixelShuffle, the padding layers, InstanceNorm, GLU, ConvTranspose1d, MaxUnpool2d and
F.interpolate.

See catalogue.py for what every entry is checked for (the error class and its builtin, the
four parts of the message, the user's line, and parameters, buffers and flags unchanged).
"""
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook import nn
from nnbook.errors import DTypeError, InputError, ShapeError
from nnbook.nn import functional as F

MISTAKES = [
    mistake("Fold given another image size than Unfold read",
            lambda: (nn.Sequential(nn.Unfold(3), nn.Fold((7, 6), 3)), nb.randn(2, 3, 7, 5)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "1 (Fold), in fold", r"expects 20 columns .* got 15",
            r"columns unfold made of an image of output_size"),
    mistake("Fold with another kernel size than Unfold",
            lambda: nb.randn(2, 27, 15), lambda cols: F.fold(cols, (7, 5), 2),
            ShapeError, "fold", r"positive multiple of kh·kw = 4 .* got 27",
            r"same kernel_size"),
    mistake("PixelShuffle after a convolution with too few channels",
            lambda: (nn.Sequential(nn.Conv2d(3, 6, 3, padding=1), nn.PixelShuffle(2)),
                     nb.randn(2, 3, 7, 5)), lambda mx: mx[0](mx[1]),
            ShapeError, "1 (PixelShuffle), in F.pixel_shuffle",
            r"6 channels in dimension 1 to be divisible by upscale_factor² = 4",
            r"C·4 channels"),
    mistake("PixelUnshuffle of an odd-sized image", lambda: nb.randn(2, 3, 7, 6),
            lambda x: nn.PixelUnshuffle(2)(x),
            ShapeError, "PixelUnshuffle, in F.pixel_unshuffle",
            r"height 7 and width 6 to be divisible by downscale_factor=2", r"crop or pad"),
    mistake("reflection padding as wide as the image", lambda: nb.randn(2, 3, 7, 5),
            lambda x: nn.ReflectionPad2d(5)(x),
            InputError, "ReflectionPad2d, in F.pad",
            r"padding smaller than the dimension: got \(5, 5\) for a dimension of size 5",
            r"mode='replicate'"),
    mistake("a padding of three numbers for a 2-D padding layer", None,
            lambda: nn.ZeroPad2d((1, 1, 2)),
            InputError, "ZeroPad2d", r"a tuple of 4 ints \(left, right, top, bottom\), got "
            r"\(1, 1, 2\)", r"ZeroPad2d\(1\)"),
    mistake("InstanceNorm built for other channels",
            lambda: (nn.Sequential(nn.Conv2d(3, 8, 3), nn.InstanceNorm2d(16)),
                     nb.randn(2, 3, 7, 5)), lambda mx: mx[0](mx[1]),
            ShapeError, "1 (InstanceNorm2d)", r"16 channels, got 8", r"InstanceNorm2d\(8\)"),
    mistake("InstanceNorm1d on a batch of features (N, C), read as one sequence (C, L)",
            lambda: (nn.InstanceNorm1d(3), nb.randn(4, 3)), lambda mx: mx[0](mx[1]),
            ShapeError, "InstanceNorm1d", r"3 channels, got 4",
            r"2-D input is read as one sample \(C, L\) without its batch dimension"),
    mistake("GLU over an odd number of features",
            lambda: (nn.Sequential(nn.Linear(4, 7), nn.GLU()), nb.randn(5, 4)),
            lambda mx: mx[0](mx[1]),
            ShapeError, "1 (GLU), in F.glu", r"dimension -1 to have an even size .* got 7",
            r"twice the features"),
    mistake("ConvTranspose1d given an image",
            lambda: (nn.ConvTranspose1d(3, 4, 3), nb.randn(2, 3, 7, 5)), lambda mx: mx[0](mx[1]),
            ShapeError, "ConvTranspose1d, in conv_transpose1d", r"3-D input .* got 4-D",
            r"batch dimension|layer before"),
    mistake("MaxUnpool2d with a smaller kernel than the pooling whose indices it got",
            lambda: nn.MaxPool2d(3, return_indices=True)(nb.randn(2, 3, 7, 5)),
            lambda pooled: nn.MaxUnpool2d(2)(*pooled),
            InputError, "MaxUnpool2d, in max_unpool2d",
            r"an index is outside the 4×2 output plane \(0 to 7\): found \d+",
            r"indices of the pooling whose output this is, with its kernel_size"),
    mistake("MaxUnpool2d given the pooled values twice instead of values and indices",
            lambda: nn.MaxPool2d(2, return_indices=True)(nb.randn(2, 3, 7, 5)),
            lambda pooled: nn.MaxUnpool2d(2)(pooled[0], pooled[0]),
            DTypeError, "MaxUnpool2d, in max_unpool2d", r"int64 indices, got float32",
            r"return_indices=True"),
    mistake("MaxUnpool2d of the unpooled image's size with the pooled image's output_size",
            lambda: nn.MaxPool2d(2, return_indices=True)(nb.randn(2, 3, 7, 5)),
            lambda pooled: nn.MaxUnpool2d(2)(*pooled, output_size=(3, 2)),
            InputError, "MaxUnpool2d, in max_unpool2d",
            r"output_size H_out=3 must be between 4 and 8", r"size of the input the pooling had"),
    mistake("interpolate with antialias=True", lambda: nb.randn(2, 3, 7, 5),
            lambda x: F.interpolate(x, size=(3, 2), mode="bilinear", antialias=True),
            InputError, "F.interpolate", r"antialias=True is not supported", r"mode='area'"),
]


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)
