"""Ops that copy elements to new places: flip, roll, repeat, repeat_interleave.

No arithmetic: each output element is one input element, so the gradient of an
input element is the sum of the gradients of its copies.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError, InputError, fmt_shape
from .base import Op, normalize_dim


def _axes(op: Op, dims, ndim: int) -> tuple:
    axes = tuple(normalize_dim(op, d, ndim) for d in dims)
    if len(set(axes)) != len(axes):
        op.fail(f"dims {tuple(dims)} name a dimension twice.", cls=InputError,
                hint="list each dimension once.")
    return axes


class Flip(Op):
    """Reverse the order along ``dims`` (a copy, as in PyTorch)."""

    name = "flip"

    def __init__(self, dims):
        self.dims = tuple(dims)

    def infer(self, x):
        _axes(self, self.dims, x.ndim)
        return x.shape

    def forward(self, x):
        self.axes = _axes(self, self.dims, x.ndim) if x.ndim else ()
        return np.flip(x, self.axes).copy()

    def backward(self, grad_out):  # y_i = x_(n-1-i): flip the gradient back
        return (np.flip(grad_out, self.axes),)


class Roll(Op):
    """Shift elements along ``dims`` by ``shifts``, wrapping around; without dims, the
    flattened tensor is rolled and reshaped back."""

    name = "roll"

    def __init__(self, shifts, dims=None):
        self.shifts, self.dims = tuple(shifts), None if dims is None else tuple(dims)

    def infer(self, x):
        if self.dims is None and len(self.shifts) != 1:
            self.fail(f"without dims, shifts must be a single number, got {self.shifts}.",
                      cls=InputError, hint="give one dim per shift: x.roll((1, 2), dims=(0, 1)).")
        if self.dims is not None:
            if len(self.dims) != len(self.shifts):
                self.fail(f"shifts {self.shifts} and dims {self.dims} have different lengths.",
                          cls=InputError, hint="give one shift per dim.")
            _axes(self, self.dims, x.ndim)
        return x.shape

    def forward(self, x):
        self.axes = None if self.dims is None else tuple(
            normalize_dim(self, d, x.ndim) for d in self.dims)
        shift = self.shifts[0] if self.axes is None else self.shifts
        return np.roll(x, shift, self.axes)

    def backward(self, grad_out):  # y_(i+s) = x_i: roll the gradient back by -s
        if self.axes is None:
            return (np.roll(grad_out, -self.shifts[0]),)
        return (np.roll(grad_out, tuple(-s for s in self.shifts), self.axes),)


class Repeat(Op):
    """Tile the whole tensor ``sizes[d]`` times along each dim d (numpy's ``tile``)."""

    name = "repeat"

    def __init__(self, sizes):
        self.sizes = tuple(int(s) for s in sizes)

    def infer(self, x):
        if len(self.sizes) < x.ndim or any(s < 0 for s in self.sizes):
            self.fail(f"repeat needs a count >= 0 for each of the {x.ndim} dimensions of "
                      f"{fmt_shape(x.shape)}, got {self.sizes}.", cls=InputError,
                      hint="one count per dimension, e.g. x.repeat(2, 1); more counts add "
                      "leading dimensions.")
        padded = (1,) * (len(self.sizes) - x.ndim) + tuple(x.shape)
        return tuple(n * s for n, s in zip(padded, self.sizes))

    def forward(self, x):
        self.in_shape = x.shape
        return np.tile(x, self.sizes)

    def backward(self, grad_out):  # each copy sends its gradient back: sum over the copies
        padded = (1,) * (len(self.sizes) - len(self.in_shape)) + tuple(self.in_shape)
        split = [n for pair in zip(self.sizes, padded) for n in pair]  # (r0, n0, r1, n1, ...)
        grad = grad_out.reshape(split).sum(axis=tuple(range(0, len(split), 2)))
        return (grad.reshape(self.in_shape),)


class RepeatInterleave(Op):
    """Repeat each element ``repeats`` times in place along ``dim`` (numpy's ``repeat``);
    ``repeats`` is an int or one count per element; without a dim, x is flattened first."""

    name = "repeat_interleave"

    def __init__(self, repeats, dim=None):
        self.repeats, self.dim = np.asarray(repeats), dim

    def infer(self, x):
        if self.repeats.dtype.kind not in "iu" or np.any(self.repeats < 0):
            self.fail("repeats must be whole numbers >= 0.", cls=DTypeError,
                      hint="e.g. x.repeat_interleave(2) or x.repeat_interleave(nb.tensor([1, 3])).")
        n = x.shape[normalize_dim(self, self.dim, x.ndim)] if self.dim is not None and x.ndim \
            else int(np.prod(x.shape))
        if self.repeats.ndim > 1 or self.repeats.size not in (1, n):
            self.fail(f"repeats holds {self.repeats.size} counts for {n} elements.",
                      cls=InputError, hint="give one count, or one per element along dim.")
        counts = np.broadcast_to(self.repeats.reshape(-1), (n,))
        if self.dim is None or not x.ndim:
            return (int(counts.sum()),)
        axis = normalize_dim(self, self.dim, x.ndim)
        return x.shape[:axis] + (int(counts.sum()),) + x.shape[axis + 1:]

    def forward(self, x):
        self.in_shape = x.shape
        self.axis = 0 if self.dim is None or not x.ndim else normalize_dim(self, self.dim, x.ndim)
        x = x.reshape(-1) if self.dim is None or not x.ndim else x
        counts = np.broadcast_to(self.repeats.reshape(-1), (x.shape[self.axis],))
        self.owner = np.repeat(np.arange(len(counts)), counts)  # the source of each copy
        return np.take(x, self.owner, axis=self.axis)

    def backward(self, grad_out):  # y_j = x_owner(j);  dL/dx_i = sum of g_j over i's copies
        n = self.in_shape[self.axis] if self.dim is not None and len(self.in_shape) \
            else int(np.prod(self.in_shape))
        moved = np.moveaxis(grad_out, self.axis, 0)
        grad = np.zeros((n,) + moved.shape[1:], dtype=grad_out.dtype)
        np.add.at(grad, self.owner, moved)
        return (np.moveaxis(grad, 0, self.axis).reshape(self.in_shape),)
