"""Reverse-mode differentiation: walk the graph from the output back to the leaves.

The engine knows a small protocol and nothing else (not even what a Tensor is).
A node is an op that ran with gradients on; ``apply`` left on it

* ``inputs``  -- the input tensors (the engine reads their array ``_array`` and version
  counter ``_counter``: [version, clock value of the last in-place change]),
* ``parents`` -- each input's node at the time (None for a leaf),
* ``needs_input_grad`` -- a bool per input,
* ``seq`` -- the clock's value when the node was made: it grows with every node made and
  every in-place change, so inputs' nodes have smaller ones, and an input changed in
  place afterwards has a larger one in its counter,

and ``backward(grad_out)`` returns one gradient (an array or None) per input.
:func:`run_backward` returns the gradients; ``Tensor.backward`` stores them.
"""
from __future__ import annotations

from heapq import heappop, heappush
from operator import attrgetter

import numpy as np

from .. import context
from ..errors import BackwardError, NnbookError, fmt_shape, message
from ..ops.base import quiet
from .saved import check_saved, describe_node


def topological_order(roots) -> list:
    """Nodes reachable from ``roots``, every node after all nodes that feed it.

    A node's inputs exist before it is made, and nodes are numbered as they are made
    (``seq``, PyTorch's sequence numbers), so sorting the reachable nodes by their number
    orders them.  The search keeps a list of nodes to visit, so a graph 100 000 ops deep
    needs no recursion.
    """
    seen = set(roots)
    stack = list(seen)
    while stack:
        for parent in stack.pop().parents:
            if parent is not None and parent not in seen:
                seen.add(parent)
                stack.append(parent)
    return sorted(seen, key=_seq)


_seq = attrgetter("seq")


@quiet  # backward rules meet inf and NaN (0 * inf) and make them silently, as in PyTorch
def run_backward(roots, retain_graph=False) -> dict:
    """Gradients of the ``roots`` -- (node, gradient of its output) pairs -- for every
    tensor that wants one.

    Nodes run newest first: a node's output feeds only nodes made after it, so when
    the newest waiting node comes out of the heap, every gradient of its output is
    in.  Returns {id: (tensor, gradient)} for every leaf that requires grad, and for
    every non-leaf whose node has ``retained`` set (``retain_grad()``).  Unless
    ``retain_graph``, each node frees what it saved once its backward has run.
    """
    grads, found, waiting = {}, {}, []  # grads: node (or id of a leaf) -> gradient so far
    for node, grad in roots:
        if node in grads:
            grads[node] = grads[node] + grad
        else:
            grads[node] = grad
            heappush(waiting, (-node.seq, node))
    while waiting:  # a heap of (-seq, node): the newest node comes out first
        node = heappop(waiting)[1]
        grad_out = grads.pop(node)
        if node.hooks or node.retained is not None:
            grad_out = _hooks_and_retained(node, grad_out, found)
        grads_in = _node_backward(node, grad_out, retain_graph)
        for t, parent, g in zip(node.inputs, node.parents, grads_in):
            if g is None:
                continue
            key = parent if parent is not None else id(t)  # a leaf's key is its id
            prev = grads.get(key)
            if prev is not None:
                grads[key] = prev + g
            elif parent is not None:  # the node's first gradient: it waits for its turn
                grads[key] = g
                heappush(waiting, (-parent.seq, parent))
            else:
                grads[key], found[key] = g, (t, None)
    return {key: (t, grads.get(key, g)) for key, (t, g) in found.items()}


def _hooks_and_retained(node, grad_out, found):
    """Run the hooks on the node's output (``register_hook``); keep its gradient if the
    output called ``retain_grad()``."""
    for hook in node.hooks:
        grad_out = hook(grad_out)
    kept = node.retained() if node.retained is not None else None
    if kept is not None:
        found[id(kept)] = (kept, grad_out)
    return grad_out


