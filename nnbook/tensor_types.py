"""What kind of tensor is this?  ``nb.is_tensor``, ``nb.Size``, and the legacy typed tensors.

Old PyTorch code names a tensor's dtype by a class: ``nb.FloatTensor([1, 2])`` makes
a float32 tensor, ``nb.LongTensor(2, 3)`` a (2, 3) int64 one (zeros here), and
``isinstance(t, nb.FloatTensor)`` asks whether ``t`` is a float32 tensor.  As in
PyTorch, what they make is an ordinary ``nb.Tensor``.
"""
from __future__ import annotations

import math
import operator

from . import dtypes
from .arrays import legacy_array
from .errors import ArgumentError, message
from .tensor import Tensor, _wrap


class Size(tuple):
    """A shape (PyTorch's ``torch.Size``): a tuple of whole numbers, with ``numel()``.

    ``t.shape`` and ``t.size()`` are plain tuples in nnbook; ``nb.Size((2, 3))``
    compares equal to them and goes wherever a size goes.
    """

    __slots__ = ()

    def __new__(cls, sizes=()):
        try:
            return super().__new__(cls, [operator.index(s) for s in sizes])
        except TypeError:
            raise ArgumentError(message(
                f"a Size holds whole numbers, got {sizes!r}.", where="nb.Size",
                hint="e.g. nb.Size([2, 3]).")) from None

    def numel(self) -> int:
        """The number of elements a tensor of this shape holds."""
        return math.prod(self)


class _TypedTensor(type):
    """The class of nb.FloatTensor & co: calling one makes a Tensor of its dtype, and
    isinstance asks for that dtype."""

    def __call__(cls, *args, **kwargs):
        return _wrap(legacy_array(cls.__name__, args, kwargs, cls.dtype.numpy))

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._array.dtype == cls.dtype.numpy

    def __repr__(cls):
        return f"<class 'nnbook.{cls.__name__}'>"


def _typed(name, dtype):
    return _TypedTensor(name, (), {"dtype": dtype, "__doc__": f"A {dtype.name} tensor, the "
                                   f"legacy way: nb.{name}(data) or nb.{name}(*sizes)."})


FloatTensor = _typed("FloatTensor", dtypes.float32)
DoubleTensor = _typed("DoubleTensor", dtypes.float64)
HalfTensor = _typed("HalfTensor", dtypes.float16)
LongTensor = _typed("LongTensor", dtypes.int64)
IntTensor = _typed("IntTensor", dtypes.int32)
ShortTensor = _typed("ShortTensor", dtypes.int16)
CharTensor = _typed("CharTensor", dtypes.int8)
ByteTensor = _typed("ByteTensor", dtypes.uint8)
BoolTensor = _typed("BoolTensor", dtypes.bool)


def is_tensor(obj) -> bool:
    """True for an nnbook Tensor (a Parameter too)."""
    return isinstance(obj, Tensor)


def _tensor_only(where, input):
    if not isinstance(input, Tensor):
        raise ArgumentError(message(
            f"{where} takes a tensor, got {type(input).__name__}.", where=where,
            hint="make one first: nb.tensor(data)."))
    return input


def is_floating_point(input) -> bool:
    return _tensor_only("nb.is_floating_point", input).is_floating_point()


def is_complex(input) -> bool:
    return _tensor_only("nb.is_complex", input)._array.dtype.kind == "c"


def numel(input) -> int:
    return _tensor_only("nb.numel", input).numel()
