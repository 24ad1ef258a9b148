"""Adam (Kingma & Ba, 2015), with PyTorch's bias correction, weight decay and AMSGrad."""
from __future__ import annotations

import math

import numpy as np

from ..errors import InputError, message
from .optimizer import Optimizer, _non_negative


class Adam(Optimizer):
    """Per parameter, at step t (grad = gradient of the loss):

        g = grad + weight_decay * p
        m = beta1 * m + (1 - beta1) * g          (mean of the gradients)
        v = beta2 * v + (1 - beta2) * g**2       (mean of their squares)
        p <- p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

    AMSGrad uses the largest v seen so far instead of v.
    """

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False):
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad)
        super().__init__(params, defaults)

    def _check_settings(self, group):
        super()._check_settings(group)
        _non_negative("Adam", "eps", group["eps"])
        betas = tuple(group["betas"])
        if len(betas) != 2 or not all(0 <= b < 1 for b in betas):
            raise InputError(message(
                f"betas must be two numbers in [0, 1), got {group['betas']!r}.", where="Adam",
                hint="the usual values are betas=(0.9, 0.999)."))
        group["betas"] = betas

    def _update(self, param, grad, group, state):
        beta1, beta2 = group["betas"]
        if group["weight_decay"]:
            grad = grad + group["weight_decay"] * param._array
        if not state:
            state["step"] = 0.0
            state["exp_avg"] = np.zeros_like(param._array)
            state["exp_avg_sq"] = np.zeros_like(param._array)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = np.zeros_like(param._array)
        state["step"] += 1
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m += (1 - beta1) * (grad - m)  # = beta1 m + (1 - beta1) g, as PyTorch's lerp
        v *= beta2
        v += (1 - beta2) * grad * grad
        t = state["step"]
        step_size = group["lr"] / (1 - beta1 ** t)
        bias_correction2_sqrt = math.sqrt(1 - beta2 ** t)
        if group["amsgrad"]:
            np.maximum(state["max_exp_avg_sq"], v, out=state["max_exp_avg_sq"])
            v = state["max_exp_avg_sq"]
        denom = np.sqrt(v) / bias_correction2_sqrt + group["eps"]
        param._array -= step_size * m / denom
