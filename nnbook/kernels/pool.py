"""Max, average and adaptive average pooling, faster.

In the planes layout (planes.py) kernel offset (i, j) of every window is one long
slice, so a pool is kh·kw elementwise operations on those slices, and its backward
adds gradients back onto them.  Max pooling records which tap holds each window's
maximum (one small int per output, the first on ties as PyTorch), so its backward
never reads the input again.  Two more layouts for max pooling: windows that tile the
input (stride = kernel, no padding or dilation) are strided views of x itself, and
many channels on small images go channels last, (N, H, W, C), whose backward is one
``np.bincount``.  Threads split the channels of the planes, and the samples of the
other two layouts (but for that bincount).
"""
from __future__ import annotations

import math

import numpy as np

from ..ops.base import register_kernel
from ..ops.onedim import AvgPool1d, MaxPool1d
from ..ops.pool import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d, _batched
from .planes import Planes
from .scratch import scratch, zeros
from .threads import over_batch, over_rows


def _planes(op, shape) -> Planes:
    return Planes(shape, op.kernel, op.stride, op.dilation, op.padding, op.out_size(shape))


def _over_channels(part, shape, taps) -> None:
    """``part(channels)`` for chunks of the channels, side by side in threads."""
    over_batch(part, shape[1], shape[0] * shape[2] * shape[3] * taps)


@register_kernel(MaxPool2d)
class MaxPool2dKernel(MaxPool2d):
    """MaxPool2d by one of three layouts: strided views of x when the windows tile it;
    channels last (N, H, W, C) when the channels outnumber twice the width, so numpy
    runs along rows of C values rather than short image rows; else the planes.  With
    return_indices the places of the recorded taps are the indices; an input holding NaN
    goes to the reference then (the index of a NaN window is its last NaN's)."""

    def forward(self, x):
        if self.return_indices and np.isnan(x).any():
            self.path = "reference"
            return super().forward(x)
        x, self.unbatched = _batched(x)
        (n, c, h, w), (ho, wo) = x.shape, self.out_size(x.shape)
        self.x_shape, taps = x.shape, math.prod(self.kernel)
        self.path = max_pool_path(self, x.shape)
        out = np.empty((n, c, ho, wo), dtype=x.dtype)
        arg_shape = (n, ho, wo, c) if self.path == "channels last" else out.shape
        self.arg = np.empty(arg_shape, dtype=np.min_scalar_type(taps))  # uint8 to 255 taps
        if n == 0:
            pass
        elif self.path == "tiled":
            over_rows(lambda rows: _first_max(_tile_views(self, x[rows]), out[rows],
                                              self.arg[rows]), x)
        elif self.path == "channels last":
            over_batch(lambda samples: _forward_last(self, x, out, samples), n,
                       c * h * w * taps)
        else:
            _over_channels(lambda channels: self._forward_planes(x, out, channels),
                           x.shape, taps)
        if self.return_indices:
            arg = self.arg.transpose(0, 3, 1, 2) if self.path == "channels last" else self.arg
            self.indices = self.places_of(arg.astype(np.intp), (h, w))
            self.indices = self.indices[0] if self.unbatched else self.indices
        return out[0] if self.unbatched else out

    def _forward_planes(self, x, out, channels):
        planes = _planes(self, x[:, channels].shape)
        data = planes.scatter(x[:, channels], fill=-np.inf)     # (phases, c, N·P + slack)
        views = [data[phase, :, off:off + planes.cols] for (_, _, phase, off) in planes.taps]
        best = scratch("out_cols", (planes.c, planes.cols), x.dtype)
        arg = scratch("arg", best.shape, self.arg.dtype)
        _first_max(views, best, arg)
        planes.crop(best, out=out[:, channels])
        planes.crop(arg, out=self.arg[:, channels])

    def backward(self, grad_out):  # dy/dx = 1 at the recorded (first) max: see MaxPool2d
        if self.path == "reference":
            return super().backward(grad_out)
        go = grad_out[None] if self.unbatched else grad_out
        taps = math.prod(self.kernel)
        # Every path writes all of grad_x but tiles that leave rows or columns out.
        everything = self.path != "tiled" or _exact_tiles(self, self.x_shape)
        grad_x = zeros(self.x_shape, go.dtype, skip=everything)
        if go.size == 0:
            grad_x.fill(0)
        elif self.path == "tiled":
            over_rows(lambda rows: _tiled_backward(self, go[rows], self.arg[rows],
                                                   grad_x[rows]), grad_x)
        elif self.path == "channels last":  # (one bincount: faster than two in threads)
            _backward_last(self, go, grad_x)
        else:
            _over_channels(lambda channels: self._backward_planes(go, grad_x, channels),
                           self.x_shape, taps)
        return (grad_x[0] if self.unbatched else grad_x,)

    def _backward_planes(self, go, grad_x, channels):
        planes = _planes(self, grad_x[:, channels].shape)
        go_cols = planes.spread(go[:, channels])                 # (c, N·P)
        arg = planes.spread(self.arg[:, channels], slot="arg")   # 0 in spare columns
        grad_data = planes.zeros(go.dtype)
        for t, (_, _, phase, off) in enumerate(planes.taps):
            grad_data[phase, :, off:off + planes.cols] += _share(go_cols, arg, t)
        planes.gather(grad_data, out=grad_x[:, channels])


