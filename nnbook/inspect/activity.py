"""What a training step does besides its gradients: how the activations behave and how far
the optimizer moved each weight.

- A ReLU unit is **dead** on a batch when it outputs 0 for every sample: no gradient
  passes through it, so the weights before it stop learning.
- A sigmoid or tanh output is **saturated** where the activation's slope is below a tenth
  of its largest slope (sigmoid: sigma (1 - sigma) < 0.025, tanh: 1 - tanh^2 < 0.1): the
  gradient through it is cut tenfold or more.
- The **update-to-data ratio** of a parameter is ||p_after - p_before|| / ||p_before|| over
  one optimizer step: around 1e-3 is the usual healthy size; far below, the layer barely
  moves; near 1, each step throws its last values away.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WATCHED = ("ReLU", "Sigmoid", "Tanh")


@dataclass(frozen=True)
class ActivationStats:
    path: str
    kind: str            # "ReLU", "Sigmoid" or "Tanh"
    units: int           # channels (or features) of the output
    fraction: float      # ReLU: dead units; sigmoid and tanh: saturated outputs

    @property
    def what(self) -> str:
        return "dead" if self.kind == "ReLU" else "saturated"

    @classmethod
    def of(cls, path: str, kind: str, out: np.ndarray) -> "ActivationStats":
        out = np.asarray(out, dtype=np.float64)
        units = out.shape[1] if out.ndim > 1 else out.size
        if kind == "ReLU":  # a unit (axis 1) that is 0 for every sample and position
            other = tuple(a for a in range(out.ndim) if a != 1) if out.ndim > 1 else ()
            alive = (out > 0).any(axis=other) if other else out > 0
            fraction = float(1.0 - alive.mean()) if alive.size else 0.0
        else:
            slope = out * (1 - out) / 0.25 if kind == "Sigmoid" else 1 - out * out
            fraction = float((slope < 0.1).mean()) if slope.size else 0.0
        return cls(path, kind, int(units), fraction)


def watch_activations(model, store: dict) -> int:
    """Make every ReLU, Sigmoid and Tanh layer of ``model`` put the ActivationStats of its
    last output into ``store[path]``; returns how many layers are watched. The layer's own
    forward still runs; only its output is looked at (outside the graph)."""
    count = 0
    for path, module in model.named_modules():
        kind = type(module).__name__
        if kind not in WATCHED or "_nnbook_watched" in module.__dict__:
            continue
        original = module.forward

        def watched(*args, _original=original, _path=path, _kind=kind, **kwargs):
            out = _original(*args, **kwargs)
            array = getattr(out, "_array", None)
            if array is not None and np.size(array):  # not in a shape-only pass
                store[_path] = ActivationStats.of(_path, _kind, array)
            return out

        object.__setattr__(module, "forward", watched)
        object.__setattr__(module, "_nnbook_watched", True)
        count += 1
    return count


def snapshot(model) -> dict:
    """path -> a float64 copy of every parameter, to measure the next update against."""
    return {path: np.array(p._array, dtype=np.float64) for path, p in model.named_parameters()}


def update_ratios(before: dict, model) -> dict:
    """path -> ||p_now - p_before|| / ||p_before|| for every parameter in ``before``
    (None where the parameter was all zeros)."""
    ratios = {}
    for path, p in model.named_parameters():
        if path not in before:
            continue
        old = before[path]
        size = float(np.sqrt((old * old).sum()))
        step = np.asarray(p._array, dtype=np.float64) - old
        ratios[path] = float(np.sqrt((step * step).sum())) / size if size > 0 else None
    return ratios
