"""Schedules that multiply the learning rate by a factor: given as a function, at steps,
by a constant, along a line, a power or an exponential.

In each, lr_0 is the group's initial_lr and e the epoch (``last_epoch``).  Each rule is
computed as PyTorch does: from the current rate (lr_e from lr_{e-1}), so schedulers can
be chained; ``_get_closed_form_lr`` gives lr_e from lr_0 directly.
"""
from __future__ import annotations

import math
import types
from bisect import bisect_right
from collections import Counter

from ...errors import InputError, message
from ..checks import is_number
from .base import LRScheduler
from .checks import check_callable, check_int, check_real
from .state import plain, refuse, restore


def _lambdas(where: str, lr_lambda, optimizer) -> list:
    """One function per parameter group, from a function or a list of them."""
    groups = len(optimizer.param_groups)
    if isinstance(lr_lambda, (list, tuple)):
        if len(lr_lambda) != groups:
            raise InputError(message(
                f"lr_lambda must be one function, or one per parameter group: the optimizer "
                f"has {groups} group(s), the list has {len(lr_lambda)}.", where=where,
                hint="pass a single function for every group, or a list of one per group."))
        lambdas = list(lr_lambda)
    else:
        lambdas = [lr_lambda] * groups
    for fn in lambdas:
        check_callable(where, "lr_lambda", fn, hint="e.g. lr_lambda=lambda epoch: 0.95 ** "
                       "epoch (a function of the epoch that returns a factor).")
    return lambdas


def _factor(scheduler, i: int, fn) -> float:
    """lr_lambda's factor for group i at this epoch: a finite number >= 0."""
    factor = fn(scheduler.last_epoch)
    if not (is_number(factor) and math.isfinite(factor) and factor >= 0):
        raise InputError(message(
            f"lr_lambda of parameter group {i} returned {factor!r:.40} at epoch "
            f"{scheduler.last_epoch}; it must return a factor, a finite number >= 0.",
            where=f"{type(scheduler).__name__}.step()",
            values=f"lr_lambda: {getattr(fn, '__name__', type(fn).__name__)}",
            hint="make it return a number for every epoch from 0 on, e.g. lambda epoch: "
            "min(1.0, (epoch + 1) / 5) for a warm-up."))
    return factor


class _WithLambdas(LRScheduler):
    """LambdaLR and MultiplicativeLR: functions are not saved, but a callable object's
    attributes are (PyTorch saves its __dict__); nnbook saves {group: attributes} for
    those only, and loads that or PyTorch's list with None for functions."""

    _unsaved = ("optimizer", "lr_lambdas")

    def state_dict(self) -> dict:
        sd = super().state_dict()
        objects = {str(i): dict(fn.__dict__) for i, fn in enumerate(self.lr_lambdas)
                   if not isinstance(fn, types.FunctionType)}
        if objects:
            sd["lr_lambdas"] = objects
        return sd

    def _checked(self, state_dict) -> dict:
        where = f"{type(self).__name__}.load_state_dict"
        state_dict = dict(state_dict) if isinstance(state_dict, dict) else state_dict
        saved = state_dict.pop("lr_lambdas", None) if isinstance(state_dict, dict) else None
        new = super()._checked(state_dict)
        saved = plain(saved) if saved is not None else []
        if isinstance(saved, dict):  # nnbook's {group: attributes}
            saved = [saved.get(str(i)) for i in range(len(self.lr_lambdas))]
        if not isinstance(saved, list) or len(saved) > len(self.lr_lambdas):
            refuse(where, f"the saved 'lr_lambdas' do not fit the {len(self.lr_lambdas)} "
                   "function(s) of this scheduler.")
        attributes = [None if entry is None else
                      restore(where, f"lr_lambdas.{i}", entry, dict(fn.__dict__))
                      for i, (entry, fn) in enumerate(zip(saved, self.lr_lambdas))]
        new["lr_lambdas"] = attributes
        return new

    def _apply(self, new: dict) -> None:
        for fn, attributes in zip(self.lr_lambdas, new.pop("lr_lambdas")):
            if attributes is not None:
                fn.__dict__.update(attributes)
        super()._apply(new)


