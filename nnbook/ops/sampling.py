"""Reading an image at any points: PyTorch's ``F.affine_grid`` and ``F.grid_sample``, the
two steps of a spatial transformer.

Points are in normalised coordinates: x runs along the width and y down the height, from
-1 (left, top) to +1 (right, bottom).  With ``align_corners=True``, -1 and +1 are the
centres of the corner pixels; with False (the default) they are the outer edges of the
corner pixels, so a point means the same place at any resolution.

affine_grid(theta, (N, C, H, W)) -> grid (N, H, W, 2): the output pixels' own coordinates,
moved by the 2×3 matrix theta[n]:

    base[h, w]    = (x_w, y_h, 1)                      (H, W, 3), x and y evenly spaced
    grid[n, h, w] = theta[n] · base[h, w]
    dL/dtheta[n]  = Σ_hw dL/dgrid[n, h, w] ⊗ base[h, w]
A volume (N, C, D, H, W) takes a 3×4 theta and gives points (x, y, z).

grid_sample(x (N, C, H, W), grid (N, H_out, W_out, 2)) -> (N, C, H_out, W_out): the image
read at each point p of the grid.  Every mode reads a weighted sum of a few pixels, the
point's taps t:

    out[n, c, p] = Σ_t w[n, p, t] · x[n, c, row[n, p, t], col[n, p, t]]

* 'nearest'   one tap, the nearest pixel (a half rounded to even, as PyTorch rounds);
* 'bilinear'  four taps, the corners of the pixel square around the point, weighted
              (1 - tx)(1 - ty), tx (1 - ty), (1 - tx) ty and tx ty, where (tx, ty) is the
              point's offset from the top-left corner;
* 'bicubic'   sixteen taps, the 4×4 pixels around the point, weighted
              cubic(tx - i) · cubic(ty - j) with F.interpolate's cubic kernel.
A tap outside the image reads 0 (padding_mode='zeros').  With 'border' a point outside
is first moved to the nearest border, with 'reflection' mirrored back in ('bicubic'
moves each of its taps instead).

The derivatives (the pixels a point reads do not move with it; the weights do):
    dL/dx[n, c, row, col] += w · dL/dout[n, c, p]    summed over every tap that reads it
    dL/dgrid[n, p]         = Σ_c dL/dout[n, c, p] · Σ_t dw/dpoint · x[n, c, row, col]
'nearest' has weights that never change, so its grid gets a zero gradient.
"""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, DTypeError, InputError, fmt_shape
from .base import Op, check_float, check_ndim, is_int
from .interpolate import CUBIC_A, cubic

MODES = ("bilinear", "nearest", "bicubic")
PADDING_MODES = ("zeros", "border", "reflection")


def check_align_corners(op: Op, align_corners) -> bool:
    """None (the default, False) or a bool; anything else is refused, as PyTorch does."""
    if align_corners is None or isinstance(align_corners, (bool, np.bool_)):
        return bool(align_corners)
    op.fail(f"align_corners must be True or False, got {align_corners!r}.", cls=ArgumentError,
            hint="align_corners=False (the default) puts -1 and 1 on the image's outer edges.")


# ---------------------------------------------------------------------------
# Coordinates: normalised -> pixels, and what the padding does to them
# ---------------------------------------------------------------------------

def unnormalise(coord, size: int, align_corners: bool):
    """Normalised coordinates -> positions in pixels, and d position / d coord."""
    if align_corners:  # -1 and 1 at the centres of pixels 0 and size - 1
        return (coord + 1) / 2 * (size - 1), (size - 1) / 2
    return ((coord + 1) * size - 1) / 2, size / 2  # at -0.5 and size - 0.5, the outer edges


def reflect(pos, low: float, high: float):
    """pos folded into [low, high] as mirrors at both ends would (as often as needed), and
    d folded / d pos: +1 or -1, each fold turns the direction round."""
    span = high - low
    if span == 0:
        return np.zeros_like(pos), np.zeros_like(pos)
    dist = pos - low
    direction = np.where(dist < 0, -1, 1).astype(pos.dtype)
    dist = np.abs(dist)
    folds, extra = np.floor(dist / span), np.fmod(dist, span)
    even = folds % 2 == 0
    return np.where(even, extra + low, span - extra + low), np.where(even, direction, -direction)


