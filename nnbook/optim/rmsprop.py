"""RMSprop (Hinton's lecture 6e), with PyTorch's eps placement, momentum and centring."""
from __future__ import annotations

import numpy as np

from .checks import check_flag, check_fraction, check_positive, check_switches
from .optimizer import Optimizer, step_counter


class RMSprop(Optimizer):
    """Divide each gradient by a running root mean square of its recent values:

        g = grad + weight_decay * p              (grad: gradient of the loss, -grad to maximize)
        v = alpha * v + (1 - alpha) * g**2       (mean of the squares)
        centred:  a = alpha * a + (1 - alpha) * g,   s = sqrt(v - a**2) + eps
        else:     s = sqrt(v) + eps
        p <- p - lr * g / s,   or with momentum:  buf = momentum * buf + g / s,  p <- p - lr * buf

    State: ``step``, ``square_avg`` (v), ``momentum_buffer`` (with momentum), ``grad_avg``
    (a, when centred).
    """

    _state_tensors = ("square_avg", "momentum_buffer", "grad_avg")
    _state_numbers = ("step",)

    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False,
                 capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False):
        check_switches("RMSprop", foreach=foreach, capturable=capturable,
                       differentiable=differentiable)
        defaults = dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                        momentum=momentum, centered=centered, maximize=maximize)
        super().__init__(params, defaults)

    def _check_settings(self, group, where):
        super()._check_settings(group, where)
        check_fraction(where, "alpha", group["alpha"], "above 1 the mean of the squares "
                       "takes negative weights and can go below zero", closed=True)
        check_positive(where, "eps", group["eps"], "it keeps g / sqrt(v) from being 0 / 0")
        check_fraction(where, "momentum", group["momentum"],
                       "at 1 or more the velocity never forgets and the steps grow forever")
        check_flag(where, "centered", group["centered"])
        check_flag(where, "maximize", group["maximize"])

    def _required_state(self, group):
        return ("step", "square_avg") + (("momentum_buffer",) if group["momentum"] else ()) \
            + (("grad_avg",) if group["centered"] else ())

    def _update(self, param, grad, group, state):
        lr, alpha, momentum = group["lr"], group["alpha"], group["momentum"]
        if group["maximize"]:
            grad = -grad
        if not state:
            state["step"] = step_counter()
            state["square_avg"] = np.zeros_like(grad)
        state["step"] += 1
        if group["weight_decay"]:
            grad = grad + group["weight_decay"] * param.detach().numpy()
        v = state["square_avg"]
        v *= alpha
        v += (1 - alpha) * grad * grad
        if group["centered"]:
            a = state.setdefault("grad_avg", np.zeros_like(grad))
            a += (1 - alpha) * (grad - a)  # = alpha a + (1 - alpha) g, as PyTorch's lerp
            s = np.sqrt(v - a * a) + group["eps"]
        else:
            s = np.sqrt(v) + group["eps"]
        if momentum > 0:
            buf = state.setdefault("momentum_buffer", np.zeros_like(grad))
            buf *= momentum
            buf += grad / s
            param -= lr * buf
        else:
            param -= lr * grad / s  # in place, under no_grad (as PyTorch's addcdiv_)
