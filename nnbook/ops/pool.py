"""Pooling (PyTorch's ``F.max_pool2d``, ``F.avg_pool2d``, ``F.adaptive_avg_pool2d``).

Each output pixel summarises one window of its own channel.  Inputs are
(N, C, H, W), or (C, H, W) for one unbatched sample as in PyTorch, and must be
floating point (PyTorch also pools integers; nnbook refuses them with a hint).

max and avg pooling reuse the convolution's :class:`~nnbook.ops.conv.Planes`:
the padded input stored so that each kernel offset (i, j) is one long slice,
every window's (i, j) element at once.  A pool is then kh·kw elementwise
operations on those slices; its backward adds gradients back onto them.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import DTypeError, InputError, fmt_shape
from .base import Op, check_ndim
from .conv import DOT, MINUS, Planes, as_pair, fmt_pair, is_int, scratch, span, zeros
from .threads import over_rows


def _check_input(op: Op, x):
    check_ndim(op, x, (3, 4), "input", "(N, C, H, W)")
    if x.dtype.kind != "f":
        op.fail(f"needs a floating point input, got {x.dtype.name}.",
                values=f"input {fmt_shape(x.shape)} {x.dtype.name}", cls=DTypeError,
                hint="convert it first: x.float().")
    if min(x.shape[-3:]) < 1:
        op.fail(f"expects an input with at least one channel, row and column, got "
                f"{fmt_shape(x.shape)}.", hint="check the layer before this one.")


def _batched(x):
    """(C, H, W) -> (1, C, H, W); the flag says to drop the batch axis again."""
    return (x[None], True) if x.ndim == 3 else (x, False)


def _empty(op, x):
    """The result for an empty batch (N = 0): nothing to pool."""
    op.in_shape = x.shape
    return np.zeros((0, x.shape[1]) + op.out_hw, dtype=x.dtype)


class _WindowPool(Op):
    """What max and avg pooling share: arguments, the shape rule and the formula."""

    dilation = (1, 1)
    ceil_mode = False

    def _init_windows(self, kernel_size, stride, padding):
        self.kernel = as_pair(self, kernel_size, "kernel_size")
        none = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
        self.stride = self.kernel if none else as_pair(self, stride, "stride")
        self.padding = as_pair(self, padding, "padding")

    def _values(self, x) -> str:
        parts = [f"input {fmt_shape(x.shape)}", fmt_pair("kernel_size", self.kernel),
                 fmt_pair("stride", self.stride)]
        if self.padding != (0, 0):
            parts.append(fmt_pair("padding", self.padding))
        if self.dilation != (1, 1):
            parts.append(fmt_pair("dilation", self.dilation))
        if self.ceil_mode:
            parts.append("ceil_mode=True")
        return "   ".join(parts)

    def infer(self, x):
        _check_input(self, x)
        values = self._values(x)
        for name, pair in (("kernel_size", self.kernel), ("stride", self.stride),
                           ("dilation", self.dilation)):
            if min(pair) < 1:
                self.fail(f"{name} must be at least 1, got {fmt_pair(name, pair)}.",
                          values=values, hint=f"e.g. {name}=2.")
        if min(self.padding) < 0:
            self.fail(f"padding must be at least 0, got {fmt_pair('padding', self.padding)}.",
                      values=values, hint="padding=0 is the usual value.")
        for p, k in zip(self.padding, self.kernel):
            if p > k // 2:
                self.fail(f"padding must be at most half the kernel size, got padding={p} "
                          f"with kernel size {k} (at most {k // 2}).", values=values,
                          hint="padding only lets windows hang over the border, and PyTorch "
                          f"allows at most kernel_size // 2; use padding={k // 2} or less.")
        self.out_hw = tuple(self._out_size(x, axis) for axis in (0, 1))
        if min(self.out_hw) < 1:
            ho, wo = self.out_hw
            self.fail(f"the output would be {ho}×{wo}: the window does not fit in the "
                      f"{x.shape[-2]}×{x.shape[-1]} input.", values=values,
                      hint="the input is too small for this layer: remove a stride or "
                      "pooling before it, or use a smaller kernel_size.")
        return tuple(x.shape[:-2]) + self.out_hw

    def _out_size(self, x, axis, rule=True) -> int:
        """PyTorch's output size; with ceil_mode its ``rule``: the last window must
        start inside the input or the left padding."""
        size, k, s = x.shape[-2 + axis], self.kernel[axis], self.stride[axis]
        p, reach = self.padding[axis], span(k, self.dilation[axis])
        extra = s - 1 if self.ceil_mode else 0
        out = (size + 2 * p - reach + extra) // s + 1
        if rule and self.ceil_mode and (out - 1) * s >= size + p:
            out -= 1
        return out

    def formula(self, x) -> list:
        """['H_out = floor((16 + 2·1 − 1·(3 − 1) − 1) / 2) + 1 = 8', 'W_out = ...']."""
        out_hw = self.infer(x)[-2:]
        rounding = "ceil" if self.ceil_mode else "floor"
        lines = []
        for axis, name in enumerate("HW"):
            size, s, p = x.shape[-2 + axis], self.stride[axis], self.padding[axis]
            line = (f"{name}_out = {rounding}(({size} + 2{DOT}{p} {MINUS} "
                    f"{self._kernel_term(axis)}) / {s}) + 1")
            if self._out_size(x, axis, rule=False) != out_hw[axis]:
                line += (f" {MINUS} 1 = {out_hw[axis]} "
                         "(the last window would start in the padding)")
            else:
                line += f" = {out_hw[axis]}"
            lines.append(line)
        return lines

    def _planes(self, shape):
        return Planes(shape, self.kernel, self.stride, self.dilation, self.padding,
                      self.out_hw)


class MaxPool2d(_WindowPool):
    """y = the largest element of each window; padding counts as -inf.

    The gradient goes to the first largest element of its window in row-major
    order (PyTorch's rule for ties).  A window holding NaN outputs NaN; its
    gradient is dropped (PyTorch gives it to the last NaN).
    """

    name = "max_pool2d"

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        self._init_windows(kernel_size, stride, padding)
        self.dilation = as_pair(self, dilation, "dilation")
        self.ceil_mode = bool(ceil_mode)

    def _kernel_term(self, axis) -> str:
        return f"{self.dilation[axis]}{DOT}({self.kernel[axis]} {MINUS} 1) {MINUS} 1"

    def infer(self, x):
        shape = super().infer(x)
        for axis, name in enumerate(("height", "width")):
            window = self._empty_window(x.shape[-2 + axis], axis)
            if window is not None:
                self.fail(f"output pixel {window} along the {name} has a window of padding "
                          "only: its dilated kernel steps over every input pixel.",
                          values=self._values(x),
                          hint="use a smaller dilation or padding, or a larger input.")
        return shape

    def _empty_window(self, size, axis):
        """The first output index whose window holds no input pixel (or None).

        Only windows reaching past an edge can miss the input, so only those
        are looked at; PyTorch does not check this (its backward then writes
        out of bounds).
        """
        k, s, p, d = (self.kernel[axis], self.stride[axis], self.padding[axis],
                      self.dilation[axis])
        out = self.out_hw[axis]
        edges = set(range(min(out, p // s + 1)))
        edges |= set(range(max(0, (size + p - span(k, d)) // s), out))
        for o in sorted(edges):
            if not any(0 <= o * s - p + d * i < size for i in range(k)):
                return o
        return None

    def _tiles(self, shape) -> bool:
        """True when the windows tile the input (no padding or dilation, stride = kernel):
        then every tap is one strided view of x and no padded copy is needed."""
        (kh, kw), (ho, wo) = self.kernel, self.out_hw
        return (tuple(self.padding) == (0, 0) and tuple(self.dilation) == (1, 1)
                and tuple(self.stride) == (kh, kw)
                and ho * kh <= shape[-2] and wo * kw <= shape[-1])

    def _tile_views(self, x):
        """The kh·kw taps in window order (row-major), each (N, C, H_out, W_out)."""
        (kh, kw), (ho, wo) = self.kernel, self.out_hw
        return [x[:, :, i:ho * kh:kh, j:wo * kw:kw] for i in range(kh) for j in range(kw)]

    def _tiled_forward(self, x):
        """Tiling windows: the max of each window, and which tap holds it (for backward)."""
        taps = math.prod(self.kernel)
        out = np.empty(x.shape[:2] + self.out_hw, dtype=x.dtype)
        arg = np.empty(out.shape, dtype=np.min_scalar_type(taps))  # uint8 up to 255 taps
        over_rows(lambda rows: _first_max(self._tile_views(x[rows]), out[rows], arg[rows]), x)
        nan = np.isnan(out)
        if nan.any():                 # a NaN window: output NaN, drop its gradient
            arg[nan] = taps           # an index no tap has
        return out, arg

    def forward(self, x):
        x, self.unbatched = _batched(x)
        if x.shape[0] == 0:
            return _empty(self, x)
        if self._tiles(x.shape):
            out, arg = self._tiled_forward(x)
            if getattr(self, "needs_input_grad", None):
                self.planes, self.in_shape, self.arg = None, x.shape, arg
            return out[0] if self.unbatched else out
        planes = self._planes(x.shape)
        data = planes.scatter(x, fill=-np.inf)                   # (phases, C, N·P + slack)
        taps = [data[phase, :, off:off + planes.cols]            # element (i, j) of every window
                for (_, _, phase, off) in planes.taps]
        best = scratch("out_cols", (planes.c, planes.cols), x.dtype)
        if getattr(self, "needs_input_grad", None):  # which tap holds the max, for backward
            self.planes, self.in_shape = planes, x.shape
            self.arg = np.empty(best.shape, dtype=np.min_scalar_type(len(taps)))
            _first_max(taps, best, self.arg)
            self.arg[np.isnan(best)] = len(taps)  # a NaN window: drop its gradient
        else:
            _first_max(taps, best)
        out = planes.crop(best)
        return out[0] if self.unbatched else out

    def backward(self, grad_out):  # y = max over the window;  dy/dx = 1 at the (first) max, else 0
        if grad_out.size == 0:
            return (np.zeros(self.in_shape, grad_out.dtype),)
        if self.planes is None:
            return self._tiled_backward(grad_out)
        planes = self.planes
        go = planes.spread(grad_out[None] if self.unbatched else grad_out)  # (C, N·P)
        grad_data = planes.zeros(go.dtype)
        hit = scratch("hit", go.shape, bool)
        share = scratch("tmp", go.shape, go.dtype)
        for t, (_, _, phase, off) in enumerate(planes.taps):
            np.equal(self.arg, t, out=hit)                        # tap t holds the max
            # go · hit, then add: a where= mask is several times slower on random masks
            np.multiply(go, hit, out=share)
            grad_data[phase, :, off:off + planes.cols] += share
        grad_x = planes.gather(grad_data)
        return (grad_x[0] if self.unbatched else grad_x,)

    def _tiled_backward(self, grad_out):
        """Tiling windows: each tap writes its own strided slice of grad_x, no overlap;
        dL/dy goes to the tap the forward recorded as the window's max."""
        go = grad_out[None] if self.unbatched else grad_out
        (kh, kw), (ho, wo) = self.kernel, self.out_hw
        h, w = self.in_shape[2:]
        exact = (h, w) == (ho * kh, wo * kw)    # else the rows/columns left over get 0
        grad_x = zeros(self.in_shape, go.dtype, skip=exact)

        def part(rows):  # a chunk of samples at a time (see ops/threads.py)
            hit, arg = scratch("hit", go[rows].shape, bool), self.arg[rows]
            for t, view in enumerate(self._tile_views(grad_x[rows])):
                np.equal(arg, t, out=hit)
                np.multiply(go[rows], hit, out=view)

        over_rows(part, grad_x)
        return (grad_x[0] if self.unbatched else grad_x,)


def _first_max(views, out, arg=None):
    """out = the elementwise max of ``views``, and arg (if given) = which view holds it
    (the first one on ties, as PyTorch for the taps of a window).

    A later view takes over only where it is strictly larger, and view t is larger
    than every index before it, so arg = max(arg, t · above).
    """
    np.copyto(out, views[0])
    if arg is None:
        for view in views[1:]:
            np.maximum(out, view, out=out)
        return
    arg.fill(0)
    above = scratch("above", out.shape, bool)
    claim = scratch("claim", out.shape, arg.dtype)
    for t, view in enumerate(views[1:], start=1):
        np.greater(view, out, out=above)
        np.maximum(out, view, out=out)
        np.multiply(above, arg.dtype.type(t), out=claim)
        np.maximum(arg, claim, out=arg)


class AvgPool2d(_WindowPool):
    """y = mean of each window, with PyTorch's divisor rules.

    The divisor is the window's size clipped to the padded input (windows that
    ceil_mode lets hang past it are smaller); with count_include_pad=False only
    the input's own pixels count; divisor_override replaces it outright.
    """

    name = "avg_pool2d"

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        self._init_windows(kernel_size, stride, padding)
        self.ceil_mode = bool(ceil_mode)
        self.count_include_pad = bool(count_include_pad)
        if divisor_override is not None and (not is_int(divisor_override)
                                             or divisor_override == 0):
            self.fail(f"divisor_override must be a nonzero int or None, got "
                      f"{divisor_override!r}.", cls=InputError,
                      hint="leave it None to divide by the window size.")
        self.divisor_override = divisor_override

    def _kernel_term(self, axis) -> str:
        return f"{self.kernel[axis]}"

    def forward(self, x):
        x, self.unbatched = _batched(x)
        if x.shape[0] == 0:
            return _empty(self, x)
        planes = self._planes(x.shape)
        data = planes.scatter(x)
        total = scratch("out_cols", (planes.c, planes.cols), x.dtype)
        for t, (_, _, phase, off) in enumerate(planes.taps):
            view = data[phase, :, off:off + planes.cols]
            if t:
                total += view
            else:
                np.copyto(total, view)
        self.planes, self.divisor = planes, self._divisor(x.shape, x.dtype)
        out = planes.crop(total)
        out /= self.divisor
        return out[0] if self.unbatched else out

    def _divisor(self, shape, dtype):
        """(H_out, W_out) divisors (or one number), in the input's dtype."""
        if self.divisor_override is not None:
            return np.asarray(self.divisor_override, dtype=dtype)
        counts = []
        for axis in (0, 1):
            size, k, s, p = (shape[2 + axis], self.kernel[axis], self.stride[axis],
                             self.padding[axis])
            start = np.arange(self.out_hw[axis]) * s - p
            end = np.minimum(start + k, size + p)     # windows stop at the padded edge
            if not self.count_include_pad:
                start, end = np.maximum(start, 0), np.minimum(end, size)
            counts.append(end - start)
        return np.outer(*counts).astype(dtype)

    def backward(self, grad_out):  # y = sum(window) / divisor;  dy/dx = 1 / divisor in the window
        if grad_out.size == 0:
            return (np.zeros(self.in_shape, grad_out.dtype),)
        planes = self.planes
        go = planes.spread(grad_out[None] if self.unbatched else grad_out)  # (C, N·P)
        ho, wo = self.out_hw
        go.reshape(planes.c, planes.n, planes.hp, planes.wp)[..., :ho, :wo] /= self.divisor
        grad_data = planes.zeros(go.dtype)
        for _, _, phase, off in planes.taps:
            grad_data[phase, :, off:off + planes.cols] += go
        grad_x = planes.gather(grad_data)
        return (grad_x[0] if self.unbatched else grad_x,)


class AdaptiveAvgPool2d(Op):
    """Average pooling to a fixed output size, windows placed as PyTorch places them.

    Output pixel a (of H_out) averages input rows floor(a·H / H_out) up to
    ceil((a + 1)·H / H_out); windows may overlap when H_out does not divide H.
    ``output_size`` is an int or a pair; None in the pair keeps that size.
    """

    name = "adaptive_avg_pool2d"

    def __init__(self, output_size):
        if is_int(output_size) or output_size is None:
            output_size = (output_size, output_size)
        ok = isinstance(output_size, (tuple, list)) and len(output_size) == 2 and all(
            s is None or is_int(s) for s in output_size)
        if not ok:
            self.fail(f"output_size must be an int or a pair of ints (None keeps that "
                      f"size), got {output_size!r}.", cls=InputError,
                      hint="e.g. output_size=1 for global average pooling, or (7, 7).")
        self.output_size = tuple(None if s is None else int(s) for s in output_size)

    def infer(self, x):
        _check_input(self, x)
        out = tuple(x.shape[-2 + i] if s is None else s for i, s in enumerate(self.output_size))
        if min(out) < 1:
            self.fail(f"output_size must be at least 1, got {self.output_size}.",
                      values=f"input {fmt_shape(x.shape)}",
                      hint="output_size=1 averages each channel to one number.")
        self.out_hw = out
        return tuple(x.shape[:-2]) + out

    def formula(self, x) -> list:
        """['H_out = output_size = 1', 'W_out = W_in = 7' (for None)]."""
        out_hw = self.infer(x)[-2:]
        return [f"{name}_out = {'output_size' if s is not None else name + '_in'} = {o}"
                for name, s, o in zip("HW", self.output_size, out_hw)]

    def _windows(self, size, out):
        """[(start, end)] of each output pixel along one axis."""
        return [((a * size) // out, -((-(a + 1) * size) // out)) for a in range(out)]

    def forward(self, x):
        x, self.unbatched = _batched(x)
        self.x_shape = x.shape
        n, c, h, w = x.shape
        ho, wo = self.out_hw
        if h % ho == 0 and w % wo == 0:  # equal, disjoint windows: a reshape and a mean
            out = x.reshape(n, c, ho, h // ho, wo, w // wo).mean(axis=(3, 5))
        else:  # sum along W, then along H (windows are products of the two ranges)
            rows = np.empty((n, c, h, wo), dtype=x.dtype)
            for b, (start, end) in enumerate(self._windows(w, wo)):
                rows[..., b] = x[..., start:end].sum(axis=-1)
            out = np.empty((n, c, ho, wo), dtype=x.dtype)
            for a, (start, end) in enumerate(self._windows(h, ho)):
                out[:, :, a] = rows[:, :, start:end].sum(axis=2)
            out /= self._divisor(x.dtype)
        return out[0] if self.unbatched else out

    def _divisor(self, dtype):
        sizes = [[end - start for start, end in self._windows(s, o)]
                 for s, o in zip(self.x_shape[2:], self.out_hw)]
        return np.outer(*sizes).astype(dtype)

    def backward(self, grad_out):  # y = mean of the window;  dy/dx = 1 / window size inside it
        grad = grad_out[None] if self.unbatched else grad_out
        n, c, h, w = self.x_shape
        ho, wo = self.out_hw
        if h % ho == 0 and w % wo == 0:
            share = grad / np.asarray((h // ho) * (w // wo), dtype=grad.dtype)
            full = np.broadcast_to(share[:, :, :, None, :, None], (n, c, ho, h // ho, wo, w // wo))
            grad_x = full.reshape(n, c, h, w)
        else:  # the adjoint of the two sums: spread along H, then along W
            share = grad / self._divisor(grad.dtype)
            rows = zeros((n, c, h, wo), grad.dtype)
            for a, (start, end) in enumerate(self._windows(h, ho)):
                rows[:, :, start:end] += share[:, :, a, None]
            grad_x = zeros(self.x_shape, grad.dtype)
            for b, (start, end) in enumerate(self._windows(w, wo)):
                grad_x[..., start:end] += rows[..., b, None]
        return (grad_x[0] if self.unbatched else grad_x,)
