"""Elementwise ops: read the backward methods as a table of derivatives.

Binary ops broadcast like numpy and PyTorch; the engine sums each gradient back
to its input's shape, so the backward rules here are written for equal shapes.
Where inf or NaN can appear the rules are PyTorch's, written the same way (a
masked gradient is ``np.where(mask, grad_out, 0)``, never ``grad_out * mask``, so
an infinite gradient stays out of the places the mask closes).  Forwards make inf
and NaN (inf + -inf, 0 * inf, 1 / 0, exp(1000), log(0)) silently, as PyTorch does:
``apply`` runs every forward, and the engine every backward, with numpy's warnings
about them off.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import fits
from ..errors import DTypeError, InputError, fmt_shape
from .base import Op, broadcast_shape, is_int, quiet


def _float_dtype(dtype):
    """Math on integers gives the default float (float32), as in PyTorch."""
    return dtype if dtype.kind == "f" else np.dtype(np.float32)


class Binary(Op):
    ints_to_float = False  # integer operands are converted to the default float first
    ufunc = None           # the numpy function, where x op= y can run straight into x

    def check_operands(self, a, b, dtype):
        """Refuse operands PyTorch refuses, before they are promoted to ``dtype``.
        Each is a tensor's numpy dtype, or a Python number as it was written."""

    def infer(self, a, b):
        shape = a.shape
        return shape if shape == b.shape else broadcast_shape(self, a, b)


class Unary(Op):

    def infer(self, x):
        return x.shape


class Add(Binary):
    name = "add"
    ufunc = np.add  # for in-place writes outside the graph (x += y under no_grad)

    def forward(self, a, b):
        return a + b

    def backward(self, grad_out):  # z = a + b;  dz/da = 1, dz/db = 1
        return grad_out, grad_out


class Sub(Binary):
    name = "sub"
    ufunc = np.subtract

    def check_operands(self, a, b, dtype):
        if _is_bool(a) or _is_bool(b):
            self.fail("subtraction with a bool is not defined (as in PyTorch).", cls=DTypeError,
                      values=_operands(a, b),
                      hint="to flip a mask use mask == 0; to compare two masks, a != b; for "
                      "arithmetic convert first: mask.long() - 1.")

    def forward(self, a, b):
        return a - b

    def backward(self, grad_out):  # z = a - b;  dz/da = 1, dz/db = -1
        return grad_out, -grad_out


class Mul(Binary):
    name = "mul"
    ufunc = np.multiply

    def forward(self, a, b):
        need_a, need_b = self.needs_input_grad
        self.a, self.b = (a if need_b else None), (b if need_a else None)  # only what's needed
        return a * b

    def backward(self, grad_out):  # z = a * b;  dz/da = b, dz/db = a
        need_a, need_b = self.needs_input_grad
        return (grad_out * self.b if need_a else None,
                grad_out * self.a if need_b else None)


class Div(Binary):
    name = "div"
    ints_to_float = True  # 7 / 2 is 3.5, in the default float dtype
    ufunc = np.true_divide

    def forward(self, a, b):
        self.a = a if self.needs_input_grad[1] else None
        self.b = b if any(self.needs_input_grad) else None
        return a / b

    def backward(self, grad_out):  # z = a / b;  dz/da = 1/b, dz/db = -a/b**2
        need_a, need_b = self.needs_input_grad
        grad_a = grad_out / self.b if need_a else None
        grad_b = -grad_out * (self.a / self.b / self.b) if need_b else None  # PyTorch's order
        return grad_a, grad_b


class FloorDiv(Binary):
    """a // b: the quotient rounded down (PyTorch's floor_divide)."""

    name = "floor_divide"

    def check_operands(self, a, b, dtype):
        _refuse_two_bools(self, a, b, "//")

    def forward(self, a, b):
        _refuse_integer_zero(self, b)
        return _floor_divide(a, b)

    def backward(self, grad_out):  # z = floor(a / b), a staircase;  dz/da = dz/db = 0
        zero = np.zeros_like(grad_out)
        return zero, zero


