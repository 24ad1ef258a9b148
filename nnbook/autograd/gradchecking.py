"""Compare the gradients backward() computes with numerical derivatives.

The check works on ``L = sum(dout * fn(*inputs))`` for a fixed random ``dout``:
its gradient with respect to each input is what backward() returns when handed
``dout``, and its numerical derivative is ``(L(x + eps) - L(x - eps)) / (2 eps)``,
one element at a time, in float64.

    >>> nb.gradcheck(lambda x, w: (x @ w).tanh(), (x, w))
    True
"""
from __future__ import annotations

import html
import inspect
from dataclasses import dataclass, field

import numpy as np

from ..context import no_grad
from ..errors import GradcheckError, InputError, fmt_shape, message
from ..tensor import Tensor, _wrap
from .custom import positional_names, teaching_mode
from .numerical import diagnose, numerical_vjp


@dataclass(frozen=True)
class InputCheck:
    """The comparison for one input."""

    name: str
    shape: tuple
    checked: bool
    passed: bool = True
    worst_index: tuple = ()
    numerical: float = 0.0
    analytical: float = 0.0
    max_abs_error: float = 0.0
    mismatches: int = 0
    diagnosis: str = ""


@dataclass(frozen=True)
class GradcheckReport:
    """What gradcheck found, input by input; ``str`` for text, HTML in notebooks."""

    function: str
    inputs: tuple
    eps: float
    atol: float
    rtol: float
    notes: tuple = field(default=())

    @property
    def passed(self) -> bool:
        return all(c.passed for c in self.inputs)

    def __bool__(self):
        return self.passed

    def __repr__(self):
        bad = [c.name for c in self.failures()]
        state = "passed" if not bad else "wrong for " + ", ".join(bad)
        return f"<GradcheckReport of {self.function}: {state}>"

    def failures(self):
        return [c for c in self.inputs if not c.passed]

    def summary(self) -> str:
        bad = self.failures()
        if not bad:
            n = sum(c.checked for c in self.inputs)
            return f"gradcheck of {self.function}: the gradients of all {n} checked input(s) match."
        c = bad[0]
        idx = ", ".join(str(i) for i in c.worst_index)
        text = (f"gradcheck of {self.function}: the gradient for input '{c.name}' is wrong.\n"
                f"  at element [{idx}] of '{c.name}' {fmt_shape(c.shape)}: numerical "
                f"{c.numerical:.6g}, analytical {c.analytical:.6g} "
                f"({c.mismatches} of {int(np.prod(c.shape))} elements differ)")
        if c.diagnosis:
            text += f"\n  {c.diagnosis}"
        if len(bad) > 1:
            text += "\n  also wrong: " + ", ".join(f"'{b.name}'" for b in bad[1:])
        return text

    def _shown_error(self, c: InputCheck) -> str:
        """The max |error| as shown. An error below a tenth of atol is the rounding noise
        of the finite differences, whose digits change from one CPU to another: only the
        bound is shown ("< 1e-06")."""
        if c.checked and c.passed and c.max_abs_error < self.atol / 10:
            return f"< {self.atol / 10:g}"
        return f"{c.max_abs_error:.3g}"

    def __str__(self):
        lines = [self.summary(), "",
                 f"  {'input':<12} {'shape':<16} {'max |error|':>12}  {'result'}"]
        for c in self.inputs:
            result = "not checked" if not c.checked else ("ok" if c.passed else "WRONG")
            lines.append(f"  {c.name:<12} {fmt_shape(c.shape):<16} "
                         f"{self._shown_error(c):>12}  {result}")
        lines.append(f"  (eps={self.eps:g}, atol={self.atol:g}, rtol={self.rtol:g})")
        # the summary diagnoses the first wrong input; the text says what the others have too,
        # as the HTML table does in its last column
        lines += [f"  also wrong, '{c.name}': {c.diagnosis}"
                  for c in self.failures()[1:] if c.diagnosis]
        return "\n".join(lines + [f"  note: {n}" for n in self.notes])

    def _repr_html_(self):
        rows = []
        for c in self.inputs:
            result = "not checked" if not c.checked else ("ok" if c.passed else "WRONG")
            colour = "#2e7d32" if c.passed else "#c62828"
            rows.append(
                f"<tr><td><code>{html.escape(c.name)}</code></td><td>{fmt_shape(c.shape)}</td>"
                f"<td>{html.escape(self._shown_error(c))}</td>"
                f"<td style='color:{colour}'>{result}</td>"
                f"<td>{html.escape(c.diagnosis)}</td></tr>")
        head = html.escape(self.summary()).replace("\n", "<br>")
        return (f"<div><p><b>{head}</b></p><table><tr><th>input</th><th>shape</th>"
                f"<th>max |error|</th><th>result</th><th>diagnosis</th></tr>"
                + "".join(rows) + "</table></div>")


