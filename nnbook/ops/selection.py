"""Picking elements by index or by mask: gather, scatter, masked_fill, and writing them
back: scatter_reduce, index_add, index_copy, take, put, masked_scatter.

gather and scatter share one rule.  For an ``index`` tensor and a ``dim``, element
``index[i, j, k]`` (here with dim=1) names the position ``(i, index[i, j, k], k)``:
gather reads ``x`` there, scatter writes there.  :func:`coordinates` turns an index
into those positions, as numpy index arrays.
"""
from __future__ import annotations

import numpy as np

from ..errors import DimError, DTypeError, InputError, ShapeError, fmt_shape
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
        """Same ndim as x, int64 (or int32, as PyTorch also takes), and no larger than x
        off ``dim`` (and than ``fits_in``)."""
        axis = normalize_dim(self, self.dim, x.ndim)
        if np.dtype(index.dtype) not in (np.int64, np.int32):
            self.fail(f"index must be an int64 (or int32) tensor, got "
                      f"{np.dtype(index.dtype).name}.", cls=DTypeError,
                      hint="convert it: index.long().")
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


class ScatterReduce(IndexAlong):
    """y = x, then every src[i, j, k] is combined into y[i, index[i, j, k], k] (for dim=1)
    by ``reduce``: 'sum', 'prod', 'mean', 'amax' or 'amin'.  With ``include_self=False``
    the positions something is scattered to forget x's value and combine only src's."""

    name = "scatter_reduce"
    UFUNCS = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum,
              "amin": np.minimum}

    def __init__(self, dim, reduce, include_self=True):
        reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # (PyTorch takes both)
        if reduce not in self.UFUNCS:
            self.fail(f"reduce must be one of {', '.join(map(repr, self.UFUNCS))}, got "
                      f"{reduce!r}.", cls=InputError,
                      hint="e.g. x.scatter_reduce(0, index, src, reduce='amax').")
        self.dim, self.reduce, self.include_self = dim, reduce, bool(include_self)

    def infer(self, x, index, src):
        if src.ndim != index.ndim:
            self.fail(f"src has {src.ndim} dimension(s) but index has {index.ndim}.",
                      hint="src needs index's number of dimensions.")
        if np.dtype(src.dtype) != np.dtype(x.dtype):
            self.fail(f"src is {np.dtype(src.dtype).name} but the input is "
                      f"{np.dtype(x.dtype).name}; they must be the same.", cls=DTypeError,
                      hint=f"convert src first: src.to(nb.{np.dtype(x.dtype).name}).")
        if self.reduce == "mean" and np.dtype(x.dtype) == np.bool_:
            self.fail("the mean of booleans is not a boolean.", cls=DTypeError,
                      hint="convert first: x.float().scatter_reduce(..., 'mean').")
        self.check_index(x, index, fits_in=(("src", src),))
        return x.shape

    def forward(self, x, index, src):
        axis = normalize_dim(self, self.dim, x.ndim)
        self.check_range(index, x.shape[axis])
        where_to = coordinates(index, axis)
        self.part, self.src_shape = tuple(slice(n) for n in index.shape), src.shape
        values = src[self.part]  # the part of src that index covers
        hit = np.zeros(x.shape, dtype=bool)
        hit[where_to] = True  # the positions something is scattered to
        out = x.copy()
        if not self.include_self:  # start those from the reduction's identity instead
            out[hit] = _identity(self.reduce, x.dtype)
        self.UFUNCS[self.reduce].at(out, where_to, values)
        count = None
        if self.reduce == "mean":
            count = np.full(x.shape, int(self.include_self))
            np.add.at(count, where_to, 1)
            count[count == 0] = 1  # (untouched positions keep x: divide by 1)
            out = out / count if out.dtype.kind == "f" else out // count
        if any(self.needs_input_grad):
            self._keep_for_backward(x, values, out, hit, where_to, count)
        return out

    def _keep_for_backward(self, x, values, out, hit, where_to, count):
        """What each element's gradient is scaled by: d(y at its position)/d(element)."""
        self.where_to = where_to
        own = (np.ones(x.shape, bool) if self.include_self else ~hit).astype(x.dtype)
        if self.reduce == "sum":
            self.scale_x, self.scale_src = own, np.ones(values.shape)
        elif self.reduce == "mean":  # y = (x + sum src) / count
            self.scale_x, self.scale_src = own / count, (1 / count)[where_to]
        elif self.reduce == "prod":  # d(product)/d(one factor) = the product of the others
            zeros, product = np.zeros(x.shape), np.ones(x.shape, dtype=x.dtype)
            if self.include_self:  # x is one of the factors
                zeros += x == 0
                product *= np.where(x == 0, 1, x)
            np.add.at(zeros, where_to, values == 0)  # (counted: a zero has no quotient)
            np.multiply.at(product, where_to, np.where(values == 0, 1, values))
            self.scale_x = _product_of_others(x, zeros, product) if self.include_self \
                else own  # (without x: y = x where nothing was scattered, no x elsewhere)
            self.scale_src = _product_of_others(values, zeros[where_to], product[where_to])
        else:  # amax, amin: the gradient is shared by every element equal to the result
            x_is = own * (x == out)
            src_is = values == out[where_to]
            ties = x_is.copy()
            np.add.at(ties, where_to, src_is)
            ties[ties == 0] = 1
            self.scale_x, self.scale_src = x_is / ties, src_is / ties[where_to]

    def backward(self, grad_out):  # each element's share of y at its position
        grad_x = (grad_out * self.scale_x).astype(grad_out.dtype, copy=False)
        grad_src = np.zeros(self.src_shape, dtype=grad_out.dtype)
        grad_src[self.part] = grad_out[self.where_to] * self.scale_src
        return grad_x, None, grad_src


