"""Gradient clipping, after ``backward()`` and before ``optimizer.step()``.

clip_grad_norm_: treat every gradient as one long vector g and rescale it when it is
too long,
    total = ||g||_p   (p = norm_type; p = inf is the largest |g_i|)
    g <- g * min(1, max_norm / (total + 1e-6))
so the direction of the step is kept and only its length is capped.
clip_grad_value_: clamp each gradient entry to [-clip_value, clip_value] (the direction
changes).
"""
from __future__ import annotations

import math

import numpy as np

from ...context import no_grad
from ...errors import ArgumentError, BackwardError, InputError, message
from ...ops.base import is_real
from ...tensor import Tensor, _wrap


def _tensors(parameters, fn: str) -> list:
    """The tensors of ``parameters`` (one tensor, or any iterable of them)."""
    if isinstance(parameters, Tensor):
        return [parameters]
    try:
        params = list(parameters)
    except TypeError:
        params = None
    if params is None or not all(isinstance(p, Tensor) for p in params):
        got = type(parameters).__name__ if params is None else \
            next(type(p).__name__ for p in params if not isinstance(p, Tensor))
        raise ArgumentError(message(
            f"expects parameters (a tensor or an iterable of tensors), got {got}.",
            where=f"nn.utils.{fn}", hint=f"pass model.parameters(): nn.utils.{fn}("
            "model.parameters(), ...), after loss.backward()."))
    return params


def _number(value, name: str, fn: str) -> float:
    if not is_real(value):
        raise ArgumentError(message(f"{name} must be a number, got {value!r}.",
                                    where=f"nn.utils.{fn}",
                                    hint=f"e.g. {name}=1.0."))
    return float(value)


def _norm(array: np.ndarray, p: float) -> float:
    if array.size == 0:
        return 0.0
    a = np.abs(array.astype(np.float64, copy=False))
    if p == math.inf:
        return float(a.max())
    if p == -math.inf:
        return float(a.min())
    if p == 0:
        return float(np.count_nonzero(a))
    return float((a ** p).sum() ** (1 / p))


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach=None) -> Tensor:
    """||all the tensors as one vector||_norm_type (the norm of the per-tensor norms)."""
    tensors = [t for t in _tensors(tensors, "get_total_norm") if t is not None]
    p = _number(norm_type, "norm_type", "get_total_norm")
    if not tensors:
        return _wrap(np.array(0.0, np.float32))
    norms = np.array([_norm(t._array, p) for t in tensors])
    total = _norm(norms, p)
    dtype = np.result_type(*[t._array.dtype for t in tensors])
    if error_if_nonfinite and not math.isfinite(total):
        raise BackwardError(message(
            f"the total norm of order {norm_type} of the gradients is {total}, not finite, "
            "so clipping cannot rescale them.", where="nn.utils.clip_grad_norm_",
            values=f"{len(tensors)} gradient(s)",
            hint="a NaN or inf gradient came out of backward(): find it with "
            "nb.autograd.detect_anomaly(), or lower the learning rate; "
            "error_if_nonfinite=False skips this check."))
    return _wrap(np.array(total, dtype if dtype.kind == "f" else np.float32))


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """Rescale the gradients in place so that their total norm is at most ``max_norm``;
    returns the total norm before clipping.  ``foreach`` is accepted and ignored."""
    params = _tensors(parameters, "clip_grad_norm_")
    max_norm = _number(max_norm, "max_norm", "clip_grad_norm_")
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if not grads:
        return total
    coef = min(1.0, max_norm / (float(total.item()) + 1e-6))
    with no_grad():
        for grad in grads:  # always multiplied, as PyTorch does (by 1 when short enough)
            grad.mul_(coef)
    return total


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach=None) -> Tensor:
    """The old name of :func:`clip_grad_norm_` (PyTorch deprecates it)."""
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach=None) -> None:
    """Clamp every gradient entry to [-clip_value, clip_value], in place."""
    params = _tensors(parameters, "clip_grad_value_")
    clip_value = _number(clip_value, "clip_value", "clip_grad_value_")
    if clip_value < 0:
        raise InputError(message(
            f"clip_value={clip_value} is negative.", where="nn.utils.clip_grad_value_",
            hint="give the largest size allowed for one gradient entry, e.g. 0.5."))
    with no_grad():
        for p in params:
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)
