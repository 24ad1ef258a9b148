"""2-D convolution (PyTorch's ``F.conv2d``): a shape rule, a forward and a backward.

With the input zero-padded to ``xp`` and ``g(o)`` the input channels of output o's group::

    y[n, o, h, w] = b[o] + sum_{c in g(o), i, j}
                           W[o, c, i, j] · xp[n, c, s_h·h + d_h·i, s_w·w + d_w·j]

Every output pixel is a dot product of the weight with one window of the input.
Three ways of computing it are chosen per call; they give the same numbers:

  pointwise  1×1 kernel, no padding: GEMMs over channels, no windows at all
  depthwise  groups == C_in == C_out: kh·kw broadcast multiply-adds over shifted views
  im2col     everything else: copy the window views into columns, then GEMMs
             (with groups, one GEMM per group; depth multipliers >= 2 land here)

The last two work on :class:`Planes`, a layout in which every kernel offset is
one long contiguous slice (numpy is several times faster on long rows than on
the short image rows of a strided 4-D view).  Depthwise and pooling compute on
those slices directly; im2col copies them into columns of real output pixels
only, because there the GEMMs cost most and the planes' spare columns would
add to them.

Inputs are (N, C_in, H, W), or (C_in, H, W) for one unbatched sample as in
PyTorch; the weight is (C_out, C_in/groups, kh, kw) and the bias (C_out,).
"""
from __future__ import annotations

import math
import threading

import numpy as np

from ..errors import DTypeError, InputError, fmt_shape
from .base import Op, check_ndim
from .threads import over_batch

MINUS, DOT = "\u2212", "\u00b7"  # − and ·, for the formulas shown to students


# ---------------------------------------------------------------------------
# Arguments, shared with pool.py
# ---------------------------------------------------------------------------

def is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def as_pair(op: Op, value, name: str) -> tuple:
    """An int or an (h, w) pair of ints as a pair; anything else is refused.

    Only the type is checked here; the shape rule checks the values, where it
    can show them next to the input's shape.
    """
    if is_int(value):
        return (int(value), int(value))
    if isinstance(value, (tuple, list)) and len(value) == 2 and all(map(is_int, value)):
        return (int(value[0]), int(value[1]))
    op.fail(f"{name} must be an int or a pair of ints (h, w), got {value!r}.",
            hint=f"e.g. {name}=2 or {name}=(2, 1).", cls=InputError)


def fmt_pair(name: str, pair) -> str:
    return f"{name}={pair[0]}" if pair[0] == pair[1] else f"{name}=({pair[0]}, {pair[1]})"


def span(kernel: int, dilation: int) -> int:
    """Input pixels one dilated kernel row covers: d·(k − 1) + 1."""
    return dilation * (kernel - 1) + 1


# ---------------------------------------------------------------------------
# Scratch arrays, reused from call to call
# ---------------------------------------------------------------------------
# Writing a freshly allocated large array costs a page fault (and the kernel
# zeroing the page) every 4 KiB; for a convolution that was ~40% of its time.
# Arrays that never leave one call of forward or backward (columns, planes,
# temporaries) therefore come from here, one buffer per named slot and dtype,
# kept per thread.  Two arrays alive at the same time must use different slots,
# and nothing from here may be returned or saved on the op.
_workspace = threading.local()


def scratch(slot: str, shape, dtype, fill=None) -> np.ndarray:
    """A reusable array of ``shape`` (contents undefined unless ``fill`` is given)."""
    buffers = getattr(_workspace, "buffers", None)
    if buffers is None:
        buffers = _workspace.buffers = {}
    dtype, size = np.dtype(dtype), math.prod(shape)
    buffer = buffers.get((slot, dtype))
    if buffer is None or buffer.size < size:
        buffer = buffers[(slot, dtype)] = np.empty(size, dtype=dtype)
    array = buffer[:size].reshape(shape)
    if fill is not None:
        array.fill(fill)
    return array


def release_scratch() -> None:
    """Free this thread's scratch arrays (they are otherwise kept for the next call)."""
    _workspace.buffers = {}


def zeros(shape, dtype, skip=False) -> np.ndarray:
    """A new array of zeros (``skip``: the caller overwrites all of it anyway).

    np.empty + fill rather than np.zeros: glibc serves large calloc requests with
    fresh pages, and first touches of fresh pages are what ``scratch`` avoids.
    """
    out = np.empty(shape, dtype=dtype)
    if not skip:
        out.fill(0)
    return out


