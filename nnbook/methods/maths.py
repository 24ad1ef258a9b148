"""Elementwise maths as tensor methods: each builds one op of ``nnbook/ops/elementwise.py``.

Maths on integers or booleans (``exp``, ``log``, ...) computes in the default float dtype,
as in PyTorch.
"""
from __future__ import annotations

from .. import dtypes
from ..ops import elementwise as ew


class Maths:
    """Tensor methods for elementwise functions (``x.exp()``, ``x.clamp(0, 1)``)."""

    __slots__ = ()

    def exp(self):
        return self._op(ew.Exp(), self._floating())

    def log(self):
        return self._op(ew.Log(), self._floating())

    def sqrt(self):
        return self._op(ew.Sqrt(), self._floating())

    def abs(self):
        return self._op(ew.Abs(), self)

    def tanh(self):
        return self._op(ew.Tanh(), self._floating())

    def sigmoid(self):
        return self._op(ew.Sigmoid(), self._floating())

    def relu(self):
        return self._op(ew.Relu(), self)

    def clamp(self, min=None, max=None):
        bounds = [bound for bound in (min, max) if bound is not None]
        x = self._cast(dtypes.result_type(self, *bounds))  # int.clamp(0.5) is float, as PyTorch
        return self._op(ew.Clamp(min, max), x)

    clip = clamp
