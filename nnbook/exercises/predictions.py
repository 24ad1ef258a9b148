"""Graded "predict, then run" exercises of notebooks 03, 04, 05, 07, 08 and 09.

The student writes a prediction into a variable (``my_dL_db = None`` until then) and
calls ``check("sigmoid-neuron", my_dL_db)``. The right value is never written down here:
each entry computes it by running nnbook on the notebook's own setup (or on the model
builder the notebook hands over), and a wrong prediction is answered with the right value
and why, naming the slip when the numbers show one.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..tensor import Tensor
from .results import FAIL, PASS, UNFINISHED, CheckResult, Line


@dataclass(frozen=True)
class Prediction:
    """One prediction: ``check(id, answer, *given)``; ``truth(*given)`` computes the right
    value, ``judge(answer, truth)`` returns None when the answer is right, else
    (what is wrong, why: the explanation)."""

    id: str
    notebook: str
    number: int
    title: str
    asks: str                      # what to write in place of None
    given: tuple                   # names of what the notebook passes after the answer
    truth: Callable
    judge: Callable
    right: Callable                # truth -> the sentence shown under a right answer

    @property
    def label(self) -> str:
        return f"{self.notebook}, exercise {self.number} ({self.title})"


class PredictionResult(CheckResult):
    """A graded prediction: ✓ right, ✗ not quite (with the right value and why), or …
    no prediction written yet."""

    def headline(self) -> str:
        return {"todo": f"{self.title}: write your prediction first",
                "passed": f"{self.title}: right",
                "failed": f"{self.title}: not quite"}[self.status]


class Unreadable(ValueError):
    """An answer of a form the exercise cannot read (a str where a number belongs)."""


def grade(entry: Prediction, answer, given) -> PredictionResult:
    if answer is None:
        return PredictionResult(entry.label, [
            _line(UNFINISHED, "no prediction yet: the variable still holds None")],
            f"write your prediction first: {entry.asks}, in place of None; run that cell, "
            "then this one.")
    value = entry.truth(*given)
    try:
        verdict = entry.judge(answer, value)
    except Unreadable as err:
        return PredictionResult(entry.label, [_line(FAIL, f"cannot read {answer!r}: {err}")],
                                f"write {entry.asks}.")
    if verdict is None:
        return PredictionResult(entry.label, [_line(PASS, entry.right(value))])
    what, why = verdict
    return PredictionResult(entry.label, [_line(FAIL, what, why)],
                            "read why above, then run the exercise's cell and compare.")


def _line(mark, text, detail=""):
    return Line(mark, text, detail)


# -- reading answers ----------------------------------------------------------------------

def as_number(answer) -> float:
    if isinstance(answer, Tensor):
        answer = answer.detach().numpy()
    if isinstance(answer, np.ndarray) and answer.size == 1:
        answer = answer.reshape(())[()]
    if isinstance(answer, bool) or not isinstance(answer, (int, float, np.number)):
        raise Unreadable(f"a number belongs here, not a {type(answer).__name__}")
    return float(answer)


def as_array(answer) -> np.ndarray:
    if isinstance(answer, Tensor):
        answer = answer.detach().numpy()
    try:
        array = np.asarray(answer, dtype=np.float64)
    except (TypeError, ValueError):
        raise Unreadable("numbers in nested lists (or a tensor) belong here") from None
    return array


def as_bool(answer, what) -> bool:
    if not isinstance(answer, (bool, np.bool_)):
        raise Unreadable(f"True or False belongs at {what}, not {answer!r}")
    return bool(answer)


def as_mapping(answer, keys, what) -> dict:
    """{key: value} with exactly ``keys`` (ints and their strings both accepted)."""
    if not isinstance(answer, dict):
        raise Unreadable(f"a dict belongs here, {what}")
    found = {}
    for key, value in answer.items():
        match = [k for k in keys if str(k) == str(key)]
        if not match:
            raise Unreadable(f"{key!r} is not one of the keys asked for ({what})")
        found[match[0]] = value
    missing = [k for k in keys if k not in found]
    if missing:
        raise Unreadable(f"a value for {', '.join(repr(k) for k in missing)} is missing ({what})")
    return found


def near(a: float, b: float, rel=5e-3, abs_=5e-4) -> bool:
    return abs(a - b) <= abs_ + rel * abs(b)
