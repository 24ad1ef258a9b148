"""detect_anomaly(): stop at the first NaN or inf, forward or backward, and say where."""
from __future__ import annotations

import contextlib

from . import engine


@contextlib.contextmanager
def detect_anomaly():
    """Inside this block the first op whose forward output or backward gradient holds a
    NaN or an inf raises :class:`~nnbook.errors.AnomalyError`, naming the op, the layer
    path and the user's source line that created the op.  Slower: use it to debug.

        with nb.detect_anomaly():
            loss = model(x).log().mean()   # AnomalyError: the forward of log ... produced -inf
    """
    import numpy as np

    from ..tensor import observe

    engine.anomaly_depth += 1
    try:
        # numpy's own overflow warnings would come first and name nnbook's files;
        # the AnomalyError below names the op, the layer and your line instead.
        with observe(anomaly=True), np.errstate(all="ignore"):
            yield
    finally:
        engine.anomaly_depth -= 1
