"""Picking elements by index or by mask: gather, scatter, masked_fill.

gather and scatter share one rule.  For an ``index`` tensor and a ``dim``, element
``index[i, j, k]`` (here with dim=1) names the position ``(i, index[i, j, k], k)``:
gather reads ``x`` there, scatter writes there.  :func:`coordinates` turns an index
into those positions, as numpy index arrays.
"""
from __future__ import annotations

import numpy as np

from ..errors import DimError, DTypeError, fmt_shape
from .base import Op, broadcast_shape, normalize_dim


def coordinates(index: np.ndarray, axis: int) -> tuple:
    """The positions ``index`` names along ``axis``: every other coordinate is the
    element's own (open grids that broadcast, so no memory is spent on them)."""
    grid = list(np.ogrid[tuple(slice(n) for n in index.shape)])
    grid[axis] = index
    return tuple(grid)


def sort_order(a: np.ndarray, axis: int, descending=False) -> np.ndarray:
    """The indices that sort ``a`` along ``axis``: stable (equal values keep their order)
    and NaN counted as the largest value, as PyTorch sorts."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    # Sort the reversed array and reverse the order found: descending, and still stable.
    backwards = np.argsort(np.flip(a, axis), axis=axis, kind="stable")
    return np.flip(a.shape[axis] - 1 - backwards, axis)


class IndexAlong(Op):
    """Base of gather and scatter: checks the index tensor and its range."""

    def __init__(self, dim):
        self.dim = dim

    def check_index(self, x, index, fits_in=()):
        """Same ndim as x, int64, and no larger than x off ``dim`` (and than ``fits_in``)."""
        axis = normalize_dim(self, self.dim, x.ndim)
        if np.dtype(index.dtype) != np.int64:
            self.fail(f"index must be an int64 tensor, got {np.dtype(index.dtype).name}.",
                      cls=DTypeError, hint="convert it: index.long().")
        if index.ndim != x.ndim:
            self.fail(f"index has {index.ndim} dimension(s) but the input has {x.ndim}: "
                      "they need the same number.",
                      values=f"input {fmt_shape(x.shape)}   index {fmt_shape(index.shape)}",
                      hint="unsqueeze the index, e.g. index.unsqueeze(-1).")
        for name, other, skip in (("the input", x, axis), *((n, t, None) for n, t in fits_in)):
            if any(i > s for d, (i, s) in enumerate(zip(index.shape, other.shape)) if d != skip):
                self.fail(f"index {fmt_shape(index.shape)} is larger than {name} "
                          f"{fmt_shape(other.shape)} in a dimension"
                          f"{f' other than dim {axis}' if skip is not None else ''}.",
                          hint="each index element names one element of the input; index "
                          "can be smaller, not larger.")
        return axis

    def check_range(self, index, size):
        bad = (index < 0) | (index >= size)
        if np.any(bad):
            self.fail(f"index {int(index[bad][0])} is out of bounds for dim {self.dim} with "
                      f"size {size}.", cls=DimError,
                      hint=f"indices along dim {self.dim} go from 0 to {size - 1}.")


class Gather(IndexAlong):
    """y[i, j, k] = x[i, index[i, j, k], k] (for dim=1)."""

    name = "gather"

    def infer(self, x, index):
        self.check_index(x, index)
        return index.shape

    def forward(self, x, index):
        axis = normalize_dim(self, self.dim, x.ndim)
        self.check_range(index, x.shape[axis])
        self.in_shape, self.where_from = x.shape, coordinates(index, axis)
        return x[self.where_from]

    def backward(self, grad_out):  # y = x[positions];  each picked element gets its gradient
        grad = np.zeros(self.in_shape, dtype=grad_out.dtype)
        np.add.at(grad, self.where_from, grad_out)  # added: a position may be picked twice
        return grad, None


class Scatter(IndexAlong):
    """y = x, then y[i, index[i, j, k], k] = src[i, j, k] (for dim=1); ScatterAdd adds
    the src values there instead."""

    name = "scatter"
    add = False

    def infer(self, x, index, src):
        if src.ndim != index.ndim and src.ndim != 0:
            self.fail(f"src has {src.ndim} dimension(s) but index has {index.ndim}.",
                      hint="src needs index's number of dimensions (or is a single value).")
        self.check_index(x, index, fits_in=(("src", src),) if src.ndim else ())
        return x.shape

    def forward(self, x, index, src):
        axis = normalize_dim(self, self.dim, x.ndim)
        self.check_range(index, x.shape[axis])
        self.src_shape = src.shape
        self.part = tuple(slice(n) for n in index.shape) if src.ndim else ()  # src's used part
        self.where_to = coordinates(index, axis)
        out = x.copy()
        if self.add:
            np.add.at(out, self.where_to, src[self.part])  # repeated positions add up
        else:
            out[self.where_to] = src[self.part]
        return out

    def backward(self, grad_out):  # overwritten elements of x get 0; src gets what it wrote to
        grad_x = grad_out
        if not self.add:
            grad_x = grad_out.copy()
            grad_x[self.where_to] = 0
        grad_src = np.zeros(self.src_shape, dtype=grad_out.dtype)
        if grad_src.ndim:
            grad_src[self.part] = grad_out[self.where_to]
        else:  # one value written everywhere index points
            grad_src = grad_out[self.where_to].sum()
        return grad_x, None, grad_src


class ScatterAdd(Scatter):
    name = "scatter_add"
    add = True


class MaskedFill(Op):
    """y = value where mask is true, x elsewhere (the mask broadcasts)."""

    name = "masked_fill"

    def __init__(self, value=None):
        self.value = value  # a number; None: the value is the third input (a 0-d tensor)

    def infer(self, x, mask, *value):
        if np.dtype(mask.dtype) != np.bool_:
            self.fail(f"the mask must be a boolean tensor, got {np.dtype(mask.dtype).name}.",
                      cls=DTypeError, hint="compare to get one (x > 0), or convert: mask.bool().")
        if value and value[0].ndim:
            self.fail(f"the value must be a number or a 0-d tensor, got shape "
                      f"{fmt_shape(value[0].shape)}.", hint="use nb.where(mask, values, x) "
                      "to fill from a tensor of values.")
        return broadcast_shape(self, x, mask)

    def out_dtype(self, x, *rest):
        return x.dtype

    def forward(self, x, mask, *value):
        self.mask = mask
        fill = value[0] if value else self.value
        return np.where(mask, np.asarray(fill).astype(x.dtype), x)

    def backward(self, grad_out):  # y = mask ? v : x;  dy/dx = not mask, dy/dv = sum over mask
        zero = np.zeros((), dtype=grad_out.dtype)
        grads = (np.where(self.mask, zero, grad_out), None)
        if len(self.needs_input_grad) == 3:
            grads += (np.where(self.mask, grad_out, zero).sum(),)
        return grads