class LambdaLR(_WithLambdas):
    """lr_e = lr_0 * lr_lambda(e)   (one function, or one per parameter group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1):
        self.lr_lambdas = _lambdas("LambdaLR", lr_lambda, optimizer)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        return [base_lr * _factor(self, i, fn)
                for i, (fn, base_lr) in enumerate(zip(self.lr_lambdas, self.base_lrs))]


class MultiplicativeLR(_WithLambdas):
    """lr_e = lr_{e-1} * lr_lambda(e)   (one function, or one per parameter group)."""

    def __init__(self, optimizer, lr_lambda, last_epoch: int = -1):
        self.lr_lambdas = _lambdas("MultiplicativeLR", lr_lambda, optimizer)
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return [group["lr"] for group in groups]
        return [group["lr"] * _factor(self, i, fn)
                for i, (fn, group) in enumerate(zip(self.lr_lambdas, groups))]


class StepLR(LRScheduler):
    """lr_e = lr_0 * gamma ** (e // step_size): divided by 1/gamma every step_size epochs."""

    def __init__(self, optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1):
        if isinstance(step_size, float) and step_size.is_integer():
            step_size = int(step_size)  # StepLR(optimizer, 1.0, ...): PyTorch's tutorials
        check_int("StepLR", "step_size", step_size, 1,
                  hint="the number of epochs between two decays, e.g. step_size=30.")
        check_real("StepLR", "gamma", gamma, low=0, low_open=True,
                   hint="the factor of each decay, e.g. gamma=0.1 (divide by 10).")
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma for group in groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """lr_e = lr_0 * gamma ** (number of milestones <= e)."""

    def __init__(self, optimizer, milestones, gamma: float = 0.1, last_epoch: int = -1):
        hint = "the epochs at which to decay, e.g. milestones=[30, 80]."
        if isinstance(milestones, (str, bytes)) or not hasattr(milestones, "__iter__"):
            raise InputError(message(
                f"milestones must be a list of epochs, got {milestones!r:.40}.",
                where="MultiStepLR", hint=hint))
        milestones = list(milestones)
        for m in milestones:
            check_int("MultiStepLR", "each milestone", m, 0, hint=hint)
        check_real("MultiStepLR", "gamma", gamma, low=0, low_open=True,
                   hint="the factor of each decay, e.g. gamma=0.1 (divide by 10).")
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch not in self.milestones:
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for group in groups]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base_lr in self.base_lrs]


class ConstantLR(LRScheduler):
    """lr_e = lr_0 * factor while e < total_iters, then lr_0."""

    def __init__(self, optimizer, factor: float = 1.0 / 3, total_iters: int = 5,
                 last_epoch: int = -1):
        check_real("ConstantLR", "factor", factor, low=0, high=1, low_open=True,
                   hint="the factor for the first epochs, e.g. factor=0.5 (PyTorch divides "
                   "by it at total_iters).")
        check_int("ConstantLR", "total_iters", total_iters, 1,
                  hint="the number of epochs at the lower rate, e.g. total_iters=5.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in groups]
        if self.last_epoch != self.total_iters:
            return [group["lr"] for group in groups]
        return [group["lr"] * (1.0 / self.factor) for group in groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) *
                           (1 - self.factor)) for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """lr_e = lr_0 * (start_factor + (end_factor - start_factor) * min(e, total_iters) /
    total_iters): from start_factor to end_factor along a line (a warm-up)."""

    def __init__(self, optimizer, start_factor: float = 1.0 / 3, end_factor: float = 1.0,
                 total_iters: int = 5, last_epoch: int = -1):
        check_real("LinearLR", "start_factor", start_factor, low=0, high=1, low_open=True,
                   hint="the factor at epoch 0, e.g. start_factor=0.1 for a warm-up.")
        check_real("LinearLR", "end_factor", end_factor, low=0, high=1,
                   hint="the factor at total_iters, e.g. end_factor=1.0.")
        check_int("LinearLR", "total_iters", total_iters, 1,
                  hint="the number of epochs the line takes, e.g. total_iters=5.")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return [group["lr"] for group in groups]
        rise = self.end_factor - self.start_factor  # lr_e / lr_{e-1} = 1 + rise / (...)
        ratio = 1.0 + rise / (self.total_iters * self.start_factor +
                              (self.last_epoch - 1) * rise)
        return [group["lr"] * ratio for group in groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor) *
                           min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """lr_e = lr_0 * gamma ** e."""

    def __init__(self, optimizer, gamma: float, last_epoch: int = -1):
        check_real("ExponentialLR", "gamma", gamma, low=0, low_open=True,
                   hint="the factor of each epoch, e.g. gamma=0.95.")
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:  # resuming: the first step must not decay once more
            return [group["lr"] for group in groups]
        return [group["lr"] * self.gamma for group in groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class PolynomialLR(LRScheduler):
    """lr_e = lr_0 * (1 - min(e, total_iters) / total_iters) ** power: to 0 at total_iters."""

    def __init__(self, optimizer, total_iters: int = 5, power: float = 1.0,
                 last_epoch: int = -1):
        check_int("PolynomialLR", "total_iters", total_iters, 1,
                  hint="the number of epochs to reach 0, e.g. total_iters=100.")
        check_real("PolynomialLR", "power", power, low=0,
                   hint="the power of the decay, e.g. power=1.0 (a line) or 2.0.")
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial or self.last_epoch > self.total_iters:
            return [group["lr"] for group in groups]
        decay = ((1.0 - self.last_epoch / self.total_iters) /
                 (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group["lr"] * decay for group in groups]

    def _get_closed_form_lr(self):
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) /
                           self.total_iters) ** self.power for base_lr in self.base_lrs]
