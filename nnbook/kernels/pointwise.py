"""1×1 convolution without padding: GEMMs over the channels, no windows at all.

y[n, g] = W[g] · x[n, g] at every pixel (W[g]: (O/G, C/G), x[n, g]: (C/G, H·W));
a stride only picks the pixels the kernel lands on.
"""
from __future__ import annotations

import numpy as np

from .scratch import scratch, zeros
from .threads import over_batch


def _sampled(geometry, x):
    """The pixels a strided 1×1 kernel reads, (n, G, C/G, H_out·W_out)."""
    n, c = x.shape[:2]
    g, (sh, sw) = geometry.groups, geometry.stride
    xs = x[:, :, ::sh, ::sw]
    if (sh, sw) == (1, 1):
        return xs.reshape(n, g, c // g, -1)
    out = scratch("cols", (n, g, c // g) + xs.shape[2:], x.dtype)
    out.reshape(xs.shape)[...] = xs
    return out.reshape(n, g, c // g, -1)


def forward(geometry, x, weight, bias):
    (n, c), g, (ho, wo) = x.shape[:2], geometry.groups, geometry.out_hw
    w_g = weight.reshape(g, -1, c // g)                          # (G, O/G, C/G)
    out = np.empty((n, weight.shape[0], ho, wo), dtype=x.dtype)

    def part(samples):  # a chunk of the batch (see threads.py): N·G GEMMs in all
        chunk = out[samples].reshape(-1, g, w_g.shape[1], ho * wo)
        np.matmul(w_g, _sampled(geometry, x[samples]), out=chunk)
        if bias is not None:
            out[samples] += bias.reshape(-1, 1, 1)

    over_batch(part, n, (c + weight.shape[0]) * ho * wo)
    return out


def backward(geometry, grad_out, x_shape, x, weight, need_x, need_w):
    (n, c_out), (c, h, w) = grad_out.shape[:2], x_shape[1:]
    g, (ho, wo), (sh, sw) = geometry.groups, geometry.out_hw, geometry.stride
    w_t = weight.reshape(g, -1, c // g).transpose(0, 2, 1)       # (G, C/G, O/G)
    # dL/dW[g] = sum over n of dL/dy[n, g] · x[n, g]^T: per-sample GEMMs, summed at the
    # end in sample order whatever the chunks were (measured faster here than one GEMM
    # over transposed operands, except on tiny maps).
    per_sample = np.empty((n, g, c_out // g, c // g), grad_out.dtype) if need_w else None
    strided = (ho, wo) != (h, w)
    grad_x = zeros(x_shape, grad_out.dtype, skip=not strided) if need_x else None

    def part(samples):  # a chunk of the batch (see threads.py)
        go = grad_out[samples].reshape(-1, g, c_out // g, ho * wo)  # (n, G, O/G, L)
        if need_w:
            np.matmul(go, _sampled(geometry, x[samples]).transpose(0, 1, 3, 2),
                      out=per_sample[samples])
        if need_x:  # dL/dx[n, g] = W[g]^T · dL/dy[n, g], at the sampled pixels only
            if not strided:
                np.matmul(w_t, go, out=grad_x[samples].reshape(go.shape[0], g, c // g, -1))
                return
            grad_xs = scratch("cols", (go.shape[0], g, c // g, ho * wo), go.dtype)
            np.matmul(w_t, go, out=grad_xs)
            grad_x[samples, :, ::sh, ::sw] = grad_xs.reshape(-1, c, ho, wo)

    over_batch(part, n, (c + c_out) * ho * wo)
    grad_w = per_sample.sum(axis=0).reshape(weight.shape) if need_w else None
    return grad_x, grad_w
