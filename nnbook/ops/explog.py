"""Powers, exponentials and logarithms beyond exp, log and sqrt (ops/elementwise.py).

The methods hand these ops floating point arrays (integers become the default
float first, as in PyTorch), except ``square``, which keeps integers integers.
"""
from __future__ import annotations

import math

import numpy as np

from .base import quiet
from .elementwise import Binary, Unary, _float_dtype, refuse_integers

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_erf = np.vectorize(math.erf, otypes=[np.float64])  # numpy has no erf; Python's is exact
_erfc = np.vectorize(math.erfc, otypes=[np.float64])  # exact also where erf(x) rounds to 1


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


class Erfc(Unary):
    """The complementary error function, erfc(x) = 1 - erf(x), exact also where erf(x) is
    within a rounding of 1 (erfc(10) is 2e-45)."""

    name = "erfc"

    def forward(self, x):
        self.x = x
        return _erfc(x).astype(_float_dtype(x.dtype), copy=False)

    def backward(self, grad_out):  # y = 1 - erf(x);  dy/dx = -2/sqrt(pi) exp(-x**2)
        return (grad_out * (-2 / math.sqrt(math.pi)) * np.exp(-self.x * self.x),)


class Erfinv(Unary):
    """The inverse of erf: erfinv(erf(y)) = y on (-1, 1); +-inf at +-1, NaN beyond."""

    name = "erfinv"
    keeps_output = True

    def forward(self, x):
        self.y = erfinv(x.astype(np.float64)).astype(_float_dtype(x.dtype), copy=False)
        return self.y

    def backward(self, grad_out):  # x = erf(y);  dy/dx = 1 / erf'(y) = sqrt(pi)/2 exp(y**2)
        return (grad_out * (math.sqrt(math.pi) / 2) * np.exp(self.y * self.y),)


@quiet  # (the guess is inf at |x| = 1 and NaN beyond: set apart at the end)
def erfinv(x: np.ndarray) -> np.ndarray:
    """erfinv in float64, to the last digit or two: a rough guess, then Newton's method.

    numpy has no erfinv.  The guess is Winitzki's closed form (within 0.2%).  Newton's
    step for erf(y) = x is y += (x - erf(y)) / erf'(y), with erf'(y) = 2/sqrt(pi) e^(-y**2);
    each step doubles the correct digits, so five are plenty.  Near +-1 the step solves
    erfc(y) = 1 - |x| instead: 1 - |x| is exact there, while erf(y) would round to 1 and
    lose the digits that tell y apart.  The sign is put back at the end (erfinv is odd,
    and -0.0 stays -0.0)."""
    a = np.abs(x)
    # the guess, in closed form: with l = log(1 - a**2) and k = 0.147,
    # y = sqrt(sqrt((2/(pi k) + l/2)**2 - l/k) - (2/(pi k) + l/2))
    k = 0.147
    log_1_minus_a2 = np.log1p(-a) + np.log1p(a)
    first = 2 / (math.pi * k) + log_1_minus_a2 / 2
    y = np.sqrt(np.sqrt(first * first - log_1_minus_a2 / k) - first)
    near_one = a > 0.5
    y = np.where(np.isfinite(y), y, 0.0)  # (a = 1 and beyond are set at the end)
    slope = 2 / math.sqrt(math.pi)
    for _ in range(5):  # (erfc' = -erf', so its step's residual has the other sign)
        residual = np.where(near_one, _erfc(y) - (1 - a), a - _erf(y))
        y = y + residual / (slope * np.exp(-y * y))
    y = np.where(a == 1, np.inf, np.where(a > 1, np.nan, y))
    return np.copysign(np.where(np.isnan(x), np.nan, y), x)


class Xlogy(Binary):
    """x * log(y), with 0 where x is 0 (0 log 0 is taken as 0, as in entropies), unless y
    is NaN."""

    name = "xlogy"
    ints_to_float = True

    def forward(self, x, y):
        self.x, self.y = x, y
        zero = (x == 0) & ~np.isnan(y)
        with np.errstate(divide="ignore", invalid="ignore"):  # log(0), log(-1)
            return np.where(zero, 0, x * np.log(y))

    def backward(self, grad_out):  # z = x log y;  dz/dx = log y, dz/dy = x / y
        x, y = self.x, self.y
        with np.errstate(divide="ignore", invalid="ignore"):
            grad_x = grad_out * np.where((x == 0) & (y <= 0), 0, np.log(y))  # 0 at x = 0 = y
            return grad_x, grad_out * x / y


class LogAddExp(Binary):
    """log(e**a + e**b), without overflow (numpy's logaddexp)."""

    name = "logaddexp"
    exp, function = staticmethod(np.exp), staticmethod(np.logaddexp)

    def check_operands(self, a, b, dtype):
        refuse_integers(self, dtype)

    def forward(self, a, b):
        self.a, self.b = a, b
        return self.function(a, b)

    def backward(self, grad_out):
        # z = log(e**a + e**b);  dz/da = e**a / (e**a + e**b) = 1 / (1 + e**(b - a)),
        # written so a = inf, b = -inf gives 1 and 0 (with the base 2 for logaddexp2)
        return (grad_out / (1 + self.exp(self.b - self.a)),
                grad_out / (1 + self.exp(self.a - self.b)))


class LogAddExp2(LogAddExp):
    """log2(2**a + 2**b), without overflow."""

    name = "logaddexp2"
    exp, function = staticmethod(np.exp2), staticmethod(np.logaddexp2)


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
