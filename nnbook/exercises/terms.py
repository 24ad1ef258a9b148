"""Where a right gradient comes from, in pieces, to name two mistakes by their numbers.

A gradient is a sum, in two ways:

* **one term per use.** An input used in several places of the forward gets one term
  through each place: for y = x * sigmoid(x), dy/dx = sigmoid(x) + x * sigmoid'(x), the
  first through the multiplication, the second through the sigmoid (the product rule). A
  rule whose gradient is the right one minus exactly one of these terms left a term out.
  The terms come from the student's own forward, recorded as a graph of nnbook
  operations: :func:`use_terms` runs the engine's protocol on it and keeps apart what
  arrives at the input from each place.
* **one contribution per output element.** An input element read by several output
  elements (pixels under overlapping windows, a bias shared by every row) gets the sum
  of what each of them sends back. A loop that writes ``grad[...] = ...`` where
  ``grad[...] += ...`` belongs keeps only one of them: the last. :func:`overwritten`
  finds that signature in the numerical Jacobian.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..autograd.engine import fit_gradient, topological_order
from ..context import no_grad, set_grad_enabled
from ..tensor import Tensor

# ops in which two uses of an input meet by multiplying (the product rule) or adding
_PRODUCTS = {"mul", "div", "matmul", "linear", "bmm", "einsum", "pow", "outer", "dot"}
_SUMS = {"add", "sub", "sum", "cat", "stack"}
_ORDINALS = ["1st", "2nd", "3rd"]


@dataclass
class Term:
    """What reaches the input through one place where the forward uses it."""

    where: str          # 'through sigmoid', 'through the 2nd mul'
    value: np.ndarray   # its share of the gradient, with the input's shape


def use_terms(record, leaf: Tensor, douts) -> tuple[list[Term], str] | None:
    """([one Term per use of ``leaf``], the rule that joins the uses: 'product', 'sum' or
    ''), for L = sum(dout * out) over the outputs ``record()`` returns with the graph
    recorded; None if ``leaf`` is used only once or the forward records no graph (numpy
    inside, .data, an error)."""
    try:
        with set_grad_enabled(True):
            outs = record()
    except Exception:  # the student's forward ran fine before; if not, there is nothing to say
        return None
    outs = list(outs) if isinstance(outs, (tuple, list)) else [outs]
    roots = [(o.grad_fn, d) for o, d in zip(outs, douts)
             if isinstance(o, Tensor) and o.grad_fn is not None and d.shape == o.shape]
    if not roots:
        return None
    order = topological_order([node for node, _ in roots])
    grads, found = {}, []
    for node, d in roots:
        grads[id(node)] = d if id(node) not in grads else grads[id(node)] + d
    try:
        for node in reversed(order):
            grad_out = grads.pop(id(node), None)
            if grad_out is None:
                continue
            with no_grad():
                grads_in = node.backward(grad_out)
            for i, (t, parent, g) in enumerate(zip(node.inputs, node.parents, grads_in)):
                if g is None or not node.needs_input_grad[i]:
                    continue
                g = fit_gradient(node, i, g, t._array)
                if t is leaf:
                    found.append((node, i, g))
                elif parent is not None:
                    grads[id(parent)] = g if id(parent) not in grads else grads[id(parent)] + g
    except Exception:  # a rule inside the forward that cannot run again: no terms to show
        return None
    if len(found) < 2:
        return None
    return _describe(found, order), _joining_rule(order, leaf)


def dropped_term(grad, numerical, terms, atol, rtol):
    """The Term whose absence the gradient shows (grad == numerical - term), or None."""
    scale = float(np.abs(numerical).max())
    for term in terms:
        if float(np.abs(term.value).max()) <= 1e-3 * scale:
            continue  # a term too small to tell apart from a rounding error
        rest = numerical - term.value
        if np.all(np.abs(grad - rest) <= atol + rtol * np.abs(rest)):
            return term
    return None


def numerical_jacobian(outputs, x: np.ndarray, eps: float) -> np.ndarray:
    """d (every output element) / d (every element of x), by central differences:
    shape (outputs, x.size); ``outputs()`` returns the outputs flattened into one array."""
    flat = x.reshape(-1)  # a view: writing it perturbs x
    columns = []
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        plus = outputs()
        flat[i] = old - eps
        minus = outputs()
        flat[i] = old
        columns.append((plus - minus) / (2 * eps))
    return np.stack(columns, axis=1)


def overwritten(grad, numerical, jacobian, dout_flat, atol, rtol):
    """How many elements of the gradient hold only one of the contributions that should
    have been added up (0 if that is not what the numbers show).

    The signature of ``grad[...] = ...`` where ``+=`` belongs: every wrong element is read
    by several output elements and equals exactly one of their contributions
    (jacobian[q, p] * dout[q]); every element read by only one output is right.
    """
    contributions = jacobian * dout_flat[:, None]            # (outputs, inputs)
    reads = np.abs(jacobian) > 1e-7 * max(float(np.abs(jacobian).max()), 1e-300)
    g, n = grad.reshape(-1), numerical.reshape(-1)
    wrong = np.abs(g - n) > atol + rtol * np.abs(n)
    shared = reads.sum(axis=0) >= 2
    if not wrong.any() or (wrong & ~shared).any():
        return 0
    for p in np.flatnonzero(wrong):
        mine = contributions[reads[:, p], p]
        if not np.any(np.abs(g[p] - mine) <= atol + rtol * np.abs(mine)):
            return 0
    return int(wrong.sum())


def _describe(found, order) -> list[Term]:
    """'through sigmoid'; 'through the 2nd input of add' when one op takes the input twice;
    'through the 2nd mul' when several ops of one name take it (in the order they ran)."""
    ran = {id(node): k for k, node in enumerate(order)}
    found = sorted(found, key=lambda item: (ran[id(item[0])], item[1]))
    names = [node.name for node, _, _ in found]
    nodes = [id(node) for node, _, _ in found]
    terms = []
    for k, (node, index, g) in enumerate(found):
        if nodes.count(id(node)) > 1:
            where = f"through the {_ordinal(index + 1)} input of {node.name}"
        elif names.count(node.name) > 1:
            seen = {nodes[j] for j in range(k + 1) if names[j] == node.name}
            where = f"through the {_ordinal(len(seen))} {node.name}"
        else:
            where = f"through {node.name}"
        terms.append(Term(where, g))
    return terms


def _ordinal(n: int) -> str:
    return _ORDINALS[n - 1] if n <= len(_ORDINALS) else f"{n}th"


def _joining_rule(order, leaf) -> str:
    """'product' or 'sum': how the first op that takes the leaf along two paths combines
    them ('' for any other op)."""
    depends = {}
    for node in order:  # inputs before the ops that use them
        paths = [t is leaf or (p is not None and depends.get(id(p), False))
                 for t, p in zip(node.inputs, node.parents)]
        depends[id(node)] = any(paths)
        if sum(paths) >= 2:
            return ("product" if node.name in _PRODUCTS else
                    "sum" if node.name in _SUMS else "")
    return ""
