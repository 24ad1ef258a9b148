"""The layers for volumes (N, C, D, H, W) with numpy alone: parameters and their names,
the padding modes of Conv3d, the lazy Conv3d, the 3-D pools, batch and instance norm and
padding layers, and what nb.infer_shapes and nb.summary say about a 3-D network.
(tests/oracle/test_volumes_like_pytorch.py compares the same layers with PyTorch.)"""
import math

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import InputError, ShapeError
from nnbook.nn import functional as F

X_SHAPE = (2, 3, 5, 7, 4)  # N, C, D, H, W: every spatial axis of its own size


def test_conv3d_has_pytorchs_parameters_names_and_initialisation():
    layer = nn.Conv3d(6, 8, (3, 2, 1), groups=2)
    assert list(layer.state_dict()) == ["weight", "bias"]
    assert layer.weight.shape == (8, 3, 3, 2, 1) and layer.bias.shape == (8,)
    assert layer.kernel_size == (3, 2, 1) and layer.stride == (1, 1, 1)
    bound = 1 / math.sqrt(3 * 3 * 2 * 1)  # fan_in = in_channels / groups · kd · kh · kw
    for p in (layer.weight, layer.bias):
        assert 0.5 * bound < np.abs(p.detach().numpy()).max() <= bound
    assert repr(layer) == "Conv3d(6, 8, kernel_size=(3, 2, 1), stride=(1, 1, 1), groups=2)"
    assert nn.Conv3d(3, 4, 3, bias=False).bias is None


@pytest.mark.parametrize("mode, numpy_mode", [("reflect", "reflect"), ("replicate", "edge"),
                                              ("circular", "wrap")])
def test_conv3d_pads_the_volume_first_with_its_padding_mode(rng, mode, numpy_mode):
    """padding=(d, h, w) pads the depth by d, the height by h and the width by w."""
    layer = nn.Conv3d(3, 4, (3, 2, 1), padding=(1, 2, 0), padding_mode=mode,
                      dtype=nb.float64)
    x = rng.standard_normal(X_SHAPE)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (2, 2), (0, 0)), mode=numpy_mode)
    want = F.conv3d(nb.tensor(padded), layer.weight, layer.bias)
    np.testing.assert_allclose(layer(nb.tensor(x)).detach().numpy(), want.detach().numpy(),
                               rtol=1e-12)


def test_conv3d_same_padding_keeps_the_size_in_every_mode(rng):
    for mode in ("zeros", "reflect", "replicate", "circular"):
        layer = nn.Conv3d(3, 4, (2, 3, 2), padding="same", dilation=(2, 1, 1),
                          padding_mode=mode)
        assert layer(nb.randn(*X_SHAPE)).shape == (2, 4, 5, 7, 4)


def test_conv_transpose3d_layer_weight_and_output(rng):
    layer = nn.ConvTranspose3d(4, 6, (3, 2, 1), stride=2, output_padding=1, groups=2)
    assert layer.weight.shape == (4, 3, 3, 2, 1) and layer.bias.shape == (6,)
    assert layer(nb.randn(2, 4, 5, 7, 4)).shape == (2, 6, 12, 15, 8)
    with pytest.raises(InputError, match="output_size is not supported"):
        layer(nb.randn(2, 4, 5, 7, 4), output_size=(12, 15, 8))
    with pytest.raises(InputError, match="padding_mode must be 'zeros' for ConvTranspose3d"):
        nn.ConvTranspose3d(4, 6, 3, padding_mode="reflect")


def test_lazy_conv3d_learns_in_channels_from_its_first_input_and_becomes_a_conv3d():
    layer = nn.LazyConv3d(4, (3, 2, 1), padding=1)
    assert layer.in_channels == 0
    trace = nb.infer_shapes(nn.Sequential(layer), X_SHAPE)  # no data needed
    assert trace.steps[0].output_shape == (2, 4, 5, 8, 6)
    assert type(layer) is nn.Conv3d and layer.weight.shape == (4, 3, 3, 2, 1)
    loaded = nn.LazyConv3d(4, 3)
    loaded.load_state_dict(nn.Conv3d(5, 4, 3).state_dict())
    assert type(loaded) is nn.Conv3d and loaded.in_channels == 5
    with pytest.raises(ShapeError, match=r"4-D \(C, D, H, W\) or 5-D \(N, C, D, H, W\)"):
        nn.LazyConv3d(4, 3)(nb.randn(3, 7, 4))


def test_pool3d_layers_call_their_functions():
    x = nb.randn(*X_SHAPE)
    pairs = [(nn.MaxPool3d((3, 2, 1), (2, 1, 1), (1, 1, 0), ceil_mode=True),
              F.max_pool3d(x, (3, 2, 1), (2, 1, 1), (1, 1, 0), ceil_mode=True)),
             (nn.AvgPool3d(2, count_include_pad=False, padding=1),
              F.avg_pool3d(x, 2, padding=1, count_include_pad=False)),
             (nn.AdaptiveAvgPool3d((2, None, 3)), F.adaptive_avg_pool3d(x, (2, None, 3))),
             (nn.AdaptiveMaxPool3d(2), F.adaptive_max_pool3d(x, 2))]
    for layer, want in pairs:
        np.testing.assert_array_equal(layer(x).numpy(), want.numpy())
    out, indices = nn.MaxPool3d(2, return_indices=True)(x)
    assert out.shape == indices.shape == (2, 3, 2, 3, 2) and indices.dtype == nb.int64
    assert repr(nn.MaxPool3d(2)) == ("MaxPool3d(kernel_size=2, stride=2, padding=0, "
                                     "dilation=1, ceil_mode=False)")


