"""Rounding and sign: functions that are flat between their jumps.

Their derivative is 0 wherever it exists; at the jumps it does not exist, and
PyTorch (and so nnbook) uses 0 there too: the gradient of these ops is all zeros.
On integers they change nothing and keep the dtype, as in PyTorch.
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError
from .elementwise import Unary


class Step(Unary):
    """Base of the flat functions: ``numpy_function`` applied to floats."""

    numpy_function = None

    def forward(self, x):
        return self.numpy_function(x) if x.dtype.kind == "f" else x.copy()

    def backward(self, grad_out):  # flat between the jumps: dy/dx = 0
        return (np.zeros_like(grad_out),)


class Floor(Step):
    name = "floor"
    numpy_function = np.floor


class Ceil(Step):
    name = "ceil"
    numpy_function = np.ceil


class Trunc(Step):
    name = "trunc"
    numpy_function = np.trunc


class Round(Step):
    """Half to even (2.5 -> 2, as PyTorch and numpy); ``decimals`` digits after the point."""

    name = "round"

    def __init__(self, decimals=0):
        self.decimals = int(decimals)

    def forward(self, x):
        return np.round(x, self.decimals) if x.dtype.kind == "f" else x.copy()


class Sign(Step):
    """-1, 0 or 1 (booleans stay booleans)."""

    name = "sign"

    def forward(self, x):
        return x.copy() if x.dtype.kind == "b" else np.sign(x)


class Frac(Unary):
    """The fractional part, x - trunc(x) (negative for negative x, as in PyTorch)."""

    name = "frac"

    def infer(self, x):
        if x.dtype.kind != "f":
            self.fail(f"frac needs a floating point tensor, got {np.dtype(x.dtype).name}.",
                      cls=DTypeError, hint="integers have no fractional part; convert "
                      "first if you meant it: x.float().frac().")
        return x.shape

    def forward(self, x):
        return x - np.trunc(x)

    def backward(self, grad_out):  # y = x - trunc(x);  dy/dx = 1 (trunc is flat)
        return (grad_out,)
