"""An empty batch goes through every layer function as in PyTorch: the output has the
shape a batch of two would have, with 0 samples, and backward gives empty gradients of the
inputs' shapes (adaptive max pooling, group norm and the transposed convolution raised
numpy's "cannot reshape array of size 0").  Empty images and empty weights are refused
with a ShapeError, as conv2d refuses them."""
import numpy as np
import pytest

import nnbook as nb
import nnbook.nn.functional as F
from nnbook.errors import ShapeError

FUNCTIONS = {  # name: (function of x, x's shape for a batch of two, other inputs)
    "conv2d": (lambda x, w: F.conv2d(x, w, padding=1), (2, 3, 7, 5), [(4, 3, 3, 3)]),
    "conv1d": (lambda x, w: F.conv1d(x, w, stride=2), (2, 3, 9), [(4, 3, 3)]),
    "conv_transpose2d": (lambda x, w: F.conv_transpose2d(x, w, stride=2), (2, 3, 7, 5),
                         [(3, 2, 3, 3)]),
    "max_pool2d": (lambda x: F.max_pool2d(x, 2), (2, 3, 7, 5), []),
    "avg_pool2d": (lambda x: F.avg_pool2d(x, 3, 2, 1), (2, 3, 7, 5), []),
    "adaptive_avg_pool2d": (lambda x: F.adaptive_avg_pool2d(x, (3, 2)), (2, 3, 7, 5), []),
    "adaptive_max_pool2d": (lambda x: F.adaptive_max_pool2d(x, (3, 2)), (2, 3, 7, 5), []),
    "group_norm": (lambda x: F.group_norm(x, 1), (2, 3, 7, 5), []),
    "layer_norm": (lambda x: F.layer_norm(x, (5,)), (2, 3, 7, 5), []),
    "interpolate": (lambda x: F.interpolate(x, scale_factor=2), (2, 3, 7, 5), []),
    "linear": (lambda x, w: F.linear(x, w), (2, 5), [(4, 5)]),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_an_empty_batch_gives_an_empty_output_and_empty_gradients(name):
    fn, shape, others = FUNCTIONS[name]
    weights = [nb.randn(*s, requires_grad=True) for s in others]
    full = fn(nb.randn(*shape), *weights)
    x = nb.randn(0, *shape[1:], requires_grad=True)
    out = fn(x, *weights)
    assert out.shape == (0,) + full.shape[1:]
    out.sum().backward()
    assert x.grad.shape == x.shape
    for w in weights:
        np.testing.assert_array_equal(w.grad.numpy(), np.zeros(w.shape, np.float32))


@pytest.mark.parametrize("x_shape,w_shape,message", [
    ((2, 3, 0, 5), (3, 2, 3, 3), r"expects an input image of at least 1×1, got 0×5"),
    ((2, 3, 7, 0), (3, 2, 3, 3), r"expects an input image of at least 1×1, got 7×0"),
    ((2, 3, 7, 5), (3, 0, 3, 3), r"the weight has an empty dimension: \(3, 0, 3, 3\)"),
    ((2, 3, 7, 5), (3, 2, 0, 3), r"the weight has an empty dimension: \(3, 2, 0, 3\)"),
])
def test_a_transposed_convolution_refuses_an_empty_image_or_weight(x_shape, w_shape, message):
    with pytest.raises(ShapeError, match=message):
        F.conv_transpose2d(nb.randn(*x_shape), nb.randn(*w_shape), stride=2)


@pytest.mark.parametrize("in_features,out_features", [(0, 3), (5, 0)])
def test_a_linear_layer_with_no_features_works_as_in_pytorch(in_features, out_features):
    # AdaptiveLogSoftmaxWithLoss(6, 11, [3, 7]) builds Linear(6, 0) and Linear(0, 4): numpy
    # cannot reshape to (-1, 0), so the rows must be counted
    layer = nb.nn.Linear(in_features, out_features)
    x = nb.randn(2, 4, in_features, requires_grad=True)
    out = layer(x)
    assert out.shape == (2, 4, out_features)
    bias = layer.bias.detach().numpy()
    np.testing.assert_allclose(out.detach().numpy(), np.broadcast_to(bias, out.shape))
    out.sum().backward()
    assert x.grad.shape == x.shape and layer.weight.grad.shape == layer.weight.shape
    np.testing.assert_allclose(layer.bias.grad.numpy(), np.full(out_features, 8.0))
