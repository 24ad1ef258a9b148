"""Schedules stepped once per batch that go up and down: CyclicLR (Smith, 2017) and
OneCycleLR (Smith & Topin, 2018).  Both move the momentum the other way (SGD's
``momentum``, Adam's beta1) unless ``cycle_momentum=False``."""
from __future__ import annotations

import math
import types

from ...errors import InputError, message
from ..checks import check_flag, is_number
from .base import LRScheduler, unchanged_on_error
from .checks import (
    check_callable,
    check_choice,
    check_int,
    check_momentum_setting,
    check_optimizer,
    check_real,
    per_group,
)
from .state import restore


def _set_momentum(group, momentum, use_beta1: bool) -> None:
    if use_beta1:
        group["betas"] = (momentum, *group["betas"][1:])
    else:
        group["momentum"] = momentum


class CyclicLR(LRScheduler):
    """A triangle between base_lr and max_lr, up in step_size_up steps, down in
    step_size_down (default: the same).  With x the position in the cycle (0 to 1) and
    cycle the cycle's number (from 1):

        lr = base_lr + (max_lr - base_lr) * height(x) * scale
        height = x / r up to r = step_size_up / (step_size_up + step_size_down), then
                 (1 - x) / (1 - r)
        scale = 1 (triangular), 1 / 2**(cycle - 1) (triangular2), gamma**step (exp_range),
                or scale_fn(cycle or step)

    The momentum runs between max_momentum and base_momentum the other way.
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up: int = 2000,
                 step_size_down: int | None = None, mode: str = "triangular",
                 gamma: float = 1.0, scale_fn=None, scale_mode: str = "cycle",
                 cycle_momentum: bool = True, base_momentum: float = 0.8,
                 max_momentum: float = 0.9, last_epoch: int = -1):
        name, lr_hint = "CyclicLR", "a rate per group, or one for all: e.g. base_lr=1e-4, " \
            "max_lr=1e-2."
        check_optimizer(name, optimizer)
        base_lrs = per_group(name, "base_lr", base_lr, optimizer, lr_hint)
        self.max_lrs = per_group(name, "max_lr", max_lr, optimizer, lr_hint)
        check_int(name, "step_size_up", step_size_up, 1,
                  hint="the number of steps (batches) from base_lr up to max_lr, e.g. 2000.")
        if step_size_down is not None:
            check_int(name, "step_size_down", step_size_down, 1,
                      hint="the number of steps back down (leave it out: as step_size_up).")
        if scale_fn is None:
            check_choice(name, "mode", mode, ("triangular", "triangular2", "exp_range"))
        else:
            check_callable(name, "scale_fn", scale_fn, hint="e.g. scale_fn=lambda cycle: "
                           "0.5 ** cycle, or leave it out and choose a mode.")
            check_choice(name, "scale_mode", scale_mode, ("cycle", "iterations"))
        check_real(name, "gamma", gamma, low=0, low_open=True,
                   hint="exp_range's factor per step, e.g. gamma=0.9999.")
        check_flag(name, "cycle_momentum", cycle_momentum)
        if cycle_momentum:
            check_momentum_setting(name, optimizer)
            hint = "e.g. base_momentum=0.8, max_momentum=0.9."
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = per_group(name, "base_momentum", base_momentum, optimizer,
                                            hint)
            self.max_momentums = per_group(name, "max_momentum", max_momentum, optimizer, hint)
        self.optimizer = optimizer
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode if scale_fn is not None else \
            ("iterations" if mode == "exp_range" else "cycle")
        self.cycle_momentum = cycle_momentum
        with unchanged_on_error(optimizer):  # every argument checked: now set the groups
            if last_epoch == -1:
                for lr, group in zip(base_lrs, optimizer.param_groups):
                    group["lr"] = lr
            if cycle_momentum and last_epoch == -1:
                for top, bottom, group in zip(self.max_momentums, self.base_momentums,
                                              optimizer.param_groups):
                    _set_momentum(group, top, self.use_beta1)
                    group["max_momentum"], group["base_momentum"] = top, bottom
            super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def scale_fn(self, x) -> float:
        if self._scale_fn_custom is not None:
            scale = self._scale_fn_custom(x)
            if not (is_number(scale) and math.isfinite(scale)):
                raise InputError(message(
                    f"scale_fn returned {scale!r:.40} for {self.scale_mode} {x}; it must "
                    "return a finite number (the height of this cycle, as a fraction).",
                    where="CyclicLR.step()", hint="e.g. scale_fn=lambda cycle: 0.5 ** cycle."))
            return scale
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x  # exp_range

    def get_lr(self):
        self._warn_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        height = x / self.step_ratio if x <= self.step_ratio else \
            (x - 1) / (self.step_ratio - 1)
        scale = self.scale_fn(cycle if self.scale_mode == "cycle" else self.last_epoch)
        lrs = [base_lr + (max_lr - base_lr) * height * scale
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for bottom, top, group in zip(self.base_momentums, self.max_momentums,
                                          self.optimizer.param_groups):
                _set_momentum(group, top - (top - bottom) * height * scale, self.use_beta1)
        return lrs

    _unsaved = ("optimizer", "_scale_fn_custom")

    def state_dict(self) -> dict:
        sd = super().state_dict()  # a function is not saved; a callable object's attributes are
        fn = self._scale_fn_custom
        if fn is not None and not isinstance(fn, types.FunctionType):
            sd["_scale_fn_custom"] = dict(fn.__dict__)
        return sd

    def _checked(self, state_dict) -> dict:
        saved = dict(state_dict).pop("_scale_fn_custom", None) \
            if isinstance(state_dict, dict) else None
        new = super()._checked({k: v for k, v in state_dict.items()
                                if k != "_scale_fn_custom"}
                               if isinstance(state_dict, dict) else state_dict)
        fn = self._scale_fn_custom
        if saved is not None and fn is not None and not isinstance(fn, types.FunctionType):
            new["_scale_fn_custom"] = restore(f"{type(self).__name__}.load_state_dict",
                                              "_scale_fn_custom", saved, dict(fn.__dict__))
        return new

    def _apply(self, new: dict) -> None:
        attributes = new.pop("_scale_fn_custom", None)
        if attributes is not None:
            self._scale_fn_custom.__dict__.update(attributes)
        super()._apply(new)


class OneCycleLR(LRScheduler):
    """One cycle over total_steps batches: from max_lr / div_factor up to max_lr in the
    first pct_start of the steps, then down to max_lr / (div_factor * final_div_factor),
    each phase along half a cosine (anneal_strategy='cos') or a line ('linear'):

        lr = end + (start - end) * (1 + cos(pi * pct)) / 2,   pct = how far into the phase

    three_phase: up, back down to the start, then on down to the minimum.  The momentum
    runs the other way, between max_momentum and base_momentum.
    """

    def __init__(self, optimizer, max_lr, total_steps: int | None = None,
                 epochs: int | None = None, steps_per_epoch: int | None = None,
                 pct_start: float = 0.3, anneal_strategy: str = "cos",
                 cycle_momentum: bool = True, base_momentum=0.85, max_momentum=0.95,
                 div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1):
        name = "OneCycleLR"
        check_optimizer(name, optimizer)
        self.optimizer = optimizer
        self.total_steps = _total_steps(total_steps, epochs, steps_per_epoch)
        check_real(name, "pct_start", pct_start, low=0, high=1,
                   hint="the fraction of the steps spent going up, e.g. pct_start=0.3.")
        check_choice(name, "anneal_strategy", anneal_strategy, ("cos", "linear"))
        check_flag(name, "cycle_momentum", cycle_momentum)
        check_flag(name, "three_phase", three_phase)
        for key, value in (("div_factor", div_factor), ("final_div_factor", final_div_factor)):
            check_real(name, key, value, low=0, low_open=True,
                       hint="e.g. div_factor=25 (start at max_lr / 25) and "
                       "final_div_factor=1e4 (end 1e4 times lower still).")
        self._schedule_phases = _phases(self.total_steps, pct_start, three_phase)
        self._anneal_func_type = anneal_strategy
        max_lrs = per_group(name, "max_lr", max_lr, optimizer,
                            hint="the peak rate, one for all groups or one per group, e.g. "
                            "max_lr=0.1.")
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            check_momentum_setting(name, optimizer)
            self.use_beta1 = "betas" in optimizer.defaults
            hint = "e.g. base_momentum=0.85, max_momentum=0.95."
            tops = per_group(name, "max_momentum", max_momentum, optimizer, hint)
            bottoms = per_group(name, "base_momentum", base_momentum, optimizer, hint)
        with unchanged_on_error(optimizer):  # every argument checked: now set the groups
            if last_epoch == -1:
                for top, group in zip(max_lrs, optimizer.param_groups):
                    group["initial_lr"] = top / div_factor
                    group["max_lr"] = top
                    group["min_lr"] = group["initial_lr"] / final_div_factor
            if cycle_momentum and last_epoch == -1:
                for top, bottom, group in zip(tops, bottoms, optimizer.param_groups):
                    _set_momentum(group, top, self.use_beta1)
                    group["max_momentum"], group["base_momentum"] = top, bottom
            super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise InputError(message(
                f"stepped {step} times, but the schedule has total_steps="
                f"{self.total_steps}.", where="OneCycleLR.step()",
                hint="OneCycleLR is stepped once per batch: total_steps = epochs * "
                "len(train_loader) (or epochs= and steps_per_epoch=); step it after each "
                "optimizer.step(), not again per epoch."))
        lrs = []
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                if step <= phase["end_step"] or i == len(self._schedule_phases) - 1:
                    pct = (step - start_step) / (phase["end_step"] - start_step)
                    lrs.append(self._anneal(group[phase["start_lr"]], group[phase["end_lr"]],
                                            pct))
                    if self.cycle_momentum:
                        momentum = self._anneal(group[phase["start_momentum"]],
                                                group[phase["end_momentum"]], pct)
                        _set_momentum(group, momentum, self.use_beta1)
                    break
                start_step = phase["end_step"]
        return lrs


def _total_steps(total_steps, epochs, steps_per_epoch) -> int:
    name = "OneCycleLR"
    if total_steps is not None:
        check_int(name, "total_steps", total_steps, 1,
                  hint="the number of batches in the whole training: epochs * "
                  "len(train_loader).")
        return total_steps
    if epochs is not None and steps_per_epoch is not None:
        check_int(name, "epochs", epochs, 1, hint="the number of epochs, e.g. epochs=10.")
        check_int(name, "steps_per_epoch", steps_per_epoch, 1,
                  hint="the number of batches per epoch: steps_per_epoch=len(train_loader).")
        return epochs * steps_per_epoch
    raise InputError(message(
        "the length of the cycle is missing: give total_steps, or epochs and "
        "steps_per_epoch.", where=name,
        values=f"total_steps={total_steps}, epochs={epochs}, steps_per_epoch={steps_per_epoch}",
        hint="OneCycleLR(optimizer, max_lr=0.1, total_steps=epochs * len(train_loader)), or "
        "OneCycleLR(optimizer, max_lr=0.1, epochs=10, steps_per_epoch=len(train_loader))."))


def _phases(total: int, pct_start: float, three_phase: bool) -> list[dict]:
    """Where each phase ends (a step number) and which group keys it runs between."""
    up = float(pct_start * total) - 1
    if three_phase:
        ends = [("initial_lr", "max_lr", "max_momentum", "base_momentum", up),
                ("max_lr", "initial_lr", "base_momentum", "max_momentum",
                 float(2 * pct_start * total) - 2),
                ("initial_lr", "min_lr", "max_momentum", "max_momentum", total - 1)]
    else:
        ends = [("initial_lr", "max_lr", "max_momentum", "base_momentum", up),
                ("max_lr", "min_lr", "base_momentum", "max_momentum", total - 1)]
    phases = [dict(end_step=end, start_lr=a, end_lr=b, start_momentum=c, end_momentum=d)
              for a, b, c, d, end in ends]
    start = 0.0
    for i, phase in enumerate(phases):
        if phase["end_step"] == start:  # PyTorch divides by zero in this phase
            raise InputError(message(
                f"with total_steps={total} and pct_start={pct_start}, phase {i + 1} of the "
                f"cycle has no steps: it starts and ends at step {start:g}, so the rate "
                "within it would divide by zero.", where="OneCycleLR",
                hint="change pct_start or total_steps so that every phase has steps, "
                "e.g. pct_start * total_steps >= 2."))
        start = phase["end_step"]
    return phases
