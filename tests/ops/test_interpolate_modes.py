"""The resizing modes nearest-exact, area and bicubic, recompute_scale_factor, and the old
names upsample_nearest / upsample_bilinear, without PyTorch: each mode's weights from its
rule, gradients by gradcheck, and the layers."""
import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.nn import functional as F
from nnbook.ops.interpolate import cubic, weights


def test_the_cubic_kernel_is_one_at_zero_zero_at_the_other_taps_and_keys_between():
    np.testing.assert_allclose(cubic(np.array([0.0, 1.0, 2.0, -1.0, -2.0, 2.5])),
                               [1, 0, 0, 0, 0, 0], atol=1e-15)
    a, d = -0.75, 0.3  # Keys (1981): (a+2)|d|³ − (a+3)|d|² + 1 inside, a|d|³ − 5a|d|² + 8a|d| − 4a
    assert cubic(d) == pytest.approx((a + 2) * d**3 - (a + 3) * d**2 + 1)
    assert cubic(1 + d) == pytest.approx(a * (1 + d)**3 - 5 * a * (1 + d)**2 + 8 * a * (1 + d)
                                         - 4 * a)


@pytest.mark.parametrize("size,out", [(7, 11), (7, 3), (5, 5), (1, 4), (4, 1)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_bicubic_rows_sum_to_one_and_read_four_neighbours_clamped_at_the_border(
        size, out, align_corners):
    a = weights(size, out, "bicubic", align_corners, None)
    np.testing.assert_allclose(a.sum(axis=1), 1.0, atol=1e-12)
    step = size / out
    for i in range(out):
        if align_corners:
            s = i * (size - 1) / (out - 1) if out > 1 else 0.0
        else:
            s = (i + 0.5) * step - 0.5        # not clamped at 0, unlike linear
        row = np.zeros(size)
        for k in (-1, 0, 1, 2):
            row[min(max(int(np.floor(s)) + k, 0), size - 1)] += cubic(s - np.floor(s) - k)
        np.testing.assert_allclose(a[i], row, atol=1e-14)


def test_bicubic_with_corners_aligned_keeps_the_corner_pixels(rng):
    x = rng.standard_normal((2, 3, 7, 5))
    y = F.interpolate(nb.tensor(x), size=(11, 9), mode="bicubic", align_corners=True).numpy()
    np.testing.assert_allclose(y[..., ::5, ::4], x[..., ::3, ::2], atol=1e-12)


def test_area_is_adaptive_average_pooling(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)))
    np.testing.assert_allclose(F.interpolate(x, size=(3, 4), mode="area").numpy(),
                               F.adaptive_avg_pool2d(x, (3, 4)).numpy(), atol=1e-14)
    np.testing.assert_allclose(F.interpolate(x[:, :, 0], scale_factor=0.5, mode="area").numpy(),
                               F.adaptive_avg_pool1d(x[:, :, 0], 2).numpy(), atol=1e-14)
    assert F.interpolate(x[:, :, :1], scale_factor=0.4, mode="area").shape == (2, 3, 0, 2)


def test_nearest_exact_picks_the_input_pixel_whose_centre_is_nearest():
    x = nb.arange(7.0).reshape(1, 1, 7)
    y = F.interpolate(x, size=3, mode="nearest-exact").numpy().ravel()
    # output centres (i + ½)·7/3 = 1.17, 3.5, 5.83 fall in input pixels 1, 3, 5
    np.testing.assert_array_equal(y, [1, 3, 5])
    np.testing.assert_array_equal(F.interpolate(x, size=3).numpy().ravel(), [0, 2, 4])


def test_recompute_scale_factor_samples_as_if_the_size_had_been_given(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)))
    recomputed = F.interpolate(x, scale_factor=1.7, mode="bilinear",
                               recompute_scale_factor=True)
    by_size = F.interpolate(x, size=(11, 8), mode="bilinear")  # floor(7·1.7), floor(5·1.7)
    np.testing.assert_allclose(recomputed.numpy(), by_size.numpy(), atol=1e-14)
    by_scale = F.interpolate(x, scale_factor=1.7, mode="bilinear")
    assert not np.allclose(by_scale.numpy(), by_size.numpy())  # 1 / 1.7 is not 7 / 11


@pytest.mark.parametrize("kwargs", [
    dict(size=(9, 4), mode="bicubic"),
    dict(size=(9, 4), mode="bicubic", align_corners=True),
    dict(scale_factor=(0.6, 1.5), mode="bicubic"),
    dict(size=(3, 4), mode="area"),
    dict(size=(9, 3), mode="nearest-exact"),
    dict(scale_factor=1.7, mode="bilinear", recompute_scale_factor=True),
])
def test_gradcheck_of_the_new_modes_on_an_odd_image(rng, kwargs):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)), requires_grad=True)
    assert nb.gradcheck(lambda x: F.interpolate(x, **kwargs), (x,))


@pytest.mark.parametrize("mode,size", [("area", 4), ("nearest-exact", 13)])
def test_gradcheck_of_area_and_nearest_exact_on_a_signal(rng, mode, size):
    x = nb.tensor(rng.standard_normal((2, 3, 9)), requires_grad=True)
    assert nb.gradcheck(lambda x: F.interpolate(x, size=size, mode=mode), (x,))


def test_the_old_names_are_interpolate_with_their_modes_and_warn(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)))
    with pytest.warns(UserWarning, match="upsample_nearest is deprecated"):
        old = F.upsample_nearest(x, scale_factor=2)
    np.testing.assert_array_equal(old.numpy(),
                                  F.interpolate(x, scale_factor=2, mode="nearest").numpy())
    with pytest.warns(UserWarning, match="upsample_bilinear is deprecated"):
        old = F.upsample_bilinear(x, size=(9, 4))
    np.testing.assert_array_equal(
        old.numpy(), F.interpolate(x, size=(9, 4), mode="bilinear", align_corners=True).numpy())
    np.testing.assert_array_equal(nn.UpsamplingBilinear2d(size=(9, 4))(x).numpy(), old.numpy())
    with pytest.warns(UserWarning, match="upsample is deprecated"):
        old = F.upsample(x, size=(9, 4), mode="bicubic")
    np.testing.assert_array_equal(old.numpy(),
                                  F.interpolate(x, size=(9, 4), mode="bicubic").numpy())
