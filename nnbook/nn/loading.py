"""load_state_dict: check everything first, then copy -- never a half-loaded model.

This file knows a module only through ``state_dict(keep_vars=True)``, so it needs
nothing from module.py (which imports it).
"""
from __future__ import annotations

import re
from collections import namedtuple

import numpy as np

from ..context import no_grad
from ..errors import CheckpointError, close_matches, fmt_shape, message
from ..tensor import _wrap


class IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns, as PyTorch's does: the keys it could not match."""

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
                f"unexpected_keys={self.unexpected_keys})")

    __str__ = __repr__


_IncompatibleKeys = IncompatibleKeys  # PyTorch's name for it


def _as_array(key: str, value, where: str) -> np.ndarray:
    try:
        array = np.asarray(value)  # a Tensor gives its array without a copy
    except Exception:  # numpy refuses some objects outright
        array = np.asarray(None, dtype=object)
    if array.dtype.kind not in "fiub":
        raise CheckpointError(message(
            f"the value for '{key}' is not numeric (numpy sees dtype {array.dtype}).",
            where=where, values=f"{key}: {type(value).__name__}",
            hint="a state dict maps each path to a Tensor or a numeric numpy array, as "
            "model.state_dict() and nb.load() give."))
    return array


def _close(name: str, candidates) -> str:
    close = close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""


def _nested_hint(given: dict, own) -> str | None:
    """A training checkpoint ({'model': state dict, 'optimizer': ..., 'epoch': 3}) given
    whole: point at the part that is the model's."""
    for key, value in given.items():
        if hasattr(value, "items") and set(own) <= {str(k) for k in value}:
            return (f"the checkpoint holds a state dict under {key!r}: load "
                    f"checkpoint[{key!r}], i.e. model.load_state_dict(checkpoint[{key!r}]).")
    return None


def _prefix_hint(missing: list, unexpected: list) -> str | None:
    """Spot a whole checkpoint saved under (or without) a wrapper such as 'model.'."""
    for have, want, verb in ((unexpected, missing, "strip"), (missing, unexpected, "add")):
        if not have or not want:
            continue
        first = have[0]
        for other in want:
            if first.endswith("." + other):
                prefix = first[: -len(other)]
                wrapped = {k[len(prefix):] for k in have if k.startswith(prefix)}
                if set(want) <= wrapped:
                    return (f"every key in the checkpoint starts with '{prefix}'; load "
                            f"{{k.removeprefix('{prefix}'): v for k, v in sd.items()}}"
                            if verb == "strip" else
                            f"the model's keys start with '{prefix}' and the checkpoint's "
                            f"don't; load into the inner module (model.{prefix[:-1]}) "
                            "instead")
    return None


def _plain_name(key: str) -> str:
    """The key a weight has before it is pruned or normalised: 'fc.weight' for
    'fc.weight_orig', 'fc.weight_mask', 'fc.weight_g', 'fc.weight_v', 'fc.weight_u' and
    'fc.parametrizations.weight.original0'."""
    key = re.sub(r"parametrizations\.(\w+)\.original\d*$", r"\1", key)
    return re.sub(r"_(orig|mask|g|v|u)$", "", key)


def _reparametrized_hint(missing: list, unexpected: list) -> str | None:
    """Spot a checkpoint of a plain model loaded into a pruned or normalised one, or the
    other way round: a key on one side is the plain name of a key on the other."""
    for have, want in ((missing, unexpected), (unexpected, missing)):
        if any(_plain_name(k) != k and _plain_name(k) in want for k in have):
            return ("the checkpoint's weights and the model's are stored differently: one "
                    "is pruned or normalised (weight_orig, weight_mask, weight_g, "
                    "parametrizations.weight.original...) and the other is not. Load the "
                    "checkpoint before pruning or normalising, or make that permanent first "
                    "(prune.remove, remove_parametrizations, remove_weight_norm).")
    return None