def padded(pos, size: int, align_corners: bool, padding_mode: str):
    """Positions moved into the image ('border', 'reflection') or left ('zeros'), and the
    derivative of the move.  Clipping has slope 1 strictly inside and 0 elsewhere: PyTorch
    counts the border itself as outside."""
    slope = np.ones_like(pos)
    if padding_mode == "zeros":
        return pos, slope
    if padding_mode == "reflection":  # mirrors at the corner pixels' centres, or edges
        low, high = (0, size - 1) if align_corners else (-0.5, size - 0.5)
        pos, flip = reflect(pos, low, high)
        slope = slope * flip
    inside = (pos > 0) & (pos < size - 1)
    return np.clip(pos, 0, size - 1), slope * inside


# ---------------------------------------------------------------------------
# The taps of each mode: (rows, cols, weights, dw/dpx, dw/dpy), each (..., T)
# ---------------------------------------------------------------------------

def nearest_taps(px, py):
    """One tap: the nearest pixel (np.rint rounds halves to even, as PyTorch's nearbyint)."""
    one, zero = np.ones_like(px)[..., None], np.zeros_like(px)[..., None]
    return np.rint(py)[..., None], np.rint(px)[..., None], one, zero, zero


def bilinear_taps(px, py):
    """Four taps: top-left, top-right, bottom-left, bottom-right of the point."""
    left, top = np.floor(px), np.floor(py)
    to_left, to_right = left + 1 - px, px - left   # the weights of the left and right column
    to_top, to_bottom = top + 1 - py, py - top     # and of the top and bottom row
    rows = np.stack([top, top, top + 1, top + 1], axis=-1)
    cols = np.stack([left, left + 1, left, left + 1], axis=-1)
    weights = np.stack([to_left * to_top, to_right * to_top,
                        to_left * to_bottom, to_right * to_bottom], axis=-1)
    d_px = np.stack([-to_top, to_top, -to_bottom, to_bottom], axis=-1)
    d_py = np.stack([-to_left, -to_right, to_left, to_right], axis=-1)
    return rows, cols, weights, d_px, d_py


def cubic_slope(d):
    """d cubic(d) / dd: the slope of the cubic convolution kernel (0 past |d| = 2)."""
    d, a, sign = np.abs(d), CUBIC_A, np.sign(d)
    near = (3 * (a + 2) * d - 2 * (a + 3)) * d        # |d| <= 1
    far = (3 * a * d - 10 * a) * d + 8 * a            # 1 < |d| < 2
    return sign * np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def bicubic_taps(px, py):
    """Sixteen taps: rows top - 1 ... top + 2 times columns left - 1 ... left + 2."""
    left, top = np.floor(px)[..., None], np.floor(py)[..., None]
    k = np.arange(-1, 3).astype(px.dtype)
    tx, ty = px[..., None] - left, py[..., None] - top            # (..., 1), in [0, 1)
    wx, wy, dwx, dwy = cubic(tx - k), cubic(ty - k), cubic_slope(tx - k), cubic_slope(ty - k)
    grid = (*px.shape, 16)

    def outer(along_y, along_x):  # (..., 4) and (..., 4) -> (..., 16), row-major
        return (along_y[..., :, None] * along_x[..., None, :]).reshape(grid)

    rows = np.broadcast_to((top + k)[..., :, None], (*px.shape, 4, 4)).reshape(grid)
    cols = np.broadcast_to((left + k)[..., None, :], (*px.shape, 4, 4)).reshape(grid)
    return rows, cols, outer(wy, wx), outer(wy, dwx), outer(dwy, wx)


TAPS = {"nearest": nearest_taps, "bilinear": bilinear_taps, "bicubic": bicubic_taps}


def gather(x, flat):
    """x[n, c, taps] for every tap: x (N, C, H, W), flat (N, P, T) -> (N, C, P, T)."""
    n, c, h, w = x.shape
    taps = flat.shape[1] * flat.shape[2]  # (sizes spelt out: any of them may be 0)
    picked = np.take_along_axis(x.reshape(n, c, h * w), flat.reshape(n, 1, taps), axis=2)
    return picked.reshape(n, c, *flat.shape[1:])


def scatter(per_tap, flat, shape):
    """Each pixel's sum of what the taps that read it got: (N, C, P, T) -> (N, C, H, W)."""
    n, c, h, w = shape
    taps = flat.shape[1] * flat.shape[2]
    planes = np.zeros((n, c, h * w), dtype=per_tap.dtype)
    at = (np.arange(n)[:, None, None], np.arange(c)[None, :, None], flat.reshape(n, 1, taps))
    np.add.at(planes, at, per_tap.reshape(n, c, taps))
    return planes.reshape(shape)


