"""Max unpooling (PyTorch's ``F.max_unpool2d``): max pooling's values put back where they came from.

``F.max_pool2d(x, k, return_indices=True)`` gives each window's maximum and its place in its
(H, W) plane, row·W + column.  Unpooling makes a plane of zeros the size the pooled input
had and writes each value at its place; everything else stays 0 (SegNet's decoder):

    y[n, c].flat[indices[n, c, a, b]] = x[n, c, a, b]

H_out = (H − 1)·stride − 2·padding + kernel_size unless ``output_size`` says otherwise (it
may differ from that by less than the stride: the rows a pooling with floor left out).
A place written twice (overlapping windows found the same maximum) keeps the last value
in row-major order, as PyTorch's CPU loop does; only that value gets the place's gradient
(PyTorch gives it to every value sent there).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import DTypeError, InputError, fmt_shape
from .base import Op, check_float, check_ndim, fmt_pair, is_int, pair
from .conv import DOT, MINUS


class MaxUnpool2d(Op):
    """y (N, C, H_out, W_out): zeros, with x[n, c, a, b] at y[n, c].flat[indices[n, c, a, b]]."""

    name = "max_unpool2d"

    def __init__(self, kernel_size, stride=None, padding=0, output_size=None):
        self.kernel = pair(kernel_size, "kernel_size", self.where)
        none = stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0)
        self.stride = self.kernel if none else pair(stride, "stride", self.where)
        self.padding = pair(padding, "padding", self.where)
        if output_size is not None:
            ok = isinstance(output_size, (tuple, list)) and len(output_size) in (2, 4) and all(
                is_int(s) for s in output_size)
            if not ok:
                self.fail(f"output_size must be (H_out, W_out) or (N, C, H_out, W_out), got "
                          f"{output_size!r}.", cls=InputError,
                          hint="give the size of the input the pooling had (its last dimensions).")
            output_size = tuple(int(s) for s in output_size[-2:])
        self.output_size = output_size

    def default_hw(self, shape) -> tuple:
        """(H − 1)·stride − 2·padding + kernel_size, per axis: the pooled input's size."""
        return tuple((shape[-2 + i] - 1) * self.stride[i] - 2 * self.padding[i] + self.kernel[i]
                     for i in (0, 1))

    def out_hw(self, shape) -> tuple:
        return self.default_hw(shape) if self.output_size is None else self.output_size

    def _values(self, x, indices) -> str:
        parts = [f"input {fmt_shape(x.shape)}", f"indices {fmt_shape(indices.shape)}",
                 fmt_pair("kernel_size", self.kernel), fmt_pair("stride", self.stride),
                 fmt_pair("padding", self.padding)]
        if self.output_size is not None:
            parts.append(f"output_size={self.output_size}")
        return "   ".join(parts)

    def infer(self, x, indices):
        check_ndim(self, x, (3, 4), "input", "(N, C, H, W)")
        check_float(self, x)
        values = self._values(x, indices)
        if indices.dtype != np.int64:
            self.fail(f"expects int64 indices, got {indices.dtype.name}.", values=values,
                      cls=DTypeError, hint="pass the indices max_pool2d(..., "
                      "return_indices=True) returned, or convert them: indices.long().")
        if tuple(indices.shape) != tuple(x.shape):
            self.fail(f"expects indices of the input's shape {fmt_shape(x.shape)}, got "
                      f"{fmt_shape(indices.shape)}.", values=values,
                      hint="unpool the output of the pooling that returned these indices.")
        for name, value, low in (("kernel_size", self.kernel, 1), ("stride", self.stride, 1),
                                 ("padding", self.padding, 0)):
            if min(value) < low:
                self.fail(f"{name} must be at least {low}, got {fmt_pair(name, value)}.",
                          values=values, cls=InputError, hint="use the pooling's arguments.")
        default = self.default_hw(x.shape)
        for axis, name in enumerate("HW"):
            out, low, high = (self.out_hw(x.shape)[axis], default[axis] - self.stride[axis],
                              default[axis] + self.stride[axis])
            if self.output_size is not None and not low < out < high:
                self.fail(f"output_size {name}_out={out} must be between {low} and {high} "
                          "(both excluded).", values=values, cls=InputError,
                          hint="give the size of the input the pooling had (its last dimensions).")
            if out < 1 and x.shape[-2 + axis] > 0:
                self.fail(f"the output would have {name}_out={out}.", values=values,
                          hint="padding is too large for this kernel_size.")
        return tuple(x.shape[:-2]) + self.out_hw(x.shape)

    def formula(self, x, indices) -> list:
        """['H_out = (4 − 1)·2 − 2·0 + 3 = 9', ...] (or 'output_size = ...')."""
        out_hw = self.infer(x, indices)[-2:]
        if self.output_size is not None:
            return [f"{name}_out = output_size = {o}" for name, o in zip("HW", out_hw)]
        return [f"{name}_out = ({x.shape[-2 + i]} {MINUS} 1){DOT}{self.stride[i]} {MINUS} "
                f"2{DOT}{self.padding[i]} + {self.kernel[i]} = {out_hw[i]}"
                for i, name in enumerate("HW")]

    def forward(self, x, indices):
        (h, w), (ho, wo) = x.shape[-2:], self.out_hw(x.shape)
        bad = (indices < 0) | (indices >= ho * wo)
        if bad.any():
            self.fail(f"an index is outside the {ho}×{wo} output plane (0 to {ho * wo - 1}): "
                      f"found {int(indices[bad].flat[0])}.", values=self._values(x, indices),
                      cls=InputError, hint="use the indices of the pooling whose output this is, "
                      "with its kernel_size, stride and padding (or its input's size as "
                      "output_size).")
        self.x_shape, planes = x.shape, math.prod(x.shape[:-2])
        places = indices.reshape(planes, h * w)                        # (N·C, H·W)
        # src[p, place]: which value of plane p lands at place (the last one sent there), or -1
        self.src = np.full((planes, ho * wo), -1)
        order = np.broadcast_to(np.arange(h * w), places.shape)
        np.maximum.at(self.src, (np.arange(planes)[:, None], places), order)
        y = np.take_along_axis(x.reshape(planes, h * w), np.maximum(self.src, 0), axis=1)
        y[self.src < 0] = 0
        return y.reshape(x.shape[:-2] + (ho, wo))

    # y[p, place] = x[p, src[p, place]];  dL/dx[p, i] = dL/dy[p, place] where i = src[p, place]
    # (a value another one overwrote is not in y: its gradient is 0)
    def backward(self, grad_out):
        plane, place = np.nonzero(self.src >= 0)
        grad_x = np.zeros((self.src.shape[0], math.prod(self.x_shape[-2:])), grad_out.dtype)
        grad_x[plane, self.src[plane, place]] = grad_out.reshape(self.src.shape)[plane, place]
        return grad_x.reshape(self.x_shape), None
