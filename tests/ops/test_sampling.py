"""F.affine_grid and F.grid_sample (nnbook/ops/sampling.py) without PyTorch: the grid's
points from their formula, every mode and padding against a reader written with plain
loops, PyTorch's conventions at the borders (halves rounded to even, reflections), and the
gradients to the image, the grid and theta by gradcheck on odd, non-square shapes (a 7×5
image read at a 4×6 grid, points outside [-1, 1] included)."""
import math
import warnings

import numpy as np
import pytest

import nnbook as nb
from nnbook import nn
from nnbook.errors import ArgumentError, DTypeError, InputError, ShapeError
from nnbook.nn import functional as F
from nnbook.ops.sampling import reflect

MODES = ["bilinear", "nearest", "bicubic"]
PADDINGS = ["zeros", "border", "reflection"]


# ---------------------------------------------------------------------------
# A reader of one point, written with loops and Python's own rounding
# ---------------------------------------------------------------------------

def to_pixels(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def moved_in(pos, size, padding, align_corners):
    """A position outside the image moved in: clipped, or mirrored until inside."""
    if padding == "zeros":
        return pos
    if padding == "reflection":
        low, high = (0.0, size - 1.0) if align_corners else (-0.5, size - 0.5)
        if low == high:
            return 0.0
        while pos < low or pos > high:
            pos = 2 * low - pos if pos < low else 2 * high - pos
    return min(max(pos, 0.0), size - 1.0)


def keys(d, a=-0.75):
    """Keys' cubic convolution weight at distance d."""
    d = abs(d)
    if d <= 1:
        return (a + 2) * d**3 - (a + 3) * d**2 + 1
    return a * d**3 - 5 * a * d**2 + 8 * a * d - 4 * a if d < 2 else 0.0


def read_point(image, gx, gy, mode, padding, align_corners):
    """image (H, W) read at the normalised point (gx, gy)."""
    h, w = image.shape

    def pixel(row, col):
        inside = 0 <= row < h and 0 <= col < w
        return image[int(row), int(col)] if inside else 0.0

    px, py = to_pixels(gx, w, align_corners), to_pixels(gy, h, align_corners)
    if mode == "bicubic":
        left, top = math.floor(px), math.floor(py)
        total = 0.0
        for i in range(-1, 3):
            for j in range(-1, 3):
                row = moved_in(float(top + i), h, padding, align_corners)
                col = moved_in(float(left + j), w, padding, align_corners)
                total += keys(py - top - i) * keys(px - left - j) * pixel(row, col)
        return total
    px, py = moved_in(px, w, padding, align_corners), moved_in(py, h, padding, align_corners)
    if mode == "nearest":
        return pixel(round(py), round(px))  # Python's round: halves to even
    left, top = math.floor(px), math.floor(py)
    tx, ty = px - left, py - top
    return ((1 - tx) * (1 - ty) * pixel(top, left) + tx * (1 - ty) * pixel(top, left + 1)
            + (1 - tx) * ty * pixel(top + 1, left) + tx * ty * pixel(top + 1, left + 1))


def read_by_loops(x, grid, mode, padding, align_corners):
    n, c = x.shape[:2]
    out = np.zeros((n, c) + grid.shape[1:3])
    for b, ch, i, j in np.ndindex(out.shape):
        out[b, ch, i, j] = read_point(x[b, ch], *grid[b, i, j], mode, padding, align_corners)
    return out


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("mode", MODES)
def test_every_mode_reads_what_a_loop_over_the_points_reads(rng, mode, padding,
                                                            align_corners):
    x = rng.standard_normal((2, 3, 7, 5))
    grid = rng.uniform(-1.8, 1.8, (2, 4, 6, 2))  # points outside the image included
    got = F.grid_sample(nb.tensor(x), nb.tensor(grid), mode, padding, align_corners)
    assert got.shape == (2, 3, 4, 6) and got.dtype == nb.float64
    np.testing.assert_allclose(got.numpy(), read_by_loops(x, grid, mode, padding,
                                                          align_corners), atol=1e-12)


def test_points_far_outside_read_zeros_the_border_or_a_mirror_image(rng):
    x = rng.standard_normal((1, 2, 7, 5))
    far = np.array([[[[-7.3, 0.2], [9.1, -0.4], [0.3, 12.6]]]])
    for padding in PADDINGS:
        got = F.grid_sample(nb.tensor(x), nb.tensor(far), "bilinear", padding, False)
        np.testing.assert_allclose(got.numpy(), read_by_loops(x, far, "bilinear", padding,
                                                              False), atol=1e-12)
    zeros = F.grid_sample(nb.tensor(x), nb.tensor(far), "bilinear", "zeros", False)
    np.testing.assert_array_equal(zeros.numpy(), 0.0)


def test_nearest_rounds_halves_to_even_as_pytorch():
    x = nb.arange(35.0, dtype=nb.float64).reshape(1, 1, 7, 5)
    # align_corners=True: x = -1 + 2 col / 4, so cols 0.5, 1.5, 2.5, 3.5 at -0.75 ... 0.75
    halves = nb.tensor([[[[-0.75, -1.0], [-0.25, -1.0], [0.25, -1.0], [0.75, -1.0]]]],
                       dtype=nb.float64)
    got = F.grid_sample(x, halves, mode="nearest", align_corners=True)
    np.testing.assert_array_equal(got.numpy().ravel(), [0, 2, 2, 4])  # not 1, 2, 3, 4


def test_the_identity_grid_gives_the_image_back(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)))
    identity = nb.tensor(np.tile(np.eye(2, 3), (2, 1, 1)))
    for align_corners in (False, True):
        grid = F.affine_grid(identity, x.size(), align_corners)
        for mode in MODES:
            y = F.grid_sample(x, grid, mode, align_corners=align_corners)
            np.testing.assert_allclose(y.numpy(), x.numpy(), atol=1e-12, err_msg=mode)


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_moves_each_pixel_centre_by_theta(rng, align_corners):
    theta = rng.standard_normal((2, 2, 3))
    grid = F.affine_grid(nb.tensor(theta), (2, 3, 4, 6), align_corners).numpy()
    assert grid.shape == (2, 4, 6, 2)
    for n, i, j in np.ndindex(2, 4, 6):
        # the centre of pixel (i, j) in normalised coordinates
        x = -1 + 2 * j / 5 if align_corners else -1 + (2 * j + 1) / 6
        y = -1 + 2 * i / 3 if align_corners else -1 + (2 * i + 1) / 4
        np.testing.assert_allclose(grid[n, i, j], theta[n] @ [x, y, 1], atol=1e-14)