class GridSample(Op):
    """out[n, c, p] = Σ_t w · x[n, c, tap]: the image read at the grid's points."""

    name = "grid_sample"

    def __init__(self, mode="bilinear", padding_mode="zeros", align_corners=None):
        if mode not in MODES:
            self.fail(f"mode={mode!r} is not one of 'bilinear', 'nearest', 'bicubic'.",
                      cls=InputError, hint="'bilinear' (the default) blends the four "
                      "pixels around each point; 'nearest' takes the closest one.")
        if padding_mode not in PADDING_MODES:
            self.fail(f"padding_mode={padding_mode!r} is not one of 'zeros', 'border', "
                      "'reflection'.", cls=InputError, hint="'zeros' (the default) reads 0 "
                      "outside the image; F.pad's 'reflect' is called 'reflection' here.")
        self.mode, self.padding_mode = mode, padding_mode
        self.align_corners = check_align_corners(self, align_corners)

    def infer(self, x, grid):
        check_float(self, x)
        values = f"input {fmt_shape(x.shape)}   grid {fmt_shape(grid.shape)}"
        if x.ndim == 5:
            self.fail("expects a 4-D input (N, C, H, W); nnbook does not sample volumes "
                      "(N, C, D, H, W).", values=values,
                      hint="sample each depth slice as an image: fold D into the batch.")
        check_ndim(self, x, (4,), "input", "(N, C, H, W)")
        if grid.dtype != x.dtype:
            self.fail(f"expects the grid in the input's dtype {x.dtype.name}, got "
                      f"{grid.dtype.name}.", values=values, cls=DTypeError,
                      hint="convert one of them: grid = grid.to(input.dtype).")
        if grid.ndim != 4 or grid.shape[-1] != 2:
            channels_first = grid.ndim == 4 and grid.shape[1] == 2
            self.fail("expects a grid (N, H_out, W_out, 2): an (x, y) point per output "
                      "pixel.", values=values,
                      hint="the grid looks channels-first (N, 2, H_out, W_out): "
                      "grid.permute(0, 2, 3, 1)." if channels_first else
                      "F.affine_grid(theta, size) makes one from theta (N, 2, 3).")
        if grid.shape[0] != x.shape[0]:
            self.fail(f"expects one grid per image: the input has {x.shape[0]} and the grid "
                      f"{grid.shape[0]}.", values=values,
                      hint="build the grid for this batch: F.affine_grid(theta, x.size()) "
                      "with one theta per image.")
        if min(x.shape[2:]) < 1:
            self.fail("expects an input with at least one row and one column.",
                      values=values, hint="check the layer before this one.")
        return (x.shape[0], x.shape[1], grid.shape[1], grid.shape[2])

    def _pixels(self, coord, size: int):
        """Grid coordinates -> the pixel positions their taps are found around, and
        d position / d coordinate."""
        pos, scale = unnormalise(coord, size, self.align_corners)
        padding = "zeros" if self.mode == "bicubic" else self.padding_mode  # (moves its taps)
        pos, slope = padded(pos, size, self.align_corners, padding)
        return pos, slope * scale

    def _taps(self, grid, h: int, w: int):
        """Where each point reads, and how its taps' weights move with it."""
        n, points = grid.shape[0], grid.shape[1] * grid.shape[2]
        mode, padding = self.mode, self.padding_mode
        px, self.slope_x = self._pixels(grid[..., 0].reshape(n, points), w)   # (N, P)
        py, self.slope_y = self._pixels(grid[..., 1].reshape(n, points), h)
        rows, cols, weights, d_px, d_py = TAPS[mode](px, py)
        if mode == "bicubic":  # each tap moved into the image on its own
            rows = padded(rows, h, self.align_corners, padding)[0]
            cols = padded(cols, w, self.align_corners, padding)[0]
        inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)  # (NaN: outside)
        self.flat = np.where(inside, rows * w + cols, 0).astype(np.intp)
        return weights * inside, d_px * inside, d_py * inside

    def forward(self, x, grid):
        n, c, h, w = x.shape
        self.shape = x.shape
        self.weights, self.d_px, self.d_py = self._taps(grid, h, w)   # (N, P, T)
        values = gather(x, self.flat)                                  # (N, C, P, T)
        if self.needs_input_grad[1]:
            self.values = values
        out = np.einsum("ncpt,npt->ncp", values, self.weights)
        return out.reshape(n, c, *grid.shape[1:3])

    def backward(self, grad_out):
        n, c, points = *self.shape[:2], self.weights.shape[1]
        g = grad_out.reshape(n, c, points)                             # (N, C, P)
        grad_x = grad_grid = None
        if self.needs_input_grad[0]:  # x[tap] got weight w: dL/dx[tap] += w · dL/dout
            grad_x = scatter(g[..., None] * self.weights[:, None], self.flat, self.shape)
        if self.needs_input_grad[1]:  # dL/dpx = Σ_c dL/dout · Σ_t dw/dpx · x[tap], times dpx/dgrid
            per_tap = np.einsum("ncp,ncpt->npt", g, self.values)
            grad_gx = (per_tap * self.d_px).sum(-1) * self.slope_x
            grad_gy = (per_tap * self.d_py).sum(-1) * self.slope_y
            grad_grid = np.stack([grad_gx, grad_gy], axis=-1).reshape(n, *grad_out.shape[2:], 2)
        return grad_x, grad_grid


