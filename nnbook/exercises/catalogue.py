"""The exercises of notebooks/13_exercises.ipynb, and ``check(id, answer)`` that runs the
right general check on an answer, against the hidden reference solution.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import nn
from ..creation import tensor
from ..errors import InputError, message
from ..tensor import Tensor, _wrap
from .general import check_bprop, check_function, check_layer
from .harness import _GENERIC_UNFINISHED, SEED, _attempt, _seeded
from .notebook_predictions import PREDICTIONS
from .predictions import grade
from .results import FAIL, PASS, CheckResult, _html, _mark_html


@dataclass(frozen=True)
class Exercise:
    """One exercise: ``id`` for ``check(id, ...)``, the task, and the hint shown while the
    skeleton still raises NotImplementedError."""

    id: str
    number: int
    title: str
    task: str
    todo_hint: str

    def __str__(self):
        return f"Exercise {self.number}, {self.title} (check('{self.id}', ...)):\n{self.task}"


EXERCISES = {e.id: e for e in (
    Exercise(
        "swish", 1, "Swish",
        "Swish is y = x * sigmoid(x). Its forward is given; write backward(ctx, grad_output) "
        "returning grad_output times dy/dx. Remember sigmoid'(x) = sigmoid(x) * "
        "(1 - sigmoid(x)).",
        "write backward: work out dy/dx for y = x * sigmoid(x) on paper (product rule), "
        "then return grad_output * dy/dx and run the check again."),
    Exercise(
        "bprop", 2, "a bprop on a Module",
        "The Module's forward is z = x * y + y. Write bprop(self, x, y, out, dout) returning "
        "the two gradients (for x, then for y), each built from dout.",
        "write bprop: work out dz/dx and dz/dy for z = x * y + y, then return them, each "
        "multiplied by dout, and run the check again."),
    Exercise(
        "softplus", 3, "Softplus without overflow",
        "Softplus is y = log(1 + exp(x)). Write a forward that never takes exp of a large "
        "number (exp(1000) is inf), using log(1 + exp(x)) = max(x, 0) + log(1 + exp(-|x|)), "
        "and its backward. The check also tries x = -1000 and x = 1000.",
        "write forward with x.relu(), x.abs(), .exp() and .log(), then backward: what is "
        "d/dx log(1 + exp(x))? You have met that function before."),
    Exercise(
        "linear", 4, "Linear from scratch",
        "MyLinear(in_features, out_features, bias=True): parameters weight (out_features, "
        "in_features) and bias (out_features,), both nb.nn.Parameter, drawn uniformly from "
        "(-1/sqrt(in_features), 1/sqrt(in_features)) as PyTorch does; bias=False sets "
        "self.bias = None. forward(x) = x @ weight.T + bias.",
        "in __init__, after super().__init__(), create self.weight and self.bias as "
        "nb.nn.Parameter (nb.rand gives numbers in [0, 1)); then write forward."),
    Exercise(
        "depthwise", 5, "a depthwise convolution backward",
        "DepthwiseConv: x (N, C, H, W), weight (C, 1, kh, kw), stride 1, no padding; each "
        "channel has its own kernel. The forward is given; write backward, returning the "
        "gradient for x (shape of x) and for weight (shape of weight). The check uses a "
        "7 x 5 input and a 3 x 2 kernel, so a height/width mix-up shows.",
        "write backward: go through the kernel offsets (i, j) as forward does, and ask which "
        "input pixels and which weight each output pixel used."),
)}


def _inputs(*shapes, scale=1.0):
    rng = np.random.default_rng(SEED)
    return [tensor(scale * rng.standard_normal(shape)) for shape in shapes]


def _title(ex: Exercise) -> str:
    return f"Exercise {ex.number} ({ex.title})"


def check(exercise: str, answer, *given) -> CheckResult:
    """Check your answer to an exercise: ``check("swish", Swish)``; or grade a prediction
    of notebooks 03 to 09: ``check("sigmoid-neuron", my_dL_db)``.

    The exercises of notebook 13: 'swish', 'bprop', 'softplus', 'linear', 'depthwise' (see
    EXERCISES). The predictions: see PREDICTIONS; some take what the notebook built after
    the answer, e.g. ``check("module-names", my_names, quiz)``. A prediction still None
    gets "write your prediction first", never an error.
    """
    if exercise in PREDICTIONS:
        return _grade_prediction(PREDICTIONS[exercise], answer, given)
    if exercise not in EXERCISES:
        raise InputError(message(
            f"there is no exercise {exercise!r}.", where="nnbook.exercises.check",
            values=f"the exercises: {', '.join(EXERCISES)}; the predictions: "
                   f"{', '.join(PREDICTIONS)}",
            hint="use one of the ids above, e.g. check('swish', Swish)."))
    if given:
        raise InputError(message(
            f"check({exercise!r}, ...) takes your answer alone; it got {len(given)} more "
            "argument(s).", where="nnbook.exercises.check",
            hint=f"call check({exercise!r}, YourClass)."))
    from ._solutions import SOLUTIONS

    ex, ref = EXERCISES[exercise], SOLUTIONS[exercise]
    common = dict(title=_title(ex), todo_hint=ex.todo_hint)
    label = dict(_label="the reference solution")
    if exercise == "swish":
        return check_function(answer, *_inputs((3, 5), scale=2.0), expected=ref.apply,
                              **common, **label)
    if exercise == "bprop":
        return check_bprop(answer, *_inputs((3, 5), (3, 5)), expected=ref(), **common,
                           **label)
    if exercise == "softplus":
        return check_function(answer, *_inputs((3, 5), scale=3.0), expected=ref.apply,
                              _after_forward=[_stable_forward],
                              _after_gradients=[_stable_gradient], **common, **label)
    if exercise == "linear":
        return check_layer(answer, 7, 5, input_shape=(3, 7), reference=nn.Linear,
                           _after_build=[_pytorch_init], _after_gradients=[_without_bias],
                           **common)
    x, w = _inputs((2, 3, 7, 5), (3, 1, 3, 2))
    return check_function(answer, x, w, expected=lambda x, w: nn.functional.conv2d(
        x, w, groups=3), _label="nb.nn.functional.conv2d(x, weight, groups=3)", **common)


def _grade_prediction(entry, answer, given):
    if len(given) != len(entry.given):
        wanted = ", ".join(("answer",) + entry.given)
        raise InputError(message(
            f"check({entry.id!r}, ...) takes {wanted}; it got {1 + len(given)} argument(s).",
            where="nnbook.exercises.check",
            hint=f"call check({entry.id!r}, {wanted}), as the notebook's cell does."))
    return grade(entry, answer, given)


def check_solutions() -> "Summary":
    """Every exercise's check, run on the hidden reference solutions."""
    from ._solutions import SOLUTIONS

    return Summary([check(ex_id, SOLUTIONS[ex_id]) for ex_id in EXERCISES])