def test_batch_norm3d_normalises_each_channel_over_the_batch_and_the_volume(rng):
    layer = nn.BatchNorm3d(3, dtype=nb.float64)
    x = rng.standard_normal(X_SHAPE) * 3 + 1
    y = layer(nb.tensor(x)).detach().numpy()
    np.testing.assert_allclose(y.mean(axis=(0, 2, 3, 4)), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=(0, 2, 3, 4)), 1, rtol=1e-4)
    count = x.size // 3  # the running variance is unbiased over N·D·H·W values
    np.testing.assert_allclose(layer.running_var.numpy(),
                               0.9 + 0.1 * x.var(axis=(0, 2, 3, 4)) * count / (count - 1))
    with pytest.raises(ShapeError, match=r"5-D input \(N, C, D, H, W\), got 4-D(.|\n)*"
                                         r"BatchNorm2d is for images"):
        layer(nb.randn(2, 3, 7, 4))


def test_instance_norm3d_standardises_each_volume_and_takes_one_unbatched(rng):
    layer = nn.InstanceNorm3d(3)
    x = rng.standard_normal(X_SHAPE) * 2 + 5
    y = layer(nb.tensor(x)).numpy()
    np.testing.assert_allclose(y.mean(axis=(2, 3, 4)), 0, atol=1e-12)
    np.testing.assert_allclose(y.std(axis=(2, 3, 4)), 1, rtol=1e-4)
    np.testing.assert_allclose(layer(nb.tensor(x[0])).numpy(), y[0], rtol=1e-12)


@pytest.mark.parametrize("layer, numpy_mode", [
    ("ZeroPad3d", "constant"), ("ReflectionPad3d", "reflect"), ("ReplicationPad3d", "edge"),
    ("CircularPad3d", "wrap")])
def test_3d_padding_layers_pad_width_height_and_depth_in_that_order(rng, layer, numpy_mode):
    x = rng.standard_normal(X_SHAPE)
    y = getattr(nn, layer)((2, 1, 0, 3, 1, 2))(nb.tensor(x))  # left, right, top, ... back
    want = np.pad(x, ((0, 0), (0, 0), (1, 2), (0, 3), (2, 1)), mode=numpy_mode)
    np.testing.assert_array_equal(y.numpy(), want)
    constant = nn.ConstantPad3d(1, 2.5)(nb.tensor(x[0]))  # one unbatched volume
    np.testing.assert_array_equal(constant.numpy(), np.pad(x[0], ((0, 0),) + ((1, 1),) * 3,
                                                           constant_values=2.5))


def test_shape_inference_and_summary_of_a_small_3d_network():
    model = nn.Sequential(nn.Conv3d(1, 8, (3, 3, 1), stride=(1, 2, 2), padding=(1, 1, 0)),
                          nn.BatchNorm3d(8), nn.ReLU(), nn.MaxPool3d((1, 2, 2)),
                          nn.ConvTranspose3d(8, 2, 2, stride=2), nn.ReplicationPad3d(1),
                          nn.AdaptiveAvgPool3d(1), nn.Flatten())
    trace = nb.infer_shapes(model, (4, 1, 6, 20, 16))
    assert [s.output_shape for s in trace.steps] == [
        (4, 8, 6, 10, 8), (4, 8, 6, 10, 8), (4, 8, 6, 10, 8), (4, 8, 6, 5, 4),
        (4, 2, 12, 10, 8), (4, 2, 14, 12, 10), (4, 2, 1, 1, 1), (4, 2)]
    assert trace.steps[0].formula == (
        "D_out = floor((6 + 2·1 − 1·(3 − 1) − 1) / 1) + 1 = 6",
        "H_out = floor((20 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 10",
        "W_out = floor((16 + 2·0 − 1·(1 − 1) − 1) / 2) + 1 = 8")
    assert trace.steps[5].formula[0] == "D_out = D + front + back = 12 + 1 + 1 = 14"
    summary = nb.summary(model, (4, 1, 6, 20, 16))
    assert summary.total_params == (8 * 9 + 8) + 16 + (8 * 2 * 8 + 2)
    rows = {row.path: row for row in summary.rows}
    assert rows["0"].mult_adds == 4 * 8 * 6 * 10 * 8 * (1 * 3 * 3 * 1)  # per output: C_in·kd·kh·kw
    assert rows["3"].mult_adds == 4 * 8 * 6 * 5 * 4 * 4                  # a comparison per tap
    assert rows["4"].mult_adds == 4 * 8 * 6 * 5 * 4 * (2 * 8)             # per input: C_out·k³


def test_a_short_clip_pooled_to_nothing_is_told_to_pool_height_and_width_alone():
    model = nn.Sequential(nn.MaxPool3d(2), nn.MaxPool3d(2))
    with pytest.raises(ShapeError, match=r"(?s)the output would be 0×4×4.*only 1 plane\(s\) "
                                         r"\(frames, slices\).*kernel_size=\(1, 2, 2\)"):
        model(nb.randn(2, 3, 3, 16, 16))
