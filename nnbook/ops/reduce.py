"""Reductions over ``dim`` (an int, a tuple of ints or None for all), with ``keepdim``."""
from __future__ import annotations

import numpy as np

from ..errors import DimError, DTypeError, fmt_shape
from .base import Op, normalize_dim


def reduced_axes(op: Op, ndim: int, dim) -> tuple:
    """``dim`` (None, an int or a tuple of ints) as sorted, non-negative axes.  None and
    an empty tuple both mean every dim, as PyTorch's sum, mean, var and norm read them."""
    if dim is None or (isinstance(dim, (tuple, list)) and not dim):
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


def even_share(x: np.ndarray, y: np.ndarray, axes: tuple) -> np.ndarray:
    """1/k at each of the k elements of x equal to y (kept dims) along ``axes``, else 0:
    how PyTorch shares the gradient of a max, min or median among ties (NaN ties NaN)."""
    hit = (x == y) | (np.isnan(x) & np.isnan(y)) if x.dtype.kind == "f" else x == y
    return hit / hit.sum(axis=axes, keepdims=True)


def _expand(grad: np.ndarray, axes: tuple, keepdim: bool) -> np.ndarray:
    """Put back the reduced axes as size 1 so ``grad`` broadcasts over the input."""
    return grad if keepdim or not axes else np.expand_dims(grad, axes)


class Sum(Op):
    name = "sum"

    def __init__(self, dim=None, keepdim=False):
        self.dim, self.keepdim = dim, keepdim

    def infer(self, x):
        return reduced_shape(self, x.shape, self.dim, self.keepdim)

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
                f"{self.name} needs a floating point tensor, got {x.dtype.name}.",
                hint=f"convert first: x.float().{self.name}().",
                cls=DTypeError,
            )
        return super().infer(x)

    def forward(self, x):
        self.in_shape, self.axes = x.shape, reduced_axes(self, x.ndim, self.dim)
        self.count = int(np.prod([x.shape[a] for a in self.axes])) if self.axes else 1
        if self.count == 0:  # the mean of nothing is NaN, as in PyTorch (numpy would warn)
            return np.full(reduced_shape(self, x.shape, self.dim, self.keepdim), np.nan,
                           x.dtype)
        return np.mean(x, axis=self.axes, keepdims=self.keepdim)

    def backward(self, grad_out):  # y = sum_i x_i / n;  dy/dx_i = 1/n
        grad = _expand(grad_out, self.axes, self.keepdim) / self.count
        return (np.broadcast_to(grad, self.in_shape),)


class NanSum(Sum):
    """The sum of the elements that are not NaN (0 if all are)."""

    name = "nansum"

    def forward(self, x):
        self.in_shape, self.axes = x.shape, reduced_axes(self, x.ndim, self.dim)
        self.counted = ~np.isnan(x) if x.dtype.kind == "f" else np.ones(x.shape, bool)
        return np.nansum(x, axis=self.axes, keepdims=self.keepdim)

    def backward(self, grad_out):  # y = sum of the x_i that are not NaN;  dy/dx_i = 1 or 0
        # a product, as PyTorch's: an infinite grad_out (from nanmean of only NaNs, below)
        # gives NaN at the NaN places too
        return (_expand(grad_out, self.axes, self.keepdim) * self.counted,)


class NanMean(Mean):
    """The mean of the elements that are not NaN: their sum over their count (NaN if
    every element is NaN)."""

    name = "nanmean"

    def forward(self, x):
        self.in_shape, self.axes = x.shape, reduced_axes(self, x.ndim, self.dim)
        self.counted = ~np.isnan(x)
        self.count = self.counted.sum(axis=self.axes, keepdims=True).astype(x.dtype)
        total = np.nansum(x, axis=self.axes, keepdims=True)
        with np.errstate(invalid="ignore"):
            y = total / self.count  # 0 / 0 is NaN: the mean of no values
        return y if self.keepdim else np.squeeze(y, axis=self.axes)

    def backward(self, grad_out):  # y = sum of the counted x_i / count;  dy/dx_i = 1/count or 0
        return (_expand(grad_out, self.axes, self.keepdim) / self.count * self.counted,)


