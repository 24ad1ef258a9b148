"""Ops that move elements around without arithmetic: reshape, permute, index, pad, cat."""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..errors import ArgumentError, DimError, InputError, fmt_shape, message
from .base import Op, is_int, normalize_dim


class Reshape(Op):
    name = "reshape"
    is_view = True

    def __init__(self, shape):
        self.shape = tuple(shape)

    def infer(self, x):
        shape, size = list(self.shape), math.prod(x.shape)
        free = [i for i, s in enumerate(shape) if s == -1]
        if len(free) > 1 or any((not isinstance(s, (int, np.integer))) or s < -1 for s in shape):
            self.fail(f"invalid target shape {self.shape}: sizes must be >= 0 "
                      "with at most one -1.",
                      hint="give every size but one; -1 stands for the one size to be "
                      f"worked out (e.g. x.reshape({x.shape[0] if x.ndim else 1}, -1)).")
        known = math.prod(s for s in shape if s != -1)
        if free:
            if known == 0 or size % known:
                self._mismatch(x.shape, size)
            shape[free[0]] = size // known
        elif known != size:
            self._mismatch(x.shape, size)
        return tuple(int(s) for s in shape)

    def _mismatch(self, in_shape, size):
        self.fail(
            f"cannot reshape {fmt_shape(in_shape)} ({size} elements) into "
            f"{self.shape}: the element counts differ.",
            hint="the product of the new sizes must equal the old one; use -1 for the "
            "one size you want computed.",
        )

    def forward(self, x):
        self.in_shape = x.shape
        y = x.reshape(self.infer(x))
        self.is_view = y.base is not None  # numpy copies when the layout does not allow a view
        return y

    def view_of(self, x):
        """The same view of another array of the input's shape (for writes through views)."""
        return x.reshape(self.infer(x))

    def backward(self, grad_out):  # a reshape moves no values: the gradient moves back
        return (grad_out.reshape(self.in_shape),)


class Permute(Op):
    name = "permute"
    is_view = True

    def __init__(self, dims):
        self.dims = tuple(dims)

    def _axes(self, x) -> tuple:
        dims = tuple(normalize_dim(self, d, x.ndim) for d in self.dims)
        if len(dims) != x.ndim or sorted(dims) != list(range(x.ndim)):
            self.fail(
                f"dims {self.dims} are not a permutation of the {x.ndim} dimensions "
                f"of a tensor of shape {fmt_shape(x.shape)}.",
                hint=f"name every dimension once, e.g. {tuple(reversed(range(x.ndim)))}.",
            )
        return dims

    def infer(self, x):
        return tuple(x.shape[d] for d in self._axes(x))

    def forward(self, x):
        self.axes = self._axes(x)
        return np.transpose(x, self.axes)

    def view_of(self, x):
        return np.transpose(x, self._axes(x))

    def backward(self, grad_out):  # the inverse permutation carries the gradient back
        return (np.transpose(grad_out, np.argsort(self.axes)),)


def checked_dim(dim, ndim: int, where: str, name: str = "dim") -> int:
    """A possibly negative axis, checked against ``ndim``, for code outside an op."""
    n = max(ndim, 1)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise ArgumentError(message(f"{name} must be an int, got {dim!r}.", where=where,
                                    hint=f"e.g. {name}=0 or {name}=-1."))
    if not -n <= dim < n:
        raise DimError(message(
            f"{name}={dim} is out of range for a tensor with {ndim} dimension(s).", where=where,
            hint=f"use a {name} between {-n} and {n - 1} (negative counts from the end)."))
    return int(dim) % n


def transpose_dims(ndim: int, dim0: int, dim1: int, op: Op):
    dims = list(range(ndim))
    a, b = normalize_dim(op, dim0, ndim, "dim0"), normalize_dim(op, dim1, ndim, "dim1")
    if ndim:
        dims[a], dims[b] = dims[b], dims[a]
    return dims


