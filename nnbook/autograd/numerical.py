"""Numbers instead of rules: central differences, and naming what a wrong gradient shows.

Both ``gradcheck`` and teaching mode's first look at a custom rule use these.
"""
from __future__ import annotations

import numpy as np


def diagnose(analytical: np.ndarray, numerical: np.ndarray, x: np.ndarray, name: str,
             doubled: np.ndarray | None = None) -> str:
    """Name a pattern in the numbers, only when the numbers show it.

    ``doubled`` is the analytical gradient computed again with dout doubled; a
    right rule doubles too, a rule that ignores dout does not.
    """
    scale = max(float(np.abs(numerical).max()), 1e-12)

    def close(u, v):
        return np.allclose(u, v, rtol=1e-3, atol=1e-6 * scale)

    if not np.any(analytical):
        return (f"the analytical gradient for '{name}' is all zeros: was '{name}' used, and "
                "does the backward return a gradient for it?")
    if doubled is not None and np.allclose(doubled, analytical, rtol=1e-6, atol=1e-12):
        hint = ""
        if x.size > 1:
            c = constant_factor(analytical, x)
            if c is not None:
                hint = (f" It equals {_times(c)}{name} itself: did you return "
                        f"{_times(c)}{name} instead of something times dout?")
        return ("the gradient does not scale with dout (doubling the incoming gradient left "
                "it unchanged): a backward rule must multiply by dout, the gradient "
                "arriving from the layers after it." + hint)
    if x.size > 1:
        c = constant_factor(analytical, x)
        if c is not None and not close(numerical, analytical):
            return (f"the analytical gradient is {_times(c)}the input '{name}' itself: did you "
                    f"return {_times(c)}{name} instead of something times dout?")
    if close(analytical, -numerical):
        return "the analytical gradient has the wrong sign everywhere."
    c = constant_factor(analytical, numerical)
    if c is not None and c > 0:
        return f"the analytical gradient is {c:.4g} times the right one: a constant factor is off."
    return ""


def constant_factor(u: np.ndarray, v: np.ndarray):
    """c if u == c * v (for a constant c, u and v not all zero), else None."""
    vv = float(v.ravel() @ v.ravel())
    if vv == 0:
        return None
    c = float(u.ravel() @ v.ravel()) / vv
    if c == 0 or not np.allclose(u, c * v, rtol=1e-4, atol=1e-9 * max(np.abs(u).max(), 1e-12)):
        return None
    return c


def _times(c: float) -> str:
    return "" if abs(c - 1) < 1e-4 else f"{c:.4g} * "


def numerical_vjp(loss_value, x: np.ndarray, eps: float) -> np.ndarray:
    """d loss / d x by central differences, perturbing ``x`` in place element by element."""
    numerical = np.zeros(x.shape)
    flat = x.reshape(-1)  # a view: writing it perturbs x
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        plus = loss_value()
        flat[i] = old - eps
        minus = loss_value()
        flat[i] = old
        numerical.flat[i] = (plus - minus) / (2 * eps)
    return numerical
