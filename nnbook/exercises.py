"""Exercises with automatic checks (notebooks/07_exercises.ipynb).

    from nnbook.exercises import check
    check("swish", Swish)        # your class: a Function, a Module with bprop, or a layer

A check runs your code on small, odd, non-square float64 inputs; compares the
forward with a hidden reference solution; lets nnbook's contract checks look at
what your backward returns; and compares every gradient with numerical
derivatives (what ``nb.gradcheck`` does, extended to a layer's parameters).
The result lists what works (✓), what does not (✗), what is not written yet
(…) and the next step.  For your own code, without a reference solution:

    check_function(MyFn, x, y)                        # an nb.autograd.Function subclass
    check_bprop(MyModule, x, y)                       # a Module (class or instance) with bprop
    check_layer(MyLayer, 7, 5, input_shape=(3, 7))    # a layer class and its arguments

``import nnbook`` does not load this module; the solutions live in
``nnbook/_exercise_solutions.py`` and are loaded only by ``check``.
"""
from __future__ import annotations

import contextlib
import copy
import html
import inspect
import os
import traceback
import warnings
from dataclasses import dataclass

import numpy as np

import nnbook as nb
from . import nn
from .autograd import Function, teaching_mode
from .autograd.custom import positional_names
from .autograd.gradcheck import constant_factor, numerical_vjp
from .errors import ContractError, InputError, NnbookError, describe_frame, fmt_shape, message
from .tensor import Tensor, no_grad

PASS, FAIL, UNFINISHED, SKIP = "\u2713", "\u2717", "\u2026", "\u00b7"  # ✓ ✗ … ·
EPS, ATOL, RTOL = 1e-6, 1e-5, 1e-3  # nb.gradcheck's defaults
SEED = 7                            # inputs, output gradients and layer initialisation
_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_GENERIC_UNFINISHED = "fill in the part that raises NotImplementedError, then run the check again."


# --------------------------------------------------------------------------
# What a check returns
# --------------------------------------------------------------------------

@dataclass(frozen=True)
class Line:
    """One finding: ``mark`` is ✓ (works), ✗ (wrong), … (not written yet) or · (skipped)."""

    mark: str
    text: str
    detail: str = ""


class CheckResult:
    """The findings of one check: ``.passed``, ``.status``, ``.lines``, ``.next_step``.

    Printing it (or leaving it as a cell's last value) shows the findings in words.
    """

    def __init__(self, title: str, lines, next_step: str | None = None):
        self.title = title
        self.lines = tuple(lines)
        self.next_step = next_step

    @property
    def status(self) -> str:
        """'passed', 'failed', or 'todo' (some part still raises NotImplementedError)."""
        marks = {line.mark for line in self.lines}
        if UNFINISHED in marks:
            return "todo"
        return "failed" if FAIL in marks or PASS not in marks else "passed"

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def __bool__(self):
        return self.passed

    def headline(self) -> str:
        good = sum(line.mark == PASS for line in self.lines)
        bad = sum(line.mark == FAIL for line in self.lines)
        if self.status == "passed":
            return f"{self.title}: all {good} checks pass"
        if self.status == "todo":
            return (f"{self.title}: not finished yet ({_count(good, 'check')} "
                    f"{'passes' if good == 1 else 'pass'} so far)")
        if good == 0:
            return f"{self.title}: {'the check fails' if bad == 1 else f'all {bad} checks fail'}"
        return f"{self.title}: {bad} of {good + bad} checks {'fails' if bad == 1 else 'fail'}"

    def __str__(self):
        out = [self.headline()]
        for line in self.lines:
            out.append(f"  {line.mark} {line.text}")
            if line.detail:
                out.append("      " + line.detail.replace("\n", "\n      "))
        if self.next_step:
            out.append(f"next step: {self.next_step}")
        return "\n".join(out)

    __repr__ = __str__

    def _repr_html_(self):
        items = []
        for line in self.lines:
            detail = (f"<div style='margin-left:1.4em;color:#555'>{_html(line.detail)}</div>"
                      if line.detail else "")
            items.append(f"<li>{_mark_html(line.mark)} {_html(line.text)}{detail}</li>")
        step = f"<p><b>next step:</b> {_html(self.next_step)}</p>" if self.next_step else ""
        return (f"<div><p><b>{_html(self.headline())}</b></p>"
                f"<ul style='list-style:none;padding-left:1em;margin:0'>{''.join(items)}</ul>"
                f"{step}</div>")


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def _mark_html(mark: str) -> str:
    colour = {PASS: "#2e7d32", FAIL: "#c62828", UNFINISHED: "#b26a00", SKIP: "#757575"}[mark]
    return f"<b style='color:{colour}'>{mark}</b>"


