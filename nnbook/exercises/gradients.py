"""The gradients of the student's rule: the contract, then each one against numerical
derivatives, and, when one is wrong, the mistake it shows, by name where the numbers
show it.
"""
from __future__ import annotations

import itertools

import numpy as np

from ..autograd.numerical import constant_factor, numerical_vjp
from ..context import no_grad
from ..errors import fmt_shape
from ..tensor import _wrap
from .harness import ATOL, EPS, RTOL, SEED, _attempt, _index, _outputs
from .terms import dropped_term, numerical_jacobian, overwritten, use_terms

_JACOBIAN_LIMIT = 250_000  # numbers in the Jacobian looked at for the `=`/`+=` signature


def _check_gradients(checks, part, run, leaves, grad_name, todo_hint, contract=True,
                     record=None):
    """One line for the contract (custom rules only), then one line per leaf.

    ``run()`` computes the outputs from the leaves, recording the graph; the
    comparison is nb.gradcheck's: L = sum(dout * out) for a fixed random dout.
    ``record()`` (optional) runs the student's forward alone, as nnbook operations with
    the graph recorded, so that a wrong gradient can be split into its terms (terms.py).
    """
    with no_grad():
        first = _outputs(run())
    rng = np.random.default_rng(SEED)
    douts = [rng.standard_normal(o.shape) for o in first]

    def analytical(scale):
        for leaf in leaves:
            leaf.tensor.grad = None
        outs = _outputs(run())
        terms = [(o * _wrap(scale * d)).sum() for o, d in zip(outs, douts) if o.requires_grad]
        if terms:
            total = terms[0]
            for term in terms[1:]:
                total = total + term
            total.backward(retain_graph=True)
        return [None if leaf.tensor.grad is None else leaf.tensor.grad._array.copy()
                for leaf in leaves]

    ok, runs = _attempt(checks, part, lambda: (analytical(2.0), analytical(1.0)), todo_hint)
    if not ok:
        checks.skip("the gradients are compared once it runs")
        return
    doubled, grads = runs
    if contract:
        checks.ok(f"{part} keeps the contract: one gradient per input, each with its "
                  "input's shape")

    def outputs():
        with no_grad():
            outs = _outputs(run())
        return np.concatenate([o._array.astype(np.float64).reshape(-1) for o in outs])

    dout_flat = np.concatenate([d.reshape(-1) for d in douts])
    numericals = [numerical_vjp(lambda: float(outputs() @ dout_flat), leaf.tensor._array, EPS)
                  for leaf in leaves]
    clues = _Clues(record, outputs, douts, dout_flat)
    _judge_gradients(checks, leaves, grads, doubled, numericals, clues, grad_name)


class _Clues:
    """What the numbers can tell about one wrong gradient, worked out only when asked."""

    def __init__(self, record, outputs, douts, dout_flat):
        self.record, self.outputs = record, outputs
        self.douts, self.dout_flat = douts, dout_flat

    def terms(self, leaf):
        """(one Term per use of the leaf, the rule joining them), or None."""
        return None if self.record is None else use_terms(self.record, leaf.tensor, self.douts)

    def jacobian(self, leaf):
        x = leaf.tensor._array
        if x.size * self.dout_flat.size > _JACOBIAN_LIMIT:
            return None
        return numerical_jacobian(self.outputs, x, EPS)


def _judge_gradients(checks, leaves, grads, doubled, numericals, clues, grad_name):
    """One line per leaf: its gradient against the numerical one, and what a mismatch means."""
    swapped = _swapped_pairs(leaves, grads, numericals)
    for leaf, grad, grad2, numerical in zip(leaves, grads, doubled, numericals):
        x = leaf.tensor._array
        if leaf.name in swapped:
            other = swapped[leaf.name]
            checks.fail(f"the gradients for '{leaf.name}' and '{other}' are swapped: the one "
                        f"returned for '{leaf.name}' is the right one for '{other}'",
                        f"return the gradients in the order of the forward's inputs: the one "
                        f"for '{leaf.name}' where '{leaf.name}' comes.")
            continue
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
        what, step, more = _explain(leaf, grad, grad2, numerical, clues, grad_name, at)
        checks.fail(what, step,
                    f"at element [{_index(at)}] of '{leaf.name}' {fmt_shape(x.shape)}: "
                    f"numerical {float(numerical[at]):.4g}, yours {float(grad[at]):.4g} "
                    f"({int(bad.sum())} of {bad.size} elements differ)"
                    + _local_view(leaf, leaves, clues.douts, at, numerical, grad_name) + more)


