"""Stochastic gradient descent, with PyTorch's momentum, dampening, nesterov and weight decay."""
from __future__ import annotations

from ..errors import InputError, message
from .checks import check_flag, check_fraction, check_number, check_switches
from .optimizer import Optimizer


class SGD(Optimizer):
    """p <- p - lr * d, where, with grad the gradient of the loss (-grad to maximize):

        g = grad + weight_decay * p
        without momentum:  d = g
        with momentum:     buf = g at the first step, then momentum * buf + (1 - dampening) * g
                           d = buf,  or with nesterov  d = g + momentum * buf

    State: ``momentum_buffer`` (only with momentum).
    """

    _state_tensors = ("momentum_buffer",)

    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False,
                 foreach=None, differentiable: bool = False, fused=None):
        check_switches("SGD", foreach=foreach, fused=fused, differentiable=differentiable)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize)
        super().__init__(params, defaults)

    def _check_settings(self, group, where):
        super()._check_settings(group, where)
        check_fraction(where, "momentum", group["momentum"],
                       "at 1 or more the velocity never forgets and the steps grow forever")
        check_number(where, "dampening", group["dampening"])
        check_flag(where, "nesterov", group["nesterov"])
        check_flag(where, "maximize", group["maximize"])
        if group["nesterov"] and (group["momentum"] <= 0 or group["dampening"] != 0):
            raise InputError(message(
                "nesterov=True needs momentum > 0 and dampening = 0, got "
                f"momentum={group['momentum']}, dampening={group['dampening']}.", where=where,
                hint="e.g. SGD(params, lr=0.1, momentum=0.9, nesterov=True)."))

    def _update(self, param, grad, group, state):
        lr, momentum, weight_decay = group["lr"], group["momentum"], group["weight_decay"]
        if group["maximize"]:
            grad = -grad
        if weight_decay:
            grad = grad + weight_decay * param.detach().numpy()
        if momentum:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.copy()
            else:
                buf *= momentum
                buf += (1 - group["dampening"]) * grad
            grad = grad + momentum * buf if group["nesterov"] else buf
        param -= lr * grad  # in place, under no_grad (as PyTorch's param.add_)