class _Checks:
    """Collects lines while a check runs; the first ✗ or … decides the next step."""

    def __init__(self, title: str):
        self.title = title
        self.lines: list[Line] = []
        self.next_step: str | None = None

    def ok(self, text, detail=""):
        self.lines.append(Line(PASS, text, detail))

    def skip(self, text):
        self.lines.append(Line(SKIP, text))

    def fail(self, text, next_step, detail=""):
        self.lines.append(Line(FAIL, text, detail))
        self.next_step = self.next_step or next_step

    def todo(self, text, next_step):
        self.lines.append(Line(UNFINISHED, text))
        self.next_step = self.next_step or next_step

    @property
    def stopped(self) -> bool:
        return any(line.mark in (FAIL, UNFINISHED) for line in self.lines)

    def result(self) -> CheckResult:
        return CheckResult(self.title, self.lines, self.next_step)


# --------------------------------------------------------------------------
# Running the student's code
# --------------------------------------------------------------------------

@contextlib.contextmanager
def _quiet():
    """No teaching-mode warnings (the check compares every gradient itself), no numpy
    overflow warnings on the cell's stderr."""
    with teaching_mode(False), warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


@contextlib.contextmanager
def _seeded(seed: int):
    """nnbook's generator seeded for a block, then put back as it was."""
    bits = nb.generator().bit_generator
    saved = bits.state
    bits.state = np.random.default_rng(seed).bit_generator.state
    try:
        yield
    finally:
        bits.state = saved


def _attempt(checks: _Checks, part: str, call, todo_hint: str):
    """Run a piece of the student's code: (True, value), or (False, None) after a ✗/… line."""
    try:
        return True, call()
    except Exception as err:  # the student's code may raise anything: say what and where
        _report_error(checks, part, err, todo_hint)
        return False, None


def _report_error(checks: _Checks, part: str, err: Exception, todo_hint: str) -> None:
    cause = err
    while cause.__cause__ is not None:  # the engine wraps errors raised inside a backward
        cause = cause.__cause__
    if isinstance(cause, NotImplementedError):
        said = str(cause).split("\n")[0]
        checks.todo(f"{part} is not written yet (it raises NotImplementedError"
                    f"{': ' + said if said else ''})", todo_hint)
    elif isinstance(cause, ContractError):
        what, hint = _split_message(str(cause), strip_where=True)
        checks.fail(f"{part} breaks the contract: {what.rstrip('.')}",
                    hint or "return one gradient per input, each with its input's shape.")
    elif isinstance(cause, NnbookError):
        what, hint = _split_message(str(cause))
        checks.fail(f"{part} raised {type(cause).__name__}: {what.rstrip('.')}",
                    hint or f"read the message above and fix {part}.", _user_line(cause))
    else:
        first = str(cause).strip().split("\n")[0]
        if isinstance(cause, (ValueError, IndexError)):  # numpy's shape complaints
            step = (f"fix {part} at the line shown: print the shapes of the arrays on it and "
                    "compare them with the shapes in the task.")
        elif isinstance(cause, TypeError) and "argument" in first:
            step = f"give {part} the arguments the task asks for."
        else:
            step = f"read the error and fix {part} at the line shown."
        checks.fail(f"{part} raised {type(cause).__name__}" + (f": {first}" if first else ""),
                    step, _user_line(cause))


