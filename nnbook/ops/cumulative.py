"""Running sums and products along one dim: y_j = x_0 + ... + x_j (cumsum), x_0 ... x_j
(cumprod).  Output j depends on inputs 0..j, so a gradient flows back to every input
from the outputs at and after it."""
from __future__ import annotations

import numpy as np

from .base import Op, normalize_dim


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
