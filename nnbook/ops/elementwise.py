"""Elementwise ops: read the backward methods as a table of derivatives.

Binary ops broadcast like numpy and PyTorch; the engine sums each gradient back
to its input's shape, so the backward rules here are written for equal shapes.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError
from .base import Op, broadcast_shape


def _float_dtype(dtype):
    """Math on integers gives the default float (float32), as in PyTorch."""
    return dtype if dtype.kind == "f" else np.dtype(np.float32)


class Binary(Op):
    ints_to_float = False  # integer operands are converted to the default float first

    def infer(self, a, b):
        shape = a.shape
        return shape if shape == b.shape else broadcast_shape(self, a, b)


class Unary(Op):

    def infer(self, x):
        return x.shape


class Add(Binary):
    name = "add"

    def forward(self, a, b):
        return a + b

    def backward(self, grad_out):  # z = a + b;  dz/da = 1, dz/db = 1
        return grad_out, grad_out


class Sub(Binary):
    name = "sub"

    def forward(self, a, b):
        return a - b

    def backward(self, grad_out):  # z = a - b;  dz/da = 1, dz/db = -1
        return grad_out, -grad_out


class Mul(Binary):
    name = "mul"

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

    def forward(self, a, b):
        self.a = a if self.needs_input_grad[1] else None
        self.b = b if any(self.needs_input_grad) else None
        with np.errstate(divide="ignore", invalid="ignore"):
            return a / b

    def backward(self, grad_out):  # z = a / b;  dz/da = 1/b, dz/db = -a/b**2
        need_a, need_b = self.needs_input_grad
        with np.errstate(divide="ignore", invalid="ignore"):
            grad_a = grad_out / self.b
            grad_b = -grad_a * self.a / self.b if need_b else None
        return (grad_a if need_a else None), grad_b


class Pow(Binary):
    name = "pow"
    keeps_output = True

    def forward(self, a, b):
        if b.dtype.kind in "iu" and np.any(b < 0):
            self.fail("integers to negative integer powers are not allowed (the result is "
                      "not an integer).", cls=DTypeError,
                      hint="make the base floating point first: x.float() ** -1.")
        self.a, self.b = a, b
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            self.out = np.power(a, b)
        return self.out

    def backward(self, grad_out):  # z = a**b;  dz/da = b * a**(b-1), dz/db = a**b * log(a)
        need_a, need_b = self.needs_input_grad
        grad_a = grad_b = None
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if need_a:  # b = 0 gives 0, also at a = 0 (where a**(b-1) is infinite)
                grad_a = np.where(self.b == 0, 0, grad_out * self.b * np.power(self.a, self.b - 1))
            if need_b:  # at a = 0 the derivative along b is taken as 0 where b > 0
                grad_b = np.where((self.a == 0) & (self.b >= 0), 0,
                                  grad_out * self.out * np.log(self.a))
        return grad_a, grad_b


class Maximum(Binary):
    name = "maximum"

    def forward(self, a, b):
        self.a, self.b = a, b
        return np.maximum(a, b)

    def backward(self, grad_out):  # z = max(a, b);  dz/da = 1 where a > b, 1/2 on a tie
        share = np.where(self.a == self.b, 0.5, 1.0).astype(grad_out.dtype)
        return grad_out * share * (self.a >= self.b), grad_out * share * (self.b >= self.a)


class Minimum(Maximum):
    name = "minimum"

    def forward(self, a, b):
        self.a, self.b = b, a  # min(a, b) = the max rule with the roles swapped
        return np.minimum(a, b)

    def backward(self, grad_out):
        grad_b, grad_a = super().backward(grad_out)
        return grad_a, grad_b


class Neg(Unary):
    name = "neg"

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
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(x, dtype=_float_dtype(x.dtype))

    def backward(self, grad_out):  # y = log(x);  dy/dx = 1/x
        with np.errstate(divide="ignore"):
            return (grad_out / self.x,)


class Sqrt(Unary):
    keeps_output = True
    name = "sqrt"

    def forward(self, x):
        with np.errstate(invalid="ignore"):
            self.y = np.sqrt(x, dtype=_float_dtype(x.dtype))
        return self.y

    def backward(self, grad_out):  # y = sqrt(x);  dy/dx = 1 / (2 y)
        with np.errstate(divide="ignore"):
            return (grad_out / (2 * self.y),)


class Abs(Unary):
    name = "abs"

    def forward(self, x):
        self.x = x
        return np.abs(x)

    def backward(self, grad_out):  # y = |x|;  dy/dx = sign(x) (0 at 0, as PyTorch)
        return (grad_out * np.sign(self.x),)


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
        # 1 / (1 + e^-x) overflows for very negative x; tanh form is stable.
        self.y = 0.5 * (np.tanh(0.5 * x) + 1)
        return self.y

    def backward(self, grad_out):  # y = sigmoid(x);  dy/dx = y (1 - y)
        return (grad_out * self.y * (1 - self.y),)


class Relu(Unary):
    name = "relu"

    def forward(self, x):
        self.mask = x > 0
        return np.maximum(x, 0)  # 0 (not -0.0) for negatives and -inf; NaN stays NaN

    def backward(self, grad_out):  # y = max(x, 0);  dy/dx = 1 if x > 0 else 0
        return (grad_out * self.mask,)


class Clamp(Unary):
    name = "clamp"

    def __init__(self, low=None, high=None):
        self.low, self.high = low, high

    def forward(self, x):
        low = -np.inf if self.low is None else self.low
        high = np.inf if self.high is None else self.high
        self.inside = (x >= low) & (x <= high)
        return np.minimum(np.maximum(x, low), high).astype(x.dtype, copy=False)  # min > max: max

    def backward(self, grad_out):  # y = clamp(x);  dy/dx = 1 inside [min, max], 0 outside
        return (grad_out * self.inside,)


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

    def backward(self, grad_out):  # y = c;  dy/dx = 0
        return (None,)


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

    def backward(self, grad_out):  # y = src;  dy/dx = 0, dy/dsrc = 1
        return None, grad_out
