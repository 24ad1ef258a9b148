"""Reductions as tensor methods: ``sum``, ``mean``, ``max``... over ``dim`` (an int, a
tuple of ints, or None for every element) with ``keepdim``; numpy's ``axis=`` and
``keepdims=`` are accepted too, as PyTorch accepts them."""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from .. import context, dtypes
from ..errors import ArgumentError, InputError, ShapeError, fmt_shape, message
from ..ops import bins as binning
from ..ops import cumulative, decompositions, reduce, statistics
from ..ops import elementwise as ew
from ..ops.selection import Gather
from ..ops.shape import Cat
from .selection import order_of

MaxResult = namedtuple("max", ["values", "indices"])
MinResult = namedtuple("min", ["values", "indices"])
MedianResult = namedtuple("median", ["values", "indices"])
ModeResult = namedtuple("mode", ["values", "indices"])
KthvalueResult = namedtuple("kthvalue", ["values", "indices"])
CummaxResult = namedtuple("cummax", ["values", "indices"])
CumminResult = namedtuple("cummin", ["values", "indices"])
HistogramResult = namedtuple("histogram", binning.HISTOGRAM_FIELDS)


def numpy_names(dim, keepdim, axis, keepdims):
    """PyTorch also takes numpy's names: axis= for dim=, keepdims= for keepdim=."""
    return (dim if axis is None else axis), (keepdim if keepdims is None else keepdims)


def correction_of(unbiased, correction, where) -> float:
    """var and std: ``correction`` (PyTorch's name now) or the older ``unbiased``."""
    if unbiased is not None and correction is not None:
        raise ArgumentError(message(
            "give correction= or unbiased=, not both.", where=where,
            hint="correction=1 is unbiased=True, correction=0 is unbiased=False."))
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


