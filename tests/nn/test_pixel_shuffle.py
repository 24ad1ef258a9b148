"""F.pixel_shuffle and F.pixel_unshuffle: each group of r² channels becomes an r×r block of
pixels, row by row, and back; gradients by gradcheck."""
import numpy as np
import pytest

import nnbook as nb
from nnbook.nn import functional as F


def shuffled_by_loops(x, r):
    """y[..., c, h·r + i, w·r + j] = x[..., c·r² + i·r + j, h, w]."""
    *batch, channels, height, width = x.shape
    y = np.zeros((*batch, channels // (r * r), height * r, width * r))
    for c, i, j, h, w in np.ndindex(channels // (r * r), r, r, height, width):
        y[..., c, h * r + i, w * r + j] = x[..., c * r * r + i * r + j, h, w]
    return y


@pytest.mark.parametrize("shape,r", [((2, 12, 3, 5), 2), ((18, 2, 3), 3), ((2, 1, 8, 2, 3), 2)])
def test_pixel_shuffle_moves_channels_into_blocks_and_unshuffle_moves_them_back(rng, shape, r):
    x = rng.standard_normal(shape)
    y = F.pixel_shuffle(nb.tensor(x), r)
    np.testing.assert_array_equal(y.numpy(), shuffled_by_loops(x, r))
    np.testing.assert_array_equal(F.pixel_unshuffle(y, r).numpy(), x)


def test_gradcheck(rng):
    x = nb.tensor(rng.standard_normal((2, 8, 3, 5)), requires_grad=True)
    assert nb.gradcheck(lambda x: F.pixel_shuffle(x, 2), (x,))
    y = nb.tensor(rng.standard_normal((2, 3, 4, 6)), requires_grad=True)
    assert nb.gradcheck(lambda y: F.pixel_unshuffle(y, 2), (y,))
