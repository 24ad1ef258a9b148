"""Adam (Kingma & Ba, 2015), with PyTorch's bias correction, weight decay and AMSGrad."""
from __future__ import annotations

import math

import numpy as np

from .checks import check_betas, check_flag, check_positive, check_switches
from .optimizer import Optimizer, step_counter


class Adam(Optimizer):
    """Per parameter, at step t (grad = gradient of the loss, -grad to maximize):

        g = grad + weight_decay * p              (or, decoupled: p <- p * (1 - lr * weight_decay))
        m = beta1 * m + (1 - beta1) * g          (mean of the gradients)
        v = beta2 * v + (1 - beta2) * g**2       (mean of their squares)
        p <- p - lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)

    AMSGrad uses the largest v seen so far instead of v.
    State: ``step``, ``exp_avg`` (m), ``exp_avg_sq`` (v), ``max_exp_avg_sq`` (AMSGrad).
    """

    _state_tensors = ("exp_avg", "exp_avg_sq", "max_exp_avg_sq")
    _state_numbers = ("step",)

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused=None,
                 decoupled_weight_decay: bool = False):
        check_switches(type(self).__name__, foreach=foreach, fused=fused,
                       capturable=capturable, differentiable=differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _check_settings(self, group, where):
        super()._check_settings(group, where)
        check_positive(where, "eps", group["eps"], "it keeps m / sqrt(v) from being 0 / 0 "
                       "where the gradients have all been zero")
        for key in ("amsgrad", "maximize", "decoupled_weight_decay"):
            check_flag(where, key, group[key])
        group["betas"] = check_betas(where, group["betas"])

    def _required_state(self, group):
        base = ("step", "exp_avg", "exp_avg_sq")
        return base + ("max_exp_avg_sq",) if group["amsgrad"] else base

    def _update(self, param, grad, group, state):
        lr, (beta1, beta2), weight_decay = group["lr"], group["betas"], group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = step_counter()
            state["exp_avg"] = np.zeros_like(grad)
            state["exp_avg_sq"] = np.zeros_like(grad)
        if group["amsgrad"] and "max_exp_avg_sq" not in state:  # amsgrad switched on later
            state["max_exp_avg_sq"] = np.zeros_like(grad)
        state["step"] += 1
        if weight_decay and group["decoupled_weight_decay"]:
            param *= 1 - lr * weight_decay  # AdamW: shrink p, outside the moments
        elif weight_decay:
            grad = grad + weight_decay * param.detach().numpy()
        m, v = state["exp_avg"], state["exp_avg_sq"]
        m += (1 - beta1) * (grad - m)  # = beta1 m + (1 - beta1) g, as PyTorch's lerp
        v *= beta2
        v += (1 - beta2) * grad * grad
        t = float(state["step"])
        step_size = lr / (1 - beta1 ** t)
        bias_correction2_sqrt = math.sqrt(1 - beta2 ** t)
        if group["amsgrad"]:
            np.maximum(state["max_exp_avg_sq"], v, out=state["max_exp_avg_sq"])
            v = state["max_exp_avg_sq"]
        denom = np.sqrt(v) / bias_correction2_sqrt + group["eps"]
        param -= step_size * m / denom  # in place, under no_grad (as PyTorch's addcdiv_)
