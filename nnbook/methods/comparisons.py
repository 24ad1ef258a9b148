"""Comparisons and tests as tensor methods: ``eq``, ``lt``..., ``isclose``, ``isnan``...

Each gives a boolean tensor (no gradient); ``allclose`` and ``equal`` give one Python
bool for the whole tensor.
"""
from __future__ import annotations

import numpy as np

from ..ops import elementwise as ew
from ..ops import logical


class Comparisons:
    """Tensor methods that compare or test elements."""

    __slots__ = ()

    def eq(self, other):
        return self._binary(ew.Compare("eq"), other)

    def ne(self, other):
        return self._binary(ew.Compare("ne"), other)

    def lt(self, other):
        return self._binary(ew.Compare("lt"), other)

    def le(self, other):
        return self._binary(ew.Compare("le"), other)

    def gt(self, other):
        return self._binary(ew.Compare("gt"), other)

    def ge(self, other):
        return self._binary(ew.Compare("ge"), other)

    not_equal, less, less_equal, greater, greater_equal = ne, lt, le, gt, ge

    def isclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        """|self - other| <= atol + rtol * |other|, element by element."""
        if not self._is_tensor(other):
            other = self._new(np.asarray(other, dtype=self._array.dtype))
        return self._op(logical.IsClose(rtol, atol, equal_nan), self, other)

    def allclose(self, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
        """Is every element close (``isclose``)?"""
        return bool(self.isclose(other, rtol, atol, equal_nan)._array.all())

    def equal(self, other) -> bool:
        """The same shape and the same values (NaN is not equal to itself)?"""
        return self.shape == other.shape and bool(np.array_equal(self._array, other._array))

    def isnan(self):
        return self._op(logical.Predicate("isnan"), self)

    def isinf(self):
        return self._op(logical.Predicate("isinf"), self)

    def isfinite(self):
        return self._op(logical.Predicate("isfinite"), self)

    def isposinf(self):
        return self._op(logical.Predicate("isposinf"), self)

    def isneginf(self):
        return self._op(logical.Predicate("isneginf"), self)

    def signbit(self):
        return self._op(logical.Predicate("signbit"), self)

    def logical_not(self):
        return self._op(logical.Predicate("logical_not"), self)

    def logical_and(self, other):
        return self._binary(logical.Logical("logical_and"), other)

    def logical_or(self, other):
        return self._binary(logical.Logical("logical_or"), other)

    def logical_xor(self, other):
        return self._binary(logical.Logical("logical_xor"), other)
