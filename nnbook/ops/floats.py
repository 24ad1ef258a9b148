"""The parts of numbers: a float's sign, neighbours, mantissa and exponent; the step
function; and the whole-number ops gcd, lcm and the bit shifts << and >>.

Most of these are flat where they are differentiable at all: their gradient is 0
(copysign's is +-1 for its first input).
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError
from .elementwise import Binary, Unary


def _refuse(op, dtype, kinds, wanted, hint):
    if dtype.kind not in kinds:
        op.fail(f"{op.name} takes {wanted}, not {dtype.name} (as in PyTorch).", cls=DTypeError,
                hint=hint)


class Copysign(Binary):
    """|a| with the sign of b (also the sign of -0.0 and of NaN)."""

    name = "copysign"
    ints_to_float = True

    def forward(self, a, b):
        self.a, self.b = a, b
        return np.copysign(a, b)

    def backward(self, grad_out):
        # z = |a| sign(b);  dz/da = sign(a) sign(b) (0 at a = 0, NaN at a = NaN), dz/db = 0
        a = self.a
        flip = np.copysign(1.0, a) * np.copysign(1.0, self.b)
        grad_a = np.where(a == 0, 0, np.where(np.isnan(a), np.nan, grad_out * flip))
        return grad_a, np.zeros_like(grad_out)


class Nextafter(Binary):
    """The float next to a in the direction of b (a itself where a == b)."""

    name = "nextafter"

    def infer(self, a, b):
        _refuse(self, np.dtype(a.dtype), "f", "floating point tensors",
                "convert first: x.double().")
        return super().infer(a, b)

    def forward(self, a, b):
        return np.nextafter(a, b)

    def backward(self, grad_out):  # a step of one unit in the last place: dz/da = dz/db = 0
        zero = np.zeros_like(grad_out)
        return zero, zero


class Heaviside(Binary):
    """The step function: 0 where x < 0, 1 where x > 0, and ``values`` where x == 0 (a NaN
    x gives 0, as in PyTorch, since it is neither 0 nor above)."""

    name = "heaviside"

    def check_operands(self, a, b, dtype):
        if isinstance(a, np.dtype) and isinstance(b, np.dtype) and a != b:
            self.fail(f"heaviside needs input and values of one dtype, got {a.name} and "
                      f"{b.name} (as in PyTorch).", cls=DTypeError,
                      hint="convert one: values.to(input.dtype).")

    def forward(self, x, values):
        return np.where(x == 0, values, x > 0).astype(np.result_type(x, values))

    def backward(self, grad_out):  # a step: flat on each side, dz/dx = dz/dvalues = 0
        zero = np.zeros_like(grad_out)
        return zero, zero


class Ldexp(Binary):
    """a * 2**b: the float with mantissa a and exponent b."""

    name = "ldexp"
    ints_to_float = True

    def forward(self, a, b):
        self.a, self.scale = a, np.exp2(b)
        return a * self.scale

    def backward(self, grad_out):  # z = a 2**b;  dz/da = 2**b, dz/db = z ln 2
        return grad_out * self.scale, grad_out * self.a * self.scale * np.log(2.0)


class Frexp(Unary):
    """The mantissa of x, in [0.5, 1) (with x's sign), for x = mantissa * 2**exponent; the
    exponent is left on ``self.exponent`` (int32) for the method to return beside it."""

    name = "frexp"

    def infer(self, x):
        if np.dtype(x.dtype).kind != "f":
            self.fail(f"frexp takes a floating point tensor, not {np.dtype(x.dtype).name} "
                      "(as in PyTorch).", cls=DTypeError, hint="convert first: x.double().")
        return x.shape

    def forward(self, x):
        mantissa, exponent = np.frexp(x)
        self.exponent = exponent.astype(np.int32)
        return mantissa

    def backward(self, grad_out):  # m = x / 2**e (e fixed between powers of 2);  dm/dx = 2**-e
        return (grad_out * np.exp2(-self.exponent.astype(grad_out.dtype)),)


class WholeNumbers(Binary):
    """gcd, lcm, << and >> on integer tensors: their results are integers, without
    gradients."""

    def __init__(self, kind):
        self.kind = kind

    @property
    def name(self):
        return self.kind

    def infer(self, a, b):
        _refuse(self, np.dtype(a.dtype), "iu", "integer tensors", "convert first: x.long().")
        return super().infer(a, b)

    def forward(self, a, b):
        bits = a.dtype.itemsize * 8
        if self.kind == "gcd":
            return np.gcd(a, b)
        if self.kind == "lcm":
            return np.lcm(a, b)
        # a shift by a negative count or by the width or more is 0 (or, right, the sign)
        outside = (b < 0) | (b >= bits)
        count = np.where(outside, 0, b).astype(a.dtype)
        if self.kind == "bitwise_left_shift":
            return np.where(outside, 0, np.left_shift(a, count)).astype(a.dtype)
        filled = np.where(a < 0, -1, 0).astype(a.dtype)
        return np.where(outside, filled, np.right_shift(a, count)).astype(a.dtype)

    def backward(self, grad_out):
        return None, None
