"""Checks the optimizers share: parameters, settings and gradients, each refused with
an nnbook error before anything changes."""
from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import ArgumentError, DTypeError, InputError, ShapeError, fmt_shape, message
from ..tensor import Tensor


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
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        problem = f"it is a {type(value).__name__}, not a number"
    elif not math.isfinite(value):
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
    grad, where = p.grad, f"{name}.step()"
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
    if grad.dtype != p.dtype:
        raise DTypeError(message(
            f"the gradient of {describe(p)} is {grad.dtype}, the parameter {p.dtype}; no "
            "parameter was updated.", where=where, values=values,
            hint=f"convert it: p.grad = p.grad.to(nb.{p.dtype.name}); " + hint))
    return grad.detach().numpy()
