"""F.lp_pool1d/2d/3d, F.pdist, F.channel_shuffle and F.rrelu, with their layers, without
PyTorch: each against its formula written with loops, gradients by gradcheck on odd,
non-square shapes, and their mistakes answered with nnbook errors."""
import math

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, DTypeError, InputError, ShapeError
from nnbook.nn import functional as F


def windows_1d(length, k, stride, ceil_mode):
    """The [start, end) of each pooling window along one axis, cut at the end."""
    last = (length - k + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (last - 1) * stride >= length:
        last -= 1
    return [(i * stride, min(i * stride + k, length)) for i in range(last)]


def lp_pool_by_loops(x, p, kernel, stride, ceil_mode):
    """(Σ x^p)^(1/p) over each window of the last two axes; PyTorch scales the mean of the
    window's part inside the image by the whole kernel, so a cut window counts k_h·k_w."""
    rows = windows_1d(x.shape[-2], kernel[0], stride[0], ceil_mode)
    cols = windows_1d(x.shape[-1], kernel[1], stride[1], ceil_mode)
    out = np.zeros(x.shape[:-2] + (len(rows), len(cols)))
    for i, (r0, r1) in enumerate(rows):
        for j, (c0, c1) in enumerate(cols):
            part = x[..., r0:r1, c0:c1] ** p
            mean = part.mean(axis=(-2, -1))
            out[..., i, j] = (mean * kernel[0] * kernel[1]) ** (1 / p)
    return out


@pytest.mark.parametrize("p", [2, 1, 1.5, 3])
def test_lp_pool2d_is_the_p_norm_of_each_window(rng, p):
    x = np.abs(rng.standard_normal((2, 3, 7, 5))) + 0.1
    got = F.lp_pool2d(nb.tensor(x), p, 3)
    np.testing.assert_allclose(got.numpy(), lp_pool_by_loops(x, p, (3, 3), (3, 3), False),
                               rtol=1e-12)
    whole = F.lp_pool2d(nb.tensor(x[..., :3, :3]), p, 3).numpy()[..., 0, 0]
    np.testing.assert_allclose(whole, (x[..., :3, :3] ** p).sum(axis=(-2, -1)) ** (1 / p))


def test_lp_pool2d_with_stride_and_ceil_mode_counts_a_cut_window_as_a_whole_one(rng):
    x = np.abs(rng.standard_normal((2, 3, 7, 5))) + 0.1
    got = F.lp_pool2d(nb.tensor(x), 2, (3, 2), stride=(2, 1), ceil_mode=True)
    assert got.shape == (2, 3, 3, 4)
    np.testing.assert_allclose(got.numpy(), lp_pool_by_loops(x, 2, (3, 2), (2, 1), True),
                               rtol=1e-12)


def test_lp_pool1d_pools_signals(rng):
    x = np.abs(rng.standard_normal((2, 3, 9))) + 0.1
    got = F.lp_pool1d(nb.tensor(x), 2, 3, stride=2, ceil_mode=True)
    np.testing.assert_allclose(got.numpy(), lp_pool_by_loops(x[:, :, None], 2, (1, 3),
                                                             (1, 2), True)[:, :, 0], rtol=1e-12)
    assert F.lp_pool1d(nb.tensor(x[0]), 2, 3).shape == (3, 3)  # one signal (C, L)


def test_lp_pool3d_pools_volumes_as_lp_pool2d_pools_each_plane(rng):
    # a window one plane deep is lp_pool2d of each plane; LPPool3d calls lp_pool3d
    x = np.abs(rng.standard_normal((2, 3, 4, 7, 5)))
    got = F.lp_pool3d(nb.tensor(x), 1.5, (1, 3, 2), stride=(1, 2, 1))
    planes = [F.lp_pool2d(nb.tensor(x[:, :, d]), 1.5, (3, 2), (2, 1)).numpy() for d in range(4)]
    np.testing.assert_allclose(got.numpy(), np.stack(planes, axis=2), rtol=1e-12)
    # a whole window: (sum x^p)^(1/p) over depth, height and width
    whole = F.lp_pool3d(nb.tensor(x[..., :2, :3, :2]), 2, (2, 3, 2)).numpy()[..., 0, 0, 0]
    np.testing.assert_allclose(whole, np.sqrt((x[..., :2, :3, :2] ** 2).sum(axis=(2, 3, 4))))
    layer = nn.LPPool3d(2, 2, ceil_mode=True)
    assert repr(layer) == "LPPool3d(norm_type=2, kernel_size=2, stride=None, ceil_mode=True)"
    assert layer(nb.tensor(x)).shape == (2, 3, 2, 4, 3)
    assert layer(nb.tensor(x[0])).shape == (3, 2, 4, 3)  # one volume (C, D, H, W)
    assert nb.gradcheck(lambda v: F.lp_pool3d(v, 2, (2, 3, 2), stride=1),
                        (nb.tensor(x[:1, :2], requires_grad=True),))


def test_lp_pool_of_infinite_order_is_the_largest_magnitude(rng):
    x = rng.standard_normal((2, 3, 7, 5))
    got = F.lp_pool2d(nb.tensor(x), math.inf, (3, 2))
    np.testing.assert_array_equal(got.numpy(), F.max_pool2d(nb.tensor(np.abs(x)), (3, 2)).numpy())
    smallest = F.lp_pool2d(nb.tensor(x), -math.inf, (3, 2)).numpy()
    np.testing.assert_array_equal(smallest[0, 0, 0, 0], np.abs(x[0, 0, :3, :2]).min())


def test_lp_pool_gradients_pass_gradcheck_and_a_window_of_zeros_passes_none(rng):
    x = nb.tensor(np.abs(rng.standard_normal((2, 3, 7, 5))) + 0.1, requires_grad=True)
    assert nb.gradcheck(lambda x: F.lp_pool2d(x, 2, (3, 2), stride=(2, 1)), (x,))
    assert nb.gradcheck(lambda x: F.lp_pool1d(x[:, :, 0], 1.5, 3, ceil_mode=True), (x,))
    zeros = np.abs(rng.standard_normal((1, 1, 4, 4)))
    zeros[..., :2, :2] = 0
    z = nb.tensor(zeros, requires_grad=True)
    F.lp_pool2d(z, 2, 2).sum().backward()
    assert np.isfinite(z.grad.numpy()).all()
    np.testing.assert_array_equal(z.grad.numpy()[..., :2, :2], 0.0)


def test_lp_pool_layers_call_their_function(rng):
    x = nb.tensor(np.abs(rng.standard_normal((2, 3, 7, 5))))
    layer = nn.LPPool2d(2, (3, 2), stride=1)
    assert repr(layer) == "LPPool2d(norm_type=2, kernel_size=(3, 2), stride=1, ceil_mode=False)"
    np.testing.assert_array_equal(layer(x).numpy(), F.lp_pool2d(x, 2, (3, 2), 1).numpy())
    layer = nn.LPPool1d(1.5, 3)
    assert repr(layer) == "LPPool1d(norm_type=1.5, kernel_size=3, stride=None, ceil_mode=False)"
    np.testing.assert_array_equal(layer(x[:, :, 0]).numpy(),
                                  F.lp_pool1d(x[:, :, 0], 1.5, 3).numpy())


def test_pdist_measures_every_pair_of_rows_once_in_order(rng):
    x = rng.standard_normal((5, 3))
    for p in (2, 1, 0.5, 3, 0, math.inf):
        want = [np.linalg.norm(x[i] - x[j], ord=p) if p else np.count_nonzero(x[i] - x[j])
                for i in range(5) for j in range(i + 1, 5)]
        np.testing.assert_allclose(nb.pdist(nb.tensor(x), p).numpy(), want, rtol=1e-12)
    assert F.pdist is nb.pdist
    assert nb.pdist(nb.tensor(x[:1])).shape == (0,)


def test_pdist_gradients_pass_gradcheck_and_equal_rows_get_none(rng):
    x = nb.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    for p in (2, 1.5, 3):
        assert nb.gradcheck(lambda x, p=p: nb.pdist(x, p), (x,))
    twice = nb.tensor(np.array([[1.0, 2.0], [1.0, 2.0]]), requires_grad=True)
    nb.pdist(twice).backward()
    np.testing.assert_array_equal(twice.grad.numpy(), 0.0)


@pytest.mark.parametrize("shape", [(2, 6, 3, 2), (2, 6, 5), (6, 3, 2)])
def test_channel_shuffle_interleaves_the_groups(rng, shape):
    x = rng.standard_normal(shape)
    got = F.channel_shuffle(nb.tensor(x), 3).numpy()
    groups, per_group = 3, shape[1] // 3
    for i in range(per_group):
        for g in range(groups):  # output channel i·groups + g is channel i of group g
            np.testing.assert_array_equal(got[:, i * groups + g], x[:, g * per_group + i])
    np.testing.assert_array_equal(F.channel_shuffle(nb.tensor(x), 1).numpy(), x)


def test_channel_shuffle_gradient_and_layer(rng):
    x = nb.tensor(rng.standard_normal((2, 6, 3, 2)), requires_grad=True)
    assert nb.gradcheck(lambda x: F.channel_shuffle(x, 2), (x,))
    layer = nn.ChannelShuffle(2)
    assert repr(layer) == "ChannelShuffle(groups=2)" and layer.state_dict() == {}
    np.testing.assert_array_equal(layer(x).detach().numpy(),
                                  F.channel_shuffle(x, 2).detach().numpy())
    ints = nb.arange(12).reshape(1, 6, 2)
    assert F.channel_shuffle(ints, 3).dtype == nb.int64  # a rearrangement takes any dtype


def test_rrelu_draws_a_slope_per_element_while_training(rng):
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    nb.manual_seed(3)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = y.detach().numpy() / x.detach().numpy()
    negative = x.detach().numpy() < 0
    assert (slopes[~negative] == 1).all()
    assert (slopes[negative] >= 0.1).all() and (slopes[negative] <= 0.3).all()
    assert len(np.unique(slopes[negative])) == negative.sum()  # one draw per element
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-12)  # dy/dx = the slope
    nb.manual_seed(3)
    np.testing.assert_array_equal(F.rrelu(x, 0.1, 0.3, training=True).detach().numpy(),
                                  y.detach().numpy())