def _split_message(text: str, strip_where: bool = False) -> tuple[str, str]:
    """(what, hint) of an nnbook message: its first line, and its 'hint:' line."""
    lines = text.split("\n")
    what = lines[0]
    if strip_where and ": " in what and " " not in what.split(": ", 1)[0]:
        what = what.split(": ", 1)[1]  # 'Swish.backward: returned ...' -> 'returned ...'
    hint = next((line.strip()[len("hint: "):] for line in lines
                 if line.strip().startswith("hint: ")), "")
    return what, hint


def _user_line(err: Exception) -> str:
    """'at a notebook cell, line 12: ...' -- the last line of the student's own code."""
    for frame in reversed(traceback.extract_tb(err.__traceback__)):
        if not os.path.abspath(frame.filename).startswith(_PACKAGE_DIR):
            return "at " + describe_frame(frame.filename, frame.lineno)
    return ""


def _outputs(value) -> list:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def _name(obj) -> str:
    return getattr(obj, "__name__", None) or type(obj).__name__


def _arg_names(forward, n: int) -> list[str]:
    names, _ = positional_names(forward)
    return [names[i] if i < len(names) else f"input {i}" for i in range(n)]


@dataclass
class _Leaf:
    name: str
    tensor: Tensor
    missing_hint: str  # the next step when no gradient reaches it


def _make_args(values, names, missing_hint):
    """float64 leaves (copies) for floating point inputs; other values pass unchanged."""
    args, leaves = [], []
    for value, name in zip(values, names):
        array = value.data if isinstance(value, Tensor) else value
        if isinstance(array, np.ndarray) and array.dtype.kind == "f":
            leaf = Tensor(np.array(array, dtype=np.float64, order="C"), requires_grad=True)
            leaves.append(_Leaf(name, leaf, missing_hint.format(name=name)))
            args.append(leaf)
        else:
            args.append(value)
    return args, leaves


def _describe_inputs(leaves) -> str:
    return ", ".join(f"{leaf.name} {fmt_shape(leaf.tensor.shape)}" for leaf in leaves)


def _fresh(args):
    """Copies of the arguments outside any graph, for a reference to run on."""
    return [Tensor(a.data.copy()) if isinstance(a, Tensor) else a for a in args]


# --------------------------------------------------------------------------
# The forward: runs, returns Tensors, matches the reference
# --------------------------------------------------------------------------

def _check_forward(checks, part, call, leaves, expected, expected_label, todo_hint):
    """✓/✗ lines for the forward; returns its outputs, or None when it did not work."""
    ok, value = _attempt(checks, part, call, todo_hint)
    if not ok:
        return None
    outs = _outputs(value)
    for out in outs:
        if not isinstance(out, Tensor):
            checks.fail(f"{part} returned a {type(out).__name__}, not an nnbook Tensor",
                        "build the result with nnbook operations on the input tensors "
                        "(or wrap a numpy result: nb.tensor(array)).")
            return None
    shapes = ", ".join(fmt_shape(o.shape) for o in outs)
    if any(o.dtype != np.float64 for o in outs):
        dtype = next(o.dtype for o in outs if o.dtype != np.float64)
        checks.fail(f"{part} returns {dtype} for float64 inputs",
                    "keep the inputs' dtype (e.g. np.zeros(shape, dtype=x.dtype)): "
                    "gradients are checked in float64.")
        return None
    bad = next((o for o in outs if not np.isfinite(o.data).all()), None)
    if bad is not None:
        checks.fail(f"{part} gives nan or inf on ordinary inputs ({_describe_inputs(leaves)})",
                    "look for a division by zero, a log of a negative number or an overflow.")
        return None
    checks.ok(f"{part} runs on {_describe_inputs(leaves)} and returns "
              f"{'a Tensor' if len(outs) == 1 else 'Tensors'} of shape {shapes}")
    if expected is None:
        checks.skip(f"{part} not compared with expected values (none given)")
        return outs
    ok, value = _attempt(checks, "expected(...)", expected, _GENERIC_UNFINISHED)
    if not ok:
        return None
    wanted = [np.asarray(w.data if isinstance(w, Tensor) else w, dtype=np.float64)
              for w in _outputs(value)]
    if [o.shape for o in outs] != [w.shape for w in wanted]:
        checks.fail(f"{part} returns shape {shapes}; {expected_label} has shape "
                    f"{', '.join(fmt_shape(w.shape) for w in wanted)}",
                    f"compare the shapes step by step with the task; the output of {part} "
                    f"should have shape {', '.join(fmt_shape(w.shape) for w in wanted)}.")
        return None
    for out, want in zip(outs, wanted):
        wrong = ~np.isclose(out.data, want, rtol=1e-6, atol=1e-9)
        if wrong.any():
            at = np.unravel_index(int(np.argmax(wrong)), wrong.shape)
            checks.fail(f"{part} differs from {expected_label}",
                        f"go through {part} again with the formula in the task; try it on "
                        "one number by hand.",
                        f"at element [{_index(at)}]: yours {float(out.data[at]):.4g}, expected "
                        f"{float(want[at]):.4g} ({int(wrong.sum())} of {wrong.size} elements "
                        "differ)")
            return None
    checks.ok(f"{part} matches {expected_label}")
    return outs