class Summary:
    """The headlines of several checks; ``.passed`` when all of them pass."""

    def __init__(self, results):
        self.results = list(results)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.results)

    def __str__(self):
        lines = ["The same checks, run on the hidden reference solutions:"]
        lines += [f"  {PASS if r.passed else FAIL} {r.headline()}" for r in self.results]
        return "\n".join(lines)

    __repr__ = __str__

    def _repr_html_(self):
        head = str(self).split("\n")[0]
        items = "".join(f"<li>{_mark_html(PASS if r.passed else FAIL)} {_html(r.headline())}</li>"
                        for r in self.results)
        return (f"<div><p><b>{_html(head)}</b></p>"
                f"<ul style='list-style:none;padding-left:1em;margin:0'>{items}</ul></div>")


# -- checks only some exercises need ---------------------------------------------------

_EXTREMES = np.array([[-1000.0, -30.0, 0.0, 30.0, 1000.0]])


def _softplus_reference(x):
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def _stable_forward(checks, fn):
    """Softplus: the forward must stay finite and right far from zero."""
    x = _wrap(_EXTREMES.copy())
    ok, y = _attempt(checks, "forward", lambda: fn.apply(x), _GENERIC_UNFINISHED)
    if not ok:
        return
    y = np.asarray(y._array if isinstance(y, Tensor) else y, dtype=np.float64)
    want = _softplus_reference(_EXTREMES)
    bad = ~np.isclose(y, want, rtol=1e-9, atol=1e-12)
    if bad.any():
        i = int(np.argmax(bad.ravel()))
        checks.fail(f"forward is wrong far from zero: softplus({_EXTREMES.ravel()[i]:g}) gave "
                    f"{y.ravel()[i]:.4g}, not {want.ravel()[i]:.4g} (exp of a large number "
                    "overflows to inf)",
                    "never take exp of a large positive number: log(1 + exp(x)) = max(x, 0) "
                    "+ log(1 + exp(-|x|)), with x.relu() for max(x, 0) and x.abs() for |x|.")
        return
    checks.ok("forward stays finite and right for x = -1000 ... 1000")