def check_and_load(module, state_dict, strict: bool = True, assign: bool = False) \
        -> IncompatibleKeys:
    """Module.load_state_dict's work: refuse a state dict that does not fit, with every
    reason at once, or copy all of it in place."""
    if not hasattr(state_dict, "items"):
        raise CheckpointError(message(
            f"load_state_dict() needs a dict of path -> tensor, got "
            f"{type(state_dict).__name__}.",
            where=f"{type(module).__name__}.load_state_dict",
            hint="pass model.state_dict() from another model, or nb.load(path)."))
    own = module.state_dict(keep_vars=True)
    given = {str(k): v for k, v in state_dict.items()}
    optional = _optional_keys(module)
    missing = [k for k in own if k not in given and k not in optional]
    unexpected = [k for k in given if k not in own]
    arrays, mismatched = {}, []
    for key, target in own.items():
        if key not in given:
            continue
        array = _as_array(key, given[key], f"{type(module).__name__}.load_state_dict")
        if array.shape != target.shape:
            mismatched.append(f"{key}: the checkpoint has {fmt_shape(array.shape)}, "
                              f"the model {fmt_shape(target.shape)}")
        arrays[key] = array
    if mismatched or (strict and (missing or unexpected)):
        lines = []
        if missing:
            lines.append("missing from the checkpoint: " + ", ".join(
                k + _close(k, unexpected) for k in missing))
        if unexpected:
            lines.append("not in the model: " + ", ".join(
                k + _close(k, missing) for k in unexpected))
        if mismatched:
            lines.append("shapes differ:\n  " + "\n  ".join(mismatched))
        counts = [f"{len(x)} {what}" for x, what in
                  ((missing, "missing"), (unexpected, "unexpected"), (mismatched,
                                                                      "of the wrong shape"))
                  if x and (strict or what.startswith("of"))]
        hint = _nested_hint(given, own) or _prefix_hint(missing, unexpected) or \
            _reparametrized_hint(missing, unexpected) or (
            "the checkpoint was saved from a different architecture; build the same model "
            "(same layers, sizes and order) before loading" + (
                "" if mismatched else ", or pass strict=False to load only the keys that "
                "match") + ".")
        raise CheckpointError(message(
            f"the state dict does not fit {type(module).__name__} "
            f"({', '.join(counts)}); nothing was loaded.",
            where=f"{type(module).__name__}.load_state_dict",
            values="\n".join(lines), hint=hint))
    if assign:
        _assign(module, own, given, arrays)
        return IncompatibleKeys(missing, unexpected)
    # Everything fits: now copy, in place, so optimizers keep pointing at the same arrays.
    for key, array in arrays.items():
        target = own[key]
        with no_grad():  # as PyTorch: a copy into the same memory, counted as a change
            target.copy_(_wrap(array))
    return IncompatibleKeys(missing, unexpected)


def _optional_keys(module) -> set:
    """Keys a checkpoint may leave out: BatchNorm's num_batches_tracked, which older
    checkpoints lack (PyTorch keeps the layer's own count then, and so does nnbook)."""
    keys = set()
    for path, m in module.named_modules():
        for name in getattr(m, "_optional_buffers", ()):
            keys.add(f"{path}.{name}" if path else name)
    return keys


def _assign(module, own: dict, given: dict, arrays: dict) -> None:
    """load_state_dict(assign=True): the given tensors become the model's (no copy); a
    parameter stays a Parameter with its requires_grad."""
    from .parameter import Parameter  # (parameter.py imports nothing from here)

    for key, array in arrays.items():
        owner_path, _, name = key.rpartition(".")
        owner = module.get_submodule(owner_path)
        value = given[key]
        if name in owner._parameters:
            old = own[key]
            with no_grad():
                new = Parameter(value if hasattr(value, "_array") else _wrap(array),
                                requires_grad=old.requires_grad)
            owner.register_parameter(name, new)
        else:
            owner.register_buffer(name, value if hasattr(value, "_array") else _wrap(array),
                                  persistent=True)

