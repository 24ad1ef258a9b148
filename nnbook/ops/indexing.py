"""Indexing with PyTorch's rules: ``x[key]`` and ``x[key] = value``.

numpy and PyTorch agree on slices, ``None``, ``...``, integer lists and boolean
masks, and differ on one thing a student meets: an integer among list indices.
For ``x`` of shape (2, 3, 4), numpy reads ``x[0, :, [1, 2]]`` as two "advanced"
indices (0 and [1, 2]) split by a slice and puts their dimension first, shape
(2, 3); PyTorch first takes row 0 -- an integer just removes its dimension --
then indexes what is left, shape (3, 2).

So every key is split in two, applied one after the other:

    basic     integers, slices, None and ... (a view of x, no copy)
    advanced  lists, integer arrays and boolean masks, on what ``basic`` left
              (numpy's rules from there on, which are PyTorch's)

Slices take positive steps only, as in PyTorch (``x.flip(0)`` reverses).
"""
from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, DimError, InputError, fmt_shape
from .base import Op, is_int


def split_key(op: Op, key, shape) -> tuple:
    """(basic, advanced): the two keys that together index like PyTorch (advanced may be None)."""
    parts = list(key) if isinstance(key, tuple) else [key]
    parts = [_as_index(op, k) for k in parts]
    used = sum(_dims_used(k) for k in parts)
    if sum(k is Ellipsis for k in parts) > 1:
        op.fail("an index can hold only one ellipsis (...).", cls=InputError)
    if used > len(shape):
        op.fail(f"too many indices for a tensor of shape {fmt_shape(shape)}: {used} "
                f"dimensions indexed, it has {len(shape)}.", cls=DimError,
                hint="one index per dimension at most (None adds a dimension, ... stands for "
                "the rest).")
    if Ellipsis in [k for k in parts if not isinstance(k, np.ndarray)]:
        at = next(i for i, k in enumerate(parts) if k is Ellipsis)
        parts[at:at + 1] = [slice(None)] * (len(shape) - used)
    basic, advanced, has_advanced = [], [], False
    for k in parts:
        if isinstance(k, np.ndarray):
            has_advanced = True
            basic.extend([slice(None)] * _dims_used(k))
            advanced.append(k)
        else:
            basic.append(k)
            if not is_int(k):  # a slice or None leaves a dimension for the second step
                advanced.append(slice(None))
    # A trailing ... keeps every basic result an array view (x[0] of a 1-D x is a 0-d view,
    # not a numpy scalar), so writes through it reach x.
    return tuple(basic) + (Ellipsis,), (tuple(advanced) if has_advanced else None)


def _as_index(op: Op, k):
    """One entry of a key as an int, slice, None, ... or a numpy array of ints or bools."""
    if k is None or k is Ellipsis or is_int(k):
        return int(k) if is_int(k) else k
    if isinstance(k, slice):
        if k.step is not None and k.step <= 0:
            op.fail(f"slice steps must be positive, got step {k.step}.", cls=InputError,
                    hint="PyTorch has no negative steps: reverse with x.flip(dim) instead.")
        return k
    if isinstance(k, bool):
        return np.asarray(k)
    if isinstance(k, (float, str, bytes)):  # a Python value that never indexes
        op.fail(f"an index must be an int, a slice, None, ... or a tensor of integers or "
                f"booleans, got {type(k).__name__} {k!r:.40}.", cls=ArgumentError,
                hint="index with whole numbers: x[int(i)], or x[i:j] for a range.")
    array = np.asarray(k)
    if array.ndim == 0 and array.dtype.kind in "iu":  # a 0-d integer tensor is an integer
        return int(array)
    if array.dtype.kind not in "iub" and not (array.size == 0 and array.dtype.kind == "f"):
        op.fail(f"tensors used as indices must be integers or booleans, got {array.dtype.name}.",
                cls=InputError, hint="convert it: idx.long() (or a mask: x > 0).")
    return array.astype(np.int64) if array.dtype.kind == "f" else array


def _dims_used(k) -> int:
    if k is None or k is Ellipsis:
        return 0
    if isinstance(k, np.ndarray) and k.dtype == bool:
        return k.ndim
    return 1


def is_region(array, key, part) -> bool:
    """Is ``part`` exactly the view ``array[key]`` (the same memory, shape and strides)?"""
    try:
        basic, advanced = split_key(_QUIET, key, array.shape)
        view = array[basic]
    except Exception:  # noqa: BLE001  (any key numpy refuses is not this region)
        return False
    return advanced is None and view.shape == part.shape and view.strides == part.strides \
        and view.__array_interface__["data"][0] == part.__array_interface__["data"][0]


def _index(array, basic, advanced):
    out = array[basic]
    return out if advanced is None else out[advanced]


