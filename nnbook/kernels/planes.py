"""Planes: a layout of a padded (N, C, H, W) batch in which every kernel offset is one slice;
and the Geometry of a convolution call, which makes them for blocks of samples.

numpy is several times faster on long rows than on the short image rows of a
strided 4-D view.  In the planes layout each kernel offset (i, j) of every window
at once is one long contiguous slice, so the depthwise convolution and pooling
kernels compute on those slices directly, and im2col copies them into columns.
"""
from __future__ import annotations

import numpy as np

from .scratch import scratch, zeros
from .threads import over_blocks


class Planes:
    """A padded (N, C, H, W) batch stored so that each kernel offset is one slice.

    Stride: the padded input splits into s_h·s_w phase images xp[a::s_h, b::s_w].
    Kernel offset (i, j) reads phase ((d_h·i) % s_h, (d_w·j) % s_w) shifted by
    ((d_h·i) // s_h, (d_w·j) // s_w), so every offset becomes a stride-1 shift
    (with stride 1 there is one phase, the padded input itself).

    Flat: each (Hp, Wp) phase image is stored as one row of P = Hp·Wp, the
    samples of a channel one after the other::

        data[phase, c, n·P + r·Wp + q] = phase image (r, q) of sample n, channel c

    Output pixel (h, w) of sample n is column n·P + h·Wp + w, and kernel offset
    (i, j) is the slice data[phase, :, off : off + N·P].  Columns with h ≥ H_out
    or w ≥ W_out are spare: they are computed and dropped (gradients put zeros
    there), which costs Hp·Wp / (H_out·W_out) more work and buys rows of N·P.

    Strips: the taps sharing a phase and a column shift rj; ``strips[(phase, rj)]``
    lists their (tap index, row shift ri).  Columns rj .. rj + W_out − 1 of every
    row of that phase, copied out once, hold every tap of the strip as a run of
    H_out·W_out pixels per sample (how im2col avoids spare columns).

    The arrays made here are scratch (see ``scratch``) except those of crop and
    gather, which are returned to the user.
    """

    def __init__(self, in_shape, kernel, stride, dilation, top_left, out_hw):
        self.n, self.c, self.h, self.w = in_shape
        self.stride, self.top_left, self.out_hw = stride, top_left, out_hw
        # Reach of the kernel beyond the first phase pixel, in phase pixels.
        reach = [d * (k - 1) // s for k, s, d in zip(kernel, stride, dilation)]
        self.hp, self.wp = out_hw[0] + reach[0], out_hw[1] + reach[1]
        self.cols = self.n * self.hp * self.wp                  # N·P
        self.slack = reach[0] * self.wp + reach[1]              # the largest offset
        self.phases = stride[0] * stride[1]
        # Does every input pixel land in a phase image?  (Not when the last rows
        # or columns feed no window; their gradient is then zero.)
        self.covered = all(_covers(*axis) for axis in zip(
            top_left, stride, (self.h, self.w), (self.hp, self.wp)))
        self.taps = []                                          # (i, j, phase, offset)
        self.strips = {}                     # (phase, column shift) -> [(tap, row shift)]
        for i in range(kernel[0]):
            (ri, a) = divmod(dilation[0] * i, stride[0])
            for j in range(kernel[1]):
                (rj, b) = divmod(dilation[1] * j, stride[1])
                phase = a * stride[1] + b
                self.strips.setdefault((phase, rj), []).append((len(self.taps), ri))
                self.taps.append((i, j, phase, ri * self.wp + rj))

    def _phase_parts(self):
        """For each phase: (phase, pixels of x it holds, where they go in the phase image)."""
        (sh, sw), (top, left) = self.stride, self.top_left
        for a in range(sh):
            rows = _phase_range(a, top, sh, self.h, self.hp)
            for b in range(sw):
                cols = _phase_range(b, left, sw, self.w, self.wp)
                if rows and cols:
                    yield a * sw + b, (rows[0], cols[0]), (rows[1], cols[1])

    def scatter(self, x, fill=0.0):
        """x (N, C, H, W) -> scratch data (phases, C, N·P + slack), ``fill`` where x isn't."""
        data = scratch("planes", (self.phases, self.c, self.cols + self.slack), x.dtype, fill)
        images = self.images(data)
        for phase, src, dst in self._phase_parts():
            images[phase][(..., *dst)] = x[(..., *src)].transpose(1, 0, 2, 3)
        return data

    def images(self, data):
        """data as (phases, C, N, Hp, Wp) phase images (a view)."""
        return data[:, :, :self.cols].reshape(self.phases, self.c, self.n, self.hp, self.wp)

    def zeros(self, dtype):
        """Scratch planes of zeros, to add gradients into."""
        return scratch("grad_planes", (self.phases, self.c, self.cols + self.slack), dtype, 0)

    def gather(self, data, out=None):
        """The adjoint of scatter, for gradients: data -> (N, C, H, W), a new array
        (or ``out``, all of it written)."""
        images = self.images(data)
        if out is None:
            x = zeros((self.n, self.c, self.h, self.w), data.dtype, self.covered)
        else:
            x = out
            if not self.covered:
                x.fill(0)
        for phase, src, dst in self._phase_parts():
            x[(..., *src)] = images[phase][(..., *dst)].transpose(1, 0, 2, 3)
        return x

    def crop(self, cols, out=None):
        """cols (K, N·P) in output columns -> (N, K, H_out, W_out), a new array (or
        ``out``, all of it written)."""
        ho, wo = self.out_hw
        grid = cols.reshape(-1, self.n, self.hp, self.wp)[:, :, :ho, :wo]
        if out is None:
            out = np.empty((self.n, grid.shape[0], ho, wo), dtype=cols.dtype)
        out[...] = grid.transpose(1, 0, 2, 3)  # a copy even when cols is scratch
        return out

    def spread(self, y, slot="grad_out"):
        """The adjoint of crop: y (N, K, H_out, W_out) -> scratch (K, N·P), 0 in spare columns."""
        ho, wo = self.out_hw
        out = scratch(slot, (y.shape[1], self.cols), y.dtype, 0)
        out.reshape(-1, self.n, self.hp, self.wp)[:, :, :ho, :wo] = y.transpose(1, 0, 2, 3)
        return out


def _covers(pad, stride, size, phase_size) -> bool:
    """Does every input pixel along one axis land in one of the phase images?"""
    parts = [_phase_range(a, pad, stride, size, phase_size) for a in range(stride)]
    return sum(p[1].stop - p[1].start for p in parts if p) == size


def _phase_range(a, pad, stride, size, phase_size):
    """Input pixels k, k + s, ... landing in phase a, and their phase pixels (or None)."""
    first = (a - pad) % stride                       # first input pixel with (k + pad) % s == a
    start = (first + pad) // stride                  # its pixel in the phase image
    count = min(-(-(size - first) // stride), phase_size - start)
    if count <= 0:
        return None
    return (slice(first, first + stride * (count - 1) + 1, stride), slice(start, start + count))



class Geometry:
    """Everything about one convolution call but the data."""

    __slots__ = ("groups", "kernel", "stride", "dilation", "pads", "out_hw")

    def __init__(self, groups, kernel, stride, dilation, pads, out_hw):
        self.groups, self.kernel = groups, tuple(kernel)        # kernel: (kh, kw)
        self.stride, self.dilation = stride, dilation
        self.pads, self.out_hw = pads, out_hw  # ((top, bottom), (left, right)), (H_out, W_out)

    def planes(self, x_shape) -> Planes:
        """The planes layout of an (N, C, H, W) input, or of a block of its samples."""
        (top, _), (left, _) = self.pads
        return Planes(x_shape, self.kernel, self.stride, self.dilation, (top, left),
                      self.out_hw)

    def over_blocks(self, part, x_shape, block: int, work_per_sample: int) -> int:
        """``part(block index, samples, planes)`` for blocks of ``block`` samples, side by
        side in threads (threads.over_blocks); returns the number of blocks."""
        planes_of = {}  # blocks of one size share their layout

        def run(index, samples):
            shape = (samples.stop - samples.start,) + tuple(x_shape[1:])
            if shape not in planes_of:
                planes_of[shape] = self.planes(shape)
            part(index, samples, planes_of[shape])

        return over_blocks(run, x_shape[0], block, work_per_sample)
