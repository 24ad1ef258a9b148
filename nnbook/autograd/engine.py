"""Reverse-mode differentiation: walk the graph from the output back to the leaves.

The engine knows only a small protocol.  A tensor made by an op has ``_op``; the
op has ``inputs`` (tensors), ``needs_input_grad`` and ``backward(grad_out)``
returning one array (or None) per input.  Leaves have ``_op is None``.
"""
from __future__ import annotations

import numpy as np

from ..errors import AnomalyError, BackwardError, NnbookError, fmt_shape, message

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


def describe_node(op) -> str:
    """'conv2d in features.2 (Conv2d), created at train.py, line 12: ...' as far as known."""
    layer, site = _node_context(op)
    return op.name + layer + (f", created at {site}" if site else "")


def check_finite(op, array, phase: str) -> None:
    """For detect_anomaly: raise at the first NaN or inf an op produced."""
    if array is None or array.dtype.kind != "f" or np.isfinite(array).all():
        return
    bad = array[~np.isfinite(array)]
    kind = "NaN" if np.isnan(bad).any() else ("-inf" if (bad < 0).all() else "inf")
    layer, site = _node_context(op)
    values = f"{bad.size} of {array.size} values are not finite"
    if site:
        values = f"op created at {site}\n" + values
    raise AnomalyError(message(
        f"the {phase} of {op.name}{layer} produced {kind}.",
        where="detect_anomaly", values=values, line=False,
        hint=_ANOMALY_HINTS.get(op.name, "look at the inputs of this op: a division by "
                                "zero, log of 0 or a negative number, or an overflow "
                                "(too large a learning rate) are the usual causes."),
    ))


def _node_context(op):
    """(' in features.2 (Conv2d)' or '', creation site or None) of a node."""
    extra = getattr(op, "__dict__", {})
    layer, text = extra.get("layer"), ""
    if layer:
        path, cls = layer
        text = f" in {path} ({cls})" if path else f" in {cls}"
    return text, extra.get("site")


_ANOMALY_HINTS = {
    "log": "log(0) is -inf and log of a negative number is NaN: add a small epsilon, or use "
           "F.log_softmax / F.cross_entropy instead of log(softmax(x)).",
    "div": "a division by zero: check the denominator, or add a small epsilon.",
    "sqrt": "sqrt of a negative number is NaN, and its gradient at 0 is infinite: add a "
            "small epsilon inside.",
    "pow": "a power of a negative base or of zero with a negative exponent.",
    "exp": "exp overflows for inputs above about 88 in float32: subtract the maximum first "
           "(as softmax does) or lower the learning rate.",
}

anomaly_depth = 0  # > 0 inside nb.detect_anomaly()


def run_backward(root, grad: np.ndarray, accumulate: bool = True, hook=None) -> dict:
    """Accumulate d(root)/d(leaf) * grad into ``.grad`` of every leaf that requires it.

    ``hook(op, grad_out, grads_in)`` is called after each node, with the gradients
    it sends to each input already fitted to their shapes.  With
    ``accumulate=False`` no ``.grad`` is touched; the leaf gradients are returned
    (by ``id`` of the leaf) either way.
    """
    from ..tensor import Tensor

    grads = {id(root._op): grad}
    leaves = {}
    hook = hook or backward_hook
    anomaly = anomaly_depth > 0
    for op in reversed(topological_order(root._op)):
        grad_out = grads.pop(id(op), None)
        if grad_out is None:  # not on a path to the root (cannot happen today)
            continue
        try:
            grads_in = op.backward(grad_out)
        except NnbookError as err:
            raise _with_node(err, op) from None
        except Exception as err:
            raise BackwardError(message(
                f"the backward of {describe_node(op)} failed: {type(err).__name__}: {err}",
                where="backward", line=False,
                hint="this op's backward rule raised; if it is your own rule, check it "
                "with nb.gradcheck on small inputs.")) from err
        fitted = [] if hook is not None else None
        for t, g, need in zip(op.inputs, grads_in, op.needs_input_grad):
            if not need or g is None:
                if fitted is not None:
                    fitted.append(None)
                continue
            data = t.data
            if g.shape != data.shape or (g.dtype is not data.dtype and g.dtype != data.dtype):
                g = fit_gradient(op, _position(op, t), g, t)
            if anomaly:
                check_finite(op, g, "backward")
            if fitted is not None:
                fitted.append(g)
            parent = t._op
            if parent is None:
                key = id(t)
                leaves[key] = t
            else:
                key = id(parent)
            prev = grads.get(key)
            grads[key] = g if prev is None else prev + g
        if hook is not None:
            hook(op, grad_out, fitted)
    result = {key: grads[key] for key in leaves}
    if accumulate:
        for key, t in leaves.items():
            g = grads[key]
            if t.grad is None:
                # Own the array: an op may hand the same one to several inputs.
                t.grad = Tensor(g.copy())
            else:
                t.grad = Tensor(t.grad.data + g)
    return result


def _with_node(err, op):
    """Add the node's layer and creation line to an nnbook error from a backward rule."""
    if getattr(op, "describes_itself", False):  # custom rules name their own places
        return err
    where = describe_node(op)
    if where != op.name and where not in str(err):
        err.args = (f"{err.args[0] if err.args else ''}\n  (node: {where})",) + err.args[1:]
    return err