def test_affine_grid_of_a_volume_gives_points_x_y_z(rng):
    theta = rng.standard_normal((2, 3, 4))
    grid = F.affine_grid(nb.tensor(theta), (2, 1, 3, 4, 5), align_corners=False).numpy()
    assert grid.shape == (2, 3, 4, 5, 3)
    d, h, w = 2, 1, 4
    x, y, z = -1 + (2 * w + 1) / 5, -1 + (2 * h + 1) / 4, -1 + (2 * d + 1) / 3
    np.testing.assert_allclose(grid[1, d, h, w], theta[1] @ [x, y, z, 1], atol=1e-14)


def test_a_single_pixel_sits_in_the_middle():
    theta = nb.tensor(np.eye(2, 3)[None])
    with pytest.warns(UserWarning, match="only point is 0"):
        grid = F.affine_grid(theta, (1, 1, 1, 3), align_corners=True)
    np.testing.assert_allclose(grid.numpy()[0, 0], [[-1, 0], [0, 0], [1, 0]], atol=1e-15)


def test_reflection_folds_back_and_forth_and_turns_the_slope_round():
    pos = np.array([-0.2, 2.5, 4.4, 5.0, 9.3, -8.1])
    folded, slope = reflect(pos, 0.0, 4.0)
    np.testing.assert_allclose(folded, [0.2, 2.5, 3.6, 3.0, 1.3, 0.1], atol=1e-12)
    np.testing.assert_array_equal(slope, [-1, 1, -1, -1, 1, -1])  # -8.1: three mirrors