class Remainder(Binary):
    """a % b: the remainder with the sign of b, as Python's % (PyTorch's remainder)."""

    name = "remainder"

    def check_operands(self, a, b, dtype):
        _refuse_two_bools(self, a, b, "%")

    def forward(self, a, b):
        _refuse_integer_zero(self, b)
        self.a, self.b = (a, b) if self.needs_input_grad[1] else (None, None)
        return _remainder(a, b)

    def backward(self, grad_out):  # z = a - b floor(a / b);  dz/da = 1, dz/db = -floor(a / b)
        need_b = self.needs_input_grad[1]
        return grad_out, (-grad_out * np.floor_divide(self.a, self.b) if need_b else None)


class Fmod(Binary):
    """fmod(a, b): the remainder with the sign of a, as C's fmod (a % b takes b's sign)."""

    name = "fmod"

    def check_operands(self, a, b, dtype):
        if _is_bool(a) and _is_bool(b):
            self.fail("fmod of two bools is not defined (as in PyTorch).", cls=DTypeError,
                      values=_operands(a, b),
                      hint="convert one of them first: mask.long().fmod(other).")

    def forward(self, a, b):
        _refuse_integer_zero(self, b)
        self.a, self.b = (a, b) if self.needs_input_grad[1] else (None, None)
        return np.fmod(a, b)  # 1.0 fmod 0 is NaN

    def backward(self, grad_out):  # z = a - b trunc(a / b);  dz/da = 1, dz/db = -trunc(a / b)
        need_b = self.needs_input_grad[1]
        return grad_out, (-grad_out * np.trunc(self.a / self.b) if need_b else None)


_floor_divide = quiet(np.floor_divide)  # 1.0 // 0 is inf


@quiet  # 1.0 % 0 is NaN
def _remainder(a, b):
    """a % b by PyTorch's rule: fmod (the sign of a), moved by b where the signs differ.
    A zero keeps a's sign (numpy's np.remainder would give it b's)."""
    if a.dtype.kind != "f":
        return np.remainder(a, b)
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


class Pow(Binary):
    name = "pow"
    keeps_output = True

    def check_operands(self, base, exponent, dtype):
        if _is_bool(base) and _is_bool(exponent) and not isinstance(exponent, bool):
            self.fail("a bool to a bool power is not defined (as in PyTorch).", cls=DTypeError,
                      values=_operands(base, exponent),
                      hint="convert one of them: mask.long() ** other.")
        if is_int(exponent) and exponent < 0 and getattr(base, "kind", "f") in "iub":
            self.fail("integers to negative integer powers are not allowed (the result is "
                      "not an integer).", cls=DTypeError, values=_operands(base, exponent),
                      hint="make the base floating point first: x.float() ** -1.")
        if isinstance(exponent, (int, float)) and not fits(exponent, dtype):
            self.fail(f"the exponent {exponent!r} is out of the range of {dtype.name}, the "
                      "dtype of the power (as in PyTorch).", cls=InputError,
                      hint="widen the base first: x.double() ** e, or x.long() ** e.")

    def forward(self, a, b):
        self.a, self.b = a, b
        self.out = _power(a, b) if a.dtype.kind == "f" else _integer_power(a, b)
        return self.out

    def backward(self, grad_out):  # z = a**b;  dz/da = b * a**(b-1), dz/db = a**b * log(a)
        need_a, need_b = self.needs_input_grad
        grad_a = grad_b = None
        if need_a:  # b = 0 gives 0, also at a = 0 (where a**(b-1) is infinite)
            grad_a = np.where(self.b == 0, 0, grad_out * (self.b * _power(self.a, self.b - 1)))
        if need_b:  # at a = 0 the derivative along b is taken as 0 where b >= 0
            grad_b = grad_out * np.where((self.a == 0) & (self.b >= 0), 0,
                                         self.out * np.log(self.a))
        return grad_a, grad_b


