"""Adagrad (Duchi, Hazan & Singer, 2011): each weight's step shrinks with the sum of its
squared gradients, so rarely-moved weights keep taking large steps."""
from __future__ import annotations

import numpy as np

from ..tensor import _wrap
from .checks import check_flag, check_number, check_positive, check_switches
from .optimizer import Optimizer, step_counter


class Adagrad(Optimizer):
    """Per parameter, at step t (grad = gradient of the loss, -grad to maximize):

        g = grad + weight_decay * p
        lr_t = lr / (1 + (t - 1) * lr_decay)
        sum = sum + g**2                         (starts at initial_accumulator_value)
        p <- p - lr_t * g / (sqrt(sum) + eps)

    State: ``step``, ``sum``; made for every parameter when its group is added, as in
    PyTorch, so a state dict lists them before the first step.
    """

    _state_tensors = ("sum",)
    _state_numbers = ("step",)

    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, fused=None):
        check_switches("Adagrad", foreach=foreach, fused=fused, differentiable=differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value,
                        maximize=maximize)
        super().__init__(params, defaults)

    def add_param_group(self, group: dict) -> None:
        super().add_param_group(group)
        added = self.param_groups[-1]
        for p in added["params"]:
            self.state[p] = {k: _wrap(v) for k, v in self._fresh(p, added).items()}

    @staticmethod
    def _fresh(p, group) -> dict:
        """The state before the first step (the group's initial_accumulator_value)."""
        start = group["initial_accumulator_value"]
        return {"step": step_counter(), "sum": np.full(p.shape, start, dtype=p.dtype.numpy)}

    def _check_settings(self, group, where):
        super()._check_settings(group, where)
        check_number(where, "lr_decay", group["lr_decay"])
        check_number(where, "initial_accumulator_value", group["initial_accumulator_value"])
        check_positive(where, "eps", group["eps"], "it keeps g / sqrt(sum) from being 0 / 0")
        check_flag(where, "maximize", group["maximize"])

    def _required_state(self, group):
        return ("step", "sum")

    def _update(self, param, grad, group, state):
        if group["maximize"]:
            grad = -grad
        if not state:  # a state dict loaded without this parameter's state
            state.update(self._fresh(param, group))
        state["step"] += 1
        if group["weight_decay"]:
            grad = grad + group["weight_decay"] * param.detach().numpy()
        lr_t = group["lr"] / (1 + (float(state["step"]) - 1) * group["lr_decay"])
        state["sum"] += grad * grad
        param -= lr_t * grad / (np.sqrt(state["sum"]) + group["eps"])