def _index(at) -> str:
    return ", ".join(str(int(i)) for i in at)


# --------------------------------------------------------------------------
# The gradients: the contract, then each one against numerical derivatives
# --------------------------------------------------------------------------

def _check_gradients(checks, part, run, leaves, grad_name, todo_hint, contract=True):
    """One line for the contract (custom rules only), then one line per leaf.

    ``run()`` computes the outputs from the leaves, recording the graph; the
    comparison is nb.gradcheck's: L = sum(dout * out) for a fixed random dout.
    """
    with no_grad():
        first = _outputs(run())
    rng = np.random.default_rng(SEED)
    douts = [rng.standard_normal(o.shape) for o in first]

    def analytical(scale):
        for leaf in leaves:
            leaf.tensor.grad = None
        outs = _outputs(run())
        terms = [(o * Tensor(scale * d)).sum() for o, d in zip(outs, douts) if o.requires_grad]
        if terms:
            total = terms[0]
            for term in terms[1:]:
                total = total + term
            total.backward()
        return [None if leaf.tensor.grad is None else leaf.tensor.grad.data.copy()
                for leaf in leaves]

    ok, runs = _attempt(checks, part, lambda: (analytical(2.0), analytical(1.0)), todo_hint)
    if not ok:
        checks.skip("the gradients are compared once it runs")
        return
    doubled, grads = runs
    if contract:
        checks.ok(f"{part} keeps the contract: one gradient per input, each with its "
                  "input's shape")

    def loss():
        with no_grad():
            outs = _outputs(run())
        return sum(float(np.sum(o.data.astype(np.float64) * d)) for o, d in zip(outs, douts))

    for leaf, grad, grad2 in zip(leaves, grads, doubled):
        x = leaf.tensor.data
        numerical = numerical_vjp(loss, x, EPS)
        if grad is None:
            if np.allclose(numerical, 0, atol=ATOL):
                checks.ok(f"'{leaf.name}' gets no gradient, and the output does not depend "
                          "on it")
            else:
                checks.fail(f"no gradient reached '{leaf.name}', but the output depends on it",
                            leaf.missing_hint)
            continue
        err = np.abs(grad - numerical)
        bad = err > ATOL + RTOL * np.abs(numerical)
        if not bad.any():
            checks.ok(f"the gradient for '{leaf.name}' matches numerical derivatives")
            continue
        at = np.unravel_index(int(np.argmax(err)), err.shape) if err.ndim else ()
        what, step = _explain(leaf.name, grad, grad2, numerical, x, grad_name)
        checks.fail(what, step,
                    f"at element [{_index(at)}] of '{leaf.name}' {fmt_shape(x.shape)}: "
                    f"numerical {float(numerical[at]):.4g}, yours {float(grad[at]):.4g} "
                    f"({int(bad.sum())} of {bad.size} elements differ)")


