"""Whatever shape or dtype a user passes, a layer or layer function answers with its
result or an nnbook error, never numpy's own (a ValueError about reshaping, an IndexError)
nor a backward rule that fails.  Each input in turn gets a dimension one larger, one
empty, one dimension fewer or more, or integers instead of floats."""
import numpy as np
import pytest
from shared import LAYER_FUNCTIONS

import nnbook as nb
from nnbook import nn
from nnbook.errors import NnbookError


def wrong_shapes(shape):
    for d in range(len(shape)):
        yield shape[:d] + (shape[d] + 1,) + shape[d + 1:]
        yield shape[:d] + (0,) + shape[d + 1:]
    yield from (shape[1:], shape + (2,), ())


def answers_cleanly(call, *args) -> None:
    """Run ``call(*args)`` (and backward through its result): fine, or an nnbook error
    that is not a backward rule's failure."""
    try:
        out = call(*args)
        out = out[0] if isinstance(out, tuple) else out
        if out.requires_grad:
            out.sum().backward()
    except NnbookError as error:
        assert "failed:" not in str(error).splitlines()[0], str(error)


@pytest.mark.parametrize("name", sorted(LAYER_FUNCTIONS))
def test_a_layer_function_given_a_wrong_input_answers_with_an_nnbook_error(name):
    fn, shapes = LAYER_FUNCTIONS[name]
    rng = np.random.default_rng(0)
    for i, shape in enumerate(shapes):
        for wrong in wrong_shapes(shape):
            for dtype in (np.float64, np.int64):
                arrays = [rng.standard_normal(wrong if j == i else s) for j, s in
                          enumerate(shapes)]
                tensors = [nb.tensor(a.astype(dtype) if j == i else a,
                                     requires_grad=j != i or dtype == np.float64)
                           for j, a in enumerate(arrays)]
                nb.manual_seed(0)
                answers_cleanly(fn, *tensors)


LAYERS = {  # a layer, and the shape of an input it takes
    "Conv1d(3, 4, 3)": (2, 3, 9), "Conv2d(3, 4, 3, padding=1)": (2, 3, 7, 5),
    "Conv2d(3, 3, 3, groups=3)": (2, 3, 7, 5), "ConvTranspose2d(3, 4, 3, stride=2)": (2, 3, 7, 5),
    "MaxPool1d(2)": (2, 3, 9), "MaxPool2d(3, 2, 1)": (2, 3, 7, 5), "AvgPool2d(2)": (2, 3, 7, 5),
    "AdaptiveMaxPool2d((3, 2))": (2, 3, 7, 5), "BatchNorm1d(3)": (4, 3, 9),
    "BatchNorm2d(3)": (4, 3, 7, 5), "LayerNorm(5)": (2, 7, 5), "GroupNorm(1, 3)": (2, 3, 7, 5),
    "Linear(5, 4)": (7, 5), "LSTM(5, 4)": (7, 3, 5), "GRU(5, 4, batch_first=True)": (3, 7, 5),
    "RNN(5, 4, bidirectional=True)": (7, 3, 5), "LSTMCell(5, 4)": (3, 5),
    "TransformerEncoderLayer(8, 2, 16)": (3, 7, 8), "Upsample(scale_factor=2)": (2, 3, 7, 5),
    "Flatten()": (2, 3, 7, 5), "Softmax(1)": (7, 5),
    "Unfold((3, 2), stride=(2, 1))": (2, 3, 7, 5),
    "Fold((7, 5), (3, 2), stride=(2, 1))": (2, 18, 12),
    "InstanceNorm1d(3)": (2, 3, 9), "InstanceNorm2d(3, affine=True, track_running_stats=True)":
    (2, 3, 7, 5), "ZeroPad2d((1, 2, -1, 0))": (2, 3, 7, 5), "ConstantPad1d(2, 1.5)": (2, 3, 9),
    "ReflectionPad1d(3)": (2, 3, 9), "ReflectionPad2d((1, 2, 3, 1))": (2, 3, 7, 5),
    "ReplicationPad1d((2, 1))": (2, 3, 9), "ReplicationPad2d(2)": (2, 3, 7, 5),
    "CircularPad1d(2)": (2, 3, 9), "CircularPad2d((1, 2, 3, 1))": (2, 3, 7, 5),
    "PixelShuffle(2)": (2, 12, 3, 5), "PixelUnshuffle(2)": (2, 3, 6, 4),
    "RMSNorm(5)": (3, 7, 5), "GLU(1)": (3, 6, 5), "Hardshrink(0.3)": (7, 5),
    "Softshrink(0.3)": (7, 5), "LocalResponseNorm(3)": (2, 5, 3, 4),
    "AdaptiveAvgPool1d(4)": (2, 3, 7), "AdaptiveMaxPool1d(4, return_indices=True)": (2, 3, 7),
    "ConvTranspose1d(4, 6, 3, stride=2, groups=2)": (2, 4, 7), "Softmax2d()": (2, 5, 3, 4),
    "ChannelShuffle(3)": (2, 6, 3, 5), "LPPool1d(2, 3, 2)": (2, 3, 9),
    "LPPool2d(1.5, (3, 2), stride=1)": (2, 3, 7, 5), "RReLU(0.1, 0.3)": (7, 5),
    "LPPool3d(2, (3, 2, 1), stride=(2, 1, 2))": (2, 3, 5, 7, 4),
    "Conv3d(3, 6, (3, 2, 1), padding=(1, 0, 1), groups=3)": (2, 3, 5, 7, 4),
    "Conv3d(3, 4, 2, padding='same', padding_mode='reflect')": (2, 3, 5, 7, 4),
    "ConvTranspose3d(3, 4, (3, 2, 1), stride=2)": (2, 3, 5, 7, 4), "LazyConv3d(4, 2)":
    (2, 3, 5, 7, 4), "MaxPool3d((3, 2, 1), 2, (1, 1, 0))": (2, 3, 5, 7, 4),
    "AvgPool3d(2, ceil_mode=True)": (2, 3, 5, 7, 4), "AdaptiveAvgPool3d((2, None, 3))":
    (2, 3, 5, 7, 4), "AdaptiveMaxPool3d(2, return_indices=True)": (2, 3, 5, 7, 4),
    "BatchNorm3d(3)": (2, 3, 5, 7, 4), "InstanceNorm3d(3, affine=True)": (2, 3, 5, 7, 4),
    "ReplicationPad3d((1, 0, 2, 1, 1, 2))": (2, 3, 5, 7, 4),
    "Upsample(scale_factor=(2, 1, 1.5), mode='trilinear')": (2, 3, 5, 7, 4),
}


@pytest.mark.parametrize("layer", sorted(LAYERS))
def test_a_layer_given_a_wrong_input_answers_with_an_nnbook_error(layer):
    model = eval(f"nn.{layer}", {"nn": nn})
    rng = np.random.default_rng(1)
    for wrong in wrong_shapes(LAYERS[layer]):
        x = rng.standard_normal(wrong)
        answers_cleanly(model, nb.tensor(x.astype(np.float32), requires_grad=True))
        answers_cleanly(model, nb.tensor(x.astype(np.int64)))