def test_rrelu_outside_training_is_a_leaky_relu_with_the_mean_slope(rng):
    x = nb.tensor(rng.standard_normal((7, 5)), requires_grad=True)
    np.testing.assert_array_equal(F.rrelu(x, 0.1, 0.3).detach().numpy(),
                                  F.leaky_relu(x, 0.2).detach().numpy())
    assert nb.gradcheck(lambda x: F.rrelu(x, 0.1, 0.3), (x,))
    zero = nb.zeros(1, dtype=nb.float64, requires_grad=True)
    F.rrelu(zero, 0.1, 0.3).backward()
    assert zero.grad.item() == pytest.approx(0.2)  # the slope at 0 is the negative side's


def test_rrelu_layer_draws_in_training_mode_only(rng):
    x = nb.tensor(rng.standard_normal((7, 5)))
    layer = nn.RReLU(0.1, 0.3)
    assert repr(layer) == "RReLU(lower=0.1, upper=0.3)"
    assert repr(nn.RReLU(inplace=True)) == \
        "RReLU(lower=0.125, upper=0.3333333333333333, inplace=True)"
    assert not np.array_equal(layer(x).numpy(), layer(x).numpy())  # new draws each call
    layer.eval()
    np.testing.assert_array_equal(layer(x).numpy(), F.leaky_relu(x, 0.2).numpy())


