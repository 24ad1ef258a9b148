"""Wrong backward rules for the depthwise exercise, one slip at a time (all off: right)."""
import numpy as np

import nnbook as nb
from nnbook.exercises import _solutions as solutions


def depthwise_rule(swap_hw=False, flip_kernel=False, per_sample_weight=False, overwrite=False):
    """The depthwise convolution's backward, with the slips asked for planted in it."""
    class Planted(solutions.DepthwiseConv):
        @staticmethod
        def backward(ctx, grad_output):
            x, weight = ctx.saved_tensors
            xd, wd, g = x.detach().numpy(), weight.detach().numpy(), grad_output.numpy()
            kh, kw = wd.shape[2:]
            h_out, w_out = g.shape[2:]
            grad_x, grad_w = np.zeros_like(xd), np.zeros_like(wd)
            for i in range(kh):
                for j in range(kw):
                    ki, kj = (kh - 1 - i, kw - 1 - j) if flip_kernel else (i, j)
                    share = g * wd[None, :, 0, ki, kj, None, None]
                    if overwrite:  # = where += belongs: overlapping windows lose shares
                        grad_x[:, :, i:i + h_out, j:j + w_out] = share
                    else:
                        grad_x[:, :, i:i + h_out, j:j + w_out] += share
                    window = g * xd[:, :, i:i + h_out, j:j + w_out]
                    grad_w[:, 0, i, j] = (window.sum(axis=(2, 3)) if per_sample_weight
                                          else window.sum(axis=(0, 2, 3)))
            if swap_hw:
                grad_x = np.zeros((xd.shape[0], xd.shape[1], xd.shape[3], xd.shape[2]))
            return nb.tensor(grad_x), nb.tensor(grad_w)
    return Planted
