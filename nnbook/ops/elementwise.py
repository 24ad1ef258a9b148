"""Elementwise ops: read the backward methods as a table of derivatives.

Binary ops broadcast like numpy and PyTorch; the engine sums each gradient back
to its input's shape, so the backward rules here are written for equal shapes.
"""
from __future__ import annotations

import numpy as np

from .base import Op, broadcast_shape
from .threads import over_rows


def _float_dtype(dtype):
    """Math on integers gives the default float (float32), as in PyTorch."""
    return dtype if dtype.kind == "f" else np.dtype(np.float32)


class Binary(Op):
    __slots__ = ()

    def infer(self, a, b):
        shape = a.shape
        return shape if shape == b.shape else broadcast_shape(self, a, b)


class Unary(Op):
    __slots__ = ()

    def infer(self, x):
        return x.shape


class Add(Binary):
    __slots__ = ()
    name = "add"

    def forward(self, a, b):
        return a + b

    def backward(self, grad_out):  # z = a + b;  dz/da = 1, dz/db = 1
        return grad_out, grad_out


class Sub(Binary):
    __slots__ = ()
    name = "sub"

    def forward(self, a, b):
        return a - b

    def backward(self, grad_out):  # z = a - b;  dz/da = 1, dz/db = -1
        return grad_out, -grad_out


class Mul(Binary):
    __slots__ = ("a", "b")
    name = "mul"

    def forward(self, a, b):
        self.a, self.b = a, b
        return a * b

    def backward(self, grad_out):  # z = a * b;  dz/da = b, dz/db = a
        need_a, need_b = self.needs_input_grad
        return (grad_out * self.b if need_a else None,
                grad_out * self.a if need_b else None)


class Div(Binary):
    __slots__ = ("a", "b")
    name = "div"

    def forward(self, a, b):
        self.a, self.b = a, b
        out = a / b
        return out if out.dtype.kind == "f" else out.astype(np.float32)

    def backward(self, grad_out):  # z = a / b;  dz/da = 1/b, dz/db = -a/b**2
        need_a, need_b = self.needs_input_grad
        grad_a = grad_out / self.b
        grad_b = -grad_a * self.a / self.b if need_b else None
        return (grad_a if need_a else None), grad_b


class Pow(Binary):
    __slots__ = ("a", "b", "out")
    name = "pow"

    def forward(self, a, b):
        self.a, self.b = a, b
        self.out = np.power(a, b)
        return self.out

    def backward(self, grad_out):  # z = a**b;  dz/da = b * a**(b-1), dz/db = a**b * log(a)
        need_a, need_b = self.needs_input_grad
        grad_a = grad_out * self.b * np.power(self.a, self.b - 1) if need_a else None
        grad_b = None
        if need_b:
            with np.errstate(divide="ignore", invalid="ignore"):
                grad_b = grad_out * self.out * np.log(self.a)
        return grad_a, grad_b


class Neg(Unary):
    __slots__ = ()
    name = "neg"

    def forward(self, x):
        return -x

    def backward(self, grad_out):  # y = -x;  dy/dx = -1
        return (-grad_out,)


class Exp(Unary):
    __slots__ = ("y",)
    name = "exp"

    def forward(self, x):
        self.y = np.exp(x, dtype=_float_dtype(x.dtype))
        return self.y

    def backward(self, grad_out):  # y = exp(x);  dy/dx = y
        return (grad_out * self.y,)


class Log(Unary):
    __slots__ = ("x",)
    name = "log"

    def forward(self, x):
        self.x = x
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(x, dtype=_float_dtype(x.dtype))

    def backward(self, grad_out):  # y = log(x);  dy/dx = 1/x
        with np.errstate(divide="ignore"):
            return (grad_out / self.x,)


class Sqrt(Unary):
    __slots__ = ("y",)
    name = "sqrt"

    def forward(self, x):
        with np.errstate(invalid="ignore"):
            self.y = np.sqrt(x, dtype=_float_dtype(x.dtype))
        return self.y

    def backward(self, grad_out):  # y = sqrt(x);  dy/dx = 1 / (2 y)
        with np.errstate(divide="ignore"):
            return (grad_out / (2 * self.y),)


class Abs(Unary):
    __slots__ = ("x",)
    name = "abs"

    def forward(self, x):
        self.x = x
        return np.abs(x)

    def backward(self, grad_out):  # y = |x|;  dy/dx = sign(x) (0 at 0, as PyTorch)
        return (grad_out * np.sign(self.x),)


class Tanh(Unary):
    __slots__ = ("y",)
    name = "tanh"

    def forward(self, x):
        self.y = np.tanh(x, dtype=_float_dtype(x.dtype))
        return self.y

    def backward(self, grad_out):  # y = tanh(x);  dy/dx = 1 - y**2
        return (grad_out * (1 - self.y * self.y),)


class Sigmoid(Unary):
    __slots__ = ("y",)
    name = "sigmoid"

    def forward(self, x):
        x = x.astype(_float_dtype(x.dtype), copy=False)
        # 1 / (1 + e^-x) overflows for very negative x; tanh form is stable.
        self.y = 0.5 * (np.tanh(0.5 * x) + 1)
        return self.y

    def backward(self, grad_out):  # y = sigmoid(x);  dy/dx = y (1 - y)
        return (grad_out * self.y * (1 - self.y),)


class Relu(Unary):
    __slots__ = ("mask",)
    name = "relu"

    def forward(self, x):
        mask, out = np.empty(x.shape, dtype=bool), np.empty_like(x)

        def part(rows):  # out = x · (x > 0), a chunk of rows at a time (see ops/threads.py)
            np.greater(x[rows], 0, out=mask[rows])
            np.multiply(x[rows], mask[rows], out=out[rows])

        over_rows(part, x)
        self.mask = mask
        return out

    def backward(self, grad_out):  # y = max(x, 0);  dy/dx = 1 if x > 0 else 0
        mask, grad_x = self.mask, np.empty_like(grad_out)
        over_rows(lambda rows: np.multiply(grad_out[rows], mask[rows], out=grad_x[rows]),
                  grad_out)
        return (grad_x,)


class Clamp(Unary):
    __slots__ = ("low", "high", "mask")
    name = "clamp"

    def __init__(self, low=None, high=None):
        self.low, self.high = low, high

    def forward(self, x):
        y = np.clip(x, self.low, self.high)
        self.mask = y == x
        return y

    def backward(self, grad_out):  # y = clamp(x);  dy/dx = 1 inside the range, 0 outside
        return (grad_out * self.mask,)