def max_pool_path(op, shape) -> str:
    """'tiled', 'channels last' or 'planes': the layout MaxPool2dKernel computes in."""
    if _tiles(op, shape):
        return "tiled"
    return "channels last" if shape[1] >= 2 * shape[3] else "planes"


def _share(go, arg, t):
    """dL/dy where tap t holds the max, 0 elsewhere (a scratch array)."""
    hit = np.equal(arg, t, out=scratch("hit", go.shape, bool))
    # go · hit: a where= mask is several times slower on random masks
    return np.multiply(go, hit, out=scratch("tmp", go.shape, go.dtype))


# -- channels last: x as (N, H, W, C), every tap a (N, H_out, W_out, C) view ------------

def _taps_last(op, xp, out_hw):
    """The taps in window order (row-major), each a view of channels-last xp."""
    (kh, kw), (sh, sw), (dh, dw), (ho, wo) = op.kernel, op.stride, op.dilation, out_hw
    return [xp[:, dh * i:dh * i + sh * (ho - 1) + 1:sh, dw * j:dw * j + sw * (wo - 1) + 1:sw]
            for i in range(kh) for j in range(kw)]


def _padded_last(op, shape, dtype, fill):
    """Scratch (n, H_pad, W_pad, C) for a chunk of samples, all ``fill``; and the pads."""
    ((top, bottom), (left, right)), (n, c, h, w) = op.pads(shape), shape
    return scratch("planes", (n, h + top + bottom, w + left + right, c), dtype, fill), top, left


def _forward_last(op, x, out, samples):
    xs = x[samples]
    (n, c, h, w), out_hw = xs.shape, op.out_size(xs.shape)
    xp, top, left = _padded_last(op, xs.shape, x.dtype, -np.inf)
    xp[:, top:top + h, left:left + w] = xs.transpose(0, 2, 3, 1)
    best = scratch("out_cols", (n,) + out_hw + (c,), x.dtype)
    _first_max(_taps_last(op, xp, out_hw), best, op.arg[samples])
    out[samples] = best.transpose(0, 3, 1, 2)


