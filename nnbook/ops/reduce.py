"""Reductions over ``dim`` (an int, a tuple of ints or None for all), with ``keepdim``."""
from __future__ import annotations

import numpy as np

from ..errors import DimError, DTypeError, fmt_shape
from .base import Op, normalize_dim, quiet


def reduced_axes(op: Op, ndim: int, dim) -> tuple:
    """``dim`` (None, an int or a tuple of ints) as sorted, non-negative axes."""
    if dim is None:
        return tuple(range(ndim))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    axes = [normalize_dim(op, d, ndim) for d in dims]
    if len(set(axes)) < len(axes):  # as PyTorch: (0, 0) or (1, -1) is a mistake, not a set
        op.fail(f"dim {next(a for a in axes if axes.count(a) > 1)} appears more than once "
                f"in dim={tuple(dims)}.", hint="name each dimension once.", cls=DimError)
    return () if ndim == 0 else tuple(sorted(axes))


def reduced_shape(op: Op, shape: tuple, dim, keepdim: bool) -> tuple:
    """Shape rule shared by every reduction."""
    axes = reduced_axes(op, len(shape), dim)
    if keepdim:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def _expand(grad: np.ndarray, axes: tuple, keepdim: bool) -> np.ndarray:
    """Put back the reduced axes as size 1 so ``grad`` broadcasts over the input."""
    return grad if keepdim or not axes else np.expand_dims(grad, axes)


class Sum(Op):
    name = "sum"

    def __init__(self, dim=None, keepdim=False):
        self.dim, self.keepdim = dim, keepdim

    def infer(self, x):
        return reduced_shape(self, x.shape, self.dim, self.keepdim)

    @quiet  # inf + -inf
    def forward(self, x):
        self.in_shape, self.axes = x.shape, reduced_axes(self, x.ndim, self.dim)
        return np.sum(x, axis=self.axes, keepdims=self.keepdim)

    def backward(self, grad_out):  # y = sum_i x_i;  dy/dx_i = 1
        grad = _expand(grad_out, self.axes, self.keepdim)
        return (np.broadcast_to(grad, self.in_shape),)


class Mean(Sum):
    name = "mean"

    def infer(self, x):
        if x.dtype.kind != "f":
            self.fail(
                f"mean needs a floating point tensor, got {x.dtype.name}.",
                hint="convert first: x.float().mean().",
                cls=DTypeError,
            )
        return super().infer(x)

    @quiet  # inf + -inf
    def forward(self, x):
        self.in_shape, self.axes = x.shape, reduced_axes(self, x.ndim, self.dim)
        self.count = int(np.prod([x.shape[a] for a in self.axes])) if self.axes else 1
        return np.mean(x, axis=self.axes, keepdims=self.keepdim)

    def backward(self, grad_out):  # y = sum_i x_i / n;  dy/dx_i = 1/n
        grad = _expand(grad_out, self.axes, self.keepdim) / self.count
        return (np.broadcast_to(grad, self.in_shape),)


class Max(Op):
    """max over one ``dim`` (values; the indices are returned alongside) or all elements."""

    name = "max"

    def __init__(self, dim=None, keepdim=False):
        self.dim, self.keepdim = dim, keepdim

    def infer(self, x):
        if isinstance(self.dim, (tuple, list)):
            self.fail(f"max reduces one dim at a time, got dim={self.dim!r}.",
                      hint="call max once per dim, or flatten those dims first.")
        shape = reduced_shape(self, x.shape, self.dim, self.keepdim)
        if any(x.shape[a] == 0 for a in reduced_axes(self, x.ndim, self.dim)):
            self.fail(f"cannot take the max of an empty tensor of shape {fmt_shape(x.shape)}.")
        return shape

    def forward(self, x):
        self.x, self.axes = x, reduced_axes(self, x.ndim, self.dim)
        y = np.max(x, axis=self.axes, keepdims=True)
        self.y = y
        return y if self.keepdim else np.squeeze(y, axis=self.axes)

    def indices(self):
        """argmax along ``dim`` (only when a single dim was reduced)."""
        if not self.axes:  # a 0-d tensor: its only element
            return np.zeros((), dtype=np.int64)
        idx = np.argmax(self.x, axis=self.axes[0], keepdims=self.keepdim)
        return idx.astype(np.int64)

    def backward(self, grad_out):
        # y = max_i x_i;  dy/dx_i = 1 at the maximum.  Over one dim the first
        # maximum gets it all (as PyTorch's max(dim)); over every element ties
        # share it evenly (as PyTorch's max()).  A NaN is the maximum where there is one.
        grad = _expand(grad_out, self.axes, self.keepdim)
        if self.dim is None:
            hit = np.isnan(self.x) if np.isnan(self.y).any() else self.x == self.y
            return (np.where(hit, grad / hit.sum(), 0),)
        if not self.axes:
            return (grad_out,)
        axis = self.axes[0]
        idx = np.argmax(self.x, axis=axis, keepdims=True)
        out = np.zeros_like(self.x, dtype=grad.dtype)
        np.put_along_axis(out, idx, grad, axis=axis)
        return (out,)