def _power(a, b):
    """Floats: np.power, but x ** -0.5 is 1 / sqrt(x) as in PyTorch (NaN at -inf, -inf at
    -0.0, where pow gives 0 and inf).  Like PyTorch, numpy computes x ** 0.5 as sqrt(x)."""
    if b.ndim == 0 and b == -0.5:
        return 1 / np.sqrt(a)
    return np.power(a, b)


def _integer_power(a, b):
    """Integers (or bools) to integer powers, as PyTorch: for b < 0 the result is
    1 / a**-b rounded toward zero, so 1 for a = 1, +-1 for a = -1 and 0 otherwise."""
    negative = b < 0
    out = np.power(a, np.where(negative, 0, b)).astype(a.dtype, copy=False)
    if np.any(negative):
        sign = np.where(b % 2 == 0, 1, -1)  # (-1) ** b
        out = np.where(negative, np.where(a == -1, sign, a == 1), out).astype(a.dtype)
    return out


class Maximum(Binary):
    name = "maximum"

    def forward(self, a, b):
        self.a, self.b = a, b
        return np.maximum(a, b)

    def backward(self, grad_out):
        # z = max(a, b);  dz/da = 1 where a > b, 0 where a < b, 1/2 on a tie (and, as in
        # PyTorch, 1 for both where either is NaN)
        share = np.where(self.a == self.b, grad_out / 2, grad_out)
        return np.where(self.a < self.b, 0, share), np.where(self.a > self.b, 0, share)


class Minimum(Binary):
    name = "minimum"

    def forward(self, a, b):
        self.a, self.b = a, b
        return np.minimum(a, b)

    def backward(self, grad_out):  # z = min(a, b): the rule of max, with < and > swapped
        share = np.where(self.a == self.b, grad_out / 2, grad_out)
        return np.where(self.a > self.b, 0, share), np.where(self.a < self.b, 0, share)


class Neg(Unary):
    name = "neg"

    def infer(self, x):
        if x.dtype.kind == "b":
            self.fail("negation of a bool tensor is not defined (as in PyTorch).",
                      cls=DTypeError, hint="to flip a mask use mask == 0; for numbers "
                      "convert first: -mask.long().")
        return x.shape

    def forward(self, x):
        return -x

    def backward(self, grad_out):  # y = -x;  dy/dx = -1
        return (-grad_out,)


class Exp(Unary):
    keeps_output = True
    name = "exp"

    def forward(self, x):
        self.y = np.exp(x, dtype=_float_dtype(x.dtype))
        return self.y

    def backward(self, grad_out):  # y = exp(x);  dy/dx = y
        return (grad_out * self.y,)


class Log(Unary):
    name = "log"

    def forward(self, x):
        self.x = x
        return np.log(x, dtype=_float_dtype(x.dtype))

    def backward(self, grad_out):  # y = log(x);  dy/dx = 1/x
        return (grad_out / self.x,)


class Sqrt(Unary):
    keeps_output = True
    name = "sqrt"

    def forward(self, x):
        self.y = np.sqrt(x, dtype=_float_dtype(x.dtype))
        return self.y

    def backward(self, grad_out):  # y = sqrt(x);  dy/dx = 1 / (2 y)
        return (grad_out / (2 * self.y),)


class Abs(Unary):
    name = "abs"

    def forward(self, x):
        self.x = x
        return np.abs(x)

    def backward(self, grad_out):  # y = |x|;  dy/dx = sign(x) (0 at 0 and at NaN, as PyTorch)
        return (grad_out * np.where(np.isnan(self.x), 0, np.sign(self.x)),)


class Tanh(Unary):
    keeps_output = True
    name = "tanh"

    def forward(self, x):
        self.y = np.tanh(x, dtype=_float_dtype(x.dtype))
        return self.y

    def backward(self, grad_out):  # y = tanh(x);  dy/dx = 1 - y**2
        return (grad_out * (1 - self.y * self.y),)


