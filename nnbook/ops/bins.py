"""Counting and binning: how many values fall in each bin, and which bin each value is in.

``bincount`` counts whole numbers, ``histc`` and ``histogram`` count floats in bins of
equal width (or between given edges), ``searchsorted`` and ``bucketize`` find where
values go in a sorted sequence, ``isin`` asks whether each value is among others.
The answers are counts and positions, flat in the values: no gradient flows through
them (as in PyTorch), so these are plain numpy functions, not ops of the graph.
Each takes numpy arrays and ``where``, the name the user called, for its messages.
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import DTypeError, InputError, ShapeError, fmt_shape, message
from .base import is_int


def bincount(x: np.ndarray, weights, minlength, where) -> np.ndarray:
    """counts[v] = how many times v occurs in x (or the sum of the weights of those places),
    for v = 0 .. max(x, minlength - 1)."""
    if x.dtype.kind not in "iu":
        raise DTypeError(message(f"bincount counts integers, got {x.dtype.name}.", where=where,
                                 hint="convert first: x.long() (for a mask: mask.long())."))
    if x.ndim != 1 or (x.size and x.min() < 0):
        got = f"{x.ndim}-D {fmt_shape(x.shape)}" if x.ndim != 1 else f"the value {x.min()}"
        raise (ShapeError if x.ndim != 1 else InputError)(message(
            f"bincount counts a 1-D tensor of non-negative integers, got {got}.", where=where,
            hint="flatten it first (x.flatten()), and shift negative values: x - x.min()."))
    if not is_int(minlength) or minlength < 0:
        raise InputError(message(f"minlength must be an int >= 0, got {minlength!r}.",
                                 where=where, hint="e.g. minlength=10 for ten classes."))
    if weights is None:
        return np.bincount(x, minlength=minlength).astype(np.int64)
    if weights.shape != x.shape:
        raise ShapeError(message(
            f"weights must be 1-D with one weight per value: got shape "
            f"{fmt_shape(weights.shape)} for values {fmt_shape(x.shape)}.", where=where,
            hint="give one weight per element of the input."))
    dtype = weights.dtype if weights.dtype.kind == "f" else np.dtype(np.float64)
    return np.bincount(x, weights, minlength=minlength).astype(dtype)


def _check_floats(x, where) -> None:
    if x.dtype.kind != "f":
        raise DTypeError(message(f"{where} counts floating point values, got {x.dtype.name} "
                                 "(as in PyTorch).", where=where,
                                 hint="convert first: x.float()."))


def _check_bins(bins, where) -> None:
    if not is_int(bins) or bins <= 0:
        raise InputError(message(f"bins must be an int > 0, got {bins!r}.", where=where,
                                 hint="e.g. bins=10."))


def _data_range(x, low, high, widen, where) -> tuple:
    """(low, high): the values' own range where none is given (low == high), moved
    ``widen`` apart where it is a single point."""
    if low == high and x.size:
        low, high = x.min().item(), x.max().item()
    if low > high:
        raise InputError(message(f"the range's min {low} is larger than its max {high}.",
                                 where=where, hint="give (min, max) with min <= max."))
    if low == high:
        low, high = low - widen, high + widen
    if not (math.isfinite(low) and math.isfinite(high)):
        raise InputError(message(
            f"the range [{low}, {high}] is not finite.", where=where,
            hint="drop NaN and inf first (x[x.isfinite()]), or give the range."))
    return low, high


def histc(x: np.ndarray, bins, low, high, where) -> np.ndarray:
    """Counts in ``bins`` bins of equal width over [low, high] (the values' own range when
    low == high == 0); values outside, and NaN, are not counted."""
    _check_floats(x, where)
    _check_bins(bins, where)
    low, high = _data_range(x.ravel(), low, high, 1, where)
    return _equal_bins(x.ravel(), np.ones(x.size, x.dtype), bins, low, high)


def _equal_bins(x, weights, bins, low, high) -> np.ndarray:
    """Sum of the weights in each of ``bins`` equal bins over [low, high], the last bin
    closed: bin = (x - low) * bins / (high - low), rounded down, in x's own dtype."""
    inside = (x >= low) & (x <= high)  # (NaN is neither)
    x, weights = x[inside], weights[inside]
    span = x.dtype.type(high) - x.dtype.type(low)
    position = np.floor((x - x.dtype.type(low)) * x.dtype.type(bins) / span).astype(np.int64)
    return np.bincount(np.minimum(position, bins - 1), weights, bins).astype(x.dtype)


HISTOGRAM_FIELDS = ("hist", "bin_edges")


