"""Elementwise maths as tensor methods: each builds one op of ``nnbook/ops`` (elementwise,
trig, explog, rounding, ternary).

Maths on integers or booleans (``exp``, ``sin``, ...) computes in the default float dtype,
as in PyTorch; rounding, ``abs``, ``sign``, ``square`` and ``neg`` keep integers integers.
"""
from __future__ import annotations

from .. import dtypes
from ..ops import elementwise as ew
from ..ops import explog, rounding, ternary, trig
from .operands import promoted


class Maths:
    """Tensor methods for elementwise functions (``x.exp()``, ``x.clamp(0, 1)``)."""

    __slots__ = ()

    # -- exponentials, logarithms, powers ------------------------------------------------
    def exp(self):
        return self._op(ew.Exp(), self._floating())

    def exp2(self):
        return self._op(explog.Exp2(), self._floating())

    def expm1(self):
        return self._op(explog.Expm1(), self._floating())

    def log(self):
        return self._op(ew.Log(), self._floating())

    def log2(self):
        return self._op(explog.Log2(), self._floating())

    def log10(self):
        return self._op(explog.Log10(), self._floating())

    def log1p(self):
        return self._op(explog.Log1p(), self._floating())

    def sqrt(self):
        return self._op(ew.Sqrt(), self._floating())

    def rsqrt(self):
        return self._op(explog.Rsqrt(), self._floating())

    def square(self):
        return self._op(explog.Square(), self.long() if self._array.dtype.kind == "b" else self)

    def reciprocal(self):
        return self._op(explog.Reciprocal(), self._floating())

    def erf(self):
        return self._op(explog.Erf(), self._floating())

    def logit(self, eps=None):
        return self._op(explog.Logit(eps), self._floating())

    # -- trigonometric and hyperbolic -----------------------------------------------------
    def sin(self):
        return self._op(trig.Sin(), self._floating())

    def cos(self):
        return self._op(trig.Cos(), self._floating())

    def tan(self):
        return self._op(trig.Tan(), self._floating())

    def asin(self):
        return self._op(trig.Asin(), self._floating())

    def acos(self):
        return self._op(trig.Acos(), self._floating())

    def atan(self):
        return self._op(trig.Atan(), self._floating())

    def atan2(self, other):
        return self._binary(trig.Atan2(), other)

    def sinh(self):
        return self._op(trig.Sinh(), self._floating())

    def cosh(self):
        return self._op(trig.Cosh(), self._floating())

    def tanh(self):
        return self._op(ew.Tanh(), self._floating())

    def asinh(self):
        return self._op(trig.Asinh(), self._floating())

    def acosh(self):
        return self._op(trig.Acosh(), self._floating())

    def atanh(self):
        return self._op(trig.Atanh(), self._floating())

    arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    # -- activations ----------------------------------------------------------------------
    def sigmoid(self):
        return self._op(ew.Sigmoid(), self._floating())

    def relu(self):
        return self._op(ew.Relu(), self)

    # -- sign, magnitude and rounding -------------------------------------------------------
    def abs(self):
        return self._op(ew.Abs(), self)

    absolute = abs

    def neg(self):
        return self._op(ew.Neg(), self)

    negative = neg

    def sign(self):
        return self._op(rounding.Sign(), self)

    def floor(self):
        return self._op(rounding.Floor(), self)

    def ceil(self):
        return self._op(rounding.Ceil(), self)

    def trunc(self):
        return self._op(rounding.Trunc(), self)

    fix = trunc

    def round(self, *, decimals=0):
        return self._op(rounding.Round(decimals), self)

    def frac(self):
        return self._op(rounding.Frac(), self)

    # -- bounds, choices, blends ------------------------------------------------------------
    def clamp(self, min=None, max=None):
        """min(max(x, min), max); ``min`` and ``max`` are numbers or tensors (which
        broadcast, and get gradients where they are the answer)."""
        if self._is_tensor(min) or self._is_tensor(max):
            x, low, high = promoted(self, min, max)
            bounds = [b for b in (low, high) if b is not None]
            return self._op(ternary.ClampTensor(low is not None, high is not None), x, *bounds)
        bounds = [bound for bound in (min, max) if bound is not None]
        x = self._cast(dtypes.result_type(self, *bounds))  # int.clamp(0.5) is float, as PyTorch
        return self._op(ew.Clamp(min, max), x)

    clip = clamp

    def clamp_min(self, min):
        return self.clamp(min=min)

    def clamp_max(self, max):
        return self.clamp(max=max)

    def maximum(self, other):
        return self._binary(ew.Maximum(), other)

    def minimum(self, other):
        return self._binary(ew.Minimum(), other)

    def where(self, condition, other):
        """``other`` where ``condition`` is false, this tensor where it is true."""
        x, other = promoted(self, other)
        condition = condition if self._is_tensor(condition) else self._new(condition)
        return self._op(ternary.Where(), condition, x, other)

    def lerp(self, end, weight):
        """self + weight * (end - self); ``weight`` is a number or a tensor."""
        start, end, weight = promoted(self._floating(), end, weight)
        return self._op(ternary.Lerp(), start, end, weight)
