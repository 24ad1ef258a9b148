"""Reductions as tensor methods: ``sum``, ``mean``, ``max``... over ``dim`` (an int, a
tuple of ints, or None for every element) with ``keepdim``; numpy's ``axis=`` and
``keepdims=`` are accepted too, as PyTorch accepts them."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ..ops import elementwise as ew
from ..ops import reduce

MaxResult = namedtuple("max", ["values", "indices"])
MinResult = namedtuple("min", ["values", "indices"])


def numpy_names(dim, keepdim, axis, keepdims):
    """PyTorch also takes numpy's names: axis= for dim=, keepdims= for keepdim=."""
    return (dim if axis is None else axis), (keepdim if keepdims is None else keepdims)


class Reductions:
    """Tensor methods that reduce over dimensions."""

    __slots__ = ()

    def sum(self, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        x = self if dtype is None else self.to(dtype)
        if dtype is None and x._array.dtype.kind == "b":
            x = x.long()  # as PyTorch, the sum of booleans counts them
        return self._op(reduce.Sum(dim, keepdim), x)

    def mean(self, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        return self._op(reduce.Mean(dim, keepdim), self if dtype is None else self.to(dtype))

    def max(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
        """max() of every element; ``max(dim)`` gives (values, indices); ``max(other)`` is
        the element-wise maximum."""
        if self._is_tensor(dim):
            return self._binary(ew.Maximum(), dim)
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        op = reduce.Max(dim, keepdim)
        values = self._op(op, self)
        return values if dim is None else MaxResult(values, self._new(op.indices()))

    def argmax(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        if dim is None:
            return self._new(np.asarray(np.argmax(self._array), dtype=np.int64))
        d = self._dim(dim, "argmax")
        if self.ndim == 0:
            return self._new(np.zeros((), dtype=np.int64))
        return self._new(np.argmax(self._array, axis=d, keepdims=keepdim).astype(np.int64))

    def all(self, dim=None, keepdim=False):
        axis = None if dim is None else self._dim(dim, "all")
        return self._new(np.asarray(self._array.all(axis=axis, keepdims=keepdim)))

    def any(self, dim=None, keepdim=False):
        axis = None if dim is None else self._dim(dim, "any")
        return self._new(np.asarray(self._array.any(axis=axis, keepdims=keepdim)))
