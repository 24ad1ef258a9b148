"""dtypes with PyTorch's names, and PyTorch's rules for mixing them.

``nb.float32`` (also ``nb.float``), ``nb.int64`` (``nb.long``), ``nb.bool`` and the
rest are :class:`dtype` objects.  Each wraps a numpy dtype, so numpy takes it
anywhere it takes a dtype (``np.zeros(3, dtype=nb.float32)``) and it compares
equal to numpy's (``t.dtype == np.float32``).

Promotion follows PyTorch, which differs from numpy in two ways a student meets:

* a Python number does not widen a tensor of its own kind: float32 + 2.5 stays
  float32, int32 + 2 stays int32; it only lifts the kind (int64 tensor + 2.5
  gives the default float dtype, float32);
* a tensor with dimensions outranks a 0-d tensor of the same kind, which outranks
  a Python number; bool < integer < floating point.

And division of integers gives the default float dtype (numpy: float64).
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from .errors import DTypeError, message

# bool < integers < floating point < complex
_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


class dtype:
    """A dtype with PyTorch's name; ``.numpy`` is the numpy dtype behind it."""

    __slots__ = ("name", "numpy", "dtype")

    def __init__(self, name: str, numpy_dtype):
        self.name = name
        self.numpy = None if numpy_dtype is None else np.dtype(numpy_dtype)
        self.dtype = self.numpy  # lets numpy take this object as a dtype

    # what numpy code reads from a dtype
    kind = property(lambda self: self._np().kind)
    itemsize = property(lambda self: self._np().itemsize)
    type = property(lambda self: self._np().type)
    char = property(lambda self: self._np().char)

    @property
    def is_floating_point(self) -> builtins.bool:
        return self.numpy is not None and self.numpy.kind == "f"

    @property
    def is_complex(self) -> builtins.bool:
        return self.numpy is not None and self.numpy.kind == "c"

    @property
    def is_signed(self) -> builtins.bool:
        return self.numpy is not None and self.numpy.kind in "fic"

    def _np(self, where=None):
        if self.numpy is None:
            raise DTypeError(message(
                f"nnbook computes with numpy, which has no {self.name}.",
                where=where or f"nb.{self.name}",
                hint="use nb.float32 (or nb.float16 for half precision); the name exists so "
                "that code mentioning it still runs up to the place it is used."))
        return self.numpy

    def __eq__(self, other):
        if isinstance(other, dtype):
            return self.name == other.name
        if self.numpy is None:
            return False
        try:
            return self.numpy == np.dtype(other)
        except TypeError:
            return NotImplemented

    def __hash__(self):
        return hash(self.numpy) if self.numpy is not None else hash(self.name)

    def __repr__(self):
        return f"nnbook.{self.name}"

    def __str__(self):  # messages read "float32" (PyTorch prints torch.float32)
        return self.name

    def __reduce__(self):
        return (as_dtype, (self.name,))


float16 = half = dtype("float16", np.float16)
float32 = float = dtype("float32", np.float32)
float64 = double = dtype("float64", np.float64)
bfloat16 = dtype("bfloat16", None)
complex64 = cfloat = dtype("complex64", np.complex64)
complex128 = cdouble = dtype("complex128", np.complex128)
uint8 = dtype("uint8", np.uint8)
int8 = dtype("int8", np.int8)
int16 = short = dtype("int16", np.int16)
int32 = int = dtype("int32", np.int32)
int64 = long = dtype("int64", np.int64)
bool = dtype("bool", np.bool_)

_ALL = (float16, float32, float64, bfloat16, complex64, complex128, uint8, int8, int16,
        int32, int64, bool)
_BY_NUMPY = {d.numpy: d for d in _ALL if d.numpy is not None}
_BY_NAME = {d.name: d for d in _ALL}
_BY_NAME.update(half=float16, float=float32, double=float64, short=int16, int=int32,
                long=int64, cfloat=complex64, cdouble=complex128)

_default_float = float32


def of_numpy(np_dtype) -> dtype:
    """The nnbook dtype of a numpy dtype (a new one for dtypes PyTorch has no name for)."""
    found = _BY_NUMPY.get(np_dtype)
    if found is None:
        np_dtype = np.dtype(np_dtype)
        found = _BY_NUMPY.get(np_dtype) or dtype(str(np_dtype), np_dtype)
    return found