# ---------------------------------------------------------------------------
# affine_grid
# ---------------------------------------------------------------------------

def evenly_spaced(steps: int, align_corners: bool, dtype) -> np.ndarray:
    """The normalised coordinates of ``steps`` pixel centres along one axis."""
    if steps == 1:
        return np.zeros(1, dtype)  # a single pixel sits in the middle
    points = np.linspace(-1, 1, steps, dtype=dtype)
    return points if align_corners else points * (steps - 1) / steps


def base_grid(spatial, align_corners: bool, dtype) -> np.ndarray:
    """(*spatial, k + 1): each output pixel's (x, y[, z], 1), x along the last axis."""
    axes = [evenly_spaced(s, align_corners, dtype) for s in spatial]
    coords = np.meshgrid(*axes, indexing="ij")                 # (D,) H, W order
    return np.stack([*coords[::-1], np.ones(tuple(spatial), dtype)], axis=-1)


class AffineGrid(Op):
    """grid[n, point] = theta[n] · (x, y[, z], 1): every output pixel's point, moved."""

    name = "affine_grid"

    def __init__(self, size, align_corners=None):
        self.align_corners = check_align_corners(self, align_corners)
        if not isinstance(size, (tuple, list)) or not all(map(is_int, size)):
            self.fail(f"size must be a tuple of ints, the output's (N, C, H, W), got "
                      f"{size!r}.", cls=ArgumentError,
                      hint="pass the size of the image to sample: x.size().")
        self.size = tuple(int(s) for s in size)
        if len(self.size) not in (4, 5):
            self.fail(f"size must be (N, C, H, W) for an image or (N, C, D, H, W) for a "
                      f"volume, got {len(self.size)} numbers: {self.size}.", cls=InputError,
                      hint="pass the whole size, batch and channels too: x.size().")
        unit = self.align_corners and min(self.size[2:]) == 1  # (PyTorch lets it through)
        if min(self.size) < 1 and not unit:
            self.fail(f"size must be positive, got {self.size}.", cls=InputError,
                      hint="pass the size of the image to sample: x.size().")

    def infer(self, theta):
        k = len(self.size) - 2  # 2 for an image, 3 for a volume
        values = f"theta {fmt_shape(theta.shape)}   size={self.size}"
        if theta.dtype.kind != "f":  # (PyTorch: a ValueError)
            self.fail(f"expects a floating point theta, got {theta.dtype.name}.",
                      values=values, cls=InputError, hint="convert it first: theta.float().")
        if theta.ndim != 3 or tuple(theta.shape[1:]) != (k, k + 1):
            flat = theta.ndim == 2 and theta.shape[1] == k * (k + 1)
            view = f"theta = theta.view(-1, {k}, {k + 1})"
            self.fail(f"expects theta of shape (N, {k}, {k + 1}), one {k}×{k + 1} matrix per "
                      f"{'image' if k == 2 else 'volume'}, got {fmt_shape(theta.shape)}.",
                      values=values, hint=f"reshape it: {view}." if flat else
                      f"a localisation net ends in Linear(..., {k * (k + 1)}); then {view}.")
        if theta.shape[0] != self.size[0]:
            self.fail(f"expects one theta per sample: theta has {theta.shape[0]} and the size "
                      f"{self.size[0]}.", values=values,
                      hint="pass the size of this batch: F.affine_grid(theta, x.size()).")
        return (self.size[0], *self.size[2:], k)

    def forward(self, theta):
        n, k = theta.shape[0], theta.shape[1]
        self.base = base_grid(self.size[2:], self.align_corners, theta.dtype).reshape(-1, k + 1)
        grid = self.base @ np.swapaxes(theta, 1, 2)                    # (N, P, k)
        return grid.reshape(n, *self.size[2:], k)

    # grid[n, p] = theta[n] base[p];  dL/dtheta[n] = Σ_p dL/dgrid[n, p] base[p]ᵀ
    def backward(self, grad_out):
        n, k = grad_out.shape[0], grad_out.shape[-1]
        return (np.swapaxes(grad_out.reshape(n, len(self.base), k), 1, 2) @ self.base,)
