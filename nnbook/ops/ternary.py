"""Elementwise ops of three tensors: where, lerp, clamp with tensor bounds, and the fused
addcmul and addcdiv (x + value * t1 * t2, x + value * t1 / t2: an optimizer's lines).

All of them broadcast their inputs together, like the binary ops; the engine sums each
gradient back to its input's shape.
"""
from __future__ import annotations

import numbers

import numpy as np

from ..errors import ArgumentError, DTypeError
from .base import Op, Spec, broadcast_shape


def broadcast_all(op: Op, *inputs) -> tuple:
    """The shape all ``inputs`` broadcast to (an error names the two that disagree)."""
    shape = inputs[0].shape
    for x in inputs[1:]:
        shape = broadcast_shape(op, Spec(shape), x)
    return tuple(shape)


class Where(Op):
    """y = x where condition holds, other elsewhere."""

    name = "where"

    def infer(self, condition, x, other):
        if condition.dtype.kind != "b":
            self.fail(f"the condition must be a boolean tensor, got "
                      f"{np.dtype(condition.dtype).name}.", cls=DTypeError,
                      hint="compare to get one: nb.where(x > 0, x, 0.0), or x.bool().")
        return broadcast_all(self, condition, x, other)

    def out_dtype(self, condition, x, other):
        return x.dtype

    def forward(self, condition, x, other):
        self.condition = condition
        return np.where(condition, x, other)

    def backward(self, grad_out):  # y = c ? x : o;  dy/dx = c, dy/do = not c
        zero = np.zeros((), dtype=grad_out.dtype)
        return (None, np.where(self.condition, grad_out, zero),
                np.where(self.condition, zero, grad_out))


class Lerp(Op):
    """Linear interpolation: y = start + weight * (end - start)."""

    name = "lerp"

    def infer(self, start, end, weight):
        return broadcast_all(self, start, end, weight)

    def forward(self, start, end, weight):
        self.gap, self.weight = end - start, weight
        return start + weight * self.gap

    def backward(self, grad_out):  # dy/dstart = 1 - w, dy/dend = w, dy/dw = end - start
        return grad_out * (1 - self.weight), grad_out * self.weight, grad_out * self.gap


class ClampTensor(Op):
    """clamp(x, low, high) with tensor bounds (either may be missing): min(max(x, low), high).

    The inputs are x, then low if ``has_low``, then high if ``has_high``.  Where
    low > high the result is high, as in PyTorch.
    """

    name = "clamp"

    def __init__(self, has_low, has_high):
        self.has_low, self.has_high = has_low, has_high

    def infer(self, x, *bounds):
        return broadcast_all(self, x, *bounds)

    def forward(self, x, *bounds):
        low = bounds[0] if self.has_low else np.array(-np.inf, dtype=x.dtype)
        high = bounds[-1] if self.has_high else np.array(np.inf, dtype=x.dtype)
        self.inside = (x >= low) & (x <= high)
        self.to_low = (x < low) & (low < high)     # low wins only where it is below high
        self.to_high = (x > high) | (high < low)   # high wins past it, and wherever low > high
        return np.minimum(np.maximum(x, low), high).astype(x.dtype, copy=False)

    def backward(self, grad_out):  # y = x inside [low, high], else the bound it hit: dy/dthat = 1
        zero = np.zeros((), dtype=grad_out.dtype)
        grads = [np.where(self.inside, grad_out, zero)]
        if self.has_low:
            grads.append(np.where(self.to_low, grad_out, zero))
        if self.has_high:
            grads.append(np.where(self.to_high, grad_out, zero))
        return tuple(grads)


def number(op: Op, value, name: str):
    """``value``, ``alpha`` or ``beta`` of a fused op, checked: a Python number (or bool)."""
    if not isinstance(value, numbers.Real):
        op.fail(f"{name} must be a number, got {value!r}.", cls=ArgumentError,
                hint=f"e.g. {name}=0.5.")
    return value


def scalar(value, dtype) -> np.ndarray:
    """A Python number as a 0-d array of ``dtype``, as PyTorch reads the ``value``, ``alpha``
    and ``beta`` of its fused ops: an integer dtype drops a fraction (2.5 -> 2) and wraps
    around (-1 in uint8 is 255)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return np.asarray(int(value)).astype(dtype)
    return np.asarray(value, dtype=dtype)


class Addcmul(Op):
    """y = x + value * t1 * t2, in one op (Adam's ``v.addcmul_(g, g, value=1 - beta2)``)."""

    name = "addcmul"

    def __init__(self, value=1):
        self.value = number(self, value, "value")

    def infer(self, x, t1, t2):
        if np.dtype(x.dtype).kind == "b":
            self.fail("takes numbers, got a bool tensor (as PyTorch).", cls=DTypeError,
                      hint="convert it first: x.float() or x.long().")
        return broadcast_all(self, x, t1, t2)

    def forward(self, x, t1, t2):
        value = scalar(self.value, np.result_type(x, t1, t2))
        need = self.needs_input_grad
        self.t1 = t1 if need[2] else None
        self.t2 = t2 if need[1] else None
        return x + value * t1 * t2

    def backward(self, grad_out):  # dy/dx = 1, dy/dt1 = value * t2, dy/dt2 = value * t1
        need = self.needs_input_grad
        return (grad_out,
                grad_out * self.value * self.t2 if need[1] else None,
                grad_out * self.value * self.t1 if need[2] else None)


class Addcdiv(Op):
    """y = x + value * t1 / t2, in one op (Adam's ``p.addcdiv_(m, denom, value=-lr)``)."""

    name = "addcdiv"

    def __init__(self, value=1):
        self.value = number(self, value, "value")

    def infer(self, x, t1, t2):
        if np.dtype(t1.dtype).kind in "iub" and np.dtype(t2.dtype).kind in "iub":
            self.fail(f"divides tensor1 by tensor2, which are both integers "
                      f"({np.dtype(t1.dtype).name} and {np.dtype(t2.dtype).name}); PyTorch "
                      "refuses integer division here.", cls=DTypeError,
                      hint="convert one of them to floating point: t2.float().")
        if np.dtype(x.dtype).kind == "b":
            self.fail("takes numbers, got a bool input (as PyTorch).", cls=DTypeError,
                      hint="convert it first: x.float().")
        return broadcast_all(self, x, t1, t2)

    def forward(self, x, t1, t2):
        value = scalar(self.value, np.result_type(x, t1, t2))
        self.t1, self.t2 = t1, t2
        return x + value * t1 / t2

    def backward(self, grad_out):  # dy/dx = 1, dy/dt1 = value / t2, dy/dt2 = -value t1 / t2**2
        scaled = grad_out * self.value / self.t2
        need = self.needs_input_grad
        return (grad_out, scaled if need[1] else None,
                -scaled * self.t1 / self.t2 if need[2] else None)
