"""The ops behind instance_norm, rms_norm, hardshrink, softshrink, conv_transpose1d and the
adaptive 1-D pools: forward against plain numpy, gradcheck on odd, non-square float64
shapes, and their shape rules' errors."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import InputError, ShapeError
from nnbook.nn import functional as F


def leaf(rng, *shape):
    return nb.tensor(rng.standard_normal(shape), requires_grad=True)


def test_instance_norm_standardises_each_channel_of_each_sample(rng):
    x = rng.standard_normal((2, 3, 7, 5)) * 3 + 1
    y = F.instance_norm(nb.tensor(x), eps=0.0).numpy()
    np.testing.assert_allclose(y.mean(axis=(2, 3)), 0, atol=1e-12)
    np.testing.assert_allclose(y.var(axis=(2, 3)), 1, rtol=1e-12)


def test_instance_norm_moves_the_running_statistics_towards_the_average_instance(rng):
    x = rng.standard_normal((4, 3, 9)) * 2 + 5
    mean, var = nb.zeros(3, dtype=nb.float64), nb.ones(3, dtype=nb.float64)
    F.instance_norm(nb.tensor(x), mean, var, momentum=0.25)
    np.testing.assert_allclose(mean.numpy(), 0.25 * x.mean(axis=2).mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(var.numpy(), 0.75 + 0.25 * x.var(axis=2, ddof=1).mean(axis=0),
                               rtol=1e-12)


def test_rms_norm_divides_by_the_root_mean_square(rng):
    x, w = rng.standard_normal((3, 7, 5)), rng.standard_normal((7, 5))
    y = F.rms_norm(nb.tensor(x), (7, 5), nb.tensor(w), eps=1e-3).numpy()
    rms = np.sqrt((x ** 2).mean(axis=(1, 2), keepdims=True) + 1e-3)
    np.testing.assert_allclose(y, x / rms * w, rtol=1e-12)


def test_shrinks_move_values_towards_zero(rng):
    x = rng.standard_normal(50)
    np.testing.assert_array_equal(F.hardshrink(nb.tensor(x), 0.4).numpy(),
                                  np.where(np.abs(x) > 0.4, x, 0))
    np.testing.assert_allclose(F.softshrink(nb.tensor(x), 0.4).numpy(),
                               np.sign(x) * np.maximum(np.abs(x) - 0.4, 0), atol=1e-15)


def test_adaptive_pools_1d_read_pytorchs_windows(rng):
    x = rng.standard_normal((2, 3, 7))
    windows = [(0, 2), (1, 4), (3, 6), (5, 7)]  # floor(a·7/4) to ceil((a+1)·7/4)
    avg = F.adaptive_avg_pool1d(nb.tensor(x), 4).numpy()
    top, where = F.adaptive_max_pool1d(nb.tensor(x), 4, return_indices=True)
    for a, (start, end) in enumerate(windows):
        np.testing.assert_allclose(avg[..., a], x[..., start:end].mean(axis=-1), rtol=1e-12)
        np.testing.assert_array_equal(top.numpy()[..., a], x[..., start:end].max(axis=-1))
        np.testing.assert_array_equal(where.numpy()[..., a],
                                      start + x[..., start:end].argmax(axis=-1))


def test_conv_transpose1d_is_conv_transpose2d_on_a_row(rng):
    x, w = rng.standard_normal((2, 4, 9)), rng.standard_normal((4, 3, 3))
    kw = dict(stride=2, padding=1, output_padding=1, groups=2, dilation=2)
    y = F.conv_transpose1d(nb.tensor(x), nb.tensor(w), **kw).numpy()
    lifted = F.conv_transpose2d(nb.tensor(x[:, :, None]), nb.tensor(w[:, :, None]),
                                stride=(1, 2), padding=(0, 1), output_padding=(0, 1), groups=2,
                                dilation=(1, 2)).numpy()
    np.testing.assert_allclose(y, lifted[:, :, 0], rtol=1e-12)


@pytest.mark.parametrize("name,fn,shapes", [
    ("instance_norm", lambda x, w, b: F.instance_norm(x, weight=w, bias=b),
     [(2, 3, 7, 5), (3,), (3,)]),
    ("rms_norm", lambda x, w: F.rms_norm(x, (5,), w), [(3, 7, 5), (5,)]),
    ("rms_norm_no_weight", lambda x: F.rms_norm(x, (7, 5), eps=1e-4), [(3, 7, 5)]),
    ("hardshrink", lambda x: F.hardshrink(x, 0.3), [(7, 5)]),
    ("softshrink", lambda x: F.softshrink(x, 0.3), [(7, 5)]),
    ("glu", lambda x: F.glu(x, 1), [(3, 6, 5)]),
    ("local_response_norm", lambda x: F.local_response_norm(x, 3, 0.5, 0.7, 1.5),
     [(2, 5, 3, 4)]),
    ("conv_transpose1d", lambda x, w, b: F.conv_transpose1d(x, w, b, 2, 1, 1, 2, 2),
     [(2, 4, 7), (4, 3, 3), (6,)]),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 4), [(2, 3, 7)]),
    ("adaptive_max_pool1d", lambda x: F.adaptive_max_pool1d(x, 4), [(2, 3, 7)]),
])
def test_gradcheck(rng, name, fn, shapes):
    assert nb.gradcheck(fn, tuple(leaf(rng, *s) for s in shapes)), name


@pytest.mark.parametrize("call,error,match", [
    (lambda: F.instance_norm(nb.randn(2, 3, 1)), ShapeError, "more than 1 position"),
    (lambda: F.instance_norm(nb.randn(3, 4)), ShapeError, r"expects input \(N, C, L\)"),
    (lambda: F.instance_norm(nb.randn(2, 3, 4), nb.zeros(2), nb.ones(2)), ShapeError,
     r"running_mean must hold one value per channel: shape \(3,\)"),
    (lambda: F.rms_norm(nb.randn(3, 4), (5,)), ShapeError,
     r"(?s)normalized_shape=\(5,\) must match .* use RMSNorm\(4\)"),
    (lambda: F.rms_norm(nb.randn(3, 4), (4,), eps=-1.0), InputError, "eps=-1.0 must be"),
    (lambda: F.softshrink(nb.randn(3), -0.5), InputError, "lambd must be at least 0"),
    (lambda: F.local_response_norm(nb.randn(3, 4), 2), ShapeError, "3 or more dimensions"),
    (lambda: F.conv_transpose1d(nb.randn(2, 4, 7), nb.randn(4, 3, 3, 3)), ShapeError,
     r"expects a 3-D weight \(C_in, C_out/groups, k\)"),
    (lambda: F.adaptive_max_pool1d(nb.randn(2, 3, 7), (2, 2)), InputError,
     "output_size must be an int or a tuple of one"),
    (lambda: F.pixel_shuffle(nb.randn(2, 5, 3, 3), 2), ShapeError, "divisible by"),
    (lambda: F.pixel_unshuffle(nb.randn(2, 5, 3, 4), 2), ShapeError, "height 3 and width 4"),
])
def test_wrong_inputs_get_nnbook_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_instance_norm_refuses_another_number_of_channels_even_without_weights():
    # PyTorch only warns here when affine=False (see nnbook/compat.py)
    with pytest.raises(ShapeError, match=r"expects input with 4 channels, got 3"):
        nn.InstanceNorm1d(4)(nb.randn(2, 3, 9))


def test_layers_refuse_bad_arguments_when_built():
    for build, match in [(lambda: nn.RMSNorm(0), "normalized_shape must be a positive int"),
                         (lambda: nn.LocalResponseNorm(0), "size must be an int >= 1"),
                         (lambda: nn.PixelShuffle(0), "upscale_factor must be an int >= 1"),
                         (lambda: nn.ZeroPad2d((1, 2, 3)), "padding must be an int or a tuple "
                          "of 4 ints"),
                         (lambda: nn.AdaptiveAvgPool1d(0), "output_size must be an int >= 1"),
                         (lambda: nn.ConvTranspose1d(3, 4, 3, groups=2), "groups=2 must "
                          "divide in_channels")]:
        with pytest.raises(InputError, match=match):
            build()
