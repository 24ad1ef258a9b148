"""Order statistics and integrals as tensor methods: ``quantile`` and ``nanquantile``,
``aminmax``, ``msort``, ``ravel``, ``trapezoid`` and ``cumulative_trapezoid``, ``dist``,
``renorm`` and ``vander``.

Each is built from ops nnbook already has (sort orders, gather, lerp, narrow, cumsum,
norm), so its gradient is theirs: a quantile's flows to the one or two elements it
interpolates between, with weights 1 - w and w, as in PyTorch.
"""
from __future__ import annotations

import numbers
from collections import namedtuple

import numpy as np

from ..errors import DTypeError, InputError, ShapeError, fmt_shape, message
from ..ops.selection import Gather
from ..ops.shape import Cat
from .selection import order_of

AminmaxResult = namedtuple("aminmax", ["min", "max"])
NanmedianResult = namedtuple("nanmedian", ["values", "indices"])
INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(x, q, dim, keepdim, interpolation, ignore_nan, where):
    """The q-th quantiles of ``x`` along ``dim`` (every element if None).

    Along each slice the sorted values sit at ranks 0 .. n-1 (NaNs sorted last); the
    quantile q sits at rank q (n - 1), between the values at floor and ceil of it, and
    'linear' interpolates, 'lower'/'higher' take one of them, 'midpoint' their mean and
    'nearest' the value at the rank rounded half to even.  With a NaN in the slice the
    quantile is NaN; ``nanquantile`` counts only the other values (n of them)."""
    qs, scalar = _quantiles(x, q, where)
    if x._array.dtype.kind != "f":
        raise DTypeError(message(f"{where} takes a floating point tensor, not "
                                 f"{x.dtype.name} (as in PyTorch).", where=where,
                                 hint="convert first: x.double()."))
    if interpolation not in INTERPOLATIONS:
        raise InputError(message(
            f"interpolation must be one of {', '.join(map(repr, INTERPOLATIONS))}, got "
            f"{interpolation!r}.", where=where, hint="'linear' is the default."))
    if x.numel() == 0:
        raise ShapeError(message(f"{where} of an empty tensor {fmt_shape(x.shape)}: there is "
                                 "nothing to rank.", where=where,
                                 hint="check the slicing or filtering that made it empty."))
    ndim = x.ndim
    if dim is None:
        x, d = x.reshape(-1), 0
    else:
        d = x._dim(dim, where.split(".")[-1]) if ndim else 0
        x = x.reshape(1) if ndim == 0 else x
    a = x._array
    n = a.shape[d]
    nans = np.isnan(a)
    count = (n - nans.sum(d, keepdims=True)) if ignore_nan else np.full(nans.any(
        d, keepdims=True).shape, n)
    ranks = qs.reshape((-1,) + (1,) * a.ndim) * np.maximum(count - 1, 0)  # (Q, ..., 1, ...)
    if not ignore_nan:  # a NaN anywhere: point at the last place, where a NaN is sorted
        ranks = np.where(nans.any(d, keepdims=True), n - 1, ranks)
    low, high = np.floor(ranks), np.ceil(ranks)
    weight = ranks - low
    if interpolation == "lower":
        high, weight = low, 0 * weight
    elif interpolation == "higher":
        low, weight = high, 0 * weight
    elif interpolation == "nearest":
        low = high = np.round(ranks)  # (half to even, as PyTorch)
        weight = 0 * weight
    elif interpolation == "midpoint":
        weight = np.where(high > low, 0.5, 0.0)
    order = order_of(a, d)

    def picked(places):  # (Q, ..., 1, ...) ranks -> values, with Q where dim d was
        at = np.moveaxis(np.squeeze(places, axis=d + 1), 0, d).astype(np.int64)
        return x._op(Gather(d), x, x._new(np.take_along_axis(order, at, d)))

    w = x._new(np.moveaxis(np.squeeze(weight, axis=d + 1), 0, d).astype(a.dtype))
    result = picked(low).lerp(picked(high), w).movedim(d, 0)  # (Q, ...) without dim d
    if keepdim and ndim:  # (a 0-d tensor keeps no dims)
        result = (result.reshape((len(qs),) + (1,) * ndim) if dim is None
                  else result.unsqueeze(d + 1))
    return result[0] if scalar else result