def _explain(leaf, grad, doubled, numerical, clues, grad_name, at):
    """(what is wrong, the next step, more detail) for a gradient that disagrees with the
    numbers; the first pattern the numbers show wins."""
    name, x = leaf.name, leaf.tensor._array
    scale = max(float(np.abs(numerical).max()), 1e-12)
    by_hand = (f"work out d out / d {name} by hand at the element shown and compare it with "
               "your code, term by term.")
    if not np.any(grad):
        return (f"the gradient for '{name}' is all zeros, but the output depends on '{name}'",
                f"build the gradient for '{name}' from {grad_name} and the derivative of the "
                "forward.", "")
    if doubled is not None and np.allclose(doubled, grad, rtol=1e-6, atol=1e-12):
        c = constant_factor(grad, x) if x.size > 1 else None
        if c is not None:
            what = (f"the gradient for '{name}' is {_times(c)}'{name}' itself, and does not "
                    f"scale with {grad_name}")
        else:
            what = (f"the gradient for '{name}' does not scale with {grad_name}: doubling "
                    f"{grad_name} left it unchanged")
        return what, (f"multiply by {grad_name} (the chain rule): return {grad_name} * "
                      f"(d out / d {name}), not d out / d {name} alone."), ""
    if np.allclose(grad, -numerical, rtol=1e-3, atol=1e-6 * scale):
        return (f"the gradient for '{name}' has the wrong sign everywhere",
                "look for a minus sign: in a derivative, in a subtraction written the wrong "
                "way round, or in 1 - s.", "")
    found = _missing_term(leaf, grad, numerical, clues, at)
    if found is None:
        found = _overwritten(leaf, grad, numerical, clues, at)
    if found is not None:
        return found
    c = constant_factor(grad, numerical)
    if c is not None and c > 0:
        return (f"the gradient for '{name}' is {c:.3g} times the right one: a constant "
                "factor is off", "look for a constant too many or too few (a 2, or a 1/2), then "
                + by_hand, "")
    return f"the gradient for '{name}' differs from numerical derivatives", by_hand, ""


def _missing_term(leaf, grad, numerical, clues, at):
    """The input is used in several places and the gradient lacks the term of one of them."""
    split = clues.terms(leaf)
    if split is None:
        return None
    terms, rule = split
    total = sum(t.value for t in terms)
    if not np.allclose(total, numerical, rtol=RTOL, atol=ATOL):
        return None  # the recorded forward does not explain the numbers: say nothing
    term = dropped_term(grad, numerical, terms, ATOL, RTOL)
    if term is None:
        return None
    name = leaf.name
    places = " and ".join([", ".join(t.where for t in terms[:-1]), terms[-1].where])
    mistake = {"product": "a missing product-rule term",
               "sum": "a missing term of the sum rule"}.get(rule, "a missing term")
    what = (f"the gradient for '{name}' misses the term {term.where}: {mistake} ('{name}' "
            f"enters the forward in {len(terms)} places, {places}, and each adds one term)")
    if rule == "product":
        step = (f"add the term {term.where}: by the product rule, d(u * v) = du * v + u * dv, "
                f"so differentiate through each place '{name}' is used, holding the others "
                "constant, and add the results.")
    else:
        step = (f"add the term {term.where}: a value used in several places gets the sum of "
                "what each place sends back (in a loop or an engine: +=, never =).")
    shown = ", ".join(f"{t.where} {float(t.value[at]):.4g}" for t in terms)
    return what, step, f"\n  the terms there: {shown} (they add up to the numerical value)"


def _overwritten(leaf, grad, numerical, clues, at):
    """Elements read by several outputs hold one contribution, not their sum: `=` for `+=`."""
    jacobian = clues.jacobian(leaf)
    if jacobian is None:
        return None
    count = overwritten(grad, numerical, jacobian, clues.dout_flat, ATOL, RTOL)
    if not count:
        return None
    name = leaf.name
    what = (f"the gradient for '{name}' keeps only one of the contributions that should add "
            f"up: `=` where `+=` belongs ({count} elements of '{name}' are read by several "
            "output elements, and each holds just one of their contributions)")
    step = (f"accumulate: start grad_{name} from zeros and add every contribution with "
            f"grad_{name}[...] += ...; an = keeps only the last one that was written.")
    p = int(np.ravel_multi_index(at, grad.shape)) if grad.ndim else 0
    column = jacobian[:, p] * clues.dout_flat
    reads = np.flatnonzero(np.abs(jacobian[:, p]) > 1e-7 * float(np.abs(jacobian).max()))
    shown = ", ".join(f"{column[q]:.4g}" for q in reads[:6]) + (", ..." if len(reads) > 6 else "")
    return what, step, (f"\n  the contributions there, from {len(reads)} output elements: "
                        f"{shown}; they add up to the numerical value")


def _swapped_pairs(leaves, grads, numericals) -> dict:
    """name -> the other name, for two inputs whose returned gradients are each the other's
    right one (and not their own): the gradients came back in the wrong order."""
    def near(a, b):
        return a is not None and a.shape == b.shape and \
            np.allclose(a, b, rtol=RTOL, atol=ATOL)
    found = {}
    for i, j in itertools.combinations(range(len(leaves)), 2):  # each pair i < j once
        gi, gj, ni, nj = grads[i], grads[j], numericals[i], numericals[j]
        if near(gi, nj) and near(gj, ni) and not near(gi, ni):
            found[leaves[i].name], found[leaves[j].name] = leaves[j].name, leaves[i].name
    return found


def _local_view(leaf, leaves, douts, at, numerical, grad_name) -> str:
    """For an elementwise rule (one output of the input's shape): the inputs, the incoming
    gradient and the local derivative the rule should have used at the failing element."""
    x = leaf.tensor._array
    if len(douts) != 1 or douts[0].shape != x.shape or not x.shape:
        return ""
    d = float(douts[0][at])
    inputs = ", ".join(f"{other.name} = {float(other.tensor._array[at]):.4g}" for other in leaves
                       if other.tensor.shape == x.shape)
    text = f"\n  there: {inputs}, {grad_name} = {d:.4g}"
    if abs(d) > 1e-8:
        text += (f", so d out / d {leaf.name} should be {float(numerical[at]) / d:.4g} "
                 f"(numerical gradient / {grad_name})")
    return text


def _times(c: float) -> str:
    return "" if abs(c - 1) < 1e-4 else f"{c:.3g} * "
