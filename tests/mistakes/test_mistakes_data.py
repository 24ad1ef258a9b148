"""Mistakes with data: the generated digits, splitting them, and feeding them to a model.

See catalogue.py for what every entry is checked for.
"""
import numpy as np
import pytest
from catalogue import check, mistake

import nnbook as nb
from nnbook import nn
from nnbook.data import digits, train_test_split
from nnbook.errors import DimError, DTypeError, InputError, ShapeError
from nnbook.nn import functional as F


def small_digits():
    return digits(30, seed=1)


def cnn():
    return nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(144, 10))


def model_and(make_batch):
    def setup():
        images, labels = small_digits()
        return cnn(), make_batch(images, labels)
    return setup


MISTAKES = [
    mistake("a negative number of images", None, lambda: digits(-5),
            InputError, "nnbook.data.digits", r"n must be an int of at least 0, got -5",
            r"digits\(n=2000"),
    mistake("images smaller than the glyphs", None, lambda: digits(10, size=4),
            InputError, "nnbook.data.digits", r"size must be an int of at least 8, got 4",
            r"size=8"),
    mistake("a seed that is not a whole number", None, lambda: digits(10, seed=0.5),
            InputError, "nnbook.data.digits", r"seed must be a non-negative int, got 0\.5",
            r"digits\(2000, seed=0\)"),
    mistake("images and labels of different lengths", small_digits,
            lambda xy: train_test_split(xy[0], xy[1][:20]),
            InputError, "nnbook.data.train_test_split", r"30 images, 20 labels",
            r"pass the two arrays digits\(\) returned"),
    mistake("a test size above 1", small_digits,
            lambda xy: train_test_split(*xy, test_size=1.5),
            InputError, "nnbook.data.train_test_split", r"between 0 and 1 or a count between 1 "
            r"and 29, got 1\.5", r"test_size=0\.25"),
    mistake("a test size of every sample", small_digits,
            lambda xy: train_test_split(*xy, test_size=30),
            InputError, "nnbook.data.train_test_split", r"got 30", r"test_size=0\.25"),
    mistake("numpy images straight into the model", model_and(lambda x, y: x),
            lambda mb: mb[0](mb[1]),
            DTypeError, "0 (Conv2d), in F.conv2d", r"input must be an nnbook Tensor, got a "
            r"numpy array of shape \(30, 1, 8, 8\)", r"nb\.tensor\(input\)"),
    mistake("images without their channel dimension",
            model_and(lambda x, y: nb.tensor(x[:, 0])), lambda mb: mb[0](mb[1]),
            ShapeError, "0 (Conv2d)", r"1 channels, got 30", r"x\.unsqueeze\(1\)"),
    mistake("one image without its batch dimension",
            model_and(lambda x, y: nb.tensor(x[0])), lambda mb: mb[0](mb[1]),
            ShapeError, "3 (Linear)", r"144 features in its last dimension, got 36.*\(4, 36\)",
            r"one sample, it lacks its batch dimension.*x\.unsqueeze\(0\)"),
    mistake("images as bytes (uint8)",
            model_and(lambda x, y: nb.tensor((x * 255).astype(np.uint8))),
            lambda mb: mb[0](mb[1]),
            DTypeError, "0 (Conv2d), in conv2d", r"floating point input, got uint8",
            r"x\.float\(\)"),
    mistake("float labels into the loss", lambda: (nb.randn(30, 10), nb.tensor(
                small_digits()[1].astype(np.float32))),
            lambda sl: F.cross_entropy(sl[0], sl[1]),
            DTypeError, "cross_entropy", r"class indices as integers, got float32",
            r"target\.long\(\)"),
    mistake("labels of the digit images for a 5-class model",
            lambda: (nb.randn(30, 5), nb.tensor(small_digits()[1])),
            lambda sl: F.cross_entropy(sl[0], sl[1]),
            DimError, "cross_entropy", r"out of range for 5 classes",
            r"widen the last layer to at least 10 outputs"),
    mistake("a ragged batch of images", lambda: [np.zeros((8, 8)), np.zeros((8, 7))],
            lambda imgs: nb.tensor(imgs),
            ShapeError, "nb.tensor", r"ragged", r"same length"),
    mistake("stacking images of different sizes", lambda: [nb.zeros(8, 8), nb.zeros(8, 7)],
            lambda imgs: nb.stack(imgs),
            ShapeError, "nb.stack", r"one shape, got", r"nb\.cat"),
]


@pytest.mark.parametrize("m", MISTAKES)
def test_mistake(m, tmp_path):
    check(m, tmp_path)
