"""Reference solutions of the exercises in notebooks/13_exercises.ipynb.

The notebook never shows these: ``nnbook.exercises`` compares a student's numbers
with them, and tests/test_exercises.py proves that every check passes on them.
If you are a student: try first, then come and read.
"""
from __future__ import annotations

import math

import numpy as np

import nnbook as nb
from nnbook import nn

# -- 1. Swish as a Function --------------------------------------------------------

class Swish(nb.autograd.Function):
    # y = x * s with s = sigmoid(x);  dy/dx = s + x * s * (1 - s)   (product rule, s' = s(1 - s))

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x.sigmoid()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        s = x.sigmoid()
        return grad_output * (s + x * s * (1 - s))


# -- 2. bprop on a Module ------------------------------------------------------------

class XYPlusY(nn.Module):
    # z = x * y + y;  dz/dx = y,  dz/dy = x + 1

    def forward(self, x, y):
        return x * y + y

    def bprop(self, x, y, out, dout):
        return dout * y, dout * (x + 1)


# -- 3. Softplus, stable forward ----------------------------------------------------

class Softplus(nb.autograd.Function):
    # y = log(1 + exp(x)) = max(x, 0) + log(1 + exp(-|x|))   (no exp of a large number)
    # dy/dx = exp(x) / (1 + exp(x)) = sigmoid(x)

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.relu() + (1 + (-x.abs()).exp()).log()

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * x.sigmoid()


# -- 4. Linear from scratch -------------------------------------------------------------

class MyLinear(nn.Module):
    # y = x @ weight.T + bias;  weight (out_features, in_features), bias (out_features,)

    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        bound = 1 / math.sqrt(in_features)  # PyTorch's bound for both weight and bias
        self.weight = nn.Parameter(nb.rand(out_features, in_features) * (2 * bound) - bound)
        self.bias = nn.Parameter(nb.rand(out_features) * (2 * bound) - bound) if bias else None

    def forward(self, x):
        y = x @ self.weight.T
        return y + self.bias if self.bias is not None else y


# -- 5. Depthwise convolution backward ----------------------------------------------------

class DepthwiseConv(nb.autograd.Function):
    # out[n, c, p, q] = sum_{i, j} x[n, c, p + i, q + j] * w[c, 0, i, j]   (stride 1, no padding)
    # d out / d x: each output pixel hands its gradient back to the kh*kw pixels it saw;
    # d out / d w[c, 0, i, j]: the input window at offset (i, j), summed over n, p, q

    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        xd, wd = x.detach().numpy(), weight.detach().numpy()
        kh, kw = wd.shape[2:]
        h_out, w_out = xd.shape[2] - kh + 1, xd.shape[3] - kw + 1
        out = np.zeros(xd.shape[:2] + (h_out, w_out), dtype=xd.dtype)
        for i in range(kh):
            for j in range(kw):
                out += xd[:, :, i:i + h_out, j:j + w_out] * wd[None, :, 0, i, j, None, None]
        return nb.tensor(out)

    @staticmethod
    def backward(ctx, grad_output):
        x, weight = ctx.saved_tensors
        xd, wd, g = x.detach().numpy(), weight.detach().numpy(), grad_output.numpy()
        kh, kw = wd.shape[2:]
        h_out, w_out = g.shape[2:]
        grad_x = np.zeros_like(xd)          # (N, C, H, W)
        grad_w = np.zeros_like(wd)          # (C, 1, kh, kw)
        for i in range(kh):
            for j in range(kw):
                grad_x[:, :, i:i + h_out, j:j + w_out] += g * wd[None, :, 0, i, j, None, None]
                grad_w[:, 0, i, j] = (g * xd[:, :, i:i + h_out, j:j + w_out]).sum(axis=(0, 2, 3))
        return nb.tensor(grad_x), nb.tensor(grad_w)


SOLUTIONS = {
    "swish": Swish,
    "bprop": XYPlusY,
    "softplus": Softplus,
    "linear": MyLinear,
    "depthwise": DepthwiseConv,
}
