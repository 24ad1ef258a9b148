"""The resizing op: gradcheck on odd shapes, its weight matrices, and its errors."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.errors import DTypeError, InputError, ShapeError
from nnbook.nn import functional as F
from nnbook.ops.interpolate import weights


@pytest.mark.parametrize("mode,size", [("nearest", (9, 4)), ("bilinear", (9, 4)),
                                       ("bilinear", (3, 2))])
def test_gradcheck_on_an_odd_image(rng, mode, size):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)), requires_grad=True)
    assert nb.gradcheck(lambda x: F.interpolate(x, size=size, mode=mode), (x,))


def test_gradcheck_on_a_signal_with_corners_aligned(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 9)), requires_grad=True)
    assert nb.gradcheck(lambda x: F.interpolate(x, size=4, mode="linear",
                                                align_corners=True), (x,))


def test_each_row_of_weights_sums_to_one_and_corners_land_on_corners():
    for mode in ("nearest", "linear"):
        for size, out in ((7, 11), (7, 3), (5, 5)):
            a = weights(size, out, mode, align_corners=False, scale=None)
            np.testing.assert_allclose(a.sum(axis=1), 1.0)
    a = weights(7, 11, "linear", align_corners=True, scale=None)
    assert a[0, 0] == 1.0 and a[-1, -1] == 1.0  # the corner pixels are kept exactly


def test_upsampling_by_two_nearest_repeats_each_pixel():
    x = nb.arange(6.0).reshape(1, 1, 2, 3)
    y = F.interpolate(x, scale_factor=2).numpy()[0, 0]
    np.testing.assert_array_equal(y, np.repeat(np.repeat(x.numpy()[0, 0], 2, 0), 2, 1))


@pytest.mark.parametrize("call,cls,match", [
    (lambda x: F.interpolate(x, size=(3, 3), mode="trilinear"), ShapeError, "5-D input"),
    (lambda x: F.interpolate(x, size=(3, 3), mode="lanczos"), InputError, "mode='lanczos'"),
    (lambda x: F.interpolate(x, size=(3, 3), mode="bilinear", antialias=True), InputError,
     "antialias=True"),
    (lambda x: F.interpolate(x, size=(3, 3), recompute_scale_factor=True), InputError,
     "recompute_scale_factor=True only applies with scale_factor"),
    (lambda x: F.interpolate(x, size=(3, 3), mode="area", align_corners=False), InputError,
     "align_corners only applies"),
    (lambda x: F.interpolate(x, size=(3, 3), mode="nearest-exact", align_corners=True),
     InputError, "align_corners only applies"),
    (lambda x: F.interpolate(x[0], size=3, mode="bicubic"), ShapeError, "4-D input"),
    (lambda x: F.interpolate(x), InputError, "exactly one of size and scale_factor"),
    (lambda x: F.interpolate(x, size=3, scale_factor=2), InputError, "exactly one"),
    (lambda x: F.interpolate(x, size=(3, 3), align_corners=True), InputError,
     "align_corners only applies"),
    (lambda x: F.interpolate(x, size=(3, 0)), InputError, "size=.* positive"),
    (lambda x: F.interpolate(x, scale_factor=0.1), InputError, "output would be empty"),
    (lambda x: F.interpolate(x, size=5, mode="linear"), ShapeError, "3-D input"),
    (lambda x: F.interpolate(x.long(), size=(3, 3)), DTypeError, "floating point"),
])
def test_wrong_arguments_get_nnbook_errors_with_hints(call, cls, match):
    x = nb.ones(1, 2, 4, 5)
    with pytest.raises(cls, match=match) as info:
        call(x)
    assert "hint:" in str(info.value) and "interpolate" in str(info.value)