class Reductions:
    """Tensor methods that reduce over dimensions."""

    __slots__ = ()

    # -- sums and products ------------------------------------------------------------
    def _counting(self, dtype=None):
        """This tensor as summed: in ``dtype`` if given; integers and booleans as int64
        (PyTorch's sums of small integers do not overflow)."""
        if dtype is not None:
            return self.to(dtype)
        return self.long() if self._array.dtype.kind in "biu" else self

    def sum(self, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        return self._op(reduce.Sum(dim, keepdim), self._counting(dtype))

    def mean(self, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        return self._op(reduce.Mean(dim, keepdim), self if dtype is None else self.to(dtype))

    def prod(self, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        return self._op(reduce.Prod(dim, keepdim), self._counting(dtype))

    def cumsum(self, dim=None, *, dtype=None, axis=None):
        dim = self._required_dim(dim, axis, "cumsum")
        return self._op(cumulative.CumSum(dim), self._counting(dtype))

    def cumprod(self, dim=None, *, dtype=None, axis=None):
        dim = self._required_dim(dim, axis, "cumprod")
        return self._op(cumulative.CumProd(dim), self._counting(dtype))

    def nansum(self, dim=None, keepdim=False, *, dtype=None):
        """The sum of the elements that are not NaN; NaN places get gradient 0."""
        return self._op(reduce.NanSum(dim, keepdim), self._counting(dtype))

    def nanmean(self, dim=None, keepdim=False, *, dtype=None):
        """The mean of the elements that are not NaN (their sum over their count)."""
        x = self if dtype is None or self._array.dtype.kind != "f" else self.to(dtype)
        return self._op(reduce.NanMean(dim, keepdim), x)

    def cummax(self, dim):
        """(values, indices): the largest value so far along ``dim``, and where it is."""
        return self._values_and_indices(cumulative.CumMax(dim), CummaxResult)

    def cummin(self, dim):
        """(values, indices): the smallest value so far along ``dim``, and where it is."""
        return self._values_and_indices(cumulative.CumMin(dim), CumminResult)

    def _values_and_indices(self, op, result):
        """``result(values, indices)`` of an op that also finds positions (op.indices())."""
        values = self._op(op, self)
        if context.shape_only():  # no values, so no positions: zeros of the right shape
            return result(values, self._new(np.zeros(values.shape, np.int64)))
        return result(values, self._new(op.indices()))

    def logcumsumexp(self, dim):
        """log(cumsum(exp(x))) along ``dim``, without overflow."""
        return self._op(cumulative.LogCumSumExp(dim), self)

    def diff(self, n=1, dim=-1, prepend=None, append=None):
        """x[1:] - x[:-1] along ``dim``, ``n`` times (``!=`` for bools), after putting
        ``prepend`` before and ``append`` after x along ``dim``."""
        where = "Tensor.diff"
        if self.ndim == 0:
            raise ShapeError(message("diff needs at least one dimension, got a 0-d tensor.",
                                     where=where, hint="a 0-d tensor holds one number: "
                                     "there is nothing to subtract it from."))
        if not isinstance(n, int) or isinstance(n, bool) or n < 0:
            raise InputError(message(f"n (how many times to difference) must be an int "
                                     f">= 0, got {n!r}.", where=where, hint="e.g. n=1."))
        d = self._dim(dim, "diff")
        x = self
        ends = [t for t in (prepend, self, append) if t is not None]
        if len(ends) > 1:
            for t in ends:
                if not self._is_tensor(t) or t.ndim != self.ndim:
                    raise ShapeError(message(
                        f"prepend and append must be tensors with the input's {self.ndim} "
                        f"dimension(s), got {_described(t)}.", where=where,
                        hint="e.g. prepend=x[..., :1] (a slice keeps the dims)."))
            dtype = dtypes.result_type(*ends)
            x = self._op(Cat(d), *[t._cast(dtype) for t in ends])
        along = (slice(None),) * d
        for _ in range(n):
            later, earlier = x[along + (slice(1, None),)], x[along + (slice(None, -1),)]
            x = later != earlier if x._array.dtype.kind == "b" else later - earlier
        return x

    # -- counts and histograms (no gradient, as in PyTorch) -------------------------------
    def bincount(self, weights=None, minlength=0):
        """counts[v]: how many times each whole number v >= 0 occurs (or the sum of the
        ``weights`` at its places)."""
        w = None if weights is None else (weights._array if self._is_tensor(weights)
                                          else np.asarray(weights))
        return self._new(binning.bincount(self._array, w, minlength, "Tensor.bincount"))

    def histc(self, bins=100, min=0, max=0):
        """Counts in ``bins`` bins of equal width over [min, max] (min = max = 0: the
        values' own range); values outside are not counted."""
        return self._new(binning.histc(self._array, bins, min, max, "Tensor.histc"))

    def histogram(self, bins=100, *, range=None, weight=None, density=False):
        """(hist, bin_edges): counts in ``bins`` equal bins over ``range`` (default: the
        values' range), or between the edges a tensor ``bins`` gives."""
        edges = bins._array if self._is_tensor(bins) else bins
        w = None if weight is None else weight._array
        hist, edges = binning.histogram(self._array, edges, range, w, density,
                                        "Tensor.histogram")
        return HistogramResult(self._new(hist), self._new(edges))

    def _required_dim(self, dim, axis, name):
        dim = dim if axis is None else axis
        if dim is None:
            raise ArgumentError(message(f"{name} needs dim (the dimension to run along).",
                                        where=f"Tensor.{name}", hint=f"e.g. x.{name}(dim=0)."))
        return dim

    # -- statistics ------------------------------------------------------------------------
    def var(self, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None,
            keepdims=None):
        """sum (x - mean)**2 / (n - correction); correction=1 (unbiased) by default."""
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        if isinstance(dim, bool):  # x.var(False): the old var(unbiased)
            dim, unbiased = None, dim
        correction = correction_of(unbiased, correction, "Tensor.var")
        return self._op(statistics.Var(dim, correction, keepdim), self)

    def std(self, dim=None, unbiased=None, keepdim=False, *, correction=None, axis=None,
            keepdims=None):
        """sqrt(var): the same arguments as ``var``."""
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        if isinstance(dim, bool):
            dim, unbiased = None, dim
        correction = correction_of(unbiased, correction, "Tensor.std")
        return self._op(statistics.Std(dim, correction, keepdim), self)

    def logsumexp(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
        """log(sum(exp(x))) over ``dim``, without overflow."""
        dim, keepdim = numpy_names(self._required_dim(dim, axis, "logsumexp"), keepdim,
                                   None, keepdims)
        return self._op(statistics.LogSumExp(dim, keepdim), self._floating())

    def norm(self, p="fro", dim=None, keepdim=False, dtype=None, *, axis=None, keepdims=None):
        """The p-norm over ``dim`` (default: every element): p=2 and 'fro' are the
        Euclidean norm, p=1 the sum of |x|, inf the largest |x|; p='nuc' is the nuclear
        norm (the sum of singular values) of the matrices in two dims."""
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        if isinstance(p, str):
            matrix = (self.ndim == 2 if dim is None else
                      isinstance(dim, (tuple, list)) and len(dim) == 2)
            if p not in ("fro", "nuc") or (p == "nuc" and not matrix) or (
                    isinstance(dim, (tuple, list)) and len(dim) > 2):
                raise InputError(message(
                    f"norm supports p='fro' (over at most 2 dims), p='nuc' (over 2 dims) "
                    f"and numbers, got p={p!r} with dim={dim!r} for shape "
                    f"{fmt_shape(self.shape)}.", where="Tensor.norm",
                    hint="the nuclear norm is a norm of matrices: name their two dims, "
                    "dim=(-2, -1); nb.linalg.matrix_norm has the other matrix norms."))
            if p == "nuc":
                return self._nuclear_norm((0, 1) if dim is None else tuple(dim), keepdim,
                                          dtype)
            p = 2
        x = self if dtype is None else self.to(dtype)
        return self._op(statistics.Norm(p, dim, keepdim), x)

    def _nuclear_norm(self, dim, keepdim, dtype):
        """The sum of the singular values of the matrices in the two dims ``dim``."""
        x = self if dtype is None else self.to(dtype)
        rows, cols = (self._dim(d, "norm") for d in dim)
        s = self._op(decompositions.Svdvals(False), x.movedim((rows, cols), (-2, -1)))
        y = s.sum(-1)
        return y.reshape([1 if i in (rows, cols) else n for i, n in enumerate(self.shape)]
                         ) if keepdim else y

    def count_nonzero(self, dim=None, *, axis=None):
        dim = dim if axis is None else axis
        axes = None if dim is None else tuple(
            self._dim(d, "count_nonzero") for d in (dim if isinstance(dim, (tuple, list))
                                                    else (dim,)))
        axes = None if self.ndim == 0 or axes == () else axes  # () means every dim
        return self._new(np.asarray(np.count_nonzero(self._array, axis=axes), dtype=np.int64))

    # -- max, min and friends ------------------------------------------------------------
    def max(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
        """max() of every element; ``max(dim)`` gives (values, indices); ``max(other)`` is
        the element-wise maximum."""
        if self._is_tensor(dim):
            return self._binary(ew.Maximum(), dim)
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        if dim is None:
            return self._op(reduce.Max(dim, keepdim), self)
        return self._values_and_indices(reduce.Max(dim, keepdim), MaxResult)

    def min(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
        """min() of every element; ``min(dim)`` gives (values, indices); ``min(other)`` is
        the element-wise minimum."""
        if self._is_tensor(dim):
            return self._binary(ew.Minimum(), dim)
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        if dim is None:
            return self._op(reduce.Min(dim, keepdim), self)
        return self._values_and_indices(reduce.Min(dim, keepdim), MinResult)

    def amax(self, dim=(), keepdim=False, *, axis=None, keepdims=None):
        """The largest values over ``dim`` (default: every element); ties share the
        gradient."""
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        return self._op(reduce.Amax(None if dim == () else dim, keepdim), self)

    def amin(self, dim=(), keepdim=False, *, axis=None, keepdims=None):
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        return self._op(reduce.Amin(None if dim == () else dim, keepdim), self)

    def argmax(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        return self._arg_extreme(np.argmax, dim, keepdim, "argmax")

    def argmin(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        return self._arg_extreme(np.argmin, dim, keepdim, "argmin")

    def _arg_extreme(self, numpy_arg, dim, keepdim, name):
        d = None if dim is None else self._dim(dim, name)
        self._not_empty_along(d, name)
        if dim is None:  # the position in the flattened tensor
            found = np.asarray(numpy_arg(self._array), dtype=np.int64)
            return self._new(found.reshape((1,) * self.ndim) if keepdim else found)
        if self.ndim == 0:
            return self._new(np.zeros((), dtype=np.int64))
        return self._new(numpy_arg(self._array, axis=d, keepdims=keepdim).astype(np.int64))

    def _not_empty_along(self, d, name) -> None:
        """Refuse to pick an element along dim ``d`` (every element: None) where there is none."""
        size = self.numel() if d is None or self.ndim == 0 else self.shape[d]
        if size == 0:
            along = "" if d is None else f" along dim {d}"
            raise ShapeError(message(
                f"{name} of an empty tensor {fmt_shape(self.shape)}{along}: there is no "
                "element to pick.", where=f"Tensor.{name}",
                hint="check the slicing or filtering that made this tensor empty."))

    # -- order statistics: values picked by sorting, gradients to the picked element -------
    def _picked(self, index, axis, keepdim, result):
        """(values, indices) at ``index`` (a kept dim of positions along ``axis``)."""
        if self.ndim == 0:
            return result(self.clone(), self._new(np.zeros((), dtype=np.int64)))
        values = self._op(Gather(axis), self, self._new(index))
        indices = self._new(index)
        if not keepdim:
            values, indices = values.squeeze(axis), indices.squeeze(axis)
        return result(values, indices)

    def median(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
        """The median (the lower of the middle two for an even count); ``median(dim)``
        gives (values, indices).  NaN if there is a NaN."""
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        if dim is None:
            return self._op(statistics.Median(), self)
        a, d = np.atleast_1d(self._array), self._dim(dim, "median")
        self._not_empty_along(d, "median")
        order = order_of(a, d)  # NaNs last: the first NaN is at n - (number of NaNs)
        nans = np.isnan(a).sum(axis=d, keepdims=True) \
            if a.dtype.kind == "f" and not context.shape_only() else 0
        at = np.where(nans > 0, a.shape[d] - nans, (a.shape[d] - 1) // 2)
        at = np.broadcast_to(at, a.shape[:d] + (1,) + a.shape[d + 1:])
        return self._picked(np.take_along_axis(order, at, d), d, keepdim, MedianResult)

    def kthvalue(self, k, dim=-1, keepdim=False, *, axis=None, keepdims=None):
        """The k-th smallest value (k from 1) along ``dim``, and its index."""
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        a, d = np.atleast_1d(self._array), self._dim(dim, "kthvalue")
        if not 1 <= k <= a.shape[d]:
            raise InputError(message(
                f"k={k} is out of range for dim {dim} of size {a.shape[d]}.",
                where="Tensor.kthvalue", hint=f"k counts from 1 to {a.shape[d]}."))
        at = np.take(order_of(a, d), [k - 1], axis=d)
        return self._picked(at, d, keepdim, KthvalueResult)

    def mode(self, dim=-1, keepdim=False, *, axis=None, keepdims=None):
        """The most frequent value along ``dim`` (the smallest one on a tie) and the index
        of its last occurrence, as PyTorch."""
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        a, d = np.atleast_1d(self._array), self._dim(dim, "mode")
        self._not_empty_along(d, "mode")
        if context.shape_only():  # no values to count
            return self._picked(np.zeros(a.shape[:d] + (1,) + a.shape[d + 1:], np.int64), d,
                                keepdim, ModeResult)
        rows = np.moveaxis(a, d, -1).reshape(-1, a.shape[d])
        index = np.empty(len(rows), dtype=np.int64)
        for r, row in enumerate(rows):
            values, counts = np.unique(row, return_counts=True)
            value = values[np.argmax(counts)]  # the first of the most frequent: the smallest
            index[r] = len(row) - 1 - np.argmax(row[::-1] == value)
        index = np.moveaxis(index.reshape(np.moveaxis(a, d, -1).shape[:-1] + (1,)), -1, d)
        return self._picked(index, d, keepdim, ModeResult)

    # -- logic ---------------------------------------------------------------------------
    def all(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        return self._new(np.asarray(self._array.all(axis=self._axes(dim, "all"),
                                                    keepdims=keepdim)))

    def any(self, dim=None, keepdim=False, *, axis=None, keepdims=None):
        dim, keepdim = numpy_names(dim, keepdim, axis, keepdims)
        return self._new(np.asarray(self._array.any(axis=self._axes(dim, "any"),
                                                    keepdims=keepdim)))

    def _axes(self, dim, name):
        """``dim`` (None, an int or a tuple) as numpy's axis, checked."""
        if dim is None:
            return None
        dims = dim if isinstance(dim, (tuple, list)) else (dim,)
        return tuple(self._dim(d, name) for d in dims) if self.ndim else None


def _described(t) -> str:
    shape = getattr(t, "shape", None)
    return f"a {len(shape)}-D tensor {fmt_shape(shape)}" if shape is not None else repr(t)