def _input_names(fn, n: int) -> list[str]:
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, type) and hasattr(owner, "forward"):  # Function.apply
        fn = owner.forward
        names, _ = positional_names(fn)
        return [names[i] if i < len(names) else f"input {i}" for i in range(n)]
    if hasattr(fn, "forward") and not inspect.isfunction(fn):  # a Module
        fn = fn.forward
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = [p.name for p in params
             if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if params and params[0].kind == params[0].VAR_POSITIONAL:
        names = []
    return [names[i] if i < len(names) else f"input {i}" for i in range(n)]


def _function_name(fn) -> str:
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, type):
        return f"{owner.__name__}.{fn.__name__}"
    if hasattr(fn, "forward") and not inspect.isfunction(fn):
        return type(fn).__name__
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    return "a lambda" if name.endswith("<lambda>") else name


def _outputs(result) -> list[Tensor]:
    outs = list(result) if isinstance(result, (tuple, list)) else [result]
    for o in outs:
        if not isinstance(o, Tensor):
            raise InputError(message(
                f"gradcheck needs the function to return tensors, got {type(o).__name__}.",
                hint="return the nnbook Tensor the computation produced."))
    return outs


def gradcheck_report(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, seed=90210) -> GradcheckReport:
    """Run the comparison and return the report without raising."""
    with teaching_mode(False):  # the report says it all: no second opinion on stderr
        return _gradcheck_report(fn, inputs, eps, atol, rtol, seed)


def _gradcheck_report(fn, inputs, eps, atol, rtol, seed) -> GradcheckReport:
    if isinstance(inputs, Tensor):
        inputs = (inputs,)
    inputs = tuple(inputs)
    names = _input_names(fn, len(inputs))
    checked = [isinstance(x, Tensor) and x.requires_grad for x in inputs]
    if not any(checked):
        raise InputError(message(
            "gradcheck needs at least one input tensor with requires_grad=True.",
            hint="create the inputs you want checked with requires_grad=True, in float64: "
            "nb.randn(3, 4, dtype=nb.float64, requires_grad=True)."))
    # float64 copies, so rounding does not hide or fake an error, and user tensors stay untouched
    copies = tuple(_wrap(x._array.astype(np.float64), requires_grad=True) if c
                   else (x.detach() if isinstance(x, Tensor) else x)
                   for x, c in zip(inputs, checked))
    notes = []
    if any(c and x.dtype != np.float64 for x, c in zip(inputs, checked)):
        notes.append("float32 inputs were checked as float64 copies.")
    outs = _outputs(fn(*copies))
    rng = np.random.default_rng(seed)
    douts = [rng.standard_normal(o.shape) for o in outs]
    def analytical_grads(scale):
        for x, c in zip(copies, checked):
            if c:
                x.grad = None
        total = None
        for o, d in zip(outs, douts):
            if o.requires_grad:
                term = (o * _wrap((scale * d).astype(o._array.dtype))).sum()
                total = term if total is None else total + term
        if total is not None:
            total.backward(retain_graph=True)
        return [x.grad._array.copy() if c and x.grad is not None else None
                for x, c in zip(copies, checked)]

    doubled = analytical_grads(2.0)
    grads = analytical_grads(1.0)

    def loss_value():
        with no_grad():
            res = _outputs(fn(*copies))
        return sum(float(np.sum(r._array.astype(np.float64) * d)) for r, d in zip(res, douts))

    results = [_check_input(loss_value, x, c, name, g, g2, eps, atol, rtol)
               for x, c, name, g, g2 in zip(copies, checked, names, grads, doubled)]
    return GradcheckReport(_function_name(fn), tuple(results), eps, atol, rtol, tuple(notes))


def _check_input(loss_value, x, checked, name, g, g2, eps, atol, rtol) -> InputCheck:
    """One input's analytical gradient against the numerical one."""
    shape = tuple(x.shape) if isinstance(x, Tensor) else ()
    if not checked:
        return InputCheck(name, shape, checked=False)
    analytical = g if g is not None else np.zeros(shape)
    numerical = numerical_vjp(loss_value, x._array, eps)
    err = np.abs(analytical - numerical)
    bad = err > atol + rtol * np.abs(numerical)
    worst = np.unravel_index(int(np.argmax(err)), shape) if shape else ()
    return InputCheck(
        name, shape, checked=True, passed=not bad.any(),
        worst_index=tuple(int(i) for i in worst),
        numerical=float(numerical[worst]), analytical=float(analytical[worst]),
        max_abs_error=float(err.max()) if err.size else 0.0,
        mismatches=int(bad.sum()),
        diagnosis="" if not bad.any() else diagnose(analytical, numerical, x._array, name, g2),
    )


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3) -> bool:
    """True if backward() agrees with numerical derivatives; else raise GradcheckError.

    The error's ``report`` attribute holds the full :class:`GradcheckReport`.
    """
    report = gradcheck_report(fn, inputs, eps=eps, atol=atol, rtol=rtol)
    if report.passed:
        return True
    head, *details = report.summary().split("\n")
    where, _, what = head.partition(": ")
    err = GradcheckError(message(
        what, where=where, values="\n".join(line[2:] for line in details),
        hint="compare your backward rule with the derivative of the forward, term by term; "
        "the element above is a good one to work out by hand."))
    err.report = report
    raise err
