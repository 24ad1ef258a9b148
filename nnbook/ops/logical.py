"""Ops that answer yes or no, element by element: isnan, isclose, logical_and...

Their results are booleans, which carry no gradient (``==`` and ``<`` are in
ops/elementwise.py as Compare).
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError
from .elementwise import Binary, Unary


class Predicate(Unary):
    """A yes/no question about each element (``kind`` names the numpy function)."""

    FUNCTIONS = {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite,
                 "isposinf": np.isposinf, "isneginf": np.isneginf,
                 "logical_not": np.logical_not, "signbit": np.signbit}

    def __init__(self, kind):
        self.kind = kind

    @property
    def name(self):
        return self.kind

    def out_dtype(self, x):
        return np.dtype(np.bool_)

    def forward(self, x):
        return self.FUNCTIONS[self.kind](x)

    def backward(self, grad_out):  # a yes/no answer is a step: its derivative is 0
        return (None,)


class Logical(Binary):
    """logical_and, logical_or, logical_xor: any non-zero element counts as true."""

    FUNCTIONS = {"logical_and": np.logical_and, "logical_or": np.logical_or,
                 "logical_xor": np.logical_xor}

    def __init__(self, kind):
        self.kind = kind

    @property
    def name(self):
        return self.kind

    def out_dtype(self, a, b):
        return np.dtype(np.bool_)

    def forward(self, a, b):
        return self.FUNCTIONS[self.kind](a, b)

    def backward(self, grad_out):
        return None, None


class IsClose(Binary):
    """|a - b| <= atol + rtol * |b| (not symmetric in a and b, as in numpy and PyTorch);
    equal infinities are close, NaNs only with ``equal_nan``."""

    name = "isclose"

    def __init__(self, rtol=1e-05, atol=1e-08, equal_nan=False):
        self.rtol, self.atol, self.equal_nan = rtol, atol, equal_nan

    def infer(self, a, b):
        if np.dtype(a.dtype) != np.dtype(b.dtype):
            self.fail(f"both tensors need the same dtype, got {np.dtype(a.dtype).name} and "
                      f"{np.dtype(b.dtype).name}.", cls=DTypeError,
                      hint="convert one of them: b.to(a.dtype).")
        return super().infer(a, b)

    def out_dtype(self, a, b):
        return np.dtype(np.bool_)

    def forward(self, a, b):
        return np.isclose(a, b, rtol=self.rtol, atol=self.atol, equal_nan=self.equal_nan)

    def backward(self, grad_out):
        return None, None
