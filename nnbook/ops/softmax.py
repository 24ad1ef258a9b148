"""Softmax and log-softmax along one dimension (the classes).

    p = softmax(z):   p_c = exp(z_c) / sum_k exp(z_k)
    log p = z - logsumexp(z)

Both shift z by its largest value first: the result is the same, and exp() can no
longer overflow.
"""
from __future__ import annotations

import numpy as np

from .base import Op, check_float, normalize_dim


def shifted(x: np.ndarray, axis) -> np.ndarray:
    """x - max(x) along ``axis``: the same softmax, and exp() can no longer overflow."""
    if x.size == 0:
        return x
    return x - np.max(x, axis=axis, keepdims=True)


def log_softmax_array(x: np.ndarray, axis) -> np.ndarray:
    """log p = (z - max z) - log(sum exp(z - max z)), stable for any z."""
    z = shifted(x, axis)
    with np.errstate(divide="ignore"):
        return z - np.log(np.sum(np.exp(z), axis=axis, keepdims=True))


class Softmax(Op):
    name = "softmax"
    keeps_output = True  # backward reads y

    def __init__(self, dim):
        self.dim = dim

    def infer(self, x):
        check_float(self, x)
        normalize_dim(self, self.dim, x.ndim)
        return x.shape

    def class_axis(self, x) -> int | None:
        """The axis ``dim`` names in ``x`` (None for a 0-d tensor: its one value)."""
        return normalize_dim(self, self.dim, x.ndim) if x.ndim else None

    def forward(self, x):
        self.axis = self.class_axis(x)
        e = np.exp(shifted(x, self.axis))
        self.y = e / np.sum(e, axis=self.axis, keepdims=True)
        return self.y

    def backward(self, grad_out):  # y = softmax(x);  dx = y * (g - sum(g * y))  (no Jacobian)
        y = self.y
        return (y * (grad_out - np.sum(grad_out * y, axis=self.axis, keepdims=True)),)


class LogSoftmax(Softmax):
    name = "log_softmax"

    def forward(self, x):
        self.axis = self.class_axis(x)
        self.y = log_softmax_array(x, self.axis)
        return self.y

    def backward(self, grad_out):  # y = log softmax(x);  dx = g - softmax(x) * sum(g)
        return (grad_out - np.exp(self.y) * np.sum(grad_out, axis=self.axis, keepdims=True),)
