"""Running sums and products along one dim: y_j = x_0 + ... + x_j (cumsum), x_0 ... x_j
(cumprod), the largest and smallest so far (cummax, cummin), log(e**x_0 + ... + e**x_j)
(logcumsumexp).  Output j depends on inputs 0..j, so a gradient flows back to every
input from the outputs at and after it."""
from __future__ import annotations

import numpy as np

from .base import Op, check_float, normalize_dim
from .selection import coordinates


def reverse_cumsum(a: np.ndarray, axis: int) -> np.ndarray:
    """r_i = a_i + a_(i+1) + ... + a_last along ``axis``."""
    return np.flip(np.cumsum(np.flip(a, axis), axis), axis)


class CumSum(Op):
    name = "cumsum"

    def __init__(self, dim):
        self.dim = dim

    def infer(self, x):
        normalize_dim(self, self.dim, x.ndim)
        return x.shape

    def forward(self, x):
        self.axis = normalize_dim(self, self.dim, x.ndim)
        return np.cumsum(x, axis=self.axis).reshape(x.shape)  # a 0-d x stays 0-d

    def backward(self, grad_out):  # y_j = sum_{i<=j} x_i;  dy_j/dx_i = 1 for j >= i
        return (reverse_cumsum(np.atleast_1d(grad_out), self.axis).reshape(grad_out.shape),)


class CumProd(CumSum):
    name = "cumprod"
    keeps_output = True

    def forward(self, x):
        self.axis = normalize_dim(self, self.dim, x.ndim)
        self.x, self.y = x, np.cumprod(x, axis=self.axis).reshape(x.shape)
        return self.y

    def backward(self, grad_out):
        # y_j = prod_{k<=j} x_k;  dy_j/dx_i = prod_{k<=j, k!=i} x_k for j >= i
        x, axis = np.atleast_1d(self.x), self.axis
        g = np.atleast_1d(grad_out)
        if np.all(x != 0):  # then the product without x_i is y_j / x_i
            return ((reverse_cumsum(g * np.atleast_1d(self.y), axis) / x)
                    .reshape(grad_out.shape),)
        grad = np.empty_like(g)
        for i in range(x.shape[axis]):  # zeros: take x_i out of the products, one i at a time
            others = x.copy()
            np.moveaxis(others, axis, 0)[i] = 1
            terms = g * np.cumprod(others, axis=axis)
            np.moveaxis(grad, axis, 0)[i] = np.moveaxis(terms, axis, 0)[i:].sum(0)
        return (grad.reshape(grad_out.shape),)


class CumMax(CumSum):
    """The largest value so far, y_j = max(x_0 .. x_j), and where it is (``indices``).

    On a tie the later element is taken (as PyTorch), and a NaN, once met, is the maximum
    from then on (each later NaN taking over)."""

    name = "cummax"
    running = staticmethod(np.maximum.accumulate)  # CumMin: np.minimum (both keep NaN)

    def forward(self, x):
        self.axis = normalize_dim(self, self.dim, x.ndim)
        a = np.atleast_1d(x)
        best = self.running(a, axis=self.axis)
        # The running best m only gets better, so the element it came from is the last
        # j <= i with x_j == m_j (a NaN is its own best): the positions of those hits,
        # carried forward by a running max.
        hit = (a == best) | np.isnan(a) if a.dtype.kind == "f" else a == best
        shape = [1] * a.ndim
        shape[self.axis] = a.shape[self.axis]
        position = np.arange(a.shape[self.axis]).reshape(shape)
        index = np.maximum.accumulate(np.where(hit, position, 0), axis=self.axis)
        self.index = index.reshape(x.shape)
        return np.take_along_axis(a, index, self.axis).reshape(x.shape)  # -0.0 vs 0.0 too

    def indices(self) -> np.ndarray:
        return self.index.astype(np.int64)

    def backward(self, grad_out):  # y_j = x_(index_j);  dy_j/dx_i = 1 where i = index_j
        grad = np.zeros(np.atleast_1d(grad_out).shape, grad_out.dtype)
        np.add.at(grad, coordinates(np.atleast_1d(self.index), self.axis),
                  np.atleast_1d(grad_out))
        return (grad.reshape(grad_out.shape),)


class CumMin(CumMax):
    """The smallest value so far and where it is: the rule of cummax, with min."""

    name = "cummin"
    running = staticmethod(np.minimum.accumulate)


class LogCumSumExp(CumSum):
    """y_j = log(e**x_0 + ... + e**x_j), without overflow: numpy's logaddexp, run along
    the dim (y_j = logaddexp(y_(j-1), x_j))."""

    name = "logcumsumexp"
    keeps_output = True

    def infer(self, x):
        check_float(self, x)
        return super().infer(x)

    def forward(self, x):
        self.axis = normalize_dim(self, self.dim, x.ndim)
        self.x = x
        self.y = np.logaddexp.accumulate(np.atleast_1d(x), axis=self.axis).reshape(x.shape)
        return self.y

    def backward(self, grad_out):
        # y_j = log sum_{i<=j} e**x_i;  dy_j/dx_i = e**(x_i - y_j) for j >= i, so
        # grad_i = e**x_i * sum_{j>=i} g_j e**-y_j.  That sum overflows; its logarithm
        # does not: a reversed logcumsumexp of log(g_j) - y_j, with the positive and the
        # negative g_j apart (a logarithm needs positive numbers).
        x, y, g = (np.atleast_1d(a) for a in (self.x, self.y, grad_out))
        grad = np.zeros_like(g)
        for sign in (1, -1):
            part = np.where(sign * g > 0, sign * g, 0)
            with np.errstate(divide="ignore"):  # log(0) = -inf: no part
                log_part = np.log(part)
            tail = np.flip(np.logaddexp.accumulate(np.flip(log_part - y, self.axis),
                                                   axis=self.axis), self.axis)
            grad = grad + sign * np.exp(x + tail)
        return (grad.reshape(grad_out.shape),)