def _stable_gradient(checks, fn):
    """Softplus: the gradient must stay finite far from zero too."""
    x = _wrap(_EXTREMES.copy(), requires_grad=True)
    ok, _ = _attempt(checks, "backward", lambda: fn.apply(x).sum().backward(), _GENERIC_UNFINISHED)
    if not ok:
        return
    grad = None if x.grad is None else x.grad._array
    want = 1 / (1 + np.exp(-_EXTREMES))
    wrong = (np.ones(want.shape, dtype=bool) if grad is None
             else ~np.isclose(grad, want, rtol=1e-6, atol=1e-12))
    if wrong.any():
        i = int(np.argmax(wrong.ravel()))
        got = "None" if grad is None else f"{grad.ravel()[i]:.4g}"
        checks.fail(f"the gradient is wrong far from zero: at x = {_EXTREMES.ravel()[i]:g} it "
                    f"is {got}, not {want.ravel()[i]:.4g}",
                    "exp(1000) / (1 + exp(1000)) is inf / inf = nan in floating point; the "
                    "same number has a name that nnbook computes without overflow.")
        return
    checks.ok("the gradient stays finite and right for x = -1000 ... 1000")


def _pytorch_init(checks, layer):
    """Linear: weight and bias uniform in +-1/sqrt(in_features), as PyTorch draws them."""
    in_features = layer.weight.shape[1]
    bound = 1 / np.sqrt(in_features)
    for name, param in layer.named_parameters():
        values = param._array.astype(np.float64)
        if not values.any():
            checks.fail(f"'{name}' starts as all zeros; nn.Linear draws it uniformly from "
                        f"(-{bound:.3g}, {bound:.3g})",
                        f"draw '{name}' from U(-1/sqrt(in_features), 1/sqrt(in_features)).")
            return
        if np.abs(values).max() > bound * (1 + 1e-6):
            checks.fail(f"'{name}' starts with values up to {np.abs(values).max():.3g}, beyond "
                        f"PyTorch's bound 1/sqrt(in_features) = {bound:.3g}",
                        f"draw '{name}' uniformly from (-bound, bound) with bound = "
                        "1 / sqrt(in_features): nb.rand(...) * 2 * bound - bound.")
            return
        if np.ptp(values) < 0.25 * bound:
            checks.fail(f"the values of '{name}' hardly differ (all within "
                        f"{np.ptp(values):.3g} of each other)",
                        f"draw '{name}' uniformly from the whole range (-{bound:.3g}, "
                        f"{bound:.3g}): units that start equal learn the same thing.")
            return
    checks.ok(f"starts with weight and bias drawn from (-1/sqrt({in_features}), "
              f"1/sqrt({in_features})) as PyTorch does")


def _without_bias(checks, cls):
    """Linear: bias=False leaves only 'weight', and the forward still works."""
    with _seeded(SEED):
        ok, plain = _attempt(checks, f"{cls.__name__}(7, 5, bias=False)",
                             lambda: cls(7, 5, bias=False), _GENERIC_UNFINISHED)
    if not ok:
        return
    names = [n for n, _ in plain.named_parameters()]
    if names != ["weight"]:
        checks.fail(f"{cls.__name__}(7, 5, bias=False) has parameters {names}, not just "
                    "['weight']", "with bias=False set self.bias = None.")
        return
    x = _wrap(np.random.default_rng(SEED).standard_normal((3, 7)).astype(plain.weight._array.dtype))
    ok, y = _attempt(checks, "forward without bias", lambda: plain(x), _GENERIC_UNFINISHED)
    if not ok:
        return
    want = x._array @ plain.weight._array.T
    if getattr(y, "shape", None) != want.shape or not np.allclose(y._array, want, rtol=1e-4,
                                                                  atol=1e-6):
        checks.fail(f"{cls.__name__}(7, 5, bias=False) does not compute x @ weight.T",
                    "when self.bias is None, return x @ self.weight.T alone.")
        return
    checks.ok(f"{cls.__name__}(7, 5, bias=False) has only 'weight' and computes x @ weight.T")