def _explain(name, grad, doubled, numerical, x, grad_name) -> tuple[str, str]:
    """(what is wrong, the next step) for a gradient that disagrees with the numbers."""
    scale = max(float(np.abs(numerical).max()), 1e-12)
    by_hand = (f"work out d out / d {name} by hand at the element shown and compare it with "
               "your code, term by term.")
    if not np.any(grad):
        return (f"the gradient for '{name}' is all zeros, but the output depends on '{name}'",
                f"build the gradient for '{name}' from {grad_name} and the derivative of the "
                "forward.")
    if doubled is not None and np.allclose(doubled, grad, rtol=1e-6, atol=1e-12):
        c = constant_factor(grad, x) if x.size > 1 else None
        if c is not None:
            what = (f"the gradient for '{name}' is {_times(c)}'{name}' itself, and does not "
                    f"scale with {grad_name}")
        else:
            what = (f"the gradient for '{name}' does not scale with {grad_name}: doubling "
                    f"{grad_name} left it unchanged")
        return what, (f"multiply by {grad_name} (the chain rule): return {grad_name} * "
                      f"(d out / d {name}), not d out / d {name} alone.")
    if np.allclose(grad, -numerical, rtol=1e-3, atol=1e-6 * scale):
        return (f"the gradient for '{name}' has the wrong sign everywhere",
                "look for a minus sign: in a derivative, in a subtraction written the wrong "
                "way round, or in 1 - s.")
    c = constant_factor(grad, numerical)
    if c is not None and c > 0:
        return (f"the gradient for '{name}' is {c:.3g} times the right one: a constant "
                "factor is off", "look for a constant too many or too few (a 2, or a 1/2), then "
                + by_hand)
    return f"the gradient for '{name}' differs from numerical derivatives", by_hand


def _times(c: float) -> str:
    return "" if abs(c - 1) < 1e-4 else f"{c:.3g} * "


# --------------------------------------------------------------------------
# The three checks
# --------------------------------------------------------------------------

def check_function(fn, *inputs, expected=None, title=None, todo_hint=_GENERIC_UNFINISHED,
                   _label="the expected values", _after_forward=(), _after_gradients=()
                   ) -> CheckResult:
    """Check an ``nb.autograd.Function`` subclass on example inputs.

    ``expected(*inputs)`` (optional) gives the right forward values to compare with.
    Floating point inputs are checked as float64 copies; other arguments pass as given.

    >>> check_function(Cube, nb.randn(3, 4), expected=lambda x: x ** 3).passed
    True
    """
    checks = _Checks(title or f"check_function({_name(fn)})")
    with _quiet():
        if not (isinstance(fn, type) and issubclass(fn, Function)):
            checks.fail(f"{_name(fn)} is not a subclass of nb.autograd.Function",
                        "define class MyFn(nb.autograd.Function): with @staticmethod forward("
                        "ctx, ...) and backward(ctx, grad_output), and pass the class itself "
                        "(not MyFn.apply, not an instance).")
            return checks.result()
        checks.ok(f"{fn.__name__} is an nb.autograd.Function")
        params = list(inspect.signature(fn.backward).parameters)
        grad_name = params[1] if len(params) > 1 else "grad_output"
        args, leaves = _make_args(inputs, _arg_names(fn.forward, len(inputs)),
                                  f"backward returned None for '{{name}}': return {grad_name} "
                                  "times d out / d {name} in its place.")
        if not _has_leaves(checks, leaves):
            return checks.result()
        ref = None if expected is None else (lambda: expected(*_fresh(args)))
        if _check_forward(checks, "forward", lambda: fn.apply(*args), leaves, ref, _label,
                          todo_hint) is None:
            checks.skip("backward is checked once the forward works")
            return checks.result()
        for extra in _after_forward:
            extra(checks, fn)
        if checks.stopped:
            checks.skip("backward is checked once the forward works")
        else:
            _check_gradients(checks, "backward", lambda: fn.apply(*args), leaves, grad_name,
                             todo_hint)
        for extra in _after_gradients if not checks.stopped else ():
            extra(checks, fn)
    return checks.result()


