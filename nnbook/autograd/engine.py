"""Reverse-mode differentiation: walk the graph from the output back to the leaves.

The engine knows only a small protocol.  A tensor made by an op has ``_op``; the
op has ``inputs`` (tensors), ``needs_input_grad`` and ``backward(grad_out)``
returning one array (or None) per input.  Leaves have ``_op is None``.
"""
from __future__ import annotations

import numpy as np

from ..errors import BackwardError, fmt_shape, message

# Set by nnbook.inspect while recording; called as hook(op, grad_out, grads_in).
backward_hook = None


def topological_order(root_op) -> list:
    """Ops reachable from ``root_op``, every op after all ops that feed it.

    Iterative depth-first search, so a graph 100 000 ops deep needs no recursion.
    """
    order = []
    seen = {id(root_op)}
    stack = [(root_op, iter(root_op.inputs))]
    while stack:
        op, pending = stack[-1]
        for t in pending:
            parent = t._op
            if parent is not None and t.requires_grad and id(parent) not in seen:
                seen.add(id(parent))
                stack.append((parent, iter(parent.inputs)))
                break
        else:
            stack.pop()
            order.append(op)
    return order


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


def fit_gradient(op, index: int, grad, tensor) -> np.ndarray:
    """Bring one gradient an op returned to its input's shape and dtype."""
    if not isinstance(grad, np.ndarray):
        grad = np.asarray(grad)
    if grad.shape != tensor.shape:
        fitted = unbroadcast(grad, tensor.shape)
        if fitted is None:
            raise BackwardError(message(
                f"the backward of {op.name} returned a gradient of shape "
                f"{fmt_shape(grad.shape)} for input {index}, which has shape "
                f"{fmt_shape(tensor.shape)}.",
                where=f"backward of {op.name}",
                hint="a gradient must have its input's shape, or a shape that sums "
                "to it over broadcast axes.",
                line=False,
            ))
        grad = fitted
    if grad.dtype != tensor.dtype:
        grad = grad.astype(tensor.dtype)
    return grad


def _position(op, tensor) -> int:
    return next(i for i, t in enumerate(op.inputs) if t is tensor)


def run_backward(root, grad: np.ndarray) -> None:
    """Accumulate d(root)/d(leaf) * grad into ``.grad`` of every leaf that requires it."""
    from ..tensor import Tensor

    grads = {id(root._op): grad}
    leaves = {}
    hook = backward_hook
    for op in reversed(topological_order(root._op)):
        grad_out = grads.pop(id(op), None)
        if grad_out is None:  # not on a path to the root (cannot happen today)
            continue
        grads_in = op.backward(grad_out)
        if hook is not None:
            hook(op, grad_out, grads_in)
        for t, g, need in zip(op.inputs, grads_in, op.needs_input_grad):
            if not need or g is None:
                continue
            data = t.data
            if g.shape != data.shape or (g.dtype is not data.dtype and g.dtype != data.dtype):
                g = fit_gradient(op, _position(op, t), g, t)
            parent = t._op
            if parent is None:
                key = id(t)
                leaves[key] = t
            else:
                key = id(parent)
            prev = grads.get(key)
            grads[key] = g if prev is None else prev + g
    for key, t in leaves.items():
        g = grads[key]
        if t.grad is None:
            # Own the array: an op may hand the same one to several inputs.
            t.grad = Tensor(g.copy())
        else:
            t.grad = Tensor(t.grad.data + g)