class Sigmoid(Unary):
    keeps_output = True
    name = "sigmoid"

    def forward(self, x):
        x = x.astype(_float_dtype(x.dtype), copy=False)
        # 1 / (1 + e^-x) overflows for very negative x, and (tanh(x/2) + 1) / 2 loses the
        # small values there.  With e = e^-|x| (at most 1) both halves keep every digit:
        # 1 / (1 + e) for x >= 0, e / (1 + e) below.
        e = np.exp(-np.abs(x))
        self.y = np.where(x >= 0, 1, e) / (1 + e)
        return self.y

    def backward(self, grad_out):  # y = sigmoid(x);  dy/dx = y (1 - y)
        return (grad_out * self.y * (1 - self.y),)


class Relu(Unary):
    name = "relu"

    def infer(self, x):
        if x.dtype.kind == "b":
            self.fail("expects numbers, got a bool tensor.", cls=DTypeError,
                      values=f"input {fmt_shape(x.shape)} bool",
                      hint="convert it first: x.float() (or x.long()).")
        return x.shape

    def forward(self, x):
        self.mask = ~(x <= 0)  # open where x > 0 and where x is NaN, as PyTorch's mask
        return np.maximum(0, x)  # 0.0 for negatives and -inf; -0.0 and NaN stay (as PyTorch)

    def backward(self, grad_out):  # y = max(x, 0);  dy/dx = 0 if x <= 0 else 1
        return (np.where(self.mask, grad_out, 0),)  # 0 where closed, even for inf or NaN


class Clamp(Unary):
    name = "clamp"

    def __init__(self, low=None, high=None):
        if low is None and high is None:
            self.fail("clamp needs min, max or both.", cls=InputError,
                      hint="e.g. x.clamp(min=0) or x.clamp(-1, 1).")
        self.low, self.high = low, high

    def infer(self, x):
        dtype = np.dtype(x.dtype)
        for name, bound in (("min", self.low), ("max", self.high)):
            if isinstance(bound, (int, float)) and not fits(bound, dtype):
                self.fail(f"{name}={bound!r} is out of the range of {dtype.name} (as in "
                          "PyTorch).", cls=InputError,
                          hint="widen the tensor first: x.long() or x.double().")
        return x.shape

    def forward(self, x):
        # On a tie numpy's maximum and minimum keep their second argument: x, as PyTorch
        # does (clamp(-0.0, min=0) is -0.0); NaN in x or in a bound gives NaN; min > max
        # gives max everywhere.
        y, self.inside = x, True
        if self.low is not None:
            low = np.asarray(self.low).astype(x.dtype)  # as PyTorch: -1 is 255 in uint8
            y, self.inside = np.maximum(low, y), x >= low
        if self.high is not None:
            high = np.asarray(self.high).astype(x.dtype)
            y, self.inside = np.minimum(high, y), self.inside & (x <= high)
        return y

    def backward(self, grad_out):  # y = clamp(x);  dy/dx = 1 inside [min, max], 0 outside
        return (np.where(self.inside, grad_out, 0),)


def _is_bool(operand) -> bool:
    """Is this operand (a tensor's numpy dtype, or a Python number) a bool?"""
    return operand is True or operand is False or getattr(operand, "kind", None) == "b"


def _operands(a, b) -> str:
    """For messages: 'operands: a tensor of bool and the number 2'."""
    def one(x):
        return f"a tensor of {x.name}" if isinstance(x, np.dtype) else f"the number {x!r}"
    return f"operands: {one(a)} and {one(b)}"


def _refuse_two_bools(op: Op, a, b, symbol: str) -> None:
    if _is_bool(a) and _is_bool(b):
        op.fail(f"bool {symbol} bool is not defined (as in PyTorch).", cls=DTypeError,
                values=_operands(a, b),
                hint=f"convert one of them first: mask.long() {symbol} other.")


