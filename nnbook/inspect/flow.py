"""Gradient flow: one step's gradient statistics, sorted into zones.

A gradient whose size is below the low threshold is *vanishing* (the layers before it
learn almost nothing), above the high one *exploding*; in between *healthy*.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError, message

STATS = {"norm": "norm of the gradient", "mean": "mean of the gradient",
         "max_abs": "max |gradient|"}
ZONES = ("vanishing", "healthy", "exploding", "none")


@dataclass(frozen=True)
class FlowBar:
    """One bar of the gradient-flow chart."""

    path: str
    value: float | None         # None: the parameter got no gradient
    zone: str                   # one of ZONES; "none" when there is no gradient


def is_bias(path: str) -> bool:
    return path.rsplit(".", 1)[-1] == "bias"


def zone_of(value: float | None, thresholds=(1e-5, 1e2)) -> str:
    """'vanishing' below thresholds[0], 'exploding' above thresholds[1] (by magnitude)."""
    if value is None:
        return "none"
    low, high = thresholds
    size = abs(value)
    if not np.isfinite(size):  # NaN or inf: it has exploded past representing
        return "exploding"
    return "vanishing" if size < low else "exploding" if size > high else "healthy"


def gradient_flow(stats, stat: str = "norm", thresholds=(1e-5, 1e2),
                  biases: bool = False) -> tuple:
    """FlowBars for one step's GradStats, in layer order (biases left out unless asked)."""
    if stat not in STATS:
        raise InputError(message(f"unknown statistic {stat!r}.", where="gradient_flow",
                                 line=None, hint=f"choose one of {', '.join(STATS)}."))
    bars = []
    for s in stats:
        if is_bias(s.path) and not biases:
            continue
        value = float(getattr(s, stat)) if s.has_grad else None
        bars.append(FlowBar(s.path, value, zone_of(value, thresholds)))
    return tuple(bars)


def flow_range(all_stats, stat: str = "norm", biases: bool = False) -> tuple | None:
    """(smallest non-zero |value|, largest |value|) of ``stat`` over many steps' GradStats,
    so a chart can keep one scale while the steps change; None if there is no gradient."""
    values = [abs(b.value) for stats in all_stats
              for b in gradient_flow(stats, stat, biases=biases) if b.value is not None]
    nonzero = [v for v in values if v > 0]
    if not values:
        return None
    return (min(nonzero) if nonzero else 0.0, max(values))
