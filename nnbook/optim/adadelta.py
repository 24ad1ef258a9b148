"""Adadelta (Zeiler, 2012): steps sized by the ratio of two running root mean squares,
of past steps and of past gradients, so that lr=1.0 works without tuning."""
from __future__ import annotations

import numpy as np

from .checks import check_flag, check_fraction, check_positive, check_switches
from .optimizer import Optimizer, step_counter


class Adadelta(Optimizer):
    """Per parameter (grad = gradient of the loss, -grad to maximize):

        g = grad + weight_decay * p
        v = rho * v + (1 - rho) * g**2                   (mean of the squared gradients)
        d = sqrt(u + eps) / sqrt(v + eps) * g            (the step, in the units of p)
        u = rho * u + (1 - rho) * d**2                   (mean of the squared steps)
        p <- p - lr * d

    State: ``step``, ``square_avg`` (v), ``acc_delta`` (u).
    """

    _state_tensors = ("square_avg", "acc_delta")
    _state_numbers = ("step",)

    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach=None, *, capturable: bool = False,
                 maximize: bool = False, differentiable: bool = False):
        check_switches("Adadelta", foreach=foreach, capturable=capturable,
                       differentiable=differentiable)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                        maximize=maximize)
        super().__init__(params, defaults)

    def _check_settings(self, group, where):
        super()._check_settings(group, where)
        check_fraction(where, "rho", group["rho"], "above 1 the running means take negative "
                       "weights and can go below zero", closed=True)
        check_positive(where, "eps", group["eps"], "with eps=0 the first step, "
                       "sqrt(0) * g, is zero, and so is every step after it")
        check_flag(where, "maximize", group["maximize"])

    def _required_state(self, group):
        return ("step", "square_avg", "acc_delta")

    def _update(self, param, grad, group, state):
        rho, eps = group["rho"], group["eps"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = step_counter()
            state["square_avg"] = np.zeros_like(grad)
            state["acc_delta"] = np.zeros_like(grad)
        state["step"] += 1
        if group["weight_decay"]:
            grad = grad + group["weight_decay"] * param.detach().numpy()
        v, u = state["square_avg"], state["acc_delta"]
        v *= rho
        v += (1 - rho) * grad * grad
        d = np.sqrt(u + eps) / np.sqrt(v + eps) * grad
        u *= rho
        u += (1 - rho) * d * d
        param -= group["lr"] * d  # in place, under no_grad (as PyTorch's param.add_)
