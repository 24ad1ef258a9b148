"""The checks of a parameter report: what can be wrong with a tensor a model or its
optimizer holds.

The layer built in forward left its optimizer holding two tensors the model never
used, while the model's own convolutions were in no optimizer: nothing learned and
nothing said so.  Each check below is a flag with a marker and a sentence.
"""
from __future__ import annotations

import math

# flag -> (marker, what it means); the problems first, then information.
FLAGS = {
    "not_in_model": ("✖", "held by the optimizer but not in the model: the model never uses it"),
    "not_in_optimizer": ("⊘", "in the model but not in the optimizer: never updated"),
    "no_gradient": ("∅", "got no gradient in the last backward: not used by the loss"),
    "zero_gradient": ("○", "its gradient is all zeros"),
    "nonfinite_gradient": ("!", "its gradient holds NaN or inf: see nb.detect_anomaly()"),
    "shared": ("⇄", "shared: one tensor under several paths"),
}
PROBLEMS = ("not_in_model", "not_in_optimizer", "no_gradient", "zero_gradient",
            "nonfinite_gradient")


def flags_of(kind: str, trainable: bool, in_model: bool, in_optimizer: bool | None,
             grad_norm: float | None, backward_seen: bool, shared: bool) -> tuple:
    """The flags of one tensor, in the order of FLAGS."""
    flags = []
    if kind == "parameter":
        if not in_model:
            flags.append("not_in_model")
        if in_optimizer is False and trainable:  # frozen ones are left out on purpose
            flags.append("not_in_optimizer")
        if backward_seen and trainable and grad_norm is None:
            flags.append("no_gradient")
        if grad_norm == 0.0:
            flags.append("zero_gradient")
        elif grad_norm is not None and not math.isfinite(grad_norm):
            flags.append("nonfinite_gradient")
    if shared:
        flags.append("shared")
    return tuple(flags)