def _quantiles(x, q, where):
    """q as a 1-D float64 array, and whether it was a single number."""
    if x._is_tensor(q):
        if q.ndim > 1:
            raise ShapeError(message(f"q must be a number or a 0-d or 1-D tensor, got shape "
                                     f"{fmt_shape(q.shape)}.", where=where,
                                     hint="flatten it: q.flatten()."))
        if q._array.dtype != x._array.dtype:
            raise DTypeError(message(
                f"q must have the input's dtype {x.dtype.name}, got {q.dtype.name} (as in "
                "PyTorch).", where=where, hint="convert it: q.to(x.dtype)."))
        qs, scalar = q._array.astype(np.float64).reshape(-1), q.ndim == 0
    elif isinstance(q, numbers.Real) and not isinstance(q, bool):
        qs, scalar = np.array([float(q)]), True
    else:
        raise InputError(message(f"q must be a number or a tensor, got {type(q).__name__}.",
                                 where=where, hint="e.g. q=0.5, or nb.tensor([0.25, 0.75])."))
    if not ((qs >= 0) & (qs <= 1)).all():
        raise InputError(message(f"q must be in [0, 1], got {qs.tolist()}.", where=where,
                                 hint="q is a fraction: 0.5 is the median, not 50."))
    return qs, scalar


class Statistics:
    """Tensor methods for quantiles, integrals and norms of slices."""

    __slots__ = ()

    def quantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        """The q-th quantile(s) along ``dim`` (every element if None); NaN if a NaN is
        among them.  ``q``: a number or a 1-D tensor (its values come first in the shape)."""
        return quantile(self, q, dim, keepdim, interpolation, False, "Tensor.quantile")

    def nanquantile(self, q, dim=None, keepdim=False, *, interpolation="linear"):
        """``quantile`` of the values that are not NaN (NaN where all are)."""
        return quantile(self, q, dim, keepdim, interpolation, True, "Tensor.nanquantile")

    def aminmax(self, *, dim=None, keepdim=False):
        """(min, max) over ``dim`` (every element if None)."""
        if self.numel() == 0:
            raise ShapeError(message(
                f"aminmax of an empty tensor {fmt_shape(self.shape)}: there is no element "
                "to pick.", where="Tensor.aminmax",
                hint="check the slicing or filtering that made this tensor empty."))
        if dim is None and keepdim:
            return AminmaxResult(self.amin(tuple(range(self.ndim)), True),
                                 self.amax(tuple(range(self.ndim)), True))
        if dim is None:
            return AminmaxResult(self.amin(), self.amax())
        return AminmaxResult(self.amin(dim, keepdim), self.amax(dim, keepdim))

    def nanmedian(self, dim=None, keepdim=False):
        """The median of the values that are not NaN (the lower of the middle two; NaN
        where all are NaN); ``nanmedian(dim)`` gives (values, indices)."""
        if dim is None:
            if self.numel() == 0 and self._array.dtype.kind == "f":  # (as PyTorch: NaN)
                return self.sum() * np.nan
            return self.reshape(-1).nanmedian(0).values
        a, d = np.atleast_1d(self._array), self._dim(dim, "nanmedian")
        self._not_empty_along(d, "nanmedian")
        n = a.shape[d]
        valid = (n - np.isnan(a).sum(d, keepdims=True)) if a.dtype.kind == "f" else n
        at = np.maximum(valid - 1, 0) // 2  # in the sorted order, where NaNs come last
        at = np.broadcast_to(at, a.shape[:d] + (1,) + a.shape[d + 1:])
        return self._picked(np.take_along_axis(order_of(a, d), at, d), d, keepdim,
                            NanmedianResult)

    def unique_consecutive(self, return_inverse=False, return_counts=False, dim=None):
        """Each run of equal elements (or, along ``dim``, of equal slices) kept once;
        optionally which run each element belongs to and how long each run is."""
        a = self._array
        if dim is None:
            rows, shape = a.reshape(-1, 1), a.shape
        else:
            d = self._dim(dim, "unique_consecutive")
            moved = np.moveaxis(np.atleast_1d(a), d, 0)
            rows = moved.reshape(moved.shape[0], int(np.prod(moved.shape[1:])))
            shape = (moved.shape[0],)
        starts = np.ones(len(rows), dtype=bool)  # where a new run starts
        starts[1:] = (rows[1:] != rows[:-1]).any(1)
        if dim is None:
            values = a.reshape(-1)[starts]
        else:
            values = np.moveaxis(moved[starts], 0, d)
        results = [self._new(values)]
        if return_inverse:
            results.append(self._new((np.cumsum(starts) - 1).reshape(shape).astype(np.int64)))
        if return_counts:
            ends = np.append(np.flatnonzero(starts), len(rows))
            results.append(self._new(np.diff(ends).astype(np.int64)))
        return results[0] if len(results) == 1 else tuple(results)

    def msort(self):
        """The tensor sorted along dim 0."""
        return self.sort(dim=0).values

    def ravel(self):
        """The elements as a 1-D tensor (a view where the memory allows)."""
        return self.reshape(-1)

    def dist(self, other, p=2):
        """The p-norm of self - other (which broadcast)."""
        return (self - other).norm(p)

    def renorm(self, p, dim, maxnorm):
        """Each slice along ``dim`` (the sub-tensors x.select(dim, i)) whose p-norm is above
        ``maxnorm`` scaled down to norm maxnorm; the others unchanged."""
        d = self._dim(dim, "renorm")
        if not isinstance(maxnorm, numbers.Real) or maxnorm < 0 or (
                not isinstance(p, numbers.Real) or p <= 0):
            raise InputError(message(
                f"renorm needs p > 0 and maxnorm >= 0, got p={p!r}, maxnorm={maxnorm!r}.",
                where="Tensor.renorm", hint="e.g. x.renorm(2, 0, 1.0): rows of length <= 1."))
        others = tuple(i for i in range(self.ndim) if i != d)
        norms = self.norm(p, dim=others, keepdim=True) if others else self.abs()
        # factor = maxnorm / (norm + 1e-7) where norm > maxnorm (PyTorch's small guard)
        factor = (maxnorm / (norms + 1e-7)).where(norms > maxnorm, norms * 0 + 1)
        return self * factor

    def renorm_(self, p, dim, maxnorm):
        """renorm in place."""
        return self.copy_(self.renorm(p, dim, maxnorm))


