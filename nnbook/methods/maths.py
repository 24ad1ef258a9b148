"""Elementwise maths as tensor methods: each builds one op of ``nnbook/ops`` (elementwise,
trig, explog, rounding, ternary); and ``add``, ``sub``, ``mul``, ``div`` by name, with
PyTorch's ``alpha=`` and ``rounding_mode=`` (the operators ``+ - * /`` are in tensor.py).

Maths on integers or booleans (``exp``, ``sin``, ...) computes in the default float dtype,
as in PyTorch; rounding, ``abs``, ``sign``, ``square`` and ``neg`` keep integers integers.
"""
from __future__ import annotations

import math
import numbers
from collections import namedtuple

import numpy as np

from .. import dtypes
from ..errors import InputError, message
from ..ops import elementwise as ew
from ..ops import explog, floats, rounding, softmax, special, ternary, trig
from .operands import promoted, require_tensors

FrexpResult = namedtuple("frexp", ["mantissa", "exponent"])


def scaled(a, b, alpha, where):
    """alpha * b, the second operand of ``add`` and ``sub``; ``alpha`` is checked against the
    dtype of a and b as PyTorch checks it (a fraction cannot scale integers)."""
    dtype = dtypes.result_type(a, b)
    is_bool = isinstance(alpha, (bool, np.bool_))
    if dtype.kind in "iub" and not is_bool and not isinstance(alpha, numbers.Integral):
        raise InputError(message(
            f"alpha={alpha!r} cannot scale {dtype.name} operands: for integers alpha must be "
            "an integer (as in PyTorch).", where=where,
            hint="make an operand floating point first (x.float()), or give an int alpha."))
    if is_bool and dtype.kind != "b":
        raise InputError(message(
            f"alpha={alpha!r} is a bool, which only scales bool operands (as in PyTorch).",
            where=where, hint="give a number: alpha=1 or alpha=0."))
    if dtype.kind == "b":  # True + alpha * True stays a bool: alpha only says whether b counts
        return b if alpha else b & False
    return b if alpha == 1 else b * alpha


def quotient(binary, a, b, rounding_mode, where):
    """a / b, rounded as ``rounding_mode`` says: None (true division), 'trunc' (toward zero)
    or 'floor' (down, as //).  ``binary(op, a, b)`` runs an op on a and b (a may be a number).

    A rounded quotient is a staircase: its derivative is 0 (PyTorch gives 0 too)."""
    if rounding_mode is None:
        return binary(ew.Div(), a, b)
    if rounding_mode == "floor":
        return binary(ew.FloorDiv(), a, b)
    if rounding_mode != "trunc":
        raise InputError(message(
            f"rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}.",
            where=where, hint="'trunc' rounds toward zero (C's integer division), 'floor' "
            "rounds down (Python's //), None divides exactly."))
    if dtypes.result_type(a, b).kind == "f":
        return binary(ew.Div(), a, b).trunc()
    # integers: floor(a / b) is trunc(a / b) - 1 where the quotient is negative and inexact
    floor = binary(ew.FloorDiv(), a, b)
    return floor + ((floor * b != a) & (floor < 0))