def _identity(reduce, dtype):
    """The value that leaves ``reduce`` unchanged: 0 for a sum, -inf (or the dtype's
    smallest) for a maximum..."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    kind = np.dtype(dtype).kind
    if kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if kind == "b":
        return reduce != "amax"  # False is the smallest bool, True the largest
    return np.iinfo(dtype).min if reduce == "amax" else np.iinfo(dtype).max


def _product_of_others(v, zeros, product):
    """For each factor v of a product: the product of the other factors, given the number
    of zero factors and the product of the non-zero ones (no division by zero)."""
    safe = np.where(v == 0, 1, v)
    return np.where(v != 0, np.where(zeros == 0, product / safe, 0),
                    np.where(zeros == 1, product, 0))


class IndexAdd(Op):
    """y = x, then y[..., index[i], ...] += alpha * source[..., i, ...] along ``dim``
    (repeated indices add up).  IndexCopy writes source there instead."""

    name = "index_add"
    copies = False
    index_dtypes = (np.int64, np.int32)

    def __init__(self, dim, alpha=1):
        self.dim, self.alpha = dim, alpha

    def infer(self, x, index, source):
        axis = normalize_dim(self, self.dim, x.ndim)
        if np.dtype(index.dtype) not in self.index_dtypes or index.ndim > 1:
            kinds = " or ".join(np.dtype(d).name for d in self.index_dtypes)
            self.fail(f"index must be a vector of {kinds}, got {np.dtype(index.dtype).name} "
                      f"of shape {fmt_shape(index.shape)}.",
                      cls=DTypeError if index.ndim <= 1 else ShapeError,
                      hint="e.g. nb.tensor([2, 0, 2]) (a position along dim for each slice "
                      "of source).")
        count = index.shape[0] if index.ndim else 1
        wanted = x.shape[:axis] + (count,) + x.shape[axis + 1:]
        if tuple(source.shape) != wanted:
            self.fail(f"source has shape {fmt_shape(source.shape)}, but needs "
                      f"{fmt_shape(wanted)}: the input's shape with dim {axis} the length "
                      f"of index ({count}).",
                      values=f"input {fmt_shape(x.shape)}   index {fmt_shape(index.shape)}",
                      hint=f"source[..., i, ...] (along dim {axis}) goes to position index[i].")
        if np.dtype(source.dtype) != np.dtype(x.dtype):
            self.fail(f"source is {np.dtype(source.dtype).name} but the input is "
                      f"{np.dtype(x.dtype).name}; they must be the same.", cls=DTypeError,
                      hint=f"convert source first: source.to(nb.{np.dtype(x.dtype).name}).")
        return x.shape

    def forward(self, x, index, source):
        axis = normalize_dim(self, self.dim, x.ndim)
        index = index.reshape(-1)
        bad = (index < 0) | (index >= x.shape[axis])
        if np.any(bad):
            self.fail(f"index {int(index[bad][0])} is out of range for dim {axis} of size "
                      f"{x.shape[axis]}.", cls=DimError,
                      hint=f"indices go from 0 to {x.shape[axis] - 1}.")
        self.at = (slice(None),) * axis + (index,)  # the slices of y that source goes to
        out = x.copy()
        if self.copies:
            out[self.at] = source
        else:  # np.add.at adds once per index, also for an index given twice
            np.add.at(out, self.at, np.asarray(self.alpha).astype(x.dtype) * source)
        return out

    def backward(self, grad_out):  # y = x + alpha * (source placed at index)
        if self.copies:  # dy/dx = 0 where source overwrote x; dy/dsource = 1
            grad_x = grad_out.copy()
            grad_x[self.at] = 0
            return grad_x, None, grad_out[self.at]
        return grad_out, None, self.alpha * grad_out[self.at]  # dy/dx = 1; dy/dsource = alpha


class IndexCopy(IndexAdd):
    name = "index_copy"
    copies = True
    index_dtypes = (np.int64,)


class Take(Op):
    """y = x.flatten()[index]: the elements at flat positions (negative ones count from
    the end), in index's shape."""

    name = "take"

    def infer(self, x, index):
        _long_index(self, index)
        return tuple(index.shape)

    def forward(self, x, index):
        self.in_shape = x.shape
        self.at = _flat_positions(self, index, x.size)
        return x.reshape(-1)[self.at]

    def backward(self, grad_out):  # each picked element gets its gradient (added if twice)
        grad = np.zeros(int(np.prod(self.in_shape)), dtype=grad_out.dtype)
        np.add.at(grad, self.at, grad_out)
        return grad.reshape(self.in_shape), None