def _backward_last(op, go, grad_x):
    """Each output's gradient goes to the one input its window's max came from, so with
    that input's place in x known for every output the backward is one ``np.bincount``
    (it sums in float64, in the order of the outputs: the same for any thread count)."""
    arg = op.arg                                             # (n, ho, wo, c): taps
    (n, c, h, w), (ho, wo), taps = grad_x.shape, go.shape[2:], math.prod(op.kernel)
    inside = _max_places(op, (h, w), (ho, wo))               # (ho, wo, taps + 1)
    place = inside.reshape(-1)[np.arange(ho * wo).reshape(ho, wo, 1) * (taps + 1) + arg]
    into = place + (np.arange(n)[:, None, None, None] * c + np.arange(c)) * (h * w)
    g = go.transpose(0, 2, 3, 1)
    lost = place < 0
    if lost.any():  # no input gets it: a NaN window, or a max in the padding (all -inf)
        g, into = np.where(lost, 0, g), np.where(lost, 0, into)
    sums = np.bincount(into.reshape(-1), weights=g.reshape(-1), minlength=n * c * h * w)
    grad_x[...] = sums.reshape(n, c, h, w)


def _max_places(op, hw, out_hw) -> np.ndarray:
    """places[y, x, t]: where in an (h, w) image tap t of output window (y, x) reads, as
    row * w + column; -1 in the padding, and for t = taps (the NaN windows)."""
    (kh, kw), (sh, sw), (dh, dw), (h, w), (ho, wo) = \
        op.kernel, op.stride, op.dilation, hw, out_hw
    ((top, _), (left, _)) = op.pads((1, 1) + hw)
    i, j = np.divmod(np.arange(kh * kw), kw)
    rows = np.arange(ho)[:, None, None] * sh + i * dh - top    # (ho, 1, taps)
    cols = np.arange(wo)[None, :, None] * sw + j * dw - left   # (1, wo, taps)
    places = np.where((rows >= 0) & (rows < h) & (cols >= 0) & (cols < w), rows * w + cols, -1)
    return np.concatenate([places, np.full((ho, wo, 1), -1)], axis=2)


def _tiles(op, shape) -> bool:
    """True when the windows tile the input (no padding or dilation, stride = kernel):
    then every tap is one strided view of x and no padded copy is needed."""
    (kh, kw), (ho, wo) = op.kernel, op.out_size(shape)
    return (op.padding == (0, 0) and op.dilation == (1, 1) and op.stride == (kh, kw)
            and ho * kh <= shape[-2] and wo * kw <= shape[-1])


def _exact_tiles(op, shape) -> bool:
    """Tiles covering every input pixel: a backward writes all of grad_x."""
    (kh, kw), (ho, wo) = op.kernel, op.out_size(shape)
    return _tiles(op, shape) and (ho * kh, wo * kw) == tuple(shape[-2:])


def _tile_views(op, x):
    """The kh·kw taps in window order (row-major), each (N, C, H_out, W_out)."""
    (kh, kw), (ho, wo) = op.kernel, op.out_size(x.shape)
    return [x[:, :, i:ho * kh:kh, j:wo * kw:kw] for i in range(kh) for j in range(kw)]


def _tiled_backward(op, go, arg, grad_x):
    """Each tap writes its own strided slice of grad_x, no overlap: dL/dy goes to the
    tap the forward recorded as the window's max."""
    hit = scratch("hit", go.shape, bool)
    for t, view in enumerate(_tile_views(op, grad_x)):
        np.equal(arg, t, out=hit)
        np.multiply(go, hit, out=view)


def _first_max(views, out, arg):
    """out = the elementwise max of ``views``, and arg = which view holds it (the first
    one on ties, as PyTorch for the taps of a window; len(views), which no view has,
    where the max is NaN: that window's gradient is dropped).

    A later view takes over only where it is strictly larger, and view t is larger
    than every index before it, so arg = max(arg, t · above).
    """
    np.copyto(out, views[0])
    arg.fill(0)
    above = scratch("above", out.shape, bool)
    claim = scratch("claim", out.shape, arg.dtype)
    for t, view in enumerate(views[1:], start=1):
        np.greater(view, out, out=above)
        np.maximum(out, view, out=out)
        np.multiply(above, arg.dtype.type(t), out=claim)
        np.maximum(arg, claim, out=arg)
    arg[np.isnan(out)] = len(views)


