"""ReduceLROnPlateau: divide the rate when a watched metric (a validation loss) stops
improving, instead of on a timetable."""
from __future__ import annotations

import math

from ...errors import ArgumentError, InputError, message
from .base import LRScheduler
from .checks import check_choice, check_int, check_optimizer, check_real, per_group
from .state import refuse

_MISSING = object()


class ReduceLROnPlateau(LRScheduler):
    """After each ``step(metric)``: if the metric has not improved on the best so far
    (by more than threshold: relatively, best * (1 -/+ threshold), or absolutely) for
    more than ``patience`` steps in a row, every group's rate becomes

        lr <- max(lr * factor, min_lr)      (unless that changes it by eps or less)

    and then ``cooldown`` steps pass before bad steps count again.
    """

    def __init__(self, optimizer, mode: str = "min", factor: float = 0.1,
                 patience: int = 10, threshold: float = 1e-4, threshold_mode: str = "rel",
                 cooldown: int = 0, min_lr=0, eps: float = 1e-8):
        name = "ReduceLROnPlateau"
        check_optimizer(name, optimizer)
        check_real(name, "factor", factor, low=0, high=1, low_open=True, high_open=True,
                   hint="the factor applied at a plateau, e.g. factor=0.1 (divide by 10).")
        check_int(name, "patience", patience, 0,
                  hint="the number of steps without improvement to wait, e.g. patience=10.")
        check_real(name, "threshold", threshold,
                   hint="the least change that counts as better, e.g. threshold=1e-4.")
        check_int(name, "cooldown", cooldown, 0,
                  hint="the number of steps to wait after a reduction, e.g. cooldown=0.")
        check_real(name, "eps", eps, hint="the least change of rate made, e.g. eps=1e-8.")
        self.factor = factor
        self.optimizer = optimizer
        self.min_lrs = per_group(name, "min_lr", min_lr, optimizer,
                                 hint="the lowest rate, for all groups or one per group.")
        self.default_min_lr = None if isinstance(min_lr, (list, tuple)) else min_lr
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = [group["lr"] for group in optimizer.param_groups]
        self._init_is_better(mode, threshold, threshold_mode)
        self._reset()

    def _init_is_better(self, mode, threshold, threshold_mode) -> None:
        check_choice("ReduceLROnPlateau", "mode", mode, ("min", "max"),
                     hint="mode='min' for a loss, mode='max' for an accuracy.")
        check_choice("ReduceLROnPlateau", "threshold_mode", threshold_mode, ("rel", "abs"))
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode

    def _reset(self) -> None:
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics=_MISSING, epoch=None) -> None:
        """Count one more step of ``metrics`` (a number, or a one-element tensor)."""
        current = self._metric(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            self._warn_epoch(epoch)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad steps in the cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    @property
    def in_cooldown(self) -> bool:
        return self.cooldown_counter > 0

    def _metric(self, metrics) -> float:
        where = "ReduceLROnPlateau.step()"
        if metrics is _MISSING:
            raise ArgumentError(message(
                "step() needs the metric it watches, e.g. the validation loss.", where=where,
                hint="scheduler.step(val_loss), once per epoch, after evaluating."))
        try:
            return float(metrics)
        except (TypeError, ValueError):
            raise ArgumentError(message(
                f"the metric must be a number or a one-element tensor, got {metrics!r:.60}.",
                where=where, hint="pass the loss as a number: scheduler.step(loss.item()), or "
                "an average over the validation set.")) from None

    def _reduce_lr(self) -> None:
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise InputError(message(
                    f"the optimizer has {len(groups)} parameter group(s), and min_lr gave "
                    f"{len(self.min_lrs)} rate(s), one per group when it was built.",
                    where="ReduceLROnPlateau.step()",
                    hint="set scheduler.min_lrs to one rate per group after adding a group."))
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, min_lr)
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    def _is_better(self, a: float, best: float) -> bool:
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _checked(self, state_dict) -> dict:
        new = super()._checked(state_dict)
        where = "ReduceLROnPlateau.load_state_dict"
        for key, choices in (("mode", ("min", "max")), ("threshold_mode", ("rel", "abs"))):
            if key in new and new[key] not in choices:
                refuse(where, f"the saved '{key}' is {new[key]!r:.20}, not one of {choices}.")
        return new
