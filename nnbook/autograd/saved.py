"""Saved values and version counters: backward never reads a value that changed.

A node's backward reads values its forward saved (``mul`` keeps both factors;
``exp`` keeps its output).  If one of those tensors is changed in place between
the forward and the backward -- ``w.zero_()``, ``w -= lr * w.grad`` under
``no_grad``, ``h.data[...] = 0``, ``optimizer.step()`` -- the backward would
compute with the new values and give a silently wrong gradient.

So every tensor carries a version counter, shared with its views and its
``.data``: [how many in-place changes, the clock value of the last one].  One clock
numbers the nodes as they are made (``node.seq``) and the changes as they happen, so
"changed since the node saved it" is ``counter[1] > node.seq``, and ``apply`` has
nothing to write down per input.  The engine compares before a node's backward: a
changed tensor that the node still holds stops the backward with the story.
"""
from __future__ import annotations

import numpy as np

from ..context import layer_name
from ..errors import BackwardError, describe_frame, fmt_shape, message


def check_saved(node) -> None:
    """Raise if a value ``node`` saved for its backward has changed in place since."""
    since = max(node.seq, node.__dict__.get("accounted", 0))  # (a write through a view
    for index, t in enumerate(node.inputs):                    # that the graph recorded)
        if t._counter[1] > since and (node.is_view or _holds(node, t)):
            _raise_changed(node, f"input {index}", t._counter[0], t)
    if node.keeps_output and node.output_counter[1] > since:
        _raise_changed(node, "its output", node.output_counter[0])


def _holds(node, tensor) -> bool:
    """Does the node keep an array (or a tuple or list of them, as einsum's operands) that
    shares memory with ``tensor``?"""
    array = tensor._array
    for value in vars(node).values():
        for v in value if isinstance(value, (tuple, list)) else (value,):
            if isinstance(v, np.ndarray) and np.may_share_memory(v, array):
                return True
    return False


def describe_node(node) -> str:
    """'conv2d in features.2 (Conv2d), created at train.py, line 12: ...' as far as known."""
    text = node.name
    if node.layer is not None:
        text += f" in {layer_name(*node.layer)}"
    site = node.__dict__.get("site")
    return text + (f", created at {describe_frame(*site)}" if site else "")


def _raise_changed(node, which, now, tensor=None):
    if tensor is not None:
        path = getattr(tensor, "path", None)
        kind = type(tensor).__name__
        what = f"{path} (a {kind} of shape {fmt_shape(tensor.shape)})" if path else \
            f"a {kind} of shape {fmt_shape(tensor.shape)}"
        values = f"the tensor: {what}"
    else:
        values = "the tensor: the result of that op"
    values += (f"\nsaved by:   {describe_node(node)}\nversion:    {now} now: changed in place "
               "after the op saved it")
    if node.__dict__.get("site") is None:
        values += "\n(run the forward inside nb.detect_anomaly() to see the line that made it)"
    raise BackwardError(message(
        f"{node.name} needs {which} as it was in the forward pass, but it was changed in "
        "place afterwards, so its gradient would be wrong.",
        where="backward", values=values,
        hint="call backward() before optimizer.step() or any other in-place change "
        "(x.zero_(), x -= ..., x.data[...] = ..., x[0] = ...); or change a copy "
        "(x = x.clone()) so the saved value stays as it was."))
