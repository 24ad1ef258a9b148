"""Ops that answer yes or no, element by element: isnan, isclose, logical_and...; and the
bitwise ops (&, |, ^, ~), which combine such answers (and the bits of integers).

Their results are booleans or integers, which carry no gradient (``==`` and ``<`` are in
ops/elementwise.py as Compare).
"""
from __future__ import annotations

import numpy as np

from ..errors import DTypeError
from .elementwise import Binary, Unary, _operands


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


class Bitwise(Binary):
    """a & b, a | b, a ^ b: bit by bit on integers; on booleans that is and, or, xor (the
    way masks are combined: ``(x > 0) & (x < 1)``).  Floats have no bits to combine."""

    FUNCTIONS = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
                 "bitwise_xor": np.bitwise_xor}
    SYMBOLS = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}

    def __init__(self, kind):
        self.kind = kind
        self.ufunc = self.FUNCTIONS[kind]  # x &= y outside the graph runs straight into x

    @property
    def name(self):
        return self.kind

    def check_operands(self, a, b, dtype):
        if dtype.kind not in "iub":
            symbol = self.SYMBOLS[self.kind]
            self.fail(f"{symbol} ({self.kind}) takes integer or bool tensors, not "
                      f"{dtype.name} (as in PyTorch).", cls=DTypeError,
                      values=_operands(a, b),
                      hint=f"to combine conditions, bracket each one: (x > 0) {symbol} (x < 1) "
                      f"({symbol} binds tighter than > and <, so x > 0 {symbol} x < 1 "
                      f"computes 0 {symbol} x first); for bits convert first: x.long().")

    def infer(self, a, b):
        # Two float tensors of one dtype skip check_operands (tensor._binary's fast path).
        if np.dtype(a.dtype).kind == "f":
            self.check_operands(np.dtype(a.dtype), np.dtype(b.dtype), np.dtype(a.dtype))
        return super().infer(a, b)

    def forward(self, a, b):
        return self.ufunc(a, b)

    def backward(self, grad_out):  # bits and masks carry no gradient
        return None, None


class BitwiseNot(Unary):
    """~x: every bit flipped; on booleans, not (``~mask`` selects the other elements)."""

    name = "bitwise_not"

    def infer(self, x):
        if np.dtype(x.dtype).kind not in "iub":
            self.fail(f"~ (bitwise_not) takes an integer or bool tensor, not "
                      f"{np.dtype(x.dtype).name} (as in PyTorch).", cls=DTypeError,
                      hint="to flip a condition compare the other way (x <= 0), or use "
                      "~(x > 0); for bits convert first: ~x.long().")
        return x.shape

    def forward(self, x):
        return np.invert(x)

    def backward(self, grad_out):
        return (None,)

