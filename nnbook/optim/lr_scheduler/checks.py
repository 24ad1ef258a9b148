"""The schedulers' argument checks: each refuses with a four-part nnbook error."""
from __future__ import annotations

import math
import numbers

from ...errors import ArgumentError, InputError, message
from ..checks import is_number
from ..optimizer import Optimizer


def check_optimizer(where: str, optimizer) -> None:
    """A scheduler drives an nnbook optimizer (built before the scheduler)."""
    if isinstance(optimizer, Optimizer):
        return
    kind = type(optimizer)
    if isinstance(optimizer, type) and issubclass(optimizer, Optimizer):
        hint = (f"build the optimizer first and pass it: opt = nb.optim.{optimizer.__name__}"
                f"(model.parameters(), ...); {where}(opt, ...).")
    elif hasattr(optimizer, "named_parameters"):
        hint = ("pass the optimizer, not the model: opt = nb.optim.SGD(model.parameters(), "
                f"lr=0.1); {where}(opt, ...).")
    elif kind.__module__.split(".")[0] == "torch":
        hint = ("this is a PyTorch optimizer; nnbook's schedulers drive nnbook's optimizers: "
                "build it with nb.optim (import nnbook.optim as optim).")
    else:
        hint = f"{where}(optimizer, ...) with an optimizer from nb.optim (SGD, Adam, ...)."
    raise ArgumentError(message(
        f"{kind.__name__ if not isinstance(optimizer, type) else optimizer.__name__} is not "
        "an optimizer: a scheduler changes the learning rates of an optimizer's groups.",
        where=where, values=f"got {optimizer!r:.60}", hint=hint))


def check_int(where: str, key: str, value, low: int, hint: str) -> None:
    """An int >= low (a count of epochs or steps)."""
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise ArgumentError(message(
            f"{key} must be an int, got {value!r:.40} (a {type(value).__name__}).",
            where=where, hint=hint))
    if value < low:
        raise InputError(message(
            f"{key} must be an int >= {low}, got {value}.", where=where, hint=hint))


def check_real(where: str, key: str, value, hint: str, low: float | None = 0.0,
               high: float | None = None, low_open: bool = False,
               high_open: bool = False) -> None:
    """A finite number within [low, high] (either end open, or absent when None)."""
    if not is_number(value):
        raise ArgumentError(message(
            f"{key} must be a number, got {value!r:.40} (a {type(value).__name__}).",
            where=where, hint=hint))
    below = low is not None and (value <= low if low_open else value < low)
    above = high is not None and (value >= high if high_open else value > high)
    if math.isfinite(value) and not below and not above:
        return
    if high is not None:
        wanted = f"a number in {'(' if low_open else '['}{low:g}, {high:g}" \
                 f"{')' if high_open else ']'}"
    elif low is not None:
        wanted = f"a finite number {'>' if low_open else '>='} {low:g}"
    else:
        wanted = "a finite number"
    raise InputError(message(f"{key} must be {wanted}, got {value!r}.", where=where,
                             hint=hint))


def check_choice(where: str, key: str, value, choices: tuple, hint: str | None = None) -> None:
    if not isinstance(value, str) or value not in choices:
        raise InputError(message(
            f"{key} must be one of {', '.join(map(repr, choices))}, got {value!r:.40}.",
            where=where, hint=hint or f"e.g. {key}={choices[0]!r}."))


def check_callable(where: str, key: str, value, hint: str) -> None:
    if not callable(value):
        raise ArgumentError(message(
            f"{key} must be a function, got {value!r:.40} (a {type(value).__name__}).",
            where=where, hint=hint))


def per_group(where: str, key: str, value, optimizer, hint: str) -> list:
    """One value per parameter group, from a number or a list of one per group."""
    groups = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != groups:
            raise InputError(message(
                f"{key} must have one value per parameter group: the optimizer has "
                f"{groups} group(s), {key} has {len(value)} value(s).", where=where,
                values=f"{key}={list(value)!r:.60}", hint=hint))
        values = list(value)
    else:
        values = [value] * groups
    for v in values:
        check_real(where, key, v, hint)
    return values


def check_momentum_setting(where: str, optimizer) -> None:
    """cycle_momentum needs an optimizer with a momentum (SGD, RMSprop) or betas (Adam)."""
    if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
        name = type(optimizer).__name__
        raise InputError(message(
            f"cycle_momentum=True cycles the optimizer's momentum, and {name} has none "
            "(no 'momentum' and no 'betas' setting).", where=where,
            hint="pass cycle_momentum=False, or use an optimizer with a momentum "
            "(SGD, RMSprop) or betas (Adam, AdamW)."))
