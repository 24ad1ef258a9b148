"""Selecting elements as tensor methods: by index (``gather``, ``index_select``), by mask
(``masked_fill``, ``masked_select``), by order (``sort``, ``topk``), and the questions
whose answers are indices (``nonzero``, ``unique``, ``argsort``).

Values picked from a tensor carry gradients back to where they were picked; indices
are int64 tensors without gradients.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .. import context
from ..errors import ArgumentError, DTypeError, InputError, ShapeError, fmt_shape, message
from ..ops import indexing, selection
from .operands import numpy_dim

SortResult = namedtuple("sort", ["values", "indices"])
TopkResult = namedtuple("topk", ["values", "indices"])


def order_of(array, axis, descending=False) -> np.ndarray:
    """The indices that sort ``array`` along ``axis``; in a data-free pass (nb.infer_shapes),
    where there are no values to sort, zeros of the right shape (no memory)."""
    if context.shape_only():
        return np.broadcast_to(np.zeros((), dtype=np.int64), array.shape)
    return selection.sort_order(array, axis, descending)


def _fail(where, what, hint, cls=InputError):
    raise cls(message(what, where=f"Tensor.{where}", hint=hint))


class Selection:
    """Tensor methods that pick elements."""

    __slots__ = ()

    # -- by index ----------------------------------------------------------------------------
    @numpy_dim
    def gather(self, dim, index, *, sparse_grad=False):
        """y[i][j] = x[i][index[i][j]] for dim=1 (index has x's number of dims)."""
        if self.ndim == 0:  # a 0-d tensor (and index) as one element, as PyTorch
            return self.reshape(1).gather(dim, _one_element(index)).reshape(())
        return self._op(selection.Gather(dim), self, index)

    @numpy_dim
    def scatter(self, dim, index, src=None, *, value=None, reduce=None):
        """A copy with y[i][index[i][j]] = src[i][j] for dim=1 (``src`` a tensor or a
        number: ``value``)."""
        if reduce is not None:
            _fail("scatter", f"scatter(reduce={reduce!r}) is not supported.",
                  "use x.scatter_add(dim, index, src) to add.")
        if self.ndim == 0:
            return self.reshape(1).scatter(dim, _one_element(index), _one_element(src),
                                           value=value).reshape(())
        return self._op(selection.Scatter(dim), self, index, self._source(src, value))

    @numpy_dim
    def scatter_add(self, dim, index, src):
        """A copy with src[i][j] added to y[i][index[i][j]] for dim=1 (repeats add up)."""
        if self.ndim == 0:
            return self.reshape(1).scatter_add(dim, _one_element(index),
                                               _one_element(src)).reshape(())
        return self._op(selection.ScatterAdd(dim), self, index, self._source(src, None))

    @numpy_dim
    def scatter_reduce(self, dim, index, src, reduce, *, include_self=True):
        """A copy with every src[i][j] combined into y[i][index[i][j]] (for dim=1) by
        ``reduce``: 'sum', 'prod', 'mean', 'amax' or 'amin'; with ``include_self=False``
        the positions written to combine only src's values."""
        index, src = _tensors("scatter_reduce", index=index, src=src)
        if self.ndim == 0:
            return self.reshape(1).scatter_reduce(
                dim, _one_element(index), _one_element(src), reduce,
                include_self=include_self).reshape(())
        return self._op(selection.ScatterReduce(dim, reduce, include_self), self, index, src)

    @numpy_dim
    def index_add(self, dim, index, source, *, alpha=1):
        """A copy with alpha * source[..., i, ...] added to the slice index[i] along ``dim``
        (an index given twice adds twice)."""
        index, source = _tensors("index_add", index=index, source=source)
        if self.ndim == 0:
            return self.reshape(1).index_add(dim, index.reshape(-1), source.reshape(-1),
                                             alpha=alpha).reshape(())
        return self._op(selection.IndexAdd(dim, alpha), self, index, source)

    @numpy_dim
    def index_copy(self, dim, index, source):
        """A copy with source[..., i, ...] written to the slice index[i] along ``dim``."""
        index, source = _tensors("index_copy", index=index, source=source)
        if self.ndim == 0:
            return self.reshape(1).index_copy(dim, index.reshape(-1),
                                              source.reshape(-1)).reshape(())
        return self._op(selection.IndexCopy(dim), self, index, source)

    def index_put(self, indices, values, accumulate=False):
        """A copy with y[indices] = values (``indices`` a tuple of index tensors, as in
        x[i, j]); with ``accumulate=True`` values are added, once per index."""
        return self._op(self._index_put(indices, values, accumulate, "index_put"), self,
                        values)

    def _index_put(self, indices, values, accumulate, name):
        if not isinstance(indices, (tuple, list)) or not all(map(self._is_tensor, indices)):
            _fail(name, f"indices must be a tuple of tensors, got {type(indices).__name__}.",
                  "e.g. x.index_put((rows, cols), values), as x[rows, cols] = values.",
                  ArgumentError)
        (values,) = _tensors(name, values=values)
        if values._array.dtype != self._array.dtype:
            _fail(name, f"values are {values.dtype.name} but this tensor is "
                  f"{self.dtype.name}; they must be the same.",
                  f"convert them first: values.to(nb.{self.dtype.name}).", DTypeError)
        return indexing.IndexPut(tuple(i._array for i in indices), accumulate)

    def take(self, index):
        """The elements at flat positions ``index`` (as if the tensor were 1-d), in
        index's shape."""
        (index,) = _tensors("take", index=index)
        return self._op(selection.Take(), self, index)

    def put(self, index, source, accumulate=False):
        """A copy with the elements at flat positions ``index`` set to ``source`` (added
        with ``accumulate=True``)."""
        index, source = _tensors("put", index=index, source=source)
        return self._op(selection.Put(accumulate), self, index, source)

    def _source(self, src, value):
        src = value if src is None else src
        if not self._is_tensor(src):
            return self._new(np.asarray(src, dtype=self._array.dtype))
        if src._array.dtype != self._array.dtype:
            raise DTypeError(message(
                f"src is {src.dtype.name} but this tensor is {self.dtype.name}; scatter "
                "needs them the same.", where="Tensor.scatter",
                hint=f"convert src first: src.to(nb.{self.dtype.name})."))
        return src

    @numpy_dim
    def index_select(self, dim, index):
        """The slices at ``index`` (a vector of positions) along ``dim``."""
        d = self._dim(dim, "index_select")
        idx = np.asarray(index)
        if idx.ndim > 1 or idx.dtype.kind not in "iu":
            _fail("index_select", f"index must be a vector of integers, got "
                  f"{idx.dtype.name} of shape {fmt_shape(idx.shape)}.",
                  "e.g. x.index_select(0, nb.tensor([2, 0])).", DTypeError)
        return self[(slice(None),) * d + (idx.reshape(-1),)] if self.ndim else self[idx]

    @numpy_dim
    def take_along_dim(self, indices, dim=None):
        """Values at ``indices`` along ``dim`` (indices broadcast against the other dims);
        without dim, both are flattened first."""
        if dim is None:
            return self.reshape(-1).gather(0, indices.reshape(-1))
        d = self._dim(dim, "take_along_dim")
        if indices.ndim != self.ndim:
            _fail("take_along_dim", f"indices has {indices.ndim} dims, the tensor "
                  f"{self.ndim}: they need the same number.", "unsqueeze the indices.",
                  ShapeError)
        both = list(np.broadcast_shapes(self.shape[:d] + (1,) + self.shape[d + 1:],
                                        indices.shape[:d] + (1,) + indices.shape[d + 1:]))
        x = self.expand(both[:d] + [self.shape[d]] + both[d + 1:])
        return x.gather(d, indices.expand(both[:d] + [indices.shape[d]] + both[d + 1:]))

    # -- by mask -----------------------------------------------------------------------------
    def masked_fill(self, mask, value):
        """``value`` (a number or a 0-d tensor) where ``mask`` is true."""
        if self._is_tensor(value):
            return self._op(selection.MaskedFill(), self, mask, value.to(self.dtype))
        return self._op(selection.MaskedFill(value), self, mask)

    def masked_scatter(self, mask, source):
        """A copy whose elements where ``mask`` is true are, in order, the first elements
        of ``source``."""
        mask, source = _tensors("masked_scatter", mask=mask, source=source)
        return self._op(selection.MaskedScatter(), self, mask, source)

    def masked_select(self, mask):
        """The elements where ``mask`` (broadcast with this tensor) is true, as a vector."""
        if mask._array.dtype != np.bool_:
            _fail("masked_select", f"the mask must be boolean, got {mask.dtype.name}.",
                  "compare to get one (x > 0), or convert: mask.bool().", DTypeError)
        shape = np.broadcast_shapes(self.shape, mask.shape)
        return self.expand(shape)[np.broadcast_to(mask._array, shape)]

    # -- by order ----------------------------------------------------------------------------
    @numpy_dim
    def sort(self, dim=-1, descending=False, stable=False):
        """(values, indices) sorted along ``dim``; NaN counts as the largest value."""
        if self.ndim == 0:
            return SortResult(self.clone(), self._new(np.zeros((), dtype=np.int64)))
        d = self._dim(dim, "sort")
        order = order_of(self._array, d, descending)
        return SortResult(self._op(selection.Gather(d), self, self._new(order)),
                          self._new(order))

    @numpy_dim
    def argsort(self, dim=-1, descending=False, stable=False):
        return self.sort(dim, descending, stable).indices

    @numpy_dim
    def topk(self, k, dim=-1, largest=True, sorted=True):
        """The k largest (or smallest) values along ``dim`` and their indices."""
        d = self._dim(dim, "topk")
        n = self.shape[d] if self.ndim else 1
        if not 0 <= k <= n:
            _fail("topk", f"k={k} is out of range for dim {dim} of size {n}.",
                  f"k can be 0 to {n}.")
        if self.ndim == 0:
            return TopkResult(self.clone(), self._new(np.zeros((), dtype=np.int64)))
        order = order_of(self._array, d, descending=largest)
        top = np.take(order, np.arange(k), axis=d)
        return TopkResult(self._op(selection.Gather(d), self, self._new(top)), self._new(top))

    # -- answers that are indices ---------------------------------------------------------------
    def nonzero(self, *, as_tuple=False):
        """The indices of the non-zero elements: one row per element (n, ndim), or with
        ``as_tuple`` one vector per dim."""
        if self.ndim == 0:  # a 0-d tensor: one row of no coordinates if it is non-zero
            count = int(self._array != 0)
            if as_tuple:  # as PyTorch: one vector, as if the tensor were 1-D
                return (self._new(np.zeros(count, dtype=np.int64)),)
            return self._new(np.zeros((count, 0), dtype=np.int64))
        found = np.nonzero(self._array)
        if as_tuple:
            return tuple(self._new(i.astype(np.int64)) for i in found)
        return self._new(np.stack(found, axis=1).astype(np.int64))

    def argwhere(self):
        return self.nonzero()

    def unique(self, sorted=True, return_inverse=False, return_counts=False, dim=None):
        """The distinct values, in increasing order; optionally where each element went
        (``return_inverse``) and how many of each there were (``return_counts``)."""
        axis = None if dim is None else self._dim(dim, "unique")
        values, inverse, counts = np.unique(self._array, return_inverse=True,
                                            return_counts=True, axis=axis)
        results = [self._new(values)]
        if return_inverse:
            shape = self.shape if axis is None else (self.shape[axis],)
            results.append(self._new(inverse.reshape(shape).astype(np.int64)))
        if return_counts:
            results.append(self._new(counts.astype(np.int64)))
        return results[0] if len(results) == 1 else tuple(results)


def _tensors(where, **named) -> list:
    """The tensor arguments of ``where``, refusing anything else (as PyTorch does)."""
    others = [name for name, t in named.items() if not hasattr(t, "_array")]
    if others:
        name = others[0]
        _fail(where, f"{name} must be a tensor, got {type(named[name]).__name__}.",
              f"make it one: nb.tensor({name}).", ArgumentError)
    return list(named.values())


def _one_element(t):
    """A 0-d tensor as a 1-d tensor of one element (other values as they are)."""
    return t.reshape(1) if getattr(t, "ndim", None) == 0 else t