@pytest.mark.parametrize("call,error,said", [
    (lambda x: F.lp_pool2d(x, 0, 3), InputError, r"norm_type=0 has no norm"),
    (lambda x: F.lp_pool2d(x, "2", 3), ArgumentError, r"norm_type must be a number"),
    (lambda x: F.lp_pool1d(x[:, :, 0], 2, (3,)), ArgumentError, r"kernel_size must be an int"),
    (lambda x: F.lp_pool2d(x, 2, 9), ShapeError, r"the window does not fit"),
    (lambda x: nb.pdist(x), ShapeError, r"pdist takes a matrix \(N, M\)"),
    (lambda x: nb.pdist(x[0, 0].long()), DTypeError, r"floating point rows, got int64"),
    (lambda x: nb.pdist(x[0, 0], -1), InputError, r"p must be >= 0"),
    (lambda x: F.channel_shuffle(x, 2), ShapeError,
     r"3 channels in dimension 1 to be divisible by groups=2"),
    (lambda x: F.channel_shuffle(x, 0), InputError, r"groups must be at least 1"),
    (lambda x: F.channel_shuffle(x, 1.5), ArgumentError, r"groups must be an int"),
    (lambda x: F.channel_shuffle(x[0, 0], 1), ShapeError, r"at least 3 dimensions"),
    (lambda x: F.rrelu(x, 0.5, 0.1), InputError, r"lower=0.5 must be at most upper=0.1"),
    (lambda x: F.rrelu(x.long(), training=True), DTypeError, r"floating point input"),
    (lambda x: nn.RReLU(0.5, 0.1), InputError, r"RReLU: lower=0.5 must be at most upper=0.1"),
    (lambda x: nn.ChannelShuffle(0), InputError, r"ChannelShuffle: groups must be an int >= 1"),
    (lambda x: nn.LPPool2d(0, 3), InputError, r"LPPool2d: norm_type=0 has no norm"),
    (lambda x: nn.LPPool2d("2", 3), ArgumentError, r"LPPool2d: norm_type must be a number"),
    (lambda x: nn.LPPool1d(2, (3,)), ArgumentError, r"LPPool1d: kernel_size must be an int"),
    (lambda x: nn.LPPool2d(2, 0), InputError, r"kernel_size must be an int >= 1"),
])
def test_mistakes_get_nnbook_errors(rng, call, error, said):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)))
    with pytest.raises(error, match=said):
        call(x)