def check_bprop(module, *inputs, expected=None, title=None, todo_hint=_GENERIC_UNFINISHED,
                _label="the expected values") -> CheckResult:
    """Check a Module's ``bprop(self, *inputs, out, dout)`` (class or instance) on inputs."""
    checks = _Checks(title or f"check_bprop({_name(module)})")
    with _quiet():
        cls = module if isinstance(module, type) else type(module)
        if not issubclass(cls, nn.Module):
            checks.fail(f"{_name(module)} is not an nb.nn.Module",
                        "define class MyModule(nb.nn.Module): with forward(self, ...) and "
                        "bprop(self, ..., out, dout).")
            return checks.result()
        if not callable(getattr(cls, "bprop", None)):
            checks.fail(f"{cls.__name__} has no bprop method, so autograd differentiates its "
                        "forward by itself and there is no rule of yours to check",
                        "add def bprop(self, x, ..., out, dout): returning one gradient per "
                        "input of forward.")
            return checks.result()
        if isinstance(module, type):
            ok, module = _attempt(checks, f"{cls.__name__}()", cls, todo_hint)
            if not ok:
                return checks.result()
        names = _arg_names(cls.forward, len(inputs))
        checks.ok(f"{cls.__name__} is an nb.nn.Module with "
                  f"bprop(self, {', '.join(names + ['out', 'dout'])})")
        args, leaves = _make_args(inputs, names, "bprop returned None for '{name}': return "
                                  "dout times d out / d {name} in its place.")
        if not _has_leaves(checks, leaves):
            return checks.result()
        ref = None if expected is None else (lambda: expected(*_fresh(args)))
        if _check_forward(checks, "forward", lambda: module(*args), leaves, ref, _label,
                          todo_hint) is None:
            checks.skip("bprop is checked once the forward works")
            return checks.result()
        _check_gradients(checks, "bprop", lambda: module(*args), leaves, "dout", todo_hint)
    return checks.result()


