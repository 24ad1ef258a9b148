"""Checks the optimizers share: parameters, settings and gradients, each refused with
an nnbook error before anything changes."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import ArgumentError, DTypeError, InputError, ShapeError, fmt_shape, message
from ..tensor import Tensor

# Keys that learning-rate schedulers add to the parameter groups (PyTorch's names): an
# optimizer accepts them in its groups and in state dicts, beside its own settings.
SCHEDULER_KEYS = ("initial_lr", "max_lr", "min_lr", "max_momentum", "base_momentum")


def describe(p) -> str:
    """'conv1.weight (6, 6, 3, 3)', or 'a parameter of shape (3, 6, 1, 1)' if in no model."""
    path = getattr(p, "path", None)
    return f"{path} {fmt_shape(p.shape)}" if path else \
        f"a parameter of shape {fmt_shape(p.shape)} (in no model)"


def check_param(name: str, index: int, p) -> None:
    if not isinstance(p, Tensor):
        raise InputError(message(
            f"item {index} of the parameters is a {type(p).__name__}, not a Tensor.",
            where=name, hint="pass model.parameters(), or tensors made with "
            "requires_grad=True."))
    if p.dtype.kind != "f":
        raise DTypeError(message(
            f"{describe(p)} is {p.dtype}; only floating point tensors can be optimised.",
            where=name, hint="make it floating point: nb.tensor(data, dtype=nb.float32)."))
    if not p.is_leaf:
        raise InputError(message(
            f"item {index} of the parameters is not a leaf: it is the result of "
            f"{p.grad_fn.name}, so its gradient is not kept and updating it changes nothing "
            "the model reads.", where=name,
            hint="optimise the tensors you created (model.parameters(), or "
            "w = nb.randn(3, requires_grad=True)), not results computed from them."))


_LABELS = {"lr": "learning rate", "eps": "epsilon value"}  # PyTorch's words


def check_number(where: str, key: str, value) -> None:
    """A setting must be a finite real number >= 0 (PyTorch: 'Invalid learning rate')."""
    label = _LABELS.get(key, f"{key} value")
    if isinstance(value, numbers.Real) and not isinstance(value, bool) \
            and math.isfinite(value) and value >= 0:
        return
    if not is_number(value):
        raise ArgumentError(message(
            f"invalid {label}: {key} must be a number, got {value!r:.40} (it is a "
            f"{type(value).__name__}, not a number).", where=where,
            hint=f"pass a plain number, e.g. {key}={_EXAMPLES.get(key, 0)}."))
    if not math.isfinite(value):
        problem = "it would turn every parameter into nan"
    else:
        problem = "a negative value would make it work backwards"
    typical = ("a typical learning rate is 0.01 to 0.1 for SGD and 1e-3 for Adam."
               if key == "lr" else "eps=1e-8 is usual." if key == "eps"
               else f"{key}=0 switches it off.")
    cls = InputError if isinstance(value, numbers.Real) and not isinstance(value, bool) \
        else ArgumentError
    raise cls(message(
        f"invalid {label}: {key} must be a finite number >= 0, got {value!r} ({problem}).",
        where=where, hint=typical))


def checked_grad(name: str, p) -> np.ndarray:
    """p.grad as an array, refused unless it is a Tensor of p's shape and dtype."""
    grad = p.grad
    if isinstance(grad, Tensor) and grad._array.shape == p._array.shape \
            and grad._array.dtype == p._array.dtype:
        return grad._array
    where = f"{name}.step()"  # (messages are built only when something is wrong)
    hint = ("p.grad is set by loss.backward(); to set it by hand, give a Tensor of the "
            "parameter's shape and dtype: p.grad = nb.tensor(values, dtype=p.dtype).")
    if not isinstance(grad, Tensor):
        raise DTypeError(message(
            f"the gradient of {describe(p)} is a {type(grad).__name__}, not a Tensor; "
            "no parameter was updated.", where=where, hint=hint))
    values = f"parameter {fmt_shape(p.shape)} {p.dtype}, gradient {fmt_shape(grad.shape)} " \
             f"{grad.dtype}"
    if grad.shape != p.shape:
        raise ShapeError(message(
            f"the gradient of {describe(p)} has shape {fmt_shape(grad.shape)}; no "
            "parameter was updated.", where=where, values=values, hint=hint))
    raise DTypeError(message(
        f"the gradient of {describe(p)} is {grad.dtype}, the parameter {p.dtype}; no "
        "parameter was updated.", where=where, values=values,
        hint=f"convert it: p.grad = p.grad.to(nb.{p.dtype.name}); " + hint))


