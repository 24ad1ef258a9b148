"""Activation functions beyond relu, sigmoid and tanh: a table of derivatives.

Each op takes floating point input (as PyTorch's do) and keeps only what its
backward reads.  Where PyTorch decides a kink one way (hardtanh's gradient is 0 *at*
its limits, leaky_relu takes the slope at 0) the rule here decides it the same way.

    sigma(x) = 1 / (1 + exp(-x)),   Phi(x) = (1 + erf(x / sqrt 2)) / 2,
    phi(x) = exp(-x**2 / 2) / sqrt(2 pi)
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, ShapeError, fmt_shape, message
from .base import Op, check_float, is_real
from .explog import _erf


def sigmoid_array(x: np.ndarray) -> np.ndarray:
    """sigma(x) without overflow: e = exp(-|x|) is at most 1."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1, e) / (1 + e)


class Activation(Op):
    """An elementwise function of floating point input; the output has the input's shape."""

    def infer(self, x):
        check_float(self, x)
        return x.shape

    def check_number(self, name: str, value) -> float:
        if not is_real(value):
            self.fail(f"{name} must be a number, got {value!r}.", cls=InputError,
                      hint=f"give {name} as a float, e.g. {name}=0.01.")
        return float(value)


class LeakyRelu(Activation):
    name = "leaky_relu"

    def __init__(self, negative_slope=0.01):
        self.slope = self.check_number("negative_slope", negative_slope)

    def forward(self, x):
        self.positive = x > 0
        return np.where(self.positive, x, x * x.dtype.type(self.slope))

    def backward(self, grad_out):  # y = x (x > 0), a x (x <= 0);  dy/dx = 1 or a
        return (np.where(self.positive, grad_out, grad_out * self.slope),)


class Elu(Activation):
    """scale * (x if x > 0 else alpha (exp(input_scale x) - 1)): ELU, SELU and CELU."""

    name = "elu"

    def __init__(self, alpha=1.0, scale=1.0, input_scale=1.0, grad_input_scale=None):
        self.alpha = self.check_number("alpha", alpha)
        self.scale, self.input_scale = float(scale), float(input_scale)
        # PyTorch's celu backward uses c = 1 / float32(alpha), a few ulps off 1 / alpha:
        # celu passes it here, so the gradients agree to the last digit.
        self.grad_input_scale = self.input_scale if grad_input_scale is None \
            else float(grad_input_scale)

    def forward(self, x):
        self.positive, self.x = x > 0, x
        self.e = np.exp(np.minimum(x, 0) * self.input_scale)
        negative = self.alpha * (self.e - 1)
        return (self.scale * np.where(self.positive, x, negative)).astype(x.dtype)

    def backward(self, grad_out):
        # y = s x (x > 0);  s a (exp(c x) - 1) (x <= 0)
        # dy/dx = s (x > 0);  s a c exp(c x) (x <= 0)
        c = self.grad_input_scale
        if c != self.input_scale:
            self.e = np.exp(np.minimum(self.x, 0) * c)
        slope = np.where(self.positive, self.scale, self.scale * self.alpha * c * self.e)
        return (grad_out * slope,)


class Rrelu(Activation):
    """Randomised leaky relu: x where x > 0, a x elsewhere.  While training, each element
    gets its own slope a, drawn from Uniform(lower, upper) by ``generator`` (a numpy
    Generator; ``F.rrelu`` passes nnbook's seeded one); otherwise a is the mean slope
    (lower + upper) / 2, and rrelu is a leaky relu."""

    name = "rrelu"

    def __init__(self, generator, lower=1 / 8, upper=1 / 3, training=False):
        self.lower, self.upper = check_slopes(lower, upper, self.where)
        self.generator, self.training = generator, bool(training)

    def forward(self, x):
        if self.training:
            slopes = self.generator.uniform(self.lower, self.upper, x.shape).astype(x.dtype)
        else:
            slopes = x.dtype.type((self.lower + self.upper) / 2)
        self.slope = np.where(x > 0, x.dtype.type(1), slopes)
        return x * self.slope

    def backward(self, grad_out):  # y = x (x > 0), a x (x <= 0);  dy/dx = 1 or a
        return (grad_out * self.slope,)


