"""A few numbers that describe an array: what a stepper shows of out, dout and grads."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class ValueSummary:
    shape: tuple
    norm: float
    mean: float
    std: float
    min: float
    max: float
    head: tuple         # the first few values, in memory order

    def text(self, digits: int = 3) -> str:
        if not self.shape:
            return f"{self.head[0]:.{digits}g}"
        return (f"mean {self.mean:.{digits}g}, std {self.std:.{digits}g}, "
                f"min {self.min:.{digits}g}, max {self.max:.{digits}g}")

    def head_text(self, digits: int = 3, size: int | None = None) -> str:
        values = ", ".join(f"{v:.{digits}g}" for v in self.head)
        more = size is not None and size > len(self.head)
        return f"[{values}{', …' if more else ''}]"


def value_summary(array, head: int = 4) -> ValueSummary:
    """Norm, mean, std, min, max and the first ``head`` values of an array (float64 maths)."""
    a = np.asarray(array, dtype=np.float64)
    flat = a.reshape(-1)
    if not flat.size:
        return ValueSummary(tuple(a.shape), 0.0, 0.0, 0.0, 0.0, 0.0, ())
    return ValueSummary(tuple(a.shape), float(np.sqrt((flat * flat).sum())), float(flat.mean()),
                        float(flat.std()), float(flat.min()), float(flat.max()),
                        tuple(float(v) for v in flat[:head]))