def check_layer(layer, *args, input_shape, reference=None, expected=None, title=None,
                todo_hint=_GENERIC_UNFINISHED, _after_build=(), _after_gradients=(), **kwargs
                ) -> CheckResult:
    """Check a layer: a Module class built with ``*args, **kwargs``, or an instance.

    Registration of its parameters (Parameters, not plain tensors or lists), their names
    and shapes, ``state_dict`` keys, the output for an input of ``input_shape``, and the
    gradients of the input and of every parameter, by numerical derivatives in float64.
    ``reference``: a Module class (built with the same arguments) or instance to compare
    with, after copying this layer's state_dict into it; or ``expected(x)`` for a layer
    without parameters.

    >>> check_layer(MyLinear, 7, 5, input_shape=(3, 7), reference=nb.nn.Linear).passed
    True
    """
    call = _call_text(layer, args, kwargs)
    checks = _Checks(title or f"check_layer({call})")
    with _quiet():
        if not (isinstance(layer, nn.Module) or
                (isinstance(layer, type) and issubclass(layer, nn.Module))):
            checks.fail(f"{_name(layer)} is not an nb.nn.Module",
                        "define class MyLayer(nb.nn.Module): calling super().__init__() first "
                        "in __init__.")
            return checks.result()
        with _seeded(SEED):
            if isinstance(layer, type):
                ok, layer = _attempt(checks, f"{call}", lambda: layer(*args, **kwargs),
                                     todo_hint)
            else:
                ok, layer = True, copy.deepcopy(layer)  # the student's layer stays as it was
            if ok and isinstance(reference, type):
                reference = reference(*args, **kwargs)
        if not ok:
            checks.skip("the rest is checked once the layer can be built")
            return checks.result()
        if "_parameters" not in vars(layer):
            checks.fail(f"{type(layer).__name__}.__init__ does not call super().__init__(), so "
                        "the layer has nowhere to register its parameters",
                        f"add super().__init__() as the first line of "
                        f"{type(layer).__name__}.__init__.")
            return checks.result()
        checks.ok(f"{call} builds an nb.nn.Module")
        if _check_registration(checks, layer, reference):
            for extra in _after_build:
                extra(checks, layer)
        if checks.stopped:
            checks.skip("the forward and the gradients are checked once these pass")
            return checks.result()
        layer.double()
        for _, param in layer.named_parameters():
            param.data = np.ascontiguousarray(param.data)  # perturbed in place below
        if reference is not None:
            reference = copy.deepcopy(reference).double()
            reference.load_state_dict(layer.state_dict())
            expected = reference
        x_name = (_arg_names(type(layer).forward, 1) or ["input"])[0]
        x = np.random.default_rng(SEED).standard_normal(input_shape)
        (x,), leaves = _make_args([x], [x_name], "no gradient reached the input '{name}': "
                                  "compute the output from it with nnbook operations (not "
                                  "numpy, not .data), so that autograd can follow.")
        ref = None if expected is None else (lambda: expected(Tensor(x.data.copy())))
        label = (f"{type(reference).__name__} with your parameters copied in"
                 if reference is not None else "the expected values")
        if _check_forward(checks, "forward", lambda: layer(x), leaves, ref, label,
                          todo_hint) is None:
            checks.skip("the gradients are checked once the forward works")
            return checks.result()
        for name, param in layer.named_parameters():
            leaves.append(_Leaf(name, param, f"'{name}' got no gradient: the forward must use "
                                "it through nnbook operations (not numpy, not .data), so that "
                                "autograd can follow it."))
        _check_gradients(checks, "backward", lambda: layer(x), leaves, "the output gradient",
                         todo_hint, contract=False)
        for extra in _after_gradients:
            extra(checks, type(layer))
    return checks.result()


def _has_leaves(checks, leaves) -> bool:
    if leaves:
        return True
    checks.fail("none of the inputs is a floating point tensor, so there is no gradient to "
                "check", "pass example inputs such as nb.randn(3, 5).")
    return False


def _call_text(layer, args, kwargs) -> str:
    if not isinstance(layer, type):
        return type(layer).__name__
    shown = [repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()]
    return f"{layer.__name__}({', '.join(shown)})"


def _check_registration(checks, layer, reference) -> bool:
    """Parameters registered (not plain tensors or lists), named and shaped as the reference."""
    registered = dict(layer.named_parameters())
    for attr, value in vars(layer).items():
        if attr.startswith("_") or attr in layer._parameters or attr in layer._buffers:
            continue
        kind = _tensor_kind(value)
        if kind:
            checks.fail(f"self.{attr} is a plain {kind}, not an nb.nn.Parameter: the layer "
                        "does not register it, so parameters(), state_dict() and an optimizer "
                        "never see it",
                        f"wrap it: self.{attr} = nb.nn.Parameter(...).")
            return False
        if isinstance(value, (list, tuple, dict)):
            items = value.values() if isinstance(value, dict) else value
            held = sum(bool(_tensor_kind(v)) or isinstance(v, nn.Parameter) for v in items)
            if held:
                checks.fail(f"self.{attr} is a plain {type(value).__name__} holding "
                            f"{_count(held, 'tensor')}: the layer cannot see inside it, so "
                            "parameters(), state_dict() and an optimizer miss them",
                            "give each parameter its own attribute: self.weight = "
                            "nb.nn.Parameter(...), self.bias = nb.nn.Parameter(...).")
                return False
    listed = ", ".join(f"{n} {fmt_shape(p.shape)}" for n, p in registered.items())
    if reference is None:
        checks.ok(f"registers its parameters: {listed}" if registered else "has no parameters")
    else:
        wanted = dict(reference.named_parameters())
        label = type(reference).__name__
        if list(registered) != list(wanted):
            checks.fail(f"the parameters are named {list(registered)}; {label} names them "
                        f"{list(wanted)}",
                        f"use PyTorch's names ({', '.join('self.' + n for n in wanted)}): "
                        "state_dict keys, and so checkpoints, are built from them.")
            return False
        checks.ok(f"registers its parameters as {label} does: {listed}")
        for name, param in registered.items():
            want = wanted[name].shape
            if param.shape != want:
                other = (": the same sizes in another order"
                         if sorted(param.shape) == sorted(want) else "")
                checks.fail(f"'{name}' has shape {fmt_shape(param.shape)}, but {label}'s has "
                            f"{fmt_shape(want)}{other}",
                            f"create '{name}' with shape {fmt_shape(want)}, as {label} does.")
                return False
    keys = list(layer.state_dict())
    if reference is not None and keys != list(reference.state_dict()):
        checks.fail(f"state_dict keys are {keys}; {type(reference).__name__}'s are "
                    f"{list(reference.state_dict())}",
                    "register exactly the parameters and buffers the reference has.")
        return False
    checks.ok(f"state_dict keys: {keys}")
    return True


