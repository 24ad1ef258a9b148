"""Reductions with a formula: variance, standard deviation, log-sum-exp, p-norms, median.

Each reduces over ``dim`` (an int, a tuple of ints, or None for every element)
and keeps the reduced dims as size 1 when ``keepdim`` is true, as ``sum`` does
(ops/reduce.py has the shape rule).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import fmt_shape
from .base import Op, check_float
from .reduce import _expand, even_share, reduced_axes, reduced_shape


class FloatReduction(Op):
    """Base: floating point input, the shape rule of every reduction."""

    def __init__(self, dim=None, keepdim=False):
        self.dim, self.keepdim = dim, keepdim

    def infer(self, x):
        check_float(self, x)
        return reduced_shape(self, x.shape, self.dim, self.keepdim)

    def _squeeze(self, y):
        """y computed with the reduced dims kept: drop them unless keepdim."""
        return y if self.keepdim else np.squeeze(y, axis=self.axes)


class Var(FloatReduction):
    """sum_i (x_i - mean)**2 / (n - correction): correction=1 is the unbiased estimate."""

    name = "var"

    def __init__(self, dim=None, correction=1, keepdim=False):
        super().__init__(dim, keepdim)
        self.correction = correction

    def forward(self, x):
        self.axes = reduced_axes(self, x.ndim, self.dim)
        n = math.prod(x.shape[a] for a in self.axes)
        self.dof = max(n - self.correction, 0)  # degrees of freedom; 0 gives inf or nan
        with np.errstate(divide="ignore", invalid="ignore"):
            self.centered = x - np.sum(x, axis=self.axes, keepdims=True) / n
            return np.sum(self.centered ** 2, axis=self.axes, keepdims=self.keepdim) / self.dof

    def backward(self, grad_out):  # y = sum_i (x_i - m)**2 / dof;  dy/dx_i = 2 (x_i - m) / dof
        # (m depends on x too, but its term is a multiple of sum_i (x_i - m) = 0)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (_expand(grad_out, self.axes, self.keepdim) * 2 * self.centered / self.dof,)


class Std(Var):
    name = "std"
    keeps_output = True  # the backward reads y

    def forward(self, x):
        self.y = np.sqrt(super().forward(x))
        return self.y

    def backward(self, grad_out):  # y = sqrt(var);  dy/dx_i = (x_i - m) / (dof y), 0 where y = 0
        y = _expand(self.y, self.axes, self.keepdim)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = np.where(y == 0, 0, _expand(grad_out, self.axes, self.keepdim) / y)
            return (scale * self.centered / self.dof,)


class LogSumExp(FloatReduction):
    """log(sum_i exp(x_i)), computed as m + log(sum_i exp(x_i - m)) with m = max x, so
    exp() cannot overflow."""

    name = "logsumexp"
    keeps_output = True  # the backward reads y

    def forward(self, x):
        self.axes = reduced_axes(self, x.ndim, self.dim)
        m = np.max(x, axis=self.axes, keepdims=True, initial=-np.inf)
        m = np.where(np.isfinite(m), m, 0)  # shifting by an infinite max would give nan
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            self.x = x
            self.y = m + np.log(np.sum(np.exp(x - m), axis=self.axes, keepdims=True))
        return self._squeeze(self.y)

    def backward(self, grad_out):  # y = log sum_i exp(x_i);  dy/dx_i = exp(x_i - y) (softmax)
        with np.errstate(invalid="ignore"):
            return (_expand(grad_out, self.axes, self.keepdim) * np.exp(self.x - self.y),)


class Norm(FloatReduction):
    """The p-norm (sum_i |x_i|**p)**(1/p); p = inf is max |x_i|, -inf min |x_i|, and p = 0
    counts the non-zero elements."""

    name = "norm"
    keeps_output = True  # the backward reads y

    def __init__(self, p=2.0, dim=None, keepdim=False):
        super().__init__(dim, keepdim)
        self.p = float(p)

    def forward(self, x):
        self.axes, p, a = reduced_axes(self, x.ndim, self.dim), self.p, np.abs(x)
        sum_ = dict(axis=self.axes, keepdims=True)
        if p == math.inf:
            y = np.max(a, initial=0, **sum_)
        elif p == -math.inf:
            y = np.min(a, initial=math.inf, **sum_)
        elif p == 0:
            y = np.sum(a != 0, **sum_).astype(x.dtype)
        elif p == 2:
            y = np.sqrt(np.sum(a * a, **sum_))
        else:
            with np.errstate(divide="ignore", over="ignore"):
                y = np.sum(a ** p, **sum_) ** (1 / p)
        self.x, self.y = x, y.astype(x.dtype, copy=False)
        return self._squeeze(self.y)

    def backward(self, grad_out):
        grad, x, y, p = _expand(grad_out, self.axes, self.keepdim), self.x, self.y, self.p
        if p == 0:  # y counts: a step, dy/dx = 0
            return (np.zeros_like(x),)
        if abs(p) == math.inf:  # y = max |x_i|;  dy/dx_i = sign(x_i) at the largest, ties share
            return (grad * np.sign(x) * even_share(np.abs(x), y, self.axes),)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if p == 2:  # y = sqrt(sum x_i**2);  dy/dx_i = x_i / y
                local = x / y
            else:       # dy/dx_i = sign(x_i) |x_i|**(p-1) / y**(p-1)
                local = np.where(x == 0, 0, np.sign(x) * np.abs(x) ** (p - 1) / y ** (p - 1))
        return (grad * np.where(y == 0, 0, local),)  # 0 at y = 0, as PyTorch


class Median(FloatReduction):
    """The median of every element: the lower one of the middle two for an even count
    (as PyTorch), NaN if any element is NaN."""

    name = "median"
    keeps_output = True  # the backward reads y

    def infer(self, x):
        if 0 in x.shape:
            self.fail(f"cannot take the median of an empty tensor of shape {fmt_shape(x.shape)}.",
                      hint="check the slicing that made this tensor.")
        return ()

    def forward(self, x):
        flat = np.sort(x, axis=None)  # NaNs sort last
        self.x, self.axes = x, tuple(range(x.ndim))
        self.y = np.asarray(flat[-1] if np.isnan(flat[-1]) else flat[(flat.size - 1) // 2])
        return self.y

    def backward(self, grad_out):  # y = x_m;  dy/dx_i = 1 at the median, shared by ties
        return (grad_out * even_share(self.x, self.y, self.axes),)