def histogram(x: np.ndarray, bins, value_range, weight, density, where) -> tuple:
    """(hist, bin_edges): counts (or summed weights) in ``bins`` equal bins over
    ``value_range`` (default: the values' range), or between the edges ``bins`` gives;
    each bin holds its left edge, the last one its right edge too.  ``density`` divides
    by the total and the bin's width, so the bars' area is 1."""
    _check_floats(x, where)
    if weight is None:
        weight = np.ones(x.shape, x.dtype)
    elif weight.shape != x.shape or weight.dtype != x.dtype:
        raise (DTypeError if weight.dtype != x.dtype else ShapeError)(message(
            f"weight must have the input's shape and dtype {fmt_shape(x.shape)} "
            f"{x.dtype.name}, got {fmt_shape(weight.shape)} {weight.dtype.name}.",
            where=where, hint="one weight per value: weight.to(x.dtype)."))
    x, weight = x.ravel(), weight.ravel()
    if isinstance(bins, np.ndarray):  # the edges themselves
        if bins.ndim != 1 or bins.dtype != x.dtype:
            raise (ShapeError if bins.ndim != 1 else DTypeError)(message(
                f"bin edges must be a 1-D tensor of the input's dtype {x.dtype.name}, got "
                f"{bins.ndim}-D {fmt_shape(bins.shape)} {bins.dtype.name}.", where=where,
                hint="e.g. bins=nb.linspace(0, 1, 11, dtype=x.dtype)."))
        edges = bins
    else:
        _check_bins(bins, where)
        low, high = (0.0, 0.0) if value_range is None else map(float, value_range)
        low, high = _data_range(x, low, high, 0.5, where) if x.size or low != high \
            else (0.0, 1.0)
        edges = np.linspace(low, high, bins + 1).astype(x.dtype)
    # bin i holds edges[i] <= x < edges[i + 1]: one place after the last edge <= x
    count = max(edges.size - 1, 0)
    inside = (x >= edges[0]) & (x <= edges[-1]) if count else np.zeros(x.size, bool)
    position = np.searchsorted(edges, x[inside], side="right") - 1
    position = np.minimum(position, count - 1)  # the last edge closes the last bin
    hist = np.bincount(position, weight[inside], count).astype(x.dtype)
    if density:
        hist = hist / (hist.sum() * np.diff(edges))
    return hist.astype(x.dtype, copy=False), edges


def searchsorted(sorted_sequence: np.ndarray, values: np.ndarray, right, side, sorter,
                 out_int32, where) -> np.ndarray:
    """For each value, the index where it would go in ``sorted_sequence`` (along its last
    dim) to keep it sorted: before equal elements (side 'left'), or after them
    ('right').  An N-D sequence holds one sorted row per row of ``values``."""
    if side not in (None, "left", "right"):
        raise InputError(message(f"side must be 'left' or 'right', got {side!r}.",
                                 where=where, hint="'right' is the same as right=True."))
    if side == "left" and right:
        raise InputError(message("side='left' and right=True ask for opposite sides.",
                                 where=where, hint="give one of them."))
    side = side or ("right" if right else "left")
    rows_shape = sorted_sequence.shape[:-1]
    if sorted_sequence.ndim == 0 or (sorted_sequence.ndim > 1 and (
            values.shape[:-1] != rows_shape or values.ndim != sorted_sequence.ndim)):
        raise ShapeError(message(
            f"the sorted sequence {fmt_shape(sorted_sequence.shape)} must be 1-D, or have "
            f"the leading dims of the values {fmt_shape(values.shape)}.", where=where,
            hint="one sorted row for every row of values: sequence (B, N), values (B, M)."))
    if sorter is not None:
        if sorter.shape != sorted_sequence.shape or sorter.dtype.kind not in "iu":
            raise InputError(message(
                f"sorter must be integer indices of the sequence's shape "
                f"{fmt_shape(sorted_sequence.shape)}, got {fmt_shape(sorter.shape)} "
                f"{sorter.dtype.name}.", where=where,
                hint="sorter=sequence.argsort(dim=-1)."))
        sorted_sequence = np.take_along_axis(sorted_sequence, sorter, -1)
    dtype = np.int32 if out_int32 else np.int64
    if sorted_sequence.ndim == 1:
        return np.searchsorted(sorted_sequence, values, side=side).astype(dtype)
    rows = sorted_sequence.reshape(-1, sorted_sequence.shape[-1])
    found = [np.searchsorted(row, v, side=side) for row, v in
             zip(rows, values.reshape(len(rows), -1))]
    return np.array(found, dtype=dtype).reshape(values.shape)


def isin(elements: np.ndarray, test_elements: np.ndarray, invert) -> np.ndarray:
    """For each element, whether it equals one of ``test_elements`` (NaN equals nothing)."""
    return np.isin(elements, test_elements, invert=invert)