class Put(Op):
    """y = x, then y.flatten()[index] = source (added with ``accumulate``); index and
    source have the same number of elements, any shapes."""

    name = "put"

    def __init__(self, accumulate=False):
        self.accumulate = bool(accumulate)

    def infer(self, x, index, source):
        _long_index(self, index)
        if int(np.prod(index.shape)) != int(np.prod(source.shape)):
            self.fail(f"index has {int(np.prod(index.shape))} elements but source has "
                      f"{int(np.prod(source.shape))}; they need the same number.",
                      values=f"index {fmt_shape(index.shape)}   source {fmt_shape(source.shape)}",
                      hint="one source element for each position in index.")
        if np.dtype(source.dtype) != np.dtype(x.dtype):
            self.fail(f"source is {np.dtype(source.dtype).name} but the input is "
                      f"{np.dtype(x.dtype).name}; they must be the same.", cls=DTypeError,
                      hint=f"convert source first: source.to(nb.{np.dtype(x.dtype).name}).")
        return x.shape

    def forward(self, x, index, source):
        self.at = _flat_positions(self, index, x.size).reshape(-1)
        self.source_shape = source.shape
        out = x.copy()  # (a fresh C-ordered copy: reshape(-1) is a view of it)
        if self.accumulate:
            np.add.at(out.reshape(-1), self.at, source.reshape(-1))
        else:
            out.reshape(-1)[self.at] = source.reshape(-1)
        return out

    def backward(self, grad_out):  # source went to the positions; x stayed elsewhere
        grad_x = grad_out
        if not self.accumulate:
            grad_x = grad_out.copy()
            grad_x.reshape(-1)[self.at] = 0
        return grad_x, None, grad_out.reshape(-1)[self.at].reshape(self.source_shape)


def _long_index(op: Op, index):
    if np.dtype(index.dtype) != np.int64:
        op.fail(f"index must be an int64 tensor, got {np.dtype(index.dtype).name}.",
                cls=DTypeError, hint="convert it: index.long().")


def _flat_positions(op: Op, index, size):
    """Flat positions from -size .. size - 1 as 0 .. size - 1, or a clear error."""
    bad = (index < -size) | (index >= size)
    if np.any(bad):
        op.fail(f"index {int(index[bad][0])} is out of range for a tensor of {size} "
                "elements.", cls=DimError,
                hint=f"flat positions go from {-size} to {size - 1} (negative ones count "
                "from the end).")
    return index % max(size, 1)


class MaskedScatter(Op):
    """y = x, with the elements where ``mask`` is true replaced, in order, by the first
    elements of ``source`` (mask and x broadcast)."""

    name = "masked_scatter"

    def infer(self, x, mask, source):
        if np.dtype(mask.dtype) != np.bool_:
            self.fail(f"the mask must be a boolean tensor, got {np.dtype(mask.dtype).name}.",
                      cls=DTypeError, hint="compare to get one (x > 0), or convert: mask.bool().")
        if np.dtype(source.dtype) != np.dtype(x.dtype):
            self.fail(f"source is {np.dtype(source.dtype).name} but the input is "
                      f"{np.dtype(x.dtype).name}; they must be the same.", cls=DTypeError,
                      hint=f"convert source first: source.to(nb.{np.dtype(x.dtype).name}).")
        return broadcast_shape(self, x, mask)

    def forward(self, x, mask, source):
        shape = np.broadcast_shapes(x.shape, mask.shape)
        self.mask = np.broadcast_to(mask, shape)
        self.picked, self.source_shape = int(np.count_nonzero(self.mask)), source.shape
        if source.size < self.picked:
            self.fail(f"the mask picks {self.picked} elements but source has only "
                      f"{source.size}.", values=f"source {fmt_shape(source.shape)}",
                      cls=InputError, hint="source needs at least one element for each "
                      "true element of the mask (the first ones are used, in order).")
        out = np.array(np.broadcast_to(x, shape))
        out[self.mask] = source.reshape(-1)[:self.picked]
        return out

    def backward(self, grad_out):  # masked places came from source, in order; the rest from x
        grad_x = np.where(self.mask, np.zeros((), dtype=grad_out.dtype), grad_out)
        grad_source = np.zeros(int(np.prod(self.source_shape)), dtype=grad_out.dtype)
        grad_source[:self.picked] = grad_out[self.mask]
        return grad_x, None, grad_source.reshape(self.source_shape)
