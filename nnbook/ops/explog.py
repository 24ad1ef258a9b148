"""Powers, exponentials and logarithms beyond exp, log and sqrt (ops/elementwise.py).

The methods hand these ops floating point arrays (integers become the default
float first, as in PyTorch), except ``square``, which keeps integers integers.
"""
from __future__ import annotations

import math

import numpy as np

from .elementwise import Unary

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_erf = np.vectorize(math.erf, otypes=[np.float64])  # numpy has no erf; Python's is exact


class Exp2(Unary):
    name = "exp2"
    keeps_output = True

    def forward(self, x):
        with np.errstate(over="ignore"):
            self.y = np.exp2(x)
        return self.y

    def backward(self, grad_out):  # y = 2**x;  dy/dx = y ln 2
        return (grad_out * self.y * _LN2,)


class Expm1(Unary):
    """exp(x) - 1, exact for small x (where exp(x) rounds to 1)."""

    name = "expm1"
    keeps_output = True

    def forward(self, x):
        with np.errstate(over="ignore"):
            self.y = np.expm1(x)
        return self.y

    def backward(self, grad_out):  # y = exp(x) - 1;  dy/dx = exp(x) = y + 1
        return (grad_out * (self.y + 1),)


class Log2(Unary):
    name = "log2"

    def forward(self, x):
        self.x = x
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log2(x)

    def backward(self, grad_out):  # y = log2(x);  dy/dx = 1 / (x ln 2)
        with np.errstate(divide="ignore"):
            return (grad_out / (self.x * _LN2),)


class Log10(Unary):
    name = "log10"

    def forward(self, x):
        self.x = x
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log10(x)

    def backward(self, grad_out):  # y = log10(x);  dy/dx = 1 / (x ln 10)
        with np.errstate(divide="ignore"):
            return (grad_out / (self.x * _LN10),)


class Log1p(Unary):
    """log(1 + x), exact for small x."""

    name = "log1p"

    def forward(self, x):
        self.x = x
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log1p(x)

    def backward(self, grad_out):  # y = log(1 + x);  dy/dx = 1 / (1 + x)
        with np.errstate(divide="ignore"):
            return (grad_out / (1 + self.x),)


class Rsqrt(Unary):
    name = "rsqrt"
    keeps_output = True

    def forward(self, x):
        with np.errstate(divide="ignore", invalid="ignore"):
            self.y = 1 / np.sqrt(x)
        return self.y

    def backward(self, grad_out):  # y = x**-1/2;  dy/dx = -x**-3/2 / 2 = -y**3 / 2
        return (grad_out * -0.5 * self.y ** 3,)


class Square(Unary):
    name = "square"

    def forward(self, x):
        self.x = x
        return x * x

    def backward(self, grad_out):  # y = x**2;  dy/dx = 2x
        return (grad_out * 2 * self.x,)


class Reciprocal(Unary):
    name = "reciprocal"
    keeps_output = True

    def forward(self, x):
        with np.errstate(divide="ignore"):
            self.y = 1 / x
        return self.y

    def backward(self, grad_out):  # y = 1/x;  dy/dx = -1/x**2 = -y**2
        return (-grad_out * self.y * self.y,)


class Erf(Unary):
    """The error function, erf(x) = 2/sqrt(pi) * integral from 0 to x of exp(-t**2) dt."""

    name = "erf"

    def forward(self, x):
        self.x = x
        return _erf(x).astype(x.dtype, copy=False)

    def backward(self, grad_out):  # y = erf(x);  dy/dx = 2/sqrt(pi) exp(-x**2)
        return (grad_out * (2 / math.sqrt(math.pi)) * np.exp(-self.x * self.x),)


class Softplus(Unary):
    """log(1 + exp(beta x)) / beta, a smooth relu; x itself where beta x > threshold."""

    name = "softplus"

    def __init__(self, beta=1.0, threshold=20.0):
        self.beta, self.threshold = beta, threshold

    def forward(self, x):
        bx = x * self.beta
        self.bx, self.linear = bx, bx > self.threshold
        return np.where(self.linear, x, np.logaddexp(0, bx) / self.beta).astype(x.dtype)

    def backward(self, grad_out):  # y = log(1 + e^(bx)) / b;  dy/dx = sigmoid(bx) (1 if linear)
        sigmoid = 0.5 * (np.tanh(0.5 * self.bx) + 1)
        return (grad_out * np.where(self.linear, 1, sigmoid),)


class Logit(Unary):
    """log(x / (1 - x)), the inverse of sigmoid; with ``eps``, x is first clamped to
    [eps, 1 - eps] (and the gradient is 0 outside)."""

    name = "logit"

    def __init__(self, eps=None):
        self.eps = eps

    def forward(self, x):
        z = x if self.eps is None else np.clip(x, self.eps, 1 - self.eps)
        self.x, self.z = x, z
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(z / (1 - z))

    def backward(self, grad_out):  # y = log(x / (1 - x));  dy/dx = 1 / (x (1 - x))
        with np.errstate(divide="ignore", invalid="ignore"):
            grad = grad_out / (self.z * (1 - self.z))
        if self.eps is not None:
            grad = np.where((self.x < self.eps) | (self.x > 1 - self.eps), 0, grad)
        return (grad,)