def test_pixels_read_by_several_points_add_up_their_gradients():
    x = nb.zeros(1, 1, 7, 5, dtype=nb.float64, requires_grad=True)
    same = nb.tensor(np.full((1, 4, 6, 2), 0.2))   # 24 points at one place
    F.grid_sample(x, same, "nearest", align_corners=False).sum().backward()
    assert x.grad.numpy().sum() == 24 and np.count_nonzero(x.grad.numpy()) == 1
    x.grad = None
    F.grid_sample(x, same, "bilinear", align_corners=False).sum().backward()
    np.testing.assert_allclose(x.grad.numpy().sum(), 24.0)


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding", PADDINGS)
@pytest.mark.parametrize("mode", MODES)
def test_gradients_to_the_image_and_the_grid_pass_gradcheck(rng, mode, padding, align_corners):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)), requires_grad=True)
    grid = nb.tensor(rng.uniform(-1.6, 1.6, (2, 4, 6, 2)), requires_grad=mode != "nearest")
    assert nb.gradcheck(lambda x, g: F.grid_sample(x, g, mode, padding, align_corners),
                        (x, grid))


def test_nearest_gives_the_grid_a_zero_gradient(rng):
    grid = nb.tensor(rng.uniform(-1.6, 1.6, (2, 4, 6, 2)), requires_grad=True)
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)))
    F.grid_sample(x, grid, "nearest", align_corners=False).sum().backward()
    np.testing.assert_array_equal(grid.grad.numpy(), 0.0)


@pytest.mark.parametrize("size", [(2, 3, 4, 6), (2, 1, 3, 4, 5)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_the_gradient_to_theta_passes_gradcheck(rng, size, align_corners):
    k = len(size) - 2
    theta = nb.tensor(rng.standard_normal((2, k, k + 1)), requires_grad=True)
    assert nb.gradcheck(lambda t: F.affine_grid(t, size, align_corners), (theta,))


def test_a_spatial_transformer_trains_theta_through_both(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)))
    theta = nb.tensor(rng.normal(0, 0.3, (2, 2, 3)) + np.eye(2, 3), requires_grad=True)
    out = F.grid_sample(x, F.affine_grid(theta, (2, 3, 4, 6), False), align_corners=False)
    assert nb.gradcheck(lambda t: F.grid_sample(x, F.affine_grid(t, (2, 3, 4, 6), False),
                                                align_corners=False), (theta,))
    out.sum().backward()
    assert theta.grad.shape == (2, 2, 3)


def test_float32_in_float32_out(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)).astype(np.float32))
    theta = nb.tensor(np.tile(np.eye(2, 3), (2, 1, 1)).astype(np.float32))
    grid = F.affine_grid(theta, (2, 3, 4, 6), False)
    assert grid.dtype == nb.float32
    for mode in MODES:
        assert F.grid_sample(x, grid, mode, align_corners=False).dtype == nb.float32


def test_leaving_align_corners_out_warns_as_pytorch(rng):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)))
    theta = nb.tensor(np.tile(np.eye(2, 3), (2, 1, 1)))
    with pytest.warns(UserWarning, match="align_corners was not given"):
        grid = F.affine_grid(theta, x.size())
    with pytest.warns(UserWarning, match="align_corners was not given"):
        F.grid_sample(x, grid)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        F.grid_sample(x, F.affine_grid(theta, x.size(), False), align_corners=False)