def _as_the_node_saw_it(t, node):
    """The input's array when ``node`` was made.  A tensor whose shape changed in place
    since (x.unsqueeze_(0), x.t_()) keeps each earlier array of its memory, with the time
    it was replaced; the node's gradient has the shape the input had then."""
    for replaced_at, array in t.__dict__.get("_layouts", ()):
        if replaced_at > node.seq:
            return array
    return t._array


def _node_backward(node, grad_out, retain_graph):
    """Run one node's backward rule: checked, fitted to its inputs, watched."""
    if node.released:
        raise BackwardError(message(
            f"backward() reached {node.name}, whose saved values were freed by an earlier "
            "backward() through the same graph.", where="backward", line=None,
            hint="compute the loss again (a new forward) before each backward(); or, to go "
            "through one graph twice, call the first one as loss.backward(retain_graph=True)."))
    if node.keeps_output or (context.last_write > node.seq and _changed_since(node)):
        check_saved(node)
    try:
        grads_in = node.backward(grad_out)
    except NnbookError as err:
        raise _with_node(err, node) from None
    except Exception as err:
        raise BackwardError(message(
            f"the backward of {describe_node(node)} failed: {type(err).__name__}: {err}",
            where="backward", line=False,
            hint="this op's backward rule raised; if it is your own rule, check it "
            "with nb.gradcheck on small inputs.")) from err
    fitted = []  # each gradient as an array of its input's shape and dtype, or None
    for t, g, need in zip(node.inputs, grads_in, node.needs_input_grad):
        if g is not None and need:
            array = t._array
            if type(g) is not np.ndarray or g.shape != array.shape or (
                    g.dtype is not array.dtype and g.dtype != array.dtype):  # (`is`: cheap)
                g = fit_gradient(node, len(fitted), g, _as_the_node_saw_it(t, node))
            fitted.append(g)
        else:
            fitted.append(None)
    for observer in context.observers:
        observer.backward_step(node, grad_out, fitted)
    if not retain_graph and node.__dict__:  # a node that saved nothing stays usable (PyTorch)
        node.release()
    return fitted


def _changed_since(node) -> bool:
    """Has an input been changed in place since the node ran?"""
    seq = node.seq
    for t in node.inputs:
        if t._counter[1] > seq:
            return True
    return False


def unbroadcast(grad: np.ndarray, shape: tuple) -> np.ndarray | None:
    """Sum ``grad`` over the axes broadcasting added or stretched; None if it can't fit."""
    if grad.shape == shape:
        return grad
    extra = grad.ndim - len(shape)
    if extra < 0:
        return None
    if extra:
        grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, (g, s) in enumerate(zip(grad.shape, shape)) if g != s)
    if any(shape[i] != 1 for i in stretched):
        return None
    if stretched:
        grad = grad.sum(axis=stretched, keepdims=True)
    return grad


def fit_gradient(node, index: int, grad, tensor) -> np.ndarray:
    """Bring one gradient a node returned to its input's shape and dtype (``tensor``: the
    input, or its array)."""
    if type(grad) is not np.ndarray:
        grad = np.asarray(grad)
    if grad.shape != tensor.shape:
        fitted = unbroadcast(grad, tensor.shape)
        if fitted is None:
            raise BackwardError(message(
                f"the backward of {node.name} returned a gradient of shape "
                f"{fmt_shape(grad.shape)} for input {index}, which has shape "
                f"{fmt_shape(tensor.shape)}.",
                where=f"backward of {node.name}",
                hint="a gradient must have its input's shape, or a shape that sums "
                "to it over broadcast axes.", line=False))
        grad = np.asarray(fitted)  # a sum over every axis gives a numpy scalar
    if grad.dtype != tensor.dtype:
        grad = grad.astype(tensor.dtype)
    return grad


def _with_node(err, node):
    """Add the node's layer and creation line to an nnbook error from a backward rule."""
    if getattr(node, "describes_itself", False):  # custom rules name their own places
        return err
    where = describe_node(node)
    if where != node.name and where not in str(err):
        err.args = (f"{err.args[0] if err.args else ''}\n  (node: {where})",) + err.args[1:]
    return err