class Max(Op):
    """max over one ``dim`` (values; the indices are returned alongside) or all elements."""

    name = "max"
    pick, arg_pick = staticmethod(np.max), staticmethod(np.argmax)  # Min: np.min, np.argmin

    def __init__(self, dim=None, keepdim=False):
        self.dim, self.keepdim = dim, keepdim
        self.keeps_output = dim is None  # the backward over every element reads y

    def infer(self, x):
        if isinstance(self.dim, (tuple, list)):
            self.fail(f"{self.name} reduces one dim at a time, got dim={self.dim!r}.",
                      hint=f"call {self.name} once per dim, or use "
                      f"a{self.name}(dim={tuple(self.dim)!r}).")
        shape = reduced_shape(self, x.shape, self.dim, self.keepdim)
        if any(x.shape[a] == 0 for a in reduced_axes(self, x.ndim, self.dim)):
            self.fail(f"cannot take the {self.name} of an empty tensor of shape "
                      f"{fmt_shape(x.shape)}.", hint="an empty dimension has no largest or "
                      "smallest element; check the slicing that made this tensor.")
        return shape

    def forward(self, x):
        self.x, self.axes = x, reduced_axes(self, x.ndim, self.dim)
        y = self.pick(x, axis=self.axes, keepdims=True)
        self.y = y
        return y if self.keepdim else np.squeeze(y, axis=self.axes)

    def indices(self):
        """argmax along ``dim`` (only when a single dim was reduced)."""
        if not self.axes:  # a 0-d tensor: its only element
            return np.zeros((), dtype=np.int64)
        idx = self.arg_pick(self.x, axis=self.axes[0], keepdims=self.keepdim)
        return idx.astype(np.int64)

    def backward(self, grad_out):
        # y = max_i x_i;  dy/dx_i = 1 at the maximum.  Over one dim the first
        # maximum gets it all (as PyTorch's max(dim)); over every element ties
        # share it evenly (as PyTorch's max()).  A NaN is the maximum where there is one.
        grad = _expand(grad_out, self.axes, self.keepdim)
        if self.dim is None:
            share = even_share(self.x, self.y, self.axes)
            return (np.where(share > 0, grad * share, 0),)  # 0, not inf * 0, elsewhere
        if not self.axes:
            return (grad_out,)
        axis = self.axes[0]
        idx = self.arg_pick(self.x, axis=axis, keepdims=True)
        out = np.zeros_like(self.x, dtype=grad.dtype)
        np.put_along_axis(out, idx, grad, axis=axis)
        return (out,)



class Min(Max):
    """min over one ``dim`` (values; the indices are returned alongside) or all elements."""

    name = "min"
    pick, arg_pick = staticmethod(np.min), staticmethod(np.argmin)


class Amax(Op):
    """The largest value over ``dim`` (an int, a tuple or None for all); no indices."""

    name = "amax"
    pick = staticmethod(np.max)
    keeps_output = True  # the backward reads y

    def __init__(self, dim=None, keepdim=False):
        self.dim, self.keepdim = dim, keepdim

    def infer(self, x):
        axes = reduced_axes(self, x.ndim, self.dim)
        if any(x.shape[a] == 0 for a in axes) or (not axes and 0 in x.shape):
            self.fail(f"cannot take the {self.name} of an empty tensor of shape "
                      f"{fmt_shape(x.shape)} over dim={self.dim!r}.", hint="an empty dimension "
                      "has no largest or smallest element; check the slicing that made it.")
        return reduced_shape(self, x.shape, self.dim, self.keepdim)

    def forward(self, x):
        self.x, self.axes = x, reduced_axes(self, x.ndim, self.dim)
        self.y = self.pick(x, axis=self.axes, keepdims=True)
        return self.y if self.keepdim else np.squeeze(self.y, axis=self.axes)

    def backward(self, grad_out):  # y = max_i x_i;  dy/dx_i = 1 at the maximum, shared by ties
        grad = _expand(grad_out, self.axes, self.keepdim)
        return (grad * even_share(self.x, self.y, self.axes),)


class Amin(Amax):
    name = "amin"
    pick = staticmethod(np.min)


class Prod(Op):
    """The product over one ``dim`` or over all elements."""

    name = "prod"

    def __init__(self, dim=None, keepdim=False):
        self.dim, self.keepdim = dim, keepdim

    def infer(self, x):
        if isinstance(self.dim, (tuple, list)):
            self.fail(f"prod reduces one dim at a time, got dim={self.dim!r}.",
                      hint="call prod once per dim, or flatten those dims first.")
        return reduced_shape(self, x.shape, self.dim, self.keepdim)

    def forward(self, x):
        self.x, self.axes = x, reduced_axes(self, x.ndim, self.dim)
        return np.prod(x, axis=self.axes, keepdims=self.keepdim)

    def backward(self, grad_out):  # y = prod_i x_i;  dy/dx_i = prod_{k != i} x_k
        grad = _expand(grad_out, self.axes, self.keepdim)
        return (grad * product_of_others(self.x, self.axes),)


def product_of_others(x: np.ndarray, axes: tuple) -> np.ndarray:
    """prod_{k != i} x_k along ``axes`` for every i, without dividing (so zeros are fine):
    the product of everything before i times the product of everything after it."""
    if not axes or x.size == 0:
        return np.ones_like(x)
    ends = tuple(range(-len(axes), 0))
    moved = np.moveaxis(x, axes, ends)
    rows = moved.reshape(moved.shape[:-len(axes)] + (-1,))          # (..., n)
    ones = np.ones(rows.shape[:-1] + (1,), dtype=x.dtype)
    before = np.cumprod(np.concatenate([ones, rows[..., :-1]], -1), -1)
    after = np.cumprod(np.concatenate([ones, rows[..., :0:-1]], -1), -1)[..., ::-1]
    return np.moveaxis((before * after).reshape(moved.shape), ends, axes)
