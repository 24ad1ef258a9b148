"""Max and average pooling, faster: kh·kw elementwise passes over the planes' slices.

In the planes layout (planes.py) kernel offset (i, j) of every window is one long
slice, so a pool is kh·kw elementwise operations on those slices, and its
backward adds gradients back onto them.  Max pooling records which tap holds each
window's maximum (one small int per output, the first on ties as PyTorch), so its
backward never reads the input again.  Windows that tile the input (stride =
kernel, no padding or dilation) need no padded copy at all: each tap is a strided
view of x.  Channels are independent: threads split them, or the samples when the
windows tile.
"""
from __future__ import annotations

import math

import numpy as np

from ..ops.base import register_kernel
from ..ops.pool import AvgPool2d, MaxPool2d, _batched
from .planes import Planes
from .scratch import scratch, zeros
from .threads import over_batch, over_rows


def _planes(op, shape) -> Planes:
    return Planes(shape, op.kernel, op.stride, op.dilation, op.padding, op.out_hw(shape))


def _over_channels(part, shape, taps) -> None:
    """``part(channels)`` for chunks of the channels, side by side in threads."""
    over_batch(part, shape[1], shape[0] * shape[2] * shape[3] * taps)


@register_kernel(MaxPool2d)
class MaxPool2dKernel(MaxPool2d):
    """MaxPool2d over planes slices, or strided views when the windows tile."""

    def forward(self, x):
        x, self.unbatched = _batched(x)
        self.x_shape, out_hw = x.shape, self.out_hw(x.shape)
        self.tiled = _tiles(self, x.shape)
        taps = math.prod(self.kernel)
        out = np.empty(x.shape[:2] + out_hw, dtype=x.dtype)
        self.arg = np.empty(out.shape, dtype=np.min_scalar_type(taps))  # uint8 to 255 taps
        if x.shape[0] == 0:
            return out[0] if self.unbatched else out
        if self.tiled:
            over_rows(lambda rows: _first_max(_tile_views(self, x[rows]), out[rows],
                                              self.arg[rows]), x)
        else:
            _over_channels(lambda channels: self._forward_planes(x, out, channels),
                           x.shape, taps)
        self.arg[np.isnan(out)] = taps  # a NaN window: an index no tap has, no gradient
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
        go = grad_out[None] if self.unbatched else grad_out
        # Every path writes all of grad_x but tiles that leave rows or columns out.
        everything = not self.tiled or _exact_tiles(self, self.x_shape)
        grad_x = zeros(self.x_shape, go.dtype, skip=everything)
        if go.size == 0:
            grad_x.fill(0)
        elif self.tiled:
            over_rows(lambda rows: _tiled_backward(self, go[rows], self.arg[rows],
                                                   grad_x[rows]), grad_x)
        else:
            _over_channels(lambda channels: self._backward_planes(go, grad_x, channels),
                           self.x_shape, math.prod(self.kernel))
        return (grad_x[0] if self.unbatched else grad_x,)

    def _backward_planes(self, go, grad_x, channels):
        planes = _planes(self, grad_x[:, channels].shape)
        go_cols = planes.spread(go[:, channels])                 # (c, N·P)
        arg = planes.spread(self.arg[:, channels], slot="arg")   # 0 in spare columns
        grad_data = planes.zeros(go.dtype)
        hit = scratch("hit", go_cols.shape, bool)
        share = scratch("tmp", go_cols.shape, go.dtype)
        for t, (_, _, phase, off) in enumerate(planes.taps):
            np.equal(arg, t, out=hit)                            # tap t holds the max
            # go · hit, then add: a where= mask is several times slower on random masks
            np.multiply(go_cols, hit, out=share)
            grad_data[phase, :, off:off + planes.cols] += share
        planes.gather(grad_data, out=grad_x[:, channels])


def _tiles(op, shape) -> bool:
    """True when the windows tile the input (no padding or dilation, stride = kernel):
    then every tap is one strided view of x and no padded copy is needed."""
    (kh, kw), (ho, wo) = op.kernel, op.out_hw(shape)
    return (op.padding == (0, 0) and op.dilation == (1, 1) and op.stride == (kh, kw)
            and ho * kh <= shape[-2] and wo * kw <= shape[-1])


def _exact_tiles(op, shape) -> bool:
    """Tiles covering every input pixel: a backward writes all of grad_x."""
    (kh, kw), (ho, wo) = op.kernel, op.out_hw(shape)
    return _tiles(op, shape) and (ho * kh, wo * kw) == tuple(shape[-2:])


def _tile_views(op, x):
    """The kh·kw taps in window order (row-major), each (N, C, H_out, W_out)."""
    (kh, kw), (ho, wo) = op.kernel, op.out_hw(x.shape)
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
    one on ties, as PyTorch for the taps of a window).

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


@register_kernel(AvgPool2d)
class AvgPool2dKernel(AvgPool2d):
    """AvgPool2d as sums of planes slices, a chunk of channels per thread."""

    def forward(self, x):
        x, self.unbatched = _batched(x)
        self.x_shape = x.shape
        out = np.empty(x.shape[:2] + self.out_hw(x.shape), dtype=x.dtype)
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