def trapezoid(y, x=None, *, dx=None, dim=-1):
    """The integral of the samples ``y`` along ``dim`` by the trapezoidal rule: the sum of
    (y[i] + y[i+1]) / 2 * (x[i+1] - x[i]), with sample points ``x`` (1-D, or y's shape)
    or a spacing ``dx`` (default 1)."""
    areas, d = _trapezoids(y, x, dx, dim, "trapezoid")
    return areas.sum(d)


def trapz(y, x=None, *, dx=None, dim=-1):
    """trapezoid's older name."""
    areas, d = _trapezoids(y, x, dx, dim, "trapz")
    return areas.sum(d)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """The running integral by the trapezoidal rule: one element fewer along ``dim``."""
    areas, d = _trapezoids(y, x, dx, dim, "cumulative_trapezoid")
    return areas.cumsum(d)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of a vector: column j is x**(N-1-j) (x**j if ``increasing``),
    N columns (default len(x)).  Built by a running product, so x = 0 has gradients."""
    if x.ndim != 1:
        raise ShapeError(message(f"vander takes a vector (1-D), got shape {fmt_shape(x.shape)}.",
                                 where="nb.vander", hint="flatten it first: x.flatten()."))
    n = x.shape[0] if N is None else N
    if not isinstance(n, numbers.Integral) or n < 0:
        raise InputError(message(f"N must be a whole number >= 0, got {N!r}.",
                                 where="nb.vander", hint="N is the number of columns."))
    x = x.long() if x._array.dtype.kind == "b" else x
    if n == 0:
        return x.reshape(-1, 1)[:, :0]
    ones = x.reshape(-1, 1)[:, :1] * 0 + 1
    if n > 1:  # x**0, x**1, ..., x**(n-1)
        ones = x._op(Cat(1), ones, x.reshape(-1, 1).expand(x.shape[0], n - 1).cumprod(1))
    powers = ones
    return powers if increasing else powers.flip(1)


def _trapezoids(y, x, dx, dim, where):
    """The trapezoids' areas along ``dim`` (n - 1 of them) and dim as a number."""
    if x is not None and dx is not None:
        raise InputError(message("give x or dx, not both.", where=f"nb.{where}",
                                 hint="x are the sample points, dx their spacing."))
    d = y._dim(dim, where)
    n = y.shape[d]
    if n == 0:
        return y.narrow(d, 0, 0), d
    heights = (y.narrow(d, 1, n - 1) + y.narrow(d, 0, n - 1)) / 2
    if x is None:
        return heights * (1 if dx is None else dx), d
    if x.ndim == 1:
        if x.shape[0] != n:
            raise ShapeError(message(
                f"x has {x.shape[0]} sample points, y has {n} along dim {d} (shape "
                f"{fmt_shape(y.shape)}).", where=f"nb.{where}",
                hint="give one x per sample of y along dim."))
        widths = x.diff().reshape([-1 if i == d else 1 for i in range(y.ndim)])
    else:
        widths = x.diff(dim=dim)
    return heights * widths, d