def refuse_integers(op: Op, dtype) -> None:
    """For the binary ops PyTorch computes on floats only (logaddexp, hypot)."""
    if dtype.kind != "f":
        op.fail(f"{op.name} needs floating point operands, got {dtype.name} (as in "
                "PyTorch).", cls=DTypeError,
                hint=f"convert first: a.float().{op.name}(b.float()).")


def _refuse_integer_zero(op: Op, b) -> None:
    """Integer division by zero has no answer (floats give inf or NaN)."""
    if b.dtype.kind in "iub" and not np.all(b):
        op.fail("integer division by zero.", cls=InputError,
                values=f"{b.size - np.count_nonzero(b)} of the {b.size} divisors "
                f"({b.dtype.name}) are 0",
                hint="keep zeros out of the divisor, or divide floats: x.float() // y "
                "gives inf there.")


class NanToNum(Unary):
    """NaN, inf and -inf replaced by numbers: by default 0 and the dtype's largest and
    smallest finite values.  Integers and bools have none of them and stay as they are."""

    name = "nan_to_num"

    def __init__(self, nan=0.0, posinf=None, neginf=None):
        self.nan, self.posinf, self.neginf = nan, posinf, neginf

    def forward(self, x):
        self.finite = np.isfinite(x)
        if x.dtype.kind != "f":
            return x.copy()
        # numpy converts the numbers to x's dtype (posinf=1e300 is inf in float32, as PyTorch)
        return np.nan_to_num(x, nan=self.nan, posinf=self.posinf, neginf=self.neginf)

    def backward(self, grad_out):  # y = x where x is finite, a constant elsewhere
        return (np.where(self.finite, grad_out, 0),)


class Compare(Binary):
    """x == y, x < y, ...: booleans, no gradient."""

    FUNCTIONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
                 "gt": np.greater, "ge": np.greater_equal}

    def __init__(self, kind):
        self.kind = kind

    @property
    def name(self):
        return self.kind

    def out_dtype(self, a, b):
        return np.dtype(np.bool_)

    def forward(self, a, b):
        return self.FUNCTIONS[self.kind](a, b)

    def backward(self, grad_out):  # a comparison is a step: its derivative is 0
        return None, None


class Clone(Unary):
    name = "clone"

    def forward(self, x):
        return x.copy()

    def backward(self, grad_out):  # y = x;  dy/dx = 1
        return (grad_out,)


class Cast(Unary):
    name = "to"

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)

    def out_dtype(self, x):
        return self.dtype

    def forward(self, x):
        return x.astype(self.dtype)

    def backward(self, grad_out):  # a cast changes precision only; the engine casts back
        return (grad_out,)


class Fill(Unary):
    """Every element set to ``value`` (x.fill_, x.zero_)."""

    name = "fill"

    def __init__(self, value):
        self.value = value

    def forward(self, x):
        return np.full(x.shape, self.value, dtype=x.dtype)

    def backward(self, grad_out):  # y = c;  dy/dx = 0 (a gradient of zeros, as PyTorch's)
        return (np.zeros_like(grad_out),)


class CopyFrom(Op):
    """y = src broadcast to x's shape and dtype (x.copy_(src))."""

    name = "copy_"

    def infer(self, x, src):
        if broadcast_shape(self, x, src) != tuple(x.shape):
            self.fail(f"the source of shape {tuple(src.shape)} does not broadcast to the "
                      f"destination's shape {tuple(x.shape)}.",
                      hint="copy_ keeps the destination's shape; the source must broadcast "
                      "to it.")
        return x.shape

    def forward(self, x, src):
        return np.broadcast_to(src, x.shape).astype(x.dtype, copy=True)

    def backward(self, grad_out):  # y = src;  dy/dx = 0 (zeros, as PyTorch's), dy/dsrc = 1
        return np.zeros_like(grad_out), grad_out
