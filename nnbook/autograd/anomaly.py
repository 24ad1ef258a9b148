"""detect_anomaly(): stop at the first NaN or inf, forward or backward, and say where."""
from __future__ import annotations

import contextlib

import numpy as np

from .. import context
from ..errors import AnomalyError, describe_frame, message

_HINTS = {
    "log": "log(0) is -inf and log of a negative number is NaN: add a small epsilon, or use "
           "F.log_softmax / F.cross_entropy instead of log(softmax(x)).",
    "div": "a division by zero: check the denominator, or add a small epsilon.",
    "sqrt": "sqrt of a negative number is NaN, and its gradient at 0 is infinite: add a "
            "small epsilon inside.",
    "pow": "a power of a negative base or of zero with a negative exponent.",
    "exp": "exp overflows for inputs above about 88 in float32: subtract the maximum first "
           "(as softmax does) or lower the learning rate.",
}


class AnomalyWatch(context.Observer):
    """Checks every op's output and every gradient a node sends back."""

    wants_sites = True

    def op_ran(self, op, inputs, out):
        check_finite(op, out._array, "forward", context.current_layer())

    def backward_step(self, op, grad_out, grads):
        for g in grads:
            check_finite(op, g, "backward")


def check_finite(op, array, phase: str, layer=None, site=None) -> None:
    """Raise at the first NaN or inf an op produced (``layer`` and ``site``: where the op ran,
    when it is not a node of the graph that remembers it)."""
    if array is None or array.dtype.kind != "f" or np.isfinite(array).all():
        return
    bad = array[~np.isfinite(array)]
    kind = "NaN" if np.isnan(bad).any() else ("-inf" if (bad < 0).all() else "inf")
    if getattr(op, "layer", None):
        layer = context.layer_name(*op.layer)
    site = op.__dict__.get("site") or site
    layer = f" in {layer}" if layer else ""
    values = f"{bad.size} of {array.size} values are not finite"
    if site:
        values = f"op created at {describe_frame(*site)}\n" + values
    raise AnomalyError(message(
        f"the {phase} of {op.name}{layer} produced {kind}.",
        where="detect_anomaly", values=values, line=False,
        hint=_HINTS.get(op.name, "look at the inputs of this op: a division by zero, log of "
                        "0 or a negative number, or an overflow (too large a learning rate) "
                        "are the usual causes.")))


@contextlib.contextmanager
def detect_anomaly(check_nan: bool = True):
    """Inside this block the first op whose forward output or backward gradient holds a
    NaN or an inf raises :class:`~nnbook.errors.AnomalyError`, naming the op, the layer
    path and the user's source line that created the op.  Slower: use it to debug.

        with nb.detect_anomaly():
            loss = model(x).log().mean()   # AnomalyError: the forward of log ... produced -inf
    """
    if not check_nan:
        yield
        return
    # numpy's own overflow warnings would come first and name nnbook's files;
    # the AnomalyError names the op, the layer and your line instead.
    with context.watching(AnomalyWatch()), np.errstate(all="ignore"):
        yield


_enabled = None  # the watch installed by set_detect_anomaly(True)


def set_detect_anomaly(mode: bool) -> None:
    """Switch anomaly detection on or off for everything that follows (PyTorch's API)."""
    global _enabled
    if mode and _enabled is None:
        _enabled = AnomalyWatch()
        context.observers.append(_enabled)
    elif not mode and _enabled is not None:
        context.observers.remove(_enabled)
        _enabled = None