def _tensor_kind(value) -> str:
    if isinstance(value, nn.Parameter):
        return ""
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, np.ndarray) and value.dtype.kind == "f":
        return "numpy array"
    return ""


# --------------------------------------------------------------------------
# The exercises
# --------------------------------------------------------------------------

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
    return [nb.tensor(scale * rng.standard_normal(shape)) for shape in shapes]


def _title(ex: Exercise) -> str:
    return f"Exercise {ex.number} ({ex.title})"


def check(exercise: str, answer) -> CheckResult:
    """Check your answer to an exercise: ``check("swish", Swish)``.

    The exercises: 'swish', 'bprop', 'softplus', 'linear', 'depthwise' (see EXERCISES).
    """
    if exercise not in EXERCISES:
        raise InputError(message(
            f"there is no exercise {exercise!r}.", where="nnbook.exercises.check",
            values=f"the exercises: {', '.join(EXERCISES)}",
            hint="use one of the ids above, e.g. check('swish', Swish)."))
    from ._exercise_solutions import SOLUTIONS

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


def check_solutions() -> "Summary":
    """Every exercise's check, run on the hidden reference solutions."""
    from ._exercise_solutions import SOLUTIONS

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
    x = Tensor(_EXTREMES.copy())
    ok, y = _attempt(checks, "forward", lambda: fn.apply(x), _GENERIC_UNFINISHED)
    if not ok:
        return
    y = np.asarray(y.data if isinstance(y, Tensor) else y, dtype=np.float64)
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
    x = Tensor(_EXTREMES.copy(), requires_grad=True)
    ok, _ = _attempt(checks, "backward", lambda: fn.apply(x).sum().backward(), _GENERIC_UNFINISHED)
    if not ok:
        return
    grad = None if x.grad is None else x.grad.data
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
        values = param.data.astype(np.float64)
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
    x = Tensor(np.random.default_rng(SEED).standard_normal((3, 7)).astype(plain.weight.dtype))
    ok, y = _attempt(checks, "forward without bias", lambda: plain(x), _GENERIC_UNFINISHED)
    if not ok:
        return
    want = x.data @ plain.weight.data.T
    if getattr(y, "shape", None) != want.shape or not np.allclose(y.data, want, rtol=1e-4,
                                                                  atol=1e-6):
        checks.fail(f"{cls.__name__}(7, 5, bias=False) does not compute x @ weight.T",
                    "when self.bias is None, return x @ self.weight.T alone.")
        return
    checks.ok(f"{cls.__name__}(7, 5, bias=False) has only 'weight' and computes x @ weight.T")


__all__ = ["CheckResult", "EXERCISES", "Exercise", "Line", "Summary", "check",
           "check_bprop", "check_function", "check_layer", "check_solutions"]