def check_slopes(lower, upper, where: str) -> tuple:
    """rrelu's range of slopes: two numbers, lower <= upper (the one check of them, for the
    op, the function and the layer)."""
    for name, value in (("lower", lower), ("upper", upper)):
        if not is_real(value):
            raise InputError(message(f"{name} must be a number, got {value!r}.", where=where,
                                     hint=f"give {name} as a float, e.g. {name}=0.125."))
    if lower > upper:
        raise InputError(message(
            f"lower={lower} must be at most upper={upper}: the slopes are drawn between them.",
            where=where, hint="give the smaller slope first, e.g. lower=0.125, upper=0.333."))
    return float(lower), float(upper)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


class Gelu(Activation):
    """x Phi(x); with approximate='tanh', Phi(x) ~ (1 + tanh(k (x + 0.044715 x**3))) / 2."""

    name = "gelu"
    K = math.sqrt(2 / math.pi)

    def __init__(self, approximate="none"):
        if approximate not in ("none", "tanh"):
            self.fail(f"approximate={approximate!r} is not 'none' or 'tanh'.", cls=InputError,
                      hint="'none' uses the exact erf; 'tanh' the faster approximation.")
        self.approximate = approximate

    def forward(self, x):
        self.x = x
        if self.approximate == "tanh":
            self.t = np.tanh(self.K * (x + 0.044715 * x ** 3))
            return (0.5 * x * (1 + self.t)).astype(x.dtype)
        self.cdf = (0.5 * (1 + _erf(x / math.sqrt(2)))).astype(x.dtype)
        return x * self.cdf

    def backward(self, grad_out):
        x = self.x
        if self.approximate == "tanh":
            # y = x (1 + t) / 2, t = tanh(u), u = k (x + 0.044715 x**3)
            # dy/dx = (1 + t) / 2 + x (1 - t**2) k (1 + 3 * 0.044715 x**2) / 2
            du = self.K * (1 + 3 * 0.044715 * x * x)
            return (grad_out * (0.5 * (1 + self.t) + 0.5 * x * (1 - self.t ** 2) * du),)
        pdf = np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)
        return (grad_out * (self.cdf + x * pdf),)  # y = x Phi(x);  dy/dx = Phi(x) + x phi(x)


class Silu(Activation):
    name = "silu"

    def forward(self, x):
        self.x, self.s = x, sigmoid_array(x)
        return x * self.s

    def backward(self, grad_out):  # y = x sigma(x);  dy/dx = sigma(x) (1 + x (1 - sigma(x)))
        return (grad_out * self.s * (1 + self.x * (1 - self.s)),)


class Mish(Activation):
    name = "mish"

    def forward(self, x):
        self.x = x
        self.t = np.tanh(np.logaddexp(0, x))  # tanh(softplus(x))
        return x * self.t

    def backward(self, grad_out):  # y = x tanh(sp(x));  dy/dx = t + x sigma(x) (1 - t**2)
        t = self.t
        return (grad_out * (t + self.x * sigmoid_array(self.x) * (1 - t * t)),)


class Softsign(Activation):
    name = "softsign"

    def forward(self, x):
        self.d = 1 + np.abs(x)
        return x / self.d

    def backward(self, grad_out):  # y = x / (1 + |x|);  dy/dx = 1 / (1 + |x|)**2
        return (grad_out / (self.d * self.d),)


class Hardtanh(Activation):
    """clamp(x, min_val, max_val); the gradient is 0 at the limits too (as PyTorch's)."""

    name = "hardtanh"

    def __init__(self, min_val=-1.0, max_val=1.0):
        self.low = self.check_number("min_val", min_val)
        self.high = self.check_number("max_val", max_val)
        if self.low > self.high:
            self.fail(f"min_val={min_val} is greater than max_val={max_val}.", cls=InputError,
                      hint="give the lower limit first: Hardtanh(-1.0, 1.0).")

    def forward(self, x):
        self.inside = (x > self.low) & (x < self.high)
        return np.clip(x, self.low, self.high).astype(x.dtype)

    def backward(self, grad_out):  # y = clamp(x);  dy/dx = 1 strictly inside, else 0
        return (np.where(self.inside, grad_out, 0),)


class Hardsigmoid(Activation):
    name = "hardsigmoid"
    SIXTH = float(np.float32(1 / 6))  # PyTorch's backward uses 1/6 rounded to float32

    def forward(self, x):
        self.inside = (x > -3) & (x < 3)
        return np.clip(x / 6 + 0.5, 0, 1).astype(x.dtype)

    def backward(self, grad_out):  # y = x/6 + 1/2 on (-3, 3);  dy/dx = 1/6 there, else 0
        return (np.where(self.inside, grad_out * self.SIXTH, 0),)