def as_dtype(value, where="dtype=") -> dtype:
    """Turn what a user passed as a dtype (nb.float32, np.float32, 'float32', float) into one."""
    if isinstance(value, dtype):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if value is builtins.float:
        return _default_float
    if value is builtins.int:
        return int64
    if value is builtins.bool:
        return bool
    try:
        return of_numpy(np.dtype(value))
    except TypeError:
        raise DTypeError(message(
            f"{value!r} is not a dtype.", where=where,
            hint="use one of nb.float32, nb.float64, nb.int64, nb.bool (or their numpy "
            "equivalents)."), ) from None


def names() -> tuple:
    """Every dtype name nnbook knows ('float32', 'float', 'long', ...)."""
    return tuple(_BY_NAME)


def numpy_dtype(value, where="dtype=") -> np.dtype:
    """The numpy dtype for what a user passed as a dtype (raises for bfloat16 and such)."""
    return as_dtype(value, where)._np(where)


def get_default_dtype() -> dtype:
    """The dtype Python floats become (float32 unless changed)."""
    return _default_float


def set_default_dtype(d) -> None:
    """Make Python floats (and nb.zeros, nb.randn...) default to ``d`` (float32 or float64)."""
    global _default_float
    d = as_dtype(d, "nb.set_default_dtype")
    if not d.is_floating_point:
        raise DTypeError(message(
            f"the default dtype must be floating point, got {d.name}.",
            where="nb.set_default_dtype", hint="use nb.float32 or nb.float64."))
    _default_float = d


def default_float() -> np.dtype:
    """The default float as a numpy dtype (what the library computes with)."""
    return _default_float.numpy


# ---------------------------------------------------------------------------
# Promotion
# ---------------------------------------------------------------------------

def fits(number, np_dtype) -> builtins.bool:
    """Does PyTorch take this Python number as a value of ``np_dtype`` (in x ** n, clamp,
    x[i] = n)?  Within the dtype's range; integers take no inf or NaN, and an unsigned
    dtype takes negative ints down to -max, wrapping them around (-1 is 255 in uint8)."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.kind == "f":
        top = builtins.float(np.finfo(np_dtype).max)
        return not math.isfinite(number) or -top <= number <= top
    if np_dtype.kind not in "iu":
        return True  # bool takes any number (nonzero is True)
    if not math.isfinite(number):
        return False
    info = np.iinfo(np_dtype)
    wraps = np_dtype.kind == "u" and isinstance(number, builtins.int)
    return (-info.max if wraps else info.min) <= number <= info.max


def _rank(np_dtype) -> builtins.int:
    return _KIND_RANK.get(np_dtype.kind, 4)


def _promote_group(dtypes) -> np.dtype:
    """PyTorch's table within one group: the highest kind wins, then the widest of it."""
    top = max(_rank(d) for d in dtypes)
    result = None
    for d in dtypes:
        if _rank(d) == top:
            result = d if result is None else np.promote_types(result, d)
    return result


def _number_dtype(value) -> np.dtype:
    if isinstance(value, builtins.bool):
        return np.dtype(np.bool_)
    if isinstance(value, builtins.int):
        return np.dtype(np.int64)
    if isinstance(value, builtins.complex):
        return np.dtype(np.complex64 if _default_float.numpy == np.float32 else np.complex128)
    return _default_float.numpy


def result_type(*operands) -> np.dtype:
    """The dtype PyTorch gives an op on these operands (tensors, arrays or Python numbers)."""
    dims, zero_dims, numbers = [], [], []
    for x in operands:
        if isinstance(x, (builtins.bool, builtins.int, builtins.float, builtins.complex)):
            numbers.append(_number_dtype(x))
        elif x.ndim == 0:
            zero_dims.append(np.dtype(x.dtype))
        else:
            dims.append(np.dtype(x.dtype))
    result = None
    for group in (dims, zero_dims, numbers):
        if group:
            d = _promote_group(group)
            if result is None or _rank(d) > _rank(result):  # a lower group only lifts the kind
                result = d
    return result