@register_kernel(AvgPool2d)
class AvgPool2dKernel(AvgPool2d):
    """AvgPool2d as sums of planes slices, a chunk of channels per thread."""

    def forward(self, x):
        x, self.unbatched = _batched(x)
        self.x_shape = x.shape
        out = np.empty(x.shape[:2] + self.out_size(x.shape), dtype=x.dtype)
        self.divisor_hw = self.divisor(x.shape, x.dtype)
        if x.shape[0]:
            _over_channels(lambda channels: self._forward_planes(x, out, channels),
                           x.shape, math.prod(self.kernel))
        return out[0] if self.unbatched else out

    def _forward_planes(self, x, out, channels):
        planes = _planes(self, x[:, channels].shape)
        data = planes.scatter(x[:, channels])
        total = scratch("out_cols", (planes.c, planes.cols), x.dtype)
        for t, (_, _, phase, off) in enumerate(planes.taps):
            view = data[phase, :, off:off + planes.cols]
            if t:
                total += view
            else:
                np.copyto(total, view)
        chunk = planes.crop(total, out=out[:, channels])
        chunk /= self.divisor_hw

    def backward(self, grad_out):  # dy/dx = 1 / divisor in the window: see AvgPool2d
        go = grad_out[None] if self.unbatched else grad_out
        grad_x = np.zeros(self.x_shape, go.dtype) if go.size == 0 else \
            np.empty(self.x_shape, go.dtype)  # gather writes all of it
        if go.size:
            _over_channels(lambda channels: self._backward_planes(go, grad_x, channels),
                           self.x_shape, math.prod(self.kernel))
        return (grad_x[0] if self.unbatched else grad_x,)

    def _backward_planes(self, go, grad_x, channels):
        planes = _planes(self, grad_x[:, channels].shape)
        go_cols = planes.spread(go[:, channels])                 # (c, N·P)
        ho, wo = planes.out_hw
        go_cols.reshape(planes.c, planes.n, planes.hp, planes.wp)[..., :ho, :wo] /= \
            self.divisor_hw
        grad_data = planes.zeros(go.dtype)
        for _, _, phase, off in planes.taps:
            grad_data[phase, :, off:off + planes.cols] += go_cols
        planes.gather(grad_data, out=grad_x[:, channels])


@register_kernel(AdaptiveAvgPool2d)
class AdaptiveAvgPool2dKernel(AdaptiveAvgPool2d):
    """When the output size divides the input's, the windows are equal and tile the
    input: a reshape and a mean (global average pooling among them).  Other sizes go
    to the reference's two matrix products."""

    def forward(self, x):
        (ho, wo), (h, w) = self.out_size(x.shape), x.shape[-2:]
        self.x_shape, self.tiles = x.shape, h % ho == 0 and w % wo == 0
        if not self.tiles:
            return super().forward(x)
        return x.reshape(*x.shape[:-2], ho, h // ho, wo, w // wo).mean(axis=(-3, -1))

    def backward(self, grad_out):  # dy/dx = 1 / window size: see AdaptiveAvgPool2d
        if not self.tiles:
            return super().backward(grad_out)
        (ho, wo), (h, w) = grad_out.shape[-2:], self.x_shape[-2:]
        share = grad_out / np.asarray((h // ho) * (w // wo), dtype=grad_out.dtype)
        windows = np.broadcast_to(share[..., :, None, :, None],
                                  share.shape[:-2] + (ho, h // ho, wo, w // wo))
        return (windows.reshape(self.x_shape),)


@register_kernel(MaxPool1d)
class MaxPool1dKernel(MaxPool1d, MaxPool2dKernel):
    """MaxPool1d by the MaxPool2d kernel: a signal is an image one pixel high."""


@register_kernel(AvgPool1d)
class AvgPool1dKernel(AvgPool1d, AvgPool2dKernel):
    """AvgPool1d by the AvgPool2d kernel: a signal is an image one pixel high."""