class Hardswish(Activation):
    name = "hardswish"

    def forward(self, x):
        self.x = x
        return (x * np.clip(x + 3, 0, 6) / 6).astype(x.dtype)

    def backward(self, grad_out):
        # y = x (x + 3) / 6 on (-3, 3);  dy/dx = x/3 + 1/2 there, 0 below, 1 above
        x = self.x
        slope = np.where(x <= -3, 0, np.where(x < 3, x / 3 + 0.5, 1))
        return (grad_out * slope,)


class LogSigmoid(Activation):
    name = "log_sigmoid"

    def forward(self, x):
        self.x = x
        return (np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))).astype(x.dtype)

    def backward(self, grad_out):  # y = log sigma(x);  dy/dx = 1 - sigma(x) = sigma(-x)
        return (grad_out * sigmoid_array(-self.x),)


class Threshold(Activation):
    name = "threshold"

    def __init__(self, threshold, value):
        self.threshold = self.check_number("threshold", threshold)
        self.value = self.check_number("value", value)

    def forward(self, x):
        self.above = x > self.threshold
        return np.where(self.above, x, x.dtype.type(self.value))

    def backward(self, grad_out):  # y = x above the threshold, a constant below;  dy/dx = 1 or 0
        return (np.where(self.above, grad_out, 0),)


class Hardshrink(Activation):
    """x where |x| > lambd, 0 elsewhere (at |x| = lambd too)."""

    name = "hardshrink"

    def __init__(self, lambd=0.5):
        self.lambd = self.check_number("lambd", lambd)

    def forward(self, x):
        self.kept = np.abs(x) > self.lambd
        return np.where(self.kept, x, x.dtype.type(0))

    def backward(self, grad_out):  # y = x outside [-lambd, lambd], 0 inside;  dy/dx = 1 or 0
        return (np.where(self.kept, grad_out, 0),)


class Softshrink(Activation):
    """x moved lambd towards 0, and 0 where that would cross it: sign(x) max(|x| - lambd, 0)."""

    name = "softshrink"

    def __init__(self, lambd=0.5):
        self.lambd = self.check_number("lambd", lambd)
        if self.lambd < 0:
            self.fail(f"lambd must be at least 0, got {lambd!r}.", cls=InputError,
                      hint="lambd is how far values move towards 0, e.g. lambd=0.5.")

    def forward(self, x):
        self.kept = np.abs(x) > self.lambd
        return np.where(self.kept, x - np.sign(x) * x.dtype.type(self.lambd), x.dtype.type(0))

    def backward(self, grad_out):  # y = x ∓ lambd outside [-lambd, lambd], 0 inside;  dy/dx = 1, 0
        return (np.where(self.kept, grad_out, 0),)


class Prelu(Op):
    """x where x > 0, weight * x elsewhere; one weight, or one per channel (dimension 1)."""

    name = "prelu"

    def infer(self, x, weight):
        check_float(self, x)
        if weight.ndim != 1:
            self.fail(f"weight must be 1-D, got shape {fmt_shape(weight.shape)}.",
                      hint="PReLU keeps one slope, or one per channel: shape (C,).")
        n = weight.shape[0]
        channels = x.shape[1] if x.ndim >= 2 else 1
        if n != 1 and n != channels:
            self.fail(f"weight has {n} slopes but the input has {channels} channels in "
                      f"dimension 1.", cls=ShapeError,
                      values=f"input {fmt_shape(x.shape)}   weight {fmt_shape(weight.shape)}",
                      hint=f"use PReLU(num_parameters={channels}) for this input, or "
                      "PReLU() for one slope shared by every channel.")
        return x.shape

    def forward(self, x, weight):
        shape = (1, -1) + (1,) * (x.ndim - 2) if x.ndim >= 2 else (-1,)
        self.x, self.w = x, weight.reshape(shape)
        self.positive = x > 0
        return np.where(self.positive, x, self.w * x).astype(x.dtype)

    def backward(self, grad_out):  # y = x (x > 0), w x (x <= 0);  dy/dx = 1 or w, dy/dw = x or 0
        need_x, need_w = self.needs_input_grad
        grad_x = np.where(self.positive, grad_out, grad_out * self.w) if need_x else None
        grad_w = None
        if need_w:
            per_element = np.where(self.positive, 0, grad_out * self.x)
            if self.w.size == 1:
                grad_w = per_element.sum().reshape(1)
            else:  # every axis but the channels
                grad_w = per_element.sum(axis=(0,) + tuple(range(2, self.x.ndim)))
        return grad_x, grad_w
