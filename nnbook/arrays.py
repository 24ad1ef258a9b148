"""Python data to numpy arrays, with PyTorch's rules for dtypes and sizes.

The tensor floor builds on these: ``nb.tensor([1.0, 2.0])`` is float32 (the
default float), ``nb.tensor([1, 2])`` int64, a numpy array keeps its dtype;
sizes are whole numbers >= 0; an allocation too large for the machine says how
many bytes it wanted.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from . import dtypes
from .device import check_device
from .errors import ArgumentError, DTypeError, InputError, ShapeError, fmt_shape, message


def array_from(data, dtype, where, copy) -> np.ndarray:
    """``data`` (a Tensor, an array, numbers or nested lists) as an array of ``dtype``
    (None: numpy arrays keep theirs, Python floats become the default float)."""
    shared = True  # does ``array`` share memory with ``data``?
    if hasattr(data, "_array"):  # a Tensor (this floor is below the Tensor class)
        array = data._array
    elif isinstance(data, (np.ndarray, np.generic)):
        array = np.asarray(data)
        check_numeric(array.dtype, where, "a numpy array of")
    else:  # Python numbers: straight to ``dtype`` (through float32 they would lose digits)
        array, shared = _from_python(data, where, dtype), False
    if dtype is not None:
        return array.astype(dtype, copy=copy and shared)
    return array.copy() if copy and shared else array


def _from_python(data, where, dtype=None) -> np.ndarray:
    if isinstance(data, (list, tuple)) and any(hasattr(d, "_array") for d in _flat(data)):
        data = _tensors_to_lists(data)
    try:
        array = np.array(data)
    except ValueError as err:
        raise ShapeError(message(
            f"cannot make a tensor from ragged data: {err}", where=where,
            hint="every row of a nested list must have the same length (pad the short ones)."
        )) from None
    check_numeric(array.dtype, where, type(data).__name__)
    if dtype is not None:
        check_fits(array, dtype, where)
        return array
    if array.dtype.kind == "f":
        return array.astype(dtypes.default_float())
    if array.dtype.kind in "iu":
        return array.astype(np.int64)
    if array.dtype.kind == "c":
        return array.astype(np.complex64 if dtypes.default_float() == np.float32
                            else np.complex128)
    return array


def check_fits(values, dtype, where) -> None:
    """Refuse Python numbers that an integer ``dtype`` cannot hold (numpy would wrap them
    around silently: 2**31 into int32 gives -2**31), as PyTorch does.  As PyTorch, uint8
    takes -255..-1 and wraps them (-1 is 255)."""
    dtype = np.dtype(dtype)
    values = np.asarray(values)
    if dtype.kind not in "iu" or values.dtype.kind not in "iuf" or values.size == 0:
        return
    info = np.iinfo(dtype)
    low = -int(info.max) if dtype.kind == "u" else int(info.min)
    finite = np.isfinite(values) if values.dtype.kind == "f" else True
    whole = np.trunc(values) if values.dtype.kind == "f" else values
    bad = ~(finite & (whole >= low) & (whole <= int(info.max)))
    if np.any(bad):
        value = (values[bad].flat[0] if values.ndim else values[()]).item()
        raise DTypeError(message(
            f"the value {value!r} does not fit in {dtype.name}, which holds whole numbers "
            f"from {int(info.min)} to {int(info.max)}.", where=where,
            hint="use a wider dtype (nb.int64, or a float dtype), or check the value."))


def _flat(data):
    for d in data:
        if isinstance(d, (list, tuple)):
            yield from _flat(d)
        else:
            yield d


def _tensors_to_lists(data):
    if hasattr(data, "_array"):
        return data._array.tolist()
    if isinstance(data, (list, tuple)):
        return [_tensors_to_lists(d) for d in data]
    return data


def check_numeric(np_dtype, where, what) -> None:
    if np_dtype.kind not in "biufc":
        raise DTypeError(message(
            f"cannot make a tensor from {what} data (numpy sees dtype {np_dtype}).", where=where,
            hint="pass numbers, nested lists of numbers or a numeric numpy array; text "
            "must be turned into numbers first (a vocabulary of indices)."))


def parse_size(args, size, where) -> tuple:
    """Sizes as (2, 3), ((2, 3),) or size=(2, 3): checked whole numbers >= 0."""
    if size is not None:
        if args:
            raise ArgumentError(message("give the size once: as arguments or as size=, "
                                        "not both.", where=where, hint="e.g. nb.zeros(2, 3)."))
        args = (size,)
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    if len(args) == 1 and hasattr(args[0], "_array") and args[0].ndim == 1:
        args = tuple(args[0].tolist())
    shape = []
    for s in args:
        if hasattr(s, "_array") and s.numel() == 1 and s.dtype.kind in "iu":
            s = s.item()
        if not isinstance(s, (builtins.int, np.integer)) or isinstance(s, builtins.bool):
            raise ArgumentError(message(
                f"sizes must be whole numbers, got {s!r} in {tuple(args)!r}.", where=where,
                hint="e.g. nb.zeros(2, 3) or nb.zeros((2, 3)); round with int() first."))
        if s < 0:
            raise ShapeError(message(
                f"sizes must be at least 0, got {builtins.int(s)} in {tuple(args)!r}.",
                where=where, hint="a tensor cannot have a negative number of elements."))
        shape.append(builtins.int(s))
    return tuple(shape)


def allocate(make, shape, np_dtype, where) -> np.ndarray:
    """Run ``make()`` (an allocation), turning 'out of memory' into a message that says why."""
    try:
        return make()
    except (MemoryError, ValueError) as err:
        if isinstance(err, ValueError) and "too big" not in str(err) and \
                "maximum supported dimension" not in str(err):
            raise
        nbytes = math.prod(shape) * np.dtype(np_dtype).itemsize
        raise InputError(message(
            f"a tensor of shape {fmt_shape(shape)} would need {human_bytes(nbytes)}, more "
            "than this machine can give.", where=where,
            hint="check the sizes (a batch and a feature size swapped?); make it smaller or "
            "work in chunks.")) from None


def human_bytes(n) -> str:
    for unit in ("bytes", "KB", "MB", "GB", "TB", "PB"):
        if n < 1024 or unit == "PB":
            return f"{n:,.0f} {unit}" if unit == "bytes" else f"{n:,.1f} {unit}"
        n /= 1024
    return f"{n} bytes"


# ---------------------------------------------------------------------------
# nb.Tensor(...), the legacy constructor
# ---------------------------------------------------------------------------

def legacy_array(name, args, kwargs, np_dtype=None) -> np.ndarray:
    """What ``nb.Tensor(...)`` / ``nb.FloatTensor(...)`` hold: data as ``np_dtype`` (the
    default float when None), or zeros of the given sizes."""
    device = kwargs.pop("device", None)
    check_device(device, f"nb.{name}")
    if kwargs:
        raise ArgumentError(message(
            f"nb.{name}() takes data or sizes, got keyword argument(s) {', '.join(kwargs)}.",
            where=f"nb.{name}", hint="use nb.tensor(data, dtype=..., requires_grad=...)."))
    np_dtype = dtypes.default_float() if np_dtype is None else np_dtype
    if not args:
        return np.zeros((0,), dtype=np_dtype)
    if all(isinstance(a, (builtins.int, np.integer)) and not isinstance(a, builtins.bool)
           for a in args):
        shape = parse_size(args, None, f"nb.{name}")
        return allocate(lambda: np.zeros(shape, dtype=np_dtype), shape, np_dtype,
                        f"nb.{name}")
    if len(args) == 1:
        return array_from(args[0], np_dtype, f"nb.{name}", copy=True)
    raise ArgumentError(message(
        f"nb.{name}() takes one piece of data or whole-number sizes, got {args!r}.",
        where=f"nb.{name}", hint="use nb.tensor(data) for data, nb.zeros(2, 3) for sizes."))
