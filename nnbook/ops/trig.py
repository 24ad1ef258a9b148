"""Trigonometric and hyperbolic functions: a table of derivatives.

The methods (``x.sin()``...) hand these ops floating point arrays: integers are
converted to the default float first, as in PyTorch.  Outside a function's
domain (``asin(2)``) the result is NaN, as in PyTorch, without a numpy warning.
"""
from __future__ import annotations

import numpy as np

from .elementwise import Binary, Unary, refuse_integers


class Sin(Unary):
    name = "sin"

    def forward(self, x):
        self.x = x
        return np.sin(x)

    def backward(self, grad_out):  # y = sin(x);  dy/dx = cos(x)
        return (grad_out * np.cos(self.x),)


class Cos(Unary):
    name = "cos"

    def forward(self, x):
        self.x = x
        return np.cos(x)

    def backward(self, grad_out):  # y = cos(x);  dy/dx = -sin(x)
        return (-grad_out * np.sin(self.x),)


class Tan(Unary):
    name = "tan"
    keeps_output = True

    def forward(self, x):
        self.y = np.tan(x)
        return self.y

    def backward(self, grad_out):  # y = tan(x);  dy/dx = 1 + y**2
        return (grad_out * (1 + self.y * self.y),)


class Asin(Unary):
    name = "asin"

    def forward(self, x):
        self.x = x
        with np.errstate(invalid="ignore"):
            return np.arcsin(x)

    def backward(self, grad_out):  # y = asin(x);  dy/dx = 1 / sqrt(1 - x**2)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (grad_out / np.sqrt(1 - self.x * self.x),)


class Acos(Unary):
    name = "acos"

    def forward(self, x):
        self.x = x
        with np.errstate(invalid="ignore"):
            return np.arccos(x)

    def backward(self, grad_out):  # y = acos(x);  dy/dx = -1 / sqrt(1 - x**2)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (-grad_out / np.sqrt(1 - self.x * self.x),)


class Atan(Unary):
    name = "atan"

    def forward(self, x):
        self.x = x
        return np.arctan(x)

    def backward(self, grad_out):  # y = atan(x);  dy/dx = 1 / (1 + x**2)
        return (grad_out / (1 + self.x * self.x),)


class Atan2(Binary):
    """The angle of the point (b, a) -- a is the y coordinate, as in numpy and PyTorch."""

    name = "atan2"
    ints_to_float = True

    def forward(self, a, b):
        self.a, self.b = a, b
        return np.arctan2(a, b)

    def backward(self, grad_out):  # z = atan2(a, b);  dz/da = b / r2, dz/db = -a / r2
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = grad_out / (self.a * self.a + self.b * self.b)  # r2 = a**2 + b**2
        return scale * self.b, -scale * self.a


class Hypot(Binary):
    """sqrt(a**2 + b**2), the length of (a, b), without overflow (numpy's hypot)."""

    name = "hypot"
    keeps_output = True

    def check_operands(self, a, b, dtype):
        refuse_integers(self, dtype)

    def forward(self, a, b):
        self.a, self.b = a, b
        self.z = np.hypot(a, b)
        return self.z

    def backward(self, grad_out):  # z = sqrt(a**2 + b**2);  dz/da = a / z, dz/db = b / z
        return grad_out * self.a / self.z, grad_out * self.b / self.z


class Sinh(Unary):
    name = "sinh"

    def forward(self, x):
        self.x = x
        with np.errstate(over="ignore"):
            return np.sinh(x)

    def backward(self, grad_out):  # y = sinh(x);  dy/dx = cosh(x)
        with np.errstate(over="ignore"):
            return (grad_out * np.cosh(self.x),)


class Cosh(Unary):
    name = "cosh"

    def forward(self, x):
        self.x = x
        with np.errstate(over="ignore"):
            return np.cosh(x)

    def backward(self, grad_out):  # y = cosh(x);  dy/dx = sinh(x)
        with np.errstate(over="ignore"):
            return (grad_out * np.sinh(self.x),)


class Asinh(Unary):
    name = "asinh"

    def forward(self, x):
        self.x = x
        return np.arcsinh(x)

    def backward(self, grad_out):  # y = asinh(x);  dy/dx = 1 / sqrt(x**2 + 1)
        return (grad_out / np.sqrt(self.x * self.x + 1),)


class Acosh(Unary):
    name = "acosh"

    def forward(self, x):
        self.x = x
        with np.errstate(invalid="ignore"):
            return np.arccosh(x)

    def backward(self, grad_out):  # y = acosh(x);  dy/dx = 1 / sqrt(x**2 - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (grad_out / np.sqrt(self.x * self.x - 1),)


class Atanh(Unary):
    name = "atanh"

    def forward(self, x):
        self.x = x
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.arctanh(x)

    def backward(self, grad_out):  # y = atanh(x);  dy/dx = 1 / (1 - x**2)
        with np.errstate(divide="ignore"):
            return (grad_out / (1 - self.x * self.x),)
