"""A scheduler's state dict: its attributes, as PyTorch saves them, read back checked.

After nb.save and nb.load, numbers and lists come back as Tensors, lists of dicts as
{'0': ..., '1': ...} and dict keys as strings; ``restore`` turns each saved value back
into the type of the attribute it replaces, or says why it cannot.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping

import numpy as np

from ...errors import CheckpointError, message
from ...tensor import Tensor
from ..checks import is_number


def refuse(where: str, what: str, values: str | None = None, hint: str | None = None):
    raise CheckpointError(message(
        what + " Nothing was loaded.", where=where, values=values,
        hint=hint or "load a state dict saved by scheduler.state_dict() from the same kind "
        "of scheduler, built on an optimizer with the same parameter groups."))


def plain(value):
    """Tensors and arrays as Python numbers and lists; {'0': a, '1': b} as [a, b]."""
    if isinstance(value, (Tensor, np.ndarray, np.generic)):
        return np.asarray(value).tolist()
    if isinstance(value, Mapping) and value and all(str(k).isdigit() for k in value):
        keys = sorted(value, key=lambda k: int(k))
        if [int(k) for k in keys] == list(range(len(keys))):
            return [value[k] for k in keys]
    return value


def restore(where: str, key: str, value, like):
    """``value`` (saved) in the type of ``like`` (the attribute it replaces)."""
    if isinstance(like, Counter):  # MultiStepLR's milestones: {epoch: times}
        if not isinstance(value, Mapping):
            refuse(where, f"the saved '{key}' should be a dict of milestones, got "
                   f"{type(value).__name__}.")
        return Counter({_integer(where, key, k): _integer(where, key, plain(v))
                        for k, v in value.items()})
    if isinstance(like, dict):
        if not isinstance(value, Mapping):
            refuse(where, f"the saved '{key}' should be a dict, got {type(value).__name__}.")
        return {str(k): restore(where, f"{key}.{k}", v, like.get(str(k)))
                for k, v in value.items()}
    value = plain(value)
    if isinstance(like, (list, tuple)):
        if not isinstance(value, (list, tuple)):
            value = [value] if is_number(value) else value
        if not isinstance(value, (list, tuple)) or len(value) != len(like):
            got = f"{len(value)} value(s)" if isinstance(value, (list, tuple)) else \
                type(value).__name__
            refuse(where, f"the saved '{key}' has {got}, this scheduler has {len(like)}.",
                   values=f"saved: {value!r:.60}")
        return type(like)(restore(where, key, v, w) for v, w in zip(value, like))
    if like is None or isinstance(like, str):
        if like is not None and not isinstance(value, str):
            refuse(where, f"the saved '{key}' should be a string, got {value!r:.40}.")
        return value
    if isinstance(like, bool):
        if value not in (True, False, 0, 1):
            refuse(where, f"the saved '{key}' should be True or False, got {value!r:.40}.")
        return bool(value)
    if not is_number(value):
        refuse(where, f"the saved '{key}' should be a number, got {value!r:.40}.")
    if isinstance(like, int) and not isinstance(like, bool):
        return _integer(where, key, value)
    return float(value)


def _integer(where: str, key: str, value) -> int:
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if not (math.isfinite(number) and number == int(number)):
        refuse(where, f"the saved '{key}' should be a whole number, got {value!r:.40}.")
    return int(number)