class Pad(Op):
    """Constant padding; ``pad`` lists (before, after) pairs from the last dim backwards."""

    name = "pad"

    def __init__(self, pad, value=0.0):
        self.pad, self.value = tuple(pad), value

    def infer(self, x):
        pad = self.pad
        if len(pad) % 2 or len(pad) // 2 > x.ndim:
            self.fail(
                f"pad={pad} must hold an even number of sizes, two per padded dimension, "
                f"at most {2 * x.ndim} for a {x.ndim}-D input.",
                hint="pad=(left, right, top, bottom) pads the last two dimensions.",
            )
        widths = self._widths(x.ndim)
        shape = tuple(s + a + b for s, (a, b) in zip(x.shape, widths))
        # a negative pad crops the input before anything is added, as in PyTorch
        if any(s + min(a, 0) + min(b, 0) < 0 for s, (a, b) in zip(x.shape, widths)):
            self.fail(f"pad={pad} removes more than input {fmt_shape(x.shape)} has.",
                      hint="negative padding crops the input first; crop at most its size.")
        return shape

    def _widths(self, ndim):
        widths = [(0, 0)] * ndim
        for i in range(len(self.pad) // 2):
            widths[ndim - 1 - i] = (self.pad[2 * i], self.pad[2 * i + 1])
        return widths

    def forward(self, x):
        self.widths = self._widths(x.ndim)
        # Negative pads crop, as in PyTorch: pad the positive parts, then slice.
        grow = [(max(a, 0), max(b, 0)) for a, b in self.widths]
        out = np.pad(x, grow, constant_values=self.value)
        self.grown_shape = out.shape
        self.crop = tuple(slice(-min(a, 0), out.shape[i] + min(b, 0))
                          for i, (a, b) in enumerate(self.widths))
        self.grow = grow
        return out[self.crop]

    def backward(self, grad_out):  # padding copies x into the middle: slice it back out
        grown = np.zeros(self.grown_shape, dtype=grad_out.dtype)
        grown[self.crop] = grad_out
        core = tuple(slice(a, n - b) for n, (a, b) in zip(self.grown_shape, self.grow))
        return (grown[core],)


class Cat(Op):
    """Join tensors along an existing ``dim``."""

    name = "cat"

    def __init__(self, dim=0):
        self.dim = dim

    def infer(self, *xs):
        if not xs:
            self.fail("needs at least one tensor.")
        first = xs[0]
        for i, x in enumerate(xs):
            if x.ndim == 0:
                self.fail(f"tensor {i} is 0-d (a single number): there is no dim to join "
                          "it along.", hint="to make a 1-d tensor of numbers, use "
                          "nb.stack(tensors); or reshape each to (1,) first.")
        dim = normalize_dim(self, self.dim, first.ndim)
        for i, x in enumerate(xs[1:], 1):
            if x.ndim != first.ndim or any(a != b for d, (a, b) in
                                           enumerate(zip(x.shape, first.shape)) if d != dim):
                self.fail(
                    f"tensor {i} has shape {fmt_shape(x.shape)} but tensor 0 has "
                    f"{fmt_shape(first.shape)}: all sizes except dim {dim} must match.",
                    hint=_cat_hint(xs, dim),
                )
        return first.shape[:dim] + (sum(x.shape[dim] for x in xs),) + first.shape[dim + 1:]

    def forward(self, *xs):
        self.axis = normalize_dim(self, self.dim, xs[0].ndim)
        self.sizes = [x.shape[self.axis] for x in xs]
        return np.concatenate(xs, axis=self.axis)

    def backward(self, grad_out):  # each input gets back its own slice
        cuts = np.cumsum(self.sizes)[:-1]
        return tuple(np.split(grad_out, cuts, axis=self.axis))


def _cat_hint(xs, dim) -> str:
    """Point at a dim the tensors could be joined along, if there is one."""
    shapes = [x.shape for x in xs]
    if len({len(s) for s in shapes}) == 1:
        for d in range(len(shapes[0])):
            if d != dim and all(s[:d] + s[d + 1:] == shapes[0][:d] + shapes[0][d + 1:]
                                for s in shapes):
                return f"they could be joined along dim {d}: nb.cat(tensors, dim={d})."
    return ("make the other sizes agree first (reshape, pad or crop); in a model, check that "
            "the branches feeding the concatenation give the same batch and spatial sizes.")


class Expand(Op):
    """Broadcast to a larger shape without copying (PyTorch's ``expand``)."""

    name = "expand"
    is_view = True

    def __init__(self, shape):
        self.shape = tuple(shape)

    def infer(self, x):
        n = len(self.shape)
        if n < x.ndim:
            self.fail(f"cannot expand {fmt_shape(x.shape)} to fewer dimensions {self.shape}.",
                      hint="expand can only add dimensions in front and grow size-1 ones.")
        padded = (1,) * (n - x.ndim) + tuple(x.shape)
        out = tuple(p if s == -1 else s for p, s in zip(padded, self.shape))
        if any(p != 1 and p != o for p, o in zip(padded, out)):
            self.fail(f"cannot expand {fmt_shape(x.shape)} to {self.shape}: only size-1 "
                      "dimensions can grow.",
                      hint="expand repeats a size-1 dimension without copying; to repeat a "
                      "larger one use x.repeat(...) or nb.cat, or unsqueeze a new "
                      "dimension first (x.unsqueeze(0).expand(...)).")
        return out

    def forward(self, x):
        return np.broadcast_to(x, self.infer(x))

    def backward(self, grad_out):  # the engine sums the broadcast axes away
        return (grad_out,)


class Unfold(Op):
    """Sliding windows along one dim, as a view: window i is elements i*step .. i*step +
    size - 1.  The dim's n elements become (n - size) // step + 1 windows, and a new last
    dim holds each window's ``size`` elements::

        y[..., i, ..., k] = x[..., i*step + k, ...]

    numpy's ``sliding_window_view`` gives every window (step 1) without a copy; taking
    every ``step``-th of them is a slice.  The view is read-only (overlapping windows
    share elements: writing one would write another)."""

    name = "unfold"
    is_view = True

    def __init__(self, dimension, size, step):
        for arg, value, least in (("size", size, 0), ("step", step, 1)):
            if not is_int(value) or value < least:
                raise InputError(message(
                    f"{arg} must be an int >= {least}, got {value!r}.", where=self.where,
                    hint="x.unfold(dimension, size, step): windows of size elements, "
                    "step elements apart, e.g. x.unfold(0, 3, 1)."))
        self.dimension, self.size, self.step = dimension, int(size), int(step)

    def infer(self, x):
        axis = normalize_dim(self, self.dimension, x.ndim, "dimension")
        n = x.shape[axis]
        if self.size > n:
            self.fail(f"windows of size {self.size} do not fit in dim {axis} of size {n}.",
                      values=f"input {fmt_shape(x.shape)}",
                      hint=f"use a size of at most {n}.")
        windows = (n - self.size) // self.step + 1
        return x.shape[:axis] + (windows,) + x.shape[axis + 1:] + (self.size,)

    def forward(self, x):
        self.in_shape = x.shape
        self.axis = normalize_dim(self, self.dimension, x.ndim, "dimension")
        return self.view_of(x)

    def view_of(self, x):
        axis = normalize_dim(self, self.dimension, x.ndim, "dimension")
        every = sliding_window_view(x, self.size, axis=axis)  # (..., n - size + 1, ..., size)
        return every[(slice(None),) * axis + (slice(None, None, self.step),)]

    def backward(self, grad_out):  # tap k of every window read x[i*step + k]: add it back
        grad = np.zeros(self.in_shape, dtype=grad_out.dtype)
        windows = grad_out.shape[self.axis]
        for k in range(self.size):  # (windows overlap when step < size: their taps add up)
            read = slice(k, k + self.step * (windows - 1) + 1, self.step)
            grad[(slice(None),) * self.axis + (read,)] += grad_out[..., k]
        return (grad,)