# -- settings with a range, flags, and PyTorch's implementation switches ---------------

_EXAMPLES = {"lr": 0.01, "eps": 1e-8, "momentum": 0.9, "alpha": 0.99, "rho": 0.9}


def is_number(value) -> bool:
    """A real number that is not a bool (True is an int to Python, never a setting)."""
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def check_positive(where: str, key: str, value, why: str) -> None:
    """A setting that must be a finite number > 0, such as eps (it keeps 0/0 away)."""
    check_number(where, key, value)
    if value == 0:
        raise InputError(message(
            f"invalid {_LABELS.get(key, key + ' value')}: {key} must be > 0, got {value!r} "
            f"({why}).", where=where,
            hint=f"use a small positive number, e.g. {key}={_EXAMPLES.get(key, 1e-8)}."))


def check_fraction(where: str, key: str, value, why: str, closed: bool = False) -> None:
    """A setting in [0, 1) -- or [0, 1] if ``closed`` -- such as momentum or rho."""
    check_number(where, key, value)
    if value < 1 or (closed and value == 1):
        return
    interval = "[0, 1]" if closed else "[0, 1)"
    raise InputError(message(
        f"invalid {key} value: {key} must be in {interval}, got {value!r} ({why}).",
        where=where, hint=f"{key}={_EXAMPLES.get(key, 0.9)} is usual."))


def check_betas(where: str, betas) -> tuple:
    """Adam's betas: two numbers in [0, 1) (PyTorch's words), returned as a tuple."""
    given = betas
    betas = tuple(betas) if isinstance(betas, (list, tuple)) else (betas,)
    for i, beta in enumerate(betas[:2]):
        if not (is_number(beta) and 0 <= beta < 1):  # also refuses nan
            raise InputError(message(
                f"invalid beta parameter at index {i}: betas must be two numbers in "
                f"[0, 1), got {given!r}.", where=where,
                hint="the usual values are betas=(0.9, 0.999)."))
    if len(betas) != 2:
        raise InputError(message(
            f"betas must be two numbers in [0, 1), got {given!r}.", where=where,
            hint="the usual values are betas=(0.9, 0.999)."))
    return betas


def check_flag(where: str, key: str, value) -> None:
    """An on/off setting must be True or False (the string 'False' would count as on)."""
    if not isinstance(value, (bool, np.bool_)):
        raise ArgumentError(message(
            f"{key} must be True or False, got {value!r:.40} (a {type(value).__name__}).",
            where=where, hint=f"pass {key}=True or {key}=False."))


def check_switches(where: str, *, foreach=None, fused=None, capturable=False,
                   differentiable=False) -> None:
    """PyTorch's switches between its implementations of one update.

    nnbook has one implementation, the same maths, so foreach and fused change nothing
    (and are not kept in the groups); the two it cannot honour are refused.
    """
    for key, value in (("foreach", foreach), ("fused", fused)):
        if value is not None:
            check_flag(where, key, value)
    check_flag(where, "capturable", capturable)
    check_flag(where, "differentiable", differentiable)
    if foreach and fused:
        raise InputError(message(
            "fused=True and foreach=True cannot be used together (PyTorch refuses it too).",
            where=where, hint="leave both out: nnbook has one implementation of each "
            "update, and the two switches change nothing here."))
    if capturable:
        raise InputError(message(
            "capturable=True keeps the optimizer's state on a GPU for CUDA graphs; nnbook "
            "runs on the CPU, where PyTorch refuses it too (at the first step).",
            where=where, hint="leave it out (capturable=False)."))
    if differentiable:
        raise InputError(message(
            "differentiable=True records the update itself in the autograd graph (to "
            "differentiate through training steps); nnbook's updates are never recorded.",
            where=where, hint="leave it out (differentiable=False); to learn a setting such "
            "as the learning rate by gradient, write the update by hand with tensors."))