# ---------------------------------------------------------------------------
# Planes: the layout every kernel offset is one slice of
# ---------------------------------------------------------------------------

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

    def crop(self, out):
        """out (K, N·P) in output columns -> (N, K, H_out, W_out), a new array."""
        ho, wo = self.out_hw
        grid = out.reshape(-1, self.n, self.hp, self.wp)[:, :, :ho, :wo]
        result = np.empty((self.n, grid.shape[0], ho, wo), dtype=out.dtype)
        result[...] = grid.transpose(1, 0, 2, 3)  # a copy even when out is scratch
        return result

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


# ---------------------------------------------------------------------------
# The op
# ---------------------------------------------------------------------------

class Conv2d(Op):
    """y = conv2d(x, W) + b, with stride, padding, dilation and groups as in PyTorch.

    ``padding`` is an int, an (h, w) pair, or "valid" (none) or "same" (output as
    large as the input, stride 1 only; an odd total pads the extra one at the
    end), as in ``torch.nn.functional.conv2d``.
    """

    name = "conv2d"

    def __init__(self, stride=1, padding=0, dilation=1, groups=1):
        self.stride = as_pair(self, stride, "stride")
        self.dilation = as_pair(self, dilation, "dilation")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                self.fail(f"padding must be an int, a pair, 'same' or 'valid', got {padding!r}.",
                          hint="e.g. padding=1, padding=(1, 0) or padding='same'.",
                          cls=InputError)
            self.padding = padding
        else:
            self.padding = as_pair(self, padding, "padding")
        if not is_int(groups):
            self.fail(f"groups must be an int, got {groups!r}.", cls=InputError,
                      hint="groups=1 is an ordinary convolution; groups=C_in is depthwise.")
        self.groups = int(groups)

    # -- shape rule: reads only .shape, .dtype and .ndim ----------------------------
    def infer(self, x, weight, bias=None):
        check_ndim(self, x, (3, 4), "input", "(N, C_in, H, W)")
        check_ndim(self, weight, (4,), "weight", "(C_out, C_in/groups, kh, kw)")
        self._check_dtypes(x, weight, bias)
        self._check_hyper(x, weight)
        self._check_channels(x, weight)
        c_out = weight.shape[0]
        if bias is not None and tuple(bias.shape) != (c_out,):
            self.fail(f"expects a bias of shape ({c_out},), one value per output channel, "
                      f"got {fmt_shape(bias.shape)}.",
                      values=self._values(x, weight) + f"   bias {fmt_shape(bias.shape)}",
                      hint=f"make the bias a 1-D array of {c_out} values, or pass bias=None.")
        self.pads = self._pads(weight.shape[2:])
        self.out_hw = self._out_size(x, weight)
        return tuple(x.shape[:-3]) + (c_out,) + self.out_hw

    def _values(self, x, weight) -> str:
        parts = [f"input {fmt_shape(x.shape)}", f"weight {fmt_shape(weight.shape)}"]
        if self.stride != (1, 1):
            parts.append(fmt_pair("stride", self.stride))
        if isinstance(self.padding, str):
            parts.append(f"padding={self.padding!r}")
        elif self.padding != (0, 0):
            parts.append(fmt_pair("padding", self.padding))
        if self.dilation != (1, 1):
            parts.append(fmt_pair("dilation", self.dilation))
        parts.append(f"groups={self.groups}")
        return "   ".join(parts)

    def _check_dtypes(self, x, weight, bias):
        if x.dtype.kind != "f":
            self.fail(f"needs a floating point input, got {x.dtype.name}.",
                      values=f"input {fmt_shape(x.shape)} {x.dtype.name}", cls=DTypeError,
                      hint="convert it first: x.float().")
        for what, t in (("weight", weight), ("bias", bias)):
            if t is not None and t.dtype != x.dtype:
                self.fail(f"input and {what} must have the same dtype, got {x.dtype.name} and "
                          f"{t.dtype.name}.", values=self._values(x, weight), cls=DTypeError,
                          hint="convert one of them: x.float() / x.double(), or "
                          "model.float() / model.double() for a model's parameters.")

    def _check_hyper(self, x, weight):
        values = self._values(x, weight)
        for name, pair in (("stride", self.stride), ("dilation", self.dilation)):
            if min(pair) < 1:
                self.fail(f"{name} must be at least 1, got {fmt_pair(name, pair)}.",
                          values=values, hint=f"{name}=1 is the usual value.")
        if isinstance(self.padding, tuple) and min(self.padding) < 0:
            self.fail(f"padding must be at least 0, got {fmt_pair('padding', self.padding)}.",
                      values=values, hint="padding adds that many zeros on each side; to "
                      "shrink the input, crop it or use a larger kernel or a stride.")
        if self.padding == "same" and self.stride != (1, 1):
            self.fail("padding='same' needs stride 1: with a larger stride the output "
                      "cannot be as large as the input.", values=values,
                      hint="give the padding as a number instead, e.g. padding=k // 2.")
        if self.groups < 1:
            self.fail(f"groups must be at least 1, got groups={self.groups}.", values=values,
                      hint="groups=1 is an ordinary convolution; groups=C_in is depthwise.")
        if min(weight.shape) < 1:
            self.fail(f"the weight has an empty dimension: {fmt_shape(weight.shape)}.",
                      values=values, hint="check the channels and kernel_size given to "
                      "the layer; each must be at least 1.")

    def _check_channels(self, x, weight):
        c_in, (c_out, per_group), g = x.shape[-3], weight.shape[:2], self.groups
        values = self._values(x, weight)
        if c_out % g or c_in % g:
            bad, size = ("out_channels", c_out) if c_out % g else ("in_channels", c_in)
            common = [d for d in range(1, math.gcd(c_in, c_out) + 1)
                      if c_in % d == 0 and c_out % d == 0]
            self.fail(f"groups={g} must divide {bad} ({size}).", values=values,
                      hint="groups must divide both in_channels and out_channels; here "
                      f"groups can be {', '.join(map(str, common))}.")
        if c_in != per_group * g:
            per = f" ({per_group} per group × {g} groups)" if g > 1 else ""
            kh, kw = weight.shape[2:]
            kernel = kh if kh == kw else (kh, kw)
            extra = f", groups={g}" if g > 1 else ""
            self.fail(f"expects input with {per_group * g} channels{per}, got {c_in}.",
                      values=values,
                      hint=f"the layer before outputs {c_in} channels; use "
                      f"Conv2d({c_in}, {c_out}, {kernel}{extra}) or make the layer before "
                      f"output {per_group * g} channels.")

    def _pads(self, kernel) -> tuple:
        """((top, bottom), (left, right)): the zeros added around the input."""
        if self.padding == "valid":
            return ((0, 0), (0, 0))
        if self.padding == "same":  # d·(k − 1) in all, the odd one at the end (as PyTorch)
            totals = [d * (k - 1) for k, d in zip(kernel, self.dilation)]
            return tuple((t // 2, t - t // 2) for t in totals)
        return tuple((p, p) for p in self.padding)

    def _out_size(self, x, weight) -> tuple:
        out = []
        for axis, name in enumerate(("height", "width")):
            size, k = x.shape[-2 + axis], weight.shape[2 + axis]
            d, s, (p0, p1) = self.dilation[axis], self.stride[axis], self.pads[axis]
            reach = span(k, d)
            if size + p0 + p1 < reach:
                self.fail(
                    f"the kernel spans {reach} pixels in {name} but the padded input has "
                    f"only {size + p0 + p1} ({size} + {p0 + p1} padding), so no output "
                    "pixel fits.", values=self._values(x, weight),
                    hint="the input is too small for this layer: remove a stride or pooling "
                    "before it, add padding, or use a smaller kernel or dilation.")
            out.append((size + p0 + p1 - reach) // s + 1)
        return tuple(out)

    def formula(self, x, weight, bias=None) -> list:
        """['H_out = floor((16 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 8', 'W_out = ...']."""
        out_hw = self.infer(x, weight, bias)[-2:]
        lines = []
        for axis, name in enumerate("HW"):
            (p0, p1), k = self.pads[axis], weight.shape[2 + axis]
            pad = f"2{DOT}{p0}" if p0 == p1 else f"{p0} + {p1}"
            lines.append(
                f"{name}_out = floor(({x.shape[-2 + axis]} + {pad} {MINUS} "
                f"{self.dilation[axis]}{DOT}({k} {MINUS} 1) {MINUS} 1) / {self.stride[axis]})"
                f" + 1 = {out_hw[axis]}")
        return lines

    # -- which algorithm ----------------------------------------------------------------
    def _path(self, c_in, weight_shape) -> str:
        if weight_shape[2:] == (1, 1) and self.pads == ((0, 0), (0, 0)):
            return "pointwise"
        # Depthwise with multiplier 1.  With a multiplier m >= 2 (C_out = m·C_in) the
        # grouped GEMMs of im2col were as fast or faster here (m·kh·kw elementwise
        # passes against one GEMM per channel); with one input channel "depthwise"
        # is an ordinary conv, one GEMM.
        if self.groups == c_in == weight_shape[0] > 1:
            return "depthwise"
        return "im2col"

    # -- forward ------------------------------------------------------------------------
    def forward(self, x, weight, bias=None):
        self.unbatched = x.ndim == 3
        if self.unbatched:
            x = x[None]
        self.x_shape, self.weight = x.shape, weight
        self.path = self._path(x.shape[1], weight.shape)
        # Only dL/dW needs the input again (nothing is kept without a graph); its
        # planes or columns are rebuilt from it in backward, in scratch memory.
        needs = getattr(self, "needs_input_grad", (False, False))
        self.saved = x if needs[1] else None
        if x.shape[0] == 0:  # an empty batch: nothing to compute
            out = np.zeros((0, weight.shape[0]) + self.out_hw, dtype=x.dtype)
        elif self.path == "im2col":  # adds the bias chunk by chunk, while it is in cache
            return self._forward_im2col(x, weight, bias)
        else:
            out = getattr(self, "_forward_" + self.path)(x, weight)
        if bias is not None:
            out += bias.reshape(-1, 1, 1)
        return out[0] if self.unbatched else out

    def _planes(self, x_shape=None):
        """The Planes layout of the input, or of a chunk of its samples (``x_shape``)."""
        (top, _), (left, _) = self.pads
        return Planes(x_shape or self.x_shape, self.weight.shape[2:], self.stride,
                      self.dilation, (top, left), self.out_hw)

    def _forward_pointwise(self, x, weight):
        # 1×1 kernel: y[n, o] = sum_c W[o, c] · x[n, c] at every pixel; a stride only samples.
        n, c = x.shape[:2]
        g, (ho, wo) = self.groups, self.out_hw
        w_g = weight.reshape(g, -1, c // g)                       # (G, O/G, C/G)
        return np.matmul(w_g, self._sampled(x)).reshape(n, -1, ho, wo)  # N·G GEMMs

    def _sampled(self, x):
        """The pixels a strided 1×1 kernel reads, (N, G, C/G, H_out·W_out)."""
        n, c = x.shape[:2]
        xs = x[:, :, ::self.stride[0], ::self.stride[1]]
        if self.stride == (1, 1):
            return xs.reshape(n, self.groups, c // self.groups, -1)
        out = scratch("cols", (n, self.groups, c // self.groups) + xs.shape[2:], x.dtype)
        out.reshape(xs.shape)[...] = xs
        return out.reshape(n, self.groups, c // self.groups, -1)

    def _forward_im2col(self, x, weight, bias):
        w_rows = self._weight_rows(weight)                        # (G, O/G, kh·kw·C/G)
        (n, g), (ho, wo) = (x.shape[0], self.groups), self.out_hw
        out = np.empty((n, weight.shape[0], ho, wo), dtype=x.dtype)

        def part(samples):  # a chunk of the batch (see ops/threads.py)
            planes = self._planes(x[samples].shape)
            cols = self._im2col(planes, planes.scatter(x[samples]))  # (G, K, n, L)
            # One GEMM per sample and group, written straight into the output's layout
            # (measured faster here than one GEMM over the batch plus a transposing copy).
            np.matmul(w_rows, cols.transpose(2, 0, 1, 3),
                      out=out[samples].reshape(-1, g, w_rows.shape[1], ho * wo))
            if bias is not None:
                out[samples] += bias.reshape(-1, 1, 1)

        over_batch(part, n, w_rows.shape[2] * g * ho * wo)  # column values per sample
        return out[0] if self.unbatched else out

    def _weight_rows(self, weight):
        """W (O, C/G, kh, kw) -> (G, O/G, kh·kw·C/G), rows in the order of the columns."""
        c_out, per_group = weight.shape[:2]
        w = weight.reshape(self.groups, c_out // self.groups, per_group, -1)
        return w.transpose(0, 1, 3, 2).reshape(self.groups, c_out // self.groups, -1)

    def _im2col(self, planes, data):
        """Every window as a column: cols[g, (i, j, c), n, h·W_out + w], (G, kh·kw·C/G, N, L).

        L = H_out·W_out: only real output pixels, no spare columns (they would cost
        the GEMMs a third more work on a 14×14 map).  Built in two copies per strip
        of taps sharing a phase and a column shift: first the strip's W_out
        columns of every row (short rows), then each tap of the strip is a run of
        H_out·W_out contiguous pixels of it (long rows).
        """
        g, per_group, n = self.groups, planes.c // self.groups, planes.n
        (ho, wo), images = self.out_hw, planes.images(data)  # (phases, C, N, Hp, Wp)
        cols = scratch("cols", (g, len(planes.taps), per_group, n, ho * wo), data.dtype)
        strip = scratch("strip", (planes.c, n, planes.hp, wo), data.dtype)
        rows = strip.reshape(g, per_group, n, -1)             # (G, C/G, N, Hp·W_out)
        for (phase, rj), taps in planes.strips.items():
            strip[...] = images[phase, :, :, :, rj:rj + wo]
            for t, ri in taps:
                cols[:, t] = rows[..., ri * wo:(ri + ho) * wo]
        return cols.reshape(g, -1, n, ho * wo)

    def _forward_depthwise(self, x, weight):
        # Channel c sees only itself: y[c] = sum_{i,j} W[c, 0, i, j] · (slice (i, j) of x[c])
        planes = self._planes()
        data = planes.scatter(x)
        w = weight[:, 0]                                          # (C, kh, kw)
        out = scratch("out_cols", (planes.c, planes.cols), x.dtype)
        tmp = scratch("tmp", out.shape, x.dtype)
        for t, (i, j, phase, off) in enumerate(planes.taps):
            view = data[phase, :, off:off + planes.cols]          # (C, N·P)
            np.multiply(view, w[:, i, j, None], out=tmp if t else out)
            if t:
                out += tmp
        return planes.crop(out)

    # -- backward -----------------------------------------------------------------------
    def backward(self, grad_out):
        need = self.needs_input_grad
        if self.unbatched:
            grad_out = grad_out[None]
        if grad_out.shape[0] == 0:
            grad_x, grad_w = np.zeros(self.x_shape, grad_out.dtype), np.zeros_like(self.weight)
        else:
            grad_x, grad_w = getattr(self, "_backward_" + self.path)(grad_out, need[0], need[1])
        if grad_x is not None and self.unbatched:
            grad_x = grad_x[0]
        grads = [grad_x, grad_w]
        if len(need) > 2:  # y = ... + b[o];  dL/db[o] = sum over n, h, w of dL/dy[n, o]
            grads.append(grad_out.sum(axis=(0, 2, 3)) if need[2] else None)
        return tuple(grads)

    def _backward_pointwise(self, grad_out, need_x, need_w):
        n, c, h, w = self.x_shape
        g, (ho, wo) = self.groups, self.out_hw
        w_g = self.weight.reshape(g, -1, c // g)                  # (G, O/G, C/G)
        go = grad_out.reshape(n, g, -1, ho * wo)                  # (N, G, O/G, L)
        grad_x = grad_w = None
        if need_w:  # dL/dW[g] = sum over n of dL/dy[n, g] · x[n, g]^T
            # N·G GEMMs then a sum: measured faster here than transposing both
            # operands to (C, N·L) for one GEMM, except on tiny maps (by ~10%).
            xs = self._sampled(self.saved)                        # (N, G, C/G, L)
            grad_w = np.matmul(go, xs.transpose(0, 1, 3, 2)).sum(axis=0)
            grad_w = grad_w.reshape(self.weight.shape)
        if need_x:  # dL/dx[n, g] = W[g]^T · dL/dy[n, g], at the sampled pixels only
            w_t = w_g.transpose(0, 2, 1)                          # (G, C/G, O/G)
            if (ho, wo) == (h, w):
                grad_x = np.matmul(w_t, go).reshape(self.x_shape)
            else:
                grad_xs = scratch("cols", (n, g, c // g, ho * wo), go.dtype)
                np.matmul(w_t, go, out=grad_xs)
                grad_x = zeros(self.x_shape, grad_out.dtype)
                grad_x[:, :, ::self.stride[0], ::self.stride[1]] = grad_xs.reshape(n, c, ho, wo)
        return grad_x, grad_w

    def _backward_im2col(self, grad_out, need_x, need_w):
        g, (ho, wo) = self.groups, self.out_hw
        n, c_out, kh, kw = self.x_shape[0], self.weight.shape[0], *self.weight.shape[2:]
        w_rows = self._weight_rows(self.weight)                   # (G, O/G, K)
        # dL/dW[g] = sum over n of cols[g, n] · dL/dy[n, g]^T: per-sample GEMMs, on these
        # small matrices faster here than one long-K GEMM, summed over the batch at the end
        per_sample = np.empty((n, g, w_rows.shape[2], c_out // g), grad_out.dtype) \
            if need_w else None
        grad_x = np.empty(self.x_shape, grad_out.dtype) if need_x else None

        def part(samples):  # a chunk of the batch (see ops/threads.py)
            go = grad_out[samples].reshape(-1, g, c_out // g, ho * wo)   # (n, G, O/G, L)
            planes = self._planes(go.shape[:1] + self.x_shape[1:])
            if need_w:
                cols = self._im2col(planes, planes.scatter(self.saved[samples]))  # (G, K, n, L)
                np.matmul(cols.transpose(2, 0, 1, 3), go.transpose(0, 1, 3, 2),
                          out=per_sample[samples])
            if need_x:  # dL/dcols[g] = W[g]^T · dL/dy[g]; each column goes back to its window
                grad_cols = scratch("cols", (g, w_rows.shape[2], planes.n, ho * wo), go.dtype)
                np.matmul(w_rows.transpose(0, 2, 1), go, out=grad_cols.transpose(2, 0, 1, 3))
                self._col2im(planes, grad_cols, out=grad_x[samples])

        over_batch(part, n, w_rows.shape[2] * g * ho * wo)  # column values per sample
        grad_w = None
        if need_w:  # one sum over the batch, in sample order whatever the chunks were
            grad_rows = per_sample.sum(axis=0)                    # (G, K, O/G)
            grad_w = grad_rows.reshape(g, kh, kw, -1, c_out // g).transpose(0, 4, 3, 1, 2)
            grad_w = grad_w.reshape(self.weight.shape)
        return grad_x, grad_w

    def _col2im(self, planes, grad_cols, out):
        """The adjoint of im2col: add each tap's columns back onto its window pixels,
        and those into ``out`` (N, C, H, W).

        Windows overlap, so taps overlap; strip by strip, each tap is added onto
        a long run of the strip, then the strip onto the planes (no np.add.at).
        """
        g, per_group, n, (ho, wo) = self.groups, planes.c // self.groups, planes.n, self.out_hw
        grad_cols = grad_cols.reshape(g, len(planes.taps), per_group, n, ho * wo)
        grad_data = planes.zeros(grad_cols.dtype)
        images = planes.images(grad_data)                     # (phases, C, N, Hp, Wp)
        strip = scratch("strip", (planes.c, n, planes.hp, wo), grad_cols.dtype)
        rows = strip.reshape(g, per_group, n, -1)             # (G, C/G, N, Hp·W_out)
        for (phase, rj), taps in planes.strips.items():
            strip.fill(0)
            for t, ri in taps:
                rows[..., ri * wo:(ri + ho) * wo] += grad_cols[:, t]
            images[phase, :, :, :, rj:rj + wo] += strip
        return planes.gather(grad_data, out)

    def _backward_depthwise(self, grad_out, need_x, need_w):
        planes, w = self._planes(), self.weight[:, 0]             # w (C, kh, kw)
        go = planes.spread(grad_out)                              # (C, N·P)
        grad_x = grad_w = None
        if need_w:  # dL/dW[c, 0, i, j] = sum over columns of dL/dy[c] · slice (i, j)[c]
            data = planes.scatter(self.saved)
            grad_w = np.empty_like(self.weight)
            for i, j, phase, off in planes.taps:
                view = data[phase, :, off:off + planes.cols, None]  # (C, N·P, 1)
                grad_w[:, :, i, j] = np.matmul(go[:, None], view)[:, 0]  # C dot products
        if need_x:  # dL/d slice (i, j)[c] = W[c, 0, i, j] · dL/dy[c]
            grad_data = planes.zeros(go.dtype)
            tmp = scratch("tmp", go.shape, go.dtype)
            for i, j, phase, off in planes.taps:
                np.multiply(go, w[:, i, j, None], out=tmp)
                grad_data[phase, :, off:off + planes.cols] += tmp
            grad_x = planes.gather(grad_data)
        return grad_x, grad_w