def test_shape_inference_reads_the_grid_and_theta():
    class Transformer(nn.Module):
        def forward(self, x):
            theta = x.new_zeros(x.shape[0], 2, 3) + nb.tensor(np.eye(2, 3), dtype=x.dtype)
            grid = F.affine_grid(theta, (x.shape[0], x.shape[1], 4, 6), align_corners=False)
            return F.grid_sample(x, grid, align_corners=False)

    trace = nb.infer_shapes(Transformer(), (2, 3, 7, 5))
    assert trace.error is None and trace.steps[-1].output_shape == (2, 3, 4, 6)


@pytest.mark.parametrize("call,error,said", [
    (lambda x, g: F.grid_sample(x, g.permute(0, 3, 1, 2), align_corners=False), ShapeError,
     r"grid \(N, H_out, W_out, 2\)[\s\S]*hint: the grid looks channels-first"),
    (lambda x, g: F.grid_sample(x, g[:1], align_corners=False), ShapeError,
     r"one grid per image: the input has 2 and the grid 1"),
    (lambda x, g: F.grid_sample(x, g.float(), align_corners=False), DTypeError,
     r"grid in the input's dtype float64, got float32"),
    (lambda x, g: F.grid_sample(x[..., None], g, align_corners=False), ShapeError,
     r"does not sample volumes"),
    (lambda x, g: F.grid_sample(x[0], g[0], align_corners=False), ShapeError,
     r"expects a 4-D input \(N, C, H, W\), got 3-D"),
    (lambda x, g: F.grid_sample(x[:, :, :0], g, align_corners=False), ShapeError,
     r"at least one row and one column"),
    (lambda x, g: F.grid_sample(x.long(), g.long(), align_corners=False), DTypeError,
     r"floating point input"),
    (lambda x, g: F.grid_sample(x, g, "linear", align_corners=False), InputError,
     r"mode='linear' is not one of 'bilinear', 'nearest', 'bicubic'"),
    (lambda x, g: F.grid_sample(x, g, padding_mode="reflect", align_corners=False),
     InputError, r"padding_mode='reflect' is not one of[\s\S]*called 'reflection'"),
    (lambda x, g: F.grid_sample(x, g, align_corners=1), ArgumentError,
     r"align_corners must be True or False, got 1"),
    (lambda x, g: F.affine_grid(nb.zeros(2, 6, dtype=nb.float64), x.size(), False),
     ShapeError, r"theta of shape \(N, 2, 3\)[\s\S]*theta.view\(-1, 2, 3\)"),
    (lambda x, g: F.affine_grid(nb.zeros(3, 2, 3, dtype=nb.float64), x.size(), False),
     ShapeError, r"one theta per sample: theta has 3 and the size 2"),
    (lambda x, g: F.affine_grid(nb.zeros(2, 2, 3, dtype=nb.int64), x.size(), False),
     InputError, r"floating point theta, got int64"),
    (lambda x, g: F.affine_grid(nb.zeros(2, 2, 3), x.shape[2:], False), InputError,
     r"\(N, C, H, W\) for an image[\s\S]*got 2 numbers"),
    (lambda x, g: F.affine_grid(nb.zeros(2, 2, 3), (2, 3, 0, 5), False), InputError,
     r"size must be positive, got \(2, 3, 0, 5\)"),
    (lambda x, g: F.affine_grid(nb.zeros(2, 2, 3), (2, 3, 7.0, 5), False), ArgumentError,
     r"size must be a tuple of ints"),
    (lambda x, g: F.affine_grid(nb.zeros(2, 2, 3), (2, 3, 4, 5, 6), False), ShapeError,
     r"theta of shape \(N, 3, 4\), one 3×4 matrix per volume"),
])
def test_mistakes_get_nnbook_errors_of_pytorchs_builtin_class(rng, call, error, said):
    x = nb.tensor(rng.standard_normal((2, 3, 7, 5)))
    g = nb.tensor(rng.uniform(-1, 1, (2, 4, 6, 2)))
    with pytest.raises(error, match=said):
        call(x, g)