class Maths:
    """Tensor methods for elementwise functions (``x.exp()``, ``x.clamp(0, 1)``)."""

    __slots__ = ()

    # -- arithmetic by name ---------------------------------------------------------------
    def add(self, other, *, alpha=1):
        """self + alpha * other."""
        return self._binary(ew.Add(), scaled(self, other, alpha, "Tensor.add"))

    def sub(self, other, *, alpha=1):
        """self - alpha * other."""
        return self._binary(ew.Sub(), scaled(self, other, alpha, "Tensor.sub"))

    def mul(self, other):
        return self._binary(ew.Mul(), other)

    def div(self, other, *, rounding_mode=None):
        """self / other; ``rounding_mode='trunc'`` or ``'floor'`` rounds the quotient."""
        return quotient(lambda op, a, b: a._binary(op, b), self, other, rounding_mode,
                        "Tensor.div")

    def true_divide(self, other):
        return self._binary(ew.Div(), other)

    subtract, multiply, divide = sub, mul, div

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

    def erfc(self):
        return self._op(explog.Erfc(), self._floating())

    def erfinv(self):
        return self._op(explog.Erfinv(), self._floating())

    def xlogy(self, other):
        """self * log(other), and 0 where self is 0 (0 log 0 = 0)."""
        return self._binary(explog.Xlogy(), other)

    def logaddexp(self, other):
        """log(exp(self) + exp(other)), without overflow."""
        return self._binary(explog.LogAddExp(), other)

    def logaddexp2(self, other):
        """log2(2**self + 2**other), without overflow."""
        return self._binary(explog.LogAddExp2(), other)

    # -- special functions (ops/special.py) --------------------------------------------
    def lgamma(self):
        """log|Gamma(x)|; its derivative is digamma."""
        return self._op(special.Lgamma(), self._floating())

    def digamma(self):
        """psi(x) = d/dx log Gamma(x)."""
        return self._op(special.Digamma(), self._floating())

    def polygamma(self, n):
        """The n-th derivative of digamma at x (``x.polygamma(n)`` is nb.polygamma(n, x))."""
        return self._op(special.Polygamma(_order(n)), self._floating())

    def mvlgamma(self, p):
        """The log of the multivariate gamma function of dimension ``p``:
        p(p-1)/4 log pi + sum_j=0..p-1 lgamma(x - j/2)."""
        p = _order(p, "p", "Tensor.mvlgamma", 1)
        x = self._floating()
        halves = self._new(-np.arange(p, dtype=x._array.dtype) / 2)  # 0, -1/2, -1, ...
        return (x.unsqueeze(-1) + halves).lgamma().sum(-1) + p * (p - 1) / 4 * math.log(math.pi)

    def i0(self):
        """Bessel's modified function of order 0."""
        return self._op(special.BesselI(0), self._floating())

    def sinc(self):
        """sin(pi x) / (pi x), 1 at x = 0."""
        return self._op(special.Sinc(), self._floating())

    def deg2rad(self):
        return self._floating() * (math.pi / 180)

    def rad2deg(self):
        return self._floating() * (180 / math.pi)

    def float_power(self, exponent):
        """self ** exponent computed in float64, whatever the dtypes."""
        if self._is_tensor(exponent):
            exponent = exponent.double()
        return self.double().pow(exponent)

    def frexp(self):
        """(mantissa, exponent) with self = mantissa * 2**exponent, |mantissa| in [0.5, 1)."""
        op = floats.Frexp()
        mantissa = self._op(op, self)
        return FrexpResult(mantissa, self._new(op.exponent))

    def ldexp(self, other):
        """self * 2**other."""
        return self._binary(floats.Ldexp(), other)

    def copysign(self, other):
        """|self| with the sign of ``other``."""
        return self._binary(floats.Copysign(), other)

    def heaviside(self, values):
        """0 where self < 0, 1 where self > 0, ``values`` where self == 0."""
        require_tensors(self, "Tensor.heaviside", values=values)
        return self._binary(floats.Heaviside(), values)

    def nextafter(self, other):
        """The next float after self toward ``other``."""
        return self._binary(floats.Nextafter(), other)

    def gcd(self, other):
        return self._binary(floats.WholeNumbers("gcd"), other)

    def lcm(self, other):
        return self._binary(floats.WholeNumbers("lcm"), other)

    def bitwise_left_shift(self, other):
        """self << other: times 2**other, on integers."""
        return self._binary(floats.WholeNumbers("bitwise_left_shift"), other)

    def bitwise_right_shift(self, other):
        """self >> other: floor division by 2**other, on integers."""
        return self._binary(floats.WholeNumbers("bitwise_right_shift"), other)

    __lshift__, __rshift__ = bitwise_left_shift, bitwise_right_shift

    def __rlshift__(self, other):  # 3 << x
        return self._shifted_by_self(other, "bitwise_left_shift")

    def __rrshift__(self, other):  # 300 >> x
        return self._shifted_by_self(other, "bitwise_right_shift")

    def _shifted_by_self(self, number, kind):
        """``number`` shifted by this tensor's counts; an int keeps this tensor's dtype."""
        dtype = self._array.dtype if isinstance(number, int) and self._array.dtype.kind in "iu" \
            else None
        return self._new(np.asarray(number, dtype=dtype))._binary(floats.WholeNumbers(kind), self)

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

    def hypot(self, other):
        """sqrt(self**2 + other**2), without overflow."""
        return self._binary(trig.Hypot(), other)

    arcsin, arccos, arctan, arctan2 = asin, acos, atan, atan2
    arcsinh, arccosh, arctanh = asinh, acosh, atanh

    # -- activations ----------------------------------------------------------------------
    def sigmoid(self):
        return self._op(ew.Sigmoid(), self._floating())

    def relu(self):
        return self._op(ew.Relu(), self)

    def softmax(self, dim, dtype=None):
        """exp(x) / sum(exp(x)) along ``dim`` (``dtype``: convert first)."""
        x = self if dtype is None else self.to(dtype)
        return self._op(softmax.Softmax(dim), x)

    def log_softmax(self, dim, dtype=None):
        """x - logsumexp(x) along ``dim``."""
        x = self if dtype is None else self.to(dtype)
        return self._op(softmax.LogSoftmax(dim), x)

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

    def fmod(self, other):
        """The remainder of self / other with self's sign (C's fmod); ``%`` and
        ``remainder`` give it other's sign (Python's %)."""
        return self._binary(ew.Fmod(), other)

    def nan_to_num(self, nan=0.0, posinf=None, neginf=None):
        """NaN, inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (by default 0
        and the dtype's largest and smallest finite values)."""
        return self._op(ew.NanToNum(nan, posinf, neginf), self)

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

    def addcmul(self, tensor1, tensor2, *, value=1):
        """self + value * tensor1 * tensor2 (all three broadcast)."""
        return _fused(self, ternary.Addcmul, tensor1, tensor2, value)

    def addcdiv(self, tensor1, tensor2, *, value=1):
        """self + value * tensor1 / tensor2 (all three broadcast)."""
        return _fused(self, ternary.Addcdiv, tensor1, tensor2, value)


def _order(n, name="n", where="nb.polygamma", least=0) -> int:
    """polygamma's n (or mvlgamma's p): a whole number, at least ``least``."""
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < least:
        raise InputError(message(
            f"{name} must be a whole number >= {least}, got {n!r}.", where=where,
            hint="polygamma(n, x) is the n-th derivative of digamma: n = 0, 1, 2, ..."
            if name == "n" else "p is the dimension of the multivariate gamma function."))
    return int(n)


def _fused(x, make_op, tensor1, tensor2, value):
    """addcmul or addcdiv: the op checks the dtypes as given (two integers cannot be
    divided), then runs on the three tensors promoted to one dtype."""
    op = make_op(value.item() if x._is_tensor(value) else value)
    require_tensors(x, f"Tensor.{op.name}", tensor1=tensor1, tensor2=tensor2)
    op.infer(x, tensor1, tensor2)
    return x._op(op, *promoted(x, tensor1, tensor2))