def _check(op: Op, shape, basic, advanced) -> tuple:
    """The result's shape, with a clear error for an index out of range."""
    probe = np.broadcast_to(np.empty((), dtype=np.int8), shape)  # no memory, every check
    try:
        return _index(probe, basic, advanced).shape
    except IndexError as err:
        op.fail(f"cannot index a tensor of shape {fmt_shape(shape)} this way: {err}.",
                cls=DimError, hint="indices count from 0; a dimension of size n takes "
                "-n .. n-1 (and a mask must have the shape of the dimensions it covers).")


class Index(Op):
    """y = x[key]: a view for basic keys, a copy when there are advanced indices."""

    name = "index"

    def __init__(self, key):
        self.key = key

    def infer(self, x):
        return _check(self, x.shape, *split_key(self, self.key, x.shape))

    def forward(self, x):
        self.in_shape = x.shape
        self.basic, self.advanced = split_key(self, self.key, x.shape)
        self.is_view = self.advanced is None
        return _index(x, self.basic, self.advanced)

    def view_of(self, x):
        return x[self.basic]

    def backward(self, grad_out):  # y = x[key];  every picked element gets its gradient back
        grad = np.zeros(self.in_shape, dtype=grad_out.dtype)
        if self.advanced is None:
            grad[self.basic] = grad_out
        else:  # an element may be picked twice: add, don't assign
            np.add.at(grad[self.basic], self.advanced, grad_out)
        return (grad,)


class IndexPut(Op):
    """y = x with y[key] = value (what ``x[key] = value`` writes); with ``accumulate``,
    y[key] += value, once for each time an element is indexed."""

    name = "index_put"

    def __init__(self, key, accumulate=False):
        self.key, self.accumulate = key, bool(accumulate)

    def infer(self, x, value):
        target = _check(self, x.shape, *split_key(self, self.key, x.shape))
        try:
            fits = np.broadcast_shapes(target, _without_leading_ones(value.shape)) == target
        except ValueError:
            fits = False
        if not fits:
            self.fail(f"a value of shape {fmt_shape(value.shape)} cannot fill the indexed "
                      f"part of shape {fmt_shape(target)}.",
                      hint=f"the value must broadcast to the shape x[key] has, "
                      f"{fmt_shape(target)}: a single number, or a tensor of that shape.")
        return x.shape

    def forward(self, x, value):
        self.basic, self.advanced = split_key(self, self.key, x.shape)
        out = x.copy()
        part = out[self.basic]
        self.value_shape, value = value.shape, value.reshape(
            _without_leading_ones(value.shape))
        if self.accumulate:  # np.add.at adds once per index, also for one given twice
            np.add.at(part, Ellipsis if self.advanced is None else self.advanced, value)
        elif self.advanced is None:
            part[...] = value
        else:
            part[self.advanced] = value
        return out

    def backward(self, grad_out):  # the indexed part came from value, the rest from x
        grad_x = grad_out          # (accumulate: y = x + value there, so all of x counts)
        if not self.accumulate:
            grad_x = grad_out.copy()
            part = grad_x[self.basic]
            part[Ellipsis if self.advanced is None else self.advanced] = 0
        grad_value = _index(grad_out, self.basic, self.advanced)
        ones = len(self.value_shape) - grad_value.ndim  # the leading ones forward dropped
        if ones > 0:
            grad_value = grad_value.reshape((1,) * ones + grad_value.shape)
        return grad_x, grad_value


def _without_leading_ones(shape) -> tuple:
    """x[key] = value: as in PyTorch, a value's leading ones don't count, so a value of
    shape (1, 3) fills x[0] of shape (3,) (broadcasting puts back the ones it needs)."""
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


class WriteThroughView(Op):
    """A tensor after one of its views was changed in place (PyTorch's CopySlices):
    y = base, with the view's part of it replaced by the view's new value."""

    name = "write_through_view"

    def __init__(self, view_op):
        self.view_op = view_op

    def infer(self, base, view):
        return base.shape

    def forward(self, base, view):
        out = base.copy()
        self.view_op.view_of(out)[...] = view
        return out

    def backward(self, grad_out):  # the view's part came from the view, the rest from base
        grad_base = grad_out.copy()
        self.view_op.view_of(grad_base)[...] = 0
        return grad_base, np.array(self.view_op.view_of(grad_out))


class _Quiet(Op):
    """Stands in for an op where a key is only examined (errors are caught)."""

    def infer(self, *inputs):
        return ()

    def forward(self, *arrays):
        return None

    def backward(self, grad_out):
        return ()


_QUIET = _Quiet()


class _Shape:
    __slots__ = ("shape",)

    def __init__(self, shape):
        self.shape = tuple(shape)
